package interp

import (
	le "encoding/binary"
	"math"

	"octet/dtype"
	"octet/gemm"
	"octet/hlo"
	"octet/tensor"
)

// checkSameCount reports operands whose element count differs from the result's (an ill-formed module).
func checkSameCount(in *hlo.Instruction, ts ...*tensor.Tensor) error {
	n := in.Shape.NumElements()
	for i, t := range ts {
		if t.NumElements() != n {
			return errorf(in, "operand %d is %s, the result %s", i, t, in.Shape.String())
		}
	}
	return nil
}

func (e *evaluator) unary(in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error) {
	if len(ts) != 1 {
		return nil, errorf(in, "%s takes one operand", in.Opcode)
	}
	if err := checkSameCount(in, ts[0]); err != nil {
		return nil, err
	}
	x := ts[0]
	out := in.Shape.Elem
	dims := in.Shape.Dims
	op := in.Opcode
	if op == hlo.OpIsFinite {
		switch domainOf(x.Type) {
		case domFloat32:
			r := make([]bool, x.NumElements())
			for i, v := range f32s(x) {
				r[i] = !math.IsInf(float64(v), 0) && v == v
			}
			return fromBools(dims, r), nil
		case domFloat64:
			r := make([]bool, x.NumElements())
			for i, v := range f64s(x) {
				r[i] = !math.IsInf(v, 0) && v == v
			}
			return fromBools(dims, r), nil
		}
		return nil, unsupportedf(in, "is-finite of %s", x.Type)
	}
	if domainOf(x.Type) == domComplex {
		return complexUnary(in, x)
	}
	if x.Type != out && op != hlo.OpReal && op != hlo.OpImag && op != hlo.OpAbs {
		return nil, errorf(in, "operand type %s differs from the result type %s", x.Type, out)
	}
	switch domainOf(x.Type) {
	case domFloat32:
		f := unaryF32(op)
		if f == nil {
			return nil, unsupportedf(in, "%s of %s", op, x.Type)
		}
		return e.unaryFloat32(in, x, f), nil
	case domFloat64:
		f := unaryF64(op)
		if f == nil {
			return nil, unsupportedf(in, "%s of %s", op, x.Type)
		}
		return fromF64(out, dims, mapSlice(f64s(x), f)), nil
	case domInt:
		f := unaryInt(op, intInfoOf(x.Type))
		if f == nil {
			return nil, unsupportedf(in, "%s of %s", op, x.Type)
		}
		return fromI64(out, dims, mapSlice(i64s(x), f)), nil
	}
	return nil, unsupportedf(in, "%s of %s", op, x.Type)
}

func (e *evaluator) binary(in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error) {
	if len(ts) != 2 {
		return nil, errorf(in, "%s takes two operands", in.Opcode)
	}
	if err := checkSameCount(in, ts...); err != nil {
		return nil, err
	}
	a, b := ts[0], ts[1]
	out, dims, op := in.Shape.Elem, in.Shape.Dims, in.Opcode
	if op == hlo.OpComplex {
		return e.complexOp(in, ts)
	}
	if a.Type != out || b.Type != out {
		return nil, unsupportedf(in, "%s of %s and %s giving %s", op, a.Type, b.Type, out)
	}
	switch domainOf(out) {
	case domFloat32:
		if r := e.binaryFloat32(in, a, b, nil); r != nil {
			return r, nil
		}
		return nil, unsupportedf(in, "%s of %s", op, out)
	case domFloat64:
		f := binaryF64(op)
		if f == nil {
			return nil, unsupportedf(in, "%s of %s", op, out)
		}
		return fromF64(out, dims, zipSlices(f64s(a), f64s(b), f)), nil
	case domComplex:
		f := binaryComplex(op)
		if f == nil {
			return nil, unsupportedf(in, "%s of %s", op, out)
		}
		return fromC128(out, dims, zipSlices(c128s(a), c128s(b), f)), nil
	case domInt:
		if (op == hlo.OpAnd || op == hlo.OpOr || op == hlo.OpXor) && len(a.Data) == len(b.Data) {
			// Bit by bit, whatever the width: the bytes of the arrays (pred's 0 and 1 among them).
			r := e.newTensor(out, dims)
			bitwiseLoop(e.threads, op, a.Data, b.Data, r.Data)
			return r, nil
		}
		if int32Types(out) {
			if r := e.binaryInt32(op, out, a, b, dims); r != nil {
				return r, nil
			}
		}
		f := binaryInt(op, intInfoOf(out))
		if f == nil {
			return nil, unsupportedf(in, "%s of %s", op, out)
		}
		return fromI64(out, dims, zipSlices(i64s(a), i64s(b), f)), nil
	}
	return nil, unsupportedf(in, "%s of %s", op, out)
}

// compareSpec reads direction= and type= of a compare.
func compareSpec(in *hlo.Instruction) (direction, string, error) {
	d, ok := parseDirection(in.Str("direction"))
	if !ok {
		return 0, "", errorf(in, "compare has no valid direction (%q)", in.Str("direction"))
	}
	return d, in.Str("type"), nil
}

func (e *evaluator) compare(in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error) {
	if len(ts) != 2 {
		return nil, errorf(in, "compare takes two operands")
	}
	if err := checkSameCount(in, ts...); err != nil {
		return nil, err
	}
	d, ctype, err := compareSpec(in)
	if err != nil {
		return nil, err
	}
	a, b := ts[0], ts[1]
	if a.Type != b.Type {
		return nil, errorf(in, "compare of %s and %s", a.Type, b.Type)
	}
	if r := e.compareFast(d, ctype == "TOTALORDER", a, b, in.Shape.Dims); r != nil {
		return r, nil
	}
	r := make([]bool, a.NumElements())
	switch domainOf(a.Type) {
	case domFloat32:
		x, y := f32s(a), f32s(b)
		if ctype == "TOTALORDER" {
			for i := range r {
				r[i] = compareOrdered(d, totalOrder32(x[i]), totalOrder32(y[i]))
			}
		} else {
			for i := range r {
				r[i] = compareOrdered(d, x[i], y[i])
			}
		}
	case domFloat64:
		x, y := f64s(a), f64s(b)
		if ctype == "TOTALORDER" {
			for i := range r {
				r[i] = compareOrdered(d, totalOrder64(x[i]), totalOrder64(y[i]))
			}
		} else {
			for i := range r {
				r[i] = compareOrdered(d, x[i], y[i])
			}
		}
	case domInt:
		x, y := i64s(a), i64s(b)
		if a.Type.IsSigned() {
			for i := range r {
				r[i] = compareOrdered(d, x[i], y[i])
			}
		} else {
			for i := range r {
				r[i] = compareOrdered(d, uint64(x[i]), uint64(y[i]))
			}
		}
	case domComplex:
		if d != dirEQ && d != dirNE {
			return nil, unsupportedf(in, "compare of %s with direction %s", a.Type, in.Str("direction"))
		}
		x, y := c128s(a), c128s(b)
		for i := range r {
			r[i] = (x[i] == y[i]) == (d == dirEQ)
		}
	default:
		return nil, unsupportedf(in, "compare of %s", a.Type)
	}
	return fromBools(in.Shape.Dims, r), nil
}

// selectOp picks on_true where pred is true, else on_false; a scalar pred selects whole operands.
func (e *evaluator) selectOp(in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error) {
	if len(ts) != 3 {
		return nil, errorf(in, "select takes three operands")
	}
	p, a, b := ts[0], ts[1], ts[2]
	if p.Type != dtype.PRED || a.Type != b.Type {
		return nil, errorf(in, "select of %s, %s, %s", p, a, b)
	}
	if err := checkSameCount(in, a, b); err != nil {
		return nil, err
	}
	if p.NumElements() == 1 && in.Shape.NumElements() != 1 {
		if p.Data[0] != 0 {
			return a, nil
		}
		return b, nil
	}
	if err := checkSameCount(in, p); err != nil {
		return nil, err
	}
	out := e.newTensor(a.Type, in.Shape.Dims)
	es := a.Type.ByteSize()
	switch {
	case es == 1:
		selectLoop(e.threads, p.Data, a.Data, b.Data, out.Data)
	case es == 2 && selectWords[uint16](e.threads, p.Data, a.Data, b.Data, out.Data):
	case es == 4 && selectWords[uint32](e.threads, p.Data, a.Data, b.Data, out.Data):
	case es == 8 && selectWords[uint64](e.threads, p.Data, a.Data, b.Data, out.Data):
	default:
		parallelFor(e.threads, len(p.Data), elementwiseGrain, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				src := b.Data
				if p.Data[i] != 0 {
					src = a.Data
				}
				copy(out.Data[i*es:(i+1)*es], src[i*es:(i+1)*es])
			}
		})
	}
	return out, nil
}

// selectWords is select over elements of T's size, held in byte slices; it reports false, doing nothing,
// where one of them is not aligned for T.
func selectWords[T uint16 | uint32 | uint64](threads int, p, a, b, out []byte) bool {
	x, y, z := view[T](a), view[T](b), view[T](out)
	if x == nil || y == nil || z == nil {
		return false
	}
	selectLoop(threads, p, x, y, z)
	return true
}

// selectLoop sets z[i] to x[i] where p[i] is not zero, else to y[i], on every core.
func selectLoop[T byte | uint16 | uint32 | uint64](threads int, p []byte, x, y, z []T) {
	parallelFor(threads, len(p), elementwiseGrain, func(lo, hi int) {
		selectKernel(p[lo:hi], x[lo:hi], y[lo:hi], z[lo:hi])
	})
}

// selectKernel is selectLoop's work on one goroutine: for bytes and four-byte words, package gemm's
// select rows (its assembly where the kernel set has it, else the loop below in Go).
func selectKernel[T byte | uint16 | uint32 | uint64](p []byte, x, y, z []T) {
	switch zs := any(z).(type) {
	case []byte:
		gemm.SelectU8(zs[:len(p)], p, any(x).([]byte), any(y).([]byte))
		return
	case []uint32:
		gemm.SelectU32(zs[:len(p)], p, any(x).([]uint32), any(y).([]uint32))
		return
	}
	x, y, z = x[:len(p)], y[:len(p)], z[:len(p)]
	for i, c := range p {
		// Without a branch (a random predicate would mispredict half the time): c|-c has its top bit set
		// unless c is zero.
		m := -T((c | -c) >> 7)
		z[i] = y[i] ^ (x[i]^y[i])&m
	}
}

// clamp computes min(hi, max(x, lo)), lo and hi scalars or of x's shape; a NaN among the three gives
// that NaN (lo's first, then x's, then hi's), as XLA's evaluator does.
func (e *evaluator) clamp(in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error) {
	if len(ts) != 3 {
		return nil, errorf(in, "clamp takes three operands")
	}
	lo, x, hi := ts[0], ts[1], ts[2]
	if lo.Type != x.Type || hi.Type != x.Type || x.Type != in.Shape.Elem {
		return nil, errorf(in, "clamp of %s, %s, %s", lo, x, hi)
	}
	if err := checkSameCount(in, x); err != nil {
		return nil, err
	}
	n := int(x.NumElements())
	idx := func(t *tensor.Tensor) (int, error) {
		switch t.NumElements() {
		case 1:
			return 0, nil
		case int64(n):
			return 1, nil
		}
		return 0, errorf(in, "clamp bound %s fits neither a scalar nor %s", t, x)
	}
	sl, err := idx(lo)
	if err != nil {
		return nil, err
	}
	sh, err := idx(hi)
	if err != nil {
		return nil, err
	}
	dims := in.Shape.Dims
	switch domainOf(x.Type) {
	case domFloat32:
		if x.Type == dtype.BF16 {
			// On the bits: a bf16 value is the top half of a float32.
			r := e.newTensor(x.Type, dims)
			l, v, h, d := tensor.View[uint16](lo), tensor.View[uint16](x), tensor.View[uint16](hi), tensor.View[uint16](r)
			if sl == 0 && sh == 0 {
				parallelFor(e.threads, n, elementwiseGrain, func(i0, i1 int) { gemm.ClampBF16(d[i0:i1], v[i0:i1], l[0], h[0]) })
				return r, nil
			}
			parallelFor(e.threads, n, elementwiseGrain, func(i0, i1 int) {
				ls, hs := l[:1], h[:1]
				if sl == 1 {
					ls = l[i0:i1]
				}
				if sh == 1 {
					hs = h[i0:i1]
				}
				clampSliceBF16(d[i0:i1], ls, v[i0:i1], hs)
			})
			return r, nil
		}
		if x.Type == dtype.F32 && sl == 0 && sh == 0 {
			r, d := e.newFloat32s(dims)
			l, v, h := f32s(lo)[0], f32s(x), f32s(hi)[0]
			parallelFor(e.threads, n, elementwiseGrain, func(i0, i1 int) { gemm.Clamp(d[i0:i1], v[i0:i1], l, h) })
			return r, nil
		}
		// Over chunks on every core, as the binary instructions are (a scalar bound is broadcast).
		return e.float32Chunks(x.Type, dims, []*tensor.Tensor{lo, x, hi}, func(dst []float32, xs [][]float32) {
			clampSliceF32(dst, xs[0], xs[1], xs[2])
		}), nil
	case domFloat64:
		l, v, h := f64s(lo), f64s(x), f64s(hi)
		dst := make([]float64, n)
		for i := range dst {
			dst[i] = clampF64(l[i*sl], v[i], h[i*sh])
		}
		return fromF64(x.Type, dims, dst), nil
	case domInt:
		u64 := x.Type == dtype.U64
		l, v, h := i64s(lo), i64s(x), i64s(hi)
		dst := make([]int64, n)
		for i := range dst {
			m := v[i]
			if lessInt(m, l[i*sl], u64) {
				m = l[i*sl]
			}
			if !lessInt(m, h[i*sh], u64) {
				m = h[i*sh]
			}
			dst[i] = m
		}
		return fromI64(x.Type, dims, dst), nil
	}
	return nil, unsupportedf(in, "clamp of %s", x.Type)
}

// convert converts every element to the result type as XLA does: floats round to nearest even with
// ml_dtypes' overflow (no saturation: f32 1000 becomes NaN in f8e4m3fn and inf in f8e5m2); floats to
// integers truncate, clamp to the range and give 0 for NaN; integers wrap; anything to pred is x != 0.
func (e *evaluator) convert(in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error) {
	if len(ts) != 1 {
		return nil, errorf(in, "convert takes one operand")
	}
	if err := checkSameCount(in, ts[0]); err != nil {
		return nil, err
	}
	if x, to := ts[0], in.Shape.Elem; x.Type != to && domainOf(x.Type) == domFloat32 && domainOf(to) == domFloat32 {
		// Decoded exactly to float32 and rounded to the result type, as convertTensor does, a chunk at a
		// time on every core.
		return e.float32Chunks(to, in.Shape.Dims, []*tensor.Tensor{x}, func(dst []float32, xs [][]float32) { copy(dst, xs[0]) }), nil
	}
	if r := e.convertFast(ts[0], in.Shape.Elem, in.Shape.Dims); r != nil {
		return r, nil
	}
	t, err := convertTensor(ts[0], in.Shape.Elem, in.Shape.Dims)
	if err != nil {
		return nil, unsupportedf(in, "%v", err)
	}
	return t, nil
}

// convertTensor converts x to type to, giving the result the shape dims.
func convertTensor(x *tensor.Tensor, to dtype.Type, dims []int64) (*tensor.Tensor, error) {
	from := x.Type
	if from == to {
		return &tensor.Tensor{Type: to, Shape: dims, Data: x.Data}, nil
	}
	sd, dd := domainOf(from), domainOf(to)
	switch {
	case dd == domComplex && sd != domComplex:
		v := f64s(x)
		z := make([]complex128, len(v))
		for i, re := range v {
			z[i] = complex(re, 0)
		}
		return fromC128(to, dims, z), nil
	case dd == domComplex:
		return fromC128(to, dims, c128s(x)), nil
	case sd == domComplex:
		// XLA's convert from a complex type keeps the real part.
		z := c128s(x)
		re := make([]float64, len(z))
		for i, v := range z {
			re[i] = real(v)
		}
		x = fromF64(dtype.F64, x.Shape, re)
		if to == dtype.F64 {
			return &tensor.Tensor{Type: to, Shape: dims, Data: x.Data}, nil
		}
		sd = domFloat64
	}
	n := x.NumElements()
	switch {
	case to == dtype.PRED:
		r := make([]bool, n)
		switch sd {
		case domInt:
			for i, v := range i64s(x) {
				r[i] = v != 0
			}
		case domFloat64:
			for i, v := range f64s(x) {
				r[i] = v != 0
			}
		default:
			for i, v := range f32s(x) {
				r[i] = v != 0
			}
		}
		return fromBools(dims, r), nil
	case sd == domInt && dd == domInt:
		return fromI64(to, dims, i64s(x)), nil
	case sd == domInt: // to a float: exact or rounded once to float32 (or float64), then to the type
		if dd == domFloat64 {
			return fromF64(to, dims, f64s(x)), nil
		}
		return fromF32(to, dims, f32s(x)), nil
	case dd == domInt: // from a float: truncate, clamp, NaN to 0
		out := tensor.New(to, dims)
		if sd == domFloat64 {
			for i, v := range f64s(x) {
				out.SetBitsAt(int64(i), to.EncodeFloat64Saturate(v))
			}
			return out, nil
		}
		for i, v := range f32s(x) {
			out.SetBitsAt(int64(i), to.EncodeFloat32Saturate(v))
		}
		return out, nil
	case sd == domFloat32:
		return fromF32(to, dims, f32s(x)), nil
	}
	// From f64 to a narrower float: f32 directly; bf16 and f16 through float32 (Eigen's conversion);
	// the 8-bit and narrower types with one rounding (ml_dtypes' constructor from double).
	src := f64s(x)
	if to == dtype.F32 || to == dtype.BF16 || to == dtype.F16 {
		f := make([]float32, n)
		for i, v := range src {
			f[i] = float32(v)
		}
		return fromF32(to, dims, f), nil
	}
	out := tensor.New(to, dims)
	for i, v := range src {
		out.SetBitsAt(int64(i), to.EncodeFloat64(v))
	}
	return out, nil
}

// bitcastConvert reinterprets the bits: of each element when the widths agree; otherwise the last
// dimension of the narrower side holds the pieces of one wider element, little-endian.
func (e *evaluator) bitcastConvert(in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error) {
	if len(ts) != 1 {
		return nil, errorf(in, "bitcast-convert takes one operand")
	}
	x := ts[0]
	to := in.Shape.Elem
	if wf, wt := x.Type.BitWidth(), to.BitWidth(); wf != wt && (wf < 8 || wt < 8) {
		return bitcastPieces(in, x)
	}
	if int64(len(x.Data)) != in.Shape.NumElements()*int64(to.ByteSize()) {
		return nil, errorf(in, "bitcast-convert of %s to %s changes the byte size", x, in.Shape.String())
	}
	out := &tensor.Tensor{Type: to, Shape: in.Shape.Dims, Data: x.Data}
	if to == dtype.PRED {
		out = tensor.New(to, in.Shape.Dims)
		for i, b := range x.Data {
			if b != 0 {
				out.Data[i] = 1
			}
		}
	}
	return out, nil
}

// bitcastPieces is bitcast-convert between widths where one side is a sub-byte type (stored one element
// per byte): the narrow elements are the bit fields of a wide one, the first in the lowest bits.
func bitcastPieces(in *hlo.Instruction, x *tensor.Tensor) (*tensor.Tensor, error) {
	to := in.Shape.Elem
	wf, wt := x.Type.BitWidth(), to.BitWidth()
	if wf > 64 || wt > 64 || x.Type.IsComplex() || to.IsComplex() || max(wf, wt)%min(wf, wt) != 0 {
		return nil, unsupportedf(in, "bitcast-convert from %s to %s", x.Type, to)
	}
	out := tensor.New(to, in.Shape.Dims)
	ratio := int64(max(wf, wt) / min(wf, wt))
	if wf > wt { // split each element into ratio pieces
		if out.NumElements() != x.NumElements()*ratio {
			return nil, errorf(in, "bitcast-convert of %s to %s", x, in.Shape.String())
		}
		mask := uint64(1)<<wt - 1
		for i := int64(0); i < x.NumElements(); i++ {
			b := x.BitsAt(i)
			for j := int64(0); j < ratio; j++ {
				out.SetBitsAt(i*ratio+j, b>>(uint(j)*uint(wt))&mask)
			}
		}
		return out, nil
	}
	if x.NumElements() != out.NumElements()*ratio {
		return nil, errorf(in, "bitcast-convert of %s to %s", x, in.Shape.String())
	}
	mask := uint64(1)<<wf - 1
	for i := int64(0); i < out.NumElements(); i++ {
		var b uint64
		for j := int64(0); j < ratio; j++ {
			b |= (x.BitsAt(i*ratio+j) & mask) << (uint(j) * uint(wf))
		}
		out.SetBitsAt(i, b)
	}
	return out, nil
}

func (e *evaluator) reducePrecision(in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error) {
	if len(ts) != 1 {
		return nil, errorf(in, "reduce-precision takes one operand")
	}
	x := ts[0]
	eb, ok1 := in.Int("exponent_bits")
	mb, ok2 := in.Int("mantissa_bits")
	if !ok1 || !ok2 || eb < 1 || mb < 0 {
		return nil, errorf(in, "reduce-precision needs exponent_bits >= 1 and mantissa_bits >= 0")
	}
	switch domainOf(x.Type) {
	case domFloat32:
		src := f32s(x)
		dst := make([]float32, len(src))
		for i, v := range src {
			dst[i] = reducePrecision32(v, int(eb), int(mb))
		}
		return fromF32(x.Type, in.Shape.Dims, dst), nil
	case domFloat64:
		src := f64s(x)
		dst := make([]float64, len(src))
		for i, v := range src {
			dst[i] = reducePrecision64(v, int(eb), int(mb))
		}
		return fromF64(x.Type, in.Shape.Dims, dst), nil
	}
	return nil, unsupportedf(in, "reduce-precision of %s", x.Type)
}

// clampSliceF32 sets dst[i] to gemm.Clamp32(l[i], v[i], h[i]), the same bits, choosing among the
// operands' bits by conditional moves rather than branches (ReLU6's x < 0 is a coin toss a branch
// predictor loses).
func clampSliceF32(dst, l, v, h []float32) {
	l, v, h = l[:len(dst)], v[:len(dst)], h[:len(dst)]
	for i := range dst {
		lo, x, hi := l[i], v[i], h[i]
		lb, xb, hb := math.Float32bits(lo), math.Float32bits(x), math.Float32bits(hi)
		r := xb
		if x < lo {
			r = lb
		}
		if !(math.Float32frombits(r) < hi) {
			r = hb
		}
		// NaN operands, in gemm.Clamp32's order of precedence.
		if x != x {
			r = xb
		}
		if lo != lo {
			r = lb
		}
		dst[i] = math.Float32frombits(r)
	}
}

// clampSliceBF16 is clampSliceF32 on bf16 bits (a bound of one element applies to all of dst), with the
// rounding to bf16 that follows it in float32: a NaN result becomes the quiet NaN of its sign, as
// encoding a float32 NaN to bf16 gives; any other result is one of the operands, exact in bf16.
func clampSliceBF16(dst, l, v, h []uint16) {
	v = v[:len(dst)]
	ls, hs := 1, 1
	if len(l) == 1 {
		ls = 0
	} else {
		l = l[:len(dst)]
	}
	if len(h) == 1 {
		hs = 0
	} else {
		h = h[:len(dst)]
	}
	for i := range dst {
		lb, xb, hb := l[i*ls], v[i], h[i*hs]
		lo, x, hi := math.Float32frombits(uint32(lb)<<16), math.Float32frombits(uint32(xb)<<16), math.Float32frombits(uint32(hb)<<16)
		r := xb
		if x < lo {
			r = lb
		}
		if !(math.Float32frombits(uint32(r)<<16) < hi) {
			r = hb
		}
		if x != x {
			r = xb
		}
		if lo != lo {
			r = lb
		}
		if r&0x7fff > 0x7f80 {
			r = r&0x8000 | 0x7fc0
		}
		dst[i] = r
	}
}

func clampF64(lo, x, hi float64) float64 {
	switch {
	case lo != lo:
		return lo
	case x != x:
		return x
	case hi != hi:
		return hi
	}
	m := x
	if x < lo {
		m = lo
	}
	if m < hi {
		return m
	}
	return hi
}

// mapSlice returns f applied to every element of src.
func mapSlice[T any](src []T, f func(T) T) []T {
	dst := make([]T, len(src))
	for i, v := range src {
		dst[i] = f(v)
	}
	return dst
}

// zipSlices returns f applied to the elements of x and y pairwise.
func zipSlices[T any](x, y []T, f func(T, T) T) []T {
	dst := make([]T, len(x))
	for i := range dst {
		dst[i] = f(x[i], y[i])
	}
	return dst
}

// bitwiseLoop sets z to x op y (and, or or xor) byte by byte, eight bytes at a time, on every core.
func bitwiseLoop(threads int, op hlo.Opcode, x, y, z []byte) {
	f := map[hlo.Opcode]func(a, b uint64) uint64{
		hlo.OpAnd: func(a, b uint64) uint64 { return a & b },
		hlo.OpOr:  func(a, b uint64) uint64 { return a | b },
		hlo.OpXor: func(a, b uint64) uint64 { return a ^ b },
	}[op]
	parallelFor(threads, (len(z)+7)/8, elementwiseGrain, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if j := 8 * i; j+8 <= len(z) {
				le.LittleEndian.PutUint64(z[j:], f(le.LittleEndian.Uint64(x[j:]), le.LittleEndian.Uint64(y[j:])))
				continue
			}
			for j := 8 * i; j < len(z); j++ {
				z[j] = byte(f(uint64(x[j]), uint64(y[j])))
			}
		}
	})
}

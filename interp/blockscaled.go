package interp

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"octet/blockscale"
	"octet/cublas"
	"octet/dtype"
	"octet/gemm"
	"octet/hlo"
	"octet/tensor"
)

// Block-scaled GEMMs: XLA's scaled-dot instruction and the block-scaled custom calls of its GPU backend.
//
// Each operand of a block-scaled GEMM is an array of elements and an array of scales, one scale for each
// block of consecutive elements (scaledOperand). Every form is evaluated in two steps: decodeScaled
// multiplies each element by its scale, rounding the product to a type (the type XLA dequantizes in,
// or float32 where the GPU's block-scaled kernel decodes exactly), then blockScaledProduct multiplies the
// decoded operands through the MatMuler, accumulating in float32; or, for products of few rows, multiplies
// the rhs as it is by package gemm's kernels for block-scaled weights, which decode it while they stream
// it, where they give it the same values (streamBlockScaled).
//
// The forms and their numerics:
//
//   - scaled-dot(lhs, rhs, lhs_scale, rhs_scale) with dot dimension numbers, as XLA's ScaledDotRewriter
//     (xla/backends/gpu/transforms/scaled_dot_rewriter.cc) defines it: each operand and its scale are
//     converted to a common type (bf16 when both are narrower than 16 bits; their type when equal; f32
//     for two different types of one width; else the wider), the scale is broadcast over the blocks its
//     shape implies (every operand dimension is a multiple of the scale's, the quotient the block size
//     along it), the product is rounded to that type, and the two products are multiplied by a dot of
//     the instruction's result type. A scale of rank 0 leaves its operand unscaled, as the rewriter does.
//   - __op$block_scaled_dot(lhs, rhs, lhs_scale, [rhs_scale], [global_scale]), what JAX's
//     jax.nn.scaled_matmul lowers to, as XLA's BlockScalingRewriter expands it when no cuDNN kernel is
//     used (xla/backends/gpu/transforms/block_scaling_rewriter.cc, BuildBlockScaledDot): ranks 2 or 3,
//     contracting the last dimension, batch first; elements and scales converted to the result type and
//     multiplied in it, the block size the backend config's block_size or the ratio of the last
//     dimensions (padded scales are sliced); a dot of the result type; then the global scale multiplied
//     in, in the result type.
//   - __cudnn$blockScaledDot(lhs, rhs, lhs_scale, rhs_scale, [global_scale]), cuDNN's block-scaled GEMM:
//     MXFP8 (f8e4m3fn or f8e5m2 elements, not both f8e5m2, f8e8m0fnu scales per 32) or NVFP4 (f4e2m1fn,
//     f8e4m3fn scales per 16); scales padded to 128 x 4 and swizzled (blockscale.SwizzleIndex); elements
//     times scales exact, products accumulated in float32, times the global scale, rounded once to the
//     result; the result is the tuple (D, u8[0]).
//   - __cublas$lt$matmul$mx(lhs, rhs, lhs_scale, rhs_scale), hipBLASLt's MX GEMM on AMD gfx950: f8e4m3fn,
//     f8e5m2 or f4e2m1fn elements with f8e8m0fnu scales per 32 in their plain layout, the same exact
//     decoding and float32 accumulation, times alpha; the result is the tuple (D, s8[workspace]).
//
// Where the two definitions meet: with an f32 result, scaled-dot and __op$block_scaled_dot decode MXFP8
// and NVFP4 exactly too (every product of an element and a scale fits bf16 or f32, save underflow), so
// they give the bits of the cuDNN call; with a bf16 or f16 result the dequantized values are rounded to
// that type first (f16 overflows past 65504 and flushes below 2^-24), and the sum is rounded once.

// Targets of the block-scaled custom calls.
const (
	BlockScaledDotTarget      = "__op$block_scaled_dot"
	CudnnBlockScaledDotTarget = "__cudnn$blockScaledDot"
	HipblasltMXTarget         = "__cublas$lt$matmul$mx"
)

func init() {
	registerArray((*evaluator).scaledDot, hlo.OpScaledDot)
}

// isBlockScaledTarget reports whether a custom-call target is a block-scaled GEMM the interpreter runs.
func isBlockScaledTarget(target string) bool {
	return target == BlockScaledDotTarget || target == CudnnBlockScaledDotTarget || target == HipblasltMXTarget
}

// scaledOperand is one operand of a block-scaled GEMM.
type scaledOperand struct {
	data *tensor.Tensor
	// scales are the operand's scales in row-major order (nil: the operand is used as it is); block[i]
	// elements along data dimension i share a scale, so element (i0, i1, ...) has the scale
	// (i0/block[0], i1/block[1], ...) of scales, whose shape may be larger than that (padding).
	scales *tensor.Tensor
	block  []int64
	// round is the type each element x scale product is rounded to, after the element and the scale are
	// each converted to it (F32: the exact product, rounded once to float32).
	round dtype.Type
	// swizzled are the scales as the operand holds them, padded and swizzled in cuDNN's layout, when
	// scales is their unswizzled copy (swizzledScales); nil when scales are the operand's own.
	swizzled *tensor.Tensor
}

// decodeScaled returns the operand's values, each element multiplied by its scale: a tensor of type
// o.round, of the data's shape.
func decodeScaled(o scaledOperand) *tensor.Tensor {
	if o.scales == nil {
		return o.data
	}
	shape := o.data.Shape
	rank := len(shape)
	n := o.data.NumElements()
	out := make([]float32, n)
	// contrib[i][c] is the offset in the scales of coordinate c along dimension i.
	stride := int64(1)
	contrib := make([][]int64, rank)
	for i := rank - 1; i >= 0; i-- {
		contrib[i] = make([]int64, shape[i])
		for c := range contrib[i] {
			contrib[i][c] = int64(c) / o.block[i] * stride
		}
		stride *= o.scales.Shape[i]
	}
	value := productFunc(o.data.Type, o.scales.Type, o.round, o.data, o.scales)
	if rank == 0 {
		out[0] = value(0, 0)
		return fromF32(o.round, shape, out)
	}
	idx := make([]int64, rank)
	last := shape[rank-1]
	for base := int64(0); base < n; base += last {
		off := int64(0)
		for i := 0; i < rank-1; i++ {
			off += contrib[i][idx[i]]
		}
		cl := contrib[rank-1]
		for c := int64(0); c < last; c++ {
			out[base+c] = value(base+c, off+cl[c])
		}
		for i := rank - 2; i >= 0; i-- {
			idx[i]++
			if idx[i] < shape[i] {
				break
			}
			idx[i] = 0
		}
	}
	return fromF32(o.round, shape, out)
}

// roundTo rounds x to type t and returns its value (NaN stays NaN).
func roundTo(t dtype.Type, x float64) float64 {
	if t == dtype.F32 {
		return float64(float32(x))
	}
	return t.DecodeFloat64(t.EncodeFloat64(x))
}

// productFunc returns the function that gives element i of data times scale j of scales, each converted
// to t and their product rounded to t, as float32. For narrow data and scales it tabulates the products
// of each scale code on first use.
func productFunc(dt, st, t dtype.Type, data, scales *tensor.Tensor) func(i, j int64) float32 {
	if dt.BitWidth() <= 8 && st.BitWidth() <= 8 && dt.IsFloat() && st.IsFloat() {
		var tables [256]*[256]float32
		dmask := uint8(1<<dt.BitWidth() - 1)
		return func(i, j int64) float32 {
			s := scales.Data[j]
			tab := tables[s]
			if tab == nil {
				tab = new([256]float32)
				sv := roundTo(t, st.DecodeFloat64(uint64(s)))
				for c := range 1 << dt.BitWidth() {
					tab[c] = float32(roundTo(t, roundTo(t, dt.DecodeFloat64(uint64(c)))*sv))
				}
				tables[s] = tab
			}
			return tab[data.Data[i]&dmask]
		}
	}
	dv, sv := data.Float64s(), scales.Float64s()
	return func(i, j int64) float32 {
		return float32(roundTo(t, roundTo(t, dv[i])*roundTo(t, sv[j])))
	}
}

// blockScaledProduct multiplies two block-scaled operands for plan p (and the dimension numbers d it was
// made from) into c (batch*M*N float32): each is decoded (decodeScaled), converted to the type the product
// reads its operands in (out, as a dot converts its operands to its result type; F32 for the custom
// calls), and multiplied through the MatMuler, summing in float32. Where the product has few rows and
// package gemm's block-scaled kernels decode rhs to the same values, rhs is multiplied by them instead,
// as it is (streamBlockScaled): the same bits, without a float32 copy of the weights.
func (e *evaluator) blockScaledProduct(p *dotPlan, d dotDims, lhs, rhs scaledOperand, out dtype.Type, c []float32) error {
	if err := e.charge(lhs.data.NumElements() + rhs.data.NumElements()); err != nil {
		return err
	}
	a := decodeScaled(lhs)
	var err error
	if a.Type != out {
		if a, err = convertTensor(a, out, a.Shape); err != nil {
			return err
		}
	}
	if e.streamBlockScaled(p, d, a, rhs, out, c) {
		return nil
	}
	b := decodeScaled(rhs)
	if b.Type != out {
		if b, err = convertTensor(b, out, b.Shape); err != nil {
			return err
		}
	}
	e.matmulF32(p, a, b, c, 1, 0)
	return nil
}

// blockScaledMaxRows is the most rows (M) of a product that streamBlockScaled multiplies with the
// block-scaled kernels: inference's decode steps. Larger products decode rhs once and run the blocked
// kernels, which reuse each decoded value for many rows.
const blockScaledMaxRows = 16

// streamBlockScaled computes c = a * rhs for plan p with package gemm's kernels for block-scaled weights
// (gemm.MatMulBlockScaled), a being lhs decoded and converted to out, and reports whether it did. It does
// where the evaluator multiplies through package gemm (the default MatMuler, an ordered kernel for out),
// the kernels take rhs as it is stored (blockScaledLayout), and the kernels' value of every element (its
// code times its scale, rounded once to float32) is the value decodeScaled and the conversion to out give
// it (blockScaledAgrees): then the sums are the same chains of fused multiply-adds over the same values,
// and the same bits. Each batch of rhs is packed (gemm.PackBlockScaled) for the product, or taken from the
// run's packed weights (weightCache.blockScaled).
func (e *evaluator) streamBlockScaled(p *dotPlan, d dotDims, a *tensor.Tensor, rhs scaledOperand, out dtype.Type, c []float32) bool {
	if _, ok := e.gemm.(defaultMatMuler); !ok || !gemm.KernelFor(out, out).Ordered() {
		return false
	}
	if rhs.scales == nil {
		return false
	}
	f, bn, ok := blockScaledLayout(p, d, rhs.data.Type, rhs.scales.Type, rhs.data.Shape, rhs.block)
	if !ok || !blockScaledAgrees(rhs, out) {
		return false
	}
	shape, block, sshape := rhs.data.Shape, rhs.block, rhs.scales.Shape
	nb := len(d.rhsBatch)
	scaleStride := int(sshape[len(sshape)-1])
	m, n, k := int(p.m), int(p.n), int(p.k)
	if p.lhsPerm != nil {
		a = transposeTensor(a, p.lhsPerm)
	}
	at := gemm.Typed{Type: a.Type, Rows: m, Cols: k, Stride: k}
	if p.lhsTrans {
		at.Stride, at.Trans = m, true
	}
	aSize := m * k * a.Type.ByteSize()
	// The scales of batch i start where the scales' batch dimensions put the block of its indexes.
	scaleOffset := func(i int) int {
		off, stride := 0, len(rhs.scales.Data)
		for j := 0; j < nb; j++ {
			stride /= int(sshape[j])
		}
		for j := nb - 1; j >= 0; j-- {
			off += i % int(shape[j]) / int(block[j]) * stride
			stride *= int(sshape[j])
			i /= int(shape[j])
		}
		return off
	}
	for i := 0; i < int(p.batch); i++ {
		so := scaleOffset(i)
		b := gemm.BlockScaled{Format: f, BlockN: bn, Data: rhs.data.Data[i*k*n : (i+1)*k*n], Scales: rhs.scales.Data[so:],
			Rows: k, Cols: n, Stride: n, ScaleStride: scaleStride, Trans: p.rhsTrans}
		if p.rhsTrans {
			b.Stride = k
		}
		at.Data = a.Data[i*aSize : (i+1)*aSize]
		var comp *hlo.Computation
		if e.current != nil {
			comp = e.current.Parent
		}
		w := e.weights.blockScaled(b, rhs, i*k*n, so, comp)
		gemm.MatMulBlockScaled(gemm.Matrix{Data: c[i*m*n : (i+1)*m*n], Rows: m, Cols: n, Stride: n}, at, w, 1, 0)
	}
	return true
}

// blockScaledLayout says how streamBlockScaled multiplies by an rhs of elements of type elem and scales
// of type scale, of the given shape and blocks (as scaledOperand's block), for plan p made from d: the
// format of each batch of it (with its block along K) and the columns a scale covers. ok is false where
// the kernels do not take it: the product has more than blockScaledMaxRows rows (larger products decode
// rhs once and run the blocked kernels, which reuse each decoded value for many rows) or none, the format
// is not one the kernels read, or rhs is not stored with its one contracting dimension and at most one
// free dimension in a row-major or transposed order.
func blockScaledLayout(p *dotPlan, d dotDims, elem, scale dtype.Type, shape, block []int64) (f blockscale.Format, bn int, ok bool) {
	if p.m > blockScaledMaxRows || p.m == 0 || p.n == 0 || p.k == 0 || p.rhsPerm != nil || len(d.rhsContract) != 1 {
		return f, 0, false
	}
	f = blockscale.Format{Elem: elem, Scale: scale, BlockSize: 1}
	if !gemm.BlockScaledFormat(f) {
		return f, 0, false
	}
	// rhs is [batch..., K, N] or [batch..., N, K], N one dimension or none.
	nb := len(d.rhsBatch)
	if len(shape) > nb+2 || len(block) != len(shape) {
		return f, 0, false
	}
	kd, nd := nb, nb+1 // the contracting and the free dimension
	if p.rhsTrans {
		kd, nd = nb+1, nb
	}
	f.BlockSize, bn = int(block[kd]), 1
	if len(shape) == nb+2 {
		bn = int(block[nd])
	}
	return f, bn, f.BlockSize > 0 && bn > 0
}

// blockScaledAgrees reports whether every element of o, converted to out as blockScaledProduct converts
// it, has the value package gemm's block-scaled kernels give it: its code times its scale rounded once to
// float32. It tries every element code with every scale code that o's scales hold, through decodeScaled
// and the conversion themselves. Where o's type is float32 the product is exact but for an overflow, which
// float32 rounds as the kernels do; in bf16 (scaled-dot's type for two narrow types) products below 2^-126
// can lose bits; in f16, scales past its range become zero or infinite, and values past 65504 infinite.
func blockScaledAgrees(o scaledOperand, out dtype.Type) bool {
	f := blockscale.Format{Elem: o.data.Type, Scale: o.scales.Type}
	var present [256]bool
	for _, s := range o.scales.Data {
		present[s] = true
	}
	codes := tensor.New(o.data.Type, []int64{int64(1) << o.data.Type.BitWidth()})
	for c := range codes.Data {
		codes.Data[c] = byte(c)
	}
	n := codes.Shape[0]
	for s, ok := range present {
		if !ok {
			continue
		}
		scale := &tensor.Tensor{Type: o.scales.Type, Shape: []int64{1}, Data: []byte{byte(s)}}
		v := decodeScaled(scaledOperand{data: codes, scales: scale, block: []int64{n}, round: o.round})
		if v.Type != out {
			var err error
			if v, err = convertTensor(v, out, v.Shape); err != nil {
				return false
			}
		}
		for c, x := range f32s(v) {
			want := float32(f.Value(byte(c), byte(s), 1))
			if math.Float32bits(x) != math.Float32bits(want) && !(x != x && want != want) {
				return false
			}
		}
	}
	return true
}

// upscaleType is the type XLA's ScaledDotRewriter converts an operand and its scale to before it
// multiplies them (GetTargetType).
func upscaleType(a, b dtype.Type) dtype.Type {
	switch {
	case a.BitWidth() < 16 && b.BitWidth() < 16:
		return dtype.BF16
	case a == b:
		return a
	case a.BitWidth() == b.BitWidth():
		return dtype.F32
	case a.BitWidth() > b.BitWidth():
		return a
	}
	return b
}

// scaledDot evaluates XLA's scaled-dot(lhs, rhs, lhs_scale, rhs_scale): see the comment at the top of this
// file.
func (e *evaluator) scaledDot(in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error) {
	if len(ts) != 4 {
		return nil, errorf(in, "scaled-dot takes lhs, rhs, lhs_scale and rhs_scale, not %d operands", len(ts))
	}
	out := in.Shape.Elem
	if domainOf(out) != domFloat32 {
		return nil, unsupportedf(in, "scaled-dot giving %s", out)
	}
	var ops [2]scaledOperand
	for i, side := range []string{"lhs", "rhs"} {
		data, scale := ts[i], ts[i+2]
		if !data.Type.IsFloat() || !scale.Type.IsFloat() || data.Type.IsComplex() {
			return nil, unsupportedf(in, "scaled-dot of %s with %s scales", data.Type, scale.Type)
		}
		if len(scale.Shape) == 0 {
			ops[i] = scaledOperand{data: data}
			continue
		}
		if len(scale.Shape) != len(data.Shape) {
			return nil, errorf(in, "scaled-dot: %s %s and its scale %s differ in rank", side, data, scale)
		}
		block := make([]int64, len(data.Shape))
		for d := range data.Shape {
			if scale.Shape[d] == 0 || data.Shape[d]%scale.Shape[d] != 0 {
				return nil, errorf(in, "scaled-dot: %s %s: dimension %d of its scale %s does not divide %d", side, data, d, scale, data.Shape[d])
			}
			block[d] = data.Shape[d] / scale.Shape[d]
		}
		ops[i] = scaledOperand{data: data, scales: scale, block: block, round: upscaleType(data.Type, scale.Type)}
	}
	d := dotDimsOf(in)
	p, err := planDot(ts[0].Shape, ts[1].Shape, d)
	if err != nil {
		return nil, errorf(in, "scaled-dot of %s and %s: %v", ts[0], ts[1], err)
	}
	if !slices.Equal(p.outDims, in.Shape.Dims) {
		return nil, errorf(in, "scaled-dot of %s and %s gives %s, its shape says %s", ts[0], ts[1], dimsString(out, p.outDims), in.Shape.String())
	}
	if err := e.charge(p.batch * p.m * p.n * p.k); err != nil {
		return nil, err
	}
	c := make([]float32, p.batch*p.m*p.n)
	if err := e.blockScaledProduct(p, d, ops[0], ops[1], out, c); err != nil {
		return nil, unsupportedf(in, "scaled-dot: %v", err)
	}
	return fromF32(out, in.Shape.Dims, c), nil
}

// blockScaledCall evaluates the block-scaled GEMM custom calls: see the comment at the top of this file.
func (e *evaluator) blockScaledCall(in *hlo.Instruction, ops []Value) (Value, error) {
	target := in.CustomCallTarget()
	ts, err := arrays(in, ops)
	if err != nil {
		return Value{}, err
	}
	if len(ts) < 3 || len(ts) > 5 || (target != BlockScaledDotTarget && len(ts) < 4) {
		return Value{}, errorf(in, "%s takes lhs, rhs, lhs_scale, rhs_scale and an optional global scale, not %d operands", target, len(ts))
	}
	// The result: D, or a tuple whose first element is D.
	dShape := in.Shape
	if in.Shape.IsTuple() {
		if len(in.Shape.Tuple) == 0 || !in.Shape.Tuple[0].IsArray() {
			return Value{}, errorf(in, "%s: the result's first element is not an array", target)
		}
		dShape = in.Shape.Tuple[0]
	}
	out := dShape.Elem
	if domainOf(out) != domFloat32 {
		return Value{}, unsupportedf(in, "%s giving %s", target, out)
	}
	lhs, rhs := ts[0], ts[1]
	rank := len(lhs.Shape)
	if rank != 2 && rank != 3 || len(rhs.Shape) != rank {
		return Value{}, errorf(in, "%s: operands %s and %s: want both of rank 2 or both of rank 3 ([batch,] rows, contracting)", target, lhs, rhs)
	}
	d := dotDims{lhsContract: []int64{int64(rank - 1)}, rhsContract: []int64{int64(rank - 1)}}
	if rank == 3 {
		d.lhsBatch, d.rhsBatch = []int64{0}, []int64{0}
	}
	p, err := planDot(lhs.Shape, rhs.Shape, d)
	if err != nil {
		return Value{}, errorf(in, "%s of %s and %s: %v", target, lhs, rhs, err)
	}
	if !slices.Equal(p.outDims, dShape.Dims) {
		return Value{}, errorf(in, "%s of %s and %s gives %s, its result says %s", target, lhs, rhs, dimsString(out, p.outDims), dShape.String())
	}
	var global *tensor.Tensor
	nScales := 2
	switch len(ts) {
	case 3:
		nScales = 1 // __op$block_scaled_dot with the rhs not quantized
	case 5:
		global = ts[4]
	}
	if global != nil && (global.NumElements() != 1 || !global.Type.IsFloat()) {
		return Value{}, errorf(in, "%s: the global scale %s is not one float value", target, global)
	}
	var sides [2]scaledOperand
	sides[1] = scaledOperand{data: rhs}
	if target == BlockScaledDotTarget {
		blockSize := int64(0)
		if bc := in.BackendConfig(); bc != nil {
			blockSize = blockscale.ConfigBlockSize(bc.Text)
		}
		for i := 0; i < nScales; i++ {
			s, err := plainScales(ts[i], ts[2+i], blockSize)
			if err != nil {
				return Value{}, errorf(in, "%s: %s: %v", target, sideName[i], err)
			}
			s.round = out
			sides[i] = s
		}
	} else {
		var formats [2]blockscale.Format
		for i := range 2 {
			f, err := libraryFormat(target, ts[i].Type, ts[2+i].Type)
			if err != nil {
				return Value{}, errorf(in, "%s: %s %s with %s scales: %v", target, sideName[i], ts[i], ts[2+i].Type, err)
			}
			formats[i] = f
			var s scaledOperand
			if target == CudnnBlockScaledDotTarget {
				s, err = swizzledScales(ts[i], ts[2+i], int64(f.BlockSize))
			} else {
				s, err = plainScales(ts[i], ts[2+i], int64(f.BlockSize))
			}
			if err != nil {
				return Value{}, errorf(in, "%s: %s: %v", target, sideName[i], err)
			}
			s.round = dtype.F32
			sides[i] = s
		}
		if formats[0].IsMX() != formats[1].IsMX() {
			return Value{}, errorf(in, "%s: %s x %s: the operands must be of one family (MX with MX, NVFP4 with NVFP4)", target, formats[0], formats[1])
		}
		if target == CudnnBlockScaledDotTarget && formats[0].Elem == dtype.F8E5M2 && formats[1].Elem == dtype.F8E5M2 {
			return Value{}, errorf(in, "%s: f8e5m2 x f8e5m2 is not a pair cuDNN's block-scaled GEMM supports", target)
		}
	}
	if err := e.charge(p.batch * p.m * p.n * p.k); err != nil {
		return Value{}, err
	}
	prodType := out
	if target != BlockScaledDotTarget {
		prodType = dtype.F32
	}
	c := make([]float32, p.batch*p.m*p.n)
	if err := e.blockScaledProduct(p, d, sides[0], sides[1], prodType, c); err != nil {
		return Value{}, unsupportedf(in, "%s: %v", target, err)
	}
	var d0 *tensor.Tensor
	switch {
	case target == BlockScaledDotTarget:
		// The dot rounds to the result type, then the global scale multiplies in that type.
		d0 = fromF32(out, dShape.Dims, c)
		if global != nil {
			g := roundTo(out, global.Float64s()[0])
			v := f32s(d0)
			w := make([]float32, len(v))
			for i, x := range v {
				w[i] = float32(roundTo(out, float64(x)*g))
			}
			d0 = fromF32(out, dShape.Dims, w)
		}
	default:
		alpha := 1.0
		if global != nil {
			alpha = global.Float64s()[0]
		}
		if target == HipblasltMXTarget {
			if bc := in.BackendConfig(); bc != nil {
				if cfg, err := cublas.ParseBackendConfig(bc.Text); err == nil {
					alpha = cfg.AlphaReal
				}
			}
		}
		if alpha != 1 {
			a := float32(alpha)
			for i := range c {
				c[i] *= a
			}
		}
		d0 = fromF32(out, dShape.Dims, c)
	}
	if !in.Shape.IsTuple() {
		return ArrayValue(d0), nil
	}
	elems := []Value{ArrayValue(d0)}
	for _, s := range in.Shape.Tuple[1:] {
		elems = append(elems, workspace(s))
	}
	return TupleValue(elems...), nil
}

var sideName = [2]string{"lhs", "rhs"}

// libraryFormat returns the block-scaled format of an element type and a scale type that a library
// call takes: cuDNN's block-scaled GEMM MXFP8 (f8e4m3fn, f8e5m2 with f8e8m0fnu scales) and NVFP4
// (f4e2m1fn with f8e4m3fn scales), as XLA's GetCudnnMxType admits them; hipBLASLt's MX GEMM f8e4m3fn,
// f8e5m2 and f4e2m1fn with f8e8m0fnu scales (IsSupportedByHipblaslt).
func libraryFormat(target string, elem, scale dtype.Type) (blockscale.Format, error) {
	formats := []blockscale.Format{blockscale.MXFP8E4M3, blockscale.MXFP8E5M2, blockscale.NVFP4}
	what := "cuDNN's block-scaled GEMM takes MXFP8 (f8e4m3fn or f8e5m2 with f8e8m0fnu scales) or NVFP4 (f4e2m1fn with f8e4m3fn scales)"
	if target == HipblasltMXTarget {
		formats = []blockscale.Format{blockscale.MXFP8E4M3, blockscale.MXFP8E5M2, blockscale.MXFP4}
		what = "hipBLASLt's MX GEMM takes f8e4m3fn, f8e5m2 or f4e2m1fn with f8e8m0fnu scales"
	}
	for _, f := range formats {
		if f.Elem == elem && f.Scale == scale {
			return f, nil
		}
	}
	return blockscale.Format{}, fmt.Errorf("%s", what)
}

// plainScales pairs an operand of rank 2 or 3 ([batch,] rows, k) with its scales ([batch,] rows', k'),
// blocked along the last dimension: by blockSize, or when it is 0 by k/k' (which must divide). The scales
// may have more rows, or (with a block size) more columns, than the data needs: the padding is ignored.
func plainScales(data, scales *tensor.Tensor, blockSize int64) (scaledOperand, error) {
	r := len(data.Shape)
	if len(scales.Shape) != r {
		return scaledOperand{}, fmt.Errorf("scales %s and data %s differ in rank", scales, data)
	}
	k, sk := data.Shape[r-1], scales.Shape[r-1]
	if blockSize == 0 {
		if sk == 0 || k%sk != 0 {
			return scaledOperand{}, fmt.Errorf("the %d scales per row do not divide the %d elements", sk, k)
		}
		blockSize = k / sk
	}
	if blockSize <= 0 || (k+blockSize-1)/blockSize > sk {
		return scaledOperand{}, fmt.Errorf("%d scales per row cannot cover %d elements in blocks of %d", sk, k, blockSize)
	}
	for i := 0; i < r-1; i++ {
		if scales.Shape[i] < data.Shape[i] || r == 3 && i == 0 && scales.Shape[0] != data.Shape[0] {
			return scaledOperand{}, fmt.Errorf("scales %s do not cover data %s", scales, data)
		}
	}
	block := make([]int64, r)
	for i := range block {
		block[i] = 1
	}
	block[r-1] = blockSize
	if !scales.Type.IsFloat() || scales.Type.IsComplex() {
		return scaledOperand{}, fmt.Errorf("scales of type %s", scales.Type)
	}
	return scaledOperand{data: data, scales: scales, block: block}, nil
}

// swizzledScales pairs an operand of rank 2 or 3 with its scales in cuDNN's layout: padded to multiples of
// 128 rows and 4 columns and swizzled (blockscale.SwizzleIndex). It returns them unswizzled.
func swizzledScales(data, scales *tensor.Tensor, blockSize int64) (scaledOperand, error) {
	r := len(data.Shape)
	if len(scales.Shape) != r {
		return scaledOperand{}, fmt.Errorf("scales %s and data %s differ in rank", scales, data)
	}
	batch := int64(1)
	if r == 3 {
		batch = data.Shape[0]
		if scales.Shape[0] != batch {
			return scaledOperand{}, fmt.Errorf("scales %s and data %s differ in batch", scales, data)
		}
	}
	rows, cols := scales.Shape[r-2], scales.Shape[r-1]
	if rows%blockscale.SwizzleRows != 0 || cols%blockscale.SwizzleCols != 0 {
		return scaledOperand{}, fmt.Errorf("scales %s are not padded to multiples of %d x %d, as cuDNN's layout is", scales,
			blockscale.SwizzleRows, blockscale.SwizzleCols)
	}
	if rows < data.Shape[r-2] || cols*blockSize < data.Shape[r-1] {
		return scaledOperand{}, fmt.Errorf("scales %s do not cover data %s in blocks of %d", scales, data, blockSize)
	}
	plain := &tensor.Tensor{Type: scales.Type, Shape: scales.Shape, Data: blockscale.Unswizzle(scales.Data, batch, rows, cols)}
	s, err := plainScales(data, plain, blockSize)
	s.swizzled = scales
	return s, err
}

// unswizzleCudnnScales returns the operands of a fusion with the scales of a cuDNN block-scaled fusion in
// their plain layout. XLA's block scaling rewriter hands a cuDNN fusion of a block-scaled GEMM (a
// scaled-dot, or the dequantize and dot of an mx.block_scaled_dot composite) its scales padded and
// swizzled by a call computation it adds (CudnnScaledDotHelper::AddScaleSwizzle,
// AddScalePaddingAndSwizzle), while the fusion's body still reads them as plain arrays: cuDNN reads the
// swizzled layout. An operand that is an element of such a call's result, made by the swizzle's transpose
// ({0,1,4,3,2,5}, or {0,3,2,1,4} without a batch dimension), is unswizzled here, so that the body computes
// what cuDNN does. Every other fusion's operands are returned as they are.
func unswizzleCudnnScales(in *hlo.Instruction, ops []Value) []Value {
	bc := in.BackendConfig()
	if bc == nil || !strings.Contains(bc.Text, "__cudnn$fusion") {
		return ops
	}
	var out []Value
	for i, x := range in.Operands() {
		if i >= len(ops) || ops[i].Kind != KindArray || !swizzledScale(x) {
			continue
		}
		t := ops[i].Array
		r := len(t.Shape)
		if r != 2 && r != 3 || t.Type.BitWidth() > 8 {
			continue
		}
		rows, cols := t.Shape[r-2], t.Shape[r-1]
		if rows%blockscale.SwizzleRows != 0 || cols%blockscale.SwizzleCols != 0 {
			continue
		}
		batch := int64(1)
		if r == 3 {
			batch = t.Shape[0]
		}
		if out == nil {
			out = append([]Value(nil), ops...)
		}
		out[i] = ArrayValue(&tensor.Tensor{Type: t.Type, Shape: t.Shape, Data: blockscale.Unswizzle(t.Data, batch, rows, cols)})
	}
	if out == nil {
		return ops
	}
	return out
}

// swizzledScale reports whether x is an element of the result of XLA's scale swizzle computation: a
// get-tuple-element of a call whose result element is made, through reshapes and bitcasts, by the
// swizzle's transpose.
func swizzledScale(x *hlo.Instruction) bool {
	if x.Opcode != hlo.OpGetTupleElement || x.Operand(0).Opcode != hlo.OpCall {
		return false
	}
	c := x.Operand(0).CalledComputation("to_apply")
	idx, _ := x.Int("index")
	if c == nil || c.Root == nil || c.Root.Opcode != hlo.OpTuple || int(idx) >= c.Root.NumOperands() {
		return false
	}
	y := c.Root.Operand(int(idx))
	for y.Opcode == hlo.OpReshape || y.Opcode == hlo.OpBitcast || y.Opcode == hlo.OpCopy {
		y = y.Operand(0)
	}
	if y.Opcode != hlo.OpTranspose {
		return false
	}
	perm := y.Ints("dimensions")
	return slices.Equal(perm, []int64{0, 1, 4, 3, 2, 5}) || slices.Equal(perm, []int64{0, 3, 2, 1, 4})
}

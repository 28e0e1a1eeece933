package interp

import (
	"octet/dtype"
	"octet/gemm"
	"octet/hlo"
	"octet/tensor"
	"slices"
)

// splitVariadic checks the operands of a variadic reduction (n arrays, then n scalar initial values).
func splitVariadic(in *hlo.Instruction, ops []Value) (inputs, inits []*tensor.Tensor, err error) {
	ts, err := arrays(in, ops)
	if err != nil {
		return nil, nil, err
	}
	if len(ts) == 0 || len(ts)%2 != 0 {
		return nil, nil, errorf(in, "%s needs n arrays and n initial values, has %d operands", in.Opcode, len(ts))
	}
	n := len(ts) / 2
	inputs, inits = ts[:n], ts[n:]
	for i := range inputs {
		if !slices.Equal(inputs[i].Shape, inputs[0].Shape) {
			return nil, nil, errorf(in, "inputs %s and %s differ in shape", inputs[0], inputs[i])
		}
		if inits[i].NumElements() != 1 {
			return nil, nil, errorf(in, "initial value %d is %s, not a scalar", i, inits[i])
		}
	}
	return inputs, inits, nil
}

// resultTypes returns the element types of an instruction's n array results (one array or a tuple).
func resultTypes(in *hlo.Instruction, n int) ([]dtype.Type, error) {
	s := in.Shape
	if n == 1 && s.IsArray() {
		return []dtype.Type{s.Elem}, nil
	}
	if !s.IsTuple() || len(s.Tuple) != n {
		return nil, errorf(in, "shape %s does not hold %d results", s.String(), n)
	}
	ts := make([]dtype.Type, n)
	for i, e := range s.Tuple {
		if !e.IsArray() {
			return nil, errorf(in, "result %d is not an array", i)
		}
		ts[i] = e.Elem
	}
	return ts, nil
}

// packResults builds the value of n result arrays: the array itself, or the tuple.
func packResults(in *hlo.Instruction, ts []*tensor.Tensor) Value {
	if len(ts) == 1 && in.Shape.IsArray() {
		return ArrayValue(ts[0])
	}
	vals := make([]Value, len(ts))
	for i, t := range ts {
		vals[i] = ArrayValue(t)
	}
	return TupleValue(vals...)
}

// reduce folds the reduced dimensions of each input with the computation, for every index of the kept
// dimensions: the accumulator starts at the initial value and takes the elements in row-major order of
// the reduced dimensions, acc = f(acc, x), rounded to its type at every step.
func (e *evaluator) reduce(in *hlo.Instruction, ops []Value) (Value, error) {
	inputs, inits, err := splitVariadic(in, ops)
	if err != nil {
		return Value{}, err
	}
	n := len(inputs)
	types, err := resultTypes(in, n)
	if err != nil {
		return Value{}, err
	}
	shape := inputs[0].Shape
	reduced := make([]bool, len(shape))
	for _, d := range in.Ints("dimensions") {
		if d < 0 || d >= int64(len(shape)) || reduced[d] {
			return Value{}, errorf(in, "reduce dimension %d out of range or repeated", d)
		}
		reduced[d] = true
	}
	var perm, outDims []int64
	var run int64 = 1
	for d := range shape {
		if !reduced[d] {
			perm = append(perm, int64(d))
			outDims = append(outDims, shape[d])
		}
	}
	for d := range shape {
		if reduced[d] {
			perm = append(perm, int64(d))
			run *= shape[d]
		}
	}
	outN := product(outDims)
	widened := false
	for i := range inputs {
		if types[i] != inits[i].Type || types[i] != inputs[i].Type && !widens(inputs[i].Type, types[i]) {
			return Value{}, unsupportedf(in, "reduce of %s with initial value %s giving %s", inputs[i].Type, inits[i].Type, types[i])
		}
		widened = widened || types[i] != inputs[i].Type
	}
	// The reducer, resolved once; a plain binary one (binop) takes the loops of reduceColumns and
	// reduceBinop. Its error matters only to the paths that call it.
	f, fErr := e.scalarFunc(in, in.CalledComputation("to_apply"))
	binop := hlo.OpInvalid
	if fErr == nil && f.prog != nil {
		binop = f.prog.binop
	}
	if widened {
		// Inputs of a narrower float type than the accumulator's (a conversion folded into the reduce,
		// or a reduce written so, which XLA's verifier admits): each element is its exact value in the
		// accumulator's type. The plain float32 folds decode them as they go; the other paths convert
		// them first.
		if fErr != nil {
			return Value{}, fErr
		}
		if n != 1 || types[0] != dtype.F32 || binop == hlo.OpInvalid {
			for i := range inputs {
				if inputs[i].Type != types[i] {
					var err error
					if inputs[i], err = convertTensor(inputs[i], types[i], inputs[i].Shape); err != nil {
						return Value{}, errorf(in, "%v", err)
					}
				}
			}
		}
	}
	if t, err := e.reduceColumns(binop, inputs, inits, reduced, outDims, run); t != nil || err != nil {
		return ArrayValue(t), err
	}
	for i := range inputs {
		inputs[i] = transposeThreads(inputs[i], perm, e.threads)
	}
	if n == 1 && inputs[0].Type.IsComplex() {
		if t := reduceComplex(complexReducer(in.CalledComputation("to_apply")), inputs[0], inits[0], outDims, run); t != nil {
			return ArrayValue(t), e.charge(outN * run)
		}
	}
	if hasWide(inputs) {
		return e.reduceWide(in, inputs, inits, types, outDims, run)
	}
	if fErr != nil {
		return Value{}, fErr
	}
	if n == 1 && binop != hlo.OpInvalid {
		if err := e.charge(outN * run); err != nil {
			return Value{}, err
		}
		if t := e.reduceBinop(binop, inputs[0], inits[0], outDims, run); t != nil {
			return ArrayValue(t), nil
		}
	}
	outs := make([]*tensor.Tensor, n)
	for i := range outs {
		outs[i] = tensor.New(types[i], outDims)
	}
	if f.prog != nil && f.prog.choice != nil && reduceChoices {
		if err := e.charge(outN * run); err != nil {
			return Value{}, err
		}
		f.prog.choice.reduce(e.threads, inputs, inits, outs, outN, run)
		return packResults(in, outs), nil
	}
	acc := make([]uint64, n)
	args := make([]uint64, 2*n)
	for o := int64(0); o < outN; o++ {
		for i := range acc {
			acc[i] = inits[i].BitsAt(0)
		}
		for j := int64(0); j < run; j++ {
			copy(args, acc)
			for i := range inputs {
				args[n+i] = inputs[i].BitsAt(o*run + j)
			}
			if err := f.call(args, acc); err != nil {
				return Value{}, err
			}
		}
		for i := range outs {
			outs[i].SetBitsAt(o, acc[i])
		}
	}
	return packResults(in, outs), nil
}

// reduceBlock is the length of the blocks a long reduction is cut into (see reduceRuns).
const reduceBlock = 4096

// reduceRuns folds each of the outN runs of run consecutive elements of src, starting from init. fold
// folds a slice into an accumulator, element after element. A run of at most reduceBlock elements is
// folded in order from init; a longer one is cut into blocks of reduceBlock elements (the last one
// shorter), each folded in order from its first element, and the blocks' results are folded in order
// from init. The order depends on the shapes alone; the blocks of all the runs are shared among threads
// goroutines.
//
// fold4, when not nil, folds four runs of one length at once, each from its own accumulator, element
// after element as fold does: their four chains of operations interleave, so that each waits less for
// the one before (a float32 add is four cycles; the four adds of a step are independent). It returns
// false when a result may differ from fold's (a NaN, whose payload the order of an operation's operands
// in the machine code decides): the four are folded again by fold.
func reduceRuns[T any](threads int, load loader[T], outN, run int64, init T, fold func(acc T, seg []T) T, fold4 func(acc *[4]T, segs *[4][]T) bool) []T {
	nb := int64(1)
	if run > reduceBlock {
		nb = (run + reduceBlock - 1) / reduceBlock
	}
	partial := make([]T, outN*nb)
	parallelFor(threads, int(outN*nb), int(max(1, elementwiseGrain/min(max(run, 1), reduceBlock))), func(lo, hi int) {
		var bufs [4][]T // where load decodes, one for each of fold4's runs
		p := int64(lo)
		if nb == 1 && fold4 != nil {
			var acc [4]T
			var segs [4][]T
			for ; p+4 <= int64(hi); p += 4 {
				for i := range acc {
					acc[i], segs[i] = init, load(&bufs[i], (p+int64(i))*run, run)
				}
				if !fold4(&acc, &segs) {
					for i, seg := range segs {
						acc[i] = fold(init, seg)
					}
				}
				copy(partial[p:p+4], acc[:])
			}
		}
		if nb == 1 {
			for ; p < int64(hi); p++ {
				partial[p] = fold(init, load(&bufs[0], p*run, run))
			}
		}
		for ; p < int64(hi); p++ {
			o, b := p/nb, p%nb
			start := o*run + b*reduceBlock
			seg := load(&bufs[0], start, min(o*run+(b+1)*reduceBlock, (o+1)*run)-start)
			partial[p] = fold(seg[0], seg[1:])
		}
	})
	if nb == 1 {
		return partial
	}
	dst := make([]T, outN)
	for o := range dst {
		dst[o] = fold(init, partial[int64(o)*nb:int64(o+1)*nb])
	}
	return dst
}

// loader returns n elements of an input from element off on, as T: a view of them, or decoded into *buf,
// which it grows as needed (at most reduceBlock elements are asked for at once).
type loader[T any] func(buf *[]T, off, n int64) []T

// viewing is the loader of elements that are T already.
func viewing[T any](src []T) loader[T] {
	return func(_ *[]T, off, n int64) []T { return src[off : off+n] }
}

// decodingFloat32 is the loader of x's elements as float32 (a view for f32): a bf16 or narrower input is
// decoded a run at a time rather than copied whole into float32.
func decodingFloat32(x *tensor.Tensor) loader[float32] {
	if x.Type == dtype.F32 {
		return viewing(tensor.View[float32](x))
	}
	w := int64(x.Type.ByteSize())
	return func(buf *[]float32, off, n int64) []float32 {
		if int64(cap(*buf)) < n {
			*buf = make([]float32, n)
		}
		d := (*buf)[:n]
		decodeFloat32Into(x.Type, d, x.Data[off*w:(off+n)*w])
		return d
	}
}

// widens reports whether every value of the float type from is exactly a value of the float type to, so
// that a reduce may take inputs of from into an accumulator of to: float32 from bf16, f16 and the
// narrower floats, float64 from those and float32.
func widens(from, to dtype.Type) bool {
	if !from.IsFloat() || !to.IsFloat() || from.IsComplex() || to.IsComplex() || from == to {
		return false
	}
	switch to {
	case dtype.F32:
		return from == dtype.BF16 || from == dtype.F16 || from.BitWidth() <= 8
	case dtype.F64:
		return from == dtype.F32 || from == dtype.BF16 || from == dtype.F16 || from.BitWidth() <= 8
	}
	return false
}

// reduceBinop is reduce with a plain binary reducer, as a loop in the working domain (reduceRuns gives
// the order); nil when the type has no such loop.
func (e *evaluator) reduceBinop(op hlo.Opcode, x, init *tensor.Tensor, outDims []int64, run int64) *tensor.Tensor {
	outN := product(outDims)
	acc := init.Type // x's type, or f32 where x widens into it (float32 domain)
	switch domainOf(x.Type) {
	case domFloat32:
		start := f32s(init)[0]
		f := binaryF32(op)
		rnd := round32(acc)
		var fold func(acc float32, seg []float32) float32
		switch {
		case rnd != nil:
			fold = func(acc float32, seg []float32) float32 {
				for _, v := range seg {
					acc = rnd(f(acc, v))
				}
				return acc
			}
		case op == hlo.OpAdd:
			fold = func(acc float32, seg []float32) float32 {
				for _, v := range seg {
					acc += v
				}
				return acc
			}
		default:
			fold = func(acc float32, seg []float32) float32 {
				for _, v := range seg {
					acc = f(acc, v)
				}
				return acc
			}
		}
		return fromF32(acc, outDims, reduceRuns(e.threads, decodingFloat32(x), outN, run, start, fold, fold4F32(op, acc)))
	case domFloat64:
		f := binaryF64(op)
		return fromF64(x.Type, outDims, reduceRuns(e.threads, viewing(f64s(x)), outN, run, f64s(init)[0], func(acc float64, seg []float64) float64 {
			for _, v := range seg {
				acc = f(acc, v)
			}
			return acc
		}, nil))
	case domInt:
		f := binaryInt(op, intInfoOf(x.Type))
		if f == nil {
			return nil
		}
		return fromI64(x.Type, outDims, reduceRuns(e.threads, viewing(i64s(x)), outN, run, i64s(init)[0], func(acc int64, seg []int64) int64 {
			for _, v := range seg {
				acc = f(acc, v)
			}
			return acc
		}, nil))
	case domComplex:
		return reduceComplex(op, x, init, outDims, run)
	}
	return nil
}

// fold4F32 returns reduceRuns's fold4 for a float32-domain reduce with op, for f32 and bf16 adds,
// maximums and minimums, or nil. A bf16 add rounds each step as the fold does; a maximum or minimum
// returns one of its operands, a bf16 value already, but for a NaN, which the fold redoes (fold4Done).
// Each is a loop of its own, so that its operations are inlined.
func fold4F32(op hlo.Opcode, t dtype.Type) func(acc *[4]float32, segs *[4][]float32) bool {
	bf16 := t == dtype.BF16
	if t != dtype.F32 && !bf16 {
		return nil
	}
	switch {
	case op == hlo.OpAdd && bf16:
		return func(acc *[4]float32, segs *[4][]float32) bool {
			a0, a1, a2, a3, s0, s1, s2, s3 := fold4Args(acc, segs)
			for j, v := range s0 {
				a0, a1, a2, a3 = roundBF16(a0+v), roundBF16(a1+s1[j]), roundBF16(a2+s2[j]), roundBF16(a3+s3[j])
			}
			return fold4Done(acc, a0, a1, a2, a3)
		}
	case op == hlo.OpAdd:
		return func(acc *[4]float32, segs *[4][]float32) bool {
			a0, a1, a2, a3, s0, s1, s2, s3 := fold4Args(acc, segs)
			for j, v := range s0 {
				a0, a1, a2, a3 = a0+v, a1+s1[j], a2+s2[j], a3+s3[j]
			}
			return fold4Done(acc, a0, a1, a2, a3)
		}
	case op == hlo.OpMaximum:
		return func(acc *[4]float32, segs *[4][]float32) bool {
			a0, a1, a2, a3, s0, s1, s2, s3 := fold4Args(acc, segs)
			for j, v := range s0 {
				a0, a1, a2, a3 = maxF32(a0, v), maxF32(a1, s1[j]), maxF32(a2, s2[j]), maxF32(a3, s3[j])
			}
			return fold4Done(acc, a0, a1, a2, a3)
		}
	case op == hlo.OpMinimum:
		return func(acc *[4]float32, segs *[4][]float32) bool {
			a0, a1, a2, a3, s0, s1, s2, s3 := fold4Args(acc, segs)
			for j, v := range s0 {
				a0, a1, a2, a3 = minF32(a0, v), minF32(a1, s1[j]), minF32(a2, s2[j]), minF32(a3, s3[j])
			}
			return fold4Done(acc, a0, a1, a2, a3)
		}
	}
	return nil
}

// fold4Args returns the accumulators and the runs of a fold4, the runs cut to the first's length.
func fold4Args(acc *[4]float32, segs *[4][]float32) (a0, a1, a2, a3 float32, s0, s1, s2, s3 []float32) {
	s0 = segs[0]
	return acc[0], acc[1], acc[2], acc[3], s0, segs[1][:len(s0)], segs[2][:len(s0)], segs[3][:len(s0)]
}

// fold4Done stores the results of a fold4 and reports whether none is a NaN.
func fold4Done(acc *[4]float32, a0, a1, a2, a3 float32) bool {
	*acc = [4]float32{a0, a1, a2, a3}
	return a0 == a0 && a1 == a1 && a2 == a2 && a3 == a3
}

// reduceColumns is reduce for one input whose last dimension is kept, with a plain binary reducer of
// float32's working domain, float64 or integers: the input laid out with its reduced dimensions first
// (no copy when they already are), each output folds a column, rows added to a row of accumulators at a
// time, rather than gathering every output's run to fold it (a strided copy of the whole input). The
// order is reduceRuns's: each output's elements in row-major order of the reduced dimensions, in blocks
// of reduceBlock for a longer run. It returns nil, and no error, when the reduce is not of that kind.
func (e *evaluator) reduceColumns(op hlo.Opcode, inputs, inits []*tensor.Tensor, reduced []bool, outDims []int64, run int64) (*tensor.Tensor, error) {
	if len(inputs) != 1 || len(reduced) == 0 || reduced[len(reduced)-1] || inputs[0].Type.ByteSize() > 8 ||
		op == hlo.OpInvalid || domainOf(inputs[0].Type) == domComplex {
		return nil, nil
	}
	x := inputs[0]
	// The input as outer blocks of run rows of inner columns: with the reduced dimensions consecutive,
	// the dimensions before them make the blocks, as the input lies; otherwise the reduced dimensions are
	// moved to the front, one block.
	first, end := slices.Index(reduced, true), 0
	for d, r := range reduced {
		if r {
			end = d + 1
		}
	}
	outN := product(outDims)
	outer := int64(1)
	if first >= 0 && !slices.Contains(reduced[first:end], false) {
		outer = product(x.Shape[:first])
	} else {
		var perm []int64
		for _, keep := range []bool{false, true} {
			for d, r := range reduced {
				if r != keep {
					perm = append(perm, int64(d))
				}
			}
		}
		x = transposeThreads(x, perm, e.threads)
	}
	var t *tensor.Tensor
	acc := inits[0].Type // x's type, or f32 where x widens into it (float32 domain)
	switch domainOf(x.Type) {
	case domFloat32:
		fn := binaryF32(op)
		load := func(dst []float32, off int64) []float32 { return tensor.View[float32](x)[off : off+int64(len(dst))] }
		if x.Type != dtype.F32 {
			w := int64(x.Type.ByteSize())
			load = func(dst []float32, off int64) []float32 {
				decodeFloat32Into(x.Type, dst, x.Data[off*w:(off+int64(len(dst)))*w])
				return dst
			}
		}
		t = fromF32(acc, outDims, foldColumns(e.threads, outer, outN/max(outer, 1), run, f32s(inits[0])[0], load, rowFolder(op, fn, acc)))
	case domFloat64:
		fn, src := binaryF64(op), f64s(x)
		t = fromF64(x.Type, outDims, foldColumns(e.threads, outer, outN/max(outer, 1), run, f64s(inits[0])[0], func(dst []float64, off int64) []float64 {
			return src[off : off+int64(len(dst))]
		}, func(acc, row []float64) {
			for i, v := range row[:len(acc)] {
				acc[i] = fn(acc[i], v)
			}
		}))
	case domInt:
		fn := binaryInt(op, intInfoOf(x.Type))
		if fn == nil {
			return nil, nil
		}
		src := i64s(x)
		t = fromI64(x.Type, outDims, foldColumns(e.threads, outer, outN/max(outer, 1), run, i64s(inits[0])[0], func(dst []int64, off int64) []int64 {
			return src[off : off+int64(len(dst))]
		}, func(acc, row []int64) {
			for i, v := range row[:len(acc)] {
				acc[i] = fn(acc[i], v)
			}
		}))
	default:
		return nil, nil
	}
	return t, e.charge(outN * run)
}

// columnTile is how many outputs foldColumns folds together: their accumulators stay in the cache.
const columnTile = 2048

// foldColumns folds, for each of the outer*inner columns of a source of outer blocks of run rows of
// inner elements, the column's elements in order, as reduceRuns folds a run: from init for a run of at
// most reduceBlock, else each block of reduceBlock rows from its first row and the blocks' results from
// init. load returns the len(dst) elements of the source from position off, in dst or as a view; fold
// folds such a row into a row of accumulators. Tiles of columns are shared among threads goroutines.
func foldColumns[T any](threads int, outer, inner, run int64, init T, load func(dst []T, off int64) []T, fold func(acc, row []T)) []T {
	dst := make([]T, outer*inner)
	perBlock := (inner + columnTile - 1) / columnTile
	parallelFor(threads, int(outer*perBlock), int(max(1, elementwiseGrain/max(run*columnTile, 1))), func(lo, hi int) {
		buf, part := make([]T, columnTile), make([]T, columnTile)
		for tile := int64(lo); tile < int64(hi); tile++ {
			o, c0 := tile/perBlock, tile%perBlock*columnTile
			c1 := min(c0+columnTile, inner)
			acc, row := dst[o*inner+c0:o*inner+c1], buf[:c1-c0]
			at := func(r int64) int64 { return (o*run+r)*inner + c0 } // the source position of row r
			for i := range acc {
				acc[i] = init
			}
			if run <= reduceBlock {
				for r := range run {
					fold(acc, load(row, at(r)))
				}
				continue
			}
			p := part[:c1-c0]
			for b := int64(0); b < run; b += reduceBlock {
				copy(p, load(row, at(b)))
				for r := b + 1; r < min(b+reduceBlock, run); r++ {
					fold(p, load(row, at(r)))
				}
				fold(acc, p)
			}
		}
	})
	return dst
}

// windowIter walks the input positions of one window: for output index out, each window offset in
// row-major order gives an input index, or none where it falls on padding or between dilated elements.
type windowIter struct {
	win      hlo.Window
	inDims   []int64
	inStride []int64
	winDims  []int64
}

func newWindowIter(win hlo.Window, inDims []int64) *windowIter {
	w := &windowIter{win: win, inDims: inDims, inStride: rowMajorStrides(inDims), winDims: make([]int64, len(win))}
	for i, d := range win {
		w.winDims[i] = d.Size
	}
	return w
}

// windowCoord returns the input coordinate that window offset k of output coordinate o reads along a
// window dimension wd over an input dimension of n elements, or -1 where it falls on padding or between
// the elements of a dilated input.
func windowCoord(wd hlo.WindowDim, o, k, n int64) int64 {
	pos := o*max(wd.Stride, 1) - wd.PadLow + k*max(wd.WindowDilation, 1)
	if bd := max(wd.BaseDilation, 1); bd > 1 {
		if pos%bd != 0 {
			return -1
		}
		pos /= bd
	}
	if pos < 0 || pos >= n {
		return -1
	}
	return pos
}

// each calls f with the input linear index of every window element of output index out that lies on
// the input, and with the window position's multi-index.
func (w *windowIter) each(out []int64, widx []int64, f func(lin int64) bool) {
	r := len(w.win)
	for i := range widx {
		widx[i] = 0
	}
	if product(w.winDims) == 0 {
		return
	}
	for {
		lin := int64(0)
		ok := true
		for d := 0; d < r && ok; d++ {
			pos := windowCoord(w.win[d], out[d], widx[d], w.inDims[d])
			if pos < 0 {
				ok = false
				break
			}
			lin += pos * w.inStride[d]
		}
		if ok && !f(lin) {
			return
		}
		j := r - 1
		for ; j >= 0; j-- {
			widx[j]++
			if widx[j] < w.winDims[j] {
				break
			}
			widx[j] = 0
		}
		if j < 0 {
			return
		}
	}
}

// nextIndex advances a row-major multi-index; false after the last.
func nextIndex(idx, dims []int64) bool {
	for j := len(idx) - 1; j >= 0; j-- {
		idx[j]++
		if idx[j] < dims[j] {
			return true
		}
		idx[j] = 0
	}
	return false
}

func (e *evaluator) reduceWindow(in *hlo.Instruction, ops []Value) (Value, error) {
	inputs, inits, err := splitVariadic(in, ops)
	if err != nil {
		return Value{}, err
	}
	n := len(inputs)
	types, err := resultTypes(in, n)
	if err != nil {
		return Value{}, err
	}
	win, _ := in.Attr("window").(hlo.Window)
	shape := inputs[0].Shape
	if len(win) != len(shape) {
		return Value{}, errorf(in, "window of %d dimensions for rank %d", len(win), len(shape))
	}
	var outDims []int64
	if in.Shape.IsArray() {
		outDims = in.Shape.Dims
	} else {
		outDims = in.Shape.Tuple[0].Dims
	}
	if len(outDims) != len(shape) {
		return Value{}, errorf(in, "result rank differs from the input's")
	}
	for i := range inputs {
		if types[i] != inputs[i].Type || types[i] != inits[i].Type {
			return Value{}, unsupportedf(in, "reduce-window of %s giving %s", inputs[i].Type, types[i])
		}
	}
	f, err := e.scalarFunc(in, in.CalledComputation("to_apply"))
	if err != nil {
		return Value{}, err
	}
	outN := product(outDims)
	winN := int64(1)
	for _, d := range win {
		winN *= d.Size
	}
	if err := e.charge(outN * winN); err != nil {
		return Value{}, err
	}
	if outN == 0 {
		// Nothing to fold, whatever the window (its tables would be sized by the dimensions).
		outs := make([]*tensor.Tensor, n)
		for i := range outs {
			outs[i] = tensor.New(types[i], outDims)
		}
		return packResults(in, outs), nil
	}
	it := newWindowIter(win, shape)
	out := make([]int64, len(outDims))
	widx := make([]int64, len(win))
	if hasWide(inputs) {
		return e.foldWide(in, inputs, inits, types, outDims, func(_ int64, visit func(lin int64) bool) {
			it.each(out, widx, visit)
			nextIndex(out, outDims)
		})
	}
	if n == 1 && f.prog != nil && f.prog.binop != hlo.OpInvalid && domainOf(types[0]) == domFloat32 {
		src := f32s(inputs[0])
		start := f32s(inits[0])[0]
		fn := binaryF32(f.prog.binop)
		rnd := round32(types[0])
		var res *tensor.Tensor
		var dst []float32
		if types[0] == dtype.F32 {
			res, dst = e.newFloat32s(outDims)
		} else {
			dst = make([]float32, outN)
		}
		result := func() Value {
			if res != nil {
				return ArrayValue(res)
			}
			return ArrayValue(fromF32(types[0], outDims, dst))
		}
		r := len(shape)
		if last := r - 1; r > 1 && trivialWindowDim(win[last]) && outDims[last] == shape[last] {
			// The last dimension is not windowed: fold whole rows of it at once, each window position
			// in the same order.
			c := shape[last]
			tables := newWindowTables(win[:last], shape[:last], outDims[:last])
			tables.inStride = rowMajorStrides(shape)[:last]
			rows := outN / max(c, 1)
			fold := rowFolder(f.prog.binop, fn, types[0])
			parallelFor(e.threads, int(rows), int(max(1, elementwiseGrain/max(winN*c, 1))), func(lo, hi int) {
				tables.each(int64(lo), int64(hi), func(o int64, lins []int64) {
					acc := dst[o*c : (o+1)*c]
					for i := range acc {
						acc[i] = start
					}
					for _, lin := range lins {
						fold(acc, src[lin:lin+c])
					}
				})
			})
			return result(), nil
		}
		tables := newWindowTables(win, shape, outDims)
		parallelFor(e.threads, int(outN), int(max(1, elementwiseGrain/max(winN, 1))), func(lo, hi int) {
			tables.each(int64(lo), int64(hi), func(o int64, lins []int64) {
				acc := start
				for _, lin := range lins {
					acc = fn(acc, src[lin])
					if rnd != nil {
						acc = rnd(acc)
					}
				}
				dst[o] = acc
			})
		})
		return result(), nil
	}
	outs := make([]*tensor.Tensor, n)
	for i := range outs {
		outs[i] = tensor.New(types[i], outDims)
	}
	acc := make([]uint64, n)
	args := make([]uint64, 2*n)
	var callErr error
	for o := int64(0); o < outN; o++ {
		for i := range acc {
			acc[i] = inits[i].BitsAt(0)
		}
		it.each(out, widx, func(lin int64) bool {
			copy(args, acc)
			for i := range inputs {
				args[n+i] = inputs[i].BitsAt(lin)
			}
			if err := f.call(args, acc); err != nil {
				callErr = err
				return false
			}
			return true
		})
		if callErr != nil {
			return Value{}, callErr
		}
		for i := range outs {
			outs[i].SetBitsAt(o, acc[i])
		}
		nextIndex(out, outDims)
	}
	return packResults(in, outs), nil
}

// mapOp applies the computation to the elements of its operands at each index.
func (e *evaluator) mapOp(in *hlo.Instruction, ops []Value) (Value, error) {
	ts, err := arrays(in, ops)
	if err != nil {
		return Value{}, err
	}
	if !in.Shape.IsArray() {
		return Value{}, errorf(in, "map must give an array")
	}
	if err := checkSameCount(in, ts...); err != nil {
		return Value{}, err
	}
	f, err := e.scalarFunc(in, in.CalledComputation("to_apply"))
	if err != nil {
		return Value{}, err
	}
	out := tensor.New(in.Shape.Elem, in.Shape.Dims)
	args := make([]uint64, len(ts))
	res := make([]uint64, 1)
	for i := int64(0); i < out.NumElements(); i++ {
		for j, t := range ts {
			args[j] = t.BitsAt(i)
		}
		if err := f.call(args, res); err != nil {
			return Value{}, err
		}
		out.SetBitsAt(i, res[0])
	}
	return ArrayValue(out), nil
}

// selectAndScatter scatters each source element into the operand position its window selects (select
// keeps the current choice while it returns true), combining with the scatter computation; positions no
// window selects keep the initial value.
func (e *evaluator) selectAndScatter(in *hlo.Instruction, ops []Value) (Value, error) {
	ts, err := arrays(in, ops)
	if err != nil {
		return Value{}, err
	}
	if len(ts) != 3 || ts[2].NumElements() != 1 {
		return Value{}, errorf(in, "select-and-scatter takes an operand, a source and an initial value")
	}
	x, src, init := ts[0], ts[1], ts[2]
	win, _ := in.Attr("window").(hlo.Window)
	if len(win) != len(x.Shape) || len(src.Shape) != len(x.Shape) {
		return Value{}, errorf(in, "window or source rank does not match %s", x)
	}
	sel, err := e.scalarFunc(in, in.CalledComputation("select"))
	if err != nil {
		return Value{}, err
	}
	sc, err := e.scalarFunc(in, in.CalledComputation("scatter"))
	if err != nil {
		return Value{}, err
	}
	out := tensor.New(in.Shape.Elem, in.Shape.Dims)
	if out.Type != src.Type || out.Type != init.Type {
		return Value{}, unsupportedf(in, "select-and-scatter of mixed types")
	}
	fill(out, init.Data)
	if ct := sel.prog; ct != nil && ct.compares != nil && ct.compares.pair.t == x.Type && reduceChoices {
		if err := e.charge(src.NumElements() * windowSize(win)); err != nil {
			return Value{}, err
		}
		return ArrayValue(out), e.scatterSelected(out, src, e.selectInWindows(ct.compares, x, win, src.Shape), sc)
	}
	it := newWindowIter(win, x.Shape)
	idx := make([]int64, len(src.Shape))
	widx := make([]int64, len(win))
	args := make([]uint64, 2)
	res := make([]uint64, 1)
	var callErr error
	for s := int64(0); s < src.NumElements(); s++ {
		best := int64(-1)
		var bestBits uint64
		it.each(idx, widx, func(lin int64) bool {
			v := x.BitsAt(lin)
			if best < 0 {
				best, bestBits = lin, v
				return true
			}
			args[0], args[1] = bestBits, v
			if err := sel.call(args, res); err != nil {
				callErr = err
				return false
			}
			if res[0] == 0 {
				best, bestBits = lin, v
			}
			return true
		})
		if callErr != nil {
			return Value{}, callErr
		}
		if best >= 0 {
			args[0], args[1] = out.BitsAt(best), src.BitsAt(s)
			if err := sc.call(args, res); err != nil {
				return Value{}, err
			}
			out.SetBitsAt(best, res[0])
		}
		nextIndex(idx, src.Shape)
	}
	return ArrayValue(out), nil
}

// selectInWindows returns, for each position of a select-and-scatter's source, the position of x its
// window selects (-1 for a window wholly on padding): the first of the window's positions in row-major
// order, replaced by each later one the select does not keep the current one against, the select
// answered by its table. The windows are shared among the threads.
func (e *evaluator) selectInWindows(ct *compareTable, x *tensor.Tensor, win hlo.Window, srcDims []int64) []int64 {
	keys := ct.pair.newKeys(int(x.NumElements()))
	ct.pair.keys(x.Data, keys, int(x.NumElements()))
	best := make([]int64, product(srcDims))
	// With the last dimension not windowed (a pool's channels), the windows of a row of it are the same
	// positions shifted: the tables walk the other dimensions, once a row.
	r, c := len(srcDims), int64(1)
	if last := r - 1; r > 1 && trivialWindowDim(win[last]) && srcDims[last] == x.Shape[last] {
		c, r = srcDims[last], last
	}
	tables := newWindowTables(win[:r], x.Shape[:r], srcDims[:r])
	tables.inStride = rowMajorStrides(x.Shape)[:r]
	rows := int64(len(best)) / max(c, 1)
	parallelFor(e.threads, int(rows), int(max(1, elementwiseGrain/max(windowSize(win)*c, 1))), func(lo, hi int) {
		tables.each(int64(lo), int64(hi), func(o int64, lins []int64) {
			for k := range c {
				b := int64(-1)
				for _, lin := range lins {
					if b < 0 || !ct.answer(keys, b, lin+k) {
						b = lin + k
					}
				}
				best[o*c+k] = b
			}
		})
	})
	return best
}

// windowSize is the number of positions of a window.
func windowSize(win hlo.Window) int64 {
	n := int64(1)
	for _, d := range win {
		n *= d.Size
	}
	return n
}

// scatterSelected combines each element of src, in order, into out at the position selected for it.
func (e *evaluator) scatterSelected(out, src *tensor.Tensor, best []int64, sc *scalarFn) error {
	args, res := make([]uint64, 2), make([]uint64, 1)
	for s, b := range best {
		if b < 0 {
			continue
		}
		args[0], args[1] = out.BitsAt(b), src.BitsAt(int64(s))
		if err := sc.call(args, res); err != nil {
			return err
		}
		out.SetBitsAt(b, res[0])
	}
	return nil
}

// windowTables give, for each output position of a windowed reduction, the input positions of its window
// that lie on the input, in row-major order of the window: per dimension, a table of the input
// coordinate of each (output coordinate, window offset), -1 where it falls on padding or between the
// elements of a dilated input.
type windowTables struct {
	outDims, winDims, inStride []int64
	coords                     [][]int64
}

func newWindowTables(win hlo.Window, inDims, outDims []int64) *windowTables {
	w := &windowTables{outDims: outDims, winDims: make([]int64, len(win)), inStride: rowMajorStrides(inDims), coords: make([][]int64, len(win))}
	for d, wd := range win {
		w.winDims[d] = wd.Size
		t := make([]int64, outDims[d]*wd.Size)
		for o := int64(0); o < outDims[d]; o++ {
			for k := int64(0); k < wd.Size; k++ {
				t[o*wd.Size+k] = windowCoord(wd, o, k, inDims[d])
			}
		}
		w.coords[d] = t
	}
	return w
}

// each calls f for the output positions [lo, hi) (linear, row-major) with the input positions of each
// one's window.
func (w *windowTables) each(lo, hi int64, f func(o int64, lins []int64)) {
	r := len(w.outDims)
	out := make([]int64, r)
	rem := lo
	for d := r - 1; d >= 0; d-- {
		out[d] = rem % w.outDims[d]
		rem /= w.outDims[d]
	}
	widx := make([]int64, r)
	var lins []int64
	winN := product(w.winDims)
	for o := lo; o < hi; o++ {
		lins = lins[:0]
		for i := range widx {
			widx[i] = 0
		}
		for k := int64(0); k < winN; k++ {
			lin := int64(0)
			for d := 0; d < r; d++ {
				c := w.coords[d][out[d]*w.winDims[d]+widx[d]]
				if c < 0 {
					lin = -1
					break
				}
				lin += c * w.inStride[d]
			}
			if lin >= 0 {
				lins = append(lins, lin)
			}
			nextIndex(widx, w.winDims)
		}
		f(o, lins)
		nextIndex(out, w.outDims)
	}
}

// trivialWindowDim reports whether a window dimension maps each output position to the same input
// position: size 1, unit stride, no padding or dilation.
func trivialWindowDim(w hlo.WindowDim) bool {
	return w.Size == 1 && max(w.Stride, 1) == 1 && w.PadLow == 0 && w.PadHigh == 0 && max(w.BaseDilation, 1) == 1
}

// rowFolder returns a function setting acc[i] = f(acc[i], x[i]) rounded to ty for every i: the common
// reducers of float32 on package gemm's row kernels or written out, the rounding a row at a time
// (roundRow).
func rowFolder(op hlo.Opcode, f func(a, b float32) float32, ty dtype.Type) func(acc, x []float32) {
	var fold func(acc, x []float32)
	switch rop, ok := rowOps[op]; {
	case ok:
		fold = func(acc, x []float32) { gemm.Row(rop, acc, acc, x[:len(acc)]) }
	case op == hlo.OpAdd:
		fold = func(acc, x []float32) {
			for i, v := range x[:len(acc)] {
				acc[i] += v
			}
		}
	default:
		fold = func(acc, x []float32) {
			for i, v := range x[:len(acc)] {
				acc[i] = f(acc[i], v)
			}
		}
	}
	if ty == dtype.F32 {
		return fold
	}
	return func(acc, x []float32) {
		fold(acc, x)
		roundRow(ty, acc)
	}
}

// roundRow rounds the float32 values of row to ty (of the float32 domain) in place, as round32 does
// each: gemm's row for bf16.
func roundRow(ty dtype.Type, row []float32) {
	switch ty {
	case dtype.F32:
	case dtype.BF16:
		gemm.RoundBF16(row, row)
	default:
		for i, x := range row {
			row[i] = ty.DecodeFloat32(ty.EncodeFloat32(x))
		}
	}
}

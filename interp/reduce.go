package interp

import (
	"octet/dtype"
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
	for i := range inputs {
		inputs[i] = transposeTensor(inputs[i], perm)
		if types[i] != inputs[i].Type || types[i] != inits[i].Type {
			return Value{}, unsupportedf(in, "reduce of %s with initial value %s giving %s", inputs[i].Type, inits[i].Type, types[i])
		}
	}
	if n == 1 && inputs[0].Type.IsComplex() {
		if t := reduceComplex(complexReducer(in.CalledComputation("to_apply")), inputs[0], inits[0], outDims, run); t != nil {
			return ArrayValue(t), e.charge(outN * run)
		}
	}
	if hasWide(inputs) {
		return e.reduceWide(in, inputs, inits, types, outDims, run)
	}
	f, err := e.scalarFunc(in, in.CalledComputation("to_apply"))
	if err != nil {
		return Value{}, err
	}
	if n == 1 && f.prog != nil && f.prog.binop != hlo.OpInvalid {
		if err := e.charge(outN * run); err != nil {
			return Value{}, err
		}
		if t := reduceBinop(f.prog.binop, inputs[0], inits[0], outDims, run); t != nil {
			return ArrayValue(t), nil
		}
	}
	outs := make([]*tensor.Tensor, n)
	for i := range outs {
		outs[i] = tensor.New(types[i], outDims)
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

// reduceBinop is reduce with a plain binary reducer, as a loop in the working domain; nil when the type
// has no such loop.
func reduceBinop(op hlo.Opcode, x, init *tensor.Tensor, outDims []int64, run int64) *tensor.Tensor {
	outN := product(outDims)
	switch domainOf(x.Type) {
	case domFloat32:
		src := f32s(x)
		start := f32s(init)[0]
		f := binaryF32(op)
		rnd := round32(x.Type)
		dst := make([]float32, outN)
		for o := range dst {
			acc := start
			seg := src[int64(o)*run : int64(o+1)*run]
			switch {
			case rnd != nil:
				for _, v := range seg {
					acc = rnd(f(acc, v))
				}
			case op == hlo.OpAdd:
				for _, v := range seg {
					acc += v
				}
			default:
				for _, v := range seg {
					acc = f(acc, v)
				}
			}
			dst[o] = acc
		}
		return fromF32(x.Type, outDims, dst)
	case domFloat64:
		src := f64s(x)
		start := f64s(init)[0]
		f := binaryF64(op)
		dst := make([]float64, outN)
		for o := range dst {
			acc := start
			for _, v := range src[int64(o)*run : int64(o+1)*run] {
				acc = f(acc, v)
			}
			dst[o] = acc
		}
		return fromF64(x.Type, outDims, dst)
	case domInt:
		src := i64s(x)
		start := i64s(init)[0]
		f := binaryInt(op, intInfoOf(x.Type))
		if f == nil {
			return nil
		}
		dst := make([]int64, outN)
		for o := range dst {
			acc := start
			for _, v := range src[int64(o)*run : int64(o+1)*run] {
				acc = f(acc, v)
			}
			dst[o] = acc
		}
		return fromI64(x.Type, outDims, dst)
	case domComplex:
		return reduceComplex(op, x, init, outDims, run)
	}
	return nil
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
			wd := w.win[d]
			pos := out[d]*max(wd.Stride, 1) - wd.PadLow + widx[d]*max(wd.WindowDilation, 1)
			if bd := max(wd.BaseDilation, 1); bd > 1 {
				if pos%bd != 0 {
					ok = false
					break
				}
				pos /= bd
			}
			if pos < 0 || pos >= w.inDims[d] {
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
		dst := make([]float32, outN)
		if outN > 0 {
			for o := range dst {
				acc := start
				it.each(out, widx, func(lin int64) bool {
					acc = fn(acc, src[lin])
					if rnd != nil {
						acc = rnd(acc)
					}
					return true
				})
				dst[o] = acc
				nextIndex(out, outDims)
			}
		}
		return ArrayValue(fromF32(types[0], outDims, dst)), nil
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

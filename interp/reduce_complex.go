package interp

import (
	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

// reduceComplex is reduce over complex numbers with an add or multiply reducer; a c64 accumulator rounds
// to complex64 after each step as XLA's evaluator does. nil for other reducers, which the scalar program
// cannot evaluate on c128 (its registers are 64 bits wide).
func reduceComplex(op hlo.Opcode, x, init *tensor.Tensor, outDims []int64, run int64) *tensor.Tensor {
	var f func(a, b complex128) complex128
	switch op {
	case hlo.OpAdd:
		f = func(a, b complex128) complex128 { return a + b }
	case hlo.OpMultiply:
		f = xlaMul // the multiply of the elementwise operation (complex_xla.go)
	default:
		return nil
	}
	src := c128s(x)
	start := c128s(init)[0]
	dst := make([]complex128, product(outDims))
	for o := range dst {
		acc := start
		for _, v := range src[int64(o)*run : int64(o+1)*run] {
			acc = f(acc, v)
			if x.Type == dtype.C64 {
				acc = complex128(complex64(acc))
			}
		}
		dst[o] = acc
	}
	return fromC128(x.Type, outDims, dst)
}

// complexReducer returns the opcode of a reducer root = op(p0, p1) on complex scalars; OpInvalid for any
// other computation.
func complexReducer(c *hlo.Computation) hlo.Opcode {
	if c == nil || len(c.Params) != 2 || c.Root == nil || c.Root.NumOperands() != 2 || !c.Root.Shape.IsScalar() ||
		!c.Root.Shape.Elem.IsComplex() || c.Root.Operand(0) != c.Params[0] || c.Root.Operand(1) != c.Params[1] {
		return hlo.OpInvalid
	}
	return c.Root.Opcode
}

// reduceWide is reduce for inputs with an element wider than 64 bits (c128), which the scalar programs
// cannot carry: the reducer is called as a computation on scalar arrays, element by element.
func (e *evaluator) reduceWide(in *hlo.Instruction, inputs, inits []*tensor.Tensor, types []dtype.Type, outDims []int64, run int64) (Value, error) {
	if err := e.charge(product(outDims) * run); err != nil {
		return Value{}, err
	}
	return e.foldWide(in, inputs, inits, types, outDims, func(o int64, visit func(lin int64) bool) {
		for j := int64(0); j < run && visit(o*run+j); j++ {
		}
	})
}

// foldWide folds, for each output element o, the input elements walk(o, ...) visits into accumulators
// starting at the initial values, calling the instruction's to_apply computation on scalar arrays: the
// path for elements wider than 64 bits, of reduce and reduce-window alike.
func (e *evaluator) foldWide(in *hlo.Instruction, inputs, inits []*tensor.Tensor, types []dtype.Type, outDims []int64,
	walk func(o int64, visit func(lin int64) bool)) (Value, error) {
	n := len(inputs)
	comp := in.CalledComputation("to_apply")
	outs := make([]*tensor.Tensor, n)
	for i := range outs {
		outs[i] = tensor.New(types[i], outDims)
	}
	acc := make([]Value, n)
	args := make([]Value, 2*n)
	var callErr error
	for o := int64(0); o < product(outDims); o++ {
		for i := range acc {
			acc[i] = ArrayValue(scalarAt(inits[i], 0))
		}
		walk(o, func(lin int64) bool {
			copy(args, acc)
			for i := range inputs {
				args[n+i] = ArrayValue(scalarAt(inputs[i], lin))
			}
			r, err := e.call(comp, args)
			switch {
			case err != nil:
				callErr = err
			case n == 1 && r.Kind == KindArray:
				acc[0] = r
			case r.Kind == KindTuple && len(r.Tuple) == n:
				copy(acc, r.Tuple)
			default:
				callErr = errorf(in, "the reducer gives another number of values than the %d inputs", n)
			}
			return callErr == nil
		})
		if callErr != nil {
			return Value{}, callErr
		}
		for i := range outs {
			es := int64(types[i].ByteSize())
			copy(outs[i].Data[o*es:(o+1)*es], acc[i].Array.Data)
		}
	}
	return packResults(in, outs), nil
}

// scalarAt returns element i of t as a scalar tensor.
func scalarAt(t *tensor.Tensor, i int64) *tensor.Tensor {
	es := int64(t.Type.ByteSize())
	s := tensor.New(t.Type, nil)
	copy(s.Data, t.Data[i*es:(i+1)*es])
	return s
}

// hasWide reports whether any tensor has elements wider than 64 bits.
func hasWide(ts []*tensor.Tensor) bool {
	for _, t := range ts {
		if t.Type.ByteSize() > 8 {
			return true
		}
	}
	return false
}

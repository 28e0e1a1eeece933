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
		f = func(a, b complex128) complex128 { return a * b }
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

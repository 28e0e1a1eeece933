package interp

import (
	"octet/dtype"
	"octet/hlo"
)

func init() {
	register((*evaluator).batchNorm, hlo.OpBatchNormTraining, hlo.OpBatchNormInference, hlo.OpBatchNormGrad)
}

// batchNorm evaluates batch-norm-training, -inference and -grad as XLA runs them: its CPU and GPU
// compilers replace each by the computation BatchNormExpander builds (xla/service/batchnorm_expander.cc,
// openxla/xla commit 1656956), which this builds and evaluates, so that every step rounds in the
// operand's type as there and the sums are the interpreter's reductions:
//
//	training:  mean = sum(x)/N, var = sum(x·x)/N - mean·mean (N the elements per feature, an s32 product
//	           converted to the type), y = (x - mean)·rsqrt(var + ε)·scale + offset; results (y, mean, var)
//	inference: s = scale·rsqrt(var + ε), y = x·s + (offset - mean·s)
//	grad:      grad_scale = sum(dy·(x - mean))·rsqrt(var + ε), grad_offset = sum(dy), grad_x =
//	           (scale·rsqrt(var + ε))/N · ((dy·N - sum(dy)) - (x - mean)·sum(dy·(x - mean))/(var + ε))
//
// with ε the epsilon attribute (a float32) converted to the type. Operands of differing types are refused.
func (e *evaluator) batchNorm(in *hlo.Instruction, ops []Value) (Value, error) {
	c, err := e.batchNormExpansion(in)
	if err != nil {
		return Value{}, err
	}
	return e.call(c, ops)
}

// batchNormExpansion returns the computation BatchNormExpander makes of in.
func (e *evaluator) batchNormExpansion(in *hlo.Instruction) (*hlo.Computation, error) {
	return e.expansion(in, func(c *hlo.Computation) error {
		ops := in.Operands()
		if len(ops) == 0 || !ops[0].Shape.IsArray() {
			return errorf(in, "%s without an array operand", in.Opcode)
		}
		x := ops[0].Shape
		for _, o := range ops[1:] {
			if !o.Shape.IsArray() || o.Shape.Elem != x.Elem {
				return unsupportedf(in, "%s of %s with an operand of another type (%s)", in.Opcode, x.String(), o.Shape.String())
			}
		}
		f, ok := in.Int("feature_index")
		if !ok || f < 0 || f >= int64(len(x.Dims)) {
			return errorf(in, "%s: feature_index out of range", in.Opcode)
		}
		eps, ok := in.Attr("epsilon").(hlo.Float)
		if !ok {
			return errorf(in, "%s without an epsilon", in.Opcode)
		}
		buildBatchNorm(c, in.Opcode, x.Elem, x.Dims, f, float32(eps))
		return nil
	})
}

// buildBatchNorm builds in c BatchNormExpander's computation for an operand of type ty and dimensions
// dims, features along dimension f.
func buildBatchNorm(c *hlo.Computation, op hlo.Opcode, ty dtype.Type, dims []int64, f int64, eps float32) {
	S, F := hlo.Array(ty, dims...), hlo.Array(ty, dims[f])
	var others []int64
	n := int32(1)
	for i, d := range dims {
		if int64(i) != f {
			others = append(others, int64(i))
			n *= int32(d) // XLA multiplies the dimension sizes as s32
		}
	}
	add := scalarAdd(c.Module, ty)
	// ε is a float32 converted to the type, N an s32 converted to it.
	epsilon := c.Convert(c.ScalarConstant(dtype.F32, float64(eps)), ty)
	count := c.Convert(c.ScalarConstant(dtype.S32, float64(n)), ty)
	zero := c.ScalarConstant(ty, 0)
	sum := func(x *hlo.Instruction) *hlo.Instruction { return c.Reduce(x, zero, others, add) }
	perFeature := func(x *hlo.Instruction) *hlo.Instruction { return c.Broadcast(x, S, []int64{f}) }
	splat := func(x *hlo.Instruction, s hlo.Shape) *hlo.Instruction { return c.Broadcast(x, s, nil) }
	switch op {
	case hlo.OpBatchNormTraining:
		x, scale, offset := c.Parameter(S), c.Parameter(F), c.Parameter(F)
		epsX := splat(epsilon, S)
		scaleB, offsetB := perFeature(scale), perFeature(offset)
		x2 := c.Multiply(x, x)
		total, total2 := sum(x), sum(x2)
		countF := splat(count, F)
		mean := c.Divide(total, countF)
		meanB := perFeature(mean)
		mean2 := c.Divide(total2, countF)
		variance := c.Subtract(mean2, c.Multiply(mean, mean))
		rs := c.Unary(hlo.OpRsqrt, c.AddOp(perFeature(variance), epsX))
		normalized := c.Multiply(c.Subtract(x, meanB), rs)
		y := c.AddOp(c.Multiply(normalized, scaleB), offsetB)
		c.Root = c.Tuple(y, mean, variance)
	case hlo.OpBatchNormInference:
		x, scale, offset, mean, variance := c.Parameter(S), c.Parameter(F), c.Parameter(F), c.Parameter(F), c.Parameter(F)
		rs := c.Unary(hlo.OpRsqrt, c.AddOp(variance, splat(epsilon, F)))
		trueScale := c.Multiply(scale, rs)
		trueShift := c.Subtract(offset, c.Multiply(mean, trueScale))
		c.Root = c.AddOp(c.Multiply(x, perFeature(trueScale)), perFeature(trueShift))
	case hlo.OpBatchNormGrad:
		x, scale, mean, variance, dy := c.Parameter(S), c.Parameter(F), c.Parameter(F), c.Parameter(F), c.Parameter(S)
		epsX, epsF := splat(epsilon, S), splat(epsilon, F)
		scaleB, varianceB, meanB := perFeature(scale), perFeature(variance), perFeature(mean)
		rsB := c.Unary(hlo.OpRsqrt, c.AddOp(varianceB, epsX))
		rs := c.Unary(hlo.OpRsqrt, c.AddOp(variance, epsF))
		xm := c.Subtract(x, meanB)
		sumDyXm := sum(c.Multiply(dy, xm))
		gradOffset := sum(dy)
		gradScale := c.Multiply(sumDyXm, rs)
		i2, i3 := perFeature(gradOffset), perFeature(sumDyXm)
		i5 := c.Divide(c.Multiply(i3, xm), c.AddOp(varianceB, epsX))
		countX := splat(count, S)
		scaleRsN := c.Divide(c.Multiply(scaleB, rsB), countX)
		i6 := c.Subtract(c.Subtract(c.Multiply(dy, countX), i2), i5)
		c.Root = c.Tuple(c.Multiply(scaleRsN, i6), gradScale, gradOffset)
	}
}

package interp

import (
	"fmt"
	"strings"

	"octet/dtype"
	"octet/hlo"
)

func init() {
	register((*evaluator).batchNorm, hlo.OpBatchNormTraining, hlo.OpBatchNormInference, hlo.OpBatchNormGrad)
}

// batchNorm evaluates batch-norm-training, -inference and -grad as XLA runs them: its CPU and GPU
// compilers replace each by the computation BatchNormExpander builds (xla/service/batchnorm_expander.cc,
// openxla/xla commit 1656956), which this writes as HLO and evaluates, so that every step rounds in the
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
	return e.expansion(in, func() (string, error) {
		ops := in.Operands()
		if len(ops) == 0 || !ops[0].Shape.IsArray() {
			return "", errorf(in, "%s without an array operand", in.Opcode)
		}
		x := ops[0].Shape
		for _, o := range ops[1:] {
			if !o.Shape.IsArray() || o.Shape.Elem != x.Elem {
				return "", unsupportedf(in, "%s of %s with an operand of another type (%s)", in.Opcode, x.String(), o.Shape.String())
			}
		}
		f, ok := in.Int("feature_index")
		if !ok || f < 0 || f >= int64(len(x.Dims)) {
			return "", errorf(in, "%s: feature_index out of range", in.Opcode)
		}
		eps, ok := in.Attr("epsilon").(hlo.Float)
		if !ok {
			return "", errorf(in, "%s without an epsilon", in.Opcode)
		}
		return batchNormText(in.Opcode, x.Elem, x.Dims, f, float32(eps)), nil
	})
}

// batchNormText writes BatchNormExpander's computation for an operand of type ty and dimensions dims,
// features along dimension f.
func batchNormText(op hlo.Opcode, ty dtype.Type, dims []int64, f int64, eps float32) string {
	t := ty.String()
	S, F := shapeText(ty, dims...), shapeText(ty, dims[f])
	var others []string
	n := int32(1)
	for i, d := range dims {
		if int64(i) != f {
			others = append(others, fmt.Sprint(i))
			n *= int32(d) // XLA multiplies the dimension sizes as s32
		}
	}
	reduceDims := "{" + strings.Join(others, ",") + "}"
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, "  "+format+"\n", args...) }
	fmt.Fprintf(&b, "HloModule expansion\n\nadd {\n  x = %s[] parameter(0)\n  y = %s[] parameter(1)\n  ROOT s = %s[] add(x, y)\n}\n\nENTRY e {\n", t, t, t)
	// ε is a float32 converted to the type, N an s32 converted to it.
	line("eps32 = f32[] constant(%s)", formatFloat32(eps))
	line("eps = %s[] convert(eps32)", t)
	line("n32 = s32[] constant(%d)", n)
	line("n = %s[] convert(n32)", t)
	line("zero = %s[] constant(0)", t)
	bcastF := func(name, x string) { line("%s = %s broadcast(%s), dimensions={%d}", name, S, x, f) }
	switch op {
	case hlo.OpBatchNormTraining:
		line("x = %s parameter(0)", S)
		line("scale = %s parameter(1)", F)
		line("offset = %s parameter(2)", F)
		line("epsilon = %s broadcast(eps), dimensions={}", S)
		bcastF("scale_b", "scale")
		bcastF("offset_b", "offset")
		line("x2 = %s multiply(x, x)", S)
		line("sum = %s reduce(x, zero), dimensions=%s, to_apply=add", F, reduceDims)
		line("sum2 = %s reduce(x2, zero), dimensions=%s, to_apply=add", F, reduceDims)
		line("n_f = %s broadcast(n), dimensions={}", F)
		line("mean = %s divide(sum, n_f)", F)
		bcastF("mean_b", "mean")
		line("mean2 = %s divide(sum2, n_f)", F)
		line("mean_mean = %s multiply(mean, mean)", F)
		line("var = %s subtract(mean2, mean_mean)", F)
		bcastF("var_b", "var")
		line("var_eps = %s add(var_b, epsilon)", S)
		line("rs = %s rsqrt(var_eps)", S)
		line("xm = %s subtract(x, mean_b)", S)
		line("normalized = %s multiply(xm, rs)", S)
		line("scaled = %s multiply(normalized, scale_b)", S)
		line("y = %s add(scaled, offset_b)", S)
		line("ROOT r = (%s, %s, %s) tuple(y, mean, var)", S, F, F)
	case hlo.OpBatchNormInference:
		line("x = %s parameter(0)", S)
		line("scale = %s parameter(1)", F)
		line("offset = %s parameter(2)", F)
		line("mean = %s parameter(3)", F)
		line("var = %s parameter(4)", F)
		line("epsilon = %s broadcast(eps), dimensions={}", F)
		line("var_eps = %s add(var, epsilon)", F)
		line("rs = %s rsqrt(var_eps)", F)
		line("true_scale = %s multiply(scale, rs)", F)
		line("mean_scale = %s multiply(mean, true_scale)", F)
		line("true_shift = %s subtract(offset, mean_scale)", F)
		bcastF("scale_b", "true_scale")
		bcastF("shift_b", "true_shift")
		line("xs = %s multiply(x, scale_b)", S)
		line("ROOT y = %s add(xs, shift_b)", S)
	case hlo.OpBatchNormGrad:
		line("x = %s parameter(0)", S)
		line("scale = %s parameter(1)", F)
		line("mean = %s parameter(2)", F)
		line("var = %s parameter(3)", F)
		line("dy = %s parameter(4)", S)
		line("eps_x = %s broadcast(eps), dimensions={}", S)
		line("eps_f = %s broadcast(eps), dimensions={}", F)
		bcastF("scale_b", "scale")
		bcastF("var_b", "var")
		bcastF("mean_b", "mean")
		line("var_eps_b = %s add(var_b, eps_x)", S)
		line("rs_b = %s rsqrt(var_eps_b)", S)
		line("var_eps = %s add(var, eps_f)", F)
		line("rs = %s rsqrt(var_eps)", F)
		line("xm = %s subtract(x, mean_b)", S)
		line("dy_xm = %s multiply(dy, xm)", S)
		line("sum_dy_xm = %s reduce(dy_xm, zero), dimensions=%s, to_apply=add", F, reduceDims)
		line("grad_offset = %s reduce(dy, zero), dimensions=%s, to_apply=add", F, reduceDims)
		line("grad_scale = %s multiply(sum_dy_xm, rs)", F)
		bcastF("i2", "grad_offset")
		bcastF("i3", "sum_dy_xm")
		line("i4 = %s multiply(i3, xm)", S)
		line("var_eps_b2 = %s add(var_b, eps_x)", S)
		line("i5 = %s divide(i4, var_eps_b2)", S)
		line("scale_rs = %s multiply(scale_b, rs_b)", S)
		line("n_x = %s broadcast(n), dimensions={}", S)
		line("scale_rs_n = %s divide(scale_rs, n_x)", S)
		line("i1 = %s multiply(dy, n_x)", S)
		line("i1_i2 = %s subtract(i1, i2)", S)
		line("i6 = %s subtract(i1_i2, i5)", S)
		line("grad_x = %s multiply(scale_rs_n, i6)", S)
		line("ROOT r = (%s, %s, %s) tuple(grad_x, grad_scale, grad_offset)", S, F, F)
	}
	b.WriteString("}\n")
	return b.String()
}

package interp

import (
	"testing"

	"octet/hlo"
)

// TestSupportedAgreesWithEvaluation runs one instance of several opcodes: those Supported lists evaluate,
// the others are refused as unsupported.
func TestSupportedAgreesWithEvaluation(t *testing.T) {
	tests := []struct {
		op   hlo.Opcode
		src  string
		args []string
	}{
		{hlo.OpAdd, binary("add", "f32[2]", "f32[2]"), []string{"f32[2] {1, 2}", "f32[2] {3, 4}"}},
		{hlo.OpNegate, unary("negate", "s32[2]", "s32[2]"), []string{"s32[2] {1, 2}"}},
		{hlo.OpTranspose, unary("transpose", "f32[2,3]", "f32[3,2]", "dimensions={1,0}"), []string{"f32[2,3] {{1, 2, 3}, {4, 5, 6}}"}},
		{hlo.OpCompare, binary("compare", "f32[2]", "pred[2]", "direction=LT"), []string{"f32[2] {1, 2}", "f32[2] {2, 1}"}},
		{hlo.OpDot, binary("dot", "f32[2,2]", "f32[2,2]", "lhs_contracting_dims={1}", "rhs_contracting_dims={0}"), []string{"f32[2,2] {{1, 2}, {3, 4}}", "f32[2,2] {{1, 0}, {0, 1}}"}},
		{hlo.OpCholesky, unary("cholesky", "f32[2,2]", "f32[2,2]", "lower=true"), []string{"f32[2,2] {{4, 0}, {0, 9}}"}},
		{hlo.OpFft, unary("fft", "c64[4]", "c64[4]", "fft_type=FFT", "fft_length={4}"), []string{"c64[4] {(1,0), (0,0), (0,0), (0,0)}"}},
		{hlo.OpRngBitGenerator, unary("rng-bit-generator", "u64[2]", "(u64[2], u32[4])", "algorithm=rng_three_fry"), []string{"u64[2] {1, 2}"}},
		{hlo.OpStochasticConvert, "ENTRY e {\n  x = f32[2] parameter(0)\n  y = u32[2] parameter(1)\n  ROOT r = s32[2] stochastic-convert(x, y)\n}\n", []string{"f32[2] {1, 2}", "u32[2] {0, 0}"}},
	}
	for _, tt := range tests {
		t.Run(tt.op.String(), func(t *testing.T) {
			_, err := evalText(t, tt.src, tt.args...)
			switch {
			case Supported(tt.op) && err != nil:
				t.Errorf("Supported(%s), but: %v", tt.op, err)
			case !Supported(tt.op) && !isUnsupported(err):
				t.Errorf("not Supported(%s), but evaluating it gives %v", tt.op, err)
			}
		})
	}
}

func TestOpsListsTheSupported(t *testing.T) {
	ops := Ops()
	n := 0
	for _, op := range hlo.Opcodes() {
		if Supported(op) {
			if n >= len(ops) || ops[n] != op {
				t.Fatalf("Ops() = %v misses or misorders %s", ops, op)
			}
			n++
		}
	}
	if n != len(ops) {
		t.Errorf("Ops() has %d opcodes, Supported holds for %d", len(ops), n)
	}
	for _, op := range []hlo.Opcode{hlo.OpAdd, hlo.OpDot, hlo.OpReduce, hlo.OpWhile, hlo.OpCustomCall} {
		if !Supported(op) {
			t.Errorf("%s is not supported", op)
		}
	}
	if Supported(hlo.OpInvalid) {
		t.Error("the invalid opcode is supported")
	}
}

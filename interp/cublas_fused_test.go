package interp

import (
	"fmt"
	"strings"
	"testing"

	"octet/gemm"
)

// plainMatMuler is package gemm's float32 product behind an Options.MatMuler, which makes the cuBLAS
// calls take their unfused path: a float32 copy of the operands, then the epilogue element by element.
type plainMatMuler struct{}

func (plainMatMuler) MatMulBatched(count int, c gemm.Matrix, strideC int, a gemm.Matrix, strideA int, b gemm.Matrix, strideB int, alpha, beta float32) {
	gemm.MatMulBatched(count, c, strideC, a, strideA, b, strideB, alpha, beta)
}

// TestCublasFused checks that the cuBLAS FP8 call finished by package gemm's epilogue gives, bit for bit,
// what the unfused evaluation gives from the same sums (a float32 kernel, K in one block, so that both
// sum alike): every epilogue, with and without C, D in f32, bf16 and both FP8 types, the abs-max output,
// batches.
func TestCublasFused(t *testing.T) {
	for _, k := range gemm.Kernels() {
		if strings.HasPrefix(k.Name(), "avx512") && k.Name() != "avx512" {
			continue // the bf16 kernel groups its sums otherwise than the float32 copy's kernel
		}
		defer gemm.SetKernel(gemm.SetKernel(k))
		break
	}
	for _, epilogue := range []string{"DEFAULT", "RELU", "GELU", "BIAS", "BIAS_RELU", "BIAS_GELU"} {
		for _, withC := range []bool{false, true} {
			// D types with the C and bias types cuBLASLt's FP8 type table pairs them with for f8e4m3fn x f8e5m2.
			for _, types := range [][3]string{{"f32", "f32", "bf16"}, {"bf16", "bf16", "bf16"}, {"f8e4m3fn", "bf16", "bf16"}, {"f8e5m2", "bf16", "bf16"}} {
				dType, cType, biasType := types[0], types[1], types[2]
				ops := []string{"a", "b"}
				beta := 0
				if withC {
					ops, beta = append(ops, "c"), -2
				}
				ops = append(ops, "as", "bs")
				if strings.HasPrefix(epilogue, "BIAS") {
					ops = append(ops, "bias")
				}
				ops = append(ops, "ds")
				cfg := fmt.Sprintf(`{"alpha_real":1.5,"alpha_imag":0,"beta":%d,"dot_dimension_numbers":{"lhs_contracting_dimensions":["2"],"rhs_contracting_dimensions":["2"],"lhs_batch_dimensions":["0"],"rhs_batch_dimensions":["0"]},"epilogue":"%s","damax_output":true}`, beta, epilogue)
				m := parseModule(t, fmt.Sprintf(`ENTRY e {
  a = f8e4m3fn[2,40,100] parameter(0)
  b = f8e5m2[2,30,100] parameter(1)
  c = %s[2,40,30] parameter(2)
  as = f32[] parameter(3)
  bs = f32[] parameter(4)
  bias = %s[30] parameter(5)
  ds = f32[] parameter(6)
  ROOT r = (%s[2,40,30], f32[], s8[64]) custom-call(%s), custom_call_target="__cublas$lt$matmul$f8", backend_config=%s
}`, cType, biasType, dType, strings.Join(ops, ", "), cfg))
				args, err := RandomInputs(m, 9)
				if err != nil {
					t.Fatal(err)
				}
				fused, err := Run(m, args, Options{})
				if err != nil {
					t.Fatal(err)
				}
				plain, err := Run(m, args, Options{MatMuler: plainMatMuler{}})
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; i < 2; i++ {
					f, p := fused.Tuple[i].Array, plain.Tuple[i].Array
					if string(f.Data) != string(p.Data) {
						t.Errorf("%s C=%v D %s: output %d differs from the unfused evaluation:\n%s\n%s", epilogue, withC, dType, i, f, p)
					}
				}
			}
		}
	}
}

package cublas_test

import (
	"strings"
	"testing"

	"octet/cublas"
	"octet/hlo/parser"
	"octet/hlo/printer"
)

func TestSummary(t *testing.T) {
	for _, tc := range []struct {
		name   string
		params string // parameter declarations, one per line
		call   string // the gemm instruction
		want   string // "" when the instruction is not a cuBLAS GEMM
	}{
		{
			name:   "fp8 relu amax, B transposed",
			params: "x = f8e4m3fn[16,32] parameter(0)\ny = f8e5m2[16,32] parameter(1)\ns = f32[] parameter(2)",
			call:   `gemm = (f32[16,16], f32[], s8[4194304]) custom-call(x, y, s, s), custom_call_target="__cublas$lt$matmul$f8", backend_config={"gemm_backend_config":{"alpha_real":2,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["1"]},"epilogue":"RELU","damax_output":true}}`,
			want:   "cuBLASLt FP8 GEMM: D f32[16,16] = f8e4m3fn[16,32] × f8e5m2[16,32]ᵀ, a_scale=s b_scale=s, epilogue RELU, alpha 2, beta 0, amax f32[]",
		},
		{
			name:   "fp8 without backend_config",
			params: "a = f8e4m3fn[16,32] parameter(0)\nb = f8e4m3fn[16,32] parameter(1)\ns = f32[] parameter(2)",
			call:   `gemm = (bf16[16,16], s8[1024]) custom-call(a, b, s, s), custom_call_target="__cublas$lt$matmul$f8"`,
			want:   "cuBLASLt FP8 GEMM: D bf16[16,16] = f8e4m3fn[16,32] × f8e4m3fn[16,32]ᵀ, a_scale=s b_scale=s, epilogue DEFAULT, alpha 1, beta 0, no amax [inferred: no backend_config]",
		},
		{
			name:   "fp8 six-scalar form, A transposed, B not",
			params: "a = f8e4m3fn[32,16] parameter(0)\nb = f8e5m2[32,16] parameter(1)\nsa = f32[] parameter(2)\nsb = f32[] parameter(3)\nsc = f32[] parameter(4)\nsd = f32[] parameter(5)",
			call:   `gemm = (f8e5m2[16,16], s8[1024]) custom-call(a, b, sa, sb, sc, sd), custom_call_target="__cublas$lt$matmul$f8", backend_config={"gemm_backend_config":{"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["0"],"rhs_contracting_dimensions":["0"]},"epilogue":"DEFAULT"}}`,
			want:   "cuBLASLt FP8 GEMM: D f8e5m2[16,16] = f8e4m3fn[32,16]ᵀ × f8e5m2[32,16], a_scale=sa b_scale=sb c_scale=sc d_scale=sd, epilogue DEFAULT, alpha 1, beta 0, no amax (six-scalar operand form)",
		},
		{
			name:   "lt with C, bias and a complex alpha",
			params: "a = f32[8,4] parameter(0)\nb = f32[4,8] parameter(1)\nc = f32[8,8] parameter(2)\nv = f32[8] parameter(3)",
			call:   `gemm = (f32[8,8], s8[1024]) custom-call(a, b, c, v), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"alpha_real":0.5,"alpha_imag":-1,"beta":1,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"]},"epilogue":"BIAS"}}`,
			want:   "cuBLASLt GEMM: D f32[8,8] = f32[8,4] × f32[4,8] + C, c=c bias=v, epilogue BIAS, alpha 0.5-1i, beta 1",
		},
		{
			name:   "cannot decode",
			params: "a = f8e4m3fn[16,32] parameter(0)",
			call:   `gemm = (bf16[16,16], s8[1024]) custom-call(a), custom_call_target="__cublas$gemm"`,
			want:   "cuBLAS GEMM: cannot decode: __cublas$gemm takes at least two operands (a, b), found 1",
		},
		{
			name:   "not a GEMM",
			params: "a = f32[4] parameter(0)",
			call:   `gemm = f32[4] custom-call(a), custom_call_target="annotate"`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := call(t, "HloModule m\n\nENTRY e {\n"+tc.params+"\nROOT "+tc.call+"\n}\n")
			if got := cublas.Summary(in); got != tc.want {
				t.Errorf("Summary:\n got %s\nwant %s", got, tc.want)
			}
			lines := cublas.Annotate(in)
			if tc.want == "" {
				if lines != nil {
					t.Errorf("Annotate = %q, want nil", lines)
				}
			} else if len(lines) != 1 || lines[0] != tc.want {
				t.Errorf("Annotate = %q, want the summary alone", lines)
			}
		})
	}
}

// TestReadableAnnotation checks the summary where "octet print" shows it: a comment line under the call,
// before its indented backend config.
func TestReadableAnnotation(t *testing.T) {
	m, err := parser.ParseString("test", `HloModule m

ENTRY e {
  x = f8e4m3fn[16,32] parameter(0)
  y = f8e5m2[16,32] parameter(1)
  s = f32[] parameter(2)
  gemm = (f32[16,16], f32[], s8[4194304]) custom-call(x, y, s, s), custom_call_target="__cublas$lt$matmul$f8", backend_config={"operation_queue_id":"0","gemm_backend_config":{"alpha_real":2,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["1"]},"epilogue":"RELU","damax_output":true}}
  ROOT d = f32[16,16] get-tuple-element(gemm), index=0
}
`)
	if err != nil {
		t.Fatal(err)
	}
	cfg := printer.ConfigFor(printer.StyleReadable)
	cfg.Annotate = cublas.Annotate
	got := printer.Sprint(m, cfg)
	want := "  gemm = (f32[16,16], f32[], s8[4194304]) custom-call(x, y, s, s), custom_call_target=\"__cublas$lt$matmul$f8\",\n" +
		"    // cuBLASLt FP8 GEMM: D f32[16,16] = f8e4m3fn[16,32] × f8e5m2[16,32]ᵀ, a_scale=s b_scale=s, epilogue RELU, alpha 2, beta 0, amax f32[]\n" +
		"    backend_config={\n      \"operation_queue_id\": \"0\",\n"
	if !strings.Contains(got, want) {
		t.Errorf("readable output lacks\n%s\nin\n%s", want, got)
	}
	if strings.Count(got, "//") != 1 {
		t.Errorf("want one comment line, under the GEMM only:\n%s", got)
	}
}

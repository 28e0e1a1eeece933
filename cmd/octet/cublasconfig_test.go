package main

import (
	"strings"
	"testing"
)

// TestUndecodableCublasConfig gives the commands a cuBLAS FP8 call whose backend_config does not read as
// a GemmBackendConfig, or contradicts the call's operands: every command that verifies its input refuses
// it at the call's position, with exit status 1, instead of reporting a lost fusion of an unknown D.
func TestUndecodableCublasConfig(t *testing.T) {
	const module = `HloModule m
ENTRY e {
  a = f8e4m3fn[16,32] parameter(0)
  b = f8e4m3fn[16,32] parameter(1)
  s = f32[] constant(1)
  ROOT c = (bf16[16,16], s8[1024]) custom-call(a, b, s, s), custom_call_target="__cublas$lt$matmul$f8", backend_config=%s
}
`
	dir := t.TempDir()
	write := func(name, config string) string {
		return writeTemp(t, dir, name, strings.Replace(module, "%s", config, 1))
	}
	good := write("good.hlo", `{"gemm_backend_config":{"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["1"]},"epilogue":"DEFAULT"}}`)
	const undecodable = "the backend_config of __cublas$lt$matmul$f8 %c does not decode: "
	const contradicts = "__cublas$lt$matmul$f8 %c: "
	dims := `"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["1"]}`
	for _, tc := range []struct{ name, config, why string }{
		{"alpha", `{"gemm_backend_config":{"alpha_real":"one"}}`, undecodable + `gemm_backend_config.alpha_real: not a number: "one"`},
		{"not json", `{"gemm_backend_config":{"alpha_real":1,}}`, undecodable + "backend_config is not a JSON object: invalid character"},
		{"no gemm config", `{"operation_queue_id":"0"}`, undecodable + "backend_config has no gemm_backend_config"},
		// XLA's proto parser refuses a word its enum does not have.
		{"unknown epilogue", `{"gemm_backend_config":{"alpha_real":1,` + dims + `,"epilogue":"SWISH"}}`, undecodable + "gemm_backend_config.epilogue: SWISH is not one of DEFAULT, BIAS, RELU, BIAS_RELU, GELU, GELU_AUX, BIAS_GELU, BIAS_GELU_AUX"},
		{"epilogue number", `{"gemm_backend_config":{"alpha_real":1,` + dims + `,"epilogue":8}}`, undecodable + "gemm_backend_config.epilogue: 8 is not one of DEFAULT"},
		// A config that reads but contradicts the call's operands.
		{"negative dimension", `{"gemm_backend_config":{"alpha_real":1,"dot_dimension_numbers":{"lhs_contracting_dimensions":["-1"],"rhs_contracting_dimensions":["1"]}}}`, contradicts + "lhs_contracting_dimensions names dimension -1 of a, which has rank 2"},
		{"dimension counts", `{"gemm_backend_config":{"alpha_real":1,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1","1"],"rhs_contracting_dimensions":["1"]}}}`, contradicts + "2 lhs and 1 rhs contracting dimensions"},
		{"bias without a bias", `{"gemm_backend_config":{"alpha_real":1,` + dims + `,"epilogue":"BIAS_GELU"}}`, contradicts + "epilogue BIAS_GELU needs a bias operand, and there is none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := write(tc.name+".hlo", tc.config)
			want := path + `:6:3: ` + tc.why
			for _, args := range [][]string{{"verify", path}, {"check", path}, {"check", "--strict", path}, {"diff", good, path}, {"run", "--random", "1", path}} {
				code, out, errs := runOctet(t, "", args...)
				what := strings.Join(args, " ")
				if code != 1 {
					t.Errorf("octet %s: exit %d, want 1", what, code)
				}
				if !strings.Contains(errs, want) {
					t.Errorf("octet %s: stderr lacks\n\t%s\ngot:\n%s", what, want, errs)
				}
				if strings.Contains(out, "NOT FUSED") || strings.Contains(out, "lost") {
					t.Errorf("octet %s: the call is reported as a GEMM:\n%s", what, out)
				}
			}
		})
	}
	if code, out, errs := runOctet(t, "", "check", "--strict", good); code != 0 {
		t.Errorf("octet check --strict on the call with a good config: exit %d\n%s%s", code, out, errs)
	}
}

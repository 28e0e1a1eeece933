package cublas_test

import (
	"go/token"
	"os"
	"reflect"
	"strings"
	"testing"

	"octet/cublas"
	"octet/dtype"
	"octet/hlo"
	"octet/hlo/parser"
	"octet/internal/shared"
)

// compiledConfig is the backend_config of the example fp8_matmul.compiled.hlo, as XLA wrote it.
const compiledConfig = `{"operation_queue_id":"0","wait_on_operation_queues":[],"gemm_backend_config":{"alpha_real":1,"alpha_imag":0,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["1"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"precision_config":{"operand_precision":["DEFAULT","DEFAULT"],"algorithm":"ALG_UNSET"},"epilogue":"DEFAULT","damax_output":false,"selected_algorithm":"4","lhs_stride":"16384","rhs_stride":"16384","grad_x":false,"grad_y":false},"force_earliest_schedule":false}`

func TestBackendConfigRoundTrip(t *testing.T) {
	c, err := cublas.ParseBackendConfig(compiledConfig)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Wrapped || c.AlphaReal != 1 || c.Beta != 0 || c.Epilogue != cublas.EpilogueDefault ||
		!reflect.DeepEqual(c.LhsContracting, []int64{1}) || !reflect.DeepEqual(c.RhsContracting, []int64{1}) ||
		c.SelectedAlgorithm == nil || *c.SelectedAlgorithm != 4 || c.LhsStride == nil || *c.LhsStride != 16384 ||
		c.GradX == nil || *c.GradX || c.Algorithm != "ALG_UNSET" || len(c.OperandPrecision) != 2 {
		t.Errorf("parsed config: %+v", c)
	}
	if got := c.BackendConfigJSON(); got != compiledConfig {
		t.Errorf("BackendConfigJSON:\n got %s\nwant %s", got, compiledConfig)
	}
}

func TestParseBackendConfig(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		check    func(*cublas.GemmConfig) bool
		json     string // expected BackendConfigJSON, "" to skip
		err      string
	}{
		{
			name: "bare GemmBackendConfig, numbers for int64 and enum, unknown member kept",
			in:   `{"alpha_real":0.5,"beta":1,"dot_dimension_numbers":{"lhs_contracting_dimensions":[2],"rhs_contracting_dimensions":[1],"lhs_batch_dimensions":[0],"rhs_batch_dimensions":[0]},"epilogue":6,"damax_output":true,"scale_mode":1}`,
			check: func(c *cublas.GemmConfig) bool {
				return !c.Wrapped && c.Epilogue == cublas.EpilogueBiasGelu && c.DamaxOutput
			},
			json: `{"alpha_real":0.5,"alpha_imag":0,"beta":1,"dot_dimension_numbers":{"lhs_contracting_dimensions":["2"],"rhs_contracting_dimensions":["1"],"lhs_batch_dimensions":["0"],"rhs_batch_dimensions":["0"]},"precision_config":{"operand_precision":[],"algorithm":"ALG_UNSET"},"epilogue":"BIAS_GELU","damax_output":true,"scale_mode":1}`,
		},
		{
			name:  "wrapped, pretty-printed, outer extra member",
			in:    "{\n \"gemm_backend_config\": {\"beta\": 1.0, \"epilogue\": \"RELU\"},\n \"reification_cost\": [ ]\n}",
			check: func(c *cublas.GemmConfig) bool { return c.Wrapped && c.Beta == 1 && c.Epilogue == cublas.EpilogueRelu },
			json:  `{"operation_queue_id":"0","wait_on_operation_queues":[],"gemm_backend_config":{"alpha_real":0,"alpha_imag":0,"beta":1,"dot_dimension_numbers":{"lhs_contracting_dimensions":[],"rhs_contracting_dimensions":[],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"precision_config":{"operand_precision":[],"algorithm":"ALG_UNSET"},"epilogue":"RELU","damax_output":false},"force_earliest_schedule":false,"reification_cost":[]}`,
		},
		{name: "not JSON", in: `this is a configuration`, err: "not a JSON object"},
		{name: "no GEMM config", in: `{"operation_queue_id":"0","fusion_backend_config":{}}`, err: "no gemm_backend_config"},
		{name: "bad dimension", in: `{"gemm_backend_config":{"dot_dimension_numbers":{"lhs_contracting_dimensions":["x"]}}}`, err: "lhs_contracting_dimensions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := cublas.ParseBackendConfig(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one mentioning %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(c) {
				t.Errorf("config: %+v", c)
			}
			if got := c.BackendConfigJSON(); tc.json != "" && got != tc.json {
				t.Errorf("BackendConfigJSON:\n got %s\nwant %s", got, tc.json)
			}
		})
	}
}

func TestEpilogue(t *testing.T) {
	for _, tc := range []struct {
		e          cublas.Epilogue
		bias, aux  bool
		activation string
	}{
		{cublas.EpilogueDefault, false, false, ""},
		{cublas.EpilogueBias, true, false, ""},
		{cublas.EpilogueRelu, false, false, "RELU"},
		{cublas.EpilogueBiasRelu, true, false, "RELU"},
		{cublas.EpilogueGelu, false, false, "GELU"},
		{cublas.EpilogueGeluAux, false, true, "GELU"},
		{cublas.EpilogueBiasGelu, true, false, "GELU"},
		{cublas.EpilogueBiasGeluAux, true, true, "GELU"},
	} {
		if !tc.e.Known() || tc.e.HasBias() != tc.bias || tc.e.HasAux() != tc.aux || tc.e.Activation() != tc.activation {
			t.Errorf("%s: known %v bias %v aux %v activation %q", tc.e, tc.e.Known(), tc.e.HasBias(), tc.e.HasAux(), tc.e.Activation())
		}
	}
	if cublas.Epilogue("SILU").Known() {
		t.Error("SILU is not one of XLA's epilogues")
	}
}

// call parses a module and returns its custom-call named "gemm".
func call(t *testing.T, src string) *hlo.Instruction {
	t.Helper()
	m, err := parser.ParseString("test", src)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if in.Name == "gemm" {
				return in
			}
		}
	}
	t.Fatal("no instruction named gemm")
	return nil
}

const cfgDefault = `{"gemm_backend_config":{"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["1"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"epilogue":"DEFAULT"}}`

func TestDecode(t *testing.T) {
	type roles struct{ c, as, bs, cs, ds, bias string }
	for _, tc := range []struct {
		name    string
		params  string // parameter declarations, one per line
		call    string // the gemm instruction
		roles   roles
		legacy  bool
		infer   bool
		amax    bool
		dtype   dtype.Type
		wsBytes int64
		err     string
	}{
		{
			name: "today's form: a, b, a_scale, b_scale",
			params: `a = f8e4m3fn[16,32] parameter(0)
  b = f8e5m2[16,32] parameter(1)
  sa = f32[] parameter(2)
  sb = f32[] parameter(3)`,
			call:  `gemm = (f32[16,16], s8[4096]) custom-call(a, b, sa, sb), custom_call_target="__cublas$lt$matmul$f8", backend_config=` + cfgDefault,
			roles: roles{as: "sa", bs: "sb"}, dtype: dtype.F32, wsBytes: 4096,
		},
		{
			name: "today's form with c, bias, d_scale and amax",
			params: `a = f8e4m3fn[16,32] parameter(0)
  b = f8e4m3fn[16,32] parameter(1)
  c = bf16[16,16] parameter(2)
  sa = f32[] parameter(3)
  sb = f32[] parameter(4)
  v = bf16[16] parameter(5)
  sd = f32[] parameter(6)`,
			call:  `gemm = (f8e4m3fn[16,16], f32[], s8[4096]) custom-call(a, b, c, sa, sb, v, sd), custom_call_target="__cublas$lt$matmul$f8", backend_config={"gemm_backend_config":{"alpha_real":1,"beta":1,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["1"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"epilogue":"BIAS_RELU","damax_output":true}}`,
			roles: roles{c: "c", as: "sa", bs: "sb", ds: "sd", bias: "v"}, amax: true, dtype: dtype.F8E4M3FN, wsBytes: 4096,
		},
		{
			name: "today's form, d_scale without bias",
			params: `a = f8e4m3fn[16,32] parameter(0)
  b = f8e4m3fn[16,32] parameter(1)
  sa = f32[] parameter(2)
  sb = f32[] parameter(3)
  sd = f32[] parameter(4)`,
			call:  `gemm = (f8e4m3fn[16,16], s8[4096]) custom-call(a, b, sa, sb, sd), custom_call_target="__cublas$lt$matmul$f8", backend_config=` + cfgDefault,
			roles: roles{as: "sa", bs: "sb", ds: "sd"}, dtype: dtype.F8E4M3FN, wsBytes: 4096,
		},
		{
			name: "six-scalar form, no backend_config: inferred",
			params: `a = f8e4m3fn[32,64] parameter(0)
  b = f8e4m3fn[128,64] parameter(1)
  s1 = f32[] parameter(2)
  s2 = f32[] parameter(3)
  s3 = f32[] parameter(4)
  one = f32[] constant(1)`,
			call:   `gemm = (f8e4m3fn[32,128], s8[33554432]) custom-call(a, b, s1, s2, one, s3), custom_call_target="__cublas$lt$matmul$f8"`,
			roles:  roles{as: "s1", bs: "s2", cs: "one", ds: "s3"},
			legacy: true, infer: true, dtype: dtype.F8E4M3FN, wsBytes: 33554432,
		},
		{
			name: "batched, inferred",
			params: `a = f8e4m3fn[4,16,32] parameter(0)
  b = f8e5m2[4,8,32] parameter(1)`,
			call:  `gemm = (bf16[4,16,8], s8[64]) custom-call(a, b), custom_call_target="__cublas$lt$matmul$f8"`,
			infer: true, dtype: dtype.BF16, wsBytes: 64,
		},
		{
			name: "cuBLASLt with bias",
			params: `a = bf16[16,32] parameter(0)
  b = bf16[32,16] parameter(1)
  v = bf16[16] parameter(2)`,
			call:  `gemm = (bf16[16,16], s8[64]) custom-call(a, b, v), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"epilogue":"BIAS"}}`,
			roles: roles{bias: "v"}, dtype: dtype.BF16, wsBytes: 64,
		},
		{
			name: "plain cuBLAS GEMM without workspace",
			params: `a = f32[16,32] parameter(0)
  b = f32[32,16] parameter(1)`,
			call:  `gemm = f32[16,16] custom-call(a, b), custom_call_target="__cublas$gemm", backend_config={"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]}}`,
			dtype: dtype.F32,
		},
		{
			name:   "not FP8",
			params: "a = bf16[16,32] parameter(0)\n  b = bf16[16,32] parameter(1)",
			call:   `gemm = (f32[16,16], s8[64]) custom-call(a, b), custom_call_target="__cublas$lt$matmul$f8"`,
			err:    "needs FP8 operands",
		},
		{
			name:   "other target",
			params: "a = bf16[16,32] parameter(0)\n  b = bf16[16,32] parameter(1)",
			call:   `gemm = f32[16,16] custom-call(a, b), custom_call_target="__onednn$matmul"`,
			err:    "is not a cuBLAS GEMM",
		},
		{
			name:   "bias epilogue without a bias",
			params: "a = f8e4m3fn[16,32] parameter(0)\n  b = f8e4m3fn[16,32] parameter(1)",
			call:   `gemm = (f32[16,16], s8[64]) custom-call(a, b), custom_call_target="__cublas$lt$matmul$f8", backend_config={"gemm_backend_config":{"alpha_real":1,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["1"]},"epilogue":"BIAS"}}`,
			err:    "needs a bias operand",
		},
		{
			name:   "damax without an amax result",
			params: "a = f8e4m3fn[16,32] parameter(0)\n  b = f8e4m3fn[16,32] parameter(1)",
			call:   `gemm = (f32[16,16], s8[64]) custom-call(a, b), custom_call_target="__cublas$lt$matmul$f8", backend_config={"gemm_backend_config":{"alpha_real":1,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["1"]},"damax_output":true}}`,
			err:    "no abs-max",
		},
		{
			name:   "contracting dimension out of range",
			params: "a = f8e4m3fn[16,32] parameter(0)\n  b = f8e4m3fn[16,32] parameter(1)",
			call:   `gemm = (f32[16,16], s8[64]) custom-call(a, b), custom_call_target="__cublas$lt$matmul$f8", backend_config={"gemm_backend_config":{"dot_dimension_numbers":{"lhs_contracting_dimensions":["2"],"rhs_contracting_dimensions":["1"]}}}`,
			err:    "names dimension 2 of a",
		},
		{
			name:   "an operand too many",
			params: "a = f8e4m3fn[16,32] parameter(0)\n  b = f8e4m3fn[16,32] parameter(1)\n  s = f32[] parameter(2)\n  v = f32[16] parameter(3)",
			call:   `gemm = (f32[16,16], s8[64]) custom-call(a, b, s, s, v, s, v), custom_call_target="__cublas$lt$matmul$f8"`,
			err:    "operand 6",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "HloModule m\n\nENTRY e {\n  " + tc.params + "\n  ROOT " + tc.call + "\n}\n"
			c, err := cublas.Decode(call(t, src))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one mentioning %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			name := func(in *hlo.Instruction) string {
				if in == nil {
					return ""
				}
				return in.Name
			}
			got := roles{name(c.C), name(c.AScale), name(c.BScale), name(c.CScale), name(c.DScale), name(c.Bias)}
			if got != tc.roles || name(c.A) != "a" || name(c.B) != "b" {
				t.Errorf("roles %+v, want %+v", got, tc.roles)
			}
			if c.Legacy != tc.legacy || c.Inferred != tc.infer || c.HasAmax != tc.amax || c.DType != tc.dtype ||
				c.WorkspaceBytes != tc.wsBytes {
				t.Errorf("legacy %v inferred %v amax %v dtype %s workspace %d", c.Legacy, c.Inferred, c.HasAmax, c.DType, c.WorkspaceBytes)
			}
		})
	}
}

// TestDecodeExamples decodes the FP8 calls of the project's examples: the compiled module (with its
// backend_config, six-scalar form) and XLA 0.4.31's output printed without backend_config.
func TestDecodeExamples(t *testing.T) {
	for _, tc := range []struct {
		file     string
		inferred bool
		d        dtype.Type
	}{
		{"fp8_matmul.compiled.hlo", false, dtype.F8E5M2},
		{"bf16_dequant.xla-0.4.31.optimized.hlo", true, dtype.F8E4M3FN},
	} {
		path := shared.Path(t, "examples", tc.file)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := parser.ParseModule(token.NewFileSet(), path, src)
		if err != nil {
			t.Fatal(err)
		}
		var calls []*cublas.Call
		for _, in := range m.Entry.Instructions {
			if in.Opcode == hlo.OpCustomCall {
				c, err := cublas.Decode(in)
				if err != nil {
					t.Fatalf("%s: %v", tc.file, err)
				}
				calls = append(calls, c)
			}
		}
		if len(calls) != 1 {
			t.Fatalf("%s: %d cuBLAS calls", tc.file, len(calls))
		}
		c := calls[0]
		cfg := c.Config
		if c.Inferred != tc.inferred || !c.Legacy || c.DType != tc.d || c.HasAmax || cfg.AlphaReal != 1 || cfg.Beta != 0 ||
			cfg.Epilogue != cublas.EpilogueDefault || !reflect.DeepEqual(cfg.LhsContracting, []int64{1}) ||
			!reflect.DeepEqual(cfg.RhsContracting, []int64{1}) || len(cfg.LhsBatch) != 0 || c.CScale == nil || c.DScale == nil {
			t.Errorf("%s: %+v", tc.file, c)
		}
		if !tc.inferred {
			if got := cfg.BackendConfigJSON(); got != c.Inst.BackendConfig().Text {
				t.Errorf("%s: BackendConfigJSON does not give the text back:\n got %s\nwant %s", tc.file, got, c.Inst.BackendConfig().Text)
			}
		}
	}
}

// TestFP8TypeTable checks the table against the rules it encodes, and that a caller changing the rows it
// got changes neither the table nor what CheckFP8Types accepts.
func TestFP8TypeTable(t *testing.T) {
	rows := cublas.FP8TypeTable()
	// Three A x B pairs with five rows each, and two more for each pair with an f8e5m2 operand.
	if len(rows) != 3*5+2*2 {
		t.Fatalf("%d rows, want 19", len(rows))
	}
	for _, r := range rows {
		if err := cublas.CheckFP8Types(r.A, r.B, r.C, r.D, r.Bias); err != nil {
			t.Errorf("%v: %v", r, err)
		}
		if r.A == dtype.F8E5M2 && r.B == dtype.F8E5M2 {
			t.Errorf("%v: f8e5m2 x f8e5m2 is not supported", r)
		}
	}
	first := rows[0]
	for i := range rows {
		rows[i] = cublas.FP8Types{A: dtype.F8E5M2, B: dtype.F8E5M2, C: dtype.F32, D: dtype.F32, Bias: dtype.F32}
	}
	if again := cublas.FP8TypeTable(); again[0] != first {
		t.Errorf("the table's first row became %v after the caller changed its copy", again[0])
	}
	if cublas.CheckFP8Types(dtype.F8E5M2, dtype.F8E5M2, dtype.F32, dtype.F32, dtype.F32) == nil {
		t.Error("CheckFP8Types accepts f8e5m2 x f8e5m2 after a caller changed its copy of the table")
	}
}

package main

import (
	"encoding/json"
	"strings"
	"testing"

	"octet/internal/shared"
)

func TestCheckRegressionModule(t *testing.T) {
	path := shared.Path(t, "examples", "bf16_dequant.xla-0.4.32.optimized.hlo")
	code, out, errs := runOctet(t, "", "check", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"1 FP8 GEMM: 0 fused, 1 not fused",
		"NOT FUSED  %gemm_fusion_dot.19.0 (dot %dot.1) in %main.25: D bf16[32,128]",
		"why: the dot %dot.1 computes in bf16 x bf16 inside the kCustom fusion %gemm_fusion_dot.19.0",
		"A: f8e4m3fn[32,64] %Arg_0.1.0 (parameter 0), dequantized in bf16 in %input_slice_fusion",
		"seen: the dot %dot.1 was claimed by the Triton GEMM fusion %gemm_fusion_dot.19.0 as bf16 x bf16 on dequantized FP8 data",
		"not a cause: ", "implies: ", "likely (inferred", "next: dump the passes",
		"the result is converted to f8e4m3fn in %loop_convert_fusion",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("octet check output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "blocked by: concatenate") {
		t.Errorf("the input fusion's concatenate, made after the GEMM rewriter, is blamed:\n%s", out)
	}
	code, _, errs = runOctet(t, "", "check", "--strict", path)
	if code != 1 || !strings.Contains(errs, "1 FP8 GEMM not fused") {
		t.Errorf("--strict: exit %d, %q", code, errs)
	}
}

func TestCheckFusedModule(t *testing.T) {
	path := shared.Path(t, "examples", "bf16_dequant.xla-0.4.31.optimized.hlo")
	code, out, errs := runOctet(t, "", "check", "--strict", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"1 FP8 GEMM: 1 fused, 0 not fused",
		"fused      %cublas-gemm.clone.1.0 = __cublas$lt$matmul$f8",
		"D f8e4m3fn[32,128] = A f8e4m3fn[32,64] %Arg_0.1.0 (parameter 0) x B f8e4m3fn[128,64] %Arg_1.2.0 (parameter 1)",
		"scales: a_scale %Arg_2.3.0 (parameter 2), b_scale %Arg_3.4.0 (parameter 3), c_scale constant 1, d_scale %Arg_4.5.0 (parameter 4)",
		"epilogue DEFAULT, no damax, alpha 1, beta 0; legacy operands",
		"no backend_config: inferred",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("octet check output lacks %q:\n%s", want, out)
		}
	}
}

// TestCheckLlamaJSON runs octet check on the FP8 training step of Llama 3.1 70B: every FP8 dot is listed
// once, with a decision and a reason.
func TestCheckLlamaJSON(t *testing.T) {
	path := shared.Path(t, "corpus", "hlo", "xla__tools__benchmarks__hlo__hlo_llama31_70b_fp8_16x8.hlo.gz")
	code, out, errs := runOctet(t, "", "check", "--json", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var files []struct {
		Modules []struct {
			GEMMs []struct {
				Name     string `json:"name"`
				Fused    bool   `json:"fused"`
				Reason   string `json:"reason"`
				Fusible  *bool  `json:"fusible"`
				FuseNote string `json:"fuse"`
				XLA      *struct {
					Fusible bool   `json:"fusible"`
					Why     string `json:"why"`
					Rule    string `json:"rule"`
					Assumes string `json:"assumes"`
					Compile []struct {
						XLA     string `json:"xla"`
						Outcome string `json:"outcome"`
					} `json:"compile"`
				} `json:"xla"`
				Octet *struct {
					Fusible bool   `json:"fusible"`
					Why     string `json:"why"`
				} `json:"octet"`
			} `json:"gemms"`
			Unfused int `json:"not_fused"`
		} `json:"modules"`
	}
	if err := json.Unmarshal([]byte(out), &files); err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || len(files[0].Modules) != 1 {
		t.Fatalf("want one file with one module: %s", out[:200])
	}
	mod := files[0].Modules[0]
	seen := map[string]bool{}
	for _, g := range mod.GEMMs {
		if seen[g.Name] {
			t.Errorf("%%%s listed twice", g.Name)
		}
		seen[g.Name] = true
		if g.Fused || g.Reason == "" || g.Fusible == nil || g.FuseNote == "" {
			t.Errorf("%%%s: no decision or reason: %+v", g.Name, g)
		}
		// The dots read FP8 values (one an all-gather of FP8 weights) directly, with two non-contracting
		// dimensions on the activation side: as the module stands, HandleDot's first gate leaves them; in a
		// compile DotDecomposer merges those dimensions first, and every release makes one FP8 call.
		if g.XLA == nil || g.Octet == nil || g.XLA.Fusible || !strings.Contains(g.XLA.Rule, "IsCublasSupportedMatMul") ||
			!strings.Contains(g.XLA.Assumes, "sm_90") || g.Octet.Fusible != *g.Fusible || g.Octet.Why == "" {
			t.Errorf("%%%s: verdicts xla %+v, octet %+v", g.Name, g.XLA, g.Octet)
			continue
		}
		if len(g.XLA.Compile) != 3 {
			t.Errorf("%%%s: %d releases predicted, want 3", g.Name, len(g.XLA.Compile))
		}
		for _, c := range g.XLA.Compile {
			if c.Outcome != "cublaslt-fp8" {
				t.Errorf("%%%s: XLA %s makes %s, want one FP8 call after DotDecomposer", g.Name, c.XLA, c.Outcome)
			}
		}
	}
	if len(mod.GEMMs) != 27 || mod.Unfused != 27 {
		t.Errorf("%d GEMMs, %d not fused; want the 27 FP8 dots of the training step", len(mod.GEMMs), mod.Unfused)
	}
	code, _, _ = runOctet(t, "", "check", "--strict", path)
	if code != 1 {
		t.Errorf("--strict on a module with FP8 dots not fused: exit %d", code)
	}
}

func TestCheckUsage(t *testing.T) {
	if code, _, _ := runOctet(t, "", "check"); code != 2 {
		t.Errorf("check with no FILE: exit %d, want 2", code)
	}
	if code, _, errs := runOctet(t, "ENTRY {", "check", "-"); code != 1 || !strings.Contains(errs, "<stdin>:1:") {
		t.Errorf("bad input: exit %d, %q", code, errs)
	}
}

// TestCheckPassDumps runs check on a folder of per-pass dumps: it names the pass that broke the fusion.
func TestCheckPassDumps(t *testing.T) {
	dir := "../../fuse/report/testdata/passes"
	code, out, errs := runOctet(t, "", "check", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"module jit_f (module_0001): 4 dumps in pass order, before_optimizations to cublas-gemm-rewriter",
		"broken by pass triton-gemm-rewriter (step 0031, module_0001.jit_f.0031.hlo_normalization.after_triton-gemm-rewriter.txt): " +
			"claimed by %gemm_fusion_dot.1 (gemm-fusion), not an FP8 call",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code, _, _ := runOctet(t, "", "check", "--strict", dir); code != 1 {
		t.Errorf("--strict on a broken fusion: exit %d, want 1", code)
	}
	if code, _, errs := runOctet(t, "", "check", "../../fuse/report"); code != 1 || !strings.Contains(errs, "no per-pass dumps") {
		t.Errorf("a folder without dumps: exit %d, %q", code, errs)
	}
}

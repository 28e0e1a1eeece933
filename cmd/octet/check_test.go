package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"octet/fuse/report"
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
	autotuned := 0
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
		// compile DotDecomposer merges those dimensions first, and 0.4.31 and 0.4.32 make one FP8 call. The
		// newest release's default xla_gpu_triton_gemm_any=true lets the Triton GEMM fusion take the dots of
		// default precision (autotuned against the FP8 call); those of precision HIGHEST still get the call.
		if g.XLA == nil || g.Octet == nil || g.XLA.Fusible || !strings.Contains(g.XLA.Rule, "IsCublasSupportedMatMul") ||
			!strings.Contains(g.XLA.Assumes, "sm_90") || g.Octet.Fusible != *g.Fusible || g.Octet.Why == "" {
			t.Errorf("%%%s: verdicts xla %+v, octet %+v", g.Name, g.XLA, g.Octet)
			continue
		}
		if len(g.XLA.Compile) != 3 {
			t.Errorf("%%%s: %d releases predicted, want 3", g.Name, len(g.XLA.Compile))
		}
		for _, c := range g.XLA.Compile {
			if c.Outcome == "autotuned" && c.XLA == "newest" {
				autotuned++
			} else if c.Outcome != "cublaslt-fp8" {
				t.Errorf("%%%s: XLA %s makes %s, want one FP8 call after DotDecomposer", g.Name, c.XLA, c.Outcome)
			}
		}
	}
	if autotuned != 13 {
		t.Errorf("newest: %d dots autotuned between Triton and the FP8 call, want the 13 of default precision", autotuned)
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

// passDumpsCopy copies package report's folder of pass dumps into a new one, each file's bytes through
// edit (nil: as they are), and returns it.
func passDumpsCopy(t *testing.T, edit func(name string, data []byte) []byte) string {
	t.Helper()
	src := "../../fuse/report/testdata/passes"
	dir := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			data = edit(e.Name(), data)
		}
		writeTemp(t, dir, e.Name(), string(data))
	}
	return dir
}

// TestCheckPassDumpsLeftOut: a file named like a dump whose name does not parse (a step number past any
// int) is left out of the walk, and check says so on stderr (it was left out silently).
func TestCheckPassDumpsLeftOut(t *testing.T) {
	dir := passDumpsCopy(t, nil)
	odd := "module_0001.jit_f.99999999999999999999999.gpu.after_dce.txt"
	writeTemp(t, dir, odd, "HloModule jit_f\n")
	code, out, errs := runOctet(t, "", "check", dir)
	if code != 0 || !strings.Contains(out, "4 dumps in pass order") ||
		!strings.Contains(errs, "left out 1 file named like dumps but not as XLA names them") || !strings.Contains(errs, odd) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
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

// TestCheckPassDumpsError checks that check DIR, which reads the dumps on several goroutines, stops at
// the first dump in pass order that does not read, with its position, whatever the others do.
func TestCheckPassDumpsError(t *testing.T) {
	dir := passDumpsCopy(t, func(name string, data []byte) []byte {
		// The second and the last dumps in pass order are cut short.
		if strings.Contains(name, ".0003.") || strings.Contains(name, ".0032.") {
			return data[:len(data)/2]
		}
		return data
	})
	code, out, errs := runOctet(t, "", "check", dir)
	if code != 1 || out != "" || !strings.Contains(errs, "module_0001.jit_f.0003.simplification.after_algsimp.txt:") ||
		strings.Contains(errs, ".0032.") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestCheckPredictsExamples checks the full-compile predictions on the examples before optimization
// (HLO and StableHLO) against what the compiled examples show: the FP8 call with XLA of JAX 0.4.31, the
// bf16 Triton GEMM with 0.4.32.
func TestCheckPredictsExamples(t *testing.T) {
	ex := func(name string) string { return filepath.Join(shared.Path(t, "examples"), name) }
	shows := func(path string) string {
		t.Helper()
		code, out, errs := runOctet(t, "", "check", "--json", path)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", path, code, errs)
		}
		var files []struct {
			Modules []struct {
				GEMMs []*report.GEMM `json:"gemms"`
			} `json:"modules"`
		}
		if err := json.Unmarshal([]byte(out), &files); err != nil || len(files) != 1 || len(files[0].Modules) != 1 ||
			len(files[0].Modules[0].GEMMs) != 1 {
			t.Fatalf("%s: %v\n%s", path, err, out)
		}
		g := files[0].Modules[0].GEMMs[0]
		if len(g.XLA.Compile) != 0 {
			t.Errorf("%s: a compile is predicted for a compiled module", path)
		}
		return g.Outcome()
	}
	for _, c := range []struct{ before, old, new string }{
		{ex("bf16_dequant.before.hlo"), ex("bf16_dequant.xla-0.4.31.optimized.hlo"), ex("bf16_dequant.xla-0.4.32.optimized.hlo")},
		{ex("bf16_dequant.stablehlo.mlir"), ex("bf16_dequant.xla-0.4.31.optimized.hlo"), ex("bf16_dequant.xla-0.4.32.optimized.hlo")},
		{example("dense_fp8.before.hlo"), example("dense_fp8.xla-0.4.31.hlo"), example("dense_fp8.xla-0.4.32.hlo")},
	} {
		code, out, errs := runOctet(t, "", "check", "--json", c.before)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.before, code, errs)
		}
		var files []struct {
			Modules []struct {
				GEMMs []*report.GEMM `json:"gemms"`
			} `json:"modules"`
		}
		if err := json.Unmarshal([]byte(out), &files); err != nil || len(files[0].Modules[0].GEMMs) != 1 {
			t.Fatalf("%s: %v", c.before, err)
		}
		predicted := map[string]string{}
		for _, o := range files[0].Modules[0].GEMMs[0].XLA.Compile {
			predicted[o.XLA] = o.Outcome
		}
		for release, compiled := range map[string]string{"0.4.31": c.old, "0.4.32": c.new} {
			if got, want := predicted[release], shows(compiled); got != want || want == "" {
				t.Errorf("%s: XLA %s predicted %q, and %s shows %q", filepath.Base(c.before), release, got, filepath.Base(compiled), want)
			}
		}
	}
}

// TestCheckTarget checks --xla, --gpu and --xla-flags: the verdict names them, and bad values are usage
// errors.
func TestCheckTarget(t *testing.T) {
	path := example("dense_fp8.before.hlo")
	code, out, errs := runOctet(t, "", "check", "--xla=0.4.31", "--gpu=sm_89", path)
	if code != 0 || !strings.Contains(out, "XLA (0.4.31, sm_89): ") || !strings.Contains(out, "in a compile on sm_89: 0.4.31 cublaslt-fp8") {
		t.Errorf("exit %d: %s%s", code, out, errs)
	}
	code, out, _ = runOctet(t, "", "check", "--gpu=sm_80", "--json", path)
	if code != 0 || !strings.Contains(out, `"assumes": "XLA newest; sm_80`) || !strings.Contains(out, "compute capability 8.0") {
		t.Errorf("sm_80: exit %d:\n%s", code, out)
	}
	code, out, _ = runOctet(t, "", "check", "--xla-flags=--xla_gpu_enable_triton_gemm=false", path)
	if code != 0 || !strings.Contains(out, "0.4.32 cublaslt-fp8") || !strings.Contains(out, "--xla_gpu_enable_triton_gemm=false") {
		t.Errorf("triton off: exit %d:\n%s", code, out)
	}
	for _, args := range [][]string{{"--xla=0.4.20"}, {"--gpu=sm_70"}, {"--xla-flags=--xla_dump_to=/tmp"}, {"--xla-flags=--xla_gpu_enable_triton_gemm=perhaps"}} {
		if code, _, errs := runOctet(t, "", append(append([]string{"check"}, args...), path)...); code != 2 || errs == "" {
			t.Errorf("%v: exit %d, %q; want a usage error", args, code, errs)
		}
	}
}

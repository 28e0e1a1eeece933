package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// example is the path of a program of the repository's examples folder.
func example(name string) string { return filepath.Join("..", "..", "examples", name) }

// verifyCheckPrint runs verify, check and print on the program at path: it verifies, check's output holds
// every line of want, and every print format prints it.
func verifyCheckPrint(t *testing.T, path string, want []string) {
	t.Helper()
	if code, out, errs := runOctet(t, "", "verify", path); code != 0 || !strings.Contains(out, ": ok (") {
		t.Fatalf("verify: exit %d: %s%s", code, out, errs)
	}
	code, out, errs := runOctet(t, "", "check", path)
	if code != 0 {
		t.Fatalf("check: exit %d: %s", code, errs)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("check output lacks %q:\n%s", w, out)
		}
	}
	for _, format := range []string{"readable", "xla", "json"} {
		if code, out, errs := runOctet(t, "", "print", "--format="+format, path); code != 0 || !strings.Contains(out, "jit_") {
			t.Errorf("print --format=%s: exit %d: %s", format, code, errs)
		}
	}
}

// TestExamples runs every command on the examples a fresh clone has, and checks the verdicts the examples'
// README promises.
func TestExamples(t *testing.T) {
	for _, tc := range []struct {
		file    string
		check   []string // in the output of octet check
		strict  int      // exit status of octet check --strict
		epilog  string   // epilogue octet fuse gives the dot ("": no dot left to rewrite)
		damax   bool
		outputs int // arrays octet run prints
	}{
		{"dense_fp8.before.hlo", []string{"1 FP8 GEMM: 0 fused, 1 not fused (1 of them fusible by octet fuse)", "NOT FUSED  %y in %main: D bf16[16,64]"}, 1, "DEFAULT", false, 1},
		{"dense_fp8.xla-0.4.31.hlo", []string{"1 FP8 GEMM: 1 fused, 0 not fused", "fused      %cublas-gemm.2.0 = __cublas$lt$matmul$f8", "epilogue DEFAULT, no damax, alpha 1, beta 0; legacy operands"}, 0, "", false, 1},
		{"dense_fp8.xla-0.4.32.hlo", []string{"1 FP8 GEMM: 0 fused, 1 not fused", "NOT FUSED  %gemm_fusion_dot.7.0 (dot %dot.3)", "computes in bf16 x bf16 inside the kCustom fusion"}, 1, "", false, 1},
		{"relu_amax.before.hlo", []string{"1 FP8 GEMM: 0 fused, 1 not fused (1 of them fusible by octet fuse)", "epilogue RELU, D f8e4m3fn, alpha 1, beta 0, with damax"}, 1, "RELU", true, 2},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := example(tc.file)
			verifyCheckPrint(t, path, tc.check)
			if code, _, errs := runOctet(t, "", "check", "--strict", path); code != tc.strict {
				t.Errorf("check --strict: exit %d, want %d: %s", code, tc.strict, errs)
			}
			code, out, errs := runOctet(t, "", "fuse", "--json", path)
			if code != 0 {
				t.Fatalf("fuse --json: exit %d: %s", code, errs)
			}
			var fused struct {
				GEMMs []struct {
					Fused    bool   `json:"fused"`
					Epilogue string `json:"epilogue"`
					Damax    bool   `json:"damax"`
				} `json:"gemms"`
			}
			if err := json.Unmarshal([]byte(out), &fused); err != nil {
				t.Fatalf("fuse --json: %v:\n%s", err, out)
			}
			switch {
			case tc.epilog == "" && len(fused.GEMMs) != 0:
				t.Errorf("fuse found %d dots to rewrite in a compiled module, want none", len(fused.GEMMs))
			case tc.epilog != "" && (len(fused.GEMMs) != 1 || !fused.GEMMs[0].Fused || fused.GEMMs[0].Epilogue != tc.epilog || fused.GEMMs[0].Damax != tc.damax):
				t.Errorf("fuse: %+v, want one fused GEMM with epilogue %s, damax %v", fused.GEMMs, tc.epilog, tc.damax)
			}
			code, out, errs = runOctet(t, "", "run", "--random", "1", path)
			if code != 0 {
				t.Fatalf("run: exit %d: %s", code, errs)
			}
			if n := strings.Count(out, "nan 0  inf 0"); n != tc.outputs {
				t.Errorf("run: %d finite outputs, want %d:\n%s", n, tc.outputs, out)
			}
		})
	}
}

// TestExamplesDiff compares the two compiled examples: the fusion the older XLA made is lost in the newer.
func TestExamplesDiff(t *testing.T) {
	a, b := example("dense_fp8.xla-0.4.31.hlo"), example("dense_fp8.xla-0.4.32.hlo")
	code, out, errs := runOctet(t, "", "diff", "--fail-on-regression", a, b)
	if code != 1 || !strings.Contains(errs, "regression: 1 FP8 GEMM fused in") {
		t.Errorf("diff --fail-on-regression: exit %d, stderr %q", code, errs)
	}
	if !strings.Contains(out, "1 lost, 0 gained, 0 changed, 0 the same") {
		t.Errorf("diff output:\n%s", out)
	}
	if code, out, errs := runOctet(t, "", "diff", "--fail-on-regression", a, a); code != 0 || !strings.Contains(out, "0 lost, 0 gained, 0 changed, 1 the same") {
		t.Errorf("diff of a module with itself: exit %d: %s%s", code, out, errs)
	}
}

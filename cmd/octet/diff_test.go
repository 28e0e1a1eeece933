package main

import (
	"encoding/json"
	"strings"
	"testing"

	"octet/internal/shared"
)

func TestDiffRegression(t *testing.T) {
	old := shared.Path(t, "examples", "bf16_dequant.xla-0.4.31.optimized.hlo")
	new := shared.Path(t, "examples", "bf16_dequant.xla-0.4.32.optimized.hlo")
	code, out, errs := runOctet(t, "", "diff", "--fail-on-regression", old, new)
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, errs)
	}
	for _, want := range []string{"LOST (fused in A, not in B): 1", "p0:f8e4m3fn[32,64] x p1:f8e4m3fn[128,64], k=64",
		"fused in A as %cublas-gemm.clone.1.0 (__cublas$lt$matmul$f8, epilogue DEFAULT, D f8e4m3fn); not fused in B: %gemm_fusion_dot.19.0 (dot %dot.1)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, "regression: 1 FP8 GEMM fused in") || !strings.Contains(errs, "%cublas-gemm.clone.1.0") ||
		!strings.Contains(errs, "became %gemm_fusion_dot.19.0 (dot %dot.1)") {
		t.Errorf("the failure does not name the lost fusion: %q", errs)
	}
	if code, _, _ := runOctet(t, "", "diff", old, new); code != 0 {
		t.Errorf("without --fail-on-regression: exit %d", code)
	}
	code, out, _ = runOctet(t, "", "diff", "--fail-on-regression", "--json", new, old)
	if code != 0 {
		t.Errorf("new -> old gains a fusion: exit %d", code)
	}
	var d struct {
		Regressed bool              `json:"regressed"`
		Gained    []json.RawMessage `json:"gained"`
		Lost      []json.RawMessage `json:"lost"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if d.Regressed || len(d.Gained) != 1 || len(d.Lost) != 0 {
		t.Errorf("new -> old: %s", out)
	}
}

func TestDiffUsage(t *testing.T) {
	old := shared.Path(t, "examples", "bf16_dequant.xla-0.4.31.optimized.hlo")
	if code, _, _ := runOctet(t, "", "diff", old); code != 2 {
		t.Errorf("one FILE: exit %d, want 2", code)
	}
}

// TestDiffPairsFusedCall diffs a module with padded sizes against what octet fuse makes of it, printed and
// read back: --json pairs the dot with the padded call, by dataflow, and reports it gained. On the Llama
// 3.1 70B training step, every one of the 27 dots is paired with its call by dataflow.
func TestDiffPairsFusedCall(t *testing.T) {
	llama := shared.Path(t, "corpus", "hlo", "xla__tools__benchmarks__hlo__hlo_llama31_70b_fp8_16x8.hlo.gz")
	code, fused, errs := runOctet(t, "", "fuse", "--format=xla", llama)
	if code != 0 {
		t.Fatalf("fuse: exit %d: %s", code, errs)
	}
	code, out, errs := runOctet(t, fused, "diff", "--json", llama, "-")
	if code != 0 {
		t.Fatalf("diff: exit %d: %s", code, errs)
	}
	var ld struct {
		Gained    []json.RawMessage     `json:"gained"`
		Pairs     []struct{ By string } `json:"pairs"`
		Ambiguous int                   `json:"ambiguous"`
	}
	if err := json.Unmarshal([]byte(out), &ld); err != nil {
		t.Fatal(err)
	}
	if len(ld.Gained) != 27 || ld.Ambiguous != 0 || len(ld.Pairs) != 27 {
		t.Errorf("Llama: %d gained, %d pairs, %d ambiguous", len(ld.Gained), len(ld.Pairs), ld.Ambiguous)
	}
	for _, p := range ld.Pairs {
		if p.By != "dataflow" {
			t.Errorf("Llama: a pair made by %q", p.By)
		}
	}

	path := shared.Path(t, "corpus", "fp8", "09_ScaledABUnscaledDPaddedF8.hlo")
	code, fused, errs = runOctet(t, "", "fuse", "--format=xla", path)
	if code != 0 {
		t.Fatalf("fuse: exit %d: %s", code, errs)
	}
	code, out, errs = runOctet(t, fused, "diff", "--json", path, "-")
	if code != 0 {
		t.Fatalf("diff: exit %d: %s", code, errs)
	}
	var d struct {
		Gained []json.RawMessage `json:"gained"`
		Lost   []json.RawMessage `json:"lost"`
		Pairs  []struct {
			A, B, By string
		} `json:"pairs"`
		Ambiguous int `json:"ambiguous"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Gained) != 1 || len(d.Lost) != 0 || d.Ambiguous != 0 || len(d.Pairs) != 1 ||
		d.Pairs[0].A != "out" || d.Pairs[0].B != "cublas-gemm" || d.Pairs[0].By != "dataflow" {
		t.Errorf("diff: %s", out)
	}
}

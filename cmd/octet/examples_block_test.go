package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// exampleModules counts the modules octet serve finds in the examples folder: its .hlo files.
func exampleModules(t *testing.T) int {
	t.Helper()
	files, err := filepath.Glob(example("*.hlo"))
	if err != nil {
		t.Fatal(err)
	}
	return len(files)
}

// blockExamples are the MXFP8 dense layer's files and what octet check says of each.
var blockExamples = []struct {
	file  string
	check []string
}{
	{"dense_mxfp8.before.hlo", []string{"BLOCK-SCALED, made on Blackwell %y in %main", "__op$block_scaled_dot, MXFP8 (f8e4m3fn x f8e4m3fn)",
		"call: __cudnn$blockScaledDot", "on Hopper (sm_90): dequantized in the result type and run as a dot"}},
	{"dense_mxfp8.before.mlir", []string{"BLOCK-SCALED, made on Blackwell", "__op$block_scaled_dot, MXFP8 (f8e4m3fn x f8e4m3fn)"}},
	{"dense_mxfp8.xla-sm100.hlo", []string{"block-scaled, made %cudnn in %main", "seen: the module holds cuDNN's block-scaled GEMM call"}},
	{"dense_mxfp8.xla-sm90.hlo", []string{"BLOCK-SCALED, NOT MADE %call (%dot) in %main", "seen: XLA dequantized the blocks in bf16 and ran a dot",
		"rule: gpu generation"}},
	{"dense_mxfp8.dequantized.hlo", []string{"BLOCK-SCALED, NOT MADE %y in %main", "rule: pattern",
		"octet fuse: makes it one scaled-dot"}},
}

// TestBlockExamples runs every command on the MXFP8 examples and checks the verdicts the examples' README
// promises; run gives the same bits on every form of the layer (the definitions coincide on these
// inputs: every dequantized value is exact in bf16).
func TestBlockExamples(t *testing.T) {
	dir := t.TempDir()
	var outputs [][]byte
	for _, tc := range blockExamples {
		t.Run(tc.file, func(t *testing.T) {
			path := example(tc.file)
			verifyCheckPrint(t, path, tc.check)
			if code, out, errs := runOctet(t, "", "check", "--json", path); code != 0 || !strings.Contains(out, `"block_scaled": {`) {
				t.Errorf("check --json: exit %d: %s %s", code, errs, out)
			}
			for _, args := range [][]string{{"export", "--format=dot", path}, {"export", "--format=model-explorer", path},
				{"report", "-o", filepath.Join(dir, tc.file+".html"), path}} {
				if code, _, errs := runOctet(t, "", args...); code != 0 {
					t.Errorf("%s: exit %d: %s", args[0], code, errs)
				}
			}
			npz := filepath.Join(dir, tc.file+".npz")
			code, out, errs := runOctet(t, "", "run", "--random", "1", "-o", npz, path)
			if code != 0 || strings.Count(out, "nan 0  inf 0") != 1 {
				t.Fatalf("run: exit %d: %s%s", code, out, errs)
			}
			data, err := os.ReadFile(npz)
			if err != nil {
				t.Fatal(err)
			}
			outputs = append(outputs, data)
		})
	}
	for i := 1; i < len(outputs); i++ {
		if !bytes.Equal(outputs[0], outputs[i]) {
			t.Errorf("run: %s and %s give different bits", blockExamples[0].file, blockExamples[i].file)
		}
	}
}

// TestBlockExamplesFuse rewrites the written-out dequantize into a scaled-dot and into cuDNN's call, each
// verified against the original.
func TestBlockExamplesFuse(t *testing.T) {
	path := example("dense_mxfp8.dequantized.hlo")
	for _, target := range []string{"scaled-dot", "cudnn"} {
		code, out, errs := runOctet(t, "", "fuse", "--block-target="+target, "--verify", path)
		if code != 0 || !strings.Contains(out, "8192 of 8192 elements bit-identical") || !strings.Contains(out, "// verify: ok") {
			t.Errorf("fuse --block-target=%s --verify: exit %d: %s\n%s", target, code, errs, out)
		}
		want := map[string]string{"scaled-dot": "scaled-dot(", "cudnn": `custom_call_target="__cudnn$blockScaledDot"`}[target]
		if !strings.Contains(out, want) {
			t.Errorf("fuse --block-target=%s: no %s in\n%s", target, want, out)
		}
	}
	code, out, _ := runOctet(t, "", "fuse", "--json", path)
	var res struct {
		GEMMs []struct {
			Fused  bool   `json:"fused"`
			Target string `json:"target"`
		} `json:"gemms"`
	}
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil || len(res.GEMMs) != 1 || !res.GEMMs[0].Fused || res.GEMMs[0].Target != "scaled-dot" {
		t.Errorf("fuse --json: exit %d, %v: %s", code, err, out)
	}
	if code, _, errs := runOctet(t, "", "fuse", "--block-target=cublas", path); code != 2 || !strings.Contains(errs, "scaled-dot or cudnn") {
		t.Errorf("fuse --block-target=cublas: exit %d: %s", code, errs)
	}
}

// TestBlockExamplesDiff compares the layer compiled for Blackwell (cuDNN's block-scaled call) with the
// layer compiled for Hopper (dequantized, then a dot): the block-scaled call is lost.
func TestBlockExamplesDiff(t *testing.T) {
	a, b := example("dense_mxfp8.xla-sm100.hlo"), example("dense_mxfp8.xla-sm90.hlo")
	code, out, errs := runOctet(t, "", "diff", "--fail-on-regression", a, b)
	if code != 1 || !strings.Contains(out, "1 lost, 0 gained, 0 changed, 0 the same") || !strings.Contains(out, "fused in A as %cudnn (__cudnn$blockScaledDot") {
		t.Errorf("diff: exit %d: %s\n%s", code, errs, out)
	}
	if code, out, _ := runOctet(t, "", "diff", example("dense_mxfp8.before.hlo"), a); code != 0 || !strings.Contains(out, "0 lost, 1 gained") {
		t.Errorf("diff before -> sm100: exit %d:\n%s", code, out)
	}
	// The StableHLO form converts to the HLO one's GEMM.
	if code, out, errs := runOctet(t, "", "convert", example("dense_mxfp8.before.mlir")); code != 0 || !strings.Contains(out, `custom_call_target="__op$block_scaled_dot"`) {
		t.Errorf("convert: exit %d: %s\n%s", code, errs, out)
	}
}

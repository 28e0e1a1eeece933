package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"octet/internal/shared"
)

const smallModule = `HloModule small, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

ENTRY %main (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0), metadata={op_name="p"}
  ROOT %n = f32[4]{0} negate(f32[4]{0} %p), metadata={op_name="neg"}
}

`

func TestPrintCompiledExample(t *testing.T) {
	path := shared.Path(t, "examples", "fp8_matmul.compiled.hlo")
	code, out, errOut := runOctet(t, "", "print", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"    // cuBLASLt FP8 GEMM: D f8e5m2[128,128] = f8e4m3fn[128,128] × f8e5m2[128,128]ᵀ, a_scale=constant_1 b_scale=constant_1 c_scale=constant_1 d_scale=constant_1, epilogue DEFAULT, alpha 1, beta 0, no amax",
		"    backend_config={\n      \"operation_queue_id\": \"0\",\n",
		"        \"epilogue\": \"DEFAULT\",\n",
		"        \"dot_dimension_numbers\": {\n          \"lhs_contracting_dimensions\": [\"1\"],\n",
		"ENTRY main.4 (Arg_0.1.0: f8e4m3fn[128,128], Arg_1.2.0: f8e5m2[128,128]) -> f8e5m2[128,128] {",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"metadata", "source_line", "fingerprint", "\x1b["} {
		if strings.Contains(out, unwanted) {
			t.Errorf("output contains %q:\n%s", unwanted, out)
		}
	}

	// The xla format gives back what XLA printed.
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runOctet(t, "", "print", "--format=xla", path)
	if code != 0 || strings.TrimRight(out, "\n") != strings.TrimRight(string(src), "\n") {
		t.Errorf("--format=xla: exit %d %s\n%s", code, errOut, out)
	}

	// Without backend_config the summary says it inferred the configuration.
	code, out, _ = runOctet(t, "", "print", shared.Path(t, "examples", "bf16_dequant.xla-0.4.31.optimized.hlo"))
	if code != 0 || !strings.Contains(out, "[inferred: no backend_config]") {
		t.Errorf("bf16_dequant.xla-0.4.31: exit %d\n%s", code, out)
	}
}

func TestPrintFormats(t *testing.T) {
	dir := t.TempDir()
	file := writeTemp(t, dir, "small.hlo", smallModule)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(smallModule))
	zw.Close()
	gzFile := writeTemp(t, dir, "small.hlo.gz", gz.String())

	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"readable", "", []string{file}, "HloModule small\n\nENTRY main (p: f32[4]) -> f32[4] {\n  p = f32[4] parameter(0)\n  ROOT n = f32[4] negate(p)\n}\n"},
		{"xla", "", []string{"--format=xla", file}, smallModule},
		{"xla from gzip", "", []string{"--format", "xla", gzFile}, smallModule},
		{"xla from stdin", smallModule, []string{"--format=xla", "-"}, smallModule},
		{"flags after the file", "", []string{file, "--format=xla-short"}, "HloModule small, entry_computation_layout={(f32[4]{0})->f32[4]{0}}\n\nENTRY main {\n  p = f32[4]{0} parameter(0)\n  ROOT n = f32[4]{0} negate(p)\n}\n\n"},
		{"xla-short with metadata", "", []string{"--format=xla-short", "--metadata", file}, "HloModule small, entry_computation_layout={(f32[4]{0})->f32[4]{0}}\n\nENTRY main {\n  p = f32[4]{0} parameter(0), metadata={op_name=\"p\"}\n  ROOT n = f32[4]{0} negate(p), metadata={op_name=\"neg\"}\n}\n\n"},
		{"readable with metadata", "", []string{"--metadata", file}, "HloModule small\n\nENTRY main (p: f32[4]) -> f32[4] {\n  p = f32[4] parameter(0), metadata={op_name=\"p\"}\n  ROOT n = f32[4] negate(p), metadata={op_name=\"neg\"}\n}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runOctet(t, tc.stdin, append([]string{"print"}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if out != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", out, tc.want)
			}
		})
	}

	code, out, _ := runOctet(t, "", "print", "--format=json", file)
	var doc map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc["name"] != "small" {
		t.Errorf("--format=json: exit %d\n%s", code, out)
	}
}

func TestPrintColor(t *testing.T) {
	file := writeTemp(t, t.TempDir(), "small.hlo", smallModule)
	if _, out, _ := runOctet(t, "", "print", "--color=always", file); !strings.Contains(out, "\x1b[") {
		t.Errorf("--color=always: no colour:\n%s", out)
	}
	// In tests standard output is not a terminal, so auto means none.
	if _, out, _ := runOctet(t, "", "print", file); strings.Contains(out, "\x1b[") {
		t.Errorf("--color=auto: colour on a non-terminal")
	}
	if _, out, _ := runOctet(t, "", "print", "--color=always", "--format=xla", file); strings.Contains(out, "\x1b[") {
		t.Errorf("colour in the xla format")
	}
}

func TestPrintErrors(t *testing.T) {
	dir := t.TempDir()
	bad := writeTemp(t, dir, "bad.hlo", "HloModule bad\n\nENTRY e {\n  ROOT x = f32[] frobnicate()\n}\n")
	good := writeTemp(t, dir, "good.hlo", smallModule)
	twins := writeTemp(t, dir, "twins.hlo", "HloModule same\n\nENTRY e {\n  ROOT c = f32[] constant(1)\n}\n\n// -----\n\nHloModule same\n\nENTRY e {\n  ROOT c = f32[] constant(2)\n}\n")
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"print", bad}, 1, bad + ":4:"},
		{[]string{"print", filepath.Join(dir, "missing.hlo")}, 1, "missing.hlo"},
		{[]string{"print", "--format=fancy", good}, 2, "unknown format"},
		{[]string{"print", "--color=sometimes", good}, 2, "--color"},
		{[]string{"print"}, 2, "one FILE"},
		{[]string{"print", good, good}, 2, "one FILE"},
		{[]string{"print", "--module=other", good}, 1, good + ": no module named \"other\""},
		{[]string{"print", "--module=same", twins}, 1, twins + ": 2 modules are named \"same\" (lines 1, 9): --module cannot tell them apart"},
		{[]string{"run", "--module=same", twins}, 1, twins + ": 2 modules are named \"same\" (lines 1, 9)"},
	} {
		code, _, errOut := runOctet(t, "", tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.msg) {
			t.Errorf("octet %q: exit %d, stderr %q; want exit %d and %q", tc.args, code, errOut, tc.code, tc.msg)
		}
	}
}

func TestPrintSeveralModules(t *testing.T) {
	second := strings.ReplaceAll(smallModule, "small", "second")
	file := writeTemp(t, t.TempDir(), "two.hlo", smallModule+"// -----\n\n"+second)
	code, out, errOut := runOctet(t, "", "print", "--format=xla", file)
	if code != 0 || out != smallModule+"// -----\n\n"+second {
		t.Errorf("exit %d %s:\n%s", code, errOut, out)
	}
	code, out, _ = runOctet(t, "", "print", "--format=xla", "--module=second", file)
	if code != 0 || out != second {
		t.Errorf("--module=second: exit %d\n%s", code, out)
	}
	code, out, _ = runOctet(t, "", "print", "--format=json", file)
	var docs []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &docs) != nil || len(docs) != 2 {
		t.Errorf("--format=json of two modules is not an array of two: exit %d\n%s", code, out)
	}
}

func TestPrintDumpFolder(t *testing.T) {
	dir := t.TempDir()
	before := strings.ReplaceAll(smallModule, "small", "jit_f")
	after := strings.ReplaceAll(before, "negate", "abs")
	writeTemp(t, dir, "module_0001.jit_f.before_optimizations.txt", before)
	writeTemp(t, dir, "module_0001.jit_f.sm_9.0_gpu_after_optimizations.txt", after)
	writeTemp(t, dir, "module_0002.jit_g.before_optimizations.txt", strings.ReplaceAll(smallModule, "small", "jit_g"))
	writeTemp(t, dir, "module_0001.jit_f.ir-no-opt.ll", "; ModuleID = 'jit_f'\n")
	writeTemp(t, dir, "module_0001.jit_f.sm_9.0_gpu_after_optimizations-buffer-assignment.txt", "BufferAssignment:\n")

	code, out, errOut := runOctet(t, "", "print", dir)
	if code != 0 {
		t.Fatalf("listing: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"3 HLO module files", "module_0001.jit_f.before_optimizations.txt", "jit_f",
		"sm 9.0 gpu after optimizations", "1 computation, 2 instructions", "module_0002.jit_g.before_optimizations.txt"} {
		if !strings.Contains(out, want) {
			t.Errorf("listing lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, ".ll") || strings.Contains(out, "buffer-assignment") {
		t.Errorf("listing shows files that are not HLO:\n%s", out)
	}

	for _, tc := range []struct {
		module, want string
	}{
		{"jit_g", "negate"},
		{"module_0001.jit_f.sm_9.0_gpu_after_optimizations.txt", "abs"},
		{"module_0001.jit_f.before_optimizations", "negate"},
		{"module_0002", "negate"},
	} {
		code, out, errOut := runOctet(t, "", "print", "--module", tc.module, dir)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("--module %s: exit %d %s\n%s", tc.module, code, errOut, out)
		}
	}
	code, _, errOut = runOctet(t, "", "print", "--module=jit_f", dir)
	if code != 2 || !strings.Contains(errOut, "matches 2 files") ||
		!strings.Contains(errOut, "--module module_0001.jit_f.before_optimizations.txt") {
		t.Errorf("ambiguous --module: exit %d, stderr:\n%s", code, errOut)
	}
	code, _, errOut = runOctet(t, "", "print", "--module=jit_h", dir)
	if code != 1 || !strings.Contains(errOut, "jit_f, jit_g") {
		t.Errorf("unknown --module: exit %d, stderr:\n%s", code, errOut)
	}
}

// TestPrintStableHLO checks both prints of StableHLO: the text without locations, each op noted with its
// Python line, and with --format=hlo the converted HLO; HLO text prints the same under both formats.
func TestPrintStableHLO(t *testing.T) {
	const file = "../../stablehlo/testdata/two_fp8_matmuls_debug.mlir"
	code, out, errOut := runOctet(t, "", "print", file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "stablehlo.dot_general %9, %10, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<32x128xbf16>, tensor<16x128xbf16>) -> tensor<32x16xbf16>  // /home/user/layers.py:4\n") ||
		strings.Contains(out, "loc(") || strings.Contains(out, "HloModule") {
		t.Errorf("readable StableHLO:\n%s", out)
	}
	code, out, errOut = runOctet(t, "", "print", "--format=hlo", file)
	if code != 0 || !strings.HasPrefix(out, "HloModule jit_mlp") || !strings.Contains(out, "dot(") || strings.Contains(out, "stablehlo.") {
		t.Errorf("--format=hlo: exit %d %s\n%s", code, errOut, out)
	}
	_, readable, _ := runOctet(t, smallModule, "print", "-")
	code, hlo, _ := runOctet(t, smallModule, "print", "--format=hlo", "-")
	if code != 0 || hlo != readable || !strings.Contains(hlo, "negate(p)") {
		t.Errorf("HLO text under --format=hlo:\n%s\nreadable:\n%s", hlo, readable)
	}
	if code, _, errOut := runOctet(t, "", "print", "--module", "jit_mlp", file); code != 2 || !strings.Contains(errOut, "--format=hlo") {
		t.Errorf("--module on StableHLO: exit %d, %s", code, errOut)
	}
	code, _, errOut = runOctet(t, "module {\n  func.func @main() {\n    %0 = stablehlo.constant dense<1> : tensor<i32> loc(\n", "print", "-")
	if code == 0 || !strings.Contains(errOut, "<stdin>:3:") {
		t.Errorf("a broken location: exit %d, %s", code, errOut)
	}
}

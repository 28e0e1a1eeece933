package report_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"weak"

	"octet/fuse/report"
	"octet/fuse/xlarules"
	"octet/hlo"
)

// TestPasses walks the hand-built pass sequence of testdata/passes, in the order of XLA 0.4.32's
// OptimizeHloPostLayoutAssignment: the bf16 dequantize XLA's FP8 rules accept is taken, with the dot, by
// the Triton GEMM fusion (triton-gemm-rewriter), which runs before the FP8 rewrite (cublas-gemm-rewriter).
func TestPasses(t *testing.T) {
	dumps, mods := loadPassDumps(t, filepath.Join("testdata", "passes"))
	var passes []string
	for _, d := range dumps {
		passes = append(passes, d.Pass)
	}
	if want := "before_optimizations algsimp triton-gemm-rewriter cublas-gemm-rewriter"; strings.Join(passes, " ") != want {
		t.Fatalf("passes %q, want %q", strings.Join(passes, " "), want)
	}
	fs := report.Passes(dumps, mods)
	if len(fs) != 1 {
		t.Fatalf("%d findings, want 1", len(fs))
	}
	f := fs[0]
	if !f.Broken || f.Pass != "triton-gemm-rewriter" || f.Step != 31 || !strings.Contains(f.What, "claimed by %gemm_fusion_dot.1 (gemm-fusion)") ||
		!strings.Contains(f.What, "on dequantized FP8 data") {
		t.Errorf("finding %+v", *f)
	}
}

// TestPassTrackerKeepsNoModule follows the dumps of testdata/passes one at a time, as octet check DIR
// does: it finds what Passes finds, and once the next dump is added a dump's module is no longer
// reachable from the tracker (a folder of dumps need not fit in memory; the last one's report holds it).
func TestPassTrackerKeepsNoModule(t *testing.T) {
	dir := filepath.Join("testdata", "passes")
	dumps, _ := loadPassDumps(t, dir)
	tr := report.NewPassTracker(xlarules.DefaultTarget())
	var added []weak.Pointer[hlo.Module]
	for _, d := range dumps {
		m := load(t, filepath.Join(dir, d.File))
		tr.Add(d, m)
		added = append(added, weak.Make(m))
	}
	runtime.GC()
	for i, w := range added[:len(added)-1] {
		if w.Value() != nil {
			t.Errorf("the module of %s is still reachable", dumps[i].File)
		}
	}
	fs := tr.Findings()
	if len(fs) != 1 || !fs[0].Broken || fs[0].Pass != "triton-gemm-rewriter" {
		t.Errorf("findings %+v", fs)
	}
	runtime.KeepAlive(tr)
}

func TestParsePassDump(t *testing.T) {
	for _, c := range []struct {
		name string
		ok   bool
		want report.PassDump
	}{
		{"module_0042.jit_train.step.0137.gpu-post-layout.after_cublas-gemm-rewriter.txt", true,
			report.PassDump{ModuleID: 42, Name: "jit_train.step", Step: 137, Pipeline: "gpu-post-layout", Pass: "cublas-gemm-rewriter"}},
		{"module_0001.jit_f.before_optimizations.txt", true, report.PassDump{ModuleID: 1, Name: "jit_f", Step: -1, Pass: "before_optimizations"}},
		{"module_0001.jit_f.sm_9.0_gpu_after_optimizations.txt", false, report.PassDump{}},
		{"notes.txt", false, report.PassDump{}},
		// %04d writes a step past 9999 with five digits.
		{"module_0003.jit_f.12345.gpu-post-layout.after_dce.txt", true,
			report.PassDump{ModuleID: 3, Name: "jit_f", Step: 12345, Pipeline: "gpu-post-layout", Pass: "dce"}},
		{"module_0003.jit_f.99999999999999999999999.gpu.after_dce.txt", false, report.PassDump{}},
		{"module_99999999999999999999.jit_f.before_optimizations.txt", false, report.PassDump{}},
		{"module_0003.jit_f.0001.gpu.after_two\nlines.txt", false, report.PassDump{}},
	} {
		d, ok := report.ParsePassDump(c.name)
		c.want.File = c.name
		if ok != c.ok || ok && d != c.want {
			t.Errorf("%s: %+v %v, want %+v %v", c.name, d, ok, c.want, c.ok)
		}
	}
	// A name like a dump's that ParsePassDump does not read is one a walk of a folder must mention.
	for name, want := range map[string]bool{
		"module_0003.jit_f.99999999999999999999999.gpu.after_dce.txt": true,
		"module_99999999999999999999.jit_f.before_optimizations.txt":  true,
		"module_0003.jit_f.0001.gpu.after_two\nlines.txt":             true,
		"module_0003.jit_f.0001.gpu.after_dce.txt":                    false, // read
		"module_0001.jit_f.sm_9.0_gpu_after_optimizations.txt":        false, // another kind of dump
		"notes.txt": false,
	} {
		if got := report.LooksLikePassDump(name); got != want {
			t.Errorf("%q: LooksLikePassDump %v, want %v", name, got, want)
		}
	}
}

// loadPassDumps reads the pass dumps of dir in pass order, and their modules.
func loadPassDumps(t *testing.T, dir string) ([]report.PassDump, []*hlo.Module) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var dumps []report.PassDump
	for _, e := range entries {
		if d, ok := report.ParsePassDump(e.Name()); ok {
			dumps = append(dumps, d)
		}
	}
	report.SortPassDumps(dumps)
	var mods []*hlo.Module
	for _, d := range dumps {
		mods = append(mods, load(t, filepath.Join(dir, d.File)))
	}
	return dumps, mods
}

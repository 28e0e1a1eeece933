package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"octet/internal/shared"
)

var (
	hrefRe   = regexp.MustCompile(`href="([^"]*)"`)
	idRe     = regexp.MustCompile(` id="([^"]*)"`)
	gemmRowR = regexp.MustCompile(`<tr class="(?:fused|not-fused)" data-gemm="([^"]*)">`)
	sectionR = regexp.MustCompile(`<section class="gemm" id="[^"]*" data-gemm="([^"]*)">\s*<h3>[^\n]*\n<div class="split"><div>\s*<svg `)
)

// checkSelfContained asserts that a page makes no request: no element loads anything (no src, no <link>,
// no @import, no url() but a fragment), every link is a fragment of the page naming an element it has, and
// the only absolute URL is the SVG namespace.
func checkSelfContained(t *testing.T, page string) {
	t.Helper()
	for _, bad := range []string{" src=", "<link", "@import", "<iframe", "<object", "<embed"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	for _, m := range regexp.MustCompile(`url\(([^)]*)\)`).FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(m[1], "#") {
			t.Errorf("the page loads %s", m[0])
		}
	}
	if rest := strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, ""); regexp.MustCompile(`(?i)(https?:)?//[a-z0-9]`).MatchString(rest) {
		t.Errorf("the page names an absolute URL: %s", regexp.MustCompile(`(?i)(https?:)?//[a-z0-9][^"' ]*`).FindString(rest))
	}
	ids := map[string]bool{}
	for _, m := range idRe.FindAllStringSubmatch(page, -1) {
		if ids[m[1]] {
			t.Errorf("id %q is given twice", m[1])
		}
		ids[m[1]] = true
	}
	for _, m := range hrefRe.FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(m[1], "#") || !ids[m[1][1:]] {
			t.Errorf("link %q does not resolve in the page", m[1])
		}
	}
}

// checkGEMMNames returns the names of the FP8 GEMMs octet check --json finds in a file.
func checkGEMMNames(t *testing.T, file string) []string {
	t.Helper()
	code, out, errs := runOctet(t, "", "check", "--json", file)
	if code != 0 {
		t.Fatalf("check: exit %d: %s", code, errs)
	}
	var files []struct {
		Modules []struct {
			GEMMs []struct {
				Name string `json:"name"`
			} `json:"gemms"`
		} `json:"modules"`
	}
	if err := json.Unmarshal([]byte(out), &files); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		for _, m := range f.Modules {
			for _, g := range m.GEMMs {
				names = append(names, g.Name)
			}
		}
	}
	return names
}

func submatches(re *regexp.Regexp, s string) []string {
	var out []string
	for _, m := range re.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestReportLlama is the acceptance test: the Llama 3.1 70B FP8 training step gives one row and one graph
// per FP8 GEMM (27), in module order, in a file written whole, for at most a few times the allocations
// check makes.
func TestReportLlama(t *testing.T) {
	llama := shared.Path(t, "corpus", "hlo", "xla__tools__benchmarks__hlo__hlo_llama31_70b_fp8_16x8.hlo.gz")
	want := checkGEMMNames(t, llama)
	if len(want) != 27 {
		t.Fatalf("check finds %d FP8 GEMMs, want 27", len(want))
	}
	out := filepath.Join(t.TempDir(), "r.html")
	allocs := func(args ...string) float64 {
		return testing.AllocsPerRun(1, func() {
			if code, _, errs := runOctet(t, "", args...); code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, errs)
			}
		})
	}
	check := allocs("check", llama)
	rep := allocs("report", "-o", out, llama)
	t.Logf("check %.0f allocations, report %.0f", check, rep)
	if rep > 4*check {
		t.Errorf("report made %.0f allocations, more than 4 times check's %.0f", rep, check)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	if rows := submatches(gemmRowR, page); strings.Join(rows, " ") != strings.Join(want, " ") {
		t.Errorf("rows %v, want %v", rows, want)
	}
	if graphs := submatches(sectionR, page); strings.Join(graphs, " ") != strings.Join(want, " ") {
		t.Errorf("graphs %v, want %v", graphs, want)
	}
	for _, w := range []string{"<b>27 FP8 GEMMs</b>: 0 fused, 27 not fused", `class="node gemm-not-fused"`, `class="node fp8"`} {
		if !strings.Contains(page, w) {
			t.Errorf("the page lacks %q", w)
		}
	}
	checkSelfContained(t, page)
}

// chainModule is a module of n FP8 GEMMs in a chain, as a model's layers are: each dequantizes the
// previous one's FP8 output and an FP8 weight, multiplies them, and applies ReLU, the clamp and the
// conversion back to FP8; the entry returns every layer's output in one tuple.
func chainModule(n int) string {
	var b strings.Builder
	b.WriteString("HloModule chain\n\nENTRY main {\n  x0 = f8e4m3fn[16,32] parameter(0)\n  s = f32[] parameter(1)\n")
	b.WriteString("  zero = f32[] constant(0)\n  zb = f32[16,32] broadcast(zero), dimensions={}\n")
	b.WriteString("  hi = f32[] constant(448)\n  lo = f32[] constant(-448)\n")
	b.WriteString("  hib = f32[16,32] broadcast(hi), dimensions={}\n  lob = f32[16,32] broadcast(lo), dimensions={}\n")
	outs, shapes := make([]string, n), make([]string, n)
	for i := range n {
		fmt.Fprintf(&b, "  w%d = f8e4m3fn[32,32] parameter(%d)\n  xc%d = f32[16,32] convert(x%d)\n", i, i+2, i, i)
		fmt.Fprintf(&b, "  sb%d = f32[16,32] broadcast(s), dimensions={}\n  xd%d = f32[16,32] multiply(xc%d, sb%d)\n", i, i, i, i)
		fmt.Fprintf(&b, "  wc%d = f32[32,32] convert(w%d)\n", i, i)
		fmt.Fprintf(&b, "  d%d = f32[16,32] dot(xd%d, wc%d), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n", i, i, i)
		fmt.Fprintf(&b, "  r%d = f32[16,32] maximum(d%d, zb)\n  c%d = f32[16,32] clamp(lob, r%d, hib)\n", i, i, i, i)
		fmt.Fprintf(&b, "  x%d = f8e4m3fn[16,32] convert(c%d)\n", i+1, i)
		outs[i], shapes[i] = fmt.Sprintf("x%d", i+1), "f8e4m3fn[16,32]"
	}
	fmt.Fprintf(&b, "  ROOT t = (%s) tuple(%s)\n}\n", strings.Join(shapes, ", "), strings.Join(outs, ", "))
	return b.String()
}

// TestAnalysisLinear checks that check, report and verify make allocations linear in the module: on
// chains of n and 2n GEMMs, at most 2.2 times as many for twice the module.
func TestAnalysisLinear(t *testing.T) {
	dir := t.TempDir()
	const n = 100
	var files [2]string
	for i, name := range []string{"n.hlo", "2n.hlo"} {
		files[i] = writeTemp(t, dir, name, chainModule(n<<i))
	}
	for _, args := range [][]string{{"check"}, {"report", "-o", filepath.Join(dir, "r.html")}, {"verify"}} {
		var a [2]float64
		for i, f := range files {
			a[i] = testing.AllocsPerRun(1, func() {
				if code, _, errs := runOctet(t, "", append(slices.Clone(args), f)...); code != 0 {
					t.Fatalf("%v: exit %d: %s", args, code, errs)
				}
			})
		}
		if a[1] > 2.2*a[0] {
			t.Errorf("%s: %d GEMMs, %.0f allocations; %d GEMMs, %.0f (%.2f times)", args[0], n, a[0], 2*n, a[1], a[1]/a[0])
		}
	}
}

// TestCheckBytesLinear checks that check's text output allocates bytes linearly in the module, not only
// objects: on chains of n and 2n GEMMs, at most 2.2 times as many bytes for twice the module. Each GEMM's
// lines look up its operands by name in an index built once per module.
func TestCheckBytesLinear(t *testing.T) {
	dir := t.TempDir()
	const n = 200
	var alloc [2]uint64
	for i, name := range []string{"n.hlo", "2n.hlo"} {
		f := writeTemp(t, dir, name, chainModule(n<<i))
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if code, _, errs := runOctet(t, "", "check", f); code != 0 {
			t.Fatalf("check: exit %d: %s", code, errs)
		}
		runtime.ReadMemStats(&after)
		alloc[i] = after.TotalAlloc - before.TotalAlloc
	}
	if r := float64(alloc[1]) / float64(alloc[0]); r > 2.2 {
		t.Errorf("check: %d GEMMs, %d bytes allocated; %d GEMMs, %d (%.2f times)", n, alloc[0], 2*n, alloc[1], r)
	}
}

// TestReportExamples checks the pages of the examples: roles drawn where the examples have them, the
// fused call in green, the fusion body folded, and the diff of two leading the page.
func TestReportExamples(t *testing.T) {
	code, page, errs := runOctet(t, "", "report", example("relu_amax.before.hlo"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	checkSelfContained(t, page)
	for _, w := range []string{
		`<tr class="not-fused" data-gemm="y">`,
		`class="node fp8" id="m0-g0-`, `data-name="x"`, `class="node dequantize"`, `data-name="x_dequant"`,
		`class="node scale"`, `data-name="x_scale"`, `class="node absorbed"`, `data-name="relu"`,
		`class="node gemm-not-fused"`,
		"y = f32[16,64] dot(x_dequant, g_dequant)",
	} {
		if !strings.Contains(page, w) {
			t.Errorf("relu_amax: the page lacks %q", w)
		}
	}
	code, page, errs = runOctet(t, "", "report", example("dense_fp8.xla-0.4.31.hlo"), example("dense_fp8.xla-0.4.32.hlo"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	checkSelfContained(t, page)
	diff := strings.Index(page, `<section id="diff">`)
	first := strings.Index(page, `<section class="module"`)
	if diff < 0 || first < diff {
		t.Fatalf("the diff does not lead the page (at %d, first module at %d)", diff, first)
	}
	for _, w := range []string{"1 lost, 0 gained", `<tr class="lost"`, `class="node gemm-fused"`, `data-gemm="cublas-gemm.2.0"`,
		`data-gemm="gemm_fusion_dot.7.0"`, "<summary>fusion body <code>%gemm_fusion_dot.7_computation</code>",
		"<summary>fusion body <code>%fused_dequantize</code>", `class="node fp8" id="m1-f1-0" data-name="param_0.4"`,
		`fusion bodies: <a href="#m1-f0"><code>%gemm_fusion_dot.7_computation</code></a>`} {
		if !strings.Contains(page, w) {
			t.Errorf("dense_fp8 diff: the page lacks %q", w)
		}
	}
}

func TestReportUsage(t *testing.T) {
	for _, args := range [][]string{{"report"}, {"report", "a", "b", "c"}, {"report", "-", "-"}} {
		if code, _, _ := runOctet(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	code, _, errs := runOctet(t, "HloModule m\n\nENTRY e {\n  ROOT p = f32[2] parameter(0)\n  x = \n}\n", "report", "-")
	if code != 1 || !strings.HasPrefix(errs, "<stdin>:") {
		t.Errorf("bad input: exit %d: %q", code, errs)
	}
}

// TestReportCorpus writes the report and both exports of every corpus file: the status is 0 or 1, never
// an internal error, and every page has a row and a graph per FP8 GEMM that check finds.
func TestReportCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("the whole corpus: not in -short")
	}
	var files []string
	for _, sub := range []string{"hlo", "fp8"} {
		for _, pattern := range []string{"*.hlo", "*.hlo.gz"} {
			names, _ := filepath.Glob(filepath.Join(shared.Path(t, "corpus", sub), pattern))
			files = append(files, names...)
		}
	}
	if len(files) < 100 {
		t.Fatalf("only %d corpus files", len(files))
	}
	pages, gemms := 0, 0
	for _, name := range files {
		code, page, errs := runOctet(t, "", "report", name)
		if code != 0 && code != 1 || strings.Contains(errs, "internal error") {
			t.Errorf("report %s: exit %d:\n%.1000s", name, code, errs)
		}
		if code != 0 {
			continue
		}
		pages++
		rows, graphs := len(gemmRowR.FindAllString(page, -1)), len(sectionR.FindAllString(page, -1))
		want := len(checkGEMMNames(t, name))
		if rows != want || graphs != want {
			t.Errorf("report %s: %d rows, %d graphs for %d FP8 GEMMs", name, rows, graphs, want)
		}
		gemms += want
		for _, format := range []string{"--format=dot", "--format=model-explorer"} {
			if code, _, errs := runOctet(t, "", "export", format, name); code != 0 {
				t.Errorf("export %s %s: exit %d:\n%.1000s", format, name, code, errs)
			}
		}
	}
	t.Logf("%d pages, %d FP8 GEMMs drawn", pages, gemms)
}

// TestReportMaxSize writes the page of a module of 1,000 FP8 GEMMs into one ROOT tuple within budgets
// too small for it: the file stays within --max-size and says what it left out; a size that is not one,
// or under 64KiB, is a usage error.
func TestReportMaxSize(t *testing.T) {
	var b strings.Builder
	b.WriteString("HloModule tuple\n\nENTRY main {\n  a = f8e4m3fn[16,16] parameter(0)\n  ca = f32[16,16] convert(a)\n")
	var names []string
	for i := range 1000 {
		fmt.Fprintf(&b, "  d%d = f32[16,16] dot(ca, ca), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n", i)
		names = append(names, fmt.Sprintf("d%d", i))
	}
	b.WriteString("  ROOT t = (" + strings.Repeat("f32[16,16], ", 999) + "f32[16,16]) tuple(" + strings.Join(names, ", ") + ")\n}\n")
	out := filepath.Join(t.TempDir(), "r.html")
	for _, size := range []string{"256KiB", "2MiB"} {
		if code, _, errs := runOctet(t, b.String(), "report", "--max-size="+size, "-o", out, "-"); code != 0 {
			t.Fatalf("--max-size=%s: exit %d: %s", size, code, errs)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		limit := map[string]int{"256KiB": 256 << 10, "2MiB": 2 << 20}[size]
		if len(data) > limit || !strings.Contains(string(data), `<p class="budget">This page is cut to its size budget: `) {
			t.Errorf("--max-size=%s: %d bytes, budget note %v", size, len(data), strings.Contains(string(data), `class="budget"`))
		}
		checkSelfContained(t, string(data))
	}
	for _, size := range []string{"big", "1KiB", "-5"} {
		if code, _, _ := runOctet(t, "", "report", "--max-size="+size, example("relu_amax.before.hlo")); code != 2 {
			t.Errorf("--max-size=%s: exit %d, want 2", size, code)
		}
	}
}

package page

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"octet/fuse/report"
	"octet/hlo/parser"
)

// tupleModule is XLA's usual entry shape: n FP8 dots, all into one ROOT tuple whose shape names them all.
func tupleModule(n int) string {
	var b strings.Builder
	b.WriteString("HloModule tuple\n\nENTRY main {\n  a = f8e4m3fn[16,16] parameter(0)\n  b = f8e4m3fn[16,16] parameter(1)\n")
	b.WriteString("  ca = f32[16,16] convert(a)\n  cb = f32[16,16] convert(b)\n")
	root(&b, n, "ca")
	return b.String()
}

// root writes n dots of x and cb, the ROOT tuple of them, and closes the entry.
func root(b *strings.Builder, n int, x string) {
	for i := range n {
		fmt.Fprintf(b, "  d%d = f32[16,16] dot(%s, cb), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n", i, x)
	}
	b.WriteString("  ROOT t = (" + strings.Repeat("f32[16,16], ", n-1) + "f32[16,16]) tuple(")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(b, "d%d", i)
	}
	b.WriteString(")\n}\n")
}

// fusionsModule has n FP8 dots reading a chain of 8 loop fusions of n instructions each: every GEMM's
// neighbourhood draws the fusions of the chain.
func fusionsModule(n int) string {
	var b strings.Builder
	b.WriteString("HloModule fusions\n\n")
	for j := range 8 {
		fmt.Fprintf(&b, "body%d {\n", j)
		if j == 0 {
			b.WriteString("  p = f8e4m3fn[16,16] parameter(0)\n  x0 = f32[16,16] convert(p)\n")
		} else {
			b.WriteString("  x0 = f32[16,16] parameter(0)\n")
		}
		for i := 1; i < n; i++ {
			if i == n-1 {
				b.WriteString("  ROOT")
			}
			fmt.Fprintf(&b, "  x%d = f32[16,16] negate(x%d)\n", i, i-1)
		}
		b.WriteString("}\n\n")
	}
	b.WriteString("ENTRY main {\n  a = f8e4m3fn[16,16] parameter(0)\n  b = f8e4m3fn[16,16] parameter(1)\n  cb = f32[16,16] convert(b)\n")
	prev := "a"
	for j := range 8 {
		fmt.Fprintf(&b, "  f%d = f32[16,16] fusion(%s), kind=kLoop, calls=body%d\n", j, prev, j)
		prev = fmt.Sprintf("f%d", j)
	}
	root(&b, n, prev)
	return b.String()
}

// targetModule has n FP8 dots reading one custom call whose target is 100n bytes long.
func targetModule(n int) string {
	var b strings.Builder
	b.WriteString("HloModule target\n\nENTRY main {\n  a = f8e4m3fn[16,16] parameter(0)\n  b = f8e4m3fn[16,16] parameter(1)\n")
	b.WriteString("  ca = f32[16,16] convert(a)\n  cb = f32[16,16] convert(b)\n")
	fmt.Fprintf(&b, "  cc = f32[16,16] custom-call(ca), custom_call_target=%q\n", strings.Repeat("x", 100*n))
	root(&b, n, "cc")
	return b.String()
}

func analysed(t testing.TB, src string) *Module {
	t.Helper()
	m, err := parser.ParseString("hostile.hlo", src)
	if err != nil {
		t.Fatal(err)
	}
	return &Module{File: "hostile.hlo", Module: m, Report: report.Check(m)}
}

// cost writes the page of mod and returns its size, and the allocations and bytes allocated writing it.
func cost(t *testing.T, mod *Module, c Config) (size int, mallocs, alloc uint64) {
	t.Helper()
	var buf bytes.Buffer
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err := c.Write(&buf, []*Module{mod}, false)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	return buf.Len(), after.Mallocs - before.Mallocs, after.TotalAlloc - before.TotalAlloc
}

// TestPageLinear writes the pages of the hostile modules whose pages grew with the square of their GEMMs
// (every section redrew the tuple, the fusions of the chain, the long target) at n and 2n: the page's
// size, its allocations and the bytes allocated grow at most linearly with the module.
func TestPageLinear(t *testing.T) {
	for _, tc := range []struct {
		name string
		gen  func(int) string
		n    int
	}{
		{"tuple", tupleModule, 300},
		{"fusions", fusionsModule, 100},
		{"target", targetModule, 150},
	} {
		t.Run(tc.name, func(t *testing.T) {
			small, large := analysed(t, tc.gen(tc.n)), analysed(t, tc.gen(2*tc.n))
			if len(small.Report.GEMMs) != tc.n || len(large.Report.GEMMs) != 2*tc.n {
				t.Fatalf("%d and %d FP8 GEMMs, want %d and %d", len(small.Report.GEMMs), len(large.Report.GEMMs), tc.n, 2*tc.n)
			}
			s1, m1, a1 := cost(t, small, Config{})
			s2, m2, a2 := cost(t, large, Config{})
			t.Logf("n=%d: %d bytes, %d allocations, %d bytes allocated; 2n: %d, %d, %d", tc.n, s1, m1, a1, s2, m2, a2)
			const most = 2.3 // linear, with room for the numbers that grow by a digit
			for _, r := range []struct {
				what   string
				n, n2n float64
			}{{"page bytes", float64(s1), float64(s2)}, {"allocations", float64(m1), float64(m2)}, {"bytes allocated", float64(a1), float64(a2)}} {
				if r.n2n > most*r.n {
					t.Errorf("%s: %.0f at n, %.0f at 2n: %.2f times", r.what, r.n, r.n2n, r.n2n/r.n)
				}
			}
		})
	}
}

var (
	hrefRe = regexp.MustCompile(`href="#([^"]*)"`)
	idRe   = regexp.MustCompile(` id="([^"]*)"`)
	svgRe  = regexp.MustCompile(`(?s)<svg .*?</svg>`)
)

// checkPage asserts what every page keeps: valid UTF-8, every link to an element of the page, every
// drawing well-formed XML.
func checkPage(t *testing.T, page string) {
	t.Helper()
	if !strings.HasSuffix(page, "</html>\n") {
		t.Errorf("the page does not end with </html>")
	}
	ids := map[string]bool{}
	for _, m := range idRe.FindAllStringSubmatch(page, -1) {
		if ids[m[1]] {
			t.Errorf("id %q is given twice", m[1])
		}
		ids[m[1]] = true
	}
	for _, m := range hrefRe.FindAllStringSubmatch(page, -1) {
		if !ids[m[1]] {
			t.Errorf("link #%s does not resolve in the page", m[1])
			break
		}
	}
	for _, svg := range svgRe.FindAllString(page, -1) {
		d := xml.NewDecoder(strings.NewReader(svg))
		for {
			_, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Errorf("a drawing is not well-formed XML: %v", err)
				return
			}
		}
	}
}

// TestPageBudget writes pages over their budget: each stays within it, says what it left out, and
// links only to what it holds.
func TestPageBudget(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		max  int64
	}{
		{"tuple", tupleModule(1500), 512 << 10},
		{"fusions", fusionsModule(150), 256 << 10},
		{"target", targetModule(300), 128 << 10},
	} {
		mod := analysed(t, tc.src)
		var full, cut bytes.Buffer
		if err := Write(&full, []*Module{mod}, false); err != nil {
			t.Fatal(err)
		}
		if err := (Config{MaxBytes: tc.max}).Write(&cut, []*Module{mod}, false); err != nil {
			t.Fatal(err)
		}
		page := cut.String()
		t.Logf("%s: %d bytes in full, %d within %d", tc.name, full.Len(), cut.Len(), tc.max)
		if int64(full.Len()) <= tc.max {
			t.Fatalf("%s: the whole page (%d bytes) is within the budget: nothing to cut", tc.name, full.Len())
		}
		if int64(cut.Len()) > tc.max {
			t.Errorf("%s: %d bytes, over the budget of %d", tc.name, cut.Len(), tc.max)
		}
		if !strings.Contains(page, `<p class="budget">This page is cut to its size budget: `) {
			t.Errorf("%s: the page does not say what it left out", tc.name)
		}
		checkPage(t, page)
		checkPage(t, full.String())
		// Both modules of a comparison share the budget.
		cut.Reset()
		if err := (Config{MaxBytes: tc.max}).Write(&cut, []*Module{mod, mod}, true); err != nil {
			t.Fatal(err)
		}
		if int64(cut.Len()) > tc.max {
			t.Errorf("%s compared with itself: %d bytes, over the budget of %d", tc.name, cut.Len(), tc.max)
		}
		checkPage(t, cut.String())
	}
}

// TestHostileNames writes the page of a module whose instructions and computation have names no reader
// gives but a built module may (a newline, escapes, a NUL, bytes that are not UTF-8, a direction
// override, 100,000 characters), with a custom-call target as bad: the page is valid UTF-8 without a
// control or direction character, its drawings are well-formed XML, and every link resolves.
func TestHostileNames(t *testing.T) {
	mod := analysed(t, targetModule(3))
	bad := []string{"\n  y = FORGED", "\x1b]0;t\x07", "\x00", "\xff\xfe", "\u202e", strings.Repeat("n", 100000)}
	for i, in := range mod.Module.Entry.Instructions {
		in.Name = fmt.Sprintf("%s%d", bad[i%len(bad)], i)
	}
	mod.Module.Entry.Name = "main" + bad[0]
	mod.Report = report.Check(mod.Module)
	var b bytes.Buffer
	if err := Write(&b, []*Module{mod, mod}, true); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if !utf8.ValidString(page) {
		t.Fatal("the page is not valid UTF-8")
	}
	for i, r := range page {
		if r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
			t.Fatalf("the page holds %U at byte %d", r, i)
		}
	}
	if len(mod.Report.GEMMs) != 3 || strings.Count(page, `<section class="gemm"`) != 6 {
		t.Errorf("%d FP8 GEMMs, %d sections", len(mod.Report.GEMMs), strings.Count(page, `<section class="gemm"`))
	}
	checkPage(t, page)
}

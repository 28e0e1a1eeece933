package page

import (
	"bytes"
	"strings"
	"testing"

	"octet/fuse/report"
	"octet/hlo/parser"
)

const plain = `HloModule plain

ENTRY main {
  a = f32[4,4] parameter(0)
  ROOT d = f32[4,4] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
`

// TestNoGEMM writes the page of a module without FP8 GEMM, and refuses to compare other than two.
func TestNoGEMM(t *testing.T) {
	m, err := parser.ParseString("plain.hlo", plain)
	if err != nil {
		t.Fatal(err)
	}
	mod := &Module{File: "plain.hlo", Module: m, Report: report.Check(m)}
	var b bytes.Buffer
	if err := Write(&b, []*Module{mod}, false); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, w := range []string{"<title>Octet report: plain.hlo</title>", "<b>0 FP8 GEMMs</b>", "No FP8 GEMM in this module.",
		`<span id="m0-L5">  ROOT d = f32[4,4] dot(a, a)`, `<body>`, "</html>\n"} {
		if !strings.Contains(page, w) {
			t.Errorf("the page lacks %q", w)
		}
	}
	if strings.Contains(page, "<svg ") || strings.Contains(page, `data-gemm="`) {
		t.Error("a module without FP8 GEMM has a GEMM drawn or listed")
	}
	if err := Write(&b, []*Module{mod}, true); err == nil {
		t.Error("a comparison of one module was written")
	}
	txt := Readable(m)
	if l, ok := txt.Line("main", "d"); !ok || !strings.Contains(txt.Lines[l], "ROOT d = ") {
		t.Errorf("the line of d: %d, %v", l, ok)
	}
}

// TestLinesFromPrinter writes the page of a module whose last instruction's frontend attribute holds a
// line that imitates the first one: every box links to the instruction's own line, which the printer
// reports, and the text has one line per instruction.
func TestLinesFromPrinter(t *testing.T) {
	src := `HloModule forged

ENTRY main {
  a = f8e4m3fn[16,32] parameter(0)
  b = f8e4m3fn[32,64] parameter(1)
  ca = f32[16,32] convert(a)
  cb = f32[32,64] convert(b)
  ROOT y = f32[16,64] dot(ca, cb), lhs_contracting_dims={1}, rhs_contracting_dims={0}, frontend_attributes={k="
  a = f8e4m3fn[16,32] custom-call(), custom_call_target=FORGED"}
}
`
	m, err := parser.ParseString("forged.hlo", src)
	if err != nil {
		t.Fatal(err)
	}
	txt := Readable(m)
	for i, in := range m.Entry.Instructions {
		// The header and a blank line, then the computation's first line, then one line each.
		if l, ok := txt.Line("main", in.Name); !ok || l != 3+i {
			t.Errorf("%s is on line %d, want %d", in.Name, l, 3+i)
		}
	}
	if len(txt.Lines) != 9 {
		t.Errorf("%d lines of text, want 9:\n%s", len(txt.Lines), strings.Join(txt.Lines, "\n"))
	}
	var b bytes.Buffer
	if err := Write(&b, []*Module{{File: "forged.hlo", Module: m, Report: report.Check(m)}}, false); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if strings.Contains(page, "FORGED</span>") || !strings.Contains(page, `<a href="#m0-g0-L4"><g class="node fp8" id="m0-g0-`) {
		t.Errorf("the box of a does not link to its own line:\n%s", page)
	}
}

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

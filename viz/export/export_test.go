package export

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"octet/fuse/report"
	"octet/hlo"
	"octet/hlo/parser"
	"octet/internal/safetext"
)

const nested = `HloModule nested

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

inner {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}

outer {
  q = f32[4] parameter(0)
  ROOT f = f32[4] fusion(q), kind=kLoop, calls=inner
}

ENTRY main {
  x = f32[4] parameter(0)
  g = f32[4] fusion(x), kind=kLoop, calls=outer
  z = f32[] constant(0)
  r1 = f32[] reduce(g, z), dimensions={0}, to_apply=add
  r2 = f32[] reduce(x, z), dimensions={0}, to_apply=add
  ROOT t = (f32[], f32[]) tuple(r1, r2)
}
`

// TestNamespaces nests fusion bodies under their fusion, fusion in fusion, and keeps a computation called
// from two places apart.
func TestNamespaces(t *testing.T) {
	m, err := parser.ParseString("nested.hlo", nested)
	if err != nil {
		t.Fatal(err)
	}
	ns := namespaces(m)
	want := map[string]string{"main": "main", "outer": "main/g", "inner": "main/g/f", "add": "add"}
	for _, c := range m.Computations {
		if ns[c] != want[c.Name] {
			t.Errorf("%s: namespace %q, want %q", c.Name, ns[c], want[c.Name])
		}
	}
	var b bytes.Buffer
	if err := ModelExplorer(&b, "nested", nil, nil); err != nil || strings.TrimSpace(b.String()) != `{"label":"nested","graphs":[]}` {
		t.Errorf("no module: %q, %v", b.String(), err)
	}
	b.Reset()
	if err := ModelExplorer(&b, "nested", []*hlo.Module{m}, []*report.Report{report.Check(m)}); err != nil {
		t.Fatal(err)
	}
	var gc struct {
		Graphs []struct {
			Nodes []struct {
				ID        string `json:"id"`
				Namespace string `json:"namespace"`
			} `json:"nodes"`
		} `json:"graphs"`
	}
	if err := json.Unmarshal(b.Bytes(), &gc); err != nil {
		t.Fatal(err)
	}
	if n := len(gc.Graphs[0].Nodes); n != 13 {
		t.Errorf("%d nodes, want 13", n)
	}
}

// hostile is a module whose strings hold what Graphviz refuses or shows wrongly: a NUL, a newline, a
// quote and a backslash, an HTML entity, bytes that are not UTF-8, a label of 100,000 characters; its
// first instruction is renamed to hold them too.
const hostile = `HloModule hostile

ENTRY main {
  a = f8e4m3fn[16,32] parameter(0), metadata={op_name="x\000y" source_file="a\nb"}
  b = f8e4m3fn[32,64] parameter(1)
  ca = f32[16,32] convert(a)
  cb = f32[32,64] convert(b)
  cc = f32[16,32] custom-call(ca), custom_call_target="q\"\\&#0;\377\342\200\256LONG"
  ROOT d = f32[16,64] dot(cc, cb), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
`

// TestDOTHostile writes the DOT of the hostile module, both ways: no control character or invalid byte,
// no label over Graphviz's limit, and dot renders it when it is installed.
func TestDOTHostile(t *testing.T) {
	m, err := parser.ParseString("hostile.hlo", strings.Replace(hostile, "LONG", strings.Repeat("L", 100000), 1))
	if err != nil {
		t.Fatal(err)
	}
	m.Entry.Instructions[0].Name = "a\x00\n\"\\\xff\u202e"
	r := report.Check(m)
	if len(r.GEMMs) != 1 {
		t.Fatalf("%d FP8 GEMMs, want 1", len(r.GEMMs))
	}
	for _, all := range []bool{false, true} {
		var b bytes.Buffer
		if err := DOT(&b, []*hlo.Module{m}, []*report.Report{r}, DOTOptions{All: all}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if !utf8.ValidString(out) || strings.ContainsFunc(out, func(r rune) bool { return r != '\n' && unicode.IsControl(r) || r == '\u202e' }) {
			t.Errorf("all=%v: the DOT holds a control character or invalid UTF-8", all)
		}
		for _, l := range strings.Split(out, "\n") {
			if len(l) > 16384 {
				t.Errorf("all=%v: a line of %d bytes", all, len(l))
			}
		}
		if !strings.Contains(out, `&amp;#0;\\377`) {
			t.Errorf("all=%v: the custom call's target is not escaped for Graphviz", all)
		}
		dot, err := exec.LookPath("dot")
		if err != nil {
			continue
		}
		cmd := exec.Command(dot, "-Tsvg")
		cmd.Stdin = strings.NewReader(out)
		var errs bytes.Buffer
		cmd.Stderr = &errs
		if err := cmd.Run(); err != nil || errs.Len() > 0 {
			t.Errorf("all=%v: dot: %v: %s", all, err, errs.String())
		}
	}
	var b bytes.Buffer
	if err := ModelExplorer(&b, "hostile", []*hlo.Module{m}, []*report.Report{r}); err != nil {
		t.Fatal(err)
	}
	var gc struct {
		Graphs []struct {
			Nodes []struct {
				ID    string `json:"id"`
				Label string `json:"label"`
				Attrs []struct{ Key, Value string }
			} `json:"nodes"`
		} `json:"graphs"`
	}
	if err := json.Unmarshal(b.Bytes(), &gc); err != nil {
		t.Fatal(err)
	}
	for _, n := range gc.Graphs[0].Nodes {
		strs := []string{n.ID, n.Label}
		for _, a := range n.Attrs {
			strs = append(strs, a.Value)
		}
		for _, s := range strs {
			if s != safetext.Escape(s) {
				t.Errorf("Model Explorer shows %q", s)
			}
		}
		if len(n.Label) > 1000 {
			t.Errorf("a label of %d bytes", len(n.Label))
		}
	}
}

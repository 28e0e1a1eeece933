package export

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"octet/fuse/report"
	"octet/hlo"
	"octet/hlo/parser"
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

func TestDOTQuote(t *testing.T) {
	if got := dotQuote("a\"b\\c\nd"); got != `"a\"b\\c\nd"` {
		t.Errorf("dotQuote: %s", got)
	}
}

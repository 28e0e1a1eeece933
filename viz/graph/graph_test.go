package graph

import (
	"bytes"
	"flag"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"octet/fuse/report"
	"octet/hlo"
	"octet/hlo/parser"
)

var update = flag.Bool("update", false, "rewrite docs/report-graph.svg")

func load(t *testing.T, name string) (*hlo.Module, *report.Report) {
	t.Helper()
	path := filepath.Join("..", "..", "examples", name)
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := parser.ParseModule(token.NewFileSet(), path, src)
	if err != nil {
		t.Fatal(err)
	}
	return m, report.Check(m)
}

func roles(g *Graph) map[string]Role {
	out := map[string]Role{}
	for _, n := range g.Nodes {
		out[n.Name] = n.Role
	}
	return out
}

// TestNeighbourhoodRoles checks the role of every instruction drawn around the examples' GEMMs.
func TestNeighbourhoodRoles(t *testing.T) {
	m, r := load(t, "relu_amax.before.hlo")
	g := NewModule(m, r).Neighbourhood(r.GEMMs[0])
	got := roles(g)
	want := map[string]Role{
		"y": GEMMUnfused, "x": FP8, "g": FP8, "x_f32": Dequantize, "x_dequant": Dequantize, "g_dequant": Dequantize,
		"x_scale": Scale, "x_scale_bcast": Scale, "relu": Absorbed, "abs": Absorbed, "amax": Absorbed, "y_scaled": Absorbed, "y_clamped": Absorbed,
		"y_scale_bcast": Scale,
	}
	for name, role := range want {
		if got[name] != role {
			t.Errorf("relu_amax: %s is %v, want %v", name, got[name], role)
		}
	}
	if len(g.Edges) < len(g.Nodes)-1 {
		t.Errorf("relu_amax: %d edges for %d nodes: the neighbourhood is not connected", len(g.Edges), len(g.Nodes))
	}

	m, r = load(t, "dense_fp8.xla-0.4.31.hlo")
	got = roles(NewModule(m, r).Neighbourhood(r.GEMMs[0]))
	if got["cublas-gemm.2.0"] != GEMMFused || got["Arg_0.1.0"] != FP8 || got["Arg_2.3.0"] != Scale {
		t.Errorf("dense_fp8 0.4.31: roles %v", got)
	}
	m, r = load(t, "dense_fp8.xla-0.4.32.hlo")
	g = NewModule(m, r).Neighbourhood(r.GEMMs[0])
	got = roles(g)
	if got["gemm_fusion_dot.7.0"] != GEMMUnfused || got["loop_multiply_fusion"] != Dequantize || got["Arg_0.1.0"] != FP8 {
		t.Errorf("dense_fp8 0.4.32: roles %v", got)
	}
	for _, n := range g.Nodes {
		if n.Name == "gemm_fusion_dot.7.0" && (!n.Collapsed || n.Calls != "gemm_fusion_dot.7_computation") {
			t.Errorf("the GEMM fusion is not drawn collapsed: %+v", n)
		}
	}
	if NewModule(m, r).Neighbourhood(&report.GEMM{Name: "nosuch", Computation: "main.24"}) != nil {
		t.Error("a GEMM not in the module has a neighbourhood")
	}
}

// TestComputationLimit draws a whole computation under a limit.
func TestComputationLimit(t *testing.T) {
	m, r := load(t, "dense_fp8.xla-0.4.32.hlo")
	g := Computation(m.Entry, r, 4)
	if len(g.Nodes) != 4 || g.Omitted != len(m.Entry.Instructions)-4 {
		t.Errorf("%d nodes, %d omitted of %d", len(g.Nodes), g.Omitted, len(m.Entry.Instructions))
	}
	var b bytes.Buffer
	if err := g.SVG(&b, Options{}); err != nil || !strings.HasPrefix(b.String(), "<svg ") {
		t.Errorf("SVG: %v", err)
	}
}

// TestDocsPicture draws the README's picture, the neighbourhood of the relu_amax example's GEMM, and
// compares it with docs/report-graph.svg (go test -update rewrites it). The drawing is deterministic.
func TestDocsPicture(t *testing.T) {
	m, r := load(t, "relu_amax.before.hlo")
	var b bytes.Buffer
	if err := NewModule(m, r).Neighbourhood(r.GEMMs[0]).SVG(&b, Options{ID: "relu_amax"}); err != nil {
		t.Fatal(err)
	}
	svg := `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + b.String()
	var again bytes.Buffer
	NewModule(m, r).Neighbourhood(r.GEMMs[0]).SVG(&again, Options{ID: "relu_amax"})
	if again.String() != b.String() {
		t.Fatal("two drawings of the same graph differ")
	}
	path := filepath.Join("..", "..", "docs", "report-graph.svg")
	if *update {
		if err := os.WriteFile(path, []byte(svg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./viz/graph -update writes it)", err)
	}
	if string(old) != svg {
		t.Errorf("%s is not what Octet draws now: go test ./viz/graph -update rewrites it", path)
	}
}

// TestNamesAsLists draws a GEMM whose report lists what octet fuse absorbs and what stops it, while its
// sentences name other instructions: the lists decide the roles, the sentences do not.
func TestNamesAsLists(t *testing.T) {
	m, r := load(t, "relu_amax.before.hlo")
	g := *r.GEMMs[0]
	g.Fused = false
	g.Absorbed = []string{"relu"}
	g.BlockedAt = []string{"x_f32"}
	g.FuseNote = "octet fuse makes it one call, absorbing %abs, %amax"
	g.BlockedBy = "%x_scale and %g_dequant are in the way"
	got := roles(NewModule(m, r).Neighbourhood(&g))
	want := map[string]Role{"relu": Absorbed, "x_f32": Blocked, "abs": Epilogue, "amax": Epilogue, "x_scale": Scale, "g_dequant": Dequantize}
	for name, role := range want {
		if got[name] != role {
			t.Errorf("%s is %v, want %v", name, got[name], role)
		}
	}
}

// TestGEMMInstructionByReference checks that a GEMM of a report made from the module is found by reference,
// not by a search of its computation for its name (a walk per GEMM, quadratic in a module of many GEMMs):
// renamed after the report, it is still found; a GEMM of another module's report is found by name.
func TestGEMMInstructionByReference(t *testing.T) {
	m, r := load(t, "relu_amax.before.hlo")
	g := r.GEMMs[0]
	in := g.Instruction()
	if in == nil || GEMMInstruction(m, g) != in {
		t.Fatalf("GEMMInstruction = %v, want the report's %v", GEMMInstruction(m, g), in)
	}
	in.Name = "renamed_after_the_report"
	if got := GEMMInstruction(m, g); got != in {
		t.Errorf("after a rename, GEMMInstruction = %v, want %%%s", got, in.Name)
	}
	other, _ := load(t, "relu_amax.before.hlo")
	if got := GEMMInstruction(other, g); got == nil || got.Parent.Module != other || got.Name != g.Name {
		t.Errorf("in another copy of the module, GEMMInstruction = %v, want %%%s of that copy", got, g.Name)
	}
}

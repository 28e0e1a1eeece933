package report_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"octet/fuse"
	"octet/fuse/report"
	"octet/hlo"
	"octet/internal/shared"
)

const llama = "xla__tools__benchmarks__hlo__hlo_llama31_70b_fp8_16x8.hlo.gz"

// rename gives every computation and instruction of m a new name and returns the new name of each old
// instruction name.
func rename(m *hlo.Module) map[string]string {
	names := map[string]string{}
	n := 0
	for i, c := range m.Computations {
		c.Name = fmt.Sprintf("renamed_computation_%d", i)
		for _, in := range c.Instructions {
			n++
			old := in.Name
			in.Name = fmt.Sprintf("v%d", n)
			names[old] = in.Name
		}
	}
	return names
}

// insertParameter adds an unused parameter, of the shape of the entry's first FP8 parameter, before every
// other parameter of the entry, so that every parameter number changes.
func insertParameter(t *testing.T, m *hlo.Module) {
	t.Helper()
	e := m.Entry
	shape := e.Params[0].Shape
	for _, p := range e.Params {
		if p.Shape.Elem.IsFP8() {
			shape = p.Shape
			break
		}
	}
	p := e.Add("inserted_unused", hlo.OpParameter, shape)
	e.Params = append([]*hlo.Instruction{p}, e.Params...)
	for i, q := range e.Params {
		q.ParameterNumber = int64(i)
	}
	// The module's attributes that number the parameters follow: the aliases move up by one, and the
	// entry layout, which would need the new parameter, is dropped.
	var attrs []hlo.Attr
	for _, a := range m.Attrs {
		switch v := a.Value.(type) {
		case hlo.InputOutputAliasing:
			moved := slices.Clone(v)
			for i := range moved {
				moved[i].Parameter++
			}
			a.Value = moved
		}
		if a.Name != "entry_computation_layout" {
			attrs = append(attrs, a)
		}
	}
	m.Attrs = attrs
	e.SortTopologically()
	if err := hlo.Verify(m); err != nil {
		t.Fatal(err)
	}
}

// reorder orders the entry's instructions so that, of every two that do not depend on each other, the
// one that came later comes first: independent GEMMs swap places.
func reorder(t *testing.T, m *hlo.Module) {
	t.Helper()
	c := m.Entry
	pos := map[*hlo.Instruction]int{}
	for i, in := range c.Instructions {
		pos[in] = i
	}
	pending := map[*hlo.Instruction]int{}
	var ready []*hlo.Instruction
	for _, in := range c.Instructions {
		n := 0
		for _, o := range slices.Concat(in.Operands(), in.ControlPredecessors()) {
			if o.Parent == c {
				n++
			}
		}
		pending[in] = n
		if n == 0 {
			ready = append(ready, in)
		}
	}
	succ := map[*hlo.Instruction][]*hlo.Instruction{}
	for _, in := range c.Instructions {
		for _, o := range slices.Concat(in.Operands(), in.ControlPredecessors()) {
			if o.Parent == c {
				succ[o] = append(succ[o], in)
			}
		}
	}
	var out []*hlo.Instruction
	for len(ready) > 0 {
		// Take the ready instruction that came last.
		best := 0
		for i, in := range ready {
			if pos[in] > pos[ready[best]] {
				best = i
			}
		}
		in := ready[best]
		ready = append(ready[:best], ready[best+1:]...)
		out = append(out, in)
		for _, s := range succ[in] {
			if pending[s]--; pending[s] == 0 {
				ready = append(ready, s)
			}
		}
	}
	if len(out) != len(c.Instructions) {
		t.Fatalf("reorder placed %d of %d instructions", len(out), len(c.Instructions))
	}
	c.Instructions = out
	if err := hlo.Verify(m); err != nil {
		t.Fatal(err)
	}
}

// dotOrder is the order of the dots of m's entry.
func dotOrder(m *hlo.Module) []string {
	var names []string
	for _, in := range m.Entry.Instructions {
		if in.Opcode == hlo.OpDot {
			names = append(names, in.Name)
		}
	}
	return names
}

// TestDiffStableOnLlama changes the Llama 3.1 70B FP8 training step in ways that change nothing it
// computes, and checks that the diff pairs every GEMM with itself, by dataflow, and reports no change.
func TestDiffStableOnLlama(t *testing.T) {
	path := shared.Path(t, "corpus", "hlo", llama)
	base := report.Check(load(t, path))
	if len(base.GEMMs) != 27 {
		t.Fatalf("%d GEMMs, want 27", len(base.GEMMs))
	}
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, m *hlo.Module) map[string]string
	}{
		{"rename", func(t *testing.T, m *hlo.Module) map[string]string { return rename(m) }},
		{"insert-parameter", func(t *testing.T, m *hlo.Module) map[string]string { insertParameter(t, m); return nil }},
		{"reorder", func(t *testing.T, m *hlo.Module) map[string]string {
			before := dotOrder(m)
			reorder(t, m)
			if slices.Equal(before, dotOrder(m)) {
				t.Fatal("the reordering leaves the dots in their order")
			}
			return nil
		}},
		{"all", func(t *testing.T, m *hlo.Module) map[string]string {
			insertParameter(t, m)
			reorder(t, m)
			return rename(m)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := load(t, path)
			names := tc.change(t, m)
			d := report.Diff(base, report.Check(m))
			if len(d.Lost)+len(d.Gained)+len(d.Changed)+len(d.Added)+len(d.Removed) != 0 || d.Same != 27 || d.Ambiguous != 0 {
				t.Errorf("lost %d, gained %d, changed %d, added %d, removed %d, same %d, ambiguous %d",
					len(d.Lost), len(d.Gained), len(d.Changed), len(d.Added), len(d.Removed), d.Same, d.Ambiguous)
			}
			if len(d.Pairs) != 27 {
				t.Fatalf("%d pairs, want 27", len(d.Pairs))
			}
			for _, p := range d.Pairs {
				want := p.A
				if names != nil {
					want = names[p.A]
				}
				if p.B != want || p.By != "dataflow" {
					t.Errorf("%%%s paired with %%%s by %q, want %%%s by dataflow", p.A, p.B, p.By, want)
				}
			}
		})
	}
}

// TestDiffPairsRewrite diffs a module with the module octet fuse made of it: each dot is paired with the
// call that replaced it, and exactly those are gained.
func TestDiffPairsRewrite(t *testing.T) {
	for _, elem := range [][]string{
		{"corpus", "hlo", llama},
		{"corpus", "fp8", "09_ScaledABUnscaledDPaddedF8.hlo"},
		{"corpus", "fp8", "37_Rank3ScaledABUnscaledDVectorBiasPaddedF8.hlo"},
		{"corpus", "fp8", "13_UnscaledABUnscaledDUnaryOpsWithConvertF8.hlo"},
		{"examples", "bf16_dequant.before.hlo"},
	} {
		t.Run(elem[len(elem)-1], func(t *testing.T) {
			path := shared.Path(t, elem...)
			m := load(t, path)
			before := report.Check(m)
			res := fuse.Rewrite(m, fuse.Options{})
			callOf := map[string]string{}
			for _, g := range res.Decisions {
				if g.Fused {
					callOf[g.Dot] = g.Call
				}
			}
			if len(callOf) == 0 {
				t.Fatal("nothing fused")
			}
			d := report.Diff(before, report.Check(m))
			if len(d.Gained) != len(callOf) || len(d.Lost)+len(d.Changed)+len(d.Added)+len(d.Removed) != 0 || d.Ambiguous != 0 {
				t.Errorf("gained %d (want %d), lost %d, changed %d, added %d, removed %d, ambiguous %d", len(d.Gained), len(callOf),
					len(d.Lost), len(d.Changed), len(d.Added), len(d.Removed), d.Ambiguous)
			}
			for _, c := range d.Gained {
				if c.A == nil || c.B == nil {
					t.Errorf("gained without a pair: %s", c.What)
					continue
				}
				if want := callOf[c.A.Name]; c.B.Name != want || c.By != "dataflow" {
					t.Errorf("%%%s paired with %%%s by %q, want %%%s by dataflow", c.A.Name, c.B.Name, c.By, want)
				}
			}
		})
	}
}

// TestDiffPairsSelect diffs a dot whose rhs is selected against zero with the call octet fuse makes of it,
// which replays the select on the FP8 value: the call's operand is traced through the select to the
// parameter, so the two pair by dataflow and the GEMM is gained, not one removed and another added.
func TestDiffPairsSelect(t *testing.T) {
	// The zero in the forms a program writes it: broadcast, broadcast and reshaped (an array of zeros
	// reshaped), and converted from another type. fuse and check take each as zero everywhere alike.
	for _, zero := range []string{
		"zb = f32[20,24] broadcast(z), dimensions={}",
		"zf = f32[480] broadcast(z), dimensions={}\n  zb = f32[20,24] reshape(zf)",
		"zh = f16[] constant(0)\n  zc = f32[] convert(zh)\n  zb = f32[20,24] broadcast(zc), dimensions={}",
	} {
		m := parseText(t, `HloModule select_zero
ENTRY main {
  a = f8e4m3fn[2,20] parameter(0)
  b = f8e5m2[20,24] parameter(1)
  p = pred[20,24] parameter(2)
  af = f32[2,20] convert(a)
  bf = f32[20,24] convert(b)
  z = f32[] constant(0)
  `+zero+`
  bs = f32[20,24] select(p, bf, zb)
  ROOT d = f32[2,24] dot(af, bs), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`)
		before := report.Check(m)
		if g := before.GEMMs; len(g) != 1 || g[0].B == nil || g[0].B.Parameter != 1 {
			t.Fatalf("%s: the dot's rhs is not traced to parameter 1: %+v", zero, g)
		}
		if ds := fuse.Rewrite(m, fuse.Options{}).Decisions; len(ds) != 1 || !ds[0].Fused {
			t.Fatalf("%s: decisions %+v", zero, ds)
		}
		after := report.Check(m)
		if g := after.GEMMs; len(g) != 1 || g[0].B == nil || g[0].B.Parameter != 1 {
			t.Fatalf("%s: the call's rhs is not traced to parameter 1: %+v", zero, g)
		}
		d := report.Diff(before, after)
		if len(d.Gained) != 1 || len(d.Added)+len(d.Removed) != 0 || d.Gained[0].By != "dataflow" {
			t.Errorf("%s: gained %d, added %d, removed %d, pairs %+v", zero, len(d.Gained), len(d.Added), len(d.Removed), d.Pairs)
		}
	}
}

// TestDiffPairsWideSides diffs two dots that share an FP8 lhs and have wide rhs of one shape (different
// parameters) with the same module where one dot is in a GEMM fusion: the rhs, traced out of the fusion to
// its parameter, tell the two apart, so nothing is ambiguous.
func TestDiffPairsWideSides(t *testing.T) {
	plain := `HloModule wide
ENTRY main {
  a = f8e4m3fn[16,32] parameter(0)
  w1 = f16[32,16] parameter(1)
  w2 = f16[32,16] parameter(2)
  af = f16[16,32] convert(a)
  d1 = f32[16,16] dot(af, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  d2 = f32[16,16] dot(af, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT s = f32[16,16] add(d1, d2)
}`
	wrapped := `HloModule wide
gemm_fusion {
  a = f8e4m3fn[16,32] parameter(0)
  w1 = f16[32,16] parameter(1)
  af = f16[16,32] convert(a)
  ROOT d1 = f32[16,16] dot(af, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
ENTRY main {
  a = f8e4m3fn[16,32] parameter(0)
  w1 = f16[32,16] parameter(1)
  w2 = f16[32,16] parameter(2)
  af = f16[16,32] convert(a)
  d1 = f32[16,16] fusion(a, w1), kind=kCustom, calls=gemm_fusion, backend_config={"fusion_backend_config":{"kind":"__triton_gemm"}}
  d2 = f32[16,16] dot(af, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT s = f32[16,16] add(d1, d2)
}`
	d := report.Diff(report.Check(parseText(t, plain)), report.Check(parseText(t, wrapped)))
	if d.Ambiguous != 0 || d.Same != 2 {
		t.Errorf("same %d, ambiguous %d, pairs %+v", d.Same, d.Ambiguous, d.Pairs)
	}
}

// TestDiffPairsChain diffs two FP8 GEMMs in a chain, of sizes that are not multiples of 16, with their
// rewrite: the second reads the first one's FP8 D, which the first call computes padded (and, with two
// free dimensions, canonical) and slices (and reshapes) back. That value is what the second GEMM reads,
// so both pair by dataflow with their calls.
func TestDiffPairsChain(t *testing.T) {
	chain := func(x string) string {
		free := strings.TrimSuffix(strings.TrimPrefix(x, "["), ",20]")
		c := strings.Count(x, ",")
		return fmt.Sprintf(`HloModule chain
ENTRY main {
  x = f8e4m3fn%[1]s parameter(0)
  w1 = f8e4m3fn[20,12] parameter(1)
  w2 = f8e4m3fn[12,7] parameter(2)
  xf = f32%[1]s convert(x)
  w1f = f32[20,12] convert(w1)
  d1 = f32[%[2]s,12] dot(xf, w1f), lhs_contracting_dims={%[3]d}, rhs_contracting_dims={0}
  lo = f32[%[2]s,12] broadcast(f32[] constant(-448)), dimensions={}
  hi = f32[%[2]s,12] broadcast(f32[] constant(448)), dimensions={}
  h = f8e4m3fn[%[2]s,12] convert(clamp(lo, d1, hi))
  hf = f32[%[2]s,12] convert(h)
  w2f = f32[12,7] convert(w2)
  ROOT d2 = f32[%[2]s,7] dot(hf, w2f), lhs_contracting_dims={%[3]d}, rhs_contracting_dims={0}
}`, x, free, c)
	}
	for _, x := range []string{"[5,20]", "[2,5,20]"} {
		t.Run(x, func(t *testing.T) {
			m := parseText(t, chain(x))
			before := report.Check(m)
			if ds := fuse.Rewrite(m, fuse.Options{}).Decisions; len(ds) != 2 || !ds[0].Fused || !ds[1].Fused {
				t.Fatalf("decisions %+v", ds)
			}
			d := report.Diff(before, report.Check(m))
			if len(d.Gained) != 2 || len(d.Added)+len(d.Removed) != 0 || d.Ambiguous != 0 {
				t.Fatalf("gained %d, added %d, removed %d, ambiguous %d", len(d.Gained), len(d.Added), len(d.Removed), d.Ambiguous)
			}
			for _, c := range d.Gained {
				if c.By != "dataflow" {
					t.Errorf("%s paired by %q", c.What, c.By)
				}
			}
		})
	}
}

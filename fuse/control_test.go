package fuse_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"octet/cublas"
	"octet/fuse"
	"octet/hlo"
	"octet/hlo/parser"
	"octet/internal/shared"
)

// TestRewriteKeepsControlDependencies rewrites FP8 dots whose dot, epilogue or result take part in control
// dependencies: the rewritten module verifies and parses back, and every ordering the input asked for
// still holds between the instructions that remain, through the call that replaced the dot.
func TestRewriteKeepsControlDependencies(t *testing.T) {
	const head = `HloModule control

ENTRY main {
  a = f8e4m3fn[32,64] parameter(0)
  b = f8e4m3fn[64,48] parameter(1)
  s = f32[] parameter(2)
  af = f32[32,64] convert(a)
  bf = f32[64,48] convert(b)
  before = f32[] negate(s)
`
	for _, tc := range []struct {
		name string
		body string
		// want are the orderings "x<y" (x is a control predecessor of y) the result must have, with
		// "call" for the FP8 call.
		want []string
	}{
		{"dot after a predecessor", `
  d = f32[32,48] dot(af, bf), lhs_contracting_dims={1}, rhs_contracting_dims={0}, control-predecessors={before}
  ROOT t = (f32[32,48], f32[]) tuple(d, before)
`, []string{"before<call"}},
		{"dot before a successor", `
  d = f32[32,48] dot(af, bf), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  after = f32[] negate(s), control-predecessors={d}
  ROOT t = (f32[32,48], f32[]) tuple(d, after)
`, []string{"call<after"}},
		{"absorbed scale with both", `
  d = f32[32,48] dot(af, bf), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  sb = f32[32,48] broadcast(s), dimensions={}
  m = f32[32,48] multiply(d, sb), control-predecessors={before}
  after = f32[] negate(s), control-predecessors={m}
  ROOT t = (f32[32,48], f32[]) tuple(m, after)
`, []string{"before<call", "call<after"}},
		{"scale between the dot and its successor", `
  d = f32[32,48] dot(af, bf), lhs_contracting_dims={1}, rhs_contracting_dims={0}, control-predecessors={before}
  mid = f32[] negate(before), control-predecessors={d}
  sb = f32[32,48] broadcast(s), dimensions={}
  m = f32[32,48] multiply(d, sb)
  after = f32[] negate(mid), control-predecessors={m}
  ROOT t = (f32[32,48], f32[]) tuple(m, after)
`, []string{"before<call", "call<mid", "call<after"}},
		{"successor between the dot and its scale", `
  d = f32[32,48] dot(af, bf), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  mid = f32[] negate(before), control-predecessors={d}
  sb = f32[32,48] broadcast(s), dimensions={}
  m = f32[32,48] multiply(d, sb), control-predecessors={mid}
  ROOT t = (f32[32,48], f32[]) tuple(m, mid)
`, []string{"refused: control dependencies order %mid after %d"}},
		{"successor as the scale", `
  d = f32[32,48] dot(af, bf), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  mid = f32[] negate(s), control-predecessors={d}
  sb = f32[32,48] broadcast(mid), dimensions={}
  ROOT m = f32[32,48] multiply(d, sb)
`, []string{"refused: control dependencies order %mid after %d"}},
		{"removed dequantize between two others", `
  a2 = f32[32,64] convert(a), control-predecessors={before}
  d = f32[32,48] dot(a2, bf), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  after = f32[] negate(s), control-predecessors={a2}
  ROOT t = (f32[32,48], f32[]) tuple(d, after)
`, []string{"before<after"}},
		{"dot after its own dequantize", `
  a2 = f32[32,64] convert(a), control-predecessors={before}
  ROOT d = f32[32,48] dot(a2, bf), lhs_contracting_dims={1}, rhs_contracting_dims={0}, control-predecessors={a2}
`, []string{"before<call"}},
		{"root dot with successor", `
  after = f32[] negate(s)
  ROOT d = f32[32,48] dot(af, bf), lhs_contracting_dims={1}, rhs_contracting_dims={0}, control-predecessors={before, after}
`, []string{"before<call", "after<call"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := parser.ParseString("control.hlo", head+tc.body+"}\n")
			if err != nil {
				t.Fatal(err)
			}
			if err := hlo.Verify(m); err != nil {
				t.Fatalf("the input does not verify: %v", err)
			}
			r := fuse.Rewrite(m, fuse.Options{})
			checkInvariants(t, m)
			c := m.Entry
			pos := map[*hlo.Instruction]int{}
			for i, in := range c.Instructions {
				pos[in] = i
			}
			for _, in := range c.Instructions {
				for _, x := range slices.Concat(in.Operands(), in.ControlPredecessors()) {
					if pos[x] >= pos[in] {
						t.Errorf("%%%s needs %%%s, which is not before it: the order has a cycle", in.Name, x.Name)
					}
				}
			}
			if len(r.Decisions) != 1 {
				t.Fatalf("%d decisions, want 1", len(r.Decisions))
			}
			if g := r.Decisions[0]; strings.HasPrefix(tc.want[0], "refused: ") {
				if g.Fused || !strings.HasPrefix(g.Reason, strings.TrimPrefix(tc.want[0], "refused: ")) {
					t.Errorf("fused %v, reason %q; want the refusal %q", g.Fused, g.Reason, tc.want[0])
				}
				return
			} else if !g.Fused {
				t.Fatalf("the dot was not fused: %s", g.Reason)
			}
			var call *hlo.Instruction
			byName := map[string]*hlo.Instruction{}
			for _, in := range c.Instructions {
				byName[in.Name] = in
				if in.Opcode == hlo.OpCustomCall && in.CustomCallTarget() == cublas.TargetF8 {
					call = in
				}
			}
			if call == nil {
				t.Fatal("no FP8 call")
			}
			byName["call"] = call
			for _, w := range tc.want {
				i := slices.Index([]byte(w), '<')
				x, y := byName[w[:i]], byName[w[i+1:]]
				if x == nil || y == nil {
					t.Fatalf("%s: no such instructions in the result", w)
				}
				if !ordered(x, y) {
					t.Errorf("%s: %%%s is no longer ordered before %%%s", w, x.Name, y.Name)
				}
				if pos[x] >= pos[y] {
					t.Errorf("%s: %%%s is listed after %%%s", w, x.Name, y.Name)
				}
			}
		})
	}
}

// ordered reports whether y comes after x through operands and control predecessors.
func ordered(x, y *hlo.Instruction) bool {
	seen := map[*hlo.Instruction]bool{}
	var reach func(in *hlo.Instruction) bool
	reach = func(in *hlo.Instruction) bool {
		if in == x {
			return true
		}
		if seen[in] {
			return false
		}
		seen[in] = true
		for _, o := range slices.Concat(in.Operands(), in.ControlPredecessors()) {
			if reach(o) {
				return true
			}
		}
		return false
	}
	return x != y && reach(y)
}

// TestCorpusControlChain orders the dots of every computation of the FP8 corpus, the examples and the
// Llama training step one after another with control dependencies, as a scheduler does, and rewrites
// them: the result verifies and parses back, each dot is fused exactly when it is without the chain, and
// the calls and the dots left keep the chain's order.
func TestCorpusControlChain(t *testing.T) {
	files, _ := filepath.Glob(shared.Path(t, "corpus", "fp8", "*.hlo"))
	examples, _ := filepath.Glob(shared.Path(t, "examples", "*.before.hlo"))
	files = append(files, examples...)
	files = append(files, shared.Path(t, "corpus", "hlo", "xla__tools__benchmarks__hlo__hlo_llama31_70b_fp8_16x8.hlo.gz"))
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			plain, m := load(t, f), load(t, f)
			chains := map[string][]string{} // computation -> its dots in order
			edges := 0
			for _, c := range m.Computations {
				var prev *hlo.Instruction
				for _, in := range c.Instructions {
					if in.Opcode != hlo.OpDot {
						continue
					}
					if prev != nil {
						in.AddControlPredecessor(prev)
						edges++
					}
					prev = in
					chains[c.Name] = append(chains[c.Name], in.Name)
				}
			}
			if err := hlo.Verify(m); err != nil {
				t.Fatalf("the chained input does not verify: %v", err)
			}
			want := fuse.Rewrite(plain, fuse.Options{})
			got := fuse.Rewrite(m, fuse.Options{})
			checkInvariants(t, m)
			if len(got.Decisions) != len(want.Decisions) {
				t.Fatalf("%d decisions with the chain, %d without", len(got.Decisions), len(want.Decisions))
			}
			now := map[string]string{} // dot -> the instruction that stands for it after the rewrite
			fused := 0
			for i, g := range got.Decisions {
				w := want.Decisions[i]
				if g.Fused != w.Fused && !strings.HasPrefix(g.Reason, "control dependencies order") {
					t.Errorf("%%%s: fused %v with the chain (%s), %v without", g.Dot, g.Fused, g.Reason, w.Fused)
				}
				if g.Fused {
					now[g.Dot] = g.Call
					fused++
				} else if w.Fused {
					t.Logf("%%%s: %s; absorbs %v", g.Dot, g.Reason, w.Absorbed)
				}
			}
			for comp, dots := range chains {
				c := m.Computation(comp)
				byName := map[string]*hlo.Instruction{}
				for _, in := range c.Instructions {
					byName[in.Name] = in
				}
				stand := func(dot string) *hlo.Instruction {
					if n, ok := now[dot]; ok {
						return byName[n]
					}
					return byName[dot]
				}
				for k := 1; k < len(dots); k++ {
					x, y := stand(dots[k-1]), stand(dots[k])
					if x == nil || y == nil {
						t.Errorf("%s: %%%s or %%%s is gone", comp, dots[k-1], dots[k])
						continue
					}
					if !ordered(x, y) {
						t.Errorf("%s: %%%s (for %%%s) is no longer ordered before %%%s (for %%%s)", comp, x.Name, dots[k-1], y.Name, dots[k])
					}
				}
			}
			t.Logf("%d control edges, %d of %d dots fused", edges, fused, len(got.Decisions))
		})
	}
}

// TestRewriteKeepsOrder checks that the rewrite keeps the instructions it does not touch in their order.
func TestRewriteKeepsOrder(t *testing.T) {
	path := shared.Path(t, "corpus", "hlo", "xla__tools__benchmarks__hlo__hlo_llama31_70b_fp8_16x8.hlo.gz")
	m := load(t, path)
	var before []string
	for _, in := range m.Entry.Instructions {
		before = append(before, in.Name)
	}
	fuse.Rewrite(m, fuse.Options{})
	kept := map[string]bool{}
	for _, in := range m.Entry.Instructions {
		kept[in.Name] = true
	}
	orig := map[string]bool{}
	for _, n := range before {
		orig[n] = true
	}
	var was, now []string
	for _, n := range before {
		if kept[n] {
			was = append(was, n)
		}
	}
	for _, in := range m.Entry.Instructions {
		if orig[in.Name] {
			now = append(now, in.Name)
		}
	}
	if len(was) < len(before)/2 || !slices.Equal(was, now) {
		t.Errorf("the %d instructions the rewrite kept changed order", len(was))
	}
}

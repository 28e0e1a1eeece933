package fuse_test

import (
	"slices"
	"strings"
	"testing"

	"octet/cublas"
	"octet/fuse"
	"octet/hlo"
	"octet/hlo/parser"
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

package report

import (
	"fmt"
	"strings"
	"testing"

	"octet/fuse"
	"octet/fuse/xlarules"
	"octet/hlo"
	"octet/hlo/parser"
)

// chainText is a module of n FP8 GEMMs in a chain, as a model's layers are: each dequantizes the previous
// one's FP8 output and an FP8 weight, multiplies them, and applies ReLU, the clamp and the conversion back to
// FP8 (what octet fuse absorbs into one call); the entry returns every layer's output in one tuple.
func chainText(n int) string {
	var b strings.Builder
	b.WriteString("HloModule chain\n\nENTRY main {\n")
	b.WriteString("  x0 = f8e4m3fn[16,32] parameter(0)\n  s = f32[] parameter(1)\n")
	b.WriteString("  zero = f32[] constant(0)\n  zb = f32[16,32] broadcast(zero), dimensions={}\n")
	b.WriteString("  hi = f32[] constant(448)\n  lo = f32[] constant(-448)\n")
	b.WriteString("  hib = f32[16,32] broadcast(hi), dimensions={}\n  lob = f32[16,32] broadcast(lo), dimensions={}\n")
	outs := make([]string, n)
	shapes := make([]string, n)
	for i := range n {
		fmt.Fprintf(&b, "  w%d = f8e4m3fn[32,32] parameter(%d)\n", i, i+2)
		fmt.Fprintf(&b, "  xc%d = f32[16,32] convert(x%d)\n  sb%d = f32[16,32] broadcast(s), dimensions={}\n", i, i, i)
		fmt.Fprintf(&b, "  xd%d = f32[16,32] multiply(xc%d, sb%d)\n  wc%d = f32[32,32] convert(w%d)\n", i, i, i, i, i)
		fmt.Fprintf(&b, "  d%d = f32[16,32] dot(xd%d, wc%d), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n", i, i, i)
		fmt.Fprintf(&b, "  r%d = f32[16,32] maximum(d%d, zb)\n  c%d = f32[16,32] clamp(lob, r%d, hib)\n", i, i, i, i)
		fmt.Fprintf(&b, "  x%d = f8e4m3fn[16,32] convert(c%d)\n", i+1, i)
		outs[i], shapes[i] = fmt.Sprintf("x%d", i+1), "f8e4m3fn[16,32]"
	}
	fmt.Fprintf(&b, "  ROOT t = (%s) tuple(%s)\n}\n", strings.Join(shapes, ", "), strings.Join(outs, ", "))
	return b.String()
}

// chain parses chainText(n); with fused, it is rewritten by octet fuse first (n FP8 calls).
func chain(t *testing.T, n int, fused bool) *hlo.Module {
	t.Helper()
	m, err := parser.ParseString("chain.hlo", chainText(n))
	if err != nil {
		t.Fatal(err)
	}
	if err := hlo.Verify(m); err != nil {
		t.Fatal(err)
	}
	if fused {
		r := fuse.Rewrite(m, fuse.Options{})
		if len(r.Decisions) != n || !r.Decisions[n-1].Fused {
			t.Fatalf("the rewrite fused %d dots of %d", len(r.Decisions), n)
		}
	}
	return m
}

// TestCheckLinear checks that Check's work grows linearly with the module: twice the GEMMs (and
// instructions), at most 2.2 times the steps and the allocations, on plain dots (whose absorbed epilogues
// octet fuse names) and on the calls octet fuse made of them.
func TestCheckLinear(t *testing.T) {
	const n = 400
	for _, fused := range []bool{false, true} {
		t.Run(map[bool]string{false: "dots", true: "calls"}[fused], func(t *testing.T) {
			small, large := chain(t, n, fused), chain(t, 2*n, fused)
			r1, s1 := check(small, xlarules.DefaultTarget(), false)
			r2, s2 := check(large, xlarules.DefaultTarget(), false)
			if len(r1.GEMMs) != n || len(r2.GEMMs) != 2*n {
				t.Fatalf("%d and %d GEMMs, want %d and %d", len(r1.GEMMs), len(r2.GEMMs), n, 2*n)
			}
			if float64(s2) > 2.2*float64(s1) {
				t.Errorf("%d GEMMs: %d steps; %d GEMMs: %d steps (%.2f times)", n, s1, 2*n, s2, float64(s2)/float64(s1))
			}
			a1 := testing.AllocsPerRun(1, func() { Check(small) })
			a2 := testing.AllocsPerRun(1, func() { Check(large) })
			if a2 > 2.2*a1 {
				t.Errorf("%d GEMMs: %.0f allocations; %d GEMMs: %.0f (%.2f times)", n, a1, 2*n, a2, a2/a1)
			}
			t.Logf("%d GEMMs: %d steps, %.0f allocations; %d GEMMs: %d steps, %.0f allocations", n, s1, a1, 2*n, s2, a2)
		})
	}
}

// controlChainText is a module of n FP8 GEMMs on the same operands, summed, each GEMM but the first run
// after the one before it (a chain of control edges through every GEMM, as a scheduler that serializes
// them leaves); with first, the GEMMs come first in the list and the sums after them, each add taking the
// running sum as its matrix bias.
func controlChainText(n int, first bool) string {
	var b, sums strings.Builder
	b.WriteString("HloModule control_chain\n\nENTRY main {\n  a = f8e4m3fn[16,16] parameter(0)\n  b = f8e4m3fn[16,16] parameter(1)\n")
	b.WriteString("  af = f32[16,16] convert(a)\n  bf = f32[16,16] convert(b)\n")
	for i := range n {
		fmt.Fprintf(&b, "  d%d = f32[16,16] dot(af, bf), lhs_contracting_dims={1}, rhs_contracting_dims={0}", i)
		if i > 0 {
			fmt.Fprintf(&b, ", control-predecessors={d%d}", i-1)
		}
		b.WriteString("\n")
		if i == 0 {
			continue
		}
		prev := "d0"
		if i > 1 {
			prev = fmt.Sprintf("s%d", i-1)
		}
		sum := fmt.Sprintf("  s%d = f32[16,16] add(%s, d%d)\n", i, prev, i)
		if first {
			sums.WriteString(sum)
		} else {
			b.WriteString(sum)
		}
	}
	fmt.Fprintf(&b, "%s  ROOT r = f32[16,16] copy(s%d)\n}\n", sums.String(), n-1)
	return b.String()
}

// TestCheckControlChainLinear checks that Check's allocations grow linearly with a module whose GEMMs are
// chained by control edges, with the GEMMs among their sums and before them: octet fuse's check of each
// GEMM's order (that no instruction comes between the dot and the add it absorbs) walked every GEMM
// before it and every one after it.
func TestCheckControlChainLinear(t *testing.T) {
	const n = 300
	for _, first := range []bool{false, true} {
		t.Run(map[bool]string{false: "GEMMs among the sums", true: "GEMMs first"}[first], func(t *testing.T) {
			module := func(n int) *hlo.Module {
				m, err := parser.ParseString("control_chain.hlo", controlChainText(n, first))
				if err != nil {
					t.Fatal(err)
				}
				if err := hlo.Verify(m); err != nil {
					t.Fatal(err)
				}
				return m
			}
			small, large := module(n), module(2*n)
			if r := Check(large); len(r.GEMMs) != 2*n || r.Fusible != 2*n-1 {
				t.Fatalf("%d GEMMs, %d fusible; want %d, %d", len(r.GEMMs), r.Fusible, 2*n, 2*n-1)
			}
			a1 := testing.AllocsPerRun(1, func() { Check(small) })
			a2 := testing.AllocsPerRun(1, func() { Check(large) })
			if a2 > 2.2*a1 {
				t.Errorf("%d GEMMs: %.0f allocations; %d GEMMs: %.0f (%.2f times)", n, a1, 2*n, a2, a2/a1)
			}
			t.Logf("%d GEMMs: %.0f allocations; %d GEMMs: %.0f", n, a1, 2*n, a2)
		})
	}
}

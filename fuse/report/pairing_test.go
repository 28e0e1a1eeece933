package report_test

import (
	"strings"
	"testing"

	"octet/fuse"
	"octet/fuse/report"
	"octet/hlo"
	"octet/hlo/parser"
)

// threeGEMMs holds three GEMMs of the same shapes on the same FP8 tensors a and b: %d1 and %d2 differ only
// in the scale of a, %d1 and %d3 only in their epilogue (ReLU). %BLOCK2 and %BLOCK3 are where a negate can
// be put between the dequantize and the dot, which octet fuse does not absorb: that GEMM is then left a
// dot, its fusion lost.
const threeGEMMs = `HloModule three

ENTRY main {
  a = f8e4m3fn[16,32] parameter(0)
  b = f8e4m3fn[32,32] parameter(1)
  s1 = f32[] parameter(2)
  s2 = f32[] parameter(3)
  ac = f32[16,32] convert(a)
  bc = f32[32,32] convert(b)
  s1b = f32[16,32] broadcast(s1), dimensions={}
  s2b = f32[16,32] broadcast(s2), dimensions={}
  a1 = f32[16,32] multiply(ac, s1b)
  a2 = f32[16,32] multiply(ac, s2b)
  a3 = f32[16,32] multiply(ac, s1b)
  d1 = f32[16,32] dot(a1, bc), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  d2 = f32[16,32] dot(BLOCK2, bc), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  d3 = f32[16,32] dot(BLOCK3, bc), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  zero = f32[] constant(0)
  zb = f32[16,32] broadcast(zero), dimensions={}
  r3 = f32[16,32] maximum(d3, zb)
  ROOT t = (f32[16,32], f32[16,32], f32[16,32]) tuple(d1, d2, r3)
}
`

// threeModule parses threeGEMMs with the GEMM numbered lose (2 or 3; 0 for none) blocked by a negate,
// rewritten by octet fuse when fused is set. It returns the module and, for each dot, the name of the
// GEMM a report gives it (the call that replaced it, or the dot).
func threeModule(t *testing.T, lose int, fused bool) (*hlo.Module, map[string]string) {
	t.Helper()
	src := threeGEMMs
	for _, i := range []string{"2", "3"} {
		operand := "a" + i
		if i == string(rune('0'+lose)) {
			src = strings.Replace(src, "  d"+i+" = ", "  n"+i+" = f32[16,32] negate(a"+i+")\n  d"+i+" = ", 1)
			operand = "n" + i
		}
		src = strings.Replace(src, "BLOCK"+i, operand, 1)
	}
	m, err := parser.ParseString("three.hlo", src)
	if err != nil {
		t.Fatal(err)
	}
	if err := hlo.Verify(m); err != nil {
		t.Fatal(err)
	}
	gemm := map[string]string{"d1": "d1", "d2": "d2", "d3": "d3"}
	if fused {
		for _, d := range fuse.Rewrite(m, fuse.Options{}).Decisions {
			if d.Fused {
				gemm[d.Dot] = d.Call
			}
		}
	}
	return m, gemm
}

// TestDiffTellsApartByScalesAndEpilogue diffs the three GEMMs against a reordered and renamed copy, as dots
// and as the calls octet fuse makes: each pairs with itself, by dataflow, and nothing changes, though
// the three read the same FP8 tensors and the copy lists them in another order.
func TestDiffTellsApartByScalesAndEpilogue(t *testing.T) {
	for _, fused := range []bool{false, true} {
		t.Run(map[bool]string{false: "dots", true: "calls"}[fused], func(t *testing.T) {
			m, gemms := threeModule(t, 0, fused)
			base := report.Check(m)
			m2, _ := threeModule(t, 0, fused)
			reorder(t, m2)
			names := rename(m2)
			d := report.Diff(base, report.Check(m2))
			if len(d.Lost)+len(d.Gained)+len(d.Changed)+len(d.Added)+len(d.Removed) != 0 || d.Same != 3 || d.Ambiguous != 0 {
				t.Errorf("lost %d, gained %d, changed %d, added %d, removed %d, same %d, ambiguous %d", len(d.Lost),
					len(d.Gained), len(d.Changed), len(d.Added), len(d.Removed), d.Same, d.Ambiguous)
			}
			if len(d.Pairs) != 3 {
				t.Fatalf("%d pairs, want 3", len(d.Pairs))
			}
			for _, p := range d.Pairs {
				if want := names[p.A]; p.B != want || p.By != "dataflow" {
					t.Errorf("%%%s paired with %%%s by %q, want %%%s by dataflow", p.A, p.B, p.By, want)
				}
			}
			if len(gemms) != 3 {
				t.Fatalf("GEMMs %v", gemms)
			}
		})
	}
}

// TestDiffCatchesTheLostOne fuses the three GEMMs, then compiles them again with one of them blocked (the
// one that differs from another only in its scale, then the one that differs only in its epilogue) and
// reordered: the diff reports exactly that GEMM lost, paired with its own dot.
func TestDiffCatchesTheLostOne(t *testing.T) {
	for _, lose := range []int{2, 3} {
		t.Run("d"+string(rune('0'+lose)), func(t *testing.T) {
			before, callOf := threeModule(t, 0, true)
			after, dotOf := threeModule(t, lose, true)
			reorder(t, after)
			names := rename(after)
			lost := "d" + string(rune('0'+lose))
			d := report.Diff(report.Check(before), report.Check(after))
			if len(d.Lost) != 1 || len(d.Gained)+len(d.Changed)+len(d.Added)+len(d.Removed) != 0 || d.Same != 2 || d.Ambiguous != 0 {
				t.Fatalf("lost %d, gained %d, changed %d, added %d, removed %d, same %d, ambiguous %d", len(d.Lost),
					len(d.Gained), len(d.Changed), len(d.Added), len(d.Removed), d.Same, d.Ambiguous)
			}
			c := d.Lost[0]
			if c.A == nil || c.B == nil || c.A.Name != callOf[lost] || c.B.Name != names[dotOf[lost]] || c.By != "dataflow" {
				t.Errorf("lost: %s; want %%%s paired with %%%s by dataflow", c.What, callOf[lost], names[dotOf[lost]])
			}
		})
	}
}

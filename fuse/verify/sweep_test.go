package verify_test

import (
	"testing"

	"octet/fuse"
	"octet/hlo/parser"
	"octet/interp"
)

// TestSharedValueBetweenGEMMs checks a module where one fused call's D is another call's C: two dots on
// the same operands added, the second fused alone and the first with the sum as its matrix bias. The
// comparison of the second GEMM must not drop the value the first one's bound still reads (it did, and
// the comparison dereferenced an empty value).
func TestSharedValueBetweenGEMMs(t *testing.T) {
	const src = `HloModule two_dots_shared

ENTRY main {
  a = f8e4m3fn[32,64] parameter(0)
  b = f8e4m3fn[64,48] parameter(1)
  s = f32[] parameter(2)
  af = f32[32,64] convert(a)
  bf = f32[64,48] convert(b)
  sb = f32[32,64] broadcast(s), dimensions={}
  ad = f32[32,64] multiply(af, sb)
  d1 = f32[32,48] dot(ad, bf), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  d2 = f32[32,48] dot(ad, bf), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT o = f32[32,48] add(d1, d2)
}
`
	orig, err := parser.ParseString("test.hlo", src)
	if err != nil {
		t.Fatal(err)
	}
	fused, _ := parser.ParseString("test.hlo", src)
	ds := fuse.Rewrite(fused, fuse.Options{}).Decisions
	if len(ds) != 2 || !ds[0].Fused || !ds[1].Fused {
		t.Fatalf("decisions %+v, want two fused", ds)
	}
	r, err := checkRandom(t, orig, fused, ds, interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK || len(r.GEMMs) != 2 {
		t.Fatalf("OK %v, %d GEMMs: %+v", r.OK, len(r.GEMMs), r)
	}
	for _, g := range r.GEMMs {
		if g.Evaluations != 1 || g.Failures != 0 {
			t.Errorf("%%%s: %d evaluations, %d failures", g.Dot, g.Evaluations, g.Failures)
		}
	}
}

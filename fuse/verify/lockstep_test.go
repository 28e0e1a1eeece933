package verify_test

import (
	"slices"
	"strings"
	"testing"

	"octet/fuse"
	"octet/fuse/verify"
	"octet/hlo/parser"
	"octet/interp"
)

// TestScanLockstep verifies a scan over 32 FP8 layers, each D 32 KiB: the original runs in lockstep with
// the rewritten module, so the comparison holds one layer's D at a time rather than all 32, and a
// memory budget that holds the two modules' buffers and a few D verifies the scan, where recording every
// evaluation first would not fit.
func TestScanLockstep(t *testing.T) {
	const layers, rows = 32, 256
	const d = rows * 32 * 4
	orig, fused, ds := rewriteSource(t, scanModule(layers, rows))
	res, err := checkRandom(t, orig, fused, ds, interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g := res.GEMMs[0]; !res.OK || g.Evaluations != layers {
		t.Fatalf("ok %v, %d evaluations", res.OK, g.Evaluations)
	}
	// The original records the next layer's D once the rewritten module has compared the last: it holds
	// one D at a time.
	if p := verify.PeakHeld(res); p != d {
		t.Errorf("the comparison held at most %d bytes of the original's values at once, where one D is %d bytes", p, d)
	}
	oNeed, fNeed := interp.EstimateMemory(orig).Bytes, interp.EstimateMemory(fused).Bytes
	budget := oNeed + fNeed + 12*d
	if room := budget - fNeed; room >= layers*d {
		t.Fatalf("the budget leaves %d bytes beyond the rewritten module's buffers, room for every D (%d bytes): the test shows nothing", room, layers*d)
	}
	res, err = checkRandom(t, orig, fused, ds, interp.Options{MaxMemory: budget})
	if err != nil {
		t.Fatalf("with a budget of %d bytes: %v", budget, err)
	}
	if g := res.GEMMs[0]; !res.OK || g.Evaluations != layers {
		t.Errorf("with a budget of %d bytes: ok %v, %d evaluations", budget, res.OK, g.Evaluations)
	}
}

// twoGEMMs has two FP8 GEMMs of one input; swapped lists the second's instructions first, so that the
// rewritten module computes its call before the first's while the original computes the first first.
const twoGEMMs = `HloModule two

ENTRY main {
  a = f8e4m3fn[16,32] parameter(0)
  b = f8e4m3fn[32,16] parameter(1)
  c = f8e4m3fn[32,16] parameter(2)
  af = f32[16,32] convert(a)
  bf = f32[32,16] convert(b)
  d1 = f32[16,16] dot(af, bf), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  cf = f32[32,16] convert(c)
  d2 = f32[16,16] dot(af, cf), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT out = (f32[16,16], f32[16,16]) tuple(d1, d2)
}
`

// TestLockstepOtherOrder checks that the lockstep does not stall where the rewritten module computes the
// GEMMs in another order than the original: the original, paused with the first GEMM's D that the
// rewritten module has not compared, goes on when the rewritten module waits for the second's.
func TestLockstepOtherOrder(t *testing.T) {
	swapped := strings.Replace(twoGEMMs, `  bf = f32[32,16] convert(b)
  d1 = f32[16,16] dot(af, bf), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  cf = f32[32,16] convert(c)
  d2 = f32[16,16] dot(af, cf), lhs_contracting_dims={1}, rhs_contracting_dims={0}
`, `  cf = f32[32,16] convert(c)
  d2 = f32[16,16] dot(af, cf), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bf = f32[32,16] convert(b)
  d1 = f32[16,16] dot(af, bf), lhs_contracting_dims={1}, rhs_contracting_dims={0}
`, 1)
	if swapped == twoGEMMs {
		t.Fatal("the module was not swapped")
	}
	orig := mustParse(t, "the module", twoGEMMs)
	fused := mustParse(t, "the swapped module", swapped)
	ds := fuse.Rewrite(fused, fuse.Options{}).Decisions
	if len(ds) != 2 || !ds[0].Fused || !ds[1].Fused {
		t.Fatalf("decisions %+v", ds)
	}
	res, err := checkRandom(t, orig, fused, ds, interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK || len(res.GEMMs) != 2 || res.GEMMs[0].Evaluations != 1 || res.GEMMs[1].Evaluations != 1 {
		t.Errorf("ok %v, GEMMs %+v", res.OK, res.GEMMs)
	}
	if verify.Waits(res) == 0 {
		t.Errorf("the rewritten module never waited for the original: the two computed in the same order")
	}
}

// TestLockstepEvaluationCounts checks the errors for a loop that runs more often in one module than in the
// other, in either direction, with the runs in lockstep. Where the original runs more often, its extra
// evaluation is found as it is recorded, if the rewritten module has ended by then, or else when the
// counts are compared at the end: the two runs are goroutines, and once every recorded value is compared
// the original does not wait, so either may come first; both errors say what is wrong.
func TestLockstepEvaluationCounts(t *testing.T) {
	src := scanModule(4, 16)
	three := strings.Replace(src, "n = s32[] constant(4)", "n = s32[] constant(3)", 1)
	for _, c := range []struct {
		orig, fused string
		want        []string
	}{
		{three, src, []string{"is evaluated more often than %y of the original (3 times)"}},
		{src, three, []string{
			"the original module: scan.hlo:20:3: %y: %y is evaluated more often than the rewritten module evaluates its call (3 times)",
			"the GEMM %d: the original evaluates %y 4 times, the rewritten module the call's %get-tuple-element 3 times",
		}},
	} {
		orig, err := parser.ParseString("scan.hlo", c.orig)
		if err != nil {
			t.Fatal(err)
		}
		fused, err := parser.ParseString("scan.hlo", c.fused)
		if err != nil {
			t.Fatal(err)
		}
		ds := fuse.Rewrite(fused, fuse.Options{}).Decisions
		_, err = checkRandom(t, orig, fused, ds, interp.Options{})
		if err == nil || !slices.ContainsFunc(c.want, func(w string) bool { return strings.Contains(err.Error(), w) }) {
			t.Errorf("got %v, want an error with one of %q", err, c.want)
		}
	}
}

package fuse_test

import (
	"fmt"
	"math"
	"testing"

	"octet/dtype"
	"octet/fuse"
	"octet/hlo"
	"octet/hlo/parser"
	"octet/interp"
)

// paddedModule is an FP8 GEMM of sizes m x k by k x n with an FP8 output and its abs-max, built so that
// the result with a bias is exactly 0 everywhere: A and B hold 1, A's scale is -1 and the bias (a vector or a matrix,
// or none) holds k. Rows and columns the rewrite adds to reach multiples of 16 compute the bias alone, k,
// so an abs-max that counted them would be k instead of 0.
func paddedModule(m, n, k int64, bias string) string {
	add, y := "", "y"
	switch bias {
	case "vector":
		add = fmt.Sprintf(`  bv = bf16[] constant(%d)
  bias = bf16[%d] broadcast(bv), dimensions={}
  bb = bf16[%d,%d] broadcast(bias), dimensions={1}
  y = bf16[%d,%d] add(d, bb)`, k, n, m, n, m, n)
	case "matrix":
		add = fmt.Sprintf(`  cv = f32[] constant(%d)
  cb = f32[%d,%d] broadcast(cv), dimensions={}
  c = bf16[%d,%d] convert(cb)
  y = bf16[%d,%d] add(d, c)`, k, m, n, m, n, m, n)
	default:
		// No bias: the result is -k, and padding adds zeros, which never win the abs-max.
		y = "d"
	}
	return fmt.Sprintf(`HloModule padded

max {
  p0 = bf16[] parameter(0)
  p1 = bf16[] parameter(1)
  ROOT r = bf16[] maximum(p0, p1)
}

ENTRY e {
  one = f8e4m3fn[] constant(1)
  a = f8e4m3fn[%[1]d,%[3]d] broadcast(one), dimensions={}
  b = f8e4m3fn[%[3]d,%[2]d] broadcast(one), dimensions={}
  ac = bf16[%[1]d,%[3]d] convert(a)
  ms = bf16[] constant(-1)
  msb = bf16[%[1]d,%[3]d] broadcast(ms), dimensions={}
  as = bf16[%[1]d,%[3]d] multiply(ac, msb)
  bc = bf16[%[3]d,%[2]d] convert(b)
  d = bf16[%[1]d,%[2]d] dot(as, bc), lhs_contracting_dims={1}, rhs_contracting_dims={0}
%[4]s
  ay = bf16[%[1]d,%[2]d] abs(%[5]s)
  zero = bf16[] constant(0)
  amax = bf16[] reduce(ay, zero), dimensions={0,1}, to_apply=max
  lo = bf16[] constant(-448)
  hi = bf16[] constant(448)
  lob = bf16[%[1]d,%[2]d] broadcast(lo), dimensions={}
  hib = bf16[%[1]d,%[2]d] broadcast(hi), dimensions={}
  cl = bf16[%[1]d,%[2]d] clamp(lob, %[5]s, hib)
  out = f8e4m3fn[%[1]d,%[2]d] convert(cl)
  ROOT t = (f8e4m3fn[%[1]d,%[2]d], bf16[]) tuple(out, amax)
}
`, m, n, k, add, y)
}

// TestPaddedAbsMax rewrites GEMMs padded in m, n and k, with and without a vector or matrix bias, and
// checks that D and the abs-max of the rewritten module are exactly those of the original: the padded rows
// and columns are never seen.
func TestPaddedAbsMax(t *testing.T) {
	for _, bias := range []string{"none", "vector", "matrix"} {
		for _, size := range [][3]int64{{16, 16, 16}, {13, 16, 16}, {16, 17, 16}, {16, 16, 13}, {13, 17, 13}} {
			m, n, k := size[0], size[1], size[2]
			t.Run(fmt.Sprintf("%s/%dx%dx%d", bias, m, n, k), func(t *testing.T) {
				src := paddedModule(m, n, k, bias)
				orig, err := parser.ParseString("padded.hlo", src)
				if err != nil {
					t.Fatal(err)
				}
				mod, _ := parser.ParseString("padded.hlo", src)
				r := fuse.Rewrite(mod, fuse.Options{})
				if len(r.Decisions) != 1 || !r.Decisions[0].Fused {
					t.Fatalf("not fused: %+v", r.Decisions)
				}
				g := r.Decisions[0]
				// The abs-max is absorbed unless the padded rows would hold a vector bias.
				wantDamax := !(bias == "vector" && m%16 != 0)
				if g.Damax != wantDamax {
					t.Errorf("damax = %v, want %v:\n%v", g.Damax, wantDamax, g.Explain)
				}
				checkInvariants(t, mod)
				want, err := interp.Run(orig, nil, interp.Options{})
				if err != nil {
					t.Fatal(err)
				}
				got, err := interp.Run(mod, nil, interp.Options{})
				if err != nil {
					t.Fatal(err)
				}
				w, gt := want.Flatten(), got.Flatten()
				for i := range w {
					wv, gv := w[i].Float64s(), gt[i].Float64s()
					for j := range wv {
						if wv[j] != gv[j] && !(math.IsNaN(wv[j]) && math.IsNaN(gv[j])) {
							t.Fatalf("result %d element %d: %g, the original gives %g", i, j, gv[j], wv[j])
						}
					}
				}
				if a := w[1].Float64s()[0]; bias != "none" && a != 0 {
					t.Fatalf("the original's abs-max is %g, want 0 (the test is wrong)", a)
				}
			})
		}
	}
}

// TestReciprocalInScaleType checks that a dequantize by divide becomes the scale 1/s computed in s's type
// and then converted to f32, as XLA computes it: a bf16 1/3 is 0.333984375, not f32's 0.33333334.
func TestReciprocalInScaleType(t *testing.T) {
	src := `HloModule inv

ENTRY e {
  a = f8e4m3fn[16,16] parameter(0)
  b = f8e4m3fn[16,16] parameter(1)
  s = bf16[] constant(3)
  ac = bf16[16,16] convert(a)
  sb = bf16[16,16] broadcast(s), dimensions={}
  ad = bf16[16,16] divide(ac, sb)
  bc = bf16[16,16] convert(b)
  ROOT d = bf16[16,16] dot(ad, bc), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}
`
	m, err := parser.ParseString("inv.hlo", src)
	if err != nil {
		t.Fatal(err)
	}
	r := fuse.Rewrite(m, fuse.Options{})
	if len(r.Decisions) != 1 || !r.Decisions[0].Fused {
		t.Fatalf("not fused: %+v", r.Decisions)
	}
	checkInvariants(t, m)
	call := fusedCalls(t, m)[0]
	x := call.AScale
	if x.Opcode != hlo.OpConvert || x.Operand(0).Opcode != hlo.OpDivide || x.Operand(0).Shape.Elem != dtype.BF16 {
		t.Fatalf("a_scale is %s %%%s, want convert(divide(1, s)) with the divide in bf16", x.Opcode, x.Name)
	}
}

package interp

import (
	"testing"

	"octet/tensor"
)

// TestScanCumsum runs the scan jnp.cumsum lowers to, forwards and reversed, and compares it with the
// running float32 sum of each row.
func TestScanCumsum(t *testing.T) {
	for _, reverse := range []bool{false, true} {
		attr := ""
		if reverse {
			attr = ", is_reverse=true"
		}
		m := parseModule(t, `HloModule m
add {
  x = f32[8] parameter(0)
  acc = f32[8] parameter(1)
  s = f32[8] add(x, acc)
  ROOT t = (f32[8], f32[8]) tuple(s, s)
}
ENTRY e {
  v = f32[8,300] parameter(0)
  zero = f32[] constant(0)
  init = f32[8] broadcast(zero), dimensions={}
  ROOT c = (f32[8,300], f32[8]) scan(v, init), dimensions={1}, num_carries=1`+attr+`, is_associative=true, to_apply=add
}`)
		args, r := runRandom(t, m, 3)
		v := tensor.View[float32](args[0].Array)
		sums, totals := tensor.View[float32](r.Tuple[0].Array), tensor.View[float32](r.Tuple[1].Array)
		for i := range 8 {
			var acc float32
			for step := range 300 {
				j := step
				if reverse {
					j = 299 - step
				}
				acc += v[i*300+j]
				if got := sums[i*300+j]; got != acc {
					t.Fatalf("reverse=%v: row %d, position %d: %g, the running sum is %g", reverse, i, j, got, acc)
				}
			}
			if totals[i] != acc {
				t.Errorf("reverse=%v: row %d: carry %g, the sum is %g", reverse, i, totals[i], acc)
			}
		}
	}
}

// TestScanExpanderForm compares a scan of two inputs and two carries, reversed, with the while loop XLA's
// ScanExpander (scan_expander.cc) makes of it: the state (position, carries..., inputs..., outputs...), the
// inputs sliced at position length-1-i, the outputs written there.
func TestScanExpanderForm(t *testing.T) {
	m := parseModule(t, `HloModule m
f {
  x = f32[3] parameter(0)
  y = s32[3] parameter(1)
  c = f32[3] parameter(2)
  n = s32[] parameter(3)
  yf = f32[3] convert(y)
  p = f32[3] multiply(x, c)
  o = f32[3] add(p, yf)
  one = s32[] constant(1)
  n1 = s32[] add(n, one)
  ROOT t = (f32[3], f32[3], s32[]) tuple(o, o, n1)
}
cond {
  s = (s64[], f32[3], s32[], f32[5,3], s32[5,3], f32[5,3]) parameter(0)
  i = s64[] get-tuple-element(s), index=0
  len = s64[] constant(5)
  ROOT lt = pred[] compare(i, len), direction=LT
}
body {
  s = (s64[], f32[3], s32[], f32[5,3], s32[5,3], f32[5,3]) parameter(0)
  i = s64[] get-tuple-element(s), index=0
  c = f32[3] get-tuple-element(s), index=1
  n = s32[] get-tuple-element(s), index=2
  x = f32[5,3] get-tuple-element(s), index=3
  y = s32[5,3] get-tuple-element(s), index=4
  out = f32[5,3] get-tuple-element(s), index=5
  last = s64[] constant(4)
  at = s64[] subtract(last, i)
  zero = s64[] constant(0)
  xs = f32[1,3] dynamic-slice(x, at, zero), dynamic_slice_sizes={1,3}
  xe = f32[3] reshape(xs)
  ys = s32[1,3] dynamic-slice(y, at, zero), dynamic_slice_sizes={1,3}
  ye = s32[3] reshape(ys)
  r = (f32[3], f32[3], s32[]) call(xe, ye, c, n), to_apply=f
  o = f32[3] get-tuple-element(r), index=0
  c2 = f32[3] get-tuple-element(r), index=1
  n2 = s32[] get-tuple-element(r), index=2
  o2 = f32[1,3] reshape(o)
  out2 = f32[5,3] dynamic-update-slice(out, o2, at, zero)
  one = s64[] constant(1)
  i2 = s64[] add(i, one)
  ROOT next = (s64[], f32[3], s32[], f32[5,3], s32[5,3], f32[5,3]) tuple(i2, c2, n2, x, y, out2)
}
ENTRY e {
  x = f32[5,3] parameter(0)
  y = s32[5,3] parameter(1)
  c = f32[3] parameter(2)
  n = s32[] constant(0)
  scan = (f32[5,3], f32[3], s32[]) scan(x, y, c, n), dimensions={0}, num_carries=2, is_reverse=true, to_apply=f
  i = s64[] constant(0)
  z = f32[] constant(0)
  out = f32[5,3] broadcast(z), dimensions={}
  init = (s64[], f32[3], s32[], f32[5,3], s32[5,3], f32[5,3]) tuple(i, c, n, x, y, out)
  w = (s64[], f32[3], s32[], f32[5,3], s32[5,3], f32[5,3]) while(init), condition=cond, body=body
  wo = f32[5,3] get-tuple-element(w), index=5
  wc = f32[3] get-tuple-element(w), index=1
  wn = s32[] get-tuple-element(w), index=2
  loop = (f32[5,3], f32[3], s32[]) tuple(wo, wc, wn)
  ROOT t = ((f32[5,3], f32[3], s32[]), (f32[5,3], f32[3], s32[])) tuple(scan, loop)
}`)
	_, r := runRandom(t, m, 5)
	if !sameValue(r.Tuple[0], r.Tuple[1]) {
		t.Errorf("scan\n%s\nits while loop\n%s", describe(r.Tuple[0]), describe(r.Tuple[1]))
	}
	if n := r.Tuple[0].Tuple[2].Array; scalarI64(n) != 5 {
		t.Errorf("the counting carry is %d after 5 positions", scalarI64(n))
	}
}

// TestScanOneResult runs scans whose function returns one value: only an output, or only a carry.
func TestScanOneResult(t *testing.T) {
	got, err := evalText(t, `HloModule m
neg {
  x = s32[] parameter(0)
  ROOT n = s32[] negate(x)
}
ENTRY e {
  v = s32[4] parameter(0)
  ROOT s = s32[4] scan(v), dimensions={0}, num_carries=0, to_apply=neg
}`, "s32[4] {1, -2, 3, 0}")
	if err != nil {
		t.Fatal(err)
	}
	if want := val(t, "s32[4] {-1, 2, -3, 0}"); !sameValue(got, want) {
		t.Errorf("only an output: %s, want %s", describe(got), describe(want))
	}
	got, err = evalText(t, `HloModule m
max {
  x = s32[] parameter(0)
  m = s32[] parameter(1)
  ROOT r = s32[] maximum(x, m)
}
ENTRY e {
  v = s32[4] parameter(0)
  lo = s32[] constant(-100)
  ROOT s = s32[] scan(v, lo), dimensions={0}, num_carries=1, to_apply=max
}`, "s32[4] {1, -2, 7, 0}")
	if err != nil {
		t.Fatal(err)
	}
	if want := val(t, "s32[] 7"); !sameValue(got, want) {
		t.Errorf("only a carry: %s, want %s", describe(got), describe(want))
	}
}

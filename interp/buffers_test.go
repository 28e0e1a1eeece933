package interp

import (
	"testing"

	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

// TestRecycledBuffers runs programs in which arrays outlive the instruction that made them through other
// values sharing their memory (a reshape, a tuple, a call's result, a while loop's state): memory is
// reused for later results only where no value refers to it, so every result is what evaluating each
// instruction into fresh memory gives.
func TestRecycledBuffers(t *testing.T) {
	m := parseModule(t, `HloModule recycle

double (p: f32[256]) -> f32[256] {
  p = f32[256] parameter(0)
  ROOT d = f32[256] add(p, p)
}

cond (s: (s32[], f32[256])) -> pred[] {
  s = (s32[], f32[256]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  ROOT lt = pred[] compare(i, s32[] constant(3)), direction=LT
}

body (s: (s32[], f32[256])) -> (s32[], f32[256]) {
  s = (s32[], f32[256]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[256] get-tuple-element(s), index=1
  one = f32[] constant(1)
  ob = f32[256] broadcast(one), dimensions={}
  w = f32[256] add(v, ob)
  n = s32[] add(i, s32[] constant(1))
  ROOT t = (s32[], f32[256]) tuple(n, w)
}

ENTRY e {
  x = f32[256] parameter(0)
  a = f32[256] add(x, x)
  r = f32[16,16] reshape(a)
  b = f32[256] multiply(a, a)
  c = f32[256] add(b, b)
  keep = (f32[256], f32[256]) tuple(c, c)
  d = f32[256] call(b), to_apply=double
  g = f32[256] get-tuple-element(keep), index=0
  e2 = f32[256] subtract(d, g)
  st = (s32[], f32[256]) tuple(s32[] constant(0), e2)
  wl = (s32[], f32[256]) while(st), condition=cond, body=body
  lv = f32[256] get-tuple-element(wl), index=1
  f = f32[256] multiply(lv, lv)
  rr = f32[256] reshape(r)
  ROOT out = (f32[256], f32[256], f32[256], f32[256]) tuple(rr, f, lv, d)
}`)
	x := make([]float32, 256)
	for i := range x {
		x[i] = float32(i%17) - 8
	}
	r, err := Run(m, []Value{ArrayValue(tensor.FromFloat32([]int64{256}, x))}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := r.Flatten()
	for i, v := range x {
		a := v + v
		b := a * a
		c := b + b
		d := b + b
		lv := d - c + 3
		want := []float32{a, lv * lv, lv, d}
		for j, w := range want {
			if got := tensor.View[float32](out[j])[i]; got != w {
				t.Fatalf("output %d, element %d: %v, want %v", j, i, got, w)
			}
		}
	}
}

// TestRecycledBuffersLoop runs a loop whose body makes a new array at every iteration: the arrays that
// leave the body (its result) are not held by the evaluation, so that they do not pile up.
func TestRecycledBuffersLoop(t *testing.T) {
	m := parseModule(t, `HloModule loop

cond (s: (s32[], f32[4096])) -> pred[] {
  s = (s32[], f32[4096]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  ROOT lt = pred[] compare(i, s32[] constant(200)), direction=LT
}

body (s: (s32[], f32[4096])) -> (s32[], f32[4096]) {
  s = (s32[], f32[4096]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[4096] get-tuple-element(s), index=1
  w = f32[4096] add(v, v)
  h = f32[4096] multiply(w, w)
  n = s32[] add(i, s32[] constant(1))
  ROOT t = (s32[], f32[4096]) tuple(n, h)
}

ENTRY e {
  x = f32[4096] parameter(0)
  st = (s32[], f32[4096]) tuple(s32[] constant(0), x)
  wl = (s32[], f32[4096]) while(st), condition=cond, body=body
  ROOT r = f32[4096] get-tuple-element(wl), index=1
}`)
	x := ArrayValue(tensor.New(dtype.F32, []int64{4096}))
	e := &evaluator{mod: m, gemm: defaultMatMuler{}, threads: 1, comps: map[*hlo.Computation]*compiled{}, buffers: newBuffers(m, Options{})}
	if _, err := e.call(m.Entry, []Value{x}); err != nil {
		t.Fatal(err)
	}
	if len(e.buffers.mine) > 4 || len(e.buffers.refs) > 4 {
		t.Errorf("after 200 iterations the evaluation holds %d arrays it made and counts references to %d", len(e.buffers.mine), len(e.buffers.refs))
	}
}

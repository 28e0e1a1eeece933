package interp

import (
	"fmt"
	"runtime"
	"strings"
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

// TestRecycledBuffersCalls runs a chain of calls, each computing a new array (a ReLU, as JAX writes it):
// the result of a call passes to the frame that holds the call's value, which recycles it after its last
// use, so that the chain reuses a few arrays instead of making one per call.
func TestRecycledBuffersCalls(t *testing.T) {
	var b strings.Builder
	b.WriteString(`HloModule calls

relu (p: f32[4096]) -> f32[4096] {
  p = f32[4096] parameter(0)
  z = f32[] constant(0)
  zb = f32[4096] broadcast(z), dimensions={}
  ROOT m = f32[4096] maximum(p, zb)
}

ENTRY e {
  a0 = f32[4096] parameter(0)
`)
	const n = 20
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  r%d = f32[4096] call(a%d), to_apply=relu\n  a%d = f32[4096] add(r%d, r%d)\n", i, i, i+1, i, i)
	}
	fmt.Fprintf(&b, "  ROOT out = f32[4096] negate(a%d)\n}\n", n)
	m := parseModule(t, b.String())
	xs := make([]float32, 4096)
	for i := range xs {
		xs[i] = float32(i%7) - 3
	}
	e := &evaluator{mod: m, gemm: defaultMatMuler{}, threads: 1, comps: map[*hlo.Computation]*compiled{}, buffers: newBuffers(m, Options{})}
	r, err := e.call(m.Entry, []Value{ArrayValue(tensor.FromFloat32([]int64{4096}, xs))})
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range xs {
		want := -max(x, 0) * (1 << n)
		if got := tensor.View[float32](r.Array)[i]; got != want {
			t.Fatalf("element %d: %v, want %v", i, got, want)
		}
	}
	if e.buffers.fresh > 4 {
		t.Errorf("a chain of %d calls allocated %d arrays", n, e.buffers.fresh)
	}
}

// TestSpareBuffers runs a program twice: the second run finds the memory the first left free, so that it
// allocates none of its arrays again (a garbage collection between the runs may empty the pool: the
// test tries three times).
func TestSpareBuffers(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops items at random")
	}
	m := parseModule(t, `HloModule spare

ENTRY e {
  x = f32[65536] parameter(0)
  a = f32[65536] add(x, x)
  b = f32[65536] multiply(a, x)
  c = f32[65536] subtract(b, a)
  d = f32[65536] add(c, b)
  ROOT r = f32[] reduce(d, f32[] constant(0)), dimensions={0}, to_apply=%sum
}

%sum (p: f32[], q: f32[]) -> f32[] {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT s = f32[] add(p, q)
}`)
	x := []Value{ArrayValue(tensor.New(dtype.F32, []int64{65536}))}
	const array = 65536 * 4
	var allocated uint64
	for try := 0; try < 3; try++ {
		if _, err := Run(m, x, Options{Threads: 1}); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := Run(m, x, Options{Threads: 1}); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		if allocated = after.TotalAlloc - before.TotalAlloc; allocated < array {
			return
		}
	}
	t.Errorf("a second run allocated %d bytes, arrays of %d bytes included", allocated, array)
}

// TestRecycledBuffersDonations runs loops whose operands' references pass to what the body calls and
// the body itself, where the callee cannot take them: an elementwise fusion run by chunks, a body whose
// parameter is intercepted. The frame drops them instead, so that after 200 iterations the evaluation
// holds a few arrays, not one per iteration.
func TestRecycledBuffersDonations(t *testing.T) {
	m := parseModule(t, `HloModule loop

fused {
  a = f32[4096] parameter(0)
  b = f32[4096] add(a, a)
  ROOT c = f32[4096] multiply(b, a)
}

cond (s: (s32[], f32[4096])) -> pred[] {
  s = (s32[], f32[4096]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  ROOT lt = pred[] compare(i, s32[] constant(200)), direction=LT
}

body (s: (s32[], f32[4096])) -> (s32[], f32[4096]) {
  s = (s32[], f32[4096]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[4096] get-tuple-element(s), index=1
  w = f32[4096] negate(v)
  h = f32[4096] fusion(w), kind=kLoop, calls=fused
  n = s32[] add(i, s32[] constant(1))
  ROOT t = (s32[], f32[4096]) tuple(n, h)
}

ENTRY e {
  x = f32[4096] parameter(0)
  st = (s32[], f32[4096]) tuple(s32[] constant(0), x)
  wl = (s32[], f32[4096]) while(st), condition=cond, body=body
  ROOT r = f32[4096] get-tuple-element(wl), index=1
}`)
	var param *hlo.Instruction
	for _, c := range m.Computations {
		if c.Name == "body" {
			param = c.Params[0]
		}
	}
	if p := m.Computations[0]; p.Name != "fused" {
		t.Fatalf("the first computation is %s", p.Name)
	}
	for _, intercept := range []bool{false, true} {
		x := ArrayValue(tensor.New(dtype.F32, []int64{4096}))
		e := &evaluator{mod: m, gemm: defaultMatMuler{}, threads: 1, comps: map[*hlo.Computation]*compiled{}, buffers: newBuffers(m, Options{})}
		if intercept {
			e.opts.Intercept = &Intercept{Instructions: map[*hlo.Instruction]bool{param: true},
				Func: func(_ *hlo.Instruction, v Value) (Value, error) { return v, nil }}
		}
		if e.chunkPlanOf(m.Computations[0]) == nil {
			t.Fatal("the fusion is not run by chunks")
		}
		if _, err := e.call(m.Entry, []Value{x}); err != nil {
			t.Fatal(err)
		}
		if len(e.buffers.mine) > 6 || len(e.buffers.refs) > 6 {
			t.Errorf("intercepted %v: after 200 iterations the evaluation holds %d arrays it made and counts references to %d", intercept, len(e.buffers.mine), len(e.buffers.refs))
		}
	}
}

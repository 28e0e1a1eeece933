package interp

import (
	"testing"

	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

// loopConstModule is a loop of 6 iterations whose body adds to its sum a constant reduce (of an iota
// squared), a constant rng-bit-generator's bits (deterministic) and an rng's value (not: a fresh stream
// each evaluation), each through its own chain of constant instructions, and a mask made of iotas.
const loopConstModule = `HloModule loopconst

add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}

body {
  p = (s32[], s32[], s32[64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  acc = s32[] get-tuple-element(p), index=1
  v = s32[64] get-tuple-element(p), index=2
  io = s32[4096] iota(), iota_dimension=0
  sq = s32[4096] multiply(io, io)
  zero = s32[] constant(0)
  total = s32[] reduce(sq, zero), dimensions={0}, to_apply=add
  state = u64[2] constant({7, 9})
  rbg = (u64[2], u32[64]) rng-bit-generator(state), algorithm=rng_philox
  bits = u32[64] get-tuple-element(rbg), index=1
  sbits = s32[64] bitcast-convert(bits)
  lo = s32[] constant(0)
  hi = s32[] constant(1000)
  r = s32[64] rng(lo, hi), distribution=rng_uniform
  ia = s32[64,64] iota(), iota_dimension=0
  ib = s32[64,64] iota(), iota_dimension=1
  mask = pred[64,64] compare(ia, ib), direction=GE
  maskc = s32[64,64] convert(mask)
  rows = s32[64] reduce(maskc, zero), dimensions={1}, to_apply=add
  w = s32[64] add(v, sbits)
  w2 = s32[64] add(w, r)
  w3 = s32[64] multiply(w2, rows)
  part = s32[] reduce(w3, zero), dimensions={0}, to_apply=add
  acc1 = s32[] add(acc, total)
  acc2 = s32[] add(acc1, part)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], s32[], s32[64]) tuple(i1, acc2, w)
}

cond {
  p = (s32[], s32[], s32[64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(6)
  ROOT lt = pred[] compare(i, n), direction=LT
}

ENTRY e {
  v0 = s32[64] parameter(0)
  z = s32[] constant(0)
  t0 = (s32[], s32[], s32[64]) tuple(z, z, v0)
  w = (s32[], s32[], s32[64]) while(t0), condition=cond, body=body
  ROOT acc = s32[] get-tuple-element(w), index=1
}
`

// calls returns the number of evaluations of each named instruction in a profile.
func calls(p *Profile) map[string]int64 {
	out := map[string]int64{}
	for _, s := range p.Stats() {
		out[s.Inst.Name] = s.Calls
	}
	return out
}

// TestLoopConstants runs a loop whose body has constant parts: those that do work (the reduce of a
// squared iota, the rng-bit-generator, the mask's row counts) are evaluated once, with what only they
// need; the rng, whose value changes at every evaluation, and what it feeds run every iteration; the
// result has the same bits as when nothing is kept (a budget with no room beyond the program's needs).
func TestLoopConstants(t *testing.T) {
	evaluatorOnly(t)
	m := parseModule(t, loopConstModule)
	arg := ArrayValue(tensor.FromBits(dtype.S32, []int64{64}, make([]uint64, 64)))
	p := NewProfile()
	got, err := Run(m, []Value{arg}, Options{Profile: p})
	if err != nil {
		t.Fatal(err)
	}
	n := calls(p)
	for name, want := range map[string]int64{
		"io": 1, "sq": 1, "total": 1, "rbg": 1, "bits": 1, "sbits": 1, "ia": 1, "ib": 1, "mask": 1, "maskc": 1, "rows": 1,
		"r": 6, "w": 6, "w2": 6, "part": 6, "i": 6,
	} {
		if n[name] != want {
			t.Errorf("%%%s evaluated %d times, want %d", name, n[name], want)
		}
	}
	est, err := checkMemory(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if est.LoopConstants == 0 {
		t.Errorf("LoopConstants = 0")
	}
	// With no room, nothing is kept: every instruction runs every iteration, and the bits are the same.
	p2 := NewProfile()
	plain, err := Run(m, []Value{arg}, Options{Profile: p2, MaxMemory: est.Bytes})
	if err != nil {
		t.Fatal(err)
	}
	if c := calls(p2)["total"]; c != 6 {
		t.Errorf("with no room, %%total evaluated %d times, want 6", c)
	}
	if !identical(got, plain) {
		t.Errorf("kept: %s, not kept: %s", describe(got), describe(plain))
	}
}

// TestLoopConstantsIntercepted: an instruction Options.Intercept watches is shown every evaluation, the
// constant instructions below it included, so none of them is kept.
func TestLoopConstantsIntercepted(t *testing.T) {
	m := parseModule(t, loopConstModule)
	arg := ArrayValue(tensor.FromBits(dtype.S32, []int64{64}, make([]uint64, 64)))
	var total, mask *hlo.Instruction
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			switch in.Name {
			case "total":
				total = in
			case "rows":
				mask = in
			}
		}
	}
	seen := map[string]int{}
	p := NewProfile()
	_, err := Run(m, []Value{arg}, Options{Profile: p, Intercept: &Intercept{
		Instructions: map[*hlo.Instruction]bool{total: true},
		Func:         func(in *hlo.Instruction, v Value) (Value, error) { seen[in.Name]++; return v, nil },
	}})
	if err != nil {
		t.Fatal(err)
	}
	n := calls(p)
	if seen["total"] != 6 || n["sq"] != 6 || n[mask.Name] != 1 {
		t.Errorf("intercepted %%total seen %d times, %%sq evaluated %d, %%rows %d; want 6, 6, 1", seen["total"], n["sq"], n[mask.Name])
	}
}

// TestLoopConstantsCalled: a constant reduce inside a computation the body calls is kept too, and the
// loop's result is the sum it should be.
func TestLoopConstantsCalled(t *testing.T) {
	evaluatorOnly(t)
	src := `HloModule called

add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}

f {
  x = s32[] parameter(0)
  io = s32[1000] iota(), iota_dimension=0
  sq = s32[1000] multiply(io, io)
  zero = s32[] constant(0)
  total = s32[] reduce(sq, zero), dimensions={0}, to_apply=add
  ROOT y = s32[] add(x, total)
}

body {
  p = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  acc = s32[] get-tuple-element(p), index=1
  acc1 = s32[] call(acc), to_apply=f
  acc2 = s32[] add(acc1, i)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], s32[]) tuple(i1, acc2)
}

cond {
  p = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(1000)
  ROOT lt = pred[] compare(i, n), direction=LT
}

ENTRY e {
  z = s32[] constant(0)
  t0 = (s32[], s32[]) tuple(z, z)
  w = (s32[], s32[]) while(t0), condition=cond, body=body
  ROOT acc = s32[] get-tuple-element(w), index=1
}
`
	p := NewProfile()
	got, err := Run(parseModule(t, src), nil, Options{Profile: p})
	if err != nil {
		t.Fatal(err)
	}
	// 1000 * sum(j^2, j < 1000) + sum(i, i < 1000), wrapped to s32 as the loop's adds wrap.
	var want int64
	for i := int64(0); i < 1000; i++ {
		want += i
		for j := int64(0); j < 1000; j++ {
			want += j * j
		}
	}
	if v := int32(got.Array.BitsAt(0)); v != int32(want) {
		t.Errorf("the loop gives %d, want %d", v, int32(want))
	}
	if c := calls(p)["sq"]; c != 1 {
		t.Errorf("%%sq evaluated %d times, want 1", c)
	}
}

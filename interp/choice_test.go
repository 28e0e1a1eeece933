package interp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"octet/dtype"
	"octet/tensor"
)

// choiceReducers are reducers of a value (type T) and an index (type I). The first five choose (JAX's
// argmax and argmin, the last maximum's index, NaN-skipping argmax, a max of selects); the others compute
// something a choice table cannot hold and must not be taken for choices.
var choiceReducers = map[string]struct {
	body   string
	choice bool
}{
	"jax argmax": {`  gt = pred[] compare(a, c), direction=GT
  ne = pred[] compare(a, a), direction=NE
  pv = pred[] or(gt, ne)
  eq = pred[] compare(a, c), direction=EQ
  lt = pred[] compare(b, d), direction=LT
  and = pred[] and(eq, lt)
  pi = pred[] or(pv, and)
  sv = T[] select(pv, a, c)
  si = I[] select(pi, b, d)
  ROOT t = (T[], I[]) tuple(sv, si)
`, true},
	"jax argmin": {`  lt = pred[] compare(a, c), direction=LT
  ne = pred[] compare(a, a), direction=NE
  pv = pred[] or(lt, ne)
  eq = pred[] compare(a, c), direction=EQ
  lti = pred[] compare(b, d), direction=LT
  and = pred[] and(eq, lti)
  pi = pred[] or(pv, and)
  sv = T[] select(pv, a, c)
  si = I[] select(pi, b, d)
  ROOT t = (T[], I[]) tuple(sv, si)
`, true},
	"last maximum, NaN ignored": {`  ge = pred[] compare(c, a), direction=GE
  nan = pred[] compare(c, c), direction=NE
  t1 = pred[] constant(true)
  keep = pred[] xor(nan, t1)
  take = pred[] and(ge, keep)
  sv = T[] select(take, c, a)
  si = I[] select(take, d, b)
  ROOT t = (T[], I[]) tuple(sv, si)
`, true},
	"NaNs skipped": {`  na = pred[] compare(a, a), direction=NE
  nc = pred[] compare(c, c), direction=NE
  gt = pred[] compare(c, a), direction=GT
  t1 = pred[] constant(true)
  cok = pred[] xor(nc, t1)
  better = pred[] or(gt, na)
  take = pred[] and(better, cok)
  sv = T[] select(take, c, a)
  si = I[] select(take, d, b)
  ROOT t = (T[], I[]) tuple(sv, si)
`, true},
	"nested selects": {`  gt = pred[] compare(c, a), direction=GT
  s1 = T[] select(gt, c, a)
  lt = pred[] compare(s1, a), direction=LT
  nt = pred[] not(lt)
  sv = T[] select(nt, s1, a)
  si = I[] select(gt, d, b)
  ROOT t = (T[], I[]) tuple(sv, si)
`, true},
	"total order": {`  gt = pred[] compare(c, a), direction=GT, type=TOTALORDER
  sv = T[] select(gt, c, a)
  si = I[] select(gt, d, b)
  ROOT t = (T[], I[]) tuple(sv, si)
`, false},
	"compare across pairs": {`  ci = T[] convert(d)
  gt = pred[] compare(ci, a), direction=GT
  sv = T[] select(gt, c, a)
  si = I[] select(gt, d, b)
  ROOT t = (T[], I[]) tuple(sv, si)
`, false},
	"against a constant": {`  z = T[] constant(0)
  gt = pred[] compare(c, z), direction=GT
  sv = T[] select(gt, c, a)
  si = I[] select(gt, d, b)
  ROOT t = (T[], I[]) tuple(sv, si)
`, false},
	"a sum": {`  gt = pred[] compare(c, a), direction=GT
  sv = T[] select(gt, c, a)
  si = I[] add(b, d)
  ROOT t = (T[], I[]) tuple(sv, si)
`, false},
}

// TestChoiceReducers checks that a variadic reduce whose reducer only chooses (JAX's argmax and argmin)
// gives, through its table of choices, the bits of the reducer called on every element: values of f32,
// bf16, f64, f8e4m3fn, s32, u8 and u64 (with values above 2^63) with indices of s32, s64, u32 and f32, full of NaNs of both signs, zeros of
// both signs, infinities and ties, reduced along each dimension, and initial values that are NaN or the
// type's lowest; and that reducers that do more than choose are not taken for choices.
func TestChoiceReducers(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	defer func(v bool) { reduceChoices = v }(reduceChoices)
	for _, typ := range []dtype.Type{dtype.F32, dtype.BF16, dtype.F64, dtype.F8E4M3FN, dtype.S32, dtype.U8, dtype.U64} {
		for _, ityp := range []dtype.Type{dtype.S32, dtype.S64, dtype.U32, dtype.F32} {
			if typ != dtype.F32 && ityp != dtype.S32 && typ != dtype.BF16 {
				continue
			}
			for name, red := range choiceReducers {
				if !typ.IsFloat() && (name == "total order") {
					continue
				}
				t.Run(fmt.Sprintf("%s/%s/%s", typ, ityp, name), func(t *testing.T) {
					testChoiceReducer(t, rng, typ, ityp, red.body, red.choice)
				})
			}
		}
	}
}

func testChoiceReducer(t *testing.T, rng *rand.Rand, typ, ityp dtype.Type, body string, choice bool) {
	body = strings.ReplaceAll(strings.ReplaceAll(body, "T[]", typ.String()+"[]"), "I[]", ityp.String()+"[]")
	src := fmt.Sprintf(`HloModule choices
red {
  a = T[] parameter(0)
  b = I[] parameter(1)
  c = T[] parameter(2)
  d = I[] parameter(3)
%s}

ENTRY e {
  x = T[6,5,70] parameter(0)
  v0 = T[] parameter(1)
  i0 = I[] parameter(2)
  i = I[6,5,70] iota(), iota_dimension=%d
  ROOT r = (T[6,70], I[6,70]) reduce(x, i, v0, i0), dimensions={1}, to_apply=red
}
`, body, rng.IntN(3))
	src = strings.ReplaceAll(strings.ReplaceAll(src, "T[", typ.String()+"["), "I[", ityp.String()+"[")
	m := parseModule(t, src)
	prog, err := compileScalar(m.Computation("red"))
	if err != nil {
		t.Fatal(err)
	}
	if (prog.choice != nil) != choice {
		t.Fatalf("taken for a choice: %v, want %v", prog.choice != nil, choice)
	}
	specials := []float64{math.NaN(), math.Copysign(math.NaN(), -1), 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), 1, -1, 0.5}
	x := tensor.New(typ, []int64{6, 5, 70})
	for j := range x.NumElements() {
		v := rng.NormFloat64() * 3
		switch rng.IntN(4) {
		case 0:
			v = specials[rng.IntN(len(specials))]
		case 1:
			v = float64(rng.IntN(5) - 2)
		}
		if typ.IsFloat() {
			x.SetBitsAt(j, typ.EncodeFloat64(v))
		} else if !math.IsNaN(v) && !math.IsInf(v, 0) {
			x.SetBitsAt(j, uint64(int64(v)))
		}
	}
	if typ.IsFloat() {
		// Runs all NaN, of both signs, whose results depend on which NaN is kept.
		for j := range int64(10) {
			for r := range int64(5) {
				x.SetBitsAt(r*70+j, typ.EncodeFloat64(specials[(r+j)%2]))
			}
		}
	}
	if typ == dtype.F32 {
		x.SetBitsAt(3, 0x7fc00123) // NaNs with payloads, kept as they are
		x.SetBitsAt(4, 0xffc00001)
	}
	for _, init := range []float64{math.Inf(-1), math.NaN(), 0} {
		v0 := tensor.New(typ, nil)
		if typ.IsFloat() {
			v0.SetBitsAt(0, typ.EncodeFloat64(init))
		}
		i0 := tensor.New(ityp, nil)
		i0.SetBitsAt(0, uint64(rng.IntN(3)))
		var got [2]Value
		for k, on := range []bool{true, false} {
			reduceChoices = on
			got[k], err = Run(m, []Value{ArrayValue(x), ArrayValue(v0), ArrayValue(i0)}, Options{Threads: 1 + k})
			if err != nil {
				t.Fatal(err)
			}
		}
		for k := range 2 {
			a, b := got[0].Tuple[k].Array, got[1].Tuple[k].Array
			if string(a.Data) != string(b.Data) {
				t.Fatalf("init %v: output %d differs through the choice table:\n%s\nwant\n%s", init, k, describe(got[0].Tuple[k]), describe(got[1].Tuple[k]))
			}
		}
	}
}

// BenchmarkChoiceReduce times, on one thread, JAX's argmax of 64 rows of 32000 f32 and bf16 values (the
// last dimension, a vocabulary's logits), through the choice table and with the reducer called on
// every element.
func BenchmarkChoiceReduce(b *testing.B) {
	for _, typ := range []dtype.Type{dtype.F32, dtype.BF16} {
		body := strings.ReplaceAll(choiceReducers["jax argmax"].body, "I[]", "s32[]")
		m := mustParse(b, strings.ReplaceAll(fmt.Sprintf(`HloModule argmax
red {
  a = T[] parameter(0)
  b = s32[] parameter(1)
  c = T[] parameter(2)
  d = s32[] parameter(3)
%s}

ENTRY e {
  x = T[64,32000] parameter(0)
  i = s32[64,32000] iota(), iota_dimension=1
  v0 = T[] constant(-inf)
  i0 = s32[] constant(0)
  ROOT r = (T[64], s32[64]) reduce(x, i, v0, i0), dimensions={1}, to_apply=red
}
`, body), "T[", typ.String()+"["))
		x, err := randomValue(m.Entry.Params[0].Shape, 1)
		if err != nil {
			b.Fatal(err)
		}
		for _, on := range []bool{true, false} {
			b.Run(fmt.Sprintf("%s/table=%v", typ, on), func(b *testing.B) {
				defer func(v bool) { reduceChoices = v }(reduceChoices)
				reduceChoices = on
				for b.Loop() {
					if _, err := Run(m, []Value{x}, Options{Threads: 1}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// selects are select-and-scatter selections of values of type T: the first four compare their two
// values only and are answered from a table; the last computes and must not be.
var selects = map[string]struct {
	body  string
	table bool
}{
	"ge": {"  ROOT c = pred[] compare(a, b), direction=GE\n", true},
	"gt": {"  ROOT c = pred[] compare(a, b), direction=GT\n", true},
	"le NaN wins": {`  le = pred[] compare(a, b), direction=LE
  an = pred[] compare(a, a), direction=NE
  bn = pred[] compare(b, b), direction=NE
  nb = pred[] not(bn)
  k = pred[] and(le, nb)
  ROOT c = pred[] or(k, an)
`, true},
	"not lt": {`  lt = pred[] compare(a, b), direction=LT
  ROOT c = pred[] not(lt)
`, true},
	"sum": {`  s = T[] add(a, b)
  z = T[] constant(0)
  ROOT c = pred[] compare(s, z), direction=GE
`, false},
}

// TestSelectAndScatterTable checks that a select-and-scatter whose select only compares its two values
// gives, with the select answered from its table (and the windows of a pool's channels walked once a
// row), the bits of the select called at every window position: f32, bf16 and s32 operands full of
// NaNs of both signs, zeros of both signs, infinities and ties, with windows that overlap, stride,
// pad, and window the last dimension or not; and that a select that computes is not tabulated.
func TestSelectAndScatterTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	defer func(v bool) { reduceChoices = v }(reduceChoices)
	windows := []struct{ x, src, window string }{
		{"4,9,9,6", "4,4,4,6", "size=1x3x3x1 stride=1x2x2x1"},
		{"2,9,9,5", "2,5,5,5", "size=1x3x3x1 stride=1x2x2x1 pad=0_0x0_1x0_1x0_0"},
		{"3,10,7", "3,5,4", "size=1x2x3 stride=1x2x2 pad=0_0x0_0x1_1"},
		{"40", "13", "size=4 stride=3 pad=1_0"},
	}
	for _, typ := range []dtype.Type{dtype.F32, dtype.BF16, dtype.S32} {
		for name, sel := range selects {
			for _, w := range windows {
				t.Run(fmt.Sprintf("%s/%s/%s", typ, name, w.window), func(t *testing.T) {
					src := strings.ReplaceAll(fmt.Sprintf(`HloModule sas
sel {
  a = T[] parameter(0)
  b = T[] parameter(1)
%s}
add {
  a = T[] parameter(0)
  b = T[] parameter(1)
  ROOT s = T[] add(a, b)
}
ENTRY e {
  x = T[%s] parameter(0)
  g = T[%s] parameter(1)
  z = T[] constant(0)
  ROOT r = T[%s] select-and-scatter(x, g, z), window={%s}, select=sel, scatter=add
}
`, sel.body, w.x, w.src, w.x, w.window), "T[", typ.String()+"[")
					m := parseModule(t, src)
					prog, err := compileScalar(m.Computation("sel"))
					if err != nil {
						t.Fatal(err)
					}
					if (prog.compares != nil) != sel.table {
						t.Fatalf("tabulated: %v, want %v", prog.compares != nil, sel.table)
					}
					specials := []float64{math.NaN(), math.Copysign(math.NaN(), -1), 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), 1, -1}
					var args []Value
					for _, p := range m.Entry.Params {
						x := tensor.New(typ, p.Shape.Dims)
						for j := range x.NumElements() {
							v := float64(rng.IntN(7) - 3)
							if rng.IntN(3) == 0 {
								v = specials[rng.IntN(len(specials))]
							}
							if typ.IsFloat() {
								x.SetBitsAt(j, typ.EncodeFloat64(v))
							} else if !math.IsNaN(v) && !math.IsInf(v, 0) {
								x.SetBitsAt(j, uint64(int64(v)))
							}
						}
						args = append(args, ArrayValue(x))
					}
					var got [2]Value
					for k, on := range []bool{true, false} {
						reduceChoices = on
						got[k], err = Run(m, args, Options{Threads: 1 + k})
						if err != nil {
							t.Fatal(err)
						}
					}
					if string(got[0].Array.Data) != string(got[1].Array.Data) {
						t.Fatalf("differs through the table:\n%s\nwant\n%s", describe(got[0]), describe(got[1]))
					}
				})
			}
		}
	}
}

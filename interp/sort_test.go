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

// sortComparators are comparators of a key (type T) and an s32 payload (argsort's iota): JAX's, which
// makes -0 0 and every NaN one NaN before comparing in total order, ascending and descending; ones whose
// two sides are not the same function of one element (a negate on one side only, a payload read, a
// constant that differs), which must not be taken for keyed ones.
var sortComparators = map[string]struct {
	body  string
	keyed bool
}{
	"jax ascending": {`  ne.a = pred[] compare(a, a), direction=NE
  nan = T[] constant(nan)
  zero = T[] constant(0)
  eq.a = pred[] compare(a, zero), direction=EQ
  s1.a = T[] select(eq.a, zero, a)
  s2.a = T[] select(ne.a, nan, s1.a)
  ne.b = pred[] compare(b, b), direction=NE
  eq.b = pred[] compare(b, zero), direction=EQ
  s1.b = T[] select(eq.b, zero, b)
  s2.b = T[] select(ne.b, nan, s1.b)
  ROOT c = pred[] compare(s2.a, s2.b), direction=LT, type=TOTALORDER
`, true},
	"jax descending, own constants": {`  ne.a = pred[] compare(a, a), direction=NE
  nan.a = T[] constant(nan)
  zero.a = T[] constant(0)
  eq.a = pred[] compare(a, zero.a), direction=EQ
  s1.a = T[] select(eq.a, zero.a, a)
  s2.a = T[] select(ne.a, nan.a, s1.a)
  ne.b = pred[] compare(b, b), direction=NE
  nan.b = T[] constant(nan)
  zero.b = T[] constant(0)
  eq.b = pred[] compare(b, zero.b), direction=EQ
  s1.b = T[] select(eq.b, zero.b, b)
  s2.b = T[] select(ne.b, nan.b, s1.b)
  ROOT c = pred[] compare(s2.a, s2.b), direction=GT, type=TOTALORDER
`, true},
	"abs keys": {`  x = T[] abs(a)
  y = T[] abs(b)
  ROOT c = pred[] compare(x, y), direction=LT
`, true},
	"one side negated": {`  x = T[] negate(a)
  ROOT c = pred[] compare(x, b), direction=LT
`, false},
	"different constants": {`  one = T[] constant(1)
  two = T[] constant(2)
  x = T[] multiply(a, one)
  y = T[] multiply(b, two)
  ROOT c = pred[] compare(x, y), direction=LT
`, false},
	"payload read": {`  pa = T[] convert(ia)
  x = T[] add(a, pa)
  ROOT c = pred[] compare(x, b), direction=LT
`, false},
	"sides swapped": {`  x = T[] abs(b)
  y = T[] abs(a)
  ROOT c = pred[] compare(x, y), direction=LT
`, false},
}

// TestSortKeyedComparators checks that a sort whose comparator compares the same function of each side
// (JAX's) gives, with that function computed once per element, the bits of the comparator called for
// every comparison: on rows of f32, bf16 and f64 full of NaNs of both signs, zeros of both signs,
// infinities and repeated values, with argsort's iota as a payload; and that comparators that are not of
// that form are not taken for it.
func TestSortKeyedComparators(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	defer func(v bool) { sortKeys = v }(sortKeys)
	for _, typ := range []dtype.Type{dtype.F32, dtype.BF16, dtype.F64} {
		for name, cmp := range sortComparators {
			t.Run(fmt.Sprintf("%s/%s", typ, name), func(t *testing.T) {
				body := strings.ReplaceAll(cmp.body, "T[]", typ.String()+"[]")
				src := fmt.Sprintf(`HloModule sorts
cmp {
  a = T[] parameter(0)
  b = T[] parameter(1)
  ia = s32[] parameter(2)
  ib = s32[] parameter(3)
%s}

ENTRY e {
  x = T[8,300] parameter(0)
  i = s32[8,300] iota(), iota_dimension=1
  ROOT s = (T[8,300], s32[8,300]) sort(x, i), dimensions={1}, is_stable=true, to_apply=cmp
}
`, body)
				src = strings.ReplaceAll(src, "T[", typ.String()+"[")
				m := parseModule(t, src)
				prog, err := compileScalar(m.Computation("cmp"))
				if err != nil {
					t.Fatal(err)
				}
				if prog.keyed != cmp.keyed {
					t.Fatalf("keyed = %v, want %v", prog.keyed, cmp.keyed)
				}
				specials := []float64{math.NaN(), -math.NaN(), 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), 1, -1, 0.5}
				x := tensor.New(typ, []int64{8, 300})
				for j := range x.NumElements() {
					v := rng.NormFloat64()
					switch rng.IntN(4) {
					case 0:
						v = specials[rng.IntN(len(specials))]
					case 1:
						v = float64(rng.IntN(5) - 2)
					}
					x.SetBitsAt(j, typ.EncodeFloat64(v))
				}
				if typ == dtype.F32 {
					// NaNs with payloads, which JAX's comparator makes one NaN.
					x.SetBitsAt(3, 0x7fc00123)
					x.SetBitsAt(4, 0xffc00001)
				}
				var got [2]Value
				for i, keys := range []bool{true, false} {
					sortKeys = keys
					got[i], err = Run(m, []Value{ArrayValue(x)}, Options{})
					if err != nil {
						t.Fatal(err)
					}
				}
				for k := range 2 {
					a, b := got[0].Tuple[k].Array, got[1].Tuple[k].Array
					if string(a.Data) != string(b.Data) {
						t.Fatalf("output %d differs with the keys computed once: %s", k, describe(got[0].Tuple[k]))
					}
				}
			})
		}
	}
}

package interp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
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
	"plain descending": {`  ROOT c = pred[] compare(a, b), direction=GT
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
// every comparison: on rows of f32, bf16 and f64 full of NaNs of both signs (half of them without NaNs,
// which a comparison other than TOTALORDER leaves unordered), zeros of both signs, infinities and
// repeated values, and of s32, u8 and s64, with argsort's iota as a payload; and that comparators that are
// not of that form are not taken for it.
func TestSortKeyedComparators(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	defer func(v bool) { sortKeys = v }(sortKeys)
	for _, typ := range []dtype.Type{dtype.F32, dtype.BF16, dtype.F64, dtype.S32, dtype.U8, dtype.S64} {
		for name, cmp := range sortComparators {
			if !typ.IsFloat() && (strings.Contains(cmp.body, "nan") || !typ.IsSigned() && strings.Contains(cmp.body, "abs")) {
				continue
			}
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
						if j >= 4*300 {
							v = specials[2+rng.IntN(len(specials)-2)] // rows 4-7 without NaNs
						}
					case 1:
						v = float64(rng.IntN(5) - 2)
					}
					if !typ.IsFloat() {
						x.SetBitsAt(j, encInt(typ)(int64(rng.IntN(9)-4)))
						if rng.IntN(3) == 0 {
							x.SetBitsAt(j, rng.Uint64())
						}
						continue
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

// orderValues returns element bits of type typ to compare: every code of a type of 8 bits or fewer, and
// otherwise the edges of the type (zeros, infinities, NaNs of both signs and several payloads, the
// extremes, subnormals, integers' limits) with random codes.
func orderValues(rng *rand.Rand, typ dtype.Type) []uint64 {
	w := typ.BitWidth()
	if w <= 8 {
		out := make([]uint64, 1<<w)
		for i := range out {
			out[i] = uint64(i)
		}
		return out
	}
	mask := uint64(1)<<w - 1
	if w == 64 {
		mask = ^uint64(0)
	}
	sign := uint64(1) << (w - 1)
	out := []uint64{0, sign, 1, sign | 1, mask, mask >> 1, sign - 1, sign + 1, mask - 1}
	if typ.IsFloat() {
		for _, v := range []float64{math.Inf(1), math.Inf(-1), math.NaN(), 1, -1, 0.5, -0.5, 2, -2} {
			out = append(out, typ.EncodeFloat64(v))
		}
	}
	for range 600 {
		out = append(out, rng.Uint64()&mask)
	}
	return out
}

// TestOrderOf checks the numbering a keyed sort compares (orderOf) against the comparison itself
// (scalarCompare) on every pair of values of orderValues, for both directions of the float comparisons
// (total and not) and of the integers' (signed and not): where both values are ordered, the comparison
// is true exactly when the first number is below the second; a value is unordered only where it is a NaN
// and the comparison is not TOTALORDER; narrow numbers stay below 2^32.
func TestOrderOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	types := []dtype.Type{dtype.F32, dtype.BF16, dtype.F16, dtype.F8E4M3FN, dtype.F8E5M2, dtype.F8E4M3FNUZ, dtype.F4E2M1FN,
		dtype.F64, dtype.S8, dtype.S16, dtype.S32, dtype.S64, dtype.U8, dtype.U16, dtype.U32, dtype.U64, dtype.PRED}
	for _, typ := range types {
		ctypes := []string{""}
		if typ.IsFloat() {
			ctypes = []string{"", "FLOAT", "TOTALORDER"}
		}
		vals := orderValues(rng, typ)
		if typ == dtype.PRED {
			vals = []uint64{0, 1}
		}
		for _, d := range []direction{dirLT, dirGT} {
			for _, ct := range ctypes {
				cmp := scalarCompare(typ, d, ct)
				ord, narrow := orderOf(typ, d, ct)
				if cmp == nil || ord == nil {
					t.Fatalf("%s %v %q: no comparison (%v) or numbering (%v)", typ, d, ct, cmp == nil, ord == nil)
				}
				nums := make([]uint64, len(vals))
				oks := make([]bool, len(vals))
				for i, v := range vals {
					nums[i], oks[i] = ord(v)
					nan := typ.IsFloat() && math.IsNaN(typ.DecodeFloat64(v))
					if oks[i] == (nan && ct != "TOTALORDER") {
						t.Fatalf("%s %v %q: value %#x ordered = %v", typ, d, ct, v, oks[i])
					}
					if narrow && nums[i] >= 1<<32 {
						t.Fatalf("%s %v %q: value %#x numbered %#x, not narrow", typ, d, ct, v, nums[i])
					}
				}
				for i, a := range vals {
					for j, b := range vals {
						if oks[i] && oks[j] && cmp(a, b) != (nums[i] < nums[j]) {
							t.Fatalf("%s %v %q: compare(%#x, %#x) = %v, numbers %#x and %#x", typ, d, ct, a, b, cmp(a, b), nums[i], nums[j])
						}
					}
				}
			}
		}
	}
	if ord, _ := orderOf(dtype.F32, dirLE, ""); ord != nil {
		t.Error("LE numbered: a sort by a reflexive comparison is not a sort by numbers")
	}
}

// TestTopKOrder compares topk with the first k of a stable sort of each row by IEEE totalOrder (or the
// integers' order), descending for largest and ascending otherwise: rows full of ties, NaNs of both signs
// and zeros of both signs, for k that selects (well below the row) and k that sorts.
func TestTopKOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 1))
	for _, typ := range []dtype.Type{dtype.F32, dtype.BF16, dtype.F64, dtype.S32, dtype.U8, dtype.S64, dtype.U64} {
		const rows, n = 3, 200
		x := tensor.New(typ, []int64{rows, n})
		vals := orderValues(rng, typ)
		for j := range x.NumElements() {
			if rng.IntN(3) == 0 {
				x.SetBitsAt(j, vals[rng.IntN(9)]) // the edges, again and again
			} else {
				x.SetBitsAt(j, vals[rng.IntN(len(vals))])
			}
		}
		for _, k := range []int{1, 7, n/8 - 1, n / 8, n - 1, n} {
			for _, largest := range []bool{true, false} {
				src := fmt.Sprintf("ENTRY e {\n  x = %s[%d,%d] parameter(0)\n  ROOT t = (%s[%d,%d], s32[%d,%d]) topk(x), k=%d, largest=%v\n}",
					typ, rows, n, typ, rows, k, rows, k, k, largest)
				got, err := Run(parseModule(t, src), []Value{ArrayValue(x)}, Options{})
				if err != nil {
					t.Fatal(err)
				}
				key := func(i int64) (f float64, u uint64, isFloat bool) {
					b := x.BitsAt(i)
					if typ.IsFloat() {
						return typ.DecodeFloat64(b), 0, true
					}
					return 0, b, false
				}
				less := func(a, b int64) bool { // a before b in the wanted order
					fa, ua, fl := key(a)
					fb, ub, _ := key(b)
					var lt bool
					switch {
					case fl && typ == dtype.F64:
						lt = totalOrder64(fa) < totalOrder64(fb)
						if largest {
							lt = totalOrder64(fa) > totalOrder64(fb)
						}
					case fl:
						lt = totalOrder32(float32(fa)) < totalOrder32(float32(fb))
						if largest {
							lt = totalOrder32(float32(fa)) > totalOrder32(float32(fb))
						}
					default:
						ia, ib := decInt(typ)(ua), decInt(typ)(ub)
						if !typ.IsSigned() {
							lt = uint64(ia) < uint64(ib)
							if largest {
								lt = uint64(ia) > uint64(ib)
							}
						} else {
							lt = ia < ib
							if largest {
								lt = ia > ib
							}
						}
					}
					return lt
				}
				for r := range int64(rows) {
					perm := make([]int64, n)
					for i := range perm {
						perm[i] = r*n + int64(i)
					}
					sort.SliceStable(perm, func(a, b int) bool { return less(perm[a], perm[b]) })
					for j := range int64(k) {
						gi := got.Tuple[1].Array.BitsAt(r*int64(k) + j)
						gv := got.Tuple[0].Array.BitsAt(r*int64(k) + j)
						if int64(gi) != perm[j]-r*n || gv != x.BitsAt(perm[j]) {
							t.Fatalf("%s k=%d largest=%v row %d: element %d is %#x at %d, want %#x at %d", typ, k, largest, r, j, gv, gi, x.BitsAt(perm[j]), perm[j]-r*n)
						}
					}
				}
			}
		}
	}
}

// TestSortTables sorts keys of 16 bits or fewer, enough of them that each code's number is looked up in a
// table made once (at least four elements per code), with and without the table: JAX's comparators and
// others on bf16 (its rows half with NaNs, which leave a row to the comparator under a partial order),
// f16, f8e4m3fn, s8 and u8 keys with an s32 payload, the same bits.
func TestSortTables(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 17))
	for _, c := range []struct {
		typ  dtype.Type
		dims [2]int64
	}{{dtype.BF16, [2]int64{512, 512}}, {dtype.F16, [2]int64{256, 1024}}, {dtype.F8E4M3FN, [2]int64{16, 256}},
		{dtype.S8, [2]int64{8, 300}}, {dtype.U8, [2]int64{8, 300}}} {
		for name, cmp := range sortComparators {
			if !cmp.keyed || !c.typ.IsFloat() && (strings.Contains(cmp.body, "nan") || strings.Contains(cmp.body, "abs") && !c.typ.IsSigned()) {
				continue
			}
			t.Run(fmt.Sprintf("%s/%s", c.typ, name), func(t *testing.T) {
				shape := fmt.Sprintf("%s[%d,%d]", c.typ, c.dims[0], c.dims[1])
				src := fmt.Sprintf("HloModule tables\ncmp {\n  a = T[] parameter(0)\n  b = T[] parameter(1)\n  ia = s32[] parameter(2)\n  ib = s32[] parameter(3)\n%s}\n\n"+
					"ENTRY e {\n  x = %s parameter(0)\n  i = s32[%d,%d] iota(), iota_dimension=1\n  ROOT s = (%s, s32[%d,%d]) sort(x, i), dimensions={1}, is_stable=true, to_apply=cmp\n}\n",
					cmp.body, shape, c.dims[0], c.dims[1], shape, c.dims[0], c.dims[1])
				src = strings.ReplaceAll(src, "T[]", c.typ.String()+"[]")
				m := parseModule(t, src)
				x := tensor.New(c.typ, c.dims[:])
				for j := range x.NumElements() {
					x.SetBitsAt(j, rng.Uint64())
					if c.typ.IsFloat() && j >= x.NumElements()/2 && math.IsNaN(c.typ.DecodeFloat64(x.BitsAt(j))) {
						x.SetBitsAt(j, c.typ.EncodeFloat64(0.25)) // rows without NaNs
					}
				}
				runBothWays(t, m, []Value{ArrayValue(x)}, Options{}, &sortTables, "tables give", "keys computed per element")
			})
		}
	}
}

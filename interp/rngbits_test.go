package interp

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"octet/dtype"
	"octet/hlo"
	"octet/internal/shared"
	"octet/tensor"
)

// Random123's known answers (its tests/kat_vectors, for the generators of Salmon et al., SC 2011):
// Threefry-2x32 with 20 rounds and Philox-4x32 with 10, the counter and key least significant word first.
func TestThreefryKnownAnswers(t *testing.T) {
	for _, c := range []struct{ ctr, key, want [2]uint32 }{
		{[2]uint32{0, 0}, [2]uint32{0, 0}, [2]uint32{0x6b200159, 0x99ba4efe}},
		{[2]uint32{0xffffffff, 0xffffffff}, [2]uint32{0xffffffff, 0xffffffff}, [2]uint32{0x1cb996fc, 0xbb002be7}},
		{[2]uint32{0x243f6a88, 0x85a308d3}, [2]uint32{0x13198a2e, 0x03707344}, [2]uint32{0xc4923a9c, 0x483df7a0}},
	} {
		x0, x1 := threefry2x32(c.ctr[0], c.ctr[1], c.key[0], c.key[1])
		if [2]uint32{x0, x1} != c.want {
			t.Errorf("threefry2x32(%#x, key %#x) = %#x %#x, want %#x", c.ctr, c.key, x0, x1, c.want)
		}
	}
}

func TestPhiloxKnownAnswers(t *testing.T) {
	for _, c := range []struct {
		ctr  [4]uint32
		key  [2]uint32
		want [4]uint32
	}{
		{[4]uint32{}, [2]uint32{}, [4]uint32{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
		{[4]uint32{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, [2]uint32{0xffffffff, 0xffffffff},
			[4]uint32{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
		{[4]uint32{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, [2]uint32{0xa4093822, 0x299f31d0},
			[4]uint32{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
	} {
		if got := philox4x32(c.ctr, c.key[0], c.key[1]); got != c.want {
			t.Errorf("philox4x32(%#x, key %#x) = %#x, want %#x", c.ctr, c.key, got, c.want)
		}
	}
}

// TestRngBitGeneratorExpander compares rng-bit-generator with XLA's own expansion of it: the test of the
// pass RngBitGeneratorExpander in the shared corpus holds, as its expected output, the computation the
// pass makes for each test module (Threefry and Philox; u8, u32 and u64 bits; states of 2, 4 and 6
// elements). Each is made a module of its own, run by the interpreter on states that include the test's
// and counters about to carry, and its state and bits compared with the generators'.
func TestRngBitGeneratorExpander(t *testing.T) {
	src, err := shared.ReadFile(shared.Path(t, "corpus", "hlo", "xla__hlo__transforms__tests__rng_bit_generator_expander.hlo"))
	if err != nil {
		t.Fatal(err)
	}
	sections := strings.Split(string(src), "// -----")
	if len(sections) != 7 {
		t.Fatalf("%d sections, want 7", len(sections))
	}
	states := [][]uint64{
		{0, 1, 8, 9, 4, 1},
		{9, 10, 11, 12, 13, 14},
		{0x0123456789abcdef, 0xffffffffffffffff, 0xfffffffffffffffe, 3, 4, 5},
		{0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff, 0, 0, 0},
		{0xdeadbeefcafef00d, 0x8000000000000000, 7, 0, 0, 0},
	}
	for i, sec := range sections {
		expanded, alg, out := expansionOf(t, sec)
		m := parseModule(t, expanded)
		n := m.Entry.Params[0].Shape.Dims[0]
		for _, st := range states {
			st := st[:n]
			got, err := Run(m, []Value{ArrayValue(tensor.FromBits(dtype.U64, []int64{n}, st))}, Options{})
			if err != nil {
				t.Fatalf("section %d: the expansion: %v", i, err)
			}
			// The expansion reads the key and counter only: elements 0-1 (Threefry) or 0-2 (Philox).
			bits := tensor.New(out.Elem, out.Dims)
			var newState []uint64
			if alg == "philox" {
				newState = philoxBits(st[:min(n, 3)], bits, 1)
			} else {
				newState = threefryBits(st[:2], bits, 1)
			}
			want := TupleValue(ArrayValue(tensor.FromBits(dtype.U64, []int64{int64(len(newState))}, newState)), ArrayValue(bits))
			if !identical(got, want) {
				t.Errorf("section %d (%s, state %#x): XLA's expansion gives %s, the generator %s", i, alg, st, describe(got), describe(want))
			}
		}
	}
}

// expansionOf turns one section of the expander's test into a module of the computation the pass makes
// (its CHECK lines, names for patterns) and says which generator it is and the bits it makes.
func expansionOf(t *testing.T, sec string) (string, string, hlo.Shape) {
	t.Helper()
	capture := regexp.MustCompile(`%\[\[\$?([A-Za-z0-9_.]+)(:\[\^ \]\+)?\]\]`)
	var body []string
	in := false
	for _, line := range strings.Split(sec, "\n") {
		switch {
		case strings.HasPrefix(line, "// CHECK:") && strings.Contains(line, "$rng"):
			in = true
		case strings.HasPrefix(line, "// CHECK-LABEL: ENTRY"):
			in = false
		case in && strings.HasPrefix(line, "// CHECK-NEXT:"):
			body = append(body, capture.ReplaceAllString(strings.TrimPrefix(line, "// CHECK-NEXT:"), "%$1"))
		}
	}
	if len(body) < 10 {
		t.Fatalf("no expansion in the section:\n%.300s", sec)
	}
	text := "HloModule expanded\n\nENTRY %rng {\n" + strings.Join(body, "\n") + "\n}\n"
	// The rounds' constants tell the generator: Threefry's key parity 0x1BD11BDA, Philox's multiplier
	// 0xD2511F53.
	alg := ""
	switch {
	case strings.Contains(text, "constant(466688986)"):
		alg = "threefry"
	case strings.Contains(text, "constant(3528531795)"):
		alg = "philox"
	default:
		t.Fatalf("neither generator's constants in:\n%s", text)
	}
	root := body[len(body)-1]
	m := parseModule(t, text)
	out := m.Entry.Root.Shape
	if !out.IsTuple() || len(out.Tuple) != 2 {
		t.Fatalf("the expansion's root is %s: %s", out.String(), root)
	}
	return text, alg, out.Tuple[1]
}

// identical says whether two values have the same shapes and bits.
func identical(a, b Value) bool {
	if a.Kind != b.Kind {
		return false
	}
	if a.Kind == KindTuple {
		if len(a.Tuple) != len(b.Tuple) {
			return false
		}
		for i := range a.Tuple {
			if !identical(a.Tuple[i], b.Tuple[i]) {
				return false
			}
		}
		return true
	}
	x, y := a.Array, b.Array
	if x.Type != y.Type || fmt.Sprint(x.Shape) != fmt.Sprint(y.Shape) {
		return false
	}
	return string(x.Data) == string(y.Data)
}

// TestRngBitGeneratorShapes runs rng-bit-generator on results of many shapes and element types and
// compares it with prng.cc's construction written out as HLO (prngModule): the counters of a Threefry
// result split into halves along a dimension, of a Philox one taken round robin, narrow results cut from
// u32 ones, for both sizes of Philox's state.
func TestRngBitGeneratorShapes(t *testing.T) {
	shapes := [][]int64{{}, {1}, {2}, {5}, {7}, {3, 5}, {5, 3}, {4, 3}, {3, 4}, {3, 1, 5}, {1, 6, 3}, {2, 3, 4}, {0, 3}, {3, 0}, {9, 7, 3}, {3, 3}, {5, 1, 5}, {1, 1}, {3, 5, 5}}
	types := []dtype.Type{dtype.U32, dtype.U64, dtype.U8, dtype.U16, dtype.U4}
	states := map[int][]uint64{
		2: {0x243f6a8885a308d3, 0xfffffffffffffffa},
		3: {0x13198a2e03707344, 0xfffffffffffffff9, 0x0000000000000007},
	}
	for _, alg := range []string{"rng_three_fry", "rng_philox", "rng_default"} {
		for _, n := range []int{2, 3} {
			if n == 3 && alg == "rng_three_fry" {
				continue
			}
			for _, ty := range types {
				for _, dims := range shapes {
					out := hlo.Array(ty, dims...)
					name := fmt.Sprintf("%s/u64[%d]/%s", alg, n, out.String())
					direct := fmt.Sprintf("HloModule direct\n\nENTRY %%e {\n  %%s = u64[%d] parameter(0)\n  ROOT %%r = (u64[%d], %s) rng-bit-generator(%%s), algorithm=%s\n}\n", n, n, out.String(), alg)
					arg := ArrayValue(tensor.FromBits(dtype.U64, []int64{int64(n)}, states[n]))
					got, err := Run(parseModule(t, direct), []Value{arg}, Options{Threads: 3})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					want, err := Run(parseModule(t, prngModule(alg != "rng_three_fry", n, out)), []Value{arg}, Options{})
					if err != nil {
						t.Fatalf("%s: the written-out construction: %v", name, err)
					}
					if !identical(got, want) {
						t.Errorf("%s: rng-bit-generator gives %s, prng.cc's construction %s", name, describe(got), describe(want))
					}
				}
			}
		}
	}
}

// hloWriter writes the instructions of one computation, each named vN.
type hloWriter struct {
	b strings.Builder
	n int
}

func (w *hloWriter) op(shape, format string, args ...any) string {
	name := fmt.Sprintf("v%d", w.n)
	w.n++
	fmt.Fprintf(&w.b, "  %%%s = %s %s\n", name, shape, fmt.Sprintf(format, args...))
	return "%" + name
}

// splat is a constant of type ty broadcast to dims.
func (w *hloWriter) splat(ty string, dims []int64, v uint64) string {
	c := w.op(ty+"[]", "constant(%d)", v)
	return w.op(arrayText(ty, dims), "broadcast(%s), dimensions={}", c)
}

func arrayText(ty string, dims []int64) string {
	s := make([]string, len(dims))
	for i, d := range dims {
		s[i] = fmt.Sprint(d)
	}
	return ty + "[" + strings.Join(s, ",") + "]"
}

// prngModule writes out, instruction by instruction, the computation xla/hlo/builder/lib/prng.cc builds
// for rng-bit-generator with a state of n elements and bits of shape out (ThreeFryBitGenerator, or
// PhiloxBitGenerator with the expander's reversal of a 2-element state): iotas added to the counter,
// halves concatenated and reshaped, words concatenated round robin, sliced and converted. It is a test
// oracle of another form than the generators': whole-array instructions the interpreter runs.
func prngModule(philox bool, n int, out hlo.Shape) string {
	w := &hloWriter{}
	dims := out.Dims
	nelem := int64(1)
	for _, d := range dims {
		nelem *= d
	}
	wide := out.Elem.BitWidth() == 64
	w.b.WriteString("HloModule oracle\n\nENTRY %e {\n  %state = " + arrayText("u64", []int64{int64(n)}) + " parameter(0)\n")
	keySlice := w.op("u64[1]", "slice(%%state), slice={[0:1]}")
	key := w.op("u64[]", "reshape(%s)", keySlice)
	c32 := w.op("u64[]", "constant(32)")
	k0 := w.op("u32[]", "convert(%s)", key)
	k1 := w.op("u32[]", "convert(%s)", w.op("u64[]", "shift-right-logical(%s, %s)", key, c32))
	var bits, newState string
	if !philox {
		ctr := w.op("u64[]", "reshape(%s)", w.op("u64[1]", "slice(%%state), slice={[1:2]}"))
		// SplitShapeIntoHalves, for results of 32 bits or fewer.
		half, concat, split := dims, dims, -1
		if !wide {
			if len(dims) == 0 {
				half, concat, split = []int64{1}, []int64{2}, 0
			} else {
				for i, d := range dims {
					if d%2 == 0 {
						split = i
						break
					}
				}
				if split < 0 {
					for i, d := range dims {
						if split < 0 || d > dims[split] {
							split = i
						}
					}
				}
				half, concat = nil, nil
				for i, d := range dims {
					if i == split {
						half = append(half, (d+1)/2, 1)
						concat = append(concat, (d+1)/2, 2)
					} else {
						half = append(half, d)
						concat = append(concat, d)
					}
				}
			}
		}
		// GetThreeFryInputsAndUpdatedState over the half shape.
		in := w.op(arrayText("u64", half), "broadcast(%s), dimensions={}", ctr)
		trailing := uint64(1)
		count := uint64(1)
		for i := len(half) - 1; i >= 0; i-- {
			count *= uint64(half[i])
			if half[i] < 2 {
				continue
			}
			io := w.op(arrayText("u64", half), "iota(), iota_dimension=%d", i)
			in = w.op(arrayText("u64", half), "add(%s, %s)", in, w.op(arrayText("u64", half), "multiply(%s, %s)", io, w.splat("u64", half, trailing)))
			trailing *= uint64(half[i])
		}
		newCtr := w.op("u64[]", "add(%s, %s)", ctr, w.op("u64[]", "constant(%d)", count))
		newState = w.op("u64[2]", "concatenate(%s, %s), dimensions={0}", w.op("u64[1]", "reshape(%s)", key), w.op("u64[1]", "reshape(%s)", newCtr))
		sh := arrayText("u32", half)
		x0 := w.op(sh, "convert(%s)", in)
		x1 := w.op(sh, "convert(%s)", w.op(arrayText("u64", half), "shift-right-logical(%s, %s)", in, w.splat("u64", half, 32)))
		x0, x1 = threefryHLO(w, sh, half, x0, x1, k0, k1)
		switch {
		case wide:
			bits = w.op(arrayText("u64", dims), "or(%s, %s)", w.op(arrayText("u64", dims), "convert(%s)", x0),
				w.op(arrayText("u64", dims), "shift-left(%s, %s)", w.op(arrayText("u64", dims), "convert(%s)", x1), w.splat("u64", dims, 32)))
		case len(dims) == 0:
			bits = w.op("u32[]", "reshape(%s)", x0)
		default:
			cat := w.op(arrayText("u32", concat), "concatenate(%s, %s), dimensions={%d}", x0, x1, split+1)
			full := append([]int64(nil), dims...)
			full[split] = (dims[split] + 1) / 2 * 2
			bits = w.op(arrayText("u32", full), "reshape(%s)", cat)
			if full[split] != dims[split] {
				lim := make([]string, len(dims))
				for i, d := range dims {
					lim[i] = fmt.Sprintf("[0:%d]", d)
				}
				bits = w.op(arrayText("u32", dims), "slice(%s), slice={%s}", bits, strings.Join(lim, ", "))
			}
		}
	} else {
		// The counter: elements 1 and 2, or the state reversed; low half first.
		var u128 string
		if n >= 3 {
			u128 = w.op("u64[2]", "slice(%%state), slice={[1:3]}")
		} else {
			u128 = w.op("u64[2]", "reverse(%%state), dimensions={0}")
		}
		lo := w.op("u64[]", "reshape(%s)", w.op("u64[1]", "slice(%s), slice={[0:1]}", u128))
		hi := w.op("u64[]", "reshape(%s)", w.op("u64[1]", "slice(%s), slice={[1:2]}", u128))
		words := nelem
		if wide {
			words = 2 * nelem
		}
		nv := (words + 3) / 4
		vs := []int64{nv}
		io := w.op(arrayText("u64", vs), "iota(), iota_dimension=0")
		lov := w.op(arrayText("u64", vs), "broadcast(%s), dimensions={}", lo)
		newLo := w.op(arrayText("u64", vs), "add(%s, %s)", lov, io)
		carry := w.op(arrayText("pred", vs), "compare(%s, %s), direction=LT", newLo, lov)
		one := w.op("u64[]", "constant(1)")
		newHi := w.op(arrayText("u64", vs), "select(%s, %s, %s)", carry, w.op(arrayText("u64", vs), "broadcast(%s), dimensions={}", w.op("u64[]", "add(%s, %s)", hi, one)),
			w.op(arrayText("u64", vs), "broadcast(%s), dimensions={}", hi))
		sh := arrayText("u32", vs)
		c := [4]string{
			w.op(sh, "convert(%s)", newLo),
			w.op(sh, "convert(%s)", w.op(arrayText("u64", vs), "shift-right-logical(%s, %s)", newLo, w.splat("u64", vs, 32))),
			w.op(sh, "convert(%s)", newHi),
			w.op(sh, "convert(%s)", w.op(arrayText("u64", vs), "shift-right-logical(%s, %s)", newHi, w.splat("u64", vs, 32))),
		}
		c = philoxHLO(w, vs, c, k0, k1)
		// The new counter: the 128-bit sum of the counter and the number of blocks.
		stLo := w.op("u64[]", "add(%s, %s)", lo, w.op("u64[]", "constant(%d)", nv))
		stCarry := w.op("pred[]", "compare(%s, %s), direction=LT", stLo, lo)
		stHi := w.op("u64[]", "select(%s, %s, %s)", stCarry, w.op("u64[]", "add(%s, %s)", hi, one), hi)
		if n >= 3 {
			newState = w.op("u64[3]", "concatenate(%s, %s, %s), dimensions={0}", w.op("u64[1]", "reshape(%s)", key), w.op("u64[1]", "reshape(%s)", stLo), w.op("u64[1]", "reshape(%s)", stHi))
		} else {
			newState = w.op("u64[2]", "concatenate(%s, %s), dimensions={0}", w.op("u64[1]", "reshape(%s)", key), w.op("u64[1]", "reshape(%s)", stLo))
		}
		var flat string
		if wide {
			join := func(a, b string) string {
				return w.op(arrayText("u64", []int64{nv, 1}), "reshape(%s)", w.op(arrayText("u64", vs), "or(%s, %s)", w.op(arrayText("u64", vs), "convert(%s)", a),
					w.op(arrayText("u64", vs), "shift-left(%s, %s)", w.op(arrayText("u64", vs), "convert(%s)", b), w.splat("u64", vs, 32))))
			}
			cat := w.op(arrayText("u64", []int64{nv, 2}), "concatenate(%s, %s), dimensions={1}", join(c[0], c[1]), join(c[2], c[3]))
			flat = w.op(arrayText("u64", []int64{2 * nv}), "reshape(%s)", cat)
			flat = w.op(arrayText("u64", []int64{nelem}), "slice(%s), slice={[0:%d]}", flat, nelem)
			bits = w.op(arrayText("u64", dims), "reshape(%s)", flat)
		} else {
			var col [4]string
			for i := range c {
				col[i] = w.op(arrayText("u32", []int64{nv, 1}), "reshape(%s)", c[i])
			}
			cat := w.op(arrayText("u32", []int64{nv, 4}), "concatenate(%s, %s, %s, %s), dimensions={1}", col[0], col[1], col[2], col[3])
			flat = w.op(arrayText("u32", []int64{4 * nv}), "reshape(%s)", cat)
			flat = w.op(arrayText("u32", []int64{nelem}), "slice(%s), slice={[0:%d]}", flat, nelem)
			bits = w.op(arrayText("u32", dims), "reshape(%s)", flat)
		}
	}
	if !wide && out.Elem != dtype.U32 {
		bits = w.op(out.String(), "convert(%s)", bits)
	}
	stateShape := arrayText("u64", []int64{int64(min(n, 3))})
	if !philox {
		stateShape = "u64[2]"
	}
	fmt.Fprintf(&w.b, "  ROOT %%r = (%s, %s) tuple(%s, %s)\n}\n", stateShape, out.String(), newState, bits)
	return w.b.String()
}

// threefryHLO writes prng.cc's ThreeFry2x32 over arrays of shape sh (dims).
func threefryHLO(w *hloWriter, sh string, dims []int64, x0, x1, k0, k1 string) (string, string) {
	k2 := w.op("u32[]", "xor(%s, %s)", w.op("u32[]", "xor(%s, %s)", w.op("u32[]", "constant(%d)", 0x1BD11BDA), k0), k1)
	ks := []string{k0, k1, k2}
	bc := func(s string) string { return w.op(sh, "broadcast(%s), dimensions={}", s) }
	rotl := func(v string, r uint64) string {
		return w.op(sh, "or(%s, %s)", w.op(sh, "shift-left(%s, %s)", v, w.splat("u32", dims, r)), w.op(sh, "shift-right-logical(%s, %s)", v, w.splat("u32", dims, 32-r)))
	}
	rot := []uint64{13, 15, 26, 6, 17, 29, 16, 24}
	x0 = w.op(sh, "add(%s, %s)", x0, bc(ks[0]))
	x1 = w.op(sh, "add(%s, %s)", x1, bc(ks[1]))
	inject := [][2]int{{1, 2}, {2, 0}, {0, 1}, {1, 2}, {2, 0}}
	for i, kk := range inject {
		for _, r := range rot[4*(i%2) : 4*(i%2)+4] {
			x0 = w.op(sh, "add(%s, %s)", x0, x1)
			x1 = w.op(sh, "xor(%s, %s)", x0, rotl(x1, r))
		}
		x0 = w.op(sh, "add(%s, %s)", x0, bc(ks[kk[0]]))
		x1 = w.op(sh, "add(%s, %s)", w.op(sh, "add(%s, %s)", x1, bc(ks[kk[1]])), w.splat("u32", dims, uint64(i+1)))
	}
	return x0, x1
}

// philoxHLO writes prng.cc's Philox4x32 over arrays of shape dims.
func philoxHLO(w *hloWriter, dims []int64, c [4]string, k0, k1 string) [4]string {
	sh, sh64 := arrayText("u32", dims), arrayText("u64", dims)
	mul := func(x string, m uint64) (string, string) {
		p := w.op(sh64, "multiply(%s, %s)", w.op(sh64, "convert(%s)", x), w.splat("u64", dims, m))
		return w.op(sh, "convert(%s)", w.op(sh64, "shift-right-logical(%s, %s)", p, w.splat("u64", dims, 32))), w.op(sh, "convert(%s)", p)
	}
	for range 10 {
		hi0, lo0 := mul(c[0], 0xD2511F53)
		hi1, lo1 := mul(c[2], 0xCD9E8D57)
		b0 := w.op(sh, "broadcast(%s), dimensions={}", k0)
		b1 := w.op(sh, "broadcast(%s), dimensions={}", k1)
		c = [4]string{w.op(sh, "xor(%s, %s)", w.op(sh, "xor(%s, %s)", hi1, c[1]), b0), lo1, w.op(sh, "xor(%s, %s)", w.op(sh, "xor(%s, %s)", hi0, c[3]), b1), lo0}
		k0 = w.op("u32[]", "add(%s, %s)", k0, w.op("u32[]", "constant(%d)", 0x9E3779B9))
		k1 = w.op("u32[]", "add(%s, %s)", k1, w.op("u32[]", "constant(%d)", 0xBB67AE85))
	}
	return c
}

// TestRngBitGeneratorRefuses checks the instructions XLA does not run: results of other types than
// unsigned integers, states of other sizes or types.
func TestRngBitGeneratorRefuses(t *testing.T) {
	for _, c := range []struct{ state, result, alg, want string }{
		{"u64[2]", "s32[4]", "rng_philox", "unsupported: rng-bit-generator of s32[4]"},
		{"u64[2]", "f32[4]", "rng_default", "unsupported: rng-bit-generator of f32[4]"},
		{"u64[3]", "u32[4]", "rng_three_fry", "unsupported: rng-bit-generator with a state of u64[3]: XLA's Threefry generator takes u64[2]"},
		{"u64[4]", "u32[4]", "rng_default", "unsupported: rng-bit-generator with a state of u64[4]: XLA's Philox generator takes u64[2] or u64[3]"},
		{"u64[1]", "u32[4]", "rng_philox", "with a state of u64[1]"},
		{"s64[2]", "u32[4]", "rng_philox", "unsupported: rng-bit-generator with a state of s64[2]: XLA's generators take a state of u64"},
		{"u64[2,1]", "u32[4]", "rng_philox", "unsupported: rng-bit-generator with a state of u64[2,1]"},
		{"f32[4]", "f32[4]", "rng_default", "unsupported: rng-bit-generator with a state of f32[4]"},
	} {
		src := fmt.Sprintf("HloModule m\n\nENTRY %%e {\n  %%s = %s parameter(0)\n  ROOT %%r = (%s, %s) rng-bit-generator(%%s), algorithm=%s\n}\n", c.state, c.state, c.result, c.alg)
		m := parseModule(t, src)
		st := tensor.New(m.Entry.Params[0].Shape.Elem, m.Entry.Params[0].Shape.Dims)
		_, err := Run(m, []Value{ArrayValue(st)}, Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s -> %s (%s): %v, want an error with %q", c.state, c.result, c.alg, err, c.want)
		}
	}
}

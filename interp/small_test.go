package interp

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"octet/hlo"
	"octet/tensor"
)

// runSmall runs m on args with the small programs on and off and requires the same bits (or the same
// error) both ways; it returns the result and how many instructions ran as small programs.
func runSmall(t *testing.T, m *hlo.Module, args []Value, opts Options) (Value, error, int) {
	t.Helper()
	got, err := runBothWays(t, m, args, opts, &smallPrograms, "small programs give", "the evaluator")
	return got, err, countSmall(m)
}

// runBothWays runs m on args with the switch *on off and then on, and requires the same bits, or the same
// error, or the work limit both ways (the two count their work alike, not to the unit); onSays and offSays
// name the two ways in a failure.
func runBothWays(t *testing.T, m *hlo.Module, args []Value, opts Options, on *bool, onSays, offSays string) (Value, error) {
	t.Helper()
	defer func(was bool) { *on = was }(*on)
	*on = false
	want, wantErr := Run(m, args, opts)
	*on = true
	got, err := Run(m, args, opts)
	var we1, we2 *WorkError
	if errors.As(err, &we1) && errors.As(wantErr, &we2) {
		return Value{}, err
	}
	if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
		t.Fatalf("module %s: %s error %v, %s %v", m.Name, onSays, err, offSays, wantErr)
	}
	if err == nil && !sameValue(got, want) {
		t.Fatalf("module %s: %s %v, %s %v", m.Name, onSays, Compare(got, want), offSays, want)
	}
	return got, err
}

// corpusBothWays runs every module of ../shared in which count finds something, on random inputs within
// opts, through run (runBothWays), and reports how many ran to the same bits, met the work limit or failed
// alike, and were left out (over the budget, or no random inputs); fewer than least compared fails.
func corpusBothWays(t *testing.T, what string, count func(*hlo.Module) int, run func(*hlo.Module, []Value) error, opts Options, least int) {
	t.Helper()
	modules, found, compared, limited, failed, skipped := 0, 0, 0, 0, 0, 0
	for _, m := range corpusModules(t, "") {
		n := count(m)
		if n == 0 {
			continue
		}
		modules++
		found += n
		if CheckMemory(m, opts) != nil {
			skipped++
			continue
		}
		args, err := RandomInputs(m, 1)
		if err != nil {
			skipped++
			continue
		}
		err = run(m, args)
		var we *WorkError
		switch {
		case err == nil:
			compared++
		case errors.As(err, &we):
			limited++
		default:
			failed++
		}
	}
	t.Logf("%d modules with %d %s: %d ran to the same bits both ways, %d met the work limit both ways, %d failed with the same error both ways, %d were left out (over the memory budget, or no random inputs)",
		modules, found, what, compared, limited, failed, skipped)
	if compared < least {
		t.Errorf("only %d modules compared", compared)
	}
}

// countSmall counts the instructions of m that compile as small programs.
func countSmall(m *hlo.Module) int {
	e := &evaluator{mod: m, comps: map[*hlo.Computation]*compiled{}}
	n := 0
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			switch in.Opcode {
			case hlo.OpWhile, hlo.OpCall, hlo.OpConditional, hlo.OpFusion:
				if p, err := e.compileSmall(in); err == nil && p != nil {
					n++
				}
			}
		}
	}
	return n
}

// expect requires v to be the array value of text (val's form).
func expect(t *testing.T, v Value, text string) {
	t.Helper()
	if w := val(t, text); !sameValue(v, w) {
		t.Errorf("got %v, want %s", Compare(v, w), text)
	}
}

// A loop whose body exchanges elements of its state (Fibonacci: (a, b) -> (b, a + b)) needs the state
// written all at once; u8 and s8 sums wrap.
func TestSmallLoopState(t *testing.T) {
	m := parseModule(t, `HloModule fib
body {
  p = (s32[], u32[2], u8[], s8[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  ab = u32[2] get-tuple-element(p), index=1
  a = u32[1] slice(ab), slice={[0:1]}
  b = u32[1] slice(ab), slice={[1:2]}
  s = u32[1] add(a, b)
  ba = u32[2] concatenate(b, s), dimensions={0}
  w = u8[] get-tuple-element(p), index=2
  w2 = u8[] add(w, w)
  x = s8[] get-tuple-element(p), index=3
  c100 = s8[] constant(100)
  x2 = s8[] add(x, c100)
  i1 = s32[] add(i, one)
  ROOT r = (s32[], u32[2], u8[], s8[]) tuple(i1, ba, w2, x2)
}
cond {
  p = (s32[], u32[2], u8[], s8[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main {
  z = s32[] constant(0)
  ab = u32[2] constant({0, 1})
  w = u8[] constant(3)
  x = s8[] constant(1)
  st = (s32[], u32[2], u8[], s8[]) tuple(z, ab, w, x)
  ROOT l = (s32[], u32[2], u8[], s8[]) while(st), condition=cond, body=body
}`)
	v, _, n := runSmall(t, m, nil, Options{})
	if n != 1 {
		t.Fatalf("%d small programs, want 1 (the loop)", n)
	}
	// F(10), F(11) = 55, 89; 3 * 2^10 = 3072 = 12 * 256 -> 0; 1 + 10 * 100 = 1001 = 3 * 256 + 233 -> -23.
	expect(t, v.Tuple[0], "s32[] 10")
	expect(t, v.Tuple[1], "u32[2] {55, 89}")
	expect(t, v.Tuple[2], "u8[] 0")
	expect(t, v.Tuple[3], "s8[] -23")
}

// Dynamic slices clamp their start indices into the operand (negative, past the end, a u64 beyond
// int64), and the update writes where the clamped start says.
func TestSmallDynamicSlices(t *testing.T) {
	m := parseModule(t, `HloModule dyn
f {
  x = s32[3,4] parameter(0)
  i = s32[] parameter(1)
  j = u64[] parameter(2)
  u = s32[2,2] parameter(3)
  ds = s32[2,2] dynamic-slice(x, i, j), dynamic_slice_sizes={2,2}
  dus = s32[3,4] dynamic-update-slice(x, u, i, j)
  ROOT t = (s32[2,2], s32[3,4]) tuple(ds, dus)
}
ENTRY main {
  x = s32[3,4] parameter(0)
  i = s32[] parameter(1)
  j = u64[] parameter(2)
  u = s32[2,2] parameter(3)
  ROOT c = (s32[2,2], s32[3,4]) call(x, i, j, u), to_apply=f
}`)
	x := val(t, "s32[3,4] {{0,1,2,3},{4,5,6,7},{8,9,10,11}}")
	u := val(t, "s32[2,2] {{-1,-2},{-3,-4}}")
	cases := []struct {
		i, j      string
		ds, dus   string
		rowsClamp string
	}{
		{"s32[] 0", "u64[] 0", "s32[2,2] {{0,1},{4,5}}", "s32[3,4] {{-1,-2,2,3},{-3,-4,6,7},{8,9,10,11}}", "in range"},
		{"s32[] -5", "u64[] 1", "s32[2,2] {{1,2},{5,6}}", "s32[3,4] {{0,-1,-2,3},{4,-3,-4,7},{8,9,10,11}}", "negative row"},
		{"s32[] 7", "u64[] 3", "s32[2,2] {{6,7},{10,11}}", "s32[3,4] {{0,1,2,3},{4,5,-1,-2},{8,9,-3,-4}}", "past the end"},
		{"s32[] 1", "u64[] 18446744073709551615", "s32[2,2] {{6,7},{10,11}}", "s32[3,4] {{0,1,2,3},{4,5,-1,-2},{8,9,-3,-4}}", "u64 max"},
	}
	for _, c := range cases {
		v, _, n := runSmall(t, m, []Value{x, val(t, c.i), val(t, c.j), u}, Options{})
		if n != 1 {
			t.Fatalf("%d small programs, want 1", n)
		}
		expect(t, v.Tuple[0], c.ds)
		expect(t, v.Tuple[1], c.dus)
	}
}

// A conditional on a pred and one on an index, whose out-of-range values choose the last branch.
func TestSmallConditional(t *testing.T) {
	m := parseModule(t, `HloModule cond
b0 {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}
b1 {
  p = f32[2] parameter(0)
  ROOT m = f32[2] multiply(p, p)
}
b2 {
  p = f32[2] parameter(0)
  ROOT r = f32[2] reverse(p), dimensions={0}
}
ENTRY main {
  k = s32[] parameter(0)
  q = pred[] parameter(1)
  x = f32[2] parameter(2)
  c = f32[2] conditional(k, x, x, x), branch_computations={b0, b1, b2}
  d = f32[2] conditional(q, x, x), true_computation=b1, false_computation=b2
  ROOT t = (f32[2], f32[2]) tuple(c, d)
}`)
	x := val(t, "f32[2] {1.5, -3}")
	for _, c := range []struct{ k, q, c, d string }{
		{"s32[] 0", "pred[] true", "f32[2] {-1.5, 3}", "f32[2] {2.25, 9}"},
		{"s32[] 1", "pred[] false", "f32[2] {2.25, 9}", "f32[2] {-3, 1.5}"},
		{"s32[] 2", "pred[] true", "f32[2] {-3, 1.5}", "f32[2] {2.25, 9}"},
		{"s32[] -1", "pred[] false", "f32[2] {-3, 1.5}", "f32[2] {-3, 1.5}"},
		{"s32[] 9", "pred[] false", "f32[2] {-3, 1.5}", "f32[2] {-3, 1.5}"},
	} {
		v, _, n := runSmall(t, m, []Value{val(t, c.k), val(t, c.q), x}, Options{})
		if n != 2 {
			t.Fatalf("%d small programs, want 2", n)
		}
		expect(t, v.Tuple[0], c.c)
		expect(t, v.Tuple[1], c.d)
	}
}

// The operations that only move elements name their operands' registers; each is checked against
// values worked out by hand.
func TestSmallMoves(t *testing.T) {
	m := parseModule(t, `HloModule moves
f {
  x = s32[2,3] parameter(0)
  b = s32[2,4,3] broadcast(x), dimensions={0,2}
  tr = s32[3,2] transpose(x), dimensions={1,0}
  sl = s32[2,2] slice(x), slice={[0:2], [0:3:2]}
  rv = s32[2,3] reverse(x), dimensions={0,1}
  cc = s32[2,5] concatenate(x, sl), dimensions={1}
  rs = s32[6] reshape(tr)
  ROOT t = (s32[2,4,3], s32[3,2], s32[2,2], s32[2,3], s32[2,5], s32[6]) tuple(b, tr, sl, rv, cc, rs)
}
ENTRY main {
  x = s32[2,3] parameter(0)
  ROOT c = (s32[2,4,3], s32[3,2], s32[2,2], s32[2,3], s32[2,5], s32[6]) call(x), to_apply=f
}`)
	v, _, n := runSmall(t, m, []Value{val(t, "s32[2,3] {{1,2,3},{4,5,6}}")}, Options{})
	if n != 1 {
		t.Fatalf("%d small programs, want 1", n)
	}
	expect(t, v.Tuple[0], "s32[2,4,3] {{{1,2,3},{1,2,3},{1,2,3},{1,2,3}},{{4,5,6},{4,5,6},{4,5,6},{4,5,6}}}")
	expect(t, v.Tuple[1], "s32[3,2] {{1,4},{2,5},{3,6}}")
	expect(t, v.Tuple[2], "s32[2,2] {{1,3},{4,6}}")
	expect(t, v.Tuple[3], "s32[2,3] {{6,5,4},{3,2,1}}")
	expect(t, v.Tuple[4], "s32[2,5] {{1,2,3,1,3},{4,5,6,4,6}}")
	expect(t, v.Tuple[5], "s32[6] {1,4,2,5,3,6}")
}

// Integer operations on the bits: shifts by the width or more, arithmetic shifts of negative values,
// conversions that wrap or sign-extend, and float conversions that saturate, against hand-worked values.
func TestSmallIntegerBits(t *testing.T) {
	m := parseModule(t, `HloModule ints
f {
  a = s32[4] parameter(0)
  s = s32[4] parameter(1)
  shl = s32[4] shift-left(a, s)
  shr = s32[4] shift-right-logical(a, s)
  sra = s32[4] shift-right-arithmetic(a, s)
  u8 = u8[4] convert(a)
  s8 = s8[4] convert(u8)
  w = u32[4] convert(s8)
  fl = f32[4] convert(a)
  big = f32[4] multiply(fl, fl)
  back = s32[4] convert(big)
  ROOT t = (s32[4], s32[4], s32[4], u8[4], u32[4], s32[4]) tuple(shl, shr, sra, u8, w, back)
}
ENTRY main {
  a = s32[4] parameter(0)
  s = s32[4] parameter(1)
  ROOT c = (s32[4], s32[4], s32[4], u8[4], u32[4], s32[4]) call(a, s), to_apply=f
}`)
	v, _, n := runSmall(t, m, []Value{val(t, "s32[4] {-8, 200, 65536, -1}"), val(t, "s32[4] {1, 31, 32, -1}")}, Options{})
	if n != 1 {
		t.Fatalf("%d small programs, want 1", n)
	}
	// -8<<1 = -16; 200<<31 wraps to 0; shifts by 32 and by -1 (2^32-1 unsigned) give 0 (logical) or
	// the sign (arithmetic): -8>>1 = -4 arithmetic, 2147483644 logical; 200>>31 = 0.
	expect(t, v.Tuple[0], "s32[4] {-16, 0, 0, 0}")
	expect(t, v.Tuple[1], "s32[4] {2147483644, 0, 0, 0}")
	expect(t, v.Tuple[2], "s32[4] {-4, 0, 0, -1}")
	// -8 -> 248, 200 -> 200, 65536 -> 0, -1 -> 255; as s8: -8, -56, 0, -1; to u32 sign-extended.
	expect(t, v.Tuple[3], "u8[4] {248, 200, 0, 255}")
	expect(t, v.Tuple[4], "u32[4] {4294967288, 4294967240, 0, 4294967295}")
	// 64, 40000, 2^32 (saturates to the largest s32), 1.
	expect(t, v.Tuple[5], "s32[4] {64, 40000, 2147483647, 1}")
}

// A loop that never ends stops at the work limit, naming the loop, or when its context is cancelled.
func TestSmallLoopLimits(t *testing.T) {
	m := parseModule(t, `HloModule forever
body {
  p = u32[] parameter(0)
  one = u32[] constant(1)
  ROOT a = u32[] add(p, one)
}
cond {
  p = u32[] parameter(0)
  ROOT t = pred[] constant(true)
}
ENTRY main {
  z = u32[] constant(0)
  ROOT l = u32[] while(z), condition=cond, body=body
}`)
	if n := countSmall(m); n != 1 {
		t.Fatalf("%d small programs, want 1", n)
	}
	_, err := Run(m, nil, Options{MaxWork: 1_000_000})
	var we *WorkError
	if !errors.As(err, &we) || we.Inst != "l" {
		t.Errorf("with a work limit: %v, want a work error at %%l", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = Run(m, nil, Options{Context: ctx})
	if err == nil || !strings.Contains(err.Error(), context.DeadlineExceeded.Error()) {
		t.Errorf("with a deadline: %v, want the context's error", err)
	}
}

// What is not small runs instruction by instruction: an array past smallElems elements, a custom call, a
// c128 value.
func TestSmallRefuses(t *testing.T) {
	for _, c := range []struct{ shape, body string }{
		{"f32[65]", "ROOT r = f32[65] broadcast(p), dimensions={}"},
		{"f32[]", "ROOT r = f32[] custom-call(p), custom_call_target=\"octet.unknown\""},
		{"f64[]", "c = c128[] convert(p)\n  ROOT r = f64[] real(c)"},
	} {
		m := parseModule(t, `HloModule refuse
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
f {
  p = f32[] parameter(0)
  `+c.body+`
}
ENTRY main {
  p = f32[] parameter(0)
  ROOT c = `+c.shape+` call(p), to_apply=f
}`)
		if n := countSmall(m); n != 0 {
			t.Errorf("%q: %d small programs, want none", c.body, n)
		}
		runSmall(t, m, []Value{val(t, "f32[] 1.5")}, Options{})
	}
}

// An invalid module (an update whose result is not its operand's shape) gets the evaluator's error, not
// a small program's panic.
func TestSmallInvalid(t *testing.T) {
	m := parseModule(t, `HloModule invalid
body {
  p = (s32[], s64[1,2]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = s64[1,2] get-tuple-element(p), index=1
  d = s64[2,3] dynamic-update-slice(x, x, i, i)
  s = s64[1,2] slice(d), slice={[0:1], [0:2]}
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], s64[1,2]) tuple(i1, s)
}
cond {
  p = (s32[], s64[1,2]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(2)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main {
  x = s64[1,2] parameter(0)
  z = s32[] constant(0)
  st = (s32[], s64[1,2]) tuple(z, x)
  ROOT l = (s32[], s64[1,2]) while(st), condition=cond, body=body
}`)
	_, err, _ := runSmall(t, m, []Value{val(t, "s64[1,2] {{1, 2}}")}, Options{})
	if err == nil || !strings.Contains(err.Error(), "%d:") {
		t.Errorf("got %v, want the evaluator's error at %%d", err)
	}
}

// The instructions a small program has the evaluator evaluate (a dot, a reduce, a sort) inside its loop.
func TestSmallEscapes(t *testing.T) {
	m := parseModule(t, `HloModule escapes
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT l = pred[] compare(a, b), direction=LT
}
body {
  p = (s32[], f32[4], f32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[4] get-tuple-element(p), index=1
  acc = f32[] get-tuple-element(p), index=2
  d = f32[] dot(x, x), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  z = f32[] constant(0)
  s = f32[] reduce(x, z), dimensions={0}, to_apply=add
  ds = f32[] add(d, s)
  acc1 = f32[] add(acc, ds)
  neg = f32[4] negate(x)
  sorted = f32[4] sort(neg), dimensions={0}, to_apply=less
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], f32[4], f32[]) tuple(i1, sorted, acc1)
}
cond {
  p = (s32[], f32[4], f32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main {
  x = f32[4] parameter(0)
  z = s32[] constant(0)
  a = f32[] constant(0)
  st = (s32[], f32[4], f32[]) tuple(z, x, a)
  ROOT l = (s32[], f32[4], f32[]) while(st), condition=cond, body=body
}`)
	v, _, n := runSmall(t, m, []Value{val(t, "f32[4] {3, -1, 4, 2}")}, Options{})
	if n != 1 {
		t.Fatalf("%d small programs, want 1", n)
	}
	// Each iteration adds 30 (the squares) plus the sum, +8, -8, +8 as the elements are negated and
	// sorted: {3,-1,4,2} -> {-4,-3,-2,1} -> {-1,2,3,4} -> {-4,-3,-2,1}.
	expect(t, v.Tuple[1], "f32[4] {-4, -3, -2, 1}")
	expect(t, v.Tuple[2], "f32[] 98")
}

// TestSmallProgramsCorpus runs every module of the shared corpora (XLA's HLO, the StableHLO project's
// test programs) that has a small program both ways and requires the same bits: the XLA benchmark
// modules' PRNG loops among them, and the StableHLO programs' loops, conditionals and CHLO functions.
func TestSmallProgramsCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("every corpus module run twice: in the full test run, not the short one (-race)")
	}
	opts := Options{MaxMemory: corpusMemory, MaxWork: 5_000_000}
	corpusBothWays(t, "small programs", countSmall, func(m *hlo.Module, args []Value) error {
		_, err, _ := runSmall(t, m, args, opts)
		return err
	}, opts, 100)
}

// A loop's large array updated by a dynamic-update-slice or a scatter is the loop's own copy, written in
// place at every step (the slow way copies it at the first); the caller's argument is left as it was.
func TestSmallUpdatesInPlace(t *testing.T) {
	for _, update := range []string{
		"u = f32[1] broadcast(fi), dimensions={}\n  v1 = f32[2000] dynamic-update-slice(v, u, i)",
		"idx = s32[1] broadcast(i), dimensions={}\n  v1 = f32[2000] scatter(v, idx, fi), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=0, to_apply=assign",
	} {
		m := parseModule(t, `HloModule updates
assign {
  a = f32[] parameter(0)
  ROOT b = f32[] parameter(1)
}
body {
  p = (s32[], f32[2000], f32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  v = f32[2000] get-tuple-element(p), index=1
  acc = f32[] get-tuple-element(p), index=2
  old = f32[1] dynamic-slice(v, i), dynamic_slice_sizes={1}
  olds = f32[] reshape(old)
  acc1 = f32[] add(acc, olds)
  fi = f32[] convert(i)
  `+update+`
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], f32[2000], f32[]) tuple(i1, v1, acc1)
}
cond {
  p = (s32[], f32[2000], f32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main {
  x = f32[2000] parameter(0)
  z = s32[] constant(0)
  a = f32[] constant(0)
  st = (s32[], f32[2000], f32[]) tuple(z, x, a)
  ROOT l = (s32[], f32[2000], f32[]) while(st), condition=cond, body=body
}`)
		x := make([]float32, 2000)
		for k := range x {
			x[k] = 100 + float32(k)
		}
		arg := ArrayValue(tensor.FromFloat32([]int64{2000}, x))
		before := inPlaceWrites.Load()
		v, _, n := runSmall(t, m, []Value{arg}, Options{})
		if n != 1 {
			t.Fatalf("%d small programs, want 1", n)
		}
		// Both runs: 9 updates in place the slow way, 10 as a small program.
		if w := inPlaceWrites.Load() - before; w != 19 {
			t.Errorf("%d updates in place, want 9 + 10", w)
		}
		got := tensor.View[float32](v.Tuple[1].Array)
		for k, g := range got {
			want := 100 + float32(k)
			if k < 10 {
				want = float32(k)
			}
			if g != want {
				t.Fatalf("element %d: %v, want %v", k, g, want)
			}
		}
		// The sum of the old values read before each update: 100 + ... + 109.
		expect(t, v.Tuple[2], "f32[] 1045")
		if x := tensor.View[float32](arg.Array); x[0] != 100 || x[9] != 109 {
			t.Errorf("the argument changed: %v", x[:10])
		}
	}
}

// What a loop computes from constants alone (a sum of the squares of a large iota) is computed once, as
// the program is compiled, and a dynamic slice of the large array the loop carries reads its memory: the
// shape of XLA's jax.b380442861 benchmark, whose sum is checked by hand.
func TestSmallFoldsConstants(t *testing.T) {
	m := parseModule(t, `HloModule fold
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
sumsq {
  acc = s32[] parameter(0)
  x = s32[] parameter(1)
  io = s32[1000] iota(), iota_dimension=0
  sq = s32[1000] multiply(io, io)
  z = s32[] constant(0)
  r = s32[] reduce(sq, z), dimensions={0}, to_apply=add
  t = s32[] add(r, x)
  ROOT u = s32[] add(acc, t)
}
body {
  p = (s32[], s32[], s32[1000]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  acc = s32[] get-tuple-element(p), index=1
  v = s32[1000] get-tuple-element(p), index=2
  d = s32[1] dynamic-slice(v, i), dynamic_slice_sizes={1}
  x = s32[] reshape(d)
  acc1 = s32[] call(acc, x), to_apply=sumsq
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], s32[], s32[1000]) tuple(i1, acc1, v)
}
cond {
  p = (s32[], s32[], s32[1000]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(100)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main {
  z = s32[] constant(0)
  io = s32[1000] iota(), iota_dimension=0
  st = (s32[], s32[], s32[1000]) tuple(z, z, io)
  l = (s32[], s32[], s32[1000]) while(st), condition=cond, body=body
  ROOT r = s32[] get-tuple-element(l), index=1
}`)
	v, _, n := runSmall(t, m, nil, Options{})
	if n == 0 {
		t.Fatal("no small program")
	}
	// 100 times the sum of k^2 for k < 1000 (332,833,500), wrapped to s32, plus 0 + 1 + ... + 99.
	total := int64(100)*332833500 + 4950
	expect(t, v, fmt.Sprintf("s32[] %d", int32(uint32(total))))
	// The loop alone, as its own program (the entry is not one: it is not a while, call, conditional
	// or fusion), folds the sum: compiling it evaluates the reduce once.
	e := &evaluator{mod: m, comps: map[*hlo.Computation]*compiled{}}
	var loop *hlo.Instruction
	for _, in := range m.Entry.Instructions {
		if in.Opcode == hlo.OpWhile {
			loop = in
		}
	}
	if _, err := e.compileSmall(loop); err != nil {
		t.Fatal(err)
	}
	if e.work == 0 {
		t.Errorf("compiling the loop evaluated nothing: the sum was not folded")
	}
}

// Folding computes only what cannot loop: a loop of constants in a branch the program never takes is
// not run as the program is compiled (it would never end, and counted against the work limit it would
// stop the run the evaluator finishes).
func TestSmallFoldsNoLoops(t *testing.T) {
	m := parseModule(t, `HloModule nofold
forever_body {
  p = u32[] parameter(0)
  one = u32[] constant(1)
  ROOT a = u32[] add(p, one)
}
forever_cond {
  p = u32[] parameter(0)
  ROOT t = pred[] constant(true)
}
spin {
  p = u32[] parameter(0)
  z = u32[] constant(0)
  ROOT l = u32[] while(z), condition=forever_cond, body=forever_body
}
pass {
  ROOT p = u32[] parameter(0)
}
ENTRY main {
  q = pred[] parameter(0)
  x = u32[] parameter(1)
  ROOT c = u32[] conditional(q, x, x), true_computation=spin, false_computation=pass
}`)
	v, err, n := runSmall(t, m, []Value{val(t, "pred[] false"), val(t, "u32[] 7")}, Options{MaxWork: 1_000_000})
	if err != nil || n == 0 {
		t.Fatalf("%v with %d small programs, want 7 from a small program", err, n)
	}
	expect(t, v, "u32[] 7")
}

// TestSmallScatter runs loops whose bodies scatter into a small array of their state, or into a large one
// in place, by indices that the counter moves in and out of range (a window that does not fit is left
// out), with scalar updates and windows, one and two index components, several index types, and update
// computations that assign, add, take the maximum or compute more; each compiled into the program's own
// steps and as a call of the evaluator's scatter, and by the evaluator alone: the same bits.
func TestSmallScatter(t *testing.T) {
	type form struct {
		name, state, operand, idx, upd, dims string
	}
	forms := []form{
		{"scalar", "T[8]", "T[8]", "idx = S[1] broadcast(i), dimensions={}", "u = T[] convert(i)",
			"update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=0"},
		{"scalars", "T[8]", "T[8]", "i2 = S[] multiply(i, c3)\n  idx0 = S[2,1] broadcast(i2), dimensions={}\n  iota = S[2,1] iota(), iota_dimension=0\n  idx = S[2,1] add(idx0, iota)",
			"u1 = T[] convert(i)\n  u = T[2] broadcast(u1), dimensions={}",
			"update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1"},
		{"window", "T[4,6]", "T[4,6]", "j = S[] subtract(i, c3)\n  idx = S[2] broadcast(j), dimensions={}",
			"u1 = T[] convert(i)\n  u = T[2,3] broadcast(u1), dimensions={}",
			"update_window_dims={0,1}, inserted_window_dims={}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=0"},
		{"row", "T[5,4]", "T[5,4]", "idx = S[1] broadcast(i), dimensions={}",
			"u1 = T[] convert(i)\n  u = T[4] broadcast(u1), dimensions={}",
			"update_window_dims={0}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=0"},
		{"large", "T[3000]", "T[3000]", "j = S[] multiply(i, c3)\n  idx = S[1] broadcast(j), dimensions={}", "u = T[] convert(i)",
			"update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=0"},
	}
	combiners := map[string]string{
		"assign":  "ROOT r = T[] copy(b)",
		"add":     "ROOT r = T[] add(a, b)",
		"maximum": "ROOT r = T[] maximum(a, b)",
		"more":    "s = T[] add(a, b)\n  ROOT r = T[] multiply(s, s)",
	}
	for _, f := range forms {
		for cname, comb := range combiners {
			for _, ty := range []string{"f32", "bf16", "s32"} {
				for _, st := range []string{"s32", "u32", "s64"} {
					src := fmt.Sprintf(`HloModule scatters
comb {
  a = T[] parameter(0)
  b = T[] parameter(1)
  %s
}
body {
  p = (S[], %s) parameter(0)
  i = S[] get-tuple-element(p), index=0
  v = %s get-tuple-element(p), index=1
  c3 = S[] constant(3)
  %s
  %s
  v1 = %s scatter(v, idx, u), %s, to_apply=comb
  one = S[] constant(1)
  i1 = S[] add(i, one)
  ROOT t = (S[], %s) tuple(i1, v1)
}
cond {
  p = (S[], %s) parameter(0)
  i = S[] get-tuple-element(p), index=0
  n = S[] constant(9)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main {
  x = %s parameter(0)
  z = S[] constant(0)
  st = (S[], %s) tuple(z, x)
  ROOT l = (S[], %s) while(st), condition=cond, body=body
}`, comb, f.state, f.operand, f.idx, f.upd, f.operand, f.dims, f.state, f.state, f.state, f.state, f.state)
					src = strings.ReplaceAll(strings.ReplaceAll(src, "T[", ty+"["), "S[", st+"[")
					m := parseModule(t, src)
					rng := rand.New(rand.NewPCG(uint64(len(src)), 7))
					args := []Value{viewInput(t, rng, m.Entry.Params[0].Shape.String())}
					t.Run(fmt.Sprintf("%s/%s/%s/%s", f.name, cname, ty, st), func(t *testing.T) {
						if _, _, n := runSmall(t, m, args, Options{}); n != 1 {
							t.Fatalf("%d small programs, want 1", n)
						}
						runBothWays(t, m, args, Options{}, &smallScatter, "scatter steps give", "the evaluator's scatter")
					})
				}
			}
		}
	}
}

// TestSmallDot runs loops whose bodies multiply small arrays of their state by dots of random dimension
// numbers (batch, free and one or two contracting dimensions in any order; f32 and bf16 operands and
// results), on values with zeros of both signs, infinities, subnormals and, in some programs, NaNs (which
// the step leaves to the evaluator): the dot compiled into a step of its own, called on the evaluator
// from the program, and the evaluator alone give the same bits.
func TestSmallDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	types := [][3]string{{"f32", "f32", "f32"}, {"bf16", "bf16", "f32"}, {"bf16", "f32", "f32"}, {"bf16", "bf16", "bf16"}, {"f32", "f32", "bf16"}}
	ran := 0
	for prog := range 160 {
		ty := types[rng.IntN(len(types))]
		batch, contract := rng.IntN(2), 1+rng.IntN(2)
		var bs, ks []int64
		for range batch {
			bs = append(bs, int64(1+rng.IntN(2)))
		}
		for range contract {
			ks = append(ks, int64(1+rng.IntN(4)))
		}
		side := func() (dims, bd, cd, free []int64) {
			return dotSide(rng, bs, ks, func(int) int64 { return int64(1 + rng.IntN(3)) })
		}
		ld, lb, lc, lfree := side()
		rd, rb, rc, rfree := side()
		od := slices.Concat(bs, lfree, rfree)
		if product(ld) > smallElems || product(rd) > smallElems || product(od) > smallElems {
			continue // not a small program
		}
		ran++
		dims := fmt.Sprintf("lhs_contracting_dims={%s}, rhs_contracting_dims={%s}", joinInts64(lc), joinInts64(rc))
		if batch > 0 {
			dims += fmt.Sprintf(", lhs_batch_dims={%s}, rhs_batch_dims={%s}", joinInts64(lb), joinInts64(rb))
		}
		L, R, O := ty[0]+dimsText(ld), ty[1]+dimsText(rd), ty[2]+dimsText(od)
		state := fmt.Sprintf("(s32[], %s, %s, %s, %s)", L, R, O, O)
		src := fmt.Sprintf(`HloModule dots
body {
  p = %[1]s parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = %[2]s get-tuple-element(p), index=1
  y = %[3]s get-tuple-element(p), index=2
  acc = %[4]s get-tuple-element(p), index=3
  d = %[4]s dot(x, y), %[5]s
  acc1 = %[4]s add(acc, d)
  fi = %[6]s[] convert(i)
  fb = %[2]s broadcast(fi), dimensions={}
  x1 = %[2]s subtract(x, fb)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT t = %[1]s tuple(i1, x1, y, acc1, d)
}
cond {
  p = %[1]s parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main {
  x = %[2]s parameter(0)
  y = %[3]s parameter(1)
  a = %[4]s parameter(2)
  z = s32[] constant(0)
  st = %[1]s tuple(z, x, y, a, a)
  ROOT l = %[1]s while(st), condition=cond, body=body
}`, state, L, R, O, dims, ty[0])
		m := parseModule(t, src)
		var args []Value
		for _, prm := range m.Entry.Params {
			v := viewInput(t, rng, prm.Shape.String())
			if prog%3 != 0 { // no NaNs: the step computes these itself
				x := v.Array
				for e := range x.NumElements() {
					if f := x.Type.DecodeFloat64(x.BitsAt(e)); f != f {
						x.SetBitsAt(e, x.Type.EncodeFloat64(1.5))
					}
				}
			}
			args = append(args, v)
		}
		if _, _, n := runSmall(t, m, args, Options{}); n != 1 {
			t.Fatalf("%d small programs, want 1:\n%s", n, src)
		}
		runBothWays(t, m, args, Options{}, &smallDot, "dot steps give", "the evaluator's dot")
	}
	if ran < 100 {
		t.Errorf("only %d of the programs are small", ran)
	}
}

package interp

import (
	"fmt"
	"strings"
	"testing"

	"octet/dtype"
	"octet/tensor"
)

// countSmallArrays makes the evaluation count, recycle and update in place arrays of every size for the
// rest of the test, so that small arrays show what large ones do.
func countSmallArrays(t *testing.T) {
	old := smallBytes
	smallBytes = 1
	t.Cleanup(func() { smallBytes = old })
	evaluatorOnly(t)
}

// evaluatorOnly turns small programs off for the test, which checks what the evaluator does
// instruction by instruction (its updates in place, its loop constants).
func evaluatorOnly(t *testing.T) {
	was := smallPrograms
	smallPrograms = false
	t.Cleanup(func() { smallPrograms = was })
}

// s32s returns the elements of an s32 array.
func s32s(t *testing.T, v Value) []int32 {
	t.Helper()
	if v.Kind != KindArray || v.Array.Type != dtype.S32 {
		t.Fatalf("want an s32 array, have %s", v)
	}
	out := make([]int32, v.Array.NumElements())
	for i := range out {
		out[i] = int32(v.Array.BitsAt(int64(i)))
	}
	return out
}

func s32Value(vals ...int32) Value {
	bits := make([]uint64, len(vals))
	for i, v := range vals {
		bits[i] = uint64(uint32(v))
	}
	return ArrayValue(tensor.FromBits(dtype.S32, []int64{int64(len(vals))}, bits))
}

// TestInPlaceLoopUpdates runs loops that update a loop-carried array by dynamic-update-slice, by scatter
// and by a fusion whose root is a dynamic-update-slice of its parameter (as XLA fuses one), as a decode
// loop updates its cache: from the second iteration on, the update is written into the array (counted),
// and the results are those of updating copies.
func TestInPlaceLoopUpdates(t *testing.T) {
	countSmallArrays(t)
	const n = 8
	for _, update := range []string{
		"u = s32[1] broadcast(val), dimensions={}\n  v1 = s32[8] dynamic-update-slice(v, u, i)",
		"idx = s32[1] broadcast(i), dimensions={}\n  u = s32[1] broadcast(val), dimensions={}\n" +
			"  v1 = s32[8] scatter(v, idx, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add",
		"v1 = s32[8] fusion(v, val, i), kind=kLoop, calls=fdus",
	} {
		src := fmt.Sprintf(`HloModule inplace

add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}

fdus {
  p0 = s32[8] parameter(0)
  p1 = s32[] parameter(1)
  p2 = s32[] parameter(2)
  u = s32[1] broadcast(p1), dimensions={}
  ROOT d = s32[8] dynamic-update-slice(p0, u, p2)
}

body {
  p = (s32[], s32[8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  v = s32[8] get-tuple-element(p), index=1
  ten = s32[] constant(10)
  val = s32[] multiply(i, ten)
  %s
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], s32[8]) tuple(i1, v1)
}

cond {
  p = (s32[], s32[8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(8)
  ROOT lt = pred[] compare(i, n), direction=LT
}

ENTRY e {
  p0 = s32[8] parameter(0)
  v0 = s32[8] add(p0, p0)
  z = s32[] constant(0)
  t0 = (s32[], s32[8]) tuple(z, v0)
  w = (s32[], s32[8]) while(t0), condition=cond, body=body
  last = s32[8] get-tuple-element(w), index=1
  ROOT r = (s32[8], s32[8]) tuple(last, v0)
}
`, update)
		arg := s32Value(1, 2, 3, 4, 5, 6, 7, 8)
		before := inPlaceWrites.Load()
		prof := NewProfile()
		got, err := Run(parseModule(t, src), []Value{arg}, Options{Profile: prof})
		if err != nil {
			t.Fatal(err)
		}
		writes := inPlaceWrites.Load() - before
		// The profile counts the whole array for the first update (operand and result, 32 bytes each,
		// with the update and its index, 4 each), and for the others what is read and written in place.
		for _, st := range prof.Stats() {
			if st.Inst.Name == "v1" && update[0] == 'u' && st.Bytes != 72+7*12 {
				t.Errorf("the profile counts %d bytes for the updates, want %d", st.Bytes, 72+7*12)
			}
		}
		want := make([]int32, n)
		for i := range want {
			want[i] = int32(10 * i) // dynamic-update-slice sets
			if update[0] == 'i' {
				want[i] += int32(2 * (i + 1)) // scatter adds
			}
		}
		if g := s32s(t, got.Tuple[0]); fmt.Sprint(g) != fmt.Sprint(want) {
			t.Errorf("%.40s...: %v, want %v", update, g, want)
		}
		// The loop's operand, which its frame reads again, and the argument are left as they were.
		if g := s32s(t, got.Tuple[1]); fmt.Sprint(g) != "[2 4 6 8 10 12 14 16]" {
			t.Errorf("%.40s...: the loop's operand became %v", update, g)
		}
		if g := s32s(t, arg); fmt.Sprint(g) != "[1 2 3 4 5 6 7 8]" {
			t.Errorf("%.40s...: the caller's argument became %v", update, g)
		}
		if writes != n-1 {
			t.Errorf("%.40s...: %d updates in place, want %d (all but the first)", update, writes, n-1)
		}
	}
}

// TestInPlaceNotWhenRead: an array updated by dynamic-update-slice is copied when anything may read it
// again: a later instruction, the computation's result, another element of the loop's state holding the
// same array, an argument, a constant, a constant value the loop keeps, the loop's operand after the loop.
func TestInPlaceNotWhenRead(t *testing.T) {
	countSmallArrays(t)
	for _, c := range []struct {
		name, src string
		want      string
	}{
		{"read after", `ENTRY e {
  x = s32[4] parameter(0)
  u0 = s32[1] constant({2})
  i0 = s32[] constant(0)
  y = s32[4] dynamic-update-slice(x, u0, i0)
  u = s32[1] constant({100})
  i = s32[] constant(1)
  d = s32[4] dynamic-update-slice(y, u, i)
  ROOT r = (s32[4], s32[4]) tuple(d, y)
}`, "[1 2 3 4] -> [[2 100 3 4] [2 2 3 4]]"},
		{"the result, read by an instruction after it", `ENTRY e {
  x = s32[4] parameter(0)
  u0 = s32[1] constant({2})
  i0 = s32[] constant(0)
  ROOT y = s32[4] dynamic-update-slice(x, u0, i0)
  u = s32[1] constant({100})
  d = s32[4] dynamic-update-slice(y, u, i0)
}`, "[1 2 3 4] -> [2 2 3 4]"},
		{"fusion operand read after", `fdus {
  p0 = s32[4] parameter(0)
  p1 = s32[1] parameter(1)
  p2 = s32[] parameter(2)
  ROOT d = s32[4] dynamic-update-slice(p0, p1, p2)
}

ENTRY e {
  x = s32[4] parameter(0)
  u0 = s32[1] constant({2})
  i0 = s32[] constant(0)
  y = s32[4] dynamic-update-slice(x, u0, i0)
  u = s32[1] constant({100})
  i = s32[] constant(1)
  f = s32[4] fusion(y, u, i), kind=kLoop, calls=fdus
  ROOT r = (s32[4], s32[4]) tuple(f, y)
}`, "[1 2 3 4] -> [[2 100 3 4] [2 2 3 4]]"},
		{"fusion reading its operand twice", `fdus {
  p0 = s32[4] parameter(0)
  p1 = s32[4] parameter(1)
  u = s32[1] constant({100})
  i = s32[] constant(1)
  d = s32[4] dynamic-update-slice(p0, u, i)
  ROOT s = s32[4] subtract(d, p1)
}

ENTRY e {
  x = s32[4] parameter(0)
  u0 = s32[1] constant({2})
  i0 = s32[] constant(0)
  y = s32[4] dynamic-update-slice(x, u0, i0)
  ROOT f = s32[4] fusion(y, y), kind=kLoop, calls=fdus
}`, "[1 2 3 4] -> [0 98 0 0]"},
		{"argument", `ENTRY e {
  x = s32[4] parameter(0)
  u = s32[1] constant({100})
  i = s32[] constant(1)
  d = s32[4] dynamic-update-slice(x, u, i)
  ROOT r = (s32[4], s32[4]) tuple(d, x)
}`, "[1 2 3 4] -> [[1 100 3 4] [1 2 3 4]]"},
		{"same array twice in the state", `body {
  p = (s32[], s32[4], s32[4], s32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  a = s32[4] get-tuple-element(p), index=1
  b = s32[4] get-tuple-element(p), index=2
  u = s32[1] constant({7})
  a1 = s32[4] dynamic-update-slice(a, u, i)
  d = s32[4] add(a1, b)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], s32[4], s32[4], s32[4]) tuple(i1, a1, a1, d)
}

cond {
  p = (s32[], s32[4], s32[4], s32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

ENTRY e {
  x = s32[4] parameter(0)
  y = s32[4] add(x, x)
  z = s32[] constant(0)
  t0 = (s32[], s32[4], s32[4], s32[4]) tuple(z, y, y, y)
  w = (s32[], s32[4], s32[4], s32[4]) while(t0), condition=cond, body=body
  a = s32[4] get-tuple-element(w), index=1
  d = s32[4] get-tuple-element(w), index=3
  ROOT r = (s32[4], s32[4]) tuple(a, d)
}`, "[1 2 3 4] -> [[7 7 7 8] [14 14 13 16]]"},
		{"loop operand read after the loop", `body {
  p = (s32[], s32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  v = s32[4] get-tuple-element(p), index=1
  u = s32[1] constant({7})
  v1 = s32[4] dynamic-update-slice(v, u, i)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], s32[4]) tuple(i1, v1)
}

cond {
  p = (s32[], s32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(2)
  ROOT lt = pred[] compare(i, n), direction=LT
}

ENTRY e {
  x = s32[4] parameter(0)
  u0 = s32[1] constant({2})
  z = s32[] constant(0)
  y = s32[4] dynamic-update-slice(x, u0, z)
  t0 = (s32[], s32[4]) tuple(z, y)
  w = (s32[], s32[4]) while(t0), condition=cond, body=body
  last = s32[4] get-tuple-element(w), index=1
  c = s32[4] constant({0, 0, 0, 0})
  u5 = s32[1] constant({5})
  q = s32[4] dynamic-update-slice(c, u5, z)
  r = (s32[4], s32[4]) tuple(last, q)
  ROOT o = (s32[4], (s32[4], s32[4])) tuple(y, r)
}`, "[1 2 3 4] -> [[2 2 3 4] [[7 7 3 4] [5 0 0 0]]]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			arg := s32Value(1, 2, 3, 4)
			v, err := Run(parseModule(t, "HloModule m\n\n"+c.src+"\n"), []Value{arg}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var show func(v Value) string
			show = func(v Value) string {
				if v.Kind != KindTuple {
					return fmt.Sprint(s32s(t, v))
				}
				parts := make([]string, len(v.Tuple))
				for i, x := range v.Tuple {
					parts[i] = show(x)
				}
				return "[" + strings.Join(parts, " ") + "]"
			}
			got := show(v)
			// want: "ARGUMENT -> RESULT", the argument as it must be after the run (unchanged) and the result.
			if g := fmt.Sprint(s32s(t, arg)) + " -> " + got; g != c.want {
				t.Errorf("argument and result %s, want %s", g, c.want)
			}
		})
	}
}

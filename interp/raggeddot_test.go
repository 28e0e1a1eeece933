package interp

import (
	"testing"
)

// raggedDotCases are modules whose root is (ragged-dot, the dense form of it XLA's RaggedDotRewriter
// writes): the ragged operand broadcast along a new group dimension and masked to each group's positions
// (start[g] <= position < end[g], the exclusive and inclusive sums of the group sizes), then one dot that
// contracts the group dimension too (free ragged dimension) or takes it as a batch dimension (contracting
// ragged dimension). On finite inputs the masked terms add zeros to each element's chain, so the two give
// the same bits.
var raggedDotCases = []struct{ name, src string }{
	{"rows in groups, the last rows in none", `HloModule m
ENTRY e {
  x = f32[10,4] parameter(0)
  w = f32[3,4,6] parameter(1)
  g = s32[3] constant({3, 0, 5})
  r = f32[10,6] ragged-dot(x, w, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
  start = s32[3] constant({0, 3, 3})
  end = s32[3] constant({3, 3, 8})
  row = s32[3,10,4] iota(), iota_dimension=1
  lo = s32[3,10,4] broadcast(start), dimensions={0}
  hi = s32[3,10,4] broadcast(end), dimensions={0}
  ge = pred[3,10,4] compare(lo, row), direction=LE
  lt = pred[3,10,4] compare(row, hi), direction=LT
  in = pred[3,10,4] and(ge, lt)
  xb = f32[3,10,4] broadcast(x), dimensions={1,2}
  zero = f32[] constant(0)
  zeros = f32[3,10,4] broadcast(zero), dimensions={}
  xd = f32[3,10,4] select(in, xb, zeros)
  d = f32[10,6] dot(xd, w), lhs_contracting_dims={0,2}, rhs_contracting_dims={0,1}
  ROOT t = (f32[10,6], f32[10,6]) tuple(r, d)
}`},
	{"FP8 tokens and experts, f32 result", `HloModule m
ENTRY e {
  x = f8e4m3fn[12,32] parameter(0)
  w = f8e4m3fn[2,32,8] parameter(1)
  g = s64[2] constant({7, 5})
  r = f32[12,8] ragged-dot(x, w, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
  start = s64[2] constant({0, 7})
  end = s64[2] constant({7, 12})
  row = s64[2,12,32] iota(), iota_dimension=1
  lo = s64[2,12,32] broadcast(start), dimensions={0}
  hi = s64[2,12,32] broadcast(end), dimensions={0}
  ge = pred[2,12,32] compare(lo, row), direction=LE
  lt = pred[2,12,32] compare(row, hi), direction=LT
  in = pred[2,12,32] and(ge, lt)
  xb = f8e4m3fn[2,12,32] broadcast(x), dimensions={1,2}
  zero = f8e4m3fn[] constant(0)
  zeros = f8e4m3fn[2,12,32] broadcast(zero), dimensions={}
  xd = f8e4m3fn[2,12,32] select(in, xb, zeros)
  d = f32[12,8] dot(xd, w), lhs_contracting_dims={0,2}, rhs_contracting_dims={0,1}
  ROOT t = (f32[12,8], f32[12,8]) tuple(r, d)
}`},
	{"group sizes per batch element, group dimension after the contracting one", `HloModule m
ENTRY e {
  x = f32[2,6,4] parameter(0)
  w = f32[2,4,3,5] parameter(1)
  g = s32[2,3] constant({{1, 2, 3}, {4, 0, 1}})
  r = f32[2,6,5] ragged-dot(x, w, g), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, lhs_ragged_dims={1}, rhs_group_dims={2}
  start = s32[2,3] constant({{0, 1, 3}, {0, 4, 4}})
  end = s32[2,3] constant({{1, 3, 6}, {4, 4, 5}})
  row = s32[2,3,6,4] iota(), iota_dimension=2
  lo = s32[2,3,6,4] broadcast(start), dimensions={0,1}
  hi = s32[2,3,6,4] broadcast(end), dimensions={0,1}
  ge = pred[2,3,6,4] compare(lo, row), direction=LE
  lt = pred[2,3,6,4] compare(row, hi), direction=LT
  in = pred[2,3,6,4] and(ge, lt)
  xb = f32[2,3,6,4] broadcast(x), dimensions={0,2,3}
  zero = f32[] constant(0)
  zeros = f32[2,3,6,4] broadcast(zero), dimensions={}
  xd = f32[2,3,6,4] select(in, xb, zeros)
  d = f32[2,6,5] dot(xd, w), lhs_batch_dims={0}, lhs_contracting_dims={1,3}, rhs_batch_dims={0}, rhs_contracting_dims={2,1}
  ROOT t = (f32[2,6,5], f32[2,6,5]) tuple(r, d)
}`},
	{"contracting positions in groups, the last in none", `HloModule m
ENTRY e {
  x = f32[5,12] parameter(0)
  w = f32[12,7] parameter(1)
  g = s32[3] constant({4, 0, 6})
  r = f32[3,5,7] ragged-dot(x, w, g), lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={1}
  start = s32[3] constant({0, 4, 4})
  end = s32[3] constant({4, 4, 10})
  zero = f32[] constant(0)
  kx = s32[3,5,12] iota(), iota_dimension=2
  lox = s32[3,5,12] broadcast(start), dimensions={0}
  hix = s32[3,5,12] broadcast(end), dimensions={0}
  gex = pred[3,5,12] compare(lox, kx), direction=LE
  ltx = pred[3,5,12] compare(kx, hix), direction=LT
  inx = pred[3,5,12] and(gex, ltx)
  xb = f32[3,5,12] broadcast(x), dimensions={1,2}
  zx = f32[3,5,12] broadcast(zero), dimensions={}
  xd = f32[3,5,12] select(inx, xb, zx)
  kw = s32[3,12,7] iota(), iota_dimension=1
  low = s32[3,12,7] broadcast(start), dimensions={0}
  hiw = s32[3,12,7] broadcast(end), dimensions={0}
  gew = pred[3,12,7] compare(low, kw), direction=LE
  ltw = pred[3,12,7] compare(kw, hiw), direction=LT
  inw = pred[3,12,7] and(gew, ltw)
  wb = f32[3,12,7] broadcast(w), dimensions={1,2}
  zw = f32[3,12,7] broadcast(zero), dimensions={}
  wd = f32[3,12,7] select(inw, wb, zw)
  d = f32[3,5,7] dot(xd, wd), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  ROOT t = (f32[3,5,7], f32[3,5,7]) tuple(r, d)
}`},
	{"a negative group size: groups that overlap, rows in two of them", `HloModule m
ENTRY e {
  x = f32[10,4] parameter(0)
  w = f32[3,4,6] parameter(1)
  g = s32[3] constant({5, -3, 4})
  r = f32[10,6] ragged-dot(x, w, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
  start = s32[3] constant({0, 5, 2})
  end = s32[3] constant({5, 2, 6})
  row = s32[3,10,4] iota(), iota_dimension=1
  lo = s32[3,10,4] broadcast(start), dimensions={0}
  hi = s32[3,10,4] broadcast(end), dimensions={0}
  ge = pred[3,10,4] compare(lo, row), direction=LE
  lt = pred[3,10,4] compare(row, hi), direction=LT
  in = pred[3,10,4] and(ge, lt)
  xb = f32[3,10,4] broadcast(x), dimensions={1,2}
  zero = f32[] constant(0)
  zeros = f32[3,10,4] broadcast(zero), dimensions={}
  xd = f32[3,10,4] select(in, xb, zeros)
  d = f32[10,6] dot(xd, w), lhs_contracting_dims={0,2}, rhs_contracting_dims={0,1}
  ROOT t = (f32[10,6], f32[10,6]) tuple(r, d)
}`},
	{"negative sizes per batch element, a group starting before the first row", `HloModule m
ENTRY e {
  x = bf16[2,6,4] parameter(0)
  w = bf16[2,3,4,5] parameter(1)
  g = s32[2,3] constant({{-2, 5, 4}, {3, -1, 2}})
  r = f32[2,6,5] ragged-dot(x, w, g), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}, lhs_ragged_dims={1}, rhs_group_dims={1}
  start = s32[2,3] constant({{0, -2, 3}, {0, 3, 2}})
  end = s32[2,3] constant({{-2, 3, 7}, {3, 2, 4}})
  row = s32[2,3,6,4] iota(), iota_dimension=2
  lo = s32[2,3,6,4] broadcast(start), dimensions={0,1}
  hi = s32[2,3,6,4] broadcast(end), dimensions={0,1}
  ge = pred[2,3,6,4] compare(lo, row), direction=LE
  lt = pred[2,3,6,4] compare(row, hi), direction=LT
  in = pred[2,3,6,4] and(ge, lt)
  xb = bf16[2,3,6,4] broadcast(x), dimensions={0,2,3}
  zero = bf16[] constant(0)
  zeros = bf16[2,3,6,4] broadcast(zero), dimensions={}
  xd = bf16[2,3,6,4] select(in, xb, zeros)
  d = f32[2,6,5] dot(xd, w), lhs_batch_dims={0}, lhs_contracting_dims={1,3}, rhs_batch_dims={0}, rhs_contracting_dims={1,2}
  ROOT t = (f32[2,6,5], f32[2,6,5]) tuple(r, d)
}`},
	{"contracting positions with a negative group size", `HloModule m
ENTRY e {
  x = f32[5,6] parameter(0)
  w = f32[6,7] parameter(1)
  g = s32[3] constant({3, -2, 4})
  r = f32[3,5,7] ragged-dot(x, w, g), lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={1}
  start = s32[3] constant({0, 3, 1})
  end = s32[3] constant({3, 1, 5})
  zero = f32[] constant(0)
  kx = s32[3,5,6] iota(), iota_dimension=2
  lox = s32[3,5,6] broadcast(start), dimensions={0}
  hix = s32[3,5,6] broadcast(end), dimensions={0}
  gex = pred[3,5,6] compare(lox, kx), direction=LE
  ltx = pred[3,5,6] compare(kx, hix), direction=LT
  inx = pred[3,5,6] and(gex, ltx)
  xb = f32[3,5,6] broadcast(x), dimensions={1,2}
  zx = f32[3,5,6] broadcast(zero), dimensions={}
  xd = f32[3,5,6] select(inx, xb, zx)
  kw = s32[3,6,7] iota(), iota_dimension=1
  low = s32[3,6,7] broadcast(start), dimensions={0}
  hiw = s32[3,6,7] broadcast(end), dimensions={0}
  gew = pred[3,6,7] compare(low, kw), direction=LE
  ltw = pred[3,6,7] compare(kw, hiw), direction=LT
  inw = pred[3,6,7] and(gew, ltw)
  wb = f32[3,6,7] broadcast(w), dimensions={1,2}
  zw = f32[3,6,7] broadcast(zero), dimensions={}
  wd = f32[3,6,7] select(inw, wb, zw)
  d = f32[3,5,7] dot(xd, wd), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  ROOT t = (f32[3,5,7], f32[3,5,7]) tuple(r, d)
}`},
	{"a ragged batch dimension", `HloModule m
ENTRY e {
  x = bf16[3,4,8] parameter(0)
  w = bf16[3,8,2] parameter(1)
  g = s32[2] constant({1, 2})
  r = f32[3,4,2] ragged-dot(x, w, g), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, lhs_ragged_dims={0}
  d = f32[3,4,2] dot(x, w), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  ROOT t = (f32[3,4,2], f32[3,4,2]) tuple(r, d)
}`},
}

func TestRaggedDotRewriterForms(t *testing.T) {
	for _, c := range raggedDotCases {
		t.Run(c.name, func(t *testing.T) {
			m := parseModule(t, c.src)
			_, r := runRandom(t, m, 7)
			got, want := r.Tuple[0], r.Tuple[1]
			if !sameValue(got, want) {
				t.Errorf("ragged-dot\n%s\nits dense form\n%s", describe(got), describe(want))
			}
			nonzero := false
			for _, b := range got.Array.Data {
				nonzero = nonzero || b != 0
			}
			if !nonzero {
				t.Errorf("the ragged-dot is all zeros")
			}
		})
	}
}

// TestRaggedDotRows checks a small non-contracting ragged-dot element by element: rows 0-1 multiply the
// first expert, row 2 the second, row 3 is in no group.
func TestRaggedDotRows(t *testing.T) {
	src := `HloModule m
ENTRY e {
  x = f32[4,2] parameter(0)
  w = f32[2,2,1] parameter(1)
  g = s32[2] parameter(2)
  ROOT r = f32[4,1] ragged-dot(x, w, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
}`
	got, err := evalText(t, src, "f32[4,2] {{1, 2}, {3, 4}, {5, 6}, {7, 8}}", "f32[2,2,1] {{{1}, {1}}, {{1}, {-1}}}", "s32[2] {2, 1}")
	if err != nil {
		t.Fatal(err)
	}
	if want := val(t, "f32[4,1] {{3}, {7}, {-1}, {0}}"); !sameValue(got, want) {
		t.Errorf("got %s, want %s", describe(got), describe(want))
	}
	// A negative size empties its group: 3, -2 (the second group would end at row 1), 2, -1, and -1, 3
	// (the second group starts at row -1, so it holds rows 0 and 1).
	for _, c := range []struct{ sizes, want string }{
		{"s32[2] {3, -2}", "f32[4,1] {{3}, {7}, {11}, {0}}"},
		{"s32[2] {2, -1}", "f32[4,1] {{3}, {7}, {0}, {0}}"},
		{"s32[2] {-1, 3}", "f32[4,1] {{-1}, {-1}, {0}, {0}}"},
	} {
		got, err := evalText(t, src, "f32[4,2] {{1, 2}, {3, 4}, {5, 6}, {7, 8}}", "f32[2,2,1] {{{1}, {1}}, {{1}, {-1}}}", c.sizes)
		if err != nil {
			t.Fatal(err)
		}
		if want := val(t, c.want); !sameValue(got, want) {
			t.Errorf("sizes %s: got %s, want %s", c.sizes, describe(got), describe(want))
		}
	}
}

package interp

import (
	"fmt"
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
` + denseMask("x", "f32", "s32", "3,10,4", 1, "0", "1,2") + `  d = f32[10,6] dot(xd, w), lhs_contracting_dims={0,2}, rhs_contracting_dims={0,1}
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
` + denseMask("x", "f8e4m3fn", "s64", "2,12,32", 1, "0", "1,2") + `  d = f32[12,8] dot(xd, w), lhs_contracting_dims={0,2}, rhs_contracting_dims={0,1}
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
` + denseMask("x", "f32", "s32", "2,3,6,4", 2, "0,1", "0,2,3") + `  d = f32[2,6,5] dot(xd, w), lhs_batch_dims={0}, lhs_contracting_dims={1,3}, rhs_batch_dims={0}, rhs_contracting_dims={2,1}
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
` + denseMask("x", "f32", "s32", "3,5,12", 2, "0", "1,2") +
		denseMask("w", "f32", "s32", "3,12,7", 1, "0", "1,2") + `  d = f32[3,5,7] dot(xd, wd), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
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
` + denseMask("x", "f32", "s32", "3,10,4", 1, "0", "1,2") + `  d = f32[10,6] dot(xd, w), lhs_contracting_dims={0,2}, rhs_contracting_dims={0,1}
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
` + denseMask("x", "bf16", "s32", "2,3,6,4", 2, "0,1", "0,2,3") + `  d = f32[2,6,5] dot(xd, w), lhs_batch_dims={0}, lhs_contracting_dims={1,3}, rhs_batch_dims={0}, rhs_contracting_dims={1,2}
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
` + denseMask("x", "f32", "s32", "3,5,6", 2, "0", "1,2") +
		denseMask("w", "f32", "s32", "3,6,7", 1, "0", "1,2") + `  d = f32[3,5,7] dot(xd, wd), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
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

// denseMask returns the lines of the dense form that mask operand x (element type et) broadcast to shape
// (x's dimensions at xDims of it): xd, whose elements are x's where their position along dimension pos
// lies in [start[g], end[g]) (start and end of index type it, at groupDims of shape), zero elsewhere.
func denseMask(x, et, it, shape string, pos int, groupDims, xDims string) string {
	return fmt.Sprintf(`  k%[1]s = %[3]s[%[4]s] iota(), iota_dimension=%[5]d
  lo%[1]s = %[3]s[%[4]s] broadcast(start), dimensions={%[6]s}
  hi%[1]s = %[3]s[%[4]s] broadcast(end), dimensions={%[6]s}
  ge%[1]s = pred[%[4]s] compare(lo%[1]s, k%[1]s), direction=LE
  lt%[1]s = pred[%[4]s] compare(k%[1]s, hi%[1]s), direction=LT
  in%[1]s = pred[%[4]s] and(ge%[1]s, lt%[1]s)
  %[1]sb = %[2]s[%[4]s] broadcast(%[1]s), dimensions={%[7]s}
  zero%[1]s = %[2]s[] constant(0)
  z%[1]s = %[2]s[%[4]s] broadcast(zero%[1]s), dimensions={}
  %[1]sd = %[2]s[%[4]s] select(in%[1]s, %[1]sb, z%[1]s)
`, x, et, it, shape, pos, groupDims, xDims)
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

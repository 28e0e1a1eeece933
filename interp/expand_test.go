package interp

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestStochasticConvert checks StochasticConvertDecomposer's rule on hand-worked cases: |x|'s fraction
// f rounds up when the random bits r are below f·2^width(r); the sign is put back; x at or past the
// result type's bounds gives the bound; NaN gives 0 (the converts XLA's expansion makes turn it into 0).
func TestStochasticConvert(t *testing.T) {
	for _, tc := range []struct {
		from, random, to string
		x, r             string
		want             []int64
	}{
		// 2.25: fraction 0.25, 0.25·2^32 = 2^30: r = 2^30-1 rounds up, 2^30 does not.
		{"f32", "u32", "s32", "{2.25, 2.25, -2.25, -2.25, 3e9, -3e9, nan, -0, 7}", "{1073741823, 1073741824, 0, 1073741824, 0, 0, 0, 0, 4294967295}",
			[]int64{3, 2, -3, -2, 2147483647, -2147483648, 0, 0, 7}},
		// bf16 to s16 with u16 bits: 1.5's fraction times 2^16 is 32768.
		{"bf16", "u16", "s16", "{1.5, 1.5, -1.5, 40000, -40000}", "{32767, 32768, 0, 0, 0}", []int64{2, 1, -2, 32767, -32768}},
		// f16: the fraction is scaled in f32 (2^16 is past f16's range): 0.5·2^16 = 32768.
		{"f16", "u16", "s8", "{0.5, 0.5, 200, -200, -127.5}", "{32767, 32768, 0, 0, 0}", []int64{1, 0, 127, -128, -128}},
		// f64 with u64 bits: 0.5·2^64 = 2^63.
		{"f64", "u64", "s32", "{0.5, 0.5, 1.75, -2.25}", "{9223372036854775807, 9223372036854775808, 0, 0}", []int64{1, 0, 2, -3}},
	} {
		src := "ENTRY e {\n  x = " + tc.from + "[" + elements(tc.x) + "] parameter(0)\n  r = " + tc.random + "[" + elements(tc.x) + "] parameter(1)\n  ROOT y = " +
			tc.to + "[" + elements(tc.x) + "] stochastic-convert(x, r)\n}"
		v, err := evalText(t, src, tc.from+"["+elements(tc.x)+"] "+tc.x, tc.random+"["+elements(tc.x)+"] "+tc.r)
		if err != nil {
			t.Fatalf("%s to %s: %v", tc.from, tc.to, err)
		}
		if got := v.Array.Int64s(); !slices.Equal(got, tc.want) {
			t.Errorf("%s %s with %s to %s: %v, want %v", tc.from, tc.x, tc.r, tc.to, got, tc.want)
		}
	}
	_, err := evalText(t, "ENTRY e {\n  x = f32[1] parameter(0)\n  r = u32[1] parameter(1)\n  ROOT y = bf16[1] stochastic-convert(x, r)\n}", "f32[1] {1}", "u32[1] {0}")
	if err == nil || !isUnsupported(err) || !strings.Contains(err.Error(), "signed integers only") {
		t.Errorf("to bf16: %v, want unsupported", err)
	}
}

// elements is the number of elements of a one-dimensional literal, as text.
func elements(literal string) string {
	return strconv.Itoa(strings.Count(literal, ",") + 1)
}

// TestGetDimensionSize: the size of a static dimension, as s32; a dynamic one is refused.
func TestGetDimensionSize(t *testing.T) {
	v, err := evalText(t, "ENTRY e {\n  x = f32[3,5] parameter(0)\n  ROOT n = s32[] get-dimension-size(x), dimensions={1}\n}", "f32[3,5] {{1,2,3,4,5},{1,2,3,4,5},{1,2,3,4,5}}")
	if err != nil || v.Array.Int64s()[0] != 5 {
		t.Errorf("get-dimension-size: %v, %v; want 5", v, err)
	}
	m := parseModule(t, "ENTRY e {\n  x = f32[<=4] parameter(0)\n  ROOT n = s32[] get-dimension-size(x), dimensions={0}\n}")
	if _, err := Run(m, []Value{val(t, "f32[4] {1,2,3,4}")}, Options{MaxMemory: 1 << 20}); err == nil || !isUnsupported(err) {
		t.Errorf("dynamic dimension: %v, want unsupported", err)
	}
}

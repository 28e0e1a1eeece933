package interp

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"octet/dtype"
	"octet/tensor"
)

func TestShapeOps(t *testing.T) {
	runCases(t, []opCase{
		{"broadcast", unary("broadcast", "f32[2]", "f32[2,3]", "dimensions={0}"), []string{"f32[2] {1, 2}"}, []string{"f32[2,3] {{1, 1, 1}, {2, 2, 2}}"}},
		{"broadcast-minor", unary("broadcast", "s32[3]", "s32[2,3]", "dimensions={1}"), []string{"s32[3] {1, 2, 3}"}, []string{"s32[2,3] {{1, 2, 3}, {1, 2, 3}}"}},
		{"broadcast-scalar", unary("broadcast", "bf16[]", "bf16[2,2]", "dimensions={}"), []string{"bf16[] 1.5"}, []string{"bf16[2,2] {{1.5, 1.5}, {1.5, 1.5}}"}},
		{"reshape", unary("reshape", "f32[2,3]", "f32[3,2]"), []string{"f32[2,3] {{1, 2, 3}, {4, 5, 6}}"}, []string{"f32[3,2] {{1, 2}, {3, 4}, {5, 6}}"}},
		{"transpose", unary("transpose", "f32[2,3]", "f32[3,2]", "dimensions={1,0}"), []string{"f32[2,3] {{1, 2, 3}, {4, 5, 6}}"}, []string{"f32[3,2] {{1, 4}, {2, 5}, {3, 6}}"}},
		{"transpose-3d", unary("transpose", "s8[2,1,3]", "s8[3,2,1]", "dimensions={2,0,1}"), []string{"s8[2,1,3] {{{1, 2, 3}}, {{4, 5, 6}}}"}, []string{"s8[3,2,1] {{{1}, {4}}, {{2}, {5}}, {{3}, {6}}}"}},
		// A bitcast between layouts reads the operand's bytes in the result's layout: row-major [2,3] read
		// as column-major [3,2] is the transpose.
		{"bitcast-layouts", `ENTRY e {
  x = f32[2,3]{1,0} parameter(0)
  ROOT r = f32[3,2]{0,1} bitcast(x)
}`, []string{"f32[2,3] {{1, 2, 3}, {4, 5, 6}}"}, []string{"f32[3,2] {{1, 4}, {2, 5}, {3, 6}}"}},
		{"bitcast-same-layout", `ENTRY e {
  x = f32[2,3]{1,0} parameter(0)
  ROOT r = f32[6]{0} bitcast(x)
}`, []string{"f32[2,3] {{1, 2, 3}, {4, 5, 6}}"}, []string{"f32[6] {1, 2, 3, 4, 5, 6}"}},
		{"bitcast-column-major-operand", `ENTRY e {
  x = f32[2,3]{0,1} parameter(0)
  ROOT r = f32[6]{0} bitcast(x)
}`, []string{"f32[2,3] {{1, 2, 3}, {4, 5, 6}}"}, []string{"f32[6] {1, 4, 2, 5, 3, 6}"}},
		// XLA's layout passes write bitcasts that change the element type and count (a u32[4] key read as
		// the u64[2] state of rng-bit-generator, in what JAX compiles for a GPU): each u64 is two
		// consecutive u32 in memory, the first its low half.
		{"bitcast-wider-elements", `ENTRY e {
  x = u32[4]{0} parameter(0)
  ROOT r = u64[2]{0} bitcast(x)
}`, []string{"u32[4] {1, 2, 4294967295, 0}"}, []string{"u64[2] {8589934593, 4294967295}"}},
		{"bitcast-narrower-column-major", `ENTRY e {
  x = u64[2,1]{0,1} parameter(0)
  ROOT r = u16[8]{0} bitcast(x)
}`, []string{"u64[2,1] {{281483566841860}, {65535}}"}, []string{"u16[8] {4, 3, 2, 1, 65535, 0, 0, 0}"}},
		{"slice-stride", unary("slice", "s32[10]", "s32[3]", "slice={[1:8:3]}"), []string{"s32[10] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}"}, []string{"s32[3] {1, 4, 7}"}},
		{"slice-2d", unary("slice", "f32[3,3]", "f32[2,1]", "slice={[1:3], [2:3]}"), []string{"f32[3,3] {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}"}, []string{"f32[2,1] {{6}, {9}}"}},
		// Start indices are clamped so that the slice stays inside the operand.
		{"dynamic-slice-clamped", `ENTRY e {
  x = s32[5] parameter(0)
  i = s32[] parameter(1)
  j = s32[] parameter(2)
  a = s32[3] dynamic-slice(x, i), dynamic_slice_sizes={3}
  b = s32[3] dynamic-slice(x, j), dynamic_slice_sizes={3}
  ROOT r = (s32[3], s32[3]) tuple(a, b)
}`, []string{"s32[5] {0, 1, 2, 3, 4}", "s32[] 3", "s32[] -1"}, []string{"s32[3] {2, 3, 4}", "s32[3] {0, 1, 2}"}},
		{"dynamic-slice-2d", `ENTRY e {
  x = f32[3,3] parameter(0)
  i = u32[] parameter(1)
  j = u32[] parameter(2)
  ROOT r = f32[2,2] dynamic-slice(x, i, j), dynamic_slice_sizes={2,2}
}`, []string{"f32[3,3] {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}", "u32[] 1", "u32[] 7"}, []string{"f32[2,2] {{5, 6}, {8, 9}}"}},
		{"dynamic-update-slice-clamped", `ENTRY e {
  x = s32[5] parameter(0)
  u = s32[2] parameter(1)
  i = s32[] parameter(2)
  ROOT r = s32[5] dynamic-update-slice(x, u, i)
}`, []string{"s32[5] {0, 1, 2, 3, 4}", "s32[2] {9, 8}", "s32[] 4"}, []string{"s32[5] {0, 1, 2, 9, 8}"}},
		{"pad-interior-negative-high", `ENTRY e {
  x = f32[3] parameter(0)
  p = f32[] constant(0)
  ROOT r = f32[5] pad(x, p), padding=1_-1_1
}`, []string{"f32[3] {1, 2, 3}"}, []string{"f32[5] {0, 1, 0, 2, 0}"}},
		{"pad-negative-low", `ENTRY e {
  x = f32[3] parameter(0)
  p = f32[] constant(-1)
  ROOT r = f32[4] pad(x, p), padding=-1_0_1
}`, []string{"f32[3] {1, 2, 3}"}, []string{"f32[4] {-1, 2, -1, 3}"}},
		// Strides and paddings near 2^63, which the sizes are worked out without overflowing: one element
		// taken with the largest stride; the second element alone landing in the result, after an interior
		// padding of 2^63-3 that starts at the negative low padding -(2^63-3).
		{"slice-stride-near-2^63", unary("slice", "s32[10]", "s32[1]", "slice={[3:10:9223372036854775807]}"), []string{"s32[10] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}"}, []string{"s32[1] {3}"}},
		{"pad-near-2^63", `ENTRY e {
  x = f32[2] parameter(0)
  p = f32[] constant(7)
  ROOT r = f32[2] pad(x, p), padding=-9223372036854775805_0_9223372036854775805
}`, []string{"f32[2] {1, 2}"}, []string{"f32[2] {7, 2}"}},
		{"pad-2d", `ENTRY e {
  x = s32[2,2] parameter(0)
  p = s32[] constant(7)
  ROOT r = s32[3,4] pad(x, p), padding=1_0x0_2
}`, []string{"s32[2,2] {{1, 2}, {3, 4}}"}, []string{"s32[3,4] {{7, 7, 7, 7}, {1, 2, 7, 7}, {3, 4, 7, 7}}"}},
		{"concatenate", `ENTRY e {
  x = f32[2,1] parameter(0)
  y = f32[2,2] parameter(1)
  ROOT r = f32[2,3] concatenate(x, y), dimensions={1}
}`, []string{"f32[2,1] {{1}, {2}}", "f32[2,2] {{3, 4}, {5, 6}}"}, []string{"f32[2,3] {{1, 3, 4}, {2, 5, 6}}"}},
		{"iota", `ENTRY e {
  a = s32[2,3] iota(), iota_dimension=1
  b = f32[2,3] iota(), iota_dimension=0
  ROOT r = (s32[2,3], f32[2,3]) tuple(a, b)
}`, nil, []string{"s32[2,3] {{0, 1, 2}, {0, 1, 2}}", "f32[2,3] {{0, 0, 0}, {1, 1, 1}}"}},
		{"reverse", unary("reverse", "s32[2,3]", "s32[2,3]", "dimensions={1}"), []string{"s32[2,3] {{1, 2, 3}, {4, 5, 6}}"}, []string{"s32[2,3] {{3, 2, 1}, {6, 5, 4}}"}},
		{"reverse-both", unary("reverse", "s32[2,2]", "s32[2,2]", "dimensions={0,1}"), []string{"s32[2,2] {{1, 2}, {3, 4}}"}, []string{"s32[2,2] {{4, 3}, {2, 1}}"}},
		{"copy", unary("copy", "f8e5m2[2]", "f8e5m2[2]"), []string{"f8e5m2[2] bits:{0x7c, 0x01}"}, []string{"f8e5m2[2] bits:{0x7c, 0x01}"}},
	})
}

func TestConstants(t *testing.T) {
	runCases(t, []opCase{
		{"nested", "ENTRY e {\n  ROOT c = f32[2,3] constant({ { 1, 2.5, -3e-2 }, { inf, -inf, nan } })\n}", nil,
			[]string{"f32[2,3] bits:{0x3f800000, 0x40200000, 0xbcf5c28f, 0x7f800000, 0xff800000, 0x7fc00000}"}},
		{"pred", "ENTRY e {\n  ROOT c = pred[3] constant({true, false, 1})\n}", nil, []string{"pred[3] {1, 0, 1}"}},
		{"bf16", "ENTRY e {\n  ROOT c = bf16[2] constant({1.00390625, -nan})\n}", nil, []string{"bf16[2] bits:{0x3f80, 0xffc0}"}},
		{"f8", "ENTRY e {\n  ROOT c = f8e4m3fn[3] constant({448, nan, -0})\n}", nil, []string{"f8e4m3fn[3] bits:{0x7e, 0x7f, 0x80}"}},
		{"nan-payload", "ENTRY e {\n  ROOT c = f32[] constant(nan(0x1))\n}", nil, []string{"f32[] bits:{0x7f800001}"}},
		{"ints", "ENTRY e {\n  ROOT c = (s8[2], u64[1], s4[2]) constant(({-128, 127}, {18446744073709551615}, {-8, 7}))\n}", nil,
			[]string{"s8[2] {-128, 127}", "u64[1] {18446744073709551615}", "s4[2] {-8, 7}"}},
		{"scalar-for-array", "ENTRY e {\n  ROOT c = s32[3] constant(5)\n}", nil, []string{"s32[3] {5, 5, 5}"}},
		{"empty", "ENTRY e {\n  ROOT c = f32[0,2] constant({})\n}", nil, []string{"f32[0,2] {}"}},
		{"index-comments", "ENTRY e {\n  ROOT c = f32[2,1,2] constant({ { /*i0=0*/ { 1, 2 } }, { /*i0=1*/ { 3, 4 } } })\n}", nil, []string{"f32[2,1,2] {{{1, 2}}, {{3, 4}}}"}},
		{"empty-with-comments", "ENTRY e {\n  ROOT c = f32[2,0,3] constant({ { /*i0=0*/ }, { /*i0=1*/ } })\n}", nil, []string{"f32[2,0,3] {}"}},
	})
}

// TestUnsupportedIsPositioned checks the form of the error for what the interpreter does not evaluate.
func TestUnsupportedIsPositioned(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"elided-constant", "ENTRY e {\n  ROOT c = f32[100] constant({...})\n}", "test.hlo:2:3: unsupported: constant whose values were elided"},
		{"custom-call", "ENTRY e {\n  x = f32[2] parameter(0)\n  ROOT c = f32[2] custom-call(x), custom_call_target=\"my_kernel\"\n}", `test.hlo:3:3: unsupported: custom-call "my_kernel"`},
		{"stochastic-convert", "ENTRY e {\n  x = f32[2] parameter(0)\n  y = u32[2] parameter(1)\n  ROOT r = bf16[2] stochastic-convert(x, y)\n}", "test.hlo:4:3: unsupported: stochastic-convert"},
		{"infeed-in-called", "c {\n  t = token[] parameter(0)\n  ROOT i = (f32[], token[]) infeed(t)\n}\nENTRY e {\n  t = token[] after-all()\n  ROOT r = (f32[], token[]) call(t), to_apply=c\n}", "test.hlo:3:3: unsupported: host transfer infeed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := parseModule(t, c.src)
			args, err := RandomInputs(m, 1)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Run(m, args, Options{})
			if err == nil || !isUnsupported(err) || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("got error %v, want one starting %q", err, c.want)
			}
		})
	}
}

// TestPadThreads pads an array large enough to be split across goroutines (negative low padding, interior
// padding, a padded dimension of one element) and checks every element against the definition, with one
// and with three threads.
func TestPadThreads(t *testing.T) {
	m := parseModule(t, `HloModule pad

ENTRY e {
  x = s32[3,70,90] parameter(0)
  p = s32[] constant(-7)
  ROOT r = s32[5,137,95] pad(x, p), padding=1_1x-2_0_1x3_2
}`)
	x := tensor.New(dtype.S32, []int64{3, 70, 90})
	xv := tensor.View[int32](x)
	for i := range xv {
		xv[i] = int32(i)
	}
	for _, threads := range []int{1, 3} {
		r, err := Run(m, []Value{ArrayValue(x)}, Options{Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		got := tensor.View[int32](r.Array)
		for a := 0; a < 5; a++ {
			for b := 0; b < 137; b++ {
				for c := 0; c < 95; c++ {
					want := int32(-7)
					// Operand element (a-1, (b+2)/2, c-3) where b+2 is even.
					if i, j, k := a-1, b+2, c-3; i >= 0 && i < 3 && j%2 == 0 && j/2 < 70 && k >= 0 && k < 90 {
						want = int32((i*70+j/2)*90 + k)
					}
					if g := got[(a*137+b)*95+c]; g != want {
						t.Fatalf("%d threads: element (%d, %d, %d) = %d, want %d", threads, a, b, c, g, want)
					}
				}
			}
		}
	}
}

// copyRegion's tiled path (a transpose whose source runs contiguously along another dimension than the
// result's innermost) and its merging of dimensions against the copy written out element by element from
// the offsets' definition, for transposes of two to four dimensions, a reversed dimension (a negative
// stride) or a repeated one (a zero stride) among them, and every element size.
func TestCopyRegionTiled(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	tiled := 0
	for trial := range 200 {
		r := 2 + trial%3
		dims := make([]int64, r)
		for i := range dims { // two long dimensions, the others short
			dims[i] = 1 + rng.Int64N(6)
		}
		for _, i := range rng.Perm(r)[:2] {
			dims[i] = 1 + rng.Int64N(3*transposeTile)
		}
		es := []int{1, 2, 4, 8}[trial%4]
		// The source is x of shape dims, read transposed by a random permutation.
		perm := rng.Perm(r)
		xs := rowMajorStrides(dims)
		out := make([]int64, r)
		srcStrides := make([]int64, r)
		var srcBase int64
		for i, p := range perm {
			out[i] = dims[p]
			srcStrides[i] = xs[p]
		}
		if trial%5 == 0 { // reverse the first dimension of the result
			srcBase = (out[0] - 1) * srcStrides[0]
			srcStrides[0] = -srcStrides[0]
		}
		if trial%7 == 0 { // repeat the elements along the last dimension, as a broadcast reads them
			srcStrides[r-1] = 0
		}
		n := product(dims)
		src := make([]byte, n*int64(es))
		for i := range src {
			src[i] = byte(rng.IntN(256))
		}
		dstStrides := rowMajorStrides(out)
		got := make([]byte, len(src))
		copyRegion(got, 0, dstStrides, src, srcBase, srcStrides, out, es)
		if tiledDim(dstStrides, srcStrides, out) >= 0 {
			tiled++
		}
		want := make([]byte, len(src))
		idx := make([]int64, r)
		for k := int64(0); k < n; k++ {
			rem := k
			for i := r - 1; i >= 0; i-- {
				idx[i] = rem % out[i]
				rem /= out[i]
			}
			d, s := int64(0), srcBase
			for i := range idx {
				d += idx[i] * dstStrides[i]
				s += idx[i] * srcStrides[i]
			}
			copy(want[d*int64(es):(d+1)*int64(es)], src[s*int64(es):(s+1)*int64(es)])
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("dims %v perm %v (reversed %v) size %d: the tiled copy differs", dims, perm, trial%5 == 0, es)
		}
	}
	if tiled < 20 {
		t.Errorf("only %d of 200 copies took the tiled path", tiled)
	}
}

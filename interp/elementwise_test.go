package interp

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"octet/dtype"
	"octet/gemm"
	"octet/tensor"
)

func TestBinaryOps(t *testing.T) {
	runCases(t, []opCase{
		{"add", binary("add", "f32[3]", "f32[3]"), []string{"f32[3] {1, 2, 3}", "f32[3] {4, 5, 6.5}"}, []string{"f32[3] {5, 7, 9.5}"}},
		{"subtract", binary("subtract", "f32[2]", "f32[2]"), []string{"f32[2] {1, -2}", "f32[2] {4, 5}"}, []string{"f32[2] {-3, -7}"}},
		{"multiply", binary("multiply", "f32[2]", "f32[2]"), []string{"f32[2] {1.5, -2}", "f32[2] {4, inf}"}, []string{"f32[2] {6, -inf}"}},
		{"divide", binary("divide", "f32[3]", "f32[3]"), []string{"f32[3] {1, 1, 0}", "f32[3] {4, 0, 0}"}, []string{"f32[3] bits:{0x3e800000, 0x7f800000, 0xffc00000}"}}, // 0/0: x86's default NaN
		// bf16 rounds after each operation: 1 + 2^-8 is a tie that rounds to even (1), twice; computing in
		// float32 throughout would give 1 + 2^-7.
		{"bf16-rounds-each-step", `ENTRY e {
  x = bf16[] parameter(0)
  y = bf16[] parameter(1)
  a = bf16[] add(x, y)
  ROOT b = bf16[] add(a, y)
}`, []string{"bf16[] 1", "bf16[] 0.00390625"}, []string{"bf16[] bits:{0x3f80}"}},
		{"f8-add-overflows-to-nan", binary("add", "f8e4m3fn[2]", "f8e4m3fn[2]"), []string{"f8e4m3fn[2] {448, 256}", "f8e4m3fn[2] {448, -256}"}, []string{"f8e4m3fn[2] bits:{0x7f, 0x00}"}},
		{"maximum-nan", binary("maximum", "f32[4]", "f32[4]"), []string{"f32[4] {nan, 1, 2, -0}", "f32[4] {1, nan, 3, 0}"}, []string{"f32[4] {nan, nan, 3, -0}"}},
		{"minimum-nan", binary("minimum", "f32[4]", "f32[4]"), []string{"f32[4] {nan, 1, 2, 0}", "f32[4] {1, nan, 3, -0}"}, []string{"f32[4] {nan, nan, 2, 0}"}},
		{"power-f32", binary("power", "f32[3]", "f32[3]"), []string{"f32[3] {2, 4, 1}", "f32[3] {10, 0.5, nan}"}, []string{"f32[3] {1024, 2, 1}"}},
		{"power-s32", binary("power", "s32[4]", "s32[4]"), []string{"s32[4] {2, 2, 1, -1}", "s32[4] {10, -1, -5, -1}"}, []string{"s32[4] {1024, 0, 1, 0}"}},
		{"remainder-f32", binary("remainder", "f32[2]", "f32[2]"), []string{"f32[2] {7.5, -7.5}", "f32[2] {2, 2}"}, []string{"f32[2] {1.5, -1.5}"}},
		{"atan2", binary("atan2", "f64[2]", "f64[2]"), []string{"f64[2] {0, 1}", "f64[2] {1, 0}"}, []string{"f64[2] {0, 1.5707963267948966}"}},
		{"divide-s32", binary("divide", "s32[4]", "s32[4]"), []string{"s32[4] {7, -7, 5, -2147483648}", "s32[4] {2, 2, 0, -1}"}, []string{"s32[4] {3, -3, -1, -2147483648}"}},
		{"divide-u32-by-zero", binary("divide", "u32[2]", "u32[2]"), []string{"u32[2] {7, 4000000000}", "u32[2] {0, 3}"}, []string{"u32[2] {4294967295, 1333333333}"}},
		{"remainder-s32", binary("remainder", "s32[4]", "s32[4]"), []string{"s32[4] {7, -7, 5, -2147483648}", "s32[4] {2, 2, 0, -1}"}, []string{"s32[4] {1, -1, 5, 0}"}},
		{"add-s8-wraps", binary("add", "s8[2]", "s8[2]"), []string{"s8[2] {100, -100}", "s8[2] {100, -100}"}, []string{"s8[2] {-56, 56}"}},
		{"multiply-u8-wraps", binary("multiply", "u8[1]", "u8[1]"), []string{"u8[1] {200}", "u8[1] {2}"}, []string{"u8[1] {144}"}},
		{"max-u32", binary("maximum", "u32[1]", "u32[1]"), []string{"u32[1] {4294967295}", "u32[1] {1}"}, []string{"u32[1] {4294967295}"}},
		{"max-u64", binary("maximum", "u64[1]", "u64[1]"), []string{"u64[1] {18446744073709551615}", "u64[1] {1}"}, []string{"u64[1] {18446744073709551615}"}},
		{"and-or-xor-pred", `ENTRY e {
  x = pred[4] parameter(0)
  y = pred[4] parameter(1)
  a = pred[4] and(x, y)
  o = pred[4] or(x, y)
  ROOT r = (pred[4], pred[4], pred[4]) tuple(a, o, pred[4] xor(x, y))
}`, []string{"pred[4] {true, true, false, false}", "pred[4] {true, false, true, false}"},
			[]string{"pred[4] {1, 0, 0, 0}", "pred[4] {1, 1, 1, 0}", "pred[4] {0, 1, 1, 0}"}},
		{"shift-left", binary("shift-left", "s32[3]", "s32[3]"), []string{"s32[3] {1, 1, 1}", "s32[3] {4, 33, -1}"}, []string{"s32[3] {16, 0, 0}"}},
		{"shift-right-arithmetic", binary("shift-right-arithmetic", "s32[3]", "s32[3]"), []string{"s32[3] {-8, -8, 8}", "s32[3] {1, 40, 40}"}, []string{"s32[3] {-4, -1, 0}"}},
		{"shift-right-logical", binary("shift-right-logical", "s32[2]", "s32[2]"), []string{"s32[2] {-1, -1}", "s32[2] {28, 32}"}, []string{"s32[2] {15, 0}"}},
		{"shift-right-logical-u8", binary("shift-right-logical", "u8[1]", "u8[1]"), []string{"u8[1] {128}", "u8[1] {7}"}, []string{"u8[1] {1}"}},
	})
}

func TestUnaryOps(t *testing.T) {
	runCases(t, []opCase{
		{"abs", unary("abs", "f32[3]", "f32[3]"), []string{"f32[3] {-1.5, -0, 2}"}, []string{"f32[3] {1.5, 0, 2}"}},
		{"abs-s32", unary("abs", "s32[2]", "s32[2]"), []string{"s32[2] {-5, -2147483648}"}, []string{"s32[2] {5, -2147483648}"}},
		{"negate", unary("negate", "f32[2]", "f32[2]"), []string{"f32[2] {1, 0}"}, []string{"f32[2] {-1, -0}"}},
		{"negate-s8", unary("negate", "s8[2]", "s8[2]"), []string{"s8[2] {5, -128}"}, []string{"s8[2] {-5, -128}"}},
		{"exp", unary("exponential", "f32[2]", "f32[2]"), []string{"f32[2] {0, -inf}"}, []string{"f32[2] {1, 0}"}},
		{"log", unary("log", "f32[3]", "f32[3]"), []string{"f32[3] {1, 0, -1}"}, []string{"f32[3] {0, -inf, nan}"}},
		{"sqrt-rsqrt", `ENTRY e {
  x = f32[2] parameter(0)
  ROOT r = (f32[2], f32[2]) tuple(f32[2] sqrt(x), f32[2] rsqrt(x))
}`, []string{"f32[2] {4, 0.25}"}, []string{"f32[2] {2, 0.5}", "f32[2] {0.5, 2}"}},
		{"sign", unary("sign", "f32[5]", "f32[5]"), []string{"f32[5] {-3, -0, 0, 7, nan}"}, []string{"f32[5] {-1, -0, 0, 1, nan}"}},
		{"sign-s32", unary("sign", "s32[3]", "s32[3]"), []string{"s32[3] {-3, 0, 7}"}, []string{"s32[3] {-1, 0, 1}"}},
		{"floor-ceil", `ENTRY e {
  x = f32[3] parameter(0)
  ROOT r = (f32[3], f32[3]) tuple(f32[3] floor(x), f32[3] ceil(x))
}`, []string{"f32[3] {-1.5, 1.5, 2}"}, []string{"f32[3] {-2, 1, 2}", "f32[3] {-1, 2, 2}"}},
		{"round-afz", unary("round-nearest-afz", "f32[3]", "f32[3]"), []string{"f32[3] {2.5, -2.5, 1.4}"}, []string{"f32[3] {3, -3, 1}"}},
		{"round-even", unary("round-nearest-even", "f32[3]", "f32[3]"), []string{"f32[3] {2.5, -3.5, 1.6}"}, []string{"f32[3] {2, -4, 2}"}},
		{"tanh-logistic", `ENTRY e {
  x = f32[2] parameter(0)
  ROOT r = (f32[2], f32[2]) tuple(f32[2] tanh(x), f32[2] logistic(x))
}`, []string{"f32[2] {0, inf}"}, []string{"f32[2] {0, 1}", "f32[2] {0.5, 1}"}},
		{"is-finite", unary("is-finite", "f32[4]", "pred[4]"), []string{"f32[4] {1, inf, -inf, nan}"}, []string{"pred[4] {1, 0, 0, 0}"}},
		{"is-finite-f8", unary("is-finite", "f8e4m3fn[2]", "pred[2]"), []string{"f8e4m3fn[2] bits:{0x7e, 0x7f}"}, []string{"pred[2] {1, 0}"}},
		{"not-pred", unary("not", "pred[2]", "pred[2]"), []string{"pred[2] {true, false}"}, []string{"pred[2] {false, true}"}},
		{"not-s32", unary("not", "s32[1]", "s32[1]"), []string{"s32[1] {5}"}, []string{"s32[1] {-6}"}},
		{"popcnt", unary("popcnt", "u8[2]", "u8[2]"), []string{"u8[2] {255, 5}"}, []string{"u8[2] {8, 2}"}},
		{"clz", unary("count-leading-zeros", "s32[3]", "s32[3]"), []string{"s32[3] {1, 0, -1}"}, []string{"s32[3] {31, 32, 0}"}},
		{"bf16-exp-rounds", unary("exponential", "bf16[1]", "bf16[1]"), []string{"bf16[1] {1}"}, []string{"bf16[1] bits:{0x402e}"}},
	})
}

func TestCompareOp(t *testing.T) {
	cmp := func(in, dir string, extra ...string) string {
		return binary("compare", in, "pred["+in[len(in)-2:len(in)-1]+"]", append([]string{"direction=" + dir}, extra...)...)
	}
	runCases(t, []opCase{
		{"lt", cmp("f32[4]", "LT"), []string{"f32[4] {1, 2, nan, -0}", "f32[4] {2, 2, 1, 0}"}, []string{"pred[4] {1, 0, 0, 0}"}},
		{"le", cmp("f32[4]", "LE"), []string{"f32[4] {1, 2, nan, -0}", "f32[4] {2, 2, 1, 0}"}, []string{"pred[4] {1, 1, 0, 1}"}},
		{"eq", cmp("f32[4]", "EQ"), []string{"f32[4] {1, 2, nan, -0}", "f32[4] {2, 2, nan, 0}"}, []string{"pred[4] {0, 1, 0, 1}"}},
		{"ne", cmp("f32[4]", "NE"), []string{"f32[4] {1, 2, nan, -0}", "f32[4] {2, 2, nan, 0}"}, []string{"pred[4] {1, 0, 1, 0}"}},
		{"gt", cmp("f32[4]", "GT"), []string{"f32[4] {1, 2, nan, 3}", "f32[4] {2, 2, 1, 0}"}, []string{"pred[4] {0, 0, 0, 1}"}},
		{"ge", cmp("f32[4]", "GE"), []string{"f32[4] {1, 2, nan, 3}", "f32[4] {2, 2, 1, 0}"}, []string{"pred[4] {0, 1, 0, 1}"}},
		// totalOrder: -NaN < -inf < -0 < +0 < inf < NaN.
		{"totalorder-lt", cmp("f32[4]", "LT", "type=TOTALORDER"), []string{"f32[4] {-0, -inf, inf, -nan}", "f32[4] {0, -0, nan, -inf}"}, []string{"pred[4] {1, 1, 1, 1}"}},
		{"totalorder-eq", cmp("f32[3]", "EQ", "type=TOTALORDER"), []string{"f32[3] {nan, -0, 1}", "f32[3] {nan, 0, 1}"}, []string{"pred[3] {1, 0, 1}"}},
		{"totalorder-bf16", cmp("bf16[2]", "GT", "type=TOTALORDER"), []string{"bf16[2] {nan, 0}", "bf16[2] {inf, -0}"}, []string{"pred[2] {1, 1}"}},
		{"f8", cmp("f8e4m3fn[3]", "LT"), []string{"f8e4m3fn[3] bits:{0x01, 0x80, 0x7f}", "f8e4m3fn[3] bits:{0x02, 0x00, 0x00}"}, []string{"pred[3] {1, 0, 0}"}},
		{"signed", cmp("s32[2]", "LT"), []string{"s32[2] {-1, 5}", "s32[2] {1, 5}"}, []string{"pred[2] {1, 0}"}},
		{"unsigned", cmp("u32[2]", "GT"), []string{"u32[2] {4294967295, 5}", "u32[2] {1, 5}"}, []string{"pred[2] {1, 0}"}},
		{"u64", cmp("u64[1]", "GT"), []string{"u64[1] {18446744073709551615}", "u64[1] {1}"}, []string{"pred[1] {1}"}},
		{"pred", cmp("pred[2]", "GT"), []string{"pred[2] {true, false}", "pred[2] {false, false}"}, []string{"pred[2] {1, 0}"}},
	})
}

func TestSelectClamp(t *testing.T) {
	runCases(t, []opCase{
		{"select", `ENTRY e {
  p = pred[3] parameter(0)
  x = f32[3] parameter(1)
  y = f32[3] parameter(2)
  ROOT r = f32[3] select(p, x, y)
}`, []string{"pred[3] {1, 0, 1}", "f32[3] {1, 2, 3}", "f32[3] {4, 5, 6}"}, []string{"f32[3] {1, 5, 3}"}},
		{"select-scalar-pred", `ENTRY e {
  p = pred[] parameter(0)
  x = s32[2] parameter(1)
  y = s32[2] parameter(2)
  ROOT r = s32[2] select(p, x, y)
}`, []string{"pred[] false", "s32[2] {1, 2}", "s32[2] {4, 5}"}, []string{"s32[2] {4, 5}"}},
		{"clamp", `ENTRY e {
  lo = f32[] parameter(0)
  x = f32[5] parameter(1)
  hi = f32[] parameter(2)
  ROOT r = f32[5] clamp(lo, x, hi)
}`, []string{"f32[] -448", "f32[5] {-1000, 3, 1000, nan, inf}", "f32[] 448"}, []string{"f32[5] {-448, 3, 448, nan, 448}"}},
		{"clamp-nan-bound", `ENTRY e {
  lo = f32[2] parameter(0)
  x = f32[2] parameter(1)
  hi = f32[2] parameter(2)
  ROOT r = f32[2] clamp(lo, x, hi)
}`, []string{"f32[2] {nan, 0}", "f32[2] {1, 1}", "f32[2] {2, nan}"}, []string{"f32[2] {nan, nan}"}},
		{"clamp-bf16", `ENTRY e {
  lo = bf16[] parameter(0)
  x = bf16[5] parameter(1)
  hi = bf16[5] parameter(2)
  ROOT r = bf16[5] clamp(lo, x, hi)
}`, []string{"bf16[] 0", "bf16[5] {-3, 3, 1000, nan, -0}", "bf16[5] {6, 6, 6, 6, nan}"}, []string{"bf16[5] {0, 3, 6, nan, nan}"}},
		{"clamp-s32", `ENTRY e {
  lo = s32[] parameter(0)
  x = s32[3] parameter(1)
  hi = s32[] parameter(2)
  ROOT r = s32[3] clamp(lo, x, hi)
}`, []string{"s32[] 0", "s32[3] {-5, 3, 99}", "s32[] 10"}, []string{"s32[3] {0, 3, 10}"}},
	})
}

// TestClampSliceBits checks that the clamp over slices gives gemm.Clamp32's bits for every combination of
// signed zeros, infinities, NaNs with payloads and ordinary values as the three operands.
func TestClampSliceBits(t *testing.T) {
	vals := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 6, -6, 3, float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), math.Float32frombits(0x7fa00001), math.Float32frombits(0xffc00002)}
	var l, v, h []float32
	for _, a := range vals {
		for _, b := range vals {
			for _, c := range vals {
				l, v, h = append(l, a), append(v, b), append(h, c)
			}
		}
	}
	dst := make([]float32, len(l))
	clampSliceF32(dst, l, v, h)
	for i := range dst {
		if want := gemm.Clamp32(l[i], v[i], h[i]); math.Float32bits(dst[i]) != math.Float32bits(want) {
			t.Errorf("clamp(%v, %v, %v) = %#x, want %#x", l[i], v[i], h[i], math.Float32bits(dst[i]), math.Float32bits(want))
		}
	}
}

// TestClampBF16Bits checks the clamp on bf16 bits against the float32 clamp between decoding and
// encoding, for every combination of special and ordinary values (subnormals and NaN payloads included),
// with full and one-element bounds.
func TestClampBF16Bits(t *testing.T) {
	vals := []uint16{0x0000, 0x8000, 0x3f80, 0xbf80, 0x40c0, 0xc0c0, 0x0001, 0x8003, 0x007f, 0x7f7f, 0x7f80,
		0xff80, 0x7fc0, 0xffc0, 0x7f81, 0xffa5, 0x4040}
	var l, v, h []uint16
	for _, a := range vals {
		for _, b := range vals {
			for _, c := range vals {
				l, v, h = append(l, a), append(v, b), append(h, c)
			}
		}
	}
	want := func(a, b, c uint16) uint16 {
		f := func(u uint16) float32 { return dtype.BF16.DecodeFloat32(uint64(u)) }
		return uint16(dtype.BF16.EncodeFloat32(gemm.Clamp32(f(a), f(b), f(c))))
	}
	dst := make([]uint16, len(l))
	clampSliceBF16(dst, l, v, h)
	for i := range dst {
		if w := want(l[i], v[i], h[i]); dst[i] != w {
			t.Errorf("clamp(%#x, %#x, %#x) = %#x, want %#x", l[i], v[i], h[i], dst[i], w)
		}
	}
	for _, a := range vals {
		for _, c := range vals {
			clampSliceBF16(dst[:len(vals)], []uint16{a}, vals, []uint16{c})
			for i, b := range vals {
				if w := want(a, b, c); dst[i] != w {
					t.Errorf("clamp(%#x, %#x, %#x) with scalar bounds = %#x, want %#x", a, b, c, dst[i], w)
				}
			}
		}
	}
}

// TestConvert checks XLA's convert rules through package dtype: round to nearest even; e4m3fn has no
// infinity, so overflow (past 464, the midpoint between 448 and the next step) and infinities become NaN,
// while a clamp to +-448 before the convert saturates; e5m2 overflows to infinity; floats to integers
// clamp, NaN giving 0.
func TestConvert(t *testing.T) {
	runCases(t, []opCase{
		{"f32-e4m3fn", unary("convert", "f32[12]", "f8e4m3fn[12]"),
			[]string{"f32[12] {448, 464, 464.5, 1000, -1000, inf, nan, 0.001953125, 0.0009765625, 0.0029296875, -0, 1.0625}"},
			// 448 max; 464 ties to even 448; past 464 NaN; inf NaN; 2^-9 the smallest subnormal; 2^-10 ties to 0;
			// 3*2^-10 ties to 2*2^-9; -0 keeps its sign; 1.0625 ties to even 1.
			[]string{"f8e4m3fn[12] bits:{0x7e, 0x7e, 0x7f, 0x7f, 0xff, 0x7f, 0x7f, 0x01, 0x00, 0x02, 0x80, 0x38}"}},
		{"clamp-then-convert-saturates", `ENTRY e {
  x = f32[4] parameter(0)
  lo = f32[] constant(-448)
  hi = f32[] constant(448)
  c = f32[4] clamp(f32[4] broadcast(lo), x, f32[4] broadcast(hi))
  ROOT r = f8e4m3fn[4] convert(c)
}`, []string{"f32[4] {1000, -1e9, inf, nan}"}, []string{"f8e4m3fn[4] bits:{0x7e, 0xfe, 0x7e, 0x7f}"}},
		{"f32-e5m2", unary("convert", "f32[4]", "f8e5m2[4]"), []string{"f32[4] {57344, 61440, 1e6, -inf}"}, []string{"f8e5m2[4] bits:{0x7b, 0x7c, 0x7c, 0xfc}"}},
		{"f32-e4m3fnuz", unary("convert", "f32[3]", "f8e4m3fnuz[3]"), []string{"f32[3] {-0, nan, 1}"}, []string{"f8e4m3fnuz[3] bits:{0x00, 0x80, 0x40}"}},
		{"e4m3fn-f32", unary("convert", "f8e4m3fn[5]", "f32[5]"), []string{"f8e4m3fn[5] bits:{0x01, 0x80, 0x7f, 0x7e, 0x08}"}, []string{"f32[5] {0.001953125, -0, nan, 448, 0.015625}"}},
		{"e4m3fn-bf16", unary("convert", "f8e4m3fn[2]", "bf16[2]"), []string{"f8e4m3fn[2] bits:{0x7e, 0x81}"}, []string{"bf16[2] {448, -0.001953125}"}},
		{"bf16-e5m2", unary("convert", "bf16[2]", "f8e5m2[2]"), []string{"bf16[2] {1.25, -3}"}, []string{"f8e5m2[2] bits:{0x3d, 0xc2}"}},
		{"f32-bf16-ties", unary("convert", "f32[2]", "bf16[2]"), []string{"f32[2] {1.00390625, 1.01171875}"}, []string{"bf16[2] bits:{0x3f80, 0x3f82}"}},
		{"f32-s8", unary("convert", "f32[6]", "s8[6]"), []string{"f32[6] {300, -300, nan, 2.7, -2.7, inf}"}, []string{"s8[6] {127, -128, 0, 2, -2, 127}"}},
		{"f32-u8", unary("convert", "f32[3]", "u8[3]"), []string{"f32[3] {-5, 300, 7.9}"}, []string{"u8[3] {0, 255, 7}"}},
		{"s32-s8-wraps", unary("convert", "s32[2]", "s8[2]"), []string{"s32[2] {300, -129}"}, []string{"s8[2] {44, 127}"}},
		{"s32-f32-rounds", unary("convert", "s32[2]", "f32[2]"), []string{"s32[2] {16777217, -3}"}, []string{"f32[2] {16777216, -3}"}},
		{"s32-e4m3fn", unary("convert", "s32[2]", "f8e4m3fn[2]"), []string{"s32[2] {17, 1000}"}, []string{"f8e4m3fn[2] bits:{0x58, 0x7f}"}},
		{"f32-pred", unary("convert", "f32[3]", "pred[3]"), []string{"f32[3] {0, -0.5, nan}"}, []string{"pred[3] {0, 1, 1}"}},
		{"pred-f32", unary("convert", "pred[2]", "f32[2]"), []string{"pred[2] {true, false}"}, []string{"f32[2] {1, 0}"}},
		{"f64-f32", unary("convert", "f64[2]", "f32[2]"), []string{"f64[2] {1e300, 0.1}"}, []string{"f32[2] {inf, 0.1}"}},
		{"f32-f64", unary("convert", "f32[1]", "f64[1]"), []string{"f32[1] {0.1}"}, []string{"f64[1] {0.10000000149011612}"}},
		{"s4-s32", unary("convert", "s4[2]", "s32[2]"), []string{"s4[2] {-8, 7}"}, []string{"s32[2] {-8, 7}"}},
	})
}

func TestBitcastConvertReducePrecision(t *testing.T) {
	runCases(t, []opCase{
		{"f32-u32", unary("bitcast-convert", "f32[2]", "u32[2]"), []string{"f32[2] {1, -2}"}, []string{"u32[2] {1065353216, 3221225472}"}},
		{"f32-u8-pieces", unary("bitcast-convert", "f32[1]", "u8[1,4]"), []string{"f32[1] {1}"}, []string{"u8[1,4] {{0, 0, 128, 63}}"}},
		{"u16-bf16", unary("bitcast-convert", "u16[1]", "bf16[1]"), []string{"u16[1] {16256}"}, []string{"bf16[1] {1}"}},
		{"s8-e4m3fn", unary("bitcast-convert", "s8[1]", "f8e4m3fn[1]"), []string{"s8[1] {-2}"}, []string{"f8e4m3fn[1] bits:{0xfe}"}},
		{"s8-s4-pieces", unary("bitcast-convert", "s8[2]", "s4[2,2]"), []string{"s8[2] {-2, 33}"}, []string{"s4[2,2] {{-2, -1}, {1, 2}}"}},
		{"u4-u8-pieces", unary("bitcast-convert", "u4[1,2]", "u8[1]"), []string{"u4[1,2] {{1, 15}}"}, []string{"u8[1] {241}"}},
		// To f16's format: 1+2^-11 is a tie (rounds to 1), 1e6 overflows, 1e-8 underflows, NaN stays.
		{"reduce-precision", unary("reduce-precision", "f32[5]", "f32[5]", "exponent_bits=5", "mantissa_bits=10"),
			[]string{"f32[5] {1.00048828125, 1.00146484375, 1e6, 1e-8, nan}"}, []string{"f32[5] {1, 1.001953125, inf, 0, nan}"}},
		{"reduce-precision-e4m3", unary("reduce-precision", "f32[2]", "f32[2]", "exponent_bits=4", "mantissa_bits=3"),
			[]string{"f32[2] {1.0625, 1.1875}"}, []string{"f32[2] {1, 1.25}"}},
	})
}

func TestComplex(t *testing.T) {
	runCases(t, []opCase{
		{"multiply", binary("multiply", "c64[2]", "c64[2]"), []string{"c64[2] {(1, 2), (0, 1)}", "c64[2] {(3, -1), (0, 1)}"}, []string{"c64[2] {(5, 5), (-1, 0)}"}},
		{"add-c128", binary("add", "c128[1]", "c128[1]"), []string{"c128[1] {(1, 2)}", "c128[1] {(0.5, -2)}"}, []string{"c128[1] {(1.5, 0)}"}},
		{"abs-real-imag", `ENTRY e {
  x = c64[1] parameter(0)
  ROOT t = (f32[1], f32[1], f32[1]) tuple(f32[1] abs(x), f32[1] real(x), f32[1] imag(x))
}`, []string{"c64[1] {(3, -4)}"}, []string{"f32[1] {5}", "f32[1] {3}", "f32[1] {-4}"}},
		{"complex", binary("complex", "f32[2]", "c64[2]"), []string{"f32[2] {1, 2}", "f32[2] {-1, 0}"}, []string{"c64[2] {(1, -1), (2, 0)}"}},
		{"eq", binary("compare", "c64[2]", "pred[2]", "direction=EQ"), []string{"c64[2] {(1, 2), (1, 2)}", "c64[2] {(1, 2), (1, -2)}"}, []string{"pred[2] {1, 0}"}},
		{"convert", unary("convert", "f32[1]", "c64[1]"), []string{"f32[1] {2.5}"}, []string{"c64[1] {(2.5, 0)}"}},
		{"reduce", `add {
  a = c64[] parameter(0)
  b = c64[] parameter(1)
  ROOT s = c64[] add(a, b)
}
ENTRY e {
  x = c64[3] parameter(0)
  ROOT r = c64[] reduce(x, c64[] constant((0, 0))), dimensions={0}, to_apply=add
}`, []string{"c64[3] {(1, 1), (2, -3), (0.5, 0)}"}, []string{"c64[] (3.5, -2)"}},
	})
}

// TestConvertChunks converts every code of each float type of 16 bits or fewer (and float32 values of
// every kind) to every other float type of the float32 domain, through the convert instruction, which
// works chunk by chunk on every core, and through convertTensor, the whole-array conversion: the bits
// must agree.
func TestConvertChunks(t *testing.T) {
	var floats []dtype.Type
	for _, ty := range dtype.All() {
		if domainOf(ty) == domFloat32 {
			floats = append(floats, ty)
		}
	}
	for _, from := range floats {
		var bits []uint64
		if w := from.BitWidth(); w <= 16 {
			for c := uint64(0); c < 1<<w; c++ {
				bits = append(bits, c)
			}
			for len(bits) < 3*elementwiseGrain { // enough elements for every core
				bits = append(bits, bits...)
			}
		} else {
			for i := uint64(0); i < 3*elementwiseGrain; i++ {
				bits = append(bits, uint64(uint32(mix(7, i)))) // every kind of float32: NaNs, subnormals, ...
			}
		}
		x := tensor.FromBits(from, []int64{int64(len(bits))}, bits)
		for _, to := range floats {
			if to == from {
				continue
			}
			m := parseModule(t, fmt.Sprintf("ENTRY e {\n  x = %s[%d] parameter(0)\n  ROOT c = %s[%d] convert(x)\n}", from, len(bits), to, len(bits)))
			got, err := Run(m, []Value{ArrayValue(x)}, Options{Threads: 2})
			if err != nil {
				t.Fatal(err)
			}
			want, err := convertTensor(x, to, x.Shape)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Array.Data, want.Data) {
				t.Errorf("%s to %s: the chunked conversion differs from the whole-array one", from, to)
			}
		}
	}
}

// TestRoundBF16 checks roundBF16 against dtype's conversion to bf16 and back, bit for bit: for every
// upper half of a float32 (every bf16 value, NaNs and infinities of both signs among them), with the
// lower halves that round down, tie either way, and round up, and on a million random patterns. (All
// 2^32 float32 patterns were compared once, with the same result; that takes minutes.)
func TestRoundBF16(t *testing.T) {
	check := func(b uint32) {
		x := math.Float32frombits(b)
		want := dtype.BF16.DecodeFloat32(dtype.BF16.EncodeFloat32(x))
		if got := roundBF16(x); math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("roundBF16(%#08x) = %#08x, want %#08x", b, math.Float32bits(got), math.Float32bits(want))
		}
	}
	for h := range uint32(1 << 16) {
		for _, l := range []uint32{0, 1, 0x7fff, 0x8000, 0x8001, 0xffff} {
			check(h<<16 | l)
		}
	}
	rng := rand.New(rand.NewPCG(8, 9))
	for range 1 << 20 {
		check(rng.Uint32())
	}
}

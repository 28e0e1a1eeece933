package blockscale

import (
	"math"
	"math/rand/v2"
	"testing"

	"octet/dtype"
	"octet/tensor"
)

// pad returns the values followed by zeros up to n.
func pad(n int, vals ...float64) []float64 {
	out := make([]float64, n)
	copy(out, vals)
	return out
}

// The cases below are worked out by hand from the rules they cite; the codes are written in hex from the
// element formats' layouts (f8e4m3fn: sign, 4 exponent bits of bias 7, 3 mantissa bits; f8e5m2: 5 of bias
// 15, 2; f6e2m3fn: 2 of bias 1, 3; f6e3m2fn: 3 of bias 3, 2; f4e2m1fn: 2 of bias 1, 1 - whose values
// are 0, 0.5, 1, 1.5, 2, 3, 4, 6 for codes 0-7) and the E8M0 scale (code e is 2^(e-127)).
func TestQuantizeBlockHandComputed(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name  string
		rule  string
		f     Format
		g     float64
		in    []float64
		scale uint8
		elems []uint8 // the first elements; the rest are zero codes
	}{
		{"e4m3 general", "MX v1.0 Algorithm 1: shared_exp = floor(log2(300)) - 8 = 0; 300 rounds to 288 (nearest of 288, 320)",
			MXFP8E4M3, 1, pad(32, 300, 1, 0.5, -2), 127, []uint8{0x79, 0x38, 0x30, 0xc0}},
		{"e4m3 amax at a power of two", "floor(log2(512)) - 8 = 1: scale 2, 512/2 = 256 exactly, 3/2 = 1.5",
			MXFP8E4M3, 1, pad(32, 512, 3), 128, []uint8{0x78, 0x3c}},
		{"e4m3 saturation", "floor(log2(500)) - 8 = 0: 500 rounds to 512, past 448, and is clamped to 448 (normal values saturate)",
			MXFP8E4M3, 1, pad(32, 500, -500), 127, []uint8{0x7e, 0xfe}},
		{"e4m3 zero block", "amax 0: the shared exponent is clamped to the smallest E8M0 exponent, -127 (code 0)",
			MXFP8E4M3, 1, pad(32, 0, math.Copysign(0, -1)), 0, []uint8{0x00, 0x80}},
		{"e4m3 tiny block", "floor(log2(2^-136)) - 8 = -144, clamped to -127: 2^-136 / 2^-127 = 2^-9, the smallest subnormal (code 1); 2^-138 rounds to 0",
			MXFP8E4M3, 1, pad(32, math.Ldexp(1, -136), math.Ldexp(1, -138)), 0, []uint8{0x01, 0x00}},
		{"e4m3 NaN", "a NaN in the block: the scale is NaN (0xff), every value of the block NaN",
			MXFP8E4M3, 1, pad(32, 1, nan, 2), 0xff, []uint8{0, 0, 0}},
		{"e5m2 infinity", "an infinity: log2 overflows the scale, which is NaN",
			MXFP8E5M2, 1, pad(32, math.Inf(-1), 1), 0xff, []uint8{0, 0}},
		{"e5m2 saturation", "floor(log2(65535)) - 15 = 0: 65535 rounds to 65536, past 57344, clamped to it (0x7b), not infinity",
			MXFP8E5M2, 1, pad(32, 65535, 3), 127, []uint8{0x7b, 0x42}},
		{"e2m3", "floor(log2(10)) - 2 = 1: scale 2, 10/2 = 5 = 1.25 x 2^2 (exponent field 3, mantissa 010)",
			MXFP6E2M3, 1, pad(32, 10, 1), 128, []uint8{0x1a, 0x04}},
		{"e3m2", "floor(log2(100)) - 4 = 2: scale 4, 100/4 = 25 rounds to 24 = 1.5 x 2^4 (field 7, mantissa 10); 1/4 = 0.25 = 2^-2 (field 1, 0)",
			MXFP6E3M2, 1, pad(32, 100, 1), 129, []uint8{0x1e, 0x04}},
		{"e2m1 ties", "floor(log2(5)) - 2 = 0: 5 is halfway between 4 and 6 and rounds to even (4, code 6); -0.75 halfway between 0.5 and 1 rounds to 1",
			MXFP4, 1, pad(32, 5, -0.75), 127, []uint8{0x6, 0xa}},
		{"e2m1 saturation", "floor(log2(7)) - 2 = 0: 7 rounds to 8, past 6, clamped to 6",
			MXFP4, 1, pad(32, 7, -7), 127, []uint8{0x7, 0xf}},
		{"nvfp4 unit scale", "g = 1: scale amax/6 = 1 (e4m3 0x38); 0.25 is halfway between 0 and 0.5 and rounds to even, 0",
			NVFP4, 1, pad(16, 6, 3, -1.5, 0.25), 0x38, []uint8{0x7, 0x5, 0xb, 0x0}},
		{"nvfp4 scale rounding", "g = 1: 7/6 = 1.1667 rounds to 1.125 (e4m3 0x39); 7/1.125 = 6.22 saturates to 6; 1/1.125 = 0.889 rounds to 1",
			NVFP4, 1, pad(16, 7, 1), 0x39, []uint8{0x7, 0x2}},
		{"nvfp4 scale saturation", "g = 1: 5376/6 = 896, past e4m3's 448: the scale saturates to 448 (0x7e); 5376/448 = 12 saturates to 6",
			NVFP4, 1, pad(16, 5376, -448), 0x7e, []uint8{0x7, 0xa}},
		{"nvfp4 tensor scale", "g = 0.25: 6/(6 x 0.25) = 4 (0x48); 6/(4 x 0.25) = 6, 0.5/1 = 0.5",
			NVFP4, 0.25, pad(16, 6, 0.5), 0x48, []uint8{0x7, 0x1}},
		{"nvfp4 zero block", "amax 0: scale 0 (code 0), the elements zero",
			NVFP4, 1, pad(16), 0x00, []uint8{0}},
		{"nvfp4 NaN", "a NaN: the scale is e4m3's NaN (0x7f)",
			NVFP4, 1, pad(16, nan), 0x7f, []uint8{0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			elems := make([]uint8, len(c.in))
			scale := c.f.QuantizeBlock(elems, c.in, c.g)
			if scale != c.scale {
				t.Errorf("%s: scale %#02x, want %#02x", c.rule, scale, c.scale)
			}
			for i, e := range elems {
				want := uint8(0)
				if i < len(c.elems) {
					want = c.elems[i]
				}
				if e != want {
					t.Errorf("%s: element %d (%v) is %#02x, want %#02x", c.rule, i, c.in[i], e, want)
				}
			}
		})
	}
}

// TestQuantizeBlockSpecVersusRoundUp shows the block where the specification's scale and the round-up
// scale of JAX's quantize (amax / 448 rounded up to a power of two) differ: amax 500.
func TestQuantizeBlockSpecVersusRoundUp(t *testing.T) {
	in := pad(32, 500, 250)
	elems := make([]uint8, 32)
	scale := MXFP8E4M3.QuantizeBlock(elems, in, 1)
	// The specification: 2^(floor(log2 500) - 8) = 1; 500 saturates to 448.
	if got := MXFP8E4M3.Value(elems[0], scale, 1); got != 448 {
		t.Errorf("spec scale: 500 -> %v, want 448", got)
	}
	// Round up: 500/448 = 1.12 -> 2; 500/2 = 250 rounds to 256 (nearest of 240, 256): 512.
	ru := math.Exp2(math.Ceil(math.Log2(500.0 / 448)))
	if ru != 2 || dtype.F8E4M3FN.DecodeFloat64(dtype.F8E4M3FN.EncodeFloat64(500/ru))*ru != 512 {
		t.Errorf("the round-up choice should give scale 2 and 512")
	}
}

func TestSharedExponent(t *testing.T) {
	for _, c := range []struct {
		amax float64
		emax int
		want int
	}{
		{1, 8, -8}, {1.9999, 8, -8}, {2, 8, -7}, {448, 8, 0}, {math.Ldexp(1, -149), 2, -127}, {0, 8, -127},
		{math.MaxFloat32, 2, 125}, {math.Ldexp(1, 200), 2, 198},
	} {
		if got := SharedExponent(c.amax, c.emax); got != c.want {
			t.Errorf("SharedExponent(%v, %d) = %d, want %d", c.amax, c.emax, got, c.want)
		}
	}
	// A binary64 amax past 2^(127+emax+1) gives the NaN scale.
	elems := make([]uint8, 1)
	if s := MXFP4.QuantizeBlock(elems, []float64{math.Ldexp(1, 200)}, 1); s != 0xff {
		t.Errorf("2^200 in MXFP4: scale %#02x, want the NaN scale", s)
	}
}

// TestRoundTrip checks that quantizing the values of a quantized block gives the same block back, for
// every format: the element that sets the abs-max stays in the top binade of the element type, so the
// shared exponent (MX) or the scale (NVFP4, with normal scales) is found again, and every value divided
// by it is its element exactly.
func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, f := range Formats() {
		t.Run(f.Name, func(t *testing.T) {
			k := f.BlockSize
			in, back := make([]float64, k), make([]float64, k)
			e1, e2 := make([]uint8, k), make([]uint8, k)
			for trial := 0; trial < 20000; trial++ {
				mag := math.Ldexp(1, rng.IntN(60)-30)
				if f.IsMX() {
					mag = math.Ldexp(1, rng.IntN(240)-120)
				}
				for i := range in {
					in[i] = rng.NormFloat64() * mag
					if rng.IntN(8) == 0 {
						in[i] = 0
					}
				}
				g := 1.0
				if f.TensorScale {
					g = float64(DefaultTensorScale(mag * 4))
				}
				s1 := f.QuantizeBlock(e1, in, g)
				if !f.IsMX() && f.ScaleValue(s1) < 1.0/64 {
					continue // a subnormal E4M3 scale is too coarse to be found again
				}
				for i := range back {
					back[i] = f.Value(e1[i], s1, g)
				}
				s2 := f.QuantizeBlock(e2, back, g)
				if s1 != s2 {
					t.Fatalf("scale %#02x, then %#02x for %v", s1, s2, back)
				}
				for i := range e1 {
					if e1[i] != e2[i] && !(f.Elem.DecodeFloat64(uint64(e1[i])) == 0 && f.Elem.DecodeFloat64(uint64(e2[i])) == 0) {
						t.Fatalf("element %d: %#02x, then %#02x (value %v)", i, e1[i], e2[i], back[i])
					}
				}
			}
		})
	}
}

// TestDecodeExhaustive checks DecodeBlock and DequantizeInto against Value for every element code and
// every scale code.
func TestDecodeExhaustive(t *testing.T) {
	for _, f := range Formats() {
		n := 1 << f.Elem.BitWidth()
		elems := make([]uint8, n)
		for i := range elems {
			elems[i] = uint8(i)
		}
		dst := make([]float32, n)
		g := float32(1)
		if f.TensorScale {
			g = 0.0123
		}
		for s := 0; s < 256; s++ {
			f.DecodeBlock(dst, elems, uint8(s), g)
			for i, e := range elems {
				want := float32(f.Value(e, uint8(s), float64(g)))
				if math.Float32bits(dst[i]) != math.Float32bits(want) && !(dst[i] != dst[i] && want != want) {
					t.Fatalf("%s: element %#02x scale %#02x decodes to %v, want %v", f.Name, e, s, dst[i], want)
				}
			}
		}
		// MX: the scale 2^s times the element, exactly, then one rounding to float32.
		if f.IsMX() {
			if v := f.Value(uint8(f.Elem.EncodeFloat64(1)), 127+10, 1); v != 1024 {
				t.Errorf("%s: 1 x 2^10 = %v", f.Name, v)
			}
			if v := f.Value(uint8(f.Elem.EncodeFloat64(1)), 0xff, 1); v == v {
				t.Errorf("%s: the NaN scale gives %v", f.Name, v)
			}
		}
	}
	// The largest MXFP8 E5M2 value overflows float32; the smallest E4M3 subnormal times 2^-127 is a
	// float32 subnormal, exact.
	dst := make([]float32, 1)
	MXFP8E5M2.DecodeBlock(dst, []uint8{0x7b}, 254, 1)
	if !math.IsInf(float64(dst[0]), 1) {
		t.Errorf("57344 x 2^127 decodes to %v, want +Inf", dst[0])
	}
	MXFP8E4M3.DecodeBlock(dst, []uint8{0x01}, 0, 1)
	if dst[0] != float32(math.Ldexp(1, -136)) {
		t.Errorf("2^-9 x 2^-127 decodes to %v, want 2^-136", dst[0])
	}
}

func TestQuantizeTensorAxes(t *testing.T) {
	// A 3x40 array blocked along axis 1 (two blocks, the second of 8) and along axis 0 (one block of 3).
	vals := make([]float32, 3*40)
	for i := range vals {
		vals[i] = float32(i%17) - 8
	}
	vals[45] = 1000 // row 1, column 5
	x := tensor.FromFloat32([]int64{3, 40}, vals)
	q, err := Quantize(MXFP8E4M3, x, -1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := q.Scales.Shape; len(got) != 2 || got[0] != 3 || got[1] != 2 {
		t.Fatalf("scales %v, want [3 2]", got)
	}
	// Row 1's first block holds 1000: floor(log2 1000) - 8 = 1.
	if s := q.Scales.Data[1*2+0]; s != 128 {
		t.Errorf("row 1 block 0 scale %#02x, want 0x80", s)
	}
	// Its second block (columns 32-39) is quantized alone: the values of row 1 are (i%17)-8 for
	// i = 72..79, -4..3; amax 4: floor(log2 4) - 8 = -6.
	if s := q.Scales.Data[1*2+1]; s != 121 {
		t.Errorf("row 1 block 1 scale %#02x, want %#02x", s, 121)
	}
	d := q.Dequantize()
	back := tensor.View[float32](d)
	for i, v := range vals {
		if i != 45 && back[i] != v {
			t.Fatalf("element %d: %v -> %v", i, v, back[i])
		}
	}
	// Along axis 0.
	q0, err := Quantize(MXFP4, x, 0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := q0.Scales.Shape; got[0] != 1 || got[1] != 40 {
		t.Fatalf("axis 0 scales %v, want [1 40]", got)
	}
	// Column 5 holds -3, 1000, 2: floor(log2 1000) - 2 = 7; 1000/128 = 7.8 saturates to 6; -3/128 rounds to
	// -0 (below half of 0.5); 2/128 rounds to 0.
	if s, e := q0.Scales.Data[5], q0.Data.Data[40+5]; s != 127+7 || e != 0x7 {
		t.Errorf("column 5: scale %#02x element %#02x, want 0x86 and 0x7", s, e)
	}
	if err := q0.Check(); err != nil {
		t.Error(err)
	}
}

func TestNVFP4DefaultTensorScale(t *testing.T) {
	x := tensor.FromFloat32([]int64{2, 16}, []float32{
		2688, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		-6, 0.5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	q, err := Quantize(NVFP4, x, -1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// g = 2688 / (6 x 448) = 1: the first block's scale is 448 and its largest element 6.
	if q.TensorScale != 1 || q.Scales.Data[0] != 0x7e || q.Data.Data[0] != 0x7 {
		t.Errorf("g %v, scale %#02x, element %#02x; want 1, 0x7e, 0x7", q.TensorScale, q.Scales.Data[0], q.Data.Data[0])
	}
	// The second block: 6/6 = 1 (0x38), -6 -> 0xf, 0.5 -> 0x1.
	if q.Scales.Data[1] != 0x38 || q.Data.Data[16] != 0xf || q.Data.Data[17] != 0x1 {
		t.Errorf("block 1: scale %#02x elements %#02x %#02x", q.Scales.Data[1], q.Data.Data[16], q.Data.Data[17])
	}
	if _, err := Quantize(NVFP4, x, -1, Options{TensorScale: -1}); err == nil {
		t.Error("a negative tensor scale is accepted")
	}
	if _, err := Quantize(MXFP8E4M3, x, -1, Options{TensorScale: 2}); err == nil {
		t.Error("an MX format takes a tensor scale")
	}
}

// TestQuotientRounding checks the one-rounding division on a binary64 quotient that lands on an E2M1
// midpoint only because binary64 rounded it there.
func TestQuotientRounding(t *testing.T) {
	// x = 5 + 2^-50, d = 1: exact quotient a hair above the midpoint 5 (between 4 and 6): rounds to 6.
	if c := roundQuotient(dtype.F4E2M1FN, 5+math.Ldexp(1, -50), 1); c != 0x7 {
		t.Errorf("5+2^-50: %#x, want 0x7", c)
	}
	// 5 exactly: ties to even, 4.
	if c := roundQuotient(dtype.F4E2M1FN, 5, 1); c != 0x6 {
		t.Errorf("5: %#x, want 0x6", c)
	}
	// x / d whose binary64 quotient is 1.25 exactly, the midpoint between 1 and 1.5, although the exact
	// quotient, 1.25 + 2^-54/d, is above it: it rounds up to 1.5 (code 3), not to even (1, code 2).
	x, d := 1.25+math.Ldexp(4, -52), 1+math.Ldexp(3, -52)
	if q := x / d; q != 1.25 {
		t.Fatalf("the binary64 quotient is %v, not 1.25", q)
	}
	if c := roundQuotient(dtype.F4E2M1FN, x, d); c != 0x3 {
		t.Errorf("(1.25+2^-50)/(1+3*2^-52): %#x, want 0x3 (above the midpoint)", c)
	}
	if c := roundQuotient(dtype.F4E2M1FN, -x, d); c != 0xb {
		t.Errorf("negative: %#x, want 0xb", c)
	}
}

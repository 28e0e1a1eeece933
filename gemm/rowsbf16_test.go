package gemm

import (
	"math"
	"math/rand/v2"
	"testing"

	"octet/dtype"
)

// TestRoundNarrowBF16 checks RoundBF16 against package dtype's bf16 encoding and decoding, and
// NarrowBF16 against the top halves of the bits, with every kernel, on every bf16 code's float32 with the
// low halves that decide its rounding (zero, one, below a tie, the tie, above it, all ones, random: NaNs
// of every payload, infinities, subnormals, the largest finite values that round up to infinity), on runs
// of every length up to 40 at several offsets, in place and not.
func TestRoundNarrowBF16(t *testing.T) {
	withKernel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(13, 14))
		lows := []uint32{0, 1, 0x7fff, 0x8000, 0x8001, 0xffff}
		var src []float32
		for hi := uint32(0); hi < 1<<16; hi++ {
			for _, lo := range append(lows, rng.Uint32()&0xffff) {
				src = append(src, math.Float32frombits(hi<<16|lo))
			}
		}
		check := func(what string, dst []float32, in []float32) {
			t.Helper()
			for i, x := range in {
				want := dtype.BF16.DecodeFloat32(dtype.BF16.EncodeFloat32(x))
				if math.Float32bits(dst[i]) != math.Float32bits(want) {
					t.Fatalf("%s: RoundBF16(%#08x) = %#08x, want %#08x", what, math.Float32bits(x), math.Float32bits(dst[i]), math.Float32bits(want))
				}
			}
		}
		for _, off := range []int{0, 3} {
			dst := make([]float32, len(src))
			RoundBF16(dst[off:], src[off:])
			check("into another", dst[off:], src[off:])
			in := append([]float32(nil), src...)
			RoundBF16(in[off:], in[off:])
			check("in place", in[off:], src[off:])
			codes := make([]uint16, len(src)+1)
			codes[len(src)] = 0x1234
			NarrowBF16(codes[off:], src[off:])
			if codes[len(src)] != 0x1234 {
				t.Fatal("NarrowBF16 wrote past its end")
			}
			for i := off; i < len(src); i++ {
				if want := uint16(math.Float32bits(src[i]) >> 16); codes[i] != want {
					t.Fatalf("NarrowBF16(%#08x) = %#04x, want %#04x", math.Float32bits(src[i]), codes[i], want)
				}
			}
		}
		for n := 0; n <= 40; n++ {
			for _, off := range []int{0, 1, 5} {
				x := rowValues(rng, n+off)
				dst := make([]float32, n+off+1)
				dst[n+off] = 42
				RoundBF16(dst[off:n+off], x[off:])
				if dst[n+off] != 42 {
					t.Fatalf("RoundBF16 of %d elements wrote past its end", n)
				}
				check("short", dst[off:n+off], x[off:])
			}
		}
	})
}

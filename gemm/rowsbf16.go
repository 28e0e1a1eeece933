package gemm

import (
	"fmt"
	"math"

	"octet/dtype"
)

// Rows of bf16 values held as float32 words: a bf16 value is the top half of a float32, so an evaluator
// may keep a chain of bf16 results in float32 arrays, each rounded to bf16 where its instruction rounds
// it (RoundBF16), and store the last as bf16 codes (NarrowBF16). Both give the bits of their Go loops
// whatever the kernel set: the AVX2 assembly of rowsbf16_avx2_amd64.s beside the AVX-512 and AVX2 row
// kernels, Go beside the go kernel and in the purego build.

// RoundBF16 sets dst[i] to src[i] rounded to bf16 and widened back to float32 for every i < len(src):
// DecodeBF16 of EncodeBF16, to nearest even, overflow to infinity, a NaN to the quiet NaN of its sign.
// dst may be src.
func RoundBF16(dst, src []float32) {
	n := len(src)
	if len(dst) < n {
		panic(fmt.Sprintf("gemm.RoundBF16: %d elements into %d", n, len(dst)))
	}
	i := 0
	if n > 0 {
		i = roundBF16Fast(dst[:n], src)
	}
	for ; i < n; i++ {
		dst[i] = roundBF16(src[i])
	}
}

// roundBF16 is one element of RoundBF16: EncodeBF16's rounding, widened back.
func roundBF16(x float32) float32 { return math.Float32frombits(uint32(dtype.EncodeBF16(x)) << 16) }

// NarrowBF16 sets dst[i] to the top half of src[i]'s bits for every i < len(src): the bf16 code of a
// float32 that holds a bf16 value (a decoded code, or a RoundBF16 result), NaN payloads kept. Of any
// other float32 it is the truncation, not the rounding EncodeBF16 does.
func NarrowBF16(dst []uint16, src []float32) {
	n := len(src)
	if len(dst) < n {
		panic(fmt.Sprintf("gemm.NarrowBF16: %d elements into %d", n, len(dst)))
	}
	i := 0
	if n > 0 {
		i = narrowBF16Fast(dst[:n], src)
	}
	for ; i < n; i++ {
		dst[i] = uint16(math.Float32bits(src[i]) >> 16)
	}
}

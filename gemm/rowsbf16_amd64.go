//go:build !purego

package gemm

// The AVX2 loops of RoundBF16 and NarrowBF16 (rowsbf16_avx2_amd64.s): n a multiple of 8.

//go:noescape
func roundBF16x2(dst, src *float32, n int)

//go:noescape
func narrowBF16x2(dst *uint16, src *float32, n int)

// asmRowsBF16 is their set: AVX2 for the integer operations on ymm registers.
var asmRowsBF16 = &asmSet{"rows-bf16-avx2", []string{"roundBF16x2", "narrowBF16x2"}, vex | fAVX2}

func init() {
	asmSets = append(asmSets, asmRowsBF16)
}

// bf16Rows reports whether the assembly runs: beside the row assembly of the current kernel (so not
// beside the go kernel, nor kernels whose helpers are Go), where the machine has AVX2.
func bf16Rows() bool {
	return current().rowSet() != nil && cpuFeatures.has(asmRowsBF16.needs)
}

// roundBF16Fast does a prefix of RoundBF16 (len(dst) == len(src)) in assembly, where it runs, and returns
// its length.
func roundBF16Fast(dst, src []float32) int {
	n := len(src) &^ 7
	if n == 0 || !bf16Rows() {
		return 0
	}
	_ = dst[n-1]
	roundBF16x2(&dst[0], &src[0], n)
	return n
}

// narrowBF16Fast does a prefix of NarrowBF16 (len(dst) == len(src)) likewise.
func narrowBF16Fast(dst []uint16, src []float32) int {
	n := len(src) &^ 7
	if n == 0 || !bf16Rows() {
		return 0
	}
	_ = dst[n-1]
	narrowBF16x2(&dst[0], &src[0], n)
	return n
}

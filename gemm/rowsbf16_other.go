//go:build !amd64 || purego

package gemm

// roundBF16Fast and narrowBF16Fast do nothing here: RoundBF16 and NarrowBF16 run their Go loops.
func roundBF16Fast(dst, src []float32) int           { return 0 }
func narrowBF16Fast(dst []uint16, src []float32) int { return 0 }

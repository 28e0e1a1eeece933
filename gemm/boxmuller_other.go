//go:build !amd64 || purego

package gemm

// boxMullerFast does nothing here: BoxMuller runs in Go.
func (k *Kernel) boxMullerFast(dst0, dst1, u1, u2 []float64) int { return 0 }

// splitMixFast does nothing here: SplitMixUniforms runs in Go.
func (k *Kernel) splitMixFast(u1, u2 []float64, key, p0 uint64) int { return 0 }

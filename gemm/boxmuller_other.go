//go:build !amd64 || purego

package gemm

// boxMullerFast does nothing here: BoxMuller runs in Go.
func (k *Kernel) boxMullerFast(dst0, dst1, u1, u2 []float64) int { return 0 }

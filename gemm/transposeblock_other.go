//go:build !amd64 || purego

package gemm

// transposeSet returns the block transpose assembly k runs: none here, the Go loops.
func (k *Kernel) transposeSet() *transposeSet { return nil }

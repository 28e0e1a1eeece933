//go:build !amd64 || purego

package gemm

// blockScaledSet returns the assembly for block-scaled weights that k runs: none here, the Go code.
func (k *Kernel) blockScaledSet() *blockScaledSet { return nil }

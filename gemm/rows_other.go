//go:build !amd64 || purego

package gemm

// rowSet returns the row assembly that k runs: none here, the Go loops.
func (k *Kernel) rowSet() *rowSet { return nil }

//go:build !amd64 || purego

package gemm

// intRowSet returns the integer row assembly that k runs: none here, the Go loops.
func (k *Kernel) intRowSet() *intRowSet { return nil }

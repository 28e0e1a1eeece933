//go:build !amd64 || purego

package gemm

// cmpRowSet returns the compare and select row assembly that k runs: none here, the Go loops.
func (k *Kernel) cmpRowSet() *cmpRowSet { return nil }

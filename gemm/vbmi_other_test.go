//go:build !amd64 || purego

package gemm

// withoutVBMI is nil: only amd64's assembly has kernels that stand in for others (see vbmi_amd64_test.go).
func withoutVBMI(k *Kernel) *Kernel { return nil }

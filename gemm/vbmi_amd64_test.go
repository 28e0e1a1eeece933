//go:build amd64 && !purego

package gemm

// withoutVBMI returns, for a kernel whose streaming kernels are stream-avx512vbmi, the same kernel with
// stream-avx512, whose f8e4m3fn and f8e5m2 kernels the VBMI ones stand in for on this machine: with it
// the tests run those too. It returns nil for other kernels.
func withoutVBMI(k *Kernel) *Kernel {
	if k.streams != streamsAVX512VBMI {
		return nil
	}
	w := withISA(k, k.isa, "-novbmi")
	w.streams = streamsAVX512
	return w
}

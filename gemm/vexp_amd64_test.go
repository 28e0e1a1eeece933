//go:build amd64 && !purego

package gemm

import "testing"

// The instructions of the exponential kernels that no other assembly of the package uses, and what each
// needs (Intel's Software Developer's Manual, volume 2), for TestAsmFeatures.
func init() {
	const avx, avx2, fma, avx512, avx512dq = fAVX, fAVX2, fFMA, fAVX512F, fAVX512DQ
	for _, n := range []string{"VMINPD", "VMAXPD", "VCVTPS2PD", "VCVTPD2PSY", "VCVTPD2DQY"} {
		insnTable[n] = insnFeatures{avx, avx, avx512}
	}
	insnTable["VMOVUPS"] = insnFeatures{avx, avx, avx512}
	insnTable["VPMOVSXDQ"] = insnFeatures{avx, avx2, avx512}
	insnTable["VFMADD213PD"] = insnFeatures{fma, fma, avx512}
	insnTable["VFNMADD231PD"] = insnFeatures{fma, fma, avx512}
	_ = avx512dq
}

// TestVexpChosen checks which kernels run the exponential assembly: those that run the integer row
// assembly on a machine with AVX2 and FMA, none of the others.
func TestVexpChosen(t *testing.T) {
	x := []float32{0.5, 0.25, 1, 0.125}
	n := 0
	for _, k := range testKernels() {
		want := k.intRowSet() != nil && cpuFeatures.has(fAVX2|fFMA|vex)
		if got := k.vexpFast(vexpExp, make([]float32, 4), x) == 4; got != want {
			t.Errorf("kernel %s (isa %+v): exponential assembly %v, want %v", k.Name(), k.isa, got, want)
		}
		if want {
			n++
		}
	}
	if goKernel.vexpFast(vexpExp, make([]float32, 4), x) != 0 {
		t.Errorf("the go kernel runs exponential assembly")
	}
	if cpuFeatures.has(fAVX2|fFMA|vex) && n == 0 {
		t.Errorf("no kernel runs the exponential assembly on a machine with AVX2 and FMA")
	}
}

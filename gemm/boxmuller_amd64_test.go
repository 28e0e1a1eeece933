//go:build amd64 && !purego

package gemm

import "testing"

// The instructions of the Box-Muller and SplitMix64 kernels that no other assembly of the package uses, and what each
// needs (Intel's Software Developer's Manual, volume 2), for TestAsmFeatures.
func init() {
	const avx, avx2, avx512, avx512dq = fAVX, fAVX2, fAVX512F, fAVX512DQ
	for _, n := range []string{"VMOVUPD", "VADDPD", "VSUBPD", "VMULPD", "VDIVPD", "VSQRTPD", "VCMPPD"} {
		insnTable[n] = insnFeatures{avx, avx, avx512}
	}
	insnTable["VANDPD"] = insnFeatures{avx, avx, avx512dq}
	insnTable["VORPD"] = insnFeatures{avx, avx, avx512dq}
	insnTable["VXORPD"] = insnFeatures{avx, avx, avx512dq}
	insnTable["VBLENDVPD"] = insnFeatures{avx, avx, 0}
	insnTable["VCVTTPD2DQY"] = insnFeatures{0, avx, avx512}
	insnTable["VCVTDQ2PD"] = insnFeatures{avx, avx, avx512}
	insnTable["VPMOVZXDQ"] = insnFeatures{avx, avx2, avx512}
	insnTable["VPSRLQ"] = insnFeatures{avx, avx2, avx512}
	insnTable["VPSLLQ"] = insnFeatures{avx, avx2, avx512}
	insnTable["VPADDQ"] = insnFeatures{avx, avx2, avx512}
	insnTable["VPMULUDQ"] = insnFeatures{avx, avx2, avx512}
	insnTable["VPBROADCASTQ"] = insnFeatures{avx2, avx2, avx512}
}

// TestBoxMullerChosen checks which kernels run the Box-Muller and SplitMix64 assembly: those that run the
// integer row assembly (so that the tests of BoxMuller and SplitMixUniforms test it under each of them),
// none of the others.
func TestBoxMullerChosen(t *testing.T) {
	u := []float64{0.5, 0.25, 1, 0.125}
	n := 0
	for _, k := range testKernels() {
		want := k.intRowSet() != nil && cpuFeatures.has(fAVX2|vex)
		if got := k.boxMullerFast(make([]float64, 4), make([]float64, 4), u, u) == 4; got != want {
			t.Errorf("kernel %s (isa %+v): Box-Muller assembly %v, want %v", k.Name(), k.isa, got, want)
		}
		if got := k.splitMixFast(make([]float64, 4), make([]float64, 4), 7, 0) == 4; got != want {
			t.Errorf("kernel %s (isa %+v): SplitMix64 assembly %v, want %v", k.Name(), k.isa, got, want)
		}
		if want {
			n++
		}
	}
	if goKernel.boxMullerFast(make([]float64, 4), make([]float64, 4), u, u) != 0 ||
		goKernel.splitMixFast(make([]float64, 4), make([]float64, 4), 7, 0) != 0 {
		t.Errorf("the go kernel runs Box-Muller or SplitMix64 assembly")
	}
	if cpuFeatures.has(fAVX2|vex) && n == 0 {
		t.Errorf("no kernel runs the Box-Muller assembly on a machine with AVX2")
	}
}

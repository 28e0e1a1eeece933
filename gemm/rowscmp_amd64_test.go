//go:build amd64 && !purego

package gemm

import "testing"

// The instructions of the compare and select row kernels that no other assembly of the package uses, and
// what each needs (Intel's Software Developer's Manual, volume 2), for TestAsmFeatures.
func init() {
	const avx, avx2, avx512bw = fAVX, fAVX2, fAVX512BW
	insnTable["VPACKSSDW"] = insnFeatures{avx, avx2, avx512bw}
	insnTable["VPACKSSWB"] = insnFeatures{avx, avx2, avx512bw}
	insnTable["VPABSB"] = insnFeatures{avx, avx2, avx512bw}
	insnTable["VPADDB"] = insnFeatures{avx, avx2, avx512bw}
}

// TestCmpRowSetChosen checks which kernels run the compare and select row assembly: those that run the
// integer row assembly (so that TestCompareRows and TestSelectRows test it under each of them), none of
// the others.
func TestCmpRowSetChosen(t *testing.T) {
	n := 0
	for _, k := range testKernels() {
		want := k.intRowSet() != nil && cpuFeatures.has(fAVX2|vex)
		if got := k.cmpRowSet() != nil; got != want {
			t.Errorf("kernel %s (isa %+v): compare row assembly %v, want %v", k.Name(), k.isa, got, want)
		}
		if want {
			n++
		}
	}
	if goKernel.cmpRowSet() != nil {
		t.Errorf("the go kernel runs compare row assembly")
	}
	if cpuFeatures.has(fAVX2|vex) && n == 0 {
		t.Errorf("no kernel runs the compare row assembly on a machine with AVX2")
	}
}

//go:build amd64 && !purego

package gemm

import "testing"

// The instructions of the integer row kernels that no other assembly of the package uses, and what each
// needs (Intel's Software Developer's Manual, volume 2), for TestAsmFeatures: the variable shifts are AVX2
// on xmm too.
func init() {
	const avx, avx2, avx512 = fAVX, fAVX2, fAVX512F
	insnTable["VPMULLD"] = insnFeatures{avx, avx2, avx512}
	insnTable["VPMAXSD"] = insnFeatures{avx, avx2, avx512}
	insnTable["VPMINSD"] = insnFeatures{avx, avx2, avx512}
	insnTable["VPSLLVD"] = insnFeatures{avx2, avx2, avx512}
	insnTable["VPSRLVD"] = insnFeatures{avx2, avx2, avx512}
	insnTable["VPSRAVD"] = insnFeatures{avx2, avx2, avx512}
}

// TestIntRowSetChosen checks which kernels run the integer row assembly: every kernel whose helpers are
// assembly (so that TestRowU32 tests the assembly under each of them), none of the others.
func TestIntRowSetChosen(t *testing.T) {
	for _, k := range testKernels() {
		want := (k.isa.pack512 || k.isa.pack2) && cpuFeatures.has(fAVX2|vex)
		if got := k.intRowSet() != nil; got != want {
			t.Errorf("kernel %s (isa %+v): integer row assembly %v, want %v", k.Name(), k.isa, got, want)
		}
	}
	if goKernel.intRowSet() != nil {
		t.Errorf("the go kernel runs integer row assembly")
	}
}

//go:build amd64 && !purego

package gemm

// The instructions of the row kernels that no other assembly of the package uses, and what each needs
// (Intel's Software Developer's Manual, volume 2), for TestAsmFeatures.
func init() {
	const avx, avx2, avx512 = fAVX, fAVX2, fAVX512F
	insnTable["VDIVPS"] = insnFeatures{avx, avx, avx512}
	insnTable["VBLENDVPS"] = insnFeatures{avx, avx, 0}
	insnTable["VPERMQ"] = insnFeatures{0, avx2, avx512}
	insnTable["VPCMPUD"] = insnFeatures{0, 0, avx512}
	insnTable["VPMOVDW"] = insnFeatures{0, 0, avx512}
}

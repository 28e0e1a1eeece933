//go:build amd64 && !purego

package gemm

// VPERM2F128, which only the block transposes use, and what it needs (Intel's Software Developer's
// Manual, volume 2): AVX, on ymm only.
func init() {
	insnTable["VPERM2F128"] = insnFeatures{0, fAVX, 0}
}

//go:build !amd64 || purego

package gemm

// Only the portable Go kernel exists here, and packing transposes and decodes in Go.

// vectorPacking is never set here: packing transposes and decodes in Go.
var vectorPacking = false

func transposeFast(dst []float32, step int, src *[16][]float32, n, groups int) {
	panic("gemm: no fast transpose on this machine")
}

func decodeBytesFast(dst []float32, src []byte, table *[256]float32) int { return 0 }

func widenBF16Fast(dst []float32, src []byte) int { return 0 }

func decodeWordsFast(dst []uint16, src []byte, table *[256]uint16) int { return 0 }

func interleaveWordsFast(dst []float32, lo, hi []uint16) int { return 0 }

func interleave6Fast(dst []float32, src *[16][]float32, kc, ahead int) int { return 0 }

// avx2Decoding is never set here.
var avx2Decoding = false

func packStripFast(dst []float32, b *view, j0, kc, w int) bool { return false }

func (v *view) fetchRows(off, rows, n int) {}

var useAVX2 = false

func epScaleFast(dst, src []float32, s float32) int                     { return 0 }
func epMulFast(dst, v []float32) int                                    { return 0 }
func epAddFast(dst, v []float32, s float32) int                         { return 0 }
func epReLUFast(dst []float32) int                                      { return 0 }
func epFinishFast(dst []float32, outScale, limit float32) (int, uint32) { return 0, 0 }
func epEncodeE4M3FNFast(dst []byte, src []float32) int                  { return 0 }

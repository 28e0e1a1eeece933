//go:build !amd64 || purego

package gemm

// Only the portable Go kernel exists here, and packing, decoding and the epilogue run in Go: every isa is
// empty, and the functions below, which only a set isa would call, are never reached.

func transposeFast(dst []float32, step int, src *[16][]float32, n, groups int) {
	panic("gemm: no fast transpose on this machine")
}

func (h isa) decodeBytesFast(dst []float32, src []byte, table *[256]float32) int   { return 0 }
func (h isa) widenBF16Fast(dst []float32, src []byte) int                          { return 0 }
func (h isa) decodeWordsFast(dst []uint16, src []byte, table *[256]uint16) int     { return 0 }
func (h isa) interleaveWordsFast(dst []float32, lo, hi []uint16) int               { return 0 }
func (h isa) interleave6Fast(dst []float32, src *[16][]float32, kc, ahead int) int { return 0 }
func (h isa) packStripFast(dst []float32, b *view, j0, kc, w int) bool             { return false }
func (v *view) fetchRows(h isa, off, rows, n int)                                  {}
func (h isa) epScaleFast(dst, src []float32, s float32) int                        { return 0 }
func (h isa) epMulFast(dst, v []float32) int                                       { return 0 }
func (h isa) epAddFast(dst, v []float32, s float32) int                            { return 0 }
func (h isa) epReLUFast(dst []float32) int                                         { return 0 }
func (h isa) epFinishFast(dst []float32, outScale, limit float32) (int, uint32)    { return 0, 0 }
func (h isa) epEncodeE4M3FNFast(dst []byte, src []float32) int                     { return 0 }

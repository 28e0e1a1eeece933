//go:build !purego

package gemm

// The integer row kernels in AVX2 (rowsint_avx2_amd64.s): n a multiple of 8. The shifts are VPSLLVD,
// VPSRLVD and VPSRAVD, which read each count as an unsigned doubleword and, from 32 on, give 0 (or the
// sign, for VPSRAVD) as Go's shifts do.

//go:noescape
func rowU32Add2(dst, x, y *uint32, n int)

//go:noescape
func rowU32Sub2(dst, x, y *uint32, n int)

//go:noescape
func rowU32Mul2(dst, x, y *uint32, n int)

//go:noescape
func rowU32And2(dst, x, y *uint32, n int)

//go:noescape
func rowU32Or2(dst, x, y *uint32, n int)

//go:noescape
func rowU32Xor2(dst, x, y *uint32, n int)

//go:noescape
func rowU32MaxS2(dst, x, y *uint32, n int)

//go:noescape
func rowU32MinS2(dst, x, y *uint32, n int)

//go:noescape
func rowU32MaxU2(dst, x, y *uint32, n int)

//go:noescape
func rowU32MinU2(dst, x, y *uint32, n int)

//go:noescape
func rowU32Shl2(dst, x, y *uint32, n int)

//go:noescape
func rowU32ShrU2(dst, x, y *uint32, n int)

//go:noescape
func rowU32ShrS2(dst, x, y *uint32, n int)

// asmRowsInt2 is the AVX2 integer row assembly.
var asmRowsInt2 = &asmSet{"rows-int-avx2", []string{"rowU32Add2", "rowU32Sub2", "rowU32Mul2", "rowU32And2",
	"rowU32Or2", "rowU32Xor2", "rowU32MaxS2", "rowU32MinS2", "rowU32MaxU2", "rowU32MinU2", "rowU32Shl2",
	"rowU32ShrU2", "rowU32ShrS2"}, vex | fAVX2}

func init() {
	asmSets = append(asmSets, asmRowsInt2)
}

var intRowsAVX2 = &intRowSet{
	lanes: 8,
	binary: [numIntOps]func(dst, x, y *uint32, n int){rowU32Add2, rowU32Sub2, rowU32Mul2, rowU32And2,
		rowU32Or2, rowU32Xor2, rowU32MaxS2, rowU32MinS2, rowU32MaxU2, rowU32MinU2, rowU32Shl2, rowU32ShrU2,
		rowU32ShrS2},
}

// intRowSet returns the integer row assembly that k runs: the AVX2 set beside any kernel whose helpers
// are assembly (pack512 or pack2: the avx512, avx512bf16 and avx2 kernels; the AVX-512 ones have no
// integer assembly of their own, the AVX2 set running on their CPUs), where the machine has AVX2; else
// none, and the Go loops run (the go kernel, and kernels whose helpers are Go).
func (k *Kernel) intRowSet() *intRowSet {
	if (k.isa.pack512 || k.isa.pack2) && cpuFeatures.has(asmRowsInt2.needs) {
		return intRowsAVX2
	}
	return nil
}

//go:build !purego

package gemm

// The compare and select row kernels in AVX2 (rowscmp_avx2_amd64.s): n a multiple of 8 (32 for
// rowSel8x2). The compares write bytes of 0 and 1; EQ and NE read int32 and uint32 alike.

//go:noescape
func rowCmpEQ2(dst *byte, x, y *uint32, n int)

//go:noescape
func rowCmpNE2(dst *byte, x, y *uint32, n int)

//go:noescape
func rowCmpGTS2(dst *byte, x, y *uint32, n int)

//go:noescape
func rowCmpGES2(dst *byte, x, y *uint32, n int)

//go:noescape
func rowCmpGTU2(dst *byte, x, y *uint32, n int)

//go:noescape
func rowCmpGEU2(dst *byte, x, y *uint32, n int)

//go:noescape
func rowCmpEQF2(dst *byte, x, y *uint32, n int)

//go:noescape
func rowCmpNEF2(dst *byte, x, y *uint32, n int)

//go:noescape
func rowCmpGTF2(dst *byte, x, y *uint32, n int)

//go:noescape
func rowCmpGEF2(dst *byte, x, y *uint32, n int)

//go:noescape
func rowSel32x2(dst *uint32, p *byte, x, y *uint32, n int)

//go:noescape
func rowSel8x2(dst, p, x, y *byte, n int)

// asmRowsCmp2 is the AVX2 compare and select row assembly.
var asmRowsCmp2 = &asmSet{"rows-cmp-avx2", []string{"rowCmpEQ2", "rowCmpNE2", "rowCmpGTS2", "rowCmpGES2",
	"rowCmpGTU2", "rowCmpGEU2", "rowCmpEQF2", "rowCmpNEF2", "rowCmpGTF2", "rowCmpGEF2", "rowSel32x2",
	"rowSel8x2"}, vex | fAVX2}

func init() {
	asmSets = append(asmSets, asmRowsCmp2)
}

var cmpRowsAVX2 = &cmpRowSet{
	lanes: 8,
	bytes: 32,
	cmp: [numCmpTypes][numCmpKernels]func(dst *byte, x, y *uint32, n int){
		cmpS32: {rowCmpEQ2, rowCmpNE2, rowCmpGTS2, rowCmpGES2},
		cmpU32: {rowCmpEQ2, rowCmpNE2, rowCmpGTU2, rowCmpGEU2},
		cmpF32: {rowCmpEQF2, rowCmpNEF2, rowCmpGTF2, rowCmpGEF2},
	},
	sel32: rowSel32x2,
	sel8:  rowSel8x2,
}

// cmpRowSet returns the compare and select row assembly that k runs: the AVX2 set beside every kernel
// that runs the integer row assembly (see intRowSet), where the machine has what it needs; else none,
// and the Go loops run.
func (k *Kernel) cmpRowSet() *cmpRowSet {
	if k.intRowSet() != nil && cpuFeatures.has(asmRowsCmp2.needs) {
		return cmpRowsAVX2
	}
	return nil
}

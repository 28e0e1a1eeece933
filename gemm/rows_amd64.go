//go:build !purego

package gemm

// The row kernels in AVX-512 (rows_avx512_amd64.s) and AVX2 (rows_avx2_amd64.s). The binary operations,
// the bf16 encoder and the clamps (whose bounds are not NaNs) take n a multiple of 16 (AVX-512) or 8
// (AVX2); depthwise4 computes four output
// positions, n features each, n a multiple of 16 or 8: dst holds the rows it writes, offs the four
// positions' offsets (in elements of src), one for each window position; depthwiseBases4 likewise, the
// offsets bases[p] + deltas[w].

//go:noescape
func rowAdd512(dst, x, y *float32, n int)

//go:noescape
func rowSub512(dst, x, y *float32, n int)

//go:noescape
func rowMul512(dst, x, y *float32, n int)

//go:noescape
func rowDiv512(dst, x, y *float32, n int)

//go:noescape
func rowMax512(dst, x, y *float32, n int)

//go:noescape
func rowMin512(dst, x, y *float32, n int)

//go:noescape
func encodeBF16x512(dst *uint16, src *float32, n int)

//go:noescape
func clamp512(dst, x *float32, n int, lo, hi float32)

//go:noescape
func clampBF16x512(dst, x *uint16, n int, lo, hi float32)

//go:noescape
func depthwise4x512(dst *[4]*float32, src *float32, offs *[4]*int, k *float32, ldk, window, n int)

//go:noescape
func depthwiseBases4x512(dst *[4]*float32, src *float32, bases *[4]int, deltas *int, k *float32, ldk, window, n int)

//go:noescape
func rowAdd2(dst, x, y *float32, n int)

//go:noescape
func rowSub2(dst, x, y *float32, n int)

//go:noescape
func rowMul2(dst, x, y *float32, n int)

//go:noescape
func rowDiv2(dst, x, y *float32, n int)

//go:noescape
func rowMax2(dst, x, y *float32, n int)

//go:noescape
func rowMin2(dst, x, y *float32, n int)

//go:noescape
func encodeBF16x2(dst *uint16, src *float32, n int)

//go:noescape
func clamp2(dst, x *float32, n int, lo, hi float32)

//go:noescape
func clampBF16x2(dst, x *uint16, n int, lo, hi float32)

//go:noescape
func depthwise4x2(dst *[4]*float32, src *float32, offs *[4]*int, k *float32, ldk, window, n int)

//go:noescape
func depthwiseBases4x2(dst *[4]*float32, src *float32, bases *[4]int, deltas *int, k *float32, ldk, window, n int)

// asmRows512 is the AVX-512F row assembly; asmRows2 the AVX2 one (AVX for the floating-point operations,
// AVX2 for the integer ones of the bf16 encoder, FMA for the depthwise chains).
var (
	asmRows512 = &asmSet{"rows-avx512", []string{"rowAdd512", "rowSub512", "rowMul512", "rowDiv512", "rowMax512",
		"rowMin512", "encodeBF16x512", "clamp512", "clampBF16x512", "depthwise4x512", "depthwiseBases4x512"}, vex | evex}
	asmRows2 = &asmSet{"rows-avx2", []string{"rowAdd2", "rowSub2", "rowMul2", "rowDiv2", "rowMax2", "rowMin2",
		"encodeBF16x2", "clamp2", "clampBF16x2", "depthwise4x2", "depthwiseBases4x2"}, vex | fAVX2 | fFMA}
)

func init() {
	asmSets = append(asmSets, asmRows512, asmRows2)
}

var rowsAVX512 = &rowSet{
	lanes:      16,
	binary:     [numRowOps]func(dst, x, y *float32, n int){rowAdd512, rowSub512, rowMul512, rowDiv512, rowMax512, rowMin512},
	encodeBF16: encodeBF16x512,
	clamp:      clamp512,
	clampBF16:  clampBF16x512,
}

var rowsAVX2 = &rowSet{
	lanes:      8,
	binary:     [numRowOps]func(dst, x, y *float32, n int){rowAdd2, rowSub2, rowMul2, rowDiv2, rowMax2, rowMin2},
	encodeBF16: encodeBF16x2,
	clamp:      clamp2,
	clampBF16:  clampBF16x2,
}

// rowSet returns the row assembly that k runs: AVX-512 beside the AVX-512 packing helpers, AVX2 beside
// the AVX2 ones, where the machine has what each needs; else none, and the Go loops run (the go kernel,
// and kernels whose helpers are Go).
func (k *Kernel) rowSet() *rowSet {
	switch {
	case k.isa.pack512 && cpuFeatures.has(asmRows512.needs):
		return rowsAVX512
	case k.isa.pack2 && cpuFeatures.has(asmRows2.needs):
		return rowsAVX2
	}
	return nil
}

// depthwise4 runs the set's depthwise4 assembly.
func (s *rowSet) depthwise4(dst *[4]*float32, src *float32, offs *[4]*int, k *float32, ldk, window, n int) {
	if s == rowsAVX512 {
		depthwise4x512(dst, src, offs, k, ldk, window, n)
	} else {
		depthwise4x2(dst, src, offs, k, ldk, window, n)
	}
}

// bases4 runs the set's depthwiseBases4 assembly.
func (s *rowSet) bases4(dst *[4]*float32, src *float32, bases *[4]int, deltas *int, k *float32, ldk, window, n int) {
	if s == rowsAVX512 {
		depthwiseBases4x512(dst, src, bases, deltas, k, ldk, window, n)
	} else {
		depthwiseBases4x2(dst, src, bases, deltas, k, ldk, window, n)
	}
}

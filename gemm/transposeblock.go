package gemm

import "fmt"

// Block transposes: the copy beneath an interpreter's transposes (and any copy whose source runs
// contiguously along another dimension than its result), a tile at a time. Each element is moved as it
// is, so the result is the same bits whatever the kernel set: the AVX2 assembly (8 x 8 blocks in
// registers) beside every kernel whose helpers are assembly, Go beside the go kernel and in the purego
// build.

// transposeSet is the block transpose assembly of one kernel set: each function transposes the 8 x 8
// blocks of a rows x cols region (both multiples of 8); strides are in elements.
type transposeSet struct {
	t16 func(dst *uint16, dstStride int, src *uint16, srcStride int, rows, cols int)
	t32 func(dst *uint32, dstStride int, src *uint32, srcStride int, rows, cols int)
}

// TransposeBlock sets dst[c*dstStride+r] = src[r*srcStride+c] for r < rows and c < cols: dst is the
// transpose of the rows x cols matrix src. The two must not overlap. Elements of 2 and 4 bytes run on
// the assembly where the kernel set has it.
func TransposeBlock[T uint8 | uint16 | uint32 | uint64](dst []T, dstStride int, src []T, srcStride int, rows, cols int) {
	if rows <= 0 || cols <= 0 {
		return
	}
	if dstStride < rows || srcStride < cols || len(src) < (rows-1)*srcStride+cols || len(dst) < (cols-1)*dstStride+rows {
		panic(fmt.Sprintf("gemm.TransposeBlock: %d x %d from %d elements (stride %d) into %d (stride %d)",
			rows, cols, len(src), srcStride, len(dst), dstStride))
	}
	r8, c8 := rows&^7, cols&^7
	if s := current().transposeSet(); s != nil && r8 > 0 && c8 > 0 {
		done := true
		switch d := any(dst).(type) {
		case []uint16:
			s.t16(&d[0], dstStride, &any(src).([]uint16)[0], srcStride, r8, c8)
		case []uint32:
			s.t32(&d[0], dstStride, &any(src).([]uint32)[0], srcStride, r8, c8)
		default:
			done = false
		}
		if done {
			// The edges: the columns past c8 of every row, and the rows past r8 of the first c8
			// columns.
			if cols > c8 {
				transposeGo(dst[c8*dstStride:], dstStride, src[c8:], srcStride, rows, cols-c8)
			}
			if rows > r8 {
				transposeGo(dst[r8:], dstStride, src[r8*srcStride:], srcStride, rows-r8, c8)
			}
			return
		}
	}
	transposeGo(dst, dstStride, src, srcStride, rows, cols)
}

// transposeGo is TransposeBlock in Go: along the rows of dst, reading a column of src.
func transposeGo[T uint8 | uint16 | uint32 | uint64](dst []T, dstStride int, src []T, srcStride int, rows, cols int) {
	for c := range cols {
		row := dst[c*dstStride : c*dstStride+rows]
		for r := range row {
			row[r] = src[r*srcStride+c]
		}
	}
}

package blockscale

// cuDNN's block-scaled GEMM (the custom call __cudnn$blockScaledDot, and the cuDNN fusions of XLA's newer
// block scaling rewriter) reads each operand's scales in the layout of Blackwell's tensor memory
// ("scale_vec::1X", PTX ISA, tcgen05 matrix scale factors): the scales of one matrix, R rows (the
// non-contracting dimension) by C columns (one per block of the contracting dimension), padded with
// zeros to multiples of 128 rows and 4 columns, stored tile after tile of 128 x 4, and each tile with row
// r = 32*i + j at position 16*j + 4*i. XLA builds it with a reshape to [R/128, 4, 32, C/4, 4], a transpose
// {0, 3, 2, 1, 4} ({0,1,4,3,2,5} with the batch dimension) and a reshape back
// (xla/backends/gpu/transforms/block_scaling_rewriter.cc, BuildCudnnScaledDotInput).
const (
	// SwizzleRows and SwizzleCols are the tile of the cuDNN scale layout: scale matrices are padded to
	// multiples of them.
	SwizzleRows = 128
	SwizzleCols = 4
)

// SwizzlePadded returns the padded size of a scale matrix of rows x cols in cuDNN's layout.
func SwizzlePadded(rows, cols int64) (int64, int64) {
	return (rows + SwizzleRows - 1) / SwizzleRows * SwizzleRows, (cols + SwizzleCols - 1) / SwizzleCols * SwizzleCols
}

// SwizzleIndex is the position, in cuDNN's layout of a padded scale matrix with cols columns (a multiple
// of 4), of the scale of row r and column c.
func SwizzleIndex(r, c, cols int64) int64 {
	r0, r1, r2 := r/128, r/32%4, r%32
	c0, c1 := c/4, c%4
	return (r0*(cols/4)+c0)*512 + r2*16 + r1*4 + c1
}

// Swizzle lays out batch scale matrices of rows x cols (row-major, one after the other) in cuDNN's
// layout, padded with zero codes to SwizzlePadded(rows, cols).
func Swizzle(scales []uint8, batch, rows, cols int64) []uint8 {
	pr, pc := SwizzlePadded(rows, cols)
	out := make([]uint8, batch*pr*pc)
	for b := int64(0); b < batch; b++ {
		src, dst := scales[b*rows*cols:], out[b*pr*pc:]
		for r := int64(0); r < rows; r++ {
			for c := int64(0); c < cols; c++ {
				dst[SwizzleIndex(r, c, pc)] = src[r*cols+c]
			}
		}
	}
	return out
}

// Unswizzle is the inverse of Swizzle on padded matrices: it returns batch row-major matrices of
// rows x cols (multiples of 128 and 4) from cuDNN's layout.
func Unswizzle(swizzled []uint8, batch, rows, cols int64) []uint8 {
	out := make([]uint8, batch*rows*cols)
	for b := int64(0); b < batch; b++ {
		src, dst := swizzled[b*rows*cols:], out[b*rows*cols:]
		for r := int64(0); r < rows; r++ {
			for c := int64(0); c < cols; c++ {
				dst[r*cols+c] = src[SwizzleIndex(r, c, cols)]
			}
		}
	}
	return out
}

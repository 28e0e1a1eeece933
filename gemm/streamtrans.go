package gemm

import "unsafe"

// A transposed B (B^T stored row-major, N x K: a weight as PyTorch's Linear keeps it) is streamed as a
// row-major one is, without packing it first: for each panel of 64 columns and each block of k, the block
// of the panel's 64 rows of B^T is transposed, in its own type (bytes or words, nothing decoded), into a
// buffer in L1 laid out as a packed panel is (kn steps of 64 elements), and the streaming kernel reads it
// from there as it reads packed weights: B decoded once for all the rows of its tile and multiplied at
// once. Every sum stays the chain of fused multiply-adds over k in order, one output element per lane
// (the lanes run along N, never along K), so the results are those of every other kernel. The
// transposition costs a shuffle per 16 bytes (AVX-512: four rounds of unpacking within 128-bit lanes over
// 16 rows of 64 bytes, each lane of the result stored on its own), about what decoding them costs: on
// Sapphire Rapids one row by a transposed B ran at 0.36-0.61 times the rate of a row-major one, 16 rows at
// 0.78-0.86 times. (Loading each register's four lanes from four groups of rows instead, so that every
// store is a whole line of the panel, was no faster: 17 GB/s against 19 for bytes in L2 on one core.)

// A panelTransposer lays out the first steps of a block of a transposed B as a panel: for r < 64 and p
// < n' it sets element p*64 + r of dst to element p of rows[r], where n' <= n is the largest multiple of its
// unit (the elements one vector holds) and the return value; elements are one byte or two (the
// transposer of each size is its own). Rows past the product's columns point at zeros.
type panelTransposer func(dst *byte, rows *[streamPanel]*byte, n int) int

// zeroRow stands for the rows of B^T past the last column: zeros, as many as a block of k reads.
var zeroRow [streamBlock * 4]byte

// transposePanel lays out steps [kb, kb+kn) of the columns [p*64, p*64+64) of the transposed B s in dst
// as a panel of kn rows of 64 elements (zero past the last column): with set's transposer for the
// element size where it has one, and the steps it leaves in Go. rows is room for the rows' addresses
// (kept by the caller, so that the transposer, called through a function value, does not make them
// escape on every call); it is cleared again.
func (s *streamSource) transposePanel(set *streamSet, dst []byte, p, kb, kn int, rows *[streamPanel]*byte) {
	size := s.size
	j0 := p * streamPanel
	cols := max(min(streamPanel, s.n-j0), 0) // a panel past the last column is all zeros
	dst = dst[:kn*streamPanel*size]
	if kn*size > len(zeroRow) {
		panic("gemm: a block of k longer than the zero row")
	}
	for r := 0; r < cols; r++ {
		// The whole block of the row is in s.data: checked here once, read by the assembly.
		off := ((j0+r)*s.stride + kb) * size
		rows[r] = &s.data[off : off+kn*size][0]
	}
	for r := cols; r < streamPanel; r++ {
		rows[r] = &zeroRow[0]
	}
	done := 0
	if t := set.transpose[size]; t != nil {
		done = t(&dst[0], rows, kn)
	}
	for q := done; q < kn; q++ {
		d := dst[q*streamPanel*size : (q+1)*streamPanel*size]
		for r, row := range rows {
			copy(d[r*size:(r+1)*size], unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(row), q*size)), size))
		}
	}
	clear(rows[:])
}

// alignedBytes returns n bytes aligned to a 64-byte cache line.
func alignedBytes(n int) []byte {
	f := alignedFloats((n + 3) / 4)
	return unsafe.Slice((*byte)(unsafe.Pointer(&f[0])), n)
}

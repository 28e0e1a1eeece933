package gemm

import (
	"math/rand/v2"
	"testing"
)

// TestTransposeBlock transposes matrices of every size to 40 x 40 and some larger ones (whole 8 x 8
// blocks, edges of every width), with strides past the rows and at offsets into their arrays, for elements
// of 1, 2, 4 and 8 bytes, under every kernel; each element of the result is read back against the source
// by its indices, and the elements around the result are left as they were.
func TestTransposeBlock(t *testing.T) {
	withKernel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(21, 22))
		testTransposeBlock[uint8](t, rng)
		testTransposeBlock[uint16](t, rng)
		testTransposeBlock[uint32](t, rng)
		testTransposeBlock[uint64](t, rng)
	})
}

func testTransposeBlock[T uint8 | uint16 | uint32 | uint64](t *testing.T, rng *rand.Rand) {
	t.Helper()
	type size struct{ rows, cols int }
	var sizes []size
	for r := 0; r <= 40; r++ {
		for c := 0; c <= 40; c += 1 + rng.IntN(3) {
			sizes = append(sizes, size{r, c})
		}
	}
	sizes = append(sizes, size{64, 64}, size{67, 133}, size{256, 8}, size{8, 256}, size{129, 71})
	for _, s := range sizes {
		srcStride := s.cols + rng.IntN(3)*rng.IntN(9)
		dstStride := s.rows + rng.IntN(3)*rng.IntN(9)
		so, do := rng.IntN(5), rng.IntN(5)
		src := make([]T, so+max(0, (s.rows-1)*srcStride+s.cols)+3)
		for i := range src {
			src[i] = T(rng.Uint64())
		}
		const fill = 0x5a
		dst := make([]T, do+max(0, (s.cols-1)*dstStride+s.rows)+3)
		for i := range dst {
			dst[i] = fill
		}
		TransposeBlock(dst[do:], dstStride, src[so:], srcStride, s.rows, s.cols)
		written := make([]bool, len(dst))
		for r := range s.rows {
			for c := range s.cols {
				i := do + c*dstStride + r
				written[i] = true
				if got, want := dst[i], src[so+r*srcStride+c]; got != want {
					t.Fatalf("%T %d x %d (strides %d, %d): element (%d, %d) is %#x, want %#x", dst[0], s.rows, s.cols,
						srcStride, dstStride, c, r, got, want)
				}
			}
		}
		for i, w := range written {
			if !w && dst[i] != fill {
				t.Fatalf("%T %d x %d (strides %d, %d): element %d of the destination, outside the result, was written",
					dst[0], s.rows, s.cols, srcStride, dstStride, i-do)
			}
		}
	}
}

// TestTransposeBlockPanics checks that a region larger than its arrays is refused.
func TestTransposeBlockPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("TransposeBlock of 8 x 8 from 63 elements did not panic")
		}
	}()
	TransposeBlock(make([]uint32, 64), 8, make([]uint32, 63), 8, 8, 8)
}

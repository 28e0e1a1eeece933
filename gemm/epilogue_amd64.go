//go:build !purego

package gemm

// The epilogue's steps in AVX2 (epilogue_avx2_amd64.s), over runs of a multiple of 8 elements; the
// ...Fast functions do a prefix of their run where the kernel's isa has them and return its length, and
// the callers finish the rest in Go.

//go:noescape
func epScaleAVX2(dst, src *float32, n int, s float32)

//go:noescape
func epMulAVX2(dst, v *float32, n int)

//go:noescape
func epAddAVX2(dst, v *float32, n int, s float32)

//go:noescape
func epReLUAVX2(dst *float32, n int)

//go:noescape
func epFinishAVX2(dst *float32, n int, outScale, limit float32) (amax uint32)

//go:noescape
func epEncodeE4M3FNAVX2(dst *byte, src *float32, n int)

func (h isa) epScaleFast(dst, src []float32, s float32) int {
	n := len(dst) &^ 7
	if !h.epilogue || n == 0 {
		return 0
	}
	_ = src[n-1]
	epScaleAVX2(&dst[0], &src[0], n, s)
	return n
}

func (h isa) epMulFast(dst, v []float32) int {
	n := len(dst) &^ 7
	if !h.epilogue || n == 0 {
		return 0
	}
	_ = v[n-1]
	epMulAVX2(&dst[0], &v[0], n)
	return n
}

func (h isa) epAddFast(dst, v []float32, s float32) int {
	n := len(dst) &^ 7
	if !h.epilogue || n == 0 {
		return 0
	}
	_ = v[n-1]
	epAddAVX2(&dst[0], &v[0], n, s)
	return n
}

func (h isa) epReLUFast(dst []float32) int {
	n := len(dst) &^ 7
	if !h.epilogue || n == 0 {
		return 0
	}
	epReLUAVX2(&dst[0], n)
	return n
}

func (h isa) epFinishFast(dst []float32, outScale, limit float32) (int, uint32) {
	n := len(dst) &^ 7
	if !h.epilogue || n == 0 {
		return 0, 0
	}
	return n, epFinishAVX2(&dst[0], n, outScale, limit)
}

func (h isa) epEncodeE4M3FNFast(dst []byte, src []float32) int {
	n := len(src) &^ 7
	if !h.epilogue || n == 0 {
		return 0
	}
	_ = dst[n-1]
	epEncodeE4M3FNAVX2(&dst[0], &src[0], n)
	return n
}

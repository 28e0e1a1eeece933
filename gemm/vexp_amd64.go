//go:build !purego

package gemm

// The exponential kernels of vexp_avx2_amd64.s: n a multiple of 4.
//
//go:noescape
func expF32AVX2(dst, x *float32, n int)

//go:noescape
func tanhF32AVX2(dst, x *float32, n int)

//go:noescape
func logisticF32AVX2(dst, x *float32, n int)

// The same kernels on float64 lanes, for the tests (see vexp_avx2_amd64.s): n a multiple of 4.
//
//go:noescape
func expF64AVX2(dst, x *float64, n int)

//go:noescape
func tanhF64AVX2(dst, x *float64, n int)

//go:noescape
func logisticF64AVX2(dst, x *float64, n int)

// asmVexp2 is the AVX2 exponential assembly: AVX for the floating-point operations, AVX2 for the integer
// ones on the exponents, FMA for math.Exp's fused multiply-adds.
var asmVexp2 = &asmSet{"vexp-avx2", []string{"expF32AVX2", "tanhF32AVX2", "logisticF32AVX2",
	"expF64AVX2", "tanhF64AVX2", "logisticF64AVX2"}, vex | fAVX2 | fFMA}

func init() {
	asmSets = append(asmSets, asmVexp2)
}

// vexpFast computes fn for a prefix of x (whose length dst shares), four elements at a time in AVX2 where
// k runs the integer row assembly (see intRowSet) and the machine has what the kernel needs, and returns
// its length.
func (k *Kernel) vexpFast(fn int, dst, x []float32) int {
	n := len(x) &^ 3
	if n == 0 || k.intRowSet() == nil || !cpuFeatures.has(asmVexp2.needs) {
		return 0
	}
	_ = dst[n-1]
	switch fn {
	case vexpExp:
		expF32AVX2(&dst[0], &x[0], n)
	case vexpTanh:
		tanhF32AVX2(&dst[0], &x[0], n)
	default:
		logisticF32AVX2(&dst[0], &x[0], n)
	}
	return n
}

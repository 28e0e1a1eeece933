package gemm

import (
	"fmt"
	"math"
	"sync"
)

// The exponential kernels: float32 exponential, hyperbolic tangent and logistic, computed as the
// interpreter's element functions compute them (float32(math.Exp(float64(x))), float32(math.Tanh(
// float64(x))) and float32(1/(1+math.Exp(-float64(x))))), bit for bit, whatever the kernel set, the
// architecture and the machine.
//
// On amd64, math.Exp is assembly (archExp in Go's src/math/exp_amd64.s) that takes one of two paths: on a
// machine with AVX and FMA its reduction and Taylor series use fused multiply-adds (VFNMADD231SD,
// VFMADD213SD), elsewhere separate products and sums. expFMA below repeats the first path operation by
// operation, and the AVX2 assembly (vexp_avx2_amd64.s) does the same on four lanes, with the same fused
// multiply-adds, so it may only run where math.Exp takes that path: where the machine has FMA, and where a
// probe of math.Exp on sample values (vexpMathFMA) finds the bits of expFMA. math.Tanh is Go
// (src/math/tanh.go), which a build for GOAMD64=v1 or v2 compiles with no fused multiply-add; the
// assembly repeats that, and runs tanh only where a probe of math.Tanh finds the bits of tanhGo. Anywhere
// else, and for the last elements of a run, the functions call math themselves.

// ExpF32 sets dst[i] = float32(math.Exp(float64(x[i]))) for every i < len(x). dst must be at least as
// long as x; it may be x, but must not overlap it otherwise.
func ExpF32(dst, x []float32) { vexpF32("ExpF32", vexpExp, dst, x) }

// TanhF32 sets dst[i] = float32(math.Tanh(float64(x[i]))) for every i < len(x), as ExpF32 does.
func TanhF32(dst, x []float32) { vexpF32("TanhF32", vexpTanh, dst, x) }

// LogisticF32 sets dst[i] = float32(1 / (1 + math.Exp(-float64(x[i])))) for every i < len(x), as ExpF32
// does.
func LogisticF32(dst, x []float32) { vexpF32("LogisticF32", vexpLogistic, dst, x) }

// The functions of the kernels.
const (
	vexpExp = iota
	vexpTanh
	vexpLogistic
)

func vexpF32(name string, fn int, dst, x []float32) {
	n := len(x)
	if len(dst) < n {
		panic(fmt.Sprintf("gemm.%s: %d elements into %d", name, n, len(dst)))
	}
	dst = dst[:n]
	i := 0
	if vexpMathOK(fn) {
		i = current().vexpFast(fn, dst, x)
	}
	switch fn {
	case vexpExp:
		for j := i; j < n; j++ {
			dst[j] = float32(math.Exp(float64(x[j])))
		}
	case vexpTanh:
		for j := i; j < n; j++ {
			dst[j] = float32(math.Tanh(float64(x[j])))
		}
	default:
		for j := i; j < n; j++ {
			dst[j] = float32(1 / (1 + math.Exp(-float64(x[j]))))
		}
	}
}

// vexpMathOK reports whether math computes fn as the assembly does: math.Exp as expFMA (for every
// function), and math.Tanh as tanhGo.
func vexpMathOK(fn int) bool {
	p := vexpProbe()
	return p.exp && (fn != vexpTanh || p.tanh)
}

// vexpProbe compares math.Exp with expFMA, and math.Tanh with tanhGo, on sample values at which a
// reordered or refused computation gives other bits.
var vexpProbe = sync.OnceValue(func() (p struct{ exp, tanh bool }) {
	p.exp, p.tanh = true, true
	for i := range 512 {
		// Arguments across exp's range (a reduced argument of either sign, every exponent), and tanh's
		// rational and exponential branches.
		x := (float64(i) - 255.5) * 0.3779
		if math.Float64bits(math.Exp(x)) != math.Float64bits(expFMA(x)) {
			p.exp = false
		}
		t := float64(i)/512*0.625 + 0x1p-9
		if math.Float64bits(math.Tanh(t)) != math.Float64bits(tanhGo(t)) ||
			math.Float64bits(math.Tanh(-x/8)) != math.Float64bits(tanhGo(-x/8)) {
			p.tanh = false
		}
	}
	return p
})

// The constants of archExp (src/math/exp_amd64.s).
const (
	expLog2e    = 1.4426950408889634073599246810018920                  // 1/ln(2)
	expLn2U     = 0.69314718055966295651160180568695068359375           // upper half of ln(2)
	expLn2L     = 0.28235290563031577122588448175013436025525412068e-12 // lower half
	expOverflow = 7.09782712893384e+02
	expC2       = 0.5
	expC3       = 1.6666666666666666667e-1
	expC4       = 4.1666666666666666667e-2
	expC5       = 8.3333333333333333333e-3
	expC6       = 1.3888888888888888889e-3
	expC7       = 1.9841269841269841270e-4
	expC8       = 2.4801587301587301587e-5
)

// expFMA is math.Exp on amd64 where the machine has AVX and FMA (archExp's avxfma path): its tests for
// NaN, infinities and overflow, its exponent k (CVTSD2SL: x/ln(2) rounded to the nearest integer, even on
// a tie, the integer indefinite -2^31 out of range), its reduction and Taylor series with the fused
// multiply-adds where it has them, its four squarings and its scaling by 2^k, with its own path for a
// subnormal result.
func expFMA(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 1):
		return x
	case math.IsInf(x, -1):
		return 0
	case x > expOverflow:
		return math.Inf(1)
	}
	t := math.RoundToEven(x * expLog2e)
	k := int32(math.MinInt32)
	if t >= math.MinInt32 && t <= math.MaxInt32 {
		k = int32(t)
	}
	fk := float64(k)
	r := math.FMA(-fk, expLn2U, x)
	r = math.FMA(-fk, expLn2L, r)
	r *= 0.0625
	p := math.FMA(expC8, r, expC7)
	p = math.FMA(p, r, expC6)
	p = math.FMA(p, r, expC5)
	p = math.FMA(p, r, expC4)
	p = math.FMA(p, r, expC3)
	p = math.FMA(p, r, expC2)
	p = math.FMA(p, r, 1)
	r *= p
	r *= r + 2
	r *= r + 2
	r *= r + 2
	r = math.FMA(r, r+2, 1)
	b := int64(k) + 0x3ff
	if b <= 0 {
		if b < -52 {
			return 0
		}
		r *= math.Float64frombits(uint64(b+0x3fe) << 52)
		b = 1
	} else if b >= 0x7ff {
		return math.Inf(1)
	}
	return r * math.Float64frombits(uint64(b)<<52)
}

// The coefficients of math.Tanh (tanhP and tanhQ in src/math/tanh.go).
const (
	tanhP0     = -9.64399179425052238628e-1
	tanhP1     = -9.92877231001918586564e1
	tanhP2     = -1.61468768441708447952e3
	tanhQ0     = 1.12811678491632931402e2
	tanhQ1     = 2.23548839060100448583e3
	tanhQ2     = 4.84406305325125486048e3
	tanhMaxLog = 8.8029691931113054295988e+01 // log(2**127)
)

// tanhGo is math.Tanh as a build that fuses no multiply-add compiles it, exp its math.Exp: each product
// that feeds a sum rounded on its own.
func tanhGo(x float64) float64 {
	z := math.Abs(x)
	switch {
	case z > 0.5*tanhMaxLog:
		if x < 0 {
			return -1
		}
		return 1
	case z >= 0.625:
		s := expFMA(2 * z)
		z = 1 - 2/(s+1)
		if x < 0 {
			z = -z
		}
	default:
		if x == 0 {
			return x
		}
		s := x * x
		p := float64(float64(float64(tanhP0*s)+tanhP1)*s) + tanhP2
		q := float64(float64(float64(float64(s+tanhQ0)*s)+tanhQ1)*s) + tanhQ2
		z = x + x*s*p/q
	}
	return z
}

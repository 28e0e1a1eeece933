//go:build amd64 && !purego

package gemm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The instructions of the exponential kernels that no other assembly of the package uses, and what each
// needs (Intel's Software Developer's Manual, volume 2), for TestAsmFeatures.
func init() {
	const avx, avx2, fma, avx512, avx512dq = fAVX, fAVX2, fFMA, fAVX512F, fAVX512DQ
	for _, n := range []string{"VMINPD", "VMAXPD", "VCVTPS2PD", "VCVTPD2PSY", "VCVTPD2DQY"} {
		insnTable[n] = insnFeatures{avx, avx, avx512}
	}
	insnTable["VMOVUPS"] = insnFeatures{avx, avx, avx512}
	insnTable["VPMOVSXDQ"] = insnFeatures{avx, avx2, avx512}
	insnTable["VFMADD213PD"] = insnFeatures{fma, fma, avx512}
	insnTable["VFNMADD231PD"] = insnFeatures{fma, fma, avx512}
	_ = avx512dq
}

// TestVexpChosen checks which kernels run the exponential assembly: those that run the integer row
// assembly on a machine with AVX2 and FMA, none of the others.
func TestVexpChosen(t *testing.T) {
	x := []float32{0.5, 0.25, 1, 0.125}
	n := 0
	for _, k := range testKernels() {
		want := k.intRowSet() != nil && cpuFeatures.has(fAVX2|fFMA|vex)
		if got := k.vexpFast(vexpExp, make([]float32, 4), x) == 4; got != want {
			t.Errorf("kernel %s (isa %+v): exponential assembly %v, want %v", k.Name(), k.isa, got, want)
		}
		if want {
			n++
		}
	}
	if goKernel.vexpFast(vexpExp, make([]float32, 4), x) != 0 {
		t.Errorf("the go kernel runs exponential assembly")
	}
	if cpuFeatures.has(fAVX2|fFMA|vex) && n == 0 {
		t.Errorf("no kernel runs the exponential assembly on a machine with AVX2 and FMA")
	}
}

// TestVexpFloat64Lanes runs the kernels on float64 lanes and compares every result with math's, bit for
// bit, before the narrowing to float32 that hides all but the largest departures: exp's arguments in
// [-200, 100], the logistic's in [-200, 200], tanh's anywhere (random bits, and densely where its
// branches meet), each set with a last group of four after the groups of eight.
func TestVexpFloat64Lanes(t *testing.T) {
	if !cpuFeatures.has(asmVexp2.needs) {
		t.Skipf("the machine lacks %v", asmVexp2.needs)
	}
	p := vexpProbe()
	if !p.exp {
		t.Skip("math.Exp does not take its FMA path here")
	}
	rng := rand.New(rand.NewPCG(11, 12))
	n := 1<<20 + 4
	if testing.Short() {
		n = 1<<16 + 4
	}
	specials := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(),
		math.Float64frombits(0x7ff0000000000001), math.Float64frombits(0xfff8000000000123), 0.625,
		math.Nextafter(0.625, 0), 44.014845965556525, 44.01484596555653, 22, 0x1p-1074, -0x1p-1074, 1e-200}
	uniform := func(lo, hi float64, tanh bool) []float64 {
		x := append([]float64(nil), specials...)
		for len(x) < n {
			switch v := rng.Float64()*(hi-lo) + lo; {
			case tanh && len(x)%3 == 0:
				x = append(x, math.Float64frombits(rng.Uint64()))
			case tanh && len(x)%3 == 1:
				x = append(x, (rng.Float64()*0.1+0.575)*float64(1-2*(len(x)&2>>1)))
			default:
				x = append(x, v)
			}
		}
		return x[:n]
	}
	check := func(name string, kernel func(dst, x *float64, n int), ref func(float64) float64, x []float64) {
		dst := make([]float64, len(x))
		kernel(&dst[0], &x[0], len(x))
		bad := 0
		for i, v := range x {
			if want := ref(v); math.Float64bits(dst[i]) != math.Float64bits(want) {
				if bad++; bad <= 5 {
					t.Errorf("%s(%v (%#x)) = %v (%#x), want %v (%#x)", name, v, math.Float64bits(v), dst[i],
						math.Float64bits(dst[i]), want, math.Float64bits(want))
				}
			}
		}
		if bad > 5 {
			t.Errorf("%s: %d of %d differ", name, bad, len(x))
		}
	}
	// The infinities and the signalling NaN (which math.Exp gives back unquieted) replaced by values in range.
	x := uniform(-200, 100, false)
	x[2], x[3], x[5] = -200, 100, 88.72283935546875
	check("exp", expF64AVX2, math.Exp, x)
	x = uniform(-200, 200, false)
	x[2], x[3], x[5] = 200, -200, -88.72283935546875
	check("logistic", logisticF64AVX2, func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }, x)
	if !p.tanh {
		t.Skip("math.Tanh fuses multiply-adds in this build")
	}
	check("tanh", tanhF64AVX2, math.Tanh, uniform(-50, 50, true))
}

package gemm

import (
	"fmt"
	"math"
)

// The Box-Muller row kernel: the standard normal values of a generator of random inputs, computed as Go's
// math package computes them on amd64, bit for bit, whatever the kernel set and the architecture. The
// Go loop below repeats, operation by operation, the assembly of math.Log on amd64 (archLog in Go's
// src/math/log_amd64.s), math.Sqrt, and the Cody-Waite path of math.Sincos (src/math/sincos.go), each
// product rounded on its own (an explicit float64 conversion wherever a product feeds a sum, so that no
// build fuses them into a multiply-add); the AVX2 assembly (boxmuller_avx2_amd64.s) does the same
// operations in the same order on four lanes, with no fused multiply-add, beside every kernel that runs
// the integer row assembly (see intRowSet), where the machine has AVX2. The Go loop runs beside the go
// kernel, in the purego build, on other architectures and for the last elements of a run.

// BoxMuller sets dst0[i] and dst1[i] to the two outputs of the Box-Muller transform of u1[i] and u2[i],
// for every i < len(u1):
//
//	r := math.Sqrt(-2 * math.Log(u1[i]))
//	sin, cos := math.Sincos(2 * math.Pi * u2[i])
//	dst0[i], dst1[i] = r*cos, r*sin
//
// with the bits that this code gives on amd64 (built for GOAMD64=v1, the default: its math package fuses
// no multiply-add). u1[i] must be in (0, 1] and u2[i] in [0, 1), as uniform generators give them;
// elsewhere the results are unspecified. u2, dst0 and dst1 must be at least as long as u1. dst0 may be u1
// and dst1 u2 (each element is read before it is written), but they must not overlap otherwise.
func BoxMuller(dst0, dst1, u1, u2 []float64) {
	n := len(u1)
	if len(u2) < n || len(dst0) < n || len(dst1) < n {
		panic(fmt.Sprintf("gemm.BoxMuller: %d elements from %d into %d and %d", n, len(u2), len(dst0), len(dst1)))
	}
	i := current().boxMullerFast(dst0[:n], dst1[:n], u1, u2[:n])
	boxMullerGo(dst0[i:n], dst1[i:n], u1[i:], u2[i:n])
}

// boxMullerGo is BoxMuller in Go.
func boxMullerGo(dst0, dst1, u1, u2 []float64) {
	dst0, dst1, u2 = dst0[:len(u1)], dst1[:len(u1)], u2[:len(u1)]
	for i, a := range u1 {
		r := math.Sqrt(-2 * logAMD64(a))
		s, c := sincosCW(2 * math.Pi * u2[i])
		dst0[i], dst1[i] = r*c, r*s
	}
}

// The constants of archLog (src/math/log_amd64.s).
const (
	logHSqrt2 = 7.07106781186547524401e-01 // sqrt(2)/2
	logLn2Hi  = 6.93147180369123816490e-01 // 0x3fe62e42fee00000
	logLn2Lo  = 1.90821492927058770002e-10 // 0x3dea39ef35793c76
	logL1     = 6.666666666666735130e-01   // 0x3FE5555555555593
	logL2     = 3.999999999940941908e-01   // 0x3FD999999997FA04
	logL3     = 2.857142874366239149e-01   // 0x3FD2492494229359
	logL4     = 2.222219843214978396e-01   // 0x3FCC71C51D8E78AF
	logL5     = 1.818357216161805012e-01   // 0x3FC7466496CB03DE
	logL6     = 1.531383769920937332e-01   // 0x3FC39A09D078C69F
	logL7     = 1.479819860511658591e-01   // 0x3FC2F112DF3E5244
)

// logAMD64 is math.Log on amd64 (archLog) for a positive finite x: its split of x into f1 * 2^k (the
// exponent field read as it is, so a subnormal x gets the result archLog gives it), its test of f1
// against sqrt(2)/2 (CMPSD's not-less-than: f1 <= sqrt(2)/2 halves f1's range, where Go's portable Log
// tests f1 < sqrt(2)/2), and its operations in its order, each rounded.
func logAMD64(x float64) float64 {
	b := math.Float64bits(x)
	f1 := math.Float64frombits(b&(1<<52-1) | 0x3fe0000000000000) // in [0.5, 1)
	k := float64(int32(b>>52&0x7ff) - 0x3fe)
	if f1 <= logHSqrt2 {
		k -= 1
		f1 *= 2
	}
	f := f1 - 1
	s := f / (2 + f)
	s2 := s * s
	s4 := s2 * s2
	t1 := s2 * (float64(float64(float64(float64(float64(logL7*s4)+logL5)*s4)+logL3)*s4) + logL1)
	t2 := s4 * (float64(float64(float64(logL6*s4)+logL4)*s4) + logL2)
	r := float64(t1) + float64(t2)
	hfsq := float64(0.5 * f * f)
	return float64(k*logLn2Hi) - ((hfsq - (float64(s*(hfsq+r)) + float64(k*logLn2Lo))) - f)
}

// The coefficients of math.Sincos (_sin and _cos in src/math/sin.go) and its split of Pi/4.
const (
	sin0 = 1.58962301576546568060e-10  // 0x3de5d8fd1fd19ccd
	sin1 = -2.50507477628578072866e-8  // 0xbe5ae5e5a9291f5d
	sin2 = 2.75573136213857245213e-6   // 0x3ec71de3567d48a1
	sin3 = -1.98412698295895385996e-4  // 0xbf2a01a019bfdf03
	sin4 = 8.33333333332211858878e-3   // 0x3f8111111110f7d0
	sin5 = -1.66666666666666307295e-1  // 0xbfc5555555555548
	cos0 = -1.13585365213876817300e-11 // 0xbda8fa49a0861a9b
	cos1 = 2.08757008419747316778e-9   // 0x3e21ee9d7b4e3f05
	cos2 = -2.75573141792967388112e-7  // 0xbe927e4f7eac4bc6
	cos3 = 2.48015872888517045348e-5   // 0x3efa01a019c844f5
	cos4 = -1.38888888888730564116e-3  // 0xbf56c16c16c14f91
	cos5 = 4.16666666666665929218e-2   // 0x3fa555555555554b
	pi4A = 7.85398125648498535156e-1   // 0x3fe921fb40000000, Pi/4 split into three parts
	pi4B = 3.77489470793079817668e-8   // 0x3e64442d00000000
	pi4C = 2.69515142907905952645e-15  // 0x3ce8469898cc5170
)

// sincosCW is math.Sincos for 0 <= x < 2^29 (below its reduceThreshold, where it reduces x by Cody and
// Waite's three-part Pi/4, not by Payne and Hanek's): the octant j, its float y, the reduced z and the
// two polynomials as sincos.go computes them, each product rounded.
func sincosCW(x float64) (sin, cos float64) {
	j := uint64(x * (4 / math.Pi)) // integer part of x/(Pi/4)
	y := float64(j)
	if j&1 == 1 { // map zeros to origin
		j++
		y++
	}
	j &= 7
	z := float64(float64(x-float64(y*pi4A))-float64(y*pi4B)) - float64(y*pi4C)
	sinSign, cosSign := false, false
	if j > 3 {
		j -= 4
		sinSign, cosSign = true, true
	}
	if j > 1 {
		cosSign = !cosSign
	}
	zz := z * z
	pc := float64(float64(float64(float64(float64(float64(float64(float64(float64(cos0*zz)+cos1)*zz)+cos2)*zz)+cos3)*zz)+cos4)*zz) + cos5
	ps := float64(float64(float64(float64(float64(float64(float64(float64(float64(sin0*zz)+sin1)*zz)+sin2)*zz)+sin3)*zz)+sin4)*zz) + sin5
	cos = float64(1.0-float64(0.5*zz)) + float64(zz*zz*pc)
	sin = z + float64(z*zz*ps)
	if j == 1 || j == 2 {
		sin, cos = cos, sin
	}
	if cosSign {
		cos = -cos
	}
	if sinSign {
		sin = -sin
	}
	return sin, cos
}

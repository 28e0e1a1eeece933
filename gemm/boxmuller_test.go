package gemm

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"testing"
)

// boxMullerRef is one element of BoxMuller, written apart from the code under test: math's own Log, Sqrt
// and Sincos, as the random inputs of package interp computed their normal values before BoxMuller. Only
// on amd64 in a build that fuses no multiply-add (GOAMD64 v1 or v2) is math the reference: elsewhere
// math.Sincos (and off amd64 math.Log) round otherwise, and the reference is the Go loop, which the
// assembly must match and TestBoxMullerDigest pins.
func boxMullerRef(u1, u2 float64) (float64, float64) {
	if !mathIsReference {
		r := math.Sqrt(-2 * logAMD64(u1))
		s, c := sincosCW(2 * math.Pi * u2)
		return r * c, r * s
	}
	r := math.Sqrt(-2 * math.Log(u1))
	s, c := math.Sincos(2 * math.Pi * u2)
	return r * c, r * s
}

// mathIsReference is set where math's Log and Sincos give the bits BoxMuller promises.
const mathIsReference = runtime.GOARCH == "amd64" && !fusingBuild

// hashUniforms returns the uniforms of n Box-Muller pairs of interp's stream key from pair p0 on: u1 in
// (0, 1], u2 in [0, 1).
func hashUniforms(key uint64, p0, n int) (u1, u2 []float64) {
	u1, u2 = make([]float64, n), make([]float64, n)
	for i := range u1 {
		p := uint64(p0 + i)
		u1[i] = float64(SplitMix(key, 2*p)>>11+1) * 0x1p-53
		u2[i] = float64(SplitMix(key, 2*p+1)>>11) * 0x1p-53
	}
	return u1, u2
}

// edgeUniforms returns the values of u1 and of u2 where the arithmetic turns: u1 at 1, at 2^-53 (the
// least the stream gives), just below 1, around powers of two, around sqrt(2)/2 (archLog's test of the
// fraction, at which it halves its range) and sqrt(2) times powers of two; u2 at 0, around the octants
// of the circle (multiples of 1/8, where the reduction changes its j) and just below 1.
func edgeUniforms() (u1s, u2s []float64) {
	around := func(v float64, k int) []float64 {
		out := []float64{v}
		lo, hi := v, v
		for range k {
			lo, hi = math.Nextafter(lo, 0), math.Nextafter(hi, 2)
			out = append(out, lo, hi)
		}
		return out
	}
	u1s = append(u1s, 1, 0x1p-53, 0x1p-52, 3*0x1p-53, 1-0x1p-53, 1-0x1p-52, 0.5+0x1p-53, 0.75, 0.9999)
	for e := 1; e <= 53; e++ {
		u1s = append(u1s, around(math.Ldexp(1, -e), 3)...)
		u1s = append(u1s, around(math.Ldexp(math.Sqrt2, -e), 3)...) // sqrt(2)/2 and below
	}
	for k := 1; k < 8; k++ {
		u2s = append(u2s, around(float64(k)/8, 4)...)
	}
	// The octant boundaries as the reduction sees them: x*(4/Pi) just below and at each integer.
	octant := func(u float64) float64 { return math.Floor(2 * math.Pi * u * (4 / math.Pi)) }
	for k := 1; k <= 8; k++ {
		u := float64(k) / 8
		for octant(u) >= float64(k) {
			u = math.Nextafter(u, 0)
		}
		for octant(u) < float64(k) {
			u = math.Nextafter(u, 2)
		}
		u2s = append(u2s, around(u, 2)...) // the least u2 of octant k, and its neighbours
	}
	u2s = append(u2s, 0, 0x1p-53, 0x1p-30, 1e-10, 1-0x1p-53, 1-0x1p-52, 1-0x1p-50, 0.5-0x1p-54)
	var keep []float64
	for _, v := range u2s {
		if v >= 0 && v < 1 {
			keep = append(keep, v)
		}
	}
	return u1s, keep
}

// checkBoxMuller runs BoxMuller on u1 and u2 and compares every element with boxMullerRef, bit for bit.
func checkBoxMuller(t *testing.T, what string, u1, u2 []float64) {
	t.Helper()
	n := len(u1)
	dst0, dst1 := make([]float64, n), make([]float64, n)
	BoxMuller(dst0, dst1, u1, u2)
	bad := 0
	for i := range u1 {
		c, s := boxMullerRef(u1[i], u2[i])
		if math.Float64bits(dst0[i]) != math.Float64bits(c) || math.Float64bits(dst1[i]) != math.Float64bits(s) {
			if bad++; bad <= 5 {
				t.Errorf("%s: element %d of %d, u1 %v (%#x), u2 %v (%#x): got %v, %v, want %v, %v", what, i, n,
					u1[i], math.Float64bits(u1[i]), u2[i], math.Float64bits(u2[i]), dst0[i], dst1[i], c, s)
			}
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d of %d elements differ", what, bad, n)
	}
}

// TestBoxMullerStream compares BoxMuller with math's functions on the uniforms of interp's hash stream,
// under every kernel (and so every kernel set the machine has, and Go).
func TestBoxMullerStream(t *testing.T) {
	n := 1 << 21
	if testing.Short() {
		n = 1 << 16
	}
	u1, u2 := hashUniforms(7, 0, n)
	withKernel(t, func(t *testing.T) {
		checkBoxMuller(t, "stream 7", u1, u2)
	})
}

// TestBoxMullerEdges compares BoxMuller with math's functions on every pair of edge values, each pair in
// every lane of a group of four and in the tail.
func TestBoxMullerEdges(t *testing.T) {
	u1s, u2s := edgeUniforms()
	var u1, u2 []float64
	for _, a := range u1s {
		for _, b := range u2s {
			u1, u2 = append(u1, a), append(u2, b)
		}
	}
	withKernel(t, func(t *testing.T) {
		for shift := range 5 {
			checkBoxMuller(t, fmt.Sprintf("edges from %d", shift), u1[shift:], u2[shift:])
		}
	})
}

// TestBoxMullerLengths runs every length 0 to 9 (whole groups of four and the rest, in Go), at several
// offsets, and in place: dst0 u1 and dst1 u2.
func TestBoxMullerLengths(t *testing.T) {
	u1, u2 := hashUniforms(99, 1000, 16)
	withKernel(t, func(t *testing.T) {
		for n := 0; n <= 9; n++ {
			for off := range 3 {
				a, b := u1[off:off+n], u2[off:off+n]
				checkBoxMuller(t, fmt.Sprintf("length %d at %d", n, off), a, b)
				// Elements past n are left alone.
				dst0, dst1 := make([]float64, n+2), make([]float64, n+2)
				dst0[n], dst1[n+1] = 5, 6
				BoxMuller(dst0, dst1, a, b)
				if dst0[n] != 5 || dst0[n+1] != 0 || dst1[n] != 0 || dst1[n+1] != 6 {
					t.Errorf("length %d: wrote past the end: %v %v", n, dst0[n:], dst1[n:])
				}
				// In place.
				x, y := append([]float64(nil), a...), append([]float64(nil), b...)
				BoxMuller(x, y, x, y)
				for i := range n {
					c, s := boxMullerRef(a[i], b[i])
					if math.Float64bits(x[i]) != math.Float64bits(c) || math.Float64bits(y[i]) != math.Float64bits(s) {
						t.Errorf("length %d in place: element %d: got %v, %v, want %v, %v", n, i, x[i], y[i], c, s)
					}
				}
			}
		}
	})
}

// TestBoxMullerParts compares the Go loop's logarithm and sines with math's on their own, on the edge
// values and the stream: a mismatch here says which of them is wrong.
func TestBoxMullerParts(t *testing.T) {
	u1s, u2s := edgeUniforms()
	a, b := hashUniforms(3, 0, 1<<16)
	u1s, u2s = append(u1s, a...), append(u2s, b...)
	if !mathIsReference {
		t.Skipf("math's Log and Sincos are not the reference on %s in this build (see boxMullerRef)", runtime.GOARCH)
	}
	bad := 0
	for _, u := range u1s {
		if got, want := logAMD64(u), math.Log(u); math.Float64bits(got) != math.Float64bits(want) {
			if bad++; bad <= 5 {
				t.Errorf("logAMD64(%v) = %v, math.Log %v", u, got, want)
			}
		}
	}
	for _, u := range u2s {
		x := 2 * math.Pi * u
		s, c := sincosCW(x)
		ws, wc := math.Sincos(x)
		if math.Float64bits(s) != math.Float64bits(ws) || math.Float64bits(c) != math.Float64bits(wc) {
			if bad++; bad <= 10 {
				t.Errorf("sincosCW(%v) = %v, %v, math.Sincos %v, %v", x, s, c, ws, wc)
			}
		}
	}
}

// TestBoxMullerDigest pins BoxMuller's bits on the stream, whatever the build: a digest of the outputs of
// the first 2^16 pairs of interp's stream 7, as math gives them on amd64 (GOAMD64=v1).
func TestBoxMullerDigest(t *testing.T) {
	u1, u2 := hashUniforms(7, 0, 1<<16)
	withKernel(t, func(t *testing.T) {
		dst0, dst1 := make([]float64, len(u1)), make([]float64, len(u1))
		BoxMuller(dst0, dst1, u1, u2)
		h := sha256.New()
		for i := range dst0 {
			h.Write(binary.LittleEndian.AppendUint64(nil, math.Float64bits(dst0[i])))
			h.Write(binary.LittleEndian.AppendUint64(nil, math.Float64bits(dst1[i])))
		}
		if got, want := fmt.Sprintf("%x", h.Sum(nil))[:16], "15d2c52e7da516a2"; got != want {
			t.Errorf("the outputs of stream 7 hash to %s, want %s", got, want)
		}
	})
}

// TestBoxMullerShort checks that BoxMuller refuses outputs and second inputs shorter than u1.
func TestBoxMullerShort(t *testing.T) {
	for _, tc := range []struct{ d0, d1, u2 int }{{3, 4, 4}, {4, 3, 4}, {4, 4, 3}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("BoxMuller with %d, %d outputs and %d of u2 for 4 of u1 did not panic", tc.d0, tc.d1, tc.u2)
				}
			}()
			BoxMuller(make([]float64, tc.d0), make([]float64, tc.d1), make([]float64, 4), make([]float64, tc.u2))
		}()
	}
}

func BenchmarkBoxMuller(b *testing.B) {
	const n = 1024
	u1, u2 := hashUniforms(1, 0, n)
	dst0, dst1 := make([]float64, n), make([]float64, n)
	for _, k := range testKernels() {
		b.Run(k.Name(), func(b *testing.B) {
			defer useKernel(k)()
			for b.Loop() {
				BoxMuller(dst0, dst1, u1, u2)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/pair")
		})
	}
}

// TestSplitMixUniforms compares SplitMixUniforms with the hashes of interp's stream (hashUniforms) under
// every kernel: every length 0 to 9 and long runs, from pairs near 0, at odd places and near 2^63
// (counters that wrap), for several keys.
func TestSplitMixUniforms(t *testing.T) {
	withKernel(t, func(t *testing.T) {
		for _, key := range []uint64{0, 7, 1<<64 - 1, 0x0123456789abcdef} {
			for _, p0 := range []uint64{0, 1, 3, 1000003, 1<<63 - 5, 1<<64 - 9} {
				for _, n := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 257, 4099} {
					u1, u2 := make([]float64, n), make([]float64, n+1)
					u2[n] = 5
					SplitMixUniforms(u1, u2, key, p0)
					for i := range n {
						x := 2 * (p0 + uint64(i))
						w1 := float64(SplitMix(key, x)>>11+1) * 0x1p-53
						w2 := float64(SplitMix(key, x+1)>>11) * 0x1p-53
						if math.Float64bits(u1[i]) != math.Float64bits(w1) || math.Float64bits(u2[i]) != math.Float64bits(w2) {
							t.Fatalf("key %#x, pairs %d+%d: element %d is %v, %v, want %v, %v", key, p0, n, i, u1[i], u2[i], w1, w2)
						}
					}
					if u2[n] != 5 {
						t.Fatalf("key %#x, pairs %d+%d: wrote past the end", key, p0, n)
					}
				}
			}
		}
	})
	// The conversion at the ends of its range and where the halves meet: keys chosen (by inverting
	// splitmix64) so that the hash of one counter is h, that counter's uniform in each lane.
	withKernel(t, func(t *testing.T) {
		for _, v := range []uint64{0, 1, 2, 1<<32 - 1, 1 << 32, 1<<32 + 1, 1<<52 - 1, 1 << 52, 1<<52 + 1, 1<<53 - 2, 1<<53 - 1} {
			for _, low := range []uint64{0, 0x7ff} {
				h := v<<11 | low
				for x := uint64(0); x < 8; x++ {
					key := unsplitmix64(h) ^ splitmix64(x+0x632be59bd9b4e019)
					if SplitMix(key, x) != h {
						t.Fatalf("unsplitmix64 does not invert splitmix64")
					}
					u1, u2 := make([]float64, 4), make([]float64, 4)
					SplitMixUniforms(u1, u2, key, 0)
					got, want := u1[x/2], float64(v+1)*0x1p-53
					if x%2 == 1 {
						got, want = u2[x/2], float64(v)*0x1p-53
					}
					if math.Float64bits(got) != math.Float64bits(want) {
						t.Errorf("hash %#x at counter %d: uniform %v, want %v", h, x, got, want)
					}
				}
			}
		}
	})
}

// unsplitmix64 inverts splitmix64.
func unsplitmix64(y uint64) uint64 {
	unshift := func(y uint64, k uint) uint64 {
		x := y
		for range 64 / k {
			x = y ^ x>>k
		}
		return x
	}
	inverse := func(c uint64) uint64 { // modulo 2^64, by Newton's iteration
		v := c
		for range 6 {
			v *= 2 - c*v
		}
		return v
	}
	x := unshift(y, 31)
	x = unshift(x*inverse(0x94d049bb133111eb), 27)
	x = unshift(x*inverse(0xbf58476d1ce4e5b9), 30)
	return x - 0x9e3779b97f4a7c15
}

func BenchmarkSplitMixUniforms(b *testing.B) {
	const n = 1024
	u1, u2 := make([]float64, n), make([]float64, n)
	for _, k := range testKernels() {
		b.Run(k.Name(), func(b *testing.B) {
			defer useKernel(k)()
			p0 := uint64(0)
			for b.Loop() {
				SplitMixUniforms(u1, u2, 7, p0)
				p0 += n
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/pair")
		})
	}
}

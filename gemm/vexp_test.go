package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"testing"
)

// The element functions of package interp, written apart from the code under test: the references of
// ExpF32, TanhF32 and LogisticF32.
var vexpRefs = []struct {
	name string
	f    func(dst, x []float32)
	ref  func(x float32) float32
}{
	{"exp", ExpF32, func(x float32) float32 { return float32(math.Exp(float64(x))) }},
	{"tanh", TanhF32, func(x float32) float32 { return float32(math.Tanh(float64(x))) }},
	{"logistic", LogisticF32, func(x float32) float32 { return float32(1 / (1 + math.Exp(-float64(x)))) }},
}

// checkVexp runs f on x and compares every element with ref, bit for bit.
func checkVexp(t *testing.T, what string, f func(dst, x []float32), ref func(float32) float32, x []float32) {
	t.Helper()
	dst := make([]float32, len(x))
	f(dst, x)
	bad := 0
	for i, v := range x {
		if want := ref(v); math.Float32bits(dst[i]) != math.Float32bits(want) {
			if bad++; bad <= 5 {
				t.Errorf("%s: element %d of %d, x %v (%#08x): got %v (%#08x), want %v (%#08x)", what, i, len(x),
					v, math.Float32bits(v), dst[i], math.Float32bits(dst[i]), want, math.Float32bits(want))
			}
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d of %d elements differ", what, bad, len(x))
	}
}

// vexpEdges returns the arguments at which the functions turn: zeros, infinities, NaNs with payloads of
// both signs (quiet and signalling), the least subnormals and normals, exp's overflow (88.72...) and
// underflow thresholds (-87.33... to normal, -103.97... to zero), tanh's 0.625 and 44.01 (and 22, where
// float32 results reach 1), the logistic's at the negations of those, and the integers and halves of
// x/ln(2) where the exponent k turns, each with its float32 neighbours.
func vexpEdges() []float32 {
	var out []float32
	around := func(v float32, k int) {
		out = append(out, v)
		lo, hi := v, v
		for range k {
			lo, hi = math.Nextafter32(lo, float32(math.Inf(-1))), math.Nextafter32(hi, float32(math.Inf(1)))
			out = append(out, lo, hi)
		}
	}
	for _, b := range []uint32{0, 1, 2, 0x7fffff, 0x800000, 0x7f7fffff, 0x7f800000, 0x7f800001, 0x7fa00000,
		0x7fc00000, 0x7fc00001, 0x7fffffff, 0x7fbfffff, 0x7f812345, 0x7fd23456} {
		out = append(out, math.Float32frombits(b), math.Float32frombits(b|1<<31))
	}
	for _, v := range []float32{88.72283, 88.7228391, 88.75, 89, 100, 200, 709.78, 710, 745.2, 1e10,
		87.33654, 87.3365448, 103.97208, 103.972084, 104, 0.625, 22, 9.010913, 44.014847, 44.01, 45, 0.5, 1,
		0x1p-10, 0x1p-20, 0x1p-30, 0x1p-60, 0x1p-126, 0x1p-149, 16.635532, 8.317766} {
		around(v, 4)
		around(-v, 4)
	}
	for k := -160; k <= 140; k++ {
		around(float32(float64(k)*math.Ln2), 2)
		around(float32((float64(k)+0.5)*math.Ln2), 2)
	}
	return out
}

// TestVexpEdges compares the functions with their element functions on every edge value, in every lane
// of a group of four and in the tail, under every kernel.
func TestVexpEdges(t *testing.T) {
	x := vexpEdges()
	withKernel(t, func(t *testing.T) {
		for _, r := range vexpRefs {
			for shift := range 5 {
				checkVexp(t, fmt.Sprintf("%s edges from %d", r.name, shift), r.f, r.ref, x[shift:])
			}
		}
	})
}

// vexpSweep returns every bf16 value (every upper half of a float32) with several lower halves, and n
// random float32 bit patterns.
func vexpSweep(n int) []float32 {
	rng := rand.New(rand.NewPCG(5, 8))
	var x []float32
	for _, lo := range []uint32{0, 1, 0x7fff, 0x8000, 0xffff} {
		for hi := range uint32(1 << 16) {
			x = append(x, math.Float32frombits(hi<<16|lo))
		}
	}
	for hi := range uint32(1 << 16) {
		x = append(x, math.Float32frombits(hi<<16|rng.Uint32()&0xffff))
	}
	for range n {
		x = append(x, math.Float32frombits(rng.Uint32()))
	}
	// Random values where the arithmetic is finest: exp's and tanh's whole range.
	for range n {
		x = append(x, float32(rng.Float64()*240-120))
	}
	return x
}

// TestVexpSweep compares the functions with their element functions on every bf16 value with several
// lower halves and on millions of random float32, under every kernel.
func TestVexpSweep(t *testing.T) {
	n := 1 << 20
	if testing.Short() {
		n = 1 << 16
	}
	x := vexpSweep(n)
	withKernel(t, func(t *testing.T) {
		for _, r := range vexpRefs {
			checkVexp(t, r.name+" sweep", r.f, r.ref, x)
		}
	})
}

// TestVexpLengths runs every length 0 to 17 at several offsets, and in place, and checks that nothing past
// the end is written.
func TestVexpLengths(t *testing.T) {
	src := make([]float32, 24)
	for i := range src {
		src[i] = float32(i)*1.37 - 15
	}
	withKernel(t, func(t *testing.T) {
		for _, r := range vexpRefs {
			for n := 0; n <= 17; n++ {
				for off := range 4 {
					x := src[off : off+n]
					checkVexp(t, fmt.Sprintf("%s length %d at %d", r.name, n, off), r.f, r.ref, x)
					dst := make([]float32, n+off+2)
					dst[n+off], dst[n+off+1] = 5, 6
					r.f(dst[off:], x)
					for i := range n {
						if want := r.ref(x[i]); math.Float32bits(dst[off+i]) != math.Float32bits(want) {
							t.Errorf("%s length %d into offset %d: element %d: got %v, want %v", r.name, n, off, i, dst[off+i], want)
						}
					}
					if dst[n+off] != 5 || dst[n+off+1] != 6 {
						t.Errorf("%s length %d: wrote past the end: %v", r.name, n, dst[n+off:])
					}
					y := append([]float32(nil), x...)
					r.f(y, y)
					for i := range n {
						if want := r.ref(x[i]); math.Float32bits(y[i]) != math.Float32bits(want) {
							t.Errorf("%s length %d in place: element %d: got %v, want %v", r.name, n, i, y[i], want)
						}
					}
				}
			}
		}
	})
}

// TestVexpParts compares expFMA and tanhGo with math's own functions on float64 arguments across their
// ranges, where math takes the paths they repeat: a mismatch here says which of them is wrong.
func TestVexpParts(t *testing.T) {
	p := vexpProbe()
	if !p.exp {
		t.Skipf("math.Exp does not take its FMA path here (cpu features %v)", cpuFeatures)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	bad := 0
	check := func(name string, x, got, want float64) {
		if math.Float64bits(got) != math.Float64bits(want) {
			if bad++; bad <= 10 {
				t.Errorf("%s(%v) = %v, math %v", name, x, got, want)
			}
		}
	}
	xs := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 709.78, 709.79, -708.4, -708.39,
		-745.13, -745.14, -744, -740, -720, 1e300, -1e300, 0x1p-1074}
	for range 1 << 18 {
		xs = append(xs, rng.Float64()*1500-750, rng.NormFloat64()*10, math.Float64frombits(rng.Uint64()))
	}
	for _, x := range xs {
		check("expFMA", x, expFMA(x), math.Exp(x))
		if p.tanh {
			check("tanhGo", x, tanhGo(x), math.Tanh(x))
			check("tanhGo", x/64, tanhGo(x/64), math.Tanh(x/64))
		}
	}
	if !p.tanh && !fusingBuild {
		t.Errorf("math.Tanh differs from tanhGo in a build that fuses no multiply-add")
	}
}

// TestVexpExhaustive compares the functions with their element functions on every float32, under the
// default kernel, where OCTET_VEXP_EXHAUSTIVE is set: some minutes.
func TestVexpExhaustive(t *testing.T) {
	if os.Getenv("OCTET_VEXP_EXHAUSTIVE") == "" {
		t.Skip("set OCTET_VEXP_EXHAUSTIVE to run every float32")
	}
	for _, r := range vexpRefs {
		var wg sync.WaitGroup
		var mu sync.Mutex
		bad := 0
		workers := runtime.GOMAXPROCS(0)
		const block = 1 << 16
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				x, dst := make([]float32, block), make([]float32, block)
				for b := w; b < 1<<32/block; b += workers {
					for i := range x {
						x[i] = math.Float32frombits(uint32(b*block + i))
					}
					r.f(dst, x)
					for i, v := range x {
						if want := r.ref(v); math.Float32bits(dst[i]) != math.Float32bits(want) {
							mu.Lock()
							if bad++; bad <= 10 {
								t.Errorf("%s(%v (%#08x)) = %#08x, want %#08x", r.name, v, math.Float32bits(v),
									math.Float32bits(dst[i]), math.Float32bits(want))
							}
							mu.Unlock()
						}
					}
				}
			}()
		}
		wg.Wait()
		t.Logf("%s: every float32, %d differ", r.name, bad)
	}
}

func BenchmarkVexp(b *testing.B) {
	x := make([]float32, 1<<20)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range x {
		x[i] = float32(rng.NormFloat64() * 4)
	}
	dst := make([]float32, len(x))
	for _, r := range vexpRefs {
		b.Run(r.name, func(b *testing.B) {
			for b.Loop() {
				r.f(dst, x)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(x)), "ns/elem")
		})
		b.Run(r.name+"-math", func(b *testing.B) {
			for b.Loop() {
				for i, v := range x {
					dst[i] = r.ref(v)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(x)), "ns/elem")
		})
	}
}

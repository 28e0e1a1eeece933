package gemm

import (
	"math"
	"math/rand/v2"
	"testing"

	"octet/dtype"
)

// scaledCheck compares got with alpha*(A*B)*diag(scale) + beta*C0 computed in float64, with check's bound.
func scaledCheck(t *testing.T, got, c0, a, b Matrix, scale []float32, alpha, beta float32) {
	t.Helper()
	if scale != nil {
		b = clone(b)
		for p := 0; p < b.Rows; p++ {
			for j := 0; j < b.Cols; j++ {
				i := p*b.Stride + j
				if b.Trans {
					i = j*b.Stride + p
				}
				// The reference scales B's columns; a scale of a power of two keeps that exact.
				b.Data[i] *= scale[j]
			}
		}
	}
	check(t, got, c0, a, b, alpha, beta)
}

// TestStream checks the products with few rows, through MatMulWeights (packed weights, with and without a
// scale per column) and MatMulTyped (B streamed where it lies), against the float64 product: every weight
// type, A in f32 and bf16, row counts around each kernel's (1, 4, 16, and more than 16), column counts
// around the panel width, odd K, and transposed B for packing.
func TestStream(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	withKernel(t, func(t *testing.T) {
		for _, tb := range WeightTypes() {
			for _, ta := range []dtype.Type{dtype.F32, dtype.BF16} {
				for _, s := range []shape{{1, 64, 1}, {1, 1, 7}, {2, 65, 300}, {4, 130, 33}, {5, 63, 17}, {16, 200, 64}, {17, 70, 9}, {3, 0, 5}, {0, 3, 5}, {3, 5, 0}} {
					for tr := 0; tr < 2; tr++ {
						a, am := randomTyped(rng, ta, s.m, s.k, tr == 1, 1, 0)
						b, bm := randomTyped(rng, tb, s.k, s.n, tr == 1, 3, 0)
						var scale []float32
						if tr == 1 {
							scale = make([]float32, s.n)
							for j := range scale {
								scale[j] = float32(math.Ldexp(1, rng.IntN(9)-4))
							}
						}
						w := PackWeights(b, scale)
						c := operand{s.m, s.n, false, 2}.build(rng, padC)
						c0 := clone(c)
						MatMulWeights(c, a, w, 0.75, -0.5)
						scaledCheck(t, c, c0, am, bm, scale, 0.75, -0.5)
						c = clone(c0)
						MatMulTyped(c, a, b, 0.75, -0.5)
						check(t, c, c0, am, bm, 0.75, -0.5)
						if t.Failed() {
							t.Fatalf("A %v, B %v, %v, trans=%d", ta, tb, s, tr)
						}
					}
				}
			}
		}
	})
}

// TestStreamDecode multiplies a row of every code of each weight type (every 257th for bf16) by one, so
// that the result is the decoded value itself (plus zero): it must equal package dtype's decoding bit for
// bit, NaN and infinities included.
func TestStreamDecode(t *testing.T) {
	withKernel(t, func(t *testing.T) {
		for _, typ := range WeightTypes() {
			size := typ.ByteSize()
			n := 256
			data := make([]byte, n*size)
			codes := make([]uint64, n)
			for j := range codes {
				codes[j] = uint64(j)
				if size == 2 {
					codes[j] = uint64(j * 257)
					data[2*j+1] = byte(codes[j] >> 8)
				}
				data[size*j] = byte(codes[j])
			}
			b := Typed{Type: typ, Data: data, Rows: 1, Cols: n, Stride: n}
			a := TypedOf(NewMatrix(1, 1, []float32{1}))
			for _, run := range []func(c Matrix){
				func(c Matrix) { MatMulWeights(c, a, PackWeights(b, nil), 1, 0) },
				func(c Matrix) { MatMulTyped(c, a, b, 1, 0) },
			} {
				c := NewMatrix(1, n, nil)
				run(c)
				for j, g := range c.Data {
					var zero float32
					want := typ.DecodeFloat32(codes[j]) + zero // a sum from +0: -0 becomes +0
					if math.IsNaN(float64(want)) && math.IsNaN(float64(g)) {
						continue
					}
					if math.Float32bits(g) != math.Float32bits(want) {
						t.Fatalf("%v code %#x: %v (%#08x), want %v (%#08x)", typ, codes[j], g, math.Float32bits(g), want, math.Float32bits(want))
					}
				}
			}
		}
	})
}

// TestStreamSpecials checks that NaN and infinity in A or B reach exactly the outputs they should.
func TestStreamSpecials(t *testing.T) {
	withKernel(t, func(t *testing.T) {
		const m, n, k = 3, 70, 5
		rng := rand.New(rand.NewPCG(43, 44))
		b, _ := randomTyped(rng, dtype.F8E5M2, k, n, false, 0, 0)
		b.Data[2*n+66] = 0x7c // +inf at (2, 66)
		a := NewMatrix(m, k, nil)
		for i := range a.Data {
			a.Data[i] = 1
		}
		a.Data[1*k+3] = float32(math.NaN()) // row 1 all NaN
		c := NewMatrix(m, n, nil)
		MatMulWeights(c, TypedOf(a), PackWeights(b, nil), 1, 0)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				g := float64(c.At(i, j))
				switch {
				case i == 1:
					if !math.IsNaN(g) {
						t.Fatalf("C[%d,%d] = %v, want NaN", i, j, g)
					}
				case j == 66:
					if !math.IsInf(g, 1) {
						t.Fatalf("C[%d,%d] = %v, want +Inf", i, j, g)
					}
				case math.IsNaN(g) || math.IsInf(g, 0):
					t.Fatalf("C[%d,%d] = %v, want a finite value", i, j, g)
				}
			}
		}
	})
}

func TestPackWeightsErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
		want string
	}{
		{"type", func() { PackWeights(Typed{Type: dtype.F16, Data: make([]byte, 8), Rows: 2, Cols: 2, Stride: 2}, nil) }, "not one of"},
		{"scale", func() {
			PackWeights(Typed{Type: dtype.S8, Data: make([]byte, 4), Rows: 2, Cols: 2, Stride: 2}, []float32{1})
		}, "1 scales for 2 columns"},
		{"short", func() { PackWeights(Typed{Type: dtype.S8, Data: make([]byte, 3), Rows: 2, Cols: 2, Stride: 2}, nil) }, "needs 4 elements"},
		{"shape", func() {
			w := PackWeights(Typed{Type: dtype.S8, Data: make([]byte, 4), Rows: 2, Cols: 2, Stride: 2}, nil)
			MatMulWeights(NewMatrix(1, 2, nil), TypedOf(NewMatrix(1, 3, nil)), w, 1, 0)
		}, "shapes do not match"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || !containsString(s, tc.want) {
					t.Fatalf("panic %v, want one containing %q", r, tc.want)
				}
			}()
			tc.f()
		})
	}
}

func containsString(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// TestStreamNoAllocations checks that streamed products, like the blocked ones, allocate nothing in the
// steady state.
func TestStreamNoAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	defer SetThreads(SetThreads(2))
	rng := rand.New(rand.NewPCG(45, 46))
	a := TypedOf(operand{4, 1000, false, 0}.build(rng, 0))
	a40 := TypedOf(operand{40, 1000, false, 0}.build(rng, 0))
	b, _ := randomTyped(rng, dtype.F8E4M3FN, 1000, 1200, false, 0, 0)
	bt, _ := randomTyped(rng, dtype.S8, 1000, 1200, true, 0, 0)
	w := PackWeights(b, nil)
	c, c40 := NewMatrix(4, 1200, nil), NewMatrix(40, 1200, nil)
	for name, f := range map[string]func(){
		"MatMulTyped":                      func() { MatMulTyped(c, a, b, 1, 0) },
		"MatMulTyped, transposed B":        func() { MatMulTyped(c, a, bt, 1, 0) },
		"MatMulTyped, 40 rows":             func() { MatMulTyped(c40, a40, b, 1, 0) },
		"MatMulTyped, 40 rows, transposed": func() { MatMulTyped(c40, a40, bt, 1, 0) },
		"MatMulWeights":                    func() { MatMulWeights(c, a, w, 1, 0) },
		"MatMulWeights, 40 rows":           func() { MatMulWeights(c40, a40, w, 1, 0) },
	} {
		f()
		if n := testing.AllocsPerRun(20, f); n > 0 {
			t.Errorf("%s: %v allocations per call", name, n)
		}
	}
}

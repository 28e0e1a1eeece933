package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// operand describes how a test lays out one matrix: its logical shape, how it is stored and how many
// elements of padding end each stored row.
type operand struct {
	rows, cols int
	trans      bool
	pad        int
}

// pattern is the value the padding of A and B holds: NaN, so that a kernel that reads outside the view
// ruins the result. C's padding holds padC, which must survive the call.
var (
	pattern = float32(math.NaN())
	padC    = float32(-12345.5)
)

// build returns a matrix of random elements in [-1, 1) laid out as o says, padding filled with fill.
func (o operand) build(rng *rand.Rand, fill float32) Matrix {
	sr, sc := o.rows, o.cols
	if o.trans {
		sr, sc = sc, sr
	}
	stride := sc + o.pad
	data := make([]float32, sr*stride)
	for i := range data {
		if i%stride < sc {
			data[i] = float32(rng.Float64()*2 - 1)
		} else {
			data[i] = fill
		}
	}
	if stride == 0 {
		stride = 1
	}
	return Matrix{Data: data, Rows: o.rows, Cols: o.cols, Stride: stride, Trans: o.trans}
}

// batch returns m moved off elements further into its data.
func batch(m Matrix, off int) Matrix {
	m.Data = m.Data[off:]
	return m
}

func clone(m Matrix) Matrix {
	m.Data = append([]float32(nil), m.Data...)
	return m
}

// check compares got (computed from c0 = the C before the call) with the product computed in float64.
//
// Tolerance: a float32 sum of k products, however it is ordered or fused, differs from the exact sum by at
// most about k*u*sum_p |a_ip*b_pj| (u = 2^-24, the unit roundoff; Higham, Accuracy and Stability, 3.1), and
// scaling by alpha and adding beta*c add a rounding each. The bound below uses eps = 2u and k+3 terms, so
// it holds with a factor of two to spare for both MatMul and Reference, while a wrong index (one product
// missing or doubled, about |a_ip*b_pj|) still exceeds it for any k this test uses.
func check(t *testing.T, got, c0, a, b Matrix, alpha, beta float32) {
	t.Helper()
	const eps = 0x1p-23
	k := a.Cols
	bad := 0
	for i := 0; i < c0.Rows; i++ {
		for j := 0; j < c0.Cols; j++ {
			var exact, mag float64
			if alpha != 0 && k != 0 {
				var s, sa float64
				for p := 0; p < k; p++ {
					v := float64(a.At(i, p)) * float64(b.At(p, j))
					s += v
					sa += math.Abs(v)
				}
				exact = float64(alpha) * s
				mag = math.Abs(float64(alpha)) * sa
			}
			if beta != 0 {
				cv := float64(beta) * float64(c0.At(i, j))
				exact += cv
				mag += math.Abs(cv)
			}
			g := float64(got.At(i, j))
			tol := float64(k+3) * eps * mag
			if math.IsNaN(g) || math.Abs(g-exact) > tol {
				if bad++; bad <= 5 {
					t.Errorf("C[%d,%d] = %v, want %v (tolerance %.3g)", i, j, g, exact, tol)
				}
			}
		}
	}
	if bad > 5 {
		t.Errorf("... %d wrong elements in all", bad)
	}
	// Padding between rows of C must be untouched.
	for i := 0; i < got.Rows; i++ {
		for j := got.Cols; j < got.Stride && i*got.Stride+j < len(got.Data); j++ {
			if v := got.Data[i*got.Stride+j]; v != padC {
				t.Fatalf("padding C.Data[%d] overwritten with %v", i*got.Stride+j, v)
			}
		}
	}
}

// withKernel runs f once for every kernel of testKernels, with that kernel selected.
func withKernel(t *testing.T, f func(t *testing.T)) {
	for _, k := range testKernels() {
		t.Run(k.Name(), func(t *testing.T) {
			defer useKernel(k)()
			f(t)
		})
	}
}

// runOn runs f with k as the kernel and threads goroutines, and puts both back.
func runOn(k *Kernel, threads int, f func()) {
	defer useKernel(k)()
	defer SetThreads(SetThreads(threads))
	f()
}

// testKernels returns every kernel this machine has, and where they use assembly beside their tiles, the
// default and the avx2 kernels again with their packing, decoding and epilogue in Go ("-gohelpers"),
// as a machine without the helpers' instructions runs them.
func testKernels() []*Kernel {
	ks := Kernels()
	for _, k := range Kernels() {
		if (k == ks[0] || k.name == "avx2") && k.isa != (isa{}) {
			ks = append(ks, withISA(k, isa{}, "-gohelpers"))
		}
		if w := withoutVBMI(k); w != nil {
			ks = append(ks, w)
		}
	}
	return ks
}

// streamTestKernels returns the kernels of this machine and those of withoutVBMI: every set of streaming
// kernels the machine runs.
func streamTestKernels() []*Kernel {
	var ks []*Kernel
	for _, k := range Kernels() {
		ks = append(ks, k)
		if w := withoutVBMI(k); w != nil {
			ks = append(ks, w)
		}
	}
	return ks
}

// withISA returns a kernel like k but for its helpers, which are h, named k's name with suffix.
func withISA(k *Kernel, h isa, suffix string) *Kernel {
	return &Kernel{name: k.name + suffix, mr: k.mr, nr: k.nr, mc: k.mc, kc: k.kc, nc: k.nc, tile: k.tile,
		ordered: k.ordered, bf16: k.bf16, wide: k.wide, isa: h, streams: k.streams}
}

// useKernel makes MatMul use k, which may be a kernel made for a test (withISA), and returns the function
// that restores the kernel used before.
func useKernel(k *Kernel) func() {
	prev := selected.Load()
	selected.Store(k)
	return func() { selected.Store(prev) }
}

type shape struct{ m, n, k int }

func TestMatMulShapes(t *testing.T) {
	shapes := []shape{
		{1, 1, 1}, {13, 17, 31}, {1, 1000, 1}, {1000, 1, 7}, {7, 5, 0}, {0, 5, 3}, {5, 0, 3}, {0, 0, 0},
		{14, 32, 256}, {15, 33, 257}, {6, 16, 4}, {28, 64, 3}, {3, 200, 600}, {500, 3, 40}, {2, 2, 2000},
		{29, 65, 1}, {64, 64, 64},
		// Larger than one cache block in each direction in turn.
		{351, 20, 30}, {20, 2100, 20}, {30, 40, 700},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	withKernel(t, func(t *testing.T) {
		for _, s := range shapes {
			for tr := 0; tr < 4; tr++ {
				transA, transB := tr&1 != 0, tr&2 != 0
				name := fmt.Sprintf("%dx%dx%d/transA=%v/transB=%v", s.m, s.n, s.k, transA, transB)
				t.Run(name, func(t *testing.T) {
					a := operand{s.m, s.k, transA, 3}.build(rng, pattern)
					b := operand{s.k, s.n, transB, 5}.build(rng, pattern)
					c := operand{s.m, s.n, false, 2}.build(rng, padC)
					c0 := clone(c)
					MatMul(c, a, b, 1, 0.5)
					check(t, c, c0, a, b, 1, 0.5)
				})
			}
		}
	})
}

func TestMatMulAlphaBeta(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, ab := range [][2]float32{{1, 0}, {1, 1}, {2, -1}, {-0.5, 0.25}, {0, 0}, {0, 2}, {1, float32(math.Copysign(0, -1))}, {3, 1}} {
		alpha, beta := ab[0], ab[1]
		t.Run(fmt.Sprintf("alpha=%v/beta=%v", alpha, beta), func(t *testing.T) {
			withKernel(t, func(t *testing.T) {
				a := operand{37, 45, false, 0}.build(rng, pattern)
				b := operand{45, 70, true, 1}.build(rng, pattern)
				c := operand{37, 70, false, 3}.build(rng, padC)
				c0 := clone(c)
				MatMul(c, a, b, alpha, beta)
				check(t, c, c0, a, b, alpha, beta)
			})
		})
	}
}

// TestBetaZeroIgnoresC checks that with beta == 0 the NaNs and infinities in C do not reach the result,
// and that with alpha == 0 those in A and B do not either.
func TestBetaZeroIgnoresC(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	withKernel(t, func(t *testing.T) {
		for _, s := range []shape{{1, 1, 1}, {13, 17, 31}, {40, 70, 300}} {
			a := operand{s.m, s.k, false, 0}.build(rng, pattern)
			b := operand{s.k, s.n, false, 0}.build(rng, pattern)
			c := operand{s.m, s.n, false, 1}.build(rng, padC)
			for i := range c.Data {
				if i%c.Stride < c.Cols {
					c.Data[i] = []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}[i%3]
				}
			}
			c0 := clone(c)
			MatMul(c, a, b, 1.5, 0)
			check(t, c, c0, a, b, 1.5, 0)

			for i := range a.Data {
				a.Data[i] = float32(math.NaN())
			}
			c = operand{s.m, s.n, false, 1}.build(rng, padC)
			c0 = clone(c)
			MatMul(c, a, b, 0, 2)
			check(t, c, c0, a, b, 0, 2)
		}
	})
}

// TestNaNPropagates checks that a NaN or infinity in A does reach the elements of C it contributes to.
func TestNaNPropagates(t *testing.T) {
	withKernel(t, func(t *testing.T) {
		a, b, c := NewMatrix(20, 30, nil), NewMatrix(30, 40, nil), NewMatrix(20, 40, nil)
		for i := range b.Data {
			b.Data[i] = 1
		}
		a.Data[3*30+7] = float32(math.NaN())
		a.Data[5*30+2] = float32(math.Inf(1))
		MatMul(c, a, b, 1, 0)
		for i := 0; i < 20; i++ {
			for j := 0; j < 40; j++ {
				v := c.At(i, j)
				switch {
				case i == 3 && !math.IsNaN(float64(v)):
					t.Fatalf("C[3,%d] = %v, want NaN", j, v)
				case i == 5 && !math.IsInf(float64(v), 1):
					t.Fatalf("C[5,%d] = %v, want +Inf", j, v)
				case i != 3 && i != 5 && v != 0:
					t.Fatalf("C[%d,%d] = %v, want 0", i, j, v)
				}
			}
		}
	})
}

// TestThreads checks products split among goroutines, and that the split does not change a single bit of
// the result.
func TestThreads(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	defer SetThreads(SetThreads(0))
	withKernel(t, func(t *testing.T) {
		for _, s := range []shape{{150, 150, 100}, {3, 2000, 300}, {2000, 3, 300}, {100, 300, 520}} {
			if current().name == "go" && s.m*s.n*s.k > 1e7 {
				continue // the portable kernel is slow, and the other shapes split as well
			}
			for tr := 0; tr < 4; tr++ {
				a := operand{s.m, s.k, tr&1 != 0, 1}.build(rng, pattern)
				b := operand{s.k, s.n, tr&2 != 0, 0}.build(rng, pattern)
				c := operand{s.m, s.n, false, 0}.build(rng, padC)
				var first Matrix
				for _, n := range []int{1, 2, 3, 7} {
					SetThreads(n)
					got := clone(c)
					MatMul(got, a, b, 1, 1)
					if first.Data == nil {
						check(t, got, c, a, b, 1, 1)
						first = got
						continue
					}
					for i := range got.Data {
						if math.Float32bits(got.Data[i]) != math.Float32bits(first.Data[i]) {
							t.Fatalf("%v trans=%d: %d threads give C.Data[%d] = %v, 1 thread %v",
								s, tr, n, i, got.Data[i], first.Data[i])
						}
					}
				}
			}
		}
	})
}

// TestConcurrentCalls runs products from several goroutines at once: they share the workers and the one
// team that may pack B together, and each must get the result it gets alone.
func TestConcurrentCalls(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	defer SetThreads(SetThreads(2))
	a := operand{300, 200, false, 0}.build(rng, 0)
	b := operand{200, 250, false, 0}.build(rng, 0)
	want := NewMatrix(300, 250, nil)
	MatMul(want, a, b, 1, 0)
	done := make(chan error)
	for g := 0; g < 4; g++ {
		go func() {
			c := NewMatrix(300, 250, nil)
			for i := 0; i < 20; i++ {
				MatMul(c, a, b, 1, 0)
				for j := range c.Data {
					if c.Data[j] != want.Data[j] {
						done <- fmt.Errorf("call %d: C.Data[%d] = %v, want %v", i, j, c.Data[j], want.Data[j])
						return
					}
				}
			}
			done <- nil
		}()
	}
	for g := 0; g < 4; g++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func TestMatMulBatched(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	defer SetThreads(SetThreads(2))
	withKernel(t, func(t *testing.T) {
		for _, tc := range []struct {
			count   int
			s       shape
			broadA  bool // A shared by every batch (stride 0)
			transB  bool
			padding int // extra elements between batches
		}{
			{3, shape{13, 17, 31}, false, false, 0},
			{5, shape{8, 8, 8}, true, true, 7},
			{4, shape{100, 120, 90}, false, true, 3},
			{2, shape{200, 300, 100}, false, false, 0},
			{1, shape{5, 6, 7}, false, false, 0},
			{0, shape{5, 6, 7}, false, false, 0},
			{3, shape{5, 6, 0}, false, false, 0},
			{64, shape{16, 16, 16}, false, false, 1},
		} {
			t.Run(fmt.Sprintf("%dx%v", tc.count, tc.s), func(t *testing.T) {
				one := func(o operand) (Matrix, int) {
					m := o.build(rng, pattern)
					return m, len(m.Data) + tc.padding
				}
				a1, sa := one(operand{tc.s.m, tc.s.k, false, 1})
				b1, sb := one(operand{tc.s.k, tc.s.n, tc.transB, 0})
				c1, sc := one(operand{tc.s.m, tc.s.n, false, 0})
				if tc.broadA {
					sa = 0
				}
				fill := func(m Matrix, stride int) Matrix {
					m.Data = make([]float32, max(tc.count-1, 0)*stride+len(m.Data))
					for i := range m.Data {
						m.Data[i] = float32(rng.Float64()*2 - 1)
					}
					return m
				}
				a, b, c := fill(a1, sa), fill(b1, sb), fill(c1, sc)
				c0 := clone(c)
				MatMulBatched(tc.count, c, sc, a, sa, b, sb, 1, -1)
				for i := 0; i < tc.count; i++ {
					check(t, batch(c, i*sc), batch(c0, i*sc), batch(a, i*sa), batch(b, i*sb), 1, -1)
				}
			})
		}
	})
}

// TestRandom multiplies many random shapes, layouts and scalars (with a fixed seed) on every kernel.
func TestRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	scalars := []float32{0, 1, -1, 0.5, 3}
	defer SetThreads(SetThreads(0))
	n := 300
	if testing.Short() {
		n = 50
	}
	withKernel(t, func(t *testing.T) {
		for i := 0; i < n; i++ {
			s := shape{1 + rng.IntN(90), 1 + rng.IntN(90), rng.IntN(300)}
			a := operand{s.m, s.k, rng.IntN(2) == 0, rng.IntN(3)}.build(rng, pattern)
			b := operand{s.k, s.n, rng.IntN(2) == 0, rng.IntN(3)}.build(rng, pattern)
			c := operand{s.m, s.n, false, rng.IntN(3)}.build(rng, padC)
			alpha, beta := scalars[rng.IntN(len(scalars))], scalars[rng.IntN(len(scalars))]
			SetThreads(1 + rng.IntN(3))
			c0 := clone(c)
			MatMul(c, a, b, alpha, beta)
			check(t, c, c0, a, b, alpha, beta)
			if t.Failed() {
				t.Fatalf("case %d: %v transA=%v transB=%v alpha=%v beta=%v", i, s, a.Trans, b.Trans, alpha, beta)
			}
		}
	})
}

// TestReference checks the reference against the float64 product with the same tolerance.
func TestReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, s := range []shape{{1, 1, 1}, {13, 17, 31}, {4, 5, 0}, {20, 30, 1000}} {
		a := operand{s.m, s.k, true, 2}.build(rng, pattern)
		b := operand{s.k, s.n, false, 1}.build(rng, pattern)
		c := operand{s.m, s.n, false, 1}.build(rng, padC)
		c0 := clone(c)
		Reference(c, a, b, 2, -1)
		check(t, c, c0, a, b, 2, -1)
	}
}

// TestEmpty multiplies matrices with a zero dimension, laid out as a caller may build them (stride 0).
func TestEmpty(t *testing.T) {
	c := NewMatrix(2, 3, []float32{1, 2, 3, 4, 5, 6})
	MatMul(c, NewMatrix(2, 0, nil), NewMatrix(0, 3, nil), 1, 2)
	if fmt.Sprint(c.Data) != "[2 4 6 8 10 12]" {
		t.Errorf("K = 0, beta = 2: C = %v", c.Data)
	}
	MatMul(NewMatrix(0, 3, nil), NewMatrix(0, 4, nil), NewMatrix(4, 3, nil), 1, 0)
	MatMul(NewMatrix(2, 0, nil), NewMatrix(2, 4, nil), NewMatrix(4, 0, nil), 1, 0)
	MatMulBatched(3, NewMatrix(2, 3, make([]float32, 18)), 6, NewMatrix(2, 0, nil), 0, NewMatrix(0, 3, nil), 0, 1, 0)
}

func TestShapeErrors(t *testing.T) {
	m := func(r, c int) Matrix { return NewMatrix(r, c, nil) }
	for _, tc := range []struct {
		name    string
		c, a, b Matrix
		want    string
	}{
		{"inner", m(2, 3), m(2, 4), m(5, 3), "shapes do not match"},
		{"rows", m(3, 3), m(2, 4), m(4, 3), "shapes do not match"},
		{"cols", m(2, 4), m(2, 4), m(4, 3), "shapes do not match"},
		{"stride", m(2, 3), Matrix{Data: make([]float32, 8), Rows: 2, Cols: 4, Stride: 3}, m(4, 3), "A (2x4, trans=false) has stride 3"},
		{"short", m(2, 3), Matrix{Data: make([]float32, 7), Rows: 2, Cols: 4, Stride: 4}, m(4, 3), "A (2x4, stride 4, trans=false, offset 0) needs 8 elements, has 7"},
		{"trans C", m(3, 2).T(), m(2, 4), m(4, 3), "C must not be transposed"},
		{"negative", Matrix{Rows: -1, Cols: 3, Stride: 3}, Matrix{Rows: -1, Cols: 0, Stride: 1}, m(0, 3), "negative shape"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, tc.want) {
					t.Fatalf("panic %v, want one containing %q", r, tc.want)
				}
			}()
			MatMul(tc.c, tc.a, tc.b, 1, 0)
		})
	}
	for _, tc := range []struct {
		name    string
		strideC int
		want    string
	}{
		{"short B", 6, "B (4x3, stride 3, trans=false, offset 12) needs 24 elements, has 12"},
		{"overlap", 5, "batches of C overlap: stride 5 is less than the 6 elements one spans"},
	} {
		t.Run("batched/"+tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, tc.want) {
					t.Fatalf("panic %v, want one containing %q", r, tc.want)
				}
			}()
			MatMulBatched(2, NewMatrix(2, 3, make([]float32, 12)), tc.strideC, m(2, 4), 0, m(4, 3), 12, 1, 0)
		})
	}
}

func TestNoAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	defer SetThreads(SetThreads(2))
	for _, s := range []shape{{20, 30, 40}, {200, 200, 200}} {
		a, b, c := NewMatrix(s.m, s.k, nil), NewMatrix(s.k, s.n, nil), NewMatrix(s.m, s.n, nil)
		MatMul(c, a, b, 1, 0)
		if n := testing.AllocsPerRun(50, func() { MatMul(c, a, b, 1, 0) }); n > 0 {
			t.Errorf("%v: %v allocations per call", s, n)
		}
	}
}

// TestSetKernel checks the order of Kernels (the ordered kernels, the portable go kernel last of them,
// then those that are not ordered), the default (the first, or the one KernelEnv names) and SetKernel.
func TestSetKernel(t *testing.T) {
	ks := Kernels()
	last := -1
	for i, k := range ks {
		if k.Ordered() {
			if last != i-1 {
				t.Fatalf("kernels %v: the ordered ones do not come first", ks)
			}
			last = i
		}
		if k.Ordered() == k.bf16 {
			t.Fatalf("%v: ordered %v, bf16 %v", k, k.Ordered(), k.bf16)
		}
	}
	if last < 0 || ks[last].Name() != "go" {
		t.Fatalf("kernels %v: the last ordered kernel is not the portable go kernel", ks)
	}
	def := ks[0]
	for _, k := range ks {
		if k.Name() == os.Getenv(KernelEnv) {
			def = k
		}
	}
	if CurrentKernel() != def {
		t.Fatalf("default kernel %v, want %v (%s=%q)", CurrentKernel(), def, KernelEnv, os.Getenv(KernelEnv))
	}
	prev := SetKernel(ks[len(ks)-1])
	if CurrentKernel() != ks[len(ks)-1] || prev != def {
		t.Fatalf("SetKernel did not take")
	}
	SetKernel(nil)
	if CurrentKernel() != def {
		t.Fatalf("SetKernel(nil) did not restore the default")
	}
	func() {
		defer func() {
			if r := recover(); r == nil {
				t.Fatalf("SetKernel of a kernel not of this machine did not panic")
			}
		}()
		SetKernel(withISA(ks[0], isa{}, "-test"))
	}()
	t.Logf("kernels: %v", ks)
}

func ExampleMatMul() {
	a := NewMatrix(2, 3, []float32{1, 2, 3, 4, 5, 6})
	b := NewMatrix(3, 2, []float32{1, 0, 0, 1, 1, 1})
	c := NewMatrix(2, 2, nil)
	MatMul(c, a, b, 1, 0)
	fmt.Println(c.Data)
	// A*A^T: the transpose is a view, not a copy.
	MatMul(c, a, a.T(), 1, 0)
	fmt.Println(c.Data)
	// Output:
	// [4 5 10 11]
	// [14 32 32 77]
}

// FuzzMatMul checks products of fuzzed shapes, layouts, scalars and thread counts on every kernel.
func FuzzMatMul(f *testing.F) {
	f.Add(uint8(13), uint8(17), uint16(31), uint8(0), uint64(1))
	f.Add(uint8(1), uint8(200), uint16(1), uint8(0xff), uint64(2))
	f.Add(uint8(29), uint8(33), uint16(513), uint8(0x5a), uint64(3))
	f.Add(uint8(0), uint8(3), uint16(0), uint8(0x10), uint64(4))
	scalars := []float32{1, 0, -1, 0.5}
	f.Fuzz(func(t *testing.T, m, n uint8, k uint16, flags uint8, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, 0))
		s := shape{int(m), int(n), int(k % 600)}
		alpha, beta := scalars[flags>>4&3], scalars[flags>>6&3]
		defer SetThreads(SetThreads(1 + int(flags>>2&3)))
		for _, kern := range Kernels() {
			prev := SetKernel(kern)
			a := operand{s.m, s.k, flags&1 != 0, int(seed % 3)}.build(rng, pattern)
			b := operand{s.k, s.n, flags&2 != 0, int(seed / 3 % 3)}.build(rng, pattern)
			c := operand{s.m, s.n, false, int(seed / 9 % 3)}.build(rng, padC)
			c0 := clone(c)
			MatMul(c, a, b, alpha, beta)
			SetKernel(prev)
			check(t, c, c0, a, b, alpha, beta)
			if t.Failed() {
				t.Fatalf("kernel %v, %v, transA=%v transB=%v alpha=%v beta=%v", kern, s, a.Trans, b.Trans, alpha, beta)
			}
		}
	})
}

// TestInterleave6 checks the six-row strip packer of the AVX2 kernel, in assembly where the machine has
// it and in Go, for lengths around its 16-step unit.
func TestInterleave6(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, h := range []isa{Kernels()[0].isa, {}} {
		for _, kc := range []int{1, 15, 16, 17, 48, 100, 384} {
			var src [16][]float32
			for r := 0; r < 6; r++ {
				src[r] = make([]float32, kc)
				for p := range src[r] {
					src[r][p] = rng.Float32()
				}
			}
			dst := make([]float32, 6*kc+1)
			dst[6*kc] = 42
			h.interleave6(dst, &src, kc, 4*6*kc)
			for p := 0; p < kc; p++ {
				for r := 0; r < 6; r++ {
					if dst[6*p+r] != src[r][p] {
						t.Fatalf("%+v kc=%d: dst[%d] = %v, want row %d step %d = %v", h, kc, 6*p+r, dst[6*p+r], r, p, src[r][p])
					}
				}
			}
			if dst[6*kc] != 42 {
				t.Fatalf("%+v kc=%d: wrote past the strip", h, kc)
			}
		}
	}
}

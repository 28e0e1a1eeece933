package linalg

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"slices"
	"testing"
)

// eighFloatsOf is the inverse of eighScalarsOf: x itself when T is real, else the real and imaginary
// parts of x's elements side by side in a new slice.
func eighFloatsOf[T Scalar](x []T) []float64 {
	if y, ok := any(x).([]float64); ok {
		return y
	}
	f := make([]float64, 2*len(x))
	for i, v := range x {
		f[2*i], f[2*i+1] = re(v), im(v)
	}
	return f
}

// esRandomUnitary returns an n×n unitary matrix, the product of n Householder reflections I − 2·h·hᴴ
// with random complex unit vectors h.
func esRandomUnitary(r *rand.Rand, n int) []complex128 {
	q := make([]complex128, n*n)
	for i := 0; i < n; i++ {
		q[i*n+i] = 1
	}
	for range n {
		h := randomComplex(r, n)
		nrm := complex(norm2(h), 0)
		for i := range h {
			h[i] /= nrm
		}
		// q ← q·(I − 2hhᴴ)
		for i := 0; i < n; i++ {
			row := q[i*n : i*n+n]
			var dot complex128
			for j, v := range row {
				dot += v * h[j]
			}
			for j := range row {
				row[j] -= 2 * dot * cmplx.Conj(h[j])
			}
		}
	}
	return q
}

// esRandomHermitian returns an n×n Hermitian matrix with real and imaginary parts uniform in [−1, 1)
// (real diagonal).
func esRandomHermitian(r *rand.Rand, n int) []complex128 {
	a := make([]complex128, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			x := complex(2*r.Float64()-1, 2*r.Float64()-1)
			a[i*n+j], a[j*n+i] = x, cmplx.Conj(x)
		}
		a[i*n+i] = complex(2*r.Float64()-1, 0)
	}
	return a
}

// esWithSpectrum returns q·diag(d)·qᴴ for a random unitary q.
func esWithSpectrum(r *rand.Rand, d []float64) []complex128 {
	n := len(d)
	q := esRandomUnitary(r, n)
	qd := slices.Clone(q)
	for i := range qd {
		qd[i] *= complex(d[i%n], 0)
	}
	return matMul(qd, esAdjoint(q, n, n), n, n, n)
}

// esPhaseNormalized returns x/‖x‖ multiplied by the unit scalar that makes its first component of
// largest magnitude real and positive: the phase convention applied to an exact eigenvector.
func esPhaseNormalized(x []complex128) []complex128 {
	y := slices.Clone(x)
	nrm := norm2(y)
	best, big := 0, -1.0
	for i, v := range y {
		if cmplx.Abs(v) > big {
			best, big = i, cmplx.Abs(v)
		}
	}
	f := cmplx.Conj(y[best]) / complex(big*nrm, 0)
	for i := range y {
		y[i] *= f
	}
	y[best] = complex(big/nrm, 0)
	return y
}

func TestEighComplexKnown(t *testing.T) {
	type eigCase struct {
		name string
		a    []complex128 // full Hermitian, n×n
		w    []float64
		vecs [][]complex128 // exact eigenvectors, any scale and phase
		ties bool           // some have components of equal magnitude: compared up to phase
	}
	var cases []eigCase
	// [[a, b], [conj b, d]]: λ = ((a+d) ∓ √((a−d)² + 4|b|²))/2, eigenvector (b, λ − a), or
	// (λ − d, conj b), whichever is the larger (the other may be lost to cancellation).
	for _, c := range []struct {
		a, d float64
		b    complex128
	}{{3, 0, 2 + 1i}, {1, 1, 1i}, {-2, 5, 0.5 - 3i}, {0, 0, -1 - 1i}, {1e-3, 2, 1e-4i}} {
		disc := math.Sqrt((c.a-c.d)*(c.a-c.d) + 4*real(c.b*cmplx.Conj(c.b)))
		w := []float64{(c.a + c.d - disc) / 2, (c.a + c.d + disc) / 2}
		var vecs [][]complex128
		for _, l := range w {
			x, y := []complex128{c.b, complex(l-c.a, 0)}, []complex128{complex(l-c.d, 0), cmplx.Conj(c.b)}
			if norm2(y) > norm2(x) {
				x = y
			}
			vecs = append(vecs, x)
		}
		cases = append(cases, eigCase{
			name: fmt.Sprintf("2x2 a=%g d=%g b=%v", c.a, c.d, c.b),
			a:    []complex128{complex(c.a, 0), c.b, cmplx.Conj(c.b), complex(c.d, 0)},
			w:    w, vecs: vecs,
		})
	}
	// The Pauli matrices: eigenvalues −1 and 1.
	cases = append(cases,
		eigCase{"pauli x", []complex128{0, 1, 1, 0}, []float64{-1, 1}, [][]complex128{{1, -1}, {1, 1}}, true},
		eigCase{"pauli y", []complex128{0, -1i, 1i, 0}, []float64{-1, 1}, [][]complex128{{1, -1i}, {1, 1i}}, true},
		eigCase{"pauli z", []complex128{1, 0, 0, -1}, []float64{-1, 1}, [][]complex128{{0, 1}, {1, 0}}, false},
	)
	// A complex diagonal unitary similarity of a real tridiagonal Toeplitz matrix (α on the diagonal,
	// β beside it): eigenvalues α + 2β·cos(kπ/(n+1)), eigenvectors (p_j·sin(jkπ/(n+1)))_j.
	const n, alpha, beta = 9, 0.5, -1.5
	p := make([]complex128, n)
	for j := range p {
		p[j] = cmplx.Rect(1, 0.7*float64(j*j)+0.3)
	}
	toe := make([]complex128, n*n)
	for i := 0; i < n; i++ {
		toe[i*n+i] = alpha
		if i+1 < n {
			toe[(i+1)*n+i] = p[i+1] * beta * cmplx.Conj(p[i])
			toe[i*n+i+1] = cmplx.Conj(toe[(i+1)*n+i])
		}
	}
	tc := eigCase{name: "toeplitz with phases", a: toe, ties: true}
	for k := 1; k <= n; k++ {
		theta := float64(k) * math.Pi / (n + 1)
		tc.w = append(tc.w, alpha+2*beta*math.Cos(theta))
		vec := make([]complex128, n)
		for j := range vec {
			vec[j] = p[j] * complex(math.Sin(float64(j+1)*theta), 0)
		}
		tc.vecs = append(tc.vecs, vec)
	}
	cases = append(cases, tc)

	for _, tc := range cases {
		n := int(math.Sqrt(float64(len(tc.a))))
		for _, lower := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/lower=%v", tc.name, lower), func(t *testing.T) {
				w, v, ok := EighComplex(esTriangle(tc.a, n, lower), n, lower, true)
				if !ok {
					t.Fatal("not ok")
				}
				esCheckEigh(t, tc.a, n, w, v)
				tol := esSlack * float64(n) * esEps
				if d := maxDiff(w, tc.w); d > tol*esMaxAbs(tc.a) {
					t.Errorf("w = %v, want %v", w, tc.w)
				}
				for j, want := range tc.vecs {
					// The eigenvalues are simple (gaps at least 1/10 of the matrix's size here), so
					// the vector is the exact one times a phase: the one of the convention unless
					// ties make that depend on rounding.
					want = esPhaseNormalized(want)
					got := esColumn(v, n, n, j)
					if tc.ties {
						var dot complex128
						for i := range got {
							dot += cmplx.Conj(want[i]) * got[i]
						}
						if math.Abs(cmplx.Abs(dot)-1) > 10*tol {
							t.Errorf("eigenvector %d = %v, want a multiple of %v", j, got, want)
						}
					} else if d := maxDiff(got, want); d > 10*tol {
						t.Errorf("eigenvector %d = %v, want %v", j, got, want)
					}
				}
			})
		}
	}
}

// TestEighComplexMatchesReal: a real symmetric matrix gives EighFloat's eigenvalues to rounding, and its
// eigenvectors (the conventions agree on real vectors), and a diagonal unitary similarity D·A·Dᴴ
// gives the same eigenvalues with eigenvectors D·v up to the phase convention.
func TestEighComplexMatchesReal(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, n := range []int{1, 2, 3, 7, 16, 33} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			a := esRandomSymmetric(r, n)
			wr, vr, _ := EighFloat(a, n, true, true)
			ac := make([]complex128, n*n)
			for i, x := range a {
				ac[i] = complex(x, 0)
			}
			w, v, ok := EighComplex(ac, n, true, true)
			if !ok {
				t.Fatal("not ok")
			}
			esCheckEigh(t, ac, n, w, v)
			tol := esSlack * float64(n) * esEps * esMaxAbs(a)
			if d := maxDiff(w, wr); d > tol {
				t.Errorf("eigenvalues differ from EighFloat's by %g", d)
			}
			gap := 1.0
			for j := 1; j < n; j++ {
				gap = min(gap, w[j]-w[j-1])
			}
			for j := 0; j < n; j++ {
				want := make([]complex128, n)
				for i := range want {
					want[i] = complex(vr[i*n+j], 0)
				}
				// An eigenvector's error is that of the matrix over the gap to the others.
				if d := maxDiff(esColumn(v, n, n, j), want); d > tol/gap {
					t.Errorf("eigenvector %d differs from EighFloat's by %g (gap %g)", j, d, gap)
				}
			}

			dg := make([]complex128, n)
			for i := range dg {
				dg[i] = cmplx.Rect(1, 2*math.Pi*r.Float64())
			}
			b := slices.Clone(ac)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					b[i*n+j] *= dg[i] * cmplx.Conj(dg[j])
				}
			}
			wb, vb, ok := EighComplex(b, n, false, true)
			if !ok {
				t.Fatal("D·A·Dᴴ: not ok")
			}
			esCheckEigh(t, b, n, wb, vb)
			if d := maxDiff(wb, w); d > tol {
				t.Errorf("D·A·Dᴴ: eigenvalues differ by %g", d)
			}
			for j := 0; j < n; j++ {
				want := esColumn(v, n, n, j)
				for i := range want {
					want[i] *= dg[i]
				}
				if d := maxDiff(esColumn(vb, n, n, j), esPhaseNormalized(want)); d > tol/gap {
					t.Errorf("D·A·Dᴴ: eigenvector %d is not D·v (diff %g)", j, d)
				}
			}
		})
	}
}

func TestEighComplexRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for _, n := range esRandomSizes() {
		a := esRandomHermitian(r, n)
		// The same with junk in the diagonal's imaginary parts, which are not read.
		b := slices.Clone(a)
		for i := 0; i < n; i++ {
			b[i*n+i] = complex(real(b[i*n+i]), [3]float64{math.NaN(), math.Inf(1), 3}[i%3])
		}
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			esCheckEighModes(t, EighComplex, a, n)
			w, v, _ := EighComplex(a, n, true, true)
			if wb, vb, ok := EighComplex(b, n, true, true); !ok || !slices.Equal(w, wb) || !slices.Equal(v, vb) {
				t.Errorf("imaginary parts on the diagonal: ok = %v, results differ", ok)
			}
		})
	}
}

func TestEighComplexHard(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	identity := esIdentity[complex128]
	scaled := func(a []complex128, f float64) []complex128 {
		b := slices.Clone(a)
		for i := range b {
			b[i] *= complex(f, 0)
		}
		return b
	}
	base := esRandomHermitian(r, 6)
	baseW, baseV, _ := EighComplex(base, 6, true, true)

	for _, tc := range []struct {
		name  string
		a     []complex128
		w     []float64 // expected eigenvalues, or nil
		exact bool      // w and v (the identity) exactly
	}{
		{"zero", make([]complex128, 25), make([]float64, 5), true},
		{"identity", identity(7), []float64{1, 1, 1, 1, 1, 1, 1}, true},
		{"repeated", esWithSpectrum(r, []float64{2, -1, 2, 2, -1, 0.5}), []float64{-1, -1, 0.5, 2, 2, 2}, false},
		{"all equal", esWithSpectrum(r, []float64{3, 3, 3, 3, 3}), []float64{3, 3, 3, 3, 3}, false},
		{"huge", scaled(base, 1e300), nil, false},
		{"tiny", scaled(base, 1e-300), nil, false},
		{"graded", esWithSpectrum(r, []float64{1, 1e-8, 1e-16, -1e-12}), []float64{-1e-12, 1e-16, 1e-8, 1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := int(math.Sqrt(float64(len(tc.a))))
			w, v, ok := EighComplex(tc.a, n, true, true)
			if !ok {
				t.Fatal("not ok")
			}
			if tc.exact {
				if !slices.Equal(w, tc.w) || !slices.Equal(v, identity(n)) {
					t.Errorf("w = %v, v = %v, want exactly %v and the identity", w, v, tc.w)
				}
				return
			}
			// Checked on the matrix scaled into [1/2, 1) as the function scales it.
			_, e := math.Frexp(esMaxAbs(tc.a))
			esCheckEigh(t, scaled(tc.a, math.Ldexp(1, -e)), n, scaled64(w, math.Ldexp(1, -e)), v)
			if tc.w != nil {
				if d := maxDiff(w, tc.w); d > esSlack*float64(n)*esEps*esMaxAbs(tc.a) {
					t.Errorf("w = %v, want %v", w, tc.w)
				}
			}
		})
	}
	// A power-of-two scaling changes the eigenvalues by that power exactly, the vectors not at all.
	for _, f := range []float64{0x1p990, 0x1p-990} {
		w, v, ok := EighComplex(scaled(base, f), 6, true, true)
		if !ok || !slices.Equal(w, scaled64(baseW, f)) || !slices.Equal(v, baseV) {
			t.Errorf("scaled by %g: not the scaled results", f)
		}
	}

	for _, bad := range []complex128{complex(math.NaN(), 0), complex(0, math.Inf(-1)), complex(math.Inf(1), 1)} {
		for _, lower := range []bool{true, false} {
			a := slices.Clone(base)
			a[4*6+1], a[1*6+4] = bad, bad
			for _, vectors := range []bool{true, false} {
				w, v, ok := EighComplex(a, 6, lower, vectors)
				if ok || !esAllNaN(eighFloatsOf(v)) || !esAllNaN(w) {
					t.Errorf("%v, lower=%v, vectors=%v: ok or results not NaN", bad, lower, vectors)
				}
			}
			// Off the named triangle it is not read.
			b := slices.Clone(base)
			if lower {
				b[1*6+4] = bad
			} else {
				b[4*6+1] = bad
			}
			if _, _, ok := EighComplex(b, 6, lower, true); !ok {
				t.Errorf("%v in the unread triangle made it fail", bad)
			}
		}
	}
	if w, v, ok := EighComplex(nil, 0, true, true); !ok || len(w) != 0 || len(v) != 0 {
		t.Error("n = 0: want empty results and ok")
	}
}

// scaled64 returns x with each element multiplied by f.
func scaled64(x []float64, f float64) []float64 {
	y := slices.Clone(x)
	for i := range y {
		y[i] *= f
	}
	return y
}

func BenchmarkEighComplex(b *testing.B) {
	const n = 128
	a := esRandomHermitian(rand.New(rand.NewPCG(27, 28)), n)
	for b.Loop() {
		EighComplex(a, n, true, true)
	}
}

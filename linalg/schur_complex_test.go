package linalg

import (
	"encoding/binary"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"
)

// The tolerances are those of schur_test.go (c·n·ε·‖a‖ with c = schurTC), which hold for the complex
// reduction as for the real one: its reflections are unitary to within a few ε each.

// schurCTCheck runs SchurComplex (with and without vectors) and EigComplex (both sides, and each alone) on
// a and checks what holds for any input: ‖a - z·t·zᴴ‖ ≤ c·n·ε·‖a‖, ‖zᴴz - I‖ ≤ c·n·ε, t upper triangular,
// w = diag(t) bit for bit, the same bits from every call, and the eigenvector residuals, norms and phases. It
// returns the worst ratios to n·ε·‖a‖ (Schur, unitarity, vectors).
func schurCTCheck(t *testing.T, a []complex128, n int, c float64) (worst [3]float64) {
	t.Helper()
	a0 := append([]complex128(nil), a...)
	tt, z, w, ok := SchurComplex(a, n, true)
	if !ok {
		t.Fatalf("SchurComplex: not ok")
	}
	if !schurTSameBits(a, a0) {
		t.Fatalf("SchurComplex modified a")
	}
	as, e, tol, ratios := schurTBounds(t, a, tt, z, n, c)
	worst[0], worst[1] = ratios[0], ratios[1]
	schurCTTriangular(t, tt, w, n)
	t2, z2, w2, ok2 := SchurComplex(a, n, false)
	if !ok2 || z2 != nil || !schurTSameBits(t2, tt) || !schurTSameBits(w2, w) {
		t.Errorf("vectors=false: ok %v, z nil %v, or t, w differ from vectors=true", ok2, z2 == nil)
	}
	ew, vl, vr, ok3 := EigComplex(a, n, true, true)
	if !ok3 || !schurTSameBits(ew, w) {
		t.Fatalf("EigComplex: ok %v, or eigenvalues differ from SchurComplex's", ok3)
	}
	lam := make([]complex128, n)
	for i := range w {
		lam[i] = schurLdexp(w[i], -e)
	}
	w1 := schurTVectorCheck(t, as, n, lam, vr, false, false, tol)
	w3 := schurTVectorCheck(t, as, n, lam, vl, true, false, tol)
	worst[2] = max(w1, w3) / (float64(max(n, 1)) * schurTE)
	_, vl2, vr2, _ := EigComplex(a, n, false, true)
	_, vl3, vr3, _ := EigComplex(a, n, true, false)
	if vl2 != nil || vr3 != nil || !schurTSameBits(vr2, vr) || !schurTSameBits(vl3, vl) {
		t.Errorf("EigComplex with one side only: nil where not asked, else the same vectors bit for bit")
	}
	return worst
}

// schurCTTriangular checks that t is upper triangular, zero below the diagonal, with w on its diagonal bit
// for bit.
func schurCTTriangular(t *testing.T, tt, w []complex128, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			if tt[i*n+j] != 0 {
				t.Fatalf("t[%d,%d] = %v below the diagonal", i, j, tt[i*n+j])
			}
		}
		if !schurTSameBits(w[i:i+1], tt[i*n+i:i*n+i+1]) {
			t.Fatalf("w[%d] = %v, t[%d,%d] = %v", i, w[i], i, i, tt[i*n+i])
		}
	}
}

// schurCTMatch pairs each wanted eigenvalue with the nearest unused computed one and returns the largest
// distance.
func schurCTMatch(w, want []complex128) float64 {
	wr, wi := make([]float64, len(w)), make([]float64, len(w))
	for i, v := range w {
		wr[i], wi[i] = real(v), imag(v)
	}
	return schurTMatch(wr, wi, want)
}

// schurCTPoly returns the coefficients c₀..c_{k-1} of the monic polynomial with the given roots,
// ∏(x - r) = x^k + c_{k-1}·x^{k-1} + … + c₀.
func schurCTPoly(roots []complex128) []complex128 {
	c := []complex128{1} // c[i] is the coefficient of xⁱ
	for _, r := range roots {
		next := make([]complex128, len(c)+1)
		for i, v := range c {
			next[i+1] += v
			next[i] -= r * v
		}
		c = next
	}
	return c[:len(roots)]
}

// schurCTCompanion is the companion matrix of the monic polynomial with the coefficients c: its first row
// -c_{k-1}, …, -c₀, ones on the subdiagonal. Its eigenvalues are the polynomial's roots.
func schurCTCompanion(c []complex128) []complex128 {
	k := len(c)
	a := make([]complex128, k*k)
	for j := 0; j < k; j++ {
		a[j] = -c[k-1-j]
		if j+1 < k {
			a[(j+1)*k+j] = 1
		}
	}
	return a
}

// TestSchurComplexKnownAnswers checks eigenvalues known in closed form, and the Schur form itself where the
// input already is one.
func TestSchurComplexKnownAnswers(t *testing.T) {
	// Q = I - q·qᴴ/4, q = (1+i, 1-i, 0, 1+i, 1-i), ‖q‖² = 8: a unitary reflection, exact in float64, and so is
	// Q·D·Qᴴ for the diagonal D below (all products are of small dyadic numbers).
	q := []complex128{1 + 1i, 1 - 1i, 0, 1 + 1i, 1 - 1i}
	house := make([]complex128, 25)
	for i := 0; i < 5; i++ {
		for j := 0; j < 5; j++ {
			house[i*5+j] = -q[i] * cmplx.Conj(q[j]) / 4
		}
		house[i*5+i]++
	}
	diag := []complex128{3, -1 + 2i, 2i, 0.5 - 0.5i, -2}
	d := make([]complex128, 25)
	for i, v := range diag {
		d[i*5+i] = v
	}
	similar := matMul(matMul(house, d, 5, 5, 5), schurTConjTranspose(house, 5), 5, 5, 5)
	roots := []complex128{1 + 1i, 2 - 1i, -1, 3i, -2}
	// A real matrix (seeded): as a complex one, its eigenvalues are SchurFloat's.
	real12 := schurTRandom(rand.New(rand.NewPCG(21, 22)), 12)
	_, _, wr12, wi12, _ := SchurFloat(real12, 12, false)
	want12 := make([]complex128, 12)
	for i := range want12 {
		want12[i] = complex(wr12[i], wi12[i])
	}
	s3 := math.Sqrt(3) / 2
	cases := []struct {
		name string
		a    []complex128
		n    int
		want []complex128
		// tol is the bound on the distance of the eigenvalues from want, in units of n·ε·‖a‖_F.
		tol float64
		// exact: the input is already in Schur form, so t = a and z = I bit for bit.
		exact bool
	}{
		// An upper triangular matrix's eigenvalues are its diagonal; it is its own Schur form.
		{"upper triangular", []complex128{
			4 + 1i, 1, -2i, 3 - 1i,
			0, -1, 5 + 2i, 2,
			0, 0, 2.5i, 7,
			0, 0, 0, -3 + 0.5i,
		}, 4, []complex128{4 + 1i, -1, 2.5i, -3 + 0.5i}, 0, true},
		// [[1, i], [i, 1]]: trace 2, determinant 1 - i² = 2, so λ² - 2λ + 2 = 0 and λ = 1 ± i.
		{"2×2 complex symmetric", []complex128{1, 1i, 1i, 1}, 2, []complex128{1 + 1i, 1 - 1i}, schurTC, false},
		// [[2i, 1], [-3, 2i]]: λ = 2i ± sqrt(-3) = (2 ± √3)·i.
		{"2×2 imaginary", []complex128{2i, 1, -3, 2i}, 2,
			[]complex128{complex(0, 2+math.Sqrt(3)), complex(0, 2-math.Sqrt(3))}, schurTC, false},
		// The companion matrix of ∏(x - r) over Gaussian-integer roots (coefficients exact). Its roots are
		// simple with condition numbers up to about 10², hence 10³.
		{"companion", schurCTCompanion(schurCTPoly(roots)), 5, roots, 1e3, false},
		// Q·D·Qᴴ is normal: its eigenvalues, D's, move by at most the backward error.
		{"unitary similarity of a diagonal", similar, 5, diag, schurTC, false},
		// The cyclic permutation times i: λ³ = i³ = -i, λ ∈ i·{1, e^(±2πi/3)}.
		{"cyclic times i", []complex128{0, 1i, 0, 0, 0, 1i, 1i, 0, 0}, 3,
			[]complex128{1i, complex(-s3, -0.5), complex(s3, -0.5)}, schurTC, false},
		// Real input agrees with SchurFloat's eigenvalues as a multiset. Both are backward stable; the
		// eigenvalues of a random 12×12 have condition numbers of at most about 10, hence 10².
		{"real input", schurToComplex(real12), 12, want12, 1e2, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			schurCTCheck(t, c.a, c.n, schurTC)
			tt, z, w, _ := SchurComplex(c.a, c.n, true)
			bound := c.tol * float64(c.n) * schurTE * schurTFrob(c.a)
			if dist := schurCTMatch(w, c.want); dist > bound {
				t.Errorf("eigenvalues %v, want %v: distance %.3g > %.3g", w, c.want, dist, bound)
			}
			if c.exact {
				schurTUnchanged(t, c.a, tt, z, c.n)
			}
		})
	}
}

// TestEigComplexHandComputed checks vectors computed by hand. [[0, 1], [-1, 0]] has eigenvalues ±i with
// right eigenvectors (1, ±i)/√2 (a·v = (±i, -1)/√2 = ±i·v), both components of magnitude 1/√2, so the first
// is the one made real and positive; the matrix is normal, so the left vectors are the same. The
// triangular [[2, 1], [0, 1+i]] has the right vectors (1, 0) for 2 and (1, -1+i)/√3 for 1+i, whose
// component of largest magnitude is the second: turned by conj(-1+i)/√2 it becomes ((-1-i)/√6, 2/√6).
func TestEigComplexHandComputed(t *testing.T) {
	h := 1 / math.Sqrt2
	w, vl, vr, ok := EigComplex([]complex128{0, 1, -1, 0}, 2, true, true)
	if !ok {
		t.Fatal("not ok")
	}
	for j := 0; j < 2; j++ {
		want := []complex128{complex(h, 0), complex(0, h)}
		switch {
		case cmplx.Abs(w[j]-1i) < 4*schurTE:
		case cmplx.Abs(w[j]+1i) < 4*schurTE:
			want[1] = complex(0, -h)
		default:
			t.Fatalf("eigenvalue %v, want ±i", w[j])
		}
		for i := 0; i < 2; i++ {
			if cmplx.Abs(vr[i*2+j]-want[i]) > 4*schurTE || cmplx.Abs(vl[i*2+j]-want[i]) > 4*schurTE {
				t.Errorf("vectors for %v: right (%v, %v), left (%v, %v), want %v", w[j], vr[j], vr[2+j], vl[j], vl[2+j], want)
			}
		}
		if imag(vr[j]) != 0 || imag(vl[j]) != 0 {
			t.Errorf("first components %v, %v are not real", vr[j], vl[j])
		}
	}
	r6 := 1 / math.Sqrt(6)
	w, _, vr, _ = EigComplex([]complex128{2, 1, 0, 1 + 1i}, 2, false, true)
	want := []complex128{1, complex(-r6, -r6), 0, complex(2*r6, 0)} // row-major, the vectors in columns
	if w[0] != 2 || w[1] != 1+1i || maxDiff(vr, want) > 4*schurTE {
		t.Errorf("w = %v, vr = %v, want (2, 1+i) and %v", w, vr, want)
	}
}

// TestSchurComplexRandom checks the properties on seeded random matrices of sizes 1..30 and 80, entries
// with standard normal real and imaginary parts.
func TestSchurComplexRandom(t *testing.T) {
	random := func(r *rand.Rand, n int) []complex128 { return randomComplex(r, n*n) }
	schurTRandomSizes(t, rand.New(rand.NewPCG(31, 32)), random, func(t *testing.T, a []complex128, n int) [3]float64 {
		return schurCTCheck(t, a, n, schurTC)
	})
}

// TestSchurComplexPowerOfTwoScaling: scaling a by 2ᵏ scales t and w by 2ᵏ and leaves z and the eigenvectors
// alone, bit for bit, even at 2^±1000.
func TestSchurComplexPowerOfTwoScaling(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	for _, n := range []int{1, 2, 5, 12} {
		a := randomComplex(r, n*n)
		t0, z0, _, _ := SchurComplex(a, n, true)
		_, vl0, vr0, _ := EigComplex(a, n, true, true)
		for _, k := range []int{-1000, -3, 7, 1000} {
			s := make([]complex128, len(a))
			for i, v := range a {
				s[i] = schurLdexp(v, k)
			}
			tk, zk, wk, ok := SchurComplex(s, n, true)
			ew, vlk, vrk, eok := EigComplex(s, n, true, true)
			if !ok || !eok || !schurTSameBits(zk, z0) || !schurTSameBits(vrk, vr0) || !schurTSameBits(vlk, vl0) ||
				!schurTSameBits(ew, wk) {
				t.Fatalf("n=%d k=%d: ok %v %v, or z, the eigenvectors or the eigenvalues changed", n, k, ok, eok)
			}
			for i := range tk {
				if tk[i] != schurLdexp(t0[i], k) {
					t.Fatalf("n=%d k=%d: t[%d] = %v, want %v", n, k, i, tk[i], schurLdexp(t0[i], k))
				}
			}
		}
	}
}

// TestSchurComplexHard covers the special and the difficult: zero, identity, defective, cyclic, graded
// and extreme magnitudes.
func TestSchurComplexHard(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	jordan, cyclic := schurTJordan[complex128], schurTCyclic[complex128]
	scaled := func(n int, f float64) []complex128 { return schurTTimes(randomComplex(r, n*n), f) }
	id := schurTIdentity[complex128](6)
	graded := make([]complex128, 64)
	for i := 0; i < 8; i++ {
		for j := 0; j < 8; j++ {
			graded[i*8+j] = complex(math.Pow(10, -float64(i+j)), 0) * complex(float64(1+(i*3+j*5)%7), float64((i+2*j)%5-2))
		}
	}
	cases := []schurTCase[complex128]{
		{"zero", make([]complex128, 49), 7},
		{"identity", id, 6},
		{"jordan 6", jordan(6, 2-1i), 6},
		{"jordan 30", jordan(30, 1i), 30},
		{"jordan 12 transposed", transposeOf(jordan(12, 0.5+0.5i), 12, 12), 12},
		{"nilpotent jordan 20", jordan(20, 0), 20},
		{"cyclic 3", cyclic(3, 1), 3},
		{"cyclic 4", cyclic(4, 1), 4},
		{"cyclic 7 times i", cyclic(7, 1i), 7},
		{"cyclic 16 times e^(iπ/5)", cyclic(16, cmplx.Exp(complex(0, math.Pi/5))), 16},
		{"graded", graded, 8},
		{"entries ~1e300", scaled(9, 1e300), 9},
		{"entries ~1e-300", scaled(9, 1e-300), 9},
		{"entries ~1e-310 (subnormal)", scaled(5, 1e-310), 5},
		{"1×1", []complex128{-7.5 + 2i}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			schurCTCheck(t, c.a, c.n, schurTC)
		})
	}
	t.Run("zero exact", func(t *testing.T) {
		tt, z, w, ok := SchurComplex(make([]complex128, 9), 3, true)
		want := []complex128{1, 0, 0, 0, 1, 0, 0, 0, 1}
		if !ok || !schurTSameBits(tt, make([]complex128, 9)) || !schurTSameBits(z, want) || !schurTSameBits(w, make([]complex128, 3)) {
			t.Errorf("zero matrix: t %v z %v w %v ok %v", tt, z, w, ok)
		}
	})
	t.Run("empty", func(t *testing.T) {
		tt, z, w, ok := SchurComplex(nil, 0, true)
		ew, vl, vr, eok := EigComplex([]complex128{}, 0, true, true)
		if !ok || !eok || len(tt)+len(z)+len(w)+len(ew)+len(vl)+len(vr) != 0 || z == nil || vl == nil {
			t.Errorf("n = 0: want empty results and ok")
		}
	})
}

// TestSchurComplexNonFinite: NaN or an infinity in either part of any entry gives ok = false and complex
// NaNs everywhere, z and the vectors nil when not asked for.
func TestSchurComplexNonFinite(t *testing.T) {
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for _, pos := range []int{0, 7, 15} {
			for _, part := range []complex128{complex(bad, 0), complex(0, bad)} {
				a := randomComplex(rand.New(rand.NewPCG(37, uint64(pos))), 16)
				a[pos] = part
				tt, z, w, ok := SchurComplex(a, 4, true)
				_, zn, _, okn := SchurComplex(a, 4, false)
				ew, vl, vr, eok := EigComplex(a, 4, true, true)
				_, vln, _, _ := EigComplex(a, 4, false, true)
				if ok || okn || eok || zn != nil || vln != nil {
					t.Fatalf("%v at %d: ok %v %v %v, z nil %v, vl nil %v", part, pos, ok, okn, eok, zn == nil, vln == nil)
				}
				if len(tt)+len(z)+len(vl)+len(vr) != 64 || len(w)+len(ew) != 8 {
					t.Fatalf("results of the wrong length")
				}
				for _, x := range [][]complex128{tt, z, w, ew, vl, vr} {
					if !schurTAllNaN(x) {
						t.Fatalf("%v at %d: a result is not NaN", part, pos)
					}
				}
			}
		}
	}
}

// FuzzComplexSchur: on any complex matrix of size up to 6 (real and imaginary parts as schurTFuzzValues
// makes them), SchurComplex and EigComplex return; when ok, the Schur residual and unitarity bounds hold
// relative to the largest part (scaled by a power of two so that the check itself cannot overflow), t is
// upper triangular with w on its diagonal, and the eigenvector residuals hold.
func FuzzComplexSchur(f *testing.F) {
	f.Add([]byte{3, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18})
	f.Add([]byte{4, 16, 16, 17, 16, 16, 16, 16, 17, 17, 16, 16, 16, 16, 17, 16, 16})
	nan := []byte{2, 255}
	nan = binary.LittleEndian.AppendUint64(nan, math.Float64bits(math.NaN()))
	f.Add(nan)
	huge := []byte{3}
	for i := 0; i < 18; i++ {
		huge = append(huge, 255)
		huge = binary.LittleEndian.AppendUint64(huge, math.Float64bits(float64(i%3-1)*math.MaxFloat64/float64(i+1)))
	}
	f.Add(huge)
	tinyb := []byte{2}
	for i := 0; i < 8; i++ {
		tinyb = append(tinyb, 255)
		tinyb = binary.LittleEndian.AppendUint64(tinyb, uint64(i+1)) // subnormal
	}
	f.Add(tinyb)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		n := int(data[0]) % 7
		parts := schurTFuzzValues(data[1:], 2*n*n)
		a := make([]complex128, n*n)
		for i := range a {
			a[i] = complex(parts[2*i], parts[2*i+1])
		}
		tt, z, w, ok := SchurComplex(a, n, true)
		ew, vl, vr, eok := EigComplex(a, n, true, true)
		amax := schurMaxPart(a)
		if math.IsNaN(amax) || math.IsInf(amax, 0) {
			if ok || eok {
				t.Fatalf("ok with non-finite input")
			}
			return
		}
		if ok != eok || !schurTSameBits(w, ew) {
			t.Fatalf("SchurComplex and EigComplex disagree")
		}
		if !ok {
			t.Fatalf("no convergence on finite input %v", a)
		}
		if amax == 0 {
			return
		}
		schurCTTriangular(t, tt, w, n)
		if schurTOverflowed(t, tt, amax) {
			return
		}
		// c = 40 as in FuzzSchur: a matrix the fuzzer finds may take hundreds of iterations.
		as, e, tol, _ := schurTBounds(t, a, tt, z, n, 40)
		if e > -1000 && e < 1000 {
			lam := make([]complex128, n)
			for i := range w {
				lam[i] = schurLdexp(w[i], -e)
			}
			schurTVectorCheck(t, as, n, lam, vr, false, false, tol)
			schurTVectorCheck(t, as, n, lam, vl, true, false, tol)
		}
	})
}

// BenchmarkSchurComplex times the complex Schur decomposition with vectors of a random 128×128 matrix.
func BenchmarkSchurComplex(b *testing.B) {
	a := randomComplex(rand.New(rand.NewPCG(9, 9)), 128*128)
	for b.Loop() {
		SchurComplex(a, 128, true)
	}
}

// BenchmarkEigComplex times the eigenvalues and right eigenvectors of a random complex 128×128 matrix.
func BenchmarkEigComplex(b *testing.B) {
	a := randomComplex(rand.New(rand.NewPCG(9, 9)), 128*128)
	for b.Loop() {
		EigComplex(a, 128, false, true)
	}
}

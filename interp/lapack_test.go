package interp

import (
	"fmt"
	"math"
	"math/cmplx"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The modules below are written as `octet convert` writes JAX's lowerings of jnp.linalg (the targets,
// operand_layout_constraints, result layouts and FFI attributes of the held calls), with small inputs whose
// factorizations were worked by hand.

const getrfModule = `HloModule lu
ENTRY e {
  a = f32[3,3]{1,0} parameter(0)
  ROOT lu = (f32[3,3]{0,1}, s32[3]{0}, s32[]) custom-call(a), custom_call_target="%s", operand_layout_constraints={f32[3,3]{0,1}}, output_to_operand_aliasing={{0}: (0, {})}, api_version=API_VERSION_TYPED_FFI, backend_config={}
}`

// TestSolverLU: [[2,1,1],[4,3,3],[8,7,9]] (the case of linalg's TestLUHandComputed): pivots 3, 3, 3 in
// LAPACK's 1-based numbering, L and U in one matrix, info 0; the same from cuSOLVER's target, and JAX's GPU
// permutation kernel turns the 0-based pivots into the permutation [2, 0, 1].
func TestSolverLU(t *testing.T) {
	for _, target := range []string{"lapack_sgetrf_ffi", "cusolver_getrf_ffi", "hipsolver_getrf_ffi"} {
		v, err := evalText(t, strings.Replace(getrfModule, "%s", target, 1), "f32[3,3] {{2,1,1},{4,3,3},{8,7,9}}")
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		lu, piv, info := v.Tuple[0].Array.Float64s(), v.Tuple[1].Array.Int64s(), v.Tuple[2].Array.Int64s()
		want := []float64{8, 7, 9, 0.25, -0.75, -1.25, 0.5, float64(float32(2.0 / 3)), float64(float32(-2.0 / 3))}
		if !slices.Equal(lu, want) || !slices.Equal(piv, []int64{3, 3, 3}) || !slices.Equal(info, []int64{0}) {
			t.Errorf("%s: LU %v pivots %v info %v; want %v [3 3 3] [0]", target, lu, piv, info, want)
		}
	}
	// cuSOLVER's getrf of a batch of small square matrices is cuBLAS's batched getrf, which pivots complex
	// entries by modulus: 3 beats 2+2i there, not in LAPACK's order, nor in a batch of one.
	batched := `HloModule lu
ENTRY e {
  a = c64[B,2,2]{1,2,0} parameter(0)
  ROOT lu = (c64[B,2,2]{1,2,0}, s32[B,2]{1,0}, s32[B]{0}) custom-call(a), custom_call_target="TARGET", operand_layout_constraints={c64[B,2,2]{1,2,0}}, api_version=API_VERSION_TYPED_FFI, backend_config={}
}`
	for _, tc := range []struct {
		target, batch, arg string
		want               []int64
	}{
		{"cusolver_getrf_ffi", "2", "c64[2,2,2] {{{(3,0), (1,0)}, {(2,2), (1,0)}}, {{(1,0), (0,0)}, {(0,0), (1,0)}}}", []int64{1, 2, 1, 2}},
		{"lapack_cgetrf_ffi", "2", "c64[2,2,2] {{{(3,0), (1,0)}, {(2,2), (1,0)}}, {{(1,0), (0,0)}, {(0,0), (1,0)}}}", []int64{2, 2, 1, 2}},
		{"cusolver_getrf_ffi", "1", "c64[1,2,2] {{{(3,0), (1,0)}, {(2,2), (1,0)}}}", []int64{2, 2}},
	} {
		v, err := evalText(t, strings.NewReplacer("TARGET", tc.target, "B", tc.batch).Replace(batched), tc.arg)
		if err != nil {
			t.Fatalf("%s: %v", tc.target, err)
		}
		if got := v.Tuple[1].Array.Int64s(); !slices.Equal(got, tc.want) {
			t.Errorf("%s, batch %s: pivots %v, want %v", tc.target, tc.batch, got, tc.want)
		}
	}
	perm := `HloModule perm
ENTRY e {
  p = s32[2,3]{1,0} parameter(0)
  ROOT q = s32[2,4]{1,0} custom-call(p), custom_call_target="cu_lu_pivots_to_permutation", operand_layout_constraints={s32[2,3]{1,0}}, api_version=API_VERSION_TYPED_FFI, backend_config={}
}`
	v, err := evalText(t, perm, "s32[2,3] {{2,2,2},{1,1,3}}")
	if err != nil {
		t.Fatal(err)
	}
	// Row swaps 0↔2, 1↔2, 2↔2 of [0 1 2 3]: [2 1 0 3] then [2 0 1 3]; 0↔1, 1↔1, 2↔3: [1 0 3 2].
	if got := v.Array.Int64s(); !slices.Equal(got, []int64{2, 0, 1, 3, 1, 0, 3, 2}) {
		t.Errorf("permutations %v, want [2 0 1 3 1 0 3 2]", got)
	}
}

// TestSolverLayouts: the calls read and write memory in the order the layouts give. With the row-major
// layout a column-major kernel reads the transpose of a square matrix: the LU of aᵀ, written back
// transposed. A batch of two runs each matrix apart.
func TestSolverLayouts(t *testing.T) {
	rowMajor := `HloModule lu
ENTRY e {
  a = f32[2,3,3]{2,1,0} parameter(0)
  ROOT lu = (f32[2,3,3]{2,1,0}, s32[2,3]{1,0}, s32[2]{0}) custom-call(a), custom_call_target="lapack_sgetrf_ffi", operand_layout_constraints={f32[2,3,3]{2,1,0}}, api_version=API_VERSION_TYPED_FFI, backend_config={}
}`
	// aᵀ of the second matrix is [[2,1,1],[4,3,3],[8,7,9]], whose LU is known; the first is the identity.
	v, err := evalText(t, rowMajor, "f32[2,3,3] {{{1,0,0},{0,1,0},{0,0,1}},{{2,4,8},{1,3,7},{1,3,9}}}")
	if err != nil {
		t.Fatal(err)
	}
	lu := v.Tuple[0].Array.Float64s()
	third := float64(float32(2.0 / 3))
	want := []float64{1, 0, 0, 0, 1, 0, 0, 0, 1, 8, 0.25, 0.5, 7, -0.75, third, 9, -1.25, -third}
	if !slices.Equal(lu, want) {
		t.Errorf("row-major LU %v, want %v", lu, want)
	}
	if piv := v.Tuple[1].Array.Int64s(); !slices.Equal(piv, []int64{1, 2, 3, 3, 3, 3}) {
		t.Errorf("pivots %v, want [1 2 3 3 3 3]", piv)
	}
}

// TestSolverCholesky: the matrix of XLA's cholesky test data, [[1,2,3],[2,20,26],[3,26,70]] = L·Lᵀ with L
// = [[1,0,0],[2,4,0],[3,5,6]]; LAPACK's potrf writes the lower triangle and leaves the upper as it was;
// uplo U gives Lᵀ in the upper triangle; cuSOLVER's takes lower = true. A matrix that is not positive
// definite gives info = the column, 1-based.
func TestSolverCholesky(t *testing.T) {
	src := `HloModule chol
ENTRY e {
  a = f64[3,3]{1,0} parameter(0)
  ROOT c = (f64[3,3]{0,1}, s32[]) custom-call(a), custom_call_target="%s", operand_layout_constraints={f64[3,3]{0,1}}, api_version=API_VERSION_TYPED_FFI, backend_config=%s
}`
	const a = "f64[3,3] {{1,2,3},{2,20,26},{3,26,70}}"
	for _, tc := range []struct {
		target, config string
		want           []float64
	}{
		{"lapack_dpotrf_ffi", "{uplo = 76 : ui8}", []float64{1, 2, 3, 2, 4, 26, 3, 5, 6}},
		{"lapack_dpotrf_ffi", "{uplo = 85 : ui8}", []float64{1, 2, 3, 2, 4, 5, 3, 26, 6}},
		{"cusolver_potrf_ffi", "{lower = true}", []float64{1, 2, 3, 2, 4, 26, 3, 5, 6}},
	} {
		v, err := evalText(t, strings.Replace(strings.Replace(src, "%s", tc.target, 1), "%s", tc.config, 1), a)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.target, tc.config, err)
		}
		if got := v.Tuple[0].Array.Float64s(); !slices.Equal(got, tc.want) || v.Tuple[1].Array.Int64s()[0] != 0 {
			t.Errorf("%s %s: %v info %v, want %v info 0", tc.target, tc.config, got, v.Tuple[1].Array.Int64s(), tc.want)
		}
	}
	v, err := evalText(t, strings.Replace(strings.Replace(src, "%s", "lapack_dpotrf_ffi", 1), "%s", "{uplo = 76 : ui8}", 1),
		"f64[3,3] {{4,0,0},{2,1,0},{1,7,3}}")
	if err != nil {
		t.Fatal(err)
	}
	if info := v.Tuple[1].Array.Int64s()[0]; info != 2 {
		t.Errorf("not positive definite: info %d, want 2", info)
	}
}

// TestCholeskyInstruction runs XLA's own test module xla/tools/tests/data/cholesky.hlo from ../shared:
// the factor of [[1,2,3],[2,20,26],[3,26,70]] is [[1,0,0],[2,4,0],[3,5,6]] (the upper triangle zeros).
func TestCholeskyInstruction(t *testing.T) {
	m := loadShared(t, "corpus", "hlo", "xla__tools__tests__data__cholesky.hlo")
	v, err := Run(m, nil, Options{MaxMemory: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Array.Float64s(); !slices.Equal(got, []float64{1, 0, 0, 2, 4, 0, 3, 5, 6}) {
		t.Errorf("cholesky = %v, want [1 0 0 2 4 0 3 5 6]", got)
	}
	up, err := evalText(t, "ENTRY e {\n  a = f32[2,2] parameter(0)\n  ROOT c = f32[2,2] cholesky(a), lower=false\n}", "f32[2,2] {{4, 2}, {2, 5}}")
	if err != nil {
		t.Fatal(err)
	}
	if got := up.Array.Float64s(); !slices.Equal(got, []float64{2, 1, 0, 2}) { // Uᵀ·U: 4 = 2·2, 2 = 2·1, 5 = 1+4
		t.Errorf("upper cholesky = %v, want [2 1 0 2]", got)
	}
	bad, err := evalText(t, "ENTRY e {\n  a = f32[2,2] parameter(0)\n  ROOT c = f32[2,2] cholesky(a), lower=true\n}", "f32[2,2] {{-1, 0}, {5, 1}}")
	if err != nil {
		t.Fatal(err)
	}
	if got := bad.Array.Float64s(); !math.IsNaN(got[0]) || got[1] != 0 || !math.IsNaN(got[2]) || !math.IsNaN(got[3]) {
		t.Errorf("cholesky of a negative pivot = %v, want NaN 0 NaN NaN", got)
	}
}

// TestSolverQR: [[3,1],[4,2]] (linalg's TestQRHandComputed): geqrf gives R = [[-5,-2.2],[0,0.4]] with the
// reflector 0.5 below the diagonal and tau = (1.6, 0); orgqr makes Q = [[-0.6,-0.8],[-0.8,0.6]].
func TestSolverQR(t *testing.T) {
	for _, lib := range []string{"lapack_s", "cusolver_"} {
		src := `HloModule qr
ENTRY e {
  a = f32[2,2]{1,0} parameter(0)
  qr = (f32[2,2]{0,1}, f32[2]{0}) custom-call(a), custom_call_target="LIBgeqrf_ffi", operand_layout_constraints={f32[2,2]{0,1}}, api_version=API_VERSION_TYPED_FFI, backend_config={}
  r = f32[2,2]{0,1} get-tuple-element(qr), index=0
  tau = f32[2]{0} get-tuple-element(qr), index=1
  q = f32[2,2]{0,1} custom-call(r, tau), custom_call_target="LIBorgqr_ffi", operand_layout_constraints={f32[2,2]{0,1}, f32[2]{0}}, api_version=API_VERSION_TYPED_FFI, backend_config={}
  ROOT t = (f32[2,2], f32[2], f32[2,2]) tuple(r, tau, q)
}`
		v, err := evalText(t, strings.ReplaceAll(src, "LIB", lib), "f32[2,2] {{3,1},{4,2}}")
		if err != nil {
			t.Fatalf("%s: %v", lib, err)
		}
		f := func(x float64) float64 { return float64(float32(x)) }
		r, tau, q := v.Tuple[0].Array.Float64s(), v.Tuple[1].Array.Float64s(), v.Tuple[2].Array.Float64s()
		if !slices.Equal(r, []float64{-5, f(-2.2), 0.5, f(0.4)}) || !slices.Equal(tau, []float64{f(1.6), 0}) ||
			!slices.Equal(q, []float64{f(-0.6), f(-0.8), f(-0.8), f(0.6)}) {
			t.Errorf("%s: R %v tau %v Q %v", lib, r, tau, q)
		}
	}
}

// TestSolverTrsm: LAPACK's trsm as jnp.linalg.solve_triangular calls it, each side, triangle,
// transposition and diagonal, against hand-solved systems (those of TestTriangularSolve).
func TestSolverTrsm(t *testing.T) {
	const a = "f64[2,2] {{2, 9}, {1, 4}}" // lower {{2,0},{1,4}}, upper {{2,9},{0,4}}
	for _, tc := range []struct {
		config string
		b      string
		want   []float64
	}{
		{"{diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}", "f64[2,1] {{2},{9}}", []float64{1, 2}},
		{"{diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 85 : ui8}", "f64[2,1] {{20},{8}}", []float64{1, 2}},
		{"{diag = 78 : ui8, side = 76 : ui8, trans_x = 84 : ui8, uplo = 76 : ui8}", "f64[2,1] {{4},{8}}", []float64{1, 2}},
		{"{diag = 78 : ui8, side = 82 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}", "f64[1,2] {{4,8}}", []float64{1, 2}},
		{"{diag = 85 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}", "f64[2,1] {{1},{3}}", []float64{1, 2}},
	} {
		bs := tc.b[:8]
		src := "HloModule t\nENTRY e {\n  a = f64[2,2] parameter(0)\n  b = " + bs + " parameter(1)\n  ROOT x = " + bs + "{0,1} custom-call(a, b), custom_call_target=\"lapack_dtrsm_ffi\", operand_layout_constraints={f64[2,2]{0,1}, " + bs + "{0,1}}, api_version=API_VERSION_TYPED_FFI, backend_config=" + tc.config + "\n}"
		v, err := evalText(t, src, a, tc.b)
		if err != nil {
			t.Fatalf("%s: %v", tc.config, err)
		}
		if got := v.Array.Float64s(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: x = %v, want %v", tc.config, got, tc.want)
		}
	}
}

// TestSolverInverse runs testdata/linalg/inverse.hlo, jnp.linalg.inv as JAX computes it (getrf, the
// permutation of the pivots, two trsm), on a 4×4 matrix and checks a·inv(a) = I within float32's rounding,
// and the module's own product a·inv(a).
func TestSolverInverse(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "linalg", "inverse.hlo"))
	if err != nil {
		t.Fatal(err)
	}
	a := [][]float64{{1, 2, 0, 4}, {3, -1, 2, 0}, {0, 5, 1, 1}, {2, 0, -3, 1}}
	v, err := evalText(t, string(src), "f32[4,4] {{1,2,0,4},{3,-1,2,0},{0,5,1,1},{2,0,-3,1}}")
	if err != nil {
		t.Fatal(err)
	}
	x, ax := v.Tuple[0].Array.Float64s(), v.Tuple[1].Array.Float64s()
	largest := 0.0
	for _, e := range x {
		largest = max(largest, math.Abs(e))
	}
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			s := 0.0
			for k := 0; k < 4; k++ {
				s += a[i][k] * x[k*4+j]
			}
			want := 0.0
			if i == j {
				want = 1
			}
			// The inverse is computed in float64 and rounded to float32: each entry within 2^-24 of its
			// own magnitude; a row of a (entries up to 5) times those errors stays under 4·5·2^-24·max|x|,
			// and the module's float32 dot adds 4 roundings of sums of the same size.
			if bound := 20 * 0x1p-24 * largest; math.Abs(s-want) > bound || math.Abs(ax[i*4+j]-want) > 2*bound {
				t.Errorf("(a·inv(a))[%d][%d] = %g (the module's: %g), want %g", i, j, s, ax[i*4+j], want)
			}
		}
	}
}

// TestSolverRefusals: routines the interpreter does not run are unsupported, by name; malformed calls are
// errors that say what is wrong.
func TestSolverRefusals(t *testing.T) {
	call := func(target, operand, result, config string) string {
		return "HloModule r\nENTRY e {\n  a = " + operand + " parameter(0)\n  ROOT c = " + result + " custom-call(a), custom_call_target=\"" + target + "\", api_version=API_VERSION_TYPED_FFI, backend_config=" + config + "\n}"
	}
	for _, tc := range []struct {
		src, arg, want string
		unsupported    bool
	}{
		{call("lapack_sgtsv_ffi", "f32[2,2]", "f32[2,2]", "{}"), "f32[2,2] {{1,0},{0,1}}", `custom-call "lapack_sgtsv_ffi" (a lapack routine Octet does not run)`, true},
		{call("lapack_dgetrf_ffi", "f32[2,2]", "(f32[2,2], s32[2], s32[])", "{}"), "f32[2,2] {{1,0},{0,1}}", "does not have the type the target names (f64)", false},
		{call("lapack_spotrf_ffi", "f32[2,2]", "(f32[2,2], s32[])", "{uplo = 88 : ui8}"), "f32[2,2] {{1,0},{0,1}}", `attribute uplo is 'X' (88), not one of "LU"`, false},
		{call("lapack_spotrf_ffi", "f32[2,2]", "(f32[2,2], s32[])", "{uplo = }"), "f32[2,2] {{1,0},{0,1}}", "uplo has no value", false},
		{call("lapack_sgetrf_ffi", "f32[2,2]", "(f32[2,2], s32[3], s32[])", "{}"), "f32[2,2] {{1,0},{0,1}}", "result 1 is s32[3], the operation gives s32[2]", false},
		{call("lapack_sgetrf_ffi", "f32[2]", "(f32[2], s32[1], s32[])", "{}"), "f32[2] {1,0}", "not a matrix or batch of matrices", false},
	} {
		_, err := evalText(t, tc.src, tc.arg)
		if err == nil || !strings.Contains(err.Error(), tc.want) || isUnsupported(err) != tc.unsupported {
			t.Errorf("%s\nerror %v, want one containing %q (unsupported %v)", tc.src, err, tc.want, tc.unsupported)
		}
	}
}

// TestSolverEigen: the iterative decompositions on matrices whose decompositions are known in closed form,
// through each library's target. [[2,1],[1,2]] has eigenvalues 1 and 3 with eigenvectors (1,-1)/√2 and
// (1,1)/√2 (signs as package linalg fixes them: the first component of largest magnitude positive);
// [[3,0],[4,5]] has singular values 3√5 and √5, u = (1,3)/√10 and (3,-1)/√10, v = (1,1)/√2 and (1,-1)/√2;
// [[0,1],[-1,0]] is its own real Schur form, eigenvalues ±i, right eigenvectors (1, ±i)/√2.
func TestSolverEigen(t *testing.T) {
	f := func(x float64) float64 { return float64(float32(x)) }
	r2, r10 := 1/math.Sqrt2, 1/math.Sqrt(10)
	near := func(got, want []float64) bool {
		if len(got) != len(want) {
			return false
		}
		for i := range got {
			// Computed in float64 and rounded once: within one float32 rounding of the exact value.
			if math.Abs(got[i]-f(want[i])) > math.Abs(want[i])*0x1p-23 {
				return false
			}
		}
		return true
	}
	eigh := `HloModule eigh
ENTRY e {
  a = f32[2,2]{1,0} parameter(0)
  ROOT r = (f32[2,2]{0,1}, f32[2]{0}, s32[]) custom-call(a), custom_call_target="TARGET", operand_layout_constraints={f32[2,2]{0,1}}, api_version=API_VERSION_TYPED_FFI, backend_config=CONFIG
}`
	for _, tc := range [][2]string{{"lapack_ssyevd_ffi", "{mode = 86 : ui8, uplo = 76 : ui8}"}, {"cusolver_syevd_ffi", "{algorithm = 0 : ui8, lower = true}"}} {
		v, err := evalText(t, strings.NewReplacer("TARGET", tc[0], "CONFIG", tc[1]).Replace(eigh), "f32[2,2] {{2,1},{1,2}}")
		if err != nil {
			t.Fatalf("%s: %v", tc[0], err)
		}
		vecs, w, info := v.Tuple[0].Array.Float64s(), v.Tuple[1].Array.Float64s(), v.Tuple[2].Array.Int64s()
		if !near(w, []float64{1, 3}) || !near(vecs, []float64{r2, r2, -r2, r2}) || info[0] != 0 {
			t.Errorf("%s: w %v vectors %v info %v", tc[0], w, vecs, info)
		}
	}
	svd := `HloModule svd
ENTRY e {
  a = f32[2,2]{1,0} parameter(0)
  ROOT r = (f32[2,2]{0,1}, f32[2]{0}, f32[2,2]{0,1}, f32[2,2]{0,1}, s32[]) custom-call(a), custom_call_target="TARGET", operand_layout_constraints={f32[2,2]{0,1}}, api_version=API_VERSION_TYPED_FFI, backend_config=CONFIG
}`
	for _, tc := range []struct {
		target, config string
		v              []float64 // the fourth result: vᵀ, or v for gesvdj
	}{
		{"lapack_sgesdd_ffi", "{mode = 65 : ui8}", []float64{r2, r2, r2, -r2}},
		{"cusolver_gesvd_ffi", "{compute_uv = true, full_matrices = true, transposed = false}", []float64{r2, r2, r2, -r2}},
		{"cusolver_gesvdj_ffi", "{compute_uv = true, full_matrices = true}", []float64{r2, r2, r2, -r2}},
	} {
		v, err := evalText(t, strings.NewReplacer("TARGET", tc.target, "CONFIG", tc.config).Replace(svd), "f32[2,2] {{3,0},{4,5}}")
		if err != nil {
			t.Fatalf("%s: %v", tc.target, err)
		}
		s, u, vv := v.Tuple[1].Array.Float64s(), v.Tuple[2].Array.Float64s(), v.Tuple[3].Array.Float64s()
		if !near(s, []float64{3 * math.Sqrt(5), math.Sqrt(5)}) || !near(u, []float64{r10, 3 * r10, 3 * r10, -r10}) || !near(vv, tc.v) {
			t.Errorf("%s: s %v u %v v %v", tc.target, s, u, vv)
		}
	}
	eig := `HloModule eig
ENTRY e {
  a = f32[2,2]{1,0} parameter(0)
  ROOT r = (f32[2]{0}, f32[2]{0}, c64[2,2]{0,1}, c64[2,2]{0,1}, s32[]) custom-call(a), custom_call_target="lapack_sgeev_ffi", operand_layout_constraints={f32[2,2]{0,1}}, api_version=API_VERSION_TYPED_FFI, backend_config={compute_left = 78 : ui8, compute_right = 86 : ui8}
}`
	v, err := evalText(t, eig, "f32[2,2] {{0,1},{-1,0}}")
	if err != nil {
		t.Fatal(err)
	}
	wr, wi, vl, vr := v.Tuple[0].Array.Float64s(), v.Tuple[1].Array.Float64s(), v.Tuple[2].Array.Complex128s(), v.Tuple[3].Array.Complex128s()
	fr := complex(f(r2), 0)
	if !slices.Equal(wr, []float64{0, 0}) || !slices.Equal(wi, []float64{1, -1}) ||
		!slices.Equal(vr, []complex128{fr, fr, complex(0, f(r2)), complex(0, -f(r2))}) || slices.ContainsFunc(vl, func(c complex128) bool { return c != 0 }) {
		t.Errorf("geev: w %v + %vi, vr %v, vl %v (not asked for: zeros)", wr, wi, vr, vl)
	}
	// cuSOLVER's geev (JAX's GPU lowering of jnp.linalg.eig): the matrix back, complex eigenvalues, and a
	// real matrix's vectors packed as real columns: the pair i, -i shares columns 0 and 1, the real and
	// imaginary parts of (r, ir).
	gpuEig := `HloModule eig
ENTRY e {
  a = f32[2,2]{0,1} parameter(0)
  ROOT r = (f32[2,2]{0,1}, c64[2]{0}, f32[2,2]{0,1}, f32[2,2]{0,1}, s32[]) custom-call(a), custom_call_target="cusolver_geev_ffi", operand_layout_constraints={f32[2,2]{0,1}}, api_version=API_VERSION_TYPED_FFI, backend_config={left = false, right = true}
}`
	v, err = evalText(t, gpuEig, "f32[2,2] {{0,1},{-1,0}}")
	if err != nil {
		t.Fatal(err)
	}
	back, w, vl2, vr2 := v.Tuple[0].Array.Float64s(), v.Tuple[1].Array.Complex128s(), v.Tuple[2].Array.Float64s(), v.Tuple[3].Array.Float64s()
	if !slices.Equal(back, []float64{0, 1, -1, 0}) || !slices.Equal(w, []complex128{1i, -1i}) ||
		!slices.Equal(vr2, []float64{f(r2), 0, 0, f(r2)}) || !slices.Equal(vl2, []float64{0, 0, 0, 0}) {
		t.Errorf("cusolver geev: a %v, w %v, vr %v, vl %v", back, w, vr2, vl2)
	}
	// On a matrix with a real eigenvalue and a complex pair, the packed columns are LAPACK's vectors.
	a4 := "f64[3,3] {{1,2,0},{-3,1,0.5},{0.25,0,2}}"
	lv, err := evalText(t, strings.NewReplacer("f32", "f64", "c64", "c128", "[2]", "[3]", "[2,2]", "[3,3]", "sgeev", "dgeev", "compute_left = 78", "compute_left = 86").Replace(eig), a4)
	if err != nil {
		t.Fatal(err)
	}
	gv, err := evalText(t, strings.NewReplacer("f32", "f64", "c64", "c128", "[2]", "[3]", "[2,2]", "[3,3]", "left = false", "left = true").Replace(gpuEig), a4)
	if err != nil {
		t.Fatal(err)
	}
	lwr, lwi := lv.Tuple[0].Array.Float64s(), lv.Tuple[1].Array.Float64s()
	gw := gv.Tuple[1].Array.Complex128s()
	pairs := 0
	for k, pack := range []int{2, 3} {
		lvec, packed := lv.Tuple[2+k].Array.Complex128s(), gv.Tuple[pack].Array.Float64s()
		for j := 0; j < 3; j++ {
			if gw[j] != complex(lwr[j], lwi[j]) {
				t.Fatalf("cusolver geev: eigenvalue %d is %v, LAPACK's %v%+vi", j, gw[j], lwr[j], lwi[j])
			}
			for i := 0; i < 3; i++ {
				re, im := real(lvec[i*3+j]), imag(lvec[i*3+j])
				switch {
				case lwi[j] == 0 && packed[i*3+j] != re:
					t.Errorf("vector %d of %d, row %d: %v, want %v", j, k, i, packed[i*3+j], re)
				case lwi[j] > 0 && (packed[i*3+j] != re || packed[i*3+j+1] != im):
					t.Errorf("pair %d of %d, row %d: %v, %v, want %v, %v", j, k, i, packed[i*3+j], packed[i*3+j+1], re, im)
				}
			}
			if lwi[j] > 0 {
				pairs++
			}
		}
	}
	if pairs != 2 {
		t.Errorf("%d complex pairs in the two sets of vectors, want 2", pairs)
	}
	gees := `HloModule gees
ENTRY e {
  a = f64[3,3]{1,0} parameter(0)
  ROOT r = (f64[3,3]{0,1}, f64[3,3]{0,1}, f64[3]{0}, f64[3]{0}, s32[], s32[]) custom-call(a), custom_call_target="lapack_dgees_ffi", operand_layout_constraints={f64[3,3]{0,1}}, api_version=API_VERSION_TYPED_FFI, backend_config={mode = 86 : ui8, sort = 78 : ui8}
}`
	v, err = evalText(t, gees, "f64[3,3] {{1,2,3},{0,4,5},{0,0,6}}")
	if err != nil {
		t.Fatal(err)
	}
	// An upper triangular matrix is its own Schur form: t = a, z = I, the eigenvalues its diagonal.
	if tt, z, wr := v.Tuple[0].Array.Float64s(), v.Tuple[1].Array.Float64s(), v.Tuple[2].Array.Float64s(); !slices.Equal(tt, []float64{1, 2, 3, 0, 4, 5, 0, 0, 6}) ||
		!slices.Equal(z, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1}) || !slices.Equal(wr, []float64{1, 4, 6}) {
		t.Errorf("gees: t %v z %v wr %v", tt, z, wr)
	}
	// NaN input: the iteration does not converge, info is 1 and the results NaN.
	v, err = evalText(t, strings.NewReplacer("TARGET", "lapack_ssyevd_ffi", "CONFIG", "{mode = 86 : ui8, uplo = 76 : ui8}").Replace(eigh), "f32[2,2] {{nan,1},{1,2}}")
	if err != nil {
		t.Fatal(err)
	}
	if w, info := v.Tuple[1].Array.Float64s(), v.Tuple[2].Array.Int64s(); !math.IsNaN(w[0]) || info[0] != 1 {
		t.Errorf("syevd of NaN: w %v info %v, want NaN and 1", w, info)
	}
}

// TestSolverComplex: the iterative decompositions of complex matrices, on closed forms. Pauli's Y =
// [[0,-i],[i,0]] has eigenvalues -1 and 1 with eigenvectors (1,-i)/√2 and (1,i)/√2 (phases as package
// linalg fixes them: the first component of largest magnitude real and positive); diag(2i, 1) has singular
// values 2 and 1 with u = I and vt = [[i,0],[0,1]] (so gesvdj's V = [[-i,0],[0,1]]); the triangular
// [[1,2],[0,3i]] is its own Schur form, eigenvalues 1 and 3i, the second's right eigenvector
// (-(1+3i)/5, 1)/√1.4.
func TestSolverComplex(t *testing.T) {
	c := func(v []complex128) []complex128 { // rounded to complex64, as the results are
		out := make([]complex128, len(v))
		for i, x := range v {
			out[i] = complex(float64(float32(real(x))), float64(float32(imag(x))))
		}
		return out
	}
	near := func(got, want []complex128) bool {
		if len(got) != len(want) {
			return false
		}
		for i := range got {
			if cmplx.Abs(got[i]-want[i]) > 0x1p-23 {
				return false
			}
		}
		return true
	}
	r2 := complex(1/math.Sqrt2, 0)
	run := func(src string, arg string) Value {
		t.Helper()
		v, err := evalText(t, src, arg)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	heevd := `HloModule h
ENTRY e {
  a = c64[2,2]{1,0} parameter(0)
  ROOT r = (c64[2,2]{0,1}, f32[2]{0}, s32[]) custom-call(a), custom_call_target="TARGET", operand_layout_constraints={c64[2,2]{0,1}}, api_version=API_VERSION_TYPED_FFI, backend_config=CONFIG
}`
	for _, tc := range [][2]string{{"lapack_cheevd_ffi", "{mode = 86 : ui8, uplo = 76 : ui8}"}, {"cusolver_syevd_ffi", "{algorithm = 0 : ui8, lower = true}"}} {
		v := run(strings.NewReplacer("TARGET", tc[0], "CONFIG", tc[1]).Replace(heevd), "c64[2,2] {{(0,0), (0,-1)}, {(0,1), (0,0)}}")
		vecs, w := v.Tuple[0].Array.Complex128s(), v.Tuple[1].Array.Float64s()
		if !slices.Equal(w, []float64{-1, 1}) || !near(vecs, c([]complex128{r2, r2, -1i * r2, 1i * r2})) {
			t.Errorf("%s: w %v vectors %v", tc[0], w, vecs)
		}
	}
	svd := `HloModule s
ENTRY e {
  a = c64[2,2]{1,0} parameter(0)
  ROOT r = (c64[2,2]{0,1}, f32[2]{0}, c64[2,2]{0,1}, c64[2,2]{0,1}, s32[]) custom-call(a), custom_call_target="TARGET", operand_layout_constraints={c64[2,2]{0,1}}, api_version=API_VERSION_TYPED_FFI, backend_config=CONFIG
}`
	for _, tc := range []struct {
		target, config string
		fourth         []complex128
	}{
		{"lapack_cgesdd_ffi", "{mode = 65 : ui8}", []complex128{1i, 0, 0, 1}},
		{"cusolver_gesvdj_ffi", "{compute_uv = true, full_matrices = true}", []complex128{-1i, 0, 0, 1}},
	} {
		v := run(strings.NewReplacer("TARGET", tc.target, "CONFIG", tc.config).Replace(svd), "c64[2,2] {{(0,2), (0,0)}, {(0,0), (1,0)}}")
		s, u, fourth := v.Tuple[1].Array.Float64s(), v.Tuple[2].Array.Complex128s(), v.Tuple[3].Array.Complex128s()
		if !slices.Equal(s, []float64{2, 1}) || !near(u, []complex128{1, 0, 0, 1}) || !near(fourth, tc.fourth) {
			t.Errorf("%s: s %v u %v fourth %v", tc.target, s, u, fourth)
		}
	}
	eig := `HloModule g
ENTRY e {
  a = c64[2,2]{1,0} parameter(0)
  ROOT r = (c64[2]{0}, c64[2,2]{0,1}, c64[2,2]{0,1}, s32[]) custom-call(a), custom_call_target="lapack_cgeev_ffi", operand_layout_constraints={c64[2,2]{0,1}}, api_version=API_VERSION_TYPED_FFI, backend_config={compute_left = 78 : ui8, compute_right = 86 : ui8}
}`
	v := run(eig, "c64[2,2] {{(1,0), (2,0)}, {(0,0), (0,3)}}")
	s14 := complex(1/math.Sqrt(1.4), 0)
	if w, vr := v.Tuple[0].Array.Complex128s(), v.Tuple[2].Array.Complex128s(); !near(w, []complex128{1, 3i}) ||
		!near(vr, c([]complex128{1, -(0.2 + 0.6i) * s14, 0, s14})) {
		t.Errorf("geev: w %v vr %v", w, vr)
	}
	gees := `HloModule s
ENTRY e {
  a = c64[2,2]{1,0} parameter(0)
  ROOT r = (c64[2,2]{0,1}, c64[2,2]{0,1}, c64[2]{0}, s32[], s32[]) custom-call(a), custom_call_target="lapack_cgees_ffi", operand_layout_constraints={c64[2,2]{0,1}}, api_version=API_VERSION_TYPED_FFI, backend_config={mode = 86 : ui8, sort = 78 : ui8}
}`
	v = run(gees, "c64[2,2] {{(1,0), (2,0)}, {(0,0), (0,3)}}")
	if tt, z, w := v.Tuple[0].Array.Complex128s(), v.Tuple[1].Array.Complex128s(), v.Tuple[2].Array.Complex128s(); !slices.Equal(tt, []complex128{1, 2, 0, 3i}) ||
		!slices.Equal(z, []complex128{1, 0, 0, 1}) || !slices.Equal(w, []complex128{1, 3i}) {
		t.Errorf("gees: t %v z %v w %v", tt, z, w)
	}
}

// TestSolverMemoryEstimate: the estimate counts the working copies of a linear algebra call and of a batch
// norm's expansion, so a budget refuses what would not fit (a 512×512 f32 LU: 1 MiB in and out, its
// float64 copies far more).
func TestSolverMemoryEstimate(t *testing.T) {
	lu := parseModule(t, strings.ReplaceAll(strings.ReplaceAll(strings.Replace(getrfModule, "%s", "lapack_sgetrf_ffi", 1), "[3,3]", "[512,512]"), "[3]", "[512]"))
	if est := EstimateMemory(lu); est.Bytes < 64*2*512*512 {
		t.Errorf("LU of 512x512: estimate %d bytes, below the 64 bytes an element of operand and results", est.Bytes)
	}
	bn := parseModule(t, "ENTRY e {\n  x = f32[64,1024] parameter(0)\n  s = f32[1024] parameter(1)\n  o = f32[1024] parameter(2)\n  ROOT r = (f32[64,1024], f32[1024], f32[1024]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1\n}")
	if est := EstimateMemory(bn); est.Bytes < 8*4*64*1024 {
		t.Errorf("batch norm of 64x1024: estimate %d bytes, below eight arrays of the operand", est.Bytes)
	}
}

// TestSolverHostile: calls whose declared results do not fit the operation are errors, found before
// anything is computed (a 0×N operand's full SVD would make an N×N vt); a batch of GPU SVDs without
// vectors declares them as scalars, which is fine.
func TestSolverHostile(t *testing.T) {
	call := func(target, operands, result, config string) string {
		var params, names []string
		for i, o := range strings.Split(operands, ";") {
			params = append(params, fmt.Sprintf("  p%d = %s parameter(%d)", i, o, i))
			names = append(names, fmt.Sprintf("p%d", i))
		}
		return "HloModule h\nENTRY e {\n" + strings.Join(params, "\n") + "\n  ROOT c = " + result + " custom-call(" + strings.Join(names, ", ") +
			"), custom_call_target=\"" + target + "\", api_version=API_VERSION_TYPED_FFI, backend_config=" + config + "\n}"
	}
	for _, tc := range []struct {
		src, want string
	}{
		{call("lapack_sgesdd_ffi", "f32[2,2]", "(f32[2,2], f32[2])", "{mode = 78 : ui8}"), "result 2 is missing"},
		{call("lapack_sgeev_ffi", "f32[2,2]", "(f32[2], f32[2])", "{compute_left = 78 : ui8, compute_right = 86 : ui8}"), "result 2 is missing"},
		{call("lapack_sgesdd_ffi", "f32[0,100000]", "(f32[0,100000], f32[0], f32[0,0], f32[1,1], s32[])", "{mode = 65 : ui8}"), "result 3 is f32[1,1], not f32[] of 100000×100000 elements"},
		{call("lapack_strsm_ffi", "f32[6,3,3];f32[3,2,3,4]", "f32[3,2,3,4]", "{diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}"), "a must be square with b's rows"},
		{call("lapack_spotrf_ffi", "f32[2,2]", "(f32[2,2], s32[])", `"{uplo = 85 : ui8}}}"`), "closes nothing"},
	} {
		m := parseModule(t, tc.src)
		args, err := RandomInputs(m, 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Run(m, args, Options{MaxMemory: 1 << 24}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s\nerror %v, want one containing %q", tc.src, err, tc.want)
		}
	}
	gpu := call("hipsolver_gesvd_ffi", "f32[2,3,3]", "(f32[2,3,3], f32[2,3], f32[], f32[], s32[2])", "{compute_uv = false, full_matrices = false, transposed = false}")
	m := parseModule(t, gpu)
	args, _ := RandomInputs(m, 1)
	v, err := Run(m, args, Options{MaxMemory: 1 << 24})
	if err != nil {
		t.Fatalf("batched gesvd without vectors: %v", err)
	}
	if s := v.Tuple[1].Array.Float64s(); len(s) != 6 || s[0] < s[1] || s[1] < s[2] {
		t.Errorf("singular values %v, want two descending triples", s)
	}
}

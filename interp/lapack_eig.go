package interp

import (
	"slices"

	"octet/dtype"
	"octet/linalg"
	"octet/tensor"
)

// solveReal runs the iterative decompositions of real matrices: symmetric eigenvalues (syevd), singular
// values (gesdd, gesvd, gesvdj), the real Schur form (gees) and eigenvalues and eigenvectors (geev). Where
// an iteration does not converge (NaN or infinite input among the causes), info is 1 and the results NaN,
// as LAPACK reports a failure by info > 0. What LAPACK leaves unspecified in a result (the matrix operand
// after gesdd and geev, or after syevd without vectors; vectors not asked for) is zeros, or the input for
// an operand that is overwritten.
func solveReal(c *solverCtx) ([]*tensor.Tensor, error) {
	ty := c.ts[0].Type
	switch c.target.op {
	case "syevd", "heevd":
		vectors := true
		if c.target.library == "lapack" {
			mode, err := c.letter("mode", 'V', "VN")
			if err != nil {
				return nil, err
			}
			vectors = mode == 'V'
		}
		lower, err := c.lower()
		if err != nil {
			return nil, err
		}
		batch, rows, cols, m, n, ks, err := input[float64](c, 0, false)
		if err != nil {
			return nil, err
		}
		if m != n {
			return nil, c.errorf("the matrix is %dx%d, not square", m, n)
		}
		ws, vs, infos := make([][]float64, len(ks)), make([][]float64, len(ks)), make([][]int64, len(ks))
		for b, a := range ks {
			w, v, ok := linalg.EighFloat(a, n, lower, vectors)
			ws[b], infos[b] = w, []int64{info(ok)}
			if vectors {
				vs[b] = v
			} else {
				vs[b] = a
			}
		}
		return results(
			func() (*tensor.Tensor, error) { return matrixResult(c, 0, ty, batch, rows, cols, vs, n, n) },
			func() (*tensor.Tensor, error) { return vectorResult(c, 1, ty, batch, ws, int64(n)) },
			func() (*tensor.Tensor, error) { return intResult(c, 2, batch, infos) })
	case "gesdd", "gesvd", "gesvdj":
		return svd(c)
	case "gees":
		mode, err := c.letter("mode", 'V', "VN")
		if err != nil {
			return nil, err
		}
		if s, err := c.attrs.char("sort", 'N'); err != nil || s != 'N' {
			return nil, unsupportedf(c.in, "custom-call %q with sorted eigenvalues (a selection function Octet cannot call)", c.name)
		}
		batch, rows, cols, m, n, ks, err := input[float64](c, 0, false)
		if err != nil {
			return nil, err
		}
		if m != n {
			return nil, c.errorf("the matrix is %dx%d, not square", m, n)
		}
		nb := len(ks)
		ts, zs, wrs, wis, sdims, infos := make([][]float64, nb), make([][]float64, nb), make([][]float64, nb), make([][]float64, nb), make([][]int64, nb), make([][]int64, nb)
		for b, a := range ks {
			t, z, wr, wi, ok := linalg.SchurFloat(a, n, mode == 'V')
			if z == nil {
				z = make([]float64, n*n)
			}
			ts[b], zs[b], wrs[b], wis[b], sdims[b], infos[b] = t, z, wr, wi, []int64{0}, []int64{info(ok)}
		}
		return results(
			func() (*tensor.Tensor, error) { return matrixResult(c, 0, ty, batch, rows, cols, ts, n, n) },
			func() (*tensor.Tensor, error) { return matrixResult(c, 1, ty, batch, n, n, zs, n, n) },
			func() (*tensor.Tensor, error) { return vectorResult(c, 2, ty, batch, wrs, int64(n)) },
			func() (*tensor.Tensor, error) { return vectorResult(c, 3, ty, batch, wis, int64(n)) },
			func() (*tensor.Tensor, error) { return intResult(c, 4, batch, sdims) },
			func() (*tensor.Tensor, error) { return intResult(c, 5, batch, infos) })
	case "geev":
		var want [2]bool
		for i, name := range []string{"compute_left", "compute_right"} {
			v, err := c.letter(name, 'V', "VN")
			if err != nil {
				return nil, err
			}
			want[i] = v == 'V'
		}
		batch, _, _, m, n, ks, err := input[float64](c, 0, false)
		if err != nil {
			return nil, err
		}
		if m != n {
			return nil, c.errorf("the matrix is %dx%d, not square", m, n)
		}
		nb := len(ks)
		wrs, wis, vls, vrs, infos := make([][]float64, nb), make([][]float64, nb), make([][]complex128, nb), make([][]complex128, nb), make([][]int64, nb)
		for b, a := range ks {
			wr, wi, vl, vr, ok := linalg.EigFloat(a, n, want[0], want[1])
			wrs[b], wis[b], vls[b], vrs[b], infos[b] = wr, wi, vl, vr, []int64{info(ok)}
		}
		cty := dtype.C64
		if ty == dtype.F64 {
			cty = dtype.C128
		}
		vecs := func(i int, vs [][]complex128, wanted bool) (*tensor.Tensor, error) {
			if !wanted {
				return zerosResult(c, i, cty, batch)
			}
			return matrixResult(c, i, cty, batch, n, n, vs, n, n)
		}
		return results(
			func() (*tensor.Tensor, error) { return vectorResult(c, 0, ty, batch, wrs, int64(n)) },
			func() (*tensor.Tensor, error) { return vectorResult(c, 1, ty, batch, wis, int64(n)) },
			func() (*tensor.Tensor, error) { return vecs(2, vls, want[0]) },
			func() (*tensor.Tensor, error) { return vecs(3, vrs, want[1]) },
			func() (*tensor.Tensor, error) { return intResult(c, 4, batch, infos) })
	}
	return nil, unsupportedf(c.in, "custom-call %q", c.name)
}

// info is LAPACK's info for an iteration that converged (0) or did not (1).
func info(ok bool) int64 {
	if ok {
		return 0
	}
	return 1
}

// zerosResult is result i as zeros of its own shape, after checking its type and batch dimensions (the
// vectors a call was not asked for: LAPACK leaves them unwritten).
func zerosResult(c *solverCtx, i int, ty dtype.Type, batch []int64) (*tensor.Tensor, error) {
	s := c.in.Shape
	if s.IsTuple() {
		s = s.Tuple[i]
	}
	if s.Elem != ty || len(s.Dims) < len(batch) || !slices.Equal(s.Dims[:len(batch)], batch) {
		return nil, c.errorf("result %d is %s, not %s with the batch dimensions %v", i, s.String(), ty, batch)
	}
	return tensor.New(ty, s.Dims), nil
}

// svd runs gesdd (LAPACK: mode A, S or N), gesvd (cuSOLVER, hipSOLVER: full_matrices, compute_uv,
// transposed) and gesvdj (cuSOLVER: full_matrices, compute_uv; its fourth result is V, not Vᵀ).
func svd(c *solverCtx) ([]*tensor.Tensor, error) {
	ty := c.ts[0].Type
	uv, full, transposed := true, true, false
	if c.target.op == "gesdd" {
		mode, err := c.letter("mode", 'A', "ASNO")
		if err != nil {
			return nil, err
		}
		if mode == 'O' {
			return nil, unsupportedf(c.in, "custom-call %q with mode O (vectors written over the operand)", c.name)
		}
		uv, full = mode != 'N', mode == 'A'
	} else {
		var err error
		if full, err = c.attrs.flag("full_matrices", true); err == nil {
			if uv, err = c.attrs.flag("compute_uv", true); err == nil && c.target.op == "gesvd" {
				transposed, err = c.attrs.flag("transposed", false)
			}
		}
		if err != nil {
			return nil, c.errorf("%v", err)
		}
	}
	batch, rows, cols, m, n, ks, err := input[float64](c, 0, transposed)
	if err != nil {
		return nil, err
	}
	k := min(m, n)
	nb := len(ks)
	ss, us, vts, infos := make([][]float64, nb), make([][]float64, nb), make([][]float64, nb), make([][]int64, nb)
	for b, a := range ks {
		s, u, vt, ok := linalg.SVDFloat(a, m, n, uv, full)
		ss[b], us[b], vts[b], infos[b] = s, u, vt, []int64{info(ok)}
		if uv && c.target.op == "gesvdj" && n > 0 {
			vts[b] = transpose(vt, len(vt)/n, n) // V, n×(n or k)
		}
	}
	um, un, vm, vn := m, m, n, n // the kernel's u and vt (v for gesvdj)
	if !full {
		un, vm = k, k
	}
	if c.target.op == "gesvdj" {
		vm, vn = vn, vm
	}
	vectors := func(i int, vs [][]float64, p, q int) (*tensor.Tensor, error) {
		if !uv {
			return zerosResult(c, i, ty, batch)
		}
		return freeMatrixResult(c, i, ty, batch, vs, p, q)
	}
	return results(
		func() (*tensor.Tensor, error) { return matrixResult(c, 0, ty, batch, rows, cols, ks, m, n) },
		func() (*tensor.Tensor, error) { return vectorResult(c, 1, ty, batch, ss, int64(k)) },
		func() (*tensor.Tensor, error) { return vectors(2, us, um, un) },
		func() (*tensor.Tensor, error) { return vectors(3, vts, vm, vn) },
		func() (*tensor.Tensor, error) { return intResult(c, 4, batch, infos) })
}

// freeMatrixResult is matrixResult with the logical rows and columns those of result i's own shape, which
// must hold the kernel's m×n elements (cuSOLVER's gesvd writes u of a transposed call as the transpose).
func freeMatrixResult[T linalg.Scalar](c *solverCtx, i int, ty dtype.Type, batch []int64, ys [][]T, m, n int) (*tensor.Tensor, error) {
	s := c.in.Shape
	if s.IsTuple() {
		s = s.Tuple[i]
	}
	r := len(s.Dims)
	if r != len(batch)+2 || s.Dims[r-2]*s.Dims[r-1] != int64(m*n) {
		return nil, c.errorf("result %d is %s, not %s%v of %d×%d elements", i, s.String(), ty, batch, m, n)
	}
	return matrixResult(c, i, ty, batch, int(s.Dims[r-2]), int(s.Dims[r-1]), ys, m, n)
}

// transpose returns the transpose of the m×n row-major x.
func transpose(x []float64, m, n int) []float64 {
	t := make([]float64, len(x))
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			t[j*m+i] = x[i*n+j]
		}
	}
	return t
}

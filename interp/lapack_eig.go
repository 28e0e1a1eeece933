package interp

import (
	"slices"

	"octet/dtype"
	"octet/linalg"
	"octet/tensor"
)

// solveIterative runs the iterative decompositions, of real (T float64) or complex (T complex128)
// matrices: Hermitian eigenvalues (syevd, heevd), singular values (gesdd, gesvd, gesvdj), the Schur form
// (gees) and eigenvalues and eigenvectors (geev). Where an iteration does not converge (NaN or infinite
// input among the causes), info is 1 and the results NaN, as LAPACK reports a failure by info > 0. What
// LAPACK leaves unspecified in a result (the matrix operand after gesdd, or after syevd without vectors;
// vectors not asked for) is the input for an operand that is overwritten, else zeros.
func solveIterative[T linalg.Scalar](c *solverCtx) ([]*tensor.Tensor, error) {
	switch c.target.op {
	case "syevd", "heevd":
		return eigh[T](c)
	case "gesdd", "gesvd", "gesvdj":
		return svd[T](c)
	case "gees":
		return schur[T](c)
	case "geev":
		return eig[T](c)
	}
	return nil, unsupportedf(c.in, "custom-call %q", c.name)
}

// square reads operand 0 as a batch of square matrices.
func square[T linalg.Scalar](c *solverCtx) (batch []int64, n int, ks [][]T, err error) {
	var m int
	batch, _, _, m, n, ks, err = input[T](c, 0, false)
	if err == nil && m != n {
		err = c.errorf("the matrix is %dx%d, not square", m, n)
	}
	return batch, n, ks, err
}

// eigh runs syevd (LAPACK: mode V or N, uplo; cuSOLVER: lower, vectors always) and heevd.
func eigh[T linalg.Scalar](c *solverCtx) ([]*tensor.Tensor, error) {
	ty := c.ts[0].Type
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
	batch, n, ks, err := square[T](c)
	if err != nil {
		return nil, err
	}
	ws, vs, infos := make([][]float64, len(ks)), make([][]T, len(ks)), make([][]int64, len(ks))
	for b, a := range ks {
		var ok bool
		switch a := any(a).(type) {
		case []float64:
			var v []float64
			ws[b], v, ok = linalg.EighFloat(a, n, lower, vectors)
			vs[b] = any(v).([]T)
		case []complex128:
			var v []complex128
			ws[b], v, ok = linalg.EighComplex(a, n, lower, vectors)
			vs[b] = any(v).([]T)
		}
		infos[b] = []int64{info(ok)}
		if !vectors {
			vs[b] = a
		}
	}
	return results(
		func() (*tensor.Tensor, error) { return matrixResult(c, 0, ty, batch, n, n, vs, n, n) },
		func() (*tensor.Tensor, error) { return vectorResult(c, 1, ty.Part(), batch, ws, int64(n)) },
		func() (*tensor.Tensor, error) { return intResult(c, 2, batch, infos) })
}

// schur runs gees (mode V or N, no sorting): for real matrices the results (t, vs, wr, wi, sdim, info),
// for complex ones (t, vs, w, sdim, info).
func schur[T linalg.Scalar](c *solverCtx) ([]*tensor.Tensor, error) {
	ty := c.ts[0].Type
	mode, err := c.letter("mode", 'V', "VN")
	if err != nil {
		return nil, err
	}
	if s, err := c.letter("sort", 'N', "NS"); err != nil {
		return nil, err
	} else if s != 'N' {
		return nil, unsupportedf(c.in, "custom-call %q with sorted eigenvalues (a selection function Octet cannot call)", c.name)
	}
	batch, n, ks, err := square[T](c)
	if err != nil {
		return nil, err
	}
	nb := len(ks)
	ts, zs, sdims, infos := make([][]T, nb), make([][]T, nb), make([][]int64, nb), make([][]int64, nb)
	wrs, wis, ws := make([][]float64, nb), make([][]float64, nb), make([][]complex128, nb)
	for b, a := range ks {
		var ok bool
		switch a := any(a).(type) {
		case []float64:
			var t, z []float64
			t, z, wrs[b], wis[b], ok = linalg.SchurFloat(a, n, mode == 'V')
			ts[b], zs[b] = any(t).([]T), any(z).([]T)
		case []complex128:
			var t, z []complex128
			t, z, ws[b], ok = linalg.SchurComplex(a, n, mode == 'V')
			ts[b], zs[b] = any(t).([]T), any(z).([]T)
		}
		if zs[b] == nil {
			zs[b] = make([]T, n*n)
		}
		sdims[b], infos[b] = []int64{0}, []int64{info(ok)}
	}
	out := []func() (*tensor.Tensor, error){
		func() (*tensor.Tensor, error) { return matrixResult(c, 0, ty, batch, n, n, ts, n, n) },
		func() (*tensor.Tensor, error) { return matrixResult(c, 1, ty, batch, n, n, zs, n, n) },
	}
	if ty.IsComplex() {
		out = append(out, func() (*tensor.Tensor, error) { return vectorResult(c, 2, ty, batch, ws, int64(n)) })
	} else {
		out = append(out,
			func() (*tensor.Tensor, error) { return vectorResult(c, 2, ty, batch, wrs, int64(n)) },
			func() (*tensor.Tensor, error) { return vectorResult(c, 3, ty, batch, wis, int64(n)) })
	}
	k := len(out)
	out = append(out,
		func() (*tensor.Tensor, error) { return intResult(c, k, batch, sdims) },
		func() (*tensor.Tensor, error) { return intResult(c, k+1, batch, infos) })
	return results(out...)
}

// eig runs geev. LAPACK's (compute_left, compute_right: V or N) gives, for real matrices, (wr, wi, vl,
// vr, info) with complex vectors, and for complex ones (w, vl, vr, info). cuSOLVER's (left, right: flags)
// gives (the matrix operand, w, vl, vr, info) with complex eigenvalues, and for a real matrix real vectors
// packed as LAPACK's real geev packs them: a real eigenvalue's vector in its column, a complex pair's (the
// one with the positive imaginary part first) real and imaginary parts in the pair's two columns.
func eig[T linalg.Scalar](c *solverCtx) ([]*tensor.Tensor, error) {
	ty := c.ts[0].Type
	gpu := c.target.library != "lapack"
	var want [2]bool
	for i, name := range []string{"compute_left", "compute_right"} {
		if gpu {
			v, err := c.attrs.flag([]string{"left", "right"}[i], i == 1)
			if err != nil {
				return nil, err
			}
			want[i] = v
			continue
		}
		v, err := c.letter(name, 'V', "VN")
		if err != nil {
			return nil, err
		}
		want[i] = v == 'V'
	}
	batch, n, ks, err := square[T](c)
	if err != nil {
		return nil, err
	}
	nb := len(ks)
	inputs := make([][]T, nb)
	for b, a := range ks {
		inputs[b] = slices.Clone(a)
	}
	wrs, wis, ws := make([][]float64, nb), make([][]float64, nb), make([][]complex128, nb)
	vls, vrs, infos := make([][]complex128, nb), make([][]complex128, nb), make([][]int64, nb)
	for b, a := range ks {
		var ok bool
		switch a := any(a).(type) {
		case []float64:
			wrs[b], wis[b], vls[b], vrs[b], ok = linalg.EigFloat(a, n, want[0], want[1])
			ws[b] = make([]complex128, n)
			for j := range ws[b] {
				ws[b][j] = complex(wrs[b][j], wis[b][j])
			}
		case []complex128:
			ws[b], vls[b], vrs[b], ok = linalg.EigComplex(a, n, want[0], want[1])
		}
		infos[b] = []int64{info(ok)}
	}
	cty := dtype.ComplexOf(ty.Part())
	var out []func() (*tensor.Tensor, error)
	switch {
	case gpu:
		out = append(out,
			func() (*tensor.Tensor, error) { return matrixResult(c, 0, ty, batch, n, n, inputs, n, n) },
			func() (*tensor.Tensor, error) { return vectorResult(c, 1, cty, batch, ws, int64(n)) })
	case ty.IsComplex():
		out = append(out, func() (*tensor.Tensor, error) { return vectorResult(c, 0, ty, batch, ws, int64(n)) })
	default:
		out = append(out,
			func() (*tensor.Tensor, error) { return vectorResult(c, 0, ty, batch, wrs, int64(n)) },
			func() (*tensor.Tensor, error) { return vectorResult(c, 1, ty, batch, wis, int64(n)) })
	}
	k := len(out)
	vecs := func(i int, vs [][]complex128, wanted bool) (*tensor.Tensor, error) {
		vty := cty
		if gpu && !ty.IsComplex() {
			vty = ty
		}
		if !wanted {
			return zerosResult(c, i, vty, batch)
		}
		if vty == cty {
			return matrixResult(c, i, cty, batch, n, n, vs, n, n)
		}
		packed := make([][]float64, len(vs))
		for b, v := range vs {
			packed[b] = packRealEigenvectors(v, wis[b], n)
		}
		return matrixResult(c, i, vty, batch, n, n, packed, n, n)
	}
	out = append(out,
		func() (*tensor.Tensor, error) { return vecs(k, vls, want[0]) },
		func() (*tensor.Tensor, error) { return vecs(k+1, vrs, want[1]) },
		func() (*tensor.Tensor, error) { return intResult(c, k+2, batch, infos) })
	return results(out...)
}

// packRealEigenvectors packs the complex eigenvectors v (n×n, row-major, a vector per column) of a real
// matrix, wi the imaginary parts of its eigenvalues, as LAPACK's real geev returns them: column j is
// vector j's real part where wi[j] is 0; for a pair wi[j] > 0, wi[j+1] = -wi[j], columns j and j+1 are
// the real and imaginary parts of vector j.
func packRealEigenvectors(v []complex128, wi []float64, n int) []float64 {
	out := make([]float64, n*n)
	for j := 0; j < n; j++ {
		pair := wi[j] > 0 && j+1 < n && wi[j+1] == -wi[j]
		for i := 0; i < n; i++ {
			out[i*n+j] = real(v[i*n+j])
			if pair {
				out[i*n+j+1] = imag(v[i*n+j])
			}
		}
		if pair {
			j++
		}
	}
	return out
}

// info is LAPACK's info for an iteration that converged (0) or did not (1).
func info(ok bool) int64 {
	if ok {
		return 0
	}
	return 1
}

// zerosResult is result i as zeros of its own shape, after checking its type and its batch dimensions, or
// that it has none (the vectors a call was not asked for, which LAPACK leaves unwritten: JAX's GPU lowering
// declares them as scalars).
func zerosResult(c *solverCtx, i int, ty dtype.Type, batch []int64) (*tensor.Tensor, error) {
	s, err := c.result(i)
	if err != nil {
		return nil, err
	}
	if !s.IsArray() || s.Elem != ty || len(s.Dims) > 0 && (len(s.Dims) < len(batch) || !slices.Equal(s.Dims[:len(batch)], batch)) {
		return nil, c.errorf("result %d is %s, not %s with the batch dimensions %v", i, s.String(), ty, batch)
	}
	return tensor.New(ty, s.Dims), nil
}

// svd runs gesdd (LAPACK: mode A, S or N), gesvd (cuSOLVER, hipSOLVER: full_matrices, compute_uv,
// transposed) and gesvdj (cuSOLVER: full_matrices, compute_uv; its fourth result is V = vtᴴ, not vt).
func svd[T linalg.Scalar](c *solverCtx) ([]*tensor.Tensor, error) {
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
	batch, rows, cols, m, n, ks, err := input[T](c, 0, transposed)
	if err != nil {
		return nil, err
	}
	k := min(m, n)
	um, un, vm, vn := m, m, n, n // the kernel's u and vt (v for gesvdj)
	if !full {
		un, vm = k, k
	}
	if c.target.op == "gesvdj" {
		vm, vn = vn, vm
	}
	if uv {
		// The vectors' sizes come from the operand's dimensions, not its elements (a 0×N operand has a
		// full vt of N×N): the results must declare them before they are made.
		if _, _, err := vectorDims(c, 2, ty, batch, um, un); err != nil {
			return nil, err
		}
		if _, _, err := vectorDims(c, 3, ty, batch, vm, vn); err != nil {
			return nil, err
		}
	}
	nb := len(ks)
	ss, us, vts, infos := make([][]float64, nb), make([][]T, nb), make([][]T, nb), make([][]int64, nb)
	for b, a := range ks {
		var ok bool
		switch a := any(a).(type) {
		case []float64:
			var u, vt []float64
			ss[b], u, vt, ok = linalg.SVDFloat(a, m, n, uv, full)
			us[b], vts[b] = any(u).([]T), any(vt).([]T)
		case []complex128:
			var u, vt []complex128
			ss[b], u, vt, ok = linalg.SVDComplex(a, m, n, uv, full)
			us[b], vts[b] = any(u).([]T), any(vt).([]T)
		}
		infos[b] = []int64{info(ok)}
		if uv && c.target.op == "gesvdj" && n > 0 {
			vts[b] = transposeOf(vts[b], len(vts[b])/n, n, true) // V, n×(n or k)
		}
	}
	vectors := func(i int, vs [][]T, p, q int) (*tensor.Tensor, error) {
		if !uv {
			return zerosResult(c, i, ty, batch)
		}
		return freeMatrixResult(c, i, ty, batch, vs, p, q)
	}
	return results(
		func() (*tensor.Tensor, error) { return matrixResult(c, 0, ty, batch, rows, cols, ks, m, n) },
		func() (*tensor.Tensor, error) { return vectorResult(c, 1, ty.Part(), batch, ss, int64(k)) },
		func() (*tensor.Tensor, error) { return vectors(2, us, um, un) },
		func() (*tensor.Tensor, error) { return vectors(3, vts, vm, vn) },
		func() (*tensor.Tensor, error) { return intResult(c, 4, batch, infos) })
}

// freeMatrixResult is matrixResult with the logical rows and columns those of result i's own shape, which
// must hold the kernel's m×n elements (cuSOLVER's gesvd writes u of a transposed call as the transpose).
func freeMatrixResult[T linalg.Scalar](c *solverCtx, i int, ty dtype.Type, batch []int64, ys [][]T, m, n int) (*tensor.Tensor, error) {
	rows, cols, err := vectorDims(c, i, ty, batch, m, n)
	if err != nil {
		return nil, err
	}
	return matrixResult(c, i, ty, batch, rows, cols, ys, m, n)
}

// vectorDims returns the rows and columns of result i, which must be a batch of matrices of m·n elements.
func vectorDims(c *solverCtx, i int, ty dtype.Type, batch []int64, m, n int) (rows, cols int, err error) {
	s, err := c.result(i)
	if err != nil {
		return 0, 0, err
	}
	r := len(s.Dims)
	if !s.IsArray() || r != len(batch)+2 || s.Dims[r-2]*s.Dims[r-1] != int64(m)*int64(n) {
		return 0, 0, c.errorf("result %d is %s, not %s%v of %d×%d elements", i, s.String(), ty, batch, m, n)
	}
	return int(s.Dims[r-2]), int(s.Dims[r-1]), nil
}

package interp

import (
	"fmt"
	"slices"
	"strings"

	"octet/dtype"
	"octet/hlo"
	"octet/linalg"
	"octet/tensor"
)

// The linear algebra custom calls JAX lowers jnp.linalg to: LAPACK's typed-FFI kernels on the CPU
// (lapack_<t><op>_ffi, t one of s, d, c, z), cuSOLVER's on NVIDIA GPUs (cusolver_<op>_ffi) and hipSOLVER's
// on AMD ones (hipsolver_<op>_ffi), and the pivots-to-permutation kernel of JAX's GPU LU. Their operands,
// results and attributes are those of jaxlib's handlers (jaxlib/cpu/lapack_kernels.cc,
// jaxlib/gpu/solver_kernels_ffi.cc at jax-ml/jax commit 040b5a5): every leading dimension is a batch
// dimension, matrices are read and written in the memory order their layouts give (JAX asks for column
// major, as LAPACK reads), pivots are 1-based, info is LAPACK's.

// solverOps are the operations, by the name in the target, and the libraries that have them.
var solverOps = map[string][]string{
	"getrf": {"lapack", "cusolver", "hipsolver"}, "potrf": {"lapack", "cusolver", "hipsolver"},
	"geqrf": {"lapack", "cusolver", "hipsolver"}, "orgqr": {"lapack", "cusolver", "hipsolver"},
	"ungqr": {"lapack"}, "trsm": {"lapack"}, "syevd": {"lapack", "cusolver", "hipsolver"}, "heevd": {"lapack"},
	"gesdd": {"lapack"}, "gesvd": {"cusolver", "hipsolver"}, "gesvdj": {"cusolver"},
	"geev": {"lapack", "cusolver"}, "gees": {"lapack"},
}

// solverTarget is a decoded linear algebra target.
type solverTarget struct {
	library string     // lapack, cusolver, hipsolver, or pivots for the permutation kernel
	op      string     // getrf, potrf, ...
	elem    dtype.Type // LAPACK's type letter as a type; Invalid for the GPU libraries
}

// parseSolverTarget decodes target; ok is false for targets that are not linear algebra calls.
func parseSolverTarget(target string) (solverTarget, bool) {
	switch target {
	case "cu_lu_pivots_to_permutation", "hip_lu_pivots_to_permutation":
		return solverTarget{library: "pivots", op: "permutation"}, true
	}
	lib, rest, ok := strings.Cut(target, "_")
	if !ok || !strings.HasSuffix(rest, "_ffi") {
		return solverTarget{}, false
	}
	rest = strings.TrimSuffix(rest, "_ffi")
	t := solverTarget{library: lib, op: rest}
	if lib == "lapack" {
		if len(rest) < 2 {
			return solverTarget{}, false
		}
		t.elem = map[byte]dtype.Type{'s': dtype.F32, 'd': dtype.F64, 'c': dtype.C64, 'z': dtype.C128}[rest[0]]
		t.op = rest[1:]
		if t.elem == dtype.Invalid {
			return solverTarget{}, false
		}
	} else if lib != "cusolver" && lib != "hipsolver" {
		return solverTarget{}, false
	}
	if !slices.Contains(solverOps[t.op], lib) {
		// A target of these libraries the interpreter does not run: reported as unsupported by name.
		t.op = ""
	}
	return t, true
}

// isSolverTarget reports whether target is a linear algebra call of LAPACK, cuSOLVER or hipSOLVER.
func isSolverTarget(target string) bool {
	_, ok := parseSolverTarget(target)
	return ok
}

// solverAttrs are the FFI attributes of a call, by name.
type solverAttrs map[string]hlo.FFIAttribute

// char returns the character-valued attribute name (LAPACK's job letters, written as ui8 codes), or def
// when the call does not have it.
func (a solverAttrs) char(name string, def byte) (byte, error) {
	v, ok := a[name]
	if !ok {
		return def, nil
	}
	n, ok := v.Int()
	if !ok || n < 0 || n > 127 {
		return 0, fmt.Errorf("attribute %s = %s is not a character code", name, v.Value)
	}
	return byte(n), nil
}

// flag returns the boolean attribute name, or def when the call does not have it.
func (a solverAttrs) flag(name string, def bool) (bool, error) {
	v, ok := a[name]
	if !ok {
		return def, nil
	}
	b, ok := v.Bool()
	if !ok {
		return false, fmt.Errorf("attribute %s = %s is not true or false", name, v.Value)
	}
	return b, nil
}

// letter returns the character-valued attribute name, def when the call does not have it, checking that
// it is one of the letters allowed.
func (c *solverCtx) letter(name string, def byte, allowed string) (byte, error) {
	v, err := c.attrs.char(name, def)
	if err == nil && strings.IndexByte(allowed, v) < 0 {
		err = fmt.Errorf("attribute %s is %q (%d), not one of %q", name, rune(v), v, allowed)
	}
	if err != nil {
		return 0, c.errorf("%v", err)
	}
	return v, nil
}

// solverCall evaluates a linear algebra custom call; see package linalg for the algorithms (run in float64
// or complex128, the results rounded once to the operands' type).
func (e *evaluator) solverCall(in *hlo.Instruction, ops []Value) (Value, error) {
	name := in.CustomCallTarget()
	target, _ := parseSolverTarget(name)
	if target.op == "" {
		return Value{}, unsupportedf(in, "custom-call %q (a %s routine Octet does not run)", name, target.library)
	}
	ts, err := arrays(in, ops)
	if err != nil {
		return Value{}, err
	}
	attrs := solverAttrs{}
	if bc := in.BackendConfig(); bc != nil {
		list, err := hlo.ParseFFIAttributes(bc.Text)
		if err != nil {
			return Value{}, errorf(in, "%s: backend_config: %v", name, err)
		}
		for _, a := range list {
			attrs[a.Name] = a
		}
	}
	c := &solverCtx{in: in, name: name, target: target, attrs: attrs, ts: ts}
	if err := c.check(); err != nil {
		return Value{}, err
	}
	n := shapeElements(in.Shape) // the elements of the results and operands
	for _, t := range ts {
		n += t.NumElements()
	}
	if len(ts) > 0 && len(ts[0].Shape) >= 2 {
		r := len(ts[0].Shape)
		n *= max(ts[0].Shape[r-1], ts[0].Shape[r-2]) // an O(n³) factorization of an n×n matrix
	}
	if err := e.charge(n); err != nil {
		return Value{}, err
	}
	var out []*tensor.Tensor
	if target.library == "pivots" {
		out, err = c.permutation()
	} else if ts[0].Type.IsComplex() {
		out, err = solve[complex128](c)
	} else {
		out, err = solve[float64](c)
	}
	if err != nil {
		return Value{}, err
	}
	if !in.Shape.IsTuple() {
		if len(out) != 1 {
			return Value{}, errorf(in, "%s gives %d results, its shape %s one", name, len(out), in.Shape.String())
		}
		return ArrayValue(out[0]), nil
	}
	if len(out) != len(in.Shape.Tuple) {
		return Value{}, errorf(in, "%s gives %d results, its shape %s has %d", name, len(out), in.Shape.String(), len(in.Shape.Tuple))
	}
	vals := make([]Value, len(out))
	for i, t := range out {
		vals[i] = ArrayValue(t)
	}
	return TupleValue(vals...), nil
}

// solverCtx is one call being evaluated.
type solverCtx struct {
	in     *hlo.Instruction
	name   string
	target solverTarget
	attrs  solverAttrs
	ts     []*tensor.Tensor
}

func (c *solverCtx) errorf(format string, args ...any) error {
	return errorf(c.in, "%s: %s", c.name, fmt.Sprintf(format, args...))
}

// check verifies the number of operands and their types against the operation (the results are checked
// as they are made).
func (c *solverCtx) check() error {
	wantOps := map[string]int{"orgqr": 2, "ungqr": 2, "trsm": 2, "permutation": 1}[c.target.op]
	if wantOps == 0 {
		wantOps = 1
	}
	if c.target.op == "trsm" && len(c.ts) == 3 {
		wantOps = 3 // an older form passes alpha as a third operand
	}
	if len(c.ts) != wantOps {
		return c.errorf("takes %d operands, not %d", wantOps, len(c.ts))
	}
	if c.target.library == "pivots" {
		if p := c.ts[0]; p.Type != dtype.S32 || len(p.Shape) < 1 {
			return c.errorf("the pivots are %s, not s32 of rank 1 or more", p)
		}
		return nil
	}
	a := c.ts[0]
	if !(a.Type == dtype.F32 || a.Type == dtype.F64 || a.Type.IsComplex()) {
		return c.errorf("operand %s is not f32, f64, c64 or c128", a)
	}
	if c.target.elem != dtype.Invalid && a.Type != c.target.elem {
		return c.errorf("operand %s does not have the type the target names (%s)", a, c.target.elem)
	}
	for _, t := range c.ts[1:] {
		if t.Type != a.Type {
			return c.errorf("operands %s and %s differ in type", a, t)
		}
	}
	if len(a.Shape) < 2 {
		return c.errorf("operand %s is not a matrix or batch of matrices", a)
	}
	return nil
}

// layoutOf returns the layout that the call reads operand i, or writes result i (result), with: the
// operand_layout_constraints, else the shapes' own; nil is the default, row major.
func (c *solverCtx) layoutOf(i int, result bool) *hlo.Layout {
	if result {
		s := c.in.Shape
		if s.IsTuple() {
			if i >= len(s.Tuple) {
				return nil
			}
			s = s.Tuple[i]
		}
		return s.Layout
	}
	if cs, ok := c.in.Attr("operand_layout_constraints").(hlo.Shapes); ok && i < len(cs) {
		return cs[i].Layout
	}
	if i < c.in.NumOperands() {
		return c.in.Operand(i).Shape.Layout
	}
	return nil
}

// columnMajor reports whether a layout of rank r stores each matrix (the last two dimensions) column by
// column (true) or row by row (false), the batch dimensions major to it in their order; other layouts are
// refused.
func columnMajor(l *hlo.Layout, r int) (bool, error) {
	if l == nil || len(l.MinorToMajor) == 0 {
		return false, nil
	}
	m2m := l.MinorToMajor
	if len(m2m) != r {
		return false, fmt.Errorf("layout %v does not have rank %d", m2m, r)
	}
	for i := 2; i < r; i++ {
		if m2m[i] != int64(r-1-i) {
			return false, fmt.Errorf("layout %v puts a batch dimension inside the matrices", m2m)
		}
	}
	if r < 2 {
		return false, nil
	}
	return m2m[0] == int64(r-2), nil
}

// elems returns t's elements as T (float64 or complex128), a copy.
func elems[T linalg.Scalar](t *tensor.Tensor) []T {
	var z T
	if _, ok := any(z).(complex128); ok {
		x := asComplex(t)
		if t.Type == dtype.C128 {
			x = slices.Clone(x) // the tensor's own memory
		}
		return any(x).([]T)
	}
	x := f64s(t)
	if t.Type == dtype.F64 {
		x = slices.Clone(x)
	}
	return any(x).([]T)
}

// tensorOf makes a tensor of type ty from values of T, rounded once.
func tensorOf[T linalg.Scalar](ty dtype.Type, dims []int64, x []T) *tensor.Tensor {
	switch v := any(x).(type) {
	case []complex128:
		return fromComplex(ty, dims, v)
	case []float64:
		return fromF64(ty, dims, v)
	}
	return nil
}

// matrices splits a logical array of the shape dims (rank >= 2) into its batch of R×C matrices.
func matrices(dims []int64) (batch, rows, cols int) {
	r := len(dims)
	return count(dims[:r-2]), int(dims[r-2]), int(dims[r-1])
}

// kernelIn returns what a column-major m×n kernel reads (row-major, m×n) from the memory of the logical
// R×C matrix x (row-major) stored column major (col) or row major; m·n = R·C.
func kernelIn[T linalg.Scalar](x []T, rows, cols int, col bool, m, n int) []T {
	if col && m == rows && n == cols {
		return x // the kernel reads the logical matrix
	}
	mem := x
	if col {
		mem = make([]T, len(x))
		for r := 0; r < rows; r++ {
			for c := 0; c < cols; c++ {
				mem[r+c*rows] = x[r*cols+c]
			}
		}
	}
	k := make([]T, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			k[i*n+j] = mem[i+j*m]
		}
	}
	return k
}

// kernelOut is kernelIn's inverse: the logical R×C matrix (row-major) whose memory, in the given order,
// holds the kernel's column-major m×n result y (row-major).
func kernelOut[T linalg.Scalar](y []T, m, n int, rows, cols int, col bool) []T {
	if col && m == rows && n == cols {
		return y
	}
	mem := make([]T, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			mem[i+j*m] = y[i*n+j]
		}
	}
	if !col {
		return mem
	}
	x := make([]T, len(mem))
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			x[r*cols+c] = mem[r+c*rows]
		}
	}
	return x
}

// result returns the shape of result i of the call.
func (c *solverCtx) result(i int) (hlo.Shape, error) {
	s := c.in.Shape
	if s.IsTuple() {
		if i >= len(s.Tuple) {
			return hlo.Shape{}, c.errorf("has %d results, result %d is missing", len(s.Tuple), i)
		}
		return s.Tuple[i], nil
	}
	if i > 0 {
		return hlo.Shape{}, c.errorf("has one result, result %d is missing", i)
	}
	return s, nil
}

// resultShape returns result i's dimensions, checking its element type and dimensions against want (batch
// dimensions first, then the dims given).
func (c *solverCtx) resultShape(i int, ty dtype.Type, batch []int64, dims ...int64) ([]int64, error) {
	s, err := c.result(i)
	if err != nil {
		return nil, err
	}
	want := append(slices.Clone(batch), dims...)
	if s.Elem != ty || !slices.Equal(s.Dims, want) {
		return nil, c.errorf("result %d is %s, the operation gives %s%v", i, s.String(), ty, want)
	}
	return want, nil
}

// matrixResult writes the kernel's m×n results ys (one per batch element, row-major) as result i of the
// logical shape [batch..., R, C] and type ty.
func matrixResult[T linalg.Scalar](c *solverCtx, i int, ty dtype.Type, batch []int64, rows, cols int, ys [][]T, m, n int) (*tensor.Tensor, error) {
	dims, err := c.resultShape(i, ty, batch, int64(rows), int64(cols))
	if err != nil {
		return nil, err
	}
	col, err := columnMajor(c.layoutOf(i, true), len(dims))
	if err != nil {
		return nil, c.errorf("result %d: %v", i, err)
	}
	out := make([]T, 0, len(ys)*rows*cols)
	for _, y := range ys {
		out = append(out, kernelOut(y, m, n, rows, cols, col)...)
	}
	return tensorOf(ty, dims, out), nil
}

// vectorResult writes per-batch vectors (or scalars, k = 0) as result i.
func vectorResult[T linalg.Scalar](c *solverCtx, i int, ty dtype.Type, batch []int64, vs [][]T, k ...int64) (*tensor.Tensor, error) {
	dims, err := c.resultShape(i, ty, batch, k...)
	if err != nil {
		return nil, err
	}
	var out []T
	for _, v := range vs {
		out = append(out, v...)
	}
	return tensorOf(ty, dims, out), nil
}

// intResult writes per-batch integers (pivots, info) as the s32 result i.
func intResult(c *solverCtx, i int, batch []int64, vs [][]int64, k ...int64) (*tensor.Tensor, error) {
	dims, err := c.resultShape(i, dtype.S32, batch, k...)
	if err != nil {
		return nil, err
	}
	var out []int64
	for _, v := range vs {
		out = append(out, v...)
	}
	return fromI64(dtype.S32, dims, out), nil
}

// input reads operand i's matrices, R×C each, as a column-major kernel reads them: m×n with (m, n) = (R, C),
// or (C, R) when swap (cuSOLVER's transposed gesvd).
func input[T linalg.Scalar](c *solverCtx, i int, swap bool) (batch []int64, rows, cols, m, n int, ks [][]T, err error) {
	t := c.ts[i]
	r := len(t.Shape)
	col, err := columnMajor(c.layoutOf(i, false), r)
	if err != nil {
		return nil, 0, 0, 0, 0, nil, c.errorf("operand %d: %v", i, err)
	}
	nb, rows, cols := matrices(t.Shape)
	m, n = rows, cols
	if swap {
		m, n = cols, rows
	}
	x := elems[T](t)
	for b := 0; b < nb; b++ {
		ks = append(ks, kernelIn(x[b*rows*cols:(b+1)*rows*cols], rows, cols, col, m, n))
	}
	return slices.Clone(t.Shape[:r-2]), rows, cols, m, n, ks, nil
}

// vectors reads operand i as per-batch vectors of length k, checking its batch dimensions.
func vectors[T linalg.Scalar](c *solverCtx, i int, batch []int64) ([][]T, int, error) {
	t := c.ts[i]
	if len(t.Shape) != len(batch)+1 || !slices.Equal(t.Shape[:len(batch)], batch) {
		return nil, 0, c.errorf("operand %d is %s, not a vector per matrix of the batch %v", i, t, batch)
	}
	k := int(t.Shape[len(batch)])
	x := elems[T](t)
	vs := make([][]T, count(batch))
	for b := range vs {
		vs[b] = x[b*k : (b+1)*k]
	}
	return vs, k, nil
}

// solve runs every operation but the permutation, in T.
func solve[T linalg.Scalar](c *solverCtx) ([]*tensor.Tensor, error) {
	ty := c.ts[0].Type
	switch c.target.op {
	case "getrf":
		batch, rows, cols, m, n, ks, err := input[T](c, 0, false)
		if err != nil {
			return nil, err
		}
		k := min(m, n)
		// jaxlib's GPU getrf hands a batch of small square matrices (batch > 1, rows / batch <= 128) to
		// cuBLAS's batched getrf, which pivots complex entries by their modulus
		// (jaxlib/gpu/solver_kernels_ffi.cc, GetrfDispatch, jax-ml/jax 040b5a5).
		nb := len(ks)
		modulus := c.target.library == "cusolver" && nb > 1 && m == n && m/nb <= 128
		pivs, infos := make([][]int64, len(ks)), make([][]int64, len(ks))
		for b, a := range ks {
			ipiv, info := linalg.LUPivoted(a, m, n, modulus)
			pivs[b] = make([]int64, k)
			for j, p := range ipiv {
				pivs[b][j] = int64(p) + 1
			}
			infos[b] = []int64{int64(info)}
		}
		return results(
			func() (*tensor.Tensor, error) { return matrixResult(c, 0, ty, batch, rows, cols, ks, m, n) },
			func() (*tensor.Tensor, error) { return intResult(c, 1, batch, pivs, int64(k)) },
			func() (*tensor.Tensor, error) { return intResult(c, 2, batch, infos) })
	case "potrf":
		lower, err := c.lower()
		if err != nil {
			return nil, err
		}
		batch, rows, cols, m, n, ks, err := input[T](c, 0, false)
		if err != nil {
			return nil, err
		}
		if m != n {
			return nil, c.errorf("the matrix is %dx%d, not square", m, n)
		}
		infos := make([][]int64, len(ks))
		for b, a := range ks {
			infos[b] = []int64{int64(linalg.Cholesky(a, n, lower))}
		}
		return results(
			func() (*tensor.Tensor, error) { return matrixResult(c, 0, ty, batch, rows, cols, ks, m, n) },
			func() (*tensor.Tensor, error) { return intResult(c, 1, batch, infos) })
	case "geqrf":
		batch, rows, cols, m, n, ks, err := input[T](c, 0, false)
		if err != nil {
			return nil, err
		}
		taus := make([][]T, len(ks))
		for b, a := range ks {
			taus[b] = linalg.QR(a, m, n)
		}
		return results(
			func() (*tensor.Tensor, error) { return matrixResult(c, 0, ty, batch, rows, cols, ks, m, n) },
			func() (*tensor.Tensor, error) { return vectorResult(c, 1, ty, batch, taus, int64(min(m, n))) })
	case "orgqr", "ungqr":
		batch, rows, cols, m, n, ks, err := input[T](c, 0, false)
		if err != nil {
			return nil, err
		}
		taus, k, err := vectors[T](c, 1, batch)
		if err != nil {
			return nil, err
		}
		if !(m >= n && n >= k) {
			return nil, c.errorf("needs rows >= columns >= reflectors, has %d, %d and %d", m, n, k)
		}
		qs := make([][]T, len(ks))
		for b, a := range ks {
			qs[b] = linalg.HouseholderProduct(a, m, n, taus[b])
		}
		return results(func() (*tensor.Tensor, error) { return matrixResult(c, 0, ty, batch, rows, cols, qs, m, n) })
	case "trsm":
		return trsm[T](c)
	}
	return solveIterative[T](c)
}

// results evaluates the makers of a call's results in order, stopping at the first error.
func results(makers ...func() (*tensor.Tensor, error)) ([]*tensor.Tensor, error) {
	out := make([]*tensor.Tensor, len(makers))
	for i, f := range makers {
		t, err := f()
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

// lower reads which triangle a call reads: LAPACK's uplo ('L' or 'U'), cuSOLVER's lower.
func (c *solverCtx) lower() (bool, error) {
	if c.target.library == "lapack" {
		u, err := c.letter("uplo", 'L', "LU")
		return u == 'L', err
	}
	l, err := c.attrs.flag("lower", false)
	if err != nil {
		return false, c.errorf("%v", err)
	}
	return l, nil
}

// trsm solves op(a)·x = alpha·b (side L) or x·op(a) = alpha·b (side R) for x, a triangular.
func trsm[T linalg.Scalar](c *solverCtx) ([]*tensor.Tensor, error) {
	var letters [4]byte
	for i, spec := range []struct {
		name, allowed string
		def           byte
	}{{"side", "LR", 'L'}, {"uplo", "LU", 'L'}, {"trans_x", "NTC", 'N'}, {"diag", "NU", 'N'}} {
		v, err := c.letter(spec.name, spec.def, spec.allowed)
		if err != nil {
			return nil, err
		}
		letters[i] = v
	}
	left, lower, unit := letters[0] == 'L', letters[1] == 'L', letters[3] == 'U'
	trans := map[byte]string{'N': "NO_TRANSPOSE", 'T': "TRANSPOSE", 'C': "ADJOINT"}[letters[2]]
	_, _, _, ma, na, as, err := input[T](c, 0, false)
	if err != nil {
		return nil, err
	}
	batch, rows, cols, m, n, bs, err := input[T](c, 1, false)
	if err != nil {
		return nil, err
	}
	side := n
	if left {
		side = m
	}
	ra, rb := len(c.ts[0].Shape), len(c.ts[1].Shape)
	if ma != na || ma != side || !slices.Equal(c.ts[0].Shape[:ra-2], c.ts[1].Shape[:rb-2]) {
		return nil, c.errorf("a is %s and b %s: a must be square with b's %s", c.ts[0], c.ts[1], map[bool]string{true: "rows", false: "columns"}[left])
	}
	alpha := T(1)
	if len(c.ts) == 3 {
		if c.ts[2].NumElements() != 1 {
			return nil, c.errorf("alpha %s is not one value", c.ts[2])
		}
		alpha = elems[T](c.ts[2])[0]
	}
	xs := make([][]T, len(bs))
	for k := range bs {
		if alpha != 1 {
			for i := range bs[k] {
				bs[k][i] *= alpha
			}
		}
		xs[k] = solveTriangular(as[k], bs[k], int64(ma), int64(m), int64(n), left, lower, unit, trans)
	}
	t, err := matrixResult(c, 0, c.ts[1].Type, batch, rows, cols, xs, m, n)
	return []*tensor.Tensor{t}, err
}

// permutation evaluates the pivots-to-permutation kernel of JAX's GPU LU: for each batch element, the
// permutation of 0..size-1 (size from the result) that the 0-based row swaps make.
func (c *solverCtx) permutation() ([]*tensor.Tensor, error) {
	p := c.ts[0]
	r := len(p.Shape)
	batch, k := p.Shape[:r-1], p.Shape[r-1]
	s := c.in.Shape
	if s.IsTuple() || s.Elem != dtype.S32 || len(s.Dims) != r || !slices.Equal(s.Dims[:r-1], batch) {
		return nil, c.errorf("result %s is not s32 with the pivots' batch dimensions", s.String())
	}
	size := s.Dims[r-1]
	piv := i64s(p)
	var out []int64
	for b := 0; b < count(batch); b++ {
		ip := make([]int, k)
		for j := range ip {
			ip[j] = int(piv[int64(b)*k+int64(j)])
		}
		for _, v := range linalg.PivotsToPermutation(ip, int(size)) {
			out = append(out, int64(v))
		}
	}
	return []*tensor.Tensor{fromI64(dtype.S32, s.Dims, out)}, nil
}

// count is the number of elements of an array of the dimensions dims (the batch of matrices).
func count(dims []int64) int {
	n := 1
	for _, d := range dims {
		n *= int(d)
	}
	return n
}

package interp

import (
	"fmt"
	"slices"

	"octet/dtype"
	"octet/gemm"
	"octet/hlo"
	"octet/tensor"
)

// MatMuler multiplies float32 matrices. Dot instructions with float results and the cuBLAS GEMM custom calls
// go through it, so that a faster kernel can replace package gemm's (Options.MatMuler).
type MatMuler interface {
	// MatMulBatched computes count independent products C_i = alpha*A_i*B_i + beta*C_i, the i-th operands
	// at element offsets i*strideA, i*strideB and i*strideC of their views' data, as gemm.MatMulBatched.
	MatMulBatched(count int, c gemm.Matrix, strideC int, a gemm.Matrix, strideA int, b gemm.Matrix, strideB int, alpha, beta float32)
}

type defaultMatMuler struct{}

func (defaultMatMuler) MatMulBatched(count int, c gemm.Matrix, strideC int, a gemm.Matrix, strideA int, b gemm.Matrix, strideB int, alpha, beta float32) {
	if count == 1 {
		gemm.MatMul(c, a, b, alpha, beta)
		return
	}
	gemm.MatMulBatched(count, c, strideC, a, strideA, b, strideB, alpha, beta)
}

// dotDims are the dimension numbers of a dot: which dimensions of each operand are batch and contracting
// dimensions; the others are free.
type dotDims struct {
	lhsBatch, rhsBatch, lhsContract, rhsContract []int64
}

// dotDimsOf returns the dimension numbers of in, a dot or a product with a dot's attributes.
func dotDimsOf(in *hlo.Instruction) dotDims {
	return dotDims{in.Ints("lhs_batch_dims"), in.Ints("rhs_batch_dims"), in.Ints("lhs_contracting_dims"), in.Ints("rhs_contracting_dims")}
}

// dotPlan is a dot reduced to count products of an M x K by a K x N matrix.
type dotPlan struct {
	batch, m, n, k int64
	outDims        []int64
	// lhsPerm orders the lhs as [batch, free, contracting] (or [batch, contracting, free] when lhsTrans):
	// nil when the data is already in that order.
	lhsPerm, rhsPerm []int64
	lhsTrans         bool // lhs stored as [batch, K, M]
	rhsTrans         bool // rhs stored as [batch, N, K]
}

// freeDims is hlo.FreeDims after checking that batch and contract name dimensions below rank, none twice.
func freeDims(rank int, batch, contract []int64) ([]int64, error) {
	used := make([]bool, rank)
	for _, d := range slices.Concat(batch, contract) {
		if d < 0 || d >= int64(rank) || used[d] {
			return nil, fmt.Errorf("dimension %d repeated or out of range for rank %d", d, rank)
		}
		used[d] = true
	}
	return hlo.FreeDims(rank, batch, contract), nil
}

func isIdentity(perm []int64) bool {
	for i, p := range perm {
		if p != int64(i) {
			return false
		}
	}
	return true
}

func concat(parts ...[]int64) []int64 {
	var r []int64
	for _, p := range parts {
		r = append(r, p...)
	}
	return r
}

// planDot checks the dimension numbers against the operand shapes and works out the product's geometry.
func planDot(lhs, rhs []int64, d dotDims) (*dotPlan, error) {
	if len(d.lhsBatch) != len(d.rhsBatch) || len(d.lhsContract) != len(d.rhsContract) {
		return nil, fmt.Errorf("%d lhs and %d rhs batch dimensions, %d and %d contracting dimensions",
			len(d.lhsBatch), len(d.rhsBatch), len(d.lhsContract), len(d.rhsContract))
	}
	lf, err := freeDims(len(lhs), d.lhsBatch, d.lhsContract)
	if err != nil {
		return nil, fmt.Errorf("lhs: %v", err)
	}
	rf, err := freeDims(len(rhs), d.rhsBatch, d.rhsContract)
	if err != nil {
		return nil, fmt.Errorf("rhs: %v", err)
	}
	p := &dotPlan{batch: 1, m: 1, n: 1, k: 1}
	for i := range d.lhsBatch {
		a, b := lhs[d.lhsBatch[i]], rhs[d.rhsBatch[i]]
		if a != b {
			return nil, fmt.Errorf("batch dimension sizes %d and %d differ", a, b)
		}
		p.batch *= a
		p.outDims = append(p.outDims, a)
	}
	for i := range d.lhsContract {
		a, b := lhs[d.lhsContract[i]], rhs[d.rhsContract[i]]
		if a != b {
			return nil, fmt.Errorf("contracting dimension sizes %d and %d differ", a, b)
		}
		p.k *= a
	}
	for _, x := range lf {
		p.m *= lhs[x]
		p.outDims = append(p.outDims, lhs[x])
	}
	for _, x := range rf {
		p.n *= rhs[x]
		p.outDims = append(p.outDims, rhs[x])
	}
	switch {
	case isIdentity(concat(d.lhsBatch, lf, d.lhsContract)):
	case isIdentity(concat(d.lhsBatch, d.lhsContract, lf)):
		p.lhsTrans = true
	default:
		p.lhsPerm = concat(d.lhsBatch, lf, d.lhsContract)
	}
	switch {
	case isIdentity(concat(d.rhsBatch, d.rhsContract, rf)):
	case isIdentity(concat(d.rhsBatch, rf, d.rhsContract)):
		p.rhsTrans = true
	default:
		p.rhsPerm = concat(d.rhsBatch, d.rhsContract, rf)
	}
	return p, nil
}

// matrices returns the gemm views of the operands' float32 data for plan p, transposing copies where the
// data is in no order a view can read.
func (p *dotPlan) matrices(lhs, rhs *tensor.Tensor) (a gemm.Matrix, strideA int, b gemm.Matrix, strideB int) {
	m, n, k := int(p.m), int(p.n), int(p.k)
	if p.lhsPerm != nil {
		lhs = transposeTensor(lhs, p.lhsPerm)
	}
	if p.rhsPerm != nil {
		rhs = transposeTensor(rhs, p.rhsPerm)
	}
	ad, bd := f32s(lhs), f32s(rhs)
	if p.lhsTrans {
		a = gemm.Matrix{Data: ad, Rows: m, Cols: k, Stride: m, Trans: true}
	} else {
		a = gemm.Matrix{Data: ad, Rows: m, Cols: k, Stride: k}
	}
	if p.rhsTrans {
		b = gemm.Matrix{Data: bd, Rows: k, Cols: n, Stride: k, Trans: true}
	} else {
		b = gemm.Matrix{Data: bd, Rows: k, Cols: n, Stride: n}
	}
	return a, m * k, b, k * n
}

// matmulF32 computes the batched product of plan p into c (batch*M*N float32, row-major), as
// c = alpha*A*B + beta*c.
func (e *evaluator) matmulF32(p *dotPlan, lhs, rhs *tensor.Tensor, c []float32, alpha, beta float32) {
	m, n := int(p.m), int(p.n)
	if p.batch == 0 || m == 0 || n == 0 {
		return
	}
	if p.k == 0 {
		for i := range c {
			if beta == 0 {
				c[i] = 0
			} else {
				c[i] *= beta
			}
		}
		return
	}
	cm := gemm.Matrix{Data: c, Rows: m, Cols: n, Stride: n}
	if _, ok := e.gemm.(defaultMatMuler); ok && (lhs.Type != dtype.F32 || rhs.Type != dtype.F32) &&
		gemm.SupportedType(lhs.Type) && gemm.SupportedType(rhs.Type) {
		// Narrow operands go to package gemm as they are: it decodes them while packing (or streams
		// them), so no float32 copy is made.
		a, b := p.typed(lhs, rhs)
		if p.batch == 1 {
			// A weight multiplied by again and again, packed once (see weightCache).
			if w := e.weights.weights(m, a.Typed, b.Typed); w != nil {
				gemm.MatMulWeights(cm, a.Typed, w, alpha, beta)
				return
			}
		}
		for i := 0; i < int(p.batch); i++ {
			cm.Data = c[i*m*n : (i+1)*m*n]
			gemm.MatMulTyped(cm, a.batch(i), b.batch(i), alpha, beta)
		}
		return
	}
	a, sa, b, sb := p.matrices(lhs, rhs)
	e.gemm.MatMulBatched(int(p.batch), cm, m*n, a, sa, b, sb, alpha, beta)
}

// typedBatches is an operand of a batched product as package gemm reads it: the view of the first batch,
// the next ones following every stride bytes.
type typedBatches struct {
	gemm.Typed
	stride int
}

func (t typedBatches) batch(i int) gemm.Typed {
	x := t.Typed
	x.Data = x.Data[i*t.stride : (i+1)*t.stride]
	return x
}

// typed returns the gemm views of the operands' data, of their own element types, for plan p, transposing
// copies where the data is in no order a view can read.
func (p *dotPlan) typed(lhs, rhs *tensor.Tensor) (a, b typedBatches) {
	m, n, k := int(p.m), int(p.n), int(p.k)
	if p.lhsPerm != nil {
		lhs = transposeTensor(lhs, p.lhsPerm)
	}
	if p.rhsPerm != nil {
		rhs = transposeTensor(rhs, p.rhsPerm)
	}
	a = typedBatches{gemm.Typed{Type: lhs.Type, Data: lhs.Data, Rows: m, Cols: k, Stride: k}, m * k * lhs.Type.ByteSize()}
	if p.lhsTrans {
		a.Stride, a.Trans = m, true
	}
	b = typedBatches{gemm.Typed{Type: rhs.Type, Data: rhs.Data, Rows: k, Cols: n, Stride: n}, k * n * rhs.Type.ByteSize()}
	if p.rhsTrans {
		b.Stride, b.Trans = k, true
	}
	return a, b
}

func (e *evaluator) dot(in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error) {
	if len(ts) != 2 {
		return nil, unsupportedf(in, "dot with %d operands (sparse dots)", len(ts))
	}
	if in.Attr("sparsity") != nil {
		return nil, unsupportedf(in, "sparse dot")
	}
	d := dotDimsOf(in)
	return e.dotGeneral(in, ts[0], ts[1], d)
}

// dotGeneral evaluates a dot as XLA's evaluator does: both operands are first converted to the result's
// element type (exact when that is wider), then multiplied and accumulated in float32 for float results of
// 32 bits or fewer (through the MatMuler; narrower results are rounded once at the end), in float64 for f64,
// and in the result's integer type (wrapping) for integers.
func (e *evaluator) dotGeneral(in *hlo.Instruction, lhs, rhs *tensor.Tensor, d dotDims) (*tensor.Tensor, error) {
	return e.dotOf(in, lhs, rhs, d, in.Shape.Elem, in.Shape.Dims)
}

// dotOf is dotGeneral giving a result of element type out and dimensions dims (in's own or, for a part of
// an instruction such as one group of a ragged-dot, the part's).
func (e *evaluator) dotOf(in *hlo.Instruction, lhs, rhs *tensor.Tensor, d dotDims, out dtype.Type, dims []int64) (*tensor.Tensor, error) {
	p, err := planDot(lhs.Shape, rhs.Shape, d)
	if err != nil {
		return nil, errorf(in, "dot of %s and %s: %v", lhs, rhs, err)
	}
	if !slices.Equal(p.outDims, dims) {
		return nil, errorf(in, "dot of %s and %s gives %s, where %s is needed", lhs, rhs,
			dimsString(out, p.outDims), dimsString(out, dims))
	}
	if err := e.charge(p.batch * p.m * p.n * p.k); err != nil {
		return nil, err
	}
	dom := domainOf(out)
	if dom == domComplex || domainOf(lhs.Type) == domComplex || domainOf(rhs.Type) == domComplex {
		return e.dotComplex(in, p, lhs, rhs, out, dims)
	}
	// An operand that converts exactly to a float32 result is multiplied as it is (package gemm decodes
	// it to the same float32 values).
	exact := func(t dtype.Type) bool { return out == dtype.F32 && domainOf(t) == domFloat32 && gemm.SupportedType(t) }
	if lhs.Type != out && !exact(lhs.Type) {
		if lhs, err = convertTensor(lhs, out, lhs.Shape); err != nil {
			return nil, unsupportedf(in, "dot: %v", err)
		}
	}
	if rhs.Type != out && !exact(rhs.Type) {
		if rhs, err = convertTensor(rhs, out, rhs.Shape); err != nil {
			return nil, unsupportedf(in, "dot: %v", err)
		}
	}
	switch dom {
	case domFloat32:
		var c []float32
		var r *tensor.Tensor
		if out == dtype.F32 {
			r = tensor.New(out, dims)
			c = tensor.View[float32](r)
		} else {
			c = make([]float32, p.batch*p.m*p.n)
		}
		e.matmulF32(p, lhs, rhs, c, 1, 0)
		if r == nil {
			r = fromF32(out, dims, c)
		}
		return r, nil
	case domFloat64:
		a, b := p.canonical(lhs, rhs)
		return fromF64(out, dims, naiveMatMul(p, f64s(a), f64s(b), fma64, e.threads)), nil
	case domInt:
		a, b := p.canonical(lhs, rhs)
		ii := intInfoOf(out)
		if out == dtype.PRED {
			return nil, unsupportedf(in, "dot of pred")
		}
		c := naiveMatMul(p, i64s(a), i64s(b), func(x, y, acc int64) int64 { return acc + x*y }, e.threads)
		for i := range c {
			c[i] = ii.norm(c[i])
		}
		return fromI64(out, dims, c), nil
	}
	return nil, unsupportedf(in, "dot giving %s", out)
}

// canonical returns the operands transposed to [batch, M, K] and [batch, K, N].
func (p *dotPlan) canonical(lhs, rhs *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor) {
	switch {
	case p.lhsPerm != nil:
		lhs = transposeTensor(lhs, p.lhsPerm)
	case p.lhsTrans:
		lhs = transposeTensor(reshapeTensor(lhs, []int64{p.batch, p.k, p.m}), []int64{0, 2, 1})
	}
	switch {
	case p.rhsPerm != nil:
		rhs = transposeTensor(rhs, p.rhsPerm)
	case p.rhsTrans:
		rhs = transposeTensor(reshapeTensor(rhs, []int64{p.batch, p.n, p.k}), []int64{0, 2, 1})
	}
	return lhs, rhs
}

func reshapeTensor(t *tensor.Tensor, dims []int64) *tensor.Tensor {
	return &tensor.Tensor{Type: t.Type, Shape: dims, Data: t.Data}
}

// naiveMatMul multiplies [batch, M, K] by [batch, K, N] with a plain loop: each element of the result is
// the chain madd(a_ik, b_kj, acc) over k in order, from zero. Rows are shared among threads goroutines.
func naiveMatMul[T int64 | float64 | complex128](p *dotPlan, a, b []T, madd func(x, y, acc T) T, threads int) []T {
	m, n, k := p.m, p.n, p.k
	c := make([]T, p.batch*m*n)
	parallelFor(threads, int(p.batch*m), int(max(1, elementwiseGrain/max(n*k, 1))), func(lo, hi int) {
		for r := int64(lo); r < int64(hi); r++ {
			bi, i := r/m, r%m
			ab, bb := a[bi*m*k:], b[bi*k*n:]
			row := c[r*n : (r+1)*n]
			for kk := int64(0); kk < k; kk++ {
				x := ab[i*k+kk]
				brow := bb[kk*n : (kk+1)*n]
				for j := range row {
					row[j] = madd(x, brow[j], row[j])
				}
			}
		}
	})
	return c
}

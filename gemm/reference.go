package gemm

// Reference computes C = alpha*A*B + beta*C by the definition of the numerics contract (see the package
// documentation), with the naive triple loop: each element's sum S is the chain of float32 fused
// multiply-adds over k in order, starting from zero; then alpha*S is rounded, and beta*C added with one
// rounding where beta != 0. When alpha == 0 or K == 0, A and B are not read and C becomes beta*C (zero
// when beta == 0, C not read). Every ordered kernel gives its results bit for bit. It checks shapes as
// MatMul does; it is slow and exists for tests.
func Reference(c, a, b Matrix, alpha, beta float32) {
	checkShapes(c, a, b)
	c.check("C", 0, len(c.Data))
	a.check("A", 0, len(a.Data))
	b.check("B", 0, len(b.Data))
	k := a.Cols
	for i := 0; i < c.Rows; i++ {
		row := c.Data[i*c.Stride : i*c.Stride+c.Cols]
		for j := range row {
			switch {
			case alpha == 0 || k == 0:
				if beta == 0 {
					row[j] = 0
				} else {
					row[j] *= beta
				}
			default:
				var s float32
				for p := 0; p < k; p++ {
					s = fma32(a.At(i, p), b.At(p, j), s)
				}
				row[j] = combine(alpha, s, beta, row[j])
			}
		}
	}
}

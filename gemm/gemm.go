package gemm

import (
	"fmt"
	"runtime"
	"sync/atomic"

	"octet/dtype"
)

// Matrix is a strided row-major view of float32 data: element (i, j) is Data[i*Stride+j] when !Trans,
// Data[j*Stride+i] when Trans (the logical matrix is the transpose of the stored one).
//
// Rows and Cols are the logical shape. Stride is the distance between consecutive stored rows: at least
// Cols when !Trans, at least Rows when Trans (any value when the matrix is empty).
type Matrix struct {
	Data       []float32
	Rows, Cols int
	Stride     int
	Trans      bool
}

// NewMatrix returns a dense rows x cols matrix (Stride == cols) over data, which must hold rows*cols
// elements; a nil data allocates zeros.
func NewMatrix(rows, cols int, data []float32) Matrix {
	if data == nil {
		data = make([]float32, rows*cols)
	}
	return Matrix{Data: data, Rows: rows, Cols: cols, Stride: cols}
}

// T returns the transpose of m: the same data, read the other way.
func (m Matrix) T() Matrix {
	return Matrix{Data: m.Data, Rows: m.Cols, Cols: m.Rows, Stride: m.Stride, Trans: !m.Trans}
}

// At returns element (i, j) of the logical matrix.
func (m Matrix) At(i, j int) float32 {
	if m.Trans {
		return m.Data[j*m.Stride+i]
	}
	return m.Data[i*m.Stride+j]
}

// storedShape returns the shape of the row-major array the view reads.
func (m Matrix) storedShape() (rows, cols int) {
	if m.Trans {
		return m.Cols, m.Rows
	}
	return m.Rows, m.Cols
}

// check panics unless m is a well-formed view of data of the given length (in elements); offset is added to
// every index (batches).
func (m Matrix) check(name string, offset, length int) {
	if m.Rows < 0 || m.Cols < 0 {
		panic(fmt.Sprintf("gemm: %s has negative shape %dx%d", name, m.Rows, m.Cols))
	}
	sr, sc := m.storedShape()
	if sr == 0 || sc == 0 {
		return // an empty matrix reads nothing, whatever its stride
	}
	if m.Stride < sc {
		panic(fmt.Sprintf("gemm: %s (%dx%d, trans=%v) has stride %d, less than its stored row length %d",
			name, m.Rows, m.Cols, m.Trans, m.Stride, sc))
	}
	if offset < 0 {
		panic(fmt.Sprintf("gemm: %s has a negative batch offset %d", name, offset))
	}
	if need := offset + (sr-1)*m.Stride + sc; need > length {
		panic(fmt.Sprintf("gemm: %s (%dx%d, stride %d, trans=%v, offset %d) needs %d elements, has %d",
			name, m.Rows, m.Cols, m.Stride, m.Trans, offset, need, length))
	}
}

// checkShapes panics unless C (m x n) = A (m x k) * B (k x n) is well formed.
func checkShapes(c, a, b Matrix) {
	if c.Trans {
		panic("gemm: C must not be transposed")
	}
	if a.Rows != c.Rows || b.Cols != c.Cols || a.Cols != b.Rows {
		panic(fmt.Sprintf("gemm: shapes do not match: C %dx%d = A %dx%d * B %dx%d",
			c.Rows, c.Cols, a.Rows, a.Cols, b.Rows, b.Cols))
	}
}

// MatMul computes C = alpha*A*B + beta*C, A Rows x K, B K x Cols, C Rows x Cols (C never transposed).
// When beta == 0, C is not read (NaNs in C do not propagate). When alpha == 0 or K == 0, A and B are not
// read. Uses up to Threads() goroutines.
//
// MatMul panics with a message naming the operand when the shapes do not match or a view does not fit its
// data; callers that take shapes from input check them first.
func MatMul(c Matrix, a, b Matrix, alpha, beta float32) {
	checkShapes(c, a, b)
	c.check("C", 0, len(c.Data))
	a.check("A", 0, len(a.Data))
	b.check("B", 0, len(b.Data))
	matMul(current().forTypes(dtype.F32, dtype.F32), Threads(), c.view(), a.view(), b.view(), alpha, beta)
}

// MatMulBatched computes count independent products C_i = alpha*A_i*B_i + beta*C_i, where A_i is a viewed
// at element offset i*strideA of a.Data (likewise B_i, C_i). Every product has the shapes of a, b and c;
// a stride of 0 reuses one operand for every batch (a broadcast). The C_i must not overlap each other.
func MatMulBatched(count int, c Matrix, strideC int, a Matrix, strideA int, b Matrix, strideB int, alpha, beta float32) {
	if count < 0 {
		panic(fmt.Sprintf("gemm: negative batch count %d", count))
	}
	checkShapes(c, a, b)
	if count == 0 {
		return
	}
	if strideA < 0 || strideB < 0 || strideC < 0 {
		panic(fmt.Sprintf("gemm: negative batch stride (A %d, B %d, C %d)", strideA, strideB, strideC))
	}
	c.check("C", (count-1)*strideC, len(c.Data))
	if span := (c.Rows-1)*c.Stride + c.Cols; count > 1 && c.Rows > 0 && c.Cols > 0 && strideC < span {
		panic(fmt.Sprintf("gemm: batches of C overlap: stride %d is less than the %d elements one spans", strideC, span))
	}
	a.check("A", (count-1)*strideA, len(a.Data))
	b.check("B", (count-1)*strideB, len(b.Data))
	matMulBatched(current().forTypes(dtype.F32, dtype.F32), Threads(), count, c.view(), strideC, a.view(), strideA, b.view(), strideB, alpha, beta)
}

var threads atomic.Int64

// Threads returns the number of goroutines MatMul may use.
func Threads() int {
	if n := threads.Load(); n > 0 {
		return int(n)
	}
	return runtime.GOMAXPROCS(0)
}

// SetThreads sets the number of goroutines MatMul may use and returns the previous setting. n < 1 restores
// the default, runtime.GOMAXPROCS(0) at the time of each call.
func SetThreads(n int) int {
	prev := Threads()
	if n < 1 {
		n = 0
	}
	threads.Store(int64(n))
	return prev
}

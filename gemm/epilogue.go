package gemm

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync/atomic"

	"octet/dtype"
)

// Activation is the function an Epilogue applies to each element.
type Activation uint8

const (
	NoActivation Activation = iota
	ReLU                    // max(x, 0); NaN stays NaN
	GELU                    // 0.5*x*(1+tanh(sqrt(2/pi)*(x+0.044715*x^3))), in float32 but tanh in float64
)

// An Epilogue is what MatMulEpilogue does to each element of the product A*B as it stores it, the way a
// cuBLASLt FP8 matmul does (and torch._scaled_mm with row-wise scales): with s the float32 sum of the
// products of row i of A and column j of B, one float32 operation after the other, each rounded,
//
//	x = Scale * s
//	x = x * RowScale[i]          (when RowScale is set)
//	x = x * ColScale[j]          (when ColScale is set)
//	x = x + AddScale*Add(i, j)   (when Add is set; the product AddScale*Add rounded first)
//	x = x + Bias[j]              (when Bias is set)
//	x = Activation(x)
//	amax = max(amax, |x|)        (NaN if any x is NaN)
//	x = x * OutScale
//	D(i, j) = x converted to D's type: clamped to the largest finite value first when Saturate is set
//	                             (NaN stays NaN), then rounded to nearest even
//
// The elements are finished tile by tile, on the goroutine that summed them, while they are in cache.
type Epilogue struct {
	Scale              float32   // 1 for none
	RowScale, ColScale []float32 // one per row of C, one per column, or nil
	Add                *Matrix   // M x N, or nil
	AddScale           float32
	Bias               []float32 // one per column, or nil
	Activation         Activation
	OutScale           float32 // 1 for none
	Saturate           bool

	// D receives the result, M x N, row-major with stride DStride elements, in type DType (any float type
	// of 32 bits or fewer); a nil D leaves the result in C as float32.
	D       []byte
	DType   dtype.Type
	DStride int

	// Amax, when set, receives max |x| over the elements before OutScale.
	Amax *float32

	amax atomic.Uint32 // the running abs-max, as float32 bits; NaN stays
}

// MatMulEpilogue computes the product A*B (A and B of any type MatMulTyped takes) into C (M x N float32,
// its initial contents never read) and finishes every element with ep. Afterwards C holds the result when
// ep.D is nil, else the sums s. It panics, like MatMul, when a shape or a length does not fit.
func MatMulEpilogue(c Matrix, a, b Typed, ep *Epilogue) {
	checkShapes(c, Matrix{Rows: a.Rows, Cols: a.Cols}, Matrix{Rows: b.Rows, Cols: b.Cols})
	c.check("C", 0, len(c.Data))
	m, n := c.Rows, c.Cols
	for _, v := range []struct {
		name string
		s    []float32
		want int
	}{{"RowScale", ep.RowScale, m}, {"ColScale", ep.ColScale, n}, {"Bias", ep.Bias, n}} {
		if v.s != nil && len(v.s) != v.want {
			panic(fmt.Sprintf("gemm: epilogue %s has %d elements, want %d", v.name, len(v.s), v.want))
		}
	}
	if ep.Add != nil {
		checkShapes(*ep.Add, Matrix{Rows: m}, Matrix{Cols: n})
		ep.Add.check("Add", 0, len(ep.Add.Data))
	}
	if ep.D != nil {
		if !ep.DType.IsFloat() || ep.DType.BitWidth() > 32 {
			panic("gemm: epilogue D has type " + ep.DType.String() + ", not a float type of 32 bits or fewer")
		}
		Matrix{Rows: m, Cols: n, Stride: ep.DStride}.check("D", 0, len(ep.D)/ep.DType.ByteSize())
	}
	ep.amax.Store(0)
	av, bv := a.view("A"), b.view("B")
	cv := c.view()
	if m > 0 && n > 0 {
		kern := current()
		if streams(kern, m, &bv) && av.cols > 0 {
			src := streamSource{typ: bv.typ, size: bv.size, k: bv.rows, n: bv.cols, data: bv.raw, stride: bv.stride}
			stream(kern, Threads(), cv, av, &src, 1, 0)
			ep.finish(cv, 0, 0, m, n)
		} else {
			matMulEp(kern.forTypes(a.Type, b.Type), Threads(), cv, av, bv, 1, 0, ep)
		}
	}
	if ep.Amax != nil {
		*ep.Amax = math.Float32frombits(ep.amax.Load())
	}
}

// finish applies the epilogue to the rows x cols block of C whose first element, c.f32[0], is element
// (i0, j0) of C, and which holds the sums.
func (ep *Epilogue) finish(c view, i0, j0, rows, cols int) {
	amax := float32(0)
	nan := false
	var line [64]float32
	for i := 0; i < rows; i++ {
		row := c.f32[i*c.stride : i*c.stride+cols]
		for jb := 0; jb < cols; jb += len(line) {
			out := line[:min(len(line), cols-jb)]
			for jj := range out {
				j := jb + jj
				// Every operation rounds on its own: the conversions keep the compiler from fusing
				// a multiply and an add.
				x := float32(ep.Scale * row[j])
				if ep.RowScale != nil {
					x = float32(x * ep.RowScale[i0+i])
				}
				if ep.ColScale != nil {
					x = float32(x * ep.ColScale[j0+j])
				}
				if ep.Add != nil {
					x = float32(x + float32(ep.AddScale*ep.Add.At(i0+i, j0+j)))
				}
				if ep.Bias != nil {
					x = float32(x + ep.Bias[j0+j])
				}
				switch ep.Activation {
				case ReLU:
					if x < 0 {
						x = 0
					}
				case GELU:
					x = geluTanh(x)
				}
				if ax := float32(math.Abs(float64(x))); ax != ax {
					nan = true
				} else if ax > amax {
					amax = ax
				}
				x = float32(x * ep.OutScale)
				if ep.Saturate {
					if max := float32(ep.DType.Finfo().Max); x > max {
						x = max
					} else if x < -max {
						x = -max
					}
				}
				out[jj] = x
			}
			ep.store(row[jb:jb+len(out)], out, i0+i, j0+jb)
		}
	}
	if nan {
		amax = float32(math.NaN())
	}
	ep.noteAmax(amax)
}

// store writes the finished elements out, which start at element (i, j), to D, or to row when D is nil.
func (ep *Epilogue) store(row, out []float32, i, j int) {
	if ep.D == nil {
		copy(row, out)
		return
	}
	size := ep.DType.ByteSize()
	d := ep.D[(i*ep.DStride+j)*size : (i*ep.DStride+j+len(out))*size]
	switch {
	case size == 1:
		dtype.EncodeSliceFloat32(ep.DType, d, out, false)
	case ep.DType == dtype.F32:
		for k, x := range out {
			binary.LittleEndian.PutUint32(d[4*k:], math.Float32bits(x))
		}
	default:
		var u [64]uint16
		dtype.EncodeSliceFloat32U16(ep.DType, u[:len(out)], out, false)
		for k, h := range u[:len(out)] {
			binary.LittleEndian.PutUint16(d[2*k:], h)
		}
	}
}

// noteAmax folds a block's abs-max into the running one; NaN, once there, stays.
func (ep *Epilogue) noteAmax(v float32) {
	for {
		old := ep.amax.Load()
		cur := math.Float32frombits(old)
		if cur != cur || (v == v && v <= cur) {
			return
		}
		if ep.amax.CompareAndSwap(old, math.Float32bits(v)) {
			return
		}
	}
}

// geluTanh is GELU's tanh approximation in float32 arithmetic (tanh itself in float64, rounded).
func geluTanh(x float32) float32 {
	const c = 0.7978845608028654 // sqrt(2/pi)
	inner := float32(float32(c) * float32(x+float32(float32(0.044715)*float32(x*float32(x*x)))))
	t := float32(math.Tanh(float64(inner)))
	return float32(float32(0.5*x) * float32(1+t))
}

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

	amax  atomic.Uint32 // the running abs-max, as float32 bits; NaN stays
	limit float32       // what Saturate clamps to: the largest finite value of D's type
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
	ep.limit = float32(math.Inf(1))
	if ep.Saturate {
		dt := ep.DType
		if ep.D == nil {
			dt = dtype.F32
		}
		ep.limit = float32(dt.Finfo().Max)
	}
	av, bv := a.view("A"), b.view("B")
	cv := c.view()
	if m > 0 && n > 0 {
		kern := current()
		if planFor(kern, m, &bv) != Blocked && av.cols > 0 {
			src := sourceOf(&bv, nil)
			stream(kern, Threads(), cv, av, &src, 1, 0)
			ep.finish(kern.isa, cv, 0, 0, m, n)
		} else {
			matMulEp(kern.forTypes(a.Type, b.Type), Threads(), cv, av, bv, 1, 0, ep)
		}
	}
	if ep.Amax != nil {
		*ep.Amax = math.Float32frombits(ep.amax.Load())
	}
}

// finish applies the epilogue to the rows x cols block of C whose first element, c.f32[0], is element
// (i0, j0) of C, and which holds the sums. It works through each row 64 elements at a time, one step of
// the epilogue after the other over the 64 (each a short loop on locals), which is several times faster
// than taking every element through all the steps.
func (ep *Epilogue) finish(h isa, c view, i0, j0, rows, cols int) {
	scale, outScale, addScale := ep.Scale, ep.OutScale, ep.AddScale
	rowScale, colScale, bias, add := ep.RowScale, ep.ColScale, ep.Bias, ep.Add
	act := ep.Activation
	limit := ep.limit
	// The abs-max as float32 bits without the sign: for numbers their order is that of the values, and
	// every NaN is above every number.
	var amax uint32
	var line [64]float32
	for i := 0; i < rows; i++ {
		row := c.f32[i*c.stride : i*c.stride+cols]
		for jb := 0; jb < cols; jb += len(line) {
			n := min(len(line), cols-jb)
			out, sums := line[:n], row[jb:jb+n]
			j := j0 + jb
			// Every operation rounds on its own: the conversions keep the compiler from fusing a
			// multiply and an add.
			for k := h.epScaleFast(out, sums, scale); k < n; k++ {
				out[k] = float32(scale * sums[k])
			}
			if rowScale != nil {
				r := rowScale[i0+i]
				for k := range out {
					out[k] = float32(out[k] * r)
				}
			}
			if colScale != nil {
				cs := colScale[j : j+n]
				for k := h.epMulFast(out, cs); k < n; k++ {
					out[k] = float32(out[k] * cs[k])
				}
			}
			switch {
			case add != nil && !add.Trans:
				v := add.Data[(i0+i)*add.Stride+j : (i0+i)*add.Stride+j+n]
				for k := h.epAddFast(out, v, addScale); k < n; k++ {
					out[k] = float32(out[k] + float32(addScale*v[k]))
				}
			case add != nil:
				for k := range out {
					out[k] = float32(out[k] + float32(addScale*add.At(i0+i, j+k)))
				}
			}
			if bias != nil {
				b := bias[j : j+n]
				for k := h.epAddFast(out, b, 1); k < n; k++ {
					out[k] = float32(out[k] + b[k])
				}
			}
			switch act {
			case ReLU:
				// Negative numbers (not -0, not a NaN) become +0: on the bits, with no branch to
				// mispredict on signs that come at random.
				for k := h.epReLUFast(out); k < n; k++ {
					b := math.Float32bits(out[k])
					if b-0x80000001 < 0x7f800000 {
						b = 0
					}
					out[k] = math.Float32frombits(b)
				}
			case GELU:
				for k, x := range out {
					out[k] = geluTanh(x)
				}
			}
			done, m := h.epFinishFast(out, outScale, limit)
			amax = max(amax, m)
			for k := done; k < n; k++ {
				x := out[k]
				amax = max(amax, math.Float32bits(x)&0x7fffffff)
				out[k] = min(max(float32(x*outScale), -limit), limit) // NaN stays NaN
			}
			ep.store(h, row[jb:jb+n], out, i0+i, j)
		}
	}
	if amax > 0x7f800000 {
		ep.noteAmax(float32(math.NaN()))
	} else {
		ep.noteAmax(math.Float32frombits(amax))
	}
}

// store writes the finished elements out, which start at element (i, j), to D, or to row when D is nil.
func (ep *Epilogue) store(h isa, row, out []float32, i, j int) {
	if ep.D == nil {
		copy(row, out)
		return
	}
	size := ep.DType.ByteSize()
	d := ep.D[(i*ep.DStride+j)*size : (i*ep.DStride+j+len(out))*size]
	switch {
	case ep.DType == dtype.F8E4M3FN:
		done := h.epEncodeE4M3FNFast(d, out)
		dtype.EncodeSliceFloat32(ep.DType, d[done:], out[done:], false)
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

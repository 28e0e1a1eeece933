package blockscale

import (
	"fmt"
	"math"
	"slices"

	"octet/dtype"
	"octet/tensor"
)

// Tensor is an array in a block-scaled format: its element codes, one scale per block of BlockSize
// consecutive elements along Axis, and NVFP4's tensor scale.
type Tensor struct {
	Format Format
	// Data holds the element codes, of type Format.Elem, in the array's shape (row-major).
	Data *tensor.Tensor
	// Scales holds the scale codes, of type Format.Scale: Data's shape with dimension Axis divided by the
	// block size, rounded up (a last, shorter block has a scale of its own).
	Scales *tensor.Tensor
	// Axis is the dimension the blocks run along.
	Axis int
	// TensorScale is NVFP4's tensor scale g (a value is element x scale x g); 1 in MX formats.
	TensorScale float32
}

// Options adjust Quantize.
type Options struct {
	// TensorScale is NVFP4's tensor scale; 0 chooses DefaultTensorScale of the array's largest finite
	// magnitude. MX formats take none.
	TensorScale float32
}

// ScaleShape returns the shape of the scales of an array of the given shape blocked along axis.
func (f Format) ScaleShape(shape []int64, axis int) []int64 {
	s := append([]int64(nil), shape...)
	if axis >= 0 && axis < len(s) {
		s[axis] = (s[axis] + int64(f.BlockSize) - 1) / int64(f.BlockSize)
	}
	return s
}

// Quantize quantizes x (of any real float type, or an integer type) in format f, in blocks along axis (a
// negative axis counts from the end: -1 is the last dimension).
func Quantize(f Format, x *tensor.Tensor, axis int, opt Options) (*Tensor, error) {
	if !f.Valid() {
		return nil, fmt.Errorf("blockscale: invalid format")
	}
	if !x.Type.IsFloat() && !x.Type.IsInteger() {
		return nil, fmt.Errorf("blockscale: cannot quantize %s values", x.Type)
	}
	rank := len(x.Shape)
	if rank == 0 {
		return nil, fmt.Errorf("blockscale: cannot block a scalar; give an array")
	}
	if axis < 0 {
		axis += rank
	}
	if axis < 0 || axis >= rank {
		return nil, fmt.Errorf("blockscale: axis out of range for %s", x)
	}
	vals := x.Float64s()
	g := 1.0
	if f.TensorScale {
		switch {
		case opt.TensorScale == 0:
			amax := 0.0
			for _, v := range vals {
				if a := math.Abs(v); a <= math.MaxFloat64 {
					amax = max(amax, a)
				}
			}
			g = float64(DefaultTensorScale(amax))
		case opt.TensorScale < 0 || math.IsInf(float64(opt.TensorScale), 0) || opt.TensorScale != opt.TensorScale:
			return nil, fmt.Errorf("blockscale: the tensor scale must be positive and finite, not %v", opt.TensorScale)
		default:
			g = float64(opt.TensorScale)
		}
	} else if opt.TensorScale != 0 && opt.TensorScale != 1 {
		return nil, fmt.Errorf("blockscale: %s has no tensor scale", f.Name)
	}
	q := &Tensor{Format: f, Data: tensor.New(f.Elem, x.Shape), Scales: tensor.New(f.Scale, f.ScaleShape(x.Shape, axis)),
		Axis: axis, TensorScale: float32(g)}
	outer, n, inner := split(x.Shape, axis)
	k := int64(f.BlockSize)
	nb := (n + k - 1) / k
	block := make([]float64, k)
	codes := make([]uint8, k)
	for o := int64(0); o < outer; o++ {
		for in := int64(0); in < inner; in++ {
			for b := int64(0); b < nb; b++ {
				lo, hi := b*k, min(b*k+k, n)
				src := block[:hi-lo]
				for j := lo; j < hi; j++ {
					src[j-lo] = vals[(o*n+j)*inner+in]
				}
				s := f.QuantizeBlock(codes, src, g)
				q.Scales.Data[(o*nb+b)*inner+in] = s
				for j := lo; j < hi; j++ {
					q.Data.Data[(o*n+j)*inner+in] = codes[j-lo]
				}
			}
		}
	}
	return q, nil
}

// split returns the number of elements before, along and after axis.
func split(shape []int64, axis int) (outer, n, inner int64) {
	outer, inner = 1, 1
	for i, d := range shape {
		switch {
		case i < axis:
			outer *= d
		case i > axis:
			inner *= d
		}
	}
	return outer, shape[axis], inner
}

// Check reports whether q is consistent: formats, types and shapes agree.
func (q *Tensor) Check() error {
	switch {
	case !q.Format.Valid():
		return fmt.Errorf("invalid format")
	case q.Data == nil || q.Scales == nil:
		return fmt.Errorf("missing data or scales")
	case q.Data.Type != q.Format.Elem:
		return fmt.Errorf("%s elements are %s, not %s", q.Format.Name, q.Format.Elem, q.Data.Type)
	case q.Scales.Type != q.Format.Scale:
		return fmt.Errorf("%s scales are %s, not %s", q.Format.Name, q.Format.Scale, q.Scales.Type)
	case q.Axis < 0 || q.Axis >= len(q.Data.Shape):
		return fmt.Errorf("axis %d out of range for %s", q.Axis, q.Data)
	}
	want := q.Format.ScaleShape(q.Data.Shape, q.Axis)
	if !slices.Equal(want, q.Scales.Shape) {
		return fmt.Errorf("scales %s do not fit data %s blocked by %d along axis %d (want %s)", q.Scales, q.Data,
			q.Format.BlockSize, q.Axis, tensor.New(q.Format.Scale, want))
	}
	if q.Format.TensorScale && (q.TensorScale <= 0 || math.IsInf(float64(q.TensorScale), 0) || q.TensorScale != q.TensorScale) {
		return fmt.Errorf("the tensor scale must be positive and finite, not %v", q.TensorScale)
	}
	return nil
}

// Dequantize returns the values of q as an f32 array of q's shape, each rounded once to float32.
func (q *Tensor) Dequantize() *tensor.Tensor {
	out := tensor.New(dtype.F32, q.Data.Shape)
	DequantizeInto(tensor.View[float32](out), q.Format, q.Data.Data, q.Scales.Data, q.Data.Shape, q.Axis, q.TensorScale)
	return out
}

// DequantizeInto writes the values of an array of element codes elems (row-major, of the given shape)
// whose scale codes scales are blocked along axis (in the layout of Format.ScaleShape) to dst, each
// rounded once to float32. It is the decoding a block-scaled GEMM does before it multiplies.
func DequantizeInto(dst []float32, f Format, elems, scales []uint8, shape []int64, axis int, g float32) {
	outer, n, inner := split(shape, axis)
	k := int64(f.BlockSize)
	nb := (n + k - 1) / k
	// The value of each (element, scale) pair is looked up: at most 256 element codes per scale.
	var table [256]float32
	var tableScale = -1
	decodeElem := dtype.DecodeTable(f.Elem)
	mask := uint8(1<<f.Elem.BitWidth() - 1)
	for o := int64(0); o < outer; o++ {
		for b := int64(0); b < nb; b++ {
			for in := int64(0); in < inner; in++ {
				s := int(scales[(o*nb+b)*inner+in])
				if s != tableScale {
					sv := f.ScaleValue(uint8(s))
					if f.TensorScale {
						sv *= float64(g)
					}
					for c := range 1 << f.Elem.BitWidth() {
						table[c] = float32(float64(decodeElem[c]) * sv)
					}
					tableScale = s
				}
				for j := b * k; j < min(b*k+k, n); j++ {
					i := (o*n+j)*inner + in
					dst[i] = table[elems[i]&mask]
				}
			}
		}
	}
}

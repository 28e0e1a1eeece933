package interp

import (
	"math"

	"octet/dtype"
	"octet/gemm"
	"octet/tensor"
)

// domain is the working type an element type computes in: XLA's evaluator computes bf16, f16 and the
// narrow floats in float32 and rounds each result back to the type, f32 in float32, f64 in float64, and the
// integers in their own width (here int64, wrapped to the width when stored).
type domain uint8

const (
	domFloat32 domain = iota // every real float type of 32 bits or fewer
	domFloat64               // f64
	domInt                   // signed and unsigned integers and pred, as int64 (unsigned ones zero-extended)
	domComplex               // c64, c128
)

func domainOf(t dtype.Type) domain {
	switch {
	case t == dtype.F64:
		return domFloat64
	case t.IsFloat():
		return domFloat32
	case t.IsComplex():
		return domComplex
	}
	return domInt
}

// f32s returns the elements of t as float32: a view of the data for f32 (which must not be modified),
// a new slice otherwise. Integers convert with rounding, f64 rounds to nearest even.
func f32s(t *tensor.Tensor) []float32 {
	n := t.NumElements()
	switch ty := t.Type; {
	case ty == dtype.F32:
		return tensor.View[float32](t)
	case ty == dtype.BF16 || ty == dtype.F16 || ty.IsFloat() && ty.BitWidth() <= 8:
		out := make([]float32, n)
		decodeFloat32Into(ty, out, t.Data)
		return out
	case ty == dtype.F64:
		out := make([]float32, n)
		for i, x := range tensor.View[float64](t) {
			out[i] = float32(x)
		}
		return out
	case ty.IsInteger() || ty == dtype.PRED:
		out := make([]float32, n)
		if ty == dtype.U64 {
			for i, x := range tensor.View[uint64](t) {
				out[i] = float32(x)
			}
			return out
		}
		for i, x := range i64s(t) {
			out[i] = float32(x)
		}
		return out
	}
	return t.Float32s()
}

// f64s returns the elements of t as float64: a view for f64 (not to be modified), a new slice otherwise.
func f64s(t *tensor.Tensor) []float64 {
	switch ty := t.Type; {
	case ty == dtype.F64:
		return tensor.View[float64](t)
	case ty == dtype.U64:
		out := make([]float64, t.NumElements())
		for i, x := range tensor.View[uint64](t) {
			out[i] = float64(x)
		}
		return out
	case ty.IsInteger() || ty == dtype.PRED:
		out := make([]float64, t.NumElements())
		for i, x := range i64s(t) {
			out[i] = float64(x)
		}
		return out
	case domainOf(ty) == domFloat32:
		x := f32s(t)
		out := make([]float64, len(x))
		for i, v := range x {
			out[i] = float64(v)
		}
		return out
	}
	return t.Float64s()
}

// i64s returns the elements of an integer or pred tensor as int64 (unsigned values zero-extended, u64 as
// its bits, pred 0 or 1): a view for s64 and u64 (not to be modified), a new slice otherwise. Floats are
// converted as XLA's convert does (truncated, clamped, NaN to 0).
func i64s(t *tensor.Tensor) []int64 {
	n := t.NumElements()
	switch t.Type {
	case dtype.S64:
		return tensor.View[int64](t)
	case dtype.U64:
		u := tensor.View[uint64](t)
		if len(u) == 0 {
			return []int64{}
		}
		return tensor.View[int64](&tensor.Tensor{Type: dtype.S64, Shape: t.Shape, Data: t.Data})
	case dtype.S32:
		out := make([]int64, n)
		for i, x := range tensor.View[int32](t) {
			out[i] = int64(x)
		}
		return out
	case dtype.U32:
		out := make([]int64, n)
		for i, x := range tensor.View[uint32](t) {
			out[i] = int64(x)
		}
		return out
	case dtype.S16:
		out := make([]int64, n)
		for i, x := range tensor.View[int16](t) {
			out[i] = int64(x)
		}
		return out
	case dtype.U16:
		out := make([]int64, n)
		for i, x := range tensor.View[uint16](t) {
			out[i] = int64(x)
		}
		return out
	case dtype.S8:
		out := make([]int64, n)
		for i, x := range t.Data {
			out[i] = int64(int8(x))
		}
		return out
	case dtype.U8:
		out := make([]int64, n)
		for i, x := range t.Data {
			out[i] = int64(x)
		}
		return out
	case dtype.PRED:
		out := make([]int64, n)
		for i, x := range t.Data {
			if x != 0 {
				out[i] = 1
			}
		}
		return out
	}
	if t.Type.IsInteger() {
		w := uint(t.Type.BitWidth())
		out := make([]int64, n)
		for i, x := range t.Data {
			if t.Type.IsSigned() {
				out[i] = int64(uint64(x)<<(64-w)) >> (64 - w)
			} else {
				out[i] = int64(x) & (1<<w - 1)
			}
		}
		return out
	}
	return t.Int64s()
}

// fromF32 returns a tensor of type ty (a float type of the float32 domain, or f64) holding x rounded to ty
// as XLA's evaluator stores a float32 result: to nearest even, overflow and NaN as ml_dtypes (no
// saturation). For f32 the tensor shares x's memory.
func fromF32(ty dtype.Type, shape []int64, x []float32) *tensor.Tensor {
	switch {
	case ty == dtype.F32:
		return &tensor.Tensor{Type: ty, Shape: shape, Data: float32Bytes(x)}
	case ty == dtype.BF16 || ty == dtype.F16 || ty.IsFloat() && ty.BitWidth() <= 8:
		out := tensor.New(ty, shape)
		encodeFloat32Into(ty, out.Data, x)
		return out
	case ty == dtype.F64:
		out := tensor.New(ty, shape)
		o := tensor.View[float64](out)
		for i, v := range x {
			o[i] = float64(v)
		}
		return out
	}
	out := tensor.New(ty, shape)
	for i, v := range x {
		out.SetBitsAt(int64(i), ty.EncodeFloat32(v))
	}
	return out
}

// decodeFloat32Into decodes the elements of type t in src into dst.
func decodeFloat32Into(t dtype.Type, dst []float32, src []byte) {
	switch {
	case t == dtype.BF16:
		gemm.DecodeBF16(dst, bytesUint16(src, len(dst)))
	case t == dtype.F16:
		dtype.DecodeSliceFloat32U16(t, dst, bytesUint16(src, len(dst)))
	case t.BitWidth() <= 8 && dtype.DecodeTable(t) != nil:
		dtype.DecodeSliceFloat32(t, dst, src)
	default:
		copy(dst, f32s(&tensor.Tensor{Type: t, Shape: []int64{int64(len(dst))}, Data: src}))
	}
}

// encodeFloat32Into rounds src to type t (of the float32 domain) into dst, as fromF32 does.
func encodeFloat32Into(t dtype.Type, dst []byte, src []float32) {
	switch {
	case t == dtype.F32:
		copy(dst, float32Bytes(src))
	case t == dtype.BF16:
		gemm.EncodeBF16(bytesUint16(dst, len(src)), src)
	case t == dtype.F16:
		dtype.EncodeSliceFloat32U16(t, bytesUint16(dst, len(src)), src, false)
	case t.BitWidth() <= 8 && dtype.DecodeTable(t) != nil:
		dtype.EncodeSliceFloat32(t, dst, src, false)
	default:
		es := t.ByteSize()
		for i, v := range src {
			b := t.EncodeFloat32(v)
			for j := 0; j < es; j++ {
				dst[i*es+j] = byte(b >> (8 * j))
			}
		}
	}
}

// fromF64 returns an f64 tensor sharing x's memory, or for another type a tensor holding x converted with
// dtype's conversion from binary64.
func fromF64(ty dtype.Type, shape []int64, x []float64) *tensor.Tensor {
	if ty == dtype.F64 {
		return &tensor.Tensor{Type: ty, Shape: shape, Data: float64Bytes(x)}
	}
	out := tensor.New(ty, shape)
	for i, v := range x {
		out.SetBitsAt(int64(i), ty.EncodeFloat64(v))
	}
	return out
}

// fromI64 returns a tensor of the integer (or pred) type ty holding x wrapped to ty's width (pred: x != 0).
func fromI64(ty dtype.Type, shape []int64, x []int64) *tensor.Tensor {
	if ty == dtype.S64 || ty == dtype.U64 {
		return &tensor.Tensor{Type: ty, Shape: shape, Data: int64Bytes(x)}
	}
	out := tensor.New(ty, shape)
	switch ty {
	case dtype.S32, dtype.U32:
		o := tensor.View[uint32](out)
		for i, v := range x {
			o[i] = uint32(v)
		}
	case dtype.S16, dtype.U16:
		o := tensor.View[uint16](out)
		for i, v := range x {
			o[i] = uint16(v)
		}
	case dtype.PRED:
		for i, v := range x {
			if v != 0 {
				out.Data[i] = 1
			}
		}
	default:
		mask := uint64(math.MaxUint64)
		if w := ty.BitWidth(); w < 64 {
			mask = 1<<w - 1
		}
		for i, v := range x {
			out.Data[i] = uint8(uint64(v) & mask)
		}
	}
	return out
}

// fromBools returns a pred tensor.
func fromBools(shape []int64, x []bool) *tensor.Tensor {
	out := tensor.New(dtype.PRED, shape)
	for i, v := range x {
		if v {
			out.Data[i] = 1
		}
	}
	return out
}

// round32 returns the function that rounds a float32 to ty and back (the identity for f32): what storing
// a float32 result in ty does to it.
func round32(ty dtype.Type) func(float32) float32 {
	switch ty {
	case dtype.F32:
		return nil
	case dtype.BF16:
		return roundBF16
	}
	return func(x float32) float32 { return ty.DecodeFloat32(ty.EncodeFloat32(x)) }
}

// roundBF16 rounds x to bf16 and back, as dtype.BF16's DecodeFloat32(EncodeFloat32(x)) does (to
// nearest even, overflow to infinity, a NaN to the quiet NaN of its sign) on the bits directly.
func roundBF16(x float32) float32 { return math.Float32frombits(uint32(dtype.EncodeBF16(x)) << 16) }

// scalarI64 returns element 0 of an integer tensor as int64.
func scalarI64(t *tensor.Tensor) int64 { return i64s(t)[0] }

package tensor

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"octet/dtype"
)

// A Tensor is a dense array of one element type, in row-major order (the last dimension varies fastest).
// Every element takes its natural little-endian byte size, Type.ByteSize(): the sub-byte types (s1, s2, s4,
// u1, u2, u4, f4e2m1fn, f6e2m3fn, f6e3m2fn) one byte each with the value in the low bits and the high bits
// zero, pred one byte 0 or 1, f8 types one byte, bf16 and f16 two, c64 eight (real, then imaginary) and
// c128 sixteen.
//
// len(Data) is always NumElements() * Type.ByteSize(); a Tensor built by this package keeps that invariant
// and its Data is aligned for View.
type Tensor struct {
	Type  dtype.Type
	Shape []int64
	Data  []byte
}

// NumElements returns the product of the dimensions (1 for a scalar, of shape []).
func (t *Tensor) NumElements() int64 { return numElements(t.Shape) }

func numElements(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	return n
}

// checkedElements returns the number of elements of shape with size bytes each, or an error when a
// dimension is negative or the byte count overflows.
func checkedElements(shape []int64, size int) (int64, error) {
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("negative dimension %d in shape %s", d, shapeString(shape))
		}
	}
	if slices.Contains(shape, 0) {
		return 0, nil // no elements, however large the other dimensions
	}
	n := int64(1)
	for _, d := range shape {
		if d != 0 && n > math.MaxInt64/d {
			return 0, fmt.Errorf("shape %s has too many elements", shapeString(shape))
		}
		n *= d
	}
	if size > 0 && n > math.MaxInt64/int64(size) {
		return 0, fmt.Errorf("shape %s has too many elements", shapeString(shape))
	}
	return n, nil
}

// alloc returns n zero bytes aligned to 8 bytes, so that View works on every element type.
func alloc(n int64) []byte {
	if n == 0 {
		return []byte{}
	}
	words := make([]uint64, (n+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), n)
}

// New returns a zero tensor of type t and the given shape. It panics when t is not a valid type or a
// dimension is negative.
func New(t dtype.Type, shape []int64) *Tensor {
	if !t.Valid() {
		panic("tensor.New: invalid element type")
	}
	n, err := checkedElements(shape, t.ByteSize())
	if err != nil {
		panic("tensor.New: " + err.Error())
	}
	return &Tensor{Type: t, Shape: append([]int64{}, shape...), Data: alloc(n * int64(t.ByteSize()))}
}

func checkCount(op string, shape []int64, n int) {
	if want := numElements(shape); want != int64(n) {
		panic(fmt.Sprintf("tensor.%s: %d values for shape %s (%d elements)", op, n, shapeString(shape), want))
	}
}

// FromFloat32 returns an f32 tensor holding vals. It panics when len(vals) is not the shape's element
// count.
func FromFloat32(shape []int64, vals []float32) *Tensor {
	checkCount("FromFloat32", shape, len(vals))
	t := New(dtype.F32, shape)
	for i, v := range vals {
		binary.LittleEndian.PutUint32(t.Data[4*i:], math.Float32bits(v))
	}
	return t
}

// FromFloat64 returns an f64 tensor holding vals. It panics when len(vals) is not the shape's element
// count.
func FromFloat64(shape []int64, vals []float64) *Tensor {
	checkCount("FromFloat64", shape, len(vals))
	t := New(dtype.F64, shape)
	for i, v := range vals {
		binary.LittleEndian.PutUint64(t.Data[8*i:], math.Float64bits(v))
	}
	return t
}

// FromBits returns a tensor of type t whose elements have the given bit patterns (as dtype's functions
// take them: an f8e4m3fn element is 0x00..0xff; bits above the width are dropped; c128 is not supported).
// It panics when len(bits) is not the shape's element count or t is c128.
func FromBits(t dtype.Type, shape []int64, bits []uint64) *Tensor {
	checkCount("FromBits", shape, len(bits))
	if t == dtype.C128 {
		panic("tensor.FromBits: c128 elements do not fit 64 bits")
	}
	x := New(t, shape)
	for i, b := range bits {
		x.SetBitsAt(int64(i), b)
	}
	return x
}

// Convert returns a new tensor of type to with every element converted as dtype.Convert does (one
// rounding, ml_dtypes' overflow rules; saturate selects the saturating conversion). Conversions between
// wide types go through binary64; complex numbers keep only their real part when converted to a real type.
func (t *Tensor) Convert(to dtype.Type, saturate bool) *Tensor {
	out := New(to, t.Shape)
	n := t.NumElements()
	switch {
	case t.Type == to:
		copy(out.Data, t.Data)
	case to == dtype.F32 && t.Type.BitWidth() <= 8 && !t.Type.IsComplex():
		dtype.DecodeSliceFloat32(t.Type, out.float32s(), t.Data)
	case t.Type == dtype.F32 && to.BitWidth() <= 8:
		dtype.EncodeSliceFloat32(to, out.Data, t.float32s(), saturate)
	case t.Type == dtype.F32 && (to == dtype.BF16 || to == dtype.F16):
		dtype.EncodeSliceFloat32U16(to, View[uint16](out), t.float32s(), saturate)
	case to == dtype.F32 && (t.Type == dtype.BF16 || t.Type == dtype.F16):
		dtype.DecodeSliceFloat32U16(t.Type, out.float32s(), t.uint16s())
	case to == dtype.C128:
		vals := t.Complex128s()
		for i, v := range vals {
			binary.LittleEndian.PutUint64(out.Data[16*i:], math.Float64bits(real(v)))
			binary.LittleEndian.PutUint64(out.Data[16*i+8:], math.Float64bits(imag(v)))
		}
	case to == dtype.C64:
		enc := dtype.F32.EncodeFloat64
		if saturate {
			enc = dtype.F32.EncodeFloat64Saturate
		}
		for i, v := range t.Complex128s() {
			binary.LittleEndian.PutUint64(out.Data[8*i:], enc(real(v))|enc(imag(v))<<32)
		}
	default:
		src := t.Type
		if src == dtype.C128 {
			vals := t.Float64s()
			for i, v := range vals {
				b := to.EncodeFloat64(v)
				if saturate {
					b = to.EncodeFloat64Saturate(v)
				}
				out.SetBitsAt(int64(i), b)
			}
			return out
		}
		if src == dtype.C64 {
			src = dtype.F32 // the real part is the low 32 bits
		}
		for i := int64(0); i < n; i++ {
			out.SetBitsAt(i, dtype.Convert(src, to, t.BitsAt(i), saturate))
		}
	}
	return out
}

// BitsAt returns the bit pattern of element i (row-major), as dtype's functions take it; for c128 it is
// the real part's binary64 bits. It panics when i is out of range.
func (t *Tensor) BitsAt(i int64) uint64 {
	es := int64(t.Type.ByteSize())
	p := t.Data[i*es : (i+1)*es]
	switch es {
	case 1:
		return uint64(p[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(p))
	case 4:
		return uint64(binary.LittleEndian.Uint32(p))
	default:
		return binary.LittleEndian.Uint64(p)
	}
}

// SetBitsAt stores the bit pattern b in element i, dropping the bits above the type's width; for c128 it
// sets the real part and zeroes the imaginary part. It panics when i is out of range.
func (t *Tensor) SetBitsAt(i int64, b uint64) {
	es := int64(t.Type.ByteSize())
	p := t.Data[i*es : (i+1)*es]
	if w := t.Type.BitWidth(); w < 64 {
		b &= 1<<w - 1
	}
	if t.Type == dtype.PRED && b != 0 {
		b = 1
	}
	switch es {
	case 1:
		p[0] = uint8(b)
	case 2:
		binary.LittleEndian.PutUint16(p, uint16(b))
	case 4:
		binary.LittleEndian.PutUint32(p, uint32(b))
	case 8:
		binary.LittleEndian.PutUint64(p, b)
	default:
		binary.LittleEndian.PutUint64(p, b)
		clear(p[8:])
	}
}

// float32s views an f32 tensor's data (aligned by construction) or copies it.
func (t *Tensor) float32s() []float32 {
	if len(t.Data) == 0 {
		return nil
	}
	if uintptr(unsafe.Pointer(&t.Data[0]))%4 == 0 {
		return unsafe.Slice((*float32)(unsafe.Pointer(&t.Data[0])), len(t.Data)/4)
	}
	out := make([]float32, len(t.Data)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.Data[4*i:]))
	}
	return out
}

// uint16s views a 2-byte tensor's data, or copies it when it is not aligned.
func (t *Tensor) uint16s() []uint16 {
	if len(t.Data) == 0 {
		return nil
	}
	if uintptr(unsafe.Pointer(&t.Data[0]))%2 == 0 {
		return unsafe.Slice((*uint16)(unsafe.Pointer(&t.Data[0])), len(t.Data)/2)
	}
	out := make([]uint16, len(t.Data)/2)
	for i := range out {
		out[i] = binary.LittleEndian.Uint16(t.Data[2*i:])
	}
	return out
}

// Float32s returns a new slice with every element decoded to float32 (dtype's DecodeFloat32: exact for
// every type of 32 bits or fewer; f64 and 64-bit integers round to nearest even). Complex types give their
// real parts, as numpy's astype(float32) does (with a warning there); use Complex128s to keep both.
func (t *Tensor) Float32s() []float32 {
	n := t.NumElements()
	out := make([]float32, n)
	switch ty := t.Type; {
	case ty.BitWidth() <= 8 && !ty.IsComplex():
		dtype.DecodeSliceFloat32(ty, out, t.Data)
	case ty == dtype.BF16 || ty == dtype.F16:
		dtype.DecodeSliceFloat32U16(ty, out, t.uint16s())
	case ty == dtype.F32:
		copy(out, t.float32s())
	case ty == dtype.C64:
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.Data[8*i:]))
		}
	case ty == dtype.C128:
		for i := range out {
			out[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(t.Data[16*i:])))
		}
	default:
		for i := range out {
			out[i] = ty.DecodeFloat32(t.BitsAt(int64(i)))
		}
	}
	return out
}

// Float64s returns a new slice with every element decoded to float64 (exact for every type but the 64-bit
// integers beyond 2^53). Complex types give their real parts.
func (t *Tensor) Float64s() []float64 {
	n := t.NumElements()
	out := make([]float64, n)
	switch ty := t.Type; ty {
	case dtype.C64:
		for i := range out {
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(t.Data[8*i:])))
		}
	case dtype.C128:
		for i := range out {
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(t.Data[16*i:]))
		}
	default:
		for i := range out {
			out[i] = ty.DecodeFloat64(t.BitsAt(int64(i)))
		}
	}
	return out
}

// Complex128s returns a new slice with every element as a complex128 (real types have a zero imaginary
// part).
func (t *Tensor) Complex128s() []complex128 {
	out := make([]complex128, t.NumElements())
	switch t.Type {
	case dtype.C64:
		for i := range out {
			re := math.Float32frombits(binary.LittleEndian.Uint32(t.Data[8*i:]))
			im := math.Float32frombits(binary.LittleEndian.Uint32(t.Data[8*i+4:]))
			out[i] = complex(float64(re), float64(im))
		}
	case dtype.C128:
		for i := range out {
			re := math.Float64frombits(binary.LittleEndian.Uint64(t.Data[16*i:]))
			im := math.Float64frombits(binary.LittleEndian.Uint64(t.Data[16*i+8:]))
			out[i] = complex(re, im)
		}
	default:
		for i, v := range t.Float64s() {
			out[i] = complex(v, 0)
		}
	}
	return out
}

// Int64s returns a new slice with every element as an int64: integers and pred exactly (u64 values above
// 2^63-1 wrap), floats truncated toward zero and clamped to the int64 range with NaN giving 0 (XLA's
// convert), complex types from their real parts.
func (t *Tensor) Int64s() []int64 {
	n := t.NumElements()
	out := make([]int64, n)
	ty := t.Type
	switch {
	case ty.IsSigned():
		w := uint(ty.BitWidth())
		for i := range out {
			out[i] = int64(t.BitsAt(int64(i))<<(64-w)) >> (64 - w)
		}
	case ty.IsUnsigned() || ty == dtype.PRED:
		for i := range out {
			out[i] = int64(t.BitsAt(int64(i)))
		}
	default:
		for i, v := range t.Float64s() {
			out[i] = int64(dtype.S64.EncodeFloat64Saturate(v))
		}
	}
	return out
}

// Element is the set of Go types that View can give a tensor's data as.
type Element interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 |
		~float32 | ~float64 | ~complex64 | ~complex128
}

// View returns t's data as a []E sharing its memory (no copy): View[float32] of an f32 tensor, View[uint16]
// of a bf16 one, View[uint8] of an f8 one. It panics when E's size is not the element size or the data is
// not aligned for E (tensors built by this package always are). The data is little-endian, as is every
// machine Go runs this on.
func View[E Element](t *Tensor) []E {
	var zero E
	size := int(unsafe.Sizeof(zero))
	if size != t.Type.ByteSize() {
		panic(fmt.Sprintf("tensor.View: %d-byte elements of %s viewed as %T", t.Type.ByteSize(), t.Type, zero))
	}
	if len(t.Data) == 0 {
		return []E{}
	}
	p := unsafe.Pointer(&t.Data[0])
	if uintptr(p)%unsafe.Alignof(zero) != 0 {
		panic("tensor.View: data not aligned for " + fmt.Sprintf("%T", zero))
	}
	return unsafe.Slice((*E)(p), len(t.Data)/size)
}

// Equal reports whether t and u have the same type, shape and bytes (so NaNs with the same bits are
// equal, and 0 and -0 are not).
func (t *Tensor) Equal(u *Tensor) bool {
	if t.Type != u.Type || len(t.Shape) != len(u.Shape) {
		return false
	}
	for i := range t.Shape {
		if t.Shape[i] != u.Shape[i] {
			return false
		}
	}
	return bytes.Equal(t.Data, u.Data)
}

// String returns the tensor's type and shape as XLA writes them: "f8e4m3fn[2,3]".
func (t *Tensor) String() string { return t.Type.String() + shapeString(t.Shape) }

func shapeString(shape []int64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, d := range shape {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(d, 10))
	}
	b.WriteByte(']')
	return b.String()
}

// RowMajor returns the minor_to_major of the row-major layout of a rank-n shape: {n-1, ..., 1, 0}.
func RowMajor(rank int) []int64 {
	m := make([]int64, rank)
	for i := range m {
		m[i] = int64(rank - 1 - i)
	}
	return m
}

// layoutStrides returns, for each dimension, its stride in elements in the layout minorToMajor
// (minorToMajor[0] is the fastest-varying dimension), checking that it is a permutation of the dimensions.
func layoutStrides(shape, minorToMajor []int64) ([]int64, error) {
	if len(minorToMajor) != len(shape) {
		return nil, fmt.Errorf("layout {%s} has %d dimensions, shape %s %d", joinInts(minorToMajor),
			len(minorToMajor), shapeString(shape), len(shape))
	}
	strides := make([]int64, len(shape))
	seen := make([]bool, len(shape))
	s := int64(1)
	for _, d := range minorToMajor {
		if d < 0 || d >= int64(len(shape)) || seen[d] {
			return nil, fmt.Errorf("layout {%s} is not a permutation of the dimensions of %s", joinInts(minorToMajor), shapeString(shape))
		}
		seen[d] = true
		strides[d] = s
		s *= shape[d]
	}
	return strides, nil
}

func joinInts(v []int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(s, ",")
}

// relayout copies n elements of size es between a row-major buffer and one in the layout with the given
// strides: toRowMajor copies layout -> row-major, else row-major -> layout.
func relayout(dst, src []byte, shape, strides []int64, es int64, toRowMajor bool) {
	n := numElements(shape)
	if n == 0 {
		return
	}
	idx := make([]int64, len(shape))
	var off int64 // offset in the layout buffer, in elements
	for i := int64(0); i < n; i++ {
		if toRowMajor {
			copy(dst[i*es:(i+1)*es], src[off*es:(off+1)*es])
		} else {
			copy(dst[off*es:(off+1)*es], src[i*es:(i+1)*es])
		}
		// Advance the row-major index (last dimension fastest) and the layout offset with it.
		for d := len(shape) - 1; d >= 0; d-- {
			idx[d]++
			off += strides[d]
			if idx[d] < shape[d] {
				break
			}
			off -= idx[d] * strides[d]
			idx[d] = 0
		}
	}
}

// FromLayout returns a row-major tensor from data laid out in XLA's layout minorToMajor (the first entry
// is the fastest-varying dimension; row-major is {n-1, ..., 0}, see RowMajor). data holds the elements in
// their natural byte size, as in a Tensor.
func FromLayout(t dtype.Type, shape, minorToMajor []int64, data []byte) (*Tensor, error) {
	if !t.Valid() {
		return nil, fmt.Errorf("invalid element type")
	}
	n, err := checkedElements(shape, t.ByteSize())
	if err != nil {
		return nil, err
	}
	es := int64(t.ByteSize())
	if int64(len(data)) != n*es {
		return nil, fmt.Errorf("%s%s needs %d bytes of data, got %d", t, shapeString(shape), n*es, len(data))
	}
	strides, err := layoutStrides(shape, minorToMajor)
	if err != nil {
		return nil, err
	}
	out := New(t, shape)
	relayout(out.Data, data, shape, strides, es, true)
	if t == dtype.PRED {
		for i, b := range out.Data {
			if b != 0 {
				out.Data[i] = 1
			}
		}
	}
	return out, nil
}

// ToLayout returns the tensor's elements laid out in XLA's layout minorToMajor, as a new byte slice.
func (t *Tensor) ToLayout(minorToMajor []int64) ([]byte, error) {
	strides, err := layoutStrides(t.Shape, minorToMajor)
	if err != nil {
		return nil, err
	}
	out := alloc(int64(len(t.Data)))
	relayout(out, t.Data, t.Shape, strides, int64(t.Type.ByteSize()), false)
	return out, nil
}

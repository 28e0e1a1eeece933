package gemm

import (
	"encoding/binary"
	"math"
	"unsafe"

	"octet/dtype"
)

// A view is an operand as the driver and the packing code see it: a strided matrix (element (i, j) at
// i*stride+j, or j*stride+i when trans) of float32 values, or of encoded elements that decode to float32.
// Offsets and strides count elements, whatever their size.
type view struct {
	f32   []float32     // the data when it is float32
	raw   []byte        // else the encoded elements, size bytes each
	typ   dtype.Type    // their type
	size  int           // bytes per encoded element
	table *[256]float32 // the decoding of every byte, for types of 8 bits or fewer

	rows, cols, stride int
	trans              bool
}

func (m Matrix) view() view {
	return view{f32: m.Data, rows: m.Rows, cols: m.Cols, stride: m.Stride, trans: m.Trans}
}

// sub returns the view of rows [i0, i1) and columns [j0, j1) of v. The range must not be empty.
func (v view) sub(i0, i1, j0, j1 int) view {
	off := i0*v.stride + j0
	if v.trans {
		off = j0*v.stride + i0
	}
	v = v.at(off)
	v.rows, v.cols = i1-i0, j1-j0
	return v
}

// at returns v moved off elements further into its data (the next batch, or a block).
func (v view) at(off int) view {
	if v.f32 != nil {
		v.f32 = v.f32[off:]
	} else {
		v.raw = v.raw[off*v.size:]
	}
	return v
}

// run returns the n stored elements starting at element off as float32: the data itself when it is
// float32, else decoded into tmp (which must hold n elements).
func (v *view) run(h isa, off, n int, tmp []float32) []float32 {
	if v.f32 != nil {
		return v.f32[off : off+n]
	}
	tmp = tmp[:n]
	v.read(h, tmp, off)
	return tmp
}

// read sets dst to the len(dst) stored elements starting at element off, as float32, decoding with the
// assembly h allows.
func (v *view) read(h isa, dst []float32, off int) {
	if v.f32 != nil {
		copy(dst, v.f32[off:off+len(dst)])
		return
	}
	src := v.raw[off*v.size : (off+len(dst))*v.size]
	switch {
	case v.table != nil:
		tab := v.table
		done := h.decodeBytesFast(dst, src, tab)
		dst, src = dst[done:len(src)], src[done:]
		for i, b := range src {
			dst[i] = tab[b]
		}
	case v.typ == dtype.F32:
		for i := range dst {
			dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
		}
	case v.typ == dtype.BF16:
		done := h.widenBF16Fast(dst, src)
		dst, src = dst[done:], src[2*done:]
		if u := uint16s(src); u != nil {
			dst = dst[:len(u)]
			for i, h := range u {
				dst[i] = math.Float32frombits(uint32(h) << 16)
			}
			return
		}
		for i := range dst {
			dst[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(src[2*i:])) << 16)
		}
	default: // F16
		if u := uint16s(src); u != nil {
			dst = dst[:len(u)]
			for i, h := range u {
				dst[i] = halfToFloat32(h)
			}
			return
		}
		for i := range dst {
			dst[i] = halfToFloat32(binary.LittleEndian.Uint16(src[2*i:]))
		}
	}
}

// littleEndian reports whether the machine stores a uint16 low byte first, as Typed data is.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// uint16s returns b as little-endian uint16s in place, or nil where that is not possible (a big-endian
// machine, or b not aligned to two bytes).
func uint16s(b []byte) []uint16 {
	if !littleEndian || len(b) < 2 || uintptr(unsafe.Pointer(&b[0]))%2 != 0 {
		return nil
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(&b[0])), len(b)/2)
}

// halfToFloat32 widens an IEEE binary16 value to float32, exactly; a NaN keeps its payload (as
// dtype.F16.DecodeFloat32 does).
func halfToFloat32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch exp {
	case 0: // zero or subnormal: mant * 2^-24, exact in float32
		return math.Float32frombits(sign | math.Float32bits(float32(mant)*0x1p-24))
	case 0x1f: // infinity or NaN
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// Typed is a strided row-major view, like Matrix, of elements of a type other than float32 (or of
// float32 stored as bytes): bf16, f16, f32, or any type of 8 bits or fewer (the FP8 formats, FP6, FP4,
// e8m0, s8, u8, the sub-byte integers), one element per byte. MatMulTyped decodes the elements to float32,
// exactly (as dtype.Type.DecodeFloat32 does), while it packs them, so no float32 copy of the operand is made.
type Typed struct {
	Type       dtype.Type
	Data       []byte // the elements, little-endian, Type.ByteSize() bytes each
	Rows, Cols int
	Stride     int // in elements
	Trans      bool
}

// TypedOf returns m as a Typed of type f32 over the same memory (no copy), to multiply a float32 matrix by
// one of another type.
func TypedOf(m Matrix) Typed {
	var data []byte
	if len(m.Data) > 0 {
		data = unsafe.Slice((*byte)(unsafe.Pointer(&m.Data[0])), 4*len(m.Data))
	}
	return Typed{Type: dtype.F32, Data: data, Rows: m.Rows, Cols: m.Cols, Stride: m.Stride, Trans: m.Trans}
}

// SupportedType reports whether MatMulTyped accepts operands of type t.
func SupportedType(t dtype.Type) bool {
	switch t {
	case dtype.F32, dtype.BF16, dtype.F16:
		return true
	}
	return dtype.DecodeTable(t) != nil
}

// view checks t (as Matrix.check does, plus its type) and returns its view. Float32 data aligned to four
// bytes is read in place, like a Matrix.
func (t Typed) view(name string) view {
	if !SupportedType(t.Type) {
		panic("gemm: " + name + " has element type " + t.Type.String() + ", which MatMulTyped does not decode")
	}
	size := t.Type.ByteSize()
	m := Matrix{Rows: t.Rows, Cols: t.Cols, Stride: t.Stride, Trans: t.Trans}
	m.check(name, 0, len(t.Data)/size)
	v := view{raw: t.Data, typ: t.Type, size: size, table: dtype.DecodeTable(t.Type),
		rows: t.Rows, cols: t.Cols, stride: t.Stride, trans: t.Trans}
	if t.Type == dtype.F32 && len(t.Data) >= 4 && uintptr(unsafe.Pointer(&t.Data[0]))%4 == 0 {
		v.f32 = unsafe.Slice((*float32)(unsafe.Pointer(&t.Data[0])), len(t.Data)/4)
		v.raw = nil
	}
	return v
}

// MatMulTyped computes C = alpha*A*B + beta*C like MatMul, for operands of any type Typed allows: each
// element is decoded to float32 exactly and the products are accumulated in float32, as the numerics
// contract of the package documentation says, so that with an ordered kernel the result equals MatMul's on
// the decoded matrices, bit for bit, however the product runs (Plan): blocked, or (up to 64 rows by a B of
// f8e4m3fn, f8e5m2, s8 or bf16, stored either way) streamed. With the bf16 kernel (KernelFor), the sums of
// blocked products are grouped in pairs and subnormals flushed. It panics, like MatMul, on mismatched shapes, and on an element
// type it does not decode.
func MatMulTyped(c Matrix, a, b Typed, alpha, beta float32) {
	checkShapes(c, Matrix{Rows: a.Rows, Cols: a.Cols}, Matrix{Rows: b.Rows, Cols: b.Cols})
	c.check("C", 0, len(c.Data))
	av, bv := a.view("A"), b.view("B")
	kern := current()
	if cv := c.view(); planFor(kern, c.Rows, &bv) != Blocked && cv.rows > 0 && cv.cols > 0 && alpha != 0 && av.cols > 0 {
		src := sourceOf(&bv, nil)
		stream(kern, Threads(), cv, av, &src, alpha, beta)
		return
	}
	matMul(kern.forTypes(a.Type, b.Type), Threads(), c.view(), av, bv, alpha, beta)
}

package dtype

import (
	"fmt"
	"math"
)

// decodeTables holds, for every type of 8 bits or fewer, the float32 value of each byte (bits above the
// type's width ignored).
var decodeTables [numTypes]*[256]float32

func buildDecodeTables() {
	for _, f := range formats {
		if f != nil {
			f.initF32Params()
		}
	}
	for t := Invalid + 1; t < numTypes; t++ {
		if t.BitWidth() > 8 || t.IsComplex() {
			continue
		}
		tab := new([256]float32)
		for i := range tab {
			x := t.DecodeFloat64(uint64(i))
			if x != x {
				// Quiet NaN with the pattern's sign (the fnuz NaN is negative).
				tab[i] = math.Float32frombits(uint32(math.Float64bits(x)>>63)<<31 | 0x7fc00000)
			} else {
				tab[i] = float32(x)
			}
		}
		decodeTables[t] = tab
	}
}

// DecodeTable returns the float32 value of each of the 256 byte values for a type of 8 bits or fewer
// (bits above the type's width are ignored), or nil for wider types. The table is shared: do not modify it.
func DecodeTable(t Type) *[256]float32 {
	if t < numTypes {
		return decodeTables[t]
	}
	return nil
}

func checkLen(op string, dst, src int) {
	if dst < src {
		panic(fmt.Sprintf("dtype.%s: destination has %d elements, source %d", op, dst, src))
	}
}

// DecodeSliceFloat32 decodes src, one element of type t per byte (the low bits of each byte for the
// sub-byte types), into dst[:len(src)], with DecodeFloat32's values. t must be 8 bits wide or fewer. It
// panics when t is wider or dst is shorter than src.
func DecodeSliceFloat32(t Type, dst []float32, src []uint8) {
	checkLen("DecodeSliceFloat32", len(dst), len(src))
	tab := DecodeTable(t)
	if tab == nil {
		panic("dtype.DecodeSliceFloat32: " + t.String() + " is wider than 8 bits")
	}
	dst = dst[:len(src)]
	for i, b := range src {
		dst[i] = tab[b]
	}
}

// EncodeSliceFloat32 converts src to t, one element per byte, into dst[:len(src)], with the results of
// EncodeFloat32 (or EncodeFloat32Saturate when saturate is set). f8e4m3fn and f8e5m2 take a fast path of
// bit arithmetic; every type of 8 bits or fewer is accepted. It panics when t is wider than 8 bits or dst
// is shorter than src.
func EncodeSliceFloat32(t Type, dst []uint8, src []float32, saturate bool) {
	checkLen("EncodeSliceFloat32", len(dst), len(src))
	dst = dst[:len(src)]
	switch t {
	case F8E4M3FN:
		if saturate {
			for i, x := range src {
				dst[i] = encodeE4M3FN(x, 0x7e)
			}
		} else {
			for i, x := range src {
				dst[i] = encodeE4M3FN(x, 0x7f)
			}
		}
		return
	case F8E5M2:
		over := uint8(0x7c)
		if saturate {
			over = 0x7b
		}
		encodeSliceE5M2(dst, src, over)
		return
	}
	if t.BitWidth() > 8 || t.IsComplex() || !t.Valid() {
		panic("dtype.EncodeSliceFloat32: " + t.String() + " is wider than 8 bits")
	}
	if f := formats[t]; f != nil {
		if f.Encoding != EncodingE8M0 {
			f.encodeSlice32(dst, src, saturate)
			return
		}
		for i, x := range src {
			dst[i] = uint8(f.encode64(math.Float64bits(float64(x)), saturate))
		}
		return
	}
	for i, x := range src {
		dst[i] = uint8(t.encode(float64(x), saturate))
	}
}

// encodeE4M3FN rounds x to f8e4m3fn; over is the code of a finite value past 464 (0x7f NaN, or 0x7e when
// saturating). Every case is computed and the right one selected, so that the compiler emits conditional
// moves instead of branches.
func encodeE4M3FN(x float32, over uint8) uint8 {
	b := math.Float32bits(x)
	a := b & 0x7fffffff
	// Normal (2^-6 and up): round the 20 dropped bits to nearest even.
	c := uint8((a+0x7ffff+(a>>20)&1)>>20 - 120<<3)
	if a < 0x3c800000 {
		// Subnormal or zero: adding 2^14 leaves an ulp of 2^-9, the format's quantum, and the FPU rounds
		// to nearest even. A result of 8 is the smallest normal, whose code is 8 too.
		c = uint8(math.Float32bits(math.Float32frombits(a)+0x1p14) - 0x46800000)
	}
	if a > 0x43e80000 { // past 464 (the tie between 448 and 480 rounds to 448)
		c = over
	}
	if a >= 0x7f800000 { // infinities and NaNs
		c = 0x7f
	}
	return uint8(b>>24)&0x80 | c
}

// encodeSliceE5M2 rounds src to f8e5m2 into dst; over is the code of a finite value that rounds past
// 57344 (0x7c infinity, or 0x7b when saturating). The body is written out in the loop (it is too large
// for the compiler to inline) and selects among the cases without branches, like encodeE4M3FN.
func encodeSliceE5M2(dst []uint8, src []float32, over uint8) {
	dst = dst[:len(src)]
	for i, x := range src {
		b := math.Float32bits(x)
		a := b & 0x7fffffff
		// Normal (2^-14 and up).
		c := uint8((a+0xfffff+(a>>21)&1)>>21 - 112<<2)
		if a < 0x38800000 {
			// Subnormal or zero: adding 128 leaves an ulp of 2^-16, the format's quantum.
			c = uint8(math.Float32bits(math.Float32frombits(a)+128) - 0x43000000)
		}
		if a >= 0x47700000 { // 61440 and up: ties to 65536 (even) overflow
			c = over
		}
		if a >= 0x7f800000 {
			// Infinity 0x7c; a NaN (a > 0x7f800000) makes the subtraction wrap, giving 0x7e.
			c = 0x7c | uint8((0x7f800000-a)>>31)<<1
		}
		dst[i] = uint8(b>>24)&0x80 | c
	}
}

// DecodeSliceFloat32U16 decodes src, one bf16 or f16 element per uint16, into dst[:len(src)], with
// DecodeFloat32's values. It panics when t is neither or dst is shorter than src.
func DecodeSliceFloat32U16(t Type, dst []float32, src []uint16) {
	checkLen("DecodeSliceFloat32U16", len(dst), len(src))
	dst = dst[:len(src)]
	switch t {
	case BF16:
		for i, h := range src {
			dst[i] = math.Float32frombits(uint32(h) << 16)
		}
	case F16:
		for i, h := range src {
			dst[i] = decodeF16(h)
		}
	default:
		panic("dtype.DecodeSliceFloat32U16: " + t.String() + " is not bf16 or f16")
	}
}

// EncodeSliceFloat32U16 converts src to bf16 or f16 into dst[:len(src)], with the results of EncodeFloat32
// (or EncodeFloat32Saturate). It panics when t is neither or dst is shorter than src.
func EncodeSliceFloat32U16(t Type, dst []uint16, src []float32, saturate bool) {
	checkLen("EncodeSliceFloat32U16", len(dst), len(src))
	dst = dst[:len(src)]
	switch t {
	case BF16:
		for i, x := range src {
			dst[i] = encodeBF16(x, saturate)
		}
	case F16:
		encodeSliceF16(dst, src, saturate)
	default:
		panic("dtype.EncodeSliceFloat32U16: " + t.String() + " is not bf16 or f16")
	}
}

// EncodeBF16 rounds x to bf16 as EncodeFloat32 does (to nearest even, overflow to infinity, a NaN to
// the quiet NaN of its sign), on the bits directly: the scalar beneath the vector loops of package gemm
// and the rounding steps of package interp.
func EncodeBF16(x float32) uint16 { return encodeBF16(x, false) }

func encodeBF16(x float32, saturate bool) uint16 {
	b := math.Float32bits(x)
	a := b & 0x7fffffff
	if a > 0x7f800000 {
		return uint16(b>>16)&0x8000 | 0x7fc0
	}
	h := uint16((b + 0x7fff + (b>>16)&1) >> 16)
	if saturate && h&0x7fff == 0x7f80 && a != 0x7f800000 {
		h--
	}
	return h
}

// encodeSliceF16 rounds src to IEEE binary16 into dst (overflow to infinity, or to 65504 when
// saturating), selecting among the cases without branches like encodeE4M3FN.
func encodeSliceF16(dst []uint16, src []float32, saturate bool) {
	over := uint16(0x7c00)
	if saturate {
		over = 0x7bff
	}
	dst = dst[:len(src)]
	for i, x := range src {
		b := math.Float32bits(x)
		a := b & 0x7fffffff
		// Normal (2^-14 and up).
		c := uint16((a+0xfff+(a>>13)&1)>>13 - 112<<10)
		if a < 0x38800000 {
			// Subnormal or zero: adding 0.5 leaves an ulp of 2^-24, the format's quantum.
			c = uint16(math.Float32bits(math.Float32frombits(a)+0.5) - 0x3f000000)
		}
		if a >= 0x477ff000 { // 65520 and up round past 65504
			c = over
		}
		if a >= 0x7f800000 {
			c = 0x7c00
		}
		if a > 0x7f800000 { // NaN: quiet, keeping the top of the payload
			c = 0x7e00 | uint16(a>>13)&0x3ff
		}
		dst[i] = uint16(b>>16)&0x8000 | c
	}
}

// decodeF16 widens an f16 pattern exactly, without branches: the exponent is rebiased, infinities and
// NaNs get the rest of the float32 exponent, and subnormals are normalized by a float32 subtraction.
func decodeF16(h uint16) float32 {
	o := uint32(h&0x7fff) << 13
	exp := o & 0x0f800000
	o += (127 - 15) << 23
	if exp == 0x0f800000 { // infinity or NaN
		o += (128 - 16) << 23
	}
	f := math.Float32frombits(o)
	if exp == 0 { // zero or subnormal m: o+2^23 is 2^-14 * (1 + m/1024); less 2^-14 it is m * 2^-24
		f = math.Float32frombits(o+1<<23) - 0x1p-14
	}
	return math.Float32frombits(math.Float32bits(f) | uint32(h&0x8000)<<16)
}

// f32Params are the constants of encodeSlice32 for a format of 8 bits or fewer.
type f32Params struct {
	shift     uint32  // 23 - MantissaBits: the float32 fraction bits dropped
	roundBias uint32  // 1<<(shift-1) - 1: added, with the kept lsb, to round to nearest even
	expAdj    uint32  // (127 - Bias) << MantissaBits: float32 exponent to the format's
	normMin   uint32  // float32 bits of the smallest normal number
	magic     float32 // 2^(emin - MantissaBits + 23): its ulp is the format's subnormal quantum
	overA     uint32  // the smallest float32 magnitude that rounds past the largest finite value
}

func (f *format) initF32Params() {
	if f.Bits > 8 || f.Encoding == EncodingE8M0 {
		return
	}
	p := &f.p32
	p.shift = uint32(23 - f.MantissaBits)
	p.roundBias = 1<<(p.shift-1) - 1
	p.expAdj = uint32(127-f.Bias) << f.MantissaBits
	p.normMin = math.Float32bits(float32(math.Ldexp(1, f.emin)))
	p.magic = float32(math.Ldexp(1, f.emin-f.MantissaBits+23))
	lo, hi := uint32(0), uint32(0x7f800000) // rounding is monotonic: binary search the overflow point
	for lo < hi {
		mid := lo + (hi-lo)/2
		if f.roundMagnitude(math.Float64bits(float64(math.Float32frombits(mid)))) > f.maxCode {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	p.overA = lo
}

// encodeSlice32 is EncodeSliceFloat32 for the formats of 8 bits or fewer other than f8e8m0fnu: the
// rounding of encodeE4M3FN with the format's constants, and the special cases of encode64.
func (f *format) encodeSlice32(dst []uint8, src []float32, saturate bool) {
	p := f.p32
	magicBits := math.Float32bits(p.magic)
	over := uint32(f.overflow(0, saturate))
	inf := uint32(f.overflow(0, false))
	nan := uint32(f.qnanCode)
	signShift := uint32(f.Bits - 1)
	fnuz := f.Encoding == EncodingFNUZ
	dst = dst[:len(src)]
	for i, x := range src {
		b := math.Float32bits(x)
		a := b & 0x7fffffff
		sign := b >> 31 << signShift
		c := (a+p.roundBias+(a>>p.shift)&1)>>p.shift - p.expAdj
		if a < p.normMin {
			c = math.Float32bits(math.Float32frombits(a)+p.magic) - magicBits
		}
		if a >= p.overA {
			c = over
		}
		if a >= 0x7f800000 {
			c = inf
			if a > 0x7f800000 {
				c = nan
				if f.nanIsZero { // no NaN: the zero of the opposite sign
					c, sign = 0, sign^1<<signShift
				}
			}
		}
		if c == 0 && fnuz { // no negative zero
			sign = 0
		}
		dst[i] = uint8(sign | c)
	}
}

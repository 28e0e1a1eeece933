package dtype

import (
	"math"
	"math/bits"
)

// Element bits. Every function below takes and returns one element as a uint64 holding its bit pattern in
// the low BitWidth bits (an f8e4m3fn is 0x00..0xff, an s4 is 0x0..0xf, a c64 is the real part in the low
// 32 bits and the imaginary part in the high 32). Bits above the width are ignored on input and zero on
// output.

// mask returns the low-bits mask of t's width.
func (t Type) mask() uint64 {
	w := t.BitWidth()
	if w >= 64 || w == 0 {
		return math.MaxUint64
	}
	return 1<<w - 1
}

// DecodeFloat64 returns the value that the bit pattern stands for, exactly (every format of 32 bits or
// fewer is a subset of binary64). Integers and pred decode to their value (s64 and u64 values beyond 2^53
// are rounded to nearest even). A NaN keeps the sign of its pattern; the single NaN of the fnuz formats
// (0x80) is negative, and so is its float32 (0xffc00000), as ml_dtypes widens it. c64 decodes to its
// real part; c128 and invalid types to NaN.
func (t Type) DecodeFloat64(b uint64) float64 {
	if t >= numTypes {
		return math.NaN()
	}
	if f := formats[t]; f != nil {
		return f.decode64(b & t.mask())
	}
	switch {
	case t == PRED:
		if b&0xff != 0 {
			return 1
		}
		return 0
	case t.IsSigned():
		return float64(signExtend(b, t.BitWidth()))
	case t.IsUnsigned():
		return float64(b & t.mask())
	case t == C64:
		return float64(math.Float32frombits(uint32(b)))
	}
	return math.NaN()
}

// DecodeFloat32 returns the value that the bit pattern stands for as a float32, exactly for every format
// of 32 bits or fewer (f64 and large integers are rounded once, to nearest even). NaNs are as in ml_dtypes: the
// pattern's sign with the quiet bit set (0x7fc00000 or 0xffc00000, and 0xffc00000 for the fnuz NaN 0x80),
// except bf16 and f16, whose payloads widen unchanged (bf16 is a plain shift left by 16). For types of 8
// bits or fewer this is one table look-up.
func (t Type) DecodeFloat32(b uint64) float32 {
	if t >= numTypes {
		return float32(math.NaN())
	}
	if tab := decodeTables[t]; tab != nil {
		return tab[uint8(b)]
	}
	switch t {
	case F32:
		return math.Float32frombits(uint32(b))
	case BF16:
		return math.Float32frombits(uint32(b&0xffff) << 16)
	case F16:
		return math.Float32frombits(halfToFloat32Bits(uint16(b)))
	case F64:
		x := math.Float64frombits(b)
		if x != x {
			return math.Float32frombits(uint32(b>>63)<<31 | 0x7fc00000 | uint32(b>>29)&0x3fffff)
		}
		return float32(x)
	case S64:
		return float32(int64(b)) // one rounding: through float64 it would round twice
	case U64:
		return float32(b)
	}
	return float32(t.DecodeFloat64(b))
}

// halfToFloat32Bits widens an IEEE binary16 pattern to binary32, exactly, keeping a NaN's payload.
func halfToFloat32Bits(h uint16) uint32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f:
		return sign | 0x7f800000 | mant<<13
	case exp != 0:
		return sign | (exp+127-15)<<23 | mant<<13
	case mant == 0:
		return sign
	}
	// Subnormal: normalize. The value is mant * 2^-24.
	shift := uint32(bits.LeadingZeros32(mant)) - 21 // bring the leading 1 to bit 10
	mant <<= shift
	return sign | (127-15+1-shift)<<23 | (mant&0x3ff)<<13
}

func (f *format) decode64(b uint64) float64 {
	neg := b&f.signBit != 0
	mag := b & f.magMask
	switch f.Encoding {
	case EncodingE8M0:
		if mag == f.qnanCode {
			return math.NaN()
		}
		return math.Ldexp(1, int(mag)-f.Bias)
	case EncodingFNUZ:
		if b == f.signBit {
			return negNaN()
		}
	case EncodingFN:
		if f.HasNaN && mag == f.magMask {
			return signedNaN(neg)
		}
	case EncodingIEEE:
		if mag >= f.infCode {
			if mag == f.infCode {
				return math.Inf(signOf(neg))
			}
			switch f.Type {
			case F64:
				return math.Float64frombits(b)
			case F32, F16, BF16:
				// Widen the payload unchanged, as a float32 cast does.
				w := uint64(f.Bits)
				pay := (b & f.mantMask) << (52 - f.MantissaBits)
				return math.Float64frombits(b>>(w-1)<<63 | 0x7ff<<52 | pay)
			}
			return signedNaN(neg)
		}
	}
	exp := int(mag >> f.MantissaBits)
	mant := mag & f.mantMask
	var v float64
	if exp == 0 {
		v = math.Ldexp(float64(mant), f.emin-f.MantissaBits)
	} else {
		v = math.Ldexp(float64(mant|1<<f.MantissaBits), exp-f.Bias-f.MantissaBits)
	}
	if neg {
		v = -v
	}
	return v
}

func signOf(neg bool) int {
	if neg {
		return -1
	}
	return 1
}

func negNaN() float64 { return math.Float64frombits(0xfff8000000000000) }

func signedNaN(neg bool) float64 {
	if neg {
		return negNaN()
	}
	return math.Float64frombits(0x7ff8000000000000)
}

func signExtend(b uint64, width int) int64 {
	if width >= 64 {
		return int64(b)
	}
	s := 64 - uint(width)
	return int64(b<<s) >> s
}

// EncodeFloat32 converts x to t, as numpy's float32_array.astype(t) does with ml_dtypes: round to nearest,
// ties to even (f8e8m0fnu rounds ties up); a finite value past the largest one becomes infinity where the
// format has one (f8e5m2: 0x7c), NaN where it has no infinity (f8e4m3fn: 0x7f above 464; the fnuz formats:
// 0x80), and the largest value where it has neither (FP6, FP4). Infinities become NaN in formats without
// them. NaN becomes the format's quiet NaN with x's sign (fnuz: 0x80; FP6 and FP4, which have no NaN, give
// the zero of the opposite sign). f8e8m0fnu, which has no zero and no sign, gives NaN for zero and negative
// values. Integer types truncate toward zero and wrap, as numpy's cast does on x86-64 (NaN, infinities and
// values outside the int32 range give 0 for the types of 16 bits or fewer); pred is x != 0.
func (t Type) EncodeFloat32(x float32) uint64 {
	return t.encode(float64(x), false)
}

// EncodeFloat32Saturate is EncodeFloat32 with ml_dtypes' saturating conversion (C++
// ConvertFrom<kSaturate=true>): a finite value past the largest one becomes the largest (with its sign).
// Infinities and NaNs convert as in EncodeFloat32, except that f8e8m0fnu gives its smallest value for zero
// and negative numbers. Integer types clamp to their range, NaN giving 0 (XLA's convert semantics).
func (t Type) EncodeFloat32Saturate(x float32) uint64 {
	return t.encode(float64(x), true)
}

// EncodeFloat64 converts x to t with ONE rounding directly from binary64, as ml_dtypes' scalar constructor
// (t(python_float)) and C++ static_cast from double do. The exception is bf16, whose ml_dtypes scalar
// conversion narrows to float32 first (Eigen's bfloat16), so it is EncodeFloat64ViaFloat32 there.
// Overflow, NaN and the integer types are as in EncodeFloat32.
func (t Type) EncodeFloat64(x float64) uint64 {
	if t == BF16 {
		return t.encode(float64(float32(x)), false)
	}
	return t.encode(x, false)
}

// EncodeFloat64Saturate is EncodeFloat64 with saturation (see EncodeFloat32Saturate).
func (t Type) EncodeFloat64Saturate(x float64) uint64 {
	if t == BF16 {
		return t.encode(float64(float32(x)), true)
	}
	return t.encode(x, true)
}

// EncodeFloat64ViaFloat32 converts x as numpy's float64_array.astype(t) does: to float32 first (round to
// nearest even), then to t: two roundings, which differ from EncodeFloat64 for values just beside a
// rounding boundary of t.
func (t Type) EncodeFloat64ViaFloat32(x float64) uint64 {
	return t.encode(float64(float32(x)), false)
}

func (t Type) encode(x float64, saturate bool) uint64 {
	if t >= numTypes {
		return 0
	}
	switch t {
	case F64:
		return math.Float64bits(x)
	case F32:
		if saturate && !math.IsInf(x, 0) {
			x = max(-math.MaxFloat32, min(math.MaxFloat32, x))
		}
		if x != x {
			// Keep the sign and the top of the payload, quieted, as the hardware conversion does.
			b := math.Float64bits(x)
			return uint64(uint32(b>>63)<<31 | 0x7fc00000 | uint32(b>>29)&0x3fffff)
		}
		return uint64(math.Float32bits(float32(x)))
	case C64:
		return F32.encode(x, saturate) // the real part; the imaginary part is zero
	}
	if f := formats[t]; f != nil {
		return f.encode64(math.Float64bits(x), saturate)
	}
	switch {
	case t == PRED:
		if x != 0 {
			return 1
		}
		return 0
	case t.IsInteger():
		return encodeInt(t, x, saturate)
	}
	return 0
}

// encode64 rounds the binary64 pattern b to f.
func (f *format) encode64(b uint64, saturate bool) uint64 {
	neg := b>>63 != 0
	abs := b &^ (1 << 63)
	var sb uint64
	if neg {
		sb = f.signBit
	}
	const inf64 = 0x7ff0000000000000
	if f.Encoding == EncodingE8M0 {
		switch {
		case abs >= inf64: // NaN and both infinities
			return f.qnanCode
		case neg || abs == 0:
			if saturate {
				return 0
			}
			return f.qnanCode
		}
		c := f.roundMagnitude(abs)
		if c > f.maxCode {
			if saturate {
				return f.maxCode
			}
			return f.qnanCode
		}
		return c
	}
	if abs > inf64 { // NaN
		switch {
		case f.nanIsZero:
			if neg {
				return 0
			}
			return f.signBit
		case f.Encoding == EncodingFNUZ:
			return f.qnanCode
		case f.Type == F16:
			// Keep the top of the payload, quieted.
			return sb | f.qnanCode | (abs>>42)&f.mantMask
		}
		return sb | f.qnanCode
	}
	if abs == inf64 {
		return f.overflow(sb, false)
	}
	c := f.roundMagnitude(abs)
	if c > f.maxCode {
		return f.overflow(sb, saturate)
	}
	if c == 0 && !f.HasNegZero {
		return 0
	}
	return sb | c
}

// overflow is the code of a value past the largest finite one, of sign sb.
func (f *format) overflow(sb uint64, saturate bool) uint64 {
	if saturate {
		return sb | f.maxCode
	}
	switch {
	case f.HasInf:
		return sb | f.infCode
	case f.Encoding == EncodingFNUZ:
		return f.qnanCode
	case f.HasNaN:
		return sb | f.qnanCode
	}
	return sb | f.maxCode
}

// roundMagnitude rounds the positive finite binary64 pattern abs to f's precision and returns the
// magnitude code (exponent and mantissa fields) it rounds to, which may exceed f.maxCode.
func (f *format) roundMagnitude(abs uint64) uint64 {
	if abs == 0 {
		return 0
	}
	ex := int(abs >> 52)
	m := abs & (1<<52 - 1)
	q := -1074 // value = m * 2^q
	if ex != 0 {
		m |= 1 << 52
		q = ex - 1075
	}
	e := q + 63 - bits.LeadingZeros64(m) // exponent of the leading bit
	M := f.MantissaBits
	var s int
	var base uint64
	tiesUp := false
	if e >= f.emin {
		// Normal: keep M bits after the leading one; base + (m>>s) carries into the exponent on rounding.
		s = e - M - q
		base = uint64(e+f.Bias-1) << M
		tiesUp = f.tiesUp
	} else {
		// Subnormal: multiples of 2^(emin-M). f8e8m0fnu rounds ties to even here (its code 0, 2^-127,
		// is reached by the subnormal path of ml_dtypes' generic conversion).
		s = f.emin - M - q
	}
	if s <= 0 {
		return base + m<<uint(-s)
	}
	if s >= 64 {
		return base
	}
	c := m >> uint(s)
	rem := m & (1<<uint(s) - 1)
	half := uint64(1) << uint(s-1)
	if rem > half || rem == half && (tiesUp || c&1 == 1) {
		c++
	}
	return base + c
}

// encodeInt converts x to an integer type: truncation toward zero with the wrap-around of numpy's cast
// on x86-64, or clamping when saturate is set.
func encodeInt(t Type, x float64, saturate bool) uint64 {
	w := t.BitWidth()
	mask := t.mask()
	if saturate {
		if x != x {
			return 0
		}
		x = math.Trunc(x)
		if t.IsSigned() {
			lo, hi := -math.Ldexp(1, w-1), math.Ldexp(1, w-1)
			switch {
			case x < lo:
				return uint64(1) << (w - 1) & mask
			case x >= hi:
				return (uint64(1)<<(w-1) - 1) & mask
			}
			return uint64(int64(x)) & mask
		}
		hi := math.Ldexp(1, w)
		switch {
		case x <= 0:
			return 0
		case x >= hi:
			return mask
		}
		return uint64(x) & mask
	}
	switch {
	case w <= 16 || t == S32:
		return uint64(uint32(cvtInt32(x))) & mask
	case t == U64:
		if x < 0x1p63 || x != x {
			return uint64(cvtInt64(x))
		}
		return uint64(cvtInt64(x-0x1p63)) ^ 1<<63
	}
	return uint64(cvtInt64(x)) & mask
}

// cvtInt32 is x86's CVTTSD2SI to 32 bits: truncation, or INT32_MIN when x is NaN or out of range.
func cvtInt32(x float64) int32 {
	if x > -0x1p31-1 && x < 0x1p31 {
		return int32(x)
	}
	return math.MinInt32
}

// cvtInt64 is x86's CVTTSD2SI to 64 bits.
func cvtInt64(x float64) int64 {
	if x >= -0x1p63 && x < 0x1p63 {
		return int64(x)
	}
	return math.MinInt64
}

// Convert converts one element from src to dst with one rounding, as ml_dtypes' C++ ConvertImpl<src,
// dst> does (and numpy's src_array.astype(dst), which goes through float32, exact for every format of 16
// bits or fewer). NaN keeps its sign through the conversion (the fnuz NaN is negative). saturate selects
// ConvertImpl<src, dst, kSaturate=true>. Between integer types (and pred) the value wraps as numpy's cast
// does. From an integer to f64 the integer is rounded once to binary64; to every other float type it is
// rounded once to float32 (exact up to 2^24), then converted, as ml_dtypes' casts from integers do. To f32
// and f64 the result is DecodeFloat32's and DecodeFloat64's (f64 to f32 rounds; saturate then has no
// effect).
func Convert(src, dst Type, b uint64, saturate bool) uint64 {
	srcInt := src.IsInteger() || src == PRED
	dstInt := dst.IsInteger() || dst == PRED
	if srcInt && dstInt {
		var v uint64
		if src.IsSigned() {
			v = uint64(signExtend(b&src.mask(), src.BitWidth()))
		} else {
			v = b & src.mask()
			if src == PRED && v != 0 {
				v = 1
			}
		}
		if dst == PRED {
			if v != 0 {
				return 1
			}
			return 0
		}
		if saturate {
			return clampInt(src, dst, v)
		}
		return v & dst.mask()
	}
	switch dst {
	case F32:
		// Widening is exact: as DecodeFloat32, which keeps bf16 and f16 NaN payloads.
		if src != C64 && src != C128 {
			return uint64(math.Float32bits(src.DecodeFloat32(b)))
		}
	case F64:
		return math.Float64bits(src.DecodeFloat64(b))
	}
	var x float64
	if srcInt {
		x = float64(src.DecodeFloat32(b))
	} else {
		x = src.DecodeFloat64(b)
	}
	if saturate {
		return dst.EncodeFloat64Saturate(x)
	}
	return dst.EncodeFloat64(x)
}

// clampInt clamps the integer v of type src (sign-extended when src is signed) to dst's range.
func clampInt(src, dst Type, v uint64) uint64 {
	w := dst.BitWidth()
	neg := src.IsSigned() && int64(v) < 0
	if dst.IsSigned() {
		lo, hi := -(int64(1) << (w - 1)), int64(1)<<(w-1)-1
		switch {
		case neg && int64(v) < lo:
			return uint64(lo) & dst.mask()
		case !neg && v > uint64(hi):
			return uint64(hi) & dst.mask()
		}
		return v & dst.mask()
	}
	if neg {
		return 0
	}
	return min(v, dst.mask())
}

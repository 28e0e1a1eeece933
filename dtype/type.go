package dtype

import "strings"

// Type is an element type, one per XLA PrimitiveType that holds data. Its String is XLA's lower-case name
// ("f8e4m3fn"), the spelling HLO text uses.
type Type uint8

// The element types. Invalid is the zero value.
const (
	Invalid Type = iota
	PRED
	S1
	S2
	S4
	S8
	S16
	S32
	S64
	U1
	U2
	U4
	U8
	U16
	U32
	U64
	F16
	BF16
	F32
	F64
	C64
	C128
	F8E5M2
	F8E4M3
	F8E4M3FN
	F8E4M3B11FNUZ
	F8E5M2FNUZ
	F8E4M3FNUZ
	F8E3M4
	F8E8M0FNU
	F6E2M3FN
	F6E3M2FN
	F4E2M1FN
	numTypes
)

var typeNames = [numTypes]string{
	Invalid: "invalid", PRED: "pred",
	S1: "s1", S2: "s2", S4: "s4", S8: "s8", S16: "s16", S32: "s32", S64: "s64",
	U1: "u1", U2: "u2", U4: "u4", U8: "u8", U16: "u16", U32: "u32", U64: "u64",
	F16: "f16", BF16: "bf16", F32: "f32", F64: "f64", C64: "c64", C128: "c128",
	F8E5M2: "f8e5m2", F8E4M3: "f8e4m3", F8E4M3FN: "f8e4m3fn", F8E4M3B11FNUZ: "f8e4m3b11fnuz",
	F8E5M2FNUZ: "f8e5m2fnuz", F8E4M3FNUZ: "f8e4m3fnuz", F8E3M4: "f8e3m4", F8E8M0FNU: "f8e8m0fnu",
	F6E2M3FN: "f6e2m3fn", F6E3M2FN: "f6e3m2fn", F4E2M1FN: "f4e2m1fn",
}

// ml_dtypes' and numpy's names for the same types.
var numpyNames = [numTypes]string{
	PRED: "bool", S1: "int1", S2: "int2", S4: "int4", S8: "int8", S16: "int16", S32: "int32", S64: "int64",
	U1: "uint1", U2: "uint2", U4: "uint4", U8: "uint8", U16: "uint16", U32: "uint32", U64: "uint64",
	F16: "float16", BF16: "bfloat16", F32: "float32", F64: "float64", C64: "complex64", C128: "complex128",
	F8E5M2: "float8_e5m2", F8E4M3: "float8_e4m3", F8E4M3FN: "float8_e4m3fn",
	F8E4M3B11FNUZ: "float8_e4m3b11fnuz", F8E5M2FNUZ: "float8_e5m2fnuz", F8E4M3FNUZ: "float8_e4m3fnuz",
	F8E3M4: "float8_e3m4", F8E8M0FNU: "float8_e8m0fnu", F6E2M3FN: "float6_e2m3fn", F6E3M2FN: "float6_e3m2fn",
	F4E2M1FN: "float4_e2m1fn",
}

var bitWidths = [numTypes]int{
	PRED: 8, S1: 1, S2: 2, S4: 4, S8: 8, S16: 16, S32: 32, S64: 64,
	U1: 1, U2: 2, U4: 4, U8: 8, U16: 16, U32: 32, U64: 64,
	F16: 16, BF16: 16, F32: 32, F64: 64, C64: 64, C128: 128,
	F8E5M2: 8, F8E4M3: 8, F8E4M3FN: 8, F8E4M3B11FNUZ: 8, F8E5M2FNUZ: 8, F8E4M3FNUZ: 8, F8E3M4: 8,
	F8E8M0FNU: 8, F6E2M3FN: 6, F6E3M2FN: 6, F4E2M1FN: 4,
}

// All returns every valid type, in declaration order.
func All() []Type {
	ts := make([]Type, 0, numTypes-1)
	for t := Invalid + 1; t < numTypes; t++ {
		ts = append(ts, t)
	}
	return ts
}

// String returns XLA's name of t ("bf16", "f8e4m3fn").
func (t Type) String() string {
	if t < numTypes {
		return typeNames[t]
	}
	return "invalid"
}

// NumpyName returns ml_dtypes' or numpy's name of t ("bfloat16", "float8_e4m3fn").
func (t Type) NumpyName() string {
	if t < numTypes {
		return numpyNames[t]
	}
	return ""
}

// Valid reports whether t is one of the declared types.
func (t Type) Valid() bool { return t > Invalid && t < numTypes }

var byName = func() map[string]Type {
	m := map[string]Type{}
	for t := Invalid + 1; t < numTypes; t++ {
		m[typeNames[t]] = t
		m[numpyNames[t]] = t
	}
	return m
}()

// Lookup returns the type with XLA's name (as HLO text writes it: "f8e4m3fn") or ml_dtypes' name
// ("float8_e4m3fn"). StableHLO's spelling ("f8E4M3FN") is accepted too, since matching ignores case.
func Lookup(name string) (Type, bool) {
	if t, ok := byName[name]; ok {
		return t, true
	}
	t, ok := byName[strings.ToLower(name)]
	return t, ok
}

// BitWidth is the number of bits one element occupies in XLA's logical model (4 for s4, 1 for s1, 8 for
// pred).
func (t Type) BitWidth() int {
	if t < numTypes {
		return bitWidths[t]
	}
	return 0
}

// ByteSize is the number of bytes one element occupies in an unpacked array (sub-byte types take one byte).
func (t Type) ByteSize() int { return (t.BitWidth() + 7) / 8 }

// IsFloat reports whether t is a real floating-point type (FP4 to f64, bf16 included).
func (t Type) IsFloat() bool {
	switch t {
	case F16, BF16, F32, F64, F8E5M2, F8E4M3, F8E4M3FN, F8E4M3B11FNUZ, F8E5M2FNUZ, F8E4M3FNUZ, F8E3M4,
		F8E8M0FNU, F6E2M3FN, F6E3M2FN, F4E2M1FN:
		return true
	}
	return false
}

// IsComplex reports whether t is c64 or c128.
func (t Type) IsComplex() bool { return t == C64 || t == C128 }

// Part is the type of a complex type's real and imaginary parts (f32 for c64, f64 for c128); t itself for
// every other type.
func (t Type) Part() Type {
	switch t {
	case C64:
		return F32
	case C128:
		return F64
	}
	return t
}

// ComplexOf is the complex type whose parts are of type part (c64 for f32, c128 for f64); Invalid for
// other types.
func ComplexOf(part Type) Type {
	switch part {
	case F32:
		return C64
	case F64:
		return C128
	}
	return Invalid
}

// IsSigned reports whether t is a signed integer type.
func (t Type) IsSigned() bool { return t >= S1 && t <= S64 }

// IsUnsigned reports whether t is an unsigned integer type.
func (t Type) IsUnsigned() bool { return t >= U1 && t <= U64 }

// IsInteger reports whether t is a signed or unsigned integer type (pred is not).
func (t Type) IsInteger() bool { return t.IsSigned() || t.IsUnsigned() }

// IsFP8 reports whether t is one of the 8-bit floating-point types.
func (t Type) IsFP8() bool { return t.IsFloat() && t.BitWidth() == 8 }

// IsNarrowFloat reports whether t is a float narrower than 16 bits (FP8, FP6, FP4): the types numpy knows
// only through ml_dtypes.
func (t Type) IsNarrowFloat() bool { return t.IsFloat() && t.BitWidth() < 16 }

package printer

import (
	"math"
	"strconv"

	"octet/dtype"
	"octet/hlo"
)

// LiteralString returns the literal l of shape s on one line, as XLA's HLO printer writes a constant's
// value: "1", "{1, 2.5}", "{ { 1, 2 }, { 3, 4 } }", "( {1}, 2 )", "{...}" when l is elided or nil.
func LiteralString(l *hlo.Literal, s hlo.Shape) string { return string(appendLiteral(nil, l, s)) }

// appendLiteral appends l (of shape s) as XLA's LiteralBase::PrintWithoutShapeOneline does.
func appendLiteral(b []byte, l *hlo.Literal, s hlo.Shape) []byte {
	if l == nil || l.Elided {
		return append(b, "{...}"...)
	}
	switch s.Kind {
	case hlo.TupleShape:
		b = append(b, "( "...)
		for i, e := range l.Tuple {
			if i > 0 {
				b = append(b, ", "...)
			}
			var es hlo.Shape
			if i < len(s.Tuple) {
				es = s.Tuple[i]
			}
			b = appendLiteral(b, e, es)
		}
		return append(b, " )"...)
	case hlo.TokenShape:
		return append(b, "token"...)
	}
	a := l.Array
	if a == nil {
		return append(b, "{...}"...)
	}
	rank := len(a.Shape)
	if rank == 0 {
		return appendElementAt(b, a.Type, a.Data, 0, 0)
	}
	index := make([]int64, 0, rank)
	var next int64
	var rec func()
	rec = func() {
		rest := a.Shape[len(index):]
		if len(rest) == 0 {
			b = appendElementAt(b, a.Type, a.Data, next, rank)
			next++
			return
		}
		b = appendOpen(b, rank, rest, index)
		for i := int64(0); i < rest[0]; i++ {
			index = append(index, i)
			rec()
			index = index[:len(index)-1]
			if i < rest[0]-1 {
				b = append(b, ", "...)
			}
		}
		b = appendClose(b, rank, rest)
	}
	rec()
	return b
}

// appendOpen appends the brace XLA writes before the dimensions rest of a literal of rank rank, at
// index: "{" for a vector and for an innermost row of at most one element, "{ " for other innermost rows
// and outer dimensions, and "{ /*iK=V*/ " for the inner dimensions of a literal of rank 4 or more.
func appendOpen(b []byte, rank int, rest, index []int64) []byte {
	switch {
	case rank == 1 || len(rest) == 1 && rest[0] <= 1:
		return append(b, '{')
	case len(rest) > 1 && rank > 3 && len(index) > 0:
		b = append(b, "{ /*i"...)
		b = strconv.AppendInt(b, int64(len(index)-1), 10)
		b = append(b, '=')
		b = strconv.AppendInt(b, index[len(index)-1], 10)
		b = append(b, "*/"...)
		if rest[0] > 0 {
			b = append(b, ' ')
		}
		return b
	}
	return append(b, "{ "...)
}

func appendClose(b []byte, rank int, rest []int64) []byte {
	if rank == 1 || len(rest) == 1 && rest[0] <= 1 {
		return append(b, '}')
	}
	return append(b, " }"...)
}

// appendElementAt appends element i of data, an array of type t in the tensor package's encoding.
func appendElementAt(b []byte, t dtype.Type, data []byte, i int64, rank int) []byte {
	es := int64(t.ByteSize())
	p := data[i*es : (i+1)*es]
	var lo, hi uint64
	for k := len(p) - 1; k >= 0; k-- {
		if k >= 8 {
			hi = hi<<8 | uint64(p[k])
		} else {
			lo = lo<<8 | uint64(p[k])
		}
	}
	return appendElement(b, t, lo, hi, rank)
}

// appendElement appends one element given by its bits (for c128, lo and hi are the real and imaginary
// parts' bits; for c64 lo holds both), as XLA's LiteralBase::GetAsString writes it.
func appendElement(b []byte, t dtype.Type, lo, hi uint64, rank int) []byte {
	switch {
	case t == dtype.PRED:
		switch {
		case rank > 0 && lo != 0:
			return append(b, '1')
		case rank > 0:
			return append(b, '0')
		case lo != 0:
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case t.IsSigned():
		w := t.BitWidth()
		return strconv.AppendInt(b, int64(lo<<(64-w))>>(64-w), 10)
	case t.IsUnsigned():
		if w := t.BitWidth(); w < 64 {
			lo &= 1<<w - 1
		}
		return strconv.AppendUint(b, lo, 10)
	case t == dtype.C64:
		b = append(b, '(')
		b = appendFloat(b, dtype.F32, lo&0xffffffff)
		b = append(b, ", "...)
		b = appendFloat(b, dtype.F32, lo>>32)
		return append(b, ')')
	case t == dtype.C128:
		b = append(b, '(')
		b = appendFloat(b, dtype.F64, lo)
		b = append(b, ", "...)
		b = appendFloat(b, dtype.F64, hi)
		return append(b, ')')
	case t.IsFloat():
		return appendFloat(b, t, lo)
	}
	return append(b, '?')
}

// appendFloat appends the floating-point value with bits of type t as XLA's RoundTripFpToString writes
// it: f32 and f64 with 6 and 15 significant digits when those read back as the same value, else 9 and 17;
// narrower types with their max_digits10 digits (as many as ml_dtypes and Eigen give them); inf, -inf,
// nan and -nan; and for f64, f32, f16 and bf16 a NaN's payload when it is not the quiet NaN's, nan(0x1).
func appendFloat(b []byte, t dtype.Type, bits uint64) []byte {
	v := t.DecodeFloat64(bits)
	switch {
	case math.IsNaN(v):
		if math.Signbit(v) {
			b = append(b, '-')
		}
		b = append(b, "nan"...)
		if f, ok := t.Format(); ok && f.Encoding == dtype.EncodingIEEE && f.Bits >= 16 {
			mant := bits & (1<<f.MantissaBits - 1)
			if mant != 1<<(f.MantissaBits-1) {
				b = append(b, "(0x"...)
				b = strconv.AppendUint(b, mant, 16)
				b = append(b, ')')
			}
		}
		return b
	case math.IsInf(v, 1):
		return append(b, "inf"...)
	case math.IsInf(v, -1):
		return append(b, "-inf"...)
	case t == dtype.F32:
		s := strconv.FormatFloat(v, 'g', 6, 64)
		if back, err := strconv.ParseFloat(s, 32); err != nil || float32(back) != float32(v) {
			s = strconv.FormatFloat(v, 'g', 9, 64)
		}
		return append(b, s...)
	case t == dtype.F64:
		s := strconv.FormatFloat(v, 'g', 15, 64)
		if back, err := strconv.ParseFloat(s, 64); err != nil || back != v {
			s = strconv.FormatFloat(v, 'g', 17, 64)
		}
		return append(b, s...)
	}
	digits := 9
	if f, ok := t.Format(); ok {
		digits = 2 + (f.MantissaBits+1)*30103/100000
	}
	return strconv.AppendFloat(b, v, 'g', digits, 64)
}

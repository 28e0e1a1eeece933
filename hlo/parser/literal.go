package parser

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

// literal reads a constant's value of shape s.
func (p *parser) literal(s hlo.Shape) *hlo.Literal {
	p.skipSpace()
	if strings.HasPrefix(p.src[p.off:p.end], "{...}") {
		p.off += len("{...}")
		return hlo.ElidedLiteral()
	}
	switch s.Kind {
	case hlo.TupleShape:
		if !p.expect('(', "to open a tuple literal") {
			return nil
		}
		elems := make([]*hlo.Literal, 0, len(s.Tuple))
		for i := range s.Tuple {
			if i > 0 && !p.expect(',', "between the elements of a tuple literal") {
				return nil
			}
			e := p.literal(s.Tuple[i])
			if e == nil {
				return nil
			}
			elems = append(elems, e)
		}
		if !p.expect(')', "after the "+strconv.Itoa(len(s.Tuple))+" elements of a tuple literal") {
			return nil
		}
		return hlo.TupleLiteral(elems...)
	case hlo.TokenShape:
		p.skipSpace()
		if w := p.peekWord(); w == "token" {
			p.word()
		}
		return &hlo.Literal{}
	case hlo.ArrayShape:
	default:
		p.errorAt(p.off, "constants of shape %s are not supported", s.String())
		return nil
	}
	if !s.Elem.Valid() {
		p.errorAt(p.off, "a constant needs an array shape with an element type")
		return nil
	}
	for _, d := range s.Dims {
		if d < 0 {
			p.errorAt(p.off, "constants of dynamic shape %s are not supported", s.String())
			return nil
		}
	}
	rank := len(s.Dims)
	p.skipSpace()
	broadcast := rank > 0 && p.peek() != '{'
	// The values take memory only in proportion to the text that writes them (a character each at least),
	// except the one value written for a whole array: those of a file take maxBroadcastBytes in all.
	limit := int64(p.end-p.off) * int64(s.Elem.ByteSize())
	if broadcast {
		limit = maxBroadcastBytes
		if p.broadcastLeft != nil {
			limit = *p.broadcastLeft
		}
	}
	a, ok := newTensor(s.Elem, s.Dims, limit)
	if !ok {
		if size, alone := tensorBytes(s.Elem, s.Dims, maxBroadcastBytes); broadcast && alone {
			p.errorAt(p.off, "a literal of shape %s written as one value takes %d bytes: such literals may take %d bytes in all in a file, and %d are left",
				s.String(), size, maxBroadcastBytes, limit)
			return nil
		}
		p.errorAt(p.off, "a literal of shape %s is larger than its text allows", s.String())
		return nil
	}
	if broadcast && p.broadcastLeft != nil {
		*p.broadcastLeft -= int64(len(a.Data))
	}
	if broadcast {
		// One value for the whole array, which XLA's parser gives every element (of which there may be
		// none: the value is read all the same).
		one := tensor.New(s.Elem, nil)
		if !p.element(one, 0) {
			return nil
		}
		n := a.NumElements()
		es := int64(s.Elem.ByteSize())
		for i := int64(0); i < n; i++ {
			copy(a.Data[i*es:(i+1)*es], one.Data[:es])
		}
		return hlo.ArrayLiteral(a)
	}
	var next int64
	empty := a.NumElements() == 0
	var level func(d int) bool
	level = func(d int) bool {
		if d == rank {
			ok := p.element(a, next)
			next++
			return ok
		}
		if !p.accept('{') {
			p.errorAt(p.off, "expected '{' to open dimension %d of a literal of shape %s, found %s", d, s.String(), p.describe())
			return false
		}
		if empty && p.accept('}') {
			return true // {} for any array without elements
		}
		for i := int64(0); i < s.Dims[d]; i++ {
			if i > 0 && !p.accept(',') {
				p.errorAt(p.off, "expected ',' between the elements of dimension %d of a literal of shape %s, found %s", d, s.String(), p.describe())
				return false
			}
			if !level(d + 1) {
				return false
			}
		}
		if !p.accept('}') {
			p.errorAt(p.off, "expected '}' after the %d elements of dimension %d of a literal of shape %s, found %s",
				s.Dims[d], d, s.String(), p.describe())
			return false
		}
		return true
	}
	// A scalar may be written in braces: {1}.
	if rank == 0 && p.peek() == '{' {
		p.off++
		if !p.element(a, 0) || !p.expect('}', "after a scalar literal") {
			return nil
		}
		return hlo.ArrayLiteral(a)
	}
	if !level(0) {
		return nil
	}
	return hlo.ArrayLiteral(a)
}

// maxBroadcastBytes bounds the array literals of a file written as one value for every element, together
// (a variable for tests).
var maxBroadcastBytes int64 = 1 << 30

// newTensor allocates a tensor of the given dimensions if its data takes at most limit bytes.
func newTensor(t dtype.Type, dims []int64, limit int64) (*tensor.Tensor, bool) {
	if _, ok := tensorBytes(t, dims, limit); !ok {
		return nil, false
	}
	return tensor.New(t, dims), true
}

// tensorBytes returns the bytes of a tensor of the given dimensions, and whether they are at most limit.
func tensorBytes(t dtype.Type, dims []int64, limit int64) (int64, bool) {
	n := int64(t.ByteSize())
	for _, d := range dims {
		if d != 0 && n > limit/d {
			return 0, false
		}
		n *= d
	}
	if n > limit && n > 0 {
		return 0, false
	}
	return n, true
}

// scalarWord reads one scalar of a literal: a number, true, false, inf, nan, or nan(0xPAYLOAD), with an
// optional sign.
func (p *parser) scalarWord() (string, int) {
	p.skipSpace()
	start := p.off
	for p.off < p.end {
		c := p.src[p.off]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == '{' || c == '}' || c == ')' || c == '(' || c == '/' {
			break
		}
		p.off++
	}
	if w := p.src[start:p.off]; p.peek() == '(' && strings.HasSuffix(strings.ToLower(w), "nan") {
		if e := strings.IndexByte(p.src[p.off:p.end], ')'); e >= 0 {
			p.off += e + 1
		}
	}
	return p.src[start:p.off], start
}

// element reads element i of a.
func (p *parser) element(a *tensor.Tensor, i int64) bool {
	t := a.Type
	if t.IsComplex() {
		part := dtype.F32
		if t == dtype.C128 {
			part = dtype.F64
		}
		if !p.expect('(', "to open a complex value") {
			return false
		}
		w, off := p.scalarWord()
		re, ok := p.floatValue(w, off, part)
		if !ok || !p.expect(',', "between the parts of a complex value") {
			return false
		}
		w, off = p.scalarWord()
		im, ok := p.floatValue(w, off, part)
		if !ok || !p.expect(')', "to close a complex value") {
			return false
		}
		if t == dtype.C64 {
			a.SetBitsAt(i, re|im<<32)
		} else {
			for k := 0; k < 8; k++ {
				a.Data[16*i+int64(k)] = byte(re >> (8 * k))
				a.Data[16*i+8+int64(k)] = byte(im >> (8 * k))
			}
		}
		return true
	}
	w, off := p.scalarWord()
	if w == "" {
		p.errorAt(off, "expected a %s value, found %s", t, p.describe())
		return false
	}
	var bits uint64
	switch {
	case t == dtype.PRED:
		switch w {
		case "true", "1":
			bits = 1
		case "false", "0":
		default:
			p.errorAt(off, "%s is not a pred value (true, false, 1 or 0)", strconv.Quote(w))
			return false
		}
	case t.IsInteger():
		b, ok := p.intValue(w, off, t)
		if !ok {
			return false
		}
		bits = b
	case t.IsFloat():
		b, ok := p.floatValue(w, off, t)
		if !ok {
			return false
		}
		bits = b
	default:
		p.errorAt(off, "constants of type %s are not supported", t)
		return false
	}
	a.SetBitsAt(i, bits)
	return true
}

// intValue decodes a decimal integer of type t, which must hold it.
func (p *parser) intValue(text string, off int, t dtype.Type) (uint64, bool) {
	digits := strings.TrimPrefix(strings.TrimPrefix(text, "-"), "+")
	if digits == "" || strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		p.errorAt(off, "%s is not an integer", strconv.Quote(text))
		return 0, false
	}
	w := t.BitWidth()
	if t.IsUnsigned() {
		v, err := strconv.ParseUint(strings.TrimPrefix(text, "+"), 10, w)
		if err != nil {
			p.errorAt(off, "%s is out of range for %s", text, t)
			return 0, false
		}
		return v, true
	}
	v, err := strconv.ParseInt(text, 10, w)
	if err != nil {
		p.errorAt(off, "%s is out of range for %s", text, t)
		return 0, false
	}
	return uint64(v), true
}

// floatValue decodes a value of the floating-point type t: a decimal number rounded as XLA's parser
// rounds it (hlo.EncodeFloat), inf, nan, or nan(0xPAYLOAD), signed or not. A finite number that becomes
// an infinity or a NaN in t is out of range.
func (p *parser) floatValue(w string, off int, t dtype.Type) (uint64, bool) {
	s, neg := w, false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	switch low := strings.ToLower(s); {
	case low == "inf":
		if !math.IsInf(t.DecodeFloat64(hlo.EncodeFloat(t, math.Inf(1))), 1) {
			p.errorAt(off, "%s has no infinity", t)
			return 0, false
		}
		return hlo.EncodeFloat(t, math.Inf(sign(neg))), true
	case strings.HasPrefix(low, "nan"):
		if !math.IsNaN(t.DecodeFloat64(hlo.EncodeFloat(t, math.NaN()))) {
			p.errorAt(off, "%s has no NaN", t)
			return 0, false
		}
		payload := uint64(0)
		if rest := low[3:]; rest != "" {
			if !strings.HasPrefix(rest, "(0x") || !strings.HasSuffix(rest, ")") {
				p.errorAt(off, "%s is not a NaN (nan or nan(0xPAYLOAD))", strconv.Quote(w))
				return 0, false
			}
			v, err := strconv.ParseUint(rest[3:len(rest)-1], 16, 64)
			if err != nil || v == 0 {
				p.errorAt(off, "bad NaN payload in %s", strconv.Quote(w))
				return 0, false
			}
			payload = v
		}
		b, msg := nanBits(t, neg, payload)
		if msg != "" {
			p.errorAt(off, "%s", msg)
			return 0, false
		}
		return b, true
	}
	// Decimal only: strconv would also take hexadecimal (0x1p-2) and "infinity".
	if s == "" || !(isDigit(s[0]) || s[0] == '.') || len(s) > 1 && s[0] == '0' && s[1]|0x20 == 'x' {
		p.errorAt(off, "%s is not a %s value", strconv.Quote(w), t)
		return 0, false
	}
	x, err := dtype.ParseFloat(w, 64) // strconv.ParseFloat misreads some long spellings
	if err != nil {
		// A decimal beyond binary64 becomes an infinity, as strtod gives it.
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			p.errorAt(off, "%s is not a %s value", strconv.Quote(w), t)
			return 0, false
		}
		return hlo.EncodeFloat(t, x), true
	}
	b := hlo.EncodeFloat(t, x)
	if y := t.DecodeFloat64(b); math.IsInf(y, 0) || math.IsNaN(y) {
		p.errorAt(off, "%s is out of range for %s", w, t)
		return 0, false
	}
	return b, true
}

func sign(neg bool) int {
	if neg {
		return -1
	}
	return 1
}

// quietPayload64 is the payload of binary64's quiet NaN. XLA's parser reads every literal value as a
// binary64 first, so nan(0x8000000000000) reads back as a plain nan for every type.
const quietPayload64 = 1 << 51

// nanBits returns a NaN of type t, as XLA's parser builds it. Payload 0 (a plain nan) gives the type's
// quiet NaN of that sign. The IEEE types (f64, f32, f16, bf16, f8e5m2, f8e4m3, f8e3m4) take a payload from
// 0x1 up to their mantissa mask as the NaN's mantissa; the other types have no NaN payloads. A payload
// that does not fit gives the error message instead.
func nanBits(t dtype.Type, neg bool, payload uint64) (uint64, string) {
	if payload == quietPayload64 {
		payload = 0
	}
	f, ok := t.Format()
	if ok && f.Encoding == dtype.EncodingIEEE {
		mant := uint64(1)<<f.MantissaBits - 1
		if payload > mant {
			return 0, fmt.Sprintf("NaN payload 0x%x is out of range for %s (0x1 to 0x%x)", payload, t, mant)
		}
		b := (uint64(1)<<f.ExponentBits - 1) << f.MantissaBits
		if payload != 0 {
			b |= payload
		} else {
			b |= 1 << (f.MantissaBits - 1)
		}
		if neg {
			b |= 1 << (f.Bits - 1)
		}
		return b, ""
	}
	if payload != 0 {
		return 0, fmt.Sprintf("NaN payload 0x%x: %s does not support NaN payloads", payload, t)
	}
	return t.EncodeFloat64(math.Copysign(math.NaN(), float64(sign(neg)))), ""
}

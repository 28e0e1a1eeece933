package stablehlo

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"

	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

// maxSplatBytes bounds the size of a constant a splat may expand to.
const maxSplatBytes = 64 << 20

// denseElem is one element of a dense<...> list as written: a number, true/false, or a complex pair.
type denseElem struct {
	text   string // a number's spelling, "true" or "false"
	imag   string // the imaginary part of a complex (re, im); "" otherwise
	off    int
	isCplx bool
}

// dense reads dense<...> : type after "dense" and decodes it into a literal of the type.
func (p *parser) dense(start int) *DenseAttr {
	s := &p.scan
	s.want('<', "after dense")
	var hex []byte
	var elems []denseElem
	splat := false
	hexAt := s.off
	switch c := s.peek(); {
	case c == '"':
		hexAt = s.off
		hex = s.rawBytes()
	case c == '>':
	case c == '[':
		p.denseList(&elems)
	default:
		splat = true
		elems = append(elems, p.denseScalar())
	}
	s.want('>', "closing dense<")
	if !s.got(':') {
		s.failAt(start, "dense<...> without a type")
	}
	t, _ := p.typ()
	d := &DenseAttr{Type: t}
	if !t.IsArray() || t.Elem == dtype.Invalid {
		s.failAt(start, "dense<...> of type %s", typeString(t))
	}
	for _, dim := range t.Dims {
		if dim < 0 {
			s.failAt(start, "dense<...> of a dynamic type")
		}
	}
	n := t.NumElements()
	// A splat or a one-element hex blob stands for any number of elements, all of which the literal
	// holds: beyond maxSplatBytes (and beyond what the text itself spells out) it is refused.
	if size := n * int64(t.Elem.ByteSize()); n < 0 || n > 1<<40 || size > maxSplatBytes && size > 8*int64(len(s.src)) {
		s.failAt(start, "dense<...> of %d elements is larger than Octet holds in one constant (%d MiB)", n, maxSplatBytes>>20)
	}
	if hex != nil {
		blob, ok := decodeHex(hex)
		if !ok {
			s.failAt(hexAt, "dense<%q>: not a hex blob", truncate(string(hex)))
		}
		lit, err := literalFromBytes(blob, t)
		if err != nil {
			s.failAt(hexAt, "dense<...>: %v", err)
		}
		d.Literal = lit
		return d
	}
	if !splat && int64(len(elems)) != n && !(len(elems) == 1 && n != 1) {
		s.failAt(start, "dense<...> has %d elements; %s has %d", len(elems), typeString(t), n)
	}
	a := tensor.New(t.Elem, t.Dims)
	if n > 0 {
		if len(elems) == 1 {
			if err := setElem(a, 0, elems[0]); err != nil {
				s.failAt(elems[0].off, "%v", err)
			}
			es := t.Elem.ByteSize()
			for i := int64(1); i < n; i++ {
				copy(a.Data[i*int64(es):], a.Data[:es])
			}
		} else {
			for i, e := range elems {
				if err := setElem(a, int64(i), e); err != nil {
					s.failAt(e.off, "%v", err)
				}
			}
		}
	}
	d.Literal = hlo.ArrayLiteral(a)
	return d
}

func truncate(s string) string {
	if len(s) > 20 {
		return s[:20] + "..."
	}
	return s
}

// denseList reads a nested list of elements, flattening it.
func (p *parser) denseList(out *[]denseElem) {
	s := &p.scan
	s.enter()
	defer s.leave()
	s.want('[', "opening a list")
	for !s.got(']') {
		if s.peek() == '[' {
			p.denseList(out)
		} else {
			*out = append(*out, p.denseScalar())
		}
		if !s.got(',') {
			s.want(']', "closing a list")
			return
		}
	}
}

// denseScalar reads one element: a number, true, false, inf, nan, or (re, im).
func (p *parser) denseScalar() denseElem {
	s := &p.scan
	at := s.off
	if s.got('(') {
		re := p.denseScalar()
		s.want(',', "between a complex's parts")
		im := p.denseScalar()
		s.want(')', "closing a complex")
		return denseElem{text: re.text, imag: im.text, off: at, isCplx: true}
	}
	c := s.peek()
	if isIdentStart(c) {
		w := s.ident()
		switch w {
		case "true", "false", "inf", "nan":
			return denseElem{text: w, off: at}
		}
		s.failAt(at, "unexpected %q in dense<...>", w)
	}
	if c == '-' && s.peekAt(1) == 'i' {
		s.off++
		if s.ident() == "inf" {
			return denseElem{text: "-inf", off: at}
		}
		s.failAt(at, "bad element in dense<...>")
	}
	text, _ := s.number()
	return denseElem{text: text, off: at}
}

// setElem stores element i of a from its spelling.
func setElem(a *tensor.Tensor, i int64, e denseElem) error {
	t := a.Type
	if t.IsComplex() {
		if !e.isCplx {
			e.imag = "0"
		}
		es := int64(t.ByteSize())
		p := a.Data[i*es : (i+1)*es]
		for k, part := range []string{e.text, e.imag} {
			if t == dtype.C64 {
				b, err := floatBits(dtype.F32, part)
				if err != nil {
					return err
				}
				binary.LittleEndian.PutUint32(p[4*k:], uint32(b))
			} else {
				b, err := floatBits(dtype.F64, part)
				if err != nil {
					return err
				}
				binary.LittleEndian.PutUint64(p[8*k:], b)
			}
		}
		return nil
	}
	if e.isCplx {
		return fmt.Errorf("complex element (%s, %s) in a tensor of %s", e.text, e.imag, mlirElemName(t))
	}
	switch {
	case t == dtype.PRED:
		switch e.text {
		case "true", "1":
			a.SetBitsAt(i, 1)
		case "false", "0":
			a.SetBitsAt(i, 0)
		default:
			return fmt.Errorf("%s is not a boolean", e.text)
		}
	case t.IsInteger():
		switch e.text {
		case "true":
			a.SetBitsAt(i, 1)
			return nil
		case "false":
			a.SetBitsAt(i, 0)
			return nil
		}
		v, err := strconv.ParseInt(e.text, 0, 64)
		if err != nil {
			u, uerr := strconv.ParseUint(e.text, 0, 64)
			if uerr != nil {
				return fmt.Errorf("%s is not an integer of %s", e.text, mlirElemName(t))
			}
			v = int64(u)
		}
		a.SetBitsAt(i, uint64(v))
	case t.IsFloat():
		b, err := floatBits(t, e.text)
		if err != nil {
			return err
		}
		a.SetBitsAt(i, b)
	default:
		return fmt.Errorf("no dense elements of %s", t)
	}
	return nil
}

// floatBits encodes a float element of type t: a decimal (rounded to t), inf or nan, or a hex bit
// pattern.
func floatBits(t dtype.Type, text string) (uint64, error) {
	if len(text) > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X') {
		b, err := strconv.ParseUint(text[2:], 16, 64)
		if err != nil {
			return 0, fmt.Errorf("bad bit pattern %s", text)
		}
		if w := t.BitWidth(); w < 64 && b>>w != 0 {
			return 0, fmt.Errorf("bit pattern %s is wider than %s", text, mlirElemName(t))
		}
		return b, nil
	}
	var v float64
	switch text {
	case "inf":
		v = math.Inf(1)
	case "-inf":
		v = math.Inf(-1)
	case "nan":
		v = math.NaN()
	case "true":
		v = 1
	case "false":
		v = 0
	default:
		var err error
		v, err = strconv.ParseFloat(text, 64)
		if err != nil && !isRangeErr(err) {
			return 0, fmt.Errorf("%s is not a number", text)
		}
	}
	if t == dtype.F64 {
		return math.Float64bits(v), nil
	}
	return hlo.EncodeFloat(t, v), nil
}

// hexValue maps a hex digit to its value and every other byte to 0xff.
var hexValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c-'a') + 10
		t[c-'a'+'A'] = byte(c-'a') + 10
	}
	return t
}()

// decodeHex decodes "0x..." into bytes.
func decodeHex[S string | []byte](s S) ([]byte, bool) {
	if len(s) < 2 || s[0] != '0' || s[1] != 'x' && s[1] != 'X' || len(s)%2 != 0 {
		return nil, false
	}
	out := make([]byte, (len(s)-2)/2)
	bad := byte(0)
	for i := range out {
		hi, lo := hexValue[s[2+2*i]], hexValue[s[3+2*i]]
		bad |= hi | lo
		out[i] = hi<<4 | lo
	}
	return out, bad&0xf0 == 0
}

// literalFromBytes makes a literal of type t from the raw little-endian bytes of a hex dense: one element
// per Type.ByteSize() bytes, or one element repeated (a splat); i1 also bit-packed.
func literalFromBytes(blob []byte, t hlo.Shape) (*hlo.Literal, error) {
	n := t.NumElements()
	es := int64(t.Elem.ByteSize())
	a := tensor.New(t.Elem, t.Dims)
	switch {
	case int64(len(blob)) == n*es:
		copy(a.Data, blob)
	case int64(len(blob)) == es:
		for i := int64(0); i < n; i++ {
			copy(a.Data[i*es:], blob)
		}
	case t.Elem == dtype.PRED && int64(len(blob)) == (n+7)/8:
		for i := int64(0); i < n; i++ {
			a.Data[i] = blob[i/8] >> (i % 8) & 1
		}
		return hlo.ArrayLiteral(a), nil
	default:
		return nil, fmt.Errorf("%d bytes for %d elements of %s", len(blob), n, mlirElemName(t.Elem))
	}
	if w := t.Elem.BitWidth(); w < 8 || t.Elem == dtype.PRED {
		for i, b := range a.Data {
			if t.Elem == dtype.PRED {
				if b != 0 {
					a.Data[i] = 1
				}
			} else {
				a.Data[i] = b & (1<<w - 1)
			}
		}
	}
	return hlo.ArrayLiteral(a), nil
}

// literalFromBlob decodes a resource blob: a 4-byte alignment header, then the elements.
func literalFromBlob(blob []byte, t hlo.Shape) (*hlo.Literal, error) {
	if len(blob) < 4 {
		return nil, fmt.Errorf("blob of %d bytes has no alignment header", len(blob))
	}
	return literalFromBytes(blob[4:], t)
}

package stablehlo

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

// maxSplatBytes bounds the size of a constant a splat may expand to (unless the file is large enough to
// spell out one of an eighth its size), and, with 8 bytes for each byte of the file, that of all the
// dense<...> constants of a file.
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
	var listShape []int64 // the shape a nested list spells out; nil for a hex blob, a splat or dense<>
	splat := false
	hexAt := s.off
	switch c := s.peek(); {
	case c == '"':
		hexAt = s.off
		hex = s.rawBytes()
	case c == '>':
	case c == '[':
		listShape = p.denseList(&elems)
	default:
		splat = true
		elems = append(elems, p.denseScalar())
	}
	s.want('>', "closing dense<")
	if !s.got(':') {
		s.failAt(start, "dense<...> without a type")
	}
	p.elemName = ""
	t, _ := p.typ()
	elemName := p.elemName
	d := &DenseAttr{Type: t}
	n := p.denseSize(start, "dense<...>", t)
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
	// A nested list spells out the type's shape exactly; only a bare scalar stands for every element.
	if listShape != nil && !slices.Equal(listShape, t.Dims) {
		s.failAt(start, "dense<...> literal of shape %s does not match %s", shapeText(listShape), typeString(t))
	}
	if !splat && int64(len(elems)) != n && !(len(elems) == 1 && n != 1) {
		s.failAt(start, "dense<...> has %d elements; %s has %d", len(elems), typeString(t), n)
	}
	a := tensor.New(t.Elem, t.Dims)
	if n > 0 {
		if len(elems) == 1 {
			if err := setElem(a, 0, elems[0], elemName); err != nil {
				s.failAt(elems[0].off, "%v", err)
			}
			es := t.Elem.ByteSize()
			for i := int64(1); i < n; i++ {
				copy(a.Data[i*int64(es):], a.Data[:es])
			}
		} else {
			for i, e := range elems {
				if err := setElem(a, int64(i), e, elemName); err != nil {
					s.failAt(e.off, "%v", err)
				}
			}
		}
	}
	d.Literal = hlo.ArrayLiteral(a)
	return d
}

// denseSize checks the type t of a dense<...> (what, at offset at): an array of static shape, of a size
// Octet holds in one constant and within what is left for the constants of the file, whose bytes it
// counts; it returns the number of elements. A splat, or a blob of one element, stands for any number of
// elements, all of which the literal holds: beyond maxSplatBytes (and beyond what the text itself spells
// out) it is refused, and so are the constants of a file together past maxSplatBytes and 8 bytes for each
// byte of the file (a few hundred splats of 64 MiB each would take more memory than the machine has).
// The count is taken without overflow: tensor<4294967296x4294967296xf32> has 2^64 elements, not 0.
func (p *parser) denseSize(at int, what string, t hlo.Shape) int64 {
	s := &p.scan
	if !t.IsArray() || t.Elem == dtype.Invalid {
		s.failAt(at, "%s of type %s", what, typeString(t))
	}
	for _, dim := range t.Dims {
		if dim < 0 {
			s.failAt(at, "%s of a dynamic type", what)
		}
	}
	n, ok := denseCount(t.Dims)
	if !ok {
		s.failAt(at, "%s of type %s has more elements than Octet holds in one constant (%d MiB)", what, typeString(t), maxSplatBytes>>20)
	}
	size := n * int64(t.Elem.ByteSize())
	if size > maxSplatBytes && size > 8*int64(len(s.src)) {
		s.failAt(at, "%s of %d elements is larger than Octet holds in one constant (%d MiB)", what, n, maxSplatBytes>>20)
	}
	if limit := maxSplatBytes + 8*int64(len(s.src)); size > limit-p.denseBytes {
		s.failAt(at, "%s of %d bytes: the constants of the file would take more than %d bytes, %d MiB and 8 for each byte of the file",
			what, size, limit, maxSplatBytes>>20)
	}
	p.denseBytes += size
	return n
}

// maxDenseElements bounds the elements of a dense<...> constant: far more than maxSplatBytes holds, few
// enough that their byte count fits an int64.
const maxDenseElements = 1 << 40

// denseCount returns the number of elements of an array of dims, and false where it is more than
// maxDenseElements (however far: the product is not formed where it would overflow int64). An array with
// a dimension of 0 has none, whatever the others.
func denseCount(dims []int64) (int64, bool) {
	if slices.Contains(dims, 0) {
		return 0, true
	}
	n := int64(1)
	for _, d := range dims {
		if d < 0 || d > maxDenseElements/n {
			return 0, false
		}
		n *= d
	}
	return n, true
}

func truncate(s string) string {
	if len(s) > 20 {
		return s[:20] + "..."
	}
	return s
}

// denseList reads a nested list of elements, flattening it, and returns its shape: the number of its
// elements, then the shape they share. The elements of a list are all scalars or all lists of one shape.
func (p *parser) denseList(out *[]denseElem) []int64 {
	s := &p.scan
	s.enter()
	defer s.leave()
	s.want('[', "opening a list")
	var inner []int64 // the shape of the first element: nil for a scalar
	n := int64(0)
	for !s.got(']') {
		at := s.off
		var dims []int64
		if s.peek() == '[' {
			dims = p.denseList(out)
		} else {
			*out = append(*out, p.denseScalar())
		}
		if n == 0 {
			inner = dims
		} else if !slices.Equal(dims, inner) { // a list's shape is never empty, so a scalar differs from it
			s.failAt(at, "dense<...>: the elements of a list differ in shape: %s first, then %s", shapeText(inner), shapeText(dims))
		}
		n++
		if !s.got(',') {
			s.want(']', "closing a list")
			break
		}
	}
	return append([]int64{n}, inner...)
}

// shapeText writes the shape of a dense<...> list, [2, 3]; "a scalar" for none.
func shapeText(dims []int64) string {
	if dims == nil {
		return "a scalar"
	}
	parts := make([]string, len(dims))
	for i, d := range dims {
		parts[i] = strconv.FormatInt(d, 10)
	}
	return "[" + strings.Join(parts, ", ") + "]"
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

// setElem stores element i of a from its spelling; elemName is the element type as written (si8 and
// i8 are both held as s8, but their ranges differ), "" when unknown.
func setElem(a *tensor.Tensor, i int64, e denseElem, elemName string) error {
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
	case t == dtype.PRED || t.IsInteger():
		switch e.text {
		case "true", "false":
			if t != dtype.PRED {
				if elemName == "" {
					elemName = mlirElemName(t)
				}
				return fmt.Errorf("%s in a tensor of %s; true and false are elements of i1", e.text, elemName)
			}
			if e.text == "true" {
				a.SetBitsAt(i, 1)
			} else {
				a.SetBitsAt(i, 0)
			}
			return nil
		}
		b, err := intBits(t, elemName, e.text)
		if err != nil {
			return err
		}
		a.SetBitsAt(i, b)
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

// intBits encodes an integer element of type t, written name ("" when unknown), from its spelling, a
// decimal or 0x hexadecimal number with an optional sign, and refuses one out of range as MLIR does: a
// signless iN holds -2^(N-1) to 2^N-1 (a value past the signed range is its bit pattern, 255 is -1 in
// i8), a signed siN or index -2^(N-1) to 2^(N-1)-1, an unsigned uiN 0 to 2^N-1 and no negative value at
// all; i1 is signless of one bit.
func intBits(t dtype.Type, name, text string) (uint64, error) {
	signed := strings.HasPrefix(name, "si") || name == "index"
	if name == "" {
		name = mlirElemName(t)
	}
	digits, neg := text, false
	if digits != "" && (digits[0] == '-' || digits[0] == '+') {
		neg = digits[0] == '-'
		digits = digits[1:]
	}
	if neg && t.IsUnsigned() {
		return 0, fmt.Errorf("negative value %s in a tensor of %s, whose elements are unsigned", text, name)
	}
	base := 10
	if len(digits) > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X') {
		base, digits = 16, digits[2:]
	}
	if digits == "" || digits[0] == '+' || digits[0] == '-' {
		return 0, fmt.Errorf("%s is not an integer of %s", text, name)
	}
	mag, err := strconv.ParseUint(digits, base, 64)
	if err != nil {
		if isRangeErr(err) {
			return 0, fmt.Errorf("integer constant %s out of range for %s", text, name)
		}
		return 0, fmt.Errorf("%s is not an integer of %s", text, name)
	}
	w := uint(t.BitWidth())
	if t == dtype.PRED {
		w = 1
	}
	limit := uint64(math.MaxUint64) // the largest magnitude of a non-negative value
	if w < 64 {
		limit = 1<<w - 1
	}
	if signed && !t.IsUnsigned() {
		limit >>= 1
	}
	if neg {
		limit = 1 << (w - 1) // -2^(N-1) is the most negative value of any signed or signless type
	}
	if mag > limit {
		return 0, fmt.Errorf("integer constant %s out of range for %s", text, name)
	}
	if neg {
		return -mag, nil
	}
	return mag, nil
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
		v, err = dtype.ParseFloat(text, 64) // strconv.ParseFloat misreads some long spellings
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

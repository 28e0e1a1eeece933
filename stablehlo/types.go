package stablehlo

import (
	"slices"
	"strconv"
	"strings"

	"octet/dtype"
	"octet/hlo"
)

// Quant describes a quantized element type, !quant.uniform<storage<min:max>:expressed:axis, scales>:
// a stored integer q stands for (q - zero_point) * scale, per tensor or per slice along Axis. The values
// of such a tensor are held in the storage type.
type Quant struct {
	Storage   dtype.Type
	Expressed dtype.Type
	Min, Max  int64 // the storage range
	Axis      int   // the quantized dimension; -1 for one scale for the whole tensor
	Scales    []float64
	Zeros     []int64
}

// elemTypes maps MLIR's element type names to Octet's.
var elemTypes = map[string]dtype.Type{
	"i1": dtype.PRED, "i2": dtype.S2, "i4": dtype.S4, "i8": dtype.S8, "i16": dtype.S16, "i32": dtype.S32,
	"i64": dtype.S64, "si2": dtype.S2, "si4": dtype.S4, "si8": dtype.S8, "si16": dtype.S16, "si32": dtype.S32,
	"si64": dtype.S64, "ui1": dtype.U1, "ui2": dtype.U2, "ui4": dtype.U4, "ui8": dtype.U8, "ui16": dtype.U16,
	"ui32": dtype.U32, "ui64": dtype.U64, "index": dtype.S64,
	"f16": dtype.F16, "bf16": dtype.BF16, "f32": dtype.F32, "f64": dtype.F64,
	"f8E5M2": dtype.F8E5M2, "f8E4M3": dtype.F8E4M3, "f8E4M3FN": dtype.F8E4M3FN,
	"f8E4M3B11FNUZ": dtype.F8E4M3B11FNUZ, "f8E5M2FNUZ": dtype.F8E5M2FNUZ, "f8E4M3FNUZ": dtype.F8E4M3FNUZ,
	"f8E3M4": dtype.F8E3M4, "f8E8M0FNU": dtype.F8E8M0FNU, "f6E2M3FN": dtype.F6E2M3FN,
	"f6E3M2FN": dtype.F6E3M2FN, "f4E2M1FN": dtype.F4E2M1FN,
}

// mlirElemName is the MLIR name of an element type ("f8E4M3FN", "ui8", "i1").
func mlirElemName(t dtype.Type) string {
	switch {
	case t == dtype.PRED:
		return "i1"
	case t == dtype.C64:
		return "complex<f32>"
	case t == dtype.C128:
		return "complex<f64>"
	case t.IsSigned():
		return "i" + t.String()[1:]
	case t.IsUnsigned():
		return "ui" + t.String()[1:]
	}
	for name, u := range elemTypes {
		if u == t && strings.ToLower(name) == t.String() {
			return name // the float types: "f8E4M3FN" for f8e4m3fn
		}
	}
	return t.String()
}

// typ reads a type: tensor<...>, tuple<...>, !stablehlo.token, a scalar element type (a rank-0 tensor),
// complex<...>, !quant.uniform<...> or a !alias. q is the quantization of a quantized tensor.
func (p *parser) typ() (shape hlo.Shape, q *Quant) {
	s := &p.scan
	s.enter()
	defer s.leave()
	start := s.off
	if s.peek() == '!' {
		s.off++
		name := s.suffixID()
		switch {
		case name == "stablehlo.token" || name == "mhlo.token":
			return hlo.Shape{Kind: hlo.TokenShape}, nil
		case name == "quant.uniform":
			q := p.quant()
			return hlo.Scalar(q.Storage), q
		}
		if t, ok := p.typeAliases[name]; ok {
			p.useAlias(start, "type", "!"+name, p.typeAliasNodes[name]) // each use copies the type
			return t.Clone(), p.typeAliasQuant[name]
		}
		s.failAt(start, "unknown type !%s", name)
	}
	name := s.ident()
	switch name {
	case "tensor":
		return p.tensorType()
	case "tuple":
		s.want('<', "after tuple")
		var elems []hlo.Shape
		if !s.got('>') {
			for {
				t, _ := p.typ()
				elems = append(elems, t)
				if !s.got(',') {
					break
				}
			}
			s.want('>', "closing tuple<")
		}
		return hlo.Tuple(elems...), nil
	case "complex":
		return hlo.Scalar(p.complexElem(start)), nil
	case "none":
		return hlo.Tuple(), nil
	}
	if t, ok := elemTypes[name]; ok {
		p.elemName = name
		return hlo.Scalar(t), nil
	}
	if name == "" {
		s.failAt(start, "expected a type, found %s", s.describe())
	}
	s.failAt(start, "unsupported type %s", name)
	return
}

// shapeNodes counts the shapes of t: itself and, for a tuple, those of its elements.
func shapeNodes(t hlo.Shape) int64 {
	n := int64(1)
	for _, e := range t.Tuple {
		n += shapeNodes(e)
	}
	return n
}

func (p *parser) complexElem(start int) dtype.Type {
	s := &p.scan
	s.want('<', "after complex")
	part := s.ident()
	s.want('>', "closing complex<")
	switch part {
	case "f32":
		return dtype.C64
	case "f64":
		return dtype.C128
	}
	s.failAt(start, "unsupported type complex<%s>", part)
	return dtype.Invalid
}

// tensorType reads the <...> of tensor<2x?x3xf32, #encoding>, after "tensor".
func (p *parser) tensorType() (hlo.Shape, *Quant) {
	s := &p.scan
	s.want('<', "after tensor")
	s.skip()
	var dims []int64
	for {
		if s.off < len(s.src) && s.src[s.off] == '?' {
			s.off++
			dims = append(dims, hlo.UnboundedDim)
		} else if s.off < len(s.src) && isDigit(s.src[s.off]) {
			start := s.off
			var v int64
			for s.off < len(s.src) && isDigit(s.src[s.off]) {
				v = v*10 + int64(s.src[s.off]-'0')
				if v > 1<<40 {
					s.failAt(start, "dimension too large")
				}
				s.off++
			}
			dims = append(dims, v)
		} else {
			break
		}
		if s.off < len(s.src) && s.src[s.off] == 'x' {
			s.off++
			continue
		}
		s.fail("expected 'x' after a dimension")
	}
	start := s.off
	var elem dtype.Type
	var q *Quant
	if s.peek() == '!' {
		t, qq := p.typ()
		if !t.IsScalar() {
			s.failAt(start, "a tensor's elements must be scalars")
		}
		elem, q = t.Elem, qq
	} else {
		name := s.ident()
		switch {
		case name == "complex":
			elem = p.complexElem(start)
		case elemTypes[name] != dtype.Invalid:
			elem = elemTypes[name]
			p.elemName = name
		default:
			s.failAt(start, "unsupported element type %q", name)
		}
	}
	if s.got(',') { // an encoding: bounds of a dynamic dimension, or a sparsity description
		s.skipBalanced('>')
	} else {
		s.want('>', "closing tensor<")
	}
	sh := hlo.Array(elem, dims...)
	for _, d := range dims {
		if d == hlo.UnboundedDim {
			sh.Dynamic = make([]bool, len(dims))
			for i, d := range dims {
				sh.Dynamic[i] = d == hlo.UnboundedDim
			}
			break
		}
	}
	return sh, q
}

// quant reads the <...> of !quant.uniform<i8:f32, 0.5:-3>, <i8<-127:127>:f32:1, {0.1:2, 0.2}> and the
// like, after the name.
func (p *parser) quant() *Quant {
	s := &p.scan
	s.want('<', "after quant.uniform")
	start := s.off
	storage := s.ident()
	q := &Quant{Storage: elemTypes[storage], Axis: -1}
	t := q.Storage
	if !t.IsInteger() || t == dtype.PRED {
		s.failAt(start, "unsupported quantized storage type %q", storage)
	}
	if t.IsSigned() {
		q.Min, q.Max = -1<<(t.BitWidth()-1), 1<<(t.BitWidth()-1)-1
	} else {
		q.Min, q.Max = 0, 1<<t.BitWidth()-1
	}
	if s.got('<') {
		q.Min = s.int()
		s.want(':', "in a storage range")
		q.Max = s.int()
		s.want('>', "closing a storage range")
	}
	s.want(':', "after the storage type")
	at := s.off
	q.Expressed = elemTypes[s.ident()]
	if !q.Expressed.IsFloat() {
		s.failAt(at, "unsupported quantized expressed type")
	}
	if s.got(':') {
		q.Axis = int(s.int())
	}
	s.want(',', "before the scales")
	param := func() {
		text, _ := s.number()
		v, err := dtype.ParseFloat(text, 64)
		if err != nil && !isRangeErr(err) {
			s.fail("bad scale %s", text)
		}
		var zp int64
		if s.got(':') {
			zp = s.int()
		}
		q.Scales = append(q.Scales, v)
		q.Zeros = append(q.Zeros, zp)
	}
	if s.got('{') {
		for !s.got('}') {
			param()
			if !s.got(',') {
				s.want('}', "closing the scales")
				break
			}
		}
	} else {
		param()
	}
	s.want('>', "closing quant.uniform<")
	if q.Axis < 0 && len(q.Scales) != 1 || len(q.Scales) == 0 {
		s.failAt(start, "%d scales for a quantization %s", len(q.Scales), map[bool]string{true: "per tensor", false: "per axis"}[q.Axis < 0])
	}
	return q
}

// typeString writes a type as MLIR does: tensor<2x3xf32>, tuple<...>, !stablehlo.token.
func typeString(t hlo.Shape) string {
	switch t.Kind {
	case hlo.TupleShape:
		parts := make([]string, len(t.Tuple))
		for i, e := range t.Tuple {
			parts[i] = typeString(e)
		}
		return "tuple<" + strings.Join(parts, ", ") + ">"
	case hlo.TokenShape:
		return "!stablehlo.token"
	case hlo.ArrayShape:
		var b strings.Builder
		writeTensorDims(&b, t.Dims)
		b.WriteString(mlirElemName(t.Elem) + ">")
		return b.String()
	}
	return t.String()
}

// writeTensorDims writes "tensor<" and the dimensions of a tensor type, each followed by x ("?x" for a
// dynamic one).
func writeTensorDims(b *strings.Builder, dims []int64) {
	b.WriteString("tensor<")
	for _, d := range dims {
		if d == hlo.UnboundedDim {
			b.WriteString("?x")
		} else {
			b.WriteString(strconv.FormatInt(d, 10) + "x")
		}
	}
}

// sameType reports whether two types read from the text are one type, as MLIR compares them: the same
// kind, element type and dimensions (a dynamic one matching only a dynamic one), tuple elements alike,
// and the same quantization or none on both.
func sameType(a hlo.Shape, aq *Quant, b hlo.Shape, bq *Quant) bool {
	return a.Compatible(b) && sameQuant(aq, bq)
}

// sameQuant reports whether two quantizations are the same, field by field; nil is the absence of one.
func sameQuant(a, b *Quant) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Storage == b.Storage && a.Expressed == b.Expressed && a.Min == b.Min && a.Max == b.Max &&
		a.Axis == b.Axis && slices.Equal(a.Scales, b.Scales) && slices.Equal(a.Zeros, b.Zeros)
}

// typeStringQ writes a type as MLIR does, with its quantization when it has one:
// tensor<4x!quant.uniform<i8:f32, 0.5:-3>>.
func typeStringQ(t hlo.Shape, q *Quant) string {
	if q == nil || t.Kind != hlo.ArrayShape {
		return typeString(t)
	}
	var b strings.Builder
	writeTensorDims(&b, t.Dims)
	b.WriteString("!quant.uniform<" + mlirElemName(q.Storage))
	if q.Storage.IsSigned() && (q.Min != -1<<(q.Storage.BitWidth()-1) || q.Max != 1<<(q.Storage.BitWidth()-1)-1) ||
		q.Storage.IsUnsigned() && (q.Min != 0 || q.Max != 1<<q.Storage.BitWidth()-1) {
		b.WriteString("<" + strconv.FormatInt(q.Min, 10) + ":" + strconv.FormatInt(q.Max, 10) + ">")
	}
	b.WriteString(":" + mlirElemName(q.Expressed))
	if q.Axis >= 0 {
		b.WriteString(":" + strconv.Itoa(q.Axis))
	}
	b.WriteString(", ")
	if q.Axis >= 0 {
		b.WriteByte('{')
	}
	for i, sc := range q.Scales {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatFloat(sc, 'g', -1, 64))
		if i < len(q.Zeros) && q.Zeros[i] != 0 {
			b.WriteString(":" + strconv.FormatInt(q.Zeros[i], 10))
		}
	}
	if q.Axis >= 0 {
		b.WriteByte('}')
	}
	b.WriteString(">>")
	return b.String()
}

// typesString writes a list of types as MLIR does: (tensor<4xf32>, tensor<i32>).
func typesString(ts []hlo.Shape, qs []*Quant) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = typeStringQ(t, quantAt(qs, i))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

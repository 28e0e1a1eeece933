package stablehlo

import (
	"math"
	"strconv"
	"strings"

	"octet/dtype"
	"octet/hlo"
)

// dict reads {name = value, name, ...}; a name without a value is a unit attribute (true).
func (p *parser) dict() DictAttr {
	s := &p.scan
	s.enter()
	defer s.leave()
	s.want('{', "opening an attribute dictionary")
	var out DictAttr
	for !s.got('}') {
		var name string
		if s.peek() == '"' {
			name = s.str()
		} else {
			at := s.off
			name = s.ident()
			if name == "" {
				s.failAt(at, "expected an attribute name, found %s", s.describe())
			}
		}
		var v Attr = BoolAttr(true)
		if s.got('=') {
			v = p.attrValue()
		}
		out = append(out, NamedAttr{name, v})
		if !s.got(',') {
			s.want('}', "closing an attribute dictionary")
			break
		}
	}
	return out
}

// attrValue reads one attribute value; forms Octet does not interpret are kept as RawAttr.
func (p *parser) attrValue() Attr {
	s := &p.scan
	s.enter()
	defer s.leave()
	p.attrNodes++
	start := s.off
	switch c := s.peek(); {
	case c == '"':
		return StringAttr(s.str())
	case c == '@':
		s.off++
		name := s.suffixID()
		for s.peek() == ':' && s.peekAt(1) == ':' && s.peekAt(2) == '@' { // nested symbol reference
			s.off += 3
			name += "::@" + s.suffixID()
		}
		return SymbolAttr(name)
	case c == '[':
		s.off++
		var l ListAttr
		for !s.got(']') {
			e := p.attrValue()
			if iv, ok := e.(IntAttr); ok && s.peek() == ':' && (isDigit(s.peekAt(1)) || s.peekAt(1) == '-') {
				// start:limit[:stride] of slice's pretty form
				s.off++
				sl := ListAttr{iv, IntAttr{V: s.int()}, IntAttr{V: 1}}
				if s.peek() == ':' {
					s.off++
					sl[2] = IntAttr{V: s.int()}
				}
				e = sl
			}
			l = append(l, e)
			if !s.got(',') {
				s.want(']', "closing a list")
				break
			}
		}
		if l == nil {
			l = ListAttr{}
		}
		return l
	case c == '{':
		return p.dict()
	case c == '#':
		return p.hashAttr()
	case c == '-' || c == '+' || isDigit(c):
		text, isFloat := s.number()
		var a Attr
		if isFloat {
			v, err := dtype.ParseFloat(text, 64)
			if err != nil && !isRangeErr(err) {
				s.failAt(start, "bad number %s", text)
			}
			a = FloatAttr{V: v}
		} else {
			v, err := strconv.ParseInt(text, 0, 64)
			if err != nil {
				u, uerr := strconv.ParseUint(text, 0, 64)
				if uerr != nil {
					s.failAt(start, "integer %s out of range", text)
				}
				v = int64(u)
			}
			a = IntAttr{V: v}
		}
		if s.peek() == ':' && s.peekAt(1) != ':' {
			save := s.off
			s.off++
			if t := s.ident(); isScalarTypeName(t) {
				if f, ok := a.(FloatAttr); ok {
					f.Type = t
					return f
				}
				i := a.(IntAttr)
				if strings.HasPrefix(t, "f") || t == "bf16" {
					return FloatAttr{V: float64(i.V), Type: t}
				}
				i.Type = t
				return i
			}
			s.off = save
		}
		return a
	case c == '!':
		t, _ := p.typ()
		return TypeAttr(t)
	case c == '(' && isDigit(s.peekAt(1)):
		// A sub-axis of a mesh axis, (pre-size)size, as in #stablehlo.axis_ref<name = "x", sub_axis_info = (1)2>.
		s.off++
		var a SubAxisAttr
		a.PreSize = s.int()
		s.want(')', "closing a sub-axis pre-size")
		a.Size = s.int()
		return a
	case c == '(':
		// A function type: (a, b) -> c, or -> (c, d).
		var ft FuncTypeAttr
		s.off++
		if !s.got(')') {
			ft.In, ft.inQuant = p.typeListQuant()
			s.want(')', "closing the parameter types")
		}
		if !s.gotStr("->") {
			s.fail("expected '->' in a function type")
		}
		if s.got('(') {
			if !s.got(')') {
				ft.Out, ft.outQuant = p.typeListQuant()
				s.want(')', "closing the result types")
			}
		} else {
			t, q := p.typ()
			ft.Out = []hlo.Shape{t}
			if q != nil {
				ft.outQuant = []*Quant{q}
			}
		}
		return ft
	case c == '<':
		// The pretty form of a struct attribute without its name: <field = value, ...>.
		s.off++
		if st, ok := p.structFields(StructAttr{}); ok {
			return st
		}
		s.off = start + 1
		s.skipBalanced('>')
		return RawAttr(s.src[start:s.off])
	}
	word := s.ident()
	switch word {
	case "true":
		return BoolAttr(true)
	case "false":
		return BoolAttr(false)
	case "unit":
		return BoolAttr(true)
	case "dense":
		return p.dense(start)
	case "dense_resource":
		s.want('<', "after dense_resource")
		at := s.off
		name := s.suffixID()
		s.want('>', "closing dense_resource<")
		d := DenseAttr{Literal: &hlo.Literal{}}
		if s.got(':') {
			d.Type, _ = p.typ()
		} else {
			s.failAt(at, "dense_resource<%s> without a type", name)
		}
		p.resources = append(p.resources, pendingResource{name: name, attr: &d, off: at})
		return &d
	case "array":
		return p.array(start)
	case "tensor", "tuple", "complex", "none":
		s.off = start
		t, _ := p.typ()
		return TypeAttr(t)
	case "":
		s.failAt(start, "expected an attribute value, found %s", s.describe())
	}
	if _, ok := elemTypes[word]; ok {
		return TypeAttr(hlo.Scalar(elemTypes[word]))
	}
	if s.off < len(s.src) && s.src[s.off] == '<' { // affine_map<...>, strided<...>, and the like
		s.off++
		s.skipBalanced('>')
		return RawAttr(s.src[start:s.off])
	}
	return WordAttr(word)
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func isScalarTypeName(t string) bool {
	_, ok := elemTypes[t]
	return ok
}

// hashAttr reads #dialect<kind WORD>, #dialect.name<fields>, or an alias #name.
func (p *parser) hashAttr() Attr {
	s := &p.scan
	start := s.off
	s.off++
	name := s.suffixID()
	if s.off >= len(s.src) || s.src[s.off] != '<' {
		if v, ok := p.attrAliases[name]; ok {
			n := p.attrAliasNodes[name]
			p.attrNodes += n
			p.useAlias(start, "attribute", "#"+name, n) // each use shares the value; what reads it reads all of it
			return v
		}
		return RawAttr(s.src[start:s.off]) // an attribute alias
	}
	s.off++
	bodyStart := s.off
	if name == "sdy" || strings.HasPrefix(name, "sdy.") {
		if a := p.sdyAttr(name); a != nil {
			return a
		}
		s.off = bodyStart
	}
	if !strings.Contains(name, ".") {
		// #stablehlo<comparison_direction LT>
		kind := s.ident()
		if kind != "" && s.peek() != '=' && isIdentStart(s.peek()) {
			word := s.ident()
			if s.got('>') {
				return EnumAttr{Kind: kind, Word: word}
			}
		}
		s.off = bodyStart
		s.skipBalanced('>')
		return RawAttr(s.src[start:s.off])
	}
	if s.peekIdent() == "raw" { // #mhlo.conv<raw input_batch_dimension = 0, ...>
		s.ident()
	}
	st, ok := p.structFields(StructAttr{Name: name})
	if !ok {
		st.Fields = nil
		s.off = bodyStart
		s.skipBalanced('>')
		st.Raw = string(s.src[bodyStart : s.off-1])
	}
	return st
}

// structFields reads "field = value, ...>" after a struct attribute's '<'; ok is false (and the offset
// where it was) when the body has another form.
func (p *parser) structFields(st StructAttr) (StructAttr, bool) {
	s := &p.scan
	save := s.off
	for !s.got('>') {
		field := s.ident()
		if field == "" || !s.got('=') {
			s.off = save
			return st, false
		}
		st.Fields = append(st.Fields, NamedAttr{field, p.attrValue()})
		if !s.got(',') {
			if !s.got('>') {
				s.off = save
				return st, false
			}
			return st, true
		}
	}
	return st, true
}

// array reads array<i64: 1, 2, 3> after "array".
func (p *parser) array(start int) Attr {
	s := &p.scan
	s.want('<', "after array")
	elem := s.ident()
	a := ArrayAttr{Elem: elem}
	if s.got(':') {
		for {
			switch s.peekIdent() {
			case "true":
				s.ident()
				a.Vals = append(a.Vals, 1)
			case "false":
				s.ident()
				a.Vals = append(a.Vals, 0)
			default:
				text, isFloat := s.number()
				if isFloat {
					// A float array is kept as its bits: Octet's attributes of this kind are integers.
					f, _ := dtype.ParseFloat(text, 64)
					a.Vals = append(a.Vals, int64(math.Float64bits(f)))
				} else {
					v, err := strconv.ParseInt(text, 0, 64)
					if err != nil {
						s.failAt(start, "integer %s out of range", text)
					}
					a.Vals = append(a.Vals, v)
				}
			}
			if !s.got(',') {
				break
			}
		}
	}
	s.want('>', "closing array<")
	if a.Vals == nil {
		a.Vals = []int64{}
	}
	return a
}

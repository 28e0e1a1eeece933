package interp

import (
	"octet/hlo"
	"octet/tensor"
)

// literalValue returns the value of a constant instruction: its literal, checked against its shape. An
// elided literal ("{...}") cannot be evaluated.
func literalValue(in *hlo.Instruction) (Value, error) {
	if in.Literal == nil {
		return Value{}, errorf(in, "constant without a literal")
	}
	v, ok := literalToValue(in.Literal, in.Shape)
	if !ok {
		if hasElided(in.Literal) {
			return Value{}, unsupportedf(in, "constant whose values were elided from the text ({...})")
		}
		return Value{}, errorf(in, "constant: its literal does not match its shape %s", in.Shape.String())
	}
	return v, nil
}

// literalToValue converts l, of shape s, to a value of its own; false when they disagree or values are unknown.
func literalToValue(l *hlo.Literal, s hlo.Shape) (Value, bool) {
	if l == nil || l.Elided {
		return Value{}, false
	}
	switch s.Kind {
	case hlo.TupleShape:
		if len(l.Tuple) != len(s.Tuple) {
			return Value{}, false
		}
		elems := make([]Value, len(l.Tuple))
		for i, e := range l.Tuple {
			v, ok := literalToValue(e, s.Tuple[i])
			if !ok {
				return Value{}, false
			}
			elems[i] = v
		}
		return TupleValue(elems...), true
	case hlo.TokenShape:
		return TokenValue(), true
	case hlo.ArrayShape:
		a := l.Array
		if a == nil || a.Type != s.Elem || len(a.Shape) != len(s.Dims) {
			return Value{}, false
		}
		for i, d := range s.Dims {
			if a.Shape[i] != d {
				return Value{}, false
			}
		}
		// A copy: evaluation must never write into the module's constants.
		c := tensor.New(a.Type, a.Shape)
		copy(c.Data, a.Data)
		return ArrayValue(c), true
	}
	return Value{}, false
}

func hasElided(l *hlo.Literal) bool {
	if l == nil {
		return false
	}
	if l.Elided {
		return true
	}
	for _, e := range l.Tuple {
		if hasElided(e) {
			return true
		}
	}
	return false
}

func putUint64(p []byte, v uint64) {
	for i := 0; i < 8; i++ {
		p[i] = byte(v >> (8 * i))
	}
}

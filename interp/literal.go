package interp

import (
	"octet/hlo"
	"octet/tensor"
)

// literalValue returns the value of a constant instruction. An elided literal ("{...}") cannot be
// evaluated.
func literalValue(in *hlo.Instruction) (Value, error) {
	switch {
	case in.Literal == nil:
		return Value{}, errorf(in, "constant without a literal")
	case hasElided(in.Literal):
		return Value{}, unsupportedf(in, "constant whose values were elided from the text ({...})")
	case !in.Literal.Fits(in.Shape):
		return Value{}, errorf(in, "constant: its literal does not hold values of its shape %s", in.Shape.String())
	}
	return literalToValue(in.Literal, in.Shape), nil
}

// literalToValue returns the value of l, a literal of shape s without elided parts, in storage of its
// own: evaluation must never write into the module's constants.
func literalToValue(l *hlo.Literal, s hlo.Shape) Value {
	switch s.Kind {
	case hlo.ArrayShape:
		c := tensor.New(l.Array.Type, l.Array.Shape)
		copy(c.Data, l.Array.Data)
		return ArrayValue(c)
	case hlo.TupleShape:
		elems := make([]Value, len(l.Tuple))
		for i, e := range l.Tuple {
			elems[i] = literalToValue(e, s.Tuple[i])
		}
		return TupleValue(elems...)
	}
	return TokenValue()
}

func hasElided(l *hlo.Literal) bool {
	if l.Elided {
		return true
	}
	for _, e := range l.Tuple {
		if e != nil && hasElided(e) {
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

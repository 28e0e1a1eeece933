package interp

import (
	"unsafe"

	"octet/hlo"
	"octet/tensor"
)

// literalValue returns the value of a constant instruction: arrays that share the literal's storage,
// since no instruction writes into its operands and the buffers of a run recycle only the memory the run
// allocated. Run hands its caller copies of any constant's storage its result holds
// (unshareConstants). An elided literal ("{...}") cannot be evaluated.
func literalValue(in *hlo.Instruction) (Value, error) {
	switch {
	case in.Literal == nil:
		return Value{}, errorf(in, "constant without a literal")
	case hasElided(in.Literal):
		return Value{}, unsupportedf(in, "constant whose values were elided from the text ({...})")
	case !in.Literal.Fits(in.Shape):
		return Value{}, errorf(in, "constant: its literal does not hold values of its shape %s", in.Shape.String())
	}
	return literalShared(in.Literal, in.Shape), nil
}

// literalShared returns the value of l, a literal of shape s without elided parts, in l's own storage.
func literalShared(l *hlo.Literal, s hlo.Shape) Value {
	switch s.Kind {
	case hlo.ArrayShape:
		return ArrayValue(&tensor.Tensor{Type: l.Array.Type, Shape: append([]int64(nil), l.Array.Shape...), Data: l.Array.Data})
	case hlo.TupleShape:
		elems := make([]Value, len(l.Tuple))
		for i, e := range l.Tuple {
			elems[i] = literalShared(e, s.Tuple[i])
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

// unshareConstants returns v with a copy of every array that shares storage with a constant of m, so that
// what Run returns is its caller's to change.
func unshareConstants(m *hlo.Module, v Value) Value {
	var spans [][]byte
	var collect func(l *hlo.Literal)
	collect = func(l *hlo.Literal) {
		if l == nil {
			return
		}
		if l.Array != nil && len(l.Array.Data) > 0 {
			spans = append(spans, l.Array.Data)
		}
		for _, e := range l.Tuple {
			collect(e)
		}
	}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if in.Opcode == hlo.OpConstant {
				collect(in.Literal)
			}
		}
	}
	return unshare(v, spans)
}

// unshare returns v with a copy of every array that shares storage with one of spans.
func unshare(v Value, spans [][]byte) Value {
	if len(spans) == 0 {
		return v
	}
	bounds := make([][2]uintptr, len(spans))
	for i, s := range spans {
		p := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
		bounds[i] = [2]uintptr{p, p + uintptr(len(s))}
	}
	var walk func(v Value) Value
	walk = func(v Value) Value {
		switch v.Kind {
		case KindArray:
			if v.Array == nil || len(v.Array.Data) == 0 {
				return v
			}
			p := uintptr(unsafe.Pointer(unsafe.SliceData(v.Array.Data)))
			q := p + uintptr(len(v.Array.Data))
			for _, s := range bounds {
				if p < s[1] && s[0] < q {
					c := tensor.New(v.Array.Type, v.Array.Shape)
					copy(c.Data, v.Array.Data)
					return ArrayValue(c)
				}
			}
		case KindTuple:
			elems := make([]Value, len(v.Tuple))
			for i, x := range v.Tuple {
				elems[i] = walk(x)
			}
			return TupleValue(elems...)
		}
		return v
	}
	return walk(v)
}

func putUint64(p []byte, v uint64) {
	for i := 0; i < 8; i++ {
		p[i] = byte(v >> (8 * i))
	}
}

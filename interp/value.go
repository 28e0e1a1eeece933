package interp

import (
	"fmt"
	"slices"
	"strings"

	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

// Kind says what a Value holds.
type Kind uint8

const (
	KindArray Kind = iota // a dense array (Array)
	KindTuple             // a tuple of values (Tuple)
	KindToken             // a token: no data
)

// Value is the value of an HLO instruction: an array, a tuple of values or a token. Arrays keep their
// elements compactly in a tensor.Tensor (row-major; narrow types one or two bytes per element, as their
// bits); operations decode them to float32, float64 or int64 working slices as they need.
//
// Values are immutable once an instruction produced them: operations allocate new tensors and never write
// into their operands, so one tensor may be shared by several values.
type Value struct {
	Kind  Kind
	Array *tensor.Tensor // the array when Kind is KindArray
	Tuple []Value        // the elements when Kind is KindTuple
}

// ArrayValue returns the value holding t.
func ArrayValue(t *tensor.Tensor) Value { return Value{Kind: KindArray, Array: t} }

// TupleValue returns the tuple of the given values.
func TupleValue(elems ...Value) Value {
	if elems == nil {
		elems = []Value{}
	}
	return Value{Kind: KindTuple, Tuple: elems}
}

// TokenValue returns a token.
func TokenValue() Value { return Value{Kind: KindToken} }

// String describes the value's shape: "f32[2,3]", "(f32[2], s32[])", "token[]".
func (v Value) String() string {
	switch v.Kind {
	case KindArray:
		if v.Array == nil {
			return "<nil array>"
		}
		return v.Array.String()
	case KindTuple:
		parts := make([]string, len(v.Tuple))
		for i, e := range v.Tuple {
			parts[i] = e.String()
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	return "token[]"
}

// Clone returns a copy of v that shares no memory with it.
func (v Value) Clone() Value {
	switch v.Kind {
	case KindArray:
		if v.Array == nil {
			return v
		}
		return ArrayValue(v.Array.Convert(v.Array.Type, false)) // to its own type: a copy
	case KindTuple:
		elems := make([]Value, len(v.Tuple))
		for i, e := range v.Tuple {
			elems[i] = e.Clone()
		}
		return TupleValue(elems...)
	}
	return v
}

// Flatten returns the arrays of v in order, tuples flattened depth first (the order of out0, out1, ...).
func (v Value) Flatten() []*tensor.Tensor {
	switch v.Kind {
	case KindArray:
		return []*tensor.Tensor{v.Array}
	case KindTuple:
		var out []*tensor.Tensor
		for _, e := range v.Tuple {
			out = append(out, e.Flatten()...)
		}
		return out
	}
	return nil
}

// ByteSize is the number of bytes of element data v holds.
func (v Value) ByteSize() int64 {
	switch v.Kind {
	case KindArray:
		return int64(len(v.Array.Data))
	case KindTuple:
		var n int64
		for _, e := range v.Tuple {
			n += e.ByteSize()
		}
		return n
	}
	return 0
}

// Fits reports, with a reason when it does not, whether v has shape s (dimensions and element types;
// layouts do not matter).
func (v Value) Fits(s hlo.Shape) error {
	switch s.Kind {
	case hlo.ArrayShape:
		if v.Kind != KindArray {
			return fmt.Errorf("want %s, have %s", s.String(), v)
		}
		if v.Array.Type != s.Elem || !slices.Equal(v.Array.Shape, s.Dims) {
			return fmt.Errorf("want %s, have %s", s.String(), v)
		}
		return nil
	case hlo.TupleShape:
		if v.Kind != KindTuple || len(v.Tuple) != len(s.Tuple) {
			return fmt.Errorf("want %s, have %s", s.String(), v)
		}
		for i := range s.Tuple {
			if err := v.Tuple[i].Fits(s.Tuple[i]); err != nil {
				return fmt.Errorf("tuple element %d: %v", i, err)
			}
		}
		return nil
	case hlo.TokenShape:
		if v.Kind != KindToken {
			return fmt.Errorf("want token[], have %s", v)
		}
		return nil
	}
	return fmt.Errorf("cannot hold a value of shape %s", s.String())
}

// dimsString writes an array shape for messages: f32[2,3].
func dimsString(t dtype.Type, dims []int64) string {
	return hlo.Shape{Kind: hlo.ArrayShape, Elem: t, Dims: dims}.String()
}

// zeroValue returns a value of shape s with every element zero, of memory of its own (what a collective
// gives a device that receives nothing, the state elements of an async-start; a token for a token).
func zeroValue(s hlo.Shape) Value {
	return valueOfShape(s, func(a hlo.Shape) *tensor.Tensor { return tensor.New(a.Elem, a.Dims) })
}

// valueOfShape returns a value of shape s whose arrays array makes, a token for a token.
func valueOfShape(s hlo.Shape, array func(hlo.Shape) *tensor.Tensor) Value {
	switch s.Kind {
	case hlo.TupleShape:
		elems := make([]Value, len(s.Tuple))
		for i, e := range s.Tuple {
			elems[i] = valueOfShape(e, array)
		}
		return TupleValue(elems...)
	case hlo.ArrayShape:
		return ArrayValue(array(s))
	}
	return TokenValue()
}

package hlo

import (
	"fmt"
	"math"

	"octet/dtype"
	"octet/tensor"
)

// Literal is the value of a constant instruction, decoded: the elements of an array (Array), the elements
// of a tuple (Tuple), or nothing when the text left the values out ("{...}", Elided). The instruction's
// shape says which; a literal holds values, never their spelling.
type Literal struct {
	// Array holds an array constant's elements in row-major order, with the constant's element type and
	// dimensions; nil for a tuple or an elided literal.
	Array *tensor.Tensor
	// Tuple holds a tuple constant's elements, one literal per element of the tuple shape.
	Tuple []*Literal
	// Elided is set when the values are unknown: the text wrote "{...}".
	Elided bool
}

// ArrayLiteral returns the literal holding t.
func ArrayLiteral(t *tensor.Tensor) *Literal { return &Literal{Array: t} }

// TupleLiteral returns the literal of a tuple with the given elements.
func TupleLiteral(elems ...*Literal) *Literal {
	if elems == nil {
		elems = []*Literal{}
	}
	return &Literal{Tuple: elems}
}

// ElidedLiteral returns the literal whose values are unknown ("{...}").
func ElidedLiteral() *Literal { return &Literal{Elided: true} }

// ScalarLiteral returns the literal of the scalar v of type t, rounded to t as XLA's parser rounds a
// literal (EncodeFloat); a complex type gets v as its real part. An integer type must hold v exactly; a
// float too large for t becomes what the conversion gives (an infinity, or NaN for a type without them).
func ScalarLiteral(t dtype.Type, v float64) (*Literal, error) {
	if !t.Valid() {
		return nil, fmt.Errorf("no scalar constants of type %s", t)
	}
	a := tensor.New(t, nil)
	switch {
	case t == dtype.PRED:
		a.SetBitsAt(0, b2u(v != 0))
	case t.IsInteger():
		if v != math.Trunc(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%v is not an integer", v)
		}
		if t.IsSigned() {
			if lim := math.Ldexp(1, t.BitWidth()-1); v < -lim || v >= lim {
				return nil, fmt.Errorf("%v is out of the range of %s", v, t)
			}
			a.SetBitsAt(0, uint64(int64(v)))
		} else {
			if v < 0 || v >= math.Ldexp(1, t.BitWidth()) {
				return nil, fmt.Errorf("%v is out of the range of %s", v, t)
			}
			a.SetBitsAt(0, uint64(v))
		}
	case t == dtype.C64:
		a.SetBitsAt(0, uint64(math.Float32bits(float32(v))))
	case t == dtype.C128:
		a.SetBitsAt(0, math.Float64bits(v))
	case t.IsFloat():
		a.SetBitsAt(0, EncodeFloat(t, v))
	default:
		return nil, fmt.Errorf("no scalar constants of type %s", t)
	}
	return ArrayLiteral(a), nil
}

// Fits reports whether l holds values of shape s: an array of its element type and dimensions, a tuple of
// literals that fit its elements, or elided values.
func (l *Literal) Fits(s Shape) bool {
	if l.Elided {
		return true
	}
	switch s.Kind {
	case TupleShape:
		if len(l.Tuple) != len(s.Tuple) {
			return false
		}
		for i, e := range l.Tuple {
			if e == nil || !e.Fits(s.Tuple[i]) {
				return false
			}
		}
		return true
	case ArrayShape:
		a := l.Array
		if a == nil || a.Type != s.Elem || len(a.Shape) != len(s.Dims) {
			return false
		}
		for i, d := range s.Dims {
			if a.Shape[i] != d {
				return false
			}
		}
		return true
	case TokenShape:
		return true
	}
	return false
}

// EncodeFloat returns the bits of v in the floating-point type t as XLA's parser rounds a literal: once
// from binary64, except bf16 and f16 which go through f32 as Eigen's constructors do.
func EncodeFloat(t dtype.Type, v float64) uint64 {
	switch t {
	case dtype.F64:
		return math.Float64bits(v)
	case dtype.F32:
		return uint64(math.Float32bits(float32(v)))
	case dtype.BF16, dtype.F16:
		return t.EncodeFloat64ViaFloat32(v)
	}
	return t.EncodeFloat64(v)
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// Float returns the value of element i of an array literal of a real number type (pred, integer or
// floating point) as a float64, and false when the literal has no such element.
func (l *Literal) Float(i int64) (float64, bool) {
	if l == nil || l.Array == nil || i < 0 || i >= l.Array.NumElements() {
		return 0, false
	}
	t := l.Array.Type
	b := l.Array.BitsAt(i)
	switch {
	case t == dtype.PRED:
		return float64(b), true
	case t.IsSigned():
		w := t.BitWidth()
		return float64(int64(b<<(64-w)) >> (64 - w)), true
	case t.IsUnsigned():
		return float64(b), true
	case t.IsFloat():
		return t.DecodeFloat64(b), true
	}
	return 0, false
}

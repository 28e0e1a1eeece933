package interp

import (
	"octet/dtype"
	"octet/tensor"
)

// convertFast converts x to type to on every core where both are integers of whole bytes, f32 or f64,
// and the conversion is one of Go's that XLA's convert is: integers wrap to a narrower integer and extend
// by their sign (or with zeros) to a wider one, integers round once to nearest even to a float, f64 to
// f32 rounds once, f32 to f64 is exact. Floats to integers (clamped by XLA, not by Go) are not among them.
// It returns nil where it does not apply, or where the data is not aligned for its types.
func (e *evaluator) convertFast(x *tensor.Tensor, to dtype.Type, dims []int64) *tensor.Tensor {
	from := x.Type
	if !plainNumber(from) || !plainNumber(to) || from == to || from.IsFloat() && !to.IsFloat() {
		return nil
	}
	r := e.newTensor(to, dims)
	var ok bool
	switch from {
	case dtype.S8:
		ok = convertFrom[int8](e.threads, x, r)
	case dtype.U8:
		ok = convertFrom[uint8](e.threads, x, r)
	case dtype.S16:
		ok = convertFrom[int16](e.threads, x, r)
	case dtype.U16:
		ok = convertFrom[uint16](e.threads, x, r)
	case dtype.S32:
		ok = convertFrom[int32](e.threads, x, r)
	case dtype.U32:
		ok = convertFrom[uint32](e.threads, x, r)
	case dtype.S64:
		ok = convertFrom[int64](e.threads, x, r)
	case dtype.U64:
		ok = convertFrom[uint64](e.threads, x, r)
	case dtype.F32:
		ok = convertFrom[float32](e.threads, x, r)
	case dtype.F64:
		ok = convertFrom[float64](e.threads, x, r)
	}
	if !ok {
		return nil
	}
	return r
}

// plainNumber reports whether t is an integer of whole bytes, f32 or f64: a type Go has.
func plainNumber(t dtype.Type) bool {
	return t.IsInteger() && t.BitWidth() == 8*t.ByteSize() || t == dtype.F32 || t == dtype.F64
}

// convertFrom converts x's elements, of Go type S, into r's, of r's type; false where either is not
// aligned for its type.
func convertFrom[S ordered](threads int, x, r *tensor.Tensor) bool {
	src := view[S](x.Data)
	if src == nil {
		return len(x.Data) == 0
	}
	switch r.Type {
	case dtype.S8:
		return convertInto(threads, src, view[int8](r.Data))
	case dtype.U8:
		return convertInto(threads, src, view[uint8](r.Data))
	case dtype.S16:
		return convertInto(threads, src, view[int16](r.Data))
	case dtype.U16:
		return convertInto(threads, src, view[uint16](r.Data))
	case dtype.S32:
		return convertInto(threads, src, view[int32](r.Data))
	case dtype.U32:
		return convertInto(threads, src, view[uint32](r.Data))
	case dtype.S64:
		return convertInto(threads, src, view[int64](r.Data))
	case dtype.U64:
		return convertInto(threads, src, view[uint64](r.Data))
	case dtype.F32:
		return convertInto(threads, src, view[float32](r.Data))
	case dtype.F64:
		return convertInto(threads, src, view[float64](r.Data))
	}
	return false
}

// convertInto sets z[i] to x[i] converted by Go, on every core; false where z is nil (not aligned).
func convertInto[S, D ordered](threads int, x []S, z []D) bool {
	if z == nil {
		return false
	}
	parallelFor(threads, len(z), elementwiseGrain, func(lo, hi int) {
		z := z[lo:hi]
		x := x[lo:hi][:len(z)]
		for i, v := range x {
			z[i] = D(v)
		}
	})
	return true
}

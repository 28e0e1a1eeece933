package interp

import (
	"slices"

	"octet/hlo"
	"octet/tensor"
)

func init() {
	register((*evaluator).scan, hlo.OpScan)
}

// scan evaluates scan(inputs..., inits...), dimensions={d}, num_carries=m, to_apply=f as XLA's
// ScanExpander defines it (scan_expander.cc): for each position of dimension d in order (from the last
// when is_reverse), f takes each input's elements at that position (the input without dimension d) and
// the carries, and gives the outputs' elements at that position and the next carries. The result is the
// outputs then the final carries, a tuple when f returns one. is_associative only allows a compiler to
// combine positions in another order; the interpreter keeps this one, so the result is the same bits
// whatever it says.
func (e *evaluator) scan(in *hlo.Instruction, ops []Value) (Value, error) {
	f := in.CalledComputation("to_apply")
	dims := in.Ints("dimensions")
	m, _ := in.Int("num_carries")
	if f == nil || f.Root == nil || len(dims) != 1 || m < 0 || m >= int64(len(ops)) {
		return Value{}, errorf(in, "scan needs one dimension, a scanned function and at least one input besides its %d carries", m)
	}
	d := int(dims[0])
	n := len(ops) - int(m)
	inputs := make([]*tensor.Tensor, n)
	for i, v := range ops[:n] {
		if v.Kind != KindArray || v.Array == nil || d >= len(v.Array.Shape) {
			return Value{}, errorf(in, "input %d is %s, not an array with a dimension %d", i, v, d)
		}
		inputs[i] = v.Array
	}
	length := inputs[0].Shape[d]
	carries := slices.Clone(ops[n:])
	results := []hlo.Shape{f.Root.Shape}
	if f.Root.Shape.IsTuple() {
		results = f.Root.Shape.Tuple
	}
	k := len(results) - int(m) // the number of outputs
	if k < 0 {
		return Value{}, errorf(in, "the scanned function %s returns fewer values than the %d carries", f.Name, m)
	}
	outputs := make([]*tensor.Tensor, k)
	for j := range outputs {
		s := results[j]
		if !s.IsArray() || d > s.Rank() {
			return Value{}, errorf(in, "output %d of the scanned function %s is %s", j, f.Name, s.String())
		}
		outputs[j] = tensor.New(s.Elem, slices.Insert(slices.Clone(s.Dims), d, length))
	}
	reverse, _ := in.Attr("is_reverse").(hlo.Bool)
	args := make([]Value, len(ops))
	for step := range length {
		pos := step
		if reverse {
			pos = length - 1 - step
		}
		for i, x := range inputs {
			args[i] = ArrayValue(hyperplane(x, d, pos))
		}
		copy(args[n:], carries)
		r, err := e.call(f, args)
		if err != nil {
			return Value{}, err
		}
		vals := []Value{r}
		if f.Root.Shape.IsTuple() {
			if r.Kind != KindTuple || len(r.Tuple) != len(results) {
				return Value{}, errorf(in, "the scanned function %s returned %s", f.Name, r)
			}
			vals = r.Tuple
		}
		for j, o := range outputs {
			v := vals[j]
			if v.Kind != KindArray || v.Array == nil || v.Array.Type != o.Type || product(v.Array.Shape)*product(o.Shape[d:d+1]) != product(o.Shape) {
				return Value{}, errorf(in, "the scanned function %s returned output %d as %s, not an element of %s", f.Name, j, v, dimsString(o.Type, o.Shape))
			}
			setHyperplane(o, d, pos, v.Array)
		}
		copy(carries, vals[k:])
	}
	elems := make([]Value, 0, len(results))
	for _, o := range outputs {
		elems = append(elems, ArrayValue(o))
	}
	elems = append(elems, carries...)
	if !f.Root.Shape.IsTuple() {
		return elems[0], nil
	}
	return TupleValue(elems...), nil
}

// hyperplane returns the elements of x at position pos of dimension d, as an array without dimension d.
func hyperplane(x *tensor.Tensor, d int, pos int64) *tensor.Tensor {
	start, size := fullRegion(x.Shape)
	start[d], size[d] = pos, 1
	t := regionOf(x, start, size)
	t.Shape = slices.Delete(t.Shape, d, d+1)
	return t
}

// setHyperplane stores the elements of v, an array of x's dimensions without d, at position pos of x's
// dimension d.
func setHyperplane(x *tensor.Tensor, d int, pos int64, v *tensor.Tensor) {
	start, size := fullRegion(x.Shape)
	start[d], size[d] = pos, 1
	copyRegion(x.Data, offset(start, x.Shape), rowMajorStrides(x.Shape), v.Data, 0, rowMajorStrides(size), size, x.Type.ByteSize())
}

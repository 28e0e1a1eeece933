package hlo

import (
	"fmt"

	"octet/dtype"
)

// This file holds the constructors passes use to make instructions: each gives the new instruction XLA's
// attributes in XLA's order and the shape InferShape gives it, names it after its opcode ("multiply",
// "multiply.1", ...) and appends it to the computation. Like Computation.Add, they append at the end: a
// pass that makes an instruction for users already in the list calls SortTopologically when done.
//
// AddInferred returns an error for operands that do not fit. The other constructors panic instead: they are
// called with operands a pass has already matched, so a mismatch is a bug in the pass that its tests catch,
// and the message says which shapes disagree.

// AddInferred appends an instruction of opcode op with the given operands and attributes, whose shape
// InferShape infers, and returns it. Its name is made unique in the module from name (the opcode's name
// when empty). When the shape cannot be inferred, or the operands disagree, it returns the error and
// changes nothing.
//
// The constructors named after opcodes (Broadcast, Convert, Dot, Multiply, ...) panic with that error
// instead, since their operands come from patterns a pass has already matched.
func (c *Computation) AddInferred(name string, op Opcode, operands []*Instruction, attrs ...Attr) (*Instruction, error) {
	return c.addInferred(name, op, Shape{}, operands, attrs)
}

// addInferred is AddInferred with the part of the shape XLA takes from the instruction itself (a convert's
// element type, a dot's preferred element type, a broadcast's or reshape's dimensions) given as given.
func (c *Computation) addInferred(name string, op Opcode, given Shape, operands []*Instruction, attrs []Attr) (*Instruction, error) {
	in := &Instruction{Opcode: op, Shape: given, Parent: c}
	in.operands = append([]*Instruction(nil), operands...)
	if len(attrs) > 0 {
		in.Attrs = append([]Attr(nil), attrs...)
	}
	s, err := InferShape(in)
	if err != nil {
		return nil, err
	}
	in.Shape = s
	c.insert(in, name)
	if in.Attr(controlPredecessors) != nil {
		c.control = controlSome
	}
	return in, nil
}

// insert names in uniquely, registers it with its operands and appends it to c.
func (c *Computation) insert(in *Instruction, name string) {
	if name == "" {
		name = in.Opcode.String()
	}
	if c.Module != nil {
		name = c.Module.UniqueName(name)
	}
	in.Name = name
	in.Parent = c
	// in is new, so it uses none of its operands yet: it joins their users without a search through them,
	// which would make a value with many users quadratic to build.
	in.addAsNewUser()
	c.Instructions = append(c.Instructions, in)
	c.indexControl(in)
}

// must returns in, or panics with err.
func must(in *Instruction, err error) *Instruction {
	if err != nil {
		panic("hlo: " + err.Error())
	}
	return in
}

// Broadcast returns broadcast(x), dimensions=dims, of the given shape (its element type is x's; dims maps
// each dimension of x to one of shape).
func (c *Computation) Broadcast(x *Instruction, shape Shape, dims []int64) *Instruction {
	return must(c.addInferred("", OpBroadcast, shape.Clone(), []*Instruction{x},
		[]Attr{{"dimensions", Ints(append([]int64{}, dims...))}}))
}

// Convert returns convert(x) to element type elem.
func (c *Computation) Convert(x *Instruction, elem dtype.Type) *Instruction {
	return must(c.addInferred("", OpConvert, Scalar(elem), []*Instruction{x}, nil))
}

// Reshape returns reshape(x) to shape (its element type is x's; the element counts must agree).
func (c *Computation) Reshape(x *Instruction, shape Shape) *Instruction {
	return must(c.addInferred("", OpReshape, shape.Clone(), []*Instruction{x}, nil))
}

// Transpose returns transpose(x), dimensions=perm: dimension i of the result is dimension perm[i] of x.
func (c *Computation) Transpose(x *Instruction, perm []int64) *Instruction {
	return must(c.addInferred("", OpTranspose, Shape{}, []*Instruction{x},
		[]Attr{{"dimensions", Ints(append([]int64{}, perm...))}}))
}

// Slice returns slice(x), slice={[starts[i]:limits[i]:strides[i]], ...}; nil strides are all 1.
func (c *Computation) Slice(x *Instruction, starts, limits, strides []int64) *Instruction {
	if len(starts) != len(limits) || strides != nil && len(strides) != len(starts) {
		panic(fmt.Sprintf("hlo: Slice: %d starts, %d limits and %d strides", len(starts), len(limits), len(strides)))
	}
	sl := make(Slice, len(starts))
	for i := range starts {
		sl[i] = SliceDim{Start: starts[i], Limit: limits[i], Stride: 1}
		if strides != nil {
			sl[i].Stride = strides[i]
		}
	}
	return must(c.addInferred("", OpSlice, Shape{}, []*Instruction{x}, []Attr{{"slice", sl}}))
}

// Pad returns pad(x, padValue), padding=cfg.
func (c *Computation) Pad(x, padValue *Instruction, cfg Padding) *Instruction {
	return must(c.addInferred("", OpPad, Shape{}, []*Instruction{x, padValue},
		[]Attr{{"padding", append(Padding{}, cfg...)}}))
}

// Constant returns constant(literal) of the given shape. The literal is not checked against the shape.
func (c *Computation) Constant(shape Shape, literal *Literal) *Instruction {
	in := &Instruction{Opcode: OpConstant, Shape: shape.Clone(), Literal: literal}
	in.Shape.SetDefaultLayouts()
	c.insert(in, "")
	return in
}

// ScalarConstant returns the constant v of type elem[], v rounded to elem as XLA's parser rounds a
// literal. It panics when elem is an integer type that cannot hold v.
func (c *Computation) ScalarConstant(elem dtype.Type, v float64) *Instruction {
	lit, err := ScalarLiteral(elem, v)
	if err != nil {
		panic("hlo: ScalarConstant: " + err.Error())
	}
	return c.Constant(Scalar(elem), lit)
}

// Tuple returns tuple(elems...).
func (c *Computation) Tuple(elems ...*Instruction) *Instruction {
	return must(c.addInferred("", OpTuple, Shape{}, elems, nil))
}

// GetTupleElement returns get-tuple-element(x), index=i.
func (c *Computation) GetTupleElement(x *Instruction, i int64) *Instruction {
	return must(c.addInferred("", OpGetTupleElement, Shape{}, []*Instruction{x}, []Attr{{"index", Int(i)}}))
}

// Binary returns op(x, y) for an elementwise binary opcode other than compare.
func (c *Computation) Binary(op Opcode, x, y *Instruction) *Instruction {
	if !op.IsElementwiseBinary() || op == OpCompare || op == OpStochasticConvert {
		panic("hlo: Binary: " + op.String() + " is not an elementwise binary operation")
	}
	return must(c.addInferred("", op, Shape{}, []*Instruction{x, y}, nil))
}

// AddOp returns add(x, y). (Computation.Add, with a name, opcode and shape, appends any instruction.)
func (c *Computation) AddOp(x, y *Instruction) *Instruction { return c.Binary(OpAdd, x, y) }

// Multiply returns multiply(x, y).
func (c *Computation) Multiply(x, y *Instruction) *Instruction { return c.Binary(OpMultiply, x, y) }

// Divide returns divide(x, y).
func (c *Computation) Divide(x, y *Instruction) *Instruction { return c.Binary(OpDivide, x, y) }

// Maximum returns maximum(x, y).
func (c *Computation) Maximum(x, y *Instruction) *Instruction { return c.Binary(OpMaximum, x, y) }

// Minimum returns minimum(x, y).
func (c *Computation) Minimum(x, y *Instruction) *Instruction { return c.Binary(OpMinimum, x, y) }

// Subtract returns subtract(x, y).
func (c *Computation) Subtract(x, y *Instruction) *Instruction { return c.Binary(OpSubtract, x, y) }

// Clamp returns clamp(lo, x, hi); lo and hi are scalars or have x's shape.
func (c *Computation) Clamp(lo, x, hi *Instruction) *Instruction {
	return must(c.addInferred("", OpClamp, Shape{}, []*Instruction{lo, x, hi}, nil))
}

// Dot returns dot(lhs, rhs) contracting lhsContracting with rhsContracting over the batch dimensions
// lhsBatch and rhsBatch. Its element type is resultElem, or the operands' shared type when resultElem is
// dtype.Invalid. The attributes are written as XLA writes them: lhs_batch_dims (when there are batch
// dimensions), lhs_contracting_dims, rhs_batch_dims, rhs_contracting_dims.
func (c *Computation) Dot(lhs, rhs *Instruction, lhsContracting, rhsContracting, lhsBatch, rhsBatch []int64, resultElem dtype.Type) *Instruction {
	var attrs []Attr
	if len(lhsBatch) > 0 {
		attrs = append(attrs, Attr{"lhs_batch_dims", Ints(append([]int64{}, lhsBatch...))})
	}
	attrs = append(attrs, Attr{"lhs_contracting_dims", Ints(append([]int64{}, lhsContracting...))})
	if len(rhsBatch) > 0 {
		attrs = append(attrs, Attr{"rhs_batch_dims", Ints(append([]int64{}, rhsBatch...))})
	}
	attrs = append(attrs, Attr{"rhs_contracting_dims", Ints(append([]int64{}, rhsContracting...))})
	var given Shape
	if resultElem != dtype.Invalid {
		given = Scalar(resultElem)
	}
	return must(c.addInferred("", OpDot, given, []*Instruction{lhs, rhs}, attrs))
}

// CustomCall returns custom-call(operands...), custom_call_target=target, of the given shape, with
// backend_config=backendConfig when it is not empty (written raw when it is a JSON object, else quoted).
func (c *Computation) CustomCall(target string, shape Shape, operands []*Instruction, backendConfig string) *Instruction {
	in := &Instruction{Opcode: OpCustomCall, Shape: shape.Clone()}
	in.Shape.SetDefaultLayouts()
	in.operands = append([]*Instruction(nil), operands...)
	in.Attrs = []Attr{{"custom_call_target", String(target)}}
	if backendConfig != "" {
		quoted := backendConfig[0] != '{'
		in.Attrs = append(in.Attrs, Attr{"backend_config", &BackendConfig{Text: backendConfig, Quoted: quoted}})
	}
	c.insert(in, "")
	return in
}

// Parameter appends parameter(N) of the given shape to c's parameters, N their number so far.
func (c *Computation) Parameter(shape Shape) *Instruction {
	in := &Instruction{Opcode: OpParameter, Shape: shape.Clone(), ParameterNumber: int64(len(c.Params))}
	in.Shape.SetDefaultLayouts()
	c.insert(in, "parameter")
	c.Params = append(c.Params, in)
	return in
}

// Unary returns op(x) for an elementwise unary opcode (abs, negate, rsqrt, sign, floor, ...).
func (c *Computation) Unary(op Opcode, x *Instruction) *Instruction {
	if !op.IsElementwiseUnary() {
		panic("hlo: Unary: " + op.String() + " is not an elementwise unary operation")
	}
	return must(c.addInferred("", op, Shape{}, []*Instruction{x}, nil))
}

// Compare returns compare(x, y), direction=direction (EQ, NE, LT, LE, GT, GE).
func (c *Computation) Compare(x, y *Instruction, direction string) *Instruction {
	return must(c.addInferred("", OpCompare, Shape{}, []*Instruction{x, y}, []Attr{{"direction", Enum(direction)}}))
}

// Select returns select(pred, onTrue, onFalse).
func (c *Computation) Select(pred, onTrue, onFalse *Instruction) *Instruction {
	return must(c.addInferred("", OpSelect, Shape{}, []*Instruction{pred, onTrue, onFalse}, nil))
}

// Reduce returns reduce(x, init), dimensions=dims, to_apply=toApply.
func (c *Computation) Reduce(x, init *Instruction, dims []int64, toApply *Computation) *Instruction {
	return must(c.addInferred("", OpReduce, Shape{}, []*Instruction{x, init},
		[]Attr{{"dimensions", Ints(append([]int64{}, dims...))}, {"to_apply", CompRef{Comp: toApply}}}))
}

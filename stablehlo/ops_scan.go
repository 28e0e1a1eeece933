package stablehlo

import (
	"octet/dtype"
	"octet/hlo"
)

func init() {
	special["chlo.scan"] = (*converter).scan
}

// scan converts chlo.scan into the while loop XLA's ScanExpander makes of a scan, over the positions of the
// scan dimension (from the end when is_reverse): at each position the body takes the inputs' elements
// there and the carries, and gives the outputs' elements there and the new carries. The loop's state is
// (position, carries..., outputs..., inputs...); the result is (outputs..., carries...).
func (c *converter) scan(sc *scope, op *Op) *hlo.Instruction {
	ins := c.operands(sc, op)
	n := len(ins)
	switch a := op.Attr(attrInits).(type) {
	case IntAttr:
		n = int(a.V)
	default:
		if seg, ok := ints(op, "operandSegmentSizes"); ok && len(seg) == 2 {
			n = int(seg[0])
		}
	}
	dim, ok := integer(op, "dimension")
	c.need(op, ok, "dimension")
	m := len(ins) - n
	k := len(op.OutTypes) - m
	c.need(op, n > 0 && m >= 0 && k >= 0 && len(op.Regions) == 1, "inputs, initial values and a body")
	inputs, inits := ins[:n], ins[n:]
	outTypes := op.OutTypes[:k]
	first := inputs[0].Shape
	if dim < 0 || dim >= int64(first.Rank()) {
		c.fail(op.Pos, "%s: dimension %d of %s", op.Name, dim, first.String())
	}
	length := first.Dims[dim]
	for _, x := range inputs {
		if !x.Shape.IsArray() || int64(x.Shape.Rank()) <= dim || x.Shape.Dims[dim] != length {
			c.fail(op.Pos, "%s: input %s does not have %d positions in dimension %d", op.Name, x.Shape.String(), length, dim)
		}
	}
	for _, t := range outTypes {
		if !t.IsArray() || int64(t.Rank()) <= dim || t.Dims[dim] != length {
			c.fail(op.Pos, "%s: output %s does not have %d positions in dimension %d", op.Name, t.String(), length, dim)
		}
	}
	reverse := boolean(op, "is_reverse")
	// is_associative only lets a compiler scan in parallel (XLA keeps such a scan whole until its GPU
	// backend takes it); the loop computes the same values either way.
	if a := op.Attr("is_associative"); a != nil {
		_, ok := a.(BoolAttr)
		c.need(op, ok, "is_associative")
	}
	body := c.region(c.regionName(), op.Regions[0], nil, op.Regions[0].Pos, sc, plainRegion, nil)
	if len(body.Params) != n+m {
		c.fail(op.Pos, "%s: the body takes %d arguments, not %d", op.Name, len(body.Params), n+m)
	}

	e := emitter{c, sc, op}
	stateVals := []*hlo.Instruction{e.splat(hlo.Scalar(dtype.S64), 0)}
	stateVals = append(stateVals, inits...)
	for _, t := range outTypes {
		stateVals = append(stateVals, e.splat(t, 0))
	}
	stateVals = append(stateVals, inputs...)
	stateShape := tupleShape(stateVals)
	state := e.add(hlo.OpTuple, stateShape, stateVals...)

	// The condition: position < length.
	cond, cs := c.loopComputation(op, "scan_cond", stateShape)
	ce := emitter{c, cs, op}
	pos := c.element(ce, cond.Params[0], 0)
	cond.Root = ce.compare("LT", pos, ce.splat(hlo.Scalar(dtype.S64), uint64(length)))
	c.out.AddComputation(cond)

	// The body.
	loop, ls := c.loopComputation(op, "scan_step", stateShape)
	le := emitter{c, ls, op}
	p := loop.Params[0]
	i := c.element(le, p, 0)
	at := i
	if reverse {
		at = le.binary(hlo.OpSubtract, le.splat(hlo.Scalar(dtype.S64), uint64(length-1)), i)
	}
	zero := le.splat(hlo.Scalar(dtype.S64), 0)
	indices := func(rank int) []*hlo.Instruction {
		idx := make([]*hlo.Instruction, rank)
		for d := range idx {
			idx[d] = zero
			if int64(d) == dim {
				idx[d] = at
			}
		}
		return idx
	}
	args := make([]*hlo.Instruction, 0, n+m)
	for j := range n {
		x := c.element(le, p, 1+m+k+j)
		sizes := append([]int64(nil), x.Shape.Dims...)
		sizes[dim] = 1
		slice := le.add(hlo.OpDynamicSlice, hlo.Array(x.Shape.Elem, sizes...), append([]*hlo.Instruction{x}, indices(x.Shape.Rank())...)...)
		slice.SetAttr("dynamic_slice_sizes", hlo.Ints(sizes))
		args = append(args, le.add(hlo.OpReshape, body.Params[j].Shape, slice))
	}
	for j := range m {
		args = append(args, c.element(le, p, 1+j))
	}
	call := le.add(hlo.OpCall, body.Root.Shape, args...)
	call.SetAttr("to_apply", hlo.CompRef{Comp: body})
	result := func(j int) *hlo.Instruction {
		if !call.Shape.IsTuple() {
			return call
		}
		return c.element(le, call, j)
	}
	given := 1
	if call.Shape.IsTuple() {
		given = len(call.Shape.Tuple)
	}
	if given != k+m {
		c.fail(op.Pos, "%s: the body gives %s, not %d values", op.Name, call.Shape.String(), k+m)
	}
	next := []*hlo.Instruction{le.binary(hlo.OpAdd, i, le.splat(hlo.Scalar(dtype.S64), 1))}
	for j := range m {
		next = append(next, result(k+j))
	}
	for j, t := range outTypes {
		acc := c.element(le, p, 1+m+j)
		sizes := append([]int64(nil), t.Dims...)
		sizes[dim] = 1
		upd := le.add(hlo.OpReshape, hlo.Array(t.Elem, sizes...), result(j))
		next = append(next, le.add(hlo.OpDynamicUpdateSlice, acc.Shape, append([]*hlo.Instruction{acc, upd}, indices(t.Rank())...)...))
	}
	for j := range n {
		next = append(next, c.element(le, p, 1+m+k+j))
	}
	loop.Root = le.add(hlo.OpTuple, stateShape, next...)
	c.out.AddComputation(loop)

	w := e.add(hlo.OpWhile, stateShape, state)
	w.SetAttr("condition", hlo.CompRef{Comp: cond})
	w.SetAttr("body", hlo.CompRef{Comp: loop})
	var outs []*hlo.Instruction
	for j := range k {
		outs = append(outs, c.element(e, w, 1+m+j))
	}
	for j := range m {
		outs = append(outs, c.element(e, w, 1+j))
	}
	return e.add(hlo.OpTuple, tupleShape(outs), outs...)
}

// loopComputation starts a computation of one parameter of the given shape, with its scope.
func (c *converter) loopComputation(op *Op, name string, param hlo.Shape) (*hlo.Computation, *scope) {
	comp := &hlo.Computation{Name: c.out.UniqueName(c.name(name)), Module: c.out, Pos: op.Pos}
	p := comp.Add(c.name("state"), hlo.OpParameter, paramShape(param))
	p.Pos = op.Pos
	comp.Params = []*hlo.Instruction{p}
	return comp, &scope{comp: comp, vals: map[*Value]*hlo.Instruction{}}
}

// element is get-tuple-element i of t.
func (c *converter) element(e emitter, t *hlo.Instruction, i int) *hlo.Instruction {
	g := e.add(hlo.OpGetTupleElement, t.Shape.Tuple[i], t)
	g.SetAttr("index", hlo.Int(i))
	return g
}

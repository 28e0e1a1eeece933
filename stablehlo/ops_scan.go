package stablehlo

import (
	"octet/hlo"
)

func init() {
	special["chlo.scan"] = (*converter).scan
}

// scan converts chlo.scan into XLA's scan instruction, as jaxlib's translation keeps it:
// scan(inputs..., inits...), dimensions={d}, num_carries=m, then is_reverse=true and is_associative=true
// where the op says so, and the body as to_apply. The body takes each input's element at a position and
// the carries, and returns the outputs' elements and the next carries; the result is the outputs then the
// carries (hlo's inferScan states the rule, and Verify checks it).
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
	c.need(op, n > 0 && m >= 0 && len(op.Regions) == 1, "inputs, initial values and a body")
	first := ins[0].Shape
	if dim < 0 || !first.IsArray() || dim >= int64(first.Rank()) {
		c.fail(op.Pos, "%s: dimension %d of %s", op.Name, dim, first.String())
	}
	reverse := boolean(op, "is_reverse")
	// is_associative lets a compiler combine positions in another order (XLA's GPU backend scans such a
	// scan in parallel); XLA's parser reads an absent one as false, so only true is written.
	associative := false
	if a := op.Attr("is_associative"); a != nil {
		b, ok := a.(BoolAttr)
		c.need(op, ok, "is_associative")
		associative = bool(b)
	}
	body := c.region(c.regionName(), op.Regions[0], nil, op.Regions[0].Pos, sc, plainRegion, nil)
	if len(body.Params) != len(ins) {
		c.fail(op.Pos, "%s: the body takes %d arguments, not %d", op.Name, len(body.Params), len(ins))
	}
	in := c.add(sc, op, hlo.OpScan, resultShape(op), ins...)
	in.SetAttr("dimensions", hlo.Ints{dim})
	in.SetAttr("num_carries", hlo.Int(m))
	if reverse {
		in.SetAttr("is_reverse", hlo.Bool(true))
	}
	if associative {
		in.SetAttr("is_associative", hlo.Bool(true))
	}
	in.SetAttr("to_apply", hlo.CompRef{Comp: body})
	return in
}

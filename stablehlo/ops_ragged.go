package stablehlo

import (
	"octet/hlo"
)

func init() {
	special["chlo.ragged_dot"] = (*converter).raggedDot
}

// raggedDot converts chlo.ragged_dot into XLA's ragged-dot instruction, as jaxlib's translation keeps it:
// the dot's dimension numbers (batch ones only where there are any), lhs_ragged_dims, rhs_group_dims
// where there is a group dimension, and operand_precision where it is not all DEFAULT. Every mode (a
// ragged free, contracting or batch dimension of lhs) converts; Verify checks the shapes.
func (c *converter) raggedDot(sc *scope, op *Op) *hlo.Instruction {
	ins := c.operands(sc, op)
	c.need(op, len(ins) == 3, "lhs, rhs and group sizes")
	dn, ok := op.Attr("ragged_dot_dimension_numbers").(StructAttr)
	c.need(op, ok, "ragged_dot_dimension_numbers")
	field := func(name string) []int64 {
		a := lookup(dn.Fields, name)
		if l, isList := a.(ListAttr); a == nil || isList && len(l) == 0 {
			return nil // MLIR leaves an empty list out
		}
		v, ok := attrInts(a)
		c.need(op, ok, name)
		return v
	}
	lb, rb := field("lhs_batching_dimensions"), field("rhs_batching_dimensions")
	lc, rc := field("lhs_contracting_dimensions"), field("rhs_contracting_dimensions")
	ragged, group := field("lhs_ragged_dimensions"), field("rhs_group_dimensions")
	in := c.add(sc, op, hlo.OpRaggedDot, c.result(op), ins...)
	setDotDims(in, lb, rb, lc, rc)
	in.SetAttr("lhs_ragged_dims", hlo.Ints(nonNil(ragged)))
	if len(group) > 0 {
		in.SetAttr("rhs_group_dims", hlo.Ints(group))
	}
	c.precision(op, in)
	return in
}

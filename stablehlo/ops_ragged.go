package stablehlo

import (
	"slices"

	"octet/dtype"
	"octet/hlo"
)

func init() {
	special["chlo.ragged_dot"] = (*converter).raggedDot
}

// raggedDot converts chlo.ragged_dot whose ragged dimension is a non-contracting dimension of lhs (the
// only mode CHLO's tests interpret): lhs's rows along that dimension fall into consecutive groups of
// group_sizes, and each group multiplies the rhs of its index along rhs_group_dimensions. It becomes one
// dot per group, each keeping only its group's rows of the result.
func (c *converter) raggedDot(sc *scope, op *Op) *hlo.Instruction {
	ins := c.operands(sc, op)
	c.need(op, len(ins) == 3, "lhs, rhs and group sizes")
	lhs, rhs, sizes := ins[0], ins[1], ins[2]
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
	out := c.result(op)
	if len(ragged) != 1 || len(group) != 1 || slices.Contains(lb, ragged[0]) || slices.Contains(lc, ragged[0]) {
		c.fail(op.Pos, "%s: only a ragged non-contracting dimension of lhs with one rhs group dimension is supported", op.Name)
	}
	g := group[0]
	if !rhs.Shape.IsArray() || g < 0 || g >= int64(rhs.Shape.Rank()) || !sizes.Shape.IsArray() || sizes.Shape.Rank() != 1 ||
		sizes.Shape.Dims[0] != rhs.Shape.Dims[g] || !sizes.Shape.Elem.IsInteger() || !out.IsArray() {
		c.fail(op.Pos, "%s: group sizes %s do not fit rhs %s", op.Name, sizes.Shape.String(), rhs.Shape.String())
	}
	// The rhs of one group lacks the group dimension: the dimensions after it move down by one.
	shift := func(ds []int64) hlo.Ints {
		r := make(hlo.Ints, len(ds))
		for i, d := range ds {
			r[i] = d
			if d > g {
				r[i]--
			}
		}
		return r
	}
	// The ragged dimension's place in the result: after the batch dimensions, among lhs's free ones.
	at := int64(len(lb))
	for d := range ragged[0] {
		if !slices.Contains(lb, d) && !slices.Contains(lc, d) {
			at++
		}
	}
	e := emitter{c, sc, op}
	rows := e.add(hlo.OpIota, out.WithElem(dtype.S64))
	rows.SetAttr("iota_dimension", hlo.Int(at))
	wide := sizes
	if sizes.Shape.Elem != dtype.S64 {
		wide = e.add(hlo.OpConvert, sizes.Shape.WithElem(dtype.S64), sizes)
	}
	rhsDims := slices.Clone(rhs.Shape.Dims)
	rhsDims = slices.Delete(rhsDims, int(g), int(g)+1)
	acc := e.splat(out, 0)
	start := e.splat(out.WithElem(dtype.S64), 0)
	for k := range rhs.Shape.Dims[g] {
		sl := make(hlo.Slice, rhs.Shape.Rank())
		for d := range sl {
			sl[d] = hlo.SliceDim{Start: 0, Limit: rhs.Shape.Dims[d], Stride: 1}
		}
		sl[g] = hlo.SliceDim{Start: k, Limit: k + 1, Stride: 1}
		one := slices.Clone(rhs.Shape.Dims)
		one[g] = 1
		part := e.add(hlo.OpSlice, hlo.Array(rhs.Shape.Elem, one...), rhs)
		part.SetAttr("slice", sl)
		part = e.add(hlo.OpReshape, hlo.Array(rhs.Shape.Elem, rhsDims...), part)
		dot := e.add(hlo.OpDot, out, lhs, part)
		c.precision(op, dot)
		dot.SetAttr("lhs_batch_dims", hlo.Ints(lb))
		dot.SetAttr("lhs_contracting_dims", hlo.Ints(lc))
		dot.SetAttr("rhs_batch_dims", shift(rb))
		dot.SetAttr("rhs_contracting_dims", shift(rc))
		n := e.add(hlo.OpSlice, hlo.Array(dtype.S64, 1), wide)
		n.SetAttr("slice", hlo.Slice{{Start: k, Limit: k + 1, Stride: 1}})
		n = e.add(hlo.OpReshape, hlo.Scalar(dtype.S64), n)
		nb := e.add(hlo.OpBroadcast, out.WithElem(dtype.S64), n)
		nb.SetAttr("dimensions", hlo.Ints{})
		end := e.binary(hlo.OpAdd, start, nb)
		in := e.binary(hlo.OpAnd, e.compare("GE", rows, start), e.compare("LT", rows, end))
		acc = e.sel(in, dot, acc)
		start = end
	}
	return acc
}

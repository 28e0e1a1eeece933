package hlo

import (
	"fmt"
	"slices"
)

// inferScan infers the shape of scan(inputs..., inits...), dimensions={d}, num_carries=m, to_apply=f, as
// XLA's parser does (hlo_parser.cc, HloOpcode::kScan): the last m operands are the initial carries, the
// others the inputs, all of one size along d; f takes an element of each input (the input without
// dimension d) and the carries, and returns the outputs' elements and the new carries, in that order (a
// tuple, or one value when it returns only an output or only a carry). The result is the outputs, each
// with dimension d of that size inserted, then the carries: a tuple when f returns one, else the one value.
func inferScan(in *Instruction) (Shape, error) {
	op := in.Opcode
	dims := in.Ints("dimensions")
	if len(dims) != 1 {
		return Shape{}, errorf(op, "dimensions=%s must name one dimension", intsString(dims))
	}
	d := dims[0]
	m, ok := in.Int("num_carries")
	if !ok {
		return Shape{}, cannotInfer(op, "result shape", "without num_carries")
	}
	ops := in.operands
	if m < 0 || m > int64(len(ops)) {
		return Shape{}, errorf(op, "num_carries=%d with %s", m, count(len(ops), "operand", "operands"))
	}
	n := len(ops) - int(m)
	if n == 0 {
		return Shape{}, errorf(op, "has no inputs, only %s", count(int(m), "carry", "carries"))
	}
	var length int64
	for i, x := range ops[:n] {
		if err := wantArray(op, fmt.Sprintf("input %d", i), x.Shape); err != nil {
			return Shape{}, err
		}
		if d < 0 || d >= int64(x.Shape.Rank()) {
			return Shape{}, errorf(op, "dimensions={%d} is out of range for input %d %s", d, i, x.Shape.String())
		}
		if i == 0 {
			length = x.Shape.Dims[d]
		} else if x.Shape.Dims[d] != length {
			return Shape{}, errorf(op, "input %d %s has %d positions in dimension %d, input 0 has %d", i, x.Shape.String(), x.Shape.Dims[d], d, length)
		}
	}
	f, err := callee(in, "to_apply")
	if err != nil {
		return Shape{}, err
	}
	if len(f.Params) != len(ops) {
		return Shape{}, errorf(op, "the scanned function %%%s takes %d parameter%s, given %s", f.Name, len(f.Params), plural(len(f.Params)), count(len(ops), "operand", "operands"))
	}
	for i, x := range ops {
		want := x.Shape
		if i < n {
			want = deleteDim(x.Shape, int(d))
		}
		p, ok := paramShape(f, i)
		if !ok {
			return Shape{}, errorf(op, "the scanned function %%%s has no parameter %d", f.Name, i)
		}
		if !compatible(p, want) {
			what := fmt.Sprintf("an element of input %d", i)
			if i >= n {
				what = fmt.Sprintf("carry %d", i-n)
			}
			return Shape{}, errorf(op, "parameter %d of the scanned function %%%s is %s, %s is %s", i, f.Name, p.String(), what, want.String())
		}
	}
	root := f.Root.Shape
	results := []Shape{root}
	if root.IsTuple() {
		results = root.Tuple
	}
	outs := len(results) - int(m)
	if outs < 0 {
		return Shape{}, errorf(op, "the scanned function %%%s returns %s, fewer values than its %d carries", f.Name, root.String(), m)
	}
	var elems []Shape
	for i, r := range results {
		if i >= outs {
			carry := ops[n+i-outs].Shape
			if !compatible(r, carry) {
				return Shape{}, errorf(op, "the scanned function %%%s returns carry %d as %s, its initial value is %s", f.Name, i-outs, r.String(), carry.String())
			}
			elems = append(elems, r.Clone())
			continue
		}
		if !r.IsArray() || d > int64(r.Rank()) {
			return Shape{}, errorf(op, "the scanned function %%%s returns output %d as %s, which dimension %d cannot be inserted in", f.Name, i, r.String(), d)
		}
		elems = append(elems, insertDim(r, int(d), length))
	}
	if !root.IsTuple() {
		return elems[0], nil
	}
	return Tuple(elems...), nil
}

// deleteDim returns the array shape s without dimension d.
func deleteDim(s Shape, d int) Shape {
	out := Array(s.Elem, slices.Delete(slices.Clone(s.Dims), d, d+1)...)
	for i := range s.Dims {
		if s.IsDynamic(i) && i != d {
			j := i
			if i > d {
				j--
			}
			out.setDynamic(j)
		}
	}
	return out
}

// insertDim returns the array shape s with a dimension of size n inserted at d.
func insertDim(s Shape, d int, n int64) Shape {
	out := Array(s.Elem, slices.Insert(slices.Clone(s.Dims), d, n)...)
	for i := range s.Dims {
		if s.IsDynamic(i) {
			j := i
			if i >= d {
				j++
			}
			out.setDynamic(j)
		}
	}
	return out
}

// RaggedDotMode is how a ragged-dot's ragged dimension of lhs divides the product into groups (XLA's
// RaggedDotMode in ragged_dot_rewriter.cc).
type RaggedDotMode int

// The ragged-dot modes.
const (
	// RaggedNonContracting: the ragged dimension is a free dimension of lhs (rows of a mixture of
	// experts' tokens); each group of its positions multiplies the rhs of its group, which rhs_group_dims
	// names.
	RaggedNonContracting RaggedDotMode = iota
	// RaggedContracting: the ragged dimension is a contracting dimension; each group of its positions gives
	// its own product, the result's new leading dimension.
	RaggedContracting
	// RaggedBatch: the ragged dimension is a batch dimension; the result is the dot's.
	RaggedBatch
)

// RaggedDot describes a ragged-dot: its dimension numbers, mode and number of groups. ReadRaggedDot reads
// it from an instruction whose operands are set.
type RaggedDot struct {
	LHSBatch, RHSBatch, LHSContracting, RHSContracting []int64
	// LHSRagged is the ragged dimension of lhs; RHSGroup the group dimension of rhs, -1 unless the mode is
	// RaggedNonContracting.
	LHSRagged, RHSGroup int64
	Mode                RaggedDotMode
	// Groups is the number of groups: the last dimension of group_sizes.
	Groups int64
}

// ReadRaggedDot reads and checks the dimension numbers of ragged-dot(lhs, rhs, group_sizes): one ragged
// dimension of lhs; one group dimension of rhs, neither batch nor contracting, when the ragged dimension
// is free in lhs, none otherwise; group_sizes an integer array whose last dimension counts the groups (the
// rhs group dimension's size where there is one), its others those of lhs's batch dimensions, in order.
func ReadRaggedDot(in *Instruction) (*RaggedDot, error) {
	op := in.Opcode
	if err := wantOperands(in, 3); err != nil {
		return nil, err
	}
	lhs, rhs, sizes := in.operands[0].Shape, in.operands[1].Shape, in.operands[2].Shape
	for _, x := range []struct {
		name string
		s    Shape
	}{{"lhs", lhs}, {"rhs", rhs}, {"group_sizes", sizes}} {
		if err := wantArray(op, x.name, x.s); err != nil {
			return nil, err
		}
	}
	r := &RaggedDot{
		LHSBatch: in.Ints("lhs_batch_dims"), RHSBatch: in.Ints("rhs_batch_dims"),
		LHSContracting: in.Ints("lhs_contracting_dims"), RHSContracting: in.Ints("rhs_contracting_dims"), RHSGroup: -1,
	}
	ragged, group := in.Ints("lhs_ragged_dims"), in.Ints("rhs_group_dims")
	if len(ragged) != 1 {
		return nil, errorf(op, "lhs_ragged_dims=%s must name one dimension", intsString(ragged))
	}
	r.LHSRagged = ragged[0]
	if r.LHSRagged < 0 || r.LHSRagged >= int64(lhs.Rank()) {
		return nil, errorf(op, "lhs_ragged_dims=%s is out of range for the lhs %s", intsString(ragged), lhs.String())
	}
	switch {
	case slices.Contains(r.LHSContracting, r.LHSRagged):
		r.Mode = RaggedContracting
	case slices.Contains(r.LHSBatch, r.LHSRagged):
		r.Mode = RaggedBatch
	}
	if !sizes.Elem.IsInteger() || sizes.Rank() < 1 {
		return nil, errorf(op, "group_sizes %s is not an integer array", sizes.String())
	}
	r.Groups = sizes.Dims[sizes.Rank()-1]
	if r.Mode == RaggedNonContracting {
		if len(group) != 1 {
			return nil, errorf(op, "rhs_group_dims=%s must name one dimension when the ragged dimension %d is not a contracting or batch dimension of lhs", intsString(group), r.LHSRagged)
		}
		g := group[0]
		if g < 0 || g >= int64(rhs.Rank()) {
			return nil, errorf(op, "rhs_group_dims=%s is out of range for the rhs %s", intsString(group), rhs.String())
		}
		if slices.Contains(r.RHSBatch, g) || slices.Contains(r.RHSContracting, g) {
			return nil, errorf(op, "rhs_group_dims=%s names a batch or contracting dimension of the rhs %s", intsString(group), rhs.String())
		}
		if rhs.Dims[g] != r.Groups {
			return nil, errorf(op, "group_sizes %s counts %d groups, rhs group dimension %d has %d", sizes.String(), r.Groups, g, rhs.Dims[g])
		}
		r.RHSGroup = g
	} else if len(group) != 0 {
		return nil, errorf(op, "rhs_group_dims=%s must be empty when the ragged dimension %d is a contracting or batch dimension of lhs", intsString(group), r.LHSRagged)
	}
	if lead := sizes.Rank() - 1; lead > 0 {
		if lead > len(r.LHSBatch) {
			return nil, errorf(op, "group_sizes %s has more leading dimensions than lhs has batch dimensions (%d)", sizes.String(), len(r.LHSBatch))
		}
		for i := range lead {
			if d := r.LHSBatch[i]; d >= 0 && d < int64(lhs.Rank()) && sizes.Dims[i] != lhs.Dims[d] {
				return nil, errorf(op, "dimension %d of group_sizes %s has size %d, lhs batch dimension %d has %d", i, sizes.String(), sizes.Dims[i], d, lhs.Dims[d])
			}
		}
	}
	return r, nil
}

// GroupDims returns the batch and contracting dimensions of one group's rhs: RHSBatch and RHSContracting
// as they number the rhs without its group dimension, where it has one (copies), or else themselves.
func (r *RaggedDot) GroupDims() (batch, contracting []int64) {
	if r.RHSGroup < 0 {
		return r.RHSBatch, r.RHSContracting
	}
	shift := func(ds []int64) []int64 {
		out := slices.Clone(ds)
		for i, d := range out {
			if d > r.RHSGroup {
				out[i]--
			}
		}
		return out
	}
	return shift(r.RHSBatch), shift(r.RHSContracting)
}

// inferRaggedDot infers the shape of ragged-dot(lhs, rhs, group_sizes): the dot of lhs and rhs (rhs
// without its group dimension when the ragged dimension is free in lhs), with the groups as a new leading
// dimension when the ragged dimension is a contracting one (XLA's InferRaggedDotOpShape, and the HLO its
// RaggedDotRewriter writes for each mode).
func inferRaggedDot(in *Instruction) (Shape, error) {
	r, err := ReadRaggedDot(in)
	if err != nil {
		return Shape{}, err
	}
	rhs := in.operands[1]
	if r.RHSGroup >= 0 {
		rhs = &Instruction{Shape: deleteDim(rhs.Shape, int(r.RHSGroup))}
	}
	rb, rc := r.GroupDims()
	dot := &Instruction{Opcode: in.Opcode, Shape: in.Shape, operands: []*Instruction{in.operands[0], rhs}, Attrs: []Attr{
		{Name: "lhs_batch_dims", Value: Ints(r.LHSBatch)}, {Name: "rhs_batch_dims", Value: Ints(rb)},
		{Name: "lhs_contracting_dims", Value: Ints(r.LHSContracting)}, {Name: "rhs_contracting_dims", Value: Ints(rc)},
	}}
	out, err := inferDot(dot)
	if err != nil {
		return Shape{}, err
	}
	if r.Mode == RaggedContracting {
		out = insertDim(out, 0, r.Groups)
	}
	return out, nil
}

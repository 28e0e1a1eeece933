package interp

import (
	"slices"

	"octet/hlo"
)

// JAX writes a product with a weight stored the other way round as a transpose feeding a dot: Gemma's
// logits are dot(x, transpose(embedding)) with an embedding of bf16[262144,1152]. XLA's TransposeFolding
// pass (xla/hlo/transforms/simplifiers/transpose_folding.cc, FoldTransposeIntoDot) folds such a transpose
// into the dot's dimension numbers, and so does the evaluator, at compile time: the dot reads the
// transpose's operand with its batch and contracting dimensions renumbered through the permutation, and
// the transpose, which only dots read, is not evaluated. Package gemm reads the operand in place (a
// transposed view) instead of a copy moved element by element: 604 MB fewer written and read for that
// logits dot.
//
// The value is the same bits: a dot's element is the chain of fused multiply-adds over its contracting
// index in the order its dimension numbers list them, whatever the layout of the operands in memory
// (docs/numerics.md), and the renumbering keeps that order, the batch pairing and the order of the free
// dimensions (a transpose that reorders free dimensions is not folded). A fold is made only where the
// operand is then read as a view (dotPlan with no permuted copy), for results of float32 or narrower
// floats, whose products go to package gemm; the other dots copy their operands in any case.

// transposeFolding turns the folding on; tests turn it off to compare.
var transposeFolding = true

// planTransposeFolds returns, for each dot of c (compiled as k) that reads a transpose it can fold, the
// dot reading the transpose's operand instead, as a group of the transposes and the dot with the dot its
// root. A transpose is folded only where every instruction that reads it is such a dot.
func planTransposeFolds(c *hlo.Computation, k *compiled) []*elementGroup {
	// The operand slots each dot can fold, and how many slots of dots can fold each transpose.
	type slot struct{ dot, p int }
	var slots []slot
	folds := map[int]int{}
	for i, in := range c.Instructions {
		if !foldingDot(in) {
			continue
		}
		for p, j := range k.operands[i] {
			if j >= 0 && foldable(in, p, c.Instructions[j]) {
				slots = append(slots, slot{i, p})
				folds[j]++
			}
		}
	}
	// A transpose is folded where those are all the operand slots that read it.
	accepted := map[int]bool{}
	for j, n := range folds {
		t, reads := c.Instructions[j], 0
		for _, u := range t.Users() {
			for _, o := range u.Operands() {
				if o == t {
					reads++
				}
			}
		}
		accepted[j] = reads == n
	}
	var groups []*elementGroup
	for len(slots) > 0 {
		i := slots[0].dot
		in := c.Instructions[i]
		ops := slices.Clone(k.operands[i])
		var members []int
		perms := make([][]int64, 2)
		for ; len(slots) > 0 && slots[0].dot == i; slots = slots[1:] {
			p := slots[0].p
			j := k.operands[i][p]
			if !accepted[j] {
				continue
			}
			perms[p] = c.Instructions[j].Ints("dimensions")
			ops[p] = k.operands[j][0]
			if !slices.Contains(members, j) {
				members = append(members, j)
			}
		}
		if members == nil {
			continue
		}
		slices.Sort(members)
		d := foldDims(dotDimsOf(in), perms[0], perms[1])
		dot := &hlo.Instruction{Name: in.Name, Opcode: in.Opcode, Shape: in.Shape, Pos: in.Pos, Parent: c,
			Attrs: withDotDims(in.Attrs, d)}
		groups = append(groups, &elementGroup{fusion: dot, external: ops, members: append(members, i), shown: in})
	}
	return groups
}

// foldingDot reports whether in is a dot whose operands planTransposeFolds may fold: a dense dot of two
// operands giving float32 or a narrower float, which package gemm multiplies reading its operands in place.
func foldingDot(in *hlo.Instruction) bool {
	return in.Opcode == hlo.OpDot && in.NumOperands() == 2 && in.Attr("sparsity") == nil &&
		in.Shape.IsArray() && domainOf(in.Shape.Elem) == domFloat32 &&
		domainOf(in.Operand(0).Shape.Elem) == domFloat32 && domainOf(in.Operand(1).Shape.Elem) == domFloat32
}

// foldable reports whether operand p of dot, t, is a transpose the dot can read through: large enough to
// be worth it, not a value the computation returns, keeping the order of the operand's free dimensions,
// and leaving an operand package gemm reads in place.
func foldable(dot *hlo.Instruction, p int, t *hlo.Instruction) bool {
	if t.Opcode != hlo.OpTranspose || t.NumOperands() != 1 || t.IsRoot() || !t.Shape.IsArray() ||
		t.Shape.NumElements() < 2*chunkElements {
		return false
	}
	perm := t.Ints("dimensions")
	src := t.Operand(0).Shape
	if !src.IsArray() || len(perm) != len(src.Dims) || len(perm) != len(t.Shape.Dims) {
		return false
	}
	for i, q := range perm {
		if q < 0 || q >= int64(len(perm)) || src.Dims[q] != t.Shape.Dims[i] {
			return false
		}
	}
	perms := [2][]int64{}
	perms[p] = perm
	d := dotDimsOf(dot)
	f := foldDims(d, perms[0], perms[1])
	// The free dimensions keep their order.
	batch, contract := d.lhsBatch, d.lhsContract
	if p == 1 {
		batch, contract = d.rhsBatch, d.rhsContract
	}
	free, err := freeDims(len(perm), batch, contract)
	if err != nil {
		return false
	}
	for i := 1; i < len(free); i++ {
		if perm[free[i]] < perm[free[i-1]] {
			return false
		}
	}
	shapes := [2][]int64{dot.Operand(0).Shape.Dims, dot.Operand(1).Shape.Dims}
	shapes[p] = src.Dims
	plan, err := planDot(shapes[0], shapes[1], f)
	if err != nil || !slices.Equal(plan.outDims, dot.Shape.Dims) {
		return false
	}
	return p == 0 && plan.lhsPerm == nil || p == 1 && plan.rhsPerm == nil
}

// foldDims renumbers the dimension numbers d of a dot whose lhs (lhsPerm non-nil) or rhs is read through
// a transpose by that transpose's permutation: dimension i of the transpose is dimension perm[i] of its
// operand. The lists keep their order, so the batch pairing and the order of the contraction stay.
func foldDims(d dotDims, lhsPerm, rhsPerm []int64) dotDims {
	through := func(dims, perm []int64) []int64 {
		if perm == nil {
			return dims
		}
		out := make([]int64, len(dims))
		for i, x := range dims {
			out[i] = perm[x]
		}
		return out
	}
	return dotDims{through(d.lhsBatch, lhsPerm), through(d.rhsBatch, rhsPerm),
		through(d.lhsContract, lhsPerm), through(d.rhsContract, rhsPerm)}
}

// withDotDims returns attrs with the dimension numbers replaced by d.
func withDotDims(attrs []hlo.Attr, d dotDims) []hlo.Attr {
	var out []hlo.Attr
	for _, a := range attrs {
		switch a.Name {
		case "lhs_batch_dims", "rhs_batch_dims", "lhs_contracting_dims", "rhs_contracting_dims":
		default:
			out = append(out, a)
		}
	}
	for _, a := range []struct {
		name string
		dims []int64
	}{{"lhs_batch_dims", d.lhsBatch}, {"rhs_batch_dims", d.rhsBatch},
		{"lhs_contracting_dims", d.lhsContract}, {"rhs_contracting_dims", d.rhsContract}} {
		if len(a.dims) > 0 {
			out = append(out, hlo.Attr{Name: a.name, Value: hlo.Ints(a.dims)})
		}
	}
	return out
}

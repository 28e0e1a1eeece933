package interp

import (
	"octet/dtype"
	"octet/hlo"
)

// JAX computes a mean, a variance or a norm of bf16 activations in float32: reduce(convert(x)), the
// conversion read by the reduce alone (1,108 of the corpus' large bf16-to-f32 conversions are). XLA fuses
// the conversion into the reduction (an input fusion); the evaluator folds it into the reduce at compile
// time, as it folds transposes into dots (transposefold.go): the reduce reads x itself, each element its
// exact value in float32 (widens), decoded a run at a time as the reduce folds it, and the conversion,
// which only reduces read, is not evaluated: a float32 copy of x is neither written nor read. The sums
// are the same bits, since the conversion is exact and the reduce's order is its own.

// convertFolding turns the folding on; tests turn it off to compare.
var convertFolding = true

// planConvertFolds returns, for each reduce of c (compiled as k) whose input is a conversion it can fold,
// the reduce reading the conversion's operand instead, as a group of the conversion and the reduce with
// the reduce its root. A conversion is folded only where every instruction that reads it is such a
// reduce, and neither is part of another group (grouped).
func planConvertFolds(c *hlo.Computation, k *compiled, grouped map[int]bool) []*elementGroup {
	var groups []*elementGroup
	for j, cv := range c.Instructions {
		if grouped[j] || !foldableConvert(cv) {
			continue
		}
		var reduces []int
		for _, u := range cv.Users() {
			i, ok := k.index[u]
			if !ok || grouped[i] || u.Opcode != hlo.OpReduce || u.NumOperands() != 2 || u.Operand(1) == cv ||
				!u.Shape.IsArray() || u.Shape.Elem != cv.Shape.Elem {
				reduces = nil
				break
			}
			reduces = append(reduces, i)
		}
		for _, i := range reduces {
			in := c.Instructions[i]
			r := &hlo.Instruction{Name: in.Name, Opcode: in.Opcode, Shape: in.Shape, Pos: in.Pos, Parent: c, Attrs: in.Attrs}
			groups = append(groups, &elementGroup{fusion: r, external: []int{k.operands[j][0], k.operands[i][1]},
				members: []int{j, i}, shown: in})
		}
	}
	return groups
}

// foldableConvert reports whether cv is a conversion a reduce may read through: to float32 from a float
// type whose every value float32 holds exactly, large enough to be worth it, not a value the computation
// returns.
func foldableConvert(cv *hlo.Instruction) bool {
	return cv.Opcode == hlo.OpConvert && cv.NumOperands() == 1 && !cv.IsRoot() && cv.Shape.IsArray() &&
		cv.Shape.Elem == dtype.F32 && cv.Shape.NumElements() >= chunkElements &&
		cv.Operand(0).Shape.IsArray() && widens(cv.Operand(0).Shape.Elem, dtype.F32)
}

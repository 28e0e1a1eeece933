package interp

import (
	"container/heap"
	"slices"

	"octet/dtype"
	"octet/hlo"
)

// An unfused program (JAX's before_optimizations dumps, hand-written HLO) spells out elementwise chains
// instruction by instruction, each of whole arrays: an activation's GELU, a Threefry round over a large
// array, a mask made of iotas and compares. The evaluator runs such a chain as XLA's loop fusion would: a
// group of elementwise instructions of one element count whose values nothing outside the group reads
// (but the last, its root) becomes a fusion of its own, evaluated at the root by wordChunks, a chunk of
// every instruction at a time in a few reused scratch arrays, so that the intermediate arrays are never
// laid out. Each instruction computes what its own evaluator does on its range (see fusion.go), so every
// element keeps its bits. Only groups whose values are f32, bf16, s32, u32 or pred and whose every
// instruction has a word loop are made (the general chunked path would not be faster than the
// instructions one by one): bf16 values are held in the chunks as float32 words, each bf16 result
// rounded to bf16 as its instruction rounds it (see wordOf), so that a bf16 chain, or one that converts
// between bf16 and f32 as mixed precision does, keeps its bits too. An elementwise instruction without a
// word loop (a power, a conversion of floats to integers) ends a group: its value is read from outside.
// The fusion takes the root's name and position, and a profile counts the group as that one
// instruction.

// implicitFusion turns the grouping on; tests turn it off to compare.
var implicitFusion = true

// elementGroup is a group of instructions of a computation run as one instruction at its root: the
// fusion of an elementwise chain, or a dot with the transposes folded into it (transposefold.go).
type elementGroup struct {
	fusion   *hlo.Instruction // what runs at the root: the root's name, shape and position
	external []int            // the positions of its operands, in order
	members  []int            // the positions of the instructions it holds, the root last
	// shown is the instruction a profile counts the group as: the fusion, or the dot the transposes
	// were folded into (its FLOPs and bytes are the folded dot's).
	shown *hlo.Instruction
}

// groupMember reports whether in may be part of a group of n elements: an elementwise instruction with a
// word loop's opcode, a broadcast of something smaller, an iota, or a reshape or copy of its operand's
// type; none a value the computation returns (the root stays a group's root).
func groupMember(in *hlo.Instruction, n int64) bool {
	if !in.Shape.IsArray() || in.Shape.NumElements() != n || !wordType(in.Shape.Elem) || in.IsRoot() {
		return false
	}
	switch in.Opcode {
	case hlo.OpBroadcast:
		return in.NumOperands() == 1 && in.Operand(0).Shape.IsArray() && in.Operand(0).Shape.NumElements() != n
	case hlo.OpIota:
		return in.Shape.Elem != dtype.PRED && in.Shape.Elem != dtype.BF16
	case hlo.OpReshape, hlo.OpCopy:
		return in.NumOperands() == 1 && in.Operand(0).Shape.Elem == in.Shape.Elem
	}
	return groupRoot(in)
}

// groupRoot reports whether in may end a group: an elementwise instruction that computes an array of a
// word type from arrays of word types, with a word loop.
func groupRoot(in *hlo.Instruction) bool {
	if !in.Shape.IsArray() || !chunkableOp(in.Opcode) || !wordType(in.Shape.Elem) {
		return false
	}
	for _, o := range in.Operands() {
		if !o.Shape.IsArray() || !wordType(o.Shape.Elem) {
			return false
		}
	}
	k, _ := wordKernel(in, make([]bool, in.NumOperands()))
	return k != nil
}

// intHeap is a max-heap of positions.
type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] > h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// planGroups finds the groups of c (compiled as k): from the last instruction back, each that can end a
// group gathers the operands all of whose users are in the group already (taken from the highest position
// down, so that every user of an instruction is decided before it is), as long as they are of the root's
// element count. A group of fewer than two elementwise instructions, or whose fusion would not run on word
// loops, is not made.
func planGroups(c *hlo.Computation, k *compiled) []*elementGroup {
	n := len(c.Instructions)
	owner := make([]int, n) // the group (numbered from 1) an instruction is in; 0 for none
	var groups []*elementGroup
	for r := n - 1; r >= 0; r-- {
		root := c.Instructions[r]
		if owner[r] != 0 || !groupRoot(root) || root.Shape.NumElements() < 2*chunkElements {
			continue
		}
		id := len(groups) + 1
		size := root.Shape.NumElements()
		members := []int{r}
		owner[r] = id
		var h intHeap
		queued := map[int]bool{}
		push := func(i int) {
			for _, j := range k.operands[i] {
				if j >= 0 && !queued[j] && owner[j] == 0 {
					queued[j] = true
					heap.Push(&h, j)
				}
			}
		}
		push(r)
		for h.Len() > 0 {
			j := heap.Pop(&h).(int)
			x := c.Instructions[j]
			if !groupMember(x, size) {
				continue
			}
			inside := true
			for _, u := range x.Users() {
				if ui, ok := k.index[u]; !ok || owner[ui] != id {
					inside = false // read outside the group: it must be laid out
					break
				}
			}
			if !inside {
				continue
			}
			owner[j] = id
			members = append(members, j)
			push(j)
		}
		g := makeGroup(c, k, members)
		if g == nil {
			for _, j := range members {
				owner[j] = 0 // back to be looked at by later roots
			}
			owner[r] = -1 // tried
			continue
		}
		groups = append(groups, g)
	}
	return groups
}

// makeGroup makes the fusion of the instructions of c at positions members (the root first): a
// computation of clones of them (their names, attributes and positions) whose parameters are the values
// they read from outside, in order of first use, and an instruction calling it with the root's name,
// shape and position. It returns nil where the group holds fewer than two elementwise instructions or its
// computation does not run on word loops.
func makeGroup(c *hlo.Computation, k *compiled, members []int) *elementGroup {
	root := c.Instructions[members[0]]
	slices.Sort(members)
	elementwise := 0
	for _, j := range members {
		if chunkableOp(c.Instructions[j].Opcode) {
			elementwise++
		}
	}
	if elementwise < 2 {
		return nil
	}
	fc := &hlo.Computation{Name: "elementwise." + root.Name}
	clones := map[int]*hlo.Instruction{}
	params := map[int]*hlo.Instruction{}
	var external []int
	for _, j := range members {
		x := c.Instructions[j]
		ops := make([]*hlo.Instruction, len(k.operands[j]))
		for p, o := range k.operands[j] {
			if cl, ok := clones[o]; ok {
				ops[p] = cl
				continue
			}
			if params[o] == nil {
				// Added with no module, the name stays the operand's own.
				pi := fc.Add(c.Instructions[o].Name, hlo.OpParameter, c.Instructions[o].Shape)
				pi.ParameterNumber = int64(len(fc.Params))
				pi.Pos = c.Instructions[o].Pos
				fc.Params = append(fc.Params, pi)
				params[o] = pi
				external = append(external, o)
			}
			ops[p] = params[o]
		}
		cl := fc.Add(x.Name, x.Opcode, x.Shape, ops...)
		cl.Attrs, cl.Literal, cl.Pos = x.Attrs, x.Literal, x.Pos
		clones[j] = cl
	}
	fc.Root = clones[members[len(members)-1]]
	fc.Module = c.Module // positions of the clones read through the module's files
	p := planChunks(fc)
	if p == nil || !p.words {
		return nil
	}
	fusion := &hlo.Instruction{Name: root.Name, Opcode: hlo.OpFusion, Shape: root.Shape, Pos: root.Pos, Parent: c,
		Attrs: []hlo.Attr{{Name: "kind", Value: hlo.Raw("kLoop")}, {Name: "calls", Value: hlo.CompRef{Comp: fc}}}}
	return &elementGroup{fusion: fusion, external: external, members: members, shown: fusion}
}

package hlo

import "slices"

// This file holds the editing of control dependencies. An instruction lists its control predecessors in
// its control-predecessors attribute; its control successors are found from its computation's instructions
// when asked for, so that the parser and every pass that copies attributes keep one list, not two.

const controlPredecessors = "control-predecessors"

// controlState says whether the instructions of a computation list control predecessors: unknown until
// the computation is first scanned, then kept by the methods that add them (SetAttr, AddControlPredecessor
// and the builders). Code that writes a control-predecessors attribute into Attrs directly (the readers)
// does so before the computation is edited. Most computations have none, and then finding an
// instruction's control successors, which every replacement and removal does, costs nothing instead of a
// pass over the computation.
type controlState uint8

const (
	controlUnknown controlState = iota
	controlNone
	controlSome
)

// mayHaveControl reports whether some instruction of c may list control predecessors.
func (c *Computation) mayHaveControl() bool {
	if c.control == controlUnknown {
		c.control = controlNone
		for _, x := range c.Instructions {
			if x != nil && len(x.ControlPredecessors()) > 0 {
				c.control = controlSome
				break
			}
		}
	}
	return c.control == controlSome
}

// ControlSuccessors returns the instructions of in's computation that list in as a control predecessor, in
// the computation's order.
func (in *Instruction) ControlSuccessors() []*Instruction {
	c := in.Parent
	if c == nil || !c.mayHaveControl() {
		return nil
	}
	if c.succs != nil {
		// The index, in the order the edges were made, with the edges removed since and repeats left out
		// (and so left out of the index too).
		l := c.succs[in]
		succs := l[:0:0]
		seen := map[*Instruction]bool{}
		for _, x := range l {
			if !seen[x] && x.Parent == c && containsInst(x.ControlPredecessors(), in) {
				seen[x] = true
				succs = append(succs, x)
			}
		}
		if len(succs) < len(l) {
			c.succs[in] = succs
		}
		return slices.Clone(succs)
	}
	var succs []*Instruction
	for _, x := range c.Instructions {
		if x != nil && containsInst(x.ControlPredecessors(), in) {
			succs = append(succs, x)
		}
	}
	return succs
}

// IndexControlSuccessors makes ControlSuccessors of c's instructions read an index of the control
// successors, kept by the methods that give control predecessors (SetAttr, the builders,
// AddControlPredecessor and the rest), until DropControlIndex. Without it each call is a pass over the
// computation, and a pass that replaces or removes many instructions of a computation with any control
// dependency (each removal asks for the removed instruction's successors) takes time quadratic in its
// size. While the index is kept, control predecessors must be given through those methods, not by
// writing an instruction's Attrs.
func (c *Computation) IndexControlSuccessors() {
	c.succs = map[*Instruction][]*Instruction{}
	for _, x := range c.Instructions {
		c.indexControl(x)
	}
}

// DropControlIndex stops the index IndexControlSuccessors made.
func (c *Computation) DropControlIndex() { c.succs = nil }

// indexControl adds the control predecessors in lists to the index, when there is one. An edge listed
// twice, or no longer made, is left out when ControlSuccessors reads the index.
func (c *Computation) indexControl(in *Instruction) {
	if c.succs == nil || in == nil {
		return
	}
	for _, p := range in.ControlPredecessors() {
		c.succs[p] = append(c.succs[p], in)
	}
}

// AddControlPredecessor makes p a control predecessor of in: in runs after p. It does nothing when p is in
// or already listed.
func (in *Instruction) AddControlPredecessor(p *Instruction) {
	preds := in.ControlPredecessors()
	if p == nil || p == in || containsInst(preds, p) {
		return
	}
	// A new list: an attribute's value may be shared with the instruction it was copied from.
	in.SetAttr(controlPredecessors, append(append(InstList(nil), preds...), p))
}

// RemoveControlPredecessor removes p from in's control predecessors, and the attribute with its last entry.
func (in *Instruction) RemoveControlPredecessor(p *Instruction) {
	preds := in.ControlPredecessors()
	i := firstIndex(preds, p)
	if i < 0 {
		return
	}
	if len(preds) == 1 {
		in.RemoveAttr(controlPredecessors)
		return
	}
	in.SetAttr(controlPredecessors, append(append(InstList(nil), preds[:i]...), preds[i+1:]...))
}

// MoveControlDependencies gives to the control predecessors and control successors of in, and leaves in
// with none: what had to run before in runs before to, what had to run after in runs after to.
func (in *Instruction) MoveControlDependencies(to *Instruction) {
	if to == nil || to == in {
		return
	}
	for _, p := range in.ControlPredecessors() {
		to.AddControlPredecessor(p)
	}
	in.RemoveAttr(controlPredecessors)
	for _, s := range in.ControlSuccessors() {
		s.RemoveControlPredecessor(in)
		if s != to {
			s.AddControlPredecessor(to)
		}
	}
}

// DropControlDependencies removes the control dependencies of in and keeps the order they gave the
// others: each control successor of in gets in's control predecessors as its own.
func (in *Instruction) DropControlDependencies() {
	preds := in.ControlPredecessors()
	in.RemoveAttr(controlPredecessors)
	for _, s := range in.ControlSuccessors() {
		s.RemoveControlPredecessor(in)
		for _, p := range preds {
			s.AddControlPredecessor(p)
		}
	}
}

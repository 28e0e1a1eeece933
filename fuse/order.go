package fuse

import (
	"slices"

	"octet/hlo"
)

// controlFlags say, for the instructions of a computation with control dependencies, which are downstream
// of a control edge (down: the instruction or one it is computed from, or must run after, lists a control
// predecessor) and which upstream of one (up: it, or one computed from it or run after it, is a control
// predecessor). A call can only be kept on both sides of an instruction it does not compute (controlBetween)
// through a control edge on the way, which needs a member of the call downstream of a control edge and a
// member upstream of one: where either is missing there is nothing to walk, and a computation with a few
// control edges among many GEMMs is not walked once per GEMM. Both sets only grow, each instruction is
// marked at most once, and keeping them costs time linear in the computation over all its rewrites.
type controlFlags struct {
	down, up map[*hlo.Instruction]bool
}

// newControlFlags marks the instructions of c, whose list is in topological order.
func newControlFlags(c *hlo.Computation) *controlFlags {
	f := &controlFlags{down: map[*hlo.Instruction]bool{}, up: map[*hlo.Instruction]bool{}}
	for _, in := range c.Instructions {
		if len(in.ControlPredecessors()) > 0 || slices.ContainsFunc(in.Operands(), f.isDown) {
			f.down[in] = true
		}
		for _, p := range in.ControlPredecessors() {
			f.down[in] = true
			f.up[p] = true
		}
	}
	for i := len(c.Instructions) - 1; i >= 0; i-- {
		in := c.Instructions[i]
		if f.up[in] {
			for _, o := range in.Operands() {
				f.up[o] = true
			}
			for _, p := range in.ControlPredecessors() {
				f.up[p] = true
			}
		}
	}
	return f
}

func (f *controlFlags) isDown(in *hlo.Instruction) bool { return f.down[in] }

// mayOrder reports whether control edges may put an instruction between two of set: one of set is
// downstream of a control edge and one upstream of one.
func (f *controlFlags) mayOrder(set []*hlo.Instruction) bool {
	return slices.ContainsFunc(set, func(in *hlo.Instruction) bool { return f.down[in] }) &&
		slices.ContainsFunc(set, func(in *hlo.Instruction) bool { return f.up[in] })
}

// merged marks what the call that replaces set makes newly downstream or upstream of a control edge: the
// call reads what the members read and runs before what they ran before, so it is downstream of a
// control edge when one of them was, and so is everything computed from it or run after it; upstream
// likewise.
func (f *controlFlags) merged(call *hlo.Instruction, set []*hlo.Instruction) {
	if slices.ContainsFunc(set, func(in *hlo.Instruction) bool { return f.down[in] }) {
		mark(f.down, call, func(x *hlo.Instruction) []*hlo.Instruction {
			return slices.Concat(x.Users(), x.ControlSuccessors())
		})
	}
	if slices.ContainsFunc(set, func(in *hlo.Instruction) bool { return f.up[in] }) {
		mark(f.up, call, func(x *hlo.Instruction) []*hlo.Instruction {
			return slices.Concat(x.Operands(), x.ControlPredecessors())
		})
	}
}

// mark sets flag for from and everything next reaches from it, stopping at what is already set (whose
// own reach is, since a set flag is kept for everything it reaches).
func mark(flag map[*hlo.Instruction]bool, from *hlo.Instruction, next func(*hlo.Instruction) []*hlo.Instruction) {
	work := []*hlo.Instruction{from}
	flag[from] = true
	for len(work) > 0 {
		x := work[len(work)-1]
		work = work[:len(work)-1]
		for _, y := range next(x) {
			if !flag[y] {
				flag[y] = true
				work = append(work, y)
			}
		}
	}
}

// place gives the instructions a rewrite made (made: the call, what it reads that the rewrite made, and
// what carries its results) their place in pos, which the walks that prune by place (Positions.DependsOn,
// controlBetween) need to stay a topological order through operands and control edges: one place for
// all, at or after every instruction they read or run after, and before everything that reads them or
// runs after them where there is such a place: the place of last, the instruction whose value the call
// replaces, when it is one, or the nearest. Where there is none (the call runs after a control
// predecessor of one member and before a control successor of another, and the two were placed the
// other way round), what reads them or runs after them is moved up to that place, and so on down
// (follow).
func place(pos hlo.Positions, made []*hlo.Instruction, last *hlo.Instruction) {
	mine := make(map[*hlo.Instruction]bool, len(made))
	for _, in := range made {
		mine[in] = true
	}
	lo, hi := -1, -1
	for _, in := range made {
		for _, x := range slices.Concat(in.Operands(), in.ControlPredecessors()) {
			if p, ok := pos[x]; ok && !mine[x] {
				lo = max(lo, p)
			}
		}
		for _, x := range slices.Concat(in.Users(), in.ControlSuccessors()) {
			if p, ok := pos[x]; ok && !mine[x] && (hi < 0 || p < hi) {
				hi = p
			}
		}
	}
	at, ok := pos[last]
	if !ok {
		at = lo
	}
	if hi >= 0 {
		at = min(at, hi)
	}
	at = max(at, lo, 0)
	for _, in := range made {
		pos[in] = at
	}
	for _, in := range made {
		follow(pos, in, at)
	}
}

// follow moves up to at every instruction that reads from or runs after from and is placed before at,
// and so on down: the instructions that read or run after what a rewrite placed at at. Later walks that
// prune by place then still see every path: no instruction is placed before one it is computed from or
// runs after.
func follow(pos hlo.Positions, from *hlo.Instruction, at int) {
	work := []*hlo.Instruction{from}
	for len(work) > 0 {
		x := work[len(work)-1]
		work = work[:len(work)-1]
		for _, u := range slices.Concat(x.Users(), x.ControlSuccessors()) {
			if p, ok := pos[u]; ok && p < at {
				pos[u] = at
				work = append(work, u)
			}
		}
	}
}

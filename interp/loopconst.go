package interp

import (
	"octet/hlo"
)

// The constant parts of a loop's computations are evaluated once a run. An instruction of a computation
// that may run again and again (loopComputations) whose value depends on no parameter, directly or
// through its operands, and on nothing else that changes (no rng, no custom call, no transfer or
// collective, no partition or replica id, and only such instructions in what it calls) has the same
// value at every evaluation. Where such an instruction does work beyond laying out constants (anything
// but constant, iota, broadcast and the reshaping instructions, itself or below it: a reduce, a product,
// arithmetic, a compare) and is read by an instruction that is not constant, its value is kept from the
// computation's first evaluation, within the memory budget (the room the packed weights share,
// weightCache.fits), and later evaluations take it instead of computing it and the constant instructions
// only it needed. XLA hoists such work out of loops (WhileLoopInvariantCodeMotion, constant folding);
// without that, a loop of a million iterations that sums the same million elements in its body took the
// interpreter hours. The values are the same bits either way: every evaluation is deterministic.

// loopConst is what a run knows about the constant instructions of one loop computation.
type loopConst struct {
	// konst marks the constant instructions, keep those whose values are kept.
	konst, keep []bool
	// After the first evaluation (filled), vals holds the values kept (has: by instruction index), and
	// skip marks the constant instructions later evaluations do not run.
	vals   []Value
	has    []bool
	skip   []bool
	filled bool
}

// pureOpcode reports whether an instruction of opcode op computes its value from its operands and
// constants alone, the same at every evaluation, its called computations aside.
func pureOpcode(op hlo.Opcode) bool {
	switch op {
	case hlo.OpParameter, hlo.OpRng, hlo.OpRngGetAndUpdateState, hlo.OpCustomCall,
		hlo.OpPartitionId, hlo.OpReplicaId, hlo.OpAfterAll, hlo.OpAddDependency,
		hlo.OpSend, hlo.OpRecv, hlo.OpSendDone, hlo.OpRecvDone, hlo.OpInfeed, hlo.OpOutfeed,
		hlo.OpAllReduce, hlo.OpAllGather, hlo.OpAllToAll, hlo.OpReduceScatter, hlo.OpCollectivePermute,
		hlo.OpAllReduceStart, hlo.OpAllReduceDone, hlo.OpAllGatherStart, hlo.OpAllGatherDone,
		hlo.OpCollectivePermuteStart, hlo.OpCollectivePermuteDone, hlo.OpCollectiveBroadcast,
		hlo.OpRaggedAllToAll, hlo.OpCollectiveReduce, hlo.OpAsyncStart, hlo.OpAsyncUpdate, hlo.OpAsyncDone,
		hlo.OpCopyStart, hlo.OpCopyDone:
		return false
	}
	return true
}

// laysOut reports whether an instruction of opcode op only lays out its operands or a constant: not
// worth keeping on its own.
func laysOut(op hlo.Opcode) bool {
	switch op {
	case hlo.OpConstant, hlo.OpIota, hlo.OpBroadcast, hlo.OpReshape, hlo.OpBitcast, hlo.OpCopy,
		hlo.OpTranspose, hlo.OpSlice, hlo.OpTuple, hlo.OpGetTupleElement:
		return true
	}
	return false
}

// pureComputations says, for every computation of m, whether it is pure: every instruction of a pure
// opcode, calling only pure computations, and none of intercepted (which Options.Intercept sees each time
// it is evaluated).
func pureComputations(m *hlo.Module, intercepted map[*hlo.Instruction]bool) map[*hlo.Computation]bool {
	pure := map[*hlo.Computation]bool{}
	deciding := map[*hlo.Computation]bool{}
	var decide func(c *hlo.Computation) bool
	decide = func(c *hlo.Computation) bool {
		if c == nil || deciding[c] {
			return false // a missing computation, or a cycle: invalid HLO, which the evaluation refuses
		}
		if p, ok := pure[c]; ok {
			return p
		}
		deciding[c] = true
		ok := true
		for _, in := range c.Instructions {
			if in.Opcode != hlo.OpParameter && (intercepted[in] || !pureInstruction(in, decide)) {
				ok = false
				break
			}
		}
		delete(deciding, c)
		pure[c] = ok
		return ok
	}
	for _, c := range m.Computations {
		decide(c)
	}
	return pure
}

// pureInstruction reports whether in is of a pure opcode and calls only computations pure says are.
func pureInstruction(in *hlo.Instruction, pure func(*hlo.Computation) bool) bool {
	if !pureOpcode(in.Opcode) {
		return false
	}
	for _, c := range in.Called() {
		if !pure(c) {
			return false
		}
	}
	return true
}

// constantInstructions marks, by position, the instructions of c whose values depend on no parameter and
// on nothing that changes: of a pure opcode, calling pure computations, none of intercepted (which
// Options.Intercept sees every time), and reading only such instructions of c.
func constantInstructions(c *hlo.Computation, pure map[*hlo.Computation]bool, intercepted map[*hlo.Instruction]bool) []bool {
	isPure := func(x *hlo.Computation) bool { return pure[x] }
	konst := make([]bool, len(c.Instructions))
	at := make(map[*hlo.Instruction]int, len(c.Instructions))
	for i, in := range c.Instructions {
		at[in] = i
		if in.Opcode == hlo.OpParameter || intercepted[in] || !pureInstruction(in, isPure) {
			continue
		}
		konst[i] = true
		for _, o := range in.Operands() {
			if j, ok := at[o]; !ok || !konst[j] {
				konst[i] = false
				break
			}
		}
	}
	return konst
}

// planLoopConst decides which constant instructions of c to keep, or returns nil when there are none.
// The instructions of intercepted are not constant: they are evaluated every time, as Options.Intercept
// asks.
func planLoopConst(c *hlo.Computation, k *compiled, pure map[*hlo.Computation]bool, intercepted map[*hlo.Instruction]bool) *loopConst {
	n := len(c.Instructions)
	konst := constantInstructions(c, pure, intercepted)
	work := make([]bool, n) // constant, and more than laying out constants, itself or below
	for i, in := range c.Instructions {
		if konst[i] {
			work[i] = !laysOut(in.Opcode)
			for _, j := range k.operands[i] {
				work[i] = work[i] || work[j]
			}
		}
	}
	root := k.index[c.Root]
	keep := make([]bool, n)
	some := false
	for i := range c.Instructions {
		if konst[i] {
			continue
		}
		for _, j := range k.operands[i] {
			// Not the root, which the frame hands to its caller, nor a broadcast read as a view.
			if j >= 0 && konst[j] && work[j] && j != root && (k.views == nil || k.views[j] == nil) {
				keep[j], some = true, true
			}
		}
	}
	if !some {
		return nil
	}
	return &loopConst{konst: konst, keep: keep}
}

// fill takes the values kept at c's first evaluation (has: which of keep were) and decides what later
// evaluations skip: a constant instruction whose value is kept, and one that only skipped instructions
// read.
func (lc *loopConst) fill(c *hlo.Computation, k *compiled, vals []Value, has []bool) {
	n := len(c.Instructions)
	lc.vals, lc.has, lc.skip = vals, has, make([]bool, n)
	need := make([]bool, n)
	need[k.index[c.Root]] = true
	for i := n - 1; i >= 0; i-- {
		in := c.Instructions[i]
		if lc.konst[i] && (has[i] || !need[i]) {
			lc.skip[i] = true
			continue
		}
		for _, o := range in.Operands() {
			if j, ok := k.index[o]; ok {
				need[j] = true
			}
		}
	}
	lc.filled = true
}

// loopConstOf returns what the run knows about the constant instructions of c, nil when it keeps none:
// when c does not run again and again, the evaluation has no weight cache (a device of a grid, a chunk of
// a fusion), or c has no constant instruction worth keeping.
func (e *evaluator) loopConstOf(c *hlo.Computation, k *compiled) *loopConst {
	if k.loopConstDone {
		return k.loopConst
	}
	k.loopConstDone = true
	if e.weights == nil || !e.weights.loops[c] {
		return nil
	}
	var intercepted map[*hlo.Instruction]bool
	if e.opts.Intercept != nil {
		intercepted = e.opts.Intercept.Instructions
	}
	if e.pure == nil {
		e.pure = pureComputations(e.mod, intercepted)
	}
	k.loopConst = planLoopConst(c, k, e.pure, intercepted)
	return k.loopConst
}

// loopConstBound is the most memory a run of m may keep for the constant values of its loop computations:
// the results of the constant instructions they hold that an instruction not constant reads.
func loopConstBound(m *hlo.Module) int64 {
	pure := pureComputations(m, nil)
	var n int64
	for c := range loopComputations(m) {
		konst := constantInstructions(c, pure, nil)
		counted := make([]bool, len(c.Instructions))
		at := make(map[*hlo.Instruction]int, len(c.Instructions))
		for i, in := range c.Instructions {
			at[in] = i
			if konst[i] {
				continue
			}
			for _, o := range in.Operands() {
				if j, ok := at[o]; ok && konst[j] && !counted[j] {
					counted[j] = true
					n = min(n+shapeBytes(o.Shape), hugeBytes)
				}
			}
		}
	}
	return n
}

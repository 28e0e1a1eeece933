package interp

import (
	"errors"
	"fmt"
	"slices"

	"octet/dtype"
	"octet/gemm"
	"octet/hlo"
	"octet/tensor"
)

// Small programs. A JAX program's loops often carry nothing but scalars and arrays of a few elements: a
// counter, a PRNG key and the Threefry rounds that advance it, an index into a larger array. Evaluated
// instruction by instruction each of them costs a frame, a tensor and the bookkeeping of the buffers,
// hundreds of nanoseconds for one add of two u32[2]. A while, call, conditional or fusion instruction whose
// values are small arrays (smallElems elements at most, of any type but c128) and tuples of them is
// compiled once per evaluation to a list of steps on registers that hold element bits, one register per
// element, as the scalar programs of reducers are (scalarStep, whose steps these reuse element by
// element, so that every operation rounds as the instruction does):
//
//   - elementwise operations, compare, select, clamp, convert and bitcast-convert of the same width,
//     reduce-precision, is-finite: a step per element (the integer operations of PRNGs and counters, and
//     conversions, on the bits directly);
//   - constants and iotas, and what is computed from them alone without a loop (fold): registers set
//     once, from the values the evaluator gives them as the program is compiled;
//   - get-tuple-element, tuple, reshape, bitcast of one element type, copy, broadcast, transpose, slice,
//     concatenate and reverse: no step at all, the result naming the registers of its operand's
//     elements;
//   - dynamic-slice and dynamic-update-slice: a step that clamps its start indices as XLA does (a slice
//     of a large array read from its memory);
//   - call and fusion: the called computation compiled in place; while: its condition and body compiled
//     in place and run as a loop over registers that hold its state; conditional: each branch compiled
//     apart, the one chosen run;
//   - any other instruction on small arrays giving a small one (a dot, a reduce, a sort, a gather, a
//     call of a computation that is not small): a step that has the evaluator evaluate it on arrays
//     made of the registers (escape), but for custom calls, collectives and transfers.
//
// Large arrays may be carried along (a loop's state, a tuple) and read (a dynamic slice of a table, by
// an escape), and a loop's updated in place (a scan's outputs: see inPlace); no other is made or
// written: see smallProg.bigs.
//
// A register is written by one step only, but for a loop's state, which is written from its body's
// result all at once (through a copy, since the body may pass one element of the state to another). The
// results are the same bits as the evaluation instruction by instruction (FuzzSmallPrograms and
// TestSmallProgramsCorpus compare the two); the work counted against Options.MaxWork is the elements
// each instruction produces, as there, and a loop checks for cancellation as it runs. A profile counts
// such an instruction as one, its computations included.

// smallElems is the most elements an array of a small program may have; past it the evaluator's own
// loops over arrays are the faster.
const smallElems = 64

// smallMaxRegs bounds the registers (and so the size) of one program: calls compiled in place can
// multiply a module's size.
const smallMaxRegs = 1 << 16

// smallMaxInsts bounds the instructions one program compiles (those that take no register too: tuples
// of tuples passed down a chain of calls).
const smallMaxInsts = 1 << 18

// smallCheckEvery is how many iterations of a loop run between checks for cancellation.
const smallCheckEvery = 1024

var (
	errNotSmall = errors.New("not a small program")
	errTooDeep  = errors.New("computations nest too deep for a small program")
)

// sval is the value of an instruction in a small program: the registers of its elements in row-major
// order, the slot of a large array, or the values of a tuple's elements.
type sval struct {
	shape hlo.Shape
	regs  []int
	elems []sval
	big   bool
	slot  int
	// cv is the value when it is known as the program is compiled (constants, and what is computed
	// from them alone: see fold); unset, a large one has no slot, for it serves only to compute others.
	cv    *Value
	unset bool
}

// arrays calls f with every array of v, depth first.
func (v sval) arrays(f func(sval)) {
	if v.shape.IsTuple() {
		for _, x := range v.elems {
			x.arrays(f)
		}
		return
	}
	f(v)
}

// leaves returns the registers of every small array of v, depth first.
func (v sval) leaves() []int {
	var out []int
	v.arrays(func(a sval) { out = append(out, a.regs...) })
	return out
}

// slots returns the slots of every large array of v, depth first.
func (v sval) slots() []int {
	var out []int
	v.arrays(func(a sval) {
		if a.big {
			out = append(out, a.slot)
		}
	})
	return out
}

// hasBig reports whether v holds a large array; hasUnset, a large value known only to the compiler.
func (v sval) hasBig() bool {
	found := false
	v.arrays(func(a sval) { found = found || a.big })
	return found
}

func (v sval) hasUnset() bool {
	found := false
	v.arrays(func(a sval) { found = found || a.unset })
	return found
}

type smallStep func(r []uint64)

// smallProg is one instruction compiled to a small program.
type smallProg struct {
	e      *evaluator
	in     *hlo.Instruction
	regs   []uint64 // the register file: constants set once, the rest written by the steps
	steps  []smallStep
	work   int64  // elements the steps outside loops produce
	params []sval // the instruction's operands
	out    sval
	// bigs holds the large arrays: the parameters' that a loop carries along or an instruction reads
	// (a dynamic slice of a table), constants, and the copies loops make of the arrays they update in
	// place (inPlace). Nothing else writes one: what could write one in place, or pass it to what could
	// (dynamic-update-slice, scatter, a call, fusion, loop or conditional the evaluator runs), is not
	// compiled, nor an instruction that makes one. The slots of the constants are set once; the others
	// are cleared after each run, so that the program holds no array of its caller.
	bigs      []Value
	constBigs []Value // the constants' slots set, the others zero: what bigs is reset to
	// err is the first error a loop met (cancellation, the work limit); the loops stop at it.
	err error
}

// smallCompiler builds one smallProg.
type smallCompiler struct {
	p      *smallProg
	nregs  int
	nslots int
	insts  int      // instructions compiled
	depth  int      // computations being compiled, one inside the other
	consts []uint64 // value of each register set once (the rest zero)
	bigs   []Value  // value of each constant slot
	loops  []*loopCtx
	loopy  map[*hlo.Computation]bool // mayLoop's memo
}

// loopCtx is a loop whose body is being compiled: the large arrays of its state that the body updates
// in place (written), each the loop's own copy, made as the loop starts (see inPlace).
type loopCtx struct {
	body    *hlo.Computation
	param   *hlo.Instruction
	state   sval
	pos     map[*hlo.Instruction]int // the body's instructions, by position
	written map[int]bool             // slots
}

// fresh gives a value of shape s registers of its own; with big, a slot to each large array.
func (sc *smallCompiler) fresh(s hlo.Shape, big bool) (sval, error) {
	switch s.Kind {
	case hlo.TupleShape:
		v := sval{shape: s, elems: make([]sval, len(s.Tuple))}
		for i, t := range s.Tuple {
			x, err := sc.fresh(t, big)
			if err != nil {
				return sval{}, err
			}
			v.elems[i] = x
		}
		return v, nil
	case hlo.ArrayShape:
		n := s.NumElements()
		if big && (!smallType(s.Elem) || n > smallElems) {
			sc.nslots++
			return sval{shape: s, big: true, slot: sc.nslots - 1}, nil
		}
		if !smallType(s.Elem) || n > smallElems || sc.nregs+int(n) > smallMaxRegs {
			return sval{}, errNotSmall
		}
		v := sval{shape: s, regs: make([]int, n)}
		for i := range v.regs {
			v.regs[i] = sc.nregs
			sc.nregs++
		}
		return v, nil
	}
	return sval{}, errNotSmall
}

// smallType reports whether an element of type t fits a register.
func smallType(t dtype.Type) bool {
	return t == dtype.PRED || t.IsInteger() || t.IsFloat() || t == dtype.C64
}

// smallShape reports whether every array of s is small.
func smallShape(s hlo.Shape) bool {
	switch s.Kind {
	case hlo.TupleShape:
		for _, t := range s.Tuple {
			if !smallShape(t) {
				return false
			}
		}
		return true
	case hlo.ArrayShape:
		return smallType(s.Elem) && s.NumElements() <= smallElems
	}
	return false
}

// constant gives v (a value the evaluator made) fresh registers and slots set to it.
func (sc *smallCompiler) constant(s hlo.Shape, v Value) (sval, error) {
	r, err := sc.fresh(s, true)
	if err != nil {
		return sval{}, err
	}
	sc.consts = append(sc.consts, make([]uint64, sc.nregs-len(sc.consts))...)
	sc.bigs = append(sc.bigs, make([]Value, sc.nslots-len(sc.bigs))...)
	if setRegs(r, v, sc.consts, sc.bigs) != nil {
		return sval{}, errNotSmall
	}
	return r, nil
}

// compileSmall compiles instruction in (a while, call, conditional or fusion) as a small program, or
// says why not.
func (e *evaluator) compileSmall(in *hlo.Instruction) (*smallProg, error) {
	sc := &smallCompiler{p: &smallProg{e: e, in: in}}
	p := sc.p
	for _, o := range in.Operands() {
		v, err := sc.fresh(o.Shape, true)
		if err != nil {
			return nil, err
		}
		p.params = append(p.params, v)
	}
	out, err := sc.inst(in, p.params, &p.steps, &p.work)
	if err != nil {
		return nil, err
	}
	if !out.shape.Compatible(in.Shape) || out.hasUnset() {
		return nil, errNotSmall
	}
	p.out = out
	p.regs = make([]uint64, sc.nregs)
	copy(p.regs, sc.consts)
	p.constBigs = make([]Value, sc.nslots)
	copy(p.constBigs, sc.bigs)
	p.bigs = slices.Clone(p.constBigs)
	return p, nil
}

// computation compiles c in place, its parameters being args; its steps go to steps and the elements they
// produce to work.
func (sc *smallCompiler) computation(c *hlo.Computation, args []sval, steps *[]smallStep, work *int64) (sval, error) {
	e := sc.p.e
	if sc.depth >= maxCallDepth {
		return sval{}, errTooDeep // for the evaluator to report
	}
	if c == nil || c.Root == nil || len(args) != len(c.Params) || e.notSmall[c] {
		return sval{}, errNotSmall
	}
	sc.depth++
	defer func() { sc.depth-- }()
	r, err := sc.inline(c, args, steps, work)
	if err != nil {
		// Its parameters' shapes are its own: compiled anywhere else it would fail too (or, where it met
		// the depth limit, be one more computation run instruction by instruction). So a chain of calls
		// is compiled once, not once from each of its levels.
		if e.notSmall == nil {
			e.notSmall = map[*hlo.Computation]bool{}
		}
		e.notSmall[c] = true
	}
	return r, err
}

func (sc *smallCompiler) inline(c *hlo.Computation, args []sval, steps *[]smallStep, work *int64) (sval, error) {
	vals := make(map[*hlo.Instruction]sval, len(c.Instructions))
	for _, in := range c.Instructions {
		if in.Opcode == hlo.OpParameter {
			n := in.ParameterNumber
			if n < 0 || n >= int64(len(args)) || !args[n].shape.Compatible(in.Shape) {
				return sval{}, errNotSmall
			}
			vals[in] = args[n]
			continue
		}
		ops := make([]sval, in.NumOperands())
		for i, o := range in.Operands() {
			v, ok := vals[o]
			if !ok {
				return sval{}, errNotSmall
			}
			ops[i] = v
		}
		v, err := sc.inst(in, ops, steps, work)
		if err != nil {
			return sval{}, err
		}
		if !v.shape.Compatible(in.Shape) {
			return sval{}, errNotSmall // an invalid module: the evaluator says what is wrong
		}
		vals[in] = v
	}
	r, ok := vals[c.Root]
	if !ok {
		return sval{}, errNotSmall
	}
	return r, nil
}

// inst compiles one instruction whose operands are ops.
func (sc *smallCompiler) inst(in *hlo.Instruction, ops []sval, steps *[]smallStep, work *int64) (sval, error) {
	if sc.insts++; sc.insts > smallMaxInsts {
		return sval{}, errNotSmall
	}
	if sc.foldable(in, ops) {
		return sc.fold(in, ops)
	}
	for _, o := range ops {
		if o.hasUnset() {
			return sval{}, errNotSmall // a large value known only to compute others with
		}
	}
	switch in.Opcode {
	case hlo.OpConstant, hlo.OpIota, hlo.OpGetTupleElement, hlo.OpTuple, hlo.OpCopy, hlo.OpOptimizationBarrier, hlo.OpDomain,
		hlo.OpAddDependency, hlo.OpCall, hlo.OpFusion, hlo.OpWhile, hlo.OpConditional, hlo.OpDynamicUpdateSlice,
		hlo.OpScatter:
		// These may hold or pass on large arrays (an update, of a loop's state: see inPlace).
	default:
		if !smallShape(in.Shape) {
			return sval{}, errNotSmall
		}
	}
	*work += shapeElements(in.Shape)
	switch in.Opcode {
	case hlo.OpConstant, hlo.OpIota:
		v, err := sc.p.e.eval(in, nil)
		if err != nil || v.Kind != KindArray {
			return sval{}, errNotSmall
		}
		if in.Opcode == hlo.OpIota && !smallShape(in.Shape) {
			// A large iota serves only to compute others (fold); a constant's slot holds the literal.
			return sval{shape: in.Shape, big: true, slot: -1, unset: true, cv: &v}, nil
		}
		r, err := sc.constant(in.Shape, v)
		r.cv = &v
		return r, err
	case hlo.OpGetTupleElement:
		i, ok := in.Int("index")
		if len(ops) != 1 || !ok || i < 0 || i >= int64(len(ops[0].elems)) {
			return sval{}, errNotSmall
		}
		return ops[0].elems[i], nil
	case hlo.OpTuple:
		return sval{shape: in.Shape, elems: ops}, nil
	case hlo.OpCopy, hlo.OpOptimizationBarrier, hlo.OpDomain:
		if len(ops) != 1 || !ops[0].shape.Compatible(in.Shape) {
			return sval{}, errNotSmall
		}
		r := ops[0]
		r.shape = in.Shape
		return r, nil
	case hlo.OpAddDependency:
		if len(ops) != 2 || !ops[0].shape.Compatible(in.Shape) {
			return sval{}, errNotSmall
		}
		return ops[0], nil
	case hlo.OpReshape, hlo.OpBitcast:
		if len(ops) != 1 || !in.Shape.IsArray() || !ops[0].shape.IsArray() || ops[0].shape.Elem != in.Shape.Elem ||
			int64(len(ops[0].regs)) != in.Shape.NumElements() {
			return sval{}, errNotSmall
		}
		return sval{shape: in.Shape, regs: ops[0].regs}, nil
	case hlo.OpBroadcast, hlo.OpTranspose, hlo.OpSlice, hlo.OpReverse, hlo.OpConcatenate:
		if r, err := sc.move(in, ops); err != errNotSmall {
			return r, err
		}
		return sc.escape(in, ops, steps)
	case hlo.OpDynamicSlice, hlo.OpDynamicUpdateSlice:
		if r, err := sc.dynamic(in, ops, steps); err != errNotSmall {
			return r, err
		}
		return sc.escape(in, ops, steps)
	case hlo.OpCall, hlo.OpFusion:
		name := "to_apply"
		if in.Opcode == hlo.OpFusion {
			name = "calls"
		}
		if in.Opcode == hlo.OpCall && isManualComputation(in) {
			return sval{}, errNotSmall
		}
		n := len(*steps)
		r, err := sc.computation(in.CalledComputation(name), ops, steps, work)
		if err == nil && r.shape.Compatible(in.Shape) {
			return r, nil
		}
		if err == errTooDeep {
			return sval{}, err
		}
		*steps = (*steps)[:n]
		return sc.escape(in, ops, steps)
	case hlo.OpDot:
		if smallDot {
			if r, err := sc.dot(in, ops, steps); err != errNotSmall {
				return r, err
			}
		}
		return sc.escape(in, ops, steps)
	case hlo.OpScatter:
		if smallScatter {
			if r, err := sc.scatter(in, ops, steps, work); err != errNotSmall {
				return r, err
			}
		}
		return sc.escape(in, ops, steps)
	case hlo.OpWhile, hlo.OpConditional:
		compile := sc.while
		if in.Opcode == hlo.OpConditional {
			compile = sc.conditional
		}
		if r, err := compile(in, ops, steps); err != errNotSmall {
			return r, err
		}
		return sc.escape(in, ops, steps)
	}
	if in.Shape.IsArray() {
		if r, err := sc.elementwise(in, ops, steps); err != errNotSmall {
			return r, err
		}
	}
	return sc.escape(in, ops, steps)
}

// foldable reports whether in computes an array from values the compiler knows alone, the same at every
// evaluation (loopconst.go's pure instructions): then fold computes it once, as the program is
// compiled, as the evaluator keeps a loop's constant work (and XLA hoists it out of loops).
func (sc *smallCompiler) foldable(in *hlo.Instruction, ops []sval) bool {
	if len(ops) == 0 || !in.Shape.IsArray() {
		return false
	}
	for _, o := range ops {
		if o.cv == nil || o.shape.IsTuple() {
			return false
		}
	}
	e := sc.p.e
	if e.pure == nil {
		e.pure = pureComputations(e.mod, nil)
	}
	if !pureInstruction(in, func(c *hlo.Computation) bool { return e.pure[c] }) || mayLoop(in, sc.loopMemo()) {
		return false
	}
	return true
}

func (sc *smallCompiler) loopMemo() map[*hlo.Computation]bool {
	if sc.loopy == nil {
		sc.loopy = map[*hlo.Computation]bool{}
	}
	return sc.loopy
}

// mayLoop reports whether in is or calls a loop, directly or through its computations: folding it
// could run what the program never runs (a branch not taken, a body never entered) and need not end.
func mayLoop(in *hlo.Instruction, memo map[*hlo.Computation]bool) bool {
	if in.Opcode == hlo.OpWhile || in.Opcode == hlo.OpScan {
		return true
	}
	for _, c := range in.Called() {
		loops, seen := memo[c]
		if !seen {
			memo[c] = true // until known: a cycle (invalid HLO) counts as a loop
			loops = false
			for _, x := range c.Instructions {
				if mayLoop(x, memo) {
					loops = true
					break
				}
			}
			memo[c] = loops
		}
		if loops {
			return true
		}
	}
	return false
}

// fold evaluates in on its operands' known values: a small result takes constant registers, a large one
// is kept for the instructions computed from it (unset), so that a sum of a million squares of an iota in
// a loop's body is computed once and is a register.
func (sc *smallCompiler) fold(in *hlo.Instruction, ops []sval) (sval, error) {
	e := sc.p.e
	vals := make([]Value, len(ops))
	for i, o := range ops {
		vals[i] = *o.cv
	}
	save := e.current
	e.current = in
	v, err := e.eval(in, vals)
	e.current = save
	if err != nil || v.Kind != KindArray || v.Array == nil {
		return sval{}, errNotSmall // the evaluator says what is wrong when it runs it
	}
	if smallShape(in.Shape) {
		r, err := sc.constant(in.Shape, v)
		r.cv = &v
		return r, err
	}
	return sval{shape: in.Shape, big: true, slot: -1, unset: true, cv: &v}, nil
}

// escape compiles an instruction the steps above do not cover (a dot, a reduce, a scatter, a gather, a
// sort, a call whose computation is not small, ...), on small operands to a small result: its step
// makes arrays of the operands' registers and has the evaluator evaluate it, as it would instruction by
// instruction. What acts beyond its operands (custom calls, collectives, transfers) is not compiled.
func (sc *smallCompiler) escape(in *hlo.Instruction, ops []sval, steps *[]smallStep) (sval, error) {
	if in == sc.p.in {
		return sval{}, errNotSmall // the program's own instruction: the evaluator's to run
	}
	switch op := in.Opcode; {
	case op == hlo.OpRng, op == hlo.OpRngGetAndUpdateState, op == hlo.OpPartitionId, op == hlo.OpReplicaId:
		// Their values change from one evaluation to the next, but in the same order as there.
	case !pureOpcode(op): // custom calls, transfers, collectives, asynchronous pairs
		return sval{}, errNotSmall
	}
	if in.Opcode == hlo.OpCall && isManualComputation(in) {
		return sval{}, errNotSmall
	}
	update := -1 // the slot an update writes in place
	switch in.Opcode {
	case hlo.OpDynamicUpdateSlice, hlo.OpScatter, hlo.OpCall, hlo.OpFusion, hlo.OpWhile, hlo.OpConditional:
		// These may write a large operand in place, or pass it to what may: not with one the program
		// does not own, and but for an update of a loop's state (inPlace) not at all.
		for i, o := range ops {
			if !o.hasBig() {
				continue
			}
			if i > 0 || !sc.inPlace(in, o) {
				return sval{}, errNotSmall
			}
			update = o.slot
		}
	}
	var r sval
	var err error
	if update >= 0 {
		r = sval{shape: in.Shape, big: true, slot: update}
	} else if r, err = sc.fresh(in.Shape, false); err != nil {
		return sval{}, err
	}
	p := sc.p
	vals := make([]Value, len(ops))
	*steps = append(*steps, func(regs []uint64) {
		for i, o := range ops {
			vals[i] = p.store(o)
		}
		e := p.e
		save := e.current
		e.current = in
		if update >= 0 {
			e.consumable = vals[0].Array // the loop's own copy, read by nothing after this
		}
		v, err := e.eval(in, vals)
		e.consumable = nil
		if err == nil {
			err = p.load(r, v)
		}
		e.current = save
		if err != nil {
			p.fail(wrapErr(in, err))
		}
	})
	return r, nil
}

// elementwise compiles an operation of scalarStep, one step per element; an operand of one element where
// the result has more (the scalar operands select and clamp allow) is read for each.
func (sc *smallCompiler) elementwise(in *hlo.Instruction, ops []sval, steps *[]smallStep) (sval, error) {
	switch {
	case in.Opcode.IsElementwiseUnary(), in.Opcode.IsElementwiseBinary():
	case in.Opcode == hlo.OpCompare, in.Opcode == hlo.OpSelect, in.Opcode == hlo.OpClamp,
		in.Opcode == hlo.OpConvert, in.Opcode == hlo.OpBitcastConvert, in.Opcode == hlo.OpReducePrecision,
		in.Opcode == hlo.OpIsFinite:
	default:
		return sval{}, errNotSmall
	}
	r, err := sc.fresh(in.Shape, false)
	if err != nil {
		return sval{}, err
	}
	n := len(r.regs)
	types := make([]dtype.Type, len(ops))
	for j, o := range ops {
		scalar := len(o.regs) == 1 && (in.Opcode == hlo.OpSelect || in.Opcode == hlo.OpClamp)
		if !o.shape.IsArray() || o.big || len(o.regs) != n && !scalar {
			return sval{}, errNotSmall
		}
		types[j] = o.shape.Elem
	}
	if in.Opcode == hlo.OpConvert && len(ops) == 1 {
		return sc.convert(in, ops[0], r, steps)
	}
	if in.Opcode == hlo.OpBitcastConvert && in.Shape.Elem == dtype.PRED {
		return sval{}, errNotSmall // the bits become 0 or 1: the evaluator's own
	}
	args := make([]int, len(ops))
	for i := range n {
		for j, o := range ops {
			args[j] = o.regs[min(i, len(o.regs)-1)]
		}
		if step := intStep(in, r.regs[i], args, types); step != nil {
			*steps = append(*steps, step)
			continue
		}
		step, err := scalarStep(in, r.regs[i], args, types)
		if err != nil || step == nil {
			return sval{}, errNotSmall
		}
		*steps = append(*steps, step)
	}
	return r, nil
}

// intStep is scalarStep's step for the integer operations a PRNG and a loop counter are made of, on
// the element bits directly (a register holds an integer's two's complement bits, masked to its width):
// the same results as binaryInt's, without its conversions to int64 and back. nil for the others.
func intStep(in *hlo.Instruction, dst int, args []int, at []dtype.Type) smallStep {
	t := in.Shape.Elem
	if len(args) != 2 || at[0] != t || at[1] != t || !t.IsInteger() || t == dtype.PRED {
		return nil
	}
	w, mask := uint64(t.BitWidth()), intInfoOf(t).mask
	a, b := args[0], args[1]
	switch in.Opcode {
	case hlo.OpAdd:
		return func(r []uint64) { r[dst] = (r[a] + r[b]) & mask }
	case hlo.OpSubtract:
		return func(r []uint64) { r[dst] = (r[a] - r[b]) & mask }
	case hlo.OpMultiply:
		return func(r []uint64) { r[dst] = (r[a] * r[b]) & mask }
	case hlo.OpAnd:
		return func(r []uint64) { r[dst] = r[a] & r[b] }
	case hlo.OpOr:
		return func(r []uint64) { r[dst] = r[a] | r[b] }
	case hlo.OpXor:
		return func(r []uint64) { r[dst] = r[a] ^ r[b] }
	case hlo.OpShiftLeft: // a shift by the width or more gives 0
		return func(r []uint64) {
			if s := r[b]; s < w {
				r[dst] = r[a] << s & mask
			} else {
				r[dst] = 0
			}
		}
	case hlo.OpShiftRightLogical:
		return func(r []uint64) {
			if s := r[b]; s < w {
				r[dst] = r[a] >> s
			} else {
				r[dst] = 0
			}
		}
	case hlo.OpShiftRightArithmetic: // by the width or more: the sign
		return func(r []uint64) {
			v := int64(r[a]<<(64-w)) >> (64 - w)
			r[dst] = uint64(v>>min(r[b], w-1)) & mask
		}
	}
	return nil
}

// convert converts as the evaluator does, all elements at once (scalarConvert, element by element, makes
// an array for each).
func (sc *smallCompiler) convert(in *hlo.Instruction, x, r sval, steps *[]smallStep) (sval, error) {
	from, to := x.shape.Elem, in.Shape.Elem
	if domainOf(from) == domComplex || domainOf(to) == domComplex {
		return sval{}, errNotSmall
	}
	src, dst := x.regs, r.regs
	if from.IsInteger() && to.IsInteger() && to != dtype.PRED {
		// Wrapped to the width, as convertTensor's fromI64 of i64s (read as i64s reads them).
		ii, mask := intInfoOf(from), intInfoOf(to).mask
		*steps = append(*steps, func(regs []uint64) {
			for i, s := range src {
				regs[dst[i]] = uint64(ii.norm(int64(regs[s]))) & mask
			}
		})
		return r, nil
	}
	p := sc.p
	*steps = append(*steps, func([]uint64) {
		c, err := convertTensor(p.store(x).Array, to, x.shape.Dims)
		if err == nil {
			err = p.load(r, ArrayValue(c))
		}
		if err != nil {
			p.fail(err)
		}
	})
	return r, nil
}

// move compiles an instruction that only moves elements: its result names its operands' registers.
func (sc *smallCompiler) move(in *hlo.Instruction, ops []sval) (sval, error) {
	out := in.Shape.Dims
	for _, o := range ops {
		if !o.shape.IsArray() || o.big || o.shape.Elem != in.Shape.Elem {
			return sval{}, errNotSmall
		}
	}
	if len(ops) == 0 || (in.Opcode != hlo.OpConcatenate && len(ops) != 1) {
		return sval{}, errNotSmall
	}
	x := ops[0]
	xd := x.shape.Dims
	rank := len(out)
	r := sval{shape: in.Shape, regs: make([]int, in.Shape.NumElements())}
	// src gives, for the multi-index idx of the result, the register it reads (false: the instruction
	// is not one this compiles).
	var src func(idx []int64) (int, bool)
	at := func(v sval, idx []int64) int {
		var k int64
		for i, d := range v.shape.Dims {
			k = k*d + idx[i]
		}
		return v.regs[k]
	}
	switch in.Opcode {
	case hlo.OpBroadcast:
		dims := in.Ints("dimensions")
		if len(dims) != len(xd) {
			return sval{}, errNotSmall
		}
		for j, d := range dims {
			if d < 0 || d >= int64(rank) || out[d] != xd[j] {
				return sval{}, errNotSmall
			}
		}
		xi := make([]int64, len(xd))
		src = func(idx []int64) (int, bool) {
			for j, d := range dims {
				xi[j] = idx[d]
			}
			return at(x, xi), true
		}
	case hlo.OpTranspose:
		perm := in.Ints("dimensions")
		if len(perm) != rank || len(xd) != rank {
			return sval{}, errNotSmall
		}
		for i, p := range perm {
			if p < 0 || p >= int64(rank) || xd[p] != out[i] {
				return sval{}, errNotSmall
			}
		}
		xi := make([]int64, rank)
		src = func(idx []int64) (int, bool) {
			for i, p := range perm {
				xi[p] = idx[i]
			}
			return at(x, xi), true
		}
	case hlo.OpSlice:
		sl, _ := in.Attr("slice").(hlo.Slice)
		if len(sl) != len(xd) || rank != len(xd) {
			return sval{}, errNotSmall
		}
		for i, d := range sl {
			stride := max(d.Stride, 1)
			if d.Start < 0 || d.Limit > xd[i] || d.Start > d.Limit || out[i] != ceilDiv(d.Limit-d.Start, stride) {
				return sval{}, errNotSmall
			}
		}
		xi := make([]int64, rank)
		src = func(idx []int64) (int, bool) {
			for i, d := range sl {
				xi[i] = d.Start + idx[i]*max(d.Stride, 1)
			}
			return at(x, xi), true
		}
	case hlo.OpReverse:
		dims := in.Ints("dimensions")
		if !slices.Equal(xd, out) {
			return sval{}, errNotSmall
		}
		rev := make([]bool, rank)
		for _, d := range dims {
			if d < 0 || d >= int64(rank) {
				return sval{}, errNotSmall
			}
			rev[d] = !rev[d]
		}
		xi := make([]int64, rank)
		src = func(idx []int64) (int, bool) {
			for i := range idx {
				xi[i] = idx[i]
				if rev[i] {
					xi[i] = xd[i] - 1 - idx[i]
				}
			}
			return at(x, xi), true
		}
	case hlo.OpConcatenate:
		dims := in.Ints("dimensions")
		if len(dims) != 1 || dims[0] < 0 || dims[0] >= int64(rank) {
			return sval{}, errNotSmall
		}
		d := dims[0]
		var total int64
		for _, o := range ops {
			if len(o.shape.Dims) != rank {
				return sval{}, errNotSmall
			}
			for i := range rank {
				if int64(i) != d && o.shape.Dims[i] != out[i] {
					return sval{}, errNotSmall
				}
			}
			total += o.shape.Dims[d]
		}
		if total != out[d] {
			return sval{}, errNotSmall
		}
		xi := make([]int64, rank)
		src = func(idx []int64) (int, bool) {
			copy(xi, idx)
			for _, o := range ops {
				if xi[d] < o.shape.Dims[d] {
					return at(o, xi), true
				}
				xi[d] -= o.shape.Dims[d]
			}
			return 0, false
		}
	default:
		return sval{}, errNotSmall
	}
	idx := make([]int64, rank)
	for k := range r.regs {
		reg, ok := src(idx)
		if !ok {
			return sval{}, errNotSmall
		}
		r.regs[k] = reg
		nextIndex(idx, out)
	}
	return r, nil
}

// dynamic compiles dynamic-slice and dynamic-update-slice with scalar start indices.
func (sc *smallCompiler) dynamic(in *hlo.Instruction, ops []sval, steps *[]smallStep) (sval, error) {
	first := 1
	if in.Opcode == hlo.OpDynamicUpdateSlice {
		first = 2
	}
	if len(ops) < first || !in.Shape.IsArray() {
		return sval{}, errNotSmall
	}
	x := ops[0]
	xd := x.shape.Dims
	rank := len(xd)
	if !x.shape.IsArray() || x.big && (first == 2 || x.unset) || x.shape.Elem != in.Shape.Elem || len(ops)-first != rank {
		return sval{}, errNotSmall
	}
	idxRegs := make([]int, rank)
	idxDec := make([]func(uint64) int64, rank)
	for i, o := range ops[first:] {
		t := o.shape.Elem
		if !o.shape.IsScalar() || !t.IsInteger() {
			return sval{}, errNotSmall
		}
		idxRegs[i] = o.regs[0]
		dec := decInt(t)
		if t == dtype.U64 {
			idxDec[i] = func(b uint64) int64 { return int64(min(b, 1<<63-1)) }
		} else {
			idxDec[i] = dec
		}
	}
	// size is the extent of the window: the result's (dynamic-slice) or the update's.
	size := in.Shape.Dims
	var u sval
	if in.Opcode == hlo.OpDynamicUpdateSlice {
		u = ops[1]
		if !u.shape.IsArray() || u.big || u.shape.Elem != x.shape.Elem || len(u.shape.Dims) != rank ||
			!slices.Equal(in.Shape.Dims, xd) {
			return sval{}, errNotSmall
		}
		size = u.shape.Dims
	} else if sizes := in.Ints("dynamic_slice_sizes"); sizes != nil && !slices.Equal(sizes, size) {
		return sval{}, errNotSmall
	}
	if len(size) != rank {
		return sval{}, errNotSmall
	}
	for i := range size {
		if size[i] < 0 || size[i] > xd[i] {
			return sval{}, errNotSmall
		}
	}
	r, err := sc.fresh(in.Shape, false)
	if err != nil {
		return sval{}, err
	}
	xs := rowMajorStrides(xd)
	// offs[k] is element k of the window, relative to its first element in x.
	win := int64(1)
	for _, d := range size {
		win *= d
	}
	offs := make([]int64, win)
	idx := make([]int64, rank)
	for k := range offs {
		var o int64
		for i := range idx {
			o += idx[i] * xs[i]
		}
		offs[k] = o
		nextIndex(idx, size)
	}
	xr, rr, ur := x.regs, r.regs, u.regs
	update := in.Opcode == hlo.OpDynamicUpdateSlice
	p := sc.p
	*steps = append(*steps, func(regs []uint64) {
		var base int64
		for i, ir := range idxRegs {
			s := max(0, min(idxDec[i](regs[ir]), xd[i]-size[i]))
			base += s * xs[i]
		}
		if x.big { // a slice of a large array: from its memory
			t := p.bigs[x.slot].Array
			for k, o := range offs {
				regs[rr[k]] = t.BitsAt(base + o)
			}
			return
		}
		if update {
			for k, d := range rr {
				regs[d] = regs[xr[k]]
			}
			for k, o := range offs {
				regs[rr[base+o]] = regs[ur[k]]
			}
			return
		}
		for k, o := range offs {
			regs[rr[k]] = regs[xr[base+o]]
		}
	})
	return r, nil
}

// dot compiles a dot of small f32 or bf16 operands giving f32 or bf16 (the few-element products of an ODE
// solver's steps, a small network's layers in a loop) into a step: each element the chain of float32
// fused multiply-adds over its contracting positions in order from zero, rounded once to the result's
// type, as package gemm's kernels compute it (docs/numerics.md), with gemm.FMA32. Where an operand holds
// a NaN the step has the evaluator compute the dot instead: the kernels promise a NaN then, not which
// payload, and the evaluator's is the one to give.
func (sc *smallCompiler) dot(in *hlo.Instruction, ops []sval, steps *[]smallStep) (sval, error) {
	if len(ops) != 2 || in.Attr("sparsity") != nil || !in.Shape.IsArray() {
		return sval{}, errNotSmall
	}
	out := in.Shape.Elem
	lhs, rhs := ops[0], ops[1]
	for _, o := range ops {
		t := o.shape.Elem
		if !o.shape.IsArray() || o.big || t != dtype.F32 && t != dtype.BF16 || t != out && out != dtype.F32 {
			return sval{}, errNotSmall // an f32 operand of a bf16 dot is rounded first: the evaluator's
		}
	}
	if out != dtype.F32 && out != dtype.BF16 {
		return sval{}, errNotSmall
	}
	d := dotDimsOf(in)
	ld, rd := lhs.shape.Dims, rhs.shape.Dims
	p, err := planDot(ld, rd, d)
	if err != nil || !slices.Equal(p.outDims, in.Shape.Dims) {
		return sval{}, errNotSmall
	}
	lf, _ := freeDims(len(ld), d.lhsBatch, d.lhsContract)
	rf, _ := freeDims(len(rd), d.rhsBatch, d.rhsContract)
	// The registers of each element's products, in order of its contracting positions: terms[o*k+kk].
	sizes := func(dims, of []int64) []int64 {
		out := make([]int64, len(of))
		for i, x := range of {
			out[i] = dims[x]
		}
		return out
	}
	ls, rs := rowMajorStrides(ld), rowMajorStrides(rd)
	offsets := func(dims []int64, strides []int64, of []int64) []int64 { // of each position, row-major
		sz := sizes(dims, of)
		idx := make([]int64, len(of))
		var offs []int64
		for range product(sz) {
			var o int64
			for i, x := range of {
				o += idx[i] * strides[x]
			}
			offs = append(offs, o)
			nextIndex(idx, sz)
		}
		return offs
	}
	lb, rb := offsets(ld, ls, d.lhsBatch), offsets(rd, rs, d.rhsBatch)
	li, rj := offsets(ld, ls, lf), offsets(rd, rs, rf)
	lk, rk := offsets(ld, ls, d.lhsContract), offsets(rd, rs, d.rhsContract)
	k := len(lk)
	terms := make([][2]int, 0, int(p.batch*p.m*p.n)*k)
	for b := range lb {
		for _, i := range li {
			for _, j := range rj {
				for kk := range k {
					terms = append(terms, [2]int{lhs.regs[lb[b]+i+lk[kk]], rhs.regs[rb[b]+j+rk[kk]]})
				}
			}
		}
	}
	// The evaluator's dot, for operands with a NaN: its step writes the result's registers.
	var fallback []smallStep
	r, err := sc.escape(in, ops, &fallback)
	if err != nil {
		return sval{}, err
	}
	decL, decR, enc := dec32(lhs.shape.Elem), dec32(rhs.shape.Elem), enc32(out)
	*steps = append(*steps, func(regs []uint64) {
		for i, dec := range [2]func(uint64) float32{decL, decR} {
			for _, x := range ops[i].regs {
				if v := dec(regs[x]); v != v {
					fallback[0](regs)
					return
				}
			}
		}
		for o, dst := range r.regs {
			var acc float32
			for _, t := range terms[o*k : (o+1)*k] {
				acc = gemm.FMA32(decL(regs[t[0]]), decR(regs[t[1]]), acc)
			}
			regs[dst] = enc(acc)
		}
	})
	return r, nil
}

// scatter compiles a scatter of one operand by small indices and updates (JAX's x.at[i].set(v) and
// .add(v) in a loop): each update window's start from its index vector, the window left out where it
// does not fit, and each of its elements combined with the update computation, inlined, in the order of
// the updates, as the evaluator's scatter does; into registers, or in place into a large array of a loop's
// state (inPlace), which the evaluator's would also update in place.
func (sc *smallCompiler) scatter(in *hlo.Instruction, ops []sval, steps *[]smallStep, work *int64) (sval, error) {
	if len(ops) != 3 || !in.Shape.IsArray() || len(in.Ints("input_batching_dims")) > 0 ||
		len(in.Ints("scatter_indices_batching_dims")) > 0 {
		return sval{}, errNotSmall
	}
	x, idx, u := ops[0], ops[1], ops[2]
	t := in.Shape.Elem
	if !x.shape.IsArray() || x.shape.Elem != t || x.unset || !idx.shape.IsArray() || idx.big ||
		!idx.shape.Elem.IsInteger() || !u.shape.IsArray() || u.big || u.shape.Elem != t ||
		x.big && !sc.inPlace(in, x) {
		return sval{}, errNotSmall
	}
	xd, idims := x.shape.Dims, idx.shape.Dims
	ivd, _ := in.Int("index_vector_dim")
	if ivd < 0 || ivd > int64(len(idims)) {
		return sval{}, errNotSmall
	}
	vecLen := int64(1)
	if ivd < int64(len(idims)) {
		vecLen = idims[ivd]
	}
	toOperand, windowDims, inserted := in.Ints("scatter_dims_to_operand_dims"), in.Ints("update_window_dims"), in.Ints("inserted_window_dims")
	if int64(len(toOperand)) != vecLen {
		return sval{}, errNotSmall
	}
	for _, d := range toOperand {
		if d < 0 || d >= int64(len(xd)) {
			return sval{}, errNotSmall
		}
	}
	var windowOperand, scatterDims, batchDims, batchPos []int64
	for d := range int64(len(xd)) {
		if !contains(inserted, d) {
			windowOperand = append(windowOperand, d)
		}
	}
	for d := range int64(len(u.shape.Dims)) {
		if !contains(windowDims, d) {
			scatterDims = append(scatterDims, d)
		}
	}
	for d, n := range idims {
		if int64(d) != ivd {
			batchDims, batchPos = append(batchDims, n), append(batchPos, int64(d))
		}
	}
	if len(windowOperand) != len(windowDims) || len(scatterDims) != len(batchDims) {
		return sval{}, errNotSmall
	}
	winSize := make([]int64, len(xd))
	for d := range winSize {
		winSize[d] = 1
	}
	winDims := make([]int64, len(windowDims))
	for j, d := range windowDims {
		if d < 0 || d >= int64(len(u.shape.Dims)) {
			return sval{}, errNotSmall
		}
		winDims[j] = u.shape.Dims[d]
		winSize[windowOperand[j]] = winDims[j]
	}
	for i, d := range scatterDims {
		if u.shape.Dims[d] != batchDims[i] {
			return sval{}, errNotSmall
		}
	}
	// The update computation, inlined on two registers of its own.
	scalar := hlo.Array(t)
	a, err := sc.fresh(scalar, false)
	if err != nil {
		return sval{}, err
	}
	b, err := sc.fresh(scalar, false)
	if err != nil {
		return sval{}, err
	}
	var comb []smallStep
	res, err := sc.computation(in.CalledComputation("to_apply"), []sval{a, b}, &comb, work)
	if err != nil {
		return sval{}, err
	}
	if !res.shape.IsArray() || res.shape.Elem != t || len(res.regs) != 1 {
		return sval{}, errNotSmall
	}
	r := sval{shape: in.Shape, big: true, slot: x.slot}
	if !x.big {
		if r, err = sc.fresh(in.Shape, false); err != nil {
			return sval{}, err
		}
	}
	// Everything but the start of each window is known now: the registers of each index vector's
	// components and of each update element, and each window element's offset.
	xs, us, is := rowMajorStrides(xd), rowMajorStrides(u.shape.Dims), rowMajorStrides(idims)
	var xoff, uoff []int64
	w := make([]int64, len(winDims))
	for range product(winDims) {
		var xo, uo int64
		for j := range w {
			xo += w[j] * xs[windowOperand[j]]
			uo += w[j] * us[windowDims[j]]
		}
		xoff, uoff = append(xoff, xo), append(uoff, uo)
		nextIndex(w, winDims)
	}
	nb := product(batchDims)
	comps := make([]int, 0, nb*vecLen)         // index vector b's component k: comps[b*vecLen+k]
	upd := make([]int, 0, nb*int64(len(uoff))) // update b's window element j: upd[b*len(uoff)+j]
	g := make([]int64, len(batchDims))
	for range nb {
		var ib, ub int64
		for i, d := range batchPos {
			ib += g[i] * is[d]
			ub += g[i] * us[scatterDims[i]]
		}
		for k := range vecLen {
			o := ib
			if ivd < int64(len(idims)) {
				o += k * is[ivd]
			}
			comps = append(comps, idx.regs[o])
		}
		for _, uo := range uoff {
			upd = append(upd, u.regs[ub+uo])
		}
		nextIndex(g, batchDims)
	}
	dec := decInt(idx.shape.Elem)
	if idx.shape.Elem == dtype.U64 {
		dec = func(b uint64) int64 { return int64(min(b, 1<<63-1)) }
	}
	ra, rb, rres := a.regs[0], b.regs[0], res.regs[0]
	xr, rr := x.regs, r.regs
	start := make([]int64, len(xd))
	p := sc.p
	*steps = append(*steps, func(regs []uint64) {
		var big *tensor.Tensor
		if x.big {
			big = p.bigs[x.slot].Array
			inPlaceWrites.Add(1)
		} else {
			for k, d := range rr {
				regs[d] = regs[xr[k]]
			}
		}
		for bi := range nb {
			clear(start)
			for k, d := range toOperand {
				start[d] = dec(regs[comps[bi*vecLen+int64(k)]])
			}
			var base int64
			fits := true
			for d, s := range start {
				if s < 0 || s > xd[d]-winSize[d] {
					fits = false
					break
				}
				base += s * xs[d]
			}
			if !fits {
				continue
			}
			for j, xo := range xoff {
				xo += base
				if big != nil {
					regs[ra] = big.BitsAt(xo)
				} else {
					regs[ra] = regs[rr[xo]]
				}
				regs[rb] = regs[upd[bi*int64(len(xoff))+int64(j)]]
				for _, s := range comb {
					s(regs)
				}
				if big != nil {
					big.SetBitsAt(xo, regs[rres])
				} else {
					regs[rr[xo]] = regs[rres]
				}
			}
		}
	})
	return r, nil
}

// while compiles a loop: its state has registers of its own, set from the operand, then from the body's
// result after each iteration.
func (sc *smallCompiler) while(in *hlo.Instruction, ops []sval, steps *[]smallStep) (sval, error) {
	cond, body := in.CalledComputation("condition"), in.CalledComputation("body")
	if len(ops) != 1 || cond == nil || body == nil || !ops[0].shape.Compatible(in.Shape) {
		return sval{}, errNotSmall
	}
	state, err := sc.fresh(in.Shape, true)
	if err != nil {
		return sval{}, err
	}
	var condSteps, bodySteps []smallStep
	var condWork, bodyWork int64
	c, err := sc.computation(cond, []sval{state}, &condSteps, &condWork)
	if err == errTooDeep {
		return sval{}, err
	}
	if err != nil || !c.shape.IsScalar() || c.shape.Elem != dtype.PRED {
		return sval{}, errNotSmall
	}
	loop := &loopCtx{body: body, state: state, pos: map[*hlo.Instruction]int{}, written: map[int]bool{}}
	for i, x := range body.Instructions {
		loop.pos[x] = i
		if x.Opcode == hlo.OpParameter && x.ParameterNumber == 0 {
			loop.param = x
		}
	}
	sc.loops = append(sc.loops, loop)
	b, err := sc.computation(body, []sval{state}, &bodySteps, &bodyWork)
	sc.loops = sc.loops[:len(sc.loops)-1]
	if err == errTooDeep {
		return sval{}, err
	}
	if err != nil || !b.shape.Compatible(in.Shape) || b.hasUnset() {
		return sval{}, errNotSmall
	}
	init, st, next := ops[0].leaves(), state.leaves(), b.leaves()
	initS, stS, nextS := ops[0].slots(), state.slots(), b.slots()
	if len(init) != len(st) || len(next) != len(st) || len(initS) != len(stS) || len(nextS) != len(stS) {
		return sval{}, errNotSmall
	}
	condReg := c.regs[0]
	tmp := make([]uint64, len(st))
	tmpS := make([]Value, len(stS))
	p := sc.p
	work := condWork + bodyWork + 1 // the evaluator counts one more per iteration
	*steps = append(*steps, func(r []uint64) {
		for i, s := range st {
			r[s] = r[init[i]]
		}
		for i, s := range stS {
			v := p.bigs[initS[i]]
			if loop.written[s] { // the loop's own copy, which its body updates in place
				c := tensor.New(v.Array.Type, v.Array.Shape)
				copy(c.Data, v.Array.Data)
				v = ArrayValue(c)
			}
			p.bigs[s] = v
		}
		for iter := 1; ; iter++ {
			for _, s := range condSteps {
				s(r)
			}
			if r[condReg] == 0 || p.err != nil {
				return
			}
			for _, s := range bodySteps {
				s(r)
			}
			for i, n := range next {
				tmp[i] = r[n]
			}
			for i, s := range st {
				r[s] = tmp[i]
			}
			for i, n := range nextS {
				tmpS[i] = p.bigs[n]
			}
			for i, s := range stS {
				p.bigs[s] = tmpS[i]
			}
			if err := p.e.charge(work); err != nil {
				p.fail(err)
				return
			}
			if iter%smallCheckEvery == 0 && p.e.ctx != nil {
				if err := p.e.ctx.Err(); err != nil {
					p.fail(err)
					return
				}
			}
		}
	})
	return state, nil
}

// conditional compiles each branch apart; the one chosen runs and its result is copied to the
// conditional's registers.
func (sc *smallCompiler) conditional(in *hlo.Instruction, ops []sval, steps *[]smallStep) (sval, error) {
	if len(ops) < 1 || !ops[0].shape.IsScalar() {
		return sval{}, errNotSmall
	}
	sel := ops[0]
	branches := in.Called()
	pred := sel.shape.Elem == dtype.PRED
	if pred {
		tc, fc := in.CalledComputation("true_computation"), in.CalledComputation("false_computation")
		if tc == nil && len(branches) == 2 {
			tc, fc = branches[0], branches[1]
		}
		branches = []*hlo.Computation{tc, fc}
		if len(ops) != 3 {
			return sval{}, errNotSmall
		}
	} else if sel.shape.Elem != dtype.S32 || len(branches) == 0 || len(ops) != len(branches)+1 {
		return sval{}, errNotSmall
	}
	r, err := sc.fresh(in.Shape, true)
	if err != nil {
		return sval{}, err
	}
	dst, dstS := r.leaves(), r.slots()
	type branch struct {
		steps     []smallStep
		work      int64
		out, outS []int
	}
	bs := make([]branch, len(branches))
	for i, c := range branches {
		v, err := sc.computation(c, []sval{ops[i+1]}, &bs[i].steps, &bs[i].work)
		if err == errTooDeep {
			return sval{}, err
		}
		if err != nil || !v.shape.Compatible(in.Shape) || v.hasUnset() {
			return sval{}, errNotSmall
		}
		bs[i].out, bs[i].outS = v.leaves(), v.slots()
		if len(bs[i].out) != len(dst) || len(bs[i].outS) != len(dstS) {
			return sval{}, errNotSmall
		}
	}
	selReg := sel.regs[0]
	p := sc.p
	*steps = append(*steps, func(regs []uint64) {
		var i int
		if pred {
			if regs[selReg] == 0 {
				i = 1
			}
		} else if k := int64(int32(regs[selReg])); k >= 0 && k < int64(len(bs)) {
			i = int(k)
		} else {
			i = len(bs) - 1
		}
		b := &bs[i]
		for _, s := range b.steps {
			s(regs)
		}
		for j, d := range dst {
			regs[d] = regs[b.out[j]]
		}
		for j, d := range dstS {
			p.bigs[d] = p.bigs[b.outS[j]]
		}
		if err := p.e.charge(b.work); err != nil {
			p.fail(err)
		}
	})
	return r, nil
}

// inPlace reports whether update (a dynamic-update-slice or scatter) may write x, a large array of the
// state of the loop whose body is being compiled, in place: read from the body's parameter by
// get-tuple-element, read by nothing after the update but through it (any other reader of the state's
// element comes before it and gives a small value), and the update the body's next value of that element
// and nothing else's. Then the array is the loop's own copy (made as it starts), which the update's
// evaluation writes as the evaluator writes an array no one reads again.
func (sc *smallCompiler) inPlace(update *hlo.Instruction, x sval) bool {
	if len(sc.loops) == 0 || !x.big {
		return false
	}
	loop := sc.loops[len(sc.loops)-1]
	at, ok := loop.pos[update]
	g := update.Operand(0)
	if !ok || loop.param == nil || g.Opcode != hlo.OpGetTupleElement || g.Operand(0) != loop.param {
		return false
	}
	m, _ := g.Int("index")
	if m < 0 || m >= int64(len(loop.state.elems)) || !loop.state.elems[m].big || loop.state.elems[m].slot != x.slot {
		return false
	}
	for _, u := range loop.param.Users() {
		if u.Opcode != hlo.OpGetTupleElement {
			return false // the whole state passed on
		}
		if i, _ := u.Int("index"); i != m {
			continue
		}
		for _, r := range u.Users() {
			if r == update {
				continue
			}
			if p, ok := loop.pos[r]; !ok || p > at || !smallReader(r) {
				return false
			}
		}
	}
	root := loop.body.Root
	if root == nil || root.Opcode != hlo.OpTuple || int64(root.NumOperands()) != int64(len(loop.state.elems)) ||
		root.Operand(int(m)) != update {
		return false
	}
	for _, r := range update.Users() {
		if r != root && !smallReader(r) {
			return false
		}
	}
	for i, o := range root.Operands() {
		if o == update && int64(i) != m {
			return false
		}
	}
	loop.written[x.slot] = true
	return true
}

// smallReader reports whether instruction r only reads its operands, giving a small value that holds
// none of them.
func smallReader(r *hlo.Instruction) bool {
	switch r.Opcode {
	case hlo.OpTuple, hlo.OpGetTupleElement, hlo.OpCopy, hlo.OpOptimizationBarrier, hlo.OpDomain, hlo.OpAddDependency,
		hlo.OpBitcast, hlo.OpReshape, hlo.OpCall, hlo.OpFusion, hlo.OpWhile, hlo.OpConditional, hlo.OpCustomCall,
		hlo.OpDynamicUpdateSlice, hlo.OpScatter:
		return false
	}
	return smallShape(r.Shape)
}

func (p *smallProg) fail(err error) {
	if p.err == nil {
		p.err = err
	}
}

// run evaluates the program on the instruction's operands.
func (p *smallProg) run(ops []Value) (Value, error) {
	if len(ops) != len(p.params) {
		return Value{}, errNotSmall
	}
	for i, v := range ops {
		if err := p.load(p.params[i], v); err != nil {
			return Value{}, err
		}
	}
	p.err = nil
	for _, s := range p.steps {
		s(p.regs)
		if p.err != nil {
			break
		}
	}
	var v Value
	err := p.err
	if err == nil {
		err = p.e.charge(p.work)
	}
	if err == nil {
		v = p.store(p.out)
	}
	p.err = nil
	copy(p.bigs, p.constBigs)
	return v, err
}

// load sets the registers and slots of parameter s from v.
func (p *smallProg) load(s sval, v Value) error { return setRegs(s, v, p.regs, p.bigs) }

// setRegs sets the registers and slots of s from v.
func setRegs(s sval, v Value, regs []uint64, bigs []Value) error {
	if s.shape.IsTuple() {
		if v.Kind != KindTuple || len(v.Tuple) != len(s.elems) {
			return fmt.Errorf("operand is %s, not %s", v, s.shape.String())
		}
		for i, x := range s.elems {
			if err := setRegs(x, v.Tuple[i], regs, bigs); err != nil {
				return err
			}
		}
		return nil
	}
	t := v.Array
	if v.Kind != KindArray || t == nil || t.Type != s.shape.Elem || !slices.Equal(t.Shape, s.shape.Dims) {
		return fmt.Errorf("operand is %s, not %s", v, s.shape.String())
	}
	if s.big {
		bigs[s.slot] = v
		return nil
	}
	for i, r := range s.regs {
		regs[r] = t.BitsAt(int64(i))
	}
	return nil
}

// store makes the value of s from the registers.
func (p *smallProg) store(s sval) Value {
	if s.shape.IsTuple() {
		elems := make([]Value, len(s.elems))
		for i, x := range s.elems {
			elems[i] = p.store(x)
		}
		return TupleValue(elems...)
	}
	if s.big {
		return p.bigs[s.slot]
	}
	t := tensor.New(s.shape.Elem, s.shape.Dims)
	for i, r := range s.regs {
		t.SetBitsAt(int64(i), p.regs[r])
	}
	return ArrayValue(t)
}

// smallOf returns in's small program, compiling it on first use; nil when in is not one.
func (e *evaluator) smallOf(in *hlo.Instruction) *smallProg {
	if p, ok := e.small[in]; ok {
		return p
	}
	if e.small == nil {
		e.small = map[*hlo.Instruction]*smallProg{}
	}
	p, err := e.compileSmall(in)
	if err != nil {
		p = nil
	}
	e.small[in] = p
	return p
}

// trySmall evaluates in as a small program where it is one (and nothing asks to see the values of its
// instructions); ok is false where the evaluator must run it instruction by instruction.
func (e *evaluator) trySmall(in *hlo.Instruction, ops []Value) (v Value, ok bool, err error) {
	if !smallPrograms || e.opts.Intercept != nil {
		return Value{}, false, nil
	}
	p := e.smallOf(in)
	if p == nil {
		return Value{}, false, nil
	}
	v, err = p.run(ops)
	if err == errNotSmall {
		return Value{}, false, nil
	}
	if err != nil {
		return Value{}, true, wrapErr(in, err)
	}
	return v, true, nil
}

// smallPrograms turns the small programs on; tests turn them off to compare.
var smallPrograms = true

// smallScatter compiles scatters into steps of their own (scatter); tests turn it off to compare with the
// evaluator's scatter called from the program.
var smallScatter = true

// smallDot compiles dots into steps of their own (dot); tests turn it off likewise.
var smallDot = true

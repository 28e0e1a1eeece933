package interp

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

// Options control an evaluation.
type Options struct {
	// MaxMemory is the most bytes of buffers the program may need (see EstimateMemory); a program that
	// needs more is refused before it runs, with a *MemoryError naming its largest buffers. The weights
	// the run packs once (see weightCache) take no more than the room left beyond the estimate. Zero or a
	// negative value means no limit.
	MaxMemory int64
	// MaxWork stops an evaluation that exceeds this many units of work with a *WorkError: one unit per
	// element an instruction produces, per multiply-add of a dot or convolution, and per element a
	// called scalar computation (a reducer, comparator, ...) processes. Zero means no limit.
	MaxWork int64
	// Context, when set, cancels the evaluation.
	Context context.Context
	// MatMuler multiplies float32 matrices for dot and convolution instructions and the cuBLAS custom calls;
	// nil means package gemm's kernels.
	MatMuler MatMuler
	// Threads is the most goroutines the interpreter's own loops (convolution windows, elementwise
	// instructions, reductions, random inputs) run on at once; zero means GOMAXPROCS. Results do not depend
	// on it. Package gemm's products use gemm.Threads().
	Threads int
	// Profile, when set, receives the time and the work of every instruction evaluated (see Profile).
	Profile *Profile
	// Intercept, when set, shows its function the values of its instructions and may replace them.
	Intercept *Intercept
}

// Intercept shows Func the value of each of Instructions each time the evaluation computes it, in the order
// it computes them (a computation's instructions once per call of it, a while body's once per iteration),
// and lets it replace the value: what Func returns is the instruction's, and must have its shape. A tool
// that compares two programs uses it to record values deep inside one and to substitute them in the
// other. The value Func sees belongs to the evaluation, which reuses its memory once the instruction's
// users have run and may share it with other values: keep a copy (Value.Clone), and do not change it. A
// broadcast the evaluation holds as a view of its operand is shown in full, and cannot be replaced. The
// evaluation of a fusion a chunk at a time does not call Func for the instructions of the fusion's
// computation, and one of Instructions evaluated on each device of a grid (a program of collectives, a
// shard_map body) ends the evaluation with an error.
type Intercept struct {
	Instructions map[*hlo.Instruction]bool
	Func         func(in *hlo.Instruction, v Value) (Value, error)
}

// ErrInternal is wrapped by the error Run returns for a failure of the interpreter itself (a recovered
// panic), which no input should cause.
var ErrInternal = errors.New("internal error")

// Run evaluates the entry computation of m with the given arguments, one per entry parameter, and
// returns its result. Each argument must have its parameter's shape (layouts aside).
func Run(m *hlo.Module, args []Value, opts Options) (result Value, err error) {
	if m == nil || m.Entry == nil {
		return Value{}, errors.New("the module has no entry computation")
	}
	entry := m.Entry
	if len(args) != len(entry.Params) {
		return Value{}, fmt.Errorf("%s takes %d arguments, given %d", entry.Name, len(entry.Params), len(args))
	}
	for i, p := range entry.Params {
		if p == nil {
			return Value{}, fmt.Errorf("%s has no parameter %d", entry.Name, i)
		}
		if err := args[i].Fits(p.Shape); err != nil {
			return Value{}, fmt.Errorf("argument %d (parameter %%%s): %v", i, p.Name, err)
		}
	}
	est, err := checkMemory(m, opts)
	if err != nil {
		return Value{}, err
	}
	// What the packed weights and the loops' constant values may take: what they could need at most,
	// within what the budget leaves.
	room := min(est.PackedWeights+est.LoopConstants, hugeBytes)
	if opts.MaxMemory > 0 {
		room = min(room, opts.MaxMemory-est.Bytes)
	}
	e := &evaluator{mod: m, opts: opts, gemm: opts.MatMuler, comps: map[*hlo.Computation]*compiled{},
		threads: threadsFor(opts), buffers: newBuffers(m, opts), weights: newWeightCache(args, room)}
	e.weights.loops = loopComputations(m)
	if e.gemm == nil {
		e.gemm = defaultMatMuler{}
	}
	if opts.Context != nil {
		e.ctx = opts.Context
	}
	if p := opts.Profile; p != nil {
		p.begin()
		defer p.end()
	}
	defer func() {
		if r := recover(); r != nil {
			name := "?"
			if e.current != nil {
				name = e.current.Name
			}
			err = &Error{Pos: position(e.current), Inst: name,
				Err: fmt.Errorf("%w: %v\n%s", ErrInternal, r, debug.Stack())}
		}
	}()
	defer e.buffers.retire()
	if result, err = e.call(entry, args); err != nil {
		return Value{}, err
	}
	return unshare(unshareConstants(m, result), sharedWorkspaces()), nil
}

// CheckMemory returns a *MemoryError when the buffers evaluating m needs (EstimateMemory) exceed
// opts.MaxMemory. Run checks this itself; callers that build large inputs check it first.
func CheckMemory(m *hlo.Module, opts Options) error {
	_, err := checkMemory(m, opts)
	return err
}

// checkMemory is CheckMemory, which returns the estimate as well.
func checkMemory(m *hlo.Module, opts Options) (MemoryEstimate, error) {
	est := EstimateMemory(m)
	if limit := opts.MaxMemory; limit > 0 && est.Bytes > limit {
		return est, &MemoryError{Need: est.Bytes, Limit: limit, Largest: est.Largest}
	}
	return est, nil
}

// evaluator is the state of one Run.
type evaluator struct {
	mod     *hlo.Module
	opts    Options
	gemm    MatMuler
	threads int // goroutines for the interpreter's own loops
	buffers *buffers
	ctx     context.Context
	work    int64
	current *hlo.Instruction
	comps   map[*hlo.Computation]*compiled
	depth   int
	// weights are the packed weights of the run (nil for none: the evaluation of one device of a grid,
	// of a chunk of a fusion).
	weights *weightCache
	// rngCalls counts rng evaluations (each draws a fresh stream); rngStateLo is the state
	// rng-get-and-update-state hands out.
	rngCalls   uint64
	rngStateLo uint64
	// probes holds the values each interpreter.probe recorded, by probe id, in the order it ran.
	probes map[string][]Value
	// dev is the device of a grid this evaluation runs on (RunParallelTarget); nil for one device.
	dev *device
	// unprofiled is set while an instruction that a Profile times as a whole runs its called computations;
	// nested is the time of the instructions profiled inside the one running.
	unprofiled bool
	nested     time.Duration
	nestedCPU  time.Duration
	// pure says which computations are pure (pureComputations), made when a loop computation first runs.
	pure map[*hlo.Computation]bool
	// consumable is, while an instruction that updates its first operand runs (dynamic-update-slice,
	// scatter), that operand's array when no one will read it again (inPlace): the instruction may write
	// its result into it instead of a copy.
	consumable *tensor.Tensor
	// donate marks, while a fusion or call runs, the operands whose references its frame passes to the
	// called computation (donations): their arrays are read by no one else, so what updates them there may
	// do so in place. The instruction's evaluator takes it (takeDonate) to pass to callFrame; the frame
	// drops the references the called frame did not take.
	donate []bool
	// expanded holds the computations written for instructions that XLA expands before running them
	// (batch-norm-training, -inference and -grad), by instruction.
	expanded map[*hlo.Instruction]*hlo.Computation
	// small holds the small programs of while, call, conditional and fusion instructions (small.go), nil
	// for those that are not one.
	small map[*hlo.Instruction]*smallProg
	// notSmall marks the computations that cannot be part of a small program.
	notSmall map[*hlo.Computation]bool
}

// compiled is what the evaluator precomputes about a computation.
type compiled struct {
	index    map[*hlo.Instruction]int
	lastUse  []int   // per instruction, the position of its last user (-1: none)
	operands [][]int // per instruction, the positions of its operands (-1: not in the computation)
	// scalar is the computation as a program over scalars, built on first use by a reduce, sort, map or
	// scatter; scalarErr says why it cannot be one.
	scalar     *scalarProg
	scalarErr  error
	scalarDone bool
	// chunk is the computation's plan as an elementwise fusion (planChunks), nil when it is not one.
	chunk     *chunkPlan
	chunkDone bool
	// views holds, per instruction, the index map of a broadcast read as a view (nil for the others), and
	// viewUsers marks the instructions that read one; both nil when there is none (see views.go).
	views     []*bcastView
	viewUsers []bool
	// loopConst is what the run keeps of the computation's constant instructions (loopconst.go), nil for
	// nothing; loopConstDone says it was decided.
	loopConst     *loopConst
	loopConstDone bool
	// fused holds, per instruction, what a group runs as at its root: the fusion of elementwise
	// instructions (groups.go), a dot with transposes folded into it (transposefold.go); shown what a
	// profile counts it as. skip marks the group's other instructions, which the frame does not evaluate.
	// All nil when there is no group; the root's operands are the fusion's.
	fused []*hlo.Instruction
	shown []*hlo.Instruction
	skip  []bool
}

func (e *evaluator) compile(c *hlo.Computation) *compiled {
	if k := e.comps[c]; k != nil {
		return k
	}
	k := &compiled{index: make(map[*hlo.Instruction]int, len(c.Instructions)), lastUse: make([]int, len(c.Instructions)),
		operands: make([][]int, len(c.Instructions))}
	for i, in := range c.Instructions {
		k.index[in] = i
		k.lastUse[i] = -1
	}
	for i, in := range c.Instructions {
		k.operands[i] = make([]int, in.NumOperands())
		for p, o := range in.Operands() {
			j, ok := k.index[o]
			if !ok {
				j = -1
			} else {
				k.lastUse[j] = i
			}
			k.operands[i][p] = j
		}
	}
	if e.opts.Intercept == nil {
		var groups []*elementGroup
		if implicitFusion {
			groups = planGroups(c, k)
		}
		if transposeFolding {
			groups = append(groups, planTransposeFolds(c, k)...)
		}
		if convertFolding {
			grouped := map[int]bool{}
			for _, g := range groups {
				for _, m := range g.members {
					grouped[m] = true
				}
			}
			groups = append(groups, planConvertFolds(c, k, grouped)...)
		}
		k.applyGroups(c, groups)
	}
	k.planViews(c)
	e.comps[c] = k
	return k
}

// applyGroups makes each group's root evaluate its fusion, on the group's operands, and its other
// instructions be skipped; the last uses follow.
func (k *compiled) applyGroups(c *hlo.Computation, groups []*elementGroup) {
	if len(groups) == 0 {
		return
	}
	n := len(c.Instructions)
	k.fused, k.shown, k.skip = make([]*hlo.Instruction, n), make([]*hlo.Instruction, n), make([]bool, n)
	for _, g := range groups {
		r := g.members[len(g.members)-1]
		for _, j := range g.members[:len(g.members)-1] {
			k.skip[j] = true
			k.operands[j] = nil
		}
		k.fused[r], k.shown[r] = g.fusion, g.shown
		k.operands[r] = g.external
	}
	for i := range k.lastUse {
		k.lastUse[i] = -1
	}
	for i, ops := range k.operands {
		for _, j := range ops {
			if j >= 0 {
				k.lastUse[j] = i
			}
		}
	}
}

// grouped reports whether instruction i is part of a group, its root or another.
func (k *compiled) grouped(i int) bool {
	return k.skip != nil && (k.skip[i] || k.fused[i] != nil)
}

// charge counts n units of work against Options.MaxWork.
func (e *evaluator) charge(n int64) error {
	e.work += n
	if e.opts.MaxWork > 0 && e.work > e.opts.MaxWork {
		in := e.current
		we := &WorkError{Limit: e.opts.MaxWork}
		if in != nil {
			we.Inst, we.Pos = in.Name, position(in)
		}
		return we
	}
	return nil
}

// maxCallDepth bounds how deeply computations may call each other during one evaluation. Valid HLO never
// recurses (the verifier rejects it), so the depth is at most the number of computations; the bound keeps
// the evaluator, which calls itself once per level, well inside the goroutine stack limit.
const maxCallDepth = 10000

// call evaluates computation c on args. The arrays of its result leave the evaluation's care: they are
// never recycled.
func (e *evaluator) call(c *hlo.Computation, args []Value) (Value, error) {
	return e.callFrame(c, args, false, nil)
}

// callInto evaluates computation c on args for an instruction whose value is the result, as a call is:
// the arrays of the result stay in the evaluation's care, so that the frame which then holds them
// recycles them after their last use.
func (e *evaluator) callInto(c *hlo.Computation, args []Value) (Value, error) {
	return e.callFrame(c, args, true, nil)
}

// callFrame is call, or with handOver callInto. Where donated[n] is true, the caller's references to the
// arrays of args[n] pass to the frame, which releases them as it does its own values (a loop's state to
// its body, an operand no one reads again to a fusion), and sets donated[n] to false; where it cannot
// take one (its parameter is intercepted), it leaves it true, for the caller to drop.
func (e *evaluator) callFrame(c *hlo.Computation, args []Value, handOver bool, donated []bool) (Value, error) {
	if c == nil {
		return Value{}, errors.New("call of a missing computation")
	}
	if len(args) != len(c.Params) {
		return Value{}, fmt.Errorf("computation %s takes %d arguments, given %d", c.Name, len(c.Params), len(args))
	}
	if c.Root == nil {
		return Value{}, fmt.Errorf("computation %s has no root", c.Name)
	}
	e.depth++
	defer func() { e.depth-- }()
	if e.depth > maxCallDepth {
		return Value{}, fmt.Errorf("computations nest more than %d deep", maxCallDepth)
	}
	for i, p := range c.Params {
		if p == nil {
			return Value{}, fmt.Errorf("computation %s has no parameter %d", c.Name, i)
		}
		if err := args[i].Fits(p.Shape); err != nil {
			return Value{}, fmt.Errorf("argument %d of computation %s: %v", i, c.Name, err)
		}
	}
	k := e.compile(c)
	vals := make([]Value, len(c.Instructions))
	// The constant instructions of a loop computation: kept at its first evaluation, skipped after.
	lc := e.loopConstOf(c, k)
	var kept []Value
	var has []bool
	if lc != nil && !lc.filled {
		kept, has = make([]Value, len(c.Instructions)), make([]bool, len(c.Instructions))
	}
	var ops []Value
	for i, in := range c.Instructions {
		if e.ctx != nil {
			if err := e.ctx.Err(); err != nil {
				return Value{}, err
			}
		}
		if k.skip != nil && k.skip[i] {
			continue // computed by its group's fusion, at the root
		}
		if lc != nil && lc.filled && lc.skip[i] {
			if lc.has[i] {
				vals[i] = lc.vals[i]
				e.buffers.retain(vals[i])
			}
			continue
		}
		if in.Opcode == hlo.OpParameter {
			n := in.ParameterNumber
			if n < 0 || n >= int64(len(args)) {
				return Value{}, errorf(in, "parameter %d of a computation called with %d arguments", n, len(args))
			}
			vals[i] = args[n]
			inherit := int(n) < len(donated) && donated[n] // the frame takes the caller's reference
			if ic := e.opts.Intercept; ic != nil && ic.Instructions[in] {
				v, err := e.intercept(in, nil, vals[i], nil)
				if err != nil {
					return Value{}, wrapErr(in, err)
				}
				// The value given may be another: the frame holds a reference of its own, and a donated
				// one stays the caller's to drop.
				vals[i], inherit = v, false
			}
			if inherit {
				donated[n] = false // taken: the caller need not drop it
			} else {
				e.buffers.retain(vals[i])
			}
			continue
		}
		ops = ops[:0]
		for p, j := range k.operands[i] {
			if j < 0 {
				return Value{}, errorf(in, "operand %%%s is not in computation %s", in.Operand(p).Name, c.Name)
			}
			ops = append(ops, vals[j])
		}
		save := e.current
		e.current = in
		e.consumable = nil
		e.donate = nil
		var donated []bool
		switch in.Opcode {
		case hlo.OpDynamicUpdateSlice, hlo.OpScatter:
			e.consumable = inPlace(e.buffers, k, c, i, vals)
		case hlo.OpFusion, hlo.OpCall:
			if donated = donations(e.buffers, k, c, i, vals); donated != nil {
				for p, d := range donated {
					if d {
						vals[k.operands[i][p]] = Value{} // its reference passes to the call
					}
				}
				e.donate = donated
			}
		}
		var v Value
		var err error
		vs := k.viewsAt(in, i)
		run, shown := in, in
		if k.fused != nil && k.fused[i] != nil {
			run, shown = k.fused[i], k.shown[i]
		}
		if e.opts.Profile != nil && !e.unprofiled {
			v, err = e.evalProfiled(run, shown, ops, vs)
		} else {
			v, err = e.evalWith(run, ops, vs)
		}
		if ic := e.opts.Intercept; err == nil && ic != nil && ic.Instructions[in] {
			v, err = e.intercept(in, ops, v, vs)
		}
		e.consumable, e.donate = nil, nil
		if err == nil {
			err = e.charge(elementCount(v))
		}
		e.current = save
		if err != nil {
			return Value{}, wrapErr(in, err)
		}
		vals[i] = v
		e.buffers.retain(v)
		// The donated references the called frame did not take (an elementwise fusion run by chunks, a
		// manual computation) are dropped, now that the result holds its own.
		for p, d := range donated {
			if d {
				e.buffers.release(ops[p])
			}
		}
		if kept != nil && lc.keep[i] && e.weights.fits(v.ByteSize()) {
			e.buffers.escape(v) // kept for the run: never recycled
			kept[i], has[i] = v, true
		}
		// Release the operands this instruction used last.
		for _, j := range k.operands[i] {
			if k.lastUse[j] == i && c.Instructions[j] != c.Root && (vals[j].Kind != KindArray || vals[j].Array != nil) {
				e.buffers.release(vals[j])
				vals[j] = Value{}
			}
		}
	}
	if kept != nil {
		lc.fill(c, k, kept, has)
	}
	root := k.index[c.Root]
	result := vals[root]
	if handOver {
		// The frame's reference to the result passes to the instruction's frame, which takes its own as
		// soon as this returns.
		vals[root] = Value{}
	} else {
		e.buffers.escape(result)
	}
	for _, v := range vals {
		e.buffers.release(v)
	}
	if handOver {
		e.buffers.disown(result)
	}
	return result, nil
}

// intercept hands v, the value of in (computed from ops, with the views vs), to Options.Intercept and
// returns what it gives back, which must fit in's shape.
func (e *evaluator) intercept(in *hlo.Instruction, ops []Value, v Value, vs *instViews) (Value, error) {
	view := vs != nil && vs.self
	full := v
	if view {
		var err error
		if full, err = e.eval(in, ops); err != nil {
			return Value{}, err
		}
	}
	w, err := e.opts.Intercept.Func(in, full)
	switch {
	case err != nil:
		return Value{}, err
	case view && (w.Kind != KindArray || w.Array != full.Array):
		return Value{}, errors.New("a broadcast held as a view of its operand cannot be given another value")
	case view:
		return v, nil
	}
	if err := w.Fits(in.Shape); err != nil {
		return Value{}, fmt.Errorf("the value given in place of its own: %v", err)
	}
	return w, nil
}

// takeDonate returns the operands the frame donates to the instruction running (e.donate) and clears
// them: a donation is taken once.
func (e *evaluator) takeDonate() []bool {
	d := e.donate
	e.donate = nil
	return d
}

// wrapErr positions an error at in, unless it already is one of the package's positioned errors (from an
// instruction of a called computation) or a budget error.
func wrapErr(in *hlo.Instruction, err error) error {
	var ie *Error
	var we *WorkError
	var me *MemoryError
	if errors.As(err, &ie) || errors.As(err, &we) || errors.As(err, &me) {
		return err
	}
	return errorf(in, "%w", err) // errors.Is still finds a cancelled or expired context
}

func elementCount(v Value) int64 {
	switch v.Kind {
	case KindArray:
		if v.Array == nil {
			return 0
		}
		return v.Array.NumElements()
	case KindTuple:
		var n int64
		for _, x := range v.Tuple {
			n += elementCount(x)
		}
		return n
	}
	return 0
}

// arrays returns the tensors of operand values that must all be arrays.
func arrays(in *hlo.Instruction, ops []Value) ([]*tensor.Tensor, error) {
	ts := make([]*tensor.Tensor, len(ops))
	for i, v := range ops {
		if v.Kind != KindArray || v.Array == nil {
			return nil, errorf(in, "operand %d is %s, not an array", i, v)
		}
		ts[i] = v.Array
	}
	return ts, nil
}

// eval evaluates one instruction whose operands have the values ops.
func (e *evaluator) eval(in *hlo.Instruction, ops []Value) (Value, error) {
	switch in.Opcode {
	case hlo.OpWhile, hlo.OpCall, hlo.OpConditional, hlo.OpFusion:
		if v, ok, err := e.trySmall(in, ops); ok {
			return v, err
		}
	}
	if f := evaluatorOf(in.Opcode); f != nil {
		return f(e, in, ops)
	}
	return Value{}, unsupportedf(in, "%s", describeOp(in))
}

// evalWith is eval where broadcasts are read as views (vs, nil where none is involved): a broadcast
// read as one has its operand as its value, and an instruction that reads one runs evalViews.
func (e *evaluator) evalWith(in *hlo.Instruction, ops []Value, vs *instViews) (Value, error) {
	switch {
	case vs == nil:
		return e.eval(in, ops)
	case vs.self:
		if len(ops) != 1 || ops[0].Kind != KindArray {
			return Value{}, errorf(in, "broadcast of a tuple")
		}
		return ops[0], nil
	}
	return e.evalViews(in, ops, vs.operands)
}

// evalProfiled is evalWith, timed for the Profile, which counts it as instruction shown.
func (e *evaluator) evalProfiled(in, shown *hlo.Instruction, ops []Value, vs *instViews) (Value, error) {
	p := e.opts.Profile
	outer, outerCPU := e.nested, e.nestedCPU
	e.nested, e.nestedCPU = 0, 0
	e.unprofiled = !controlFlow(in.Opcode)
	var cpu0 time.Duration
	if p.CPUClock != nil {
		cpu0 = p.CPUClock()
	}
	consumable := e.consumable // before the instruction's own calls change it
	start := time.Now()
	v, err := e.evalWith(in, ops, vs)
	d := time.Since(start)
	var cpu time.Duration
	if p.CPUClock != nil {
		cpu = p.CPUClock() - cpu0
	}
	e.unprofiled = false
	inPlace := consumable != nil && err == nil && v.Kind == KindArray && key(v.Array) == key(consumable)
	p.add(shown, d-e.nested, cpu-e.nestedCPU, vs == nil || !vs.self, inPlace)
	e.nested, e.nestedCPU = outer+d, outerCPU+cpu
	return v, err
}

// describeOp names an instruction's operation for an "unsupported" message.
func describeOp(in *hlo.Instruction) string {
	switch in.Opcode {
	case hlo.OpCustomCall:
		t := in.CustomCallTarget()
		if len(t) > 200 {
			t = t[:200] + "..." // a message names the target, not all of a hostile one
		}
		return fmt.Sprintf("custom-call %q", t)
	case hlo.OpAllReduce, hlo.OpAllGather, hlo.OpAllToAll, hlo.OpReduceScatter, hlo.OpCollectivePermute,
		hlo.OpAllReduceStart, hlo.OpAllGatherStart, hlo.OpCollectivePermuteStart, hlo.OpCollectiveBroadcast,
		hlo.OpRaggedAllToAll, hlo.OpAllReduceDone, hlo.OpAllGatherDone, hlo.OpCollectivePermuteDone,
		hlo.OpCollectiveReduce:
		return "collective " + in.Opcode.String() + " (the interpreter runs one device)"
	case hlo.OpSend, hlo.OpRecv, hlo.OpSendDone, hlo.OpRecvDone, hlo.OpInfeed, hlo.OpOutfeed:
		return "host transfer " + in.Opcode.String()
	}
	return in.Opcode.String()
}

// while evaluates a while loop: body runs while condition gives true.
func (e *evaluator) while(in *hlo.Instruction, ops []Value) (Value, error) {
	cond, body := in.CalledComputation("condition"), in.CalledComputation("body")
	if cond == nil || body == nil || len(ops) != 1 {
		return Value{}, errorf(in, "while needs one operand, a condition and a body")
	}
	// The loop holds its state as a frame holds a value: it passes its reference to each evaluation of
	// the body, whose result stays in the evaluation's care, and hands the last one to its own frame. So
	// an array of the state that the body updates (a dynamic-update-slice or scatter of a loop-carried
	// array, as a decode loop's cache) is written in place from the second iteration on, the first reading
	// the loop's operand, which its frame still holds.
	state := ops[0]
	e.buffers.retain(state)
	for {
		c, err := e.call(cond, []Value{state})
		if err != nil {
			return Value{}, err
		}
		if c.Kind != KindArray || c.Array.Type != dtype.PRED || c.Array.NumElements() != 1 {
			return Value{}, errorf(in, "condition %s returned %s, not pred[]", cond.Name, c)
		}
		if c.Array.Data[0] == 0 {
			e.buffers.disown(state)
			return state, nil
		}
		prev, donated := state, []bool{true}
		if state, err = e.callFrame(body, []Value{prev}, true, donated); err != nil {
			return Value{}, err
		}
		e.buffers.retain(state)
		if donated[0] {
			e.buffers.release(prev) // the body did not take the reference (an intercepted parameter)
		}
		if err := e.charge(1); err != nil {
			return Value{}, err
		}
	}
}

// conditional evaluates one branch: true_computation/false_computation on a pred, or
// branch_computations[index] on an s32 index (out of range: the last branch).
func (e *evaluator) conditional(in *hlo.Instruction, ops []Value) (Value, error) {
	if len(ops) < 1 || ops[0].Kind != KindArray || ops[0].Array.NumElements() != 1 {
		return Value{}, errorf(in, "conditional needs a scalar selector")
	}
	sel := ops[0].Array
	var branch *hlo.Computation
	var arg Value
	if sel.Type == dtype.PRED {
		if len(ops) != 3 {
			return Value{}, errorf(in, "a pred conditional takes three operands")
		}
		branches := in.Called()
		tc, fc := in.CalledComputation("true_computation"), in.CalledComputation("false_computation")
		if tc == nil && len(branches) == 2 {
			tc, fc = branches[0], branches[1]
		}
		if sel.Data[0] != 0 {
			branch, arg = tc, ops[1]
		} else {
			branch, arg = fc, ops[2]
		}
	} else {
		branches := in.Called()
		if len(branches) == 0 || len(ops) != len(branches)+1 {
			return Value{}, errorf(in, "conditional has %d branches and %d operands", len(branches), len(ops))
		}
		i := scalarI64(sel)
		if i < 0 || i >= int64(len(branches)) {
			i = int64(len(branches) - 1)
		}
		branch, arg = branches[i], ops[i+1]
	}
	if branch == nil {
		return Value{}, errorf(in, "conditional branch computation missing")
	}
	return e.call(branch, []Value{arg})
}

// asyncStart evaluates the wrapped computation at once; the value is (operands, result, context).
func (e *evaluator) asyncStart(in *hlo.Instruction, ops []Value) (Value, error) {
	called := in.Called()
	if len(called) != 1 {
		return Value{}, unsupportedf(in, "async-start without one called computation")
	}
	r, err := e.call(called[0], ops)
	if err != nil {
		return Value{}, err
	}
	elems := []Value{TupleValue(append([]Value(nil), ops...)...), r}
	if in.Shape.IsTuple() {
		for _, s := range in.Shape.Tuple[min(2, len(in.Shape.Tuple)):] {
			elems = append(elems, zeroValue(s))
		}
	}
	return TupleValue(elems...), nil
}

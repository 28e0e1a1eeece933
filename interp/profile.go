package interp

import (
	"slices"
	"sync"
	"time"

	"octet/hlo"
)

// Profile records where an evaluation spends its time. Set Options.Profile to a new Profile (NewProfile)
// and read it after Run.
//
// Every instruction of the computations that control flow runs (the entry computation, while bodies and
// conditions, conditional branches, calls, asynchronous computations) is timed; its time is its own,
// without the instructions of those computations it runs (a while loop's time is only its own
// bookkeeping). A fusion, and any instruction that calls a computation for its elements (reduce, map,
// sort, ...), is timed as one instruction, its called computation included. An instruction evaluated
// many times (in a loop body) accumulates its calls.
type Profile struct {
	// CPUClock, when set, reads a clock of the CPU time the process has used (getrusage): each
	// instruction's CPU time is then recorded too, which a machine shared with other work affects less
	// than the time on the wall.
	CPUClock func() time.Duration

	mu    sync.Mutex
	start time.Time
	total time.Duration
	stats map[*hlo.Instruction]*instProfile
}

// instProfile is a Profile's record of one instruction: its statistics, and the FLOPs and Bytes of one
// evaluation, worked out from its shapes at its first.
type instProfile struct {
	InstStats
	flops, bytes int64
}

// InstStats is what a Profile knows of one instruction.
type InstStats struct {
	Inst  *hlo.Instruction
	Calls int64         // evaluations
	Time  time.Duration // in all of them, without the instructions of called control-flow computations
	CPU   time.Duration // the process's CPU time in them, likewise (with Profile.CPUClock)
	FLOPs int64         // floating-point (or integer arithmetic) operations in all of them: 2 per multiply-add
	Bytes int64         // bytes of operands read and results written in all of them (none by a broadcast its users read in place)
}

// NewProfile returns an empty profile.
func NewProfile() *Profile { return &Profile{stats: map[*hlo.Instruction]*instProfile{}} }

// Total is the wall time of the evaluations the profile covers, from the start of Run to its return.
func (p *Profile) Total() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.total
}

// Stats returns the statistics of every instruction timed, the longest first (ties by name).
func (p *Profile) Stats() []InstStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]InstStats, 0, len(p.stats))
	for _, s := range p.stats {
		out = append(out, s.InstStats)
	}
	slices.SortFunc(out, func(a, b InstStats) int {
		if a.Time != b.Time {
			if a.Time > b.Time {
				return -1
			}
			return 1
		}
		if a.Inst.Name < b.Inst.Name {
			return -1
		}
		if a.Inst.Name > b.Inst.Name {
			return 1
		}
		return 0
	})
	return out
}

func (p *Profile) begin() {
	p.mu.Lock()
	p.start = time.Now()
	p.mu.Unlock()
}

func (p *Profile) end() {
	p.mu.Lock()
	p.total += time.Since(p.start)
	p.mu.Unlock()
}

// add records one evaluation of in; moved says that it moved its Bytes (a broadcast read in place by
// its users moves nothing), inPlace that it wrote its result into its first operand's memory (it then
// moves what updateBytes says).
func (p *Profile) add(in *hlo.Instruction, d, cpu time.Duration, moved, inPlace bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stats[in]
	if s == nil {
		s = &instProfile{InstStats: InstStats{Inst: in}, flops: FLOPs(in), bytes: Bytes(in)}
		p.stats[in] = s
	}
	s.Calls++
	s.Time += d
	s.CPU += cpu
	s.FLOPs += s.flops
	switch {
	case inPlace:
		s.Bytes += updateBytes(in)
	case moved:
		s.Bytes += s.bytes
	}
}

// updateBytes is the memory an update written in place (dynamic-update-slice, scatter) reads and writes:
// its operands but the first, and the updated elements once more.
func updateBytes(in *hlo.Instruction) int64 {
	ops := in.Operands()
	if len(ops) < 2 {
		return 0
	}
	upd := ops[1] // dynamic-update-slice's update
	if in.Opcode == hlo.OpScatter {
		upd = ops[len(ops)-1]
	}
	n := shapeBytes(upd.Shape)
	for _, o := range ops[1:] {
		n = min(n+shapeBytes(o.Shape), hugeBytes)
	}
	return n
}

// controlFlow reports whether an instruction runs computations as control flow, whose instructions a
// Profile times on their own.
func controlFlow(op hlo.Opcode) bool {
	switch op {
	case hlo.OpWhile, hlo.OpConditional, hlo.OpCall, hlo.OpAsyncStart, hlo.OpScan:
		return true
	}
	return false
}

// FLOPs is the arithmetic of one evaluation of an instruction, from its shapes: 2 per multiply-add of
// a dot or convolution (of a fused computation's dots and convolutions too), one per element of an
// arithmetic elementwise instruction or of a reduction's input, none for data movement.
func FLOPs(in *hlo.Instruction) int64 {
	switch in.Opcode {
	case hlo.OpDot:
		return 2 * dotMACs(in)
	case hlo.OpConvolution:
		return 2 * convMACs(in)
	case hlo.OpRaggedDot:
		return 2 * raggedDotMACs(in)
	case hlo.OpFusion:
		var n int64
		if c := in.CalledComputation("calls"); c != nil {
			for _, x := range c.Instructions {
				n += FLOPs(x)
			}
		}
		return n
	case hlo.OpReduce, hlo.OpReduceWindow:
		var n int64
		for _, o := range in.Operands()[:len(in.Operands())/2] {
			if o.Shape.IsArray() {
				n += o.Shape.NumElements()
			}
		}
		if in.Opcode == hlo.OpReduceWindow {
			if w, ok := in.Attr("window").(hlo.Window); ok {
				n = in.Shape.NumElements()
				if in.Shape.IsTuple() && len(in.Shape.Tuple) > 0 {
					n = in.Shape.Tuple[0].NumElements()
				}
				for _, d := range w {
					n *= d.Size
				}
			}
		}
		return n
	}
	if (in.Opcode.IsElementwiseUnary() || in.Opcode.IsElementwiseBinary() || in.Opcode == hlo.OpClamp ||
		in.Opcode == hlo.OpSelect || in.Opcode == hlo.OpCompare) && in.Shape.IsArray() {
		return max(in.Shape.NumElements(), 0)
	}
	return 0
}

// Bytes is the memory one evaluation of an instruction reads and writes, from its shapes: its array
// operands and its result; of the array a slice, dynamic slice or gather takes elements from, only those
// elements. Instructions that produce an operand's value (tuple, get-tuple-element, bitcast, reshape,
// copy) and parameters and constants move nothing.
func Bytes(in *hlo.Instruction) int64 {
	switch in.Opcode {
	case hlo.OpParameter, hlo.OpConstant, hlo.OpTuple, hlo.OpGetTupleElement, hlo.OpBitcast, hlo.OpReshape,
		hlo.OpCopy, hlo.OpWhile, hlo.OpConditional, hlo.OpCall, hlo.OpAfterAll, hlo.OpOptimizationBarrier,
		hlo.OpAddDependency, hlo.OpDomain:
		return 0
	}
	n := shapeBytes(in.Shape)
	if c := in.CalledComputation("calls"); in.Opcode == hlo.OpFusion && in.NumOperands() == 0 && c != nil {
		// A group of elementwise instructions run as a fusion (groups.go) reads its computation's
		// parameters.
		for _, p := range c.Params {
			n = min(n+shapeBytes(p.Shape), hugeBytes)
		}
	}
	for i, o := range in.Operands() {
		b := shapeBytes(o.Shape)
		if i == 0 && (in.Opcode == hlo.OpSlice || in.Opcode == hlo.OpDynamicSlice || in.Opcode == hlo.OpGather) {
			b = min(b, shapeBytes(in.Shape))
		}
		n = min(n+b, hugeBytes)
	}
	return n
}

// dotMACs is the number of multiply-adds of a dot: its result's elements times the contracting size.
func dotMACs(in *hlo.Instruction) int64 {
	ops := in.Operands()
	if len(ops) < 1 || !ops[0].Shape.IsArray() || !in.Shape.IsArray() {
		return 0
	}
	k := int64(1)
	for _, d := range in.Ints("lhs_contracting_dims") {
		if d >= 0 && int(d) < len(ops[0].Shape.Dims) {
			k *= ops[0].Shape.Dims[d]
		}
	}
	return max(in.Shape.NumElements(), 0) * k
}

// raggedDotMACs is the number of multiply-adds of a ragged-dot whose groups cover every position of its
// ragged dimension (fewer when they do not): as many as its dot's, the groups of a ragged contracting
// dimension sharing its positions.
func raggedDotMACs(in *hlo.Instruction) int64 {
	r, err := hlo.ReadRaggedDot(in)
	if err != nil || !in.Shape.IsArray() {
		return 0
	}
	n := max(in.Shape.NumElements(), 0)
	if r.Mode == hlo.RaggedContracting {
		n /= max(r.Groups, 1)
	}
	lhs := in.Operand(0).Shape.Dims
	for _, d := range r.LHSContracting {
		if d >= 0 && int(d) < len(lhs) {
			n *= lhs[d]
		}
	}
	return n
}

// convMACs is the number of multiply-adds of a convolution: its result's elements times the kernel's
// elements per output feature.
func convMACs(in *hlo.Instruction) int64 {
	ops := in.Operands()
	dn, _ := in.Attr("dim_labels").(*hlo.ConvDims)
	if len(ops) < 2 || dn == nil || !ops[1].Shape.IsArray() || !in.Shape.IsArray() {
		return 0
	}
	rhs := ops[1].Shape.Dims
	if dn.KernelOutput < 0 || int(dn.KernelOutput) >= len(rhs) || rhs[dn.KernelOutput] == 0 {
		return 0
	}
	return max(in.Shape.NumElements(), 0) * (product(rhs) / rhs[dn.KernelOutput])
}

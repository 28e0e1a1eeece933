package interp

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"octet/dtype"
	"octet/hlo"
)

// MemoryEstimate is what EstimateMemory finds.
type MemoryEstimate struct {
	// Bytes is an upper bound of the memory the evaluation needs at any one time: the instruction results
	// alive together (instructions run in text order and a result is freed after its last user), plus the
	// working copies of the instruction running (float32 copies of narrow operands), plus, for an
	// instruction that calls computations, their own peak. The entry's parameters count; the parameters of
	// called computations are their caller's operands and do not count twice.
	Bytes int64
	// Largest are the largest instruction results of the module, largest first (at most five).
	Largest []Buffer
	// PackedWeights is the most memory the run may keep beyond Bytes for the weights it packs once (and
	// the constants it keeps as their sources): the packed B of every dot that may be packed, and the
	// packed rhs of every block-scaled product package gemm's block-scaled kernels may multiply. With a
	// budget (Options.MaxMemory), they take no more than the room it leaves beyond Bytes.
	PackedWeights int64
	// LoopConstants is the most memory the run may keep beyond Bytes for the values of constant
	// instructions of loop computations (loopconst.go), which share that room with the packed weights.
	LoopConstants int64
}

// EstimateMemory estimates the memory evaluating m needs.
func EstimateMemory(m *hlo.Module) MemoryEstimate {
	est := &estimator{peaks: map[*hlo.Computation]int64{}}
	var res MemoryEstimate
	if m.Entry == nil {
		return res
	}
	res.Bytes = est.peak(m.Entry, true)
	res.PackedWeights = packedWeightsBound(m)
	res.LoopConstants = loopConstBound(m)
	sort.Slice(est.bufs, func(i, j int) bool { return est.bufs[i].Bytes > est.bufs[j].Bytes })
	if len(est.bufs) > 5 {
		est.bufs = est.bufs[:5]
	}
	res.Largest = est.bufs
	return res
}

type estimator struct {
	peaks map[*hlo.Computation]int64
	bufs  []Buffer // candidates for Largest
}

// hugeBytes stands for a size that overflows int64: over any budget, and still safe to add a few of.
const hugeBytes = math.MaxInt64 / 64

// largestOperand is the size of the largest operand of in.
func largestOperand(in *hlo.Instruction) int64 {
	var n int64
	for _, o := range in.Operands() {
		n = max(n, shapeBytes(o.Shape))
	}
	return n
}

// satMul is a*b for a, b >= 0, or hugeBytes where that is more.
func satMul(a, b int64) int64 {
	if a != 0 && b > hugeBytes/a {
		return hugeBytes
	}
	return min(a*b, hugeBytes)
}

// shapeElements is the number of elements of the arrays of s (a tuple's elements added; a dynamic
// dimension counts its bound, an unbounded one none).
func shapeElements(s hlo.Shape) int64 {
	if s.IsTuple() {
		var n int64
		for _, e := range s.Tuple {
			n += shapeElements(e)
		}
		return n
	}
	if !s.IsArray() {
		return 0
	}
	return max(s.NumElements(), 0)
}

// shapeBytes is s.ByteSize() with overflow turned into hugeBytes (a shape of 2^40 x 2^40 elements must be
// refused, not wrap around to a small size).
func shapeBytes(s hlo.Shape) int64 {
	switch s.Kind {
	case hlo.ArrayShape:
		n := int64(s.Elem.ByteSize())
		for _, d := range s.Dims {
			if d < 0 {
				return 0
			}
			if d != 0 && n > hugeBytes/d {
				return hugeBytes
			}
			n *= d
		}
		return n
	case hlo.TupleShape:
		var t int64
		for _, e := range s.Tuple {
			t = min(t+shapeBytes(e), hugeBytes)
		}
		return t
	}
	return 0
}

// ownBytes is the size of the new buffer an instruction's result needs: zero for the instructions whose
// value is (part of) an operand's.
func ownBytes(in *hlo.Instruction, entry bool) int64 {
	switch in.Opcode {
	case hlo.OpParameter:
		if entry {
			return shapeBytes(in.Shape)
		}
		return 0
	case hlo.OpTuple, hlo.OpGetTupleElement, hlo.OpBitcast, hlo.OpReshape, hlo.OpCopy,
		hlo.OpOptimizationBarrier, hlo.OpAddDependency, hlo.OpDomain, hlo.OpAfterAll:
		return 0
	}
	return shapeBytes(in.Shape)
}

// transientBytes is the working memory an instruction takes while it runs, beyond its result.
func transientBytes(in *hlo.Instruction) int64 {
	s := in.Shape
	switch {
	case in.Opcode == hlo.OpCustomCall && isSolverTarget(in.CustomCallTarget()),
		in.Opcode == hlo.OpCholesky, in.Opcode == hlo.OpTriangularSolve:
		// Package linalg's working copies, in float64 or complex128: of the operands (read, laid out for
		// the kernel, and the algorithm's own), of the results (made, laid out back): 64 bytes an element.
		elems := shapeElements(s)
		for _, o := range in.Operands() {
			elems += shapeElements(o.Shape)
		}
		return min(64*elems, hugeBytes)
	case in.Opcode == hlo.OpBatchNormTraining || in.Opcode == hlo.OpBatchNormInference || in.Opcode == hlo.OpBatchNormGrad:
		// The arrays of the operand's shape that BatchNormExpander's computation holds at once (expand.go):
		// at most eight, in the operand's type.
		if in.NumOperands() > 0 {
			return min(8*shapeBytes(in.Operand(0).Shape), hugeBytes)
		}
	}
	if in.Opcode == hlo.OpReduceWindow {
		// The tables of the input positions each window covers (newWindowTables: eight bytes per output
		// index and window offset, per dimension) and one window's positions, beside the result's copy.
		out := s
		if s.IsTuple() && len(s.Tuple) > 0 {
			out = s.Tuple[0]
		}
		win, _ := in.Attr("window").(hlo.Window)
		if shapeElements(out) == 0 {
			return 0 // nothing is folded
		}
		t, positions := int64(0), int64(1)
		if len(win) == len(out.Dims) {
			for d, w := range win {
				t = min(t+8*satMul(max(out.Dims[d], 0), max(w.Size, 0)), hugeBytes)
				positions = satMul(positions, max(w.Size, 0))
			}
		}
		t = min(t+satMul(8, positions), hugeBytes)
		return min(t+satMul(shapeBytes(hlo.Array(dtype.F64, out.Dims...)), int64(max(len(s.Tuple), 1))), hugeBytes)
	}
	if !s.IsArray() {
		return 0
	}
	// Eight bytes per element bound a float32, float64 or int64 working copy.
	n := shapeBytes(hlo.Array(dtype.F64, s.Dims...))
	var t int64
	switch in.Opcode {
	case hlo.OpDot, hlo.OpConvolution, hlo.OpRaggedDot, hlo.OpCustomCall:
		// working copies of both operands and of the result
		for _, o := range in.Operands() {
			if o.Shape.IsArray() {
				t = min(t+shapeBytes(hlo.Array(dtype.F64, o.Shape.Dims...)), hugeBytes)
			}
		}
		if in.Opcode == hlo.OpConvolution {
			// the im2col panel, in float32 and in the operand's type
			if n := in.Shape.NumElements(); n > 0 {
				k := max(convMACs(in)/n, 1)
				m := n / max(in.Shape.Dims[len(in.Shape.Dims)-1], 1) // at most the output positions
				t = min(t+8*k*convPanelRows(m, k), hugeBytes)
			}
		}
		return min(t+n, hugeBytes)
	}
	if s.Elem.BitWidth() < 32 || len(in.Operands()) > 1 {
		t = min(n*int64(1+min(len(in.Operands()), 3)), hugeBytes)
	}
	// An instruction computes into a working buffer of its result's size before the result takes it.
	return max(t, shapeBytes(s))
}

func (est *estimator) peak(c *hlo.Computation, entry bool) int64 {
	if p, ok := est.peaks[c]; ok {
		return p
	}
	est.peaks[c] = 0 // guards against a (malformed) cycle
	index := make(map[*hlo.Instruction]int, len(c.Instructions))
	last := make([]int, len(c.Instructions))
	for i, in := range c.Instructions {
		index[in] = i
		last[i] = -1
	}
	for i, in := range c.Instructions {
		for _, o := range in.Operands() {
			if j, ok := index[o]; ok {
				last[j] = i
			}
		}
	}
	var live, peak int64
	size := make([]int64, len(c.Instructions))
	for i, in := range c.Instructions {
		size[i] = max(ownBytes(in, entry), 0)
		live = min(live+size[i], hugeBytes)
		var called int64
		for _, cc := range in.Called() {
			if cc != nil {
				called = max(called, est.peak(cc, false))
			}
		}
		work := transientBytes(in)
		peak = max(peak, min(live+work+called, hugeBytes))
		if (in.Opcode == hlo.OpReduceWindow || in.Opcode == hlo.OpConvolution) && work >= 1<<20 &&
			work > 4*max(shapeBytes(in.Shape), largestOperand(in)) {
			// Working memory far beyond the arrays the instruction reads and writes (a window's tables,
			// an im2col panel) is named too.
			est.bufs = append(est.bufs, Buffer{Inst: in.Name, Shape: "working memory of its " + in.Opcode.String(),
				Bytes: work, Pos: c.Module.Position(in.Pos)})
		}
		if size[i] > 0 {
			est.bufs = append(est.bufs, Buffer{Inst: in.Name, Shape: in.Shape.String(), Bytes: size[i],
				Pos: c.Module.Position(in.Pos)})
			if len(est.bufs) > 64 {
				sort.Slice(est.bufs, func(a, b int) bool { return est.bufs[a].Bytes > est.bufs[b].Bytes })
				est.bufs = est.bufs[:5]
			}
		}
		for _, o := range in.Operands() {
			if j, ok := index[o]; ok && last[j] == i && o != c.Root && size[j] > 0 {
				live -= size[j]
				size[j] = 0
			}
		}
	}
	est.peaks[c] = peak
	return peak
}

// ParseBytes reads a memory size: a number of bytes with an optional unit, binary (KiB, MiB, GiB, TiB;
// K, M, G, T mean the same) or decimal (kB, MB, GB, TB): "512MiB", "8G", "1.5GiB", "1000000".
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.TrimSpace(t[i:])
	x, err := strconv.ParseFloat(num, 64)
	if err != nil || x < 0 {
		return 0, &strconv.NumError{Func: "ParseBytes", Num: s, Err: strconv.ErrSyntax}
	}
	mult := float64(1)
	switch strings.ToLower(unit) {
	case "", "b":
	case "k", "kib":
		mult = 1 << 10
	case "m", "mib":
		mult = 1 << 20
	case "g", "gib":
		mult = 1 << 30
	case "t", "tib":
		mult = 1 << 40
	case "kb":
		mult = 1e3
	case "mb":
		mult = 1e6
	case "gb":
		mult = 1e9
	case "tb":
		mult = 1e12
	default:
		return 0, &strconv.NumError{Func: "ParseBytes", Num: s, Err: strconv.ErrSyntax}
	}
	v := x * mult
	if v > 1<<62 {
		return 0, &strconv.NumError{Func: "ParseBytes", Num: s, Err: strconv.ErrRange}
	}
	return int64(v), nil
}

package graph

import (
	"strings"

	"octet/fuse"
	"octet/fuse/report"
	"octet/hlo"
)

// A Role is what an instruction is to the FP8 GEMM drawn; it chooses the colours of its box.
type Role int

const (
	Other       Role = iota // anything else
	FP8                     // an FP8 value: a GEMM input before dequantization
	Dequantize              // a step of the dequantize chain between an FP8 value and the GEMM
	Scale                   // a scale factor (a scalar, or a broadcast of one)
	GEMMFused               // the GEMM, one FP8 cuBLASLt call (or an FP8 GEMM fusion)
	GEMMUnfused             // the GEMM, not fused
	Epilogue                // a user of the GEMM's result
	Absorbed                // an epilogue instruction octet fuse absorbs into the call
	Blocked                 // the instruction that stopped the fusion
)

var roleNames = [...]string{"other", "fp8", "dequantize", "scale", "gemm-fused", "gemm-not-fused", "epilogue", "absorbed", "blocked"}

// String names the role as the page's legend and class names do.
func (r Role) String() string {
	if r >= 0 && int(r) < len(roleNames) {
		return roleNames[r]
	}
	return "other"
}

// Roles lists every role, in legend order.
func Roles() []Role {
	return []Role{FP8, Dequantize, Scale, GEMMFused, GEMMUnfused, Absorbed, Epilogue, Blocked, Other}
}

// A Node is one instruction of a drawn graph.
type Node struct {
	Name        string // the instruction's name, without %
	Computation string // where it is
	Op          string // its opcode ("fusion", "dot", "custom-call")
	Shape       string // its result shape
	Role        Role
	// Collapsed says the node stands for a fusion (or another call) whose body is not drawn; Calls names
	// the body.
	Collapsed bool
	Calls     string
}

// A Graph is a drawable part of a module: nodes, and edges from operand to user (indexes into Nodes).
type Graph struct {
	Title string
	Nodes []Node
	Edges [][2]int
	// Omitted counts the instructions left out to keep the drawing small.
	Omitted int
}

// limits of the walks around a GEMM.
const (
	maxBack    = 24
	maxForward = 12
	maxDepth   = 6
)

// Decisions indexes the rewrite's decisions on m's dots by (computation, dot).
func Decisions(m *hlo.Module) map[[2]string]*fuse.Decision {
	out := map[[2]string]*fuse.Decision{}
	for _, d := range fuse.Analyze(m).Decisions {
		out[[2]string{d.Computation, d.Dot}] = d
	}
	return out
}

// GEMMInstruction returns the instruction a GEMM of a report names in m, or nil.
func GEMMInstruction(m *hlo.Module, g *report.GEMM) *hlo.Instruction {
	if in := g.Instruction(); in != nil && in.Parent != nil && in.Parent.Module == m {
		return in
	}
	c := m.Computation(g.Computation)
	if c == nil {
		return nil
	}
	for _, in := range c.Instructions {
		if in.Name == g.Name {
			return in
		}
	}
	return nil
}

// namesIn returns the instructions a sentence of the report names (%name), a trailing full stop left out.
func namesIn(text string) map[string]bool {
	out := map[string]bool{}
	for {
		i := strings.IndexByte(text, '%')
		if i < 0 {
			return out
		}
		text = text[i+1:]
		end := strings.IndexFunc(text, func(r rune) bool {
			return !(r == '_' || r == '.' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		})
		if end < 0 {
			end = len(text)
		}
		if name := strings.TrimRight(text[:end], "."); name != "" {
			out[name] = true
		}
		text = text[end:]
	}
}

// absorbedNames returns the instructions a fuse note says the call absorbs ("absorbing %a, %b").
func absorbedNames(note string) map[string]bool {
	_, after, ok := strings.Cut(note, "absorbing ")
	if !ok {
		return map[string]bool{}
	}
	return namesIn(after)
}

// Neighbourhood returns the graph around a GEMM of a report on m: its operands back to their FP8 values
// through the dequantize chain and the scales, and the users of its result (see the package
// documentation). d, when not nil, is the rewrite's decision on the GEMM's dot (fuse.Analyze): the
// instructions it absorbs and those its reason is about are drawn as such; without it, those the report
// names are. It returns nil when the GEMM is not in m.
func Neighbourhood(m *hlo.Module, g *report.GEMM, d *fuse.Decision) *Graph {
	gemm := GEMMInstruction(m, g)
	if gemm == nil {
		return nil
	}
	absorbed := absorbedNames(g.FuseNote)
	blocked := namesIn(g.BlockedBy)
	if d != nil {
		for _, n := range d.Absorbed {
			absorbed[strings.TrimPrefix(n, "%")] = true
		}
		if !d.Fused {
			for _, n := range d.At {
				blocked[strings.TrimPrefix(n, "%")] = true
			}
		}
	}
	delete(blocked, gemm.Name)
	delete(blocked, g.Dot)

	gr := &Graph{Title: g.Name}
	index := map[*hlo.Instruction]int{}
	add := func(in *hlo.Instruction, r Role) int {
		if i, ok := index[in]; ok {
			return i
		}
		if blocked[in.Name] {
			r = Blocked
		}
		index[in] = len(gr.Nodes)
		gr.Nodes = append(gr.Nodes, nodeOf(in, r))
		return index[in]
	}
	role := GEMMUnfused
	if g.Fused {
		role = GEMMFused
	}
	add(gemm, role)

	// Back through the operands, breadth first.
	type item struct {
		in    *hlo.Instruction
		depth int
	}
	queue := []item{{gemm, 0}}
	back := 0
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		if it.depth >= maxDepth {
			continue
		}
		for _, op := range it.in.Operands() {
			if _, seen := index[op]; seen {
				continue
			}
			if back >= maxBack {
				gr.Omitted++
				continue
			}
			r := operandRole(op)
			add(op, r)
			back++
			if r == Dequantize || r == Scale {
				queue = append(queue, item{op, it.depth + 1})
			}
		}
	}
	// Forward through the users the epilogue may take.
	queue = []item{{gemm, 0}}
	fwd := 0
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		if it.depth >= 3 {
			continue
		}
		for _, u := range it.in.Users() {
			if _, seen := index[u]; seen {
				continue
			}
			if fwd >= maxForward {
				gr.Omitted++
				continue
			}
			r := Epilogue
			if absorbed[u.Name] {
				r = Absorbed
			}
			add(u, r)
			fwd++
			if r == Absorbed && (u.Opcode == hlo.OpMultiply || u.Opcode == hlo.OpDivide) {
				// The scale an absorbed multiply or divide applies to the result.
				for _, op := range u.Operands() {
					if _, seen := index[op]; !seen && operandRole(op) == Scale && fwd < maxForward {
						add(op, Scale)
						fwd++
					}
				}
			}
			if r == Absorbed || epilogueStep(u) {
				queue = append(queue, item{u, it.depth + 1})
			}
		}
	}
	gr.linkOperands(index)
	return gr
}

// Computation returns the graph of a whole computation, each fusion one collapsed node, at most limit
// nodes (the first in text order; the rest counted in Omitted). FP8 values and the GEMMs of r (which may
// be nil) get their roles; everything else is Other.
func Computation(c *hlo.Computation, r *report.Report, limit int) *Graph {
	gemms := map[string]*report.GEMM{}
	if r != nil {
		for _, g := range r.GEMMs {
			if g.Computation == c.Name {
				gemms[g.Name] = g
			}
		}
	}
	gr := &Graph{Title: c.Name}
	index := map[*hlo.Instruction]int{}
	for _, in := range c.Instructions {
		if len(gr.Nodes) >= limit {
			gr.Omitted++
			continue
		}
		role := Other
		if g := gemms[in.Name]; g != nil {
			role = GEMMUnfused
			if g.Fused {
				role = GEMMFused
			}
		} else if isFP8(in) {
			role = FP8
		}
		index[in] = len(gr.Nodes)
		gr.Nodes = append(gr.Nodes, nodeOf(in, role))
	}
	gr.linkOperands(index)
	return gr
}

// linkOperands adds an edge from every drawn operand to every drawn user, in node then operand order.
func (gr *Graph) linkOperands(index map[*hlo.Instruction]int) {
	ins := make([]*hlo.Instruction, len(gr.Nodes))
	for in, i := range index {
		ins[i] = in
	}
	for to, in := range ins {
		seen := map[int]bool{}
		for _, op := range in.Operands() {
			if from, ok := index[op]; ok && !seen[from] {
				seen[from] = true
				gr.Edges = append(gr.Edges, [2]int{from, to})
			}
		}
	}
}

func nodeOf(in *hlo.Instruction, r Role) Node {
	n := Node{Name: in.Name, Op: in.Opcode.String(), Shape: in.Shape.String(), Role: r}
	if in.Parent != nil {
		n.Computation = in.Parent.Name
	}
	if in.Opcode == hlo.OpFusion {
		n.Collapsed = true
		if cs := in.Called(); len(cs) > 0 {
			n.Calls = cs[0].Name
		}
	}
	if in.Opcode == hlo.OpCustomCall {
		n.Op = "custom-call " + in.CustomCallTarget()
	}
	return n
}

func isFP8(in *hlo.Instruction) bool { return in.Shape.IsArray() && in.Shape.Elem.IsFP8() }

func isScalar(in *hlo.Instruction) bool { return in.Shape.IsArray() && len(in.Shape.Dims) == 0 }

// operandRole is the role of an instruction met walking back from a GEMM.
func operandRole(in *hlo.Instruction) Role {
	switch {
	case isFP8(in):
		return FP8
	case isScalar(in):
		return Scale
	case in.Opcode == hlo.OpBroadcast && in.NumOperands() == 1 && isScalar(in.Operand(0)):
		return Scale
	}
	switch in.Opcode {
	case hlo.OpConvert, hlo.OpMultiply, hlo.OpDivide, hlo.OpBitcast, hlo.OpReshape, hlo.OpTranspose,
		hlo.OpCopy, hlo.OpBroadcast, hlo.OpFusion, hlo.OpGetTupleElement, hlo.OpBitcastConvert:
		return Dequantize
	}
	return Other
}

// epilogueStep reports whether the walk forward continues past a user: through the elementwise work an
// epilogue may hold, not past a reduction or a call.
func epilogueStep(in *hlo.Instruction) bool {
	return in.Opcode.IsElementwise() || in.Opcode == hlo.OpBroadcast || in.Opcode == hlo.OpBitcast ||
		in.Opcode == hlo.OpReshape
}

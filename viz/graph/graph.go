package graph

import (
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
	Target      string // a custom call's target
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
	// maxVisits bounds the operands and users one neighbourhood looks at, so that an instruction with
	// thousands of them near every GEMM costs each drawing a constant, not the module's size.
	maxVisits = 1024
	// wide is the operand count from which a drawn instruction's edges are found from its operand set
	// (built once per module) rather than by reading its operands.
	wide = 64
)

// A Module is an HLO module prepared for drawing many parts of it: its instructions indexed by
// computation and name, the GEMMs of its report by instruction, and what each drawn instruction shows
// and the operand set of each wide one built once, so that a drawing costs what it draws and not what
// the module holds.
type Module struct {
	m        *hlo.Module
	byName   map[[2]string]*hlo.Instruction
	gemms    map[*hlo.Instruction]*report.GEMM
	nodes    map[*hlo.Instruction]Node
	operands map[*hlo.Instruction]map[*hlo.Instruction]bool
}

// NewModule prepares m for drawing, with r (which may be nil) Octet's report on it.
func NewModule(m *hlo.Module, r *report.Report) *Module {
	d := &Module{m: m, byName: map[[2]string]*hlo.Instruction{}, gemms: map[*hlo.Instruction]*report.GEMM{},
		nodes: map[*hlo.Instruction]Node{}, operands: map[*hlo.Instruction]map[*hlo.Instruction]bool{}}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			d.byName[[2]string{c.Name, in.Name}] = in
		}
	}
	if r != nil {
		for _, g := range r.GEMMs {
			if in := d.gemmInstruction(g); in != nil {
				d.gemms[in] = g
			}
		}
	}
	return d
}

// GEMMInstruction returns the instruction a GEMM of a report names in m, or nil: the report's own
// instruction when the report was made from m, else the instruction of the same name.
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

// gemmInstruction is GEMMInstruction through the module's index.
func (d *Module) gemmInstruction(g *report.GEMM) *hlo.Instruction {
	if in := g.Instruction(); in != nil && in.Parent != nil && in.Parent.Module == d.m {
		return in
	}
	return d.Instruction(g.Computation, g.Name)
}

// Instruction returns the instruction named name in computation, or nil.
func (d *Module) Instruction(computation, name string) *hlo.Instruction {
	return d.byName[[2]string{computation, name}]
}

// node returns what a drawing shows of in, with role r; the text is built once per instruction.
func (d *Module) node(in *hlo.Instruction, r Role) Node {
	n, ok := d.nodes[in]
	if !ok {
		n = nodeOf(in, Other)
		d.nodes[in] = n
	}
	n.Role = r
	return n
}

// hasOperand reports whether op is an operand of in.
func (d *Module) hasOperand(in, op *hlo.Instruction) bool {
	set := d.operands[in]
	if set == nil {
		set = make(map[*hlo.Instruction]bool, in.NumOperands())
		for _, o := range in.Operands() {
			set[o] = true
		}
		d.operands[in] = set
	}
	return set[op]
}

// Neighbourhood returns the graph around a GEMM of the module's report: its operands back to their FP8
// values through the dequantize chain and the scales, and the users of its result (see the package
// documentation). The instructions octet fuse would absorb (g.Absorbed) and those that stop it
// (g.BlockedAt) are drawn as such. It returns nil when the GEMM is not in the module.
func (d *Module) Neighbourhood(g *report.GEMM) *Graph {
	gemm := d.gemmInstruction(g)
	if gemm == nil {
		return nil
	}
	absorbed := map[string]bool{}
	for _, n := range g.Absorbed {
		absorbed[n] = true
	}
	blocked := map[string]bool{}
	for _, n := range g.BlockedAt {
		blocked[n] = true
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
		gr.Nodes = append(gr.Nodes, d.node(in, r))
		return index[in]
	}
	role := GEMMUnfused
	if g.Fused {
		role = GEMMFused
	}
	add(gemm, role)
	visits := 0

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
		ops := it.in.Operands()
		for k, op := range ops {
			if visits >= maxVisits || back >= maxBack {
				// The rest are not drawn (those drawn already among them counted too: the walk does
				// not look at them).
				gr.Omitted += len(ops) - k
				break
			}
			visits++
			if _, seen := index[op]; seen {
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
		users := it.in.Users()
		for k, u := range users {
			if visits >= maxVisits || fwd >= maxForward {
				gr.Omitted += len(users) - k
				break
			}
			visits++
			if _, seen := index[u]; seen {
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
	gr.linkOperands(index, d.hasOperand)
	return gr
}

// Computation returns the graph of a whole computation of the module, as the package function
// Computation does, with the GEMMs of the module's report.
func (d *Module) Computation(c *hlo.Computation, limit int) *Graph {
	return computation(c, limit, func(in *hlo.Instruction) *report.GEMM { return d.gemms[in] }, d.node)
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
	return computation(c, limit, func(in *hlo.Instruction) *report.GEMM { return gemms[in.Name] }, nodeOf)
}

func computation(c *hlo.Computation, limit int, gemmOf func(*hlo.Instruction) *report.GEMM, node func(*hlo.Instruction, Role) Node) *Graph {
	gr := &Graph{Title: c.Name}
	index := map[*hlo.Instruction]int{}
	for _, in := range c.Instructions {
		if len(gr.Nodes) >= limit {
			gr.Omitted++
			continue
		}
		role := Other
		if g := gemmOf(in); g != nil {
			role = GEMMUnfused
			if g.Fused {
				role = GEMMFused
			}
		} else if isFP8(in) {
			role = FP8
		}
		index[in] = len(gr.Nodes)
		gr.Nodes = append(gr.Nodes, node(in, role))
	}
	gr.linkOperands(index, nil)
	return gr
}

// linkOperands adds an edge from every drawn operand to every drawn user, in node then operand order. A
// wide user (of more operands than wide) is linked to its drawn operands in node order, through
// hasOperand when it is given, so that drawing it costs the nodes drawn rather than its operands.
func (gr *Graph) linkOperands(index map[*hlo.Instruction]int, hasOperand func(in, op *hlo.Instruction) bool) {
	ins := make([]*hlo.Instruction, len(gr.Nodes))
	for in, i := range index {
		ins[i] = in
	}
	var seen []bool
	for to, in := range ins {
		if hasOperand != nil && in.NumOperands() > wide {
			for from, op := range ins {
				if hasOperand(in, op) {
					gr.Edges = append(gr.Edges, [2]int{from, to})
				}
			}
			continue
		}
		if seen == nil {
			seen = make([]bool, len(ins))
		}
		for _, op := range in.Operands() {
			if from, ok := index[op]; ok && !seen[from] {
				seen[from] = true
				gr.Edges = append(gr.Edges, [2]int{from, to})
			}
		}
		for _, op := range in.Operands() {
			if from, ok := index[op]; ok {
				seen[from] = false
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
		n.Target = in.CustomCallTarget()
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

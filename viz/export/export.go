package export

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"octet/fuse/report"
	"octet/hlo"
	"octet/internal/safetext"
	"octet/viz/graph"
)

// status is the "octet.fp8" text of a GEMM: fused or not, its kind, and why not.
func status(g *report.GEMM) string {
	if g.Fused {
		return "fused (" + g.Kind + ")"
	}
	s := "not fused (" + g.Kind + ")"
	if g.Reason != "" {
		s += ": " + g.Reason
	}
	return s
}

// gemmsByInstruction indexes a report's GEMMs by (computation, instruction).
func gemmsByInstruction(r *report.Report) map[[2]string]*report.GEMM {
	out := map[[2]string]*report.GEMM{}
	if r == nil {
		return out
	}
	for _, g := range r.GEMMs {
		out[[2]string{g.Computation, g.Name}] = g
	}
	return out
}

// namespaces returns, for every computation of m, the path of computations and fusions that leads to
// it: "main.24" for the entry, "main.24/fusion.3" for the body of a fusion of the entry. A computation
// called from several places, or not from a fusion, is a namespace of its own.
func namespaces(m *hlo.Module) map[*hlo.Computation]string {
	callers := map[*hlo.Computation][]*hlo.Instruction{}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			for _, callee := range in.Called() {
				callers[callee] = append(callers[callee], in)
			}
		}
	}
	ns := map[*hlo.Computation]string{}
	var of func(c *hlo.Computation, depth int) string
	of = func(c *hlo.Computation, depth int) string {
		if s, ok := ns[c]; ok {
			return s
		}
		s := safetext.Escape(c.Name)
		if cs := callers[c]; len(cs) == 1 && cs[0].Opcode == hlo.OpFusion && cs[0].Parent != nil && depth < 64 {
			s = of(cs[0].Parent, depth+1) + "/" + safetext.Escape(cs[0].Name)
		}
		ns[c] = s
		return s
	}
	for _, c := range m.Computations {
		of(c, 0)
	}
	return ns
}

// ids names every instruction uniquely in the module, escaped (package internal/safetext): its name, or
// computation/name where two computations share the name, or that with "#N" where escaping made two the
// same.
func ids(m *hlo.Module) map[*hlo.Instruction]string {
	count := map[string]int{}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			count[safetext.Escape(in.Name)]++
		}
	}
	out := map[*hlo.Instruction]string{}
	taken := map[string]bool{}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			id := safetext.Escape(in.Name)
			if count[id] > 1 {
				id = safetext.Escape(c.Name) + "/" + id
			}
			for k, base := 2, id; taken[id]; k++ {
				id = fmt.Sprintf("%s#%d", base, k)
			}
			taken[id] = true
			out[in] = id
		}
	}
	return out
}

// source returns where an instruction came from, from its metadata: "file:line", or "".
func source(in *hlo.Instruction) string {
	md := in.Metadata()
	file, _ := md.Get("source_file")
	if file == "" {
		return ""
	}
	if line, ok := md.Get("source_line"); ok && line != "" {
		return file + ":" + line
	}
	return file
}

// maxLabel is the most characters of a node's label in Model Explorer (a custom call's target); its
// attributes hold the whole strings, escaped.
const maxLabel = 200

// Model Explorer's graph JSON.
type (
	graphCollection struct {
		Label  string     `json:"label"`
		Graphs []*meGraph `json:"graphs"`
	}
	meGraph struct {
		ID    string    `json:"id"`
		Nodes []*meNode `json:"nodes"`
	}
	meNode struct {
		ID              string       `json:"id"`
		Label           string       `json:"label"`
		Namespace       string       `json:"namespace"`
		Attrs           []keyValue   `json:"attrs"`
		IncomingEdges   []incoming   `json:"incomingEdges"`
		OutputsMetadata []meMetadata `json:"outputsMetadata"`
	}
	keyValue struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	}
	incoming struct {
		SourceNodeID       string `json:"sourceNodeId"`
		SourceNodeOutputID string `json:"sourceNodeOutputId"`
		TargetNodeInputID  string `json:"targetNodeInputId"`
	}
	meMetadata struct {
		ID    string     `json:"id"`
		Attrs []keyValue `json:"attrs"`
	}
)

// ModelExplorer writes the modules as one Model Explorer GraphCollection, labelled label, with a graph per
// module; reports[i] (which may be nil) is Octet's report on mods[i].
func ModelExplorer(w io.Writer, label string, mods []*hlo.Module, reports []*report.Report) error {
	gc := graphCollection{Label: safetext.Escape(label), Graphs: []*meGraph{}}
	for i, m := range mods {
		var r *report.Report
		if i < len(reports) {
			r = reports[i]
		}
		gemms := gemmsByInstruction(r)
		ns := namespaces(m)
		id := ids(m)
		g := &meGraph{ID: safetext.Escape(m.Name), Nodes: []*meNode{}}
		for _, c := range m.Computations {
			for _, in := range c.Instructions {
				n := &meNode{ID: id[in], Label: in.Opcode.String(), Namespace: ns[c], Attrs: []keyValue{}, IncomingEdges: []incoming{}}
				if in.Opcode == hlo.OpCustomCall {
					n.Label = safetext.Short(in.CustomCallTarget(), maxLabel)
				}
				n.Attrs = append(n.Attrs, keyValue{"name", safetext.Escape(in.Name)}, keyValue{"shape", in.Shape.String()})
				if v, ok := in.Metadata().Get("op_name"); ok {
					n.Attrs = append(n.Attrs, keyValue{"op_name", safetext.Escape(v)})
				}
				if s := source(in); s != "" {
					n.Attrs = append(n.Attrs, keyValue{"source", safetext.Escape(s)})
				}
				if gm := gemms[[2]string{c.Name, in.Name}]; gm != nil {
					n.Attrs = append(n.Attrs, keyValue{"octet.fp8", safetext.Escape(status(gm))},
						keyValue{"octet.xla", safetext.Escape(verdictText(gm.XLA.Fusible, gm.XLA.Why))},
						keyValue{"octet.fuse", safetext.Escape(verdictText(gm.Octet.Fusible, gm.Octet.Why))})
				}
				for k, op := range in.Operands() {
					n.IncomingEdges = append(n.IncomingEdges, incoming{id[op], "0", strconv.Itoa(k)})
				}
				n.OutputsMetadata = []meMetadata{{ID: "0", Attrs: []keyValue{{"shape", in.Shape.String()}}}}
				g.Nodes = append(g.Nodes, n)
			}
		}
		gc.Graphs = append(gc.Graphs, g)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(gc)
}

func verdictText(fusible bool, why string) string {
	if fusible {
		return "fusible: " + why
	}
	return "not fusible: " + why
}

// XLA's graph dumps' colours: fill and font colour by opcode kind.
func dotColours(in *hlo.Instruction) (fill, font string) {
	switch in.Opcode {
	case hlo.OpParameter:
		return "#ffe0b2", "black"
	case hlo.OpConstant, hlo.OpIota:
		return "#fff9c4", "black"
	case hlo.OpDot, hlo.OpConvolution:
		return "#1565c0", "white"
	case hlo.OpCustomCall:
		return "#7986cb", "black"
	case hlo.OpFusion:
		return "#e0e0e0", "black"
	case hlo.OpTuple, hlo.OpGetTupleElement, hlo.OpBitcast, hlo.OpReshape, hlo.OpTranspose, hlo.OpCopy, hlo.OpBroadcast:
		return "#f5f5f5", "#616161"
	case hlo.OpReduce, hlo.OpReduceWindow:
		return "#c8e6c9", "black"
	case hlo.OpAllGather, hlo.OpAllReduce, hlo.OpReduceScatter, hlo.OpAllToAll, hlo.OpCollectivePermute:
		return "#f8bbd0", "black"
	}
	if in.Shape.IsArray() && in.Shape.Elem.IsFP8() {
		return "#fde68a", "black"
	}
	return "white", "black"
}

// DOTOptions say what DOT draws.
type DOTOptions struct {
	// All draws every instruction of every computation (Graphviz takes minutes to lay out a module of
	// thousands); otherwise DOT draws each FP8 GEMM's neighbourhood as the report does (package
	// viz/graph), a cluster per GEMM.
	All bool
	// MaxGEMMs bounds the neighbourhoods drawn, in module order (0: every GEMM's).
	MaxGEMMs int
}

// DefaultMaxGEMMs is how many GEMMs' neighbourhoods "octet export --format=dot" draws unless told: a
// drawing Graphviz lays out in seconds.
const DefaultMaxGEMMs = 100

const dotHead = "digraph octet {\n  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", fontname=\"monospace\", fontsize=10];\n  edge [color=\"#4b5563\"];\n"

// DOT writes the modules as one Graphviz digraph. By default it draws the neighbourhood of every FP8 GEMM
// of reports[i] (which may be nil) on mods[i] as the report draws it: a cluster per GEMM, labelled with
// its status, its boxes (name, opcode, shape) coloured by role, a fusion with a double border. With
// opt.All it draws the whole modules: a cluster per computation, a box per instruction in XLA's colours,
// an edge per operand, the FP8 GEMMs green when fused and red when not, with their status as tooltip.
// Every string is escaped and cut (package internal/safetext), so that Graphviz accepts what any module
// holds.
func DOT(w io.Writer, mods []*hlo.Module, reports []*report.Report, opt DOTOptions) error {
	var b strings.Builder
	b.WriteString(dotHead)
	drawn, total := 0, 0
	for i, m := range mods {
		var r *report.Report
		if i < len(reports) {
			r = reports[i]
		}
		if opt.All {
			dotModule(&b, i, m, r)
			continue
		}
		if r == nil {
			continue
		}
		gm := graph.NewModule(m, r)
		for j, g := range r.GEMMs {
			total++
			if opt.MaxGEMMs > 0 && drawn >= opt.MaxGEMMs {
				continue
			}
			if gr := gm.Neighbourhood(g); gr != nil {
				dotNeighbourhood(&b, fmt.Sprintf("m%d_g%d", i, j), m, g, gr)
				drawn++
			}
		}
	}
	if !opt.All {
		label := fmt.Sprintf("the neighbourhoods of %d FP8 GEMMs", drawn)
		if drawn < total {
			label = fmt.Sprintf("the neighbourhoods of the first %d of %d FP8 GEMMs", drawn, total)
		}
		fmt.Fprintf(&b, "  label=%s;\n  labelloc=t;\n", safetext.DOT(label))
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// dotNeighbourhood writes the cluster of one GEMM's neighbourhood; id prefixes its nodes.
func dotNeighbourhood(b *strings.Builder, id string, m *hlo.Module, g *report.GEMM, gr *graph.Graph) {
	what := "not fused"
	if g.Fused {
		what = "fused"
	}
	fmt.Fprintf(b, "  subgraph cluster_%s {\n    label=%s;\n    style=rounded; color=\"#9ca3af\";\n", id,
		safetext.DOT(fmt.Sprintf("%s: %%%s in %%%s: %s (%s)", m.Name, g.Name, g.Computation, what, g.Kind)))
	for k, n := range gr.Nodes {
		c := graph.ColoursOf(n.Role)
		op := n.Op
		if n.Target != "" {
			op += " " + n.Target
		}
		extra := ""
		switch n.Role {
		case graph.GEMMFused, graph.GEMMUnfused:
			extra = ", penwidth=2.5, tooltip=" + safetext.DOT("octet.fp8: "+status(g))
		case graph.Absorbed, graph.Blocked:
			extra = `, style="rounded,filled,dashed"`
		}
		if n.Collapsed {
			extra += ", peripheries=2"
		}
		fmt.Fprintf(b, "    %s_n%d [label=%s, fillcolor=%s, color=%s%s];\n", id, k,
			safetext.DOTLines(n.Name, op, n.Shape), safetext.DOT(c.Fill), safetext.DOT(c.Stroke), extra)
	}
	for _, e := range gr.Edges {
		fmt.Fprintf(b, "    %s_n%d -> %s_n%d;\n", id, e[0], id, e[1])
	}
	b.WriteString("  }\n")
}

// dotModule writes every computation of module i as a cluster, every instruction as a box, every operand
// as an edge.
func dotModule(b *strings.Builder, i int, m *hlo.Module, r *report.Report) {
	gemms := gemmsByInstruction(r)
	node := map[*hlo.Instruction]string{}
	for j, c := range m.Computations {
		for k, in := range c.Instructions {
			node[in] = fmt.Sprintf("m%d_c%d_%d", i, j, k)
		}
	}
	for j, c := range m.Computations {
		fmt.Fprintf(b, "  subgraph cluster_m%d_%d {\n    label=%s;\n    style=rounded; color=\"#9ca3af\";\n", i, j, safetext.DOT(m.Name+": "+c.Name))
		for _, in := range c.Instructions {
			fill, font := dotColours(in)
			op := in.Opcode.String()
			if in.Opcode == hlo.OpCustomCall {
				op = "custom-call " + in.CustomCallTarget()
			}
			extra := ""
			if gm := gemms[[2]string{c.Name, in.Name}]; gm != nil {
				fill, font = "#fca5a5", "black"
				if gm.Fused {
					fill = "#86efac"
				}
				extra = ", penwidth=2.5, tooltip=" + safetext.DOT("octet.fp8: "+status(gm))
			}
			fmt.Fprintf(b, "    %s [label=%s, fillcolor=%s, fontcolor=%s%s];\n", node[in],
				safetext.DOTLines(in.Name, op, in.Shape.String()), safetext.DOT(fill), safetext.DOT(font), extra)
		}
		b.WriteString("  }\n")
	}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			for _, op := range in.Operands() {
				if from, ok := node[op]; ok {
					fmt.Fprintf(b, "  %s -> %s;\n", from, node[in])
				}
			}
		}
	}
}

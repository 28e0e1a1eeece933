package export

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"octet/fuse/report"
	"octet/hlo"
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
		s := c.Name
		if cs := callers[c]; len(cs) == 1 && cs[0].Opcode == hlo.OpFusion && cs[0].Parent != nil && depth < 64 {
			s = of(cs[0].Parent, depth+1) + "/" + cs[0].Name
		}
		ns[c] = s
		return s
	}
	for _, c := range m.Computations {
		of(c, 0)
	}
	return ns
}

// ids names every instruction uniquely in the module: its name, or computation/name where two
// computations share the name.
func ids(m *hlo.Module) map[*hlo.Instruction]string {
	count := map[string]int{}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			count[in.Name]++
		}
	}
	out := map[*hlo.Instruction]string{}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if count[in.Name] > 1 {
				out[in] = c.Name + "/" + in.Name
			} else {
				out[in] = in.Name
			}
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
	gc := graphCollection{Label: label, Graphs: []*meGraph{}}
	for i, m := range mods {
		var r *report.Report
		if i < len(reports) {
			r = reports[i]
		}
		gemms := gemmsByInstruction(r)
		ns := namespaces(m)
		id := ids(m)
		g := &meGraph{ID: m.Name, Nodes: []*meNode{}}
		for _, c := range m.Computations {
			for _, in := range c.Instructions {
				n := &meNode{ID: id[in], Label: in.Opcode.String(), Namespace: ns[c], Attrs: []keyValue{}, IncomingEdges: []incoming{}}
				if in.Opcode == hlo.OpCustomCall {
					n.Label = in.CustomCallTarget()
				}
				n.Attrs = append(n.Attrs, keyValue{"name", in.Name}, keyValue{"shape", in.Shape.String()})
				if v, ok := in.Metadata().Get("op_name"); ok {
					n.Attrs = append(n.Attrs, keyValue{"op_name", v})
				}
				if s := source(in); s != "" {
					n.Attrs = append(n.Attrs, keyValue{"source", s})
				}
				if gm := gemms[[2]string{c.Name, in.Name}]; gm != nil {
					n.Attrs = append(n.Attrs, keyValue{"octet.fp8", status(gm)},
						keyValue{"octet.xla", verdictText(gm.XLA.Fusible, gm.XLA.Why)},
						keyValue{"octet.fuse", verdictText(gm.Octet.Fusible, gm.Octet.Why)})
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

// dotQuote quotes s as a DOT string.
func dotQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", "")
	return `"` + r.Replace(s) + `"`
}

// DOT writes the modules as one Graphviz digraph: a cluster per computation, a box per instruction
// (name, opcode, shape) in XLA's colours, an edge per operand; the FP8 GEMMs of reports[i] are green
// when fused, red when not, with their status as tooltip.
func DOT(w io.Writer, mods []*hlo.Module, reports []*report.Report) error {
	var b strings.Builder
	b.WriteString("digraph octet {\n  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", fontname=\"monospace\", fontsize=10];\n  edge [color=\"#4b5563\"];\n")
	for i, m := range mods {
		var r *report.Report
		if i < len(reports) {
			r = reports[i]
		}
		gemms := gemmsByInstruction(r)
		id := ids(m)
		node := func(in *hlo.Instruction) string { return dotQuote(fmt.Sprintf("m%d/%s", i, id[in])) }
		for j, c := range m.Computations {
			fmt.Fprintf(&b, "  subgraph cluster_m%d_%d {\n    label=%s;\n    style=rounded; color=\"#9ca3af\";\n", i, j, dotQuote(m.Name+": "+c.Name))
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
					extra = fmt.Sprintf(", penwidth=2.5, tooltip=%s", dotQuote("octet.fp8: "+status(gm)))
				}
				fmt.Fprintf(&b, "    %s [label=%s, fillcolor=%s, fontcolor=%s%s];\n", node(in),
					dotQuote(in.Name+"\n"+op+"\n"+in.Shape.String()), dotQuote(fill), dotQuote(font), extra)
			}
			b.WriteString("  }\n")
		}
		for _, c := range m.Computations {
			for _, in := range c.Instructions {
				for _, op := range in.Operands() {
					fmt.Fprintf(&b, "  %s -> %s;\n", node(op), node(in))
				}
			}
		}
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

package page

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"sort"
	"strings"

	"octet/cublas"
	"octet/fuse"
	"octet/fuse/report"
	"octet/hlo"
	"octet/hlo/printer"
	"octet/viz/graph"
)

// A Module is one analysed module: the file it came from, the module and Octet's report on it.
type Module struct {
	File   string
	Module *hlo.Module
	Report *report.Report
}

// Title is the page title of the report on modules.
func Title(mods []*Module) string {
	var names []string
	for i, m := range mods {
		if i == 0 || m.File != mods[i-1].File {
			names = append(names, m.File)
		}
	}
	return "Octet report: " + strings.Join(names, " vs ")
}

// Write writes the report page on modules; with compare, on two modules with their difference first.
func Write(w io.Writer, mods []*Module, compare bool) error {
	if compare && len(mods) != 2 {
		return fmt.Errorf("a comparison is of two modules, not %d", len(mods))
	}
	bw := bufio.NewWriter(w)
	Head(bw, Title(mods))
	fmt.Fprintf(bw, "<h1>%s</h1>\n", html.EscapeString(Title(mods)))
	if compare {
		WriteDiff(bw, mods[0], mods[1])
	}
	for i, m := range mods {
		if err := WriteModule(bw, m, fmt.Sprintf("m%d", i)); err != nil {
			return err
		}
	}
	Foot(bw)
	return bw.Flush()
}

// Head writes the start of a page: doctype, title, the style sheet, and opens the body.
func Head(w io.Writer, title string) {
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n",
		CSP, html.EscapeString(title), css)
}

// Foot writes the page's script and closes the body.
func Foot(w io.Writer) {
	fmt.Fprintf(w, "<script>%s</script>\n</body>\n</html>\n", script)
}

// CSP is the content security policy of every page: no request, but to submit a form to its own server;
// the page holds all it shows.
const CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; form-action 'self'"

const css = `
body{font:14px/1.4 system-ui,sans-serif;margin:1em 2em;color:#111827;background:#fff}
h1{font-size:1.4em}h2{font-size:1.2em;margin-top:1.6em}h3{font-size:1.05em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #d1d5db;padding:3px 6px;vertical-align:top;text-align:left}
th{background:#f3f4f6}tr.fused td.status{background:#dcfce7}tr.not-fused td.status{background:#fee2e2}
tr.lost td:first-child{background:#fee2e2}tr.gained td:first-child{background:#dcfce7}tr.changed td:first-child{background:#fef9c3}
code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
.split{display:flex;gap:1em;align-items:flex-start;flex-wrap:wrap}.split>div{overflow:auto;max-width:100%}
pre.text{background:#f9fafb;border:1px solid #e5e7eb;padding:6px;margin:0;overflow:auto;max-height:40em;max-width:60em}
pre.text span{display:block}pre.text span:target,pre.text span.hl{background:#fef08a}
pre.full{max-height:50em}
.legend span{display:inline-block;border:1px solid;border-radius:4px;padding:0 6px;margin:0 4px 4px 0;font-size:12px}
.muted{color:#6b7280}
svg.graph a:hover rect{stroke-width:3}

`

// script filters the GEMM table and highlights the text line of a box hovered; it touches nothing
// outside the page.
const script = `
(function(){
  document.querySelectorAll("input.filter").forEach(function(f){
    f.addEventListener("change",function(){
      f.closest("section").querySelectorAll("tr[data-gemm]").forEach(function(r){
        r.style.display=(f.checked&&r.classList.contains("fused"))?"none":"";
      });
    });
  });
  document.querySelectorAll("svg.graph a").forEach(function(a){
    var id=(a.getAttribute("href")||"").slice(1);
    a.addEventListener("mouseenter",function(){var l=document.getElementById(id);if(l)l.classList.add("hl");});
    a.addEventListener("mouseleave",function(){var l=document.getElementById(id);if(l)l.classList.remove("hl");});
  });
  function reveal(){
    var e=location.hash&&document.getElementById(location.hash.slice(1));
    for(;e;e=e.parentElement){if(e.tagName==="DETAILS")e.open=true;}
  }
  window.addEventListener("hashchange",reveal);reveal();
  document.body.setAttribute("data-ready","1");
})();
`

// WriteDiff writes the difference between the reports on two modules.
func WriteDiff(w io.Writer, a, b *Module) {
	d := report.Diff(a.Report, b.Report)
	fmt.Fprintf(w, "<section id=\"diff\">\n<h2>Difference: %s → %s</h2>\n", html.EscapeString(a.File), html.EscapeString(b.File))
	fmt.Fprintf(w, "<p>%d lost, %d gained, %d changed, %d added, %d removed, %d the same", len(d.Lost), len(d.Gained), len(d.Changed), len(d.Added), len(d.Removed), d.Same)
	if d.Ambiguous > 0 {
		fmt.Fprintf(w, "; %d paired ambiguously", d.Ambiguous)
	}
	fmt.Fprintln(w, ".</p>")
	groups := []struct {
		class string
		cs    []*report.Change
	}{{"lost", d.Lost}, {"gained", d.Gained}, {"changed", d.Changed}, {"added", d.Added}, {"removed", d.Removed}}
	any := false
	for _, g := range groups {
		any = any || len(g.cs) > 0
	}
	if any {
		fmt.Fprintln(w, "<table class=\"diff\"><thead><tr><th>what</th><th>GEMM</th><th>before</th><th>after</th><th>how</th></tr></thead><tbody>")
		for _, g := range groups {
			for _, c := range g.cs {
				fmt.Fprintf(w, "<tr class=\"%s\" data-change=\"%s\"><td>%s</td><td><code>%s</code></td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
					g.class, html.EscapeString(c.Key), g.class, html.EscapeString(c.Key), gemmCell(c.A), gemmCell(c.B), html.EscapeString(c.What))
			}
		}
		fmt.Fprintln(w, "</tbody></table>")
	}
	fmt.Fprintln(w, "</section>")
}

func gemmCell(g *report.GEMM) string {
	if g == nil {
		return `<span class="muted">none</span>`
	}
	s := "not fused"
	if g.Fused {
		s = "fused"
	}
	return fmt.Sprintf("<code>%%%s</code> in <code>%%%s</code>: %s", html.EscapeString(g.Name), html.EscapeString(g.Computation), s)
}

// Text is a module's readable text (package hlo/printer, GEMM calls summarised), in lines, with the line
// of every instruction.
type Text struct {
	Lines []string
	line  map[[2]string]int // (computation, instruction) -> index in Lines
}

// Line returns the index in Lines of an instruction's line.
func (t *Text) Line(computation, instruction string) (int, bool) {
	l, ok := t.line[[2]string{computation, instruction}]
	return l, ok
}

// Readable prints m in the readable style.
func Readable(m *hlo.Module) *Text {
	cfg := printer.ConfigFor(printer.StyleReadable)
	cfg.Annotate = cublas.Annotate
	t := &Text{Lines: strings.Split(strings.TrimRight(printer.Sprint(m, cfg), "\n"), "\n"), line: map[[2]string]int{}}
	comp := ""
	for i, l := range t.Lines {
		switch {
		case l == "" || strings.HasPrefix(l, "HloModule") || l == "}":
		case !strings.HasPrefix(l, " "):
			name := strings.TrimPrefix(l, "ENTRY ")
			name = strings.TrimPrefix(name, "%")
			if j := strings.IndexAny(name, " ("); j > 0 {
				name = name[:j]
			}
			comp = name
		case strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "   "):
			s := strings.TrimPrefix(strings.TrimSpace(l), "ROOT ")
			s = strings.TrimPrefix(s, "%")
			if j := strings.Index(s, " = "); j > 0 {
				t.line[[2]string{comp, s[:j]}] = i
			}
		}
	}
	return t
}

// WriteModule writes the summary, the GEMM table, one graph per GEMM and the readable text of one
// module; id prefixes the page's anchors, so that several modules share a page.
func WriteModule(w io.Writer, m *Module, id string) error {
	r := m.Report
	t := Readable(m.Module)
	fmt.Fprintf(w, "<section class=\"module\" id=\"%s\" data-module=\"%s\">\n", id, html.EscapeString(r.Module))
	fmt.Fprintf(w, "<h2>Module <code>%s</code> <span class=\"muted\">(%s)</span></h2>\n", html.EscapeString(r.Module), html.EscapeString(m.File))
	WriteSummary(w, r)
	if len(r.GEMMs) == 0 {
		fmt.Fprintln(w, "<p>No FP8 GEMM in this module.</p>")
	} else {
		writeTable(w, r, id)
		writeLegend(w)
		decisions := graph.Decisions(m.Module)
		for i, g := range r.GEMMs {
			dot := g.Dot
			if dot == "" {
				dot = g.Name
			}
			if err := writeGEMM(w, m, t, g, decisions[[2]string{g.Computation, dot}], fmt.Sprintf("%s-g%d", id, i)); err != nil {
				return err
			}
		}
	}
	fmt.Fprintf(w, "<details class=\"fulltext\"><summary>Readable text of <code>%s</code> (%d lines)</summary>\n<pre class=\"text full\">", html.EscapeString(r.Module), len(t.Lines))
	for i, l := range t.Lines {
		fmt.Fprintf(w, "<span id=\"%s-L%d\">%s</span>", id, i+1, html.EscapeString(l))
	}
	fmt.Fprintln(w, "</pre></details>\n</section>")
	return nil
}

// WriteSummary writes the counts of a report: GEMMs fused and not, and what XLA and Octet would fuse.
func WriteSummary(w io.Writer, r *report.Report) {
	xla, octet := 0, 0
	for _, g := range r.GEMMs {
		if !g.Fused && g.XLA.Fusible {
			xla++
		}
		if !g.Fused && g.Octet.Fusible {
			octet++
		}
	}
	fmt.Fprintf(w, "<p class=\"summary\"><b>%d FP8 GEMMs</b>: %d fused, %d not fused", len(r.GEMMs), r.Fused, r.Unfused)
	if r.Native > 0 {
		fmt.Fprintf(w, " (%d fused natively in FP8 GEMM fusions)", r.Native)
	}
	if r.BlockScaled > 0 {
		fmt.Fprintf(w, ", %d block-scaled", r.BlockScaled)
	}
	if r.Unfused > 0 {
		fmt.Fprintf(w, "; of those not fused, XLA's GEMM rewriter would fuse %d as the module stands, octet fuse %d", xla, octet)
	}
	fmt.Fprintln(w, ".</p>")
}

func verdict(fusible bool, why string) string {
	v := "no"
	if fusible {
		v = "yes"
	}
	return fmt.Sprintf("<b>%s</b>: %s", v, html.EscapeString(why))
}

func operandCell(o *report.Operand) string {
	if o == nil {
		return ""
	}
	return fmt.Sprintf("<code>%s</code> <code>%s</code>", html.EscapeString(o.Shape), html.EscapeString(o.Source))
}

func writeTable(w io.Writer, r *report.Report, id string) {
	fmt.Fprintln(w, `<label><input type="checkbox" class="filter"> only GEMMs not fused</label>`)
	fmt.Fprintln(w, "<table class=\"gemms\"><thead><tr><th>GEMM</th><th>kind</th><th>A</th><th>B</th><th>D</th><th>status</th><th>XLA</th><th>octet fuse</th><th>reason</th><th>source</th></tr></thead><tbody>")
	for i, g := range r.GEMMs {
		class, status := "not-fused", "not fused"
		if g.Fused {
			class, status = "fused", "fused"
		}
		name := g.Name
		if g.Dot != "" {
			name += " (" + g.Dot + ")"
		}
		reason := g.Reason
		if g.FuseNote != "" {
			reason = strings.TrimSpace(reason + " " + g.FuseNote)
		}
		source := g.Source
		if source == "" {
			source = g.OpName
		}
		fmt.Fprintf(w, "<tr class=\"%s\" data-gemm=\"%s\"><td><a href=\"#%s-g%d\"><code>%%%s</code></a><br><span class=\"muted\">in %%%s</span></td><td>%s</td><td>%s</td><td>%s</td><td><code>%s</code></td><td class=\"status\">%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			class, html.EscapeString(g.Name), id, i, html.EscapeString(name), html.EscapeString(g.Computation),
			html.EscapeString(g.Kind), operandCell(g.A), operandCell(g.B), html.EscapeString(g.D), status,
			verdict(g.XLA.Fusible, g.XLA.Why), verdict(g.Octet.Fusible, g.Octet.Why), html.EscapeString(reason), html.EscapeString(source))
	}
	fmt.Fprintln(w, "</tbody></table>")
}

func writeLegend(w io.Writer) {
	fmt.Fprint(w, `<p class="legend">`)
	for _, r := range graph.Roles() {
		c := graph.ColoursOf(r)
		fmt.Fprintf(w, `<span style="background:%s;border-color:%s">%s</span>`, c.Fill, c.Stroke, r)
	}
	fmt.Fprintln(w, `<span style="border-style:double;border-width:3px">fusion (collapsed)</span></p>`)
}

// The fusion bodies a GEMM's section draws: at most maxBodies, of at most maxBodyDrawn instructions each.
const (
	maxBodies    = 8
	maxBodyDrawn = 400
)

// writeGEMM writes one GEMM's section: its graph beside the readable lines of the instructions drawn.
func writeGEMM(w io.Writer, m *Module, t *Text, g *report.GEMM, d *fuse.Decision, id string) error {
	mod := strings.SplitN(id, "-", 2)[0]
	fmt.Fprintf(w, "<section class=\"gemm\" id=\"%s\" data-gemm=\"%s\">\n<h3><code>%%%s</code> in <code>%%%s</code>: %s</h3>\n",
		id, html.EscapeString(g.Name), html.EscapeString(g.Name), html.EscapeString(g.Computation), statusText(g))
	gr := graph.Neighbourhood(m.Module, g, d)
	if gr == nil {
		fmt.Fprintln(w, "<p class=\"muted\">The GEMM's instruction is not in the module.</p></section>")
		return nil
	}
	lineOf := func(n graph.Node) (int, bool) {
		return t.Line(n.Computation, n.Name)
	}
	fmt.Fprintln(w, "<div class=\"split\"><div>")
	err := gr.SVG(w, graph.Options{ID: id, Href: func(n graph.Node) string {
		if l, ok := lineOf(n); ok {
			return fmt.Sprintf("#%s-L%d", id, l+1)
		}
		return ""
	}})
	if err != nil {
		return err
	}
	if gr.Omitted > 0 {
		fmt.Fprintf(w, "<p class=\"muted\">%d more instructions around it are not drawn.</p>\n", gr.Omitted)
	}
	fmt.Fprintln(w, "</div><div>")
	// The drawn instructions' lines, in text order, each linking to the full text.
	var lines []int
	for _, n := range gr.Nodes {
		if l, ok := lineOf(n); ok {
			lines = append(lines, l)
		}
	}
	sort.Ints(lines)
	fmt.Fprint(w, "<pre class=\"text\">")
	prev := -2
	for _, l := range lines {
		if l == prev {
			continue
		}
		if prev >= 0 && l != prev+1 {
			fmt.Fprint(w, "<span class=\"muted\">  …</span>")
		}
		fmt.Fprintf(w, "<span id=\"%s-L%d\"><a href=\"#%s-L%d\" class=\"muted\">%5d</a> %s</span>", id, l+1, mod, l+1, l+1, html.EscapeString(t.Lines[l]))
		prev = l
	}
	fmt.Fprintln(w, "</pre></div></div>")
	// The bodies of the fusions drawn, each folded: the GEMM's own first, then the others in drawing order.
	var bodies []string
	seen := map[string]bool{}
	for _, n := range gr.Nodes {
		if n.Collapsed && n.Calls != "" && !seen[n.Calls] && len(bodies) < maxBodies {
			seen[n.Calls] = true
			bodies = append(bodies, n.Calls)
		}
	}
	for k, name := range bodies {
		c := m.Module.Computation(name)
		if c == nil {
			continue
		}
		body := graph.Computation(c, m.Report, maxBodyDrawn)
		fmt.Fprintf(w, "<details><summary>fusion body <code>%%%s</code> (%d instructions)</summary>\n", html.EscapeString(c.Name), len(c.Instructions))
		err := body.SVG(w, graph.Options{ID: fmt.Sprintf("%s-body%d", id, k), Href: func(n graph.Node) string {
			if l, ok := t.Line(n.Computation, n.Name); ok {
				return fmt.Sprintf("#%s-L%d", mod, l+1)
			}
			return ""
		}})
		if err != nil {
			return err
		}
		if body.Omitted > 0 {
			fmt.Fprintf(w, "<p class=\"muted\">%d more instructions are not drawn.</p>\n", body.Omitted)
		}
		fmt.Fprintln(w, "</details>")
	}
	for _, e := range g.Explain {
		fmt.Fprintf(w, "<p class=\"muted\">%s</p>\n", html.EscapeString(e))
	}
	fmt.Fprintln(w, "</section>")
	return nil
}

func statusText(g *report.GEMM) string {
	if g.Fused {
		return "fused (" + html.EscapeString(g.Kind) + ")"
	}
	return "not fused (" + html.EscapeString(g.Kind) + ")"
}

package page

import (
	"bufio"
	"bytes"
	"fmt"
	"html"
	"io"
	"sort"
	"strings"

	"octet/cublas"
	"octet/fuse/report"
	"octet/hlo"
	"octet/hlo/printer"
	"octet/internal/safetext"
	"octet/viz/graph"
)

// A Module is one analysed module: the file it came from, the module and Octet's report on it.
type Module struct {
	File   string
	Module *hlo.Module
	Report *report.Report
}

// DefaultMaxBytes is the size budget of a page when Config gives none.
const DefaultMaxBytes = 64 << 20

// minBytes is the smallest budget: the page's frame (head, style, script, headings) fits in it.
const minBytes = 64 << 10

// Config says how a page is written.
type Config struct {
	// MaxBytes is the most bytes a page may have (0: DefaultMaxBytes; below 64 KiB counts as 64 KiB).
	// What does not fit is left out, and the page says what: of each module, its readable text takes at
	// most half of its share, the bodies of fusions at most an eighth, the table and the GEMMs' sections
	// the rest, in module order.
	MaxBytes int64
}

func (c Config) maxBytes() int64 {
	switch {
	case c.MaxBytes <= 0:
		return DefaultMaxBytes
	case c.MaxBytes < minBytes:
		return minBytes
	}
	return c.MaxBytes
}

// Text budgets: the most characters a page shows of one string in a table cell, a heading or a
// paragraph, and of one line of module text beside a graph. The whole line is one click away, in the
// module's text.
const (
	maxName = 200
	maxCell = 1000
	maxLine = 240
)

// Title is the page title of the report on modules.
func Title(mods []*Module) string {
	var names []string
	for i, m := range mods {
		if i == 0 || m.File != mods[i-1].File {
			names = append(names, safetext.Short(m.File, maxName))
		}
	}
	return "Octet report: " + strings.Join(names, " vs ")
}

// Write writes the report page on modules, as Config{}.Write does.
func Write(w io.Writer, mods []*Module, compare bool) error { return Config{}.Write(w, mods, compare) }

// Write writes the report page on modules; with compare, on two modules with their difference first.
// The page holds at most c.MaxBytes bytes.
func (c Config) Write(w io.Writer, mods []*Module, compare bool) error {
	if compare && len(mods) != 2 {
		return fmt.Errorf("a comparison is of two modules, not %d", len(mods))
	}
	bw := bufio.NewWriter(w)
	var frame bytes.Buffer
	Head(&frame, Title(mods))
	fmt.Fprintf(&frame, "<h1>%s</h1>\n", html.EscapeString(Title(mods)))
	bw.Write(frame.Bytes())
	left := c.maxBytes() - int64(frame.Len()) - int64(len(foot()))
	if compare {
		var d bytes.Buffer
		writeDiff(&d, mods[0], mods[1], left/4)
		bw.Write(d.Bytes())
		left -= int64(d.Len())
	}
	for i, m := range mods {
		var b bytes.Buffer
		if err := writeModule(&b, m, fmt.Sprintf("m%d", i), left/int64(len(mods)-i)); err != nil {
			return err
		}
		bw.Write(b.Bytes())
		left -= int64(b.Len())
	}
	bw.WriteString(foot())
	return bw.Flush()
}

// Head writes the start of a page: doctype, title, the style sheet, and opens the body.
func Head(w io.Writer, title string) {
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n",
		CSP, safetext.ShortHTML(title, maxCell), css)
}

// Foot writes the page's script and closes the body.
func Foot(w io.Writer) { io.WriteString(w, foot()) }

func foot() string { return "<script>" + script + "</script>\n</body>\n</html>\n" }

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
.budget{background:#fef9c3;border:1px solid #facc15;padding:4px 8px}
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

// writeDiff writes the difference between the reports on two modules, with rows of at most limit bytes: the rows that do not fit are counted.
func writeDiff(w io.Writer, a, b *Module, limit int64) {
	d := report.Diff(a.Report, b.Report)
	fmt.Fprintf(w, "<section id=\"diff\">\n<h2>Difference: %s → %s</h2>\n", safetext.ShortHTML(a.File, maxName), safetext.ShortHTML(b.File, maxName))
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
		var row bytes.Buffer
		used, left := int64(0), 0
		for _, g := range groups {
			for _, c := range g.cs {
				row.Reset()
				fmt.Fprintf(&row, "<tr class=\"%s\" data-change=\"%s\"><td>%s</td><td><code>%s</code></td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
					g.class, safetext.ShortHTML(c.Key, maxCell), g.class, safetext.ShortHTML(c.Key, maxCell), gemmCell(c.A), gemmCell(c.B), safetext.ShortHTML(c.What, maxCell))
				if left > 0 || used+int64(row.Len()) > limit {
					left++
					continue
				}
				used += int64(row.Len())
				w.Write(row.Bytes())
			}
		}
		fmt.Fprintln(w, "</tbody></table>")
		if left > 0 {
			fmt.Fprintf(w, "<p class=\"budget\">%d more changes are left out, to keep the page within its size budget.</p>\n", left)
		}
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
	return fmt.Sprintf("<code>%%%s</code> in <code>%%%s</code>: %s", safetext.ShortHTML(g.Name, maxName), safetext.ShortHTML(g.Computation, maxName), s)
}

// Text is a module's readable text (package hlo/printer, GEMM calls summarised), in lines, with the line
// of every instruction as the printer reports it. The printer escapes the module's strings, so that every
// instruction is one line.
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
	t := &Text{line: map[[2]string]int{}}
	cfg.InstructionLine = func(in *hlo.Instruction, l int) {
		if in.Parent != nil {
			t.line[[2]string{in.Parent.Name, in.Name}] = l
		}
	}
	t.Lines = strings.Split(strings.TrimRight(printer.Sprint(m, cfg), "\n"), "\n")
	return t
}

// WriteModule writes the summary, the GEMM table, one graph per GEMM and the readable text of one
// module, within the default budget; id prefixes the page's anchors, so that several modules share a page.
func WriteModule(w io.Writer, m *Module, id string) error {
	return writeModule(w, m, id, DefaultMaxBytes-minBytes)
}

// A section is a part of a module's page: its HTML, and the number of the things it shows that were
// left out to keep the page within its budget.
type section struct {
	bytes.Buffer
	max  int64
	left int
}

// add appends an item (a row, a GEMM's section, a body, a line) when it fits, and counts it left out
// otherwise; once one is left out, so are the rest, so that what is shown is a prefix.
func (s *section) add(item []byte) bool {
	if s.left > 0 || int64(s.Len()+len(item)) > s.max {
		s.left++
		return false
	}
	s.Write(item)
	return true
}

// cut reports whether an item was left out already, counting the next one left out too: the caller need
// not build it.
func (s *section) cut() bool {
	if s.left > 0 {
		s.left++
		return true
	}
	return false
}

// moduleFrame is what a module's part holds besides its items: headings, notes, the opening and closing
// of its table, text and sections.
const moduleFrame = 8 << 10

// writeModule writes one module's part of a page in at most limit bytes (see Config.MaxBytes).
func writeModule(w io.Writer, m *Module, id string, limit int64) error {
	r := m.Report
	t := Readable(m.Module)
	limit = max(limit-moduleFrame, 0)
	comps := make(map[string]*hlo.Computation, len(m.Module.Computations))
	for _, c := range m.Module.Computations {
		comps[c.Name] = c
	}

	// The module's text, as much as half the budget holds: it is what every link points to.
	text := &section{max: limit / 2}
	kept := 0
	var line bytes.Buffer
	for i, l := range t.Lines {
		if text.cut() {
			continue
		}
		line.Reset()
		fmt.Fprintf(&line, "<span id=\"%s-L%d\">%s</span>", id, i+1, safetext.HTML(l))
		if text.add(line.Bytes()) {
			kept = i + 1
		}
	}
	linked := func(l int) bool { return l < kept }

	// The graphs, and the fusion bodies they draw, each drawn once, as much as an eighth holds.
	gm := graph.NewModule(m.Module, r)
	graphs := make([]*graph.Graph, len(r.GEMMs))
	var called []string
	bodyIndex := map[string]int{}
	for i, g := range r.GEMMs {
		graphs[i] = gm.Neighbourhood(g)
		if graphs[i] == nil {
			continue
		}
		for _, n := range graphs[i].Nodes {
			if n.Collapsed && n.Calls != "" {
				if _, ok := bodyIndex[n.Calls]; !ok && comps[n.Calls] != nil {
					bodyIndex[n.Calls] = len(called)
					called = append(called, n.Calls)
				}
			}
		}
	}
	bodies := &section{max: limit / 8}
	drawn := map[string]bool{}
	var item bytes.Buffer
	for k, name := range called {
		if bodies.cut() {
			continue
		}
		item.Reset()
		if err := writeBody(&item, gm, comps[name], fmt.Sprintf("%s-f%d", id, k), id, t, linked); err != nil {
			return err
		}
		drawn[name] = bodies.add(item.Bytes())
	}

	// The table and the GEMMs' sections in what is left: the table first, up to half of it, then the
	// sections; a row links to its GEMM's section when the section is shown.
	rest := limit - int64(text.Len()) - int64(bodies.Len())
	table := &section{max: rest / 2}
	for i, g := range r.GEMMs {
		if table.cut() {
			continue
		}
		item.Reset()
		writeRow(&item, g, fmt.Sprintf("%s-g%d", id, i), true)
		table.add(item.Bytes())
	}
	gemms := &section{max: rest - int64(table.Len())}
	for i, g := range r.GEMMs {
		if gemms.cut() {
			continue
		}
		item.Reset()
		err := writeGEMM(&item, graphs[i], g, t, fmt.Sprintf("%s-g%d", id, i), id, linked, func(name string) (string, bool) {
			k, ok := bodyIndex[name]
			return fmt.Sprintf("%s-f%d", id, k), ok && drawn[name]
		})
		if err != nil {
			return err
		}
		gemms.add(item.Bytes())
	}
	if shown := len(r.GEMMs) - gemms.left; shown < len(r.GEMMs) {
		// The rows of the sections left out lose their links, and no more than that.
		rows := len(r.GEMMs) - table.left
		table = &section{max: table.max}
		for i, g := range r.GEMMs[:rows] {
			item.Reset()
			writeRow(&item, g, fmt.Sprintf("%s-g%d", id, i), i < shown)
			table.add(item.Bytes())
		}
		table.left = len(r.GEMMs) - rows
	}

	fmt.Fprintf(w, "<section class=\"module\" id=\"%s\" data-module=\"%s\">\n", id, safetext.ShortHTML(r.Module, maxName))
	fmt.Fprintf(w, "<h2>Module <code>%s</code> <span class=\"muted\">(%s)</span></h2>\n", safetext.ShortHTML(r.Module, maxName), safetext.ShortHTML(m.File, maxName))
	var cut []string
	if table.left > 0 {
		cut = append(cut, fmt.Sprintf("%d of %d rows of the GEMM table", table.left, len(r.GEMMs)))
	}
	if gemms.left > 0 {
		cut = append(cut, fmt.Sprintf("%d of %d GEMM sections", gemms.left, len(r.GEMMs)))
	}
	if bodies.left > 0 {
		cut = append(cut, fmt.Sprintf("%d of %d fusion bodies", bodies.left, len(called)))
	}
	if text.left > 0 {
		cut = append(cut, fmt.Sprintf("%d of %d lines of the module's text", text.left, len(t.Lines)))
	}
	if len(cut) > 0 {
		fmt.Fprintf(w, "<p class=\"budget\">This page is cut to its size budget: %s are left out, the last ones of each.</p>\n", strings.Join(cut, ", "))
	}
	WriteSummary(w, r)
	if len(r.GEMMs) == 0 {
		fmt.Fprintln(w, "<p>No FP8 GEMM in this module.</p>")
	} else {
		fmt.Fprintln(w, `<label><input type="checkbox" class="filter"> only GEMMs not fused</label>`)
		fmt.Fprintln(w, "<table class=\"gemms\"><thead><tr><th>GEMM</th><th>kind</th><th>A</th><th>B</th><th>D</th><th>status</th><th>XLA</th><th>octet fuse</th><th>reason</th><th>source</th></tr></thead><tbody>")
		w.Write(table.Bytes())
		fmt.Fprintln(w, "</tbody></table>")
		writeLegend(w)
		w.Write(gemms.Bytes())
	}
	if len(called) > 0 {
		fmt.Fprintln(w, "<section class=\"bodies\">")
		w.Write(bodies.Bytes())
		fmt.Fprintln(w, "</section>")
	}
	fmt.Fprintf(w, "<details class=\"fulltext\" id=\"%s-text\"><summary>Readable text of <code>%s</code> (%d lines)</summary>\n<pre class=\"text full\">", id, safetext.ShortHTML(r.Module, maxName), len(t.Lines))
	w.Write(text.Bytes())
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
	return fmt.Sprintf("<b>%s</b>: %s", v, safetext.ShortHTML(why, maxCell))
}

func operandCell(o *report.Operand) string {
	if o == nil {
		return ""
	}
	return fmt.Sprintf("<code>%s</code> <code>%s</code>", safetext.ShortHTML(o.Shape, maxName), safetext.ShortHTML(o.Source, maxName))
}

// writeRow writes a GEMM's row of the table; with linked, its name links to its section sec.
func writeRow(w io.Writer, g *report.GEMM, sec string, linked bool) {
	class, status := "not-fused", "not fused"
	if g.Fused {
		class, status = "fused", "fused"
	}
	name := safetext.ShortHTML(g.Name, maxName)
	if g.Dot != "" {
		name += " (" + safetext.ShortHTML(g.Dot, maxName) + ")"
	}
	cell := "<code>%" + name + "</code>"
	if linked {
		cell = "<a href=\"#" + sec + "\">" + cell + "</a>"
	}
	reason := g.Reason
	if g.FuseNote != "" {
		reason = strings.TrimSpace(safetext.Short(reason, maxCell) + " " + safetext.Short(g.FuseNote, maxCell))
	}
	source := g.Source
	if source == "" {
		source = g.OpName
	}
	fmt.Fprintf(w, "<tr class=\"%s\" data-gemm=\"%s\"><td>%s<br><span class=\"muted\">in %%%s</span></td><td>%s</td><td>%s</td><td>%s</td><td><code>%s</code></td><td class=\"status\">%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
		class, safetext.ShortHTML(g.Name, maxName), cell, safetext.ShortHTML(g.Computation, maxName),
		safetext.ShortHTML(g.Kind, maxName), operandCell(g.A), operandCell(g.B), safetext.ShortHTML(g.D, maxName), status,
		verdict(g.XLA.Fusible, g.XLA.Why), verdict(g.Octet.Fusible, g.Octet.Why), safetext.ShortHTML(reason, 2*maxCell), safetext.ShortHTML(source, maxCell))
}

func writeLegend(w io.Writer) {
	fmt.Fprint(w, `<p class="legend">`)
	for _, r := range graph.Roles() {
		c := graph.ColoursOf(r)
		fmt.Fprintf(w, `<span style="background:%s;border-color:%s">%s</span>`, c.Fill, c.Stroke, r)
	}
	fmt.Fprintln(w, `<span style="border-style:double;border-width:3px">fusion (collapsed)</span></p>`)
}

// maxBodyDrawn bounds the instructions drawn of one fusion body.
const maxBodyDrawn = 400

// writeBody writes the drawing of a fusion body, folded, as the element id; its boxes link to their
// lines in the module's text (mod-L...) where linked says the line is shown.
func writeBody(w io.Writer, gm *graph.Module, c *hlo.Computation, id, mod string, t *Text, linked func(int) bool) error {
	body := gm.Computation(c, maxBodyDrawn)
	fmt.Fprintf(w, "<details class=\"body\" id=\"%s\"><summary>fusion body <code>%%%s</code> (%d instructions)</summary>\n", id, safetext.ShortHTML(c.Name, maxName), len(c.Instructions))
	err := body.SVG(w, graph.Options{ID: id, Href: func(n graph.Node) string {
		if l, ok := t.Line(n.Computation, n.Name); ok && linked(l) {
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
	return nil
}

// writeGEMM writes one GEMM's section, id: its graph gr beside the readable lines of the instructions
// drawn (each cut to maxLine characters, its number linking to the whole line in the module's text, mod,
// where linked says it is shown), links to the bodies of the fusions drawn (body gives the element of
// each body drawn), and the report's explanations.
func writeGEMM(w io.Writer, gr *graph.Graph, g *report.GEMM, t *Text, id, mod string, linked func(int) bool, body func(string) (string, bool)) error {
	fmt.Fprintf(w, "<section class=\"gemm\" id=\"%s\" data-gemm=\"%s\">\n<h3><code>%%%s</code> in <code>%%%s</code>: %s</h3>\n",
		id, safetext.ShortHTML(g.Name, maxName), safetext.ShortHTML(g.Name, maxName), safetext.ShortHTML(g.Computation, maxName), statusText(g))
	if gr == nil {
		fmt.Fprintln(w, "<p class=\"muted\">The GEMM's instruction is not in the module.</p></section>")
		return nil
	}
	lineOf := func(n graph.Node) (int, bool) { return t.Line(n.Computation, n.Name) }
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
		number := fmt.Sprintf("%5d", l+1)
		if linked(l) {
			number = fmt.Sprintf("<a href=\"#%s-L%d\" class=\"muted\">%s</a>", mod, l+1, number)
		}
		fmt.Fprintf(w, "<span id=\"%s-L%d\">%s %s</span>", id, l+1, number, safetext.ShortHTML(t.Lines[l], maxLine))
		prev = l
	}
	fmt.Fprintln(w, "</pre></div></div>")
	// The bodies of the fusions drawn, each drawn once in the module's part of the page: the GEMM's own
	// first, then the others in drawing order.
	var links []string
	seen := map[string]bool{}
	for _, n := range gr.Nodes {
		if !n.Collapsed || n.Calls == "" || seen[n.Calls] {
			continue
		}
		seen[n.Calls] = true
		name := "<code>%" + safetext.ShortHTML(n.Calls, maxName) + "</code>"
		if ref, ok := body(n.Calls); ok {
			links = append(links, "<a href=\"#"+ref+"\">"+name+"</a>")
		} else {
			links = append(links, name+" (not drawn: the page's size budget)")
		}
	}
	if len(links) > 0 {
		fmt.Fprintf(w, "<p class=\"bodies\">fusion bodies: %s</p>\n", strings.Join(links, ", "))
	}
	for _, e := range g.Explain {
		fmt.Fprintf(w, "<p class=\"muted\">%s</p>\n", safetext.ShortHTML(e, maxCell))
	}
	fmt.Fprintln(w, "</section>")
	return nil
}

func statusText(g *report.GEMM) string {
	if g.Fused {
		return "fused (" + safetext.ShortHTML(g.Kind, maxName) + ")"
	}
	return "not fused (" + safetext.ShortHTML(g.Kind, maxName) + ")"
}

package graph

import (
	"fmt"
	"html"
	"io"
	"strings"
	"unicode/utf8"

	"octet/internal/safetext"
	"octet/viz/layout"
)

// Colours holds the fill and border of a role's boxes: XLA's graph dumps' pastel palette, with FP8 in
// amber, fused in green and what blocks a fusion in red.
type Colours struct{ Fill, Stroke string }

var palette = map[Role]Colours{
	Other:       {"#ffffff", "#9ca3af"},
	FP8:         {"#fde68a", "#b45309"},
	Dequantize:  {"#bfdbfe", "#1d4ed8"},
	Scale:       {"#e9d5ff", "#7e22ce"},
	GEMMFused:   {"#86efac", "#15803d"},
	GEMMUnfused: {"#fca5a5", "#b91c1c"},
	Epilogue:    {"#f3f4f6", "#6b7280"},
	Absorbed:    {"#d1fae5", "#047857"},
	Blocked:     {"#fee2e2", "#dc2626"},
}

// ColoursOf returns the colours of a role's boxes.
func ColoursOf(r Role) Colours { return palette[r] }

// Options say how SVG draws a graph.
type Options struct {
	// ID prefixes the id of every node's element (ID + "-" + node index); empty means "n".
	ID string
	// Href, when set, gives the link of a node (empty for none): each box is then an <a>.
	Href func(Node) string
	// Layout tunes the layout.
	Layout layout.Options
}

// Font metrics of the drawing: a monospace font of 11 px, about 6.7 px per character.
const (
	charW    = 6.7
	lineH    = 14.0
	padX     = 8.0
	maxChars = 44
	// maxTitle is the most characters of each part of a tooltip (name, shape, operation): a drawing's
	// size does not grow with a module's longest string. The box links to the instruction's whole text.
	maxTitle = 200
)

// clip returns the text a box shows of s: escaped, at most maxChars characters.
func clip(s string) string { return safetext.Short(s, maxChars) }

func nodeSize(n Node) layout.Size {
	w := max(utf8.RuneCountInString(clip(n.Name)), utf8.RuneCountInString(n.sub()), 6)
	return layout.Size{W: float64(w)*charW + 2*padX, H: 2*lineH + 8}
}

// operation returns the node's opcode, with a custom call's target, each cut to n characters.
func (n Node) operation(limit int) string {
	if n.Target == "" {
		return n.Op
	}
	return n.Op + " " + safetext.Short(n.Target, limit)
}

// sub returns the second line of a box: operation and shape, and a mark on a collapsed fusion, cut to
// maxChars characters.
func (n Node) sub() string {
	s := n.operation(maxChars) + " " + safetext.Short(n.Shape, maxChars)
	if n.Collapsed && n.Calls != "" {
		s += " ▸"
	}
	return clip(s)
}

// title returns a box's tooltip, each part cut to maxTitle characters, as HTML.
func (n Node) title() string {
	return safetext.ShortHTML(n.Name, maxTitle) + " = " + safetext.ShortHTML(n.Shape, maxTitle) + " " +
		html.EscapeString(n.operation(maxTitle)) + " (" + n.Role.String() + ")"
}

// Layout lays the graph out.
func (g *Graph) Layout(opt layout.Options) (*layout.Layout, error) {
	lg := &layout.Graph{Nodes: make([]layout.Size, len(g.Nodes)), Edges: make([]layout.Edge, len(g.Edges))}
	for i, n := range g.Nodes {
		lg.Nodes[i] = nodeSize(n)
	}
	for i, e := range g.Edges {
		lg.Edges[i] = layout.Edge{From: e[0], To: e[1]}
	}
	return layout.Layered(lg, opt)
}

// SVG writes the graph as one <svg> element: a box per node (name, then opcode and shape; a collapsed
// fusion has a double border), an arrow per edge, and a title on each box and cut edge for tooltips.
func (g *Graph) SVG(w io.Writer, opt Options) error {
	l, err := g.Layout(opt.Layout)
	if err != nil {
		return err
	}
	id := opt.ID
	if id == "" {
		id = "n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="graph" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="ui-monospace,Menlo,Consolas,monospace" font-size="11">`+"\n",
		l.Width, l.Height, l.Width, l.Height)
	fmt.Fprintf(&b, `<title>%s</title>`+"\n", safetext.ShortHTML(g.Title, maxTitle))
	b.WriteString(`<rect width="100%" height="100%" fill="#ffffff"/>` + "\n")
	fmt.Fprintf(&b, `<defs><marker id="%s-arrow" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#4b5563"/></marker></defs>`+"\n", id)
	for i, p := range l.Edges {
		e := g.Edges[i]
		if p.Cut {
			// A stub under the source and one over the target, named in their titles.
			from, to := l.Nodes[e[0]], l.Nodes[e[1]]
			fx, fy := from.X+from.W/2, from.Y+from.H
			tx, ty := to.X+to.W/2, to.Y
			fmt.Fprintf(&b, `<g class="edge cut"><title>%s → %s</title><path d="M%.1f,%.1f v12" stroke="#9ca3af" stroke-dasharray="3,2" fill="none"/><path d="M%.1f,%.1f v12" stroke="#9ca3af" stroke-dasharray="3,2" fill="none" marker-end="url(#%s-arrow)"/></g>`+"\n",
				safetext.ShortHTML(g.Nodes[e[0]].Name, maxTitle), safetext.ShortHTML(g.Nodes[e[1]].Name, maxTitle), fx, fy, tx, ty-12, id)
			continue
		}
		if len(p.Points) < 2 {
			continue
		}
		b.WriteString(`<path class="edge" fill="none" stroke="#4b5563" stroke-width="1.2" d="`)
		writeCurve(&b, p.Points)
		fmt.Fprintf(&b, `" marker-end="url(#%s-arrow)"/>`+"\n", id)
	}
	for i, n := range g.Nodes {
		box := l.Nodes[i]
		c := palette[n.Role]
		href := ""
		if opt.Href != nil {
			href = opt.Href(n)
		}
		if href != "" {
			fmt.Fprintf(&b, `<a href="%s">`, html.EscapeString(href))
		}
		fmt.Fprintf(&b, `<g class="node %s" id="%s-%d" data-name="%s">`, n.Role, id, i, safetext.ShortHTML(n.Name, maxTitle))
		fmt.Fprintf(&b, `<title>%s</title>`, n.title())
		width := 1.2
		if n.Role == GEMMFused || n.Role == GEMMUnfused {
			width = 2.5
		}
		dash := ""
		if n.Role == Blocked || n.Role == Absorbed {
			dash = ` stroke-dasharray="4,2"`
		}
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="5" fill="%s" stroke="%s" stroke-width="%.1f"%s/>`,
			box.X, box.Y, box.W, box.H, c.Fill, c.Stroke, width, dash)
		if n.Collapsed {
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="3" fill="none" stroke="%s" stroke-width="0.8"/>`,
				box.X+3, box.Y+3, box.W-6, box.H-6, c.Stroke)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-weight="bold" fill="#111827">%s</text>`,
			box.X+box.W/2, box.Y+4+lineH-3, html.EscapeString(clip(n.Name)))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#374151">%s</text>`,
			box.X+box.W/2, box.Y+4+2*lineH-3, html.EscapeString(n.sub()))
		b.WriteString("</g>")
		if href != "" {
			b.WriteString("</a>")
		}
		b.WriteByte('\n')
	}
	b.WriteString("</svg>\n")
	_, err = io.WriteString(w, b.String())
	return err
}

// writeCurve writes a path through the points: straight down where the line is vertical, a smooth
// cubic between layers otherwise.
func writeCurve(b *strings.Builder, ps []layout.Point) {
	fmt.Fprintf(b, "M%.1f,%.1f", ps[0].X, ps[0].Y)
	for i := 1; i < len(ps); i++ {
		p, q := ps[i-1], ps[i]
		if p.X == q.X {
			fmt.Fprintf(b, " L%.1f,%.1f", q.X, q.Y)
			continue
		}
		my := (p.Y + q.Y) / 2
		fmt.Fprintf(b, " C%.1f,%.1f %.1f,%.1f %.1f,%.1f", p.X, my, q.X, my, q.X, q.Y)
	}
}

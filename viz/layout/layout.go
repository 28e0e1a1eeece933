package layout

import (
	"fmt"
	"sort"
)

// A Graph is what Layered lays out: boxes of given sizes and the edges between them.
type Graph struct {
	Nodes []Size
	Edges []Edge
}

// Size is the width and height of a node's box.
type Size struct{ W, H float64 }

// An Edge goes from node From to node To (indexes into Graph.Nodes).
type Edge struct{ From, To int }

// Options tune a layout; the zero value means the defaults.
type Options struct {
	// NodeGap is the least horizontal space between two boxes of a layer (default 16); LayerGap the
	// vertical space between layers (default 40); Margin the space around the drawing (default 8).
	NodeGap, LayerGap, Margin float64
	// MaxSpan is the most layers an edge may cross as a drawn line (default 8); a longer edge is cut.
	MaxSpan int
	// Sweeps is the number of down-and-up crossing-reduction sweeps (default 8).
	Sweeps int
}

// A Layout is a placed graph.
type Layout struct {
	// Nodes are the placed boxes, in the graph's node order.
	Nodes []Box
	// Edges are the routed edges, in the graph's edge order.
	Edges []Path
	// Width and Height are the size of the drawing, margins included.
	Width, Height float64
	// Layers is the number of layers; Crossings the crossings of the drawn edges between adjacent
	// layers, and InitialCrossings those of the initial order, before crossing reduction.
	Layers, Crossings, InitialCrossings int
	// Dummies is the number of bend points added for edges that span layers.
	Dummies int
}

// A Box is a placed node: its top-left corner, its size and its layer (0 at the top).
type Box struct {
	X, Y, W, H float64
	Layer      int
}

// A Path is a routed edge: its points from the source's bottom to the target's top. Reversed says the
// edge closed a cycle and is drawn from target to source (its points still run from source to target,
// upward). Cut says the edge spans more than MaxSpan layers: Points is then empty and the edge is drawn as
// stubs.
type Path struct {
	Points   []Point
	Reversed bool
	Cut      bool
}

// A Point is a position in the drawing.
type Point struct{ X, Y float64 }

// vertex is a node of the layered graph: a real node (node >= 0) or a dummy (node < 0).
type vertex struct {
	node  int
	layer int
	w, h  float64
	up    []int // vertices in the layer above linked to this one
	down  []int // vertices in the layer below
	pos   int   // index in its layer
	x     float64
}

// Layered lays g out in layers (see the package documentation). It returns an error for an edge whose
// ends are not nodes of g or a box with a negative or non-finite size.
func Layered(g *Graph, opt Options) (*Layout, error) {
	opt = defaults(opt)
	n := len(g.Nodes)
	for i, s := range g.Nodes {
		if !(s.W >= 0 && s.H >= 0 && s.W < 1e9 && s.H < 1e9) {
			return nil, fmt.Errorf("node %d: bad size %gx%g", i, s.W, s.H)
		}
	}
	for i, e := range g.Edges {
		if e.From < 0 || e.From >= n || e.To < 0 || e.To >= n {
			return nil, fmt.Errorf("edge %d: %d -> %d: not a node of the graph of %d nodes", i, e.From, e.To, n)
		}
	}
	edges, reversed := acyclic(n, g.Edges)
	layer := assignLayers(n, edges)

	// The layered graph: real nodes, then dummies along every edge that spans layers.
	vs := make([]*vertex, n)
	nlayers := 0
	for i := range n {
		vs[i] = &vertex{node: i, layer: layer[i], w: g.Nodes[i].W, h: g.Nodes[i].H}
		nlayers = max(nlayers, layer[i]+1)
	}
	chains := make([][]int, len(edges)) // the vertices of each edge, source to target; nil when cut or a self-loop
	cut := make([]bool, len(edges))
	for i, e := range edges {
		if e.From == e.To {
			continue
		}
		span := layer[e.To] - layer[e.From]
		if span > opt.MaxSpan {
			cut[i] = true
			continue
		}
		chain := []int{e.From}
		for l := layer[e.From] + 1; l < layer[e.To]; l++ {
			vs = append(vs, &vertex{node: -1, layer: l})
			chain = append(chain, len(vs)-1)
		}
		chain = append(chain, e.To)
		for k := 0; k+1 < len(chain); k++ {
			vs[chain[k]].down = append(vs[chain[k]].down, chain[k+1])
			vs[chain[k+1]].up = append(vs[chain[k+1]].up, chain[k])
		}
		chains[i] = chain
	}
	layers := make([][]int, nlayers)
	for i, v := range vs {
		layers[v.layer] = append(layers[v.layer], i)
	}
	for _, l := range layers {
		for p, v := range l {
			vs[v].pos = p
		}
	}

	out := &Layout{Layers: nlayers, Dummies: len(vs) - n}
	out.InitialCrossings = totalCrossings(vs, layers)
	out.Crossings = reduceCrossings(vs, layers, opt.Sweeps, out.InitialCrossings)

	// Coordinates: layer tops from the tallest box of each layer; x from the placement.
	tops := make([]float64, nlayers)
	y := opt.Margin
	for l, members := range layers {
		tops[l] = y
		h := 0.0
		for _, v := range members {
			h = max(h, vs[v].h)
		}
		y += h + opt.LayerGap
	}
	out.Height = y - opt.LayerGap + opt.Margin
	if nlayers == 0 {
		out.Height = 2 * opt.Margin
	}
	place(vs, layers, opt.NodeGap)
	minX := 0.0
	first := true
	for _, v := range vs {
		if first || v.x-v.w/2 < minX {
			minX, first = v.x-v.w/2, false
		}
	}
	maxX := 0.0
	for _, v := range vs {
		v.x += opt.Margin - minX
		maxX = max(maxX, v.x+v.w/2)
	}
	out.Width = maxX + opt.Margin
	if len(vs) == 0 {
		out.Width = 2 * opt.Margin
	}

	out.Nodes = make([]Box, n)
	for i := range n {
		v := vs[i]
		out.Nodes[i] = Box{X: v.x - v.w/2, Y: tops[v.layer], W: v.w, H: v.h, Layer: v.layer}
	}
	out.Edges = make([]Path, len(g.Edges))
	for i := range edges {
		p := Path{Reversed: reversed[i], Cut: cut[i]}
		if chain := chains[i]; chain != nil {
			p.Points = make([]Point, 0, len(chain))
			for k, id := range chain {
				v := vs[id]
				switch {
				case k == 0:
					p.Points = append(p.Points, Point{v.x, tops[v.layer] + v.h})
				case k == len(chain)-1:
					p.Points = append(p.Points, Point{v.x, tops[v.layer]})
				default:
					// A dummy is a vertical run through its layer's band.
					p.Points = append(p.Points, Point{v.x, tops[v.layer]})
				}
			}
		}
		out.Edges[i] = p
	}
	spreadPorts(out.Edges, out.Nodes, edges, chains)
	return out, nil
}

// spreadPorts moves the ends of the edges that meet at one side of a box apart, evenly along that side,
// in the order of the points they come from, so that they neither meet in one point nor cross there.
func spreadPorts(paths []Path, boxes []Box, edges []Edge, chains [][]int) {
	type end struct {
		path  int
		other float64 // x of the neighbouring point, which orders the ends
	}
	in := make([][]end, len(boxes))
	out := make([][]end, len(boxes))
	for i, p := range paths {
		if chains[i] == nil || len(p.Points) < 2 {
			continue
		}
		n := len(p.Points)
		out[edges[i].From] = append(out[edges[i].From], end{i, p.Points[1].X})
		in[edges[i].To] = append(in[edges[i].To], end{i, p.Points[n-2].X})
	}
	place := func(ends []end, b Box, first bool) {
		if len(ends) < 2 {
			return
		}
		sort.SliceStable(ends, func(i, j int) bool { return ends[i].other < ends[j].other })
		for k, e := range ends {
			x := b.X + b.W*float64(k+1)/float64(len(ends)+1)
			pts := paths[e.path].Points
			if first {
				pts[0].X = x
			} else {
				pts[len(pts)-1].X = x
			}
		}
	}
	for v := range boxes {
		place(out[v], boxes[v], true)
		place(in[v], boxes[v], false)
	}
}

func defaults(o Options) Options {
	if o.NodeGap <= 0 {
		o.NodeGap = 16
	}
	if o.LayerGap <= 0 {
		o.LayerGap = 40
	}
	if o.Margin <= 0 {
		o.Margin = 8
	}
	if o.MaxSpan <= 0 {
		o.MaxSpan = 8
	}
	if o.Sweeps <= 0 {
		o.Sweeps = 8
	}
	return o
}

// acyclic returns the edges with those that close a cycle (back edges of a depth-first search from the
// nodes in order) reversed, and which were.
func acyclic(n int, in []Edge) ([]Edge, []bool) {
	succ := make([][]int, n) // edge indexes by source
	for i, e := range in {
		succ[e.From] = append(succ[e.From], i)
	}
	const (
		white = iota
		grey
		black
	)
	state := make([]uint8, n)
	out := append([]Edge(nil), in...)
	rev := make([]bool, len(in))
	type frame struct{ v, next int }
	var stack []frame
	for s := range n {
		if state[s] != white {
			continue
		}
		state[s] = grey
		stack = append(stack[:0], frame{s, 0})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next == len(succ[top.v]) {
				state[top.v] = black
				stack = stack[:len(stack)-1]
				continue
			}
			ei := succ[top.v][top.next]
			top.next++
			t := in[ei].To
			switch state[t] {
			case white:
				state[t] = grey
				stack = append(stack, frame{t, 0})
			case grey:
				if t != top.v {
					out[ei] = Edge{From: t, To: top.v}
					rev[ei] = true
				}
			}
		}
	}
	return out, rev
}

// assignLayers gives each node its longest path from a source, then moves every source down to the
// layer above its highest successor.
func assignLayers(n int, edges []Edge) []int {
	indeg := make([]int, n)
	succ := make([][]int, n)
	for _, e := range edges {
		if e.From == e.To {
			continue
		}
		succ[e.From] = append(succ[e.From], e.To)
		indeg[e.To]++
	}
	layer := make([]int, n)
	queue := make([]int, 0, n)
	for v := range n {
		if indeg[v] == 0 {
			queue = append(queue, v)
		}
	}
	for i := 0; i < len(queue); i++ {
		v := queue[i]
		for _, t := range succ[v] {
			layer[t] = max(layer[t], layer[v]+1)
			if indeg[t]--; indeg[t] == 0 {
				queue = append(queue, t)
			}
		}
	}
	hasPred := make([]bool, n)
	for _, e := range edges {
		if e.From != e.To {
			hasPred[e.To] = true
		}
	}
	for v := range n {
		if hasPred[v] || len(succ[v]) == 0 {
			continue
		}
		lowest := -1
		for _, t := range succ[v] {
			if lowest < 0 || layer[t] < lowest {
				lowest = layer[t]
			}
		}
		layer[v] = lowest - 1
	}
	return layer
}

// reduceCrossings reorders the layers by barycenter sweeps and leaves them in the order with the fewest
// crossings seen, which it returns.
func reduceCrossings(vs []*vertex, layers [][]int, sweeps, initial int) int {
	best := initial
	bestOrder := snapshot(layers)
	for s := 0; s < sweeps && best > 0; s++ {
		for l := 1; l < len(layers); l++ {
			orderBy(vs, layers[l], func(v *vertex) []int { return v.up })
		}
		for l := len(layers) - 2; l >= 0; l-- {
			orderBy(vs, layers[l], func(v *vertex) []int { return v.down })
		}
		if c := totalCrossings(vs, layers); c < best {
			best = c
			bestOrder = snapshot(layers)
		}
	}
	for l := range layers {
		copy(layers[l], bestOrder[l])
		for p, v := range layers[l] {
			vs[v].pos = p
		}
	}
	return best
}

func snapshot(layers [][]int) [][]int {
	s := make([][]int, len(layers))
	for i, l := range layers {
		s[i] = append([]int(nil), l...)
	}
	return s
}

// orderBy sorts a layer by the barycenter of each vertex's neighbours (positions in the adjacent layer);
// a vertex without neighbours keeps its position as its key.
func orderBy(vs []*vertex, layer []int, nbrs func(*vertex) []int) {
	key := make(map[int]float64, len(layer))
	for _, id := range layer {
		v := vs[id]
		ns := nbrs(v)
		if len(ns) == 0 {
			key[id] = float64(v.pos)
			continue
		}
		sum := 0.0
		for _, u := range ns {
			sum += float64(vs[u].pos)
		}
		key[id] = sum / float64(len(ns))
	}
	sort.SliceStable(layer, func(i, j int) bool { return key[layer[i]] < key[layer[j]] })
	for p, id := range layer {
		vs[id].pos = p
	}
}

// totalCrossings counts the crossings between every pair of adjacent layers.
func totalCrossings(vs []*vertex, layers [][]int) int {
	total := 0
	for l := 0; l+1 < len(layers); l++ {
		total += crossings(vs, layers[l])
	}
	return total
}

// crossings counts the crossings of the edges from layer to the layer below: with the edges sorted by
// their upper end then lower end, two cross exactly when their lower ends are inverted.
func crossings(vs []*vertex, layer []int) int {
	type pair struct{ a, b int }
	var es []pair
	for _, id := range layer {
		for _, d := range vs[id].down {
			es = append(es, pair{vs[id].pos, vs[d].pos})
		}
	}
	sort.Slice(es, func(i, j int) bool {
		if es[i].a != es[j].a {
			return es[i].a < es[j].a
		}
		return es[i].b < es[j].b
	})
	b := make([]int, len(es))
	for i, e := range es {
		b[i] = e.b
	}
	return inversions(b, make([]int, len(b)))
}

// inversions counts the pairs i < j with b[i] > b[j], by merge sort; it sorts b.
func inversions(b, tmp []int) int {
	if len(b) < 2 {
		return 0
	}
	m := len(b) / 2
	n := inversions(b[:m], tmp[:m]) + inversions(b[m:], tmp[m:])
	i, j, k := 0, m, 0
	for i < m && j < len(b) {
		if b[j] < b[i] {
			n += m - i
			tmp[k] = b[j]
			j++
		} else {
			tmp[k] = b[i]
			i++
		}
		k++
	}
	k += copy(tmp[k:], b[i:m])
	copy(tmp[k:], b[j:])
	copy(b, tmp[:len(b)])
	return n
}

// place gives every vertex its x (the middle of its box): first packed left to right, then, for a few
// rounds, each layer moved as close as its order and gaps allow to the mean x of its neighbours above
// (downward sweep) or below (upward sweep).
func place(vs []*vertex, layers [][]int, gap float64) {
	for _, l := range layers {
		x := 0.0
		for _, id := range l {
			v := vs[id]
			v.x = x + v.w/2
			x += v.w + gap
		}
	}
	want := func(l []int, nbrs func(*vertex) []int) {
		desired := make([]float64, len(l))
		for i, id := range l {
			v := vs[id]
			ns := nbrs(v)
			if len(ns) == 0 {
				desired[i] = v.x
				continue
			}
			sum := 0.0
			for _, u := range ns {
				sum += vs[u].x
			}
			desired[i] = sum / float64(len(ns))
		}
		fit(vs, l, desired, gap)
	}
	for range 4 {
		for l := 1; l < len(layers); l++ {
			want(layers[l], func(v *vertex) []int { return v.up })
		}
		for l := len(layers) - 2; l >= 0; l-- {
			want(layers[l], func(v *vertex) []int { return v.down })
		}
	}
	// A last pass on both neighbours at once balances nodes between their operands and users.
	for l := range layers {
		want(layers[l], func(v *vertex) []int { return append(append([]int(nil), v.up...), v.down...) })
	}
}

// fit sets the x of the layer's vertices to the positions closest to desired in the least-squares sense
// such that each box is at least gap right of the previous one: with offsets o_i (the least distance of
// vertex i's middle from vertex 0's), x_i - o_i must not decrease, which pool-adjacent-violators solves
// exactly in linear time.
func fit(vs []*vertex, l []int, desired []float64, gap float64) {
	if len(l) == 0 {
		return
	}
	off := make([]float64, len(l))
	for i := 1; i < len(l); i++ {
		off[i] = off[i-1] + vs[l[i-1]].w/2 + gap + vs[l[i]].w/2
	}
	type block struct {
		sum   float64
		count int
	}
	var blocks []block
	for i := range l {
		blocks = append(blocks, block{desired[i] - off[i], 1})
		for len(blocks) > 1 {
			a, b := blocks[len(blocks)-2], blocks[len(blocks)-1]
			if a.sum/float64(a.count) <= b.sum/float64(b.count) {
				break
			}
			blocks = blocks[:len(blocks)-2]
			blocks = append(blocks, block{a.sum + b.sum, a.count + b.count})
		}
	}
	i := 0
	for _, b := range blocks {
		mean := b.sum / float64(b.count)
		for range b.count {
			vs[l[i]].x = mean + off[i]
			i++
		}
	}
}

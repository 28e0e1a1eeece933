package verify_test

import (
	"fmt"
	"slices"
	"strings"

	"octet/fuse"
)

// The generator of FuzzRewriteVerifies: HLO modules of one dot in the shapes JAX and XLA write an FP8 or
// block-scaled GEMM in, each piece drawn from bytes. Every piece is one the rewrite has a rule for or one
// it must refuse next to such a rule: FP8 values of the Hopper types and of others, dequantizes in f32,
// bf16 and f16 (chained, scaled by a multiply or a divide, by a scalar or a vector, scale first or
// second), the ops that commute with a dequantize (copy, bitcast, transpose, reshapes, slices, dynamic
// slices and pads of a free dimension, selects against zero) and a pad of one, which does not, batch
// dimensions, two free or contracting dimensions, and after the dot any sequence of the epilogue's steps
// (alpha, output scales, biases, ReLU, both writings of GELU, converts, abs-max, clamps and converts to
// FP8, current scaling) and of steps no call absorbs, with intermediate values sometimes also outputs.

// choices reads the decisions of the generator from the fuzzer's bytes; past their end every choice is 0.
type choices struct {
	data []byte
	i    int
}

// n returns a choice in [0, k).
func (c *choices) n(k int) int {
	if c.i >= len(c.data) {
		return 0
	}
	v := int(c.data[c.i]) % k
	c.i++
	return v
}

// pct returns true with about p percent of the byte values.
func (c *choices) pct(p int) bool { return c.n(100) < p }

// pick returns one of xs.
func pick[T any](c *choices, xs ...T) T { return xs[c.n(len(xs))] }

// val is a value of the module being written: its name, element type and dimensions.
type val struct {
	name string
	typ  string
	dims []int
}

func shape(typ string, dims []int) string {
	s := make([]string, len(dims))
	for i, d := range dims {
		s[i] = fmt.Sprint(d)
	}
	return typ + "[" + strings.Join(s, ",") + "]"
}

type gen struct {
	c       *choices
	body    strings.Builder
	params  int
	id      int
	maxComp map[string]bool // types with a max computation for reduce
	outs    []val
}

func (g *gen) emit(prefix, typ string, dims []int, format string, args ...any) val {
	g.id++
	name := fmt.Sprintf("%s%d", prefix, g.id)
	fmt.Fprintf(&g.body, "  %s = %s %s\n", name, shape(typ, dims), fmt.Sprintf(format, args...))
	return val{name, typ, slices.Clone(dims)}
}

func (g *gen) param(prefix, typ string, dims []int) val {
	v := g.emit(prefix, typ, dims, "parameter(%d)", g.params)
	g.params++
	return v
}

func (g *gen) constant(typ, x string) val { return g.emit("k", typ, nil, "constant(%s)", x) }

// bcast broadcasts the scalar or vector s to dims, s's dimensions at dimensions.
func (g *gen) bcast(s val, dims []int, dimensions ...int) val {
	d := make([]string, len(dimensions))
	for i, x := range dimensions {
		d[i] = fmt.Sprint(x)
	}
	return g.emit("bc", s.typ, dims, "broadcast(%s), dimensions={%s}", s.name, strings.Join(d, ","))
}

// binary writes op(x, y), the operands in a drawn order where swap says it may.
func (g *gen) binary(op string, x, y val, swap bool) val {
	if swap && g.c.n(2) == 1 {
		x, y = y, x
	}
	dims := x.dims
	if len(y.dims) > len(dims) {
		dims = y.dims
	}
	return g.emit(op[:1], x.typ, dims, "%s(%s, %s)", op, x.name, y.name)
}

func (g *gen) convert(x val, typ string) val {
	return g.emit("cv", typ, x.dims, "convert(%s)", x.name)
}

// scalarOf returns a scalar of type typ: a parameter (converted from f32 sometimes) or a constant.
func (g *gen) scalarOf(typ string, constants ...string) val {
	switch g.c.n(3) {
	case 0:
		if typ != "f32" {
			return g.convert(g.param("s", "f32", nil), typ)
		}
		return g.param("s", typ, nil)
	case 1:
		return g.param("s", typ, nil)
	}
	return g.constant(typ, pick(g.c, constants...))
}

// operand is a dot operand as the generator shapes it: the indices of its batch, free and contracting
// dimensions (batch and contracting ones in the order the dot pairs them).
type operand struct {
	v                  val
	batch, free, contr []int
}

// layout makes an operand's dimensions: the batch sizes, then the free and contracting ones in an order
// drawn, and their indices.
func (g *gen) layout(batch, free, contr []int) ([]int, operand) {
	var o operand
	dims := slices.Clone(batch)
	for i := range batch {
		o.batch = append(o.batch, i)
	}
	type dim struct {
		size int
		free bool
		i    int
	}
	var rest []dim
	for i, f := range free {
		rest = append(rest, dim{f, true, i})
	}
	for i, c := range contr {
		rest = append(rest, dim{c, false, i})
	}
	for i := len(rest) - 1; i > 0; i-- { // a drawn order
		j := g.c.n(i + 1)
		rest[i], rest[j] = rest[j], rest[i]
	}
	o.free, o.contr = make([]int, len(free)), make([]int, len(contr))
	for _, d := range rest {
		if d.free {
			o.free[d.i] = len(dims)
		} else {
			o.contr[d.i] = len(dims)
		}
		dims = append(dims, d.size)
	}
	return dims, o
}

// commute applies one op that commutes with a dequantize, or sometimes one that does not (a pad of
// one), to the operand.
func (g *gen) commute(o operand) operand {
	free := pick(g.c, o.free...)
	switch g.c.n(10) {
	case 1:
		o.v = g.emit("cp", o.v.typ, o.v.dims, "copy(%s)", o.v.name)
	case 2:
		o.v = g.emit("bt", o.v.typ, o.v.dims, "bitcast(%s)", o.v.name)
	case 3: // a transpose of the dimensions after the first, or of all
		perm := make([]int, len(o.v.dims))
		for i := range perm {
			perm[i] = i
		}
		lo := 1
		if g.c.pct(30) {
			lo = 0
		}
		for i := len(perm) - 1; i > lo; i-- {
			j := lo + g.c.n(i-lo+1)
			perm[i], perm[j] = perm[j], perm[i]
		}
		dims, ps, where := make([]int, len(perm)), make([]string, len(perm)), make([]int, len(perm))
		for i, p := range perm {
			dims[i], ps[i], where[p] = o.v.dims[p], fmt.Sprint(p), i
		}
		o.v = g.emit("tr", o.v.typ, dims, "transpose(%s), dimensions={%s}", o.v.name, strings.Join(ps, ","))
		for _, idx := range [][]int{o.batch, o.free, o.contr} {
			for i := range idx {
				idx[i] = where[idx[i]]
			}
		}
	case 4:
		if n := o.v.dims[free]; n > 1 {
			lo := g.c.n(n)
			hi := lo + 1 + g.c.n(n-lo)
			dims := slices.Clone(o.v.dims)
			dims[free] = hi - lo
			sl := make([]string, len(dims))
			for i, d := range o.v.dims {
				sl[i] = fmt.Sprintf("[0:%d]", d)
			}
			sl[free] = fmt.Sprintf("[%d:%d]", lo, hi)
			o.v = g.emit("sl", o.v.typ, dims, "slice(%s), slice={%s}", o.v.name, strings.Join(sl, ","))
		}
	case 5, 6:
		pad := "0"
		if g.c.pct(15) {
			pad = "1"
		}
		z := g.constant(o.v.typ, pad)
		lo, hi := g.c.n(3), g.c.n(4)
		dims := slices.Clone(o.v.dims)
		dims[free] += lo + hi
		ps := make([]string, len(dims))
		for i := range ps {
			ps[i] = "0_0"
		}
		ps[free] = fmt.Sprintf("%d_%d", lo, hi)
		o.v = g.emit("pd", o.v.typ, dims, "pad(%s, %s), padding=%s", o.v.name, z.name, strings.Join(ps, "x"))
	case 7: // a reshape splitting a free dimension in two
		n := o.v.dims[free]
		p := 2
		for p < n && n%p != 0 {
			p++
		}
		if p >= n {
			break
		}
		dims := slices.Insert(slices.Clone(o.v.dims), free+1, n/p)
		dims[free] = p
		o.v = g.emit("rs", o.v.typ, dims, "reshape(%s)", o.v.name)
		for _, idx := range [][]int{o.batch, o.free, o.contr} {
			for i := range idx {
				if idx[i] > free {
					idx[i]++
				}
			}
		}
		o.free = append(o.free, free+1)
	case 8: // a dynamic-slice of a free dimension, at a parameter's index
		if n := o.v.dims[free]; n > 1 {
			size := 1 + g.c.n(n-1)
			z := g.constant("s32", "0")
			at := make([]string, len(o.v.dims))
			sizes := make([]string, len(o.v.dims))
			dims := slices.Clone(o.v.dims)
			dims[free] = size
			for i, d := range dims {
				at[i], sizes[i] = z.name, fmt.Sprint(d)
			}
			at[free] = g.param("i", "s32", nil).name
			o.v = g.emit("ds", o.v.typ, dims, "dynamic-slice(%s, %s), dynamic_slice_sizes={%s}", o.v.name,
				strings.Join(at, ", "), strings.Join(sizes, ","))
		}
	case 9: // a select against zero
		p := g.param("p", "pred", o.v.dims)
		z := g.bcast(g.constant(o.v.typ, "0"), o.v.dims)
		if g.c.n(2) == 0 {
			o.v = g.emit("se", o.v.typ, o.v.dims, "select(%s, %s, %s)", p.name, o.v.name, z.name)
		} else {
			o.v = g.emit("se", o.v.typ, o.v.dims, "select(%s, %s, %s)", p.name, z.name, o.v.name)
		}
	}
	return o
}

// fp8Type draws the element type of an FP8 operand, the Hopper ones most often.
func (g *gen) fp8Type() string {
	if g.c.pct(10) {
		return pick(g.c, "f8e4m3fnuz", "f8e5m2fnuz", "f8e4m3b11fnuz", "f8e3m4", "f8e4m3")
	}
	return pick(g.c, "f8e4m3fn", "f8e4m3fn", "f8e5m2")
}

// fp8Side writes one dot operand with the given batch, free and contracting sizes: an FP8 value
// dequantized in dq, or sometimes a wide value of type dq.
func (g *gen) fp8Side(name string, batch, free, contr []int, dq string) operand {
	dims, o := g.layout(batch, free, contr)
	if g.c.pct(8) {
		o.v = g.param(name, dq, dims)
		return g.commute(o)
	}
	o.v = g.param(name, g.fp8Type(), dims)
	if g.c.pct(40) {
		o = g.commute(o)
	}
	if dq == "f32" && g.c.pct(15) {
		o.v = g.convert(o.v, pick(g.c, "bf16", "f16"))
	}
	o.v = g.convert(o.v, dq)
	if g.c.pct(30) {
		o = g.commute(o)
	}
	switch g.c.n(6) {
	case 1, 2:
		o.v = g.binary("multiply", o.v, g.bcast(g.scalarOf(dq, "2", "0.5", "0.1", "-3", "448"), o.v.dims), true)
	case 3:
		o.v = g.binary("divide", o.v, g.bcast(g.scalarOf(dq, "2", "0.1", "3"), o.v.dims), false)
	case 4:
		if g.c.pct(30) { // a per-channel scale: a vector along a free dimension
			f := pick(g.c, o.free...)
			s := g.param("sv", dq, []int{o.v.dims[f]})
			o.v = g.binary("multiply", o.v, g.bcast(s, o.v.dims, f), true)
		} else if g.c.pct(50) { // a scale of one element, reshaped to a scalar
			s := g.emit("rs", dq, nil, "reshape(%s)", g.param("s", dq, []int{1}).name)
			o.v = g.binary("multiply", o.v, g.bcast(s, o.v.dims), true)
		}
	}
	if g.c.pct(30) {
		o = g.commute(o)
	}
	return o
}

// floatTypes are the types a dot computes in and an epilogue converts between.
var floatTypes = []string{"f32", "f32", "bf16", "f16"}

// maxOf names the max computation of type typ for a reduce.
func (g *gen) maxOf(typ string) string {
	g.maxComp[typ] = true
	return "max_" + typ
}

// epilogue writes the steps after the dot: up to six of the ones a call absorbs, in any order, and
// others. It returns the last value, which the module outputs.
func (g *gen) epilogue(x val) val {
	zero := func(typ string) val { return g.bcast(g.constant(typ, "0"), x.dims) }
	// The steps: most often a subsequence of cuBLASLt's order (alpha, matrix bias, vector bias, an
	// activation, the abs-max, the output scale, a convert, the clamp and convert to FP8), else any steps
	// in any order.
	var steps []int
	users := 10
	if g.c.pct(60) {
		users = 3
		order := []int{0, 3, 2, 4, 7, 1, 6, 8}
		if g.c.pct(20) {
			order = []int{0, 3, 2, 4, 12} // current scaling, which takes its own abs-max and scale
		}
		for _, step := range order {
			if step == 4 && g.c.pct(50) {
				step = 5
			}

			if g.c.pct(40) || step == 12 {
				steps = append(steps, step)
			}
		}
	} else {
		for range g.c.n(7) {
			steps = append(steps, g.c.n(13))
		}
	}
	for _, step := range steps {
		if g.c.pct(users) {
			g.outs = append(g.outs, x) // the value is also an output: another user
		}
		switch step {
		case 0: // alpha
			x = g.binary("multiply", x, g.bcast(g.constant(x.typ, pick(g.c, "2", "0.5", "-1.5", "3")), x.dims), true)
		case 1: // an output scale
			x = g.binary(pick(g.c, "multiply", "divide"), x, g.bcast(g.scalarOf(x.typ, "2", "0.25"), x.dims), false)
		case 2: // a vector bias, along the last dimension (or, seldom, the one before)
			dim := len(x.dims) - 1
			if g.c.pct(15) {
				dim--
			}
			b := g.param("bias", x.typ, []int{x.dims[dim]})
			x = g.binary("add", x, g.bcast(b, x.dims, dim), true)
		case 3: // a matrix bias
			x = g.binary("add", x, g.param("c", x.typ, x.dims), true)
		case 4: // ReLU
			x = g.binary("maximum", x, zero(x.typ), true)
		case 5: // GELU
			x = g.gelu(x)
		case 6:
			x = g.convert(x, pick(g.c, floatTypes...))
		case 7: // the abs-max, an output of its own
			y := x
			if g.c.pct(80) {
				y = g.emit("abs", x.typ, x.dims, "abs(%s)", x.name)
			}
			all := make([]string, len(x.dims))
			for i := range all {
				all[i] = fmt.Sprint(i)
			}
			init := g.constant(x.typ, pick(g.c, "0", "-inf"))
			g.outs = append(g.outs, g.emit("amax", x.typ, nil, "reduce(%s, %s), dimensions={%s}, to_apply=%s",
				y.name, init.name, strings.Join(all, ","), g.maxOf(x.typ)))
		case 8: // a clamp and a convert to FP8, the last step
			f8 := pick(g.c, "f8e4m3fn", "f8e4m3fn", "f8e5m2", "f8e4m3fnuz")
			hi := pick(g.c, map[string]string{"f8e4m3fn": "448", "f8e5m2": "57344", "f8e4m3fnuz": "240"}[f8], "448", "100")
			lo, hib := g.bcast(g.constant(x.typ, "-"+hi), x.dims), g.bcast(g.constant(x.typ, hi), x.dims)
			if g.c.pct(80) {
				x = g.emit("cl", x.typ, x.dims, "clamp(%s, %s, %s)", lo.name, x.name, hib.name)
			}
			return g.convert(x, f8)
		case 9: // steps no call absorbs
			x = g.emit("u", x.typ, x.dims, "%s(%s)", pick(g.c, "negate", "exponential", "abs"), x.name)
		case 10:
			x = g.binary("minimum", x, zero(x.typ), true)
		case 11:
			x = g.binary("add", x, x, false)
		case 12: // current scaling: x divided by its own abs-max over 448, clamped, converted to FP8
			all := make([]string, len(x.dims))
			for i := range all {
				all[i] = fmt.Sprint(i)
			}
			a := g.emit("abs", x.typ, x.dims, "abs(%s)", x.name)
			amax := g.emit("amax", x.typ, nil, "reduce(%s, %s), dimensions={%s}, to_apply=%s", a.name, g.constant(x.typ, "0").name,
				strings.Join(all, ","), g.maxOf(x.typ))
			s := g.binary("divide", amax, g.constant(x.typ, "448"), false)
			g.outs = append(g.outs, s)
			x = g.binary("divide", x, g.bcast(s, x.dims), false)
			lo, hi := g.bcast(g.constant(x.typ, "-448"), x.dims), g.bcast(g.constant(x.typ, "448"), x.dims)
			x = g.emit("cl", x.typ, x.dims, "clamp(%s, %s, %s)", lo.name, x.name, hi.name)
			return g.convert(x, "f8e4m3fn")
		}
	}
	return x
}

// gelu writes the tanh approximation of GELU of x as XLA and JAX do, or with the half on x.
func (g *gen) gelu(x val) val {
	c := func(s string) val { return g.bcast(g.constant(x.typ, s), x.dims) }
	x2 := g.binary("multiply", x, x, false)
	x3 := g.binary("multiply", x2, x, false)
	t0 := g.binary("multiply", c("0.044715"), x3, true)
	t1 := g.binary("add", x, t0, true)
	t2 := g.binary("multiply", c("0.797884583"), t1, true)
	t3 := g.emit("th", x.typ, x.dims, "tanh(%s)", t2.name)
	t4 := g.binary("add", c("1"), t3, true)
	if g.c.n(2) == 0 {
		t5 := g.binary("multiply", c("0.5"), t4, true)
		return g.binary("multiply", x, t5, true)
	}
	hx := g.binary("multiply", c("0.5"), x, true)
	return g.binary("multiply", hx, t4, true)
}

// blockFormat is the element, scale and block size of a block-scaled operand.
type blockFormat struct {
	elem, scale string
	block       int
}

// blockFormats are the formats drawn: MX and NVFP4 most often, then pairs the rewrite refuses.
var blockFormats = []blockFormat{
	{"f8e4m3fn", "f8e8m0fnu", 32}, {"f8e5m2", "f8e8m0fnu", 32}, {"f4e2m1fn", "f8e8m0fnu", 32},
	{"f4e2m1fn", "f8e4m3fn", 16}, {"f8e4m3fn", "f8e8m0fnu", 32}, {"f4e2m1fn", "f8e4m3fn", 16},
	{"f6e2m3fn", "f8e8m0fnu", 32}, {"f6e3m2fn", "f8e8m0fnu", 32}, {"f8e4m3fn", "f8e8m0fnu", 16},
	{"f4e2m1fn", "f8e8m0fnu", 8}, {"f8e4m3fn", "f8e4m3fn", 32}, {"f8e4m3fn", "f8e8m0fnu", 64},
}

// blockSide writes one block-scaled dot operand (a block dequantize, the scales repeated over blocks of
// k) with free size rows and nb blocks, or sometimes a wide value of type dq.
func (g *gen) blockSide(name string, f blockFormat, rows, nb int, batch []int, dq string) operand {
	k := nb * f.block
	nbatch := len(batch)
	o := operand{free: []int{nbatch}, contr: []int{nbatch + 1}}
	for i := range batch {
		o.batch = append(o.batch, i)
	}
	dims := append(slices.Clone(batch), rows, k)
	sdims := append(slices.Clone(batch), rows, nb)
	bdims := append(slices.Clone(batch), rows, nb, f.block)
	bd := make([]int, nbatch+2)
	for i := range bd {
		bd[i] = i
	}
	if g.c.n(3) == 1 { // k first
		o.free[0], o.contr[0] = nbatch+1, nbatch
		dims[nbatch], dims[nbatch+1] = k, rows
		sdims[nbatch], sdims[nbatch+1] = nb, rows
		bdims = append(slices.Clone(batch), nb, f.block, rows)
		bd[nbatch+1] = nbatch + 2
	}
	if g.c.pct(10) {
		o.v = g.param(name, dq, dims)
		return o
	}
	x := g.convert(g.param(name, f.elem, dims), dq)
	s := g.convert(g.param(name+"_scale", f.scale, sdims), dq)
	rs := g.emit("rs", dq, dims, "reshape(%s)", g.bcast(s, bdims, bd...).name)
	o.v = g.binary("multiply", x, rs, true)
	if g.c.pct(10) { // a tensor scale, as NVFP4 has
		o.v = g.binary("multiply", o.v, g.bcast(g.scalarOf(dq, "2", "0.5"), o.v.dims), true)
	}
	return o
}

// generate writes a module of one dot drawn from data, and the options to rewrite it with.
func generate(data []byte) (string, fuse.Options) {
	g := &gen{c: &choices{data: data}, maxComp: map[string]bool{}}
	block := g.c.pct(35)
	var batch []int
	if g.c.pct(30) {
		batch = []int{1 + g.c.n(3)}
	}
	dq := pick(g.c, "f32", "f32", "f32", "bf16", "bf16", "bf16", "f16")
	rows, cols := 1+g.c.n(24), 1+g.c.n(24)
	var a, b operand
	if block {
		nb := 1 + g.c.n(3)
		fa := pick(g.c, blockFormats...)
		fb := fa
		if g.c.pct(20) {
			fb = pick(g.c, blockFormats...)
		}
		a = g.blockSide("a", fa, rows, nb, batch, dq)
		b = g.blockSide("b", fb, cols, nb, batch, dq)
		if ka, kb := a.v.dims[a.contr[0]], b.v.dims[b.contr[0]]; ka != kb { // formats of other block sizes
			b = g.blockSideK(b, ka, dq)
		}
	} else {
		sizes := func(first int) []int { // one dimension, or sometimes two
			if g.c.pct(80) {
				return []int{first}
			}
			return []int{1 + first%5, 1 + g.c.n(6)}
		}
		contr := sizes(1 + g.c.n(48))
		a = g.fp8Side("a", batch, sizes(rows), contr, dq)
		b = g.fp8Side("b", batch, sizes(cols), contr, dq)
	}
	d := g.dot(a, b, dq)
	if g.c.pct(10) {
		g.outs = append(g.outs, d)
	}
	last := g.epilogue(d)
	g.outs = append([]val{last}, g.outs...)
	if !block && g.c.pct(15) { // a second dot sharing A (a layer's input read by two weights)
		k := make([]int, len(a.contr))
		for i, c := range a.contr {
			k[i] = a.v.dims[c]
		}
		c := g.fp8Side("c", batch, []int{1 + g.c.n(24)}, k, dq)
		g.outs = append(g.outs, g.epilogue(g.dot(a, c, dq)))
	}
	if strings.HasPrefix(last.typ, "f8") && g.c.pct(40) { // the next layer reads the FP8 result
		g.outs = append(g.outs, g.nextLayer(last, len(batch), dq))
	}

	var m strings.Builder
	m.WriteString("HloModule generated\n\n")
	for _, t := range []string{"f32", "bf16", "f16"} {
		if g.maxComp[t] {
			fmt.Fprintf(&m, "max_%[1]s {\n  x = %[1]s[] parameter(0)\n  y = %[1]s[] parameter(1)\n  ROOT m = %[1]s[] maximum(x, y)\n}\n\n", t)
		}
	}
	m.WriteString("ENTRY main {\n")
	m.WriteString(g.body.String())
	if len(g.outs) == 1 {
		fmt.Fprintf(&m, "  ROOT out = %s copy(%s)\n}\n", shape(last.typ, last.dims), last.name)
	} else {
		names, shapes := make([]string, len(g.outs)), make([]string, len(g.outs))
		for i, o := range g.outs {
			names[i], shapes[i] = o.name, shape(o.typ, o.dims)
		}
		fmt.Fprintf(&m, "  ROOT out = (%s) tuple(%s)\n}\n", strings.Join(shapes, ", "), strings.Join(names, ", "))
	}
	opts := fuse.Options{ABI: pick(g.c, fuse.ABICurrent, fuse.ABILegacy), Block: pick(g.c, fuse.BlockScaledDot, fuse.BlockCudnn)}
	return m.String(), opts
}

// nextLayer writes a dot that reads x, an FP8 result, as its A (dequantized, perhaps scaled), contracting
// x's last dimension with an FP8 B of its own, and the dot's epilogue; it returns the epilogue's value.
func (g *gen) nextLayer(x val, batch int, dq string) val {
	a := operand{v: g.convert(x, dq)}
	for i := range x.dims {
		switch {
		case i < batch:
			a.batch = append(a.batch, i)
		case i == len(x.dims)-1:
			a.contr = append(a.contr, i)
		default:
			a.free = append(a.free, i)
		}
	}
	if g.c.pct(50) {
		a.v = g.binary("multiply", a.v, g.bcast(g.scalarOf(dq, "2", "0.5"), a.v.dims), true)
	}
	b := g.fp8Side("w", x.dims[:batch], []int{1 + g.c.n(24)}, []int{x.dims[len(x.dims)-1]}, dq)
	return g.epilogue(g.dot(a, b, dq))
}

// dot writes the dot of a and b, its result of type dq or sometimes another.
func (g *gen) dot(a, b operand, dq string) val {
	out := dq
	if g.c.pct(30) {
		out = pick(g.c, floatTypes...)
	}
	var dims []int
	for _, i := range a.batch {
		dims = append(dims, a.v.dims[i])
	}
	for _, o := range []operand{a, b} {
		for _, f := range slices.Sorted(slices.Values(o.free)) { // in the operand's order, as a dot's are
			dims = append(dims, o.v.dims[f])
		}
	}
	list := func(xs []int) string {
		s := make([]string, len(xs))
		for i, x := range xs {
			s[i] = fmt.Sprint(x)
		}
		return strings.Join(s, ",")
	}
	bdims := ""
	if len(a.batch) > 0 {
		bdims = fmt.Sprintf("lhs_batch_dims={%s}, rhs_batch_dims={%s}, ", list(a.batch), list(b.batch))
	}
	return g.emit("dot", out, dims, "dot(%s, %s), %slhs_contracting_dims={%s}, rhs_contracting_dims={%s}",
		a.v.name, b.v.name, bdims, list(a.contr), list(b.contr))
}

// blockSideK replaces the operand o, whose contracting size differs from k, by a wide one of size k
// (formats of different block sizes cannot share a k otherwise).
func (g *gen) blockSideK(o operand, k int, dq string) operand {
	dims := slices.Clone(o.v.dims)
	dims[o.contr[0]] = k
	o.v = g.param("w", dq, dims)
	return o
}

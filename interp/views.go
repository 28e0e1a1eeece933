package interp

import (
	"slices"

	"octet/hlo"
	"octet/tensor"
)

// A broadcast whose every user is an elementwise instruction of the float32 domain (add, multiply,
// maximum, clamp, ...) is not laid out in memory: its value is its operand, and its users read that
// operand through the broadcast's index map, chunk by chunk, each chunk of the broadcast written into a
// few KiB of scratch. The batch norm of an unoptimized module broadcasts a mean, a scale and a bias to
// the size of the activations for every layer, and a ReLU broadcasts its zero: laying them out writes
// and reads back arrays as large as the activations for values that fit in L1. A broadcast scalar whose
// users are s32 or u32 arithmetic, logic or shifts is read the same way (JAX's random numbers over a large
// array add keys and shift by constants so). The users compute the same operation on the same values, so
// every element keeps its bits.

// A bcastView is the index map of a broadcast whose operand's dimensions are a run of consecutive
// dimensions of the result (dimensions of size 1 aside): element i of the result is element (i/q)%p of
// the operand, which has p elements.
type bcastView struct {
	p, q int64
}

// viewOf returns the index map of broadcast in, or nil where its dimensions are not of that form.
func viewOf(in *hlo.Instruction) *bcastView {
	x := in.Operand(0)
	if x == nil || !x.Shape.IsArray() || !in.Shape.IsArray() || x.Shape.Elem != in.Shape.Elem {
		return nil
	}
	out, od := in.Shape.Dims, x.Shape.Dims
	dims := in.Ints("dimensions")
	if len(dims) != len(od) || product(od) == 0 {
		return nil // an empty operand is not one element repeated
	}
	// The result's dimensions that the operand's (of more than one element) map to, in order.
	var mapped []int64
	for i, d := range dims {
		if d < 0 || d >= int64(len(out)) || out[d] != od[i] || len(mapped) > 0 && d <= mapped[len(mapped)-1] {
			return nil
		}
		if od[i] > 1 {
			mapped = append(mapped, d)
		}
	}
	v := &bcastView{p: 1, q: 1}
	if len(mapped) == 0 {
		return v // one element
	}
	// Between the first and last of them, every dimension of more than one element is one of them.
	for d := mapped[0]; d <= mapped[len(mapped)-1]; d++ {
		if out[d] > 1 && !slices.Contains(mapped, d) {
			return nil
		}
	}
	v.p = product(od)
	v.q = product(out[mapped[len(mapped)-1]+1:])
	return v
}

// viewUser reports whether u, a user of a broadcast v of n elements, can read it as a view: it preserves
// the type, and it is a float32-domain elementwise instruction, which evaluates its operands chunk by chunk
// through float32Chunks, or v has one element and u is an s32 or u32 operation binaryInt32 computes (as
// the counters and Threefry rounds of JAX's random numbers over a large array are, with their constant
// shifts and keys).
func viewUser(u *hlo.Instruction, v *bcastView, n int64) bool {
	if !u.Shape.IsArray() || u.Shape.NumElements() != n {
		return false
	}
	for _, o := range u.Operands() {
		if !o.Shape.IsArray() || o.Shape.Elem != u.Shape.Elem {
			return false
		}
	}
	switch {
	case int32Types(u.Shape.Elem):
		return v.p == 1 && len(u.Operands()) == 2 && int32Op(u.Opcode)
	case domainOf(u.Shape.Elem) != domFloat32:
		return false
	case u.Opcode == hlo.OpClamp:
		return len(u.Operands()) == 3
	case u.Opcode.IsElementwiseBinary():
		return len(u.Operands()) == 2 && binaryF32(u.Opcode) != nil
	}
	return false
}

// planViews sets k.views for the broadcasts of c that are read as views, and k.viewUsers for their users.
func (k *compiled) planViews(c *hlo.Computation) {
	users := map[*hlo.Instruction][]*hlo.Instruction{}
	for _, in := range c.Instructions {
		for _, o := range in.Operands() {
			users[o] = append(users[o], in)
		}
	}
	for i, in := range c.Instructions {
		if k.grouped(i) {
			continue // a broadcast of a group is a step of its fusion
		}
		if in.Opcode != hlo.OpBroadcast || in == c.Root || len(users[in]) == 0 || !in.Shape.IsArray() ||
			domainOf(in.Shape.Elem) != domFloat32 && !int32Types(in.Shape.Elem) {
			continue
		}
		v := viewOf(in)
		if v == nil {
			continue
		}
		n := in.Shape.NumElements()
		ok := true
		for _, u := range users[in] {
			ok = ok && viewUser(u, v, n) && !k.grouped(k.index[u]) // a group reads its operands whole
		}
		if !ok {
			continue
		}
		if k.views == nil {
			k.views = make([]*bcastView, len(c.Instructions))
			k.viewUsers = make([]bool, len(c.Instructions))
		}
		k.views[i] = v
		for _, u := range users[in] {
			k.viewUsers[k.index[u]] = true
		}
	}
}

// instViews says how an instruction takes part in views: it is a broadcast read as one (self), or it
// reads some among its operands (operands: their views, nil for the others).
type instViews struct {
	self     bool
	operands []*bcastView
}

// viewSelf is the instViews of every broadcast read as a view.
var viewSelf = &instViews{self: true}

// viewsAt returns how instruction i of a computation compiled as k, in, takes part in views: nil where it
// does not.
func (k *compiled) viewsAt(in *hlo.Instruction, i int) *instViews {
	switch {
	case k.views == nil:
		return nil
	case k.views[i] != nil:
		return viewSelf
	case !k.viewUsers[i]:
		return nil
	}
	vs := make([]*bcastView, len(in.Operands()))
	for j, o := range in.Operands() {
		vs[j] = k.views[k.index[o]]
	}
	return &instViews{operands: vs}
}

// evalViews evaluates an elementwise instruction some of whose operands are broadcasts read as views (vs,
// nil for the others), as its own evaluator evaluates it on the broadcasts laid out.
func (e *evaluator) evalViews(in *hlo.Instruction, ops []Value, vs []*bcastView) (Value, error) {
	ts, err := arrays(in, ops)
	if err != nil {
		return Value{}, err
	}
	n := in.Shape.NumElements()
	for j, t := range ts {
		// A clamp's bounds may be scalars, read as broadcast (clamp and float32ChunksViews do).
		bound := in.Opcode == hlo.OpClamp && j != 1 && t.NumElements() == 1
		if vs[j] != nil && t.NumElements() != vs[j].p || vs[j] == nil && t.NumElements() != n && !bound {
			return Value{}, errorf(in, "operand %d is %s, the result %s", j, t, in.Shape.String())
		}
	}
	var r *tensor.Tensor
	if int32Types(in.Shape.Elem) {
		r = e.binaryInt32(in.Opcode, in.Shape.Elem, ts[0], ts[1], in.Shape.Dims)
	} else if in.Opcode == hlo.OpClamp {
		r, err = e.clampViews(in, ts, vs)
	} else if r = e.binaryFloat32(in, ts[0], ts[1], vs); r == nil {
		err = unsupportedf(in, "%s of %s", in.Opcode, in.Shape.Elem)
	}
	if err != nil {
		return Value{}, err
	}
	return ArrayValue(r), nil
}

// viewChunk is an operand read through a view, decoded to float32 once.
type viewChunk struct {
	v     *bcastView
	small []float32
}

// newViewChunk decodes the operand of a view.
func newViewChunk(v *bcastView, t *tensor.Tensor) *viewChunk {
	return &viewChunk{v: v, small: f32s(t)}
}

// periodic returns, for a view of q == 1 whose period fits a chunk, an array holding the period repeated
// to chunkElements plus one period, from which the chunk starting at any element is a slice; else nil.
func (c *viewChunk) periodic() []float32 {
	p := int(c.v.p)
	if c.v.q != 1 || p > chunkElements {
		return nil
	}
	s := make([]float32, chunkElements+p)
	for i := 0; i < len(s); i += p {
		copy(s[i:], c.small)
	}
	return s
}

// fill writes elements [c0, c0+len(dst)) of the broadcast into dst.
func (c *viewChunk) fill(dst []float32, c0 int) {
	p, q := int(c.v.p), int(c.v.q)
	for i := 0; i < len(dst); {
		g := c0 + i
		b := g / q
		run := min((b+1)*q-g, len(dst)-i)
		if q == 1 {
			// A run of consecutive elements of the operand.
			run = min(p-b%p, len(dst)-i)
			copy(dst[i:i+run], c.small[b%p:])
		} else {
			v := c.small[b%p]
			for j := range dst[i : i+run] {
				dst[i+j] = v
			}
		}
		i += run
	}
}

// clampViews evaluates a clamp some of whose operands are broadcasts read as views: one of a single
// element is that element, as clamp takes it; others are read chunk by chunk through their views.
func (e *evaluator) clampViews(in *hlo.Instruction, ts []*tensor.Tensor, vs []*bcastView) (*tensor.Tensor, error) {
	if len(ts) != 3 {
		return nil, errorf(in, "clamp takes three operands")
	}
	if vs[1] == nil && (vs[0] == nil || ts[0].NumElements() == 1) && (vs[2] == nil || ts[2].NumElements() == 1) {
		return e.clamp(in, ts)
	}
	return e.float32ChunksViews(in.Shape.Elem, in.Shape.Dims, ts, vs, func(dst []float32, xs [][]float32) {
		clampSliceF32(dst, xs[0], xs[1], xs[2])
	}), nil
}

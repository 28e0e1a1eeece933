package interp

import (
	"math"

	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

// A choiceProg is a reducer that only chooses: with n pairs of parameters (accumulators p_0..p_{n-1},
// elements p_n..p_{2n-1}), each result k is p_k or p_{n+k}, picked by comparisons between values of pair k
// (p_k with p_{n+k}, or either with itself) joined by logical operations. JAX's argmax and argmin are
// such reducers: a value and its index, the value kept unless the element's is greater (or NaN), the
// index kept unless the value is taken or ties with the lower index.
//
// The comparisons of pair k can only tell apart a few relations of its two values, its classes: for
// floats compared as floats (not in total order), less, equal, greater, the accumulator NaN, the element
// NaN, both NaN; for integers less, equal, greater. So the choice of every result is a function of the
// pairs' classes, which compileChoice tabulates by running the reducer's own program on one
// representative of each combination of classes, and a reduction then folds each element by
// classifying it against the accumulators and looking the choice up: the same results, element by
// element in the same order, as calling the program on each.
type choiceProg struct {
	pairs []choicePair
	// take[c] has bit k set when result k takes the element p_{n+k} for the combination of classes c
	// (the sum over the pairs of class_k * stride_k).
	take []uint64
}

type choicePair struct {
	t      dtype.Type
	stride int
	nclass int // classes of its relations: 6 for floats, 3 for integers
}

// Classes of a pair of floats; integers use the first three.
const (
	classLess = iota
	classEqual
	classGreater
	classAccNaN
	classElemNaN
	classBothNaN
)

// reduceChoices turns on the tabulated choice reducers; tests turn it off to compare.
var reduceChoices = true

// choiceLimit bounds the combinations of classes a choice reducer may have (three pairs of floats).
const choiceLimit = 216

// pairRoles walks c, whose parameters are n pairs (p_k, p_{n+k}), and returns the role of each
// instruction: k >= 0 for a value of pair k (a parameter of the pair, or a select between values of the
// pair), -1 for a pred computed from comparisons within pairs (compares that are not in total order,
// logical operations, pred constants); ok is false when c holds anything else, so that everything it
// computes is a function of the relations within its pairs.
func pairRoles(c *hlo.Computation, n int) (role map[*hlo.Instruction]int, ok bool) {
	role = map[*hlo.Instruction]int{}
	for i, p := range c.Params {
		role[p] = i % n
	}
	for k := 0; k < n; k++ {
		t := c.Params[k].Shape.Elem
		if c.Params[n+k].Shape.Elem != t || newChoicePair(t).nclass == 0 {
			return nil, false
		}
	}
	isPred := func(in *hlo.Instruction) bool {
		k, ok := role[in]
		return ok && k == -1
	}
	valueOf := func(in *hlo.Instruction) (int, bool) {
		k, ok := role[in]
		return k, ok && k >= 0
	}
	for _, in := range c.Instructions {
		if in.Opcode == hlo.OpParameter || in == c.Root && in.Opcode == hlo.OpTuple {
			continue
		}
		if !in.Shape.IsScalar() {
			return nil, false
		}
		ops := in.Operands()
		switch in.Opcode {
		case hlo.OpCompare:
			a, okA := valueOf(ops[0])
			b, okB := valueOf(ops[1])
			if !okA || !okB || a != b || in.Str("type") == "TOTALORDER" {
				return nil, false
			}
			role[in] = -1
		case hlo.OpAnd, hlo.OpOr, hlo.OpXor, hlo.OpNot:
			for _, o := range ops {
				if !isPred(o) {
					return nil, false
				}
			}
			role[in] = -1
		case hlo.OpConstant:
			if in.Shape.Elem != dtype.PRED {
				return nil, false
			}
			role[in] = -1
		case hlo.OpSelect:
			a, okA := valueOf(ops[1])
			b, okB := valueOf(ops[2])
			if !isPred(ops[0]) || !okA || !okB || a != b {
				return nil, false
			}
			role[in] = a
		default:
			return nil, false
		}
	}
	return role, true
}

// compileChoice returns c as a choice reducer, or nil when it is not one. prog is c compiled.
func compileChoice(c *hlo.Computation, prog *scalarProg) *choiceProg {
	if prog == nil || len(c.Params)%2 != 0 || len(c.Params) == 0 || c.Root == nil {
		return nil
	}
	n := len(c.Params) / 2
	if len(prog.outs) != n {
		return nil
	}
	role, ok := pairRoles(c, n)
	if !ok {
		return nil
	}
	results := []*hlo.Instruction{c.Root}
	if c.Root.Opcode == hlo.OpTuple {
		results = c.Root.Operands()
	}
	if len(results) != n {
		return nil
	}
	for k, r := range results {
		if p, ok := role[r]; !ok || p != k || prog.outTypes[k] != c.Params[k].Shape.Elem {
			return nil
		}
	}

	ch := &choiceProg{pairs: make([]choicePair, n)}
	combos := 1
	for k := n - 1; k >= 0; k-- {
		p := newChoicePair(c.Params[k].Shape.Elem)
		if p.nclass == 0 || combos*p.nclass > choiceLimit {
			return nil
		}
		p.stride = combos
		combos *= p.nclass
		ch.pairs[k] = p
	}
	// Run the program on a representative of each combination and see which side each result took: the
	// representatives of a class differ in their bits (+0 and -0 for equal floats, NaNs of both signs),
	// except where the type has one encoding for both (an equal integer, a type with one NaN), where the
	// side does not matter.
	ch.take = make([]uint64, combos)
	regs := make([]uint64, prog.nregs)
	for combo := range ch.take {
		accs, elems := make([]uint64, n), make([]uint64, n)
		occurs := true
		for k, p := range ch.pairs {
			var ok, in bool
			accs[k], elems[k], in, ok = p.representatives(combo / p.stride % p.nclass)
			if !ok {
				return nil
			}
			occurs = occurs && in
		}
		if !occurs {
			continue
		}
		clear(regs)
		for k := range n {
			regs[prog.params[k]], regs[prog.params[n+k]] = accs[k], elems[k]
		}
		prog.run(regs)
		for k := range n {
			switch got := regs[prog.outs[k]]; {
			case got == accs[k]:
			case got == elems[k]:
				ch.take[combo] |= 1 << k
			default:
				return nil
			}
		}
	}
	return ch
}

// newChoicePair returns the classification of values of type t (nclass 0 when there is none).
func newChoicePair(t dtype.Type) choicePair {
	p := choicePair{t: t}
	switch {
	case t.IsFloat():
		p.nclass = 6
	case domainOf(t) == domInt && t != dtype.PRED:
		p.nclass = 3
	}
	return p
}

// class returns the class of accumulator a and element x, given as bits, from their keys.
func (p *choicePair) class(a, x uint64) int {
	t := tensor.New(p.t, []int64{2})
	t.SetBitsAt(0, a)
	t.SetBitsAt(1, x)
	k := p.newKeys(2)
	p.keys(t.Data, k, 2)
	if p.float() {
		return floatClass(k.f[0], k.f[1])
	}
	return orderClass(k.i[0], k.i[1])
}

// representatives returns an accumulator and an element of the pair's type in class c: in is false for
// a NaN class of a type without NaN (which never occurs), ok false if the values are not of their class.
func (p *choicePair) representatives(c int) (acc, elem uint64, in, ok bool) {
	acc, elem = representativeBits(p.t, c)
	if p.class(acc, elem) == c {
		return acc, elem, true, true
	}
	if c >= classAccNaN && !math.IsNaN(p.t.DecodeFloat64(p.t.EncodeFloat64(math.NaN()))) {
		return 0, 0, false, true
	}
	return 0, 0, false, false
}

// representativeBits returns an accumulator and an element of type t in class c.
func representativeBits(t dtype.Type, c int) (acc, elem uint64) {
	if domainOf(t) == domInt {
		switch c {
		case classLess:
			return 1, 2
		case classEqual:
			return 1, 1
		}
		return 2, 1
	}
	enc := t.EncodeFloat64
	if t == dtype.F64 {
		enc = math.Float64bits
	}
	nan, negNaN := enc(math.NaN()), enc(math.Copysign(math.NaN(), -1))
	switch c {
	case classLess:
		return enc(1), enc(2)
	case classEqual:
		return enc(0), enc(math.Copysign(0, -1))
	case classGreater:
		return enc(2), enc(1)
	case classAccNaN:
		return nan, enc(1)
	case classElemNaN:
		return enc(1), nan
	}
	return nan, negNaN
}

// A compareTable is a computation of two scalars of one type answering a pred from comparisons between
// them (select-and-scatter's select: GE for the gradient of a max pool), tabulated by the class of the
// two values as a choice reducer's choices are.
type compareTable struct {
	pair choicePair
	yes  [6]bool // the answer by class of (p0, p1)
}

// compileCompareTable returns c as a compareTable, or nil when it is not one. prog is c compiled.
func compileCompareTable(c *hlo.Computation, prog *scalarProg) *compareTable {
	if prog == nil || len(c.Params) != 2 || len(prog.outs) != 1 || prog.outTypes[0] != dtype.PRED || c.Root == nil {
		return nil
	}
	role, ok := pairRoles(c, 1)
	if r, isRole := role[c.Root]; !ok || !isRole || r != -1 {
		return nil
	}
	ct := &compareTable{pair: newChoicePair(c.Params[0].Shape.Elem)}
	regs := make([]uint64, prog.nregs)
	for class := range ct.pair.nclass {
		a, x, in, ok := ct.pair.representatives(class)
		if !ok {
			return nil
		}
		if !in {
			continue
		}
		clear(regs)
		regs[prog.params[0]], regs[prog.params[1]] = a, x
		prog.run(regs)
		ct.yes[class] = regs[prog.outs[0]]&1 != 0
	}
	return ct
}

// answer returns the computation's answer for the values of keys at a and x (decoded by
// choicePair.keys).
func (ct *compareTable) answer(keys choiceKeys, a, x int64) bool {
	if ct.pair.float() {
		return ct.yes[floatClass(keys.f[a], keys.f[x])]
	}
	return ct.yes[orderClass(keys.i[a], keys.i[x])]
}

// choiceBlock is how many elements of a run are decoded to keys at a time.
const choiceBlock = 2048

// reduce folds each of the outN runs of run consecutive elements of the inputs (laid out so, one per
// pair) into outs, starting from the initial values, the runs shared among threads goroutines. The
// comparisons are made on keys: float64 for floats (every narrower float converts exactly), int64 for
// integers (u64 with its top bit flipped, so that the order is kept); the results are the bits of the
// initial value or of the element last taken.
func (ch *choiceProg) reduce(threads int, inputs, inits, outs []*tensor.Tensor, outN, run int64) {
	n := len(ch.pairs)
	argmax := n == 2 && ch.pairs[0].float() && !ch.pairs[1].float()
	var table [6 * 3]uint8
	if argmax {
		for c := range table {
			table[c] = uint8(ch.take[c])
		}
	}
	parallelFor(threads, int(outN), int(max(1, 1<<16/max(run, 1))), func(lo, hi int) {
		keys := make([]choiceKeys, n)
		accs := make([]choiceKeys, n) // one key each: the accumulator's
		pos := make([]int64, n)       // element the accumulator holds, -1 for the initial value
		acc0 := make([]choiceKeys, n)
		for k, p := range ch.pairs {
			keys[k], accs[k], acc0[k] = p.newKeys(choiceBlock), p.newKeys(1), p.newKeys(1)
			p.keys(inits[k].Data, acc0[k], 1)
		}
		for o := int64(lo); o < int64(hi); o++ {
			for k := range accs {
				copy(accs[k].f, acc0[k].f)
				copy(accs[k].i, acc0[k].i)
				pos[k] = -1
			}
			for j0 := int64(0); j0 < run; j0 += choiceBlock {
				m := min(run-j0, choiceBlock)
				at := o*run + j0
				for k, p := range ch.pairs {
					w := int64(p.t.ByteSize())
					p.keys(inputs[k].Data[at*w:(at+m)*w], keys[k], int(m))
				}
				if argmax {
					v, i := accs[0].f[0], accs[1].i[0]
					for j, x := range keys[0].f[:m] {
						xi := keys[1].i[j]
						c := floatClass(v, x)*3 + orderClass(i, xi)
						take := table[c]
						if take&1 != 0 {
							v, pos[0] = x, at+int64(j)
						}
						if take&2 != 0 {
							i, pos[1] = xi, at+int64(j)
						}
					}
					accs[0].f[0], accs[1].i[0] = v, i
					continue
				}
				for j := range m {
					c := 0
					for k, p := range ch.pairs {
						if p.float() {
							c += floatClass(accs[k].f[0], keys[k].f[j]) * p.stride
						} else {
							c += orderClass(accs[k].i[0], keys[k].i[j]) * p.stride
						}
					}
					if take := ch.take[c]; take != 0 {
						for k, p := range ch.pairs {
							if take>>k&1 == 0 {
								continue
							}
							if p.float() {
								accs[k].f[0] = keys[k].f[j]
							} else {
								accs[k].i[0] = keys[k].i[j]
							}
							pos[k] = at + j
						}
					}
				}
			}
			for k, out := range outs {
				if pos[k] < 0 {
					out.SetBitsAt(o, inits[k].BitsAt(0))
				} else {
					out.SetBitsAt(o, inputs[k].BitsAt(pos[k]))
				}
			}
		}
	})
}

// choiceKeys holds the keys of a pair's values: f for floats, i for integers.
type choiceKeys struct {
	f   []float64
	i   []int64
	f32 []float32
}

// newKeys returns room for n keys of the pair's type.
func (p *choicePair) newKeys(n int) choiceKeys {
	switch {
	case p.t == dtype.F32 || p.t == dtype.F64:
		return choiceKeys{f: make([]float64, n)}
	case p.float():
		return choiceKeys{f: make([]float64, n), f32: make([]float32, n)}
	}
	return choiceKeys{i: make([]int64, n)}
}

func (p *choicePair) float() bool { return p.nclass == 6 }

// keys decodes the first n values of type p.t in src into dst.
func (p *choicePair) keys(src []byte, dst choiceKeys, n int) {
	t := &tensor.Tensor{Type: p.t, Shape: []int64{int64(n)}, Data: src}
	switch p.t {
	case dtype.F64:
		copy(dst.f, tensor.View[float64](t))
	case dtype.F32:
		for j, x := range tensor.View[float32](t) {
			dst.f[j] = float64(x)
		}
	case dtype.S64:
		copy(dst.i, tensor.View[int64](t))
	case dtype.U64:
		for j, x := range tensor.View[uint64](t) {
			dst.i[j] = int64(x ^ 1<<63)
		}
	case dtype.S32:
		for j, x := range tensor.View[int32](t) {
			dst.i[j] = int64(x)
		}
	case dtype.U32:
		for j, x := range tensor.View[uint32](t) {
			dst.i[j] = int64(x)
		}
	default:
		if p.float() {
			decodeFloat32Into(p.t, dst.f32[:n], src)
			for j, x := range dst.f32[:n] {
				dst.f[j] = float64(x)
			}
			return
		}
		dec := decInt(p.t)
		for j := range n {
			dst.i[j] = dec(t.BitsAt(int64(j)))
			if !p.t.IsSigned() && p.t.BitWidth() == 64 {
				dst.i[j] ^= math.MinInt64
			}
		}
	}
}

func orderClass(a, x int64) int {
	return b2i(a == x) + 2*b2i(a > x)
}

func floatClass(a, x float64) int {
	if a != a || x != x {
		switch {
		case a != a && x != x:
			return classBothNaN
		case a != a:
			return classAccNaN
		}
		return classElemNaN
	}
	return b2i(a == x) + 2*b2i(a > x)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

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

// compileChoice returns c as a choice reducer, or nil when it is not one. prog is c compiled.
func compileChoice(c *hlo.Computation, prog *scalarProg) *choiceProg {
	if prog == nil || len(c.Params)%2 != 0 || len(c.Params) == 0 || c.Root == nil {
		return nil
	}
	n := len(c.Params) / 2
	if len(prog.outs) != n {
		return nil
	}
	// pair[in] is the pair whose values in is one of (or -1 for a pred computed from comparisons).
	pair := map[*hlo.Instruction]int{}
	for i, p := range c.Params {
		pair[p] = i % n
	}
	for k := 0; k < n; k++ {
		t := c.Params[k].Shape.Elem
		if c.Params[n+k].Shape.Elem != t || prog.outTypes[k] != t || (!t.IsFloat() && domainOf(t) != domInt) || t == dtype.PRED {
			return nil
		}
	}
	isPred := func(in *hlo.Instruction) bool {
		k, ok := pair[in]
		return ok && k == -1
	}
	valueOf := func(in *hlo.Instruction) (int, bool) {
		k, ok := pair[in]
		return k, ok && k >= 0
	}
	for _, in := range c.Instructions {
		if in.Opcode == hlo.OpParameter || in == c.Root && in.Opcode == hlo.OpTuple {
			continue
		}
		if !in.Shape.IsScalar() {
			return nil
		}
		ops := in.Operands()
		switch in.Opcode {
		case hlo.OpCompare:
			a, okA := valueOf(ops[0])
			b, okB := valueOf(ops[1])
			if !okA || !okB || a != b || in.Str("type") == "TOTALORDER" {
				return nil
			}
			pair[in] = -1
		case hlo.OpAnd, hlo.OpOr, hlo.OpXor, hlo.OpNot:
			for _, o := range ops {
				if !isPred(o) {
					return nil
				}
			}
			pair[in] = -1
		case hlo.OpConstant:
			if in.Shape.Elem != dtype.PRED {
				return nil
			}
			pair[in] = -1
		case hlo.OpSelect:
			a, okA := valueOf(ops[1])
			b, okB := valueOf(ops[2])
			if !isPred(ops[0]) || !okA || !okB || a != b {
				return nil
			}
			pair[in] = a
		default:
			return nil
		}
	}
	results := []*hlo.Instruction{c.Root}
	if c.Root.Opcode == hlo.OpTuple {
		results = c.Root.Operands()
	}
	if len(results) != n {
		return nil
	}
	for k, r := range results {
		if p, ok := valueOf(r); !ok || p != k {
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
			class := combo / p.stride % p.nclass
			accs[k], elems[k] = representatives(p.t, class)
			if p.class(accs[k], elems[k]) != class {
				if class < classAccNaN || !math.IsNaN(p.t.DecodeFloat64(p.t.EncodeFloat64(math.NaN()))) {
					return nil
				}
				occurs = false // a NaN class of a type without NaN
			}
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
	k := newChoiceKeys(2)
	p.keys(t.Data, k, 2)
	if p.float() {
		return floatClass(k.f[0], k.f[1])
	}
	return orderClass(k.i[0], k.i[1])
}

// representatives returns an accumulator and an element of type t in class c.
func representatives(t dtype.Type, c int) (acc, elem uint64) {
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
		for k := range keys {
			keys[k] = newChoiceKeys(choiceBlock)
			accs[k] = newChoiceKeys(1)
			ch.pairs[k].keys(inits[k].Data, accs[k], 1)
		}
		acc0 := make([]choiceKeys, n)
		for k := range acc0 {
			acc0[k] = newChoiceKeys(1)
			ch.pairs[k].keys(inits[k].Data, acc0[k], 1)
		}
		for o := int64(lo); o < int64(hi); o++ {
			for k := range accs {
				accs[k].f[0], accs[k].i[0], pos[k] = acc0[k].f[0], acc0[k].i[0], -1
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
						for k := range n {
							if take>>k&1 != 0 {
								accs[k].f[0], accs[k].i[0], pos[k] = keys[k].f[j], keys[k].i[j], at+j
							}
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

func newChoiceKeys(n int) choiceKeys {
	return choiceKeys{f: make([]float64, n), i: make([]int64, n), f32: make([]float32, n)}
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

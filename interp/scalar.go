package interp

import (
	"errors"
	"fmt"
	"math"
	"reflect"

	"octet/dtype"
	"octet/gemm"
	"octet/hlo"
	"octet/tensor"
)

// A scalarProg is a computation over scalars (a reducer, a sort comparator, a scatter combiner, the
// function of a map) compiled to a list of steps on registers that hold element bits, so that calling it
// once per element costs a few function calls rather than a full evaluation. Every step rounds its
// result to its type, as evaluating the instructions one by one does.
type scalarProg struct {
	params   []int        // register of each parameter
	inTypes  []dtype.Type // type of each parameter
	steps    []func(r []uint64)
	nregs    int
	outs     []int // registers of the results: the root, or the elements of a root tuple
	outTypes []dtype.Type
	// binop is set when the computation is root = binop(p0, p1) with every type the same: a reducer the
	// callers can run as a plain loop.
	binop hlo.Opcode
	// assign is set when the root is the last parameter (a scatter that overwrites).
	assign bool
	// keyed is set when the computation is root = compare(g(p0), g(p1)) for one function g of one
	// scalar that both sides compute alike (mirrored): a sort comparator of its first operand's elements,
	// g the identity (compare(p0, p1)) or a transformation of the keys before the comparison, as JAX's is
	// (-0 made 0 and every NaN one NaN, then compared in total order). A sort can then compute g once per element (keyReg holds g(p0) after a run) rather
	// than twice per comparison, and compare those as the root does (keyCompare).
	keyed      bool
	keyReg     int
	keyCompare func(a, b uint64) bool
	keySteps   []func(r []uint64) // the steps that compute the first side's key from the first parameter
	// keyOrder, where not nil, numbers the keys in the comparison's order (see orderOf): a sort compares
	// the numbers instead, keyNarrow where they fit in 32 bits.
	keyOrder  func(uint64) (uint64, bool)
	keyNarrow bool
	// choice is set when the computation is a reducer that chooses each result from its two sides by
	// comparisons (JAX's argmax and argmin): see choiceProg.
	choice *choiceProg
	// compares is set when the computation answers a pred from comparisons of its two parameters
	// (select-and-scatter's select): see compareTable.
	compares *compareTable
}

var errNotScalar = errors.New("not a scalar computation")

// compileScalar compiles c, whose parameters and root (or root tuple elements) must be scalars.
func compileScalar(c *hlo.Computation) (*scalarProg, error) {
	p := &scalarProg{params: make([]int, len(c.Params)), inTypes: make([]dtype.Type, len(c.Params))}
	reg := map[*hlo.Instruction]int{}
	types := map[*hlo.Instruction]dtype.Type{}
	newReg := func(in *hlo.Instruction) int {
		r := p.nregs
		p.nregs++
		reg[in] = r
		types[in] = in.Shape.Elem
		return r
	}
	var stepOf []*hlo.Instruction // the instruction of each step
	for i, prm := range c.Params {
		if prm == nil || !prm.Shape.IsScalar() {
			return nil, errNotScalar
		}
		p.params[i] = newReg(prm)
		p.inTypes[i] = prm.Shape.Elem
	}
	for _, in := range c.Instructions {
		if in.Opcode == hlo.OpParameter {
			continue
		}
		if in.Opcode == hlo.OpTuple && in == c.Root {
			for _, o := range in.Operands() {
				r, ok := reg[o]
				if !ok {
					return nil, errNotScalar
				}
				p.outs = append(p.outs, r)
				p.outTypes = append(p.outTypes, types[o])
			}
			continue
		}
		if !in.Shape.IsScalar() {
			return nil, errNotScalar
		}
		ops := in.Operands()
		args := make([]int, len(ops))
		argTypes := make([]dtype.Type, len(ops))
		for i, o := range ops {
			r, ok := reg[o]
			if !ok {
				return nil, errNotScalar
			}
			args[i], argTypes[i] = r, types[o]
		}
		dst := newReg(in)
		step, err := scalarStep(in, dst, args, argTypes)
		if err != nil {
			return nil, err
		}
		if step != nil {
			p.steps = append(p.steps, step)
			stepOf = append(stepOf, in)
		}
	}
	if c.Root == nil {
		return nil, errNotScalar
	}
	if c.Root.Opcode != hlo.OpTuple {
		r, ok := reg[c.Root]
		if !ok {
			return nil, errNotScalar
		}
		p.outs = []int{r}
		p.outTypes = []dtype.Type{types[c.Root]}
	}
	// Recognize the common shapes.
	root := c.Root
	if len(c.Params) == 2 && root.NumOperands() == 2 && root.Operand(0) == c.Params[0] && root.Operand(1) == c.Params[1] {
		t := root.Shape.Elem
		if p.inTypes[0] == t && p.inTypes[1] == t {
			switch root.Opcode {
			case hlo.OpAdd, hlo.OpMultiply, hlo.OpMaximum, hlo.OpMinimum, hlo.OpAnd, hlo.OpOr, hlo.OpXor:
				p.binop = root.Opcode
			}
		}
	}
	if len(c.Params) >= 1 && root == c.Params[len(c.Params)-1] {
		p.assign = true
	}
	if len(c.Params) >= 2 && root.Opcode == hlo.OpCompare && root.NumOperands() == 2 {
		x, y := root.Operand(0), root.Operand(1)
		if mirrored(x, y, c.Params[0], c.Params[1], map[*hlo.Instruction]*hlo.Instruction{}) {
			d, ok := parseDirection(root.Str("direction"))
			if cmp := scalarCompare(types[x], d, root.Str("type")); ok && cmp != nil {
				p.keyed, p.keyReg, p.keyCompare = true, reg[x], cmp
				p.keyOrder, p.keyNarrow = orderOf(types[x], d, root.Str("type"))
				// The key is what the first side computes: the steps of the instructions x depends on.
				side := map[*hlo.Instruction]bool{}
				var walk func(in *hlo.Instruction)
				walk = func(in *hlo.Instruction) {
					if !side[in] {
						side[in] = true
						for _, o := range in.Operands() {
							walk(o)
						}
					}
				}
				walk(x)
				for i, in := range stepOf {
					if side[in] {
						p.keySteps = append(p.keySteps, p.steps[i])
					}
				}
			}
		}
	}
	p.choice = compileChoice(c, p)
	p.compares = compileCompareTable(c, p)
	return p, nil
}

// mirrored reports whether x is computed from px alone as y is from py: the same instructions (opcode,
// shape, attributes but metadata, constants' values), their operands mirrored in turn, px where py is,
// and no other parameter. An instruction both compute from neither (a constant) is its own mirror. seen
// holds the pairs found so far, so that each instruction of x's side is looked at once.
func mirrored(x, y, px, py *hlo.Instruction, seen map[*hlo.Instruction]*hlo.Instruction) bool {
	if m, ok := seen[x]; ok {
		return m == y
	}
	ok := x == px && y == py
	if x != px && y != py && x.Opcode == y.Opcode && x.Opcode != hlo.OpParameter && x.Shape.Equal(y.Shape) &&
		x.NumOperands() == y.NumOperands() && len(x.Called()) == 0 && len(y.Called()) == 0 &&
		sameAttrs(x, y) && reflect.DeepEqual(x.Literal, y.Literal) {
		ok = true
		for i, o := range x.Operands() {
			if !mirrored(o, y.Operand(i), px, py, seen) {
				ok = false
				break
			}
		}
	}
	seen[x] = y
	if !ok {
		seen[x] = nil
	}
	return ok
}

// sameAttrs reports whether x and y have the same attributes, metadata aside.
func sameAttrs(x, y *hlo.Instruction) bool {
	semantic := func(in *hlo.Instruction) []hlo.Attr {
		var out []hlo.Attr
		for _, a := range in.Attrs {
			if a.Name != "metadata" {
				out = append(out, a)
			}
		}
		return out
	}
	return reflect.DeepEqual(semantic(x), semantic(y))
}

// key runs the steps of a keyed comparator (scalarProg.keyed) that compute its first side from the
// element bits x, and returns g(x): what the comparator compares of x. The caller charges the work.
func (f *scalarFn) key(x uint64) uint64 {
	p := f.prog
	f.regs[p.params[0]] = x
	for _, s := range p.keySteps {
		s(f.regs)
	}
	return f.regs[p.keyReg]
}

// dec32 and enc32 move between element bits and float32 for a type of the float32 domain.
func dec32(t dtype.Type) func(uint64) float32 {
	switch t {
	case dtype.F32:
		return func(b uint64) float32 { return math.Float32frombits(uint32(b)) }
	case dtype.BF16:
		return func(b uint64) float32 { return math.Float32frombits(uint32(b) << 16) }
	}
	return t.DecodeFloat32
}

func enc32(t dtype.Type) func(float32) uint64 {
	if t == dtype.F32 {
		return func(x float32) uint64 { return uint64(math.Float32bits(x)) }
	}
	return t.EncodeFloat32
}

// decInt reads element bits of an integer type as the canonical int64 (sign-extended or zero-extended).
func decInt(t dtype.Type) func(uint64) int64 {
	ii := intInfoOf(t)
	return func(b uint64) int64 { return ii.norm(int64(b)) }
}

func encInt(t dtype.Type) func(int64) uint64 {
	ii := intInfoOf(t)
	return func(v int64) uint64 { return uint64(v) & ii.mask }
}

// scalarStep compiles one instruction; a nil step with a nil error means the instruction moves nothing
// (it cannot happen today: copies are steps too).
func scalarStep(in *hlo.Instruction, dst int, args []int, at []dtype.Type) (func(r []uint64), error) {
	t := in.Shape.Elem
	op := in.Opcode
	switch {
	case op == hlo.OpConstant:
		v, err := literalValue(in)
		if err != nil {
			return nil, err
		}
		b := v.Array.BitsAt(0)
		return func(r []uint64) { r[dst] = b }, nil
	case op == hlo.OpCopy || op == hlo.OpReshape || op == hlo.OpBitcast || op == hlo.OpBroadcast ||
		op == hlo.OpOptimizationBarrier:
		if len(args) != 1 || at[0] != t {
			return nil, errNotScalar
		}
		a := args[0]
		return func(r []uint64) { r[dst] = r[a] }, nil
	case op == hlo.OpBitcastConvert:
		if len(args) != 1 || at[0].BitWidth() != t.BitWidth() {
			return nil, errNotScalar
		}
		a := args[0]
		return func(r []uint64) { r[dst] = r[a] }, nil
	case op == hlo.OpConvert:
		if len(args) != 1 {
			return nil, errNotScalar
		}
		a, from := args[0], at[0]
		conv := scalarConvert(from, t)
		if conv == nil {
			return nil, errNotScalar
		}
		return func(r []uint64) { r[dst] = conv(r[a]) }, nil
	case op == hlo.OpSelect:
		if len(args) != 3 {
			return nil, errNotScalar
		}
		c, a, b := args[0], args[1], args[2]
		return func(r []uint64) {
			if r[c] != 0 {
				r[dst] = r[a]
			} else {
				r[dst] = r[b]
			}
		}, nil
	case op == hlo.OpCompare:
		if len(args) != 2 || at[0] != at[1] {
			return nil, errNotScalar
		}
		d, ok := parseDirection(in.Str("direction"))
		if !ok {
			return nil, errNotScalar
		}
		less := scalarCompare(at[0], d, in.Str("type"))
		if less == nil {
			return nil, errNotScalar
		}
		a, b := args[0], args[1]
		return func(r []uint64) {
			if less(r[a], r[b]) {
				r[dst] = 1
			} else {
				r[dst] = 0
			}
		}, nil
	case op == hlo.OpClamp:
		if len(args) != 3 || at[0] != t || at[1] != t || at[2] != t {
			return nil, errNotScalar
		}
		lo, x, hi := args[0], args[1], args[2]
		switch domainOf(t) {
		case domFloat32:
			dec, enc := dec32(t), enc32(t)
			return func(r []uint64) { r[dst] = enc(gemm.Clamp32(dec(r[lo]), dec(r[x]), dec(r[hi]))) }, nil
		case domFloat64:
			return func(r []uint64) {
				r[dst] = math.Float64bits(clampF64(math.Float64frombits(r[lo]), math.Float64frombits(r[x]), math.Float64frombits(r[hi])))
			}, nil
		case domInt:
			dec, enc := decInt(t), encInt(t)
			u64 := t == dtype.U64
			return func(r []uint64) {
				m, l, h := dec(r[x]), dec(r[lo]), dec(r[hi])
				if lessInt(m, l, u64) {
					m = l
				}
				if !lessInt(m, h, u64) {
					m = h
				}
				r[dst] = enc(m)
			}, nil
		}
		return nil, errNotScalar
	case op == hlo.OpReducePrecision:
		eb, _ := in.Int("exponent_bits")
		mb, _ := in.Int("mantissa_bits")
		if len(args) != 1 || eb < 1 {
			return nil, errNotScalar
		}
		a := args[0]
		switch domainOf(t) {
		case domFloat32:
			dec, enc := dec32(t), enc32(t)
			return func(r []uint64) { r[dst] = enc(reducePrecision32(dec(r[a]), int(eb), int(mb))) }, nil
		case domFloat64:
			return func(r []uint64) {
				r[dst] = math.Float64bits(reducePrecision64(math.Float64frombits(r[a]), int(eb), int(mb)))
			}, nil
		}
		return nil, errNotScalar
	case op == hlo.OpIsFinite:
		if len(args) != 1 {
			return nil, errNotScalar
		}
		a := args[0]
		dec := scalarToF64(at[0])
		return func(r []uint64) {
			x := dec(r[a])
			if x == x && !math.IsInf(x, 0) {
				r[dst] = 1
			} else {
				r[dst] = 0
			}
		}, nil
	case t == dtype.C64 && (op.IsElementwiseUnary() && len(args) == 1 && at[0] == t && unaryComplex(op) != nil):
		a, f := args[0], unaryComplex(op)
		return func(r []uint64) { r[dst] = c64Bits(f(c64FromBits(r[a]))) }, nil
	case t == dtype.C64 && op.IsElementwiseBinary() && len(args) == 2 && at[0] == t && at[1] == t && binaryComplex(op) != nil:
		a, b, f := args[0], args[1], binaryComplex(op)
		return func(r []uint64) { r[dst] = c64Bits(f(c64FromBits(r[a]), c64FromBits(r[b]))) }, nil
	case op.IsElementwiseUnary() && len(args) == 1 && at[0] == t:
		a := args[0]
		switch domainOf(t) {
		case domFloat32:
			if f := unaryF32(op); f != nil {
				dec, enc := dec32(t), enc32(t)
				return func(r []uint64) { r[dst] = enc(f(dec(r[a]))) }, nil
			}
		case domFloat64:
			if f := unaryF64(op); f != nil {
				return func(r []uint64) { r[dst] = math.Float64bits(f(math.Float64frombits(r[a]))) }, nil
			}
		case domInt:
			if f := unaryInt(op, intInfoOf(t)); f != nil {
				dec, enc := decInt(t), encInt(t)
				return func(r []uint64) { r[dst] = enc(f(dec(r[a]))) }, nil
			}
		}
	case op.IsElementwiseBinary() && len(args) == 2 && at[0] == t && at[1] == t:
		a, b := args[0], args[1]
		switch domainOf(t) {
		case domFloat32:
			if f := binaryF32(op); f != nil {
				dec, enc := dec32(t), enc32(t)
				return func(r []uint64) { r[dst] = enc(f(dec(r[a]), dec(r[b]))) }, nil
			}
		case domFloat64:
			if f := binaryF64(op); f != nil {
				return func(r []uint64) {
					r[dst] = math.Float64bits(f(math.Float64frombits(r[a]), math.Float64frombits(r[b])))
				}, nil
			}
		case domInt:
			if f := binaryInt(op, intInfoOf(t)); f != nil {
				dec, enc := decInt(t), encInt(t)
				return func(r []uint64) { r[dst] = enc(f(dec(r[a]), dec(r[b]))) }, nil
			}
		}
	}
	return nil, errNotScalar
}

// scalarToF64 decodes element bits of any real type to float64.
func scalarToF64(t dtype.Type) func(uint64) float64 {
	if t == dtype.F64 {
		return math.Float64frombits
	}
	return t.DecodeFloat64
}

// scalarCompare returns the comparison a OP b on element bits of type t.
func scalarCompare(t dtype.Type, d direction, ctype string) func(a, b uint64) bool {
	switch domainOf(t) {
	case domFloat32:
		dec := dec32(t)
		if ctype == "TOTALORDER" {
			return func(a, b uint64) bool { return compareOrdered(d, totalOrder32(dec(a)), totalOrder32(dec(b))) }
		}
		return func(a, b uint64) bool { return compareOrdered(d, dec(a), dec(b)) }
	case domFloat64:
		if ctype == "TOTALORDER" {
			return func(a, b uint64) bool {
				return compareOrdered(d, totalOrder64(math.Float64frombits(a)), totalOrder64(math.Float64frombits(b)))
			}
		}
		return func(a, b uint64) bool { return compareOrdered(d, math.Float64frombits(a), math.Float64frombits(b)) }
	case domInt:
		dec := decInt(t)
		if t.IsSigned() {
			return func(a, b uint64) bool { return compareOrdered(d, dec(a), dec(b)) }
		}
		return func(a, b uint64) bool { return compareOrdered(d, uint64(dec(a)), uint64(dec(b))) }
	}
	return nil
}

// scalarConvert converts one element as convertTensor does.
func scalarConvert(from, to dtype.Type) func(uint64) uint64 {
	if from == to {
		return func(b uint64) uint64 { return b }
	}
	if domainOf(from) == domComplex || domainOf(to) == domComplex {
		return nil
	}
	return func(b uint64) uint64 {
		x := tensor.New(from, nil)
		x.SetBitsAt(0, b)
		r, err := convertTensor(x, to, nil)
		if err != nil {
			return 0
		}
		return r.BitsAt(0)
	}
}

// run executes the program on regs, whose parameter registers the caller has set.
func (p *scalarProg) run(regs []uint64) {
	for _, s := range p.steps {
		s(regs)
	}
}

// scalarFn calls a computation on scalars: through its compiled program when it has one, else by
// evaluating it in full on one-element arrays.
type scalarFn struct {
	e    *evaluator
	comp *hlo.Computation
	prog *scalarProg
	regs []uint64
}

func (e *evaluator) scalarFunc(in *hlo.Instruction, c *hlo.Computation) (*scalarFn, error) {
	if c == nil {
		return nil, errorf(in, "%s has no called computation", in.Opcode)
	}
	k := e.compile(c)
	if !k.scalarDone {
		k.scalar, k.scalarErr = compileScalar(c)
		k.scalarDone = true
	}
	f := &scalarFn{e: e, comp: c, prog: k.scalar}
	if k.scalar != nil {
		f.regs = make([]uint64, k.scalar.nregs)
	} else {
		for _, p := range c.Params {
			if p == nil || !p.Shape.IsScalar() {
				return nil, unsupportedf(in, "%s calling %s, whose parameters are not scalars", in.Opcode, c.Name)
			}
		}
	}
	return f, nil
}

// call runs the computation on the element bits args and writes the results' bits to out.
func (f *scalarFn) call(args []uint64, out []uint64) error {
	if p := f.prog; p != nil {
		for i, a := range args {
			f.regs[p.params[i]] = a
		}
		p.run(f.regs)
		for i, r := range p.outs {
			out[i] = f.regs[r]
		}
		return f.e.charge(1)
	}
	vals := make([]Value, len(args))
	for i, a := range args {
		t := tensor.New(f.comp.Params[i].Shape.Elem, nil)
		t.SetBitsAt(0, a)
		vals[i] = ArrayValue(t)
	}
	r, err := f.e.call(f.comp, vals)
	if err != nil {
		return err
	}
	flat := r.Flatten()
	if len(flat) != len(out) {
		return fmt.Errorf("computation %s returned %d values, want %d", f.comp.Name, len(flat), len(out))
	}
	for i, t := range flat {
		if t.NumElements() != 1 {
			return fmt.Errorf("computation %s returned %s, not a scalar", f.comp.Name, t)
		}
		out[i] = t.BitsAt(0)
	}
	return nil
}

package fuse

import (
	"fmt"
	"slices"
	"strings"

	"octet/cublas"
	"octet/dtype"
	"octet/fuse/match"
	"octet/hlo"
)

// epilogue is what the ops after a dot matched: cuBLASLt computes
// D = d_scale * activation(alpha * a_scale * b_scale * (A @ B) + beta * C + bias), and the abs-max of the
// activation's output, so the chain after the dot may hold, in this order: multiplies by constants (alpha)
// and by scalars (output scales, folded into a scale operand), a matrix bias C, a vector bias, ReLU or
// GELU, and for an FP8 D an abs-max, a scale (d_scale), a clamp to the format's range and the convert.
// Reshapes and bitcasts may come anywhere before the output, and a slice that starts at 0 before any.
type epilogue struct {
	// dot is the GEMM's dot; pos the places of its computation's instructions (plan.pos).
	dot *hlo.Instruction
	pos hlo.Positions
	// last is the instruction the call's D replaces; dims are its dimensions.
	last *hlo.Instruction
	dims []int64
	// region is the part of the canonical D the chain keeps (a slice from 0 narrows it); reshaped says
	// that dims are not region's (a reshape, or a dot whose free dimensions are merged).
	region   []int64
	reshaped bool

	alpha     float64
	outScales []scaleUse
	// c is the matrix bias added by cAdd; its dimensions are dims at the time of the add.
	c, cAdd *hlo.Instruction
	cDims   []int64
	cRegion []int64
	// bias is the vector (as the call takes it: bf16 or f16, rank 1 after a reshape) added by biasAdd.
	bias, biasAdd *hlo.Instruction
	activation    string // "", "RELU" or "GELU"
	// amax is the reduce whose value the call's abs-max output replaces.
	amax *hlo.Instruction
	// dScale is the scale of an FP8 output; out the convert to FP8.
	dScale *scaleUse
	out    *hlo.Instruction
	dType  dtype.Type

	// ab are the FP8 types of A and B; padRows is set when m is padded to a multiple of 16, so that the
	// call computes rows the result does not have.
	ab      [2]dtype.Type
	padRows bool

	// absorbed are the instructions the call replaces, in chain order.
	absorbed []*hlo.Instruction
	notes    []string
	// used are the rules the absorbed instructions matched, in chain order.
	used []*rule
}

// scaleUse is a scalar a value is multiplied (or divided) by.
type scaleUse struct {
	op, scalar *hlo.Instruction
	divide     bool
}

// Epilogue names the cuBLASLt epilogue.
func (e *epilogue) Epilogue() cublas.Epilogue {
	switch {
	case e.bias != nil && e.activation == "RELU":
		return cublas.EpilogueBiasRelu
	case e.bias != nil && e.activation == "GELU":
		return cublas.EpilogueBiasGelu
	case e.bias != nil:
		return cublas.EpilogueBias
	case e.activation == "RELU":
		return cublas.EpilogueRelu
	case e.activation == "GELU":
		return cublas.EpilogueGelu
	}
	return cublas.EpilogueDefault
}

// fromDot reports whether x is computed from the dot's result: a scale, bias or C computed from it (the
// abs-max of D in current scaling, D itself) cannot be an operand of the call that computes D.
func (e *epilogue) fromDot(x *hlo.Instruction) bool { return e.pos.DependsOn(x, e.dot) }

// absorb records that the rule r matched and explains it: format and args, then r's pattern in brackets
// when bracket is set.
func (e *epilogue) absorb(r *rule, bracket bool, format string, args ...any) {
	e.used = append(e.used, r)
	if bracket {
		format += " [" + r.Short() + "]"
	}
	e.note(format, args...)
}

func (e *epilogue) note(format string, args ...any) {
	n := fmt.Sprintf(format, args...)
	if !slices.Contains(e.notes, n) {
		e.notes = append(e.notes, n)
	}
}

// matchEpilogue walks from the dot down the chain of its single users, absorbing what cuBLASLt can compute.
//
// claimed are the instructions earlier calls absorbed (Analyze leaves them in place): the chain stops
// before one of them.
func (p *plan) matchEpilogue(claimed map[*hlo.Instruction]*hlo.Instruction) {
	dot := p.dot
	e := &epilogue{dot: dot, pos: p.pos, last: dot, dims: dot.Shape.Dims, region: p.canonical(), alpha: 1, dType: dot.Shape.Elem,
		ab: [2]dtype.Type{p.a.fp8.Shape.Elem, p.b.fp8.Shape.Elem}, padRows: p.m%16 != 0}
	e.reshaped = !slices.Equal(e.dims, e.region)
	p.epi = e
	v := dot
	for {
		if e.matchOutput(v) {
			return
		}
		if v.IsRoot() {
			return
		}
		if e.activation == "" && e.matchGelu(v) {
			v = e.last
			continue
		}
		users := v.Users()
		if len(users) != 1 {
			if len(users) > 1 {
				e.note("stops at %%%s: it has %d users", v.Name, len(users))
			}
			return
		}
		u := users[0]
		if by := claimed[u]; by != nil {
			e.note("stops at %s %%%s: the call for %%%s absorbs it", u.Opcode, u.Name, by.Name)
			return
		}
		if !e.step(v, u) {
			return
		}
		e.last, e.dims = u, u.Shape.Dims
		e.absorbed = append(e.absorbed, u)
		v = u
	}
}

// step absorbs u, the single user of v, or says why not and returns false.
func (e *epilogue) step(v, u *hlo.Instruction) bool {
	var c captures
	d := match.Same(&v).As("D")
	bare := e.c == nil && e.bias == nil && e.activation == ""
	switch {
	case ruleReshapeD.match(u, d, &c):
		if !defaultLayout(v.Shape) || !defaultLayout(u.Shape) {
			e.note("stops at %s %%%s: a reshape of a value with a non-default layout is not followed", u.Opcode, u.Name)
			return false
		}
		e.reshaped = !slices.Equal(u.Shape.Dims, e.region)
		e.absorb(ruleReshapeD, false, "%s %%%s to %s: absorbed (the result is reshaped after the call)", u.Opcode, u.Name, "["+hlo.JoinInts(u.Shape.Dims)+"]")
		return true
	case ruleSliceD.match(u, d, &c):
		sl, _ := u.Attr("slice").(hlo.Slice)
		for _, d := range sl {
			if d.Start != 0 || d.Stride != 1 {
				e.note("stops at slice %%%s: it does not start at 0 (with stride 1), so what follows cannot be computed on the whole result", u.Name)
				return false
			}
		}
		if e.reshaped {
			e.note("stops at slice %%%s: it slices a reshaped result", u.Name)
			return false
		}
		e.region = slices.Clone(u.Shape.Dims)
		e.absorb(ruleSliceD, false, "slice %%%s to %s: absorbed (the call's result is sliced)", u.Name, "["+hlo.JoinInts(u.Shape.Dims)+"]")
		return true
	case ruleAlpha.match(u, d, &c):
		if !bare {
			e.note("stops at multiply %%%s: a constant factor after a bias or activation is not alpha", u.Name)
			return false
		}
		k, _ := match.ConstantValue(c.s)
		e.alpha *= k
		e.absorb(ruleAlpha, true, "multiply %%%s by constant %v: alpha", u.Name, k)
		return true
	case ruleOutputScale.match(u, d, &c), ruleOutputInverseScale.match(u, d, &c):
		if !bare {
			if !slices.ContainsFunc(e.notes, func(n string) bool { return strings.Contains(n, "is taken after the scale %"+u.Name+":") }) {
				e.note("stops at %s %%%s: a scale after a bias or activation can only be the d_scale of an FP8 output", u.Opcode, u.Name)
			}
			return false
		}
		if !c.s.Shape.Elem.IsFloat() {
			e.note("stops at %s %%%s: the scale is %s", u.Opcode, u.Name, c.s.Shape.Elem)
			return false
		}
		if e.fromDot(c.s) {
			e.note("stops at %s %%%s: the scale %%%s is computed from the GEMM's own result", u.Opcode, u.Name, c.s.Name)
			return false
		}
		divide := u.Opcode == hlo.OpDivide
		r := ruleOutputScale
		if divide {
			r = ruleOutputInverseScale
		}
		e.outScales = append(e.outScales, scaleUse{u, c.s, divide})
		e.absorb(r, true, "%s %%%s by broadcast scalar %%%s: output scale, folded into a_scale", u.Opcode, u.Name, c.s.Name)
		return true
	case ruleVectorBias.match(u, d, &c):
		return e.vectorBias(v, u, c.c, c.b)
	case ruleMatrixBias.match(u, d, &c):
		return e.matrixBias(v, u, c.c)
	case ruleRelu.match(u, d, &c):
		if e.activation != "" {
			e.note("stops at maximum %%%s: a second activation", u.Name)
			return false
		}
		e.activation = "RELU"
		e.absorb(ruleRelu, true, "maximum %%%s with zero: RELU", u.Name)
		return true
	}
	e.note("stops at %s %%%s: not part of an epilogue", u.Opcode, u.Name)
	return false
}

func defaultLayout(s hlo.Shape) bool { return s.Layout == nil || s.Layout.IsDefault() }

// vectorBias absorbs u = add(v, broadcast(b)) as the BIAS epilogue.
func (e *epilogue) vectorBias(v, u, bcast, b *hlo.Instruction) bool {
	if e.c != nil || e.bias != nil || e.activation != "" {
		e.note("stops at add %%%s: a vector bias comes before any matrix bias or activation", u.Name)
		return false
	}
	r := len(e.dims)
	dims := bcast.Ints("dimensions")
	k := len(dims)
	ok := k >= 1 && k == b.Shape.Rank() && defaultLayout(v.Shape) && defaultLayout(b.Shape)
	for i := 0; ok && i < k; i++ {
		ok = dims[i] == int64(r-k+i)
	}
	if ok {
		n := int64(1)
		for _, d := range e.dims[r-k:] {
			n *= d
		}
		ok = n == e.region[len(e.region)-1]
	}
	if !ok {
		if b.Shape.Rank() == 0 {
			e.note("stops at add %%%s: a broadcast scalar is not a vector bias", u.Name)
		} else {
			e.note("stops at add %%%s: %%%s is not broadcast along the columns of the result, so it is not a vector bias", u.Name, b.Name)
		}
		return false
	}
	if e.fromDot(b) {
		e.note("stops at add %%%s: the bias %%%s is computed from the GEMM's own result", u.Name, b.Name)
		return false
	}
	t := v.Shape.Elem
	bias := b
	switch {
	case t == dtype.F32 && b.Opcode == hlo.OpConvert && b.Operand(0).Shape.Elem == dtype.BF16:
		// An f32 bias that is a bf16 value converted: the call takes the bf16 value (exactly the same numbers).
		bias = b.Operand(0)
	case t == dtype.BF16 && b.Shape.Elem == dtype.BF16, t == dtype.F16 && b.Shape.Elem == dtype.F16:
	case t == dtype.F32 && b.Opcode == hlo.OpConvert && b.Operand(0).Shape.Elem == dtype.F16:
		e.note("stops at add %%%s: the bias %%%s is an f16 value converted to f32; with an f32 result cuBLASLt's FP8 GEMM "+
			"takes only a bf16 bias, and not every f16 value is a bf16 value", u.Name, b.Name)
		return false
	case b.Shape.Elem == dtype.F32:
		e.note("stops at add %%%s: the bias %%%s is f32; cuBLASLt's FP8 GEMM takes a bf16 bias with an f32 result, "+
			"and rounding it to bf16 would change the result", u.Name, b.Name)
		return false
	default:
		e.note("stops at add %%%s: a %s bias does not go with a %s result in cuBLASLt's FP8 GEMM", u.Name, b.Shape.Elem, t)
		return false
	}
	e.bias, e.biasAdd = bias, u
	what := ""
	if bias != b {
		what = fmt.Sprintf(" (the bf16 %%%s it was converted from)", bias.Name)
	}
	e.absorb(ruleVectorBias, true, "add %%%s of broadcast %%%s: vector bias%s", u.Name, b.Name, what)
	return true
}

// matrixBias absorbs u = add(v, c) as C with beta 1.
func (e *epilogue) matrixBias(v, u, c *hlo.Instruction) bool {
	switch {
	case e.c != nil:
		e.note("stops at add %%%s: a second matrix add; the call adds one C (%%%s is already absorbed)", u.Name, e.c.Name)
		return false
	case e.activation != "":
		e.note("stops at add %%%s: a matrix bias comes before any activation", u.Name)
		return false
	case c.Opcode == hlo.OpBroadcast:
		e.note("stops at add %%%s: %%%s is a broadcast, which as C would be materialized", u.Name, c.Name)
		return false
	case match.FP8(c):
		e.note("stops at add %%%s: C (%%%s) would be %s, and cuBLASLt forbids an FP8 C", u.Name, c.Name, c.Shape.Elem)
		return false
	case !slices.Equal(c.Shape.Dims, v.Shape.Dims) || c.Shape.Elem != v.Shape.Elem:
		e.note("stops at add %%%s: C does not have the result's shape", u.Name)
		return false
	case e.reshaped && (!defaultLayout(c.Shape) || !defaultLayout(v.Shape)):
		e.note("stops at add %%%s: C would need a reshape of a non-default layout", u.Name)
		return false
	case e.fromDot(c):
		e.note("stops at add %%%s: C (%%%s) is computed from the GEMM's own result", u.Name, c.Name)
		return false
	}
	e.c, e.cAdd, e.cDims, e.cRegion = c, u, slices.Clone(v.Shape.Dims), slices.Clone(e.region)
	e.absorb(ruleMatrixBias, true, "add %%%s of %%%s: matrix bias C, beta 1", u.Name, c.Name)
	return true
}

// matchGelu absorbs the tanh approximation of GELU computed on x,
// x * 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))), in either of its forms (ruleGelu, ruleGeluHalfX).
func (e *epilogue) matchGelu(x *hlo.Instruction) bool {
	if x.IsRoot() {
		return false
	}
	d := match.Same(&x).As("D")
	for _, u := range x.Users() {
		if u.Opcode != hlo.OpMultiply {
			continue
		}
		for _, r := range []*rule{ruleGelu, ruleGeluHalfX} {
			var c captures
			var out *hlo.Instruction
			if r.match(u, d, &c) {
				out = u
			} else if len(u.Users()) == 1 && r.match(u.Users()[0], d, &c) {
				// (0.5 * x) is the user of x; the product is its user.
				out = u.Users()[0]
			} else {
				continue
			}
			inside := []*hlo.Instruction{c.sq, c.cube, c.inner, c.sum, c.scaled, c.th, c.onePlus}
			if c.cdf != nil {
				inside = append(inside, c.cdf)
			}
			if c.half != nil {
				inside = append(inside, c.half)
			}
			okUsers := true
			for _, in := range inside {
				if len(in.Users()) != 1 || in.IsRoot() {
					okUsers = false
				}
			}
			for _, xu := range x.Users() {
				if xu != out && !slices.Contains(inside, xu) {
					okUsers = false
				}
			}
			if !okUsers {
				e.note("GELU at %%%s not absorbed: its input or an intermediate value has other users (GELU_AUX is not emitted)", out.Name)
				return false
			}
			e.activation = "GELU"
			e.absorbed = append(e.absorbed, inside...)
			e.absorbed = append(e.absorbed, out)
			e.last, e.dims = out, out.Shape.Dims
			e.used = append(e.used, r)
			e.note("multiply %%%s: GELU, tanh approximation [%s], %d instructions", out.Name, r.Short(), len(inside)+1)
			return true
		}
	}
	return false
}

// matchOutput absorbs the FP8 output at v: convert(clamp(lo, [d_scale op](v), hi)) to f8e4m3fn or f8e5m2
// with lo and hi exactly the format's range, with an optional abs-max of v beside it.
func (e *epilogue) matchOutput(v *hlo.Instruction) bool {
	if v.IsRoot() {
		return false
	}
	var amax, main *hlo.Instruction
	var amaxRule *rule
	for _, u := range v.Users() {
		if r, rl := absMax(u, v, e.activation == "RELU"); amax == nil && r != nil {
			amax, amaxRule = r, rl
			continue
		}
		if main != nil {
			return false
		}
		main = u
	}
	if main == nil {
		return false
	}
	var c captures
	var ds *scaleUse
	var dsRule *rule
	next := main
	x := v
	d := match.Same(&x).As("D")
	switch {
	case ruleDScale.match(main, d, &c):
		dsRule = ruleDScale
	case ruleDInverseScale.match(main, d, &c):
		dsRule = ruleDInverseScale
	}
	if dsRule != nil && e.fromDot(c.s) {
		e.note("the scale %%%s of %s %%%s is computed from the GEMM's own result (as in current scaling, from its abs-max): "+
			"it cannot be the call's d_scale, and the FP8 output is not absorbed", c.s.Name, main.Opcode, main.Name)
		return false
	}
	if dsRule != nil {
		if len(main.Users()) != 1 || main.IsRoot() || !c.s.Shape.Elem.IsFloat() {
			if amax == nil {
				for _, u := range main.Users() {
					if r, _ := absMax(u, main, false); r != nil {
						e.note("the abs-max %%%s is taken after the scale %%%s: cuBLASLt's damax is the abs-max before d_scale, "+
							"so neither the scale as d_scale nor the abs-max is absorbed", r.Name, main.Name)
					}
				}
			}
			return false
		}
		ds = &scaleUse{main, c.s, main.Opcode == hlo.OpDivide}
		x = main
		next = main.Users()[0]
	}
	var widen *hlo.Instruction
	if ruleWiden.match(next, d, &c) && len(next.Users()) == 1 && !next.IsRoot() {
		widen = next
		x = widen
		next = next.Users()[0]
	}
	if next.Opcode != hlo.OpClamp || len(next.Users()) != 1 || next.IsRoot() {
		return false
	}
	clamp := next
	conv := clamp.Users()[0]
	if !ruleFP8Output.match(conv, d, &c) {
		return false
	}
	lo, okLo := match.SplatValue(c.s)
	hi, okHi := match.SplatValue(c.c)
	limit := conv.Shape.Elem.Finfo().Max
	if !okLo || !okHi || lo != -limit || hi != limit {
		e.note("the clamp %%%s before convert %%%s is not to exactly %s's range ±%v: the FP8 output is not absorbed", clamp.Name, conv.Name, conv.Shape.Elem, limit)
		return false
	}
	if e.c != nil && e.c.Shape.Elem != dtype.BF16 && e.c.Shape.Elem != dtype.F16 {
		e.note("the FP8 output (convert %%%s) is not absorbed: with a matrix bias, cuBLASLt's FP8 output needs C in bf16 or f16, and C is %s", conv.Name, e.c.Shape.Elem)
		return false
	}
	if t := conv.Shape.Elem; t == dtype.F8E5M2 && e.ab[0] != dtype.F8E5M2 && e.ab[1] != dtype.F8E5M2 {
		e.note("the FP8 output (convert %%%s to %s) is not absorbed: cuBLASLt's FP8 type table has an f8e5m2 D only "+
			"with an f8e5m2 operand, and A and B are %s x %s; the conversion stays outside the call", conv.Name, t, e.ab[0], e.ab[1])
		return false
	}
	if amax != nil && e.padRows && e.bias != nil {
		e.note("the abs-max %%%s is not absorbed: m is padded to a multiple of 16 and the padded rows of the call's "+
			"result hold the vector bias, which its damax would count", amax.Name)
		return false
	}
	// Everything matched: absorb.
	e.dScale, e.amax, e.out, e.dType = ds, amax, conv, conv.Shape.Elem
	if amax != nil {
		e.absorbed = append(e.absorbed, amax)
		if a := amax.Operand(0); a.Opcode == hlo.OpAbs {
			e.absorbed = append(e.absorbed, a)
		}
		e.absorb(amaxRule, true, "reduce %%%s: the abs-max of the result before the scale, as the damax output", amax.Name)
	}
	if ds != nil {
		e.absorbed = append(e.absorbed, ds.op)
		e.absorb(dsRule, true, "%s %%%s by broadcast scalar %%%s: d_scale", ds.op.Opcode, ds.op.Name, ds.scalar.Name)
	}
	if widen != nil {
		e.absorbed = append(e.absorbed, widen)
		e.used = append(e.used, ruleWiden)
	}
	e.absorbed = append(e.absorbed, clamp, conv)
	e.absorb(ruleFP8Output, true, "clamp %%%s to ±%v and convert %%%s: D is %s", clamp.Name, limit, conv.Name, conv.Shape.Elem)
	e.last, e.dims = conv, conv.Shape.Dims
	return true
}

// wider reports whether converting a from b keeps every value (a float type with at least b's range and
// precision).
func wider(to, from dtype.Type) bool {
	switch from {
	case dtype.BF16, dtype.F16:
		return to == dtype.F32 || to == dtype.F64
	case dtype.F32:
		return to == dtype.F64
	}
	return false
}

// absMax returns the reduce of an abs-max of v that starts at u, a user of v, and the rule it matched:
// ruleAbsMax, or ruleAbsMaxRelu when v has been through a ReLU (nonNegative). It returns nil when u starts
// none.
func absMax(u, v *hlo.Instruction, nonNegative bool) (*hlo.Instruction, *rule) {
	var c captures
	d := match.Same(&v).As("D")
	if u.Opcode == hlo.OpAbs {
		if len(u.Users()) != 1 || u.IsRoot() {
			return nil, nil
		}
		if r := u.Users()[0]; ruleAbsMax.match(r, d, &c) {
			return r, ruleAbsMax
		}
		return nil, nil
	}
	if nonNegative && ruleAbsMaxRelu.match(u, d, &c) {
		return u, ruleAbsMaxRelu
	}
	return nil, nil
}

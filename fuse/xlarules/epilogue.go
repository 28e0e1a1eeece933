package xlarules

import (
	"fmt"
	"math"
	"strings"

	"octet/cublas"
	"octet/dtype"
	"octet/fuse/match"
	"octet/hlo"
)

// epilogue is what the GEMM rewriter's handlers of the instructions after the dot make of the FP8 call
// CreateF8CustomCall made, visited in XLA's order (users after the dot): the call's configuration as it
// grows, what it absorbed, and a bug when the call it ends with is outside cuBLASLt's FP8 type table.
type epilogue struct {
	dot         *hlo.Instruction // the dot the call was made of
	at          *hlo.Instruction // the instruction whose value the call computes now
	a, b, c, d  dtype.Type
	bias        dtype.Type
	epi         cublas.Epilogue
	beta, alpha float64
	// aScaleOne: the call's a_scale is still the constant 1 (A had no scale, and F8ScaleD has not used it).
	aScaleOne bool
	damax     bool
	notes     []string
	stopped   string // why the walk stopped, when something after the call looked like a handler's pattern
	bug       string
	// tableErr is why the call is outside cuBLASLt's FP8 type table, when it is.
	tableErr error
	// compile: the module reaches the rewriter through a full compile from StableHLO, whose translation
	// (XlaBuilder::TernaryOp) makes a clamp's scalar bounds broadcasts.
	compile bool
	// within, when not nil, is the GEMM fusion whose computation the rewriter sees: a user outside it is
	// not there.
	within map[*hlo.Instruction]bool
}

// visible reports whether the rewriter sees x (it is in the fusion it rewrites, if any).
func (e *epilogue) visible(xs ...*hlo.Instruction) bool {
	for _, x := range xs {
		if e.within != nil && !e.within[x] {
			return false
		}
	}
	return true
}

func (e *epilogue) note(format string, args ...any) {
	e.notes = append(e.notes, fmt.Sprintf(format, args...))
}

// summary is what the handlers absorbed, in words.
func (e *epilogue) summary() string {
	if e == nil {
		return ""
	}
	s := strings.Join(e.notes, "; ")
	if e.stopped != "" {
		if s != "" {
			s += "; "
		}
		s += e.stopped
	}
	return s
}

// runEpilogue walks the users of the dot that became the FP8 call, applying the handlers XLA's visitor
// runs on them: HandleMultiply (alpha, F8ScaleD, GELU), HandleDivide (F8ScaleD), HandleAdd (vector and
// matrix bias), HandleMaximum (ReLU) and HandleConvert (F8ConvertD, with the abs-max). view is how the
// passes of a compile left the dot (nil: the module as it stands).
func runEpilogue(dot *hlo.Instruction, r *result, t Target, view *operandView) *epilogue {
	e := &epilogue{dot: dot, at: dot, a: r.a.fp8.Shape.Elem, b: r.b.fp8.Shape.Elem, d: dot.Shape.Elem, epi: cublas.EpilogueDefault,
		alpha: 1, aScaleOne: r.a.scale == nil}
	reshaped := false
	if view != nil {
		e.compile, e.within, reshaped = true, view.within, view.reshaped
	}
	g := t.GPU
	if g.Vendor == ROCm && (!t.Release.rocmTypes || g.Toolkit < 6020) && e.d != dtype.F16 && e.d != dtype.F32 {
		e.note("on ROCm the call gives f32 and a convert after it gives %s (TurnF8DotWithUnsupportedOutputTypeIntoF32), "+
			"so no handler after the dot sees the call", e.d)
		e.d = dtype.F32
		return e
	}
	if reshaped {
		e.stopped = "the handlers after the dot see the reshape or bitcast a pass put after it, not the call"
		return e
	}
	for range 64 {
		if !e.step(t) {
			break
		}
	}
	if g.Vendor == CUDA {
		e.checkTable()
	}
	return e
}

// checkTable reports a call outside cuBLASLt's FP8 type table: XLA's handlers check the clamp's bounds
// and some bias types, not the table.
func (e *epilogue) checkTable() {
	c, bias := dtype.Invalid, dtype.Invalid
	if e.beta != 0 {
		c = e.c
	}
	if e.epi.HasBias() {
		bias = e.bias
	}
	if err := cublas.CheckFP8Types(e.a, e.b, c, e.d, bias); err != nil {
		by := "CreateF8CustomCall"
		if len(e.notes) > 0 {
			by = e.notes[len(e.notes)-1]
		}
		e.tableErr = err
		e.bug = fmt.Sprintf("the call XLA builds is outside cuBLASLt's FP8 type table: %v; the table's rows for %s x %s: %s. "+
			"It was built by: %s. No cuBLASLt algorithm runs it: %s fails the compile with %q", err, e.a, e.b, tableRows(e.a, e.b), by,
			measuredAs, errNoConfigs)
	}
}

// tableRows lists cuBLASLt's FP8 table rows for A x B.
func tableRows(a, b dtype.Type) string {
	var rows []string
	for _, r := range cublas.FP8TypeTable() {
		if r.A == a && r.B == b {
			rows = append(rows, fmt.Sprintf("C %s/D %s/bias %s", r.C, r.D, r.Bias))
		}
	}
	if len(rows) == 0 {
		return "none"
	}
	return strings.Join(rows, ", ")
}

func oneUser(x *hlo.Instruction) bool { return len(x.Users()) == 1 }

// other returns the operand of a binary u that is not x, or nil when x is not an operand of u.
func other(u, x *hlo.Instruction) *hlo.Instruction {
	if u.NumOperands() != 2 {
		return nil
	}
	switch x {
	case u.Operand(0):
		return u.Operand(1)
	case u.Operand(1):
		return u.Operand(0)
	}
	return nil
}

// scalarConstant is m::ConstantScalar: a constant of one element.
func scalarConstant(x *hlo.Instruction) (float64, bool) { return match.ConstantValue(x) }

// supportsEpilogueFusion is SupportsEpilogueFusion: the result types cuBLASLt fuses an epilogue for.
func supportsEpilogueFusion(t dtype.Type) bool {
	switch t {
	case e4m3, e5m2, dtype.F16, dtype.BF16, dtype.F32, dtype.F64:
		return true
	}
	return false
}

// step applies the handler of the next instruction after the call, if one fuses it, and reports whether
// the walk goes on.
func (e *epilogue) step(t Target) bool {
	us := e.at.Users()
	if !e.visible(us...) {
		return false
	}
	switch len(us) {
	case 0:
		return false
	case 1:
	default:
		if len(us) >= 4 && e.gelu(t) {
			return true
		}
		if len(us) == 2 {
			for _, u := range us {
				if e.convertD(u, t) {
					return false
				}
			}
		}
		return false
	}
	u := us[0]
	switch u.Opcode {
	case hlo.OpMultiply, hlo.OpDivide:
		y := other(u, e.at)
		if y == nil || u.Opcode == hlo.OpDivide && u.Operand(0) != e.at {
			return false
		}
		if u.Opcode == hlo.OpMultiply && y.Opcode == hlo.OpBroadcast && oneUser(y) {
			if v, ok := scalarConstant(y.Operand(0)); ok && e.beta == 0 {
				e.alpha *= v
				e.note("HandleMultiply folds multiply %%%s by the constant %v into alpha (alpha %v)", u.Name, v, e.alpha)
				e.at = u
				return true
			}
		}
		if y.Opcode == hlo.OpBroadcast && oneUser(y) {
			if e.scaleD(u, y.Operand(0)) {
				return true
			}
		}
		// A scale F8ScaleD does not take may still be the d_scale of an FP8 output.
		e.convertD(u, t)
		return false
	case hlo.OpAdd:
		return e.add(u, t)
	case hlo.OpMaximum:
		return e.relu(u)
	case hlo.OpClamp:
		e.convertD(u, t)
		return false
	}
	return false
}

// scaleD is F8ScaleD: a multiply or divide of the call by a broadcast scalar, when the call's a_scale
// is still 1, its epilogue DEFAULT or RELU and beta 0, becomes the a_scale.
func (e *epilogue) scaleD(u, d *hlo.Instruction) bool {
	if !d.Shape.IsScalar() || !e.aScaleOne || e.epi != cublas.EpilogueDefault && e.epi != cublas.EpilogueRelu || e.beta != 0 {
		return false
	}
	verb := "multiply"
	if u.Opcode == hlo.OpDivide {
		verb = "divide"
	}
	e.aScaleOne = false
	e.note("F8ScaleD takes %s %%%s by %%%s as the call's a_scale", verb, u.Name, d.Name)
	e.at = u
	return true
}

// add is HandleAdd: a vector bias (FuseVectorBiasAdd) or a matrix bias (FuseMatrixBiasAdd).
func (e *epilogue) add(u *hlo.Instruction, t Target) bool {
	if t.Flags.AsyncDot {
		e.stopped = fmt.Sprintf("add %%%s is not fused: xla_gpu_async_dot turns bias fusion off", u.Name)
		return false
	}
	y := other(u, e.at)
	if y == nil {
		return false
	}
	if y.Opcode == hlo.OpBroadcast {
		// FuseVectorBiasAdd.
		bias := y.Operand(0)
		var conv *hlo.Instruction
		if bias.Opcode == hlo.OpConvert {
			conv, bias = bias, bias.Operand(0)
		}
		switch {
		case !supportsEpilogueFusion(e.d):
			e.stopped = fmt.Sprintf("vector bias %%%s: SupportsEpilogueFusion has no %s", u.Name, e.d)
			return false
		case e.epi != cublas.EpilogueDefault:
			e.stopped = fmt.Sprintf("vector bias %%%s: FuseVectorBiasAdd wants the DEFAULT epilogue, and the call has %s", u.Name, e.epi)
			return false
		case !vectorBiasDims(y, e.at):
			e.stopped = fmt.Sprintf("add %%%s: FuseVectorBiasAdd wants a vector broadcast along the output's last dimension", u.Name)
			return false
		case e.beta != 0:
			e.stopped = fmt.Sprintf("vector bias %%%s: with a matrix bias fused, FuseVectorBiasAdd leaves the add", u.Name)
			return false
		}
		bt := y.Operand(0).Shape.Elem
		if bt == dtype.F32 {
			if conv == nil {
				e.stopped = fmt.Sprintf("vector bias %%%s is f32: FuseVectorBiasAdd fuses an f32 bias only as a convert from bf16 or f16 "+
					"(cuBLASLt takes no f32 bias with FP8 inputs)", u.Name)
				return false
			}
			bt = bias.Shape.Elem
			if !compatibleBias(bt, e.d) {
				e.stopped = fmt.Sprintf("vector bias %%%s: a %s bias does not go with a %s result (FuseVectorBiasAdd's compatible_bias_type)", u.Name, bt, e.d)
				return false
			}
		}
		e.epi, e.bias = cublas.EpilogueBias, bt
		e.note("FuseVectorBiasAdd takes add %%%s of the %s vector %%%s as the BIAS epilogue", u.Name, bt, y.Operand(0).Name)
		e.at = u
		return true
	}
	// FuseMatrixBiasAdd.
	switch {
	case y.Shape.Elem.IsFP8():
		e.stopped = fmt.Sprintf("add %%%s: the matrix bias must not be FP8", u.Name)
		return false
	case e.beta != 0:
		return false
	case e.epi != cublas.EpilogueDefault && e.epi != cublas.EpilogueBias:
		e.stopped = fmt.Sprintf("matrix bias %%%s: FuseMatrixBiasAdd wants the DEFAULT or BIAS epilogue, and the call has %s", u.Name, e.epi)
		return false
	}
	e.beta, e.c, e.d = 1, y.Shape.Elem, u.Shape.Elem
	e.note("FuseMatrixBiasAdd takes add %%%s of %%%s as the matrix bias C (%s, beta 1)", u.Name, y.Name, e.c)
	e.at = u
	return true
}

// vectorBiasDims is FuseVectorBiasAdd's check that the bias is a vector broadcast along the output's
// most minor dimension (the default layout's last).
func vectorBiasDims(b, gemm *hlo.Instruction) bool {
	dims := b.Ints("dimensions")
	r := gemm.Shape.Rank()
	return b.Operand(0).Shape.Rank() == 1 && len(dims) == 1 && r > 0 && dims[0] == int64(r-1)
}

// compatibleBias is FuseVectorBiasAdd's compatible_bias_type for a bias fused from a convert.
func compatibleBias(bias, out dtype.Type) bool {
	switch bias {
	case dtype.BF16:
		return out == e4m3 || out == e5m2 || out == dtype.F32 || out == dtype.BF16
	case dtype.F16:
		return out == dtype.F16 || out == e4m3 || out == e5m2
	}
	return false
}

// relu is HandleMaximum: maximum(call, broadcast(0)) is the ReLU epilogue (FuseReluActivation).
func (e *epilogue) relu(u *hlo.Instruction) bool {
	y := other(u, e.at)
	if y == nil || !broadcastZero(y) {
		return false
	}
	switch {
	case !supportsEpilogueFusion(e.d):
		e.stopped = fmt.Sprintf("maximum %%%s: SupportsEpilogueFusion has no %s", u.Name, e.d)
		return false
	case e.epi == cublas.EpilogueDefault:
		e.epi = cublas.EpilogueRelu
	case e.epi == cublas.EpilogueBias:
		e.epi = cublas.EpilogueBiasRelu
	default:
		e.stopped = fmt.Sprintf("maximum %%%s: FuseReluActivation wants the DEFAULT or BIAS epilogue, and the call has %s", u.Name, e.epi)
		return false
	}
	e.note("FuseReluActivation takes maximum %%%s as the %s epilogue", u.Name, e.epi)
	e.at = u
	return true
}

// gelu is HandleMultiply's GELU pattern: x * (0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x*x*x))))
// with x the call, every intermediate of one user (FuseGeluActivation). It is XLA's one form: the form
// jax.nn.gelu(approximate=True) writes, (0.5 * x) * (1 + tanh(...)), does not match it.
func (e *epilogue) gelu(t Target) bool {
	x := e.at
	for _, u := range x.Users() {
		if u.Opcode != hlo.OpMultiply {
			continue
		}
		cdf := other(u, x)
		if cdf == nil || !oneUser(cdf) || !geluCDF(cdf, x) {
			continue
		}
		switch {
		case !supportsEpilogueFusion(e.d):
			e.stopped = fmt.Sprintf("GELU at %%%s: SupportsEpilogueFusion has no %s", u.Name, e.d)
			return false
		case t.Release.geluToolkit && t.GPU.Vendor == CUDA && t.GPU.Toolkit < 12040:
			e.stopped = fmt.Sprintf("GELU at %%%s: FuseGeluActivation refuses an FP8 call below CUDA 12.4", u.Name)
			return false
		}
		aux := len(x.Users()) > 4
		switch {
		case e.epi == cublas.EpilogueDefault && aux:
			e.epi = cublas.EpilogueGeluAux
		case e.epi == cublas.EpilogueDefault:
			e.epi = cublas.EpilogueGelu
		case e.epi == cublas.EpilogueBias && aux:
			e.epi = cublas.EpilogueBiasGeluAux
		case e.epi == cublas.EpilogueBias:
			e.epi = cublas.EpilogueBiasGelu
		default:
			e.stopped = fmt.Sprintf("GELU at %%%s: FuseGeluActivation wants the DEFAULT or BIAS epilogue", u.Name)
			return false
		}
		e.note("FuseGeluActivation takes the tanh GELU ending at multiply %%%s as the %s epilogue", u.Name, e.epi)
		e.at = u
		return true
	}
	return false
}

// geluCDF matches 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x * x * x))), each intermediate of one
// user, multiplies and adds in either order, the constants near their values as BcastConstScalarNear
// allows (128 epsilons of their type).
func geluCDF(cdf, x *hlo.Instruction) bool {
	half, sum := splitConst(cdf, hlo.OpMultiply, 0.5, false)
	if half == nil || sum.Opcode != hlo.OpAdd {
		return false
	}
	one, th := splitConst(sum, hlo.OpAdd, 1, false)
	if one == nil || th.Opcode != hlo.OpTanh || !oneUser(th) {
		return false
	}
	in := th.Operand(0)
	if !oneUser(in) {
		return false
	}
	k, inner := splitConst(in, hlo.OpMultiply, math.Sqrt(2/math.Pi), true)
	if k == nil || inner.Opcode != hlo.OpAdd || !oneUser(inner) {
		return false
	}
	cubic := other(inner, x)
	if cubic == nil || !oneUser(cubic) {
		return false
	}
	c, cube := splitConst(cubic, hlo.OpMultiply, 0.044715, true)
	if c == nil || cube.Opcode != hlo.OpMultiply || !oneUser(cube) {
		return false
	}
	sq := other(cube, x)
	if sq == nil || sq.Opcode != hlo.OpMultiply || !oneUser(sq) || sq.Operand(0) != x || sq.Operand(1) != x {
		return false
	}
	return true
}

// splitConst matches op(broadcast(constant v), y) in either order and returns the broadcast and y.
func splitConst(in *hlo.Instruction, op hlo.Opcode, v float64, near bool) (*hlo.Instruction, *hlo.Instruction) {
	if in.Opcode != op || in.NumOperands() != 2 {
		return nil, nil
	}
	for j := range 2 {
		b := in.Operand(j)
		if b.Opcode != hlo.OpBroadcast {
			continue
		}
		got, ok := scalarConstant(b.Operand(0))
		if !ok {
			continue
		}
		if got == v || near && nearValue(got, v, b.Operand(0).Shape.Elem) {
			return b, in.Operand(1 - j)
		}
	}
	return nil, nil
}

// nearValue is BcastConstScalarNear's comparison: |got - want| < |got + want| * 128 epsilons of the type.
func nearValue(got, want float64, t dtype.Type) bool {
	var eps float64
	switch t {
	case dtype.F16, dtype.BF16, dtype.F32, dtype.F64:
		eps = t.Finfo().Eps
	default:
		return false
	}
	return math.Abs(got-want) < math.Abs(got+want)*128*eps
}

// convertD is HandleConvert's pattern, from u, the call's user: convert(clamp(broadcast(constant lo), x,
// broadcast(constant hi))) with one user of the clamp, where x is the call itself or the call divided or
// multiplied by a broadcast d_scale; then F8ConvertD's checks. It reports whether the convert was fused.
func (e *epilogue) convertD(u *hlo.Instruction, t Target) bool {
	var d *hlo.Instruction
	mult := false
	clamps, mid := []*hlo.Instruction{u}, e.at
	if u.Opcode == hlo.OpMultiply || u.Opcode == hlo.OpDivide {
		y := other(u, e.at)
		if y == nil || y.Opcode != hlo.OpBroadcast || u.Opcode == hlo.OpDivide && u.Operand(0) != e.at {
			return false
		}
		d, mult, clamps, mid = y.Operand(0), u.Opcode == hlo.OpMultiply, u.Users(), u
	}
	var clamp *hlo.Instruction
	for _, c := range clamps {
		if c.Opcode == hlo.OpClamp && c.NumOperands() == 3 && c.Operand(1) == mid && len(c.Users()) == 1 &&
			c.Users()[0].Opcode == hlo.OpConvert && e.visible(c, c.Users()[0]) {
			clamp = c
			break
		}
	}
	if clamp == nil {
		return false
	}
	conv := clamp.Users()[0]
	lo, hi := e.clampBound(clamp.Operand(0)), e.clampBound(clamp.Operand(2))
	if lo == nil || hi == nil {
		e.stopped = fmt.Sprintf("convert %%%s is not fused: clamp %%%s's bounds are not broadcasts of constants, and HandleConvert's pattern "+
			"is convert(clamp(broadcast(constant), ..., broadcast(constant)))", conv.Name, clamp.Name)
		return false
	}
	lov, ok1 := scalarConstant(lo)
	hiv, ok2 := scalarConstant(hi)
	if !ok1 || !ok2 {
		e.stopped = fmt.Sprintf("convert %%%s is not fused: clamp %%%s's bounds are not broadcasts of scalar constants", conv.Name, clamp.Name)
		return false
	}
	if t.Release.rocmTypes && t.GPU.Vendor == ROCm {
		e.stopped = fmt.Sprintf("convert %%%s is not fused: F8ConvertD returns at once on ROCm", conv.Name)
		return false
	}
	out := conv.Shape.Elem
	if out != e4m3 && out != e5m2 {
		e.stopped = fmt.Sprintf("convert %%%s to %s is not fused: F8ConvertD takes a convert to f8e4m3fn or f8e5m2 only", conv.Name, out)
		return false
	}
	max := out.Finfo().Max
	if lov != -max || hiv != max {
		e.stopped = fmt.Sprintf("convert %%%s to %s is not fused: F8ConvertD wants the clamp's bounds to be exactly %s's lowest and max "+
			"(%v, %v), and clamp %%%s has %v, %v", conv.Name, out, out, -max, max, clamp.Name, lov, hiv)
		return false
	}
	if d != nil && !d.Shape.IsScalar() {
		e.stopped = fmt.Sprintf("convert %%%s is not fused: F8ConvertD wants a scalar d_scale, and %%%s is %s", conv.Name, d.Name, d.Shape.String())
		return false
	}
	var amax *hlo.Instruction
	switch us := e.at.Users(); {
	case len(us) == 2:
		amax = e.amax(us)
		if amax == nil {
			e.stopped = fmt.Sprintf("convert %%%s is not fused: the call's second user is not the abs-max reduce F8ConvertD looks for", conv.Name)
			return false
		}
	case len(us) > 2:
		e.stopped = fmt.Sprintf("convert %%%s is not fused: the call has %d users, and F8ConvertD allows the abs-max as the only other", conv.Name, len(us))
		return false
	}
	if e.beta != 0 && e.c != dtype.BF16 && e.c != dtype.F16 {
		e.stopped = fmt.Sprintf("convert %%%s is not fused: F8ConvertD gives no FP8 output with a %s matrix bias (C must be bf16 or f16)", conv.Name, e.c)
		return false
	}
	what := fmt.Sprintf("F8ConvertD takes clamp %%%s and convert %%%s as an %s output", clamp.Name, conv.Name, out)
	if clamp.Operand(0).Opcode != hlo.OpBroadcast || clamp.Operand(2).Opcode != hlo.OpBroadcast {
		what += " (the StableHLO translation makes the clamp's scalar bounds broadcasts)"
	}
	if d != nil {
		verb := "divide"
		if mult {
			verb = "multiply"
		}
		what += fmt.Sprintf(" with d_scale %%%s (%s %%%s)", d.Name, verb, u.Name)
	}
	if amax != nil {
		e.damax = true
		what += fmt.Sprintf(", and reduce %%%s as the abs-max", amax.Name)
	}
	e.d = out
	e.note("%s", what)
	if d != nil {
		e.cycle(d, "the d_scale", "F8ConvertD")
	}
	e.at = conv
	return true
}

// cycle reports, as the verdict's bug, an operand the call takes (what, by the handler by) that is
// computed from the dot's own result: the call would read its own output. F8ConvertD checks the pattern
// around the call, not where its d_scale comes from (gemm_rewriter.cc@2b5fc4eb: ReplaceOperandWith sets
// it as found; current scaling computes it from the abs-max F8AddDAmax then takes from the call). (A
// matrix bias that is the call's own input GEMM is no cycle: FuseMatrixBiasAdd's new call reads the
// old one, which stays, and the GEMM runs twice.)
func (e *epilogue) cycle(x *hlo.Instruction, what, by string) {
	if x.DependsOn(e.dot) && e.bug == "" {
		e.bug = fmt.Sprintf("%s %%%s, which %s makes an operand of the call, is computed from the GEMM's own result: "+
			"the call would read its own output, a cycle in the module XLA builds", what, x.Name, by)
	}
}

// clampBound returns what a clamp bound broadcasts: the operand of a broadcast, or, in a compile from
// StableHLO, a scalar bound itself, which the translation broadcasts (XlaBuilder::TernaryOp makes the
// implicit scalar broadcast of select and clamp explicit; xla_builder.cc@08eac050). nil otherwise.
func (e *epilogue) clampBound(x *hlo.Instruction) *hlo.Instruction {
	switch {
	case x.Opcode == hlo.OpBroadcast:
		return x.Operand(0)
	case e.compile && x.Shape.IsScalar():
		return x
	}
	return nil
}

// amax finds, among the two users of the call, the abs-max F8ConvertD takes: reduce(abs(call)) (or
// reduce(call) after a ReLU) with an initial value <= 0 and maximum as the reduction.
func (e *epilogue) amax(us []*hlo.Instruction) *hlo.Instruction {
	for _, u := range us {
		r := u
		if u.Opcode == hlo.OpAbs {
			if len(u.Users()) != 1 {
				continue
			}
			r = u.Users()[0]
		} else if e.epi != cublas.EpilogueRelu && e.epi != cublas.EpilogueBiasRelu {
			continue
		}
		if r.Opcode != hlo.OpReduce || r.NumOperands() != 2 || r.Operand(1).Opcode != hlo.OpConstant || !r.Operand(1).Shape.IsScalar() {
			continue
		}
		if v, ok := scalarConstant(r.Operand(1)); !ok || v > 0 {
			continue
		}
		c := r.CalledComputation("to_apply")
		if c == nil || c.Root == nil || c.Root.Opcode != hlo.OpMaximum || c.Root.Operand(0).Opcode != hlo.OpParameter ||
			c.Root.Operand(1).Opcode != hlo.OpParameter {
			continue
		}
		return r
	}
	return nil
}

package fuse

import (
	"fmt"
	"slices"

	"octet/cublas"
	"octet/dtype"
	"octet/hlo"
)

// WorkspaceBytes is the size of the s8 workspace XLA gives a cuBLASLt call on Hopper.
const WorkspaceBytes = 33554432

// builder makes the replacement of one plan in the dot's computation. Every instruction it makes is
// appended to the computation; the computation is sorted topologically when the rewrite is done.
type builder struct {
	p   *plan
	c   *hlo.Computation
	abi ABI
	one *hlo.Instruction // the f32 constant 1, made on first use
	// zeros are the scalar zero constants of each type, made on first use.
	zeros map[dtype.Type]*hlo.Instruction
	made  []*hlo.Instruction
}

func (b *builder) add(in *hlo.Instruction) *hlo.Instruction {
	if in.Shape.IsArray() && in.Shape.Layout == nil {
		in.Shape.SetDefaultLayouts()
	}
	b.made = append(b.made, in)
	return in
}

func (b *builder) inferred(name string, op hlo.Opcode, operands []*hlo.Instruction, attrs ...hlo.Attr) *hlo.Instruction {
	in, err := b.c.AddInferred(name, op, operands, attrs...)
	if err != nil {
		panic(fmt.Sprintf("fuse: building %s: %v", op, err))
	}
	return b.add(in)
}

func (b *builder) zero(t dtype.Type) *hlo.Instruction {
	if b.zeros[t] == nil {
		if b.zeros == nil {
			b.zeros = map[dtype.Type]*hlo.Instruction{}
		}
		b.zeros[t] = b.add(b.c.ScalarConstant(t, 0))
	}
	return b.zeros[t]
}

func (b *builder) f32One() *hlo.Instruction {
	if b.one == nil {
		b.one = b.add(b.c.ScalarConstant(dtype.F32, 1))
	}
	return b.one
}

// f32 returns the scalar s as f32, inverted when invert is set. As in XLA, the reciprocal is computed in
// s's own type and then converted: 1/s rounds once to that type, as the divide it replaces did.
func (b *builder) f32(s *hlo.Instruction, invert bool) *hlo.Instruction {
	if invert {
		one := b.f32One()
		if s.Shape.Elem != dtype.F32 {
			one = b.add(b.c.ScalarConstant(s.Shape.Elem, 1))
		}
		s = b.add(b.c.Divide(one, s))
	}
	if s.Shape.Elem != dtype.F32 {
		s = b.add(b.c.Convert(s, dtype.F32))
	}
	return s
}

// rounded returns the scalar s of a scale step as the step uses it: converted to the step's type when a
// convert after the broadcast rounds it (convert(broadcast(s))), s itself otherwise.
func (b *builder) rounded(s, step *hlo.Instruction) *hlo.Instruction {
	if t := step.Shape.Elem; s.Shape.Elem != t {
		return b.add(b.c.Convert(s, t))
	}
	return s
}

// replay applies the ops that commute with the dequantize to the FP8 value, in their order, and returns
// the FP8 operand.
func (b *builder) replay(op *operand) *hlo.Instruction {
	x := op.fp8
	t := x.Shape.Elem
	prev := op.fp8 // the original instruction x stands for
	replayed := make(map[*hlo.Instruction]bool, len(op.replay))
	for _, in := range op.replay {
		replayed[in] = true
	}
	for _, in := range op.chain {
		if !replayed[in] {
			prev = in
			continue
		}
		shape := in.Shape.WithElem(t)
		ops := slices.Clone(in.Operands())
		for i, o := range ops {
			if o == prev {
				ops[i] = x
				break
			}
		}
		switch in.Opcode {
		case hlo.OpPad:
			ops[1] = b.zero(t)
		case hlo.OpSelect:
			zero := b.add(b.c.Broadcast(b.zero(t), hlo.Array(t, in.Shape.Dims...), nil))
			for i := 1; i < 3; i++ {
				if ops[i] != x {
					ops[i] = zero
				}
			}
		}
		n := b.c.Add(in.Name, in.Opcode, shape, ops...)
		n.Attrs = slices.Clone(in.Attrs)
		n.RemoveAttr("metadata")
		if preds := n.Attr("control-predecessors"); preds != nil {
			// Given through SetAttr, which keeps the computation's index of control successors.
			n.RemoveAttr("control-predecessors")
			n.SetAttr("control-predecessors", preds)
		}
		x = b.add(n)
		prev = in
	}
	return x
}

// canonical transposes, reshapes and lays out an FP8 operand as cuBLASLt wants it on Hopper: A row-major
// [batch..., m, k], B column-major, which is [batch..., n, k] row-major; then pads m, n and k to multiples
// of 16.
func (b *builder) canonical(x *hlo.Instruction, batch, free, contract []int64, rows int64) *hlo.Instruction {
	perm := slices.Concat(batch, free, contract)
	identity := true
	for i, d := range perm {
		if d != int64(i) {
			identity = false
		}
	}
	if !identity {
		x = b.add(b.c.Transpose(x, perm))
	}
	dims := slices.Clone(b.p.batch)
	dims = append(dims, rows, b.p.k)
	if !slices.Equal(x.Shape.Dims, dims) {
		x = b.add(b.c.Reshape(x, hlo.Array(x.Shape.Elem, dims...)))
	}
	if !defaultLayout(x.Shape) {
		cp := b.inferred("", hlo.OpCopy, []*hlo.Instruction{x})
		l := hlo.DefaultLayout(cp.Shape.Rank())
		cp.Shape.Layout = &l
		x = cp
	}
	return b.pad(x, nil)
}

// pad pads the last two dimensions of x (or, with to, every dimension to to's sizes) with zeros.
func (b *builder) pad(x *hlo.Instruction, to []int64) *hlo.Instruction {
	r := x.Shape.Rank()
	cfg := make(hlo.Padding, r)
	any := false
	for i := 0; i < r; i++ {
		target := x.Shape.Dims[i]
		if to != nil {
			target = to[i]
		} else if i >= r-2 {
			target = roundUp16(target)
		}
		cfg[i].High = target - x.Shape.Dims[i]
		any = any || cfg[i].High != 0
	}
	if !any {
		return x
	}
	return b.add(b.c.Pad(x, b.zero(x.Shape.Elem), cfg))
}

// build makes the custom call for the plan and makes the users of what it absorbed use it. It returns the
// call.
func (p *plan) build(abi ABI) *hlo.Instruction {
	b := &builder{p: p, c: p.dot.Parent, abi: abi}
	e := p.epi
	// Decided before the call becomes one more user of C.
	alias := e.c != nil && e.c.Shape.Elem == e.dType && canOverwrite(e.c)
	a := b.canonical(b.replay(p.a), p.lhsBatch, p.lhsFree, p.lhsContract, p.m)
	bb := b.canonical(b.replay(p.b), p.rhsBatch, p.rhsFree, p.rhsContract, p.n)
	nb := len(p.batch)
	dp := append(slices.Clone(p.batch), roundUp16(p.m), roundUp16(p.n))

	// Scales: a_scale carries the output scales folded into it.
	var aScale, bScale *hlo.Instruction
	if p.a.Factor != nil {
		aScale = b.f32(b.rounded(p.a.Factor, p.a.Scale), p.a.Divide)
	}
	if p.b.Factor != nil {
		bScale = b.f32(b.rounded(p.b.Factor, p.b.Scale), p.b.Divide)
	}
	for _, s := range e.outScales {
		switch {
		case aScale == nil:
			aScale = b.f32(s.scalar, s.divide)
		case s.divide:
			aScale = b.add(b.c.Divide(aScale, b.f32(s.scalar, false)))
		default:
			aScale = b.add(b.c.Multiply(aScale, b.f32(s.scalar, false)))
		}
	}

	var cOp *hlo.Instruction
	if e.c != nil {
		cOp = e.c
		if !slices.Equal(e.cDims, e.cRegion) {
			cOp = b.add(b.c.Reshape(cOp, hlo.Array(cOp.Shape.Elem, e.cRegion...)))
		}
		cOp = b.pad(cOp, dp)
	}
	var bias *hlo.Instruction
	if e.bias != nil {
		bias = e.bias
		if bias.Shape.Rank() != 1 {
			bias = b.add(b.c.Reshape(bias, hlo.Array(bias.Shape.Elem, bias.Shape.NumElements())))
		}
		bias = b.pad(bias, []int64{dp[nb+1]})
	}
	fp8Out := e.dType.IsFP8()
	var dScale *hlo.Instruction
	if fp8Out || abi == ABILegacy {
		if e.dScale != nil {
			dScale = b.f32(e.dScale.scalar, e.dScale.divide)
		} else {
			dScale = b.f32One()
		}
	}

	if aScale == nil {
		aScale = b.f32One()
	}
	if bScale == nil {
		bScale = b.f32One()
	}
	ops := []*hlo.Instruction{a, bb}
	if cOp != nil {
		ops = append(ops, cOp)
	}
	ops = append(ops, aScale, bScale)
	if abi == ABILegacy {
		ops = append(ops, b.f32One(), dScale)
		if bias != nil {
			ops = append(ops, bias)
		}
	} else {
		if bias != nil {
			ops = append(ops, bias)
		}
		if dScale != nil {
			ops = append(ops, dScale)
		}
	}

	d := hlo.Array(e.dType, dp...)
	if l := p.dot.Shape.Layout; l != nil && len(l.MinorToMajor) == len(dp) && slices.Equal(p.dot.Shape.Dims, p.canonical()) {
		ll := hlo.Layout{MinorToMajor: slices.Clone(l.MinorToMajor)}
		d.Layout = &ll
	} else {
		d.SetDefaultLayouts()
	}
	results := []hlo.Shape{d}
	if e.amax != nil {
		results = append(results, hlo.Scalar(dtype.F32))
	}
	results = append(results, hlo.Array(dtype.S8, WorkspaceBytes))
	shape := hlo.Tuple(results...)
	shape.SetDefaultLayouts()

	cfg := cublas.DefaultConfig([]int64{int64(nb + 1)}, []int64{int64(nb + 1)}, seq(nb), seq(nb))
	cfg.AlphaReal = e.alpha
	if e.c != nil {
		cfg.Beta = 1
	}
	cfg.Epilogue = e.Epilogue()
	cfg.DamaxOutput = e.amax != nil
	cfg.OperandPrecision = precision(p.dot)
	ls, rs := dp[nb]*roundUp16(p.k), dp[nb+1]*roundUp16(p.k)
	cfg.LhsStride, cfg.RhsStride = &ls, &rs
	f := false
	cfg.GradX, cfg.GradY = &f, &f

	name := "cublas-gemm"
	if nb > 0 {
		name = "cublas-batch-gemm"
	}
	call := b.add(b.c.Add(name, hlo.OpCustomCall, shape, ops...))
	call.Attrs = []hlo.Attr{{Name: "custom_call_target", Value: hlo.String(cublas.TargetF8)}}
	if alias {
		call.Attrs = append(call.Attrs, hlo.Attr{Name: "output_to_operand_aliasing",
			Value: hlo.Aliasing{{Output: []int64{0}, Operand: 2, OperandIndex: []int64{}}}})
	}
	if md := p.dot.Attr("metadata"); md != nil {
		call.Attrs = append(call.Attrs, hlo.Attr{Name: "metadata", Value: md})
	}
	call.Attrs = append(call.Attrs, hlo.Attr{Name: "backend_config", Value: &hlo.BackendConfig{Text: cfg.BackendConfigJSON()}})

	// D, sliced back to the region the chain kept and reshaped to the replaced value's dimensions.
	out := b.add(b.c.GetTupleElement(call, 0))
	if !slices.Equal(dp, e.region) {
		out = b.add(b.c.Slice(out, make([]int64, len(dp)), e.region, nil))
	}
	if !slices.Equal(out.Shape.Dims, e.last.Shape.Dims) {
		out = b.add(b.c.Reshape(out, hlo.Array(out.Shape.Elem, e.last.Shape.Dims...)))
	}
	if l := e.last.Shape.Layout; l != nil && out.Opcode != hlo.OpGetTupleElement {
		ll := l.Clone()
		out.Shape.Layout = &ll
	}
	// The call computes the dot and what it absorbed: their control dependencies become its own.
	for _, in := range append([]*hlo.Instruction{p.dot}, e.absorbed...) {
		in.MoveControlDependencies(call)
	}
	e.last.ReplaceAllUsesWith(out)
	p.result = out
	if e.amax != nil {
		am := b.add(b.c.GetTupleElement(call, 1))
		if e.amax.Shape.Elem != dtype.F32 {
			am = b.add(b.c.Convert(am, e.amax.Shape.Elem))
		}
		e.amax.ReplaceAllUsesWith(am)
		p.amaxResult = am
	}
	// Drop what was made and not used (a constant 1 a scale made unnecessary). The instructions that carry
	// the call's results stay even when nothing reads them (a dot whose value is unused): the decision
	// names them.
	for i := len(b.made) - 1; i >= 0; i-- {
		if in := b.made[i]; in != call && in != p.result && in != p.amaxResult && len(in.Users()) == 0 && !in.IsRoot() {
			b.c.Remove(in)
		}
	}
	return call
}

func seq(n int) []int64 {
	l := make([]int64, n)
	for i := range l {
		l[i] = int64(i)
	}
	return l
}

// canOverwrite reports whether the call may write D over C, as XLA decides: C has no other user, and is
// not a parameter unless the module aliases that parameter with an output.
func canOverwrite(c *hlo.Instruction) bool {
	if len(c.Users()) > 1 {
		return false
	}
	if c.Opcode != hlo.OpParameter {
		return true
	}
	comp := c.Parent
	if comp == nil || comp.Module == nil || comp.Module.Entry != comp {
		return false
	}
	aliases, _ := comp.Module.Attr("input_output_alias").(hlo.InputOutputAliasing)
	for _, a := range aliases {
		if a.Parameter == c.ParameterNumber && len(a.ParameterIndex) == 0 {
			return true
		}
	}
	return false
}

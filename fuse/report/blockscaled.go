package report

import (
	"fmt"
	"slices"
	"strings"

	"octet/fuse"
	"octet/fuse/match"
	"octet/fuse/xlarules"
	"octet/hlo"
)

// Block-scaled GEMMs (MX formats with f8e8m0fnu scales per 32, NVFP4 with f8e4m3fn scales per 16) are
// reported apart from the FP8 GEMMs, each with XLA's verdict (xlarules.BlockScaled): whether the module
// holds, or XLA would make, a block-scaled kernel, and the first rule that fails. A GEMM is Fused when the
// module holds the block-scaled kernel (so that Diff reports a lost one and Passes names the pass that lost
// it). The forms:
//
//   - calls and instructions: __op$block_scaled_dot (before XLA's block scaling rewriter),
//     __cudnn$blockScaledDot and __cublas$lt$matmul$mx (made), scaled-dot (before the GEMM fusion; in a
//     cuDNN or Triton fusion of a compiled module, made);
//   - dots on block-dequantized data (match.BlockDequantize, read across fusion and call boundaries and
//     layout bitcasts): in a cuDNN fusion, made; in the body of an mx.block_scaled_dot composite, what the
//     rewriter will do; in the call the rewriter expands __op$block_scaled_dot into, or anywhere else, not
//     made: XLA dequantized the blocks and ran a dot.

// isBlockScaled reports whether in is a block-scaled GEMM call or instruction.
func isBlockScaled(in *hlo.Instruction) bool {
	return in.Opcode == hlo.OpScaledDot || in.Opcode == hlo.OpCustomCall && xlarules.BlockScaledCallTarget(in.CustomCallTarget())
}

// resolve steps over what carries a value across computations and layouts in a compiled module: a
// fusion (to its root), a parameter of a fused or called computation (to the caller's operand), a
// get-tuple-element of a fusion's root tuple, a bitcast or copy that keeps the shape.
func (t *tracer) resolve(x *hlo.Instruction) *hlo.Instruction {
	for range traceDepth {
		var next *hlo.Instruction
		switch x.Opcode {
		case hlo.OpFusion, hlo.OpCall:
			c := x.CalledComputation("calls")
			if x.Opcode == hlo.OpCall {
				c = x.CalledComputation("to_apply")
			}
			if c != nil && c.Root != nil && !c.Root.Shape.IsTuple() {
				next = c.Root
			}
		case hlo.OpParameter:
			if cs := t.callers[x.Parent]; len(cs) > 0 && int(x.ParameterNumber) < cs[0].NumOperands() {
				next = cs[0].Operand(int(x.ParameterNumber))
			}
		case hlo.OpGetTupleElement:
			idx, _ := x.Int("index")
			src := x.Operand(0)
			if src.Opcode == hlo.OpFusion || src.Opcode == hlo.OpCall {
				if c := src.Called(); len(c) > 0 && c[0].Root != nil && c[0].Root.Opcode == hlo.OpTuple && int(idx) < c[0].Root.NumOperands() {
					next = c[0].Root.Operand(int(idx))
				}
			} else if src.Opcode == hlo.OpTuple && int(idx) < src.NumOperands() {
				next = src.Operand(int(idx))
			}
		case hlo.OpBitcast, hlo.OpCopy:
			if y := x.Operand(0); slices.Equal(y.Shape.Dims, x.Shape.Dims) && y.Shape.Elem == x.Shape.Elem {
				next = y
			}
		}
		if next == nil {
			return x
		}
		x = next
	}
	return x
}

// blockDequantizeOf reads a dot operand of a compiled module as a block dequantize: across boundaries and
// the bitcasts and reshapes of a split-K rewrite to the multiply, then the pattern.
func (t *tracer) blockDequantizeOf(x *hlo.Instruction) *match.BlockDequantize {
	for range traceDepth {
		x = t.resolve(x)
		if x.Opcode != hlo.OpBitcast && x.Opcode != hlo.OpReshape && x.Opcode != hlo.OpCopy {
			break
		}
		x = x.Operand(0)
	}
	d, _ := match.FindBlockDequantize(x, t.resolve)
	return d
}

// blockDotPlace says where a dot of block dequantizes is, as xlarules.DecideBlockDequantizedDot takes it,
// and the instruction that holds it (the fusion or call, or the dot).
func (t *tracer) blockDotPlace(dot *hlo.Instruction) (string, *hlo.Instruction) {
	c := dot.Parent
	var holder *hlo.Instruction
	for range traceDepth {
		cs := t.callers[c]
		if len(cs) == 0 {
			break
		}
		caller := cs[0]
		if holder == nil {
			holder = caller
		}
		switch caller.Opcode {
		case hlo.OpFusion:
			if bc := caller.BackendConfig(); bc != nil && strings.Contains(bc.Text, "__cudnn$fusion") {
				return "cudnn-fusion", caller
			}
		case hlo.OpCall:
			for _, kv := range callerAttrs(caller) {
				if kv.Key == "composite.name" && strings.Contains(kv.Value, "mx.block_scaled_dot") {
					return "composite", caller
				}
			}
			// XLA's block scaling rewriter names the parameters of the computation it expands
			// __op$block_scaled_dot into lhs, rhs, lhs_scale and rhs_scale.
			if len(c.Params) >= 3 && strings.HasPrefix(c.Params[0].Name, "lhs") && strings.HasPrefix(c.Params[1].Name, "rhs") &&
				strings.HasPrefix(c.Params[2].Name, "lhs_scale") {
				return "expanded", caller
			}
		}
		c = caller.Parent
	}
	switch {
	case holder == nil:
		return "", dot
	case holder.Opcode == hlo.OpFusion:
		return "fusion", holder
	}
	return "", holder
}

func callerAttrs(in *hlo.Instruction) hlo.FrontendAttributes {
	fa, _ := in.Attr("frontend_attributes").(hlo.FrontendAttributes)
	return fa
}

// blockDot reports a dot whose operands are block dequantizes, or returns nil when neither is.
func (t *tracer) blockDot(dot *hlo.Instruction) *GEMM {
	if dot.NumOperands() != 2 {
		return nil
	}
	lhs, rhs := t.blockDequantizeOf(dot.Operand(0)), t.blockDequantizeOf(dot.Operand(1))
	if lhs == nil && rhs == nil {
		return nil
	}
	where, holder := t.blockDotPlace(dot)
	v := xlarules.DecideBlockDequantizedDot(dot, lhs, rhs, where)
	f := t.blockGEMM(holder, dot, v)
	for i, d := range []*match.BlockDequantize{lhs, rhs} {
		if d == nil { // one side block-scaled: the other is read as it is, as scaled-dot's operand with unit scales
			op := t.operand(dot.Operand(i), "")
			if i == 0 {
				f.A = op
			} else {
				f.B = op
			}
			f.src[i] = t.sourceOf(dot.Operand(i))
			continue
		}
		via := fmt.Sprintf("%s, times %s %s scales per block of %s, dequantized in %s (multiply %%%s)", shapeOf(d.Data)+" %"+d.Data.Name,
			shapeOf(d.Scale), describeValue(t.origin(d.Scale)), d.BlockText(), d.Type, d.Multiply.Name)
		op := t.operand(d.Data, via)
		if i == 0 {
			f.A = op
		} else {
			f.B = op
		}
		f.src[i] = t.sourceOf(d.Data)
	}
	lc := dot.Ints("lhs_contracting_dims")
	f.Key, f.local = key(f.A, f.B, blockK(dot, lc, lhs))
	if where == "" && dot.Parent == dot.Parent.Module.Entry || where == "" && holder == dot {
		f.Octet = fuse.AnalyzeBlock(dot)
	} else {
		f.Octet = fuse.Verdict{Why: "octet fuse rewrites dots outside fusions and calls"}
	}
	return f
}

// blockK is the contracting size of a block-scaled GEMM: the dot's, or, after a split-K rewrite that made
// the blocks a batch dimension, the size of the data's blocked dimension.
func blockK(dot *hlo.Instruction, lc []int64, lhs *match.BlockDequantize) int64 {
	if lhs != nil {
		if dims := lhs.BlockedDims(); len(dims) == 1 {
			return lhs.Data.Shape.Dims[dims[0]]
		}
	}
	return contractingSize(dot.Operand(0), lc)
}

// sourceOf follows a value up to where it comes from, across fusions and calls (for the dataflow
// fingerprint: a parameter of the entry when there is one).
func (t *tracer) sourceOf(x *hlo.Instruction) *hlo.Instruction {
	for range traceDepth {
		y := t.resolve(x)
		switch y.Opcode {
		case hlo.OpTranspose, hlo.OpBitcast, hlo.OpCopy, hlo.OpReshape, hlo.OpPad, hlo.OpSlice:
			if y.Operand(0).Shape.Elem == y.Shape.Elem {
				y = y.Operand(0)
			}
		}
		if y == x {
			return x
		}
		x = y
	}
	return x
}

// blockScaledGEMM reports a block-scaled call or a scaled-dot.
func (t *tracer) blockScaledGEMM(in *hlo.Instruction) *GEMM {
	if in.NumOperands() < 2 {
		return nil
	}
	holder := in
	var v xlarules.BlockScaled
	if f := t.fusionOf(in.Parent); f != nil {
		holder = f
		v = xlarules.BlockScaled{Form: in.Opcode.String(), Seen: true, Source: "the compiled module"}
		bc := ""
		if b := f.BackendConfig(); b != nil {
			bc = b.Text
		}
		switch {
		case strings.Contains(bc, "__cudnn$fusion"):
			v.Form, v.Made, v.Call = "cuDNN fusion", true, "cuDNN's block-scaled GEMM"
			v.Why = "the module holds a cuDNN fusion of the " + in.Opcode.String()
		case strings.Contains(strings.ToLower(bc), "triton"):
			v.Form, v.Made, v.Call = "Triton fusion", true, "a Triton fusion (tt.dot_scaled)"
			v.Why = "the module holds a Triton GEMM fusion of the " + in.Opcode.String() + " (tt.dot_scaled: block-scaled MMA on Blackwell; " +
				"on Hopper Triton decodes the blocks in the kernel)"
		default:
			v.Why = fmt.Sprintf("the %s is inside the %s fusion %%%s, which is not a GEMM fusion", in.Opcode, f.Str("kind"), f.Name)
			v.Rule = xlarules.RulePattern
		}
		if in.NumOperands() == 4 {
			v.Format = xlarules.DecideBlockScaledCall(in).Format
		}
	} else {
		v = xlarules.DecideBlockScaledCall(in)
	}
	f := t.blockGEMM(holder, in, v)
	f.A, f.B = t.operand(in.Operand(0), ""), t.operand(in.Operand(1), "")
	f.src = [2]*hlo.Instruction{t.sourceOf(in.Operand(0)), t.sourceOf(in.Operand(1))}
	k := int64(0)
	switch {
	case in.Opcode == hlo.OpScaledDot:
		k = contractingSize(in.Operand(0), in.Ints("lhs_contracting_dims"))
	case in.Operand(0).Shape.Rank() > 0:
		k = in.Operand(0).Shape.Dims[in.Operand(0).Shape.Rank()-1]
	}
	f.Key, f.local = key(f.A, f.B, k)
	switch {
	case in.Opcode == hlo.OpScaledDot:
		f.Octet = fuse.Verdict{Fusible: holder == in, Why: "already a scaled-dot"}
		if holder != in {
			f.Octet.Why = "a scaled-dot inside a fusion"
		}
	default:
		f.Octet = fuse.Verdict{Why: "octet fuse rewrites dots; " + in.CustomCallTarget() + " is a call already"}
	}
	return f
}

// blockGEMM makes the GEMM of a block-scaled instruction gemm held by holder, with XLA's verdict v.
func (t *tracer) blockGEMM(holder, gemm *hlo.Instruction, v xlarules.BlockScaled) *GEMM {
	f := newGEMM(holder, gemm, "block-scaled")
	f.inst, f.meta = holder, gemm
	f.Block = &v
	f.Fused = v.Seen && v.Made
	if f.Fused {
		f.Target = v.Call
	}
	what := gemm.Opcode.String()
	if gemm.Opcode == hlo.OpCustomCall {
		what = gemm.CustomCallTarget()
	}
	format := v.Format
	if format == "" {
		format = "block-scaled"
	}
	f.Reason = fmt.Sprintf("a block-scaled %s GEMM (%s): %s", format, what, v.Why)
	f.Explain = append(f.Explain, f.Reason)
	why := v.Why
	if v.Rule != "" {
		why = v.Rule + ": " + why
	}
	f.XLA = xlarules.Verdict{Fusible: v.Made, Why: why}
	return f
}

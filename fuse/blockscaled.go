package fuse

import (
	"fmt"
	"slices"

	"octet/blockscale"
	"octet/dtype"
	"octet/fuse/match"
	"octet/fuse/xlarules"
	"octet/hlo"
)

// The block-scaled rewrite: a dot whose operands are block dequantizes (match.BlockDequantize: a narrow
// value times scales repeated over blocks, the MX and NVFP4 form) becomes XLA's scaled-dot, or the cuDNN
// call XLA's block scaling rewriter makes of one on Blackwell (__cudnn$blockScaledDot, scales padded and
// swizzled). A side that is not dequantized is kept, with a scale of ones of its own type.
//
// The rewrite keeps the numbers where XLA's scaled-dot does: it dequantizes narrow operands in bf16, so a
// dequantize in bf16 is the same and one in f32 differs only where a product underflows bf16 (below
// 2^-133); a dequantize in f16 (which overflows past 65504) or in another type is refused. The cuDNN form
// decodes exactly and sums in f32, as the library does.

// BlockTarget says what the block-scaled rewrite makes.
type BlockTarget int

const (
	// BlockScaledDot makes XLA's scaled-dot instruction.
	BlockScaledDot BlockTarget = iota
	// BlockCudnn makes cuDNN's __cudnn$blockScaledDot call as XLA's block scaling rewriter builds it:
	// operands [batch,] rows, k with the scales padded to 128 x 4 and swizzled, the result sliced back.
	BlockCudnn
)

// ParseBlockTarget reads "scaled-dot" or "cudnn".
func ParseBlockTarget(s string) (BlockTarget, error) {
	switch s {
	case "scaled-dot", "":
		return BlockScaledDot, nil
	case "cudnn":
		return BlockCudnn, nil
	}
	return 0, fmt.Errorf("unknown block-scaled target %q (want scaled-dot or cudnn)", s)
}

// blockPlan is a dot of block dequantizes and what the rewrite makes of it.
type blockPlan struct {
	dot   *hlo.Instruction
	sides [2]*match.BlockDequantize // nil: the operand is kept, with unit scales
	notes []string
}

// analyzeBlock reads a dot as a block-scaled GEMM. It returns nil, nil when neither operand is a block
// dequantize (the FP8 rewrite then looks at it).
func analyzeBlock(dot *hlo.Instruction, target BlockTarget) (*blockPlan, *refusal) {
	if dot.NumOperands() != 2 {
		return nil, nil
	}
	p := &blockPlan{dot: dot}
	found := false
	for i := range 2 {
		if d, _ := match.FindBlockDequantize(dot.Operand(i), nil); d != nil {
			p.sides[i], found = d, true
		}
	}
	if !found {
		return nil, nil
	}
	out := dot.Shape.Elem
	if !dot.Shape.IsArray() || !out.IsFloat() || out.BitWidth() > 32 {
		return p, refuse(dot, "the dot gives %s: a scaled-dot gives a float of 32 bits or fewer", dot.Shape.String())
	}
	if dot.Attr("sparsity") != nil {
		return p, refuse(dot, "a sparse dot has no scaled form")
	}
	for i, d := range p.sides {
		name := []string{"lhs", "rhs"}[i]
		if d == nil {
			x := dot.Operand(i)
			if !x.Shape.Elem.IsFloat() || x.Shape.Elem.IsComplex() {
				return p, refuse(x, "the %s is %s, not a float: it cannot take a scale", name, x.Shape.String())
			}
			p.notes = append(p.notes, fmt.Sprintf("%s: %s %%%s kept, with a scale of ones", name, x.Shape.String(), x.Name))
			continue
		}
		if d.Type != dtype.BF16 && d.Type != dtype.F32 {
			return p, refuse(d.Multiply, "the %s is dequantized in %s: a scaled-dot dequantizes narrow types in bf16, which does not round "+
				"(or overflow past 65504) where %s does, so the values would change", name, d.Type, d.Type)
		}
		if !d.Scale.Shape.Elem.IsFloat() || d.Scale.Shape.Elem.IsComplex() {
			return p, refuse(d.Scale, "the %s's scales are %s, not a float", name, d.Scale.Shape.Elem)
		}
		// scaled-dot rounds element x scale to the type ScaledDotRewriter picks for the pair, the original to
		// d.Type: the same values when the product is exact in both.
		u := upscale(d.Data.Shape.Elem, d.Scale.Shape.Elem)
		if bits := significand(d.Data.Shape.Elem) + significand(d.Scale.Shape.Elem); bits > min(significand(u), significand(d.Type)) {
			return p, refuse(d.Scale, "the %s's elements (%s) times its scales (%s) need %d significant bits: a scaled-dot rounds them to %s, "+
				"the original to %s, so the values would change", name, d.Data.Shape.Elem, d.Scale.Shape.Elem, bits, u, d.Type)
		}
		p.notes = append(p.notes, fmt.Sprintf("%s: %s %%%s times %s scales %%%s per block of %s, dequantized in %s by %%%s [%s]", name,
			d.Data.Shape.String(), d.Data.Name, d.Scale.Shape.Elem, d.Scale.Name, d.BlockText(), d.Type, d.Multiply.Name, blockPattern))
	}
	if target == BlockCudnn {
		if r := p.cudnnLegal(); r != nil {
			return p, r
		}
	} else {
		for i, d := range p.sides {
			if d != nil && slices.Contains(d.ScaleShape, 0) {
				// The scales of an empty side are empty too, and a scale dimension of size 0 divides no
				// dimension of its operand: the scaled-dot would not verify.
				return p, refuse(d.Scale, "the %s's scales %s have a dimension of size 0 (the GEMM has no elements there): a scaled-dot "+
					"takes no scale with a dimension of size 0", []string{"lhs", "rhs"}[i], hlo.Array(d.Scale.Shape.Elem, d.ScaleShape...).String())
			}
		}
	}
	return p, nil
}

// upscale is the type XLA's ScaledDotRewriter converts an operand and its scale to (GetTargetType): bf16
// when both are narrower than 16 bits, their type when equal, f32 for two types of one width, else the
// wider.
func upscale(a, b dtype.Type) dtype.Type {
	switch {
	case a.BitWidth() < 16 && b.BitWidth() < 16:
		return dtype.BF16
	case a == b:
		return a
	case a.BitWidth() == b.BitWidth():
		return dtype.F32
	case a.BitWidth() > b.BitWidth():
		return a
	}
	return b
}

// significand is the number of significant bits of a float type (1 for the exponent-only f8e8m0fnu).
func significand(t dtype.Type) int {
	f, ok := t.Format()
	if !ok {
		return 64
	}
	return f.MantissaBits + 1
}

// blockPattern is how a block dequantize reads.
const blockPattern = "multiply(convert(x), reshape(broadcast(convert(scale))))"

// dims returns the dot's dimension numbers.
func (p *blockPlan) dims() (lb, rb, lc, rc []int64) {
	d := p.dot
	return d.Ints("lhs_batch_dims"), d.Ints("rhs_batch_dims"), d.Ints("lhs_contracting_dims"), d.Ints("rhs_contracting_dims")
}

// cudnnLegal checks what cuDNN's call takes: both operands MXFP8 or both NVFP4 (not f8e5m2 x f8e5m2),
// blocked along their one contracting dimension only, at most one batch dimension and one free
// dimension each.
func (p *blockPlan) cudnnLegal() *refusal {
	lb, _, lc, rc := p.dims()
	if len(lc) != 1 || len(lb) > 1 {
		return refuse(p.dot, "cuDNN's block-scaled GEMM takes one contracting and at most one batch dimension")
	}
	contract := [2]int64{lc[0], rc[0]}
	var formats [2]blockscale.Format
	for i, d := range p.sides {
		x := p.dot.Operand(i)
		if d == nil {
			return refuse(x, "cuDNN's block-scaled GEMM needs both operands block-scaled")
		}
		if x.Shape.Rank() != len(lb)+2 {
			return refuse(x, "cuDNN's block-scaled GEMM takes operands of [batch,] rows, k")
		}
		for dim, b := range d.Block {
			if b > 1 && int64(dim) != contract[i] {
				return refuse(d.Scale, "the %s is blocked along dimension %d, not its contracting dimension", []string{"lhs", "rhs"}[i], dim)
			}
		}
		f, ok := cudnnFormatOf(d.Data.Shape.Elem, d.Scale.Shape.Elem, d.BlockOf(contract[i]))
		if !ok {
			return refuse(d.Scale, "%s elements with %s scales per %d are not MXFP8 or NVFP4, the formats cuDNN's block-scaled GEMM takes",
				d.Data.Shape.Elem, d.Scale.Shape.Elem, d.BlockOf(contract[i]))
		}
		formats[i] = f
	}
	if formats[0].IsMX() != formats[1].IsMX() {
		return refuse(p.dot, "%s x %s: cuDNN multiplies MXFP8 by MXFP8 or NVFP4 by NVFP4", formats[0].Name, formats[1].Name)
	}
	if formats[0].Elem == dtype.F8E5M2 && formats[1].Elem == dtype.F8E5M2 {
		return refuse(p.dot, "f8e5m2 x f8e5m2 is the one MXFP8 pair cuDNN's block-scaled GEMM does not take")
	}
	return nil
}

func cudnnFormatOf(elem, scale dtype.Type, block int64) (blockscale.Format, bool) {
	for _, f := range []blockscale.Format{blockscale.MXFP8E4M3, blockscale.MXFP8E5M2, blockscale.NVFP4} {
		if f.Elem == elem && f.Scale == scale && int64(f.BlockSize) == block {
			return f, true
		}
	}
	return blockscale.Format{}, false
}

// operands returns the data and the scales of each side: the narrow values and their scales, or a kept
// operand with a constant scale of ones of rank equal to its own (each scale dimension 1, dividing the
// operand's).
func (p *blockPlan) operands() (data, scales [2]*hlo.Instruction) {
	c := p.dot.Parent
	for i, d := range p.sides {
		if d != nil {
			data[i], scales[i] = d.Data, d.Scale
			if !slices.Equal(d.Scale.Shape.Dims, d.ScaleShape) {
				// The scales without the dimensions of size 1 a compiled form may have dropped or added.
				scales[i] = c.Reshape(d.Scale, hlo.Array(d.Scale.Shape.Elem, d.ScaleShape...))
			}
			continue
		}
		x := p.dot.Operand(i)
		ones := make([]int64, x.Shape.Rank())
		for j := range ones {
			ones[j] = 1
		}
		one := c.ScalarConstant(x.Shape.Elem, 1)
		data[i], scales[i] = x, c.Broadcast(one, hlo.Array(x.Shape.Elem, ones...), nil)
	}
	return data, scales
}

// build replaces the dot by the target's form and returns the instruction that computes the block-scaled
// GEMM (the scaled-dot, or the cuDNN call).
// build makes the rewrite and returns the call (the scaled-dot, or cuDNN's call) and the instruction that
// now holds the dot's value (the call, or the slice of its D).
func (p *blockPlan) build(target BlockTarget) (call, result *hlo.Instruction) {
	if target == BlockCudnn {
		return p.buildCudnn()
	}
	c := p.dot.Parent
	data, scales := p.operands()
	sd := c.Add("scaled-dot", hlo.OpScaledDot, p.dot.Shape.Clone(), data[0], data[1], scales[0], scales[1])
	for _, a := range p.dot.Attrs {
		switch a.Name {
		case "lhs_batch_dims", "lhs_contracting_dims", "rhs_batch_dims", "rhs_contracting_dims", "operand_precision",
			"algorithm", "metadata", "frontend_attributes":
			sd.Attrs = append(sd.Attrs, a)
		}
	}
	p.dot.MoveControlDependencies(sd)
	p.dot.ReplaceAllUsesWith(sd)
	return sd, sd
}

// buildCudnn makes the cuDNN call as XLA's BlockScalingRewriter builds it (BuildCudnnScaledDot): each
// operand transposed to [batch,] rows, k (when it is not), its rows padded with zeros to a multiple of 128,
// its scales to 128 x 4 with zero codes and swizzled by reshape, transpose and reshape; the tuple result's
// D sliced back to the dot's rows and columns.
func (p *blockPlan) buildCudnn() (call, result *hlo.Instruction) {
	c := p.dot.Parent
	lb, rb, lc, rc := p.dims()
	batch := [2][]int64{lb, rb}
	contract := [2]int64{lc[0], rc[0]}
	var ops [4]*hlo.Instruction
	var rows [2]int64
	data, scales := p.operands()
	for i := range p.sides {
		x, s := data[i], scales[i]
		rank := x.Shape.Rank()
		// The order [batch,] rows, k.
		free := hlo.FreeDims(rank, batch[i], []int64{contract[i]})
		perm := slices.Concat(batch[i], free, []int64{contract[i]})
		if !isIdentity(perm) {
			x, s = c.Transpose(x, perm), c.Transpose(s, perm)
		}
		rows[i] = x.Shape.Dims[rank-2]
		pr, pc := blockscale.SwizzlePadded(s.Shape.Dims[rank-2], s.Shape.Dims[rank-1])
		if pr != rows[i] {
			x = padHigh(c, x, rank-2, pr-rows[i])
		}
		if pr != s.Shape.Dims[rank-2] || pc != s.Shape.Dims[rank-1] {
			s = padHigh(c, padHigh(c, s, rank-2, pr-s.Shape.Dims[rank-2]), rank-1, pc-s.Shape.Dims[rank-1])
		}
		// The swizzle: [B,] R/128, 4, 32, C/4, 4 -> transpose -> [B,] R, C.
		var b []int64
		if rank == 3 {
			b = []int64{s.Shape.Dims[0]}
		}
		split := slices.Concat(b, []int64{pr / 128, 4, 32, pc / 4, 4})
		tperm := []int64{0, 3, 2, 1, 4}
		if rank == 3 {
			tperm = []int64{0, 1, 4, 3, 2, 5}
		}
		s = c.Reshape(s, hlo.Array(s.Shape.Elem, split...))
		s = c.Transpose(s, tperm)
		s = c.Reshape(s, hlo.Array(s.Shape.Elem, slices.Concat(b, []int64{pr, pc})...))
		ops[i], ops[2+i] = x, s
	}
	out := p.dot.Shape.Elem
	var dDims []int64
	if len(lb) == 1 {
		dDims = append(dDims, ops[0].Shape.Dims[0])
	}
	dDims = append(dDims, ops[0].Shape.Dims[len(dDims)], ops[1].Shape.Dims[len(dDims)])
	call = c.CustomCall(xlarules.CudnnBlockScaledDotTarget, hlo.Tuple(hlo.Array(out, dDims...), hlo.Array(dtype.U8, 0)), ops[:], "")
	if md := p.dot.Attr("metadata"); md != nil {
		call.Attrs = append(call.Attrs, hlo.Attr{Name: "metadata", Value: md})
	}
	d := c.GetTupleElement(call, 0)
	n := len(dDims)
	if dDims[n-2] != rows[0] || dDims[n-1] != rows[1] {
		starts := make([]int64, n)
		limits := slices.Clone(dDims)
		limits[n-2], limits[n-1] = rows[0], rows[1]
		strides := make([]int64, n)
		for i := range strides {
			strides[i] = 1
		}
		d = c.Slice(d, starts, limits, strides)
	}
	// The dot's result is batch, lhs free, rhs free: the canonical order when each side has one free
	// dimension; reshape for the shape the dot wrote.
	if !slices.Equal(d.Shape.Dims, p.dot.Shape.Dims) {
		d = c.Reshape(d, p.dot.Shape.Clone())
	}
	p.dot.MoveControlDependencies(call)
	p.dot.ReplaceAllUsesWith(d)
	return call, d
}

func isIdentity(perm []int64) bool {
	for i, p := range perm {
		if p != int64(i) {
			return false
		}
	}
	return true
}

// padHigh pads dimension dim of x with n codes 0 at the end (nothing when n is 0): zeros, or for
// f8e8m0fnu, which has no zero, its smallest value 2^-127, as XLA's Zero() of the type gives.
func padHigh(c *hlo.Computation, x *hlo.Instruction, dim int, n int64) *hlo.Instruction {
	if n == 0 {
		return x
	}
	cfg := make(hlo.Padding, x.Shape.Rank())
	cfg[dim].High = n
	zero := c.ScalarConstant(x.Shape.Elem, 0)
	if x.Shape.Elem == dtype.F8E8M0FNU {
		// Code 0, made from its bits: the constant 2^-127 prints as 5.9e-39, which reads back as 2^-126.
		zero = c.Add("bitcast-convert", hlo.OpBitcastConvert, hlo.Scalar(dtype.F8E8M0FNU), c.ScalarConstant(dtype.U8, 0))
	}
	return c.Pad(x, zero, cfg)
}

// decision turns a block plan and its refusal into a Decision, with XLA's verdict where xla is set.
func (p *blockPlan) decision(why *refusal, target BlockTarget, xla bool) *Decision {
	d := p.dot
	g := &Decision{Dot: d.Name, Computation: d.Parent.Name, Epilogue: "DEFAULT", DType: d.Shape.Elem.String(),
		DotType: d.Shape.Elem.String(), Alpha: 1, Source: Provenance(d)}
	for i, s := range p.sides {
		if s == nil {
			continue
		}
		if i == 0 {
			g.AType = s.Data.Shape.Elem.String()
		} else {
			g.BType = s.Data.Shape.Elem.String()
		}
		g.DotType = s.Type.String()
	}
	if lc := d.Ints("lhs_contracting_dims"); len(lc) > 0 {
		g.K = 1
		for _, c := range lc {
			if int(c) < d.Operand(0).Shape.Rank() {
				g.K *= d.Operand(0).Shape.Dims[c]
			}
		}
	}
	if g.Source != "" {
		g.Explain = append(g.Explain, "from "+g.Source)
	}
	g.Matched = append(g.Matched, p.notes...)
	g.Explain = append(g.Explain, p.notes...)
	lhs, rhs := p.sides[0], p.sides[1]
	if xla {
		xv := xlarules.DecideBlockDequantizedDot(d, lhs, rhs, "")
		g.XLA = xlarules.Verdict{Fusible: xv.Made, Why: xv.Why}
	}
	if why != nil {
		g.Reason = why.msg
		for _, in := range why.at {
			g.At = append(g.At, in.Name)
		}
		g.Explain = append(g.Explain, "not fused: "+why.msg)
		g.Octet = Verdict{Why: why.msg}
		return g
	}
	g.Fused = true
	g.Target = "scaled-dot"
	if target == BlockCudnn {
		g.Target = xlarules.CudnnBlockScaledDotTarget
	}
	what := map[BlockTarget]string{BlockScaledDot: "one scaled-dot (XLA's block-scaled GEMM instruction)",
		BlockCudnn: "cuDNN's " + xlarules.CudnnBlockScaledDotTarget + " call, its scales padded to 128 x 4 and swizzled as XLA's rewriter does"}[target]
	g.Explain = append(g.Explain, "block-scaled: "+what)
	g.Octet = Verdict{Fusible: true, Why: "octet fuse makes it " + what}
	return g
}

// AnalyzeBlock says whether octet fuse makes a dot one block-scaled GEMM (a scaled-dot), and why not,
// without changing anything: for the report on compiled modules.
func AnalyzeBlock(dot *hlo.Instruction) Verdict {
	p, why := analyzeBlock(dot, BlockScaledDot)
	switch {
	case p == nil:
		return Verdict{Why: "neither operand is a block dequantize"}
	case why != nil:
		return Verdict{Why: why.msg}
	}
	return Verdict{Fusible: true, Why: "octet fuse makes it one scaled-dot (XLA's block-scaled GEMM instruction)"}
}

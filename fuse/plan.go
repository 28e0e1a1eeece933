package fuse

import (
	"fmt"
	"slices"
	"strings"

	"octet/cublas"
	"octet/dtype"
	"octet/hlo"
)

// plan is everything the rewrite of one dot needs: what its operand chains and the ops after it matched,
// checked for legality, and the canonical form of the GEMM. It is made without changing the IR; build
// makes the replacement from it.
type plan struct {
	// pos are the places of the computation's instructions when its rewrites began (fromDot).
	pos  hlo.Positions
	dot  *hlo.Instruction
	a, b *operand
	// The dot's dimension numbers, and the free (non-contracting, non-batch) dimensions of each side in
	// increasing order.
	lhsBatch, rhsBatch, lhsContract, rhsContract, lhsFree, rhsFree []int64
	// batch are the sizes of the batch dimensions; m, n and k the products of the lhs free, rhs free and
	// contracting dimensions (1 when there are none). The canonical GEMM is
	// D[batch..., m, n] = A[batch..., m, k] x B[batch..., n, k]^T.
	batch   []int64
	m, n, k int64
	epi     *epilogue
	// notes explain the decision, one line each.
	notes []string
	// result and amaxResult are, once built, the instructions that carry the call's D (sliced and reshaped
	// back) and its abs-max (converted back) where the replaced values were.
	result, amaxResult *hlo.Instruction
}

// canonical returns the dimensions of the canonical (unpadded) D: batch..., m, n.
func (p *plan) canonical() []int64 {
	return append(slices.Clone(p.batch), p.m, p.n)
}

// dimensions reads the dot's dimension numbers and checks them.
func (p *plan) dimensions() *refusal {
	d := p.dot
	p.lhsBatch, p.rhsBatch = d.Ints("lhs_batch_dims"), d.Ints("rhs_batch_dims")
	p.lhsContract, p.rhsContract = d.Ints("lhs_contracting_dims"), d.Ints("rhs_contracting_dims")
	lhs, rhs := d.Operand(0).Shape, d.Operand(1).Shape
	if len(p.lhsBatch) != len(p.rhsBatch) || len(p.lhsContract) != len(p.rhsContract) {
		return refuse(d, "the dot's dimension numbers do not pair up")
	}
	p.lhsFree = hlo.FreeDims(lhs.Rank(), p.lhsBatch, p.lhsContract)
	p.rhsFree = hlo.FreeDims(rhs.Rank(), p.rhsBatch, p.rhsContract)
	p.m, p.n, p.k = product(lhs.Dims, p.lhsFree), product(rhs.Dims, p.rhsFree), product(lhs.Dims, p.lhsContract)
	p.batch = nil
	count := int64(1)
	for _, b := range p.lhsBatch {
		p.batch = append(p.batch, lhs.Dims[b])
		count *= lhs.Dims[b]
	}
	// cuBLASLt takes at most 65535 batches (XLA's GemmIsSupportedByCublasLt).
	if len(p.batch) > 0 && count > 65535 {
		return refuse(d, "the dot has %d batches: cuBLASLt takes at most 65535", count)
	}
	for _, s := range []hlo.Shape{lhs, rhs, d.Shape} {
		for i := range s.Dims {
			if s.IsDynamic(i) {
				return refuse(d, "the dot has dynamic dimensions")
			}
		}
	}
	return nil
}

func product(dims []int64, which []int64) int64 {
	n := int64(1)
	for _, i := range which {
		n *= dims[i]
	}
	return n
}

// types checks the element types against what cuBLASLt's FP8 GEMM takes on Hopper.
func (p *plan) types() *refusal {
	at, bt := p.a.fp8.Shape.Elem, p.b.fp8.Shape.Elem
	for _, op := range []*operand{p.a, p.b} {
		t := op.fp8.Shape.Elem
		switch t {
		case dtype.F8E4M3FN, dtype.F8E5M2:
		case dtype.F8E4M3FNUZ, dtype.F8E5M2FNUZ, dtype.F8E4M3B11FNUZ:
			return refuse(op.fp8, "operand %d is %s: the fnuz FP8 types are not supported by cuBLASLt on CUDA (they are ROCm's)", op.index, t)
		default:
			return refuse(op.fp8, "operand %d is %s: cuBLASLt's FP8 GEMM takes f8e4m3fn and f8e5m2 only", op.index, t)
		}
	}
	if at == dtype.F8E5M2 && bt == dtype.F8E5M2 {
		return refuse(p.dot, "operands are f8e5m2 x f8e5m2: cuBLASLt needs one f8e4m3fn operand")
	}
	switch out := p.dot.Shape.Elem; out {
	case dtype.F32, dtype.BF16, dtype.F16, dtype.F8E4M3FN:
	case dtype.F8E5M2:
		if at == dtype.F8E4M3FN && bt == dtype.F8E4M3FN {
			return refuse(p.dot, "the dot of f8e4m3fn x f8e4m3fn gives f8e5m2: cuBLASLt writes f8e5m2 only when one operand is f8e5m2")
		}
	default:
		return refuse(p.dot, "the dot's result is %s: the FP8 GEMM writes f32, bf16, f16, f8e4m3fn or f8e5m2", out)
	}
	return nil
}

// precision returns the dot's operand_precision as cuBLAS's config spells it (DEFAULT, HIGH, HIGHEST).
func precision(dot *hlo.Instruction) []string {
	out := []string{"DEFAULT", "DEFAULT"}
	precs, _ := dot.Attr("operand_precision").(hlo.Enums)
	for i, p := range precs {
		if i < 2 {
			out[i] = strings.ToUpper(p)
		}
	}
	return out
}

func roundUp16(n int64) int64 { return (n + 15) / 16 * 16 }

// analyze matches and checks one dot. It returns nil, nil when the dot has no FP8 value among its operand
// chains (it is not an FP8 GEMM); a plan when the dot can be rewritten; a refusal otherwise (with the plan
// so far, for the explanation).
func analyze(dot *hlo.Instruction, claimed map[*hlo.Instruction]*hlo.Instruction, pos hlo.Positions) (*plan, *refusal) {
	p := &plan{dot: dot, pos: pos}
	a, ra := matchOperand(dot, 0)
	b, rb := matchOperand(dot, 1)
	if a == nil && ra == nil && b == nil && rb == nil {
		return nil, nil
	}
	p.a, p.b = a, b
	for _, op := range []*operand{a, b} {
		if op != nil {
			p.notes = append(p.notes, fmt.Sprintf("operand %d (%s): %s [%s]", op.index, sideName(op.index), op.describe(), op.pattern()))
		}
	}
	if ra != nil {
		return p, ra
	}
	if rb != nil {
		return p, rb
	}
	for i, op := range []*operand{a, b} {
		if op == nil {
			x := dot.Operand(i)
			return p, refuse(x, "operand %d (%%%s, %s) has no FP8 value behind it: both operands of an FP8 GEMM must be FP8",
				i, x.Name, x.Shape.Elem)
		}
		if r := op.check(); r != nil {
			return p, r
		}
	}
	if r := p.types(); r != nil {
		return p, r
	}
	if r := p.dimensions(); r != nil {
		return p, r
	}
	p.matchEpilogue(claimed)
	if r := p.tableTypes(); r != nil {
		return p, r
	}
	return p, nil
}

// tableTypes checks the call the plan makes against cuBLASLt's FP8 type table: the specific checks of the
// matching keep every call inside it, and this says so if one did not.
func (p *plan) tableTypes() *refusal {
	e := p.epi
	c, bias := dtype.Invalid, dtype.Invalid
	if e.c != nil {
		c = e.c.Shape.Elem
	}
	if e.bias != nil {
		bias = e.bias.Shape.Elem
	}
	if err := cublas.CheckFP8Types(p.a.fp8.Shape.Elem, p.b.fp8.Shape.Elem, c, e.dType, bias); err != nil {
		return refuse(p.dot, "the call would be %v", err)
	}
	return nil
}

func sideName(i int) string {
	if i == 0 {
		return "A"
	}
	return "B"
}

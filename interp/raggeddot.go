package interp

import (
	"slices"

	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

func init() {
	registerArray((*evaluator).raggedDot, hlo.OpRaggedDot)
}

// raggedDot evaluates ragged-dot(lhs, rhs, group_sizes) by the definition XLA's RaggedDotRewriter
// (ragged_dot_rewriter.cc) writes out for each mode, with group g covering the positions
// [s_0+...+s_{g-1}, s_0+...+s_g) of lhs's ragged dimension:
//
//   - ragged dimension free in lhs (a mixture of experts' tokens): the rows of group g multiply the rhs of
//     group g (rhs at index g of its group dimension); rows in no group are zero;
//   - ragged dimension contracting: group g's result, at index g of the result's leading dimension, is the
//     dot over the contracting positions of group g only;
//   - ragged dimension a batch dimension: the dot itself (each batch element is its own product).
//
// Each group is one dot through the same path as a dot instruction (package gemm's kernels for float
// results), so every element is the chain of fused multiply-adds over the group's k in order, as
// docs/numerics.md states for a dot. Group sizes given per batch element (group_sizes of shape [batch...,
// G]) apply to their batch element's product. Group g's positions are those the dense form's masks keep,
// [s_0+...+s_{g-1}, s_0+...+s_g) within the dimension, whatever the sizes: a negative size empties its
// group and moves the later ones back, and rows then in several groups take the groups' products in
// one chain, group after group, as the dense form's dot does.
func (e *evaluator) raggedDot(in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error) {
	if len(ts) != 3 {
		return nil, errorf(in, "ragged-dot takes lhs, rhs and group_sizes, not %d operands", len(ts))
	}
	r, err := hlo.ReadRaggedDot(in)
	if err != nil {
		return nil, errorf(in, "%v", err)
	}
	lhs, rhs, gs := ts[0], ts[1], ts[2]
	d := dotDims{r.LHSBatch, r.RHSBatch, r.LHSContracting, r.RHSContracting}
	out, dims := in.Shape.Elem, in.Shape.Dims
	if r.Mode == hlo.RaggedBatch {
		return e.dotOf(in, lhs, rhs, d, out, dims)
	}
	sizes := i64s(gs)
	result := tensor.New(out, dims)
	sub := d // the dimension numbers of one group's dot
	sub.rhsBatch, sub.rhsContract = r.GroupDims()
	// Where the ragged positions are in the result (non-contracting: after the batch dimensions, among
	// lhs's free ones), and where the batch dimensions are (after the group dimension, contracting).
	first := 0
	if r.Mode == hlo.RaggedContracting {
		first = 1
	}
	at := int64(len(r.LHSBatch))
	for x := range r.LHSRagged {
		if !slices.Contains(r.LHSBatch, x) && !slices.Contains(r.LHSContracting, x) {
			at++
		}
	}
	rhsRagged := int64(-1)
	if r.Mode == hlo.RaggedContracting {
		rhsRagged = r.RHSContracting[slices.Index(r.LHSContracting, r.LHSRagged)]
	}
	lead := gs.Shape[:len(gs.Shape)-1] // the batch dimensions group_sizes has its own sizes for
	groups := r.Groups
	length := lhs.Shape[r.LHSRagged]
	for b := range product(lead) {
		idx := unravel(b, lead)
		lStart, lSize := fullRegion(lhs.Shape)
		rStart, rSize := fullRegion(rhs.Shape)
		oStart, oSize := fullRegion(dims)
		for j, x := range idx {
			lStart[r.LHSBatch[j]], lSize[r.LHSBatch[j]] = x, 1
			rStart[r.RHSBatch[j]], rSize[r.RHSBatch[j]] = x, 1
			oStart[first+j], oSize[first+j] = x, 1
		}
		// Group g covers [ends[g-1], ends[g]) of the ragged dimension (ends: the inclusive sums of the
		// sizes), within [0, length): the masks of XLA's dense form. A negative size makes its group
		// empty and moves the later ones back, so that groups may overlap.
		lo, hi := make([]int64, groups), make([]int64, groups)
		var sum int64
		for g := range groups {
			lo[g] = max(sum, 0)
			sum += sizes[b*groups+g]
			hi[g] = min(sum, length)
		}
		if r.Mode == hlo.RaggedContracting {
			// Group g's result is the dot over its positions alone.
			for g := range groups {
				n := hi[g] - lo[g]
				if n <= 0 {
					continue
				}
				lStart[r.LHSRagged], lSize[r.LHSRagged] = lo[g], n
				rStart[rhsRagged], rSize[rhsRagged] = lo[g], n
				oStart[0], oSize[0] = g, 1
				part, err := e.dotOf(in, regionOf(lhs, lStart, lSize), regionOf(rhs, rStart, rSize), sub, out, oSize[first:])
				if err != nil {
					return nil, err
				}
				copyRegion(result.Data, offset(oStart, dims), rowMajorStrides(dims), part.Data, 0,
					rowMajorStrides(oSize), oSize, out.ByteSize())
			}
			continue
		}
		// Rows: each run of rows in the same groups multiplies those groups' matrices, one after the
		// other in a single chain (the dense form contracts the group dimension first); rows in no group
		// are zero.
		cuts := append(slices.Clone(lo), hi...)
		slices.Sort(cuts)
		cuts = slices.Compact(cuts)
		for i := 0; i+1 < len(cuts); i++ {
			a, z := cuts[i], cuts[i+1]
			var member []int64 // the groups of rows [a, z)
			for g := range groups {
				if lo[g] <= a && z <= hi[g] {
					member = append(member, g)
				}
			}
			if len(member) == 0 {
				continue
			}
			lStart[r.LHSRagged], lSize[r.LHSRagged] = a, z-a
			l := regionOf(lhs, lStart, lSize)
			rts := make([]*tensor.Tensor, len(member))
			for j, g := range member {
				rStart[r.RHSGroup], rSize[r.RHSGroup] = g, 1
				rts[j] = regionOf(rhs, rStart, rSize)
				rts[j].Shape = slices.Delete(slices.Clone(rts[j].Shape), int(r.RHSGroup), int(r.RHSGroup)+1)
			}
			oStart[at], oSize[at] = a, z-a
			part, err := e.groupsDot(in, l, rts, sub, out, oSize[first:])
			if err != nil {
				return nil, err
			}
			copyRegion(result.Data, offset(oStart, dims), rowMajorStrides(dims), part.Data, 0,
				rowMajorStrides(oSize), oSize, out.ByteSize())
		}
	}
	return result, nil
}

// groupsDot multiplies rows l by the matrices rts of the groups they are in: the dot d of l and rts[0]
// for one group; for several, one dot over a new leading contracting dimension, l repeated along it and
// the groups' matrices stacked, so that each element is one chain over the groups in order and, within
// each, over k, as the dense form's dot computes it.
func (e *evaluator) groupsDot(in *hlo.Instruction, l *tensor.Tensor, rts []*tensor.Tensor, d dotDims, out dtype.Type, dims []int64) (*tensor.Tensor, error) {
	if len(rts) == 1 {
		return e.dotOf(in, l, rts[0], d, out, dims)
	}
	n := int64(len(rts))
	stack := func(parts []*tensor.Tensor) *tensor.Tensor {
		t := tensor.New(parts[0].Type, append([]int64{n}, parts[0].Shape...))
		size := len(parts[0].Data)
		for j, p := range parts {
			copy(t.Data[j*size:], p.Data)
		}
		return t
	}
	ls := make([]*tensor.Tensor, n)
	for j := range ls {
		ls[j] = l
	}
	inc := func(ds []int64) []int64 {
		o := make([]int64, len(ds))
		for i, x := range ds {
			o[i] = x + 1
		}
		return o
	}
	d2 := dotDims{inc(d.lhsBatch), inc(d.rhsBatch), append([]int64{0}, inc(d.lhsContract)...), append([]int64{0}, inc(d.rhsContract)...)}
	return e.dotOf(in, stack(ls), stack(rts), d2, out, dims)
}

// fullRegion returns the start (zeros) and size (dims) of the whole of an array of dimensions dims.
func fullRegion(dims []int64) (start, size []int64) {
	return make([]int64, len(dims)), slices.Clone(dims)
}

// offset is the row-major element offset of index idx in an array of dimensions dims.
func offset(idx, dims []int64) int64 {
	var o int64
	for d, s := range rowMajorStrides(dims) {
		o += idx[d] * s
	}
	return o
}

// regionOf returns the region of x of the given start and size: a view of x's data where the region is
// one contiguous run of it, a copy otherwise.
func regionOf(x *tensor.Tensor, start, size []int64) *tensor.Tensor {
	es := int64(x.Type.ByteSize())
	base := offset(start, x.Shape)
	// Contiguous: the dimensions before some k are of size 1, those after it whole.
	k := 0
	for k < len(size) && size[k] == 1 {
		k++
	}
	contiguous := true
	for d := k + 1; d < len(size); d++ {
		contiguous = contiguous && size[d] == x.Shape[d]
	}
	if contiguous {
		n := product(size)
		return &tensor.Tensor{Type: x.Type, Shape: slices.Clone(size), Data: x.Data[base*es : (base+n)*es]}
	}
	r := tensor.New(x.Type, size)
	copyRegion(r.Data, 0, rowMajorStrides(size), x.Data, base, rowMajorStrides(x.Shape), size, int(es))
	return r
}

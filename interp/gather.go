package interp

import (
	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
	"slices"
)

// indexVectors reads start indices: for each batch position (every index of the indices' dimensions
// other than indexVectorDim, row-major), the vector along indexVectorDim (a vector of one when
// indexVectorDim is the rank).
type indexVectors struct {
	vals      []int64
	dims      []int64 // the indices' shape
	ivd       int     // index_vector_dim
	batchDims []int64 // sizes of the batch dimensions, in order
	batchPos  []int   // the indices' dimension number of each batch dimension
	strides   []int64
}

func newIndexVectors(t *tensor.Tensor, ivd int64) (*indexVectors, bool) {
	if ivd < 0 || ivd > int64(len(t.Shape)) || !t.Type.IsInteger() {
		return nil, false
	}
	iv := &indexVectors{vals: i64s(t), dims: t.Shape, ivd: int(ivd), strides: rowMajorStrides(t.Shape)}
	for d, n := range t.Shape {
		if d != int(ivd) {
			iv.batchDims = append(iv.batchDims, n)
			iv.batchPos = append(iv.batchPos, d)
		}
	}
	return iv, true
}

func (iv *indexVectors) vectorLen() int64 {
	if iv.ivd == len(iv.dims) {
		return 1
	}
	return iv.dims[iv.ivd]
}

// component returns element k of the index vector at batch position g.
func (iv *indexVectors) component(g []int64, k int64) int64 {
	var lin int64
	for i, d := range iv.batchPos {
		lin += g[i] * iv.strides[d]
	}
	if iv.ivd < len(iv.dims) {
		lin += k * iv.strides[iv.ivd]
	}
	return iv.vals[lin]
}

// batchIndexOf returns the position among the batch dimensions of the indices' dimension d, or -1.
func (iv *indexVectors) batchIndexOf(d int64) int {
	for i, p := range iv.batchPos {
		if int64(p) == d {
			return i
		}
	}
	return -1
}

func contains(l []int64, x int64) bool {
	for _, v := range l {
		if v == x {
			return true
		}
	}
	return false
}

func (e *evaluator) gather(in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error) {
	if len(ts) != 2 {
		return nil, errorf(in, "gather takes an operand and start indices")
	}
	x := ts[0]
	ivd, _ := in.Int("index_vector_dim")
	iv, ok := newIndexVectors(ts[1], ivd)
	if !ok {
		return nil, errorf(in, "bad start indices %s or index_vector_dim %d", ts[1], ivd)
	}
	offsetDims := in.Ints("offset_dims")
	collapsed := in.Ints("collapsed_slice_dims")
	startMap := in.Ints("start_index_map")
	opBatch := in.Ints("operand_batching_dims")
	idxBatch := in.Ints("start_indices_batching_dims")
	sizes := in.Ints("slice_sizes")
	outDims := in.Shape.Dims
	rank := len(x.Shape)
	if len(sizes) != rank || int64(len(startMap)) != iv.vectorLen() || len(opBatch) != len(idxBatch) {
		return nil, errorf(in, "gather dimension numbers do not fit operand %s and indices %s", x, ts[1])
	}
	var offsetOperand []int64
	for d := 0; d < rank; d++ {
		if !contains(collapsed, int64(d)) && !contains(opBatch, int64(d)) {
			offsetOperand = append(offsetOperand, int64(d))
		}
		if sizes[d] < 0 || sizes[d] > x.Shape[d] {
			return nil, errorf(in, "slice size %d out of range for dimension %d of %s", sizes[d], d, x)
		}
	}
	if len(offsetOperand) != len(offsetDims) {
		return nil, errorf(in, "%d offset_dims for %d offset dimensions of the operand", len(offsetDims), len(offsetOperand))
	}
	var batchOut []int64
	for d := range outDims {
		if !contains(offsetDims, int64(d)) {
			batchOut = append(batchOut, int64(d))
		}
	}
	if len(batchOut) != len(iv.batchDims) {
		return nil, errorf(in, "the result has %d batch dimensions, the indices %d", len(batchOut), len(iv.batchDims))
	}
	for i, d := range batchOut {
		if outDims[d] != iv.batchDims[i] {
			return nil, errorf(in, "batch dimension %d of the result has size %d, the indices' %d", d, outDims[d], iv.batchDims[i])
		}
	}
	region := make([]int64, len(offsetOperand))
	srcStrides := make([]int64, len(offsetOperand))
	dstStrides := make([]int64, len(offsetOperand))
	xs := rowMajorStrides(x.Shape)
	os := rowMajorStrides(outDims)
	for j, d := range offsetOperand {
		region[j] = sizes[d]
		if outDims[offsetDims[j]] != sizes[d] {
			return nil, errorf(in, "offset dimension %d of the result has size %d, the slice %d", offsetDims[j], outDims[offsetDims[j]], sizes[d])
		}
		srcStrides[j] = xs[d]
		dstStrides[j] = os[offsetDims[j]]
	}
	out := tensor.New(x.Type, outDims)
	nb := product(iv.batchDims)
	if err := e.charge(out.NumElements()); err != nil {
		return nil, err
	}
	// Where operand_batching_dims takes each of its dimensions' start from: the position of the indices'
	// batch dimension among iv's.
	batchFrom := make([]int, len(opBatch))
	for i := range opBatch {
		if batchFrom[i] = iv.batchIndexOf(idxBatch[i]); batchFrom[i] < 0 {
			return nil, errorf(in, "start_indices_batching_dims names dimension %d", idxBatch[i])
		}
	}
	es := int64(x.Type.ByteSize())
	single := product(region) == 1
	// The batch positions are gathered apart (each writes its own part of the result), on every core.
	parallelFor(e.threads, int(nb), int(max(1, elementwiseGrain/max(product(region), 1))), func(lo, hi int) {
		g := unravel(int64(lo), iv.batchDims)
		start := make([]int64, rank)
		for b := int64(lo); b < int64(hi); b++ {
			clear(start)
			for k, d := range startMap {
				start[d] = iv.component(g, int64(k))
			}
			for i, d := range opBatch {
				start[d] = g[batchFrom[i]]
			}
			var srcBase, dstBase int64
			for d := range start {
				start[d] = max(0, min(start[d], x.Shape[d]-sizes[d]))
				srcBase += start[d] * xs[d]
			}
			for i, d := range batchOut {
				dstBase += g[i] * os[d]
			}
			if single {
				copy(out.Data[dstBase*es:(dstBase+1)*es], x.Data[srcBase*es:])
			} else {
				copyRegion(out.Data, dstBase, dstStrides, x.Data, srcBase, srcStrides, region, int(es))
			}
			nextIndex(g, iv.batchDims)
		}
	})
	return out, nil
}

// scatterRows returns, for a scatter of one float32-domain operand whose update computation is a plain
// add, multiply, maximum or minimum and whose last window dimension is the last of both the operand
// and the updates, a function combining the row of updates at uo into the row of the result at xo (the
// whole last window dimension) on gemm's row kernels, each element rounded to the type as the scalar
// program rounds it; nil otherwise. The positions of a row are distinct, so combining them at once
// keeps the order of the updates.
func scatterRows(f *scalarFn, outs []*tensor.Tensor, u *tensor.Tensor, types []dtype.Type, winDims, windowDims, windowOperand, xs, us []int64) func(xo, uo int64) {
	last := len(winDims) - 1
	if len(outs) != 1 || f.prog == nil || last < 0 || domainOf(types[0]) != domFloat32 ||
		windowOperand[last] != int64(len(xs)-1) || windowDims[last] != int64(len(us)-1) {
		return nil
	}
	switch op := f.prog.binop; op {
	case hlo.OpAdd, hlo.OpMultiply, hlo.OpMaximum, hlo.OpMinimum:
		// Rows of the narrower types are decoded, combined in float32 and encoded back: the encoding
		// rounds each element once, as the scalar program does after its operation.
		t, n := types[0], winDims[last]
		fold := rowFolder(op, binaryF32(op), dtype.F32)
		if t == dtype.F32 {
			xf, uf := tensor.View[float32](outs[0]), tensor.View[float32](u)
			return func(xo, uo int64) { fold(xf[xo:xo+n], uf[uo:uo+n]) }
		}
		w := int64(t.ByteSize())
		acc, row := make([]float32, n), make([]float32, n)
		return func(xo, uo int64) {
			decodeFloat32Into(t, acc, outs[0].Data[xo*w:(xo+n)*w])
			decodeFloat32Into(t, row, u.Data[uo*w:(uo+n)*w])
			fold(acc, row)
			encodeFloat32Into(t, outs[0].Data[xo*w:(xo+n)*w], acc)
		}
	}
	return nil
}

// scatter combines each update window into the operands at the position its index vector gives, with
// the update computation: operand = f(operand, update) element by element, updates taken in row-major
// order. A window that does not fit inside the operand at its position is skipped whole.
func (e *evaluator) scatter(in *hlo.Instruction, ops []Value) (Value, error) {
	consumable := e.consumable // before the update computation's evaluations change it
	ts, err := arrays(in, ops)
	if err != nil {
		return Value{}, err
	}
	if len(ts) < 3 || len(ts)%2 != 1 {
		return Value{}, errorf(in, "scatter takes n operands, indices and n updates")
	}
	n := len(ts) / 2
	operands, indices, updates := ts[:n], ts[n], ts[n+1:]
	types, err := resultTypes(in, n)
	if err != nil {
		return Value{}, err
	}
	ivd, _ := in.Int("index_vector_dim")
	iv, ok := newIndexVectors(indices, ivd)
	if !ok {
		return Value{}, errorf(in, "bad scatter indices %s or index_vector_dim %d", indices, ivd)
	}
	windowDims := in.Ints("update_window_dims")
	inserted := in.Ints("inserted_window_dims")
	toOperand := in.Ints("scatter_dims_to_operand_dims")
	inBatch := in.Ints("input_batching_dims")
	idxBatch := in.Ints("scatter_indices_batching_dims")
	x := operands[0]
	rank := len(x.Shape)
	u := updates[0]
	if int64(len(toOperand)) != iv.vectorLen() || len(inBatch) != len(idxBatch) {
		return Value{}, errorf(in, "scatter dimension numbers do not fit %s and indices %s", x, indices)
	}
	for i := range operands {
		if !slices.Equal(operands[i].Shape, x.Shape) || !slices.Equal(updates[i].Shape, u.Shape) || operands[i].Type != types[i] || updates[i].Type != types[i] {
			return Value{}, unsupportedf(in, "scatter with operands or updates of differing shapes or types")
		}
	}
	var windowOperand []int64
	for d := 0; d < rank; d++ {
		if !contains(inserted, int64(d)) && !contains(inBatch, int64(d)) {
			windowOperand = append(windowOperand, int64(d))
		}
	}
	if len(windowOperand) != len(windowDims) {
		return Value{}, errorf(in, "%d update_window_dims for %d window dimensions of the operand", len(windowDims), len(windowOperand))
	}
	var scatterDims []int64
	for d := range u.Shape {
		if !contains(windowDims, int64(d)) {
			scatterDims = append(scatterDims, int64(d))
		}
	}
	if len(scatterDims) != len(iv.batchDims) {
		return Value{}, errorf(in, "the updates have %d scatter dimensions, the indices %d", len(scatterDims), len(iv.batchDims))
	}
	winSize := make([]int64, rank) // the window's extent in each operand dimension
	for d := range winSize {
		winSize[d] = 1
	}
	winDims := make([]int64, len(windowDims))
	for j, d := range windowDims {
		winDims[j] = u.Shape[d]
		winSize[windowOperand[j]] = u.Shape[d]
	}
	f, err := e.scalarFunc(in, in.CalledComputation("to_apply"))
	if err != nil {
		return Value{}, err
	}
	outs := make([]*tensor.Tensor, n)
	for i := range outs {
		if i == 0 && n == 1 && consumable == x && x.Type == types[0] {
			outs[i] = inPlaceResult(x) // no one reads the operand again: the updates are combined into it
			continue
		}
		outs[i] = e.newTensor(types[i], x.Shape)
		copy(outs[i].Data, operands[i].Data)
	}
	if err := e.charge(u.NumElements()); err != nil {
		return Value{}, err
	}
	xs := rowMajorStrides(x.Shape)
	us := rowMajorStrides(u.Shape)
	g := make([]int64, len(iv.batchDims))
	w := make([]int64, len(winDims))
	start := make([]int64, rank)
	args := make([]uint64, 2*n)
	res := make([]uint64, n)
	assign := f.prog != nil && f.prog.assign && n == 1
	nb := product(iv.batchDims)
	nw := product(winDims)
	rows := scatterRows(f, outs, u, types, winDims, windowDims, windowOperand, xs, us)
	iterDims := winDims // the window positions visited: with rows, the first of each row
	if rows != nil {
		iterDims = slices.Clone(winDims)
		iterDims[len(iterDims)-1] = 1
	}
	for b := int64(0); b < nb; b++ {
		for d := range start {
			start[d] = 0
		}
		for k, d := range toOperand {
			start[d] = iv.component(g, int64(k))
		}
		for i, d := range inBatch {
			p := iv.batchIndexOf(idxBatch[i])
			if p < 0 {
				return Value{}, errorf(in, "scatter_indices_batching_dims names dimension %d", idxBatch[i])
			}
			start[d] = g[p]
		}
		fits := true
		var base, ubase int64
		for d := range start {
			if start[d] < 0 || start[d] > x.Shape[d]-winSize[d] {
				fits = false
				break
			}
			base += start[d] * xs[d]
		}
		for i, d := range scatterDims {
			ubase += g[i] * us[d]
		}
		if fits && nw > 0 {
			for j := range w {
				w[j] = 0
			}
			for {
				xo, uo := base, ubase
				for j := range w {
					xo += w[j] * xs[windowOperand[j]]
					uo += w[j] * us[windowDims[j]]
				}
				if rows != nil {
					rows(xo, uo)
				} else if assign {
					outs[0].SetBitsAt(xo, updates[0].BitsAt(uo))
				} else {
					for i := 0; i < n; i++ {
						args[i] = outs[i].BitsAt(xo)
						args[n+i] = updates[i].BitsAt(uo)
					}
					if err := f.call(args, res); err != nil {
						return Value{}, err
					}
					for i := 0; i < n; i++ {
						outs[i].SetBitsAt(xo, res[i])
					}
				}
				if !nextIndex(w, iterDims) {
					break
				}
			}
		}
		nextIndex(g, iv.batchDims)
	}
	return packResults(in, outs), nil
}

package interp

import (
	"octet/dtype"
	"octet/gemm"
	"octet/hlo"
	"octet/tensor"
	"slices"
	"unsafe"
)

// rowMajorStrides returns the element stride of each dimension of a row-major array.
func rowMajorStrides(dims []int64) []int64 {
	s := make([]int64, len(dims))
	n := int64(1)
	for i := len(dims) - 1; i >= 0; i-- {
		s[i] = n
		n *= dims[i]
	}
	return s
}

func product(dims []int64) int64 {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	return n
}

// copyRegion copies the elements of a region of shape dims, element size es: the element at index idx
// goes from src[srcBase + sum(idx*srcStrides)] to dst[dstBase + sum(idx*dstStrides)] (offsets in
// elements; a stride may be zero, to repeat an element, or negative).
//
// Where the source's contiguous dimension is not the destination's (a transpose), it copies in tiles
// of transposeTile x transposeTile elements of those two dimensions, so that the lines of both stay in
// cache while they are used: element by element along the destination, each read took a line of its
// own, and a transpose of bf16[262144,1152] moved 0.25 GB/s.
func copyRegion(dst []byte, dstBase int64, dstStrides []int64, src []byte, srcBase int64, srcStrides []int64, dims []int64, es int) {
	if product(dims) == 0 {
		return
	}
	dstStrides, srcStrides, dims = coalesce(dstStrides, srcStrides, dims)
	if j := tiledDim(dstStrides, srcStrides, dims); j >= 0 {
		copyTiled(dst, dstBase, dstStrides, src, srcBase, srcStrides, dims, es, j)
		return
	}
	copyElements(dst, dstBase, dstStrides, src, srcBase, srcStrides, dims, es)
}

// copyTiled is copyRegion in tiles of dimensions j (contiguous in the source) and the innermost one
// (contiguous in the destination), for every index of the others.
func copyTiled(dst []byte, dstBase int64, dstStrides []int64, src []byte, srcBase int64, srcStrides []int64, dims []int64, es int, j int) {
	inner := len(dims) - 1
	outer := append([]int64(nil), dims...)
	outer[j], outer[inner] = 1, 1
	idx := make([]int64, len(dims))
	dj, ss := dstStrides[j], srcStrides[inner]
	d16, s16 := view[uint16](dst), view[uint16](src)
	d32, s32 := view[uint32](dst), view[uint32](src)
	d64, s64 := view[uint64](dst), view[uint64](src)
	tileDims := make([]int64, len(dims)) // one tile, for the element-by-element copy: 1 but j and inner
	for i := range tileDims {
		tileDims[i] = 1
	}
	for {
		var d, s int64 = dstBase, srcBase
		for i, x := range idx {
			d += x * dstStrides[i]
			s += x * srcStrides[i]
		}
		for a := int64(0); a < dims[j]; a += transposeTile {
			na := min(transposeTile, dims[j]-a)
			for b := int64(0); b < dims[inner]; b += transposeTile {
				nb := min(transposeTile, dims[inner]-b)
				do, so := d+a*dj+b, s+a+b*ss
				switch {
				case es == 1:
					tile(dst, do, dj, src, so, ss, na, nb)
				case es == 2 && d16 != nil && s16 != nil && ss >= na && dj >= nb:
					// The source tile is nb rows of na elements, the destination's its transpose.
					gemm.TransposeBlock(d16[do:], int(dj), s16[so:], int(ss), int(nb), int(na))
				case es == 4 && d32 != nil && s32 != nil && ss >= na && dj >= nb:
					gemm.TransposeBlock(d32[do:], int(dj), s32[so:], int(ss), int(nb), int(na))
				case es == 2 && d16 != nil && s16 != nil:
					tile(d16, do, dj, s16, so, ss, na, nb)
				case es == 4 && d32 != nil && s32 != nil:
					tile(d32, do, dj, s32, so, ss, na, nb)
				case es == 8 && d64 != nil && s64 != nil:
					tile(d64, do, dj, s64, so, ss, na, nb)
				default: // another size, or memory not aligned for it
					tileDims[j], tileDims[inner] = na, nb
					copyElements(dst, do, dstStrides, src, so, srcStrides, tileDims, es)
				}
			}
		}
		if !nextIndex(idx, outer) {
			return
		}
	}
}

// tile copies an na x nb tile: element (a, b) from src[so + a + b*ss] to dst[do + a*dj + b].
func tile[T any](dst []T, do, dj int64, src []T, so, ss, na, nb int64) {
	for a := range na {
		row := dst[do+a*dj : do+a*dj+nb]
		for b := range row {
			row[b] = src[so+a+int64(b)*ss]
		}
	}
}

// ordered are the element types that views give and Go's comparisons order as HLO's compare does.
type ordered interface {
	int8 | uint8 | int16 | uint16 | int32 | uint32 | int64 | uint64 | float32 | float64
}

// view is b as elements of T; nil where b is empty or not aligned for T.
func view[T ordered](b []byte) []T {
	var z T
	size := int(unsafe.Sizeof(z))
	n := len(b) / size
	if n == 0 || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%uintptr(size) != 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// coalesce drops the dimensions of one element and merges each dimension with the next where both
// strides run on from it (the dimensions of a reduction's kept or reduced indices, say), so that a copy
// sees its longest runs.
func coalesce(dstStrides, srcStrides, dims []int64) ([]int64, []int64, []int64) {
	var ds, ss, dd []int64
	for i, n := range dims {
		if n == 1 {
			continue
		}
		if k := len(dd) - 1; k >= 0 && ds[k] == dstStrides[i]*n && ss[k] == srcStrides[i]*n {
			dd[k] *= n
			ds[k], ss[k] = dstStrides[i], srcStrides[i]
			continue
		}
		ds, ss, dd = append(ds, dstStrides[i]), append(ss, srcStrides[i]), append(dd, n)
	}
	return ds, ss, dd
}

// transposeTile is the side of copyRegion's tiles, in elements.
const transposeTile = 64

// tiledDim returns the dimension copyRegion tiles with the innermost one: the source's contiguous
// dimension where the innermost one is not, both long enough to gain from it; -1 for none.
func tiledDim(dstStrides, srcStrides, dims []int64) int {
	inner := len(dims) - 1
	if inner < 1 || dims[inner] < transposeTile || dstStrides[inner] != 1 || abs64(srcStrides[inner]) < transposeTile {
		return -1
	}
	for j := inner - 1; j >= 0; j-- {
		if srcStrides[j] == 1 && dims[j] >= transposeTile {
			return j
		}
	}
	return -1
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// copyElements is copyRegion element by element, the innermost dimension fastest.
func copyElements(dst []byte, dstBase int64, dstStrides []int64, src []byte, srcBase int64, srcStrides []int64, dims []int64, es int) {
	r := len(dims)
	if r == 0 {
		copy(dst[dstBase*int64(es):(dstBase+1)*int64(es)], src[srcBase*int64(es):(srcBase+1)*int64(es)])
		return
	}
	inner := dims[r-1]
	ds, ss := dstStrides[r-1], srcStrides[r-1]
	idx := make([]int64, r)
	d, s := dstBase, srcBase
	e := int64(es)
	for {
		// The innermost dimension.
		switch {
		case ds == 1 && ss == 1:
			copy(dst[d*e:(d+inner)*e], src[s*e:(s+inner)*e])
		case es == 1:
			for k := int64(0); k < inner; k++ {
				dst[d+k*ds] = src[s+k*ss]
			}
		case es == 2:
			for k := int64(0); k < inner; k++ {
				do, so := 2*(d+k*ds), 2*(s+k*ss)
				dst[do], dst[do+1] = src[so], src[so+1]
			}
		case es == 4:
			for k := int64(0); k < inner; k++ {
				do, so := 4*(d+k*ds), 4*(s+k*ss)
				copy(dst[do:do+4], src[so:so+4])
			}
		default:
			for k := int64(0); k < inner; k++ {
				do, so := e*(d+k*ds), e*(s+k*ss)
				copy(dst[do:do+e], src[so:so+e])
			}
		}
		// Advance the outer dimensions.
		j := r - 2
		for ; j >= 0; j-- {
			idx[j]++
			d += dstStrides[j]
			s += srcStrides[j]
			if idx[j] < dims[j] {
				break
			}
			d -= idx[j] * dstStrides[j]
			s -= idx[j] * srcStrides[j]
			idx[j] = 0
		}
		if j < 0 {
			return
		}
	}
}

// fill sets every element of t to the element of v (a one-element tensor of t's type).
func fill(t *tensor.Tensor, v []byte) {
	es := len(v)
	if len(t.Data) == 0 {
		return
	}
	copy(t.Data, v[:es])
	for n := es; n < len(t.Data); n *= 2 {
		copy(t.Data[n:], t.Data[:n])
	}
}

func (e *evaluator) broadcast(in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error) {
	x := ts[0]
	dims := in.Ints("dimensions")
	out := in.Shape.Dims
	if len(dims) != len(x.Shape) || x.Type != in.Shape.Elem {
		return nil, errorf(in, "broadcast of %s with dimensions %v to %s", x, dims, in.Shape.String())
	}
	r := e.newTensor(x.Type, out)
	if x.NumElements() == 1 {
		fill(r, x.Data)
		return r, nil
	}
	xs := rowMajorStrides(x.Shape)
	src := make([]int64, len(out))
	for i, d := range dims {
		if d < 0 || d >= int64(len(out)) || out[d] != x.Shape[i] {
			return nil, errorf(in, "broadcast dimension %d of %s does not fit %s", d, x, in.Shape.String())
		}
		src[d] = xs[i]
	}
	parallelCopyRegion(e.threads, r.Data, 0, rowMajorStrides(out), x.Data, 0, src, out, x.Type.ByteSize())
	return r, nil
}

func (e *evaluator) reshape(in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error) {
	x := ts[0]
	if x.NumElements() != in.Shape.NumElements() || x.Type != in.Shape.Elem {
		return nil, errorf(in, "reshape of %s to %s", x, in.Shape.String())
	}
	return &tensor.Tensor{Type: x.Type, Shape: in.Shape.Dims, Data: x.Data}, nil
}

// rowMajor reports whether an array of the given rank laid out by l (nil: the default layout) is stored
// in row-major order.
func rowMajor(l *hlo.Layout, rank int) bool {
	if l == nil {
		return true
	}
	d := hlo.DefaultLayout(rank)
	return slices.Equal(l.MinorToMajor, d.MinorToMajor) && len(l.Tiles) == 0
}

// bitcast reinterprets the operand's bytes in memory: with both layouts row-major it is a reshape;
// otherwise the operand is laid out in its layout and the bytes read back in the result's. The element
// type may change with the element count, as XLA's layout passes write it (u32[4]{0} to u64[2]{0}: a
// u64 of two consecutive u32, the first the low half, as the bytes lie in memory); sub-byte types keep
// their width.
func (e *evaluator) bitcast(in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error) {
	x := ts[0]
	to := in.Shape.Elem
	subByte := x.Type.BitWidth() < 8 || to.BitWidth() < 8
	if int64(len(x.Data)) != in.Shape.NumElements()*int64(to.ByteSize()) || (subByte && x.Type.BitWidth() != to.BitWidth()) {
		return nil, errorf(in, "bitcast of %s to %s changes the size", x, in.Shape.String())
	}
	opLayout, outLayout := in.Operand(0).Shape.Layout, in.Shape.Layout
	if rowMajor(opLayout, len(x.Shape)) && rowMajor(outLayout, len(in.Shape.Dims)) {
		return &tensor.Tensor{Type: to, Shape: in.Shape.Dims, Data: x.Data}, nil
	}
	for _, l := range []*hlo.Layout{opLayout, outLayout} {
		if l != nil && (len(l.Tiles) > 0 || l.ElementSizeBits != 0) {
			return nil, unsupportedf(in, "bitcast between tiled or sub-byte layouts")
		}
	}
	physical := x.Data
	if !rowMajor(opLayout, len(x.Shape)) {
		var err error
		if physical, err = x.ToLayout(opLayout.MinorToMajor); err != nil {
			return nil, errorf(in, "bitcast: %v", err)
		}
	}
	if rowMajor(outLayout, len(in.Shape.Dims)) {
		return &tensor.Tensor{Type: to, Shape: in.Shape.Dims, Data: physical}, nil
	}
	r, err := tensor.FromLayout(to, in.Shape.Dims, outLayout.MinorToMajor, physical)
	if err != nil {
		return nil, errorf(in, "bitcast: %v", err)
	}
	return r, nil
}

func (e *evaluator) transpose(in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error) {
	x := ts[0]
	perm := in.Ints("dimensions")
	if len(perm) != len(x.Shape) {
		return nil, errorf(in, "transpose of %s with dimensions %v", x, perm)
	}
	for i, p := range perm {
		if p != int64(i) {
			return e.transposed(x, perm), nil
		}
	}
	return transposeTensor(x, perm), nil
}

// transposed is transposeTensor into a new array, on every core.
func (e *evaluator) transposed(x *tensor.Tensor, perm []int64) *tensor.Tensor {
	out := make([]int64, len(perm))
	xs := rowMajorStrides(x.Shape)
	src := make([]int64, len(perm))
	for i, p := range perm {
		out[i] = x.Shape[p]
		src[i] = xs[p]
	}
	r := e.newTensor(x.Type, out)
	parallelCopyRegion(e.threads, r.Data, 0, rowMajorStrides(out), x.Data, 0, src, out, x.Type.ByteSize())
	return r
}

// transposeTensor returns x with dimension i of the result being dimension perm[i] of x.
func transposeTensor(x *tensor.Tensor, perm []int64) *tensor.Tensor {
	return transposeThreads(x, perm, 1)
}

// transposeThreads is transposeTensor on at most threads goroutines.
func transposeThreads(x *tensor.Tensor, perm []int64, threads int) *tensor.Tensor {
	out := make([]int64, len(perm))
	xs := rowMajorStrides(x.Shape)
	src := make([]int64, len(perm))
	identity := true
	for i, p := range perm {
		out[i] = x.Shape[p]
		src[i] = xs[p]
		identity = identity && p == int64(i)
	}
	if identity {
		return &tensor.Tensor{Type: x.Type, Shape: out, Data: x.Data}
	}
	r := tensor.New(x.Type, out)
	parallelCopyRegion(threads, r.Data, 0, rowMajorStrides(out), x.Data, 0, src, out, x.Type.ByteSize())
	return r
}

func (e *evaluator) slice(in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error) {
	x := ts[0]
	sl, _ := in.Attr("slice").(hlo.Slice)
	if len(sl) != len(x.Shape) {
		return nil, errorf(in, "slice of %s needs %d dimensions in slice=", x, len(x.Shape))
	}
	out := in.Shape.Dims
	xs := rowMajorStrides(x.Shape)
	src := make([]int64, len(sl))
	var base int64
	for i, d := range sl {
		stride := max(d.Stride, 1)
		if d.Start < 0 || d.Limit > x.Shape[i] || d.Start > d.Limit || out[i] != ceilDiv(d.Limit-d.Start, stride) {
			return nil, errorf(in, "slice [%d:%d:%d] of dimension %d of %s", d.Start, d.Limit, stride, i, x)
		}
		base += d.Start * xs[i]
		if out[i] > 1 { // a stride that takes one element may be past what the strides of x can multiply
			src[i] = xs[i] * stride
		}
	}
	r := tensor.New(x.Type, out)
	copyRegion(r.Data, 0, rowMajorStrides(out), x.Data, base, src, out, x.Type.ByteSize())
	return r, nil
}

// startIndices reads the start indices of a dynamic slice: one scalar operand per dimension, or (old
// form) one rank-1 operand holding them all.
func startIndices(in *hlo.Instruction, ts []*tensor.Tensor, rank int) ([]int64, error) {
	if len(ts) == 1 && len(ts[0].Shape) == 1 && ts[0].Type.IsInteger() {
		v := i64s(ts[0])
		if len(v) != rank {
			return nil, errorf(in, "%d start indices for rank %d", len(v), rank)
		}
		return append([]int64(nil), v...), nil
	}
	if len(ts) != rank {
		return nil, errorf(in, "%d start indices for rank %d", len(ts), rank)
	}
	idx := make([]int64, rank)
	for i, t := range ts {
		if t.NumElements() != 1 || !t.Type.IsInteger() {
			return nil, errorf(in, "start index %d is %s, not an integer scalar", i, t)
		}
		v := i64s(t)[0]
		if t.Type == dtype.U64 && v < 0 {
			v = 1<<63 - 1
		}
		idx[i] = v
	}
	return idx, nil
}

// clampStart clamps each start index to [0, dims[i]-size[i]], as XLA does for dynamic slices.
func clampStart(start, dims, size []int64) {
	for i := range start {
		start[i] = max(0, min(start[i], dims[i]-size[i]))
	}
}

func (e *evaluator) dynamicSlice(in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error) {
	x := ts[0]
	sizes := in.Ints("dynamic_slice_sizes")
	if sizes == nil {
		sizes = in.Shape.Dims
	}
	if len(sizes) != len(x.Shape) {
		return nil, errorf(in, "dynamic_slice_sizes %v for %s", sizes, x)
	}
	start, err := startIndices(in, ts[1:], len(x.Shape))
	if err != nil {
		return nil, err
	}
	for i := range sizes {
		if sizes[i] < 0 || sizes[i] > x.Shape[i] {
			return nil, errorf(in, "slice size %d larger than dimension %d of %s", sizes[i], i, x)
		}
	}
	clampStart(start, x.Shape, sizes)
	xs := rowMajorStrides(x.Shape)
	var base int64
	for i := range start {
		base += start[i] * xs[i]
	}
	r := tensor.New(x.Type, sizes)
	copyRegion(r.Data, 0, rowMajorStrides(sizes), x.Data, base, xs, sizes, x.Type.ByteSize())
	return r, nil
}

func (e *evaluator) dynamicUpdateSlice(in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error) {
	if len(ts) < 2 {
		return nil, errorf(in, "dynamic-update-slice needs an operand, an update and start indices")
	}
	x, u := ts[0], ts[1]
	if u.Type != x.Type || len(u.Shape) != len(x.Shape) {
		return nil, errorf(in, "update %s does not fit %s", u, x)
	}
	start, err := startIndices(in, ts[2:], len(x.Shape))
	if err != nil {
		return nil, err
	}
	for i := range u.Shape {
		if u.Shape[i] > x.Shape[i] {
			return nil, errorf(in, "update %s larger than %s", u, x)
		}
	}
	clampStart(start, x.Shape, u.Shape)
	var r *tensor.Tensor
	if e.consumable == x {
		r = inPlaceResult(x) // no one reads x again: the update is written into it
	} else {
		r = e.newTensor(x.Type, x.Shape)
		copy(r.Data, x.Data)
	}
	xs := rowMajorStrides(x.Shape)
	var base int64
	for i := range start {
		base += start[i] * xs[i]
	}
	copyRegion(r.Data, base, xs, u.Data, 0, rowMajorStrides(u.Shape), u.Shape, x.Type.ByteSize())
	return r, nil
}

// pad surrounds the operand with low and high padding (negative values cut elements off) and puts
// interior padding between its elements.
func (e *evaluator) pad(in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error) {
	if len(ts) != 2 {
		return nil, errorf(in, "pad takes an operand and a padding value")
	}
	x, pv := ts[0], ts[1]
	cfg, _ := in.Attr("padding").(hlo.Padding)
	if len(cfg) != len(x.Shape) || pv.NumElements() != 1 || pv.Type != x.Type {
		return nil, errorf(in, "padding %v for %s with value %s", cfg, x, pv)
	}
	out := in.Shape.Dims
	r := e.newTensor(x.Type, out)
	es := x.Type.ByteSize()
	parallelFor(e.threads, int(r.NumElements()), elementwiseGrain, func(lo, hi int) {
		fill(&tensor.Tensor{Type: r.Type, Shape: []int64{int64(hi - lo)}, Data: r.Data[lo*es : hi*es]}, pv.Data)
	})
	os := rowMajorStrides(out)
	xs := rowMajorStrides(x.Shape)
	region := make([]int64, len(out))
	dst := make([]int64, len(out))
	var dstBase, srcBase int64
	for i, p := range cfg {
		n := x.Shape[i]
		if p.Interior < 0 {
			return nil, errorf(in, "negative interior padding")
		}
		step := int64(1) // the interior padding of one element is none, whatever it says
		if n > 1 {
			step = p.Interior + 1 // the verifier keeps (n-1)*step below 2^63
		}
		want := p.Low + p.High + n // wraps around where the padding cancels out past 2^63, to the right size
		if n > 0 {
			want += (n - 1) * p.Interior
		}
		if want != out[i] {
			return nil, errorf(in, "padding %d_%d_%d of dimension %d of %s gives %d, the result has %d",
				p.Low, p.High, p.Interior, i, x, want, out[i])
		}
		// Operand elements i0 <= k < i1 land inside the result, at p.Low + k*step.
		i0 := int64(0)
		if p.Low < 0 {
			i0 = ceilDiv(-p.Low, step)
		}
		i1 := n
		for i1 > i0 && p.Low+(i1-1)*step >= out[i] {
			i1--
		}
		if i1 <= i0 {
			return r, nil
		}
		region[i] = i1 - i0
		dst[i] = os[i] * step
		dstBase += (p.Low + i0*step) * os[i]
		srcBase += i0 * xs[i]
	}
	parallelCopyRegion(e.threads, r.Data, dstBase, dst, x.Data, srcBase, xs, region, es)
	return r, nil
}

func (e *evaluator) concatenate(in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error) {
	dims := in.Ints("dimensions")
	if len(dims) != 1 || len(ts) == 0 {
		return nil, errorf(in, "concatenate needs one dimension and at least one operand")
	}
	d := dims[0]
	out := in.Shape.Dims
	if d < 0 || d >= int64(len(out)) {
		return nil, errorf(in, "concatenate dimension %d out of range", d)
	}
	r := tensor.New(in.Shape.Elem, out)
	os := rowMajorStrides(out)
	var off int64
	for _, t := range ts {
		if t.Type != r.Type || len(t.Shape) != len(out) {
			return nil, errorf(in, "operand %s does not fit %s", t, in.Shape.String())
		}
		if off+t.Shape[d] > out[d] {
			return nil, errorf(in, "operands are longer than the result in dimension %d", d)
		}
		copyRegion(r.Data, off*os[d], os, t.Data, 0, rowMajorStrides(t.Shape), t.Shape, r.Type.ByteSize())
		off += t.Shape[d]
	}
	if off != out[d] {
		return nil, errorf(in, "operands cover %d of %d elements in dimension %d", off, out[d], d)
	}
	return r, nil
}

func (e *evaluator) reverse(in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error) {
	x := ts[0]
	dims := in.Ints("dimensions")
	for _, d := range dims {
		if d < 0 || d >= int64(len(x.Shape)) {
			return nil, errorf(in, "reverse dimension %d out of range", d)
		}
	}
	return reverseTensor(x, dims), nil
}

func (e *evaluator) iota(in *hlo.Instruction) (Value, error) {
	if !in.Shape.IsArray() {
		return Value{}, errorf(in, "iota of a non-array shape")
	}
	d, ok := in.Int("iota_dimension")
	dims := in.Shape.Dims
	if !ok || d < 0 || d >= int64(len(dims)) {
		return Value{}, errorf(in, "iota_dimension missing or out of range")
	}
	n := product(dims)
	stride := rowMajorStrides(dims)[d]
	idx := func(i int64) int64 { return i / stride % dims[d] }
	t := in.Shape.Elem
	if int32Types(t) {
		return ArrayValue(e.iotaInt32(t, dims, d)), nil
	}
	switch domainOf(t) {
	case domInt:
		v := make([]int64, n)
		for i := range v {
			v[i] = idx(int64(i))
		}
		return ArrayValue(fromI64(t, dims, v)), nil
	case domFloat32:
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(idx(int64(i)))
		}
		return ArrayValue(fromF32(t, dims, v)), nil
	case domFloat64:
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(idx(int64(i)))
		}
		return ArrayValue(fromF64(t, dims, v)), nil
	case domComplex:
		v := make([]complex128, n)
		for i := range v {
			v[i] = complex(float64(idx(int64(i))), 0)
		}
		return ArrayValue(fromC128(t, dims, v)), nil
	}
	return Value{}, unsupportedf(in, "iota of %s", t)
}

// ceilDiv returns the ceiling of a/b for a >= 0 and b > 0, without the a+b-1 that overflows for a or b
// near 2^63.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 {
		q++
	}
	return q
}

package interp

import (
	"sync"

	"octet/dtype"
	"octet/gemm"
	"octet/tensor"
)

// convPanelElements bounds the im2col panel: the windows of at most this many elements (1 MiB of float32)
// are laid out at once, so that a panel is still in the cores' L2 caches when the kernels pack it, and a
// convolution's working memory does not grow with its output; but a panel has at least
// convPanelMinRows rows (where the output has them), so that packing the kernel, once per panel, costs
// little beside the products.
const (
	convPanelElements = 1 << 18
	convPanelMinRows  = 512
)

// convPanelRows is the number of output positions of a panel, for a convolution of m positions whose
// windows have k elements.
func convPanelRows(m, k int64) int64 {
	return min(m, max(convPanelElements/max(k, 1), convPanelMinRows))
}

// panelPool holds panels between convolutions (*[]float32), so that each does not fault in fresh memory.
var panelPool sync.Pool

// convolveGEMM evaluates a float convolution of 32 bits or fewer (see convolution) on the GEMM kernels.
//
// The operands are first put in canonical order, the input as [batch, spatial..., feature] and the kernel
// as [spatial..., input feature, output feature] (reversed where the window says so): copies only where
// they are in another order. The output, also [batch, spatial..., feature], is then a matrix of M output
// positions by the output features, and the kernel a matrix of K = window positions x input features of a
// group by the output features. For each panel of output positions and each group of output features
// (feature and batch groups), the panel's windows are copied as the rows of an M x K matrix, zeros where a
// window lies on padding, and multiplied by the group's columns of the kernel. A 1x1 window with unit
// strides and no padding reads the input itself as that matrix.
func (e *evaluator) convolveGEMM(g *convGeom, lhs, rhs *tensor.Tensor, out dtype.Type) (*tensor.Tensor, error) {
	dn := g.dn
	ns := len(dn.InputSpatial)
	lc := transposeThreads(lhs, append(append([]int64{dn.InputBatch}, dn.InputSpatial...), dn.InputFeature), e.threads)
	rc := transposeThreads(rhs, append(append(append([]int64(nil), dn.KernelSpatial...), dn.KernelInputFeature), dn.KernelOutput), e.threads)
	var rev []int64
	for i, w := range g.win {
		if w.Reversal {
			rev = append(rev, int64(i))
		}
	}
	if len(rev) > 0 {
		rc = reverseTensor(rc, rev)
	}
	operm := append(append([]int64{dn.OutputBatch}, dn.OutputSpatial...), dn.OutputFeature)
	odims := make([]int64, len(operm))
	for i, d := range operm {
		odims[i] = g.out[d]
	}
	im := newIm2col(g, lc)
	m, oc, k := im.rows, odims[ns+1], im.k
	if im.inGroup == 1 && g.bgc == 1 && g.fgc > 1 && oc == im.inF && isIdentity(operm) && m > 0 && k > 0 {
		// Depthwise, one output feature per input feature: the output rounded as it is computed.
		res := e.newTensor(out, g.out)
		e.convolveDepthwise(im, f32s(rc), res, m, oc)
		return res, nil
	}
	var c []float32
	var res *tensor.Tensor
	if out == dtype.F32 && isIdentity(operm) {
		res = e.newTensor(out, g.out)
		c = tensor.View[float32](res)
	} else {
		// The float32 sums in pooled memory, rounded to the result (or put in its order) below.
		buf := getFloat32s(int(m * oc))
		defer putFloat32s(buf)
		c = *buf
	}
	if k == 0 {
		clear(c)
	}
	switch {
	case m == 0 || oc == 0 || k == 0:
	case im.inGroup == 1 && g.bgc == 1 && g.fgc > 1:
		e.convolveDepthwiseMult(im, f32s(rc), c, m, oc)
	default:
		if err := e.convolvePanels(g, im, rc, c, m, oc); err != nil {
			return nil, err
		}
	}
	if res == nil && isIdentity(operm) {
		res = e.newTensor(out, odims)
		es := out.ByteSize()
		parallelFor(e.threads, len(c), elementwiseGrain, func(lo, hi int) {
			encodeFloat32Into(out, res.Data[lo*es:hi*es], c[lo:hi])
		})
	}
	if res == nil {
		res = fromF32(out, odims, c)
		if !isIdentity(operm) {
			inv := make([]int64, len(operm))
			for j, d := range operm {
				inv[d] = int64(j)
			}
			res = transposeThreads(res, inv, e.threads)
		}
	}
	return res, nil
}

// convolvePanels computes the m x oc canonical output c, panel after panel of output positions, group
// after group of output features.
func (e *evaluator) convolvePanels(g *convGeom, im *im2col, rc *tensor.Tensor, c []float32, m, oc int64) error {
	_, isDefault := e.gemm.(defaultMatMuler)
	typed := isDefault && gemm.SupportedType(im.typ) && gemm.SupportedType(rc.Type)
	var bF32 []float32
	if !typed {
		bF32 = f32s(rc)
	}
	k := im.k
	es := int64(im.es)
	outGroup := oc / g.fgc
	depthwise := oc / g.bgc
	direct := im.direct() && (typed || im.typ == dtype.F32)
	rowsPer := m
	if !direct {
		rowsPer = convPanelRows(m, k)
	}
	var panel []byte
	var panelF32 []float32
	if !direct {
		// One pooled buffer holds the panel in the operand's type, or in float32 (and then the panel in
		// its type after it, for decoding).
		need := rowsPer * k
		if !typed && im.typ != dtype.F32 {
			need += (rowsPer*k*es + 3) / 4
		}
		pooled, _ := panelPool.Get().(*[]float32)
		if pooled == nil || int64(cap(*pooled)) < need {
			b := make([]float32, need)
			pooled = &b
		}
		defer panelPool.Put(pooled)
		buf := (*pooled)[:need]
		all := float32Bytes(buf)
		switch {
		case im.typ == dtype.F32:
			panelF32, panel = buf, all
		case typed:
			panel = all[:rowsPer*k*es]
		default:
			panelF32, panel = buf[:rowsPer*k], all[rowsPer*k*4:][:rowsPer*k*es]
		}
	}
	for r0 := int64(0); r0 < m; r0 += rowsPer {
		if e.ctx != nil {
			if err := e.ctx.Err(); err != nil {
				return err
			}
		}
		rows := min(rowsPer, m-r0)
		for o0 := int64(0); o0 < oc; {
			// The output features [o0, o1) share a feature group fg and a batch group bg.
			o1 := min((o0/outGroup+1)*outGroup, (o0/depthwise+1)*depthwise, oc)
			fg, bg := o0/outGroup, o0/depthwise
			cm := gemm.Matrix{Data: c[r0*oc+o0:], Rows: int(rows), Cols: int(o1 - o0), Stride: int(oc)}
			var aData []byte
			aStride := k
			if direct {
				off := im.directOffset(fg, bg)
				aData, aStride = im.src[off*es:], im.inF
			} else {
				parallelFor(e.threads, int(rows), int(max(1, 16384/k)), func(lo, hi int) {
					im.fill(panel, r0, int64(lo), int64(hi), fg, bg)
					if panelF32 != nil && im.typ != dtype.F32 {
						decodeFloat32Into(im.typ, panelF32[int64(lo)*k:int64(hi)*k], panel[int64(lo)*k*es:int64(hi)*k*es])
					}
				})
				aData = panel
			}
			if typed {
				a := gemm.Typed{Type: im.typ, Data: aData, Rows: int(rows), Cols: int(k), Stride: int(aStride)}
				b := gemm.Typed{Type: rc.Type, Data: rc.Data[o0*int64(rc.Type.ByteSize()):], Rows: int(k), Cols: int(o1 - o0), Stride: int(oc)}
				gemm.MatMulTyped(cm, a, b, 1, 0)
			} else {
				var aF32 []float32
				if direct {
					aF32 = bytesFloat32(aData)
				} else {
					aF32 = panelF32
				}
				a := gemm.Matrix{Data: aF32, Rows: int(rows), Cols: int(k), Stride: int(aStride)}
				b := gemm.Matrix{Data: bF32[o0:], Rows: int(k), Cols: int(o1 - o0), Stride: int(oc)}
				e.gemm.MatMulBatched(1, cm, 0, a, 0, b, 0, 1, 0)
			}
			o0 = o1
		}
	}
	return nil
}

// convolveDepthwise computes the output res ([batch, spatial..., oc], of m positions) of a convolution
// with one input feature per group and one output feature per input feature (depthwise) as the chain of
// float32 fused multiply-adds over the window's positions, in row-major order from zero, that the GEMM
// kernels compute with K = the window's size, but directly: a product with one column per group would
// waste the kernels, and laying out each feature's window matrix for a batched product costs more than the
// arithmetic. For each window position the row of input features and the kernel's row are contiguous, so
// gemm.Depthwise computes a batch of output positions' rows of features at a time, in vector registers
// across the features. The positions go in bands: the input rows a band reads are decoded to float32
// into a scratch array, a row of zeros after them for the positions on padding (a product of zero still
// adds, so that the signs of zeros and the NaNs of the kernel are those of the chain), and the band's sums
// are rounded into res, while both are in cache. kern is the canonical kernel, [window..., 1, oc].
func (e *evaluator) convolveDepthwise(im *im2col, kern []float32, res *tensor.Tensor, m, oc int64) {
	inF := oc
	winN := product(im.winDims)
	zeros := int64(len(im.src) / im.es) // the offset windowOffsets gives a position on padding
	out := res.Type
	es := int64(out.ByteSize())
	var dst32 []float32
	if out == dtype.F32 {
		dst32 = tensor.View[float32](res)
	}
	// A band's sums take at most 512 KiB and its offsets 72 KiB, and there are a few bands per thread.
	band := max(16, min(1024, max(1, (1<<17)/oc), (m+2*int64(e.threads)-1)/(2*int64(e.threads))))
	bands := int((m + band - 1) / band)
	parallelFor(e.threads, bands, 1, func(b0, b1 int) {
		// Per position of a band: whether its window lies inside the input, and then the offset its
		// window starts at, else its offsets.
		inside := make([]bool, band)
		bases := make([]int, band)
		offs := make([]int, band*winN)
		// Scratch from the pool: fresh memory would cost a page fault per page.
		srcBuf := getFloat32s(0)
		defer putFloat32s(srcBuf)
		var sums []float32
		if dst32 == nil {
			sumsBuf := getFloat32s(int(band * oc))
			defer putFloat32s(sumsBuf)
			sums = *sumsBuf
		}
		it := newWindowOffsets(im, zeros, int64(b0)*band)
		deltas := it.deltas
		reach := int64(deltas[len(deltas)-1]) + inF
		wn := int(winN)
		for b := int64(b0); b < int64(b1); b++ {
			r0, r1 := b*band, min((b+1)*band, m)
			count := int(r1 - r0)
			// The input the band reads, [lo, hi) of the canonical input, then a row of zeros.
			lo, hi := zeros, int64(0)
			for i := range count {
				ro := offs[i*wn : (i+1)*wn]
				in, base := it.next(ro)
				inside[i], bases[i] = in, int(base)
				if in {
					lo, hi = min(lo, base), max(hi, base+reach)
					continue
				}
				for _, off := range ro {
					if off := int64(off); off != zeros {
						lo, hi = min(lo, off), max(hi, off+inF)
					}
				}
			}
			lo = min(lo, hi)
			span := hi - lo
			if int64(cap(*srcBuf)) < span+inF {
				*srcBuf = make([]float32, span+inF)
			}
			src := (*srcBuf)[:span+inF]
			decodeFloat32Into(im.typ, src[:span], im.src[lo*int64(im.es):hi*int64(im.es)])
			clear(src[span:])
			c := sums
			if dst32 != nil {
				c = dst32[r0*oc:]
			}
			// Runs of positions inside the input, and of the others.
			for i := 0; i < count; {
				j := i + 1
				for j < count && inside[j] == inside[i] {
					j++
				}
				if inside[i] {
					for p := i; p < j; p++ {
						bases[p] -= int(lo)
					}
					gemm.DepthwiseBases(c[int64(i)*oc:int64(j)*oc], int(oc), src, bases[i:j], deltas, kern, int(oc), int(oc))
				} else {
					ro := offs[i*wn : j*wn]
					for k, off := range ro {
						if int64(off) == zeros {
							ro[k] = int(span)
						} else {
							ro[k] = off - int(lo)
						}
					}
					gemm.Depthwise(c[int64(i)*oc:int64(j)*oc], int(oc), src, ro, kern, int(oc), wn, int(oc))
				}
				i = j
			}
			if dst32 == nil {
				encodeFloat32Into(out, res.Data[r0*oc*es:r1*oc*es], sums[:(r1-r0)*oc])
			}
		}
	})
}

// windowOffsets walks output positions of a convolution in row-major order and gives, for each, the
// offsets in the canonical input of the rows of input features its window reads (zeros for a position
// on padding), in row-major order of the window: the part of the offset from the dimensions before the
// last is worked out once per row of output positions. A position whose window lies inside the input
// (on no padding and, the input not dilated, on consecutive or evenly spaced elements) reads the rows
// at base + deltas[w] instead, base the offset of its first.
type windowOffsets struct {
	im      *im2col
	zeros   int64
	batch   int64   // the batch of the next position
	o       []int64 // its spatial coordinates
	outer   []int64 // per position of the window's dimensions before the last, the offset, -1 on padding
	rowDone bool    // outer holds the offsets of o's row
	widx    []int64
	// inside[i][o] says whether the window of output coordinate o of spatial dimension i lies inside the
	// input: its coordinates are im.coords[i][o*size] + w*step[i] for every w.
	inside [][]bool
	deltas []int
}

// newWindowOffsets returns the walk from output position r.
func newWindowOffsets(im *im2col, zeros, r int64) *windowOffsets {
	ns := len(im.outSp)
	it := &windowOffsets{im: im, zeros: zeros, o: make([]int64, ns), widx: make([]int64, max(ns-1, 0)),
		inside: make([][]bool, ns)}
	for i := ns - 1; i >= 0; i-- {
		it.o[i] = r % im.outSp[i]
		r /= im.outSp[i]
	}
	it.batch = r
	if ns > 0 {
		it.outer = make([]int64, product(im.winDims[:ns-1]))
	}
	steps := make([]int64, ns)
	for i := range ns {
		w := im.g.win[i]
		steps[i] = max(w.WindowDilation, 1)
		it.inside[i] = make([]bool, im.outSp[i])
		if max(w.BaseDilation, 1) > 1 {
			continue // holes between the input's elements
		}
		wd := im.winDims[i]
		for o := range im.outSp[i] {
			c := im.coords[i][o*wd : (o+1)*wd]
			in := c[0] >= 0
			for w := range c {
				in = in && c[w] == c[0]+int64(w)*steps[i]
			}
			it.inside[i][o] = in
		}
	}
	it.deltas = make([]int, product(im.winDims))
	widx := make([]int64, ns)
	for w := range it.deltas {
		d := int64(0)
		for i := range ns {
			d += widx[i] * steps[i] * im.spStride[i]
		}
		it.deltas[w] = int(d)
		nextIndex(widx, im.winDims)
	}
	return it
}

// next returns whether the next output position's window lies inside the input and then the offset
// it starts at; else it sets offs (one per window position).
func (it *windowOffsets) next(offs []int) (inside bool, base int64) {
	im := it.im
	ns := len(im.outSp)
	base = it.batch * im.batchSize
	if ns == 0 {
		it.batch++
		return true, base
	}
	last := ns - 1
	inside = true
	for i := range ns {
		inside = inside && it.inside[i][it.o[i]]
	}
	if inside {
		for i := range ns {
			base += im.coords[i][it.o[i]*im.winDims[i]] * im.spStride[i]
		}
	} else {
		if !it.rowDone {
			clear(it.widx)
			for j := range it.outer {
				off := base
				for i := 0; i < last; i++ {
					u := im.coords[i][it.o[i]*im.winDims[i]+it.widx[i]]
					if u < 0 {
						off = -1
						break
					}
					off += u * im.spStride[i]
				}
				it.outer[j] = off
				nextIndex(it.widx, im.winDims[:last])
			}
			it.rowDone = true
		}
		wl := im.winDims[last]
		cl := im.coords[last][it.o[last]*wl : (it.o[last]+1)*wl]
		ss := im.spStride[last]
		for j, ob := range it.outer {
			row := offs[int64(j)*wl : int64(j+1)*wl]
			for w, u := range cl {
				if ob < 0 || u < 0 {
					row[w] = int(it.zeros)
				} else {
					row[w] = int(ob + u*ss)
				}
			}
		}
	}
	// On to the next position.
	if it.o[last]++; it.o[last] < im.outSp[last] {
		return inside, base
	}
	it.o[last], it.rowDone = 0, false
	if !nextIndex(it.o[:last], im.outSp[:last]) {
		it.batch++
	}
	return inside, base
}

// convolveDepthwiseMult computes the m x oc canonical output c of a convolution with one input feature
// per group and several output features per group, as convolveDepthwise's chains, in Go.
func (e *evaluator) convolveDepthwiseMult(im *im2col, kern []float32, c []float32, m, oc int64) {
	inF := im.inF
	mult := oc / inF // output features per group
	winN := product(im.winDims)
	ns := len(im.outSp)
	zeros := int64(len(im.src) / im.es)
	buf := getFloat32s(int(zeros + inF))
	defer putFloat32s(buf)
	src := (*buf)[:zeros+inF]
	parallelFor(e.threads, int(zeros), elementwiseGrain, func(lo, hi int) {
		decodeFloat32Into(im.typ, src[lo:hi], im.src[lo*im.es:hi*im.es])
	})
	clear(src[zeros:])
	parallelFor(e.threads, int(m), int(max(1, elementwiseGrain/max(winN*oc, 1))), func(lo, hi int) {
		o := make([]int64, ns)
		widx := make([]int64, ns)
		for r := int64(lo); r < int64(hi); r++ {
			rem := r
			for i := ns - 1; i >= 0; i-- {
				o[i] = rem % im.outSp[i]
				rem /= im.outSp[i]
			}
			base := rem * im.batchSize
			acc := c[r*oc : (r+1)*oc]
			clear(acc)
			clear(widx)
			for w := int64(0); w < winN; w++ {
				off := base
				for i := 0; i < ns; i++ {
					u := im.coords[i][o[i]*im.winDims[i]+widx[i]]
					if u < 0 {
						off = zeros
						break
					}
					off += u * im.spStride[i]
				}
				nextIndex(widx, im.winDims)
				x, kw := src[off:off+inF], kern[w*oc:(w+1)*oc]
				for j := int64(0); j < mult; j++ {
					// Output feature g*mult+j, for every g.
					for g, xg := range x {
						z := int64(g)*mult + j
						acc[z] = gemm.FMA32(xg, kw[z], acc[z])
					}
				}
			}
		}
	})
}

// float32Pool holds scratch arrays between instructions (*[]float32), so that each does not fault in
// fresh memory.
var float32Pool sync.Pool

// getFloat32s returns a pooled scratch array of at least n elements, not initialised.
func getFloat32s(n int) *[]float32 {
	p, _ := float32Pool.Get().(*[]float32)
	if p == nil || cap(*p) < n {
		b := make([]float32, n)
		return &b
	}
	*p = (*p)[:n]
	return p
}

func putFloat32s(p *[]float32) { float32Pool.Put(p) }

// im2col lays out the windows of a convolution's output positions as the rows of a matrix: row r is
// output position r of the canonical output [batch, spatial...], its columns the window's positions in
// row-major order, each holding the input features of one group, zeros where the position lies on
// padding or between the elements of a dilated input.
type im2col struct {
	src        []byte // the canonical input [batch, spatial..., feature]
	typ        dtype.Type
	es         int
	batchGroup int64 // input batches per batch group
	batchSize  int64 // elements per input batch
	inF        int64 // input features
	inGroup    int64 // input features of a feature group
	spStride   []int64
	outSp      []int64 // output spatial sizes
	winDims    []int64
	coords     [][]int64 // per spatial dimension i: coords[i][o*winDims[i]+w], the input coordinate or -1
	rows, k    int64
	g          *convGeom
}

func newIm2col(g *convGeom, lc *tensor.Tensor) *im2col {
	dn := g.dn
	ns := len(dn.InputSpatial)
	im := &im2col{src: lc.Data, typ: lc.Type, es: lc.Type.ByteSize(), g: g}
	im.inF = lc.Shape[ns+1]
	im.inGroup = im.inF / g.fgc
	im.batchGroup = lc.Shape[0] / g.bgc
	strides := rowMajorStrides(lc.Shape)
	im.batchSize = strides[0]
	im.spStride = strides[1 : ns+1]
	im.outSp = make([]int64, ns)
	im.winDims = make([]int64, ns)
	im.coords = make([][]int64, ns)
	im.rows = g.out[dn.OutputBatch]
	for i := 0; i < ns; i++ {
		im.outSp[i] = g.out[dn.OutputSpatial[i]]
		im.winDims[i] = g.rhs[dn.KernelSpatial[i]]
		im.rows *= im.outSp[i]
		t := make([]int64, im.outSp[i]*im.winDims[i])
		for o := int64(0); o < im.outSp[i]; o++ {
			for w := int64(0); w < im.winDims[i]; w++ {
				t[o*im.winDims[i]+w] = g.inputCoord(i, o, w)
			}
		}
		im.coords[i] = t
	}
	im.k = product(im.winDims) * im.inGroup
	return im
}

// direct reports whether the input itself is the matrix of windows: a 1x1 window, unit strides, no
// padding or dilation of the input, and the output's spatial sizes the input's.
func (im *im2col) direct() bool {
	g := im.g
	for i, w := range g.win {
		if w.Size != 1 || max(w.Stride, 1) != 1 || w.PadLow != 0 || w.PadHigh != 0 || max(w.BaseDilation, 1) != 1 ||
			im.outSp[i] != g.lhs[g.dn.InputSpatial[i]] {
			return false
		}
	}
	return true
}

// directOffset is the element offset of row 0 of the direct matrix of feature group fg and batch group
// bg; its rows are inF elements apart.
func (im *im2col) directOffset(fg, bg int64) int64 {
	return bg*im.batchGroup*im.batchSize + fg*im.inGroup
}

// fill writes rows [lo, hi) of the panel whose row 0 is output position r0, for feature group fg and
// batch group bg.
func (im *im2col) fill(panel []byte, r0, lo, hi, fg, bg int64) {
	ns := len(im.outSp)
	es := int64(im.es)
	seg := im.inGroup * es
	rowBytes := im.k * es
	o := make([]int64, ns)
	widx := make([]int64, max(ns-1, 0))
	for r := r0 + lo; r < r0+hi; r++ {
		rem := r
		for i := ns - 1; i >= 0; i-- {
			o[i] = rem % im.outSp[i]
			rem /= im.outSp[i]
		}
		base := (rem+bg*im.batchGroup)*im.batchSize + fg*im.inGroup
		dst := panel[(r-r0)*rowBytes : (r-r0+1)*rowBytes]
		if ns == 0 {
			copy(dst, im.src[base*es:base*es+seg])
			continue
		}
		last := ns - 1
		wl := im.winDims[last]
		cl := im.coords[last][o[last]*wl : (o[last]+1)*wl]
		ssl := im.spStride[last]
		// Consecutive positions of the last dimension read consecutive input elements when a position's
		// features are all of the input's.
		merge := im.inGroup == im.inF
		for i := range widx {
			widx[i] = 0
		}
		pos := int64(0)
		for {
			off, valid := base, true
			for i := 0; i < last; i++ {
				u := im.coords[i][o[i]*im.winDims[i]+widx[i]]
				if u < 0 {
					valid = false
					break
				}
				off += u * im.spStride[i]
			}
			if !valid {
				clear(dst[pos : pos+wl*seg])
				pos += wl * seg
			} else {
				for w := int64(0); w < wl; {
					u := cl[w]
					if u < 0 {
						clear(dst[pos : pos+seg])
						pos += seg
						w++
						continue
					}
					n := int64(1)
					if merge {
						for w+n < wl && cl[w+n] == u+n {
							n++
						}
					}
					start := (off + u*ssl) * es
					copy(dst[pos:pos+n*seg], im.src[start:start+n*seg])
					pos += n * seg
					w += n
				}
			}
			if last == 0 || !nextIndex(widx, im.winDims[:last]) {
				break
			}
		}
	}
}

// reverseTensor returns x with the given dimensions reversed.
func reverseTensor(x *tensor.Tensor, dims []int64) *tensor.Tensor {
	xs := rowMajorStrides(x.Shape)
	src := append([]int64(nil), xs...)
	var base int64
	for _, d := range dims {
		if x.Shape[d] > 0 {
			base += (x.Shape[d] - 1) * xs[d]
		}
		src[d] = -xs[d]
	}
	r := tensor.New(x.Type, x.Shape)
	copyRegion(r.Data, 0, xs, x.Data, base, src, x.Shape, x.Type.ByteSize())
	return r
}

package gemm

import (
	"fmt"
	"math"
	"slices"
	"unsafe"

	"octet/dtype"
)

// Products with few rows (the decode steps of inference, a few activations times a large weight) are
// bound by reading B, not by arithmetic. For them B is streamed: read once, in its own narrow type,
// decoded in registers and multiplied at once (or, by the AVX2 kernel for 16 rows, which has too few
// registers for that, and by the AVX-512 ones for 5 to 8 rows and, with VBMI, 9 to 16, decoded a block at
// a time into L1 and multiplied from there), in panels of 64 columns shared among the goroutines, while A
// (small) is packed once for all. A transposed B is laid out a block at a time as panels first
// (streamtrans.go). A weight used by many products can be laid out for this once (PackWeights), so that
// every panel is one contiguous run of memory. Plan (plan.go) says which products stream.

// streamPanel is the width of a panel of B, in elements: a 64-byte line of a byte type per step of k.
const streamPanel = 64

// streamMaxRows is the most rows a streaming kernel multiplies at once; larger products stream in groups
// of that many rows (stream), or run the blocked algorithm (Plan).
const streamMaxRows = 16

// The streaming kernels come in sets (streamSet), one per instruction set, each with kernels for each type
// of B and several row counts. Every one adds to sums it loads from out and stores back, for each of its
// rows r and columns j, a(r, p)*b(p, j) over the steps p of its call in order of p, with fused
// multiply-adds: so a product streamed in blocks of k, whatever the kernel, sums as the blocked kernels do.
// A holds the k steps as groups of the kernel's rows (k-major, rows past the product's zero); B is read
// from b, bstride bytes between consecutive steps. There are two kinds: directStream, whose registers hold
// the sums and B decoded, and bufferedStream, which decodes blocks of B into a buffer in L1 first.

// A streamFunc is an exact direct kernel (stream_amd64.s, stream_avx2_amd64.s): it decodes every code of
// B's type right. k > 0.
type streamFunc func(k int, a *float32, b *byte, bstride int, out *float32)

// A streamQuickFunc is a direct kernel that decodes all but a few codes of B's type in fewer instructions
// (the f8e4m3fn kernels of stream_avx512_fast_amd64.s and stream_avx2_fast_amd64.s, which decode the NaN
// code wrong): where B holds one of those it returns false, out untouched, and the exact kernel runs;
// else it stores its sums and returns true.
type streamQuickFunc func(k int, a *float32, b *byte, bstride int, out *float32) bool

// A streamPFFunc is an exact direct kernel that also prefetches k rows at pf, bstride bytes apart (the
// f8e4m3fn and f8e5m2 kernels of stream_avx512_vbmi_amd64.s, through vbmiStream).
type streamPFFunc func(k int, a *float32, b *byte, bstride int, out *float32, pf *byte)

// A streamDecodeFunc writes k rows of groups (1 or 4) blocks of 16 elements of B, bstride bytes apart, to
// dst as float32: block g at dst + g*streamBlock16*16, 16 floats per row. The quick kind returns false
// where it met a code it decodes wrong (as a streamQuickFunc does).
type (
	streamDecodeFunc      func(k int, b *byte, bstride int, dst *float32, groups int)
	streamDecodeQuickFunc func(k int, b *byte, bstride int, dst *float32, groups int) bool
)

// A streamMulFunc multiplies a k x 16 block of B decoded to float32 (b) by the rows of A, as a streamFunc
// does. The product has rows rows, the rest of A zero: the sums of rows past it, which nobody reads, it may
// leave as they are.
type streamMulFunc func(k int, a *float32, b *float32, out *float32, rows int)

// A streamFusedFunc is a streamDecodeQuickFunc of one block of 16 columns and a streamMulFunc in one pass,
// the decoding done among the multiplications: it returns false, out untouched, where the quick decoding
// does not do.
type streamFusedFunc func(k int, a *float32, b *byte, bstride int, buf *float32, out *float32, rows int) bool

// A streamNextFunc is a streamMulFunc that also decodes drows rows of 64 elements of the next panel of B at
// src (bstride bytes between rows) into dst, as a streamDecodeQuickFunc of 4 groups does, and reports
// whether they held a code it decodes wrong (then they must be decoded again).
type streamNextFunc func(k int, a *float32, b *float32, out *float32, rows int, src *byte, bstride int, drows int, dst *float32) (nan bool)

// A streamKernel is one streaming kernel of a set: a directStream, a bufferedStream, or blockedStream
// where a kernel has none.
type streamKernel interface {
	// tile returns the rows of A the kernel multiplies at once and the columns of B that each block of
	// its sums covers: out holds 64/cols blocks of rows x cols sums, row-major.
	tile() (rows, cols int)
	// block returns the most steps of k one call takes.
	block() int
	// scalesA reports whether the kernel has decodings that read A scaled by 2^8 (scaleStreamA).
	scalesA() bool
	// panel adds to out (64/cols blocks of rows x cols) the product of k <= block() steps of a and the 64
	// columns of B at b (bstride bytes between rows, size bytes an element), with buf (streamBlock16*64
	// floats) for B decoded. as, when not nil, is a scaled by 2^8 (scaleStreamA), for the scaled
	// decodings. The product has m <= rows rows: the sums of the rows past m may be left as they are.
	// next, when not nil, is where the same steps of k of the panel multiplied next begin (bstride bytes
	// between rows there too), for the kernels that fetch it ahead.
	panel(k int, a, as *float32, b *byte, bstride, size int, out []float32, buf []float32, m int, next *byte)
}

// streamScaleLimit is the bits of 2^120: a float32 below it in magnitude times 2^8 is finite, and exact
// (a subnormal gains bits, none is lost).
const streamScaleLimit = 0x7b800000

// scaleStreamA sets dst to src times 2^8 and reports whether that is exact: false (dst unspecified) where
// src holds a value of magnitude 2^120 or more, an infinity or a NaN.
func scaleStreamA(dst, src []float32) bool {
	dst = dst[:len(src)]
	for i, v := range src {
		if math.Float32bits(v)&0x7fffffff >= streamScaleLimit {
			return false
		}
		dst[i] = v * 0x1p8
	}
	return true
}

// A directStream keeps its sums and the elements of B it decodes in registers, each element decoded once
// for all its rows (1, 4, 8 or 16).
type directStream struct {
	rows, cols int
	exact      streamFunc
	quick      streamQuickFunc // tried first; nil for none
	pf         streamPFFunc    // run instead of both where not nil
	// sums, where not nil, is where in each row of its sums the kernel keeps the sum of each column of the
	// panel (cols is 64), from call to call; nil where they are in order.
	sums *[streamPanel]uint8
}

// sumBases returns where sk keeps the sum of row 0 of each column j of a panel in out: row i's is cols
// (of sk's tile) further on.
func sumBases(sk streamKernel) [streamPanel]int {
	rows, cols := sk.tile()
	var sums *[streamPanel]uint8
	switch sk := sk.(type) {
	case *directStream:
		sums = sk.sums
	case *bufferedStream:
		sums = sk.sums
	}
	return sumPositions(rows, cols, sums)
}

// sumPositions returns where a kernel whose sums are blocks of rows x cols, row-major, one block after
// another, keeps the sum of row 0 of each column j of a run of 64 columns: at position order[j] among
// the run's (j where order is nil), in block at/cols, column at%cols of it. Row i's is cols further on.
func sumPositions(rows, cols int, order *[streamPanel]uint8) (base [streamPanel]int) {
	for j := range base {
		at := j
		if order != nil {
			at = int(order[j])
		}
		base[j] = at/cols*rows*cols + at%cols
	}
	return base
}

func (d *directStream) tile() (rows, cols int) { return d.rows, d.cols }
func (d *directStream) block() int             { return streamBlock }
func (d *directStream) scalesA() bool          { return false }

func (d *directStream) panel(k int, a, as *float32, b *byte, bstride, size int, out []float32, buf []float32, m int, next *byte) {
	if d.pf != nil && d.cols == streamPanel {
		if next == nil {
			next = b
		}
		d.pf(k, a, b, bstride, &out[0], next)
		return
	}
	for q := 0; q < streamPanel; q += d.cols {
		bq := (*byte)(unsafe.Add(unsafe.Pointer(b), q*size))
		if d.quick == nil || !d.quick(k, a, bq, bstride, &out[q*d.rows]) {
			d.exact(k, a, bq, bstride, &out[q*d.rows])
		}
	}
}

// A bufferedStream is for 8 or 16 rows where the registers cannot hold their sums and B decoded, or where
// decoding B apart is cheaper (the AVX2 kernels for 9 to 16 rows, the AVX-512 ones for 5 to 8, and with
// VBMI for 9 to 16): a block of B is decoded once into a float32 buffer in L1 and multiplied by every row
// from there. B is decoded exactly, or quickly by one of two decodings, each of whose functions is
// optional and reports the codes it decodes wrong, for the exact decoding to redo the block; or, where pf
// is set, a whole panel at a time by pf.
type bufferedStream struct {
	exact streamDecodeFunc // nil where pf decodes
	mul   streamMulFunc
	// plain decodes B as it is; scaled decodes B times 2^-8 for A times 2^8 (scaleStreamA), which saves
	// the f8e4m3fn decoding through half precision its multiplication by 2^8: the products,
	// (a*2^8)*(b*2^-8) = a*b exactly, are the same. Where A cannot be scaled exactly, plain runs.
	plain, scaled blockDecoding
	// pf, where not nil, decodes whole panels (4 groups, packed ones included) in place of the others, and
	// fetches the same rows of the panel at next ahead, for the next call: a packed panel's block of k
	// is a few pages away from the one before, which the prefetchers would fetch only as it is decoded.
	pf func(k int, b *byte, bstride int, dst *float32, next *byte)
	// rows is the rows mul multiplies, 0 for streamMaxRows (only a kernel with pf has fewer).
	rows int
	// sums, where not nil, says which column of the panel each position of the buffer holds: position
	// 16g+i, column i of block g, holds the column j with sums[j] = 16g+i (the order of the byte lookups,
	// vbmiSums). The sums come out in that order too.
	sums *[streamPanel]uint8
}

// A blockDecoding is one way for a bufferedStream to decode B quickly.
type blockDecoding struct {
	// quick decodes groups of blocks of 16 columns into the buffer.
	quick streamDecodeQuickFunc
	// fused decodes one block of 16 columns of a packed B while it multiplies it by the first rows.
	fused streamFusedFunc
	// next multiplies the block before while it decodes the next panel of B, a row of 64 columns every
	// eight steps of k (the pipeline of a goroutine's panels; see pipeline).
	next streamNextFunc
}

func (s *bufferedStream) tile() (rows, cols int) {
	if s.rows != 0 {
		return s.rows, 16
	}
	return streamMaxRows, 16
}
func (s *bufferedStream) block() int {
	if s.pf != nil {
		return streamBlock // decoded 64 steps at a time (panel)
	}
	return streamBlock16
}

func (s *bufferedStream) scalesA() bool {
	return s.scaled.quick != nil || s.scaled.fused != nil || s.scaled.next != nil
}

func (s *bufferedStream) panel(k int, a, as *float32, b *byte, bstride, size int, out []float32, buf []float32, m int, next *byte) {
	rows, _ := s.tile()
	if s.pf != nil {
		// Whole panels, 64 steps of k at a time: 16 KiB decoded leave L1 room for the block of A and
		// the rows fetched ahead (the next steps', or those of the panel at next after the last). A
		// transposed B comes in blocks of up to 256 steps, which its transposition reads faster than
		// shorter ones (with 64, and 128, 16 rows by a 4096 x 4096 f8e4m3fn B stored N x K ran 5-10%
		// slower on Sapphire Rapids).
		for p := 0; p < k; p += streamBlockPacked {
			kn := min(streamBlockPacked, k-p)
			bp := unsafe.Add(unsafe.Pointer(b), p*bstride)
			ahead := next
			if p+kn < k {
				ahead = (*byte)(unsafe.Add(bp, kn*bstride))
			} else if ahead == nil {
				ahead = (*byte)(bp)
			}
			s.pf(kn, (*byte)(bp), bstride, &buf[0], ahead)
			ap := (*float32)(unsafe.Add(unsafe.Pointer(a), p*rows*4))
			for g := 0; g < 4; g++ {
				s.mul(kn, ap, &buf[g*streamBlock16*16], &out[16*g*rows], m)
			}
		}
		return
	}
	// A packed panel is decoded 16 columns at a time, which stay in L1 while all the rows use them; the
	// rows of a row-major B, each in a page of its own, are decoded whole, so that each page is visited
	// once.
	groups := 1
	if bstride != streamPanel*size {
		groups = streamPanel / 16
	}
	for q := 0; q < streamPanel; q += 16 * groups {
		bq := (*byte)(unsafe.Add(unsafe.Pointer(b), q*size))
		if groups == 1 {
			if as != nil && s.scaled.fused != nil && s.scaled.fused(k, as, bq, bstride, &buf[0], &out[q*rows], m) {
				continue
			}
			if s.plain.fused != nil && s.plain.fused(k, a, bq, bstride, &buf[0], &out[q*rows], m) {
				continue
			}
		}
		ag := a
		switch {
		case as != nil && s.scaled.quick != nil && s.scaled.quick(k, bq, bstride, &buf[0], groups):
			ag = as
		case s.plain.quick == nil || !s.plain.quick(k, bq, bstride, &buf[0], groups):
			s.exact(k, bq, bstride, &buf[0], groups)
		}
		for g := 0; g < groups; g++ {
			s.mul(k, ag, &buf[g*streamBlock16*16], &out[(q+16*g)*rows], m)
		}
	}
}

// pipelines reports whether s pipelines the panels, for A scaled by 2^8 where scaledA is set: whether the
// decoding pipeline takes has a next function.
func (s *bufferedStream) pipelines(scaledA bool) bool {
	return scaledA && s.scaled.next != nil || s.plain.next != nil
}

// pipeline adds to acc the products of steps [kb, kb+k) of a (as: scaled by 2^8, or nil) and of every
// panel of sw, as panel does, each panel decoded while the one before is multiplied (the next function of
// the scaled decoding where as is set and it has one, else of the plain one), the first alone. Where a
// panel holds a code the quick decoding gets wrong, it is decoded again exactly and multiplied by the
// unscaled A: the sums are the same bits either way.
func (s *bufferedStream) pipeline(k int, a, as *float32, sw *streamWork, kb int, acc []float32, m int) {
	const n = streamBlock16 * streamPanel
	const rows = streamMaxRows
	d, scaledDec := s.plain, false
	if as != nil && s.scaled.next != nil {
		d, scaledDec = s.scaled, true
	}
	cur, next := sw.dec[:n], sw.dec[n:2*n]
	size := rows * streamPanel
	src := func(i int) (*byte, int) {
		ref := sw.panels[i]
		return (*byte)(unsafe.Add(unsafe.Pointer(ref.ptr), kb*ref.bstride)), ref.bstride
	}
	// The A that goes with a decoding: the scaled one for a scaled decoding that went through.
	decoded := func(nan bool) *float32 {
		if scaledDec && !nan {
			return as
		}
		return a
	}
	b0, bs0 := src(0)
	ok := d.quick != nil && d.quick(k, b0, bs0, &cur[0], 4)
	if !ok {
		s.exact(k, b0, bs0, &cur[0], 4)
	}
	curA := decoded(!ok)
	q := (k + 3) / 4 // rows of the next panel decoded per block of 16 columns multiplied
	for i := range sw.panels {
		out := acc[i*size : (i+1)*size]
		if i+1 == len(sw.panels) {
			for g := 0; g < 4; g++ {
				s.mul(k, curA, &cur[g*streamBlock16*16], &out[16*g*rows], m)
			}
			break
		}
		nb, nbs := src(i + 1)
		nan := false
		for g := 0; g < 4; g++ {
			r0, r1 := min(g*q, k), min((g+1)*q, k)
			rb := nb
			if r1 > r0 {
				rb = (*byte)(unsafe.Add(unsafe.Pointer(nb), r0*nbs))
			}
			if d.next(k, curA, &cur[g*streamBlock16*16], &out[16*g*rows], m, rb, nbs, r1-r0, &next[r0*16]) {
				nan = true
			}
		}
		if nan {
			s.exact(k, nb, nbs, &next[0], 4)
		}
		cur, next = next, cur
		curA = decoded(nan)
	}
}

// blockedStream is the tile of the products streamed on a kernel without streaming kernels: the blocked
// algorithm, panel by panel (streamPanels).
type blockedStream struct{}

func (blockedStream) tile() (rows, cols int) { return streamMaxRows, streamPanel }
func (blockedStream) block() int             { return 0 }
func (blockedStream) scalesA() bool          { return false }
func (blockedStream) panel(k int, a, as *float32, b *byte, bstride, size int, out []float32, buf []float32, m int, next *byte) {
	panic("gemm: no streaming kernel")
}

// A streamSet is the streaming kernels of one instruction set.
type streamSet struct {
	name    string                        // "stream-avx512", "stream-avx2", "stream-go"
	kernels map[dtype.Type][]streamKernel // by element type of B, fewest rows first
	// transpose lays out blocks of a transposed B as panels for the kernels, bytes and words (bf16),
	// with the set's instructions; nil for Go alone (see transposePanel).
	transpose map[int]panelTransposer // by element size
}

// streamFor returns the streaming kernel of kern for m rows of B's type t: the smallest that covers m rows,
// else the largest (run on groups of rows), and false when kern has none for t.
func (k *Kernel) streamFor(t dtype.Type, m int) (streamKernel, bool) {
	if k.streams == nil || len(k.streams.kernels[t]) == 0 {
		return blockedStream{}, false
	}
	set := k.streams.kernels[t]
	for _, sk := range set {
		if rows, _ := sk.tile(); rows >= m {
			return sk, true
		}
	}
	return set[len(set)-1], true
}

// Weights is a K x N matrix B for products with few rows (MatMulWeights), with an optional scale per
// column (per output channel): laid out once by PackWeights in its own element type, in panels of 64
// columns, each one contiguous run of memory, or read where it lies (WeightsOf). It is read by any number
// of concurrent products.
type Weights struct {
	typ        dtype.Type
	rows, cols int
	data       []byte    // ceil(cols/64) panels of rows x 64 elements, zero past the last column; nil for WeightsOf
	scale      []float32 // one per column, or nil
	src        streamSource
}

// weightTypes are the element types PackWeights accepts.
var weightTypes = [...]dtype.Type{dtype.F8E4M3FN, dtype.F8E5M2, dtype.S8, dtype.BF16}

// WeightTypes returns the element types PackWeights accepts: FP8 (f8e4m3fn, f8e5m2), s8 (int8
// weight-only, with a scale per column) and bf16.
func WeightTypes() []dtype.Type { return append([]dtype.Type(nil), weightTypes[:]...) }

// PackWeights returns b laid out for MatMulWeights, with scale[j] multiplying column j of every product
// (nil: no scale). It panics, as MatMul does on a malformed operand, when b's type is not one of
// WeightTypes(), when b does not fit its data, or when scale is neither nil nor one per column.
func PackWeights(b Typed, scale []float32) *Weights {
	w := newWeights("PackWeights", b, scale)
	v := b.view("B")
	size := v.size
	panels := (b.Cols + streamPanel - 1) / streamPanel
	w.data = make([]byte, panels*b.Rows*streamPanel*size)
	// Each panel laid out in place, a transposed B by the transposers of the streaming kernels, the panels
	// shared among the goroutines.
	set := current().streams
	if set == nil {
		set = streamsGo
	}
	src := sourceOf(&v, nil)
	n := b.Rows * streamPanel * size
	parallelRange(Threads(), panels, func(p0, p1 int) {
		rows := new([streamPanel]*byte)
		for p := p0; p < p1; p++ {
			dst := w.data[p*n : (p+1)*n]
			src.layout(set, p, &dst, rows)
		}
	})
	w.src = streamSource{typ: w.typ, size: size, k: w.rows, n: w.cols, data: w.data, packed: true, scale: w.scale}
	return w
}

// WeightsOf returns b as weights for MatMulWeights as it lies, without laying it out again: the products
// stream it from its own memory, row-major or transposed, as MatMulTyped does, with scale[j] multiplying
// column j (nil: no scale). The weights hold b's data, which must not change while they are in use. It
// panics as PackWeights does.
func WeightsOf(b Typed, scale []float32) *Weights {
	w := newWeights("WeightsOf", b, scale)
	v := b.view("B")
	w.src = sourceOf(&v, w.scale)
	return w
}

// newWeights returns the Weights of b's type and shape with a copy of scale (nil for none), for the
// function fn, which panics as PackWeights says where b's type or the number of scales is wrong.
func newWeights(fn string, b Typed, scale []float32) *Weights {
	if !slices.Contains(weightTypes[:], b.Type) {
		panic("gemm: " + fn + ": element type " + b.Type.String() + " is not one of f8e4m3fn, f8e5m2, s8, bf16")
	}
	if scale != nil && len(scale) != b.Cols {
		panic(fmt.Sprintf("gemm: %s: %d scales for %d columns", fn, len(scale), b.Cols))
	}
	return &Weights{typ: b.Type, rows: b.Rows, cols: b.Cols, scale: append([]float32(nil), scale...)}
}

// Bytes returns the memory w holds of its own: its panels and scales (none of the data of WeightsOf's B).
func (w *Weights) Bytes() int64 { return int64(len(w.data)) + 4*int64(len(w.scale)) }

// PackedBytes returns the bytes PackWeights lays out for a K x N weight of type t: its columns padded to
// a whole number of panels of 64.
func PackedBytes(t dtype.Type, k, n int) int64 {
	return int64(k) * int64((n+streamPanel-1)/streamPanel*streamPanel) * int64(t.ByteSize())
}

// Rows and Cols return the shape of w: K x N.
func (w *Weights) Rows() int { return w.rows }
func (w *Weights) Cols() int { return w.cols }

// Type returns the element type of w.
func (w *Weights) Type() dtype.Type { return w.typ }

// MatMulWeights computes C = alpha*(A*B)*diag(scale) + beta*C for the weights w = PackWeights(B, scale)
// (or WeightsOf): A is M x K of any type MatMulTyped takes (f32 or bf16 activations, typically), decoded to
// float32 while packing; every product is accumulated in float32, in order of k, and scaled once at the
// end. Any M works, streamed in groups of 16 rows; a few groups are what it is for. C is not read when
// beta == 0, and A and B are not read when alpha == 0 or K == 0, as with MatMul. It panics, like MatMul,
// on mismatched shapes.
func MatMulWeights(c Matrix, a Typed, w *Weights, alpha, beta float32) {
	checkShapes(c, Matrix{Rows: a.Rows, Cols: a.Cols}, Matrix{Rows: w.rows, Cols: w.cols})
	c.check("C", 0, len(c.Data))
	av := a.view("A")
	cv := c.view()
	if cv.rows == 0 || cv.cols == 0 {
		return
	}
	if alpha == 0 || w.rows == 0 {
		scale(cv, beta)
		return
	}
	stream(current(), Threads(), cv, av, &w.src, alpha, beta)
}

// streams reports whether kern has streaming kernels for a B like b (of a narrow type they decode, stored
// either way).
func streams(kern *Kernel, b *view) bool {
	return b.f32 == nil && kern.streams != nil && kern.streams.kernels[b.typ] != nil
}

// A streamSource is B as the streaming code reads it: packed panels (Weights), a row-major matrix whose
// panels are column ranges of its rows, or a transposed one (B^T stored row-major, N x K), whose panels are
// blocks of its rows laid out as packed ones a block of k at a time (transposePanel).
type streamSource struct {
	typ    dtype.Type
	size   int
	k, n   int
	data   []byte
	packed bool
	trans  bool      // B^T stored row-major, when not packed
	stride int       // elements between stored rows, when not packed
	scale  []float32 // per column, or nil
}

// sourceOf returns the stream source that reads b (of a narrow type) where it lies, with scale[j]
// multiplying column j (nil: none).
func sourceOf(b *view, scale []float32) streamSource {
	return streamSource{typ: b.typ, size: b.size, k: b.rows, n: b.cols, data: b.raw, trans: b.trans, stride: b.stride, scale: scale}
}

// panel returns the k x cols block of columns [p*64, p*64+cols) of s as the view the blocked algorithm
// reads, and as the pointer and row stride (in bytes) a streaming kernel reads: for the last panel of a
// row-major B narrower than 64 columns, a zero-padded copy made in buf. For a transposed B it returns the
// view alone (ptr nil): the kernels read the blocks transposePanel lays out.
func (s *streamSource) panel(p int, buf *[]byte) (v view, ptr *byte, bstride int) {
	j0 := p * streamPanel
	cols := min(streamPanel, s.n-j0)
	v = view{typ: s.typ, size: s.size, table: dtype.DecodeTable(s.typ), rows: s.k, cols: cols}
	if s.trans {
		// Read through the view alone (blockedStream); the kernels read transposePanel's blocks.
		v.raw, v.stride, v.trans = s.data[j0*s.stride*s.size:], s.stride, true
		return v, nil, 0
	}
	if s.packed {
		v.raw = s.data[p*s.k*streamPanel*s.size : (p+1)*s.k*streamPanel*s.size]
		v.stride = streamPanel
		return v, &v.raw[0], streamPanel * s.size
	}
	v.raw = s.data[j0*s.size:]
	v.stride = s.stride
	if cols == streamPanel {
		return v, &v.raw[0], s.stride * s.size
	}
	// The kernel reads 64 columns: copy the ragged panel, padded with zeros.
	n := s.k * streamPanel * s.size
	if len(*buf) < n {
		*buf = make([]byte, n)
	}
	b := (*buf)[:n]
	for k := 0; k < s.k; k++ {
		row := b[k*streamPanel*s.size : (k+1)*streamPanel*s.size]
		clear(row[copy(row, v.raw[k*s.stride*s.size:k*s.stride*s.size+cols*s.size]):])
	}
	return v, &b[0], streamPanel * s.size
}

// layout returns where the streaming kernels read panel p of s whole, and the bytes between its rows:
// where it lies if s is packed, else laid out in buf (k rows of 64 elements, zero past the last column),
// copied from a row-major B or transposed (with set's transposers) from a transposed one.
func (s *streamSource) layout(set *streamSet, p int, buf *[]byte, rows *[streamPanel]*byte) (ptr *byte, bstride int) {
	if s.packed {
		_, ptr, bstride = s.panel(p, nil)
		return ptr, bstride
	}
	size := s.size
	n := s.k * streamPanel * size
	if n == 0 {
		return nil, streamPanel * size
	}
	if len(*buf) < n {
		*buf = alignedBytes(n)
	}
	dst := (*buf)[:n]
	if s.trans {
		for kb := 0; kb < s.k; kb += streamBlock {
			s.transposePanel(set, dst[kb*streamPanel*size:], p, kb, min(streamBlock, s.k-kb), rows)
		}
		return &dst[0], streamPanel * size
	}
	j0 := p * streamPanel
	cols := min(streamPanel, s.n-j0)
	for k := 0; k < s.k; k++ {
		row := dst[k*streamPanel*size : (k+1)*streamPanel*size]
		clear(row[copy(row, s.data[(k*s.stride+j0)*size:(k*s.stride+j0+cols)*size]):])
	}
	return &dst[0], streamPanel * size
}

// A streamGroup is a group of rows of A as a streaming kernel multiplies them: rows [i0, i0+m) of the
// product, packed k-major for sk (its rows of each step of k, those past m zero), and times 2^8 for sk's
// scaled kernels where that is exact (else nil).
type streamGroup struct {
	sk    streamKernel
	i0, m int
	a, as []float32
}

// block returns the steps [kb, kb+kn) of g's rows of A, and of A scaled where it is.
func (g *streamGroup) block(kb int) (a, as *float32) {
	rows, _ := g.sk.tile()
	if g.as != nil {
		as = &g.as[kb*rows]
	}
	return &g.a[kb*rows], as
}

// stream computes C = alpha*(A*B)*diag(scale) + beta*C, B streamed from s, its panels shared among at most
// t goroutines. m, n and k are nonzero. The rows are cut into groups of the largest kernel's rows (16)
// and one of the rest, each multiplied by the kernel of its size (streamPanels says in what order).
func stream(kern *Kernel, t int, c, a view, s *streamSource, alpha, beta float32) {
	m, k := c.rows, a.cols
	ws := workspaces.Get().(*workspace)
	defer workspaces.Put(ws)
	panels := (s.n + streamPanel - 1) / streamPanel
	if float64(m)*float64(s.n)*float64(k) < parallelMin {
		t = 1
	}
	t = min(t, panels)
	var j *job
	groups := ws.groups[:0]
	if t > 1 {
		j = jobs.Get().(*job)
		groups = j.groups[:0]
	}
	// A, packed k-major a group of rows at a time: read by every goroutine; and, for the scaled
	// kernels, A times 2^8 where that is exact.
	size := 0
	for i0 := 0; i0 < m; {
		sk, _ := kern.streamFor(s.typ, m-i0)
		rows, _ := sk.tile()
		g := streamGroup{sk: sk, i0: i0, m: min(rows, m-i0)}
		groups = append(groups, g)
		size += rows * k
		i0 += g.m
	}
	bufA, _, tmp := ws.get(2*size, 0, 16*k)
	off := 0
	for i := range groups {
		g := &groups[i]
		rows, _ := g.sk.tile()
		n := rows * k
		ag := a.sub(g.i0, g.i0+g.m, 0, k)
		kern.isa.packA(bufA[off:off+n], &ag, g.m, k, rows, tmp)
		g.a = bufA[off : off+n]
		if g.sk.scalesA() && scaleStreamA(bufA[size+off:size+off+n], g.a) {
			g.as = bufA[size+off : size+off+n]
		}
		off += n
	}
	if j == nil {
		ws.groups = groups
		streamPanels(kern, c, groups, s, 0, panels, alpha, beta)
		clear(ws.groups)
		return
	}
	j.groups = groups
	j.src = *s
	for i := 0; i < t; i++ {
		j.tasks = append(j.tasks, task{kern: kern, c: c, stream: &j.src, groups: j.groups,
			p0: i * panels / t, p1: (i + 1) * panels / t, alpha: alpha, beta: beta})
	}
	runJob(j, t)
}

// A streamWork is one goroutine's buffers for streaming: the sums of its panels, and a padded copy of a
// ragged panel.
type streamWork struct {
	acc    []float32
	buf    []byte
	dec    []float32          // B decoded, for a kernel with a decode and a mul
	tbuf   []byte             // a block of a transposed B laid out as a panel
	pbuf   []byte             // a whole panel of B laid out, for products of several groups of rows
	rows   [streamPanel]*byte // the rows of a transposed B a transposer reads
	panels []streamPanelRef
}

// A streamPanelRef is where a kernel reads one panel: its first element and the bytes between rows.
type streamPanelRef struct {
	ptr     *byte
	bstride int
}

// streamBlock is how many steps of k the streaming kernels take through one panel before moving to the
// next: the goroutine's panels are read a block of rows at a time, row after row of memory, which the
// prefetchers follow and the TLB holds, and the block of A stays in L1.
const streamBlock = 256

// streamBlock16 is streamBlock for the decode and mul kernels: the block of A (16 rows), the block of B
// decoded and the lines of B it was decoded from (8 KiB each) share L1. (With 256 steps, 16 KiB each,
// they did not: 10% slower.)
const streamBlock16 = 128

// streamBlockRows is the block of k for a row-major B (not packed), whose rows lie pages apart: the
// kernels read a line of each of this many rows before the next line of the first. With the whole block of
// 256 steps they read one line of each of 256 pages in turn, which no prefetcher follows: a product of
// one row by a 4096 x 4096 s8 B ran several times slower than with 16, as fast as from packed panels, on
// Sapphire Rapids.
const streamBlockRows = 16

// streamBlockPacked is the block of k for packed panels: a page of each panel of a goroutine in turn.
// Whole blocks of 256 steps (4 pages of each panel) ran 5-40% slower on Sapphire Rapids (one row by a
// 4096 x 4096 f8e4m3fn B packed, medians of 21: 1.8-2.2 ms against 1.5-1.6).
const streamBlockPacked = 64

// streamPanels multiplies panels [p0, p1) of s by each group of rows of A and stores the products into
// c. A row-major B is read where it lies, by each group in turn (its rows are read a line at a time, which
// the prefetchers follow, so that reading it again costs less than laying it out); a transposed B is laid
// out a panel at a time, at once for all the groups (each block of k of it in L1 where there is one
// group, each panel whole in L2 where there are several, for them all); a packed B is multiplied by the
// groups a panel at a time, while it is in L2.
func streamPanels(kern *Kernel, c view, groups []streamGroup, s *streamSource, p0, p1 int, alpha, beta float32) {
	ws := workspaces.Get().(*workspace)
	defer workspaces.Put(ws)
	if ws.stream == nil {
		ws.stream = new(streamWork)
	}
	sw := ws.stream
	// The sums of a panel of each group: 64/cols blocks of rows x cols.
	size := 0
	for _, g := range groups {
		rows, _ := g.sk.tile()
		size = max(size, rows*streamPanel)
	}
	if _, ok := groups[0].sk.(blockedStream); ok {
		// No streaming kernel: the blocked algorithm on each panel, with A as packed (k-major, R
		// rows: a transposed view).
		if len(sw.acc) < size {
			sw.acc = alignedFloats(size)
		}
		for _, g := range groups {
			rows, _ := g.sk.tile()
			av := view{f32: g.a, rows: g.m, cols: s.k, stride: rows, trans: true}
			for p := p0; p < p1; p++ {
				v, _, _ := s.panel(p, &sw.buf)
				ov := view{f32: sw.acc, rows: g.m, cols: v.cols, stride: streamPanel}
				serial(kern.forTypes(dtype.F32, s.typ), ws, ov, av, v, 1, 0, nil, 0, 0)
				storePanels(c.sub(g.i0, g.i0+g.m, 0, c.cols), sw.acc, s, g.sk, p, p+1, alpha, beta)
			}
		}
		return
	}
	if len(sw.dec) < 2*streamBlock16*streamPanel {
		sw.dec = alignedFloats(2 * streamBlock16 * streamPanel)
	}
	if len(groups) == 1 || !s.trans && !s.packed {
		for i := range groups {
			streamGroupPanels(kern, sw, c, &groups[i], s, p0, p1, alpha, beta)
		}
		return
	}
	if len(sw.acc) < size {
		sw.acc = alignedFloats(size)
	}
	for p := p0; p < p1; p++ {
		ptr, bstride := s.layout(kern.streams, p, &sw.pbuf, &sw.rows)
		for i := range groups {
			g := &groups[i]
			rows, _ := g.sk.tile()
			out := sw.acc[:rows*streamPanel]
			clear(out)
			block := g.sk.block()
			for kb := 0; kb < s.k; kb += block {
				a, as := g.block(kb)
				b := (*byte)(unsafe.Add(unsafe.Pointer(ptr), kb*bstride))
				g.sk.panel(min(block, s.k-kb), a, as, b, bstride, s.size, out, sw.dec, g.m, nil)
			}
			storePanels(c.sub(g.i0, g.i0+g.m, 0, c.cols), out, s, g.sk, p, p+1, alpha, beta)
		}
	}
}

// streamGroupPanels multiplies panels [p0, p1) of s, block of k after block of k, by the rows of one
// group of A and stores the products into c.
func streamGroupPanels(kern *Kernel, sw *streamWork, c view, g *streamGroup, s *streamSource, p0, p1 int, alpha, beta float32) {
	k, m, sk := s.k, g.m, g.sk
	rows, _ := sk.tile()
	size := rows * streamPanel
	if len(sw.acc) < (p1-p0)*size {
		sw.acc = alignedFloats((p1 - p0) * size)
	}
	acc := sw.acc[:(p1-p0)*size]
	clear(acc)
	c = c.sub(g.i0, g.i0+m, 0, c.cols)
	block := sk.block()
	if s.trans {
		// Each panel's block of k is laid out by transposePanel in tbuf, and read from there, panel after
		// panel, so that the 64 rows of B^T one panel reads are read through, a block at a time, before
		// the next 64.
		if n := block * streamPanel * s.size; len(sw.tbuf) < n {
			sw.tbuf = alignedBytes(n)
		}
		for p := p0; p < p1; p++ {
			out := acc[(p-p0)*size : (p-p0+1)*size]
			for kb := 0; kb < k; kb += block {
				kn := min(block, k-kb)
				s.transposePanel(kern.streams, sw.tbuf, p, kb, kn, &sw.rows)
				a, as := g.block(kb)
				sk.panel(kn, a, as, &sw.tbuf[0], streamPanel*s.size, s.size, out, sw.dec, m, nil)
			}
		}
		storePanels(c, acc, s, sk, p0, p1, alpha, beta)
		return
	}
	sw.panels = sw.panels[:0]
	for p := p0; p < p1; p++ {
		_, ptr, bstride := s.panel(p, &sw.buf)
		sw.panels = append(sw.panels, streamPanelRef{ptr, bstride})
	}
	if !s.packed {
		// The rows of a row-major B are pages apart: a short block of k visits a few of them at once, a
		// line after another, which the prefetchers follow.
		block = min(block, streamBlockRows)
	} else {
		block = min(block, streamBlockPacked)
	}
	// B is decoded a panel ahead, within the multiplications of the panel before (on Zen 5, 11-31% faster
	// than decoding each panel before multiplying it, 10-16% faster than decoding a packed B's blocks of 16
	// columns while multiplying them).
	buffered, _ := sk.(*bufferedStream)
	pipelined := buffered != nil && len(sw.panels) > 1 && buffered.pipelines(g.as != nil)
	for kb := 0; kb < k; kb += block {
		kn := min(block, k-kb)
		a, as := g.block(kb)
		if pipelined {
			buffered.pipeline(kn, a, as, sw, kb, acc, m)
			continue
		}
		for i, ref := range sw.panels {
			b := unsafe.Add(unsafe.Pointer(ref.ptr), kb*ref.bstride)
			// The panel after this one, at the same steps of k, or the first at the next steps; a kernel
			// may fetch it ahead (where the panels are packed, each a page apart at a time).
			var next *byte
			switch {
			case !s.packed:
			case i+1 < len(sw.panels):
				next = (*byte)(unsafe.Add(unsafe.Pointer(sw.panels[i+1].ptr), kb*sw.panels[i+1].bstride))
			case kb+kn < k:
				next = (*byte)(unsafe.Add(unsafe.Pointer(sw.panels[0].ptr), (kb+kn)*sw.panels[0].bstride))
			}
			sk.panel(kn, a, as, (*byte)(b), ref.bstride, s.size, acc[i*size:(i+1)*size], sw.dec, m, next)
		}
	}
	storePanels(c, acc, s, sk, p0, p1, alpha, beta)
}

// storePanels sets C = alpha*acc*diag(scale) + beta*C for panels [p0, p1), whose sums acc holds as sk
// leaves them (per panel, 64/cols blocks of rows x cols), rounding as the numerics contract says:
// alpha*S, then times the scale, each rounded, then beta*C added with one rounding.
func storePanels(c view, acc []float32, s *streamSource, sk streamKernel, p0, p1 int, alpha, beta float32) {
	rows, cols := sk.tile()
	size := rows * streamPanel
	base := sumBases(sk)
	for p := p0; p < p1; p++ {
		j0 := p * streamPanel
		n := min(streamPanel, s.n-j0)
		out := acc[(p-p0)*size : (p-p0+1)*size]
		for i := 0; i < c.rows; i++ {
			row := c.f32[i*c.stride+j0 : i*c.stride+j0+n]
			for j := range row {
				v := float32(alpha * out[base[j]+i*cols])
				if s.scale != nil {
					v = float32(v * s.scale[j0+j])
				}
				if beta != 0 {
					v = fma32(beta, row[j], v)
				}
				row[j] = v
			}
		}
	}
}

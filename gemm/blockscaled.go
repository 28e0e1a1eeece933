package gemm

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync"

	"octet/blockscale"
	"octet/dtype"
)

// Block-scaled weights (MXFP4, NVFP4, MXFP8): B in a block-scaled format, packed once (PackBlockScaled)
// and streamed by MatMulBlockScaled for products with few rows, as Weights is for the narrow types. Each
// element of B and each scale is read once, in its own width, from one contiguous panel; the elements are
// decoded and multiplied by their scale in registers.
//
// The value of element (k, j) is its element times its block's scale, rounded once to float32:
// fl(elem(k, j) * scale(k/BlockSize, j/BlockN)). For the formats here that product is exact (a 4-bit
// significand times a power of two or an f8e4m3fn scale, a 4- or 3-bit one times a power of two), except
// where it overflows float32 (an element beyond 1 times an E8M0 scale of 2^127 and the like) and becomes
// an infinity; products below float32's smallest normal are exact subnormals. A NaN scale (E8M0 0xff,
// f8e4m3fn 0x7f and 0xff) makes every value of its block NaN, as does a NaN element. The product then
// follows the numerics contract of the package documentation on these values: each sum the chain of
// fused multiply-adds over k in order, from zero.
//
// Two ways give those sums. The general one multiplies every element by its scale before it is
// multiplied by A. Where the scales are powers of two (E8M0), one row of A can instead be multiplied by
// the elements alone and the sums scaled at each end of a block (per-block scaling): scaling by a power of
// two commutes with every rounding of the chain as long as no value the chain computes, in either scale,
// is subnormal or overflows. blockScaledFast checks that from the exponents of A's values, of the scales
// and of the elements before each product; where it cannot be sure, the general way runs. So the result
// is the same bits either way.

// blockScaledPanel is the width of a panel of block-scaled weights, in columns: a 64-byte line per step
// of k, of 4-bit elements two to a byte or of 8-bit ones.
func blockScaledPanel(elem dtype.Type) int {
	if elem.BitWidth() == 4 {
		return 128
	}
	return 64
}

// BlockScaled is a K x N matrix B in a block-scaled format: element codes, one per byte (in its low bits,
// as package tensor holds them), and scale codes, one for each block of Format.BlockSize consecutive
// elements along K (the contracting dimension) and BlockN along N.
type BlockScaled struct {
	// Format gives the element and scale types, and in BlockSize the length of a block along K. The
	// elements are f4e2m1fn (MXFP4, NVFP4), f8e4m3fn or f8e5m2 (MXFP8), the scales f8e8m0fnu (MX) or
	// f8e4m3fn (NVFP4): BlockScaledFormat. NVFP4's tensor scale is not part of B: pass it as alpha.
	Format blockscale.Format
	// BlockN is how many consecutive columns share a scale; 0 means 1.
	BlockN int
	// Data holds the element codes: K x N row-major, Stride elements between rows, or N x K when Trans.
	Data []byte
	// Scales holds the scale codes of element (k, j) at (k/BlockSize, j/BlockN) of a ceil(K/BlockSize) x
	// ceil(N/BlockN) matrix (or larger: padding is not read), row-major with ScaleStride, or transposed
	// when Trans.
	Scales              []byte
	Rows, Cols          int
	Stride, ScaleStride int
	Trans               bool
}

// BlockScaledFormat reports whether PackBlockScaled takes B of format f (whatever its block size): f4e2m1fn,
// f8e4m3fn or f8e5m2 elements with f8e8m0fnu or f8e4m3fn scales.
func BlockScaledFormat(f blockscale.Format) bool {
	switch f.Elem {
	case dtype.F4E2M1FN, dtype.F8E4M3FN, dtype.F8E5M2:
	default:
		return false
	}
	return f.Scale == dtype.F8E8M0FNU || f.Scale == dtype.F8E4M3FN
}

// BlockScaledWeights is a block-scaled K x N matrix laid out for MatMulBlockScaled: in panels of 128
// columns (4-bit elements, two to a byte) or 64 (8-bit), each one contiguous run of K rows of 64 bytes,
// and beside it the panel's scale codes, one row of them per block of K. It is built once by
// PackBlockScaled and read by any number of concurrent products.
type BlockScaledWeights struct {
	format     blockscale.Format
	rows, cols int
	bk         int // rows of a block of K
	panel      int // columns of a panel
	nb         int // blocks of K
	data       []byte
	scales     []byte
	// What per-block scaling needs (blockScaledFast): whether the weights allow it at all (E8M0 scales,
	// none NaN, no element NaN or infinite), and the least and greatest exponent of the factor it scales
	// the sums by at each block (the scale, times 2^8 for f8e4m3fn elements, which are decoded as 2^-8
	// times their value).
	perBlock   bool
	sMin, sMax int
	// finite is set where no element is NaN or infinite.
	finite bool
	// scalesFinite is set where no scale is NaN.
	scalesFinite bool
}

// blockScaledElem describes the decoding of each element type: in per-block scaling the kernels multiply
// A by u = value * 2^offset; every u is a multiple of 2^quantum and at most umax in magnitude.
type blockScaledElem struct {
	offset, quantum int
	umax            float64
}

var blockScaledElems = map[dtype.Type]blockScaledElem{
	dtype.F4E2M1FN: {0, -1, 6},
	dtype.F8E4M3FN: {-8, -17, 448.0 / 256},
	dtype.F8E5M2:   {0, -16, 57344},
}

// PackBlockScaled returns b laid out for MatMulBlockScaled. It panics, as MatMul does on a malformed
// operand, when b's format is not one BlockScaledFormat accepts, its block sizes are not positive, or its
// data or scales do not cover the matrix.
func PackBlockScaled(b BlockScaled) *BlockScaledWeights {
	f := b.Format
	if !BlockScaledFormat(f) {
		panic("gemm: PackBlockScaled: format " + f.Elem.String() + " with " + f.Scale.String() + " scales is not one of f4e2m1fn, f8e4m3fn, f8e5m2 with f8e8m0fnu or f8e4m3fn scales")
	}
	bn := max(b.BlockN, 1)
	if f.BlockSize <= 0 || b.BlockN < 0 {
		panic(fmt.Sprintf("gemm: PackBlockScaled: blocks of %d x %d", f.BlockSize, b.BlockN))
	}
	k, n := b.Rows, b.Cols
	nb, nsc := (k+f.BlockSize-1)/f.BlockSize, (n+bn-1)/bn
	Matrix{Rows: k, Cols: n, Stride: b.Stride, Trans: b.Trans}.check("B", 0, len(b.Data))
	Matrix{Rows: nb, Cols: nsc, Stride: b.ScaleStride, Trans: b.Trans}.check("B's scales", 0, len(b.Scales))
	w := &BlockScaledWeights{format: f, rows: k, cols: n, bk: f.BlockSize, panel: blockScaledPanel(f.Elem), nb: nb}
	panels := (n + w.panel - 1) / w.panel
	w.data = make([]byte, panels*k*64)
	w.scales = make([]byte, panels*nb*w.panel)
	// Padding columns get the scale 1, so that no kernel multiplies by a NaN or a subnormal there.
	one := byte(127)
	if f.Scale == dtype.F8E4M3FN {
		one = 0x38
	}
	w.scalesFinite = true
	scaleNaN := byte(0xff) // the NaN codes: f8e8m0fnu 0xff, f8e4m3fn 0x7f and 0xff
	if f.Scale == dtype.F8E4M3FN {
		scaleNaN = 0x7f
	}
	w.sMin, w.sMax = math.MaxInt, math.MinInt
	info := blockScaledElems[f.Elem]
	set := current().streams
	if set == nil {
		set = streamsGo
	}
	w.finite = true
	var mu sync.Mutex
	// The panels are laid out apart, shared among the goroutines; each notes what it saw of the
	// elements and scales, and the notes are merged.
	parallelRange(Threads(), panels, func(p0, p1 int) {
		var row [128]byte // the elements of one row of a panel, one a byte
		var tr *blockScaledTransposer
		var seen [256]bool // the scale codes of the matrix's columns
		finite := true
		for p := p0; p < p1; p++ {
			j0 := p * w.panel
			cols := min(w.panel, n-j0)
			dst := w.data[p*k*64 : (p+1)*k*64]
			if b.Trans {
				if tr == nil {
					tr = &blockScaledTransposer{src: streamSource{typ: f.Elem, size: 1, k: k, n: n, data: b.Data, trans: true, stride: b.Stride}}
				}
				tr.panel(set, dst, p, w.panel == 128)
			} else {
				clear(row[:])
				for r := 0; r < k; r++ {
					copy(row[:cols], b.Data[r*b.Stride+j0:])
					blockScaledRow(dst[r*64:(r+1)*64], &row, w.panel == 128)
				}
			}
			finite = finite && !blockScaledHasNaN(f.Elem, dst)
			// The panel's scale codes, a row of them per block of k, read in the order they lie: a
			// transposed matrix of scales a column (its row) at a time.
			sc := w.scales[p*nb*w.panel : (p+1)*nb*w.panel]
			if b.Trans {
				for j := range cols {
					c := (j0 + j) / bn
					for r, s := range b.Scales[c*b.ScaleStride : c*b.ScaleStride+nb] {
						sc[r*w.panel+j] = s
					}
				}
			} else {
				for r := range nb {
					src, dst := b.Scales[r*b.ScaleStride:], sc[r*w.panel:r*w.panel+cols]
					if bn == 1 {
						copy(dst, src[j0:])
						continue
					}
					for j := range dst {
						dst[j] = src[(j0+j)/bn]
					}
				}
			}
			for r := range nb {
				srow := sc[r*w.panel : (r+1)*w.panel]
				for _, s := range srow[:cols] {
					seen[s] = true
				}
				for j := cols; j < w.panel; j++ {
					srow[j] = one
				}
			}
		}
		scalesFinite := !seen[scaleNaN] && !seen[scaleNaN|0x80]
		sMin, sMax := math.MaxInt, math.MinInt
		if f.Scale == dtype.F8E8M0FNU {
			for c, ok := range seen {
				if ok {
					e := c - 127 - info.offset
					sMin, sMax = min(sMin, e), max(sMax, e)
				}
			}
		}
		mu.Lock()
		w.finite = w.finite && finite
		w.scalesFinite = w.scalesFinite && scalesFinite
		w.sMin, w.sMax = min(w.sMin, sMin), max(w.sMax, sMax)
		mu.Unlock()
	})
	// The sums are scaled by 2^e and 2^-e as float32 values, which must be normal (which also rules out
	// the NaN scale, 0xff).
	w.perBlock = f.Scale == dtype.F8E8M0FNU && w.finite && w.scalesFinite && w.sMin >= -126 && w.sMax <= 126
	return w
}

// blockScaledRow lays out one row of a panel: the elements in src (one a byte, zero past the matrix's last
// column) into the 64 bytes of dst, as they are or, for 4-bit elements, two to a byte (column 16p+i is
// nibble p of the little-endian dword i, bytes 4i to 4i+3): byte q of dword i is src[32q+i]'s code with
// src[32q+16+i]'s above it. Eight dwords at a time, in 64-bit words: the four bytes q of dwords i..i+7,
// then those bytes interleaved (spread8, spread16).
func blockScaledRow(dst []byte, src *[128]byte, four bool) {
	if !four {
		copy(dst[:64], src[:64])
		return
	}
	dst = dst[:64]
	const low = 0x0f0f0f0f0f0f0f0f
	for h := 0; h < 2; h++ {
		var v [4]uint64 // v[q] byte j: byte q of dword 8h+j
		for q := range v {
			a := binary.LittleEndian.Uint64(src[32*q+8*h:])
			b := binary.LittleEndian.Uint64(src[32*q+16+8*h:])
			v[q] = a&low | (b&low)<<4
		}
		// Words of bytes q = 0, 1 (and 2, 3) of dwords 8h..8h+3 (lo) and 8h+4..8h+7 (hi).
		w01lo := spread8(uint32(v[0])) | spread8(uint32(v[1]))<<8
		w01hi := spread8(uint32(v[0]>>32)) | spread8(uint32(v[1]>>32))<<8
		w23lo := spread8(uint32(v[2])) | spread8(uint32(v[3]))<<8
		w23hi := spread8(uint32(v[2]>>32)) | spread8(uint32(v[3]>>32))<<8
		out := dst[32*h:]
		binary.LittleEndian.PutUint64(out[0:], spread16(uint32(w01lo))|spread16(uint32(w23lo))<<16)
		binary.LittleEndian.PutUint64(out[8:], spread16(uint32(w01lo>>32))|spread16(uint32(w23lo>>32))<<16)
		binary.LittleEndian.PutUint64(out[16:], spread16(uint32(w01hi))|spread16(uint32(w23hi))<<16)
		binary.LittleEndian.PutUint64(out[24:], spread16(uint32(w01hi>>32))|spread16(uint32(w23hi>>32))<<16)
	}
}

// spread8 moves byte j of x to byte 2j of the result, the others zero.
func spread8(x uint32) uint64 {
	t := uint64(x)
	t = (t | t<<16) & 0x0000ffff0000ffff
	return (t | t<<8) & 0x00ff00ff00ff00ff
}

// spread16 moves the 16-bit half j of x to the 16-bit quarter 2j of the result, the others zero.
func spread16(x uint32) uint64 {
	t := uint64(x)
	return (t | t<<16) & 0x0000ffff0000ffff
}

// A blockScaledTransposer lays out the panels of a transposed B (whose column j is a row of its data, src)
// with the transposition of the streaming kernels (streamSource.transposePanel), a block of k at a time:
// 64 columns straight into an FP8 panel, two groups of 64 into tmp for f4e2m1fn, whose rows are then
// packed two elements to a byte.
type blockScaledTransposer struct {
	src  streamSource
	rows [streamPanel]*byte
	tmp  [2][streamBlock * streamPanel]byte
	row  [128]byte
}

// panel lays out the k rows of block-scaled panel p (of 64 columns for FP8, of 128 for f4e2m1fn) into
// dst (k rows of 64 bytes).
func (t *blockScaledTransposer) panel(set *streamSet, dst []byte, p int, four bool) {
	k := t.src.k
	for kb := 0; kb < k; kb += streamBlock {
		kn := min(streamBlock, k-kb)
		if !four {
			t.src.transposePanel(set, dst[kb*64:], p, kb, kn, &t.rows)
			continue
		}
		// The two groups of 64 columns are panels 2p and 2p+1 of 64.
		t.src.transposePanel(set, t.tmp[0][:], 2*p, kb, kn, &t.rows)
		t.src.transposePanel(set, t.tmp[1][:], 2*p+1, kb, kn, &t.rows)
		for q := 0; q < kn; q++ {
			copy(t.row[:64], t.tmp[0][q*64:])
			copy(t.row[64:], t.tmp[1][q*64:])
			blockScaledRow(dst[(kb+q)*64:(kb+q+1)*64], &t.row, true)
		}
	}
}

// blockScaledHasNaN reports whether codes (of 8-bit elements) hold a NaN or an infinity: f8e4m3fn's 0x7f
// and 0xff, f8e5m2's codes whose exponent bits are all ones; eight codes at a time, a byte of a word
// being zero where the code is one of them.
func blockScaledHasNaN(t dtype.Type, codes []byte) bool {
	var mask, special uint64
	switch t {
	case dtype.F8E4M3FN:
		mask, special = 0x7f, 0x7f
	case dtype.F8E5M2:
		mask, special = 0x7c, 0x7c
	default:
		return false
	}
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	mask, special = mask*ones, special*ones
	n := len(codes) &^ 7
	for i := 0; i < n; i += 8 {
		v := binary.LittleEndian.Uint64(codes[i:])&mask ^ special
		if (v-ones)&^v&highs != 0 {
			return true
		}
	}
	for _, c := range codes[n:] {
		if uint64(c)&(mask&0xff) == special&0xff {
			return true
		}
	}
	return false
}

// BlockScaledPackedBytes returns the bytes PackBlockScaled lays out for a K x N weight of format f (blocks
// of f.BlockSize along K, which must be positive), what Bytes returns for it: its elements and scales, the
// columns padded to whole panels.
func BlockScaledPackedBytes(f blockscale.Format, k, n int) int64 {
	panel := blockScaledPanel(f.Elem)
	panels := int64((n + panel - 1) / panel)
	nb := int64((k + f.BlockSize - 1) / f.BlockSize)
	return panels*int64(k)*64 + panels*nb*int64(panel)
}

// Rows and Cols return the shape of w: K x N.
func (w *BlockScaledWeights) Rows() int { return w.rows }
func (w *BlockScaledWeights) Cols() int { return w.cols }

// Format returns w's format, whose BlockSize is the block along K.
func (w *BlockScaledWeights) Format() blockscale.Format { return w.format }

// Bytes returns how many bytes a product reads of w: its elements and scales, with the padding of the
// last panel.
func (w *BlockScaledWeights) Bytes() int { return len(w.data) + len(w.scales) }

// blockScaledFast reports whether the sums of a (one row of A, K values) times w can be formed with
// per-block scaling (see the comment at the top of this file) and give the bits of the general way, by
// kernels that decode each element as u = value * 2^offset.
//
// Let 2^qa be the least quantum (unit in the last place) of the nonzero values of a, 2^qu that of the
// elements as the kernels decode them (u, of magnitude at most umax), and 2^smin <= s <= 2^smax the
// factors between u and the value of an element. Every product a*u*s is then a multiple of Q =
// 2^(qa+qu+smin), and so is every sum of the chain (rounding a multiple of Q to float32 keeps it a
// multiple of Q), and every value the per-block chain computes is one of those divided by an s. If Q >=
// 2^-126 * max(1, 2^smax), no nonzero value in either chain is below 2^-126: none is subnormal. No value
// exceeds sum_k |a_k| * umax * 2^smax * (1 + 2K*2^-24) in magnitude (the bound of the rounding errors),
// or that divided by 2^smin in the per-block chain: below 2^126, nothing overflows. Then each rounding of
// the per-block chain is the rounding of the general chain divided by a power of two, and so are their
// results. A NaN or infinite value of a is left to the general way.
//
// The decoding matters: a kernel that decodes f8e4m3fn exactly (u its value) rather than as 2^-8 times
// it sums values 2^8 times larger in the per-block chain, which overflow where the others' do not.
func (w *BlockScaledWeights) blockScaledFast(a []float32, offset int) bool {
	if !w.perBlock {
		return false
	}
	info := blockScaledElems[w.format.Elem]
	// From blockScaledElems' decoding (u, whose factors w.sMin and w.sMax are) to the kernels' (u * 2^-d,
	// factors s * 2^d).
	d := info.offset - offset
	qu, umax := info.quantum-d, math.Ldexp(info.umax, -d)
	sMin, sMax := w.sMin+d, w.sMax+d
	// An element whose value overflows is an infinity in the general way, which even a zero of A makes
	// NaN (0 * inf), where per-block scaling multiplies the zero by the finite u.
	if math.Ldexp(umax, sMax) >= 0x1p126 {
		return false
	}
	qa, sum := math.MaxInt, 0.0
	for _, x := range a {
		b := math.Float32bits(x) &^ (1 << 31)
		switch {
		case b == 0:
			continue
		case b >= 0x7f800000:
			return false
		case b < 1<<23:
			qa = min(qa, -149)
		default:
			qa = min(qa, int(b>>23)-127-23)
		}
		sum += math.Abs(float64(x))
	}
	if sum == 0 {
		return true // every product is a zero, the same in both chains
	}
	if qa+qu+sMin < -126+max(0, sMax) {
		return false
	}
	bound := sum * umax * math.Ldexp(1+float64(2*len(a))*0x1p-24, sMax)
	return bound < 0x1p126 && math.Ldexp(bound, -sMin) < 0x1p126
}

// MatMulBlockScaled computes C = alpha*(A*B) + beta*C for the block-scaled weights w = PackBlockScaled(B):
// A is M x K of any type MatMulTyped takes (f32 or bf16 activations, typically), decoded to float32 while
// packing; each value of B is its element times its scale (see BlockScaled), and the products follow the
// numerics contract of the package documentation, so that the result is MatMul's on B's values, bit for
// bit. Any M works; M <= 16 is what it is for (larger products stream B once per 16 rows). C is not read
// when beta == 0, and A and B are not read when alpha == 0 or K == 0. It panics, like MatMul, on
// mismatched shapes.
func MatMulBlockScaled(c Matrix, a Typed, w *BlockScaledWeights, alpha, beta float32) {
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
	kern := current()
	for i0 := 0; i0 < cv.rows; i0 += streamMaxRows {
		i1 := min(i0+streamMaxRows, cv.rows)
		blockScaledRows(kern, Threads(), cv.sub(i0, i1, 0, cv.cols), av.sub(i0, i1, 0, av.cols), w, alpha, beta)
	}
}

// BlockScaledKernelName describes the kernel MatMulBlockScaled runs for m rows (at most 16 at a time) of
// weights of format f: "block-avx512 1x128", or "block-go" where the kernel has no assembly for them.
func BlockScaledKernelName(m int, f blockscale.Format) string {
	set := current().blockScaledSet()
	if set == nil {
		return "block-go"
	}
	t := set.tile(f.Elem, min(m, streamMaxRows))
	return fmt.Sprintf("%s %dx%d", set.name, t.rows, t.cols)
}

// A blockScaledTile is how a set multiplies a number of rows: the rows of A at once, the columns of each
// block of its sums, and whether it decodes B in registers (direct) or into a buffer first.
type blockScaledTile struct {
	rows, cols int
	direct     bool
}

// A blockScaledSet is the assembly for block-scaled weights of one instruction set: for one row, kernels
// that decode B in registers (one per element type); for more, decoders that write B's values to a buffer
// and multipliers of 4 and 16 rows that read them.
type blockScaledSet struct {
	name       string // "block-avx512", "block-avx2"
	direct     map[dtype.Type]blockScaledDirectFunc
	directCols map[dtype.Type]int // the columns of one call of a direct kernel
	decoders   map[dtype.Type]blockScaledDecodeFunc
	mul4       blockScaledMulFunc
	cols4      int                // the columns of mul4's tile: 64, or 16
	mul8       blockScaledMulFunc // nil for none: 5 to 8 rows run as 16
	mul16      blockScaledMulFunc
	// decodeSums, for a type whose decoder writes the columns in another order, says where: column j of
	// its 64 goes to position decodeSums[j] of the strips (16g+i: strip g, column i of it), and the sums
	// come out in that order.
	decodeSums map[dtype.Type]*[streamPanel]uint8
	// offsets holds the element types whose kernels decode u = value * 2^offset with another offset than
	// blockScaledElems' (the byte lookups of AVX-512 VBMI decode f8e4m3fn exactly: offset 0).
	offsets map[dtype.Type]int
}

// offset returns the offset of s's decoding of elem (see blockScaledElem).
func (s *blockScaledSet) offset(elem dtype.Type) int {
	if o, ok := s.offsets[elem]; ok {
		return o
	}
	return blockScaledElems[elem].offset
}

// A blockScaledDirectFunc adds to out (one row of sums) the products of k steps of a and of the columns of
// B at b (64 bytes between rows) whose scales are at s (one row of the panel's scales per block of bk rows
// of B, the first of them first rows from its end). tab holds the values of the 16 f4e2m1fn codes (times
// 2^8 with f8e4m3fn scales), buf is room for 128 float32 values; flags is blockScaledE4M3Scales and
// blockScaledPerBlock or'ed. It prefetches as many rows of 64 bytes at pf into L2 (the rows the next call
// reads), as a decoder does into L1.
type blockScaledDirectFunc func(k, bk, first int, a *float32, b, s *byte, out *float32, tab *float32, buf *float32, flags int, pf *byte)

// A blockScaledDecodeFunc writes the values of k rows of 64 columns of B (as a blockScaledDirectFunc reads
// them) to dst: four strips of 16 columns, blockScaledChunk rows of 16 float32 values each. It prefetches
// as many rows of 64 bytes at pf (the rows the next decoding reads) into the cache, so that they arrive
// while the rows just decoded are multiplied.
type blockScaledDecodeFunc func(k, bk, first int, b, s *byte, dst *float32, tab *float32, buf *float32, flags int, pf *byte)

// A blockScaledMulFunc adds to out the products of k steps of a (groups of its rows) and of b (strips as a
// decoder writes them): mul4, four rows by four strips (or one, for a tile of 16 columns) into a block of
// 4 x 64 (4 x 16); mul8 and mul16, 8 or 16 rows by one strip into a block of 8 x 16 or 16 x 16.
type blockScaledMulFunc func(k int, a, b, out *float32)

// The flags of the kernels.
const (
	blockScaledE4M3Scales   = 1  // the scales are f8e4m3fn (else f8e8m0fnu)
	blockScaledPerBlock     = 2  // per-block scaling
	blockScaledFinite       = 4  // no element is NaN (f8e4m3fn: the elements need not be checked for it)
	blockScaledScalesFinite = 16 // no scale is NaN (f8e4m3fn scales need not be checked for it)
	// f8e4m3fn elements, none NaN, with E8M0 scales none of which exceeds 2^119: a decoder may multiply
	// the scales by 2^8 rather than each element (decoded as 2^-8 times its value) by 2^8.
	blockScaledFold = 32
	// Of 4-bit elements, the second half: for a decoder, the columns 64 to 127; for a direct kernel of 64
	// columns, the bytes 32 to 63 of each row (columns 16p+8 to 16p+15, p = 0 to 7; see block2FP4R1).
	blockScaledHigh = 8
)

// The values of the f4e2m1fn codes, and times 2^8 (for f8e4m3fn scales, which the kernels decode as 2^-8
// times their value).
var (
	blockScaledFP4   [16]float32
	blockScaledFP4x8 [16]float32
)

func init() {
	for c := range blockScaledFP4 {
		v := dtype.F4E2M1FN.DecodeFloat32(uint64(c))
		blockScaledFP4[c], blockScaledFP4x8[c] = v, v*256
	}
}

// tile returns the tile of s for m rows of weights of element type elem: the smallest that covers them.
func (s *blockScaledSet) tile(elem dtype.Type, m int) blockScaledTile {
	switch {
	case m == 1 && s.direct[elem] != nil:
		return blockScaledTile{1, s.directCols[elem], true}
	case m <= 4:
		return blockScaledTile{4, s.cols4, false}
	case m <= 8 && s.mul8 != nil:
		return blockScaledTile{8, 16, false}
	}
	return blockScaledTile{16, 16, false}
}

// flags returns the flags and the table of the kernels for w.
func blockScaledFlags(w *BlockScaledWeights, fast bool) (flags int, tab *float32) {
	tab = &blockScaledFP4[0]
	if w.format.Scale == dtype.F8E4M3FN {
		flags |= blockScaledE4M3Scales
		tab = &blockScaledFP4x8[0]
	}
	if fast {
		flags |= blockScaledPerBlock
	}
	if w.finite {
		flags |= blockScaledFinite
	}
	if w.scalesFinite {
		flags |= blockScaledScalesFinite
	}
	if w.format.Elem == dtype.F8E4M3FN && w.format.Scale == dtype.F8E8M0FNU && w.finite && w.sMax <= 127 {
		flags |= blockScaledFold
	}
	return flags, tab
}

// runDirect runs the direct kernel over one panel: kn rows of its elements at b and scales at s (see
// blockScaledCall.panels), the sums in out.
func (s *blockScaledSet) runDirect(w *BlockScaledWeights, kn, first int, a []float32, b, sc []byte, out []float32, buf []float32, fast bool, pf []byte) {
	fn, cols := s.direct[w.format.Elem], s.directCols[w.format.Elem]
	flags, tab := blockScaledFlags(w, fast)
	last := (kn - 1 + w.bk - first) / w.bk // the block of the last row, counted from the first
	_, _, _, _ = a[kn-1], b[kn*64-1], sc[(last+1)*w.panel-1], out[w.panel-1]
	for c0 := 0; c0 < w.panel; c0 += cols {
		// A kernel of 64 columns of 4-bit elements takes the whole panel and a half of its rows.
		off, half := c0, 0
		if w.panel == 128 {
			off, half = 0, c0/64*blockScaledHigh
		}
		fn(kn, w.bk, first, &a[0], &b[off], &sc[off], &out[off], tab, &buf[0], flags|half, &pf[0])
		pf = b // the rows the first call fetched, for a second half
	}
}

// decode runs the decoder on 64 columns (see blockScaledCall.decode).
func (s *blockScaledSet) decode(w *BlockScaledWeights, kn, first, half int, b, sc []byte, dec, buf []float32, pf []byte) {
	flags, tab := blockScaledFlags(w, false)
	flags |= half * blockScaledHigh
	last := (kn - 1 + w.bk - first) / w.bk
	_, _, _ = b[kn*64-1], sc[last*w.panel+63], dec[blockScaledStrips*blockScaledChunk*16-1]
	s.decoders[w.format.Elem](kn, w.bk, first, &b[0], &sc[0], &dec[0], tab, &buf[0], flags, &pf[0])
}

// mul runs the multiplier of tile on the four strips of dec (see blockScaledCall.mul).
func (s *blockScaledSet) mul(tile blockScaledTile, kn int, a, dec, out []float32) {
	_, _ = a[kn*tile.rows-1], out[64*tile.rows-1]
	if tile.rows == 4 && tile.cols == 64 {
		s.mul4(kn, &a[0], &dec[0], &out[0])
		return
	}
	fn := s.mul16
	switch tile.rows {
	case 4:
		fn = s.mul4
	case 8:
		fn = s.mul8
	}
	for g := 0; g < blockScaledStrips; g++ {
		fn(kn, &a[0], &dec[g*blockScaledChunk*16], &out[g*tile.rows*16])
	}
}

// A blockScaledCall is one product of at most 16 rows, shared by the goroutines that run its panels.
type blockScaledCall struct {
	set     *blockScaledSet // nil: the Go code
	tile    blockScaledTile
	w       *BlockScaledWeights
	c       view
	packedA []float32 // k groups of tile.rows values
	fast    bool      // per-block scaling
	alpha   float32
	beta    float32
}

var blockScaledCalls = sync.Pool{New: func() any { return new(blockScaledCall) }}

// blockScaledRows computes C = alpha*(A*B) + beta*C for at most 16 rows, the panels of w shared among at
// most t goroutines.
func blockScaledRows(kern *Kernel, t int, c, a view, w *BlockScaledWeights, alpha, beta float32) {
	m, k := c.rows, a.cols
	set := kern.blockScaledSet()
	tile := blockScaledTile{rows: m, cols: 16}
	if set != nil {
		tile = set.tile(w.format.Elem, m)
	}
	ws := workspaces.Get().(*workspace)
	defer workspaces.Put(ws)
	n := tile.rows * k
	bufA, _, tmp := ws.get(n, 0, 16*k)
	kern.isa.packA(bufA, &a, m, k, tile.rows, tmp)
	call := blockScaledCalls.Get().(*blockScaledCall)
	*call = blockScaledCall{set: set, tile: tile, w: w, c: c, packedA: bufA[:n], alpha: alpha, beta: beta}
	call.fast = tile.direct && w.blockScaledFast(call.packedA, set.offset(w.format.Elem))
	defer func() {
		*call = blockScaledCall{}
		blockScaledCalls.Put(call)
	}()
	panels := (w.cols + w.panel - 1) / w.panel
	if float64(m)*float64(w.cols)*float64(k) < parallelMin {
		t = 1
	}
	t = min(t, panels)
	if t <= 1 {
		call.panels(0, panels)
		return
	}
	j := jobs.Get().(*job)
	for i := 0; i < t; i++ {
		j.tasks = append(j.tasks, task{blockScaled: call, p0: i * panels / t, p1: (i + 1) * panels / t})
	}
	runJob(j, t)
}

// blockScaledChunk is how many steps of k the kernels take through one panel before moving to the next:
// the goroutine's panels are read a block of rows at a time, and the block of A, and of B decoded, stay
// in L1 with the rows of the next panel the decoders fetch. (With 128 steps, 32 KiB of B decoded, 16 rows
// by a 4096 x 4096 MXFP8 or MXFP4 B ran 10-20% slower on Sapphire Rapids, whose L1 holds 48 KiB; the AVX2
// kernels ran as fast either way.) The decoders' strips are as long: 4096 bytes apart in the assembly.
const blockScaledChunk = 64

// blockScaledDirectChunk is blockScaledChunk for the direct kernels, which decode nothing into L1: longer
// runs of a panel's rows (32 KiB of them) ease the prefetchers (measured on Sapphire Rapids at 4096 x 4096,
// 512 rows 5-10% faster than 128). blockScaledDirectChunk8 is it for 8-bit elements, whose kernels read
// their rows faster: one row by a 4096 x 4096 MXFP8 B, one thread, ran 3-6% faster with 2048 rows than
// with 512 (AVX-512 and AVX2 alike; two threads as fast), where MXFP4 ran as fast or slower.
const (
	blockScaledDirectChunk  = 512
	blockScaledDirectChunk8 = 2048
)

// A blockScaledWork is one goroutine's buffers: the sums of its panels and B decoded.
type blockScaledWork struct {
	acc []float32
	dec []float32
	buf []float32 // scratch for the kernels: a block's scales decoded
}

var blockScaledWorks = sync.Pool{New: func() any { return new(blockScaledWork) }}

// blockScaledStrips is how many strips of 16 columns the decoders write at once, each blockScaledChunk
// rows of 16 float32 values.
const blockScaledStrips = 4

// panels runs panels [p0, p1) of the call and stores them into C.
func (call *blockScaledCall) panels(p0, p1 int) {
	w, tile := call.w, call.tile
	k, m := w.rows, call.c.rows
	bw := blockScaledWorks.Get().(*blockScaledWork)
	defer blockScaledWorks.Put(bw)
	size := tile.rows * w.panel
	if len(bw.acc) < (p1-p0)*size {
		bw.acc = alignedFloats((p1 - p0) * size)
	}
	if len(bw.dec) < blockScaledStrips*blockScaledChunk*16 {
		bw.dec = alignedFloats(blockScaledStrips * blockScaledChunk * 16)
		bw.buf = alignedFloats(128)
	}
	acc := bw.acc[:(p1-p0)*size]
	clear(acc)
	chunk := blockScaledChunk
	switch {
	case tile.direct && w.format.Elem.BitWidth() == 8:
		chunk = blockScaledDirectChunk8
	case tile.direct:
		chunk = blockScaledDirectChunk
	}
	for kb := 0; kb < k; kb += chunk {
		kn := min(chunk, k-kb)
		first := w.bk - kb%w.bk // rows to the end of the block kb is in
		a := call.packedA[kb*tile.rows:]
		for p := p0; p < p1; p++ {
			out := acc[(p-p0)*size : (p-p0+1)*size]
			b := w.data[(p*k+kb)*64:]
			s := w.scales[(p*w.nb+kb/w.bk)*w.panel:]
			// The kernels fetch the rows of the next panel, or of the next chunk's first, ahead: the
			// prefetchers would start on them only when they are read.
			pf := b
			switch {
			case p+1 < p1:
				pf = w.data[((p+1)*k+kb)*64:]
			case kb+chunk < k:
				pf = w.data[(p0*k+kb+chunk)*64:]
			}
			if tile.direct {
				call.set.runDirect(w, kn, first, a, b, s, out, bw.buf, call.fast, pf)
				continue
			}
			// Four strips of 16 columns at a time: the 64 bytes of a row of 8-bit elements, or half of
			// the 128 columns of 4-bit ones.
			for g := 0; g < w.panel/64; g++ {
				if g > 0 {
					pf = b // fetched for the first half already: these rows are in the cache
				}
				call.decode(kn, first, g, b, s[64*g:], bw.dec, bw.buf, pf)
				call.mul(kn, a, bw.dec, out[64*g*tile.rows:], m)
			}
		}
	}
	call.store(acc, p0, p1)
}

// decode writes kn rows of 64 columns of B (elements at b, 64 bytes between rows, of 4-bit elements the
// columns 64*half to 64*half+63; scales at s, w.panel bytes between blocks), starting first rows before
// the end of a block, to dec as float32 values: four strips of blockScaledChunk rows of 16.
func (call *blockScaledCall) decode(kn, first, half int, b, s []byte, dec, buf []float32, pf []byte) {
	if call.set != nil {
		call.set.decode(call.w, kn, first, half, b, s, dec, buf, pf)
		return
	}
	blockScaledDecodeGo(call.w, kn, first, half, b, s, dec)
}

// mul adds to out (the blocks of sums of 64 columns: 64/tile.cols blocks of tile.rows x tile.cols) the
// products of kn steps of a and of the four strips of dec.
func (call *blockScaledCall) mul(kn int, a []float32, dec []float32, out []float32, m int) {
	if call.set != nil {
		call.set.mul(call.tile, kn, a, dec, out)
		return
	}
	blockScaledMulGo(call.tile, kn, a, dec, out, m)
}

// store sets C = alpha*acc + beta*C for panels [p0, p1), rounding as the numerics contract says.
func (call *blockScaledCall) store(acc []float32, p0, p1 int) {
	w, tile, c := call.w, call.tile, call.c
	size := tile.rows * w.panel
	// Where the sum of row 0 of each column is: in its run of 64 columns (64*tile.rows sums each), where
	// the kernels leave it (sumPositions, in the decoders' order); row i's tile.cols on.
	var order *[streamPanel]uint8
	if call.set != nil && !tile.direct {
		order = call.set.decodeSums[w.format.Elem]
	}
	base := sumPositions(tile.rows, tile.cols, order)
	for p := p0; p < p1; p++ {
		j0 := p * w.panel
		n := min(w.panel, w.cols-j0)
		out := acc[(p-p0)*size : (p-p0+1)*size]
		for i := 0; i < c.rows; i++ {
			row := c.f32[i*c.stride+j0 : i*c.stride+j0+n]
			for j := range row {
				at := j/streamPanel*streamPanel*tile.rows + base[j%streamPanel]
				row[j] = combine(call.alpha, out[at+i*tile.cols], call.beta, row[j])
			}
		}
	}
}

// blockScaledScales returns the value of every scale code of type t: 2^(code-127) (NaN for 0xff) for
// f8e8m0fnu, the f8e4m3fn value for f8e4m3fn.
var blockScaledScales = sync.OnceValue(func() map[dtype.Type]*[256]float32 {
	m := map[dtype.Type]*[256]float32{}
	for _, t := range []dtype.Type{dtype.F8E8M0FNU, dtype.F8E4M3FN} {
		var v [256]float32
		for c := range v {
			v[c] = float32(t.DecodeFloat64(uint64(c)))
		}
		m[t] = &v
	}
	return m
})

// blockScaledDecodeGo is the decoders' work in Go: element (r, j) of the 64 columns of B at b (w's layout;
// for 4-bit elements, columns 64*half to 64*half+63 of the row) goes to dec[(j/16)*blockScaledChunk*16 +
// r*16 + j%16], its element times its scale rounded once.
func blockScaledDecodeGo(w *BlockScaledWeights, kn, first, half int, b, s []byte, dec []float32) {
	elems := dtype.DecodeTable(w.format.Elem)
	scales := blockScaledScales()[w.format.Scale]
	four := w.format.Elem.BitWidth() == 4
	sc := s
	left := first
	for r := 0; r < kn; r++ {
		if left == 0 {
			sc = sc[w.panel:]
			left = w.bk
		}
		left--
		row := b[r*64:]
		for j := 0; j < 64; j++ {
			var e byte
			if four {
				p, i := j/16+4*half, j%16
				e = row[4*i+p/2] >> (4 * (p % 2)) & 0xf
			} else {
				e = row[j]
			}
			v := float64(elems[e]) * float64(scales[sc[j]])
			dec[(j/16)*blockScaledChunk*16+r*16+j%16] = float32(v)
		}
	}
}

// blockScaledMulGo is the multipliers' work in Go for a tile of tile.rows rows (the first m of them used):
// the sums of the 64 columns of dec are out's blocks of tile.rows x tile.cols, each a chain of fused
// multiply-adds.
func blockScaledMulGo(tile blockScaledTile, kn int, a, dec, out []float32, m int) {
	rows, cols := tile.rows, tile.cols
	for j := 0; j < 64; j++ {
		strip := dec[(j/16)*blockScaledChunk*16+j%16:]
		for i := 0; i < m; i++ {
			o := &out[(j/cols)*rows*cols+i*cols+j%cols]
			s := *o
			for p := 0; p < kn; p++ {
				s = fma32(a[p*rows+i], strip[p*16], s)
			}
			*o = s
		}
	}
}

package gemm

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"octet/blockscale"
	"octet/dtype"
)

// The block-scaled formats the tests use: every element type and scale type the kernels take.
var blockScaledTestFormats = []blockscale.Format{blockscale.MXFP4, blockscale.NVFP4, blockscale.MXFP8E4M3,
	blockscale.MXFP8E5M2,
	{Name: "f8e4m3fn/e4m3", Elem: dtype.F8E4M3FN, Scale: dtype.F8E4M3FN, BlockSize: 16},
	{Name: "f8e5m2/e4m3", Elem: dtype.F8E5M2, Scale: dtype.F8E4M3FN, BlockSize: 32}}

// blockScaledCase is what randomBlockScaled puts into B.
type blockScaledCase struct {
	specials bool // NaN and infinite elements, NaN scales, the smallest and largest scales
	scaleLo  int  // E8M0 scale codes are drawn from [scaleLo, scaleLo+scaleSpan)
	scaleSp  int
}

// randomBlockScaled returns a k x n matrix of format f (blocks of f.BlockSize along K, bn along N), stored
// transposed when trans, with padding after each stored row of data and of scales.
func randomBlockScaled(rng *rand.Rand, f blockscale.Format, bn, k, n int, trans bool, c blockScaledCase) BlockScaled {
	nb, ns := (k+f.BlockSize-1)/f.BlockSize, (n+bn-1)/bn
	sr, sc, ssr, ssc := k, n, nb, ns
	if trans {
		sr, sc, ssr, ssc = n, k, ns, nb
	}
	b := BlockScaled{Format: f, BlockN: bn, Rows: k, Cols: n, Stride: sc + 3, ScaleStride: ssc + 2, Trans: trans}
	b.Data = make([]byte, max(sr*b.Stride, 1))
	b.Scales = make([]byte, max(ssr*b.ScaleStride, 1))
	for i := range b.Data {
		for {
			e := byte(rng.IntN(1 << f.Elem.BitWidth()))
			v := f.Elem.DecodeFloat64(uint64(e))
			if c.specials || !math.IsNaN(v) && !math.IsInf(v, 0) {
				b.Data[i] = e
				break
			}
		}
	}
	for i := range b.Scales {
		switch {
		case f.Scale == dtype.F8E4M3FN:
			s := byte(rng.IntN(256))
			for !c.specials && s&0x7f == 0x7f {
				s = byte(rng.IntN(256))
			}
			b.Scales[i] = s
		case c.specials && rng.IntN(8) == 0:
			b.Scales[i] = []byte{0, 1, 2, 127, 253, 254, 255}[rng.IntN(7)]
		default:
			b.Scales[i] = byte(c.scaleLo + rng.IntN(c.scaleSp))
		}
	}
	return b
}

// blockScaledValues returns the values of b as a float32 matrix of b's layout: each element times its
// scale, as package blockscale defines the value, rounded once to float32.
func blockScaledValues(b BlockScaled) Matrix {
	bn := max(b.BlockN, 1)
	sr, sc := b.Rows, b.Cols
	if b.Trans {
		sr, sc = sc, sr
	}
	m := Matrix{Data: make([]float32, max(sr*b.Stride, 1)), Rows: b.Rows, Cols: b.Cols, Stride: b.Stride, Trans: b.Trans}
	for k := 0; k < b.Rows; k++ {
		for j := 0; j < b.Cols; j++ {
			di, si := k*b.Stride+j, (k/b.Format.BlockSize)*b.ScaleStride+j/bn
			if b.Trans {
				di, si = j*b.Stride+k, (j/bn)*b.ScaleStride+k/b.Format.BlockSize
			}
			m.Data[di] = float32(b.Format.Value(b.Data[di], b.Scales[si], 1))
		}
	}
	return m
}

// blockScaledA returns an m x k f32 A, random values in [-1, 1), with some zeros, subnormals, large values
// and, where specials, infinities and NaNs.
func blockScaledA(rng *rand.Rand, m, k int, specials bool) (Typed, Matrix) {
	_, am := randomTyped(rng, dtype.F32, m, k, false, 1, 0)
	for i := range am.Data {
		switch r := rng.IntN(64); {
		case r == 0:
			am.Data[i] = 0
		case r == 1:
			am.Data[i] = float32(math.Ldexp(rng.Float64(), -130))
		case r == 2:
			am.Data[i] = float32(math.Ldexp(rng.Float64()-0.5, 60))
		case r == 3 && specials:
			am.Data[i] = float32([]float64{math.Inf(1), math.Inf(-1), math.NaN()}[rng.IntN(3)])
		}
	}
	return TypedOf(am), am
}

// TestBlockScaled checks MatMulBlockScaled on every kernel of this machine (with its assembly for block-
// scaled weights, and again with the Go code), bit for bit against Reference on B's values: every format,
// block sizes of the formats and others (1, 7, longer than the kernels' steps of k), blocks of columns, K
// not a multiple of the block, N around the panels' widths, M from 1 to 20, B stored either way, alpha and
// beta, one and two goroutines; B's codes random, with NaN and infinite elements, NaN scales and the
// extreme scales in a third of the cases, and A with zeros, subnormals, large values and in some cases
// infinities and NaNs.
func TestBlockScaled(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	scalars := [][2]float32{{1, 0}, {-0.5, 0}, {1, 1}, {0.75, -1.5}}
	n := 60
	if testing.Short() {
		n = 20
	}
	kernels := contractKernels()
	defer SetThreads(SetThreads(0))
	for i := 0; i < n; i++ {
		f := blockScaledTestFormats[i%len(blockScaledTestFormats)]
		f.BlockSize = []int{f.BlockSize, f.BlockSize, f.BlockSize, 1, 7, 200}[rng.IntN(6)]
		bn := []int{1, 1, 1, 3}[rng.IntN(4)]
		m := []int{1, 1, 1, 2, 4, 5, 16, 20}[rng.IntN(8)]
		nn := []int{1, 7, 64, 100, 128, 130, 300}[rng.IntN(7)]
		k := []int{1, 5, 31, 32, 33, 129, 300, 1000, 2100}[rng.IntN(9)]
		// Every third case of each format has the specials (formats and rounds of them shifted apart).
		c := blockScaledCase{specials: (i+i/len(blockScaledTestFormats))%3 == 2, scaleLo: 117, scaleSp: 20}
		trans := rng.IntN(2) == 0
		ab := scalars[rng.IntN(len(scalars))]
		name := fmt.Sprintf("%d/%s/%dx%d/%dx%dx%d/trans=%v/specials=%v", i, f.Name, f.BlockSize, bn, m, nn, k, trans, c.specials)
		t.Run(name, func(t *testing.T) {
			b := randomBlockScaled(rng, f, bn, k, nn, trans, c)
			a, am := blockScaledA(rng, m, k, c.specials && rng.IntN(2) == 0)
			w := PackBlockScaled(b)
			if got, want := int64(w.Bytes()), BlockScaledPackedBytes(f, k, nn); got != want {
				t.Errorf("the packed weights take %d bytes, BlockScaledPackedBytes says %d", got, want)
			}
			c0 := operand{m, nn, false, 1}.build(rng, padC)
			want := clone(c0)
			Reference(want, am, blockScaledValues(b), ab[0], ab[1])
			for _, kern := range kernels {
				for _, threads := range []int{1, 2} {
					got := clone(c0)
					restore := useKernel(kern)
					SetThreads(threads)
					MatMulBlockScaled(got, a, w, ab[0], ab[1])
					restore()
					sameMatrix(t, fmt.Sprintf("%s, %d threads", kern.Name(), threads), got, want)
					for r := 0; r < got.Rows; r++ {
						for j := got.Cols; j < got.Stride; j++ {
							if v := got.Data[r*got.Stride+j]; v != padC {
								t.Fatalf("%s: padding of C overwritten with %v", kern.Name(), v)
							}
						}
					}
				}
			}
		})
	}
}

// TestBlockScaledEveryCode checks every pair of an element code and a scale code of every format: B is
// one row of them (one column each, each with its own scale), A one random value a row, and each C[i, j]
// must be Reference's a_i*v_j, bit for bit, on every kernel, for 1, 4 and 16 rows. A second B has every
// scale code in every column of a panel (the kernels decode the scales of each run of columns apart),
// over random elements. Under the race detector, every raceStride-th case.
func TestBlockScaledEveryCode(t *testing.T) {
	rng := rand.New(rand.NewPCG(93, 94))
	kernels := contractKernels()
	cases := 0
	for _, f := range blockScaledTestFormats {
		codes := 1 << f.Elem.BitWidth()
		f.BlockSize = 1
		pairs := codes * 256
		everywhere := 256 * 128
		for _, n := range []int{pairs, everywhere} {
			b := BlockScaled{Format: f, Data: make([]byte, n), Scales: make([]byte, n), Rows: 1, Cols: n, Stride: n, ScaleStride: n}
			for j := range n {
				if n == pairs {
					b.Data[j], b.Scales[j] = byte(j%codes), byte(j/codes)
				} else {
					b.Data[j], b.Scales[j] = byte(rng.IntN(codes)), byte(j/128+j%128)
				}
			}
			w := PackBlockScaled(b)
			for _, m := range []int{1, 4, 16} {
				if cases++; cases%raceStride != 0 {
					continue
				}
				a, am := blockScaledA(rng, m, 1, false)
				want := NewMatrix(m, n, nil)
				Reference(want, am, blockScaledValues(b), 1, 0)
				for _, kern := range kernels {
					got := NewMatrix(m, n, nil)
					restore := useKernel(kern)
					MatMulBlockScaled(got, a, w, 1, 0)
					restore()
					sameMatrix(t, fmt.Sprintf("%s, %d columns, %d rows, %s", f.Name, n, m, kern.Name()), got, want)
				}
			}
		}
	}
}

// blockScaledSets returns the assembly sets for block-scaled weights of this machine's kernels.
func blockScaledSets() []*blockScaledSet {
	var sets []*blockScaledSet
	for _, k := range streamTestKernels() {
		if s := k.blockScaledSet(); s != nil && !slices.Contains(sets, s) {
			sets = append(sets, s)
		}
	}
	return sets
}

// directBlockScaled runs the direct kernel of set for one row a over all of w, with per-block scaling or
// without, and returns the sums.
func directBlockScaled(set *blockScaledSet, w *BlockScaledWeights, a []float32, perBlock bool) []float32 {
	panels := (w.cols + w.panel - 1) / w.panel
	out := make([]float32, panels*w.panel)
	buf := alignedFloats(128)
	for p := 0; p < panels; p++ {
		for kb := 0; kb < w.rows; kb += blockScaledChunk {
			kn := min(blockScaledChunk, w.rows-kb)
			set.runDirect(w, kn, w.bk-kb%w.bk, a[kb:], w.data[(p*w.rows+kb)*64:],
				w.scales[(p*w.nb+kb/w.bk)*w.panel:], out[p*w.panel:(p+1)*w.panel], buf, perBlock, w.data)
		}
	}
	return out[:w.cols]
}

// TestBlockScaledPerBlock checks per-block scaling where blockScaledFast admits it, at the edge of what it
// admits: E8M0 scales in a random window of exponents (from 2^-120 to 2^120), A's values with the least
// exponents that window allows (so that the smallest products are just normal), sums that cancel, and K up
// to several blocks. For each, the direct kernels of every set with per-block scaling must give the bits
// of the general way and of Reference. Most cases must be admitted, or the test proves nothing.
func TestBlockScaledPerBlock(t *testing.T) {
	sets := blockScaledSets()
	if len(sets) == 0 {
		t.Skip("no assembly for block-scaled weights on this machine")
	}
	rng := rand.New(rand.NewPCG(95, 96))
	admitted := 0
	const trials = 300
	for i := 0; i < trials; i++ {
		f := []blockscale.Format{blockscale.MXFP4, blockscale.MXFP8E4M3, blockscale.MXFP8E5M2}[i%3]
		info := blockScaledElems[f.Elem]
		k := []int{1, 31, 64, 200, 700}[rng.IntN(5)]
		n := []int{64, 128, 130}[rng.IntN(3)]
		lo := rng.IntN(240) - 120
		span := 1 + rng.IntN(12)
		b := randomBlockScaled(rng, f, 1, k, n, false, blockScaledCase{scaleLo: 127 + lo, scaleSp: span})
		w := PackBlockScaled(b)
		// The least exponent of A's quanta the window allows: qa + qu + sMin >= -126 + max(0, sMax).
		qa := -126 + max(0, w.sMax) - info.quantum - w.sMin
		a := make([]float32, k)
		for p := range a {
			e := qa + 23 + rng.IntN(8) // a value of exponent e has the quantum 2^(e-23)
			if e > 100 {
				e = 100 - rng.IntN(8)
			}
			v := float32(math.Ldexp(1+rng.Float64(), e))
			if p > 0 && rng.IntN(3) == 0 {
				v = -a[p-1] // cancel the sum so far, near enough
			}
			if rng.IntN(10) == 0 {
				v = 0
			}
			a[p] = v
		}
		if !w.blockScaledFast(a, info.offset) {
			continue
		}
		admitted++
		want := NewMatrix(1, n, nil)
		Reference(want, Matrix{Data: a, Rows: 1, Cols: k, Stride: k}, blockScaledValues(b), 1, 0)
		for _, set := range sets {
			for _, perBlock := range []bool{w.blockScaledFast(a, set.offset(f.Elem)), false} {
				got := directBlockScaled(set, w, a, perBlock)
				sameMatrix(t, fmt.Sprintf("%d: %s, %s, K=%d, scales 2^%d..2^%d, per-block=%v", i, set.name, f.Name, k, lo, lo+span-1, perBlock),
					Matrix{Data: got, Rows: 1, Cols: n, Stride: n}, want)
			}
		}
	}
	if admitted < trials/2 {
		t.Errorf("per-block scaling admitted in %d of %d cases", admitted, trials)
	}
}

// TestBlockScaledPerBlockRefused checks that blockScaledFast refuses products where per-block scaling
// would give other bits, and that it would: a product of the smallest subnormal and 0.5 that per-block
// scaling rounds to zero before the scale 2^100 lifts it, products of 2^126 that overflow before the
// scale 2^-20 brings them down, and a zero of A times an element whose value overflows (NaN in the general
// way, zero per block). It also refuses NaN and infinite values of A, and weights with a NaN scale or
// f8e4m3fn scales; and, where a set decodes f8e4m3fn exactly, what overflows only in that decoding.
func TestBlockScaledPerBlockRefused(t *testing.T) {
	one := func(f blockscale.Format, elem, scale byte, k int) BlockScaled {
		b := BlockScaled{Format: f, Data: make([]byte, k*64), Scales: make([]byte, 64), Rows: k, Cols: 64, Stride: 64, ScaleStride: 64}
		for i := range b.Data {
			b.Data[i] = elem
		}
		for i := range b.Scales {
			b.Scales[i] = scale
		}
		return b
	}
	f := blockscale.MXFP4
	f.BlockSize = 64
	for _, tc := range []struct {
		name string
		b    BlockScaled
		a    []float32
	}{
		{"underflow", one(f, 1, 127+100, 1), []float32{math.Float32frombits(1)}},                 // 2^-149 * 0.5 * 2^100
		{"overflow", one(f, 7, 127-20, 2), []float32{0x1p126, -0x1p126}},                         // 2^126 * 6 * 2^-20
		{"NaN in A", one(f, 2, 127, 2), []float32{1, float32(math.NaN())}},                       //
		{"infinity in A", one(f, 2, 127, 2), []float32{float32(math.Inf(1)), 1}},                 //
		{"NaN scale", one(f, 2, 255, 2), []float32{1, 1}},                                        //
		{"f8e4m3fn scales", one(blockscale.NVFP4, 2, 0x38, 2), []float32{1, 1}},                  //
		{"NaN element", one(blockscale.MXFP8E4M3, 0x7f, 127, 2), []float32{1, 1}},                //
		{"infinite element", one(blockscale.MXFP8E5M2, 0x7c, 127, 2), []float32{1, 1}},           //
		{"scale too small to scale by", one(blockscale.MXFP4, 2, 0, 2), []float32{1, 1}},         // 2^-127
		{"scale too large to scale by", one(blockscale.MXFP4, 2, 254, 2), []float32{1, 1}},       // 2^127
		{"element overflows, A zero", one(blockscale.MXFP8E5M2, 0x7b, 127+120, 1), []float32{0}}, // 0 * (57344 * 2^120)
	} {
		w := PackBlockScaled(tc.b)
		for _, offset := range []int{blockScaledElems[tc.b.Format.Elem].offset, 0} {
			if w.blockScaledFast(tc.a, offset) {
				t.Errorf("%s: per-block scaling admitted (elements decoded times 2^%d)", tc.name, offset)
			}
		}
	}
	// f8e4m3fn decoded exactly (the byte lookups of AVX-512 VBMI) rather than as 2^-8 times its value: the
	// per-block chain of 2^120 * 448 * 2^-100 holds 2^120 * 448, which overflows, where the other decoding
	// holds 2^120 * 1.75. Only the second may scale per block.
	e4m3 := PackBlockScaled(one(blockscale.MXFP8E4M3, 0x7e, 127-100, 1))
	big := []float32{0x1p120}
	if !e4m3.blockScaledFast(big, -8) || e4m3.blockScaledFast(big, 0) {
		t.Errorf("2^120 * 448 * 2^-100: per-block scaling admitted %v for f8e4m3fn decoded times 2^-8, %v decoded exactly; want true, false",
			e4m3.blockScaledFast(big, -8), e4m3.blockScaledFast(big, 0))
	}
	// The two whose bits per-block scaling gets wrong, shown on each set.
	for _, set := range blockScaledSets() {
		for _, tc := range []struct {
			b BlockScaled
			a []float32
		}{{one(f, 1, 127+100, 1), []float32{math.Float32frombits(1)}}, {one(f, 7, 127-20, 2), []float32{0x1p126, 0x1p126}},
			{one(blockscale.MXFP8E5M2, 0x7b, 127+120, 1), []float32{0}}} {
			w := PackBlockScaled(tc.b)
			general, perBlock := directBlockScaled(set, w, tc.a, false), directBlockScaled(set, w, tc.a, true)
			if sameBits(general[0], perBlock[0]) {
				t.Errorf("%s: per-block scaling gives %v as the general way does", set.name, perBlock[0])
			}
		}
		// Where the set's per-block scaling overflows (the byte lookups), its decoding must refuse it.
		general, perBlock := directBlockScaled(set, e4m3, big, false), directBlockScaled(set, e4m3, big, true)
		if general[0] != 0x1p20*448 {
			t.Errorf("%s: 2^120 * 448 * 2^-100 is %v by the general way", set.name, general[0])
		}
		if !sameBits(general[0], perBlock[0]) && e4m3.blockScaledFast(big, set.offset(dtype.F8E4M3FN)) {
			t.Errorf("%s: 2^120 * 448 * 2^-100 is %v by per-block scaling, which the set's decoding admits", set.name, perBlock[0])
		}
	}
}

// TestBlockScaledNoAllocations checks that a product with block-scaled weights allocates nothing once its
// buffers exist, on one goroutine and on several.
func TestBlockScaledNoAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	rng := rand.New(rand.NewPCG(97, 98))
	b := randomBlockScaled(rng, blockscale.MXFP4, 1, 512, 1024, false, blockScaledCase{scaleLo: 120, scaleSp: 8})
	w := PackBlockScaled(b)
	defer SetThreads(SetThreads(2))
	for _, m := range []int{1, 16} {
		a, _ := blockScaledA(rng, m, 512, false)
		c := NewMatrix(m, 1024, nil)
		MatMulBlockScaled(c, a, w, 1, 0)
		if n := testing.AllocsPerRun(20, func() { MatMulBlockScaled(c, a, w, 1, 0) }); n != 0 {
			t.Errorf("%d rows: %v allocations per product", m, n)
		}
	}
}

// TestPackBlockScaledScales checks the scales PackBlockScaled lays out and what it notes of them, against
// the scale matrix read element by element: each panel's row of codes per block of k, the code of each
// column's block (blocks of 1 and 3 columns, scales stored as they are and transposed, a last panel
// partly past the matrix, whose padding takes the code of 1); whether a NaN code occurs; and the least and
// greatest exponent of the E8M0 scales (their code less 127, less the elements' decoding offset), of the
// matrix's own columns only.
func TestPackBlockScaledScales(t *testing.T) {
	rng := rand.New(rand.NewPCG(103, 104))
	for trial := range 48 {
		f := []blockscale.Format{blockscale.MXFP4, blockscale.MXFP8E4M3, blockscale.NVFP4}[trial%3]
		bn := 1 + 2*(trial/3%2)
		trans := trial/6%2 == 1
		k, n := 1+rng.IntN(200), 1+rng.IntN(300)
		b := randomBlockScaled(rng, f, bn, k, n, trans, blockScaledCase{scaleLo: 100, scaleSp: 40})
		nan := byte(0xff)
		if trial/12%2 == 1 { // a NaN code somewhere
			r, c := rng.IntN((k+f.BlockSize-1)/f.BlockSize), rng.IntN((n+bn-1)/bn)
			if f.Scale == dtype.F8E4M3FN && rng.IntN(2) == 0 {
				nan = 0x7f
			}
			if trans {
				b.Scales[c*b.ScaleStride+r] = nan
			} else {
				b.Scales[r*b.ScaleStride+c] = nan
			}
		}
		w := PackBlockScaled(b)
		one := byte(127)
		if f.Scale == dtype.F8E4M3FN {
			one = 0x38
		}
		hasNaN := false
		lo, hi := 255, -1
		for p := 0; p*w.panel < n; p++ {
			for r := range w.nb {
				for j := range w.panel {
					col := p*w.panel + j
					want := one
					if col < n {
						c := col / bn
						if trans {
							want = b.Scales[c*b.ScaleStride+r]
						} else {
							want = b.Scales[r*b.ScaleStride+c]
						}
						hasNaN = hasNaN || want == 0xff || f.Scale == dtype.F8E4M3FN && want == 0x7f
						lo, hi = min(lo, int(want)), max(hi, int(want))
					}
					if got := w.scales[(p*w.nb+r)*w.panel+j]; got != want {
						t.Fatalf("%s, %d x %d, blocks of %d columns, trans=%v: panel %d, block %d, column %d: code %#x, want %#x", f.Name, k, n, bn, trans, p, r, j, got, want)
					}
				}
			}
		}
		if w.scalesFinite == hasNaN {
			t.Errorf("%s, %d x %d, trans=%v: scalesFinite %v with a NaN code %v", f.Name, k, n, trans, w.scalesFinite, hasNaN)
		}
		if f.Scale == dtype.F8E8M0FNU {
			off := blockScaledElems[f.Elem].offset
			if w.sMin != lo-127-off || w.sMax != hi-127-off {
				t.Errorf("%s, %d x %d, trans=%v: scale exponents %d..%d, want %d..%d", f.Name, k, n, trans, w.sMin, w.sMax, lo-127-off, hi-127-off)
			}
		}
	}
}

// TestBlockScaledRow packs rows of random 4-bit codes two to a byte as the kernels read them: column
// 16p+i of the panel is nibble p of the little-endian dword i.
func TestBlockScaledRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(97, 98))
	for range 100 {
		var src [128]byte
		for j := range src {
			src[j] = byte(rng.IntN(16))
		}
		dst := make([]byte, 64)
		blockScaledRow(dst, &src, true)
		for i := range 16 {
			d := binary.LittleEndian.Uint32(dst[4*i:])
			for p := range 8 {
				if got := byte(d>>(4*p)) & 0xf; got != src[16*p+i] {
					t.Fatalf("column %d: nibble %d of dword %d is %#x, want %#x", 16*p+i, p, i, got, src[16*p+i])
				}
			}
		}
	}
}

package interp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"octet/blockscale"
	"octet/dtype"
	"octet/tensor"
)

// randomCodes returns a tensor of type t and shape of random codes; for scale types, E8M0 codes around 127
// (2^-6 to 2^5) and in a quarter of the cases one of the extremes (2^-127, 2^-126, 2^-125, 2^126, 2^127,
// NaN), and any f8e4m3fn code, NaN and subnormal included.
func randomCodes(rng *rand.Rand, t dtype.Type, shape ...int64) *tensor.Tensor {
	x := tensor.New(t, shape)
	for i := range x.Data {
		switch {
		case t == dtype.F8E8M0FNU && rng.IntN(4) == 0:
			x.Data[i] = []byte{0, 1, 2, 253, 254, 255}[rng.IntN(6)]
		case t == dtype.F8E8M0FNU:
			x.Data[i] = byte(121 + rng.IntN(12))
		default:
			x.Data[i] = byte(rng.IntN(1 << t.BitWidth()))
		}
	}
	return x
}

// TestStreamBlockScaled checks that where streamBlockScaled multiplies a block-scaled rhs with package
// gemm's kernels, it gives the bits of the path it replaces (decode, convert, multiply through a
// MatMuler), and that it takes the products it should: every format the kernels read, as scaled-dot
// operands (blocks from the shapes, products rounded to bf16, results in f32, bf16 and f16) and as the
// custom calls' (blocks along K of their block size, scales padded, K ragged, products in f32 or in the
// result type), rhs stored [N, K] and [K, N], with a batch dimension and scales shared by the batches,
// M from 1 to 16, N around the kernels' panels; elements and scales random, extremes and NaNs included.
func TestStreamBlockScaled(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	taken, tried := 0, 0
	for i := 0; i < 160; i++ {
		tried++
		if streamBlockScaledCase(t, rng, i, 0) {
			taken++
		}
	}
	if taken < tried/2 {
		t.Errorf("the kernels took %d of %d products", taken, tried)
	}
}

// FuzzStreamBlockScaled is TestStreamBlockScaled's comparison on fuzzed cases, lhs drawn by mode: normal
// values, random bit patterns (NaN, infinities, subnormals), values near the top of float32's range, or
// about its smallest normal: where gemm's per-block scaling is decided.
func FuzzStreamBlockScaled(f *testing.F) {
	for i := range 8 {
		f.Add(uint8(i), uint8(i%4), uint64(i))
	}
	f.Fuzz(func(t *testing.T, i, mode uint8, seed uint64) {
		streamBlockScaledCase(t, rand.New(rand.NewPCG(seed, uint64(i))), int(i), int(mode%4))
	})
}

// streamBlockScaledCase runs case i of TestStreamBlockScaled (the format from i, the rest from rng), lhs
// drawn by mode (see FuzzStreamBlockScaled), and reports whether streamBlockScaled took the product.
func streamBlockScaledCase(t *testing.T, rng *rand.Rand, i, mode int) bool {
	t.Helper()
	formats := []blockscale.Format{blockscale.MXFP4, blockscale.NVFP4, blockscale.MXFP8E4M3, blockscale.MXFP8E5M2}
	f := formats[i%len(formats)]
	out := []dtype.Type{dtype.F32, dtype.BF16, dtype.F16}[rng.IntN(3)]
	m, n := []int64{1, 1, 3, 16}[rng.IntN(4)], []int64{1, 5, 64, 130}[rng.IntN(4)]
	call := i%2 == 0 // the custom calls' operands, else scaled-dot's
	trans := call || rng.IntN(2) == 0
	batch := int64(1 + rng.IntN(2))
	bs := int64(f.BlockSize)
	k := bs * int64(1+rng.IntN(5))
	if call && rng.IntN(2) == 0 {
		k -= int64(1 + rng.IntN(int(bs)-1)) // ragged: the last block is short, its scale padded
	}
	nb := (k + bs - 1) / bs
	// rhs [batch, N, K] or [batch, K, N]; its scales, with the batch dimension shared in some cases.
	sb := batch
	if !call && batch > 1 && rng.IntN(2) == 0 {
		sb = 1
	}
	var rhs scaledOperand
	var d dotDims
	lhsData := randomCodes(rng, dtype.F32, batch, m, k)
	for j := range lhsData.Float32s() {
		v := float32(rng.NormFloat64())
		switch mode {
		case 1:
			v = math.Float32frombits(rng.Uint32())
		case 2:
			v = float32(math.Ldexp(rng.Float64()-0.5, 100+rng.IntN(28)))
		case 3:
			v = float32(math.Ldexp(rng.Float64()-0.5, -140+rng.IntN(20)))
		}
		tensor.View[float32](lhsData)[j] = v
	}
	lhs := scaledOperand{data: lhsData}
	d.lhsBatch, d.rhsBatch, d.lhsContract = []int64{0}, []int64{0}, []int64{2}
	if trans {
		data := randomCodes(rng, f.Elem, batch, n, k)
		sc := randomCodes(rng, f.Scale, sb, n+int64(rng.IntN(2)), nb+int64(rng.IntN(2)))
		if call {
			var err error
			if rhs, err = plainScales(data, sc, bs); err != nil {
				t.Fatal(err)
			}
			rhs.round = dtype.F32
			if rng.IntN(2) == 0 {
				rhs.round = out // __op$block_scaled_dot
			}
		} else {
			sc = randomCodes(rng, f.Scale, sb, n, k/bs)
			rhs = scaledOperand{data: data, scales: sc, block: []int64{batch / sb, 1, bs}, round: dtype.BF16}
		}
		d.rhsContract = []int64{2}
	} else {
		// Blocks along N too where N is even (2 columns a scale).
		bn := 1 + (n+1)%2
		data := randomCodes(rng, f.Elem, batch, k, n)
		sc := randomCodes(rng, f.Scale, sb, k/bs, n/int64(bn))
		rhs = scaledOperand{data: data, scales: sc, block: []int64{batch / sb, bs, int64(bn)}, round: dtype.BF16}
		d.rhsContract = []int64{1}
	}
	name := fmt.Sprintf("%d/%s/%v/%dx%dx%dx%d/trans=%v/round=%v", i, f.Name, out, batch, m, n, k, trans, rhs.round)
	p, err := planDot(lhs.data.Shape, rhs.data.Shape, d)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	want := make([]float32, batch*m*n)
	old := &evaluator{gemm: plainMatMuler{}}
	if err := old.blockScaledProduct(p, d, lhs, rhs, out, want); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	a, err := convertTensor(lhs.data, out, lhs.data.Shape)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float32, batch*m*n)
	e := &evaluator{gemm: defaultMatMuler{}}
	if !e.streamBlockScaled(p, d, a, rhs, out, got) {
		// Only where the values differ: products rounded to bf16 or f16 with extreme scales.
		if rhs.round == dtype.F32 && out == dtype.F32 {
			t.Errorf("%s: not taken", name)
		}
		return false
	}
	for j := range want {
		if x, y := got[j], want[j]; math.Float32bits(x) != math.Float32bits(y) && !(x != x && y != y) {
			t.Fatalf("%s: element %d = %v (%#08x), want %v (%#08x)", name, j, x, math.Float32bits(x), y, math.Float32bits(y))
		}
	}
	return true
}

// TestBlockScaledAgrees checks the rule by which the kernels take a product: elements times scales
// rounded once to float32 agree with the path through float32 always, and through bf16 or f16 except
// where those types round or overflow.
func TestBlockScaledAgrees(t *testing.T) {
	op := func(f blockscale.Format, round dtype.Type, scale byte) scaledOperand {
		return scaledOperand{data: tensor.New(f.Elem, []int64{1}), scales: &tensor.Tensor{Type: f.Scale, Shape: []int64{1}, Data: []byte{scale}},
			block: []int64{1}, round: round}
	}
	for _, c := range []struct {
		f          blockscale.Format
		round, out dtype.Type
		scale      byte
		want       bool
	}{
		{blockscale.MXFP8E4M3, dtype.F32, dtype.F32, 0, true},          // 2^-136 is a float32 subnormal
		{blockscale.MXFP8E4M3, dtype.F32, dtype.F32, 254, true},        // 448 * 2^127 overflows alike
		{blockscale.MXFP8E4M3, dtype.F32, dtype.F32, 255, true},        // NaN
		{blockscale.MXFP8E4M3, dtype.BF16, dtype.F32, 127, true},       // every value a bf16 value
		{blockscale.MXFP8E4M3, dtype.BF16, dtype.F32, 0, false},        // 2^-136 flushed in bf16
		{blockscale.MXFP4, dtype.BF16, dtype.F32, 0, true},             // 0.5 * 2^-127 is a bf16 subnormal
		{blockscale.MXFP8E4M3, dtype.F16, dtype.F16, 127 + 7, true},    // 448 * 2^7 = 57344 <= 65504
		{blockscale.MXFP8E4M3, dtype.F16, dtype.F16, 127 + 8, false},   // 448 * 2^8 overflows f16
		{blockscale.MXFP8E4M3, dtype.BF16, dtype.F16, 127, true},       // 2^-9 to 448: f16 values
		{blockscale.MXFP8E4M3, dtype.BF16, dtype.F16, 127 - 20, false}, // 2^-29 is below f16's 2^-24
		{blockscale.NVFP4, dtype.F32, dtype.F32, 0x7f, true},           // NaN scale
		{blockscale.NVFP4, dtype.BF16, dtype.BF16, 0x01, true},         // 6 * 2^-9
	} {
		got := blockScaledAgrees(op(c.f, c.round, c.scale), c.out)
		if got != c.want {
			t.Errorf("%s, products in %v, result %v, scale %#x: %v, want %v", c.f, c.round, c.out, c.scale, got, c.want)
		}
	}
}

// TestBlockScaledFormsKernel runs every block-scaled form (scaled-dot, the custom calls) on the inputs
// of TestBlockScaledForms with the default MatMuler, where the products of 6 rows take package gemm's
// block-scaled kernels, and with another, where they take the decode-then-multiply path: the results
// must be the same bits.
func TestBlockScaledFormsKernel(t *testing.T) {
	pairs := [][2]blockscale.Format{
		{blockscale.MXFP8E4M3, blockscale.MXFP8E4M3},
		{blockscale.MXFP8E5M2, blockscale.MXFP8E4M3},
		{blockscale.MXFP8E4M3, blockscale.MXFP8E5M2},
		{blockscale.NVFP4, blockscale.NVFP4},
		{blockscale.MXFP4, blockscale.MXFP4},
	}
	for _, pair := range pairs {
		c := blockInputs(t, pair[0], pair[1])
		for _, out := range []dtype.Type{dtype.F32, dtype.BF16, dtype.F16} {
			for form, src := range c.modules(out) {
				if form == "__cudnn$blockScaledDot" && !(pair[0].Elem.BitWidth() == 8 || pair[0] == blockscale.NVFP4) {
					continue
				}
				if form == "__cudnn$blockScaledDot" && pair[0].Elem == dtype.F8E5M2 && pair[1].Elem == dtype.F8E5M2 {
					continue
				}
				m := parseModule(t, src)
				args := c.args(form)
				got, err := Run(m, args, Options{MaxMemory: 1 << 30})
				if err != nil {
					t.Fatalf("%s x %s/%s/%s: %v", pair[0], pair[1], out, form, err)
				}
				want, err := Run(m, args, Options{MaxMemory: 1 << 30, MatMuler: plainMatMuler{}})
				if err != nil {
					t.Fatal(err)
				}
				if n, first := sameBits(got.Array, want.Array); n > 0 {
					t.Errorf("%s x %s/%s/%s: %d elements differ (%s)", pair[0], pair[1], out, form, n, first)
				}
			}
		}
	}
}

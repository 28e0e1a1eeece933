package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"octet/blockscale"
)

// FuzzBlockScaled compares MatMulBlockScaled on every ordered kernel of this machine, on one and two
// goroutines, with Reference on B's values, bit for bit. The fuzzer picks the format, the block size, the
// shape, B stored either way, alpha and beta, and how A and the scales are drawn:
//   - mode 0: A of random bit patterns (NaN, infinities and subnormals included), any scale codes;
//   - mode 1: E8M0 scales in a narrow window and A's exponents at the least that per-block scaling
//     admits (blockScaledFast), with sums that cancel: the edge of the argument at blockScaledFast;
//   - mode 2: as mode 1 with A's exponents one to three below that edge, where per-block scaling is
//     refused;
//   - mode 3: A's values near the bound on the sums that blockScaledFast checks against overflow.
func FuzzBlockScaled(f *testing.F) {
	f.Add(uint8(0), uint8(1), uint8(64), uint16(64), uint8(0), uint64(1))
	f.Add(uint8(1), uint8(1), uint8(130), uint16(200), uint8(1), uint64(2))
	f.Add(uint8(2), uint8(16), uint8(64), uint16(33), uint8(2), uint64(3))
	f.Add(uint8(0), uint8(4), uint8(128), uint16(97), uint8(3), uint64(4))
	f.Add(uint8(3), uint8(8), uint8(7), uint16(300), uint8(1), uint64(5))
	f.Add(uint8(5), uint8(2), uint8(100), uint16(31), uint8(0x80), uint64(6))
	kernels := contractKernels()
	scalars := [][2]float32{{1, 0}, {-0.5, 0}, {1, 1}, {0.75, -1.5}}
	f.Fuzz(func(t *testing.T, format, m8, n8 uint8, k16 uint16, mode uint8, seed uint64) {
		in := newBlockScaledFuzzInput(format, m8, n8, k16, mode, seed)
		m, n, k, fm, w, am := in.m, in.n, in.k, in.f, in.w, in.a
		ab := scalars[int(mode>>5)&3]
		c0 := operand{m, n, false, 1}.build(in.rng, padC)
		want := clone(c0)
		Reference(want, am, blockScaledValues(in.b), ab[0], ab[1])
		fast := m == 1 && w.blockScaledFast(am.Data, blockScaledElems[fm.Elem].offset)
		for _, kern := range kernels {
			for _, threads := range []int{1, 2} {
				got := clone(c0)
				runOn(kern, threads, func() { MatMulBlockScaled(got, TypedOf(am), w, ab[0], ab[1]) })
				sameMatrix(t, fmt.Sprintf("%s, %s %dx%dx%d block %d, trans=%v, mode %#x, alpha=%v beta=%v, %d threads, per-block scaling %v",
					kern.Name(), fm.Name, m, n, k, fm.BlockSize, in.trans, mode, ab[0], ab[1], threads, fast), got, want)
			}
		}
	})
}

// A blockScaledFuzzInput is what FuzzBlockScaled's arguments make: B (b, packed as w) and A.
type blockScaledFuzzInput struct {
	rng     *rand.Rand
	f       blockscale.Format
	m, n, k int
	trans   bool
	b       BlockScaled
	w       *BlockScaledWeights
	a       Matrix
}

func newBlockScaledFuzzInput(format, m8, n8 uint8, k16 uint16, mode uint8, seed uint64) blockScaledFuzzInput {
	rng := rand.New(rand.NewPCG(seed, uint64(mode)))
	fm := blockScaledTestFormats[int(format)%len(blockScaledTestFormats)]
	if format/8%4 == 3 {
		fm.BlockSize = 1 + int(format/32)*7 // 1, 8, 15 or 22: not the format's own
	}
	m, n, k := 1+int(m8)%20, 1+int(n8)%200, 1+int(k16)%700
	trans := mode&0x80 != 0
	c := blockScaledCase{specials: mode&3 == 0 && seed%2 == 0, scaleLo: 1 + rng.IntN(240), scaleSp: 1 + rng.IntN(14)}
	if mode&3 != 0 {
		c.scaleLo = 7 + rng.IntN(240)
	}
	b := randomBlockScaled(rng, fm, 1, k, n, trans, c)
	w := PackBlockScaled(b)
	am := Matrix{Data: make([]float32, m*k), Rows: m, Cols: k, Stride: k}
	info := blockScaledElems[fm.Elem]
	edge := -126 + max(0, w.sMax) - info.quantum - w.sMin // least exponent of A's quanta admitted
	// The greatest exponent of A's values admitted, near enough: the sums' bound at blockScaledFast is
	// below 2^126 (and so divided by the least scale), give or take a factor of two or so.
	top := 126 - max(0, -w.sMin) - w.sMax - int(math.Ceil(math.Log2(info.umax*float64(k)))) + rng.IntN(3)
	for i := range am.Data {
		switch mode & 3 {
		case 0:
			am.Data[i] = math.Float32frombits(rng.Uint32())
		case 1, 2:
			e := edge + 23 + rng.IntN(6)
			if mode&3 == 2 {
				e -= 1 + rng.IntN(3)
			}
			e = min(e, 100-rng.IntN(8))
			v := float32(math.Ldexp(1+rng.Float64(), e))
			if i%k > 0 && rng.IntN(3) == 0 {
				v = -am.Data[i-1]
			}
			am.Data[i] = v
		case 3:
			am.Data[i] = float32(math.Ldexp(rng.Float64()-0.5, top+1-rng.IntN(3)))
		}
		if rng.IntN(12) == 0 {
			am.Data[i] = 0
		}
	}
	return blockScaledFuzzInput{rng, fm, m, n, k, trans, b, w, am}
}

// TestBlockScaledFuzzInputs checks that FuzzBlockScaled's modes reach the edges they are for: mode 1
// makes products that per-block scaling takes (for one row of A) in most cases, mode 2 in few (it lies
// just past the edge), mode 3 in some and not in others.
func TestBlockScaledFuzzInputs(t *testing.T) {
	for mode, want := range map[uint8][2]int{1: {50, 100}, 2: {0, 10}, 3: {20, 95}} {
		admitted, tried := 0, 0
		for seed := range uint64(200) {
			format := uint8(seed % 3) // MXFP4, NVFP4, MXFP8 E4M3
			if format == 1 {
				continue // f8e4m3fn scales: never per-block
			}
			in := newBlockScaledFuzzInput(format, 0, uint8(seed), uint16(seed*7), mode, seed)
			tried++
			if in.w.blockScaledFast(in.a.Data, blockScaledElems[in.f.Elem].offset) {
				admitted++
			}
		}
		if pct := 100 * admitted / tried; pct < want[0] || pct > want[1] {
			t.Errorf("mode %d: per-block scaling takes %d%% of %d products, want %d%% to %d%%", mode, pct, tried, want[0], want[1])
		}
	}
}

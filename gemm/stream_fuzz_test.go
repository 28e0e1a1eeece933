package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"octet/dtype"
)

// FuzzWeights compares the products of few rows by a B of each weight type (f8e4m3fn, f8e5m2, s8, bf16)
// on every ordered kernel of this machine, on one and two goroutines, with Reference on the decoded
// operands, bit for bit: MatMulTyped, MatMulWeights on WeightsOf and on PackWeights (with a scale per
// column in half the cases). B's codes are any bytes (NaN codes included); A's values, float32 or
// bfloat16, are drawn by mode: random bit patterns (NaN, infinities, subnormals), uniform in [-1, 1),
// near the top of float32's range (where A times 2^8, which some decodings read, overflows), or about
// float32's smallest normal, subnormals among them (where the products underflow).
func FuzzWeights(f *testing.F) {
	f.Add(uint8(0), uint8(1), uint8(64), uint16(64), uint8(0), uint64(1))
	f.Add(uint8(1), uint8(16), uint8(65), uint16(257), uint8(1), uint64(2))
	f.Add(uint8(2), uint8(5), uint8(130), uint16(33), uint8(2), uint64(3))
	f.Add(uint8(3), uint8(8), uint8(13), uint16(300), uint8(3), uint64(4))
	f.Add(uint8(0), uint8(17), uint8(200), uint16(129), uint8(0x82), uint64(5))
	kernels := contractKernels()
	types := WeightTypes()
	scalars := [][2]float32{{1, 0}, {-0.5, 0}, {1, 1}, {0.75, -1.5}}
	f.Fuzz(func(t *testing.T, typ, m8, n8 uint8, k16 uint16, mode uint8, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, uint64(mode)))
		tb := types[int(typ)%len(types)]
		ta := []dtype.Type{dtype.F32, dtype.BF16}[int(typ/16)%2]
		m, n, k := 1+int(m8)%20, 1+int(n8)%200, 1+int(k16)%600
		trans := mode&0x80 != 0
		ab := scalars[int(mode>>5)&3]

		// B: k x n (n x k where trans), one byte or word of any bits an element.
		sr, sc := k, n
		if trans {
			sr, sc = n, k
		}
		bm := Matrix{Data: make([]float32, sr*sc), Rows: k, Cols: n, Stride: sc, Trans: trans}
		braw := make([]byte, len(bm.Data)*tb.ByteSize())
		for i := range bm.Data {
			bits := rng.Uint64() & (1<<tb.BitWidth() - 1)
			putBits(braw, i, tb.ByteSize(), bits)
			bm.Data[i] = tb.DecodeFloat32(bits)
		}
		b := Typed{Type: tb, Data: braw, Rows: k, Cols: n, Stride: sc, Trans: trans}

		// A: m x k of ta, by mode.
		am := Matrix{Data: make([]float32, m*k), Rows: m, Cols: k, Stride: k}
		araw := make([]byte, len(am.Data)*ta.ByteSize())
		for i := range am.Data {
			var v float32
			switch mode & 3 {
			case 0:
				v = math.Float32frombits(rng.Uint32())
			case 1:
				v = float32(2*rng.Float64() - 1)
			case 2:
				v = float32(math.Ldexp(rng.Float64()-0.5, 110+rng.IntN(18)))
			case 3:
				v = float32(math.Ldexp(rng.Float64()-0.5, -140+rng.IntN(20)))
			}
			if rng.IntN(16) == 0 {
				v = 0
			}
			bits := ta.EncodeFloat32(v)
			putBits(araw, i, ta.ByteSize(), bits)
			am.Data[i] = ta.DecodeFloat32(bits)
		}
		a := Typed{Type: ta, Data: araw, Rows: m, Cols: k, Stride: k}

		var scale []float32
		if seed%2 == 1 {
			scale = make([]float32, n)
			for j := range scale {
				scale[j] = float32(rng.Float64() + 0.5)
			}
		}
		c0 := operand{m, n, false, 1}.build(rng, padC)
		want, wantScaled := clone(c0), clone(c0)
		Reference(want, am, bm, ab[0], ab[1])
		referenceScaled(wantScaled, am, bm, scale, ab[0], ab[1])
		direct, packed := WeightsOf(b, scale), PackWeights(b, scale)
		for _, kern := range kernels {
			for _, threads := range []int{1, 2} {
				for _, run := range []struct {
					name string
					f    func(c Matrix)
					want Matrix
				}{
					{"MatMulTyped", func(c Matrix) { MatMulTyped(c, a, b, ab[0], ab[1]) }, want},
					{"WeightsOf", func(c Matrix) { MatMulWeights(c, a, direct, ab[0], ab[1]) }, wantScaled},
					{"PackWeights", func(c Matrix) { MatMulWeights(c, a, packed, ab[0], ab[1]) }, wantScaled},
				} {
					got := clone(c0)
					runOn(kern, threads, func() { run.f(got) })
					sameMatrix(t, fmt.Sprintf("%s, %s: A %v, B %v %dx%dx%d, trans=%v, mode %#x, scale=%v, alpha=%v beta=%v, %d threads",
						run.name, kern.Name(), ta, tb, m, n, k, trans, mode, scale != nil, ab[0], ab[1], threads), got, run.want)
				}
			}
		}
	})
}

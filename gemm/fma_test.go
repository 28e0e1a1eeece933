package gemm

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// fmaExact is x*y + z computed exactly with big.Float and rounded once to float32, the definition fma32
// must meet. Infinities and NaNs in the operands give what float64 arithmetic gives (no rounding is
// involved); an exact zero gets its sign from float64 arithmetic, which is exact then.
func fmaExact(x, y, z float32) float32 {
	for _, v := range []float32{x, y, z} {
		if math.IsInf(float64(v), 0) || math.IsNaN(float64(v)) {
			return float32(math.FMA(float64(x), float64(y), float64(z)))
		}
	}
	const prec = 1200 // the products and sums of float32 values span fewer bits
	p := new(big.Float).SetPrec(prec).Mul(big.NewFloat(float64(x)), big.NewFloat(float64(y)))
	s := new(big.Float).SetPrec(prec).Add(p, big.NewFloat(float64(z)))
	if s.Sign() == 0 {
		return float32(float64(x)*float64(y) + float64(z))
	}
	f, _ := s.Float32()
	return f
}

// fmaCases returns triples on which rounding twice goes wrong or nearly does: products that are float32
// halfway points, plus addends too small to move the float64 sum off them, in the normal and the
// subnormal range; cancellations; sums at the overflow threshold; and random values of every magnitude,
// subnormals, zeros, infinities and NaNs included.
func fmaCases(rng *rand.Rand, n int) [][3]float32 {
	var cases [][3]float32
	// Products that are float32 halfway points: x, an integer of 23 or 24 bits, times y = 3 gives an odd
	// integer of 25 bits, scaled anywhere in the normal range; and small odd products scaled to halfway
	// points of the subnormal range (odd multiples of 2^-150). The addends are too small to move the float64
	// sum off the halfway point (of either sign), or exact, or of the product's size.
	for i := 0; i < n/4; i++ {
		x0 := float64((1<<24)/3 + rng.Int64N((1<<24)/3) | 1)
		ex := rng.IntN(200) - 100
		if i%4 == 0 { // subnormal halfway points
			x0 = float64(rng.Int64N(1<<uint(1+rng.IntN(20))) | 1)
			ex = -150
		}
		x := float32(math.Ldexp(x0, ex/2))
		y := float32(math.Ldexp(3, ex-ex/2))
		p := float64(x) * float64(y)
		_, e := math.Frexp(p)
		for _, z := range []float64{math.Ldexp(1, e-60), -math.Ldexp(1, e-60), 0x1p-149, -0x1p-149, math.Ldexp(1, e-25), p / 3} {
			cases = append(cases, [3]float32{x, y, float32(z)})
		}
	}
	// Products of 24-bit significands, with addends of any size.
	for i := 0; i < n/8; i++ {
		x := float32(1 + float64(rng.Uint32()&(1<<23-1))*0x1p-23)
		y := float32(1 + float64(rng.Uint32()&(1<<23-1))*0x1p-23)
		z := float32(math.Ldexp(rng.Float64()+1, -rng.IntN(150)))
		if rng.IntN(2) == 0 {
			z = -z
		}
		cases = append(cases, [3]float32{x, y, z})
		// Cancellation: z near -x*y.
		cases = append(cases, [3]float32{x, y, -float32(float64(x) * float64(y))})
	}
	// Near the overflow threshold.
	big := float32(0x1.fffffep127)
	for _, z := range []float32{big, -big, 0x1p103, -0x1p103, 0x1p104, 1} {
		cases = append(cases, [3]float32{0x1.fffffep63, 0x1p64, z}, [3]float32{big, 1, z}, [3]float32{0x1p127, 2, -z})
	}
	specials := []float32{0, float32(math.Copysign(0, -1)), 0x1p-149, -0x1p-149, 0x1.fffffcp-127, 0x1p-126, big, -big,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1, -1}
	random := func() float32 {
		switch rng.IntN(8) {
		case 0:
			return specials[rng.IntN(len(specials))]
		case 1: // subnormal
			return math.Float32frombits(rng.Uint32()&0x807fffff | 0)
		default: // any finite value
			for {
				if v := math.Float32frombits(rng.Uint32()); !math.IsInf(float64(v), 0) && !math.IsNaN(float64(v)) {
					return v
				}
			}
		}
	}
	for i := 0; i < n; i++ {
		x, y := random(), random()
		var z float32
		if rng.IntN(2) == 0 {
			z = random()
		} else { // an addend of the product's magnitude or a little below it
			p := float64(x) * float64(y)
			z = float32(math.Ldexp(p, -rng.IntN(40)) * (rng.Float64()*2 - 1))
		}
		cases = append(cases, [3]float32{x, y, z})
	}
	return cases
}

// TestFMA32 checks fma32 against the exact result rounded once, on cases built to catch a double rounding
// (which float32(math.FMA) gets wrong on some of them: the test checks that it does, so that the cases
// are known to reach the hard part).
func TestFMA32(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	n := 200000
	if testing.Short() {
		n = 20000
	}
	doubleRounded := 0
	cases := fmaCases(rng, n)
	for _, c := range cases {
		x, y, z := c[0], c[1], c[2]
		want := fmaExact(x, y, z)
		got := fma32(x, y, z)
		if !sameBits(got, want) {
			t.Fatalf("fma32(%g, %g, %g) = %g (%#08x), want %g (%#08x)", x, y, z, got, math.Float32bits(got), want, math.Float32bits(want))
		}
		if naive := float32(math.FMA(float64(x), float64(y), float64(z))); !sameBits(naive, want) {
			doubleRounded++
		}
	}
	if doubleRounded == 0 {
		t.Fatalf("no case of %d where float32(math.FMA) rounds wrong: the cases miss the hard part", len(cases))
	}
	t.Logf("%d cases, %d where rounding twice is wrong", len(cases), doubleRounded)
	// The example of fma32's comment.
	if got, naive := fma32(1+0x1p-23, 1.5, -0x1p-80), float32(math.FMA(1+0x1p-23, 1.5, -0x1p-80)); got != 1.5+0x1p-23 || naive != 1.5+0x1p-22 {
		t.Fatalf("fma32(1 + 2^-23, 1.5, -2^-80) = %g, float32(math.FMA) = %g; want 1.5 + 2^-23 and 1.5 + 2^-22", got, naive)
	}
}

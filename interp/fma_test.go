package interp

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"octet/gemm"
)

// exactFMA32 is a*b + c rounded once to float32, from the exact sum in math/big; an exact zero takes its
// sign as IEEE 754 gives it (float64's fused multiply-add has the same rule and is exact there).
func exactFMA32(a, b, c float32) float32 {
	if math.IsNaN(float64(a)) || math.IsNaN(float64(b)) || math.IsNaN(float64(c)) || math.IsInf(float64(a), 0) ||
		math.IsInf(float64(b), 0) || math.IsInf(float64(c), 0) {
		return float32(math.FMA(float64(a), float64(b), float64(c)))
	}
	x := new(big.Float).SetPrec(400).SetFloat64(float64(a))
	x.Mul(x, new(big.Float).SetFloat64(float64(b)))
	x.Add(x, new(big.Float).SetFloat64(float64(c)))
	if x.Sign() == 0 {
		return float32(math.FMA(float64(a), float64(b), float64(c)))
	}
	f, _ := x.Float32()
	return f
}

func TestFMA32(t *testing.T) {
	one := float32(1 + 0x1p-12)
	cases := [][3]float32{
		// (1+2^-12)^2 = 1 + 2^-11 + 2^-24 is a float32 midpoint; a tiny c decides, which a float64 sum loses.
		{one, one, 0x1p-80}, {one, one, -0x1p-80}, {-one, one, 0x1p-80}, {one, one, 0},
		{0x1p-70, 0x1p-70, 0x1p-149}, {0x1p-75, 0x1p-75, -0x1p-149}, {3, 0x1p-126, -0x1p-125}, // subnormal results
		{0, 5, float32(math.Copysign(0, -1))}, {float32(math.Copysign(0, -1)), 5, float32(math.Copysign(0, -1))},
		{float32(math.Inf(1)), 0, 1}, {float32(math.Inf(1)), 2, float32(math.Inf(-1))}, {0x1p100, 0x1p100, 1},
		// Exact zeros, which take the fast path: cancellation gives +0, zeros keep -0 only when both are.
		{2, -3, 6}, {-2, -3, -6}, {0, -5, 0}, {float32(math.Copysign(0, -1)), 5, 0}, {0, -5, float32(math.Copysign(0, -1))},
		{0x1p-100, 0x1p-100, -0x1p-200}, {0x1p-100, 0x1p-49, 0},
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 300000 {
		r := func(spread int) float32 {
			// Few significant bits make ties and cancellations common.
			m := float64(rng.IntN(1<<uint(rng.IntN(24)+1))) * (1 - 2*float64(rng.IntN(2)))
			return float32(math.Ldexp(m, rng.IntN(2*spread)-spread))
		}
		cases = append(cases, [3]float32{r(40), r(40), r(80)})
	}
	for _, c := range cases {
		got, want := gemm.FMA32(c[0], c[1], c[2]), exactFMA32(c[0], c[1], c[2])
		if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
			t.Fatalf("gemm.FMA32(%g, %g, %g) = %g (%#x), want %g (%#x)", c[0], c[1], c[2], got, math.Float32bits(got), want, math.Float32bits(want))
		}
	}
}

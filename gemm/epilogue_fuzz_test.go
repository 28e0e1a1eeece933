package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"octet/dtype"
)

// FuzzEpilogue compares MatMulEpilogue on every kernel of this machine (its epilogue steps in assembly,
// and in Go on the -gohelpers kernels), on one and two goroutines, with the epilogue's definition
// (finishRef) applied to the sums, element for element and for the abs-max. The fuzzer picks the shape,
// the parts of the epilogue, D's type and how the values are drawn: the sums' operands, the scales, the
// added matrix and the bias are random bit patterns (NaN, infinities, subnormals), values about 1, or
// values about the largest and the rounding boundaries of D's type.
func FuzzEpilogue(f *testing.F) {
	f.Add(uint8(3), uint8(70), uint8(40), uint16(0x00ff), uint8(0), uint64(1))
	f.Add(uint8(1), uint8(33), uint8(7), uint16(0x1234), uint8(1), uint64(2))
	f.Add(uint8(17), uint8(9), uint8(1), uint16(0xffff), uint8(2), uint64(3))
	f.Add(uint8(40), uint8(64), uint8(100), uint16(0x5a5a), uint8(3), uint64(4))
	dtypes := []dtype.Type{dtype.F32, dtype.BF16, dtype.F16, dtype.F8E4M3FN, dtype.F8E5M2}
	f.Fuzz(func(t *testing.T, m8, n8, k8 uint8, parts uint16, mode uint8, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, uint64(parts)))
		m, n, k := 1+int(m8)%48, 1+int(n8)%100, int(k8)%80
		dt := dtypes[int(parts>>12)%len(dtypes)]
		value := func() float32 {
			switch mode % 4 {
			case 0:
				return math.Float32frombits(rng.Uint32())
			case 1:
				return float32(2*rng.Float64() - 1)
			case 2: // about D's largest finite value and beyond
				return float32((2*rng.Float64() - 1) * 2 * dt.Finfo().Max)
			}
			// About D's rounding boundaries: a value of D, or halfway to its neighbour, or one ulp of
			// float32 off either.
			bits := rng.Uint64() & (1<<dt.BitWidth() - 1)
			v := dt.DecodeFloat32(bits)
			if next := dt.DecodeFloat32(bits + 1); rng.IntN(2) == 0 && !math.IsNaN(float64(next)) {
				v = float32((float64(v) + float64(next)) / 2)
			}
			return math.Float32frombits(math.Float32bits(v) + uint32(rng.IntN(3)) - 1)
		}
		vec := func(size int) []float32 {
			v := make([]float32, size)
			for i := range v {
				v[i] = value()
			}
			return v
		}
		a, _ := randomTyped(rng, dtype.F8E4M3FN, m, k, parts&1 != 0, 0, 0)
		b, _ := randomTyped(rng, dtype.F8E5M2, k, n, parts&2 != 0, 0, 0)
		ep := &Epilogue{Scale: 1, OutScale: 1, DType: dt}
		if parts&4 != 0 {
			ep.Scale = value()
		}
		if parts&8 != 0 {
			ep.RowScale = vec(m)
		}
		if parts&16 != 0 {
			ep.ColScale = vec(n)
		}
		if parts&32 != 0 {
			add := NewMatrix(m, n, vec(m*n))
			ep.Add, ep.AddScale = &add, value()
		}
		if parts&64 != 0 {
			ep.Bias = vec(n)
		}
		ep.Activation = []Activation{NoActivation, ReLU, GELU, NoActivation}[parts>>7&3]
		if parts&512 != 0 {
			ep.OutScale = value()
		}
		ep.Saturate = parts&1024 != 0
		toD := dt != dtype.F32 || parts&2048 != 0
		for _, kern := range testKernels() {
			for _, threads := range []int{1, 2} {
				sums, c := NewMatrix(m, n, nil), NewMatrix(m, n, nil)
				var amax float32
				ep.Amax, ep.D, ep.DStride = &amax, nil, 0
				if toD {
					ep.D, ep.DStride = make([]byte, m*n*dt.ByteSize()), n
				}
				runOn(kern, threads, func() {
					MatMulEpilogue(sums, a, b, &Epilogue{Scale: 1, OutScale: 1})
					MatMulEpilogue(c, a, b, ep)
				})
				want, wantAmax := finishRef(ep, sums)
				what := fmt.Sprintf("%s, %d threads, %dx%dx%d, D %v, parts %#x, mode %d", kern.Name(), threads, m, n, k, dt, parts, mode)
				for i := range want {
					got, w := epilogueResult(ep, c, want, i)
					if !sameBits(got, w) {
						t.Fatalf("%s: element %d = %v (%#08x), want %v (%#08x)", what, i, got, math.Float32bits(got), w, math.Float32bits(w))
					}
				}
				if !sameBits(amax, wantAmax) {
					t.Fatalf("%s: amax %v, want %v", what, amax, wantAmax)
				}
			}
		}
	})
}

package gemm

import (
	"math"
	"math/rand/v2"
	"testing"

	"octet/dtype"
)

// finishRef is the epilogue's definition, one element at a time, on sums s (M x N).
func finishRef(ep *Epilogue, s Matrix) (d []float32, amax float32) {
	d = make([]float32, s.Rows*s.Cols)
	for i := 0; i < s.Rows; i++ {
		for j := 0; j < s.Cols; j++ {
			x := float32(ep.Scale * s.At(i, j))
			if ep.RowScale != nil {
				x = float32(x * ep.RowScale[i])
			}
			if ep.ColScale != nil {
				x = float32(x * ep.ColScale[j])
			}
			if ep.Add != nil {
				x = float32(x + float32(ep.AddScale*ep.Add.At(i, j)))
			}
			if ep.Bias != nil {
				x = float32(x + ep.Bias[j])
			}
			switch ep.Activation {
			case ReLU: // max(x, 0), NaN and -0 kept
				if x < 0 {
					x = 0
				}
			case GELU:
				x = geluTanh(x)
			}
			ax := float32(math.Abs(float64(x)))
			if ax != ax || amax != amax {
				amax = float32(math.NaN())
			} else if ax > amax {
				amax = ax
			}
			x = float32(x * ep.OutScale)
			if ep.Saturate {
				max := float32(ep.DType.Finfo().Max)
				x = float32(math.Max(math.Min(float64(x), float64(max)), -float64(max)))
			}
			d[i*s.Cols+j] = x
		}
	}
	return d, amax
}

// epilogueResult returns element i of MatMulEpilogue's result (in ep.D, or in c where D is nil) and of
// want (finishRef's), rounded to D's type as the epilogue stores it.
func epilogueResult(ep *Epilogue, c Matrix, want []float32, i int) (got, w float32) {
	if ep.D == nil {
		return c.Data[i], want[i]
	}
	t := ep.DType
	return t.DecodeFloat32(getBits(ep.D, i, t.ByteSize())), t.DecodeFloat32(t.EncodeFloat32(want[i]))
}

// TestEpilogue checks MatMulEpilogue element for element against the epilogue's definition applied to
// the sums the same kernels compute (themselves checked against the float64 product), for the blocked
// and the streaming kernels, every D type the interpreter's FP8 matmul writes, and each part of the
// epilogue, its steps in assembly and in Go (the -gohelpers kernels); the abs-max is gathered across
// goroutines.
func TestEpilogue(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	defer SetThreads(SetThreads(2))
	vec := func(n int, lo float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(lo + rng.Float64())
		}
		return v
	}
	withKernel(t, func(t *testing.T) {
		for _, s := range []shape{{3, 70, 40}, {150, 97, 300}, {1, 1, 1}, {4, 5, 0}} {
			for variant := 0; variant < 6; variant++ {
				a, am := randomTyped(rng, dtype.F8E4M3FN, s.m, s.k, false, 0, 0)
				b, bm := randomTyped(rng, dtype.F8E5M2, s.k, s.n, variant%2 == 1, 0, 0)
				ep := &Epilogue{Scale: 0.5, OutScale: 1}
				dtypes := []dtype.Type{dtype.F32, dtype.BF16, dtype.F8E4M3FN, dtype.F8E5M2, dtype.F16, dtype.F32}
				ep.DType = dtypes[variant]
				var amax float32
				ep.Amax = &amax
				switch variant {
				case 1:
					ep.RowScale, ep.ColScale = vec(s.m, 0.5), vec(s.n, 0.5)
				case 2:
					add := operand{s.m, s.n, false, 1}.build(rng, 0)
					ep.Add, ep.AddScale = &add, -2
					ep.Activation, ep.Saturate, ep.OutScale = ReLU, true, 0.25
				case 3:
					ep.Bias, ep.Activation, ep.Saturate = vec(s.n, -0.5), GELU, true
				case 4:
					ep.Bias, ep.OutScale = vec(s.n, -1), 3
				}
				// The sums, from the same kernels, and the expected result from them.
				sums := NewMatrix(s.m, s.n, nil)
				MatMulEpilogue(sums, a, b, &Epilogue{Scale: 1, OutScale: 1})
				check(t, sums, NewMatrix(s.m, s.n, nil), am, bm, 1, 0)
				want, wantAmax := finishRef(ep, sums)

				c := operand{s.m, s.n, false, 0}.build(rng, float32(math.NaN()))
				if ep.DType != dtype.F32 || variant == 5 {
					ep.D = make([]byte, s.m*s.n*ep.DType.ByteSize())
					ep.DStride = s.n
				}
				MatMulEpilogue(c, a, b, ep)
				for i := range want {
					got, w := epilogueResult(ep, c, want, i)
					if math.Float32bits(got) != math.Float32bits(w) && !(got != got && w != w) {
						t.Fatalf("%v variant %d (D %v): element %d = %v, want %v", s, variant, ep.DType, i, got, w)
					}
				}
				if math.Float32bits(amax) != math.Float32bits(wantAmax) {
					t.Fatalf("%v variant %d: amax %v, want %v", s, variant, amax, wantAmax)
				}
			}
		}
	})
}

// TestEpilogueSteps checks each vector step of the epilogue against the Go loop it stands for, bit for
// bit, on values that test the edges (zeros, subnormals, the rounding boundaries of f8e4m3fn, 448 to 480,
// the largest floats, infinities, NaNs) and on random bit patterns, in runs of every length the steps
// take apart (32 at a time, 8 at a time, and a remainder left to Go).
func TestEpilogueSteps(t *testing.T) {
	h := Kernels()[0].isa
	if !h.epilogue {
		t.Skip("no vector epilogue steps on this machine")
	}
	var vals []float32
	for _, b := range []uint32{0, 1, 0x007fffff, 0x00800000, 0x3a800000, 0x3b000000, 0x3b800000, 0x3c000000,
		0x3c7fffff, 0x3c800000, 0x3c800001, 0x3f800000, 0x43e00000, 0x43e7ffff, 0x43e80000, 0x43e80001,
		0x43f00000, 0x43f00001, 0x7f7fffff, 0x7f800000, 0x7f800001, 0x7fc00000, 0x7fffffff} {
		vals = append(vals, math.Float32frombits(b), math.Float32frombits(b|0x80000000))
	}
	// Every f8e4m3fn value, and the points halfway between neighbours and just either side of them.
	for c := 0; c < 0x7f; c++ {
		lo, hi := dtype.F8E4M3FN.DecodeFloat32(uint64(c)), dtype.F8E4M3FN.DecodeFloat32(uint64(c+1))
		mid := float32((float64(lo) + float64(hi)) / 2)
		for _, v := range []float32{lo, mid, math.Nextafter32(mid, 0), math.Nextafter32(mid, 1000)} {
			vals = append(vals, v, -v)
		}
	}
	rng := rand.New(rand.NewPCG(61, 62))
	for len(vals) < 1<<16 {
		vals = append(vals, math.Float32frombits(rng.Uint32()))
	}
	same := func(a, b float32) bool {
		return math.Float32bits(a) == math.Float32bits(b) || (a != a && b != b)
	}
	for _, n := range []int{8, 16, 24, 32, 40, 64, 100, len(vals)} {
		src := vals[:n]
		other := vals[len(vals)-n:]
		// The encoder.
		got, want := make([]byte, n), make([]byte, n)
		done := h.epEncodeE4M3FNFast(got, src)
		dtype.EncodeSliceFloat32(dtype.F8E4M3FN, got[done:], src[done:], false)
		dtype.EncodeSliceFloat32(dtype.F8E4M3FN, want, src, false)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("n=%d: %#08x encodes to %#02x, dtype gives %#02x", n, math.Float32bits(src[i]), got[i], want[i])
			}
		}
		// The arithmetic steps, on a copy each, against their Go loops.
		fast, slow := make([]float32, n), make([]float32, n)
		check := func(step string) {
			t.Helper()
			for i := range fast {
				if !same(fast[i], slow[i]) {
					t.Fatalf("n=%d %s: element %d (%#08x) gives %#08x, Go %#08x", n, step, i,
						math.Float32bits(src[i]), math.Float32bits(fast[i]), math.Float32bits(slow[i]))
				}
			}
		}
		const s = float32(0.3)
		k := h.epScaleFast(fast, src, s)
		for i := range slow {
			if i >= k {
				fast[i] = float32(s * src[i])
			}
			slow[i] = float32(s * src[i])
		}
		check("scale")
		copy(fast, src)
		copy(slow, src)
		for i := h.epMulFast(fast, other); i < n; i++ {
			fast[i] = float32(fast[i] * other[i])
		}
		for i := range slow {
			slow[i] = float32(slow[i] * other[i])
		}
		check("mul")
		copy(fast, src)
		copy(slow, src)
		for i := h.epAddFast(fast, other, -2); i < n; i++ {
			fast[i] = float32(fast[i] + float32(-2*other[i]))
		}
		for i := range slow {
			slow[i] = float32(slow[i] + float32(-2*other[i]))
		}
		check("add")
		copy(fast, src)
		copy(slow, src)
		for i := h.epReLUFast(fast); i < n; i++ {
			if b := math.Float32bits(fast[i]); b-0x80000001 < 0x7f800000 {
				fast[i] = 0
			}
		}
		for i, x := range slow {
			if x < 0 {
				slow[i] = 0
			}
		}
		check("relu")
		for _, limit := range []float32{448, float32(math.Inf(1))} {
			copy(fast, src)
			copy(slow, src)
			k, amax := h.epFinishFast(fast, 0.5, limit)
			for i := k; i < n; i++ {
				amax = max(amax, math.Float32bits(fast[i])&0x7fffffff)
				fast[i] = min(max(float32(fast[i]*0.5), -limit), limit)
			}
			var want uint32
			for i, x := range slow {
				want = max(want, math.Float32bits(x)&0x7fffffff)
				y := float32(x * 0.5)
				if y > limit {
					y = limit
				} else if y < -limit {
					y = -limit
				}
				slow[i] = y
			}
			check("finish")
			if amax != want {
				t.Fatalf("n=%d: abs-max bits %#08x, want %#08x", n, amax, want)
			}
		}
	}
}

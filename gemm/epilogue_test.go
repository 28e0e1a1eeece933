package gemm

import (
	"encoding/binary"
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

// TestEpilogue checks MatMulEpilogue element for element against the epilogue's definition applied to
// the sums the same kernels compute (themselves checked against the float64 product), for the blocked
// and the streaming kernels, every D type the interpreter's FP8 matmul writes, and each part of the
// epilogue; the abs-max is gathered across goroutines.
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
					var got, w float32
					switch {
					case ep.D == nil:
						got, w = c.Data[i], want[i]
					case ep.DType == dtype.F32:
						got, w = math.Float32frombits(binary.LittleEndian.Uint32(ep.D[4*i:])), want[i]
					case ep.DType.ByteSize() == 2:
						bits := uint64(binary.LittleEndian.Uint16(ep.D[2*i:]))
						got, w = ep.DType.DecodeFloat32(bits), ep.DType.DecodeFloat32(ep.DType.EncodeFloat32(want[i]))
					default:
						got, w = ep.DType.DecodeFloat32(uint64(ep.D[i])), ep.DType.DecodeFloat32(ep.DType.EncodeFloat32(want[i]))
					}
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

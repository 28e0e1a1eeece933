package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"octet/dtype"
)

// rowValues returns n float32 values drawn from what elementwise arithmetic must get right: zeros of both
// signs, infinities, quiet and signalling NaNs of both signs with payloads, subnormals, the largest and
// smallest normals, values whose sums and products round (ties included), and ordinary ones.
func rowValues(rng *rand.Rand, n int) []float32 {
	specials := []uint32{0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0xff812345,
		0x7fbfffff, 0x00000001, 0x80000001, 0x007fffff, 0x807fffff, 0x00800000, 0x80800000, 0x7f7fffff,
		0xff7fffff, 0x3f800000, 0xbf800000, 0x3f800001, 0x4b000001, 0x33800000}
	v := make([]float32, n)
	for i := range v {
		switch r := rng.IntN(8); {
		case r == 0:
			v[i] = math.Float32frombits(specials[rng.IntN(len(specials))])
		case r == 1:
			v[i] = math.Float32frombits(rng.Uint32()) // anything, NaNs and subnormals included
		case r == 2:
			v[i] = float32(rng.IntN(5) - 2) // equal values and signed zeros
		default:
			v[i] = float32(rng.NormFloat64() * math.Pow(2, float64(rng.IntN(40)-20)))
		}
	}
	return v
}

// rowRef is one element of Row, written apart from the code under test.
func rowRef(op RowOp, a, b float32) float32 {
	switch op {
	case RowAdd:
		return a + b
	case RowSub:
		return a - b
	case RowMul:
		return a * b
	case RowDiv:
		return a / b
	case RowMax:
		if math.IsNaN(float64(a)) || !math.IsNaN(float64(b)) && !(a < b) {
			return a
		}
		return b
	case RowMin:
		if math.IsNaN(float64(a)) || !math.IsNaN(float64(b)) && !(b < a) {
			return a
		}
		return b
	}
	panic(op)
}

// TestRow checks every operation of every kernel against the element-by-element definition, bit for bit
// (NaNs included: the same NaN as the scalar instruction gives), on runs of every length up to 100 and a
// long one, at every alignment of the first element.
func TestRow(t *testing.T) {
	withKernel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 7))
		for op := RowOp(0); op < numRowOps; op++ {
			for _, n := range append(rangeInts(0, 100), 2048+13) {
				off := rng.IntN(16)
				x, y := rowValues(rng, n+off), rowValues(rng, n+off)
				dst := make([]float32, n+off+1)
				dst[n+off] = 42
				Row(op, dst[off:n+off], x[off:], y[off:])
				if dst[n+off] != 42 {
					t.Fatalf("%v of %d elements wrote past its end", op, n)
				}
				for i := 0; i < n; i++ {
					a, b := x[off+i], y[off+i]
					if got, want := math.Float32bits(dst[off+i]), math.Float32bits(rowRef(op, a, b)); got != want {
						t.Fatalf("%v of %d elements: element %d, %v (%#08x) and %v (%#08x): got %#08x, want %#08x",
							op, n, i, a, math.Float32bits(a), b, math.Float32bits(b), got, want)
					}
				}
			}
		}
	})
}

func rangeInts(lo, hi int) []int {
	var s []int
	for i := lo; i <= hi; i++ {
		s = append(s, i)
	}
	return s
}

// TestBF16Conversions checks EncodeBF16 on every bf16 value's float32 with the low halves that decide its
// rounding (zero, one, the largest below a tie, the tie, above it, all ones, and random ones), and
// DecodeBF16 on every code, against package dtype's conversions, bit for bit, with every kernel.
func TestBF16Conversions(t *testing.T) {
	withKernel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		lows := []uint32{0, 1, 0x7fff, 0x8000, 0x8001, 0xffff}
		var src []float32
		for hi := uint32(0); hi < 1<<16; hi++ {
			for _, lo := range append(lows, rng.Uint32()&0xffff) {
				src = append(src, math.Float32frombits(hi<<16|lo))
			}
		}
		for _, off := range []int{0, 3} {
			dst := make([]uint16, len(src))
			EncodeBF16(dst[off:], src[off:])
			for i := off; i < len(src); i++ {
				if want := uint16(dtype.BF16.EncodeFloat32(src[i])); dst[i] != want {
					t.Fatalf("EncodeBF16(%#08x) = %#04x, want %#04x", math.Float32bits(src[i]), dst[i], want)
				}
			}
		}
		codes := make([]uint16, 1<<16)
		for i := range codes {
			codes[i] = uint16(i)
		}
		for _, off := range []int{0, 5} {
			dst := make([]float32, len(codes))
			DecodeBF16(dst[off:], codes[off:])
			for i := off; i < len(codes); i++ {
				if got, want := math.Float32bits(dst[i]), math.Float32bits(dtype.BF16.DecodeFloat32(uint64(codes[i]))); got != want {
					t.Fatalf("DecodeBF16(%#04x) = %#08x, want %#08x", codes[i], got, want)
				}
			}
		}
	})
}

// TestDepthwise checks Depthwise with every kernel against the chain of fused multiply-adds written out
// (math/big-free: the package's fma32, which TestFMA32 checks), bit for bit but for the sign and payload
// of NaNs: features of every count around the vector widths, windows from one to 70 positions, position
// counts that leave a last group of one to three, and offsets that read a row of zeros.
func TestDepthwise(t *testing.T) {
	withKernel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(11, 12))
		for _, n := range []int{1, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 48, 64, 100} {
			for _, window := range []int{1, 2, 9, 25, 70} {
				for _, positions := range []int{1, 3, 4, 6, 9} {
					name := fmt.Sprintf("n=%d/window=%d/positions=%d", n, window, positions)
					ldk, ldd := n+rng.IntN(3), n+rng.IntN(3)
					src := rowValues(rng, 40*n)
					for i := range src[:n] {
						src[i] = 0 // a row of zeros, as padding reads
					}
					k := rowValues(rng, (window-1)*ldk+n)
					offs := make([]int, positions*window)
					for i := range offs {
						if rng.IntN(4) > 0 {
							offs[i] = rng.IntN(len(src) - n + 1)
						}
					}
					dst := make([]float32, (positions-1)*ldd+n)
					Depthwise(dst, ldd, src, offs, k, ldk, window, n)
					for p := 0; p < positions; p++ {
						for c := 0; c < n; c++ {
							var want float32
							for w := 0; w < window; w++ {
								want = fma32(src[offs[p*window+w]+c], k[w*ldk+c], want)
							}
							got := dst[p*ldd+c]
							if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
								t.Fatalf("%s: position %d, feature %d: got %v, want %v", name, p, c, got, want)
							}
						}
					}
				}
			}
		}
	})
}

// clampRef is XLA's clamp of one element, written apart from the code under test.
func clampRef(lo, x, hi float32) float32 {
	switch {
	case math.IsNaN(float64(lo)):
		return lo
	case math.IsNaN(float64(x)):
		return x
	case math.IsNaN(float64(hi)):
		return hi
	}
	// Among ordinary values, by comparisons, so that a signed zero comes from the operand XLA's evaluator
	// takes: x unless x < lo, then that unless it is not below hi.
	m := x
	if x < lo {
		m = lo
	}
	if !(m < hi) {
		m = hi
	}
	return m
}

// TestClamp checks Clamp and ClampBF16 with every kernel against the element-by-element definition, bit
// for bit, for bounds of every kind (ordinary, equal, signed zeros, infinite, reversed, NaN) on runs of
// every length up to 70 and a long one.
func TestClamp(t *testing.T) {
	bounds := [][2]float32{{0, 6}, {-1, 1}, {0, 0}, {float32(math.Copysign(0, -1)), 0}, {0, float32(math.Copysign(0, -1))},
		{float32(math.Inf(-1)), float32(math.Inf(1))}, {3, -3}, {float32(math.NaN()), 1}, {1, float32(math.NaN())},
		{-2.5, 1e-40}}
	withKernel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(8, 9))
		for _, b := range bounds {
			lo, hi := b[0], b[1]
			for _, n := range append(rangeInts(0, 70), 4096+9) {
				x := rowValues(rng, n)
				dst := make([]float32, n)
				Clamp(dst, x, lo, hi)
				for i := range x {
					if got, want := math.Float32bits(dst[i]), math.Float32bits(clampRef(lo, x[i], hi)); got != want {
						t.Fatalf("Clamp(%v, %v (%#08x), %v) = %#08x, want %#08x", lo, x[i], math.Float32bits(x[i]), hi, got, want)
					}
				}
				lb, hb := dtype.BF16.EncodeFloat32(lo), dtype.BF16.EncodeFloat32(hi)
				xb := make([]uint16, n)
				for i, v := range x {
					xb[i] = uint16(dtype.BF16.EncodeFloat32(v))
				}
				db := make([]uint16, n)
				ClampBF16(db, xb, uint16(lb), uint16(hb))
				for i := range xb {
					v := clampRef(dtype.BF16.DecodeFloat32(lb), dtype.BF16.DecodeFloat32(uint64(xb[i])), dtype.BF16.DecodeFloat32(hb))
					if want := uint16(dtype.BF16.EncodeFloat32(v)); db[i] != want {
						t.Fatalf("ClampBF16(%#04x, %#04x, %#04x) = %#04x, want %#04x", lb, xb[i], hb, db[i], want)
					}
				}
			}
		}
	})
}

// TestDepthwiseBases checks DepthwiseBases with every kernel against the chain of fused multiply-adds
// written out, as TestDepthwise does Depthwise, for rows at bases plus deltas (negative deltas included).
func TestDepthwiseBases(t *testing.T) {
	withKernel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(13, 14))
		for _, n := range []int{1, 8, 15, 16, 17, 32, 40, 64, 100} {
			for _, window := range []int{1, 3, 9, 25} {
				for _, positions := range []int{1, 2, 4, 5, 11} {
					name := fmt.Sprintf("n=%d/window=%d/positions=%d", n, window, positions)
					ldk, ldd := n+rng.IntN(3), n+rng.IntN(3)
					src := rowValues(rng, 60*n)
					k := rowValues(rng, (window-1)*ldk+n)
					deltas := make([]int, window)
					for w := range deltas {
						deltas[w] = rng.IntN(20*n+1) - 10*n
					}
					bases := make([]int, positions)
					for p := range bases {
						bases[p] = 10*n + rng.IntN(30*n)
					}
					dst := make([]float32, (positions-1)*ldd+n)
					DepthwiseBases(dst, ldd, src, bases, deltas, k, ldk, n)
					for p, b := range bases {
						for c := 0; c < n; c++ {
							var want float32
							for w, d := range deltas {
								want = fma32(src[b+d+c], k[w*ldk+c], want)
							}
							got := dst[p*ldd+c]
							if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
								t.Fatalf("%s: position %d, feature %d: got %v, want %v", name, p, c, got, want)
							}
						}
					}
				}
			}
		}
	})
}

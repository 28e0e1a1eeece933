package dtype_test

import (
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"testing"

	"octet/dtype"
)

// roundInt rounds the integer v to prec significant bits, ties to even, with math/big.
func roundInt(v *big.Int, prec uint) *big.Float {
	return new(big.Float).SetPrec(prec).SetMode(big.ToNearestEven).SetInt(v)
}

// TestConvertFromWideIntegers checks s64 and u64 to f32, f64 and bf16 against math/big: f32 and f64 are
// the integer rounded once; bf16 is the float32 rounded once more to 8 significant bits.
func TestConvertFromWideIntegers(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var vals []uint64
	for _, v := range []uint64{0, 1, math.MaxUint64, math.MaxInt64, 1 << 63, 1<<53 + 1, 1<<24 + 1,
		1<<62 + 1<<38 + 1, 1<<62 + 1<<38, 1<<62 + 1<<54 + 1} {
		vals = append(vals, v, -v)
	}
	for range 20000 {
		// Random widths, so that every exponent is seen, and values beside float32's midpoints.
		v := r.Uint64() >> r.UintN(64)
		vals = append(vals, v, -v)
		if n := bits.Len64(v); n > 25 {
			mid := v&^(1<<(n-24)-1) | 1<<(n-25)
			vals = append(vals, mid-1, mid, mid+1)
		}
	}
	for _, b := range vals {
		for _, src := range []dtype.Type{dtype.S64, dtype.U64} {
			v := new(big.Int).SetUint64(b)
			if src == dtype.S64 {
				v.SetInt64(int64(b))
			}
			f32, _ := roundInt(v, 24).Float32()
			if got, want := dtype.Convert(src, dtype.F32, b, false), uint64(math.Float32bits(f32)); got != want {
				t.Fatalf("Convert(%s, f32, %#x) = %#x, want %#x", src, b, got, want)
			}
			if got := src.DecodeFloat32(b); got != f32 {
				t.Fatalf("%s.DecodeFloat32(%#x) = %g, want %g", src, b, got, f32)
			}
			f64, _ := roundInt(v, 53).Float64()
			if got, want := dtype.Convert(src, dtype.F64, b, false), math.Float64bits(f64); got != want {
				t.Fatalf("Convert(%s, f64, %#x) = %#x, want %#x", src, b, got, want)
			}
			f32v := new(big.Float).SetFloat64(float64(f32))
			bf, _ := new(big.Float).SetPrec(8).SetMode(big.ToNearestEven).Set(f32v).Float32()
			if got, want := dtype.Convert(src, dtype.BF16, b, false), uint64(math.Float32bits(bf)>>16); got != want {
				t.Fatalf("Convert(%s, bf16, %#x) = %#x, want %#x", src, b, got, want)
			}
		}
	}
}

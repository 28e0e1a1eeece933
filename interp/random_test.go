package interp

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math"
	"testing"

	"octet/dtype"
	"octet/gemm"
)

func TestRandomInputs(t *testing.T) {
	sig := `(a: f32[1000], b: bf16[4,4], s: f32[], i: s32[100], u: u8[100], p: pred[100], q: f8e4m3fn[64])`
	m1 := parseModule(t, "ENTRY e {\n  a = f32[1000] parameter(0)\n  b = bf16[4,4] parameter(1)\n  s = f32[] parameter(2)\n  i = s32[100] parameter(3)\n  u = u8[100] parameter(4)\n  p = pred[100] parameter(5)\n  q = f8e4m3fn[64] parameter(6)\n  ROOT r = f32[1000] negate(a)\n}")
	// Another module with the same signature (other names and body) gets the same inputs.
	m2 := parseModule(t, "ENTRY other {\n  x = f32[1000] parameter(0)\n  y = bf16[4,4] parameter(1)\n  z = f32[] parameter(2)\n  w = s32[100] parameter(3)\n  v = u8[100] parameter(4)\n  o = pred[100] parameter(5)\n  n = f8e4m3fn[64] parameter(6)\n  ROOT r = f32[] add(z, z)\n}")
	a1, err := RandomInputs(m1, 7)
	if err != nil {
		t.Fatal(err)
	}
	a2, _ := RandomInputs(m2, 7)
	for i := range a1 {
		if !sameValue(a1[i], a2[i]) {
			t.Errorf("%s: parameter %d differs between two modules of the same signature", sig, i)
		}
	}
	a3, _ := RandomInputs(m1, 8)
	if sameValue(a1[0], a3[0]) {
		t.Errorf("seeds 7 and 8 give the same values")
	}
	// Standard normal: mean near 0, deviation near 1 (1000 samples: within 0.15).
	x := a1[0].Array.Float64s()
	var mean, sq float64
	for _, v := range x {
		mean += v
		sq += v * v
	}
	mean /= float64(len(x))
	sd := math.Sqrt(sq/float64(len(x)) - mean*mean)
	if math.Abs(mean) > 0.15 || math.Abs(sd-1) > 0.15 {
		t.Errorf("normal inputs have mean %g and deviation %g", mean, sd)
	}
	if s := a1[2].Array.Float64s()[0]; s < 0.5 || s >= 2 {
		t.Errorf("scalar input %g not in [0.5, 2)", s)
	}
	for _, v := range a1[3].Array.Int64s() {
		if v < -4 || v > 4 {
			t.Fatalf("s32 input %d not in [-4, 4]", v)
		}
	}
	for _, v := range a1[4].Array.Int64s() {
		if v < 0 || v > 4 {
			t.Fatalf("u8 input %d not in [0, 4]", v)
		}
	}
	trues := 0
	for _, b := range a1[5].Array.Data {
		trues += int(b)
	}
	if trues < 20 || trues > 80 {
		t.Errorf("%d of 100 pred inputs true", trues)
	}
	// Narrow floats are normal values rounded to the type: all finite here.
	for _, v := range a1[6].Array.Float64s() {
		if math.IsNaN(v) || math.Abs(v) > 10 {
			t.Fatalf("f8e4m3fn input %g", v)
		}
	}
	// Parameters with the same shape but different numbers differ.
	m3 := parseModule(t, "ENTRY e {\n  a = f32[8] parameter(0)\n  b = f32[8] parameter(1)\n  ROOT r = f32[8] add(a, b)\n}")
	a4, _ := RandomInputs(m3, 1)
	if sameValue(a4[0], a4[1]) {
		t.Errorf("parameters 0 and 1 got the same values")
	}
}

func TestCompareValues(t *testing.T) {
	a := val(t, "f32[4] {1, 2, nan, 4}")
	b := val(t, "f32[4] {1, 2.5, nan, -inf}")
	c := Compare(a, b)
	if c.Elements != 4 || c.BitMatches != 2 || c.MaxAt != 3 || !math.IsInf(c.MaxAbsDiff, 1) {
		t.Errorf("Compare = %+v", c)
	}
	if c.Identical() || c.MatchRate() != 0.5 {
		t.Errorf("Identical %v, MatchRate %g", c.Identical(), c.MatchRate())
	}
	c = Compare(val(t, "f8e4m3fn[2] {1, 2}"), val(t, "f8e4m3fn[2] {1, 2.25}"))
	if c.BitMatches != 1 || c.MaxAbsDiff != 0.25 || c.A != 2 || c.B != 2.25 || c.MaxRelDiff != 0.25/2.25 {
		t.Errorf("Compare = %+v", c)
	}
	if c := Compare(val(t, "f32[2] {1, 2}"), val(t, "f32[3] {1, 2, 3}")); c.Mismatch == "" {
		t.Errorf("different shapes compared: %+v", c)
	}
	if c := Compare(val(t, "f32[1] {0}"), val(t, "f32[1] {-0}")); c.BitMatches != 0 || c.MaxAbsDiff != 0 {
		t.Errorf("0 vs -0: %+v", c)
	}
	ta := TupleValue(val(t, "s32[1] {1}"), val(t, "f32[1] {2}"))
	tb := TupleValue(val(t, "s32[1] {1}"), val(t, "f32[1] {3}"))
	if c := Compare(ta, tb); c.Elements != 2 || c.BitMatches != 1 || c.MaxAt != 1 {
		t.Errorf("tuples: %+v", c)
	}
}

// TestRandomInputsGolden pins the values of RandomInputs: users rely on the inputs of a seed, so a change
// of the generator (its hashes, its Box-Muller arithmetic, its rounding to the types) must fail here. The
// digests are of each parameter's bytes, on one thread and on three.
func TestRandomInputsGolden(t *testing.T) {
	m := parseModule(t, "ENTRY e {\n  a = f32[20001] parameter(0)\n  b = f64[9999] parameter(1)\n  c = bf16[3,5] parameter(2)\n  d = f8e8m0fnu[17] parameter(3)\n  e = c64[7] parameter(4)\n  f = c128[5] parameter(5)\n  g = f16[9] parameter(6)\n  h = f8e4m3fn[33] parameter(7)\n  i = f64[1] parameter(8)\n  ROOT r = f32[20001] negate(a)\n}")
	want := []string{"025c676ff350f8b8", "3f02df3b590827cd", "ff149ff9d20d6d15", "e03db854a09dfa7b",
		"4418152e1afd7250", "eca376942de520e1", "1d2a7ab9a855462f", "9d91f4f370fb312b", "debcc0592a72252c"}
	for _, threads := range []int{1, 3} {
		args, err := RandomInputsThreads(m, 12345, threads)
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range args {
			got := fmt.Sprintf("%x", sha256.Sum256(a.Array.Data))[:16]
			if i >= len(want) || got != want[i] {
				t.Errorf("%d threads: parameter %d (%s) hashes to %s", threads, i, m.Entry.Params[i].Shape.String(), got)
			}
		}
	}
}

// normalPairRef is normal values 2i and 2i+1 of the stream key as the documentation of normalUniforms
// writes them: math's own functions, where the build gives their amd64 (GOAMD64=v1) bits; in a build
// whose math fuses multiply-adds (fusingBuild), gemm.BoxMuller on the one pair (whose bits gemm's tests
// check).
func normalPairRef(key uint64, i int64) (float64, float64) {
	u1, u2 := normalUniforms(key, i)
	if fusingBuild {
		a, b := []float64{u1}, []float64{u2}
		gemm.BoxMuller(a, b, a, b)
		return a[0], b[0]
	}
	r := math.Sqrt(-2 * math.Log(u1))
	s, c := math.Sincos(2 * math.Pi * u2)
	return r * c, r * s
}

// TestRandomNormals compares the normal values of float arrays, computed in blocks of pairs by
// gemm.BoxMuller, with normalPairRef one pair at a time: every length to 9, lengths around a block of
// pairs, and lengths that split among threads, f32 (and its magnitudes) and f64, under every kernel (each a kernel set of
// gemm.BoxMuller); and the values written straight into an array of each float type.
func TestRandomNormals(t *testing.T) {
	lengths := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 511, 512, 513, 514, 1023, 1025, 3*8192 + 7}
	for _, k := range gemm.Kernels() {
		t.Run(k.Name(), func(t *testing.T) {
			defer gemm.SetKernel(gemm.SetKernel(k))
			for _, n := range lengths {
				for _, threads := range []int{1, 3} {
					key := mix(11, uint64(n))
					d64 := make([]float64, n)
					normals(key, d64, threads, false)
					d32 := make([]float32, n)
					normals(key, d32, threads, false)
					abs := make([]float32, n)
					normals(key, abs, threads, true)
					for j := range n {
						a, b := normalPairRef(key, int64(j/2))
						want := a
						if j%2 == 1 {
							want = b
						}
						if math.Float64bits(d64[j]) != math.Float64bits(want) || math.Float32bits(d32[j]) != math.Float32bits(float32(want)) {
							t.Fatalf("length %d, %d threads: element %d is %v (f32 %v), want %v", n, threads, j, d64[j], d32[j], want)
						}
						if math.Float32bits(abs[j]) != math.Float32bits(float32(math.Abs(want))) {
							t.Fatalf("length %d, %d threads: element %d's magnitude is %v, want %v", n, threads, j, abs[j], math.Abs(want))
						}
					}
					// Straight into an array's bytes: each type's encoding of the float32 values.
					for _, ty := range []dtype.Type{dtype.F32, dtype.BF16, dtype.F16, dtype.F8E4M3FN, dtype.F8E5M2, dtype.F4E2M1FN, dtype.F8E8M0FNU} {
						src := d32
						if ty == dtype.F8E8M0FNU {
							src = abs
						}
						want := make([]byte, n*ty.ByteSize())
						encodeFloat32Into(ty, want, src)
						got := make([]byte, len(want))
						normalsInto(key, ty, got, n, threads, ty == dtype.F8E8M0FNU)
						if !bytes.Equal(got, want) {
							t.Fatalf("length %d, %d threads: %s values differ from the encoded float32 ones", n, threads, ty)
						}
					}
				}
			}
		})
	}
}

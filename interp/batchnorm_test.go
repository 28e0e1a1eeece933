package interp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestBatchNormXLATest runs XLA's BatchNormalizationTest.BasicTraining module (../shared's hlo-roundtrip
// corpus holds it) and compares with the test's expectation (xla/tests/batch_normalization_test.cc: the
// output within its ErrorSpec(0.1), the means 4 and 5, the variances 5 and 5), and requires the output's
// first element exactly: (1 - 4)·rsqrt(5 + 0.001)·2 + 1, each step rounded to float32.
func TestBatchNormXLATest(t *testing.T) {
	m := loadShared(t, "corpus", "hlo-roundtrip", "long__BatchNormTraining.hlo")
	v, err := Run(m, nil, Options{MaxMemory: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	y, mean, variance := v.Tuple[0].Array.Float64s(), v.Tuple[1].Array.Float64s(), v.Tuple[2].Array.Float64s()
	want := []float64{-1.6, -2.0, 0.1, 0.6, 1.9, 3.3, 3.7, 6.0}
	for i := range want {
		if math.Abs(y[i]-want[i]) > 0.1 {
			t.Errorf("y[%d] = %g, XLA's test expects %g ± 0.1", i, y[i], want[i])
		}
	}
	if !slices.Equal(mean, []float64{4, 5}) || !slices.Equal(variance, []float64{5, 5}) {
		t.Errorf("mean %v variance %v, want [4 5] [5 5]", mean, variance)
	}
	rs := float32(1 / math.Sqrt(float64(float32(5)+float32(0.001))))
	if first := float32(float32(float32(-3)*rs)*2) + 1; y[0] != float64(first) {
		t.Errorf("y[0] = %v, want %v", y[0], first)
	}
}

// bnReference computes what BatchNormExpander's computation gives, one float32 operation at a time, the
// sums over the elements of a feature in row-major order (as the interpreter's reductions of fewer than
// 4096 elements add them): an implementation apart from the HLO the interpreter writes.
type bnReference struct {
	dims []int64
	f    int
	eps  float32
}

func (r bnReference) feature(i int) int {
	stride := 1
	for d := len(r.dims) - 1; d > r.f; d-- {
		stride *= int(r.dims[d])
	}
	return i / stride % int(r.dims[r.f])
}

func (r bnReference) sums(x []float32) []float32 {
	s := make([]float32, r.dims[r.f])
	for i, v := range x {
		s[r.feature(i)] += v
	}
	return s
}

func (r bnReference) count() float32 { return float32(len1(r.dims) / int(r.dims[r.f])) }

func len1(dims []int64) int {
	n := 1
	for _, d := range dims {
		n *= int(d)
	}
	return n
}

func rsqrt32(x float32) float32 { return float32(1 / math.Sqrt(float64(x))) }

func (r bnReference) training(x, scale, offset []float32) (y, mean, variance []float32) {
	n := r.count()
	x2 := make([]float32, len(x))
	for i, v := range x {
		x2[i] = v * v
	}
	sum, sum2 := r.sums(x), r.sums(x2)
	mean, variance = make([]float32, len(sum)), make([]float32, len(sum))
	for k := range sum {
		mean[k] = sum[k] / n
		variance[k] = sum2[k]/n - mean[k]*mean[k]
	}
	y = make([]float32, len(x))
	for i, v := range x {
		k := r.feature(i)
		y[i] = (v-mean[k])*rsqrt32(variance[k]+r.eps)*scale[k] + offset[k]
	}
	return y, mean, variance
}

func (r bnReference) inference(x, scale, offset, mean, variance []float32) []float32 {
	y := make([]float32, len(x))
	for i, v := range x {
		k := r.feature(i)
		s := scale[k] * rsqrt32(variance[k]+r.eps)
		y[i] = v*s + (offset[k] - mean[k]*s)
	}
	return y
}

func (r bnReference) grad(x, scale, mean, variance, dy []float32) (dx, dscale, doffset []float32) {
	n := r.count()
	xm, dyxm := make([]float32, len(x)), make([]float32, len(x))
	for i, v := range x {
		xm[i] = v - mean[r.feature(i)]
		dyxm[i] = dy[i] * xm[i]
	}
	sumDyXm, sumDy := r.sums(dyxm), r.sums(dy)
	dscale = make([]float32, len(sumDy))
	for k := range dscale {
		dscale[k] = sumDyXm[k] * rsqrt32(variance[k]+r.eps)
	}
	dx = make([]float32, len(x))
	for i := range x {
		k := r.feature(i)
		i5 := sumDyXm[k] * xm[i] / (variance[k] + r.eps)
		dx[i] = scale[k] * rsqrt32(variance[k]+r.eps) / n * (dy[i]*n - sumDy[k] - i5)
	}
	return dx, dscale, sumDy
}

// TestBatchNormBits compares the three instructions, bit for bit, with bnReference on random inputs of
// several shapes and feature dimensions (including variances of either sign for inference and grad).
func TestBatchNormBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var nested func(dims []int64, x []float32) string
	nested = func(dims []int64, x []float32) string {
		if len(dims) == 0 {
			return fmt.Sprintf("%.9g", x[0])
		}
		step := len(x) / int(dims[0])
		parts := make([]string, dims[0])
		for i := range parts {
			parts[i] = nested(dims[1:], x[i*step:(i+1)*step])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	literal := func(dims []int64, x []float32) string {
		return fmt.Sprintf("f32[%s] %s", strings.Trim(strings.Join(strings.Fields(fmt.Sprint(dims)), ","), "[]"), nested(dims, x))
	}
	random := func(n int, scale, shift float64) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64()*scale + shift)
		}
		return x
	}
	same := func(name string, got []float64, want []float32) {
		for i := range want {
			if math.Float32bits(float32(got[i])) != math.Float32bits(want[i]) {
				t.Errorf("%s[%d] = %v, want %v", name, i, float32(got[i]), want[i])
				return
			}
		}
	}
	for _, tc := range []struct {
		dims []int64
		f    int
	}{{[]int64{2, 2, 1, 2}, 3}, {[]int64{5, 3}, 1}, {[]int64{4, 3, 2}, 0}, {[]int64{3, 4, 5}, 1}, {[]int64{7}, 0}} {
		shape := strings.Trim(strings.Join(strings.Fields(fmt.Sprint(tc.dims)), ","), "[]")
		nf := int(tc.dims[tc.f])
		fs := fmt.Sprintf("f32[%d]", nf)
		ref := bnReference{dims: tc.dims, f: tc.f, eps: 0.001}
		n := len1(tc.dims)
		x, dy := random(n, 3, 1), random(n, 1, 0)
		scale, offset, mean, variance := random(nf, 1, 1), random(nf, 1, 0), random(nf, 1, 0), random(nf, 2, 1)
		fd := func(v []float32) string { return literal([]int64{int64(nf)}, v) }
		xs := literal(tc.dims, x)

		src := fmt.Sprintf("ENTRY e {\n  x = f32[%s] parameter(0)\n  s = %s parameter(1)\n  o = %s parameter(2)\n  ROOT r = (f32[%s], %s, %s) batch-norm-training(x, s, o), epsilon=0.001, feature_index=%d\n}", shape, fs, fs, shape, fs, fs, tc.f)
		v, err := evalText(t, src, xs, fd(scale), fd(offset))
		if err != nil {
			t.Fatalf("training %v: %v", tc.dims, err)
		}
		y, m, va := ref.training(x, scale, offset)
		same(fmt.Sprintf("training %v y", tc.dims), v.Tuple[0].Array.Float64s(), y)
		same(fmt.Sprintf("training %v mean", tc.dims), v.Tuple[1].Array.Float64s(), m)
		same(fmt.Sprintf("training %v var", tc.dims), v.Tuple[2].Array.Float64s(), va)

		src = fmt.Sprintf("ENTRY e {\n  x = f32[%s] parameter(0)\n  s = %s parameter(1)\n  o = %s parameter(2)\n  m = %s parameter(3)\n  v = %s parameter(4)\n  ROOT r = f32[%s] batch-norm-inference(x, s, o, m, v), epsilon=0.001, feature_index=%d\n}", shape, fs, fs, fs, fs, shape, tc.f)
		v, err = evalText(t, src, xs, fd(scale), fd(offset), fd(mean), fd(variance))
		if err != nil {
			t.Fatalf("inference %v: %v", tc.dims, err)
		}
		same(fmt.Sprintf("inference %v", tc.dims), v.Array.Float64s(), ref.inference(x, scale, offset, mean, variance))

		src = fmt.Sprintf("ENTRY e {\n  x = f32[%s] parameter(0)\n  s = %s parameter(1)\n  m = %s parameter(2)\n  v = %s parameter(3)\n  dy = f32[%s] parameter(4)\n  ROOT r = (f32[%s], %s, %s) batch-norm-grad(x, s, m, v, dy), epsilon=0.001, feature_index=%d\n}", shape, fs, fs, fs, shape, shape, fs, fs, tc.f)
		v, err = evalText(t, src, xs, fd(scale), fd(mean), fd(variance), literal(tc.dims, dy))
		if err != nil {
			t.Fatalf("grad %v: %v", tc.dims, err)
		}
		dx, ds, do := ref.grad(x, scale, mean, variance, dy)
		same(fmt.Sprintf("grad %v dx", tc.dims), v.Tuple[0].Array.Float64s(), dx)
		same(fmt.Sprintf("grad %v dscale", tc.dims), v.Tuple[1].Array.Float64s(), ds)
		same(fmt.Sprintf("grad %v doffset", tc.dims), v.Tuple[2].Array.Float64s(), do)
	}
}

// TestBatchNormInLoop: the expansion is written once per instruction and runs at every iteration of a
// loop, and an operand of another type than the activation is refused.
func TestBatchNormInLoop(t *testing.T) {
	src := `HloModule l
body {
  p = (s32[], f32[4,2]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[4,2] get-tuple-element(p), index=1
  s = f32[2] constant({1, 1})
  o = f32[2] constant({0, 0})
  bn = (f32[4,2], f32[2], f32[2]) batch-norm-training(x, s, o), epsilon=0, feature_index=1
  y = f32[4,2] get-tuple-element(bn), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT r = (s32[], f32[4,2]) tuple(j, y)
}
cond {
  p = (s32[], f32[4,2]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}
ENTRY e {
  x = f32[4,2] parameter(0)
  zero = s32[] constant(0)
  t = (s32[], f32[4,2]) tuple(zero, x)
  w = (s32[], f32[4,2]) while(t), condition=cond, body=body
  ROOT y = f32[4,2] get-tuple-element(w), index=1
}`
	v, err := evalText(t, src, "f32[4,2] {{1, 10}, {3, 10}, {5, 30}, {7, 30}}")
	if err != nil {
		t.Fatal(err)
	}
	// Normalised once, each column is ±a·(1, ... ) with mean 0 and variance 1; normalising again changes
	// it only by rounding: column 1 is exactly ±1.
	if got := v.Array.Float64s(); got[1] != -1 || got[3] != -1 || got[5] != 1 || got[7] != 1 {
		t.Errorf("after three normalisations: %v", got)
	}
	mixed := "ENTRY e {\n  x = bf16[2,2] parameter(0)\n  s = f32[2] parameter(1)\n  o = f32[2] parameter(2)\n  ROOT r = (bf16[2,2], f32[2], f32[2]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1\n}"
	if _, err := evalText(t, mixed, "bf16[2,2] {{1, 2}, {3, 4}}", "f32[2] {1, 1}", "f32[2] {0, 0}"); err == nil || !isUnsupported(err) {
		t.Errorf("mixed types: %v, want unsupported", err)
	}
}

// TestBatchNormNoFeatures runs the three batch norms over zero features: each gives its empty results
// (the expansion's broadcasts of the empty statistics were read as views of one element, and refused).
func TestBatchNormNoFeatures(t *testing.T) {
	for _, root := range []string{
		"(f32[2,0], f32[0], f32[0]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1",
		"f32[2,0] batch-norm-inference(x, s, o, s, o), epsilon=0.001, feature_index=1",
		"(f32[2,0], f32[0], f32[0]) batch-norm-grad(x, s, o, s, x), epsilon=0.001, feature_index=1",
	} {
		m := parseModule(t, "HloModule m\nENTRY e {\n  x = f32[2,0] parameter(0)\n  s = f32[0] parameter(1)\n  o = f32[0] parameter(2)\n  ROOT r = "+root+"\n}\n")
		var args []Value
		for _, p := range m.Entry.Params {
			args = append(args, zeroValue(p.Shape))
		}
		got, err := Run(m, args, Options{})
		if err != nil {
			t.Errorf("%s: %v", root, err)
			continue
		}
		for i, a := range got.Flatten() {
			if a.NumElements() != 0 {
				t.Errorf("%s: result %d is %s, want it empty", root, i, a)
			}
		}
	}
}

package interp

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"octet/dtype"
	"octet/gemm"
	"octet/tensor"
)

// countPacks replaces packWeights with one that counts the packings, until the test ends.
func countPacks(t *testing.T) *int {
	var mu sync.Mutex
	n := new(int)
	prev := packWeights
	packWeights = func(b gemm.Typed, scale []float32) *gemm.Weights {
		mu.Lock()
		*n++
		mu.Unlock()
		return prev(b, scale)
	}
	t.Cleanup(func() { packWeights = prev })
	return n
}

// f32MatMuler multiplies through package gemm's float32 API alone, so that a dot's narrow operands are
// decoded to float32 first and nothing is streamed or packed: the unpacked evaluation.
type f32MatMuler struct{}

func (f32MatMuler) MatMulBatched(count int, c gemm.Matrix, strideC int, a gemm.Matrix, strideA int, b gemm.Matrix, strideB int, alpha, beta float32) {
	gemm.MatMulBatched(count, c, strideC, a, strideA, b, strideB, alpha, beta)
}

// decodeLoop is a decode loop: 8 iterations of x = (x . W^T) / 1024 (W stored N x K, as PyTorch keeps a
// Linear's weight, or K x N with rowMajor), W an FP8 parameter of the entry computation, passed through
// the loop's state, or a constant of the loop's body (constant).
func decodeLoop(rows, k int, rowMajor, constant bool, w []byte) string {
	contract := 1
	if rowMajor {
		contract = 0
	}
	state := fmt.Sprintf("(s32[], f32[%d,%d], f8e4m3fn[%d,%d])", rows, k, k, k)
	weight := "w = f8e4m3fn[%[2]d,%[2]d] get-tuple-element(s), index=2"
	if constant {
		var lit strings.Builder
		lit.WriteString("{")
		for i := 0; i < k; i++ {
			if i > 0 {
				lit.WriteString(", ")
			}
			lit.WriteString("{")
			for j := 0; j < k; j++ {
				if j > 0 {
					lit.WriteString(", ")
				}
				fmt.Fprint(&lit, dtype.F8E4M3FN.DecodeFloat32(uint64(w[i*k+j])))
			}
			lit.WriteString("}")
		}
		lit.WriteString("}")
		weight = "w = f8e4m3fn[%[2]d,%[2]d] constant(" + lit.String() + ")"
	}
	return fmt.Sprintf(`body {
  s = %[3]s parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[%[1]d,%[2]d] get-tuple-element(s), index=1
  `+weight+`
  d = f32[%[1]d,%[2]d] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={%[4]d}
  t = f32[%[1]d,%[2]d] multiply(d, f32[%[1]d,%[2]d] broadcast(f32[] constant(0.0009765625)), dimensions={})
  n = s32[] add(i, s32[] constant(1))
  ROOT r = %[3]s tuple(n, t, w)
}
cond {
  s = %[3]s parameter(0)
  i = s32[] get-tuple-element(s), index=0
  ROOT c = pred[] compare(i, s32[] constant(8)), direction=LT
}
ENTRY e {
  x = f32[%[1]d,%[2]d] parameter(0)
  w = f8e4m3fn[%[2]d,%[2]d] parameter(1)
  init = %[3]s tuple(s32[] constant(0), x, w)
  l = %[3]s while(init), condition=cond, body=body
  ROOT o = f32[%[1]d,%[2]d] get-tuple-element(l), index=1
}`, rows, k, state, contract)
}

// decodeInputs returns x (rows x k, values in [-1, 1)) and W (k x k random finite f8e4m3fn codes).
func decodeInputs(rows, k int) (x Value, w []byte) {
	rng := rand.New(rand.NewPCG(91, 92))
	xs := tensor.New(dtype.F32, []int64{int64(rows), int64(k)})
	xv := tensor.View[float32](xs)
	for i := range xv {
		xv[i] = float32(rng.Float64()*2 - 1)
	}
	w = make([]byte, k*k)
	for i := range w {
		for {
			w[i] = byte(rng.IntN(256))
			if w[i]&0x7f != 0x7f {
				break
			}
		}
	}
	return ArrayValue(xs), w
}

// TestWeightsPackedOnce runs a decode loop of 8 iterations over the same FP8 weight, stored N x K, as a
// parameter and as a constant: the weight is packed once (at its second use), and the results are those of
// the unpacked evaluation (every dot decoded to float32 and run by the blocked kernel) bit for bit. A
// weight stored K x N, which streams as fast where it lies, is never packed.
func TestWeightsPackedOnce(t *testing.T) {
	const rows, k = 4, 192
	x, w := decodeInputs(rows, k)
	wv := ArrayValue(tensor.FromBits(dtype.F8E4M3FN, []int64{k, k}, bitsOf(w)))
	for _, tc := range []struct {
		name               string
		rowMajor, constant bool
		packs              int
	}{
		{"parameter", false, false, 1},
		{"constant", false, true, 1},
		{"parameter stored K x N", true, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := parseModule(t, decodeLoop(rows, k, tc.rowMajor, tc.constant, w))
			packs := countPacks(t)
			got, err := Run(m, []Value{x, wv}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if *packs != tc.packs {
				t.Errorf("%d packings of the weight in 8 iterations, want %d", *packs, tc.packs)
			}
			want, err := Run(m, []Value{x, wv}, Options{MatMuler: f32MatMuler{}})
			if err != nil {
				t.Fatal(err)
			}
			if *packs != tc.packs {
				t.Errorf("the unpacked evaluation packed")
			}
			if n, first := sameBits(got.Array, want.Array); n > 0 {
				t.Errorf("%d elements differ from the unpacked evaluation's, the first %s", n, first)
			}
		})
	}
}

// TestWeightsBudget checks that the packed weights are counted in the memory budget: the estimate names
// the memory they may take, and with just that room beyond the program's own estimate the weight is
// packed, with a byte less it is not (and the results are the same).
func TestWeightsBudget(t *testing.T) {
	const rows, k = 4, 192
	x, w := decodeInputs(rows, k)
	wv := ArrayValue(tensor.FromBits(dtype.F8E4M3FN, []int64{k, k}, bitsOf(w)))
	m := parseModule(t, decodeLoop(rows, k, false, false, w))
	est := EstimateMemory(m)
	if want := gemm.PackedBytes(dtype.F8E4M3FN, k, k); est.PackedWeights != want {
		t.Errorf("the estimate's packed weights take %d bytes, want %d (the one dot's B)", est.PackedWeights, want)
	}
	need := est.Bytes + est.PackedWeights
	var results []*tensor.Tensor
	for _, tc := range []struct {
		budget int64
		packs  int
	}{{need, 1}, {need - 1, 0}} {
		packs := countPacks(t)
		got, err := Run(m, []Value{x, wv}, Options{MaxMemory: tc.budget})
		if err != nil {
			t.Fatal(err)
		}
		if *packs != tc.packs {
			t.Errorf("budget %d (the estimate %d): %d packings, want %d", tc.budget, EstimateMemory(m).Bytes, *packs, tc.packs)
		}
		results = append(results, got.Array)
	}
	if n, first := sameBits(results[0], results[1]); n > 0 {
		t.Errorf("%d elements differ packed and not, the first %s", n, first)
	}
}

func bitsOf(b []byte) []uint64 {
	u := make([]uint64, len(b))
	for i, c := range b {
		u[i] = uint64(c)
	}
	return u
}

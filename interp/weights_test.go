package interp

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"octet/blockscale"
	"octet/dtype"
	"octet/gemm"
	"octet/hlo"
	"octet/hlo/parser"
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
	checkBudgets(t, m, []Value{x, wv}, est.Bytes, countPacks, [2]budgetRun{{need, 1}, {need - 1, 0}})
}

// A budgetRun is a memory budget and the packings a run within it makes.
type budgetRun struct {
	budget int64
	packs  int
}

// checkBudgets runs m on args within each budget of runs (the first packing, the second not; estimate:
// the program's own), checking the packings counted by count and that the two give the same bits.
func checkBudgets(t *testing.T, m *hlo.Module, args []Value, estimate int64, count func(*testing.T) *int, runs [2]budgetRun) {
	t.Helper()
	var results []*tensor.Tensor
	for _, c := range runs {
		packs := count(t)
		got, err := Run(m, args, Options{MaxMemory: c.budget})
		if err != nil {
			t.Fatal(err)
		}
		if *packs != c.packs {
			t.Errorf("budget %d (the estimate %d): %d packings, want %d", c.budget, estimate, *packs, c.packs)
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

// countBlockPacks replaces packBlockScaled with one that counts the packings, until the test ends.
func countBlockPacks(t *testing.T) *int {
	var mu sync.Mutex
	n := new(int)
	prev := packBlockScaled
	packBlockScaled = func(b gemm.BlockScaled) *gemm.BlockScaledWeights {
		mu.Lock()
		*n++
		mu.Unlock()
		return prev(b)
	}
	t.Cleanup(func() { packBlockScaled = prev })
	return n
}

// blockWeight returns a block-scaled weight of f: random element codes of the given shape (its last
// dimension K) and scales of moderate size (2^-4 to 1 for E8M0, 0.5 to 2 for f8e4m3fn), one per block of
// K, at which every element times its scale is the same value rounded to bf16 or not.
func blockWeight(rng *rand.Rand, f blockscale.Format, shape ...int64) (data, scales *tensor.Tensor) {
	data = tensor.New(f.Elem, shape)
	for i := range data.Data {
		for {
			data.Data[i] = byte(rng.IntN(1 << f.Elem.BitWidth()))
			if f.Elem.BitWidth() == 4 || data.Data[i]&0x7f != 0x7f {
				break
			}
		}
	}
	sshape := append([]int64(nil), shape...)
	sshape[len(sshape)-1] /= int64(f.BlockSize)
	scales = tensor.New(f.Scale, sshape)
	for i := range scales.Data {
		if f.Scale == dtype.F8E8M0FNU {
			scales.Data[i] = byte(123 + rng.IntN(5))
		} else {
			scales.Data[i] = byte(0x30 + rng.IntN(17))
		}
	}
	return data, scales
}

// literal writes t's values as the text of a constant.
func literal(t *tensor.Tensor) string {
	var b strings.Builder
	var rec func(dims []int64, vals []float64)
	rec = func(dims []int64, vals []float64) {
		b.WriteString("{")
		step := int64(len(vals)) / max(dims[0], 1)
		for i := int64(0); i < dims[0]; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			if len(dims) == 1 {
				fmt.Fprint(&b, vals[i])
			} else {
				rec(dims[1:], vals[i*step:(i+1)*step])
			}
		}
		b.WriteString("}")
	}
	rec(t.Shape, t.Float64s())
	return b.String()
}

// blockDecodeLoop is a decode loop over a block-scaled weight: 8 iterations of x = scaled-dot(x, W) / 32,
// x f32 [batch,] rows x K unscaled, W of format f stored [batch,] N x K (N = K) with its scales, both
// parameters of the entry computation passed through the loop's state, or with constW constants of the
// loop's body (their literals).
func blockDecodeLoop(f blockscale.Format, batch, rows, k int64, constW, constS string) string {
	shape := func(t dtype.Type, d ...int64) string {
		if batch > 0 {
			d = append([]int64{batch}, d...)
		}
		return shapeText(t, d...)
	}
	xs := shape(dtype.F32, rows, k)
	ws := shape(f.Elem, k, k)
	ss := shape(f.Scale, k, k/int64(f.BlockSize))
	state := fmt.Sprintf("(s32[], %s, %s, %s)", xs, ws, ss)
	w := fmt.Sprintf("w = %s get-tuple-element(s), index=2\n  ws = %s get-tuple-element(s), index=3", ws, ss)
	if constW != "" {
		w = fmt.Sprintf("w = %s constant(%s)\n  ws = %s constant(%s)", ws, constW, ss, constS)
	}
	dn := "lhs_contracting_dims={1}, rhs_contracting_dims={1}"
	if batch > 0 {
		dn = "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={2}"
	}
	return strings.NewReplacer("STATE", state, "XS", xs, "W", ws, "SS", ss).Replace(`body {
  s = STATE parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = XS get-tuple-element(s), index=1
  ` + w + `
  d = XS scaled-dot(x, w, f32[] constant(1), ws), ` + dn + `
  t = XS multiply(d, XS broadcast(f32[] constant(0.03125)), dimensions={})
  n = s32[] add(i, s32[] constant(1))
  ROOT r = STATE tuple(n, t, w, ws)
}
cond {
  s = STATE parameter(0)
  i = s32[] get-tuple-element(s), index=0
  ROOT c = pred[] compare(i, s32[] constant(8)), direction=LT
}
ENTRY e {
  x = XS parameter(0)
  w = W parameter(1)
  ws = SS parameter(2)
  init = STATE tuple(s32[] constant(0), x, w, ws)
  l = STATE while(init), condition=cond, body=body
  ROOT o = XS get-tuple-element(l), index=1
}`)
}

// cudnnDecodeLoop is a loop of 8 iterations of acc += __cudnn$blockScaledDot(a, W) over the same NVFP4
// operands, a (rows x K) and W (N x K), their scales swizzled, all parameters of the entry computation.
func cudnnDecodeLoop(rows, n, k int64) string {
	pr, pc := blockscale.SwizzlePadded(rows, k/16)
	wr, _ := blockscale.SwizzlePadded(n, k/16)
	state := fmt.Sprintf("(s32[], f32[%d,%d], f4e2m1fn[%d,%d], f8e4m3fn[%d,%d], f4e2m1fn[%d,%d], f8e4m3fn[%d,%d])",
		rows, n, rows, k, pr, pc, n, k, wr, pc)
	return strings.NewReplacer("STATE", state, "ACC", fmt.Sprintf("f32[%d,%d]", rows, n)).Replace(fmt.Sprintf(`body {
  s = STATE parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = ACC get-tuple-element(s), index=1
  a = f4e2m1fn[%[1]d,%[3]d] get-tuple-element(s), index=2
  as = f8e4m3fn[%[4]d,%[5]d] get-tuple-element(s), index=3
  w = f4e2m1fn[%[2]d,%[3]d] get-tuple-element(s), index=4
  ws = f8e4m3fn[%[6]d,%[5]d] get-tuple-element(s), index=5
  call = (ACC, u8[0]) custom-call(a, w, as, ws), custom_call_target="__cudnn$blockScaledDot"
  d = ACC get-tuple-element(call), index=0
  sum = ACC add(acc, d)
  n = s32[] add(i, s32[] constant(1))
  ROOT r = STATE tuple(n, sum, a, as, w, ws)
}
cond {
  s = STATE parameter(0)
  i = s32[] get-tuple-element(s), index=0
  ROOT c = pred[] compare(i, s32[] constant(8)), direction=LT
}
ENTRY e {
  a = f4e2m1fn[%[1]d,%[3]d] parameter(0)
  as = f8e4m3fn[%[4]d,%[5]d] parameter(1)
  w = f4e2m1fn[%[2]d,%[3]d] parameter(2)
  ws = f8e4m3fn[%[6]d,%[5]d] parameter(3)
  init = STATE tuple(s32[] constant(0), ACC broadcast(f32[] constant(0)), a, as, w, ws)
  l = STATE while(init), condition=cond, body=body
  ROOT o = ACC get-tuple-element(l), index=1
}`, rows, n, k, pr, pc, wr))
}

// swizzled returns scales (rows x cols) in cuDNN's padded, swizzled layout.
func swizzled(s *tensor.Tensor) *tensor.Tensor {
	pr, pc := blockscale.SwizzlePadded(s.Shape[0], s.Shape[1])
	return &tensor.Tensor{Type: s.Type, Shape: []int64{pr, pc}, Data: blockscale.Swizzle(s.Data, 1, s.Shape[0], s.Shape[1])}
}

// blockLoopCase is a decode loop over block-scaled weights and its arguments.
type blockLoopCase struct {
	name string
	src  string
	args []Value
	// weights is how many weights (batches of one) the loop multiplies by.
	weights int
}

// blockLoopCases returns decode loops over MXFP4, NVFP4 and MXFP8 weights read by scaled-dot (as
// parameters, as constants, and a batch of two weights), and over an NVFP4 weight read by cuDNN's
// block-scaled GEMM with its scales swizzled.
func blockLoopCases(t *testing.T) []blockLoopCase {
	const rows, k = 4, 256
	rng := rand.New(rand.NewPCG(93, 94))
	x := func(shape ...int64) Value {
		xs := tensor.New(dtype.F32, shape)
		for i, v := 0, tensor.View[float32](xs); i < len(v); i++ {
			v[i] = float32(rng.Float64()*2 - 1)
		}
		return ArrayValue(xs)
	}
	var cases []blockLoopCase
	for _, f := range []blockscale.Format{blockscale.MXFP4, blockscale.NVFP4, blockscale.MXFP8E4M3} {
		w, ws := blockWeight(rng, f, k, k)
		cases = append(cases, blockLoopCase{f.Name, blockDecodeLoop(f, 0, rows, k, "", ""),
			[]Value{x(rows, k), ArrayValue(w), ArrayValue(ws)}, 1})
	}
	const kc = 128
	w, ws := blockWeight(rng, blockscale.MXFP4, kc, kc)
	cases = append(cases, blockLoopCase{"mxfp4 constant", blockDecodeLoop(blockscale.MXFP4, 0, rows, kc, literal(w), literal(ws)),
		[]Value{x(rows, kc), ArrayValue(w), ArrayValue(ws)}, 1})
	w, ws = blockWeight(rng, blockscale.MXFP4, 2, k, k)
	cases = append(cases, blockLoopCase{"mxfp4 batch of 2", blockDecodeLoop(blockscale.MXFP4, 2, rows, k, "", ""),
		[]Value{x(2, rows, k), ArrayValue(w), ArrayValue(ws)}, 2})
	a, as := blockWeight(rng, blockscale.NVFP4, rows, k)
	w, ws = blockWeight(rng, blockscale.NVFP4, k, k)
	cases = append(cases, blockLoopCase{"nvfp4 cudnn swizzled", cudnnDecodeLoop(rows, k, k),
		[]Value{ArrayValue(a), ArrayValue(swizzled(as)), ArrayValue(w), ArrayValue(swizzled(ws))}, 1})
	return cases
}

// TestBlockScaledWeightsPackedOnce runs decode loops of 8 iterations over the same block-scaled weights:
// each weight is packed for its first product (the block-scaled kernels read only packed weights), kept,
// and not packed again (8 packings each before the run kept them, 2 while it kept them from their second
// use), and the results
// are those of the unpacked evaluation (every rhs decoded to float32 and run by the blocked kernel) bit for
// bit.
func TestBlockScaledWeightsPackedOnce(t *testing.T) {
	for _, tc := range blockLoopCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			m := parseModule(t, tc.src)
			packs := countBlockPacks(t)
			got, err := Run(m, tc.args, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if want := tc.weights; *packs != want {
				t.Errorf("%d packings of %d weights in 8 iterations, want %d", *packs, tc.weights, want)
			}
			before := *packs
			want, err := Run(m, tc.args, Options{MatMuler: f32MatMuler{}})
			if err != nil {
				t.Fatal(err)
			}
			if *packs != before {
				t.Errorf("the unpacked evaluation packed")
			}
			if n, first := sameBits(got.Array, want.Array); n > 0 {
				t.Errorf("%d elements differ from the unpacked evaluation's, the first %s", n, first)
			}
			if v := tensor.View[float32](got.Array); v[0] != v[0] || v[0] == 0 {
				t.Errorf("the loop's first element is %v: nothing to compare", v[0])
			}
		})
	}
}

// TestBlockScaledWeightsBudget checks that the packed block-scaled weights are counted in the memory
// budget: the estimate names the memory they take packed (gemm.BlockScaledPackedBytes, for each batch),
// and with just that room beyond the program's own estimate each weight is kept from its first use, with
// a byte less the last one to come does not fit and is packed for every product (and the results are the
// same).
func TestBlockScaledWeightsBudget(t *testing.T) {
	for _, tc := range blockLoopCases(t) {
		if strings.Contains(tc.name, "constant") {
			continue // the constants kept take room too
		}
		t.Run(tc.name, func(t *testing.T) {
			m := parseModule(t, tc.src)
			w := tc.args[len(tc.args)-2].Array
			f := blockscale.Format{Elem: w.Type, Scale: tc.args[len(tc.args)-1].Array.Type, BlockSize: 32}
			if f.Scale == dtype.F8E4M3FN {
				f.BlockSize = 16
			}
			k := int(w.Shape[len(w.Shape)-1])
			est := EstimateMemory(m)
			if want := int64(tc.weights) * gemm.BlockScaledPackedBytes(f, k, k); est.PackedWeights != want {
				t.Errorf("the estimate's packed weights take %d bytes, want %d", est.PackedWeights, want)
			}
			need := est.Bytes + est.PackedWeights
			checkBudgets(t, m, tc.args, est.Bytes, countBlockPacks, [2]budgetRun{{need, tc.weights}, {need - 1, tc.weights - 1 + 8}})
		})
	}
}

// BenchmarkBlockScaledDecodeLoop runs an 8-iteration decode loop of one row over a 4096 x 4096
// block-scaled weight, its packed form kept from its first use ("kept") and, with a byte less room than
// it needs, packed for every product ("repacked").
func BenchmarkBlockScaledDecodeLoop(b *testing.B) {
	const rows, k = 1, 4096
	rng := rand.New(rand.NewPCG(95, 96))
	for _, f := range []blockscale.Format{blockscale.MXFP4, blockscale.NVFP4, blockscale.MXFP8E4M3} {
		w, ws := blockWeight(rng, f, k, k)
		xs := tensor.New(dtype.F32, []int64{rows, k})
		for i, v := 0, tensor.View[float32](xs); i < len(v); i++ {
			v[i] = float32(rng.Float64()*2 - 1)
		}
		m, err := parser.ParseString("loop.hlo", blockDecodeLoop(f, 0, rows, k, "", ""))
		if err != nil {
			b.Fatal(err)
		}
		args := []Value{ArrayValue(xs), ArrayValue(w), ArrayValue(ws)}
		est := EstimateMemory(m)
		for _, mode := range []struct {
			name string
			room int64
		}{{"repacked", est.PackedWeights - 1}, {"kept", est.PackedWeights}} {
			b.Run(f.Name+"/"+mode.name, func(b *testing.B) {
				for b.Loop() {
					if _, err := Run(m, args, Options{MaxMemory: est.Bytes + mode.room}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestBlockScaledWeightsInScans runs a scan whose function multiplies by a block-scaled weight it carries
// through: the function runs once per position, as a while's body runs once per iteration, so the weight
// is packed at its first product and kept for the others.
func TestBlockScaledWeightsInScans(t *testing.T) {
	const k, steps = 64, 3
	rng := rand.New(rand.NewPCG(101, 102))
	f := blockscale.MXFP4
	w, ws := blockWeight(rng, f, k, k)
	x := tensor.New(dtype.F32, []int64{steps, 1, k})
	for i, v := 0, tensor.View[float32](x); i < len(v); i++ {
		v[i] = float32(rng.Float64()*2 - 1)
	}
	wt, st := shapeText(f.Elem, k, k), shapeText(f.Scale, k, k/int64(f.BlockSize))
	src := fmt.Sprintf(`HloModule m
step {
  x = f32[1,%[1]d] parameter(0)
  w = %[2]s parameter(1)
  ws = %[3]s parameter(2)
  d = f32[1,%[1]d] scaled-dot(x, w, f32[] constant(1), ws), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  ROOT r = (f32[1,%[1]d], %[2]s, %[3]s) tuple(d, w, ws)
}
ENTRY e {
  xs = f32[%[4]d,1,%[1]d] parameter(0)
  w = %[2]s parameter(1)
  ws = %[3]s parameter(2)
  s = (f32[%[4]d,1,%[1]d], %[2]s, %[3]s) scan(xs, w, ws), dimensions={0}, num_carries=2, to_apply=step
  ROOT r = f32[%[4]d,1,%[1]d] get-tuple-element(s), index=0
}
`, k, wt, st, steps)
	m := parseModule(t, src)
	if packs := blockPacksOfRun(t, m, []Value{ArrayValue(x), ArrayValue(w), ArrayValue(ws)}); packs != 1 {
		t.Errorf("%d positions of a scan multiplying by one weight: %d packings, want 1", steps, packs)
	}
}

// blockPacksOfRun runs m on args, checks the result against the evaluation with the plain float32
// products bit for bit, and returns how many block-scaled weights the run packed.
func blockPacksOfRun(t *testing.T, m *hlo.Module, args []Value) int {
	t.Helper()
	packs := countBlockPacks(t)
	got, err := Run(m, args, Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := *packs
	want, err := Run(m, args, Options{MatMuler: f32MatMuler{}})
	if err != nil {
		t.Fatal(err)
	}
	if d, first := sameBits(got.Array, want.Array); d > 0 {
		t.Errorf("%d elements differ from the unpacked evaluation's, the first %s", d, first)
	}
	return n
}

// TestBlockScaledWeightsOutsideLoops: a block-scaled rhs read by products outside any loop is kept from
// its second use, as a dot's B is, so that a weight read once holds no packed copy: three products of
// the same weight pack it twice (the first product's packing is not kept), one product once, and the
// results are those of the loop-free evaluation without the kernels.
func TestBlockScaledWeightsOutsideLoops(t *testing.T) {
	const k = 64
	rng := rand.New(rand.NewPCG(99, 100))
	f := blockscale.MXFP4
	w, ws := blockWeight(rng, f, k, k)
	x := tensor.New(dtype.F32, []int64{1, k})
	for i, v := 0, tensor.View[float32](x); i < len(v); i++ {
		v[i] = float32(rng.Float64()*2 - 1)
	}
	for _, c := range []struct {
		products, packs int
	}{{1, 1}, {3, 2}} {
		var body strings.Builder
		prev := "x"
		for i := range c.products {
			fmt.Fprintf(&body, "  d%d = f32[1,%d] scaled-dot(%s, w, f32[] constant(1), ws), lhs_contracting_dims={1}, rhs_contracting_dims={1}\n", i, k, prev)
			prev = fmt.Sprintf("d%d", i)
		}
		src := fmt.Sprintf("HloModule m\nENTRY e {\n  x = f32[1,%d] parameter(0)\n  w = %s parameter(1)\n  ws = %s parameter(2)\n%s  ROOT r = f32[1,%d] copy(%s)\n}\n",
			k, shapeText(f.Elem, k, k), shapeText(f.Scale, k, k/int64(f.BlockSize)), body.String(), k, prev)
		m := parseModule(t, src)
		if packs := blockPacksOfRun(t, m, []Value{ArrayValue(x), ArrayValue(w), ArrayValue(ws)}); packs != c.packs {
			t.Errorf("%d products of one weight outside loops: %d packings, want %d", c.products, packs, c.packs)
		}
	}
}

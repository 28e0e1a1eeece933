package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"octet/dtype"
)

// contractKernels returns the ordered kernels of testKernels, and those with streaming kernels once more
// without them ("-blocked": their products of few rows then run the blocked algorithm panel by panel).
func contractKernels() []*Kernel {
	var ks []*Kernel
	for _, k := range testKernels() {
		if !k.Ordered() {
			continue
		}
		ks = append(ks, k)
		if k.streams != nil {
			b := withISA(k, k.isa, "-blocked")
			b.streams = nil
			ks = append(ks, b)
		}
	}
	return ks
}

// contractBlocks are the block sizes the contract test sets besides the defaults: small and odd, so that K
// is cut into many blocks of which the last is ragged, and so are M and N.
var contractBlocks = Blocks{MC: 30, KC: 70, NC: 50}

// TestContract checks the numerics contract of the package documentation: every ordered kernel of this
// machine (and each again with its packing, decoding and epilogue in Go, and without its streaming
// kernels) gives, bit for bit, the result of Reference on the decoded operands: each sum the chain of
// fused multiply-adds over k in order, then alpha and beta*C, each rounded once. The products have M from
// 1 to 40 (streamed up to 16 where B's type has streaming kernels), ragged N, K not a multiple of any
// block and longer than several blocks, operands of every type of the interpreter's dots (f32, bf16, f16,
// both FP8 formats, s8), stored either way, with and without beta, on 1 and 2 goroutines, with the
// default block sizes and with small odd ones; B of the weight types is also packed (MatMulWeights).
func TestContract(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	types := []dtype.Type{dtype.F32, dtype.BF16, dtype.F16, dtype.F8E4M3FN, dtype.F8E5M2, dtype.S8}
	scalars := [][2]float32{{1, 0}, {-0.5, 0}, {1, 1}, {0.75, -1.5}, {3, 0.25}}
	n := 40
	if testing.Short() {
		n = 12
	}
	kernels := contractKernels()
	defer SetThreads(SetThreads(0))
	for i := 0; i < n; i++ {
		m := 1 + rng.IntN(40)
		if i%2 == 0 {
			m = 1 + rng.IntN(16) // streamed where B allows
		}
		nn := []int{1, 7, 33, 64, 65, 100, 130}[rng.IntN(7)]
		k := 1 + rng.IntN(700)
		if i%8 == 3 {
			k = 1537 // longer than three blocks of every kernel's default KC
			m = min(m, 6)
		}
		ta, tb := types[rng.IntN(len(types))], types[rng.IntN(len(types))]
		transA, transB := rng.IntN(4) == 0, rng.IntN(4) == 0
		ab := scalars[rng.IntN(len(scalars))]
		alpha, beta := ab[0], ab[1]
		name := fmt.Sprintf("%d/%dx%dx%d/%v%s*%v%s/alpha=%v,beta=%v", i, m, nn, k, ta, transSuffix(transA), tb, transSuffix(transB), alpha, beta)
		t.Run(name, func(t *testing.T) {
			a, am := randomTyped(rng, ta, m, k, transA, rng.IntN(2), 0)
			b, bm := randomTyped(rng, tb, k, nn, transB, rng.IntN(2), 0)
			c0 := operand{m, nn, false, 1}.build(rng, padC)
			want := clone(c0)
			Reference(want, am, bm, alpha, beta)
			var w *Weights
			if !transB && isWeightType(tb) {
				w = PackWeights(b, nil)
			}
			for _, kern := range kernels {
				for _, threads := range []int{1, 2} {
					for _, bl := range []Blocks{{}, contractBlocks} {
						func() {
							defer useKernel(kern)()
							defer kern.SetBlocks(kern.SetBlocks(bl))
							SetThreads(threads)
							got := clone(c0)
							if ta == dtype.F32 && tb == dtype.F32 && rng.IntN(2) == 0 {
								MatMul(got, am, bm, alpha, beta)
							} else {
								MatMulTyped(got, a, b, alpha, beta)
							}
							what := fmt.Sprintf("%s, %d threads, blocks %v", kern.Name(), threads, kern.Blocks())
							sameMatrix(t, what, got, want)
							if w != nil {
								got = clone(c0)
								MatMulWeights(got, a, w, alpha, beta)
								sameMatrix(t, what+", packed weights", got, want)
							}
						}()
						if t.Failed() {
							return
						}
					}
				}
			}
		})
	}
}

// TestBF16KernelOwnResults checks that the bf16 kernel, which sums in another order than the contract's,
// still gives results that depend on the inputs alone: the same bits on 1 and 2 goroutines and with any
// block sizes.
func TestBF16KernelOwnResults(t *testing.T) {
	kern := needBF16(t)
	defer useKernel(kern)()
	defer SetThreads(SetThreads(0))
	rng := rand.New(rand.NewPCG(83, 84))
	for _, s := range []shape{{40, 130, 1537}, {33, 65, 301}} {
		a, _ := randomTyped(rng, dtype.F8E4M3FN, s.m, s.k, false, 0, 0)
		b, _ := randomTyped(rng, dtype.BF16, s.k, s.n, true, 1, 0)
		var first Matrix
		for _, threads := range []int{1, 2} {
			for _, bl := range []Blocks{{}, contractBlocks, {MC: 100, KC: 256, NC: 64}} {
				func() {
					defer kern.SetBlocks(kern.SetBlocks(bl))
					SetThreads(threads)
					got := NewMatrix(s.m, s.n, nil)
					MatMulTyped(got, a, b, 1, 0)
					if first.Data == nil {
						first = got
						return
					}
					sameMatrix(t, fmt.Sprintf("%v, %d threads, blocks %v", s, threads, kern.Blocks()), got, first)
				}()
			}
		}
	}
}

// isWeightType reports whether PackWeights takes B of type t.
func isWeightType(t dtype.Type) bool {
	for _, w := range WeightTypes() {
		if w == t {
			return true
		}
	}
	return false
}

// sameMatrix fails t unless got and want hold the same bits in every element of their view (any NaN
// being the same as any other).
func sameMatrix(t *testing.T, what string, got, want Matrix) {
	t.Helper()
	for i := 0; i < want.Rows; i++ {
		for j := 0; j < want.Cols; j++ {
			if g, w := got.At(i, j), want.At(i, j); !sameBits(g, w) {
				t.Fatalf("%s: C[%d,%d] = %v (%#08x), want %v (%#08x)", what, i, j, g, math.Float32bits(g), w, math.Float32bits(w))
			}
		}
	}
}

func transSuffix(trans bool) string {
	if trans {
		return "(T)"
	}
	return ""
}

// referenceScaled is Reference with a scale per column: x = alpha*S, then x*scale[j], each rounded, then
// beta*C added with one rounding, as the numerics contract says.
func referenceScaled(c, a, b Matrix, scale []float32, alpha, beta float32) {
	if scale == nil {
		Reference(c, a, b, alpha, beta)
		return
	}
	s := NewMatrix(c.Rows, c.Cols, nil)
	Reference(s, a, b, 1, 0)
	for i := 0; i < c.Rows; i++ {
		for j := 0; j < c.Cols; j++ {
			x := c.Data[i*c.Stride+j]
			v := float32(float32(alpha*s.At(i, j)) * scale[j])
			if alpha == 0 || a.Cols == 0 {
				v = 0
			}
			if beta != 0 {
				v = fma32(beta, x, v)
			}
			c.Data[i*c.Stride+j] = v
		}
	}
}

// TestContractStreamed checks the numerics contract on the products with few rows, which the streaming
// kernels run: every ordered kernel of the machine, with and without its streaming kernels, gives
// Reference's bits for a B of each weight type (f8e4m3fn, f8e5m2, s8, bf16) stored row-major (K x N) and
// transposed (N x K), multiplied where it lies (MatMulTyped, and MatMulWeights on WeightsOf, with and
// without a scale per column) and packed (PackWeights), at every M from 1 to 16 and at a few M of several
// groups of 16 rows (up to MatMulTyped's last streamed one and the first after it), with ragged N (around
// the panels of 64 columns) and K (around the blocks of k, a transposed B's chunks of 16 to 64 steps and
// the rows of a row-major B's short blocks), on 1 and 2 goroutines; every raceStride-th case under the race
// detector.
func TestContractStreamed(t *testing.T) {
	rng := rand.New(rand.NewPCG(85, 86))
	kernels := contractKernels()
	defer SetThreads(SetThreads(0))
	ns := []int{1, 13, 64, 65, 127, 200}
	ks := []int{1, 15, 17, 63, 65, 129, 255, 257, 300, 530}
	scalars := [][2]float32{{1, 0}, {-0.5, 0}, {0.75, -1.5}}
	cases := 0
	for _, tb := range WeightTypes() {
		for _, m := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 20, 33, streamRowsMax, streamRowsMax + 1} {
			if testing.Short() && !slices.Contains([]int{1, 4, 5, 16, 17, 33, streamRowsMax + 1}, m) {
				continue // each kernel's rows and their neighbours, and groups of rows
			}
			for _, trans := range []bool{false, true} {
				if cases++; cases%raceStride != 0 {
					continue
				}
				n, k := ns[rng.IntN(len(ns))], ks[rng.IntN(len(ks))]
				ab := scalars[rng.IntN(len(scalars))]
				alpha, beta := ab[0], ab[1]
				name := fmt.Sprintf("%v%s/m=%d,n=%d,k=%d", tb, transSuffix(trans), m, n, k)
				t.Run(name, func(t *testing.T) {
					ta := []dtype.Type{dtype.F32, dtype.BF16}[rng.IntN(2)]
					a, am := randomTyped(rng, ta, m, k, rng.IntN(4) == 0, rng.IntN(2), 0)
					b, bm := randomTyped(rng, tb, k, n, trans, rng.IntN(2)*3, 0)
					scale := make([]float32, n)
					for j := range scale {
						scale[j] = float32(rng.Float64() + 0.5)
					}
					c0 := operand{m, n, false, 1}.build(rng, padC)
					want, wantScaled := clone(c0), clone(c0)
					Reference(want, am, bm, alpha, beta)
					referenceScaled(wantScaled, am, bm, scale, alpha, beta)
					direct, directScaled := WeightsOf(b, nil), WeightsOf(b, scale)
					packed, packedScaled := PackWeights(b, nil), PackWeights(b, scale)
					for _, kern := range kernels {
						for _, threads := range []int{1, 2} {
							func() {
								defer useKernel(kern)()
								SetThreads(threads)
								what := fmt.Sprintf("%s, %d threads", kern.Name(), threads)
								for _, run := range []struct {
									name string
									f    func(c Matrix)
									want Matrix
								}{
									{"MatMulTyped", func(c Matrix) { MatMulTyped(c, a, b, alpha, beta) }, want},
									{"WeightsOf", func(c Matrix) { MatMulWeights(c, a, direct, alpha, beta) }, want},
									{"WeightsOf with a scale", func(c Matrix) { MatMulWeights(c, a, directScaled, alpha, beta) }, wantScaled},
									{"PackWeights", func(c Matrix) { MatMulWeights(c, a, packed, alpha, beta) }, want},
									{"PackWeights with a scale", func(c Matrix) { MatMulWeights(c, a, packedScaled, alpha, beta) }, wantScaled},
								} {
									got := clone(c0)
									run.f(got)
									sameMatrix(t, what+", "+run.name, got, run.want)
								}
							}()
							if t.Failed() {
								return
							}
						}
					}
				})
			}
		}
	}
}

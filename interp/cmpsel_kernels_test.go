package interp

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"octet/dtype"
	"octet/gemm"
	"octet/hlo"
	"octet/tensor"
)

// cmpSelModule is an unfused program over n elements of compares of each direction on s32, u32 and f32
// operands (against another operand, a broadcast scalar, an iota), each compare's result made a bit of
// an s32 by a select and an or, a select of pred values made a bit too, and selects of s32, u32 and f32
// values by compares: two groups per type, each of whose results shows every compare and select of it.
func cmpSelModule(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "HloModule cmpsel\n\nENTRY e {\n")
	s := func(ty string) string { return fmt.Sprintf("%s[%d]", ty, n) }
	dirs := []string{"EQ", "NE", "LT", "LE", "GT", "GE"}
	for j := range 7 {
		fmt.Fprintf(&b, "  bit%d = s32[] constant(%d)\n  b%d = %s broadcast(bit%d), dimensions={}\n", j, 1<<j, j, s("s32"), j)
	}
	fmt.Fprintf(&b, "  zero = s32[] constant(0)\n  z = %s broadcast(zero), dimensions={}\n", s("s32"))
	var outs, shapes []string
	for i, ty := range []string{"s32", "u32", "f32"} {
		fmt.Fprintf(&b, "  x%d = %s parameter(%d)\n  y%d = %s parameter(%d)\n", i, s(ty), 2*i, i, s(ty), 2*i+1)
		fmt.Fprintf(&b, "  k%d = %s[] constant(1)\n  kb%d = %s broadcast(k%d), dimensions={}\n", i, ty, i, s(ty), i)
		fmt.Fprintf(&b, "  io%d = %s iota(), iota_dimension=0\n", i, s(ty))
		acc := "z"
		for j, dir := range dirs {
			rhs := []string{"y", "kb", "io"}[j%3]
			fmt.Fprintf(&b, "  c%d_%d = %s compare(x%d, %s%d), direction=%s\n", i, j, s("pred"), i, rhs, i, dir)
			fmt.Fprintf(&b, "  v%d_%d = %s select(c%d_%d, b%d, z)\n", i, j, s("s32"), i, j, j)
			fmt.Fprintf(&b, "  a%d_%d = %s or(%s, v%d_%d)\n", i, j, s("s32"), acc, i, j)
			acc = fmt.Sprintf("a%d_%d", i, j)
		}
		fmt.Fprintf(&b, "  q%d = %s select(c%d_0, c%d_2, c%d_4)\n", i, s("pred"), i, i, i)
		fmt.Fprintf(&b, "  v%d_6 = %s select(q%d, b6, z)\n", i, s("s32"), i)
		fmt.Fprintf(&b, "  bits%d = %s or(%s, v%d_6)\n", i, s("s32"), acc, i)
		prev := fmt.Sprintf("x%d", i)
		for j, dir := range dirs {
			rhs := []string{"kb", "io", "y"}[j%3]
			fmt.Fprintf(&b, "  d%d_%d = %s compare(%s%d, x%d), direction=%s\n", i, j, s("pred"), rhs, i, i, dir)
			other := []string{"y", "io"}[j%2]
			fmt.Fprintf(&b, "  s%d_%d = %s select(d%d_%d, %s, %s%d)\n", i, j, s(ty), i, j, prev, other, i)
			prev = fmt.Sprintf("s%d_%d", i, j)
		}
		outs, shapes = append(outs, fmt.Sprintf("bits%d", i), prev), append(shapes, s("s32"), s(ty))
	}
	fmt.Fprintf(&b, "  ROOT out = (%s) tuple(%s)\n}\n", strings.Join(shapes, ", "), strings.Join(outs, ", "))
	return b.String()
}

// cmpSelInput is an array of n elements of ty: edge values (the ends of s32 and u32; for f32 both
// zeros, the infinities, NaNs, subnormals and extremes), equal to other's element at a quarter of the
// elements where other is not nil, random bits elsewhere.
func cmpSelInput(rng *rand.Rand, ty dtype.Type, n int, other *tensor.Tensor) *tensor.Tensor {
	edges := []uint32{0, 1, 2, 0x7fffffff, 0x80000000, 0x80000001, 0xffffffff, 0xfffffffe}
	if ty == dtype.F32 {
		edges = []uint32{0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 1,
			0x80000001, 0x7f7fffff, 0xff7fffff, 0x3f800000, 0xbf800000}
	}
	x := tensor.New(ty, []int64{int64(n)})
	v := tensor.View[uint32](x)
	for i := range v {
		switch {
		case other != nil && rng.IntN(4) == 0:
			v[i] = tensor.View[uint32](other)[i]
		case rng.IntN(2) == 0:
			v[i] = edges[rng.IntN(len(edges))]
		default:
			v[i] = rng.Uint32()
		}
	}
	return x
}

// TestCompareSelectKernels runs the groups of cmpSelModule under every gemm kernel, which differ in the
// compare and select rows they run (AVX2 assembly or Go), on lengths whose last chunk leaves the kernels
// each kind of tail (none; 32 + 8 + 5 elements; 3 × 8 + 5), and requires the bits of the go kernel's run
// (the scalar loops) from each, and from the program run instruction by instruction.
func TestCompareSelectKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	for _, n := range []int{2 * chunkElements, 2*chunkElements + 45, 3*chunkElements + 29} {
		m := parseModule(t, cmpSelModule(n))
		if g := countGroups(m); g != 6 {
			t.Fatalf("%d groups, want 6", g)
		}
		var args []Value
		for _, ty := range []dtype.Type{dtype.S32, dtype.U32, dtype.F32} {
			x := cmpSelInput(rng, ty, n, nil)
			args = append(args, ArrayValue(x), ArrayValue(cmpSelInput(rng, ty, n, x)))
		}
		var want Value
		func() {
			defer gemm.SetKernel(gemm.SetKernel(scalarKernel(t)))
			want, _ = runGrouped(t, m, args, Options{Threads: 2})
		}()
		for _, k := range gemm.Kernels() {
			func() {
				defer gemm.SetKernel(gemm.SetKernel(k))
				for _, threads := range []int{1, 2} {
					got, _ := runGrouped(t, m, args, Options{Threads: threads})
					if !sameValue(got, want) {
						t.Fatalf("%d elements, kernel %s, %d threads: %v", n, k.Name(), threads, Compare(got, want))
					}
				}
			}()
		}
	}
}

// BenchmarkCompareSelectGroup times, on one thread, a group of an s32 iota, a compare, a select and an
// add over 4M elements, and the groups of cmpSelModule over 1M, under the go kernel (the scalar loops)
// and the default one.
func BenchmarkCompareSelectGroup(b *testing.B) {
	const n = 1 << 22
	chain := fmt.Sprintf(`HloModule chain
ENTRY e {
  p0 = s32[%d] parameter(0)
  p1 = s32[%d] parameter(1)
  io = s32[%d] iota(), iota_dimension=0
  c = pred[%d] compare(p0, io), direction=LT
  s = s32[%d] select(c, p0, p1)
  ROOT a = s32[%d] add(s, io)
}`, n, n, n, n, n, n)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, kname := range []string{"go", "default"} {
		for _, prog := range []string{"chain", "cmpsel"} {
			var m *hlo.Module
			var args []Value
			if prog == "chain" {
				m = mustParse(b, chain)
				for range 2 {
					args = append(args, ArrayValue(cmpSelInput(rng, dtype.S32, n, nil)))
				}
			} else {
				m = mustParse(b, cmpSelModule(n/4))
				for _, ty := range []dtype.Type{dtype.S32, dtype.U32, dtype.F32} {
					x := cmpSelInput(rng, ty, n/4, nil)
					args = append(args, ArrayValue(x), ArrayValue(cmpSelInput(rng, ty, n/4, x)))
				}
			}
			b.Run(prog+"/"+kname, func(b *testing.B) {
				if kname == "go" {
					defer gemm.SetKernel(gemm.SetKernel(scalarKernel(b)))
				}
				for b.Loop() {
					if _, err := Run(m, args, Options{Threads: 1}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// scalarKernel returns gemm's go kernel, whose row operations are Go's scalar loops.
func scalarKernel(tb testing.TB) *gemm.Kernel {
	tb.Helper()
	for _, k := range gemm.Kernels() {
		if k.Name() == "go" {
			return k
		}
	}
	tb.Fatal("no go kernel")
	return nil
}

// mustParse parses HLO text written for a benchmark.
func mustParse(b *testing.B, src string) *hlo.Module {
	b.Helper()
	m, err := parseBench(src)
	if err != nil {
		b.Fatal(err)
	}
	return m
}

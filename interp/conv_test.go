package interp

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"go/token"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"octet/dtype"
	"octet/gemm"
	"octet/hlo"
	"octet/hlo/parser"
	"octet/internal/shared"
	"octet/stablehlo"
	"octet/tensor"
)

// convSpec describes a generated convolution: its layout (dim_labels), sizes and window.
type convSpec struct {
	name                   string
	labels                 string // "b01f_01io->b01f"
	lt, rt, ot             string // element types
	batch, inF, outF       int64
	spatial, kernel        []int64
	stride, lhsDil, rhsDil []int64
	padLo, padHi           []int64
	reversal               bool
	fgc, bgc               int64
}

// module writes the convolution as an HLO module of one instruction.
func (s convSpec) module() string {
	parts := strings.Split(strings.ReplaceAll(s.labels, "->", "_"), "_")
	ns := len(s.spatial)
	fgc, bgc := max(s.fgc, 1), max(s.bgc, 1)
	at := func(v []int64, i int, def int64) int64 {
		if v == nil {
			return def
		}
		return v[i]
	}
	outSp := make([]int64, ns)
	for i := range outSp {
		padded := (s.spatial[i]-1)*at(s.lhsDil, i, 1) + 1 + at(s.padLo, i, 0) + at(s.padHi, i, 0)
		win := (s.kernel[i]-1)*at(s.rhsDil, i, 1) + 1
		outSp[i] = max((padded-win)/at(s.stride, i, 1)+1, 0)
	}
	shape := func(spec string, letters map[byte]int64, sp []int64) string {
		dims := make([]string, len(spec))
		for j := 0; j < len(spec); j++ {
			c := spec[j]
			if c >= '0' && c <= '9' {
				dims[j] = fmt.Sprint(sp[c-'0'])
			} else {
				dims[j] = fmt.Sprint(letters[c])
			}
		}
		return "[" + strings.Join(dims, ",") + "]"
	}
	lhs := s.lt + shape(parts[0], map[byte]int64{'b': s.batch, 'f': s.inF}, s.spatial)
	rhs := s.rt + shape(parts[1], map[byte]int64{'i': s.inF / fgc, 'o': s.outF}, s.kernel)
	out := s.ot + shape(parts[2], map[byte]int64{'b': s.batch / bgc, 'f': s.outF}, outSp)
	var win []string
	if ns > 0 {
		field := func(name string, f func(i int) string) {
			v := make([]string, ns)
			for i := range v {
				v[i] = f(i)
			}
			win = append(win, name+"="+strings.Join(v, "x"))
		}
		field("size", func(i int) string { return fmt.Sprint(s.kernel[i]) })
		field("stride", func(i int) string { return fmt.Sprint(at(s.stride, i, 1)) })
		field("pad", func(i int) string { return fmt.Sprintf("%d_%d", at(s.padLo, i, 0), at(s.padHi, i, 0)) })
		field("lhs_dilate", func(i int) string { return fmt.Sprint(at(s.lhsDil, i, 1)) })
		field("rhs_dilate", func(i int) string { return fmt.Sprint(at(s.rhsDil, i, 1)) })
		if s.reversal {
			field("rhs_reversal", func(i int) string { return "1" })
		}
	}
	attrs := ""
	if len(win) > 0 {
		attrs = ", window={" + strings.Join(win, " ") + "}"
	}
	attrs += ", dim_labels=" + s.labels
	if fgc > 1 {
		attrs += fmt.Sprintf(", feature_group_count=%d", fgc)
	}
	if bgc > 1 {
		attrs += fmt.Sprintf(", batch_group_count=%d", bgc)
	}
	return fmt.Sprintf("ENTRY e {\n  x = %s parameter(0)\n  k = %s parameter(1)\n  ROOT c = %s convolution(x, k)%s\n}\n", lhs, rhs, out, attrs)
}

// convSpecs are the generated shapes: the windows of image models in both layouts, every kind of group,
// dilations of either side, and transposed convolutions as XLA writes them.
var convSpecs = []convSpec{
	{name: "1x1", labels: "b01f_01io->b01f", batch: 2, inF: 32, outF: 48, spatial: []int64{7, 7}, kernel: []int64{1, 1}},
	{name: "1x1_stride2", labels: "b01f_01io->b01f", batch: 1, inF: 24, outF: 40, spatial: []int64{9, 9}, kernel: []int64{1, 1}, stride: []int64{2, 2}},
	{name: "3x3_stride2", labels: "b01f_01io->b01f", batch: 2, inF: 16, outF: 24, spatial: []int64{11, 10}, kernel: []int64{3, 3}, stride: []int64{2, 2}, padLo: []int64{1, 1}, padHi: []int64{1, 1}},
	{name: "3x3_nchw", labels: "bf01_oi01->bf01", batch: 2, inF: 6, outF: 5, spatial: []int64{8, 9}, kernel: []int64{3, 3}, padLo: []int64{1, 1}, padHi: []int64{1, 1}},
	{name: "7x7_stem", labels: "b01f_01io->b01f", batch: 1, inF: 3, outF: 16, spatial: []int64{32, 32}, kernel: []int64{7, 7}, stride: []int64{2, 2}, padLo: []int64{3, 3}, padHi: []int64{2, 2}},
	{name: "depthwise", labels: "b01f_01io->b01f", batch: 2, inF: 8, outF: 8, fgc: 8, spatial: []int64{9, 9}, kernel: []int64{3, 3}, padLo: []int64{1, 1}, padHi: []int64{1, 1}},
	{name: "depthwise_multiplier2", labels: "bf01_oi01->bf01", batch: 1, inF: 4, outF: 8, fgc: 4, spatial: []int64{6, 7}, kernel: []int64{3, 3}, stride: []int64{2, 1}},
	{name: "grouped", labels: "b01f_01io->b01f", batch: 2, inF: 12, outF: 9, fgc: 3, spatial: []int64{6, 6}, kernel: []int64{3, 3}, padLo: []int64{1, 0}, padHi: []int64{1, 2}},
	{name: "grouped_1x1", labels: "b01f_01io->b01f", batch: 3, inF: 16, outF: 8, fgc: 4, spatial: []int64{5, 5}, kernel: []int64{1, 1}},
	{name: "dilated", labels: "b01f_01io->b01f", batch: 1, inF: 8, outF: 8, spatial: []int64{12, 12}, kernel: []int64{3, 3}, rhsDil: []int64{2, 3}, padLo: []int64{2, 3}, padHi: []int64{2, 3}},
	{name: "transposed", labels: "b01f_01oi->b01f", batch: 2, inF: 8, outF: 6, spatial: []int64{5, 6}, kernel: []int64{3, 3}, lhsDil: []int64{2, 2}, padLo: []int64{1, 1}, padHi: []int64{2, 2}, reversal: true},
	{name: "transposed_4x4", labels: "bf01_oi01->bf01", batch: 1, inF: 4, outF: 4, spatial: []int64{4, 4}, kernel: []int64{4, 4}, lhsDil: []int64{2, 2}, padLo: []int64{2, 2}, padHi: []int64{2, 2}},
	{name: "batch_groups", labels: "f01b_i01o->01bf", batch: 4, inF: 3, outF: 6, bgc: 2, spatial: []int64{7, 7}, kernel: []int64{3, 3}, padLo: []int64{1, 1}, padHi: []int64{1, 1}},
	{name: "negative_padding", labels: "b01f_01io->b01f", batch: 1, inF: 4, outF: 3, spatial: []int64{9, 9}, kernel: []int64{2, 2}, padLo: []int64{-1, 3}, padHi: []int64{-2, 3}},
	{name: "1d", labels: "b0f_0io->b0f", batch: 3, inF: 5, outF: 7, spatial: []int64{20}, kernel: []int64{4}, stride: []int64{3}, padLo: []int64{2}, padHi: []int64{0}},
	{name: "3d", labels: "b012f_012io->b012f", batch: 1, inF: 4, outF: 5, spatial: []int64{5, 6, 4}, kernel: []int64{3, 2, 2}, padLo: []int64{1, 0, 1}, padHi: []int64{1, 0, 0}},
	{name: "no_spatial", labels: "bf_io->bf", batch: 5, inF: 33, outF: 7, spatial: []int64{}, kernel: []int64{}},
	{name: "deep_k", labels: "b01f_01io->b01f", batch: 1, inF: 256, outF: 40, spatial: []int64{6, 6}, kernel: []int64{3, 3}, padLo: []int64{1, 1}, padHi: []int64{1, 1}},
	{name: "several_panels", labels: "b01f_01io->b01f", batch: 1, inF: 32, outF: 8, spatial: []int64{66, 66}, kernel: []int64{3, 3}},
	{name: "bf16_to_f32", labels: "b01f_01io->b01f", lt: "bf16", rt: "bf16", batch: 1, inF: 16, outF: 16, spatial: []int64{8, 8}, kernel: []int64{3, 3}, padLo: []int64{1, 1}, padHi: []int64{1, 1}},
	{name: "fp8_to_f32", labels: "b01f_01io->b01f", lt: "f8e4m3fn", rt: "f8e5m2", batch: 1, inF: 16, outF: 24, spatial: []int64{8, 8}, kernel: []int64{3, 3}, stride: []int64{2, 2}},
	{name: "fp8_1x1", labels: "b01f_01io->b01f", lt: "f8e4m3fn", rt: "f8e4m3fn", batch: 2, inF: 32, outF: 16, spatial: []int64{4, 4}, kernel: []int64{1, 1}},
	{name: "bf16", labels: "b01f_01io->b01f", lt: "bf16", rt: "bf16", ot: "bf16", batch: 1, inF: 24, outF: 8, spatial: []int64{7, 7}, kernel: []int64{3, 3}},
	{name: "f32_to_bf16", labels: "bf01_oi01->bf01", lt: "f32", rt: "f32", ot: "bf16", batch: 1, inF: 8, outF: 8, spatial: []int64{6, 6}, kernel: []int64{2, 2}},
	{name: "f16_depthwise", labels: "b01f_01io->b01f", lt: "f16", rt: "f16", ot: "f16", batch: 1, inF: 6, outF: 6, fgc: 6, spatial: []int64{5, 5}, kernel: []int64{3, 3}},
}

// chainMatMuler multiplies as the numerics contract says a kernel must: each element of the product is
// alpha times the float32 fused multiply-add chain over k in order, from zero.
type chainMatMuler struct{}

func (chainMatMuler) MatMulBatched(count int, c gemm.Matrix, strideC int, a gemm.Matrix, strideA int, b gemm.Matrix, strideB int, alpha, beta float32) {
	for n := 0; n < count; n++ {
		an, bn, cn := a, b, c
		an.Data, bn.Data, cn.Data = a.Data[n*strideA:], b.Data[n*strideB:], c.Data[n*strideC:]
		k := a.Cols
		bt := make([]float32, c.Cols*k) // B by columns
		for j := 0; j < c.Cols; j++ {
			for p := 0; p < k; p++ {
				bt[j*k+p] = bn.At(p, j)
			}
		}
		parallelFor(2, c.Rows, 1, func(lo, hi int) {
			row := make([]float32, k)
			for i := lo; i < hi; i++ {
				for p := range row {
					row[p] = an.At(i, p)
				}
				for j := 0; j < c.Cols; j++ {
					var acc float32
					for p, x := range row {
						acc = gemm.FMA32(x, bt[j*k+p], acc)
					}
					v := alpha * acc
					if beta != 0 {
						v += beta * cn.Data[i*cn.Stride+j]
					}
					cn.Data[i*cn.Stride+j] = v
				}
			}
		})
	}
}

// requireChain fails the test unless package gemm's kernels compute products in the order of the numerics
// contract (gemmFollowsChain), which every comparison bit for bit with the reference loop rests on.
func requireChain(t *testing.T) bool {
	t.Helper()
	if !gemmFollowsChain() {
		t.Error("package gemm's kernels do not compute products as the chain of fused multiply-adds in order of k")
		return false
	}
	return true
}

// gemmFollowsChain reports whether package gemm's kernels (the default one, and every other this machine
// has but the bf16 dot-product kernel, for float32 and bf16 operands) compute products as the chain of fused multiply-adds in order of k that chainMatMuler computes, on
// operands that tell the orders apart: long sums of values of very different magnitudes.
func gemmFollowsChain() bool {
	const m, n, k = 19, 37, 1300
	a, b := gemm.NewMatrix(m, k, nil), gemm.NewMatrix(k, n, nil)
	for i := range a.Data {
		a.Data[i] = float32(math.Ldexp(float64(int64(mix(1, uint64(i))%2001)-1000), int(mix(2, uint64(i))%24)-12))
	}
	for i := range b.Data {
		b.Data[i] = float32(math.Ldexp(float64(int64(mix(3, uint64(i))%2001)-1000), int(mix(4, uint64(i))%24)-12))
	}
	want := gemm.NewMatrix(m, n, nil)
	chainMatMuler{}.MatMulBatched(1, want, 0, a, 0, b, 0, 1, 0)
	// The same operands rounded to bf16, multiplied as narrow operands are.
	a16, b16 := gemm.NewMatrix(m, k, nil), gemm.NewMatrix(k, n, nil)
	ab, bb := make([]byte, 2*m*k), make([]byte, 2*k*n)
	for i, v := range a.Data {
		bits := dtype.BF16.EncodeFloat32(v)
		ab[2*i], ab[2*i+1] = byte(bits), byte(bits>>8)
		a16.Data[i] = dtype.BF16.DecodeFloat32(bits)
	}
	for i, v := range b.Data {
		bits := dtype.BF16.EncodeFloat32(v)
		bb[2*i], bb[2*i+1] = byte(bits), byte(bits>>8)
		b16.Data[i] = dtype.BF16.DecodeFloat32(bits)
	}
	want16 := gemm.NewMatrix(m, n, nil)
	chainMatMuler{}.MatMulBatched(1, want16, 0, a16, 0, b16, 0, 1, 0)
	at := gemm.Typed{Type: dtype.BF16, Data: ab, Rows: m, Cols: k, Stride: k}
	bt := gemm.Typed{Type: dtype.BF16, Data: bb, Rows: k, Cols: n, Stride: n}
	// The default kernel, and every other but the bf16 dot-product one, whose order is its own.
	kernels := []*gemm.Kernel{nil}
	for _, k := range gemm.Kernels() {
		if k.Name() != "avx512bf16" {
			kernels = append(kernels, k)
		}
	}
	for _, kern := range kernels {
		if kern != nil {
			defer gemm.SetKernel(gemm.SetKernel(kern))
		}
		for _, threads := range []int{1, 2} {
			defer gemm.SetThreads(gemm.SetThreads(threads))
			got, got16 := gemm.NewMatrix(m, n, nil), gemm.NewMatrix(m, n, nil)
			gemm.MatMul(got, a, b, 1, 0)
			gemm.MatMulTyped(got16, at, bt, 1, 0)
			for i := range got.Data {
				if math.Float32bits(got.Data[i]) != math.Float32bits(want.Data[i]) ||
					math.Float32bits(got16.Data[i]) != math.Float32bits(want16.Data[i]) {
					return false
				}
			}
		}
	}
	return true
}

// randomConvOperands returns random arguments for a module's convolution operands.
func randomOperand(t *testing.T, s hlo.Shape, key uint64) *tensor.Tensor {
	t.Helper()
	v, err := randomValue(s, key)
	if err != nil {
		t.Fatal(err)
	}
	return v.Array
}

// referenceConvolution evaluates a convolution with convolveLoop and float32 fused multiply-adds, the
// definition the GEMM path must meet bit for bit, at the output elements of the given linear indices (all
// of them when nil). It returns the values (float32 sums rounded to the result type) and for each a bound
// on the error of any float32 summation order: 2 K eps sum |products|.
func referenceConvolution(t *testing.T, in *hlo.Instruction, lhs, rhs *tensor.Tensor, at []int64) (ref []uint64, bound []float64) {
	t.Helper()
	g, l, r, err := prepareConvolution(in, []*tensor.Tensor{lhs, rhs})
	if err != nil {
		t.Fatal(err)
	}
	abs := func(x []float64) []float64 {
		y := make([]float64, len(x))
		for i, v := range x {
			y[i] = math.Abs(v)
		}
		return y
	}
	if at == nil {
		at = make([]int64, product(g.out))
		for i := range at {
			at[i] = int64(i)
		}
	}
	sum := convElement(g, f32s(l), f32s(r), gemm.FMA32)
	sumAbs := convElement(g, abs(f64s(l)), abs(f64s(r)), fma64)
	k := float64(g.macs()) / float64(max(product(g.out), 1))
	ty := in.Shape.Elem
	ref, bound = make([]uint64, len(at)), make([]float64, len(at))
	parallelFor(2, len(at), 64, func(lo, hi int) {
		oidx, widx := make([]int64, len(g.out)), make([]int64, len(g.win))
		for i := lo; i < hi; i++ {
			rem := at[i]
			for d := len(g.out) - 1; d >= 0; d-- {
				oidx[d] = rem % g.out[d]
				rem /= g.out[d]
			}
			ref[i] = ty.EncodeFloat32(sum(oidx, widx))
			bound[i] = 2 * k * 0x1p-24 * sumAbs(oidx, widx)
		}
	})
	return ref, bound
}

// checkConvolution evaluates convolution in with the chain multiplier, which must give the reference's
// bits, and with package gemm's kernels, which must too when they follow the chain, and otherwise stay
// within the error bound of a float32 sum (plus a rounding of the result type). With sample > 0 it
// compares that many output elements spread over the result, else all of them.
func checkConvolution(t *testing.T, name string, in *hlo.Instruction, lhs, rhs *tensor.Tensor, exactGEMM bool, sample int) {
	t.Helper()
	n := in.Shape.NumElements()
	var at []int64
	if sample > 0 && int64(sample) < n {
		for i := 0; i < sample; i++ {
			at = append(at, int64(mix(uint64(n), uint64(i))%uint64(n)))
		}
	}
	ref, bound := referenceConvolution(t, in, lhs, rhs, at)
	for _, mm := range []MatMuler{chainMatMuler{}, nil} {
		if mm != nil && sample > 0 {
			continue // too slow for the large convolutions sampled
		}
		e := &evaluator{gemm: mm, threads: 2, comps: map[*hlo.Computation]*compiled{}}
		if mm == nil {
			e.gemm = defaultMatMuler{}
		}
		got, err := e.convolution(in, []*tensor.Tensor{lhs, rhs})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ty := in.Shape.Elem
		if got.Type != ty || fmt.Sprint(got.Shape) != fmt.Sprint(in.Shape.Dims) {
			t.Fatalf("%s: got %s, want %s", name, got, in.Shape.String())
		}
		exact := mm != nil || exactGEMM
		for j := range ref {
			i := int64(j)
			if at != nil {
				i = at[j]
			}
			gb, rb := got.BitsAt(i), ref[j]
			if gb == rb {
				continue
			}
			gv, rv := float64(ty.DecodeFloat32(gb)), float64(ty.DecodeFloat32(rb))
			tol := bound[j]
			if ty != dtype.F32 {
				tol += math.Abs(rv) * ty.Finfo().Eps
			}
			if exact || !(math.Abs(gv-rv) <= tol) {
				t.Errorf("%s (%T): element %d is %v (%#x), the reference %v (%#x), bound %g", name, e.gemm, i, gv, gb, rv, rb, tol)
				return
			}
		}
	}
}

func TestConvolutionShapes(t *testing.T) {
	exactGEMM := requireChain(t)
	for i, s := range convSpecs {
		t.Run(s.name, func(t *testing.T) { checkConvSpec(t, s, uint64(2*i), exactGEMM) })
	}
}

// checkConvSpec checks the convolution of s (its types f32 where not given) on random operands drawn
// from seed (the lhs) and seed+1 (the rhs) with checkConvolution.
func checkConvSpec(t *testing.T, s convSpec, seed uint64, exactGEMM bool) {
	t.Helper()
	for _, ty := range []*string{&s.lt, &s.rt, &s.ot} {
		if *ty == "" {
			*ty = "f32"
		}
	}
	m := parseModule(t, s.module())
	if err := hlo.Verify(m); err != nil {
		t.Fatalf("%v\n%s", err, s.module())
	}
	in := m.Entry.Root
	lhs := randomOperand(t, in.Operands()[0].Shape, seed)
	rhs := randomOperand(t, in.Operands()[1].Shape, seed+1)
	checkConvolution(t, s.name, in, lhs, rhs, exactGEMM, 0)
}

// TestDepthwise checks depthwise convolutions beyond convSpecs' small ones: more features than a cache
// line holds and strides, a multiplier of output features per group, bf16 on padding, and windows
// dilated (whose positions inside the input read rows at fixed distances from a base) with and without
// a dilated input.
func TestDepthwise(t *testing.T) {
	exactGEMM := gemmFollowsChain()
	specs := []convSpec{
		{name: "features_40", labels: "b01f_01io->b01f", batch: 2, inF: 40, outF: 40, fgc: 40, spatial: []int64{13, 11}, kernel: []int64{3, 3}, stride: []int64{2, 1}, padLo: []int64{1, 1}, padHi: []int64{1, 1}},
		{name: "multiplier3", labels: "bf01_oi01->bf01", batch: 1, inF: 19, outF: 57, fgc: 19, spatial: []int64{10, 9}, kernel: []int64{3, 2}, padLo: []int64{0, 1}, padHi: []int64{2, 0}},
		{name: "bf16", labels: "b01f_01io->b01f", lt: "bf16", rt: "bf16", ot: "bf16", batch: 1, inF: 33, outF: 33, fgc: 33, spatial: []int64{9, 9}, kernel: []int64{3, 3}, padLo: []int64{1, 1}, padHi: []int64{1, 1}},
		{name: "window_dilated_2d", labels: "b01f_01io->b01f", batch: 2, inF: 24, outF: 24, fgc: 24, spatial: []int64{12, 14}, kernel: []int64{3, 3}, stride: []int64{1, 2}, rhsDil: []int64{2, 3}, padLo: []int64{2, 0}, padHi: []int64{1, 3}},
		{name: "dilated_1d", labels: "b0f_0io->b0f", batch: 3, inF: 5, outF: 10, fgc: 5, spatial: []int64{17}, kernel: []int64{4}, rhsDil: []int64{2}, lhsDil: []int64{2}, padLo: []int64{3}, padHi: []int64{1}},
	}
	for i, s := range specs {
		t.Run(s.name, func(t *testing.T) { checkConvSpec(t, s, uint64(100+2*i), exactGEMM) })
	}
}

// TestConvolutionCorpus checks the GEMM path against the reference loop on every convolution of the
// shared corpora: the StableHLO interpreter's convolution tests, the programs JAX generated, and the
// HLO modules (those of at most convCorpusMACs multiply-adds).
func TestConvolutionCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("the corpus's large convolutions take seconds")
	}
	// Convolutions of up to convCorpusMACs multiply-adds are compared whole, larger ones up to
	// convCorpusLargeMACs at 500 of their output elements.
	const convCorpusMACs, convCorpusLargeMACs = 20_000_000, 2_000_000_000
	exactGEMM := requireChain(t)
	mods := corpusModules(t, "convolution")
	checked, sampled, large := 0, 0, 0
	seen := map[string]bool{} // convolutions of the same shapes, window and dimension numbers are checked once
	for _, m := range mods {
		if hlo.Verify(m) != nil {
			continue // invalid by design: the corpus test covers these
		}
		for _, c := range m.Computations {
			for _, in := range c.Instructions {
				if in.Opcode != hlo.OpConvolution || !in.Shape.IsArray() || domainOf(in.Shape.Elem) != domFloat32 {
					continue
				}
				ops := in.Operands()
				key := fmt.Sprint(ops[0].Shape.String(), ops[1].Shape.String(), in.Shape.String(), in.Attr("window"), in.Attr("dim_labels"), in.Attr("feature_group_count"), in.Attr("batch_group_count"))
				if seen[key] {
					continue
				}
				seen[key] = true
				sample := 0
				if convMACs(in) > convCorpusMACs {
					sample = 500
				}
				if convMACs(in) > convCorpusLargeMACs || ops[0].Shape.NumElements() > 1<<22 || in.Shape.NumElements() > 1<<22 {
					large++
					continue
				}
				name := fmt.Sprintf("%s/%s", m.Name, in.Name)
				lhs := randomOperand(t, ops[0].Shape, uint64(checked))
				rhs := randomOperand(t, ops[1].Shape, uint64(checked)+1<<32)
				checkConvolution(t, name, in, lhs, rhs, exactGEMM, sample)
				checked++
				if sample > 0 {
					sampled++
				}
			}
		}
	}
	t.Logf("%d convolutions of %d modules checked (%d at sampled elements); %d larger left out", checked, len(mods), sampled, large)
	if checked < 30 {
		t.Errorf("only %d convolutions checked", checked)
	}
}

// corpusModules returns the modules of the shared corpora whose text holds word ("" for all): XLA's HLO
// files and the StableHLO project's test programs; a file the parsers reject is left out (their own
// tests report those).
func corpusModules(t *testing.T, word string) []*hlo.Module {
	t.Helper()
	var mods []*hlo.Module
	filepath.WalkDir(shared.Path(t, "corpus", "hlo"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".md") {
			return nil
		}
		src, err := shared.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), word) {
			return nil
		}
		if ms, err := parser.ParseFile(token.NewFileSet(), filepath.Base(path), src); err == nil {
			mods = append(mods, ms...)
		}
		return nil
	})
	for _, archive := range []string{"interpret.tar.gz", "testdata.tar.gz"} {
		for _, f := range readStableHLOArchive(t, archive) {
			if !strings.Contains(string(f.src), word) {
				continue
			}
			if ms, err := stablehlo.ParseFile(token.NewFileSet(), f.name, f.src); err == nil {
				mods = append(mods, ms...)
			}
		}
	}
	return mods
}

type archiveFile struct {
	name string
	src  []byte
}

// readStableHLOArchive reads the .mlir files of a tar.gz archive of ../shared/corpus/stablehlo.
func readStableHLOArchive(t *testing.T, name string) []archiveFile {
	t.Helper()
	data, err := os.ReadFile(shared.Path(t, "corpus", "stablehlo", name))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var out []archiveFile
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg || !strings.HasSuffix(h.Name, ".mlir") {
			continue
		}
		src, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, archiveFile{h.Name, src})
	}
}

package interp

import (
	"testing"

	"octet/gemm"
	"octet/hlo"
	"octet/hlo/parser"
	"octet/tensor"
)

// BenchmarkConvolution runs the convolutions of a ResNet-50 inference step (f32, batch 1, NHWC) and, for
// each, the GEMM of the same M x K x N on the same cores: the rate the convolution is measured against.
func BenchmarkConvolution(b *testing.B) {
	for _, s := range []convSpec{
		{name: "stem_7x7s2", batch: 1, inF: 3, outF: 64, spatial: []int64{230, 230}, kernel: []int64{7, 7}, stride: []int64{2, 2}},
		{name: "56x56_3x3", batch: 1, inF: 64, outF: 64, spatial: []int64{56, 56}, kernel: []int64{3, 3}, padLo: []int64{1, 1}, padHi: []int64{1, 1}},
		{name: "56x56_1x1", batch: 1, inF: 64, outF: 256, spatial: []int64{56, 56}, kernel: []int64{1, 1}},
		{name: "28x28_1x1s2", batch: 1, inF: 256, outF: 512, spatial: []int64{56, 56}, kernel: []int64{1, 1}, stride: []int64{2, 2}},
		{name: "14x14_3x3", batch: 1, inF: 256, outF: 256, spatial: []int64{14, 14}, kernel: []int64{3, 3}, padLo: []int64{1, 1}, padHi: []int64{1, 1}},
		{name: "7x7_3x3", batch: 1, inF: 512, outF: 512, spatial: []int64{7, 7}, kernel: []int64{3, 3}, padLo: []int64{1, 1}, padHi: []int64{1, 1}},
		// MobileNet's depthwise 3x3: one input feature per group.
		{name: "depthwise_56x56", batch: 1, inF: 144, outF: 144, fgc: 144, spatial: []int64{56, 56}, kernel: []int64{3, 3}, padLo: []int64{1, 1}, padHi: []int64{1, 1}},
		// SSD MobileNet's first and a deep depthwise layer, in bf16 as XLA's benchmark module has them.
		{name: "depthwise_150x150_bf16", lt: "bf16", rt: "bf16", ot: "bf16", batch: 1, inF: 32, outF: 32, fgc: 32, spatial: []int64{150, 150}, kernel: []int64{3, 3}, padLo: []int64{1, 1}, padHi: []int64{1, 1}},
		{name: "depthwise_19x19x512_bf16", lt: "bf16", rt: "bf16", ot: "bf16", batch: 1, inF: 512, outF: 512, fgc: 512, spatial: []int64{19, 19}, kernel: []int64{3, 3}, padLo: []int64{1, 1}, padHi: []int64{1, 1}},
	} {
		s.labels = "b01f_01io->b01f"
		if s.lt == "" {
			s.lt, s.rt, s.ot = "f32", "f32", "f32"
		}
		m, err := parser.ParseString("bench.hlo", s.module())
		if err != nil {
			b.Fatal(err)
		}
		in := m.Entry.Root
		lhs, _ := randomValue(in.Operands()[0].Shape, 1)
		rhs, _ := randomValue(in.Operands()[1].Shape, 2)
		flop := float64(2 * convMACs(in))
		b.Run(s.name, func(b *testing.B) {
			e := &evaluator{gemm: defaultMatMuler{}, threads: threadsFor(Options{}), comps: map[*hlo.Computation]*compiled{},
				buffers: newBuffers(m, Options{})}
			ts := []*tensor.Tensor{lhs.Array, rhs.Array}
			for b.Loop() {
				r, err := e.convolution(in, ts)
				if err != nil {
					b.Fatal(err)
				}
				// The result's memory is reused for the next, as in a program.
				e.buffers.retain(ArrayValue(r))
				e.buffers.release(ArrayValue(r))
			}
			b.ReportMetric(flop*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		g, _, _, _ := prepareConvolution(in, []*tensor.Tensor{lhs.Array, rhs.Array})
		mm := int(product(in.Shape.Dims) / s.outF)
		k := int(g.macs() / product(in.Shape.Dims))
		b.Run(s.name+"_gemm", func(b *testing.B) {
			a, bb, c := gemm.NewMatrix(mm, k, nil), gemm.NewMatrix(k, int(s.outF), nil), gemm.NewMatrix(mm, int(s.outF), nil)
			for b.Loop() {
				gemm.MatMul(c, a, bb, 1, 0)
			}
			b.ReportMetric(flop*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

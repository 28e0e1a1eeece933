package main

import (
	"math"
	"math/rand/v2"

	"octet/blockscale"
	"octet/dtype"
	"octet/gemm"
	"octet/tensor"
)

// blockFormatNames returns the names of the block-scaled formats bench gemm takes for B: those package
// gemm's block-scaled kernels read.
func blockFormatNames() []string {
	var names []string
	for _, f := range blockscale.Formats() {
		if gemm.BlockScaledFormat(f) {
			names = append(names, f.Name)
		}
	}
	return names
}

// blockWeights returns k x n weights of format f (stored transposed, n x k, when trans), quantized along k
// from values uniform in [-1, 1) (the elements of subnormal values made zero where normal), packed for
// gemm.MatMulBlockScaled, and the tensor scale that multiplies a product by them (NVFP4's; 1 for MX
// formats).
func blockWeights(rng *rand.Rand, f blockscale.Format, k, n int, trans, normal bool) (*gemm.BlockScaledWeights, float32, error) {
	shape, axis := []int64{int64(k), int64(n)}, 0
	if trans {
		shape, axis = []int64{int64(n), int64(k)}, 1
	}
	vals := tensor.New(dtype.F32, shape)
	v := tensor.View[float32](vals)
	for i := range v {
		v[i] = float32(rng.Float64()*2 - 1)
	}
	q, err := blockscale.Quantize(f, vals, axis, blockscale.Options{})
	if err != nil {
		return nil, 0, err
	}
	if normal {
		tiny := f.Elem.Finfo().Tiny
		for i, e := range q.Data.Data {
			if math.Abs(f.Elem.DecodeFloat64(uint64(e))) < tiny {
				q.Data.Data[i] = uint8(f.Elem.EncodeFloat64(0))
			}
		}
	}
	b := gemm.BlockScaled{Format: f, Data: q.Data.Data, Scales: q.Scales.Data, Rows: k, Cols: n, Stride: n,
		ScaleStride: int(q.Scales.Shape[1]), Trans: trans}
	if trans {
		b.Stride = k
	}
	return gemm.PackBlockScaled(b), q.TensorScale, nil
}

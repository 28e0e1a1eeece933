package blockscale_test

import (
	"fmt"

	"octet/blockscale"
	"octet/tensor"
)

func ExampleFormat_QuantizeBlock() {
	// One MXFP8 (E4M3) block: amax 300, so the shared exponent is floor(log2 300) - 8 = 0.
	in := make([]float64, 32)
	copy(in, []float64{300, 1, 0.5, -2})
	elems := make([]uint8, 32)
	f := blockscale.MXFP8E4M3
	scale := f.QuantizeBlock(elems, in, 1)
	fmt.Printf("scale %#02x (%v)\n", scale, f.ScaleValue(scale))
	for i := range 4 {
		fmt.Printf("%v -> %#02x (%v)\n", in[i], elems[i], f.Value(elems[i], scale, 1))
	}
	// Output:
	// scale 0x7f (1)
	// 300 -> 0x79 (288)
	// 1 -> 0x38 (1)
	// 0.5 -> 0x30 (0.5)
	// -2 -> 0xc0 (-2)
}

func ExampleQuantize() {
	x := tensor.FromFloat32([]int64{1, 16}, []float32{6, 3, -1.5, 0.25, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 12})
	// NVFP4 with the tensor scale 0.5: the block's scale is 12 / (6 x 0.5) = 4, so the elements are the
	// values over 2, rounded to E2M1: -0.75 lies halfway between 0.5 and 1 and rounds to even, 1.
	q, _ := blockscale.Quantize(blockscale.NVFP4, x, -1, blockscale.Options{TensorScale: 0.5})
	fmt.Println(q.Scales, q.Format.ScaleValue(q.Scales.Data[0]))
	v := tensor.View[float32](q.Dequantize())
	fmt.Println(v[:4], v[15])
	// Output:
	// f8e4m3fn[1,1] 4
	// [6 3 -2 0] 12
}

package blockscale

import (
	"bytes"
	"testing"

	"octet/dtype"
	"octet/tensor"
)

// transposeRowMajor transposes a row-major array of the given dims by perm (output dimension i is input
// dimension perm[i]), as HLO's transpose does.
func transposeRowMajor(src []uint8, dims, perm []int64) []uint8 {
	n := len(dims)
	out := make([]uint8, len(src))
	outDims := make([]int64, n)
	for i, p := range perm {
		outDims[i] = dims[p]
	}
	strides := make([]int64, n)
	s := int64(1)
	for i := n - 1; i >= 0; i-- {
		strides[i] = s
		s *= dims[i]
	}
	idx := make([]int64, n)
	for o := range out {
		src0 := int64(0)
		for i := range idx {
			src0 += idx[i] * strides[perm[i]]
		}
		out[o] = src[src0]
		for i := n - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < outDims[i] {
				break
			}
			idx[i] = 0
		}
	}
	return out
}

// TestSwizzleMatchesXLA builds cuDNN's scale layout as XLA's BuildCudnnScaledDotInput does (pad to 128 x 4,
// reshape [B, R/128, 4, 32, C/4, 4], transpose {0,1,4,3,2,5}, reshape back) and compares.
func TestSwizzleMatchesXLA(t *testing.T) {
	for _, c := range [][3]int64{{1, 128, 4}, {2, 120, 3}, {1, 300, 9}, {3, 256, 8}} {
		batch, rows, cols := c[0], c[1], c[2]
		src := make([]uint8, batch*rows*cols)
		for i := range src {
			src[i] = uint8(i*7 + 3)
		}
		pr, pc := SwizzlePadded(rows, cols)
		padded := make([]uint8, batch*pr*pc)
		for b := int64(0); b < batch; b++ {
			for r := int64(0); r < rows; r++ {
				copy(padded[(b*pr+r)*pc:], src[(b*rows+r)*cols:(b*rows+r+1)*cols])
			}
		}
		want := transposeRowMajor(padded, []int64{batch, pr / 128, 4, 32, pc / 4, 4}, []int64{0, 1, 4, 3, 2, 5})
		got := Swizzle(src, batch, rows, cols)
		if !bytes.Equal(got, want) {
			t.Errorf("%v: swizzle differs from XLA's reshape-transpose", c)
		}
		if back := Unswizzle(got, batch, pr, pc); !bytes.Equal(back, padded) {
			t.Errorf("%v: unswizzle is not the inverse", c)
		}
	}
}

func TestFromArrays(t *testing.T) {
	x := tensor.FromFloat32([]int64{4, 40}, make([]float32, 160))
	for i := range 160 {
		tensor.View[float32](x)[i] = float32(i%13) - 6
	}
	q, err := Quantize(NVFP4, x, 1, Options{TensorScale: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	names, arrays := q.NpzMembers("w")
	if len(names) != 3 || names[1] != "w_scale" || names[2] != "w_tensor_scale" {
		t.Fatalf("members %v", names)
	}
	back, err := FromArrays(NVFP4, arrays[0], arrays[1], arrays[2])
	if err != nil {
		t.Fatal(err)
	}
	if back.Axis != 1 || back.TensorScale != 0.5 || !back.Dequantize().Equal(q.Dequantize()) {
		t.Errorf("axis %d, g %v; or the values differ", back.Axis, back.TensorScale)
	}
	// Blocked along axis 0: the scales are [1, 40].
	q0, _ := Quantize(MXFP8E5M2, x, 0, Options{})
	if back, err := FromArrays(MXFP8E5M2, q0.Data, q0.Scales, nil); err != nil || back.Axis != 0 {
		t.Errorf("axis 0: %v, %v", back, err)
	}
	bad := []struct {
		name             string
		f                Format
		data, scales, ts *tensor.Tensor
	}{
		{"scale type", MXFP4, tensor.New(dtype.F4E2M1FN, []int64{2, 32}), tensor.New(dtype.F8E4M3FN, []int64{2, 1}), nil},
		{"element type", MXFP4, tensor.New(dtype.F8E4M3FN, []int64{2, 32}), tensor.New(dtype.F8E8M0FNU, []int64{2, 1}), nil},
		{"two dimensions differ", MXFP4, tensor.New(dtype.F4E2M1FN, []int64{64, 64}), tensor.New(dtype.F8E8M0FNU, []int64{2, 2}), nil},
		{"wrong block count", MXFP4, tensor.New(dtype.F4E2M1FN, []int64{2, 64}), tensor.New(dtype.F8E8M0FNU, []int64{2, 3}), nil},
		{"missing tensor scale", NVFP4, tensor.New(dtype.F4E2M1FN, []int64{2, 32}), tensor.New(dtype.F8E4M3FN, []int64{2, 2}), nil},
		{"MX tensor scale", MXFP4, tensor.New(dtype.F4E2M1FN, []int64{2, 32}), tensor.New(dtype.F8E8M0FNU, []int64{2, 1}),
			tensor.FromFloat32(nil, []float32{1})},
		{"negative tensor scale", NVFP4, tensor.New(dtype.F4E2M1FN, []int64{2, 32}), tensor.New(dtype.F8E4M3FN, []int64{2, 2}),
			tensor.FromFloat32(nil, []float32{-1})},
	}
	for _, c := range bad {
		if _, err := FromArrays(c.f, c.data, c.scales, c.ts); err == nil {
			t.Errorf("%s: accepted", c.name)
		}
	}
}

func TestLookup(t *testing.T) {
	for name, want := range map[string]string{"mxfp8": "mxfp8e4m3", "MXFP8_E5M2": "mxfp8e5m2", "mxfp6-e2m3": "mxfp6e2m3",
		"mxfp4": "mxfp4", "NVFP4": "nvfp4"} {
		if f, ok := Lookup(name); !ok || f.Name != want {
			t.Errorf("Lookup(%q) = %v, %v", name, f.Name, ok)
		}
	}
	if _, ok := Lookup("mxfp6"); ok {
		t.Error("mxfp6 names no one format")
	}
	for _, f := range Formats() {
		if got := map[string]int{"mxfp8e4m3": 8, "mxfp8e5m2": 15, "mxfp6e2m3": 2, "mxfp6e3m2": 4, "mxfp4": 2, "nvfp4": 2}[f.Name]; f.EmaxElem() != got {
			t.Errorf("%s: emax_elem %d, want %d", f.Name, f.EmaxElem(), got)
		}
	}
}

func TestConfigBlockSize(t *testing.T) {
	for cfg, want := range map[string]int64{
		`{"block_scaled_dot_backend_config":{"block_size":32}}`:    32,
		`{"block_scaled_dot_backend_config":{"block_size":"16"}}`:  16,
		`{"scaled_dot_backend_config":{"dequantize_type":"BF16"}}`: 0,
		`{block_size:32}`: 0,
		`{"block_scaled_dot_backend_config":{"block_size":-4}}`: 0,
	} {
		if got := ConfigBlockSize(cfg); got != want {
			t.Errorf("ConfigBlockSize(%s) = %d, want %d", cfg, got, want)
		}
	}
}

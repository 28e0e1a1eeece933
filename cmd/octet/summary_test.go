package main

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"octet/dtype"
	"octet/tensor"
)

// The summary reads f32, f64 and bf16 results from memory, aligned or not, and the other types through
// their decoding: the same values either way, and -0 below +0 whichever comes first.
func TestSummaryReader(t *testing.T) {
	vals := []float64{1.5, math.Copysign(0, -1), 0, math.Inf(-1), math.NaN(), -3.25, math.Inf(1), 2}
	for _, ty := range []dtype.Type{dtype.F32, dtype.F64, dtype.BF16, dtype.F16, dtype.F8E4M3FN} {
		x := tensor.New(ty, []int64{int64(len(vals))})
		for i, v := range vals {
			x.SetBitsAt(int64(i), ty.EncodeFloat64(v))
		}
		// The same elements one byte into a larger buffer: not aligned for a view.
		buf := make([]byte, len(x.Data)+1)
		copy(buf[1:], x.Data)
		odd := &tensor.Tensor{Type: ty, Shape: x.Shape, Data: buf[1:]}
		for _, u := range []*tensor.Tensor{x, odd} {
			at := elementReader(u)
			for i := range vals {
				got, want := at(int64(i)), ty.DecodeFloat64(u.BitsAt(int64(i)))
				if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
					t.Errorf("%s element %d: %v, want %v", ty, i, got, want)
				}
			}
		}
	}
	for _, order := range [][]float32{{0, float32(math.Copysign(0, -1))}, {float32(math.Copysign(0, -1)), 0}} {
		var b bytes.Buffer
		writeSummary(&b, "out0", tensor.FromFloat32([]int64{2}, order))
		if !strings.Contains(b.String(), "min -0  max 0") {
			t.Errorf("%v: %q, want min -0 and max 0", order, b.String())
		}
	}
}

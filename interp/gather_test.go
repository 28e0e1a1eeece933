package interp

import (
	"math/rand/v2"
	"testing"

	"octet/dtype"
	"octet/tensor"
)

// TestGatherLarge checks gathers large enough to be cut among goroutines against the rule written out
// element by element: take_along_axis (a batching dimension and one element per index, JAX's argsort
// epilogue) and an embedding lookup (rows of a table), with indices out of range on both sides, which
// gather clamps so that the slice fits.
func TestGatherLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	const rows, cols, dim = 96, 400, 8
	x := tensor.New(dtype.F32, []int64{rows, cols})
	xs := tensor.View[float32](x)
	for i := range xs {
		xs[i] = float32(i)
	}
	idx := tensor.New(dtype.S32, []int64{rows, cols, 1})
	for i := range idx.NumElements() {
		idx.SetBitsAt(i, uint64(uint32(int32(rng.IntN(cols+20)-10))))
	}
	clamp := func(v, hi int64) int64 { return max(0, min(v, hi)) }
	for _, threads := range []int{1, 2, 3} {
		m := parseModule(t, `ENTRY e {
  x = f32[96,400] parameter(0)
  i = s32[96,400,1] parameter(1)
  ROOT g = f32[96,400] gather(x, i), offset_dims={}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1}
}`)
		got, err := Run(m, []Value{ArrayValue(x), ArrayValue(idx)}, Options{Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		g := got.Array.Float32s()
		for r := int64(0); r < rows; r++ {
			for c := int64(0); c < cols; c++ {
				k := int64(int32(idx.BitsAt(r*cols + c)))
				if want := xs[r*cols+clamp(k, cols-1)]; g[r*cols+c] != want {
					t.Fatalf("%d threads: take_along_axis [%d,%d] = %v, want %v", threads, r, c, g[r*cols+c], want)
				}
			}
		}

		// Rows of a table: out[n, :] = table[clamp(i[n]), :].
		table := tensor.New(dtype.F32, []int64{cols, dim})
		ts := tensor.View[float32](table)
		for i := range ts {
			ts[i] = float32(-i)
		}
		ids := tensor.New(dtype.S32, []int64{rows * cols})
		for i := range ids.NumElements() {
			ids.SetBitsAt(i, uint64(uint32(int32(rng.IntN(cols+20)-10))))
		}
		m = parseModule(t, `ENTRY e {
  t = f32[400,8] parameter(0)
  i = s32[38400] parameter(1)
  ROOT g = f32[38400,8] gather(t, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,8}
}`)
		got, err = Run(m, []Value{ArrayValue(table), ArrayValue(ids)}, Options{Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		g = got.Array.Float32s()
		for n := int64(0); n < rows*cols; n++ {
			row := clamp(int64(int32(ids.BitsAt(n))), cols-1)
			for d := int64(0); d < dim; d++ {
				if want := ts[row*dim+d]; g[n*dim+d] != want {
					t.Fatalf("%d threads: lookup [%d,%d] = %v, want %v", threads, n, d, g[n*dim+d], want)
				}
			}
		}
	}
}

package interp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
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

// TestScatterRows checks scatters whose update computation is a plain add, multiply, maximum or minimum
// and whose last window dimension is the operand's and the updates' last, which combine a row of updates
// at a time, against the same scatters with the computation written so that it is called element by
// element (op(a, copy(b))), bit for bit: f32, bf16, f16 and f8e4m3fn values full of NaNs, signed zeros,
// infinities and ties, indices that repeat and that put windows outside the operand (skipped).
func TestScatterRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	shapes := []struct{ x, idx, upd, dims string }{
		{"50,16", "30,1", "30,16", "update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1"},
		{"6,5,7", "10,2", "10,3,7", "update_window_dims={1,2}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1"},
		{"9,4", "12,1", "12,2,4", "update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, index_vector_dim=1"},
		{"8,6", "5,1", "5,8", "update_window_dims={1}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, index_vector_dim=1"},
	}
	specials := []float64{math.NaN(), math.Copysign(math.NaN(), -1), 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), 1, -1}
	for _, typ := range []dtype.Type{dtype.F32, dtype.BF16, dtype.F16, dtype.F8E4M3FN} {
		for _, op := range []string{"add", "multiply", "maximum", "minimum"} {
			for _, sh := range shapes {
				t.Run(fmt.Sprintf("%s/%s/%s", typ, op, sh.x), func(t *testing.T) {
					var got [2]Value
					var args []Value
					for form, b := range []string{"b", "c"} {
						src := strings.ReplaceAll(fmt.Sprintf(`HloModule sc
f {
  a = T[] parameter(0)
  b = T[] parameter(1)
  c = T[] copy(b)
  ROOT r = T[] %s(a, %s)
}
ENTRY e {
  x = T[%s] parameter(0)
  i = s32[%s] parameter(1)
  u = T[%s] parameter(2)
  ROOT s = T[%s] scatter(x, i, u), %s, to_apply=f
}
`, op, b, sh.x, sh.idx, sh.upd, sh.x, sh.dims), "T[", typ.String()+"[")
						m := parseModule(t, src)
						if args == nil {
							for k, p := range m.Entry.Params {
								v := tensor.New(p.Shape.Elem, p.Shape.Dims)
								for j := range v.NumElements() {
									if k == 1 {
										v.SetBitsAt(j, uint64(rng.IntN(int(m.Entry.Params[0].Shape.Dims[0])+2)-1))
										continue
									}
									x := float64(rng.IntN(9)-4) / 2
									if rng.IntN(4) == 0 {
										x = specials[rng.IntN(len(specials))]
									}
									v.SetBitsAt(j, typ.EncodeFloat64(x))
								}
								args = append(args, ArrayValue(v))
							}
						}
						r, err := Run(m, args, Options{})
						if err != nil {
							t.Fatal(err)
						}
						got[form] = r
					}
					if string(got[0].Array.Data) != string(got[1].Array.Data) {
						t.Fatalf("by rows:\n%s\nelement by element:\n%s", describe(got[0]), describe(got[1]))
					}
				})
			}
		}
	}
}

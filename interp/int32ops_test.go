package interp

import (
	"math"
	"math/rand/v2"
	"testing"

	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

// TestInt32Ops compares the s32 and u32 paths of the elementwise instructions with the generic integer
// path (binaryInt and the int64 compare), element by element, on values at the ends of both types and
// at random, on arrays long enough to be split across goroutines; and the s32 and u32 iotas with the
// index arithmetic of the generic one.
func TestInt32Ops(t *testing.T) {
	const n = 3*elementwiseGrain + 5
	rng := rand.New(rand.NewPCG(1, 2))
	edges := []uint32{0, 1, 2, math.MaxUint32, math.MaxUint32 - 1, math.MaxInt32, math.MaxInt32 + 1, 0x8000_0001, 7, 1 << 16}
	gen := func() []uint64 {
		v := make([]uint64, n)
		for i := range v {
			if i < len(edges)*len(edges) {
				v[i] = uint64(edges[i%len(edges)])
				if i%2 == 1 {
					v[i] = uint64(edges[i/len(edges)])
				}
			} else {
				v[i] = uint64(rng.Uint32())
			}
		}
		return v
	}
	e := &evaluator{threads: 3}
	for _, ty := range []dtype.Type{dtype.S32, dtype.U32} {
		a := tensor.FromBits(ty, []int64{n}, gen())
		b := tensor.FromBits(ty, []int64{n}, gen())
		x, y := i64s(a), i64s(b)
		// Shift amounts around the width too, and past it, both signs.
		shifts := make([]uint64, n)
		for i := range shifts {
			shifts[i] = uint64(uint32(int32(rng.IntN(80) - 20)))
		}
		c := tensor.FromBits(ty, []int64{n}, shifts)
		type opCase struct {
			op    hlo.Opcode
			small bool // the second operand the shift amounts about the width
		}
		var cases []opCase
		for _, op := range []hlo.Opcode{hlo.OpAdd, hlo.OpSubtract, hlo.OpMultiply, hlo.OpAnd, hlo.OpOr, hlo.OpXor, hlo.OpMaximum, hlo.OpMinimum,
			hlo.OpShiftLeft, hlo.OpShiftRightLogical, hlo.OpShiftRightArithmetic} {
			cases = append(cases, opCase{op, false})
		}
		cases = append(cases, opCase{hlo.OpShiftLeft, true}, opCase{hlo.OpShiftRightLogical, true}, opCase{hlo.OpShiftRightArithmetic, true})
		for _, oc := range cases {
			op, b, y := oc.op, b, y
			if oc.small {
				b, y = c, i64s(c)
			}
			got := e.binaryInt32(op, ty, a, b, []int64{n})
			f := binaryInt(op, intInfoOf(ty))
			want := fromI64(ty, []int64{n}, zipSlices(x, y, f))
			if string(got.Data) != string(want.Data) {
				for i := range int64(n) {
					if got.BitsAt(i) != want.BitsAt(i) {
						t.Errorf("%s %s of %#x and %#x: %#x, want %#x", ty, op, a.BitsAt(i), b.BitsAt(i), got.BitsAt(i), want.BitsAt(i))
						break
					}
				}
			}
		}
		for d := dirEQ; d <= dirGE; d++ {
			got := e.compareFast(d, false, a, b, []int64{n})
			for i := range n {
				var want bool
				if ty.IsSigned() {
					want = compareOrdered(d, x[i], y[i])
				} else {
					want = compareOrdered(d, uint64(x[i]), uint64(y[i]))
				}
				if (got.Data[i] == 1) != want || got.Data[i] > 1 {
					t.Errorf("%s compare %v of %#x and %#x: %d, want %v", ty, d, x[i], y[i], got.Data[i], want)
					break
				}
			}
		}
		dims := []int64{3, elementwiseGrain / 64, 70}
		for d := range int64(3) {
			got := e.iotaInt32(ty, dims, d)
			stride := rowMajorStrides(dims)[d]
			for i := range got.NumElements() {
				if want := uint64(i / stride % dims[d]); got.BitsAt(i) != want {
					t.Errorf("%s iota along %d: element %d is %d, want %d", ty, d, i, got.BitsAt(i), want)
					break
				}
			}
		}
	}
}

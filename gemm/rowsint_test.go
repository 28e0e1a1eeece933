package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// intValues returns n uint32 values drawn from what integer arithmetic must get right: the extremes of
// int32 and uint32 and their neighbours, small values of both signs (equal pairs among them), shift
// counts from 0 to 40, counts with high bits set (negative as int32), and anything.
func intValues(rng *rand.Rand, n int) []uint32 {
	specials := []uint32{0, 1, 2, 0x7fffffff, 0x80000000, 0x80000001, 0x7ffffffe, 0xffffffff, 0xfffffffe,
		0xffffffe0, 0x0000ffff, 0xffff0000, 0x55555555, 0xaaaaaaaa, 31, 32, 33, 63, 64, 0x100, 0x80000020}
	v := make([]uint32, n)
	for i := range v {
		switch r := rng.IntN(6); r {
		case 0:
			v[i] = specials[rng.IntN(len(specials))]
		case 1:
			v[i] = uint32(int32(rng.IntN(7) - 3))
		case 2:
			v[i] = uint32(rng.IntN(41))
		default:
			v[i] = rng.Uint32()
		}
	}
	return v
}

// rowU32Ref is one element of RowU32, written apart from the code under test: in 64-bit arithmetic, the
// shifts' wide counts spelled out.
func rowU32Ref(op IntOp, a, b uint32) uint32 {
	sa, sb := int64(int32(a)), int64(int32(b))
	ua, ub := uint64(a), uint64(b)
	switch op {
	case IntAdd:
		return uint32(ua + ub)
	case IntSub:
		return uint32(ua - ub)
	case IntMul:
		return uint32(ua * ub)
	case IntAnd:
		return uint32(ua & ub)
	case IntOr:
		return uint32(ua | ub)
	case IntXor:
		return uint32(ua ^ ub)
	case IntMaxS:
		if sa < sb {
			return b
		}
		return a
	case IntMinS:
		if sb < sa {
			return b
		}
		return a
	case IntMaxU:
		if ua < ub {
			return b
		}
		return a
	case IntMinU:
		if ub < ua {
			return b
		}
		return a
	case IntShl:
		if ub >= 32 {
			return 0
		}
		return uint32(ua << ub)
	case IntShrU:
		if ub >= 32 {
			return 0
		}
		return uint32(ua >> ub)
	case IntShrS:
		if ub >= 32 {
			ub = 63
		}
		return uint32(sa >> ub)
	}
	panic(op)
}

// TestRowU32 checks every operation of every kernel against the element-by-element definition on runs
// of every length up to 70 and some long ones, at unaligned starts, into a separate array and in place
// (dst being x, then y).
func TestRowU32(t *testing.T) {
	withKernel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(11, 13))
		for op := IntOp(0); op < numIntOps; op++ {
			for _, n := range append(rangeInts(0, 70), 2048, 2048+13, 10007) {
				for _, inPlace := range []int{0, 1, 2} {
					off := rng.IntN(16)
					x, y := intValues(rng, n+off+1), intValues(rng, n+off+1)
					x0, y0 := append([]uint32(nil), x...), append([]uint32(nil), y...)
					dst := make([]uint32, n+off+1)
					switch inPlace {
					case 1:
						dst = x
					case 2:
						dst = y
					}
					dst[n+off] = 42
					RowU32(op, dst[off:n+off], x[off:n+off+1], y[off:n+off+1])
					if dst[n+off] != 42 {
						t.Fatalf("%v of %d elements wrote past its end", op, n)
					}
					for i := off; i < n+off; i++ {
						a, b := x0[i], y0[i]
						if got, want := dst[i], rowU32Ref(op, a, b); got != want {
							t.Fatalf("%v of %d elements (in place %d): element %d, %#08x and %#08x: got %#08x, want %#08x",
								op, n, inPlace, i-off, a, b, got, want)
						}
					}
				}
			}
		}
	})
}

// TestRowU32Shifts checks the shifts of every kernel on every count from 0 to 40 and wide ones, for
// values of both signs, a full register of each.
func TestRowU32Shifts(t *testing.T) {
	counts := []uint32{0, 1, 15, 30, 31, 32, 33, 40, 63, 64, 255, 256, 0x7fffffff, 0x80000000, 0x80000001, 0xffffffe0, 0xffffffff}
	for c := uint32(0); c <= 40; c++ {
		counts = append(counts, c)
	}
	values := []uint32{0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0x12345678, 0x87654321}
	var x, y []uint32
	for _, c := range counts {
		for _, v := range values {
			for range 8 { // each pair its own register too
				x, y = append(x, v), append(y, c)
			}
		}
	}
	withKernel(t, func(t *testing.T) {
		for _, op := range []IntOp{IntShl, IntShrU, IntShrS} {
			dst := make([]uint32, len(x))
			RowU32(op, dst, x, y)
			for i := range dst {
				if want := rowU32Ref(op, x[i], y[i]); dst[i] != want {
					t.Fatalf("%v %#08x by %d: got %#08x, want %#08x", op, x[i], y[i], dst[i], want)
				}
			}
		}
	})
}

// TestRowU32Panics checks that RowU32 refuses short operands and unknown operations.
func TestRowU32Panics(t *testing.T) {
	for _, f := range []func(){
		func() { RowU32(IntAdd, make([]uint32, 9), make([]uint32, 8), make([]uint32, 9)) },
		func() { RowU32(IntAdd, make([]uint32, 9), make([]uint32, 9), make([]uint32, 8)) },
		func() { RowU32(numIntOps, nil, nil, nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		}()
	}
}

// BenchmarkRowU32 times each operation on a chunk of the interpreter's (2048 elements, in L1) and on a
// long run (1M elements, 4 MiB an array), by the Go loop and by RowU32 with the default kernel.
func BenchmarkRowU32(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	for op := IntOp(0); op < numIntOps; op++ {
		for _, n := range []int{2048, 1 << 20} {
			x, y, dst := intValues(rng, n), intValues(rng, n), make([]uint32, n)
			if op >= IntShl {
				for i := range y {
					y[i] %= 40
				}
			}
			for _, impl := range []string{"go", "kernel"} {
				b.Run(fmt.Sprintf("%v/%d/%s", op, n, impl), func(b *testing.B) {
					b.SetBytes(int64(12 * n))
					for b.Loop() {
						if impl == "go" {
							rowU32Go(op, dst, x, y)
						} else {
							RowU32(op, dst, x, y)
						}
					}
				})
			}
		}
	}
}

package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// floatBits returns n float32 bit patterns drawn from what a float compare must get right: both zeros,
// the infinities, quiet and signalling NaNs of both signs, subnormals, the normal extremes, small
// values of both signs (equal ones among them), and anything.
func floatBits(rng *rand.Rand, n int) []uint32 {
	specials := []uint32{0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001,
		0x7fffffff, 0xffffffff, 1, 0x80000001, 0x007fffff, 0x807fffff, 0x00800000, 0x80800000, 0x7f7fffff,
		0xff7fffff, 0x3f800000, 0xbf800000, 0x3f800001}
	v := make([]uint32, n)
	for i := range v {
		switch rng.IntN(5) {
		case 0, 1:
			v[i] = specials[rng.IntN(len(specials))]
		case 2:
			v[i] = math.Float32bits(float32(rng.IntN(7) - 3))
		default:
			v[i] = rng.Uint32()
		}
	}
	return v
}

// cmpOperands returns x and y of n elements of type t, y equal to x at a quarter of the elements.
func cmpOperands(rng *rand.Rand, t cmpType, n int) (x, y []uint32) {
	if t == cmpF32 {
		x, y = floatBits(rng, n), floatBits(rng, n)
	} else {
		x, y = intValues(rng, n), intValues(rng, n)
	}
	for i := range y {
		if rng.IntN(4) == 0 {
			y[i] = x[i]
		}
	}
	return x, y
}

// cmpRef is one element of a compare, written apart from the code under test: the values widened to
// int64 or float64 (exactly, NaNs kept), compared by a switch of branches.
func cmpRef(t cmpType, op CmpOp, a, b uint32) byte {
	var lt, eq, unordered bool
	switch t {
	case cmpS32:
		sa, sb := int64(int32(a)), int64(int32(b))
		lt, eq = sa < sb, sa == sb
	case cmpU32:
		lt, eq = uint64(a) < uint64(b), a == b
	case cmpF32:
		fa, fb := float64(math.Float32frombits(a)), float64(math.Float32frombits(b))
		unordered = math.IsNaN(fa) || math.IsNaN(fb)
		lt, eq = fa < fb, fa == fb
	}
	var r bool
	switch op {
	case CmpEQ:
		r = eq
	case CmpNE:
		r = !eq
	case CmpLT:
		r = lt
	case CmpLE:
		r = lt || eq
	case CmpGT:
		r = !lt && !eq && !unordered
	case CmpGE:
		r = !lt && !unordered
	}
	if r {
		return 1
	}
	return 0
}

// compareT calls the exported compare of type t.
func compareT(t cmpType, op CmpOp, dst []byte, x, y []uint32) {
	switch t {
	case cmpS32:
		xs, ys := make([]int32, len(x)), make([]int32, len(y))
		for i := range x {
			xs[i], ys[i] = int32(x[i]), int32(y[i])
		}
		CompareS32(op, dst, xs, ys)
	case cmpU32:
		CompareU32(op, dst, x, y)
	case cmpF32:
		xs, ys := make([]float32, len(x)), make([]float32, len(y))
		for i := range x {
			xs[i], ys[i] = math.Float32frombits(x[i]), math.Float32frombits(y[i])
		}
		CompareF32(op, dst, xs, ys)
	}
}

var cmpTypeNames = [numCmpTypes]string{"s32", "u32", "f32"}

// TestCompareRows checks every compare of every kernel against the element-by-element definition and
// against the Go loop (the scalar path), on runs of every length up to 80 and some long ones, at
// unaligned starts, and that nothing is written outside dst.
func TestCompareRows(t *testing.T) {
	withKernel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(17, 19))
		for ty := cmpType(0); ty < numCmpTypes; ty++ {
			for op := CmpOp(0); op < numCmpOps; op++ {
				for _, n := range append(rangeInts(0, 80), 2048, 2048+13, 10007) {
					off := rng.IntN(16)
					x, y := cmpOperands(rng, ty, n+off+1)
					buf := make([]byte, n+off+2)
					for i := range buf {
						buf[i] = 42
					}
					dst := buf[off+1 : off+1+n]
					compareT(ty, op, dst, x[off:n+off+1], y[off:n+off+1])
					if buf[off] != 42 || buf[off+1+n] != 42 {
						t.Fatalf("%s %v of %d elements wrote outside dst", cmpTypeNames[ty], op, n)
					}
					goDst := make([]byte, n)
					compareGo(ty, op, goDst, x[off:n+off], y[off:n+off])
					for i := range n {
						a, b := x[off+i], y[off+i]
						if want := cmpRef(ty, op, a, b); dst[i] != want || goDst[i] != want {
							t.Fatalf("%s %v of %d elements: element %d, %#08x and %#08x: got %d (Go loop %d), want %d",
								cmpTypeNames[ty], op, n, i, a, b, dst[i], goDst[i], want)
						}
					}
				}
			}
		}
	})
}

// TestCompareRowsPairs checks every compare of every kernel on every pair of edge values, each pair a
// full register of its own too.
func TestCompareRowsPairs(t *testing.T) {
	ints := []uint32{0, 1, 2, 0x7fffffff, 0x7ffffffe, 0x80000000, 0x80000001, 0xffffffff, 0xfffffffe, 0x7fff, 0x8000,
		0xffff, 0x10000}
	floats := floatBits(rand.New(rand.NewPCG(1, 1)), 0)
	for _, f := range []float32{0, 1, -1, 0.5, float32(math.Inf(1)), float32(math.Inf(-1)), math.MaxFloat32,
		-math.MaxFloat32, math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, 1.17549435e-38} {
		floats = append(floats, math.Float32bits(f))
	}
	floats = append(floats, 0x80000000, 0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001, 0x7fffffff, 0x807fffff)
	withKernel(t, func(t *testing.T) {
		for ty := cmpType(0); ty < numCmpTypes; ty++ {
			values := ints
			if ty == cmpF32 {
				values = floats
			}
			var x, y []uint32
			for _, a := range values {
				for _, b := range values {
					for range 8 {
						x, y = append(x, a), append(y, b)
					}
				}
			}
			for op := CmpOp(0); op < numCmpOps; op++ {
				dst := make([]byte, len(x))
				compareT(ty, op, dst, x, y)
				for i := range dst {
					if want := cmpRef(ty, op, x[i], y[i]); dst[i] != want {
						t.Fatalf("%s %v of %#08x and %#08x: got %d, want %d", cmpTypeNames[ty], op, x[i], y[i], dst[i], want)
					}
				}
			}
		}
	})
}

// predBytes returns n predicate bytes: mostly 0 and 1, and other bytes (true all the same).
func predBytes(rng *rand.Rand, n int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = []byte{0, 1, 0, 1, 2, 0x80, 0xff, 0x7f, byte(rng.Uint32())}[rng.IntN(9)]
	}
	return p
}

// TestSelectRows checks SelectU32 and SelectU8 of every kernel against the definition, on runs of every
// length up to 80 and some long ones, at unaligned starts, into a separate array and in place (dst being
// x, then y), and that nothing is written past dst.
func TestSelectRows(t *testing.T) {
	withKernel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(23, 29))
		for _, n := range append(rangeInts(0, 80), 2048, 2048+13, 10007) {
			for _, inPlace := range []int{0, 1, 2} {
				off := rng.IntN(40)
				p := predBytes(rng, n+off+1)
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
				SelectU32(dst[off:n+off], p[off:n+off+1], x[off:n+off+1], y[off:n+off+1])
				if dst[n+off] != 42 {
					t.Fatalf("SelectU32 of %d elements wrote past its end", n)
				}
				for i := off; i < n+off; i++ {
					want := y0[i]
					if p[i] != 0 {
						want = x0[i]
					}
					if dst[i] != want {
						t.Fatalf("SelectU32 of %d elements (in place %d): element %d, pred %d, %#08x or %#08x: got %#08x",
							n, inPlace, i-off, p[i], x0[i], y0[i], dst[i])
					}
				}

				bx, by := make([]byte, n+off+1), make([]byte, n+off+1)
				for i := range bx {
					bx[i], by[i] = byte(x0[i]), byte(y0[i])
				}
				bx0, by0 := append([]byte(nil), bx...), append([]byte(nil), by...)
				bdst := make([]byte, n+off+1)
				switch inPlace {
				case 1:
					bdst = bx
				case 2:
					bdst = by
				}
				bdst[n+off] = 42
				SelectU8(bdst[off:n+off], p[off:n+off+1], bx[off:n+off+1], by[off:n+off+1])
				if bdst[n+off] != 42 {
					t.Fatalf("SelectU8 of %d elements wrote past its end", n)
				}
				for i := off; i < n+off; i++ {
					want := by0[i]
					if p[i] != 0 {
						want = bx0[i]
					}
					if bdst[i] != want {
						t.Fatalf("SelectU8 of %d elements (in place %d): element %d, pred %d, %#02x or %#02x: got %#02x",
							n, inPlace, i-off, p[i], bx0[i], by0[i], bdst[i])
					}
				}
			}
		}
	})
}

// TestCompareSelectPanics checks that the compares and selects refuse short operands and unknown
// directions.
func TestCompareSelectPanics(t *testing.T) {
	for _, f := range []func(){
		func() { CompareU32(CmpEQ, make([]byte, 9), make([]uint32, 8), make([]uint32, 9)) },
		func() { CompareS32(CmpLT, make([]byte, 9), make([]int32, 9), make([]int32, 8)) },
		func() { CompareF32(numCmpOps, nil, nil, nil) },
		func() { SelectU32(make([]uint32, 9), make([]byte, 8), make([]uint32, 9), make([]uint32, 9)) },
		func() { SelectU32(make([]uint32, 9), make([]byte, 9), make([]uint32, 9), make([]uint32, 8)) },
		func() { SelectU8(make([]byte, 9), make([]byte, 9), make([]byte, 8), make([]byte, 9)) },
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

// BenchmarkCompareRows times each compare and the selects on a chunk of the interpreter's (2048
// elements, in L1), by the Go loop and by the default kernel.
func BenchmarkCompareRows(b *testing.B) {
	const n = 2048
	rng := rand.New(rand.NewPCG(1, 2))
	dst := make([]byte, n)
	for ty := cmpType(0); ty < numCmpTypes; ty++ {
		x, y := cmpOperands(rng, ty, n)
		for op := CmpOp(0); op < numCmpOps; op++ {
			for _, impl := range []string{"go", "kernel"} {
				b.Run(fmt.Sprintf("%s/%v/%s", cmpTypeNames[ty], op, impl), func(b *testing.B) {
					b.SetBytes(9 * n)
					for b.Loop() {
						if impl == "go" {
							compareGo(ty, op, dst, x, y)
						} else {
							compareRow("bench", ty, op, dst, x, y)
						}
					}
				})
			}
		}
	}
	p := predBytes(rng, n)
	x, y, z := intValues(rng, n), intValues(rng, n), make([]uint32, n)
	bx, by, bz := make([]byte, n), make([]byte, n), make([]byte, n)
	for _, impl := range []string{"go", "kernel"} {
		b.Run("select32/"+impl, func(b *testing.B) {
			b.SetBytes(13 * n)
			for b.Loop() {
				if impl == "go" {
					selectGo(z, p, x, y)
				} else {
					SelectU32(z, p, x, y)
				}
			}
		})
		b.Run("select8/"+impl, func(b *testing.B) {
			b.SetBytes(4 * n)
			for b.Loop() {
				if impl == "go" {
					selectGo(bz, p, bx, by)
				} else {
					SelectU8(bz, p, bx, by)
				}
			}
		})
	}
}

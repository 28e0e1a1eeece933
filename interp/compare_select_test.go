package interp

import (
	"math"
	"math/rand/v2"
	"testing"

	"octet/dtype"
	"octet/hlo"
	"octet/hlo/parser"
	"octet/tensor"
)

// fastCompareTypes are the element types compareFast reads in place or decodes.
var fastCompareTypes = []dtype.Type{dtype.S8, dtype.U8, dtype.S16, dtype.U16, dtype.S32, dtype.U32, dtype.S64,
	dtype.U64, dtype.F32, dtype.F64, dtype.BF16, dtype.F16, dtype.F8E4M3FN, dtype.F8E5M2}

// compareOperands returns two arrays of ty, of n elements: every pair of a few edge values first (the
// ends of an integer type; for floats both zeros, the infinities, a NaN, the smallest subnormal and the
// largest finite value where the type has them), then random bits.
func compareOperands(rng *rand.Rand, ty dtype.Type, n int) (*tensor.Tensor, *tensor.Tensor) {
	w := ty.BitWidth()
	mask := uint64(math.MaxUint64) >> (64 - w)
	var edges []uint64
	if ty.IsFloat() {
		for _, v := range []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1, -1, 1.5} {
			edges = append(edges, ty.EncodeFloat64(v))
		}
		edges = append(edges, 1, mask>>1-1, mask) // the smallest subnormal, a large value, a negative NaN or the like
	} else {
		edges = []uint64{0, 1, 2, mask, mask - 1, mask >> 1, mask>>1 + 1}
	}
	x, y := make([]uint64, n), make([]uint64, n)
	for i := range n {
		if i < len(edges)*len(edges) {
			x[i], y[i] = edges[i%len(edges)], edges[i/len(edges)]
		} else {
			x[i], y[i] = rng.Uint64()&mask, rng.Uint64()&mask
		}
		if rng.IntN(8) == 0 {
			y[i] = x[i] // equal values, often
		}
	}
	return tensor.FromBits(ty, []int64{int64(n)}, x), tensor.FromBits(ty, []int64{int64(n)}, y)
}

// TestCompareFast checks compareFast, every direction and type it takes, element by element against
// the comparison of the values decoded one at a time (integers as int64 or uint64, floats as float64),
// on arrays split across goroutines; and that it declines what it does not cover.
func TestCompareFast(t *testing.T) {
	const n = 2*elementwiseGrain + 7
	rng := rand.New(rand.NewPCG(3, 4))
	e := &evaluator{threads: 3}
	for _, ty := range fastCompareTypes {
		a, b := compareOperands(rng, ty, n)
		for d := dirEQ; d <= dirGE; d++ {
			got := e.compareFast(d, false, a, b, []int64{n})
			if got == nil {
				t.Fatalf("%s: compareFast declined", ty)
			}
			for i := range int64(n) {
				xa, xb := a.BitsAt(i), b.BitsAt(i)
				var want bool
				switch {
				case ty.IsFloat():
					want = compareOrdered(d, ty.DecodeFloat64(xa), ty.DecodeFloat64(xb))
				case ty.IsSigned():
					s := 64 - uint(ty.BitWidth())
					want = compareOrdered(d, int64(xa<<s)>>s, int64(xb<<s)>>s)
				default:
					want = compareOrdered(d, xa, xb)
				}
				if g := got.Data[i]; g > 1 || (g == 1) != want {
					t.Errorf("%s compare %v of %#x and %#x: %d, want %v", ty, d, xa, xb, g, want)
					break
				}
			}
		}
		if ty.IsFloat() && e.compareFast(dirLT, true, a, b, []int64{n}) != nil {
			t.Errorf("%s: compareFast took a TOTALORDER comparison", ty)
		}
		if es := ty.ByteSize(); es > 1 {
			// Data not aligned for the element type is left to the general path.
			shift := func(x *tensor.Tensor) *tensor.Tensor {
				d := make([]byte, len(x.Data)+1)
				copy(d[1:], x.Data)
				return &tensor.Tensor{Type: x.Type, Shape: x.Shape, Data: d[1:]}
			}
			if ty.IsInteger() || ty == dtype.F32 || ty == dtype.F64 {
				if e.compareFast(dirLT, false, shift(a), b, []int64{n}) != nil {
					t.Errorf("%s: compareFast read unaligned data", ty)
				}
			}
		}
	}
	for _, ty := range []dtype.Type{dtype.PRED, dtype.S4, dtype.U4, dtype.C64} {
		a := tensor.New(ty, []int64{4})
		if e.compareFast(dirEQ, false, a, a, []int64{4}) != nil {
			t.Errorf("%s: compareFast took it", ty)
		}
	}
}

// TestSelectSizes checks select for elements of every size, aligned and not, with predicates holding
// other nonzero bytes than 1 (true all the same), element by element, on arrays split across goroutines.
func TestSelectSizes(t *testing.T) {
	const n = 2*elementwiseGrain + 7
	m, err := parser.ParseString("select", `HloModule m
ENTRY e {
  p = pred[3] parameter(0)
  x = f32[3] parameter(1)
  ROOT r = f32[3] select(p, x, x)
}`)
	if err != nil {
		t.Fatal(err)
	}
	in := m.Entry.Root
	rng := rand.New(rand.NewPCG(5, 6))
	e := &evaluator{threads: 3}
	p := tensor.New(dtype.PRED, []int64{n})
	for i := range p.Data {
		p.Data[i] = []byte{0, 1, 2, 0x80, 0xff}[rng.IntN(5)]
	}
	for _, ty := range []dtype.Type{dtype.S8, dtype.F4E2M1FN, dtype.BF16, dtype.F32, dtype.S64, dtype.C64, dtype.C128} {
		es := ty.ByteSize()
		for _, off := range []int{0, 1} {
			operand := func() *tensor.Tensor {
				d := make([]byte, n*es+off)[off:]
				for i := range d {
					d[i] = byte(rng.Uint32())
				}
				return &tensor.Tensor{Type: ty, Shape: []int64{n}, Data: d}
			}
			a, b := operand(), operand()
			in.Shape.Elem, in.Shape.Dims = ty, []int64{n}
			got, err := e.selectOp(in, []*tensor.Tensor{p, a, b})
			if err != nil {
				t.Fatal(err)
			}
			for i := range n {
				want := b.Data[i*es : (i+1)*es]
				if p.Data[i] != 0 {
					want = a.Data[i*es : (i+1)*es]
				}
				if g := got.Data[i*es : (i+1)*es]; string(g) != string(want) {
					t.Errorf("%s (offset %d) element %d, pred %d: %x, want %x", ty, off, i, p.Data[i], g, want)
					break
				}
			}
		}
	}
}

// TestConvertFast checks convertFast against convertTensor's element-by-element conversions for every
// pair of types it takes (edge values and random bits, the floats' specials among them), and that it
// declines floats to integers, the narrow types and unaligned data.
func TestConvertFast(t *testing.T) {
	const n = 2*elementwiseGrain + 7
	rng := rand.New(rand.NewPCG(7, 8))
	e := &evaluator{threads: 3}
	plain := []dtype.Type{dtype.S8, dtype.U8, dtype.S16, dtype.U16, dtype.S32, dtype.U32, dtype.S64, dtype.U64, dtype.F32, dtype.F64}
	pairs := 0
	for _, from := range plain {
		x, _ := compareOperands(rng, from, n)
		for _, to := range plain {
			got := e.convertFast(x, to, []int64{n})
			if from == to || from.IsFloat() && !to.IsFloat() {
				if got != nil {
					t.Errorf("%s to %s: convertFast took it", from, to)
				}
				continue
			}
			pairs++
			want, err := convertTensor(x, to, []int64{n})
			if err != nil {
				t.Fatal(err)
			}
			for i := range int64(n) {
				if g, w := got.BitsAt(i), want.BitsAt(i); g != w {
					t.Errorf("%s %#x to %s: %#x, want %#x", from, x.BitsAt(i), to, g, w)
					break
				}
			}
		}
		if from.ByteSize() > 1 {
			d := make([]byte, len(x.Data)+1)
			copy(d[1:], x.Data)
			if e.convertFast(&tensor.Tensor{Type: from, Shape: x.Shape, Data: d[1:]}, dtype.S8, x.Shape) != nil {
				t.Errorf("%s: convertFast read unaligned data", from)
			}
		}
	}
	if pairs != 74 {
		t.Errorf("%d pairs converted, want 74", pairs)
	}
	for _, ty := range []dtype.Type{dtype.BF16, dtype.S4, dtype.PRED, dtype.F8E4M3FN} {
		x := tensor.New(ty, []int64{4})
		if e.convertFast(x, dtype.F32, x.Shape) != nil || e.convertFast(tensor.New(dtype.S32, []int64{4}), ty, x.Shape) != nil {
			t.Errorf("%s: convertFast took it", ty)
		}
	}
}

// TestUnaryWrittenOut checks the written-out loops of negate, abs and sqrt, and package gemm's
// exponential, tanh and logistic, against the same chunks
// computed through the operations' element functions (unaryF32), over every bit pattern of the narrow
// types and random f32 bits with the specials.
func TestUnaryWrittenOut(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	e := &evaluator{threads: 3}
	for _, ty := range []dtype.Type{dtype.F32, dtype.BF16, dtype.F16, dtype.F8E4M3FN, dtype.F8E5M2FNUZ, dtype.F4E2M1FN} {
		var x *tensor.Tensor
		if ty.BitWidth() <= 16 {
			bits := make([]uint64, 1<<ty.BitWidth())
			for i := range bits {
				bits[i] = uint64(i)
			}
			x = tensor.FromBits(ty, []int64{int64(len(bits))}, bits)
		} else {
			x, _ = compareOperands(rng, ty, 2*elementwiseGrain+7)
		}
		for _, op := range []hlo.Opcode{hlo.OpNegate, hlo.OpAbs, hlo.OpSqrt, hlo.OpExp, hlo.OpTanh, hlo.OpLogistic} {
			in := &hlo.Instruction{Opcode: op, Shape: hlo.Shape{Elem: ty, Dims: x.Shape}}
			f := unaryF32(op)
			got := e.unaryFloat32(in, x, f)
			want := e.float32Chunks(ty, x.Shape, []*tensor.Tensor{x}, func(dst []float32, xs [][]float32) {
				for i, v := range xs[0] {
					dst[i] = f(v)
				}
			})
			for i := range x.NumElements() {
				if g, w := got.BitsAt(i), want.BitsAt(i); g != w {
					t.Errorf("%s %s of %#x: %#x, want %#x", ty, op, x.BitsAt(i), g, w)
					break
				}
			}
		}
	}
}

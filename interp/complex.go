package interp

import (
	"math"
	"math/cmplx"

	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

// Complex numbers compute in complex128 (math/cmplx); a c64 result rounds each part to float32. The
// multiply, divide, expm1 and the CHLO functions sinh, cosh, asin, acos, asinh and acosh follow XLA's
// formulations instead (complex_xla.go).

func c128s(t *tensor.Tensor) []complex128 { return t.Complex128s() }

// fromC128 returns a c64 or c128 tensor holding x.
func fromC128(ty dtype.Type, dims []int64, x []complex128) *tensor.Tensor {
	out := tensor.New(ty, dims)
	for i, v := range x {
		if ty == dtype.C64 {
			out.SetBitsAt(int64(i), c64Bits(v))
		} else {
			putUint64(out.Data[16*i:], math.Float64bits(real(v)))
			putUint64(out.Data[16*i+8:], math.Float64bits(imag(v)))
		}
	}
	return out
}

func c64Bits(v complex128) uint64 {
	return uint64(math.Float32bits(float32(real(v)))) | uint64(math.Float32bits(float32(imag(v))))<<32
}

func c64FromBits(b uint64) complex128 {
	return complex(float64(math.Float32frombits(uint32(b))), float64(math.Float32frombits(uint32(b>>32))))
}

func unaryComplex(op hlo.Opcode) func(complex128) complex128 {
	switch op {
	case hlo.OpNegate:
		return func(x complex128) complex128 { return -x }
	case hlo.OpExp:
		return cmplx.Exp
	case hlo.OpExpm1:
		return xlaExpm1Complex
	case hlo.OpLog:
		return cmplx.Log
	case hlo.OpLog1p:
		return func(x complex128) complex128 { return cmplx.Log(1 + x) }
	case hlo.OpSqrt:
		return cmplx.Sqrt
	case hlo.OpRsqrt:
		return func(x complex128) complex128 { return 1 / cmplx.Sqrt(x) }
	case hlo.OpCbrt:
		return func(x complex128) complex128 { return cmplx.Pow(x, 1.0/3) }
	case hlo.OpSin:
		return cmplx.Sin
	case hlo.OpCos:
		return cmplx.Cos
	case hlo.OpTan:
		return cmplx.Tan
	case hlo.OpTanh:
		return cmplx.Tanh
	case hlo.OpSinh:
		return func(x complex128) complex128 { return chloSinhCosh(x, -1) }
	case hlo.OpCosh:
		return func(x complex128) complex128 { return chloSinhCosh(x, 1) }
	case hlo.OpAsin:
		return chloAsin
	case hlo.OpAcos:
		return chloAcos
	case hlo.OpAtan:
		return cmplx.Atan
	case hlo.OpAsinh:
		return chloAsinh
	case hlo.OpAcosh:
		return chloAcosh
	case hlo.OpAtanh:
		return cmplx.Atanh
	case hlo.OpLogistic:
		return func(x complex128) complex128 { return 1 / (1 + cmplx.Exp(-x)) }
	case hlo.OpSign:
		return func(x complex128) complex128 {
			a := cmplx.Abs(x)
			if a == 0 {
				return 0
			}
			return x / complex(a, 0)
		}
	case hlo.OpCopy:
		return func(x complex128) complex128 { return x }
	}
	return nil
}

func binaryComplex(op hlo.Opcode) func(a, b complex128) complex128 {
	switch op {
	case hlo.OpAdd:
		return func(a, b complex128) complex128 { return a + b }
	case hlo.OpSubtract:
		return func(a, b complex128) complex128 { return a - b }
	case hlo.OpMultiply:
		return xlaMul
	case hlo.OpDivide:
		return xlaDiv
	case hlo.OpPower:
		return func(a, b complex128) complex128 {
			if a == 1 || b == 0 {
				return 1
			}
			return cmplx.Pow(a, b)
		}
	}
	return moreBinaryComplex(op)
}

// complexUnary evaluates a unary operation on a complex operand: abs, real and imag give reals.
func complexUnary(in *hlo.Instruction, x *tensor.Tensor) (*tensor.Tensor, error) {
	out, dims, op := in.Shape.Elem, in.Shape.Dims, in.Opcode
	v := c128s(x)
	switch op {
	case hlo.OpAbs, hlo.OpReal, hlo.OpImag:
		r := make([]float64, len(v))
		for i, z := range v {
			switch op {
			case hlo.OpAbs:
				r[i] = cmplx.Abs(z)
			case hlo.OpReal:
				r[i] = real(z)
			default:
				r[i] = imag(z)
			}
		}
		return realResult(out, dims, r), nil
	}
	f := unaryComplex(op)
	if f == nil || !out.IsComplex() {
		return nil, unsupportedf(in, "%s of %s", op, x.Type)
	}
	r := make([]complex128, len(v))
	for i, z := range v {
		r[i] = f(z)
	}
	return fromC128(out, dims, r), nil
}

// realResult stores float64 values in an f32 or f64 tensor.
func realResult(ty dtype.Type, dims []int64, r []float64) *tensor.Tensor {
	if ty == dtype.F64 {
		return fromF64(ty, dims, r)
	}
	f := make([]float32, len(r))
	for i, x := range r {
		f[i] = float32(x)
	}
	return fromF32(ty, dims, f)
}

// complexOp is the complex instruction: a complex number from its real and imaginary parts.
func (e *evaluator) complexOp(in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error) {
	if len(ts) != 2 || !in.Shape.Elem.IsComplex() {
		return nil, errorf(in, "complex takes two real operands and gives a complex array")
	}
	if err := checkSameCount(in, ts...); err != nil {
		return nil, err
	}
	re, im := f64s(ts[0]), f64s(ts[1])
	r := make([]complex128, len(re))
	for i := range r {
		r[i] = complex(re[i], im[i])
	}
	return fromC128(in.Shape.Elem, in.Shape.Dims, r), nil
}

package interp

import (
	"math"
	"math/bits"

	"octet/dtype"
	"octet/hlo"
)

// The element functions of the elementwise operations, one set per working domain. They follow XLA's
// HloEvaluator: the libm function of the working type, NaN-propagating maximum and minimum, integer
// division by zero giving -1 (all ones) and remainder by zero the dividend, shifts past the width giving
// 0 (or the sign for arithmetic right shifts). Transcendental functions are computed in float64 and rounded,
// so they may differ from a float32 libm in the last place. Sinh and cosh, which StableHLO has from CHLO,
// are CHLO's decompositions in the working precision instead, as XLA computes them (complex_xla.go).

func unaryF32(op hlo.Opcode) func(float32) float32 {
	if f := unaryF64(op); f != nil {
		switch op {
		case hlo.OpAbs:
			return abs32
		case hlo.OpNegate:
			return func(x float32) float32 { return -x }
		case hlo.OpCosh:
			return chloCosh32
		case hlo.OpSinh:
			return chloSinh32
		case hlo.OpSign:
			return func(x float32) float32 {
				if x != x || x == 0 {
					return x
				}
				if x < 0 {
					return -1
				}
				return 1
			}
		}
		return func(x float32) float32 { return float32(f(float64(x))) }
	}
	return nil
}

func unaryF64(op hlo.Opcode) func(float64) float64 {
	switch op {
	case hlo.OpAbs:
		return math.Abs
	case hlo.OpNegate:
		return func(x float64) float64 { return -x }
	case hlo.OpCeil:
		return math.Ceil
	case hlo.OpFloor:
		return math.Floor
	case hlo.OpCos:
		return math.Cos
	case hlo.OpSin:
		return math.Sin
	case hlo.OpTan:
		return math.Tan
	case hlo.OpExp:
		return math.Exp
	case hlo.OpExpm1:
		return math.Expm1
	case hlo.OpLog:
		return math.Log
	case hlo.OpLog1p:
		return math.Log1p
	case hlo.OpTanh:
		return math.Tanh
	case hlo.OpSqrt:
		return math.Sqrt
	case hlo.OpCbrt:
		return math.Cbrt
	case hlo.OpRsqrt:
		return func(x float64) float64 { return 1 / math.Sqrt(x) }
	case hlo.OpLogistic:
		return func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	case hlo.OpRoundNearestAfz:
		return math.Round
	case hlo.OpRoundNearestEven:
		return math.RoundToEven
	case hlo.OpAcos:
		return math.Acos
	case hlo.OpAcosh:
		return math.Acosh
	case hlo.OpAsin:
		return math.Asin
	case hlo.OpAsinh:
		return math.Asinh
	case hlo.OpAtan:
		return math.Atan
	case hlo.OpAtanh:
		return math.Atanh
	case hlo.OpCosh:
		return chloCosh64
	case hlo.OpSinh:
		return chloSinh64
	case hlo.OpErf:
		return math.Erf
	case hlo.OpReal:
		return func(x float64) float64 { return x }
	case hlo.OpImag:
		return func(float64) float64 { return 0 }
	case hlo.OpSign:
		return func(x float64) float64 {
			if x != x || x == 0 {
				return x
			}
			if x < 0 {
				return -1
			}
			return 1
		}
	}
	return nil
}

// intInfo describes an integer type for the integer element functions.
type intInfo struct {
	width    uint
	signed   bool
	mask     uint64
	pred     bool
	unsigned bool
}

func intInfoOf(t dtype.Type) intInfo {
	w := uint(t.BitWidth())
	ii := intInfo{width: w, signed: t.IsSigned(), pred: t == dtype.PRED, unsigned: t.IsUnsigned()}
	if t == dtype.PRED {
		ii.width = 1
	}
	ii.mask = math.MaxUint64
	if ii.width < 64 {
		ii.mask = 1<<ii.width - 1
	}
	return ii
}

// norm brings a wrapped result back to the canonical int64 form of the type: sign-extended for signed
// types, zero-extended for unsigned ones, 0 or 1 for pred.
func (ii intInfo) norm(v int64) int64 {
	switch {
	case ii.pred:
		if v != 0 {
			return 1
		}
		return 0
	case ii.width >= 64:
		return v
	case ii.signed:
		s := 64 - ii.width
		return v << s >> s
	}
	return int64(uint64(v) & ii.mask)
}

func unaryInt(op hlo.Opcode, ii intInfo) func(int64) int64 {
	switch op {
	case hlo.OpAbs:
		if !ii.signed {
			return func(x int64) int64 { return x }
		}
		return func(x int64) int64 {
			if x < 0 {
				return ii.norm(-x)
			}
			return x
		}
	case hlo.OpNegate:
		return func(x int64) int64 { return ii.norm(-x) }
	case hlo.OpNot:
		if ii.pred {
			return func(x int64) int64 { return 1 - x }
		}
		return func(x int64) int64 { return ii.norm(^x) }
	case hlo.OpSign:
		return func(x int64) int64 {
			switch {
			case x > 0 || (!ii.signed && x != 0):
				return 1
			case x < 0:
				return ii.norm(-1)
			}
			return 0
		}
	case hlo.OpPopulationCount:
		return func(x int64) int64 { return int64(bits.OnesCount64(uint64(x) & ii.mask)) }
	case hlo.OpClz:
		return func(x int64) int64 { return int64(ii.width) - int64(bits.Len64(uint64(x)&ii.mask)) }
	case hlo.OpReal, hlo.OpCopy:
		return func(x int64) int64 { return x }
	}
	return nil
}

// maxF32 and minF32 are XLA's: NaN propagates, otherwise std::max and std::min (which return the first
// operand when the two compare equal, so max(-0, +0) is -0).
func maxF32(a, b float32) float32 {
	if a != a {
		return a
	}
	if b != b {
		return b
	}
	if a < b {
		return b
	}
	return a
}

func minF32(a, b float32) float32 {
	if a != a {
		return a
	}
	if b != b {
		return b
	}
	if b < a {
		return b
	}
	return a
}

func maxF64(a, b float64) float64 {
	if a != a {
		return a
	}
	if b != b {
		return b
	}
	if a < b {
		return b
	}
	return a
}

func minF64(a, b float64) float64 {
	if a != a {
		return a
	}
	if b != b {
		return b
	}
	if b < a {
		return b
	}
	return a
}

func binaryF32(op hlo.Opcode) func(a, b float32) float32 {
	switch op {
	case hlo.OpAdd:
		return func(a, b float32) float32 { return a + b }
	case hlo.OpSubtract:
		return func(a, b float32) float32 { return a - b }
	case hlo.OpMultiply:
		return func(a, b float32) float32 { return a * b }
	case hlo.OpDivide:
		return func(a, b float32) float32 { return a / b }
	case hlo.OpMaximum:
		return maxF32
	case hlo.OpMinimum:
		return minF32
	}
	if f := binaryF64(op); f != nil {
		return func(a, b float32) float32 { return float32(f(float64(a), float64(b))) }
	}
	return nil
}

func binaryF64(op hlo.Opcode) func(a, b float64) float64 {
	switch op {
	case hlo.OpAdd:
		return func(a, b float64) float64 { return a + b }
	case hlo.OpSubtract:
		return func(a, b float64) float64 { return a - b }
	case hlo.OpMultiply:
		return func(a, b float64) float64 { return a * b }
	case hlo.OpDivide:
		return func(a, b float64) float64 { return a / b }
	case hlo.OpMaximum:
		return maxF64
	case hlo.OpMinimum:
		return minF64
	case hlo.OpPower:
		return math.Pow
	case hlo.OpRemainder:
		return math.Mod
	case hlo.OpAtan2:
		return math.Atan2
	}
	return nil
}

func binaryInt(op hlo.Opcode, ii intInfo) func(a, b int64) int64 {
	u64 := ii.unsigned && ii.width == 64
	switch op {
	case hlo.OpAdd:
		return func(a, b int64) int64 { return ii.norm(a + b) }
	case hlo.OpSubtract:
		return func(a, b int64) int64 { return ii.norm(a - b) }
	case hlo.OpMultiply:
		return func(a, b int64) int64 { return ii.norm(a * b) }
	case hlo.OpAnd:
		return func(a, b int64) int64 { return a & b }
	case hlo.OpOr:
		return func(a, b int64) int64 { return a | b }
	case hlo.OpXor:
		return func(a, b int64) int64 { return a ^ b }
	case hlo.OpDivide:
		return func(a, b int64) int64 {
			if b == 0 {
				return ii.norm(-1)
			}
			if u64 {
				return int64(uint64(a) / uint64(b))
			}
			return ii.norm(a / b) // MinInt / -1 wraps back to MinInt, as XLA returns
		}
	case hlo.OpRemainder:
		return func(a, b int64) int64 {
			if b == 0 {
				return a
			}
			if u64 {
				return int64(uint64(a) % uint64(b))
			}
			return ii.norm(a % b)
		}
	case hlo.OpMaximum:
		return func(a, b int64) int64 {
			if lessInt(a, b, u64) {
				return b
			}
			return a
		}
	case hlo.OpMinimum:
		return func(a, b int64) int64 {
			if lessInt(b, a, u64) {
				return b
			}
			return a
		}
	case hlo.OpPower:
		return func(a, b int64) int64 {
			if ii.pred {
				if a != 0 || b == 0 {
					return 1
				}
				return 0
			}
			if ii.signed && b < 0 {
				if a == 1 {
					return 1
				}
				return 0
			}
			r := int64(1)
			base := a
			for e := uint64(b); e != 0; e >>= 1 {
				if e&1 != 0 {
					r *= base
				}
				base *= base
			}
			return ii.norm(r)
		}
	case hlo.OpShiftLeft:
		return func(a, b int64) int64 {
			s := uint64(b) & ii.mask
			if s >= uint64(ii.width) {
				return 0
			}
			return ii.norm(a << s)
		}
	case hlo.OpShiftRightLogical:
		return func(a, b int64) int64 {
			s := uint64(b) & ii.mask
			if s >= uint64(ii.width) {
				return 0
			}
			return ii.norm(int64((uint64(a) & ii.mask) >> s))
		}
	case hlo.OpShiftRightArithmetic:
		return func(a, b int64) int64 {
			s := uint64(b) & ii.mask
			if s >= uint64(ii.width) {
				s = uint64(ii.width) - 1
			}
			v := a
			if ii.width < 64 {
				sh := 64 - ii.width
				v = a << sh >> sh // the value read as signed
			}
			return ii.norm(v >> s)
		}
	}
	return nil
}

func lessInt(a, b int64, unsigned64 bool) bool {
	if unsigned64 {
		return uint64(a) < uint64(b)
	}
	return a < b
}

// compareFunc is a comparison of two elements in a domain.
type direction uint8

const (
	dirEQ direction = iota
	dirNE
	dirLT
	dirLE
	dirGT
	dirGE
)

func parseDirection(s string) (direction, bool) {
	switch s {
	case "EQ":
		return dirEQ, true
	case "NE":
		return dirNE, true
	case "LT":
		return dirLT, true
	case "LE":
		return dirLE, true
	case "GT":
		return dirGT, true
	case "GE":
		return dirGE, true
	}
	return 0, false
}

// totalOrder32 maps a float32 to an integer whose order is IEEE 754's totalOrder: -NaN < -inf < ... < -0 <
// +0 < ... < inf < NaN.
func totalOrder32(x float32) int64 {
	b := int32(math.Float32bits(x))
	if b < 0 {
		b ^= 0x7fffffff
	}
	return int64(b)
}

func totalOrder64(x float64) int64 {
	b := int64(math.Float64bits(x))
	if b < 0 {
		b ^= 0x7fffffffffffffff
	}
	return b
}

// compareOrdered applies a comparison direction to two numbers (a float NaN compares false except NE).
func compareOrdered[T int64 | uint64 | float32 | float64](d direction, a, b T) bool {
	switch d {
	case dirEQ:
		return a == b
	case dirNE:
		return a != b
	case dirLT:
		return a < b
	case dirLE:
		return a <= b
	case dirGT:
		return a > b
	}
	return a >= b
}

// reducePrecision32 rounds x to a float with the given exponent and mantissa bits (to nearest even),
// flushing values below the smallest normal to zero and past the largest to infinity, as XLA's
// reduce-precision does.
func reducePrecision32(x float32, expBits, mantBits int) float32 {
	const srcMant, srcExp = 23, 8
	v := math.Float32bits(x)
	if mantBits < srcMant {
		last := uint32(1) << (srcMant - mantBits)
		bias := last>>1 - 1
		v += (v&last)>>(srcMant-mantBits) + bias
		v &^= last - 1
	}
	if expBits < srcExp {
		const signMask = 1 << 31
		const expMask = uint32(0xff) << srcMant
		const expBias = 127
		reducedBias := uint32(1)<<(expBits-1) - 1
		maxExp, minExp := uint32(expBias)+reducedBias, uint32(expBias)-reducedBias
		e := v & expMask
		switch {
		case e > maxExp<<srcMant:
			v = v&signMask | expMask
		case e <= minExp<<srcMant:
			v &= signMask
		}
	}
	r := math.Float32frombits(v)
	if x != x {
		if mantBits > 0 {
			return x
		}
		return float32(math.Inf(1))
	}
	return r
}

func reducePrecision64(x float64, expBits, mantBits int) float64 {
	const srcMant, srcExp = 52, 11
	v := math.Float64bits(x)
	if mantBits < srcMant {
		last := uint64(1) << (srcMant - mantBits)
		bias := last>>1 - 1
		v += (v&last)>>(srcMant-mantBits) + bias
		v &^= last - 1
	}
	if expBits < srcExp {
		const signMask = 1 << 63
		const expMask = uint64(0x7ff) << srcMant
		const expBias = 1023
		reducedBias := uint64(1)<<(expBits-1) - 1
		maxExp, minExp := uint64(expBias)+reducedBias, uint64(expBias)-reducedBias
		e := v & expMask
		switch {
		case e > maxExp<<srcMant:
			v = v&signMask | expMask
		case e <= minExp<<srcMant:
			v &= signMask
		}
	}
	r := math.Float64frombits(v)
	if x != x {
		if mantBits > 0 {
			return x
		}
		return math.Inf(1)
	}
	return r
}

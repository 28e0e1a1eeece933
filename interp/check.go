package interp

import (
	le "encoding/binary"
	"fmt"
	"math"
	"strconv"

	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

// The check custom calls of the StableHLO test programs compare a computed value with an expected one
// and fail the evaluation when they differ, with the tolerances of the StableHLO interpreter:
//
//	check.expect_eq         exact (NaNs equal one another)
//	check.expect_almost_eq  |got - want| <= tolerance (0.0001 unless a third operand gives it)
//	check.expect_close      within max_ulp_difference units in the last place (3 unless a third operand
//	                        gives it)
//
// Integers and booleans compare exactly under all three; complex numbers part by part.

// Default tolerances of the StableHLO interpreter's check ops.
const (
	defaultTolerance = 0.0001
	defaultMaxULP    = 3
)

// CheckError is a failed check: which check, how many elements differ, and the worst of them.
type CheckError struct {
	Check      string
	Mismatches int64
	Elements   int64
	Index      []int64 // the worst element's index
	Got, Want  string
	By         string // how much the worst element differs by ("17 ULP", "0.5")
}

func (e *CheckError) Error() string {
	return fmt.Sprintf("%s failed: %d of %d elements differ; worst at %v: got %s, want %s (off by %s)",
		e.Check, e.Mismatches, e.Elements, e.Index, e.Got, e.Want, e.By)
}

// isCheckTarget reports whether a custom-call target is one of the check calls.
func isCheckTarget(target string) bool {
	switch target {
	case "check.expect_eq", "check.expect_almost_eq", "check.expect_close", serializedEqTarget:
		return true
	}
	return false
}

func (e *evaluator) check(in *hlo.Instruction, ops []Value) (Value, error) {
	target := in.CustomCallTarget()
	if target == serializedEqTarget {
		var err error
		if ops, err = e.probed(in, ops); err != nil {
			return Value{}, err
		}
	}
	if len(ops) < 2 || len(ops) > 3 || ops[0].Kind != KindArray || ops[1].Kind != KindArray {
		return Value{}, errorf(in, "%s takes two arrays and an optional tolerance", target)
	}
	got, want := ops[0].Array, ops[1].Array
	if got.Type != want.Type || !equalDims(got.Shape, want.Shape) {
		return Value{}, errorf(in, "%s: got %s, want %s", target, got, want)
	}
	tol, maxULP := defaultTolerance, float64(defaultMaxULP)
	if len(ops) == 3 {
		t := ops[2].Array
		if ops[2].Kind != KindArray || t.NumElements() != 1 {
			return Value{}, errorf(in, "%s: the tolerance must be a scalar", target)
		}
		v := f64s(t)[0]
		if target == "check.expect_close" {
			maxULP = v
		} else {
			tol = v
		}
	}
	var elemDiff func(a, b uint64) (float64, bool)
	unit := ""
	t := got.Type
	part := t.Part()
	switch {
	case !part.IsFloat() || target == "check.expect_eq" || target == serializedEqTarget:
		elemDiff = func(a, b uint64) (float64, bool) {
			if part.IsFloat() && isNaNBits(part, a) && isNaNBits(part, b) {
				return 0, true
			}
			if a == b {
				return 0, true
			}
			if part.IsFloat() {
				return math.Abs(part.DecodeFloat64(a) - part.DecodeFloat64(b)), false
			}
			return math.Abs(float64(int64(a) - int64(b))), false
		}
	case target == "check.expect_almost_eq":
		elemDiff = func(a, b uint64) (float64, bool) {
			x, y := part.DecodeFloat64(a), part.DecodeFloat64(b)
			if math.IsNaN(x) && math.IsNaN(y) || x == y {
				return 0, true
			}
			d := math.Abs(x - y)
			return d, d <= tol
		}
	default:
		unit = " ULP"
		elemDiff = func(a, b uint64) (float64, bool) {
			if isNaNBits(part, a) || isNaNBits(part, b) {
				return math.Inf(1), isNaNBits(part, a) && isNaNBits(part, b)
			}
			d := math.Abs(float64(ordinal(part, a) - ordinal(part, b)))
			return d, d <= maxULP
		}
	}
	n := got.NumElements()
	var bad int64
	worst, worstAt := -1.0, int64(-1)
	for i := int64(0); i < n; i++ {
		ga, np := elemParts(got, i)
		wa, _ := elemParts(want, i)
		for k := 0; k < np; k++ {
			d, ok := elemDiff(ga[k], wa[k])
			if !ok {
				if d > worst || worstAt < 0 {
					worst, worstAt = d, i
				}
				bad++
				break
			}
		}
	}
	if bad == 0 {
		return TupleValue(), nil
	}
	ce := &CheckError{Check: target, Mismatches: bad, Elements: n, Index: unravel(worstAt, got.Shape),
		Got: formatElem(got, worstAt), Want: formatElem(want, worstAt),
		By: strconv.FormatFloat(worst, 'g', 6, 64) + unit}
	return Value{}, &Error{Pos: position(in), Inst: in.Name, Err: ce}
}

func equalDims(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// elemParts returns the bits of element i: one value, or the real and imaginary parts of a complex.
func elemParts(t *tensor.Tensor, i int64) (parts [2]uint64, n int) {
	switch t.Type {
	case dtype.C64:
		p := t.Data[8*i:]
		return [2]uint64{uint64(le.LittleEndian.Uint32(p)), uint64(le.LittleEndian.Uint32(p[4:]))}, 2
	case dtype.C128:
		p := t.Data[16*i:]
		return [2]uint64{le.LittleEndian.Uint64(p), le.LittleEndian.Uint64(p[8:])}, 2
	}
	return [2]uint64{t.BitsAt(i)}, 1
}

// isNaNBits reports whether the bits b of float type t are a NaN.
func isNaNBits(t dtype.Type, b uint64) bool { return math.IsNaN(t.DecodeFloat64(b)) }

// ordinal maps float bits to integers in the order of the values they encode, so that neighbours differ
// by one: the magnitude, negated for negative numbers.
func ordinal(t dtype.Type, b uint64) int64 {
	w := t.BitWidth()
	sign := uint64(1) << (w - 1)
	if b&sign != 0 {
		return -int64(b &^ sign)
	}
	return int64(b)
}

// unravel turns a row-major index into one index per dimension.
func unravel(i int64, dims []int64) []int64 {
	out := make([]int64, len(dims))
	for k := len(dims) - 1; k >= 0; k-- {
		if dims[k] > 0 {
			out[k] = i % dims[k]
			i /= dims[k]
		}
	}
	return out
}

// formatElem writes element i of t.
func formatElem(t *tensor.Tensor, i int64) string {
	switch {
	case t.Type.IsComplex():
		c := t.Complex128s()[i]
		return fmt.Sprintf("(%g, %g)", real(c), imag(c))
	case t.Type.IsFloat():
		return strconv.FormatFloat(t.Type.DecodeFloat64(t.BitsAt(i)), 'g', -1, 64)
	case t.Type == dtype.PRED:
		return strconv.FormatBool(t.BitsAt(i) != 0)
	case t.Type.IsSigned():
		w := t.Type.BitWidth()
		v := int64(t.BitsAt(i)<<(64-w)) >> (64 - w)
		return strconv.FormatInt(v, 10)
	}
	return strconv.FormatUint(t.BitsAt(i), 10)
}

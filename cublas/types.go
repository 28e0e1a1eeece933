package cublas

import (
	"fmt"
	"slices"
	"strings"

	"octet/dtype"
)

// FP8Types is one row of cuBLASLt's table of the type combinations its FP8 matmul (cublasLtMatmul with
// 8-bit float A and B) supports: A, B, C, D and the bias of a BIAS epilogue. Scales are always f32.
type FP8Types struct {
	A, B, C, D, Bias dtype.Type
}

func (t FP8Types) String() string {
	return fmt.Sprintf("A %s, B %s, C %s, D %s, bias %s", t.A, t.B, t.C, t.D, t.Bias)
}

// FP8TypeTable returns cuBLASLt's table of supported FP8 matmul types (cuBLAS 12, "cublasLtMatmul" type
// table, the FP8 rows): A and B are f8e4m3fn x f8e4m3fn, f8e4m3fn x f8e5m2 or f8e5m2 x f8e4m3fn (never
// both f8e5m2); C is bf16 or f16 when D is FP8 and D's type otherwise; the bias is bf16 with an f32 D; an
// f8e5m2 D needs an f8e5m2 operand. No fnuz type appears in it. The slice is the caller's.
func FP8TypeTable() []FP8Types { return slices.Clone(fp8Types) }

var fp8Types = func() []FP8Types {
	const (
		e4  = dtype.F8E4M3FN
		e5  = dtype.F8E5M2
		bf  = dtype.BF16
		f16 = dtype.F16
		f32 = dtype.F32
	)
	var rows []FP8Types
	for _, ab := range [][2]dtype.Type{{e4, e4}, {e4, e5}, {e5, e4}} {
		rows = append(rows,
			FP8Types{ab[0], ab[1], bf, bf, bf},
			FP8Types{ab[0], ab[1], bf, e4, bf},
			FP8Types{ab[0], ab[1], f16, e4, f16},
			FP8Types{ab[0], ab[1], f16, f16, f16},
			FP8Types{ab[0], ab[1], f32, f32, bf})
		if ab[0] == e5 || ab[1] == e5 {
			rows = append(rows,
				FP8Types{ab[0], ab[1], bf, e5, bf},
				FP8Types{ab[0], ab[1], f16, e5, f16})
		}
	}
	return rows
}()

// CheckFP8Types reports whether cuBLASLt's FP8 matmul supports A, B and D of types a, b and d, with a C
// of type c and a bias of type bias; c or bias is dtype.Invalid when the call has none (any row then
// fits that column). The error names what does not fit the table.
func CheckFP8Types(a, b, c, d, bias dtype.Type) error {
	for _, r := range fp8Types {
		if r.A == a && r.B == b && r.D == d && (c == dtype.Invalid || r.C == c) && (bias == dtype.Invalid || r.Bias == bias) {
			return nil
		}
	}
	what := fmt.Sprintf("A %s, B %s", a, b)
	if c != dtype.Invalid {
		what += fmt.Sprintf(", C %s", c)
	}
	what += fmt.Sprintf(", D %s", d)
	if bias != dtype.Invalid {
		what += fmt.Sprintf(", bias %s", bias)
	}
	return fmt.Errorf("%s is not in cuBLASLt's FP8 matmul type table (%s)", what, fp8TableHint(a, b, d))
}

// fp8TableHint says which rule of the table the combination breaks.
func fp8TableHint(a, b, d dtype.Type) string {
	ok := func(t dtype.Type) bool { return t == dtype.F8E4M3FN || t == dtype.F8E5M2 }
	switch {
	case !ok(a) || !ok(b):
		return "A and B are f8e4m3fn or f8e5m2"
	case a == dtype.F8E5M2 && b == dtype.F8E5M2:
		return "one of A and B must be f8e4m3fn"
	case d == dtype.F8E5M2 && a != dtype.F8E5M2 && b != dtype.F8E5M2:
		return "an f8e5m2 D needs an f8e5m2 operand"
	}
	var rows []string
	for _, r := range fp8Types {
		if r.A == a && r.B == b {
			rows = append(rows, fmt.Sprintf("C %s/D %s/bias %s", r.C, r.D, r.Bias))
		}
	}
	return fmt.Sprintf("for %s x %s it lists %s", a, b, strings.Join(rows, ", "))
}

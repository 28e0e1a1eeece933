package printer_test

import (
	"fmt"
	"math"
	"testing"

	"octet/dtype"
	"octet/hlo"
	"octet/hlo/printer"
)

// TestScalarLiteral checks scalars built from numbers print as XLA prints them.
func TestScalarLiteral(t *testing.T) {
	f32, bf16, e4m3, e5m2 := dtype.F32, dtype.BF16, dtype.F8E4M3FN, dtype.F8E5M2
	for _, tt := range []struct {
		t    dtype.Type
		v    float64
		want string
	}{
		{dtype.PRED, 1, "true"},
		{dtype.PRED, 0, "false"},
		{dtype.S32, -7, "-7"},
		{dtype.U8, 255, "255"},
		{dtype.S64, -9223372036854775808, "-9223372036854775808"},
		{f32, 0, "0"},
		{f32, math.Copysign(0, -1), "-0"},
		{f32, 1, "1"},
		{f32, 0.5, "0.5"},
		{f32, 448, "448"},
		{f32, 0.1, "0.1"},
		{f32, math.Sqrt(2 / math.Pi), "0.797884583"},
		{f32, 1e-5, "1e-05"},
		{f32, 1e10, "1e+10"},
		{f32, 123456, "123456"},
		{f32, 1234567, "1234567"},
		{f32, 3.4028234663852886e38, "3.40282347e+38"},
		{f32, math.Inf(1), "inf"},
		{f32, math.Inf(-1), "-inf"},
		{f32, math.NaN(), "nan"},
		{dtype.F64, 0.1, "0.1"},
		{dtype.F64, math.Pi, "3.1415926535897931"},
		{dtype.F64, math.Ln2, "0.69314718055994529"},
		{dtype.F64, math.MaxFloat64, "1.7976931348623157e+308"},
		{bf16, 0.1, "0.1001"},
		{bf16, 1, "1"},
		{bf16, 448, "448"},
		{bf16, 57344, "5.734e+04"},
		{bf16, 1e-6, "9.984e-07"},
		{bf16, 0.044715, "0.04468"},
		{dtype.F16, 0.1, "0.099976"},
		{dtype.F16, 65504, "65504"},
		{dtype.F16, 1e6, "inf"},
		{e4m3, 448, "448"},
		{e4m3, 500, "nan"},
		{e4m3, 0.3, "0.312"}, // 0.3125 with max_digits10 = 3 digits, as XLA prints it
		{e4m3, -0.001, "-0.00195"},
		{e5m2, 0.3, "0.31"},
		{e5m2, 1e6, "inf"},
		{dtype.F8E5M2FNUZ, math.NaN(), "-nan"},
		{dtype.F8E4M3FNUZ, math.Copysign(0, -1), "0"},
		{dtype.F4E2M1FN, 5, "4"},
		{dtype.F8E8M0FNU, 3, "4"},
		{dtype.C64, 1.5, "(1.5, 0)"},
	} {
		lit, err := hlo.ScalarLiteral(tt.t, tt.v)
		if err != nil {
			t.Errorf("ScalarLiteral(%s, %v): %v", tt.t, tt.v, err)
			continue
		}
		if got := printer.LiteralString(lit, hlo.Scalar(tt.t)); got != tt.want {
			t.Errorf("ScalarLiteral(%s, %v) prints %q; want %q", tt.t, tt.v, got, tt.want)
		}
	}
	for _, tt := range []struct {
		t dtype.Type
		v float64
	}{{dtype.S8, 128}, {dtype.S8, -129}, {dtype.U8, -1}, {dtype.S32, 1.5}, {dtype.U4, 16}, {dtype.S32, math.Inf(1)}} {
		if _, err := hlo.ScalarLiteral(tt.t, tt.v); err == nil {
			t.Errorf("ScalarLiteral(%s, %v) gave no error", tt.t, tt.v)
		}
	}
}

// LiteralString writes constants as XLA prints them.
func ExampleLiteralString() {
	for _, c := range []struct {
		t dtype.Type
		v float64
	}{{dtype.F32, 0.1}, {dtype.F32, 0.7978845608}, {dtype.BF16, 0.1}, {dtype.F8E4M3FN, 500}, {dtype.F8E5M2, -1e6}, {dtype.S32, 7}} {
		lit, _ := hlo.ScalarLiteral(c.t, c.v)
		fmt.Printf("%s[] constant(%s)\n", c.t, printer.LiteralString(lit, hlo.Scalar(c.t)))
	}
	// Output:
	// f32[] constant(0.1)
	// f32[] constant(0.797884583)
	// bf16[] constant(0.1001)
	// f8e4m3fn[] constant(nan)
	// f8e5m2[] constant(-inf)
	// s32[] constant(7)
}

package parser_test

import (
	"strconv"
	"strings"
	"testing"

	"octet/hlo/parser"
)

// TestNaNPayloadBits checks the bits of the NaNs a literal may spell: a payload is the NaN's mantissa
// bits in the IEEE types, and a plain nan is the quiet NaN. The expected codes are the IEEE 754 layouts
// written out: all-ones exponent, then the payload.
func TestNaNPayloadBits(t *testing.T) {
	for _, tt := range []struct {
		shape, in string
		want      []uint64
	}{
		{"f32[5]", "{nan, -nan, nan(0x1), -nan(0x1), nan(0x7fffff)}",
			[]uint64{0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001, 0x7fffffff}},
		{"f32[1]", "{nan(0x400000)}", []uint64{0x7fc00000}},
		// The payload of binary64's quiet NaN is a plain nan, whatever the type (XLA reads the value as a
		// binary64 first).
		{"f32[1]", "{nan(0x8000000000000)}", []uint64{0x7fc00000}},
		{"f64[4]", "{nan, nan(0x1), -nan(0xfffffffffffff), nan(0x8000000000000)}",
			[]uint64{0x7ff8000000000000, 0x7ff0000000000001, 0xffffffffffffffff, 0x7ff8000000000000}},
		{"bf16[3]", "{nan, nan(0x1), -nan(0x7f)}", []uint64{0x7fc0, 0x7f81, 0xffff}},
		{"f16[3]", "{nan, nan(0x1), nan(0x3ff)}", []uint64{0x7e00, 0x7c01, 0x7fff}},
		{"f8e5m2[4]", "{nan, nan(0x1), -nan(0x1), nan(0x3)}", []uint64{0x7e, 0x7d, 0xfd, 0x7f}},
		{"f8e4m3[2]", "{nan(0x1), nan(0x7)}", []uint64{0x79, 0x7f}},
		{"f8e3m4[2]", "{nan(0x1), nan(0xf)}", []uint64{0x71, 0x7f}},
		{"f8e4m3fn[3]", "{nan, -nan, nan(0x8000000000000)}", []uint64{0x7f, 0xff, 0x7f}},
		{"f8e4m3fnuz[2]", "{nan, -nan}", []uint64{0x80, 0x80}},
		{"f8e8m0fnu[1]", "{nan}", []uint64{0xff}},
		{"c64[1]", "{(nan(0x1), -nan(0x7fffff))}", []uint64{0xffffffff_7f800001}},
	} {
		shape, err := parser.ParseShape(tt.shape)
		if err != nil {
			t.Fatalf("%s: %v", tt.shape, err)
		}
		lit, err := parser.ParseLiteral(tt.in, shape)
		if err != nil {
			t.Errorf("%s %s: %v", tt.shape, tt.in, err)
			continue
		}
		for i, w := range tt.want {
			if g := lit.Array.BitsAt(int64(i)); g != w {
				t.Errorf("%s %s: element %d is %#x, want %#x", tt.shape, tt.in, i, g, w)
			}
		}
	}
}

// TestNaNPayloadErrors checks that a payload wider than the type's mantissa, or any payload in a type
// whose NaNs have none, is an error at the value's position, as in XLA's parser.
func TestNaNPayloadErrors(t *testing.T) {
	for _, tt := range []struct{ shape, in, at, want string }{
		{"f32[2]", "{nan(0x800000), -nan(0x1000000)}", "nan(0x800000)",
			"NaN payload 0x800000 is out of range for f32 (0x1 to 0x7fffff)"},
		{"f32[2]", "{nan(0x1), -nan(0x1000000)}", "-nan(0x1000000)",
			"NaN payload 0x1000000 is out of range for f32 (0x1 to 0x7fffff)"},
		{"bf16[]", "nan(0x80)", "nan(0x80)", "NaN payload 0x80 is out of range for bf16 (0x1 to 0x7f)"},
		{"f16[]", "-nan(0x400)", "-nan(0x400)", "NaN payload 0x400 is out of range for f16 (0x1 to 0x3ff)"},
		{"f64[]", "nan(0x10000000000000)", "nan(0x10000000000000)",
			"NaN payload 0x10000000000000 is out of range for f64 (0x1 to 0xfffffffffffff)"},
		{"f8e5m2[]", "nan(0x4)", "nan(0x4)", "NaN payload 0x4 is out of range for f8e5m2 (0x1 to 0x3)"},
		{"f8e4m3fn[1]", "{nan(0x1)}", "nan(0x1)", "NaN payload 0x1: f8e4m3fn does not support NaN payloads"},
		{"f8e4m3fnuz[]", "-nan(0x1)", "-nan(0x1)", "NaN payload 0x1: f8e4m3fnuz does not support NaN payloads"},
		{"f8e8m0fnu[]", "nan(0x2)", "nan(0x2)", "NaN payload 0x2: f8e8m0fnu does not support NaN payloads"},
		{"c64[]", "(1, nan(0x800000))", "nan(0x800000)",
			"NaN payload 0x800000 is out of range for f32 (0x1 to 0x7fffff)"},
	} {
		line := "  ROOT c = " + tt.shape + " constant(" + tt.in + ")"
		src := "ENTRY e {\n" + line + "\n}\n"
		col := strings.Index(line, tt.at) + 1
		want := "test.hlo:2:" + strconv.Itoa(col) + ": " + tt.want
		_, err := parser.ParseString("test.hlo", src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s constant(%s): error %v, want %q", tt.shape, tt.in, err, want)
		}
	}
}

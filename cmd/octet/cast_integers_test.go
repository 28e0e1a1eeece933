package main

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"
)

// roundedF32 returns the float32 nearest to the integer v (ties to even), from math/big.
func roundedF32(v *big.Int) float32 {
	f, _ := new(big.Float).SetPrec(24).SetMode(big.ToNearestEven).SetInt(v).Float32()
	return f
}

// f32Line is the line "octet cast --to f32" prints for the input in and the float32 result f.
func f32Line(in string, f float32) string {
	return fmt.Sprintf("%s -> 0x%08x (%s)\n", in, math.Float32bits(f), strconv.FormatFloat(float64(f), 'g', -1, 64))
}

// TestCastIntegersExact checks that whole numbers reach the integer types exactly, and reach the float
// types with one rounding from the exact integer. The expected lines are built from strconv, math/big and
// the two's complement layouts, not from the command.
func TestCastIntegersExact(t *testing.T) {
	maxS64 := strconv.FormatInt(math.MaxInt64, 10)
	minS64 := strconv.FormatInt(math.MinInt64, 10)
	maxU64 := strconv.FormatUint(math.MaxUint64, 10)
	p53plus1 := strconv.FormatUint(1<<53+1, 10)
	// 2^62 + 2^38 + 1 is just above the midpoint of two float32 values: one rounding goes up, while a
	// rounding to binary64 first lands on the midpoint and then rounds to even, down.
	above := new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), 62), new(big.Int).Lsh(big.NewInt(1), 38))
	above.Add(above, big.NewInt(1))
	bigMax := new(big.Int).SetUint64(math.MaxUint64)
	bigMaxS := big.NewInt(math.MaxInt64)

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--to", "s64", maxS64}, fmt.Sprintf("%s -> 0x%016x (%s)\n", maxS64, uint64(math.MaxInt64), maxS64)},
		{[]string{"--to", "s64", minS64}, fmt.Sprintf("%s -> 0x%016x (%s)\n", minS64, uint64(1)<<63, minS64)},
		{[]string{"--to", "u64", maxU64}, fmt.Sprintf("%s -> 0x%016x (%s)\n", maxU64, uint64(math.MaxUint64), maxU64)},
		{[]string{"--to", "s64", p53plus1}, fmt.Sprintf("%s -> 0x%016x (%s)\n", p53plus1, uint64(1<<53+1), p53plus1)},
		{[]string{"--to", "u64", "0xffffffffffffffff"}, fmt.Sprintf("0xffffffffffffffff -> 0x%016x (%s)\n", uint64(math.MaxUint64), maxU64)},
		{[]string{"--to", "s8", "-0x80", "0x7f"}, "-0x80 -> 0x80 (-128)\n0x7f -> 0x7f (127)\n"},
		// Out of the type's range an integer wraps to the type's width (300 - 256 = 44), as numpy's astype
		// does, and --saturate clamps it.
		{[]string{"--to", "s8", "300", "-300"}, "300 -> 0x2c (44)\n-300 -> 0xd4 (-44)\n"},
		{[]string{"--to", "s8", "--saturate", "300", "-300"}, "300 -> 0x7f (127)\n-300 -> 0x80 (-128)\n"},
		{[]string{"--to", "u8", "-1", "256"}, "-1 -> 0xff (255)\n256 -> 0x00 (0)\n"},
		{[]string{"--to", "s64", maxU64}, fmt.Sprintf("%s -> 0x%016x (-1)\n", maxU64, uint64(math.MaxUint64))},
		{[]string{"--to", "s64", "--saturate", maxU64, "18446744073709551616", "-99999999999999999999"},
			fmt.Sprintf("%s -> 0x%016x (%s)\n18446744073709551616 -> 0x%016x (%s)\n-99999999999999999999 -> 0x%016x (%s)\n",
				maxU64, uint64(math.MaxInt64), maxS64, uint64(math.MaxInt64), maxS64, uint64(1)<<63, minS64)},
		{[]string{"--to", "s8", "--from", "s32", "300"}, "300 -> 0x2c (44)\n"},
		{[]string{"--to", "s4", "9"}, "9 -> 0x9 (-7)\n"},
		// Integer to float: one rounding from the exact integer.
		{[]string{"--to", "f32", "--from", "s64", maxS64}, f32Line(maxS64, roundedF32(bigMaxS))},
		{[]string{"--to", "f32", "--from", "u64", maxU64}, f32Line(maxU64, roundedF32(bigMax))},
		{[]string{"--to", "f32", "--from", "s64", above.String()}, f32Line(above.String(), roundedF32(above))},
		{[]string{"--to", "f64", "--from", "s64", p53plus1}, fmt.Sprintf("%s -> 0x%016x (%s)\n", p53plus1, math.Float64bits(1<<53), strconv.FormatFloat(1<<53, 'g', -1, 64))},
		// Float text keeps its conversion: truncation toward zero.
		{[]string{"--to", "s8", "1.5", "-2.5", "7.9"}, "1.5 -> 0x01 (1)\n-2.5 -> 0xfe (-2)\n7.9 -> 0x07 (7)\n"},
		// With a float --from the value is rounded to that type first.
		{[]string{"--to", "s64", "--from", "f64", p53plus1}, fmt.Sprintf("%s -> 0x%016x (9007199254740992)\n", p53plus1, uint64(1<<53))},
	} {
		args := append([]string{"cast"}, c.args...)
		code, out, errOut := runOctet(t, "", args...)
		if code != 0 || out != c.want {
			t.Errorf("octet %s: exit %d, stderr %q\ngot:\n%s\nwant:\n%s", strings.Join(args, " "), code, errOut, out, c.want)
		}
	}
}

// TestCastIntegersStream reads whole numbers from standard input as the arguments are read.
func TestCastIntegersStream(t *testing.T) {
	code, out, errOut := runOctet(t, "9223372036854775807\n-0x8000000000000000\n", "cast", "--to", "s64")
	want := "9223372036854775807 -> 0x7fffffffffffffff (9223372036854775807)\n-0x8000000000000000 -> 0x8000000000000000 (-9223372036854775808)\n"
	if code != 0 || out != want {
		t.Errorf("exit %d, stderr %q\ngot:\n%s\nwant:\n%s", code, errOut, out, want)
	}
}

// TestCastIntegerErrors checks the whole numbers no 64-bit integer holds.
func TestCastIntegerErrors(t *testing.T) {
	for _, c := range []struct {
		args  []string
		stdin string
		out   string
		err   string
	}{
		{[]string{"--to", "s64", "18446744073709551616"}, "", "",
			`argument 1 ("18446744073709551616"): 18446744073709551616 is outside the range of 64-bit integers, -9223372036854775808 to 18446744073709551615`},
		{[]string{"--to", "u8", "1", "-9223372036854775809"}, "", "1 -> 0x01 (1)\n",
			"-9223372036854775809 is outside the range of 64-bit integers"},
		{[]string{"--to", "s32"}, "5\n0x10000000000000000\n", "5 -> 0x00000005 (5)\n",
			"<stdin>:2:1: 0x10000000000000000 is outside the range of 64-bit integers"},
		{[]string{"--to", "f32"}, "0x10\n", "", `<stdin>:1:1: "0x10" is not a number (use --bits for bit patterns)`},
	} {
		args := append([]string{"cast"}, c.args...)
		code, out, errOut := runOctet(t, c.stdin, args...)
		if code != 1 || out != c.out || !strings.Contains(errOut, c.err) {
			t.Errorf("octet %s < %q: exit %d, stdout %q, stderr %q; want exit 1, stdout %q, stderr with %q",
				strings.Join(args, " "), c.stdin, code, out, errOut, c.out, c.err)
		}
	}
}

// TestCastNumberArguments checks that every argument that reads as a number is a value, not a flag.
func TestCastNumberArguments(t *testing.T) {
	// f8e4m3fn's NaNs are 0x7f and, with the sign bit, 0xff.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--to", "f8e4m3fn", "-nan", "+nan", "-NaN"}, "-nan -> 0xff (nan)\n+nan -> 0x7f (nan)\n-NaN -> 0xff (nan)\n"},
		{[]string{"--to", "s8", "-0x1", "-nan"}, "-0x1 -> 0xff (-1)\n-nan -> 0x00 (0)\n"},
		{[]string{"--to", "f32", "-0x1p3", "-inf"}, "-0x1p3 -> 0xc1000000 (-8)\n-inf -> 0xff800000 (-inf)\n"},
	} {
		args := append([]string{"cast"}, c.args...)
		code, out, errOut := runOctet(t, "", args...)
		if code != 0 || out != c.want {
			t.Errorf("octet %s: exit %d, stderr %q\ngot:\n%s\nwant:\n%s", strings.Join(args, " "), code, errOut, out, c.want)
		}
	}
	// A bit pattern has no sign: "-0x1" reaches the value check and fails there.
	code, out, errOut := runOctet(t, "", "cast", "--to", "f8e4m3fn", "--bits", "-0x1")
	if code != 1 || out != "" || strings.Contains(errOut, "flag provided but not defined") || !strings.Contains(errOut, `argument 1 ("-0x1")`) {
		t.Errorf("octet cast --to f8e4m3fn --bits -0x1: exit %d, stdout %q, stderr %q; want exit 1 and an error about argument 1", code, out, errOut)
	}
	// A word that is not a number is still a flag.
	code, _, errOut = runOctet(t, "", "cast", "--to", "s8", "-nanx")
	if code != 2 || !strings.Contains(errOut, "flag provided but not defined: -nanx") {
		t.Errorf("octet cast --to s8 -nanx: exit %d, stderr %q; want exit 2, an unknown flag", code, errOut)
	}
}

package dtype

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestParseFloatLongSpellings checks spellings strconv.ParseFloat misreads (Go 1.26): exponents of six
// digits or more that a long mantissa makes up for, and mantissas of more than 800 digits before the
// point. The values are what Python's float() gives.
func TestParseFloatLongSpellings(t *testing.T) {
	z := strings.Repeat("0", 120000)
	tie := "1.00000000000000011102230246251565404236316680908203125" // halfway between 1 and its successor
	for _, c := range []struct {
		s    string
		want float64
		rng  bool // strconv.ErrRange
	}{
		{"0." + z + "1e120001", 1, false},
		{"-0." + z + "15e+120001", -1.5, false},
		{"1" + z + "e-120000", 1, false},
		{"1" + z + "e-120400", 0, false},
		{"1" + z + "e-119692", 1e308, false},
		{"1" + z + "e-119691", math.Inf(1), true},
		{"-1" + z, math.Inf(-1), true},
		{"0." + z, 0, false},
		{"1" + z[:800] + "5e-801", 1, false},
		{"2." + z[:2000] + "1e0", 2, false},
		{"1" + z[:2000] + "5e-2001", 1, false},
		{"0x0." + z + "1p+480004", 1, false},
		{"0x1" + z + "p-480000", 1, false},
		// A tie rounds to even; any nonzero digit past it, however far, rounds up.
		{tie + z[:2000], 1, false},
		{tie + z[:2000] + "1", math.Nextafter(1, 2), false},
		{"0x1.00000000000008" + z[:3000] + "p0", 1, false},
		{"0x1.00000000000008" + z[:3000] + "1p0", math.Nextafter(1, 2), false},
		{"1_0" + z[:1000] + "e-1000", 10, false},
	} {
		got, err := ParseFloat(c.s, 64)
		if got != c.want || math.Signbit(got) != math.Signbit(c.want) || (err != nil) != c.rng ||
			c.rng && !errors.Is(err, strconv.ErrRange) {
			t.Errorf("ParseFloat(%.30s... (%d bytes)) = %v, %v; want %v (range error %v)", c.s, len(c.s), got, err, c.want, c.rng)
		}
	}
	// float32: one rounding, not two.
	if got, _ := ParseFloat("1.000000059604644775390625"+z[:1000]+"1", 32); float32(got) != math.Nextafter32(1, 2) {
		t.Errorf("ParseFloat(float32 tie + tail, 32) = %v", got)
	}
	// Short spellings and errors are strconv's.
	for _, s := range []string{"1.5", "-0", "1e400", "nan", "-inf", "0x1p-2", "abc", "", "1e", strings.Repeat("9", 701) + "x"} {
		want, werr := strconv.ParseFloat(s, 64)
		got, err := ParseFloat(s, 64)
		if (got != want && !(got != got && want != want)) || (err == nil) != (werr == nil) {
			t.Errorf("ParseFloat(%q) = %v, %v; strconv says %v, %v", s, got, err, want, werr)
		}
	}
}

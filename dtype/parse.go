package dtype

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// longSpelling is the length past which ParseFloat does not take strconv.ParseFloat's value, which can
// be wrong for long spellings (Go 1.26's strconv):
//   - it reads at most five digits of an exponent (it stops adding digits once the exponent reaches 10000)
//     but counts every digit of the mantissa in the decimal point's place, so that a long mantissa can make
//     up for the exponent it cut: "0.<120000 zeros>1e120001" is 1, strconv says 0;
//   - where it falls back to exact decimal arithmetic it keeps 800 digits and puts the decimal point after
//     the digits it kept, not after all those before the point: "1<800 zeros>5e-801" is 1, strconv says
//     0.01.
//
// A spelling of at most longSpelling bytes has fewer than 800 digits, and its mantissa moves the point too
// little for a cut exponent to matter: both values are then far past binary64's range.
const longSpelling = 700

// ParseFloat is strconv.ParseFloat (the same spellings, results and errors) except that a number of any
// length is rounded once, to nearest even, from its exact value, as Python's float() and C's strtod read
// it. Values past the range of bitSize are infinities with strconv.ErrRange; values below half the
// smallest subnormal number are zeros.
func ParseFloat(s string, bitSize int) (float64, error) {
	x, err := strconv.ParseFloat(s, bitSize)
	if len(s) <= longSpelling || err != nil && !errors.Is(err, strconv.ErrRange) {
		return x, err
	}
	norm, neg, inf := normalizeFloat(s)
	switch {
	case inf:
		x, err = math.Inf(1), strconv.ErrRange
	case norm == "":
		x, err = 0, nil
	default:
		x, err = strconv.ParseFloat(norm, bitSize)
	}
	if neg {
		x = -x
	}
	if err != nil {
		return x, &strconv.NumError{Func: "ParseFloat", Num: strings.Clone(s), Err: strconv.ErrRange}
	}
	return x, nil
}

// normalizeFloat rewrites s, a finite number strconv.ParseFloat reads (decimal or hexadecimal), as a short
// spelling of its magnitude that strconv reads right: "0.DIGITSeEXP" (or "0x0.DIGITSpEXP") with at most
// 781 significant digits: the first 780 and, for those it drops, a last nonzero one, which decides a tie
// as they would (a tie between two binary64 numbers has fewer than 770 significant digits). It returns ""
// for a value that rounds to zero in every format and inf for one past every format's range.
func normalizeFloat(s string) (norm string, neg, inf bool) {
	s = strings.ReplaceAll(s, "_", "")
	if s[0] == '+' || s[0] == '-' {
		neg, s = s[0] == '-', s[1:]
	}
	hex := len(s) > 2 && s[0] == '0' && s[1]|0x20 == 'x'
	if hex {
		s = s[2:]
	}
	// The value is digits * base^exp, digits without leading zeros.
	var digits []byte
	var exp int64
	i, dot := 0, false
	for ; i < len(s); i++ {
		c := s[i]
		if c == '.' {
			dot = true
			continue
		}
		if !(c >= '0' && c <= '9' || hex && c|0x20 >= 'a' && c|0x20 <= 'f') {
			break
		}
		if dot {
			exp--
		}
		if len(digits) > 0 || c != '0' {
			digits = append(digits, c)
		}
	}
	// The exponent (of ten for decimal, of two for hex), saturated far past any value's range.
	var e int64
	if i < len(s) {
		i++ // e or p
		eneg := false
		if s[i] == '+' || s[i] == '-' {
			eneg = s[i] == '-'
			i++
		}
		for ; i < len(s); i++ {
			e = min(e*10+int64(s[i]-'0'), 1<<40)
		}
		if eneg {
			e = -e
		}
	}
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		exp++
	}
	n := int64(len(digits))
	// The value is 0.DIGITS times base^point.
	point := n + exp
	keep := int64(780)
	if hex {
		point, keep = 4*point+e, 20
	} else {
		point += e
	}
	switch {
	case n == 0:
		return "", neg, false
	case !hex && point > 310, hex && point > 1030:
		return "", neg, true
	case !hex && point < -330, hex && point < -1080:
		// Below half the smallest subnormal binary64 number.
		return "", neg, false
	}
	if n > keep {
		digits = append(digits[:keep:keep], '1')
	}
	b := []byte("0.")
	if hex {
		b = []byte("0x0.")
	}
	b = append(b, digits...)
	if hex {
		b = append(b, 'p')
	} else {
		b = append(b, 'e')
	}
	return string(strconv.AppendInt(b, point, 10)), neg, false
}

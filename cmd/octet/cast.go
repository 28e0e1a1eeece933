package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unsafe"

	"octet/blockscale"
	"octet/dtype"
)

func init() {
	register(&command{
		Name:      "cast",
		UsageLine: "cast [--to TYPE] [--from TYPE] [--saturate] [--bits] [--input FILE.npy -o OUT [--axis N] [--name NAME] [--tensor-scale G]] [VALUE...]",
		Short:     "convert numbers or bit patterns between formats, bit-exact with ml_dtypes",
		Long: `Cast converts each VALUE (or, with none, each line of standard input) to the type of --to and
prints it as "VALUE -> 0xBITS (DECODED)", where BITS is the result's bit pattern and DECODED its
exact value:

	$ octet cast --to f8e4m3fn 300 465
	300 -> 0x79 (288)
	465 -> 0x7f (nan)

The conversion is ml_dtypes': one rounding to nearest even from the number's binary64 value (as
ml_dtypes.float8_e4m3fn(300) does), overflow to infinity or NaN as the format has them (f8e4m3fn: NaN
past 464; f8e5m2: infinity), and with --saturate to the largest finite value instead. With --from, the
value is first rounded to that type, then converted.

Integers are exact. When the input's type (--from, or else --to) is an integer type, a whole number in
decimal or hex ("-0x80") is read as an integer, not as a binary64. Outside the type's range it wraps to
the type's width, as numpy's astype does (s8: 300 becomes 44), and with --saturate it is clamped to the
range; a whole number outside -2^63 .. 2^64-1 is an error unless --saturate clamps it. From an integer
type, f64 rounds the value once; the other float types round it once to float32 (exact up to 2^24) and
then convert, as ml_dtypes' casts from integers do:

	$ octet cast --from s64 --to f32 9223372036854775807
	9223372036854775807 -> 0x5f000000 (9.223372036854776e+18)

Other numbers (1.5, 1e20, nan, inf) convert to an integer type by truncation toward zero, with numpy's
results on x86-64 for NaN, infinities and values out of range.

With --bits, every input is a bit pattern in hex ("0x3fc00000", the 0x optional) of the --from type
(float32 when not given) and the output is the bit pattern of the --to type (float32 when not given),
one per line:

	$ printf '0x43960000\n0x3fc00000\n' | octet cast --to f8e4m3fn --bits
	0x79
	0x3c
	$ echo 0x3c | octet cast --from f8e4m3fn --bits
	0x3fc00000

Input streams: millions of lines convert at a steady rate. A bad line stops the conversion with
"<stdin>:LINE:COL: message" and exit status 1; blank lines are skipped. Negative values on the command
line need no "--": every argument that reads as a number (-5, -inf, -nan, -0x10) is taken as a value.

TYPE is any real type: XLA's name (f8e4m3fn, bf16, s4) or ml_dtypes' (float8_e4m3fn, int4), or a
block-scaled format.` + castBlockHelp,
		Order: 71,
		Run:   runCast,
	})
}

// castFlagsWithValue are the flags of cast that take a separate argument.
var castFlagsWithValue = map[string]bool{"to": true, "from": true, "input": true, "o": true, "axis": true, "name": true, "tensor-scale": true}

// splitCastArgs separates flags from values, so that negative numbers ("-5", "-inf", "-nan", "-0x1") are
// values rather than unknown flags.
func splitCastArgs(args []string) (flags, values []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return flags, append(values, args[i+1:]...)
		case a == "-" || !strings.HasPrefix(a, "-") || isNumber(a):
			values = append(values, a)
		default:
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if castFlagsWithValue[name] && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		}
	}
	return flags, values
}

// isNumber reports whether s reads as a value: a number (signed NaNs included) or a whole number in hex.
func isNumber(s string) bool {
	if _, ok := parseFloat([]byte(s)); ok {
		return true
	}
	_, _, _, ok := parseWhole([]byte(s))
	return ok
}

// parseFloat reads a number as Python's float() does: strconv.ParseFloat's spellings, rounded once
// whatever their length (dtype.ParseFloat; beyond binary64's range an infinity or a zero), and also a
// signed NaN: "-nan" and "+nan".
func parseFloat(tok []byte) (float64, bool) {
	// The token is not kept by ParseFloat unless it fails, and then the error is dropped.
	x, err := dtype.ParseFloat(unsafe.String(unsafe.SliceData(tok), len(tok)), 64)
	if err == nil || errors.Is(err, strconv.ErrRange) {
		return x, true
	}
	if len(tok) != 4 || tok[0] != '-' && tok[0] != '+' || tok[1]|0x20 != 'n' || tok[2]|0x20 != 'a' || tok[3]|0x20 != 'n' {
		return 0, false
	}
	if tok[0] == '-' {
		return math.Copysign(math.NaN(), -1), true
	}
	return math.NaN(), true
}

// parseWhole reads a whole number: an optional sign, then decimal digits or 0x and hex digits. It returns
// the sign and the magnitude; over is set when the magnitude does not fit 64 bits.
func parseWhole(tok []byte) (neg bool, mag uint64, over, ok bool) {
	s := tok
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	base := uint64(10)
	if len(s) > 2 && s[0] == '0' && s[1]|0x20 == 'x' {
		base, s = 16, s[2:]
	}
	if len(s) == 0 {
		return false, 0, false, false
	}
	for _, ch := range s {
		var d uint64
		switch {
		case ch >= '0' && ch <= '9':
			d = uint64(ch - '0')
		case base == 16 && ch|0x20 >= 'a' && ch|0x20 <= 'f':
			d = uint64(ch|0x20-'a') + 10
		default:
			return false, 0, false, false
		}
		if mag > (math.MaxUint64-d)/base {
			over = true
		}
		mag = mag*base + d
	}
	return neg, mag, over, true
}

func runCast(inv *invocation, args []string) error {
	fs := inv.flags()
	toName := fs.String("to", "", "the type to convert to (default f32 with --bits)")
	fromName := fs.String("from", "", "the type of the input: rounded to first, or with --bits the type of the patterns (default f32)")
	saturate := fs.Bool("saturate", false, "convert overflowing finite values to the largest finite value (ml_dtypes' kSaturate)")
	bits := fs.Bool("bits", false, "read and print bit patterns in hex instead of numbers")
	bc := &blockCast{inv: inv}
	fs.StringVar(&bc.input, "input", "", "block formats: the .npy array to quantize, or with --from the .npz or .npy to dequantize")
	fs.StringVar(&bc.out, "o", "", "block formats: write the result to this .npz or .npy")
	fs.IntVar(&bc.axis, "axis", -1, "block formats: the dimension the blocks run along (negative counts from the end)")
	fs.StringVar(&bc.name, "name", "", "block formats: the array's name in a .npz (default x when writing)")
	fs.Float64Var(&bc.tensorScale, "tensor-scale", 0, "NVFP4: the tensor scale g (default amax / (6 x 448))")
	flagArgs, values := splitCastArgs(args)
	if err := inv.parse(fs, flagArgs); err != nil {
		return err
	}
	values = append(values, fs.Args()...)
	to, toBlock := blockFormat(*toName)
	from, fromBlock := blockFormat(*fromName)
	if toBlock || fromBlock {
		if *bits || *saturate {
			return usagef("--bits and --saturate do not apply to the block-scaled formats")
		}
		bc.to, bc.from = to, from
		if bc.name == "" && bc.input != "" && toBlock {
			bc.name = "x"
		}
		return bc.run(values)
	}
	if bc.input != "" || bc.out != "" || bc.name != "" || bc.tensorScale != 0 || bc.axis != -1 {
		return usagef("--input, -o, --axis, --name and --tensor-scale are for the block-scaled formats (%s)", strings.Join(blockscale.Names(), ", "))
	}
	if *toName == "" && *fromName == "" {
		return usagef("cast needs --to TYPE (or --from TYPE with --bits)")
	}
	c := &caster{to: dtype.F32, saturate: *saturate, bits: *bits}
	for _, p := range []struct {
		name string
		dst  *dtype.Type
	}{{*toName, &c.to}, {*fromName, &c.from}} {
		if p.name == "" {
			continue
		}
		t, ok := dtype.Lookup(p.name)
		if !ok {
			return unknownType(p.name)
		}
		if t.IsComplex() {
			return usagef("cast converts real types; %s is complex", t)
		}
		*p.dst = t
	}
	if c.bits && c.from == dtype.Invalid {
		c.from = dtype.F32
	}
	c.init()
	w := bufio.NewWriterSize(inv.stdout, 64<<10)
	var err error
	if len(values) == 0 || len(values) == 1 && values[0] == "-" {
		err = c.stream(w, inv.stdin, "<stdin>")
	} else {
		for i, v := range values {
			out, perr := c.appendLine(c.buf[:0], []byte(v))
			if perr != nil {
				err = fmt.Errorf("octet cast: argument %d (%q): %v", i+1, v, perr.msg)
				break
			}
			c.buf = out
			w.Write(out)
		}
	}
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	return err
}

// A caster converts one token at a time into an output line, without allocating.
type caster struct {
	from, to       dtype.Type // from is Invalid when values are plain numbers
	saturate, bits bool
	inMask         uint64 // the bits a --bits input may have
	outDigits      int    // hex digits of an output pattern
	buf            []byte
}

// castError is a problem with one token, at a byte offset in it.
type castError struct {
	offset int
	msg    string
}

func (c *caster) init() {
	c.outDigits = (c.to.BitWidth() + 3) / 4
	c.inMask = math.MaxUint64
	if w := c.from.BitWidth(); w > 0 && w < 64 {
		c.inMask = 1<<w - 1
	}
	c.buf = make([]byte, 0, 128)
}

// convert returns the bits of the result for one token.
func (c *caster) convert(tok []byte) (uint64, *castError) {
	if c.bits {
		in, err := parseHexBits(tok)
		if err != nil {
			return 0, err
		}
		if in&^c.inMask != 0 {
			return 0, &castError{0, fmt.Sprintf("%s does not fit %s (%d bits)", tok, c.from, c.from.BitWidth())}
		}
		return dtype.Convert(c.from, c.to, in, c.saturate), nil
	}
	src := c.from
	if src == dtype.Invalid {
		src = c.to
	}
	if src.IsInteger() || src == dtype.PRED {
		if neg, mag, over, ok := parseWhole(tok); ok {
			b, err := c.wholeBits(src, tok, neg, mag, over)
			if err != nil || c.from == dtype.Invalid {
				return b, err
			}
			return dtype.Convert(c.from, c.to, b, c.saturate), nil
		}
	}
	x, ok := parseFloat(tok)
	if !ok {
		msg := fmt.Sprintf("%q is not a number", string(tok))
		if _, herr := parseHexBits(tok); herr == nil && bytes.HasPrefix(bytes.ToLower(tok), []byte("0x")) {
			msg += " (use --bits for bit patterns)"
		}
		return 0, &castError{0, msg}
	}
	if c.from != dtype.Invalid {
		var b uint64
		if c.saturate {
			b = c.from.EncodeFloat64Saturate(x)
		} else {
			b = c.from.EncodeFloat64(x)
		}
		return dtype.Convert(c.from, c.to, b, c.saturate), nil
	}
	if c.saturate {
		return c.to.EncodeFloat64Saturate(x), nil
	}
	return c.to.EncodeFloat64(x), nil
}

// wholeBits returns the bits in the integer type t (or pred) of the whole number with sign neg and
// magnitude mag (over: wider than 64 bits): wrapped to t's width, or clamped to its range with --saturate.
func (c *caster) wholeBits(t dtype.Type, tok []byte, neg bool, mag uint64, over bool) (uint64, *castError) {
	if over || neg && mag > 1<<63 {
		if !c.saturate {
			return 0, &castError{0, fmt.Sprintf("%s is outside the range of 64-bit integers, -9223372036854775808 to 18446744073709551615 (--saturate clamps it to %s)", tok, t)}
		}
		if neg {
			return dtype.Convert(dtype.S64, t, 1<<63, true), nil
		}
		return dtype.Convert(dtype.U64, t, math.MaxUint64, true), nil
	}
	switch {
	case neg:
		return dtype.Convert(dtype.S64, t, -mag, c.saturate), nil
	case mag > math.MaxInt64:
		return dtype.Convert(dtype.U64, t, mag, c.saturate), nil
	}
	return dtype.Convert(dtype.S64, t, mag, c.saturate), nil
}

// appendLine appends the output line for one token.
func (c *caster) appendLine(dst, tok []byte) ([]byte, *castError) {
	out, err := c.convert(tok)
	if err != nil {
		return dst, err
	}
	if !c.bits {
		dst = append(dst, tok...)
		dst = append(dst, " -> "...)
	}
	dst = append(dst, "0x"...)
	for i := c.outDigits - 1; i >= 0; i-- {
		dst = append(dst, "0123456789abcdef"[out>>(4*uint(i))&0xf])
	}
	if !c.bits {
		dst = append(dst, " ("...)
		dst = appendValue(dst, c.to, out)
		dst = append(dst, ')')
	}
	return append(dst, '\n'), nil
}

// appendValue appends the exact value of the pattern b of type t: integers as integers, floats in the
// shortest form that reads back, NaN and infinities as Python prints them.
func appendValue(dst []byte, t dtype.Type, b uint64) []byte {
	if t.IsInteger() || t == dtype.PRED {
		if t.IsUnsigned() || t == dtype.PRED {
			return strconv.AppendUint(dst, b, 10)
		}
		s := 64 - uint(t.BitWidth()) // sign-extend from the type's width
		return strconv.AppendInt(dst, int64(b<<s)>>s, 10)
	}
	x := t.DecodeFloat64(b)
	switch {
	case math.IsNaN(x):
		return append(dst, "nan"...)
	case math.IsInf(x, 1):
		return append(dst, "inf"...)
	case math.IsInf(x, -1):
		return append(dst, "-inf"...)
	}
	return strconv.AppendFloat(dst, x, 'g', -1, 64)
}

// parseHexBits parses a bit pattern: hex digits with an optional 0x prefix.
func parseHexBits(tok []byte) (uint64, *castError) {
	s := tok
	off := 0
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s, off = s[2:], 2
	}
	if len(s) == 0 {
		return 0, &castError{0, fmt.Sprintf("%q is not a hex bit pattern", tok)}
	}
	if len(s) > 16 {
		return 0, &castError{0, fmt.Sprintf("%q has more than 64 bits", tok)}
	}
	var v uint64
	for i, ch := range s {
		var d byte
		switch {
		case ch >= '0' && ch <= '9':
			d = ch - '0'
		case ch >= 'a' && ch <= 'f':
			d = ch - 'a' + 10
		case ch >= 'A' && ch <= 'F':
			d = ch - 'A' + 10
		default:
			return 0, &castError{off + i, fmt.Sprintf("%q is not a hex digit", ch)}
		}
		v = v<<4 | uint64(d)
	}
	return v, nil
}

// stream converts r line by line into w, stopping at the first bad line.
func (c *caster) stream(w *bufio.Writer, r io.Reader, name string) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for line := 1; ; line++ {
		raw, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			return fmt.Errorf("%s:%d:1: line longer than %d bytes", name, line, br.Size())
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("%s: %v", name, err)
		}
		if len(raw) > 0 {
			// The token: the line without surrounding blanks; anything after it is an error.
			start := 0
			for start < len(raw) && isBlank(raw[start]) {
				start++
			}
			end := start
			for end < len(raw) && !isBlank(raw[end]) {
				end++
			}
			if start < len(raw) {
				rest := end
				for rest < len(raw) && isBlank(raw[rest]) {
					rest++
				}
				if rest < len(raw) {
					return fmt.Errorf("%s:%d:%d: unexpected %q after the value", name, line, rest+1, bytes.TrimRight(raw[rest:], " \t\r\n"))
				}
				out, perr := c.appendLine(c.buf[:0], raw[start:end])
				if perr != nil {
					return fmt.Errorf("%s:%d:%d: %s", name, line, start+perr.offset+1, perr.msg)
				}
				c.buf = out
				if _, werr := w.Write(out); werr != nil {
					return werr
				}
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

func isBlank(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\n' }

package interp

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"octet/dtype"
	"octet/hlo"
	"octet/hlo/parser"
	"octet/tensor"
)

// parseModule parses HLO text written for a test.
func parseModule(t *testing.T, src string) *hlo.Module {
	t.Helper()
	m, err := parser.ParseString("test.hlo", src)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	return m
}

// val reads "TYPE[DIMS] LITERAL" ("f32[3] {1, 2, 3}", "pred[] true") into an array value; "bits:" before
// the literal gives the elements as hexadecimal bit patterns ("f8e4m3fn[2] bits:{0x7e, 0x7f}").
func val(t *testing.T, s string) Value {
	t.Helper()
	sp := strings.IndexByte(s, ' ')
	if sp < 0 {
		t.Fatalf("bad value %q", s)
	}
	shape := parseShapeText(t, s[:sp])
	text := strings.TrimSpace(s[sp+1:])
	if strings.HasPrefix(text, "bits:") {
		toks := strings.FieldsFunc(text[5:], func(r rune) bool { return strings.ContainsRune(" ,{}", r) })
		bits := make([]uint64, len(toks))
		for i, tok := range toks {
			b, err := strconv.ParseUint(strings.TrimPrefix(tok, "0x"), 16, 64)
			if err != nil {
				t.Fatalf("bad bits %q", tok)
			}
			bits[i] = b
		}
		return ArrayValue(tensor.FromBits(shape.Elem, shape.Dims, bits))
	}
	lit, err := parser.ParseLiteral(text, shape)
	if err != nil {
		t.Fatalf("bad value %q: %v", s, err)
	}
	if !lit.Fits(shape) {
		t.Fatalf("bad value %q: the literal does not fit %s", s, shape.String())
	}
	return literalShared(lit, shape)
}

func parseShapeText(t *testing.T, s string) hlo.Shape {
	t.Helper()
	i := strings.IndexByte(s, '[')
	if i < 0 || !strings.HasSuffix(s, "]") {
		t.Fatalf("bad shape %q", s)
	}
	ty, ok := dtype.Lookup(s[:i])
	if !ok {
		t.Fatalf("bad type in %q", s)
	}
	var dims []int64
	if inner := s[i+1 : len(s)-1]; inner != "" {
		for _, f := range strings.Split(inner, ",") {
			d, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				t.Fatalf("bad shape %q", s)
			}
			dims = append(dims, d)
		}
	}
	return hlo.Array(ty, dims...)
}

// evalText runs the module in src on the arguments (written for val) and returns the result.
func evalText(t *testing.T, src string, args ...string) (Value, error) {
	t.Helper()
	m := parseModule(t, src)
	vals := make([]Value, len(args))
	for i, a := range args {
		vals[i] = val(t, a)
	}
	return Run(m, vals, Options{MaxMemory: 1 << 30})
}

// describe prints a value's elements decoded, for failure messages.
func describe(v Value) string {
	switch v.Kind {
	case KindTuple:
		parts := make([]string, len(v.Tuple))
		for i, e := range v.Tuple {
			parts[i] = describe(e)
		}
		return "(" + strings.Join(parts, ", ") + ")"
	case KindToken:
		return "token"
	}
	x := v.Array
	var b strings.Builder
	b.WriteString(x.String())
	b.WriteString(" {")
	n := x.NumElements()
	for i := int64(0); i < n && i < 32; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		bits := x.BitsAt(i)
		switch {
		case x.Type.IsFloat():
			f := x.Type.DecodeFloat64(bits)
			b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
			b.WriteString("/0x" + strconv.FormatUint(bits, 16))
		case x.Type.IsSigned():
			b.WriteString(strconv.FormatInt(int64(x.Type.DecodeFloat64(bits)), 10))
		default:
			b.WriteString(strconv.FormatUint(bits, 10))
		}
	}
	if n > 32 {
		b.WriteString(", ...")
	}
	b.WriteString("}")
	return b.String()
}

// sameValue reports whether a and b are bit-identical.
func sameValue(a, b Value) bool { return Compare(a, b).Identical() }

// opCase is one table-driven evaluation: the module, its arguments and the expected result (one value,
// or one per element of a tuple result), all bit for bit.
type opCase struct {
	name string
	hlo  string
	args []string
	want []string
}

func runCases(t *testing.T, cases []opCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := evalText(t, c.hlo, c.args...)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			var want Value
			if len(c.want) == 1 {
				want = val(t, c.want[0])
			} else {
				elems := make([]Value, len(c.want))
				for i, w := range c.want {
					elems[i] = val(t, w)
				}
				want = TupleValue(elems...)
			}
			if !sameValue(got, want) {
				t.Errorf("got  %s\nwant %s", describe(got), describe(want))
			}
		})
	}
}

// unary and binary build a one-instruction module.
func unary(op, in, out string, attrs ...string) string {
	a := ""
	if len(attrs) > 0 {
		a = ", " + strings.Join(attrs, ", ")
	}
	return "ENTRY e {\n  x = " + in + " parameter(0)\n  ROOT r = " + out + " " + op + "(x)" + a + "\n}\n"
}

func binary(op, in, out string, attrs ...string) string {
	a := ""
	if len(attrs) > 0 {
		a = ", " + strings.Join(attrs, ", ")
	}
	return "ENTRY e {\n  x = " + in + " parameter(0)\n  y = " + in + " parameter(1)\n  ROOT r = " + out + " " + op + "(x, y)" + a + "\n}\n"
}

func isUnsupported(err error) bool {
	var ie *Error
	return errors.As(err, &ie) && ie.Unsupported != ""
}

var nan32 = float32(math.NaN())

func parseBench(src string) (*hlo.Module, error) { return parser.ParseString("bench.hlo", src) }

// runRandom verifies m and runs it on RandomInputs(m, seed), failing the test on any error, and returns
// the inputs and the result.
func runRandom(t *testing.T, m *hlo.Module, seed uint64) ([]Value, Value) {
	t.Helper()
	if err := hlo.Verify(m); err != nil {
		t.Fatal(err)
	}
	args, err := RandomInputs(m, seed)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(m, args, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return args, r
}

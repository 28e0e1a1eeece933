package hlo

import (
	"fmt"
	"strings"
	"testing"
)

// TestParseFFIAttributes reads the backend_config dictionaries that JAX's LAPACK and cuSOLVER calls carry
// (as `octet convert` writes them from StableHLO's mhlo.backend_config) and refuses malformed ones.
func TestParseFFIAttributes(t *testing.T) {
	good := []struct {
		text string
		want []FFIAttribute
	}{
		{"", nil},
		{"{}", nil},
		{"{mode = 86 : ui8, uplo = 76 : ui8}", []FFIAttribute{{"mode", "86", "ui8"}, {"uplo", "76", "ui8"}}},
		{"{algorithm = 0 : ui8, lower = true}", []FFIAttribute{{"algorithm", "0", "ui8"}, {"lower", "true", ""}}},
		{`{name = "a:b, c", dims = array<i64: 1, 2>, x = -1.5e+00 : f32}`, []FFIAttribute{{"name", `"a:b, c"`, ""}, {"dims", "array<i64: 1, 2>", ""}, {"x", "-1.5e+00", "f32"}}},
	}
	for _, c := range good {
		got, err := ParseFFIAttributes(c.text)
		if err != nil {
			t.Errorf("%q: %v", c.text, err)
			continue
		}
		if len(got) != len(c.want) {
			t.Errorf("%q: %v, want %v", c.text, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%q: attribute %d is %+v, want %+v", c.text, i, got[i], c.want[i])
			}
		}
	}
	if v, ok := (FFIAttribute{Value: "76"}).Int(); !ok || v != 76 {
		t.Errorf("Int of 76: %d %v", v, ok)
	}
	if _, ok := (FFIAttribute{Value: "0x4c"}).Int(); ok {
		t.Error("Int of 0x4c succeeded: MLIR prints integers in decimal")
	}
	if v, ok := (FFIAttribute{Value: "true"}).Bool(); !ok || !v {
		t.Errorf("Bool of true: %v %v", v, ok)
	}
	if _, ok := (FFIAttribute{Value: "yes"}).Bool(); ok {
		t.Error("Bool of yes succeeded")
	}
	bad := map[string]string{
		"mode = 1":            "not a {name = value",
		"{mode}":              "not name = value",
		"{mode = }":           "has no value",
		"{a = 1,, b = 2}":     "empty entry",
		"{1a = 1}":            "not an attribute name",
		"{a = 1, a = 2}":      "given twice",
		`{"\u00e9" = 1 : i8}`: "not an attribute name",
		"{uplo = 85 : ui8}}}": "closes nothing",
		"{a = [1, 2}":         "not closed",
		`{a = "x}`:            "string is not closed",
		"{a = 1 : ui8 : i32}": "not a type name",
		"{a = 1 : 8ui}":       "not a type name",
	}
	for text, want := range bad {
		if _, err := ParseFFIAttributes(text); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want one saying %q", text, err, want)
		}
	}
}

// TestParseFFIAttributesLinear: a dictionary of many attributes reads in time linear in its size (each
// name was compared with every earlier one, minutes for 200,000 attributes): eight times the attributes
// take less than twenty times as long. A name given twice among them is still refused.
func TestParseFFIAttributesLinear(t *testing.T) {
	dict := func(n int, last string) string {
		var b strings.Builder
		b.WriteString("{")
		for i := range n {
			fmt.Fprintf(&b, "a%d = %d, ", i, i)
		}
		return b.String() + last + "}"
	}
	const n = 1_000 // the larger within the caches too
	texts := map[int]string{n: dict(n, "last = 0"), 8 * n: dict(8*n, "last = 0")}
	for size, text := range texts {
		if attrs, err := ParseFFIAttributes(text); err != nil || len(attrs) != size+1 {
			t.Fatalf("%d attributes, %v", len(attrs), err)
		}
	}
	g := growth(func(size int) { ParseFFIAttributes(texts[size]) }, n)
	if g > 20 {
		t.Errorf("%d attributes take %.1f times as long to read as %d", 8*n, g, n)
	}
	t.Logf("%d attributes take %.1f times as long to read as %d", 8*n, g, n)
	if _, err := ParseFFIAttributes(dict(n, "a7 = 0")); err == nil || !strings.Contains(err.Error(), "a7 given twice") {
		t.Errorf("a name given twice: %v", err)
	}
}

// FuzzParseFFIAttributes: any text either parses into attributes with names and values, or is refused;
// never a panic.
func FuzzParseFFIAttributes(f *testing.F) {
	for _, s := range []string{"{mode = 86 : ui8, uplo = 76 : ui8}", "{a = array<i64: 1>, b = \"x\\\"y\"}", "{", "{a = <}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		attrs, err := ParseFFIAttributes(s)
		if err != nil {
			return
		}
		for _, a := range attrs {
			if a.Name == "" || a.Value == "" {
				t.Fatalf("%q: attribute %+v lacks a name or value", s, a)
			}
		}
	})
}

package interp

import (
	"go/token"
	"strings"
	"testing"

	"octet/hlo/parser"
)

// TestDotComplex: dot of complex numbers, and of real numbers giving a complex result.
func TestDotComplex(t *testing.T) {
	for _, ty := range []string{"c64", "c128"} {
		src := strings.ReplaceAll(`HloModule m
ENTRY e {
  a = $T[2,2] constant({ { (1, 1), (2, 0) }, { (0, 1), (1, -1) } })
  b = s32[2] constant({3, 4})
  c = $T[2] convert(b)
  ROOT d = $T[2] dot(a, c), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`, "$T", ty)
		mods, err := parser.ParseFile(token.NewFileSet(), "dot.hlo", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		v, err := Run(mods[0], nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := v.Array.Complex128s()
		if want := []complex128{11 + 3i, 4 - 1i}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Errorf("%s: got %v, want %v", ty, got, want)
		}
	}
}

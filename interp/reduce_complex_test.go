package interp

import (
	"go/token"
	"strings"
	"testing"

	"octet/hlo/parser"
)

// TestReduceComplex: reduce with an add or multiply reducer keeps both parts of c64 and c128 numbers.
func TestReduceComplex(t *testing.T) {
	for _, tc := range []struct {
		ty, op string
		want   complex128
	}{
		{"c64", "add", 4 + 6i}, {"c128", "add", 4 + 6i}, {"c64", "multiply", -5 + 10i}, {"c128", "multiply", -5 + 10i},
	} {
		src := strings.NewReplacer("$T", tc.ty, "$OP", tc.op).Replace(`HloModule m
r {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  ROOT s = $T[] $OP(a, b)
}
ENTRY e {
  x = $T[2] constant({(1, 2), (3, 4)})
  z = $T[] constant(($INIT, 0))
  ROOT y = $T[] reduce(x, z), dimensions={0}, to_apply=r
}`)
		init := "0"
		if tc.op == "multiply" {
			init = "1"
		}
		src = strings.Replace(src, "$INIT", init, 1)
		mods, err := parser.ParseFile(token.NewFileSet(), "reduce.hlo", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		v, err := Run(mods[0], nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := v.Array.Complex128s(); len(got) != 1 || got[0] != tc.want {
			t.Errorf("%s %s: got %v, want %v", tc.ty, tc.op, got, tc.want)
		}
	}
}

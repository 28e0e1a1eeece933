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

// TestReduceWide: a variadic reduce over c128 and s32, whose reducer the scalar programs cannot run.
func TestReduceWide(t *testing.T) {
	src := `HloModule m
r {
  a = c128[] parameter(0)
  i = s32[] parameter(1)
  b = c128[] parameter(2)
  j = s32[] parameter(3)
  s = c128[] subtract(a, b)
  k = s32[] add(i, j)
  ROOT t = (c128[], s32[]) tuple(s, k)
}
ENTRY e {
  x = c128[2,2] constant({ { (1, 2), (3, 4) }, { (5, 6), (7, 8) } })
  n = s32[2,2] constant({ { 1, 2 }, { 3, 4 } })
  z = c128[] constant((0, 0))
  w = s32[] constant(10)
  ROOT y = (c128[2], s32[2]) reduce(x, n, z, w), dimensions={1}, to_apply=r
}`
	mods, err := parser.ParseFile(token.NewFileSet(), "reduce.hlo", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	v, err := Run(mods[0], nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := v.Tuple[0].Array.Complex128s()
	k := v.Tuple[1].Array.Int64s()
	if c[0] != -4-6i || c[1] != -12-14i || k[0] != 13 || k[1] != 17 {
		t.Errorf("got %v, %v; want [(-4-6i) (-12-14i)], [13 17]", c, k)
	}
}

// TestReduceWindowWide: a cumulative product over c128 by reduce-window.
func TestReduceWindowWide(t *testing.T) {
	src := `HloModule m
r {
  a = c128[] parameter(0)
  b = c128[] parameter(1)
  ROOT p = c128[] multiply(a, b)
}
ENTRY e {
  x = c128[3] constant({(0, 1), (0, 1), (2, 0)})
  one = c128[] constant((1, 0))
  ROOT y = c128[3] reduce-window(x, one), window={size=3 pad=2_0}, to_apply=r
}`
	mods, err := parser.ParseFile(token.NewFileSet(), "rw.hlo", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	v, err := Run(mods[0], nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Array.Complex128s(); got[0] != 1i || got[1] != -1 || got[2] != -2 {
		t.Errorf("got %v, want [1i -1 -2]", got)
	}
}

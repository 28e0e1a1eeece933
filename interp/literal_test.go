package interp

import (
	"testing"

	"octet/hlo"
)

// TestConstantsShared: a constant's value is its literal's storage while the program runs (no copy per
// evaluation), but what Run returns is the caller's: changing it changes neither the module nor the next
// run, even where the result is the constant itself or a reshape of it.
func TestConstantsShared(t *testing.T) {
	m := parseModule(t, `HloModule m
ENTRY e {
  c = f32[2,2] constant({{1, 2}, {3, 4}})
  r = f32[4] reshape(c)
  n = f32[2,2] negate(c)
  ROOT t = (f32[2,2], f32[4], f32[2,2]) tuple(c, r, n)
}`)
	want := val(t, "f32[2,2] {{1, 2}, {3, 4}}")
	for run := range 2 {
		v, err := Run(m, nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !sameValue(v.Tuple[0], want) {
			t.Fatalf("run %d: the constant is %s", run, describe(v.Tuple[0]))
		}
		for _, a := range v.Flatten() {
			for i := range a.Data {
				a.Data[i] = 0xff
			}
		}
	}
	var c *hlo.Instruction
	for _, in := range m.Entry.Instructions {
		if in.Name == "c" {
			c = in
		}
	}
	if got := literalShared(c.Literal, c.Shape); !sameValue(got, want) {
		t.Errorf("the module's literal became %s", describe(got))
	}
}

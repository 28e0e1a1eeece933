package interp

import (
	"fmt"
	"strings"
	"testing"

	"octet/hlo"
)

// interceptSource is a loop of three iterations whose body doubles x and adds a broadcast of the counter.
const interceptSource = `HloModule loop

body {
  st = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  x = f32[2] get-tuple-element(st), index=1
  fi = f32[] convert(i)
  b = f32[2] broadcast(fi), dimensions={}
  x2 = f32[2] add(x, x)
  y = f32[2] add(x2, b)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT next = (s32[], f32[2]) tuple(i1, y)
}

cond {
  cs = (s32[], f32[2]) parameter(0)
  ci = s32[] get-tuple-element(cs), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(ci, n), direction=LT
}

ENTRY main {
  x = f32[2] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[2]) tuple(zero, x)
  loop = (s32[], f32[2]) while(init), condition=cond, body=body
  ROOT out = f32[2] get-tuple-element(loop), index=1
}
`

// TestIntercept checks what Options.Intercept sees and may change: the values of its instructions at each
// iteration in order, a parameter's included, a broadcast in full though the evaluation holds it as a view
// of its operand, and a replaced value carried into what follows.
func TestIntercept(t *testing.T) {
	m := parseModule(t, interceptSource)
	body := m.Computation("body")
	ins := map[string]*hlo.Instruction{}
	for _, in := range body.Instructions {
		ins[in.Name] = in
	}
	seen := map[string][]string{}
	ic := &Intercept{Instructions: map[*hlo.Instruction]bool{ins["st"]: true, ins["b"]: true, ins["x2"]: true}}
	ic.Func = func(in *hlo.Instruction, v Value) (Value, error) {
		seen[in.Name] = append(seen[in.Name], literalText(v.Clone()))
		if in.Name == "x2" && len(seen["x2"]) == 2 {
			// The second iteration's x + x becomes 100, 200.
			return val(t, "f32[2] {100, 200}"), nil
		}
		return v, nil
	}
	got, err := Run(m, []Value{val(t, "f32[2] {1, 2}")}, Options{Intercept: ic})
	if err != nil {
		t.Fatal(err)
	}
	// x: 1,2 -> 2,4 (+0) -> 100,200 +1 -> 202,402 +2.
	if s := literalText(got); s != "{204, 404}" {
		t.Errorf("result %s, want {204, 404}", s)
	}
	want := map[string]string{
		"b":  "{0, 0} {1, 1} {2, 2}",
		"x2": "{2, 4} {4, 8} {202, 402}",
		"st": "({0}, {1, 2}) ({1}, {2, 4}) ({2}, {101, 201})",
	}
	for name, w := range want {
		if s := strings.Join(seen[name], " "); s != w {
			t.Errorf("%%%s seen as %s, want %s", name, s, w)
		}
	}

	// A value of another shape, and another value for a broadcast held as a view, are refused.
	for _, tc := range []struct{ name, with, err string }{
		{"x2", "f32[3] {1, 2, 3}", "the value given in place of its own"},
		{"b", "f32[2] {7, 7}", "a broadcast held as a view of its operand cannot be given another value"},
	} {
		ic := &Intercept{Instructions: map[*hlo.Instruction]bool{ins[tc.name]: true}, Func: func(*hlo.Instruction, Value) (Value, error) {
			return val(t, tc.with), nil
		}}
		_, err := Run(m, []Value{val(t, "f32[2] {1, 2}")}, Options{Intercept: ic})
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%%%s given %s: %v", tc.name, tc.with, err)
		}
	}
}

// TestInterceptGrid checks that an intercepted instruction evaluated on each device of a grid ends the
// evaluation with an error, rather than going unseen.
func TestInterceptGrid(t *testing.T) {
	m := parseModule(t, onGrid(prog("f32[2]", "f32[2]", "negate(p)"), "f32[2]", "f32[2]", 2, 1))
	var c *hlo.Instruction
	for _, in := range m.Computation("prog").Instructions {
		if in.Name == "c" {
			c = in
		}
	}
	ic := &Intercept{Instructions: map[*hlo.Instruction]bool{c: true}, Func: func(_ *hlo.Instruction, v Value) (Value, error) { return v, nil }}
	args := []Value{val(t, "f32[2] {1, 2}"), val(t, "f32[2] {3, 4}")}
	_, err := Run(m, args, Options{Intercept: ic})
	if err == nil || !strings.Contains(err.Error(), "%c is evaluated on each device of a grid, where its values cannot be intercepted") {
		t.Errorf("Run: %v", err)
	}
	// Without it watched, the grid runs.
	if _, err := Run(m, args, Options{Intercept: &Intercept{Instructions: map[*hlo.Instruction]bool{}, Func: ic.Func}}); err != nil {
		t.Errorf("Run, nothing watched: %v", err)
	}
}

// literalText writes a value's elements: an array as {e0, e1, ...}, a tuple as (v0, v1, ...).
func literalText(v Value) string {
	if v.Kind == KindTuple {
		parts := make([]string, len(v.Tuple))
		for i, e := range v.Tuple {
			parts[i] = literalText(e)
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	var parts []string
	for _, x := range v.Array.Float64s() {
		parts = append(parts, fmt.Sprint(x))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

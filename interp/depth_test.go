package interp

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// callChain is a module whose entry calls c1, which calls c2, ... down to c<depth>, which negates.
func callChain(depth int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "HloModule chain\nc%d {\n  p%d = f32[] parameter(0)\n  ROOT r%d = f32[] negate(p%d)\n}\n", depth, depth, depth, depth)
	for i := depth - 1; i > 0; i-- {
		fmt.Fprintf(&b, "c%d {\n  p%d = f32[] parameter(0)\n  ROOT r%d = f32[] call(p%d), to_apply=c%d\n}\n", i, i, i, i, i+1)
	}
	b.WriteString("ENTRY e {\n  x = f32[] parameter(0)\n  ROOT y = f32[] call(x), to_apply=c1\n}\n")
	return b.String()
}

// TestDeepCalls runs calls nested far deeper than programs usually go, and refuses, with a positioned
// error and no stack overflow, nesting past the documented limit.
func TestDeepCalls(t *testing.T) {
	m := parseModule(t, callChain(2000))
	got, err := Run(m, []Value{val(t, "f32[] 1.5")}, Options{})
	if err != nil {
		t.Fatalf("2000 nested calls: %v", err)
	}
	if want := val(t, "f32[] -1.5"); !Compare(want, got).Identical() {
		t.Errorf("2000 nested calls give %v, want -1.5", got.Array.Float64s())
	}
	m = parseModule(t, callChain(maxCallDepth+1))
	_, err = Run(m, []Value{val(t, "f32[] 1.5")}, Options{})
	if err == nil || !regexp.MustCompile(`^test\.hlo:\d+:3: .*nest more than 10000 deep`).MatchString(err.Error()) {
		t.Errorf("%d nested calls: %v, want a positioned error", maxCallDepth+1, err)
	}
}

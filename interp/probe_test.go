package interp

import (
	"errors"
	"strings"
	"testing"
)

// TestProbe checks that a serialized check compares with what the probe recorded at the iteration it
// names, exactly.
func TestProbe(t *testing.T) {
	src := func(iter string) string {
		return `ENTRY e {
  x = f32[2] parameter(0)
  y = f32[2] parameter(1)
  a = f32[2] custom-call(x), custom_call_target="interpreter.probe", custom_call_has_side_effect=true, backend_config="p/0"
  b = f32[2] custom-call(y), custom_call_target="interpreter.probe", custom_call_has_side_effect=true, backend_config="p/0"
  i = s64[] constant(` + iter + `)
  c = () custom-call(y, i), custom_call_target="check.expect_serialized_eq", custom_call_has_side_effect=true, backend_config="p/0"
  ROOT r = f32[2] add(a, b)
}
`
	}
	args := []string{"f32[2] {1, 2}", "f32[2] {1, 2.0000002}"}
	got, err := evalText(t, src("1"), args...)
	if err != nil {
		t.Fatalf("iteration 1: %v", err)
	}
	if !sameValue(got, val(t, "f32[2] {2, 4.0000002}")) {
		t.Errorf("a probe changed its value: %s", describe(got))
	}
	_, err = evalText(t, src("0"), args...)
	var ce *CheckError
	if !errors.As(err, &ce) || ce.Mismatches != 1 {
		t.Errorf("iteration 0 differs in one element by one ULP; got %v", err)
	}
	_, err = evalText(t, src("2"), args...)
	if err == nil || !strings.Contains(err.Error(), "none at iteration 2") {
		t.Errorf("iteration 2 was never recorded; got %v", err)
	}
}

package parser

import (
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
	"strings"
	"testing"
)

// parseErrors parses src and returns its errors, failing the test when there are none.
func parseErrors(t *testing.T, src string) scanner.ErrorList {
	t.Helper()
	_, err := ParseFile(token.NewFileSet(), "deep.hlo", []byte(src))
	if err == nil {
		t.Fatal("no error")
	}
	var list scanner.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error is %T, not a scanner.ErrorList", err)
	}
	return list
}

// TestNestingLimit: input nested past maxNesting gives one positioned error, whatever the construct, and
// does not exhaust the stack (a million levels).
func TestNestingLimit(t *testing.T) {
	const deep = 1_000_000
	open := func(s string, n int) string { return strings.Repeat(s, n) }
	for _, tc := range []struct {
		name string
		src  string
		// line and column of the opener one level past the limit
		line, col int
	}{
		{"tuple shape", "ENTRY e {\n  ROOT p = " + open("(", deep) + "f32[]" + open(")", deep) + " parameter(0)\n}\n", 2, 12 + maxNesting},
		{"operand list", "ENTRY e {\n  a = f32[] parameter(0)\n  ROOT n = f32[] negate(" + open("(", deep) + "\n}\n", 3, 25 + maxNesting},
		{"buffer shape", "ENTRY e {\n  ROOT p = " + open("b(", deep) + "f32[]" + open(")", deep) + " parameter(0)\n}\n", 2, 12 + 2*maxNesting},
		{"nested instructions", "ENTRY e {\n  a = f32[] parameter(0)\n  ROOT n = f32[] " + open("negate(", deep) + "a" + open(")", deep) + "\n}\n",
			3, 18 + len("negate(")*(maxNesting+1)},
		{"attribute braces", "ENTRY e {\n  ROOT p = f32[] parameter(0), foo=" + open("{", deep) + open("}", deep) + "\n}\n", 2, 36 + maxNesting},
		{"sharding", "ENTRY e {\n  ROOT p = f32[] parameter(0), sharding=" + open("{", deep) + "replicated" + open("}", deep) + "\n}\n",
			2, 41 + maxNesting},
		{"inline computations", inlineComputations(2 * maxNesting), 2 + 2*maxNesting + 1, 36},
	} {
		t.Run(tc.name, func(t *testing.T) {
			list := parseErrors(t, tc.src)
			want := fmt.Sprintf("deep.hlo:%d:%d: nesting deeper than %d", tc.line, tc.col, maxNesting)
			if len(list) != 1 || list[0].Error() != want {
				t.Errorf("errors %v; want only %q", list, want)
			}
		})
	}
}

// TestNestingWithinLimit: valid input nested almost to the limit parses.
func TestNestingWithinLimit(t *testing.T) {
	n := maxNesting - 10
	for name, src := range map[string]string{
		"nested instructions": "ENTRY e {\n  a = f32[] parameter(0)\n  ROOT n = f32[] " + strings.Repeat("negate(", n) + "a" + strings.Repeat(")", n) + "\n}\n",
		"inline computations": inlineComputations(n),
		"tuple shape":         "ENTRY e {\n  ROOT p = " + strings.Repeat("(", n) + "f32[]" + strings.Repeat(")", n) + " parameter(0)\n}\n",
	} {
		t.Run(name, func(t *testing.T) {
			m, err := ParseString("deep.hlo", src)
			if err != nil {
				t.Fatal(err)
			}
			if name == "inline computations" && len(m.Computations) != n+2 {
				t.Errorf("%d computations, want %d", len(m.Computations), n+2)
			}
		})
	}
}

// inlineComputations returns a module whose entry calls a computation written in place, which calls one
// written in place, and so on n times: line 3+2i opens the computation at depth i+1 at column 36.
func inlineComputations(n int) string {
	var b strings.Builder
	b.WriteString("ENTRY e {\n  a = f32[] parameter(0)\n  ROOT c = f32[] call(a), to_apply=")
	for range n {
		b.WriteString("{\n  a = f32[] parameter(0)\n  ROOT c = f32[] call(a), to_apply=")
	}
	b.WriteString("{\n  a = f32[] parameter(0)\n  ROOT c = f32[] negate(a)\n}")
	b.WriteString(strings.Repeat("\n}", n))
	b.WriteString("\n}\n")
	return b.String()
}

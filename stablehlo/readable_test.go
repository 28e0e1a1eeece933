package stablehlo

import (
	"bytes"
	"go/token"
	"os"
	"strings"
	"testing"
)

// TestReadable checks that the readable text of a program printed with debug locations has no
// locations left, notes each op's Python line, and still reads as the same program.
func TestReadable(t *testing.T) {
	src, err := os.ReadFile("testdata/two_fp8_matmuls_debug.mlir")
	if err != nil {
		t.Fatal(err)
	}
	out, err := Readable(token.NewFileSet(), "two_fp8_matmuls_debug.mlir", src)
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	if strings.Contains(text, "loc(") || strings.Contains(text, "#loc") {
		t.Errorf("locations left in:\n%s", text)
	}
	var dots []string
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "stablehlo.dot_general") {
			dots = append(dots, line[strings.LastIndex(line, "//"):])
		}
	}
	if want := []string{"// /home/user/mlp.py:10", "// /home/user/layers.py:4"}; strings.Join(dots, "|") != strings.Join(want, "|") {
		t.Errorf("the dot_general lines end with %q, want %q", dots, want)
	}
	if strings.Contains(text, "@relu(%arg0: tensor<32x128xbf16>) -> tensor<32x128xbf16> {  //") {
		t.Errorf("an argument's location became a note of its function's line")
	}
	count := func(src []byte) int {
		mods, err := ParseFile(token.NewFileSet(), "f.mlir", src)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, c := range mods[0].Computations {
			n += len(c.Instructions)
		}
		return n
	}
	if a, b := count(src), count(out); a != b {
		t.Errorf("the readable text converts to %d instructions, the original to %d", b, a)
	}
	// Text without locations comes back unchanged.
	plain := []byte("func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.add %a, %a : tensor<f32> // \"loc(x)\"\n  return %0 : tensor<f32>\n}\n")
	if got, err := Readable(token.NewFileSet(), "p.mlir", plain); err != nil || !bytes.Equal(got, plain) {
		t.Errorf("Readable changed text without locations (err %v):\n%s", err, got)
	}
}

package stablehlo

import (
	"fmt"
	"go/token"
	"strings"
	"testing"

	"octet/hlo"
)

// locProgram is a one-op program whose op is at location #top, followed by the alias definitions defs.
func locProgram(defs string) string {
	return "module {\n  func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n" +
		"    %0 = stablehlo.add %a, %a : tensor<2xf32> loc(#top)\n    return %0 : tensor<2xf32>\n  }\n}\n" + defs
}

// TestLocCycles: an alias that refers to itself, directly or through others, is an error at its
// definition, from the conversion and from Readable alike; neither hangs.
func TestLocCycles(t *testing.T) {
	for _, tc := range []struct{ name, defs, want string }{
		{"self call site", "#top = loc(callsite(#top at #top))\n", "test.mlir:7:1: location alias #top refers to itself"},
		{"self name", "#top = loc(\"x\"(#top))\n", "test.mlir:7:1: location alias #top refers to itself"},
		{"two aliases", "#top = loc(callsite(#b at \"f.py\":1:2))\n#b = loc(fused[#top])\n", "test.mlir:7:1: location alias #top refers to itself through #b"},
		{"defined twice", "#top = loc(\"f.py\":1:2)\n#top = loc(\"f.py\":3:4)\n", "test.mlir:8:1: location alias #top defined twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := []byte(locProgram(tc.defs))
			_, err := ParseFile(token.NewFileSet(), "test.mlir", src)
			if err == nil || err.Error() != tc.want {
				t.Errorf("ParseFile: %v, want %s", err, tc.want)
			}
			_, err = Readable(token.NewFileSet(), "test.mlir", src)
			if err == nil || err.Error() != tc.want {
				t.Errorf("Readable: %v, want %s", err, tc.want)
			}
		})
	}
}

// chainDefs is n levels of call-site aliases, each naming the level below twice: walked without
// remembering the levels, describing #top visits 2^n nodes.
func chainDefs(n int) string {
	var b strings.Builder
	b.WriteString("#l0 = loc(\"model.py\":42:7)\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "#l%d = loc(callsite(#l%d at #l%d))\n", i, i-1, i-1)
	}
	fmt.Fprintf(&b, "#top = loc(\"step\"(#l%d))\n", n)
	return b.String()
}

// TestLocChainLinear: a doubling chain of call-site aliases is described with work linear in its
// length (the steps at 2n are about twice those at n), and the metadata it gives is the innermost
// position.
func TestLocChainLinear(t *testing.T) {
	steps := func(n int) int {
		f, err := Parse(token.NewFileSet(), "test.mlir", []byte(locProgram(chainDefs(n))))
		if err != nil {
			t.Fatal(err)
		}
		m, err := Convert(token.NewFileSet(), f, f.Modules[0])
		if err != nil {
			t.Fatal(err)
		}
		md, _ := m.Entry.Root.Attr("metadata").(hlo.Metadata)
		if got := fmt.Sprint(md); got != `[{op_name "step"} {source_file "model.py"} {source_line 42}]` {
			t.Errorf("n=%d: metadata %s", n, got)
		}
		return f.locSteps
	}
	for _, n := range []int{60, 600} {
		a, b := steps(n), steps(2*n)
		if b > 2*a+16 {
			t.Errorf("%d location steps for a chain of %d, %d for %d: not linear", a, n, b, 2*n)
		}
	}
}

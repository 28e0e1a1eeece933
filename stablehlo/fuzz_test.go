package stablehlo

import (
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"octet/hlo"
	"octet/internal/shared"
)

var positioned = regexp.MustCompile(`^fuzz\.mlir:\d+:\d+: `)

// FuzzParseFile: any input is read and converted without a panic, into modules that verify or into one
// positioned error, and made readable without a panic.
func FuzzParseFile(f *testing.F) {
	f.Add([]byte("module {\n  func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n    %0 = stablehlo.add %a, %a : tensor<2xf32> loc(#loc1)\n    return %0 : tensor<2xf32>\n  }\n}\n#loc1 = loc(\"f.py\":1:2)\n"))
	f.Add([]byte("func.func @main() -> tensor<2xi1> {\n  %0 = stablehlo.constant dense<[true, false]> : tensor<2xi1>\n  return %0 : tensor<2xi1>\n}\n"))
	// The cases of what JAX prints: meshes with attributes, mesh-axes replica groups, typed FFI calls.
	if data, err := os.ReadFile(filepath.Join("testdata", "translate", "jax.mlir")); err == nil {
		for _, c := range strings.Split(string(data), "\n// -----") {
			f.Add([]byte(c))
		}
	}
	if dir := shared.Find(); dir != "" {
		names, _ := filepath.Glob(filepath.Join(dir, "examples", "*.mlir"))
		for _, n := range names {
			if src, err := os.ReadFile(n); err == nil {
				f.Add(src)
			}
		}
		// One small program of each kind of the test corpora: regions, tuples, locations, checks.
		seen := map[string]bool{}
		for _, a := range []string{"testdata.tar.gz", "interpret.tar.gz"} {
			for _, p := range readArchive(f, a) {
				kind, _, _ := strings.Cut(filepath.Base(p.name), "_")
				if len(p.src) < 3000 && !seen[kind] {
					seen[kind] = true
					f.Add(p.src)
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if _, err := Readable(token.NewFileSet(), "fuzz.mlir", src); err != nil && !positioned.MatchString(err.Error()) {
			t.Errorf("readable text: error without a position: %v", err)
		}
		mods, err := ParseFile(token.NewFileSet(), "fuzz.mlir", src)
		if err != nil {
			if !positioned.MatchString(err.Error()) {
				t.Errorf("error without a position: %v", err)
			}
			return
		}
		for _, m := range mods {
			if err := hlo.Verify(m); err != nil {
				t.Errorf("converted module does not verify: %v", err)
			}
		}
	})
}

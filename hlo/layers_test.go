package hlo_test

import (
	"go/build"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLayers checks that the arrows between Octet's packages point down the stack: the text layer (the
// IR, its parser and its printer) depends on nothing that works on the IR, and the FP8 packages flow one
// way, fuse/match <- fuse <- fuse/report. It follows non-test imports transitively.
func TestLayers(t *testing.T) {
	const module = "octet"
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	above := []string{"octet/cublas", "octet/fuse", "octet/interp", "octet/gemm", "octet/cmd"}
	for _, tc := range []struct {
		pkg       string
		forbidden []string // packages pkg must not reach, with the packages under them (except pkg)
	}{
		{"octet/hlo", slices.Concat(above, []string{"octet/hlo/parser", "octet/hlo/printer"})},
		{"octet/hlo/parser", slices.Concat(above, []string{"octet/hlo/printer"})},
		{"octet/hlo/printer", slices.Concat(above, []string{"octet/hlo/parser"})},
		{"octet/fuse/match", []string{"octet/fuse", "octet/interp", "octet/gemm", "octet/cmd"}},
		{"octet/fuse", []string{"octet/fuse/report", "octet/interp", "octet/gemm", "octet/cmd"}},
		{"octet/fuse/report", []string{"octet/interp", "octet/gemm", "octet/cmd"}},
	} {
		t.Run(tc.pkg, func(t *testing.T) {
			deps := map[string]bool{}
			var walk func(pkg string)
			walk = func(pkg string) {
				dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(pkg, module)))
				p, err := build.ImportDir(dir, 0)
				if err != nil {
					t.Fatalf("%s: %v", pkg, err)
				}
				for _, imp := range p.Imports {
					if strings.HasPrefix(imp, module+"/") && !deps[imp] {
						deps[imp] = true
						walk(imp)
					}
				}
			}
			walk(tc.pkg)
			if len(deps) == 0 {
				t.Fatalf("%s: found no Octet imports; the walk is broken", tc.pkg)
			}
			for dep := range deps {
				if dep == tc.pkg {
					t.Errorf("%s imports itself through a cycle", tc.pkg)
					continue
				}
				for _, f := range tc.forbidden {
					if dep == f || strings.HasPrefix(dep, f+"/") {
						t.Errorf("%s depends on %s, which is above it", tc.pkg, dep)
					}
				}
			}
		})
	}
}

package hlo_test

import (
	"go/build"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLayers checks that the text layer (the IR, its parser and its printer) depends on nothing above
// it: no cublas, fuse, interp, gemm or command. Each package may reach, through its non-test imports,
// only the Octet packages listed for it.
func TestLayers(t *testing.T) {
	const module = "octet"
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pkg     string
		allowed []string
	}{
		{"octet/hlo", []string{"octet/dtype"}},
		{"octet/hlo/parser", []string{"octet/dtype", "octet/hlo", "octet/internal/cstring"}},
		{"octet/hlo/printer", []string{"octet/dtype", "octet/hlo", "octet/internal/cstring"}},
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
					if (imp == module || strings.HasPrefix(imp, module+"/")) && !deps[imp] {
						deps[imp] = true
						walk(imp)
					}
				}
			}
			walk(tc.pkg)
			for dep := range deps {
				if !slices.Contains(tc.allowed, dep) {
					t.Errorf("%s depends on %s; it may depend only on %v", tc.pkg, dep, tc.allowed)
				}
			}
		})
	}
}

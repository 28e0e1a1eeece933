package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestCIFuzzesEveryTarget checks what the README says of .ci/run, that it fuzzes every fuzz target for a
// bounded time: each func FuzzNAME of the module's tests has a step "fuzz ./DIR FuzzNAME SECONDS" with
// its package's folder, and each such step names a target that is there.
func TestCIFuzzesEveryTarget(t *testing.T) {
	root := filepath.Join("..", "..")
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	steps := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^step "[^"]*" fuzz (\./\S+) (Fuzz\w+) [0-9]+$`).FindAllStringSubmatch(string(ci), -1) {
		steps[m[1]+" "+m[2]] = true
	}
	decl := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(`)
	var targets []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != root || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		for _, m := range decl.FindAllStringSubmatch(string(src), -1) {
			targets = append(targets, "./"+filepath.ToSlash(rel)+" "+m[1])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(targets) == 0 {
		t.Fatal("no fuzz targets found: the walk is wrong")
	}
	for _, target := range targets {
		if !steps[target] {
			t.Errorf(".ci/run has no step fuzzing %s", target)
		}
	}
	for step := range steps {
		if !slices.Contains(targets, step) {
			t.Errorf(".ci/run fuzzes %s, which is not a fuzz target", step)
		}
	}
}

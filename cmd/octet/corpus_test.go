package main

import (
	"path/filepath"
	"strings"
	"testing"

	"octet/internal/shared"
)

// TestCorpusNoInternalError runs check and fuse on every corpus file: whatever the file, the status is 0
// or 1, never an internal error.
func TestCorpusNoInternalError(t *testing.T) {
	var files []string
	for _, sub := range []string{"hlo", "hlo-roundtrip", "fp8"} {
		for _, pattern := range []string{"*.hlo", "*.hlo.gz"} {
			names, _ := filepath.Glob(filepath.Join(shared.Path(t, "corpus", sub), pattern))
			files = append(files, names...)
		}
	}
	if len(files) < 100 {
		t.Fatalf("only %d corpus files", len(files))
	}
	failed := 0
	for _, name := range files {
		for _, args := range [][]string{{"check", "--json", name}, {"fuse", "--json", name}} {
			code, _, errs := runOctet(t, "", args...)
			if code == 1 {
				failed++
			}
			if code != 0 && code != 1 || strings.Contains(errs, "internal error") {
				t.Errorf("%s: exit %d:\n%.1000s", strings.Join(args, " "), code, errs)
			}
		}
	}
	t.Logf("%d files, %d runs refused the input", len(files), failed)
}

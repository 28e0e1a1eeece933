// Package shared locates the reference material that lives beside a checkout of Octet as ../shared: the
// HLO corpora, the FP8 rewrite cases, the numerics vectors and the examples.
//
// Tests use Dir (or Path) and are skipped, with a message that says why, when the folder is absent, so that
// "go test ./..." passes anywhere. Continuous integration always has it: with CI=true in the environment
// (as .ci/run sets it, and as CI services do), a test that would skip for want of the folder fails
// instead, and so does one that calls Missing for a tool it needs. OCTET_SHARED overrides the location.
package shared

import (
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	once sync.Once
	dir  string
)

// Find returns the shared folder, or "" when there is none.
func Find() string {
	once.Do(func() {
		if d := os.Getenv("OCTET_SHARED"); d != "" {
			if isDir(d) {
				dir = d
			}
			return
		}
		wd, err := os.Getwd()
		if err != nil {
			return
		}
		// Walk up to the module root (the folder with go.mod), then look beside it.
		for d := wd; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
				if s := filepath.Join(filepath.Dir(d), "shared"); isDir(s) {
					dir = s
				}
				return
			}
			if filepath.Dir(d) == d {
				return
			}
		}
	})
	return dir
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// Dir returns the shared folder or skips the test when it is absent (fails it under CI=true).
func Dir(t testing.TB) string {
	t.Helper()
	d := Find()
	if d == "" {
		Missing(t, "the reference material ../shared (or $OCTET_SHARED) is not beside this checkout")
	}
	return d
}

// Missing skips the test because what it needs is missing, saying so; under continuous integration
// (CI=true in the environment), where nothing may be missing, it fails the test instead.
func Missing(t testing.TB, why string) {
	t.Helper()
	missing(t, why, os.Getenv("CI"))
}

func missing(t testing.TB, why, ci string) {
	t.Helper()
	if ci == "true" {
		t.Fatal("CI=true, and " + why)
		return
	}
	t.Skip("skipped: " + why)
}

// Path returns the path of elem inside the shared folder, skipping the test when the folder is absent.
func Path(t testing.TB, elem ...string) string {
	t.Helper()
	return filepath.Join(append([]string{Dir(t)}, elem...)...)
}

// ReadFile reads a file of the shared folder, decompressing it when its name ends in ".gz".
func ReadFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, errors.New(name + ": " + err.Error())
		}
		r = zr
	}
	return io.ReadAll(r)
}

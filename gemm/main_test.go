package gemm

import (
	"fmt"
	"os"
	"testing"
)

// TestMain points the user's cache directory at an empty one for the whole run, so that the tests never
// read the tuning cache of the machine they run on (the tests that use a cache write their own).
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gemm-test-cache")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, v := range []string{"XDG_CACHE_HOME", "HOME", "LocalAppData", "home"} {
		os.Setenv(v, dir)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

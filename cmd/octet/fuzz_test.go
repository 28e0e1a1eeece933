package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzCommands feeds arbitrary bytes, plain or gzipped, to print, check and fuse on standard input: each
// must end with status 0 or 1, never with an internal error.
func FuzzCommands(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*.hlo"))
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(src)
		zw.Close()
		f.Add(b.Bytes())
	}
	f.Add([]byte{})
	f.Add([]byte("\x1f\x8b"))
	defer func(old int64) { inputLimit = old }(inputLimit)
	inputLimit = 1 << 20
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, args := range [][]string{{"print", "-"}, {"check", "--json", "-"}, {"fuse", "-"}} {
			code, _, errs := runOctet(t, string(data), args...)
			if code != 0 && code != 1 || strings.Contains(errs, "internal error") {
				t.Fatalf("%s: exit %d:\n%s", strings.Join(args, " "), code, errs)
			}
		}
	})
}

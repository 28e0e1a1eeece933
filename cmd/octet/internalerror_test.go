package main

import (
	"bytes"
	"go/token"
	"strings"
	"testing"

	"octet/hlo"
	"octet/hlo/parser"
)

// bugMagic starts the files of a format that the test below registers, whose reader panics as a bug would.
const bugMagic = "octet test file whose reader panics\n"

func init() {
	parser.RegisterFormat("panicking test format",
		func(src []byte) bool { return bytes.HasPrefix(src, []byte(bugMagic)) }, // no copy of src: other tests measure memory
		panickingReader)
}

// panickingReader is a reader with a bug.
func panickingReader(*token.FileSet, *token.File, []byte) ([]*hlo.Module, error) {
	var m map[string]int
	m["x"]++ // a nil map: the runtime panics here
	return nil, nil
}

// TestBugExitsInternal makes the reading of a file panic, as a bug in a reader would, and checks that every
// command that reads it reports an internal error, with the panic and its stack on stderr and exit status
// 3, not bad input (exit 1).
func TestBugExitsInternal(t *testing.T) {
	path := writeTemp(t, t.TempDir(), "bug.hlo", bugMagic+"HloModule m\n")
	for _, args := range [][]string{{"print", path}, {"verify", path}, {"check", path}, {"run", "--random", "1", path}} {
		code, out, errs := runOctet(t, "", args...)
		if code != 3 || out != "" {
			t.Errorf("octet %s: exit %d, stdout %q; want exit 3 and nothing on stdout", strings.Join(args, " "), code, out)
		}
		for _, want := range []string{"octet: internal error: assignment to entry in nil map", "goroutine ", ".panickingReader("} {
			if !strings.Contains(errs, want) {
				t.Errorf("octet %s: stderr lacks %q:\n%.2000s", strings.Join(args, " "), want, errs)
			}
		}
	}
}

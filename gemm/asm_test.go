package gemm

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// asmLine is one line of an assembly file after the joining of continued lines: its position and text.
type asmLine struct {
	pos  string // file:line
	text string
}

// readAsm returns the lines of the assembly file at path, a line ending in a backslash joined with the
// next (as the assembler's preprocessor does), comments removed.
func readAsm(path string) ([]asmLine, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var lines []asmLine
	var cur strings.Builder
	start := 0
	for i, l := range strings.Split(string(data), "\n") {
		if cur.Len() == 0 {
			start = i + 1
		}
		if c := strings.Index(l, "//"); c >= 0 {
			l = l[:c]
		}
		l = strings.TrimRight(l, " \t")
		if strings.HasSuffix(l, `\`) {
			cur.WriteString(strings.TrimSuffix(l, `\`))
			cur.WriteString(" ")
			continue
		}
		cur.WriteString(l)
		lines = append(lines, asmLine{fmt.Sprintf("%s:%d", filepath.Base(path), start), cur.String()})
		cur.Reset()
	}
	return lines, nil
}

// TestNoArgumentsInMacros checks that no header and no macro of the package's assembly reads or writes an
// argument ((FP)): go vet's asmdecl checks the argument accesses of each TEXT body, but does not see into
// included files or into the macros defined before a function, so every access must be spelled out in
// the body, and the macros and headers take registers.
func TestNoArgumentsInMacros(t *testing.T) {
	files, err := filepath.Glob("*.[sh]")
	if err != nil {
		t.Fatal(err)
	}
	fp := regexp.MustCompile(`\(FP\)`)
	checked := 0
	for _, f := range files {
		lines, err := readAsm(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			header := strings.HasSuffix(f, ".h")
			if (header || strings.HasPrefix(strings.TrimSpace(l.text), "#define")) && fp.MatchString(l.text) {
				what := "a macro"
				if header {
					what = "a header"
				}
				t.Errorf("%s: %s reads or writes an argument, which go vet does not check: %s", l.pos, what, strings.TrimSpace(l.text))
			}
		}
		checked++
	}
	if checked == 0 || !slices.Contains(files, "tile14_amd64.h") {
		t.Fatalf("found only %v", files)
	}
}

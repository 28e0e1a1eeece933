package gemm

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

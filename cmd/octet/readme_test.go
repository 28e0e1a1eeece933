package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"octet/internal/shared"
)

// A readmeSession is one command the README shows being typed (an indented line "$ command") and the
// output it shows under it.
type readmeSession struct {
	line    int // of the command, 1-based
	command string
	output  []string
}

// readmeSessions returns the README's sessions: each runs from an indented "$ " line to the next one or
// to the first line that is not indented (a blank line included).
func readmeSessions(text string) []readmeSession {
	var out []readmeSession
	var cur *readmeSession
	for i, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "    ") {
			cur = nil
			continue
		}
		body := line[4:]
		if cmd, ok := strings.CutPrefix(body, "$ "); ok {
			out = append(out, readmeSession{line: i + 1, command: cmd})
			cur = &out[len(out)-1]
			continue
		}
		if cur != nil {
			cur.output = append(cur.output, body)
		}
	}
	return out
}

// shellWords splits a command line as the shell would for the plain commands the README shows: words
// separated by spaces, single-quoted words kept whole, a # outside quotes starting a comment.
func shellWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted:
			if c == '\'' {
				quoted = false
			} else {
				w.WriteByte(c)
			}
		case c == '\'':
			quoted, inWord = true, true
		case c == ' ' || c == '\t':
			if inWord {
				words, inWord = append(words, w.String()), false
				w.Reset()
			}
		case c == '#' && !inWord:
			i = len(s)
		case c == '"' || c == '\\' || c == '$' && s[i:] != "$?" || c == '`' || c == '>' || c == '<' || c == ';' || c == '&':
			return nil, fmt.Errorf("%q needs a shell", s)
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("unterminated quote in %q", s)
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// outputPattern is the regular expression the shown output stands for: a line "..." (however indented)
// stands for any number of lines, and "..." within a line for any text on it.
func outputPattern(lines []string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`^`)
	for _, l := range lines {
		if strings.TrimSpace(l) == "..." {
			b.WriteString(`(?:[^\n]*\n)*?`)
			continue
		}
		b.WriteString(strings.ReplaceAll(regexp.QuoteMeta(l), `\.\.\.`, `[^\n]*?`))
		b.WriteString(`\n`)
	}
	b.WriteString(`$`)
	return regexp.MustCompile(b.String())
}

// TestREADMESessions runs every command the README shows with its output and compares what the program
// prints (standard output, then standard error) with what the README shows, so that the README cannot
// show an output the code no longer gives. Commands whose output depends on the machine or the clock
// (bench, --profile), that write files or need files the README makes elsewhere, and that are not
// octet's are left out, and listed in the log.
func TestREADMESessions(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	text, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	sessions := readmeSessions(string(text))
	haveShared := shared.Find() != ""
	checked, needShared := 0, 0
	var skipped []string
	lastCode := -1
	for _, s := range sessions {
		at := fmt.Sprintf("README.md:%d", s.line)
		if s.command == "echo $?" {
			if lastCode < 0 {
				skipped = append(skipped, at+": the exit status of a command not run")
				continue
			}
			if got, want := fmt.Sprint(lastCode), strings.Join(s.output, "\n"); got != want {
				t.Errorf("%s: %s: the README shows %s, the command before exited %s", at, s.command, want, got)
			}
			checked++
			continue
		}
		lastCode = -1
		stdin := ""
		cmd := s.command
		if pipe := strings.Index(cmd, " | octet "); pipe >= 0 {
			words, err := shellWords(cmd[:pipe])
			if err != nil || len(words) != 2 || words[0] != "echo" && words[0] != "printf" {
				skipped = append(skipped, at+": "+cmd+" (its input needs a shell)")
				continue
			}
			if words[0] == "echo" {
				stdin = words[1] + "\n"
			} else {
				stdin = strings.ReplaceAll(words[1], `\n`, "\n")
			}
			cmd = cmd[pipe+3:]
		}
		words, err := shellWords(cmd)
		if err != nil || len(words) < 2 || words[0] != "octet" {
			skipped = append(skipped, at+": "+s.command+" (not a plain octet command)")
			continue
		}
		args := words[1:]
		if reason := readmeLeftOut(args); reason != "" {
			skipped = append(skipped, at+": "+s.command+" ("+reason+")")
			continue
		}
		if strings.Contains(cmd, "../shared/") {
			if !haveShared {
				needShared++
				continue
			}
			// The README names ../shared; the tests may be given it elsewhere.
			for i, a := range args {
				if rest, ok := strings.CutPrefix(a, "../shared/"); ok {
					args[i] = filepath.Join(shared.Find(), rest)
				}
			}
		}
		code, stdout, stderr := runOctet(t, stdin, args...)
		lastCode = code
		checked++
		got := stdout + stderr
		if haveShared {
			got = strings.ReplaceAll(got, shared.Find()+string(filepath.Separator), "../shared/")
		}
		if !outputPattern(s.output).MatchString(got) {
			t.Errorf("%s: %s (exit %d) prints what the README does not show:\n--- README\n%s\n--- octet\n%s",
				at, s.command, code, strings.Join(s.output, "\n"), got)
		}
	}
	t.Logf("%d README commands checked; left out: %d that need ../shared, and\n%s", checked, needShared, strings.Join(skipped, "\n"))
	if checked < 8 {
		t.Errorf("only %d of the README's commands were checked", checked)
	}
	if needShared > 0 {
		shared.Missing(t, fmt.Sprintf("the reference material ../shared (or $OCTET_SHARED), which %d of the README's commands read, is not beside this checkout", needShared))
	}
}

// readmeLeftOut says why a command the README shows is not run by TestREADMESessions, or "".
func readmeLeftOut(args []string) string {
	if args[0] == "bench" {
		return "a measurement"
	}
	for _, a := range args {
		switch {
		case a == "--profile":
			return "a measurement"
		case a == "-o" || a == "--input":
			return "writes or reads files the README makes elsewhere"
		}
	}
	file := args[len(args)-1]
	if strings.HasSuffix(file, ".hlo") && !strings.HasPrefix(file, "../shared/") {
		if _, err := os.Stat(file); err != nil {
			return "its input is made elsewhere"
		}
	}
	return ""
}

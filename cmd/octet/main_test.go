package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runOctet runs the program in-process and returns its exit status and both streams.
func runOctet(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// writeTemp writes content to the file name of dir and returns its path.
func writeTemp(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestHelpListsEveryCommand(t *testing.T) {
	code, out, _ := runOctet(t, "", "help")
	if code != 0 {
		t.Fatalf("octet help: exit %d", code)
	}
	for name, c := range commands {
		if !strings.Contains(out, "\t"+name+" ") {
			t.Errorf("octet help does not list %q", name)
		}
		code, hout, herr := runOctet(t, "", "help", name)
		if code != 0 {
			t.Errorf("octet help %s: exit %d: %s", name, code, herr)
		}
		if !strings.HasPrefix(hout, "usage: octet "+c.UsageLine+"\n") {
			t.Errorf("octet help %s: output does not start with its usage line:\n%s", name, hout)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{}, {"no-such-command"}, {"version", "extra"}, {"version", "--no-such-flag"}} {
		code, _, stderr := runOctet(t, "", args...)
		if code != 2 {
			t.Errorf("octet %q: exit %d, want 2", args, code)
		}
		if stderr == "" {
			t.Errorf("octet %q: no message on stderr", args)
		}
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := runOctet(t, "", "version")
	if code != 0 || !strings.HasPrefix(out, "octet ") {
		t.Fatalf("octet version: exit %d, output %q", code, out)
	}
}

// TestUsageLinesNameEveryFlag checks that each command's usage line names every flag its -h lists, so
// that a flag added to a command is not missing from the line users read first. --max-input, which every
// command that reads modules takes, is described in octet help instead.
func TestUsageLinesNameEveryFlag(t *testing.T) {
	for name, c := range commands {
		code, out, errs := runOctet(t, "", name, "-h")
		if code != 0 {
			t.Errorf("octet %s -h: exit %d: %s", name, code, errs)
			continue
		}
		_, flags, _ := strings.Cut(out, "\nFlags:\n")
		for _, line := range strings.Split(flags, "\n") {
			if !strings.HasPrefix(line, "  -") {
				continue
			}
			flagName, _, _ := strings.Cut(strings.TrimPrefix(line, "  -"), " ")
			if flagName == "max-input" {
				continue
			}
			if !strings.Contains(c.UsageLine, "-"+flagName+" ") && !strings.Contains(c.UsageLine, "-"+flagName+"]") &&
				!strings.Contains(c.UsageLine, "-"+flagName+"=") && !strings.HasSuffix(c.UsageLine, "-"+flagName) {
				t.Errorf("octet %s: usage line %q does not name -%s", name, c.UsageLine, flagName)
			}
		}
	}
}

// TestEmptyFlagValues checks that a string flag given an empty value (a shell variable that was not set)
// is a usage error, not the flag's absence: -o "" used to write to standard output.
func TestEmptyFlagValues(t *testing.T) {
	module := example("relu_amax.before.hlo")
	for _, args := range [][]string{
		{"run", "--random", "1", "-o", "", module},
		{"report", "-o=", module},
		{"export", "-o", "", module},
		{"print", "--format", "", module},
		{"run", "--random", "1", "--module=", module},
	} {
		code, out, errs := runOctet(t, "", args...)
		if code != 2 || out != "" || !strings.Contains(errs, ": empty value") {
			t.Errorf("octet %q: exit %d, stdout %d bytes, stderr %q; want exit 2, nothing written, \"empty value\"",
				args, code, len(out), errs)
		}
	}
}

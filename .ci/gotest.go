// Command gotest reads the events of "go test -json" on standard input and prints what continuous
// integration needs to see, as the events come: one line per package as go test prints it, the output of
// every test that failed and of every package that did not build; then every test that was skipped, with
// the reason it gave (to the file -skipped names, or after the rest). It exits 1 when a test or a package
// failed, 2 when the input is not go test's JSON.
//
// Usage: go test -json ./... | go run .ci/gotest.go [-skipped FILE]
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of go test -json (cmd/test2json).
type event struct {
	Action     string
	Package    string
	ImportPath string // of build-output and build-fail events
	Test       string
	Elapsed    float64
	Output     string
}

// key names a test of a package (Test is empty for the package itself).
type key struct{ pkg, test string }

func main() {
	skippedFile := flag.String("skipped", "", "write the skipped tests to `FILE` instead of after the rest")
	flag.Parse()
	skips := io.Writer(os.Stdout)
	if *skippedFile != "" {
		f, err := os.Create(*skippedFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gotest:", err)
			os.Exit(2)
		}
		defer f.Close()
		skips = f
	}
	failed, err := summarize(os.Stdin, os.Stdout, skips)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gotest:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

// summarize reads the events from r and writes the summary to w, and the skipped tests to skips. It
// reports whether anything failed.
func summarize(r io.Reader, w, skips io.Writer) (failed bool, err error) {
	output := map[key][]string{}
	build := map[string][]string{}
	var skipped []key
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] != '{' {
			// go test writes what is not an event (a build error of a package it could not list) as is.
			fmt.Fprintf(w, "%s\n", line)
			continue
		}
		var e event
		if err := json.Unmarshal(line, &e); err != nil {
			return failed, fmt.Errorf("not go test -json output: %v: %s", err, line)
		}
		k := key{e.Package, e.Test}
		switch e.Action {
		case "build-output":
			build[e.ImportPath] = append(build[e.ImportPath], e.Output)
		case "build-fail":
			failed = true
			fmt.Fprintf(w, "%s", strings.Join(build[e.ImportPath], ""))
		case "output":
			output[k] = append(output[k], e.Output)
		case "skip":
			if e.Test == "" {
				fmt.Fprintf(w, "?   \t%s\t[no test files]\n", e.Package)
			} else {
				skipped = append(skipped, k)
			}
		case "pass":
			if e.Test == "" {
				fmt.Fprintf(w, "ok  \t%s\t%.3fs\n", e.Package, e.Elapsed)
			}
		case "fail":
			failed = true
			// A failed test's output, and a failed package's own (a panic, a build error, a timeout).
			fmt.Fprintf(w, "%s", strings.Join(output[k], ""))
		}
	}
	if err := sc.Err(); err != nil {
		return failed, err
	}
	w = skips
	if len(skipped) == 1 {
		fmt.Fprintln(w, "1 test skipped:")
	} else {
		fmt.Fprintf(w, "%d tests skipped:\n", len(skipped))
	}
	sort.Slice(skipped, func(i, j int) bool {
		if skipped[i].pkg != skipped[j].pkg {
			return skipped[i].pkg < skipped[j].pkg
		}
		return skipped[i].test < skipped[j].test
	})
	for _, k := range skipped {
		fmt.Fprintf(w, "  %s %s: %s\n", k.pkg, k.test, reason(output[k]))
	}
	return failed, nil
}

// reason is what a skipped test logged, without go test's own lines (=== RUN, --- SKIP).
func reason(lines []string) string {
	var out []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") {
			continue
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return "(no reason given)"
	}
	return strings.Join(out, " / ")
}

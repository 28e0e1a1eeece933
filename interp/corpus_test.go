package interp

import (
	"errors"
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"octet/hlo"
	"octet/hlo/parser"
	_ "octet/hlo/prototext" // the corpus holds HloModuleProto text files too
	"octet/internal/shared"
)

// The corpus test's budgets: a module whose buffers need more than corpusMemory bytes, or whose evaluation
// takes more than corpusWork units of work (about one element or multiply-add each), is skipped by that
// rule. They keep the whole corpus under half a minute on two cores.
const (
	corpusMemory = 64 << 20
	corpusWork   = 50_000_000
)

var positioned = regexp.MustCompile(`^[^:]+:\d+:\d+: `)

// unsupportedCategory groups "unsupported" messages: the custom-call target, the collective, or the
// first words before any detail.
func unsupportedCategory(what string) string {
	switch {
	case strings.HasPrefix(what, "custom-call"), strings.HasPrefix(what, "host transfer"):
		if i := strings.Index(what, " ("); i > 0 {
			what = what[:i]
		}
		return what
	case strings.HasPrefix(what, "collective"):
		f := strings.Fields(what)
		return "collective " + f[1]
	}
	for _, sep := range []string{" (", ":", " of ", " with ", " giving ", " calling "} {
		if i := strings.Index(what, sep); i > 0 {
			what = what[:i]
		}
	}
	return what
}

// TestCorpusRuns evaluates every module of the shared HLO corpus with random inputs. Each must run,
// fail with a positioned "unsupported: ..." error, be skipped by the budget rule above, or be invalid (a
// positioned error where hlo.Verify rejects the module too). Under the race detector it takes every
// raceStride-th file.
func TestCorpusRuns(t *testing.T) {
	dir := shared.Path(t, "corpus", "hlo")
	var files []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return nil
	})
	reasons := map[string]int{}
	var runs, skippedMemory, skippedWork, invalid, unparsed int
	for i, path := range files {
		if i%raceStride != 0 {
			continue
		}
		src, err := shared.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(path)
		mods, err := parser.ParseFile(token.NewFileSet(), name, src)
		if err != nil {
			unparsed++ // the parser's tests report these
			continue
		}
		for _, m := range mods {
			opts := Options{MaxMemory: corpusMemory, MaxWork: corpusWork}
			err := CheckMemory(m, opts)
			var args []Value
			if err == nil {
				args, err = RandomInputs(m, 1)
			}
			if err == nil {
				_, err = Run(m, args, opts)
			}
			var ie *Error
			var me *MemoryError
			var we *WorkError
			switch {
			case err == nil:
				runs++
			case errors.As(err, &me):
				skippedMemory++
			case errors.As(err, &we):
				skippedWork++
			case !positioned.MatchString(err.Error()):
				t.Errorf("%s (module %s): error without a position: %v", name, m.Name, err)
			case errors.As(err, &ie) && ie.Unsupported != "":
				reasons[unsupportedCategory(ie.Unsupported)]++
			case hlo.Verify(m) != nil:
				invalid++
				t.Logf("invalid module %s in %s: %v", m.Name, name, err)
			default:
				t.Errorf("%s (module %s): %v", name, m.Name, err)
			}
		}
	}
	var keys []string
	total := 0
	for k, n := range reasons {
		keys = append(keys, k)
		total += n
	}
	sort.Slice(keys, func(i, j int) bool {
		if reasons[keys[i]] != reasons[keys[j]] {
			return reasons[keys[i]] > reasons[keys[j]]
		}
		return keys[i] < keys[j]
	})
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "\n  %4d  %s", reasons[k], k)
	}
	t.Logf("%d modules run; %d unsupported; %d skipped by rule (%d over %d MiB of buffers, %d over %d units of work); %d invalid; %d files the parser rejects\nunsupported, by reason:%s",
		runs, total, skippedMemory+skippedWork, skippedMemory, corpusMemory>>20, skippedWork, corpusWork, invalid, unparsed, b.String())
	if runs < 400/raceStride {
		t.Errorf("only %d modules run", runs)
	}
}

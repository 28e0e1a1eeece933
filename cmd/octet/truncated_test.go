package main

import (
	"bytes"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"octet/hlo"
	"octet/hlo/parser"
	"octet/internal/shared"
)

// positioned matches a message that starts with a position in the named file: "NAME:LINE:COL: ".
func positioned(name string) *regexp.Regexp {
	return regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `:\d+:\d+: \S`)
}

// TestTruncatedCorpus cuts every corpus module that verifies at many points before the end of its entry
// computation, as an interrupted dump or copy does, and checks that verify rejects every cut with a
// positioned error (or, for a cut that leaves no module at all, says so) and never says ok.
func TestTruncatedCorpus(t *testing.T) {
	dir := t.TempDir()
	files, cuts, sizes := 0, 0, int64(0)
	for _, sub := range []string{"hlo", "hlo-roundtrip", "fp8"} {
		names, _ := filepath.Glob(filepath.Join(shared.Path(t, "corpus", sub), "*.hlo"))
		gz, _ := filepath.Glob(filepath.Join(shared.Path(t, "corpus", sub), "*.hlo.gz"))
		names = append(names, gz...)
		for _, name := range names {
			src, err := shared.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			if testing.Short() && len(src) > 1<<20 || len(src) > 8<<20 {
				continue
			}
			start, end, printed, ok := entryBounds(src)
			if !ok {
				continue
			}
			files++
			// Cut points: the start of every computation and of the entry's last lines, and points spread
			// evenly through the text.
			points := cutPoints(src, end)
			if !printed {
				// Without the header XLA prints, a module cut between computations before its entry is
				// valid HLO (the last computation is the entry): cut only inside the entry.
				points = slices.DeleteFunc(points, func(p int) bool { return p <= start })
			}
			if len(points) == 0 {
				continue
			}
			if len(src) > 256<<10 {
				// Large files cost more than they add: the cut inside the last lines and one in the middle.
				points = []int{points[len(points)/2], points[len(points)-2]}
			}
			for _, at := range points {
				cuts++
				sizes += int64(at)
				path := filepath.Join(dir, filepath.Base(strings.TrimSuffix(name, ".gz")))
				if err := os.WriteFile(path, src[:at], 0o644); err != nil {
					t.Fatal(err)
				}
				code, out, errs := runOctet(t, "", "verify", path)
				switch {
				case code != 1 || out != "":
					t.Errorf("%s cut at byte %d of %d: exit %d, stdout %q", name, at, len(src), code, out)
				case !positioned(path).MatchString(errs) && !strings.Contains(errs, ": no HLO module in "):
					t.Errorf("%s cut at byte %d: the error is not positioned:\n%s", name, at, errs)
				case strings.Contains(errs, "internal"):
					t.Errorf("%s cut at byte %d: %s", name, at, errs)
				}
			}
		}
	}
	if files < 100 {
		t.Errorf("only %d corpus files cut; the corpus should have hundreds", files)
	}
	t.Logf("%d files, %d cuts (%d MB parsed)", files, cuts, sizes>>20)
}

// entryBounds returns the offsets of the start of the entry computation of src and of its closing brace,
// and whether the header is the one XLA prints (with entry_computation_layout). src must hold one module
// that verifies: any cut before the brace leaves an invalid module, or, without XLA's header, one cut
// before the entry that is valid by XLA's rules.
func entryBounds(src []byte) (start, end int, printed, ok bool) {
	mods, err := parser.ParseFile(token.NewFileSet(), "x.hlo", src)
	if err != nil || len(mods) != 1 || hlo.Verify(mods[0]) != nil {
		return 0, 0, false, false
	}
	m := mods[0]
	start = m.Position(m.Entry.Pos).Offset
	if start <= 0 || !bytes.HasPrefix(src[start:], []byte("ENTRY")) {
		return 0, 0, false, false
	}
	next := len(src)
	for _, c := range m.Computations {
		if off := m.Position(c.Pos).Offset; off > start && off < next {
			next = off
		}
	}
	// The closing brace starts a line (comments after it may hold braces of their own).
	end = bytes.LastIndex(src[:next], []byte("\n}"))
	return start, end + 1, m.EntryComputationLayout() != nil, end > start
}

// cutPoints picks where to cut src, all before end.
func cutPoints(src []byte, end int) []int {
	set := map[int]bool{0: true, end: true, end - 1: true}
	for i := 1; i < 8; i++ {
		set[end*i/8] = true
	}
	// The start of the last lines before the closing brace, and the first line break after the start.
	at := end
	for range 3 {
		if i := bytes.LastIndexByte(src[:at], '\n'); i > 0 {
			set[i+1] = true
			at = i
		}
	}
	if i := bytes.IndexByte(src, '\n'); i > 0 && i < end {
		set[i+1] = true
	}
	var points []int
	for p := range set {
		if p >= 0 && p <= end {
			points = append(points, p)
		}
	}
	sort.Ints(points)
	return points
}

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
// positioned error (or, for a cut that leaves no module at all, says so).
//
// A cut between two computations before the entry leaves a module without ENTRY, which XLA's parser reads
// (its last computation is the entry). For a module XLA printed, verify then warns that the header's
// entry_computation_layout came with no ENTRY, and checks that layout against the computation taken as the
// entry: a cut module fails that check unless the computation it ends with has the entry's signature,
// when XLA too would take it for the program; the warning must be there either way.
func TestTruncatedCorpus(t *testing.T) {
	dir := t.TempDir()
	files, cuts, sizes := 0, 0, int64(0)
	boundaryCuts, fitting := 0, 0
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
			start, end, printed, boundaries, ok := entryBounds(src)
			if !ok {
				continue
			}
			files++
			// Cut points: the start of every computation and of the entry's last lines, and points spread
			// evenly through the text.
			points := cutPoints(src, end)
			boundary := map[int]bool{}
			for _, b := range boundaries {
				boundary[b] = true
				if !slices.Contains(points, b) {
					points = append(points, b)
				}
			}
			sort.Ints(points)
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
				if printed && boundary[at] {
					// Whole computations, the entry lost.
					boundaryCuts++
					if !strings.Contains(errs, ": warning: module ") || !strings.Contains(errs, "but no ENTRY computation") {
						t.Errorf("%s cut at byte %d, between computations: no warning that the ENTRY is missing:\n%s", name, at, errs)
					}
					if code == 0 {
						fitting++
						continue
					}
				}
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
	t.Logf("%d files, %d cuts (%d MB parsed); %d cuts between computations of printed modules, %d of them ending with a computation of the entry's signature",
		files, cuts, sizes>>20, boundaryCuts, fitting)
}

// entryBounds returns the offsets of the start of the entry computation of src and of its closing brace,
// whether the header is the one XLA prints (with entry_computation_layout), and the starts of the
// computations after the first and up to the entry, where a cut leaves whole computations. src must hold
// one module that verifies: any cut before the brace leaves an invalid module, or one cut between
// computations before the entry, which is valid by XLA's rules when its last computation fits the
// header (or there is no header).
func entryBounds(src []byte) (start, end int, printed bool, boundaries []int, ok bool) {
	mods, err := parser.ParseFile(token.NewFileSet(), "x.hlo", src)
	if err != nil || len(mods) != 1 || hlo.Verify(mods[0]) != nil {
		return 0, 0, false, nil, false
	}
	m := mods[0]
	start = m.Position(m.Entry.Pos).Offset
	if start <= 0 || !bytes.HasPrefix(src[start:], []byte("ENTRY")) {
		return 0, 0, false, nil, false
	}
	next := len(src)
	first := start
	for _, c := range m.Computations {
		off := m.Position(c.Pos).Offset
		if off > start && off < next {
			next = off
		}
		first = min(first, off)
	}
	for _, c := range m.Computations {
		if off := m.Position(c.Pos).Offset; off > first && off <= start {
			boundaries = append(boundaries, off)
		}
	}
	// The closing brace starts a line (comments after it may hold braces of their own).
	end = bytes.LastIndex(src[:next], []byte("\n}"))
	return start, end + 1, m.EntryComputationLayout() != nil, boundaries, end > start
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

// TestNoEntryTakesTheLast reads a module XLA printed whose computations are not marked ENTRY, as XLA's
// multihost runner test data has them: as XLA's parser does, every command takes the last computation as
// the entry, with a warning, and verify checks the header's layout against it.
func TestNoEntryTakesTheLast(t *testing.T) {
	const body = "\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\n" +
		"main {\n  x = f32[8] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[] reduce(x, z), dimensions={0}, to_apply=add\n}\n"
	dir := t.TempDir()
	good := writeTemp(t, dir, "good.hlo", "HloModule runner, entry_computation_layout={(f32[8]{0})->f32[]}\n"+body)
	warning := good + ":9:1: warning: module runner has entry_computation_layout in its header but no ENTRY computation: its last computation, %main, is taken as the entry"
	for _, args := range [][]string{{"verify", good}, {"print", good}, {"check", good}, {"run", "--random", "1", good}} {
		code, out, errs := runOctet(t, "", args...)
		if code != 0 || !strings.Contains(errs, warning) || strings.Count(errs, "warning:") != 1 {
			t.Errorf("%s: exit %d, want 0 and one warning %q:\n%s%s", args[0], code, warning, out, errs)
		}
	}
	if _, out, _ := runOctet(t, "", "print", "--format=xla", good); !strings.Contains(out, "ENTRY %main ") {
		t.Errorf("the printed module does not mark %%main ENTRY:\n%s", out)
	}
	// A header whose layout the last computation does not fit: the entry was cut off.
	cut := writeTemp(t, dir, "cut.hlo", "HloModule runner, entry_computation_layout={(f32[8]{0}, s32[])->f32[]}\n"+body)
	code, _, errs := runOctet(t, "", "verify", cut)
	if want := cut + ":1:1: entry_computation_layout has 2 parameters; the entry computation %main has 1"; code != 1 || !strings.Contains(errs, want) {
		t.Errorf("verify: exit %d, want 1 and %q:\n%s", code, want, errs)
	}
}

package xlarules_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"octet/fuse/xlarules"
	"octet/hlo"
	"octet/hlo/parser"
	"octet/internal/shared"
)

// dots parses a module and returns its dots.
func dots(t *testing.T, path string) []*hlo.Instruction {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := parser.ParseString(path, string(src))
	if err != nil {
		t.Fatal(err)
	}
	var out []*hlo.Instruction
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if in.Opcode == hlo.OpDot {
				out = append(out, in)
			}
		}
	}
	return out
}

// TestCorpusOutcomes checks XLA's verdict against the outcome of XLA's own test for every fused and
// not_fused row of corpus/fp8/expectations.tsv.
func TestCorpusOutcomes(t *testing.T) {
	dir := shared.Path(t, "corpus", "fp8")
	f, err := os.Open(filepath.Join(dir, "expectations.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	checked := 0
	sc := bufio.NewScanner(f)
	header := true
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		fields := strings.Split(line, "\t")
		if header {
			header = false
			continue
		}
		file, outcome, note := fields[1], fields[2], fields[len(fields)-1]
		if outcome != "fused" && outcome != "not_fused" {
			continue
		}
		checked++
		t.Run(file, func(t *testing.T) {
			ds := dots(t, filepath.Join(dir, file))
			if len(ds) != 1 {
				t.Fatalf("%d dots, want 1", len(ds))
			}
			v := xlarules.Decide(ds[0])
			if v.Fusible != (outcome == "fused") {
				t.Errorf("fusible = %v (%s), XLA's test says %s: %s", v.Fusible, v.Why, outcome, note)
			}
			if v.Why == "" {
				t.Error("no why")
			}
			if v.Bug != "" {
				t.Errorf("a bug reported on a case XLA handles: %s", v.Bug)
			}
		})
	}
	if checked == 0 {
		t.Fatal("no fused or not_fused rows in expectations.tsv")
	}
}

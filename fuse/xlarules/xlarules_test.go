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

// TestCorpusOutcomes checks XLA's verdict against the outcome of XLA's own test for every row of
// corpus/fp8/expectations.tsv: fused and not_fused as listed; the numerics rows are XLA's tests of the
// numerics of the FP8 call (a non-major batch dimension, a large f32 GEMM), for which it makes one.
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
		if outcome == "numerics" {
			outcome = "fused"
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
		t.Fatal("no rows in expectations.tsv")
	}
}

// TestCollectivesUnderSPMD checks that an all-gather between the dequantize and the dot commutes only in an
// SPMD-partitioned module, as XLA's matcher says.
func TestCollectivesUnderSPMD(t *testing.T) {
	src := func(header string) string {
		return header + `

ENTRY main {
  a = f8e4m3fn[16,64] parameter(0)
  b = f8e4m3fn[48,64] parameter(1)
  af = f32[16,64] convert(a)
  ag = f32[32,64] all-gather(af), dimensions={0}, replica_groups={{0,1}}
  bf = f32[48,64] convert(b)
  ROOT d = f32[32,48] dot(ag, bf), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}
`
	}
	for _, c := range []struct {
		header  string
		fusible bool
	}{
		{"HloModule spmd, num_partitions=2", true},
		{"HloModule mpmd", false},
	} {
		m, err := parser.ParseString("spmd.hlo", src(c.header))
		if err != nil {
			t.Fatal(err)
		}
		var dot *hlo.Instruction
		for _, in := range m.Entry.Instructions {
			if in.Opcode == hlo.OpDot {
				dot = in
			}
		}
		v := xlarules.Decide(dot)
		if v.Fusible != c.fusible || !c.fusible && !strings.Contains(v.Why, "only in an SPMD-partitioned module") {
			t.Errorf("%s: %+v", c.header, v)
		}
	}
}

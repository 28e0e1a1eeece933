package stablehlo

import (
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"octet/internal/shared"
)

// program is one StableHLO text to walk.
type program struct {
	name string
	src  []byte
}

// everyProgram returns the StableHLO programs of the repository (testdata) and of ../shared: the examples,
// both StableHLO archives, and every case of XLA's translation and Shardy tests.
func everyProgram(t *testing.T) []program {
	var out []program
	local, _ := filepath.Glob(filepath.Join("testdata", "*.mlir"))
	ours, _ := filepath.Glob(filepath.Join("..", "examples", "*.mlir"))
	local = append(local, ours...)
	for _, p := range local {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, program{p, src})
	}
	dir := shared.Find()
	if dir == "" {
		return out
	}
	ex, _ := filepath.Glob(filepath.Join(dir, "examples", "*.mlir"))
	for _, p := range ex {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, program{p, src})
	}
	for _, a := range []string{"testdata.tar.gz", "interpret.tar.gz"} {
		for _, f := range readArchive(t, a) {
			for _, p := range splitInput(f) {
				out = append(out, program{p.name, p.src})
			}
		}
	}
	_ = filepath.WalkDir(filepath.Join(dir, "corpus", "xla-translate"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".mlir") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, chunk := range strings.Split(string(src), "\n// -----") {
			out = append(out, program{p + "#" + string(rune('0'+i%10)), []byte(chunk)})
		}
		return nil
	})
	return out
}

// TestEveryAttributeAccounted walks every StableHLO program of the repository and of ../shared: each
// program converts or is refused with a positioned error, and in what converts, every attribute of every
// op the conversion converted is converted (read), reported by name, or one XLA's translation drops too
// (droppedLikeXLA) — none is dropped silently.
func TestEveryAttributeAccounted(t *testing.T) {
	progs := everyProgram(t)
	if shared.Find() == "" {
		// The repository's own programs are walked all the same; the corpus's are what the test is for.
		defer shared.Missing(t, "the reference material ../shared (or $OCTET_SHARED), whose StableHLO programs this test walks, is not beside this checkout")
	} else if len(progs) < 1000 {
		t.Fatalf("only %d programs found", len(progs))
	}
	converted, refused, attrs, read, noted, dropped := 0, 0, 0, 0, 0, 0
	notedNames := map[string]int{}
	for _, pr := range progs {
		fset := token.NewFileSet()
		f, err := Parse(fset, pr.name, pr.src)
		if err != nil {
			refused++
			continue
		}
		for _, m := range f.Modules {
			if _, _, err := convertModule(fset, f, m, "", false); err != nil {
				refused++
				if !strings.HasPrefix(err.Error(), pr.name+":") {
					t.Errorf("%s: refused without a position: %v", pr.name, err)
				}
				continue
			}
			converted++
			var walk func(r *Region)
			walk = func(r *Region) {
				for _, b := range r.Blocks {
					for _, op := range b.Ops {
						for _, inner := range op.Regions {
							walk(inner)
						}
						if op.used == nil || !op.used.converted {
							continue // not converted: in a function the entry does not call
						}
						for _, a := range op.Attrs {
							if strings.HasPrefix(a.Name, "@") {
								continue
							}
							attrs++
							switch _, drop := droppedLikeXLA[a.Name]; {
							case op.wasNoted(a.Name):
								noted++
								notedNames[op.Name+" "+a.Name]++
							case op.wasUsed(a.Name):
								read++
							case drop:
								dropped++
							default:
								t.Errorf("%s: %s: attribute %s of %s was dropped silently", pr.name, fset.Position(op.Pos), a.Name, op.Name)
							}
						}
					}
				}
			}
			for _, fn := range m.Funcs {
				if fn.Body != nil {
					walk(fn.Body)
				}
			}
		}
	}
	var names []string
	for n, k := range notedNames {
		names = append(names, n+" ×"+itoa(k))
	}
	sort.Strings(names)
	t.Logf("%d programs: %d modules converted, %d refused with a positioned error; %d attributes of converted ops: %d converted, %d reported by name, %d dropped as XLA drops them",
		len(progs), converted, refused, attrs, read, noted, dropped)
	t.Logf("reported: %s", strings.Join(names, ", "))
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

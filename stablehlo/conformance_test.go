package stablehlo

import (
	"bytes"
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"octet/hlo"
	"octet/hlo/printer"
	"octet/internal/shared"
)

// XLA's own FileCheck tests of its translation (../shared/corpus/xla-translate), run against Octet's
// conversion: each case of a file (the text between "// -----" lines) is converted and printed as XLA's
// translation prints HLO, and its check lines are matched against that text. Cases that expect a
// diagnostic pass when the conversion refuses them.

// translateSuite is a test file whose cases run against Octet's HLO, with the check prefixes of its RUN
// line and the print options of the tool it runs.
type translateSuite struct {
	path          string
	prefixes      []string
	operandShapes bool // the tool prints operand shapes (xla-translate --print-sugar=false)
}

var translateSuites = []translateSuite{
	{"xla/hlo/translate/mhlo_to_hlo/tests/export.mlir", []string{"CHECK"}, true},
	{"xla/hlo/translate/mhlo_to_hlo/tests/sharding.mlir", []string{"CHECK"}, false},
	{"xla/hlo/translate/tests/stablehlo.mlir", []string{"CHECK"}, false},
}

// translateNotInScope are the files of the corpus whose checks do not describe HLO that Octet writes,
// with the reason; their inputs are read by TestShardyInputs where they are MLIR.
var translateNotInScope = map[string]string{
	"xla/hlo/translate/hlo_to_mhlo/tests/fusion.hlo":                "HLO to MLIR: Octet reads MLIR and writes HLO, not the other way",
	"xla/hlo/translate/hlo_to_mhlo/tests/import.hlo":                "HLO to MLIR: Octet reads MLIR and writes HLO, not the other way",
	"xla/hlo/translate/hlo_to_mhlo/tests/import_emit_stablehlo.hlo": "HLO to MLIR: Octet reads MLIR and writes HLO, not the other way",
	"xla/service/spmd/shardy/test/":                                 "Shardy's passes rewrite MLIR into MLIR; Octet converts the result into HLO and prints no MLIR, so their checks (MLIR text) have nothing to match. TestShardyInputs reads every case and compares the HLO shardings the export checks state",
	"xla/hlo/translate/tests/stablehlo.mlir CHECK-DIRECT":           "mlir-hlo-opt's StableHLO-to-MHLO pass writes MLIR",
	"xla/hlo/translate/mhlo_to_hlo/tests/export.mlir --via-builder": "the same checks as the first RUN line, through XLA's other export path",
}

// translateNotDone are cases Octet deliberately converts otherwise than the check expects, with the
// reason. A case listed here that passes is reported, so that the list stays true.
var translateNotDone = func() map[string]string {
	m := map[string]string{}
	add := func(why string, cases ...string) {
		for _, c := range cases {
			m[c] = why
		}
	}
	add("the check names an instruction by XLA's own numbering, which differs between XLA's versions (other "+
		"cases of these files number add.1 where this one says add.3); Octet numbers as the newest files do",
		"stablehlo.mlir#0", "export.mlir#18", "export.mlir#19", "export.mlir#98", "export.mlir#114", "export.mlir#119",
		"sharding.mlir#5", "sharding.mlir#6")
	add("XLA gives every op the location the MLIR parser records (file, line, column) and prints it as metadata; "+
		"Octet writes metadata only from the locations the text states", "stablehlo.mlir#1")
	add("XLA's translation writes add on i1 as xor; the StableHLO specification defines it as logical or, "+
		"which Octet keeps", "export.mlir#1")
	add("XLA's translation passes the operands of a variadic all-gather or all-reduce through a tuple it takes "+
		"apart again; Octet passes them to the instruction directly", "export.mlir#7", "export.mlir#11")
	add("XLA's translation makes one computation per call of a function; Octet calls one computation from every "+
		"call site", "export.mlir#22")
	add("an MHLO op without a StableHLO counterpart, which JAX does not print (arith.constant, stochastic_convert, "+
		"cross-replica-sum, sparse_dot, einsum, domain)",
		"export.mlir#27", "export.mlir#33", "export.mlir#35", "export.mlir#75", "export.mlir#76", "export.mlir#136")
	add("XLA's translation turns the ragged_all_to_all custom call into its ragged-all-to-all instruction; Octet "+
		"keeps custom calls as written", "export.mlir#37")
	for i := 38; i <= 65; i++ {
		add("XLA's translation expands the ApproxTopK custom call (into a sort, or a PartialReduce call) and "+
			"refuses backend configs it does not accept; Octet keeps custom calls as written",
			fmt.Sprintf("export.mlir#%d", i))
	}
	add("dynamic shapes (set_dimension_size, bounded, unbounded or unranked tensor types): Octet converts "+
		"programs with static shapes and refuses the others with a positioned error",
		"export.mlir#80", "export.mlir#81", "export.mlir#111", "export.mlir#125", "export.mlir#126", "export.mlir#150")
	add("XLA's translation returns a sharded entry result through a tuple and a get-tuple-element, and a "+
		"parameter returned as such through a reshape, to hold the sharding; Octet shards the root itself",
		"sharding.mlir#1", "sharding.mlir#2", "sharding.mlir#15", "sharding.mlir#16")
	add("XLA's translation carries the shardings of a while's or conditional's operands into the parameters "+
		"and roots of its regions, and gives each branch only the values it uses; Octet shards the op itself",
		"sharding.mlir#7", "sharding.mlir#8", "sharding.mlir#9", "sharding.mlir#10", "sharding.mlir#11",
		"sharding.mlir#12", "sharding.mlir#13", "sharding.mlir#14")
	add("XLA's translation spreads the sharding of an infeed, a recv or a variadic op over the nested tuples "+
		"of the instructions it makes; Octet shards the instruction that gives the op's results",
		"sharding.mlir#17", "sharding.mlir#18", "sharding.mlir#19")
	return m
}()

// translateCase is one case of a suite.
type translateCase struct {
	name   string
	src    string
	checks []check
	errors bool // the case expects the translation to refuse it
}

// translateCases splits a suite's file into its cases.
func translateCases(t *testing.T, root string, s translateSuite) []translateCase {
	data, err := os.ReadFile(filepath.Join(root, s.path))
	if err != nil {
		t.Fatal(err)
	}
	var out []translateCase
	for i, chunk := range strings.Split(string(data), "\n// -----") {
		c := translateCase{name: fmt.Sprintf("%s#%d", filepath.Base(s.path), i), src: chunk}
		c.checks = parseChecks(chunk, s.prefixes)
		c.errors = strings.Contains(chunk, "expected-error")
		if len(c.checks) == 0 && !c.errors {
			continue // a case without checks tests nothing here (the file's other RUN lines check it)
		}
		out = append(out, c)
	}
	return out
}

// runTranslateCase converts a case and matches its checks; nil when it passes.
func runTranslateCase(c translateCase, s translateSuite) error {
	mods, _, err := ParseFileNotes(token.NewFileSet(), "case.mlir", []byte(c.src))
	if c.errors {
		if err == nil {
			return fmt.Errorf("converted a case XLA's translation refuses")
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("conversion: %v", firstLine(err.Error()))
	}
	cfg := printer.ConfigFor(printer.StyleXLA)
	cfg.IncludeLayoutInShapes = false
	cfg.PrintOperandShape = s.operandShapes
	cfg.PrintMetadata = false
	var b bytes.Buffer
	for _, m := range mods {
		if err := printer.Fprint(&b, m, cfg); err != nil {
			return err
		}
	}
	if os.Getenv("OCTET_SHOW_CASE") == c.name {
		fmt.Println(b.String())
	}
	if err := fileCheck(b.String(), c.checks); err != nil {
		return fmt.Errorf("%v", err)
	}
	return nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// TestXLATranslate runs XLA's translation tests: it prints the pass rate of the cases in scope, lists
// every failure with its reason, and holds the rate to a floor.
func TestXLATranslate(t *testing.T) {
	root := shared.Path(t, "corpus", "xla-translate")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("skipped: %v", err)
	}
	total, pass, notDone := 0, 0, 0
	var failures []string
	for _, s := range translateSuites {
		for _, c := range translateCases(t, root, s) {
			err := runTranslateCase(c, s)
			if why, ok := translateNotDone[c.name]; ok {
				notDone++
				if err == nil {
					t.Errorf("%s passes, but is listed as not done (%s)", c.name, why)
				}
				continue
			}
			total++
			if err == nil {
				pass++
				continue
			}
			failures = append(failures, c.name+": "+err.Error())
		}
	}
	sort.Strings(failures)
	for _, f := range failures {
		t.Log("FAIL " + f)
	}
	rate := 100 * float64(pass) / float64(max(total, 1))
	t.Logf("XLA translation tests: %d of %d cases in scope pass (%.1f%%); %d listed as not done", pass, total, rate, notDone)
	for path, why := range translateNotInScope {
		t.Logf("not in scope: %s: %s", path, why)
	}
	if rate < 90 {
		t.Errorf("%.1f%% of the cases in scope pass; at least 90%% did", rate)
	}
}

// shardyExportFiles are the Shardy test files whose checks state the HLO shardings XLA's export gives,
// with the check prefixes of the HloSharding form Octet writes (V2, XLA's default; V3 is an opt-in form).
var shardyExportFiles = map[string][]string{
	"stablehlo_export_pipeline.mlir":      {"CHECK", "CHECK-V2"},
	"sdy_round_trip_export_pipeline.mlir": {"CHECK"},
}

var (
	checkedSharding  = regexp.MustCompile(`mhlo\.sharding = "([^"]*)"`)
	labelFunc        = regexp.MustCompile(`CHECK-LABEL:\s*func(?:\.func)?(?: private| public)? @([A-Za-z0-9_.$-]+)`)
	shardingMetadata = regexp.MustCompile(` metadata=\{[^{}]*\}`)
	argIndex         = regexp.MustCompile(`%arg([0-9]+):`)
	shardingCheckPfx = regexp.MustCompile(`//\s*([A-Z0-9-]+?)(?:-NEXT|-SAME|-DAG|-LABEL|-NOT)?(?:\{LITERAL\})?:`)
)

// TestShardyInputs reads every case of XLA's Shardy tests (../shared/corpus/xla-translate's
// xla/service/spmd/shardy/test): each converts, or is refused with a positioned error, never a crash. Where
// a test states the HLO sharding XLA's export gives an argument, a result or an op of a function, the
// function converted as the entry must give the same.
func TestShardyInputs(t *testing.T) {
	root := shared.Path(t, "corpus", "xla-translate", "xla", "service", "spmd", "shardy", "test")
	files, err := filepath.Glob(filepath.Join(root, "*.mlir"))
	if err != nil || len(files) == 0 {
		t.Skipf("skipped: no Shardy tests under %s", root)
	}
	cases, converted, compared, agree := 0, 0, 0, 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		base := filepath.Base(path)
		for i, chunk := range strings.Split(string(data), "\n// -----") {
			cases++
			name := fmt.Sprintf("%s#%d", base, i)
			fset := token.NewFileSet()
			f, err := Parse(fset, "case.mlir", []byte(chunk))
			if err != nil {
				if !positionedCase.MatchString(err.Error()) {
					t.Errorf("%s: error without a position: %v", name, err)
				}
				t.Logf("%s: not read: %v", name, firstLine(err.Error()))
				continue
			}
			if _, _, err := ParseFileNotes(token.NewFileSet(), "case.mlir", []byte(chunk)); err != nil {
				if !positionedCase.MatchString(err.Error()) {
					t.Errorf("%s: error without a position: %v", name, err)
				}
				t.Logf("%s: not converted: %v", name, firstLine(err.Error()))
			} else {
				converted++
			}
			prefixes, ok := shardyExportFiles[base]
			if !ok || len(f.Modules) == 0 {
				continue
			}
			// Only the public functions: a private one is a callee, whose shardings depend on where it is
			// called (inside a manual computation, its axes are manual).
			defined := map[string]bool{}
			for _, fn := range f.Modules[0].Funcs {
				defined[fn.Name] = fn.Visibility != "private"
			}
			for fn, want := range expectedShardings(chunk, prefixes) {
				if !defined[fn] {
					continue // a function XLA's export makes (the body of a manual computation)
				}
				m, _, err := convertModule(fset, f, f.Modules[0], fn, false)
				if err != nil {
					t.Errorf("%s: @%s as the entry: %v", name, fn, err)
					continue
				}
				got := map[string]bool{}
				params := map[int]string{}
				for _, comp := range m.Computations {
					for _, in := range comp.Instructions {
						if s, ok := in.Attr("sharding").(*hlo.Sharding); ok {
							got[s.Text] = true
							for _, e := range s.Tuple {
								got[e.Text] = true
							}
							if comp == m.Entry && in.Opcode == hlo.OpParameter {
								params[int(in.ParameterNumber)] = s.Text
							}
						}
					}
				}
				for _, w := range want {
					compared++
					ok := got[w.sharding]
					if w.param >= 0 {
						ok = params[w.param] == w.sharding
					}
					if ok {
						agree++
						continue
					}
					t.Logf("DIFFERS %s: @%s: %s: XLA's export gives %s", name, fn, w.what, w.sharding)
				}
			}
		}
	}
	t.Logf("Shardy tests: %d cases, %d read and converted; %d HLO shardings of XLA's export checks compared, %d agree", cases, converted, compared, agree)
	if compared < 50 || agree*100 < compared*80 {
		t.Errorf("%d of %d shardings agree; at least 80%% of 50 or more did", agree, compared)
	}
}

var positionedCase = regexp.MustCompile(`^case\.mlir:\d+:\d+: `)

// expectedSharding is one HLO sharding a Shardy export check states.
type expectedSharding struct {
	what     string
	param    int // the parameter it belongs to; -1 for a result or an op
	sharding string
}

// expectedShardings returns, by function, the HLO shardings a chunk's check lines state for the given
// prefixes: of arguments (%argN: ... {mhlo.sharding = "..."}), and of results and ops (any other).
func expectedShardings(chunk string, prefixes []string) map[string][]expectedSharding {
	out := map[string][]expectedSharding{}
	fn := ""
	for _, line := range strings.Split(chunk, "\n") {
		m := shardingCheckPfx.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		ok := false
		for _, p := range prefixes {
			ok = ok || m[1] == p
		}
		if !ok {
			continue
		}
		if l := labelFunc.FindStringSubmatch(line); l != nil {
			fn = l[1]
		}
		if fn == "" || strings.Contains(line, "{{") && !strings.Contains(line, "{LITERAL}") || strings.Contains(line, "[[") {
			continue
		}
		args := argIndex.FindAllStringSubmatchIndex(line, -1)
		for _, s := range checkedSharding.FindAllStringSubmatchIndex(line, -1) {
			// XLA notes the reduction of unreduced axes as metadata, which Octet does not write.
			text := shardingMetadata.ReplaceAllString(line[s[2]:s[3]], "")
			e := expectedSharding{what: "an op or result", param: -1, sharding: text}
			arrow := strings.LastIndex(line[:s[0]], "->")
			for _, a := range args {
				if a[0] < s[0] && a[0] > arrow {
					n, _ := strconv.Atoi(line[a[2]:a[3]])
					e.param, e.what = n, "argument "+line[a[2]:a[3]]
				}
			}
			out[fn] = append(out[fn], e)
		}
	}
	return out
}

// expectedError is "expected-error@+N {{message}}" of a case.
var expectedError = regexp.MustCompile(`expected-error@\+(\d+) \{\{(.*)\}\}`)

// TestJAXConstructs runs the cases of testdata/translate (what JAX prints that XLA's translation tests do
// not show) as TestXLATranslate runs XLA's: the converted HLO must match each case's checks, and a case
// with an expected-error must be refused with that message at the line it names.
func TestJAXConstructs(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "translate", "*.mlir"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases in testdata/translate: %v", err)
	}
	suite := translateSuite{prefixes: []string{"CHECK"}, operandShapes: true}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, chunk := range strings.Split(string(data), "\n// -----") {
			name := fmt.Sprintf("%s#%d", filepath.Base(path), i)
			t.Run(name, func(t *testing.T) {
				c := translateCase{name: name, src: chunk, checks: parseChecks(chunk, suite.prefixes)}
				lines := strings.Split(chunk, "\n")
				for k, line := range lines {
					m := expectedError.FindStringSubmatch(line)
					if m == nil {
						continue
					}
					off, _ := strconv.Atoi(m[1])
					want := fmt.Sprintf("case.mlir:%d:", k+1+off)
					_, err := ParseFile(token.NewFileSet(), "case.mlir", []byte(chunk))
					if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), m[2]) {
						t.Errorf("got %v, want %s ... %s", err, want, m[2])
					}
					return
				}
				if len(c.checks) == 0 {
					t.Fatal("a case without checks or an expected error")
				}
				if _, err := ParseFile(token.NewFileSet(), "case.mlir", []byte(chunk)); err != nil {
					t.Fatalf("conversion: %v", err)
				}
				if err := runTranslateCase(c, suite); err != nil {
					t.Error(err)
				}
			})
		}
	}
}

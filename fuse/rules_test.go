package fuse

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"octet/fuse/match"
	"octet/hlo"
	"octet/hlo/parser"
	"octet/internal/shared"
)

// ruleInputs are the modules the rule table is checked against: the FP8 corpus, the examples and this
// package's test data.
func ruleInputs(t *testing.T) []*hlo.Module {
	t.Helper()
	corpus, _ := filepath.Glob(shared.Path(t, "corpus", "fp8", "*.hlo"))
	examples, _ := filepath.Glob(shared.Path(t, "examples", "*.before.hlo"))
	local, _ := filepath.Glob(filepath.Join("testdata", "*.hlo"))
	files := slices.Concat(corpus, examples, local)
	if len(corpus) == 0 || len(local) == 0 {
		t.Fatalf("no inputs: %d corpus files, %d test data files", len(corpus), len(local))
	}
	var mods []*hlo.Module
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := parser.ParseString(f, string(src))
		if err != nil {
			t.Fatal(err)
		}
		mods = append(mods, m)
	}
	return mods
}

func TestRuleTable(t *testing.T) {
	names := map[string]bool{}
	for _, r := range rules {
		if names[r.name] {
			t.Errorf("two rules are named %q", r.name)
		}
		names[r.name] = true
		if r.effect == "" || r.Short() == "" || r.String() == "" {
			t.Errorf("rule %q: empty effect or pattern", r.name)
		}
	}
	if got, want := ruleVectorBias.Short(), "add(D, broadcast(vector))"; got != want {
		t.Errorf("vector-bias prints as %q, want %q", got, want)
	}
	if got, want := dequantizePattern(2, ruleInverseScale).Short(), "divide(convert(convert(FP8)), broadcast(scalar))"; got != want {
		t.Errorf("a dequantize with two converts prints as %q, want %q", got, want)
	}
}

// TestRulesExercised checks that every rule of the table is matched by at least one test input, and that
// the rewrite matches with no rule outside the table.
func TestRulesExercised(t *testing.T) {
	used := map[*rule]int{}
	for _, m := range ruleInputs(t) {
		for _, c := range m.Computations {
			for _, in := range c.Instructions {
				if in.Opcode != hlo.OpDot {
					continue
				}
				p, _ := analyze(in, map[*hlo.Instruction]*hlo.Instruction{}, nil)
				if p == nil {
					continue
				}
				var all []*rule
				for _, op := range []*operand{p.a, p.b} {
					if op != nil {
						all = append(all, op.used...)
					}
				}
				if p.epi != nil {
					all = append(all, p.epi.used...)
				}
				for _, r := range all {
					used[r]++
				}
			}
		}
	}
	for _, r := range rules {
		if used[r] == 0 {
			t.Errorf("rule %q (%s) is matched by no test input", r.name, r.Short())
		}
	}
	for r := range used {
		if !slices.Contains(rules, r) {
			t.Errorf("rule %q is matched with but missing from the table", r.name)
		}
	}
}

// TestExplainBrackets checks that every pattern --explain prints in brackets is a rule of the table, or
// for an operand the composition of the dequantize's rules.
func TestExplainBrackets(t *testing.T) {
	known := map[string]bool{}
	for _, r := range rules {
		known[r.Short()] = true
	}
	for n := range 4 {
		for _, s := range []*rule{nil, ruleScale, ruleInverseScale, ruleConvertedScale} {
			known[dequantizePattern(n, s).Short()] = true
		}
	}
	bracket := regexp.MustCompile(`\[([A-Za-z][^\]]*)\]`)
	seen := 0
	for _, m := range ruleInputs(t) {
		for _, d := range Analyze(m).Decisions {
			for _, line := range d.Explain {
				for _, b := range bracket.FindAllStringSubmatch(line, -1) {
					seen++
					if !known[b[1]] {
						t.Errorf("%s: %%%s: --explain prints [%s], which is no rule of the table", m.Name, d.Dot, b[1])
					}
				}
			}
		}
	}
	if seen < 100 {
		t.Errorf("only %d pattern brackets in the explanations of the test inputs", seen)
	}
}

// TestRuleOpcodes checks the quick test of rule.match: on every instruction of the rule inputs, each rule's
// pattern (made with any x) matches only instructions of the opcodes it keeps, so that ruling the others
// out first changes no match. Rules that take any opcode are counted apart.
func TestRuleOpcodes(t *testing.T) {
	filtered, matched := 0, 0
	for _, m := range ruleInputs(t) {
		for _, c := range m.Computations {
			for _, in := range c.Instructions {
				for _, r := range rules {
					if !match.Match(in, r.pattern(match.Op(), &captures{})) {
						continue
					}
					matched++
					if !r.match(in, match.Op(), &captures{}) {
						t.Errorf("%s: rule %s matches %%%s (%s), but its quick test rules it out (opcodes %v)", m.Name, r.name, in.Name, in.Opcode, r.opcodes)
					}
				}
			}
		}
	}
	for _, r := range rules {
		if r.opcodes != nil {
			filtered++
		}
	}
	if filtered == 0 || matched == 0 {
		t.Errorf("%d rules with opcodes, %d matches: the test shows nothing", filtered, matched)
	}
	t.Logf("%d of %d rules have opcodes; %d matches checked", filtered, len(rules), matched)
}

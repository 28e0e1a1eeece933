package report

import (
	"fmt"

	"octet/fuse/xlarules"
	"octet/hlo"
)

// PassFinding is what happened to one FP8 GEMM along a pass sequence: the first pass after which XLA's
// FP8 GEMM rewriter could no longer fuse it (its rules stopped matching, or another pass claimed the dot),
// or the pass that fused it.
type PassFinding struct {
	// GEMM names the GEMM in the first dump that has it, Key and Source as check gives them.
	GEMM   string `json:"gemm"`
	Key    string `json:"key"`
	Source string `json:"source,omitempty"`
	// Broken is set when a pass broke the fusion: Pass and Step name it, File is its dump, What says what
	// changed (XLA's rule that now fails, or what claimed the dot).
	Broken bool   `json:"broken"`
	Pass   string `json:"pass,omitempty"`
	Step   int    `json:"step"`
	File   string `json:"file,omitempty"`
	What   string `json:"what"`
	// Fused names the pass that made the FP8 call, when one did.
	Fused string `json:"fused_by,omitempty"`
	// Then says what became of the dot after the pass that broke the fusion: the pass that claimed it.
	Then string `json:"then,omitempty"`
}

// state is where a GEMM stands in one dump, for XLA's FP8 rewrite.
func state(g *GEMM) string {
	switch {
	case g.Fused:
		return "fused"
	case g.Kind == "dot" && g.XLA.Fusible:
		return "fusible"
	case g.Kind == "dot":
		return "not fusible"
	case g.Kind == "block-scaled" && g.XLA.Fusible:
		// Block-scaled GEMMs: XLA makes the block-scaled kernel (on Blackwell), or does not.
		return "fusible"
	case g.Kind == "block-scaled":
		return "not fusible"
	}
	return "claimed"
}

// Passes walks the dumps of one module in pass order and says, for every FP8 GEMM, the first pass after
// which XLA's rules no longer fuse it, or after which another pass claimed it; GEMMs are followed from
// dump to dump as Diff pairs them. mods are the dumps' modules, in the same order.
func Passes(dumps []PassDump, mods []*hlo.Module) []*PassFinding {
	return PassesFor(dumps, mods, xlarules.DefaultTarget())
}

// PassesFor is Passes with XLA's rules of target.
func PassesFor(dumps []PassDump, mods []*hlo.Module, target xlarules.Target) []*PassFinding {
	if len(dumps) == 0 || len(dumps) != len(mods) {
		return nil
	}
	t := NewPassTracker(target)
	for i, d := range dumps {
		t.Add(d, mods[i])
	}
	return t.Findings()
}

// A PassTracker is Passes one dump at a time: it keeps what it has found and the report of the last dump
// added (which holds that dump's module), not the modules before, so that a folder of dumps larger than
// memory can be followed.
type PassTracker struct {
	target   xlarules.Target
	prev     *Report
	at       map[*GEMM]*PassFinding
	findings []*PassFinding
}

// NewPassTracker returns a tracker with XLA's rules of target and no dump yet.
func NewPassTracker(target xlarules.Target) *PassTracker {
	return &PassTracker{target: target}
}

// Add follows the GEMMs into d, the next dump in pass order, whose module is m. m is kept until the next
// dump is added.
func (t *PassTracker) Add(d PassDump, m *hlo.Module) {
	t.AddReport(d, t.Report(m))
}

// Report is the report of m that AddReport takes: CheckFor's, without the compile predictions, which the
// findings do not use. It changes nothing in t, so that callers may compute several dumps' reports at
// once.
func (t *PassTracker) Report(m *hlo.Module) *Report {
	r, _ := check(m, t.target, true)
	return r
}

// AddReport is Add given the dump's report, t.Report(m).
func (t *PassTracker) AddReport(d PassDump, cur *Report) {
	if t.prev == nil {
		t.first(d, cur)
		return
	}
	diff := Diff(t.prev, cur)
	next := map[*GEMM]*PassFinding{}
	for ga, f := range t.at {
		gb := diff.pairOf[ga]
		if gb == nil {
			if !f.Broken && f.Fused == "" {
				f.Broken, f.Pass, f.Step, f.File = true, d.Pass, d.Step, d.File
				f.What = "the GEMM is no longer in the module"
			}
			continue
		}
		next[gb] = f
		if f.Broken && f.Then == "" && state(gb) == "claimed" && state(ga) != "claimed" {
			f.Then = fmt.Sprintf("then claimed by %%%s (%s) after pass %s (step %04d)", gb.Name, gb.Kind, d.Pass, d.Step)
		}
		if f.Broken || f.Fused != "" {
			continue
		}
		switch state(gb) {
		case "fused":
			f.Fused, f.Step, f.File = d.Pass, d.Step, d.File
			f.What = fmt.Sprintf("fused by %s into %%%s", d.Pass, gb.Name)
		case "not fusible":
			f.Broken, f.Pass, f.Step, f.File = true, d.Pass, d.Step, d.File
			f.What = "no longer fusible by XLA's rules: " + gb.XLA.Why
		case "claimed":
			f.Broken, f.Pass, f.Step, f.File = true, d.Pass, d.Step, d.File
			f.What = fmt.Sprintf("claimed by %%%s (%s), not an FP8 call: %s", gb.Name, gb.Kind, gb.Reason)
		}
	}
	t.at = next
	t.prev = cur
}

// first starts the findings from the first dump's report.
func (t *PassTracker) first(d PassDump, r *Report) {
	t.at = map[*GEMM]*PassFinding{}
	for _, g := range r.GEMMs {
		f := &PassFinding{GEMM: g.Name, Key: g.Key, Source: g.Source, Step: d.Step}
		switch state(g) {
		case "fusible":
			f.What = "fusible by XLA's rules in " + d.File + " and after every pass dumped"
		case "fused":
			f.What, f.Fused = "already fused in "+d.File, d.Pass
		default:
			f.Broken, f.Pass, f.File = true, d.Pass, d.File
			f.What = fmt.Sprintf("not fusible by XLA's rules already in the first dump: %s", g.XLA.Why)
		}
		t.findings = append(t.findings, f)
		t.at[g] = f
	}
	t.prev = r
}

// Findings returns what the dumps added so far show, one finding per GEMM of the first dump.
func (t *PassTracker) Findings() []*PassFinding { return t.findings }

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
	prev := CheckFor(mods[0], target)
	var findings []*PassFinding
	at := map[*GEMM]*PassFinding{}
	for _, g := range prev.GEMMs {
		f := &PassFinding{GEMM: g.Name, Key: g.Key, Source: g.Source, Step: dumps[0].Step}
		switch state(g) {
		case "fusible":
			f.What = "fusible by XLA's rules in " + dumps[0].File + " and after every pass dumped"
		case "fused":
			f.What, f.Fused = "already fused in "+dumps[0].File, dumps[0].Pass
		default:
			f.Broken, f.Pass, f.File = true, dumps[0].Pass, dumps[0].File
			f.What = fmt.Sprintf("not fusible by XLA's rules already in the first dump: %s", g.XLA.Why)
		}
		findings = append(findings, f)
		at[g] = f
	}
	for i := 1; i < len(mods); i++ {
		cur := CheckFor(mods[i], target)
		d := Diff(prev, cur)
		next := map[*GEMM]*PassFinding{}
		for ga, f := range at {
			gb := d.pairOf[ga]
			if gb == nil {
				if !f.Broken && f.Fused == "" {
					f.Broken, f.Pass, f.Step, f.File = true, dumps[i].Pass, dumps[i].Step, dumps[i].File
					f.What = "the GEMM is no longer in the module"
				}
				continue
			}
			next[gb] = f
			if f.Broken && f.Then == "" && state(gb) == "claimed" && state(ga) != "claimed" {
				f.Then = fmt.Sprintf("then claimed by %%%s (%s) after pass %s (step %04d)", gb.Name, gb.Kind, dumps[i].Pass, dumps[i].Step)
			}
			if f.Broken || f.Fused != "" {
				continue
			}
			switch state(gb) {
			case "fused":
				f.Fused, f.Step, f.File = dumps[i].Pass, dumps[i].Step, dumps[i].File
				f.What = fmt.Sprintf("fused by %s into %%%s", dumps[i].Pass, gb.Name)
			case "not fusible":
				f.Broken, f.Pass, f.Step, f.File = true, dumps[i].Pass, dumps[i].Step, dumps[i].File
				f.What = "no longer fusible by XLA's rules: " + gb.XLA.Why
			case "claimed":
				f.Broken, f.Pass, f.Step, f.File = true, dumps[i].Pass, dumps[i].Step, dumps[i].File
				f.What = fmt.Sprintf("claimed by %%%s (%s), not an FP8 call: %s", gb.Name, gb.Kind, gb.Reason)
			}
		}
		at = next
		prev = cur
	}
	return findings
}

package main

import (
	"fmt"
	"io"
	"strings"

	"octet/fuse/report"
)

// writeBlockScaled prints one block-scaled GEMM of a check report: what the module holds, whether it is
// (or, inferred, becomes on Blackwell) a block-scaled kernel, and the rule that decides.
func writeBlockScaled(w io.Writer, g *report.GEMM) {
	what := "%" + esc(g.Name)
	if g.Dot != "" {
		what += " (" + "%" + esc(g.Dot) + ")"
	}
	v := g.Block
	status := "BLOCK-SCALED"
	if v != nil {
		switch {
		case v.Made && v.Seen:
			status = "block-scaled, made"
		case v.Made:
			status = "BLOCK-SCALED, made on Blackwell"
		default:
			status = "BLOCK-SCALED, NOT MADE"
		}
	}
	fmt.Fprintf(w, "  %s %s in %%%s: D %s\n", status, what, esc(g.Computation), esc(g.D))
	if g.Source != "" {
		fmt.Fprintf(w, "             from %s\n", esc(g.Source))
	}
	if v == nil {
		fmt.Fprintf(w, "             %s\n", esc(g.Reason))
		return
	}
	format := v.Format
	if format == "" {
		format = "formats not MX or NVFP4"
	}
	fmt.Fprintf(w, "             %s, %s\n", esc(v.Form), esc(format))
	fmt.Fprintf(w, "             A: %s\n             B: %s\n", operandText(g.A), operandText(g.B))
	seen := "inferred"
	if v.Seen {
		seen = "seen"
	}
	fmt.Fprintf(w, "             %s: %s\n", seen, esc(v.Why))
	if v.Call != "" && v.Made {
		fmt.Fprintf(w, "             call: %s\n", esc(v.Call))
	}
	if v.Rule != "" {
		fmt.Fprintf(w, "             rule: %s\n", esc(v.Rule))
	}
	if v.Hopper != "" {
		fmt.Fprintf(w, "             on Hopper (sm_90): %s\n", esc(v.Hopper))
	}
	if g.Octet.Why != "" && (g.Kind == "block-scaled" && !v.Made || g.Octet.Fusible) {
		fmt.Fprintf(w, "             octet fuse: %s\n", esc(strings.TrimPrefix(g.Octet.Why, "octet fuse ")))
	}
	fmt.Fprintf(w, "             rules from %s\n", esc(v.Source))
}

// blockSummary counts the block-scaled GEMMs of a report by outcome: "1 made, 2 not made".
func blockSummary(r *report.Report) string {
	made, seen := 0, 0
	for _, g := range r.GEMMs {
		if g.Kind != "block-scaled" || g.Block == nil {
			continue
		}
		if g.Block.Made {
			made++
		}
		if g.Block.Made && g.Block.Seen {
			seen++
		}
	}
	return fmt.Sprintf("%d made (%d in the module, %d by XLA's rules on Blackwell), %d not",
		made, seen, made-seen, r.BlockScaled-made)
}

// blockCount says how many block-scaled GEMMs a report has and how many the module holds as block-scaled
// kernels, for a one-line summary: "; 1 block-scaled GEMM, 1 made" ("" when it has none).
func blockCount(r *report.Report) string {
	if r.BlockScaled == 0 {
		return ""
	}
	made := 0
	for _, g := range r.GEMMs {
		if g.Kind == "block-scaled" && g.Fused {
			made++
		}
	}
	return fmt.Sprintf("; %s, %d made", plural(r.BlockScaled, "block-scaled GEMM"), made)
}

// lostNoun names what a difference lost: FP8 GEMMs that were fused, or, when every one lost is
// block-scaled, block-scaled GEMMs that were made.
func lostNoun(d *report.Difference) (noun, verb string) {
	for _, c := range d.Lost {
		if c.A == nil || c.A.Kind != "block-scaled" {
			return "FP8 GEMM", "fused"
		}
	}
	return "block-scaled GEMM", "made"
}

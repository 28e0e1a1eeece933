package report

import (
	"fmt"
	"strings"
)

// Difference compares the FP8 GEMMs of two modules, A (before) and B (after), matched by GEMM.Key: the
// parameters and shapes of their operands, not instruction names, which change from one compile to the
// next.
type Difference struct {
	// Lost are GEMMs fused in A and not fused in B (or no longer there); Gained the reverse.
	Lost   []*Change `json:"lost"`
	Gained []*Change `json:"gained"`
	// Changed are GEMMs fused in both whose call differs (epilogue, abs-max, D type, alpha, beta).
	Changed []*Change `json:"changed"`
	// Added and Removed are GEMMs not fused on either side that only one module has.
	Added   []*Change `json:"added"`
	Removed []*Change `json:"removed"`
	// Same counts the GEMMs that are the same on both sides.
	Same int `json:"same"`
}

// Change is one GEMM that differs; A or B is nil when that module does not have it.
type Change struct {
	Key  string `json:"key"`
	A    *GEMM  `json:"a,omitempty"`
	B    *GEMM  `json:"b,omitempty"`
	What string `json:"what"`
}

// Regressed reports whether some FP8 GEMM lost its fusion.
func (d *Difference) Regressed() bool { return len(d.Lost) > 0 }

// Diff matches the GEMMs of two check reports and says what was gained and lost.
func Diff(a, b *Report) *Difference {
	d := &Difference{}
	inB := map[string]*GEMM{}
	for _, g := range b.GEMMs {
		inB[g.Key] = g
	}
	matched := map[string]bool{}
	for _, ga := range a.GEMMs {
		gb := inB[ga.Key]
		matched[ga.Key] = true
		c := &Change{Key: ga.Key, A: ga, B: gb}
		switch {
		case gb == nil && ga.Fused:
			c.What = fmt.Sprintf("fused in A as %s, not found in B", summary(ga))
			d.Lost = append(d.Lost, c)
		case gb == nil:
			c.What = "not fused in A, not found in B"
			d.Removed = append(d.Removed, c)
		case ga.Fused && !gb.Fused:
			c.What = fmt.Sprintf("fused in A as %s; not fused in B: %s", summary(ga), unfusedSummary(gb))
			d.Lost = append(d.Lost, c)
		case !ga.Fused && gb.Fused:
			c.What = fmt.Sprintf("not fused in A (%s); fused in B as %s", unfusedSummary(ga), summary(gb))
			d.Gained = append(d.Gained, c)
		case ga.Fused && gb.Fused:
			if w := callDifference(ga, gb); w != "" {
				c.What = w
				d.Changed = append(d.Changed, c)
			} else {
				d.Same++
			}
		default:
			d.Same++
		}
	}
	for _, gb := range b.GEMMs {
		if matched[gb.Key] {
			continue
		}
		c := &Change{Key: gb.Key, B: gb}
		if gb.Fused {
			c.What = fmt.Sprintf("not found in A; fused in B as %s", summary(gb))
			d.Gained = append(d.Gained, c)
		} else {
			c.What = "not found in A; not fused in B: " + unfusedSummary(gb)
			d.Added = append(d.Added, c)
		}
	}
	return d
}

// summary describes a fused call in a few words: "%cublas-gemm.1 (__cublas$lt$matmul$f8, epilogue RELU,
// D f8e4m3fn, damax)".
func summary(g *GEMM) string {
	parts := []string{g.Target, "epilogue " + string(g.Epilogue), "D " + g.DType}
	if g.Damax {
		parts = append(parts, "damax")
	}
	return fmt.Sprintf("%%%s (%s)", g.Name, strings.Join(parts, ", "))
}

func unfusedSummary(g *GEMM) string {
	s := "%" + g.Name
	if g.Dot != "" {
		s += " (dot %" + g.Dot + ")"
	}
	if g.Reason != "" {
		s += ": " + g.Reason
	}
	return s
}

func callDifference(a, b *GEMM) string {
	var diffs []string
	if a.Epilogue != b.Epilogue {
		diffs = append(diffs, fmt.Sprintf("epilogue %s -> %s", a.Epilogue, b.Epilogue))
	}
	if a.Damax != b.Damax {
		diffs = append(diffs, fmt.Sprintf("damax %v -> %v", a.Damax, b.Damax))
	}
	if a.DType != b.DType {
		diffs = append(diffs, fmt.Sprintf("D %s -> %s", a.DType, b.DType))
	}
	if a.Alpha != b.Alpha {
		diffs = append(diffs, fmt.Sprintf("alpha %v -> %v", a.Alpha, b.Alpha))
	}
	if a.Beta != b.Beta {
		diffs = append(diffs, fmt.Sprintf("beta %v -> %v", a.Beta, b.Beta))
	}
	if len(diffs) == 0 {
		return ""
	}
	return fmt.Sprintf("%%%s -> %%%s: %s", a.Name, b.Name, strings.Join(diffs, ", "))
}

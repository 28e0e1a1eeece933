package report

import (
	"fmt"
	"strings"

	"octet/internal/safetext"
)

// Difference compares the FP8 GEMMs of two modules, A (before) and B (after), paired by what they
// compute (see Diff), not by instruction names, which change from one compile to the next.
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
	// Pairs are every GEMM of A paired with one of B, and how; Ambiguous counts the pairs that the
	// dataflow and the metadata could not tell apart from another.
	Pairs     []*Pair `json:"pairs"`
	Ambiguous int     `json:"ambiguous"`

	// pairOf is the GEMM of B each GEMM of A is paired with.
	pairOf map[*GEMM]*GEMM
}

// Pair is one GEMM of A and the GEMM of B it is paired with.
type Pair struct {
	A   string `json:"a"`
	B   string `json:"b"`
	Key string `json:"key"`
	// By says what paired them: "dataflow" (the same sources, scales, call or users, one GEMM each side:
	// see Diff), "dataflow and op_name", "shapes" (the only GEMM of those shapes left on each side),
	// "shapes and op_name", or "ambiguous: ..." when several could pair and module order decided.
	By string `json:"by"`
}

// Change is one GEMM that differs; A or B is nil when that module does not have it.
type Change struct {
	Key  string `json:"key"`
	A    *GEMM  `json:"a,omitempty"`
	B    *GEMM  `json:"b,omitempty"`
	What string `json:"what"`
	// By says how A and B were paired (see Pair).
	By string `json:"paired_by,omitempty"`
}

// Regressed reports whether some FP8 GEMM lost its fusion.
func (d *Difference) Regressed() bool { return len(d.Lost) > 0 }

// Diff pairs the GEMMs of two check reports and says what was gained and lost.
//
// GEMMs are paired one to one, in rounds, by dataflow: what they compute from and where their result goes,
// blind to names, instruction order and parameter numbering, and the same for a dot and the call octet
// fuse made of it. A pair is made where a key is had by one unpaired GEMM on each side, trying the keys
// from the most telling to the least: the dataflow fingerprint of the FP8 sources (GEMM.Flow) with the
// sources of the scales, what the call computes (epilogue, abs-max, D type, alpha, beta) and the users of
// the result (the module's outputs among them); the fingerprint with the scales' sources; the fingerprint
// with the users; the fingerprint alone, and where several GEMMs share it, the op_name of their
// metadata. GEMMs that differ only in their scales or epilogue are so told apart however the modules
// order them, and a GEMM that lost its fusion (its epilogue now outside it) still pairs by its scales or
// its users. What is left is paired by shapes (the operand shapes and k), when one GEMM of those shapes is
// left on each side, or by op_name. Whatever the rounds cannot tell apart is paired in module order and
// reported as ambiguous, never as a certain pair.
func Diff(a, b *Report) *Difference {
	d := &Difference{Lost: []*Change{}, Gained: []*Change{}, Changed: []*Change{}, Added: []*Change{}, Removed: []*Change{},
		Pairs: []*Pair{}}
	pairOf := map[*GEMM]*GEMM{}
	how := map[*GEMM]string{}
	usedB := map[*GEMM]bool{}
	// unique pairs the GEMMs whose key no other unpaired GEMM on either side has, and leaves the rest to
	// the next key. A key of 0 is one Check did not set (a report read back from JSON).
	unique := func(key func(*GEMM) uint64) {
		countA, countB := map[uint64]int{}, map[uint64]int{}
		onlyB := map[uint64]*GEMM{}
		for _, g := range a.GEMMs {
			if pairOf[g] == nil && key(g) != 0 {
				countA[key(g)]++
			}
		}
		for _, g := range b.GEMMs {
			if !usedB[g] && key(g) != 0 {
				countB[key(g)]++
				onlyB[key(g)] = g
			}
		}
		for _, g := range a.GEMMs {
			k := key(g)
			if pairOf[g] != nil || k == 0 || countA[k] != 1 || countB[k] != 1 {
				continue
			}
			gb := onlyB[k]
			pairOf[g], how[g], usedB[gb] = gb, "dataflow", true
		}
	}
	assign := func(key func(*GEMM) string, name string, certain func(na, nb int) bool) {
		groupA, groupB := map[string][]*GEMM{}, map[string][]*GEMM{}
		var order []string
		for _, g := range a.GEMMs {
			if pairOf[g] == nil {
				k := key(g)
				if len(groupA[k]) == 0 {
					order = append(order, k)
				}
				groupA[k] = append(groupA[k], g)
			}
		}
		for _, g := range b.GEMMs {
			if !usedB[g] {
				groupB[key(g)] = append(groupB[key(g)], g)
			}
		}
		for _, k := range order {
			as, bs := groupA[k], groupB[k]
			if len(bs) == 0 {
				continue
			}
			if !certain(len(as), len(bs)) {
				// Try to tell them apart by op_name before settling for module order.
				byName := map[string][]*GEMM{}
				for _, g := range bs {
					byName[g.OpName] = append(byName[g.OpName], g)
				}
				countA := map[string]int{}
				for _, g := range as {
					countA[g.OpName]++
				}
				var rest []*GEMM
				for _, ga := range as {
					if n := ga.OpName; n != "" && countA[n] == 1 && len(byName[n]) == 1 && !usedB[byName[n][0]] {
						gb := byName[n][0]
						pairOf[ga], how[ga], usedB[gb] = gb, name+" and op_name", true
						continue
					}
					rest = append(rest, ga)
				}
				as = rest
				var left []*GEMM
				for _, g := range bs {
					if !usedB[g] {
						left = append(left, g)
					}
				}
				bs = left
				if len(as) == 0 || len(bs) == 0 {
					continue
				}
				if !certain(len(as), len(bs)) {
					if name == "dataflow" && len(as) != len(bs) {
						// Leave them to the shape round with the rest.
						continue
					}
					for i := 0; i < len(as) && i < len(bs); i++ {
						pairOf[as[i]], usedB[bs[i]] = bs[i], true
						how[as[i]] = fmt.Sprintf("ambiguous: %d GEMMs in A and %d in B share the %s \"%s\"; paired in module order",
							len(as), len(bs), name, safetext.Escape(k))
					}
					continue
				}
			}
			pairOf[as[0]], how[as[0]], usedB[bs[0]] = bs[0], name, true
		}
	}
	one := func(na, nb int) bool { return na == 1 && nb == 1 }
	unique(func(g *GEMM) uint64 { return g.keys.full })
	unique(func(g *GEMM) uint64 { return g.keys.scaled })
	unique(func(g *GEMM) uint64 { return g.keys.used })
	assign(func(g *GEMM) string { return g.Flow }, "dataflow", one)
	assign(func(g *GEMM) string { return g.local }, "shapes", one)

	d.pairOf = pairOf
	for _, ga := range a.GEMMs {
		gb := pairOf[ga]
		c := &Change{Key: ga.Key, A: ga, B: gb, By: how[ga]}
		if gb != nil {
			d.Pairs = append(d.Pairs, &Pair{A: ga.Name, B: gb.Name, Key: ga.Key, By: how[ga]})
			if strings.HasPrefix(how[ga], "ambiguous") {
				d.Ambiguous++
			}
		}
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
		if c.What != "" && strings.HasPrefix(c.By, "ambiguous") {
			c.What += " (" + c.By + ")"
		}
		if c.What != "" && ga.Source != "" {
			c.What += "; from " + ga.Source
		}
	}
	for _, gb := range b.GEMMs {
		if usedB[gb] {
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
		if gb.Source != "" {
			c.What += "; from " + gb.Source
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

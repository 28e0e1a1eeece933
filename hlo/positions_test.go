package hlo

import (
	"fmt"
	"testing"
)

// TestLatePositions checks LatePositions on a computation in a scheduler's order, every value first and
// what reads it after, with a chain of control edges through the values: the places are a topological
// order through operands and control edges, one instruction each, and each value comes a few places
// before the add that reads it (in the list's own places, n apart).
func TestLatePositions(t *testing.T) {
	const n = 50
	_, c, ps := testModule(Array(f32, 4))
	var vals []*Instruction
	for i := range n {
		v := c.Add(fmt.Sprintf("v%d", i), OpNegate, Array(f32, 4), ps[0])
		if i > 0 {
			v.AddControlPredecessor(vals[i-1])
		}
		vals = append(vals, v)
	}
	sums := []*Instruction{vals[0]}
	for i := 1; i < n; i++ {
		sums = append(sums, c.Add(fmt.Sprintf("s%d", i), OpAdd, Array(f32, 4), sums[i-1], vals[i]))
	}
	c.Root = sums[n-1]
	pos := LatePositions(c)
	seen := map[int]bool{}
	for _, in := range c.Instructions {
		at, ok := pos[in]
		if !ok || at < 0 || at >= len(c.Instructions) || seen[at] {
			t.Fatalf("%%%s placed at %d (known %v): want one place each in [0, %d)", in.Name, at, ok, len(c.Instructions))
		}
		seen[at] = true
		for _, x := range append(in.Operands(), in.ControlPredecessors()...) {
			if pos[x] >= at {
				t.Errorf("%%%s at %d, before %%%s at %d, which it reads or runs after", in.Name, at, x.Name, pos[x])
			}
		}
	}
	for i := 1; i < n; i++ {
		if d := pos[sums[i]] - pos[vals[i]]; d > 3 {
			t.Errorf("%%%s at %d, %%%s that reads it at %d: want at most 3 apart", vals[i].Name, pos[vals[i]], sums[i].Name, pos[sums[i]])
		}
	}
}

package parser

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"octet/hlo"
)

// TestNameTable checks the name table against a map through a mix of definitions, redefinitions and
// look-ups like a module's, including a definition completed after look-ups have moved the entries made
// last into the slots, and the table's growth past its first size.
func TestNameTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tab := newNameTable(100)
	want := map[string]*hlo.Instruction{}
	var names []string
	for step := range 20000 {
		switch r := rng.IntN(10); {
		case r < 4 || len(names) == 0: // a new name, completed after some look-ups
			name := "n." + strconv.Itoa(step)
			in, slot := tab.find(name)
			if in != nil {
				t.Fatalf("step %d: new name %s found", step, name)
			}
			for range rng.IntN(3) {
				if len(names) > 0 {
					n := names[len(names)-1-rng.IntN(min(len(names), 40))]
					if got := tab.get(n); got != want[n] {
						t.Fatalf("step %d: %s gives %p, want %p", step, n, got, want[n])
					}
				}
			}
			in = &hlo.Instruction{Name: name}
			tab.setAt(slot, name, in)
			want[name] = in
			names = append(names, name)
		case r < 5: // a name defined again
			n := names[rng.IntN(len(names))]
			in := &hlo.Instruction{Name: n}
			tab.set(n, in)
			want[n] = in
		case r < 9: // a use of a recent or an old name
			i := len(names) - 1 - rng.IntN(min(len(names), 20))
			if r == 8 {
				i = rng.IntN(len(names))
			}
			if got := tab.get(names[i]); got != want[names[i]] {
				t.Fatalf("step %d: %s gives %p, want %p", step, names[i], got, want[names[i]])
			}
		default: // a name never defined
			if got := tab.get("absent." + strconv.Itoa(step)); got != nil {
				t.Fatalf("step %d: an undefined name is found", step)
			}
		}
	}
	if len(tab.entries) != len(want) {
		t.Errorf("%d entries for %d names", len(tab.entries), len(want))
	}
	for n, in := range want {
		if got := tab.get(n); got != in {
			t.Errorf("%s gives %p at the end, want %p", n, got, in)
		}
	}
}

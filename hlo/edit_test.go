package hlo

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// editFixture is the computation the editing tests start from:
//
//	p = f32[4] parameter(0)
//	q = f32[4] parameter(1)
//	x = negate(p)
//	y = add(x, x)
//	z = multiply(x, p)
//	ROOT r = add(y, z)
func editFixture() (*Module, *Computation, map[string]*Instruction) {
	m, c, _ := testModule()
	s := Array(f32, 4)
	ps := []*Instruction{c.Add("p", OpParameter, s), c.Add("q", OpParameter, s)}
	ps[1].ParameterNumber = 1
	c.Params = ps
	x := c.Add("x", OpNegate, s, ps[0])
	y := c.Add("y", OpAdd, s, x, x)
	z := c.Add("z", OpMultiply, s, x, ps[0])
	c.Root = c.Add("r", OpAdd, s, y, z)
	named := map[string]*Instruction{"p": ps[0], "q": ps[1]}
	for _, in := range c.Instructions {
		named[in.Name] = in
	}
	return m, c, named
}

// dump writes c one instruction a line: "name = opcode(operands) users={...} ctrl={...}", ROOT marked.
func dump(c *Computation) string {
	names := func(l []*Instruction) string {
		var s []string
		for _, in := range l {
			s = append(s, in.Name)
		}
		return strings.Join(s, ",")
	}
	var b strings.Builder
	for _, in := range c.Instructions {
		if in.IsRoot() {
			b.WriteString("ROOT ")
		}
		b.WriteString(in.Name + " = " + in.Opcode.String() + "(" + names(in.Operands()) + ")")
		if len(in.Users()) > 0 {
			b.WriteString(" users={" + names(in.Users()) + "}")
		}
		if len(in.ControlPredecessors()) > 0 {
			b.WriteString(" ctrl={" + names(in.ControlPredecessors()) + "}")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestEditing(t *testing.T) {
	s := Array(f32, 4)
	for _, tc := range []struct {
		name string
		edit func(c *Computation, n map[string]*Instruction)
		want string
	}{
		{"fixture", func(c *Computation, n map[string]*Instruction) {}, `
p = parameter() users={x,z}
q = parameter()
x = negate(p) users={y,z}
y = add(x,x) users={r}
z = multiply(x,p) users={r}
ROOT r = add(y,z)
`},
		{"SetOperand of one of two uses keeps the user", func(c *Computation, n map[string]*Instruction) {
			n["y"].SetOperand(0, n["q"])
		}, `
p = parameter() users={x,z}
q = parameter() users={y}
x = negate(p) users={y,z}
y = add(q,x) users={r}
z = multiply(x,p) users={r}
ROOT r = add(y,z)
`},
		{"SetOperand of both uses drops the user", func(c *Computation, n map[string]*Instruction) {
			n["y"].SetOperand(0, n["q"])
			n["y"].SetOperand(1, n["q"])
		}, `
p = parameter() users={x,z}
q = parameter() users={y}
x = negate(p) users={z}
y = add(q,q) users={r}
z = multiply(x,p) users={r}
ROOT r = add(y,z)
`},
		{"SetOperand to the same operand", func(c *Computation, n map[string]*Instruction) {
			n["z"].SetOperand(0, n["x"])
		}, `
p = parameter() users={x,z}
q = parameter()
x = negate(p) users={y,z}
y = add(x,x) users={r}
z = multiply(x,p) users={r}
ROOT r = add(y,z)
`},
		{"SetOperands", func(c *Computation, n map[string]*Instruction) {
			n["z"].SetOperands(n["q"], n["q"])
			n["y"].SetOperands(n["x"], n["p"])
		}, `
p = parameter() users={x,y}
q = parameter() users={z}
x = negate(p) users={y}
y = add(x,p) users={r}
z = multiply(q,q) users={r}
ROOT r = add(y,z)
`},
		{"ReplaceAllUsesWith", func(c *Computation, n map[string]*Instruction) {
			n["x"].ReplaceAllUsesWith(n["q"])
		}, `
p = parameter() users={x,z}
q = parameter() users={y,z}
x = negate(p)
y = add(q,q) users={r}
z = multiply(q,p) users={r}
ROOT r = add(y,z)
`},
		{"ReplaceAllUsesWith an operand of the same user", func(c *Computation, n map[string]*Instruction) {
			n["x"].ReplaceAllUsesWith(n["p"])
		}, `
p = parameter() users={x,z,y}
q = parameter()
x = negate(p)
y = add(p,p) users={r}
z = multiply(p,p) users={r}
ROOT r = add(y,z)
`},
		{"ReplaceAllUsesWith an instruction made from it", func(c *Computation, n map[string]*Instruction) {
			w := c.Add("w", OpExp, s, n["x"])
			n["x"].ReplaceAllUsesWith(w)
			c.SortTopologically()
		}, `
p = parameter() users={x,z}
q = parameter()
x = negate(p) users={w}
w = exponential(x) users={y,z}
y = add(w,w) users={r}
z = multiply(w,p) users={r}
ROOT r = add(y,z)
`},
		{"ReplaceAllUsesWith moves the root", func(c *Computation, n map[string]*Instruction) {
			w := c.Add("w", OpExp, s, n["r"])
			n["r"].ReplaceAllUsesWith(w)
		}, `
p = parameter() users={x,z}
q = parameter()
x = negate(p) users={y,z}
y = add(x,x) users={r}
z = multiply(x,p) users={r}
r = add(y,z) users={w}
ROOT w = exponential(r)
`},
		{"ReplaceAllUsesWith itself", func(c *Computation, n map[string]*Instruction) {
			n["x"].ReplaceAllUsesWith(n["x"])
		}, `
p = parameter() users={x,z}
q = parameter()
x = negate(p) users={y,z}
y = add(x,x) users={r}
z = multiply(x,p) users={r}
ROOT r = add(y,z)
`},
		{"Remove releases the operands", func(c *Computation, n map[string]*Instruction) {
			n["r"].SetOperands(n["y"], n["y"])
			c.Remove(n["z"])
		}, `
p = parameter() users={x}
q = parameter()
x = negate(p) users={y}
y = add(x,x) users={r}
ROOT r = add(y,y)
`},
		{"Remove passes control predecessors on", func(c *Computation, n map[string]*Instruction) {
			n["z"].AddControlPredecessor(n["q"])
			n["z"].AddControlPredecessor(n["x"])
			n["y"].AddControlPredecessor(n["z"])
			n["r"].AddControlPredecessor(n["z"])
			n["r"].AddControlPredecessor(n["q"])
			n["r"].SetOperands(n["y"], n["y"])
			c.Remove(n["z"])
		}, `
p = parameter() users={x}
q = parameter()
x = negate(p) users={y}
y = add(x,x) users={r} ctrl={q,x}
ROOT r = add(y,y) ctrl={q,x}
`},
		{"ReplaceAllUsesWith moves control dependencies", func(c *Computation, n map[string]*Instruction) {
			w := c.Add("w", OpExp, s, n["p"])
			n["x"].AddControlPredecessor(n["q"])
			n["x"].AddControlPredecessor(w)
			n["z"].AddControlPredecessor(n["x"])
			w.AddControlPredecessor(n["q"])
			n["r"].AddControlPredecessor(n["x"])
			n["r"].AddControlPredecessor(w)
			n["x"].ReplaceAllUsesWith(w)
			c.SortTopologically()
		}, `
p = parameter() users={x,z,w}
q = parameter()
x = negate(p)
w = exponential(p) users={y,z} ctrl={q}
y = add(w,w) users={r}
z = multiply(w,p) users={r} ctrl={w}
ROOT r = add(y,z) ctrl={w}
`},
		{"SortTopologically follows control predecessors", func(c *Computation, n map[string]*Instruction) {
			n["x"].AddControlPredecessor(c.Add("late", OpNegate, s, n["q"]))
			n["y"].AddControlPredecessor(n["z"])
			c.SortTopologically()
		}, `
p = parameter() users={x,z}
q = parameter() users={late}
late = negate(q)
x = negate(p) users={y,z} ctrl={late}
z = multiply(x,p) users={r}
y = add(x,x) users={r} ctrl={z}
ROOT r = add(y,z)
`},
		{"SortTopologically keeps an order that holds", func(c *Computation, n map[string]*Instruction) {
			n["z"].AddControlPredecessor(n["y"])
			c.SortTopologically()
		}, `
p = parameter() users={x,z}
q = parameter()
x = negate(p) users={y,z}
y = add(x,x) users={r}
z = multiply(x,p) users={r} ctrl={y}
ROOT r = add(y,z)
`},
		{"SortTopologically drops removed instructions", func(c *Computation, n map[string]*Instruction) {
			n["q"].Parent = nil
			c.Params = c.Params[:1]
			c.SortTopologically()
		}, `
p = parameter() users={x,z}
x = negate(p) users={y,z}
y = add(x,x) users={r}
z = multiply(x,p) users={r}
ROOT r = add(y,z)
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, c, n := editFixture()
			tc.edit(c, n)
			if got := "\n" + dump(c); got != tc.want {
				t.Errorf("got%swant%s", got, tc.want)
			}
			if err := Verify(m); err != nil {
				t.Errorf("does not verify: %v", err)
			}
		})
	}
}

func TestEditingOwnOperand(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(n map[string]*Instruction)
		want string
	}{
		{"SetOperand", func(n map[string]*Instruction) { n["z"].SetOperand(0, n["z"]) },
			"computation %main, instruction %z: operand 0 of %z, %z, comes after it"},
		{"SetOperands", func(n map[string]*Instruction) { n["x"].SetOperands(n["x"]) },
			"computation %main, instruction %x: operand 0 of %x, %x, comes after it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, c, n := editFixture()
			tc.edit(n)
			c.SortTopologically() // must end although the instruction needs itself
			if got := errorLines(Verify(m)); len(got) != 1 || got[0] != tc.want {
				t.Errorf("Verify says %q; want %q", got, tc.want)
			}
		})
	}
}

func TestControlDependencies(t *testing.T) {
	_, c, n := editFixture()
	x, y, z, r, q := n["x"], n["y"], n["z"], n["r"], n["q"]
	r.AddControlPredecessor(x)
	r.AddControlPredecessor(x)
	r.AddControlPredecessor(r)
	r.AddControlPredecessor(nil)
	z.AddControlPredecessor(x)
	if got := dump(c); !strings.Contains(got, "ROOT r = add(y,z) ctrl={x}\n") {
		t.Errorf("adding x twice, r itself and nil:\n%s", got)
	}
	if got := x.ControlSuccessors(); len(got) != 2 || got[0] != z || got[1] != r {
		t.Errorf("ControlSuccessors(x) = %v; want z, r", got)
	}

	// A copy of r's attributes shares the list; editing r must leave the copy alone.
	w := c.Add("w", OpAdd, r.Shape, y, z)
	w.Attrs = append([]Attr(nil), r.Attrs...)
	r.AddControlPredecessor(q)
	r.RemoveControlPredecessor(x)
	if got := w.ControlPredecessors(); len(got) != 1 || got[0] != x {
		t.Errorf("the copied list changed to %v", got)
	}
	if got := r.ControlPredecessors(); len(got) != 1 || got[0] != q {
		t.Errorf("r's control predecessors are %v; want q", got)
	}
	r.RemoveControlPredecessor(y) // not listed
	r.RemoveControlPredecessor(q)
	if r.Attr("control-predecessors") != nil {
		t.Errorf("removing the last control predecessor leaves %v", r.Attrs)
	}

	// Moving to an instruction that already has some keeps each once; moving to a successor drops the edge.
	y.AddControlPredecessor(q)
	z.AddControlPredecessor(q)
	w.AddControlPredecessor(z)
	z.MoveControlDependencies(y)
	if got := dump(c); !strings.Contains(got, "y = add(x,x) users={r,w} ctrl={q,x}\n") ||
		!strings.Contains(got, "z = multiply(x,p) users={r,w}\n") || !strings.Contains(got, "w = add(y,z) ctrl={x,y}\n") {
		t.Errorf("after moving z's control dependencies to y:\n%s", got)
	}
	y.MoveControlDependencies(w)
	if got := dump(c); !strings.Contains(got, "y = add(x,x) users={r,w}\n") || !strings.Contains(got, "w = add(y,z) ctrl={x,q}\n") {
		t.Errorf("after moving y's control dependencies to its successor w:\n%s", got)
	}
	// Dropping keeps the order through the dropped instruction.
	x.AddControlPredecessor(q)
	x.DropControlDependencies()
	if got := dump(c); !strings.Contains(got, "x = negate(p) users={y,z}\n") || !strings.Contains(got, "w = add(y,z) ctrl={q}\n") {
		t.Errorf("after dropping x's control dependencies:\n%s", got)
	}
	if got := (&Instruction{Name: "loose"}).ControlSuccessors(); got != nil {
		t.Errorf("an instruction of no computation has control successors %v", got)
	}
}

func TestUniqueName(t *testing.T) {
	m, c, n := editFixture()
	other := &Computation{Name: "x.1"}
	m.AddComputation(other)
	for _, tc := range []struct{ base, want string }{
		{"x", "x.2"}, // x and the computation x.1 are taken
		{"x", "x.3"}, // x.2 was reserved by the call before
		{"y", "y.1"},
		{"main", "main.1"},
		{"new", "new"},
		{"new", "new.1"},
		{"", "x.4"},
	} {
		if got := m.UniqueName(tc.base); got != tc.want {
			t.Errorf("UniqueName(%q) = %q; want %q", tc.base, got, tc.want)
		}
	}
	// Names taken after the first call are known too.
	m.AddComputation(&Computation{Name: "later"})
	if got := m.UniqueName("later"); got != "later.1" {
		t.Errorf("UniqueName(later) after AddComputation(later) = %q; want later.1", got)
	}
	if got := c.Add("z", OpNegate, n["z"].Shape, n["z"]).Name; got != "z.1" {
		t.Errorf("Add named the second z %q; want z.1", got)
	}
	if got := c.Maximum(n["z"], n["z"]).Name; got != "maximum" {
		t.Errorf("a builder named a maximum %q; want maximum", got)
	}
	if got := c.AddOp(n["z"], n["z"]).Name; got != "add" {
		t.Errorf("a builder named an add %q; want add", got)
	}
	seen := map[string]bool{}
	for _, cc := range m.Computations {
		if seen[cc.Name] {
			t.Errorf("two computations named %s", cc.Name)
		}
		seen[cc.Name] = true
		for _, in := range cc.Instructions {
			if seen[in.Name] {
				t.Errorf("two instructions named %s", in.Name)
			}
			seen[in.Name] = true
		}
	}
	// A computation of no module takes names as given.
	loose := &Computation{Name: "loose"}
	if got := loose.Add("x", OpParameter, n["x"].Shape).Name; got != "x" {
		t.Errorf("Add in a computation of no module named x %q", got)
	}
}

func TestVerifyControlPredecessors(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(m *Module, c *Computation, n map[string]*Instruction)
		want []string
	}{
		{"in order", func(m *Module, c *Computation, n map[string]*Instruction) {
			n["z"].AddControlPredecessor(n["y"])
		}, nil},
		{"after its successor", func(m *Module, c *Computation, n map[string]*Instruction) {
			n["y"].AddControlPredecessor(n["z"])
		}, []string{"computation %main, instruction %y: control predecessor %z of %y comes after it"}},
		{"a cycle", func(m *Module, c *Computation, n map[string]*Instruction) {
			n["y"].AddControlPredecessor(n["z"])
			n["z"].AddControlPredecessor(n["y"])
			c.SortTopologically()
		}, []string{"computation %main, instruction %z: control predecessor %y of %z comes after it"}},
		{"removed by hand", func(m *Module, c *Computation, n map[string]*Instruction) {
			n["r"].AddControlPredecessor(n["q"])
			c.Instructions = slices.DeleteFunc(c.Instructions, func(in *Instruction) bool { return in == n["q"] })
			c.Params = c.Params[:1]
		}, []string{"computation %main, instruction %r: control predecessor %q of %r is not an instruction of computation %main"}},
		{"removed by Remove", func(m *Module, c *Computation, n map[string]*Instruction) {
			n["r"].AddControlPredecessor(n["q"])
			c.Remove(n["q"])
			c.Params = c.Params[:1]
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, c, n := editFixture()
			tc.edit(m, c, n)
			if got := errorLines(Verify(m)); !slices.Equal(got, tc.want) {
				t.Errorf("Verify says %q; want %q", got, tc.want)
			}
		})
	}
}

// TestControlSuccessorsAfterScan: a computation found to have no control dependencies still reports the
// ones the editing methods and the builders add afterwards, and one that a removal passes on.
func TestControlSuccessorsAfterScan(t *testing.T) {
	_, _, in := editFixture()
	if s := in["x"].ControlSuccessors(); len(s) != 0 {
		t.Fatalf("successors of x before any control edge: %v", s)
	}
	in["z"].AddControlPredecessor(in["y"])
	if s := in["y"].ControlSuccessors(); len(s) != 1 || s[0] != in["z"] {
		t.Errorf("successors of y after AddControlPredecessor: %v, want [z]", s)
	}

	_, c2, in2 := editFixture()
	if s := in2["x"].ControlSuccessors(); len(s) != 0 {
		t.Fatalf("successors of x before any control edge: %v", s)
	}
	w, err := c2.AddInferred("w", OpNegate, []*Instruction{in2["p"]}, Attr{"control-predecessors", InstList{in2["y"]}})
	if err != nil {
		t.Fatal(err)
	}
	if s := in2["y"].ControlSuccessors(); len(s) != 1 || s[0] != w {
		t.Errorf("successors of y after a builder gave w a control predecessor: %v, want [w]", s)
	}
}

// TestUniqueNameLinear: asking for one base name many times costs allocations in proportion to the number
// of names given, not to its square (each ".N" is found without trying the N-1 before it).
func TestUniqueNameLinear(t *testing.T) {
	allocs := func(n int) float64 {
		return testing.AllocsPerRun(1, func() {
			m, _, _ := editFixture()
			for range n {
				m.UniqueName("x")
			}
		})
	}
	small, large := allocs(2000), allocs(4000)
	if large > 2.5*small {
		t.Errorf("%.0f allocations for 2000 names, %.0f for 4000: not linear", small, large)
	}
	m, _, _ := editFixture()
	for i, want := range []string{"x.1", "x.2", "x.3"} {
		if got := m.UniqueName("x"); got != want {
			t.Errorf("name %d: got %s, want %s", i, got, want)
		}
	}
}

// TestUnlinkPrune removes a chain as fuse's dead-code removal does: each instruction unlinked as it loses
// its users (its operands released, so the one before it loses its user in turn), the list pruned once.
func TestUnlinkPrune(t *testing.T) {
	_, c, named := editFixture()
	p := named["p"]
	x := p
	var chain []*Instruction
	for range 5 {
		x = c.Add("n", OpNegate, Array(f32, 4), x)
		chain = append(chain, x)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		if len(chain[i].Users()) != 0 {
			t.Fatalf("%s still has users %v", chain[i].Name, chain[i].Users())
		}
		c.Unlink(chain[i])
		if chain[i].Parent != nil || chain[i].NumOperands() != 0 {
			t.Errorf("%s: still in the computation or holding operands", chain[i].Name)
		}
	}
	if got := len(p.Users()); got != 2 { // x and z of the fixture, not the chain's first negate
		t.Errorf("p has %d users after the chain went, want 2", got)
	}
	before := len(c.Instructions)
	c.Prune()
	if len(c.Instructions) != before-len(chain) {
		t.Errorf("%d instructions after pruning %d of %d", len(c.Instructions), len(chain), before)
	}
	var names []string
	for _, in := range c.Instructions {
		names = append(names, in.Name)
	}
	if want := []string{"p", "q", "x", "y", "z", "r"}; !slices.Equal(names, want) {
		t.Errorf("instructions %v, want %v", names, want)
	}
	c.Unlink(chain[0]) // not in c any more: nothing happens
}

// TestPositionsDependsOn compares Positions.DependsOn with DependsOn on every pair of a chain with side
// branches, before and after an edit that replaces a value by a new instruction of the same operands
// (which the positions do not know, and place where the value was when told).
func TestPositionsDependsOn(t *testing.T) {
	_, c, named := editFixture()
	x := named["p"]
	var all []*Instruction
	for i := range 30 {
		op := OpNegate
		if i%3 == 2 {
			x = c.Add("s", OpAdd, Array(f32, 4), x, all[len(all)-2])
		} else {
			x = c.Add("n", op, Array(f32, 4), x)
		}
		all = append(all, x)
	}
	check := func(pos Positions, when string) {
		for _, a := range c.Instructions {
			for _, b := range c.Instructions {
				if got, want := pos.DependsOn(a, b), a.DependsOn(b); got != want {
					t.Errorf("%s: %s depends on %s: %v, want %v", when, a.Name, b.Name, got, want)
				}
			}
		}
	}
	pos := PositionsOf(c)
	check(pos, "as taken")
	check(nil, "without positions")
	// Replace a middle value by a new instruction of its operands, placed where it was.
	old := all[14]
	repl := c.Add("r", old.Opcode, old.Shape, old.Operands()...)
	old.ReplaceAllUsesWith(repl)
	check(pos, "after the edit, the new instruction unknown")
	pos[repl] = pos[old]
	check(pos, "after the edit, the new instruction placed")
}

// TestControlIndex checks IndexControlSuccessors: after edits through the editing methods (adding,
// removing and moving control predecessors, a builder that gives some, a removal), ControlSuccessors
// read from the index gives what a pass over the computation finds, edge for edge.
func TestControlIndex(t *testing.T) {
	_, c, n := editFixture()
	n["z"].AddControlPredecessor(n["x"])
	c.IndexControlSuccessors()
	n["r"].AddControlPredecessor(n["x"])
	n["r"].AddControlPredecessor(n["y"])
	n["y"].AddControlPredecessor(n["q"])
	w, err := c.AddInferred("w", OpNegate, []*Instruction{n["p"]}, Attr{"control-predecessors", InstList{n["y"], n["z"]}})
	if err != nil {
		t.Fatal(err)
	}
	n["r"].RemoveControlPredecessor(n["x"])
	n["z"].MoveControlDependencies(n["y"])
	n["r"].AddControlPredecessor(n["x"]) // again, after its removal
	c.Remove(w)
	indexed := map[*Instruction][]*Instruction{}
	for _, in := range c.Instructions {
		indexed[in] = in.ControlSuccessors()
	}
	c.DropControlIndex()
	for _, in := range c.Instructions {
		got, want := indexed[in], in.ControlSuccessors()
		gs, ws := map[*Instruction]bool{}, map[*Instruction]bool{}
		for _, x := range got {
			gs[x] = true
		}
		for _, x := range want {
			ws[x] = true
		}
		if len(got) != len(gs) || !maps.Equal(gs, ws) {
			t.Errorf("successors of %s: indexed %v, scanned %v\n%s", in.Name, got, want, dump(c))
		}
	}
}

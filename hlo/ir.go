package hlo

import (
	"go/token"
	"strconv"
)

// Module is an HLO module: a set of computations, one of which is the entry.
type Module struct {
	Name string
	// Attrs are the header attributes after the name (is_scheduled, entry_computation_layout,
	// input_output_alias, buffer_donor, replica_count, num_partitions, frontend_attributes, ...), in order.
	// entry_computation_layout is a *ProgramShape, frontend_attributes a FrontendAttributes.
	Attrs        []Attr
	Computations []*Computation // in text order; callees usually before their callers
	Entry        *Computation
	// StackFrames are the tables of source locations JAX attaches (FileNames, FunctionNames,
	// FileLocations, StackFrames); nil when the module has none.
	StackFrames *StackFrameTables
	// NoHeader is set when the text had no "HloModule" line (a hand-written test input).
	NoHeader bool

	// Fset maps the positions of the module's instructions to file:line:col; nil for a built module.
	Fset  *token.FileSet
	Pos   token.Pos
	names map[string]bool // every instruction and computation name, built on first use
	// nextSuffix is, for each base UniqueName was asked for, the N of the next ".N" to try: the numbers
	// below it are taken, so asking for one base many times costs no search through them.
	nextSuffix map[string]int
}

// Position expands a position of the module's text; the zero Position when unknown.
func (m *Module) Position(p token.Pos) token.Position {
	if m == nil || m.Fset == nil || !p.IsValid() {
		return token.Position{}
	}
	return m.Fset.Position(p)
}

// StackFrameTables are the source-location tables of a module, indexed from 1 in the text.
type StackFrameTables struct {
	FileNames     []string
	FunctionNames []string
	FileLocations []FileLocation
	Frames        []StackFrame
}

// FileLocation is one row of the FileLocations table.
type FileLocation struct {
	FileNameID, FunctionNameID, Line, EndLine, Column, EndColumn int64
}

// StackFrame is one row of the StackFrames table; ParentFrameID 0 is the outermost frame.
type StackFrame struct {
	FileLocationID, ParentFrameID int64
}

// Computation is a function of a module: a list of instructions, with one root.
type Computation struct {
	Name         string
	Instructions []*Instruction // in text order, every operand before its users
	Root         *Instruction
	Params       []*Instruction // by parameter number
	IsEntry      bool
	// Attrs are attributes written after the computation's closing brace (execution_thread="host").
	Attrs  []Attr
	Module *Module
	Pos    token.Pos

	control controlState // whether an instruction lists control predecessors; see mayHaveControl
	// succs indexes the control successors of c's instructions while an editor has asked for it
	// (IndexControlSuccessors); nil otherwise.
	succs map[*Instruction][]*Instruction
}

// Instruction is one HLO instruction: name = shape opcode(operands), attributes.
type Instruction struct {
	Name   string
	Opcode Opcode
	Shape  Shape
	Attrs  []Attr
	// ParameterNumber is N of parameter(N).
	ParameterNumber int64
	// Literal is the value of a constant.
	Literal *Literal
	// AsyncWrapped is the wrapped opcode of an async-start, async-update or async-done written in XLA's
	// syntax sugar ("custom-call-start" is OpAsyncStart wrapping OpCustomCall); OpInvalid otherwise.
	AsyncWrapped Opcode
	Parent       *Computation
	Pos          token.Pos

	operands []*Instruction
	users    []*Instruction // one entry per distinct user
	// firstUsers holds the first users until there are more: most instructions have one or two.
	firstUsers [2]*Instruction
}

// Operands returns the instruction's operands. The slice must not be modified; use SetOperand.
func (in *Instruction) Operands() []*Instruction { return in.operands }

// Operand returns operand i.
func (in *Instruction) Operand(i int) *Instruction { return in.operands[i] }

// NumOperands returns the number of operands.
func (in *Instruction) NumOperands() int { return len(in.operands) }

// Users returns the distinct instructions that use in as an operand, in the order they started using it.
// The slice must not be modified.
func (in *Instruction) Users() []*Instruction { return in.users }

// IsRoot reports whether in is its computation's root.
func (in *Instruction) IsRoot() bool { return in.Parent != nil && in.Parent.Root == in }

// SetOperands replaces all operands of in, keeping users up to date.
func (in *Instruction) SetOperands(ops ...*Instruction) {
	old := in.operands
	in.operands = append([]*Instruction(nil), ops...)
	for _, o := range old {
		o.dropUserIfUnused(in)
	}
	if len(old) == 0 {
		in.addAsNewUser()
		return
	}
	for _, o := range in.operands {
		o.addUser(in)
	}
}

// AdoptOperands makes ops the operands of in, which has none, as SetOperands does but without copying ops:
// in keeps the slice, which the caller must not use afterwards. It is for code that makes many
// instructions at once and can carve their operand lists from larger blocks.
func (in *Instruction) AdoptOperands(ops []*Instruction) {
	if len(in.operands) > 0 {
		in.SetOperands(ops...)
		return
	}
	in.operands = ops
	in.addAsNewUser()
}

// addAsNewUser adds in to the users of its operands, of which it was none's user.
func (in *Instruction) addAsNewUser() {
	// in was nobody's user, so where it is one now it is the last: no need to look through all the users
	// of an operand that many instructions use.
	for _, o := range in.operands {
		switch n := len(o.users); {
		case n == 0 && o.users == nil && o.firstUsers[0] == nil:
			// The buffer is used once only: a list handed out earlier never sees it change.
			o.users = append(o.firstUsers[:0], in)
		case n == 0 || o.users[n-1] != in:
			o.users = append(o.users, in)
		}
	}
}

// SetOperand replaces operand i.
func (in *Instruction) SetOperand(i int, op *Instruction) {
	old := in.operands[i]
	in.operands[i] = op
	op.addUser(in)
	old.dropUserIfUnused(in)
}

// ReplaceAllUsesWith makes every user of in other than with itself use with instead, makes with the root
// where in was, and moves the control dependencies of in to with (MoveControlDependencies).
func (in *Instruction) ReplaceAllUsesWith(with *Instruction) {
	if in == with {
		return
	}
	kept := in.users[:0]
	for _, u := range append([]*Instruction(nil), in.users...) {
		if u == with {
			// with is made from in (an instruction inserted after it): it keeps using in.
			kept = append(kept, u)
			continue
		}
		for i, o := range u.operands {
			if o == in {
				u.operands[i] = with
			}
		}
		with.addUser(u)
	}
	in.users = kept
	if in.Parent != nil && in.Parent.Root == in {
		in.Parent.Root = with
	}
	in.MoveControlDependencies(with)
}

func (in *Instruction) addUser(u *Instruction) {
	for _, x := range in.users {
		if x == u {
			return
		}
	}
	in.users = append(in.users, u)
}

func (in *Instruction) dropUserIfUnused(u *Instruction) {
	for _, o := range u.operands {
		if o == in {
			return
		}
	}
	for i, x := range in.users {
		if x == u {
			in.users = append(in.users[:i], in.users[i+1:]...)
			return
		}
	}
}

// Attr returns the value of the attribute named name, or nil.
func (in *Instruction) Attr(name string) Value { return findAttr(in.Attrs, name) }

// SetAttr sets the attribute named name, replacing its value in place or appending it.
func (in *Instruction) SetAttr(name string, v Value) {
	in.Attrs = setAttr(in.Attrs, name, v)
	if name == controlPredecessors && in.Parent != nil {
		in.Parent.control = controlSome
		in.Parent.indexControl(in)
	}
}

// RemoveAttr removes the attribute named name, if present.
func (in *Instruction) RemoveAttr(name string) { in.Attrs = removeAttr(in.Attrs, name) }

// Ints returns an integer-list attribute (dimensions, lhs_contracting_dims, ...); nil when absent.
func (in *Instruction) Ints(name string) []int64 {
	switch v := in.Attr(name).(type) {
	case Ints:
		return v
	case Int:
		return []int64{int64(v)}
	}
	return nil
}

// Int returns an integer attribute (index, channel_id, ...).
func (in *Instruction) Int(name string) (int64, bool) {
	switch v := in.Attr(name).(type) {
	case Int:
		return int64(v), true
	}
	return 0, false
}

// Str returns a string-valued or enum-valued attribute (custom_call_target, direction, kind).
func (in *Instruction) Str(name string) string {
	switch v := in.Attr(name).(type) {
	case String:
		return string(v)
	case Enum:
		return string(v)
	case Raw:
		return string(v)
	case Bool:
		return strconv.FormatBool(bool(v))
	}
	return ""
}

// CustomCallTarget returns the custom_call_target of a custom-call.
func (in *Instruction) CustomCallTarget() string { return in.Str("custom_call_target") }

// BackendConfig returns the instruction's backend_config, or nil.
func (in *Instruction) BackendConfig() *BackendConfig {
	bc, _ := in.Attr("backend_config").(*BackendConfig)
	return bc
}

// Metadata returns the instruction's metadata (nil when it has none).
func (in *Instruction) Metadata() Metadata {
	md, _ := in.Attr("metadata").(Metadata)
	return md
}

// Called returns the computations the instruction calls (to_apply, calls, condition, body, branches,
// select and scatter of select-and-scatter), in attribute order.
func (in *Instruction) Called() []*Computation {
	var cs []*Computation
	for _, a := range in.Attrs {
		switch v := a.Value.(type) {
		case CompRef:
			cs = append(cs, v.Comp)
		case CompList:
			cs = append(cs, v...)
		}
	}
	return cs
}

// CalledComputation returns the computation of a single-computation attribute (to_apply, calls, ...).
func (in *Instruction) CalledComputation(name string) *Computation {
	switch v := in.Attr(name).(type) {
	case CompRef:
		return v.Comp
	case CompList:
		if len(v) == 1 {
			return v[0]
		}
	}
	return nil
}

// ControlPredecessors returns the instructions listed in control-predecessors.
func (in *Instruction) ControlPredecessors() []*Instruction {
	l, _ := in.Attr("control-predecessors").(InstList)
	return l
}

func findAttr(attrs []Attr, name string) Value {
	for _, a := range attrs {
		if a.Name == name {
			return a.Value
		}
	}
	return nil
}

func setAttr(attrs []Attr, name string, v Value) []Attr {
	for i := range attrs {
		if attrs[i].Name == name {
			attrs[i].Value = v
			return attrs
		}
	}
	return append(attrs, Attr{name, v})
}

func removeAttr(attrs []Attr, name string) []Attr {
	for i := range attrs {
		if attrs[i].Name == name {
			return append(attrs[:i], attrs[i+1:]...)
		}
	}
	return attrs
}

// Attr returns the header attribute named name, or nil.
func (m *Module) Attr(name string) Value { return findAttr(m.Attrs, name) }

// SetAttr sets a header attribute, replacing its value in place or appending it.
func (m *Module) SetAttr(name string, v Value) { m.Attrs = setAttr(m.Attrs, name, v) }

// EntryComputationLayout returns the module's entry_computation_layout, or nil when the header has none.
func (m *Module) EntryComputationLayout() *ProgramShape {
	ps, _ := m.Attr("entry_computation_layout").(*ProgramShape)
	return ps
}

// Computation returns the computation named name, or nil.
func (m *Module) Computation(name string) *Computation {
	for _, c := range m.Computations {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// UniqueName returns a name, based on base, that no instruction or computation of m has, and reserves it.
// Like XLA, it appends ".N" to make it unique.
func (m *Module) UniqueName(base string) string {
	if m.names == nil {
		m.names = map[string]bool{}
		for _, c := range m.Computations {
			m.names[c.Name] = true
			for _, in := range c.Instructions {
				m.names[in.Name] = true
			}
		}
	}
	if base == "" {
		base = "x"
	}
	if !m.names[base] {
		m.names[base] = true
		return base
	}
	if m.nextSuffix == nil {
		m.nextSuffix = map[string]int{}
	}
	i := max(m.nextSuffix[base], 1)
	name := base + "." + strconv.Itoa(i)
	for m.names[name] {
		i++
		name = base + "." + strconv.Itoa(i)
	}
	m.nextSuffix[base] = i + 1
	m.names[name] = true
	return name
}

// FusionComputations returns the computations of m that a fusion instruction calls.
func (m *Module) FusionComputations() map[*Computation]bool {
	out := map[*Computation]bool{}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if in.Opcode == OpFusion {
				for _, f := range in.Called() {
					out[f] = true
				}
			}
		}
	}
	return out
}

// AddComputation appends c to m (before its callers have to be printed, put callees first).
func (m *Module) AddComputation(c *Computation) {
	c.Module = m
	m.Computations = append(m.Computations, c)
	if m.names != nil {
		m.names[c.Name] = true
	}
}

// ProgramShape returns the computation's signature, derived from its parameters and root.
func (c *Computation) ProgramShape() ProgramShape {
	ps := ProgramShape{Params: make([]Shape, len(c.Params))}
	for i, p := range c.Params {
		if p != nil {
			ps.Params[i] = p.Shape
		}
	}
	if c.Root != nil {
		ps.Result = c.Root.Shape
	}
	return ps
}

// Add appends a new instruction to c and returns it. Its name is made unique in the module.
func (c *Computation) Add(name string, op Opcode, shape Shape, operands ...*Instruction) *Instruction {
	in := &Instruction{Opcode: op, Shape: shape, Parent: c}
	if c.Module != nil {
		in.Name = c.Module.UniqueName(name)
	} else {
		in.Name = name
	}
	in.SetOperands(operands...)
	c.Instructions = append(c.Instructions, in)
	return in
}

// Remove deletes an instruction that has no users from c, releasing its operands. Its control successors
// take over its control predecessors (DropControlDependencies), so that none names a removed instruction.
func (c *Computation) Remove(in *Instruction) {
	if in.Parent == c {
		in.DropControlDependencies()
	}
	for i, x := range c.Instructions {
		if x == in {
			c.Instructions = append(c.Instructions[:i], c.Instructions[i+1:]...)
			break
		}
	}
	in.SetOperands()
	in.Parent = nil
}

// Unlink does to an instruction of c what Remove does, but for taking it out of c.Instructions: a caller
// removing many (each a search through the list with Remove) unlinks them and then calls Prune once.
func (c *Computation) Unlink(in *Instruction) {
	if in.Parent != c {
		return
	}
	in.DropControlDependencies()
	in.SetOperands()
	in.Parent = nil
}

// Prune drops from c.Instructions every instruction no longer in c (Unlink), keeping the others' order.
func (c *Computation) Prune() {
	kept := c.Instructions[:0]
	for _, x := range c.Instructions {
		if x.Parent == c {
			kept = append(kept, x)
		}
	}
	clear(c.Instructions[len(kept):])
	c.Instructions = kept
}

// HasSideEffect reports whether in must stay even when its value is unused.
func (in *Instruction) HasSideEffect() bool {
	if in.Opcode == OpCustomCall {
		return in.Str("custom_call_has_side_effect") == "true"
	}
	info := in.Opcode.Info()
	return info != nil && info.SideEffect
}

// SortTopologically orders c's instructions so that every operand (and control predecessor) comes
// before its users, keeping the existing order where it already does.
func (c *Computation) SortTopologically() {
	state := make(map[*Instruction]uint8, len(c.Instructions)) // 1 visiting, 2 done
	out := make([]*Instruction, 0, len(c.Instructions))
	var visit func(in *Instruction)
	visit = func(in *Instruction) {
		if state[in] != 0 || in.Parent != c {
			return
		}
		state[in] = 1
		for _, o := range in.operands {
			visit(o)
		}
		for _, p := range in.ControlPredecessors() {
			visit(p)
		}
		state[in] = 2
		out = append(out, in)
	}
	for _, in := range c.Instructions {
		visit(in)
	}
	c.Instructions = out
}

// Positions are the places of a computation's instructions in a topological order: every instruction is
// placed at or after its operands and control predecessors (PositionsOf, LatePositions). Places may be
// shared: an edit that keeps that true may place what it makes at the place of what it replaces.
type Positions map[*Instruction]int

// PositionsOf returns the places of c's instructions in its list, which must be in topological order.
func PositionsOf(c *Computation) Positions {
	pos := make(Positions, len(c.Instructions))
	for i, in := range c.Instructions {
		pos[in] = i
	}
	return pos
}

// LatePositions returns the places of c's instructions in the topological order that puts each as late
// as its users and control successors let it be: by height (the longest path from it, through users and
// control successors, to an instruction with neither), the highest first, and in c's order among equal
// heights. c's list must be in topological order. The list's own order may be a scheduler's (every dot
// first, what reads them after), and places in it keep a value far from what reads it; here an
// instruction with a single user comes just before that user, so a chain of single users (a dot and
// the epilogue after it) takes consecutive heights, and a walk pruned by place between its ends
// (DependsOn) stays near them, whatever order the list was in. Linear in the size of c.
func LatePositions(c *Computation) Positions {
	height := make(map[*Instruction]int, len(c.Instructions))
	for _, in := range c.Instructions {
		height[in] = 0
	}
	top := 0
	raise := func(x *Instruction, h int) {
		if g, ok := height[x]; ok && g < h {
			height[x] = h
			top = max(top, h)
		}
	}
	for i := len(c.Instructions) - 1; i >= 0; i-- {
		in := c.Instructions[i]
		h := height[in] + 1
		for _, o := range in.operands {
			raise(o, h)
		}
		for _, p := range in.ControlPredecessors() {
			raise(p, h)
		}
	}
	// next[h] is the next place for an instruction of height h: after every instruction higher than it.
	next := make([]int, top+1)
	for _, h := range height {
		next[h]++
	}
	at := 0
	for h := top; h >= 0; h-- {
		at, next[h] = at+next[h], at
	}
	pos := make(Positions, len(c.Instructions))
	for _, in := range c.Instructions {
		h := height[in]
		pos[in] = next[h]
		next[h]++
	}
	return pos
}

// DependsOn is in.DependsOn(target), without looking through an instruction pos places before target
// on the way up from in, nor through one it places after in on the way down from target: what lies
// outside that span can be on no path between them, as long as the edits since pos was taken kept every
// value at or after the places of the values it reads (a rewrite that replaces a value by a call of that
// value's operands, placed where the value was, and what reads the call's results moved up to it where
// it came before). Instructions pos does not know (made since) are looked through. A nil pos prunes
// nothing. The walk up from in and the walk down from target take one step each in turn, and the first
// to end answers: where everything upstream of in would be most of the computation (a residual stream
// of many GEMMs, each asked whether the running sum comes from it), or everything downstream of target
// would be (the GEMMs first, then the sum of their results), this looks at no more than twice what the
// shorter walk takes.
func (pos Positions) DependsOn(in, target *Instruction) bool {
	if in == target {
		return true
	}
	at, known := pos[target]
	upTo, inKnown := pos[in]
	up := []*Instruction{in}
	down := []*Instruction{target}
	upSeen := map[*Instruction]bool{in: true}
	downSeen := map[*Instruction]bool{target: true}
	for {
		if len(up) == 0 || len(down) == 0 {
			return false
		}
		x := up[len(up)-1]
		up = up[:len(up)-1]
		if p, ok := pos[x]; !known || !ok || p >= at || x == in {
			for _, o := range x.Operands() {
				if o == target {
					return true
				}
				if !upSeen[o] {
					upSeen[o] = true
					up = append(up, o)
				}
			}
		}
		y := down[len(down)-1]
		down = down[:len(down)-1]
		if p, ok := pos[y]; !inKnown || !ok || p <= upTo || y == target {
			for _, u := range y.Users() {
				if u == in {
					return true
				}
				if !downSeen[u] {
					downSeen[u] = true
					down = append(down, u)
				}
			}
		}
	}
}

// DependsOn reports whether in is computed from target: target is in itself or among its operands,
// transitively, within in's computation (a fusion or call is one instruction). Each instruction is
// visited once.
func (in *Instruction) DependsOn(target *Instruction) bool {
	seen := map[*Instruction]bool{}
	stack := []*Instruction{in}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x == target {
			return true
		}
		if !seen[x] {
			seen[x] = true
			stack = append(stack, x.Operands()...)
		}
	}
	return false
}

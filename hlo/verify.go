package hlo

import (
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
	"slices"
	"strings"

	"octet/dtype"
)

// Verify checks the invariants of m, in the manner of XLA's HloVerifier and of x/tools' ssa sanity checker,
// and returns every violation found as a scanner.ErrorList sorted by position, or nil.
//
// Structure: every computation belongs to m and is named once; the entry is one of m's computations; every
// instruction belongs to its computation, is named once in the module, and comes after its operands, which
// belong to the same computation; Users lists exactly the distinct users; the root is one of the
// computation's instructions; parameters are numbered 0..n-1 with no gap or duplicate; called computations
// are m's, and take what their callers pass (reduce's to_apply takes 2N scalars, a fusion's parameters are
// its operands, a while's condition returns pred[], ...); entry_computation_layout, when present, gives the
// entry's parameters and result, layouts aside.
//
// Operations: each instruction fits its opcode's entry in the op table (CheckOperation), and a custom-call
// passes the check its target's package registered (RegisterCustomCall).
//
// Shapes: each instruction whose shape InferShape determines must have that shape, layouts and dynamic
// bounds aside; floating-point operands of different precisions may mix (in add, select, ...), as in XLA's
// verifier with allow_mixed_precision, the result taking the higher precision; a bitcast keeps the byte
// size of its operand when both have plain layouts; an iota's dimension is in range. Instructions whose
// shapes cannot be inferred (custom-call, collectives, ...) are accepted as they are.
//
// Asynchronous operations: an async-start's shape gives its operands, its computation's result and a
// context; each start (async, copy, all-reduce, all-gather, collective-permute) or async-update has one
// user, which continues it, and each -update or -done continues the start of its operation (same wrapped
// opcode, computation, target, thread and group). A computation called by anything but an asynchronous
// operation or a custom call runs on its caller's execution thread.
//
// Shardings: a tuple sharding has one element per leaf of the instruction's shape; a tiled sharding has one
// tile dimension per dimension of its array besides its subgroup dimensions, and names as many devices as
// it has tiles, each once.
//
// Collectives: replica groups and source-target pairs name devices as XLA's verifier wants them named
// (see verify_collectives.go), a reduce-scatter's result is its operand divided along the scatter
// dimension by the size of a device group, a send or receive has one user (its -done, of the same channel
// and host transfer), and the module runs on at least one replica and one partition.
//
// A message starts with the position of the instruction in the text (file:line:col); instructions without
// one, made by passes, are named instead: "computation %c, instruction %x: ...".
func Verify(m *Module) error {
	v := &verifier{m: m}
	v.module()
	v.limits()
	v.errs.Sort()
	return v.errs.Err()
}

type verifier struct {
	m    *Module
	errs scanner.ErrorList
	// comps is the set of m's computations.
	comps map[*Computation]bool
	// index gives each instruction's place in its computation's list.
	index map[*Instruction]int
	// userSets and operandSets hold the users and the operands of instructions with many (a tuple of
	// every output, a value read everywhere), for hasUser and hasOperand: a lookup, not a walk through a
	// long list once per element of it.
	userSets, operandSets map[*Instruction]map[*Instruction]bool
	// steps counts the list elements the checks walk through and the set entries they make: the work
	// beyond a constant per instruction, which a test holds linear in the module.
	steps int64
}

// hasUser reports whether o lists u among its users.
func (v *verifier) hasUser(o, u *Instruction) bool {
	return v.inList(&v.userSets, o, o.users, u)
}

// hasOperand reports whether u lists o among its operands.
func (v *verifier) hasOperand(u, o *Instruction) bool {
	return v.inList(&v.operandSets, u, u.operands, o)
}

// inList reports whether x is in l, the list of in's users or operands: short lists are walked, long ones
// looked up in a set made once per instruction.
func (v *verifier) inList(sets *map[*Instruction]map[*Instruction]bool, in *Instruction, l []*Instruction, x *Instruction) bool {
	if len(l) < 16 {
		v.steps += int64(len(l))
		return containsInst(l, x)
	}
	set, ok := (*sets)[in]
	if !ok {
		v.steps += int64(len(l))
		set = make(map[*Instruction]bool, len(l))
		for _, y := range l {
			set[y] = true
		}
		if *sets == nil {
			*sets = map[*Instruction]map[*Instruction]bool{}
		}
		(*sets)[in] = set
	}
	return set[x]
}

// errorAt reports a problem of instruction in.
func (v *verifier) errorAt(in *Instruction, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	pos := v.m.Position(in.Pos)
	if !pos.IsValid() {
		c := "?"
		if in.Parent != nil {
			c = in.Parent.Name
		}
		msg = fmt.Sprintf("computation %%%s, instruction %%%s: %s", c, in.Name, msg)
	}
	v.errs.Add(pos, msg)
}

// errorAtComputation reports a problem of computation c.
func (v *verifier) errorAtComputation(c *Computation, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	pos := v.m.Position(c.Pos)
	if !pos.IsValid() {
		msg = fmt.Sprintf("computation %%%s: %s", c.Name, msg)
	}
	v.errs.Add(pos, msg)
}

// errorAtModule reports a problem of the module as a whole.
func (v *verifier) errorAtModule(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	pos := v.m.Position(v.m.Pos)
	if !pos.IsValid() {
		msg = fmt.Sprintf("module %s: %s", v.m.Name, msg)
	}
	v.errs.Add(pos, msg)
}

func (v *verifier) module() {
	m := v.m
	if m == nil {
		v.errs.Add(token.Position{}, "nil module")
		return
	}
	v.comps = make(map[*Computation]bool, len(m.Computations))
	n := 0
	for _, c := range m.Computations {
		if c != nil {
			n += len(c.Instructions)
		}
	}
	v.index = make(map[*Instruction]int, n)
	if msg := moduleCountsError(m); msg != "" {
		v.errorAtModule("%s", msg)
	}
	compNames := map[string]*Computation{}
	for i, c := range m.Computations {
		if c == nil {
			v.errorAtModule("computation %d of the module is nil", i)
			continue
		}
		if v.comps[c] {
			v.errorAtComputation(c, "computation %%%s is listed twice in the module", c.Name)
			continue
		}
		v.comps[c] = true
		if prev, ok := compNames[c.Name]; ok && prev != c {
			v.errorAtComputation(c, "computation name %%%s is used twice", c.Name)
		}
		compNames[c.Name] = c
		if c.Module != m {
			v.errorAtComputation(c, "computation %%%s does not point to its module", c.Name)
		}
	}
	switch {
	case m.Entry == nil:
		v.errorAtModule("module %s has no entry computation", m.Name)
	case !v.comps[m.Entry]:
		v.errorAtModule("the entry computation %s is not one of the module's computations", m.Entry.Name)
	}
	instNames := make(map[string]*Instruction, n)
	for _, c := range m.Computations {
		if c == nil || !v.comps[c] {
			continue
		}
		for i, in := range c.Instructions {
			if in == nil {
				v.errorAtComputation(c, "instruction %d of computation %%%s is nil", i, c.Name)
				continue
			}
			if _, dup := v.index[in]; dup {
				v.errorAt(in, "%%%s is listed twice", in.Name)
				continue
			}
			v.index[in] = i
			if prev, ok := instNames[in.Name]; ok {
				where := ""
				if p := m.Position(prev.Pos); p.IsValid() {
					where = " (first at " + p.String() + ")"
				} else if prev.Parent != nil {
					where = " (first in computation %" + prev.Parent.Name + ")"
				}
				v.errorAt(in, "instruction name %%%s is used twice%s", in.Name, where)
			} else {
				instNames[in.Name] = in
			}
		}
	}
	for _, c := range m.Computations {
		if c != nil && v.comps[c] {
			v.computation(c)
		}
	}
	v.channels()
	v.entryLayout()
}

func (v *verifier) computation(c *Computation) {
	// Membership.
	for _, in := range c.Instructions {
		if in != nil && in.Parent != c {
			other := "no computation"
			if in.Parent != nil {
				other = "computation %" + in.Parent.Name
			}
			v.errorAt(in, "%%%s is listed in computation %%%s but points to %s", in.Name, c.Name, other)
		}
	}
	if c.Root == nil {
		v.errorAtComputation(c, "computation %%%s has no root", c.Name)
	} else if !v.member(c, c.Root) {
		v.errorAtComputation(c, "the root %%%s of computation %%%s is not one of its instructions", c.Root.Name, c.Name)
	}
	v.params(c)
	for _, in := range c.Instructions {
		if in == nil {
			continue
		}
		v.instruction(c, in)
		v.operation(in)
		v.shapeSize(in, in.Shape)
	}
}

// member reports whether in is one of c's instructions.
func (v *verifier) member(c *Computation, in *Instruction) bool {
	i, ok := v.index[in]
	return ok && i < len(c.Instructions) && c.Instructions[i] == in
}

func (v *verifier) params(c *Computation) {
	for i, p := range c.Params {
		switch {
		case p == nil:
			v.errorAtComputation(c, "computation %%%s has no parameter %d but has parameter %d", c.Name, i, len(c.Params)-1)
		case p.Opcode != OpParameter:
			v.errorAt(p, "parameter %d of computation %%%s is %%%s, a %s", i, c.Name, p.Name, p.Opcode)
		case p.ParameterNumber != int64(i):
			v.errorAt(p, "%%%s is parameter(%d) but is listed as parameter %d of computation %%%s", p.Name, p.ParameterNumber, i, c.Name)
		case !v.member(c, p):
			v.errorAt(p, "parameter %d of computation %%%s, %%%s, is not one of its instructions", i, c.Name, p.Name)
		}
	}
	for _, in := range c.Instructions {
		if in == nil || in.Opcode != OpParameter {
			continue
		}
		n := in.ParameterNumber
		if n < 0 || n >= int64(len(c.Params)) || c.Params[n] != in {
			if n >= 0 && n < int64(len(c.Params)) && c.Params[n] != nil && c.Params[n] != in {
				v.errorAt(in, "parameter number %d is used by both %%%s and %%%s", n, c.Params[n].Name, in.Name)
			} else {
				v.errorAt(in, "%%%s is parameter(%d) but is not listed among the parameters of computation %%%s", in.Name, n, c.Name)
			}
		}
	}
}

func (v *verifier) instruction(c *Computation, in *Instruction) {
	ok := true
	// Operands: present, of this computation, earlier in the list.
	for i, o := range in.operands {
		switch {
		case o == nil:
			v.errorAt(in, "operand %d of %%%s is nil", i, in.Name)
			ok = false
		case o.Parent != c || !v.member(c, o):
			v.errorAt(in, "operand %d of %%%s, %%%s, is not an instruction of computation %%%s", i, in.Name, o.Name, c.Name)
			ok = false
		case v.index[o] >= v.index[in]:
			v.errorAt(in, "operand %d of %%%s, %%%s, comes after it", i, in.Name, o.Name)
		}
	}
	// Users: exactly the distinct instructions that use in.
	var count map[*Instruction]int // for long lists of users
	if len(in.users) > 32 {
		v.steps += int64(len(in.users))
		count = make(map[*Instruction]int, len(in.users))
		for _, u := range in.users {
			count[u]++
		}
	}
	for i, u := range in.users {
		repeated := false
		if count != nil {
			repeated = count[u] > 1
			count[u] = 0 // report once
		} else {
			v.steps += int64(len(in.users))
			repeated = firstIndex(in.users, u) == i && firstIndex(in.users[i+1:], u) >= 0
		}
		switch {
		case u == nil:
			v.errorAt(in, "%%%s lists a nil user", in.Name)
		case !v.hasOperand(u, in):
			v.errorAt(in, "%%%s lists %%%s as a user, but %%%s does not use it", in.Name, u.Name, u.Name)
		case repeated:
			v.errorAt(in, "%%%s lists user %%%s twice", in.Name, u.Name)
		}
	}
	// Each distinct operand lists in among its users (an operand used twice is checked once).
	var checked map[*Instruction]bool // for long lists of operands
	if len(in.operands) > 32 {
		checked = make(map[*Instruction]bool, len(in.operands))
	}
	for i, o := range in.operands {
		if o == nil {
			continue
		}
		if checked != nil {
			v.steps++
			if checked[o] {
				continue
			}
			checked[o] = true
		} else {
			v.steps += int64(i + 1)
			if firstIndex(in.operands, o) != i {
				continue
			}
		}
		if !v.hasUser(o, in) {
			v.errorAt(in, "%%%s uses %%%s, which does not list it among its users", in.Name, o.Name)
		}
	}
	for _, p := range in.ControlPredecessors() {
		if p == nil || p.Parent != c || !v.member(c, p) {
			name := "<nil>"
			if p != nil {
				name = p.Name
			}
			v.errorAt(in, "control predecessor %%%s of %%%s is not an instruction of computation %%%s", name, in.Name, c.Name)
		} else if v.index[p] >= v.index[in] {
			v.errorAt(in, "control predecessor %%%s of %%%s comes after it", p.Name, in.Name)
		}
	}
	for _, a := range in.Attrs {
		var called []*Computation
		switch x := a.Value.(type) {
		case CompRef:
			called = []*Computation{x.Comp}
		case CompList:
			called = x
		}
		for _, cc := range called {
			switch {
			case cc == nil:
				v.errorAt(in, "%s= of %%%s names no computation", a.Name, in.Name)
				ok = false
			case !v.comps[cc]:
				v.errorAt(in, "%%%s calls %%%s, which is not a computation of the module", in.Name, cc.Name)
				ok = false
			}
		}
	}
	v.layouts(in, in.Shape)
	v.sharding(in)
	if ok {
		v.shape(in)
		v.asyncUsers(in)
		v.asyncPair(in)
		v.collective(in)
		v.threads(c, in)
	}
}

// sharding checks, as XLA's HloSharding::Validate does, that a tuple sharding has one element for each
// leaf of the instruction's tuple shape (for an outfeed, of its data and its token), and that each tiled
// sharding fits the array it applies to (tiledError).
func (v *verifier) sharding(in *Instruction) {
	s, ok := in.Attr("sharding").(*Sharding)
	if !ok {
		return
	}
	if len(s.Tuple) == 0 {
		if msg := tiledError(s, in.Shape); msg != "" {
			v.errorAt(in, "the sharding of %%%s %s", in.Name, msg)
		}
		return
	}
	shape := in.Shape
	if in.Opcode == OpOutfeed && len(in.operands) > 0 && in.operands[0] != nil {
		shape = Tuple(in.operands[0].Shape, Shape{Kind: TokenShape})
	}
	if !shape.IsTuple() {
		v.errorAt(in, "%%%s has a tuple sharding of %d elements, but its shape %s is not a tuple", in.Name, len(s.Tuple), shape.String())
		return
	}
	leaves := appendLeaves(nil, shape)
	if len(leaves) == 0 && len(s.Tuple) == 1 {
		return // an empty tuple may have one sharding (HloSharding::CheckLeafCount)
	}
	if len(leaves) != len(s.Tuple) {
		v.errorAt(in, "the sharding of %%%s has %d elements; its shape %s has %d leaves", in.Name, len(s.Tuple), shape.String(), len(leaves))
		return
	}
	for i := range s.Tuple {
		if msg := tiledError(&s.Tuple[i], leaves[i]); msg != "" {
			v.errorAt(in, "element %d of the sharding of %%%s %s", i, in.Name, msg)
			return
		}
	}
}

// tiledError checks a tiled sharding of an array as XLA does (HloSharding::ValidateNonTuple and FromProto,
// xla/hlo/ir/hlo_sharding.cc at openxla/xla 730a92589cac): the tile assignment holds as many devices as
// the product of its dimensions, it has one dimension per dimension of the array besides its subgroup
// dimensions (one for last_tile_dim_replicate, one per type of last_tile_dims), and it names each device
// once, none negative. It returns "" for a sharding that fits, and for replicated, manual and maximal ones.
func tiledError(s *Sharding, shape Shape) string {
	if s.TileDims == nil || s.Replicated || s.Manual || !shape.IsArray() {
		return ""
	}
	tiles := int64(1)
	for _, d := range s.TileDims {
		if d < 0 || d > 1<<40 {
			return fmt.Sprintf("has a tile dimension of %d", d)
		}
		tiles *= d
		if tiles > 1<<40 {
			return "has more tiles than any machine has devices"
		}
	}
	switch {
	case s.DevicesIota != nil:
		n, msg := iotaCount(s.DevicesIota.ReshapeDims, "reshape ")
		if msg == "" && n != tiles {
			return fmt.Sprintf("has %d tiles (devices=[%s]) but an iota list of %d devices", tiles, JoinInts(s.TileDims), n)
		}
		if msg == "" {
			msg = s.DevicesIota.Problem()
		}
		if msg != "" {
			return "has an iota device list that " + msg
		}
	case int64(len(s.Devices)) != tiles:
		return fmt.Sprintf("has %d tiles (devices=[%s]) but lists %d devices", tiles, JoinInts(s.TileDims), len(s.Devices))
	}
	subgroups := len(s.LastTileDims)
	if s.LastTileDimReplicate {
		subgroups++
	}
	if len(s.TileDims)-subgroups != shape.Rank() {
		return fmt.Sprintf("has %d tile dimensions, %d of them for subgroups, for %s of rank %d", len(s.TileDims), subgroups, shape.String(), shape.Rank())
	}
	seen := make(map[int64]bool, len(s.Devices))
	for _, d := range s.Devices {
		if d < 0 {
			return fmt.Sprintf("names device %d, a negative number", d)
		}
		if seen[d] {
			return fmt.Sprintf("names device %d twice", d)
		}
		seen[d] = true
	}
	return ""
}

// appendLeaves appends the non-tuple shapes of s to dst, in order.
func appendLeaves(dst []Shape, s Shape) []Shape {
	if !s.IsTuple() {
		return append(dst, s)
	}
	for _, e := range s.Tuple {
		dst = appendLeaves(dst, e)
	}
	return dst
}

// asyncEnds gives, for each instruction that starts an asynchronous operation, the instructions that may
// continue or end it.
var asyncEnds = map[Opcode][]Opcode{
	OpAsyncStart:             {OpAsyncUpdate, OpAsyncDone},
	OpAsyncUpdate:            {OpAsyncUpdate, OpAsyncDone},
	OpCopyStart:              {OpCopyDone},
	OpAllReduceStart:         {OpAllReduceDone},
	OpAllGatherStart:         {OpAllGatherDone},
	OpCollectivePermuteStart: {OpCollectivePermuteDone},
}

// asyncUsers checks, as XLA's verifier does, that an asynchronous operation started (or updated) by in is
// continued by exactly one instruction, which continues or ends that operation.
func (v *verifier) asyncUsers(in *Instruction) {
	ends, ok := asyncEnds[in.Opcode]
	if !ok {
		return
	}
	if len(in.users) != 1 {
		v.errorAt(in, "%s %%%s needs one user that continues it, has %d", in.Opcode, in.Name, len(in.users))
		return
	}
	u := in.users[0]
	for _, e := range ends {
		if u.Opcode == e {
			return
		}
	}
	v.errorAt(in, "%s %%%s is used by %s %%%s, which does not continue it", in.Opcode, in.Name, u.Opcode, u.Name)
}

// firstIndex returns the index of the first in in l, or -1.
func firstIndex(l []*Instruction, in *Instruction) int {
	for i, x := range l {
		if x == in {
			return i
		}
	}
	return -1
}

func containsInst(l []*Instruction, in *Instruction) bool {
	for _, x := range l {
		if x == in {
			return true
		}
	}
	return false
}

// layouts checks that every layout in s orders exactly the dimensions of its array.
func (v *verifier) layouts(in *Instruction, s Shape) {
	switch s.Kind {
	case TupleShape:
		for _, e := range s.Tuple {
			v.layouts(in, e)
		}
	case ArrayShape:
		if s.Layout == nil {
			return
		}
		if !isPermutation(s.Layout.MinorToMajor, s.Rank()) {
			v.errorAt(in, "the layout %s of %%%s does not order the %d dimensions of %s", intsString(s.Layout.MinorToMajor), in.Name, s.Rank(), s.String())
		}
		if msg := layoutFieldsError(s.Layout); msg != "" {
			v.errorAt(in, "the layout of %%%s %s", in.Name, msg)
		}
	}
}

// layoutFieldsError is the rest of XLA's LayoutUtil::ValidateLayoutForShape: tiles have dimensions and none
// of size 0, the element size is not negative, the index and pointer types are unsigned integer types, and
// only sparse arrays have them or a physical shape. It returns what is wrong, or "".
func layoutFieldsError(l *Layout) string {
	for _, t := range l.Tiles {
		if len(t) == 0 || slices.Contains(t, 0) {
			return "has a tile with no dimension or one of size 0"
		}
	}
	if l.ElementSizeBits < 0 {
		return fmt.Sprintf("has a negative element size %d", l.ElementSizeBits)
	}
	sparse := false
	for _, d := range l.DimLevelTypes {
		sparse = sparse || !strings.HasPrefix(d, "D")
	}
	for _, t := range []dtype.Type{l.IndexType, l.PointerType} {
		if t != dtype.Invalid && !t.IsUnsigned() {
			return fmt.Sprintf("has index or pointer type %s; they are unsigned integer types", t)
		}
	}
	if !sparse && (l.IndexType != dtype.Invalid || l.PointerType != dtype.Invalid || l.PhysicalShape != nil) {
		return "has an index type, a pointer type or a physical shape, but the array is not sparse"
	}
	return ""
}

func (v *verifier) shape(in *Instruction) {
	switch in.Opcode {
	case OpParameter:
		return
	case OpConstant:
		if in.Literal == nil {
			v.errorAt(in, "constant %%%s has no literal", in.Name)
		} else if !in.Literal.Fits(in.Shape) {
			v.errorAt(in, "the literal of constant %%%s does not hold values of its shape %s", in.Name, in.Shape.String())
		}
		return
	case OpIota:
		v.iota(in)
		return
	case OpBitcast:
		v.bitcast(in)
		return
	case OpRng:
		v.rng(in)
		return
	case OpRngBitGenerator:
		v.rngBitGenerator(in)
		return
	}
	want, err := InferShape(in)
	if errors.Is(err, ErrCannotInfer) {
		return
	}
	if err != nil {
		v.errorAt(in, "%%%s: %v", in.Name, err)
		return
	}
	if !compatible(in.Shape, want) {
		v.errorAt(in, "shape %s of %%%s disagrees with %s gives %s", in.Shape.String(), in.Name, describeInputs(in), want.String())
	}
}

// describeInputs says what an instruction's shape was inferred from: "its operands: dot of f32[16,64] and
// f32[64,32]", "its body %b, which", ...
func describeInputs(in *Instruction) string {
	callee := func(attr, what string) string {
		if c := in.CalledComputation(attr); c != nil {
			return fmt.Sprintf("its %s %%%s, which", what, c.Name)
		}
		return "its " + what + ", which"
	}
	switch in.Opcode {
	case OpWhile:
		return callee("body", "body")
	case OpCall:
		return callee("to_apply", "called computation")
	case OpFusion:
		return callee("calls", "fused computation")
	case OpConditional:
		if l, ok := in.Attr("branch_computations").(CompList); ok && len(l) > 0 && l[0] != nil {
			return fmt.Sprintf("its first branch %%%s, which", l[0].Name)
		}
		return callee("true_computation", "first branch")
	}
	var b strings.Builder
	b.WriteString("its operands: ")
	b.WriteString(in.Opcode.String())
	switch in.Opcode {
	case OpGetTupleElement:
		if i, ok := in.Int("index"); ok {
			fmt.Fprintf(&b, " %d", i)
		}
	}
	ops := in.operands
	switch {
	case len(ops) == 0:
		b.WriteString(" of nothing")
	case len(ops) > 4:
		fmt.Fprintf(&b, " of %d operands", len(ops))
	default:
		b.WriteString(" of ")
		for i, o := range ops {
			if i > 0 {
				if i == len(ops)-1 {
					b.WriteString(" and ")
				} else {
					b.WriteString(", ")
				}
			}
			b.WriteString(o.Shape.String())
		}
	}
	return b.String()
}

func (v *verifier) iota(in *Instruction) {
	s := in.Shape
	if !s.IsArray() || s.Rank() == 0 {
		v.errorAt(in, "iota %%%s has shape %s; it must be an array of rank 1 or more", in.Name, s.String())
		return
	}
	if t := s.Elem; !t.IsInteger() && !t.IsFloat() && !t.IsComplex() {
		v.errorAt(in, "iota %%%s has elements of %s; it must be numbers", in.Name, t)
	}
	d, ok := in.Int("iota_dimension")
	if !ok {
		v.errorAt(in, "iota %%%s has no iota_dimension=", in.Name)
		return
	}
	if d < 0 || d >= int64(s.Rank()) {
		v.errorAt(in, "iota_dimension=%d of %%%s is out of range for %s", d, in.Name, s.String())
	}
}

// rng checks an rng as XLA's verifier does (ShapeVerifier::HandleRng): two scalar operands of the result's
// element type, which must be a floating-point type for rng_normal, and a floating-point or integer type or
// pred for rng_uniform. (The operand count is checked with the op table.)
func (v *verifier) rng(in *Instruction) {
	if len(in.operands) != 2 {
		return
	}
	a, b := in.operands[0].Shape, in.operands[1].Shape
	if !a.IsScalar() || !b.IsScalar() {
		v.errorAt(in, "the operands of rng %%%s are %s and %s; they must be scalars", in.Name, a.String(), b.String())
		return
	}
	if a.Elem != b.Elem || !in.Shape.IsArray() || a.Elem != in.Shape.Elem {
		v.errorAt(in, "the operands of rng %%%s are %s and %s; they must have the element type of its result %s", in.Name, a.String(), b.String(), in.Shape.String())
		return
	}
	t := a.Elem
	switch d := in.Str("distribution"); {
	case strings.EqualFold(d, "rng_uniform"):
		if !t.IsFloat() && !t.IsInteger() && t != dtype.PRED {
			v.errorAt(in, "rng %%%s draws %s from a uniform distribution; it takes floating-point, integer or pred values", in.Name, t)
		}
	case strings.EqualFold(d, "rng_normal"):
		if !t.IsFloat() {
			v.errorAt(in, "rng %%%s draws %s from a normal distribution; it takes floating-point values", in.Name, t)
		}
	default:
		v.errorAt(in, "rng %%%s has no valid distribution (rng_uniform or rng_normal): %s", in.Name, d)
	}
}

// rngBitGenerator checks what XLA's ShapeVerifier::HandleRngBitGenerator (xla/service/hlo_verifier.cc)
// does: a tuple result has two elements, the first of the state's shape.
func (v *verifier) rngBitGenerator(in *Instruction) {
	if len(in.operands) != 1 || !in.Shape.IsTuple() {
		return
	}
	if len(in.Shape.Tuple) != 2 {
		v.errorAt(in, "rng-bit-generator %%%s gives %s; it must give a tuple of two elements, the new state and the bits", in.Name, in.Shape.String())
		return
	}
	if st := in.operands[0].Shape; !compatible(st, in.Shape.Tuple[0]) {
		v.errorAt(in, "the new state of rng-bit-generator %%%s is %s; it must have the shape of its state %s", in.Name, in.Shape.Tuple[0].String(), st.String())
	}
}

// bitcast checks that a bitcast keeps the size of its operand when both shapes have plain layouts (no
// tiling or packing that changes sizes).
func (v *verifier) bitcast(in *Instruction) {
	if len(in.operands) != 1 {
		v.errorAt(in, "%%%s: bitcast takes 1 operand, has %d", in.Name, len(in.operands))
		return
	}
	from, to := in.operands[0].Shape, in.Shape
	if !plainArray(from) || !plainArray(to) {
		return
	}
	if a, b := from.ByteSize(), to.ByteSize(); a != b {
		v.errorAt(in, "bitcast %%%s turns %s (%d bytes) into %s (%d bytes)", in.Name, from.String(), a, to.String(), b)
	}
}

// plainArray reports whether s is a static array with a layout whose size is its elements' (no tiles,
// element size or padding).
func plainArray(s Shape) bool {
	if !s.IsArray() || s.Layout == nil || s.NumElements() < 0 {
		return false
	}
	for i := range s.Dims {
		if s.IsDynamic(i) {
			return false
		}
	}
	l := s.Layout
	return len(l.Tiles) == 0 && l.ElementSizeBits == 0 && l.TailPaddingAlignment <= 1 && l.PhysicalShape == nil &&
		len(l.DimLevelTypes) == 0 && l.DynamicShapeMetadataPrefixBytes == 0 && s.Elem.BitWidth()%8 == 0
}

// entryLayout checks entry_computation_layout against the entry's parameters and root, layouts aside.
func (v *verifier) entryLayout() {
	ps := v.m.EntryComputationLayout()
	e := v.m.Entry
	if ps == nil || e == nil || !v.comps[e] {
		return
	}
	if len(ps.Params) != len(e.Params) {
		v.errorAtModule("entry_computation_layout has %d parameter%s; the entry computation %%%s has %d", len(ps.Params), plural(len(ps.Params)), e.Name, len(e.Params))
	} else {
		for i, p := range e.Params {
			if p != nil && !compatible(ps.Params[i], p.Shape) {
				v.errorAtModule("entry_computation_layout gives parameter %d the shape %s; %%%s is %s", i, ps.Params[i].String(), p.Name, p.Shape.String())
			}
		}
	}
	if r := e.Root; r != nil && !compatible(ps.Result, r.Shape) {
		v.errorAtModule("entry_computation_layout gives the result the shape %s; the root %%%s of %%%s is %s", ps.Result.String(), r.Name, e.Name, r.Shape.String())
	}
}

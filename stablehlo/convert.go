package stablehlo

import (
	"bytes"
	"fmt"
	"go/scanner"
	"go/token"
	"strconv"
	"strings"

	"octet/hlo"
)

// ParseFile reads the StableHLO text src and converts each of its modules into HLO. Errors are
// positioned (file:line:col) through fset: the first syntax error, or the first op that cannot be
// converted, naming it.
//
// An attribute the conversion cannot carry into HLO is an error naming it; ParseFileNotes goes on past
// such attributes instead.
func ParseFile(fset *token.FileSet, filename string, src []byte) ([]*hlo.Module, error) {
	mods, _, err := parseFile(fset, filename, src, true)
	return mods, err
}

// ParseFileNotes is ParseFile that converts modules even when they hold attributes Octet cannot carry into
// HLO: it leaves each out and returns a note naming it at its position (file:line:col) in notes, so that a
// command that only reads the program can say what it ignored.
func ParseFileNotes(fset *token.FileSet, filename string, src []byte) (mods []*hlo.Module, notes scanner.ErrorList, err error) {
	return parseFile(fset, filename, src, false)
}

func parseFile(fset *token.FileSet, filename string, src []byte, strict bool) ([]*hlo.Module, scanner.ErrorList, error) {
	f, err := Parse(fset, filename, src)
	if err != nil {
		return nil, nil, err
	}
	var out []*hlo.Module
	var notes scanner.ErrorList
	for _, m := range f.Modules {
		hm, n, err := convertModule(fset, f, m, "", strict)
		if err != nil {
			return nil, nil, err
		}
		notes = append(notes, n...)
		out = append(out, hm)
	}
	return out, notes, nil
}

// Looks reports whether src looks like MLIR text rather than HLO text: its first word (after comments)
// is a module or a function, in the pretty or the generic form, or an alias (#loc1 = ..., !t = ...), where
// HLO text starts with "HloModule" or a computation.
func Looks(src []byte) bool {
	for len(src) > 0 {
		src = bytes.TrimLeft(src, " \t\r\n")
		if bytes.HasPrefix(src, []byte("//")) {
			if i := bytes.IndexByte(src, '\n'); i >= 0 {
				src = src[i+1:]
				continue
			}
			return false
		}
		break
	}
	for _, p := range []string{"module ", "module{", "module @", "builtin.module", "func.func", "sdy.mesh ", `"builtin.module"`, `"func.func"`, `"sdy.mesh"`, "#", "!"} {
		if bytes.HasPrefix(src, []byte(p)) {
			return true
		}
	}
	return false
}

// differentArity lists the ops whose StableHLO operands are not their HLO instruction's: while takes
// its state as one tuple, case its branches' operands, a call or custom call any number.
var differentArity = map[string]bool{
	"stablehlo.while": true, "stablehlo.case": true, "func.call": true, "stablehlo.custom_call": true,
	"stablehlo.outfeed": true, "stablehlo.send": true, "stablehlo.rng": true,
}

// stableHLOOps maps an op's StableHLO name to its opcode, from the op table.
var stableHLOOps = func() map[string]hlo.Opcode {
	m := map[string]hlo.Opcode{}
	for _, op := range hlo.Opcodes() {
		if name := op.Info().StableHLO; name != "" {
			m[name] = op
		}
	}
	return m
}()

// converter turns one module into HLO.
type converter struct {
	fset  *token.FileSet
	file  *File
	mod   *Module
	out   *hlo.Module
	funcs map[string]*Func
	comps map[string]*hlo.Computation // converted functions, by name
	busy  map[string]bool             // functions being converted, to refuse recursion
	taken map[string]bool             // every name given in the module
	next  map[string]int              // the next suffix to try for each base name
	mds   map[*Loc]hlo.Metadata       // the metadata of each location met
	err   scanner.ErrorList

	entryName string
	// direct, when a handler sets it, holds the instruction of each result of the op it converts (its
	// returned instruction then only carries the op's sharding).
	direct  []*hlo.Instruction
	regions int               // the regions made into computations so far
	strict  bool              // an attribute that cannot be converted is an error, not a note
	notes   scanner.ErrorList // what a lenient conversion left out
	manual  []string          // the manual axes of the sdy.manual_computation being converted
	// entryAttrs are the attributes of the entry's parameters and results, for the module's header.
	entryParams, entryResults []valueAttrs
}

// Convert converts module m of file f into an HLO module that passes hlo.Verify: an op whose stated
// types contradict its operands is an error at its position. The function named main (or else the first
// public one) becomes the entry computation.
func Convert(fset *token.FileSet, f *File, m *Module) (out *hlo.Module, err error) {
	out, _, err = convertModule(fset, f, m, "", true)
	return out, err
}

// convertWithEntry is Convert with the entry function named (the default choice when "").
func convertWithEntry(fset *token.FileSet, f *File, m *Module, entryName string) (out *hlo.Module, err error) {
	out, _, err = convertModule(fset, f, m, entryName, true)
	return out, err
}

// convertModule converts m with the entry function named entryName (the default choice when ""); a
// strict conversion refuses what it cannot convert, a lenient one returns notes of what it left out.
func convertModule(fset *token.FileSet, f *File, m *Module, entryName string, strict bool) (out *hlo.Module, notes scanner.ErrorList, err error) {
	c := &converter{fset: fset, file: f, mod: m, funcs: map[string]*Func{}, comps: map[string]*hlo.Computation{},
		busy: map[string]bool{}, taken: map[string]bool{}, next: map[string]int{}, mds: map[*Loc]hlo.Metadata{},
		strict: strict}
	name := m.Name
	if name == "" {
		name = "main"
	}
	c.out = &hlo.Module{Name: sanitize(name), Fset: fset, Pos: m.Pos}
	for _, fn := range m.Funcs {
		c.funcs[fn.Name] = fn
	}
	entry := c.funcs["main"]
	if entryName != "" {
		entry = c.funcs[entryName]
	}
	if entry == nil && entryName == "" {
		for _, fn := range m.Funcs {
			if fn.Visibility != "private" && fn.Body != nil {
				entry = fn
				break
			}
		}
	}
	if entry == nil || entry.Body == nil {
		return nil, nil, c.errorAt(m.Pos, "module %s has no main function", name)
	}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
			out, notes, err = nil, nil, c.err.Err()
		}
	}()
	for _, op := range m.Others {
		c.leftOut(op.Pos, "module holds %s, which is not a function or a mesh; it is not converted", op.Name)
	}
	c.entryName = entry.Name
	comp := c.function(entry)
	comp.IsEntry = true
	c.out.Entry = comp
	c.keepModuleAttrs(c.entryParams, c.entryResults)
	finish(c.out)
	// The types the text states are trusted when instructions are made; an op whose types contradict
	// its operands is reported here, at its position.
	if err := hlo.Verify(c.out); err != nil {
		return nil, nil, err
	}
	c.notes.Sort()
	return c.out, c.notes, nil
}

// errorAt returns a positioned error.
func (c *converter) errorAt(pos token.Pos, format string, args ...any) error {
	return errorAt(c.fset.Position(pos), fmt.Sprintf(format, args...))
}

// fail records a positioned error and stops the conversion.
func (c *converter) fail(pos token.Pos, format string, args ...any) {
	c.err.Add(c.fset.Position(pos), fmt.Sprintf(format, args...))
	panic(bailout{})
}

// name returns a name unused in the module, base.N with N counting from 1 for each base as XLA's
// translation names what it makes, in constant time per name: Module.UniqueName tries the suffixes from 1
// each time, which a program of many ops of one kind makes quadratic. The name is then kept as it is by
// the Add that receives it.
func (c *converter) name(base string) string {
	var name string
	for {
		c.next[base]++
		name = base + "." + strconv.Itoa(c.next[base])
		if !c.taken[name] {
			break
		}
	}
	c.taken[name] = true
	return name
}

// regionName returns the base name of the next computation made of a region, region_K as XLA's
// translation names them.
func (c *converter) regionName() string {
	name := "region_" + strconv.Itoa(c.regions)
	c.regions++
	return name
}

// sanitize makes an HLO name of an MLIR symbol or value name.
func sanitize(name string) string {
	name = strings.TrimPrefix(name, "%")
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		ch := name[i]
		if isIdentStart(ch) || isDigit(ch) || ch == '.' || ch == '-' {
			b.WriteByte(ch)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s == "" || isDigit(s[0]) {
		s = "v" + s
	}
	return s
}

// function converts a function into a computation of the module (its callees first), once.
func (c *converter) function(fn *Func) *hlo.Computation {
	if comp := c.comps[fn.Name]; comp != nil {
		return comp
	}
	if c.busy[fn.Name] {
		c.fail(fn.Pos, "function @%s calls itself; HLO has no recursion", fn.Name)
	}
	if fn.Body == nil {
		c.fail(fn.Pos, "function @%s has no body", fn.Name)
	}
	c.busy[fn.Name] = true
	comp := c.region(sanitize(fn.Name), fn.Body, fn.Params, fn.Pos, nil, plainRegion, nil)
	params, results := c.keepFuncAttrs(fn, comp)
	c.keepFuncOwnAttrs(fn, comp)
	if fn.Name == c.entryName {
		c.entryParams, c.entryResults = params, results
	}
	c.busy[fn.Name] = false
	c.comps[fn.Name] = comp
	return comp
}

// scope maps the values of one region to the instructions that hold them.
type scope struct {
	comp   *hlo.Computation
	vals   map[*Value]*hlo.Instruction
	parent *scope
}

// region converts a one-block region with the given arguments (the block's own when nil) into a
// computation added to the module, and returns it.
// captured are values of enclosing regions the region uses (implicit captures): a tupled region receives
// them as further elements of its tuple parameter, and a body region passes them on unchanged.
func (c *converter) region(name string, r *Region, args []*Value, pos token.Pos, parent *scope, mode regionMode, captured []*Value) *hlo.Computation {
	tupled := mode != plainRegion
	if len(r.Blocks) != 1 {
		c.fail(r.Pos, "a region of %d blocks; only one block is supported", len(r.Blocks))
	}
	b := r.Blocks[0]
	if args == nil {
		args = b.Args
	}
	comp := &hlo.Computation{Name: c.out.UniqueName(c.name(name)), Module: c.out, Pos: pos}
	sc := &scope{comp: comp, vals: map[*Value]*hlo.Instruction{}, parent: parent}
	var passed []*hlo.Instruction // the captured values, as the region receives them
	if tupled {
		all := append(append([]*Value(nil), args...), captured...)
		elems := make([]hlo.Shape, len(all))
		for i, a := range all {
			elems[i] = a.Type
		}
		p := comp.Add(c.name("arg_tuple"), hlo.OpParameter, paramShape(hlo.Tuple(elems...)))
		p.Pos = pos
		comp.Params = append(comp.Params, p)
		for i, a := range all {
			g := comp.Add(c.name("get-tuple-element"), hlo.OpGetTupleElement, paramShape(a.Type), p)
			g.SetAttr("index", hlo.Int(i))
			g.Pos = a.Pos
			sc.vals[a] = g
			if i >= len(args) {
				passed = append(passed, g)
			}
		}
	}
	for i, a := range args {
		if tupled {
			break
		}
		p := comp.Add(c.name("Arg_"+strconv.Itoa(i)), hlo.OpParameter, paramShape(a.Type))
		p.ParameterNumber = int64(i)
		p.Pos = a.Pos
		comp.Params = append(comp.Params, p)
		sc.vals[a] = p
	}
	var ret *Op
	for _, op := range b.Ops {
		switch op.Name {
		case "func.return", "stablehlo.return", "mhlo.return", "chlo.return", "sdy.return":
			ret = op
			continue
		}
		c.op(sc, op)
	}
	if ret == nil {
		c.fail(r.Pos, "a region without a return")
	}
	// A return's values become the root; an attribute of it has nowhere to go.
	c.keepOpAttrs(sc, ret, nil, len(comp.Instructions))
	vals := c.operands(sc, ret)
	if mode == bodyRegion {
		vals = append(vals, passed...)
	}
	switch {
	case len(vals) == 1 && mode != bodyRegion:
		comp.Root = vals[0]
	default:
		t := c.add(sc, ret, hlo.OpTuple, tupleShape(vals), vals...)
		comp.Root = t
	}
	c.out.AddComputation(comp)
	return comp
}

// regionMode says how a region's arguments and results become a computation's parameters and root.
type regionMode uint8

const (
	plainRegion regionMode = iota // one parameter per argument; a tuple root for several results
	condRegion                    // the arguments as the elements of one tuple parameter (while's condition)
	bodyRegion                    // the same, and a tuple root whatever the number of results (while's body)
)

// paramShape is the shape of a parameter of type t, with default layouts.
func paramShape(t hlo.Shape) hlo.Shape {
	s := t.Clone()
	s.SetDefaultLayouts()
	return s
}

func tupleShape(vals []*hlo.Instruction) hlo.Shape {
	elems := make([]hlo.Shape, len(vals))
	for i, v := range vals {
		elems[i] = v.Shape
	}
	return hlo.Tuple(elems...)
}

// value returns the instruction holding v in scope sc.
func (c *converter) value(sc *scope, v *Value, user *Op) *hlo.Instruction {
	if in, ok := sc.vals[v]; ok {
		return in
	}
	for p := sc.parent; p != nil; p = p.parent {
		if _, ok := p.vals[v]; ok {
			if d := v.Def; d != nil && (d.Name == "stablehlo.constant" || d.Name == "sdy.constant") && len(d.Results) == 1 {
				// A region may use a constant of the regions around it: XLA's translation makes a copy
				// of the constant inside, and so does the conversion.
				in := c.constant(sc, d)
				sc.vals[v] = in
				return in
			}
			c.fail(user.Pos, "%s uses %s from an enclosing region; implicit captures are not supported", user.Name, v.Name)
		}
	}
	c.fail(user.Pos, "%s: %s has no value here", user.Name, v.Name)
	return nil
}

// operands returns the instructions of op's operands.
func (c *converter) operands(sc *scope, op *Op) []*hlo.Instruction {
	out := make([]*hlo.Instruction, len(op.Operands))
	for i, v := range op.Operands {
		out[i] = c.value(sc, v, op)
	}
	return out
}

// add appends an instruction for op to the scope's computation, with op's location as metadata.
func (c *converter) add(sc *scope, op *Op, code hlo.Opcode, shape hlo.Shape, operands ...*hlo.Instruction) *hlo.Instruction {
	name := code.String()
	if info := code.Info(); info != nil && !info.Operands.Allows(len(operands)) {
		c.fail(op.Pos, "%s takes %s operands, has %d", op.Name, info.Operands, len(operands))
	}
	s := shape.Clone()
	s.SetDefaultLayouts()
	in := sc.comp.Add(c.name(name), code, s, operands...)
	in.Pos = op.Pos
	if md := c.metadata(op.Loc); md != nil {
		in.SetAttr("metadata", md)
	}
	return in
}

// bind records the instructions holding op's results: one per result, or the elements of a tuple.
func (c *converter) bind(sc *scope, op *Op, in *hlo.Instruction) {
	switch {
	case len(op.Results) == 0:
	case len(op.Results) == 1 && !(in.Shape.IsTuple() && len(op.OutTypes) == 1 && !op.OutTypes[0].IsTuple()):
		sc.vals[op.Results[0]] = in
	default:
		if !in.Shape.IsTuple() || len(in.Shape.Tuple) < len(op.Results) {
			c.fail(op.Pos, "%s gives %s, not the %d results its signature names", op.Name, in.Shape.String(), len(op.Results))
		}
		for i, r := range op.Results {
			g := sc.comp.Add(c.name("get-tuple-element"), hlo.OpGetTupleElement, in.Shape.Tuple[i].Clone(), in)
			g.SetAttr("index", hlo.Int(i))
			g.Pos = op.Pos
			sc.vals[r] = g
		}
	}
}

// resultShape is the shape of op's result: its one type, or a tuple of several.
func resultShape(op *Op) hlo.Shape {
	if len(op.OutTypes) == 1 {
		return op.OutTypes[0]
	}
	return hlo.Tuple(op.OutTypes...)
}

// element is get-tuple-element i of t.
func (c *converter) element(e emitter, t *hlo.Instruction, i int) *hlo.Instruction {
	g := e.add(hlo.OpGetTupleElement, t.Shape.Tuple[i], t)
	g.SetAttr("index", hlo.Int(i))
	return g
}

// op converts one operation, and the attributes any op may carry (keepOpAttrs).
func (c *converter) op(sc *scope, op *Op) {
	c.dialect(op)
	start := len(sc.comp.Instructions)
	c.direct = nil
	in := c.convertOp(sc, op)
	switch {
	case c.direct != nil:
		if len(c.direct) != len(op.Results) {
			c.fail(op.Pos, "%s gives %d values, not the %d results its signature names", op.Name, len(c.direct), len(op.Results))
		}
		for i, r := range op.Results {
			sc.vals[r] = c.direct[i]
		}
		c.direct = nil
	case in != nil:
		c.bind(sc, op, in)
	}
	c.keepOpAttrs(sc, op, in, start)
}

// convertOp converts one operation into instructions of sc's computation, and returns the one holding
// its results (nil when it has none).
func (c *converter) convertOp(sc *scope, op *Op) *hlo.Instruction {
	if op.Name == "stablehlo.custom_call" && strings.HasPrefix(op.Callee, "check.") || strings.HasPrefix(op.Name, "check.") {
		c.check(sc, op)
		return nil
	}
	if quantized(op) && !movesQuantized[op.Name] && special[op.Name] != nil {
		c.fail(op.Pos, "%s on quantized values is not supported", op.Name)
	}
	if h := special[op.Name]; h != nil {
		// The ops whose operands StableHLO and HLO count alike are held to the op table's arity before
		// their conversion reads them.
		if code, ok := stableHLOOps[op.Name]; ok && !differentArity[op.Name] {
			if info := code.Info(); !info.Operands.Allows(len(op.Operands)) {
				c.fail(op.Pos, "%s takes %s operands, has %d", op.Name, info.Operands, len(op.Operands))
			}
		}
		return h(c, sc, op)
	}
	code, ok := stableHLOOps[op.Name]
	if !ok || !code.IsElementwise() && code != hlo.OpTuple && code != hlo.OpOptimizationBarrier &&
		code != hlo.OpAfterAll && code != hlo.OpPartitionId && code != hlo.OpReplicaId {
		c.fail(op.Pos, "%s is not supported", op.Name)
	}
	if len(op.OutTypes) == 0 {
		c.fail(op.Pos, "%s without a result type", op.Name)
	}
	if quantized(op) && code.IsElementwise() && code != hlo.OpBitcastConvert && len(op.OutTypes) == 1 {
		return c.dequantizeOpQuantize(sc, op, code)
	}
	ins := c.operands(sc, op)
	if code == hlo.OpOptimizationBarrier && len(ins) != 1 {
		t := c.add(sc, op, hlo.OpTuple, tupleShape(ins), ins...)
		ins = []*hlo.Instruction{t}
	}
	return c.add(sc, op, code, resultShape(op), ins...)
}

// metadata maps a location to op_name, source_file and source_line; nil when it says nothing. Each
// location is described once: the ops that one op becomes share its metadata.
func (c *converter) metadata(l *Loc) hlo.Metadata {
	if l == nil {
		return nil
	}
	if md, ok := c.mds[l]; ok {
		return md
	}
	d := c.file.describe(l)
	var md hlo.Metadata
	if d.name != "" {
		md = append(md, hlo.KV{Key: "op_name", Value: strconv.Quote(d.name)})
	}
	if d.file != "" {
		md = append(md, hlo.KV{Key: "source_file", Value: strconv.Quote(d.file)}, hlo.KV{Key: "source_line", Value: strconv.Itoa(d.line)})
	}
	c.mds[l] = md
	return md
}

// captures returns the values the regions use but do not define, in the order of first use: what they
// capture from the regions around them.
func captures(regions ...*Region) []*Value {
	defined := map[*Value]bool{}
	var walk func(r *Region, visit func(op *Op))
	walk = func(r *Region, visit func(op *Op)) {
		for _, b := range r.Blocks {
			for _, a := range b.Args {
				defined[a] = true
			}
			for _, op := range b.Ops {
				for _, v := range op.Results {
					defined[v] = true
				}
				visit(op)
				for _, inner := range op.Regions {
					walk(inner, visit)
				}
			}
		}
	}
	for _, r := range regions {
		walk(r, func(*Op) {})
	}
	var out []*Value
	seen := map[*Value]bool{}
	for _, r := range regions {
		walk(r, func(op *Op) {
			for _, v := range op.Operands {
				if !defined[v] && !seen[v] {
					seen[v] = true
					out = append(out, v)
				}
			}
		})
	}
	return out
}

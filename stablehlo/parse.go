package stablehlo

import (
	"go/scanner"
	"go/token"
	"strconv"

	"octet/hlo"
)

// parser reads a File.
type parser struct {
	scan
	out            *File
	scopes         []map[string]*Value // innermost last; a function body starts a fresh chain
	typeAliases    map[string]hlo.Shape
	typeAliasQuant map[string]*Quant
	resources      []pendingResource
	attrAliases    map[string]Attr // the attribute aliases defined so far (#name = value), by name
	locDefs        map[string]int  // the offset of each location alias definition
	locOrder       []string        // the location aliases in the order the file defines them
	locUses        map[string]int  // the offset of the first use of each location alias used before its definition

	typeAliasNodes map[string]int64 // the types (tuples and their elements) each type alias holds
	attrAliasNodes map[string]int64 // the attribute values (lists and dictionaries count their elements) each attribute alias stands for
	attrNodes      int64            // the attribute values read so far, those aliases stand for included
	// aliasUses counts the types and attribute values that uses of aliases have stood for so far: an
	// alias may name another twice over (#a1 = [#a0, #a0], #a2 = [#a1, #a1], ...), and what reads a
	// type or a value reads all of it.
	aliasUses int64
	// denseBytes counts the bytes of the dense<...> constants read so far (see maxSplatBytes).
	denseBytes int64
	// elemName is the name of the last element type read as written (i8, si8, index, ...): Octet holds
	// signed and signless integers alike, whose ranges differ.
	elemName string
	// useAt holds the offset of each operand read by the operations being read, innermost last; an
	// operation takes its own off the end once it has read its signature.
	useAt []int
}

// pendingResource is a dense_resource whose blob comes later in the file.
type pendingResource struct {
	name string
	attr *DenseAttr
	off  int
}

// Parse reads MLIR text holding StableHLO: one or more modules (or bare functions, read as one module),
// location aliases and a resource section. Errors are positioned (file:line:col) through fset; the first
// one stops the parse.
func Parse(fset *token.FileSet, filename string, src []byte) (f *File, err error) {
	p := &parser{
		scan:           scan{src: src, file: fset.AddFile(filename, -1, len(src))},
		out:            &File{Locs: map[string]*Loc{}, Resources: map[string][]byte{}},
		typeAliases:    map[string]hlo.Shape{},
		typeAliasQuant: map[string]*Quant{},
		typeAliasNodes: map[string]int64{},
		attrAliasNodes: map[string]int64{},
		locDefs:        map[string]int{},
		locUses:        map[string]int{},
		attrAliases:    map[string]Attr{},
	}
	p.file.SetLinesForContent(src)
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
			f, err = nil, p.err.Err()
		}
	}()
	p.fileBody()
	p.resolveResources()
	p.checkLocUses()
	p.resolveLocs()
	return p.out, nil
}

// errorAt returns a positioned error as a scanner.ErrorList.
func errorAt(pos token.Position, msg string) error {
	var list scanner.ErrorList
	list.Add(pos, msg)
	return list.Err()
}

// fileBody reads the top level: modules, bare functions, aliases and the resource section.
func (p *parser) fileBody() {
	s := &p.scan
	var bare *Module
	for {
		switch c := s.peek(); {
		case c == 0:
			return
		case c == '#':
			p.attrAlias()
		case c == '!':
			p.typeAlias()
		case c == '{' && s.peekAt(1) == '-' && s.peekAt(2) == '#':
			p.resourceSection()
		case c == '"':
			// The generic form: "builtin.module"() ({ "func.func"() <{...}> ({...}) : () -> () }) : () -> ()
			start := s.off
			p.scopes = append(p.scopes, map[string]*Value{})
			op := p.op()
			p.scopes = p.scopes[:len(p.scopes)-1]
			switch op.Name {
			case "builtin.module":
				p.out.Modules = append(p.out.Modules, p.genericModule(op))
			case "func.func", "sdy.mesh":
				if bare == nil {
					bare = &Module{Pos: s.pos(start)}
					p.out.Modules = append(p.out.Modules, bare)
				}
				if op.Name == "sdy.mesh" {
					p.addMesh(bare, p.genericMesh(op), start)
					break
				}
				p.addFunc(bare, p.genericFunc(op), start)
			default:
				s.failAt(start, "expected a module or a function, found %s", op.Name)
			}
		default:
			start := s.off
			switch id := s.peekIdent(); id {
			case "module", "builtin.module":
				s.ident()
				p.out.Modules = append(p.out.Modules, p.module(start))
			case "func.func", "func":
				if bare == nil {
					bare = &Module{Pos: s.pos(start)}
					p.out.Modules = append(p.out.Modules, bare)
				}
				s.ident()
				p.addFunc(bare, p.function(start), start)
			case "sdy.mesh":
				if bare == nil {
					bare = &Module{Pos: s.pos(start)}
					p.out.Modules = append(p.out.Modules, bare)
				}
				s.ident()
				p.sdyModuleMesh(bare, start)
			default:
				s.fail("expected a module or a function, found %s", s.describe())
			}
		}
	}
}

// attrAlias reads "#name = value" at the top level; #loc aliases are kept, others ignored.
func (p *parser) attrAlias() {
	s := &p.scan
	at := s.off
	s.off++
	name := s.suffixID()
	s.want('=', "after an attribute alias name")
	if s.peekIdent() == "loc" {
		s.ident()
		if _, dup := p.locDefs[name]; dup {
			s.failAt(at, "location alias #%s defined twice", name)
		}
		p.out.Locs[name] = p.locBody()
		p.locDefs[name] = at
		p.locOrder = append(p.locOrder, name)
		return
	}
	before := p.attrNodes
	p.attrAliases[name] = p.attrValue()
	p.attrAliasNodes[name] = p.attrNodes - before
}

// typeAlias reads "!name = type".
func (p *parser) typeAlias() {
	s := &p.scan
	s.off++
	name := s.suffixID()
	s.want('=', "after a type alias name")
	t, q := p.typ()
	p.typeAliases[name] = t
	p.typeAliasQuant[name] = q
	p.typeAliasNodes[name] = shapeNodes(t)
}

// useAlias counts a use of an alias that stands for n types or attribute values, and refuses it, at
// offset at, where the uses so far stand for more than the input's size allows (maxAliasUses).
func (p *parser) useAlias(at int, kind, name string, n int64) {
	p.aliasUses += n
	if limit := maxAliasUses(len(p.src)); p.aliasUses > limit {
		p.failAt(at, "%s %s stands for %d %ss: the uses of aliases would stand for more than %d in all", kind, name, n, kind, limit)
	}
}

// maxAliasUses bounds the types and attribute values the uses of aliases stand for in a file of n bytes:
// as many as its bytes, and 65536 more, keep the reader and what reads its output linear in the input.
func maxAliasUses(n int) int64 { return int64(n) + 1<<16 }

// resourceSection reads {-# dialect_resources: { builtin: { key: "0x..." } } #-}.
func (p *parser) resourceSection() {
	s := &p.scan
	s.off += 3
	for !s.gotStr("#-}") {
		key := s.suffixID()
		s.want(':', "after a resource section name")
		s.want('{', "opening a resource section")
		for !s.got('}') {
			dialect := s.suffixID()
			s.want(':', "after a dialect name")
			s.want('{', "opening a dialect's resources")
			for !s.got('}') {
				k := s.suffixID()
				s.want(':', "after a resource key")
				at := s.off
				v := s.str()
				if key == "dialect_resources" && dialect == "builtin" {
					blob, ok := decodeHex(v)
					if !ok {
						s.failAt(at, "resource %s: not a hex blob", k)
					}
					p.out.Resources[k] = blob
				}
				s.got(',')
			}
			s.got(',')
		}
		s.got(',')
		if s.peek() == 0 {
			s.fail("missing #-} closing the resource section")
		}
	}
}

// module reads a module after its keyword.
func (p *parser) module(start int) *Module {
	s := &p.scan
	m := &Module{Pos: s.pos(start)}
	if s.peek() == '@' {
		s.off++
		m.Name = s.suffixID()
	}
	if s.peekIdent() == "attributes" {
		s.ident()
		m.Attrs = p.dict()
	}
	s.want('{', "opening the module body")
	for !s.got('}') {
		at := s.off
		switch s.peekIdent() {
		case "func.func", "func":
			s.ident()
			p.addFunc(m, p.function(at), at)
		case "sdy.mesh":
			s.ident()
			p.sdyModuleMesh(m, at)
		case "":
			if s.peek() == 0 {
				s.fail("missing '}' closing the module")
			}
			fallthrough
		default:
			// Other operations of a module (nested modules, globals) are kept for the conversion to
			// refuse by name.
			p.scopes = append(p.scopes, map[string]*Value{})
			m.Others = append(m.Others, p.op())
			p.scopes = p.scopes[:len(p.scopes)-1]
		}
	}
	p.trailingLoc()
	return m
}

// addFunc adds a function to a module's, refusing a second symbol of its name.
func (p *parser) addFunc(m *Module, f *Func, at int) {
	p.addSymbol(m, f.Name, at)
	m.Funcs = append(m.Funcs, f)
}

// addSymbol records a symbol a module defines (a function or a mesh), refusing a second definition of
// one name.
func (p *parser) addSymbol(m *Module, name string, at int) {
	if m.symbols == nil {
		m.symbols = map[string]bool{}
	}
	if m.symbols[name] {
		p.failAt(at, "redefinition of symbol @%s", name)
	}
	m.symbols[name] = true
}

// function reads a func.func after its keyword.
func (p *parser) function(start int) *Func {
	s := &p.scan
	f := &Func{Pos: s.pos(start)}
	switch id := s.peekIdent(); id {
	case "public", "private", "nested":
		s.ident()
		f.Visibility = id
	}
	if s.peek() != '@' {
		s.fail("expected the function's @name, found %s", s.describe())
	}
	s.off++
	f.Name = s.suffixID()
	saved := p.scopes
	p.scopes = []map[string]*Value{{}}
	defer func() { p.scopes = saved }()
	s.want('(', "opening the parameter list")
	if !s.got(')') {
		for {
			at := s.off
			if s.peek() != '%' {
				s.fail("expected a parameter, found %s", s.describe())
			}
			s.off++
			name := "%" + s.suffixID()
			s.want(':', "after a parameter name")
			t, q := p.typ()
			v := &Value{Name: name, Type: t, Quant: q, Index: len(f.Params), Pos: s.pos(at)}
			var attrs []NamedAttr
			if s.peek() == '{' {
				attrs = p.dict()
			}
			p.trailingLoc()
			f.Params = append(f.Params, v)
			f.ParamAttrs = append(f.ParamAttrs, attrs)
			p.define(v, at)
			if !s.got(',') {
				break
			}
		}
		s.want(')', "closing the parameter list")
	}
	if s.gotStr("->") {
		if s.got('(') {
			if !s.got(')') {
				for {
					t, q := p.typ()
					var attrs []NamedAttr
					if s.peek() == '{' {
						attrs = p.dict()
					}
					f.Results = append(f.Results, t)
					f.resultQuant = append(f.resultQuant, q)
					f.ResultAttrs = append(f.ResultAttrs, attrs)
					if !s.got(',') {
						break
					}
				}
				s.want(')', "closing the result list")
			}
		} else {
			t, q := p.typ()
			f.Results = append(f.Results, t)
			f.resultQuant = append(f.resultQuant, q)
			f.ResultAttrs = append(f.ResultAttrs, nil)
		}
	}
	if s.peekIdent() == "attributes" {
		s.ident()
		f.Attrs = p.dict()
	}
	if s.peek() == '{' {
		f.Body = p.regionBody(nil)
	}
	f.Loc = p.trailingLoc()
	p.checkReturns(f)
	return f
}

// checkReturns refuses a function whose returns do not give its result types: each return of its body
// (the op its conversion makes the computation's root of) returns as many values as the function has
// results, each of the result's type.
func (p *parser) checkReturns(f *Func) {
	if f.Body == nil {
		return
	}
	for _, b := range f.Body.Blocks {
		for _, op := range b.Ops {
			if !isReturn(op.Name) {
				continue
			}
			if len(op.Operands) != len(f.Results) {
				p.failAt(p.file.Offset(op.Pos), "%s returns %s, but function @%s has %s %s",
					op.Name, counted(len(op.Operands), "value"), f.Name, counted(len(f.Results), "result"),
					typesString(f.Results, f.resultQuant))
			}
			for i, v := range op.Operands {
				want, wantQ := f.Results[i], quantAt(f.resultQuant, i)
				if !sameType(v.Type, v.Quant, want, wantQ) {
					p.failAt(p.file.Offset(op.Pos), "%s: value %d (%s) is %s, but result %d of function @%s is %s",
						op.Name, i, v.Name, typeStringQ(v.Type, v.Quant), i, f.Name, typeStringQ(want, wantQ))
				}
			}
		}
	}
}

// isReturn reports whether an op of the name ends a region, giving its results.
func isReturn(name string) bool {
	switch name {
	case "func.return", "stablehlo.return", "mhlo.return", "chlo.return", "sdy.return":
		return true
	}
	return false
}

// counted writes n things: "1 value", "2 values".
func counted(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}

// quantAt returns element i of a list of quantizations, nil when the list is shorter (none quantized).
func quantAt(qs []*Quant, i int) *Quant {
	if i < len(qs) {
		return qs[i]
	}
	return nil
}

// define adds v to the innermost scope.
func (p *parser) define(v *Value, at int) {
	scope := p.scopes[len(p.scopes)-1]
	if _, dup := scope[v.Name]; dup {
		p.failAt(at, "%s defined twice", v.Name)
	}
	scope[v.Name] = v
}

// use resolves a value name (with any #n) in the scopes, innermost first.
func (p *parser) use(name string, at int) *Value {
	for i := len(p.scopes) - 1; i >= 0; i-- {
		if v, ok := p.scopes[i][name]; ok {
			return v
		}
	}
	p.failAt(at, "undefined value %s", name)
	return nil
}

// valueRef reads %name or %name#n.
func (p *parser) valueRef() *Value {
	s := &p.scan
	at := s.off
	if s.peek() != '%' {
		s.fail("expected a value, found %s", s.describe())
	}
	s.off++
	name := "%" + s.suffixID()
	if s.off < len(s.src) && s.src[s.off] == '#' {
		s.off++
		k := s.off
		for s.off < len(s.src) && isDigit(s.src[s.off]) {
			s.off++
		}
		if k == s.off {
			s.fail("expected a result number after '#'")
		}
		name += "#" + string(s.src[k:s.off])
	}
	p.useAt = append(p.useAt, at)
	return p.use(name, at)
}

// regionBody reads { blocks } with the given entry block arguments (already typed); each block's
// arguments and values are in a scope of their own, nested in the enclosing ones.
func (p *parser) regionBody(args []*Value) *Region {
	s := &p.scan
	s.enter()
	defer s.leave()
	r := &Region{Pos: s.pos(s.off)}
	s.want('{', "opening a region")
	p.scopes = append(p.scopes, map[string]*Value{})
	defer func() { p.scopes = p.scopes[:len(p.scopes)-1] }()
	b := &Block{Args: args}
	for _, a := range args {
		p.define(a, s.off)
	}
	for {
		c := s.peek()
		switch {
		case c == '}':
			s.off++
			if len(b.Ops) > 0 || len(b.Args) > 0 || b.Label != "" || len(r.Blocks) == 0 {
				r.Blocks = append(r.Blocks, b)
			}
			return r
		case c == '^':
			if len(b.Ops) > 0 || len(b.Args) > 0 || b.Label != "" {
				r.Blocks = append(r.Blocks, b)
			}
			b = p.blockHeader()
		case c == 0:
			s.fail("missing '}' closing a region")
		default:
			b.Ops = append(b.Ops, p.op())
		}
	}
}

// blockHeader reads ^label(%a: type, ...):.
func (p *parser) blockHeader() *Block {
	s := &p.scan
	s.off++
	b := &Block{Label: "^" + s.suffixID()}
	if s.got('(') {
		if !s.got(')') {
			for {
				at := s.off
				if s.peek() != '%' {
					s.fail("expected a block argument, found %s", s.describe())
				}
				s.off++
				v := &Value{Name: "%" + s.suffixID(), Index: len(b.Args), Pos: s.pos(at)}
				s.want(':', "after a block argument")
				v.Type, v.Quant = p.typ()
				p.trailingLoc()
				b.Args = append(b.Args, v)
				p.define(v, at)
				if !s.got(',') {
					break
				}
			}
			s.want(')', "closing the block arguments")
		}
	}
	s.want(':', "after a block label")
	return b
}

// trailingLoc reads an optional loc(...).
func (p *parser) trailingLoc() *Loc {
	s := &p.scan
	if s.peekIdent() != "loc" {
		return nil
	}
	save := s.off
	s.ident()
	if s.peek() != '(' {
		s.off = save
		return nil
	}
	return p.locBody()
}

// locBody reads (...) after "loc".
func (p *parser) locBody() *Loc {
	s := &p.scan
	s.want('(', "after loc")
	l := p.locInner()
	s.want(')', "closing loc(")
	return l
}

// locInner reads the inside of loc(...): unknown, "file":line:col, "name"(inner), callsite(a at b),
// fused[...], or #alias.
func (p *parser) locInner() *Loc {
	s := &p.scan
	s.enter()
	defer s.leave()
	switch c := s.peek(); {
	case c == '#':
		at := s.off
		s.off++
		name := s.suffixID()
		// Only the uses of an alias not defined yet are kept, for checkLocUses.
		if _, defined := p.locDefs[name]; !defined && p.locUses != nil {
			if _, seen := p.locUses[name]; !seen {
				p.locUses[name] = at
			}
		}
		return &Loc{Alias: name}
	case c == '"':
		text := s.str()
		if s.got(':') {
			l := &Loc{File: text, Line: int(s.int())}
			if s.got(':') {
				l.Col = int(s.int())
			}
			if s.peekIdent() == "to" { // a range: to line:col, or to :col
				s.ident()
				if s.peek() != ':' {
					s.int()
				}
				if s.got(':') {
					s.int()
				}
			}
			return l
		}
		l := &Loc{Name: text}
		if s.got('(') {
			l.Child = p.locInner()
			s.want(')', "closing a named location")
		}
		return l
	}
	at := s.off
	switch id := s.ident(); id {
	case "unknown":
		return &Loc{Unknown: true}
	case "callsite":
		s.want('(', "after callsite")
		l := &Loc{Callee: p.locInner()}
		if s.ident() != "at" {
			s.fail("expected 'at' in a call-site location")
		}
		l.Caller = p.locInner()
		s.want(')', "closing callsite(")
		return l
	case "fused":
		if s.got('<') {
			s.skipBalanced('>')
		}
		s.want('[', "after fused")
		l := &Loc{}
		if !s.got(']') {
			for {
				l.Fused = append(l.Fused, p.locInner())
				if !s.got(',') {
					break
				}
			}
			s.want(']', "closing fused[")
		}
		return l
	}
	s.failAt(at, "unknown location form %s", s.describe())
	return nil
}

// checkLocUses refuses a location alias that is used but never defined; an alias may be defined after
// its uses (MLIR prints them at the end of the file).
func (p *parser) checkLocUses() {
	first, at := "", -1
	for name, off := range p.locUses {
		if _, ok := p.locDefs[name]; !ok && (at < 0 || off < at) {
			first, at = name, off
		}
	}
	if at >= 0 {
		p.failAt(at, "location alias #%s is used but never defined", first)
	}
}

// resolveResources decodes each dense_resource now that the resource section has been read.
func (p *parser) resolveResources() {
	for _, r := range p.resources {
		blob, ok := p.out.Resources[r.name]
		if !ok {
			p.failAt(r.off, "dense_resource<%s> names no resource of the file", r.name)
		}
		// A blob of one element stands for any number, as a splat does; a blob may be used many times.
		p.denseSize(r.off, "dense_resource<"+r.name+">", r.attr.Type)
		lit, err := literalFromBlob(blob, r.attr.Type)
		if err != nil {
			p.failAt(r.off, "dense_resource<%s>: %v", r.name, err)
		}
		*r.attr.Literal = *lit
	}
}

// genericModule makes a Module of a "builtin.module" written in the generic form.
func (p *parser) genericModule(op *Op) *Module {
	m := &Module{Pos: op.Pos}
	for _, a := range op.Attrs {
		if a.Name == "sym_name" {
			if n, ok := a.Value.(StringAttr); ok {
				m.Name = string(n)
			}
			continue
		}
		m.Attrs = append(m.Attrs, a)
	}
	for _, r := range op.Regions {
		for _, b := range r.Blocks {
			for _, inner := range b.Ops {
				switch inner.Name {
				case "func.func":
					p.addFunc(m, p.genericFunc(inner), p.file.Offset(inner.Pos))
				case "sdy.mesh":
					p.addMesh(m, p.genericMesh(inner), p.file.Offset(inner.Pos))
				default:
					m.Others = append(m.Others, inner)
				}
			}
		}
	}
	return m
}

// genericFunc makes a Func of a "func.func" written in the generic form: its name, visibility, type and
// argument and result attributes are properties, its parameters the arguments of its entry block.
func (p *parser) genericFunc(op *Op) *Func {
	f := &Func{Pos: op.Pos, Loc: op.Loc}
	if n, ok := op.Attr("sym_name").(StringAttr); ok {
		f.Name = string(n)
	} else {
		p.failAt(p.file.Offset(op.Pos), "func.func without a sym_name")
	}
	if v, ok := op.Attr("sym_visibility").(StringAttr); ok {
		f.Visibility = string(v)
	}
	ft, ok := op.Attr("function_type").(FuncTypeAttr)
	if !ok {
		p.failAt(p.file.Offset(op.Pos), "func.func @%s without a function_type", f.Name)
	}
	f.Results = ft.Out
	f.resultQuant = ft.outQuant
	f.ResultAttrs = make([][]NamedAttr, len(ft.Out))
	if len(op.Regions) > 0 && len(op.Regions[0].Blocks) > 0 {
		f.Body = op.Regions[0]
		f.Params = f.Body.Blocks[0].Args
	}
	if f.Body != nil && len(f.Params) != len(ft.In) {
		p.failAt(p.file.Offset(op.Pos), "func.func @%s: %d block arguments for %d parameter types", f.Name, len(f.Params), len(ft.In))
	}
	for i, v := range f.Params {
		if want, wantQ := ft.In[i], quantAt(ft.inQuant, i); !sameType(v.Type, v.Quant, want, wantQ) {
			p.failAt(p.file.Offset(v.Pos), "func.func @%s: argument %d (%s) is %s, but its function type gives %s",
				f.Name, i, v.Name, typeStringQ(v.Type, v.Quant), typeStringQ(want, wantQ))
		}
	}
	f.ParamAttrs = make([][]NamedAttr, len(ft.In))
	p.checkReturns(f)
	return f
}

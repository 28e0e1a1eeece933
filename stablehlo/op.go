package stablehlo

import (
	"strconv"
	"strings"

	"octet/hlo"
)

// Internal attribute names the pretty forms give to what they write positionally.
const (
	attrInit     = "@init"      // reduce(%x init: %y): inputs and initial values interleaved
	attrInits    = "@inits"     // chlo.scan(%x) inits(%y): the index of the first initial value
	attrIterArgs = "@iter_args" // while(%iterArg = %x): the names of the region arguments
	attrIndex    = "@index"     // get_tuple_element %t[1]
	attrApplies  = "@applies"   // reduce ... applies stablehlo.add
	attrSlice    = "@slice"     // slice %x [0:2, 1:3:2]
)

// op reads one operation, in the generic or the pretty form, with its results, regions and location.
func (p *parser) op() *Op {
	s := &p.scan
	s.enter()
	defer s.leave()
	start := s.off
	op := &Op{Pos: s.pos(start)}
	type result struct {
		name string
		n    int
		at   int
	}
	var results []result
	uses := len(p.useAt)
	if s.peek() == '%' {
		for {
			at := s.off
			s.want('%', "starting a result name")
			r := result{name: "%" + s.suffixID(), n: 1, at: at}
			if s.got(':') {
				r.n = int(s.int())
				if r.n < 1 || r.n > 1<<16 {
					s.failAt(at, "bad result count %d", r.n)
				}
			}
			results = append(results, r)
			if !s.got(',') {
				break
			}
		}
		s.want('=', "after the results")
	}
	if s.peek() == '"' {
		op.Name = s.str()
		p.generic(op)
	} else {
		at := s.off
		op.Name = s.ident()
		if op.Name == "" {
			s.failAt(at, "expected an operation, found %s", s.describe())
		}
		if !strings.Contains(op.Name, ".") {
			op.Name = "func." + op.Name // return and call are written without their dialect in func.func
		}
		if strings.HasPrefix(op.Name, "sdy.") {
			p.sdyOp(op)
		} else {
			p.pretty(op)
		}
	}
	op.Loc = p.trailingLoc()
	p.checkOperandTypes(op, p.useAt[uses:])
	p.useAt = p.useAt[:uses]
	// Results take the types of the signature.
	total := 0
	for _, r := range results {
		total += r.n
	}
	if total > 0 && op.InTypes == nil && len(op.OutTypes) > total {
		// The short signature of select and the like: the operand types that differ, then the result's.
		k := len(op.OutTypes) - total
		op.InTypes, op.OutTypes = op.OutTypes[:k], op.OutTypes[k:]
		if op.OutQuant != nil {
			op.OutQuant = op.OutQuant[k:]
		}
	}
	if len(results) > 0 && total != len(op.OutTypes) {
		s.failAt(start, "%s: %d results named but the signature gives %d", op.Name, total, len(op.OutTypes))
	}
	k := 0
	for _, r := range results {
		for i := 0; i < r.n; i++ {
			name := r.name
			if r.n > 1 {
				name += "#" + strconv.Itoa(i)
			}
			v := &Value{Name: name, Type: op.OutTypes[k], Def: op, Index: k, Pos: s.pos(r.at)}
			if k < len(op.OutQuant) {
				v.Quant = op.OutQuant[k]
			}
			op.Results = append(op.Results, v)
			p.define(v, r.at)
			k++
		}
	}
	return op
}

// generic reads the rest of "name"(operands) <{props}> (regions) {attrs} : (types) -> types.
func (p *parser) generic(op *Op) {
	s := &p.scan
	s.want('(', "opening the operand list")
	if !s.got(')') {
		for {
			op.Operands = append(op.Operands, p.valueRef())
			if !s.got(',') {
				break
			}
		}
		s.want(')', "closing the operand list")
	}
	if s.got('[') { // successors
		s.skipBalanced(']')
	}
	if s.peek() == '<' && s.peekAt(1) == '{' {
		s.off++
		op.Attrs = append(op.Attrs, p.dict()...)
		s.want('>', "closing the properties")
	}
	if s.peek() == '(' && s.peekAt(1) != ')' {
		s.off++
		for {
			op.Regions = append(op.Regions, p.regionBody(nil))
			if !s.got(',') {
				break
			}
		}
		s.want(')', "closing the region list")
	}
	if s.peek() == '{' {
		op.Attrs = append(op.Attrs, p.dict()...)
	}
	s.want(':', "before the operation's type")
	p.signature(op)
}

// signature reads the types after ':': (a, b) -> c, (a) -> (b, c), a -> b, or a list of types that are
// both the operands' and the results'.
func (p *parser) signature(op *Op) {
	s := &p.scan
	var in []hlo.Shape
	if s.peek() == '(' {
		s.off++
		if !s.got(')') {
			in, op.inQuant = p.typeListQuant()
			s.want(')', "closing the operand types")
		}
		if in == nil {
			in = []hlo.Shape{}
		}
		if !s.gotStr("->") {
			// "(a, b)" alone would be a function type without results; MLIR does not write it.
			s.fail("expected '->' after the operand types")
		}
	} else {
		in, op.OutQuant = p.typeListQuant()
		if !s.gotStr("->") {
			op.OutTypes = in
			if len(op.Operands) == len(in) {
				op.InTypes = in
				op.inQuant = op.OutQuant
			}
			return
		}
		op.inQuant = op.OutQuant
	}
	op.InTypes = in
	op.functional = true
	op.OutQuant = nil
	if s.peek() == '(' {
		s.off++
		op.OutTypes = []hlo.Shape{}
		if !s.got(')') {
			op.OutTypes, op.OutQuant = p.typeListQuant()
			s.want(')', "closing the result types")
		}
		return
	}
	t, q := p.typ()
	op.OutTypes = []hlo.Shape{t}
	if q != nil {
		op.OutQuant = []*Quant{q}
	}
}

// checkOperandTypes refuses an op whose signature gives an operand a type other than the type of the
// value it uses, as MLIR does: the operand types of a function type (the initial values of reduce's
// "(%x init: %y)" come after the inputs there), the types of a return, of a while or of an
// optimization_barrier, and the one type of an elementwise op's short form, which is its operands' and
// its result's. uses are the offsets of the operands as written, where the error is reported.
func (p *parser) checkOperandTypes(op *Op, uses []int) {
	var types []hlo.Shape
	var quant []*Quant
	order := func(i int) int { return i } // the operand that signature type i describes
	switch {
	case op.functional:
		if len(op.InTypes) != len(op.Operands) {
			p.failAt(p.file.Offset(op.Pos), "%s has %s, but its signature gives %s", op.Name,
				counted(len(op.Operands), "operand"), counted(len(op.InTypes), "operand type"))
		}
		types, quant = op.InTypes, op.inQuant
		if op.hasAttr(attrInit) && len(op.Operands)%2 == 0 {
			n := len(op.Operands) / 2
			order = func(i int) int {
				if i < n {
					return 2 * i
				}
				return 2*(i-n) + 1
			}
		}
	case isReturn(op.Name):
		if len(op.OutTypes) != len(op.Operands) {
			p.failAt(p.file.Offset(op.Pos), "%s has %s, but %s", op.Name, counted(len(op.Operands), "operand"),
				counted(len(op.OutTypes), "type"))
		}
		types, quant = op.OutTypes, op.OutQuant
	case op.InTypes != nil && (op.Name == "stablehlo.while" || op.Name == "stablehlo.optimization_barrier"):
		types, quant = op.InTypes, op.inQuant
	case len(op.OutTypes) == 1 && len(op.Operands) > 0 && sameTypeShortForm(op.Name):
		t, q := op.OutTypes[0], quantAt(op.OutQuant, 0)
		for range op.Operands {
			types, quant = append(types, t), append(quant, q)
		}
	default:
		return
	}
	for i, t := range types {
		k := order(i)
		v, q := op.Operands[k], quantAt(quant, i)
		if sameType(v.Type, v.Quant, t, q) {
			continue
		}
		at := p.file.Offset(op.Pos)
		if len(uses) == len(op.Operands) {
			at = uses[k]
		}
		p.failAt(at, "%s: operand %d (%s) is %s, but the signature gives %s", op.Name, k, v.Name,
			typeStringQ(v.Type, v.Quant), typeStringQ(t, q))
	}
}

// sameTypeShortForm reports whether an op written with one type for all (name %a, %b : t) states its
// operands' type with it: StableHLO's elementwise ops do, but for complex, whose one type is its
// result's.
func sameTypeShortForm(name string) bool {
	code, ok := stableHLOOps[name]
	return ok && code.IsElementwise() && code != hlo.OpComplex
}

// hasAttr reports whether op has an attribute of the name, without marking it read.
func (op *Op) hasAttr(name string) bool {
	for _, a := range op.Attrs {
		if a.Name == name {
			return true
		}
	}
	return false
}

// typeListQuant reads a comma-separated list of types, with the quantization of each (nil when none of
// them is quantized).
func (p *parser) typeListQuant() ([]hlo.Shape, []*Quant) {
	s := &p.scan
	var out []hlo.Shape
	var quant []*Quant
	for {
		t, q := p.typ()
		if q != nil && quant == nil {
			quant = make([]*Quant, len(out), len(out)+1)
		}
		if quant != nil {
			quant = append(quant, q)
		}
		out = append(out, t)
		if !s.got(',') {
			return out, quant
		}
	}
}

// pretty reads the custom form of an op: operands, keyword = value pairs, bare words, parenthesised
// operand groups, an attribute dictionary, then ": signature" and any regions that follow it.
func (p *parser) pretty(op *Op) {
	s := &p.scan
	for done := false; !done; {
		switch c := s.peek(); {
		case c == '%':
			op.Operands = append(op.Operands, p.valueRef())
			if s.peek() == '[' && op.Name == "stablehlo.get_tuple_element" {
				s.off++
				op.Attrs = append(op.Attrs, NamedAttr{attrIndex, IntAttr{V: s.int()}})
				s.want(']', "closing the tuple index")
			}
		case c == ',':
			s.off++
		case c == '(':
			s.off++
			p.group(op)
		case c == '@':
			s.off++
			op.Callee = s.suffixID()
		case c == '{':
			if !s.atDictStart() {
				op.Regions = append(op.Regions, p.regionBody(nil))
				break
			}
			op.Attrs = append(op.Attrs, p.dict()...)
		case c == '[':
			op.Attrs = append(op.Attrs, NamedAttr{attrSlice, p.attrValue()})
		case c == '"':
			op.Words = append(op.Words, s.str())
		case c == ':':
			s.off++
			p.signature(op)
			done = true
		case c == 'd' && s.peekIdent() == "dense" || c == 'd' && s.peekIdent() == "dense_resource":
			v := p.attrValue()
			op.Attrs = append(op.Attrs, NamedAttr{"value", v})
			if d, ok := v.(*DenseAttr); ok && s.peek() != ':' {
				op.OutTypes = []hlo.Shape{d.Type} // the constant's type was read with its value
				if s.peek() == '{' && s.atDictStart() {
					op.Attrs = append(op.Attrs, p.dict()...)
				}
				done = true
			}
		case c == '}' || c == 0 || c == '^':
			done = true
		case isIdentStart(c):
			save := s.off
			word := s.ident()
			switch {
			case word == "loc" && s.peek() == '(':
				s.off = save
				done = true
			case word == "applies":
				op.Attrs = append(op.Attrs, NamedAttr{attrApplies, WordAttr(s.ident())})
			case word == "across":
			case word == "inits" && s.peek() == '(':
				// chlo.scan(%inputs) inits(%inits): where the initial values begin.
				op.Attrs = append(op.Attrs, NamedAttr{attrInits, IntAttr{V: int64(len(op.Operands))}})
			case word == "cond" || word == "do" || word == "reducer" || word == "else" || word == "then":
				s.off = save
				done = true
			case s.peek() == '=' && s.peekAt(1) != '=':
				s.off++
				op.Attrs = append(op.Attrs, NamedAttr{word, p.prettyValue()})
			default:
				if s.lineBreakBefore(save) {
					// A bare word at the start of a line is the next operation: "return" takes no
					// signature when it returns nothing.
					s.off = save
					done = true
					break
				}
				op.Words = append(op.Words, word)
			}
		default:
			s.fail("%s: unexpected %s", op.Name, s.describe())
		}
	}
	p.trailingRegions(op)
}

// lineBreakBefore reports whether a newline separates off from the text before it.
func (s *scan) lineBreakBefore(off int) bool {
	for i := off - 1; i >= 0; i-- {
		switch s.src[i] {
		case '\n':
			return true
		case ' ', '\t', '\r':
			continue
		}
		return false
	}
	return true
}

// atDictStart reports whether the '{' ahead opens an attribute dictionary ({name = ...} or {}) rather
// than a region.
func (s *scan) atDictStart() bool {
	save := s.off
	defer func() { s.off = save }()
	s.off++
	if s.peek() == '}' {
		return true
	}
	if s.peek() == '"' {
		s.str()
	} else if s.ident() == "" {
		return false
	}
	c := s.peek()
	return c == '=' || c == ',' || c == '}'
}

// group reads a parenthesised list of a pretty form: operands, "%x init: %y" of reduce, "%arg = %x" of
// while, or keyword = value pairs (chlo.top_k(%x, k = 1)).
func (p *parser) group(op *Op) {
	s := &p.scan
	var iterArgs ListAttr
	for !s.got(')') {
		switch c := s.peek(); {
		case c == '%':
			at := s.off
			if name, ok := p.iterArgName(); ok {
				iterArgs = append(iterArgs, StringAttr(name))
				op.Operands = append(op.Operands, p.valueRef())
				break
			}
			s.off = at
			op.Operands = append(op.Operands, p.valueRef())
		case c == ',':
			s.off++
		case isIdentStart(c):
			word := s.ident()
			if word == "init" && s.got(':') {
				if op.Attr(attrInit) == nil {
					op.Attrs = append(op.Attrs, NamedAttr{attrInit, BoolAttr(true)})
				}
				op.Operands = append(op.Operands, p.valueRef())
				break
			}
			s.want('=', "after "+word)
			op.Attrs = append(op.Attrs, NamedAttr{word, p.prettyValue()})
		default:
			s.fail("%s: unexpected %s", op.Name, s.describe())
		}
	}
	if iterArgs != nil {
		op.Attrs = append(op.Attrs, NamedAttr{attrIterArgs, iterArgs})
	}
}

// iterArgName reads "%name =" when it comes next.
func (p *parser) iterArgName() (string, bool) {
	s := &p.scan
	save := s.off
	s.off++
	name := "%" + s.suffixID()
	if s.peek() == '=' {
		s.off++
		return name, true
	}
	s.off = save
	return "", false
}

// trailingRegions reads the regions a pretty form writes after its signature: "cond {...} do {...}" of
// while, "reducer(%a: t, %b: t) {...}" of reduce, or bare "{...}" regions.
func (p *parser) trailingRegions(op *Op) {
	s := &p.scan
	for {
		save := s.off
		switch word := s.peekIdent(); {
		case word == "cond" || word == "do":
			s.ident()
			op.Regions = append(op.Regions, p.regionBody(p.iterRegionArgs(op)))
		case word == "reducer":
			s.ident()
			var pairs [][2]*Value
			for s.got('(') {
				var pair [2]*Value
				for i := range pair {
					at := s.off
					s.want('%', "starting a reducer argument")
					v := &Value{Name: "%" + s.suffixID(), Pos: s.pos(at)}
					s.want(':', "after a reducer argument")
					v.Type, v.Quant = p.typ()
					pair[i] = v
					if i == 0 {
						s.want(',', "between a reducer's two arguments")
					}
				}
				s.want(')', "closing a reducer's arguments")
				pairs = append(pairs, pair)
			}
			args := make([]*Value, 2*len(pairs))
			for i, pr := range pairs {
				args[i], args[len(pairs)+i] = pr[0], pr[1]
			}
			for i, a := range args {
				a.Index = i
			}
			op.Regions = append(op.Regions, p.regionBody(args))
		case word == "else" || word == "then":
			s.ident()
			op.Regions = append(op.Regions, p.regionBody(nil))
		case word == "attributes" && s.peekAt(len(word)) != 0:
			// while(...) : types attributes {...} cond {...} do {...}
			s.ident()
			if s.peek() != '{' {
				s.off = save
				return
			}
			op.Attrs = append(op.Attrs, p.dict()...)
		case word == "" && s.peek() == '{' && !s.atDictStart():
			op.Regions = append(op.Regions, p.regionBody(nil))
		default:
			s.off = save
			return
		}
	}
}

// iterRegionArgs makes the region arguments of a pretty while from its "%iterArg = %x" names.
func (p *parser) iterRegionArgs(op *Op) []*Value {
	names, _ := op.Attr(attrIterArgs).(ListAttr)
	args := make([]*Value, len(names))
	for i, n := range names {
		args[i] = &Value{Name: string(n.(StringAttr)), Index: i, Pos: op.Pos}
		if i < len(op.Operands) {
			args[i].Type, args[i].Quant = op.Operands[i].Type, op.Operands[i].Quant
		}
	}
	return args
}

// prettyValue reads the value of a pretty form's keyword: an attribute, a bare word, or the
// "[1] x [0]" and "[b, 0, f]x[0, i, o]->[b, 0, f]" notations.
func (p *parser) prettyValue() Attr {
	s := &p.scan
	start := s.off
	if c := s.peek(); isIdentStart(c) && !p.startsAttrWord() {
		return WordAttr(s.ident())
	}
	v := p.attrValue()
	if s.peekIdent() == "x" {
		s.ident()
		w := p.attrValue()
		if s.gotStr("->") {
			p.attrValue()
			return RawAttr(strings.TrimSpace(string(s.src[start:s.off])))
		}
		l, lok := intList(v)
		r, rok := intList(w)
		if lok && rok {
			return DimsAttr{l, r}
		}
		return RawAttr(strings.TrimSpace(string(s.src[start:s.off])))
	}
	return v
}

// startsAttrWord reports whether the identifier ahead begins an attribute value rather than a bare word.
func (p *parser) startsAttrWord() bool {
	switch p.peekIdent() {
	case "true", "false", "dense", "dense_resource", "array", "unit", "tensor", "tuple", "complex":
		return true
	}
	return false
}

// intList returns the integers of a list attribute.
func intList(a Attr) ([]int64, bool) {
	switch a := a.(type) {
	case ListAttr:
		out := make([]int64, len(a))
		for i, e := range a {
			v, ok := e.(IntAttr)
			if !ok {
				return nil, false
			}
			out[i] = v.V
		}
		return out, true
	case ArrayAttr:
		return a.Vals, true
	}
	return nil, false
}

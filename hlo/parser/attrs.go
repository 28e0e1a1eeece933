package parser

import (
	"strconv"
	"strings"
	"unicode"

	"octet/dtype"
	"octet/hlo"
)

// attributes reads ", name=value" pairs while they follow: those of instruction in, or, when in is nil,
// those of a module header or a computation, whose specs header gives. Each value is read as the kind its
// spec gives (hlo.AttrSpec), an attribute without a spec by the form of its value.
func (p *parser) attributes(in *hlo.Instruction, header func(name string) *hlo.AttrSpec) []hlo.Attr {
	// The attributes are gathered above those of enclosing instructions (a value may hold a computation)
	// and copied out at the end, into a slice of the right size.
	base := len(p.attrStack)
	var seen map[string]bool
	for {
		save := p.off
		p.skipSpace()
		if p.peek() != ',' {
			p.off = save
			break
		}
		p.off++
		p.skipSpace()
		nameStart := p.off
		name := p.word()
		p.skipSpace()
		if name == "" || p.peek() != '=' {
			// Not an attribute: ", operand" in an enclosing operand list, or an error the caller reports.
			p.off = save
			break
		}
		p.off++
		p.skipSpace()
		if given(p.attrStack[base:], &seen, name) {
			p.errorAt(nameStart, "attribute %s is given twice", name)
		}
		var spec *hlo.AttrSpec
		if in != nil {
			spec = hlo.LookupAttr(in.Opcode, in.AsyncWrapped, name)
		} else {
			spec = header(name)
		}
		v, ok := p.attrValue(in, spec, name, len(p.attrStack)-base)
		if !ok {
			break
		}
		if in == nil && spec != nil {
			// An instruction's attributes are checked with the instruction (checkOperation); a header's
			// here. A header may hold attributes Octet has no spec for: they are kept as read.
			if msg := hlo.CheckAttr(spec, v); msg != "" {
				p.errorAt(nameStart, "attribute %s %s", name, msg)
			}
		}
		p.attrStack = append(p.attrStack, hlo.Attr{Name: name, Value: v})
	}
	var attrs []hlo.Attr
	if n := len(p.attrStack) - base; n > 0 {
		// Carved from a block, with the capacity capped so that appending to it cannot reach a neighbour.
		if n > 32 {
			attrs = make([]hlo.Attr, n)
		} else {
			if len(p.attrSlab) < n {
				p.attrSlab = make([]hlo.Attr, 256)
			}
			attrs, p.attrSlab = p.attrSlab[:n:n], p.attrSlab[n:]
		}
		copy(attrs, p.attrStack[base:])
		clear(p.attrStack[base:])
		p.attrStack = p.attrStack[:base]
	}
	return attrs
}

// given reports whether attrs has an attribute called name, and notes name in *seen. Instructions have a
// few attributes; past a handful, the set *seen keeps the check from growing with their number.
func given(attrs []hlo.Attr, seen *map[string]bool, name string) bool {
	const few = 16
	if len(attrs) < few {
		for _, a := range attrs {
			if a.Name == name {
				return true
			}
		}
		return false
	}
	if *seen == nil {
		*seen = make(map[string]bool, 2*few)
		for _, a := range attrs {
			(*seen)[a.Name] = true
		}
	}
	dup := (*seen)[name]
	(*seen)[name] = true
	return dup
}

// attrValue reads the value of the attribute name, whose spec is spec (nil when its owner does not take
// it), as a value of the spec's kind; index is the attribute's place among its owner's.
func (p *parser) attrValue(in *hlo.Instruction, spec *hlo.AttrSpec, name string, index int) (hlo.Value, bool) {
	start := p.off
	if in == nil && p.peek() == '"' && hlo.HeaderTable(name) {
		return p.quotedTable(name)
	}
	kind := hlo.AttrText
	if spec != nil {
		kind = spec.Kind
	}
	switch kind {
	case hlo.AttrInts:
		if p.peek() != '{' {
			break
		}
		l, ok := p.intList("in ", name)
		return hlo.Ints(l), ok
	case hlo.AttrFloat:
		text := p.valueToken()
		f, err := dtype.ParseFloat(text, 32)
		if err != nil || text == "" {
			p.errorAt(start, "expected a number for %s, found %q", name, text)
			return nil, false
		}
		return hlo.Float(f), true
	case hlo.AttrIntLists:
		if p.peek() != '{' {
			break
		}
		ll, ok := p.intLists(name)
		return hlo.IntLists(ll), ok
	case hlo.AttrString:
		if p.peek() != '"' {
			break
		}
		s, ok := p.quoted()
		return hlo.String(s), ok
	case hlo.AttrEnum:
		if w := p.word(); w != "" {
			return hlo.Enum(spec.Canonical(w)), true
		}
		p.errorAt(start, "expected a value for %s, found %s", name, p.describe())
		return nil, false
	case hlo.AttrEnums:
		if p.peek() != '{' {
			break
		}
		return p.enums(spec)
	case hlo.AttrComp, hlo.AttrComps:
		return p.compRefList(in, name, index)
	case hlo.AttrInsts:
		return p.instRefs(in, name, index)
	case hlo.AttrSlice:
		return p.slice()
	case hlo.AttrPadding:
		return p.padding()
	case hlo.AttrWindow:
		return p.window()
	case hlo.AttrConvDims:
		return p.convDims()
	case hlo.AttrBackendConfig:
		if p.peek() == '"' {
			s, ok := p.quoted()
			return &hlo.BackendConfig{Text: s, Quoted: true}, ok
		}
		end, ok := p.balancedEnd(p.off)
		if !ok {
			return nil, false
		}
		p.off = end
		return &hlo.BackendConfig{Text: p.src[start:end]}, true
	case hlo.AttrMetadata:
		if p.peek() != '{' {
			break
		}
		kvs, ok := p.keyValues("metadata", ' ')
		return hlo.Metadata(kvs), ok
	case hlo.AttrFrontendAttributes:
		if p.peek() != '{' {
			break
		}
		kvs, ok := p.keyValues("frontend_attributes", ',')
		return hlo.FrontendAttributes(kvs), ok
	case hlo.AttrReplicaGroups:
		return p.replicaGroups()
	case hlo.AttrSharding:
		end, ok := p.balancedEnd(p.off)
		if !ok {
			return nil, false
		}
		p.off = end
		return decodeSharding(p.src[start:end]), true
	case hlo.AttrAliasing:
		return p.aliasing()
	case hlo.AttrShape:
		// outfeed_shape=(u32[3]{0}, pred[]): checked as a shape, kept as written.
		if _, ok := p.scratchShape(); !ok {
			return nil, false
		}
		return hlo.Raw(p.src[start:p.off]), true
	case hlo.AttrShapes:
		if p.peek() != '{' {
			break
		}
		return p.shapeList(name)
	case hlo.AttrLiteral:
		// literal=s32[] 1: a shape, a space and a value; or a tuple of them in parentheses, kept as text.
		if p.peek() == '(' {
			end, ok := p.balancedEnd(p.off)
			if !ok {
				return nil, false
			}
			p.off = end
			return hlo.Raw(p.src[start:end]), true
		}
		if !p.startsShape() {
			break
		}
		s, ok := p.shape()
		if !ok {
			return nil, false
		}
		s = s.Clone()
		lit := p.literal(s)
		if lit == nil {
			return nil, false
		}
		return &hlo.ShapedLiteral{Shape: s, Literal: lit}, true
	case hlo.AttrProgramShape:
		if p.peek() != '{' {
			p.errorAt(p.off, "expected '{' to open %s, found %s", name, p.describe())
			return nil, false
		}
		return p.programShape()
	case hlo.AttrInputOutputAlias:
		return p.inputOutputAlias()
	case hlo.AttrBufferDonors:
		return p.bufferDonors()
	}
	// By the form of the value: a value of another form than its kind's is reported by the check of its
	// owner, at the attribute's name.
	end, ok := p.balancedEnd(p.off)
	if !ok {
		return nil, false
	}
	if end == start {
		p.errorAt(start, "expected a value for %s, found %s", name, p.describe())
		return nil, false
	}
	p.off = end
	text := p.src[start:end]
	switch text {
	case "true":
		return hlo.Bool(true), true
	case "false":
		return hlo.Bool(false), true
	}
	if n, ok := decimal(text); ok && canonicalInt(text) {
		return hlo.Int(n), true
	}
	return hlo.Raw(text), true
}

// The header tables (hlo.HeaderTable) are kept as written (hlo.Raw). Octet's readable style, which puts
// no raw line end or control character in its output, writes such a table as one C-escaped string
// ("{\n  ...\n}"); XLA never writes a string there, so the parser reads that form back to the table's
// text (package printer's moduleAttrs writes it, with appendReadableQuoted).

// quotedTable reads a header table written as a string by the readable style and returns its text, which
// must be one bracketed value as XLA writes it: what the table would have read as.
func (p *parser) quotedTable(name string) (hlo.Value, bool) {
	start := p.off
	s, ok := p.quoted()
	if !ok {
		return nil, false
	}
	if !wholeValue(s, p.depth) {
		p.errorAt(start, "the string given for %s is not one table in braces", name)
		return nil, false
	}
	return hlo.Raw(s), true
}

// wholeValue reports whether s is one bracketed value that starts with '{' and ends where the parser's
// reading of it ends (balancedEnd), nested less than maxNesting deep with depth levels above it.
func wholeValue(s string, depth int) (ok bool) {
	if s == "" || s[0] != '{' {
		return false
	}
	defer func() {
		if r := recover(); r != nil {
			if _, bail := r.(bailout); !bail {
				panic(r)
			}
			ok = false // nested too deep: the fileless parser reports nothing and bails out
		}
	}()
	sub := &parser{src: s, end: len(s), depth: depth}
	end, ok := sub.balancedEnd(0)
	return ok && end == len(s)
}

// canonicalInt reports whether the decimal integer text is written as strconv.FormatInt writes it: no '+',
// no leading zero, no "-0".
func canonicalInt(text string) bool {
	digits := strings.TrimPrefix(text, "-")
	return text[0] != '+' && (digits[0] != '0' || text == "0")
}

func (p *parser) intLists(context string) ([][]int64, bool) {
	p.off++ // {
	ll := [][]int64{}
	if p.accept('}') {
		return ll, true
	}
	for {
		l, ok := p.intList("in ", context)
		if !ok {
			return nil, false
		}
		ll = append(ll, l)
		if p.accept('}') {
			return ll, true
		}
		if !p.expect(',', "in ", context) {
			return nil, false
		}
	}
}

// names reads %a or {%a, %b}; list reports whether braces were used.
func (p *parser) nameList(what string) (names []string, poss []int, list bool, ok bool) {
	if p.peek() != '{' {
		pos := p.off
		n, ok := p.name()
		if !ok {
			p.errorAt(pos, "expected a %s name, found %s", what, p.describe())
			return nil, nil, false, false
		}
		return []string{n}, []int{pos}, false, true
	}
	p.off++
	if p.accept('}') {
		return nil, nil, true, true
	}
	for {
		p.skipSpace()
		pos := p.off
		n, ok := p.name()
		if !ok {
			p.errorAt(pos, "expected a %s name, found %s", what, p.describe())
			return nil, nil, true, false
		}
		names = append(names, n)
		poss = append(poss, pos)
		if p.accept('}') {
			return names, poss, true, true
		}
		if !p.expect(',', "in a list of ", what, "s") {
			return nil, nil, true, false
		}
	}
}

func (p *parser) compRefList(in *hlo.Instruction, name string, index int) (hlo.Value, bool) {
	if in != nil && p.startsInlineComputation() {
		// to_apply={ a = f32[] parameter(0) ... }: a computation written in place, named after its caller.
		start := p.off
		p.enter(start)
		p.off++
		c := &hlo.Computation{Name: p.uniqueName(in.Name + "." + name), Module: p.mod, Pos: p.pos(start)}
		p.comps[c.Name] = c
		ok := p.computationBody(c, start)
		p.leave()
		if !ok {
			return nil, false
		}
		p.mod.AddComputation(c)
		return hlo.CompRef{Comp: c}, true
	}
	names, poss, list, ok := p.nameList("computation")
	if !ok {
		return nil, false
	}
	if in != nil {
		p.compRefs = append(p.compRefs, compFixup{in: in, attr: index, names: names, poss: poss})
	}
	if list {
		return make(hlo.CompList, len(names)), true
	}
	return hlo.CompRef{}, true
}

// startsInlineComputation reports whether a '{' at the offset opens a computation body rather than a list of
// names: its first entry is ROOT or a name followed by '='.
func (p *parser) startsInlineComputation() bool {
	if p.peek() != '{' {
		return false
	}
	save := p.off
	defer func() { p.off = save }()
	p.off++
	w := p.word()
	if w == "ROOT" {
		return true
	}
	if w == "" {
		if _, ok := p.name(); !ok {
			return false
		}
	}
	p.skipSpace()
	return p.peek() == '='
}

func (p *parser) instRefs(in *hlo.Instruction, name string, index int) (hlo.Value, bool) {
	names, poss, _, ok := p.nameList("instruction")
	if !ok {
		return nil, false
	}
	if in != nil {
		p.ctrlRefs = append(p.ctrlRefs, ctrlFixup{in: in, attr: index, names: names, poss: poss})
	}
	return hlo.InstList{}, true
}

// resolveComputations fills in computation references once every computation is known.
func (p *parser) resolveComputations() {
	for _, f := range p.compRefs {
		list, isList := f.in.Attrs[f.attr].Value.(hlo.CompList)
		for i, n := range f.names {
			c, ok := p.comps[n]
			if !ok {
				p.errorAt(f.poss[i], "%%%s calls %%%s, which is not a computation of the module", f.in.Name, n)
				return
			}
			if !isList {
				f.in.Attrs[f.attr].Value = hlo.CompRef{Comp: c}
				break
			}
			list[i] = c
		}
	}
}

// slice reads {[start:limit(:stride)], ...}.
func (p *parser) slice() (hlo.Value, bool) {
	if !p.expect('{', "to open slice") {
		return nil, false
	}
	s := hlo.Slice{}
	if p.accept('}') {
		return s, true
	}
	for {
		if !p.expect('[', "in slice") {
			return nil, false
		}
		var d hlo.SliceDim
		var ok bool
		if d.Start, ok = p.integer("as a slice start"); !ok || !p.expect(':', "in slice") {
			return nil, false
		}
		if d.Limit, ok = p.integer("as a slice limit"); !ok {
			return nil, false
		}
		d.Stride = 1
		if p.accept(':') {
			if d.Stride, ok = p.integer("as a slice stride"); !ok {
				return nil, false
			}
		}
		if !p.expect(']', "in slice") {
			return nil, false
		}
		s = append(s, d)
		if p.accept('}') {
			return s, true
		}
		if !p.expect(',', "in slice") {
			return nil, false
		}
	}
}

// token reads a run of value characters (no white space, commas or braces).
func (p *parser) valueToken() string {
	p.skipSpace()
	start := p.off
	for p.off < p.end {
		c := p.src[p.off]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == '}' || c == ')' || c == '{' {
			break
		}
		p.off++
	}
	return p.src[start:p.off]
}

// padding reads lo_hi[_interior]x...
func (p *parser) padding() (hlo.Value, bool) {
	start := p.off
	text := p.valueToken()
	pad, ok := parsePadding(text)
	if !ok {
		p.errorAt(start, "bad padding %q: expected low_high or low_high_interior per dimension, joined by x", text)
		return nil, false
	}
	return pad, true
}

func parsePadding(text string) (hlo.Padding, bool) {
	pad := hlo.Padding{}
	if text == "" {
		return pad, false
	}
	for _, dim := range strings.Split(text, "x") {
		parts := strings.Split(dim, "_")
		if len(parts) != 2 && len(parts) != 3 {
			return nil, false
		}
		var v [3]int64
		for i, s := range parts {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return nil, false
			}
			v[i] = n
		}
		pad = append(pad, hlo.PadDim{Low: v[0], High: v[1], Interior: v[2]})
	}
	return pad, true
}

// window reads {size=AxB stride=... pad=... lhs_dilate=... rhs_dilate=... rhs_reversal=...}.
func (p *parser) window() (hlo.Value, bool) {
	start := p.off
	if !p.expect('{', "to open window") {
		return nil, false
	}
	fields := map[string][]string{}
	var order []string
	for !p.accept('}') {
		kstart := p.off
		k := p.word()
		if k == "" || !p.expect('=', "after ", k, " in window") {
			p.errorAt(kstart, "expected field=value in window, found %s", p.describe())
			return nil, false
		}
		v := p.valueToken()
		if _, dup := fields[k]; dup {
			p.errorAt(kstart, "window field %s is given twice", k)
			return nil, false
		}
		switch k {
		case "size", "stride", "pad", "lhs_dilate", "rhs_dilate", "rhs_reversal":
		default:
			p.errorAt(kstart, "unknown window field %q", k)
			return nil, false
		}
		fields[k] = strings.Split(v, "x")
		order = append(order, k)
	}
	rank := -1
	for _, k := range order {
		if rank >= 0 && len(fields[k]) != rank {
			p.errorAt(start, "window fields have different numbers of dimensions")
			return nil, false
		}
		rank = len(fields[k])
	}
	if rank < 0 {
		return hlo.Window{}, true
	}
	w := make(hlo.Window, rank)
	for i := range w {
		w[i] = hlo.WindowDim{Size: 1, Stride: 1, BaseDilation: 1, WindowDilation: 1}
	}
	num := func(s string) (int64, bool) {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			p.errorAt(start, "bad number %q in window", s)
		}
		return n, err == nil
	}
	for k, vals := range fields {
		for i, s := range vals {
			var ok bool
			switch k {
			case "size":
				w[i].Size, ok = num(s)
			case "stride":
				w[i].Stride, ok = num(s)
			case "lhs_dilate":
				w[i].BaseDilation, ok = num(s)
			case "rhs_dilate":
				w[i].WindowDilation, ok = num(s)
			case "rhs_reversal":
				var n int64
				n, ok = num(s)
				w[i].Reversal = n != 0
			case "pad":
				lo, hi, cut := strings.Cut(s, "_")
				if !cut {
					p.errorAt(start, "bad window padding %q: expected low_high", s)
					return nil, false
				}
				if w[i].PadLow, ok = num(lo); ok {
					w[i].PadHigh, ok = num(hi)
				}
			}
			if !ok {
				return nil, false
			}
		}
	}
	return w, true
}

// convDims reads dim_labels such as b01f_01io->b01f.
func (p *parser) convDims() (hlo.Value, bool) {
	start := p.off
	text := p.valueToken()
	if strings.IndexByte(text, '?') >= 0 {
		// Labels of a custom call with dimensions of unknown role ("?b01f_0?1io->b01?f"): kept as text.
		return hlo.Raw(text), true
	}
	cd, err := parseConvDims(text)
	if err != "" {
		p.errorAt(start, "bad dim_labels %q: %s", text, err)
		return nil, false
	}
	return cd, true
}

func parseConvDims(text string) (*hlo.ConvDims, string) {
	lhsRhs, out, ok := strings.Cut(text, "->")
	if !ok {
		return nil, "expected input_kernel->output"
	}
	lhs, rhs, ok := strings.Cut(lhsRhs, "_")
	if !ok {
		return nil, "expected input_kernel->output"
	}
	n := len(lhs)
	if len(rhs) != n || len(out) != n || n < 2 {
		return nil, "the three parts must have the same length"
	}
	spatial := func(s string, a, b byte) (x, y int64, sp []int64, err string) {
		x, y = -1, -1
		sp = make([]int64, n-2)
		seen := make([]bool, n-2)
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case c == a:
				x = int64(i)
			case c == b:
				y = int64(i)
			case c >= '0' && c <= '9' && int(c-'0') < n-2 && !seen[c-'0']:
				sp[c-'0'] = int64(i)
				seen[c-'0'] = true
			default:
				return 0, 0, nil, "unexpected " + strconv.QuoteRune(rune(c)) + " in " + s
			}
		}
		if x < 0 || y < 0 {
			return 0, 0, nil, s + " must name " + string(a) + " and " + string(b)
		}
		return x, y, sp, ""
	}
	cd := &hlo.ConvDims{}
	var err string
	if cd.InputBatch, cd.InputFeature, cd.InputSpatial, err = spatial(lhs, 'b', 'f'); err != "" {
		return nil, err
	}
	if cd.KernelInputFeature, cd.KernelOutput, cd.KernelSpatial, err = spatial(rhs, 'i', 'o'); err != "" {
		return nil, err
	}
	if cd.OutputBatch, cd.OutputFeature, cd.OutputSpatial, err = spatial(out, 'b', 'f'); err != "" {
		return nil, err
	}
	return cd, ""
}

// keyValues reads {k=v k=v} (sep ' ') or {k=v,k=v} (sep ','), keeping each value's text.
func (p *parser) keyValues(what string, sep byte) ([]hlo.KV, bool) {
	p.off++ // {
	// The pairs are gathered in a buffer reused for every value (no value nests another) and copied out.
	kvs := p.kvBuf[:0]
	defer func() { p.kvBuf = kvs[:0] }()
	for {
		p.skipSpace()
		if p.peek() == '}' {
			p.off++
			return append(make([]hlo.KV, 0, len(kvs)), kvs...), true
		}
		if len(kvs) > 0 {
			if sep == ',' && !p.expect(',', "between ", what) {
				return nil, false
			}
			if sep == ' ' && p.peek() == ',' {
				// Hand-written metadata sometimes separates pairs with commas.
				p.off++
			}
			p.skipSpace()
		}
		kstart := p.off
		var key string
		if p.peek() == '"' {
			end, ok := p.stringEnd(p.off)
			if !ok {
				return nil, false
			}
			key = p.src[p.off:end]
			p.off = end
		} else {
			key = p.word()
		}
		if key == "" || !p.accept('=') {
			p.errorAt(kstart, "expected key=value in %s, found %s", what, p.describe())
			return nil, false
		}
		p.skipSpace()
		vstart := p.off
		var end int
		if p.peek() == '"' {
			e, ok := p.stringEnd(p.off)
			if !ok {
				return nil, false
			}
			end = e
		} else {
			e, ok := p.kvValueEnd(sep)
			if !ok {
				return nil, false
			}
			end = e
		}
		kvs = append(kvs, hlo.KV{Key: key, Value: p.src[vstart:end]})
		p.off = end
	}
}

// kvValueEnd finds the end of an unquoted metadata or frontend-attribute value: balanced brackets, up to
// the separator or the closing brace at depth 0.
func (p *parser) kvValueEnd(sep byte) (int, bool) {
	depth := 0
	for i := p.off; i < p.end; i++ {
		c := p.src[i]
		switch c {
		case '"':
			e, ok := p.stringEnd(i)
			if !ok {
				return e, false
			}
			i = e - 1
		case '{', '[', '(', '<':
			depth++
		case ']', ')', '>':
			depth--
		case '}':
			if depth == 0 {
				return i, true
			}
			depth--
		case '\n', '\r':
			if depth == 0 && sep == ' ' {
				// White space, which ends a metadata value as a space does: XLA's lexer reads metadata
				// written over several lines.
				return i, true
			}
			p.errorAt(p.off, "value not terminated before the end of the line")
			return i, false
		default:
			if depth == 0 && (c == sep || sep == ' ' && (c == '\t' || c == ',')) {
				return i, true
			}
		}
	}
	p.errorAt(p.off, "'}' expected before the end of input")
	return p.end, false
}

// replicaGroups reads {{0,1},{2,3}} or [groups,size]<=[dims](T(perm)).
func (p *parser) replicaGroups() (hlo.Value, bool) {
	if strings.HasPrefix(p.src[p.off:p.end], "mesh[") {
		// mesh['x'=2,'y'=2] {'y'}: the mesh and the axes the groups run along.
		start := p.off
		end, ok := p.balancedEnd(p.off)
		if !ok {
			return nil, false
		}
		p.off = end
		save := p.off
		if p.skipSpaceLine(); p.peek() == '{' {
			end, ok = p.balancedEnd(p.off)
			if !ok {
				return nil, false
			}
			p.off = end
		} else {
			p.off = save
		}
		return &hlo.ReplicaGroups{Mesh: p.src[start:p.off]}, true
	}
	if p.peek() == '{' {
		ll, ok := p.intLists("replica_groups")
		return &hlo.ReplicaGroups{Groups: ll}, ok
	}
	il, ok := p.iotaList("replica_groups")
	if !ok {
		return nil, false
	}
	return &hlo.ReplicaGroups{Iota: il}, true
}

// iotaList reads [dims]<=[reshape](T(perm)).
func (p *parser) iotaList(what string) (*hlo.IotaList, bool) {
	dims, ok := p.bracketInts(what)
	if !ok {
		return nil, false
	}
	p.skipSpace()
	if !strings.HasPrefix(p.src[p.off:p.end], "<=") {
		p.errorAt(p.off, "expected '<=' in %s, found %s", what, p.describe())
		return nil, false
	}
	p.off += 2
	reshape, ok := p.bracketInts(what)
	if !ok {
		return nil, false
	}
	il := &hlo.IotaList{Dims: dims, ReshapeDims: reshape}
	if p.peek() == 'T' {
		p.off++
		if !p.expect('(', "after T in ", what) {
			return nil, false
		}
		perm := []int64{}
		for !p.accept(')') {
			n, ok := p.integer("in a transpose of ", what)
			if !ok {
				return nil, false
			}
			perm = append(perm, n)
			p.accept(',')
		}
		il.Transpose = perm
	}
	return il, true
}

func (p *parser) bracketInts(what string) ([]int64, bool) {
	if !p.expect('[', "in ", what) {
		return nil, false
	}
	l := p.dimBuf[:0]
	for !p.accept(']') {
		n, ok := p.integer("in ", what)
		if !ok {
			return nil, false
		}
		l = append(l, n)
		if !p.accept(',') && p.skipSpaceAndPeek() != ']' {
			p.errorAt(p.off, "expected ',' or ']' in %s, found %s", what, p.describe())
			return nil, false
		}
	}
	p.dimBuf = l[:0]
	return append(make([]int64, 0, len(l)), l...), true
}

// aliasing reads {{0}: (0, {}), {1}: (1, {1})} (an optional third part, such as may-alias, is kept out).
func (p *parser) aliasing() (hlo.Value, bool) {
	if !p.expect('{', "to open output_to_operand_aliasing") {
		return nil, false
	}
	al := hlo.Aliasing{}
	for !p.accept('}') {
		if len(al) > 0 && !p.expect(',', "in output_to_operand_aliasing") {
			return nil, false
		}
		out, ok := p.intList("as an output index")
		if !ok || !p.expect(':', "in output_to_operand_aliasing") || !p.expect('(', "in output_to_operand_aliasing") {
			return nil, false
		}
		opnd, ok := p.integer("as an operand number")
		if !ok || !p.expect(',', "in output_to_operand_aliasing") {
			return nil, false
		}
		idx, ok := p.intList("as an operand index")
		if !ok || !p.expect(')', "in output_to_operand_aliasing") {
			return nil, false
		}
		al = append(al, hlo.OutputOperandAlias{Output: out, Operand: opnd, OperandIndex: idx})
	}
	return al, true
}

// enums reads {a,b,c}, a list of the words of spec's enum, each kept as XLA prints it (Canonical).
func (p *parser) enums(spec *hlo.AttrSpec) (hlo.Value, bool) {
	p.off++ // {
	l := hlo.Enums{}
	for !p.accept('}') {
		if len(l) > 0 && !p.expect(',', "between the values of "+spec.Name) {
			return nil, false
		}
		p.skipSpace()
		w := p.word()
		if w == "" {
			p.errorAt(p.off, "expected a value of %s, found %s", spec.Name, p.describe())
			return nil, false
		}
		l = append(l, spec.Canonical(w))
	}
	return l, true
}

// shapeList reads {shape, shape, ...}.
func (p *parser) shapeList(name string) (hlo.Value, bool) {
	p.off++ // {
	l := hlo.Shapes{}
	for !p.accept('}') {
		if len(l) > 0 && !p.expect(',', "between the shapes of "+name) {
			return nil, false
		}
		s, ok := p.shape()
		if !ok {
			return nil, false
		}
		l = append(l, s.Clone())
	}
	return l, true
}

// inputOutputAlias reads { {0}: (0, {}, may-alias), ... }: output index, parameter number, parameter
// index and an optional kind.
func (p *parser) inputOutputAlias() (hlo.Value, bool) {
	const ctx = "in input_output_alias"
	if !p.expect('{', "to open input_output_alias") {
		return nil, false
	}
	al := hlo.InputOutputAliasing{}
	for !p.accept('}') {
		if len(al) > 0 && !p.expect(',', ctx) {
			return nil, false
		}
		out, ok := p.intList("as an output index " + ctx)
		if !ok || !p.expect(':', ctx) || !p.expect('(', ctx) {
			return nil, false
		}
		param, ok := p.integer("as a parameter number " + ctx)
		if !ok || !p.expect(',', ctx) {
			return nil, false
		}
		idx, ok := p.intList("as a parameter index " + ctx)
		if !ok {
			return nil, false
		}
		e := hlo.InputOutputAlias{Output: out, Parameter: param, ParameterIndex: idx}
		if p.accept(',') {
			p.skipSpace()
			at := p.off
			switch w := p.word(); w {
			case "may-alias":
				e.Kind = hlo.MayAlias
			case "must-alias":
				e.Kind = hlo.MustAlias
			default:
				p.off = at
				p.errorAt(at, "expected may-alias or must-alias %s, found %s", ctx, p.describe())
				return nil, false
			}
		}
		if !p.expect(')', ctx) {
			return nil, false
		}
		al = append(al, e)
	}
	return al, true
}

// bufferDonors reads { (0, {}), (1, {1}) }: parameter numbers and indices.
func (p *parser) bufferDonors() (hlo.Value, bool) {
	const ctx = "in buffer_donor"
	if !p.expect('{', "to open buffer_donor") {
		return nil, false
	}
	ds := hlo.BufferDonors{}
	for !p.accept('}') {
		if len(ds) > 0 && !p.expect(',', ctx) {
			return nil, false
		}
		if !p.expect('(', ctx) {
			return nil, false
		}
		param, ok := p.integer("as a parameter number " + ctx)
		if !ok || !p.expect(',', ctx) {
			return nil, false
		}
		idx, ok := p.intList("as a parameter index " + ctx)
		if !ok || !p.expect(')', ctx) {
			return nil, false
		}
		ds = append(ds, hlo.BufferDonor{Parameter: param, ParameterIndex: idx})
	}
	return ds, true
}

// programShape reads {(shapes)->shape}.
func (p *parser) programShape() (hlo.Value, bool) {
	p.off++ // {
	if !p.expect('(', "in entry_computation_layout") {
		return nil, false
	}
	ps := &hlo.ProgramShape{Params: []hlo.Shape{}}
	for !p.accept(')') {
		s, ok := p.shape()
		if !ok {
			return nil, false
		}
		ps.Params = append(ps.Params, s)
		if !p.accept(',') && p.skipSpaceAndPeek() != ')' {
			p.errorAt(p.off, "expected ',' or ')' in entry_computation_layout, found %s", p.describe())
			return nil, false
		}
	}
	p.skipSpace()
	if !strings.HasPrefix(p.src[p.off:p.end], "->") {
		p.errorAt(p.off, "expected '->' in entry_computation_layout, found %s", p.describe())
		return nil, false
	}
	p.off += 2
	r, ok := p.shape()
	if !ok || !p.expect('}', "to close entry_computation_layout") {
		return nil, false
	}
	ps.Result = r
	return ps, true
}

// decodeSharding decodes the parts of a sharding Octet reasons about; the text itself is kept whole.
func decodeSharding(text string) *hlo.Sharding {
	if !strings.HasPrefix(strings.TrimLeftFunc(strings.TrimPrefix(strings.TrimLeftFunc(text, unicode.IsSpace), "{"), unicode.IsSpace), "{") {
		// Not a tuple ("{{" after white space): no braces to match.
		return decodeShardingIn(text, 0, len(text), nil)
	}
	// close[i] is the offset of the '}' that closes the '{' at offset i (-1 when none does), found in one
	// pass so that a tuple's elements are found without reading nested ones again.
	close := make([]int32, len(text))
	var open []int32
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '{':
			close[i] = -1
			open = append(open, int32(i))
		case '}':
			if n := len(open); n > 0 {
				close[open[n-1]] = int32(i)
				open = open[:n-1]
			}
		}
	}
	return decodeShardingIn(text, 0, len(text), close)
}

// decodeShardingIn decodes text[lo:hi].
func decodeShardingIn(text string, lo, hi int, close []int32) *hlo.Sharding {
	s := &hlo.Sharding{Text: text[lo:hi], Maximal: -1}
	trimmed := strings.TrimLeftFunc(text[lo:hi], unicode.IsSpace)
	lo += hi - lo - len(trimmed)
	hi = lo + len(strings.TrimRightFunc(trimmed, unicode.IsSpace))
	if hi-lo < 2 || text[lo] != '{' || text[hi-1] != '}' {
		return s
	}
	trimmed = strings.TrimLeftFunc(text[lo+1:hi-1], unicode.IsSpace)
	lo = hi - 1 - len(trimmed)
	hi = lo + len(strings.TrimRightFunc(trimmed, unicode.IsSpace))
	body := text[lo:hi]
	if strings.HasPrefix(body, "{") {
		// A tuple sharding: the elements are the groups at depth 0.
		depth := 0
		for i := lo; i < hi; i++ {
			switch text[i] {
			case '{':
				if depth == 0 {
					// Inside the group the depth stays above 0 until its closing brace, which is therefore
					// the one that matches it.
					if e := int(close[i]); e >= 0 && e < hi {
						s.Tuple = append(s.Tuple, *decodeShardingIn(text, i, e+1, close))
						i = e
						continue
					}
				}
				depth++
			case '}':
				depth--
			}
		}
		return s
	}
	if i := strings.Index(body, "last_tile_dims={"); i >= 0 {
		list := body[i+len("last_tile_dims={"):]
		if j := strings.IndexByte(list, '}'); j >= 0 {
			for _, t := range strings.Split(list[:j], ",") {
				if t = strings.TrimSpace(t); t != "" {
					s.LastTileDims = append(s.LastTileDims, t)
				}
			}
		}
	}
	for _, f := range strings.Fields(body) {
		switch {
		case f == "replicated":
			s.Replicated = true
		case f == "manual":
			s.Manual = true
		case f == "last_tile_dim_replicate":
			s.LastTileDimReplicate = true
		case strings.HasPrefix(f, "device="):
			if n, err := strconv.ParseInt(f[len("device="):], 10, 64); err == nil {
				s.Maximal = n
			}
		case strings.HasPrefix(f, "devices="):
			sub := &parser{src: f, off: len("devices="), end: len(f), slabs: &slabs{}}
			dims, ok := sub.bracketInts("devices")
			if !ok {
				continue
			}
			s.TileDims = dims
			if strings.HasPrefix(f[sub.off:], "<=") {
				sub.off = len("devices=")
				if il, ok := sub.iotaList("devices"); ok {
					s.DevicesIota = il
				}
				continue
			}
			for _, d := range strings.Split(f[sub.off:], ",") {
				if n, err := strconv.ParseInt(d, 10, 64); err == nil {
					s.Devices = append(s.Devices, n)
				}
			}
		}
	}
	return s
}

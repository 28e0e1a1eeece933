package parser

import (
	"bytes"
	"fmt"
	"go/scanner"
	"go/token"
	"octet/internal/cstring"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"octet/dtype"
	"octet/hlo"
)

// maxErrors bounds the errors one parse reports; past it the parse stops.
const maxErrors = 50

// maxNesting bounds how deeply the text may nest: tuple shapes, instructions inside operand lists,
// computations written in place, and the brackets of attribute values each count one level. Real modules
// nest a few levels; the bound keeps the parser's (and its callers') recursion shallow whatever the input.
const maxNesting = 1000

// ParseFile parses every module of src (modules are separated by lines that start with "// -----", as XLA's
// test tools split files). The error, when not nil, is a scanner.ErrorList of every problem found, sorted by
// position; the modules that parsed are returned with it. A file of a registered format (RegisterFormat)
// goes to that format's reader.
//
// Bad input is never a panic. A panic out of ParseFile is a bug, in the parser or in a registered reader,
// and is not turned into an error: as go/parser does, each module's parse recovers only its own bail-out
// (after 50 errors, or nesting deeper than 1000 levels) and lets anything else through, with its stack.
func ParseFile(fset *token.FileSet, filename string, src []byte) (mods []*hlo.Module, err error) {
	return parseFile(fset, filename, src, string(src))
}

// ParseFileString is ParseFile for text held in a string, which the modules share instead of a copy: a
// caller that reads a file into a buffer it never changes again can hand it over with unsafe.String and
// hold the text once, not twice.
func ParseFileString(fset *token.FileSet, filename string, src string) (mods []*hlo.Module, err error) {
	return parseFile(fset, filename, unsafe.Slice(unsafe.StringData(src), len(src)), src)
}

// parseFile parses src, whose text is also given as a string for the modules to keep.
func parseFile(fset *token.FileSet, filename string, src []byte, text string) (mods []*hlo.Module, err error) {
	file := fset.AddFile(filename, -1, len(src))
	file.SetLines(lineStarts(src))
	var errs scanner.ErrorList
	if read := readerFor(src); read != nil {
		// Another registered format (an HloModuleProto in protobuf text format).
		return read(fset, file, src)
	}
	shared := &slabs{}
	broadcastLeft := maxBroadcastBytes
	for _, ch := range splitModules(text) {
		p := &parser{src: text, off: ch.start, end: ch.end, file: file, fset: fset, slabs: shared, broadcastLeft: &broadcastLeft}
		m := p.parseModule()
		errs = append(errs, p.errs...)
		if m != nil && len(p.errs) == 0 {
			mods = append(mods, m)
		}
		if len(errs) >= maxErrors {
			break
		}
	}
	errs.Sort()
	errs.RemoveMultiples()
	return mods, errs.Err()
}

// lineStarts returns the offset of the start of every line of src, as token.File.SetLinesForContent finds
// them, searching for newlines a word at a time. A line ends as the parser's lines do (see lineEnd): at
// "\n", at "\r\n", or at a carriage return alone (text from an old Mac editor), so that positions count
// the lines an editor shows.
func lineStarts(src []byte) []int {
	if len(src) == 0 {
		return nil
	}
	if bytes.IndexByte(src, '\r') >= 0 {
		lines := []int{0}
		for i, c := range src[:len(src)-1] {
			if c == '\n' || c == '\r' && src[i+1] != '\n' {
				lines = append(lines, i+1)
			}
		}
		return lines
	}
	lines := make([]int, 1, bytes.Count(src, []byte{'\n'})+1)
	for off := 0; ; {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return lines
		}
		off += i + 1
		if off == len(src) {
			return lines
		}
		lines = append(lines, off)
	}
}

// ParseModule parses src, which must hold exactly one module.
func ParseModule(fset *token.FileSet, filename string, src []byte) (*hlo.Module, error) {
	mods, err := ParseFile(fset, filename, src)
	if err != nil {
		return nil, err
	}
	if len(mods) != 1 {
		return nil, fmt.Errorf("%s: holds %d modules; one was expected", filename, len(mods))
	}
	return mods[0], nil
}

// ParseString parses the single module in src, naming it name in positions.
func ParseString(name, src string) (*hlo.Module, error) {
	return ParseModule(token.NewFileSet(), name, []byte(src))
}

type chunk struct{ start, end int }

// splitModules cuts text at "// -----" lines.
func splitModules(text string) []chunk {
	var chunks []chunk
	start := 0
	// Search for the separator's text, rare elsewhere, rather than look at every line.
	for off := 0; ; {
		i := strings.Index(text[off:], "// -----")
		if i < 0 {
			break
		}
		i += off
		eol := i + lineEnd(text[i:])
		if (i == 0 || text[i-1] == '\n' || text[i-1] == '\r') && strings.TrimRight(text[i:eol], " \t") == "// -----" {
			chunks = append(chunks, chunk{start, i})
			start = eol
		}
		off = eol
	}
	chunks = append(chunks, chunk{start, len(text)})
	// Drop chunks that hold nothing but white space and comments.
	out := chunks[:0]
	for _, c := range chunks {
		p := &parser{src: text, off: c.start, end: c.end}
		p.skipSpace()
		if p.off < p.end {
			out = append(out, c)
		}
	}
	return out
}

// parser reads one module from src[off:end].
type parser struct {
	src  string
	off  int
	end  int
	file *token.File
	fset *token.FileSet
	errs scanner.ErrorList

	mod *hlo.Module
	// compRefs are computation references to resolve once every computation is known.
	compRefs []compFixup
	comps    map[string]*hlo.Computation
	names    map[string]bool // the names made by uniqueName
	// defs maps a name to the last instruction defined with it. Names are mostly unique in a module,
	// so one table serves every computation: an entry is of the current computation when the
	// instruction's parent is.
	defs *nameTable
	// sameNames is set when two instructions may have the same name.
	sameNames bool
	// defines counts the definitions made, to tell whether an entry of defs read earlier is still current.
	defines int
	// nested is set while a computation written inside another is read.
	nested bool
	// order holds the instructions of the computations being read, in text order (anonymous ones before
	// their user); a nested computation's above its encloser's.
	order []*hlo.Instruction
	// freeStates are compStates to reuse.
	freeStates []*compState
	// nextSuffix[base] is the suffix uniqueName tries first for base.
	nextSuffix map[string]int
	// shapeless are the instructions written without a shape, in text order.
	shapeless []*hlo.Instruction

	// The computation being read; inline computations (to_apply={...}) nest.
	*compState

	// depth is the current nesting level (see maxNesting).
	depth int

	// broadcastLeft, shared by the parsers of one file, is what is left of maxBroadcastBytes for the
	// literals written as one value for a whole array; nil is all of it.
	broadcastLeft *int64

	*slabs

	// Operand shapes ("f32[2]{0} %a") are read into scratch storage, reused for every operand: only a
	// nested instruction keeps its (cloned) shape.
	scratch         bool
	scratchLayouts  []hlo.Layout
	scratchInts     []int64
	scratchShapeVal hlo.Shape

	// dimBuf collects the numbers of a shape's dimensions or layout, or of a list, before they are copied
	// out.
	dimBuf []int64
	// opStack collects the operands of the instructions being read (nested ones above their user's),
	// attrStack their attributes.
	opStack   []*hlo.Instruction
	attrStack []hlo.Attr
	// kvBuf collects the pairs of a metadata or frontend_attributes value.
	kvBuf []hlo.KV
}

func (p *parser) newInstruction() *hlo.Instruction {
	if len(p.instSlab) == 0 {
		p.instSlab = make([]hlo.Instruction, 256)
	}
	in := &p.instSlab[0]
	p.instSlab = p.instSlab[1:]
	return in
}

func (p *parser) newLayout() *hlo.Layout {
	if p.scratch {
		p.scratchLayouts = append(p.scratchLayouts, hlo.Layout{})
		return &p.scratchLayouts[len(p.scratchLayouts)-1]
	}
	if len(p.layoutSlab) == 0 {
		p.layoutSlab = make([]hlo.Layout, 256)
	}
	l := &p.layoutSlab[0]
	p.layoutSlab = p.layoutSlab[1:]
	return l
}

// intsFrom returns a copy of xs carved from a slab, with its capacity capped so that appending to it
// cannot overwrite a neighbour.
func (p *parser) intsFrom(xs []int64) []int64 {
	n := len(xs)
	if p.scratch {
		start := len(p.scratchInts)
		p.scratchInts = append(p.scratchInts, xs...)
		return p.scratchInts[start : start+n : start+n]
	}
	if n > 64 {
		return append([]int64(nil), xs...)
	}
	if len(p.intSlab) < n {
		p.intSlab = make([]int64, 4096)
	}
	out := p.intSlab[:n:n]
	p.intSlab = p.intSlab[n:]
	copy(out, xs)
	return out
}

// instsFrom returns a copy of xs carved from a slab, with its capacity capped as intsFrom's.
func (p *parser) instsFrom(xs []*hlo.Instruction) []*hlo.Instruction {
	out := p.newInsts(len(xs))
	copy(out, xs)
	return out
}

// newInsts returns n nil instructions carved from a slab, with the capacity capped.
func (p *parser) newInsts(n int) []*hlo.Instruction {
	if n > 64 {
		return make([]*hlo.Instruction, n)
	}
	if len(p.opSlab) < n {
		p.opSlab = make([]*hlo.Instruction, 1024)
	}
	out := p.opSlab[:n:n]
	p.opSlab = p.opSlab[n:]
	return out
}

// slabs are blocks that many small allocations are carved from: parsing large modules is
// allocation-bound. The modules of a file share them, so that many small modules do not take a block each.
type slabs struct {
	instSlab   []hlo.Instruction
	opSlab     []*hlo.Instruction
	attrSlab   []hlo.Attr
	layoutSlab []hlo.Layout
	intSlab    []int64
	// defaultLayouts[n] is the row-major layout of rank n, shared by the shapes that have it.
	defaultLayouts [8]*hlo.Layout
	opcodes        opcodeCache
}

// compState is what the parser knows of the computation it is reading.
type compState struct {
	comp *hlo.Computation
	// shadowed are the definitions of p.defs that this computation, written inside another, hid: they
	// are put back when it ends.
	shadowed   []shadowed
	opRefs     []opFixup
	ctrlRefs   []ctrlFixup
	pendingOps map[*hlo.Instruction][]*hlo.Instruction // operands, nil where a name is still unresolved
	gteCache   map[gteKey]*hlo.Instruction
	gteAfter   map[*hlo.Instruction][]*hlo.Instruction
	orderBase  int // the computation's instructions are p.order[orderBase:]
	// params are the parameters in text order, noShape the instructions written without a shape.
	params, noShape []*hlo.Instruction
	sawROOT         bool
}

type shadowed struct {
	name string
	in   *hlo.Instruction
}

// lookup returns the instruction of the current computation named name, or nil.
func (p *parser) lookup(name string) *hlo.Instruction {
	if in := p.defs.get(name); in != nil && in.Parent == p.comp {
		return in
	}
	return nil
}

// define makes in, of the current computation, the instruction named name; the name must not be defined
// in the computation already, and prev is its entry in defs, found at slot.
func (p *parser) define(name string, in, prev *hlo.Instruction, slot nameSlot) {
	p.defines++
	if prev != nil {
		// Another instruction has the name too: uniquifyNames renames one of them.
		p.sameNames = true
		if p.nested {
			p.shadowed = append(p.shadowed, shadowed{name, prev})
		}
	}
	p.defs.setAt(slot, name, in)
}

type compFixup struct {
	in    *hlo.Instruction
	attr  int
	names []string
	poss  []int
}

type opFixup struct {
	user  *hlo.Instruction
	index int
	name  string
	path  []int64 // compact get-tuple-element path (%p#1#0)
	pos   int
}

type ctrlFixup struct {
	in    *hlo.Instruction
	attr  int
	names []string
	poss  []int
}

// bailout stops the parse of the current module after too many errors. It is the only panic the parser
// recovers from.
type bailout struct{}

// testHookModule, when not nil, is called as each module's parse starts: tests make it panic, as a bug
// would, to see that the panic is not reported as bad input.
var testHookModule func()

func (p *parser) pos(off int) token.Pos {
	if p.file == nil {
		return token.NoPos
	}
	if off > p.file.Size() {
		off = p.file.Size()
	}
	return p.file.Pos(off)
}

func (p *parser) errorAt(off int, format string, args ...any) {
	if p.file == nil {
		return
	}
	if off > p.end {
		off = p.end
	}
	p.errs.Add(p.file.Position(p.pos(off)), fmt.Sprintf(format, args...))
	if len(p.errs) >= maxErrors {
		panic(bailout{})
	}
}

// enter goes one nesting level deeper for the construct that opens at off. Past maxNesting it reports an
// error and stops the parse of the module: what follows could only be read as a cascade of errors.
func (p *parser) enter(off int) {
	if p.depth >= maxNesting {
		p.tooDeep(off)
	}
	p.depth++
}

func (p *parser) tooDeep(off int) {
	p.errorAt(off, "nesting deeper than %d", maxNesting)
	panic(bailout{})
}

func (p *parser) leave() { p.depth-- }

// --- lexical helpers -------------------------------------------------------------------------------------

// Lines. XLA's lexer is token-based: HloLexer::LexToken (xla/hlo/parser/hlo_lexer.cc, openxla/xla at
// 863ba3c374ecb79d597e6ca71720e4edc0c5995b) skips ' ', '\t', '\n' and '\r' alike as white space, ends a
// "//" comment before the first '\n' or '\r' ("This approach enables support for different end-of-line
// encodings"), and HloLexer::LexString lets a string hold either byte raw. This parser is not token-based
// everywhere: an instruction must end its line, "// -----" separates modules, and error recovery skips to
// the next line. For all of these a line ends at "\n", at "\r\n" (one line end) or at a carriage return
// alone, so that text with any of the three line endings reads as XLA reads it; lineStarts counts lines
// for positions the same way. (HloLexer::GetLineAndColumn counts '\n' alone: XLA puts a file of lone
// carriage returns on line 1.)

// lineEnd returns the offset in s of the first line end, '\n' or '\r', or len(s) when there is none.
func lineEnd(s string) int {
	nl := strings.IndexByte(s, '\n')
	if nl < 0 {
		nl = len(s)
	}
	if cr := strings.IndexByte(s[:nl], '\r'); cr >= 0 {
		return cr
	}
	return nl
}

// nextLine returns the offset in s just past the line end at or after off: the start of the next line, or
// len(s). "\r\n" is one line end.
func nextLine(s string, off int) int {
	i := off + lineEnd(s[off:])
	switch {
	case i == len(s):
		return i
	case s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n':
		return i + 2
	}
	return i + 1
}

// skipSpace skips white space and comments (// to end of line, /* ... */).
func (p *parser) skipSpace() {
	// Most calls find none: this much is inlined.
	if p.off < p.end && !spaceStarts[p.src[p.off]] {
		return
	}
	p.skipSpaceMore()
}

// spaceStarts tells the bytes that may start white space or a comment.
var spaceStarts = [256]bool{' ': true, '\t': true, '\n': true, '\r': true, '/': true}

func (p *parser) skipSpaceMore() {
	s, i := p.src[:p.end], p.off
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\n' || c == '\t' || c == '\r':
			i++
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			// To the end of the line; the line end is white space.
			i += lineEnd(s[i:])
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			e := strings.Index(s[i+2:], "*/")
			if e < 0 {
				p.errorAt(i, "comment not terminated")
				i = len(s)
			} else {
				i += e + 4
			}
		default:
			p.off = i
			return
		}
	}
	p.off = i
}

// skipSpaceLine skips white space and comments but not a line end ('\n' or '\r'); it reports whether a
// line end (or the end) follows.
func (p *parser) skipSpaceLine() bool {
	for p.off < p.end {
		c := p.src[p.off]
		switch {
		case c == ' ' || c == '\t':
			p.off++
		case c == '\n' || c == '\r':
			return true
		case c == '/' && p.off+1 < p.end && p.src[p.off+1] == '*':
			e := strings.Index(p.src[p.off+2:p.end], "*/")
			if e < 0 {
				p.errorAt(p.off, "comment not terminated")
				p.off = p.end
				return true
			}
			p.off += e + 4
		case c == '/' && p.off+1 < p.end && p.src[p.off+1] == '/':
			return true
		default:
			return false
		}
	}
	return true
}

func (p *parser) peek() byte {
	if p.off < p.end {
		return p.src[p.off]
	}
	return 0
}

func (p *parser) peekAt(i int) byte {
	if p.off+i < p.end {
		return p.src[p.off+i]
	}
	return 0
}

// accept skips space and consumes c when it is next.
func (p *parser) accept(c byte) bool {
	p.skipSpace()
	if p.peek() == c {
		p.off++
		return true
	}
	return false
}

// expect skips space and consumes c, reporting an error when something else is there. The context of the
// message is the concatenation of its parts, made only for the error.
func (p *parser) expect(c byte, context ...string) bool {
	if p.accept(c) {
		return true
	}
	p.errorAt(p.off, "expected %q %s, found %s", c, strings.Join(context, ""), p.describe())
	return false
}

// describe names what is at the current offset, for error messages.
func (p *parser) describe() string {
	if p.off >= p.end {
		return "end of input"
	}
	c := p.src[p.off]
	if isNameByte(c) || c == '%' {
		e := p.off + 1
		for e < p.end && isNameByte(p.src[e]) {
			e++
		}
		return strconv.Quote(p.src[p.off:e])
	}
	if c == '\n' || c == '\r' {
		return "end of line"
	}
	if c < utf8.RuneSelf {
		return strconv.QuoteRune(rune(c))
	}
	// A character of several bytes, or a byte that is not UTF-8 (said as such, not as Latin-1).
	if r, n := utf8.DecodeRuneInString(p.src[p.off:p.end]); r != utf8.RuneError || n > 1 {
		return strconv.QuoteRune(r)
	}
	return fmt.Sprintf("the byte %#x, not UTF-8", c)
}

func isNameByte(c byte) bool { return nameBytes[c] }

// nameBytes tells the bytes of names: letters, digits and "_.-$".
var nameBytes = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' ||
			c == '-' || c == '$'
	}
	return t
}()

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// name reads a name (an identifier, optionally preceded by %): instruction, computation, opcode and
// attribute names. The returned name has no %.
func (p *parser) name() (string, bool) {
	p.skipSpace()
	start := p.off
	if p.peek() == '%' {
		p.off++
		start++
	}
	p.off = p.nameEnd(p.off)
	if p.off == start {
		return "", false
	}
	return p.src[start:p.off], true
}

// word reads an identifier without a %: keywords, attribute names, opcodes.
func (p *parser) word() string {
	p.skipSpace()
	start := p.off
	p.off = p.nameEnd(p.off)
	return p.src[start:p.off]
}

// nameEnd returns the end of the name bytes from off.
func (p *parser) nameEnd(off int) int {
	s := p.src[:p.end]
	for off < len(s) && nameBytes[s[off]] {
		off++
	}
	return off
}

// digitsEnd returns the end of the decimal digits from off.
func (p *parser) digitsEnd(off int) int {
	s := p.src[:p.end]
	for off < len(s) && isDigit(s[off]) {
		off++
	}
	return off
}

// typeNameEnd returns the end of the lower-case letters and digits (an element type's name) from off.
func (p *parser) typeNameEnd(off int) int {
	s := p.src[:p.end]
	for off < len(s) && (s[off] >= 'a' && s[off] <= 'z' || isDigit(s[off])) {
		off++
	}
	return off
}

// peekWord returns the identifier at the current offset without consuming it.
func (p *parser) peekWord() string {
	save := p.off
	w := p.word()
	p.off = save
	return w
}

// integer reads a signed decimal integer; context is as for expect.
func (p *parser) integer(context ...string) (int64, bool) {
	p.skipSpace()
	start := p.off
	if p.peek() == '-' || p.peek() == '+' {
		p.off++
	}
	p.off = p.digitsEnd(p.off)
	n, ok := decimal(p.src[start:p.off])
	if !ok {
		p.off = start
		p.errorAt(start, "expected an integer %s, found %s", strings.Join(context, ""), p.describe())
		return 0, false
	}
	return n, true
}

// decimal returns the value of s, a decimal integer with an optional sign, as strconv.ParseInt(s, 10, 64)
// does, only faster for the short numbers of HLO text.
func decimal(s string) (int64, bool) {
	digits := s
	if digits != "" && (digits[0] == '-' || digits[0] == '+') {
		digits = digits[1:]
	}
	if digits == "" || len(digits) > 18 {
		n, err := strconv.ParseInt(s, 10, 64)
		return n, err == nil
	}
	var n int64
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if !isDigit(c) {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if s[0] == '-' {
		n = -n
	}
	return n, true
}

// plainInts reads from off, into buf, numbers of at most 18 digits separated by commas and ended by close,
// as HLO text prints them ("2,1,0}"), and returns the offset of close. It reports false for any other
// text (white space, signs, comments), which the caller reads the general way.
func (p *parser) plainInts(off int, close byte, buf []int64) (int, []int64, bool) {
	s := p.src[:p.end]
	if off < len(s) && s[off] == close {
		return off, buf, true
	}
	for {
		st := off
		var n int64
		for off < len(s) && isDigit(s[off]) && off-st < 18 {
			n = n*10 + int64(s[off]-'0')
			off++
		}
		if off == st || off >= len(s) {
			return 0, buf, false
		}
		buf = append(buf, n)
		switch s[off] {
		case ',':
			off++
		case close:
			return off, buf, true
		default:
			return 0, buf, false
		}
	}
}

// intList reads {a,b,c} (possibly empty); context is as for expect.
func (p *parser) intList(context ...string) ([]int64, bool) {
	if !p.expect('{', context...) {
		return nil, false
	}
	if p.accept('}') {
		return []int64{}, true
	}
	list := p.dimBuf[:0]
	if end, ints, ok := p.plainInts(p.off, '}', list); ok {
		p.off = end + 1
		p.dimBuf = ints[:0]
		return p.intsFrom(ints), true
	}
	list = list[:0]
	for {
		n, ok := p.integer(context...)
		if !ok {
			return nil, false
		}
		list = append(list, n)
		if p.accept('}') {
			p.dimBuf = list[:0]
			return p.intsFrom(list), true
		}
		if !p.expect(',', context...) {
			return nil, false
		}
	}
}

// quoted reads a C-escaped string in double quotes and returns its value.
func (p *parser) quoted() (string, bool) {
	p.skipSpace()
	start := p.off
	if p.peek() != '"' {
		p.errorAt(p.off, "expected a string, found %s", p.describe())
		return "", false
	}
	end, ok := p.stringEnd(p.off)
	if !ok {
		return "", false
	}
	p.off = end
	return cstring.Unescape(p.src[start+1 : end-1]), true
}

// stringEnd returns the offset just past the string literal starting at off.
func (p *parser) stringEnd(off int) (int, bool) {
	// Search for the next quote, then for escapes before it, a word at a time; each byte is read once
	// by each search.
	for i := off + 1; i < p.end; {
		q := strings.IndexByte(p.src[i:p.end], '"')
		if q < 0 {
			break
		}
		q += i
		for i <= q {
			b := strings.IndexByte(p.src[i:q], '\\')
			if b < 0 {
				return q + 1, true
			}
			i += b + 2 // past the escaped byte, which may be the quote
		}
	}
	p.errorAt(off, "string not terminated")
	return p.end, false
}

// balancedEnd returns the offset just past a value starting at off: a bracketed group ({...}, [...], (...),
// with strings inside) or a bare run of characters up to white space, ',' or an unmatched closer.
func (p *parser) balancedEnd(off int) (int, bool) {
	var stack []byte
	i := off
	for i < p.end {
		c := p.src[i]
		switch c {
		case '"':
			e, ok := p.stringEnd(i)
			if !ok {
				return e, false
			}
			i = e
			continue
		case '{', '[', '(':
			if p.depth+len(stack) >= maxNesting {
				p.tooDeep(i)
			}
			stack = append(stack, c)
		case '}', ']', ')':
			if len(stack) == 0 {
				return i, true
			}
			open := stack[len(stack)-1]
			if open == '{' && c != '}' || open == '[' && c != ']' || open == '(' && c != ')' {
				p.errorAt(i, "unbalanced %q: %q was opened before it", c, open)
				return i, false
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 && (c == '}' || c == ')') && i+1 < p.end && !continuesValue(p.src[i+1]) {
				return i + 1, true
			}
		case ',', ' ', '\t', '\n', '\r':
			if len(stack) == 0 {
				return i, true
			}
		case '/':
			if i+1 < p.end && p.src[i+1] == '*' {
				e := strings.Index(p.src[i+2:p.end], "*/")
				if e < 0 {
					p.errorAt(i, "comment not terminated")
					return p.end, false
				}
				i += e + 4
				continue
			}
		}
		i++
	}
	if len(stack) > 0 {
		p.errorAt(off, "%q is never closed", stack[0])
		return p.end, false
	}
	return i, true
}

// continuesValue reports whether c can continue a value after a closing bracket ("[3,10]<=[6,5]T(1,0)").
func continuesValue(c byte) bool {
	return c == '<' || c == '=' || c == '[' || c == '{' || c == '(' || isNameByte(c)
}

// --- module structure ------------------------------------------------------------------------------------

func (p *parser) parseModule() (m *hlo.Module) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
			m = nil
		}
	}()
	if testHookModule != nil {
		testHookModule()
	}
	p.mod = &hlo.Module{Fset: p.fset}
	p.comps = map[string]*hlo.Computation{}
	p.names = map[string]bool{}
	// One instruction a line, as printed; the module's lines only, as a file may hold many modules.
	lines := strings.Count(p.src[p.off:p.end], "\n")
	if lines == 0 {
		lines = strings.Count(p.src[p.off:p.end], "\r") // lone carriage returns
	}
	p.defs = newNameTable(lines + 8)
	p.skipSpace()
	p.mod.Pos = p.pos(p.off)
	if p.peekWord() == "HloModule" {
		p.word()
		name, ok := p.name()
		if !ok {
			p.errorAt(p.off, "expected the module name after HloModule, found %s", p.describe())
			return nil
		}
		p.mod.Name = name
		if p.peek() == ':' {
			// "HloModule name:" appears in old dumps; the colon is not part of the name.
			p.off++
		}
		errs := len(p.errs)
		p.mod.Attrs = p.attributes(nil, hlo.ModuleAttr)
		if len(p.errs) > errs {
			p.skipLine() // a header value did not read: go on at the next line
		}
	} else {
		p.mod.NoHeader = true
	}
	p.skipSpace()
	if w := p.peekWord(); w == "FileNames" || w == "FunctionNames" || w == "FileLocations" || w == "StackFrames" {
		p.mod.StackFrames = p.stackFrames()
	}
	for {
		p.skipSpace()
		if p.off >= p.end {
			break
		}
		if c := p.parseComputation(); c == nil {
			// Recover at the next line that looks like the start of a computation.
			if !p.skipToNextComputation() {
				break
			}
		}
	}
	if len(p.mod.Computations) == 0 {
		if len(p.errs) == 0 {
			p.errorAt(p.off, "module has no computation")
		}
		return nil
	}
	if p.mod.Entry == nil {
		// As in XLA: without ENTRY, the last computation is the entry.
		p.mod.Entry = p.mod.Computations[len(p.mod.Computations)-1]
		p.mod.Entry.IsEntry = true
	}
	if p.mod.Name == "" {
		p.mod.Name = p.mod.Entry.Name
	}
	p.resolveComputations()
	if len(p.errs) > 0 {
		return nil
	}
	for _, in := range p.shapeless {
		p.inferShape(in)
	}
	if p.sameNames {
		uniquifyNames(p.mod)
	}
	if len(p.errs) > 0 {
		return nil
	}
	return p.mod
}

func (p *parser) skipToNextComputation() bool {
	for p.off < p.end {
		p.off = nextLine(p.src[:p.end], p.off)
		if p.off >= p.end {
			return false
		}
		if p.src[p.off] == '}' {
			p.off++
			return true
		}
	}
	return false
}

func (p *parser) stackFrames() *hlo.StackFrameTables {
	t := &hlo.StackFrameTables{}
	for {
		p.skipSpace()
		section := p.peekWord()
		switch section {
		case "FileNames", "FunctionNames", "FileLocations", "StackFrames":
			p.word()
		default:
			return t
		}
		for {
			p.skipSpace()
			if !isDigit(p.peek()) {
				break
			}
			idStart := p.off
			id, _ := p.integer("")
			switch section {
			case "FileNames", "FunctionNames":
				s, ok := p.quoted()
				if !ok {
					return t
				}
				if section == "FileNames" {
					if id != int64(len(t.FileNames)+1) {
						p.errorAt(idStart, "FileNames: expected id %d, found %d", len(t.FileNames)+1, id)
					}
					t.FileNames = append(t.FileNames, s)
				} else {
					if id != int64(len(t.FunctionNames)+1) {
						p.errorAt(idStart, "FunctionNames: expected id %d, found %d", len(t.FunctionNames)+1, id)
					}
					t.FunctionNames = append(t.FunctionNames, s)
				}
			default:
				fields := p.braceFields(section)
				if section == "FileLocations" {
					t.FileLocations = append(t.FileLocations, hlo.FileLocation{
						FileNameID: fields["file_name_id"], FunctionNameID: fields["function_name_id"],
						Line: fields["line"], EndLine: fields["end_line"], Column: fields["column"],
						EndColumn: fields["end_column"]})
				} else {
					t.Frames = append(t.Frames, hlo.StackFrame{FileLocationID: fields["file_location_id"],
						ParentFrameID: fields["parent_frame_id"]})
				}
			}
		}
	}
}

// braceFields reads {key=int key=int ...}.
func (p *parser) braceFields(context string) map[string]int64 {
	fields := map[string]int64{}
	if !p.expect('{', "in ", context) {
		return fields
	}
	for !p.accept('}') {
		k := p.word()
		if k == "" || !p.expect('=', "after ", k) {
			p.errorAt(p.off, "expected key=value in %s, found %s", context, p.describe())
			return fields
		}
		v, ok := p.integer("in ", context)
		if !ok {
			return fields
		}
		fields[k] = v
	}
	return fields
}

// parseComputation reads [ENTRY] name [(params) -> shape] { instructions } [, attrs].
func (p *parser) parseComputation() *hlo.Computation {
	p.skipSpace()
	start := p.off
	isEntry := false
	if p.peekWord() == "ENTRY" {
		p.word()
		isEntry = true
	}
	name, ok := p.name()
	if !ok {
		p.errorAt(p.off, "expected a computation, found %s", p.describe())
		return nil
	}
	if name == "HloModule" && !isEntry && p.src[start] != '%' {
		// Modules concatenated without the separator XLA's tools and octet print write between them.
		p.errorAt(start, "a second HloModule in the module %s: modules in one file are separated by a line \"// -----\"", p.mod.Name)
		return nil
	}
	c := &hlo.Computation{Name: name, IsEntry: isEntry, Module: p.mod, Pos: p.pos(start)}
	p.skipSpace()
	if p.peek() == '(' {
		// The signature is printed from the instructions; read it to check its syntax only.
		p.off++
		for !p.accept(')') {
			if _, ok := p.name(); !ok {
				p.errorAt(p.off, "expected a parameter name in the signature of %s, found %s", name, p.describe())
				return nil
			}
			if !p.expect(':', "after a parameter name") {
				return nil
			}
			if _, ok := p.scratchShape(); !ok {
				return nil
			}
			if !p.accept(',') && !(p.skipSpaceAndPeek() == ')') {
				p.errorAt(p.off, "expected ',' or ')' in the signature of %s, found %s", name, p.describe())
				return nil
			}
		}
		p.skipSpace()
		if strings.HasPrefix(p.src[p.off:p.end], "->") {
			p.off += 2
			if _, ok := p.scratchShape(); !ok {
				return nil
			}
		} else {
			p.errorAt(p.off, "expected '->' after the parameters of %s, found %s", name, p.describe())
			return nil
		}
	}
	if !p.expect('{', "to open computation ", name) {
		return nil
	}
	if prev, dup := p.comps[name]; dup {
		p.errorAt(start, "computation %s is defined twice (first at %s)", name, p.file.Position(prev.Pos))
	}
	p.comps[name] = c
	if isEntry {
		if p.mod.Entry != nil {
			p.errorAt(start, "a second ENTRY computation: %s (the first is %s)", name, p.mod.Entry.Name)
		}
		p.mod.Entry = c
	}
	if !p.computationBody(c, start) {
		return nil
	}
	// Attributes after the closing brace: }, execution_thread="x"
	save := p.off
	if p.skipSpaceLine(); p.peek() == ',' {
		c.Attrs = p.attributes(nil, hlo.ComputationAttr)
	} else {
		p.off = save
	}
	p.mod.AddComputation(c)
	return c
}

// computationBody reads instructions up to the closing brace of computation c (its opening brace read).
func (p *parser) computationBody(c *hlo.Computation, start int) bool {
	outer, outerNested := p.compState, p.nested
	var st *compState
	if n := len(p.freeStates); n > 0 {
		st = p.freeStates[n-1]
		p.freeStates = p.freeStates[:n-1]
		*st = compState{shadowed: st.shadowed[:0], opRefs: st.opRefs[:0], ctrlRefs: st.ctrlRefs[:0],
			params: st.params[:0], noShape: st.noShape[:0]}
	} else {
		st = &compState{}
	}
	st.comp, st.orderBase = c, len(p.order)
	p.compState, p.nested = st, outer != nil
	defer func() {
		for i := len(st.shadowed) - 1; i >= 0; i-- {
			p.defs.set(st.shadowed[i].name, st.shadowed[i].in)
		}
		clear(p.order[st.orderBase:])
		p.order = p.order[:st.orderBase]
		clear(st.opRefs)
		clear(st.ctrlRefs)
		clear(st.shadowed)
		clear(st.params)
		clear(st.noShape)
		p.freeStates = append(p.freeStates, st)
		p.compState, p.nested = outer, outerNested
	}()
	errsBefore := len(p.errs)
	for {
		p.skipSpace()
		if p.off >= p.end {
			p.errorAt(p.end, "unexpected end of input: computation %s (opened at line %d) is not closed", c.Name,
				p.file.Position(p.pos(start)).Line)
			return false
		}
		if p.peek() == '}' {
			p.off++
			break
		}
		lineStart := p.off
		if !p.instruction() {
			// Skip the rest of the line and go on, to report further errors.
			p.off = lineStart
			p.skipLine()
		}
	}
	if len(p.errs) == errsBefore {
		// Checks of the whole computation only make sense when its instructions were read.
		p.finishComputation(c)
	}
	return true
}

func (p *parser) skipSpaceAndPeek() byte {
	p.skipSpace()
	return p.peek()
}

// skipLine moves to the start of the next line.
func (p *parser) skipLine() {
	p.off = nextLine(p.src[:p.end], p.off)
}

// finishComputation resolves operand references, places anonymous and compact get-tuple-element
// instructions, and sets the root.
func (p *parser) finishComputation(c *hlo.Computation) {
	// Operands by name.
	for _, f := range p.opRefs {
		target := p.lookup(f.name)
		if target == nil {
			p.errorAt(f.pos, "operand %%%s of %%%s names no instruction of computation %s", f.name, f.user.Name, c.Name)
			continue
		}
		for i, idx := range f.path {
			target = p.compactGTE(target, idx, f.path[:i+1], f.name, f.pos)
			if target == nil {
				break
			}
		}
		if target != nil {
			p.pendingOps[f.user][f.index] = target
		}
	}
	for _, f := range p.ctrlRefs {
		var list hlo.InstList
		for i, n := range f.names {
			target := p.lookup(n)
			if target == nil {
				p.errorAt(f.poss[i], "control predecessor %%%s of %%%s names no instruction of computation %s", n, f.in.Name, c.Name)
				continue
			}
			list = append(list, target)
		}
		f.in.Attrs[f.attr].Value = list
	}
	// Instruction order: text order, with compact get-tuple-elements right after their tuple.
	order := p.order[p.orderBase:]
	out := p.newInsts(len(order))[:0]
	for _, in := range order {
		out = append(out, in)
		out = p.appendGTEs(out, in)
	}
	c.Instructions = out
	for _, in := range order {
		ops, ok := p.pendingOps[in]
		if !ok {
			continue
		}
		for _, o := range ops {
			if o == nil {
				// Left unresolved after an error, which has been reported.
				return
			}
		}
		in.AdoptOperands(ops)
	}
	if len(p.pendingOps) > 0 && !p.acyclic(c) {
		return
	}
	if c.Root == nil && len(out) > 0 {
		c.Root = out[len(out)-1]
	}
	if len(out) == 0 {
		p.errorAt(p.offOf(c.Pos), "computation %s has no instructions", c.Name)
		return
	}
	// Parameters by number.
	size := int64(0)
	for _, in := range p.params {
		if n := in.ParameterNumber; n >= size && n <= int64(len(out)) {
			size = n + 1
		}
	}
	if size > 0 {
		c.Params = p.newInsts(int(size))
	}
	for _, in := range p.params {
		n := in.ParameterNumber
		if n < 0 || n > int64(len(out)) {
			p.errorAt(p.offOf(in.Pos), "parameter number %d of %%%s is out of range", n, in.Name)
			continue
		}
		if prev := c.Params[n]; prev != nil {
			p.errorAt(p.offOf(in.Pos), "parameter number %d is used by both %%%s and %%%s", n, prev.Name, in.Name)
			continue
		}
		c.Params[n] = in
	}
	for i, prm := range c.Params {
		if prm == nil {
			p.errorAt(p.offOf(c.Pos), "computation %s has no parameter(%d) but has parameter(%d)", c.Name, i, len(c.Params)-1)
			break
		}
	}
	// Shapes written nowhere are inferred once called computations are resolved (end of the module).
	p.shapeless = append(p.shapeless, p.noShape...)
}

// acyclic reports an instruction that is its own operand, directly or through others (names used before
// their definition make that possible), and orders the instructions so that operands come first, as
// hlo.Computation.SortTopologically does. The search keeps its own stack: a chain of forward references
// can be as long as the computation.
func (p *parser) acyclic(c *hlo.Computation) bool {
	const (
		onPath = 1
		done   = 2
	)
	state := make(map[*hlo.Instruction]uint8, len(c.Instructions))
	out := make([]*hlo.Instruction, 0, len(c.Instructions))
	// A frame is an instruction and the index of its next edge: operands, then control predecessors.
	type frame struct {
		in   *hlo.Instruction
		next int
	}
	var stack []frame
	for _, root := range c.Instructions {
		if state[root] != 0 {
			continue
		}
		state[root] = onPath
		stack = append(stack[:0], frame{in: root})
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			ops, preds := f.in.Operands(), f.in.ControlPredecessors()
			if f.next == len(ops)+len(preds) {
				state[f.in] = done
				out = append(out, f.in)
				stack = stack[:len(stack)-1]
				continue
			}
			var e *hlo.Instruction
			if f.next < len(ops) {
				e = ops[f.next]
				if state[e] == onPath {
					p.errorAt(p.offOf(e.Pos), "%%%s depends on itself through its operands", e.Name)
					return false
				}
			} else {
				e = preds[f.next-len(ops)]
			}
			f.next++
			if state[e] == 0 && e.Parent == c {
				state[e] = onPath
				stack = append(stack, frame{in: e})
			}
		}
	}
	c.Instructions = out
	return true
}

func (p *parser) appendGTEs(out []*hlo.Instruction, in *hlo.Instruction) []*hlo.Instruction {
	for _, g := range p.gteAfter[in] {
		out = append(out, g)
		out = p.appendGTEs(out, g)
	}
	return out
}

func (p *parser) offOf(pos token.Pos) int {
	if p.file == nil || !pos.IsValid() {
		return 0
	}
	return p.file.Offset(pos)
}

// compactGTE returns the get-tuple-element for %name#i (made once per tuple and index), named as XLA names
// it: the tuple's name, "_" and the index. path is the whole path up to i, for messages.
func (p *parser) compactGTE(tuple *hlo.Instruction, idx int64, path []int64, base string, pos int) *hlo.Instruction {
	key := gteKey{tuple, idx}
	if g, ok := p.gteCache[key]; ok {
		return g
	}
	if tuple.Shape.Kind != hlo.TupleShape || idx < 0 || idx >= int64(len(tuple.Shape.Tuple)) {
		name := base
		for _, i := range path[:len(path)-1] {
			name += "#" + strconv.FormatInt(i, 10)
		}
		p.errorAt(pos, "%%%s has no tuple element %d", name, idx)
		return nil
	}
	// The name is made unique in the computation only: let uniquifyNames make it unique in the module.
	p.sameNames = true
	g := &hlo.Instruction{
		Name:   p.uniqueName(tuple.Name + "_" + strconv.FormatInt(idx, 10)),
		Opcode: hlo.OpGetTupleElement,
		Shape:  tuple.Shape.Tuple[idx].Clone(),
		Parent: p.comp,
		Pos:    p.pos(pos),
		Attrs:  []hlo.Attr{{Name: "index", Value: hlo.Int(idx)}},
	}
	g.SetOperands(tuple)
	if p.gteCache == nil {
		p.gteCache = map[gteKey]*hlo.Instruction{}
		p.gteAfter = map[*hlo.Instruction][]*hlo.Instruction{}
	}
	p.gteCache[key] = g
	p.gteAfter[tuple] = append(p.gteAfter[tuple], g)
	return g
}

// gteKey names a compact get-tuple-element: element idx of tuple, itself an instruction or a compact
// get-tuple-element (so a path such as %p#1#0 is a chain of keys).
type gteKey struct {
	tuple *hlo.Instruction
	idx   int64
}

// uniqueName returns base, or base.N when base is taken in the computation or by a name made before, and
// reserves it. (Names that collide across computations are made unique at the end, by uniquifyNames.)
func (p *parser) uniqueName(base string) string {
	// Start after the last suffix given to base: a later name never takes an earlier free suffix, which
	// keeps the search linear in the names made.
	i := p.nextSuffix[base]
	name := base
	if i > 0 {
		name = base + "." + strconv.Itoa(i)
	}
	for p.taken(name) {
		i++
		name = base + "." + strconv.Itoa(i)
	}
	p.names[name] = true
	if p.nextSuffix == nil {
		p.nextSuffix = map[string]int{}
	}
	p.nextSuffix[base] = i + 1
	return name
}

// taken reports whether name is a computation's, was made by uniqueName, or is an instruction's of the
// computation being read.
func (p *parser) taken(name string) bool {
	if _, ok := p.comps[name]; ok || p.names[name] {
		return true
	}
	return p.compState != nil && p.lookup(name) != nil
}

// validShape reports whether every array in s has an element type.
func validShape(s hlo.Shape) bool {
	switch s.Kind {
	case hlo.ArrayShape:
		return s.Elem != dtype.Invalid
	case hlo.TupleShape, hlo.BufferShape:
		for _, e := range s.Tuple {
			if !validShape(e) {
				return false
			}
		}
	}
	return true
}

func (p *parser) inferShape(in *hlo.Instruction) {
	s, err := hlo.InferShape(in)
	if err == nil && !validShape(s) {
		err = fmt.Errorf("its operands have no known type")
	}
	if err != nil {
		p.errorAt(p.offOf(in.Pos), "%%%s has no shape and its shape cannot be inferred: %v", in.Name, err)
		return
	}
	s.SetDefaultLayouts()
	in.Shape = s
}

// instruction reads one line: [ROOT] name = [shape] opcode(operands)[, attributes].
func (p *parser) instruction() bool {
	p.skipSpace()
	start := p.off
	isRoot := false
	if strings.HasPrefix(p.src[p.off:p.end], "ROOT") && (p.off+4 == p.end || !isNameByte(p.src[p.off+4])) {
		p.off += 4
		isRoot = true
	}
	name, ok := p.name()
	if !ok {
		p.errorAt(p.off, "expected an instruction, found %s", p.describe())
		return false
	}
	if !p.expect('=', "after instruction name ", name) {
		return false
	}
	in := p.instructionRHS(name, start, nil)
	if in == nil {
		return false
	}
	if isRoot {
		if p.sawROOT {
			p.errorAt(start, "computation %s has a second ROOT: %%%s (the first is %%%s)", p.comp.Name, name, p.comp.Root.Name)
		}
		p.sawROOT = true
		p.comp.Root = in
	}
	// The rest of the line must be empty, or hold the end of the computation or the next instruction
	// (XLA's parser reads instructions as tokens: HloParserImpl::ParseInstructionList).
	if !p.skipSpaceLine() {
		if p.peek() != '}' && !p.instructionFollows() {
			p.errorAt(p.off, "unexpected %s after instruction %%%s", p.describe(), name)
			return false
		}
	}
	return true
}

// instructionFollows reports whether the text at the offset starts an instruction, [ROOT] name '=',
// without moving.
func (p *parser) instructionFollows() bool {
	off := p.off
	defer func() { p.off = off }()
	if strings.HasPrefix(p.src[p.off:p.end], "ROOT") && (p.off+4 == p.end || !isNameByte(p.src[p.off+4])) {
		p.off += 4
	}
	if _, ok := p.name(); !ok {
		return false
	}
	p.skipSpace()
	return p.peek() == '='
}

// instructionRHS reads [shape] opcode(operands)[, attributes] and registers the instruction named name (or
// an anonymous one when name is ""). A nested instruction's shape has been read already and is given.
func (p *parser) instructionRHS(name string, start int, given *hlo.Shape) *hlo.Instruction {
	in := p.newInstruction()
	in.Parent, in.Pos = p.comp, p.pos(start)
	p.skipSpace()
	hasShape := given != nil || p.peek() == '(' || p.startsShape() || p.peek() == 'b' && p.peekAt(1) == '('
	if given != nil {
		in.Shape = *given
	} else if hasShape {
		if !p.shapeInto(&in.Shape) {
			return nil
		}
	}
	p.skipSpace()
	opStart := p.off
	opName := p.word()
	if opName == "" {
		p.errorAt(p.off, "expected an opcode, found %s", p.describe())
		return nil
	}
	op, wrapped, ok := p.opcode(opName)
	if !ok {
		if _, isType := dtype.Lookup(opName); isType && !hasShape {
			p.errorAt(opStart, "bad shape %s: expected '[' after the element type", strconv.Quote(opName))
		} else if p.peek() == '[' && !hasShape {
			p.errorAt(opStart, "unknown element type %q", opName)
		} else {
			p.errorAt(opStart, "unknown opcode %q", opName)
		}
		return nil
	}
	in.Opcode, in.AsyncWrapped = op, wrapped
	// The entry for a given name, which stays current unless instructions read inside this one define names.
	var prev *hlo.Instruction
	var slot nameSlot
	known, definesBefore := name != "", p.defines
	if name == "" {
		name = p.uniqueName(opName + ".anon")
	} else {
		if prev, slot = p.defs.find(name); prev != nil && prev.Parent == p.comp {
			p.errorAt(start, "instruction %%%s is defined twice in computation %s (first at %s)", name, p.comp.Name, p.file.Position(prev.Pos))
			return nil
		}
	}
	in.Name = name
	if !p.expect('(', "after opcode ", opName) {
		return nil
	}
	switch op {
	case hlo.OpParameter:
		n, ok := p.integer("as the parameter number")
		if !ok {
			return nil
		}
		in.ParameterNumber = n
		if !p.expect(')', "after the parameter number") {
			return nil
		}
	case hlo.OpConstant:
		if !hasShape {
			p.errorAt(start, "constant %%%s needs a shape", name)
			return nil
		}
		if in.Literal = p.literal(in.Shape); in.Literal == nil {
			return nil
		}
		if !p.expect(')', "after the constant's literal") {
			return nil
		}
	default:
		if !p.operands(in) {
			return nil
		}
	}
	attrStart, errs := p.off, len(p.errs)
	in.Attrs = p.attributes(in, nil)
	if len(p.errs) == errs { // checked only when every attribute was read
		p.checkOperation(in, opStart, attrStart)
	}
	if !hasShape {
		in.Shape = hlo.Shape{Kind: hlo.ArrayShape} // inferred when the computation is complete
		if op == hlo.OpParameter || op == hlo.OpConstant {
			p.errorAt(opStart, "%s %%%s needs a shape", opName, name)
			return nil
		}
		p.noShape = append(p.noShape, in)
	}
	if op == hlo.OpParameter {
		p.params = append(p.params, in)
	}
	// Place nested anonymous instructions (already in p.order) before this one.
	p.order = append(p.order, in)
	if !known || p.defines != definesBefore {
		prev, slot = p.defs.find(name)
	}
	p.define(name, in, prev, slot)
	return in
}

// uniquifyNames renames instructions and computations whose names an earlier one of the module already
// has, as XLA does when it adds parsed computations to a module: the first keeps its name and a later one
// gets the first free ".N" after its name's root ("b" -> "b.1", "add.3" -> "add.1" when that is free).
// Instructions and computations are named apart.
func uniquifyNames(m *hlo.Module) {
	n := 0
	for _, c := range m.Computations {
		n += len(c.Instructions)
	}
	comps, insts := newNameSet(len(m.Computations)), newNameSet(n)
	for _, c := range m.Computations {
		c.Name = comps.unique(c.Name)
		for _, in := range c.Instructions {
			in.Name = insts.unique(in.Name)
		}
	}
}

// nameSet hands out names that are unique in the set.
type nameSet struct {
	seen map[string]bool
	// next[root] is the least N for which root.N may be free: the names only accumulate, so the first
	// free ".N" of a root never moves back, and each taken candidate is passed over once.
	next map[string]int
}

func newNameSet(n int) nameSet {
	return nameSet{seen: make(map[string]bool, n), next: map[string]int{}}
}

// unique returns name when it is free, otherwise the first free ".N" after its root; it takes the name.
func (s nameSet) unique(name string) string {
	if !s.seen[name] {
		s.seen[name] = true
		return name
	}
	root := name
	if i := strings.LastIndexByte(name, '.'); i > 0 && i < len(name)-1 {
		if _, err := strconv.ParseUint(name[i+1:], 10, 63); err == nil {
			root = name[:i]
		}
	}
	n := max(s.next[root], 1)
	for ; ; n++ {
		cand := root + "." + strconv.Itoa(n)
		if !s.seen[cand] {
			s.seen[cand] = true
			s.next[root] = n + 1
			return cand
		}
	}
}

// asyncSugar recognises XLA's async syntax sugar: "<op>-start", "<op>-update", "<op>-done" for an op that has
// no such opcode of its own.
func asyncSugar(name string) (hlo.Opcode, hlo.Opcode, bool) {
	for _, s := range []struct {
		suffix string
		op     hlo.Opcode
	}{{"-start", hlo.OpAsyncStart}, {"-update", hlo.OpAsyncUpdate}, {"-done", hlo.OpAsyncDone}} {
		if base, ok := strings.CutSuffix(name, s.suffix); ok {
			if wrapped, ok := hlo.LookupOpcode(base); ok {
				return s.op, wrapped, true
			}
		}
	}
	return hlo.OpInvalid, hlo.OpInvalid, false
}

// operands reads operand list entries up to ')': [shape] name[#i...], or a nested [shape] opcode(...).
func (p *parser) operands(in *hlo.Instruction) bool {
	if p.accept(')') {
		return true
	}
	base := len(p.opStack)
	deferred := false
	for {
		p.skipSpace()
		var opShape *hlo.Shape
		if p.peek() == '(' || p.startsShape() || p.peek() == 'b' && p.peekAt(1) == '(' {
			s, ok := p.scratchShape()
			if !ok {
				return false
			}
			opShape = s
		}
		p.skipSpace()
		nameStart := p.off
		name, ok := p.name()
		if !ok {
			p.errorAt(p.off, "expected an operand of %%%s, found %s", in.Name, p.describe())
			return false
		}
		if p.peek() == '(' && p.src[nameStart] != '%' {
			// A nested instruction: it becomes an anonymous instruction placed before its user.
			p.off = nameStart
			if opShape != nil {
				s := opShape.Clone() // out of the scratch storage
				opShape = &s
			}
			p.enter(nameStart)
			nested := p.instructionRHS("", nameStart, opShape)
			p.leave()
			if nested == nil {
				return false
			}
			p.opStack = append(p.opStack, nested)
		} else {
			var path []int64
			for p.peek() == '#' {
				p.off++
				st := p.off
				p.off = p.digitsEnd(p.off)
				n, ok := decimal(p.src[st:p.off])
				if !ok {
					p.errorAt(st, "expected a tuple index after '#', found %s", p.describe())
					return false
				}
				path = append(path, n)
			}
			if target := p.lookup(name); target != nil && path == nil {
				// Defined already (the usual case): connect it now.
				p.opStack = append(p.opStack, target)
			} else {
				p.opRefs = append(p.opRefs, opFixup{user: in, index: len(p.opStack) - base, name: name, path: path, pos: nameStart})
				p.opStack = append(p.opStack, nil)
				deferred = true
			}
		}
		if p.accept(')') {
			break
		}
		if !p.accept(',') {
			p.errorAt(p.off, "expected ',' or ')' in the operands of %%%s, found %s", in.Name, p.describe())
			return false
		}
	}
	ops := p.opStack[base:]
	p.opStack = p.opStack[:base]
	if deferred {
		// The remaining names are resolved, and the operands connected, when the computation is complete.
		if p.pendingOps == nil {
			p.pendingOps = map[*hlo.Instruction][]*hlo.Instruction{}
		}
		p.pendingOps[in] = p.instsFrom(ops)
	} else {
		in.AdoptOperands(p.instsFrom(ops))
	}
	return true
}

// scratchShape reads a shape into storage that the next one overwrites: for shapes that are checked and
// dropped, or cloned.
func (p *parser) scratchShape() (*hlo.Shape, bool) {
	p.scratch = true
	p.scratchLayouts = p.scratchLayouts[:0]
	p.scratchInts = p.scratchInts[:0]
	p.scratchShapeVal = hlo.Shape{}
	ok := p.shapeInto(&p.scratchShapeVal)
	p.scratch = false
	return &p.scratchShapeVal, ok
}

// startsShape reports whether the text at the offset begins an array shape: a type name followed by '['.
func (p *parser) startsShape() bool {
	i := p.typeNameEnd(p.off)
	if i == p.off || i >= p.end || p.src[i] != '[' {
		return false
	}
	w := p.src[p.off:i]
	if w == "token" || w == "opaque" {
		return true
	}
	_, ok := lookupType(w)
	return ok
}

// lookupType returns the element type spelled w exactly as HLO text spells it. The common types are
// found by a switch, faster than a map on the parser's hot path.
func lookupType(w string) (dtype.Type, bool) {
	switch w {
	case "f32":
		return dtype.F32, true
	case "bf16":
		return dtype.BF16, true
	case "s32":
		return dtype.S32, true
	case "pred":
		return dtype.PRED, true
	case "f16":
		return dtype.F16, true
	case "u32":
		return dtype.U32, true
	case "s64":
		return dtype.S64, true
	case "u8":
		return dtype.U8, true
	case "s8":
		return dtype.S8, true
	case "f8e4m3fn":
		return dtype.F8E4M3FN, true
	case "f8e5m2":
		return dtype.F8E5M2, true
	}
	t, ok := dtype.Lookup(w)
	if !ok || t.String() != w {
		return dtype.Invalid, false
	}
	return t, true
}

// shape reads an array shape with optional layout, a tuple shape, token[] or opaque[].
func (p *parser) shape() (hlo.Shape, bool) {
	var s hlo.Shape
	ok := p.shapeInto(&s)
	return s, ok
}

// shapeInto reads a shape into *s, which must be the zero Shape.
func (p *parser) shapeInto(s *hlo.Shape) bool {
	p.skipSpace()
	if p.peek() == '(' {
		p.enter(p.off)
		defer p.leave()
		p.off++
		*s = hlo.Shape{Kind: hlo.TupleShape, Tuple: []hlo.Shape{}}
		if p.accept(')') {
			return true
		}
		for {
			e, ok := p.shape()
			if !ok {
				return false
			}
			s.Tuple = append(s.Tuple, e)
			if p.accept(')') {
				return true
			}
			if !p.expect(',', "in a tuple shape") {
				return false
			}
		}
	}
	start := p.off
	if p.peek() == 'b' && p.peekAt(1) == '(' {
		// b(f32[2,4]): a buffer.
		p.enter(p.off)
		defer p.leave()
		p.off += 2
		inner, ok := p.shape()
		if !ok || !p.expect(')', "to close a buffer shape") {
			return false
		}
		*s = hlo.Shape{Kind: hlo.BufferShape, Tuple: []hlo.Shape{inner}}
		return true
	}
	p.off = p.typeNameEnd(p.off)
	tname := p.src[start:p.off]
	switch tname {
	case "token":
		s.Kind = hlo.TokenShape
	case "opaque":
		s.Kind = hlo.OpaqueShape
	default:
		t, ok := lookupType(tname)
		if !ok {
			if tname == "" {
				p.errorAt(start, "expected a shape, found %s", p.describe())
			} else {
				p.errorAt(start, "unknown element type %q", tname)
			}
			return false
		}
		s.Kind = hlo.ArrayShape
		s.Elem = t
	}
	if p.peek() != '[' {
		p.errorAt(p.off, "expected '[' after %s, found %s", tname, p.describe())
		return false
	}
	p.off++
	s.Dims = p.dimBuf[:0] // copied out below; nothing in between reads a shape
	end, dims, plain := p.plainInts(p.off, ']', s.Dims)
	if plain {
		s.Dims, p.off = dims, end
	} else {
		s.Dims = dims[:0]
		p.skipSpace()
	}
	if !plain && p.peek() != ']' {
		for {
			p.skipSpace()
			dyn := false
			if strings.HasPrefix(p.src[p.off:p.end], "<=") {
				p.off += 2
				dyn = true
			}
			p.skipSpace()
			var d int64
			if !dyn && p.peek() == '?' {
				p.off++
				d = hlo.UnboundedDim
			} else {
				st := p.off
				p.off = p.digitsEnd(p.off)
				n, ok := decimal(p.src[st:p.off])
				if !ok {
					p.errorAt(st, "expected a dimension size, found %s", p.describe())
					return false
				}
				d = n
			}
			if dyn {
				if s.Dynamic == nil {
					s.Dynamic = make([]bool, len(s.Dims), len(s.Dims)+1)
				}
			}
			s.Dims = append(s.Dims, d)
			if s.Dynamic != nil {
				s.Dynamic = append(s.Dynamic, dyn)
			}
			p.skipSpace()
			if p.peek() == ',' {
				p.off++
				continue
			}
			break
		}
	}
	if p.peek() != ']' {
		p.errorAt(p.off, "expected ',' or ']' in the dimensions of a shape, found %s", p.describe())
		return false
	}
	p.off++
	p.dimBuf = s.Dims[:0]
	s.Dims = p.intsFrom(s.Dims)
	if s.Kind != hlo.ArrayShape {
		if len(s.Dims) != 0 {
			p.errorAt(start, "%s takes no dimensions", tname)
			return false
		}
		s.Dims = nil
		return true
	}
	brace, isLayout := p.layoutAhead()
	if !isLayout {
		s.Layout = p.defaultLayout(len(s.Dims))
		return true
	}
	p.off = brace
	l, ok := p.layout(len(s.Dims))
	s.Layout = l
	return ok
}

// layoutAhead reports whether a layout follows the shape just read, and the offset of its '{'. As in
// XLA's parser, a '{' after a shape opens a layout only when an integer or ':' comes next: in
// "ENTRY e (p: f32[4]) -> f32[4]{" followed by the first instruction, the '{' opens the computation.
// White space and comments may come between the tokens; nothing is consumed.
func (p *parser) layoutAhead() (int, bool) {
	skip := func(i int) int {
		s := p.src[:p.end]
		for i < len(s) {
			switch c := s[i]; {
			case c == ' ' || c == '\n' || c == '\t' || c == '\r':
				i++
			case c == '/' && i+1 < len(s) && s[i+1] == '/':
				i += lineEnd(s[i:])
			case c == '/' && i+1 < len(s) && s[i+1] == '*':
				e := strings.Index(s[i+2:], "*/")
				if e < 0 {
					return len(s)
				}
				i += e + 4
			default:
				return i
			}
		}
		return i
	}
	brace := skip(p.off)
	if brace >= p.end || p.src[brace] != '{' {
		return 0, false
	}
	next := skip(brace + 1)
	if next >= p.end {
		return 0, false
	}
	c := p.src[next]
	if c == '-' && next+1 < p.end {
		c = p.src[next+1]
	}
	return brace, isDigit(c) || p.src[next] == ':'
}

// defaultLayout returns the row-major layout of a rank-n array. Below rank 8 it is one Layout, shared by
// every shape of the file that has it: most shapes do.
func (p *parser) defaultLayout(n int) *hlo.Layout {
	if n < len(p.defaultLayouts) {
		if l := p.defaultLayouts[n]; l != nil {
			return l
		}
	}
	if n >= len(p.defaultLayouts) {
		l := p.newLayout()
		l.MinorToMajor = p.intsFrom(hlo.DefaultLayout(n).MinorToMajor)
		return l
	}
	// Made outside the scratch storage, which the next scratch shape overwrites.
	l := hlo.DefaultLayout(n)
	p.defaultLayouts[n] = &l
	return &l
}

// isDefaultOrder reports whether m2m is the minor-to-major order of a row-major rank-n array.
func isDefaultOrder(m2m []int64, n int) bool {
	if len(m2m) != n {
		return false
	}
	for i, d := range m2m {
		if d != int64(n-1-i) {
			return false
		}
	}
	return true
}

// layout reads {minor_to_major[:fields]} of a rank-rank array.
func (p *parser) layout(rank int) (*hlo.Layout, bool) {
	start := p.off
	p.off++ // {
	m2m := p.dimBuf[:0]
	if end, ints, ok := p.plainInts(p.off, '}', m2m); ok {
		m2m, p.off = ints, end
	} else {
		m2m = ints[:0]
		for p.skipSpace(); isDigit(p.peek()); p.skipSpace() {
			n, ok := p.integer("in a layout")
			if !ok {
				return nil, false
			}
			m2m = append(m2m, n)
			if !p.accept(',') {
				break
			}
		}
	}
	p.dimBuf = m2m[:0]
	p.skipSpace()
	if p.peek() == '}' && isDefaultOrder(m2m, rank) {
		p.off++
		return p.defaultLayout(rank), true
	}
	l := p.newLayout()
	// Copied out of the buffer before the fields, which may hold a shape (P(...)) that reuses it.
	l.MinorToMajor = p.intsFrom(m2m)
	if !p.layoutFields(l) {
		return nil, false
	}
	if len(l.MinorToMajor) != rank && !(len(l.MinorToMajor) == 0 && rank == 0) {
		p.errorAt(start, "layout {%s} has %d dimensions but the shape has %d", hlo.JoinInts(l.MinorToMajor), len(l.MinorToMajor), rank)
		return nil, false
	}
	return l, true
}

// layoutFields reads the rest of a layout after its minor_to_major: [:fields]}.
func (p *parser) layoutFields(l *hlo.Layout) bool {
	if p.peek() == ':' {
		p.off++
		for {
			p.skipSpace()
			c := p.peek()
			switch {
			case c == '}':
				goto done
			case c == 'T':
				p.off++
				for p.peek() == '(' {
					tileStart := p.off
					p.off++
					var t hlo.Tile
					for !p.accept(')') {
						p.skipSpace()
						if p.peek() == '*' {
							p.off++
							t = append(t, hlo.CombineDim)
						} else {
							st := p.off
							n, ok := p.integer("in a tile")
							if !ok {
								return false
							}
							if n == 0 {
								// XLA's LayoutUtil::ValidateLayoutForShape: "layout has invalid tiles".
								p.errorAt(st, "a tile dimension cannot be 0")
								return false
							}
							t = append(t, n)
						}
						if !p.accept(',') && p.skipSpaceAndPeek() != ')' {
							p.errorAt(p.off, "expected ',' or ')' in a tile, found %s", p.describe())
							return false
						}
					}
					if len(t) == 0 {
						p.errorAt(tileStart, "a tile needs at least one dimension")
						return false
					}
					l.Tiles = append(l.Tiles, t)
				}
			case c == 'D':
				p.off++
				if !p.expect('(', "after D in a layout") {
					return false
				}
				for !p.accept(')') {
					st := p.off
					for p.off < p.end && p.src[p.off] != ',' && p.src[p.off] != ')' && p.src[p.off] != '}' {
						p.off++
					}
					if p.off == st || p.off >= p.end {
						p.errorAt(st, "expected a dimension level type in D(...), found %s", p.describe())
						return false
					}
					l.DimLevelTypes = append(l.DimLevelTypes, strings.TrimSpace(p.src[st:p.off]))
					p.accept(',')
				}
			case c == 'L' || c == 'E' || c == 'S' && p.peekAt(1) != 'C' || c == 'M':
				p.off++
				if !p.expect('(', "in a layout") {
					return false
				}
				st := p.off
				n, ok := p.integer("in a layout")
				if !ok || !p.expect(')', "in a layout") {
					return false
				}
				// What XLA's LayoutUtil::ValidateLayoutForShape refuses.
				if c == 'L' && n <= 0 || c == 'E' && n < 0 {
					what := map[byte]string{'L': "tail padding alignment L(n) must be positive", 'E': "element size E(n) cannot be negative"}[c]
					p.errorAt(st, "%s, got %d", what, n)
					return false
				}
				switch c {
				case 'L':
					l.TailPaddingAlignment = n
				case 'E':
					l.ElementSizeBits = n
				case 'S':
					l.MemorySpace = n
				case 'M':
					l.DynamicShapeMetadataPrefixBytes = n
				}
			case c == '#' || c == '*':
				p.off++
				if !p.expect('(', "in a layout") {
					return false
				}
				p.skipSpace()
				st := p.off
				for p.off < p.end && isNameByte(p.src[p.off]) {
					p.off++
				}
				t, ok := dtype.Lookup(p.src[st:p.off])
				if !ok {
					p.errorAt(st, "unknown element type %q in a layout", p.src[st:p.off])
					return false
				}
				if !t.IsUnsigned() {
					// XLA's parser reads these with ParseUnsignedIntegerType.
					what := "pointer"
					if c == '#' {
						what = "index"
					}
					p.errorAt(st, "the %s type of a layout must be an unsigned integer type, not %s", what, t)
					return false
				}
				if !p.expect(')', "in a layout") {
					return false
				}
				if c == '#' {
					l.IndexType = t
				} else {
					l.PointerType = t
				}
			case c == 'S' && p.peekAt(1) == 'C':
				p.off += 2
				for p.peek() == '(' {
					p.off++
					d, ok := p.integer("in a split config")
					if !ok || !p.expect(':', "in a split config") {
						return false
					}
					sc := hlo.SplitConfig{Dimension: d}
					for !p.accept(')') {
						n, ok := p.integer("in a split config")
						if !ok {
							return false
						}
						sc.SplitIndices = append(sc.SplitIndices, n)
						p.accept(',')
					}
					l.SplitConfigs = append(l.SplitConfigs, sc)
				}
			case c == 'P':
				pStart := p.off
				p.enter(p.off)
				p.off++
				if !p.expect('(', "in a layout") {
					p.leave()
					return false
				}
				_, ok := p.shape()
				p.leave()
				if !ok || !p.expect(')', "in a layout") {
					return false
				}
				// XLA's parser reads a physical shape, then refuses it: "Layout has physical shape, but is
				// not for a sparse array".
				p.errorAt(pStart, "a layout in HLO text cannot have a physical shape P(...)")
				return false
			default:
				p.errorAt(p.off, "unexpected %s in a layout", p.describe())
				return false
			}
		}
	}
done:
	return p.expect('}', "to close a layout")
}

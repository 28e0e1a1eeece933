// Package prototext reads HLO modules written as XLA's HloModuleProto (or an HloProto wrapping one) in protobuf
// text format, the form xla-translate's tests and some dumps use, into the same IR that HLO text gives.
//
// It has two layers. A small reader turns the text format into a tree of fields, each with its offset in
// the file, without knowing the schema. A converter then walks the tree with the field names of
// xla/service/hlo.proto and xla/xla_data.proto and builds the module: shapes, operands, called
// computations, and the attributes each instruction would carry if XLA printed it as HLO text, in the
// same order as the HLO text parser gives them and typed, as the parser types them, by the kinds of the op
// table (hlo.AttrSpec); each instruction is then checked against the table as the parser checks the ones
// it reads, so a proto cannot hold what HLO text could not (an unknown comparison direction, a fusion kind
// XLA does not have). Every field the
// converter does not use is reported as an error, so nothing a proto says is dropped unnoticed; the few
// fields that mean nothing in HLO text (ids, program shapes that repeat the instructions' shapes,
// profiling figures) are read and set aside on purpose.
//
// Importing the package registers the format with octet/hlo/parser, whose ParseFile then reads such files
// too.
package prototext

import (
	"encoding/binary"
	"fmt"
	"go/scanner"
	"go/token"
	"math"
	"octet/internal/cstring"
	"sort"
	"strconv"
	"strings"

	"octet/dtype"
	"octet/hlo"
	"octet/hlo/parser"
	"octet/hlo/printer"
	"octet/tensor"
)

func init() { parser.RegisterFormat("HloModuleProto text", Match, parseProtoText) }

// ParseFile reads every module of src, an HloModuleProto or HloProto in protobuf text format, as
// parser.ParseFile reads HLO text: modules separated by "// -----" lines, errors a sorted
// scanner.ErrorList with file:line:col positions, and the modules that converted cleanly.
func ParseFile(fset *token.FileSet, filename string, src []byte) ([]*hlo.Module, error) {
	file := fset.AddFile(filename, -1, len(src))
	file.SetLinesForContent(src)
	return parseProtoText(fset, file, src)
}

// maxErrors bounds the errors one read reports; past it the read stops.
const maxErrors = 50

// bailout is the panic that stops a read at maxErrors errors.
type bailout struct{}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func hexVal(c byte) int {
	switch {
	case isDigit(c):
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	}
	return int(c-'A') + 10
}

// isNameByte reports whether c may appear in an HLO name.
func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c == '_' || c == '.' || c == '-' || c == '$'
}

// maxProtoDepth bounds the nesting of messages, so that hostile input cannot exhaust the stack.
const maxProtoDepth = 200

// Match reports whether src is protobuf text format rather than HLO text: after blank
// lines and comment lines ('#' or '//'), it starts with a field name followed by ':' (name: "m"), or
// with a field name and '{' opening a message whose first field follows (hlo_module { name: ...). HLO
// text never starts so: its first word is HloModule, ENTRY, a computation name followed by its
// signature or '{', or an instruction name followed by '='.
func Match(src []byte) bool {
	// The decision needs only the first words after the leading comments: look at a prefix.
	head := src[:min(len(src), 1<<16)]
	r := protoScan{src: string(head), end: len(head)}
	word := func() string {
		r.skipSpace()
		start := r.off
		if r.off < r.end && isProtoIdentStart(r.src[r.off]) {
			for r.off < r.end && isProtoIdentByte(r.src[r.off]) {
				r.off++
			}
		}
		return r.src[start:r.off]
	}
	punct := func() byte {
		r.skipSpace()
		if r.off < r.end {
			r.off++
			return r.src[r.off-1]
		}
		return 0
	}
	first := word()
	if first == "" {
		return false
	}
	switch punct() {
	case ':':
		return true
	case '{', '<':
		if first == "hlo_module" {
			return true
		}
		if word() == "" {
			return false
		}
		switch punct() {
		case ':', '{', '<':
			return true
		}
	}
	return false
}

// parseProtoText reads every module of src, an HloModuleProto or HloProto in protobuf text format.
// Modules are separated by "// -----" lines, as in HLO text files. Errors read file:line:col through
// file and are returned sorted, with the modules that converted cleanly.
func parseProtoText(fset *token.FileSet, file *token.File, src []byte) (mods []*hlo.Module, err error) {
	e := &protoErrors{file: file}
	text := string(src)
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
		}
		e.errs.Sort()
		e.errs.RemoveMultiples()
		err = e.errs.Err()
	}()
	for _, ch := range parser.SplitModules(text) {
		before := len(e.errs)
		top, ok := readProtoText(e, text, ch.Start, ch.End)
		if !ok || len(top.fields) == 0 {
			continue
		}
		c := &protoConverter{protoErrors: e, fset: fset}
		m := c.module(top)
		if m != nil && len(e.errs) == before {
			parser.UniquifyNames(m)
			mods = append(mods, m)
		}
	}
	return mods, nil
}

// protoErrors collects positioned errors.
type protoErrors struct {
	file *token.File
	errs scanner.ErrorList
}

func (e *protoErrors) errorAt(off int, format string, args ...any) {
	if off < 0 {
		off = 0
	}
	if off > e.file.Size() {
		off = e.file.Size()
	}
	e.errs.Add(e.file.Position(e.file.Pos(off)), fmt.Sprintf(format, args...))
	if len(e.errs) >= maxErrors {
		panic(bailout{})
	}
}

// --- the text format ---------------------------------------------------------------------------------

// protoKind says what a field holds.
type protoKind uint8

const (
	protoMessage protoKind = iota // name { fields }
	protoIdent                    // an enum value, true, false, inf, nan
	protoNumber                   // an integer or floating-point number, as written
	protoString                   // a quoted string, decoded to its bytes
)

func (k protoKind) String() string {
	switch k {
	case protoMessage:
		return "a message"
	case protoIdent:
		return "an identifier"
	case protoNumber:
		return "a number"
	}
	return "a string"
}

// protoField is one field of a message as written: a scalar (name: value) or a message (name { ... }).
// A repeated field is one protoField per value. Offsets are into the file.
type protoField struct {
	name   string
	off    int // offset of the name
	kind   protoKind
	text   string        // a scalar: a number or identifier as written (with its sign), a string's bytes
	valOff int           // offset of the value
	fields []*protoField // a message's fields, in written order
	used   bool
}

// protoScan is the reader's view of the text: white space and comments are skipped between tokens.
type protoScan struct {
	src      string
	off, end int
}

// skipSpace skips white space and comments: '#' to the end of the line (the text format's comments) and
// '//' to the end of the line (as HLO files mark their RUN lines).
func (s *protoScan) skipSpace() {
	for s.off < s.end {
		c := s.src[s.off]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			s.off++
		case c == '#' || c == '/' && s.off+1 < s.end && s.src[s.off+1] == '/':
			nl := strings.IndexByte(s.src[s.off:s.end], '\n')
			if nl < 0 {
				s.off = s.end
			} else {
				s.off += nl + 1
			}
		default:
			return
		}
	}
}

func isProtoIdentStart(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }

func isProtoIdentByte(c byte) bool { return isProtoIdentStart(c) || isDigit(c) }

type protoTok uint8

const (
	tokEOF protoTok = iota
	tokIdent
	tokNumber
	tokString
	tokPunct
)

// protoReader reads the text format into a tree of protoFields.
type protoReader struct {
	protoScan
	*protoErrors
	tok     protoTok
	tokOff  int
	tokText string // identifier or number as written, a string's decoded bytes, or the punctuation
}

// protoStop ends the reading of a module at its first syntax error.
type protoStop struct{}

// readProtoText reads the fields of src[start:end] as the body of one top-level message.
func readProtoText(e *protoErrors, src string, start, end int) (top *protoField, ok bool) {
	r := &protoReader{protoScan: protoScan{src: src, off: start, end: end}, protoErrors: e}
	top = &protoField{off: start, valOff: start}
	defer func() {
		if x := recover(); x != nil {
			if _, stop := x.(protoStop); !stop {
				panic(x)
			}
			ok = false
		}
	}()
	r.advance()
	top.fields = r.message(0, 0)
	return top, true
}

// fail reports a syntax error and abandons the module: one misplaced brace would otherwise cause a
// cascade of errors that say nothing more.
func (r *protoReader) fail(off int, format string, args ...any) {
	r.errorAt(off, format, args...)
	panic(protoStop{})
}

// describe names the current token for error messages.
func (r *protoReader) describe() string {
	switch r.tok {
	case tokEOF:
		return "end of input"
	case tokString:
		return "a string"
	}
	return strconv.Quote(r.tokText)
}

func (r *protoReader) isPunct(c byte) bool {
	return r.tok == tokPunct && len(r.tokText) == 1 && r.tokText[0] == c
}

// advance reads the next token.
func (r *protoReader) advance() {
	r.skipSpace()
	r.tokOff = r.off
	if r.off >= r.end {
		r.tok, r.tokText = tokEOF, ""
		return
	}
	c := r.src[r.off]
	switch {
	case isProtoIdentStart(c):
		for r.off < r.end && isProtoIdentByte(r.src[r.off]) {
			r.off++
		}
		r.tok, r.tokText = tokIdent, r.src[r.tokOff:r.off]
	case isDigit(c) || c == '.' && r.off+1 < r.end && isDigit(r.src[r.off+1]):
		hex := c == '0' && r.off+1 < r.end && (r.src[r.off+1] == 'x' || r.src[r.off+1] == 'X')
		for r.off < r.end {
			d := r.src[r.off]
			if isProtoIdentByte(d) || d == '.' ||
				!hex && (d == '+' || d == '-') && (r.src[r.off-1] == 'e' || r.src[r.off-1] == 'E') {
				r.off++
				continue
			}
			break
		}
		r.tok, r.tokText = tokNumber, r.src[r.tokOff:r.off]
	case c == '"' || c == '\'':
		r.tok, r.tokText = tokString, r.quoted()
	default:
		r.off++
		r.tok, r.tokText = tokPunct, r.src[r.tokOff:r.off]
	}
}

// quoted reads a string literal with C escapes and returns its bytes.
func (r *protoReader) quoted() string {
	quote := r.src[r.off]
	start := r.off
	r.off++
	var b []byte
	for {
		if r.off >= r.end || r.src[r.off] == '\n' {
			r.fail(start, "string not terminated")
		}
		c := r.src[r.off]
		if c == quote {
			r.off++
			return string(b)
		}
		if c != '\\' {
			b = append(b, c)
			r.off++
			continue
		}
		escOff := r.off
		r.off++
		if r.off >= r.end {
			r.fail(start, "string not terminated")
		}
		e := r.src[r.off]
		r.off++
		switch e {
		case 'a':
			b = append(b, '\a')
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'v':
			b = append(b, '\v')
		case '\\', '\'', '"', '?':
			b = append(b, e)
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v := int(e - '0')
			for n := 1; n < 3 && r.off < r.end && r.src[r.off] >= '0' && r.src[r.off] <= '7'; n++ {
				v = v*8 + int(r.src[r.off]-'0')
				r.off++
			}
			if v > 0xff {
				r.fail(escOff, "octal escape \\%o is out of range", v)
			}
			b = append(b, byte(v))
		case 'x', 'X':
			v, n := 0, 0
			for ; n < 2 && r.off < r.end && isHex(r.src[r.off]); n++ {
				v = v*16 + hexVal(r.src[r.off])
				r.off++
			}
			if n == 0 {
				r.fail(escOff, "\\x escape without hexadecimal digits")
			}
			b = append(b, byte(v))
		case 'u', 'U':
			digits := 4
			if e == 'U' {
				digits = 8
			}
			v := 0
			for n := 0; n < digits; n++ {
				if r.off >= r.end || !isHex(r.src[r.off]) {
					r.fail(escOff, "\\%c escape needs %d hexadecimal digits", e, digits)
				}
				v = v*16 + hexVal(r.src[r.off])
				r.off++
			}
			if v > 0x10ffff || v >= 0xd800 && v <= 0xdfff {
				r.fail(escOff, "\\%c escape names no Unicode character", e)
			}
			b = append(b, string(rune(v))...)
		default:
			r.fail(escOff, "unknown escape \\%c", e)
		}
	}
}

// message reads fields up to the closing delimiter close, or to the end of the input when close is 0.
func (r *protoReader) message(close byte, depth int) []*protoField {
	var fields []*protoField
	for {
		switch {
		case r.tok == tokEOF:
			if close != 0 {
				r.fail(r.tokOff, "expected %q to close the message, found end of input", close)
			}
			return fields
		case close != 0 && r.isPunct(close):
			r.advance()
			return fields
		case r.tok == tokIdent:
			fields = r.field(fields, depth)
		case r.isPunct('['):
			r.fail(r.tokOff, "extension and Any fields ([...]) are not supported")
		default:
			r.fail(r.tokOff, "expected a field name, found %s", r.describe())
		}
		if r.isPunct(',') || r.isPunct(';') {
			r.advance()
		}
	}
}

// field reads one field (its name is the current token) and appends it to fields; a list (name: [a, b])
// appends one field per element.
func (r *protoReader) field(fields []*protoField, depth int) []*protoField {
	name, off := r.tokText, r.tokOff
	r.advance()
	colon := r.isPunct(':')
	if colon {
		r.advance()
	}
	switch {
	case r.isPunct('{') || r.isPunct('<'):
		return append(fields, r.messageValue(name, off, depth))
	case colon && r.isPunct('['):
		r.advance()
		if r.isPunct(']') {
			r.advance()
			return fields
		}
		for {
			if r.isPunct('{') || r.isPunct('<') {
				fields = append(fields, r.messageValue(name, off, depth))
			} else {
				fields = append(fields, r.scalar(name, off))
			}
			if r.isPunct(',') {
				r.advance()
				continue
			}
			if !r.isPunct(']') {
				r.fail(r.tokOff, "expected ',' or ']' in the list of field %s, found %s", name, r.describe())
			}
			r.advance()
			return fields
		}
	case colon:
		return append(fields, r.scalar(name, off))
	}
	r.fail(r.tokOff, "expected ':' or '{' after field name %s, found %s", name, r.describe())
	return fields
}

// messageValue reads { fields } or < fields > as the value of field name.
func (r *protoReader) messageValue(name string, off, depth int) *protoField {
	if depth >= maxProtoDepth {
		r.fail(r.tokOff, "messages are nested more than %d deep", maxProtoDepth)
	}
	close := byte('}')
	if r.isPunct('<') {
		close = '>'
	}
	f := &protoField{name: name, off: off, kind: protoMessage, valOff: r.tokOff}
	r.advance()
	f.fields = r.message(close, depth+1)
	return f
}

// scalar reads a number, identifier or string (adjacent strings are joined) as the value of field name.
func (r *protoReader) scalar(name string, off int) *protoField {
	f := &protoField{name: name, off: off, valOff: r.tokOff}
	switch {
	case r.tok == tokString:
		f.kind = protoString
		var b strings.Builder
		for r.tok == tokString {
			b.WriteString(r.tokText)
			r.advance()
		}
		f.text = b.String()
		return f
	case r.tok == tokNumber || r.tok == tokIdent:
		f.kind, f.text = protoNumber, r.tokText
		if r.tok == tokIdent {
			f.kind = protoIdent
		}
	case r.isPunct('-'):
		r.advance()
		if r.tok != tokNumber && r.tok != tokIdent {
			r.fail(f.valOff, "expected a number after '-' in field %s, found %s", name, r.describe())
		}
		f.kind, f.text = protoNumber, "-"+r.tokText
		if r.tok == tokIdent {
			f.kind = protoIdent
		}
	default:
		r.fail(r.tokOff, "expected a value for field %s, found %s", name, r.describe())
	}
	r.advance()
	return f
}

// --- reading fields of the tree ------------------------------------------------------------------------

// protoConverter builds a module from the fields of one HloModuleProto.
type protoConverter struct {
	*protoErrors
	fset *token.FileSet
	mod  *hlo.Module
}

func (c *protoConverter) pos(off int) token.Pos {
	if off < 0 {
		off = 0
	}
	if off > c.file.Size() {
		off = c.file.Size()
	}
	return c.file.Pos(off)
}

// take returns the fields of m named name, in written order, and marks them used.
func (c *protoConverter) take(m *protoField, name string) []*protoField {
	var out []*protoField
	for _, f := range m.fields {
		if f.name == name {
			f.used = true
			out = append(out, f)
		}
	}
	return out
}

// one returns the field of m named name, or nil. A singular field given twice is an error, as it is to
// protobuf's own text parser.
func (c *protoConverter) one(m *protoField, name string) *protoField {
	fs := c.take(m, name)
	if len(fs) == 0 {
		return nil
	}
	if len(fs) > 1 {
		c.errorAt(fs[1].off, "field %s is given more than once", name)
	}
	return fs[0]
}

// sub returns the message field of m named name, or nil.
func (c *protoConverter) sub(m *protoField, name string) *protoField {
	f := c.one(m, name)
	if f != nil && f.kind != protoMessage {
		c.errorAt(f.valOff, "field %s: expected a message, found %s", name, f.kind)
		return nil
	}
	return f
}

// subs returns the repeated message field of m named name.
func (c *protoConverter) subs(m *protoField, name string) []*protoField {
	var out []*protoField
	for _, f := range c.take(m, name) {
		if f.kind != protoMessage {
			c.errorAt(f.valOff, "field %s: expected a message, found %s", name, f.kind)
			continue
		}
		out = append(out, f)
	}
	return out
}

// done reports every field of m that the conversion did not use: what a proto says must not be lost.
func (c *protoConverter) done(m *protoField, what string) {
	for _, f := range m.fields {
		if !f.used {
			f.used = true
			c.errorAt(f.off, "field %s of %s is not supported", f.name, what)
		}
	}
}

func hasField(m *protoField, name string) bool {
	for _, f := range m.fields {
		if f.name == name {
			return true
		}
	}
	return false
}

// skip marks the fields of m named in names as read: they carry nothing that HLO text says.
func (c *protoConverter) skip(m *protoField, names ...string) {
	for _, n := range names {
		c.take(m, n)
	}
}

func parseProtoUint(text string) (uint64, error) {
	if strings.ContainsAny(text, "_+") {
		return 0, strconv.ErrSyntax
	}
	return strconv.ParseUint(text, 0, 64)
}

func parseProtoInt(text string) (int64, error) {
	neg := strings.HasPrefix(text, "-")
	u, err := parseProtoUint(strings.TrimPrefix(text, "-"))
	switch {
	case err != nil:
		return 0, err
	case neg && u > 1<<63, !neg && u > math.MaxInt64:
		return 0, strconv.ErrRange
	case neg:
		return -int64(u), nil
	}
	return int64(u), nil
}

func (c *protoConverter) intOf(f *protoField) int64 {
	if f.kind != protoNumber {
		c.errorAt(f.valOff, "field %s: expected an integer, found %s", f.name, f.kind)
		return 0
	}
	n, err := parseProtoInt(f.text)
	if err != nil {
		c.errorAt(f.valOff, "field %s: bad integer %s", f.name, f.text)
	}
	return n
}

func (c *protoConverter) uintOf(f *protoField) uint64 {
	if f.kind != protoNumber {
		c.errorAt(f.valOff, "field %s: expected an integer, found %s", f.name, f.kind)
		return 0
	}
	n, err := parseProtoUint(f.text)
	if err != nil {
		c.errorAt(f.valOff, "field %s: bad unsigned integer %s", f.name, f.text)
	}
	return n
}

// int returns the integer field name of m and whether it is present.
func (c *protoConverter) int(m *protoField, name string) (int64, bool) {
	f := c.one(m, name)
	if f == nil {
		return 0, false
	}
	return c.intOf(f), true
}

// ints returns the repeated integer field name of m; nil when it has no value.
func (c *protoConverter) ints(m *protoField, name string) []int64 {
	var out []int64
	for _, f := range c.take(m, name) {
		out = append(out, c.intOf(f))
	}
	return out
}

func (c *protoConverter) boolOf(f *protoField) bool {
	switch f.text {
	case "true", "True", "t", "1":
		if f.kind != protoString {
			return true
		}
	case "false", "False", "f", "0":
		if f.kind != protoString {
			return false
		}
	}
	c.errorAt(f.valOff, "field %s: expected true or false, found %s", f.name, f.kind)
	return false
}

func (c *protoConverter) boolean(m *protoField, name string) bool {
	f := c.one(m, name)
	return f != nil && c.boolOf(f)
}

func (c *protoConverter) bools(m *protoField, name string) []bool {
	var out []bool
	for _, f := range c.take(m, name) {
		out = append(out, c.boolOf(f))
	}
	return out
}

func (c *protoConverter) strOf(f *protoField) string {
	if f.kind != protoString {
		c.errorAt(f.valOff, "field %s: expected a string, found %s", f.name, f.kind)
		return ""
	}
	return f.text
}

func (c *protoConverter) str(m *protoField, name string) string {
	if f := c.one(m, name); f != nil {
		return c.strOf(f)
	}
	return ""
}

func (c *protoConverter) floatOf(f *protoField) float64 {
	text := strings.ToLower(f.text)
	neg := strings.HasPrefix(text, "-")
	mag := strings.TrimPrefix(text, "-")
	var v float64
	switch {
	case f.kind == protoIdent && (mag == "inf" || mag == "infinity"):
		v = math.Inf(1)
	case f.kind == protoIdent && mag == "nan":
		v = math.NaN()
	case f.kind == protoNumber && !strings.HasPrefix(mag, "0x"):
		x, err := strconv.ParseFloat(strings.TrimSuffix(mag, "f"), 64)
		if err != nil && !isRangeErr(err) || strings.Contains(mag, "_") {
			c.errorAt(f.valOff, "field %s: bad number %s", f.name, f.text)
		}
		v = x
	case f.kind == protoNumber:
		n, err := parseProtoUint(mag)
		if err != nil {
			c.errorAt(f.valOff, "field %s: bad number %s", f.name, f.text)
		}
		v = float64(n)
	default:
		c.errorAt(f.valOff, "field %s: expected a number, found %s", f.name, f.kind)
	}
	if neg {
		v = -v
	}
	return v
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func (c *protoConverter) float(m *protoField, name string) (float64, bool) {
	if f := c.one(m, name); f != nil {
		return c.floatOf(f), true
	}
	return 0, false
}

// protoEnum is an enum type of the schema: its value names by number.
type protoEnum struct {
	name  string
	names map[int64]string
	nums  map[string]int64
}

// newProtoEnum makes an enum whose values, in order, are numbered from 0.
func newProtoEnum(name string, values ...string) *protoEnum {
	e := &protoEnum{name: name, names: map[int64]string{}, nums: map[string]int64{}}
	for i, v := range values {
		e.names[int64(i)] = v
		e.nums[v] = int64(i)
	}
	return e
}

// enumOf returns the value name of an enum field written by name or by number.
func (c *protoConverter) enumOf(f *protoField, e *protoEnum) (string, bool) {
	switch f.kind {
	case protoIdent:
		if _, ok := e.nums[f.text]; ok {
			return f.text, true
		}
	case protoNumber:
		if n, err := parseProtoInt(f.text); err == nil {
			if name, ok := e.names[n]; ok {
				return name, true
			}
		}
	}
	c.errorAt(f.valOff, "field %s: %s is not a value of %s", f.name, f.text, e.name)
	return "", false
}

// enum returns the enum field name of m, or its zero value when absent.
func (c *protoConverter) enum(m *protoField, name string, e *protoEnum) string {
	if f := c.one(m, name); f != nil {
		v, _ := c.enumOf(f, e)
		return v
	}
	return e.names[0]
}

func (c *protoConverter) enums(m *protoField, name string, e *protoEnum) []string {
	var out []string
	for _, f := range c.take(m, name) {
		v, _ := c.enumOf(f, e)
		out = append(out, v)
	}
	return out
}

// The enums of xla_data.proto and hlo.proto that the conversion reads.
var (
	protoDimLevelType   = newProtoEnum("DimLevelType", "DIM_DENSE", "DIM_COMPRESSED", "DIM_SINGLETON", "DIM_LOOSE_COMPRESSED")
	protoShardingType   = newProtoEnum("OpSharding.Type", "REPLICATED", "MAXIMAL", "TUPLE", "OTHER", "MANUAL", "UNKNOWN", "UNREDUCED")
	protoShardGroupType = newProtoEnum("OpSharding.ShardGroupType", "AS", "LIKE")
	protoFftType        = newProtoEnum("FftType", "FFT", "IFFT", "RFFT", "IRFFT")
	protoDistribution   = newProtoEnum("RandomDistribution", "RNG_INVALID", "RNG_UNIFORM", "RNG_NORMAL")
	protoRngAlgorithm   = newProtoEnum("RandomAlgorithm", "RNG_DEFAULT", "RNG_THREE_FRY", "RNG_PHILOX")
	protoTranspose      = newProtoEnum("TriangularSolveOptions.Transpose", "TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT")
	protoPaddingType    = newProtoEnum("PaddingType", "PADDING_INVALID", "PADDING_VALID", "PADDING_SAME")
	protoSchedule       = newProtoEnum("CustomCallSchedule", "SCHEDULE_NONE", "SCHEDULE_LATEST", "SCHEDULE_EARLIEST")
	protoAPIVersion     = newProtoEnum("CustomCallApiVersion", "API_VERSION_UNSPECIFIED", "API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING", "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI")
	protoPrecision      = newProtoEnum("PrecisionConfig.Precision", "DEFAULT", "HIGH", "HIGHEST")
	protoAlgorithm      = newProtoEnum("PrecisionConfig.Algorithm", "ALG_UNSET", "ALG_DOT_ANY_F8_ANY_F8_F32", "ALG_DOT_ANY_F8_ANY_F8_F32_FAST_ACCUM", "ALG_DOT_F16_F16_F16", "ALG_DOT_F16_F16_F32", "ALG_DOT_BF16_BF16_BF16", "ALG_DOT_BF16_BF16_F32", "ALG_DOT_BF16_BF16_F32_X3", "ALG_DOT_BF16_BF16_F32_X6", "ALG_DOT_TF32_TF32_F32", "ALG_DOT_TF32_TF32_F32_X3", "ALG_DOT_F32_F32_F32", "ALG_DOT_F64_F64_F64", "ALG_DOT_BF16_BF16_F32_X9")
	protoAliasKind      = newProtoEnum("Kind", "UNDEFINED_ALIAS", "MAY_ALIAS", "MUST_ALIAS")
	protoAccuracyMode   = newProtoEnum("ResultAccuracy.Mode", "DEFAULT", "HIGHEST")
	protoOpProfileType  = newProtoEnum("ProfileType", "INVALID", "WINDOW", "FLAG", "INTEGER")
	protoPrimitiveType  = func() *protoEnum {
		e := &protoEnum{name: "PrimitiveType", names: map[int64]string{}, nums: map[string]int64{}}
		for name, n := range map[string]int64{
			"PRIMITIVE_TYPE_INVALID": 0, "PRED": 1, "S1": 30, "S2": 26, "S4": 21, "S8": 2, "S16": 3, "S32": 4,
			"S64": 5, "U1": 31, "U2": 27, "U4": 22, "U8": 6, "U16": 7, "U32": 8, "U64": 9, "F16": 10, "F32": 11,
			"BF16": 16, "F64": 12, "F8E5M2": 19, "F8E4M3": 28, "F8E4M3FN": 20, "F8E4M3B11FNUZ": 23, "F8E3M4": 29,
			"F8E5M2FNUZ": 24, "F8E4M3FNUZ": 25, "F4E2M1FN": 32, "F8E8M0FNU": 33, "C64": 15, "C128": 18,
			"TUPLE": 13, "OPAQUE_TYPE": 14, "TOKEN": 17, "BUFFER": 34,
		} {
			e.names[n] = name
			e.nums[name] = n
		}
		// Types newer than the numbers above are known by name only.
		for _, t := range dtype.All() {
			if name := strings.ToUpper(t.String()); e.nums[name] == 0 {
				e.nums[name] = -1
			}
		}
		return e
	}()
)

// elementType returns the array element type named by a PrimitiveType field; ok is false for TUPLE,
// TOKEN, OPAQUE_TYPE and BUFFER, whose name is returned instead.
func (c *protoConverter) elementType(f *protoField) (t dtype.Type, other string, ok bool) {
	name, valid := c.enumOf(f, protoPrimitiveType)
	if !valid {
		return dtype.Invalid, "", false
	}
	switch name {
	case "TUPLE", "TOKEN", "OPAQUE_TYPE", "BUFFER", "PRIMITIVE_TYPE_INVALID":
		return dtype.Invalid, name, false
	}
	t, found := dtype.Lookup(strings.ToLower(name))
	if !found {
		c.errorAt(f.valOff, "field %s: unknown element type %s", f.name, name)
		return dtype.Invalid, "", false
	}
	return t, "", true
}

// --- modules, computations, instructions ------------------------------------------------------------------

// protoComp is a computation being converted: its instructions and their fields, by proto id.
type protoComp struct {
	comp  *hlo.Computation
	field *protoField
	insts []*protoInst
	byID  map[int64]*hlo.Instruction
	// hasFields is set when the computation has instruction fields, whether or not they converted.
	hasFields bool
	failed    map[int64]bool // ids of instructions that did not convert
	// errs is the number of errors reported before the computation's conversion started.
	errs int
}

type protoInst struct {
	in    *hlo.Instruction
	field *protoField
}

// module converts an HloModuleProto, or an HloProto that wraps one.
func (c *protoConverter) module(top *protoField) *hlo.Module {
	before := len(c.errs)
	m := top
	wrapped := c.subs(top, "hlo_module")
	// An HloProto's buffer assignment is the result of a compiler analysis, which HLO text has no place
	// for.
	assignment := c.one(top, "buffer_assignment")
	if len(wrapped) > 0 || assignment != nil {
		if len(wrapped) != 1 {
			c.errorAt(top.off, "an HloProto must hold one hlo_module")
			return nil
		}
		c.done(top, "HloProto")
		m = wrapped[0]
	}
	mod := &hlo.Module{Fset: c.fset, Pos: c.pos(m.valOff)}
	c.mod = mod
	mod.Name = c.str(m, "name")
	for i := 0; i < len(mod.Name); i++ {
		if !isNameByte(mod.Name[i]) {
			c.errorAt(c.one(m, "name").valOff, "module name %q has a character HLO text cannot write (%q)", mod.Name, mod.Name[i])
			break
		}
	}
	entryName := c.str(m, "entry_computation_name")
	entryIDField := c.one(m, "entry_computation_id")
	c.skip(m, "id")

	// Computations and their instructions first, so that references in any order resolve.
	var comps []*protoComp
	byID := map[int64]*protoComp{}
	byName := map[string]*protoComp{}
	compFields := c.subs(m, "computations")
	for _, cf := range compFields {
		pc := c.computation(cf)
		if pc == nil {
			continue
		}
		if prev, dup := byName[pc.comp.Name]; dup {
			c.errorAt(cf.off, "computation %s is defined twice (first at %s)", pc.comp.Name, c.file.Position(prev.comp.Pos))
			continue
		}
		byName[pc.comp.Name] = pc
		if idf := c.one(cf, "id"); idf != nil {
			id := c.intOf(idf)
			if _, dup := byID[id]; dup {
				c.errorAt(idf.valOff, "computation id %d is used twice", id)
			}
			byID[id] = pc
		} else if _, dup := byID[0]; !dup {
			byID[0] = pc // proto3 leaves an id of 0 out
		}
		comps = append(comps, pc)
		mod.AddComputation(pc.comp)
	}
	if len(comps) == 0 {
		if len(compFields) == 0 && !hasField(m, "computations") {
			c.errorAt(m.valOff, "module has no computations")
		}
		c.done(m, "HloModuleProto")
		return nil
	}
	for _, pc := range comps {
		c.connect(pc, byID)
	}

	// The entry: by id, else by name, else (as in HLO text) the last computation.
	switch {
	case entryIDField != nil:
		if pc := byID[c.intOf(entryIDField)]; pc != nil {
			mod.Entry = pc.comp
		} else {
			c.errorAt(entryIDField.valOff, "entry_computation_id %s names no computation", entryIDField.text)
		}
	case entryName != "":
		if pc := byName[entryName]; pc != nil {
			mod.Entry = pc.comp
		} else {
			c.errorAt(m.valOff, "entry_computation_name %q names no computation", entryName)
		}
	default:
		mod.Entry = comps[len(comps)-1].comp
	}
	if mod.Entry != nil {
		mod.Entry.IsEntry = true
		if entryName != "" && entryName != mod.Entry.Name {
			c.errorAt(m.valOff, "entry_computation_name %q is not the computation entry_computation_id names (%s)", entryName, mod.Entry.Name)
		}
	}
	if mod.Name == "" && mod.Entry != nil {
		mod.Name = mod.Entry.Name
	}
	c.moduleAttrs(m, byID)
	if sf := c.sub(m, "stack_frame_index"); sf != nil {
		mod.StackFrames = c.stackFrames(sf)
	}
	c.done(m, "HloModuleProto")
	if len(c.errs) > before {
		return nil
	}
	return mod
}

// computation creates a computation and its instructions, with their shapes, parameter numbers and
// literals; connect does the rest once every computation exists.
func (c *protoConverter) computation(cf *protoField) *protoComp {
	name, ok := c.name(cf, "computation")
	if !ok {
		return nil
	}
	comp := &hlo.Computation{Name: name, Pos: c.pos(cf.off)}
	pc := &protoComp{comp: comp, field: cf, byID: map[int64]*hlo.Instruction{}, failed: map[int64]bool{}, errs: len(c.errs)}
	// The program shape repeats the parameters' and root's shapes; whether a computation is a fusion's
	// follows from its caller.
	c.skip(cf, "program_shape", "is_fusion_computation")
	if th := c.str(cf, "execution_thread"); th != "" && th != "main" {
		l := attrList{spec: hlo.ComputationAttr}
		l.str("execution_thread", th)
		comp.Attrs = l.attrs
	}
	names := map[string]*hlo.Instruction{}
	instFields := c.subs(cf, "instructions")
	pc.hasFields = len(instFields) > 0
	for _, f := range instFields {
		idf := c.one(f, "id")
		in := c.instruction(comp, f)
		if in == nil {
			// Its error is reported; references to it would only repeat it.
			if idf != nil {
				pc.failed[c.intOf(idf)] = true
			}
			continue
		}
		if prev, dup := names[in.Name]; dup {
			c.errorAt(f.off, "instruction %%%s is defined twice in computation %s (first at %s)", in.Name, name, c.file.Position(prev.Pos))
			continue
		}
		names[in.Name] = in
		if idf != nil {
			id := c.intOf(idf)
			if prev, dup := pc.byID[id]; dup {
				c.errorAt(idf.valOff, "instruction id %d is used by both %%%s and %%%s", id, prev.Name, in.Name)
			}
			pc.byID[id] = in
		} else if _, dup := pc.byID[0]; !dup {
			pc.byID[0] = in // proto3 leaves an id of 0 out
		}
		pc.insts = append(pc.insts, &protoInst{in: in, field: f})
		comp.Instructions = append(comp.Instructions, in)
	}
	return pc
}

// instruction creates an instruction from its name, opcode, shape, parameter number and literal.
func (c *protoConverter) instruction(comp *hlo.Computation, f *protoField) *hlo.Instruction {
	name, ok := c.name(f, "instruction")
	if !ok {
		return nil
	}
	in := &hlo.Instruction{Name: name, Parent: comp, Pos: c.pos(f.off)}
	opf := c.one(f, "opcode")
	if opf == nil {
		c.errorAt(f.off, "instruction %%%s has no opcode", in.Name)
		return nil
	}
	op, ok := hlo.LookupOpcode(c.strOf(opf))
	if !ok {
		c.errorAt(opf.valOff, "unknown opcode %q", opf.text)
		return nil
	}
	in.Opcode = op
	sf := c.sub(f, "shape")
	if sf == nil {
		c.errorAt(f.off, "instruction %%%s has no shape", in.Name)
		return nil
	}
	in.Shape = c.shape(sf)
	switch op {
	case hlo.OpParameter:
		in.ParameterNumber, _ = c.int(f, "parameter_number")
	case hlo.OpConstant:
		lf := c.sub(f, "literal")
		if lf == nil {
			c.errorAt(f.off, "constant %%%s has no literal", in.Name)
			return nil
		}
		var ls hlo.Shape
		if in.Literal, ls = c.literal(lf); in.Literal != nil && !ls.Compatible(in.Shape) {
			// The constant's shape is its literal's, as XLA builds it.
			in.Shape = ls
		}
	}
	return in
}

// name returns the name field of a computation or instruction. A missing name, or one that HLO text cannot
// write (letters, digits and _.-$ only), is an error.
func (c *protoConverter) name(f *protoField, what string) (string, bool) {
	nf := c.one(f, "name")
	if nf == nil {
		c.errorAt(f.off, "%s has no name", what)
		return "", false
	}
	name := c.strOf(nf)
	if name == "" {
		c.errorAt(nf.valOff, "%s has an empty name", what)
		return "", false
	}
	for i := 0; i < len(name); i++ {
		if !isNameByte(name[i]) {
			c.errorAt(nf.valOff, "%s name %q has a character HLO text cannot write (%q)", what, name, name[i])
			return "", false
		}
	}
	return name, true
}

// connect resolves the operands, control predecessors and called computations of pc's instructions,
// gives them their attributes, and sets the computation's parameters and root.
func (c *protoConverter) connect(pc *protoComp, comps map[int64]*protoComp) {
	comp := pc.comp
	// XLA builds a computation's instructions in the order the proto lists them, each from operands
	// already built (HloInstruction::CreateFromProto: "instruction contains invalid operand id(s)"): an
	// operand listed after its user is refused as XLA refuses it.
	at := make(map[*hlo.Instruction]int, len(pc.insts))
	for i, pi := range pc.insts {
		at[pi.in] = i
	}
	for i, pi := range pc.insts {
		var ops []*hlo.Instruction
		for _, f := range c.take(pi.field, "operand_ids") {
			o := c.instByID(pc, f, pi.in)
			switch {
			case o == nil:
			case at[o] >= i:
				c.errorAt(f.valOff, "operand %%%s of %%%s comes after it in computation %s: XLA reads an instruction's operands before it", o.Name, pi.in.Name, comp.Name)
			default:
				ops = append(ops, o)
			}
		}
		pi.in.SetOperands(ops...)
	}
	for _, pi := range pc.insts {
		pi.in.Attrs = c.attrs(pc, pi, comps)
		c.done(pi.field, "HloInstructionProto")
	}
	if len(c.errs) == pc.errs {
		// What the HLO text parser checks of an instruction it reads, against the same table; only when the
		// instructions converted cleanly, as the parser checks only what it read without error.
		for _, pi := range pc.insts {
			hlo.CheckOperation(pi.in, pi.in.NumOperands(), func(_ int, msg string) {
				c.errorAt(pi.field.off, "%%%s: %s", pi.in.Name, msg)
			})
		}
	}
	// Parameters by number.
	for _, in := range comp.Instructions {
		if in.Opcode != hlo.OpParameter {
			continue
		}
		n := in.ParameterNumber
		if n < 0 || n >= int64(len(comp.Instructions)) {
			c.errorAt(c.file.Offset(in.Pos), "parameter number %d of %%%s is out of range", n, in.Name)
			continue
		}
		for int64(len(comp.Params)) <= n {
			comp.Params = append(comp.Params, nil)
		}
		if prev := comp.Params[n]; prev != nil {
			c.errorAt(c.file.Offset(in.Pos), "parameter number %d is used by both %%%s and %%%s", n, prev.Name, in.Name)
			continue
		}
		comp.Params[n] = in
	}
	for i, p := range comp.Params {
		if p == nil {
			c.errorAt(pc.field.off, "computation %s has no parameter(%d) but has parameter(%d)", comp.Name, i, len(comp.Params)-1)
			break
		}
	}
	if len(comp.Instructions) == 0 {
		if !pc.hasFields {
			c.errorAt(pc.field.off, "computation %s has no instructions", comp.Name)
		}
		c.done(pc.field, "HloComputationProto")
		return
	}
	if rf := c.one(pc.field, "root_id"); rf != nil {
		comp.Root = pc.byID[c.intOf(rf)]
		if comp.Root == nil {
			c.errorAt(rf.valOff, "root_id %s names no instruction of computation %s", rf.text, comp.Name)
		}
	} else {
		comp.Root = pc.byID[0]
	}
	if comp.Root == nil {
		comp.Root = comp.Instructions[len(comp.Instructions)-1]
	}
	c.done(pc.field, "HloComputationProto")
}

// instByID returns the instruction of pc whose id field f holds, reporting an error when there is none.
func (c *protoConverter) instByID(pc *protoComp, f *protoField, user *hlo.Instruction) *hlo.Instruction {
	id := c.intOf(f)
	in := pc.byID[id]
	if in == nil && !pc.failed[id] {
		c.errorAt(f.valOff, "%s %d of %%%s names no instruction of computation %s", f.name, id, user.Name, pc.comp.Name)
	}
	return in
}

// --- shapes and literals -------------------------------------------------------------------------------

// shape converts a ShapeProto. As the HLO text parser does, it gives arrays without a layout the default
// one.
func (c *protoConverter) shape(m *protoField) hlo.Shape {
	var s hlo.Shape
	et := c.one(m, "element_type")
	dims := c.take(m, "dimensions")
	dynamic := c.bools(m, "is_dynamic_dimension")
	tuple := c.subs(m, "tuple_shapes")
	lf := c.sub(m, "layout")
	c.done(m, "ShapeProto")
	if et == nil {
		c.errorAt(m.valOff, "shape has no element_type")
		return hlo.Shape{Kind: hlo.TupleShape, Tuple: []hlo.Shape{}}
	}
	t, other, isArray := c.elementType(et)
	if !isArray && other == "" {
		return hlo.Shape{Kind: hlo.TupleShape, Tuple: []hlo.Shape{}} // the element type's error is said
	}
	if !isArray {
		if len(dims) > 0 || len(dynamic) > 0 {
			c.errorAt(m.valOff, "a %s shape has no dimensions", strings.ToLower(other))
		}
		if lf != nil && len(lf.fields) > 0 {
			c.errorAt(lf.off, "a %s shape has no layout", strings.ToLower(other))
		}
	}
	switch other {
	case "TUPLE":
		s = hlo.Shape{Kind: hlo.TupleShape, Tuple: make([]hlo.Shape, 0, len(tuple))}
		for _, e := range tuple {
			s.Tuple = append(s.Tuple, c.shape(e))
		}
		return s
	case "BUFFER":
		if len(tuple) != 1 {
			c.errorAt(et.valOff, "a buffer shape holds one array shape in tuple_shapes, not %d", len(tuple))
			return hlo.Shape{Kind: hlo.TupleShape, Tuple: []hlo.Shape{}}
		}
		return hlo.Shape{Kind: hlo.BufferShape, Tuple: []hlo.Shape{c.shape(tuple[0])}}
	case "TOKEN", "OPAQUE_TYPE":
		s.Kind = hlo.TokenShape
		if other == "OPAQUE_TYPE" {
			s.Kind = hlo.OpaqueShape
		}
	case "PRIMITIVE_TYPE_INVALID":
		c.errorAt(et.valOff, "shape has no element type")
	}
	if len(tuple) > 0 {
		c.errorAt(tuple[0].off, "only a tuple or buffer shape has tuple_shapes")
	}
	if !isArray {
		return s
	}
	s = hlo.Shape{Kind: hlo.ArrayShape, Elem: t, Dims: make([]int64, 0, len(dims))}
	for _, d := range dims {
		n := c.intOf(d)
		if n < 0 && n != hlo.UnboundedDim {
			c.errorAt(d.valOff, "dimension size %d is negative", n)
		}
		s.Dims = append(s.Dims, n)
	}
	if len(dynamic) > 0 && len(dynamic) != len(dims) {
		c.errorAt(m.valOff, "is_dynamic_dimension has %d entries for %d dimensions", len(dynamic), len(dims))
	} else {
		// An unbounded size ("?") is dynamic by nature; only bounded dynamic sizes ("<=N") are marked.
		for i, dyn := range dynamic {
			if dyn && s.Dims[i] != hlo.UnboundedDim {
				if s.Dynamic == nil {
					s.Dynamic = make([]bool, len(dims))
				}
				s.Dynamic[i] = true
			}
		}
	}
	var l hlo.Layout
	if lf != nil {
		l = c.layout(lf, len(dims))
	} else {
		l = hlo.DefaultLayout(len(dims))
	}
	s.Layout = &l
	return s
}

// layout converts a LayoutProto of an array of the given rank.
func (c *protoConverter) layout(m *protoField, rank int) hlo.Layout {
	l := hlo.Layout{MinorToMajor: c.ints(m, "minor_to_major")}
	if l.MinorToMajor == nil {
		l.MinorToMajor = []int64{}
	}
	levels := c.enums(m, "dim_level_types", protoDimLevelType)
	unique := c.bools(m, "dim_unique")
	ordered := c.bools(m, "dim_ordered")
	for i, lt := range levels {
		abbrev := map[string]string{"DIM_DENSE": "D", "DIM_COMPRESSED": "C", "DIM_SINGLETON": "S", "DIM_LOOSE_COMPRESSED": "H"}[lt]
		if i < len(unique) && !unique[i] {
			abbrev += "+"
		}
		if i < len(ordered) && !ordered[i] {
			abbrev += "~"
		}
		l.DimLevelTypes = append(l.DimLevelTypes, abbrev)
	}
	for _, tf := range c.subs(m, "tiles") {
		t := hlo.Tile(c.ints(tf, "dimensions"))
		if t == nil {
			t = hlo.Tile{}
		}
		l.Tiles = append(l.Tiles, t)
		c.done(tf, "TileProto")
	}
	if n, _ := c.int(m, "tail_padding_alignment_in_elements"); n > 1 {
		l.TailPaddingAlignment = n
	}
	l.ElementSizeBits, _ = c.int(m, "element_size_in_bits")
	l.MemorySpace, _ = c.int(m, "memory_space")
	l.DynamicShapeMetadataPrefixBytes, _ = c.int(m, "dynamic_shape_metadata_prefix_bytes")
	for _, name := range []string{"index_primitive_type", "pointer_primitive_type"} {
		if f := c.one(m, name); f != nil {
			t, _, ok := c.elementType(f)
			if !ok {
				if f.text != "PRIMITIVE_TYPE_INVALID" && f.text != "0" {
					c.errorAt(f.valOff, "field %s: expected an array element type, found %s", name, f.text)
				}
				continue
			}
			if !t.IsInteger() {
				c.errorAt(f.valOff, "field %s: expected an integer type, found %s", name, f.text)
				continue
			}
			if name == "index_primitive_type" {
				l.IndexType = t
			} else {
				l.PointerType = t
			}
		}
	}
	if pf := c.sub(m, "physical_shape"); pf != nil {
		ps := c.shape(pf)
		l.PhysicalShape = &ps
	}
	for _, sf := range c.subs(m, "split_configs") {
		d, _ := c.int(sf, "dimension")
		sc := hlo.SplitConfig{Dimension: d, SplitIndices: c.ints(sf, "split_indices")}
		l.SplitConfigs = append(l.SplitConfigs, sc)
		c.done(sf, "SplitConfigProto")
	}
	c.done(m, "LayoutProto")
	if len(l.MinorToMajor) != rank {
		c.errorAt(m.off, "layout has %d minor_to_major entries but the shape has %d dimensions", len(l.MinorToMajor), rank)
	}
	return l
}

// shapeString writes s with its layout, as the printer does.
func shapeString(s hlo.Shape) string { return printer.ShapeString(s, true) }

// literal decodes a LiteralProto into a literal and its shape.
func (c *protoConverter) literal(m *protoField) (*hlo.Literal, hlo.Shape) {
	sf := c.sub(m, "shape")
	if sf == nil {
		c.errorAt(m.off, "literal has no shape")
		c.done(m, "LiteralProto")
		return nil, hlo.Shape{}
	}
	s := c.shape(sf)
	var lit *hlo.Literal
	switch s.Kind {
	case hlo.TupleShape:
		elems := c.subs(m, "tuple_literals")
		if len(elems) != len(s.Tuple) {
			c.errorAt(m.off, "tuple literal has %d elements but its shape %d", len(elems), len(s.Tuple))
		}
		parts := make([]*hlo.Literal, len(elems))
		for i, e := range elems {
			parts[i], _ = c.literal(e)
		}
		lit = hlo.TupleLiteral(parts...)
	case hlo.ArrayShape:
		lit = c.arrayLiteral(m, s)
	default:
		c.errorAt(sf.off, "literals of %s shape are not supported", shapeString(s))
	}
	c.done(m, "LiteralProto")
	return lit, s
}

// literalFields names, for each element type, the LiteralProto field holding its values.
var literalFields = map[dtype.Type]string{
	dtype.PRED: "preds", dtype.S1: "s1s", dtype.S2: "s2s", dtype.S4: "s4s", dtype.S8: "s8s", dtype.S16: "s16s",
	dtype.S32: "s32s", dtype.S64: "s64s", dtype.U1: "u1s", dtype.U2: "u2s", dtype.U4: "u4s", dtype.U8: "u8s",
	dtype.U16: "u16s", dtype.U32: "u32s", dtype.U64: "u64s", dtype.F16: "f16s", dtype.BF16: "bf16s",
	dtype.F32: "f32s", dtype.F64: "f64s", dtype.C64: "c64s", dtype.C128: "c128s", dtype.F8E5M2: "f8e5m2s",
	dtype.F8E4M3: "f8e4m3s", dtype.F8E4M3FN: "f8e4m3fns", dtype.F8E4M3B11FNUZ: "f8e4m3b11fnuzs",
	dtype.F8E5M2FNUZ: "f8e5m2fnuzs", dtype.F8E4M3FNUZ: "f8e4m3fnuzs", dtype.F8E3M4: "f8e3m4s",
	dtype.F8E8M0FNU: "f8e8m0fnus", dtype.F4E2M1FN: "f4e2m1fns",
}

// arrayLiteral reads the values of an array literal, stored in the order of its layout.
func (c *protoConverter) arrayLiteral(m *protoField, s hlo.Shape) *hlo.Literal {
	t := s.Elem
	name, ok := literalFields[t]
	if !ok {
		c.errorAt(m.off, "literals of type %s are not supported", t)
		return nil
	}
	// The number of values must be one the input could have asked for.
	const maxLiteral = 1 << 24
	n := int64(1)
	for _, d := range s.Dims {
		if d < 0 || d > maxLiteral || n > maxLiteral {
			c.errorAt(m.off, "literal shape %s is too large or unbounded", shapeString(s))
			return nil
		}
		n *= d
	}
	if n > maxLiteral {
		c.errorAt(m.off, "literal shape %s is too large or unbounded", shapeString(s))
		return nil
	}
	// Values are stored in the layout's order, minor-to-major.
	rank := len(s.Dims)
	m2m := hlo.DefaultLayout(rank).MinorToMajor
	if s.Layout != nil && len(s.Layout.MinorToMajor) == rank && validPermutation(s.Layout.MinorToMajor) {
		m2m = s.Layout.MinorToMajor
		if len(s.Layout.Tiles) > 0 {
			c.errorAt(m.off, "literals with a tiled layout are not supported")
			return nil
		}
	}
	fields := c.take(m, name)
	// The values given are counted before the values' memory is set aside: a literal that claims 2^24
	// elements and gives none took 256 MiB for nothing.
	given := int64(len(fields))
	switch {
	case t == dtype.PRED || t == dtype.S32 || t == dtype.S64 || t == dtype.U32 || t == dtype.U64 || t == dtype.F32 || t == dtype.F64:
	case t.IsComplex():
		given /= 2
	case len(fields) > 0:
		given = int64(len(c.strOf(fields[0])))
		if t.BitWidth() == 16 {
			given /= 2
		}
	}
	if given != n {
		c.errorAt(m.off, "literal of shape %s has %d values, not %d", shapeString(s), given, n)
		return nil
	}
	stored := tensor.New(t, []int64{n})
	count := int64(0)
	put := func(bits uint64) {
		if count < n {
			stored.SetBitsAt(count, bits)
		}
		count++
	}
	switch {
	case t == dtype.PRED:
		for _, f := range fields {
			if c.boolOf(f) {
				put(1)
			} else {
				put(0)
			}
		}
	case t == dtype.S32 || t == dtype.S64:
		for _, f := range fields {
			v := c.intOf(f)
			if t == dtype.S32 && int64(int32(v)) != v {
				c.errorAt(f.valOff, "%d does not fit in s32", v)
			}
			put(uint64(v))
		}
	case t == dtype.U32 || t == dtype.U64:
		for _, f := range fields {
			v := c.uintOf(f)
			if t == dtype.U32 && v > math.MaxUint32 {
				c.errorAt(f.valOff, "%d does not fit in u32", v)
			}
			put(v)
		}
	case t == dtype.F32:
		for _, f := range fields {
			put(uint64(math.Float32bits(float32(c.floatOf(f)))))
		}
	case t == dtype.F64:
		for _, f := range fields {
			put(math.Float64bits(c.floatOf(f)))
		}
	case t.IsComplex():
		if len(fields)%2 != 0 {
			c.errorAt(m.off, "%s holds %d numbers; complex values need pairs", name, len(fields))
		}
		for i := 0; i+1 < len(fields); i += 2 {
			re, im := c.floatOf(fields[i]), c.floatOf(fields[i+1])
			if count < n {
				if t == dtype.C64 {
					stored.SetBitsAt(count, uint64(math.Float32bits(float32(re)))|uint64(math.Float32bits(float32(im)))<<32)
				} else {
					binary.LittleEndian.PutUint64(stored.Data[16*count:], math.Float64bits(re))
					binary.LittleEndian.PutUint64(stored.Data[16*count+8:], math.Float64bits(im))
				}
			}
			count++
		}
	default:
		// Bytes: one element per byte (for types of 8 bits or fewer), or two, little-endian.
		if len(fields) > 1 {
			c.errorAt(fields[1].off, "field %s is given more than once", name)
		}
		var data string
		if len(fields) > 0 {
			data = c.strOf(fields[0])
		}
		size := 1
		if t.BitWidth() == 16 {
			size = 2
		}
		if len(data)%size != 0 {
			c.errorAt(fields[0].valOff, "%s holds %d bytes, not a whole number of %s values", name, len(data), t)
			return nil
		}
		for i := 0; i+size <= len(data); i += size {
			bits := uint64(data[i])
			if size == 2 {
				bits |= uint64(data[i+1]) << 8
			}
			put(bits)
		}
	}
	if count != n {
		c.errorAt(m.off, "literal of shape %s has %d values, not %d", shapeString(s), count, n)
		return nil
	}
	a, err := tensor.FromLayout(t, s.Dims, m2m, stored.Data)
	if err != nil {
		c.errorAt(m.off, "literal of shape %s: %v", shapeString(s), err)
		return nil
	}
	return hlo.ArrayLiteral(a)
}

func validPermutation(p []int64) bool {
	seen := make([]bool, len(p))
	for _, d := range p {
		if d < 0 || d >= int64(len(p)) || seen[d] {
			return false
		}
		seen[d] = true
	}
	return true
}

// --- instruction attributes -------------------------------------------------------------------------------

// genericValue is the value the HLO text parser gives an attribute it has no special reader for: true and
// false are Bool, a decimal integer is Int, anything else Raw text.
func genericValue(text string) hlo.Value {
	switch text {
	case "true":
		return hlo.Bool(true)
	case "false":
		return hlo.Bool(false)
	}
	if n, err := strconv.ParseInt(text, 10, 64); err == nil && strconv.FormatInt(n, 10) == text {
		return hlo.Int(n)
	}
	return hlo.Raw(text)
}

// attrList collects the attributes of an instruction, a computation or a module header, in order. Values
// that HLO text writes as a word or a string are typed as the op table's spec of the attribute says (the
// kinds the HLO text parser reads them as): an enum's word is an Enum, a string a String.
type attrList struct {
	attrs []hlo.Attr
	spec  func(name string) *hlo.AttrSpec // the spec of an attribute; nil when there is none
}

// instAttrs returns a list for the attributes of in.
func instAttrs(in *hlo.Instruction) attrList {
	return attrList{spec: func(name string) *hlo.AttrSpec { return hlo.LookupAttr(in.Opcode, in.AsyncWrapped, name) }}
}

func (l *attrList) add(name string, v hlo.Value) {
	l.attrs = append(l.attrs, hlo.Attr{Name: name, Value: v})
}

// kind is the kind of the attribute name; AttrText when it has no spec.
func (l *attrList) kind(name string) hlo.AttrKind {
	if s := l.spec(name); s != nil {
		return s.Kind
	}
	return hlo.AttrText
}

// word adds an attribute whose value HLO text writes as a bare word or other unquoted text.
func (l *attrList) word(name, text string) {
	switch spec := l.spec(name); {
	case spec != nil && spec.Kind == hlo.AttrEnum:
		l.add(name, hlo.Enum(spec.Canonical(text)))
	case spec != nil && spec.Kind == hlo.AttrShape:
		l.add(name, hlo.Raw(text))
	default:
		l.add(name, genericValue(text))
	}
}

// str adds an attribute whose value HLO text writes as a quoted string.
func (l *attrList) str(name, s string) {
	if l.kind(name) == hlo.AttrString {
		l.add(name, hlo.String(s))
		return
	}
	l.add(name, genericValue(`"`+cstring.Escape(s)+`"`))
}

func nonNil(xs []int64) hlo.Ints {
	if xs == nil {
		return hlo.Ints{}
	}
	return hlo.Ints(xs)
}

// attrs gives an instruction the attributes XLA prints for it, in XLA's order: those of its opcode, the
// called computations, sharding, frontend_attributes, control-predecessors, statistics, result_accuracy,
// metadata and backend_config.
func (c *protoConverter) attrs(pc *protoComp, pi *protoInst, comps map[int64]*protoComp) []hlo.Attr {
	in, f := pi.in, pi.field
	l := instAttrs(in)
	c.opcodeAttrs(&l, in, f)
	c.calledAttrs(&l, in, f, comps)
	if sf := c.sub(f, "sharding"); sf != nil {
		l.add("sharding", parser.DecodeSharding(c.sharding(sf)))
	}
	if ff := c.sub(f, "frontend_attributes"); ff != nil {
		if kvs := c.frontendAttributes(ff); len(kvs) > 0 {
			l.add("frontend_attributes", kvs)
		}
	}
	var preds hlo.InstList
	for _, pf := range c.take(f, "control_predecessor_ids") {
		if p := c.instByID(pc, pf, in); p != nil {
			preds = append(preds, p)
		}
	}
	if len(preds) > 0 {
		l.add("control-predecessors", preds)
	}
	if sf := c.sub(f, "statistics_viz"); sf != nil {
		if s := c.statistics(sf); s != "" {
			l.word("statistics", s)
		}
	}
	if af := c.sub(f, "result_accuracy"); af != nil {
		if s := c.resultAccuracy(af); s != "" {
			l.word("result_accuracy", s)
		}
	}
	if mf := c.sub(f, "metadata"); mf != nil {
		if md := c.metadata(mf); len(md) > 0 {
			l.add("metadata", hlo.Metadata(md))
		}
	}
	if bf := c.one(f, "backend_config"); bf != nil {
		if s := c.strOf(bf); s != "" {
			l.add("backend_config", &hlo.BackendConfig{Text: s, Quoted: !cstring.LexesAsJSONDict(s)})
		}
	}
	return l.attrs
}

// opcodeAttrs adds the attributes particular to the opcode, as XLA's instruction classes print them.
func (c *protoConverter) opcodeAttrs(l *attrList, in *hlo.Instruction, f *protoField) {
	dims := func() hlo.Ints { return nonNil(c.ints(f, "dimensions")) }
	oneDim := func() (hlo.Ints, bool) {
		d := c.take(f, "dimensions")
		if len(d) == 0 {
			return nil, false
		}
		if len(d) > 1 {
			c.errorAt(d[1].off, "%s takes one dimension, not %d", in.Opcode, len(d))
		}
		return hlo.Ints{c.intOf(d[0])}, true
	}
	flag := func(name string) {
		if c.boolean(f, name) {
			l.add(name, hlo.Bool(true))
		}
	}
	switch op := in.Opcode; op {
	case hlo.OpBatchNormTraining, hlo.OpBatchNormInference, hlo.OpBatchNormGrad:
		eps, _ := c.float(f, "epsilon")
		l.add("epsilon", hlo.Float(eps))
		n, _ := c.int(f, "feature_index")
		l.add("feature_index", hlo.Int(n))
	case hlo.OpFft:
		l.word("fft_type", c.enum(f, "fft_type", protoFftType))
		l.add("fft_length", nonNil(c.ints(f, "fft_length")))
	case hlo.OpAsyncStart:
		if th := c.str(f, "async_execution_thread"); th != "" && th != "main" {
			l.str("async_execution_thread", th)
		}
	case hlo.OpCopyStart:
		deprecated := c.boolean(f, "is_cross_program_prefetch")
		if n, ok := c.int(f, "cross_program_prefetch_index"); ok || deprecated {
			l.add("cross_program_prefetch_index", hlo.Int(n))
		}
	case hlo.OpCompare:
		// The words are checked against the op table with the instruction.
		if df := c.one(f, "comparison_direction"); df != nil {
			l.word("direction", c.strOf(df))
		}
		if tf := c.one(f, "comparison_type"); tf != nil {
			// XLA prints the type only when it is not the one the operands' type implies.
			if typ := c.strOf(tf); in.NumOperands() == 0 || typ != defaultComparisonType(in.Operand(0).Shape.Elem) {
				l.word("type", typ)
			}
		}
	case hlo.OpTriangularSolve:
		if of := c.sub(f, "triangular_solve_options"); of != nil {
			// XLA prints the options that are set, in field order.
			for _, name := range []string{"left_side", "lower", "unit_diagonal"} {
				if c.boolean(of, name) {
					l.add(name, hlo.Bool(true))
				}
			}
			if t := c.enum(of, "transpose_a", protoTranspose); t != "TRANSPOSE_INVALID" && t != "" {
				l.word("transpose_a", t)
			}
			c.done(of, "TriangularSolveOptions")
		}
	case hlo.OpCholesky:
		if of := c.sub(f, "cholesky_options"); of != nil {
			if c.boolean(of, "lower") {
				l.add("lower", hlo.Bool(true))
			}
			c.done(of, "CholeskyOptions")
		}
	case hlo.OpSend, hlo.OpRecv, hlo.OpSendDone, hlo.OpRecvDone:
		c.channelID(l, f)
		flag("is_host_transfer")
	case hlo.OpAllReduce, hlo.OpAllReduceStart, hlo.OpReduceScatter, hlo.OpAllGather, hlo.OpAllGatherStart,
		hlo.OpAllToAll, hlo.OpRaggedAllToAll, hlo.OpCollectiveBroadcast:
		c.channelID(l, f)
		l.add("replica_groups", c.replicaGroups(f))
		flag("constrain_layout")
		switch op {
		case hlo.OpAllGather, hlo.OpAllGatherStart:
			if d, ok := oneDim(); ok {
				l.add("dimensions", d)
			}
			flag("use_global_device_ids")
		case hlo.OpAllReduce, hlo.OpAllReduceStart:
			flag("use_global_device_ids")
		case hlo.OpReduceScatter:
			flag("use_global_device_ids")
			if d, ok := oneDim(); ok {
				l.add("dimensions", d)
			}
		case hlo.OpAllToAll:
			if d, ok := oneDim(); ok {
				l.add("dimensions", d)
			}
		}
	case hlo.OpCollectivePermute, hlo.OpCollectivePermuteStart:
		c.channelID(l, f)
		pairs := hlo.IntLists{}
		for _, pf := range c.subs(f, "source_target_pairs") {
			s, _ := c.int(pf, "source")
			t, _ := c.int(pf, "target")
			pairs = append(pairs, []int64{s, t})
			c.done(pf, "SourceTarget")
		}
		l.add("source_target_pairs", pairs)
		if sizes := c.ints(f, "dynamic_slice_sizes"); len(sizes) > 0 {
			// The sizes of each slice are flattened; a slice has the rank of the (first array of the)
			// operand.
			rank := 0
			if in.NumOperands() > 0 {
				s := in.Operand(0).Shape
				for s.Kind == hlo.TupleShape && len(s.Tuple) > 0 {
					s = s.Tuple[0]
				}
				rank = len(s.Dims)
			}
			if rank == 0 || len(sizes)%rank != 0 {
				c.errorAt(f.off, "dynamic_slice_sizes of %%%s do not split into slices of the operand's rank", in.Name)
			} else {
				lists := hlo.IntLists{}
				for i := 0; i < len(sizes); i += rank {
					lists = append(lists, sizes[i:i+rank])
				}
				l.add("slice_sizes", lists)
			}
		}
	case hlo.OpReverse, hlo.OpConcatenate, hlo.OpReduce, hlo.OpTranspose, hlo.OpBroadcast:
		l.add("dimensions", dims())
	case hlo.OpMap:
		// Map applies to every dimension: XLA prints 0..rank-1 whatever the proto says.
		c.take(f, "dimensions")
		all := hlo.Ints{}
		for i := range in.Shape.Dims {
			all = append(all, int64(i))
		}
		l.add("dimensions", all)
	case hlo.OpSort:
		l.add("dimensions", dims())
		flag("is_stable")
	case hlo.OpReshape:
		if d, ok := oneDim(); ok && d[0] != -1 {
			l.add("inferred_dimension", hlo.Int(d[0]))
		}
	case hlo.OpSlice:
		s := hlo.Slice{}
		for _, sf := range c.subs(f, "slice_dimensions") {
			var d hlo.SliceDim
			d.Start, _ = c.int(sf, "start")
			d.Limit, _ = c.int(sf, "limit")
			d.Stride, _ = c.int(sf, "stride")
			s = append(s, d)
			c.done(sf, "SliceDimensions")
		}
		l.add("slice", s)
	case hlo.OpFusion:
		if kf := c.one(f, "fusion_kind"); kf != nil {
			l.word("kind", c.strOf(kf))
		}
		c.aliasing(l, f)
	case hlo.OpRng:
		l.word("distribution", strings.ToLower(c.enum(f, "distribution", protoDistribution)))
	case hlo.OpParameter:
		if rf := c.sub(f, "parameter_replication"); rf != nil {
			var leaves hlo.Enums
			for _, b := range c.bools(rf, "replicated_at_leaf_buffers") {
				leaves = append(leaves, strconv.FormatBool(b))
			}
			c.done(rf, "ParameterReplication")
			if leaves != nil {
				l.add("parameter_replication", leaves)
			}
		}
	case hlo.OpGetTupleElement:
		n, _ := c.int(f, "tuple_index")
		l.add("index", hlo.Int(n))
	case hlo.OpReducePrecision:
		e, _ := c.int(f, "exponent_bits")
		m, _ := c.int(f, "mantissa_bits")
		l.add("exponent_bits", hlo.Int(e))
		l.add("mantissa_bits", hlo.Int(m))
	case hlo.OpInfeed:
		if s := c.str(f, "infeed_config"); s != "" {
			l.str("infeed_config", s)
		}
	case hlo.OpOutfeed:
		if sf := c.sub(f, "outfeed_shape"); sf != nil {
			l.word("outfeed_shape", shapeString(c.shape(sf)))
		}
		if s := c.str(f, "outfeed_config"); s != "" {
			l.str("outfeed_config", s)
		}
	case hlo.OpConvolution:
		if w := c.window(f); len(w) > 0 {
			l.add("window", w)
		}
		l.add("dim_labels", c.convDims(c.sub(f, "convolution_dimension_numbers")))
		c.groupCounts(l, f)
		c.precision(l, f)
	case hlo.OpReduceWindow, hlo.OpSelectAndScatter:
		if w := c.window(f); len(w) > 0 {
			l.add("window", w)
		}
	case hlo.OpCustomCall:
		c.customCall(l, f)
	case hlo.OpPad:
		p := hlo.Padding{}
		if pf := c.sub(f, "padding_config"); pf != nil {
			for _, df := range c.subs(pf, "dimensions") {
				var d hlo.PadDim
				d.Low, _ = c.int(df, "edge_padding_low")
				d.High, _ = c.int(df, "edge_padding_high")
				d.Interior, _ = c.int(df, "interior_padding")
				p = append(p, d)
				c.done(df, "PaddingConfigDimension")
			}
			c.done(pf, "PaddingConfig")
		}
		l.add("padding", p)
	case hlo.OpDynamicSlice:
		l.add("dynamic_slice_sizes", nonNil(c.ints(f, "dynamic_slice_sizes")))
	case hlo.OpGather:
		g := c.sub(f, "gather_dimension_numbers")
		if g == nil {
			g = &protoField{}
		}
		l.add("offset_dims", nonNil(c.ints(g, "offset_dims")))
		l.add("collapsed_slice_dims", nonNil(c.ints(g, "collapsed_slice_dims")))
		l.add("start_index_map", nonNil(c.ints(g, "start_index_map")))
		if d := c.ints(g, "operand_batching_dims"); len(d) > 0 {
			l.add("operand_batching_dims", hlo.Ints(d))
		}
		if d := c.ints(g, "start_indices_batching_dims"); len(d) > 0 {
			l.add("start_indices_batching_dims", hlo.Ints(d))
		}
		n, _ := c.int(g, "index_vector_dim")
		l.add("index_vector_dim", hlo.Int(n))
		c.done(g, "GatherDimensionNumbers")
		l.add("slice_sizes", nonNil(c.ints(f, "gather_slice_sizes")))
		flag("indices_are_sorted")
	case hlo.OpScatter:
		s := c.sub(f, "scatter_dimension_numbers")
		if s == nil {
			s = &protoField{}
		}
		l.add("update_window_dims", nonNil(c.ints(s, "update_window_dims")))
		l.add("inserted_window_dims", nonNil(c.ints(s, "inserted_window_dims")))
		l.add("scatter_dims_to_operand_dims", nonNil(c.ints(s, "scatter_dims_to_operand_dims")))
		if d := c.ints(s, "input_batching_dims"); len(d) > 0 {
			l.add("input_batching_dims", hlo.Ints(d))
		}
		if d := c.ints(s, "scatter_indices_batching_dims"); len(d) > 0 {
			l.add("scatter_indices_batching_dims", hlo.Ints(d))
		}
		n, _ := c.int(s, "index_vector_dim")
		l.add("index_vector_dim", hlo.Int(n))
		c.done(s, "ScatterDimensionNumbers")
		flag("indices_are_sorted")
		flag("unique_indices")
	case hlo.OpIota:
		d, _ := oneDim()
		if d == nil {
			d = hlo.Ints{0}
		}
		l.add("iota_dimension", hlo.Int(d[0]))
	case hlo.OpDot:
		c.dotDims(l, c.sub(f, "dot_dimension_numbers"))
		c.precision(l, f)
	case hlo.OpRaggedDot:
		rf := c.sub(f, "ragged_dot_dimension_numbers")
		if rf == nil {
			rf = &protoField{}
		}
		c.dotDims(l, c.sub(rf, "dot_dimension_numbers"))
		l.add("lhs_ragged_dims", nonNil(c.ints(rf, "lhs_ragged_dimensions")))
		if d := c.ints(rf, "rhs_group_dimensions"); len(d) > 0 {
			l.add("rhs_group_dims", hlo.Ints(d))
		}
		c.done(rf, "RaggedDotDimensionNumbers")
		c.precision(l, f)
	case hlo.OpDomain:
		entry, exit := c.sub(f, "domain_entry_sharding"), c.sub(f, "domain_exit_sharding")
		if entry != nil && exit != nil {
			// XLA's entry= is the user side, stored as domain_exit_sharding, and exit= the operand side.
			l.word("domain", `{kind="sharding", entry=`+c.sharding(exit)+`, exit=`+c.sharding(entry)+`}`)
		}
	case hlo.OpGetDimensionSize, hlo.OpSetDimensionSize:
		if d, ok := oneDim(); ok {
			l.add("dimensions", d)
		}
	case hlo.OpRngGetAndUpdateState:
		n, _ := c.int(f, "delta")
		l.add("delta", hlo.Int(n))
	case hlo.OpRngBitGenerator:
		l.word("algorithm", strings.ToLower(c.enum(f, "rng_algorithm", protoRngAlgorithm)))
	case hlo.OpTopk:
		k, _ := c.int(f, "k")
		l.add("k", hlo.Int(k))
		l.add("largest", hlo.Bool(c.boolean(f, "largest")))
	}
}

// defaultComparisonType is the comparison type XLA leaves unprinted for operands of type t.
func defaultComparisonType(t dtype.Type) string {
	switch {
	case t.IsFloat() || t.IsComplex():
		return "FLOAT"
	case t.IsSigned():
		return "SIGNED"
	}
	return "UNSIGNED"
}

// channelID adds channel_id when it is positive (XLA reads a non-positive one as none).
func (c *protoConverter) channelID(l *attrList, f *protoField) {
	if n, _ := c.int(f, "channel_id"); n > 0 {
		l.add("channel_id", hlo.Int(n))
	}
}

// groupCounts adds feature_group_count and batch_group_count when they are not 1 (0 means unset).
func (c *protoConverter) groupCounts(l *attrList, f *protoField) {
	for _, name := range []string{"feature_group_count", "batch_group_count"} {
		if n, _ := c.int(f, name); n > 1 {
			l.add(name, hlo.Int(n))
		}
	}
}

// precision adds operand_precision when some operand's is not the default, and algorithm when set.
func (c *protoConverter) precision(l *attrList, f *protoField) {
	pf := c.sub(f, "precision_config")
	if pf == nil {
		return
	}
	precs := c.enums(pf, "operand_precision", protoPrecision)
	for _, p := range precs {
		if p != "DEFAULT" {
			for i := range precs {
				precs[i] = strings.ToLower(precs[i])
			}
			l.add("operand_precision", hlo.Enums(precs))
			break
		}
	}
	if a := c.enum(pf, "algorithm", protoAlgorithm); a != "ALG_UNSET" && a != "" {
		l.word("algorithm", strings.ToLower(strings.TrimPrefix(a, "ALG_")))
	}
	c.done(pf, "PrecisionConfig")
}

// dotDims adds the dimension numbers of a dot: batch dimensions only when there are some.
func (c *protoConverter) dotDims(l *attrList, f *protoField) {
	if f == nil {
		f = &protoField{}
	}
	lb, lc := c.ints(f, "lhs_batch_dimensions"), c.ints(f, "lhs_contracting_dimensions")
	rb, rc := c.ints(f, "rhs_batch_dimensions"), c.ints(f, "rhs_contracting_dimensions")
	c.done(f, "DotDimensionNumbers")
	if len(lb) > 0 {
		l.add("lhs_batch_dims", hlo.Ints(lb))
	}
	l.add("lhs_contracting_dims", nonNil(lc))
	if len(rb) > 0 {
		l.add("rhs_batch_dims", hlo.Ints(rb))
	}
	l.add("rhs_contracting_dims", nonNil(rc))
}

// window converts the window field of f; nil when absent.
func (c *protoConverter) window(f *protoField) hlo.Window {
	wf := c.sub(f, "window")
	if wf == nil {
		return nil
	}
	w := hlo.Window{}
	for _, df := range c.subs(wf, "dimensions") {
		var d hlo.WindowDim
		d.Size, _ = c.int(df, "size")
		d.Stride, _ = c.int(df, "stride")
		d.PadLow, _ = c.int(df, "padding_low")
		d.PadHigh, _ = c.int(df, "padding_high")
		d.WindowDilation, _ = c.int(df, "window_dilation")
		d.BaseDilation, _ = c.int(df, "base_dilation")
		d.Reversal = c.boolean(df, "window_reversal")
		w = append(w, d)
		c.done(df, "WindowDimension")
	}
	c.done(wf, "Window")
	return w
}

// convDims converts ConvolutionDimensionNumbers into dim_labels: the labels XLA prints (b01f_01io->b01f),
// read as the HLO text parser reads them; labels with dimensions of no role (?) stay text, as there.
func (c *protoConverter) convDims(f *protoField) hlo.Value {
	if f == nil {
		f = &protoField{}
	}
	labels := func(batch, feature, spatial string, b, fe string) string {
		x, _ := c.int(f, batch)
		y, _ := c.int(f, feature)
		sp := c.ints(f, spatial)
		n := max(x, y)
		for _, d := range sp {
			n = max(n, d)
		}
		if x < 0 || y < 0 || n > 64 || slicesMin(sp) < 0 {
			c.errorAt(f.off, "convolution dimension numbers out of range")
			return "?"
		}
		out := make([]string, n+1)
		for i := range out {
			out[i] = "?"
		}
		out[x], out[y] = b, fe
		for i, d := range sp {
			out[d] = strconv.Itoa(i)
		}
		return strings.Join(out, "")
	}
	text := labels("input_batch_dimension", "input_feature_dimension", "input_spatial_dimensions", "b", "f") + "_" +
		labels("kernel_input_feature_dimension", "kernel_output_feature_dimension", "kernel_spatial_dimensions", "i", "o") + "->" +
		labels("output_batch_dimension", "output_feature_dimension", "output_spatial_dimensions", "b", "f")
	c.done(f, "ConvolutionDimensionNumbers")
	if strings.IndexByte(text, '?') < 0 {
		if cd, err := parser.ParseConvDims(text); err == nil {
			return cd
		}
	}
	return hlo.Raw(text)
}

func slicesMin(xs []int64) int64 {
	var m int64
	for _, x := range xs {
		m = min(m, x)
	}
	return m
}

// aliasing adds output_to_operand_aliasing when there is some.
func (c *protoConverter) aliasing(l *attrList, f *protoField) {
	al := hlo.Aliasing{}
	for _, af := range c.subs(f, "output_operand_aliasing") {
		var a hlo.OutputOperandAlias
		a.Output = nonNil(c.ints(af, "output_shape_index"))
		a.Operand, _ = c.int(af, "operand_index")
		a.OperandIndex = nonNil(c.ints(af, "operand_shape_index"))
		al = append(al, a)
		c.done(af, "OutputOperandAliasing")
	}
	if len(al) > 0 {
		l.add("output_to_operand_aliasing", al)
	}
}

// customCall adds a custom-call's attributes in the order XLA prints them.
func (c *protoConverter) customCall(l *attrList, f *protoField) {
	if w := c.window(f); w != nil {
		l.add("window", w)
	}
	if cf := c.sub(f, "convolution_dimension_numbers"); cf != nil {
		l.add("dim_labels", c.convDims(cf))
	}
	c.groupCounts(l, f)
	c.precision(l, f)
	if p := c.enum(f, "padding_type", protoPaddingType); p != "PADDING_INVALID" && p != "" {
		l.word("padding_type", p)
	}
	l.add("custom_call_target", hlo.String(c.str(f, "custom_call_target")))
	layouts := c.subs(f, "operand_shapes_with_layout")
	if c.boolean(f, "constrain_layout") {
		shapes := make(hlo.Shapes, len(layouts))
		for i, sf := range layouts {
			shapes[i] = c.shape(sf)
		}
		l.add("operand_layout_constraints", shapes)
	} else if len(layouts) > 0 {
		c.errorAt(layouts[0].off, "operand_shapes_with_layout is given without constrain_layout")
	}
	if c.boolean(f, "custom_call_has_side_effect") {
		l.add("custom_call_has_side_effect", hlo.Bool(true))
	}
	if lf := c.sub(f, "literal"); lf != nil {
		if lit, s := c.literal(lf); lit != nil {
			l.add("literal", &hlo.ShapedLiteral{Shape: s, Literal: lit})
		}
	}
	c.aliasing(l, f)
	if s := c.enum(f, "custom_call_schedule", protoSchedule); s != "SCHEDULE_NONE" && s != "" {
		l.word("schedule", s)
	}
	// XLA reads an unspecified API version as the original one, which it does not print.
	if v := c.enum(f, "custom_call_api_version", protoAPIVersion); v != "API_VERSION_UNSPECIFIED" && v != "API_VERSION_ORIGINAL" && v != "" {
		l.word("api_version", v)
	}
}

// calledAttrs adds the called computations under the names XLA prints for the opcode.
func (c *protoConverter) calledAttrs(l *attrList, in *hlo.Instruction, f *protoField, comps map[int64]*protoComp) {
	var called []*hlo.Computation
	var offs []int
	for _, cf := range c.take(f, "called_computation_ids") {
		id := c.intOf(cf)
		pc := comps[id]
		if pc == nil {
			c.errorAt(cf.valOff, "called computation id %d of %%%s names no computation", id, in.Name)
			continue
		}
		called = append(called, pc.comp)
		offs = append(offs, cf.valOff)
	}
	want := func(n int, what string) bool {
		if len(called) != n {
			c.errorAt(f.off, "%s %%%s calls %d computations; it needs %s", in.Opcode, in.Name, len(called), what)
			return false
		}
		return true
	}
	composite := c.boolean(f, "is_composite")
	switch in.Opcode {
	case hlo.OpWhile:
		if want(2, "a condition and a body") {
			l.add("condition", hlo.CompRef{Comp: called[0]})
			l.add("body", hlo.CompRef{Comp: called[1]})
		}
	case hlo.OpSelectAndScatter:
		if want(2, "a select and a scatter computation") {
			l.add("select", hlo.CompRef{Comp: called[0]})
			l.add("scatter", hlo.CompRef{Comp: called[1]})
		}
	case hlo.OpConditional:
		if in.NumOperands() > 0 && in.Operand(0).Shape.Kind == hlo.ArrayShape && in.Operand(0).Shape.Elem == dtype.PRED {
			if want(2, "a true and a false computation") {
				l.add("true_computation", hlo.CompRef{Comp: called[0]})
				l.add("false_computation", hlo.CompRef{Comp: called[1]})
			}
		} else if len(called) > 0 {
			l.add("branch_computations", hlo.CompList(called))
		}
	case hlo.OpCall, hlo.OpMap, hlo.OpReduceWindow, hlo.OpReduce, hlo.OpAllReduce, hlo.OpReduceScatter,
		hlo.OpAllReduceStart, hlo.OpScatter, hlo.OpSort, hlo.OpScan:
		if len(called) > 1 {
			c.errorAt(offs[1], "%s %%%s calls %d computations; it takes one", in.Opcode, in.Name, len(called))
		}
		if len(called) > 0 {
			l.add("to_apply", hlo.CompRef{Comp: called[0]})
		}
		if composite && in.Opcode == hlo.OpCall {
			l.add("is_composite", hlo.Bool(true))
			composite = false
		}
	case hlo.OpCustomCall:
		if len(called) > 0 {
			l.add("called_computations", hlo.CompList(called))
		}
	case hlo.OpAsyncUpdate, hlo.OpAsyncDone:
		// Only async-start names the wrapped computation; the others follow it.
	case hlo.OpAsyncStart:
		if want(1, "the wrapped computation") {
			l.add("calls", hlo.CompRef{Comp: called[0]})
		}
	default:
		switch len(called) {
		case 0:
		case 1:
			l.add("calls", hlo.CompRef{Comp: called[0]})
		default:
			l.add("calls", hlo.CompList(called))
		}
	}
	if composite {
		c.errorAt(f.off, "is_composite is only for call, not %s", in.Opcode)
	}
}

// replicaGroups converts the replica groups of a collective: its collective_device_list (an explicit list
// or an iota list), or the deprecated replica_groups field.
func (c *protoConverter) replicaGroups(f *protoField) *hlo.ReplicaGroups {
	groups := func(m *protoField) [][]int64 {
		out := [][]int64{}
		for _, gf := range c.subs(m, "replica_groups") {
			out = append(out, nonNil(c.ints(gf, "replica_ids")))
			c.done(gf, "ReplicaGroup")
		}
		return out
	}
	rg := &hlo.ReplicaGroups{Groups: groups(f)}
	df := c.sub(f, "collective_device_list")
	if df == nil {
		return rg
	}
	if len(rg.Groups) > 0 {
		c.errorAt(df.off, "replica groups are given both in replica_groups and in collective_device_list")
	}
	rg.Groups = groups(df)
	if iota := c.sub(df, "iota_replica_group_list"); iota != nil {
		n, _ := c.int(iota, "num_replica_groups")
		size, _ := c.int(iota, "num_devices_per_group")
		il := &hlo.IotaList{Dims: []int64{n, size}, ReshapeDims: c.ints(iota, "iota_reshape_dims")}
		if il.ReshapeDims == nil {
			il.ReshapeDims = []int64{n * size}
		}
		if perm := c.ints(iota, "iota_transpose_perm"); !isIdentity(perm) {
			il.Transpose = perm
		}
		c.done(iota, "IotaReplicaGroupListProto")
		if len(rg.Groups) > 0 {
			c.errorAt(iota.off, "collective_device_list has both replica_groups and iota_replica_group_list")
		}
		rg = &hlo.ReplicaGroups{Iota: il}
	}
	c.done(df, "CollectiveDeviceListProto")
	return rg
}

func isIdentity(perm []int64) bool {
	for i, p := range perm {
		if p != int64(i) {
			return false
		}
	}
	return true
}

// sharding writes an OpSharding as XLA prints a sharding: {replicated}, {maximal device=1},
// {devices=[2,1]0,1}, {devices=[2,2]<=[4] last_tile_dim_replicate}, {{replicated}, {manual}}.
func (c *protoConverter) sharding(m *protoField) string {
	typ := c.enum(m, "type", protoShardingType)
	tuple := c.subs(m, "tuple_shardings")
	dims := c.ints(m, "tile_assignment_dimensions")
	devices := c.ints(m, "tile_assignment_devices")
	reshape := c.ints(m, "iota_reshape_dims")
	perm := c.ints(m, "iota_transpose_perm")
	lastReplicate := c.boolean(m, "replicate_on_last_tile_dim")
	lastDims := c.enums(m, "last_tile_dims", protoShardingType)
	var metadata []string
	for _, mf := range c.subs(m, "metadata") {
		metadata = append(metadata, metadataString(c.metadata(mf)))
	}
	group := ""
	if c.boolean(m, "is_shard_group") {
		id, _ := c.int(m, "shard_group_id")
		kind := "shard_as"
		if c.enum(m, "shard_group_type", protoShardGroupType) == "LIKE" {
			kind = "shard_like"
		}
		group = fmt.Sprintf(" %s %d", kind, id)
	} else {
		c.skip(m, "shard_group_id", "shard_group_type")
	}
	// tile_shape is deprecated: XLA derives the tiles from the shape and the tile assignment.
	c.skip(m, "tile_shape")
	c.done(m, "OpSharding")

	tail := group
	switch len(metadata) {
	case 0:
	case 1:
		tail += " metadata={" + metadata[0] + "}"
	default:
		tail += " metadata={{" + strings.Join(metadata, "}, {") + "}}"
	}
	switch typ {
	case "TUPLE":
		elems := make([]string, len(tuple))
		for i, t := range tuple {
			elems[i] = c.sharding(t)
		}
		return printer.TupleSharding(elems)
	case "REPLICATED", "MANUAL", "UNKNOWN", "UNREDUCED":
		return "{" + strings.ToLower(typ) + tail + "}"
	case "MAXIMAL":
		if len(devices) != 1 {
			c.errorAt(m.off, "a maximal sharding names one device, not %d", len(devices))
			return "{}"
		}
		return fmt.Sprintf("{maximal device=%d%s}", devices[0], tail)
	case "OTHER":
		t := hlo.Sharding{TileDims: dims, Devices: devices, LastTileDimReplicate: lastReplicate}
		if len(reshape) > 0 {
			t.DevicesIota = &hlo.IotaList{ReshapeDims: reshape}
			if !isIdentity(perm) {
				t.DevicesIota.Transpose = perm
			}
		}
		if len(lastDims) == 1 && lastDims[0] == "REPLICATED" {
			// XLA reads a single replicated subgroup as last_tile_dim_replicate.
			t.LastTileDimReplicate, lastDims = true, nil
		}
		for _, d := range lastDims {
			t.LastTileDims = append(t.LastTileDims, strings.ToLower(d))
		}
		return "{" + printer.TiledSharding(&t) + tail + "}"
	}
	return "{}"
}

// metadata converts an OpMetadata into the pairs XLA prints, in XLA's order; strings keep their quotes
// and escapes, as the HLO text parser keeps them. The profiling figures (code size, working set,
// profile_info) are not part of HLO text.
func (c *protoConverter) metadata(m *protoField) []hlo.KV {
	var kvs []hlo.KV
	str := func(name string) {
		if s := c.str(m, name); s != "" {
			kvs = append(kvs, hlo.KV{Key: name, Value: `"` + cstring.Escape(s) + `"`})
		}
	}
	num := func(name string) {
		if n, _ := c.int(m, name); n != 0 {
			kvs = append(kvs, hlo.KV{Key: name, Value: strconv.FormatInt(n, 10)})
		}
	}
	str("op_type")
	str("op_name")
	str("source_file")
	num("source_line")
	num("source_end_line")
	num("source_column")
	num("source_end_column")
	if pts := c.take(m, "profile_type"); len(pts) > 0 {
		nums := make([]int64, len(pts))
		for i, pf := range pts {
			name, _ := c.enumOf(pf, protoOpProfileType)
			nums[i] = protoOpProfileType.nums[name]
		}
		kvs = append(kvs, hlo.KV{Key: "profile_type", Value: "{" + hlo.JoinInts(nums) + "}"})
	}
	str("deduplicated_name")
	str("scheduling_name")
	num("stack_frame_id")
	c.skip(m, "size_of_generated_code_in_bytes", "size_of_memory_working_set_in_bytes", "profile_info")
	c.done(m, "OpMetadata")
	return kvs
}

// metadataString writes metadata pairs as XLA does inside metadata={...}.
func metadataString(kvs []hlo.KV) string {
	parts := make([]string, len(kvs))
	for i, kv := range kvs {
		parts[i] = kv.Key + "=" + kv.Value
	}
	return strings.Join(parts, " ")
}

// frontendAttributes converts a FrontendAttributes map, sorted by key as XLA prints it; a value that
// reads as a JSON dictionary is written bare, any other quoted.
func (c *protoConverter) frontendAttributes(m *protoField) hlo.FrontendAttributes {
	values := map[string]string{}
	for _, ef := range c.subs(m, "map") {
		values[c.str(ef, "key")] = c.str(ef, "value")
		c.done(ef, "FrontendAttributes.MapEntry")
	}
	c.done(m, "FrontendAttributes")
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	kvs := hlo.FrontendAttributes{}
	for _, k := range keys {
		v := values[k]
		if !cstring.LexesAsJSONDict(v) {
			v = `"` + cstring.Escape(v) + `"`
		}
		kvs = append(kvs, hlo.KV{Key: k, Value: v})
	}
	return kvs
}

// statistics writes a StatisticsViz as XLA prints it ({visualizing_index=1,stat-1=33}); "" when it
// tracks no statistic.
func (c *protoConverter) statistics(m *protoField) string {
	index, _ := c.int(m, "stat_index_to_visualize")
	var parts []string
	for _, sf := range c.subs(m, "statistics") {
		v, _ := c.float(sf, "stat_val")
		parts = append(parts, c.str(sf, "stat_name")+"="+printer.SixDigits(v))
		c.done(sf, "Statistic")
	}
	c.done(m, "StatisticsViz")
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("{visualizing_index=%d,%s}", index, strings.Join(parts, ","))
}

// resultAccuracy writes a ResultAccuracy whose mode is not the default ({mode=highest}).
func (c *protoConverter) resultAccuracy(m *protoField) string {
	mode := c.enum(m, "mode", protoAccuracyMode)
	c.done(m, "ResultAccuracy") // a tolerance is reported here: its printed form is not settled
	if mode == "" || mode == "DEFAULT" {
		return ""
	}
	return "{mode=" + strings.ToLower(mode) + "}"
}

// --- the module header --------------------------------------------------------------------------------

// moduleAttrs sets the header attributes XLA prints (is_scheduled, input_output_alias, buffer_donor,
// entry_computation_layout, frontend_attributes) and, after them, the module fields XLA keeps outside HLO
// text, under their proto names, so that none is lost: spmd_output_sharding,
// spmd_parameters_shardings, cross_program_prefetches, is_dynamic and use_auto_spmd_partitioning. A
// schedule also orders each scheduled computation's instructions.
func (c *protoConverter) moduleAttrs(m *protoField, comps map[int64]*protoComp) {
	mod := c.mod
	l := attrList{spec: hlo.ModuleAttr}
	if sf := c.sub(m, "schedule"); sf != nil {
		l.add("is_scheduled", hlo.Bool(true))
		c.schedule(sf, comps)
	}
	if af := c.sub(m, "input_output_alias"); af != nil {
		var al hlo.InputOutputAliasing
		for _, ef := range c.subs(af, "entries") {
			e := hlo.InputOutputAlias{Output: nonNil(c.ints(ef, "output_shape_index")), Kind: hlo.MayAlias}
			e.Parameter, _ = c.int(ef, "parameter_number")
			e.ParameterIndex = nonNil(c.ints(ef, "parameter_shape_index"))
			if c.enum(ef, "kind", protoAliasKind) == "MUST_ALIAS" {
				e.Kind = hlo.MustAlias
			}
			c.done(ef, "AliasEntryProto")
			al = append(al, e)
		}
		c.done(af, "HloInputOutputAliasProto")
		// XLA keeps aliases in a tree by output index and prints them in its pre-order.
		sort.SliceStable(al, func(i, j int) bool { return lessIndex(al[i].Output, al[j].Output) })
		if len(al) > 0 {
			l.add("input_output_alias", al)
		}
	}
	if df := c.sub(m, "buffer_donor"); df != nil {
		var donors hlo.BufferDonors
		for _, ef := range c.subs(df, "entries") {
			d := hlo.BufferDonor{ParameterIndex: nonNil(c.ints(ef, "parameter_shape_index"))}
			d.Parameter, _ = c.int(ef, "parameter_number")
			donors = append(donors, d)
			c.done(ef, "BufferDonorEntryProto")
		}
		c.done(df, "HloBufferDonorProto")
		sort.SliceStable(donors, func(i, j int) bool {
			if donors[i].Parameter != donors[j].Parameter {
				return donors[i].Parameter < donors[j].Parameter
			}
			return lessIndex(donors[i].ParameterIndex, donors[j].ParameterIndex)
		})
		if len(donors) > 0 {
			l.add("buffer_donor", donors)
		}
	}
	if pf := c.sub(m, "host_program_shape"); pf != nil {
		ps := &hlo.ProgramShape{Params: []hlo.Shape{}}
		for _, sf := range c.subs(pf, "parameters") {
			ps.Params = append(ps.Params, c.shape(sf))
		}
		if rf := c.sub(pf, "result"); rf != nil {
			ps.Result = c.shape(rf)
		} else {
			c.errorAt(pf.off, "host_program_shape has no result")
		}
		c.skip(pf, "parameter_names")
		c.done(pf, "ProgramShapeProto")
		l.add("entry_computation_layout", ps)
	}
	if ff := c.sub(m, "frontend_attributes"); ff != nil {
		if kvs := c.frontendAttributes(ff); len(kvs) > 0 {
			l.add("frontend_attributes", kvs)
		}
	}
	if sf := c.sub(m, "spmd_output_sharding"); sf != nil {
		l.word("spmd_output_sharding", c.sharding(sf))
	}
	if ps := c.subs(m, "spmd_parameters_shardings"); len(ps) > 0 {
		parts := make([]string, len(ps))
		for i, sf := range ps {
			parts[i] = c.sharding(sf)
		}
		l.word("spmd_parameters_shardings", "{"+strings.Join(parts, ", ")+"}")
	}
	if pfs := c.subs(m, "cross_program_prefetches"); len(pfs) > 0 {
		parts := make([]string, len(pfs))
		for i, pf := range pfs {
			param, _ := c.int(pf, "parameter")
			offset, _ := c.int(pf, "offset")
			parts[i] = fmt.Sprintf("(%d, {%s}, %d)", param, hlo.JoinInts(c.ints(pf, "index")), offset)
			c.done(pf, "CrossProgramPrefetch")
		}
		l.word("cross_program_prefetches", "{ "+strings.Join(parts, ", ")+" }")
	}
	for _, name := range []string{"is_dynamic", "use_auto_spmd_partitioning"} {
		if c.boolean(m, name) {
			l.add(name, hlo.Bool(true))
		}
	}
	mod.Attrs = l.attrs
}

// lessIndex orders shape indices as a pre-order walk of a tuple visits them.
func lessIndex(a, b []int64) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}

// schedule orders the instructions of each scheduled computation as its sequence says, as HLO text of a
// scheduled module lists them.
func (c *protoConverter) schedule(m *protoField, comps map[int64]*protoComp) {
	for _, sf := range c.subs(m, "sequences") {
		id, _ := c.int(sf, "key")
		vf := c.sub(sf, "value")
		c.done(sf, "HloScheduleProto.SequencesEntry")
		if vf == nil {
			continue
		}
		pc := comps[id]
		if pc == nil {
			c.errorAt(sf.off, "the schedule names computation id %d, which is not in the module", id)
			continue
		}
		var order []*hlo.Instruction
		seen := map[*hlo.Instruction]bool{}
		for _, idf := range c.take(vf, "instruction_ids") {
			in := pc.byID[c.intOf(idf)]
			if in == nil || seen[in] {
				c.errorAt(idf.valOff, "the schedule of %s names instruction id %s, which is not in it or comes twice", pc.comp.Name, idf.text)
				continue
			}
			seen[in] = true
			order = append(order, in)
		}
		c.done(vf, "InstructionSequence")
		if len(order) != len(pc.comp.Instructions) {
			c.errorAt(sf.off, "the schedule of %s has %d of its %d instructions", pc.comp.Name, len(order), len(pc.comp.Instructions))
			continue
		}
		pc.comp.Instructions = order
	}
	c.done(m, "HloScheduleProto")
}

// stackFrames converts a StackFrameIndexProto; nil when it is empty, as XLA then prints no tables.
func (c *protoConverter) stackFrames(m *protoField) *hlo.StackFrameTables {
	t := &hlo.StackFrameTables{}
	for _, f := range c.take(m, "file_names") {
		t.FileNames = append(t.FileNames, c.strOf(f))
	}
	for _, f := range c.take(m, "function_names") {
		t.FunctionNames = append(t.FunctionNames, c.strOf(f))
	}
	for _, lf := range c.subs(m, "file_locations") {
		var fl hlo.FileLocation
		fl.FileNameID, _ = c.int(lf, "file_name_id")
		fl.FunctionNameID, _ = c.int(lf, "function_name_id")
		fl.Line, _ = c.int(lf, "line")
		fl.EndLine, _ = c.int(lf, "end_line")
		fl.Column, _ = c.int(lf, "column")
		fl.EndColumn, _ = c.int(lf, "end_column")
		t.FileLocations = append(t.FileLocations, fl)
		c.done(lf, "StackFrameIndexProto.FileLocation")
	}
	for _, ff := range c.subs(m, "stack_frames") {
		var sf hlo.StackFrame
		sf.FileLocationID, _ = c.int(ff, "file_location_id")
		sf.ParentFrameID, _ = c.int(ff, "parent_frame_id")
		t.Frames = append(t.Frames, sf)
		c.done(ff, "StackFrameIndexProto.StackFrame")
	}
	c.done(m, "StackFrameIndexProto")
	if len(t.FileNames)+len(t.FunctionNames)+len(t.FileLocations)+len(t.Frames) == 0 {
		return nil
	}
	return t
}

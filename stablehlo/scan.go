package stablehlo

import (
	"bytes"
	"fmt"
	"go/scanner"
	"go/token"
	"strconv"
	"strings"
)

// maxDepth bounds the nesting of regions, lists, dictionaries and locations, so that hostile input cannot
// exhaust the stack.
const maxDepth = 256

// bailout stops the parse at the first error; ParseFile recovers it and returns the error.
type bailout struct{}

// scan is the byte-level reader the parser drives: MLIR's lexical rules depend on context (20x30xf32 is
// three tokens inside tensor<...> and one elsewhere), so the parser asks for the token it expects.
type scan struct {
	src   []byte
	off   int
	file  *token.File
	err   scanner.ErrorList
	depth int
}

func (s *scan) pos(off int) token.Pos { return s.file.Pos(off) }

// failAt records an error at offset off and stops the parse.
func (s *scan) failAt(off int, format string, args ...any) {
	if off > len(s.src) {
		off = len(s.src)
	}
	s.err.Add(s.file.Position(s.pos(off)), fmt.Sprintf(format, args...))
	panic(bailout{})
}

func (s *scan) fail(format string, args ...any) { s.failAt(s.off, format, args...) }

// enter and leave bound the nesting depth.
func (s *scan) enter() {
	s.depth++
	if s.depth > maxDepth {
		s.fail("nesting deeper than %d levels", maxDepth)
	}
}

func (s *scan) leave() { s.depth-- }

// skip passes over white space and // comments.
func (s *scan) skip() {
	for s.off < len(s.src) {
		switch c := s.src[s.off]; c {
		case ' ', '\t', '\r', '\n':
			s.off++
		case '/':
			if s.off+1 < len(s.src) && s.src[s.off+1] == '/' {
				for s.off < len(s.src) && s.src[s.off] != '\n' {
					s.off++
				}
				continue
			}
			return
		default:
			return
		}
	}
}

// peek returns the next byte after white space; 0 at the end.
func (s *scan) peek() byte {
	s.skip()
	if s.off < len(s.src) {
		return s.src[s.off]
	}
	return 0
}

// peekAt returns the byte k past the next one (after white space); 0 past the end.
func (s *scan) peekAt(k int) byte {
	s.skip()
	if s.off+k < len(s.src) {
		return s.src[s.off+k]
	}
	return 0
}

// got consumes c when it is next.
func (s *scan) got(c byte) bool {
	if s.peek() == c {
		s.off++
		return true
	}
	return false
}

// gotStr consumes lit when it is next.
func (s *scan) gotStr(lit string) bool {
	s.skip()
	if strings.HasPrefix(string(s.src[s.off:min(len(s.src), s.off+len(lit))]), lit) {
		s.off += len(lit)
		return true
	}
	return false
}

// want consumes c or fails.
func (s *scan) want(c byte, what string) {
	if !s.got(c) {
		s.fail("expected %q %s, found %s", c, what, s.describe())
	}
}

// describe names what comes next, for error messages.
func (s *scan) describe() string {
	s.skip()
	if s.off >= len(s.src) {
		return "end of file"
	}
	end := s.off
	for end < len(s.src) && end-s.off < 24 && isIdentByte(s.src[end]) {
		end++
	}
	if end == s.off {
		return strconv.Quote(string(s.src[s.off : s.off+1]))
	}
	return strconv.Quote(string(s.src[s.off:end]))
}

func isIdentStart(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }

func isIdentByte(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9' || c == '$' || c == '.' || c == '-'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// ident reads a bare identifier (letters, digits, '_', '$', '.'; '-' is not part of it); "" when none.
func (s *scan) ident() string {
	s.skip()
	start := s.off
	if s.off < len(s.src) && isIdentStart(s.src[s.off]) {
		s.off++
		for s.off < len(s.src) {
			c := s.src[s.off]
			if !(isIdentStart(c) || isDigit(c) || c == '$' || c == '.') {
				break
			}
			s.off++
		}
	}
	return string(s.src[start:s.off])
}

// peekIdent returns the identifier that comes next without consuming it.
func (s *scan) peekIdent() string {
	save := s.off
	id := s.ident()
	s.off = save
	return id
}

// suffixID reads the name after a sigil (%, @, ^, #, !): an identifier, digits, or a quoted string.
func (s *scan) suffixID() string {
	start := s.off
	if s.off < len(s.src) && s.src[s.off] == '"' {
		return s.str()
	}
	for s.off < len(s.src) {
		c := s.src[s.off]
		if !(isIdentStart(c) || isDigit(c) || c == '$' || c == '.' || c == '-') {
			break
		}
		s.off++
	}
	if s.off == start {
		s.fail("expected a name")
	}
	return string(s.src[start:s.off])
}

// str reads a quoted string, unescaping \n, \t, \", \\ and \XX hex escapes.
func (s *scan) str() string {
	s.skip()
	if s.off >= len(s.src) || s.src[s.off] != '"' {
		s.fail("expected a string, found %s", s.describe())
	}
	start := s.off
	s.off++
	plain := true
	for s.off < len(s.src) && s.src[s.off] != '"' {
		switch s.src[s.off] {
		case '\\':
			plain = false
			s.off += 2
			continue
		case '\n':
			s.failAt(start, "string not terminated before the end of the line")
		}
		s.off++
	}
	if s.off >= len(s.src) {
		s.failAt(start, "string not terminated")
	}
	body := s.src[start+1 : s.off]
	s.off++
	if plain {
		return string(body)
	}
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' || i+1 >= len(body) {
			b.WriteByte(c)
			continue
		}
		i++
		switch body[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case '"', '\\':
			b.WriteByte(body[i])
		default:
			if i+1 < len(body) {
				if v, err := strconv.ParseUint(string(body[i:i+2]), 16, 8); err == nil {
					b.WriteByte(byte(v))
					i++
					continue
				}
			}
			b.WriteByte('\\')
			b.WriteByte(body[i])
		}
	}
	return b.String()
}

// number reads an integer or floating-point literal, with an optional sign; text is its spelling.
func (s *scan) number() (text string, isFloat bool) {
	s.skip()
	start := s.off
	if s.off < len(s.src) && (s.src[s.off] == '-' || s.src[s.off] == '+') {
		s.off++
	}
	if s.off+1 < len(s.src) && s.src[s.off] == '0' && (s.src[s.off+1] == 'x' || s.src[s.off+1] == 'X') {
		s.off += 2
		for s.off < len(s.src) && isHex(s.src[s.off]) {
			s.off++
		}
		return string(s.src[start:s.off]), false
	}
	digits := s.off
	for s.off < len(s.src) && isDigit(s.src[s.off]) {
		s.off++
	}
	if s.off == digits {
		s.failAt(start, "expected a number, found %s", s.describe())
	}
	if s.off < len(s.src) && s.src[s.off] == '.' {
		isFloat = true
		s.off++
		for s.off < len(s.src) && isDigit(s.src[s.off]) {
			s.off++
		}
	}
	if s.off < len(s.src) && (s.src[s.off] == 'e' || s.src[s.off] == 'E') {
		k := s.off + 1
		if k < len(s.src) && (s.src[k] == '+' || s.src[k] == '-') {
			k++
		}
		if k < len(s.src) && isDigit(s.src[k]) {
			isFloat = true
			s.off = k
			for s.off < len(s.src) && isDigit(s.src[s.off]) {
				s.off++
			}
		}
	}
	return string(s.src[start:s.off]), isFloat
}

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// int reads an integer that fits int64.
func (s *scan) int() int64 {
	start := s.off
	text, isFloat := s.number()
	if isFloat {
		s.failAt(start, "expected an integer, found %s", text)
	}
	v, err := strconv.ParseInt(text, 0, 64)
	if err != nil {
		s.failAt(start, "integer %s out of range", text)
	}
	return v
}

// skipBalanced passes over text up to the bracket that closes one already consumed (close), keeping
// strings and nested brackets whole; "->" is not a closing '>'.
func (s *scan) skipBalanced(close byte) {
	stack := []byte{close}
	for s.off < len(s.src) {
		c := s.src[s.off]
		switch c {
		case '"':
			s.str()
			continue
		case '-':
			if s.off+1 < len(s.src) && s.src[s.off+1] == '>' {
				s.off += 2
				continue
			}
		case '(':
			stack = append(stack, ')')
		case '[':
			stack = append(stack, ']')
		case '{':
			stack = append(stack, '}')
		case '<':
			stack = append(stack, '>')
		case ')', ']', '}', '>':
			if c != stack[len(stack)-1] {
				s.fail("unbalanced %q", c)
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				s.off++
				return
			}
		}
		if len(stack) > maxDepth {
			s.fail("nesting deeper than %d levels", maxDepth)
		}
		s.off++
	}
	s.fail("missing %q", close)
}

// rawBytes reads a quoted string and returns its body: the input's own bytes when it has no escapes
// (hex blobs never do), so that a large constant is not copied before it is decoded.
func (s *scan) rawBytes() []byte {
	s.skip()
	start := s.off
	if start < len(s.src) && s.src[start] == '"' {
		body := s.src[start+1:]
		if end := bytes.IndexByte(body, '"'); end >= 0 {
			body = body[:end]
			if bytes.IndexByte(body, '\\') < 0 && bytes.IndexByte(body, '\n') < 0 {
				s.off = start + 2 + end
				return body
			}
		}
	}
	return []byte(s.str())
}

// Package safetext shows strings that come from a module (names, attribute values, metadata, custom-call
// targets, file names) so that they cannot pass for the output's own structure: no control character
// reaches a terminal, no newline starts a forged line, no direction override reorders what follows, and
// every output is valid UTF-8.
//
// There is one policy, Escape, and one form for each kind of output built on it: Escape itself for
// terminals and readable text, Lines for messages of several lines, HTML for HTML and XML (SVG) text and
// attribute values, DOT for Graphviz strings. Short cuts a string to a fixed budget.
//
// Escape writes what it escapes as absl::CEscape does, the form XLA's own printer uses: \n, \r and \t by
// name, any other byte as a three-digit octal escape. It escapes the C0 and C1 control characters and DEL;
// the invisible format characters (Unicode category Cf: the bidirectional embeddings, overrides, isolates
// and marks, zero-width characters, the byte order mark); the line and paragraph separators U+2028 and
// U+2029; the noncharacters U+FFFE and U+FFFF, which XML forbids; and each byte that is not part of valid
// UTF-8. Everything else, printable Unicode and backslashes included, passes unchanged, so that
// Escape(Escape(s)) == Escape(s) and printable text costs no allocation.
package safetext

import (
	"html"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Ellipsis ends a string Short cut.
const Ellipsis = "…"

// Escape returns s with every character that could change how text displays escaped (see the package
// documentation). The result is valid UTF-8 and holds no control character.
func Escape(s string) string {
	i := firstUnsafe(s)
	if i == len(s) {
		return s
	}
	b := make([]byte, 0, len(s)+16)
	b = append(b, s[:i]...)
	b, _ = appendEscaped(b, s[i:], -1, false)
	return string(b)
}

// AppendEscape appends Escape(s) to b.
func AppendEscape(b []byte, s string) []byte {
	i := printablePrefix(s)
	if i == len(s) {
		return append(b, s...)
	}
	i += firstUnsafe(s[i:])
	b = append(b, s[:i]...)
	if i < len(s) {
		b, _ = appendEscaped(b, s[i:], -1, false)
	}
	return b
}

// Lines is Escape for text of several lines: newlines are kept, everything else is escaped as Escape does.
func Lines(s string) string {
	if firstUnsafeKeeping(s, '\n') == len(s) {
		return s
	}
	b, _ := appendEscaped(make([]byte, 0, len(s)+16), s, -1, true)
	return string(b)
}

// Short returns Escape(s) cut to at most n characters, the last of them an ellipsis when anything was
// cut. An escape sequence is never cut in two. n below 1 counts as 1.
func Short(s string, n int) string {
	if n < 1 {
		n = 1
	}
	if len(s) <= n && firstUnsafe(s) == len(s) {
		return s
	}
	b, cut := appendEscaped(make([]byte, 0, min(len(s), 4*n)+8), s, n, false)
	if !cut {
		return string(b)
	}
	b, _ = appendEscaped(b[:0], s, n-1, false)
	return string(b) + Ellipsis
}

// HTML returns Escape(s) escaped for HTML and XML text and attribute values: < > & ' and " as character
// references.
func HTML(s string) string { return html.EscapeString(Escape(s)) }

// ShortHTML is HTML(s) cut as Short cuts it.
func ShortHTML(s string, n int) string { return html.EscapeString(Short(s, n)) }

// dotReplacer escapes what a Graphviz string gives a meaning to: the quote, the backslash of its escapes
// (\n, \l, \N, \G...), and the ampersand of HTML entities, which Graphviz decodes in labels.
var dotReplacer = strings.NewReplacer(`\`, `\\`, `"`, `\"`, `&`, `&amp;`)

// MaxDOT is the most characters DOT keeps of a string: Graphviz refuses labels of more than 16,384.
const MaxDOT = 1024

// DOT returns s as a quoted Graphviz string that Graphviz shows as Escape(s) reads, cut as Short cuts
// it to MaxDOT characters.
func DOT(s string) string { return DOTLines(s) }

// DOTLines returns the lines as one quoted Graphviz label, each escaped and cut as DOT does, joined by
// Graphviz's line breaks.
func DOTLines(lines ...string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i, l := range lines {
		if i > 0 {
			b.WriteString(`\n`)
		}
		b.WriteString(dotReplacer.Replace(Short(l, MaxDOT)))
	}
	b.WriteByte('"')
	return b.String()
}

// firstUnsafe returns the index of the first byte of s that Escape changes, or len(s).
func firstUnsafe(s string) int { return firstUnsafeKeeping(s, 0x80) }

// firstUnsafeKeeping is firstUnsafe, the ASCII byte keep aside (0x80 for none).
func firstUnsafeKeeping(s string, keep byte) int {
	i := printablePrefix(s)
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 || c == 0x7f) && c != keep {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unsafeRune(r, size) {
			return i
		}
		i += size
	}
	return len(s)
}

// Masks of the eight bytes of a word.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// printablePrefix returns the length of the longest prefix of s made of printable ASCII (0x20 to 0x7e),
// eight bytes at a time: names and most strings are all of it.
func printablePrefix(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		// A byte's high bit is set in the mask when the byte is 0x80 or more, below 0x20, or 0x7f.
		del := w ^ 0x7f*ones
		if (w|(w-0x20*ones)&^w|(del-ones)&^del)&highs != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			break
		}
	}
	return i
}

// unsafeRune reports whether Escape escapes the character r of size bytes (utf8.RuneError of size 1 is
// a byte that is not valid UTF-8).
func unsafeRune(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size == 1:
		return true
	case r < 0x20 || r >= 0x7f && r <= 0x9f:
		return true
	case r == 0x2028 || r == 0x2029 || r == 0xfffe || r == 0xffff:
		return true
	}
	return r >= 0xad && unicode.Is(unicode.Cf, r)
}

// appendEscaped appends s escaped; with limit >= 0, it stops before the first character whose escaped
// form would make the output longer than limit characters, and reports that it did. With keepNewlines,
// '\n' passes unchanged.
func appendEscaped(b []byte, s string, limit int, keepNewlines bool) ([]byte, bool) {
	n := 0 // characters written
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			var esc string
			switch {
			case c == '\n' && keepNewlines:
			case c == '\n':
				esc = `\n`
			case c == '\r':
				esc = `\r`
			case c == '\t':
				esc = `\t`
			case c < 0x20 || c == 0x7f:
				esc = octal(c)
			}
			k := max(len(esc), 1)
			if limit >= 0 && n+k > limit {
				return b, true
			}
			if esc == "" {
				b = append(b, c)
			} else {
				b = append(b, esc...)
			}
			n += k
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		k := 1
		if unsafeRune(r, size) {
			k = 4 * size
		}
		if limit >= 0 && n+k > limit {
			return b, true
		}
		if k == 1 {
			b = append(b, s[i:i+size]...)
		} else {
			for j := i; j < i+size; j++ {
				b = append(b, octal(s[j])...)
			}
		}
		n += k
		i += size
	}
	return b, false
}

// octal returns the three-digit octal escape of c.
func octal(c byte) string { return string([]byte{'\\', '0' + c>>6, '0' + (c>>3)&7, '0' + c&7}) }

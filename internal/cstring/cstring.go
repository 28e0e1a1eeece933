// Package cstring escapes and unescapes strings the way HLO text writes them: as absl::CEscape does, the
// C escapes \n \r \t \" \' \\ by name and every other byte outside printable ASCII in octal.
package cstring

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// AppendEscaped appends s escaped as absl::CEscape does: \n \r \t \" \' \\ by name, every other byte
// outside the printable ASCII range as a three-digit octal escape.
func AppendEscaped(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\'' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		start = i + 1
		switch c {
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		case '"':
			b = append(b, `\"`...)
		case '\'':
			b = append(b, `\'`...)
		case '\\':
			b = append(b, `\\`...)
		default:
			b = append(b, '\\', '0'+c>>6, '0'+(c>>3)&7, '0'+c&7)
		}
	}
	return append(b, s[start:]...)
}

// Escape returns s escaped as AppendEscaped writes it.
func Escape(s string) string { return string(AppendEscaped(nil, s)) }

// Unescape undoes absl::CEscape as absl::CUnescape does: \n \t \r \\ \" \' \? octal \NNN, hex \xHH, and
// \uXXXX and \UXXXXXXXX, a character written as its UTF-8 bytes (a surrogate half or a value past
// U+10FFFF, which CUnescape refuses, is left as written, backslash and all).
func Unescape(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b bytes.Buffer
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case 'u', 'U':
			n := 4
			if e == 'U' {
				n = 8
			}
			r, ok := hexRune(s[i+1:], n)
			if !ok {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			b.WriteRune(r)
			i += n
		case 'x':
			v, n := 0, 0
			for n < 2 && i+1 < len(s) && isHex(s[i+1]) {
				i++
				v = v*16 + hexVal(s[i])
				n++
			}
			b.WriteByte(byte(v))
		default:
			if e >= '0' && e <= '7' {
				v, n := int(e-'0'), 1
				for n < 3 && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '7' {
					i++
					v = v*8 + int(s[i]-'0')
					n++
				}
				b.WriteByte(byte(v))
			} else {
				b.WriteByte(e)
			}
		}
	}
	return b.String()
}

// hexRune reads the character of the n hex digits at the start of s, if they are there and name one that
// is not a surrogate half.
func hexRune(s string, n int) (rune, bool) {
	if len(s) < n {
		return 0, false
	}
	v := 0
	for i := range n {
		if !isHex(s[i]) {
			return 0, false
		}
		v = v*16 + hexVal(s[i])
	}
	if v > utf8.MaxRune || v >= 0xd800 && v < 0xe000 {
		return 0, false
	}
	return rune(v), true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func hexVal(c byte) int {
	switch {
	case isDigit(c):
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	default:
		return int(c-'A') + 10
	}
}

// LexesAsJSONDict reports whether s is a brace-delimited, JSON-like dictionary that XLA's printer writes
// without quotes: after leading white space a '{', braces balanced outside double-quoted strings, and
// nothing but white space after the closing brace (XLA's LexesAsJsonDict).
func LexesAsJSONDict(s string) bool {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i == len(s) || s[i] != '{' {
		return false
	}
	depth := 0
	for ; i < len(s); i++ {
		switch s[i] {
		case '"':
			// A string: "([^"\\]|\\.)*" where '.' matches anything but a newline.
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
					if i < len(s) && s[i] == '\n' {
						return false
					}
				}
			}
			if i >= len(s) {
				return false
			}
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				for i++; i < len(s); i++ {
					if !isSpace(s[i]) {
						return false
					}
				}
				return true
			}
		}
	}
	return false
}
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

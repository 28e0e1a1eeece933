package stablehlo

import (
	"bytes"
	"fmt"
	"go/token"
	"slices"
	"strings"
)

// Readable returns StableHLO text as people read it: the text as written, without its locations (the
// loc(...) annotations and the #loc alias definitions), and with a "// file:line" comment at the end of
// each line whose locations name a source file. src must be StableHLO that Parse reads.
func Readable(fset *token.FileSet, filename string, src []byte) ([]byte, error) {
	f, err := Parse(fset, filename, src)
	if err != nil {
		return nil, err
	}
	r := &readable{src: src, f: f}
	r.p = &parser{scan: scan{src: src, file: token.NewFileSet().AddFile(filename, -1, len(src))}}
	r.p.file.SetLinesForContent(src)
	r.run()
	return r.out.Bytes(), nil
}

// readable is the state of one Readable.
type readable struct {
	src   []byte
	p     *parser // reads the loc(...) the text holds
	f     *File
	out   bytes.Buffer
	line  []byte   // the current line, locations removed
	notes []string // the source positions of the current line's locations
	had   bool     // whether the current line had text before its locations were removed
}

func (r *readable) run() {
	src := r.src
	lineStart := true
	for i := 0; i < len(src); {
		ch := src[i]
		switch {
		case ch == '\n':
			r.endLine(true)
			i++
			lineStart = true
			continue
		case ch == '"':
			j := skipString(src, i)
			r.emit(src[i:j])
			i = j
		case ch == '/' && i+1 < len(src) && src[i+1] == '/':
			j := bytes.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			r.emit(src[i : i+j])
			i += j
		case ch == '#' && lineStart && isLocAlias(src[i:]):
			// "#loc3 = loc(...)": the whole definition goes.
			if end, ok := r.locEnd(i + bytes.Index(src[i:], []byte("loc("))); ok {
				r.had = true
				i = end
				continue
			}
			r.emit(src[i : i+1])
			i++
		case ch == 'l' && bytes.HasPrefix(src[i:], []byte("loc(")) && (i == 0 || !isIdentChar(src[i-1])):
			if end, ok := r.locEnd(i); ok {
				// Only an op's location, the last thing on its line, becomes a note; those of arguments
				// inside a signature go.
				if note := r.describe(i); note != "" && lastOnLine(src, end) && !slices.Contains(r.notes, note) {
					r.notes = append(r.notes, note)
				}
				r.line = bytes.TrimRight(r.line, " \t")
				r.had = true
				i = end
				continue
			}
			r.emit(src[i : i+1])
			i++
		default:
			r.emit(src[i : i+1])
			i++
		}
		if ch != ' ' && ch != '\t' {
			lineStart = false
		}
	}
	r.endLine(false)
}

// emit appends text to the current line.
func (r *readable) emit(b []byte) {
	r.line = append(r.line, b...)
	if len(bytes.TrimSpace(b)) > 0 {
		r.had = true
	}
}

// endLine writes the current line with its notes; a line that held only locations is left out.
func (r *readable) endLine(newline bool) {
	text := bytes.TrimRight(r.line, " \t\r")
	if len(bytes.TrimSpace(text)) > 0 || !r.had {
		r.out.Write(text)
		if len(r.notes) > 0 {
			if len(bytes.TrimSpace(text)) > 0 {
				r.out.WriteString("  ")
			}
			r.out.WriteString("// " + strings.Join(r.notes, ", "))
		}
		if newline {
			r.out.WriteByte('\n')
		}
	}
	r.line, r.notes, r.had = r.line[:0], r.notes[:0], false
}

// locEnd returns the offset after the loc(...) at off, read as the parser reads it.
func (r *readable) locEnd(off int) (end int, ok bool) {
	defer func() {
		if x := recover(); x != nil {
			if _, isBail := x.(bailout); !isBail {
				panic(x)
			}
			end, ok = 0, false
		}
	}()
	r.p.err = nil
	r.p.off = off + len("loc")
	r.p.locBody()
	return r.p.off, true
}

// describe returns "file:line" of the loc(...) at off, following aliases, call sites and names; ""
// when it names no file.
func (r *readable) describe(off int) (note string) {
	defer func() {
		if x := recover(); x != nil {
			if _, isBail := x.(bailout); !isBail {
				panic(x)
			}
			note = ""
		}
	}()
	r.p.off = off + len("loc")
	l := r.p.locBody()
	d := r.f.describe(l)
	if d.file == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d", d.file, d.line)
}

// isLocAlias reports whether b starts a location alias definition, "#name = loc(".
func isLocAlias(b []byte) bool {
	i := 1
	for i < len(b) && isIdentChar(b[i]) {
		i++
	}
	rest := bytes.TrimLeft(b[i:], " \t")
	if !bytes.HasPrefix(rest, []byte("=")) {
		return false
	}
	return bytes.HasPrefix(bytes.TrimLeft(rest[1:], " \t"), []byte("loc("))
}

func isIdentChar(c byte) bool {
	return isIdentStart(c) || isDigit(c) || c == '.' || c == '$' || c == '-'
}

// skipString returns the offset after the quoted string at i.
func skipString(src []byte, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		case '\n':
			return j
		}
	}
	return len(src)
}

// lastOnLine reports whether only blanks follow off on its line.
func lastOnLine(src []byte, off int) bool {
	for ; off < len(src) && src[off] != '\n'; off++ {
		if src[off] != ' ' && src[off] != '\t' && src[off] != '\r' {
			return false
		}
	}
	return true
}

package printer

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"octet/hlo"
	"octet/internal/safetext"
)

// backendConfigNote puts a JSON backend_config under its instruction as indented JSON (the readable
// style). It reports false when the config is not JSON and must stay on the line; an empty object is
// dropped.
func (p *printer) backendConfigNote(bc *hlo.BackendConfig, level int) bool {
	text := strings.TrimSpace(bc.Text)
	if !json.Valid([]byte(text)) || !strings.HasPrefix(text, "{") || !utf8.ValidString(text) {
		return false
	}
	if text == "{}" {
		return true
	}
	prefix := indentation(level + 1)
	p.notes = append(p.notes, prefix...)
	p.notes = append(p.notes, "backend_config="...)
	start := len(p.notes)
	p.notes = appendIndentedJSON(p.notes, []byte(text), prefix)
	// Valid JSON holds no raw control character in its strings, and the white space between its tokens
	// is gone: the newlines are the indentation's. What else its strings hold is escaped.
	if note := string(p.notes[start:]); safetext.Lines(note) != note {
		p.notes = append(p.notes[:start], safetext.Lines(note)...)
	}
	p.notes = append(p.notes, '\n')
	return true
}

// spaces backs indentation.
const spaces = "                                                                "

// indentation returns 2*level spaces.
func indentation(level int) string {
	if level < 0 {
		level = 0
	}
	if 2*level <= len(spaces) {
		return spaces[:2*level]
	}
	return strings.Repeat("  ", level)
}

// appendIndentedJSON appends valid JSON with every object member on a line of its own, indented by two
// spaces per level after prefix; arrays of scalars and empty containers stay on one line. White space
// outside strings is dropped.
func appendIndentedJSON(b, js []byte, prefix string) []byte {
	depth := 0
	newline := func() {
		b = append(b, '\n')
		b = append(b, prefix...)
		for i := 0; i < depth; i++ {
			b = append(b, "  "...)
		}
	}
	for i := 0; i < len(js); i++ {
		c := js[i]
		switch c {
		case '"':
			j := i + 1
			for ; j < len(js) && js[j] != '"'; j++ {
				if js[j] == '\\' {
					j++
				}
			}
			b = append(b, js[i:j+1]...)
			i = j
		case '{', '[':
			if j := skipSpace(js, i+1); j < len(js) && (js[j] == '}' || js[j] == ']') {
				b = append(b, c, js[j])
				i = j
				continue
			}
			if c == '[' {
				if end, ok := scalarArrayEnd(js, i); ok {
					inString := false
					for k := i; k <= end; k++ {
						ch := js[k]
						b = append(b, ch)
						switch {
						case inString && ch == '\\':
							k++
							b = append(b, js[k])
						case ch == '"':
							inString = !inString
						case !inString && ch == ',':
							b = append(b, ' ')
						case !inString && isSpace(ch):
							b = b[:len(b)-1]
						}
					}
					i = end
					continue
				}
			}
			b = append(b, c)
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			b = append(b, c)
		case ',':
			b = append(b, ',')
			newline()
		case ':':
			b = append(b, ": "...)
		case ' ', '\t', '\n', '\r':
		default:
			b = append(b, c)
		}
	}
	return b
}

func skipSpace(js []byte, i int) int {
	for i < len(js) && isSpace(js[i]) {
		i++
	}
	return i
}

// scalarArrayEnd returns the index of the ']' closing the array that opens at js[i] when the array holds
// no object or array.
func scalarArrayEnd(js []byte, i int) (int, bool) {
	for j := i + 1; j < len(js); j++ {
		switch js[j] {
		case '"':
			for j++; j < len(js) && js[j] != '"'; j++ {
				if js[j] == '\\' {
					j++
				}
			}
		case '{', '[':
			return 0, false
		case ']':
			return j, true
		}
	}
	return 0, false
}

// annotationNote writes the comment lines cfg.Annotate gives for in under it (the readable style), before
// the backend config.
func (p *printer) annotationNote(in *hlo.Instruction, level int) {
	if p.cfg.Annotate == nil {
		return
	}
	lines := p.cfg.Annotate(in)
	if len(lines) == 0 {
		return
	}
	b := p.noteScratch[:0]
	for _, line := range lines {
		b = append(b, indentation(level+1)...)
		if p.cfg.Color {
			b = append(b, colorNote...)
		}
		b = append(b, "// "...)
		b = safetext.AppendEscape(b, line)
		if p.cfg.Color {
			b = append(b, colorReset...)
		}
		b = append(b, '\n')
	}
	b = append(b, p.notes...)
	p.noteScratch, p.notes = p.notes, b
}

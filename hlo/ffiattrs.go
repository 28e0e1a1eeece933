package hlo

import (
	"fmt"
	"strconv"
	"strings"
)

// FFIAttribute is one attribute of a typed-FFI custom call's backend_config, as the MLIR dictionary XLA
// prints there writes it: `name = value` or `name = value : type` (`{mode = 86 : ui8, lower = true}`).
// Value is the value's text, its type suffix removed; Type is the suffix (ui8, i64, f32), empty when none.
type FFIAttribute struct {
	Name, Value, Type string
}

// Int returns the attribute's value as an integer, if it is one (decimal, as MLIR prints integers).
func (a FFIAttribute) Int() (int64, bool) {
	v, err := strconv.ParseInt(a.Value, 10, 64)
	return v, err == nil
}

// Bool returns the attribute's value as a boolean, if it is true or false.
func (a FFIAttribute) Bool() (bool, bool) {
	switch a.Value {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// ParseFFIAttributes reads the dictionary of a typed-FFI custom call's backend_config (the braces
// included; empty text or {} is no attributes). Values may be numbers, booleans, quoted strings or
// bracketed forms (array<i64: 1, 2>, [..], dense<..>), kept as text. An error says where the text stops
// being such a dictionary.
func ParseFFIAttributes(text string) ([]FFIAttribute, error) {
	s := strings.TrimSpace(text)
	if s == "" {
		return nil, nil
	}
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return nil, fmt.Errorf("FFI attributes %q are not a {name = value, ...} dictionary", clip(s))
	}
	body := s[1 : len(s)-1]
	if _, err := topLevel(body, 0); err != nil {
		return nil, fmt.Errorf("FFI attributes %q: %v", clip(s), err)
	}
	var out []FFIAttribute
	seen := map[string]bool{} // a search of out for each name took time quadratic in their number
	for _, item := range splitTopLevel(body) {
		item = strings.TrimSpace(item)
		if item == "" {
			if strings.TrimSpace(body) == "" {
				break
			}
			return nil, fmt.Errorf("FFI attributes %q: an empty entry", clip(s))
		}
		eq := strings.IndexByte(item, '=')
		if eq <= 0 {
			return nil, fmt.Errorf("FFI attributes %q: %q is not name = value", clip(s), clip(item))
		}
		name := strings.TrimSpace(item[:eq])
		if !isAttrName(name) {
			return nil, fmt.Errorf("FFI attributes %q: %q is not an attribute name", clip(s), clip(name))
		}
		value, typ := strings.TrimSpace(item[eq+1:]), ""
		if c := topLevelColon(value); c >= 0 {
			value, typ = strings.TrimSpace(value[:c]), strings.TrimSpace(value[c+1:])
		}
		if value == "" {
			return nil, fmt.Errorf("FFI attributes %q: %s has no value", clip(s), clip(name))
		}
		if typ != "" && !isTypeName(typ) {
			return nil, fmt.Errorf("FFI attributes %q: %s's type %q is not a type name", clip(s), clip(name), clip(typ))
		}
		if seen[name] {
			return nil, fmt.Errorf("FFI attributes %q: %s given twice", clip(s), clip(name))
		}
		seen[name] = true
		out = append(out, FFIAttribute{Name: name, Value: value, Type: typ})
	}
	return out, nil
}

// splitTopLevel splits s at the commas outside quotes and brackets.
func splitTopLevel(s string) []string {
	var parts []string
	start := 0
	at, _ := topLevel(s, ',')
	for _, i := range at {
		parts = append(parts, s[start:i])
		start = i + 1
	}
	return append(parts, s[start:])
}

// topLevelColon is the index of the first ':' of s outside quotes and brackets, or -1.
func topLevelColon(s string) int {
	if at, _ := topLevel(s, ':'); len(at) > 0 {
		return at[0]
	}
	return -1
}

// topLevel returns the indexes of the bytes c of s that are outside quotes and brackets, and an error
// where s's quotes or brackets do not close, or close what was not opened.
func topLevel(s string, c byte) ([]int, error) {
	var at []int
	depth, quoted := 0, false
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case quoted:
			if b == '\\' {
				i++
			} else if b == '"' {
				quoted = false
			}
		case b == '"':
			quoted = true
		case b == '<' || b == '[' || b == '{' || b == '(':
			depth++
		case b == '>' || b == ']' || b == '}' || b == ')':
			if depth--; depth < 0 {
				return at, fmt.Errorf("%q at offset %d closes nothing", b, i+1)
			}
		case b == c && depth == 0:
			at = append(at, i)
		}
	}
	switch {
	case quoted:
		return at, fmt.Errorf("a string is not closed")
	case depth > 0:
		return at, fmt.Errorf("%d brackets are not closed", depth)
	}
	return at, nil
}

// isTypeName reports whether s reads as an MLIR builtin type's name (i64, ui8, f32, bf16, f8E4M3FN, index).
func isTypeName(s string) bool {
	for i, c := range s {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && ('0' <= c && c <= '9' || c == '_')) {
			return false
		}
	}
	return s != ""
}

func isAttrName(s string) bool {
	for i, c := range s {
		if !(c == '_' || c == '.' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return s != ""
}

// clip shortens s for a message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

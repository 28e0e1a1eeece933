package tensor

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// A small parser for the Python literals of .npy headers (what ast.literal_eval would accept of them):
// dicts with string keys, strings, True, False, None, integers (with the 'L' suffix of Python 2 files),
// tuples and lists.

type (
	pyDict  []pyKeyValue
	pyTuple []any
	pyList  []any
	pyNone  struct{}
)

type pyKeyValue struct {
	key string
	val any
}

type pyParser struct {
	s     string
	i     int
	depth int
}

func (p *pyParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *pyParser) rest() string {
	r := p.s[p.i:]
	if len(r) > 20 {
		r = r[:20] + "..."
	}
	return r
}

func (p *pyParser) peek() byte {
	p.space()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *pyParser) expect(c byte) error {
	if p.peek() != c {
		if p.i >= len(p.s) {
			return fmt.Errorf("expected %q, found the end", c)
		}
		return fmt.Errorf("expected %q at %q", c, p.rest())
	}
	p.i++
	return nil
}

func (p *pyParser) value() (any, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > 32 {
		return nil, errors.New("literal nested too deeply")
	}
	switch c := p.peek(); {
	case c == '{':
		return p.dict()
	case c == '(':
		p.i++
		items, trailingComma, err := p.items(')')
		if err != nil {
			return nil, err
		}
		if len(items) == 1 && !trailingComma {
			return items[0], nil // (x) is x, not a tuple
		}
		return pyTuple(items), nil
	case c == '[':
		p.i++
		items, _, err := p.items(']')
		return pyList(items), err
	case c == '\'' || c == '"':
		return p.str()
	case c == '-' || c == '+' || c >= '0' && c <= '9':
		return p.integer()
	case c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '_':
		start := p.i
		for p.i < len(p.s) && (isIdent(p.s[p.i])) {
			p.i++
		}
		switch name := p.s[start:p.i]; name {
		case "True":
			return true, nil
		case "False":
			return false, nil
		case "None":
			return pyNone{}, nil
		default:
			return nil, fmt.Errorf("unexpected name %q", clip(name, 40))
		}
	case c == 0:
		return nil, errors.New("expected a value, found the end")
	default:
		return nil, fmt.Errorf("unexpected %q", p.rest())
	}
}

func isIdent(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
}

// items parses comma-separated values up to the closing byte, which it consumes.
func (p *pyParser) items(closing byte) (items []any, trailingComma bool, err error) {
	for {
		if p.peek() == closing {
			p.i++
			return items, trailingComma, nil
		}
		if len(items) > 0 && !trailingComma {
			return nil, false, fmt.Errorf("expected ',' or %q at %q", closing, p.rest())
		}
		v, err := p.value()
		if err != nil {
			return nil, false, err
		}
		items = append(items, v)
		trailingComma = p.peek() == ','
		if trailingComma {
			p.i++
		}
	}
}

func (p *pyParser) dict() (pyDict, error) {
	p.i++ // '{'
	var d pyDict
	for {
		if p.peek() == '}' {
			p.i++
			return d, nil
		}
		k, err := p.value()
		if err != nil {
			return nil, err
		}
		key, ok := k.(string)
		if !ok {
			return nil, fmt.Errorf("dict key %v is not a string", pyRepr(k))
		}
		if err := p.expect(':'); err != nil {
			return nil, err
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		d = append(d, pyKeyValue{key, v})
		if p.peek() == ',' {
			p.i++
		} else if p.peek() != '}' {
			return nil, fmt.Errorf("expected ',' or '}' at %q", p.rest())
		}
	}
}

func (p *pyParser) str() (string, error) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), nil
		case c == '\\' && p.i+1 < len(p.s):
			p.i += 2
			switch e := p.s[p.i-1]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case '\\', '\'', '"':
				b.WriteByte(e)
			default:
				return "", fmt.Errorf("unsupported escape \\%c in a string", e)
			}
		case c == '\n':
			return "", errors.New("unterminated string")
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return "", errors.New("unterminated string")
}

func (p *pyParser) integer() (int64, error) {
	start := p.i
	if p.s[p.i] == '-' || p.s[p.i] == '+' {
		p.i++
	}
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	text := p.s[start:p.i]
	if p.i < len(p.s) && (p.s[p.i] == 'L' || p.s[p.i] == 'l') {
		p.i++ // Python 2 long
	}
	if p.i < len(p.s) && (p.s[p.i] == '.' || p.s[p.i] == 'e' || p.s[p.i] == 'E' || isIdent(p.s[p.i])) {
		return 0, fmt.Errorf("not an integer at %q", clip(p.s[start:min(len(p.s), p.i+10)], 40))
	}
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("bad integer %q", clip(text, 40)) // a header quotes only its start too
	}
	return v, nil
}

func pyTypeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a bool"
	case int64:
		return "an int"
	case pyTuple:
		return "a tuple"
	case pyList:
		return "a list"
	case pyDict:
		return "a dict"
	case pyNone:
		return "None"
	}
	return "a value"
}

func pyRepr(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(clip(x, 40))
	case bool:
		if x {
			return "True"
		}
		return "False"
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return pyTypeName(v)
}

package parser

import (
	"errors"
	"go/token"

	"octet/hlo"
)

// The readers of single values. Every other package that needs a shape, a layout or a literal from text
// goes through them; errors name positions in the text as "name:line:col".

// ParseShape reads a shape as HLO writes it: f32[2,3]{1,0}, (f32[2], s32[]), token[], pred[<=4].
func ParseShape(text string) (hlo.Shape, error) {
	var s hlo.Shape
	err := parseValue("shape", text, func(p *parser) bool {
		var ok bool
		s, ok = p.shape()
		s = s.Clone()
		return ok
	})
	return s, err
}

// ParseLayout reads the layout of an array of rank rank: {1,0}, {0:T(8,128)(2,1)S(1)}.
func ParseLayout(text string, rank int) (hlo.Layout, error) {
	var l hlo.Layout
	err := parseValue("layout", text, func(p *parser) bool {
		p.skipSpace()
		if p.peek() != '{' {
			p.errorAt(p.off, "expected '{' to open a layout, found %s", p.describe())
			return false
		}
		pl, ok := p.layout(rank)
		if ok {
			l = pl.Clone()
		}
		return ok
	})
	return l, err
}

// ParseLiteral decodes text, a constant's value as HLO writes it ("1", "{1, 2.5}", "{ {1, 2}, {3, 4} }",
// "( {1}, 2 )" for a tuple, "{...}" for unknown values), into a literal of shape s. Integers must fit
// their type and finite numbers must stay finite in theirs.
func ParseLiteral(text string, s hlo.Shape) (*hlo.Literal, error) {
	var lit *hlo.Literal
	err := parseValue("literal", text, func(p *parser) bool {
		lit = p.literal(s)
		return lit != nil
	})
	return lit, err
}

// parseValue runs read on text, which it must consume entirely.
func parseValue(name, text string, read func(p *parser) bool) (err error) {
	fset := token.NewFileSet()
	file := fset.AddFile(name, -1, len(text))
	file.SetLinesForContent([]byte(text))
	p := &parser{src: text, end: len(text), file: file, fset: fset, slabs: &slabs{}}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r) // a bug, not bad input
			}
			err = p.errs.Err()
		}
	}()
	if testHookModule != nil {
		testHookModule()
	}
	ok := read(p)
	if ok {
		p.skipSpace()
		if p.off < p.end {
			p.errorAt(p.off, "unexpected %s after the %s", p.describe(), name)
		}
	}
	if err := p.errs.Err(); err != nil {
		return err
	}
	if !ok {
		return errors.New(name + ": cannot be read")
	}
	return nil
}

package printer

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"octet/hlo"
)

// jsonModule writes the JSON document of m (schema in doc.go).
func (p *printer) jsonModule(m *hlo.Module) {
	text := &printer{cfg: p.cfg}
	text.cfg.PrintPercent = false
	// textValue writes an attribute value as the XLA style would (string values unquoted) as a JSON string.
	textValue := func(v hlo.Value) {
		if s, ok := v.(hlo.String); ok {
			p.jsonString(string(s))
			return
		}
		text.b = text.appendValue(text.b[:0], v)
		p.jsonBytes(text.b)
	}

	p.str(`{"name":`)
	p.jsonString(m.Name)
	if m.Entry != nil {
		p.str(`,"entry":`)
		p.jsonString(m.Entry.Name)
	}
	p.str(`,"attributes":{`)
	n := 0
	attr := func(name string, value hlo.Value) {
		if n > 0 {
			p.byte(',')
		}
		n++
		p.jsonString(name)
		p.byte(':')
		textValue(value)
	}
	computed := m.EntryComputationLayout() == nil && m.Entry != nil
	for _, a := range m.Attrs {
		if computed && !headerFirst[a.Name] {
			ps := m.Entry.ProgramShape()
			attr("entry_computation_layout", &ps)
			computed = false
		}
		attr(a.Name, a.Value)
	}
	if computed {
		ps := m.Entry.ProgramShape()
		attr("entry_computation_layout", &ps)
	}
	p.byte('}')
	if t := m.StackFrames; t != nil && p.cfg.PrintMetadata {
		p.jsonStackFrames(t)
	}
	p.str(`,"computations":[`)
	for i, c := range m.Computations {
		if i > 0 {
			p.byte(',')
		}
		p.str("\n")
		p.jsonComputation(c, textValue)
		p.maybeFlush()
	}
	p.str("\n]}\n")
}

func (p *printer) jsonStackFrames(t *hlo.StackFrameTables) {
	p.str(`,"stack_frames":{"file_names":[`)
	for i, s := range t.FileNames {
		if i > 0 {
			p.byte(',')
		}
		p.jsonString(s)
	}
	p.str(`],"function_names":[`)
	for i, s := range t.FunctionNames {
		if i > 0 {
			p.byte(',')
		}
		p.jsonString(s)
	}
	p.str(`],"file_locations":[`)
	for i, l := range t.FileLocations {
		if i > 0 {
			p.byte(',')
		}
		p.str(`{"file_name_id":`)
		p.int(l.FileNameID)
		p.str(`,"function_name_id":`)
		p.int(l.FunctionNameID)
		p.str(`,"line":`)
		p.int(l.Line)
		p.str(`,"end_line":`)
		p.int(l.EndLine)
		p.str(`,"column":`)
		p.int(l.Column)
		p.str(`,"end_column":`)
		p.int(l.EndColumn)
		p.byte('}')
	}
	p.str(`],"frames":[`)
	for i, f := range t.Frames {
		if i > 0 {
			p.byte(',')
		}
		p.str(`{"file_location_id":`)
		p.int(f.FileLocationID)
		p.str(`,"parent_frame_id":`)
		p.int(f.ParentFrameID)
		p.byte('}')
	}
	p.str(`]}`)
}

func (p *printer) jsonComputation(c *hlo.Computation, textValue func(hlo.Value)) {
	p.str(`{"name":`)
	p.jsonString(c.Name)
	p.str(`,"entry":`)
	p.b = strconv.AppendBool(p.b, c.IsEntry || (c.Module != nil && c.Module.Entry == c))
	p.str(`,"parameters":[`)
	for i, prm := range c.Params {
		if i > 0 {
			p.byte(',')
		}
		if prm == nil {
			p.str("null")
			continue
		}
		p.str(`{"name":`)
		p.jsonString(prm.Name)
		p.str(`,"shape":`)
		p.jsonShape(prm.Shape)
		p.byte('}')
	}
	p.str(`],"result":`)
	if c.Root != nil {
		p.jsonShape(c.Root.Shape)
	} else {
		p.str("null")
	}
	if len(c.Attrs) > 0 {
		p.str(`,"attributes":{`)
		for i, a := range c.Attrs {
			if i > 0 {
				p.byte(',')
			}
			p.jsonString(a.Name)
			p.byte(':')
			textValue(a.Value)
		}
		p.byte('}')
	}
	p.str(`,"instructions":[`)
	for i, in := range c.Instructions {
		if i > 0 {
			p.byte(',')
		}
		p.str("\n ")
		p.jsonInstruction(in, c.Root == in, textValue)
		p.maybeFlush()
	}
	p.str("]}")
}

func (p *printer) jsonInstruction(in *hlo.Instruction, root bool, textValue func(hlo.Value)) {
	p.str(`{"name":`)
	p.jsonString(in.Name)
	p.str(`,"opcode":`)
	if in.AsyncWrapped != hlo.OpInvalid {
		suffix := "-done"
		switch in.Opcode {
		case hlo.OpAsyncStart:
			suffix = "-start"
		case hlo.OpAsyncUpdate:
			suffix = "-update"
		}
		p.jsonString(in.AsyncWrapped.String() + suffix)
	} else {
		p.jsonString(in.Opcode.String())
	}
	p.str(`,"shape":`)
	p.jsonShape(in.Shape)
	if root {
		p.str(`,"root":true`)
	}
	switch in.Opcode {
	case hlo.OpParameter:
		p.str(`,"parameter_number":`)
		p.int(in.ParameterNumber)
	case hlo.OpConstant:
		save := len(p.b)
		p.literal(in)
		lit := string(p.b[save:])
		p.b = p.b[:save]
		p.str(`,"literal":`)
		p.jsonString(lit)
	}
	p.str(`,"operands":[`)
	for i, op := range in.Operands() {
		if i > 0 {
			p.byte(',')
		}
		if op == nil {
			p.str("null")
			continue
		}
		p.jsonString(op.Name)
	}
	p.byte(']')
	var bc *hlo.BackendConfig
	var md hlo.Metadata
	n := 0
	for _, a := range in.Attrs {
		switch v := a.Value.(type) {
		case *hlo.BackendConfig:
			if a.Name == "backend_config" {
				bc = v
				continue
			}
		case hlo.Metadata:
			if a.Name == "metadata" {
				md = v
				continue
			}
		}
		if n == 0 {
			p.str(`,"attributes":{`)
		} else {
			p.byte(',')
		}
		n++
		p.jsonString(a.Name)
		p.byte(':')
		textValue(a.Value)
	}
	if n > 0 {
		p.byte('}')
	}
	if md != nil && p.cfg.PrintMetadata {
		p.str(`,"metadata":{`)
		for i, kv := range md {
			if i > 0 {
				p.byte(',')
			}
			p.jsonString(kv.Key)
			p.byte(':')
			v, _ := md.Get(kv.Key)
			p.jsonString(v)
		}
		p.byte('}')
	}
	if bc != nil && p.cfg.PrintBackendConfig {
		p.str(`,"backend_config":`)
		text := strings.TrimSpace(bc.Text)
		// encoding/json lets bytes that are not UTF-8 through; the document must be UTF-8.
		if json.Valid([]byte(text)) && utf8.ValidString(text) {
			var c bytes.Buffer
			if err := json.Compact(&c, []byte(text)); err == nil {
				p.b = append(p.b, c.Bytes()...)
			} else {
				p.jsonString(bc.Text)
			}
		} else {
			p.jsonString(bc.Text)
		}
	}
	p.byte('}')
}

// jsonShape appends a shape, with layouts, as a JSON string.
func (p *printer) jsonShape(s hlo.Shape) {
	p.noteScratch = appendShape(p.noteScratch[:0], s, true, false)
	p.jsonBytes(p.noteScratch)
}

// jsonBytes appends s as a JSON string.
func (p *printer) jsonBytes(s []byte) {
	p.b = appendJSONString(p.b, s)
}

// jsonString appends s as a JSON string.
func (p *printer) jsonString(s string) {
	p.b = appendJSONString(p.b, s)
}

// appendJSONString appends s as a JSON string: quotes, backslashes and control characters escaped,
// invalid UTF-8 replaced by U+FFFD.
func appendJSONString[S ~string | ~[]byte](b []byte, s S) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, `\n`...)
			case '\r':
				b = append(b, `\r`...)
			case '\t':
				b = append(b, `\t`...)
			default:
				b = append(b, `\u00`...)
				b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune([]byte(s[i:min(i+utf8.UTFMax, len(s))]))
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

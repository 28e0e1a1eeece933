package parser

import "octet/hlo"

// checkOperation checks a just-read instruction against its opcode's entry in the operation table:
// problems of the instruction as a whole are reported at its opcode (opOff), those of one attribute at the
// attribute's name, searched for in the text from attrOff.
func (p *parser) checkOperation(in *hlo.Instruction, opOff, attrOff int) {
	n := in.NumOperands()
	if n == 0 {
		if ops, ok := p.pendingOps[in]; ok {
			n = len(ops)
		}
	}
	hlo.CheckOperation(in, n, func(attr int, msg string) {
		off := opOff
		if attr >= 0 {
			off = p.attrNameOffset(attrOff, in.Attrs[attr].Name)
		}
		p.errorAt(off, "%s", msg)
	})
}

// attrNameOffset returns the offset of the attribute named name in the ", name=value" list that starts at
// off, skipping over nested values and strings; off when it is not found.
func (p *parser) attrNameOffset(off int, name string) int {
	depth := 0
	for i := off; i < p.end; i++ {
		switch c := p.src[i]; c {
		case '{', '[', '(':
			depth++
		case '}', ']', ')':
			depth--
			if depth < 0 {
				return off
			}
		case '"':
			e, ok := p.stringEnd(i)
			if !ok {
				return off
			}
			i = e - 1
		case ',':
			if depth != 0 {
				continue
			}
			j := i + 1
			for j < p.end && (p.src[j] == ' ' || p.src[j] == '\t') {
				j++
			}
			k := j
			for k < p.end && isNameByte(p.src[k]) {
				k++
			}
			if p.src[j:k] == name {
				return j
			}
		}
	}
	return off
}

// opcodeCache remembers the opcodes last read, by a hash of their spelling: a module uses a few opcodes
// over and over.
type opcodeCache [64]struct {
	name        string
	op, wrapped hlo.Opcode
}

// opcode returns the opcode spelled name and, for XLA's async syntax sugar, the opcode it wraps.
func (p *parser) opcode(name string) (op, wrapped hlo.Opcode, ok bool) {
	if name == "" {
		return hlo.OpInvalid, hlo.OpInvalid, false
	}
	e := &p.opcodes[(len(name)*7+int(name[0])*3+int(name[len(name)/2])+int(name[len(name)-1])*5)&(len(p.opcodes)-1)]
	if e.name == name {
		return e.op, e.wrapped, true
	}
	op, ok = hlo.LookupOpcode(name)
	if !ok {
		op, wrapped, ok = asyncSugar(name)
	}
	if ok {
		e.name, e.op, e.wrapped = name, op, wrapped
	}
	return op, wrapped, ok
}

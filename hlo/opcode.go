package hlo

// String returns the name of op in HLO text.
func (op Opcode) String() string {
	if op < numOpcodes {
		return opcodeNames[op]
	}
	return "invalid"
}

var opcodeByName = func() map[string]Opcode {
	m := make(map[string]Opcode, numOpcodes)
	for op := OpInvalid + 1; op < numOpcodes; op++ {
		m[opcodeNames[op]] = op
	}
	return m
}()

// LookupOpcode returns the opcode named name in HLO text.
func LookupOpcode(name string) (Opcode, bool) {
	op, ok := opcodeByName[name]
	return op, ok
}

// IsElementwiseUnary reports whether op maps each element of its one operand to one result element.
func (op Opcode) IsElementwiseUnary() bool {
	info := op.Info()
	return info != nil && info.Elementwise && info.Operands == fixed(1)
}

// IsElementwiseBinary reports whether op combines two same-shaped operands element by element.
func (op Opcode) IsElementwiseBinary() bool {
	info := op.Info()
	return info != nil && info.Elementwise && info.Operands == fixed(2)
}

// IsElementwise reports whether op computes each result element from the same-index elements of its
// operands (select and clamp included).
func (op Opcode) IsElementwise() bool {
	info := op.Info()
	return info != nil && info.Elementwise
}

// IsCommutative reports whether a binary op gives the same result with its operands swapped.
func (op Opcode) IsCommutative() bool {
	info := op.Info()
	return info != nil && info.Commutative
}

// Opcodes returns every valid opcode, in the order of the Opcode constants.
func Opcodes() []Opcode {
	ops := make([]Opcode, 0, numOpcodes-1)
	for op := OpInvalid + 1; op < numOpcodes; op++ {
		ops = append(ops, op)
	}
	return ops
}

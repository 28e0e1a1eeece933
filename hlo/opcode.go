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
	switch op {
	case OpAbs, OpAcos, OpAcosh, OpAsin, OpAsinh, OpAtan, OpAtanh, OpCbrt, OpCeil, OpClz, OpCos, OpCosh,
		OpErf, OpExp, OpExpm1, OpFloor, OpImag, OpIsFinite, OpLog, OpLog1p, OpLogistic, OpNegate, OpNot,
		OpPopulationCount, OpReal, OpRoundNearestAfz, OpRoundNearestEven, OpRsqrt, OpSign, OpSin, OpSinh,
		OpSqrt, OpTan, OpTanh, OpConvert, OpBitcastConvert, OpReducePrecision, OpCopy:
		return true
	}
	return false
}

// IsElementwiseBinary reports whether op combines two same-shaped operands element by element.
func (op Opcode) IsElementwiseBinary() bool {
	switch op {
	case OpAdd, OpAtan2, OpComplex, OpDivide, OpMaximum, OpMinimum, OpMulhi, OpMultiply, OpPower,
		OpRemainder, OpSubtract, OpAnd, OpOr, OpXor, OpShiftLeft, OpShiftRightArithmetic,
		OpShiftRightLogical, OpCompare, OpStochasticConvert:
		return true
	}
	return false
}

// IsCommutative reports whether a binary op gives the same result with its operands swapped.
func (op Opcode) IsCommutative() bool {
	switch op {
	case OpAdd, OpMultiply, OpMulhi, OpMaximum, OpMinimum, OpAnd, OpOr, OpXor:
		return true
	}
	return false
}

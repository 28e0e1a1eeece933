package hlo

// inferScaledDot infers the shape of scaled-dot(lhs, rhs, lhs_scale, rhs_scale): the dot of lhs and rhs
// by its dimension numbers, each scale of rank 0 (unused) or of its operand's rank with every dimension
// dividing the operand's (the block along it being the quotient), as XLA's ScaledDotRewriter requires
// (CheckOperandAndScaleShapes).
func inferScaledDot(in *Instruction) (Shape, error) {
	op := in.Opcode
	if err := wantOperands(in, 4); err != nil {
		return Shape{}, err
	}
	for i, name := range []string{"lhs_scale", "rhs_scale"} {
		x, s := in.operands[i].Shape, in.operands[2+i].Shape
		if err := wantArray(op, name, s); err != nil {
			return Shape{}, err
		}
		if !s.Elem.IsFloat() {
			return Shape{}, errorf(op, "the %s %s is not a float", name, s.String())
		}
		if s.Rank() == 0 || !x.IsArray() {
			continue
		}
		if s.Rank() != x.Rank() {
			return Shape{}, errorf(op, "the %s %s and its operand %s differ in rank", name, s.String(), x.String())
		}
		for d := range s.Dims {
			if s.Dims[d] <= 0 || x.Dims[d]%s.Dims[d] != 0 {
				return Shape{}, errorf(op, "dimension %d of the %s %s does not divide its operand's %s", d, name, s.String(), x.String())
			}
		}
	}
	dot := &Instruction{Opcode: op, Shape: in.Shape, Attrs: in.Attrs, operands: in.operands[:2]}
	return inferDot(dot)
}

package match

import "octet/hlo"

// Dequantize is the dequantize on the way from an FP8 value to the GEMM that reads it: converts to wider
// types, and at most one scale step, a multiply or divide by a broadcast scalar, after the first convert.
type Dequantize struct {
	// Converts are the converts on the way, FP8 side first.
	Converts []*hlo.Instruction
	// Scale is the scale step (nil when there is none), Factor the scalar it multiplies or divides by, and
	// Divide is set when it divides.
	Scale, Factor *hlo.Instruction
	Divide        bool
}

// FirstConvert returns the first convert, where the dequantize begins, or nil when there is none.
func (d *Dequantize) FirstConvert() *hlo.Instruction {
	if len(d.Converts) == 0 {
		return nil
	}
	return d.Converts[0]
}

// ScaleMultiply is the pattern of a multiplying scale step, multiply(x, broadcast(s)) in either operand
// order, with x not itself a broadcast scalar and s a scalar. A nil x or s stands for any instruction.
func ScaleMultiply(x, s *Pattern) *Pattern {
	if x == nil {
		x = Op()
	}
	return Multiply(x.Where("not a broadcast scalar", notBroadcastScalar), BroadcastScalar(s))
}

// ScaleDivide is the pattern of a dividing scale step, divide(x, broadcast(s)) with s a scalar. A nil x or
// s stands for any instruction.
func ScaleDivide(x, s *Pattern) *Pattern { return Divide(x, BroadcastScalar(s)) }

func notBroadcastScalar(in *hlo.Instruction) bool {
	return in.Opcode != hlo.OpBroadcast || !in.Operand(0).Shape.IsScalar()
}

// ConvertedScaleMultiply is the pattern of a multiplying scale step whose per-tensor scale is converted
// after its broadcast, multiply(x, convert(broadcast(s))) in either operand order: one value everywhere,
// s rounded to the multiply's type. A nil x or s stands for any instruction.
func ConvertedScaleMultiply(x, s *Pattern) *Pattern {
	if x == nil {
		x = Op()
	}
	return Multiply(x.Where("not a per-tensor scale", notPerTensor), convertedScalar(s))
}

// ConvertedScaleDivide is divide(x, convert(broadcast(s))) with s a scalar.
func ConvertedScaleDivide(x, s *Pattern) *Pattern { return Divide(x, convertedScalar(s)) }

func convertedScalar(s *Pattern) *Pattern {
	return Convert(BroadcastScalar(s)).Where("float from float", func(in *hlo.Instruction) bool {
		return in.Shape.Elem.IsFloat() && in.Operand(0).Shape.Elem.IsFloat()
	})
}

func notPerTensor(in *hlo.Instruction) bool {
	if in.Opcode == hlo.OpConvert {
		in = in.Operand(0)
	}
	return notBroadcastScalar(in)
}

// ScaleStep recognises the scale step of a dequantize, multiply(x, broadcast(s)) or divide(x,
// broadcast(s)) with s a scalar, the broadcast possibly converted (convert(broadcast(s))). It returns the
// data operand x and the scalar s, and reports whether the step divides and whether in is one. When the
// broadcast is converted, s is to be rounded to in's type before use.
func ScaleStep(in *hlo.Instruction) (x, factor *hlo.Instruction, divide, ok bool) {
	switch {
	case Match(in, ScaleMultiply(Op().Bind(&x), Op().Bind(&factor))),
		Match(in, ConvertedScaleMultiply(Op().Bind(&x), Op().Bind(&factor))):
		return x, factor, false, true
	case Match(in, ScaleDivide(Op().Bind(&x), Op().Bind(&factor))),
		Match(in, ConvertedScaleDivide(Op().Bind(&x), Op().Bind(&factor))):
		return x, factor, true, true
	}
	return nil, nil, false, false
}

// FindDequantize reads the dequantize on chain, the instructions from an FP8 value (excluded) to the GEMM,
// FP8 side first: every convert, and the first scale step after the first convert.
func FindDequantize(chain []*hlo.Instruction) Dequantize {
	var d Dequantize
	for _, in := range chain {
		if in.Opcode == hlo.OpConvert {
			d.Converts = append(d.Converts, in)
			continue
		}
		if d.Scale == nil && len(d.Converts) > 0 {
			if _, factor, divide, ok := ScaleStep(in); ok {
				d.Scale, d.Factor, d.Divide = in, factor, divide
			}
		}
	}
	return d
}

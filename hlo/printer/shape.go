package printer

import (
	"strconv"

	"octet/dtype"
	"octet/hlo"
)

// ShapeString returns a shape as XLA writes it: f32[2,3]{1,0} with the layout, f32[2,3] without.
// Tuples write /*index=N*/ before every fifth element, as XLA does.
func ShapeString(s hlo.Shape, withLayout bool) string {
	return string(appendShape(nil, s, withLayout, false))
}

// appendShape appends s; omitDefault leaves out layouts that are the plain row-major order.
func appendShape(b []byte, s hlo.Shape, withLayout, omitDefault bool) []byte {
	switch s.Kind {
	case hlo.TupleShape:
		b = append(b, '(')
		for i, e := range s.Tuple {
			if i > 0 {
				b = appendSeparator(b, i, 5)
			}
			b = appendShape(b, e, withLayout, omitDefault)
		}
		return append(b, ')')
	case hlo.TokenShape:
		return append(b, "token[]"...)
	case hlo.OpaqueShape:
		return append(b, "opaque[]"...)
	case hlo.BufferShape:
		b = append(b, "b("...)
		if len(s.Tuple) > 0 {
			b = appendShape(b, s.Tuple[0], withLayout, omitDefault)
		}
		return append(b, ')')
	}
	b = append(b, s.Elem.String()...)
	b = append(b, '[')
	for i, d := range s.Dims {
		if i > 0 {
			b = append(b, ',')
		}
		switch {
		case d == hlo.UnboundedDim:
			b = append(b, '?')
		case s.Dynamic != nil && i < len(s.Dynamic) && s.Dynamic[i]:
			b = append(b, "<="...)
			b = strconv.AppendInt(b, d, 10)
		default:
			b = strconv.AppendInt(b, d, 10)
		}
	}
	b = append(b, ']')
	if !withLayout || s.Layout == nil {
		return b
	}
	l := s.Layout
	if len(s.Dims) == 0 {
		// XLA leaves out a scalar's layout when it would print as "{}".
		if len(l.MinorToMajor) == 0 && l.OnlyMinorToMajor() {
			return b
		}
	} else if omitDefault && len(l.MinorToMajor) == len(s.Dims) && l.IsDefault() {
		return b
	}
	return appendLayout(b, l)
}

// appendSeparator appends ", " before element i of a list, or ", /*index=i*/" when i is a multiple of
// interval (0: never).
func appendSeparator(b []byte, i, interval int) []byte {
	if interval > 0 && i%interval == 0 {
		b = append(b, ", /*index="...)
		b = strconv.AppendInt(b, int64(i), 10)
		return append(b, "*/"...)
	}
	return append(b, ", "...)
}

// appendLayout appends a layout in the field order of XLA's Layout::Print.
func appendLayout(b []byte, l *hlo.Layout) []byte {
	b = append(b, '{')
	b = appendInts(b, l.MinorToMajor, ",")
	colon := false
	field := func(name string) {
		if !colon {
			b = append(b, ':')
			colon = true
		}
		b = append(b, name...)
	}
	if len(l.DimLevelTypes) > 0 {
		field("D(")
		for i, t := range l.DimLevelTypes {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, t...)
		}
		b = append(b, ')')
	}
	if len(l.Tiles) > 0 {
		field("T")
		for _, t := range l.Tiles {
			b = append(b, '(')
			for i, d := range t {
				if i > 0 {
					b = append(b, ',')
				}
				if d == hlo.CombineDim {
					b = append(b, '*')
				} else {
					b = strconv.AppendInt(b, d, 10)
				}
			}
			b = append(b, ')')
		}
	}
	if l.TailPaddingAlignment != 0 && l.TailPaddingAlignment != 1 {
		field("L(")
		b = strconv.AppendInt(b, l.TailPaddingAlignment, 10)
		b = append(b, ')')
	}
	if l.IndexType != dtype.Invalid {
		field("#(")
		b = append(b, l.IndexType.String()...)
		b = append(b, ')')
	}
	if l.PointerType != dtype.Invalid {
		field("*(")
		b = append(b, l.PointerType.String()...)
		b = append(b, ')')
	}
	if l.ElementSizeBits != 0 {
		field("E(")
		b = strconv.AppendInt(b, l.ElementSizeBits, 10)
		b = append(b, ')')
	}
	if l.MemorySpace != 0 {
		field("S(")
		b = strconv.AppendInt(b, l.MemorySpace, 10)
		b = append(b, ')')
	}
	if len(l.SplitConfigs) > 0 {
		field("SC")
		for _, sc := range l.SplitConfigs {
			b = append(b, '(')
			b = strconv.AppendInt(b, sc.Dimension, 10)
			b = append(b, ':')
			b = appendInts(b, sc.SplitIndices, ",")
			b = append(b, ')')
		}
	}
	if l.PhysicalShape != nil {
		field("P(")
		b = appendShape(b, *l.PhysicalShape, true, false)
		b = append(b, ')')
	}
	if l.DynamicShapeMetadataPrefixBytes > 0 {
		field("M(")
		b = strconv.AppendInt(b, l.DynamicShapeMetadataPrefixBytes, 10)
		b = append(b, ')')
	}
	return append(b, '}')
}

func appendInts(b []byte, l []int64, sep string) []byte {
	for i, v := range l {
		if i > 0 {
			b = append(b, sep...)
		}
		b = strconv.AppendInt(b, v, 10)
	}
	return b
}

// appendProgramShape appends a computation signature "(a: f32[2], b: s32[]) -> f32[2]" (no layouts).
func appendProgramShape(b []byte, c *hlo.Computation, withLayout, omitDefault bool) []byte {
	b = append(b, '(')
	for i, p := range c.Params {
		if i > 0 {
			b = append(b, ", "...)
		}
		if p == nil {
			b = append(b, "(unknown): "...)
			continue
		}
		b = append(b, p.Name...)
		b = append(b, ": "...)
		b = appendShape(b, p.Shape, withLayout, omitDefault)
	}
	b = append(b, ") -> "...)
	if c.Root != nil {
		b = appendShape(b, c.Root.Shape, withLayout, omitDefault)
	}
	return b
}

// appendComputationLayout appends an entry_computation_layout value without its braces:
// (f32[2]{0}, /*index=5*/...)->f32[2]{0}.
func appendComputationLayout(b []byte, ps *hlo.ProgramShape) []byte {
	b = append(b, '(')
	for i, s := range ps.Params {
		if i > 0 {
			b = appendSeparator(b, i, 5)
		}
		b = appendShape(b, s, true, false)
	}
	b = append(b, ")->"...)
	return appendShape(b, ps.Result, true, false)
}

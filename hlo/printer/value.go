package printer

import (
	"math"
	"strconv"

	"octet/hlo"
	"octet/internal/cstring"
	"octet/internal/safetext"
)

// value prints an attribute value in the text form attr.go documents; the readable style escapes what
// the module's strings hold (raw backend configs, metadata and frontend attribute values as written).
func (p *printer) value(v hlo.Value) {
	start := len(p.b)
	p.b = p.appendValue(p.b, v)
	p.escapeFrom(start)
}

func (p *printer) appendValue(b []byte, v hlo.Value) []byte {
	switch v := v.(type) {
	case hlo.Raw:
		return append(b, v...)
	case *hlo.ShapedLiteral:
		b = appendShape(b, v.Shape, true, false)
		b = append(b, ' ')
		return appendLiteral(b, v.Literal, v.Shape)
	case hlo.Int:
		return strconv.AppendInt(b, int64(v), 10)
	case hlo.Float:
		return append(b, SixDigits(float64(v))...)
	case hlo.Bool:
		return strconv.AppendBool(b, bool(v))
	case hlo.Ints:
		b = append(b, '{')
		b = appendInts(b, v, ",")
		return append(b, '}')
	case hlo.IntLists:
		return appendIntLists(b, v)
	case hlo.String:
		return appendQuoted(b, string(v))
	case hlo.Enum:
		return append(b, v...)
	case hlo.CompRef:
		if v.Comp == nil {
			return b
		}
		return p.appendName(b, v.Comp.Name)
	case hlo.CompList:
		b = append(b, '{')
		for i, c := range v {
			if i > 0 {
				b = append(b, ", "...)
			}
			if c != nil {
				b = p.appendName(b, c.Name)
			}
		}
		return append(b, '}')
	case hlo.InstList:
		b = append(b, '{')
		for i, in := range v {
			if i > 0 {
				b = append(b, ", "...)
			}
			if in != nil {
				b = p.appendName(b, in.Name)
			}
		}
		return append(b, '}')
	case hlo.Slice:
		return appendSlice(b, v)
	case hlo.Padding:
		return appendPadding(b, v)
	case hlo.Window:
		return appendWindow(b, v)
	case *hlo.ConvDims:
		return appendConvDims(b, v)
	case *hlo.BackendConfig:
		// The readable style escapes what a raw config holds that it does not show (a newline, a control
		// character): written raw, the escapes would read back as themselves. Quoted, they are the
		// string's escapes, which the parser undoes.
		if cstring.LexesAsJSONDict(v.Text) && !(p.readable() && safetext.Escape(v.Text) != v.Text) {
			return append(b, v.Text...)
		}
		return appendQuoted(b, v.Text)
	case hlo.Metadata:
		b = append(b, '{')
		for i, kv := range v {
			if i > 0 {
				b = append(b, ' ')
			}
			b = append(b, kv.Key...)
			b = append(b, '=')
			b = p.appendMetadataValue(b, kv)
		}
		return append(b, '}')
	case hlo.FrontendAttributes:
		return appendKVs(b, v, ',')
	case *hlo.ReplicaGroups:
		return p.appendReplicaGroups(b, v)
	case *hlo.Sharding:
		return appendControlsEscaped(b, v.Text)
	case hlo.Aliasing:
		b = append(b, '{')
		for i, a := range v {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, '{')
			b = appendInts(b, a.Output, ",")
			b = append(b, "}: ("...)
			b = strconv.AppendInt(b, a.Operand, 10)
			b = append(b, ", {"...)
			b = appendInts(b, a.OperandIndex, ",")
			b = append(b, "})"...)
		}
		return append(b, '}')
	case *hlo.ProgramShape:
		b = append(b, '{')
		b = appendComputationLayout(b, v)
		return append(b, '}')
	case hlo.Enums:
		b = append(b, '{')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, e...)
		}
		return append(b, '}')
	case hlo.Shapes:
		b = append(b, '{')
		for i, s := range v {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendShape(b, s, true, false)
		}
		return append(b, '}')
	case hlo.InputOutputAliasing:
		if len(v) == 0 {
			return append(b, "{}"...)
		}
		b = append(b, "{ "...)
		for i, a := range v {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, '{')
			b = appendInts(b, a.Output, ",")
			b = append(b, "}: ("...)
			b = strconv.AppendInt(b, a.Parameter, 10)
			b = append(b, ", {"...)
			b = appendInts(b, a.ParameterIndex, ",")
			b = append(b, '}')
			if a.Kind != hlo.AliasUnspecified {
				b = append(b, ", "...)
				b = append(b, a.Kind.String()...)
			}
			b = append(b, ')')
		}
		return append(b, " }"...)
	case hlo.BufferDonors:
		if len(v) == 0 {
			return append(b, "{}"...)
		}
		b = append(b, "{ "...)
		for i, d := range v {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, '(')
			b = strconv.AppendInt(b, d.Parameter, 10)
			b = append(b, ", {"...)
			b = appendInts(b, d.ParameterIndex, ",")
			b = append(b, "})"...)
		}
		return append(b, " }"...)
	}
	return b
}

func (p *printer) appendName(b []byte, name string) []byte {
	if p.cfg.PrintPercent {
		b = append(b, '%')
	}
	return append(b, name...)
}

func appendIntLists(b []byte, ll [][]int64) []byte {
	b = append(b, '{')
	for i, l := range ll {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		b = appendInts(b, l, ",")
		b = append(b, '}')
	}
	return append(b, '}')
}

// appendSlice writes {[0:2], [1:7:2]}: XLA writes the strides of every dimension, or of none when they
// are all 1.
func appendSlice(b []byte, s hlo.Slice) []byte {
	strides := false
	for _, d := range s {
		if d.Stride != 1 {
			strides = true
		}
	}
	b = append(b, '{')
	for i, d := range s {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, d.Start, 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, d.Limit, 10)
		if strides {
			b = append(b, ':')
			b = strconv.AppendInt(b, d.Stride, 10)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendPadding writes low_high per dimension joined by x, with _interior on every dimension when any is
// non-zero.
func appendPadding(b []byte, pad hlo.Padding) []byte {
	interior := false
	for _, d := range pad {
		if d.Interior != 0 {
			interior = true
		}
	}
	for i, d := range pad {
		if i > 0 {
			b = append(b, 'x')
		}
		b = strconv.AppendInt(b, d.Low, 10)
		b = append(b, '_')
		b = strconv.AppendInt(b, d.High, 10)
		if interior {
			b = append(b, '_')
			b = strconv.AppendInt(b, d.Interior, 10)
		}
	}
	return b
}

// appendWindow writes {size=... stride=... pad=... lhs_dilate=... rhs_dilate=... rhs_reversal=...}, each
// field after size only when some dimension differs from the default.
func appendWindow(b []byte, w hlo.Window) []byte {
	var stride, pad, lhs, rhs, rev bool
	for _, d := range w {
		stride = stride || d.Stride != 1
		pad = pad || d.PadLow != 0 || d.PadHigh != 0
		lhs = lhs || d.BaseDilation != 1
		rhs = rhs || d.WindowDilation != 1
		rev = rev || d.Reversal
	}
	b = append(b, '{')
	field := func(name string, first bool, f func(d hlo.WindowDim)) {
		if !first {
			b = append(b, ' ')
		}
		b = append(b, name...)
		b = append(b, '=')
		for i, d := range w {
			if i > 0 {
				b = append(b, 'x')
			}
			f(d)
		}
	}
	if len(w) > 0 {
		field("size", true, func(d hlo.WindowDim) { b = strconv.AppendInt(b, d.Size, 10) })
		if stride {
			field("stride", false, func(d hlo.WindowDim) { b = strconv.AppendInt(b, d.Stride, 10) })
		}
		if pad {
			field("pad", false, func(d hlo.WindowDim) {
				b = strconv.AppendInt(b, d.PadLow, 10)
				b = append(b, '_')
				b = strconv.AppendInt(b, d.PadHigh, 10)
			})
		}
		if lhs {
			field("lhs_dilate", false, func(d hlo.WindowDim) { b = strconv.AppendInt(b, d.BaseDilation, 10) })
		}
		if rhs {
			field("rhs_dilate", false, func(d hlo.WindowDim) { b = strconv.AppendInt(b, d.WindowDilation, 10) })
		}
		if rev {
			field("rhs_reversal", false, func(d hlo.WindowDim) {
				if d.Reversal {
					b = append(b, '1')
				} else {
					b = append(b, '0')
				}
			})
		}
	}
	return append(b, '}')
}

// appendConvDims writes dim_labels: b01f_01io->b01f.
func appendConvDims(b []byte, cd *hlo.ConvDims) []byte {
	labels := func(x, y int64, xc, yc byte, spatial []int64) {
		n := 2 + len(spatial)
		l := make([]string, n)
		set := func(i int64, s string) {
			if i >= 0 && i < int64(n) {
				l[i] = s
			}
		}
		set(x, string(xc))
		set(y, string(yc))
		for i, d := range spatial {
			set(d, strconv.Itoa(i))
		}
		for _, s := range l {
			if s == "" {
				s = "?"
			}
			b = append(b, s...)
		}
	}
	labels(cd.InputBatch, cd.InputFeature, 'b', 'f', cd.InputSpatial)
	b = append(b, '_')
	labels(cd.KernelInputFeature, cd.KernelOutput, 'i', 'o', cd.KernelSpatial)
	b = append(b, "->"...)
	labels(cd.OutputBatch, cd.OutputFeature, 'b', 'f', cd.OutputSpatial)
	return b
}

func appendKVs(b []byte, kvs []hlo.KV, sep byte) []byte {
	b = append(b, '{')
	for i, kv := range kvs {
		if i > 0 {
			b = append(b, sep)
		}
		b = append(b, kv.Key...)
		b = append(b, '=')
		b = appendControlsEscaped(b, kv.Value)
	}
	return append(b, '}')
}

// cEscapedMetadata reports whether key is a string field of OpMetadata that XLA's printer writes through
// absl::CEscape: OpMetadataToString (xla/hlo/ir/hlo_op_metadata.cc, openxla/xla at
// d4ebeaacf601798fbfff586d446779ec34537622) appends "op_name=\"" + absl::CEscape(op_name) + "\"", and so
// op_type, source_file and deduplicated_name; HloInstruction::PrintExtraAttributes calls it for
// "metadata={...}". XLA's lexer has undone the text's escapes (HloLexer::LexString: absl::CUnescape), so
// whatever the text wrote (raw UTF-8, \x escapes, a raw ') XLA prints CEscape's form: \n \r \t \" \' \\
// by name and every other byte outside printable ASCII, each byte of a UTF-8 character too, in octal
// (CEscape, not Utf8SafeCEscape). Later versions add scheduling_name, which they write without escaping;
// it, and any field not named here, is printed as written.
func cEscapedMetadata(key string) bool {
	switch key {
	case "op_type", "op_name", "source_file", "deduplicated_name":
		return true
	}
	return false
}

// appendMetadataValue appends the value of a metadata field: a string XLA escapes as XLA prints it in the
// XLA styles and, in the readable style, with printable Unicode as it is (appendReadableQuoted). Both
// read back to the string's bytes. Other values are written as appendControlsEscaped writes them.
func (p *printer) appendMetadataValue(b []byte, kv hlo.KV) []byte {
	v := kv.Value
	if !cEscapedMetadata(kv.Key) || len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return appendControlsEscaped(b, v)
	}
	inner := v[1 : len(v)-1]
	if cEscapeFixed(inner) {
		return append(b, v...) // as CEscape writes it, and nothing for the readable style to show otherwise
	}
	s := cstring.Unescape(inner)
	if p.readable() {
		return appendReadableQuoted(b, s)
	}
	return appendQuoted(b, s)
}

// cEscapeFixed reports whether s, the inside of a quoted string, is printable ASCII without a backslash or
// a quote: its own value, which CEscape leaves as it is.
func cEscapeFixed(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '\\' || c == '\'' || c == '"' {
			return false
		}
	}
	return true
}

// appendControlsEscaped appends text kept as written (a metadata value, a sharding), the raw control bytes
// of its quoted strings written as escapes (a string's own escapes are plain ASCII), as XLA's printer
// writes them (CEscape: \n, \r, \t, else octal): a module's text never forges a line or sends a terminal
// control sequence from a string. Outside strings the text is left as it is.
func appendControlsEscaped(b []byte, text string) []byte {
	quoted := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case !quoted:
			quoted = c == '"'
			b = append(b, c)
		case c == '\\' && i+1 < len(text):
			b = append(b, c, text[i+1])
			i++
		case c == '"':
			quoted = false
			b = append(b, c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20 || c == 0x7f:
			b = append(b, '\\', '0'+c>>6, '0'+c>>3&7, '0'+c&7)
		default:
			b = append(b, c)
		}
	}
	return b
}

// appendReplicaGroups writes the explicit form {{0,1},{2,3}}, the iota form [2,4]<=[4,2]T(1,0) (expanded
// when PrintFullReplicaGroupList is set), or the mesh form as written.
func (p *printer) appendReplicaGroups(b []byte, rg *hlo.ReplicaGroups) []byte {
	switch {
	case rg.Mesh != "":
		return append(b, rg.Mesh...)
	case rg.Iota != nil && p.cfg.PrintFullReplicaGroupList:
		if groups, ok := rg.Iota.Groups(1 << 20); ok {
			return appendIntLists(b, groups)
		}
		fallthrough
	case rg.Iota != nil:
		return appendIotaList(b, rg.Iota.Dims, rg.Iota)
	}
	return appendIntLists(b, rg.Groups)
}

// appendIotaList writes the iota list il with dimensions dims: [dims]<=[reshape], then T(perm) where
// il.Transpose is not nil.
func appendIotaList(b []byte, dims []int64, il *hlo.IotaList) []byte {
	b = append(b, '[')
	b = appendInts(b, dims, ",")
	b = append(b, "]<=["...)
	b = appendInts(b, il.ReshapeDims, ",")
	b = append(b, ']')
	if il.Transpose != nil {
		b = append(b, "T("...)
		b = appendInts(b, il.Transpose, ",")
		b = append(b, ')')
	}
	return b
}

// SixDigits writes a number as XLA's absl::StrCat does (epsilon=0.001, statistics): %g with six significant
// digits, and nan, inf, -inf.
func SixDigits(v float64) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

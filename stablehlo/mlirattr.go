package stablehlo

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"octet/dtype"
	"octet/hlo"
)

// mlirAttr writes an attribute as MLIR prints it: what XLA's translation stores for attributes it keeps as
// text (a typed FFI custom call's backend_config dictionary, Shardy's sharding rules in frontend
// attributes). Dictionaries are sorted by name, integers carry their type, strings are escaped as MLIR
// escapes them.
func mlirAttr(a Attr) string {
	var b strings.Builder
	writeMLIRAttr(&b, a, 0)
	return b.String()
}

func writeMLIRAttr(b *strings.Builder, a Attr, depth int) {
	if depth > maxDepth {
		b.WriteString("...")
		return
	}
	switch a := a.(type) {
	case IntAttr:
		b.WriteString(strconv.FormatInt(a.V, 10))
		t := a.Type
		if t == "" {
			t = "i64"
		}
		b.WriteString(" : " + t)
	case FloatAttr:
		b.WriteString(mlirFloat(a.V))
		if a.Type != "" && a.Type != "f64" {
			b.WriteString(" : " + a.Type)
		}
	case BoolAttr:
		b.WriteString(strconv.FormatBool(bool(a)))
	case StringAttr:
		b.WriteString(mlirString(string(a)))
	case SymbolAttr:
		b.WriteString("@" + string(a))
	case ListAttr:
		b.WriteByte('[')
		for i, e := range a {
			if i > 0 {
				b.WriteString(", ")
			}
			writeMLIRAttr(b, e, depth+1)
		}
		b.WriteByte(']')
	case DictAttr:
		sorted := append(DictAttr(nil), a...)
		sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
		b.WriteByte('{')
		for i, kv := range sorted {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(mlirName(kv.Name))
			b.WriteString(" = ")
			writeMLIRAttr(b, kv.Value, depth+1)
		}
		b.WriteByte('}')
	case ArrayAttr:
		b.WriteString("array<" + a.Elem)
		if len(a.Vals) > 0 {
			b.WriteString(": ")
			for i, v := range a.Vals {
				if i > 0 {
					b.WriteString(", ")
				}
				switch {
				case a.Elem == "i1":
					b.WriteString(strconv.FormatBool(v != 0))
				case strings.HasPrefix(a.Elem, "f"):
					b.WriteString(mlirFloat(math.Float64frombits(uint64(v))))
				default:
					b.WriteString(strconv.FormatInt(v, 10))
				}
			}
		}
		b.WriteByte('>')
	case *DenseAttr:
		b.WriteString(denseText(a))
	case EnumAttr:
		b.WriteString("#" + a.Kind + "<" + a.Word + ">")
	case StructAttr:
		if a.Raw != "" || a.Fields == nil {
			b.WriteString("#" + a.Name + "<" + a.Raw + ">")
			return
		}
		b.WriteString("#" + a.Name + "<")
		for i, f := range a.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(f.Name + " = ")
			writeMLIRAttr(b, f.Value, depth+1)
		}
		b.WriteByte('>')
	case TypeAttr:
		b.WriteString(typeString(hloShape(a)))
	case WordAttr:
		b.WriteString(string(a))
	case RawAttr:
		b.WriteString(string(a))
	case *TensorSharding:
		b.WriteString(a.String())
	case Shardings:
		b.WriteString(a.String())
	case *Mesh:
		b.WriteString("#sdy.mesh<" + a.String() + ">")
	case ManualAxes:
		b.WriteString(a.String())
	case FuncTypeAttr:
		b.WriteString("(")
		for i, t := range a.In {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(typeString(t))
		}
		b.WriteString(") -> (")
		for i, t := range a.Out {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(typeString(t))
		}
		b.WriteString(")")
	case DimsAttr:
		b.WriteString("[" + joinInts(a.LHS, ", ") + "] x [" + joinInts(a.RHS, ", ") + "]")
	case SubAxisAttr:
		b.WriteString("(" + strconv.FormatInt(a.PreSize, 10) + ")" + strconv.FormatInt(a.Size, 10))
	default:
		b.WriteString("?")
	}
}

// mlirName writes an attribute name, quoted when it is not a bare identifier.
func mlirName(n string) string {
	if n != "" && isIdentStart(n[0]) {
		ok := true
		for i := 0; i < len(n); i++ {
			c := n[i]
			ok = ok && (isIdentStart(c) || isDigit(c) || c == '.' || c == '$')
		}
		if ok {
			return n
		}
	}
	return mlirString(n)
}

// mlirString quotes s as MLIR does: printable ASCII as is, '"' and '\' and every other byte as \XX.
func mlirString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			b.WriteString(`\\`)
		case c == '"' || c < 0x20 || c >= 0x7f:
			b.WriteByte('\\')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// mlirFloat writes a float as MLIR does: 1.000000e+00 when six decimals give it back, else the shortest
// form that does.
func mlirFloat(v float64) string {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	s := strconv.FormatFloat(v, 'e', 6, 64)
	if f, err := strconv.ParseFloat(s, 64); err == nil && f == v {
		return s
	}
	return strconv.FormatFloat(v, 'e', -1, 64)
}

func hloShape(t TypeAttr) hlo.Shape { return hlo.Shape(t) }

// denseText writes a dense attribute as MLIR does: dense<v> for a splat, nested lists otherwise, then its
// type. Values of large constants are written in full; the attributes this serves are small.
func denseText(d *DenseAttr) string {
	var b strings.Builder
	b.WriteString("dense<")
	if d.Literal != nil && d.Literal.Array != nil {
		a := d.Literal.Array
		n := a.NumElements()
		elem := func(i int64) string {
			switch {
			case d.Type.Elem == dtype.PRED:
				return strconv.FormatBool(a.BitsAt(i) != 0)
			case d.Type.Elem.IsInteger():
				return strconv.FormatInt(a.Int64s()[i], 10)
			case d.Type.Elem.IsFloat():
				return mlirFloat(a.Float64s()[i])
			}
			return "0x" + strconv.FormatUint(a.BitsAt(i), 16)
		}
		splat := n > 0
		for i := int64(1); i < n && splat; i++ {
			splat = a.BitsAt(i) == a.BitsAt(0)
		}
		switch {
		case splat:
			b.WriteString(elem(0))
		case n == 0:
		default:
			var write func(dim int, off int64) int64
			write = func(dim int, off int64) int64 {
				if dim == len(d.Type.Dims) {
					b.WriteString(elem(off))
					return off + 1
				}
				b.WriteByte('[')
				for i := int64(0); i < d.Type.Dims[dim]; i++ {
					if i > 0 {
						b.WriteString(", ")
					}
					off = write(dim+1, off)
				}
				b.WriteByte(']')
				return off
			}
			write(0, 0)
		}
	}
	b.WriteString("> : " + typeString(d.Type))
	return b.String()
}

func joinInts(v []int64, sep string) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(parts, sep)
}

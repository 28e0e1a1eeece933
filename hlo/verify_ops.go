package hlo

import (
	"fmt"
	"strconv"
	"strings"
)

// CheckOperation checks in as XLA's parser checks an instruction it reads, against its opcode's OpInfo: the
// number of operands (for the opcodes whose count XLA's parser checks; see OpInfo.ParsesAnyCount), that
// every attribute is one the opcode accepts and of the right kind (an enum's words among its values), and
// that the required ones are present (a conditional's branches in either form, the calls of an async-start
// not written in syntax sugar). An async-start, -update or -done written in XLA's syntax sugar
// ("custom-call-start") also takes the wrapped opcode's attributes, and an async-start its operand count.
//
// numOperands is the operand count to check; the parser passes the count it read before the operands are
// connected. report is called once per problem with the index in in.Attrs of the attribute at fault, or -1
// when the problem is the instruction's as a whole.
func CheckOperation(in *Instruction, numOperands int, report func(attr int, msg string)) {
	info := in.Opcode.Info()
	if info == nil {
		report(-1, fmt.Sprintf("invalid opcode %d", in.Opcode))
		return
	}
	name := in.Opcode.String()
	wrapped := in.AsyncWrapped.Info()
	if wrapped != nil {
		name = wrappedName(in)
	}
	if arity, anyCount := operandRule(in); !anyCount && !arity.Allows(numOperands) {
		report(-1, fmt.Sprintf("%s takes %s, got %d", name, arity.describe(), numOperands))
	}
	for i, a := range in.Attrs {
		spec := LookupAttr(in.Opcode, in.AsyncWrapped, a.Name)
		switch {
		case spec == nil:
			report(i, fmt.Sprintf("unknown attribute %s on %s", a.Name, name))
		default:
			if msg := CheckAttr(spec, a.Value); msg != "" {
				report(i, fmt.Sprintf("attribute %s on %s %s", a.Name, name, msg))
			}
		}
	}
	missing := func(specs []AttrSpec) {
		for _, s := range specs {
			if s.Required && findAttr(in.Attrs, s.Name) == nil && !scalarBroadcast(in, s.Name) {
				report(-1, fmt.Sprintf("%s needs attribute %s", name, s.Name))
			}
		}
	}
	missing(info.Attrs)
	if wrapped != nil && in.Opcode == OpAsyncStart {
		missing(wrapped.Attrs)
	}
	if in.Opcode == OpAsyncStart && wrapped == nil && findAttr(in.Attrs, "calls") == nil {
		report(-1, "async-start needs attribute calls")
	}
	if in.Opcode == OpConditional && findAttr(in.Attrs, "branch_computations") == nil &&
		(findAttr(in.Attrs, "true_computation") == nil || findAttr(in.Attrs, "false_computation") == nil) {
		report(-1, "conditional needs branch_computations, or true_computation and false_computation")
	}
}

// CheckAttr checks the value v of an attribute against its spec, as CheckOperation does: it returns a
// message that says what is wrong ("takes an integer list, got 1", "is one of EQ, NE, ..., got LESS"), or
// "" when v fits.
func CheckAttr(spec *AttrSpec, v Value) string {
	if !spec.Kind.Accepts(v) {
		return fmt.Sprintf("takes %s, got %s", withArticle(spec.Kind.String()), describeValue(v))
	}
	if len(spec.Values) == 0 {
		return ""
	}
	if e, ok := v.(Enum); ok && spec.Allows(string(e)) {
		return "" // the common case, without a list of words
	}
	words, _ := AttrWords(v)
	var bad []string
	for _, w := range words {
		if !spec.Allows(w) {
			bad = append(bad, w)
		}
	}
	if len(bad) == 0 {
		return ""
	}
	anyCase := ""
	if spec.FoldCase {
		anyCase = " (in any case)"
	}
	if spec.Kind == AttrEnums {
		return fmt.Sprintf("lists words among %s%s, got %s", strings.Join(spec.Values, ", "), anyCase, strings.Join(bad, ", "))
	}
	return fmt.Sprintf("is one of %s%s, got %s", strings.Join(spec.Values, ", "), anyCase, bad[0])
}

// operandRule returns the operand count in must have, and whether XLA's parser reads any count (leaving
// the count to the verifier).
func operandRule(in *Instruction) (arity Arity, anyCount bool) {
	info := in.Opcode.Info()
	arity, anyCount = info.Operands, info.ParsesAnyCount
	if wrapped := in.AsyncWrapped.Info(); wrapped != nil && in.Opcode == OpAsyncStart {
		arity, anyCount = wrapped.Operands, wrapped.ParsesAnyCount
	}
	if in.Opcode == OpDot && findAttr(in.Attrs, "sparsity") != nil {
		arity = Arity{Min: 3, Max: 4} // a sparse dot adds one metadata operand per sparse side
	}
	return arity, anyCount
}

// scalarBroadcast reports whether in is a broadcast of a scalar (or of an operand not yet known) that
// omits its dimensions, which XLA accepts: a scalar has none to map.
func scalarBroadcast(in *Instruction, attr string) bool {
	if in.Opcode != OpBroadcast || attr != "dimensions" {
		return false
	}
	return len(in.operands) != 1 || in.operands[0] == nil || in.operands[0].Shape.IsArray() && len(in.operands[0].Shape.Dims) == 0
}

// wrappedName is the sugared opcode name of an async instruction: "custom-call-start".
func wrappedName(in *Instruction) string {
	suffix := strings.TrimPrefix(in.Opcode.String(), "async")
	return in.AsyncWrapped.String() + suffix
}

func withArticle(s string) string {
	switch s[0] {
	case 'a', 'e', 'i', 'o', 'u':
		return "an " + s
	}
	return "a " + s
}

// describeValue names a value for a message: its text when it is short and plain, its kind otherwise.
func describeValue(v Value) string {
	switch v := v.(type) {
	case Raw:
		if len(v) <= 40 {
			return string(v)
		}
		return "text " + strconv.Quote(string(v[:40])+"...")
	case Int:
		return strconv.FormatInt(int64(v), 10)
	case Bool:
		return strconv.FormatBool(bool(v))
	case String:
		return strconv.Quote(string(v))
	case Enum:
		return string(v)
	case Ints:
		return "an integer list"
	case IntLists:
		return "a list of integer lists"
	case CompRef:
		return "a computation"
	case CompList:
		return "a computation list"
	case InstList:
		return "an instruction list"
	case Slice:
		return "a slice"
	case Padding:
		return "a padding"
	case Window:
		return "a window"
	case *ConvDims:
		return "dimension labels"
	case *BackendConfig:
		return "a backend config"
	case Metadata:
		return "metadata"
	case FrontendAttributes:
		return "frontend attributes"
	case *ReplicaGroups:
		return "replica groups"
	case *Sharding:
		return "a sharding"
	case Aliasing:
		return "an aliasing"
	case *ProgramShape:
		return "a program shape"
	case Float:
		return strconv.FormatFloat(float64(v), 'g', -1, 32)
	case Enums:
		return "{" + strings.Join(v, ",") + "}"
	case Shapes:
		return "a shape list"
	case *ShapedLiteral:
		return "a literal"
	case InputOutputAliasing:
		return "an input-output aliasing"
	case BufferDonors:
		return "buffer donors"
	}
	return "no value"
}

// operation checks one instruction against the opcode table (the operand counts that XLA's parser leaves
// to its verifier included), and a custom-call against what its target requires (RegisterCustomCall).
func (v *verifier) operation(in *Instruction) {
	CheckOperation(in, in.NumOperands(), func(attr int, msg string) { v.errorAt(in, "%s", msg) })
	if arity, anyCount := operandRule(in); anyCount && !arity.Allows(in.NumOperands()) {
		name := in.Opcode.String()
		if in.AsyncWrapped.Info() != nil {
			name = wrappedName(in)
		}
		v.errorAt(in, "%s takes %s, got %d", name, arity.describe(), in.NumOperands())
	}
	if in.Opcode == OpCustomCall {
		if check := customCallCheck(in.CustomCallTarget()); check != nil {
			if err := check(in); err != nil {
				v.errorAt(in, "%s", err)
			}
		}
	}
}

package stablehlo

import (
	"go/token"

	"octet/hlo"
)

// File is one parsed MLIR text: its modules and the location aliases (#loc...) and resources it defines.
type File struct {
	Modules []*Module
	// Locs are the location aliases the file defines ("#loc3 = loc(...)"), by name without the '#'.
	Locs map[string]*Loc
	// Resources are the blobs of the {-# dialect_resources: { builtin: { ... } } #-} section, by key.
	Resources map[string][]byte

	// locs is what each location alias says, resolved once when the file is read (see resolveLocs).
	locs map[string]locDesc
	// locSteps counts the location nodes visited to describe locations, against locBudget.
	locSteps int
}

// locDesc is what a location says: the name it gives and the innermost source position it names.
type locDesc struct {
	name, file string
	line       int
}

// Module is a builtin.module: its symbol name ("" when it has none), attributes and functions.
type Module struct {
	Name   string
	Attrs  []NamedAttr
	Funcs  []*Func
	Meshes []NamedMesh // the sdy.mesh symbols, in order
	// Others are the operations of the module's body that are neither functions nor meshes, which the
	// conversion refuses by name.
	Others []*Op
	Pos    token.Pos

	symbols map[string]bool // the names of the functions and meshes, each defined once
}

// Func is a func.func.
type Func struct {
	Name        string
	Visibility  string // "public", "private" or ""
	Params      []*Value
	ParamAttrs  [][]NamedAttr
	Results     []hlo.Shape
	ResultAttrs [][]NamedAttr
	Attrs       []NamedAttr
	Body        *Region // nil for a declaration
	Loc         *Loc
	Pos         token.Pos

	resultQuant []*Quant // the quantization of each quantized result type; nil when none is quantized
}

// Region is a list of blocks; the ops of StableHLO have one block per region.
type Region struct {
	Blocks []*Block
	Pos    token.Pos
}

// Block is a list of operations with arguments.
type Block struct {
	Label string
	Args  []*Value
	Ops   []*Op
}

// Op is one operation, whichever form it was written in: its name ("stablehlo.add"), results, operands,
// attributes (those of the generic dictionaries and the keyword = value pairs of the pretty form alike),
// the bare words of a pretty form (the LT and FLOAT of a compare), regions, and the types of its
// signature.
type Op struct {
	Name     string
	Results  []*Value
	Operands []*Value
	Attrs    []NamedAttr
	Words    []string
	Callee   string // the @symbol of func.call and custom_call
	Regions  []*Region
	InTypes  []hlo.Shape // the operand types of the signature; nil when the short form gave only results
	OutTypes []hlo.Shape
	OutQuant []*Quant // the quantization of each quantized result type; nil when none is quantized
	Loc      *Loc
	Pos      token.Pos

	inQuant []*Quant // the quantization of each quantized operand type; nil when none is quantized
	// functional says that the signature was a function type, (operand types) -> result types, whose
	// operand types are those of the operands in order.
	functional bool

	// used records the attributes the conversion read, so that the others can be reported by name
	// rather than dropped; shared by the copies a conversion makes of the op.
	used *attrUse
}

// attrUse is the set of attribute names read from an op, and of those the conversion reported it could
// not carry (noted).
type attrUse struct {
	names, noted map[string]bool
	converted    bool // the conversion converted the op and accounted for its attributes
}

// markNoted records that the conversion reported attribute name as left out.
func (op *Op) markNoted(name string) {
	op.markUsed("")
	if op.used.noted == nil {
		op.used.noted = map[string]bool{}
	}
	op.used.noted[name] = true
}

// wasNoted reports whether the conversion reported attribute name as left out.
func (op *Op) wasNoted(name string) bool { return op.used != nil && op.used.noted[name] }

// markUsed records that the conversion read (and so converted or deliberately left out) attribute name.
func (op *Op) markUsed(name string) {
	if op.used == nil {
		op.used = &attrUse{names: map[string]bool{}}
	}
	op.used.names[name] = true
}

// wasUsed reports whether the conversion read attribute name.
func (op *Op) wasUsed(name string) bool { return op.used != nil && op.used.names[name] }

// Value is an SSA value: an operation's result or a block argument.
type Value struct {
	Name  string // as written, with the '%' and any '#n'
	Type  hlo.Shape
	Def   *Op    // nil for a block argument
	Quant *Quant // the quantization of a quantized tensor (Type holds its storage type); nil otherwise
	Index int    // result number of Def, or argument number
	Pos   token.Pos
}

// NamedAttr is one attribute: name = value.
type NamedAttr struct {
	Name  string
	Value Attr
}

// Attr is an attribute value: one of the types below.
type Attr interface{ isAttr() }

type (
	// IntAttr is an integer, with its type when one was written (": i64").
	IntAttr struct {
		V    int64
		Type string
	}
	// FloatAttr is a floating-point number.
	FloatAttr struct {
		V    float64
		Type string
	}
	// BoolAttr is true or false.
	BoolAttr bool
	// StringAttr is a quoted string, unescaped.
	StringAttr string
	// SymbolAttr is @name.
	SymbolAttr string
	// ListAttr is [a, b, ...].
	ListAttr []Attr
	// DictAttr is {name = value, ...}.
	DictAttr []NamedAttr
	// ArrayAttr is array<i64: 1, 2> (or array<i1: true, false>, read as 1 and 0).
	ArrayAttr struct {
		Elem string
		Vals []int64
	}
	// DenseAttr is dense<...> or dense_resource<...>, decoded into a literal of its type.
	DenseAttr struct {
		Type    hlo.Shape
		Literal *hlo.Literal
	}
	// EnumAttr is #dialect<kind WORD>, as #stablehlo<comparison_direction LT>.
	EnumAttr struct {
		Kind, Word string
	}
	// StructAttr is #dialect.name<field = value, ...>, as #stablehlo.scatter<...>; a positional form
	// (#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>) keeps its text in Raw.
	StructAttr struct {
		Name   string
		Fields []NamedAttr
		Raw    string
	}
	// TypeAttr is a type written as an attribute value.
	TypeAttr hlo.Shape
	// WordAttr is a bare word: an enum of a pretty form (FLOAT, THREE_FRY), unit, or a keyword value.
	WordAttr string
	// FuncTypeAttr is a function type, (operand types) -> result types.
	FuncTypeAttr struct {
		In, Out           []hlo.Shape
		inQuant, outQuant []*Quant // the quantization of each quantized type; nil when none is
	}
	// DimsAttr is "[1, 2] x [3]" of dot_general's pretty form.
	DimsAttr struct{ LHS, RHS []int64 }
	// SubAxisAttr is (PreSize)Size, the part of a mesh axis of Size devices after PreSize of them.
	SubAxisAttr struct{ PreSize, Size int64 }
	// RawAttr is any other attribute, kept as written.
	RawAttr string
)

func (IntAttr) isAttr()      {}
func (FloatAttr) isAttr()    {}
func (BoolAttr) isAttr()     {}
func (StringAttr) isAttr()   {}
func (SymbolAttr) isAttr()   {}
func (ListAttr) isAttr()     {}
func (DictAttr) isAttr()     {}
func (ArrayAttr) isAttr()    {}
func (DenseAttr) isAttr()    {}
func (EnumAttr) isAttr()     {}
func (StructAttr) isAttr()   {}
func (TypeAttr) isAttr()     {}
func (WordAttr) isAttr()     {}
func (DimsAttr) isAttr()     {}
func (FuncTypeAttr) isAttr() {}
func (RawAttr) isAttr()      {}
func (SubAxisAttr) isAttr()  {}

// Loc is a location: a file position (File, Line, Col), a name (Name, with the location it names in
// Child), a call site (Callee at Caller), a fusion of several (Fused), or a reference to an alias (Alias)
// resolved once the file is read.
type Loc struct {
	File      string
	Line, Col int
	Name      string
	Child     *Loc
	Callee    *Loc
	Caller    *Loc
	Fused     []*Loc
	Alias     string
	Unknown   bool
}

// Attr returns the value of the attribute named name; nil when there is none.
// The conversion notes each name it asks for: an attribute it never asks for is one it does not convert.
func (op *Op) Attr(name string) Attr {
	for _, a := range op.Attrs {
		if a.Name == name {
			op.markUsed(name)
			return a.Value
		}
	}
	return nil
}

// lookup returns the value of the field or key named name of a dictionary or struct attribute.
func lookup(fields []NamedAttr, name string) Attr {
	for _, a := range fields {
		if a.Name == name {
			return a.Value
		}
	}
	return nil
}

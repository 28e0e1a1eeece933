package hlo

import "octet/internal/cstring"

// Attr is one "name=value" attribute of an instruction or a module header. Instructions keep their
// attributes in the order the text gave them (XLA's printers write them in a fixed order, so text XLA printed
// prints back unchanged), and new instructions get them in XLA's order from the builders.
type Attr struct {
	Name  string
	Value Value
}

// Value is an attribute value. The concrete types are the ones in this file: those Octet reasons about
// are typed; every other value is Raw and prints back exactly as it was read.
//
// Their text forms, as XLA prints them:
//
//	Raw          the text itself
//	Int, Bool    7, true
//	Ints         {1,0}                       (no spaces)
//	IntLists     {{0,1},{2,3}}
//	String       "text"                      (C-escaped as absl::CEscape does)
//	Enum         LT
//	CompRef      %name                       ("name" without the percent sign in the short style)
//	CompList     {%a, %b}
//	InstList     {%a, %b}
//	Slice        {[0:2], [1:7:2]}            (":stride" only when it is not 1)
//	Padding      0_0x1_2                     ("_interior" on every dimension when any is non-zero)
//	Window       {size=3x3 stride=2x2 pad=0_1x0_1 lhs_dilate=2x2 rhs_dilate=2x2 rhs_reversal=1x0}
//	             (size always; each other field only when some dimension differs from its default)
//	ConvDims     b01f_01io->b01f
//	BackendConfig  the text as written in braces, or "escaped" when Quoted
//	Metadata     {op_type="dot" op_name="x" source_line=3}   (pairs joined by a space)
//	FrontendAttributes  {a="1",b="2"}        (pairs joined by a comma)
//	ReplicaGroups {{0,1},{2,3}}, {}, or [2,4]<=[8], [3,10]<=[6,5]T(1,0), or the Mesh text
//	Sharding     its Text
//	Aliasing     {{0}: (0, {}), {1}: (1, {1})}
//	*ProgramShape {(f32[2]{0}, s32[])->f32[2]{0}}   (shapes with layouts; see the printer for index comments)
//	*ShapedLiteral  f32[2]{0} {1, 2.5}         (the shape, a space, the literal as a constant prints it)
//	Enums        {high,default}              (no spaces)
//	Shapes       {f32[2,3]{0,1}, s32[]}      (shapes with layouts)
//	InputOutputAliasing  { {0}: (0, {}, may-alias), {1}: (1, {1}) }   (the kind only when written)
//	BufferDonors { (0, {}), (1, {1}) }
type Value interface{ isValue() }

// Raw is an attribute value Octet does not interpret, kept as its exact text ("kLoop", "true", "{...}").
type Raw string

// Int is an integer value (index=0, channel_id=1, feature_group_count=2).
type Int int64

// Float is a floating-point number (epsilon=0.001); XLA holds it as a C++ float and prints six significant
// digits.
type Float float32

// Bool is true or false.
type Bool bool

// Ints is a list of integers in braces: dimensions={1,0}, lhs_contracting_dims={1}.
type Ints []int64

// IntLists is a list of integer lists: source_target_pairs={{0,1},{1,2}}.
type IntLists [][]int64

// String is a quoted string (custom_call_target="__cublas$lt$matmul$f8"); the value is unescaped.
type String string

// Enum is a bare word whose spelling Octet knows (direction=LT, type=TOTALORDER, fft_type=FFT).
type Enum string

// CompRef names one called computation (to_apply=%add, calls=%fused, condition=, body=).
type CompRef struct{ Comp *Computation }

// CompList names several called computations: branch_computations={%a, %b}, calls={%a, %b}.
type CompList []*Computation

// InstList names instructions: control-predecessors={%a, %b}.
type InstList []*Instruction

// SliceDim is one dimension of slice={[start:limit:stride], ...}.
type SliceDim struct{ Start, Limit, Stride int64 }

// Slice is the slice attribute.
type Slice []SliceDim

// PadDim is one dimension of a padding configuration: low_high or low_high_interior.
type PadDim struct{ Low, High, Interior int64 }

// Padding is the padding attribute of pad: 0_0x1_1 (dimensions joined by x).
type Padding []PadDim

// WindowDim is one dimension of a window.
type WindowDim struct {
	Size, Stride, PadLow, PadHigh, BaseDilation, WindowDilation int64
	Reversal                                                    bool
}

// Window is the window attribute of convolution, reduce-window and select-and-scatter:
// {size=3x3 stride=2x2 pad=0_1x0_1 lhs_dilate=1x1 rhs_dilate=1x1 rhs_reversal=0x0}.
type Window []WindowDim

// ConvDims is dim_labels of a convolution: b01f_01io->b01f. Each spatial slice lists, in spatial order,
// the dimension number of that spatial dimension.
type ConvDims struct {
	InputBatch, InputFeature         int64
	InputSpatial                     []int64
	KernelInputFeature, KernelOutput int64
	KernelSpatial                    []int64
	OutputBatch, OutputFeature       int64
	OutputSpatial                    []int64
}

// BackendConfig is a backend_config: its text (JSON for the GPU backends) and how it was written: raw in
// braces, or as a quoted string.
type BackendConfig struct {
	Text   string // the value: the braces of a raw value included, a quoted one unescaped
	Quoted bool   // written "..." rather than {...}
}

// KV is one key=value pair of metadata or frontend attributes. Value is the value's text as written
// (quotes included for strings) so that it prints back unchanged.
type KV struct{ Key, Value string }

// Metadata is the metadata of an instruction: {op_type="..." op_name="..." source_file="..."
// source_line=3 stack_frame_id=7}, in written order.
type Metadata []KV

// FrontendAttributes are frontend_attributes={key="value",...}, in written order.
type FrontendAttributes []KV

// ReplicaGroups are the replica_groups of a collective in one of XLA's three forms: an explicit list
// ({{0,1},{2,3}}, Groups), an iota list [groups,size]<=[reshape]T(perm) (Iota), or mesh axes
// mesh['x'=2,'y'=2] {'y'} (Mesh, kept as its text).
type ReplicaGroups struct {
	Groups [][]int64
	Iota   *IotaList
	Mesh   string
}

// IotaList is XLA's compact device list: the numbers 0..n-1 reshaped to ReshapeDims, transposed by
// Transpose (when not nil), and reshaped to Dims ([groups, group size] for replica groups).
type IotaList struct {
	Dims        []int64
	ReshapeDims []int64
	Transpose   []int64 // nil when no T(...) was written
}

// Sharding is an instruction's sharding, kept as its text with the parts Octet reasons about decoded.
type Sharding struct {
	Text                 string     // the whole value, braces included, as written
	Replicated           bool       // {replicated}
	Manual               bool       // {manual}
	Maximal              int64      // device of {maximal device=N}; -1 otherwise
	Tuple                []Sharding // the elements of a tuple sharding {{...}, {...}}
	TileDims             []int64    // devices=[...] of a tiled sharding
	Devices              []int64    // explicit device list of a tiled sharding
	DevicesIota          *IotaList  // <=[...] device list of a tiled sharding
	LastTileDimReplicate bool
	LastTileDims         []string // last_tile_dims={manual, replicated}: the types of the trailing subgroup dimensions
}

// OutputOperandAlias is one entry of output_to_operand_aliasing={{0}: (0, {}), ...}.
type OutputOperandAlias struct {
	Output       []int64 // index path in the result
	Operand      int64
	OperandIndex []int64 // index path in the operand
}

// Aliasing is output_to_operand_aliasing.
type Aliasing []OutputOperandAlias

// ShapedLiteral is a literal written after its shape: a custom-call's literal=s32[] 1.
type ShapedLiteral struct {
	Shape   Shape
	Literal *Literal
}

// Enums is a list of enum values in braces: operand_precision={high,default}.
type Enums []string

// Shapes is a list of shapes with layouts: a custom-call's operand_layout_constraints.
type Shapes []Shape

// AliasKind says whether an input_output_alias entry must alias or only may.
type AliasKind uint8

// The alias kinds. AliasUnspecified is an entry written without a kind, which XLA reads as may-alias.
const (
	AliasUnspecified AliasKind = iota
	MayAlias
	MustAlias
)

// String returns the kind as HLO writes it ("may-alias", "must-alias"; "" when unspecified).
func (k AliasKind) String() string {
	switch k {
	case MayAlias:
		return "may-alias"
	case MustAlias:
		return "must-alias"
	}
	return ""
}

// InputOutputAlias is one entry of a module's input_output_alias: the entry's result at index Output
// shares its buffer with parameter Parameter at index ParameterIndex.
type InputOutputAlias struct {
	Output         []int64
	Parameter      int64
	ParameterIndex []int64
	Kind           AliasKind
}

// InputOutputAliasing is a module's input_output_alias.
type InputOutputAliasing []InputOutputAlias

// Aliases reports whether some part of parameter n aliases an output.
func (a InputOutputAliasing) Aliases(n int64) bool {
	for _, e := range a {
		if e.Parameter == n {
			return true
		}
	}
	return false
}

// BufferDonor is one entry of a module's buffer_donor: parameter Parameter at index ParameterIndex may
// give its buffer to any output.
type BufferDonor struct {
	Parameter      int64
	ParameterIndex []int64
}

// BufferDonors is a module's buffer_donor.
type BufferDonors []BufferDonor

func (Raw) isValue()                 {}
func (Int) isValue()                 {}
func (Float) isValue()               {}
func (Bool) isValue()                {}
func (Ints) isValue()                {}
func (IntLists) isValue()            {}
func (String) isValue()              {}
func (Enum) isValue()                {}
func (CompRef) isValue()             {}
func (CompList) isValue()            {}
func (InstList) isValue()            {}
func (Slice) isValue()               {}
func (Padding) isValue()             {}
func (Window) isValue()              {}
func (*ConvDims) isValue()           {}
func (*BackendConfig) isValue()      {}
func (Metadata) isValue()            {}
func (FrontendAttributes) isValue()  {}
func (*ReplicaGroups) isValue()      {}
func (*Sharding) isValue()           {}
func (Aliasing) isValue()            {}
func (*ProgramShape) isValue()       {}
func (*ShapedLiteral) isValue()      {}
func (Enums) isValue()               {}
func (Shapes) isValue()              {}
func (InputOutputAliasing) isValue() {}
func (BufferDonors) isValue()        {}

// Get returns the value of key in the metadata, unquoted when it was a quoted string.
func (m Metadata) Get(key string) (string, bool) { return getKV(m, key) }

// Get returns the value of key, unquoted when it was a quoted string.
func (f FrontendAttributes) Get(key string) (string, bool) { return getKV(f, key) }

// getKV returns the value of key: a quoted string with its C escapes undone, as XLA's lexer reads it
// (HloLexer::LexString, absl::CUnescape), so that the \' XLA's printer writes is a quote.
func getKV(kvs []KV, key string) (string, bool) {
	for _, kv := range kvs {
		if kv.Key == key {
			if v := kv.Value; len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
				return cstring.Unescape(v[1 : len(v)-1]), true
			}
			return kv.Value, true
		}
	}
	return "", false
}

// HeaderTable reports whether name is a module header attribute that XLA prints as a table over several
// lines, in braces: origin_recovery_table (HloModule::Print, xla/hlo/ir/hlo_module.cc, openxla/xla at
// 845331df20dbc7daebc4f4e7023e9104cf869306, writes "origin_recovery_table={\n" and the table) and
// debug_attributes (XLA's golden case DebugAttributes: "debug_attributes={\n  {...}:(...)\n}"). Escaped
// in place, as the readable style escapes other values, such a table's line ends would read back as a
// backslash and an 'n': package printer's readable style writes it as one C-escaped string instead, which
// package parser reads back to the table's text.
func HeaderTable(name string) bool {
	return name == "debug_attributes" || name == "origin_recovery_table"
}

package hlo

import (
	"slices"
	"strconv"
	"strings"
)

// OpInfo describes an opcode: how many operands it takes, the attributes it accepts, and the properties
// that passes, the verifier, the interpreter and the printer ask about. The parser rejects instructions that
// do not fit their opcode's OpInfo, and Verify rejects built ones.
type OpInfo struct {
	Opcode Opcode
	// Operands is the number of operands the opcode takes. XLA's parser checks it as it reads an
	// instruction, except where ParsesAnyCount is set: there it reads any number of operands and its
	// verifier checks the count. Octet's parser and Verify divide the checks the same way.
	Operands       Arity
	ParsesAnyCount bool
	// Attrs are the attributes specific to the opcode; CommonAttrs() are accepted on every instruction too.
	Attrs []AttrSpec
	// Elementwise: each result element depends only on the same-index elements of the operands.
	Elementwise bool
	// Commutative: a binary op whose operands may be swapped.
	Commutative bool
	// SideEffect: the instruction must stay even when its value is unused (a custom-call has one only
	// when custom_call_has_side_effect=true; see Instruction.HasSideEffect).
	SideEffect bool
	// MayAlias: the result may share memory with an operand (bitcast, get-tuple-element, in-place updates,
	// and instructions that declare output_to_operand_aliasing).
	MayAlias bool
	// StableHLO is the operation a StableHLO program writes for the opcode: "stablehlo.add", "chlo.erf"
	// where only the CHLO dialect has one, "func.call" for call; "" when there is none.
	StableHLO string
}

// Arity is the number of operands an opcode takes: Min to Max, or Min or more when Max is Variadic; with
// Step 2, only every other count from Min (reduce takes inputs and initial values in pairs).
type Arity struct{ Min, Max, Step int }

// Variadic as Arity.Max means no upper bound.
const Variadic = -1

func fixed(n int) Arity   { return Arity{Min: n, Max: n} }
func atLeast(n int) Arity { return Arity{Min: n, Max: Variadic} }

// everyOther is min, min+2, min+4, ... operands.
func everyOther(min int) Arity { return Arity{Min: min, Max: Variadic, Step: 2} }

// Allows reports whether n operands fit a.
func (a Arity) Allows(n int) bool {
	return n >= a.Min && (a.Max == Variadic || n <= a.Max) && (a.Step <= 1 || (n-a.Min)%a.Step == 0)
}

// String is the arity as a count: "2", "1..4", "1+", "2,4,...".
func (a Arity) String() string {
	switch {
	case a.Step > 1:
		return strconv.Itoa(a.Min) + "," + strconv.Itoa(a.Min+a.Step) + ",..."
	case a.Max == Variadic:
		return strconv.Itoa(a.Min) + "+"
	case a.Min == a.Max:
		return strconv.Itoa(a.Min)
	}
	return strconv.Itoa(a.Min) + ".." + strconv.Itoa(a.Max)
}

// describe is the arity in a sentence: "2 operands", "at least 1 operand", "1 to 4 operands", "an even
// number of operands, at least 2".
func (a Arity) describe() string {
	plural := func(n int) string {
		if n == 1 {
			return "1 operand"
		}
		return strconv.Itoa(n) + " operands"
	}
	switch {
	case a.Step == 2 && a.Min%2 == 0:
		return "an even number of operands, at least " + strconv.Itoa(a.Min)
	case a.Step == 2:
		return "an odd number of operands, at least " + strconv.Itoa(a.Min)
	case a.Max == Variadic:
		return "at least " + plural(a.Min)
	case a.Min == a.Max:
		return plural(a.Min)
	}
	return strconv.Itoa(a.Min) + " to " + plural(a.Max)
}

// AttrKind is the kind of value an attribute takes. It says how the value is read: the parser (and every
// other reader of modules) has one reader per kind and dispatches on the kind the op table gives an
// attribute, never on the attribute's name; and it says which Value types hold such a value (Accepts).
type AttrKind uint8

// The attribute kinds.
const (
	AttrText               AttrKind = iota // a value Octet does not decode, kept as written: Raw (or Int or Bool, by its form)
	AttrInt                                // Int
	AttrFloat                              // a number: Float (epsilon=0.001) or Int
	AttrBool                               // Bool
	AttrInts                               // Ints
	AttrIntLists                           // IntLists
	AttrString                             // String, or a quoted Raw
	AttrEnum                               // Enum, one of the spec's Values (as Canonical spells it); or a bare word kept as Raw
	AttrEnums                              // Enums, each one of the spec's Values; or their list kept as Raw
	AttrComp                               // CompRef
	AttrComps                              // CompList (or one CompRef)
	AttrInsts                              // InstList
	AttrSlice                              // Slice
	AttrPadding                            // Padding
	AttrWindow                             // Window
	AttrConvDims                           // *ConvDims, or Raw labels with dimensions of no role ("?")
	AttrBackendConfig                      // *BackendConfig
	AttrMetadata                           // Metadata
	AttrFrontendAttributes                 // FrontendAttributes
	AttrReplicaGroups                      // *ReplicaGroups
	AttrSharding                           // *Sharding
	AttrAliasing                           // Aliasing
	AttrShape                              // a shape with its layout, checked when read and kept as its text (Raw)
	AttrShapes                             // Shapes
	AttrLiteral                            // *ShapedLiteral, or a tuple literal kept as its text (Raw)
	AttrProgramShape                       // *ProgramShape
	AttrInputOutputAlias                   // InputOutputAliasing
	AttrBufferDonors                       // BufferDonors
	numAttrKinds
)

var attrKindNames = [numAttrKinds]string{
	AttrText:               "text",
	AttrInt:                "integer",
	AttrFloat:              "number",
	AttrBool:               "bool",
	AttrInts:               "integer list",
	AttrIntLists:           "list of integer lists",
	AttrString:             "string",
	AttrEnum:               "enum",
	AttrEnums:              "enum list",
	AttrComp:               "computation",
	AttrComps:              "computation list",
	AttrInsts:              "instruction list",
	AttrSlice:              "slice",
	AttrPadding:            "padding",
	AttrWindow:             "window",
	AttrConvDims:           "dimension labels",
	AttrBackendConfig:      "backend config",
	AttrMetadata:           "metadata",
	AttrFrontendAttributes: "frontend attributes",
	AttrReplicaGroups:      "replica groups",
	AttrSharding:           "sharding",
	AttrAliasing:           "aliasing",
	AttrShape:              "shape",
	AttrShapes:             "shape list",
	AttrLiteral:            "literal",
	AttrProgramShape:       "program shape",
	AttrInputOutputAlias:   "input-output aliasing",
	AttrBufferDonors:       "buffer donors",
}

// String names the kind in words ("integer list").
func (k AttrKind) String() string {
	if k < numAttrKinds {
		return attrKindNames[k]
	}
	return "invalid"
}

// Accepts reports whether v is a value of kind k. The words of an enum are the spec's to check
// (AttrSpec.Allows).
func (k AttrKind) Accepts(v Value) bool {
	switch k {
	case AttrText:
		return v != nil
	case AttrInt:
		_, ok := v.(Int)
		return ok
	case AttrFloat:
		switch v.(type) {
		case Int, Float:
			return true
		}
	case AttrBool:
		_, ok := v.(Bool)
		return ok
	case AttrInts:
		_, ok := v.(Ints)
		return ok
	case AttrIntLists:
		_, ok := v.(IntLists)
		return ok
	case AttrString:
		switch v := v.(type) {
		case String:
			return true
		case Raw:
			return len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"'
		}
	case AttrEnum:
		switch v := v.(type) {
		case Enum:
			return true
		case Raw:
			return isWord(string(v))
		}
	case AttrEnums:
		switch v := v.(type) {
		case Enums:
			return true
		case Raw:
			_, ok := rawWords(v)
			return ok
		}
	case AttrComp:
		_, ok := v.(CompRef)
		return ok
	case AttrComps:
		switch v.(type) {
		case CompList, CompRef:
			return true
		}
	case AttrInsts:
		_, ok := v.(InstList)
		return ok
	case AttrSlice:
		_, ok := v.(Slice)
		return ok
	case AttrPadding:
		_, ok := v.(Padding)
		return ok
	case AttrWindow:
		_, ok := v.(Window)
		return ok
	case AttrConvDims:
		switch v := v.(type) {
		case *ConvDims:
			return true
		case Raw:
			return strings.IndexByte(string(v), '?') >= 0
		}
	case AttrBackendConfig:
		_, ok := v.(*BackendConfig)
		return ok
	case AttrMetadata:
		_, ok := v.(Metadata)
		return ok
	case AttrFrontendAttributes:
		_, ok := v.(FrontendAttributes)
		return ok
	case AttrReplicaGroups:
		_, ok := v.(*ReplicaGroups)
		return ok
	case AttrSharding:
		_, ok := v.(*Sharding)
		return ok
	case AttrAliasing:
		_, ok := v.(Aliasing)
		return ok
	case AttrShape:
		v, ok := v.(Raw)
		return ok && v != ""
	case AttrShapes:
		_, ok := v.(Shapes)
		return ok
	case AttrLiteral:
		switch v := v.(type) {
		case *ShapedLiteral:
			return true
		case Raw:
			return strings.HasPrefix(string(v), "(")
		}
	case AttrProgramShape:
		_, ok := v.(*ProgramShape)
		return ok
	case AttrInputOutputAlias:
		_, ok := v.(InputOutputAliasing)
		return ok
	case AttrBufferDonors:
		_, ok := v.(BufferDonors)
		return ok
	}
	return false
}

// isWord reports whether s is a bare word: letters, digits and underscores, not starting with a digit.
func isWord(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// rawWords returns the words of a list of words kept as text, "{high,default}", as a reader that does
// not type them writes it.
func rawWords(v Raw) ([]string, bool) {
	s := string(v)
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return nil, false
	}
	s = strings.TrimSpace(s[1 : len(s)-1])
	if s == "" {
		return []string{}, true
	}
	words := strings.Split(s, ",")
	for i, w := range words {
		words[i] = strings.TrimSpace(w)
		if !isWord(words[i]) {
			return nil, false
		}
	}
	return words, true
}

// AttrWords returns the words of an enum value (one) or of an enum list (each); ok is false when v is
// neither.
func AttrWords(v Value) (words []string, ok bool) {
	switch v := v.(type) {
	case Enum:
		return []string{string(v)}, true
	case Enums:
		return v, true
	case Raw:
		if isWord(string(v)) {
			return []string{string(v)}, true
		}
		return rawWords(v)
	}
	return nil, false
}

// AttrSpec describes one attribute an opcode (or a module header, or a computation) accepts: its name,
// the kind of value it takes (and so how every reader reads it), whether it is required, and the words
// of an enum.
type AttrSpec struct {
	Name     string
	Kind     AttrKind
	Required bool
	// Values are the words an AttrEnum or AttrEnums value may take, spelled as XLA prints them. FoldCase is
	// set when XLA's parser reads them in any case (it lower-cases a word before looking it up), as it does
	// for operand_precision, distribution and api_version but not for direction or fft_type.
	Values   []string
	FoldCase bool
	// Role says what a called computation is for ("reducer", "loop body"); "" for other kinds.
	Role string
}

// Allows reports whether word is one of the spec's Values, in any case when FoldCase is set.
func (s *AttrSpec) Allows(word string) bool {
	_, ok := s.spelling(word)
	return ok
}

// Canonical returns word as XLA prints it: the one of the spec's Values that word spells, in any case when
// FoldCase is set; word itself when it is none of them. XLA reads the word into an enum and prints the
// enum's name, so a reader that keeps the canonical spelling prints what XLA would, and its users compare
// words without minding their case.
func (s *AttrSpec) Canonical(word string) string {
	if v, ok := s.spelling(word); ok {
		return v
	}
	return word
}

func (s *AttrSpec) spelling(word string) (string, bool) {
	for _, v := range s.Values {
		if v == word || s.FoldCase && strings.EqualFold(v, word) {
			return v, true
		}
	}
	return "", false
}

func req(name string, k AttrKind) AttrSpec { return AttrSpec{Name: name, Kind: k, Required: true} }
func opt(name string, k AttrKind) AttrSpec { return AttrSpec{Name: name, Kind: k} }

// An enumeration is the words of an enum attribute and whether XLA reads them in any case.
type enumeration struct {
	values   []string
	foldCase bool
}

// The enumerations of XLA's HLO text: the words its parser takes for each (hlo_parser.cc and the
// String-to-enum functions it calls), spelled as its printer writes them.
var (
	comparisonDirections = enumeration{values: []string{"EQ", "NE", "GE", "GT", "LE", "LT"}}
	comparisonTypes      = enumeration{values: []string{"FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"}}
	fftTypes             = enumeration{values: []string{"FFT", "IFFT", "RFFT", "IRFFT"}}
	fusionKinds          = enumeration{values: []string{"kLoop", "kInput", "kOutput", "kCustom"}}
	// XLA's parser reads rng_invalid too (its verifier then refuses it).
	distributions  = enumeration{values: []string{"rng_uniform", "rng_normal", "rng_invalid"}, foldCase: true}
	rngAlgorithms  = enumeration{values: []string{"rng_default", "rng_three_fry", "rng_philox"}, foldCase: true}
	precisions     = enumeration{values: []string{"default", "high", "highest", "packed_nibble"}, foldCase: true}
	dotAlgorithms  = enumeration{values: []string{"unset", "dot_any_f8_any_f8_f32", "dot_any_f8_any_f8_f32_fast_accum", "dot_f16_f16_f16", "dot_f16_f16_f32", "dot_bf16_bf16_bf16", "dot_bf16_bf16_f32", "dot_bf16_bf16_f32_x3", "dot_bf16_bf16_f32_x6", "dot_bf16_bf16_f32_x9", "dot_tf32_tf32_f32", "dot_tf32_tf32_f32_x3", "dot_f32_f32_f32", "dot_f64_f64_f64"}, foldCase: true}
	schedules      = enumeration{values: []string{"SCHEDULE_NONE", "SCHEDULE_LATEST", "SCHEDULE_EARLIEST"}, foldCase: true}
	apiVersions    = enumeration{values: []string{"API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING", "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"}, foldCase: true}
	paddingTypes   = enumeration{values: []string{"PADDING_INVALID", "PADDING_VALID", "PADDING_SAME"}}
	transposes     = enumeration{values: []string{"TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}}
	convKinds      = enumeration{values: []string{"fprop", "wgrad", "dgrad", "unset"}}
	collectiveMode = enumeration{values: []string{"cross_replica", "cross_partition", "cross_replica_and_partition", "flattened_id"}}
	bools          = enumeration{values: []string{"true", "false"}}
)

func reqEnum(name string, e enumeration) AttrSpec {
	return AttrSpec{Name: name, Kind: AttrEnum, Required: true, Values: e.values, FoldCase: e.foldCase}
}

func optEnum(name string, e enumeration) AttrSpec {
	return AttrSpec{Name: name, Kind: AttrEnum, Values: e.values, FoldCase: e.foldCase}
}

func optEnums(name string, e enumeration) AttrSpec {
	return AttrSpec{Name: name, Kind: AttrEnums, Values: e.values, FoldCase: e.foldCase}
}

func reqComp(name, role string) AttrSpec {
	return AttrSpec{Name: name, Kind: AttrComp, Required: true, Role: role}
}

func optComp(name, role string) AttrSpec { return AttrSpec{Name: name, Kind: AttrComp, Role: role} }

func optComps(name, role string) AttrSpec { return AttrSpec{Name: name, Kind: AttrComps, Role: role} }

// cloneSpecs copies specs, their Values included.
func cloneSpecs(specs []AttrSpec) []AttrSpec {
	out := slices.Clone(specs)
	for i := range out {
		out[i].Values = slices.Clone(out[i].Values)
	}
	return out
}

// CommonAttrs returns the attributes every instruction accepts. The specs are copies: changing them
// changes nothing else.
func CommonAttrs() []AttrSpec { return cloneSpecs(commonAttrs) }

var commonAttrs = []AttrSpec{
	opt("sharding", AttrSharding),
	opt("frontend_attributes", AttrFrontendAttributes),
	opt("statistics", AttrText),
	optEnums("parameter_replication", bools),
	opt("control-predecessors", AttrInsts),
	opt("metadata", AttrMetadata),
	opt("backend_config", AttrBackendConfig),
	opt("origin", AttrText),
	opt("original_value", AttrText),             // the earlier spelling of origin
	opt("outer_dimension_partitions", AttrInts), // accepted by earlier versions of XLA
}

// ModuleAttrs returns the attributes of a module's header that Octet reads by kind (XLA's parser takes
// these); a header may hold others, kept as written. The specs are copies.
func ModuleAttrs() []AttrSpec { return cloneSpecs(moduleAttrs) }

var moduleAttrs = []AttrSpec{
	opt("is_scheduled", AttrBool),
	opt("replica_count", AttrInt),
	opt("num_partitions", AttrInt),
	opt("input_output_alias", AttrInputOutputAlias),
	opt("buffer_donor", AttrBufferDonors),
	opt("alias_passthrough_params", AttrBool),
	opt("entry_computation_layout", AttrProgramShape),
	opt("frontend_attributes", AttrFrontendAttributes),
	opt("allow_spmd_sharding_propagation_to_parameters", AttrText), // a bool or a list of bools
	opt("allow_spmd_sharding_propagation_to_output", AttrText),
	opt("origin_recovery_table", AttrText),
}

// ModuleAttr returns the spec of the module header attribute named name, or nil.
func ModuleAttr(name string) *AttrSpec { return findSpec(moduleAttrs, name) }

var computationAttrs = []AttrSpec{opt("execution_thread", AttrString)}

// ComputationAttr returns the spec of the attribute named name that a computation takes after its closing
// brace (execution_thread), or nil.
func ComputationAttr(name string) *AttrSpec { return findSpec(computationAttrs, name) }

func findSpec(specs []AttrSpec, name string) *AttrSpec {
	for i := range specs {
		if specs[i].Name == name {
			return &specs[i]
		}
	}
	return nil
}

// Attribute groups shared by several opcodes.
var (
	dotDims = []AttrSpec{
		opt("lhs_batch_dims", AttrInts), opt("lhs_contracting_dims", AttrInts),
		opt("rhs_batch_dims", AttrInts), opt("rhs_contracting_dims", AttrInts),
		optEnums("operand_precision", precisions), optEnum("algorithm", dotAlgorithms), opt("sparsity", AttrText),
	}
	collective = []AttrSpec{
		opt("replica_groups", AttrReplicaGroups), opt("channel_id", AttrInt),
		opt("constrain_layout", AttrBool), opt("use_global_device_ids", AttrBool),
	}
	accuracy       = []AttrSpec{opt("result_accuracy", AttrText)}
	hostTransfer   = []AttrSpec{opt("channel_id", AttrInt), opt("is_host_transfer", AttrBool)}
	asyncAttrs     = []AttrSpec{optComp("calls", "async computation"), opt("async_execution_thread", AttrString), opt("async_group_id", AttrInt), opt("output_to_operand_aliasing", AttrAliasing)}
	permuteAttrs   = []AttrSpec{req("source_target_pairs", AttrIntLists), opt("slice_sizes", AttrIntLists), opt("channel_id", AttrInt)}
	allGatherAttrs = append([]AttrSpec{req("dimensions", AttrInts)}, collective...)
	allReduceAttrs = append([]AttrSpec{reqComp("to_apply", "reducer"), optEnum("mode", collectiveMode)}, collective...)
)

// join concatenates attribute groups.
func join(groups ...[]AttrSpec) []AttrSpec {
	var out []AttrSpec
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// The operation table, one entry per opcode; the attribute lists follow what XLA's HLO parser accepts.
var opInfos = map[Opcode]OpInfo{
	// Elementwise unary.
	OpAbs:              {Operands: fixed(1), Elementwise: true, StableHLO: "stablehlo.abs"},
	OpAcos:             {Operands: fixed(1), Elementwise: true, StableHLO: "chlo.acos"},
	OpAcosh:            {Operands: fixed(1), Elementwise: true, StableHLO: "chlo.acosh"},
	OpAsin:             {Operands: fixed(1), Elementwise: true, StableHLO: "chlo.asin"},
	OpAsinh:            {Operands: fixed(1), Elementwise: true, StableHLO: "chlo.asinh"},
	OpAtan:             {Operands: fixed(1), Elementwise: true, StableHLO: "chlo.atan"},
	OpAtanh:            {Operands: fixed(1), Elementwise: true, StableHLO: "chlo.atanh"},
	OpCbrt:             {Operands: fixed(1), Attrs: accuracy, Elementwise: true, StableHLO: "stablehlo.cbrt"},
	OpCeil:             {Operands: fixed(1), Elementwise: true, StableHLO: "stablehlo.ceil"},
	OpClz:              {Operands: fixed(1), Elementwise: true, StableHLO: "stablehlo.count_leading_zeros"},
	OpCos:              {Operands: fixed(1), Attrs: accuracy, Elementwise: true, StableHLO: "stablehlo.cosine"},
	OpCosh:             {Operands: fixed(1), Elementwise: true, StableHLO: "chlo.cosh"},
	OpErf:              {Operands: fixed(1), Attrs: accuracy, Elementwise: true, StableHLO: "chlo.erf"},
	OpExp:              {Operands: fixed(1), Attrs: accuracy, Elementwise: true, StableHLO: "stablehlo.exponential"},
	OpExpm1:            {Operands: fixed(1), Attrs: accuracy, Elementwise: true, StableHLO: "stablehlo.exponential_minus_one"},
	OpFloor:            {Operands: fixed(1), Elementwise: true, StableHLO: "stablehlo.floor"},
	OpImag:             {Operands: fixed(1), Elementwise: true, StableHLO: "stablehlo.imag"},
	OpIsFinite:         {Operands: fixed(1), Elementwise: true, StableHLO: "stablehlo.is_finite"},
	OpLog:              {Operands: fixed(1), Attrs: accuracy, Elementwise: true, StableHLO: "stablehlo.log"},
	OpLog1p:            {Operands: fixed(1), Attrs: accuracy, Elementwise: true, StableHLO: "stablehlo.log_plus_one"},
	OpLogistic:         {Operands: fixed(1), Attrs: accuracy, Elementwise: true, StableHLO: "stablehlo.logistic"},
	OpNegate:           {Operands: fixed(1), Elementwise: true, StableHLO: "stablehlo.negate"},
	OpNot:              {Operands: fixed(1), Elementwise: true, StableHLO: "stablehlo.not"},
	OpPopulationCount:  {Operands: fixed(1), Elementwise: true, StableHLO: "stablehlo.popcnt"},
	OpReal:             {Operands: fixed(1), Elementwise: true, StableHLO: "stablehlo.real"},
	OpRoundNearestAfz:  {Operands: fixed(1), Elementwise: true, StableHLO: "stablehlo.round_nearest_afz"},
	OpRoundNearestEven: {Operands: fixed(1), Elementwise: true, StableHLO: "stablehlo.round_nearest_even"},
	OpRsqrt:            {Operands: fixed(1), Attrs: accuracy, Elementwise: true, StableHLO: "stablehlo.rsqrt"},
	OpSign:             {Operands: fixed(1), Elementwise: true, StableHLO: "stablehlo.sign"},
	OpSin:              {Operands: fixed(1), Attrs: accuracy, Elementwise: true, StableHLO: "stablehlo.sine"},
	OpSinh:             {Operands: fixed(1), Elementwise: true, StableHLO: "chlo.sinh"},
	OpSqrt:             {Operands: fixed(1), Attrs: accuracy, Elementwise: true, StableHLO: "stablehlo.sqrt"},
	OpTan:              {Operands: fixed(1), Attrs: accuracy, Elementwise: true, StableHLO: "stablehlo.tan"},
	OpTanh:             {Operands: fixed(1), Attrs: accuracy, Elementwise: true, StableHLO: "stablehlo.tanh"},
	OpConvert:          {Operands: fixed(1), Elementwise: true, StableHLO: "stablehlo.convert"},
	OpBitcastConvert:   {Operands: fixed(1), Elementwise: true, StableHLO: "stablehlo.bitcast_convert"},
	OpCopy:             {Operands: fixed(1), Elementwise: true},
	OpReducePrecision: {Operands: fixed(1), Elementwise: true, StableHLO: "stablehlo.reduce_precision",
		Attrs: []AttrSpec{req("exponent_bits", AttrInt), req("mantissa_bits", AttrInt)}},

	// Elementwise binary and ternary.
	OpAdd:                  {Operands: fixed(2), Elementwise: true, Commutative: true, StableHLO: "stablehlo.add"},
	OpAtan2:                {Operands: fixed(2), Elementwise: true, StableHLO: "stablehlo.atan2"},
	OpComplex:              {Operands: fixed(2), Elementwise: true, StableHLO: "stablehlo.complex"},
	OpDivide:               {Operands: fixed(2), Elementwise: true, StableHLO: "stablehlo.divide"},
	OpMaximum:              {Operands: fixed(2), Elementwise: true, Commutative: true, StableHLO: "stablehlo.maximum"},
	OpMinimum:              {Operands: fixed(2), Elementwise: true, Commutative: true, StableHLO: "stablehlo.minimum"},
	OpMulhi:                {Operands: fixed(2), Elementwise: true, Commutative: true},
	OpMultiply:             {Operands: fixed(2), Elementwise: true, Commutative: true, StableHLO: "stablehlo.multiply"},
	OpPower:                {Operands: fixed(2), Elementwise: true, StableHLO: "stablehlo.power"},
	OpRemainder:            {Operands: fixed(2), Elementwise: true, StableHLO: "stablehlo.remainder"},
	OpSubtract:             {Operands: fixed(2), Elementwise: true, StableHLO: "stablehlo.subtract"},
	OpAnd:                  {Operands: fixed(2), Elementwise: true, Commutative: true, StableHLO: "stablehlo.and"},
	OpOr:                   {Operands: fixed(2), Elementwise: true, Commutative: true, StableHLO: "stablehlo.or"},
	OpXor:                  {Operands: fixed(2), Elementwise: true, Commutative: true, StableHLO: "stablehlo.xor"},
	OpShiftLeft:            {Operands: fixed(2), Elementwise: true, StableHLO: "stablehlo.shift_left"},
	OpShiftRightArithmetic: {Operands: fixed(2), Elementwise: true, StableHLO: "stablehlo.shift_right_arithmetic"},
	OpShiftRightLogical:    {Operands: fixed(2), Elementwise: true, StableHLO: "stablehlo.shift_right_logical"},
	OpStochasticConvert:    {Operands: fixed(2), Elementwise: true},
	OpCompare: {Operands: fixed(2), Elementwise: true, StableHLO: "stablehlo.compare", Attrs: []AttrSpec{
		reqEnum("direction", comparisonDirections), optEnum("type", comparisonTypes),
	}},
	OpSelect: {Operands: fixed(3), Elementwise: true, StableHLO: "stablehlo.select"},
	OpClamp:  {Operands: fixed(3), Elementwise: true, StableHLO: "stablehlo.clamp"},

	// Leaves.
	OpParameter:   {Operands: fixed(0)},
	OpConstant:    {Operands: fixed(0), StableHLO: "stablehlo.constant"},
	OpIota:        {Operands: fixed(0), StableHLO: "stablehlo.iota", Attrs: []AttrSpec{req("iota_dimension", AttrInt)}},
	OpPartitionId: {Operands: fixed(0), StableHLO: "stablehlo.partition_id"},
	OpReplicaId:   {Operands: fixed(0), StableHLO: "stablehlo.replica_id"},

	// Shape and data movement.
	OpBitcast:            {Operands: fixed(1), MayAlias: true},
	OpBroadcast:          {Operands: fixed(1), StableHLO: "stablehlo.broadcast_in_dim", Attrs: []AttrSpec{req("dimensions", AttrInts)}},
	OpConcatenate:        {Operands: atLeast(1), ParsesAnyCount: true, StableHLO: "stablehlo.concatenate", Attrs: []AttrSpec{req("dimensions", AttrInts)}},
	OpDynamicReshape:     {Operands: atLeast(1), ParsesAnyCount: true, StableHLO: "stablehlo.dynamic_reshape"},
	OpDynamicSlice:       {Operands: atLeast(1), StableHLO: "stablehlo.dynamic_slice", Attrs: []AttrSpec{req("dynamic_slice_sizes", AttrInts)}},
	OpDynamicUpdateSlice: {Operands: atLeast(2), MayAlias: true, StableHLO: "stablehlo.dynamic_update_slice"},
	OpGetDimensionSize:   {Operands: fixed(1), StableHLO: "stablehlo.get_dimension_size", Attrs: []AttrSpec{req("dimensions", AttrInts)}},
	OpSetDimensionSize:   {Operands: fixed(2), StableHLO: "stablehlo.set_dimension_size", Attrs: []AttrSpec{req("dimensions", AttrInts)}},
	OpGetTupleElement:    {Operands: fixed(1), MayAlias: true, StableHLO: "stablehlo.get_tuple_element", Attrs: []AttrSpec{req("index", AttrInt)}},
	OpPad:                {Operands: fixed(2), StableHLO: "stablehlo.pad", Attrs: []AttrSpec{req("padding", AttrPadding)}},
	OpReshape:            {Operands: fixed(1), StableHLO: "stablehlo.reshape", Attrs: []AttrSpec{opt("inferred_dimension", AttrInt)}},
	OpReverse:            {Operands: fixed(1), StableHLO: "stablehlo.reverse", Attrs: []AttrSpec{req("dimensions", AttrInts)}},
	OpSlice:              {Operands: fixed(1), StableHLO: "stablehlo.slice", Attrs: []AttrSpec{req("slice", AttrSlice)}},
	OpTranspose:          {Operands: fixed(1), StableHLO: "stablehlo.transpose", Attrs: []AttrSpec{req("dimensions", AttrInts)}},
	OpTuple:              {Operands: atLeast(0), MayAlias: true, StableHLO: "stablehlo.tuple"},
	OpGather: {Operands: fixed(2), StableHLO: "stablehlo.gather", Attrs: []AttrSpec{
		req("offset_dims", AttrInts), req("collapsed_slice_dims", AttrInts), req("start_index_map", AttrInts),
		req("index_vector_dim", AttrInt), req("slice_sizes", AttrInts), opt("indices_are_sorted", AttrBool),
		opt("operand_batching_dims", AttrInts), opt("start_indices_batching_dims", AttrInts),
	}},
	OpScatter: {Operands: everyOther(3), StableHLO: "stablehlo.scatter", Attrs: []AttrSpec{
		req("update_window_dims", AttrInts), req("inserted_window_dims", AttrInts),
		req("scatter_dims_to_operand_dims", AttrInts), req("index_vector_dim", AttrInt),
		reqComp("to_apply", "update function"), opt("indices_are_sorted", AttrBool), opt("unique_indices", AttrBool),
		opt("input_batching_dims", AttrInts), opt("scatter_indices_batching_dims", AttrInts),
	}},

	// Contractions and windows.
	OpDot:       {Operands: fixed(2), ParsesAnyCount: true, StableHLO: "stablehlo.dot_general", Attrs: dotDims},
	OpScaledDot: {Operands: fixed(4), Attrs: dotDims},
	// XLA's parser takes the dot's dimension numbers and operand_precision on a ragged-dot, but neither
	// algorithm nor sparsity.
	OpRaggedDot: {Operands: fixed(3), StableHLO: "chlo.ragged_dot", Attrs: []AttrSpec{
		opt("lhs_batch_dims", AttrInts), opt("lhs_contracting_dims", AttrInts),
		opt("rhs_batch_dims", AttrInts), opt("rhs_contracting_dims", AttrInts),
		opt("lhs_ragged_dims", AttrInts), opt("rhs_group_dims", AttrInts), optEnums("operand_precision", precisions),
	}},
	OpConvolution: {Operands: fixed(2), StableHLO: "stablehlo.convolution", Attrs: []AttrSpec{
		opt("window", AttrWindow), req("dim_labels", AttrConvDims), opt("feature_group_count", AttrInt),
		opt("batch_group_count", AttrInt), optEnums("operand_precision", precisions), optEnum("algorithm", dotAlgorithms),
		optEnum("conv_kind", convKinds),
	}},
	OpFft: {Operands: fixed(1), StableHLO: "stablehlo.fft", Attrs: []AttrSpec{
		reqEnum("fft_type", fftTypes), req("fft_length", AttrInts),
	}},
	OpCholesky: {Operands: fixed(1), StableHLO: "stablehlo.cholesky", Attrs: []AttrSpec{opt("lower", AttrBool)}},
	OpTriangularSolve: {Operands: fixed(2), StableHLO: "stablehlo.triangular_solve", Attrs: []AttrSpec{
		opt("left_side", AttrBool), opt("lower", AttrBool), opt("unit_diagonal", AttrBool),
		optEnum("transpose_a", transposes),
	}},
	OpBatchNormGrad: {Operands: fixed(5), StableHLO: "stablehlo.batch_norm_grad",
		Attrs: []AttrSpec{req("epsilon", AttrFloat), req("feature_index", AttrInt)}},
	OpBatchNormInference: {Operands: fixed(5), StableHLO: "stablehlo.batch_norm_inference",
		Attrs: []AttrSpec{req("epsilon", AttrFloat), req("feature_index", AttrInt)}},
	OpBatchNormTraining: {Operands: fixed(3), StableHLO: "stablehlo.batch_norm_training",
		Attrs: []AttrSpec{req("epsilon", AttrFloat), req("feature_index", AttrInt)}},

	// Reductions and calls.
	OpReduce: {Operands: everyOther(2), StableHLO: "stablehlo.reduce",
		Attrs: []AttrSpec{req("dimensions", AttrInts), reqComp("to_apply", "reducer")}},
	OpReduceWindow: {Operands: everyOther(2), StableHLO: "stablehlo.reduce_window",
		Attrs: []AttrSpec{opt("window", AttrWindow), reqComp("to_apply", "reducer")}},
	OpSelectAndScatter: {Operands: fixed(3), StableHLO: "stablehlo.select_and_scatter", Attrs: []AttrSpec{
		opt("window", AttrWindow), reqComp("select", "selector"), reqComp("scatter", "scatterer"),
	}},
	OpMap: {Operands: atLeast(1), ParsesAnyCount: true, StableHLO: "stablehlo.map",
		Attrs: []AttrSpec{opt("dimensions", AttrInts), reqComp("to_apply", "mapped function")}},
	OpSort: {Operands: atLeast(1), ParsesAnyCount: true, StableHLO: "stablehlo.sort", Attrs: []AttrSpec{
		req("dimensions", AttrInts), reqComp("to_apply", "comparator"), opt("is_stable", AttrBool),
	}},
	OpTopk: {Operands: fixed(1), StableHLO: "chlo.top_k", Attrs: []AttrSpec{req("k", AttrInt), opt("largest", AttrBool), opt("is_stable", AttrBool)}},
	OpScan: {Operands: atLeast(1), ParsesAnyCount: true, StableHLO: "chlo.scan", Attrs: []AttrSpec{
		req("dimensions", AttrInts), req("num_carries", AttrInt), opt("is_reverse", AttrBool),
		opt("is_associative", AttrBool), reqComp("to_apply", "scanned function"),
	}},
	OpCall: {Operands: atLeast(0), StableHLO: "func.call", Attrs: []AttrSpec{
		reqComp("to_apply", "callee"), opt("is_composite", AttrBool),
	}},
	OpFusion: {Operands: atLeast(0), MayAlias: true, Attrs: []AttrSpec{
		reqEnum("kind", fusionKinds), reqComp("calls", "fused computation"),
		opt("output_to_operand_aliasing", AttrAliasing),
	}},
	OpWhile: {Operands: fixed(1), MayAlias: true, StableHLO: "stablehlo.while", Attrs: []AttrSpec{
		reqComp("condition", "loop condition"), reqComp("body", "loop body"),
	}},
	OpConditional: {Operands: atLeast(2), StableHLO: "stablehlo.case", Attrs: []AttrSpec{
		optComps("branch_computations", "branches"), optComp("true_computation", "true branch"),
		optComp("false_computation", "false branch"),
	}},
	OpCustomCall: {Operands: atLeast(0), MayAlias: true, StableHLO: "stablehlo.custom_call", Attrs: []AttrSpec{
		req("custom_call_target", AttrString), opt("custom_call_has_side_effect", AttrBool),
		optEnum("api_version", apiVersions), opt("operand_layout_constraints", AttrShapes),
		opt("output_to_operand_aliasing", AttrAliasing), opt("called_computations", AttrComps),
		optComp("to_apply", "called computation"), opt("literal", AttrLiteral), optEnum("schedule", schedules),
		opt("window", AttrWindow), opt("dim_labels", AttrConvDims),
		opt("feature_group_count", AttrInt), opt("batch_group_count", AttrInt),
		optEnums("operand_precision", precisions), optEnum("padding_type", paddingTypes),
	}},
	OpOptimizationBarrier: {Operands: fixed(1), MayAlias: true, StableHLO: "stablehlo.optimization_barrier"},
	OpDomain:              {Operands: fixed(1), MayAlias: true, Attrs: []AttrSpec{req("domain", AttrText)}},
	OpAddDependency:       {Operands: fixed(2), SideEffect: true, MayAlias: true},
	OpAfterAll:            {Operands: atLeast(0), SideEffect: true, StableHLO: "stablehlo.after_all"},

	// Random numbers.
	OpRng: {Operands: fixed(2), ParsesAnyCount: true, SideEffect: true, StableHLO: "stablehlo.rng",
		Attrs: []AttrSpec{reqEnum("distribution", distributions)}},
	OpRngBitGenerator: {Operands: fixed(1), ParsesAnyCount: true, StableHLO: "stablehlo.rng_bit_generator",
		Attrs: []AttrSpec{reqEnum("algorithm", rngAlgorithms)}},
	OpRngGetAndUpdateState: {Operands: fixed(0), SideEffect: true, Attrs: []AttrSpec{req("delta", AttrInt)}},

	// Collectives.
	OpAllGather:      {Operands: atLeast(1), ParsesAnyCount: true, StableHLO: "stablehlo.all_gather", Attrs: allGatherAttrs},
	OpAllGatherStart: {Operands: atLeast(1), ParsesAnyCount: true, SideEffect: true, Attrs: allGatherAttrs},
	OpAllGatherDone:  {Operands: fixed(1)},
	OpAllReduce:      {Operands: atLeast(1), ParsesAnyCount: true, StableHLO: "stablehlo.all_reduce", Attrs: allReduceAttrs},
	OpAllReduceStart: {Operands: atLeast(1), ParsesAnyCount: true, SideEffect: true, Attrs: allReduceAttrs},
	OpAllReduceDone:  {Operands: fixed(1)},
	OpReduceScatter: {Operands: atLeast(1), ParsesAnyCount: true, StableHLO: "stablehlo.reduce_scatter",
		Attrs: join([]AttrSpec{req("dimensions", AttrInts)}, allReduceAttrs)},
	OpCollectiveReduce: {Operands: atLeast(1), Attrs: allReduceAttrs},
	OpAllToAll: {Operands: atLeast(1), ParsesAnyCount: true, StableHLO: "stablehlo.all_to_all",
		Attrs: join([]AttrSpec{opt("dimensions", AttrInts)}, collective)},
	OpRaggedAllToAll: {Operands: fixed(6), ParsesAnyCount: true, Attrs: join([]AttrSpec{opt("dimensions", AttrInts)}, collective)},
	OpCollectiveBroadcast: {Operands: atLeast(1), ParsesAnyCount: true, StableHLO: "stablehlo.collective_broadcast", Attrs: []AttrSpec{
		opt("replica_groups", AttrReplicaGroups), opt("channel_id", AttrInt), opt("has_dynamic_root", AttrBool),
	}},
	OpCollectivePermute: {Operands: atLeast(1), ParsesAnyCount: true, StableHLO: "stablehlo.collective_permute",
		Attrs: permuteAttrs},
	OpCollectivePermuteStart: {Operands: atLeast(1), ParsesAnyCount: true, SideEffect: true, Attrs: permuteAttrs},
	OpCollectivePermuteDone:  {Operands: fixed(1)},
	OpShuffle:                {Operands: atLeast(1)},

	// Asynchronous pairs and host transfers.
	OpAsyncStart:  {Operands: atLeast(0), SideEffect: true, MayAlias: true, Attrs: asyncAttrs},
	OpAsyncUpdate: {Operands: fixed(1), SideEffect: true, MayAlias: true, Attrs: asyncAttrs},
	OpAsyncDone:   {Operands: fixed(1), SideEffect: true, MayAlias: true, Attrs: asyncAttrs},
	OpCopyStart: {Operands: fixed(1), SideEffect: true, MayAlias: true,
		Attrs: []AttrSpec{opt("cross_program_prefetch_index", AttrInt), opt("is_cross_program_prefetch", AttrBool)}},
	OpCopyDone: {Operands: fixed(1), SideEffect: true, MayAlias: true},
	OpSend:     {Operands: fixed(2), SideEffect: true, StableHLO: "stablehlo.send", Attrs: hostTransfer},
	OpSendDone: {Operands: fixed(1), SideEffect: true, Attrs: hostTransfer},
	OpRecv:     {Operands: fixed(1), SideEffect: true, StableHLO: "stablehlo.recv", Attrs: hostTransfer},
	OpRecvDone: {Operands: fixed(1), SideEffect: true, Attrs: hostTransfer},
	OpInfeed: {Operands: fixed(1), SideEffect: true, StableHLO: "stablehlo.infeed",
		Attrs: []AttrSpec{opt("infeed_config", AttrString)}},
	OpOutfeed: {Operands: fixed(2), SideEffect: true, StableHLO: "stablehlo.outfeed",
		Attrs: []AttrSpec{opt("outfeed_shape", AttrShape), opt("outfeed_config", AttrString)}},
}

var opTable = func() *[numOpcodes]OpInfo {
	var t [numOpcodes]OpInfo
	for op, info := range opInfos {
		info.Opcode = op
		t[op] = info
	}
	return &t
}()

// Info returns the table entry of op; nil for OpInvalid and values out of range. The entry is shared and
// must not be modified.
func (op Opcode) Info() *OpInfo {
	if op == OpInvalid || op >= numOpcodes {
		return nil
	}
	return &opTable[op]
}

// Attr returns the spec of the attribute named name on the opcode, the opcode's own before CommonAttrs;
// nil when the opcode does not accept it.
func (info *OpInfo) Attr(name string) *AttrSpec {
	for i := range info.Attrs {
		if info.Attrs[i].Name == name {
			return &info.Attrs[i]
		}
	}
	return commonAttr(name)
}

func commonAttr(name string) *AttrSpec {
	for i := range commonAttrs {
		if commonAttrs[i].Name == name {
			return &commonAttrs[i]
		}
	}
	return nil
}

// String describes the spec as the ops table shows it: "dimensions:integer-list", "?to_apply:computation"
// for an optional one, "direction:EQ|NE|..." for an enum and "?operand_precision:{default|high|...}" for a
// list of enum words.
func (s *AttrSpec) String() string {
	var b strings.Builder
	if !s.Required {
		b.WriteByte('?')
	}
	b.WriteString(s.Name)
	b.WriteByte(':')
	switch {
	case s.Kind == AttrEnums:
		b.WriteString("{" + strings.Join(s.Values, "|") + "}")
	case len(s.Values) > 0:
		b.WriteString(strings.Join(s.Values, "|"))
	default:
		b.WriteString(strings.ReplaceAll(s.Kind.String(), " ", "-"))
	}
	return b.String()
}

// LookupAttr returns the spec of the attribute named name on an instruction of opcode op: op's own, then
// the common attributes, then, for an async instruction written in XLA's syntax sugar ("custom-call-start"),
// those of the opcode it wraps; nil when the instruction does not take the attribute.
func LookupAttr(op, wrapped Opcode, name string) *AttrSpec {
	info := op.Info()
	if info == nil {
		return nil
	}
	if s := info.Attr(name); s != nil {
		return s
	}
	if w := wrapped.Info(); w != nil {
		return w.Attr(name)
	}
	return nil
}

package printer

import (
	"fmt"
	"strings"

	"octet/hlo"
)

// Style is a family of output forms: XLA's text in one of its option sets, Octet's readable form, or JSON.
type Style int

// The styles. StyleReadable is the zero value and the default of "octet print".
const (
	StyleReadable Style = iota // for people: no metadata, no noise, backend configs indented, GEMMs summarised
	StyleXLA                   // HloModule::ToString() with default HloPrintOptions (operand shapes on)
	StyleXLALong               // StyleXLA with large constants
	StyleXLAShort              // HloPrintOptions::ShortParsable()
	StyleJSON                  // a JSON document of the module (see the package documentation)
)

var styleNames = [...]string{
	StyleReadable: "readable",
	StyleXLA:      "xla",
	StyleXLALong:  "xla-long",
	StyleXLAShort: "xla-short",
	StyleJSON:     "json",
}

// String returns the style's name as "octet print --format" spells it.
func (s Style) String() string {
	if s >= 0 && int(s) < len(styleNames) {
		return styleNames[s]
	}
	return fmt.Sprintf("Style(%d)", int(s))
}

// ParseStyle returns the style named name (readable, xla, xla-long, xla-short, json).
func ParseStyle(name string) (Style, error) {
	for s, n := range styleNames {
		if n == name {
			return Style(s), nil
		}
	}
	return 0, fmt.Errorf("unknown format %q (want %s)", name, strings.Join(styleNames[:], ", "))
}

// SubcomputationMode says how an instruction refers to the computations it calls (XLA's
// PrintSubcomputationMode).
type SubcomputationMode int

// The modes. NameOnly is XLA's default.
const (
	SubcomputationsNameOnly            SubcomputationMode = iota // to_apply=%add
	SubcomputationsOff                                           // the attribute is left out
	SubcomputationsFullBodies                                    // to_apply=\n{ ...the body... }
	SubcomputationsNonSequentialBodies                           // full bodies except for call, conditional and while
)

// Config holds every option of a print. The fields named after XLA's HloPrintOptions mean what they mean
// there; ConfigFor returns the option set of each style. Options that only change how XLA names or orders
// things it builds itself (canonical names, print_ids, fingerprints) have no counterpart: Octet prints the
// names and the order it was given. A wrapped async instruction always prints in XLA's sugared form
// (custom-call-start(...)), the form Octet's IR keeps.
type Config struct {
	// Style selects the form. The options below apply to the XLA styles; the readable style uses those
	// that make sense for it (ConfigFor sets them), and JSON uses PrintLargeConstants and the metadata
	// switches.
	Style Style

	PrintLargeConstants     bool // print constants with more than 10 elements (else "{...}")
	PrintMetadata           bool // metadata={...}, and the stack frame tables of the module
	PrintMetadataOnlyOpName bool // with PrintMetadata: only op_name
	PrintBackendConfig      bool // backend_config=...
	PrintOperandShape       bool // f32[2]{0} %a rather than %a in operand lists
	PrintOperandNames       bool // the operand names (off leaves only their shapes)
	// PrintOperandIndexAnnotationInterval puts /*index=N*/ before every Nth operand; 0 never.
	PrintOperandIndexAnnotationInterval int
	PrintProgramShape                   bool // "(p: f32[2]) -> f32[2]" in computation headers
	PrintPercent                        bool // "%" before instruction and computation names
	PrintControlDependencies            bool // control-predecessors={...}
	PrintResultShape                    bool // the shape after "name = "
	IncludeLayoutInShapes               bool // layouts in result and operand shapes
	PrintSubcomputationMode             SubcomputationMode
	PrintExtraAttributes                bool // the opcode-specific attributes (dimensions=, to_apply=, ...)
	PrintFrontendAttributes             bool // frontend_attributes={...} of instructions
	PrintOriginalValue                  bool // origin={...}
	PrintInfeedOutfeedConfig            bool // infeed_config= and outfeed_config=
	PrintParameterNumber                bool // N in parameter(N)
	PrintFullReplicaGroupList           bool // expand iota replica groups into the explicit list
	PrintNameAfterClosingBrace          bool // "} // name" after computations of more than 5 instructions
	// CompactOperands prints at most 4 operands followed by ", ...(+N)" (the text no longer parses).
	CompactOperands bool
	// IndentAmount indents every line by 2*IndentAmount spaces.
	IndentAmount int

	// OmitDefaultLayouts leaves out layouts that are the default row-major order with nothing else set
	// (the readable style).
	OmitDefaultLayouts bool
	// Color uses ANSI colours for opcodes, names, types and annotations (readable style; set it only for
	// terminals).
	Color bool
	// Annotate, when set, gives the comment lines the readable style prints under an instruction, one
	// "// line" each, indented one level deeper than the instruction and before its backend config.
	// Package cublas's Annotate summarises GEMM custom calls.
	Annotate func(*hlo.Instruction) []string
	// InstructionLine, when set, is called with every instruction the text styles print and the line of
	// the output it is printed on, counted from 0, in output order (nested bodies included): a caller
	// that shows the text can link to each instruction without reading the text again.
	InstructionLine func(in *hlo.Instruction, line int)
}

// ConfigFor returns the option set of style s.
func ConfigFor(s Style) Config {
	c := Config{
		Style:                               s,
		PrintMetadata:                       true,
		PrintBackendConfig:                  true,
		PrintOperandShape:                   true,
		PrintOperandNames:                   true,
		PrintOperandIndexAnnotationInterval: 5,
		PrintProgramShape:                   true,
		PrintPercent:                        true,
		PrintControlDependencies:            true,
		PrintResultShape:                    true,
		IncludeLayoutInShapes:               true,
		PrintSubcomputationMode:             SubcomputationsNameOnly,
		PrintExtraAttributes:                true,
		PrintFrontendAttributes:             true,
		PrintOriginalValue:                  true,
		PrintInfeedOutfeedConfig:            true,
		PrintParameterNumber:                true,
	}
	switch s {
	case StyleXLALong:
		c.PrintLargeConstants = true
	case StyleXLAShort:
		c.PrintLargeConstants = true
		c.PrintMetadata = false
		c.PrintOperandShape = false
		c.PrintOperandIndexAnnotationInterval = 0
		c.PrintProgramShape = false
		c.PrintPercent = false
		c.PrintControlDependencies = false
	case StyleReadable:
		c.PrintMetadata = false
		c.PrintOperandShape = false
		c.PrintOperandIndexAnnotationInterval = 0
		c.PrintPercent = false
		c.OmitDefaultLayouts = true
	}
	return c
}

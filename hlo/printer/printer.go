package printer

import (
	"bytes"
	"io"
	"strconv"
	"strings"

	"octet/hlo"
	"octet/internal/safetext"
)

// flushSize is the buffered output at which Fprint writes to its writer.
const flushSize = 256 << 10

// Fprint writes m to w in the form cfg asks for.
func Fprint(w io.Writer, m *hlo.Module, cfg Config) error {
	p := &printer{cfg: cfg, w: w, b: make([]byte, 0, flushSize+4096)}
	if cfg.Style == StyleJSON {
		p.jsonModule(m)
	} else {
		p.module(m)
	}
	p.flush()
	return p.err
}

// Sprint returns m in the form cfg asks for.
func Sprint(m *hlo.Module, cfg Config) string {
	var sb strings.Builder
	Fprint(&sb, m, cfg)
	return sb.String()
}

// InstructionString returns one instruction as a line of cfg's form, without indentation, "ROOT" or the
// readable style's annotations: for messages. The JSON style gives the XLA form.
func InstructionString(in *hlo.Instruction, cfg Config) string {
	if cfg.Style == StyleJSON {
		cfg.Style = StyleXLA
	}
	p := &printer{cfg: cfg}
	p.instructionLine(in)
	return string(p.b)
}

// printer holds the output of one print.
type printer struct {
	cfg Config
	b   []byte
	w   io.Writer // nil: everything stays in b
	err error
	// notes are the lines the readable style puts under the instruction being printed.
	notes       []byte
	noteScratch []byte
	// lines counts the newlines of the output before b[counted:], for Config.InstructionLine.
	lines   int
	counted int
}

func (p *printer) flush() {
	if p.w == nil || len(p.b) == 0 {
		return
	}
	if p.cfg.InstructionLine != nil {
		p.line()
		p.counted = 0
	}
	if p.err == nil {
		_, p.err = p.w.Write(p.b)
	}
	p.b = p.b[:0]
}

func (p *printer) maybeFlush() {
	if len(p.b) >= flushSize {
		p.flush()
	}
}

func (p *printer) str(s string) { p.b = append(p.b, s...) }

// line returns the line the output has reached, counted from 0.
func (p *printer) line() int {
	p.lines += bytes.Count(p.b[p.counted:], []byte{'\n'})
	p.counted = len(p.b)
	return p.lines
}

// readable reports whether the readable style is printed, whose strings from the module are escaped.
func (p *printer) readable() bool { return p.cfg.Style == StyleReadable }

// text appends a string from the module: as it is, but escaped in the readable style (package
// internal/safetext), so that no name or value can start a line or hold a control character.
func (p *printer) text(s string) {
	if p.readable() {
		p.b = safetext.AppendEscape(p.b, s)
		return
	}
	p.b = append(p.b, s...)
}

// escapeFrom escapes, in the readable style, what was appended to p.b since start.
func (p *printer) escapeFrom(start int) {
	if !p.readable() {
		return
	}
	for _, c := range p.b[start:] {
		if c < 0x20 || c >= 0x7f {
			tail := string(p.b[start:])
			p.b = safetext.AppendEscape(p.b[:start], tail)
			return
		}
	}
}

func (p *printer) byte(c byte) { p.b = append(p.b, c) }

func (p *printer) int(v int64) { p.b = strconv.AppendInt(p.b, v, 10) }

func (p *printer) indent(level int) {
	for i := 0; i < level; i++ {
		p.b = append(p.b, "  "...)
	}
}

// ANSI colours of the readable style.
const (
	colorName   = "\x1b[36m"   // cyan: instruction and computation names
	colorOpcode = "\x1b[1;34m" // bold blue: opcodes
	colorType   = "\x1b[32m"   // green: shapes
	colorNote   = "\x1b[2m"    // dim: annotations
	colorReset  = "\x1b[0m"
)

func (p *printer) color(code string) {
	if p.cfg.Color {
		p.b = append(p.b, code...)
	}
}

func (p *printer) reset() {
	if p.cfg.Color {
		p.b = append(p.b, colorReset...)
	}
}

// name appends an instruction or computation name, with "%" when asked.
func (p *printer) name(n string) {
	if p.cfg.PrintPercent {
		p.b = append(p.b, '%')
	}
	p.text(n)
}

func (p *printer) shape(s hlo.Shape) {
	p.color(colorType)
	p.b = appendShape(p.b, s, p.cfg.IncludeLayoutInShapes, p.cfg.OmitDefaultLayouts)
	p.reset()
}

// module prints m in one of the text styles.
func (p *printer) module(m *hlo.Module) {
	p.str("HloModule ")
	p.text(m.Name)
	p.moduleAttrs(m)
	if p.cfg.PrintMetadata {
		p.stackFrames(m.StackFrames)
	}
	p.str("\n\n")
	for _, c := range m.Computations {
		p.computation(c, p.cfg.IndentAmount, false)
		p.str("\n\n")
		p.maybeFlush()
	}
	if p.cfg.Style == StyleReadable && bytes.HasSuffix(p.b, []byte("\n\n")) {
		p.b = p.b[:len(p.b)-1]
	}
}

// headerFirst are the header attributes XLA prints before entry_computation_layout.
var headerFirst = map[string]bool{
	"is_scheduled": true, "input_output_alias": true, "buffer_donor": true, "alias_passthrough_params": true,
}

// moduleAttrs prints the header attributes in stored order. A module without entry_computation_layout gets
// the one XLA computes from the entry computation, in the place XLA prints it.
func (p *printer) moduleAttrs(m *hlo.Module) {
	var computed *hlo.ProgramShape
	if m.EntryComputationLayout() == nil && m.Entry != nil {
		ps := m.Entry.ProgramShape()
		computed = &ps
	}
	readable := p.cfg.Style == StyleReadable
	if readable && (computed != nil || redundantLayout(m)) {
		// The entry computation's header says it all.
		computed = nil
	}
	emitComputed := func() {
		if computed != nil {
			p.str(", entry_computation_layout=")
			p.value(computed)
			computed = nil
		}
	}
	for _, a := range m.Attrs {
		if !headerFirst[a.Name] {
			emitComputed()
		}
		v := a.Value
		if readable && a.Name == "entry_computation_layout" && redundantLayout(m) {
			continue
		}
		if readable && a.Name == "frontend_attributes" {
			fa, ok := v.(hlo.FrontendAttributes)
			if ok {
				fa = dropFingerprints(fa)
				if len(fa) == 0 {
					continue
				}
				v = fa
			}
		}
		switch a.Name {
		case "debug_attributes":
			// XLA starts this multi-line table on a line of its own.
			p.str(",\n")
		default:
			p.str(", ")
		}
		p.str(a.Name)
		p.byte('=')
		if r, ok := v.(hlo.Raw); ok && readable && hlo.HeaderTable(a.Name) && safetext.Escape(string(r)) != string(r) {
			p.b = appendReadableQuoted(p.b, string(r))
		} else {
			p.value(v)
		}
		if a.Name == "origin_recovery_table" {
			p.byte('\n')
		}
	}
	emitComputed()
}

// appendReadableQuoted appends s as a double-quoted string in the readable style: '"' and '\\' escaped by
// a backslash, everything else as package internal/safetext escapes it (printable Unicode as it is). Each
// escape is one that absl::CUnescape, and so the parser, undoes.
func appendReadableQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	if strings.ContainsAny(s, `"\`) {
		s = strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
	}
	b = safetext.AppendEscape(b, s)
	return append(b, '"')
}

// redundantLayout reports whether the module's entry_computation_layout (absent counts) holds nothing
// the entry computation's signature does not show: the same shapes with default layouts, on the entry's
// parameters and root too, from which a module without the attribute computes it. (A default layout in
// the header for a parameter that has a tiled one is not redundant: read back without it, the module
// would take the tiled one.)
func redundantLayout(m *hlo.Module) bool {
	if m.Entry == nil {
		return false
	}
	ps := m.EntryComputationLayout()
	if ps == nil {
		return true
	}
	entry := m.Entry.ProgramShape()
	if len(ps.Params) != len(entry.Params) {
		return false
	}
	same := func(a, b hlo.Shape) bool { return a.Compatible(b) && defaultLayouts(a) && defaultLayouts(b) }
	for i := range ps.Params {
		if !same(ps.Params[i], entry.Params[i]) {
			return false
		}
	}
	return same(ps.Result, entry.Result)
}

// defaultLayouts reports whether every layout in s is absent or the default one (so that the readable
// style leaves it out).
func defaultLayouts(s hlo.Shape) bool {
	switch s.Kind {
	case hlo.ArrayShape:
		l := s.Layout
		if l == nil {
			return true
		}
		if len(s.Dims) == 0 {
			return len(l.MinorToMajor) == 0 && l.OnlyMinorToMajor()
		}
		return len(l.MinorToMajor) == len(s.Dims) && l.IsDefault()
	case hlo.TupleShape, hlo.BufferShape:
		for _, e := range s.Tuple {
			if !defaultLayouts(e) {
				return false
			}
		}
	}
	return true
}

// dropFingerprints removes the fingerprint entries XLA adds to a module's frontend attributes.
func dropFingerprints(fa hlo.FrontendAttributes) hlo.FrontendAttributes {
	var out hlo.FrontendAttributes
	for _, kv := range fa {
		if !strings.Contains(kv.Key, "fingerprint") {
			out = append(out, kv)
		}
	}
	return out
}

// stackFrames prints the module's source-location tables as XLA does, after the header line.
func (p *printer) stackFrames(t *hlo.StackFrameTables) {
	if t == nil || len(t.FileNames) == 0 {
		return
	}
	p.str("\n\nFileNames\n")
	for i, s := range t.FileNames {
		p.int(int64(i + 1))
		p.byte(' ')
		p.b = appendQuoted(p.b, s)
		p.byte('\n')
	}
	p.str("\nFunctionNames\n")
	for i, s := range t.FunctionNames {
		p.int(int64(i + 1))
		p.byte(' ')
		p.b = appendQuoted(p.b, s)
		p.byte('\n')
	}
	p.str("\nFileLocations\n")
	for i, l := range t.FileLocations {
		p.int(int64(i + 1))
		p.str(" {file_name_id=")
		p.int(l.FileNameID)
		p.str(" function_name_id=")
		p.int(l.FunctionNameID)
		p.str(" line=")
		p.int(l.Line)
		p.str(" end_line=")
		p.int(l.EndLine)
		p.str(" column=")
		p.int(l.Column)
		p.str(" end_column=")
		p.int(l.EndColumn)
		p.str("}\n")
	}
	p.str("\nStackFrames\n")
	for i, f := range t.Frames {
		p.int(int64(i + 1))
		p.str(" {file_location_id=")
		p.int(f.FileLocationID)
		p.str(" parent_frame_id=")
		p.int(f.ParentFrameID)
		p.str("}\n")
	}
}

// computation prints c at the given indentation level; nested is set for a body printed inside a calling
// instruction (no name, as XLA).
func (p *printer) computation(c *hlo.Computation, level int, nested bool) {
	p.indent(level)
	if !nested {
		if c.IsEntry || (c.Module != nil && c.Module.Entry == c) {
			p.str("ENTRY ")
		}
		p.color(colorName)
		p.name(c.Name)
		p.reset()
		p.byte(' ')
	}
	if p.cfg.PrintProgramShape {
		p.color(colorType)
		start := len(p.b)
		p.b = appendProgramShape(p.b, c, false, false)
		p.escapeFrom(start)
		p.reset()
		p.byte(' ')
	}
	p.str("{\n")
	var saved []byte // a nested body must not clobber its caller's notes
	if len(p.notes) > 0 {
		saved = append(saved, p.notes...)
	}
	p.notes = p.notes[:0]
	for _, in := range c.Instructions {
		if p.cfg.InstructionLine != nil {
			p.cfg.InstructionLine(in, p.line())
		}
		p.indent(level + 1)
		if in == c.Root {
			p.str("ROOT ")
		}
		p.notes = p.notes[:0]
		p.instructionAt(in, level+1)
		p.byte('\n')
		if len(p.notes) > 0 {
			p.b = append(p.b, p.notes...)
		}
		p.maybeFlush()
	}
	p.notes = append(p.notes[:0], saved...)
	p.indent(level)
	p.byte('}')
	for _, a := range c.Attrs {
		p.str(", ")
		p.str(a.Name)
		p.byte('=')
		p.value(a.Value)
	}
	if p.cfg.PrintNameAfterClosingBrace && len(c.Instructions) > 5 {
		p.str(" // ")
		p.text(c.Name)
	}
}

// instructionLine prints in alone, for InstructionString.
func (p *printer) instructionLine(in *hlo.Instruction) {
	p.instructionAt(in, -1)
}

// instructionAt prints one instruction; level is its indentation (nested bodies and readable notes use
// it), -1 when it is printed alone.
func (p *printer) instructionAt(in *hlo.Instruction, level int) {
	p.color(colorName)
	p.name(in.Name)
	p.reset()
	p.str(" = ")
	if p.cfg.PrintResultShape {
		p.shape(in.Shape)
		p.byte(' ')
	}
	p.color(colorOpcode)
	if in.AsyncWrapped != hlo.OpInvalid {
		p.str(in.AsyncWrapped.String())
		switch in.Opcode {
		case hlo.OpAsyncStart:
			p.str("-start")
		case hlo.OpAsyncUpdate:
			p.str("-update")
		default:
			p.str("-done")
		}
	} else {
		p.str(in.Opcode.String())
	}
	p.reset()
	p.byte('(')
	switch {
	case in.Opcode == hlo.OpParameter:
		if p.cfg.PrintParameterNumber {
			p.int(in.ParameterNumber)
		}
	case in.Opcode == hlo.OpConstant:
		p.literal(in)
	default:
		p.operands(in)
	}
	p.byte(')')
	readable := p.cfg.Style == StyleReadable && level >= 0
	noted := len(p.notes)
	for _, a := range in.Attrs {
		if !p.keepAttr(a) {
			continue
		}
		if readable && a.Name == "backend_config" {
			if bc, ok := a.Value.(*hlo.BackendConfig); ok && p.backendConfigNote(bc, level) {
				continue
			}
		}
		p.attr(a, level)
	}
	if len(p.notes) > noted {
		// The backend config on the lines below is the instruction's last attribute: the comma keeps the
		// text one that reads back.
		p.byte(',')
	}
	if readable {
		p.annotationNote(in, level)
	}
}

// literal prints a constant's value as XLA does, or {...} for a large one unless asked.
func (p *printer) literal(in *hlo.Instruction) {
	if in.Literal == nil {
		p.str("{...}")
		return
	}
	if p.cfg.PrintLargeConstants || (in.Shape.IsArray() && in.Shape.NumElements() >= 0 && in.Shape.NumElements() <= 10) {
		p.b = appendLiteral(p.b, in.Literal, in.Shape)
		return
	}
	p.str("{...}")
}

func (p *printer) operands(in *hlo.Instruction) {
	ops := in.Operands()
	n := len(ops)
	if p.cfg.CompactOperands && n > 4 {
		n = 4
	}
	for i := 0; i < n; i++ {
		if i > 0 {
			p.b = appendSeparator(p.b, i, p.cfg.PrintOperandIndexAnnotationInterval)
		}
		op := ops[i]
		if op == nil {
			p.str("null ")
			continue
		}
		if p.cfg.PrintOperandShape {
			p.shape(op.Shape)
			if p.cfg.PrintOperandNames {
				p.byte(' ')
			}
		}
		if p.cfg.PrintOperandNames {
			p.color(colorName)
			p.name(op.Name)
			p.reset()
		}
	}
	if n < len(ops) {
		p.str(", ...(+")
		p.int(int64(len(ops) - n))
		p.byte(')')
	}
}

// generalAttrs are the attributes every instruction may have; the others are opcode-specific ("extra").
var generalAttrs = map[string]bool{
	"metadata": true, "backend_config": true, "control-predecessors": true, "frontend_attributes": true,
	"sharding": true, "origin": true, "statistics": true, "result_accuracy": true,
}

// keepAttr reports whether the options print attribute a.
func (p *printer) keepAttr(a hlo.Attr) bool {
	switch a.Name {
	case "metadata":
		if !p.cfg.PrintMetadata {
			return false
		}
		md, ok := a.Value.(hlo.Metadata)
		return !ok || metadataPrinted(md)
	case "backend_config":
		return p.cfg.PrintBackendConfig
	case "control-predecessors":
		return p.cfg.PrintControlDependencies
	case "frontend_attributes":
		return p.cfg.PrintFrontendAttributes
	case "origin":
		return p.cfg.PrintOriginalValue
	case "infeed_config", "outfeed_config":
		if !p.cfg.PrintInfeedOutfeedConfig {
			return false
		}
	}
	switch a.Value.(type) {
	case hlo.CompRef, hlo.CompList:
		return p.cfg.PrintSubcomputationMode != SubcomputationsOff
	}
	return p.cfg.PrintExtraAttributes || generalAttrs[a.Name]
}

// metadataPrinted reports whether XLA prints metadata: only when it names an op type, an op name, a source
// file or a scheduling name, or refers to a stack frame.
func metadataPrinted(md hlo.Metadata) bool {
	for _, kv := range md {
		switch kv.Key {
		case "op_type", "op_name", "source_file", "scheduling_name":
			if kv.Value != `""` && kv.Value != "" {
				return true
			}
		case "stack_frame_id":
			if kv.Value != "0" {
				return true
			}
		}
	}
	return false
}

// attr prints ", name=value".
func (p *printer) attr(a hlo.Attr, level int) {
	p.str(", ")
	p.text(a.Name)
	p.byte('=')
	mode := p.cfg.PrintSubcomputationMode
	if mode == SubcomputationsFullBodies || mode == SubcomputationsNonSequentialBodies && !sequentialAttr(a.Name) {
		if p.bodies(a.Value, level) {
			return
		}
	}
	if a.Name == "metadata" && p.cfg.PrintMetadataOnlyOpName {
		if md, ok := a.Value.(hlo.Metadata); ok {
			p.byte('{')
			for _, kv := range md {
				if kv.Key == "op_name" {
					p.text(kv.Key)
					p.byte('=')
					start := len(p.b)
					p.b = p.appendMetadataValue(p.b, kv)
					p.escapeFrom(start)
				}
			}
			p.byte('}')
			return
		}
	}
	if a.Name == "sharding" && !p.cfg.PrintMetadata {
		if s, ok := a.Value.(*hlo.Sharding); ok {
			p.text(stripShardingMetadata(s.Text))
			return
		}
	}
	p.value(a.Value)
}

// sequentialAttr reports whether an attribute names the computations of a call, conditional or while,
// whose bodies SubcomputationsNonSequentialBodies does not print.
func sequentialAttr(name string) bool {
	switch name {
	case "condition", "body", "true_computation", "false_computation", "branch_computations":
		return true
	}
	return false
}

// bodies prints the called computations of v in full, as XLA's kFullBodies mode does; false when v
// names no computation.
func (p *printer) bodies(v hlo.Value, level int) bool {
	if level < 0 {
		level = 0
	}
	switch v := v.(type) {
	case hlo.CompRef:
		if v.Comp == nil {
			return false
		}
		p.byte('\n')
		p.computation(v.Comp, level, true)
		return true
	case hlo.CompList:
		p.str("{\n")
		for i, c := range v {
			if i > 0 {
				p.str(",\n")
			}
			p.computation(c, level, true)
		}
		p.str("\n}")
		return true
	}
	return false
}

// stripShardingMetadata removes " metadata={...}" from a sharding's text, as XLA prints shardings when
// metadata is off.
func stripShardingMetadata(s string) string {
	for {
		i := strings.Index(s, " metadata={")
		if i < 0 {
			return s
		}
		depth := 0
		j := i + len(" metadata=")
		for ; j < len(s); j++ {
			if s[j] == '"' {
				for j++; j < len(s) && s[j] != '"'; j++ {
					if s[j] == '\\' {
						j++
					}
				}
				continue
			}
			if s[j] == '{' {
				depth++
			} else if s[j] == '}' {
				depth--
				if depth == 0 {
					break
				}
			}
		}
		if j >= len(s) {
			return s
		}
		s = s[:i] + s[j+1:]
	}
}

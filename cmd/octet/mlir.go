package main

import (
	"fmt"
	"go/scanner"
	"go/token"
	"io"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"octet/hlo"
	"octet/hlo/parser"
	"octet/stablehlo"
)

// parseText parses a command's input into HLO modules: StableHLO in MLIR text (what JAX's
// lower(...).as_text() prints), converted, when it looks like it; HLO text otherwise. What the StableHLO
// conversion had to leave out (attributes it cannot carry into HLO) is kept with the modules for
// reportIgnored, or for convert to refuse.
func parseText(fset *token.FileSet, display string, src []byte) ([]*hlo.Module, error) {
	if !isStableHLO(src) {
		// The commands never change what they read, so the modules may keep the text itself.
		return parser.ParseFileString(fset, display, unsafe.String(unsafe.SliceData(src), len(src)))
	}
	mods, notes, err := stablehlo.ParseFileNotes(fset, display, src)
	if err != nil || len(notes) == 0 || len(mods) == 0 {
		return mods, err
	}
	leftOut.Store(mods[0], notes)
	return mods, nil
}

// leftOut holds, by the first module of a file, what its StableHLO conversion left out, until a command
// reports it (reportIgnored) or refuses it (ignoredError).
var leftOut sync.Map // *hlo.Module -> scanner.ErrorList

// takeIgnored returns and forgets what the conversion of mods left out.
func takeIgnored(mods []*hlo.Module) scanner.ErrorList {
	if len(mods) == 0 {
		return nil
	}
	v, ok := leftOut.LoadAndDelete(mods[0])
	if !ok {
		return nil
	}
	return v.(scanner.ErrorList)
}

// reportIgnored writes on w, one line each, what the StableHLO conversion of mods left out, so that a
// command that reads the program (print, check, run) says what it ignored.
func reportIgnored(w io.Writer, mods []*hlo.Module) {
	for _, e := range takeIgnored(mods) {
		fmt.Fprintf(w, "%s: ignored: %s\n", e.Pos, e.Msg)
	}
}

// ignoredError is the error convert gives for a program whose conversion left out something XLA's
// translation keeps: every such attribute, at its position. What XLA's translation ignores too is written
// on w as a warning.
func ignoredError(w io.Writer, mods []*hlo.Module) error {
	var b strings.Builder
	for _, e := range takeIgnored(mods) {
		if strings.HasSuffix(e.Msg, stablehlo.IgnoredLikeXLA) {
			fmt.Fprintf(w, "%s: ignored: %s\n", e.Pos, e.Msg)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s: %s (Octet cannot convert it; convert refuses to drop it)", e.Pos, e.Msg)
	}
	if b.Len() == 0 {
		return nil
	}
	return &exitError{code: 1, msg: b.String()}
}

// shardingText describes the sharding of in as people read it: with the mesh axes of each dimension when
// the module kept the Shardy sharding (converted from StableHLO with Shardy), else the number of tiles of
// each dimension; "" when in has no sharding. For a tuple, element i.
func shardingText(m *hlo.Module, in *hlo.Instruction, i int) string {
	if in == nil {
		return ""
	}
	if fa, ok := in.Attr("frontend_attributes").(hlo.FrontendAttributes); ok {
		if v, ok := fa.Get("xla.sdy.sharding"); ok {
			meshes := ""
			if mfa, ok := m.Attr("frontend_attributes").(hlo.FrontendAttributes); ok {
				meshes, _ = mfa.Get("xla.sdy.meshes")
			}
			if note, ok := stablehlo.ShardingNote(v, meshes, i); ok {
				return note
			}
		}
	}
	s, ok := in.Attr("sharding").(*hlo.Sharding)
	if !ok {
		return ""
	}
	shape := in.Shape
	if s.Tuple != nil {
		if i >= len(s.Tuple) {
			return ""
		}
		s = &s.Tuple[i]
		if shape.IsTuple() && i < len(shape.Tuple) {
			shape = shape.Tuple[i]
		}
	}
	return hloShardingText(s, shape.Rank())
}

// hloShardingText describes an HLO sharding of a value of the given rank: replicated, manual, on one
// device, or split into tiles per dimension over its devices.
func hloShardingText(s *hlo.Sharding, rank int) string {
	switch {
	case s.Replicated:
		return "replicated"
	case s.Manual:
		return "manual"
	case s.Maximal >= 0:
		return "on device " + strconv.FormatInt(s.Maximal, 10)
	case len(s.TileDims) == 0:
		return s.Text
	}
	dims := s.TileDims
	if len(dims) > rank {
		dims = dims[:rank]
	}
	parts := make([]string, len(dims))
	devices := int64(1)
	for i, d := range s.TileDims {
		devices *= d
		if i < len(parts) {
			parts[i] = "-"
			if d > 1 {
				parts[i] = strconv.FormatInt(d, 10) + " ways"
			}
		}
	}
	text := "[" + strings.Join(parts, ", ") + "] over " + strconv.FormatInt(devices, 10) + " devices"
	if s.LastTileDimReplicate && len(s.TileDims) > rank {
		text += ", each tile on " + strconv.FormatInt(s.TileDims[len(s.TileDims)-1], 10)
	}
	return text
}

// instructionNames indexes the instructions of a module by name, once for all its GEMMs.
type instructionNames struct {
	m     *hlo.Module
	in    map[[2]string]*hlo.Instruction // by computation and name
	first map[string]*hlo.Instruction    // the first of each name, in computation order
}

func newInstructionNames(m *hlo.Module) *instructionNames {
	n := &instructionNames{m: m, in: map[[2]string]*hlo.Instruction{}, first: map[string]*hlo.Instruction{}}
	for _, c := range m.Computations {
		for _, x := range c.Instructions {
			n.in[[2]string{c.Name, x.Name}] = x
			if n.first[x.Name] == nil {
				n.first[x.Name] = x
			}
		}
	}
	return n
}

// lookup returns the instruction named name in computation comp, or else the module's first of that name.
func (n *instructionNames) lookup(comp, name string) *hlo.Instruction {
	if x := n.in[[2]string{comp, name}]; x != nil {
		return x
	}
	return n.first[name]
}

// gemmShardingLine describes the shardings of a GEMM's FP8 operands (the values named a and b, "%name"; the
// GEMM's first two operands when not found) and result (the instruction named name in computation comp of
// the module names indexes); "" when none of them is sharded.
func gemmShardingLine(names *instructionNames, comp, name, a, b string) string {
	m := names.m
	in := names.lookup(comp, name)
	if in == nil || in.NumOperands() < 2 {
		return ""
	}
	operand := func(source string, i int) *hlo.Instruction {
		if x := names.lookup(comp, strings.TrimPrefix(source, "%")); x != nil {
			return x
		}
		return in.Operand(i)
	}
	sa, sb, d := shardingText(m, operand(a, 0), 0), shardingText(m, operand(b, 1), 0), shardingText(m, in, 0)
	a, b = sa, sb
	if a == "" && b == "" && d == "" {
		return ""
	}
	or := func(s string) string {
		if s == "" {
			return "unsharded"
		}
		return s
	}
	return "A " + or(a) + "; B " + or(b) + "; D " + or(d)
}

// withShardings adds to the readable style's notes under an instruction (annotate's) one that describes
// its sharding as people read it.
func withShardings(annotate func(*hlo.Instruction) []string) func(*hlo.Instruction) []string {
	return func(in *hlo.Instruction) []string {
		var lines []string
		if annotate != nil {
			lines = annotate(in)
		}
		if in.Attr("sharding") == nil || in.Parent == nil {
			return lines
		}
		if s := shardingText(in.Parent.Module, in, 0); s != "" {
			lines = append(lines, "sharding: "+s)
		}
		return lines
	}
}

// isStableHLO reports whether src is MLIR text rather than HLO text or a file of another format the HLO
// parser reads: an HloModuleProto text file may start with '#' comments, as MLIR text may start with '#'
// aliases.
func isStableHLO(src []byte) bool { return parser.FormatName(src) == "" && stablehlo.Looks(src) }

package parser_test

import (
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"octet/hlo"
	"octet/hlo/parser"
	"octet/hlo/printer"
	"octet/internal/shared"
)

// lineEndings are the three ways a line may end: XLA's lexer (hlo_lexer.cc, HloLexer::LexToken) skips
// '\n' and '\r' alike, and ends a "//" comment at either.
var lineEndings = []struct{ name, nl string }{{"lf", "\n"}, {"crlf", "\r\n"}, {"cr", "\r"}}

// lineEndSample has what is line-sensitive in the parser: comments that end at the line end, the module
// separator, an instruction at the end of its line, stack frame tables and a header table over several
// lines.
const lineEndSample = `// a leading comment
HloModule first, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

FileNames
1 "a.py"

FunctionNames
1 "f"

FileLocations
1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=1 end_column=2}

StackFrames
1 {file_location_id=1 parent_frame_id=0}

ENTRY %e (p: f32[4]) -> f32[4] { // after the brace
  %p = f32[4]{0} parameter(0) // after an instruction
  /* a block
     comment */
  ROOT %n = f32[4]{0} negate(f32[4]{0} %p), metadata={op_name="n" stack_frame_id=1}
}, execution_thread="main"
// -----
HloModule second, entry_computation_layout={()->s32[1,3]{1,0}},
debug_attributes={
  {"constant"}:({log_mode=default,callback_id=123,partitioned=true})
}

ENTRY %e () -> s32[1,3] {
  ROOT %c = s32[1,3]{1,0} constant({ { 0, 1, 2 } }), origin={{"constant"}}
}
`

// TestLineEndings parses text with each line ending: the modules print the same (but for the line ends
// the header table keeps as written), and every instruction is on the same line and column.
func TestLineEndings(t *testing.T) {
	cfg := printer.ConfigFor(printer.StyleXLALong)
	cfg.PrintMetadata = true
	var want []string
	var wantPos []string
	for _, le := range lineEndings {
		src := strings.ReplaceAll(lineEndSample, "\n", le.nl)
		fset := token.NewFileSet()
		mods, err := parser.ParseFile(fset, "sample.hlo", []byte(src))
		if err != nil {
			t.Errorf("%s: %v", le.name, err)
			continue
		}
		var got, pos []string
		for _, m := range mods {
			// The header table keeps its line ends as written.
			text := strings.ReplaceAll(printer.Sprint(m, cfg), "\r\n", "\n")
			got = append(got, strings.ReplaceAll(text, "\r", "\n"))
			for _, c := range m.Computations {
				for _, in := range c.Instructions {
					p := fset.Position(in.Pos)
					pos = append(pos, in.Name+" "+strings.TrimPrefix(p.String(), "sample.hlo:"))
				}
			}
		}
		if want == nil {
			want, wantPos = got, pos
			if len(got) != 2 || strings.Join(pos, ", ") != "p 17:3, n 20:3, c 29:3" {
				t.Fatalf("lf: %d modules, positions %v", len(got), pos)
			}
			continue
		}
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Errorf("%s: prints differently from lf:\n%s\nwant:\n%s", le.name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if strings.Join(pos, ", ") != strings.Join(wantPos, ", ") {
			t.Errorf("%s: positions %v, want %v", le.name, pos, wantPos)
		}
	}
}

// TestCommentEndsAtCarriageReturn: a "//" comment ends at a carriage return alone, as XLA's lexer ends it,
// so that the next line is read.
func TestCommentEndsAtCarriageReturn(t *testing.T) {
	m, err := parser.ParseString("cr.hlo", "HloModule m // c\rENTRY e { // c\r  p = f32[] parameter(0) // c\r  ROOT n = f32[] negate(p)\r}")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Entry.Instructions) != 2 || m.Entry.Root.Opcode != hlo.OpNegate {
		t.Errorf("read %d instructions", len(m.Entry.Instructions))
	}
}

// TestCorpusLoneCarriageReturns reads XLA's parser golden cases with every "\n" turned into "\r": each
// module reads, and prints as the original does (the carriage returns in the strings of a header table
// aside).
func TestCorpusLoneCarriageReturns(t *testing.T) {
	dir := shared.Path(t, "corpus", "hlo-roundtrip")
	files, err := filepath.Glob(filepath.Join(dir, "*.hlo"))
	if err != nil || len(files) < 100 {
		t.Fatalf("found %d golden cases in %s (%v)", len(files), dir, err)
	}
	cfg := printer.ConfigFor(printer.StyleXLALong)
	for _, path := range files {
		src, err := shared.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		mods, err := parser.ParseFile(token.NewFileSet(), path, src)
		if err != nil {
			continue // invalid by design; TestRoundTrip and others cover them
		}
		cr := []byte(strings.ReplaceAll(string(src), "\n", "\r"))
		crMods, err := parser.ParseFile(token.NewFileSet(), path, cr)
		if err != nil {
			t.Errorf("%s with lone carriage returns: %v", filepath.Base(path), firstLine(err.Error()))
			continue
		}
		if len(crMods) != len(mods) {
			t.Errorf("%s: %d modules, with lone carriage returns %d", filepath.Base(path), len(mods), len(crMods))
			continue
		}
		for i := range mods {
			want := printer.Sprint(mods[i], cfg)
			got := strings.ReplaceAll(printer.Sprint(crMods[i], cfg), "\r", "\n")
			if got != want {
				t.Errorf("%s, module %d: prints differently with lone carriage returns", filepath.Base(path), i)
			}
			if w, g := mods[i].Position(mods[i].Entry.Root.Pos), crMods[i].Position(crMods[i].Entry.Root.Pos); w.Line != g.Line || w.Column != g.Column {
				t.Errorf("%s, module %d: the root is at %d:%d, with lone carriage returns at %d:%d", filepath.Base(path), i,
					w.Line, w.Column, g.Line, g.Column)
			}
		}
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// TestMetadataOverLines: XLA's lexer reads a line end as white space, in metadata as elsewhere; a value
// that ends its line ends there, whatever the line ending.
func TestMetadataOverLines(t *testing.T) {
	const src = "HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0), metadata={op_name=\"a\" source_line=3\n    source_end_line=4\n  }\n}\n"
	for _, le := range lineEndings {
		m, err := parser.ParseString("md.hlo", strings.ReplaceAll(src, "\n", le.nl))
		if err != nil {
			t.Errorf("%s: %v", le.name, err)
			continue
		}
		md, _ := m.Entry.Root.Attr("metadata").(hlo.Metadata)
		if v, _ := md.Get("source_line"); v != "3" {
			t.Errorf("%s: metadata %v", le.name, md)
		}
		if v, _ := md.Get("source_end_line"); v != "4" {
			t.Errorf("%s: metadata %v", le.name, md)
		}
	}
}

// TestInstructionsShareALine reads XLA's parser golden cases with the instructions of each computation
// written on its header's line (every line break before an indented line made a space), as XLA's parser
// reads them, instructions being tokens to it (HloParserImpl::ParseInstructionList): each module reads
// and prints as the original does. Cases with comments, which would swallow what follows on their line,
// and with header tables written over lines are left out. Text after an instruction that does not start one is still an error.
func TestInstructionsShareALine(t *testing.T) {
	dir := shared.Path(t, "corpus", "hlo-roundtrip")
	files, err := filepath.Glob(filepath.Join(dir, "*.hlo"))
	if err != nil || len(files) < 100 {
		t.Fatalf("found %d golden cases in %s (%v)", len(files), dir, err)
	}
	cfg := printer.ConfigFor(printer.StyleXLALong)
	joined := 0
	for _, path := range files {
		src, err := shared.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(src), "//") || strings.Contains(string(src), "/*") ||
			strings.Contains(string(src), "debug_attributes={") || strings.Contains(string(src), "origin_recovery_table={") {
			continue // comments, and header tables whose text is over lines
		}
		mods, err := parser.ParseFile(token.NewFileSet(), path, src)
		if err != nil {
			continue // invalid by design
		}
		one := strings.ReplaceAll(string(src), "\n  ", " ")
		oneMods, err := parser.ParseFile(token.NewFileSet(), path, []byte(one))
		if err != nil {
			t.Errorf("%s with its instructions on one line: %v", filepath.Base(path), firstLine(err.Error()))
			continue
		}
		joined++
		if len(oneMods) != len(mods) {
			t.Errorf("%s: %d modules, with the instructions on one line %d", filepath.Base(path), len(mods), len(oneMods))
			continue
		}
		for i := range mods {
			if printer.Sprint(oneMods[i], cfg) != printer.Sprint(mods[i], cfg) {
				t.Errorf("%s, module %d: prints differently with the instructions on one line", filepath.Base(path), i)
			}
		}
	}
	if joined < 100 {
		t.Errorf("only %d golden cases read with their instructions on one line", joined)
	}
	_, err = parser.ParseString("junk.hlo", "HloModule m\nENTRY e { p = f32[4] parameter(0) q = junk }\n")
	if err == nil || !strings.Contains(err.Error(), "junk.hlo:2:") {
		t.Errorf("an instruction without an opcode read: %v", err)
	}
}

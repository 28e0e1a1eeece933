package parser

import (
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
	"strings"
	"testing"

	"octet/dtype"
	"octet/hlo"
)

const addModule = `HloModule m, entry_computation_layout={(f32[4]{0}, f32[4]{0})->f32[4]{0}}

ENTRY %main (a: f32[4], b: f32[4]) -> f32[4] {
  %a = f32[4]{0} parameter(0)
  %b = f32[4]{0} parameter(1)
  ROOT %add = f32[4]{0} add(f32[4]{0} %a, f32[4]{0} %b), metadata={op_name="x" source_line=3}
}
`

func TestParseSimpleModule(t *testing.T) {
	m, err := ParseString("add.hlo", addModule)
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "m" || len(m.Computations) != 1 || m.Entry == nil || m.Entry.Name != "main" {
		t.Fatalf("module %q, %d computations, entry %v", m.Name, len(m.Computations), m.Entry)
	}
	root := m.Entry.Root
	if root.Name != "add" || root.Opcode != hlo.OpAdd || root.NumOperands() != 2 {
		t.Fatalf("root %s %s with %d operands", root.Name, root.Opcode, root.NumOperands())
	}
	a, b := m.Entry.Params[0], m.Entry.Params[1]
	if root.Operand(0) != a || root.Operand(1) != b {
		t.Errorf("operands are not the parameters")
	}
	if len(a.Users()) != 1 || a.Users()[0] != root {
		t.Errorf("users of %%a: %v", a.Users())
	}
	if got := root.Shape; got.Elem != dtype.F32 || len(got.Dims) != 1 || got.Dims[0] != 4 || got.Layout == nil {
		t.Errorf("root shape %+v", got)
	}
	md := root.Metadata()
	if v, _ := md.Get("op_name"); v != "x" {
		t.Errorf("metadata op_name %q", v)
	}
	ecl := m.EntryComputationLayout()
	if ecl == nil || len(ecl.Params) != 2 || ecl.Result.Dims[0] != 4 {
		t.Errorf("entry_computation_layout %+v", ecl)
	}
	if p := m.Position(root.Pos); p.Line != 6 || p.Column != 3 {
		t.Errorf("root position %v, want add.hlo:6:3", p)
	}
}

func TestParseLenientForms(t *testing.T) {
	src := `
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  add = f32[] add(x, y)
}

ENTRY main {
  p = (f32[10], f16[10]) parameter(0)
  c = f32[] constant(0)
  r = f32[] reduce(f32[10] %p#0, c), dimensions={0}, to_apply=add
  s = add(r, multiply(f32[] constant(2), r))
}
`
	m, err := ParseString("lenient.hlo", src)
	if err != nil {
		t.Fatal(err)
	}
	if !m.NoHeader || m.Entry.Name != "main" || m.Name != "main" {
		t.Errorf("header: NoHeader %v, entry %s, name %s", m.NoHeader, m.Entry.Name, m.Name)
	}
	// Without ROOT, the last instruction is the root.
	if m.Computation("add").Root.Name != "add" || m.Entry.Root.Name != "s" {
		t.Errorf("roots %s, %s", m.Computation("add").Root.Name, m.Entry.Root.Name)
	}
	var names []string
	for _, in := range m.Entry.Instructions {
		names = append(names, in.Name)
	}
	want := "p p_0 c r constant.anon multiply.anon s"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("instructions %q, want %q", got, want)
	}
	s := m.Entry.Root
	if s.Shape.Elem != dtype.F32 || len(s.Shape.Dims) != 0 {
		t.Errorf("inferred shape of s: %+v", s.Shape)
	}
	if r := m.Entry.Instructions[3]; r.CalledComputation("to_apply") != m.Computation("add") {
		t.Errorf("to_apply not resolved")
	}
}

func TestParseSeveralModules(t *testing.T) {
	src := "HloModule a\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n// -----\n// ----------- a comment, not a separator\nHloModule b\nENTRY e {\n  ROOT p = s32[] parameter(0)\n}\n"
	mods, err := ParseFile(token.NewFileSet(), "two.hlo", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(mods) != 2 || mods[0].Name != "a" || mods[1].Name != "b" {
		t.Fatalf("got %d modules", len(mods))
	}
	if p := mods[1].Position(mods[1].Entry.Root.Pos); p.Line != 9 {
		t.Errorf("second module's positions are off: %v", p)
	}
}

// TestParseErrors checks that bad input gives a clear error at the right place.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"truncated", "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT a = f32[4] add(p, p", "bad.hlo:4:27: expected ',' or ')' in the operands of %a, found end of input"},
		{"unknown opcode", "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT a = f32[4] frobnicate(p)\n}\n", `bad.hlo:4:19: unknown opcode "frobnicate"`},
		{"unknown type", "HloModule m\nENTRY e {\n  ROOT p = f33[4] parameter(0)\n}\n", `bad.hlo:3:12: unknown element type "f33"`},
		{"unbalanced braces", "HloModule m\nENTRY e {\n  ROOT p = f32[4] parameter(0), sharding={replicated\n", "bad.hlo:3:42: '{' is never closed"},
		{"unclosed computation", "HloModule m\nENTRY e {\n  ROOT p = f32[4] parameter(0)\n", "bad.hlo:3:32: unexpected end of input: computation e (opened at line 2) is not closed"},
		{"undefined operand", "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT a = f32[4] add(p, q)\n}\n", "bad.hlo:4:26: operand %q of %a names no instruction"},
		{"undefined computation", "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT r = f32[] reduce(p, p), dimensions={0}, to_apply=nope\n}\n", "bad.hlo:4:57: %r calls %nope, which is not a computation"},
		{"bad layout", "HloModule m\nENTRY e {\n  ROOT p = f32[4,2]{0} parameter(0)\n}\n", "bad.hlo:3:20: layout {0} has 1 dimensions but the shape has 2"},
		{"duplicate name", "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  p = f32[4] parameter(1)\n}\n", "bad.hlo:4:3: instruction %p is defined twice"},
		// Lines that end with a carriage return alone, or with CR LF, are lines, for the grammar (an
		// instruction ends its line) as for positions.
		{"cr lines", "HloModule m\rENTRY e {\r  p = f32[4] parameter(0)\r  ROOT a = f32[4] frobnicate(p)\r}\r", `bad.hlo:4:19: unknown opcode "frobnicate"`},
		{"cr garbage after instruction", "HloModule m\rENTRY e {\r  ROOT p = f32[4] parameter(0) junk\r}\r", `bad.hlo:3:32: unexpected "junk" after instruction %p`},
		{"crlf lines", "HloModule m\r\nENTRY e {\r\n  p = f32[4] parameter(0)\r\n  ROOT a = f32[4] frobnicate(p)\r\n}\r\n", `bad.hlo:4:19: unknown opcode "frobnicate"`},
		// A character of several bytes is named as itself, a byte that is not UTF-8 as a byte.
		{"utf-8 character", "HloModule m\nENTRY e {\n  \u00e9 = f32[] constant(1)\n}\n", "bad.hlo:3:3: expected an instruction, found '\u00e9'"},
		{"not utf-8", "\xff\xfeHloModule m\n", "bad.hlo:1:1: expected a computation, found the byte 0xff, not UTF-8"},
		{"duplicate parameter", "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  q = f32[4] parameter(0)\n}\n", "parameter number 0 is used by both %p and %q"},
		{"bad window", "HloModule m\nENTRY e {\n  ROOT p = f32[4] custom-call(), custom_call_target=\"w\", window={size=2 strid=1}\n}\n", `unknown window field "strid"`},
		{"unterminated string", "HloModule m\nENTRY e {\n  ROOT p = f32[4] custom-call(), custom_call_target=\"abc\n}\n", "bad.hlo:3:53: string not terminated"},
		{"garbage after instruction", "HloModule m\nENTRY e {\n  ROOT p = f32[4] parameter(0) junk\n}\n", `bad.hlo:3:32: unexpected "junk" after instruction %p`},
		{"self reference", "HloModule m\nENTRY e {\n  ROOT t = transpose(t), dimensions={}\n}\n", "bad.hlo:3:3: %t depends on itself through its operands"},
		{"cycle", "HloModule m\nENTRY e {\n  a = f32[2] negate(b)\n  ROOT b = f32[2] negate(a)\n}\n", "depends on itself through its operands"},
		{"missing shape", "HloModule m\nENTRY e {\n  ROOT p = parameter(0)\n}\n", "parameter %p needs a shape"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseFile(token.NewFileSet(), "bad.hlo", []byte(tc.src))
			if err == nil {
				t.Fatalf("no error; want %q", tc.want)
			}
			var list scanner.ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("error is %T, not a scanner.ErrorList", err)
			}
			if !strings.Contains(list[0].Error(), tc.want) {
				t.Errorf("first error %q; want it to contain %q (all: %v)", list[0].Error(), tc.want, list)
			}
		})
	}
}

func TestErrorsAreSortedAndAllReported(t *testing.T) {
	src := "HloModule m\nENTRY e {\n  a = f32[4] bogus1(p)\n  b = f32[4] bogus2(p)\n  ROOT p = f32[4] parameter(0)\n}\n"
	_, err := ParseFile(token.NewFileSet(), "bad.hlo", []byte(src))
	var list scanner.ErrorList
	if !errors.As(err, &list) || len(list) != 2 {
		t.Fatalf("want 2 errors, got %v", err)
	}
	if list[0].Pos.Line != 3 || list[1].Pos.Line != 4 {
		t.Errorf("errors not sorted by position: %v", list)
	}
}

// TestBugIsNotBadInput makes the parser panic, as a bug would, and checks that the panic comes out of
// ParseFile and the single-value readers as it was, not as an error that would pass for bad input; while
// too many errors, the parser's own bail-out, are still errors.
func TestBugIsNotBadInput(t *testing.T) {
	type bug struct{}
	testHookModule = func() { panic(bug{}) }
	defer func() { testHookModule = nil }()
	for name, parse := range map[string]func() error{
		"ParseFile": func() error {
			_, err := ParseFile(token.NewFileSet(), "bug.hlo", []byte(addModule))
			return err
		},
		"ParseShape": func() error {
			_, err := ParseShape("f32[2]")
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != (bug{}) {
					t.Errorf("recovered %v, want the bug's panic", r)
				}
			}()
			err := parse()
			t.Errorf("no panic; the error is %v", err)
		})
	}
	testHookModule = nil
	var src strings.Builder
	src.WriteString("HloModule m\nENTRY e {\n")
	for i := range 2 * maxErrors {
		fmt.Fprintf(&src, "  x%d = f32[] bogus()\n", i)
	}
	src.WriteString("}\n")
	if _, err := ParseFile(token.NewFileSet(), "many.hlo", []byte(src.String())); err == nil {
		t.Error("no error for a module with 100 unknown opcodes")
	} else if n := len(err.(scanner.ErrorList)); n != maxErrors {
		t.Errorf("%d errors, want %d", n, maxErrors)
	}
}

// TestLayoutOrBody checks XLA's rule for a '{' after a shape: it opens a layout only when an integer or ':'
// comes next, so a signature's result shape may touch the brace that opens the computation.
func TestLayoutOrBody(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		layout    string // the root's layout as minor-to-major, or the error
	}{
		{"signature touching the body", "ENTRY e (p: f32[4,2]) -> f32[4,2]{\n  ROOT p = f32[4,2] parameter(0)\n}\n", "1,0"},
		{"scalar signature touching the body", "ENTRY e () -> f32[]{\n  ROOT c = f32[] constant(1)\n}\n", ""},
		{"layout after a space", "ENTRY e {\n  ROOT p = f32[4,2] {0,1} parameter(0)\n}\n", "0,1"},
		{"layout after a comment", "ENTRY e {\n  ROOT p = f32[4,2] /* c */ { 0,1 } parameter(0)\n}\n", "0,1"},
		{"fields only", "ENTRY e {\n  ROOT p = f32[]{:T(128)} parameter(0)\n}\n", ""},
		{"empty braces are no layout", "ENTRY e {\n  ROOT p = f32[4]{} parameter(0)\n}\n", "t.hlo:2:18: expected an opcode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ParseString("t.hlo", tc.src)
			if strings.HasPrefix(tc.layout, "t.hlo:") {
				if err == nil || !strings.HasPrefix(err.Error(), tc.layout) {
					t.Fatalf("error %v, want %s...", err, tc.layout)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := hlo.JoinInts(m.Entry.Root.Shape.Layout.MinorToMajor); got != tc.layout {
				t.Errorf("layout {%s}, want {%s}", got, tc.layout)
			}
		})
	}
}

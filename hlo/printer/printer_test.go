package printer_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"octet/dtype"
	"octet/hlo"
	"octet/hlo/parser"
	"octet/hlo/printer"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func parse(t testing.TB, src string) *hlo.Module {
	t.Helper()
	m, err := parser.ParseString("test", src)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	return m
}

func layout(m2m ...int64) *hlo.Layout { return &hlo.Layout{MinorToMajor: m2m} }

func TestShapeString(t *testing.T) {
	f32x23 := hlo.Array(dtype.F32, 2, 3)
	f32x23.Layout = layout(1, 0)
	scalar := hlo.Scalar(dtype.U32)
	scalar.Layout = &hlo.Layout{MemorySpace: 2}
	plainScalar := hlo.Scalar(dtype.F32)
	plainScalar.Layout = layout()
	dyn := hlo.Array(dtype.S32, 5, hlo.UnboundedDim, 7)
	dyn.Dynamic = []bool{true, false, false}
	tiled := hlo.Array(dtype.BF16, 8, 128)
	tiled.Layout = &hlo.Layout{MinorToMajor: []int64{1, 0}, Tiles: []hlo.Tile{{8, 128}, {2, 1}},
		ElementSizeBits: 4, MemorySpace: 1}
	full := hlo.Array(dtype.F32, 4)
	phys := hlo.Array(dtype.U8, 4)
	phys.Layout = layout(0)
	full.Layout = &hlo.Layout{MinorToMajor: []int64{0}, DimLevelTypes: []string{"C+"},
		Tiles: []hlo.Tile{{hlo.CombineDim, 2}}, TailPaddingAlignment: 4, IndexType: dtype.S32,
		PointerType: dtype.U64, SplitConfigs: []hlo.SplitConfig{{Dimension: 0, SplitIndices: []int64{1, 3}}},
		PhysicalShape: &phys, DynamicShapeMetadataPrefixBytes: 8}
	var six []hlo.Shape
	for i := 0; i < 6; i++ {
		six = append(six, hlo.Scalar(dtype.F32))
	}
	buffer := hlo.Shape{Kind: hlo.BufferShape, Tuple: []hlo.Shape{f32x23}}
	for _, tc := range []struct {
		s                  hlo.Shape
		withLayout, layout string
	}{
		{f32x23, "f32[2,3]{1,0}", "f32[2,3]"},
		{hlo.Array(dtype.F32, 2, 3), "f32[2,3]", "f32[2,3]"},
		{scalar, "u32[]{:S(2)}", "u32[]"},
		{plainScalar, "f32[]", "f32[]"},
		{dyn, "s32[<=5,?,7]", "s32[<=5,?,7]"},
		{tiled, "bf16[8,128]{1,0:T(8,128)(2,1)E(4)S(1)}", "bf16[8,128]"},
		{full, "f32[4]{0:D(C+)T(*,2)L(4)#(s32)*(u64)SC(0:1,3)P(u8[4]{0})M(8)}", "f32[4]"},
		{hlo.Tuple(f32x23, plainScalar), "(f32[2,3]{1,0}, f32[])", "(f32[2,3], f32[])"},
		{hlo.Tuple(six...), "(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[])",
			"(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[])"},
		{hlo.Tuple(), "()", "()"},
		{hlo.Shape{Kind: hlo.TokenShape}, "token[]", "token[]"},
		{hlo.Shape{Kind: hlo.OpaqueShape}, "opaque[]", "opaque[]"},
		{buffer, "b(f32[2,3]{1,0})", "b(f32[2,3])"},
	} {
		if got := printer.ShapeString(tc.s, true); got != tc.withLayout {
			t.Errorf("ShapeString(with layout) = %s, want %s", got, tc.withLayout)
		}
		if got := printer.ShapeString(tc.s, false); got != tc.layout {
			t.Errorf("ShapeString(without layout) = %s, want %s", got, tc.layout)
		}
	}
}

func TestParseStyle(t *testing.T) {
	for _, s := range []printer.Style{printer.StyleReadable, printer.StyleXLA, printer.StyleXLALong,
		printer.StyleXLAShort, printer.StyleJSON} {
		got, err := printer.ParseStyle(s.String())
		if err != nil || got != s {
			t.Errorf("ParseStyle(%q) = %v, %v", s.String(), got, err)
		}
	}
	if _, err := printer.ParseStyle("fancy"); err == nil || !strings.Contains(err.Error(), "xla-short") {
		t.Errorf("ParseStyle(fancy): error %v should list the styles", err)
	}
}

// TestBuiltModule prints a module made with package hlo's builders (no parser, no layouts).
func TestBuiltModule(t *testing.T) {
	m := &hlo.Module{Name: "built"}
	c := &hlo.Computation{Name: "main", IsEntry: true}
	m.AddComputation(c)
	m.Entry = c
	x := c.Add("x", hlo.OpParameter, hlo.Array(dtype.F32, 4))
	x.ParameterNumber = 0
	c.Params = []*hlo.Instruction{x}
	one := c.Add("one", hlo.OpConstant, hlo.Scalar(dtype.F32))
	one.Literal, _ = hlo.ScalarLiteral(dtype.F32, 1)
	b := c.Add("b", hlo.OpBroadcast, hlo.Array(dtype.F32, 4), one)
	b.SetAttr("dimensions", hlo.Ints{})
	add := c.Add("add", hlo.OpAdd, hlo.Array(dtype.F32, 4), x, b)
	c.Root = add
	want := `HloModule built, entry_computation_layout={(f32[4])->f32[4]}

ENTRY main {
  x = f32[4] parameter(0)
  one = f32[] constant(1)
  b = f32[4] broadcast(one), dimensions={}
  ROOT add = f32[4] add(x, b)
}

`
	if got := printer.Sprint(m, printer.ConfigFor(printer.StyleXLAShort)); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if got, want := printer.InstructionString(add, printer.ConfigFor(printer.StyleXLA)),
		"%add = f32[4] add(f32[4] %x, f32[4] %b)"; got != want {
		t.Errorf("InstructionString = %s, want %s", got, want)
	}
}

// TestComputedEntryLayout checks where a computed entry_computation_layout goes: after the attributes
// XLA prints before it.
func TestComputedEntryLayout(t *testing.T) {
	m := parse(t, `HloModule m, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias) }, replica_count=2

ENTRY e {
  p = f32[2,3]{0,1} parameter(0)
  ROOT n = f32[2,3]{0,1} negate(p)
}
`)
	got := printer.Sprint(m, printer.ConfigFor(printer.StyleXLAShort))
	want := "HloModule m, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias) }, " +
		"entry_computation_layout={(f32[2,3]{0,1})->f32[2,3]{0,1}}, replica_count=2\n"
	if !strings.HasPrefix(got, want) {
		t.Errorf("header:\n%s\nwant:\n%s", strings.SplitN(got, "\n", 2)[0], want)
	}
}

func TestOptions(t *testing.T) {
	src := `HloModule m, entry_computation_layout={(f32[12]{0}, f32[12]{0})->f32[12]{0}}

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(f32[] %a, f32[] %b)
}

ENTRY %e (x: f32[12], y: f32[12]) -> f32[12] {
  %x = f32[12]{0} parameter(0), metadata={op_type="p" op_name="x" source_line=2}
  %y = f32[12]{0} parameter(1), metadata={source_line=3}
  %c10 = f32[10]{0} constant({1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
  %c11 = f32[11]{0} constant({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})
  %t = (f32[], f32[]) constant((1, 2))
  %r = f32[] reduce(f32[12]{0} %x, f32[] %s0), dimensions={0}, to_apply=%add
  %s0 = f32[] constant(0)
  %cc = f32[12]{0} custom-call(f32[12]{0} %x, f32[12]{0} %y, f32[12]{0} %x, f32[12]{0} %y, f32[12]{0} %x, f32[12]{0} %y), custom_call_target="t", backend_config="cfg"
  ROOT %n = f32[12]{0} negate(f32[12]{0} %cc), control-predecessors={%r}, sharding={devices=[2]0,1 metadata={op_name="s"}}
}
`
	m := parse(t, src)
	line := func(cfg printer.Config, name string) string {
		for _, l := range strings.Split(printer.Sprint(m, cfg), "\n") {
			f := strings.Fields(l)
			if len(f) > 0 && (f[0] == name || f[0] == "%"+name || len(f) > 1 && f[0] == "ROOT" && (f[1] == name || f[1] == "%"+name)) {
				return strings.TrimSpace(l)
			}
		}
		return ""
	}
	xla := printer.ConfigFor(printer.StyleXLA)
	for _, tc := range []struct {
		name   string
		cfg    func(*printer.Config)
		inst   string
		wanted string
	}{
		{"metadata printed", nil, "x", `%x = f32[12]{0} parameter(0), metadata={op_type="p" op_name="x" source_line=2}`},
		{"metadata without op or file is dropped, as XLA", nil, "y", `%y = f32[12]{0} parameter(1)`},
		{"metadata only op name", func(c *printer.Config) { c.PrintMetadataOnlyOpName = true }, "x",
			`%x = f32[12]{0} parameter(0), metadata={op_name="x"}`},
		{"10 elements printed", nil, "c10", `%c10 = f32[10]{0} constant({1, 2, 3, 4, 5, 6, 7, 8, 9, 10})`},
		{"11 elements elided", nil, "c11", `%c11 = f32[11]{0} constant({...})`},
		{"tuple constants elided", nil, "t", `%t = (f32[], f32[]) constant({...})`},
		{"large constants", func(c *printer.Config) { c.PrintLargeConstants = true }, "t", `%t = (f32[], f32[]) constant(( 1, 2 ))`},
		{"operand index annotation", nil, "cc",
			`%cc = f32[12]{0} custom-call(f32[12]{0} %x, f32[12]{0} %y, f32[12]{0} %x, f32[12]{0} %y, f32[12]{0} %x, /*index=5*/f32[12]{0} %y), custom_call_target="t", backend_config="cfg"`},
		{"compact operands, no backend config", func(c *printer.Config) {
			c.CompactOperands = true
			c.PrintBackendConfig = false
			c.PrintOperandShape = false
		}, "cc", `%cc = f32[12]{0} custom-call(%x, %y, %x, %y, ...(+2)), custom_call_target="t"`},
		{"no result shape, no layouts", func(c *printer.Config) {
			c.PrintResultShape = false
			c.IncludeLayoutInShapes = false
		}, "r", `%r = reduce(f32[12] %x, f32[] %s0), dimensions={0}, to_apply=%add`},
		{"no extra attributes", func(c *printer.Config) { c.PrintExtraAttributes = false }, "r",
			`%r = f32[] reduce(f32[12]{0} %x, f32[] %s0), to_apply=%add`},
		{"subcomputations off", func(c *printer.Config) { c.PrintSubcomputationMode = printer.SubcomputationsOff }, "r",
			`%r = f32[] reduce(f32[12]{0} %x, f32[] %s0), dimensions={0}`},
		{"sharding metadata kept with metadata", nil, "n",
			`ROOT %n = f32[12]{0} negate(f32[12]{0} %cc), control-predecessors={%r}, sharding={devices=[2]0,1 metadata={op_name="s"}}`},
		{"no control dependencies, sharding metadata dropped", func(c *printer.Config) {
			c.PrintControlDependencies = false
			c.PrintMetadata = false
		}, "n", `ROOT %n = f32[12]{0} negate(f32[12]{0} %cc), sharding={devices=[2]0,1}`},
		{"no parameter number", func(c *printer.Config) { c.PrintParameterNumber = false }, "y", `%y = f32[12]{0} parameter()`},
	} {
		cfg := xla
		if tc.cfg != nil {
			tc.cfg(&cfg)
		}
		if got := line(cfg, tc.inst); got != tc.wanted {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.wanted)
		}
	}

	cfg := xla
	cfg.PrintSubcomputationMode = printer.SubcomputationsFullBodies
	got := printer.Sprint(m, cfg)
	wantBody := `  %r = f32[] reduce(f32[12]{0} %x, f32[] %s0), dimensions={0}, to_apply=
  (a: f32[], b: f32[]) -> f32[] {
    %a = f32[] parameter(0)
    %b = f32[] parameter(1)
    ROOT %s = f32[] add(f32[] %a, f32[] %b)
  }
`
	if !strings.Contains(got, wantBody) {
		t.Errorf("full bodies: missing\n%s\nin\n%s", wantBody, got)
	}
}

func TestStackFrames(t *testing.T) {
	src := `HloModule m, entry_computation_layout={()->f32[]}

FileNames
1 "a.py"
2 "dir\\b\"q\".py"

FunctionNames
1 "f"

FileLocations
1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=4 end_column=9}

StackFrames
1 {file_location_id=1 parent_frame_id=1}


ENTRY %e () -> f32[] {
  ROOT %c = f32[] constant(1), metadata={op_name="c" stack_frame_id=1}
}

`
	m := parse(t, src)
	if got := printer.Sprint(m, printer.ConfigFor(printer.StyleXLA)); got != src {
		t.Errorf("xla style:\n%s\nwant:\n%s", got, src)
	}
	readable := printer.Sprint(m, printer.ConfigFor(printer.StyleReadable))
	if strings.Contains(readable, "FileNames") || strings.Contains(readable, "stack_frame_id") {
		t.Errorf("readable style shows stack frames:\n%s", readable)
	}
	cfg := printer.ConfigFor(printer.StyleReadable)
	cfg.PrintMetadata = true
	if readable := printer.Sprint(m, cfg); !strings.Contains(readable, "FileNames") || !strings.Contains(readable, "stack_frame_id=1") {
		t.Errorf("readable style with PrintMetadata hides stack frames:\n%s", readable)
	}
}

func TestReadable(t *testing.T) {
	m := parse(t, readGolden(t, "gemm.hlo"))
	cfg := printer.ConfigFor(printer.StyleReadable)
	plain := printer.Sprint(m, cfg)
	if strings.Contains(plain, "\x1b[") {
		t.Errorf("colour without Config.Color")
	}
	if strings.Contains(plain, "//") {
		t.Errorf("comment lines without Config.Annotate:\n%s", plain)
	}
	for _, want := range []string{
		"frontend_attributes={keep=\"yes\"}",
		"custom_call_target=\"__cublas$lt$matmul$f8\",\n    backend_config={\n      \"operation_queue_id\": \"0\",",
		`backend_config="not \"json\"\n"`,
	} {
		if !strings.Contains(plain, want) {
			t.Errorf("readable output lacks %q", want)
		}
	}
	for _, unwanted := range []string{"fingerprint", "metadata", "%", "{1,0}"} {
		if strings.Contains(plain, unwanted) {
			t.Errorf("readable output contains %q", unwanted)
		}
	}
	cfg.Color = true
	colored := printer.Sprint(m, cfg)
	if !strings.Contains(colored, "\x1b[1;34mcustom-call\x1b[0m") {
		t.Errorf("Config.Color: opcodes are not coloured")
	}
}

// TestAnnotate checks where the readable style puts Config.Annotate's lines: under their instruction,
// one level deeper, before an indented backend config, dimmed with Config.Color; and that the XLA styles
// and InstructionString leave them out.
func TestAnnotate(t *testing.T) {
	m := parse(t, readGolden(t, "gemm.hlo"))
	var asked []string
	annotate := func(in *hlo.Instruction) []string {
		asked = append(asked, in.Name)
		if in.Opcode != hlo.OpCustomCall {
			return nil
		}
		return []string{"target " + in.CustomCallTarget(), fmt.Sprintf("%d operands", len(in.Operands()))}
	}
	cfg := printer.ConfigFor(printer.StyleReadable)
	cfg.Annotate = annotate
	got := printer.Sprint(m, cfg)
	for _, want := range []string{
		"custom_call_target=\"__cublas$lt$matmul$f8\",\n    // target __cublas$lt$matmul$f8\n    // 4 operands\n    backend_config={\n",
		"  note = f32[16] custom-call(rmax, ones), custom_call_target=\"annotate\", backend_config=\"not \\\"json\\\"\\n\"\n    // target annotate\n    // 2 operands\n  ROOT out",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("annotated output lacks %q:\n%s", want, got)
		}
	}
	if want := []string{"a", "b", "m", "x", "y", "s", "ones", "gemm", "d", "amax", "zero", "rmax", "note", "out"}; !slices.Equal(asked, want) {
		t.Errorf("Annotate was asked about %v, want every instruction in order %v", asked, want)
	}
	cfg.Color = true
	if colored := printer.Sprint(m, cfg); !strings.Contains(colored, "    \x1b[2m// 4 operands\x1b[0m\n") {
		t.Errorf("Config.Color: annotations are not dimmed:\n%s", colored)
	}
	xla := printer.ConfigFor(printer.StyleXLA)
	xla.Annotate = annotate
	if got := printer.Sprint(m, xla); got != printer.Sprint(m, printer.ConfigFor(printer.StyleXLA)) {
		t.Errorf("the XLA style prints annotations:\n%s", got)
	}
	if got := printer.InstructionString(m.Entry.Root, cfg); strings.Contains(got, "//") {
		t.Errorf("InstructionString prints annotations: %s", got)
	}
}

func TestJSON(t *testing.T) {
	m := parse(t, readGolden(t, "gemm.hlo"))
	out := printer.Sprint(m, printer.ConfigFor(printer.StyleJSON))
	var doc struct {
		Name         string
		Entry        string
		Attributes   map[string]string
		Computations []struct {
			Name         string
			Entry        bool
			Instructions []struct {
				Name, Opcode, Shape string
				Root                bool
				Operands            []string
				Attributes          map[string]string
				Metadata            map[string]string
				BackendConfig       json.RawMessage `json:"backend_config"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("JSON style output does not decode: %v\n%s", err, out)
	}
	if doc.Name != "fp8_gemm" || doc.Entry != "main" || len(doc.Computations) != 2 || !doc.Computations[1].Entry {
		t.Fatalf("module fields: %+v", doc)
	}
	gemm := doc.Computations[1].Instructions[4]
	if gemm.Name != "gemm" || gemm.Opcode != "custom-call" || gemm.Attributes["custom_call_target"] != "__cublas$lt$matmul$f8" ||
		gemm.Metadata["source_line"] != "7" || !strings.HasPrefix(string(gemm.BackendConfig), `{"operation_queue_id"`) ||
		strings.Join(gemm.Operands, ",") != "x,y,s,s" {
		t.Errorf("gemm instruction: %+v", gemm)
	}
	if note := doc.Computations[1].Instructions[9]; string(note.BackendConfig) != `"not \"json\"\n"` {
		t.Errorf("a non-JSON backend_config is not a string: %s", note.BackendConfig)
	}
}

func readGolden(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestGolden prints testdata/*.hlo in every style and compares with testdata/NAME.STYLE.golden (-update
// rewrites them). Golden files of the XLA styles must print back unchanged.
func TestGolden(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "*.hlo"))
	if len(inputs) == 0 {
		t.Fatal("no testdata/*.hlo")
	}
	for _, in := range inputs {
		m := parse(t, readGolden(t, filepath.Base(in)))
		for _, style := range []printer.Style{printer.StyleReadable, printer.StyleXLA, printer.StyleXLALong,
			printer.StyleXLAShort, printer.StyleJSON} {
			base := strings.TrimSuffix(filepath.Base(in), ".hlo")
			golden := filepath.Join("testdata", base+"."+style.String()+".golden")
			t.Run(base+"/"+style.String(), func(t *testing.T) {
				cfg := printer.ConfigFor(style)
				got := printer.Sprint(m, cfg)
				if *update {
					if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want := readGolden(t, filepath.Base(golden))
				if got != want {
					t.Errorf("output differs from %s:\n%s", golden, got)
				}
				if style == printer.StyleReadable || style == printer.StyleJSON {
					return
				}
				again := printer.Sprint(parse(t, want), cfg)
				if again != want {
					t.Errorf("%s does not print back unchanged:\n%s", golden, again)
				}
			})
		}
	}
}

// TestReadableReadsBack checks two things the readable style used to change when read back: a raw
// backend_config that is not JSON and holds newlines (it is quoted, its newlines escaped in the string,
// rather than escaped in raw text, where "\n" reads back as a backslash and an n), and an
// entry_computation_layout with a default layout for a parameter whose own layout is tiled (it is kept:
// without it the module read back takes the tiled one).
func TestReadableReadsBack(t *testing.T) {
	for _, src := range []string{
		"HloModule m\n\nENTRY e {\n  p = f32[256,128] parameter(0)\n  ROOT f = f32[256,128] custom-call(p), custom_call_target=\"t\", backend_config={\n      \"k\": {sizes: [16,16]}\n    }\n}\n",
		"HloModule m, entry_computation_layout={(f32[<=64])->f32[<=64]{0}}\n\nENTRY e {\n  a = f32[<=64]{0:T(1024)} parameter(0)\n  ROOT r = f32[<=64]{0} reshape(a)\n}\n",
	} {
		m := parse(t, src)
		want := printer.Sprint(m, printer.ConfigFor(printer.StyleXLAShort))
		readable := printer.Sprint(m, printer.ConfigFor(printer.StyleReadable))
		got := printer.Sprint(parse(t, readable), printer.ConfigFor(printer.StyleXLAShort))
		if got != want {
			t.Errorf("read back from the readable style:\n%s\nthe module prints\n%s\nbut the text read back prints\n%s", readable, want, got)
		}
	}
}

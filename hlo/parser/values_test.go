package parser_test

import (
	"reflect"
	"strings"
	"testing"

	"octet/hlo"
	"octet/hlo/parser"
	"octet/hlo/printer"
)

// TestHeaderErrors checks that header attributes whose value does not read are positioned errors.
func TestHeaderErrors(t *testing.T) {
	for _, tt := range []struct{ header, want string }{
		{"entry_computation_layout=abc", "test.hlo:1:39: expected '{' to open entry_computation_layout, found \"abc\""},
		{"entry_computation_layout={()->f32[]}, entry_computation_layout={()->f32[]}", "test.hlo:1:52: attribute entry_computation_layout is given twice"},
		{"input_output_alias={ {0}: (0, {}, maybe) }", "test.hlo:1:48: expected may-alias or must-alias in input_output_alias"},
		{"input_output_alias={ {0} (0, {}) }", "test.hlo:1:39: expected ':' in input_output_alias"},
		{"buffer_donor={ (0) }", "test.hlo:1:31: expected ',' in buffer_donor"},
		// The header's attributes have kinds in the table too (XLA's parser reads them as such).
		{"replica_count=two", "test.hlo:1:14: attribute replica_count takes an integer, got two"},
		{"is_scheduled=yes", "test.hlo:1:14: attribute is_scheduled takes a bool, got yes"},
	} {
		src := "HloModule m, " + tt.header + "\n\nENTRY e {\n  ROOT c = f32[] constant(1)\n}\n"
		_, err := parser.ParseString("test.hlo", src)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.header, err, tt.want)
		}
	}
}

// TestComputationAttributeKind checks that a computation's execution_thread is a string, as in XLA.
func TestComputationAttributeKind(t *testing.T) {
	src := "HloModule m\n\nENTRY e {\n  ROOT c = f32[] constant(1)\n}, execution_thread=host\n"
	want := "test.hlo:5:4: attribute execution_thread takes a string, got host"
	if _, err := parser.ParseString("test.hlo", src); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
	m, err := parser.ParseString("test.hlo", strings.Replace(src, "=host", `="host"`, 1))
	if err != nil {
		t.Fatal(err)
	}
	if v := m.Entry.Attrs[0].Value; v != hlo.String("host") {
		t.Errorf("execution_thread is %#v, want the string host", v)
	}
}

// TestLayoutTypes checks that a layout's index and pointer types must be unsigned integer types (XLA's
// parser reads them so), that what XLA's layout validation refuses is refused, and that layouts print back.
func TestLayoutTypes(t *testing.T) {
	for _, tc := range []struct{ text, err string }{
		{"f32[2]{0:*(f32)}", "shape:1:12: the pointer type of a layout must be an unsigned integer type, not f32"},
		{"f32[2]{0:#(bf16)}", "shape:1:12: the index type of a layout must be an unsigned integer type, not bf16"},
		{"f32[2]{0:#(s32)}", "shape:1:12: the index type of a layout must be an unsigned integer type, not s32"},
		{"f32[2]{0:T(8)(0)}", "shape:1:15: a tile dimension cannot be 0"},
		{"f32[2]{0:T()}", "shape:1:11: a tile needs at least one dimension"},
		{"f32[2]{0:L(0)}", "shape:1:12: tail padding alignment L(n) must be positive, got 0"},
		{"f32[2]{0:E(-4)}", "shape:1:12: element size E(n) cannot be negative, got -4"},
		{"f32[2]{0:P(f32[2]{0})}", "shape:1:10: a layout in HLO text cannot have a physical shape P(...)"},
	} {
		if _, err := parser.ParseShape(tc.text); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: error %v, want %s", tc.text, err, tc.err)
		}
	}
	for _, text := range []string{"f32[2]{0:D(C)#(u32)*(u64)}", "f32[8,128]{1,0:T(8,128)(2,1)E(4)S(1)}", "s4[2]{0:E(4)}", "f32[]{:T(128)L(2)}", "f32[4]{0:T(*,2)}"} {
		s, err := parser.ParseShape(text)
		if err != nil {
			t.Errorf("%s: %v", text, err)
			continue
		}
		if got := printer.ShapeString(s, true); got != text {
			t.Errorf("%s prints as %s", text, got)
		}
		if s.Layout == nil {
			continue
		}
		l, err := parser.ParseLayout(text[strings.IndexByte(text, '{'):], len(s.Dims))
		if err != nil || !l.Equal(*s.Layout) {
			t.Errorf("ParseLayout(%s) = %v, %v; want %v", text, l, err, *s.Layout)
		}
	}
}

// TestTypedHeaderAttributes checks that input_output_alias, buffer_donor and operand_precision are read
// as structures and print back as XLA writes them.
func TestTypedHeaderAttributes(t *testing.T) {
	src := `HloModule m, input_output_alias={ {0}: (1, {}, may-alias), {1}: (0, {2}, must-alias), {2}: (2, {}) }, buffer_donor={ (0, {}), (3, {1}) }

ENTRY e {
  a = f32[2,2]{1,0} parameter(0)
  ROOT d = f32[2,2]{1,0} dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={high,default}
}
`
	m, err := parser.ParseString("test.hlo", src)
	if err != nil {
		t.Fatal(err)
	}
	wantAlias := hlo.InputOutputAliasing{
		{Output: []int64{0}, Parameter: 1, ParameterIndex: []int64{}, Kind: hlo.MayAlias},
		{Output: []int64{1}, Parameter: 0, ParameterIndex: []int64{2}, Kind: hlo.MustAlias},
		{Output: []int64{2}, Parameter: 2, ParameterIndex: []int64{}, Kind: hlo.AliasUnspecified},
	}
	if got := m.Attr("input_output_alias"); !reflect.DeepEqual(got, wantAlias) {
		t.Errorf("input_output_alias = %#v, want %#v", got, wantAlias)
	}
	wantDonors := hlo.BufferDonors{{Parameter: 0, ParameterIndex: []int64{}}, {Parameter: 3, ParameterIndex: []int64{1}}}
	if got := m.Attr("buffer_donor"); !reflect.DeepEqual(got, wantDonors) {
		t.Errorf("buffer_donor = %#v, want %#v", got, wantDonors)
	}
	if got, want := m.Entry.Root.Attr("operand_precision"), (hlo.Enums{"high", "default"}); !reflect.DeepEqual(got, want) {
		t.Errorf("operand_precision = %#v, want %#v", got, want)
	}
	out := printer.Sprint(m, printer.ConfigFor(printer.StyleXLA))
	for _, want := range []string{
		"input_output_alias={ {0}: (1, {}, may-alias), {1}: (0, {2}, must-alias), {2}: (2, {}) }",
		"buffer_donor={ (0, {}), (3, {1}) }",
		"operand_precision={high,default}",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("printed module lacks %s:\n%s", want, out)
		}
	}
}

// TestLongFloatAttribute checks that a float attribute spelled with more digits than strconv reads right
// (a 1, 800 zeros and a 5, then the point moved back by the exponent) has its value: epsilon is 1 (strconv said 0.01).
func TestLongFloatAttribute(t *testing.T) {
	eps := "1" + strings.Repeat("0", 800) + "5e-801"
	src := "HloModule m\n\nENTRY e {\n  x = f32[2,3] parameter(0)\n  s = f32[3] parameter(1)\n  o = f32[3] parameter(2)\n" +
		"  ROOT b = (f32[2,3], f32[3], f32[3]) batch-norm-training(x, s, o), epsilon=" + eps + ", feature_index=1\n}\n"
	m, err := parser.ParseString("test.hlo", src)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.Entry.Root.Attr("epsilon"), hlo.Float(float32(1)); got != want {
		t.Errorf("epsilon %v, want %v", got, want)
	}
}

// TestConcatenatedModules checks that two modules written one after the other without XLA's separator get
// an error that says so, at the second header, and that a computation spelled %HloModule is still one.
func TestConcatenatedModules(t *testing.T) {
	one := "HloModule a\n\nENTRY e {\n  ROOT c = f32[] constant(1)\n}\n"
	_, err := parser.ParseString("test.hlo", one+strings.Replace(one, "HloModule a", "HloModule b", 1))
	if want := `test.hlo:6:1: a second HloModule in the module a: modules in one file are separated by a line "// -----"`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
	src := "HloModule m\n\n%HloModule {\n  ROOT c = f32[] constant(1)\n}\n\nENTRY e {\n  ROOT r = f32[] call(), to_apply=%HloModule\n}\n"
	if _, err := parser.ParseString("test.hlo", src); err != nil {
		t.Errorf("a computation named %%HloModule: %v", err)
	}
}

package parser

import (
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
	"reflect"
	"strings"
	"testing"

	"octet/hlo"
)

// instructionPrefix is what precedes the opcode on the line the tests below write.
const instructionPrefix = "  ROOT x = f32[4] "

// opModule is a module whose root, on line 8, is "x = f32[4] <op>(operands), <required attributes><attrs>"
// with n operands, all %p.
func opModule(t *testing.T, op hlo.Opcode, n int, attrs string) string {
	t.Helper()
	return opModuleWithout(t, op, n, "", attrs)
}

// opModuleWithout is opModule without the required attribute named except (which attrs gives).
func opModuleWithout(t *testing.T, op hlo.Opcode, n int, except, attrs string) string {
	t.Helper()
	ops := strings.TrimSuffix(strings.Repeat("%p, ", n), ", ")
	return fmt.Sprintf("HloModule m\n%%f {\n  %%a = f32[] parameter(0)\n  ROOT %%b = f32[] parameter(1)\n}\n"+
		"ENTRY %%e {\n  %%p = f32[4] parameter(0)\n%s%s(%s)%s%s\n}\n",
		instructionPrefix, op, ops, requiredAttrs(t, op.Info(), except), attrs)
}

// requiredAttrs writes a value of the right kind for each attribute op requires, but except.
func requiredAttrs(t *testing.T, info *hlo.OpInfo, except string) string {
	t.Helper()
	var b strings.Builder
	switch {
	case info.Opcode == hlo.OpConditional && except != "branch_computations":
		b.WriteString(", branch_computations={%f}") // one of its two forms is required
	case info.Opcode == hlo.OpAsyncStart && except != "calls":
		b.WriteString(", calls=%f") // required unless written in syntax sugar
	}
	for _, s := range info.Attrs {
		if !s.Required || s.Name == except {
			continue
		}
		v := map[hlo.AttrKind]string{
			hlo.AttrInt: "0", hlo.AttrFloat: "0.5", hlo.AttrInts: "{0}", hlo.AttrIntLists: "{{0,1}}",
			hlo.AttrString: `"t"`, hlo.AttrEnum: "E", hlo.AttrComp: "%f", hlo.AttrSlice: "{[0:4]}",
			hlo.AttrPadding: "0_0", hlo.AttrConvDims: "b0f_0io->b0f", hlo.AttrReplicaGroups: "{{0}}", hlo.AttrText: "x",
		}[s.Kind]
		if len(s.Values) > 0 {
			v = s.Values[0]
		}
		if v == "" {
			t.Fatalf("no test value for attributes of kind %s", s.Kind)
		}
		fmt.Fprintf(&b, ", %s=%s", s.Name, v)
	}
	return b.String()
}

// parseErrors parses src and returns its errors; the test fails when there are none.
func parseErrors(t *testing.T, src string) scanner.ErrorList {
	t.Helper()
	_, err := ParseFile(token.NewFileSet(), "op.hlo", []byte(src))
	if err == nil {
		t.Fatalf("no error for\n%s", src)
	}
	var list scanner.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error is %T, not a scanner.ErrorList: %v", err, err)
	}
	return list
}

// hasError reports whether list holds msg at line:col.
func hasError(list scanner.ErrorList, line, col int, msg string) bool {
	for _, e := range list {
		if e.Pos.Line == line && e.Pos.Column == col && e.Msg == msg {
			return true
		}
	}
	return false
}

// TestOperationChecksEveryOpcode writes every opcode with a wrong number of operands and with an unknown
// attribute, and expects each rejected at the right place.
func TestOperationChecksEveryOpcode(t *testing.T) {
	opCol := len(instructionPrefix) + 1
	for _, op := range hlo.Opcodes() {
		t.Run(op.String(), func(t *testing.T) {
			info := op.Info()
			switch op {
			case hlo.OpParameter, hlo.OpConstant:
				// Their parentheses hold a number or a literal, never operands.
				if info.Operands.Min != 0 || info.Operands.Max != 0 {
					t.Errorf("%s takes %s operands", op, info.Operands)
				}
			default:
				bad := info.Operands.Min - 1
				if bad < 0 {
					bad = info.Operands.Max + 1
				}
				if info.Operands.Max == hlo.Variadic && info.Operands.Min == 0 {
					break // any count is right
				}
				src := opModule(t, op, bad, "")
				prefix, suffix := fmt.Sprintf("%s takes ", op), fmt.Sprintf(", got %d", bad)
				var list scanner.ErrorList
				col := opCol
				if info.ParsesAnyCount {
					col = 3 // Verify reports at the instruction
					// As XLA's parser does, the parser reads any number of operands; Verify counts them,
					// as XLA's verifier does.
					m, err := ParseString("op.hlo", src)
					if err != nil {
						t.Fatalf("%s with %d operands does not parse: %v", op, bad, err)
					}
					errors.As(hlo.Verify(m), &list)
				} else {
					list = parseErrors(t, src)
				}
				found := false
				for _, e := range list {
					found = found || e.Pos.Line == 8 && e.Pos.Column == col && strings.HasPrefix(e.Msg, prefix) && strings.HasSuffix(e.Msg, suffix)
				}
				if !found {
					t.Errorf("want op.hlo:8:%d: %s...%s; got\n%v", col, prefix, suffix, list)
				}
			}

			n := info.Operands.Min
			src := opModule(t, op, n, ", foo=bar")
			if op == hlo.OpParameter {
				src = strings.Replace(src, "parameter()", "parameter(1)", 1)
			} else if op == hlo.OpConstant {
				src = strings.Replace(src, "constant()", "constant({1, 2, 3, 4})", 1)
			}
			list := parseErrors(t, src)
			line := strings.Split(src, "\n")[7]
			col := strings.Index(line, "foo=") + 1
			want := fmt.Sprintf("unknown attribute foo on %s", op)
			if !hasError(list, 8, col, want) {
				t.Errorf("want op.hlo:8:%d: %s; got\n%v", col, want, list)
			}
		})
	}
}

// TestOperationErrors checks the message and position of each kind of problem.
func TestOperationErrors(t *testing.T) {
	const head = "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  s = f32[] parameter(1)\n"
	for _, tc := range []struct {
		name, line, want string
	}{

		{"broadcast with two operands", "ROOT b = f32[4,4] broadcast(p, p), dimensions={0}", "op.hlo:5:21: broadcast takes 1 operand, got 2"},
		{"unknown attribute", "ROOT a = f32[4] add(p, p), foo=bar", "op.hlo:5:30: unknown attribute foo on add"},
		{"unknown attribute after a nested value", "ROOT a = f32[4] add(p, p), metadata={op_name=\"a, foo=b\"}, foo=bar", "op.hlo:5:61: unknown attribute foo on add"},
		{"missing attribute", "ROOT b = f32[4,4] broadcast(p)", "op.hlo:5:21: broadcast needs attribute dimensions"},
		{"missing computation", "ROOT r = f32[] reduce(p, s), dimensions={0}", "op.hlo:5:18: reduce needs attribute to_apply"},
		{"wrong kind", "ROOT b = f32[4,4] broadcast(p), dimensions=1", "op.hlo:5:35: attribute dimensions on broadcast takes an integer list, got 1"},
		{"wrong kind of number", "ROOT g = f32[4] get-tuple-element(p), index=one", "op.hlo:5:41: attribute index on get-tuple-element takes an integer, got one"},
		{"wrong enum word", "ROOT c = pred[4] compare(p, p), direction=LESS", "op.hlo:5:35: attribute direction on compare is one of EQ, NE, GE, GT, LE, LT, got LESS"},
		{"odd operand count of reduce", "ROOT r = f32[] reduce(p, s, s), dimensions={0}, to_apply=f", "op.hlo:5:18: reduce takes an even number of operands, at least 2, got 3"},

		{"async-start without calls", "cs = ((f32[4]), f32[4]) async-start(p)\n  ROOT d = f32[4] async-done(cs)", "op.hlo:5:27: async-start needs attribute calls"},
		{"conditional without branches", "ROOT c = f32[4] conditional(s, p, p)", "op.hlo:5:19: conditional needs branch_computations, or true_computation and false_computation"},
		{"nested instruction", "ROOT a = f32[4] add(p, f32[4] negate(p, p))", "op.hlo:5:33: negate takes 1 operand, got 2"},
		{"operand defined later", "ROOT a = f32[4] add(q)\n  q = f32[4] negate(p)", "op.hlo:5:19: add takes 2 operands, got 1"},
		{"sugared async", "cs = ((f32[4]), f32[4]) custom-call-start(p), custom_call_target=\"t\", foo=1\n  ROOT d = f32[4] custom-call-done(cs)", "op.hlo:5:73: unknown attribute foo on custom-call-start"},
		{"sugared async without target", "cs = ((f32[4]), f32[4]) custom-call-start(p)\n  ROOT d = f32[4] custom-call-done(cs)", "op.hlo:5:27: custom-call-start needs attribute custom_call_target"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			list := parseErrors(t, head+"  "+tc.line+"\n}\n")
			found := false
			for _, e := range list {
				found = found || e.Error() == tc.want
			}
			if !found {
				t.Errorf("want %s; got\n%v", tc.want, list)
			}
		})
	}
}

// TestOperationsAccepted parses instructions that use each form the table allows.
func TestOperationsAccepted(t *testing.T) {
	src := `HloModule m
ENTRY e {
  p = f32[4] parameter(0), sharding={replicated}, metadata={op_name="p"}
  s = f32[] parameter(1)
  b = f32[4] broadcast(s)
  c = pred[4] compare(p, b), direction=LT, type=TOTALORDER
  bn = (f32[4], f32[1], f32[1]) batch-norm-training(p, s, s), epsilon=0.001, feature_index=0
  cs = ((f32[4]), f32[4]) custom-call-start(p), custom_call_target="t", async_execution_thread="main"
  cd = f32[4] custom-call-done(cs)
  ROOT t = (f32[4], pred[4]) tuple(cd, c), frontend_attributes={a="1"}
}
`
	if _, err := ParseFile(token.NewFileSet(), "ok.hlo", []byte(src)); err != nil {
		t.Fatal(err)
	}
}

// TestEnumWords writes each enum-valued attribute with words XLA's parser takes, in the case drift it
// allows, and with words it refuses (hlo_parser.cc: its String-to-enum functions lower-case the words of
// precisions, distributions, algorithms, schedules and API versions, and take the others as written).
func TestEnumWords(t *testing.T) {
	for _, tc := range []struct {
		op             hlo.Opcode
		attr           string
		accept, refuse []string
	}{
		{hlo.OpCompare, "direction", []string{"EQ", "LT", "GE"}, []string{"eq", "LESS"}},
		{hlo.OpCompare, "type", []string{"TOTALORDER", "UNSIGNED", "FLOAT"}, []string{"totalorder", "PARTIALORDER"}},
		{hlo.OpDot, "operand_precision", []string{"{high,default}", "{HIGHEST,Default}", "{packed_nibble,high}", "{}"}, []string{"{bogus,42}", "{high,bogus}"}},
		{hlo.OpConvolution, "operand_precision", []string{"{highest,highest}"}, []string{"{f32,f32}"}},
		{hlo.OpCustomCall, "operand_precision", []string{"{default}"}, []string{"{fast}"}},
		{hlo.OpDot, "algorithm", []string{"dot_bf16_bf16_f32", "DOT_F32_F32_F32", "dot_any_f8_any_f8_f32_fast_accum", "unset"}, []string{"bf16", "rng_philox"}},
		{hlo.OpRng, "distribution", []string{"rng_uniform", "RNG_NORMAL", "rng_invalid"}, []string{"uniform", "rng_default"}},
		{hlo.OpRngBitGenerator, "algorithm", []string{"rng_philox", "RNG_THREE_FRY", "rng_default"}, []string{"philox", "dot_f32_f32_f32"}},
		{hlo.OpFft, "fft_type", []string{"FFT", "IRFFT"}, []string{"fft", "DFT"}},
		{hlo.OpFusion, "kind", []string{"kLoop", "kCustom", "kInput", "kOutput"}, []string{"loop", "KLOOP"}},
		{hlo.OpCustomCall, "schedule", []string{"schedule_latest", "SCHEDULE_EARLIEST", "schedule_none"}, []string{"latest"}},
		{hlo.OpCustomCall, "api_version", []string{"API_VERSION_TYPED_FFI", "api_version_status_returning", "api_version_original"}, []string{"API_VERSION_UNSPECIFIED", "typed_ffi"}},
		{hlo.OpCustomCall, "padding_type", []string{"PADDING_SAME", "PADDING_VALID"}, []string{"padding_same", "SAME"}},
		{hlo.OpTriangularSolve, "transpose_a", []string{"NO_TRANSPOSE", "ADJOINT", "TRANSPOSE"}, []string{"no_transpose", "CONJUGATE"}},
		{hlo.OpConvolution, "conv_kind", []string{"fprop", "dgrad", "wgrad"}, []string{"FPROP", "bprop"}},
		{hlo.OpAllReduce, "mode", []string{"cross_replica", "flattened_id", "cross_replica_and_partition"}, []string{"CROSS_REPLICA", "global"}},
		{hlo.OpNegate, "parameter_replication", []string{"{true,false}", "{}"}, []string{"{yes}", "{True}"}},
	} {
		t.Run(tc.op.String()+"."+tc.attr, func(t *testing.T) {
			n := tc.op.Info().Operands.Min
			for _, w := range tc.accept {
				src := opModuleWithout(t, tc.op, n, tc.attr, ", "+tc.attr+"="+w)
				if _, err := ParseString("op.hlo", src); err != nil {
					t.Errorf("%s=%s: %v", tc.attr, w, err)
				}
			}
			for _, w := range tc.refuse {
				src := opModuleWithout(t, tc.op, n, tc.attr, ", "+tc.attr+"="+w)
				line := strings.Split(src, "\n")[7]
				col := strings.Index(line, tc.attr+"=") + 1
				list := parseErrors(t, src)
				found := false
				for _, e := range list {
					found = found || e.Pos.Line == 8 && e.Pos.Column == col && strings.HasPrefix(e.Msg, "attribute "+tc.attr+" on ")
				}
				if !found {
					t.Errorf("%s=%s: no error at op.hlo:8:%d: %v", tc.attr, w, col, list)
				}
			}
		})
	}
}

// kindSamples are values of each attribute kind, as HLO text writes them.
var kindSamples = map[hlo.AttrKind]string{
	hlo.AttrText: "x", hlo.AttrInt: "1", hlo.AttrFloat: "0.5", hlo.AttrBool: "true", hlo.AttrInts: "{0}",
	hlo.AttrIntLists: "{{0,1}}", hlo.AttrString: `"s"`, hlo.AttrComp: "%f", hlo.AttrComps: "{%f}",
	hlo.AttrInsts: "{%p}", hlo.AttrSlice: "{[0:4]}", hlo.AttrPadding: "0_0", hlo.AttrWindow: "{size=1}",
	hlo.AttrConvDims: "b0f_0io->b0f", hlo.AttrBackendConfig: `{"x":1}`, hlo.AttrMetadata: `{op_name="x"}`,
	hlo.AttrFrontendAttributes: `{a="1"}`, hlo.AttrReplicaGroups: "{{0}}", hlo.AttrSharding: "{replicated}",
	hlo.AttrAliasing: "{{}: (0, {})}", hlo.AttrShape: "(f32[4]{0}, pred[])", hlo.AttrShapes: "{f32[4]{0}}",
	hlo.AttrLiteral: "s32[2]{0} {1, 2}",
}

// TestEveryAttributeRead writes every attribute of every opcode (and the common ones) with a value of its
// kind, and checks that the parser reads it as a value that kind accepts: the parser has a reader for every
// kind the table gives.
func TestEveryAttributeRead(t *testing.T) {
	for _, op := range hlo.Opcodes() {
		if op == hlo.OpParameter || op == hlo.OpConstant {
			continue
		}
		info := op.Info()
		specs := info.Attrs
		if op == hlo.OpNegate {
			specs = append(specs, hlo.CommonAttrs()...)
		}
		for _, s := range specs {
			v := kindSamples[s.Kind]
			switch s.Kind {
			case hlo.AttrEnum:
				v = s.Values[len(s.Values)-1]
			case hlo.AttrEnums:
				v = "{" + s.Values[0] + "," + s.Values[len(s.Values)-1] + "}"
			}
			if v == "" {
				t.Errorf("%s.%s: no sample value of kind %s", op, s.Name, s.Kind)
				continue
			}
			src := opModuleWithout(t, op, info.Operands.Min, s.Name, ", "+s.Name+"="+v)
			m, err := ParseString("op.hlo", src)
			if err != nil {
				t.Errorf("%s.%s=%s: %v", op, s.Name, v, err)
				continue
			}
			got := m.Entry.Root.Attr(s.Name)
			if !s.Kind.Accepts(got) {
				t.Errorf("%s.%s=%s is read as %T, not a value of kind %s", op, s.Name, v, got, s.Kind)
			}
		}
	}
}

// TestEnumWordsAsXLAPrintsThem checks that a word XLA reads in any case is kept as XLA prints it, as XLA
// keeps the enum it names: readers of the module compare words without minding the case they were
// written in, and the module prints as XLA would print it.
func TestEnumWordsAsXLAPrintsThem(t *testing.T) {
	src := `HloModule m
ENTRY e {
  a = f32[2,2] parameter(0)
  s = f32[] parameter(1)
  r = f32[2,2] rng(s, s), distribution=RNG_NORMAL
  c = f32[2,2] custom-call(a), custom_call_target="t", api_version=api_version_typed_ffi, schedule=Schedule_Latest
  ROOT d = f32[2,2] dot(r, c), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={HIGH,Default}, algorithm=DOT_F32_F32_F32
}
`
	m, err := ParseString("case.hlo", src)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*hlo.Instruction{}
	for _, in := range m.Entry.Instructions {
		byName[in.Name] = in
	}
	for _, tc := range []struct {
		inst, attr string
		want       hlo.Value
	}{
		{"r", "distribution", hlo.Enum("rng_normal")},
		{"c", "api_version", hlo.Enum("API_VERSION_TYPED_FFI")},
		{"c", "schedule", hlo.Enum("SCHEDULE_LATEST")},
		{"d", "algorithm", hlo.Enum("dot_f32_f32_f32")},
	} {
		if got := byName[tc.inst].Attr(tc.attr); got != tc.want {
			t.Errorf("%s.%s = %#v, want %#v", tc.inst, tc.attr, got, tc.want)
		}
	}
	if got := byName["d"].Attr("operand_precision"); !reflect.DeepEqual(got, hlo.Enums{"high", "default"}) {
		t.Errorf("operand_precision = %#v, want {high,default}", got)
	}
}

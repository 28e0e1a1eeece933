package stablehlo

import (
	"bytes"
	"fmt"
	"go/token"
	"strings"
	"testing"

	"octet/hlo"
	"octet/hlo/printer"
)

// TestKeepsWhatXLAKeeps: a custom call with a typed FFI backend config (as JAX prints it), column-major layouts and an
// output-operand alias, a Sharding custom call, frontend attributes, called computations, a donated and an
// aliased parameter, a host memory kind and an explicit layout all reach the HLO as XLA's translation
// writes them.
func TestKeepsWhatXLAKeeps(t *testing.T) {
	src := `module @jit_f attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32, jax.uses_shape_polymorphism = false} {
  func.func public @main(%a: tensor<4x4xf32> {tf.aliasing_output = 0 : i32, mhlo.sharding = "{devices=[2,1]0,1}"}, %b: tensor<4xf32> {jax.buffer_donor = true, mhlo.memory_kind = "pinned_host"}, %c: tensor<2x3xf32> {mhlo.layout_mode = "{0,1}"}) -> (tensor<4x4xf32> {jax.result_info = "[0]"}, tensor<4xi32>, tensor<i32>, tensor<4x4xf32>, tensor<4xf32>) {
    %0:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%a) {backend_config = "", mhlo.backend_config = {mode = 86 : ui8}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>]} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xi32>, tensor<i32>)
    %1 = stablehlo.custom_call @Sharding(%0#0) {mhlo.sharding = "{devices=[2,1]0,1}"} : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %2 = stablehlo.custom_call @annotate_device_placement(%b) {has_side_effect = true, mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<4xf32>) -> tensor<4xf32>
    %3 = stablehlo.custom_call @my_call(%2) {called_computations = [@helper], backend_config = "opaque\"bytes", api_version = 2 : i32} : (tensor<4xf32>) -> tensor<4xf32>
    return %0#0, %0#1, %0#2, %1, %3 : tensor<4x4xf32>, tensor<4xi32>, tensor<i32>, tensor<4x4xf32>, tensor<4xf32>
  }
  func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}`
	m := convert(t, src)
	var b bytes.Buffer
	if err := printer.Fprint(&b, m, printer.ConfigFor(printer.StyleXLA)); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, want := range []string{
		// aliasing and donation, host memory and an explicit layout in the entry's layout
		"input_output_alias={ {0}: (0, {}, may-alias) }, buffer_donor={ (1, {}) }, entry_computation_layout={(f32[4,4]{1,0}, f32[4]{0:S(5)}, f32[2,3]{0,1})",
		"num_partitions=2",
		"%Arg_0.1 = f32[4,4]{1,0} parameter(0), sharding={devices=[2,1]0,1}",
		// the column-major LAPACK operand stays column-major, the result too; the dictionary becomes the
		// typed FFI backend config
		`%custom-call.1 = (f32[4,4]{0,1}, s32[4]{0}, s32[]) custom-call(f32[4,4]{1,0} %Arg_0.1), custom_call_target="lapack_sgetrf_ffi", operand_layout_constraints={f32[4,4]{0,1}}, output_to_operand_aliasing={{0}: (0, {})}, api_version=API_VERSION_TYPED_FFI, backend_config={mode = 86 : ui8}`,
		`custom_call_target="Sharding", sharding={devices=[2,1]0,1}`,
		`custom_call_target="annotate_device_placement", custom_call_has_side_effect=true, frontend_attributes={_xla_buffer_placement="pinned_host"}`,
		`custom_call_target="my_call", api_version=API_VERSION_STATUS_RETURNING, called_computations={%helper.1}, backend_config="opaque\"bytes"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in\n%s", want, text)
		}
	}
}

// TestRefusesWhatItCannotKeep: an attribute the conversion cannot carry, which XLA's translation keeps,
// is an error naming it at its position; ParseFileNotes converts the program and returns the same as a
// note. A dialect's attribute XLA's translation ignores too is only noted.
func TestRefusesWhatItCannotKeep(t *testing.T) {
	src := []byte(`func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.exponential %a {result_accuracy = #stablehlo.result_accuracy<atol = 1.0e-5, rtol = 0.0, ulps = 1, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>, my.hint = 3 : i32} : tensor<4xf32>
  return %0 : tensor<4xf32>
}
`)
	want := "test.mlir:2:3: stablehlo.exponential: attribute result_accuracy is not converted"
	_, err := ParseFile(token.NewFileSet(), "test.mlir", src)
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("ParseFile: %v, want %s", err, want)
	}
	mods, notes, err := ParseFileNotes(token.NewFileSet(), "test.mlir", src)
	if err != nil || len(mods) != 1 {
		t.Fatalf("ParseFileNotes: %v", err)
	}
	// Sorted by position, then by message.
	if len(notes) != 2 || notes[1].Error() != want || notes[0].Error() != "test.mlir:2:3: stablehlo.exponential: attribute my.hint is not converted"+IgnoredLikeXLA {
		t.Errorf("notes %v", notes)
	}
}

// TestShardingsAsXLA: Shardy shardings convert to the HLO shardings XLA's export gives them (the expected
// texts are those of XLA's stablehlo_export_pipeline.mlir and sharding.mlir tests), mhlo.sharding read as
// text or as OpSharding bytes.
func TestShardingsAsXLA(t *testing.T) {
	meshes := `sdy.mesh @mesh_0 = <["axis_0"=2, "axis_1"=4, "axis_2"=4]>
sdy.mesh @mesh_1 = <["axis_0"=16]>
sdy.mesh @mesh_2 = <["x"=8, "y"=4]>
sdy.mesh @mesh_4 = <["axis_0"=2, "axis_1"=2, "axis_2"=2], device_ids=[0,2,4,6,1,3,5,7]>
sdy.mesh @maximal = <[], device_ids=[3]>
`
	for _, tc := range []struct{ sharding, want string }{
		{`#sdy.sharding<@mesh_1, [{?}, {}]>`, "{replicated}"},
		{`#sdy.sharding<@mesh_1, [{?}, {"axis_0", ?}]>`, "{devices=[1,16]<=[16]}"},
		{`#sdy.sharding<@mesh_0, [{"axis_2"}, {"axis_0", "axis_1"}]>`, "{devices=[4,8]<=[8,4]T(1,0)}"},
		{`#sdy.sharding<@mesh_0, [{}, {"axis_0"}]>`, "{devices=[1,2,16]<=[32] last_tile_dim_replicate}"},
		{`#sdy.sharding<@mesh_0, [{"axis_1"}, {"axis_2"}]>`, "{devices=[4,4,2]<=[2,16]T(1,0) last_tile_dim_replicate}"},
		{`#sdy.sharding<@mesh_0, [{}, {"axis_0", "axis_2"}]>`, "{devices=[1,8,4]<=[2,4,4]T(0,2,1) last_tile_dim_replicate}"},
		{`#sdy.sharding<@mesh_2, [{"y"}, {"x":(2)2}]>`, "{devices=[4,2,4]<=[2,2,2,4]T(3,1,0,2) last_tile_dim_replicate}"},
		{`#sdy.sharding<@mesh_2, [{"x":(1)2}, {"x":(2)4}]>`, "{devices=[2,4,4]<=[32] last_tile_dim_replicate}"},
		{`#sdy.sharding<@mesh_0, [{"axis_0"}, {"axis_2"}], replicated={"axis_1"}>`, "{devices=[2,4,4]<=[2,4,4]T(0,2,1) last_tile_dim_replicate}"},
		{`#sdy.sharding<@maximal, [{}, {}]>`, "{maximal device=3}"},
		{`#sdy.sharding<mesh<["a"=2, "b"=2]>, [{"a"}, {}]>`, "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"},
	} {
		src := meshes + "func.func @main(%a: tensor<8x8xf32> {sdy.sharding = " + tc.sharding + "}) -> tensor<8x8xf32> {\n  return %a : tensor<8x8xf32>\n}\n"
		m := convert(t, src)
		if got := m.Entry.Params[0].Attr("sharding"); got == nil || shardingOf(got) != tc.want {
			t.Errorf("%s: %v, want %s", tc.sharding, shardingOf(got), tc.want)
		}
	}
	for _, tc := range []struct{ value, want string }{
		{`\08\03\1A\01\02\22\02\00\01`, "{devices=[2]0,1}"},
		{`\08\03\1A\03\02\01\02\22\04\00\01\02\03B\01\00`, "{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}"},
		{``, "{replicated}"},
		{`{devices=[2,1]0,1}`, "{devices=[2,1]0,1}"},
	} {
		got, err := shardingString(unescapeMLIR(tc.value))
		if err != nil || got != tc.want {
			t.Errorf("mhlo.sharding %q: %s, %v; want %s", tc.value, got, err, tc.want)
		}
	}
}

func shardingOf(v hlo.Value) string {
	if s, ok := v.(*hlo.Sharding); ok {
		return s.Text
	}
	return ""
}

// unescapeMLIR turns MLIR's \XX escapes into bytes.
func unescapeMLIR(s string) string {
	src := []byte(`"` + s + `"`)
	p := &parser{scan: scan{src: src, file: token.NewFileSet().AddFile("", -1, len(src))}}
	return p.str()
}

// TestFileCheck: the matcher the conformance suite uses holds FileCheck's rules on small inputs, both ways.
func TestFileCheck(t *testing.T) {
	out := "HloModule m\n\n%region_0.1 (a: f32[]) -> f32[] {\n  ROOT %add.1 = f32[] add(%a, %a)\n}\n\nENTRY %main.1 (Arg_0.1: f32[4]) -> f32[4] {\n  %Arg_0.1 = f32[4]   parameter(0)\n  ROOT %neg.1 = f32[4] negate(%Arg_0.1), sharding={replicated}\n}\n"
	for _, tc := range []struct {
		checks string
		ok     bool
	}{
		{"// CHECK: HloModule m\n// CHECK: ENTRY", true},
		{"// CHECK: ENTRY\n// CHECK: HloModule", false},                                                    // order
		{"// CHECK: %[[ARG:.*]] = f32[4] parameter(0)\n// CHECK-NEXT: negate(%[[ARG]])", true},             // variables, blanks
		{"// CHECK: %[[ARG:Arg_[0-9]]].1 = f32[4] parameter(0)\n// CHECK: negate(%[[ARG]].1)", true},       // a named capture
		{"// CHECK: parameter(0)\n// CHECK-SAME: sharding", false},                                         // same line
		{"// CHECK: negate\n// CHECK-SAME: sharding={{[{]}}replicated}", true},                             // {{regex}}
		{"// CHECK-SAME{LITERAL}: sharding={replicated}", true},                                            // literal
		{"// CHECK-LABEL: %region_0\n// CHECK-NOT: negate\n// CHECK-LABEL: ENTRY\n// CHECK: negate", true}, // labels split
		{"// CHECK: add\n// CHECK-NOT: parameter\n// CHECK: negate", false},                                // not between
		{"// CHECK-DAG: negate\n// CHECK-DAG: parameter(0)\n// CHECK: }", true},                            // any order
		{"// CHECK: ROOT\n// CHECK-NEXT: }\n// CHECK-EMPTY:", true},
		{"// CHECK-COUNT-2: ROOT", true},
		{"// CHECK-COUNT-3: ROOT", false},
		{"// OTHER: nothing here", false}, // no checks of the prefix
	} {
		err := fileCheck(out, parseChecks(tc.checks, []string{"CHECK"}))
		if (err == nil) != tc.ok {
			t.Errorf("%q: %v, want ok=%v", tc.checks, err, tc.ok)
		}
	}
}

// TestIgnoredBackendConfig: an mhlo.backend_config XLA's translation ignores (on a call with a backend
// config of its own, on a call of another API version, or one that is not a dictionary) is converted
// without it and noted as XLA ignores it, a warning even in a strict conversion.
func TestIgnoredBackendConfig(t *testing.T) {
	src := []byte(`func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @foo(%a) {backend_config = "opaque", mhlo.backend_config = {a = 1 : i32}} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = stablehlo.custom_call @bar(%0) {api_version = 2 : i32, mhlo.backend_config = {a = 1 : i32}} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = stablehlo.custom_call @baz(%1) {mhlo.backend_config = "text"} : (tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
`)
	if _, err := ParseFile(token.NewFileSet(), "test.mlir", src); err != nil {
		t.Fatal(err)
	}
	_, notes, err := ParseFileNotes(token.NewFileSet(), "test.mlir", src)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"test.mlir:2:3: stablehlo.custom_call: mhlo.backend_config on a call of api_version 1 or with a backend_config is not converted" + IgnoredLikeXLA,
		"test.mlir:3:3: stablehlo.custom_call: mhlo.backend_config on a call of api_version 2 or with a backend_config is not converted" + IgnoredLikeXLA,
		"test.mlir:4:3: stablehlo.custom_call: an mhlo.backend_config that is not a dictionary is not converted" + IgnoredLikeXLA,
	}
	if len(notes) != len(want) {
		t.Fatalf("notes %v", notes)
	}
	for i, n := range notes {
		if n.Error() != want[i] {
			t.Errorf("note %d: %s, want %s", i, n.Error(), want[i])
		}
	}
}

// TestShardingFitsRank: an op's sharding whose tiles do not fit its result's rank is left out, with a
// note, as XLA's translation leaves it; the subgroup dimensions are those last_tile_dims lists (an empty
// list names none) and last_tile_dim_replicate.
func TestShardingFitsRank(t *testing.T) {
	for _, c := range []struct {
		sharding string
		fits     bool
	}{
		{"{devices=[2,1,2]0,1,2,3 last_tile_dims={manual}}", true},
		{"{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}", true},
		{"{devices=[2,1,2,1]0,1,2,3 last_tile_dims={manual, replicated}}", true},
		{"{devices=[2,1,2]0,1,2,3 last_tile_dims={}}", false},
		{"{devices=[2,1,2]0,1,2,3}", false},
	} {
		src := fmt.Sprintf(`func.func @main(%%a: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %%0 = stablehlo.exponential %%a {mhlo.sharding = %q} : tensor<4x2xf32>
  return %%0 : tensor<4x2xf32>
}
`, c.sharding)
		mods, notes, err := ParseFileNotes(token.NewFileSet(), "test.mlir", []byte(src))
		if err != nil || len(mods) != 1 {
			t.Fatalf("%s: %v", c.sharding, err)
		}
		left := len(notes) == 1 && strings.Contains(notes[0].Error(), "does not fit")
		if left == c.fits || len(notes) > 1 {
			t.Errorf("%s: notes %v; want it kept %v", c.sharding, notes, c.fits)
		}
	}
}

package prototext

import (
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
	"octet/internal/cstring"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"octet/hlo"
	"octet/hlo/parser"
	"octet/hlo/printer"
	"octet/internal/shared"
)

// protoCorpusFiles are the corpus files written as HloModuleProto text.
var protoCorpusFiles = []string{
	"xla__hlo__translate__hlo_to_mhlo__tests__dynamic_param.hlo",
	"xla__hlo__translate__hlo_to_mhlo__tests__module_attributes.hlo",
	"xla__hlo__translate__hlo_to_mhlo__tests__spmd_module_sharding.hlo",
	"xla__hlo__translate__hlo_to_mhlo__tests__stacktrace_to_location.hlo",
}

func readProtoCorpus(t testing.TB, name string) []*hlo.Module {
	t.Helper()
	src, err := shared.ReadFile(shared.Path(t, "corpus", "hlo", name))
	if err != nil {
		t.Fatal(err)
	}
	mods, err := parser.ParseFile(token.NewFileSet(), name, src)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return mods
}

func instruction(t *testing.T, c *hlo.Computation, name string) *hlo.Instruction {
	t.Helper()
	for _, in := range c.Instructions {
		if in.Name == name {
			return in
		}
	}
	t.Fatalf("computation %s has no instruction %s", c.Name, name)
	return nil
}

func xlaText(m *hlo.Module) string { return printer.Sprint(m, printer.ConfigFor(printer.StyleXLA)) }

func TestProtoCorpus(t *testing.T) {
	t.Run("module_attributes", func(t *testing.T) {
		mods := readProtoCorpus(t, protoCorpusFiles[1])
		if len(mods) != 1 {
			t.Fatalf("%d modules", len(mods))
		}
		m := mods[0]
		if m.Name != "main" || m.Entry == nil || m.Entry.Name != "main.5" || len(m.Computations) != 1 {
			t.Fatalf("module %s, entry %v, %d computations", m.Name, m.Entry, len(m.Computations))
		}
		arg1 := instruction(t, m.Entry, "Arg_1.2")
		if arg1.Opcode != hlo.OpParameter || arg1.ParameterNumber != 1 || m.Entry.Params[1] != arg1 {
			t.Errorf("Arg_1.2: %s(%d)", arg1.Opcode, arg1.ParameterNumber)
		}
		if got := shapeString(arg1.Shape); got != "(s32[2,3]{1,0}, s32[])" {
			t.Errorf("Arg_1.2 shape %s", got)
		}
		start := instruction(t, m.Entry, "copy-start.3")
		if start.Opcode != hlo.OpCopyStart || start.NumOperands() != 1 || start.Operand(0) != arg1 {
			t.Errorf("copy-start.3: %s with operands %v", start.Opcode, start.Operands())
		}
		if n, ok := start.Int("cross_program_prefetch_index"); !ok || n != 0 {
			t.Errorf("cross_program_prefetch_index %d, %v", n, ok)
		}
		if got := shapeString(start.Shape); got != "((s32[2,3]{1,0}, s32[]), (s32[2,3]{1,0}, s32[]), u32[])" {
			t.Errorf("copy-start.3 shape %s", got)
		}
		if f, _ := start.Metadata().Get("source_file"); f != "within split at <stdin>:1 offset " {
			t.Errorf("source_file %q", f)
		}
		if l, _ := start.Metadata().Get("source_line"); l != "10" {
			t.Errorf("source_line %q", l)
		}
		if m.Entry.Root.Name != "copy-done.4" || m.Entry.Root.Operand(0) != start {
			t.Errorf("root %s", m.Entry.Root.Name)
		}
		wantHeader := `HloModule main, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {}, may-alias) }, ` +
			`entry_computation_layout={(s32[], (s32[2,3]{1,0}, s32[]))->(s32[2,3]{1,0}, s32[])}, ` +
			`frontend_attributes={attr_name="attr_value"}, cross_program_prefetches={ (1, {1}, 0) }, ` +
			`is_dynamic=true, use_auto_spmd_partitioning=true`
		if got, _, _ := strings.Cut(xlaText(m), "\n"); got != wantHeader {
			t.Errorf("header\n got %s\nwant %s", got, wantHeader)
		}
	})
	t.Run("dynamic_param", func(t *testing.T) {
		m := readProtoCorpus(t, protoCorpusFiles[0])[0]
		arg1 := instruction(t, m.Entry, "Arg_1.2")
		if got := shapeString(arg1.Shape); got != "f32[<=2]{0}" || !arg1.Shape.IsDynamic(0) {
			t.Errorf("Arg_1.2 shape %s", got)
		}
		arg0 := instruction(t, m.Entry, "Arg_0.1")
		if arg0.ParameterNumber != 0 || m.Entry.Params[0] != arg0 || shapeString(arg0.Shape) != "s32[]" {
			t.Errorf("Arg_0.1: parameter(%d) %s", arg0.ParameterNumber, shapeString(arg0.Shape))
		}
		root := m.Entry.Root
		if root.Name != "tuple.3" || root.Opcode != hlo.OpTuple || root.NumOperands() != 0 || shapeString(root.Shape) != "()" {
			t.Errorf("root %s = %s %s", root.Name, shapeString(root.Shape), root.Opcode)
		}
		for _, in := range m.Entry.Instructions {
			if len(in.Attrs) != 0 {
				t.Errorf("%s has attributes %v though its metadata and frontend attributes are empty", in.Name, in.Attrs)
			}
		}
	})
	t.Run("spmd_module_sharding", func(t *testing.T) {
		m := readProtoCorpus(t, protoCorpusFiles[2])[0]
		cc := instruction(t, m.Entry, "custom-call.2")
		if cc.CustomCallTarget() != "Sharding" {
			t.Errorf("custom_call_target %q", cc.CustomCallTarget())
		}
		sh, _ := cc.Attr("sharding").(*hlo.Sharding)
		if sh == nil || sh.Text != "{devices=[1,2]0,1}" || fmt.Sprint(sh.TileDims, sh.Devices) != "[1 2] [0 1]" {
			t.Errorf("sharding %+v", sh)
		}
		if _, ok := cc.Attr("api_version").(hlo.Value); ok {
			t.Errorf("API_VERSION_ORIGINAL is XLA's default and is not printed")
		}
		if got := m.Attr("spmd_parameters_shardings"); got != hlo.Raw("{{{devices=[1,2]0,1}, {replicated}}}") {
			t.Errorf("spmd_parameters_shardings %#v", got)
		}
		if got := m.Attr("spmd_output_sharding"); got != hlo.Raw("{devices=[1,2]0,1}") {
			t.Errorf("spmd_output_sharding %#v", got)
		}
	})
	t.Run("stacktrace_to_location", func(t *testing.T) {
		mods := readProtoCorpus(t, protoCorpusFiles[3])
		if len(mods) != 3 {
			t.Fatalf("%d modules; the file has three separated by // -----", len(mods))
		}
		if mods[0].StackFrames != nil {
			t.Errorf("first module has stack frames %+v", mods[0].StackFrames)
		}
		sf := mods[2].StackFrames
		want := &hlo.StackFrameTables{
			FileNames:     []string{"file_name", "file_name_2"},
			FunctionNames: []string{"function_name", "function_name_2"},
			FileLocations: []hlo.FileLocation{{FileNameID: 1, FunctionNameID: 1, Line: 2, Column: 8}, {FileNameID: 2, FunctionNameID: 2, Line: 3, Column: 4}},
			Frames:        []hlo.StackFrame{{FileLocationID: 1}, {FileLocationID: 2, ParentFrameID: 1}},
		}
		if fmt.Sprintf("%+v", sf) != fmt.Sprintf("%+v", want) {
			t.Errorf("stack frames\n got %+v\nwant %+v", sf, want)
		}
		aa := instruction(t, mods[2].Entry, "after-all.2")
		if got := fmt.Sprint(aa.Metadata()); got != `[{op_name "name(anothername)"} {stack_frame_id 2}]` {
			t.Errorf("metadata %s", got)
		}
		if aa.Shape.Kind != hlo.TokenShape || aa.Operand(0) != mods[2].Entry.Params[0] {
			t.Errorf("after-all.2: %s of %v", shapeString(aa.Shape), aa.Operands())
		}
		if p := mods[2].Position(aa.Pos); p.Filename != protoCorpusFiles[3] || p.Line != 141 {
			t.Errorf("after-all.2 at %v, want line 141", p)
		}
	})
}

// coverProto is a module that uses most of the fields the converter reads; coverText is the same module as
// XLA prints it.
const coverProto = `# A comment, as xla-translate's tests start.
name: "cover"
entry_computation_name: "main"
computations {
  name: "add"
  instructions { name: "x" opcode: "parameter" shape { element_type: F32 } id: 1 }
  instructions { name: "y" opcode: "parameter" shape { element_type: F32 } parameter_number: 1 id: 2 }
  instructions { name: "sum" opcode: "add" shape { element_type: F32 } id: 3 operand_ids: [1, 2] }
  id: 1
  root_id: 3
}
computations {
  name: "fused"
  instructions { name: "p" opcode: "parameter" shape { element_type: F32 dimensions: 4 } id: 1 }
  instructions { name: "n" opcode: "negate" shape { element_type: F32 dimensions: 4 } id: 2 operand_ids: 1 }
  id: 2
  root_id: 2
  is_fusion_computation: true
  execution_thread: "host"
}
computations {
  name: "main"
  instructions {
    name: "p0" opcode: "parameter"
    shape { element_type: F32 dimensions: 4 dimensions: 8 layout { minor_to_major: [1, 0] } }
    sharding { type: OTHER tile_assignment_dimensions: [2, 1] tile_assignment_devices: [0, 1] }
    metadata { op_name: "x\ty" source_line: 7 }
    id: 1
  }
  instructions { name: "p1" opcode: "parameter" shape { element_type: S32 dimensions: 4 } parameter_number: 1 id: 2 }
  instructions { name: "p2" opcode: "parameter" shape { element_type: F32 dimensions: [1, 4, 4, 1] } parameter_number: 2 id: 3 }
  instructions { name: "p3" opcode: "parameter" shape { element_type: F32 dimensions: [3, 3, 1, 1] } parameter_number: 3 id: 4 }
  instructions {
    name: "c" opcode: "constant" shape { element_type: F32 }
    literal { shape { element_type: F32 } f32s: 0.5 }
    id: 5
  }
  instructions {
    name: "v" opcode: "constant" shape { element_type: S32 dimensions: [2, 3] }
    literal { shape { element_type: S32 dimensions: [2, 3] layout { minor_to_major: [0, 1] } } s32s: [1, 4, 2, 5, 3, 6] }
    id: 6
  }
  instructions {
    name: "pr" opcode: "constant" shape { element_type: PRED dimensions: 2 }
    literal { shape { element_type: PRED dimensions: 2 } preds: [true, false] }
    id: 7
  }
  instructions {
    name: "h" opcode: "constant" shape { element_type: BF16 dimensions: 2 }
    literal { shape { element_type: BF16 dimensions: 2 } bf16s: "\200?\300\377" }
    id: 8
  }
  instructions { name: "b" opcode: "broadcast" shape { element_type: F32 dimensions: [4, 8] } id: 9 operand_ids: 5 }
  instructions {
    name: "cmp" opcode: "compare" shape { element_type: PRED dimensions: [4, 8] } id: 10 operand_ids: [1, 9]
    comparison_direction: "GT" comparison_type: "FLOAT"
  }
  instructions {
    name: "cmpt" opcode: "compare" shape { element_type: PRED dimensions: [4, 8] } id: 11 operand_ids: [1, 9]
    comparison_direction: "LT" comparison_type: "TOTALORDER"
  }
  instructions {
    name: "r" opcode: "reduce" shape { element_type: F32 dimensions: 4 } id: 12 operand_ids: [1, 5]
    dimensions: 1 called_computation_ids: 1
  }
  instructions {
    name: "d" opcode: "dot" shape { element_type: F32 dimensions: [4, 4] } id: 13 operand_ids: [1, 1]
    dot_dimension_numbers { lhs_contracting_dimensions: 1 rhs_contracting_dimensions: 1 }
    precision_config { operand_precision: [HIGHEST, DEFAULT] }
  }
  instructions {
    name: "s" opcode: "slice" shape { element_type: F32 dimensions: [2, 8] } id: 14 operand_ids: 1
    slice_dimensions { start: 0 limit: 4 stride: 2 }
    slice_dimensions { start: 0 limit: 8 stride: 1 }
  }
  instructions {
    name: "pad" opcode: "pad" shape { element_type: F32 dimensions: [6, 8] } id: 15 operand_ids: [14, 5]
    padding_config { dimensions { edge_padding_low: 1 edge_padding_high: 3 } dimensions {} }
  }
  instructions {
    name: "t" opcode: "transpose"
    shape { element_type: F32 dimensions: [8, 4] layout { minor_to_major: [0, 1] } }
    id: 16 operand_ids: 1 dimensions: [1, 0]
  }
  instructions {
    name: "f" opcode: "fusion" shape { element_type: F32 dimensions: 4 } id: 17 operand_ids: 12
    fusion_kind: "kLoop" called_computation_ids: 2
  }
  instructions {
    name: "cc" opcode: "custom-call" shape { element_type: F32 dimensions: 4 } id: 18 operand_ids: 17
    custom_call_target: "my$target" backend_config: "{\"k\":1}"
    feature_group_count: 1 batch_group_count: 1 precision_config {}
    custom_call_api_version: API_VERSION_ORIGINAL
  }
  instructions {
    name: "cc2" opcode: "custom-call" shape { element_type: F32 dimensions: 4 } id: 19 operand_ids: 17
    custom_call_target: "other" custom_call_has_side_effect: true backend_config: "opaque\n"
    custom_call_api_version: API_VERSION_STATUS_RETURNING
    output_operand_aliasing { output_shape_index: [] operand_index: 0 }
  }
  instructions {
    name: "ar" opcode: "all-reduce" shape { element_type: F32 dimensions: 4 } id: 20 operand_ids: 18
    channel_id: 1 use_global_device_ids: true called_computation_ids: 1
    collective_device_list { iota_replica_group_list { num_replica_groups: 2 num_devices_per_group: 2 } }
  }
  instructions {
    name: "ag" opcode: "all-gather" shape { element_type: F32 dimensions: 8 } id: 21 operand_ids: 20
    dimensions: 0
    replica_groups { replica_ids: [0, 1] } replica_groups { replica_ids: [2, 3] }
  }
  instructions {
    name: "cp" opcode: "collective-permute" shape { element_type: F32 dimensions: 4 } id: 22 operand_ids: 20
    channel_id: 2 source_target_pairs { source: 0 target: 1 } source_target_pairs { source: 1 }
  }
  instructions {
    name: "conv" opcode: "convolution" shape { element_type: F32 dimensions: [1, 4, 4, 1] } id: 23 operand_ids: [3, 4]
    window {
      dimensions { size: 3 stride: 1 padding_low: 1 padding_high: 1 window_dilation: 1 base_dilation: 1 }
      dimensions { size: 3 stride: 1 padding_low: 1 padding_high: 1 window_dilation: 1 base_dilation: 1 }
    }
    convolution_dimension_numbers {
      input_batch_dimension: 0 input_feature_dimension: 3 input_spatial_dimensions: [1, 2]
      kernel_input_feature_dimension: 2 kernel_output_feature_dimension: 3 kernel_spatial_dimensions: [0, 1]
      output_batch_dimension: 0 output_feature_dimension: 3 output_spatial_dimensions: [1, 2]
    }
    feature_group_count: 1 batch_group_count: 1
  }
  instructions {
    name: "rw" opcode: "reduce-window" shape { element_type: F32 dimensions: [4, 4] } id: 24 operand_ids: [1, 5]
    window {
      dimensions { size: 1 stride: 1 window_dilation: 1 base_dilation: 1 }
      dimensions { size: 2 stride: 2 window_dilation: 1 base_dilation: 1 }
    }
    called_computation_ids: 1
  }
  instructions {
    name: "io" opcode: "iota" shape { element_type: S32 dimensions: 4 } id: 25
  }
  instructions {
    name: "tu" opcode: "tuple" shape { element_type: TUPLE tuple_shapes { element_type: F32 dimensions: 4 } tuple_shapes { element_type: S32 dimensions: 4 } }
    id: 26 operand_ids: [20, 25]
  }
  instructions {
    name: "gte" opcode: "get-tuple-element" shape { element_type: F32 dimensions: 4 } id: 27 operand_ids: 26
  }
  instructions {
    name: "cvt" opcode: "convert" shape { element_type: BF16 dimensions: 4 } id: 28 operand_ids: 27
    frontend_attributes { map { key: "b" value: "2" } map { key: "a" value: "{\"x\": 1}" } }
  }
  instructions {
    name: "cc3" opcode: "custom-call" shape { element_type: F32 dimensions: 100 } id: 30
    window {
      dimensions { size: 2 stride: 1 window_dilation: 1 base_dilation: 1 }
      dimensions { size: 2 stride: 1 window_dilation: 1 base_dilation: 1 }
    }
    convolution_dimension_numbers {
      input_batch_dimension: 1 input_feature_dimension: 4 input_spatial_dimensions: [2, 3]
      kernel_input_feature_dimension: 3 kernel_output_feature_dimension: 4 kernel_spatial_dimensions: [0, 2]
      output_batch_dimension: 0 output_feature_dimension: 4 output_spatial_dimensions: [1, 2]
    }
    feature_group_count: 2 batch_group_count: 1 custom_call_target: "target"
  }
  instructions {
    name: "out" opcode: "tuple"
    shape {
      element_type: TUPLE
      tuple_shapes { element_type: BF16 dimensions: 4 }
      tuple_shapes { element_type: F32 dimensions: [4, 4] }
      tuple_shapes { element_type: PRED dimensions: [4, 8] }
    }
    id: 29 operand_ids: [28, 13, 10] control_predecessor_ids: 19
    sharding {
      type: TUPLE
      tuple_shardings { type: MAXIMAL tile_assignment_devices: 1 }
      tuple_shardings { type: REPLICATED metadata { op_name: "q" } }
      tuple_shardings { type: OTHER tile_assignment_dimensions: [2, 1, 2] iota_reshape_dims: [2, 2] iota_transpose_perm: [1, 0] replicate_on_last_tile_dim: true }
    }
  }
  id: 3
  root_id: 29
}
host_program_shape {
  parameters { element_type: F32 dimensions: [4, 8] layout { minor_to_major: [1, 0] } }
  parameters { element_type: S32 dimensions: 4 }
  parameters { element_type: F32 dimensions: [1, 4, 4, 1] }
  parameters { element_type: F32 dimensions: [3, 3, 1, 1] }
  result {
    element_type: TUPLE
    tuple_shapes { element_type: BF16 dimensions: 4 }
    tuple_shapes { element_type: F32 dimensions: [4, 4] }
    tuple_shapes { element_type: PRED dimensions: [4, 8] }
  }
  parameter_names: ["p0", "p1", "p2", "p3"]
}
entry_computation_id: 3
input_output_alias {
  entries { output_shape_index: 1 parameter_number: 0 kind: MUST_ALIAS }
  entries { output_shape_index: 0 parameter_number: 1 parameter_shape_index: [] kind: MAY_ALIAS }
}
buffer_donor { entries { parameter_number: 2 } }
frontend_attributes { map { key: "fa" value: "x" } }
id: 7
`

const coverText = `HloModule cover, input_output_alias={ {0}: (1, {}, may-alias), {1}: (0, {}, must-alias) }, buffer_donor={ (2, {}) }, entry_computation_layout={(f32[4,8]{1,0}, s32[4]{0}, f32[1,4,4,1]{3,2,1,0}, f32[3,3,1,1]{3,2,1,0})->(bf16[4]{0}, f32[4,4]{1,0}, pred[4,8]{1,0})}, frontend_attributes={fa="x"}

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %sum = f32[] add(f32[] %x, f32[] %y)
}

%fused (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  ROOT %n = f32[4]{0} negate(f32[4]{0} %p)
}, execution_thread="host"

ENTRY %main (p0: f32[4,8], p1: s32[4], p2: f32[1,4,4,1], p3: f32[3,3,1,1]) -> (bf16[4], f32[4,4], pred[4,8]) {
  %p0 = f32[4,8]{1,0} parameter(0), sharding={devices=[2,1]0,1}, metadata={op_name="x\ty" source_line=7}
  %p1 = s32[4]{0} parameter(1)
  %p2 = f32[1,4,4,1]{3,2,1,0} parameter(2)
  %p3 = f32[3,3,1,1]{3,2,1,0} parameter(3)
  %c = f32[] constant(0.5)
  %v = s32[2,3]{1,0} constant({ { 1, 2, 3 }, { 4, 5, 6 } })
  %pr = pred[2]{0} constant({1, 0})
  %h = bf16[2]{0} constant({1, -nan})
  %b = f32[4,8]{1,0} broadcast(f32[] %c), dimensions={}
  %cmp = pred[4,8]{1,0} compare(f32[4,8]{1,0} %p0, f32[4,8]{1,0} %b), direction=GT
  %cmpt = pred[4,8]{1,0} compare(f32[4,8]{1,0} %p0, f32[4,8]{1,0} %b), direction=LT, type=TOTALORDER
  %r = f32[4]{0} reduce(f32[4,8]{1,0} %p0, f32[] %c), dimensions={1}, to_apply=%add
  %d = f32[4,4]{1,0} dot(f32[4,8]{1,0} %p0, f32[4,8]{1,0} %p0), lhs_contracting_dims={1}, rhs_contracting_dims={1}, operand_precision={highest,default}
  %s = f32[2,8]{1,0} slice(f32[4,8]{1,0} %p0), slice={[0:4:2], [0:8:1]}
  %pad = f32[6,8]{1,0} pad(f32[2,8]{1,0} %s, f32[] %c), padding=1_3x0_0
  %t = f32[8,4]{0,1} transpose(f32[4,8]{1,0} %p0), dimensions={1,0}
  %f = f32[4]{0} fusion(f32[4]{0} %r), kind=kLoop, calls=%fused
  %cc = f32[4]{0} custom-call(f32[4]{0} %f), custom_call_target="my$target", backend_config={"k":1}
  %cc2 = f32[4]{0} custom-call(f32[4]{0} %f), custom_call_target="other", custom_call_has_side_effect=true, output_to_operand_aliasing={{}: (0, {})}, api_version=API_VERSION_STATUS_RETURNING, backend_config="opaque\n"
  %ar = f32[4]{0} all-reduce(f32[4]{0} %cc), channel_id=1, replica_groups=[2,2]<=[4], use_global_device_ids=true, to_apply=%add
  %ag = f32[8]{0} all-gather(f32[4]{0} %ar), replica_groups={{0,1},{2,3}}, dimensions={0}
  %cp = f32[4]{0} collective-permute(f32[4]{0} %ar), channel_id=2, source_target_pairs={{0,1},{1,0}}
  %conv = f32[1,4,4,1]{3,2,1,0} convolution(f32[1,4,4,1]{3,2,1,0} %p2, f32[3,3,1,1]{3,2,1,0} %p3), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  %rw = f32[4,4]{1,0} reduce-window(f32[4,8]{1,0} %p0, f32[] %c), window={size=1x2 stride=1x2}, to_apply=%add
  %io = s32[4]{0} iota(), iota_dimension=0
  %tu = (f32[4]{0}, s32[4]{0}) tuple(f32[4]{0} %ar, s32[4]{0} %io)
  %gte = f32[4]{0} get-tuple-element((f32[4]{0}, s32[4]{0}) %tu), index=0
  %cvt = bf16[4]{0} convert(f32[4]{0} %gte), frontend_attributes={a={"x": 1},b="2"}
  %cc3 = f32[100]{0} custom-call(), window={size=2x2}, dim_labels=?b01f_0?1io->b01?f, feature_group_count=2, custom_call_target="target"
  ROOT %out = (bf16[4]{0}, f32[4,4]{1,0}, pred[4,8]{1,0}) tuple(bf16[4]{0} %cvt, f32[4,4]{1,0} %d, pred[4,8]{1,0} %cmp), sharding={{maximal device=1}, {replicated metadata={op_name="q"}}, {devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}}, control-predecessors={%cc2}
}
`

// opsProto and opsText cover the opcodes with attributes of their own that coverProto leaves out.
const opsProto = `name: "ops"
computations { name: "add2" id: 1 root_id: 3
  instructions { name: "a" opcode: "parameter" shape { element_type: F32 } id: 1 }
  instructions { name: "b" opcode: "parameter" shape { element_type: F32 } parameter_number: 1 id: 2 }
  instructions { name: "s" opcode: "add" shape { element_type: F32 } id: 3 operand_ids: [1, 2] }
}
computations { name: "cond" id: 2 root_id: 2
  instructions { name: "p" opcode: "parameter" shape { element_type: S32 } id: 1 }
  instructions { name: "lt" opcode: "compare" shape { element_type: PRED } id: 2 operand_ids: [1, 1] comparison_direction: "LT" comparison_type: "SIGNED" }
}
computations { name: "body" id: 3 root_id: 2
  instructions { name: "p" opcode: "parameter" shape { element_type: S32 } id: 1 }
  instructions { name: "n" opcode: "negate" shape { element_type: S32 } id: 2 operand_ids: 1 }
}
computations { name: "neg" id: 4 root_id: 2
  instructions { name: "x" opcode: "parameter" shape { element_type: F32 } id: 1 }
  instructions { name: "n" opcode: "negate" shape { element_type: F32 } id: 2 operand_ids: 1 }
}
computations { name: "ident" id: 5 root_id: 2
  instructions { name: "x" opcode: "parameter" shape { element_type: F32 } id: 1 }
  instructions { name: "y" opcode: "copy" shape { element_type: F32 } id: 2 operand_ids: 1 }
}
computations { name: "less" id: 6 root_id: 3
  instructions { name: "a" opcode: "parameter" shape { element_type: F32 } id: 1 }
  instructions { name: "b" opcode: "parameter" shape { element_type: F32 } parameter_number: 1 id: 2 }
  instructions { name: "lt" opcode: "compare" shape { element_type: PRED } id: 3 operand_ids: [1, 2] comparison_direction: "LT" }
}
computations { name: "wrapped" id: 7 root_id: 2 execution_thread: "parallel"
  instructions { name: "x" opcode: "parameter" shape { element_type: F32 dimensions: 4 } id: 1 }
  instructions { name: "cc" opcode: "custom-call" shape { element_type: F32 dimensions: 4 } id: 2 operand_ids: 1 custom_call_target: "foo" }
}
computations { name: "main" id: 10 root_id: 44
  instructions { name: "p0" opcode: "parameter" shape { element_type: S32 } id: 1 }
  instructions { name: "p1" opcode: "parameter" shape { element_type: F32 dimensions: 8 } parameter_number: 1 id: 2
    parameter_replication { replicated_at_leaf_buffers: true } }
  instructions { name: "p2" opcode: "parameter" shape { element_type: PRED } parameter_number: 2 id: 3 }
  instructions { name: "tok" opcode: "parameter" shape { element_type: TOKEN } parameter_number: 3 id: 4 }
  instructions { name: "cf" opcode: "constant" shape { element_type: F32 } literal { shape { element_type: F32 } f32s: 1 } id: 5 }
  instructions { name: "w" opcode: "while" shape { element_type: S32 } id: 6 operand_ids: 1 called_computation_ids: [2, 3] }
  instructions { name: "c1" opcode: "conditional" shape { element_type: F32 } id: 7 operand_ids: [3, 5, 5] called_computation_ids: [4, 5] }
  instructions { name: "c2" opcode: "conditional" shape { element_type: F32 } id: 8 operand_ids: [1, 5, 5, 5] called_computation_ids: [4, 5, 4] }
  instructions { name: "srt" opcode: "sort" shape { element_type: F32 dimensions: 8 } id: 9 operand_ids: 2 dimensions: 0 is_stable: true called_computation_ids: 6 }
  instructions { name: "idx" opcode: "constant" shape { element_type: S32 dimensions: [2, 1] } literal { shape { element_type: S32 dimensions: [2, 1] } s32s: [0, 4] } id: 10 }
  instructions { name: "g" opcode: "gather" shape { element_type: F32 dimensions: [2, 4] } id: 11 operand_ids: [2, 10]
    gather_dimension_numbers { offset_dims: 1 start_index_map: 0 index_vector_dim: 1 } gather_slice_sizes: 4 indices_are_sorted: true }
  instructions { name: "upd" opcode: "broadcast" shape { element_type: F32 dimensions: [2, 4] } id: 12 operand_ids: 5 }
  instructions { name: "sc" opcode: "scatter" shape { element_type: F32 dimensions: 8 } id: 13 operand_ids: [2, 10, 12]
    scatter_dimension_numbers { update_window_dims: 1 scatter_dims_to_operand_dims: 0 index_vector_dim: 1 } unique_indices: true called_computation_ids: 1 }
  instructions { name: "ds" opcode: "dynamic-slice" shape { element_type: F32 dimensions: 4 } id: 14 operand_ids: [2, 1] dynamic_slice_sizes: 4 }
  instructions { name: "snd" opcode: "send" id: 15 operand_ids: [2, 4] channel_id: 16 is_host_transfer: true
    shape { element_type: TUPLE tuple_shapes { element_type: F32 dimensions: 8 } tuple_shapes { element_type: U32 } tuple_shapes { element_type: TOKEN } } }
  instructions { name: "sd" opcode: "send-done" shape { element_type: TOKEN } id: 16 operand_ids: 15 channel_id: 16 is_host_transfer: true }
  instructions { name: "inf" opcode: "infeed" id: 17 operand_ids: 4 infeed_config: "abc"
    shape { element_type: TUPLE tuple_shapes { element_type: TUPLE tuple_shapes { element_type: F32 dimensions: 8 } } tuple_shapes { element_type: TOKEN } } }
  instructions { name: "outf" opcode: "outfeed" shape { element_type: TOKEN } id: 18 operand_ids: [2, 4]
    outfeed_shape { element_type: F32 dimensions: 8 } outfeed_config: "\001" }
  instructions { name: "rng" opcode: "rng" shape { element_type: F32 dimensions: 8 } id: 19 operand_ids: [5, 5] distribution: RNG_UNIFORM }
  instructions { name: "x2" opcode: "broadcast" shape { element_type: F32 dimensions: [2, 8] } id: 20 operand_ids: 2 dimensions: 1 }
  instructions { name: "bnt" opcode: "batch-norm-training" id: 21 operand_ids: [20, 2, 2] epsilon: 0.001 feature_index: 1
    shape { element_type: TUPLE tuple_shapes { element_type: F32 dimensions: [2, 8] } tuple_shapes { element_type: F32 dimensions: 8 } tuple_shapes { element_type: F32 dimensions: 8 } } }
  instructions { name: "cx" opcode: "constant" shape { element_type: C64 dimensions: 2 } literal { shape { element_type: C64 dimensions: 2 } c64s: [1, 2, 3, 4] } id: 22 }
  instructions { name: "fft" opcode: "fft" shape { element_type: C64 dimensions: 2 } id: 23 operand_ids: 22 fft_type: IFFT fft_length: 2 }
  instructions { name: "a" opcode: "broadcast" shape { element_type: F32 dimensions: [4, 4] } id: 24 operand_ids: 5 }
  instructions { name: "ts" opcode: "triangular-solve" shape { element_type: F32 dimensions: [4, 4] } id: 25 operand_ids: [24, 24]
    triangular_solve_options { left_side: true lower: true transpose_a: NO_TRANSPOSE } }
  instructions { name: "ch" opcode: "cholesky" shape { element_type: F32 dimensions: [4, 4] } id: 26 operand_ids: 24 cholesky_options { lower: true } }
  instructions { name: "a2a" opcode: "all-to-all" shape { element_type: F32 dimensions: 8 } id: 27 operand_ids: 2 channel_id: 3
    replica_groups { replica_ids: [0, 1] } dimensions: 0 }
  instructions { name: "rs" opcode: "reduce-scatter" shape { element_type: F32 dimensions: 4 } id: 28 operand_ids: 2 channel_id: 4
    replica_groups { replica_ids: [0, 1] } constrain_layout: true dimensions: 0 called_computation_ids: 1 }
  instructions { name: "cl" opcode: "call" shape { element_type: F32 } id: 29 operand_ids: 5 called_computation_ids: 4 is_composite: true
    frontend_attributes { map { key: "composite.version" value: "1" } map { key: "composite.name" value: "foo.bar" } } }
  instructions { name: "as" opcode: "async-start" id: 30 operand_ids: 14 called_computation_ids: 7 async_execution_thread: "parallel"
    shape { element_type: TUPLE tuple_shapes { element_type: TUPLE tuple_shapes { element_type: F32 dimensions: 4 } } tuple_shapes { element_type: F32 dimensions: 4 } tuple_shapes { element_type: S32 } } }
  instructions { name: "ad" opcode: "async-done" shape { element_type: F32 dimensions: 4 } id: 31 operand_ids: 30 called_computation_ids: 7 }
  instructions { name: "cs" opcode: "copy-start" id: 32 operand_ids: 2 cross_program_prefetch_index: 1
    shape { element_type: TUPLE tuple_shapes { element_type: F32 dimensions: 8 } tuple_shapes { element_type: F32 dimensions: 8 } tuple_shapes { element_type: U32 } } }
  instructions { name: "cdn" opcode: "copy-done" shape { element_type: F32 dimensions: 8 } id: 33 operand_ids: 32 }
  instructions { name: "tk" opcode: "topk" id: 34 operand_ids: 2 k: 8 largest: true
    shape { element_type: TUPLE tuple_shapes { element_type: F32 dimensions: 8 } tuple_shapes { element_type: S32 dimensions: 8 } } }
  instructions { name: "rsh" opcode: "reshape" shape { element_type: F32 dimensions: [2, 4] } id: 35 operand_ids: 2 }
  instructions { name: "gds" opcode: "get-dimension-size" shape { element_type: S32 } id: 36 operand_ids: 2 dimensions: 0 }
  instructions { name: "rgs" opcode: "rng-get-and-update-state" shape { element_type: U64 dimensions: 2 } id: 37 delta: 4096 }
  instructions { name: "rbg" opcode: "rng-bit-generator" id: 38 operand_ids: 37 rng_algorithm: RNG_THREE_FRY
    shape { element_type: TUPLE tuple_shapes { element_type: U64 dimensions: 2 } tuple_shapes { element_type: U32 dimensions: 4 } } }
  instructions { name: "rp" opcode: "reduce-precision" shape { element_type: F32 dimensions: 8 } id: 39 operand_ids: 2 exponent_bits: 5 mantissa_bits: 10 }
  instructions { name: "dom" opcode: "domain" shape { element_type: F32 dimensions: 8 } id: 40 operand_ids: 2
    domain_entry_sharding { type: MAXIMAL tile_assignment_devices: 1 } domain_exit_sharding { type: MAXIMAL tile_assignment_devices: 0 } }
  instructions { name: "ccl" opcode: "custom-call" shape { element_type: F32 dimensions: 8 } id: 41 operand_ids: 2 custom_call_target: "lit"
    constrain_layout: true operand_shapes_with_layout { element_type: F32 dimensions: 8 }
    literal { shape { element_type: S32 dimensions: 2 } s32s: [1, 2] } custom_call_schedule: SCHEDULE_LATEST }
  instructions { name: "map" opcode: "map" shape { element_type: F32 dimensions: 8 } id: 42 operand_ids: [2, 2] called_computation_ids: 1 }
  instructions { name: "bc" opcode: "bitcast-convert" shape { element_type: U32 dimensions: 8 } id: 43 operand_ids: 2
    statistics_viz { stat_index_to_visualize: 1 statistics { stat_name: "stat-1" stat_val: 33 } statistics { stat_name: "stat-2" stat_val: 44 } } }
  instructions { name: "r" opcode: "tuple" shape { element_type: TUPLE tuple_shapes { element_type: S32 } tuple_shapes { element_type: F32 } } id: 44 operand_ids: [6, 7] }
}
entry_computation_id: 10
`

const opsText = `HloModule ops

%add2 (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(f32[] %a, f32[] %b)
}

%cond (p: s32[]) -> pred[] {
  %p = s32[] parameter(0)
  ROOT %lt = pred[] compare(s32[] %p, s32[] %p), direction=LT
}

%body (p: s32[]) -> s32[] {
  %p = s32[] parameter(0)
  ROOT %n = s32[] negate(s32[] %p)
}

%neg (x: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  ROOT %n = f32[] negate(f32[] %x)
}

%ident (x: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  ROOT %y = f32[] copy(f32[] %x)
}

%less (a: f32[], b: f32[]) -> pred[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %lt = pred[] compare(f32[] %a, f32[] %b), direction=LT
}

%wrapped (x: f32[4]) -> f32[4] {
  %x = f32[4]{0} parameter(0)
  ROOT %cc = f32[4]{0} custom-call(f32[4]{0} %x), custom_call_target="foo"
}, execution_thread="parallel"

ENTRY %main (p0: s32[], p1: f32[8], p2: pred[], tok: token[]) -> (s32[], f32[]) {
  %p0 = s32[] parameter(0)
  %p1 = f32[8]{0} parameter(1), parameter_replication={true}
  %p2 = pred[] parameter(2)
  %tok = token[] parameter(3)
  %cf = f32[] constant(1)
  %w = s32[] while(s32[] %p0), condition=%cond, body=%body
  %c1 = f32[] conditional(pred[] %p2, f32[] %cf, f32[] %cf), true_computation=%neg, false_computation=%ident
  %c2 = f32[] conditional(s32[] %p0, f32[] %cf, f32[] %cf, f32[] %cf), branch_computations={%neg, %ident, %neg}
  %srt = f32[8]{0} sort(f32[8]{0} %p1), dimensions={0}, is_stable=true, to_apply=%less
  %idx = s32[2,1]{1,0} constant({ {0}, {4} })
  %g = f32[2,4]{1,0} gather(f32[8]{0} %p1, s32[2,1]{1,0} %idx), offset_dims={1}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1, slice_sizes={4}, indices_are_sorted=true
  %upd = f32[2,4]{1,0} broadcast(f32[] %cf), dimensions={}
  %sc = f32[8]{0} scatter(f32[8]{0} %p1, s32[2,1]{1,0} %idx, f32[2,4]{1,0} %upd), update_window_dims={1}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, unique_indices=true, to_apply=%add2
  %ds = f32[4]{0} dynamic-slice(f32[8]{0} %p1, s32[] %p0), dynamic_slice_sizes={4}
  %snd = (f32[8]{0}, u32[], token[]) send(f32[8]{0} %p1, token[] %tok), channel_id=16, is_host_transfer=true
  %sd = token[] send-done((f32[8]{0}, u32[], token[]) %snd), channel_id=16, is_host_transfer=true
  %inf = ((f32[8]{0}), token[]) infeed(token[] %tok), infeed_config="abc"
  %outf = token[] outfeed(f32[8]{0} %p1, token[] %tok), outfeed_shape=f32[8]{0}, outfeed_config="\001"
  %rng = f32[8]{0} rng(f32[] %cf, f32[] %cf), distribution=rng_uniform
  %x2 = f32[2,8]{1,0} broadcast(f32[8]{0} %p1), dimensions={1}
  %bnt = (f32[2,8]{1,0}, f32[8]{0}, f32[8]{0}) batch-norm-training(f32[2,8]{1,0} %x2, f32[8]{0} %p1, f32[8]{0} %p1), epsilon=0.001, feature_index=1
  %cx = c64[2]{0} constant({(1, 2), (3, 4)})
  %fft = c64[2]{0} fft(c64[2]{0} %cx), fft_type=IFFT, fft_length={2}
  %a = f32[4,4]{1,0} broadcast(f32[] %cf), dimensions={}
  %ts = f32[4,4]{1,0} triangular-solve(f32[4,4]{1,0} %a, f32[4,4]{1,0} %a), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
  %ch = f32[4,4]{1,0} cholesky(f32[4,4]{1,0} %a), lower=true
  %a2a = f32[8]{0} all-to-all(f32[8]{0} %p1), channel_id=3, replica_groups={{0,1}}, dimensions={0}
  %rs = f32[4]{0} reduce-scatter(f32[8]{0} %p1), channel_id=4, replica_groups={{0,1}}, constrain_layout=true, dimensions={0}, to_apply=%add2
  %cl = f32[] call(f32[] %cf), to_apply=%neg, is_composite=true, frontend_attributes={composite.name="foo.bar",composite.version="1"}
  %as = ((f32[4]{0}), f32[4]{0}, s32[]) async-start(f32[4]{0} %ds), async_execution_thread="parallel", calls=%wrapped
  %ad = f32[4]{0} async-done(((f32[4]{0}), f32[4]{0}, s32[]) %as)
  %cs = (f32[8]{0}, f32[8]{0}, u32[]) copy-start(f32[8]{0} %p1), cross_program_prefetch_index=1
  %cdn = f32[8]{0} copy-done((f32[8]{0}, f32[8]{0}, u32[]) %cs)
  %tk = (f32[8]{0}, s32[8]{0}) topk(f32[8]{0} %p1), k=8, largest=true
  %rsh = f32[2,4]{1,0} reshape(f32[8]{0} %p1)
  %gds = s32[] get-dimension-size(f32[8]{0} %p1), dimensions={0}
  %rgs = u64[2]{0} rng-get-and-update-state(), delta=4096
  %rbg = (u64[2]{0}, u32[4]{0}) rng-bit-generator(u64[2]{0} %rgs), algorithm=rng_three_fry
  %rp = f32[8]{0} reduce-precision(f32[8]{0} %p1), exponent_bits=5, mantissa_bits=10
  %dom = f32[8]{0} domain(f32[8]{0} %p1), domain={kind="sharding", entry={maximal device=0}, exit={maximal device=1}}
  %ccl = f32[8]{0} custom-call(f32[8]{0} %p1), custom_call_target="lit", operand_layout_constraints={f32[8]{0}}, literal=s32[2]{0} {1, 2}, schedule=SCHEDULE_LATEST
  %map = f32[8]{0} map(f32[8]{0} %p1, f32[8]{0} %p1), dimensions={0}, to_apply=%add2
  %bc = u32[8]{0} bitcast-convert(f32[8]{0} %p1), statistics={visualizing_index=1,stat-1=33,stat-2=44}
  ROOT %r = (s32[], f32[]) tuple(s32[] %w, f32[] %c1)
}
`

// TestProtoMatchesText converts modules written as protos and parses the same modules as XLA prints them:
// the two must print alike and have attributes of the same types in the same order.
func TestProtoMatchesText(t *testing.T) {
	for _, pair := range []struct{ name, proto, text string }{
		{"cover", coverProto, coverText},
		{"ops", opsProto, opsText},
	} {
		t.Run(pair.name, func(t *testing.T) { protoMatchesText(t, pair.proto, pair.text) })
	}
}

func protoMatchesText(t *testing.T, proto, text string) {
	fromProto, err := parser.ParseString("proto.pbtxt", proto)
	if err != nil {
		t.Fatal(err)
	}
	fromText, err := parser.ParseString("text.hlo", text)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := xlaText(fromProto), xlaText(fromText); got != want {
		t.Errorf("printed differently:\n%s", diffLines(got, want))
	}
	compareAttrs(t, "module", fromProto.Attrs, fromText.Attrs)
	for i, c := range fromText.Computations {
		if i >= len(fromProto.Computations) {
			t.Fatalf("computation %s is missing", c.Name)
		}
		pc := fromProto.Computations[i]
		compareAttrs(t, c.Name, pc.Attrs, c.Attrs)
		if pc.IsEntry != c.IsEntry || pc.Root.Name != c.Root.Name || len(pc.Params) != len(c.Params) {
			t.Errorf("computation %s: entry %v/%v, root %s/%s, %d/%d params", c.Name, pc.IsEntry, c.IsEntry,
				pc.Root.Name, c.Root.Name, len(pc.Params), len(c.Params))
		}
		for j, in := range c.Instructions {
			if j >= len(pc.Instructions) {
				t.Fatalf("%s: instruction %s is missing", c.Name, in.Name)
			}
			pin := pc.Instructions[j]
			if !pin.Shape.Equal(in.Shape) || fmt.Sprint(pin.Shape.Dynamic) != fmt.Sprint(in.Shape.Dynamic) {
				t.Errorf("%s: shape %s, want %s", in.Name, shapeString(pin.Shape), shapeString(in.Shape))
			}
			compareAttrs(t, in.Name, pin.Attrs, in.Attrs)
		}
	}
}

// compareAttrs requires the same names, value types and values (as their Go syntax, with computations and
// instructions by name).
func compareAttrs(t *testing.T, where string, got, want []hlo.Attr) {
	t.Helper()
	show := func(attrs []hlo.Attr) string {
		var b strings.Builder
		for _, a := range attrs {
			fmt.Fprintf(&b, "\n\t%s=%T ", a.Name, a.Value)
			switch v := a.Value.(type) {
			case hlo.CompRef:
				b.WriteString(v.Comp.Name)
			case hlo.CompList:
				for _, c := range v {
					b.WriteString(c.Name + " ")
				}
			case hlo.InstList:
				for _, in := range v {
					b.WriteString(in.Name + " ")
				}
			case *hlo.ProgramShape:
				for _, s := range v.Params {
					b.WriteString(shapeString(s) + " ")
				}
				b.WriteString("-> " + shapeString(v.Result))
			case *hlo.ReplicaGroups:
				fmt.Fprintf(&b, "%#v", v.Groups)
				if v.Iota != nil {
					fmt.Fprintf(&b, " %#v", *v.Iota)
				}
			case *hlo.Sharding:
				b.WriteString(shardingDump(v))
			case *hlo.ConvDims:
				fmt.Fprintf(&b, "%#v", *v)
			case *hlo.BackendConfig:
				fmt.Fprintf(&b, "%#v", *v)
			case hlo.Shapes:
				for _, s := range v {
					b.WriteString(shapeString(s) + " ")
				}
			case *hlo.ShapedLiteral:
				b.WriteString(shapeString(v.Shape) + " " + printer.LiteralString(v.Literal, v.Shape))
			default:
				fmt.Fprintf(&b, "%#v", v)
			}
		}
		return b.String()
	}
	if g, w := show(got), show(want); g != w {
		t.Errorf("%s: attributes differ:\n%s", where, diffLines(g, w))
	}
}

// shardingDump writes what decodeSharding made of a sharding, without pointers.
func shardingDump(s *hlo.Sharding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q repl=%v manual=%v max=%d tile=%v devs=%v last=%v", s.Text, s.Replicated, s.Manual,
		s.Maximal, s.TileDims, s.Devices, s.LastTileDimReplicate)
	if s.DevicesIota != nil {
		fmt.Fprintf(&b, " iota=%+v", *s.DevicesIota)
	}
	for i := range s.Tuple {
		b.WriteString(" [" + shardingDump(&s.Tuple[i]) + "]")
	}
	return b.String()
}

func diffLines(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	var b strings.Builder
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			fmt.Fprintf(&b, "line %d\n got %s\nwant %s\n", i+1, gl, wl)
		}
	}
	return b.String()
}

// TestProtoRoundTrip prints converted modules as HLO text, parses that and prints it again: the text must
// not change.
func TestProtoRoundTrip(t *testing.T) {
	var mods []*hlo.Module
	for _, src := range []string{coverProto, opsProto} {
		m, err := parser.ParseString("proto.pbtxt", src)
		if err != nil {
			t.Fatal(err)
		}
		mods = append(mods, m)
	}
	if shared.Find() != "" {
		for _, name := range protoCorpusFiles {
			mods = append(mods, readProtoCorpus(t, name)...)
		}
	}
	for _, m := range mods {
		text := xlaText(m)
		again, err := parser.ParseString(m.Name+".hlo", text)
		if err != nil {
			t.Errorf("%s: the printed module does not parse: %v\n%s", m.Name, err, text)
			continue
		}
		if got := xlaText(again); got != text {
			t.Errorf("%s: printed differently after a round trip:\n%s", m.Name, diffLines(got, text))
		}
	}
}

// protoModule wraps the fields of one instruction in a module whose entry computation is that instruction.
func protoModule(inst string) string {
	return "name: \"m\"\ncomputations {\n  name: \"e\"\n  instructions {\n" + inst + "\n  }\n}\n"
}

func TestProtoLiterals(t *testing.T) {
	tests := []struct {
		literal string // the fields of the literal, shape included
		want    string
	}{
		{`shape { element_type: F32 } f32s: 1`, `1`},
		{`shape { element_type: F32 } f32s: -0.0`, `-0`},
		{`shape { element_type: F32 dimensions: 0 } `, `{}`},
		{`shape { element_type: S64 dimensions: 3 } s64s: [-9223372036854775808, 0, 9223372036854775807]`, `{-9223372036854775808, 0, 9223372036854775807}`},
		{`shape { element_type: U64 dimensions: 1 } u64s: 18446744073709551615`, `{18446744073709551615}`},
		{`shape { element_type: PRED } preds: true`, `true`},
		{`shape { element_type: PRED dimensions: [1, 2] } preds: [false, true]`, `{ { 0, 1 } }`},
		{`shape { element_type: S32 dimensions: [1, 1] } s32s: 7`, `{ {7} }`},
		{`shape { element_type: S32 dimensions: [3, 3, 3] } s32s: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26]`,
			`{ { { 0, 1, 2 }, { 3, 4, 5 }, { 6, 7, 8 } }, { { 9, 10, 11 }, { 12, 13, 14 }, { 15, 16, 17 } }, { { 18, 19, 20 }, { 21, 22, 23 }, { 24, 25, 26 } } }`},
		{`shape { element_type: F32 dimensions: [2, 2, 1, 2] } f32s: [1, 2, 3, 4, 5, 6, 7, 8]`,
			`{ { /*i0=0*/ { /*i1=0*/ { 1, 2 } }, { /*i1=1*/ { 3, 4 } } }, { /*i0=1*/ { /*i1=0*/ { 5, 6 } }, { /*i1=1*/ { 7, 8 } } } }`},
		{`shape { element_type: F32 dimensions: [3, 2, 1, 1] } f32s: [-1, 4.1, 2, 4.1, 5, 4.4]`,
			`{ { /*i0=0*/ { /*i1=0*/ {-1} }, { /*i1=1*/ {4.1} } }, { /*i0=1*/ { /*i1=0*/ {2} }, { /*i1=1*/ {4.1} } }, { /*i0=2*/ { /*i1=0*/ {5} }, { /*i1=1*/ {4.4} } } }`},
		{`shape { element_type: F32 dimensions: [2, 0, 4, 3] }`, `{ { /*i0=0*/ }, { /*i0=1*/ } }`},
		{`shape { element_type: F32 dimensions: 6 } f32s: [nan, 7, -nan, -1, inf, -inf]`, `{nan, 7, -nan, -1, inf, -inf}`},
		{`shape { element_type: C64 dimensions: 2 } c64s: [1, 2, -inf, nan]`, `{(1, 2), (-inf, nan)}`},
		{`shape { element_type: S4 dimensions: 2 } s4s: "\370\007"`, `{-8, 7}`},
		{`shape { element_type: U8 dimensions: 2 } u8s: "\000\377"`, `{0, 255}`},
		{`shape { element_type: S16 dimensions: 2 } s16s: "\000\200\377\177"`, `{-32768, 32767}`},
		{`shape { element_type: F16 dimensions: 2 } f16s: "\000\000\364c"`, `{0, 1018}`},
		{`shape { element_type: F8E4M3FN dimensions: 3 } f8e4m3fns: "\177\070\377"`, `{nan, 1, -nan}`},
		{`shape { element_type: F8E4M3B11FNUZ dimensions: 2 } f8e4m3b11fnuzs: "\200\130"`, `{-nan, 1}`},
		{`shape { element_type: TUPLE tuple_shapes { element_type: S32 dimensions: [2, 1] } tuple_shapes { element_type: S32 dimensions: 2 } }
		  tuple_literals { shape { element_type: S32 dimensions: [2, 1] } s32s: [1, 2] }
		  tuple_literals { shape { element_type: S32 dimensions: 2 } s32s: [2, 42] }`, `( { {1}, {2} }, {2, 42} )`},
	}
	for _, tt := range tests {
		src := protoModule(`name: "k" opcode: "constant" shape { element_type: F32 } literal { ` + tt.literal + ` }`)
		m, err := parser.ParseString("literal.pbtxt", src)
		if err != nil {
			t.Errorf("%s: %v", tt.literal, err)
			continue
		}
		if got := printer.LiteralString(m.Entry.Root.Literal, m.Entry.Root.Shape); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.literal, got, tt.want)
		}
	}
}

func TestCEscape(t *testing.T) {
	if got, want := cstring.Escape("a\"b'c\\d\n\t\r\x01é"), `a\"b\'c\\d\n\t\r\001\303\251`; got != want {
		t.Errorf("cEscape = %s, want %s", got, want)
	}
}

func TestLooksLikeProtoText(t *testing.T) {
	tests := []struct {
		src  string
		want bool
	}{
		{`name: "m"`, true},
		{"# RUN: hlo-translate %s\n\nhlo_module       {\n  name: \"main\"", true},
		{"// RUN: x\nhlo_module {}", true},
		{"computations {\n  name: \"c\"\n}", true},
		{"computations < name: \"c\" >", true},
		{"HloModule m\n\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}", false},
		{"add {\n  x = f32[] parameter(0)\n}", false},
		{"ENTRY e {\n  ROOT p = f32[] parameter(0)\n}", false},
		{"%comp (p: f32[]) -> f32[] {", false},
		{"// just a comment\n", false},
		{"", false},
		{"{", false},
	}
	for _, tt := range tests {
		if got := Match([]byte(tt.src)); got != tt.want {
			t.Errorf("Match(%q) = %v, want %v", tt.src, got, tt.want)
		}
	}
}

// TestProtoHloProtoAndSchedule reads an HloProto (a module and a buffer assignment) whose module is
// scheduled: the schedule orders the instructions as HLO text of a scheduled module lists them.
func TestProtoHloProtoAndSchedule(t *testing.T) {
	src := `hlo_module {
  name: "s"
  computations {
    name: "e"
    instructions { name: "a" opcode: "parameter" shape { element_type: F32 } id: 1 }
    instructions { name: "n1" opcode: "negate" shape { element_type: F32 } id: 2 operand_ids: 1 }
    instructions { name: "n2" opcode: "abs" shape { element_type: F32 } id: 3 operand_ids: 1 }
    instructions { name: "r" opcode: "add" shape { element_type: F32 } id: 4 operand_ids: [2, 3] }
    id: 9 root_id: 4
  }
  schedule { sequences { key: 9 value { instruction_ids: [1, 3, 2, 4] } } }
}
buffer_assignment { logical_buffers { id: 1 size: 4 } }
`
	m, err := parser.ParseString("sched.pbtxt", src)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, in := range m.Entry.Instructions {
		names = append(names, in.Name)
	}
	if got := strings.Join(names, " "); got != "a n2 n1 r" {
		t.Errorf("instructions in order %s, want the schedule's a n2 n1 r", got)
	}
	if m.Attr("is_scheduled") != hlo.Bool(true) {
		t.Errorf("is_scheduled is %#v", m.Attr("is_scheduled"))
	}
}

// parseProto reads src as protobuf text, named e.pbtxt.
func parseProto(src string) ([]*hlo.Module, error) {
	fset := token.NewFileSet()
	file := fset.AddFile("e.pbtxt", -1, len(src))
	file.SetLinesForContent([]byte(src))
	return parseProtoText(fset, file, []byte(src))
}

// withField adds a field to the module protoModule makes.
func withField(inst, field string) string { return protoModule(inst) + field + "\n" }

func TestProtoErrors(t *testing.T) {
	valid := `name: "k" opcode: "parameter" shape { element_type: F32 }`
	tests := []struct {
		name, src string
		at        string // the error is at the first occurrence of at in src ("" for the end of src)
		msg       string
	}{
		{"unknown opcode", protoModule(`name: "k" opcode: "frobnicate" shape { element_type: F32 }`),
			`"frobnicate"`, `unknown opcode "frobnicate"`},
		{"unknown element type", protoModule(`name: "k" opcode: "negate" shape { element_type: F33 }`),
			`F33`, `field element_type: F33 is not a value of PrimitiveType`},
		{"element type number", protoModule(`name: "k" opcode: "negate" shape { element_type: 99 }`),
			`99`, `field element_type: 99 is not a value of PrimitiveType`},
		{"unsupported module field", withField(valid, "bogus: 1"), `bogus`, `field bogus of HloModuleProto is not supported`},
		{"unsupported instruction field", protoModule(`name: "k" opcode: "negate" shape { element_type: F32 } tuple_index: 3`),
			`tuple_index`, `field tuple_index of HloInstructionProto is not supported`},
		{"unsupported shape field", protoModule(`name: "k" opcode: "parameter" shape { element_type: F32 rank: 0 }`),
			`rank`, `field rank of ShapeProto is not supported`},
		{"string not terminated", "name: \"m\ncomputations {}\n", `"m`, `string not terminated`},
		{"unknown escape", `name: "a\qb"`, `\q`, `unknown escape \q`},
		{"message not closed", "name: \"m\"\ncomputations {\n  name: \"c\"\n", "", `expected '}' to close the message, found end of input`},
		{"missing colon", "name \"m\"\n", `"m"`, `expected ':' or '{' after field name name, found a string`},
		{"bad integer", protoModule(valid + " id: 12x"), `12x`, `field id: bad integer 12x`},
		{"integer out of range", protoModule(valid + " id: 9223372036854775808"), `9223372036854775808`, `field id: bad integer 9223372036854775808`},
		{"string for integer", protoModule(valid + ` id: "3"`), `"3"`, `field id: expected an integer, found a string`},
		{"given twice", withField(valid, `name: "b"`), `name: "b"`, `field name is given more than once`},
		{"too deep", strings.Repeat("a {\n", 300), "", fmt.Sprintf("messages are nested more than %d deep", maxProtoDepth)},
		{"unknown operand", protoModule(`name: "k" opcode: "negate" shape { element_type: F32 } operand_ids: 4`),
			`4`, `operand_ids 4 of %k names no instruction of computation e`},
		{"unknown root", protoModule(valid) + "", "", ""}, // replaced below
		{"layout rank", protoModule(`name: "k" opcode: "parameter" shape { element_type: F32 dimensions: 2 layout { minor_to_major: [1, 0] } }`),
			`layout`, `layout has 2 minor_to_major entries but the shape has 1 dimensions`},
		{"literal count", protoModule(`name: "k" opcode: "constant" shape { element_type: F32 dimensions: 2 } literal { shape { element_type: F32 dimensions: 2 } f32s: 1 }`),
			`literal`, `literal of shape f32[2]{0} has 1 values, not 2`},
		// Counted before the values' memory is set aside: 256 MiB for a literal that gives no values.
		{"literal claiming 2^24 values", protoModule(`name: "k" opcode: "constant" shape { element_type: C128 dimensions: 16777216 } literal { shape { element_type: C128 dimensions: 16777216 } }`),
			`literal`, `literal of shape c128[16777216]{0} has 0 values, not 16777216`},
		{"literal of bytes counted", protoModule(`name: "k" opcode: "constant" shape { element_type: BF16 dimensions: 3 } literal { shape { element_type: BF16 dimensions: 3 } bf16s: "\x00\x01\x02\x03" }`),
			`literal`, `literal of shape bf16[3]{0} has 2 values, not 3`},
		{"not a message", "computations: 3\n", `3`, `field computations: expected a message, found a number`},
		{"bad name", protoModule(`name: "a b" opcode: "negate" shape { element_type: F32 }`),
			`"a b"`, `instruction name "a b" has a character HLO text cannot write (' ')`},
		{"no computations", "name: \"m\"\n", `name`, `module has no computations`},
		{"compare without direction", protoModule(`name: "k" opcode: "compare" shape { element_type: PRED }`),
			`instructions`, `%k: compare needs attribute direction`},
		{"compare with an unknown direction", protoModule(`name: "k" opcode: "compare" shape { element_type: PRED } comparison_direction: "LESS"`),
			`instructions`, `%k: attribute direction on compare is one of EQ, NE, GE, GT, LE, LT, got LESS`},
		{"fusion of an unknown kind", protoModule(`name: "k" opcode: "fusion" shape { element_type: F32 } fusion_kind: "kBogus"`),
			`instructions`, `%k: attribute kind on fusion is one of kLoop, kInput, kOutput, kCustom, got kBogus`},
		{"extension", "[ext.field]: 1\n", `[`, `extension and Any fields ([...]) are not supported`},
		{"dynamic token", protoModule(`name: "k" opcode: "parameter" shape { element_type: TOKEN is_dynamic_dimension: true }`),
			`{ element_type: TOKEN`, `a token shape has no dimensions`},
		{"huge literal", protoModule(`name: "k" opcode: "constant" shape { element_type: F32 } literal { shape { element_type: F32 dimensions: [4611686018427387904, 4] } }`),
			`literal`, `literal shape f32[4611686018427387904,4]{1,0} is too large or unbounded`},
		{"while without body", protoModule(`name: "k" opcode: "while" shape { element_type: F32 } called_computation_ids: 0`),
			`instructions`, `while %k calls 1 computations; it needs a condition and a body`},
		// Found by FuzzParseProtoText: accepted, the module printed its user before the operand.
		{"operand after its user", protoModule(`name: "k" opcode: "negate" shape { element_type: F32 } id: 1 operand_ids: 2
  }
  instructions { name: "p" opcode: "parameter" shape { element_type: F32 } id: 2`),
			`2
  }`, `operand %p of %k comes after it in computation e: XLA reads an instruction's operands before it`},
	}
	tests[16].src = "name: \"m\"\ncomputations {\n  name: \"e\"\n  instructions { " + valid + " }\n  root_id: 8\n}\n"
	tests[16].at, tests[16].msg = "8", "root_id 8 names no instruction of computation e"
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			off := len(tt.src)
			switch {
			case tt.name == "too deep":
				off = maxProtoDepth*len("a {\n") + len("a ") // the brace that goes one level too deep
			case tt.at != "":
				off = strings.Index(tt.src, tt.at)
			}
			fset := token.NewFileSet()
			file := fset.AddFile("e.pbtxt", -1, len(tt.src))
			file.SetLinesForContent([]byte(tt.src))
			want := fmt.Sprintf("%s: %s", file.Position(file.Pos(off)), tt.msg)
			_, err := parseProto(tt.src)
			var list scanner.ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error %v, want %s", err, want)
			}
			if got := list[0].Error(); got != want {
				t.Errorf("first error\n got %s\nwant %s\n(all: %v)", got, want, list)
			}
		})
	}
}

// TestParseFileReadsProtoText checks the hook in ParseFile: a file of protobuf text, comments first, is read
// as such, and its errors carry the file's name.
func TestParseFileReadsProtoText(t *testing.T) {
	src := "// RUN: hlo-translate %s\n# CHECK: x\n" + protoModule(`name: "k" opcode: "parameter" shape { element_type: F32 }`)
	m, err := parser.ParseString("ok.pbtxt", src)
	if err != nil || m.Entry.Root.Name != "k" {
		t.Fatalf("module %v, error %v", m, err)
	}
	_, err = parser.ParseString("bad.pbtxt", src+"oops: 1\n")
	if err == nil || !strings.HasPrefix(err.Error(), "bad.pbtxt:10:1: field oops of HloModuleProto is not supported") {
		t.Errorf("error %v", err)
	}
}

// FuzzParseProtoText feeds arbitrary bytes to the protobuf text reader: it must never panic or hang,
// every error must have a position, and a module it accepts must hold together and print.
func FuzzParseProtoText(f *testing.F) {
	f.Add([]byte(coverProto))
	f.Add([]byte(opsProto))
	f.Add([]byte(protoModule(`name: "k" opcode: "constant" shape { element_type: F32 dimensions: [2, 1] } literal { shape { element_type: F32 dimensions: [2, 1] } f32s: [1, 2] }`)))
	f.Add([]byte("hlo_module { name: \"m\" computations < name: \"c\" instructions: [{ name: \"a\" opcode: \"parameter\" shape { element_type: TOKEN } }] > }\n"))
	if dir := shared.Find(); dir != "" {
		for _, name := range protoCorpusFiles {
			if src, err := shared.ReadFile(filepath.Join(dir, "corpus", "hlo", name)); err == nil {
				f.Add(src)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		type result struct {
			mods []*hlo.Module
			err  error
		}
		done := make(chan result, 1)
		go func() {
			fset := token.NewFileSet()
			file := fset.AddFile("fuzz.pbtxt", -1, len(src))
			file.SetLinesForContent(src)
			mods, err := parseProtoText(fset, file, src)
			done <- result{mods, err}
		}()
		var r result
		select {
		case r = <-done:
		case <-time.After(time.Minute): // a hang guard, not a time limit
			t.Fatalf("the reader does not finish on %q", src)
		}
		var list scanner.ErrorList
		if r.err != nil && !errors.As(r.err, &list) {
			t.Fatalf("error %v is not a scanner.ErrorList", r.err)
		}
		for _, e := range list {
			if e.Pos.Filename != "fuzz.pbtxt" || e.Pos.Line < 1 || e.Pos.Column < 1 {
				t.Fatalf("error without a position: %v", e)
			}
		}
		for _, m := range r.mods {
			checkInvariants(t, m)
			text := xlaText(m)
			// A module that prints as parsable HLO text must print the same once parsed again.
			if again, err := parser.ParseString("again.hlo", text); err == nil {
				if got := xlaText(again); got != text {
					t.Fatalf("printed differently after a round trip:\n%s", diffLines(got, text))
				}
			}
		}
	})
}

// checkInvariants checks what every parsed module must satisfy whether or not it verifies.
func checkInvariants(t *testing.T, m *hlo.Module) {
	t.Helper()
	if m.Entry == nil {
		t.Fatalf("module %s has no entry", m.Name)
	}
	for _, c := range m.Computations {
		if c.Root == nil || c.Root.Parent != c {
			t.Fatalf("computation %s: bad root", c.Name)
		}
		for _, in := range c.Instructions {
			for _, o := range in.Operands() {
				if o == nil || o.Parent != c {
					t.Fatalf("%s: operand outside the computation", in.Name)
				}
				found := false
				for _, u := range o.Users() {
					found = found || u == in
				}
				if !found {
					t.Fatalf("%s is not among the users of %s", in.Name, o.Name)
				}
			}
			for _, callee := range in.Called() {
				if callee == nil || callee.Module != m {
					t.Fatalf("%s calls a computation outside the module", in.Name)
				}
			}
		}
	}
}

// TestProtoUnknownElementType: an element type that is no PrimitiveType is one error, naming it (a shape
// with dimensions also said "a  shape has no dimensions", the type's name empty).
func TestProtoUnknownElementType(t *testing.T) {
	for _, et := range []string{"BOGUS", "999"} {
		_, err := parseProto(protoModule(`name: "k" opcode: "parameter" shape { element_type: ` + et + ` dimensions: 4 }`))
		var list scanner.ErrorList
		if !errors.As(err, &list) || len(list) != 1 || !strings.Contains(list[0].Error(), et) {
			t.Errorf("element_type %s: %v, want one error naming it", et, err)
		}
	}
}

// TestLiteralCountedFirst: a literal that claims 2^24 complex values and gives none is refused before
// memory is set aside for them (256 MiB each, up to 50 errors in a file of a few kilobytes).
func TestLiteralCountedFirst(t *testing.T) {
	src := protoModule(`name: "k" opcode: "constant" shape { element_type: C128 dimensions: 16777216 } literal { shape { element_type: C128 dimensions: 16777216 } }`)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := parser.ParseString("big.pbtxt", src)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "has 0 values, not 16777216") {
		t.Errorf("error %v", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("refusing the literal allocated %d bytes", n)
	}
}

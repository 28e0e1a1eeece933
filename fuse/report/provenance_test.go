package report_test

import (
	"strings"
	"testing"

	"octet/fuse"
	"octet/fuse/report"
	"octet/hlo"
	"octet/hlo/parser"
)

// provenanceModule is an FP8 GEMM whose dot carries metadata: op_name, source file and line, and a stack
// frame of the module's tables (which number a frame's parent one past its id, as XLA prints them).
const provenanceModule = `HloModule provenance

FileNames
1 "model.py"

FunctionNames
1 "main"
2 "layer"

FileLocations
1 {file_name_id=1 function_name_id=1 line=30 end_line=30 column=1 end_column=9}
2 {file_name_id=1 function_name_id=2 line=12 end_line=12 column=5 end_column=20}

StackFrames
1 {file_location_id=1 parent_frame_id=1}
2 {file_location_id=2 parent_frame_id=2}

ENTRY main {
  a = f8e4m3fn[32,64] parameter(0)
  b = f8e4m3fn[48,64] parameter(1)
  sa = f32[] parameter(2)
  af = f32[32,64] convert(a)
  sab = f32[32,64] broadcast(sa), dimensions={}
  adq = f32[32,64] multiply(af, sab)
  bf = f32[48,64] convert(b)
  ROOT d = f32[32,48] dot(adq, bf), lhs_contracting_dims={1}, rhs_contracting_dims={1}, metadata={op_name="jit(f)/dot_general" source_file="model.py" source_line=12 stack_frame_id=2}
}

`

// TestProvenance checks that fuse --explain, check and diff name where a GEMM came from, and that the
// fused call keeps the metadata of the dot it replaces.
func TestProvenance(t *testing.T) {
	want := `"jit(f)/dot_general" at model.py:12 stack layer (model.py:12) <- main (model.py:30)`
	m, err := parser.ParseString("provenance.hlo", provenanceModule)
	if err != nil {
		t.Fatal(err)
	}
	before := report.Check(m)
	if len(before.GEMMs) != 1 || before.GEMMs[0].Source != want {
		t.Fatalf("check of the dot: source %q, want %q", before.GEMMs[0].Source, want)
	}
	r := fuse.Rewrite(m, fuse.Options{})
	g := r.Decisions[0]
	if g.Source != want || !strings.Contains(strings.Join(g.Explain, "\n"), "from "+want) {
		t.Errorf("fuse: source %q, explain %q", g.Source, g.Explain)
	}
	var call *hlo.Instruction
	for _, in := range m.Entry.Instructions {
		if in.Opcode == hlo.OpCustomCall {
			call = in
		}
	}
	if call == nil || fuse.Provenance(call) != want {
		t.Fatalf("the call does not keep the dot's metadata: %v", call)
	}
	after := report.Check(m)
	if len(after.GEMMs) != 1 || after.GEMMs[0].Source != want {
		t.Errorf("check of the call: %+v", after.GEMMs)
	}
	d := report.Diff(before, after)
	if len(d.Gained) != 1 || !strings.HasSuffix(d.Gained[0].What, "; from "+want) {
		t.Errorf("diff: %+v", d.Gained)
	}
}

package main

import (
	"strings"
	"testing"
)

// TestProtoTextWithComments reads an HloModuleProto text file that starts with '#' comment lines, as
// XLA's hlo_to_mhlo tests do ("# RUN: ..."): every command reads it as the module it is, not as MLIR
// (whose attribute aliases also start with '#').
func TestProtoTextWithComments(t *testing.T) {
	const proto = `# RUN: hlo-translate -hlo-to-mlir -emit-mhlo %s | FileCheck %s
# proto-message: HloModuleProto
hlo_module {
  name: "commented"
  entry_computation_name: "main"
  computations {
    name: "main"
    instructions {
      name: "p"
      opcode: "parameter"
      shape { element_type: F32 dimensions: 4 layout { minor_to_major: 0 } }
      id: 1
    }
    instructions {
      name: "n"
      opcode: "negate"
      shape { element_type: F32 dimensions: 4 layout { minor_to_major: 0 } }
      id: 2
      operand_ids: 1
    }
    root_id: 2
    id: 0
  }
  entry_computation_id: 0
}
`
	path := writeTemp(t, t.TempDir(), "commented.pbtxt", proto)
	code, out, errs := runOctet(t, "", "print", "--format=xla", path)
	if code != 0 || !strings.Contains(out, "HloModule commented") || !strings.Contains(out, "ROOT %n = f32[4]{0} negate(f32[4]{0} %p)") {
		t.Errorf("print: exit %d\n%s%s", code, out, errs)
	}
	for _, args := range [][]string{{"verify", path}, {"check", path}, {"run", "--random", "1", path}} {
		if code, out, errs := runOctet(t, "", args...); code != 0 {
			t.Errorf("%s: exit %d\n%s%s", args[0], code, out, errs)
		}
	}
	if code, _, errs := runOctet(t, "", "convert", path); code != 1 || !strings.Contains(errs, "not StableHLO") {
		t.Errorf("convert: exit %d, want 1 (not StableHLO): %s", code, errs)
	}
}

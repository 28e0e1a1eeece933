package hlo_test

import (
	"fmt"
	"strings"
	"testing"

	"octet/hlo"
	"octet/hlo/parser"
)

// TestVerifyLimits checks what the verifier finds beyond shapes: sizes that overflow int64, recursion,
// input_output_alias pairs that do not fit the entry.
func TestVerifyLimits(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		want      string // "" for a module that verifies
	}{
		{"overflowing shape", "HloModule m\nENTRY e {\n  ROOT p = f32[4611686018427387904,4] parameter(0)\n}\n",
			"overflowing shape.hlo:3:3: the shape f32[4611686018427387904,4] of %p has more bytes than an int64 counts"},
		{"overflowing tuple element", "HloModule m\nENTRY e {\n  ROOT p = (f32[2], s8[65536,65536,65536,65536]) parameter(0)\n}\n",
			"of %p has more bytes than an int64 counts"},
		{"largest that fits", "HloModule m\nENTRY e {\n  ROOT p = s8[4611686018427387903,2] parameter(0)\n}\n", ""},
		{"zero-sized", "HloModule m\nENTRY e {\n  ROOT p = f32[0,4611686018427387904,4611686018427387904] parameter(0)\n}\n", ""},
		{"self call", "HloModule m\nc {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c\n}\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c\n}\n",
			"self call.hlo:4:3: %r calls %c, the computation it is in: recursion is not allowed"},
		{"mutual calls", "HloModule m\na {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=b\n}\nb {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=a\n}\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=a\n}\n",
			"which calls it back (%a -> %b -> %a): recursion is not allowed"},
		{"alias of another shape", "HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }\nENTRY e {\n  p = s32[] parameter(0)\n  q = f32[80,1024] parameter(1)\n  ROOT r = (f32[80,1024]) tuple(q)\n}\n",
			"alias of another shape.hlo:1:1: input_output_alias: output {0} is f32[80,1024] but parameter 0 (%p) at {} is s32[]"},
		{"alias of another type", "HloModule m, input_output_alias={ {}: (0, {}) }\nENTRY e {\n  p = s32[4] parameter(0)\n  ROOT r = f32[4] convert(p)\n}\n",
			"output {} is f32[4] but parameter 0 (%p) at {} is s32[4]"},
		{"alias of a missing parameter", "HloModule m, input_output_alias={ {}: (3, {}) }\nENTRY e {\n  ROOT p = f32[4] parameter(0)\n}\n",
			"output {} is aliased to parameter 3; the entry %e takes 1"},
		{"alias of a missing output", "HloModule m, input_output_alias={ {2}: (0, {}) }\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT t = (f32[4]) tuple(p)\n}\n",
			"the entry's result (f32[4]) has no output {2}"},
		{"alias twice", "HloModule m, input_output_alias={ {0}: (0, {}), {0}: (1, {}) }\nENTRY e {\n  p = f32[4] parameter(0)\n  q = f32[4] parameter(1)\n  ROOT t = (f32[4]) tuple(p)\n}\n",
			"output {0} is aliased twice"},
		{"nan in f8e4m3fn", "HloModule m\nENTRY e {\n  ROOT c = f8e4m3fn[2] constant({nan, 448})\n}\n", ""},
		{"inf in bf16", "HloModule m\nENTRY e {\n  ROOT c = bf16[2] constant({inf, -nan})\n}\n", ""},
		{"good aliases", "HloModule m, input_output_alias={ {0}: (1, {1}, may-alias), {1}: (0, {}, must-alias) }\nENTRY e {\n  p = f32[4] parameter(0)\n  q = (s32[], bf16[2,3]) parameter(1)\n  b = bf16[2,3] get-tuple-element(q), index=1\n  ROOT t = (bf16[2,3], f32[4]) tuple(b, p)\n}\n", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := parser.ParseString(tt.name+".hlo", tt.src)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			err = hlo.Verify(m)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Verify: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Verify: %v\nwant an error with %q", err, tt.want)
			}
		})
	}
}

// TestVerifyDeepCalls verifies a chain of calls far deeper than a recursive walk could take safely, and a
// cycle at its end.
func TestVerifyDeepCalls(t *testing.T) {
	const depth = 20000
	var b strings.Builder
	b.WriteString("HloModule deep\n")
	for i := depth; i > 0; i-- {
		callee := fmt.Sprintf("c%d", i+1)
		if i == depth {
			fmt.Fprintf(&b, "c%d {\n  p%d = f32[] parameter(0)\n  ROOT r%d = f32[] negate(p%d)\n}\n", i, i, i, i)
			continue
		}
		fmt.Fprintf(&b, "c%d {\n  p%d = f32[] parameter(0)\n  ROOT r%d = f32[] call(p%d), to_apply=%s\n}\n", i, i, i, i, callee)
	}
	b.WriteString("ENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c1\n}\n")
	m, err := parser.ParseString("deep.hlo", b.String())
	if err != nil {
		t.Fatalf("parse: %.300v", err)
	}
	if err := hlo.Verify(m); err != nil {
		t.Fatalf("Verify: %.300v", err)
	}
	cyclic := strings.Replace(b.String(), fmt.Sprintf("negate(p%d)", depth), fmt.Sprintf("call(p%d), to_apply=c1", depth), 1)
	m, err = parser.ParseString("deep.hlo", cyclic)
	if err != nil {
		t.Fatalf("parse: %.300v", err)
	}
	err = hlo.Verify(m)
	if err == nil || !strings.Contains(err.Error(), "which calls it back (%c20000 -> %c1 -> %c2 -> ... 19995 more ... -> %c19998 -> %c19999 -> %c20000)") || strings.Count(err.Error(), "recursion") != 1 {
		t.Errorf("Verify of a cycle of %d computations: %.300v", depth, err)
	}
}

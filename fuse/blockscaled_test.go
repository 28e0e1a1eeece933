package fuse_test

import (
	"fmt"
	"strings"
	"testing"

	"octet/fuse"
	"octet/hlo"
	"octet/hlo/parser"
	"octet/hlo/printer"
	"octet/interp"
)

// blockModule is a dot of two block dequantizes (XLA's matcher's pattern), dequantized in dq, the
// operands of the given element and scale types and block size, the rhs [n, k] or, transposed, [k, n].
func blockModule(elem, scale, dq, out string, block int, rhsTransposed bool) string {
	const m, n, k = 4, 6, 64
	side := func(name string, rows int, kDim int) string {
		dims := fmt.Sprintf("%d,%d", rows, k)
		sdims := fmt.Sprintf("%d,%d", rows, k/block)
		bdims := fmt.Sprintf("%d,%d,%d", rows, k/block, block)
		bc := "0,1"
		if kDim == 0 {
			dims, sdims, bdims = fmt.Sprintf("%d,%d", k, rows), fmt.Sprintf("%d,%d", k/block, rows), fmt.Sprintf("%d,%d,%d", k/block, block, rows)
			bc = "0,2"
		}
		return fmt.Sprintf(`  %[1]s = %[2]s[%[4]s] parameter(%[7]d)
  %[1]s_scale = %[3]s[%[5]s] parameter(%[8]d)
  %[1]s_c = %[9]s[%[4]s] convert(%[1]s)
  %[1]s_sc = %[9]s[%[5]s] convert(%[1]s_scale)
  %[1]s_bc = %[9]s[%[6]s] broadcast(%[1]s_sc), dimensions={%[10]s}
  %[1]s_rs = %[9]s[%[4]s] reshape(%[1]s_bc)
  %[1]s_dq = %[9]s[%[4]s] multiply(%[1]s_c, %[1]s_rs)
`, name, elem, scale, dims, sdims, bdims, map[string]int{"lhs": 0, "rhs": 1}[name], map[string]int{"lhs": 2, "rhs": 3}[name], dq, bc)
	}
	rhsK, rc := 1, 1
	if rhsTransposed {
		rhsK, rc = 0, 0
	}
	return "HloModule block\n\nENTRY main {\n" + side("lhs", m, 1) + side("rhs", n, rhsK) +
		fmt.Sprintf("  ROOT d = %s[%d,%d] dot(lhs_dq, rhs_dq), lhs_contracting_dims={1}, rhs_contracting_dims={%d}\n}\n", out, m, n, rc)
}

func parse(t *testing.T, src string) *hlo.Module {
	t.Helper()
	m, err := parser.ParseString("block.hlo", src)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	if err := hlo.Verify(m); err != nil {
		t.Fatalf("the input does not verify: %v\n%s", err, src)
	}
	return m
}

// TestBlockRewrite rewrites dots of block dequantizes into scaled-dot and into cuDNN's call, and runs the
// rewritten modules against the originals: the same bits where the dequantize is exact in bf16 (every
// MXFP8 and NVFP4 product with scales near 1, as random inputs give).
func TestBlockRewrite(t *testing.T) {
	for _, c := range []struct {
		name                 string
		elem, scale, dq, out string
		block                int
		transposed           bool
		target               fuse.BlockTarget
		want                 string // the target in the rewritten module
	}{
		{"mxfp8 bf16 scaled-dot", "f8e4m3fn", "f8e8m0fnu", "bf16", "f32", 32, false, fuse.BlockScaledDot, "scaled-dot("},
		{"mxfp8 f32 scaled-dot, rhs [k,n]", "f8e5m2", "f8e8m0fnu", "f32", "bf16", 32, true, fuse.BlockScaledDot, "scaled-dot("},
		{"nvfp4 scaled-dot", "f4e2m1fn", "f8e4m3fn", "f32", "f32", 16, false, fuse.BlockScaledDot, "scaled-dot("},
		{"mxfp6 scaled-dot", "f6e3m2fn", "f8e8m0fnu", "bf16", "bf16", 32, false, fuse.BlockScaledDot, "scaled-dot("},
		{"mxfp8 cudnn", "f8e4m3fn", "f8e8m0fnu", "bf16", "f32", 32, false, fuse.BlockCudnn, `custom_call_target="__cudnn$blockScaledDot"`},
		{"mxfp8 cudnn, rhs [k,n]", "f8e4m3fn", "f8e8m0fnu", "f32", "bf16", 32, true, fuse.BlockCudnn, `custom_call_target="__cudnn$blockScaledDot"`},
		{"nvfp4 cudnn", "f4e2m1fn", "f8e4m3fn", "bf16", "f32", 16, false, fuse.BlockCudnn, `custom_call_target="__cudnn$blockScaledDot"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := blockModule(c.elem, c.scale, c.dq, c.out, c.block, c.transposed)
			orig, m := parse(t, src), parse(t, src)
			r := fuse.Rewrite(m, fuse.Options{Block: c.target})
			if len(r.Decisions) != 1 || !r.Decisions[0].Fused {
				t.Fatalf("decisions %+v", r.Decisions)
			}
			checkInvariants(t, m)
			text := printModule(m)
			if !strings.Contains(text, c.want) || strings.Contains(text, " dot(") {
				t.Errorf("the rewritten module:\n%s", text)
			}
			args, err := interp.RandomInputs(orig, 3)
			if err != nil {
				t.Fatal(err)
			}
			want, err := interp.Run(orig, args, interp.Options{MaxMemory: 1 << 30})
			if err != nil {
				t.Fatal(err)
			}
			got, err := interp.Run(m, args, interp.Options{MaxMemory: 1 << 30})
			if err != nil {
				t.Fatal(err)
			}
			if cmp := interp.Compare(want, got); cmp.BitMatches != cmp.Elements {
				t.Errorf("the rewrite changes the result: %s", cmp.String())
			}
		})
	}
}

// TestBlockRefusals: what the block-scaled rewrite leaves alone, and why.
func TestBlockRefusals(t *testing.T) {
	for _, c := range []struct {
		name   string
		src    string
		target fuse.BlockTarget
		why    string
	}{
		{"f16 dequantize", blockModule("f8e4m3fn", "f8e8m0fnu", "f16", "f32", 32, false), fuse.BlockScaledDot, "dequantized in f16"},
		{"MXFP4 to cuDNN", blockModule("f4e2m1fn", "f8e8m0fnu", "bf16", "f32", 32, false), fuse.BlockCudnn, "not MXFP8 or NVFP4"},
		{"e5m2 x e5m2 to cuDNN", blockModule("f8e5m2", "f8e8m0fnu", "bf16", "f32", 32, false), fuse.BlockCudnn, "f8e5m2 x f8e5m2"},
		{"MXFP8 in blocks of 16 to cuDNN", blockModule("f8e4m3fn", "f8e8m0fnu", "bf16", "f32", 16, false), fuse.BlockCudnn, "per 16 are not MXFP8"},
		{"bf16 scales dequantized in f32", blockModule("f8e4m3fn", "bf16", "f32", "f32", 32, false), fuse.BlockScaledDot, "need 12 significant bits"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := parse(t, c.src)
			r := fuse.Rewrite(m, fuse.Options{Block: c.target})
			if len(r.Decisions) != 1 || r.Decisions[0].Fused || !strings.Contains(r.Decisions[0].Reason, c.why) {
				t.Fatalf("decisions %+v, want a refusal saying %q", r.Decisions, c.why)
			}
			if !strings.Contains(printModule(m), " dot(") {
				t.Error("the refused dot is gone")
			}
		})
	}
}

// TestBlockOneSided keeps a bf16 operand as it is, with a scale of ones, when only the other is block
// dequantized (weight-only quantization).
func TestBlockOneSided(t *testing.T) {
	src := `HloModule one
ENTRY main {
  x = bf16[4,64] parameter(0)
  w = f4e2m1fn[6,64] parameter(1)
  ws = f8e8m0fnu[6,2] parameter(2)
  wc = bf16[6,64] convert(w)
  wsc = bf16[6,2] convert(ws)
  wb = bf16[6,2,32] broadcast(wsc), dimensions={0,1}
  wr = bf16[6,64] reshape(wb)
  wdq = bf16[6,64] multiply(wc, wr)
  ROOT d = f32[4,6] dot(x, wdq), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}
`
	orig, m := parse(t, src), parse(t, src)
	r := fuse.Rewrite(m, fuse.Options{})
	if len(r.Decisions) != 1 || !r.Decisions[0].Fused {
		t.Fatalf("decisions %+v", r.Decisions)
	}
	checkInvariants(t, m)
	sd := m.Entry.Root
	if sd.Opcode != hlo.OpScaledDot || sd.Operand(0).Name != "x" || sd.Operand(1).Name != "w" || sd.Operand(2).Opcode != hlo.OpBroadcast ||
		sd.Operand(2).Shape.String() != "bf16[1,1]" || sd.Operand(3).Name != "ws" {
		t.Errorf("the rewritten module:\n%s", printModule(m))
	}
	args, _ := interp.RandomInputs(orig, 5)
	want, err1 := interp.Run(orig, args, interp.Options{MaxMemory: 1 << 30})
	got, err2 := interp.Run(m, args, interp.Options{MaxMemory: 1 << 30})
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if cmp := interp.Compare(want, got); cmp.BitMatches != cmp.Elements {
		t.Errorf("the rewrite changes the result: %s", cmp.String())
	}
}

func printModule(m *hlo.Module) string { return printer.Sprint(m, printer.ConfigFor(printer.StyleXLA)) }

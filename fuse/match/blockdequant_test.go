package match_test

import (
	"fmt"
	"strings"
	"testing"

	"octet/fuse/match"
	"octet/hlo"
	"octet/hlo/parser"
)

func TestFindBlockDequantize(t *testing.T) {
	for _, c := range []struct {
		name, body string
		block      string // "" when not a block dequantize
		why        string
	}{
		{"XLA's matcher form", `
  x = f8e4m3fn[16,128] parameter(0)
  s = f8e8m0fnu[16,4] parameter(1)
  xc = f32[16,128] convert(x)
  sc = f32[16,4] convert(s)
  sb = f32[16,4,32] broadcast(sc), dimensions={0,1}
  sr = f32[16,128] reshape(sb)
  ROOT m = f32[16,128] multiply(xc, sr)`, "[1 32]", ""},
		{"operands swapped, blocks along dimension 0", `
  x = f4e2m1fn[64,8] parameter(0)
  s = f8e4m3fn[4,8] parameter(1)
  xc = bf16[64,8] convert(x)
  sc = bf16[4,8] convert(s)
  sb = bf16[4,16,8] broadcast(sc), dimensions={0,2}
  sr = bf16[64,8] reshape(sb)
  ROOT m = bf16[64,8] multiply(sr, xc)`, "[16 1]", ""},
		{"a compiled module's unit dimensions and bitcasts", `
  x = f8e4m3fn[1,128,256] parameter(0)
  s = f8e8m0fnu[1,128,8] parameter(1)
  xc = bf16[1,128,256] convert(x)
  s2 = f8e8m0fnu[128,8] bitcast(s)
  sc = bf16[128,8] convert(s2)
  sb = bf16[1,128,8,32] broadcast(sc), dimensions={1,2}
  sr = bf16[1,128,256] bitcast(sb)
  ROOT m = bf16[1,128,256] multiply(xc, sr)`, "[1 1 32]", ""},
		{"128 x 128 weight blocks", `
  x = f8e4m3fn[256,256] parameter(0)
  s = f32[2,2] parameter(1)
  xc = f32[256,256] convert(x)
  sb = f32[2,128,2,128] broadcast(s), dimensions={0,2}
  sr = f32[256,256] reshape(sb)
  ROOT m = f32[256,256] multiply(xc, sr)`, "[128 128]", ""},
		{"a per-channel scale is not a block scale", `
  x = f8e4m3fn[16,128] parameter(0)
  s = f32[128] parameter(1)
  xc = f32[16,128] convert(x)
  sb = f32[16,128] broadcast(s), dimensions={1}
  ROOT m = f32[16,128] multiply(xc, sb)`, "", "broadcast, not repeated over blocks"},
		{"copies inside a block, not whole blocks", `
  x = f8e4m3fn[16,128] parameter(0)
  s = f8e8m0fnu[16,4] parameter(1)
  xc = f32[16,128] convert(x)
  sc = f32[16,4] convert(s)
  sb = f32[16,32,4] broadcast(sc), dimensions={0,2}
  sr = f32[16,128] reshape(sb)
  ROOT m = f32[16,128] multiply(xc, sr)`, "", "inside a block"},
		{"wide data", `
  x = bf16[16,128] parameter(0)
  s = f32[16,4] parameter(1)
  xc = f32[16,128] convert(x)
  sb = f32[16,4,32] broadcast(s), dimensions={0,1}
  sr = f32[16,128] reshape(sb)
  ROOT m = f32[16,128] multiply(xc, sr)`, "", "narrow float"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := parser.ParseString("t.hlo", "HloModule t\nENTRY e {"+c.body+"\n}\n")
			if err != nil {
				t.Fatal(err)
			}
			if err := hlo.Verify(m); err != nil {
				t.Fatal(err)
			}
			skipBitcasts := func(in *hlo.Instruction) *hlo.Instruction {
				if in.Opcode == hlo.OpBitcast && in.Operand(0).Shape.Elem == in.Shape.Elem && in.Operand(0).Shape.NumElements() == in.Shape.NumElements() &&
					in.Name == "s2" {
					return in.Operand(0)
				}
				return in
			}
			d, why := match.FindBlockDequantize(m.Entry.Root, skipBitcasts)
			switch {
			case c.block == "" && d != nil:
				t.Errorf("matched %v", d.Block)
			case c.block == "" && !strings.Contains(why, c.why):
				t.Errorf("reason %q, want %q", why, c.why)
			case c.block != "" && d == nil:
				t.Errorf("not matched: %s", why)
			case c.block != "" && fmt.Sprint(d.Block) != c.block:
				t.Errorf("blocks %v, want %s", d.Block, c.block)
			case c.block != "" && (d.Data.Name != "x" || d.Scale.Name != "s"):
				t.Errorf("data %%%s, scales %%%s", d.Data.Name, d.Scale.Name)
			}
		})
	}
}

package interp

import (
	"bytes"
	"strings"
	"testing"
)

// TestFusionChunks evaluates elementwise fusions chunk by chunk and compares every bit with the same
// computations called as a whole, instruction after instruction.
func TestFusionChunks(t *testing.T) {
	const src = `HloModule fused

%ew (x: f32[3,50,70], b: bf16[70], s: f32[50], p: pred[3,50,70], h: bf16[3,50,70]) -> (bf16[3,50,70]) {
  %x = f32[3,50,70] parameter(0)
  %b = bf16[70] parameter(1)
  %s = f32[50] parameter(2)
  %p = pred[3,50,70] parameter(3)
  %h = bf16[3,50,70] parameter(4)
  %bb = bf16[3,50,70] broadcast(%b), dimensions={2}
  %xb = bf16[3,50,70] convert(%x)
  %m = bf16[3,50,70] multiply(%xb, %bb)
  %t = bf16[3,50,70] tanh(%m)
  %sb = f32[3,50,70] broadcast(%s), dimensions={1}
  %tf = f32[3,50,70] convert(%t)
  %a = f32[3,50,70] add(%tf, %sb)
  %half = f32[] constant(0.5)
  %hb = f32[3,50,70] broadcast(%half), dimensions={}
  %gt = pred[3,50,70] compare(%a, %hb), direction=GT
  %both = pred[3,50,70] and(%gt, %p)
  %hf = f32[3,50,70] convert(%h)
  %sel = f32[3,50,70] select(%both, %a, %hf)
  %lo = f32[] constant(-1)
  %hi = f32[] constant(2)
  %cl = f32[3,50,70] clamp(%lo, %sel, %hi)
  %r = f32[70,150] reshape(%cl)
  %e = f32[70,150] exponential(%r)
  ROOT %o = bf16[70,150] convert(%e)
}

%iota_mask (x: s32[10000]) -> s32[10000] {
  %x = s32[10000] parameter(0)
  %c = s32[10000] constant({...})
  ROOT %s = s32[10000] add(%x, %x)
}

ENTRY %main {
  %x = f32[3,50,70] parameter(0)
  %b = bf16[70] parameter(1)
  %s = f32[50] parameter(2)
  %p = pred[3,50,70] parameter(3)
  %h = bf16[3,50,70] parameter(4)
  %i = s32[10000] parameter(5)
  %f = bf16[70,150] fusion(%x, %b, %s, %p, %h), kind=kLoop, calls=%ew
  %g = s32[10000] fusion(%i), kind=kLoop, calls=%iota_mask
  ROOT %out = (bf16[70,150], s32[10000]) tuple(%f, %g)
}`
	// The integer fusion's elided constant is unused; drop it.
	text := strings.Replace(src, "  %c = s32[10000] constant({...})\n", "", 1)
	fused := parseModule(t, text)
	called := parseModule(t, strings.NewReplacer("), kind=kLoop, calls=", "), to_apply=", "fusion(", "call(").Replace(text))
	if p := planChunks(fused.Computations[0]); p == nil {
		t.Fatal("the elementwise fusion has no chunk plan")
	}
	args, err := RandomInputs(fused, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, threads := range []int{1, 2} {
		a, err := Run(fused, args, Options{Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Run(called, args, Options{Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		for i, x := range a.Flatten() {
			if y := b.Flatten()[i]; !bytes.Equal(x.Data, y.Data) {
				t.Errorf("%d threads: output %d differs between the chunked fusion and the called computation", threads, i)
			}
		}
	}
}

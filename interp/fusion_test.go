package interp

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

// fusionChunksSrc is TestFusionChunks's module: an elementwise fusion of f32, bf16, s32 and pred values,
// and an s32 one whose constant is elided (and unused: the tests drop it).
const fusionChunksSrc = `HloModule fused

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
  %io = s32[3,50,70] iota(), iota_dimension=2
  %ic = s32[] constant(35)
  %icb = s32[3,50,70] broadcast(%ic), dimensions={}
  %im = pred[3,50,70] compare(%io, %icb), direction=LT
  %both0 = pred[3,50,70] and(%gt, %p)
  %both = pred[3,50,70] and(%both0, %im)
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

// TestFusionChunks evaluates elementwise fusions chunk by chunk and compares every bit with the same
// computations called as a whole, instruction after instruction.
func TestFusionChunks(t *testing.T) {
	// The integer fusion's elided constant is unused; drop it.
	text := strings.Replace(fusionChunksSrc, "  %c = s32[10000] constant({...})\n", "", 1)
	fused := parseModule(t, text)
	if p := planChunks(fused.Computations[0]); p == nil {
		t.Fatal("the elementwise fusion has no chunk plan")
	}
	args, err := RandomInputs(fused, 3)
	if err != nil {
		t.Fatal(err)
	}
	sameAsCalled(t, text, fused, args)
}

// TestFusionChunksF32 evaluates f32 fusions as XLA's CPU compiler writes them (a batch norm after a
// convolution's bias, whose scale is computed per feature inside the fusion, a residual add and ReLU), and
// others that exercise the scratch arrays of wordChunks (operands read twice, reshapes of intermediate
// values, a broadcast transposed, clamps, unary functions, a root that is a reshape), chunk by chunk, and
// compares every bit with the same computations called as a whole, on values with NaNs, infinities and
// signed zeros.
func TestFusionChunksF32(t *testing.T) {
	const src = `HloModule fused

%bn (x: f32[2,30,30,64], bias: f32[64], mean: f32[64], var: f32[64], scale: f32[64], beta: f32[64], res: f32[2,30,30,64]) -> f32[2,30,30,64] {
  %x = f32[2,30,30,64] parameter(0)
  %bias = f32[64] parameter(1)
  %bb = f32[2,30,30,64] broadcast(%bias), dimensions={3}
  %a = f32[2,30,30,64] add(%x, %bb)
  %mean = f32[64] parameter(2)
  %mb = f32[2,30,30,64] broadcast(%mean), dimensions={3}
  %s = f32[2,30,30,64] subtract(%a, %mb)
  %var = f32[64] parameter(3)
  %eps = f32[] constant(0.001)
  %eb = f32[64] broadcast(%eps), dimensions={}
  %ve = f32[64] add(%var, %eb)
  %rs = f32[64] rsqrt(%ve)
  %scale = f32[64] parameter(4)
  %k = f32[64] multiply(%rs, %scale)
  %kb = f32[2,30,30,64] broadcast(%k), dimensions={3}
  %m = f32[2,30,30,64] multiply(%s, %kb)
  %beta = f32[64] parameter(5)
  %betab = f32[2,30,30,64] broadcast(%beta), dimensions={3}
  %n = f32[2,30,30,64] add(%m, %betab)
  %res = f32[2,30,30,64] parameter(6)
  %r = f32[2,30,30,64] add(%res, %n)
  %zero = f32[] constant(0)
  %zb = f32[2,30,30,64] broadcast(%zero), dimensions={}
  ROOT %relu = f32[2,30,30,64] maximum(%r, %zb)
}

%misc (x: f32[40,300], y: f32[300,40], c: f32[40]) -> f32[300,40] {
  %x = f32[40,300] parameter(0)
  %y = f32[300,40] parameter(1)
  %c = f32[40] parameter(2)
  %sq = f32[40,300] multiply(%x, %x)
  %t = f32[300,40] reshape(%sq)
  %d = f32[300,40] divide(%t, %y)
  %cb = f32[300,40] broadcast(%c), dimensions={1}
  %ct = f32[40,300] broadcast(%c), dimensions={0}
  %ctr = f32[300,40] reshape(%ct)
  %lo = f32[] constant(-2)
  %hi = f32[] constant(3)
  %cl = f32[300,40] clamp(%lo, %d, %hi)
  %cl2 = f32[300,40] clamp(%cb, %d, %ctr)
  %e = f32[300,40] exponential(%cl)
  %mn = f32[300,40] minimum(%e, %cl2)
  %tn = f32[300,40] tanh(%mn)
  %s = f32[300,40] subtract(%tn, %t)
  %a = f32[12000] reshape(%s)
  %b = f32[12000] add(%a, %a)
  ROOT %o = f32[300,40] reshape(%b)
}

ENTRY %main {
  %x = f32[2,30,30,64] parameter(0)
  %bias = f32[64] parameter(1)
  %mean = f32[64] parameter(2)
  %var = f32[64] parameter(3)
  %scale = f32[64] parameter(4)
  %beta = f32[64] parameter(5)
  %res = f32[2,30,30,64] parameter(6)
  %mx = f32[40,300] parameter(7)
  %my = f32[300,40] parameter(8)
  %mc = f32[40] parameter(9)
  %f = f32[2,30,30,64] fusion(%x, %bias, %mean, %var, %scale, %beta, %res), kind=kLoop, calls=%bn
  %g = f32[300,40] fusion(%mx, %my, %mc), kind=kLoop, calls=%misc
  ROOT %out = (f32[2,30,30,64], f32[300,40]) tuple(%f, %g)
}`
	fused := parseModule(t, src)
	for _, c := range fused.Computations[:2] {
		if p := planChunks(c); p == nil || !p.words {
			t.Fatalf("%s: no word chunk plan (%v)", c.Name, p)
		}
	}
	rng := rand.New(rand.NewPCG(31, 32))
	var args []Value
	for _, p := range fused.Entry.Params {
		args = append(args, viewInput(t, rng, p.Shape.String()))
	}
	sameAsCalled(t, src, fused, args)
}

// sameAsCalled checks that fused, the module of text src, run on args on one thread and on two, gives the
// bits of the same module with its fusions made calls of the same computations.
func sameAsCalled(t *testing.T, src string, fused *hlo.Module, args []Value) {
	t.Helper()
	called := parseModule(t, strings.NewReplacer("), kind=kLoop, calls=", "), to_apply=", "fusion(", "call(").Replace(src))
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

// TestFusionChunksWords evaluates fusions of s32, u32, pred and f32 chunk by chunk through wordChunks
// (Threefry-like rounds with constant keys and shifts, some past the width; masks made by compares of
// iotas and selects between values, preds among them; integers converted to f32 and between s32 and u32;
// a row broadcast of integers; f32 compares with NaNs; s32 and f32 iotas; a root that is a compare, and
// one that is a select of a parameter) and compares every bit with the same computations called as a
// whole.
func TestFusionChunksWords(t *testing.T) {
	const src = `HloModule words

%rounds (x: u32[3,4000], k: u32[], row: u32[4000]) -> f32[3,4000] {
  %x = u32[3,4000] parameter(0)
  %k = u32[] parameter(1)
  %kb = u32[3,4000] broadcast(%k), dimensions={}
  %row = u32[4000] parameter(2)
  %rb = u32[3,4000] broadcast(%row), dimensions={1}
  %c13 = u32[] constant(13)
  %b13 = u32[3,4000] broadcast(%c13), dimensions={}
  %c33 = u32[] constant(33)
  %b33 = u32[3,4000] broadcast(%c33), dimensions={}
  %a = u32[3,4000] add(%x, %kb)
  %l = u32[3,4000] shift-left(%a, %b13)
  %r = u32[3,4000] shift-right-logical(%a, %b33)
  %o = u32[3,4000] or(%l, %r)
  %y = u32[3,4000] xor(%o, %rb)
  %m = u32[3,4000] multiply(%y, %a)
  %s = s32[3,4000] convert(%m)
  %sa = s32[3,4000] shift-right-arithmetic(%s, %s)
  %mx = s32[3,4000] maximum(%sa, %s)
  %u = u32[3,4000] convert(%mx)
  %c9 = u32[] constant(9)
  %b9 = u32[3,4000] broadcast(%c9), dimensions={}
  %h = u32[3,4000] shift-right-logical(%u, %b9)
  %fu = f32[3,4000] convert(%h)
  %fs = f32[3,4000] convert(%mx)
  ROOT %sum = f32[3,4000] add(%fu, %fs)
}

%mask (q: f32[5,3000], v: f32[5,3000], p: pred[5,3000]) -> f32[5,3000] {
  %q = f32[5,3000] parameter(0)
  %v = f32[5,3000] parameter(1)
  %p = pred[5,3000] parameter(2)
  %i = s32[5,3000] iota(), iota_dimension=1
  %j = s32[5,3000] iota(), iota_dimension=0
  %c = s32[] constant(700)
  %cb = s32[5,3000] broadcast(%c), dimensions={}
  %jj = s32[5,3000] multiply(%j, %cb)
  %causal = pred[5,3000] compare(%i, %jj), direction=LE
  %lt = pred[5,3000] compare(%q, %v), direction=LT
  %ne = pred[5,3000] compare(%q, %q), direction=NE
  %both = pred[5,3000] select(%causal, %lt, %p)
  %neg = f32[] constant(-inf)
  %nb = f32[5,3000] broadcast(%neg), dimensions={}
  %s1 = f32[5,3000] select(%both, %q, %nb)
  %s2 = f32[5,3000] select(%ne, %v, %s1)
  %e = f32[5,3000] exponential(%s2)
  %fi = f32[5,3000] iota(), iota_dimension=1
  %ef = f32[5,3000] add(%e, %fi)
  ROOT %n = f32[5,3000] negate(%ef)
}

%cmproot (a: s32[9000], b: s32[9000]) -> pred[9000] {
  %a = s32[9000] parameter(0)
  %b = s32[9000] parameter(1)
  %d = s32[9000] subtract(%a, %b)
  ROOT %g = pred[9000] compare(%d, %a), direction=GT
}

%selroot (p: pred[9000], a: u32[9000], b: u32[9000]) -> u32[9000] {
  %p = pred[9000] parameter(0)
  %a = u32[9000] parameter(1)
  %b = u32[9000] parameter(2)
  %x = u32[9000] xor(%a, %b)
  ROOT %s = u32[9000] select(%p, %a, %x)
}

ENTRY %main {
  %x = u32[3,4000] parameter(0)
  %k = u32[] parameter(1)
  %row = u32[4000] parameter(2)
  %q = f32[5,3000] parameter(3)
  %v = f32[5,3000] parameter(4)
  %p = pred[5,3000] parameter(5)
  %a = s32[9000] parameter(6)
  %b = s32[9000] parameter(7)
  %sp = pred[9000] parameter(8)
  %ua = u32[9000] parameter(9)
  %ub = u32[9000] parameter(10)
  %f = f32[3,4000] fusion(%x, %k, %row), kind=kLoop, calls=%rounds
  %g = f32[5,3000] fusion(%q, %v, %p), kind=kLoop, calls=%mask
  %h = pred[9000] fusion(%a, %b), kind=kLoop, calls=%cmproot
  %s = u32[9000] fusion(%sp, %ua, %ub), kind=kLoop, calls=%selroot
  ROOT %out = (f32[3,4000], f32[5,3000], pred[9000], u32[9000]) tuple(%f, %g, %h, %s)
}`
	fused := parseModule(t, src)
	for _, c := range fused.Computations[:4] {
		if p := planChunks(c); p == nil || !p.words {
			t.Fatalf("%s: no word chunk plan (%v)", c.Name, p)
		}
	}
	rng := rand.New(rand.NewPCG(33, 34))
	var args []Value
	for _, p := range fused.Entry.Params {
		if p.Shape.Elem == dtype.F32 {
			args = append(args, viewInput(t, rng, p.Shape.String()))
			continue
		}
		x := tensor.New(p.Shape.Elem, p.Shape.Dims)
		for i := range x.NumElements() {
			b := rng.Uint64()
			if p.Shape.Elem == dtype.PRED {
				b &= 1
			}
			x.SetBitsAt(i, b)
		}
		args = append(args, ArrayValue(x))
	}
	sameAsCalled(t, src, fused, args)
}

package interp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"octet/dtype"
	"octet/gemm"
	"octet/hlo"
	"octet/tensor"
)

// edgeBF16 are bf16 codes an elementwise chain must keep the bits of: zeros of both signs, infinities,
// quiet and signalling NaNs of both signs with payloads, subnormals, the smallest and largest normals,
// ones and values next to them.
var edgeBF16 = []uint16{0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0xffc0, 0x7f81, 0xff95, 0x7fff, 0xffa5, 0x0001,
	0x8001, 0x007f, 0x807f, 0x0080, 0x8080, 0x7f7f, 0xff7f, 0x3f80, 0xbf80, 0x3f81, 0x3fff, 0x4000, 0x4b00}

// edgeF32 are float32 values whose rounding to bf16 is an edge: ties to even both ways and just beside
// them, the largest finite values (which round up to infinity), a subnormal tie, NaNs whose payloads
// lie in the low half only or in both halves, infinities and zeros.
var edgeF32 = []uint32{0x3f808000, 0x3f818000, 0x3f807fff, 0x3f808001, 0xbf818000, 0x7f7fffff, 0xff7fffff,
	0x7f7f8000, 0x7f7f7fff, 0x00008000, 0x00018000, 0x80008000, 0x7f800001, 0xff800123, 0x7fa00000,
	0xffc12345, 0x7f800000, 0xff800000, 0x00000000, 0x80000000, 0x00000001, 0x4b000001}

// edgeInput returns an array of the shape text (bf16, f32, s32, u32 or pred) whose elements are drawn
// from the edges above, random bits (NaNs and subnormals among them), small integers (whose conversion to
// bf16 rounds to ties) and ordinary values.
func edgeInput(t *testing.T, rng *rand.Rand, text string) Value {
	s := parseShapeText(t, text)
	x := tensor.New(s.Elem, s.Dims)
	for i := range x.NumElements() {
		r := rng.IntN(8)
		var b uint64
		switch s.Elem {
		case dtype.BF16:
			switch {
			case r == 0:
				b = uint64(edgeBF16[rng.IntN(len(edgeBF16))])
			case r == 1:
				b = uint64(uint16(rng.Uint32()))
			default:
				b = dtype.BF16.EncodeFloat32(float32(rng.NormFloat64() * 3))
			}
		case dtype.F32:
			switch {
			case r == 0:
				b = uint64(edgeF32[rng.IntN(len(edgeF32))])
			case r == 1:
				b = uint64(rng.Uint32())
			default:
				b = uint64(math.Float32bits(float32(rng.NormFloat64() * 3)))
			}
		case dtype.PRED:
			b = uint64(rng.IntN(2))
		default:
			b = uint64(rng.Uint32())
			if r > 1 {
				b = uint64(uint32(int32(rng.IntN(2001) - 1000)))
			}
		}
		x.SetBitsAt(i, b)
	}
	return ArrayValue(x)
}

// bf16GroupCases are unfused bf16 programs as JAX writes them: a GELU in its tanh form, and the pieces
// of a softmax in mixed precision (converts to f32 around a reduction, back to bf16 after), a residual
// add with a bias row and a cast; a mask of compares and pred logic; a select of NaN payloads as a
// group's root (of a bf16 value converted to bf16, which keeps them).
var bf16GroupCases = []struct {
	name, src string
	groups    int
}{
	{"gelu", `HloModule gelu_bf16
ENTRY e {
  x = bf16[64,300] parameter(0)
  x2 = bf16[64,300] multiply(x, x)
  x3 = bf16[64,300] multiply(x2, x)
  c = bf16[] constant(0.044715)
  cb = bf16[64,300] broadcast(c), dimensions={}
  t = bf16[64,300] multiply(cb, x3)
  u = bf16[64,300] add(x, t)
  s = bf16[] constant(0.797884583)
  sb = bf16[64,300] broadcast(s), dimensions={}
  v = bf16[64,300] multiply(sb, u)
  th = bf16[64,300] tanh(v)
  one = bf16[] constant(1)
  ob = bf16[64,300] broadcast(one), dimensions={}
  w = bf16[64,300] add(ob, th)
  half = bf16[] constant(0.5)
  hb = bf16[64,300] broadcast(half), dimensions={}
  y = bf16[64,300] multiply(hb, w)
  ROOT r = bf16[64,300] multiply(x, y)
}`, 1},
	{"softmax", `HloModule softmax_bf16
max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = bf16[32,512] parameter(0)
  scale = bf16[] constant(0.125)
  sb = bf16[32,512] broadcast(scale), dimensions={}
  xs = bf16[32,512] multiply(x, sb)
  xf = f32[32,512] convert(xs)
  ninf = f32[] constant(-inf)
  mx = f32[32] reduce(xf, ninf), dimensions={1}, to_apply=max_f32
  mb = f32[32,512] broadcast(mx), dimensions={0}
  d = f32[32,512] subtract(xf, mb)
  ex = f32[32,512] exponential(d)
  zero = f32[] constant(0)
  sm = f32[32] reduce(ex, zero), dimensions={1}, to_apply=add_f32
  smb = f32[32,512] broadcast(sm), dimensions={0}
  p = f32[32,512] divide(ex, smb)
  ROOT pb = bf16[32,512] convert(p)
}`, 3}, // xf and ex are read by the reductions too: up to each, and from ex on
	{"residual", `HloModule residual_bf16
ENTRY e {
  x = bf16[40,256] parameter(0)
  res = bf16[40,256] parameter(1)
  bias = bf16[256] parameter(2)
  m = pred[40,256] parameter(3)
  bb = bf16[40,256] broadcast(bias), dimensions={1}
  a = bf16[40,256] add(x, bb)
  z = bf16[] constant(0)
  zb = bf16[40,256] broadcast(z), dimensions={}
  relu = bf16[40,256] maximum(a, zb)
  r = bf16[40,256] add(relu, res)
  f = f32[40,256] convert(r)
  sq = f32[40,256] multiply(f, f)
  back = bf16[40,256] convert(sq)
  nan = bf16[] constant(nan(0x1))
  nb = bf16[40,256] broadcast(nan), dimensions={}
  pick = bf16[40,256] select(m, nb, back)
  ROOT o = (bf16[40,256], f32[40,256]) tuple(pick, f)
}`, 2}, // f is read by the tuple too: the chain up to it, and the rest
	{"mask", `HloModule mask_bf16
ENTRY e {
  x = bf16[8000] parameter(0)
  y = bf16[8000] parameter(1)
  p = pred[8000] parameter(2)
  z = bf16[] constant(0)
  zb = bf16[8000] broadcast(z), dimensions={}
  a = pred[8000] compare(x, y), direction=LT
  b = pred[8000] compare(x, zb), direction=GE
  m1 = pred[8000] and(a, p)
  m2 = pred[8000] or(m1, b)
  m3 = pred[8000] xor(m2, a)
  m4 = pred[8000] not(m3)
  ROOT s = bf16[8000] select(m4, x, y)
}`, 1},
	{"select-root", `HloModule select_bf16
ENTRY e {
  x = bf16[8000] parameter(0)
  y = bf16[8000] parameter(1)
  c = pred[8000] compare(x, y), direction=NE
  n = bf16[8000] negate(y)
  cx = bf16[8000] convert(x)
  ROOT s = bf16[8000] select(c, cx, n)
}`, 1},
}

// TestElementGroupsBF16 runs the bf16 programs above with and without the grouping, on edge inputs,
// on one thread and two, with every gemm kernel (whose row loops are assembly or Go), and requires the
// same bits and the groups each expects.
func TestElementGroupsBF16(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	defer gemm.SetKernel(gemm.SetKernel(nil))
	for _, k := range gemm.Kernels() {
		gemm.SetKernel(k)
		for _, c := range bf16GroupCases {
			t.Run(k.Name()+"/"+c.name, func(t *testing.T) {
				m := parseModule(t, c.src)
				if got := countGroups(m); got != c.groups {
					t.Errorf("%d groups, want %d", got, c.groups)
				}
				var args []Value
				for _, p := range m.Entry.Params {
					args = append(args, edgeInput(t, rng, p.Shape.String()))
				}
				for _, threads := range []int{1, 2} {
					runGrouped(t, m, args, Options{Threads: threads})
				}
			})
		}
	}
}

// TestElementGroupsBF16Random writes random unfused programs over arrays of 51x99 elements (three chunks,
// the last of a length no vector loop divides) of bf16 values mixed with f32, s32, u32 and pred ones:
// bf16 and f32 arithmetic and functions, conversions among them (bf16 to f32 and back, integers to bf16,
// bf16 to bf16, and some without a word loop, which end a group), compares, selects, the logic of preds,
// clamps by scalar
// and by array bounds, broadcasts of constants (NaNs with payloads, the largest value, a subnormal), of
// rows and of columns (runs of one value cut by the chunks), reshapes and copies; runs them on edge inputs with the grouping on and off, and requires the
// same bits.
func TestElementGroupsBF16Random(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 54))
	types := []string{"bf16", "f32", "s32", "u32", "pred"}
	consts := []string{"nan", "-nan(0x3)", "nan(0x1)", "inf", "-inf", "-0", "0.5", "0.044715", "3.38e38", "1e-39", "1.0078125", "-3"}
	const shape = "[51,99]"
	made, programs := 0, 120
	if testing.Short() {
		programs = 60
	}
	for prog := 0; prog < programs; prog++ {
		var lines []string
		pool := map[string][]string{}
		bcast := map[string]bool{}
		add := func(ty, name, text string) {
			lines = append(lines, "  "+name+" = "+ty+shape+" "+text)
			pool[ty] = append(pool[ty], name)
			bcast[name] = strings.HasPrefix(text, "broadcast")
		}
		for i, ty := range types {
			add(ty, fmt.Sprintf("p%d", i), fmt.Sprintf("parameter(%d)", i))
		}
		lines = append(lines, "  lo = bf16[] parameter(5)", "  hi = bf16[] parameter(6)", "  row = bf16[99] parameter(7)",
			"  col = f32[51] parameter(8)")
		pick := func(ty string) string {
			l := pool[ty]
			if rng.IntN(3) > 0 {
				return l[len(l)-1-rng.IntN(min(3, len(l)))]
			}
			return l[rng.IntN(len(l))]
		}
		float := func() string { return []string{"bf16", "bf16", "f32"}[rng.IntN(3)] }
		for i := 0; i < 30; i++ {
			name := fmt.Sprintf("v%d", i)
			switch rng.IntN(12) {
			case 0, 1, 2:
				ops := []string{"add", "subtract", "multiply", "divide", "maximum", "minimum", "add", "multiply", "power"}
				ty := float()
				add(ty, name, fmt.Sprintf("%s(%s, %s)", ops[rng.IntN(len(ops))], pick(ty), pick(ty)))
			case 3, 4:
				ops := []string{"negate", "abs", "exponential", "tanh", "sqrt", "rsqrt", "log", "logistic", "floor", "sign", "cosine"}
				ty := float()
				add(ty, name, fmt.Sprintf("%s(%s)", ops[rng.IntN(len(ops))], pick(ty)))
			case 5, 6:
				conv := [][2]string{{"bf16", "f32"}, {"f32", "bf16"}, {"bf16", "f32"}, {"f32", "bf16"}, {"s32", "bf16"},
					{"u32", "bf16"}, {"bf16", "bf16"}, {"bf16", "s32"}, {"pred", "bf16"}, {"s32", "f32"}}[rng.IntN(10)]
				add(conv[1], name, fmt.Sprintf("convert(%s)", pick(conv[0])))
			case 7:
				ty := float()
				dirs := []string{"EQ", "NE", "LT", "LE", "GT", "GE"}
				extra := ""
				if rng.IntN(8) == 0 {
					extra = ", type=TOTALORDER" // no word loop: ends a group
				}
				add("pred", name, fmt.Sprintf("compare(%s, %s), direction=%s%s", pick(ty), pick(ty), dirs[rng.IntN(len(dirs))], extra))
			case 8:
				ty := []string{"bf16", "bf16", "f32", "pred"}[rng.IntN(4)]
				add(ty, name, fmt.Sprintf("select(%s, %s, %s)", pick("pred"), pick(ty), pick(ty)))
				if rng.IntN(2) == 0 {
					op := []string{"and", "or", "xor"}[rng.IntN(3)]
					add("pred", name+".l", fmt.Sprintf("%s(%s, %s)", op, pick("pred"), pick("pred")))
					add("pred", name+".n", fmt.Sprintf("not(%s)", pick("pred")))
				}
			case 9:
				// Scalar bounds, but not of a broadcast: evaluated alone, such a clamp reads the
				// broadcast as a view, which refuses scalar bounds (evalViews).
				if x := pick("bf16"); rng.IntN(2) == 0 && !bcast[x] {
					add("bf16", name, fmt.Sprintf("clamp(lo, %s, hi)", x))
				} else {
					add("bf16", name, fmt.Sprintf("clamp(%s, %s, %s)", pick("bf16"), pick("bf16"), pick("bf16")))
				}
			case 10:
				c := fmt.Sprintf("c%d", i)
				switch rng.IntN(4) {
				case 0:
					lines = append(lines, fmt.Sprintf("  %s = bf16[] constant(%s)", c, consts[rng.IntN(len(consts))]))
					add("bf16", name, fmt.Sprintf("broadcast(%s), dimensions={}", c))
				case 1:
					add("bf16", name, "broadcast(row), dimensions={1}")
				case 2:
					// Runs of 99 equal values, which the chunks cut.
					lines = append(lines, fmt.Sprintf("  %s = bf16[51] convert(col)", c))
					add("bf16", name, fmt.Sprintf("broadcast(%s), dimensions={0}", c))
				default:
					lines = append(lines, fmt.Sprintf("  %s = f32[] constant(%s)", c, consts[rng.IntN(len(consts))]))
					add("f32", name, fmt.Sprintf("broadcast(%s), dimensions={}", c))
				}
			case 11:
				x := pick("bf16")
				if rng.IntN(2) == 0 {
					lines = append(lines, fmt.Sprintf("  %s.t = bf16[99,51] reshape(%s)", name, x))
					add("bf16", name, fmt.Sprintf("reshape(%s.t)", name))
				} else {
					add("bf16", name, fmt.Sprintf("copy(%s)", x))
				}
			}
		}
		var outs, shapes []string
		for _, ty := range types {
			l := pool[ty]
			for _, v := range []string{l[len(l)-1], l[rng.IntN(len(l))]} {
				outs, shapes = append(outs, v), append(shapes, ty+shape)
			}
		}
		src := "HloModule random_bf16\n\nENTRY e {\n" + strings.Join(lines, "\n") +
			fmt.Sprintf("\n  ROOT out = (%s) tuple(%s)\n}\n", strings.Join(shapes, ", "), strings.Join(outs, ", "))
		m := parseModule(t, src)
		made += countBF16Groups(m)
		var args []Value
		for _, p := range m.Entry.Params {
			args = append(args, edgeInput(t, rng, p.Shape.String()))
		}
		runGrouped(t, m, args, Options{Threads: 1 + prog%2})
	}
	if made < programs {
		t.Errorf("only %d groups with bf16 values in %d programs", made, programs)
	}
	t.Logf("%d groups with bf16 values in %d programs", made, programs)
}

// countBF16Groups counts the groups of m whose fusions hold a bf16 value.
func countBF16Groups(m *hlo.Module) int {
	e := &evaluator{mod: m, comps: map[*hlo.Computation]*compiled{}}
	n := 0
	for _, c := range m.Computations {
		for _, f := range e.compile(c).fused {
			if f == nil || f.Opcode != hlo.OpFusion {
				continue
			}
			for _, in := range f.CalledComputation("calls").Instructions {
				if in.Shape.IsArray() && in.Shape.Elem == dtype.BF16 {
					n++
					break
				}
			}
		}
	}
	return n
}

// TestFusionChunksBF16 evaluates the bf16 fusion of TestFusionChunks (converts from f32 and back, a bf16
// row broadcast, tanh, a multiply, a bf16 root) and a bf16 fusion whose root selects NaN payloads, chunk
// by chunk through wordChunks, on edge inputs, and compares every bit with the same computations called
// and evaluated instruction by instruction.
func TestFusionChunksBF16(t *testing.T) {
	withoutGroups(t)
	const src = `HloModule fused_bf16

%ew (x: f32[3,50,70], b: bf16[70], h: bf16[3,50,70], p: pred[3,50,70], lo: bf16[], hi: bf16[]) -> (bf16[3,50,70]) {
  %x = f32[3,50,70] parameter(0)
  %b = bf16[70] parameter(1)
  %h = bf16[3,50,70] parameter(2)
  %p = pred[3,50,70] parameter(3)
  %lo = bf16[] parameter(4)
  %hi = bf16[] parameter(5)
  %bb = bf16[3,50,70] broadcast(%b), dimensions={2}
  %xb = bf16[3,50,70] convert(%x)
  %m = bf16[3,50,70] multiply(%xb, %bb)
  %t = bf16[3,50,70] tanh(%m)
  %c = bf16[3,50,70] clamp(%lo, %t, %hi)
  %tf = f32[3,50,70] convert(%c)
  %hf = f32[3,50,70] convert(%h)
  %a = f32[3,50,70] add(%tf, %hf)
  %ab = bf16[3,50,70] convert(%a)
  ROOT %s = bf16[3,50,70] select(%p, %h, %ab)
}

ENTRY %main {
  %x = f32[3,50,70] parameter(0)
  %b = bf16[70] parameter(1)
  %h = bf16[3,50,70] parameter(2)
  %p = pred[3,50,70] parameter(3)
  %lo = bf16[] parameter(4)
  %hi = bf16[] parameter(5)
  ROOT %f = bf16[3,50,70] fusion(%x, %b, %h, %p, %lo, %hi), kind=kLoop, calls=%ew
}`
	rng := rand.New(rand.NewPCG(55, 56))
	for _, text := range []string{src, strings.Replace(fusionChunksSrc, "  %c = s32[10000] constant({...})\n", "", 1)} {
		fused := parseModule(t, text)
		if p := planChunks(fused.Computations[0]); p == nil || !p.words {
			t.Fatalf("%s: no word chunk plan", fused.Computations[0].Name)
		}
		for range 3 {
			var args []Value
			for _, p := range fused.Entry.Params {
				args = append(args, edgeInput(t, rng, p.Shape.String()))
			}
			sameAsCalled(t, text, fused, args)
		}
	}
}

package interp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"octet/hlo"
	"octet/hlo/parser"
	"octet/tensor"
)

// viewCases are programs whose broadcasts are read as views: a bias over the last dimension (NHWC), a
// scale over the second (NCHW: each element repeated over the spatial positions), over a dimension of one
// element and the next, scalars (a ReLU's zero, a ReLU6's bounds), a period longer than a chunk, as
// either operand, in bf16 and f32.
var viewCases = []struct {
	name, body string
	params     []string // the parameters' shapes
}{
	{"nhwc-bias", `
  b = f32[2,9,7,48] broadcast(p1), dimensions={3}
  ROOT r = f32[2,9,7,48] add(p0, b)`, []string{"f32[2,9,7,48]", "f32[48]"}},
	{"nchw-scale", `
  s = f32[2,48,9,7] broadcast(p1), dimensions={1}
  ROOT r = f32[2,48,9,7] multiply(s, p0)`, []string{"f32[2,48,9,7]", "f32[48]"}},
	{"unit-dimensions", `
  b = f32[1,64,5,1,33] broadcast(p1), dimensions={0,3,4}
  ROOT r = f32[1,64,5,1,33] subtract(p0, b)`, []string{"f32[1,64,5,1,33]", "f32[1,1,33]"}},
	{"two-dimensions", `
  b = f32[3,20,30,4] broadcast(p1), dimensions={1,2}
  ROOT r = f32[3,20,30,4] divide(p0, b)`, []string{"f32[3,20,30,4]", "f32[20,30]"}},
	{"long-period", `
  b = f32[3,5000] broadcast(p1), dimensions={1}
  c = f32[3,5000] broadcast(p2), dimensions={0}
  m = f32[3,5000] maximum(b, p0)
  ROOT r = f32[3,5000] minimum(m, c)`, []string{"f32[3,5000]", "f32[5000]", "f32[3]"}},
	{"relu", `
  z = f32[] constant(0)
  zb = f32[4,33,65] broadcast(z), dimensions={}
  ROOT r = f32[4,33,65] maximum(p0, zb)`, []string{"f32[4,33,65]"}},
	{"relu6-bf16", `
  lo = bf16[] constant(0)
  hi = bf16[] constant(6)
  lb = bf16[8,40,40] broadcast(lo), dimensions={}
  hb = bf16[8,40,40] broadcast(hi), dimensions={}
  ROOT r = bf16[8,40,40] clamp(lb, p0, hb)`, []string{"bf16[8,40,40]"}},
	{"clamp-f32-rows", `
  lb = f32[6,700] broadcast(p1), dimensions={1}
  hb = f32[6,700] broadcast(p2), dimensions={0}
  ROOT r = f32[6,700] clamp(lb, p0, hb)`, []string{"f32[6,700]", "f32[700]", "f32[6]"}},
	// Scalar bounds, which a clamp reads as broadcast, around a broadcast read as a view (a valid
	// program the views refused: "operand 0 is f32[]").
	{"clamp-scalar-bounds", `
  x = f32[51,99] broadcast(p1), dimensions={1}
  ROOT r = f32[51,99] clamp(p0, x, p2)`, []string{"f32[]", "f32[99]", "f32[]"}},
	{"clamp-scalar-low", `
  x = bf16[40,70] broadcast(p1), dimensions={0}
  hb = bf16[40,70] broadcast(p2), dimensions={1}
  ROOT r = bf16[40,70] clamp(p0, x, hb)`, []string{"bf16[]", "bf16[40]", "bf16[70]"}},
	{"threefry-u32", `
  k = u32[] constant(466688986)
  kb = u32[3,70000] broadcast(k), dimensions={}
  c13 = u32[] constant(13)
  b13 = u32[3,70000] broadcast(c13), dimensions={}
  c19 = u32[] constant(19)
  b19 = u32[3,70000] broadcast(c19), dimensions={}
  pb = u32[3,70000] broadcast(p1), dimensions={}
  a = u32[3,70000] add(p0, kb)
  l = u32[3,70000] shift-left(a, b13)
  rr = u32[3,70000] shift-right-logical(a, b19)
  o = u32[3,70000] or(l, rr)
  x = u32[3,70000] xor(pb, o)
  m = u32[3,70000] multiply(x, pb)
  ROOT r = u32[3,70000] subtract(kb, m)`, []string{"u32[3,70000]", "u32[]"}},
	{"shifts-s32", `
  pb = s32[5,30000] broadcast(p1), dimensions={}
  c = s32[] constant(-3)
  cb = s32[5,30000] broadcast(c), dimensions={}
  a = s32[5,30000] shift-right-arithmetic(p0, pb)
  l = s32[5,30000] shift-left(cb, pb)
  x = s32[5,30000] maximum(a, l)
  ROOT r = s32[5,30000] minimum(cb, x)`, []string{"s32[5,30000]", "s32[]"}},
	{"batch-norm-bf16", `
  m = bf16[2,17,17,96] broadcast(p1), dimensions={3}
  s = bf16[2,17,17,96] broadcast(p2), dimensions={3}
  d = bf16[2,17,17,96] subtract(p0, m)
  ROOT r = bf16[2,17,17,96] multiply(d, s)`, []string{"bf16[2,17,17,96]", "bf16[96]", "bf16[96]"}},
}

// viewInput returns an array of the shape of text with values that elementwise arithmetic must get right
// (signed zeros, infinities, NaNs, subnormals, ties of bf16 rounding) among ordinary ones.
func viewInput(t *testing.T, rng *rand.Rand, text string) Value {
	s := parseShapeText(t, text)
	x := tensor.New(s.Elem, s.Dims)
	if !s.Elem.IsFloat() {
		// Integers: random bits, or a shift amount about the width (below, at and past it) for a scalar.
		for i := range x.NumElements() {
			x.SetBitsAt(i, rng.Uint64())
			if len(s.Dims) == 0 {
				x.SetBitsAt(i, uint64(rng.IntN(3)+31))
			}
		}
		return ArrayValue(x)
	}
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), -float32(math.NaN()), 1e-40, -1e-42, 6, 1 + 1.0/256}
	for i := range x.NumElements() {
		v := float32(rng.NormFloat64() * 4)
		if rng.IntN(6) == 0 {
			v = specials[rng.IntN(len(specials))]
		}
		x.SetBitsAt(i, s.Elem.EncodeFloat32(v))
	}
	return ArrayValue(x)
}

// TestBroadcastViews runs programs whose broadcasts are read as views, and the same programs with every
// broadcast in the root tuple too (so laid out in memory, as any broadcast a later instruction reads as a
// whole), and requires the same bits of every result, NaNs included.
func TestBroadcastViews(t *testing.T) {
	withoutGroups(t) // a group reads its broadcasts as steps of its own
	rng := rand.New(rand.NewPCG(21, 22))
	for _, c := range viewCases {
		t.Run(c.name, func(t *testing.T) {
			var params []string
			for i, p := range c.params {
				params = append(params, fmt.Sprintf("  p%d = %s parameter(%d)", i, p, i))
			}
			src := "HloModule views\n\nENTRY e {\n" + strings.Join(params, "\n") + c.body + "\n}\n"
			m := parseModule(t, src)
			var bcasts []string
			root := m.Entry.Root
			for _, in := range m.Entry.Instructions {
				if in.Opcode == hlo.OpBroadcast {
					bcasts = append(bcasts, in.Shape.String()+" "+in.Name)
				}
			}
			e := &evaluator{comps: map[*hlo.Computation]*compiled{}}
			if k := e.compile(m.Entry); k.views == nil {
				t.Fatalf("no broadcast of %s is read as a view", c.name)
			}
			// The same program with the broadcasts laid out: the root tuple holds them.
			laid := strings.Replace(src, "ROOT r = ", "r = ", 1)
			laid = strings.TrimSuffix(strings.TrimSpace(laid), "}") + fmt.Sprintf("  ROOT t = (%s, %s) tuple(r, %s)\n}\n",
				root.Shape.String(), strings.Join(shapesOf(bcasts), ", "), strings.Join(namesOf(bcasts), ", "))
			ml := parseModule(t, laid)
			if k := e.compile(ml.Entry); k.views != nil {
				t.Fatalf("%s: broadcasts in the root are read as views", c.name)
			}
			var args []Value
			for _, p := range c.params {
				args = append(args, viewInput(t, rng, p))
			}
			for _, threads := range []int{1, 2} {
				got, err := Run(m, args, Options{Threads: threads})
				if err != nil {
					t.Fatal(err)
				}
				want, err := Run(ml, args, Options{Threads: threads})
				if err != nil {
					t.Fatal(err)
				}
				g, w := got.Array, want.Tuple[0].Array
				for i := range g.NumElements() {
					if g.BitsAt(i) != w.BitsAt(i) {
						t.Fatalf("%s, %d threads: element %d is %#x, laid out %#x", c.name, threads, i, g.BitsAt(i), w.BitsAt(i))
					}
				}
			}
		})
	}
}

func shapesOf(decls []string) []string {
	var s []string
	for _, d := range decls {
		s = append(s, strings.Fields(d)[0])
	}
	return s
}

func namesOf(decls []string) []string {
	var s []string
	for _, d := range decls {
		s = append(s, strings.Fields(d)[1])
	}
	return s
}

// TestViewOf checks the index maps of broadcasts: the period and the repeats of each element, and the
// broadcasts that are not read as views (their dimensions interleaved with the result's, or transposed).
func TestViewOf(t *testing.T) {
	for _, c := range []struct {
		operand, result, dims string
		p, q                  int64 // 0: not a view
	}{
		{"f32[]", "f32[4,5]", "{}", 1, 1},
		{"f32[5]", "f32[4,5]", "{1}", 5, 1},
		{"f32[4]", "f32[4,5]", "{0}", 4, 5},
		{"f32[1,5]", "f32[1,7,7,5]", "{0,3}", 5, 1},
		{"f32[7,7]", "f32[2,7,7,5]", "{1,2}", 49, 5},
		{"f32[7,1,7]", "f32[2,7,1,7,5]", "{1,2,3}", 49, 5},
		{"f32[2,5]", "f32[2,7,5]", "{0,2}", 0, 0}, // the result's dimension 1 between them
		{"f32[5,4]", "f32[4,5]", "{1,0}", 0, 0},   // transposed
		{"f32[3]", "f32[4,5]", "{1}", 0, 0},       // sizes differ
		{"f32[0]", "f32[2,0]", "{1}", 0, 0},       // no element to repeat
		{"f32[0,5]", "f32[0,3,5]", "{0,2}", 0, 0},
	} {
		src := fmt.Sprintf("HloModule v\n\nENTRY e {\n  x = %s parameter(0)\n  ROOT b = %s broadcast(x), dimensions=%s\n}\n", c.operand, c.result, c.dims)
		m, err := parser.ParseString("test.hlo", src)
		if err != nil {
			if c.p == 0 {
				continue // refused before evaluation
			}
			t.Fatalf("%s: %v", src, err)
		}
		v := viewOf(m.Entry.Root)
		switch {
		case c.p == 0 && v != nil:
			t.Errorf("broadcast of %s to %s with %s: view %+v, want none", c.operand, c.result, c.dims, *v)
		case c.p != 0 && (v == nil || v.p != c.p || v.q != c.q):
			t.Errorf("broadcast of %s to %s with %s: view %+v, want p=%d q=%d", c.operand, c.result, c.dims, v, c.p, c.q)
		}
	}
}

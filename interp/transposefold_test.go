package interp

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"octet/hlo"
	"octet/tensor"
)

// countFolds counts the dots of m that would read a transpose's operand in its place.
func countFolds(m *hlo.Module) int { return countFused(m, hlo.OpDot) }

// countFused counts the instructions of m that would run as a group's fusion of opcode op: a dot with
// transposes folded into it, a reduce with a conversion.
func countFused(m *hlo.Module, op hlo.Opcode) int {
	e := &evaluator{mod: m, comps: map[*hlo.Computation]*compiled{}}
	n := 0
	for _, c := range m.Computations {
		for _, f := range e.compile(c).fused {
			if f != nil && f.Opcode == op {
				n++
			}
		}
	}
	return n
}

// runFolded runs m on args with the folding off and on and requires the same bits, or the same error.
func runFolded(t *testing.T, m *hlo.Module, args []Value, opts Options) (Value, error) {
	t.Helper()
	return runBothWays(t, m, args, opts, &transposeFolding, "folded gives", "transposed first")
}

// normalInput is an array of shape text with values from the normal distribution rounded to its type
// (dots of the specials viewInput mixes in would give NaN almost everywhere).
func normalInput(t *testing.T, rng *rand.Rand, text string) Value {
	s := parseShapeText(t, text)
	x := tensor.New(s.Elem, s.Dims)
	for i := range x.NumElements() {
		x.SetBitsAt(i, s.Elem.EncodeFloat32(float32(rng.NormFloat64())))
	}
	return ArrayValue(x)
}

// foldCases are dots reading transposes, with the number of dots that fold them: a logits product as
// Gemma's (bf16 activations by a transposed embedding), both operands transposed, batch dimensions moved
// by the transpose, one transpose read by two dots, and the transposes that must stay: read by an add
// too, reordering the free dimensions, leaving an operand gemm would have to copy anyway, of a dot whose
// result is f64, and too small to matter.
var foldCases = []struct {
	name, src string
	folds     int
}{
	{"logits", `HloModule logits
ENTRY e {
  x = bf16[3,96] parameter(0)
  w = bf16[4000,96] parameter(1)
  t = bf16[96,4000]{0,1} transpose(w), dimensions={1,0}
  ROOT d = bf16[3,4000] dot(x, t), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`, 1},
	{"both", `HloModule both
ENTRY e {
  a = f32[64,90] parameter(0)
  b = f32[100,64] parameter(1)
  ta = f32[90,64] transpose(a), dimensions={1,0}
  tb = f32[64,100] transpose(b), dimensions={1,0}
  d = f32[90,100] dot(ta, tb), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT n = f32[90,100] negate(d)
}`, 1},
	{"batch", `HloModule batch
ENTRY e {
  a = f32[8,20,70] parameter(0)
  b = f32[8,30,70] parameter(1)
  tb = f32[8,70,30] transpose(b), dimensions={0,2,1}
  ROOT d = f32[8,20,30] dot(a, tb), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
}`, 1},
	{"two contracting", `HloModule two
ENTRY e {
  a = f32[5,12,40] parameter(0)
  b = f32[50,12,40] parameter(1)
  tb = f32[12,40,50] transpose(b), dimensions={1,2,0}
  ROOT d = f32[5,50] dot(a, tb), lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}
}`, 1},
	{"shared", `HloModule shared
ENTRY e {
  x = f16[4,128] parameter(0)
  y = f16[6,128] parameter(1)
  w = f16[80,128] parameter(2)
  t = f16[128,80] transpose(w), dimensions={1,0}
  d1 = f32[4,80] dot(x, t), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  d2 = f32[6,80] dot(y, t), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = (f32[4,80], f32[6,80]) tuple(d1, d2)
}`, 2},
	{"read by an add too", `HloModule add
ENTRY e {
  x = f32[4,128] parameter(0)
  w = f32[80,128] parameter(1)
  t = f32[128,80] transpose(w), dimensions={1,0}
  d = f32[4,80] dot(x, t), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  s = f32[128,80] add(t, t)
  ROOT r = (f32[4,80], f32[128,80]) tuple(d, s)
}`, 0},
	{"free dimensions reordered", `HloModule free
ENTRY e {
  x = f32[4,16] parameter(0)
  w = f32[30,16,20] parameter(1)
  t = f32[16,20,30] transpose(w), dimensions={1,2,0}
  ROOT d = f32[4,20,30] dot(x, t), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`, 0},
	{"copied anyway", `HloModule copied
ENTRY e {
  x = f32[4,16] parameter(0)
  w = f32[20,16,30] parameter(1)
  t = f32[16,20,30] transpose(w), dimensions={1,0,2}
  ROOT d = f32[4,20,30] dot(x, t), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`, 0},
	{"f64", `HloModule f64
ENTRY e {
  x = f64[4,128] parameter(0)
  w = f64[80,128] parameter(1)
  t = f64[128,80] transpose(w), dimensions={1,0}
  ROOT d = f64[4,80] dot(x, t), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`, 0},
	{"small", `HloModule small
ENTRY e {
  x = f32[4,8] parameter(0)
  w = f32[8,8] parameter(1)
  t = f32[8,8] transpose(w), dimensions={1,0}
  ROOT d = f32[4,8] dot(x, t), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`, 0},
}

// TestTransposeFolds runs each case with and without the folding (same bits) and checks the folds the
// cases expect, that a profile counts a folded dot as the dot with its FLOPs and the transpose not at
// all, and that Intercept, which must see every instruction, turns the folding off.
func TestTransposeFolds(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	for _, c := range foldCases {
		t.Run(c.name, func(t *testing.T) {
			m := parseModule(t, c.src)
			if got := countFolds(m); got != c.folds {
				t.Errorf("%d folds, want %d", got, c.folds)
			}
			var args []Value
			for _, p := range m.Entry.Params {
				args = append(args, normalInput(t, rng, p.Shape.String()))
			}
			for _, threads := range []int{1, 2} {
				runFolded(t, m, args, Options{Threads: threads})
			}
		})
	}
	m := parseModule(t, foldCases[0].src)
	args := []Value{normalInput(t, rng, "bf16[3,96]"), normalInput(t, rng, "bf16[4000,96]")}
	p := NewProfile()
	if _, err := Run(m, args, Options{Profile: p}); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range p.Stats() {
		names = append(names, s.Inst.Name)
		if s.Inst.Name == "d" && (s.Inst != m.Entry.Root || s.FLOPs != 2*3*96*4000) {
			t.Errorf("profile counts the folded dot as %v with %d FLOPs, want the module's d with %d", s.Inst, s.FLOPs, 2*3*96*4000)
		}
	}
	if !slices.Contains(names, "d") || slices.Contains(names, "t") {
		t.Errorf("profiled instructions %v, want d and not the folded transpose t", names)
	}
	interceptSeesEvery(t, m, args)
}

// dotSide lays out one side of a random dot: its batch dimensions (of sizes bs), one or two free ones
// (free gives each's size, told how many there are) and its contracting ones (of sizes ks), in a random
// order. It returns the side's dimensions, where its batch and contracting ones are, and the free ones'
// sizes.
func dotSide(rng *rand.Rand, bs, ks []int64, free func(n int) int64) (dims, bd, cd, frees []int64) {
	kinds := []int{}
	for range bs {
		kinds = append(kinds, 0)
	}
	nfree := 1 + rng.IntN(2)
	for range nfree {
		kinds = append(kinds, 1)
	}
	for range ks {
		kinds = append(kinds, 2)
	}
	rng.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
	bi, ci := 0, 0
	bd, cd = make([]int64, len(bs)), make([]int64, len(ks))
	for i, kd := range kinds {
		switch kd {
		case 0:
			dims = append(dims, bs[bi])
			bd[bi] = int64(i)
			bi++
		case 1:
			f := free(nfree)
			dims = append(dims, f)
			frees = append(frees, f)
		case 2:
			dims = append(dims, ks[ci])
			cd[ci] = int64(i)
			ci++
		}
	}
	return dims, bd, cd, frees
}

// TestTransposeFoldsRandom writes dots of random dimension numbers whose operands are random transposes
// of parameters (of f32, bf16, f16 and f8e4m3fn, with f32 or bf16 results), and requires the same bits
// with the folding on and off.
func TestTransposeFoldsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 54))
	types := []string{"f32", "bf16", "f16", "f8e4m3fn"}
	folded, programs := 0, 0
	for prog := 0; prog < 200; prog++ {
		// Dimensions: up to one batch, one or two contracting, one or two free on each side, the operands
		// from about a thousand to twenty thousand elements (folding starts at 4096).
		batch := rng.IntN(2)
		contract := 1 + rng.IntN(2)
		var bs, ks []int64
		for range batch {
			bs = append(bs, int64(2+rng.IntN(2)))
		}
		for range contract {
			if contract == 1 {
				ks = append(ks, int64(40+8*rng.IntN(8)))
			} else {
				ks = append(ks, int64(6+rng.IntN(7)))
			}
		}
		free := func(n int) int64 {
			if n == 1 {
				return int64(32 + 8*rng.IntN(12))
			}
			return int64(6 + rng.IntN(8))
		}
		side := func() (dims []int64, bd, cd []int64) {
			// The side's logical dimensions before the transpose.
			dims, bd, cd, _ = dotSide(rng, bs, ks, free)
			return dims, bd, cd
		}
		ld, lb, lc := side()
		rd, rb, rc := side()
		ty := types[rng.IntN(len(types))]
		out := []string{"f32", "bf16"}[rng.IntN(2)]
		var lines []string
		operand := func(name string, num int, dims []int64) string {
			perm := rng.Perm(len(dims))
			src := make([]int64, len(dims))
			for i, p := range perm {
				src[p] = dims[i]
			}
			lines = append(lines, fmt.Sprintf("  %s.p = %s%s parameter(%d)", name, ty, dimsText(src), num))
			if rng.IntN(5) == 0 {
				// Now and then an operand read directly, or a transpose also read by a negate.
				lines[len(lines)-1] = fmt.Sprintf("  %s = %s%s parameter(%d)", name, ty, dimsText(dims), num)
				return ""
			}
			lines = append(lines, fmt.Sprintf("  %s = %s%s transpose(%s.p), dimensions={%s}", name, ty, dimsText(dims), name, joinInts(perm)))
			if rng.IntN(6) == 0 {
				lines = append(lines, fmt.Sprintf("  %s.n = %s%s negate(%s)", name, ty, dimsText(dims), name))
				return name + ".n"
			}
			return ""
		}
		extraL := operand("l", 0, ld)
		extraR := operand("r", 1, rd)
		var od []int64
		od = append(od, bs...)
		for i, d := range ld {
			if !slices.Contains(lb, int64(i)) && !slices.Contains(lc, int64(i)) {
				od = append(od, d)
			}
		}
		for i, d := range rd {
			if !slices.Contains(rb, int64(i)) && !slices.Contains(rc, int64(i)) {
				od = append(od, d)
			}
		}
		dot := fmt.Sprintf("  d = %s%s dot(l, r), lhs_contracting_dims={%s}, rhs_contracting_dims={%s}", out, dimsText(od), joinInts64(lc), joinInts64(rc))
		if batch > 0 {
			dot += fmt.Sprintf(", lhs_batch_dims={%s}, rhs_batch_dims={%s}", joinInts64(lb), joinInts64(rb))
		}
		lines = append(lines, dot)
		results, shapes := []string{"d"}, []string{out + dimsText(od)}
		for _, x := range []string{extraL, extraR} {
			if x != "" {
				results = append(results, x)
				shapes = append(shapes, ty+dimsText(map[string][]int64{"l.n": ld, "r.n": rd}[x]))
			}
		}
		lines = append(lines, fmt.Sprintf("  ROOT root = (%s) tuple(%s)", strings.Join(shapes, ", "), strings.Join(results, ", ")))
		src := "HloModule random\nENTRY e {\n" + strings.Join(lines, "\n") + "\n}\n"
		m := parseModule(t, src)
		folded += countFolds(m)
		programs++
		var args []Value
		for _, p := range m.Entry.Params {
			args = append(args, normalInput(t, rng, p.Shape.String()))
		}
		runFolded(t, m, args, Options{Threads: 1 + rng.IntN(2)})
	}
	t.Logf("%d random programs, %d dots read transposes' operands", programs, folded)
	if folded < programs/5 {
		t.Errorf("only %d of %d programs folded a transpose: the test no longer exercises the folding", folded, programs)
	}
}

func dimsText(dims []int64) string { return "[" + joinInts64(dims) + "]" }

func joinInts64(xs []int64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}

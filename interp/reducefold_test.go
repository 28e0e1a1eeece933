package interp

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"octet/hlo"
)

// countConvertFolds counts the reduces of m that would read a conversion's operand in its place.
func countConvertFolds(m *hlo.Module) int { return countFused(m, hlo.OpReduce) }

// reducers are reduce computations of f32: the plain ones the float32 folds run (add, maximum, minimum,
// multiply) and one the scalar program runs (a clamped add), which takes its inputs converted first.
var reducers = map[string]string{
	"add":      "add(a, b)",
	"maximum":  "maximum(a, b)",
	"minimum":  "minimum(a, b)",
	"multiply": "multiply(a, b)",
	"clamped":  "minimum(f32[] add(a, b), f32[] constant(1e30))",
}

// TestConvertFoldsRandom writes reduces of random dimensions and reducers over conversions to f32 of
// parameters of bf16, f16, f8e4m3fn, f8e5m2 and f4e2m1fn (values of every kind, NaNs, zeros of both
// signs, infinities, subnormals among them), a conversion read by one or two reduces and now and then by
// an add too (which keeps it), and requires the same bits with the folding on and off, and the folds
// where they are due.
func TestConvertFoldsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	types := []string{"bf16", "f16", "f8e4m3fn", "f8e5m2", "f4e2m1fn"}
	names := []string{"add", "maximum", "minimum", "multiply", "clamped"}
	folded, programs := 0, 0
	for prog := 0; prog < 150; prog++ {
		rank := 1 + rng.IntN(3)
		dims := make([]int64, rank)
		for i := range dims {
			dims[i] = int64(1 + rng.IntN(40))
		}
		if rng.IntN(2) == 0 {
			dims[rank-1] = int64(300 + rng.IntN(5000)) // long rows, cut into blocks past 4096
		}
		ty := types[rng.IntN(len(types))]
		var comps, lines, results, shapes []string
		lines = append(lines, fmt.Sprintf("  x = %s%s parameter(0)", ty, dimsText(dims)),
			fmt.Sprintf("  c = f32%s convert(x)", dimsText(dims)))
		users := 1 + rng.IntN(2)
		for u := range users {
			name := names[rng.IntN(len(names))]
			comps = append(comps, fmt.Sprintf("r%d {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] %s\n}\n", u, reducers[name]))
			var red []int
			var kept []int64
			for d := range rank {
				if rng.IntN(2) == 0 {
					red = append(red, d)
				} else {
					kept = append(kept, dims[d])
				}
			}
			if len(red) == 0 {
				red = []int{rank - 1}
				kept = kept[:len(kept)-1]
			}
			init := []string{"0", "-inf", "inf", "1", "0"}[slices.Index(names, name)]
			lines = append(lines, fmt.Sprintf("  i%d = f32[] constant(%s)", u, init),
				fmt.Sprintf("  s%d = f32%s reduce(c, i%d), dimensions={%s}, to_apply=r%d", u, dimsText(kept), u, joinInts(red), u))
			results, shapes = append(results, fmt.Sprintf("s%d", u)), append(shapes, "f32"+dimsText(kept))
		}
		other := rng.IntN(6) == 0
		if other {
			lines = append(lines, fmt.Sprintf("  o = f32%s add(c, c)", dimsText(dims)))
			results, shapes = append(results, "o"), append(shapes, "f32"+dimsText(dims))
		}
		lines = append(lines, fmt.Sprintf("  ROOT root = (%s) tuple(%s)", strings.Join(shapes, ", "), strings.Join(results, ", ")))
		src := "HloModule random\n" + strings.Join(comps, "") + "ENTRY e {\n" + strings.Join(lines, "\n") + "\n}\n"
		m := parseModule(t, src)
		n := countConvertFolds(m)
		want := users
		if other || product(dims) < chunkElements {
			want = 0
		}
		if n != want {
			t.Fatalf("%d folds, want %d:\n%s", n, want, src)
		}
		folded += n
		programs++
		args := []Value{viewInput(t, rng, m.Entry.Params[0].Shape.String())}
		runBothWays(t, m, args, Options{Threads: 1 + rng.IntN(2)}, &convertFolding, "folded gives", "converted first")
	}
	t.Logf("%d random programs, %d reduces read conversions' operands", programs, folded)
	if folded < programs/2 {
		t.Errorf("only %d folds in %d programs: the test no longer exercises the folding", folded, programs)
	}
}

// TestMixedPrecisionReduce runs reduces written with inputs of a narrower float type than their
// accumulator (which XLA's verifier admits) against the same reduces of the inputs converted first, with
// a plain and a computing reducer, rows and columns; and checks that a profile counts a folded reduce as
// the module's reduce and Intercept, which must see every instruction, turns the folding off.
func TestMixedPrecisionReduce(t *testing.T) {
	rng := rand.New(rand.NewPCG(63, 64))
	for _, name := range []string{"add", "clamped"} {
		for _, dims := range []string{"1", "0", "0,1"} {
			mixed := fmt.Sprintf("HloModule mixed\nr {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] %s\n}\n"+
				"ENTRY e {\n  x = bf16[64,300] parameter(0)\n  z = f32[] constant(0)\n  ROOT s = f32[%s] reduce(x, z), dimensions={%s}, to_apply=r\n}\n",
				reducers[name], map[string]string{"1": "64", "0": "300", "0,1": ""}[dims], dims)
			converted := strings.Replace(strings.Replace(mixed, "reduce(x, z)", "reduce(c, z)", 1),
				"  z = f32[] constant(0)", "  c = f32[64,300] convert(x)\n  z = f32[] constant(0)", 1)
			m1, m2 := parseModule(t, mixed), parseModule(t, converted)
			args := []Value{viewInput(t, rng, "bf16[64,300]")}
			got, err := Run(m1, args, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer func(was bool) { convertFolding = was }(convertFolding)
			convertFolding = false
			want, err := Run(m2, args, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !sameValue(got, want) {
				t.Errorf("%s over {%s}: %v", name, dims, Compare(got, want))
			}
			convertFolding = true
		}
	}
	m := parseModule(t, "HloModule p\nr {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"+
		"ENTRY e {\n  x = bf16[64,300] parameter(0)\n  c = f32[64,300] convert(x)\n  z = f32[] constant(0)\n  ROOT out = f32[64] reduce(c, z), dimensions={1}, to_apply=r\n}\n")
	args := []Value{viewInput(t, rng, "bf16[64,300]")}
	p := NewProfile()
	if _, err := Run(m, args, Options{Profile: p}); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range p.Stats() {
		names = append(names, s.Inst.Name)
		if s.Inst.Name == "out" && s.Inst != m.Entry.Root {
			t.Errorf("profile counts the folded reduce as %v, want the module's out", s.Inst)
		}
	}
	if !slices.Contains(names, "out") || slices.Contains(names, "c") {
		t.Errorf("profiled instructions %v, want out and not the folded conversion c", names)
	}
	interceptSeesEvery(t, m, args)
}

// TestConvertFoldsCorpus runs the corpus modules with conversions folded into reduces (JAX's models among
// them), within a work budget, both ways.
func TestConvertFoldsCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	corpusBothWays(t, "conversions folded into reduces", countConvertFolds, func(m *hlo.Module, args []Value) error {
		_, err := runBothWays(t, m, args, Options{MaxWork: 3e8, MaxMemory: 2 << 30}, &convertFolding, "folded gives", "converted first")
		return err
	}, Options{MaxMemory: 2 << 30}, 3)
}

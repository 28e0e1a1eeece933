package interp

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"octet/hlo"
)

// withoutGroups turns the grouping of elementwise instructions off for one test.
func withoutGroups(t *testing.T) {
	was := implicitFusion
	implicitFusion = false
	t.Cleanup(func() { implicitFusion = was })
}

// countGroups counts the groups the computations of m would run as fusions.
func countGroups(m *hlo.Module) int {
	e := &evaluator{mod: m, comps: map[*hlo.Computation]*compiled{}}
	n := 0
	for _, c := range m.Computations {
		k := e.compile(c)
		for _, f := range k.fused {
			if f != nil {
				n++
			}
		}
	}
	return n
}

// runGrouped runs m on args with the grouping off and on and requires the same bits, or the same error.
func runGrouped(t *testing.T, m *hlo.Module, args []Value, opts Options) (Value, error) {
	t.Helper()
	return runBothWays(t, m, args, opts, &implicitFusion, "grouped gives", "instruction by instruction")
}

// groupCases are unfused programs with elementwise chains: a GELU over an activation, Threefry rounds of
// u32 with constant keys and shifts (some past the width), a causal mask of iotas and compares selecting
// scores, a chain whose middle value is also a result (two groups), a chain in a loop's body, a bf16
// chain, and one the grouping must leave (arrays of a few elements).
var groupCases = []struct {
	name, src string
	groups    int
}{
	{"gelu", `HloModule gelu
ENTRY e {
  x = f32[64,300] parameter(0)
  half = f32[] constant(0.5)
  hb = f32[64,300] broadcast(half), dimensions={}
  c = f32[] constant(0.044715)
  cb = f32[64,300] broadcast(c), dimensions={}
  s = f32[] constant(0.7978846)
  sb = f32[64,300] broadcast(s), dimensions={}
  one = f32[] constant(1)
  ob = f32[64,300] broadcast(one), dimensions={}
  x2 = f32[64,300] multiply(x, x)
  x3 = f32[64,300] multiply(x2, x)
  t = f32[64,300] multiply(x3, cb)
  u = f32[64,300] add(x, t)
  v = f32[64,300] multiply(u, sb)
  th = f32[64,300] tanh(v)
  w = f32[64,300] add(th, ob)
  y = f32[64,300] multiply(x, hb)
  ROOT r = f32[64,300] multiply(y, w)
}`, 1},
	{"threefry", `HloModule threefry
ENTRY e {
  x = u32[3,4000] parameter(0)
  k = u32[] parameter(1)
  kb = u32[3,4000] broadcast(k), dimensions={}
  c13 = u32[] constant(13)
  b13 = u32[3,4000] broadcast(c13), dimensions={}
  c35 = u32[] constant(35)
  b35 = u32[3,4000] broadcast(c35), dimensions={}
  a = u32[3,4000] add(x, kb)
  l = u32[3,4000] shift-left(a, b13)
  rr = u32[3,4000] shift-right-logical(a, b35)
  o = u32[3,4000] or(l, rr)
  y = u32[3,4000] xor(o, a)
  n = u32[] constant(9)
  nb = u32[3,4000] broadcast(n), dimensions={}
  h = u32[3,4000] shift-right-logical(y, nb)
  f = f32[3,4000] convert(h)
  ROOT s = s32[3,4000] convert(y)
}`, 2}, // y is read twice: its rounds are one group, h and f (read by nothing) another
	{"mask", `HloModule mask
ENTRY e {
  q = f32[8,1024] parameter(0)
  i = s32[8,1024] iota(), iota_dimension=1
  j = s32[8,1024] iota(), iota_dimension=0
  c = s32[] constant(128)
  cb = s32[8,1024] broadcast(c), dimensions={}
  jj = s32[8,1024] multiply(j, cb)
  causal = pred[8,1024] compare(i, jj), direction=LE
  neg = f32[] constant(-inf)
  nb = f32[8,1024] broadcast(neg), dimensions={}
  s = f32[8,1024] select(causal, q, nb)
  ROOT e = f32[8,1024] exponential(s)
}`, 1},
	{"shared-middle", `HloModule shared
ENTRY e {
  x = f32[5000] parameter(0)
  y = f32[5000] parameter(1)
  a = f32[5000] multiply(x, y)
  b = f32[5000] add(a, x)
  c = f32[5000] subtract(b, y)
  d = f32[5000] maximum(c, x)
  e2 = f32[5000] sqrt(d)
  ROOT t = (f32[5000], f32[5000]) tuple(b, e2)
}`, 2},
	{"loop", `HloModule loop
body {
  p = (s32[], f32[6000]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  v = f32[6000] get-tuple-element(p), index=1
  h = f32[] constant(0.5)
  hb = f32[6000] broadcast(h), dimensions={}
  m = f32[6000] multiply(v, hb)
  s = f32[6000] sine(m)
  a = f32[6000] add(s, v)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], f32[6000]) tuple(i1, a)
}
cond {
  p = (s32[], f32[6000]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY e {
  x = f32[6000] parameter(0)
  z = s32[] constant(0)
  st = (s32[], f32[6000]) tuple(z, x)
  ROOT l = (s32[], f32[6000]) while(st), condition=cond, body=body
}`, 1},
	{"bf16", `HloModule bf16
ENTRY e {
  x = bf16[8000] parameter(0)
  y = bf16[8000] multiply(x, x)
  ROOT z = bf16[8000] add(y, x)
}`, 1}, // bf16 values as float32 words (see groups_bf16_test.go)
	{"small", `HloModule small
ENTRY e {
  x = f32[100] parameter(0)
  y = f32[100] multiply(x, x)
  ROOT z = f32[100] add(y, x)
}`, 0},
}

// TestElementGroups runs each case with and without the grouping (same bits), with the groups the cases
// expect, and checks that a profile names a group's fusion after its root and that Intercept, which must
// see every instruction, turns the grouping off.
func TestElementGroups(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, c := range groupCases {
		t.Run(c.name, func(t *testing.T) {
			m := parseModule(t, c.src)
			if got := countGroups(m); got != c.groups {
				t.Errorf("%d groups, want %d", got, c.groups)
			}
			var args []Value
			for _, p := range m.Entry.Params {
				args = append(args, viewInput(t, rng, p.Shape.String()))
			}
			for _, threads := range []int{1, 2} {
				runGrouped(t, m, args, Options{Threads: threads})
			}
		})
	}
	m := parseModule(t, groupCases[0].src)
	args := []Value{viewInput(t, rng, "f32[64,300]")}
	p := NewProfile()
	if _, err := Run(m, args, Options{Profile: p}); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range p.Stats() {
		names = append(names, s.Inst.Name+" "+s.Inst.Opcode.String())
	}
	if !strings.Contains(strings.Join(names, ","), "r fusion") || strings.Contains(strings.Join(names, ","), "x3 multiply") {
		t.Errorf("profiled instructions %v, want the group's fusion named r and no member", names)
	}
	interceptSeesEvery(t, m, args)
}

// interceptSeesEvery runs m's entry on args with an Intercept of every instruction and requires it to
// see each once: what the evaluator gathers into a group or folds must then run as written.
func interceptSeesEvery(t *testing.T, m *hlo.Module, args []Value) {
	t.Helper()
	seen := 0
	ic := &Intercept{Instructions: map[*hlo.Instruction]bool{}, Func: func(in *hlo.Instruction, v Value) (Value, error) {
		seen++
		return v, nil
	}}
	for _, in := range m.Entry.Instructions {
		ic.Instructions[in] = true
	}
	if _, err := Run(m, args, Options{Intercept: ic}); err != nil {
		t.Fatal(err)
	}
	if seen != len(m.Entry.Instructions) {
		t.Errorf("Intercept saw %d of %d instructions", seen, len(m.Entry.Instructions))
	}
}

// TestElementGroupsCorpus runs every module of ../shared that has a group both ways: the same bits, or
// the same error, or the work limit both ways.
func TestElementGroupsCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("every corpus module run twice: in the full test run, not the short one (-race)")
	}
	opts := Options{MaxMemory: 512 << 20, MaxWork: 200_000_000}
	corpusBothWays(t, "groups", countGroups, func(m *hlo.Module, args []Value) error {
		_, err := runGrouped(t, m, args, opts)
		return err
	}, opts, 5)
}

// TestElementGroupsRandom writes random unfused programs over arrays of 5000 elements (f32, s32, u32 and
// pred values, each read by one to several later instructions, some results returned): arithmetic,
// compares, selects, conversions (some without a word loop, which end a group), broadcast constants and
// iotas; and requires the same bits with the grouping on and off.
func TestElementGroupsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	types := []string{"f32", "s32", "u32", "pred"}
	made := 0
	for prog := 0; prog < 150; prog++ {
		var lines []string
		pool := map[string][]string{}
		add := func(ty, name, text string) {
			lines = append(lines, "  "+name+" = "+ty+"[50,100] "+text)
			pool[ty] = append(pool[ty], name)
		}
		for i, ty := range types {
			add(ty, fmt.Sprintf("p%d", i), fmt.Sprintf("parameter(%d)", i))
		}
		pick := func(ty string) string {
			l := pool[ty]
			// Recent values more often, so that chains form; older ones now and then, so that values
			// are read twice.
			if rng.IntN(3) > 0 {
				return l[len(l)-1-rng.IntN(min(3, len(l)))]
			}
			return l[rng.IntN(len(l))]
		}
		for i := 0; i < 30; i++ {
			name := fmt.Sprintf("v%d", i)
			switch rng.IntN(9) {
			case 0, 1:
				ops := []string{"add", "subtract", "multiply", "divide", "maximum", "minimum", "power", "atan2"}
				add("f32", name, fmt.Sprintf("%s(%s, %s)", ops[rng.IntN(len(ops))], pick("f32"), pick("f32")))
			case 2:
				ops := []string{"negate", "abs", "sqrt", "exponential", "tanh", "floor", "log"}
				add("f32", name, fmt.Sprintf("%s(%s)", ops[rng.IntN(len(ops))], pick("f32")))
			case 3, 4:
				ty := []string{"s32", "u32"}[rng.IntN(2)]
				ops := []string{"add", "subtract", "multiply", "and", "or", "xor", "maximum", "minimum",
					"shift-left", "shift-right-logical", "shift-right-arithmetic", "divide"}
				add(ty, name, fmt.Sprintf("%s(%s, %s)", ops[rng.IntN(len(ops))], pick(ty), pick(ty)))
			case 5:
				ty := []string{"f32", "s32", "u32"}[rng.IntN(3)]
				dirs := []string{"EQ", "NE", "LT", "LE", "GT", "GE"}
				add("pred", name, fmt.Sprintf("compare(%s, %s), direction=%s", pick(ty), pick(ty), dirs[rng.IntN(len(dirs))]))
			case 6:
				ty := types[rng.IntN(len(types))]
				add(ty, name, fmt.Sprintf("select(%s, %s, %s)", pick("pred"), pick(ty), pick(ty)))
			case 7:
				from, to := types[rng.IntN(3)], types[rng.IntN(3)]
				add(to, name, fmt.Sprintf("convert(%s)", pick(from)))
			case 8:
				ty := types[rng.IntN(3)]
				if rng.IntN(2) == 0 {
					c := fmt.Sprintf("c%d", i)
					lines = append(lines, fmt.Sprintf("  %s = %s[] constant(%d)", c, ty, rng.IntN(40)))
					add(ty, name, fmt.Sprintf("broadcast(%s), dimensions={}", c))
				} else {
					add(ty, name, fmt.Sprintf("iota(), iota_dimension=%d", rng.IntN(2)))
				}
			}
		}
		var outs, shapes []string
		for _, ty := range types {
			l := pool[ty]
			for _, v := range []string{l[len(l)-1], l[rng.IntN(len(l))]} {
				outs, shapes = append(outs, v), append(shapes, ty+"[50,100]")
			}
		}
		src := "HloModule random\n\nENTRY e {\n" + strings.Join(lines, "\n") +
			fmt.Sprintf("\n  ROOT out = (%s) tuple(%s)\n}\n", strings.Join(shapes, ", "), strings.Join(outs, ", "))
		m := parseModule(t, src)
		made += countGroups(m)
		var args []Value
		for _, p := range m.Entry.Params {
			args = append(args, viewInput(t, rng, p.Shape.String()))
		}
		runGrouped(t, m, args, Options{Threads: 1 + prog%2})
	}
	if made < 150 {
		t.Errorf("only %d groups in 150 programs", made)
	}
	t.Logf("%d groups in 150 programs", made)
}

package verify_test

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"octet/dtype"
	"octet/fuse"
	"octet/fuse/verify"
	"octet/hlo"
	"octet/hlo/parser"
	"octet/internal/shared"
	"octet/interp"
	"octet/tensor"
)

// load parses one module and checks that it verifies.
func load(t *testing.T, path string) *hlo.Module {
	t.Helper()
	src, err := shared.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := parser.ParseString(path, string(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := hlo.Verify(m); err != nil {
		t.Fatalf("the input does not verify: %v", err)
	}
	return m
}

// rewrite loads path twice and rewrites one copy: the original, the rewritten module and the decisions.
func rewrite(t *testing.T, path string) (orig, fused *hlo.Module, decisions []*fuse.Decision) {
	t.Helper()
	orig, fused = load(t, path), load(t, path)
	return orig, fused, fuse.Rewrite(fused, fuse.Options{}).Decisions
}

// rewriteSource parses src twice and rewrites one copy, which must fuse its one dot: the original, the
// rewritten module and the decisions.
func rewriteSource(t *testing.T, src string) (orig, fused *hlo.Module, decisions []*fuse.Decision) {
	t.Helper()
	orig, err := parser.ParseString("test.hlo", src)
	if err != nil {
		t.Fatal(err)
	}
	fused, _ = parser.ParseString("test.hlo", src)
	decisions = fuse.Rewrite(fused, fuse.Options{}).Decisions
	if len(decisions) != 1 || !decisions[0].Fused {
		t.Fatalf("decisions %+v", decisions)
	}
	return orig, fused, decisions
}

// checkRandom runs verify.Check on the inputs interp.RandomInputs makes of orig with seed 1.
func checkRandom(t *testing.T, orig, fused *hlo.Module, ds []*fuse.Decision, opts interp.Options) (*verify.Result, error) {
	t.Helper()
	args, err := interp.RandomInputs(orig, 1)
	if err != nil {
		t.Fatal(err)
	}
	return verify.Check(orig, fused, ds, args, opts)
}

// rows is an argument of type typ and shape rows x len(vals[0]), row r holding vals[r].
func rows(typ dtype.Type, vals ...[]float64) interp.Value {
	x := tensor.New(typ, []int64{int64(len(vals)), int64(len(vals[0]))})
	for r, row := range vals {
		for c, v := range row {
			x.SetBitsAt(int64(r*len(row)+c), typ.EncodeFloat64(v))
		}
	}
	return interp.ArrayValue(x)
}

// TestRewritesVerify runs every rewrite of package fuse's test cases and of the examples through Run:
// every element of every fused GEMM within its bound, on every input family, and the rest of the outputs
// identical. (octet fuse --verify runs the FP8 corpus through it, in cmd/octet's tests.)
func TestRewritesVerify(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "*.hlo"))
	if dir := shared.Find(); dir != "" {
		examples, _ := filepath.Glob(filepath.Join(dir, "examples", "*.before.hlo"))
		files = append(files, examples...)
	}
	if len(files) == 0 {
		t.Fatal("no test cases in ../testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			orig, fused, ds := rewrite(t, f)
			r, err := verify.Run(orig, fused, ds, 1, interp.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, run := range r.Runs {
				for _, g := range run.GEMMs {
					t.Logf("%s %s: %d of %d identical, worst %+v share %.3g", run.Name, g.Dot, g.BitMatches, g.Elements, g.Worst, g.Worst.Share())
				}
				if !run.OK {
					t.Errorf("%s: %+v", run.Name, run)
				}
			}
		})
	}
}

// perturb makes the rewritten module's D of the first fused GEMM wrong at one element: multiplied by
// factor after the call. It returns the decisions with the result moved to the wrong value.
func perturb(t *testing.T, fused *hlo.Module, decisions []*fuse.Decision, at int64, factor float32) []*fuse.Decision {
	t.Helper()
	var d fuse.Decision
	out := slices.Clone(decisions)
	for i, x := range out {
		if x.Fused {
			d = *x
			out[i] = &d
			break
		}
	}
	c := fused.Computation(d.Computation)
	i := slices.IndexFunc(c.Instructions, func(in *hlo.Instruction) bool { return in.Name == d.Result })
	if i < 0 {
		t.Fatalf("no %%%s in the rewritten module", d.Result)
	}
	res := c.Instructions[i]
	users := slices.Clone(res.Users())
	dims := res.Shape.Dims
	factors := make([]float32, res.Shape.NumElements())
	for j := range factors {
		factors[j] = 1
	}
	factors[at] = factor
	k := c.Constant(hlo.Array(dtype.F32, dims...), hlo.ArrayLiteral(tensor.FromFloat32(dims, factors)))
	wrong := c.Convert(c.Multiply(c.Convert(res, dtype.F32), k), res.Shape.Elem)
	for _, u := range users {
		for j, o := range u.Operands() {
			if o == res {
				u.SetOperand(j, wrong)
			}
		}
	}
	if c.Root == res {
		c.Root = wrong
	}
	c.SortTopologically()
	if err := hlo.Verify(fused); err != nil {
		t.Fatal(err)
	}
	d.Result = wrong.Name
	return out
}

// TestOneWrongElementFails changes one element of a correct rewrite's D, by an amount the module-wide
// tolerance this package replaces (a share of the largest result plus the output type's epsilon times it)
// accepts: a sign flipped on an f8e4m3fn D, and 12% on a bf16 D. Check finds that element, and only it,
// beyond its bound, and the outputs downstream of it still identical given the original's values.
func TestOneWrongElementFails(t *testing.T) {
	for _, tc := range []struct {
		file   string
		factor float32
		// share is the magnitude of the element changed, as a share of the largest result; oldTol the
		// module-wide tolerance the fuse tests allowed, as a share of the largest result too.
		share, oldTol float64
	}{
		{"widen_before_clamp.hlo", -1, 0.05, 16*0x1p-24 + 0.125},
		{"deepseek_scale.hlo", 1.12, 0.25, 8*0x1p-8 + 0x1p-7},
	} {
		t.Run(tc.file, func(t *testing.T) {
			orig, fused, ds := rewrite(t, filepath.Join("..", "testdata", tc.file))
			args, err := interp.RandomInputs(orig, 1)
			if err != nil {
				t.Fatal(err)
			}
			if r, err := verify.Check(orig, fused, ds, args, interp.Options{}); err != nil || !r.OK {
				t.Fatalf("the correct rewrite: %+v, %v", r, err)
			}
			want, err := interp.Run(orig, args, interp.Options{})
			if err != nil {
				t.Fatal(err)
			}
			vals := want.Flatten()[0].Float64s()
			largest := 0.0
			for _, v := range vals {
				largest = math.Max(largest, math.Abs(v))
			}
			// The element whose magnitude is nearest the share asked for.
			at := int64(-1)
			for j, v := range vals {
				if v != 0 && (at < 0 || math.Abs(math.Abs(v)-tc.share*largest) < math.Abs(math.Abs(vals[at])-tc.share*largest)) {
					at = int64(j)
				}
			}
			change := math.Abs(float64(tc.factor)-1) * math.Abs(vals[at])
			if change > tc.oldTol*largest {
				t.Fatalf("the change %g is beyond the old tolerance %g: the case shows nothing", change, tc.oldTol*largest)
			}
			bad := perturb(t, fused, ds, at, tc.factor)
			r, err := verify.Check(orig, fused, bad, args, interp.Options{})
			if err != nil {
				t.Fatal(err)
			}
			g := r.GEMMs[0]
			if r.OK || g.Failures != 1 || g.Worst.Index != at || r.Mismatches != 0 {
				t.Errorf("element %d (%g) times %g: ok %v, %d failures, worst %+v, %d output mismatches", at, vals[at], tc.factor,
					r.OK, g.Failures, g.Worst, r.Mismatches)
			}
			t.Logf("element %d: %g -> %g, %.3g ulps against a bound of %.3g; the old tolerance was %g", at, float64(g.Worst.Want),
				float64(g.Worst.Got), float64(g.Worst.ULPs), float64(g.Worst.BoundULPs), tc.oldTol*largest)
		})
	}
}

// TestOtherChangeFails changes what the rewritten module computes after the call (the add of the bias
// becomes a subtract): every GEMM element is still within its bound, but the outputs, computed from the
// original's GEMM results, differ.
func TestOtherChangeFails(t *testing.T) {
	orig, fused, ds := rewrite(t, filepath.Join("..", "testdata", "f32_bias.hlo"))
	root := fused.Entry.Root
	if root.Opcode != hlo.OpAdd {
		t.Fatalf("the root is %s, want the add of the bias", root.Opcode)
	}
	root.Opcode = hlo.OpSubtract
	r, err := checkRandom(t, orig, fused, ds, interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.OK || r.Mismatches == 0 || r.GEMMs[0].Failures != 0 || r.FirstMismatch == "" {
		t.Errorf("ok %v, %d mismatches (%s), %d GEMM failures", r.OK, r.Mismatches, r.FirstMismatch, r.GEMMs[0].Failures)
	}
}

// TestCalledGEMMs verifies a GEMM rewritten inside a computation the entry calls (a function JAX lowered
// apart): its values are recorded and replaced inside the call, compared once.
func TestCalledGEMMs(t *testing.T) {
	orig, fused, ds := rewriteSource(t, `HloModule called

body {
  a = f8e4m3fn[16,32] parameter(0)
  b = f8e4m3fn[32,16] parameter(1)
  af = f32[16,32] convert(a)
  bf = f32[32,16] convert(b)
  ROOT d = f32[16,16] dot(af, bf), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}

ENTRY main {
  a = f8e4m3fn[16,32] parameter(0)
  b = f8e4m3fn[32,16] parameter(1)
  ROOT c = f32[16,16] call(a, b), to_apply=body
}
`)
	r, err := verify.Run(orig, fused, ds, 1, interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range r.Runs {
		if g := run.GEMMs[0]; !run.OK || g.Evaluations != 1 || g.Elements != 256 {
			t.Errorf("inputs %s: ok %v, %d evaluations, %d elements", run.Name, run.OK, g.Evaluations, g.Elements)
		}
	}
}

// scanModule is a scan over layers FP8 layers of rows x 32 activations, as JAX's lax.scan writes one: each
// iteration quantizes the activations to f8e4m3fn, multiplies them by its layer's weights dequantized with
// a scale, and the result, scaled by 1/8, is the next layer's input.
func scanModule(layers, rows int) string {
	return strings.NewReplacer("LAYERS", fmt.Sprint(layers), "ROWS", fmt.Sprint(rows)).Replace(`HloModule scan

body {
  state = (s32[], f32[ROWS,32], f8e4m3fn[LAYERS,32,32], f32[]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  x = f32[ROWS,32] get-tuple-element(state), index=1
  ws = f8e4m3fn[LAYERS,32,32] get-tuple-element(state), index=2
  s = f32[] get-tuple-element(state), index=3
  zero = s32[] constant(0)
  wi = f8e4m3fn[1,32,32] dynamic-slice(ws, i, zero, zero), dynamic_slice_sizes={1,32,32}
  w = f8e4m3fn[32,32] reshape(wi)
  xq = f8e4m3fn[ROWS,32] convert(x)
  xf = f32[ROWS,32] convert(xq)
  wf = f32[32,32] convert(w)
  sb = f32[32,32] broadcast(s), dimensions={}
  wd = f32[32,32] multiply(wf, sb)
  d = f32[ROWS,32] dot(xf, wd), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  k = f32[] constant(0.125)
  kb = f32[ROWS,32] broadcast(k), dimensions={}
  y = f32[ROWS,32] multiply(d, kb)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT next = (s32[], f32[ROWS,32], f8e4m3fn[LAYERS,32,32], f32[]) tuple(i1, y, ws, s)
}

cond {
  cs = (s32[], f32[ROWS,32], f8e4m3fn[LAYERS,32,32], f32[]) parameter(0)
  ci = s32[] get-tuple-element(cs), index=0
  n = s32[] constant(LAYERS)
  ROOT lt = pred[] compare(ci, n), direction=LT
}

ENTRY main {
  x = f32[ROWS,32] parameter(0)
  ws = f8e4m3fn[LAYERS,32,32] parameter(1)
  s = f32[] parameter(2)
  zero = s32[] constant(0)
  init = (s32[], f32[ROWS,32], f8e4m3fn[LAYERS,32,32], f32[]) tuple(zero, x, ws, s)
  loop = (s32[], f32[ROWS,32], f8e4m3fn[LAYERS,32,32], f32[]) while(init), condition=cond, body=body
  ROOT out = f32[ROWS,32] get-tuple-element(loop), index=1
}
`)
}

// TestScanGEMMs verifies the rewrite of a GEMM in a while loop's body that runs four times, each layer
// reading the last one's result: each iteration's D is compared with the original's of the same
// iteration, given the original's state. Then one element of D is made 1% wrong at every iteration: it
// fails at each of the four, and nothing downstream differs, since every iteration starts from the
// original's values.
func TestScanGEMMs(t *testing.T) {
	orig, fused, ds := rewriteSource(t, scanModule(4, 16))
	if ds[0].Computation != "body" {
		t.Fatalf("the GEMM is in %%%s", ds[0].Computation)
	}
	r, err := verify.Run(orig, fused, ds, 1, interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range r.Runs {
		if g := run.GEMMs[0]; !run.OK || g.Evaluations != 4 || g.Elements != 4*16*32 {
			t.Errorf("inputs %s: ok %v, %d evaluations, %d elements, %d mismatches", run.Name, run.OK, g.Evaluations, g.Elements, run.Mismatches)
		}
	}
	args, err := interp.RandomInputs(orig, 1)
	if err != nil {
		t.Fatal(err)
	}
	bad := perturb(t, fused, ds, 37, 1.01)
	res, err := verify.Check(orig, fused, bad, args, interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g := res.GEMMs[0]; res.OK || g.Evaluations != 4 || g.Failures != 4 || g.Worst.Index != 37 || res.Mismatches != 0 {
		t.Errorf("one element 1%% off: ok %v, %d evaluations, %d failures, worst %+v, %d output mismatches", res.OK, g.Evaluations, g.Failures, g.Worst, res.Mismatches)
	}
	// With a memory budget too small for the two modules' buffers at once, the original runs first and
	// records its values at every evaluation: where the budget leaves room for fewer than the four D (2 KiB
	// each), the comparison is refused with the reason.
	budget := interp.EstimateMemory(fused).Bytes + 4096
	_, err = verify.Check(orig, fused, ds, args, interp.Options{MaxMemory: budget})
	if err == nil || !strings.Contains(err.Error(), "recorded at each evaluation of the fused GEMMs until the rewritten module has computed its own, take more than") {
		t.Errorf("with a budget of %d bytes: %v", budget, err)
	}
}

// TestFusionGEMMRefused checks that a GEMM inside a fusion's computation is refused with the reason: the
// interpreter may compute a fusion a part at a time.
func TestFusionGEMMRefused(t *testing.T) {
	src := `HloModule fused

fused_dot {
  a = f32[4,8] parameter(0)
  b = f32[8,4] parameter(1)
  ROOT d = f32[4,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}

ENTRY main {
  a = f32[4,8] parameter(0)
  b = f32[8,4] parameter(1)
  ROOT f = f32[4,4] fusion(a, b), kind=kLoop, calls=fused_dot
}
`
	m, err := parser.ParseString("fused.hlo", src)
	if err != nil {
		t.Fatal(err)
	}
	d := &fuse.Decision{Dot: "d", Computation: "fused_dot", Fused: true, Replaces: "d", Result: "d", Call: "d"}
	_, err = verify.Check(m, m, []*fuse.Decision{d}, nil, interp.Options{})
	if err == nil || !strings.Contains(err.Error(), "the GEMM %d is in the computation %fused_dot of a fusion") {
		t.Errorf("Check: %v", err)
	}
}

// TestChainedGEMMs verifies the rewrite of three GEMMs in a chain, each reading the FP8 D of the one before:
// each is compared given the original's value of its operand, and the module's outputs given the
// original's value of each.
func TestChainedGEMMs(t *testing.T) {
	src := `HloModule chain

ENTRY main {
  x0 = f8e4m3fn[16,32] parameter(0)
  w = f8e4m3fn[32,32] parameter(1)
  s = f32[] parameter(2)
  hi = f32[] constant(448)
  lo = f32[] constant(-448)
  hib = f32[16,32] broadcast(hi), dimensions={}
  lob = f32[16,32] broadcast(lo), dimensions={}
  sb = f32[16,32] broadcast(s), dimensions={}
  wc = f32[32,32] convert(w)
  xc0 = f32[16,32] convert(x0)
  d0 = f32[16,32] dot(xc0, wc), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  x1 = f8e4m3fn[16,32] convert(clamp(lob, divide(d0, sb), hib))
  xc1 = f32[16,32] convert(x1)
  d1 = f32[16,32] dot(xc1, wc), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  x2 = f8e4m3fn[16,32] convert(clamp(lob, divide(d1, sb), hib))
  xc2 = f32[16,32] convert(x2)
  d2 = f32[16,32] dot(xc2, wc), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (f8e4m3fn[16,32], f8e4m3fn[16,32], f32[16,32]) tuple(x1, x2, d2)
}
`
	orig, err := parser.ParseString("chain.hlo", src)
	if err != nil {
		t.Fatal(err)
	}
	fused, _ := parser.ParseString("chain.hlo", src)
	ds := fuse.Rewrite(fused, fuse.Options{}).Decisions
	if len(ds) != 3 || !ds[0].Fused || !ds[1].Fused || !ds[2].Fused {
		t.Fatalf("decisions %+v", ds)
	}
	r, err := verify.Run(orig, fused, ds, 1, interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range r.Runs {
		if !run.OK || len(run.GEMMs) != 3 || run.Outputs != 3*16*32 {
			t.Errorf("%s: ok %v, %d GEMMs, %d outputs compared", run.Name, run.OK, len(run.GEMMs), run.Outputs)
		}
	}
}

// TestChainRoundings checks the roundings the bound counts for the chains the generated rewrites showed
// it missed: a divide by a scale (the original rounds x/s, the call 1/s), also where the GEMM is 1 x 1
// and the scale cannot be told from the data by its shape, and a dot of wider operands (converted to its
// type first). Each rewrite then checks on every family.
func TestChainRoundings(t *testing.T) {
	const u16, ubf16 = 0x1p-11, 0x1p-8
	// divide is an m x k by k x n GEMM whose A is dequantized in f16 by a divide by 3.
	divide := func(m, n, k int) string {
		return fmt.Sprintf(`HloModule d
ENTRY main {
  a = f8e4m3fn[%[1]d,%[3]d] parameter(0)
  af = f16[%[1]d,%[3]d] convert(a)
  k = f16[] constant(3)
  kb = f16[%[1]d,%[3]d] broadcast(k), dimensions={}
  ad = f16[%[1]d,%[3]d] divide(af, kb)
  b = f8e4m3fn[%[2]d,%[3]d] parameter(1)
  bf = f16[%[2]d,%[3]d] convert(b)
  ROOT d = f32[%[1]d,%[2]d] dot(ad, bf), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}`, m, n, k)
	}
	for _, tc := range []struct {
		name, src string
		want      float64
	}{
		{"divide 1x1", divide(1, 1, 1), 0x1p-24 + 2*u16},
		{"divide", divide(4, 2, 8), 0x1p-24 + 2*u16},
		{"wider operands", `HloModule w
ENTRY main {
  a = f8e4m3fn[4,8] parameter(0)
  af = f32[4,8] convert(a)
  s = f32[] parameter(2)
  sb = f32[4,8] broadcast(s), dimensions={}
  as = f32[4,8] multiply(af, sb)
  b = f8e5m2[2,8] parameter(1)
  bf = f32[2,8] convert(b)
  ROOT d = bf16[4,2] dot(as, bf), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}`, 3*ubf16 + 0x1p-24},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orig, fused, ds := rewriteSource(t, tc.src)
			if got := verify.Rounding(orig.Entry.Root, nil, orig.Entry.Root); got != tc.want {
				t.Errorf("Rounding = %g, want %g", got, tc.want)
			}
			r, err := verify.Run(orig, fused, ds, 1, interp.Options{})
			if err != nil || !r.OK {
				t.Errorf("%+v, %v", r, err)
			}
		})
	}
}

// TestOverflowedF16 checks an element that the original's f16 dequantize makes NaN (57344 times 2 is
// infinite in f16, and times the other operand's zero NaN) where the call's float32 gives 0: counted as
// overflowed, not as a failure. The same element from an f32 chain is no overflow at all.
func TestOverflowedF16(t *testing.T) {
	src := `HloModule o
ENTRY main {
  a = f8e5m2[2,4] parameter(0)
  b = f8e4m3fn[2,4] parameter(1)
  af = f16[2,4] convert(a)
  k = f16[] constant(2)
  kb = f16[2,4] broadcast(k), dimensions={}
  as = f16[2,4] multiply(af, kb)
  bf = f16[2,4] convert(b)
  ROOT d = f16[2,2] dot(as, bf), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}`
	for _, chain := range []string{"f16", "f32"} {
		t.Run(chain, func(t *testing.T) {
			text := strings.ReplaceAll(src, "f16[2,4]", chain+"[2,4]")
			text = strings.ReplaceAll(text, "f16[] constant", chain+"[] constant")
			if chain == "f32" {
				text = strings.ReplaceAll(text, "f16[2,2]", "f32[2,2]")
			}
			orig, fused, ds := rewriteSource(t, text)
			big, one, zero := []float64{57344, 57344, 57344, 57344}, []float64{1, 1, 1, 1}, []float64{0, 0, 0, 0}
			args := []interp.Value{rows(dtype.F8E5M2, big, one), rows(dtype.F8E4M3FN, zero, one)}
			r, err := verify.Check(orig, fused, ds, args, interp.Options{})
			if err != nil {
				t.Fatal(err)
			}
			g := r.GEMMs[0]
			want := int64(0)
			if chain == "f16" {
				want = 1
			}
			if !r.OK || g.Overflowed != want || g.Failures != 0 {
				t.Errorf("ok %v, %d overflowed (want %d), %d failures, worst %+v", r.OK, g.Overflowed, want, g.Failures, g.Worst)
			}
		})
	}
}

// TestOverflowedF16Infinite checks an element the original's f16 chain makes NaN (448 times 448 is
// infinite in f16, and inf - inf NaN) where the call's float32 gives a value that is infinite in D's f16
// (1*448*448 - 2*448*448): counted as overflowed too.
func TestOverflowedF16Infinite(t *testing.T) {
	src := `HloModule o
ENTRY main {
  a = f8e4m3fn[1,2] parameter(0)
  b = f8e4m3fn[1,2] parameter(1)
  af = f16[1,2] convert(a)
  bf = f16[1,2] convert(b)
  k = f16[] constant(448)
  kb = f16[1,2] broadcast(k), dimensions={}
  bs = f16[1,2] multiply(bf, kb)
  ROOT d = f16[1,1] dot(af, bs), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}`
	orig, fused, ds := rewriteSource(t, src)
	args := []interp.Value{rows(dtype.F8E4M3FN, []float64{1, 2}), rows(dtype.F8E4M3FN, []float64{448, -448})}
	r, err := verify.Check(orig, fused, ds, args, interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g := r.GEMMs[0]; !r.OK || g.Overflowed != 1 || g.Failures != 0 {
		t.Errorf("ok %v, %d overflowed, %d failures, worst %+v", r.OK, g.Overflowed, g.Failures, g.Worst)
	}
}

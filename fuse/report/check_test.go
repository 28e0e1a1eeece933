package report_test

import (
	"strings"
	"testing"

	"octet/cublas"
	"octet/fuse"
	"octet/fuse/report"
	"octet/hlo"
	"octet/hlo/parser"
	"octet/internal/shared"
)

func check(t *testing.T, elem ...string) *report.Report {
	t.Helper()
	return report.Check(load(t, shared.Path(t, elem...)))
}

func TestCheckFusedLegacyInferred(t *testing.T) {
	r := check(t, "examples", "bf16_dequant.xla-0.4.31.optimized.hlo")
	if len(r.GEMMs) != 1 || r.Fused != 1 || r.Unfused != 0 {
		t.Fatalf("want one fused GEMM, got %+v", r)
	}
	g := r.GEMMs[0]
	want := report.GEMM{Name: "cublas-gemm.clone.1.0", Kind: "cublas-fp8", Fused: true, Target: cublas.TargetF8, ABI: "legacy",
		Inferred: true, AScale: "%Arg_2.3.0 (parameter 2)", BScale: "%Arg_3.4.0 (parameter 3)", CScale: "constant 1",
		DScale: "%Arg_4.5.0 (parameter 4)", Epilogue: cublas.EpilogueDefault, DType: "f8e4m3fn", D: "f8e4m3fn[32,128]", Alpha: 1}
	if g.Name != want.Name || g.Kind != want.Kind || !g.Fused || g.Target != want.Target || g.ABI != want.ABI ||
		!g.Inferred || g.AScale != want.AScale || g.BScale != want.BScale || g.CScale != want.CScale ||
		g.DScale != want.DScale || g.Epilogue != want.Epilogue || g.DType != want.DType || g.D != want.D ||
		g.Alpha != 1 || g.Beta != 0 || g.Damax {
		t.Errorf("got  %+v\nwant %+v", *g, want)
	}
	if g.A.Parameter != 0 || g.B.Parameter != 1 || g.Key != "p0:f8e4m3fn[32,64] x p1:f8e4m3fn[128,64], k=64" {
		t.Errorf("operands %+v %+v, key %q", g.A, g.B, g.Key)
	}
	if !strings.Contains(strings.Join(g.Explain, "\n"), "printed without backend_config") {
		t.Errorf("the report does not say the configuration was inferred: %q", g.Explain)
	}
}

func TestCheckCompiledWithConfig(t *testing.T) {
	r := check(t, "examples", "fp8_matmul.compiled.hlo")
	if len(r.GEMMs) != 1 || !r.GEMMs[0].Fused {
		t.Fatalf("want one fused GEMM, got %+v", r.GEMMs)
	}
	g := r.GEMMs[0]
	if g.Inferred || g.DType != "f8e5m2" || g.A.Shape != "f8e4m3fn[128,128]" || g.B.Shape != "f8e5m2[128,128]" || g.B.Parameter != 1 {
		t.Errorf("got %+v (A %+v, B %+v)", *g, g.A, g.B)
	}
}

// TestCheckRegression is the JAX 0.4.32 module: the dequantize was fused into an input fusion whose
// output is concatenated, sliced and bitcast before a bf16 GEMM fusion.
func TestCheckRegression(t *testing.T) {
	r := check(t, "examples", "bf16_dequant.xla-0.4.32.optimized.hlo")
	if len(r.GEMMs) != 1 || r.Unfused != 1 {
		t.Fatalf("want one GEMM not fused, got %+v", r.GEMMs)
	}
	g := r.GEMMs[0]
	if g.Fused || g.Kind != "gemm-fusion" || g.Name != "gemm_fusion_dot.19.0" || g.Dot != "dot.1" || g.DType != "bf16" {
		t.Errorf("got %+v", *g)
	}
	if g.A.Source != "%Arg_0.1.0" || g.A.Parameter != 0 || g.B.Source != "%Arg_1.2.0" || g.B.Parameter != 1 {
		t.Errorf("operands traced to %+v and %+v", g.A, g.B)
	}
	for _, want := range []string{"convert %convert.7.2, multiply %multiply.4.2 by %Arg_2.3.0 (parameter 2)",
		"then reshape, concatenate, slice, get-tuple-element, bitcast"} {
		if !strings.Contains(g.A.Via, want) {
			t.Errorf("A's way does not say %q: %s", want, g.A.Via)
		}
	}
	// What the module shows: the Triton GEMM fusion took the dot as bf16 x bf16, on dequantizes of the form
	// XLA accepts. Nothing made after the GEMM rewriter (the input fusion's concatenate and slices) is blamed.
	if want := "the dot %dot.1 was claimed by the Triton GEMM fusion %gemm_fusion_dot.19.0 as bf16 x bf16 on dequantized FP8 data"; g.BlockedBy != want {
		t.Errorf("blocked_by %q, want %q", g.BlockedBy, want)
	}
	explain := strings.Join(g.Explain, "\n")
	for _, want := range []string{
		"seen: A is dequantized by convert to bf16, multiply by a scalar in bf16, a form XLA's FP8 pattern accepts",
		"not a cause: the fusion boundaries and tuples between the dequantize and the GEMM (and a horizontal fusion's concatenate and slices) are made by the fusion passes",
		"likely (inferred from gpu_compiler.cc's pass order for XLA newest, not shown here): the Triton GEMM fusion (triton-gemm-rewriter) runs before the FP8 rewrite",
		"implies: ",
		"--xla_dump_hlo_pass_re=cublas-gemm-rewriter|triton-gemm-rewriter", "--xla_gpu_enable_triton_gemm=false",
		"octet check on the module before optimization, which predicts what each XLA release makes of the dot",
	} {
		if !strings.Contains(explain, want) {
			t.Errorf("the explanation does not say %q:\n%s", want, explain)
		}
	}
	for _, line := range g.Explain {
		if strings.HasPrefix(line, "seen: ") && (strings.Contains(line, "concatenate") || strings.Contains(line, "input_slice_fusion")) {
			t.Errorf("a pass after the GEMM rewriter is presented as the cause: %s", line)
		}
	}
	if g.XLA.Fusible || !strings.Contains(g.XLA.Why, "inside the kCustom fusion %gemm_fusion_dot.19.0") || g.Octet.Fusible {
		t.Errorf("verdicts: xla %+v, octet %+v", g.XLA, g.Octet)
	}
	if !strings.Contains(g.Reason, "computes in bf16 x bf16 inside the kCustom fusion %gemm_fusion_dot.19.0") {
		t.Errorf("reason: %s", g.Reason)
	}
	if g.Key != "p0:f8e4m3fn[32,64] x p1:f8e4m3fn[128,64], k=64" {
		t.Errorf("key %q", g.Key)
	}
}

func TestDiffRegression(t *testing.T) {
	old := check(t, "examples", "bf16_dequant.xla-0.4.31.optimized.hlo")
	new := check(t, "examples", "bf16_dequant.xla-0.4.32.optimized.hlo")
	d := report.Diff(old, new)
	if !d.Regressed() || len(d.Lost) != 1 || len(d.Gained) != 0 || d.Same != 0 {
		t.Fatalf("old -> new: %+v", d)
	}
	if c := d.Lost[0]; c.A.Name != "cublas-gemm.clone.1.0" || c.B.Name != "gemm_fusion_dot.19.0" {
		t.Errorf("lost %+v", c)
	}
	back := report.Diff(new, old)
	if back.Regressed() || len(back.Gained) != 1 {
		t.Errorf("new -> old: %+v", back)
	}
	if same := report.Diff(old, old); same.Regressed() || same.Same != 1 || len(same.Changed) != 0 {
		t.Errorf("old -> old: %+v", same)
	}
}

// fp8Operand reports whether an FP8 value lies up the operand chain of x, through the ops a dequantize
// and the data movement around it are made of. It is the test's own definition, independent of Check's.
func fp8Operand(x *hlo.Instruction, depth int) bool {
	if x.Shape.IsArray() && x.Shape.Elem.IsFP8() {
		return true
	}
	if depth == 0 {
		return false
	}
	switch x.Opcode {
	case hlo.OpConvert, hlo.OpBitcast, hlo.OpReshape, hlo.OpTranspose, hlo.OpCopy, hlo.OpBroadcast, hlo.OpSlice,
		hlo.OpAllGather, hlo.OpDynamicSlice, hlo.OpPad:
		return fp8Operand(x.Operand(0), depth-1)
	case hlo.OpMultiply, hlo.OpDivide, hlo.OpSelect:
		for _, o := range x.Operands() {
			if !o.Shape.IsScalar() && fp8Operand(o, depth-1) {
				return true
			}
		}
	}
	return false
}

// TestCheckLlama runs Check on a real FP8 training step (Llama 3.1 70B, before optimization): every dot
// with an FP8 operand chain appears exactly once, with a decision and a reason.
func TestCheckLlama(t *testing.T) {
	m := load(t, shared.Path(t, "corpus", "hlo", "xla__tools__benchmarks__hlo__hlo_llama31_70b_fp8_16x8.hlo.gz"))
	want := map[string]bool{}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if in.Opcode == hlo.OpDot && (fp8Operand(in.Operand(0), 10) || fp8Operand(in.Operand(1), 10)) {
				want[in.Name] = true
			}
		}
	}
	if len(want) == 0 {
		t.Fatal("the test found no FP8 dot")
	}
	r := report.Check(m)
	got := map[string]int{}
	for _, g := range r.GEMMs {
		got[g.Name]++
		if g.Fused || g.Kind != "dot" {
			t.Errorf("%%%s: kind %s, fused %v: the module has not been rewritten", g.Name, g.Kind, g.Fused)
		}
		if g.Reason == "" || g.Fusible == nil || g.FuseNote == "" {
			t.Errorf("%%%s has no decision: %+v", g.Name, *g)
		}
		if !*g.Fusible && g.BlockedBy == "" {
			t.Errorf("%%%s cannot be fused and does not say why", g.Name)
		}
	}
	for name := range want {
		if got[name] != 1 {
			t.Errorf("FP8 dot %%%s is reported %d times", name, got[name])
		}
	}
	for name := range got {
		if !want[name] {
			t.Errorf("%%%s is reported but has no FP8 operand chain", name)
		}
	}
	if r.Unfused != len(want) {
		t.Errorf("%d not fused, want %d", r.Unfused, len(want))
	}
}

// TestCheckAfterRewrite reports on the training step after octet fuse rewrote it: every FP8 dot is now
// a fused call.
func TestCheckAfterRewrite(t *testing.T) {
	m := load(t, shared.Path(t, "corpus", "hlo", "xla__tools__benchmarks__hlo__hlo_llama31_70b_fp8_16x8.hlo.gz"))
	if r := fuse.Rewrite(m, fuse.Options{}); len(r.Decisions) != 27 {
		t.Fatalf("the rewrite decided about %d dots, want 27", len(r.Decisions))
	}
	if after := report.Check(m); after.Fused != 27 || after.Unfused != 0 {
		t.Errorf("Check after the rewrite: %d fused, %d not", after.Fused, after.Unfused)
	}
}

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

// TestCheckBlockScaled reports XLA's scaled-dot, a block-scaled GEMM, apart from the FP8 GEMMs: MXFP8, in a
// Triton GEMM fusion (tt.dot_scaled), so the block-scaled kernel is made and the module shows it.
func TestCheckBlockScaled(t *testing.T) {
	r := check(t, "corpus", "hlo", "xla__backends__gpu__codegen__triton__tests__scaled_dot__scaled_dot.hlo")
	if len(r.GEMMs) != 1 || r.BlockScaled != 1 || r.Fused != 0 || r.Unfused != 0 {
		t.Fatalf("report %+v", r)
	}
	g := r.GEMMs[0]
	if g.Kind != "block-scaled" || !g.Fused || g.Block == nil || !g.Block.Seen || !g.Block.Made || g.Block.Form != "Triton fusion" ||
		!strings.Contains(g.Reason, "MXFP8 (f8e4m3fn x f8e4m3fn) GEMM (scaled-dot)") {
		t.Errorf("got %+v", *g)
	}
}

// TestCheckNativeTriton reports a Triton GEMM fusion whose dot reads FP8 values as fused natively.
func TestCheckNativeTriton(t *testing.T) {
	m, err := parser.ParseString("native.hlo", `HloModule native

triton_gemm {
  p0 = f8e4m3fn[64,32] parameter(0)
  p1 = f8e5m2[32,48] parameter(1)
  ROOT d = bf16[64,48] dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}

ENTRY main {
  a = f8e4m3fn[64,32] parameter(0)
  b = f8e5m2[32,48] parameter(1)
  ROOT f = bf16[64,48] fusion(a, b), kind=kCustom, calls=triton_gemm, backend_config={"fusion_backend_config":{"kind":"__triton_gemm"}}
}
`)
	if err != nil {
		t.Fatal(err)
	}
	r := report.Check(m)
	if len(r.GEMMs) != 1 || r.Fused != 1 || r.Native != 1 || r.Unfused != 0 {
		t.Fatalf("report %+v", r)
	}
	g := r.GEMMs[0]
	if g.Kind != "triton-fp8" || !g.Fused || g.Reason != "" || !g.XLA.Fusible || !g.Octet.Fusible || g.A.Parameter != 0 || g.B.Parameter != 1 {
		t.Errorf("got %+v", *g)
	}
}

// TestCheckRaggedDot: a mixture of experts' layer on FP8 tokens and experts is one GEMM, which XLA's FP8
// rewrite does not take; a ragged-dot on other data is no FP8 GEMM.
func TestCheckRaggedDot(t *testing.T) {
	m, err := parser.ParseString("moe.hlo", `HloModule moe

ENTRY main {
  x = f8e4m3fn[64,128] parameter(0)
  w = f8e4m3fn[4,128,256] parameter(1)
  g = s32[4] parameter(2)
  xs = f32[] parameter(3)
  ws = f32[] parameter(4)
  xc = bf16[64,128] convert(x)
  xb = bf16[64,128] broadcast(bf16[] convert(xs)), dimensions={}
  xd = bf16[64,128] multiply(xc, xb)
  wc = bf16[4,128,256] convert(w)
  wb = bf16[4,128,256] broadcast(bf16[] convert(ws)), dimensions={}
  wd = bf16[4,128,256] multiply(wc, wb)
  y = bf16[64,256] ragged-dot(xd, wd, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
  f = f32[64,128] parameter(5)
  h = f32[4,128,256] parameter(6)
  z = f32[64,256] ragged-dot(f, h, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
  ROOT t = (bf16[64,256], f32[64,256]) tuple(y, z)
}
`)
	if err != nil {
		t.Fatal(err)
	}
	r := report.Check(m)
	if len(r.GEMMs) != 1 || r.Fused != 0 || r.Unfused != 1 || r.Fusible != 0 {
		t.Fatalf("report %+v", r)
	}
	g := r.GEMMs[0]
	if g.Kind != "ragged-dot" || g.Name != "y" || g.Fused || g.XLA.Fusible || g.Octet.Fusible || g.A.Parameter != 0 || g.B.Parameter != 1 ||
		!strings.Contains(g.Reason, "4 groups") || !strings.Contains(g.XLA.Rule, "gemm_rewriter.cc") || !strings.HasSuffix(g.Key, ", k=128") {
		t.Errorf("got %+v", *g)
	}
}

// TestCheckTracesCalls reports a dot in a computation called once (a function JAX lowered apart, before
// XLA inlines it) with its operands traced to the entry's parameters, and one called from two places with
// its own parameters: those are no one value.
func TestCheckTracesCalls(t *testing.T) {
	src := `HloModule called

body {
  a = f8e4m3fn[16,32] parameter(0)
  b = f8e4m3fn[32,16] parameter(1)
  af = f32[16,32] convert(a)
  bf = f32[32,16] convert(b)
  ROOT d = f32[16,16] dot(af, bf), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}

ENTRY main {
  x = f8e4m3fn[16,32] parameter(0)
  w = f8e4m3fn[32,16] parameter(1)
  ROOT c = f32[16,16] call(x, w), to_apply=body
}
`
	for _, tc := range []struct {
		name string
		src  string
		a, b int64
	}{
		{"once", src, 0, 1},
		{"twice", strings.Replace(src, "  ROOT c = f32[16,16] call(x, w), to_apply=body",
			"  c = f32[16,16] call(x, w), to_apply=body\n  c2 = f32[16,16] call(x, w), to_apply=body\n  ROOT s = f32[16,16] add(c, c2)", 1), -1, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := parser.ParseString("called.hlo", tc.src)
			if err != nil {
				t.Fatal(err)
			}
			r := report.Check(m)
			if len(r.GEMMs) != 1 {
				t.Fatalf("%d GEMMs", len(r.GEMMs))
			}
			g := r.GEMMs[0]
			if g.A == nil || g.B == nil || g.A.Parameter != tc.a || g.B.Parameter != tc.b {
				t.Errorf("A %+v, B %+v; want parameters %d and %d", g.A, g.B, tc.a, tc.b)
			}
		})
	}
}

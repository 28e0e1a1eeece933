package fuse_test

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"octet/cublas"
	"octet/dtype"
	"octet/fuse"
	"octet/fuse/verify"
	"octet/fuse/xlarules"
	"octet/hlo"
	"octet/hlo/parser"
	"octet/hlo/printer"
	"octet/internal/shared"
	"octet/interp"
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

// checkInvariants verifies the rewritten module, prints it in XLA's form, parses that back and verifies
// it again.
func checkInvariants(t *testing.T, m *hlo.Module) {
	t.Helper()
	if err := hlo.Verify(m); err != nil {
		t.Fatalf("the rewritten module does not verify: %v\n%s", err, printer.Sprint(m, printer.ConfigFor(printer.StyleXLA)))
	}
	text := printer.Sprint(m, printer.ConfigFor(printer.StyleXLA))
	back, err := parser.ParseString("rewritten", text)
	if err != nil {
		t.Fatalf("the rewritten module does not parse back: %v\n%s", err, text)
	}
	if err := hlo.Verify(back); err != nil {
		t.Fatalf("the rewritten module, parsed back, does not verify: %v", err)
	}
	if again := printer.Sprint(back, printer.ConfigFor(printer.StyleXLA)); again != text {
		t.Errorf("printing the parsed-back module changes it:\n%s\nvs\n%s", text, again)
	}
}

// fusedCalls returns the FP8 calls of m, decoded.
func fusedCalls(t *testing.T, m *hlo.Module) []*cublas.Call {
	t.Helper()
	var calls []*cublas.Call
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if in.Opcode == hlo.OpCustomCall && in.CustomCallTarget() == cublas.TargetF8 {
				call, err := cublas.Decode(in)
				if err != nil {
					t.Fatalf("%%%s does not decode: %v", in.Name, err)
				}
				calls = append(calls, call)
			}
		}
	}
	return calls
}

// compare runs orig and rewritten on the same random inputs and compares them with package verify: each
// call's D element by element with the value it replaced, against the bound the formats and the GEMM
// imply, and every other output bit for bit.
func compare(t *testing.T, orig, rewritten *hlo.Module, decisions []*fuse.Decision) {
	t.Helper()
	args, err := interp.RandomInputs(orig, 1)
	if err != nil {
		t.Fatal(err)
	}
	r, err := verify.Check(orig, rewritten, decisions, args, interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Mismatches > 0 {
		t.Errorf("%d output elements differ from the original's: %s", r.Mismatches, r.FirstMismatch)
	}
	for _, g := range r.GEMMs {
		if g.Failures > 0 || g.Amax != nil && g.Amax.Share() > 1 {
			t.Errorf("%%%s: %d of %d elements beyond their bound; worst %+v; abs-max %+v", g.Dot, g.Failures, g.Elements, g.Worst, g.Amax)
		}
	}
}

func TestTestdata(t *testing.T) {
	for _, tc := range []struct {
		file     string
		fused    bool
		epilogue cublas.Epilogue
		dType    string
		calls    int
		reason   string // a substring of the refusal, or of the explanation when fused
	}{
		{"bf16_normalized.hlo", true, cublas.EpilogueDefault, "bf16", 1, "convert %a32 to f32"},
		{"per_channel_scale.hlo", false, "", "", 0, "only a multiply by a broadcast scalar (a per-tensor scale) is absorbed"},
		{"negate.hlo", false, "", "", 0, "negate %an lies between the FP8 value %a"},
		{"mixed_e5m2_out.hlo", true, cublas.EpilogueDefault, "f8e5m2", 1, "clamp %c to ±57344"},
		{"e4m3_e5m2_out.hlo", true, cublas.EpilogueDefault, "f32", 1, "an f8e5m2 D only with an f8e5m2 operand"},
		{"gelu_half_x.hlo", true, cublas.EpilogueGelu, "f32", 1, "GELU"},
		{"f32_bias.hlo", true, cublas.EpilogueDefault, "f32", 1, "the bias %bias is f32; cuBLASLt's FP8 GEMM takes a bf16 bias with an f32 result"},
		{"clamp_400.hlo", true, cublas.EpilogueDefault, "f32", 1, "not to exactly f8e4m3fn's range ±448"},
		{"one_sided.hlo", false, "", "", 0, "operand 0 (%a, bf16) has no FP8 value behind it"},
		{"relu_then_scale.hlo", true, cublas.EpilogueRelu, "f32", 1, "a scale after a bias or activation"},
		{"shared_operand.hlo", true, cublas.EpilogueBiasRelu, "f32", 2, "the bf16 %bias it was converted from"},
		{"slice_then_bias.hlo", true, cublas.EpilogueDefault, "f32", 1, "matrix bias C"},
		{"matrix_bias_alias.hlo", true, cublas.EpilogueDefault, "f32", 1, "add %out of %c: matrix bias C, beta 1"},
		{"relu_amax_noabs.hlo", true, cublas.EpilogueRelu, "f8e4m3fn", 1, "reduce %amax: the abs-max"},
		{"copy_dynamic_slice.hlo", true, cublas.EpilogueDefault, "f32", 1, "copy %bc [convert(FP8)]"},
		{"widen_before_clamp.hlo", true, cublas.EpilogueDefault, "f8e4m3fn", 1, "d_scale [divide(D, broadcast(scalar))]"},
		{"f16_bias_f32.hlo", true, cublas.EpilogueDefault, "f32", 1, "the bias %v32 is an f16 value converted to f32; with an f32 result cuBLASLt's FP8 GEMM takes only a bf16 bias"},
		{"two_matrix_adds.hlo", true, cublas.EpilogueDefault, "f32", 1, "stops at add %out: a second matrix add; the call adds one C (%c1 is already absorbed)"},
		{"amax_after_scale.hlo", true, cublas.EpilogueBias, "f32", 1, "the abs-max %amax is taken after the scale %ys: cuBLASLt's damax is the abs-max before d_scale"},
		{"current_scaling.hlo", true, cublas.EpilogueDefault, "f32", 1, "the scale %s of divide %ds is computed from the GEMM's own result"},
		{"bias_is_result.hlo", true, cublas.EpilogueDefault, "f32", 1, "stops at add %twice: C (%d) is computed from the GEMM's own result"},
		{"convert_broadcast_scale.hlo", true, cublas.EpilogueDefault, "f32", 1, "multiply %adq by converted broadcast scalar %s (bf16) [multiply(convert(FP8), convert(broadcast(scalar)))]"},
		{"deepseek_scale.hlo", true, cublas.EpilogueDefault, "bf16", 1, "multiply %adq by broadcast scalar %s2 (bf16)"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", tc.file)
			m, orig := load(t, path), load(t, path)
			r := fuse.Rewrite(m, fuse.Options{})
			if len(r.Decisions) == 0 {
				t.Fatalf("no FP8 dot found")
			}
			g := r.Decisions[len(r.Decisions)-1]
			text := g.Reason + "\n" + strings.Join(g.Explain, "\n")
			if g.Fused != tc.fused {
				t.Fatalf("fused = %v, want %v:\n%s", g.Fused, tc.fused, text)
			}
			if !strings.Contains(text, tc.reason) {
				t.Errorf("the decision does not say %q:\n%s", tc.reason, text)
			}
			calls := fusedCalls(t, m)
			if len(calls) != tc.calls {
				t.Errorf("%d FP8 calls, want %d", len(calls), tc.calls)
			}
			for _, c := range calls {
				alias, _ := c.Inst.Attr("output_to_operand_aliasing").(hlo.Aliasing)
				want := c.C != nil && c.C.Shape.Elem == c.DType && tc.file == "matrix_bias_alias.hlo"
				if (len(alias) == 1) != want || want && (alias[0].Operand != 2 || len(alias[0].Output) != 1 || alias[0].Output[0] != 0) {
					t.Errorf("%%%s: output_to_operand_aliasing %v, want it: %v", c.Inst.Name, alias, want)
				}
			}
			checkInvariants(t, m)
			if !tc.fused {
				if g.Reason == "" || g.Target != "" {
					t.Errorf("a refusal needs a reason and no target: %+v", g)
				}
				return
			}
			if g.Epilogue != tc.epilogue || g.DType != tc.dType {
				t.Errorf("epilogue %s, D %s; want %s, %s", g.Epilogue, g.DType, tc.epilogue, tc.dType)
			}
			compare(t, orig, m, r.Decisions)
		})
	}
}

// TestCorpusInvariants rewrites every case of the FP8 corpus and the examples in both operand forms: the
// result verifies, parses back, and its calls decode in the form asked for.
func TestCorpusInvariants(t *testing.T) {
	files, _ := filepath.Glob(shared.Path(t, "corpus", "fp8", "*.hlo"))
	examples, _ := filepath.Glob(shared.Path(t, "examples", "*.before.hlo"))
	files = append(files, examples...)
	if len(files) == 0 {
		shared.Missing(t, "no FP8 corpus in ../shared/corpus/fp8")
	}
	for _, f := range files {
		for _, abi := range []fuse.ABI{fuse.ABICurrent, fuse.ABILegacy} {
			name := filepath.Base(f)
			if abi == fuse.ABILegacy {
				name += "/legacy"
			}
			t.Run(name, func(t *testing.T) {
				m := load(t, f)
				r := fuse.Rewrite(m, fuse.Options{ABI: abi})
				checkInvariants(t, m)
				calls := fusedCalls(t, m)
				fused := 0
				for _, g := range r.Decisions {
					if g.Fused {
						fused++
					}
				}
				if len(calls) != fused {
					t.Errorf("%d calls for %d fused dots", len(calls), fused)
				}
				for _, c := range calls {
					if c.Legacy != (abi == fuse.ABILegacy) {
						t.Errorf("%%%s: legacy = %v", c.Inst.Name, c.Legacy)
					}
					if c.Inferred {
						t.Errorf("%%%s has no backend_config", c.Inst.Name)
					}
					if c.DType.IsFP8() && c.DScale == nil {
						t.Errorf("%%%s: an FP8 D without d_scale", c.Inst.Name)
					}
					for _, x := range []*hlo.Instruction{c.AScale, c.BScale, c.DScale} {
						if x != nil && x.Shape.Elem != dtype.F32 {
							t.Errorf("%%%s: scale %%%s is %s", c.Inst.Name, x.Name, x.Shape.Elem)
						}
					}
					for _, x := range []*hlo.Instruction{c.A, c.B} {
						if d := x.Shape.Dims; d[len(d)-1]%16 != 0 || d[len(d)-2]%16 != 0 {
							t.Errorf("%%%s: operand %s is not padded to multiples of 16", c.Inst.Name, x.Shape.Elem)
						}
					}
				}
			})
		}
	}
}

// TestExplainEveryDot checks that Analyze decides about every dot with an FP8 operand and changes nothing.
func TestExplainEveryDot(t *testing.T) {
	path := shared.Path(t, "examples", "bias_gelu_jax.before.hlo")
	m := load(t, path)
	before := printer.Sprint(m, printer.ConfigFor(printer.StyleXLA))
	r := fuse.Analyze(m)
	if after := printer.Sprint(m, printer.ConfigFor(printer.StyleXLA)); after != before {
		t.Fatalf("Analyze changed the module")
	}
	if len(r.Decisions) != 1 || !r.Decisions[0].Fused || r.Decisions[0].Epilogue != cublas.EpilogueBiasGelu {
		t.Fatalf("Analyze: %+v", r.Decisions)
	}
	for _, want := range []string{"operand 0 (A): f8e4m3fn %a, convert %a_bf16 to bf16, multiply %a_dq",
		"add %x of broadcast %bias: vector bias", "multiply %y: GELU"} {
		if !strings.Contains(strings.Join(r.Decisions[0].Explain, "\n"), want) {
			t.Errorf("the explanation lacks %q:\n%s", want, strings.Join(r.Decisions[0].Explain, "\n"))
		}
	}
}

func TestParseABI(t *testing.T) {
	for in, want := range map[string]fuse.ABI{"": fuse.ABICurrent, "current": fuse.ABICurrent, "legacy": fuse.ABILegacy} {
		if got, err := fuse.ParseABI(in); err != nil || got != want {
			t.Errorf("ParseABI(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := fuse.ParseABI("v2"); err == nil {
		t.Errorf("ParseABI(v2) did not fail")
	}
}

// TestRewriteLlama rewrites the training step: every FP8 dot becomes a call, and the module still verifies
// and parses back.
func TestRewriteLlama(t *testing.T) {
	m := load(t, shared.Path(t, "corpus", "hlo", "xla__tools__benchmarks__hlo__hlo_llama31_70b_fp8_16x8.hlo.gz"))
	r := fuse.Rewrite(m, fuse.Options{})
	fused := 0
	for _, g := range r.Decisions {
		if g.Fused {
			fused++
		}
	}
	if len(r.Decisions) != 27 || fused != 27 {
		t.Errorf("%d FP8 dots, %d fused; want 27 and 27", len(r.Decisions), fused)
	}
	checkInvariants(t, m)
}

// TestAnalyzeOctet checks that AnalyzeOctet decides as Analyze does, only without XLA's verdicts, on the
// FP8 corpus, the examples and the rewrite cases.
func TestAnalyzeOctet(t *testing.T) {
	corpus, _ := filepath.Glob(shared.Path(t, "corpus", "fp8", "*.hlo"))
	examples, _ := filepath.Glob(shared.Path(t, "examples", "*.before.hlo"))
	local, _ := filepath.Glob(filepath.Join("testdata", "*.hlo"))
	files := slices.Concat(corpus, examples, local)
	if len(local) == 0 {
		t.Fatal("no rewrite cases in testdata")
	}
	withXLA := 0
	for _, f := range files {
		m := load(t, f)
		want, got := fuse.Analyze(m).Decisions, fuse.AnalyzeOctet(m).Decisions
		for _, d := range want {
			if d.XLA.Why != "" {
				withXLA++
			}
			d.XLA = xlarules.Verdict{}
		}
		if !reflect.DeepEqual(want, got) {
			t.Errorf("%s: AnalyzeOctet decides otherwise than Analyze", f)
		}
	}
	if withXLA == 0 {
		t.Error("no decision of Analyze has an XLA verdict: the comparison shows nothing")
	}
	t.Logf("%d files, %d decisions with an XLA verdict", len(files), withXLA)
}

// TestMixedPrecisionRefused: an FP8 value scaled in mixed precision (f8 times f32, which the verifier
// allows), directly or after a convert to another FP8 type, is refused with the reason; the rewrite made
// a multiply of the FP8 type from it, which did not verify, and octet fuse failed with an internal error.
func TestMixedPrecisionRefused(t *testing.T) {
	for _, c := range []struct{ chain, reason string }{
		{`x_d = f32[16,32] multiply(x, x_sb)`, "multiply %x_d takes f8e4m3fn and gives f32 (mixed precision)"},
		{`x_d = f32[16,32] multiply(x_sb, x)`, "multiply %x_d takes f8e4m3fn and gives f32 (mixed precision)"},
		{`x_c = f8e5m2[16,32] convert(x)
  x_d = f32[16,32] divide(x_c, x_sb)`, "divide %x_d takes f8e5m2 and gives f32 (mixed precision)"},
	} {
		src := `HloModule mixed

ENTRY test {
  x = f8e4m3fn[16,32] parameter(0)
  y = f8e4m3fn[32,16] parameter(1)
  x_s = f32[] parameter(2)
  x_sb = f32[16,32] broadcast(x_s), dimensions={}
  ` + c.chain + `
  y_c = f32[32,16] convert(y)
  ROOT d = f32[16,16] dot(x_d, y_c), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
`
		m, err := parser.ParseString("mixed.hlo", src)
		if err != nil {
			t.Fatal(err)
		}
		if err := hlo.Verify(m); err != nil {
			t.Fatalf("the module does not verify: %v", err)
		}
		r := fuse.Rewrite(m, fuse.Options{})
		if len(r.Decisions) != 1 || r.Decisions[0].Fused || !strings.Contains(r.Decisions[0].Reason, c.reason) {
			t.Errorf("%s: decisions %+v, want a refusal saying %q", c.chain, r.Decisions, c.reason)
		}
		if err := hlo.Verify(m); err != nil {
			t.Errorf("%s: the module after the rewrite does not verify: %v", c.chain, err)
		}
	}
}

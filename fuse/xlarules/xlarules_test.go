package xlarules_test

import (
	"bufio"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"octet/fuse/xlarules"
	"octet/hlo"
	"octet/hlo/parser"
	"octet/internal/shared"
	"octet/stablehlo"
)

// load parses an HLO or StableHLO file and returns its dots.
func load(t *testing.T, path string) []*hlo.Instruction {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m *hlo.Module
	if strings.HasSuffix(path, ".mlir") {
		ms, err := stablehlo.ParseFile(token.NewFileSet(), path, src)
		if err != nil {
			t.Fatal(err)
		}
		m = ms[0]
	} else if m, err = parser.ParseString(path, string(src)); err != nil {
		t.Fatal(err)
	}
	if err := hlo.Verify(m); err != nil {
		t.Fatalf("%s does not verify: %v", path, err)
	}
	var out []*hlo.Instruction
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if in.Opcode == hlo.OpDot {
				out = append(out, in)
			}
		}
	}
	return out
}

func dot(t *testing.T, path string) *hlo.Instruction {
	t.Helper()
	ds := load(t, path)
	if len(ds) != 1 {
		t.Fatalf("%s: %d dots, want 1", path, len(ds))
	}
	return ds[0]
}

// target makes a target: release name, GPU name and XLA_FLAGS text ("" for the defaults).
func target(t *testing.T, release, gpu, flags string) xlarules.Target {
	t.Helper()
	tg := xlarules.DefaultTarget()
	var err error
	if release != "" {
		if tg.Release, err = xlarules.LookupRelease(release); err != nil {
			t.Fatal(err)
		}
	}
	if gpu != "" {
		if tg.GPU, err = xlarules.LookupGPU(gpu); err != nil {
			t.Fatal(err)
		}
	}
	if tg.Flags, err = xlarules.ParseFlags(flags); err != nil {
		t.Fatal(err)
	}
	return tg
}

// TestGates checks every gate of HandleDot and CreateF8CustomCall on a module made to fail (or pass) it,
// on the XLA and GPU whose source makes the difference: the verdict, the function and condition named,
// and no XLA bug (no call is made).
func TestGates(t *testing.T) {
	for _, tc := range []struct {
		file, release, gpu, flags string
		fusible                   bool
		rule, why                 string
	}{
		{"g_threshold.hlo", "", "", "", false, "IsMatrixMultiplicationTooSmallForRewriting", "(m+n)*k = 64 is below xla_gpu_gemm_rewrite_size_threshold=100"},
		{"g_threshold.hlo", "", "", "--xla_gpu_gemm_rewrite_size_threshold=0", true, "CreateF8CustomCall", "A f8e4m3fn %a, B f8e4m3fn %b"},
		{"g_types_f32_bf16.hlo", "", "", "", false, "GemmIsSupportedByCublasLt", "(A f32, B f32, D bf16) are not in TypesAreSupportedByCublasLt's table"},
		{"g_types_f16_bf16.hlo", "", "", "", false, "GemmIsSupportedByCublasLt", "(A f16, B f16, D bf16)"},
		{"g_types_bf16_fp8.hlo", "", "", "", false, "GemmIsSupportedByCublasLt", "no row gives f8e4m3fn from bf16 operands"},
		{"g_types_mixed.hlo", "", "", "", false, "GemmIsSupportedByCublasLt", "A and B must have the same type"},
		{"g_types_e4m3_e5m2out.hlo", "", "", "", false, "GemmIsSupportedByCublasLt", "f8e4m3fn x f8e4m3fn gives no f8e5m2"},
		{"g_types_e4m3_e5m2out.hlo", "0.4.31", "", "", false, "GemmIsSupportedByCublasLt", "f8e4m3fn x f8e4m3fn gives no f8e5m2"},
		{"g_types_e5m2x2.hlo", "", "", "", false, "GemmIsSupportedByCublasLt", "f8e5m2 x f8e5m2 has no row"},
		{"g_matrix_vector.hlo", "", "", "", false, "CreateF8CustomCall: operand rank", "operand 1 (%b) has rank 1"},
		{"g_matrix_vector.hlo", "0.4.31", "", "", false, "CreateF8CustomCall: operand rank", "operand 1 (%b) has rank 1"},
		{"g_collectives_spmd.hlo", "0.4.31", "", "", true, "CreateF8CustomCall", "then all-gather"},
		{"g_collectives_spmd.hlo", "0.4.32", "", "", true, "CreateF8CustomCall", "then all-gather"},
		{"g_collectives_spmd.hlo", "newest", "", "", false, "MatchFp8Param", "this XLA moves no collective"},
		{"g_collectives_mpmd.hlo", "0.4.31", "", "", false, "IsSupportedF8Pattern", "only in an SPMD-partitioned module"},
		// The batch limit of the stored sources; jaxlib 0.11.2 built a 65536-batch FP8 call (testdata/measured).
		{"g_batch.hlo", "0.4.32", "", "", false, "GemmIsSupportedByCublasLt", "65536 batches"},
		{"g_batch.hlo", "newest", "", "", true, "CreateF8CustomCall", "A f8e4m3fn %a, B f8e4m3fn %b"},
		{"g_raw.hlo", "", "sm_90", "", true, "CreateF8CustomCall", "A f8e4m3fn %a, B f8e5m2 %b"},
		{"g_raw.hlo", "", "sm_89", "", true, "CreateF8CustomCall", "A f8e4m3fn %a, B f8e5m2 %b"},
		{"g_raw.hlo", "", "sm_100", "", true, "CreateF8CustomCall", "A f8e4m3fn %a, B f8e5m2 %b"},
		{"g_raw.hlo", "", "sm_80", "", false, "CreateF8CustomCall: compute capability", "compute capability 8.0"},
		{"g_raw.hlo", "", "gfx942", "", false, "CreateF8CustomCall: operand types", "on gfx942 the input types must be f8e4m3fnuz or f8e5m2fnuz"},
		{"g_raw_fnuz.hlo", "", "gfx942", "", true, "CreateF8CustomCall", "A f8e4m3fnuz %a"},
		{"g_raw_fnuz.hlo", "0.4.31", "gfx942", "", true, "CreateF8CustomCall", "A f8e4m3fnuz %a"},
		{"g_raw_fnuz.hlo", "", "sm_90", "", false, "GemmIsSupportedByCublasLt", "(A f8e4m3fnuz, B f8e4m3fnuz, D bf16)"},
		{"g_raw_fnuz.hlo", "0.4.31", "sm_90", "", false, "CreateF8CustomCall: operand types", "on CUDA the input types must be f8e5m2 or f8e4m3fn"},
		{"g_per_channel.hlo", "", "", "", false, "CreateF8CustomCall: scaling factors", "the scale %sa is f32[32], and the scaling factors must be scalars"},
		{"g_bare_convert.hlo", "newest", "", "", true, "CreateF8CustomCall", "A f8e4m3fn %a, B f8e4m3fn %b"},
		{"g_bare_convert.hlo", "0.4.31", "", "", false, "IsSupportedF8Pattern", "IsSupportedF8Pattern wants a multiply or divide by a broadcast right after the convert"},
		{"g_noncanonical.hlo", "newest", "", "", false, "IsCublasSupportedMatMul", "operand 0 has 2 non-contracting dimensions"},
		{"g_noncanonical.hlo", "0.4.31", "", "", false, "IsMatrixMultiplication", "must have rank 2"},
	} {
		name := strings.Join([]string{tc.file, tc.release, tc.gpu, tc.flags}, " ")
		t.Run(name, func(t *testing.T) {
			tg := target(t, tc.release, tc.gpu, tc.flags)
			v := xlarules.DecideFor(dot(t, filepath.Join("testdata", tc.file)), tg)
			if v.Fusible != tc.fusible || !strings.Contains(v.Rule, tc.rule) || !strings.Contains(v.Why, tc.why) {
				t.Errorf("fusible %v, rule %q, why %q; want %v, %q, %q", v.Fusible, v.Rule, v.Why, tc.fusible, tc.rule, tc.why)
			}
			if v.Bug != "" {
				t.Errorf("a bug where XLA makes no wrong call: %s", v.Bug)
			}
			if !strings.Contains(v.Assumes, tg.GPU.Name) || !strings.Contains(v.Assumes, "XLA "+tg.Release.Name) {
				t.Errorf("assumes %q does not name %s", v.Assumes, tg)
			}
			if !strings.Contains(v.Rule, tg.Release.Rewriter.File) {
				t.Errorf("rule %q does not name the source read", v.Rule)
			}
		})
	}
}

// TestOutputSide checks the handlers after the dot on modules made for each: what the call absorbs, what
// stops it, and a bug only where XLA's own pattern matches and the call it builds is outside cuBLASLt's
// table.
func TestOutputSide(t *testing.T) {
	for _, tc := range []struct {
		file, release string
		why           string // what the verdict says was absorbed, or why not
		bug           string // "" when XLA makes no wrong call
	}{
		{"o_convert.hlo", "", "F8ConvertD takes clamp %c and convert %out as an f8e4m3fn output with d_scale %sdc (multiply %ds)", ""},
		{"o_convert.hlo", "0.4.31", "F8ConvertD takes clamp %c and convert %out as an f8e4m3fn output with d_scale %sdc (multiply %ds)", ""},
		{"o_convert_e5m2_448.hlo", "", "F8ConvertD wants the clamp's bounds to be exactly f8e5m2's lowest and max (-57344, 57344)", ""},
		{"o_convert_scalar_bounds.hlo", "", "clamp %c's bounds are not broadcasts of constants", ""},
		{"o_convert_two_users.hlo", "", "A f8e4m3fn %a, converted and multiplied by %sa, B f8e4m3fn %b, converted and multiplied by %sb", ""},
		{"o_convert_c_f32.hlo", "", "F8ConvertD gives no FP8 output with a f32 matrix bias (C must be bf16 or f16)", ""},
		{"o_convert_c_bf16.hlo", "", "FuseMatrixBiasAdd takes add %dc of %cm as the matrix bias C (bf16, beta 1); F8ConvertD takes clamp %c and convert %out as an f8e4m3fn output", ""},
		{"o_convert_table_bug.hlo", "", "F8ConvertD takes clamp %c and convert %out as an f8e5m2 output with d_scale %sd (multiply %ds)",
			"A f8e4m3fn, B f8e4m3fn, D f8e5m2 is not in cuBLASLt's FP8 matmul type table (an f8e5m2 D needs an f8e5m2 operand)"},
		{"o_convert_table_bug.hlo", "0.4.31", "as an f8e5m2 output", "an f8e5m2 D needs an f8e5m2 operand"},
		{"o_amax.hlo", "", "F8ConvertD takes clamp %c and convert %out as an f8e4m3fn output with d_scale %sd (multiply %ds), and reduce %am as the abs-max", ""},
		{"o_amax_init1.hlo", "", "the call's second user is not the abs-max reduce F8ConvertD looks for", ""},
		{"o_scale_d.hlo", "", "F8ScaleD takes multiply %ds by %s as the call's a_scale", ""},
		{"o_scale_d_a_scaled.hlo", "", "A f8e4m3fn %a, converted and multiplied by %sa, B f8e4m3fn %b, converted and multiplied by %sb", ""},
		{"o_bias_f32.hlo", "", "vector bias %x is f32: FuseVectorBiasAdd fuses an f32 bias only as a convert from bf16 or f16", ""},
		{"o_bias_bf16.hlo", "", "FuseVectorBiasAdd takes add %x of the bf16 vector %vc as the BIAS epilogue", ""},
		{"o_bias_f16.hlo", "", "a f16 bias does not go with a f32 result", ""},
		{"o_matrix_bias.hlo", "", "FuseMatrixBiasAdd takes add %x of %cm as the matrix bias C (f32, beta 1)", ""},
		{"o_relu.hlo", "", "FuseReluActivation takes maximum %r as the RELU epilogue", ""},
		{"o_bias_relu.hlo", "", "as the BIAS epilogue; FuseReluActivation takes maximum %r as the BIAS_RELU epilogue", ""},
		{"o_gelu.hlo", "", "FuseGeluActivation takes the tanh GELU ending at multiply %y as the GELU epilogue", ""},
		{"o_gelu_half_x.hlo", "", "B f8e4m3fn %b, converted and multiplied by %sb", ""},
		{"o_alpha.hlo", "", "HandleMultiply folds multiply %y by the constant 2 into alpha (alpha 2)", ""},
	} {
		t.Run(tc.file+" "+tc.release, func(t *testing.T) {
			v := xlarules.DecideFor(dot(t, filepath.Join("testdata", tc.file)), target(t, tc.release, "", ""))
			if !v.Fusible || !strings.Contains(v.Why, tc.why) {
				t.Errorf("fusible %v, why %q; want it to say %q", v.Fusible, v.Why, tc.why)
			}
			if tc.bug == "" && v.Bug != "" || tc.bug != "" && !strings.Contains(v.Bug, tc.bug) {
				t.Errorf("bug %q, want %q", v.Bug, tc.bug)
			}
			if tc.bug != "" && (!strings.Contains(v.Bug, "F8ConvertD") || !strings.Contains(v.Bug, "C bf16/D f8e4m3fn/bias bf16")) {
				t.Errorf("the bug does not name the rule that built the call and the table's rows: %s", v.Bug)
			}
		})
	}
	// The GELU and the ReLU are epilogues only where their patterns match: no activation is claimed for
	// the half-x GELU form, and nothing after a refused convert.
	for _, file := range []string{"o_gelu_half_x.hlo", "o_convert_scalar_bounds.hlo", "o_convert_e5m2_448.hlo", "o_scale_d_a_scaled.hlo"} {
		v := xlarules.Decide(dot(t, filepath.Join("testdata", file)))
		if strings.Contains(v.Why, "takes") {
			t.Errorf("%s: a handler is said to take something: %s", file, v.Why)
		}
	}
}

// TestGELUToolkit checks that the newest XLA refuses the GELU epilogue of an FP8 call below CUDA 12.4.
func TestGELUToolkit(t *testing.T) {
	tg := target(t, "", "", "")
	g := *tg.GPU
	g.Toolkit = 12030
	tg.GPU = &g
	v := xlarules.DecideFor(dot(t, filepath.Join("testdata", "o_gelu.hlo")), tg)
	if !strings.Contains(v.Why, "FuseGeluActivation refuses an FP8 call below CUDA 12.4") {
		t.Errorf("%s", v.Why)
	}
}

// outcomes is what a module's dot becomes in each release, as "0.4.31=cublaslt-fp8 0.4.32=...".
func outcomes(v xlarules.Verdict) string {
	var parts []string
	for _, c := range v.Compile {
		parts = append(parts, c.XLA+"="+c.Outcome)
	}
	return strings.Join(parts, " ")
}

// TestCompile checks the full-compile predictions: the passes that claim or change a dot before the FP8
// rewrite, by release and GPU, with the XLA flags that change them.
func TestCompile(t *testing.T) {
	ex := func(name string) string { return filepath.Join(shared.Path(t, "examples"), name) }
	for _, tc := range []struct {
		path, gpu, flags string
		want             string // outcomes by release
		path2            string // a step the newest release's path names
		flag             string // a flag the newest release's prediction names
		text             string // the newest release's outcome with its fallback, when given
	}{
		// The bf16 dequantize of the 0.4.31 and 0.4.32 optimized examples: the FP8 rewrite ran first in
		// 0.4.31; from 0.4.32 the Triton GEMM fusion takes the dot with its output multiply first.
		{ex("bf16_dequant.before.hlo"), "", "", "0.4.31=cublaslt-fp8 0.4.32=triton-dequantized newest=triton-dequantized",
			"triton-gemm-rewriter (before the FP8 rewrite) claims the dot: it fuses multiply %d_scaled", "--xla_gpu_enable_triton_gemm=false: cublaslt-fp8", ""},
		{ex("bf16_dequant.stablehlo.mlir"), "", "", "0.4.31=cublaslt-fp8 0.4.32=triton-dequantized newest=triton-dequantized",
			"TransposeFolding folds transpose %transpose.1 into the dot", "--xla_gpu_enable_triton_gemm=false: cublaslt-fp8", ""},
		{filepath.Join("testdata", "g_threshold.hlo"), "", "", "0.4.31=dot 0.4.32=dot newest=dot", "",
			"--xla_gpu_gemm_rewrite_size_threshold=0: autotuned (triton-fp8 or cublaslt-fp8)", ""},
		{filepath.Join("testdata", "g_matrix_vector.hlo"), "", "", "0.4.31=dot 0.4.32=dot newest=dot",
			"ShouldStrengthReduceDotToReduce", "--xla_gpu_enable_dot_strength_reduction=false: triton-dequantized (if autotuning picks cuBLAS: cublaslt-fp8)", ""},
		// A matrix-vector dot is no matrix multiplication cuBLAS takes: OperandUpcaster converts its FP8
		// operands to bf16 first, so the Triton GEMM reads bf16 (as jaxlib 0.11.2 made it), and the cuBLAS
		// fallback sees the converts in the fusion as a dequantize without a scale.
		{filepath.Join("testdata", "g_matrix_vector_large.hlo"), "", "", "0.4.31=triton-dequantized 0.4.32=triton-dequantized newest=triton-dequantized",
			"OperandUpcaster converts operand 0 (f8e4m3fn %a) and operand 1 (f8e4m3fn %b) to bf16", "--xla_gpu_enable_triton_gemm=false: dot",
			"triton-dequantized (if autotuning picks cuBLAS: cublaslt-fp8)"},
		{filepath.Join("testdata", "g_matrix_vector_large.hlo"), "", "--xla_gpu_enable_triton_gemm=false", "0.4.31=dot 0.4.32=dot newest=dot",
			"operand 1 (%b) has rank 1", "", ""},
		// ReshapeMover sinks the transpose below the scale, and the FP8 rewrite takes the dequantize.
		{filepath.Join("..", "testdata", "transpose_before_scale.hlo"), "", "--xla_gpu_enable_triton_gemm=false", "0.4.31=dot 0.4.32=dot newest=cublaslt-fp8",
			"ReshapeMover sinks transpose %at below the scale", "", ""},
		// The cuBLAS fallback rewrites the fusion's own computation: a bf16 dequantize outside it leaves a
		// bf16 dot (a non-FP8 call), an f32 one inside it makes the FP8 call.
		{filepath.Join("testdata", "o_convert_c_bf16.hlo"), "", "", "0.4.31=cublaslt-fp8 0.4.32=cublaslt-fp8 newest=triton-dequantized",
			"MatchFp8Param", "", "triton-dequantized (if autotuning picks cuBLAS: dot)"},
		{filepath.Join("testdata", "o_convert_c_f32.hlo"), "", "", "0.4.31=cublaslt-fp8 0.4.32=triton-dequantized newest=triton-dequantized",
			"it fuses multiply %aq", "", "triton-dequantized (if autotuning picks cuBLAS: cublaslt-fp8)"},
		// The compile errors of jaxlib 0.11.2: no call for a dot whose own types cuBLASLt does not take, and
		// an FP8 call outside cuBLASLt's FP8 type table, which no algorithm runs.
		{filepath.Join("testdata", "g_types_f32_bf16.hlo"), "", "--xla_gpu_enable_triton_gemm=false", "0.4.31=dot 0.4.32=dot newest=compile-error",
			"GEMM is not supported by cublasLt and legacy cublas fallback is removed", "", ""},
		{filepath.Join("testdata", "g_types_f32_bf16.hlo"), "", "", "0.4.31=triton-dequantized 0.4.32=triton-dequantized newest=triton-dequantized",
			"cuBLAS offers autotuning nothing for it", "", "triton-dequantized"},
		{filepath.Join("testdata", "o_convert_table_bug.hlo"), "", "--xla_gpu_enable_triton_gemm=false", "0.4.31=cublaslt-fp8 0.4.32=cublaslt-fp8 newest=compile-error",
			"All backends failed to find supported configs", "", ""},
		{filepath.Join("testdata", "o_convert_table_bug.hlo"), "", "", "0.4.31=cublaslt-fp8 0.4.32=triton-dequantized newest=triton-dequantized",
			"outside cuBLASLt's FP8 type table", "", "triton-dequantized"},
		// Scalar clamp bounds become broadcasts in the StableHLO translation, so F8ConvertD takes them in a
		// compile, though not in the module as written.
		{filepath.Join("..", "testdata", "e4m3_e5m2_out.hlo"), "", "--xla_gpu_enable_triton_gemm=false", "0.4.31=cublaslt-fp8 0.4.32=cublaslt-fp8 newest=compile-error",
			"the StableHLO translation makes the clamp's scalar bounds broadcasts", "", ""},
		{filepath.Join("testdata", "g_noncanonical.hlo"), "", "", "0.4.31=cublaslt-fp8 0.4.32=cublaslt-fp8 newest=autotuned", "DotDecomposer canonicalizes the dot", "", ""},
		{filepath.Join("testdata", "g_types_e4m3_e5m2out.hlo"), "", "", "0.4.31=triton-dequantized 0.4.32=dot newest=triton-fp8",
			"lets it take any dot Triton supports", "--xla_gpu_triton_gemm_any=false: dot", ""},
		{filepath.Join("testdata", "g_types_e4m3_e5m2out.hlo"), "", "--xla_gpu_triton_gemm_any=false", "0.4.31=triton-dequantized 0.4.32=dot newest=dot",
			"turns the FP8 dot into an f16 dot", "", ""},
		{filepath.Join("testdata", "p_triton_fp8.hlo"), "", "", "0.4.31=cublaslt-fp8 0.4.32=autotuned newest=autotuned",
			"triton-gemm-rewriter (before the FP8 rewrite) claims the dot: it fuses multiply %y", "--xla_gpu_enable_triton_gemm=false: cublaslt-fp8", ""},
		// Triton takes no f8e4m3fn on Ada: the FP8 rewrite gets the dot.
		{filepath.Join("testdata", "p_triton_fp8.hlo"), "sm_89", "", "0.4.31=cublaslt-fp8 0.4.32=cublaslt-fp8 newest=cublaslt-fp8", "CanTritonHandleGEMM", "", ""},
		{filepath.Join("testdata", "g_raw.hlo"), "sm_80", "", "0.4.31=dot 0.4.32=dot newest=dot", "compute capability 8.0", "", ""},
		// A lone FP8 dot: left to the FP8 rewrite by the pure-matmul rule while xla_gpu_triton_gemm_any is
		// false; the newest release makes it true by default, and autotuning decides.
		{filepath.Join("testdata", "g_raw.hlo"), "", "", "0.4.31=cublaslt-fp8 0.4.32=cublaslt-fp8 newest=autotuned",
			"true by default in this release", "--xla_gpu_triton_gemm_any=false: cublaslt-fp8", ""},
		{filepath.Join("testdata", "g_raw.hlo"), "", "--xla_gpu_triton_gemm_any=true", "0.4.31=cublaslt-fp8 0.4.32=autotuned newest=autotuned", "xla_gpu_triton_gemm_any is set", "--xla_gpu_cublas_fallback=false: triton-fp8", ""},
	} {
		t.Run(filepath.Base(tc.path)+" "+tc.gpu+" "+tc.flags, func(t *testing.T) {
			v := xlarules.DecideFor(dot(t, tc.path), target(t, "", tc.gpu, tc.flags))
			if got := outcomes(v); got != tc.want {
				t.Errorf("outcomes %s, want %s", got, tc.want)
			}
			newest := v.Compile[len(v.Compile)-1]
			if tc.text != "" && newest.Text() != tc.text {
				t.Errorf("newest: %s, want %s", newest.Text(), tc.text)
			}
			if tc.path2 != "" && !strings.Contains(strings.Join(newest.Path, "\n"), tc.path2) && !strings.Contains(newest.Why, tc.path2) {
				t.Errorf("the newest path does not say %q:\n%s\n%s", tc.path2, strings.Join(newest.Path, "\n"), newest.Why)
			}
			if tc.flag != "" && !strings.Contains(strings.Join(newest.Flags, "\n"), tc.flag) {
				t.Errorf("the newest prediction does not name %q: %v", tc.flag, newest.Flags)
			}
			for _, c := range v.Compile {
				if c.Why == "" {
					t.Errorf("%s: no why", c.XLA)
				}
			}
		})
	}
}

// TestCorpusOutcomes checks XLA's verdict against the outcome of XLA's own test for every row of
// corpus/fp8/expectations.tsv: fused and not_fused as listed; the numerics rows are XLA's tests of the
// numerics of the FP8 call (a non-major batch dimension, a large f32 GEMM), for which it makes one. XLA's
// tests run the rewriter on the module as written, so the verdict is the rewriter's, not a compile's.
func TestCorpusOutcomes(t *testing.T) {
	dir := shared.Path(t, "corpus", "fp8")
	f, err := os.Open(filepath.Join(dir, "expectations.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	checked := 0
	sc := bufio.NewScanner(f)
	header := true
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		fields := strings.Split(line, "\t")
		if header {
			header = false
			continue
		}
		file, outcome, note := fields[1], fields[2], fields[len(fields)-1]
		if outcome == "numerics" {
			outcome = "fused"
		}
		checked++
		t.Run(file, func(t *testing.T) {
			v := xlarules.Decide(dot(t, filepath.Join(dir, file)))
			if v.Fusible != (outcome == "fused") {
				t.Errorf("fusible = %v (%s), XLA's test says %s: %s", v.Fusible, v.Why, outcome, note)
			}
			if v.Why == "" || v.Rule == "" {
				t.Error("no why or rule")
			}
			if v.Bug != "" {
				t.Errorf("a bug reported on a case XLA handles: %s", v.Bug)
			}
		})
	}
	if checked == 0 {
		t.Fatal("no rows in expectations.tsv")
	}
}

func TestLookups(t *testing.T) {
	for _, c := range []struct {
		in, want string
	}{{"sm_90", "sm_90"}, {"sm90", "sm_90"}, {"8.9", "sm_89"}, {"SM_100", "sm_100"}, {"", "sm_90"}, {"gfx942", "gfx942"}} {
		g, err := xlarules.LookupGPU(c.in)
		if err != nil || g.Name != c.want {
			t.Errorf("LookupGPU(%q) = %v, %v; want %s", c.in, g, err, c.want)
		}
	}
	for _, bad := range []string{"sm_70", "h100", "gfx90a"} {
		if _, err := xlarules.LookupGPU(bad); err == nil || !strings.Contains(err.Error(), "known: sm_80") {
			t.Errorf("LookupGPU(%q): %v", bad, err)
		}
	}
	for _, c := range []struct{ in, want string }{{"0.4.33", "0.4.32"}, {"latest", "newest"}, {"", "newest"}, {"0.4.31", "0.4.31"}} {
		r, err := xlarules.LookupRelease(c.in)
		if err != nil || r.Name != c.want {
			t.Errorf("LookupRelease(%q) = %v, %v", c.in, r, err)
		}
	}
	if _, err := xlarules.LookupRelease("0.4.20"); err == nil {
		t.Error("an unknown release is accepted")
	}
	f, err := xlarules.ParseFlags("--xla_gpu_enable_triton_gemm=false --xla_gpu_gemm_rewrite_size_threshold=7 --xla_gpu_async_dot")
	if err != nil || f.TritonGemm || f.GemmRewriteSizeThreshold != 7 || !f.AsyncDot || len(f.Set) != 3 {
		t.Errorf("ParseFlags: %+v, %v", f, err)
	}
	for _, bad := range []string{"--xla_gpu_enable_triton_gemm=maybe", "--xla_gpu_gemm_rewrite_size_threshold=-1", "--xla_dump_to=/tmp"} {
		if _, err := xlarules.ParseFlags(bad); err == nil {
			t.Errorf("ParseFlags(%q) accepted", bad)
		}
	}
	for _, r := range xlarules.Releases() {
		if r.Rewriter.File == "" || r.Compiler.File == "" || r.Options.File == "" || r.Pin == "" {
			t.Errorf("release %s does not say what it was read from: %+v", r.Name, r)
		}
	}
	// xla_gpu_triton_gemm_any: the release's default unless given (false in the 2024 copy of
	// debug_options_flags.cc, true in the 2025 ones), and said in the verdict's assumptions.
	for _, c := range []struct {
		release, flags string
		want           bool
		assumes        string
	}{
		{"0.4.32", "", false, "xla_gpu_triton_gemm_any=false (the release's default)"},
		{"newest", "", true, "xla_gpu_triton_gemm_any=true (the release's default)"},
		{"newest", "--xla_gpu_triton_gemm_any=false", false, "--xla_gpu_triton_gemm_any=false"},
		{"0.4.31", "--xla_gpu_triton_gemm_any", true, "; --xla_gpu_triton_gemm_any"},
	} {
		tg := target(t, c.release, "", c.flags)
		if tg.GemmAny() != c.want || !strings.Contains(tg.Assumes(), c.assumes) {
			t.Errorf("%s %q: GemmAny %v, assumes %q", c.release, c.flags, tg.GemmAny(), tg.Assumes())
		}
	}
}

// TestMeasured checks the newest release's predictions against what XLA did on a GPU with every module
// of testdata/measured/outcomes.tsv (JAX 0.11.2 on an H100: the modules of testdata, of ../testdata, the
// examples, and the nine of testdata/measured): with the default flags the outcome is the prediction or
// its cuBLAS fallback (autotuning chose); with autotuning off (xla_gpu_autotune_level=0) it is the
// prediction itself; with --xla_gpu_enable_triton_gemm=false it is what the rules predict under that
// flag, a compile error with the message the prediction quotes. A module that was not compiled must hold
// an op StableHLO has no form for, which is why it could not be.
func TestMeasured(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "measured", "outcomes.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, compiled, failed := 0, 0, 0
	for _, line := range strings.Split(string(src), "\n") {
		f := strings.Split(line, "\t")
		if strings.HasPrefix(line, "#") || len(f) != 4 || f[0] == "module" {
			continue
		}
		rows++
		file, byDefault, noTriton, noAutotune := f[0], f[1], f[2], f[3]
		if byDefault != "-" {
			compiled++
		}
		if strings.HasPrefix(noTriton, xlarules.CompileError) {
			failed++
		}
		t.Run(file, func(t *testing.T) {
			path := file
			if name, ok := strings.CutPrefix(file, "shared:"); ok {
				path = shared.Path(t, filepath.FromSlash(name))
			}
			d := dot(t, filepath.FromSlash(path))
			if byDefault == "-" {
				if op := notInStableHLO(d.Parent.Module); op == nil {
					t.Errorf("not compiled, yet every op has a StableHLO form")
				}
				return
			}
			o := xlarules.DecideFor(d, target(t, "newest", "sm_90", "")).Compile
			p := o[len(o)-1]
			primary := p.Outcome
			if primary == xlarules.Autotuned {
				primary = xlarules.TritonFP8
			}
			if byDefault != primary && byDefault != p.Fallback {
				t.Errorf("default flags: XLA made %s, predicted %s", byDefault, p.Text())
			}
			if noAutotune != primary {
				t.Errorf("no autotuning: XLA made %s, predicted %s", noAutotune, primary)
			}
			o = xlarules.DecideFor(d, target(t, "newest", "sm_90", "--xla_gpu_enable_triton_gemm=false")).Compile
			got := o[len(o)-1]
			if msg, ok := strings.CutPrefix(noTriton, xlarules.CompileError+": "); ok {
				if got.Outcome != xlarules.CompileError || !strings.Contains(got.Why, msg) {
					t.Errorf("--xla_gpu_enable_triton_gemm=false: the compile failed with %q, predicted %s: %s", msg, got.Text(), got.Why)
				}
			} else if got.Outcome != noTriton {
				t.Errorf("--xla_gpu_enable_triton_gemm=false: XLA made %s, predicted %s: %s", noTriton, got.Text(), got.Why)
			}
		})
	}
	if rows != 58 || compiled != 57 || failed != 6 {
		t.Errorf("%d measured modules, %d compiled, %d compile errors; want 58, 57, 6", rows, compiled, failed)
	}
}

// notInStableHLO returns an instruction of m whose op StableHLO has no form for: the ops
// hlo_legalize_to_stablehlo.cc's hasPrivateFeaturesNotInStablehlo refuses (@9c1a507c), which XLA itself
// makes but no JAX program holds.
func notInStableHLO(m *hlo.Module) *hlo.Instruction {
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			switch in.Opcode {
			case hlo.OpAddDependency, hlo.OpAsyncStart, hlo.OpAsyncUpdate, hlo.OpAsyncDone, hlo.OpBitcast, hlo.OpCopy, hlo.OpDomain,
				hlo.OpFusion, hlo.OpStochasticConvert, hlo.OpRngGetAndUpdateState:
				return in
			}
		}
	}
	return nil
}

package xlarules

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Source is one version of an XLA source file that rules were read from.
type Source struct {
	// File is the path in openxla/xla; Commit the commit of the stored version read ("" when the stored
	// copy carries none); Note says which copy it is when that is not obvious.
	File   string
	Commit string
	Note   string
}

func (s Source) String() string {
	t := s.File
	if s.Commit != "" {
		t += "@" + short(s.Commit)
	}
	if s.Note != "" {
		t += " (" + s.Note + ")"
	}
	return t
}

func short(commit string) string {
	if len(commit) > 8 {
		return commit[:8]
	}
	return commit
}

// Release is an XLA as a JAX release pins it, and the rules its sources give. The fields after Compiler
// are the points where the releases' sources differ; every other rule is the same in all of them.
type Release struct {
	// Name is what --xla takes ("0.4.31"); JAX says which JAX release it is and when; Pin is the XLA
	// commit that release builds, with where that was read, or why it is not known.
	Name string
	JAX  string
	Pin  string
	// Rewriter, Compiler and Fusion are the versions of gemm_rewriter.cc, gpu_compiler.cc and the GEMM
	// fusion's sources the release's rules were read from; Options the debug_options_flags.cc whose
	// defaults it assumes.
	Rewriter, Compiler, Fusion, Options Source
	// Measured names the compiles on a GPU that the release's rules were checked against, and corrected
	// by where the stored sources are older than the XLA the release builds ("" when none).
	Measured string

	// fp8First: the "hlo normalization" pipeline of OptimizeHloPostLayoutAssignment runs the FP8
	// GemmRewriter before GemvRewriter and GemmFusion ("Rewrite FP8 GEMMs ahead of Triton"); otherwise
	// GemvRewriter and GemmFusion come first and the FP8 rewrite runs in AddGemmRewriterPasses after them.
	fp8First bool
	// collectives: the matcher moves all-gather, all-to-all and collective-permute before the FP8 GEMM in
	// an SPMD-partitioned module.
	collectives bool
	// bareConvert: a convert from FP8 without a scale is a dequantize (MatchFp8Param's third form); the
	// older IsSupportedF8Pattern wants a multiply or divide by a broadcast right after the convert.
	bareConvert bool
	// supportedMatMul: HandleDot's first gate is IsCublasSupportedMatMul; otherwise it is
	// IsMatrixMultiplication || IsMatrixVectorMultiplication, then the sparse operands, and it CHECKs that
	// no operand is a rank-2 transpose.
	supportedMatMul bool
	// rocmTypes: ROCm takes OCP and NANOO FP8 by architecture, checks the toolkit at run time, and
	// F8ConvertD returns early on ROCm; otherwise ROCm takes fnuz operands only.
	rocmTypes bool
	// tritonROCm: GemvRewriter and GemmFusion run on ROCm too, not only on CUDA Ampere and later.
	tritonROCm bool
	// geluToolkit: FuseGeluActivation refuses an FP8 call below CUDA 12.4.
	geluToolkit bool
	// outputAnyScalar: GemmFusion fuses a user of the dot whose other operand is a broadcast of any
	// scalar; otherwise only of a scalar constant (or a parameter).
	outputAnyScalar bool
	// rewriteAfterAutotune: AddGemmRewriterPasses, FP8 rewrite included, runs after the GEMM fusion
	// autotuner's CallInliner; otherwise only the non-FP8 GemmRewriter does.
	rewriteAfterAutotune bool
	// reduceUntriton: the dot strength reduction also reduces matrix-vector dots Triton cannot handle.
	reduceUntriton bool
	// legacyABI: the FP8 call has the six scalar operands a, b, a_scale, b_scale, c_scale, d_scale.
	legacyABI bool
	// gemmAny: xla_gpu_triton_gemm_any is true by default (DefaultDebugOptionsIgnoringFlags), so the GEMM
	// fusion claims every dot Triton supports, a lone dot too, and autotuning weighs it against cuBLAS.
	gemmAny bool

	// The fields below are where the XLA of jaxlib 0.11.2, compiled on an H100 (Measured), does otherwise
	// than the stored sources the release's other rules were read from.

	// batchLimit: GemmIsSupportedByCublasLt refuses more than 65535 batches (kMaxBatchCount); jaxlib
	// 0.11.2 built and ran a 65536-batch FP8 call.
	batchLimit bool
	// noLegacyCublas: a non-FP8 GEMM whose own types are not in cuBLASLt's table has no legacy cuBLAS call
	// to fall back on, and the compile fails ("GEMM is not supported by cublasLt and legacy cublas
	// fallback is removed").
	noLegacyCublas bool
	// outsideTableFails: an FP8 call outside cuBLASLt's FP8 type table gets no algorithm from the
	// autotuner, and the compile fails ("All backends failed to find supported configs").
	outsideTableFails bool
	// fissionFallback: the cuBLAS fallback of a Triton GEMM fusion runs the GEMM rewriter on the fusion's
	// own computation (FissionBackend), so it sees only what the fusion took: a dequantize left outside
	// is a parameter of the wider type. Otherwise the autotuner inlines the fusion and the rewriter sees
	// the whole module.
	fissionFallback bool
	// outputElementwise: the GEMM fusion takes any elementwise user Triton supports whose other operands
	// are broadcasts, parameters or constants (a clamp, an add, a maximum, a convert); otherwise only
	// users distributive over addition.
	outputElementwise bool
}

const (
	rewriterOld    = "xla/service/gpu/gemm_rewriter.cc"
	rewriterNew    = "xla/service/gpu/transforms/gemm_rewriter.cc"
	compilerFile   = "xla/service/gpu/gpu_compiler.cc"
	gemmFusionFile = "xla/service/gpu/transforms/gemm_fusion.cc"
	optionsFile    = "xla/debug_options_flags.cc"
)

// options2024 is the stored 2024 copy of debug_options_flags.cc (xla_gpu_triton_gemm_any false); the
// stored sources do not show when the default became true.
var options2024 = Source{File: optionsFile, Note: "stored 2024 copy: xla_gpu_triton_gemm_any false; when it became true is not in the stored sources"}

// measuredRun is the GPU run the newest release's rules are checked against (testdata/measured).
const measuredRun = "jaxlib 0.11.2 (git 32544801) on one H100 (sm_90): every module of fuse/xlarules/testdata, the FP8 test " +
	"modules of fuse/testdata and the examples, with the default flags, --xla_gpu_enable_triton_gemm=false and " +
	"--xla_gpu_autotune_level=0 (fuse/xlarules/testdata/measured/outcomes.tsv)"

// releases are the XLA releases the rules know, oldest first; the last is the default.
var releases = []*Release{
	{
		Name: "0.4.31",
		JAX:  "JAX 0.4.31 (July 2024)",
		Pin:  "the pin of jaxlib 0.4.31 is not among the stored JAX sources; the rules are those of the mid-2024 copies below",
		Rewriter: Source{File: rewriterOld, Commit: "7d86b99396385f85e6e04a28dc8d824fd53e91f3",
			Note: "the last stored copy at the old path: IsSupportedF8Pattern, six-operand call"},
		Compiler: Source{File: compilerFile, Note: "stored mid-2024 copy: GemmRewriter(f8_rewrite=true) before GemvRewriter and GemmFusion"},
		Fusion:   Source{File: gemmFusionFile, Commit: "8f0dbcd893b1c4fb4c187467d537a82d0ab90650", Note: "CreateDotFusion's pure-matmul rule, the same since 2023"},
		Options:  options2024,
		fp8First: true, collectives: true, legacyABI: true, batchLimit: true,
	},
	{
		Name: "0.4.32",
		JAX:  "JAX 0.4.32 (September 2024; 0.4.33 is a patch release of it with the same XLA)",
		Pin: "720b2c53346660e95abbed7cf3309a8b85e979f9 (jax-ml/jax@80e1c94 third_party/xla/workspace.bzl, " +
			"the 0.4.33 pin; that copy of the pin is not stored, so the rules are those of the copies below)",
		Rewriter: Source{File: rewriterOld, Commit: "7d86b99396385f85e6e04a28dc8d824fd53e91f3",
			Note: "the last stored copy at the old path; a convert without a scale may already be a dequantize at the pin"},
		Compiler:    Source{File: compilerFile, Note: "stored late-2024 copy: GemvRewriter and GemmFusion before AddGemmRewriterPasses"},
		Fusion:      Source{File: gemmFusionFile, Commit: "8f0dbcd893b1c4fb4c187467d537a82d0ab90650", Note: "with the late-2024 triton_tiling_propagation.cc"},
		Options:     options2024,
		collectives: true, outputAnyScalar: true, rewriteAfterAutotune: true, legacyABI: true, batchLimit: true,
	},
	{
		Name: "newest",
		JAX: "JAX 0.11.2 (jaxlib git 32544801): the newest XLA in the stored sources (JAX's revision.bzl pins b00ea9a0), " +
			"checked against what jaxlib 0.11.2 compiled on an H100",
		Pin: "b00ea9a0cdde1e3261b31efc503da2788098f4d5 (jax-ml/jax@006b290 third_party/xla/revision.bzl)",
		Rewriter: Source{File: rewriterNew, Commit: "2b5fc4eb11f46b3b70921583369311c00e294353",
			Note: "HandleDot; the output-side handlers as read at 01631ca8"},
		Compiler: Source{File: compilerFile, Note: "stored 2025 copy: DotNormalizer, GemvRewriter, GemmFusion, GemmFusionSwapOperands, AddGemmRewriterPasses"},
		Fusion:   Source{File: gemmFusionFile, Commit: "8f0dbcd893b1c4fb4c187467d537a82d0ab90650"},
		Options: Source{File: optionsFile, Commit: "00ccad5d1736ed6fc9234ae7460407891be5fbe2",
			Note: "xla_gpu_triton_gemm_any true, as in the other stored 2025 copy"},
		Measured:    measuredRun,
		gemmAny:     true,
		bareConvert: true, supportedMatMul: true, rocmTypes: true, tritonROCm: true, geluToolkit: true,
		outputAnyScalar: true, rewriteAfterAutotune: true, reduceUntriton: true,
		noLegacyCublas: true, outsideTableFails: true, fissionFallback: true, outputElementwise: true,
	},
}

// Releases returns the XLA releases the rules know, oldest first.
func Releases() []*Release { return releases }

// LookupRelease returns the release named name ("0.4.31", "0.4.32", "0.4.33", "newest", "latest" or
// "0.11.2", the JAX release the newest rules were checked against).
func LookupRelease(name string) (*Release, error) {
	switch name {
	case "0.4.33":
		name = "0.4.32"
	case "latest", "", "0.11.2":
		name = "newest"
	}
	for _, r := range releases {
		if r.Name == name {
			return r, nil
		}
	}
	var names []string
	for _, r := range releases {
		names = append(names, r.Name)
	}
	return nil, fmt.Errorf("unknown XLA release %q (known: %s)", name, strings.Join(names, ", "))
}

// Vendor is who makes a GPU.
type Vendor int

const (
	CUDA Vendor = iota
	ROCm
)

// GPU is a target as XLA's GPU compiler distinguishes them: its compute capability (CUDA) or
// architecture (ROCm), and the toolkit the rules assume it is compiled with.
type GPU struct {
	// Name is what --gpu takes ("sm_90", "gfx942"); Desc says what it is.
	Name   string
	Desc   string
	Vendor Vendor
	// Major and Minor are the CUDA compute capability (0 on ROCm).
	Major, Minor int
	// Toolkit is the CUDA or ROCm version assumed, major*1000 + minor*10 as XLA compares them.
	Toolkit int
	// nanoo: ROCm with the fnuz FP8 types (gfx94x); ocp: ROCm with OCP FP8 (gfx950).
	nanoo, ocp bool
}

// AtLeast reports whether a CUDA GPU has compute capability major.minor or later.
func (g *GPU) AtLeast(major, minor int) bool {
	return g.Vendor == CUDA && (g.Major > major || g.Major == major && g.Minor >= minor)
}

func (g *GPU) toolkitText() string {
	name := "CUDA"
	if g.Vendor == ROCm {
		name = "ROCm"
	}
	return fmt.Sprintf("%s %d.%d", name, g.Toolkit/1000, g.Toolkit%1000/10)
}

var gpus = []*GPU{
	{Name: "sm_80", Desc: "Ampere (A100)", Major: 8, Minor: 0, Toolkit: 12080},
	{Name: "sm_89", Desc: "Ada (L4, RTX 4090)", Major: 8, Minor: 9, Toolkit: 12080},
	{Name: "sm_90", Desc: "Hopper (H100, H200)", Major: 9, Minor: 0, Toolkit: 12080},
	{Name: "sm_100", Desc: "Blackwell (B200)", Major: 10, Minor: 0, Toolkit: 12080},
	{Name: "gfx942", Desc: "AMD MI300 (ROCm, fnuz FP8)", Vendor: ROCm, Toolkit: 6030, nanoo: true},
}

// GPUs returns the GPUs the rules know.
func GPUs() []*GPU { return gpus }

// LookupGPU returns the GPU named name: sm_80, sm_89, sm_90, sm_100 (also written sm89, 8.9, ...) or
// gfx942.
func LookupGPU(name string) (*GPU, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "" {
		n = "sm_90"
	}
	if strings.Count(n, ".") == 1 {
		n = "sm_" + strings.Replace(n, ".", "", 1)
	}
	if strings.HasPrefix(n, "sm") && !strings.HasPrefix(n, "sm_") {
		n = "sm_" + n[2:]
	}
	for _, g := range gpus {
		if g.Name == n {
			return g, nil
		}
	}
	var names []string
	for _, g := range gpus {
		names = append(names, g.Name)
	}
	return nil, fmt.Errorf("unknown GPU %q (known: %s)", name, strings.Join(names, ", "))
}

// Flags are the XLA debug options the rules read, with XLA's defaults. HLO text carries no debug
// options, so they come from the caller (check's --xla-flags).
type Flags struct {
	// GemmRewriteSizeThreshold is xla_gpu_gemm_rewrite_size_threshold (100).
	GemmRewriteSizeThreshold int64
	// TritonGemm is xla_gpu_enable_triton_gemm (true).
	TritonGemm bool
	// TritonGemmAny is xla_gpu_triton_gemm_any when given; nil is the release's default (false in the
	// 2024 releases, true in the newest).
	TritonGemmAny *bool
	// CublasFallback is xla_gpu_cublas_fallback (true): GEMM fusion autotuning may pick cuBLAS.
	CublasFallback bool
	// DotStrengthReduction is xla_gpu_enable_dot_strength_reduction (true).
	DotStrengthReduction bool
	// AsyncDot is xla_gpu_async_dot (false): bias fusion off.
	AsyncDot bool
	// Set lists the flags that were given, in the form given.
	Set []string
}

// DefaultFlags returns XLA's defaults.
func DefaultFlags() Flags {
	return Flags{GemmRewriteSizeThreshold: 100, TritonGemm: true, CublasFallback: true, DotStrengthReduction: true}
}

// ParseFlags reads XLA_FLAGS-style text ("--xla_gpu_enable_triton_gemm=false --xla_gpu_gemm_rewrite_size_threshold=0")
// into the defaults. Flags the rules do not read are refused, so that a prediction never silently
// ignores what the user asked for.
func ParseFlags(text string) (Flags, error) {
	f := DefaultFlags()
	for _, field := range strings.Fields(text) {
		name, value, hasValue := strings.Cut(strings.TrimLeft(field, "-"), "=")
		boolean := func(dst *bool) error {
			if !hasValue {
				*dst = true
				return nil
			}
			b, err := strconv.ParseBool(value)
			if err != nil {
				return fmt.Errorf("%s: %q is not true or false", name, value)
			}
			*dst = b
			return nil
		}
		var err error
		switch name {
		case "xla_gpu_gemm_rewrite_size_threshold":
			f.GemmRewriteSizeThreshold, err = strconv.ParseInt(value, 10, 64)
			if err != nil || f.GemmRewriteSizeThreshold < 0 {
				err = fmt.Errorf("%s: %q is not a size", name, value)
			}
		case "xla_gpu_enable_triton_gemm":
			err = boolean(&f.TritonGemm)
		case "xla_gpu_triton_gemm_any":
			var b bool
			err = boolean(&b)
			f.TritonGemmAny = &b
		case "xla_gpu_cublas_fallback":
			err = boolean(&f.CublasFallback)
		case "xla_gpu_enable_dot_strength_reduction":
			err = boolean(&f.DotStrengthReduction)
		case "xla_gpu_async_dot":
			err = boolean(&f.AsyncDot)
		default:
			return f, fmt.Errorf("XLA flag %q is not one the rules read (they read %s)", field, strings.Join(knownFlags(), ", "))
		}
		if err != nil {
			return f, err
		}
		if hasValue {
			f.Set = append(f.Set, "--"+name+"="+value)
		} else {
			f.Set = append(f.Set, "--"+name)
		}
	}
	return f, nil
}

func knownFlags() []string {
	k := []string{"xla_gpu_gemm_rewrite_size_threshold", "xla_gpu_enable_triton_gemm", "xla_gpu_triton_gemm_any",
		"xla_gpu_cublas_fallback", "xla_gpu_enable_dot_strength_reduction", "xla_gpu_async_dot"}
	sort.Strings(k)
	return k
}

// Target is what a verdict is for: an XLA release, a GPU and the debug options.
type Target struct {
	Release *Release
	GPU     *GPU
	Flags   Flags
}

// DefaultTarget is the newest release on sm_90 with XLA's default options.
func DefaultTarget() Target {
	return Target{Release: releases[len(releases)-1], GPU: gpus[2], Flags: DefaultFlags()}
}

// GemmAny is xla_gpu_triton_gemm_any as t compiles: the flag when given, else the release's default.
func (t Target) GemmAny() bool {
	if t.Flags.TritonGemmAny != nil {
		return *t.Flags.TritonGemmAny
	}
	return t.Release.gemmAny
}

// String names the target as verdicts do: "newest, sm_90".
func (t Target) String() string { return t.Release.Name + ", " + t.GPU.Name }

// Assumes says in words what a verdict for t rests on.
func (t Target) Assumes() string {
	s := fmt.Sprintf("XLA %s; %s, %s (%s); xla_gpu_gemm_rewrite_size_threshold=%d", t.Release.Name, t.GPU.Name, t.GPU.Desc,
		t.GPU.toolkitText(), t.Flags.GemmRewriteSizeThreshold)
	if t.Flags.TritonGemmAny == nil {
		s += fmt.Sprintf("; xla_gpu_triton_gemm_any=%v (the release's default)", t.Release.gemmAny)
	}
	if len(t.Flags.Set) > 0 {
		s += "; " + strings.Join(t.Flags.Set, " ")
	}
	if t.Release.Measured != "" {
		s += "; rules checked against " + strings.SplitN(t.Release.Measured, ":", 2)[0]
	}
	return s
}

// FP8First reports whether the release runs the FP8 GEMM rewrite before the Triton GEMM fusion.
func (r *Release) FP8First() bool { return r.fp8First }

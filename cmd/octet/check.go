package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"octet/fuse/report"
	"octet/fuse/xlarules"
	"octet/hlo"
)

func init() {
	register(&command{
		Name:      "check",
		UsageLine: "check [--json] [--strict] [--xla=RELEASE] [--gpu=GPU] [--xla-flags=FLAGS] FILE|DIR...",
		Short:     "list the FP8 GEMMs of compiled modules: fused or not, and why",
		Long: `Check lists every FP8 matmul of the modules in each FILE (HLO text as XLA prints it, gzipped or
not; - is standard input), typically what Compiled.as_text() or XLA_FLAGS=--xla_dump_to wrote.

A GEMM that became one cuBLASLt FP8 call (__cublas$lt$matmul$f8) is reported with its operands, scales,
epilogue, abs-max (damax) output and the type of D; both operand forms are read (today's a, b, [c],
a_scale, b_scale, [bias], [d_scale] and the six-scalar form of XLA up to 2024), and a call printed without
backend_config gets the configuration its operand shapes imply, which the report says it inferred.

Every other GEMM on FP8 data is reported as not fused: plain dots, dots computed in bf16, f16 or f32 inside
a GEMM fusion (__triton_gemm, gemm_fusion_dot, ...) or other cuBLAS calls, whose operands trace back through
fusion parameters, tuples, bitcasts, slices and concatenations to FP8 values. The report says where each
operand comes from and how it was dequantized; for a GEMM fusion of an optimized module it keeps apart what
the module shows ("seen:"), what that implies, the likely causes (inferred) and the next steps, and never
blames what the passes after the GEMM rewriter make. For a plain dot it says whether "octet fuse" would
fuse it. A GEMM fusion whose dot reads the FP8 values themselves is reported as fused natively (FP8 kept);
block-scaled GEMMs (MX formats, NVFP4: scaled-dot, __op$block_scaled_dot, cuDNN's and hipBLASLt's
block-scaled calls, and dots on block-dequantized data) are reported apart, each with XLA's verdict:
whether the module holds a block-scaled kernel (seen) or XLA would make one on Blackwell (inferred), what
an sm_90 GPU gets, and the first rule that fails (gpu generation, format pair, block size, shape
alignment, scale layout, pattern).

Every GEMM carries two verdicts: XLA's ("would XLA's FP8 GEMM rewriter fuse this dot as the module
stands", from rules written from XLA's source: every gate of HandleDot in XLA's order, the FP8 matcher,
CreateF8CustomCall and the handlers after the dot, with the function and condition that decided) and
Octet's ("can octet fuse fuse it"). --json gives each under "xla" and "octet"; XLA's has "rule" (the
function, condition and source file@commit), "assumes" (the XLA release and GPU) and a "bug" only where
XLA's own pattern matches and the call it builds is wrong (outside cuBLASLt's FP8 type table, naming the
rule and the table's rows). For a module before optimization (HLO, or StableHLO), XLA's verdict on a dot
also has "compile": what each modelled XLA release makes of it in a full compile, with the passes that
decide before the FP8 rewrite (TransposeFolding, DotDecomposer, OperandUpcaster, ReshapeMover, the dot
strength reduction, GemvRewriter, the Triton GEMM fusion, float normalization, the autotuner's cuBLAS
fallback): one of cublaslt-fp8, triton-fp8, triton-dequantized (FP8 lost), dot, autotuned, or
compile-error (XLA builds a call no cuBLASLt algorithm runs, or has no call for the dot, and the
compile fails: "why" quotes the error), with the path and the XLA flags that would change it. The text
shows XLA's verdict and the compile predictions under each dot.

--xla chooses the XLA release whose rules give the verdict: 0.4.31, 0.4.32 (also 0.4.33) or newest
(the default; also 0.11.2, the JAX release its rules were checked against on an H100); --gpu the target: sm_80, sm_89, sm_90 (the default), sm_100 or gfx942. --xla-flags takes
XLA_FLAGS text for the options the rules read (xla_gpu_gemm_rewrite_size_threshold,
xla_gpu_enable_triton_gemm, xla_gpu_triton_gemm_any, xla_gpu_cublas_fallback,
xla_gpu_enable_dot_strength_reduction, xla_gpu_async_dot): HLO text carries no debug options, so the
release's defaults apply otherwise (xla_gpu_triton_gemm_any is false in 0.4.31 and 0.4.32, true in the
newest).

A DIR argument is a folder of per-pass dumps of a module, as XLA writes them with
XLA_FLAGS='--xla_dump_to=DIR --xla_dump_hlo_pass_re=PASSES' (module_NNNN.NAME.before_optimizations.txt
and module_NNNN.NAME.SSSS.PIPELINE.after_PASS.txt). Check walks them in pass order and names, for each
FP8 GEMM, the first pass after which XLA's rules no longer fuse it or another pass claimed the dot, with
the rule that fails; or the pass that fused it. This is the way to find which pass lost a fusion.

Every module is verified (as "octet verify" does) before it is analysed. A file that cannot be read, parsed
or verified is reported on standard error (and, with --json, listed with an "error" field) and makes the
exit status 1. --strict exits with status 1 when any FP8 GEMM is not fused (for a DIR: when a pass broke a
fusion).`,
		Order: 20,
		Run:   runCheck,

		ReadsModules: true,
	})
}

// checkFile is the JSON form of the report on one file, or on one module's per-pass dumps in a folder.
type checkFile struct {
	File    string           `json:"file"`
	Modules []*report.Report `json:"modules"`
	// Error says why the file could not be read, parsed or verified; Modules is empty then.
	Error string `json:"error,omitempty"`
	// Dumps and Passes are the walk of a dump folder: the dumps in pass order and what happened to each
	// FP8 GEMM along them.
	Dumps  []report.PassDump     `json:"dumps,omitempty"`
	Passes []*report.PassFinding `json:"passes,omitempty"`
}

// checkDir walks the per-pass dumps of a folder (XLA's file names), one module at a time, in pass order,
// and says for each FP8 GEMM which pass broke its fusion.
func checkDir(inv *invocation, dir string, out io.Writer, asJSON bool, target xlarules.Target) ([]checkFile, int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, 0, err
	}
	var dumps []report.PassDump
	var odd []string
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		if d, ok := report.ParsePassDump(e.Name()); ok {
			dumps = append(dumps, d)
		} else if report.LooksLikePassDump(e.Name()) {
			odd = append(odd, strconv.Quote(e.Name()))
		}
	}
	if len(odd) > 0 {
		fmt.Fprintf(inv.stderr, "octet check: %s: left out %s named like dumps but not as XLA names them (module_NNNN.NAME.SSSS.PIPELINE.after_PASS.txt): %s\n",
			esc(dir), plural(len(odd), "file"), esc(strings.Join(odd, ", ")))
	}
	if len(dumps) == 0 {
		return nil, 0, fmt.Errorf("%s: no per-pass dumps (module_NNNN.NAME.before_optimizations.txt, "+
			"module_NNNN.NAME.SSSS.PIPELINE.after_PASS.txt) in the folder", dir)
	}
	report.SortPassDumps(dumps)
	var files []checkFile
	broken := 0
	for start := 0; start < len(dumps); {
		end := start
		for end < len(dumps) && dumps[end].ModuleID == dumps[start].ModuleID {
			end++
		}
		group := dumps[start:end]
		start = end
		tracker := report.NewPassTracker(target)
		if err := inv.trackDumps(dir, group, tracker); err != nil {
			return nil, 0, err
		}
		findings := tracker.Findings()
		cf := checkFile{File: dir, Modules: []*report.Report{}, Dumps: group, Passes: findings}
		for _, f := range findings {
			if f.Broken {
				broken++
			}
		}
		files = append(files, cf)
		if asJSON {
			continue
		}
		fmt.Fprintf(out, "%s: module %s (module_%04d): %s in pass order, %s to %s\n", esc(dir), esc(group[0].Name), group[0].ModuleID,
			plural(len(group), "dump"), esc(group[0].Pass), esc(group[len(group)-1].Pass))
		for _, f := range findings {
			fmt.Fprintf(out, "  %%%s (%s)\n", esc(f.GEMM), esc(f.Key))
			if f.Source != "" {
				fmt.Fprintf(out, "             from %s\n", esc(f.Source))
			}
			switch {
			case f.Broken:
				fmt.Fprintf(out, "             broken by pass %s (step %04d, %s): %s\n", esc(f.Pass), f.Step, esc(f.File), esc(f.What))
				if f.Then != "" {
					fmt.Fprintf(out, "             %s\n", esc(f.Then))
				}
			default:
				fmt.Fprintf(out, "             %s\n", esc(f.What))
			}
		}
	}
	return files, broken, nil
}

// trackDumps reads the dumps of group (in dir) and makes each one's report for tracker, on as many
// goroutines as there are CPUs, and adds them to tracker in the group's order, each after what reading it
// wrote on stderr. A folder of dumps may hold more text than memory: at most two dumps a goroutine are
// read and not yet added. The first dump, in order, that cannot be read ends it with its error.
func (inv *invocation) trackDumps(dir string, group []report.PassDump, tracker *report.PassTracker) error {
	n := len(group)
	workers := min(runtime.GOMAXPROCS(0), n)
	type result struct {
		r      *report.Report
		stderr []byte
		err    error
	}
	results := make([]chan result, n)
	for i := range results {
		results[i] = make(chan result, 1)
	}
	ctx, cancel := context.WithCancel(inv.ctx)
	defer cancel()
	window := make(chan struct{}, 2*workers)
	jobs := make(chan int)
	go func() {
		defer close(jobs)
		for i := range n {
			select {
			case window <- struct{}{}:
			case <-ctx.Done():
				return
			}
			jobs <- i
		}
	}()
	for range workers {
		go func() {
			for i := range jobs {
				// A copy of the invocation whose messages wait their turn.
				var stderr bytes.Buffer
				sub := *inv
				sub.ctx, sub.stderr, sub.warned = ctx, &stderr, nil
				var res result
				ms, err := sub.loadModules(filepath.Join(dir, group[i].File))
				switch {
				case err != nil:
					res.err = err
				case len(ms) != 1:
					res.err = fmt.Errorf("%s: holds %d modules; a dump holds one", group[i].File, len(ms))
				default:
					res.r = tracker.Report(ms[0])
				}
				res.stderr = stderr.Bytes()
				results[i] <- res
			}
		}()
	}
	for i := range n {
		res := <-results[i]
		inv.stderr.Write(res.stderr)
		if res.err != nil {
			return res.err
		}
		tracker.AddReport(group[i], res.r)
		<-window
	}
	return nil
}

func runCheck(inv *invocation, args []string) error {
	fs := inv.flags()
	asJSON := fs.Bool("json", false, "print the report as JSON")
	strict := fs.Bool("strict", false, "exit with status 1 when an FP8 GEMM is not fused")
	xla := fs.String("xla", "newest", "the XLA release whose rules give XLA's verdict: 0.4.31, 0.4.32 or newest")
	gpu := fs.String("gpu", "sm_90", "the GPU XLA's verdict is for: sm_80, sm_89, sm_90, sm_100 or gfx942")
	xlaFlags := fs.String("xla-flags", "", "XLA_FLAGS text for the XLA options the rules read")
	files, err := parseInterspersed(inv, fs, args)
	if err != nil {
		return err
	}
	target, err := checkTarget(*xla, *gpu, *xlaFlags)
	if err != nil {
		return usagef("%v", err)
	}
	if len(files) == 0 {
		return usagef("check takes at least one FILE")
	}
	var out bytes.Buffer
	var reports []checkFile
	unfused, failed := 0, 0
	for _, name := range files {
		if st, err := os.Stat(name); err == nil && st.IsDir() {
			cfs, broken, err := checkDir(inv, name, &out, *asJSON, target)
			if err != nil {
				fmt.Fprintln(inv.stderr, errorText(err))
				failed++
				if *asJSON {
					// As for a file: the folder is listed, with why it could not be checked.
					reports = append(reports, checkFile{File: displayName(name), Modules: []*report.Report{}, Error: err.Error()})
				}
				continue
			}
			unfused += broken
			reports = append(reports, cfs...)
			continue
		}
		display := displayName(name)
		mods, err := inv.loadModules(name)
		if err != nil {
			fmt.Fprintln(inv.stderr, errorText(err))
			failed++
			if *asJSON {
				reports = append(reports, checkFile{File: display, Modules: []*report.Report{}, Error: err.Error()})
			}
			continue
		}
		cf := checkFile{File: display}
		for _, m := range mods {
			r := report.CheckFor(m, target)
			if r.GEMMs == nil {
				r.GEMMs = []*report.GEMM{}
			}
			unfused += r.Unfused
			cf.Modules = append(cf.Modules, r)
			if !*asJSON {
				writeCheck(&out, display, r, m, target)
			}
		}
		reports = append(reports, cf)
	}
	if *asJSON {
		if reports == nil {
			reports = []checkFile{} // an array, empty, never null
		}
		if err := writeJSON(&out, reports); err != nil {
			return err
		}
	}
	if _, err := inv.stdout.Write(out.Bytes()); err != nil {
		return err
	}
	switch {
	case failed > 0:
		return &exitError{code: 1, msg: fmt.Sprintf("octet check: %s could not be checked", plural(failed, "file"))}
	case *strict && unfused > 0:
		return &exitError{code: 1, msg: fmt.Sprintf("octet check: %s not fused", plural(unfused, "FP8 GEMM"))}
	}
	return nil
}

// checkTarget reads --xla, --gpu and --xla-flags.
func checkTarget(xla, gpu, flags string) (xlarules.Target, error) {
	t := xlarules.DefaultTarget()
	var err error
	if t.Release, err = xlarules.LookupRelease(xla); err != nil {
		return t, fmt.Errorf("--xla: %v", err)
	}
	if t.GPU, err = xlarules.LookupGPU(gpu); err != nil {
		return t, fmt.Errorf("--gpu: %v", err)
	}
	if t.Flags, err = xlarules.ParseFlags(flags); err != nil {
		return t, fmt.Errorf("--xla-flags: %v", err)
	}
	return t, nil
}

// writeXLA prints XLA's verdict on a plain dot, naming the release and GPU, and the compile predictions.
func writeXLA(w io.Writer, g *report.GEMM, target xlarules.Target) {
	v := g.XLA
	differ := ""
	if v.Fusible != g.Octet.Fusible {
		differ = " (differs from octet fuse)"
	}
	fmt.Fprintf(w, "             XLA (%s)%s: %s\n", target, differ, esc(xlaText(v.Fusible, v.Why)))
	if len(v.Compile) == 0 {
		return
	}
	on := target.GPU.Name
	if len(target.Flags.Set) > 0 {
		on += " with " + strings.Join(target.Flags.Set, " ")
	}
	fmt.Fprintf(w, "             in a compile on %s: %s\n", on, xlarules.Summary(v.Compile))
	for _, c := range v.Compile {
		if c.XLA != target.Release.Name {
			continue
		}
		line := fmt.Sprintf("%s: %s", c.XLA, esc(c.Why))
		if len(c.Flags) > 0 {
			line += "; would change it: " + strings.Join(c.Flags, ", ")
		}
		fmt.Fprintf(w, "             %s\n", line)
	}
}

// writeCheck prints the report on one module.
func writeCheck(w io.Writer, file string, r *report.Report, m *hlo.Module, target xlarules.Target) {
	fusible := ""
	if r.Fusible > 0 {
		fusible = fmt.Sprintf(" (%d of them fusible by octet fuse)", r.Fusible)
	}
	extra := ""
	if r.Native > 0 {
		extra += fmt.Sprintf(" (%d natively, FP8 kept)", r.Native)
	}
	fmt.Fprintf(w, "%s: module %s: %s: %d fused%s, %d not fused%s\n", esc(file), esc(r.Module), plural(len(r.GEMMs)-r.BlockScaled, "FP8 GEMM"),
		r.Fused, extra, r.Unfused, fusible)
	if r.BlockScaled > 0 {
		fmt.Fprintf(w, "  and %s, reported apart: %s\n", plural(r.BlockScaled, "block-scaled low-precision GEMM"), blockSummary(r))
	}
	names := newInstructionNames(m)
	for _, g := range r.GEMMs {
		what := "%" + esc(g.Name)
		if g.Dot != "" {
			what += " (dot %" + esc(g.Dot) + ")"
		}
		from := ""
		if g.Source != "" {
			from = "             from " + esc(g.Source) + "\n"
		}
		if s := gemmShardingLine(names, g.Computation, g.Name, operandSource(g.A), operandSource(g.B)); s != "" {
			from += "             sharding: " + s + "\n"
		}
		switch g.Kind {
		case "triton-fp8":
			fmt.Fprintf(w, "  fused      %s in %%%s: D %s, natively: a GEMM fusion on FP8 operands (FP8 kept, no cuBLASLt call)\n",
				what, esc(g.Computation), esc(g.D))
			fmt.Fprintf(w, "%s             A: %s\n             B: %s\n", from, operandText(g.A), operandText(g.B))
			continue
		case "block-scaled":
			writeBlockScaled(w, g)
			continue
		}
		if g.Fused {
			fmt.Fprintf(w, "  fused      %%%s = %s\n%s", esc(g.Name), esc(g.Target), from)
			fmt.Fprintf(w, "             D %s = A %s x B %s\n", esc(g.D), operandText(g.A), operandText(g.B))
			scales := []string{"a_scale " + esc(g.AScale), "b_scale " + esc(g.BScale)}
			if g.CScale != "" {
				scales = append(scales, "c_scale "+esc(g.CScale))
			}
			if g.DScale != "" {
				scales = append(scales, "d_scale "+esc(g.DScale))
			}
			fmt.Fprintf(w, "             scales: %s\n", strings.Join(scales, ", "))
			damax := "no damax"
			if g.Damax {
				damax = "damax output"
			}
			line := fmt.Sprintf("epilogue %s, %s, alpha %v, beta %v", g.Epilogue, damax, g.Alpha, g.Beta)
			if g.Bias != "" {
				line += ", bias " + esc(g.Bias)
			}
			fmt.Fprintf(w, "             %s; %s operands\n", line, g.ABI)
			if g.Inferred {
				fmt.Fprintf(w, "             no backend_config: inferred both operands contracting their last dimension, alpha 1, beta 0, epilogue DEFAULT\n")
			}
			if g.XLA.Bug != "" {
				fmt.Fprintf(w, "             XLA bug: %s\n", esc(g.XLA.Bug))
			}
			continue
		}
		fmt.Fprintf(w, "  NOT FUSED  %s in %%%s: D %s\n%s", what, esc(g.Computation), esc(g.D), from)
		fmt.Fprintf(w, "             why: %s\n", esc(g.Reason))
		fmt.Fprintf(w, "             A: %s\n", operandText(g.A))
		fmt.Fprintf(w, "             B: %s\n", operandText(g.B))
		if g.XLA.Bug != "" {
			fmt.Fprintf(w, "             XLA bug: %s\n", esc(g.XLA.Bug))
		}
		if g.BlockedBy != "" && g.Kind == "dot" {
			fmt.Fprintf(w, "             blocked by: %s\n", esc(g.BlockedBy))
		}
		if g.FuseNote != "" {
			fmt.Fprintf(w, "             %s\n", esc(g.FuseNote))
		}
		if g.Kind == "dot" {
			writeXLA(w, g, target)
		}
		for _, e := range g.Explain {
			for _, p := range []string{"after the dot", "the result is converted", "seen: ", "not a cause: ", "implies: ", "likely ", "next: "} {
				if strings.HasPrefix(e, p) {
					fmt.Fprintf(w, "             %s\n", esc(e))
					break
				}
			}
		}
	}
}

func operandSource(o *report.Operand) string {
	if o == nil {
		return ""
	}
	return o.Source
}

func operandText(o *report.Operand) string {
	if o == nil {
		return "?"
	}
	if o.Via != "" {
		return esc(o.Via)
	}
	s := esc(o.Shape) + " " + esc(o.Source)
	if o.Parameter >= 0 {
		s += fmt.Sprintf(" (parameter %d)", o.Parameter)
	}
	return s
}

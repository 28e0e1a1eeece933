package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"octet/dtype"
	"octet/gemm"
	"octet/hlo"
	"octet/interp"
)

func init() {
	registerBench(&benchmark{
		Name:      "run",
		UsageLine: "bench run [--random SEED] [--reps N] [--threads N] [--module NAME] [--max-memory SIZE] [--gemm-size N] FILE",
		Short:     "run a whole program repeatedly: its GFLOP/s, and its dots' and convolutions' against the GEMM kernel's",
		Run:       benchRun,
	})
}

// benchRun evaluates a module repeatedly on random inputs and prints its throughput, the share of the
// time and the rate of its dots and convolutions, and the rate of the GEMM kernel, measured in the same
// process between the evaluations, on a square float32 product.
func benchRun(inv *invocation, args []string) error {
	fs := inv.flags()
	seed := fs.Uint64("random", 1, "random inputs from this `SEED`")
	reps := fs.Int("reps", 0, "`N` timed evaluations after one warm-up (0: as many as fit in 5 seconds, between 3 and 20)")
	threads := fs.Int("threads", 0, "use at most `N` threads (0: every core)")
	module := fs.String("module", "", "the module to run when the file holds several (its `name`)")
	maxMem := maxMemoryFlag(fs)
	gemmSize := fs.Int("gemm-size", 1024, "measure the GEMM kernel on a product of `N` x N x N")
	if err := inv.parse(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() != 1:
		return usagef("bench run takes one FILE")
	case *reps < 0 || *threads < 0:
		return usagef("--reps and --threads must not be negative")
	case *threads > maxBenchThreads:
		return usagef("--threads must be at most %d", maxBenchThreads)
	case *gemmSize < 1:
		return usagef("--gemm-size must be at least 1")
	}
	budget, err := memoryBudget(*maxMem)
	if err != nil {
		return err
	}
	// The GEMM measurement's operands (A and B, each also as float32, and C) are allocated below: a size
	// past the budget is refused first, as one past what an int counts (a make of such a length panics).
	if need := 5 * 4 * float64(*gemmSize) * float64(*gemmSize); need > math.MaxInt64/2 || budget > 0 && need > float64(budget) {
		return fmt.Errorf("--gemm-size=%d: the GEMM's matrices need %s, more than the memory budget of %s (--max-memory)",
			*gemmSize, fmtNeed(need), interp.FormatBytes(budget))
	}
	mods, err := inv.loadModules(fs.Arg(0))
	if err != nil {
		return err
	}
	m := mods[0]
	if *module != "" {
		if m, err = selectModule(mods, *module); err != nil {
			return err
		}
	} else if len(mods) > 1 {
		return fmt.Errorf("%s holds %d modules: choose one with --module", fs.Arg(0), len(mods))
	}
	opts := interp.Options{Context: inv.ctx, MaxMemory: budget, Threads: *threads}
	if err := interp.CheckMemory(m, opts); err != nil {
		return fmt.Errorf("%s: %v (--max-memory)", fs.Arg(0), err)
	}
	if *threads > 0 {
		defer gemm.SetThreads(gemm.SetThreads(*threads))
	}
	if err := randomConstants(inv, "bench run", m, *seed, *threads); err != nil {
		return err
	}
	vals, err := interp.RandomInputsThreads(m, *seed, *threads)
	if err != nil {
		return err
	}
	// The GEMM kernel's rate, on operands of the type the program's contractions mostly have.
	n := *gemmSize
	rng := rand.New(rand.NewPCG(1, 2))
	a := randomTyped(rng, dtype.F32, n, n, false)
	b := randomTyped(rng, dtype.F32, n, n, false)
	c := gemm.NewMatrix(n, n, nil)
	af, bf := float32Matrix(a), float32Matrix(b)
	gemmOnce := func() time.Duration {
		start := time.Now()
		gemm.MatMul(c, af, bf, 1, 0)
		return time.Since(start)
	}
	// run evaluates the program once and returns its profile and the process's CPU time in it.
	run := func() (*interp.Profile, time.Duration, error) {
		// Each measurement starts with the garbage of the one before collected, so that neither pays for
		// the other's.
		runtime.GC()
		p := interp.NewProfile()
		if haveProcessCPU {
			p.CPUClock = processCPU
		}
		o := opts
		o.Profile = p
		cpu0 := processCPU()
		_, err := interp.Run(m, vals, o)
		return p, processCPU() - cpu0, err
	}
	// Warm-up: page faults, packing buffers, worker goroutines.
	first, _, err := run()
	if err != nil {
		return err
	}
	gemmOnce()
	if *reps == 0 {
		*reps = min(max(int(5*time.Second/max(first.Total(), time.Millisecond)), 3), 20)
	}
	type rep struct {
		total, contract time.Duration
		cpu             time.Duration // the process's CPU time in the run
		contractCPU     time.Duration // the process's CPU time in the contractions
		gemmRate        float64       // GFLOP/s
		gemmCPU         time.Duration // the process's CPU time in gemmCount products
		gemmCount       int
	}
	gemmFLOP := 2 * float64(n) * float64(n) * float64(n)
	var runs []rep
	var flops, contractFLOPs int64
	var contracts int
	for i := 0; i < *reps; i++ {
		if err := inv.ctx.Err(); err != nil {
			return err
		}
		p, cpu, err := run()
		if err != nil {
			return err
		}
		var r rep
		r.total, r.cpu = p.Total(), cpu
		flops, contractFLOPs, contracts = 0, 0, 0
		for _, s := range p.Stats() {
			flops += s.FLOPs
			if contraction(s.Inst) {
				r.contract += s.Time
				r.contractCPU += s.CPU
				contractFLOPs += s.FLOPs
				contracts++
			}
		}
		// The kernel alternates with the program, as long as the program's contractions took, so both
		// see the same machine.
		runtime.GC()
		var spent time.Duration
		count := 0
		cpu0 := processCPU()
		for count == 0 || spent < r.contract {
			spent += gemmOnce()
			count++
		}
		r.gemmCPU, r.gemmCount = processCPU()-cpu0, count
		r.gemmRate = gemmFLOP * float64(count) / spent.Seconds() / 1e9
		runs = append(runs, r)
	}
	median := func(f func(rep) time.Duration) time.Duration {
		x := make([]time.Duration, len(runs))
		for i, r := range runs {
			x[i] = f(r)
		}
		slices.Sort(x)
		return x[len(x)/2]
	}
	total := median(func(r rep) time.Duration { return r.total })
	contract := median(func(r rep) time.Duration { return r.contract })
	ratios := make([]float64, len(runs))
	rates := make([]float64, len(runs))
	for i, r := range runs {
		rates[i] = r.gemmRate
		if r.contract > 0 {
			ratios[i] = float64(contractFLOPs) / r.contract.Seconds() / 1e9 / r.gemmRate
		}
	}
	slices.Sort(ratios)
	slices.Sort(rates)
	gemmRate := rates[len(rates)/2]
	bestContract := slices.MinFunc(runs, func(a, b rep) int { return int(a.contract - b.contract) }).contract
	bestRate := rates[len(rates)-1]
	fmt.Fprintf(inv.stdout, "module %s: %d instructions timed, %.3f GFLOP per run (%.3f in %d dots and convolutions), %d threads\n",
		m.Name, len(first.Stats()), float64(flops)/1e9, float64(contractFLOPs)/1e9, contracts, threadCount(*threads))
	if k := contractionKernels(m); len(k) > 0 {
		fmt.Fprintf(inv.stdout, "dots and convolutions on %s\n", strings.Join(k, ", "))
	}
	fmt.Fprintf(inv.stdout, "run: %d reps after a warm-up, median %s (best %s)", len(runs), fmtSeconds(total.Seconds()),
		fmtSeconds(slices.MinFunc(runs, func(a, b rep) int { return int(a.total - b.total) }).total.Seconds()))
	if haveProcessCPU {
		fmt.Fprintf(inv.stdout, ", CPU time median %s", fmtSeconds(median(func(r rep) time.Duration { return r.cpu }).Seconds()))
	}
	fmt.Fprintln(inv.stdout)
	if contracts > 0 {
		fmt.Fprintf(inv.stdout, "dots and convolutions: median %s (%.0f%% of the run), %s GFLOP/s; best %s, %s GFLOP/s\n", fmtSeconds(contract.Seconds()),
			100*contract.Seconds()/total.Seconds(), fmtGiga(contractFLOPs, contract.Seconds()),
			fmtSeconds(bestContract.Seconds()), fmtGiga(contractFLOPs, bestContract.Seconds()))
		fmt.Fprintf(inv.stdout, "gemm f32 %dx%dx%d (%s) after each run, as long as its contractions: median %.1f GFLOP/s, best %.1f\n", n, n, n,
			gemm.KernelName(n, dtype.F32, dtype.F32, false), gemmRate, bestRate)
		fmt.Fprintf(inv.stdout, "dots and convolutions at %.2f of the GEMM kernel's rate (median of the runs' ratios, which range %s; best against best %.2f)\n",
			ratios[len(ratios)/2], ratioRange(ratios), float64(contractFLOPs)/bestContract.Seconds()/1e9/bestRate)
		var contractCPU, gemmCPU time.Duration
		gemmCount := 0
		for _, r := range runs {
			contractCPU += r.contractCPU
			gemmCPU += r.gemmCPU
			gemmCount += r.gemmCount
		}
		if contractCPU > 0 && gemmCPU > 0 {
			// CPU time counts the work done, not the waiting for cores that other processes hold.
			c := float64(contractFLOPs) * float64(len(runs)) / contractCPU.Seconds() / 1e9
			g := gemmFLOP * float64(gemmCount) / gemmCPU.Seconds() / 1e9
			fmt.Fprintf(inv.stdout, "in CPU time (all runs): dots and convolutions %.1f GFLOP per CPU-second, gemm %.1f: %.2f of the GEMM kernel's rate\n", c, g, c/g)
		}
	}
	fmt.Fprintf(inv.stdout, "%s GFLOP/s\n", fmtGiga(flops, total.Seconds()))
	return nil
}

// contraction reports whether an instruction is a dot, a ragged-dot or a convolution (or a fusion whose
// work is one).
func contraction(in *hlo.Instruction) bool {
	if contractionOp(in.Opcode) {
		return true
	}
	if in.Opcode == hlo.OpFusion {
		if c := in.CalledComputation("calls"); c != nil {
			for _, x := range c.Instructions {
				if contractionOp(x.Opcode) {
					return true
				}
			}
		}
	}
	return false
}

// contractionOp reports whether op is a dot, a ragged-dot or a convolution: a product package gemm computes.
func contractionOp(op hlo.Opcode) bool {
	return op == hlo.OpDot || op == hlo.OpConvolution || op == hlo.OpRaggedDot
}

func ratioRange(r []float64) string {
	if len(r) == 0 {
		return "-"
	}
	parts := []string{strconv.FormatFloat(r[0], 'f', 2, 64), strconv.FormatFloat(r[len(r)-1], 'f', 2, 64)}
	return strings.Join(parts, "-")
}

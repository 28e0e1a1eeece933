package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"octet/blockscale"
	"octet/dtype"
	"octet/gemm"
	"octet/interp"
)

// maxBenchReps is the most --reps and --rounds bench gemm takes.
const maxBenchReps = 1_000_000

// maxBenchThreads is the most --threads the benchmarks take: every product starts that many goroutines'
// work, and past a few thousand that start-up alone takes seconds a product (100000 threads take 11 s for
// a product of 512 x 512 x 512 that one thread does in 3 ms).
const maxBenchThreads = 4096

// fmtNeed writes a byte count that may be past what an int64 counts.
func fmtNeed(b float64) string {
	if b >= 1<<62 {
		return fmt.Sprintf("%.3g bytes", b)
	}
	return interp.FormatBytes(int64(b))
}

// A benchmark is one subcommand of "octet bench": it measures one engine of octet and prints its
// throughput. Every benchmark lives beside the code it exercises (or in its own file here) and adds itself
// to the table with registerBench.
type benchmark struct {
	Name      string // the subcommand: "gemm"
	UsageLine string // after "octet ": "bench gemm [flags]"
	Short     string // one line for the list "octet bench -h" prints
	// ReadsModules says that the benchmark reads modules: its flags include --max-input.
	ReadsModules bool
	// Run measures and prints. It parses its flags through inv.flags and inv.parse, like a command; inv.cmd
	// describes the benchmark (its usage line), so usage errors and -h speak of it.
	Run func(inv *invocation, args []string) error
}

var benchmarks = map[string]*benchmark{}

func registerBench(b *benchmark) {
	if _, dup := benchmarks[b.Name]; dup {
		panic("octet: benchmark registered twice: " + b.Name)
	}
	benchmarks[b.Name] = b
}

func init() {
	register(&command{
		Name:      "bench",
		UsageLine: "bench BENCHMARK [flags] [arguments]",
		Short:     "measure the speed of octet's engines",
		Long: `Bench runs one benchmark and prints its throughput on the last line of its output, as
"<number> UNIT" (GFLOP/s for arithmetic, MB/s for text).

Run "octet bench BENCHMARK -h" for the flags of one benchmark.`,
		Order: 80,
		Run:   runBench,
	})
	registerBench(&benchmark{
		Name:      "gemm",
		UsageLine: "bench gemm [--m=M] [--n=N] [--k=K] [--a=TYPE] [--b=TYPE[,TYPE...]] [--threads=N] [--reps=N] [--rounds=N] [--trans-a] [--trans-b] [--kernel=NAME] [--weights] [--scale] [--values=codes|uniform|normal] [--tune] [--max-memory SIZE]",
		Short:     "matrix multiply C = A*B with float32 accumulation (package gemm)",
		Run:       benchGEMM,
	})
}

func runBench(inv *invocation, args []string) error {
	if len(args) == 0 {
		printBenchList(inv.stderr, inv.cmd)
		return &exitError{code: 2}
	}
	switch args[0] {
	case "-h", "-help", "--help":
		printBenchList(inv.stdout, inv.cmd)
		return errHelp
	}
	b, ok := benchmarks[args[0]]
	if !ok {
		return usagef("unknown benchmark %q (run 'octet bench -h' for the list)", args[0])
	}
	// The benchmark's own usage line goes into its usage errors and its -h output.
	inv.cmd = &command{Name: inv.cmd.Name, UsageLine: b.UsageLine, Short: b.Short, Long: b.Short, Order: inv.cmd.Order, Run: inv.cmd.Run,
		ReadsModules: b.ReadsModules}
	return b.Run(inv, args[1:])
}

func printBenchList(w io.Writer, c *command) {
	fmt.Fprintf(w, "usage: octet %s\n\n%s\n\nThe benchmarks are:\n\n", c.UsageLine, strings.TrimSpace(c.Long))
	var names []string
	for name := range benchmarks {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "\t%-10s %s\n", name, benchmarks[name].Short)
	}
}

// benchGEMM times gemm.MatMul on random matrices and prints the median throughput. With several types of
// B (--b=f8e4m3fn,mxfp4), or --rounds, it measures each in turn, round after round, and prints each one's
// median and range over the rounds.
func benchGEMM(inv *invocation, args []string) error {
	fs := inv.flags()
	m := fs.Int("m", 1024, "rows of A and C")
	n := fs.Int("n", 1024, "columns of B and C")
	k := fs.Int("k", 1024, "columns of A, rows of B")
	typeA := fs.String("a", "f32", "element type of A: f32, bf16, f16 or a type of 8 bits or fewer (f8e4m3fn, ...)")
	typeB := fs.String("b", "f32", "element type of B, as for --a; or, with --weights, a block-scaled format ("+strings.Join(blockFormatNames(), ", ")+
		"); or a comma-separated list of them, measured in turn, round after round")
	threads := fs.Int("threads", 0, "goroutines to use (0: GOMAXPROCS)")
	reps := fs.Int("reps", 0, "timed repetitions after one warm-up, in each round (0: as many as 2e10 FLOP in all, between 3 and 50, shared among the rounds)")
	rounds := fs.Int("rounds", 0, "rounds, each timing every type of --b in turn (0: 1 for one type, 5 for several)")
	transA := fs.Bool("trans-a", false, "store A transposed (K x M, row-major)")
	transB := fs.Bool("trans-b", false, "store B transposed (N x K, row-major)")
	kernel := fs.String("kernel", "", "microkernel to use: "+kernelNames()+" (default: the fastest of those that keep package gemm's numerics contract; avx512bf16, which sums in pairs, only when named)")
	weights := fs.Bool("weights", false, "pack B once as weights (gemm.PackWeights: f8e4m3fn, f8e5m2, s8, bf16; gemm.PackBlockScaled: the block-scaled formats, quantized from values uniform in [-1, 1) along K) and time gemm.MatMulWeights or gemm.MatMulBlockScaled; without it each product runs as gemm.Plan chooses (method= in the output): streamed, packed or blocked")
	scaled := fs.Bool("scale", false, "with --weights: a scale per column of B (int8 weight-only)")
	values := fs.String("values", valuesCodes, "how the operands' values are drawn: codes (any finite code of a type of 8 bits or fewer, else uniform), uniform (uniform in [-1, 1), rounded to the type), normal (uniform, with values below the type's smallest normal made zero, as subnormal codes cost microcode assists on Intel cores in kernels that decode through float32); block-scaled B is quantized from uniform values, and normal makes its subnormal elements zero")
	tune := fs.Bool("tune", false, "first choose the kernel's block sizes by a short search (a few seconds) and keep them in the user cache directory, where every later product on this CPU finds them")
	maxMem := fs.String("max-memory", "", "refuse products whose matrices need more than `SIZE` (default half of physical memory; 0: no limit)")
	if err := inv.parse(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() != 0:
		return usagef("unexpected argument %q", fs.Arg(0))
	case *m < 1 || *n < 1 || *k < 1:
		return usagef("--m, --n and --k must be at least 1")
	case *threads < 0 || *reps < 0 || *rounds < 0:
		return usagef("--threads, --reps and --rounds must not be negative")
	case *reps > maxBenchReps || *rounds > maxBenchReps:
		// Their times are kept, one each, to take the median.
		return usagef("--reps and --rounds must be at most %d", maxBenchReps)
	case *threads > maxBenchThreads:
		return usagef("--threads must be at most %d", maxBenchThreads)
	case *values != valuesCodes && *values != valuesUniform && *values != valuesNormal:
		return usagef("--values must be codes, uniform or normal, not %q", *values)
	}
	if *scaled && !*weights {
		return usagef("--scale needs --weights")
	}
	ta, ok := dtype.Lookup(*typeA)
	if !ok || !gemm.SupportedType(ta) {
		return usagef("unsupported element type %q (supported: f32, bf16, f16 and the types of 8 bits or fewer)", *typeA)
	}
	// B: element types, and with --weights block-scaled formats.
	type bType struct {
		name  string
		typ   dtype.Type
		block blockscale.Format // Valid() for a block-scaled B
	}
	var bTypes []bType
	for _, name := range strings.Split(*typeB, ",") {
		if f, ok := blockscale.Lookup(name); ok {
			switch {
			case !gemm.BlockScaledFormat(f):
				return usagef("block-scaled B of format %s: the kernels take %s", f, strings.Join(blockFormatNames(), ", "))
			case !*weights:
				return usagef("--b=%s needs --weights (block-scaled B is packed as weights)", f)
			case *scaled:
				return usagef("--scale is for weights of an element type, not of format %s", f)
			}
			bTypes = append(bTypes, bType{name: f.Name, block: f})
			continue
		}
		t, ok := dtype.Lookup(name)
		if !ok || !gemm.SupportedType(t) {
			return usagef("unsupported element type %q (supported: f32, bf16, f16 and the types of 8 bits or fewer)", name)
		}
		if *weights && !slices.Contains(gemm.WeightTypes(), t) {
			return usagef("--weights needs B of type f8e4m3fn, f8e5m2, s8 or bf16, or a block-scaled format, not %s", t)
		}
		bTypes = append(bTypes, bType{name: t.String(), typ: t})
	}
	// The matrices are allocated below: sizes past the memory budget are refused first, as sizes past
	// what an int counts (a make of such a length panics).
	budget, err := memoryBudget(*maxMem)
	if err != nil {
		return err
	}
	mf, nf, kf := float64(*m), float64(*n), float64(*k)
	need := mf*kf*float64(ta.ByteSize()) + mf*nf*4 // A and C
	for _, bt := range bTypes {
		switch {
		case bt.block.Valid():
			need += kf * nf * 6 // float32 values, their elements, the packed weights
		case *weights:
			need += 2 * kf * nf * float64(bt.typ.ByteSize()) // B and its packed copy
		case ta == dtype.F32 && bt.typ == dtype.F32:
			need += 2 * kf * nf * 4 // B, and float32 copies of A and B
			need += mf * kf * 4
		default:
			need += kf * nf * float64(bt.typ.ByteSize())
		}
	}
	if need > math.MaxInt64/2 || budget > 0 && need > float64(budget) {
		return fmt.Errorf("--m=%d --n=%d --k=%d: the matrices need %s, more than the memory budget of %s (--max-memory)",
			*m, *n, *k, fmtNeed(need), interp.FormatBytes(budget))
	}
	if *kernel != "" {
		var found *gemm.Kernel
		for _, kk := range gemm.Kernels() {
			if kk.Name() == *kernel {
				found = kk
			}
		}
		if found == nil {
			return usagef("unknown kernel %q (this machine has %s)", *kernel, kernelNames())
		}
		defer gemm.SetKernel(gemm.SetKernel(found))
	}
	defer gemm.SetThreads(gemm.SetThreads(*threads))

	if *tune {
		kern := gemm.KernelFor(ta, bTypes[0].typ)
		// Tune on a cube of 1024 (or of the product's largest dimension, when smaller).
		size := min(1024, max(*m, *n, *k))
		blocks, gflops := gemm.Tune(kern, size, 4*time.Second)
		path, err := gemm.SaveTuning()
		if err != nil {
			return fmt.Errorf("saving the block sizes: %v", err)
		}
		fmt.Fprintf(inv.stdout, "tuned %s: %v (%.1f GFLOP/s at %d^3), saved in %s\n", kern, blocks, gflops, size, path)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	a := randomValues(rng, ta, *m, *k, *transA, *values)
	c := gemm.NewMatrix(*m, *n, nil)
	// One product per type of B, with the name of its kernel and the bytes of its weights.
	type product struct {
		bType
		multiply func()
		method   gemm.Method
		kernel   string
		bytes    int
	}
	var products []product
	for _, bt := range bTypes {
		p := product{bType: bt}
		switch {
		case bt.block.Valid():
			w, g, err := blockWeights(rng, bt.block, *k, *n, *transB, *values == valuesNormal)
			if err != nil {
				return err
			}
			p.multiply = func() { gemm.MatMulBlockScaled(c, a, w, g, 0) }
			p.method, p.kernel, p.bytes = gemm.Packed, gemm.BlockScaledKernelName(*m, bt.block), w.Bytes()
		case *weights:
			b := randomValues(rng, bt.typ, *k, *n, *transB, *values)
			var scale []float32
			if *scaled {
				scale = make([]float32, *n)
				for j := range scale {
					scale[j] = float32(rng.Float64() + 0.5)
				}
			}
			w := gemm.PackWeights(b, scale)
			p.multiply = func() { gemm.MatMulWeights(c, a, w, 1, 0) }
			// The weights are laid out once: the products stream them, 16 rows at a time.
			p.method, p.bytes = gemm.Packed, *k**n*bt.typ.ByteSize()
			_, p.kernel = gemm.Plan(min(*m, 16), ta, bt.typ, false)
		case ta == dtype.F32 && bt.typ == dtype.F32:
			// The float32 API proper, as the interpreter calls it.
			af, bf := float32Matrix(a), float32Matrix(randomValues(rng, bt.typ, *k, *n, *transB, *values))
			p.multiply = func() { gemm.MatMul(c, af, bf, 1, 0) }
			p.method, p.kernel = gemm.Plan(*m, ta, bt.typ, *transB)
		default:
			b := randomValues(rng, bt.typ, *k, *n, *transB, *values)
			p.multiply = func() { gemm.MatMulTyped(c, a, b, 1, 0) }
			p.method, p.kernel = gemm.Plan(*m, ta, bt.typ, *transB)
		}
		products = append(products, p)
	}
	flop := 2 * float64(*m) * float64(*n) * float64(*k)
	if *rounds == 0 {
		*rounds = 1
		if len(products) > 1 {
			*rounds = 5
		}
	}
	if *reps == 0 {
		*reps = max(min(max(int(2e10/flop), 3), 50) / *rounds, 3)
	}
	for _, p := range products {
		p.multiply() // warm-up: page faults, packing buffers, worker goroutines
	}
	// times[i][r] are product i's times in round r; medians[i][r] their median.
	medians := make([][]time.Duration, len(products))
	var best, median time.Duration
	for r := 0; r < *rounds; r++ {
		for i, p := range products {
			times := make([]time.Duration, *reps)
			for j := range times {
				if err := inv.ctx.Err(); err != nil {
					return err
				}
				start := time.Now()
				p.multiply()
				times[j] = time.Since(start)
			}
			slices.Sort(times)
			medians[i] = append(medians[i], times[len(times)/2])
			if len(products) == 1 && *rounds == 1 {
				best, median = times[0], times[len(times)/2]
			}
		}
	}
	cpu, features := gemm.CPU()
	if cpu == "" {
		cpu = "unknown"
	}
	if len(features) == 0 {
		features = []string{"none"}
	}
	fmt.Fprintf(inv.stdout, "cpu: %s (%s)\n", cpu, strings.Join(features, " "))
	for i, p := range products {
		line := fmt.Sprintf("gemm m=%d n=%d k=%d a=%s%s b=%s%s c=f32 threads=%d method=%s kernel=%s", *m, *n, *k, ta, transSuffix(*transA),
			p.name, transSuffix(*transB), gemm.Threads(), p.method, strings.ReplaceAll(p.kernel, " ", "-"))
		if len(products) == 1 && *rounds == 1 {
			if p.bytes > 0 {
				line += fmt.Sprintf(" weights=%.2fMiB %.1fGB/s", float64(p.bytes)/(1<<20), float64(p.bytes)/median.Seconds()/1e9)
			}
			fmt.Fprintf(inv.stdout, "%s reps=%d best=%v median=%v %.1f GFLOP/s\n", line, *reps, best.Round(time.Microsecond),
				median.Round(time.Microsecond), flop/median.Seconds()/1e9)
			continue
		}
		// The median of the rounds' medians and their range; beside the first type, the median and range
		// of the rounds' ratios of its time to this one's.
		ms := slices.Clone(medians[i])
		slices.Sort(ms)
		med := ms[len(ms)/2]
		line += fmt.Sprintf(" rounds=%d reps=%d median=%v (%v-%v)", *rounds, *reps, med.Round(time.Microsecond),
			ms[0].Round(time.Microsecond), ms[len(ms)-1].Round(time.Microsecond))
		if p.bytes > 0 {
			line += fmt.Sprintf(" weights=%.2fMiB %.1fGB/s", float64(p.bytes)/(1<<20), float64(p.bytes)/med.Seconds()/1e9)
		}
		if i > 0 {
			ratios := make([]float64, *rounds)
			for r := range ratios {
				ratios[r] = medians[0][r].Seconds() / medians[i][r].Seconds()
			}
			slices.Sort(ratios)
			line += fmt.Sprintf(" vs-%s=%.2f(%.2f-%.2f)", products[0].name, ratios[len(ratios)/2], ratios[0], ratios[len(ratios)-1])
		}
		fmt.Fprintf(inv.stdout, "%s range=%.1f-%.1f %.1f GFLOP/s\n", line, flop/ms[len(ms)-1].Seconds()/1e9, flop/ms[0].Seconds()/1e9,
			flop/med.Seconds()/1e9)
	}
	return nil
}

// randomTyped returns a rows x cols matrix of type t (stored transposed when trans) of random finite
// values: uniform in [-1, 1) before rounding to t, or any finite code for types of 8 bits or fewer.
func randomTyped(rng *rand.Rand, t dtype.Type, rows, cols int, trans bool) gemm.Typed {
	return randomValues(rng, t, rows, cols, trans, valuesCodes)
}

// How bench gemm draws its operands' values (--values).
const (
	valuesCodes   = "codes"   // any finite code of a type of 8 bits or fewer; else uniform
	valuesUniform = "uniform" // uniform in [-1, 1), rounded to the type
	valuesNormal  = "normal"  // uniform, with the values below the type's smallest normal made zero
)

// randomValues returns a rows x cols matrix of type t (stored transposed when trans) of random values
// drawn as mode says.
func randomValues(rng *rand.Rand, t dtype.Type, rows, cols int, trans bool, mode string) gemm.Typed {
	size := t.ByteSize()
	data := make([]byte, rows*cols*size)
	tiny := t.Finfo().Tiny // the smallest normal
	for i := 0; i < rows*cols; i++ {
		var bits uint64
		switch {
		case size == 1 && mode == valuesCodes:
			for {
				bits = uint64(rng.IntN(256))
				if v := float64(t.DecodeFloat32(bits)); !math.IsNaN(v) && !math.IsInf(v, 0) {
					break
				}
			}
		default:
			v := float32(rng.Float64()*2 - 1)
			bits = t.EncodeFloat32(v)
			if mode == valuesNormal && math.Abs(float64(t.DecodeFloat32(bits))) < tiny {
				bits = t.EncodeFloat32(0)
			}
		}
		for j := 0; j < size; j++ {
			data[i*size+j] = byte(bits >> (8 * j))
		}
	}
	x := gemm.Typed{Type: t, Data: data, Rows: rows, Cols: cols, Stride: cols}
	if trans {
		x = gemm.Typed{Type: t, Data: data, Rows: rows, Cols: cols, Stride: rows, Trans: true}
	}
	return x
}

// float32Matrix returns the float32 matrix x (of type f32) holds.
func float32Matrix(x gemm.Typed) gemm.Matrix {
	data := make([]float32, len(x.Data)/4)
	for i := range data {
		data[i] = math.Float32frombits(binary.LittleEndian.Uint32(x.Data[4*i:]))
	}
	return gemm.Matrix{Data: data, Rows: x.Rows, Cols: x.Cols, Stride: x.Stride, Trans: x.Trans}
}

func transSuffix(t bool) string {
	if t {
		return "(T)"
	}
	return ""
}

func kernelNames() string {
	var names []string
	for _, k := range gemm.Kernels() {
		names = append(names, k.Name())
	}
	return strings.Join(names, ", ")
}

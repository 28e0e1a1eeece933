package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"unsafe"

	"octet/dtype"
	"octet/gemm"
	"octet/hlo"
	"octet/hlo/printer"
	"octet/interp"
	"octet/tensor"
)

func init() {
	register(&command{
		Name:      "run",
		UsageLine: "run [--input FILE.npy ...] [--inputs FILE.npz] [--random SEED] [-o OUT.npz] [--max-memory SIZE] [--module NAME] [--threads N] [--timeout DURATION] [--profile [--json]] FILE|-",
		Short:     "evaluate an HLO module on the CPU with XLA's numerics",
		Long: `Run evaluates the entry computation of an HLO module on the CPU, with the numerics of XLA's own
evaluator: every instruction rounds to its element type (a bf16 chain rounds at each step), conversions
are bit-exact with ml_dtypes, and the cuBLAS GEMM custom calls (__cublas$lt$matmul$f8 with its scales,
epilogue and abs-max output, __cublas$lt$matmul, __cublas$gemm) are evaluated as cuBLASLt computes them.
The other calls XLA's GPU compiler makes of instructions (cuDNN's convolutions, forward with their fused
bias, side input and activation, and backward; __cublas$triangularSolve) compute what the instructions
they were made from compute.

Inputs, one per entry parameter, come from one of:
  --input FILE.npy   repeated, in parameter order. Arrays of the narrow types (bf16, FP8, FP4, s4, ...)
                     are raw bits ('|V1', '<V2', as numpy saves ml_dtypes arrays) typed by the parameter.
  --inputs FILE.npz  an archive holding each parameter under its name ("Arg_0.1") or as argN (N the
                     parameter number); every array must be used.
  --random SEED      deterministic values that depend only on SEED and each parameter's number, shape
                     and type (so two modules of one signature get the same inputs): float arrays from
                     the standard normal distribution rounded to their type, float scalars uniform in
                     [0.5, 2), integers uniform in [-4, 4] ([0, 4] unsigned), pred values at random.

A module without parameters needs no input. The shape and type of every input must be its parameter's.

Run prints, for each array of the result, its shape, minimum, maximum, mean, NaN and infinity counts and
first values. With -o OUT.npz it also writes them: the file appears only complete (it is written to a
temporary file beside it, then renamed; an interrupted run leaves nothing behind), a new file gets the
permissions the umask leaves, an existing file keeps its own, a symbolic link is written through to the
file it names (but not one of another user in a sticky folder such as /tmp), and a name that is not a
regular file (a folder, a named pipe, a device) is refused. The arrays of the result, tuples flattened depth
first, are named out0, out1, ... (an array result is out0), narrow types stored as raw bits like the
inputs.

Before evaluating, run estimates the memory the program's buffers need and refuses, naming the largest
buffers, a program over --max-memory (default: half of the physical memory; sizes like 512MiB or 8G;
0 for no limit). The same budget bounds the array files and the arrays read from them; a .npy or .npz
header that claims more is refused before its data is read. What the interpreter does not implement (collectives over several devices, host
transfers, most custom calls, ...) is reported as FILE:LINE:COL: unsupported: WHAT.

With --timeout DURATION the evaluation stops after that long, with an error at the instruction it was
evaluating (a loop whose condition never turns false runs until then); an interrupt stops it at any time.
Either way no output file is written.

Convolutions and dots run on package gemm's kernels, and elementwise instructions and reductions on
every core (--threads N for fewer). Sums have an order fixed by the program and the shapes, so the
results are the same bits on any CPU, kernel set (OCTET_GEMM_KERNEL) and thread count: see
docs/numerics.md. A kernel that sums in its own order (OCTET_GEMM_KERNEL=avx512bf16) is named on stderr,
with how many of the program's dots and convolutions it runs. The constant work of a loop's body
(a reduce or a mask computed from constants alone) runs at the first iteration and is kept, within the
memory budget, as XLA hoists it out of the loop. A loop, call, conditional or fusion whose values are
all small (arrays of at most 64 elements: a counter, a PRNG key and its Threefry rounds, an index), or
large arrays it carries along, reads from, or (a loop's) updates in place, is compiled once to steps on
registers that hold element bits, each rounding as its instruction does, so that it costs no frame or
array per instruction: the same bits, tens of times faster for the scalar loops JAX writes. A chain of
elementwise instructions of an unfused program (f32, bf16, s32, u32 or pred values of 4096 elements or
more, whose intermediate values nothing else reads: a GELU, a Threefry round over a large array, a mask
of iotas and compares) runs as one fusion, as XLA's loop fusion would, a chunk of every instruction at a
time, without laying out the intermediate arrays; the profile counts it as one fusion named after its
last instruction.

A sharded program (GSPMD shardings, or Shardy's: JAX's sharded jit and shard_map) computes its global
values, as if on one device: sharding annotations give their operand, and a manual computation
(shard_map) runs its body on every device of its mesh, each on its shard, with its collectives between
them, and puts the shards of its results together.

With --profile, run also prints where the time went: the instructions that took it (a fusion, a reduce
or a sort counts as one instruction, its computation included; the instructions of while loops, calls
and conditionals count on their own, summed over their evaluations, but for those compiled as above,
which count as one), with their calls, FLOPs (2 per
multiply-add), bytes read and written, GFLOP/s, GB/s and share of the run; then the same summed per
opcode. With --json it prints that report as JSON instead of the summary of the result.`,
		Order: 30,
		Run:   runRun,

		ReadsModules: true,
	})
}

// threadCount is the number of threads --threads n means: n, or every core the process may use for 0.
func threadCount(n int) int {
	if n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

func runRun(inv *invocation, args []string) error {
	fs := inv.flags()
	var inputs stringList
	fs.Var(&inputs, "input", "a .npy `FILE` for the next parameter (repeat, in parameter order)")
	npz := fs.String("inputs", "", "a .npz `FILE` with the parameters by name or as arg0, arg1, ...")
	random := fs.String("random", "", "use random inputs from this `SEED` (an unsigned integer)")
	out := fs.String("o", "", "write the result to this .npz `FILE` (out0, out1, ...)")
	maxMem := maxMemoryFlag(fs)
	module := fs.String("module", "", "the module to run when the file holds several (its `name`)")
	threads := fs.Int("threads", 0, "use at most `N` threads (0: every core)")
	profile := fs.Bool("profile", false, "print the time, FLOPs and bytes of the instructions that took the time")
	asJSON := fs.Bool("json", false, "with --profile: print the profile as JSON instead of the result's summary")
	timeout := fs.Duration("timeout", 0, "stop the evaluation after `DURATION` (like 30s or 5m; 0: no limit), as a loop that never ends would need")
	pos, err := parseInterspersed(inv, fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("run takes one FILE")
	}
	sources := 0
	for _, set := range []bool{len(inputs) > 0, *npz != "", *random != ""} {
		if set {
			sources++
		}
	}
	if sources > 1 {
		return usagef("give inputs one way: --input, --inputs or --random")
	}
	if *asJSON && !*profile {
		return usagef("--json needs --profile")
	}
	if *threads < 0 {
		return usagef("--threads must not be negative")
	}
	if *timeout < 0 {
		return usagef("--timeout must not be negative")
	}
	var seed uint64
	if *random != "" {
		if seed, err = strconv.ParseUint(*random, 0, 64); err != nil {
			return usagef("--random takes an unsigned integer seed, not %q", *random)
		}
	}
	budget, err := memoryBudget(*maxMem)
	if err != nil {
		return err
	}
	// The budget bounds the program's buffers and its input arrays; 0 is no limit.
	opts := interp.Options{Context: inv.ctx, MaxMemory: budget, Threads: *threads}
	if *threads > 0 {
		defer gemm.SetThreads(gemm.SetThreads(*threads))
	}

	mods, err := inv.loadModules(pos[0])
	if err != nil {
		return err
	}
	var m *hlo.Module
	switch {
	case *module != "":
		if m, err = selectModule(mods, *module); err != nil {
			return err
		}
	case len(mods) == 1:
		m = mods[0]
	default:
		names := make([]string, len(mods))
		for i, x := range mods {
			names[i] = x.Name
		}
		return fmt.Errorf("%s holds %d modules (%s): choose one with --module", pos[0], len(mods), strings.Join(names, ", "))
	}
	if note := kernelNote(m, inv.getenv(gemm.KernelEnv)); note != "" {
		fmt.Fprintln(inv.stderr, note)
	}
	inv.maxInput = budget
	if budget == 0 {
		inv.maxInput = math.MaxInt64 - 1
	}
	if err := interp.CheckMemory(m, opts); err != nil {
		return fmt.Errorf("%s: %v (--max-memory)", pos[0], err)
	}
	params := m.Entry.Params
	var vals []interp.Value
	switch {
	case *random != "":
		if err := randomConstants(inv, "run", m, seed, *threads); err != nil {
			return err
		}
		vals, err = interp.RandomInputsThreads(m, seed, *threads)
	case len(inputs) > 0:
		vals, err = inv.readNpyInputs(params, inputs, budget)
	case *npz != "":
		vals, err = inv.readNpzInputs(params, *npz, budget)
	case len(params) > 0:
		return fmt.Errorf("%s: the entry computation %s takes %d parameters: give --input, --inputs or --random",
			pos[0], m.Entry.Name, len(params))
	}
	if err != nil {
		return err
	}
	if *profile {
		opts.Profile = interp.NewProfile()
	}
	if *timeout > 0 {
		ctx, cancel := context.WithTimeout(opts.Context, *timeout)
		defer cancel()
		opts.Context = ctx
	}
	result, err := interp.Run(m, vals, opts)
	if errors.Is(err, context.DeadlineExceeded) {
		var ie *interp.Error
		if errors.As(err, &ie) && ie.Pos.IsValid() {
			return fmt.Errorf("%s: %%%s: stopped after %s (--timeout), evaluating it", ie.Pos, ie.Inst, *timeout)
		}
		return fmt.Errorf("%s: stopped after %s (--timeout)", displayName(pos[0]), *timeout)
	}
	if err != nil {
		return err
	}
	var report *profileReport
	if *profile {
		report = newProfileReport(m, opts.Profile, threadCount(*threads))
	}
	arrays := result.Flatten()
	names := make([]string, len(arrays))
	for i := range arrays {
		names[i] = "out" + strconv.Itoa(i)
	}
	if *out != "" {
		if err := writeFileAtomic(inv.ctx, *out, func(w io.Writer) error { return tensor.WriteNpz(w, names, arrays) }); err != nil {
			return err
		}
	}
	if *asJSON {
		return report.writeJSON(inv.stdout)
	}
	for i, t := range arrays {
		writeSummary(inv.stdout, names[i], t)
	}
	if result.Kind == interp.KindToken {
		fmt.Fprintln(inv.stdout, "the result is a token")
	}
	if report != nil {
		fmt.Fprintln(inv.stdout)
		report.writeTable(inv.stdout)
	}
	return nil
}

// checkInput reports an input that does not fit its parameter.
func checkInput(p *hlo.Instruction, t *tensor.Tensor, from string) error {
	if !p.Shape.IsArray() {
		return fmt.Errorf("%s: parameter %d (%%%s) is %s, which a .npy array cannot hold; use --random",
			from, p.ParameterNumber, p.Name, p.Shape.String())
	}
	if err := interp.ArrayValue(t).Fits(p.Shape); err != nil {
		return fmt.Errorf("%s: parameter %d (%%%s): %v", from, p.ParameterNumber, p.Name, err)
	}
	return nil
}

// readNpyInputs reads one .npy file per parameter, in order, holding at most budget bytes of array data
// in all (0: no limit).
func (inv *invocation) readNpyInputs(params []*hlo.Instruction, files []string, budget int64) ([]interp.Value, error) {
	if len(files) != len(params) {
		return nil, fmt.Errorf("%d --input files for %d parameters", len(files), len(params))
	}
	vals := make([]interp.Value, len(params))
	var used int64
	for i, p := range params {
		r, size, display, err := inv.openInput(files[i])
		if err != nil {
			return nil, err
		}
		want := dtype.Invalid
		if p.Shape.IsArray() {
			want = p.Shape.Elem
		}
		// The data cannot be larger than the file.
		limit := size
		if size == 0 {
			r.Close()
			return nil, fmt.Errorf("%s: empty, not a .npy array", display)
		}
		if budget > 0 {
			if limit = min(limit, budget-used); limit <= 0 {
				r.Close()
				return nil, fmt.Errorf("%s: the inputs hold more than the memory budget of %s (--max-memory)", display, interp.FormatBytes(budget))
			}
		}
		t, err := tensor.ReadNpyFile(r, want, max(limit, 1))
		r.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", display, err)
		}
		used += int64(len(t.Data))
		if err := checkInput(p, t, display); err != nil {
			return nil, err
		}
		vals[i] = interp.ArrayValue(t)
	}
	return vals, nil
}

// readNpzInputs reads the parameters from one .npz archive, by parameter name or argN, holding at most
// budget bytes of array data (0: no limit).
func (inv *invocation) readNpzInputs(params []*hlo.Instruction, file string, budget int64) ([]interp.Value, error) {
	r, size, display, err := inv.openInput(file)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	types := map[string]dtype.Type{}
	for i, p := range params {
		if p.Shape.IsArray() {
			types[p.Name] = p.Shape.Elem
			types["arg"+strconv.Itoa(i)] = p.Shape.Elem
		}
	}
	// The names first, from the archive's directory: a missing or unknown array is reported before any
	// array is decompressed.
	var keys []string
	var keysErr error
	_, arrays, err := tensor.ReadNpzChecked(r, size, types, budget, func(names []string) error {
		keys, keysErr = npzKeys(params, names, display)
		return keysErr
	})
	switch {
	case keysErr != nil:
		return nil, keysErr // it names the file
	case err != nil:
		return nil, fmt.Errorf("%s: %v", display, err)
	}
	vals := make([]interp.Value, len(params))
	for i, p := range params {
		t := arrays[keys[i]]
		if err := checkInput(p, t, display+": "+keys[i]); err != nil {
			return nil, err
		}
		vals[i] = interp.ArrayValue(t)
	}
	return vals, nil
}

// npzKeys returns the name of each parameter's array among an archive's names: the parameter's own name
// or argN (N its number), not both; every name must be one.
func npzKeys(params []*hlo.Instruction, names []string, display string) ([]string, error) {
	has := map[string]bool{}
	for _, n := range names {
		has[n] = true
	}
	used := map[string]bool{}
	keys := make([]string, len(params))
	for i, p := range params {
		key := "arg" + strconv.Itoa(i)
		ok := has[key]
		if has[p.Name] {
			if ok && p.Name != key {
				return nil, fmt.Errorf("%s: parameter %d is there twice, as %s and %s", display, i, key, p.Name)
			}
			ok, key = true, p.Name
		}
		if !ok {
			return nil, fmt.Errorf("%s: no array for parameter %d (%%%s): name it %s or %s", display, i, p.Name, p.Name, "arg"+strconv.Itoa(i))
		}
		used[key] = true
		keys[i] = key
	}
	for _, n := range names {
		if !used[n] {
			return nil, fmt.Errorf("%s: array %q is no parameter of the entry computation", display, n)
		}
	}
	return keys, nil
}

// writeSummary prints one line about an output array and its first values.
func writeSummary(w io.Writer, name string, t *tensor.Tensor) {
	n := t.NumElements()
	fmt.Fprintf(w, "%s: %s", name, t)
	if n == 0 {
		fmt.Fprintln(w, " (empty)")
		return
	}
	ty := t.Type
	if ty.IsComplex() {
		fmt.Fprintf(w, " complex\n")
		return
	}
	// Elements are decoded one at a time: a copy of a large result in float64 would take eight times an
	// FP8 result's memory.
	at := elementReader(t)
	minV, maxV := math.Inf(1), math.Inf(-1)
	var sum float64
	var nans, infs, finite int64
	for i := range n {
		v := at(i)
		switch {
		case math.IsNaN(v):
			nans++
			continue
		case math.IsInf(v, 0):
			infs++
		default:
			sum += v
			finite++
		}
		// math.Min and math.Max, NaNs being left out above: -0 is below +0.
		if v < minV || v == minV && math.Signbit(v) {
			minV = v
		}
		if v > maxV || v == maxV && !math.Signbit(v) {
			maxV = v
		}
	}
	// Integers are printed whole (random bits, indices and counts are read exactly); their mean is not.
	if ty.IsInteger() {
		var lo, hi int64
		for i := range n {
			if compareInts(ty, t.BitsAt(i), t.BitsAt(lo)) < 0 {
				lo = i
			}
			if compareInts(ty, t.BitsAt(i), t.BitsAt(hi)) > 0 {
				hi = i
			}
		}
		fmt.Fprintf(w, "  min %s  max %s", intText(ty, t.BitsAt(lo)), intText(ty, t.BitsAt(hi)))
		fmt.Fprintf(w, "  mean %s", printer.SixDigits(sum/float64(finite)))
	} else if nans < n {
		fmt.Fprintf(w, "  min %s  max %s", printer.SixDigits(minV), printer.SixDigits(maxV))
		if finite > 0 {
			fmt.Fprintf(w, "  mean %s", printer.SixDigits(sum/float64(finite)))
		}
	}
	if ty.IsFloat() {
		fmt.Fprintf(w, "  nan %d  inf %d", nans, infs)
	}
	fmt.Fprintln(w)
	const first = 8
	parts := make([]string, 0, first)
	for i := int64(0); i < n && i < first; i++ {
		if ty.IsInteger() {
			parts = append(parts, intText(ty, t.BitsAt(i)))
		} else {
			parts = append(parts, printer.SixDigits(at(i)))
		}
	}
	more := ""
	if n > first {
		more = " ..."
	}
	fmt.Fprintf(w, "  [%s%s]\n", strings.Join(parts, " "), more)
}

// elementReader returns a function giving element i of t as a float64: for the common float types from
// the memory directly, for the others through their decoding.
func elementReader(t *tensor.Tensor) func(i int64) float64 {
	aligned := len(t.Data) > 0 && uintptr(unsafe.Pointer(unsafe.SliceData(t.Data)))%8 == 0
	switch {
	case !aligned: // a view needs the alignment of its elements
	case t.Type == dtype.F32:
		v := tensor.View[float32](t)
		return func(i int64) float64 { return float64(v[i]) }
	case t.Type == dtype.F64:
		v := tensor.View[float64](t)
		return func(i int64) float64 { return v[i] }
	case t.Type == dtype.BF16:
		v := tensor.View[uint16](t)
		return func(i int64) float64 { return float64(math.Float32frombits(uint32(v[i]) << 16)) }
	}
	ty := t.Type
	return func(i int64) float64 { return ty.DecodeFloat64(t.BitsAt(i)) }
}

// signedValue is the value of the signed integer of type ty whose bits are b.
func signedValue(ty dtype.Type, b uint64) int64 {
	w := ty.BitWidth()
	return int64(b<<(64-w)) >> (64 - w)
}

// intText prints the integer of type ty whose bits are b.
func intText(ty dtype.Type, b uint64) string {
	if ty.IsSigned() {
		return strconv.FormatInt(signedValue(ty, b), 10)
	}
	return strconv.FormatUint(b, 10)
}

// compareInts compares the integers of type ty whose bits are a and b: -1, 0 or 1.
func compareInts(ty dtype.Type, a, b uint64) int {
	if ty.IsSigned() {
		return cmp.Compare(signedValue(ty, a), signedValue(ty, b))
	}
	return cmp.Compare(a, b)
}

// kernelNote says, when the GEMM kernel is not an ordered one (the bf16 dot-product kernel, chosen with
// OCTET_GEMM_KERNEL), which of m's contractions it runs: their sums are in its own order, not the one
// docs/numerics.md fixes, so their results may differ from those of every other kernel. env is the
// variable's value. "" for an ordered kernel.
func kernelNote(m *hlo.Module, env string) string {
	k := gemm.CurrentKernel()
	if k.Ordered() {
		return ""
	}
	var on, all int
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if a, b, ok := contractionTypes(in); ok {
				all++
				if !gemm.KernelFor(a, b).Ordered() {
					on++
				}
			}
		}
	}
	chosen := ""
	if env != "" {
		chosen = fmt.Sprintf(" (%s=%s)", gemm.KernelEnv, env)
	}
	if on == 0 {
		return fmt.Sprintf("octet run: the GEMM kernel %s%s is not ordered, but none of the module's %d dots and "+
			"convolutions runs on it: their sums are in the order docs/numerics.md fixes", k, chosen, all)
	}
	return fmt.Sprintf("octet run: the GEMM kernel %s%s is not ordered: %d of the module's %d dots and convolutions "+
		"run on it, summing in its own order instead of the one docs/numerics.md fixes, so their results may "+
		"differ in the last bits from those of the other kernels", k, chosen, on, all)
}

// randomConstants gives the constants whose values m's text elides ({...}) random values from seed, as
// XLA's parser does for the modules its tools run, and says so on stderr.
func randomConstants(inv *invocation, name string, m *hlo.Module, seed uint64, threads int) error {
	n, err := interp.RandomConstants(m, seed, threads)
	if err != nil {
		return err
	}
	if n > 0 {
		fmt.Fprintf(inv.stderr, "octet %s: %d constants whose values the text elides ({...}) take random values from seed %d, as XLA's parser fills them\n",
			name, n, seed)
	}
	return nil
}

package interp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"octet/gemm"
	"octet/hlo"
)

// numericsChild is set in the environment of the processes TestNumericsContract starts: the file to
// write the results' digests to.
const numericsChild = "OCTET_NUMERICS_DIGESTS"

// numericsPrograms are the programs of testdata/numerics: convolutions of every kind, dots of every
// operand type, reductions shorter and longer than a block, elementwise chains of narrow types.
func numericsPrograms(t *testing.T) map[string]*hlo.Module {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "numerics", "*.hlo"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no programs in testdata/numerics: %v", err)
	}
	mods := map[string]*hlo.Module{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		mods[filepath.Base(f)] = parseModule(t, string(src))
	}
	return mods
}

// digests runs each program on the inputs of RandomInputs(1) and returns the SHA-256 of each result
// array's bits, by program and array.
func digests(t *testing.T) map[string][]string {
	out := map[string][]string{}
	for name, m := range numericsPrograms(t) {
		args, err := RandomInputs(m, 1)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Run(m, args, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, a := range r.Flatten() {
			h := sha256.Sum256(a.Data)
			out[name] = append(out[name], hex.EncodeToString(h[:8]))
		}
	}
	return out
}

// TestNumericsChild computes the digests in a process TestNumericsContract started.
func TestNumericsChild(t *testing.T) {
	path := os.Getenv(numericsChild)
	if path == "" {
		t.Skip("run by TestNumericsContract")
	}
	data, err := json.Marshal(digests(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestNumericsContract runs the same programs in processes with every kernel set (OCTET_GEMM_KERNEL:
// the default, avx512, avx2 and go, where the machine has them), one and two threads (GOMAXPROCS), and with and
// without a tuning cache of unusual block sizes, and requires the same bits from all of them (see
// docs/numerics.md).
//
// Programs whose float dots and convolutions go through package gemm get the same bits because its
// kernels sum in the contract's order, which the test requires (requireChain); any difference fails.
func TestNumericsContract(t *testing.T) {
	if os.Getenv(numericsChild) != "" {
		t.Skip("in a child process")
	}
	if testing.Short() {
		t.Skip("starts a dozen processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Every kernel set this machine has, but the bf16 dot-product kernel, whose order is its own and which
	// runs only when named (see docs/numerics.md).
	kernels := []string{""}
	for _, k := range gemm.Kernels() {
		if k.Name() != "avx512bf16" {
			kernels = append(kernels, k.Name())
		}
	}
	// A tuning cache with small blocks for every kernel of this CPU: sums of K = 1000 cross several.
	cacheDir := t.TempDir()
	cpu, _ := gemm.CPU()
	entry := map[string]gemm.Blocks{}
	for _, k := range gemm.Kernels() {
		mr, nr := k.Tile()
		entry[k.Name()] = gemm.Blocks{MC: 2 * mr, KC: 96, NC: 4 * nr}
	}
	cache, _ := json.Marshal(map[string]map[string]gemm.Blocks{cpu: entry})
	if err := os.MkdirAll(filepath.Join(cacheDir, "octet"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cacheDir, "octet", "gemm-blocks.json"), cache, 0o644); err != nil {
		t.Fatal(err)
	}
	type config struct {
		kernel  string
		threads int
		tuned   bool
	}
	name := func(c config) string {
		k := c.kernel
		if k == "" {
			k = "default"
		}
		s := fmt.Sprintf("kernel=%s threads=%d", k, c.threads)
		if c.tuned {
			s += " tuned"
		}
		return s
	}
	var configs []config
	for _, k := range kernels {
		for _, th := range []int{1, 2} {
			configs = append(configs, config{k, th, false})
		}
		configs = append(configs, config{k, 2, true})
	}
	results := map[config]map[string][]string{}
	for _, c := range configs {
		out := filepath.Join(t.TempDir(), "digests.json")
		cmd := exec.Command(exe, "-test.run=^TestNumericsChild$", "-test.count=1")
		env := []string{numericsChild + "=" + out, fmt.Sprintf("GOMAXPROCS=%d", c.threads), gemm.KernelEnv + "=" + c.kernel}
		home := t.TempDir() // no tuning cache
		if c.tuned {
			home = cacheDir
		}
		env = append(env, "XDG_CACHE_HOME="+home, "HOME="+home)
		for _, kv := range os.Environ() {
			k, _, _ := strings.Cut(kv, "=")
			if k != "GOMAXPROCS" && k != gemm.KernelEnv && k != "XDG_CACHE_HOME" && k != "HOME" && k != numericsChild {
				env = append(env, kv)
			}
		}
		cmd.Env = env
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", name(c), err, msg)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		d := map[string][]string{}
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatal(err)
		}
		results[c] = d
	}
	exactGEMM := requireChain(t)
	mods := numericsPrograms(t)
	base := configs[0]
	var programs []string
	for p := range results[base] {
		programs = append(programs, p)
	}
	slices.Sort(programs)
	for _, c := range configs[1:] {
		for _, p := range programs {
			if slices.Equal(results[c][p], results[base][p]) {
				continue
			}
			// Threads never change the bits; kernels and blocks do only through package gemm.
			sameKernel := c.kernel == base.kernel && !c.tuned
			if !sameKernel && !exactGEMM && usesGEMM(mods[p]) {
				t.Logf("%s: %s differs from %s; its dots and convolutions go through package gemm, whose kernels do not sum in the contract's order in this build", p, name(c), name(base))
				continue
			}
			t.Errorf("%s: %s gives other bits than %s\n%v\n%v", p, name(c), name(base), results[c][p], results[base][p])
		}
	}
}

// usesGEMM reports whether a module has float dots or convolutions of 32 bits or fewer, which package gemm
// evaluates.
func usesGEMM(m *hlo.Module) bool {
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if (in.Opcode == hlo.OpDot || in.Opcode == hlo.OpConvolution) && in.Shape.IsArray() && domainOf(in.Shape.Elem) == domFloat32 {
				return true
			}
		}
	}
	return false
}

// TestNumericsThreads runs the programs with a multiplier that sums in the contract's order, on one, two
// and three goroutines: what the interpreter computes itself (convolution windows, elementwise chunks,
// reductions, random inputs) must not depend on their number.
func TestNumericsThreads(t *testing.T) {
	for name, m := range numericsPrograms(t) {
		var want []string
		for _, threads := range []int{1, 2, 3} {
			args, err := RandomInputsThreads(m, 1, threads)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Run(m, args, Options{Threads: threads, MatMuler: chainMatMuler{}})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var got []string
			for _, a := range r.Flatten() {
				h := sha256.Sum256(a.Data)
				got = append(got, hex.EncodeToString(h[:8]))
			}
			if want == nil {
				want = got
			} else if !slices.Equal(got, want) {
				t.Errorf("%s: %d threads give other bits than one\n%v\n%v", name, threads, got, want)
			}
		}
	}
}

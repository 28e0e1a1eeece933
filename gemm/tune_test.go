package gemm

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"octet/dtype"
)

// TestBlocks checks products with small and odd block sizes on every kernel (many blocks of each kind,
// ragged ones included) against the float64 product, and that SetBlocks rounds and restores.
func TestBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	for _, k := range Kernels() {
		prev := k.SetBlocks(Blocks{MC: 5, KC: 7, NC: 9})
		if got := k.Blocks(); got.MC%k.mr != 0 || got.NC%k.nr != 0 || got.KC != 6 {
			t.Fatalf("%v: SetBlocks(5, 7, 9) gives %v, want whole tiles and an even KC", k, got)
		}
		func() {
			defer SetKernel(SetKernel(k))
			for _, s := range []shape{{70, 90, 61}, {3, 200, 33}} {
				a := operand{s.m, s.k, false, 0}.build(rng, pattern)
				b := operand{s.k, s.n, true, 1}.build(rng, pattern)
				c := operand{s.m, s.n, false, 0}.build(rng, padC)
				c0 := clone(c)
				MatMul(c, a, b, 1, 0.5)
				check(t, c, c0, a, b, 1, 0.5)
				ta, am := randomTyped(rng, dtype.F8E4M3FN, s.m, s.k, false, 0, 0)
				tb, bm := randomTyped(rng, dtype.BF16, s.k, s.n, false, 0, 0)
				c = clone(c0)
				MatMulTyped(c, ta, tb, 1, 0.5)
				check(t, c, c0, am, bm, 1, 0.5)
			}
		}()
		k.SetBlocks(prev)
		if k.Blocks() != prev {
			t.Fatalf("%v: blocks %v after restoring %v", k, k.Blocks(), prev)
		}
	}
}

// TestTune runs a short search on the portable kernel and checks the cache round trip: the file holds
// this CPU's entry, and reading it back restores the sizes.
func TestTune(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", dir)
	t.Setenv("HOME", dir)
	k := goKernel
	for _, k := range available {
		defer k.tuned.Store(k.tuned.Load())
	}
	b, gflops := Tune(k, 48, 20*time.Millisecond)
	if b != k.Blocks() || gflops <= 0 {
		t.Fatalf("Tune gave %v at %v GFLOP/s; the kernel uses %v", b, gflops, k.Blocks())
	}
	path, err := SaveTuning()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cache tuneCache
	if err := json.Unmarshal(data, &cache); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if cache[cpuName][k.name] != b {
		t.Fatalf("%s holds %v for %q/%s, want %v", path, cache[cpuName][k.name], cpuName, k.name, b)
	}
	k.SetBlocks(Blocks{})
	loadTuned()
	if k.Blocks() != b {
		t.Fatalf("after reading the cache: %v, want %v", k.Blocks(), b)
	}
}

// TestTuningCache checks that block sizes read from the tuning cache go through SetBlocks' rounding,
// that entries out of range are ignored, and that the sizes change no bit of any product: every kernel's
// results are those of its defaults.
func TestTuningCache(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", dir)
	t.Setenv("HOME", dir)
	rng := rand.New(rand.NewPCG(63, 64))
	type product struct {
		a, b Typed
		c    Matrix
	}
	var products []product
	for _, ty := range [][2]dtype.Type{{dtype.F32, dtype.F32}, {dtype.F8E4M3FN, dtype.F8E5M2}, {dtype.BF16, dtype.S8}} {
		a, _ := randomTyped(rng, ty[0], 37, 1100, false, 0, 0)
		b, _ := randomTyped(rng, ty[1], 1100, 90, true, 0, 0)
		products = append(products, product{a, b, operand{37, 90, false, 0}.build(rng, 0)})
	}
	run := func(k *Kernel) []Matrix {
		defer useKernel(k)()
		var out []Matrix
		for _, p := range products {
			c := clone(p.c)
			MatMulTyped(c, p.a, p.b, 1.5, -1)
			out = append(out, c)
		}
		return out
	}
	var want [][]Matrix
	for _, k := range available {
		defer k.tuned.Store(k.tuned.Load())
		k.SetBlocks(Blocks{})
		want = append(want, run(k))
	}
	entry := map[string]Blocks{}
	for _, k := range available {
		entry[k.name] = Blocks{MC: 5, KC: 77, NC: 9}
	}
	entry["go"] = Blocks{MC: 64, KC: 1 << 20, NC: 64} // out of range: ignored
	data, err := json.Marshal(tuneCache{cpuName: entry})
	if err != nil {
		t.Fatal(err)
	}
	path, err := TuneFile()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	loadTuned()
	for i, k := range available {
		got := k.Blocks()
		switch {
		case k.name == "go":
			if got != (Blocks{MC: k.mc, KC: k.kc, NC: k.nc}) {
				t.Fatalf("go: blocks %v from an entry out of range, want the defaults", got)
			}
		case got.MC%k.mr != 0 || got.NC%k.nr != 0 || got.KC != 76:
			t.Fatalf("%v: blocks %v from the cache's mc=5 kc=77 nc=9, want whole tiles and an even KC", k, got)
		}
		for j, c := range run(k) {
			sameMatrix(t, fmt.Sprintf("%v with blocks %v, product %d", k, got, j), c, want[i][j])
		}
	}
}

package gemm

import (
	"encoding/json"
	"math/rand/v2"
	"os"
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
	prev := k.Blocks()
	defer k.SetBlocks(prev)
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

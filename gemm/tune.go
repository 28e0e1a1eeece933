package gemm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"octet/dtype"
)

// Blocks are a kernel's cache block sizes: A is packed MC x KC at a time (to stay in L2), B KC x NC (in
// L3), so that one KC x NR micro-panel of B stays in L1. KC counts elements of K for every kernel (the bf16
// kernel packs them two to a slot).
type Blocks struct {
	MC, KC, NC int
}

func (b Blocks) String() string { return fmt.Sprintf("mc=%d kc=%d nc=%d", b.MC, b.KC, b.NC) }

// Blocks returns the block sizes k uses: its defaults, or what Tune found on this CPU and the user's cache
// holds (read once, when a product first needs them), or what SetBlocks set. They change how fast a
// product runs, never its result: see the numerics contract of the package documentation.
func (k *Kernel) Blocks() Blocks {
	tunedOnce.Do(loadTuned)
	return k.blocks()
}

// blocks is Blocks without reading the cache.
func (k *Kernel) blocks() Blocks {
	if b := k.tuned.Load(); b != nil {
		return *b
	}
	return Blocks{MC: k.mc, KC: k.kc, NC: k.nc}
}

// SetBlocks makes k use the block sizes b (MC and NC rounded up to whole tiles, KC down to an even
// number), or its defaults when b is the zero Blocks, and returns the sizes used before. It is safe to
// call while products run: each product reads the sizes once.
func (k *Kernel) SetBlocks(b Blocks) Blocks {
	prev := k.Blocks()
	k.setBlocks(b)
	return prev
}

// setBlocks is SetBlocks without reading the cache first.
func (k *Kernel) setBlocks(b Blocks) {
	if b == (Blocks{}) {
		k.tuned.Store(nil)
		return
	}
	b.MC = max(k.mr, (b.MC+k.mr-1)/k.mr*k.mr)
	b.NC = max(k.nr, (b.NC+k.nr-1)/k.nr*k.nr)
	b.KC = max(2, b.KC&^1)
	k.tuned.Store(&b)
}

// TuneFile is where Tune's results are kept, in the user's cache directory ($XDG_CACHE_HOME or ~/.cache
// on Linux): one entry per CPU name and kernel.
func TuneFile() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "octet", "gemm-blocks.json"), nil
}

// tuneCache is the file's content: CPU name, then kernel name.
type tuneCache map[string]map[string]Blocks

var tunedOnce sync.Once

// maxBlock bounds every block size read from the cache: a larger one is not a size Tune chooses, and
// would only make a product allocate without end.
const maxBlock = 1 << 16

// loadTuned applies the cached block sizes for this CPU, if any, through SetBlocks' rounding; a missing
// or unreadable cache, or an entry out of range, leaves the defaults (tuning is an optimisation, never a
// requirement).
func loadTuned() {
	cache, err := readTuneCache()
	if err != nil {
		return
	}
	applyTuned(cache)
}

// applyTuned sets the block sizes of every kernel of this machine that cache holds for this CPU.
func applyTuned(cache tuneCache) {
	for _, k := range available {
		b, ok := cache[cpuName][k.name]
		if ok && b.MC > 0 && b.KC > 0 && b.NC > 0 && b.MC <= maxBlock && b.KC <= maxBlock && b.NC <= maxBlock {
			k.setBlocks(b)
		}
	}
}

func readTuneCache() (tuneCache, error) {
	path, err := TuneFile()
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return tuneCache{}, nil
	}
	if err != nil {
		return nil, err
	}
	cache := tuneCache{}
	if err := json.Unmarshal(data, &cache); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return cache, nil
}

// SaveTuning records the block sizes every kernel of this machine uses now in the cache file, under this
// CPU's name, keeping the entries of other CPUs, and returns the file's path.
func SaveTuning() (string, error) {
	path, err := TuneFile()
	if err != nil {
		return "", err
	}
	cache, err := readTuneCache()
	if err != nil {
		cache = tuneCache{} // an unreadable cache is replaced
	}
	entry := map[string]Blocks{}
	for _, k := range available {
		entry[k.name] = k.Blocks()
	}
	cache[cpuName] = entry
	data, err := json.MarshalIndent(cache, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	// Write a new file and rename it over the old, so that a reader never sees half of one.
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return "", err
	}
	return path, nil
}

// Tune chooses k's block sizes on this machine by a short search and sets them (SetBlocks): it times a
// float32 product of size x size x size (the bf16 kernel: of f8e4m3fn operands) for a few values of each
// block size in turn, KC, then MC, then NC, keeping the fastest, for about budget in all. It returns the
// sizes chosen and the throughput they gave, in GFLOP/s. The search runs on every core MatMul may use, so a
// busy machine makes it noisy; each candidate is timed as the best of several runs.
func Tune(k *Kernel, size int, budget time.Duration) (Blocks, float64) {
	rng := rand.New(rand.NewPCG(7, 7))
	aData := make([]byte, size*size)
	bData := make([]byte, size*size)
	for i := range aData {
		aData[i], bData[i] = byte(rng.IntN(0x7f)), byte(rng.IntN(0x7f)) // finite f8e4m3fn codes
	}
	af, bf := NewMatrix(size, size, nil), NewMatrix(size, size, nil)
	for i := range af.Data {
		af.Data[i], bf.Data[i] = float32(rng.Float64()*2-1), float32(rng.Float64()*2-1)
	}
	c := NewMatrix(size, size, nil)
	view := func(d []byte) Typed {
		return Typed{Type: dtype.F8E4M3FN, Data: d, Rows: size, Cols: size, Stride: size}
	}
	run := func() {
		if k.bf16 {
			matMul(k, Threads(), c.view(), view(aData).view("A"), view(bData).view("B"), 1, 0)
		} else {
			matMul(k, Threads(), c.view(), af.view(), bf.view(), 1, 0)
		}
	}
	run() // warm up: buffers, workers
	start := time.Now()
	var calls int
	for time.Since(start) < 20*time.Millisecond {
		run()
		calls++
	}
	perCall := time.Since(start) / time.Duration(calls)
	const candidates = 4 + 3 + 3
	reps := max(2, int(budget/perCall)/candidates)
	measure := func(b Blocks) time.Duration {
		k.SetBlocks(b)
		best := time.Duration(1 << 62)
		for range reps {
			t0 := time.Now()
			run()
			best = min(best, time.Since(t0))
		}
		return best
	}
	def := Blocks{MC: k.mc, KC: k.kc, NC: k.nc}
	cur := def
	bestTime := measure(cur)
	try := func(set func(b *Blocks, v int), values []int) {
		for _, v := range values {
			b := cur
			set(&b, v)
			if b == cur {
				continue
			}
			if t := measure(b); t < bestTime {
				bestTime, cur = t, b
			}
		}
	}
	try(func(b *Blocks, v int) { b.KC = v }, slices.Compact([]int{def.KC / 2, def.KC * 3 / 4, def.KC * 3 / 2, def.KC * 2}))
	try(func(b *Blocks, v int) { b.MC = v }, []int{def.MC / 2, def.MC * 3 / 2, def.MC * 2})
	try(func(b *Blocks, v int) { b.NC = v }, []int{def.NC / 2, def.NC * 2, def.NC * 4})
	k.SetBlocks(cur)
	flop := 2 * float64(size) * float64(size) * float64(size)
	return k.Blocks(), flop / bestTime.Seconds() / 1e9
}

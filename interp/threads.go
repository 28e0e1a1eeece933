package interp

import (
	"runtime"
	"sync"
)

// threadsFor returns the number of goroutines an evaluation splits its work across: Options.Threads, or
// GOMAXPROCS when that is zero or negative.
func threadsFor(opts Options) int {
	if opts.Threads > 0 {
		return opts.Threads
	}
	return max(runtime.GOMAXPROCS(0), 1)
}

// parallelFor runs f over [0, n) cut into contiguous pieces of at least grain indices, on at most threads
// goroutines (the caller's among them), and returns when every piece is done. Each index is in exactly
// one piece, and a piece is processed by one goroutine, so a result that depends on each index alone
// does not depend on the number of threads.
func parallelFor(threads, n, grain int, f func(lo, hi int)) {
	if n <= 0 {
		return
	}
	grain = max(grain, 1)
	pieces := min(threads, (n+grain-1)/grain)
	if pieces <= 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	var panicked any
	var mu sync.Mutex
	run := func(lo, hi int) {
		defer func() {
			if r := recover(); r != nil {
				mu.Lock()
				if panicked == nil {
					panicked = r
				}
				mu.Unlock()
			}
		}()
		f(lo, hi)
	}
	for p := 1; p < pieces; p++ {
		lo, hi := p*n/pieces, (p+1)*n/pieces
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(lo, hi)
		}()
	}
	run(0, n/pieces)
	wg.Wait()
	if panicked != nil {
		// A failure of the interpreter itself: Run recovers it on the evaluating goroutine.
		panic(panicked)
	}
}

// elementwiseGrain is the fewest elements an elementwise loop gives one goroutine: below it, starting a
// goroutine costs more than the work.
const elementwiseGrain = 1 << 14

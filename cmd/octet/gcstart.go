package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"

	"octet/interp"
)

// The collector first runs when the heap reaches 4 MB and then at every doubling of the live heap; each
// cycle marks everything live. Reading a large module builds tens of megabytes of IR, dense in pointers, in
// a few milliseconds, so those early cycles mark the growing IR again and again. Like the Go compiler, octet
// lets the heap grow further before the collector runs: the heap goal is never less than a target, and is
// the usual pacing's (GOGC=100) when the live heap is large enough for that to give more. The target is set
// by the input: heapPerInputByte times the text read (a parse allocates about 8 times its text, and the
// analyses after it more), but never past maxStartingHeap. A small input keeps the runtime's pacing; a
// program that reads nothing too.
//
// The heap goal is the runtime's: live + (live + stacks + globals) * GOGC/100, and at least 4 MB *
// GOGC/100. GOGC is chosen from the live heap, the stacks and the globals that the runtime reports
// (runtime/metrics), then checked against the goal the runtime computes. Setting GOGC or GOMEMLIMIT in the
// environment keeps the runtime's own pacing.
const (
	maxStartingHeap  = 64 << 20
	heapPerInputByte = 32
	// minimumHeap is the runtime's heap goal at GOGC=100 before the first collection, and its smallest.
	minimumHeap = 4 << 20
)

var pacer struct {
	sync.Mutex
	// on is set by startPacing; without it expectHeap does nothing.
	on bool
	// target is the least heap goal, 0 for none.
	target uint64
	// watching is set while a collection is awaited to pace the next one.
	watching bool
	// cycles counts the collections paced.
	cycles int
}

// startPacing lets expectHeap raise the heap goal, unless GOGC or GOMEMLIMIT is set in the environment.
func startPacing() {
	for _, v := range []string{"GOGC", "GOMEMLIMIT"} {
		if _, set := os.LookupEnv(v); set {
			return
		}
	}
	pacer.Lock()
	pacer.on = true
	pacer.Unlock()
}

// expectHeap says that an input of n bytes of text was read: the collector lets the heap grow to what
// reading it takes (heapPerInputByte times n, at most maxStartingHeap) before it runs.
func expectHeap(n int) {
	target := uint64(min(int64(n), maxStartingHeap/heapPerInputByte)) * heapPerInputByte
	pacer.Lock()
	defer pacer.Unlock()
	if !pacer.on || target <= pacer.target || target <= minimumHeap {
		return
	}
	pacer.target = target
	pace()
}

// collectorPacing describes how the collector is paced, for benchmarks' output.
func collectorPacing() string {
	for _, v := range []string{"GOGC", "GOMEMLIMIT"} {
		if s, set := os.LookupEnv(v); set {
			return v + "=" + s + " from the environment"
		}
	}
	pacer.Lock()
	defer pacer.Unlock()
	if pacer.target > 0 {
		return "GOGC=100, the heap let grow to " + interp.FormatBytes(int64(pacer.target)) + " for the input (set GOGC to keep the runtime's pacing)"
	}
	return "GOGC=100"
}

// pacingSamples are the metrics pace reads.
var pacingSamples = []metrics.Sample{
	{Name: "/gc/heap/live:bytes"},
	{Name: "/gc/scan/stack:bytes"},
	{Name: "/gc/scan/globals:bytes"},
	{Name: "/gc/heap/goal:bytes"},
}

// pace sets GOGC so that the heap goal is pacer.target, or GOGC=100 when the usual pacing gives as much.
// It is called with pacer locked: when the target is raised, and after every collection.
func pace() {
	metrics.Read(pacingSamples)
	var v [4]uint64
	for i, s := range pacingSamples {
		if s.Value.Kind() != metrics.KindUint64 {
			// A runtime without these metrics keeps its own pacing.
			pacer.target = 0
			debug.SetGCPercent(100)
			return
		}
		v[i] = s.Value.Uint64()
	}
	live, scanned := v[0], max(v[0]+v[1]+v[2], 1)
	target := pacer.target
	if live+scanned >= target {
		// GOGC=100 gives as much room; the next collection may find less live.
		debug.SetGCPercent(100)
	} else {
		// Both parts of the goal at most the target: the one from the live heap, and the minimum heap.
		gogc := min((target-live)*100/scanned, target*100/minimumHeap)
		debug.SetGCPercent(int(gogc))
		// The runtime's own goal is the check: should it count more than the terms above, GOGC comes down.
		for range 16 {
			metrics.Read(pacingSamples[3:])
			if goal := pacingSamples[3].Value.Uint64(); goal <= target+target/8 || gogc <= 100 {
				break
			}
			gogc = max(gogc*3/4, 100)
			debug.SetGCPercent(int(gogc))
		}
	}
	if !pacer.watching {
		pacer.watching = true
		watchHeap()
	}
}

// watchHeap calls afterGC once the next collection has run.
func watchHeap() {
	// 32 bytes without pointers: not a tiny allocation, which may share its block with others and outlive
	// its collection.
	runtime.AddCleanup(new([32]byte), afterGC, 0)
}

// afterGC paces the collection after the one that just ran.
func afterGC(int) {
	pacer.Lock()
	defer pacer.Unlock()
	pacer.watching = false
	pacer.cycles++
	if pacer.target > 0 {
		pace()
	}
}

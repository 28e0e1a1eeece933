package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// startingHeap is the heap size every command may reach before the garbage collector's pacing takes over.
//
// The collector first runs when the heap reaches 4 MB and then at every doubling of the live heap; each
// cycle marks everything live. Reading a large module builds tens of megabytes of IR, dense in pointers,
// in a few milliseconds, so those early cycles mark the growing IR again and again. Like the Go compiler,
// octet lets the heap grow to startingHeap first and then returns to the usual pacing (GOGC=100). The cost
// is at most startingHeap of memory that a collection would have reclaimed earlier. Setting GOGC in the
// environment keeps the runtime's own pacing.
const startingHeap = 64 << 20

// startingHeapRaised is set once raiseStartingHeap has taken effect.
var startingHeapRaised bool

// raiseStartingHeap lets the heap grow to size before the collector runs, then restores GOGC=100 once the
// live heap is half of size or more. It does nothing when GOGC is set in the environment.
func raiseStartingHeap(size uint64) {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	// The first goal is the 4 MB minimum heap scaled by GOGC/100.
	debug.SetGCPercent(int(size / (4 << 20) * 100))
	startingHeapRaised = true
	watchHeap(size)
}

// collectorPacing describes how the collector is paced, for benchmarks' output.
func collectorPacing() string {
	if v, set := os.LookupEnv("GOGC"); set {
		return "GOGC=" + v + " from the environment"
	}
	if startingHeapRaised {
		return "GOGC=100 after a 64 MB starting heap (set GOGC to keep the runtime's pacing)"
	}
	return "GOGC=100"
}

// watchHeap calls afterGC once the next collection has run.
func watchHeap(size uint64) {
	// 32 bytes without pointers: not a tiny allocation, which may share its block with others and
	// outlive its collection.
	runtime.AddCleanup(new([32]byte), afterGC, size)
}

// afterGC paces the next collection for a heap of size, or restores GOGC=100 when the live heap alone
// takes half of it.
func afterGC(size uint64) {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	live := uint64(1)
	if s[0].Value.Kind() == metrics.KindUint64 {
		live = max(s[0].Value.Uint64(), 1)
	}
	if live >= size/2 {
		debug.SetGCPercent(100)
		return
	}
	// The next goal is about live * (1 + GOGC/100).
	debug.SetGCPercent(int((size - live) * 100 / live))
	watchHeap(size)
}

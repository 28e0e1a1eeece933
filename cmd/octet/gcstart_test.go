package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// TestRaiseStartingHeap checks that the collector is held off until the heap reaches the starting size, and
// that the usual pacing returns once the live heap is half of it.
func TestRaiseStartingHeap(t *testing.T) {
	if _, set := os.LookupEnv("GOGC"); set {
		t.Skip("GOGC is set in the environment: the starting heap is left to the runtime")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	const size = 16 << 20
	raiseStartingHeap(size)
	if got := gcPercent(); got != 400 {
		t.Errorf("GOGC for a 16 MB starting heap over the 4 MB minimum: %d, want 400", got)
	}
	live := make([][]byte, 0, 16)
	for range 12 {
		live = append(live, make([]byte, 1<<20))
	}
	for deadline := time.Now().Add(5 * time.Second); gcPercent() != 100; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("with 12 MB live of a 16 MB starting heap, GOGC is still %d, want 100", gcPercent())
		}
		runtime.GC()
	}
	runtime.KeepAlive(live)
}

func gcPercent() uint64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

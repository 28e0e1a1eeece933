package main

import (
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"testing"
)

func skipIfPacedByEnvironment(t *testing.T) {
	for _, v := range []string{"GOGC", "GOMEMLIMIT"} {
		if _, set := os.LookupEnv(v); set {
			t.Skipf("%s is set in the environment: the collector keeps the runtime's pacing", v)
		}
	}
}

// resetPacing stops what startPacing and expectHeap set.
func resetPacing() {
	pacer.Lock()
	pacer.on, pacer.target = false, 0
	pacer.Unlock()
	debug.SetGCPercent(100)
}

// TestPacingHoldsGoal checks the heap goal the runtime computes once an input is read: held to what reading
// the input takes (at most the starting heap) while the live heap is small, collection after collection, the
// usual pacing while the live heap is large, and the target again once it is small again; a small input
// leaves the runtime's pacing alone.
func TestPacingHoldsGoal(t *testing.T) {
	skipIfPacedByEnvironment(t)
	defer resetPacing()
	runtime.GC()
	if live := readMetric("/gc/heap/live:bytes"); live > maxStartingHeap/8 {
		t.Skipf("the test's live heap is already %d bytes", live)
	}

	startPacing()
	expectHeap(3735) // examples/dense_fp8.xla-0.4.32.hlo
	if g := gcPercent(); g != 100 {
		t.Errorf("GOGC after a 3.7 kB input: %d, want 100", g)
	}
	for _, tc := range []struct {
		input int
		goal  uint64
	}{
		{1 << 20, 32 << 20},
		{8 << 20, maxStartingHeap}, // more than the starting heap would take
	} {
		expectHeap(tc.input)
		for cycle := range 4 {
			goal := readMetric("/gc/heap/goal:bytes")
			if goal < tc.goal-tc.goal/8 || goal > tc.goal+tc.goal/8 {
				t.Errorf("input of %d bytes, after %d collections: the heap goal is %d bytes, want about %d", tc.input, cycle, goal, tc.goal)
			}
			collect(t)
		}
	}

	// With a live heap of 48 MB, GOGC=100 gives more room than the starting heap: it is restored.
	live := make([][]byte, 48)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	collect(t)
	if g := gcPercent(); g != 100 {
		t.Errorf("GOGC with 48 MB live: %d, want 100", g)
	}
	if goal := readMetric("/gc/heap/goal:bytes"); goal < 96<<20 {
		t.Errorf("heap goal with 48 MB live: %d bytes, want GOGC=100's, more than 96 MB", goal)
	}
	runtime.KeepAlive(live)
	live = nil
	collect(t)
	if goal := readMetric("/gc/heap/goal:bytes"); goal < maxStartingHeap*7/8 || goal > maxStartingHeap*9/8 {
		t.Errorf("heap goal once the 48 MB are garbage: %d bytes, want about %d", goal, maxStartingHeap)
	}
}

// collect runs the collector until the pacing has seen a collection (the object it watches may have been
// allocated during one, and so outlive it).
func collect(t *testing.T) {
	t.Helper()
	pacer.Lock()
	before, watching := pacer.cycles, pacer.watching
	pacer.Unlock()
	for range 100 {
		runtime.GC()
		if !watching {
			return
		}
		for range 100 {
			pacer.Lock()
			done := pacer.cycles > before
			pacer.Unlock()
			if done {
				return
			}
			runtime.Gosched()
		}
	}
	t.Fatal("the collector's pacing did not see a collection")
}

// TestPacingSmallInputMemory runs "octet bench parse" on a small file, which parses it again and again
// for half a second, and compares its peak resident memory with the runtime's own pacing (GOGC=100):
// about the same, not hundreds of megabytes. Each is the least of two runs: on a busy machine the collector
// may fall behind the allocations of one.
func TestPacingSmallInputMemory(t *testing.T) {
	skipIfPacedByEnvironment(t)
	peak := func(env ...string) float64 {
		least := 0.0
		for i := range 2 {
			if mb := peakOnce(t, env...); i == 0 || mb < least {
				least = mb
			}
		}
		return least
	}
	paced, usual := peak(), peak("GOGC=100")
	t.Logf("peak RSS %.1f MB, %.1f MB with GOGC=100", paced, usual)
	if paced > usual+48 {
		t.Errorf("bench parse of a 3.7 kB file: peak RSS %.1f MB, against %.1f MB with GOGC=100", paced, usual)
	}
}

// peakOnce runs "octet bench parse" on a small file and returns the peak RSS it reports, in MB.
func peakOnce(t *testing.T, env ...string) float64 {
	t.Helper()
	out, err := octetProcess(t, env, "bench", "parse", "--time=500ms", example("dense_fp8.xla-0.4.32.hlo")).CombinedOutput()
	m := regexp.MustCompile(`peak RSS ([0-9.]+) MB`).FindSubmatch(out)
	if err != nil || m == nil {
		t.Fatalf("bench parse: %v\n%s", err, out)
	}
	mb, _ := strconv.ParseFloat(string(m[1]), 64)
	return mb
}

func gcPercent() uint64 { return readMetric("/gc/gogc:percent") }

func readMetric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

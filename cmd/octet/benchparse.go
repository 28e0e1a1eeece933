package main

import (
	"fmt"
	"go/token"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"octet/hlo/parser"
)

func init() {
	registerBench(&benchmark{
		Name:      "parse",
		UsageLine: "bench parse [--time=2s] FILE",
		Short:     "measure how fast HLO text parses (MB/s) and the memory it takes",
		Run:       benchParse,

		ReadsModules: true,
	})
}

func benchParse(inv *invocation, args []string) error {
	fs := inv.flags()
	dur := fs.Duration("time", 2*time.Second, "how long to keep parsing (at least three parses)")
	if err := inv.parse(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() != 1:
		return usagef("bench parse takes one FILE")
	case *dur < 0:
		return usagef("--time must not be negative")
	}
	src, name, err := inv.readInput(fs.Arg(0))
	if err != nil {
		return err
	}
	// One parse first: it must succeed, and it tells how much a parse allocates and how much of that the
	// modules keep.
	var before, after, kept runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	mods, err := parser.ParseFile(token.NewFileSet(), name, src)
	if err != nil {
		return err
	}
	runtime.ReadMemStats(&after)
	runtime.GC()
	runtime.ReadMemStats(&kept)
	liveIR := int64(kept.HeapAlloc) - int64(before.HeapAlloc)
	allocated := after.TotalAlloc - before.TotalAlloc
	allocs := after.Mallocs - before.Mallocs
	instructions := 0
	for _, m := range mods {
		for _, c := range m.Computations {
			instructions += len(c.Instructions)
		}
	}
	mods = nil
	var best time.Duration
	n := 0
	for start := time.Now(); time.Since(start) < *dur || n < 3; n++ {
		t0 := time.Now()
		if _, err := parser.ParseFile(token.NewFileSet(), name, src); err != nil {
			return err
		}
		if d := time.Since(t0); best == 0 || d < best {
			best = d
		}
	}
	mbps := float64(len(src)) / best.Seconds() / 1e6
	fmt.Fprintf(inv.stdout, "%s: %d bytes, %d instructions; best of %d parses %v\n", name, len(src), instructions, n, best.Round(time.Microsecond))
	fmt.Fprintf(inv.stdout, "memory: %.1f MB in %d allocations per parse, %.1f MB live IR, peak RSS %s\n",
		float64(allocated)/1e6, allocs, float64(liveIR)/1e6, peakRSS())
	fmt.Fprintf(inv.stdout, "collector: %s\n", collectorPacing())
	fmt.Fprintf(inv.stdout, "%.1f MB/s\n", mbps)
	return nil
}

// peakRSS reads the process's peak resident set size from /proc (Linux); "unknown" elsewhere.
func peakRSS() string {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				if kb, err := strconv.ParseFloat(f[0], 64); err == nil {
					return fmt.Sprintf("%.1f MB", kb/1e3)
				}
			}
		}
	}
	return "unknown"
}

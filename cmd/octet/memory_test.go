package main

import (
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"

	"octet/dtype"
	"octet/hlo/parser"
	"octet/interp"
	"octet/tensor"
)

// TestRunMemoryWithinEstimate checks that "octet run" allocates, all told, no more than the memory estimate
// it checks the budget against: the program's buffers, its random inputs, the summary and the -o file.
func TestRunMemoryWithinEstimate(t *testing.T) {
	for _, tc := range []struct{ name, src, input string }{
		{"fp8 gemm", `HloModule m
ENTRY e {
  a = f8e4m3fn[512,1024] parameter(0)
  b = f8e4m3fn[1024,1024] parameter(1)
  a32 = f32[512,1024] convert(a)
  b32 = f32[1024,1024] convert(b)
  d = f32[512,1024] dot(a32, b32), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT d8 = f8e4m3fn[512,1024] convert(d)
}
`, ""},
		{"bf16 chain", `HloModule m
ENTRY e {
  x = bf16[1024,2048] parameter(0)
  n = bf16[1024,2048] negate(x)
  a = bf16[1024,2048] add(n, x)
  e = bf16[1024,2048] exponential(a)
  ROOT t = (bf16[1024,2048], f32[]) tuple(e, f32[] constant(1))
}
`, ""},
		{"npy input", `HloModule m
ENTRY e {
  x = f32[2048,1024] parameter(0)
  ROOT n = f32[2048,1024] negate(x)
}
`, "f32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := writeTemp(t, dir, "m.hlo", tc.src)
			m, err := parser.ParseModule(token.NewFileSet(), path, []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			est := interp.EstimateMemory(m).Bytes
			args := []string{"run", "--random", "1", "-o", filepath.Join(dir, "out.npz"), path}
			if tc.input != "" {
				in := filepath.Join(dir, "in.npy")
				f, err := os.Create(in)
				if err != nil {
					t.Fatal(err)
				}
				x := tensor.New(dtype.F32, m.Entry.Params[0].Shape.Dims)
				if err := tensor.WriteNpy(f, x); err != nil {
					t.Fatal(err)
				}
				f.Close()
				args = []string{"run", "--input", in, "-o", filepath.Join(dir, "out.npz"), path}
			}
			var code int
			var errs string
			peak := peakHeap(func() { code, _, errs = runOctet(t, "", args...) })
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			t.Logf("estimate %s, peak heap %s (%.2fx)", interp.FormatBytes(est), interp.FormatBytes(peak), float64(peak)/float64(est))
			if peak > est+est/4+4<<20 { // room for the garbage an eager collector still leaves
				t.Errorf("run used %s at its peak, more than its estimate of %s", interp.FormatBytes(peak), interp.FormatBytes(est))
			}
		})
	}
}

// peakHeap runs f with the garbage collector made eager and returns the most heap memory in live objects
// (and the little garbage an eager collector leaves) seen while it ran, above what was in use before.
func peakHeap(f func()) int64 {
	defer debug.SetGCPercent(debug.SetGCPercent(5))
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() int64 { metrics.Read(sample); return int64(sample[0].Value.Uint64()) }
	base := read()
	done := make(chan struct{})
	result := make(chan int64)
	go func() {
		var peak int64
		tick := time.NewTicker(200 * time.Microsecond)
		defer tick.Stop()
		for {
			peak = max(peak, read())
			select {
			case <-done:
				result <- peak
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(done)
	return <-result - base
}

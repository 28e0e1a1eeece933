package main

import (
	"regexp"
	"strings"
	"testing"
)

func TestBenchGEMM(t *testing.T) {
	gflops := regexp.MustCompile(`[0-9.]+ GFLOP/s\n$`)
	for _, args := range [][]string{
		{"bench", "gemm", "--m=13", "--n=17", "--k=31", "--reps=2"},
		{"bench", "gemm", "--m=5", "--n=3", "--k=2", "--trans-a", "--trans-b", "--threads=1", "--reps=1"},
		{"bench", "gemm", "-m", "20", "-n", "20", "-k", "20", "--kernel=go"},
		{"bench", "gemm", "--m=9", "--n=10", "--k=33", "--a=f8e4m3fn", "--b=bf16", "--trans-b"},
		{"bench", "gemm", "--m=3", "--n=70", "--k=33", "--b=s8", "--weights", "--scale"},
		{"bench", "gemm", "--m=20", "--n=70", "--k=33", "--a=bf16", "--b=f8e5m2", "--weights"},
		{"bench", "gemm", "--m=1", "--n=130", "--k=70", "--b=mxfp4", "--weights"},
		{"bench", "gemm", "--m=3", "--n=70", "--k=33", "--b=f8e4m3fn,nvfp4,mxfp8,mxfp8e5m2", "--weights", "--rounds=2", "--reps=1", "--values=normal"},
		{"bench", "gemm", "--m=2", "--n=9", "--k=9", "--b=f32,bf16", "--trans-b", "--values=uniform", "--reps=1"},
	} {
		code, out, stderr := runOctet(t, "", args...)
		if code != 0 {
			t.Errorf("octet %q: exit %d: %s", args, code, stderr)
			continue
		}
		if !gflops.MatchString(out) {
			t.Errorf("octet %q: output does not end in GFLOP/s:\n%s", args, out)
		}
		if !strings.Contains(out, " a=") || !strings.Contains(out, " b=") {
			t.Errorf("octet %q: output does not name the input types:\n%s", args, out)
		}
		if !strings.HasPrefix(out, "cpu: ") || !strings.Contains(out, " kernel=") {
			t.Errorf("octet %q: output does not name the CPU and the kernel:\n%s", args, out)
		}
		if args[len(args)-1] == "--kernel=go" && !strings.Contains(out, " kernel=go-4x4 ") {
			t.Errorf("octet %q: output does not name the go kernel:\n%s", args, out)
		}
	}
}

// TestBenchGEMMMethod checks that bench gemm says how each product ran, as package gemm's plan chooses by
// the shape: few rows by a narrow B streamed where it lies (either layout), a few groups of rows by a
// transposed one laid out in panels first, many rows blocked; weights packed once.
func TestBenchGEMMMethod(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--m=1", "--b=f8e4m3fn"}, " method=streamed kernel=stream-go-1x64 "},
		{[]string{"--m=16", "--b=s8", "--trans-b"}, " method=streamed kernel=stream-go-16x64 "},
		{[]string{"--m=40", "--b=s8"}, " method=streamed kernel=stream-go-16x64 "},
		{[]string{"--m=40", "--b=bf16", "--trans-b"}, " method=packed kernel=stream-go-16x64 "},
		{[]string{"--m=65", "--b=s8"}, " method=blocked kernel=go-4x4 "},
		{[]string{"--m=1", "--b=f32"}, " method=blocked kernel=go-4x4 "},
		{[]string{"--m=4", "--b=f8e5m2", "--weights"}, " method=packed kernel=stream-go-4x64 "},
	} {
		args := append([]string{"bench", "gemm", "--n=70", "--k=33", "--reps=1", "--kernel=go"}, tc.args...)
		code, out, stderr := runOctet(t, "", args...)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("octet %q: exit %d, output\n%s%s\nwant one holding %q", args, code, out, stderr, tc.want)
		}
	}
}

func TestBenchUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // in stderr
	}{
		{[]string{"bench"}, "The benchmarks are:"},
		{[]string{"bench", "no-such"}, `unknown benchmark "no-such"`},
		{[]string{"bench", "gemm", "--m=0"}, "must be at least 1"},
		{[]string{"bench", "gemm", "--a=f7"}, `unsupported element type "f7"`},
		{[]string{"bench", "gemm", "--kernel=none"}, `unknown kernel "none"`},
		{[]string{"bench", "gemm", "--threads=-1"}, "must not be negative"},
		{[]string{"bench", "gemm", "--scale"}, "--scale needs --weights"},
		{[]string{"bench", "gemm", "--weights", "--b=f16"}, "--weights needs B of type"},
		{[]string{"bench", "gemm", "--b=mxfp4"}, "--b=mxfp4 needs --weights"},
		{[]string{"bench", "gemm", "--b=mxfp6e2m3", "--weights"}, "the kernels take mxfp8e4m3, mxfp8e5m2, mxfp4, nvfp4"},
		{[]string{"bench", "gemm", "--b=nvfp4", "--weights", "--scale"}, "--scale is for weights of an element type"},
		{[]string{"bench", "gemm", "--b=f8e4m3fn,f7"}, `unsupported element type "f7"`},
		{[]string{"bench", "gemm", "--values=some"}, "--values must be codes, uniform or normal"},
		{[]string{"bench", "gemm", "--rounds=-1"}, "must not be negative"},
		{[]string{"bench", "gemm", "extra"}, `unexpected argument "extra"`},
		{[]string{"bench", "gemm", "--no-such-flag"}, "flag provided but not defined"},
	} {
		code, _, stderr := runOctet(t, "", tc.args...)
		if code != 2 {
			t.Errorf("octet %q: exit %d, want 2", tc.args, code)
		}
		if !strings.Contains(stderr, tc.want) {
			t.Errorf("octet %q: stderr does not contain %q:\n%s", tc.args, tc.want, stderr)
		}
	}
}

func TestBenchHelp(t *testing.T) {
	code, out, _ := runOctet(t, "", "bench", "-h")
	if code != 0 || !strings.Contains(out, "\tgemm ") {
		t.Errorf("octet bench -h: exit %d, output:\n%s", code, out)
	}
	code, out, _ = runOctet(t, "", "bench", "gemm", "-h")
	if code != 0 || !strings.HasPrefix(out, "usage: octet bench gemm ") || !strings.Contains(out, "-trans-a") {
		t.Errorf("octet bench gemm -h: exit %d, output:\n%s", code, out)
	}
}

func TestBenchParse(t *testing.T) {
	src := "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT n = f32[4] negate(p)\n}\n"
	code, out, stderr := runOctet(t, src, "bench", "parse", "--time=10ms", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasSuffix(strings.TrimSpace(out), "MB/s") || !strings.Contains(out, "2 instructions") {
		t.Errorf("output:\n%s", out)
	}
	code, _, stderr = runOctet(t, "HloModule m\nENTRY e {\n  ROOT p = f32[4] bogus(0)\n}\n", "bench", "parse", "-")
	if code != 1 || !strings.Contains(stderr, "<stdin>:3:19: unknown opcode") {
		t.Errorf("bad input: exit %d, stderr %q", code, stderr)
	}
}

// TestBenchGEMMTune runs the block-size search once, with the cache in a temporary directory, and checks
// that it says what it chose and where it kept it.
func TestBenchGEMMTune(t *testing.T) {
	if testing.Short() {
		t.Skip("the search takes a few seconds")
	}
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", dir)
	t.Setenv("HOME", dir)
	code, out, stderr := runOctet(t, "", "bench", "gemm", "--m=64", "--n=64", "--k=64", "--tune", "--kernel=go", "--reps=1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "tuned go 4x4: mc=") || !strings.Contains(out, dir) {
		t.Errorf("output does not give the chosen sizes and the cache file under %s:\n%s", dir, out)
	}
}

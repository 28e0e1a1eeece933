package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

const profileModule = `HloModule prof

cond {
  s = (s32[], f32[8,8,8,16]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  ROOT lt = pred[] compare(i, s32[] constant(3)), direction=LT
}

body {
  s = (s32[], f32[8,8,8,16]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[8,8,8,16] get-tuple-element(s), index=1
  twice = f32[8,8,8,16] add(v, v)
  n = s32[] add(i, s32[] constant(1))
  ROOT t = (s32[], f32[8,8,8,16]) tuple(n, twice)
}

sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  x = f32[8,8,8,4] parameter(0)
  k = f32[3,3,4,16] parameter(1)
  w = f32[16,32] parameter(2)
  conv = f32[8,8,8,16] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  loop = (s32[], f32[8,8,8,16]) while((s32[], f32[8,8,8,16]) tuple(s32[] constant(0), conv)), condition=cond, body=body
  y = f32[8,8,8,16] get-tuple-element(loop), index=1
  flat = f32[512,16] reshape(y)
  d = f32[512,32] dot(flat, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = f32[512] reduce(d, f32[] constant(0)), dimensions={1}, to_apply=sum
}
`

func TestRunProfile(t *testing.T) {
	code, out, stderr := runOctet(t, profileModule, "run", "--random", "1", "--profile", "--threads", "1", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^out0: f32\[512\] `),
		regexp.MustCompile(`(?m)^profile of prof: .* on 1 threads, 0\.001 GFLOP, .* GFLOP/s; dots and convolutions on `),
		regexp.MustCompile(`(?m)^ +time +share +calls +GFLOP +GFLOP/s +MB +GB/s +instruction$`),
		regexp.MustCompile(`(?m)^ *[0-9.]+ [mu]?s +[0-9.]+% +1 +0\.001 .* %conv = f32\[8,8,8,16\] convolution 3x3$`),
		regexp.MustCompile(`(?m)^ *[0-9.]+ [mu]?s +[0-9.]+% +3 +0\.000 .* %twice = f32\[8,8,8,16\] add$`),
		regexp.MustCompile(`(?m)^ +time +share +count +GFLOP +GFLOP/s +MB +GB/s +opcode$`),
		regexp.MustCompile(`(?m)^ *[0-9.]+ [mu]?s +[0-9.]+% +1 +0\.001 .* convolution$`),
	} {
		if !want.MatchString(out) {
			t.Errorf("the output does not match %s:\n%s", want, out)
		}
	}

	code, out, stderr = runOctet(t, profileModule, "run", "--random", "1", "--profile", "--json", "-")
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, stderr)
	}
	var r profileReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	rows := map[string]profileRow{}
	share := 0.0
	for _, x := range r.Instructions {
		rows[x.Name] = x
		share += x.Share
	}
	// 8*8*8*16 outputs of 3*3*4 multiply-adds; 512*32 outputs of 16; the body's add three times over
	// 8192 elements, reading two and writing one of 32 KiB.
	checks := []struct {
		name         string
		calls, flops int64
		bytes        int64
	}{
		{"conv", 1, 2 * 8192 * 36, 4 * (8*8*8*4 + 3*3*4*16 + 8192)},
		{"d", 1, 2 * 512 * 32 * 16, 4 * (512*16 + 16*32 + 512*32)},
		{"twice", 3, 3 * 8192, 3 * 3 * 4 * 8192},
		{"r", 1, 512 * 32, 4 * (512*32 + 1 + 512)},
	}
	for _, c := range checks {
		x, ok := rows[c.name]
		if !ok {
			t.Errorf("--json: no row for %%%s", c.name)
			continue
		}
		if x.Calls != c.calls || x.FLOPs != c.flops || x.Bytes != c.bytes {
			t.Errorf("--json: %%%s has %d calls, %d FLOPs, %d bytes; want %d, %d, %d", c.name, x.Calls, x.FLOPs, x.Bytes, c.calls, c.flops, c.bytes)
		}
	}
	if _, ok := rows["loop"]; !ok || share > 1.0001 || r.Module != "prof" || r.Seconds <= 0 || len(r.Opcodes) == 0 {
		t.Errorf("--json: shares sum to %v, report %+v", share, r)
	}
	if strings.Contains(out, "out0:") {
		t.Errorf("--json printed the result's summary too:\n%s", out)
	}

	code, _, stderr = runOctet(t, profileModule, "run", "--random", "1", "--json", "-")
	if code != 2 || !strings.Contains(stderr, "--json needs --profile") {
		t.Errorf("--json without --profile: exit %d, %s", code, stderr)
	}
	code, _, stderr = runOctet(t, profileModule, "run", "--random", "1", "--threads=-2", "-")
	if code != 2 || !strings.Contains(stderr, "--threads must not be negative") {
		t.Errorf("--threads=-2: exit %d, %s", code, stderr)
	}
}

func TestBenchRun(t *testing.T) {
	code, out, stderr := runOctet(t, profileModule, "bench", "run", "--reps", "2", "--gemm-size", "64", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^module prof: \d+ instructions timed, 0\.001 GFLOP per run \(0\.001 in 2 dots and convolutions\), \d+ threads$`),
		regexp.MustCompile(`(?m)^run: 2 reps after a warm-up, median .*$`),
		regexp.MustCompile(`(?m)^dots and convolutions at [0-9.]+ of the GEMM kernel's rate \(median of the runs' ratios, which range [0-9.]+-[0-9.]+; best against best [0-9.]+\)$`),
		regexp.MustCompile(`[0-9.]+ GFLOP/s\n$`),
	} {
		if !want.MatchString(out) {
			t.Errorf("the output does not match %s:\n%s", want, out)
		}
	}
	for _, cpu := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^run: .*, CPU time median [0-9.]+ [mµu]?s$`),
		regexp.MustCompile(`(?m)^in CPU time \(all runs\): dots and convolutions [0-9.]+ GFLOP per CPU-second, gemm [0-9.]+: [0-9.]+ of the GEMM kernel's rate$`),
	} {
		if haveProcessCPU && !cpu.MatchString(out) {
			t.Errorf("the output does not match %s:\n%s", cpu, out)
		}
	}
	code, _, stderr = runOctet(t, profileModule, "bench", "run", "--gemm-size", "0", "-")
	if code != 2 || !strings.Contains(stderr, "--gemm-size must be at least 1") {
		t.Errorf("--gemm-size 0: exit %d, %s", code, stderr)
	}
}

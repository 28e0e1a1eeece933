package main

import (
	"archive/zip"
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"octet/dtype"
	"octet/gemm"
	"octet/hlo/parser"
	"octet/tensor"
)

const runModule = `HloModule scale
ENTRY e {
  x = f8e4m3fn[2,2] parameter(0)
  s = f32[] parameter(1)
  f = f32[2,2] convert(x)
  b = f32[2,2] broadcast(s), dimensions={}
  m = f32[2,2] multiply(f, b)
  ROOT t = (f32[2,2], bf16[2,2]) tuple(m, bf16[2,2] convert(m))
}
`

// writeRunFiles writes files into a temporary folder and returns their paths by name.
func writeRunFiles(t *testing.T, files map[string][]byte) map[string]string {
	t.Helper()
	dir := t.TempDir()
	paths := map[string]string{}
	for name, data := range files {
		paths[name] = writeTemp(t, dir, name, string(data))
	}
	return paths
}

func npyBytes(t *testing.T, x *tensor.Tensor) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := tensor.WriteNpy(&b, x); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func npzBytes(t *testing.T, names []string, xs ...*tensor.Tensor) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := tensor.WriteNpz(&b, names, xs); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// npzRaw writes a zip archive of the given members, stored, in the order of their names.
func npzRaw(t *testing.T, members map[string][]byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, name := range slices.Sorted(maps.Keys(members)) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		if err == nil {
			_, err = w.Write(members[name])
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestRunInputsAndOutput(t *testing.T) {
	// x = [[1, 2], [-0.5, 448]] as f8e4m3fn bits, s = 2.
	x := tensor.FromBits(dtype.F8E4M3FN, []int64{2, 2}, []uint64{0x38, 0x40, 0xb0, 0x7e})
	s := tensor.FromFloat32(nil, []float32{2})
	p := writeRunFiles(t, map[string][]byte{
		"m.hlo":  []byte(runModule),
		"x.npy":  npyBytes(t, x),
		"s.npy":  npyBytes(t, s),
		"in.npz": npzBytes(t, []string{"x", "arg1"}, x, s),
	})
	out := filepath.Join(filepath.Dir(p["m.hlo"]), "out.npz")
	for _, args := range [][]string{
		{"run", "--input", p["x.npy"], "--input", p["s.npy"], "-o", out, p["m.hlo"]},
		{"run", "--inputs", p["in.npz"], p["m.hlo"], "-o", out},
	} {
		os.Remove(out)
		code, stdout, stderr := runOctet(t, "", args...)
		if code != 0 {
			t.Fatalf("octet %v: exit %d: %s", args, code, stderr)
		}
		for _, want := range []string{"out0: f32[2,2]  min -1  max 896  mean 225.25  nan 0  inf 0\n  [2 4 -1 896]", "out1: bf16[2,2]"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("octet %v: output lacks %q:\n%s", args, want, stdout)
			}
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		names, arrays, err := tensor.ReadNpzAs(bytes.NewReader(data), int64(len(data)), map[string]dtype.Type{"out1": dtype.BF16})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(names, ",") != "out0,out1" {
			t.Errorf("npz names %v, want out0, out1", names)
		}
		if got := arrays["out0"].Float32s(); got[0] != 2 || got[3] != 896 {
			t.Errorf("out0 = %v", got)
		}
		if got := arrays["out1"].Float32s(); got[1] != 4 {
			t.Errorf("out1 = %v", got)
		}
	}
}

func TestRunRandom(t *testing.T) {
	code, out1, stderr := runOctet(t, runModule, "run", "--random", "3", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, out2, _ := runOctet(t, runModule, "run", "--random=3", "-")
	if out1 != out2 || !strings.HasPrefix(out1, "out0: f32[2,2]") {
		t.Errorf("--random 3 twice gave\n%s\nand\n%s", out1, out2)
	}
	code, out, stderr := runOctet(t, "ENTRY e {\n  ROOT c = s32[3] iota(), iota_dimension=0\n}", "run", "-")
	if code != 0 || !strings.Contains(out, "out0: s32[3]  min 0  max 2  mean 1\n  [0 1 2]") {
		t.Errorf("a module without parameters: exit %d\n%s%s", code, out, stderr)
	}
}

// TestRunSummaryIntegers: integer results are summarised with their values whole, signed and unsigned,
// past 2^53 and at the ends of their types; the mean keeps six digits.
func TestRunSummaryIntegers(t *testing.T) {
	src := "ENTRY e {\n  a = s64[4] constant({-9223372036854775808, 9007199254740993, -1, 7})\n" +
		"  b = u64[2] constant({18446744073709551615, 4294967296})\n  c = s4[3] constant({-8, 7, 0})\n" +
		"  ROOT t = (s64[4], u64[2], s4[3]) tuple(a, b, c)\n}"
	code, out, stderr := runOctet(t, src, "run", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"out0: s64[4]  min -9223372036854775808  max 9007199254740993  mean -2.30359e+18\n  [-9223372036854775808 9007199254740993 -1 7]\n",
		"out1: u64[2]  min 4294967296  max 18446744073709551615  mean 9.22337e+18\n  [18446744073709551615 4294967296]\n",
		"out2: s4[3]  min -8  max 7  mean -0.333333\n  [-8 7 0]\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("want\n%s\nin\n%s", want, out)
		}
	}
}

// TestRunElidedConstants runs a module whose constant's values the text elides: refused without
// --random, given the same random values twice with it, and said so on stderr by run and bench run.
func TestRunElidedConstants(t *testing.T) {
	const m = "ENTRY e {\n  c = f32[64] constant({...})\n  z = f32[] constant(0)\n  ROOT r = f32[] reduce(c, z), dimensions={0}, to_apply=add\n}\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"
	code, _, stderr := runOctet(t, m, "run", "-")
	if code == 0 || !strings.Contains(stderr, "constant whose values were elided") {
		t.Errorf("without --random: exit %d: %s", code, stderr)
	}
	code, out1, stderr := runOctet(t, m, "run", "--random", "5", "-")
	if code != 0 || !strings.Contains(stderr, "octet run: 1 constants whose values the text elides ({...}) take random values from seed 5") {
		t.Fatalf("--random 5: exit %d: %s", code, stderr)
	}
	_, out2, _ := runOctet(t, m, "run", "--random", "5", "-")
	_, out3, _ := runOctet(t, m, "run", "--random", "6", "-")
	if out1 != out2 || out1 == out3 || !strings.HasPrefix(out1, "out0: f32[]") {
		t.Errorf("seed 5 twice gave\n%s\nand\n%s\nseed 6 gave\n%s", out1, out2, out3)
	}
	code, _, stderr = runOctet(t, m, "bench", "run", "--reps", "1", "--gemm-size", "32", "-")
	if code != 0 || !strings.Contains(stderr, "octet bench run: 1 constants whose values the text elides") {
		t.Errorf("bench run: exit %d: %s", code, stderr)
	}
}

func TestRunBadInput(t *testing.T) {
	x := tensor.FromBits(dtype.F8E4M3FN, []int64{2, 2}, []uint64{0x38, 0x40, 0xb0, 0x7e})
	s := tensor.FromFloat32(nil, []float32{2})
	p := writeRunFiles(t, map[string][]byte{
		"m.hlo":          []byte(runModule),
		"x.npy":          npyBytes(t, x),
		"s.npy":          npyBytes(t, s),
		"x3.npy":         npyBytes(t, tensor.New(dtype.F8E4M3FN, []int64{3})),
		"s64.npy":        npyBytes(t, tensor.FromFloat64(nil, []float64{2})),
		"short.npz":      npzBytes(t, []string{"x"}, x),
		"extra.npz":      npzBytes(t, []string{"x", "s", "z"}, x, s, s),
		"bad-extra.npz":  npzRaw(t, map[string][]byte{"x.npy": npyBytes(t, x), "s.npy": npyBytes(t, s), "z.npy": []byte("not an array")}),
		"garbage.npy":    []byte("not an array"),
		"big.hlo":        []byte("ENTRY e {\n  x = f32[] parameter(0)\n  ROOT b = f32[4096,4096] broadcast(x), dimensions={}\n}"),
		"stochastic.hlo": []byte("ENTRY e {\n  x = f32[2] parameter(0)\n  y = u32[2] parameter(1)\n  ROOT r = bf16[2] stochastic-convert(x, y)\n}"),
		"bad.hlo":        []byte("ENTRY e {\n  ROOT x = f32[] bogus()\n}"),
		"forever.hlo": []byte("c {\n  p = s32[] parameter(0)\n  ROOT t = pred[] constant(true)\n}\n" +
			"b {\n  p = s32[] parameter(0)\n  one = s32[] constant(1)\n  ROOT a = s32[] add(p, one)\n}\n" +
			"ENTRY e {\n  z = s32[] constant(0)\n  ROOT w = s32[] while(z), condition=c, body=b\n}"),
		"empty.npy": {},
	})
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no-inputs", []string{"run", p["m.hlo"]}, 1, "takes 2 parameters: give --input, --inputs or --random"},
		{"missing-input", []string{"run", "--input", p["x.npy"], p["m.hlo"]}, 1, "1 --input files for 2 parameters"},
		{"extra-input", []string{"run", "--input", p["x.npy"], "--input", p["s.npy"], "--input", p["s.npy"], p["m.hlo"]}, 1, "3 --input files for 2 parameters"},
		{"wrong-shape", []string{"run", "--input", p["x3.npy"], "--input", p["s.npy"], p["m.hlo"]}, 1, "parameter 0 (%x): want f8e4m3fn[2,2], have f8e4m3fn[3]"},
		{"wrong-type", []string{"run", "--input", p["x.npy"], "--input", p["s64.npy"], p["m.hlo"]}, 1, "s64.npy"},
		{"not-npy", []string{"run", "--input", p["garbage.npy"], "--input", p["s.npy"], p["m.hlo"]}, 1, "garbage.npy"},
		{"missing-file", []string{"run", "--input", p["x.npy"], "--input", "/no/such.npy", p["m.hlo"]}, 1, "/no/such.npy"},
		{"npz-missing", []string{"run", "--inputs", p["short.npz"], p["m.hlo"]}, 1, "no array for parameter 1 (%s): name it s or arg1"},
		{"npz-extra", []string{"run", "--inputs", p["extra.npz"], p["m.hlo"]}, 1, `array "z" is no parameter`},
		// The names are checked from the archive's directory before any array is read.
		{"npz-extra-unread", []string{"run", "--inputs", p["bad-extra.npz"], p["m.hlo"]}, 1, `array "z" is no parameter`},
		{"over-memory", []string{"run", "--random", "1", "--max-memory", "1MiB", p["big.hlo"]}, 1, "more than the memory budget of 1.0 MiB; largest: %b f32[4096,4096] (64.0 MiB)"},
		{"unsupported", []string{"run", "--random", "1", p["stochastic.hlo"]}, 1, "stochastic.hlo:4:3: unsupported: stochastic-convert"},
		{"parse-error", []string{"run", "--random", "1", p["bad.hlo"]}, 1, "bad.hlo:2:"},
		{"two-sources", []string{"run", "--random", "1", "--inputs", p["short.npz"], p["m.hlo"]}, 2, "give inputs one way"},
		{"bad-seed", []string{"run", "--random", "x", p["m.hlo"]}, 2, "unsigned integer seed"},
		{"bad-size", []string{"run", "--random", "1", "--max-memory", "lots", p["m.hlo"]}, 2, "is not a size"},
		{"no-file", []string{"run", "--random", "1"}, 2, "run takes one FILE"},
		{"timeout", []string{"run", "--timeout", "200ms", p["forever.hlo"]}, 1, "forever.hlo:12:3: %w: stopped after 200ms (--timeout), evaluating it"},
		{"bad-timeout", []string{"run", "--timeout", "-1s", p["forever.hlo"]}, 2, "--timeout must not be negative"},
		{"empty-npy", []string{"run", "--input", p["empty.npy"], "--input", p["s.npy"], p["m.hlo"]}, 1, "empty.npy: empty, not a .npy array"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.npz")
			code, stdout, stderr := runOctet(t, "", append(c.args, "-o", out)...)
			if code != c.code || !strings.Contains(stderr, c.want) {
				t.Errorf("octet %v: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr, c.code, c.want)
			}
			if stdout != "" && code == 2 {
				t.Errorf("usage error printed to stdout: %q", stdout)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a failed run wrote %s", out)
			}
		})
	}
}

// TestRunNamesUnorderedKernel: with a GEMM kernel that is not ordered (the bf16 dot-product kernel), run
// says so on stderr, with the contractions it runs (the dot of bf16 values, not the f32 one); with an
// ordered kernel it says nothing.
func TestRunNamesUnorderedKernel(t *testing.T) {
	var bf16 *gemm.Kernel
	for _, k := range gemm.Kernels() {
		if !k.Ordered() {
			bf16 = k
		}
	}
	if bf16 == nil {
		t.Skip("this machine has no kernel that is not ordered (the bf16 one needs AVX-512 BF16)")
	}
	const both = `HloModule m
ENTRY e {
  a = bf16[16,32] parameter(0)
  b = bf16[32,8] parameter(1)
  c = f32[16,32] parameter(2)
  d = f32[32,8] parameter(3)
  x = f32[16,8] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  y = f32[16,8] dot(c, d), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (f32[16,8], f32[16,8]) tuple(x, y)
}`
	const f32Only = `HloModule m
ENTRY e {
  c = f32[16,32] parameter(0)
  d = f32[32,8] parameter(1)
  ROOT y = f32[16,8] dot(c, d), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`
	code, _, stderr := runOctet(t, both, "run", "--random", "1", "-")
	if code != 0 || strings.Contains(stderr, "not ordered") {
		t.Errorf("the default kernel: exit %d, stderr %q", code, stderr)
	}
	defer gemm.SetKernel(gemm.SetKernel(bf16))
	code, _, stderr = runOctet(t, both, "run", "--random", "1", "-")
	want := "octet run: the GEMM kernel " + bf16.String() + " is not ordered: 1 of the module's 2 dots and convolutions run on it"
	if code != 0 || !strings.HasPrefix(stderr, want) {
		t.Errorf("the %s kernel: exit %d, stderr %q, want it to start %q", bf16.Name(), code, stderr, want)
	}
	code, _, stderr = runOctet(t, f32Only, "run", "--random", "1", "-")
	if code != 0 || !strings.Contains(stderr, "is not ordered, but none of the module's 1 dots and convolutions runs on it") {
		t.Errorf("an f32 dot on the %s kernel: exit %d, stderr %q", bf16.Name(), code, stderr)
	}
	m, err := parser.ParseString("m.hlo", both)
	if err != nil {
		t.Fatal(err)
	}
	if note := kernelNote(m, bf16.Name()); !strings.Contains(note, "("+gemm.KernelEnv+"="+bf16.Name()+")") {
		t.Errorf("the kernel chosen by %s: %q", gemm.KernelEnv, note)
	}
}

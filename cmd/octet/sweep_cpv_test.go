package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"octet/tensor"
)

// TestCastLongSpellings checks numbers whose spellings strconv.ParseFloat misreads: a long mantissa
// that makes up for a long exponent, and more than 800 digits before the point. Python's float() reads
// each of them as 1 (or -1.5), and so does ml_dtypes.float8_e4m3fn.
func TestCastLongSpellings(t *testing.T) {
	z := strings.Repeat("0", 120000)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"cast", "--to", "f8e4m3fn", "0." + z + "1e120001"}, "-> 0x38 (1)\n"},
		{[]string{"cast", "--to", "f8e4m3fn", "-0." + z + "15e+120001"}, "-> 0xbc (-1.5)\n"},
		{[]string{"cast", "--to", "f64", "1" + z[:800] + "5e-801"}, "-> 0x3ff0000000000000 (1)\n"},
		{[]string{"cast", "--to", "f64", "2." + z[:2000] + "1e0"}, "-> 0x4000000000000000 (2)\n"},
		// The block formats read values the same way, signed NaNs included.
		{[]string{"cast", "--to", "mxfp8e4m3", "0." + z + "1e120001"}, "-> 0x78 (256) = 1\n"},
		{[]string{"cast", "--to", "mxfp4", "--", "-nan", "1"}, "scale 0xff = NaN"},
	} {
		code, out, errOut := runOctet(t, "", c.args...)
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("octet cast %.40s...: exit %d, %q %q; want %q", strings.Join(c.args[1:], " "), code, tail(out), errOut, c.want)
		}
	}
	// Standard input of the block formats is read whole: no line limit there.
	code, out, errOut := runOctet(t, "0."+z+"1e120001\n", "cast", "--to", "mxfp8e4m3")
	if code != 0 || !strings.HasSuffix(out, "-> 0x78 (256) = 1\n") {
		t.Errorf("octet cast --to mxfp8e4m3 < long: exit %d, %q %q", code, tail(out), errOut)
	}
}

func tail(s string) string {
	if len(s) > 80 {
		return "..." + s[len(s)-80:]
	}
	return s
}

// TestCastBlockOutputsAllOrNothing checks that quantizing to OUT.npy, which writes OUT.npy beside
// OUT.scale.npy, replaces neither when one cannot be written, and that a bad -o is refused before the
// input is read.
func TestCastBlockOutputsAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "x.npy")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := tensor.WriteNpy(f, tensor.FromFloat32([]int64{2, 4}, []float32{1, 2, 3, 4, 5, 6, 7, 448})); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out := writeTemp(t, dir, "q.npy", "keep me")
	if err := os.Mkdir(filepath.Join(dir, "q.scale.npy"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, stdout, errOut := runOctet(t, "", "cast", "--to", "mxfp4", "--input", in, "-o", out)
	if code != 1 || !strings.Contains(errOut, "q.scale.npy: is a directory") {
		t.Errorf("cast -o q.npy beside a folder q.scale.npy: exit %d, %q %q", code, stdout, errOut)
	}
	if data, _ := os.ReadFile(out); string(data) != "keep me" {
		t.Errorf("q.npy was replaced although its scales could not be written: %q", data)
	}
	// The suffix of -o is a usage error found before anything is read or printed.
	for _, args := range [][]string{
		{"cast", "--to", "mxfp4", "--input", filepath.Join(dir, "nosuch.npy"), "-o", filepath.Join(dir, "y.txt")},
		{"cast", "--from", "mxfp4", "--input", filepath.Join(dir, "nosuch.npz"), "-o", filepath.Join(dir, "y.npz")},
	} {
		code, stdout, errOut := runOctet(t, "", args...)
		if code != 2 || stdout != "" || strings.Contains(errOut, "nosuch") {
			t.Errorf("octet %s: exit %d, %q %q; want a usage error about -o alone", strings.Join(args, " "), code, stdout, errOut)
		}
	}
	// The summary counts in words.
	code, stdout, _ = runOctet(t, "", "cast", "--to", "mxfp8e4m3", "--input", in)
	if code != 0 || !strings.Contains(stdout, " 1 element at the largest magnitude") {
		t.Errorf("cast --input: exit %d, %q", code, stdout)
	}
}

// TestBenchSizesRefusedBeforeAllocation checks that sizes of matrices past the memory budget, or past
// what an int counts, are refused with a message rather than a panic or the runtime's out-of-memory
// crash, and that --reps and --rounds are bounded.
func TestBenchSizesRefusedBeforeAllocation(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"bench", "gemm", "--m=99999999999"}, 1, "more than the memory budget"},
		{[]string{"bench", "gemm", "--m=9223372036854775807", "--n=9223372036854775807", "--k=9223372036854775807", "--max-memory=0"}, 1, "more than the memory budget"},
		{[]string{"bench", "gemm", "--m=64", "--n=64", "--k=64", "--max-memory=1KiB"}, 1, "the matrices need 80.0 KiB"},
		{[]string{"bench", "gemm", "--m=4", "--n=4", "--k=4", "--reps=999999999999"}, 2, "at most 1000000"},
		{[]string{"bench", "gemm", "--max-memory=lots"}, 2, "is not a size"},
		{[]string{"bench", "gemm", "--m=4", "--n=4", "--k=4", "--threads=100000000"}, 2, "--threads must be at most 4096"},
		{[]string{"bench", "run", "--threads=100000000", "nosuch.hlo"}, 2, "--threads must be at most 4096"},
		{[]string{"bench", "run", "--gemm-size=99999999999", "nosuch.hlo"}, 1, "--gemm-size=99999999999: the GEMM's matrices need"},
		{[]string{"bench", "parse", "--time=-1s", "nosuch.hlo"}, 2, "--time must not be negative"},
	} {
		code, _, errOut := runOctet(t, "", c.args...)
		if code != c.code || !strings.Contains(errOut, c.err) {
			t.Errorf("octet %s: exit %d, %q; want %d and %q", strings.Join(c.args, " "), code, errOut, c.code, c.err)
		}
	}
}

// TestConvertSeveralModulesParsesBack checks that convert separates the modules of a file as print does,
// so that its output parses back into as many modules.
func TestConvertSeveralModulesParsesBack(t *testing.T) {
	dir := t.TempDir()
	src := writeTemp(t, dir, "two.mlir", `module @first {
  func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.negate %arg0 : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
module @second {
  func.func @main(%arg0: tensor<3xf32>) -> tensor<3xf32> {
    %0 = stablehlo.abs %arg0 : tensor<3xf32>
    return %0 : tensor<3xf32>
  }
}
`)
	code, out, errOut := runOctet(t, "", "convert", src)
	if code != 0 {
		t.Fatalf("convert: exit %d: %s", code, errOut)
	}
	hlo := writeTemp(t, dir, "two.hlo", out)
	code, vout, errOut := runOctet(t, "", "verify", hlo)
	if code != 0 || !strings.Contains(vout, "2 modules") {
		t.Errorf("verify of convert's output: exit %d, %q %q\n%s", code, vout, errOut, out)
	}
}

// TestUnknownTypeSuggests checks that finfo and cast name the types most like an unknown one.
func TestUnknownTypeSuggests(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"finfo", "e4m3"}, `unknown type "e4m3"; did you mean f8e4m3, f8e4m3fn,`},
		{[]string{"finfo", "half"}, `did you mean f16?`},
		{[]string{"finfo", "bfloat"}, `did you mean bf16?`},
		{[]string{"finfo", "nvfp"}, `did you mean nvfp4?`},
		{[]string{"cast", "--to", "E5M2", "1"}, `did you mean f8e5m2, f8e5m2fnuz, mxfp8e5m2?`},
		{[]string{"finfo", "xyz"}, `unknown type "xyz" (known: pred,`},
	} {
		code, _, errOut := runOctet(t, "", c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("octet %s: exit %d, %q; want 2 and %q", strings.Join(c.args, " "), code, errOut, c.want)
		}
	}
}

// TestCastTensorScaleFloat32 checks that a --tensor-scale outside float32's range is refused rather than
// read as "not given" (a float32 zero) or as an infinity, and that the values are quantized with the
// float32 tensor scale a file holds.
func TestCastTensorScaleFloat32(t *testing.T) {
	for _, g := range []string{"1e-50", "1e39"} {
		code, out, errOut := runOctet(t, "", "cast", "--to", "nvfp4", "--tensor-scale", g, "1", "2")
		if code != 2 || !strings.Contains(errOut, "outside float32's range") {
			t.Errorf("cast --tensor-scale %s: exit %d, %q %q", g, code, out, errOut)
		}
	}
	// 0.1 as a float32 is 0.100000001490116...: the block scale 2.25 and -0.9's element -4 give
	// -4 * 2.25 * float32(0.1) = -0.90000004 in float32 (with the binary64 0.1, -0.9).
	code, out, errOut := runOctet(t, "", "cast", "--to", "nvfp4", "--tensor-scale", "0.1", "0.3", "0.7", "-0.9", "1.3")
	if code != 0 || !strings.Contains(out, "-0.9 -> 0xe (-4) = -0.90000004\n") {
		t.Errorf("cast --tensor-scale 0.1: exit %d, %q %q", code, out, errOut)
	}
}

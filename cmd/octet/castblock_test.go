package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"octet/blockscale"
	"octet/dtype"
	"octet/tensor"
)

func TestCastBlockValues(t *testing.T) {
	for _, c := range []struct {
		args  []string
		stdin string
		want  string
	}{
		// OCP MX v1.0, Algorithm 1: floor(log2 300) - 8 = 0; 300 rounds to 288.
		{[]string{"cast", "--to", "mxfp8e4m3", "300", "1", "0.5", "-2"}, "", `mxfp8e4m3: 4 values in 1 block of 32: f8e4m3fn elements, f8e8m0fnu scales
block 0 (values 1-4): amax 300, scale 0x7f = 2^0 (floor(log2 amax) - 8)
300 -> 0x79 (288) = 288
1 -> 0x38 (1) = 1
0.5 -> 0x30 (0.5) = 0.5
-2 -> 0xc0 (-2) = -2
`},
		// NVFP4 with g = 0.25: scale 6 / (6 x 0.25) = 4; 0.75 / 1 is halfway between 0.5 and 1: even, 1.
		{[]string{"cast", "--to", "nvfp4", "--tensor-scale", "0.25", "6", "0.75"}, "", `nvfp4: 2 values in 1 block of 16: f4e2m1fn elements, f8e4m3fn scales, tensor scale g = 0.25 (given)
block 0 (values 1-2): amax 6, scale 0x48 = 4 (amax / (6 g), to f8e4m3fn)
6 -> 0x7 (6) = 6
0.75 -> 0x2 (1) = 1
`},
		// Two MXFP4 blocks read from standard input: the second holds a NaN.
		{[]string{"cast", "--to", "mxfp4"}, strings.Repeat("1\n", 32) + "nan\n", ""},
	} {
		code, out, errOut := runOctet(t, c.stdin, c.args...)
		if code != 0 {
			t.Errorf("octet %s: exit %d: %s", strings.Join(c.args, " "), code, errOut)
			continue
		}
		if c.want == "" {
			if !strings.Contains(out, "block 1 (values 33-33): amax nan, scale 0xff = NaN") || !strings.Contains(out, "block 0 (values 1-32): amax 1, scale 0x7d = 2^-2") || !strings.Contains(out, "1 -> 0x6 (4) = 1\n") {
				t.Errorf("octet %s:\n%s", strings.Join(c.args, " "), out)
			}
			continue
		}
		if out != c.want {
			t.Errorf("octet %s:\ngot:\n%s\nwant:\n%s", strings.Join(c.args, " "), out, c.want)
		}
	}
}

func TestCastBlockFiles(t *testing.T) {
	dir := t.TempDir()
	vals := make([]float32, 3*40)
	for i := range vals {
		vals[i] = float32(i%23)*0.37 - 4
	}
	x := tensor.FromFloat32([]int64{3, 40}, vals)
	in := filepath.Join(dir, "x.npy")
	f, _ := os.Create(in)
	if err := tensor.WriteNpy(f, x); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, format := range []string{"mxfp8e4m3", "mxfp6e3m2", "nvfp4"} {
		bf, _ := blockscale.Lookup(format)
		want, err := blockscale.Quantize(bf, x, 0, blockscale.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, ext := range []string{".npz", ".npy"} {
			q := filepath.Join(dir, format+ext)
			code, out, errOut := runOctet(t, "", "cast", "--to", format, "--axis", "0", "--input", in, "-o", q)
			if code != 0 {
				t.Fatalf("quantize to %s: exit %d: %s", q, code, errOut)
			}
			if !strings.Contains(out, "along axis 0: 40 blocks of") {
				t.Errorf("quantize: %s", out)
			}
			back := filepath.Join(dir, format+ext+".back.npy")
			if code, out, errOut = runOctet(t, "", "cast", "--from", format, "--input", q, "-o", back); code != 0 {
				t.Fatalf("dequantize %s: exit %d: %s %s", q, code, out, errOut)
			}
			bfile, _ := os.Open(back)
			got, err := tensor.ReadNpy(bfile)
			bfile.Close()
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(want.Dequantize()) {
				t.Errorf("%s via %s: the values differ from blockscale's", format, ext)
			}
		}
	}
	// The npy convention: the scales beside the elements.
	if _, err := os.Stat(filepath.Join(dir, "nvfp4.scale.npy")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "nvfp4.tensor_scale.npy")); err != nil {
		t.Error(err)
	}
	sf, _ := os.Open(filepath.Join(dir, "mxfp8e4m3.scale.npy"))
	s, err := tensor.ReadNpyAs(sf, dtype.F8E8M0FNU)
	sf.Close()
	if err != nil || s.Shape[0] != 1 || s.Shape[1] != 40 {
		t.Errorf("scales %v, %v: want f8e8m0fnu[1,40]", s, err)
	}
}

func TestCastBlockErrors(t *testing.T) {
	for _, c := range []struct {
		args  []string
		stdin string
		code  int
		err   string
	}{
		{[]string{"cast", "--to", "mxfp8", "--bits", "1"}, "", 2, "do not apply"},
		{[]string{"cast", "--to", "f8e4m3fn", "--input", "x.npy"}, "", 2, "are for the block-scaled formats"},
		{[]string{"cast", "--from", "nvfp4", "1"}, "", 2, "give it with --input"},
		{[]string{"cast", "--to", "mxfp4", "--tensor-scale", "2", "1"}, "", 2, "NVFP4's"},
		{[]string{"cast", "--to", "mxfp5", "1"}, "", 2, "block-scaled: mxfp8e4m3"},
		{[]string{"cast", "--to", "mxfp4"}, "1\nx2\n", 1, "<stdin>:2:1: \"x2\" is not a number"},
		{[]string{"cast", "--to", "mxfp4", "-o", "y.npz", "1"}, "", 2, "-o writes what --input"},
		{[]string{"finfo", "mxfp7"}, "", 2, "block-scaled: mxfp8e4m3"},
	} {
		code, _, errOut := runOctet(t, c.stdin, c.args...)
		if code != c.code || !strings.Contains(errOut, c.err) {
			t.Errorf("octet %s: exit %d, stderr %q; want %d and %q", strings.Join(c.args, " "), code, errOut, c.code, c.err)
		}
	}
}

func TestFinfoBlock(t *testing.T) {
	code, out, _ := runOctet(t, "", "finfo", "mxfp8e4m3", "nvfp4")
	for _, want := range []string{"Block-scaled format mxfp8e4m3", "emax_elem 8", "scale 2^(floor(log2(amax)) - 8)",
		"8.25 bits per value", "Block-scaled format nvfp4", "amax / (6 x 448)", "4.5 bits per value"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("finfo: exit %d, no %q in\n%s", code, want, out)
		}
	}
}

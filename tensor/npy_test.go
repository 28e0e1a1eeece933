package tensor_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"octet/dtype"
	"octet/tensor"
)

func bitsOf(vals ...float32) []uint64 {
	out := make([]uint64, len(vals))
	for i, v := range vals {
		out[i] = uint64(math.Float32bits(v))
	}
	return out
}

func f64bits(vals ...float64) []uint64 {
	out := make([]uint64, len(vals))
	for i, v := range vals {
		out[i] = math.Float64bits(v)
	}
	return out
}

// goldens are the files of testdata (written by testdata/mkgolden.py from the format specification) and
// the tensors they hold. write marks the files that numpy.save would write byte for byte from the tensor.
var goldens = []struct {
	file  string
	want  dtype.Type // for ReadNpyAs; Invalid for ReadNpy
	t     *tensor.Tensor
	write bool
}{
	{"f32_2x3.npy", 0, tensor.FromFloat32([]int64{2, 3}, []float32{0, 1.5, -2, 3.25, 100, -0.125}), true},
	{"f64_3.npy", 0, tensor.FromFloat64([]int64{3}, []float64{1, -0.5, 5e-324}), true},
	{"f16_4.npy", 0, tensor.FromBits(dtype.F16, []int64{4}, []uint64{0x3c00, 0xc000, 0x7c00, 0x0001}), true},
	{"bool_5.npy", 0, tensor.FromBits(dtype.PRED, []int64{5}, []uint64{1, 0, 1, 1, 0}), true},
	{"i8_2x2.npy", 0, tensor.FromBits(dtype.S8, []int64{2, 2}, []uint64{0x80, 0xff, 0, 0x7f}), true},
	{"i16_3.npy", 0, tensor.FromBits(dtype.S16, []int64{3}, []uint64{0x8000, 1, 0x7fff}), true},
	{"i32_2.npy", 0, tensor.FromBits(dtype.S32, []int64{2}, []uint64{0x80000000, 7}), true},
	{"i64_2.npy", 0, tensor.FromBits(dtype.S64, []int64{2}, []uint64{1 << 63, 1<<63 - 1}), true},
	{"u8_3.npy", 0, tensor.FromBits(dtype.U8, []int64{3}, []uint64{0, 128, 255}), true},
	{"u16_2.npy", 0, tensor.FromBits(dtype.U16, []int64{2}, []uint64{1, 65535}), true},
	{"u32_2.npy", 0, tensor.FromBits(dtype.U32, []int64{2}, []uint64{1, 1<<32 - 1}), true},
	{"u64_2.npy", 0, tensor.FromBits(dtype.U64, []int64{2}, []uint64{1, math.MaxUint64}), true},
	{"c64_2.npy", 0, tensor.FromBits(dtype.C64, []int64{2}, []uint64{bitsOf(1)[0] | bitsOf(2)[0]<<32, bitsOf(-0.5)[0] | 0x80000000<<32}), true},
	{"c128_1.npy", 0, func() *tensor.Tensor {
		t := tensor.New(dtype.C128, []int64{1})
		copy(tensor.View[complex128](t), []complex128{complex(3, -4)})
		return t
	}(), true},
	{"f32_scalar.npy", 0, tensor.FromFloat32(nil, []float32{2.5}), true},
	{"f32_empty.npy", 0, tensor.FromFloat32([]int64{0}, nil), true},
	{"f32_2x0.npy", 0, tensor.FromFloat32([]int64{2, 0}, nil), true},
	{"f8e4m3fn_4.npy", dtype.F8E4M3FN, tensor.FromBits(dtype.F8E4M3FN, []int64{4}, []uint64{0, 0x38, 0x7e, 0xff}), true},
	{"bf16_2x2.npy", dtype.BF16, tensor.FromBits(dtype.BF16, []int64{2, 2}, []uint64{0x3f80, 0xc000, 0x7f80, 1}), true},
	{"s4_3.npy", dtype.S4, tensor.FromBits(dtype.S4, []int64{3}, []uint64{0xf, 0x8, 0x7}), true},
	{"f64_be.npy", 0, tensor.FromFloat64([]int64{2}, []float64{1, -2.5}), false},
	{"c64_be.npy", 0, tensor.FromBits(dtype.C64, []int64{1}, []uint64{bitsOf(1)[0] | bitsOf(-2)[0]<<32}), false},
	{"i32_fortran_2x3.npy", 0, tensor.FromBits(dtype.S32, []int64{2, 3}, []uint64{1, 2, 3, 4, 5, 6}), false},
	{"f32_v2.npy", 0, tensor.FromFloat32([]int64{3}, []float32{1, 2, 3}), false},
	{"f32_v3.npy", 0, tensor.FromFloat32([]int64{3}, []float32{1, 2, 3}), false},
	{"f32_old.npy", 0, tensor.FromFloat32([]int64{3}, []float32{1, 2, 3}), false},
	{"f32_py2.npy", 0, tensor.FromFloat32([]int64{3}, []float32{1, 2, 3}), false},
	{"f8e5m2_void.npy", dtype.F8E5M2, tensor.FromBits(dtype.F8E5M2, []int64{2}, []uint64{0x3c, 0x7c}), false},
	{"f8e5m2_f1.npy", dtype.F8E5M2, tensor.FromBits(dtype.F8E5M2, []int64{2}, []uint64{0x3c, 0x7c}), false},
}

func TestNpyGolden(t *testing.T) {
	for _, g := range goldens {
		t.Run(g.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", g.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := tensor.ReadNpyAs(bytes.NewReader(data), g.want)
			if err != nil {
				t.Fatalf("ReadNpyAs(%v): %v", g.want, err)
			}
			if !got.Equal(g.t) {
				t.Fatalf("read %v % x, want %v % x", got, got.Data, g.t, g.t.Data)
			}
			var buf bytes.Buffer
			if err := tensor.WriteNpy(&buf, g.t); err != nil {
				t.Fatal(err)
			}
			if g.write && !bytes.Equal(buf.Bytes(), data) {
				t.Errorf("WriteNpy differs from numpy's bytes:\n got %q\nwant %q", buf.Bytes(), data)
			}
			// Whatever it was read from, what WriteNpy writes reads back the same.
			back, err := tensor.ReadNpyAs(&buf, g.want)
			if err != nil || !back.Equal(g.t) {
				t.Errorf("round trip: %v, %v", back, err)
			}
		})
	}
}

// TestNpyHeaderPadding checks numpy's alignment rules on headers of every length: the data starts at a
// multiple of 64, and a header that would end exactly on the boundary gets 64 more spaces.
func TestNpyHeaderPadding(t *testing.T) {
	for _, shape := range [][]int64{nil, {1}, {12345678901}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {7, 1000000, 3}} {
		x := &tensor.Tensor{Type: dtype.U8, Shape: shape}
		h := tensor.NpyHeaderBytes(x)
		if len(h)%64 != 0 || h[len(h)-1] != '\n' {
			t.Errorf("shape %v: header of %d bytes, ending %q", shape, len(h), h[len(h)-1])
		}
		text := string(h[10 : len(h)-1])
		dict := strings.TrimRight(text, " ")
		if pad := len(text) - len(dict); pad < 1 || pad > 64+20 {
			t.Errorf("shape %v: %d spaces of padding", shape, pad)
		}
		hdr, err := tensor.ReadNpyHeader(bytes.NewReader(h))
		if err != nil || len(hdr.Shape) != len(shape) {
			t.Errorf("shape %v: header reads back as %+v, %v", shape, hdr, err)
		}
	}
	// {'descr': '|u1', 'fortran_order': False, 'shape': (N,), } is 55 + digits(N) bytes, then 21 - digits
	// spaces of growth room: 76 bytes, +1 newline, +10 prefix = 87, padded to 128 for every N.
	if h := tensor.NpyHeaderBytes(&tensor.Tensor{Type: dtype.U8, Shape: []int64{5}}); len(h) != 128 {
		t.Errorf("1-d header is %d bytes, want 128", len(h))
	}
}

func TestNpyErrors(t *testing.T) {
	good, err := os.ReadFile("testdata/f32_2x3.npy")
	if err != nil {
		t.Fatal(err)
	}
	withHeader := func(dict string) []byte {
		h := []byte("\x93NUMPY\x01\x00")
		body := dict + "\n"
		h = append(h, byte(len(body)), byte(len(body)>>8))
		return append(h, body...)
	}
	for _, c := range []struct {
		name string
		data []byte
		want dtype.Type
		err  string
	}{
		{"empty", nil, 0, "empty file"},
		{"short", []byte("\x93NUM"), 0, "too short"},
		{"magic", []byte("PK\x03\x04xxxxxxxxxxxxx"), 0, "bad magic"},
		{"version", []byte("\x93NUMPY\x04\x00\x10\x00"), 0, "unsupported format version 4.0"},
		{"header length", []byte("\x93NUMPY\x01\x00\xff\x00{'descr'"), 0, "file ends in the header"},
		{"truncated data", good[:len(good)-3], 0, "data truncated: f32[2,3] needs 24 bytes, the file has 21"},
		{"no data", good[:128], 0, "data truncated"},
		{"not a dict", withHeader("['<f4']"), 0, "not a dict"},
		{"missing key", withHeader("{'descr': '<f4', 'shape': (2,)}"), 0, `no "fortran_order" key`},
		{"extra key", withHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}"), 0, `unexpected key "x"`},
		{"bad shape", withHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -1)}"), 0, "not a non-negative int"},
		{"shape not tuple", withHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2)}"), 0, "shape is an int, not a tuple"},
		{"shape overflow", withHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296)}"), 0, "too many elements"},
		{"huge shape", withHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,)}"), 0, "data truncated"},
		{"structured", withHeader("{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (2,)}"), 0, "structured dtypes"},
		{"object", withHeader("{'descr': '|O', 'fortran_order': False, 'shape': (2,)}"), 0, "object arrays"},
		{"unsupported", withHeader("{'descr': '<U8', 'fortran_order': False, 'shape': (2,)}"), 0, "not supported"},
		{"raw without type", withHeader("{'descr': '<V1', 'fortran_order': False, 'shape': (2,)}"), 0,
			"holds raw 1-byte values (<V1), as numpy writes ml_dtypes types: give its element type"},
		{"raw wrong size", withHeader("{'descr': '<V2', 'fortran_order': False, 'shape': (2,)}"), dtype.F8E4M3FN, "f8e4m3fn elements take 1 bytes"},
		{"wrong type", good, dtype.F64, "holds float32 (<f4), not f64"},
		{"unterminated", withHeader("{'descr': '<f4"), 0, "unterminated string"},
		{"garbage after", withHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x"), 0, "after the dict"},
		{"bad bool", withHeader("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}"), 0, "fortran_order is an int"},
		{"deep", withHeader(strings.Repeat("(", 100)), 0, "nested too deeply"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := tensor.ReadNpyAs(bytes.NewReader(c.data), c.want)
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("error %v, want one containing %q", err, c.err)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "npy: ") {
				t.Errorf("error %q does not start with npy:", err)
			}
		})
	}
}

// TestNpyNarrowAsIntegers reads narrow types stored as integers of their size ('|u1' as f8e4m3fn).
func TestNpyNarrowAsIntegers(t *testing.T) {
	data, _ := os.ReadFile("testdata/u8_3.npy")
	x, err := tensor.ReadNpyAs(bytes.NewReader(data), dtype.F8E4M3FN)
	if err != nil || x.Type != dtype.F8E4M3FN || !bytes.Equal(x.Data, []byte{0, 128, 255}) {
		t.Errorf("u8 as f8e4m3fn: %v %v", x, err)
	}
	data, _ = os.ReadFile("testdata/u16_2.npy")
	if x, err := tensor.ReadNpyAs(bytes.NewReader(data), dtype.BF16); err != nil || x.Type != dtype.BF16 {
		t.Errorf("u16 as bf16: %v %v", x, err)
	}
	data, _ = os.ReadFile("testdata/f16_4.npy")
	if _, err := tensor.ReadNpyAs(bytes.NewReader(data), dtype.BF16); err == nil {
		t.Error("f16 data read as bf16")
	}
}

// TestWriteNpyEveryType writes and reads back a tensor of every type.
func TestWriteNpyEveryType(t *testing.T) {
	for _, ty := range dtype.All() {
		x := tensor.New(ty, []int64{2, 3})
		for i := range x.Data {
			x.Data[i] = byte(i*37 + 1)
		}
		mask := byte(0xff)
		switch {
		case ty == dtype.PRED:
			mask = 1
		case ty.BitWidth() < 8:
			mask = 1<<ty.BitWidth() - 1
		}
		for i := range x.Data {
			x.Data[i] &= mask
		}
		var buf bytes.Buffer
		if err := tensor.WriteNpy(&buf, x); err != nil {
			t.Fatalf("%s: %v", ty, err)
		}
		back, err := tensor.ReadNpyAs(&buf, ty)
		if err != nil || !back.Equal(x) {
			t.Errorf("%s: read back %v % x, %v; want % x", ty, back, back.Data, err, x.Data)
		}
	}
}

func FuzzReadNpy(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.npy")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(0))
		f.Add(data, uint8(dtype.F8E4M3FN))
		f.Add(data[:len(data)/2], uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, want uint8) {
		ty := dtype.Type(want)
		if !ty.Valid() {
			ty = dtype.Invalid
		}
		// Within a budget of the input's size, the array is read straight into place; without one, into a
		// buffer that grows as data arrives. Both must agree.
		within, werr := tensor.ReadNpyWithin(bytes.NewReader(data), ty, int64(len(data)))
		x, err := tensor.ReadNpyAs(bytes.NewReader(data), ty)
		if (err == nil) != (werr == nil) || err == nil && !within.Equal(x) {
			t.Fatalf("ReadNpyAs: %v, %v; ReadNpyWithin: %v, %v", x, err, within, werr)
		}
		if err != nil {
			return
		}
		if int64(len(x.Data)) != x.NumElements()*int64(x.Type.ByteSize()) {
			t.Fatalf("%v has %d bytes", x, len(x.Data))
		}
		var buf bytes.Buffer
		if err := tensor.WriteNpy(&buf, x); err != nil {
			t.Fatal(err)
		}
		back, err := tensor.ReadNpyAs(&buf, x.Type)
		if err != nil || !back.Equal(x) {
			t.Fatalf("round trip of %v: %v", x, err)
		}
		_ = x.Float32s()
		_ = x.Int64s()
	})
}

// TestReadNpyFile: a .npy file must end with its array's data, as an .npz member must (two arrays saved to
// one file are refused, not read as the first); the same bytes without the extra one read back.
func TestReadNpyFile(t *testing.T) {
	x := tensor.FromBits(dtype.F32, []int64{3}, []uint64{0x3f800000, 0x40000000, 0x7fc00000})
	var buf bytes.Buffer
	if err := tensor.WriteNpy(&buf, x); err != nil {
		t.Fatal(err)
	}
	one := buf.Bytes()
	got, err := tensor.ReadNpyFile(bytes.NewReader(one), dtype.Invalid, 0)
	if err != nil || !got.Equal(x) {
		t.Fatalf("ReadNpyFile: %v, %v; want %v", got, err, x)
	}
	for _, extra := range [][]byte{{0}, one} {
		_, err := tensor.ReadNpyFile(bytes.NewReader(append(append([]byte{}, one...), extra...)), dtype.Invalid, 0)
		if err == nil || !strings.Contains(err.Error(), "bytes after the array data") {
			t.Errorf("%d bytes after the array: %v, want an error", len(extra), err)
		}
	}
}

package tensor_test

import (
	"archive/zip"
	"bytes"
	"os"
	"strings"
	"testing"

	"octet/dtype"
	"octet/tensor"
)

func readNpzFile(t *testing.T, name string, types map[string]dtype.Type) ([]string, map[string]*tensor.Tensor, error) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return tensor.ReadNpzAs(bytes.NewReader(data), int64(len(data)), types)
}

// TestNpzGolden reads archives written by Python's zipfile the way numpy.savez (stored, zip64 extras)
// and numpy.savez_compressed (deflated) write them.
func TestNpzGolden(t *testing.T) {
	want := map[string]*tensor.Tensor{}
	for _, g := range goldens {
		switch g.file {
		case "f32_2x3.npy":
			want["w"] = g.t
		case "i8_2x2.npy":
			want["b"] = g.t
		case "bool_5.npy":
			want["a"] = g.t
		}
	}
	for _, file := range []string{"testdata/stored.npz", "testdata/deflated.npz"} {
		names, arrays, err := readNpzFile(t, file, nil)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if strings.Join(names, ",") != "w,b,a" {
			t.Errorf("%s: names %v, want the archive's order w,b,a", file, names)
		}
		for name, w := range want {
			if got := arrays[name]; got == nil || !got.Equal(w) {
				t.Errorf("%s: %s = %v, want %v", file, name, got, w)
			}
		}
	}
	if _, _, err := readNpzFile(t, "testdata/narrow.npz", nil); err == nil || !strings.Contains(err.Error(), `member "x.npy": npy: the array holds raw 1-byte values`) {
		t.Errorf("narrow.npz without types: %v", err)
	}
	names, arrays, err := readNpzFile(t, "testdata/narrow.npz", map[string]dtype.Type{"x": dtype.F8E4M3FN})
	if err != nil || len(names) != 2 || arrays["x"].Type != dtype.F8E4M3FN || arrays["scale"].Type != dtype.F32 {
		t.Errorf("narrow.npz: %v %v %v", names, arrays, err)
	}
}

func TestNpzRoundTrip(t *testing.T) {
	ts := []*tensor.Tensor{
		tensor.FromFloat32([]int64{2}, []float32{1, 2}),
		tensor.FromBits(dtype.F8E5M2, []int64{3}, []uint64{0x3c, 0x7c, 0xfe}),
		tensor.FromBits(dtype.PRED, nil, []uint64{1}),
	}
	names := []string{"z", "a", "m"}
	var buf bytes.Buffer
	if err := tensor.WriteNpz(&buf, names, ts); err != nil {
		t.Fatal(err)
	}
	// Members are stored, named NAME.npy, in order.
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range zr.File {
		if f.Name != names[i]+".npy" || f.Method != zip.Store {
			t.Errorf("member %d: %q method %d", i, f.Name, f.Method)
		}
	}
	gotNames, arrays, err := tensor.ReadNpzAs(bytes.NewReader(buf.Bytes()), int64(buf.Len()), map[string]dtype.Type{"a": dtype.F8E5M2})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(gotNames, ",") != "z,a,m" {
		t.Errorf("names %v", gotNames)
	}
	for i, n := range names {
		if !arrays[n].Equal(ts[i]) {
			t.Errorf("%s: %v, want %v", n, arrays[n], ts[i])
		}
	}
	if err := tensor.WriteNpz(&buf, []string{"a", "a"}, ts[:2]); err == nil {
		t.Error("repeated names accepted")
	}
	if err := tensor.WriteNpz(&buf, []string{"a"}, ts); err == nil {
		t.Error("name count mismatch accepted")
	}
}

func TestNpzErrors(t *testing.T) {
	good, err := os.ReadFile("testdata/stored.npz")
	if err != nil {
		t.Fatal(err)
	}
	zipOf := func(members map[string][]byte) []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for name, data := range members {
			w, _ := zw.Create(name)
			w.Write(data)
		}
		zw.Close()
		return buf.Bytes()
	}
	npy, _ := os.ReadFile("testdata/f32_2x3.npy")
	for _, c := range []struct {
		name string
		data []byte
		err  string
	}{
		{"not zip", []byte("hello"), "npz: zip: not a valid zip file"},
		{"truncated", good[:len(good)-30], "npz: "},
		{"not npy member", zipOf(map[string][]byte{"readme.txt": []byte("x")}), `member "readme.txt" is not a .npy array`},
		{"bad member", zipOf(map[string][]byte{"x.npy": npy[:100]}), `member "x.npy": npy: file ends in the header`},
		{"trailing bytes", zipOf(map[string][]byte{"x.npy": append(append([]byte{}, npy...), 0)}), "bytes after the array data"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := tensor.ReadNpz(bytes.NewReader(c.data), int64(len(c.data)))
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("error %v, want one containing %q", err, c.err)
			}
		})
	}
}

func FuzzReadNpz(f *testing.F) {
	for _, name := range []string{"testdata/stored.npz", "testdata/deflated.npz", "testdata/narrow.npz"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	// Archives that lie: a member claiming far more than its bytes hold, and two members sharing bytes.
	f.Add(forgedNpz())
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "a.npy", Method: zip.Store})
	w.Write(npyClaiming("(4,)", make([]byte, 16)))
	zw.Close()
	f.Add(withAlias(f, buf.Bytes(), "b.npy"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Without a budget, what a member may set aside is bounded by its bytes alone.
		tensor.ReadNpz(bytes.NewReader(data), int64(len(data)))
		names, arrays, err := tensor.ReadNpzWithin(bytes.NewReader(data), int64(len(data)), map[string]dtype.Type{"x": dtype.F8E4M3FN}, 1<<20)
		if err != nil {
			return
		}
		ts := make([]*tensor.Tensor, len(names))
		for i, n := range names {
			ts[i] = arrays[n]
		}
		var buf bytes.Buffer
		if err := tensor.WriteNpz(&buf, names, ts); err != nil {
			t.Fatal(err)
		}
		types := map[string]dtype.Type{}
		for _, n := range names {
			types[n] = arrays[n].Type
		}
		names2, arrays2, err := tensor.ReadNpzAs(bytes.NewReader(buf.Bytes()), int64(buf.Len()), types)
		if err != nil || len(names2) != len(names) {
			t.Fatalf("round trip: %v", err)
		}
		for _, n := range names {
			if !arrays2[n].Equal(arrays[n]) {
				t.Fatalf("round trip of %s differs", n)
			}
		}
	})
}

package tensor_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"octet/dtype"
	"octet/tensor"
)

// npyClaiming is a .npy file whose header claims shape and whose data is the given bytes.
func npyClaiming(shape string, data []byte) []byte {
	header := fmt.Sprintf("{'descr': '<f4', 'fortran_order': False, 'shape': %s, }", shape)
	header += strings.Repeat(" ", 63-(10+len(header))%64) + "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(header)))
	b.WriteString(header)
	b.Write(data)
	return b.Bytes()
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestNpyHeaderOverBudget checks that a header claiming 2^31 elements is refused before anything near its
// size is allocated.
func TestNpyHeaderOverBudget(t *testing.T) {
	src := npyClaiming("(2147483648,)", make([]byte, 64))
	var err error
	n := allocated(func() { _, err = tensor.ReadNpyWithin(bytes.NewReader(src), dtype.Invalid, int64(len(src))) })
	if err == nil || !strings.Contains(err.Error(), "f32[2147483648] needs 8589934592 bytes of data, more than the") {
		t.Errorf("error %v", err)
	}
	if n > 1<<20 {
		t.Errorf("refusing the header allocated %d bytes", n)
	}
	// The same header within a budget large enough, over a short file: the data is missing.
	if _, err := tensor.ReadNpyWithin(bytes.NewReader(npyClaiming("(4,)", make([]byte, 8))), dtype.Invalid, 1<<20); err == nil || !strings.Contains(err.Error(), "data truncated") {
		t.Errorf("short data: %v", err)
	}
}

// TestNpzOverBudget checks the budget of a whole archive: a deflated member that claims 2^31 elements (over
// its real size and over the budget), and members that fit alone but not together.
func TestNpzOverBudget(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "x.npy", Method: zip.Deflate})
	w.Write(npyClaiming("(2147483648,)", make([]byte, 1<<20)))
	zw.Close()
	src := buf.Bytes()
	var err error
	n := allocated(func() { _, _, err = tensor.ReadNpzWithin(bytes.NewReader(src), int64(len(src)), nil, 0) })
	if err == nil || !strings.Contains(err.Error(), `member "x.npy": npy: f32[2147483648] needs 8589934592 bytes of data`) {
		t.Errorf("error %v", err)
	}
	if n > 16<<20 {
		t.Errorf("refusing the member allocated %d bytes", n)
	}

	buf.Reset()
	zw = zip.NewWriter(&buf)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, flate.BestSpeed) })
	for _, name := range []string{"a.npy", "b.npy"} {
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		w.Write(npyClaiming("(1024,)", make([]byte, 4096)))
	}
	zw.Close()
	if _, _, err := tensor.ReadNpzWithin(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil, 8192); err != nil {
		t.Errorf("two arrays of 4 KiB in 8 KiB: %v", err)
	}
	if _, _, err := tensor.ReadNpzWithin(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil, 8191); err == nil || !strings.Contains(err.Error(), `member "b.npy"`) {
		t.Errorf("two arrays of 4 KiB in 8191 bytes: %v", err)
	}
}

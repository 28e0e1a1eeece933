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

// TestNpzForgedSize checks a deflated member whose archive entry claims 2^40 bytes and whose header claims
// a 1 GiB array, over a few bytes of data, read with no budget: what the member's compressed bytes can
// expand to bounds the memory set aside, so the read fails without allocating the claim.
func TestNpzForgedSize(t *testing.T) {
	src := forgedNpz()
	var err error
	n := allocated(func() { _, _, err = tensor.ReadNpz(bytes.NewReader(src), int64(len(src))) })
	if err == nil || !strings.Contains(err.Error(), `member "x.npy": npy: f32[268435456] needs 1073741824 bytes of data, more than the`) {
		t.Errorf("error %v", err)
	}
	if n > 16<<20 {
		t.Errorf("reading the member allocated %d bytes", n)
	}
}

// forgedNpz is an archive of one deflated member whose entry claims 2^40 bytes and whose header claims a
// 1 GiB array, over 64 bytes of data.
func forgedNpz() []byte {
	var member bytes.Buffer
	fw, _ := flate.NewWriter(&member, flate.BestCompression)
	fw.Write(npyClaiming("(268435456,)", make([]byte, 64)))
	fw.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "x.npy", Method: zip.Deflate,
		CompressedSize64: uint64(member.Len()), UncompressedSize64: 1 << 40})
	if err != nil {
		panic(err)
	}
	w.Write(member.Bytes())
	zw.Close()
	return buf.Bytes()
}

// withAlias returns a copy of the zip archive src, which must hold one member, with a second central
// directory entry named alias for the same bytes.
func withAlias(t testing.TB, src []byte, alias string) []byte {
	eocd := bytes.LastIndex(src, []byte("PK\x05\x06"))
	if eocd < 0 {
		t.Fatal("no end of central directory")
	}
	cdSize := binary.LittleEndian.Uint32(src[eocd+12:])
	cdOff := binary.LittleEndian.Uint32(src[eocd+16:])
	entry := bytes.Clone(src[cdOff : cdOff+cdSize])
	nameLen := int(binary.LittleEndian.Uint16(entry[28:]))
	if nameLen != len(alias) {
		t.Fatalf("alias %q must have %d bytes", alias, nameLen)
	}
	copy(entry[46:], alias)
	var out bytes.Buffer
	out.Write(src[:cdOff+cdSize])
	out.Write(entry)
	end := bytes.Clone(src[eocd:])
	binary.LittleEndian.PutUint16(end[8:], 2)
	binary.LittleEndian.PutUint16(end[10:], 2)
	binary.LittleEndian.PutUint32(end[12:], 2*cdSize)
	out.Write(end)
	return out.Bytes()
}

// TestNpzOverlappingMembers checks that two members sharing bytes are refused, as numpy.load refuses them:
// an archive of overlapping members would otherwise expand quadratically.
func TestNpzOverlappingMembers(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "a.npy", Method: zip.Deflate})
	w.Write(npyClaiming("(1024,)", make([]byte, 4096)))
	zw.Close()
	if _, _, err := tensor.ReadNpz(bytes.NewReader(buf.Bytes()), int64(buf.Len())); err != nil {
		t.Fatalf("the archive of one member: %v", err)
	}
	src := withAlias(t, buf.Bytes(), "b.npy")
	_, _, err := tensor.ReadNpz(bytes.NewReader(src), int64(len(src)))
	if err == nil || err.Error() != `npz: members "a.npy" and "b.npy" overlap` {
		t.Errorf("error %v", err)
	}
}

// TestNpzLinear checks that reading an archive of 2n small members allocates about twice what n members
// do: the overlap check and the per-member budget cost no more than the members.
func TestNpzLinear(t *testing.T) {
	archive := func(n int) []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for i := range n {
			w, _ := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("a%d.npy", i), Method: zip.Store})
			w.Write(npyClaiming("(4,)", make([]byte, 16)))
		}
		zw.Close()
		return buf.Bytes()
	}
	var allocs [2]float64
	for i, n := range []int{2000, 4000} {
		src := archive(n)
		allocs[i] = testing.AllocsPerRun(2, func() {
			if _, _, err := tensor.ReadNpz(bytes.NewReader(src), int64(len(src))); err != nil {
				t.Fatal(err)
			}
		})
	}
	if r := allocs[1] / allocs[0]; r > 2.3 {
		t.Errorf("%.0f allocations for 2000 members, %.0f for 4000: %.2fx", allocs[0], allocs[1], r)
	}
}

// TestNpyHeaderMessages: an error quotes at most the start of a long part of a header (a shape of a
// 5000-digit number, a 5000-character string, name or descr), not all of it.
func TestNpyHeaderMessages(t *testing.T) {
	long := strings.Repeat("9", 5000)
	for _, shape := range []string{"(" + long + ",)", "('" + long + "',)", "(a" + long + ",)", "(" + long + "x,)"} {
		_, err := tensor.ReadNpy(bytes.NewReader(npyClaiming(shape, nil)))
		if err == nil || len(err.Error()) > 400 {
			t.Errorf("shape of %d bytes: error of %d bytes: %.100v", len(shape), len(err.Error()), err)
		}
	}
	header := "{'descr': '<f" + strings.Repeat("0", 5000) + "x', 'fortran_order': False, 'shape': (), }\n"
	src := append([]byte("\x93NUMPY\x01\x00"), byte(len(header)), byte(len(header)>>8))
	if _, err := tensor.ReadNpy(bytes.NewReader(append(src, header...))); err == nil || len(err.Error()) > 400 {
		t.Errorf("descr of 5000 bytes: %.100v", err)
	}
}

// TestNpyEmptyLargeDims: an array with a dimension of 0 has no elements, however large its other
// dimensions (whose product overflows int64 without it), and reads as numpy reads it.
func TestNpyEmptyLargeDims(t *testing.T) {
	for _, shape := range []string{"(4294967296, 4294967296, 0)", "(0, 9223372036854775807, 9223372036854775807)"} {
		x, err := tensor.ReadNpyWithin(bytes.NewReader(npyClaiming(shape, nil)), dtype.Invalid, 1<<20)
		if err != nil || x.NumElements() != 0 || len(x.Data) != 0 {
			t.Errorf("%s: %v, %v", shape, x, err)
		}
	}
}

package tensor

import (
	"archive/zip"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"octet/dtype"
)

// A .npz file is a zip archive with one .npy member per array, named NAME.npy (numpy.savez stores them
// uncompressed, numpy.savez_compressed deflates them).

// ReadNpz reads every array of a .npz archive (stored or deflated members). names lists them in the
// archive's order, without the ".npy" suffix; arrays maps each name to its tensor. Arrays of the narrow
// ml_dtypes types (raw void data) need their types: use ReadNpzAs. Members that share bytes are refused,
// as numpy.load refuses them, and no member is given memory beyond what its compressed bytes can expand
// to, whatever the archive and the member's header claim.
func ReadNpz(r io.ReaderAt, size int64) (names []string, arrays map[string]*Tensor, err error) {
	return ReadNpzAs(r, size, nil)
}

// ReadNpzAs is ReadNpz with the element types of some arrays given by name, as ReadNpyAs takes them: the
// types of the arrays that hold raw '<V1' or '<V2' data must be there.
func ReadNpzAs(r io.ReaderAt, size int64, types map[string]dtype.Type) (names []string, arrays map[string]*Tensor, err error) {
	return ReadNpzWithin(r, size, types, 0)
}

// ReadNpzWithin is ReadNpzAs for archives whose arrays hold at most maxBytes bytes of data in all (no limit
// when maxBytes is zero or less). Each member's header is checked against what is left of the budget before
// its data is decompressed or memory set aside for it, so a small archive that claims huge arrays costs
// nothing.
func ReadNpzWithin(r io.ReaderAt, size int64, types map[string]dtype.Type, maxBytes int64) (names []string, arrays map[string]*Tensor, err error) {
	return ReadNpzChecked(r, size, types, maxBytes, nil)
}

// ReadNpzChecked is ReadNpzWithin that first calls check, when not nil, with the arrays' names (the
// members without the ".npy" suffix, in the archive's order), read from the archive's directory before
// any array is: an error it returns is returned as it is, nothing decompressed.
func ReadNpzChecked(r io.ReaderAt, size int64, types map[string]dtype.Type, maxBytes int64, check func(names []string) error) (names []string, arrays map[string]*Tensor, err error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, nil, fmt.Errorf("npz: %v", err)
	}
	if err := checkNoOverlap(zr.File); err != nil {
		return nil, nil, err
	}
	seen := map[string]bool{}
	for _, f := range zr.File {
		name, ok := strings.CutSuffix(f.Name, ".npy")
		if !ok {
			return nil, nil, fmt.Errorf("npz: member %q is not a .npy array", f.Name)
		}
		if seen[name] {
			return nil, nil, fmt.Errorf("npz: two members named %q", f.Name)
		}
		seen[name] = true
		names = append(names, name)
	}
	if check != nil {
		if err := check(names); err != nil {
			return nil, nil, err
		}
	}
	arrays = map[string]*Tensor{}
	var used int64 // bytes of array data read so far
	for i, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			return nil, nil, fmt.Errorf("npz: member %q: %v", f.Name, err)
		}
		// The archive says how large the member is (the zip reader holds the member to it), and what it
		// holds cannot be larger than its compressed bytes expand to: its array's data cannot be larger,
		// whatever its header claims, and memory is set aside for no more.
		limit := int64(min(f.UncompressedSize64, expandsTo(f, size), math.MaxInt64))
		if maxBytes > 0 {
			limit = min(limit, maxBytes-used)
		}
		t, err := readNpy(rc, types[names[i]], limit)
		if t != nil {
			used += int64(len(t.Data))
		}
		if err == nil {
			// The member must end with the data (and its checksum, which the zip reader checks at EOF).
			var one [1]byte
			n, rerr := io.ReadFull(rc, one[:])
			switch {
			case n > 0:
				err = errors.New("npy: bytes after the array data")
			case rerr != io.EOF && rerr != io.ErrUnexpectedEOF:
				err = rerr
			}
		}
		rc.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("npz: member %q: %v", f.Name, err)
		}
		arrays[names[i]] = t
	}
	return names, arrays, nil
}

// maxDeflateRatio bounds how many bytes one compressed byte of a deflate stream expands to: a stream of
// maximal-length back-references gives 258 bytes for each 2 bits, a little over 1032 to 1.
const maxDeflateRatio = 1033

// expandsTo returns the most bytes member f can hold given the bytes it takes in an archive of size bytes:
// its compressed size (which cannot exceed the archive), times what deflate can expand to.
func expandsTo(f *zip.File, size int64) uint64 {
	c := min(f.CompressedSize64, uint64(max(size, 0)))
	switch f.Method {
	case zip.Store:
		return c
	case zip.Deflate:
		if c > math.MaxInt64/maxDeflateRatio {
			return math.MaxInt64
		}
		return c * maxDeflateRatio
	}
	return math.MaxInt64 // the zip reader refuses other methods
}

// checkNoOverlap refuses an archive in which two members share bytes, as Python's zipfile (and so
// numpy.load) does: a member can then hold nothing another does, and an archive of overlapping members
// cannot expand quadratically.
func checkNoOverlap(files []*zip.File) error {
	type span struct {
		start, end uint64
		name       string
	}
	spans := make([]span, 0, len(files))
	for _, f := range files {
		off, err := f.DataOffset()
		if err != nil {
			return fmt.Errorf("npz: member %q: %v", f.Name, err)
		}
		spans = append(spans, span{uint64(off), uint64(off) + f.CompressedSize64, f.Name})
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	for i := 1; i < len(spans); i++ {
		if spans[i].start < spans[i-1].end {
			return fmt.Errorf("npz: members %q and %q overlap", spans[i-1].name, spans[i].name)
		}
	}
	return nil
}

// WriteNpz writes the tensors as numpy.savez does: a zip archive of uncompressed NAME.npy members, in the
// given order. names must be distinct and as many as the
// tensors.
func WriteNpz(w io.Writer, names []string, ts []*Tensor) error {
	if len(names) != len(ts) {
		return fmt.Errorf("npz: %d names for %d arrays", len(names), len(ts))
	}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return fmt.Errorf("npz: array name %q is repeated", n)
		}
		seen[n] = true
	}
	zw := zip.NewWriter(w)
	for i, t := range ts {
		var buf bytes.Buffer
		if err := WriteNpy(&buf, t); err != nil {
			return fmt.Errorf("npz: array %q: %v", names[i], err)
		}
		data := buf.Bytes()
		hdr := &zip.FileHeader{
			Name:               names[i] + ".npy",
			Method:             zip.Store,
			CRC32:              crc32.ChecksumIEEE(data),
			CompressedSize64:   uint64(len(data)),
			UncompressedSize64: uint64(len(data)),
			Modified:           time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC),
		}
		mw, err := zw.CreateRaw(hdr)
		if err != nil {
			return fmt.Errorf("npz: %v", err)
		}
		if _, err := mw.Write(data); err != nil {
			return err
		}
	}
	return zw.Close()
}

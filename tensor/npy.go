package tensor

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"octet/dtype"
)

// The .npy format (numpy/lib/format.py): the magic "\x93NUMPY", a major and a minor version byte, the
// header length (2 bytes little-endian in version 1.0, 4 in 2.0 and 3.0), and the header: the repr of a
// Python dict {'descr': ..., 'fortran_order': ..., 'shape': ...}, padded with spaces and a final newline
// so that the data starts at a multiple of 64 bytes. Version 3.0 headers are UTF-8, the others Latin-1.

const (
	npyMagic       = "\x93NUMPY"
	npyAlign       = 64
	npyGrowthSpace = 21      // numpy leaves room to grow the first dimension to 21 digits in place
	npyMaxHeader   = 1 << 20 // numpy refuses headers over 10000 bytes unless told; we allow more
)

// npyDescr returns numpy's descr for a type: the array protocol type string. The narrow ml_dtypes types
// (bf16, FP8, FP6, FP4, the sub-byte integers) are numpy user types of kind 'V' and native byte order,
// which numpy writes as '<V1' or '<V2' (and reads back as raw void data).
func npyDescr(t dtype.Type) string {
	switch t {
	case dtype.PRED:
		return "|b1"
	case dtype.S8:
		return "|i1"
	case dtype.U8:
		return "|u1"
	case dtype.S16, dtype.S32, dtype.S64:
		return "<i" + strconv.Itoa(t.ByteSize())
	case dtype.U16, dtype.U32, dtype.U64:
		return "<u" + strconv.Itoa(t.ByteSize())
	case dtype.F16, dtype.F32, dtype.F64:
		return "<f" + strconv.Itoa(t.ByteSize())
	case dtype.C64, dtype.C128:
		return "<c" + strconv.Itoa(t.ByteSize())
	}
	return "<V" + strconv.Itoa(t.ByteSize())
}

// NpyHeader is the parsed header of a .npy file.
type NpyHeader struct {
	Major, Minor int
	Descr        string // the array protocol type string: "<f4", "|b1", "<V1"
	FortranOrder bool
	Shape        []int64
	HeaderLen    int // bytes from the start of the file to the data
}

// ReadNpy reads a .npy array of a standard numpy type: bool, int8 to int64, uint8 to uint64, float16,
// float32, float64, complex64 or complex128, in either byte order and in C or Fortran order (the tensor is
// always row-major and little-endian), in format version 1.0, 2.0 or 3.0. Arrays of the narrow ml_dtypes
// types are stored as raw bytes ('<V1', '<V2') that do not say their element type: read them with
// ReadNpyAs.
func ReadNpy(r io.Reader) (*Tensor, error) { return ReadNpyAs(r, dtype.Invalid) }

// ReadNpyAs is ReadNpy for an array whose element type the caller knows: want gives the type of raw void
// data ('<V1', '|V1', '<V2'; and '<f1', which old ml_dtypes wrote for float8_e5m2), and of unsigned or
// signed integer data of the same byte size holding a narrow type's bits ('|u1' read as f8e4m3fn). Bits
// above a sub-byte type's width are cleared. For a standard type, want must be that type or Invalid.
func ReadNpyAs(r io.Reader, want dtype.Type) (*Tensor, error) {
	return ReadNpyWithin(r, want, 0)
}

// ReadNpyFile is ReadNpyWithin for a reader that holds one .npy file: bytes after the array's data are an
// error, as in a member of an .npz archive (numpy's load would read the first of several arrays saved
// to one file and ignore the others).
func ReadNpyFile(r io.Reader, want dtype.Type, maxBytes int64) (*Tensor, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	t, err := ReadNpyWithin(br, want, maxBytes)
	if err != nil {
		return nil, err
	}
	switch _, err := br.ReadByte(); {
	case err == nil:
		return nil, errors.New("npy: bytes after the array data (a second array saved to the same file?)")
	case err != io.EOF:
		return nil, fmt.Errorf("npy: reading past the data: %v", err)
	}
	return t, nil
}

// ReadNpyWithin is ReadNpyAs for an array of at most maxBytes bytes of data (no limit when maxBytes is zero
// or less): a header that claims more is refused before any data is read or memory set aside for it.
func ReadNpyWithin(r io.Reader, want dtype.Type, maxBytes int64) (*Tensor, error) {
	if maxBytes <= 0 {
		maxBytes = -1
	}
	return readNpy(r, want, maxBytes)
}

// readNpy reads an array of at most limit bytes of data; a negative limit is none.
func readNpy(r io.Reader, want dtype.Type, limit int64) (*Tensor, error) {
	h, err := ReadNpyHeader(r)
	if err != nil {
		return nil, err
	}
	return readNpyData(r, h, want, limit)
}

// ReadNpyHeader reads and checks the magic, version and header of a .npy file, leaving r at the data.
func ReadNpyHeader(r io.Reader) (*NpyHeader, error) {
	var pre [10]byte
	if n, err := io.ReadFull(r, pre[:8]); err != nil {
		if n == 0 && err == io.EOF {
			return nil, errors.New("npy: empty file")
		}
		return nil, fmt.Errorf("npy: file too short for a header (%d bytes)", n)
	}
	if string(pre[:6]) != npyMagic {
		return nil, fmt.Errorf("npy: not a .npy file (bad magic %q)", pre[:6])
	}
	h := &NpyHeader{Major: int(pre[6]), Minor: int(pre[7])}
	var hlen int
	switch {
	case h.Major == 1 && h.Minor == 0:
		if _, err := io.ReadFull(r, pre[8:10]); err != nil {
			return nil, errors.New("npy: file ends in the header length")
		}
		hlen = int(binary.LittleEndian.Uint16(pre[8:10]))
		h.HeaderLen = 10 + hlen
	case (h.Major == 2 || h.Major == 3) && h.Minor == 0:
		var l [4]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return nil, errors.New("npy: file ends in the header length")
		}
		n := binary.LittleEndian.Uint32(l[:])
		if n > npyMaxHeader {
			return nil, fmt.Errorf("npy: header length %d is implausibly large", n)
		}
		hlen = int(n)
		h.HeaderLen = 12 + hlen
	default:
		return nil, fmt.Errorf("npy: unsupported format version %d.%d (want 1.0, 2.0 or 3.0)", h.Major, h.Minor)
	}
	buf := make([]byte, hlen)
	if n, err := io.ReadFull(r, buf); err != nil {
		return nil, fmt.Errorf("npy: file ends in the header (%d of %d bytes)", n, hlen)
	}
	var text string
	if h.Major == 3 {
		if !utf8.Valid(buf) {
			return nil, errors.New("npy: version 3.0 header is not valid UTF-8")
		}
		text = string(buf)
	} else {
		// Latin-1: every byte is the code point of the same value.
		rs := make([]rune, len(buf))
		for i, b := range buf {
			rs[i] = rune(b)
		}
		text = string(rs)
	}
	if err := parseNpyHeader(text, h); err != nil {
		return nil, fmt.Errorf("npy: header %q: %v", clip(strings.TrimRight(text, " \n"), 200), err)
	}
	return h, nil
}

// parseNpyHeader parses the Python dict literal of a header into h.
func parseNpyHeader(text string, h *NpyHeader) error {
	p := &pyParser{s: text}
	v, err := p.value()
	if err != nil {
		return err
	}
	p.space()
	if p.i != len(p.s) {
		return fmt.Errorf("unexpected %q after the dict", p.rest())
	}
	d, ok := v.(pyDict)
	if !ok {
		return errors.New("not a dict")
	}
	seen := map[string]bool{}
	for _, kv := range d {
		switch kv.key {
		case "descr", "fortran_order", "shape":
		default:
			return fmt.Errorf("unexpected key %q (want descr, fortran_order and shape)", clip(kv.key, 40))
		}
		if seen[kv.key] {
			return fmt.Errorf("key %q appears twice", clip(kv.key, 40))
		}
		seen[kv.key] = true
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return fmt.Errorf("no %q key", k)
		}
	}
	for _, kv := range d {
		switch kv.key {
		case "descr":
			s, ok := kv.val.(string)
			if !ok {
				if _, isList := kv.val.(pyList); isList {
					return errors.New("structured dtypes (a list descr) are not supported")
				}
				return fmt.Errorf("descr is %v, not a string", pyTypeName(kv.val))
			}
			h.Descr = s
		case "fortran_order":
			b, ok := kv.val.(bool)
			if !ok {
				return fmt.Errorf("fortran_order is %v, not a bool", pyTypeName(kv.val))
			}
			h.FortranOrder = b
		case "shape":
			tup, ok := kv.val.(pyTuple)
			if !ok {
				return fmt.Errorf("shape is %v, not a tuple", pyTypeName(kv.val))
			}
			h.Shape = make([]int64, len(tup))
			for i, e := range tup {
				d, ok := e.(int64)
				if !ok || d < 0 {
					return fmt.Errorf("shape has %v, not a non-negative int", pyRepr(e))
				}
				h.Shape[i] = d
			}
		}
	}
	return nil
}

// descrType maps an array protocol type string to a type. raw is set for void data (and the legacy '<f1'
// of ml_dtypes' float8_e5m2), whose element type the caller must give; size is the item size.
func descrType(descr string) (t dtype.Type, size int, bigEndian, raw bool, err error) {
	s := descr
	order := byte('=')
	if s != "" && strings.IndexByte("<>|=", s[0]) >= 0 {
		order = s[0]
		s = s[1:]
	}
	if s != "" && s[0] == 'O' {
		return 0, 0, false, false, errors.New("object arrays (pickled Python objects) are not supported")
	}
	if len(s) < 2 {
		return 0, 0, false, false, fmt.Errorf("descr %q is not an array protocol type string", clip(descr, 40))
	}
	kind := s[0]
	size, convErr := strconv.Atoi(s[1:])
	if convErr != nil || size <= 0 {
		return 0, 0, false, false, fmt.Errorf("descr %q is not an array protocol type string", clip(descr, 40))
	}
	bigEndian = order == '>' && size > 1
	switch kind {
	case 'b':
		if size == 1 {
			return dtype.PRED, 1, false, false, nil
		}
	case 'i':
		switch size {
		case 1:
			return dtype.S8, 1, false, false, nil
		case 2:
			return dtype.S16, 2, bigEndian, false, nil
		case 4:
			return dtype.S32, 4, bigEndian, false, nil
		case 8:
			return dtype.S64, 8, bigEndian, false, nil
		}
	case 'u':
		switch size {
		case 1:
			return dtype.U8, 1, false, false, nil
		case 2:
			return dtype.U16, 2, bigEndian, false, nil
		case 4:
			return dtype.U32, 4, bigEndian, false, nil
		case 8:
			return dtype.U64, 8, bigEndian, false, nil
		}
	case 'f':
		switch size {
		case 1:
			return dtype.Invalid, 1, false, true, nil
		case 2:
			return dtype.F16, 2, bigEndian, false, nil
		case 4:
			return dtype.F32, 4, bigEndian, false, nil
		case 8:
			return dtype.F64, 8, bigEndian, false, nil
		}
	case 'c':
		switch size {
		case 8:
			return dtype.C64, 8, bigEndian, false, nil
		case 16:
			return dtype.C128, 16, bigEndian, false, nil
		}
	case 'V':
		return dtype.Invalid, size, false, true, nil
	}
	return 0, 0, false, false, fmt.Errorf("descr %q: element type not supported", clip(descr, 40))
}

func readNpyData(r io.Reader, h *NpyHeader, want dtype.Type, limit int64) (*Tensor, error) {
	t, size, bigEndian, raw, err := descrType(h.Descr)
	if err != nil {
		return nil, fmt.Errorf("npy: %v", err)
	}
	switch {
	case raw:
		if want == dtype.Invalid {
			return nil, fmt.Errorf("npy: the array holds raw %d-byte values (%s), as numpy writes ml_dtypes types: give its element type (bf16, f8e4m3fn, ...)", size, clip(h.Descr, 40))
		}
		if want.ByteSize() != size || want.IsComplex() {
			return nil, fmt.Errorf("npy: the array holds raw %d-byte values (%s), but %s elements take %d bytes", size, clip(h.Descr, 40), want, want.ByteSize())
		}
		t = want
	case want != dtype.Invalid && want != t:
		if !(t.IsInteger() && want.ByteSize() == size && (want.IsNarrowFloat() || want == dtype.BF16 || want.BitWidth() < 8)) {
			return nil, fmt.Errorf("npy: the array holds %s (%s), not %s", t.NumpyName(), clip(h.Descr, 40), want)
		}
		t = want // the bits of a narrow type stored as integers
	}
	n, err := checkedElements(h.Shape, size)
	if err != nil {
		return nil, fmt.Errorf("npy: %v", err)
	}
	nbytes := n * int64(size)
	if limit >= 0 && nbytes > limit {
		return nil, fmt.Errorf("npy: %s%s needs %d bytes of data, more than the %d it may have (the file's size, or the memory budget left where that is less)", t, shapeString(h.Shape), nbytes, limit)
	}
	var out *Tensor
	if limit >= 0 && !h.FortranOrder {
		// The caller bounded the size: read straight into the tensor, with no copy.
		out = New(t, h.Shape)
		if got, err := io.ReadFull(r, out.Data); err != nil {
			if err != io.EOF && err != io.ErrUnexpectedEOF {
				return nil, fmt.Errorf("npy: reading the data: %v", err)
			}
			return nil, fmt.Errorf("npy: data truncated: %s%s needs %d bytes, the file has %d", t, shapeString(h.Shape), nbytes, got)
		}
		if bigEndian {
			swapBytes(out.Data, size, t.IsComplex())
		}
		if t == dtype.PRED {
			for i, b := range out.Data {
				if b != 0 {
					out.Data[i] = 1
				}
			}
		}
	} else {
		// Read what is there, growing the buffer as data arrives, so that a lying shape costs nothing.
		var buf bytes.Buffer
		buf.Grow(int(min(nbytes, 1<<24)))
		got, err := io.CopyN(&buf, r, nbytes)
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("npy: reading the data: %v", err)
		}
		if got < nbytes {
			return nil, fmt.Errorf("npy: data truncated: %s%s needs %d bytes, the file has %d", t, shapeString(h.Shape), nbytes, got)
		}
		data := buf.Bytes()
		if bigEndian {
			swapBytes(data, size, t.IsComplex())
		}
		minorToMajor := RowMajor(len(h.Shape))
		if h.FortranOrder {
			for i := range minorToMajor {
				minorToMajor[i] = int64(i)
			}
		}
		if out, err = FromLayout(t, h.Shape, minorToMajor, data); err != nil {
			return nil, fmt.Errorf("npy: %v", err)
		}
	}
	if w := t.BitWidth(); w < 8 {
		for i := range out.Data {
			out.Data[i] &= 1<<w - 1
		}
	}
	return out, nil
}

// swapBytes reverses the byte order of each element (of each half of a complex element).
func swapBytes(data []byte, size int, complex bool) {
	if complex {
		size /= 2
	}
	for i := 0; i+size <= len(data); i += size {
		e := data[i : i+size]
		for a, b := 0, size-1; a < b; a, b = a+1, b-1 {
			e[a], e[b] = e[b], e[a]
		}
	}
}

// NpyHeaderBytes returns the magic, version, length and header that numpy.save writes for t: version 1.0
// (2.0 when the header does not fit 65535 bytes), the dict with sorted keys, room for the first dimension
// to grow to 21 digits, and padding to a multiple of 64 bytes.
func NpyHeaderBytes(t *Tensor) []byte {
	var d strings.Builder
	d.WriteString("{'descr': '")
	d.WriteString(npyDescr(t.Type))
	d.WriteString("', 'fortran_order': False, 'shape': (")
	for i, s := range t.Shape {
		if i > 0 {
			d.WriteString(", ")
		}
		d.WriteString(strconv.FormatInt(s, 10))
	}
	if len(t.Shape) == 1 {
		d.WriteByte(',')
	}
	d.WriteString("), }")
	if len(t.Shape) > 0 {
		d.WriteString(strings.Repeat(" ", npyGrowthSpace-len(strconv.FormatInt(t.Shape[0], 10))))
	}
	header := d.String()
	for _, major := range []byte{1, 2} {
		lenSize := 2
		if major == 2 {
			lenSize = 4
		}
		hlen := len(header) + 1 // the final newline
		pad := npyAlign - (len(npyMagic)+2+lenSize+hlen)%npyAlign
		total := hlen + pad
		if major == 1 && total > 0xffff {
			continue
		}
		out := make([]byte, 0, len(npyMagic)+2+lenSize+total)
		out = append(out, npyMagic...)
		out = append(out, major, 0)
		if major == 1 {
			out = binary.LittleEndian.AppendUint16(out, uint16(total))
		} else {
			out = binary.LittleEndian.AppendUint32(out, uint32(total))
		}
		out = append(out, header...)
		out = append(out, strings.Repeat(" ", pad)...)
		return append(out, '\n')
	}
	panic("unreachable")
}

// WriteNpy writes t as numpy.save would: a version 1.0 header (see NpyHeaderBytes) and the data in C order,
// little-endian. The narrow ml_dtypes types are written as numpy writes them, raw void data ('<V1', '<V2')
// that ReadNpyAs (or numpy's load followed by a view as the ml_dtypes type) reads back.
func WriteNpy(w io.Writer, t *Tensor) error {
	if !t.Type.Valid() {
		return errors.New("npy: invalid element type")
	}
	if n := t.NumElements() * int64(t.Type.ByteSize()); n != int64(len(t.Data)) {
		return fmt.Errorf("npy: %s has %d bytes of data, want %d", t, len(t.Data), n)
	}
	if _, err := w.Write(NpyHeaderBytes(t)); err != nil {
		return err
	}
	_, err := w.Write(t.Data)
	return err
}

// clip returns s, or its first n bytes and "..." where it is longer (a message quotes a header, not all of
// a hostile one).
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

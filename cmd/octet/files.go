package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"go/token"
	"io"
	"io/fs"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"octet/hlo"
	"octet/interp"
)

var (
	memOnce   sync.Once
	memBudget int64
)

// defaultMemoryBudget is the budget of a command that does not name one: half of the machine's physical
// memory (MemTotal in /proc/meminfo), or 8 GiB where that cannot be read. It bounds the bytes of every input
// (after gzip decompression) and, for run, the buffers of the program.
func defaultMemoryBudget() int64 {
	memOnce.Do(func() {
		memBudget = 8 << 30
		f, err := os.Open("/proc/meminfo")
		if err != nil {
			return
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) >= 2 && fields[0] == "MemTotal:" {
				if kb, err := strconv.ParseInt(fields[1], 10, 64); err == nil && kb > 0 && kb < 1<<52 {
					memBudget = kb * 1024 / 2
				}
				return
			}
		}
	})
	return memBudget
}

// inputLimit, when positive, replaces the defaults of maxInputBytes and maxTextBytes (for tests).
var inputLimit int64

// maxInputBytes is the most bytes one binary input file (an array for run) may hold.
func (inv *invocation) maxInputBytes() int64 {
	if inv.maxInput > 0 {
		return inv.maxInput
	}
	if inputLimit > 0 {
		return inputLimit
	}
	return defaultMemoryBudget()
}

// defaultMaxText is the most bytes of text one input may hold when --max-input does not say: 1 GiB, or a
// quarter of the memory budget where that is less. Reading a module takes several times its text.
func defaultMaxText() int64 {
	return min(1<<30, defaultMemoryBudget()/4)
}

// maxTextBytes is the most bytes of text one input may hold, after gzip decompression.
func (inv *invocation) maxTextBytes() int64 {
	switch {
	case inv.maxText > 0:
		return inv.maxText
	case inputLimit > 0:
		return inputLimit
	}
	return defaultMaxText()
}

// maxInputFlag adds --max-input, the limit of maxTextBytes, to the flags of a command that reads modules.
func (inv *invocation) maxInputFlag(fs *flag.FlagSet) {
	fs.Func("max-input", "the most bytes of text one input may hold, after decompression (a `SIZE` like 4GiB; 0 for no limit; the default is 1GiB, or a quarter of the memory budget where that is less)", func(s string) error {
		n, err := interp.ParseBytes(s)
		if err != nil {
			return fmt.Errorf("%q %s", s, sizeProblem(err))
		}
		if n == 0 {
			n = math.MaxInt64 - 1
		}
		inv.maxText = n
		return nil
	})
}

// maxMemoryFlag adds --max-memory, the budget of a program's buffers, to the flags of a command that runs
// programs; memoryBudget reads its value.
func maxMemoryFlag(fs *flag.FlagSet) *string {
	return fs.String("max-memory", "", "refuse programs needing more than `SIZE` of buffers (default half of physical memory; 0: no limit)")
}

// memoryBudget returns the budget --max-memory gives (0: no limit), or the default where it is empty.
func memoryBudget(s string) (int64, error) {
	if s == "" {
		return defaultMemoryBudget(), nil
	}
	n, err := interp.ParseBytes(s)
	if err != nil {
		return 0, usagef("--max-memory: %q %s", s, sizeProblem(err))
	}
	return n, nil
}

// sizeProblem says what is wrong with a SIZE that interp.ParseBytes refused with err.
func sizeProblem(err error) string {
	if errors.Is(err, strconv.ErrRange) {
		return "is too large: sizes go up to 4EiB (2^62 bytes)"
	}
	return "is not a size (a number and a unit: B, KiB, MiB, GiB, TiB, or KB, MB, GB, TB, or K, M, G, T for the binary ones; like 512MiB or 8G)"
}

// errOverLimit is readAll's error for a reader that holds more than its limit.
var errOverLimit = errors.New("over the limit")

// readInput reads the whole of a command's text input: "-" is standard input, and a gzip stream is
// decompressed. The returned name is the one errors should carry. Regular files and pipes are read (a named
// pipe that no program writes to is refused, not waited on); a folder, a device or a socket is refused by
// name. Text over the limit (maxTextBytes), before or after decompression, is refused as soon as it is
// known: the memory held while reading is at most about twice the text read, and once the text is read, the
// text itself (for a regular file, and for a gzip file whose trailer states its size, the text alone).
func (inv *invocation) readInput(name string) (data []byte, display string, err error) {
	src, err := inv.openSource(name)
	if err != nil {
		return nil, src.display, err
	}
	defer src.close()
	data, err = readText(src, inv.maxTextBytes())
	if err != nil {
		if src.ctxErr() != nil {
			return nil, src.display, src.ctxErr()
		}
		return nil, src.display, err
	}
	expectHeap(len(data))
	// A byte order mark some editors write is not part of the text: positions count from after it, as
	// the editor shows them.
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	return data, src.display, nil
}

// readText reads the text of src, decompressing a gzip stream, and refuses more than limit bytes.
func readText(src *source, limit int64) ([]byte, error) {
	overLimit := func(what string) error {
		return fmt.Errorf("%s: %smore than %s, the input limit (--max-input raises it)", src.display, what, interp.FormatBytes(limit))
	}
	r, hint, gzipped := src.r, src.size, false
	if src.size >= 0 {
		var magic [2]byte
		if n, _ := src.at.ReadAt(magic[:], 0); n == 2 && magic == [2]byte{0x1f, 0x8b} {
			// A gzip stream ends with the size of its last member's data (modulo 2^32): the size of
			// the whole, as gzip writes a file. It is only a hint (the end of a file cut short is not
			// a size), taken where deflate could expand the file to it, at most 1032 to 1.
			var trailer [4]byte
			hint, gzipped = -1, true
			if src.size >= 18 {
				if _, err := src.at.ReadAt(trailer[:], src.size-4); err == nil {
					hint = int64(binary.LittleEndian.Uint32(trailer[:]))
				}
			}
			if hint > limit || hint > 1032*src.size {
				hint = -1
			}
			r = bufio.NewReaderSize(r, 1<<16)
		} else if src.size > limit {
			return nil, overLimit(interp.FormatBytes(src.size) + ", ")
		}
		// The size is a hint: a file that grows while it is read is still bounded by the limit.
	} else {
		br := bufio.NewReaderSize(r, 1<<16)
		magic, _ := br.Peek(2)
		r, gzipped = br, len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b
	}
	if gzipped {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("%s: bad gzip data: %v", src.display, err)
		}
		r = zr
	}
	data, err := readAll(r, hint, limit)
	switch {
	case err == errOverLimit:
		return nil, overLimit("")
	case err != nil && gzipped:
		return nil, fmt.Errorf("%s: bad gzip data: %v", src.display, err)
	case err != nil:
		return nil, fmt.Errorf("%s: %v", src.display, trimPathError(err))
	}
	return data, nil
}

// readChunk bounds the pieces in which readAll reads a stream of unknown size.
const readChunk = 64 << 20

// readAll reads r to its end, or returns errOverLimit once it has read more than limit bytes. hint, when not
// negative, is the size r is expected to have: it is read into one buffer of that size. A reader without a
// hint, or one that holds more than its hint, is read in pieces that grow with the data read, up to
// readChunk, which are joined at the end: until then the memory held is the data read and one piece, never
// more than limit plus a piece.
func readAll(r io.Reader, hint, limit int64) ([]byte, error) {
	var pieces [][]byte
	var total int64
	size := int64(1 << 16)
	if hint >= 0 {
		size = min(hint, limit) + 1 // one more byte tells a reader that holds more than its hint
	}
	var br *bufio.Reader
	for {
		buf := make([]byte, min(size, limit+1-total))
		n, err := fill(r, buf)
		total += int64(n)
		if n > 0 {
			pieces = append(pieces, buf[:n])
		}
		if total > limit {
			return nil, errOverLimit
		}
		if err == nil && br == nil {
			// More than the hint: the rest is read through a buffer, so that the end is seen before
			// a piece is made for it.
			br = bufio.NewReaderSize(r, 1<<16)
			r = br
		}
		if err == nil {
			_, err = br.Peek(1)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		size = min(max(total, 1<<16), readChunk)
	}
	switch len(pieces) {
	case 0:
		return []byte{}, nil
	case 1:
		return pieces[0], nil
	}
	data := make([]byte, 0, total)
	for i, p := range pieces {
		data = append(data, p...)
		pieces[i] = nil
	}
	if total > readChunk {
		// The pieces are collected now, while little else is live, so that what reads the text next (a
		// parser's copy) can have their memory.
		runtime.GC()
	}
	return data, nil
}

// fill reads from r until buf is full (and returns a nil error) or r fails: io.EOF at its end, and any
// other error, io.ErrUnexpectedEOF of a stream cut short included, as r gives it.
func fill(r io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// readBinary reads the whole of a binary input, refusing more than limit bytes.
func readBinary(src *source, limit int64) ([]byte, error) {
	data, err := readAll(src.r, src.size, limit)
	switch {
	case err == errOverLimit:
		return nil, fmt.Errorf("%s: more than the input limit of %s", src.display, interp.FormatBytes(limit))
	case err != nil && src.ctxErr() != nil:
		return nil, src.ctxErr()
	case err != nil:
		return nil, fmt.Errorf("%s: %v", src.display, trimPathError(err))
	}
	return data, nil
}

// An input is a binary input file open for reading, at random or in sequence.
type input interface {
	io.Reader
	io.ReaderAt
	io.Closer
}

// openInput opens a binary input file under the rules of readInput, without decompression, and returns its
// size. A regular file is read where it lies; standard input and a pipe are read whole first.
func (inv *invocation) openInput(name string) (r input, size int64, display string, err error) {
	src, err := inv.openSource(name)
	if err != nil {
		return nil, 0, src.display, err
	}
	limit := inv.maxInputBytes()
	if src.size > limit {
		src.close()
		return nil, 0, src.display, fmt.Errorf("%s: %s, more than the input limit of %s", src.display, interp.FormatBytes(src.size), interp.FormatBytes(limit))
	}
	if f, ok := src.at.(*os.File); ok {
		return f, src.size, src.display, nil
	}
	defer src.close()
	data, err := readBinary(src, limit)
	if err != nil {
		return nil, 0, src.display, err
	}
	return nopCloser{bytes.NewReader(data)}, int64(len(data)), src.display, nil
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

// writerWait is how long a pipe that no program writes to is waited on, writerPoll how often it is looked
// at meanwhile.
var (
	writerWait = time.Second
	writerPoll = 10 * time.Millisecond
)

// displayName is the name by which errors and output speak of an input: "<stdin>" for "-".
func displayName(name string) string {
	if name == "-" {
		return "<stdin>"
	}
	return name
}

// A source is an input opened for reading.
type source struct {
	display string
	r       io.Reader
	// size is the size of a regular file, read through at; -1 for a pipe or standard input.
	size int64
	at   io.ReaderAt
	// close closes the file, and stops watching the context.
	close func() error
	// ctxErr is the context's error once a read was stopped by it.
	ctxErr func() error
}

// openSource opens a command's input: "-" is standard input; a regular file or a pipe is opened; anything
// else (a folder, a device, a socket) is refused with an error that names it, before it is opened. A named
// pipe is opened without waiting for a writer, and refused when none opens it within writerWait: reading it
// would wait for one. Reading a pipe stops when the invocation's context is cancelled.
func (inv *invocation) openSource(name string) (*source, error) {
	noCtx := func() error { return nil }
	if name == "-" {
		src := &source{display: displayName(name), r: inv.stdin, size: -1, close: noCtx, ctxErr: noCtx}
		// Standard input redirected from a file is read as the file, from where it stands.
		if f, ok := inv.stdin.(*os.File); ok {
			if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
				if off, err := f.Seek(0, io.SeekCurrent); err == nil && off <= fi.Size() {
					sr := io.NewSectionReader(f, off, fi.Size()-off)
					src.r, src.at, src.size = sr, sr, fi.Size()-off
				}
			}
		}
		return src, nil
	}
	src := &source{display: name, size: -1, close: noCtx, ctxErr: noCtx}
	fi, err := os.Stat(name)
	if err != nil {
		return src, fmt.Errorf("%s: %v", name, trimPathError(err))
	}
	if err := notReadable(name, fi); err != nil {
		return src, err
	}
	// O_NONBLOCK: opening a named pipe for reading would otherwise wait for a writer.
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return src, fmt.Errorf("%s: %v", name, trimPathError(err))
	}
	// The name may have been replaced between the two looks.
	fi2, err := f.Stat()
	if err == nil && !os.SameFile(fi, fi2) {
		err = notReadable(name, fi2)
	}
	if err != nil {
		f.Close()
		return src, err
	}
	src.close = f.Close
	if fi2.Mode().IsRegular() {
		src.r, src.at, src.size = f, f, fi2.Size()
		return src, nil
	}
	// A pipe: its first read tells whether a program writes to it. Go's poller waits for data without
	// blocking the thread, and a deadline set when the context is cancelled ends the wait. A named pipe
	// without a writer reads as empty at once: a writer started just before octet may not have opened
	// it yet, so it is given writerWait to do so.
	stop := context.AfterFunc(inv.ctx, func() { f.SetReadDeadline(time.Now()) })
	src.close = func() error { stop(); return f.Close() }
	src.ctxErr = inv.ctx.Err
	var first [1]byte
	for waited := time.Duration(0); ; waited += writerPoll {
		n, err := f.Read(first[:])
		if n > 0 {
			break
		}
		if err == io.EOF && waited < writerWait {
			select {
			case <-inv.ctx.Done():
			case <-time.After(writerPoll):
			}
			continue
		}
		src.close()
		switch {
		case inv.ctx.Err() != nil:
			return src, inv.ctx.Err()
		case err == io.EOF:
			return src, fmt.Errorf("%s: is a pipe with nothing to read and no program writing to it", name)
		}
		return src, fmt.Errorf("%s: %v", name, trimPathError(err))
	}
	src.r = io.MultiReader(bytes.NewReader(first[:]), f)
	return src, nil
}

// notReadable returns an error naming what fi describes when it is neither a regular file nor a pipe.
func notReadable(name string, fi fs.FileInfo) error {
	if fi.Mode().IsRegular() || fi.Mode()&fs.ModeNamedPipe != 0 {
		return nil
	}
	return fmt.Errorf("%s: is %s, not a regular file or a pipe", name, fileKind(fi.Mode()))
}

// fileKind names the kind of file a mode describes, with its article: "a named pipe".
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
}

func trimPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// parseModules reads and parses every module of a file ("-" is standard input).
func (inv *invocation) parseModules(name string) ([]*hlo.Module, error) {
	src, display, err := inv.readInput(name)
	if err != nil {
		return nil, err
	}
	mods, err := inv.parseSource(display, src)
	reportIgnored(inv.stderr, mods)
	return mods, err
}

// parseSource parses every module of src, read from the file display names. A file that holds no module is
// an error. A module XLA printed (entry_computation_layout in its header) without an ENTRY computation
// gets a warning on stderr: as XLA does, its last computation is its entry, but XLA marks the entry of
// every module it prints, so the file may have lost its end.
func (inv *invocation) parseSource(display string, src []byte) ([]*hlo.Module, error) {
	mods, err := parseText(token.NewFileSet(), display, src)
	if err != nil {
		return nil, parseError(err)
	}
	if len(mods) == 0 {
		return nil, fmt.Errorf("%s: no HLO module in %s (the text is empty or only comments)", display, display)
	}
	for _, m := range mods {
		if w := implicitEntry(display, m, src); w != "" && !inv.warned[w] {
			if inv.warned == nil {
				inv.warned = map[string]bool{}
			}
			inv.warned[w] = true
			fmt.Fprintln(inv.stderr, w)
		}
	}
	return mods, nil
}

// loadModules is parseModules followed by hlo.Verify on every module: what a command that analyses modules
// reads. The problems of a module that does not verify are reported as "file:line:col: message" lines.
func (inv *invocation) loadModules(name string) ([]*hlo.Module, error) {
	src, display, err := inv.readInput(name)
	if err != nil {
		return nil, err
	}
	mods, err := inv.loadSource(display, src)
	reportIgnored(inv.stderr, mods)
	return mods, err
}

// loadSource is parseSource followed by hlo.Verify on every module. The StableHLO reader verifies what it
// converts itself (that is how it checks the types the text states), so its modules are not verified twice.
func (inv *invocation) loadSource(display string, src []byte) ([]*hlo.Module, error) {
	mods, err := inv.parseSource(display, src)
	if err != nil || isStableHLO(src) {
		return mods, err
	}
	for _, m := range mods {
		if err := hlo.Verify(m); err != nil {
			return nil, parseError(err)
		}
	}
	return mods, nil
}

// implicitEntry returns a warning for a module that XLA printed but whose text marks no computation ENTRY,
// or "". XLA's parser takes the last computation as the entry when none is marked, as hand-written modules
// rely on, and so does Octet's; but XLA marks the entry of every module it prints, and prints
// entry_computation_layout in its header, so such a module may have lost its end to a cut. hlo.Verify then
// checks the layout against the computation taken as the entry, which a cut file seldom fits.
func implicitEntry(display string, m *hlo.Module, src []byte) string {
	if m.Entry == nil || m.EntryComputationLayout() == nil {
		return ""
	}
	pos := m.Position(m.Entry.Pos)
	if !pos.IsValid() || pos.Offset < 0 || pos.Offset >= len(src) {
		return ""
	}
	text := src[pos.Offset:]
	if bytes.HasPrefix(text, []byte("ENTRY")) {
		return ""
	}
	if !bytes.HasPrefix(bytes.TrimPrefix(text, []byte("%")), []byte(m.Entry.Name)) {
		// Not HLO text (an HloModuleProto names its entry by other means).
		return ""
	}
	return fmt.Sprintf("%s: warning: module %s has entry_computation_layout in its header but no ENTRY computation: its last computation, %%%s, is taken as the entry, as XLA takes it (if the text was cut short, this is not the program's entry)",
		pos, m.Name, m.Entry.Name)
}

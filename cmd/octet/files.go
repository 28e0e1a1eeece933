package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

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

// inputLimit, when positive, replaces defaultMemoryBudget as the most bytes one input may hold.
var inputLimit int64

// maxInputBytes is the most bytes one input file may hold, after gzip decompression.
func (inv *invocation) maxInputBytes() int64 {
	if inv.maxInput > 0 {
		return inv.maxInput
	}
	if inputLimit > 0 {
		return inputLimit
	}
	return defaultMemoryBudget()
}

// readInput reads the whole of a command's input: "-" is standard input, and a name ending in ".gz" (or any
// gzip stream) is decompressed. The returned name is the one errors should carry. Only regular files are
// read: a folder, a named pipe or a device is refused by name instead of waited on, and an input over the
// memory budget, before or after decompression, is refused before it is held in memory.
func (inv *invocation) readInput(name string) (data []byte, display string, err error) {
	data, display, err = inv.readInputRaw(name)
	if err != nil {
		return nil, display, err
	}
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		data, err = inflate(data, inv.maxInputBytes())
		if err != nil {
			return nil, display, fmt.Errorf("%s: %v", display, err)
		}
	}
	return data, display, nil
}

// inflate decompresses gzip data, refusing output of more than limit bytes.
func inflate(data []byte, limit int64) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("bad gzip data: %v", err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, limit+1))
	if err != nil {
		return nil, fmt.Errorf("bad gzip data: %v", err)
	}
	if int64(len(out)) > limit {
		return nil, fmt.Errorf("the gzip data decompresses to more than %s, the input limit", interp.FormatBytes(limit))
	}
	return out, nil
}

// readInputRaw reads a command's input as it is, without decompression ("-" is standard input), under the
// same rules as readInput.
func (inv *invocation) readInputRaw(name string) (data []byte, display string, err error) {
	limit := inv.maxInputBytes()
	if name == "-" {
		data, err = io.ReadAll(io.LimitReader(inv.stdin, limit+1))
		if err != nil {
			return nil, "<stdin>", fmt.Errorf("<stdin>: %v", err)
		}
		if int64(len(data)) > limit {
			return nil, "<stdin>", fmt.Errorf("<stdin>: more than %s, the input limit", interp.FormatBytes(limit))
		}
		return data, "<stdin>", nil
	}
	f, size, err := openRegular(name)
	if err != nil {
		return nil, name, err
	}
	defer f.Close()
	if size > limit {
		return nil, name, fmt.Errorf("%s: %s, more than the input limit of %s", name, interp.FormatBytes(size), interp.FormatBytes(limit))
	}
	// The size is a hint: a file that grows while it is read is still bounded by the limit.
	var buf bytes.Buffer
	buf.Grow(int(size) + 1)
	n, err := buf.ReadFrom(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, name, fmt.Errorf("%s: %v", name, trimPathError(err))
	}
	if n > limit {
		return nil, name, fmt.Errorf("%s: more than the input limit of %s", name, interp.FormatBytes(limit))
	}
	return buf.Bytes(), name, nil
}

// An input is a binary input file open for reading, at random or in sequence.
type input interface {
	io.Reader
	io.ReaderAt
	io.Closer
}

// openInput opens a binary input file ("-" is standard input, read whole first) under the rules of
// readInput, without decompression, and returns its size.
func (inv *invocation) openInput(name string) (r input, size int64, display string, err error) {
	if name == "-" {
		data, display, err := inv.readInputRaw(name)
		if err != nil {
			return nil, 0, display, err
		}
		return nopCloser{bytes.NewReader(data)}, int64(len(data)), display, nil
	}
	f, size, err := openRegular(name)
	if err != nil {
		return nil, 0, name, err
	}
	if limit := inv.maxInputBytes(); size > limit {
		f.Close()
		return nil, 0, name, fmt.Errorf("%s: %s, more than the input limit of %s", name, interp.FormatBytes(size), interp.FormatBytes(limit))
	}
	return f, size, name, nil
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

// openRegular opens a regular file for reading and returns its size. Anything else (a folder, a named pipe,
// a device, a socket) is refused with an error that names it, before it is opened: opening a named pipe
// would wait for a writer.
func openRegular(name string) (*os.File, int64, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %v", name, trimPathError(err))
	}
	if err := notRegular(name, fi); err != nil {
		return nil, 0, err
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %v", name, trimPathError(err))
	}
	// The name may have been replaced between the two looks.
	fi2, err := f.Stat()
	if err == nil && !os.SameFile(fi, fi2) {
		err = notRegular(name, fi2)
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi2.Size(), nil
}

// notRegular returns an error naming what fi describes when it is not a regular file.
func notRegular(name string, fi fs.FileInfo) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	return fmt.Errorf("%s: is %s, not a regular file", name, fileKind(fi.Mode()))
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

// writeFileAtomic writes what write writes to name so that name never holds a partial file: through a temporary file in
// the same folder, synced to disk, then renamed over name. An existing file keeps its permissions; a symbolic
// link is written through (its target is replaced, the link stays); a name that exists and is not a regular
// file (a folder, a named pipe, a device) is refused. The temporary file is removed on any failure, and when
// ctx is cancelled (by SIGINT or SIGTERM) before the rename.
func writeFileAtomic(ctx context.Context, name string, write func(io.Writer) error) error {
	target, err := resolveLinks(name)
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	perm := fs.FileMode(0o644)
	switch fi, err := os.Stat(target); {
	case err == nil:
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s: is %s, not a regular file: not replacing it", name, fileKind(fi.Mode()))
		}
		perm = fi.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %v", name, trimPathError(err))
	}
	dir := filepath.Dir(target)
	f, err := os.CreateTemp(dir, "."+filepath.Base(target)+".tmp*")
	if err != nil {
		return fmt.Errorf("%s: %v", name, trimPathError(err))
	}
	tmp := f.Name()
	bw := bufio.NewWriterSize(f, 1<<16)
	werr := write(bw)
	if werr == nil {
		werr = bw.Flush()
	}
	if werr == nil {
		werr = f.Chmod(perm)
	}
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = ctx.Err()
	}
	if werr == nil {
		werr = os.Rename(tmp, target)
	}
	if werr != nil {
		os.Remove(tmp)
		return fmt.Errorf("%s: %v", name, trimPathError(werr))
	}
	// Make the rename itself durable; a folder that cannot be synced is not an error.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// resolveLinks follows the symbolic links of name (a dangling one included) to the file they name.
func resolveLinks(name string) (string, error) {
	const maxLinks = 40
	for range maxLinks {
		fi, err := os.Lstat(name)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return name, nil
		}
		dest, err := os.Readlink(name)
		if err != nil {
			return "", trimPathError(err)
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(name), dest)
		}
		name = dest
	}
	return "", errors.New("too many levels of symbolic links")
}

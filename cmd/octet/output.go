package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// writeFileAtomic writes what write writes to name so that name never holds a partial file: through a
// temporary file created in the folder of the file it replaces, synced to disk, then renamed over it.
//
// The folder is opened once and the file is created and renamed relative to it, so nothing can redirect
// the write between the looks and the rename. A symbolic link is written through (its target is replaced,
// the link stays), its text resolved by the kernel from the folder that holds it, as any program that opens
// the link would; but, as the kernel's fs.protected_symlinks and fs.protected_regular protect programs that
// open files, a link or a file owned by another user in a sticky folder that anyone may write to (/tmp) is
// refused, unless the folder's owner owns it. A name that exists and is not a regular file (a folder, a
// named pipe, a device) is refused.
//
// A new file gets the permissions 0666 less the umask, as the kernel gives any file a program creates; a
// file replaced keeps its permissions. The temporary file is removed on any failure, when ctx is cancelled
// (by SIGINT or SIGTERM) before the rename, and by removeTempFiles, which the program calls before it exits
// on a signal.
func writeFileAtomic(ctx context.Context, name string, write func(io.Writer) error) error {
	return writeFilesAtomic(ctx, []string{name}, []func(io.Writer) error{write})
}

// writeFilesAtomic writes several files as writeFileAtomic writes one, each names[i] with writes[i], so
// that none is replaced unless every one was written: each is written to its temporary file first, and the
// temporary files are renamed into place only once all are complete. (A rename that fails after others
// succeeded, which takes a folder changed under the program, still leaves those.)
func writeFilesAtomic(ctx context.Context, names []string, writes []func(io.Writer) error) error {
	var staged []*stagedFile
	defer func() {
		for _, f := range staged {
			f.abort()
		}
	}()
	// Every target is looked at before anything is written: a folder in the way is refused at once.
	if err := checkTargets(names); err != nil {
		return err
	}
	for i, name := range names {
		f, err := stageFile(ctx, name, writes[i])
		if err != nil {
			return err
		}
		staged = append(staged, f)
	}
	for len(staged) > 0 {
		f := staged[0]
		staged = staged[1:]
		if err := f.commit(ctx); err != nil {
			return err
		}
	}
	return nil
}

// checkTargets reports the first of names that nothing could be written to (a folder, a device, a
// missing folder in its path), before the output is computed.
func checkTargets(names []string) error {
	for _, name := range names {
		dir, _, _, err := outputTarget(name)
		if err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		dir.close()
	}
	return nil
}

// A stagedFile is an output written, complete and synced, to a temporary file beside the file it replaces.
type stagedFile struct {
	name   string
	dir    *folder
	base   string
	tmp    string
	forget func()
}

// stageFile writes what write writes to a temporary file in the folder of name's target, synced to disk.
func stageFile(ctx context.Context, name string, write func(io.Writer) error) (*stagedFile, error) {
	dir, base, old, err := outputTarget(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	perm := fs.FileMode(0o666)
	if old != nil {
		perm = old.Mode().Perm()
	}
	var f *os.File
	var tmp string
	for range 100 {
		tmp = "." + base + ".tmp" + strconv.FormatUint(rand.Uint64()%1e9, 10)
		if f, err = dir.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm); !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		dir.close()
		return nil, fmt.Errorf("%s: %v", name, trimPathError(err))
	}
	s := &stagedFile{name: name, dir: dir, base: base, tmp: tmp}
	s.forget = tempFiles.add(func() { dir.root.Remove(tmp) })
	bw := bufio.NewWriterSize(ctxWriter{ctx, f}, 1<<16)
	werr := write(bw)
	if werr == nil {
		werr = bw.Flush()
	}
	if werr == nil && old != nil {
		// The umask may have taken bits the file had.
		werr = f.Chmod(perm)
	}
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		s.abort()
		return nil, fmt.Errorf("%s: %w", name, trimPathError(werr))
	}
	return s, nil
}

// commit renames the temporary file over the file it replaces, unless ctx is cancelled.
func (s *stagedFile) commit(ctx context.Context) error {
	err := ctx.Err()
	if err == nil {
		err = s.dir.root.Rename(s.tmp, s.base)
	}
	if err != nil {
		s.abort()
		return fmt.Errorf("%s: %w", s.name, trimPathError(err))
	}
	// Make the rename itself durable; a folder that cannot be synced is not an error.
	s.dir.file.Sync()
	s.forget()
	s.dir.close()
	return nil
}

// abort removes the temporary file.
func (s *stagedFile) abort() {
	s.dir.root.Remove(s.tmp)
	s.forget()
	s.dir.close()
}

// writeJSON writes v as the commands write JSON documents: indented by two spaces, with a final newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// ctxWriter writes to w until ctx is cancelled.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// tempFiles are the temporary files being written, each with the function that removes it.
var tempFiles = &tempFileSet{m: map[int]func(){}}

type tempFileSet struct {
	mu   sync.Mutex
	next int
	m    map[int]func()
}

// add records a temporary file's removal and returns the function that forgets it.
func (s *tempFileSet) add(remove func()) (forget func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.next
	s.next++
	s.m[id] = remove
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.m, id)
	}
}

// removeTempFiles removes every temporary file being written, for a program about to exit. Those written
// later are not removed: it is called once, just before the exit.
func removeTempFiles() {
	s := tempFiles
	s.mu.Lock()
	for id, remove := range s.m {
		remove()
		delete(s.m, id)
	}
	// Held until the exit: no write starts, nor is renamed into place by a command that did not see the
	// context's end, once the files are gone.
}

// A folder is an open directory, and a path by which the kernel finds that same directory.
type folder struct {
	root *os.Root
	file *os.File
	// path is /proc/self/fd/N for the open directory where the system has it, else the path that opened it.
	path string
}

func openFolder(path string) (*folder, error) {
	root, err := os.OpenRoot(path)
	if err != nil {
		return nil, trimPathError(err)
	}
	file, err := root.Open(".")
	if err != nil {
		root.Close()
		return nil, trimPathError(err)
	}
	d := &folder{root: root, file: file, path: path}
	proc := "/proc/self/fd/" + strconv.FormatUint(uint64(file.Fd()), 10)
	if a, err := os.Stat(proc); err == nil {
		if b, err := file.Stat(); err == nil && os.SameFile(a, b) {
			d.path = proc
		}
	}
	return d, nil
}

func (d *folder) close() {
	d.file.Close()
	d.root.Close()
}

// maxLinks is how many symbolic links outputTarget follows, as Linux's path lookup does.
const maxLinks = 40

// outputTarget finds the file that writing name replaces, following symbolic links: the folder that holds
// it, its name there, and what it is (nil when it does not exist yet).
func outputTarget(name string) (*folder, string, fs.FileInfo, error) {
	d, base := splitLast(name)
	if d == "" {
		d = "."
	}
	dir, err := openFolder(d)
	if err != nil {
		return nil, "", nil, err
	}
	fail := func(err error) (*folder, string, fs.FileInfo, error) {
		dir.close()
		return nil, "", nil, err
	}
	for links := 0; ; links++ {
		if base == "" || base == "." || base == ".." {
			return fail(errors.New("is a directory, not a regular file: not replacing it"))
		}
		fi, err := dir.root.Lstat(base)
		if errors.Is(err, fs.ErrNotExist) {
			return dir, base, nil, nil
		}
		if err != nil {
			return fail(trimPathError(err))
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			if !fi.Mode().IsRegular() {
				return fail(fmt.Errorf("is %s, not a regular file: not replacing it", fileKind(fi.Mode())))
			}
			if uid, ok := othersInSticky(dir, fi); ok {
				return fail(fmt.Errorf("is a file of another user (uid %d) in a sticky folder that anyone may write to: not replacing it", uid))
			}
			return dir, base, fi, nil
		}
		if links == maxLinks {
			return fail(errors.New("too many levels of symbolic links"))
		}
		if uid, ok := othersInSticky(dir, fi); ok {
			return fail(fmt.Errorf("is a symbolic link of another user (uid %d) in a sticky folder that anyone may write to: not following it", uid))
		}
		dest, err := dir.root.Readlink(base)
		if err != nil {
			return fail(trimPathError(err))
		}
		destDir, destBase := splitLast(dest)
		if destDir != "" {
			if !filepath.IsAbs(dest) {
				// Relative to the folder that holds the link, whatever path led to it.
				destDir = dir.path + string(os.PathSeparator) + destDir
			}
			next, err := openFolder(destDir)
			if err != nil {
				return fail(err)
			}
			dir.close()
			dir = next
		}
		base = destBase
	}
}

// othersInSticky reports the owner of fi, a file of dir, when the kernel's protection of sticky folders
// applies to it: dir is sticky and anyone may write to it, and neither this program's user nor the folder's
// owner owns fi.
func othersInSticky(dir *folder, fi fs.FileInfo) (uid int, ok bool) {
	di, err := dir.file.Stat()
	if err != nil || di.Mode()&fs.ModeSticky == 0 || di.Mode().Perm()&0o002 == 0 {
		return 0, false
	}
	uid, ok1 := fileOwner(fi)
	dirUID, ok2 := fileOwner(di)
	if !ok1 || !ok2 || uid == os.Geteuid() || uid == dirUID {
		return 0, false
	}
	return uid, true
}

// splitLast cuts a path at its last separator, as the kernel reads it, cleaning nothing: "a/b/../c" is
// "a/b/.." and "c", "c" is "" and "c", "/c" is "/" and "c", "a/" is "a" and "".
func splitLast(p string) (dir, base string) {
	i := len(p) - 1
	for i >= 0 && !os.IsPathSeparator(p[i]) {
		i--
	}
	if i < 0 {
		return "", p
	}
	dir = p[:i]
	if vol := filepath.VolumeName(p); len(strings.TrimRight(dir[len(vol):], `/\`)) == 0 {
		dir = p[:i+1] // the root
	}
	return dir, p[i+1:]
}

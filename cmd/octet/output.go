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
	dir, base, old, err := outputTarget(name)
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	defer dir.close()
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
		return fmt.Errorf("%s: %v", name, trimPathError(err))
	}
	forget := tempFiles.add(func() { dir.root.Remove(tmp) })
	defer forget()
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
	if werr == nil {
		werr = ctx.Err()
	}
	if werr == nil {
		werr = dir.root.Rename(tmp, base)
	}
	if werr != nil {
		dir.root.Remove(tmp)
		return fmt.Errorf("%s: %w", name, trimPathError(werr))
	}
	// Make the rename itself durable; a folder that cannot be synced is not an error.
	dir.file.Sync()
	return nil
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

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeRun writes "run -o" output to target and returns the exit status and standard error.
func writeRun(t *testing.T, target string) (int, string) {
	t.Helper()
	code, _, errs := runOctet(t, "", "run", "--random", "1", "-o", target, example("relu_amax.before.hlo"))
	return code, errs
}

func isNpz(path string) bool {
	b, err := os.ReadFile(path)
	return err == nil && bytes.HasPrefix(b, []byte("PK\x03\x04"))
}

// TestOutputLinksResolvedByKernel writes through symbolic links whose text the kernel resolves from the
// folder that holds the link: "../t.npz" in a folder reached through a linked folder is beside the folder
// linked to, not beside the link, and links to links are followed.
func TestOutputLinksResolvedByKernel(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "real", "sub"), 0o755))
	must(os.Symlink("real/sub", filepath.Join(dir, "alias")))
	must(os.Symlink("../t.npz", filepath.Join(dir, "real", "sub", "out.npz")))
	if code, errs := writeRun(t, filepath.Join(dir, "alias", "out.npz")); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !isNpz(filepath.Join(dir, "real", "t.npz")) {
		t.Errorf("real/t.npz, where the kernel resolves alias/out.npz, was not written")
	}
	if _, err := os.Lstat(filepath.Join(dir, "t.npz")); err == nil {
		t.Errorf("t.npz was written beside the link alias, as joining the paths' text gives")
	}

	// A chain of relative links, through a folder and back.
	must(os.Symlink("real/hop", filepath.Join(dir, "first.npz")))
	must(os.Symlink("../end.npz", filepath.Join(dir, "real", "hop")))
	if code, errs := writeRun(t, filepath.Join(dir, "first.npz")); code != 0 || !isNpz(filepath.Join(dir, "end.npz")) {
		t.Errorf("chain of links: exit %d: %s", code, errs)
	}
	for _, l := range []string{"first.npz", "real/hop"} {
		if fi, err := os.Lstat(filepath.Join(dir, l)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link", l)
		}
	}

	// A loop of links.
	must(os.Symlink("loop-b", filepath.Join(dir, "loop-a")))
	must(os.Symlink("loop-a", filepath.Join(dir, "loop-b")))
	if code, errs := writeRun(t, filepath.Join(dir, "loop-a")); code != 1 || !strings.Contains(errs, "loop-a: too many levels of symbolic links") {
		t.Errorf("loop: exit %d: %s", code, errs)
	}
	// A name that ends in a separator names a folder.
	if code, errs := writeRun(t, filepath.Join(dir, "real")+"/"); code != 1 || !strings.Contains(errs, "is a directory") {
		t.Errorf("folder: exit %d: %s", code, errs)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, "*", ".*.tmp*"))
	more, _ := filepath.Glob(filepath.Join(dir, ".*.tmp*"))
	if len(leftovers)+len(more) > 0 {
		t.Errorf("temporary files left behind: %v %v", leftovers, more)
	}
}

// TestOutputProtectedSticky writes into a sticky folder that anyone may write to, as /tmp is: a link or a
// file of another user there is refused, as the kernel's fs.protected_symlinks and fs.protected_regular
// refuse them to programs that open files, unless the user owns it or the folder's owner does; outside
// such a folder, another user's link is followed.
func TestOutputProtectedSticky(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making files of another user takes root")
	}
	const nobody = 65534
	private := t.TempDir()
	victim := filepath.Join(private, "x")
	if err := os.WriteFile(victim, []byte("root's file"), 0o600); err != nil {
		t.Fatal(err)
	}
	unchanged := func() bool {
		b, err := os.ReadFile(victim)
		return err == nil && string(b) == "root's file"
	}
	for _, tc := range []struct {
		name      string
		dirMode   os.FileMode
		dirOwner  int
		linkOwner int
		refused   bool
	}{
		{"another user's link in a sticky folder", 0o777 | os.ModeSticky, 0, nobody, true},
		{"own link in a sticky folder", 0o777 | os.ModeSticky, 0, 0, false},
		{"the folder owner's link", 0o777 | os.ModeSticky, nobody, nobody, false},
		{"another user's link in a folder without the sticky bit", 0o777, 0, nobody, false},
		{"another user's link in a sticky folder only its owner may write to", 0o755 | os.ModeSticky, 0, nobody, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.WriteFile(victim, []byte("root's file"), 0o600)
			shared := t.TempDir()
			link := filepath.Join(shared, "report.npz")
			if err := os.Symlink(victim, link); err != nil {
				t.Fatal(err)
			}
			if err := os.Lchown(link, tc.linkOwner, tc.linkOwner); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(shared, tc.dirMode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(shared, tc.dirOwner, tc.dirOwner); err != nil {
				t.Fatal(err)
			}
			code, errs := writeRun(t, link)
			if tc.refused {
				if code != 1 || !strings.Contains(errs, link+": is a symbolic link of another user (uid 65534) in a sticky folder that anyone may write to: not following it") {
					t.Errorf("exit %d: %s", code, errs)
				}
				if !unchanged() {
					t.Errorf("the file the link names was written")
				}
			} else if code != 0 || !isNpz(victim) {
				t.Errorf("exit %d, or the file the link names was not written: %s", code, errs)
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the link was replaced")
			}
		})
	}
	t.Run("another user's file in a sticky folder", func(t *testing.T) {
		shared := t.TempDir()
		file := filepath.Join(shared, "report.npz")
		os.WriteFile(file, []byte("nobody's file"), 0o666)
		os.Chown(file, nobody, nobody)
		os.Chmod(shared, 0o777|os.ModeSticky)
		code, errs := writeRun(t, file)
		if code != 1 || !strings.Contains(errs, file+": is a file of another user (uid 65534) in a sticky folder that anyone may write to: not replacing it") {
			t.Errorf("exit %d: %s", code, errs)
		}
		if b, _ := os.ReadFile(file); string(b) != "nobody's file" {
			t.Errorf("the file was replaced")
		}
	})
}

// TestOutputUmask writes output files in a process whose umask is 077, then 022: a new file gets 0666 less
// the umask; a file replaced keeps its permissions.
func TestOutputUmask(t *testing.T) {
	dir := t.TempDir()
	kept := filepath.Join(dir, "kept.npz")
	os.WriteFile(kept, []byte("old"), 0o600)
	os.Chmod(kept, 0o640)
	for _, tc := range []struct {
		umask, file string
		mode        os.FileMode
	}{
		{"077", "private.npz", 0o600},
		{"022", "shared.npz", 0o644},
		{"077", "kept.npz", 0o640},
	} {
		path := filepath.Join(dir, tc.file)
		out, err := octetProcess(t, []string{"OCTET_TEST_UMASK=" + tc.umask}, "run", "--random", "1", "-o", path, example("relu_amax.before.hlo")).CombinedOutput()
		if err != nil {
			t.Fatalf("umask %s: %v\n%s", tc.umask, err, out)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != tc.mode || !isNpz(path) {
			t.Errorf("umask %s: %s has mode %v, want %v", tc.umask, tc.file, fi.Mode().Perm(), tc.mode)
		}
	}
}

// TestOutputInterrupted sends SIGINT to octet while it writes an output file: one that writes on, and one
// that stalls without watching its context (as a long computation does), which the program ends 2 seconds
// after the signal. Either way the program exits with status 1, and neither the output nor its temporary
// file is left.
func TestOutputInterrupted(t *testing.T) {
	for _, how := range []string{"trickle", "stall"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.bin")
			cmd := octetProcess(t, nil, "write-for-test", how, out)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			temps := func() []string {
				m, _ := filepath.Glob(filepath.Join(dir, ".out.bin.tmp*"))
				return m
			}
			for i := 0; len(temps()) == 0; i++ {
				if i == 6000 {
					cmd.Process.Kill()
					t.Fatalf("no temporary file appeared: %s", stderr.String())
				}
				time.Sleep(5 * time.Millisecond)
			}
			cmd.Process.Signal(os.Interrupt)
			err := cmd.Wait()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("%v: %s", err, stderr.String())
			}
			if m := temps(); len(m) > 0 {
				t.Errorf("temporary files left behind: %v", m)
			}
			if _, err := os.Lstat(out); err == nil {
				t.Errorf("%s was written", out)
			}
		})
	}
}

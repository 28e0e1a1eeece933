package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOctetProcess is the octet program itself when the test binary runs with OCTET_TEST_PROCESS set, its
// arguments after "--": octetProcess starts it so, to test what only a whole process shows (signals, the
// umask, the collector's pacing, peak memory). OCTET_TEST_UMASK sets the umask first; with OCTET_TEST_PEAK
// set, the program's peak resident memory is printed on standard error last (see processPeak).
func TestOctetProcess(t *testing.T) {
	if os.Getenv("OCTET_TEST_PROCESS") == "" {
		return
	}
	i := slices.Index(os.Args, "--")
	if i < 0 {
		panic("no -- before the arguments")
	}
	if u := os.Getenv("OCTET_TEST_UMASK"); u != "" {
		mask, err := strconv.ParseUint(u, 8, 32)
		if err != nil {
			panic(err)
		}
		syscall.Umask(int(mask))
	}
	register(&command{Name: "write-for-test", Run: writeForTest})
	os.Args = append([]string{"octet"}, os.Args[i+1:]...)
	code := octet()
	if os.Getenv("OCTET_TEST_PEAK") != "" {
		// The peak of this program's resident memory: a parent's wait4 would count the parent's own
		// at the fork.
		status, _ := os.ReadFile("/proc/self/status")
		for line := range strings.Lines(string(status)) {
			if strings.HasPrefix(line, "VmHWM:") {
				fmt.Fprint(os.Stderr, line)
			}
		}
	}
	os.Exit(code)
}

// processPeak returns the peak resident memory that a process started by octetProcess with
// OCTET_TEST_PEAK set printed on its standard error, in bytes.
func processPeak(t *testing.T, stderr []byte) int64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^VmHWM:\s+(\d+) kB$`).FindSubmatch(stderr)
	if m == nil {
		t.Fatalf("no peak memory in:\n%s", stderr)
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return kb << 10
}

// writeForTest writes a file (args[1]) as commands write their outputs, slowly: "stall" writes a little
// and then waits without watching the context, as a long computation does; "trickle" writes a little
// every few milliseconds for ever.
func writeForTest(inv *invocation, args []string) error {
	return writeFileAtomic(inv.ctx, args[1], func(w io.Writer) error {
		chunk := bytes.Repeat([]byte("x"), 1<<16)
		for {
			if _, err := w.Write(chunk); err != nil {
				return err
			}
			if args[0] == "stall" {
				time.Sleep(time.Hour)
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
}

// octetProcess returns the command that runs octet with args in a process of its own, with env added to
// the test's environment (less GOGC and GOMEMLIMIT, unless env sets them).
func octetProcess(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestOctetProcess$", "--"}, args...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOGC=") && !strings.HasPrefix(kv, "GOMEMLIMIT=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "OCTET_TEST_PROCESS=1")
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

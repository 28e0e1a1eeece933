package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOctetProcess is the octet program itself when the test binary runs with OCTET_TEST_PROCESS set, its
// arguments after "--": octetProcess starts it so, to test what only a whole process shows (signals, the
// umask, the collector's pacing, peak memory). OCTET_TEST_UMASK sets the umask first.
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
	main()
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

package main

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"octet/interp"
)

func init() {
	// Tests give many commands a named pipe that no program writes to: each waits this long for a writer.
	writerWait = 100 * time.Millisecond
}

// runGuarded runs octet in-process like runOctet, and fails the test if it has not returned after a
// minute: a guard against a hang, not a measure of time.
func runGuarded(t *testing.T, stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		var out, errb bytes.Buffer
		code := run(context.Background(), args, stdin, &out, &errb)
		done <- result{code, out.String(), errb.String()}
	}()
	select {
	case r := <-done:
		return r.code, r.out, r.err
	case <-time.After(time.Minute):
		t.Fatalf("octet %s has not returned", strings.Join(args, " "))
	}
	return
}

// TestPipeInput reads modules from pipes: a pipe named by /dev/fd (what a shell's process substitution
// <(...) passes), gzipped or not, and a named pipe that a program writes to. A named pipe that no program
// writes to is refused, not waited on.
func TestPipeInput(t *testing.T) {
	src, err := os.ReadFile(example("dense_fp8.xla-0.4.31.hlo"))
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(src)
	zw.Close()
	// What verify says of the file itself, which the pipe must match.
	_, fromFile, _ := runOctet(t, "", "verify", example("dense_fp8.xla-0.4.31.hlo"))
	counts := fromFile[strings.Index(fromFile, ": ok"):]
	for _, tc := range []struct {
		name string
		data []byte
	}{{"text", src}, {"gzip", gz.Bytes()}} {
		t.Run("/dev/fd "+tc.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			go func() {
				w.Write(tc.data)
				w.Close()
			}()
			name := fmt.Sprintf("/dev/fd/%d", r.Fd())
			if _, err := os.Stat(name); err != nil {
				t.Skipf("no /dev/fd: %v", err)
			}
			code, out, errs := runGuarded(t, nil, "verify", name)
			if code != 0 || out != name+counts {
				t.Errorf("verify %s: exit %d:\n%s%s", name, code, out, errs)
			}
		})
	}

	dir := t.TempDir()
	fifo := filepath.Join(dir, "module.hlo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("cannot make a named pipe: %v", err)
	}
	t.Run("named pipe with a writer", func(t *testing.T) {
		// The writer opens the pipe and waits for a reader, as "producer > fifo &" does, before octet reads
		// or soon after: octet waits for it.
		defer func(d time.Duration) { writerWait = d }(writerWait)
		writerWait = time.Minute
		_, want, _ := runOctet(t, "", "print", "--format=xla", example("dense_fp8.xla-0.4.31.hlo"))
		go func() {
			w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			w.Write(src)
			w.Close()
		}()
		code, out, errs := runGuarded(t, nil, "print", "--format=xla", fifo)
		if code != 0 || out != want {
			t.Errorf("print %s: exit %d:\n%s%s", fifo, code, out, errs)
		}
	})
	t.Run("named pipe without a writer", func(t *testing.T) {
		for _, args := range [][]string{{"verify", fifo}, {"run", "--random", "1", fifo}} {
			code, _, errs := runGuarded(t, nil, args...)
			if code != 1 || !strings.Contains(errs, fifo+": is a pipe with nothing to read and no program writing to it") {
				t.Errorf("%s: exit %d: %s", strings.Join(args, " "), code, errs)
			}
		}
	})
	t.Run("binary input from a pipe", func(t *testing.T) {
		// run --input reads an array at random where it can; from a pipe it reads it whole first.
		module := "HloModule m\nENTRY e {\n  x = f32[3] parameter(0)\n  ROOT n = f32[3] negate(x)\n}\n"
		path := filepath.Join(dir, "negate.hlo")
		os.WriteFile(path, []byte(module), 0o644)
		npy := []byte("\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }")
		npy = append(npy, bytes.Repeat([]byte(" "), 127-len(npy))...)
		npy = append(npy, '\n')
		for _, v := range []float32{1, 2, 3} {
			npy = binary.LittleEndian.AppendUint32(npy, math.Float32bits(v))
		}
		r, w, _ := os.Pipe()
		defer r.Close()
		go func() {
			w.Write(npy)
			w.Close()
		}()
		code, out, errs := runGuarded(t, nil, "run", "--input", fmt.Sprintf("/dev/fd/%d", r.Fd()), path)
		if code != 0 || !strings.Contains(out, "-2") {
			t.Errorf("run --input from a pipe: exit %d:\n%s%s", code, out, errs)
		}
	})
	// Folders and devices are refused by name.
	for name, kind := range map[string]string{dir: "a directory", "/dev/null": "a character device"} {
		if code, _, errs := runGuarded(t, nil, "verify", name); code != 1 || !strings.Contains(errs, name+": is "+kind) {
			t.Errorf("verify %s: exit %d: %s", name, code, errs)
		}
	}
}

// TestPipeInputInterrupted cancels a command that waits on a pipe whose writer writes nothing: it ends,
// saying it was interrupted.
func TestPipeInputInterrupted(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	w.Write([]byte("HloModule m\n"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var errb bytes.Buffer
	go func() { done <- run(ctx, []string{"print", fmt.Sprintf("/dev/fd/%d", r.Fd())}, nil, io.Discard, &errb) }()
	cancel()
	select {
	case code := <-done:
		if code != 1 || errb.String() != "octet: interrupted\n" {
			t.Errorf("exit %d: %s", code, errb.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("a cancelled read of a pipe has not returned")
	}
}

// gzipZeros writes a gzip stream of n zero bytes. As one member, its trailer states n (modulo 2^32), as
// gzip writes it; as members of 1 MiB each, the trailer states the last member's size, 1 MiB, whatever n.
// The stream is made from a few compressed blocks repeated, in a few milliseconds.
func gzipZeros(w io.Writer, n int64, members bool) error {
	const block = 1 << 20
	zeros := make([]byte, block)
	if members {
		var m bytes.Buffer
		zw := gzip.NewWriter(&m)
		zw.Write(zeros)
		zw.Close()
		for ; n > 0; n -= block {
			if _, err := w.Write(m.Bytes()); err != nil {
				return err
			}
		}
		return nil
	}
	// One deflate stream: the first block, then the second repeated (it refers only to the zeros before
	// it), each ended by a flush on a byte boundary; then a final empty stored block.
	var blocks bytes.Buffer
	fw, _ := flate.NewWriter(&blocks, flate.BestCompression)
	fw.Write(zeros)
	fw.Flush()
	first := len(blocks.Bytes())
	fw.Write(zeros)
	fw.Flush()
	crc := crc32.NewIEEE()
	header := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}
	if _, err := w.Write(header); err != nil {
		return err
	}
	if _, err := w.Write(blocks.Bytes()[:first]); err != nil {
		return err
	}
	crc.Write(zeros)
	for left := n - block; left > 0; left -= block {
		if _, err := w.Write(blocks.Bytes()[first:]); err != nil {
			return err
		}
		crc.Write(zeros)
	}
	if _, err := w.Write([]byte{1, 0, 0, 0xff, 0xff}); err != nil {
		return err
	}
	return binary.Write(w, binary.LittleEndian, [2]uint32{crc.Sum32(), uint32(n)})
}

// TestGzipZeros checks the bombs the tests make: valid gzip streams of the size asked.
func TestGzipZeros(t *testing.T) {
	for _, members := range []bool{false, true} {
		var b bytes.Buffer
		if err := gzipZeros(&b, 5<<20, members); err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(&b)
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(zr)
		if err != nil || len(data) != 5<<20 || bytes.IndexFunc(data, func(r rune) bool { return r != 0 }) >= 0 {
			t.Errorf("members %v: %d bytes, %v", members, len(data), err)
		}
	}
}

// TestGzipBomb reads a gzip bomb, 2 GiB of zeros in about 2 MB: streamed through standard input, as a file
// whose trailer states its size, and as a file whose trailer states only its last member's. Each is refused
// as over the input limit, holding no more than about the limit while it reads.
func TestGzipBomb(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a gigabyte")
	}
	limit := defaultMaxText()
	dir := t.TempDir()
	for _, tc := range []struct {
		name    string
		stream  bool
		members bool
		want    string
	}{
		{"standard input", true, true, "<stdin>: more than " + interp.FormatBytes(limit) + ", the input limit (--max-input raises it)"},
		{"file of one member", false, false, "bomb.hlo.gz: more than " + interp.FormatBytes(limit) + ", the input limit"},
		{"file of members", false, true, "bomb.hlo.gz: more than " + interp.FormatBytes(limit) + ", the input limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdin io.Reader
			arg := "-"
			if tc.stream {
				pr, pw := io.Pipe()
				defer pr.Close()
				go func() { pw.CloseWithError(gzipZeros(pw, 2<<30, tc.members)) }()
				stdin = pr
			} else {
				arg = filepath.Join(dir, "bomb.hlo.gz")
				f, err := os.Create(arg)
				if err != nil {
					t.Fatal(err)
				}
				if err := gzipZeros(f, 2<<30, tc.members); err != nil {
					t.Fatal(err)
				}
				f.Close()
			}
			var code int
			var errs string
			peak := peakHeap(func() { code, _, errs = runGuarded(t, stdin, "verify", arg) })
			t.Logf("peak heap %s", interp.FormatBytes(peak))
			if code != 1 || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d: %s", code, errs)
			}
			if peak > limit+limit/4 || peak > 2<<30 {
				t.Errorf("refusing the bomb took %s, more than the input limit of %s", interp.FormatBytes(peak), interp.FormatBytes(limit))
			}
		})
	}
}

// TestReadInputMemory reads a gzipped module of 64 MiB of text: from a file whose trailer states the size
// (named, or as standard input), the text alone is held; from a stream, at most twice the text while it is
// read.
func TestReadInputMemory(t *testing.T) {
	const size = 64 << 20
	text := []byte("HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n// ")
	text = append(text, bytes.Repeat([]byte("a"), size-len(text)-1)...)
	text = append(text, '\n')
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
	zw.Write(text)
	zw.Close()
	path := filepath.Join(t.TempDir(), "big.hlo.gz")
	if err := os.WriteFile(path, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	stdinFile, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer stdinFile.Close()
	for _, tc := range []struct {
		name   string
		arg    string
		stdin  io.Reader
		factor float64
	}{
		{"file", path, nil, 1.25},
		{"standard input from the file", "-", stdinFile, 1.25},
		{"stream", "-", bytes.NewReader(gz.Bytes()), 2.25},
	} {
		inv := &invocation{ctx: context.Background(), stdin: tc.stdin, stdout: io.Discard, stderr: io.Discard}
		var data []byte
		var err error
		peak := peakHeap(func() { data, _, err = inv.readInput(tc.arg) })
		if err != nil || !bytes.Equal(data, text) {
			t.Fatalf("%s: %v, %d bytes read", tc.name, err, len(data))
		}
		t.Logf("%s: peak heap %s for %s of text", tc.name, interp.FormatBytes(peak), interp.FormatBytes(size))
		if float64(peak) > tc.factor*size {
			t.Errorf("%s: reading %s of text took %s", tc.name, interp.FormatBytes(size), interp.FormatBytes(peak))
		}
	}
}

// TestMaxInput checks the input limit and --max-input, which every command that reads modules takes.
func TestMaxInput(t *testing.T) {
	file := example("dense_fp8.xla-0.4.32.hlo") // 3735 bytes
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	src, _ := os.ReadFile(file)
	zw.Write(src)
	zw.Close()
	gzFile := filepath.Join(t.TempDir(), "m.hlo.gz")
	os.WriteFile(gzFile, gz.Bytes(), 0o644)
	// Cut short, its last four bytes are not a size.
	cut := filepath.Join(t.TempDir(), "cut.hlo.gz")
	os.WriteFile(cut, append(gz.Bytes()[:gz.Len()/2:gz.Len()/2], 0xff, 0xff, 0xff, 0x7f), 0o644)
	for _, tc := range []struct {
		args  []string
		stdin string
		code  int
		msg   string
	}{
		{[]string{"verify", "--max-input=3KiB", file}, "", 1, file + ": 3.6 KiB, more than 3.0 KiB, the input limit (--max-input raises it)"},
		{[]string{"verify", "--max-input=3KiB", gzFile}, "", 1, gzFile + ": more than 3.0 KiB, the input limit"},
		{[]string{"verify", "--max-input=3KiB", "-"}, string(src), 1, "<stdin>: more than 3.0 KiB, the input limit"},
		{[]string{"verify", "--max-input=4KiB", file}, "", 0, ""},
		{[]string{"verify", "--max-input=0", gzFile}, "", 0, ""},
		{[]string{"check", "--max-input=3KiB", file}, "", 1, "more than 3.0 KiB"},
		{[]string{"bench", "parse", "--max-input=3KiB", file}, "", 1, "more than 3.0 KiB"},
		{[]string{"verify", "--max-input=lots", file}, "", 2, `invalid value "lots" for flag -max-input: "lots" is not a size`},
		{[]string{"verify", cut}, "", 1, cut + ": bad gzip data: "},
		{[]string{"verify", "--max-input=3KiB", cut}, "", 1, cut + ": bad gzip data: "},
	} {
		code, _, errs := runOctet(t, tc.stdin, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.msg) {
			t.Errorf("%s: exit %d: %s", strings.Join(tc.args, " "), code, errs)
		}
	}
	for _, c := range commands {
		_, help, _ := runOctet(t, "", "help", c.Name)
		if strings.Contains(help, "-max-input") != c.ReadsModules {
			t.Errorf("octet help %s: --max-input listed: %v, want %v", c.Name, !c.ReadsModules, c.ReadsModules)
		}
	}
}

// TestStdinFromFile reads standard input redirected from a file, from where it stands, as "cmd - < file"
// after a program read the start of it does.
func TestStdinFromFile(t *testing.T) {
	src, err := os.ReadFile(example("dense_fp8.before.hlo"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "in.hlo")
	os.WriteFile(path, append([]byte("garbage\n"), src...), 0o644)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.Seek(int64(len("garbage\n")), io.SeekStart)
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"verify", "-"}, f, &out, &errb); code != 0 || out.String() != "<stdin>: ok (1 computation, 23 instructions)\n" {
		t.Errorf("exit %d: %s%s", code, out.String(), errb.String())
	}
}

// TestInputPeakRSS pipes 256 MiB of gzipped text to "octet verify -" in a process of its own and reads the
// peak of its resident memory: the text, and the parser's copy of it, and not the pieces it was read in.
func TestInputPeakRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 256 MiB")
	}
	const size = 256 << 20
	head := "HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n// "
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
	zw.Write([]byte(head))
	line := bytes.Repeat([]byte("a"), 1<<20)
	for n := len(head); n < size; n += len(line) {
		zw.Write(line)
	}
	zw.Write([]byte("\n"))
	zw.Close()
	cmd := octetProcess(t, []string{"OCTET_TEST_PEAK=1"}, "verify", "-")
	cmd.Stdin = &gz // through a pipe
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "<stdin>: ok") {
		t.Fatalf("%v: %s", err, out)
	}
	rss := processPeak(t, out)
	t.Logf("peak RSS %s for %s of text", interp.FormatBytes(rss), interp.FormatBytes(size))
	if rss > size*5/2 {
		t.Errorf("peak RSS %s for %s of text", interp.FormatBytes(rss), interp.FormatBytes(size))
	}
}

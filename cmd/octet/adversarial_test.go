package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// An adversarialCase is an input every command must survive: a bad one is refused with exit status 1 and
// an error that names the file (and its line and column where it has them); a valid but unusual one is
// handled with exit status 0.
type adversarialCase struct {
	name string
	// make writes the input into dir and returns its path.
	make func(t *testing.T, dir string) string
	// valid inputs make every command succeed.
	valid bool
	// positioned errors carry a line and a column.
	positioned bool
	// printable inputs parse but do not verify: print shows them (exit 0), the other commands refuse them.
	printable bool
	// inputLimit, when positive, lowers the most bytes an input may hold.
	inputLimit int64
}

// text makes a case's input from HLO text.
func text(src string) func(*testing.T, string) string {
	return func(t *testing.T, dir string) string { return writeTemp(t, dir, "input.hlo", src) }
}

// repeat returns a module whose entry holds n copies of line (with %d replaced by the copy's number).
func repeat(n int, head, line, tail string) string {
	var b strings.Builder
	b.WriteString(head)
	for i := range n {
		b.WriteString(strings.ReplaceAll(line, "%d", fmt.Sprint(i)))
	}
	b.WriteString(tail)
	return b.String()
}

// nested returns open n times, then middle, then close n times.
func nested(n int, open, middle, close string) string {
	return strings.Repeat(open, n) + middle + strings.Repeat(close, n)
}

// callChain is a module of n computations, each calling the next: distinct names, deep calls.
func callChain(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "HloModule chain\nc%d {\n  p%d = f32[] parameter(0)\n  ROOT r%d = f32[] negate(p%d)\n}\n", n, n, n, n)
	for i := n - 1; i > 0; i-- {
		fmt.Fprintf(&b, "c%d {\n  p%d = f32[] parameter(0)\n  ROOT r%d = f32[] call(p%d), to_apply=c%d\n}\n", i, i, i, i, i+1)
	}
	b.WriteString("ENTRY e {\n  x = f32[] parameter(0)\n  ROOT y = f32[] call(x), to_apply=c1\n}\n")
	return b.String()
}

// reusedNames is a module of n computations that all name their instructions p and r, as hand-written HLO
// does; the parser makes the names unique.
func reusedNames(n int) string {
	var b strings.Builder
	b.WriteString("HloModule reused\n")
	for i := range n {
		fmt.Fprintf(&b, "c%d {\n  p = f32[] parameter(0)\n  ROOT r = f32[] negate(p)\n}\n", i)
	}
	b.WriteString("ENTRY e {\n  p = f32[] parameter(0)\n")
	for i := range n {
		fmt.Fprintf(&b, "  r%d = f32[] call(p), to_apply=c%d\n", i, i)
	}
	b.WriteString("  ROOT t = () tuple()\n}\n")
	return b.String()
}

const entryHead = "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n"

var adversarialCases = []adversarialCase{
	{name: "empty", make: text("")},
	{name: "blank", make: text("\n \t\n\n")},
	{name: "comments only", make: text("// a comment\n/* another */\n")},
	{name: "header only", make: text("HloModule m, entry_computation_layout={()->f32[]}\n"), positioned: true},
	{name: "printed by XLA, cut before its ENTRY", make: text("HloModule m, entry_computation_layout={(f32[4], f32[])->f32[]}\nadd {\n  a = f32[] parameter(0)\n  ROOT b = f32[] add(a, a)\n}\n"), positioned: true, printable: true},
	{name: "cut before ENTRY", make: func(t *testing.T, dir string) string {
		src, err := os.ReadFile(example("dense_fp8.xla-0.4.32.hlo"))
		if err != nil {
			t.Fatal(err)
		}
		return text(string(src[:bytes.Index(src, []byte("ENTRY"))]))(t, dir)
	}, positioned: true, printable: true}, // its last computation does not fit the header's layout
	{name: "cut inside ENTRY", make: func(t *testing.T, dir string) string {
		src, err := os.ReadFile(example("dense_fp8.xla-0.4.31.hlo"))
		if err != nil {
			t.Fatal(err)
		}
		return text(string(src[:len(src)-40]))(t, dir)
	}, positioned: true},
	{name: "binary garbage", make: text("\x00\x01\x02HloModule\xff\xfe"), positioned: true},
	{name: "overflowing shape", make: text("HloModule m\nENTRY e {\n  ROOT p = f32[4611686018427387904,4611686018427387904] parameter(0)\n}\n"), positioned: true, printable: true},
	{name: "negative dimension", make: text("HloModule m\nENTRY e {\n  ROOT p = f32[-4] parameter(0)\n}\n"), positioned: true},
	{name: "layout past the rank", make: text("HloModule m\nENTRY e {\n  ROOT p = f32[4]{7} parameter(0)\n}\n"), positioned: true, printable: true},
	{name: "layout not a permutation", make: text("HloModule m\nENTRY e {\n  ROOT p = f32[4,4]{0,0} parameter(0)\n}\n"), positioned: true, printable: true},
	{name: "self call", make: text("HloModule m\nc {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c\n}\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c\n}\n"), positioned: true, printable: true},
	{name: "mutual calls", make: text("HloModule m\na {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=b\n}\nb {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=a\n}\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=a\n}\n"), positioned: true, printable: true},
	{name: "alias of another shape", make: text("HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }\nENTRY e {\n  p = s32[] parameter(0)\n  q = f32[80,1024] parameter(1)\n  ROOT r = (f32[80,1024]) tuple(q)\n}\n"), positioned: true, printable: true},
	{name: "inf in f8e4m3fn", make: text("HloModule m\nENTRY e {\n  ROOT c = f8e4m3fn[2] constant({1, inf})\n}\n"), positioned: true},
	{name: "wrong operand count", make: text(entryHead + "  ROOT c = f32[] add(p, p, p)\n}\n"), positioned: true},
	{name: "undefined operand", make: text(entryHead + "  ROOT c = f32[] add(p, q)\n}\n"), positioned: true},
	{name: "wrong shape", make: text(entryHead + "  ROOT c = f32[2] negate(p)\n}\n"), positioned: true, printable: true},
	{name: "names reused in one computation", make: text(repeat(50, entryHead, "  x = f32[] negate(p)\n", "  ROOT r = f32[] negate(p)\n}\n")), positioned: true},
	{name: "unterminated string", make: text(entryHead + "  ROOT c = f32[] custom-call(p), custom_call_target=\"abc\n}\n"), positioned: true},
	{name: "gzip bomb", make: func(t *testing.T, dir string) string {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		zw.Write(make([]byte, 10<<20))
		zw.Close()
		return writeTemp(t, dir, "bomb.hlo.gz", b.String())
	}, inputLimit: 1 << 20},
	{name: "bad gzip", make: text("\x1f\x8b\x08\x00garbage")},
	{name: "named pipe", make: func(t *testing.T, dir string) string {
		path := filepath.Join(dir, "pipe.hlo")
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Skipf("cannot make a named pipe: %v", err)
		}
		return path
	}},
	{name: "symlink to a named pipe", make: func(t *testing.T, dir string) string {
		fifo := filepath.Join(dir, "pipe")
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Skipf("cannot make a named pipe: %v", err)
		}
		path := filepath.Join(dir, "link.hlo")
		if err := os.Symlink(fifo, path); err != nil {
			t.Fatal(err)
		}
		return path
	}},
	{name: "missing file", make: func(t *testing.T, dir string) string { return filepath.Join(dir, "missing.hlo") }},

	// Valid, if unusual.
	{name: "comments around the module", make: text("// before\n" + entryHead + "  ROOT r = f32[] negate(p) // after\n}\n/* end */\n"), valid: true},
	{name: "written by hand, no ENTRY", make: text("HloModule m\nadd {\n  a = f32[] parameter(0)\n  ROOT b = f32[] add(a, a)\n}\n"), valid: true},
	// As XLA's multihost runner test data: XLA's parser takes the last computation as the entry.
	{name: "printed by XLA, no ENTRY", make: text("HloModule m, entry_computation_layout={(f32[])->f32[]}\nadd {\n  a = f32[] parameter(0)\n  ROOT b = f32[] add(a, a)\n}\n"), valid: true},
	{name: "module without a header", make: text("ENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] negate(p)\n}\n"), valid: true},
	{name: "deep operand nesting", make: text("HloModule m\nENTRY e {\n  ROOT r = f32[] " + nested(500, "negate(", "f32[] parameter(0)", ")") + "\n}\n"), valid: true},
	{name: "deep tuple shape", make: text("HloModule m\nENTRY e {\n  ROOT p = " + nested(2000, "(", "f32[]", ")") + " parameter(0)\n}\n"), positioned: true},
	{name: "long instruction chain", make: text(repeat(4000, entryHead, "  x%d = f32[] negate(p)\n", "  ROOT r = f32[] negate(p)\n}\n")), valid: true},
	{name: "calls 1000 deep", make: text(callChain(1000)), valid: true},
	{name: "nested unnamed computations", make: text("HloModule m\nENTRY e {\n  p = f32[8] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply={\n    a = f32[] parameter(0)\n    b = f32[] parameter(1)\n    ROOT s = f32[] add(a, b)\n  }\n}\n"), valid: true},
	{name: "empty array", make: text("HloModule m\nENTRY e {\n  p = f32[0,4] parameter(0)\n  ROOT r = f32[0,4] negate(p)\n}\n"), valid: true},
	{name: "out-of-range constant", make: text("HloModule m\nENTRY e {\n  ROOT c = s8[] constant(300)\n}\n"), positioned: true},
	{name: "very deep operand nesting", make: text("HloModule m\nENTRY e {\n  ROOT r = f32[] " + nested(100000, "negate(", "f32[] parameter(0)", ")") + "\n}\n"), positioned: true},
	{name: "very deep tuple shape", make: text("HloModule m\nENTRY e {\n  ROOT p = " + nested(100000, "(", "f32[]", ")") + " parameter(0)\n}\n"), positioned: true},

	// Layouts out of range: what XLA's parser and its layout validation refuse.
	{name: "tile of size 0", make: text("HloModule m\nENTRY e {\n  ROOT p = f32[4]{0:T(0)} parameter(0)\n}\n"), positioned: true},
	{name: "tile of 99999999999999999999", make: text("HloModule m\nENTRY e {\n  ROOT p = f32[4]{0:T(99999999999999999999)} parameter(0)\n}\n"), positioned: true},
	{name: "negative element size", make: text("HloModule m\nENTRY e {\n  ROOT p = f32[4]{0:E(-5)} parameter(0)\n}\n"), positioned: true},
	{name: "signed index type", make: text("HloModule m\nENTRY e {\n  ROOT p = f32[4]{0:#(s32)} parameter(0)\n}\n"), positioned: true},
	{name: "physical shapes nested", make: text("HloModule m\nENTRY e {\n  ROOT p = f32[4]{0:" + nested(3000, "P(f32[4]{0:", "", "})") + "} parameter(0)\n}\n"), positioned: true},

	// Deep nesting in every construct that nests.
	{name: "deep backend config", make: text(entryHead + "  ROOT r = f32[] negate(p), backend_config=" + nested(100000, "{", "", "}") + "\n}\n"), positioned: true},
	{name: "deep sharding", make: text(entryHead + "  ROOT r = f32[] negate(p), sharding=" + nested(100000, "{", "replicated", "}") + "\n}\n"), positioned: true},
	{name: "deep original value", make: text(entryHead + "  ROOT r = f32[] negate(p), origin={" + nested(100000, "(", `{"x"}`, ")") + "}\n}\n"), positioned: true},
	{name: "deep buffer shape", make: text("HloModule m\nENTRY e {\n  ROOT p = " + nested(100000, "b(", "f32[4]", ")") + " parameter(0)\n}\n"), positioned: true},
	{name: "deep literal", make: text("HloModule m\nENTRY e {\n  ROOT c = f32[1] constant(" + nested(100000, "{", "1", "}") + ")\n}\n"), positioned: true},
	{name: "deep metadata", make: text(entryHead + "  ROOT r = f32[] negate(p), metadata=" + nested(100000, "{", "", "}") + "\n}\n"), positioned: true},

	// Enormous numbers in attributes.
	{name: "enormous iota dimension", make: text("HloModule m\nENTRY e {\n  ROOT r = s32[4] iota(), iota_dimension=99999999999999999999\n}\n"), positioned: true},
	{name: "enormous slice", make: text(entryHead + "  q = f32[4] broadcast(p), dimensions={}\n  ROOT r = f32[4] slice(q), slice={[0:9223372036854775807:9223372036854775807]}\n}\n"), positioned: true, printable: true},
	{name: "enormous padding", make: text(entryHead + "  q = f32[4] broadcast(p), dimensions={}\n  ROOT r = f32[4] pad(q, p), padding=9223372036854775807_9223372036854775807_9223372036854775807\n}\n"), positioned: true, printable: true},
	{name: "enormous tuple index", make: text("HloModule m\nENTRY e {\n  p = (f32[]) parameter(0)\n  ROOT r = f32[] get-tuple-element(p), index=9223372036854775807\n}\n"), positioned: true, printable: true},
	{name: "enormous parameter number", make: text("HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(9223372036854775807)\n}\n"), positioned: true},
	{name: "enormous integer constant", make: text("HloModule m\nENTRY e {\n  ROOT c = s64[] constant(99999999999999999999999999)\n}\n"), positioned: true},

	// Cycles through every kind of call: errors, whatever pass meets them.
	{name: "while body calls itself", make: text("HloModule m\nb {\n  p = (s32[]) parameter(0)\n  ROOT w = (s32[]) while(p), condition=c, body=b\n}\nc {\n  p = (s32[]) parameter(0)\n  ROOT t = pred[] constant(true)\n}\nENTRY e {\n  p = (s32[]) parameter(0)\n  ROOT w = (s32[]) while(p), condition=c, body=b\n}\n"), positioned: true, printable: true},
	{name: "fusion calls itself", make: text("HloModule m\nf {\n  p = f32[] parameter(0)\n  ROOT q = f32[] fusion(p), kind=kLoop, calls=f\n}\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT q = f32[] fusion(p), kind=kLoop, calls=f\n}\n"), positioned: true, printable: true},
	{name: "sort comparator sorts", make: text("HloModule m\nlt {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  v = f32[2] broadcast(a), dimensions={}\n  s = f32[2] sort(v), dimensions={0}, to_apply=lt\n  ROOT l = pred[] compare(a, b), direction=LT\n}\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT s = f32[4] sort(p), dimensions={0}, to_apply=lt\n}\n"), positioned: true, printable: true},
	{name: "async computation starts itself", make: text("HloModule m\na {\n  p = f32[4] parameter(0)\n  s = ((f32[4]), f32[4], u32[]) async-start(p), calls=a\n  ROOT d = f32[4] async-done(s)\n}\nENTRY e {\n  p = f32[4] parameter(0)\n  s = ((f32[4]), f32[4], u32[]) async-start(p), calls=a\n  ROOT d = f32[4] async-done(s)\n}\n"), positioned: true, printable: true},
	{name: "unreachable computations call each other", make: text("HloModule m\nx {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=y\n}\ny {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=x\n}\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n"), positioned: true, printable: true},
	{name: "control predecessors in a cycle", make: text(entryHead + "  a = f32[] negate(p), control-predecessors={b}\n  b = f32[] negate(p), control-predecessors={a}\n  ROOT r = f32[] add(a, b)\n}\n"), positioned: true, printable: true},
	{name: "control predecessor of itself", make: text(entryHead + "  a = f32[] negate(p), control-predecessors={a}\n  ROOT r = f32[] add(a, a)\n}\n"), positioned: true, printable: true},

	// Shapes that XLA's verifier refuses and that a run would otherwise give out under another type.
	{name: "async-done of another shape", make: text("HloModule m\nw {\n  p = f32[2,3] parameter(0)\n  ROOT t = f32[3,2] transpose(p), dimensions={1,0}\n}\nENTRY e {\n  p = f32[2,3] parameter(0)\n  s = ((f32[2,3]), f32[3,2], u32[]) async-start(p), calls=w\n  ROOT d = s32[3,2] async-done(s)\n}\n"), positioned: true, printable: true},
	{name: "map over another precision", make: text("HloModule m\nn {\n  x = f32[] parameter(0)\n  ROOT n = f32[] negate(x)\n}\nENTRY e {\n  p = f64[3] parameter(0)\n  ROOT r = f32[3] map(p), dimensions={0}, to_apply=n\n}\n"), positioned: true, printable: true},
	{name: "tuple sharding of an array", make: text(entryHead + "  ROOT r = f32[] negate(p), sharding={" + strings.Repeat("{replicated},", 100000) + "{replicated}}\n}\n"), positioned: true, printable: true},
}

// adversarialCommands are the command lines every case goes through; FILE stands for the input.
var adversarialCommands = [][]string{
	{"print", "FILE"},
	{"print", "--format=xla", "FILE"},
	{"verify", "FILE"},
	{"check", "FILE"},
	{"check", "--json", "FILE"},
	{"check", "--strict", "FILE"},
	{"diff", "FILE", "FILE"},
	{"fuse", "FILE"},
	{"fuse", "--json", "FILE"},
	{"run", "--random", "1", "FILE"},
}

func TestAdversarialInputs(t *testing.T) {
	for _, tc := range adversarialCases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.inputLimit > 0 {
				defer func(old int64) { inputLimit = old }(inputLimit)
				inputLimit = tc.inputLimit
			}
			path := tc.make(t, t.TempDir())
			at := positioned(path)
			for _, cmd := range adversarialCommands {
				args := make([]string, len(cmd))
				for i, a := range cmd {
					args[i] = strings.ReplaceAll(a, "FILE", path)
				}
				code, out, errs := runOctet(t, "", args...)
				what := strings.Join(cmd, " ")
				if code == 3 || strings.Contains(errs, "internal error") || strings.Contains(errs, "goroutine ") {
					t.Fatalf("%s: exit %d, an internal error:\n%s", what, code, errs)
				}
				if tc.valid || tc.printable && cmd[0] == "print" {
					want := 0
					if code != want {
						t.Errorf("%s: exit %d, want %d: %s", what, code, want, errs)
					}
					continue
				}
				if code != 1 {
					t.Errorf("%s: exit %d, want 1; stderr:\n%.500s", what, code, errs)
				}
				if !strings.Contains(errs, path) {
					t.Errorf("%s: the error does not name %s:\n%.500s", what, path, errs)
				}
				if tc.positioned && !at.MatchString(errs) {
					t.Errorf("%s: the error has no line and column:\n%.500s", what, errs)
				}
				if cmd[1] == "--json" && cmd[0] == "check" {
					var files []checkFile
					if err := json.Unmarshal([]byte(out), &files); err != nil || len(files) != 1 || files[0].Error == "" || files[0].File != path {
						t.Errorf("%s: the report does not list the file with an error (%v):\n%.500s", what, err, out)
					}
				}
			}
		})
	}
}

// TestPrintFolderWithPipe lists a dump folder that holds a named pipe beside a module: the pipe is skipped,
// not waited on.
func TestPrintFolderWithPipe(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "module_0001.pipe.txt"), 0o644); err != nil {
		t.Skipf("cannot make a named pipe: %v", err)
	}
	src, err := os.ReadFile(example("dense_fp8.before.hlo"))
	if err != nil {
		t.Fatal(err)
	}
	writeTemp(t, dir, "module_0002.jit_dense_fp8.before_optimizations.txt", string(src))
	code, out, errs := runOctet(t, "", "print", dir)
	if code != 0 || !strings.Contains(out, "1 HLO module files") || strings.Contains(out, "pipe") {
		t.Errorf("print DIR: exit %d:\n%s%s", code, out, errs)
	}
	// check walks a folder of per-pass dumps; the pipe is not one of them.
	if code, out, errs := runOctet(t, "", "check", dir); code != 0 || strings.Contains(out+errs, "pipe") {
		t.Errorf("check DIR: exit %d:\n%s%s", code, out, errs)
	}
	for _, args := range [][]string{{"verify", dir}, {"fuse", dir}} {
		if code, _, errs := runOctet(t, "", args...); code != 1 || !strings.Contains(errs, dir+": is a directory") {
			t.Errorf("%s DIR: exit %d: %s", args[0], code, errs)
		}
	}
}

// TestStdinInput reads every command's input from standard input.
func TestStdinInput(t *testing.T) {
	src, err := os.ReadFile(example("dense_fp8.xla-0.4.31.hlo"))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"print", "-"}, {"verify", "-"}, {"check", "-"}, {"fuse", "-"}, {"run", "--random", "1", "-"}, {"diff", "-", example("dense_fp8.xla-0.4.31.hlo")}} {
		if code, out, errs := runOctet(t, string(src), args...); code != 0 || out == "" {
			t.Errorf("%s: exit %d: %s", strings.Join(args, " "), code, errs)
		}
	}
	if code, _, errs := runOctet(t, "", "verify", "-"); code != 1 || !strings.Contains(errs, "<stdin>: no HLO module in <stdin>") {
		t.Errorf("verify of empty stdin: exit %d: %s", code, errs)
	}
}

// TestLinearWork checks that the work on inputs that stress a parser or a verifier (deep nesting, long
// chains, many computations) grows linearly: allocations for an input twice as large at most a little
// more than double.
func TestLinearWork(t *testing.T) {
	generators := map[string]func(n int) string{
		"tuple nesting": func(n int) string {
			return "HloModule m\nENTRY e {\n  ROOT p = " + nested(n/4, "(", "f32[]", ")") + " parameter(0)\n}\n"
		},
		"instruction chain": func(n int) string {
			return repeat(n, entryHead, "  x%d = f32[] negate(p)\n", "  ROOT r = f32[] negate(p)\n}\n")
		},
		"call chain": callChain,
		"reused names error": func(n int) string {
			return repeat(n, entryHead, "  x = f32[] negate(p)\n", "  ROOT r = f32[] negate(p)\n}\n")
		},
	}
	generators["reused names"] = reusedNames
	generators["control successors"] = func(n int) string {
		return repeat(n, entryHead+"  c = f32[] negate(p)\n", "  x%d = f32[] negate(p), control-predecessors={c}\n", "  ROOT r = f32[] negate(p), control-predecessors={x1}\n}\n")
	}
	generators["async pairs"] = func(n int) string {
		return repeat(n, "HloModule m\nw {\n  a = f32[4] parameter(0)\n  ROOT b = f32[4] negate(a)\n}\nENTRY e {\n  p = f32[4] parameter(0)\n",
			"  s%d = ((f32[4]), f32[4], u32[]) async-start(p), calls=w\n  d%d = f32[4] async-done(s%d)\n", "  ROOT r = f32[4] negate(p)\n}\n")
	}
	generators["tuple sharding"] = func(n int) string {
		elems := strings.TrimSuffix(strings.Repeat("f32[], ", n), ", ")
		shard := strings.TrimSuffix(strings.Repeat("{maximal device=0}, ", n), ", ")
		return "HloModule m\nENTRY e {\n  p = (" + elems + ") parameter(0), sharding={" + shard + "}\n  ROOT r = f32[] get-tuple-element(p), index=0\n}\n"
	}
	generators["operand nesting"] = func(n int) string {
		// Below the parser's nesting limit, so that the whole input is read.
		return "HloModule m\nENTRY e {\n  ROOT r = f32[] " + nested(n/4, "negate(", "f32[] parameter(0)", ")") + "\n}\n"
	}
	dir := t.TempDir()
	for name, gen := range generators {
		t.Run(name, func(t *testing.T) {
			const n = 1000
			var allocs [2]float64
			for i, size := range []int{n, 2 * n} {
				path := writeTemp(t, dir, fmt.Sprintf("%s-%d.hlo", strings.ReplaceAll(name, " ", "_"), size), gen(size))
				if code, _, errs := runOctet(t, "", "check", path); code != 0 && !strings.Contains(name, "error") {
					t.Fatalf("check of n=%d: exit %d: %.300s", size, code, errs)
				}
				allocs[i] = testing.AllocsPerRun(2, func() { runOctet(t, "", "check", path) })
			}
			if ratio := allocs[1] / allocs[0]; ratio > 2.5 {
				t.Errorf("%.0f allocations for n=%d, %.0f for 2n: %.2fx, not linear", allocs[0], n, allocs[1], ratio)
			}
		})
	}
}

// TestOutputTargets writes "run -o" results to every kind of target: a regular file is replaced keeping its
// permissions, a symbolic link is written through, anything else is refused and left as it was, and no
// temporary file is left behind.
func TestOutputTargets(t *testing.T) {
	module := example("relu_amax.before.hlo")
	dir := t.TempDir()
	runTo := func(target string) (int, string) {
		code, _, errs := runOctet(t, "", "run", "--random", "1", "-o", target, module)
		return code, errs
	}
	isNpz := func(path string) bool {
		b, err := os.ReadFile(path)
		return err == nil && bytes.HasPrefix(b, []byte("PK\x03\x04"))
	}

	// A new file, and an existing one whose mode stays.
	fresh := filepath.Join(dir, "fresh.npz")
	if code, errs := runTo(fresh); code != 0 || !isNpz(fresh) {
		t.Errorf("new file: exit %d: %s", code, errs)
	}
	kept := filepath.Join(dir, "kept.npz")
	os.WriteFile(kept, []byte("old"), 0o600)
	os.Chmod(kept, 0o640)
	if code, errs := runTo(kept); code != 0 || !isNpz(kept) {
		t.Errorf("existing file: exit %d: %s", code, errs)
	}
	if fi, err := os.Stat(kept); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("existing file: mode %v, want -rw-r-----", fi.Mode())
	}

	// A symbolic link (and a dangling one) is written through, and stays a link.
	target := filepath.Join(dir, "target.npz")
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "link.npz")
	os.Symlink("target.npz", link)
	dangling := filepath.Join(dir, "dangling.npz")
	os.Symlink("made.npz", dangling)
	for _, l := range []string{link, dangling} {
		if code, errs := runTo(l); code != 0 {
			t.Errorf("symlink %s: exit %d: %s", l, code, errs)
		}
		if fi, err := os.Lstat(l); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symbolic link", l)
		}
	}
	if !isNpz(target) || !isNpz(filepath.Join(dir, "made.npz")) {
		t.Errorf("the files the links name were not written")
	}

	// Anything else is refused by name and left alone.
	fifo := filepath.Join(dir, "pipe.npz")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("cannot make a named pipe: %v", err)
	}
	fifoLink := filepath.Join(dir, "pipe-link.npz")
	os.Symlink(fifo, fifoLink)
	folder := filepath.Join(dir, "folder.npz")
	os.Mkdir(folder, 0o755)
	for _, tc := range []struct{ path, kind string }{{fifo, "a named pipe"}, {fifoLink, "a named pipe"}, {folder, "a directory"}} {
		code, errs := runTo(tc.path)
		if code != 1 || !strings.Contains(errs, tc.path+": is "+tc.kind+", not a regular file: not replacing it") {
			t.Errorf("%s: exit %d: %s", tc.path, code, errs)
		}
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the named pipe was replaced")
	}
	if fi, err := os.Lstat(fifoLink); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link to the named pipe was replaced")
	}
	if fi, err := os.Stat(folder); err != nil || !fi.IsDir() {
		t.Errorf("the folder was replaced")
	}

	// An interrupted write leaves neither the target nor a temporary file.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	stopped := filepath.Join(dir, "stopped.npz")
	err := writeFileAtomic(ctx, stopped, func(w io.Writer) error { _, err := w.Write([]byte("data")); return err })
	if err == nil || !strings.Contains(err.Error(), stopped+": context canceled") {
		t.Errorf("cancelled write: %v", err)
	}
	if _, err := os.Lstat(stopped); err == nil {
		t.Errorf("a cancelled write made %s", stopped)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*.tmp*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

// TestFailedOutput checks how a failed write to standard output ends: a closed pipe quietly, any other
// failure with exit status 1 and a message.
func TestFailedOutput(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code int
		msg  string
	}{
		{syscall.EPIPE, 0, ""},
		{syscall.ENOSPC, 1, "octet: writing the output: no space left on device\n"},
	} {
		var errb bytes.Buffer
		code := run(context.Background(), []string{"print", example("dense_fp8.before.hlo")}, strings.NewReader(""), failingWriter{tc.err}, &errb)
		if code != tc.code || errb.String() != tc.msg {
			t.Errorf("write error %v: exit %d, stderr %q; want %d, %q", tc.err, code, errb.String(), tc.code, tc.msg)
		}
	}
}

type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }

// TestInternalError checks that a panic ends the program with exit status 3, the message and the stack.
func TestInternalError(t *testing.T) {
	register(&command{Name: "panic-for-test", Run: func(*invocation, []string) error { panic("a bug") }})
	defer delete(commands, "panic-for-test")
	code, _, errs := runOctet(t, "", "panic-for-test")
	if code != 3 || !strings.HasPrefix(errs, "octet: internal error: a bug\n") || !strings.Contains(errs, "goroutine ") {
		t.Errorf("exit %d, stderr:\n%s", code, errs)
	}
}

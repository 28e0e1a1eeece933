package parser

import (
	"go/token"
	"os"
	"path/filepath"
	"testing"

	"octet/hlo"
	"octet/hlo/printer"
	"octet/internal/shared"
)

// FuzzParse feeds arbitrary bytes to the parser: it must never panic (ParseFile lets a panic through, and
// the fuzzer reports it), and what it accepts must hold together.
func FuzzParse(f *testing.F) {
	f.Add([]byte(addModule))
	f.Add([]byte("ENTRY e {\n  p = (f32[2], s32[]) parameter(0)\n  ROOT r = f32[2] negate(f32[2] %p#0)\n}\n"))
	f.Add([]byte("HloModule m\nc {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\nENTRY e {\n  p = f32[8]{0:T(8)S(1)} parameter(0), sharding={devices=[2]0,1}\n  z = f32[] constant(0)\n  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=c, metadata={op_name=\"r\"}\n}\n"))
	// Constructs XLA writes that hand-made seeds would not reach soon: a signature touching its body,
	// asynchronous pairs, layouts with fields, shardings with iota tile assignments, control edges.
	f.Add([]byte("HloModule m, is_scheduled=true\nw {\n  p = f32[2,3]{1,0:T(8,128)E(4)S(1)} parameter(0)\n  ROOT t = f32[3,2]{0,1} transpose(p), dimensions={1,0}\n}, execution_thread=\"x\"\nENTRY e (p: f32[2,3]) -> f32[3,2]{\n  p = f32[2,3] parameter(0), sharding={devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}\n  s = ((f32[2,3]), f32[3,2], s32[]) async-start(p), calls=w\n  d = f32[3,2] async-done(s), control-predecessors={p}\n  ROOT c = f32[3,2] custom-call(d), custom_call_target=\"x\", backend_config={a:[{b:1}]}, literal=s32[2]{0} {1, 2}\n}\n"))
	// Iota replica groups, one of them no array of devices (printing it expanded made a slice of negative
	// length).
	f.Add([]byte("HloModule m\na {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\nENTRY e {\n  p = f32[4] parameter(0)\n  r = f32[4] all-reduce(p), replica_groups=[2,2]<=[2,2]T(1,0), to_apply=a\n  ROOT q = f32[4] all-reduce(r), replica_groups=[-2,-3]<=[6], to_apply=a\n}\n"))
	// Lone carriage returns for line ends, a comment ending at one, metadata over two lines, and header
	// tables: one over several lines as XLA writes it, one as the readable style quotes it.
	f.Add([]byte("HloModule m, origin_recovery_table={\r  {\"c\"} : {\"d\"}\r}\r,\rdebug_attributes=\"{\\n  {\\\"c\\\"}:({log_mode=default})\\n}\"\rENTRY e { // c\r  p = f32[] parameter(0), metadata={op_name=\"caf\u00e9\"\r source_line=1}\r  ROOT n = f32[] negate(p)\r}\r// -----\rENTRY f {\r  ROOT q = s32[] constant(1)\r}"))
	if dir := shared.Find(); dir != "" {
		// A few real files as seeds.
		for _, name := range []string{"bf16_dequant.xla-0.4.32.optimized.hlo", "fp8_matmul.compiled.hlo", "f32_relu_amax.before.hlo"} {
			if src, err := os.ReadFile(filepath.Join(dir, "examples", name)); err == nil {
				f.Add(src)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		// A parse that does not end is the fuzzing engine's to catch (a worker that stops answering fails
		// the run), and go test's -timeout catches it on the seeds. What is checked here is that the work
		// stays linear in the input: the parser makes at most parseAllocsPerByte allocations a byte (it
		// makes about one; a phase quadratic in the input makes far more on all but tiny inputs).
		mods, err := ParseFile(token.NewFileSet(), "fuzz.hlo", src)
		n := testing.AllocsPerRun(1, func() { ParseFile(token.NewFileSet(), "fuzz.hlo", src) })
		if n > float64(parseAllocsPerByte*len(src)+parseAllocsBase) {
			t.Fatalf("parsing %d bytes made %.0f allocations, more than %d a byte: %q", len(src), n, parseAllocsPerByte, src)
		}
		if err != nil {
			return
		}
		cfg := printer.ConfigFor(printer.StyleXLA)
		cfg.PrintLargeConstants = true
		for _, m := range mods {
			checkInvariants(t, m)
			// What parses must print, and the printed text must parse and print the same.
			first := printer.Sprint(m, cfg)
			m2, err := ParseString("printed.hlo", first)
			if err != nil {
				t.Fatalf("printed module does not parse: %v\n%s", err, first)
			}
			if second := printer.Sprint(m2, cfg); second != first {
				t.Fatalf("printing is not stable:\n%s\n---\n%s", first, second)
			}
			// The options that expand what the text abbreviates must print too.
			full := cfg
			full.PrintFullReplicaGroupList = true
			printer.Sprint(m, full)
		}
	})
}

// The allocations a parse may make: parseAllocsPerByte for each byte of input, and parseAllocsBase more.
// The parser makes at most about one a byte on the HLO corpus and on inputs made of one token repeated.
const (
	parseAllocsPerByte = 16
	parseAllocsBase    = 4096
)

// checkInvariants checks what every parsed module must satisfy whether or not it verifies.
func checkInvariants(t *testing.T, m *hlo.Module) {
	t.Helper()
	if m.Entry == nil {
		t.Fatalf("module %s has no entry", m.Name)
	}
	for _, c := range m.Computations {
		if c.Root == nil || c.Root.Parent != c {
			t.Fatalf("computation %s: bad root", c.Name)
		}
		for _, in := range c.Instructions {
			for _, o := range in.Operands() {
				if o == nil || o.Parent != c {
					t.Fatalf("%s: operand outside the computation", in.Name)
				}
				found := false
				for _, u := range o.Users() {
					found = found || u == in
				}
				if !found {
					t.Fatalf("%s is not among the users of %s", in.Name, o.Name)
				}
			}
			for _, callee := range in.Called() {
				if callee == nil || callee.Module != m {
					t.Fatalf("%s calls a computation outside the module", in.Name)
				}
			}
		}
	}
}

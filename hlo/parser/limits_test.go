package parser

import (
	"fmt"
	"go/token"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"octet/hlo"
)

// TestNestingLimit: input nested past maxNesting gives one positioned error, whatever the construct, and
// does not exhaust the stack (a million levels).
func TestNestingLimit(t *testing.T) {
	const deep = 1_000_000
	open := func(s string, n int) string { return strings.Repeat(s, n) }
	for _, tc := range []struct {
		name string
		src  string
		// line and column of the opener one level past the limit
		line, col int
	}{
		{"tuple shape", "ENTRY e {\n  ROOT p = " + open("(", deep) + "f32[]" + open(")", deep) + " parameter(0)\n}\n", 2, 12 + maxNesting},
		{"operand list", "ENTRY e {\n  a = f32[] parameter(0)\n  ROOT n = f32[] negate(" + open("(", deep) + "\n}\n", 3, 25 + maxNesting},
		{"buffer shape", "ENTRY e {\n  ROOT p = " + open("b(", deep) + "f32[]" + open(")", deep) + " parameter(0)\n}\n", 2, 12 + 2*maxNesting},
		{"nested instructions", "ENTRY e {\n  a = f32[] parameter(0)\n  ROOT n = f32[] " + open("negate(", deep) + "a" + open(")", deep) + "\n}\n",
			3, 18 + len("negate(")*(maxNesting+1)},
		{"physical shapes in layouts", "ENTRY e {\n  ROOT p = " + open("f32[1]{0:P(", deep/10) + "f32[]" + open(")}", deep/10) + " parameter(0)\n}\n",
			2, 12 + len("f32[1]{0:P(")*maxNesting + len("f32[1]{0:")},
		{"attribute braces", "ENTRY e {\n  ROOT p = f32[] parameter(0), foo=" + open("{", deep) + open("}", deep) + "\n}\n", 2, 36 + maxNesting},
		{"sharding", "ENTRY e {\n  ROOT p = f32[] parameter(0), sharding=" + open("{", deep) + "replicated" + open("}", deep) + "\n}\n",
			2, 41 + maxNesting},
		{"inline computations", inlineComputations(2 * maxNesting), 2 + 2*maxNesting + 1, 36},
	} {
		t.Run(tc.name, func(t *testing.T) {
			list := parseErrors(t, tc.src)
			want := fmt.Sprintf("op.hlo:%d:%d: nesting deeper than %d", tc.line, tc.col, maxNesting)
			if len(list) != 1 || list[0].Error() != want {
				t.Errorf("errors %v; want only %q", list, want)
			}
		})
	}
}

// TestNestingWithinLimit: valid input nested almost to the limit parses.
func TestNestingWithinLimit(t *testing.T) {
	n := maxNesting - 10
	for name, src := range map[string]string{
		"nested instructions": "ENTRY e {\n  a = f32[] parameter(0)\n  ROOT n = f32[] " + strings.Repeat("negate(", n) + "a" + strings.Repeat(")", n) + "\n}\n",
		"inline computations": inlineComputations(n),
		"tuple shape":         "ENTRY e {\n  ROOT p = " + strings.Repeat("(", n) + "f32[]" + strings.Repeat(")", n) + " parameter(0)\n}\n",
	} {
		t.Run(name, func(t *testing.T) {
			m, err := ParseString("deep.hlo", src)
			if err != nil {
				t.Fatal(err)
			}
			if name == "inline computations" && len(m.Computations) != n+2 {
				t.Errorf("%d computations, want %d", len(m.Computations), n+2)
			}
		})
	}
}

// inlineComputations returns a module whose entry calls a computation written in place, which calls one
// written in place, and so on n times: line 3+2i opens the computation at depth i+1 at column 36.
func inlineComputations(n int) string {
	var b strings.Builder
	b.WriteString("ENTRY e {\n  a = f32[] parameter(0)\n  ROOT c = f32[] call(a), to_apply=")
	for range n {
		b.WriteString("{\n  a = f32[] parameter(0)\n  ROOT c = f32[] call(a), to_apply=")
	}
	b.WriteString("{\n  a = f32[] parameter(0)\n  ROOT c = f32[] negate(a)\n}")
	b.WriteString(strings.Repeat("\n}", n))
	b.WriteString("\n}\n")
	return b.String()
}

// allocated returns the bytes one parse of src allocates, after checking that it parses.
func allocated(t *testing.T, src string) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := ParseFile(token.NewFileSet(), "big.hlo", []byte(src))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	return after.TotalAlloc - before.TotalAlloc
}

// TestLinearAllocation: inputs that used to take time and memory growing with the square of their size
// (names made unique by searching for a free suffix from the start, the name tables of nested computations
// sized by the rest of the text) allocate in proportion to their size.
func TestLinearAllocation(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		gen  func(n int) string
	}{
		{"computations reusing names", 1000, reusedNames},
		{"nested inline computations", (maxNesting - 100) / 2, inlineComputations},
		{"inline computations in a row", 2000, func(n int) string {
			var b strings.Builder
			b.WriteString("ENTRY e {\n  a = f32[] parameter(0)\n")
			prev := "a"
			for i := range n {
				fmt.Fprintf(&b, "  c%d = f32[] call(%s), to_apply={\n    a = f32[] parameter(0)\n    ROOT c = f32[] negate(a)\n  }\n", i, prev)
				prev = fmt.Sprintf("c%d", i)
			}
			b.WriteString("}\n")
			return b.String()
		}},
		{"anonymous instructions", 5000, func(n int) string {
			var b strings.Builder
			b.WriteString("ENTRY e {\n  a = f32[] parameter(0)\n")
			for i := range n {
				fmt.Fprintf(&b, "  c%d = f32[] add(a, negate(a))\n", i)
			}
			b.WriteString("}\n")
			return b.String()
		}},
		{"compact get-tuple-elements", 2000, func(n int) string {
			var b strings.Builder
			b.WriteString("ENTRY e {\n")
			for i := range n {
				fmt.Fprintf(&b, "  p%d = ((f32[], f32[]), f32[]) parameter(%d)\n  n%d = f32[] negate(f32[] %%p%d#0#1)\n", i, i, i, i)
			}
			b.WriteString("}\n")
			return b.String()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			small, large := tc.gen(tc.n), tc.gen(2*tc.n)
			a1, a2 := allocated(t, small), allocated(t, large)
			if ratio := float64(a2) / float64(a1); ratio > 2.5 {
				t.Errorf("%d bytes parse with %d bytes allocated, %d bytes with %d: %.1f times as much for twice the input",
					len(small), a1, len(large), a2, ratio)
			}
		})
	}
}

// reusedNames returns a module of n computations that all name their instructions alike.
func reusedNames(n int) string {
	var b strings.Builder
	b.WriteString("HloModule reused\n\n")
	for i := range n {
		fmt.Fprintf(&b, "c%d {\n  a = f32[] parameter(0)\n  b = f32[] negate(a)\n  b.1 = f32[] negate(b)\n  ROOT c = f32[] negate(b.1)\n}\n\n", i)
	}
	b.WriteString("ENTRY e {\n  a = f32[] parameter(0)\n  ROOT c = f32[] call(a), to_apply=c0\n}\n")
	return b.String()
}

// TestReusedNames: a module of 4,000 computations that reuse their instruction names parses, with every
// name unique in the module and made as XLA makes it.
func TestReusedNames(t *testing.T) {
	const n = 4000
	m, err := ParseString("reused.hlo", reusedNames(n))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if seen[in.Name] {
				t.Fatalf("%s is not unique", in.Name)
			}
			seen[in.Name] = true
		}
	}
	// c0 keeps its names; c1 takes the first free suffixes: b -> b.2 (b.1 is c0's), b.1 -> b.3.
	var got []string
	for _, in := range m.Computations[1].Instructions {
		got = append(got, in.Name)
	}
	if want := "a.1 b.2 b.3 c.1"; strings.Join(got, " ") != want {
		t.Errorf("names of c1: %q, want %q", strings.Join(got, " "), want)
	}
	var last []string
	for _, in := range m.Entry.Instructions {
		last = append(last, in.Name)
	}
	if want := fmt.Sprintf("a.%d c.%d", n, n); strings.Join(last, " ") != want {
		t.Errorf("names of the entry: %q, want %q", strings.Join(last, " "), want)
	}
}

// TestShardingTuples: the elements of tuple shardings are found at every level, nested ones included.
func TestShardingTuples(t *testing.T) {
	s := decodeSharding("{ {replicated}, {maximal device=1}, {devices=[2,1]0,1 metadata={op_name=\"x\"}}, {{manual}, {device=3}} }")
	if len(s.Tuple) != 4 {
		t.Fatalf("%d elements, want 4: %+v", len(s.Tuple), s.Tuple)
	}
	if !s.Tuple[0].Replicated || s.Tuple[0].Text != "{replicated}" {
		t.Errorf("element 0: %+v", s.Tuple[0])
	}
	if s.Tuple[1].Maximal != 1 {
		t.Errorf("element 1: %+v", s.Tuple[1])
	}
	if e := s.Tuple[2]; len(e.TileDims) != 2 || len(e.Devices) != 2 || e.Devices[1] != 1 {
		t.Errorf("element 2: %+v", e)
	}
	if e := s.Tuple[3]; len(e.Tuple) != 2 || !e.Tuple[0].Manual || e.Tuple[1].Maximal != 3 {
		t.Errorf("element 3: %+v", e)
	}

	const n = maxNesting - 10
	src := "ENTRY e {\n  ROOT p = f32[] parameter(0), sharding=" + strings.Repeat("{", n) + "replicated" + strings.Repeat("}", n) + "\n}\n"
	m, err := ParseString("sharding.hlo", src)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := m.Entry.Root.Attr("sharding").(*hlo.Sharding)
	for range n - 1 {
		if d == nil || len(d.Tuple) != 1 {
			t.Fatalf("tuple sharding lost a level: %+v", d)
		}
		d = &d.Tuple[0]
	}
	if !d.Replicated {
		t.Errorf("innermost sharding: %+v", d)
	}
}

// TestLineStarts: the line table is the one go/token makes.
func TestLineStarts(t *testing.T) {
	for _, src := range []string{"", "\n", "a", "ab\nc\n", "ab\nc", "\n\n\nx\n\n", strings.Repeat("line\n", 1000)} {
		want := token.NewFileSet().AddFile("f", -1, len(src))
		want.SetLinesForContent([]byte(src))
		got := token.NewFileSet().AddFile("f", -1, len(src))
		if !got.SetLines(lineStarts([]byte(src))) {
			t.Fatalf("%q: SetLines refuses the table", src)
		}
		if fmt.Sprint(got.Lines()) != fmt.Sprint(want.Lines()) {
			t.Errorf("%q: lines %v, want %v", src, got.Lines(), want.Lines())
		}
	}
}

// TestDecimal: decimal reads what strconv.ParseInt reads in base 10, and refuses what it refuses.
func TestDecimal(t *testing.T) {
	for _, s := range []string{"0", "7", "-7", "+7", "123456789012345678", "-123456789012345678", "9223372036854775807",
		"-9223372036854775808", "9223372036854775808", "99999999999999999999", "", "-", "+", "1a", "a1", "--1", "1_000", "007"} {
		want, err := strconv.ParseInt(s, 10, 64)
		got, ok := decimal(s)
		if ok != (err == nil) || ok && got != want {
			t.Errorf("decimal(%q) = %d, %v; strconv gives %d, %v", s, got, ok, want, err)
		}
	}
}

// TestCanonicalInt: integers are kept as numbers only when printing them gives the text back.
func TestCanonicalInt(t *testing.T) {
	for _, s := range []string{"0", "7", "-7", "+7", "07", "-0", "00", "-07", "10", "-9223372036854775808"} {
		n, ok := decimal(s)
		if !ok {
			t.Fatalf("decimal(%q) fails", s)
		}
		if got, want := canonicalInt(s), strconv.FormatInt(n, 10) == s; got != want {
			t.Errorf("canonicalInt(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestForwardReferenceChain: a computation whose every instruction uses the next one is put in operand
// order, however long the chain.
func TestForwardReferenceChain(t *testing.T) {
	const n = 100_000
	var b strings.Builder
	b.WriteString("ENTRY e {\n")
	for i := range n - 1 {
		fmt.Fprintf(&b, "  a%d = f32[] negate(a%d)\n", i, i+1)
	}
	fmt.Fprintf(&b, "  a%d = f32[] parameter(0)\n}\n", n-1)
	m, err := ParseString("chain.hlo", b.String())
	if err != nil {
		t.Fatal(err)
	}
	insts := m.Entry.Instructions
	if len(insts) != n || insts[0].Name != fmt.Sprintf("a%d", n-1) || insts[n-1].Name != "a0" {
		t.Fatalf("%d instructions, first %s, last %s", len(insts), insts[0].Name, insts[len(insts)-1].Name)
	}
	for i := 1; i < n; i++ {
		if insts[i].Operand(0) != insts[i-1] {
			t.Fatalf("%s comes before its operand", insts[i].Name)
		}
	}
	// A cycle through the chain is found.
	src := strings.Replace(b.String(), "parameter(0)", "negate(a0)", 1)
	list := parseErrors(t, src)
	if !strings.Contains(list[0].Error(), "depends on itself through its operands") {
		t.Errorf("errors %v", list)
	}
}

// TestStringEnd: a string ends at the first quote that no backslash escapes.
func TestStringEnd(t *testing.T) {
	for src, want := range map[string]int{
		`"" x`:          2,
		`"abc" x`:       5,
		`"a\"b" x`:      6,
		`"a\\" x`:       5,
		`"a\\\"b" x`:    8,
		`"\\\\" x`:      6,
		`"a\nb\t" x`:    8,
		`"unterminated`: -1,
		`"ends in \`:    -1,
		`"ends in \"`:   -1,
	} {
		p := &parser{src: src, end: len(src)}
		got, ok := p.stringEnd(0)
		if !ok {
			got = -1
		}
		if got != want {
			t.Errorf("stringEnd(%s) = %d, want %d", src, got, want)
		}
	}
	// Long runs of escapes, of quotes and of other bytes.
	long := `"` + strings.Repeat(`\"`, 100_000) + strings.Repeat(`\n`, 100_000) + `"`
	p := &parser{src: long, end: len(long)}
	if got, ok := p.stringEnd(0); !ok || got != len(long) {
		t.Errorf("long string ends at %d, %v; want %d", got, ok, len(long))
	}
}

// TestManyModulesLinear: a file of many modules allocates in proportion to its size (each module's tables
// are sized by that module, not by the file), and modestly (the modules share the blocks their
// instructions are carved from).
func TestManyModulesLinear(t *testing.T) {
	gen := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "HloModule m%d\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n// -----\n", i)
		}
		return b.String()
	}
	small, large := gen(2000), gen(4000)
	a1, a2 := allocated(t, small), allocated(t, large)
	if ratio := float64(a2) / float64(a1); ratio > 2.5 {
		t.Errorf("%d bytes parse with %d bytes allocated, %d bytes with %d: %.1f times as much for twice the input",
			len(small), a1, len(large), a2, ratio)
	}
	if perByte := a2 / uint64(len(large)); perByte > 100 {
		t.Errorf("%d bytes parse with %d bytes allocated, %d a byte", len(large), a2, perByte)
	}
}

// TestBroadcastLiterals: literals written as one value for a whole array ("f32[1000] constant(1)") take
// maxBroadcastBytes in all in a file, not each: a dozen of 1 GiB in a file of a few hundred bytes took 12
// GiB. The modules of a file share the bound.
func TestBroadcastLiterals(t *testing.T) {
	defer func(old int64) { maxBroadcastBytes = old }(maxBroadcastBytes)
	maxBroadcastBytes = 5000
	one := "ENTRY e {\n  a = f32[600] constant(1)\n  b = f32[600] constant(2)\n  ROOT t = (f32[600], f32[600]) tuple(a, b)\n}\n"
	if _, err := ParseString("ok.hlo", one); err != nil {
		t.Fatalf("two literals of 2400 bytes: %v", err)
	}
	for name, src := range map[string]string{
		"one module":  strings.Replace(one, "f32[600] constant(2)", "f32[600] constant(2)\n  c = f32[600] constant(3)", 1),
		"two modules": one + "// -----\n" + one,
	} {
		list := parseErrors(t, src)
		want := "op.hlo:4:25: a literal of shape f32[600] written as one value takes 2400 bytes: such literals may take 5000 bytes in all in a file, and 200 are left"
		if name == "two modules" {
			want = "op.hlo:8:25: a literal of shape f32[600] written as one value takes 2400 bytes: such literals may take 5000 bytes in all in a file, and 200 are left"
		}
		if len(list) == 0 || list[0].Error() != want {
			t.Errorf("%s: errors %v; want first %q", name, list, want)
		}
	}
}

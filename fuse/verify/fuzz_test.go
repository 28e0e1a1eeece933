package verify_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"octet/fuse"
	"octet/fuse/report"
	"octet/fuse/verify"
	"octet/hlo"
	"octet/hlo/parser"
	"octet/hlo/printer"
	"octet/interp"
)

// checkGenerated rewrites the module generate makes of data and checks what the rewrite promises: the
// rewritten module verifies and parses back from its text, and rewritten again fuses nothing more,
// Analyze decides as Rewrite does, and every
// rewrite checks (verify.Run: each fused GEMM within its bound, or bit for bit for a block-scaled one,
// and every other output the same bits) on the random inputs of seed and on each family of inputs.
func checkGenerated(t *testing.T, data []byte, seed uint64) {
	src, opts := generate(data)
	parse := func() *hlo.Module { return mustParse(t, "the generated module", src) }
	orig, fused := parse(), parse()
	analyzed := fuse.Analyze(parse()).Decisions // with the default options
	ds := fuse.Rewrite(fused, opts).Decisions
	if len(analyzed) != len(ds) {
		t.Fatalf("Analyze decides on %d dots, Rewrite on %d\n%s", len(analyzed), len(ds), src)
	}
	fusedAny := false
	for i, d := range ds {
		if d.Fused != analyzed[i].Fused && opts.Block == fuse.BlockScaledDot {
			t.Errorf("%%%s: Rewrite fused %v (%s), Analyze %v (%s)\n%s", d.Dot, d.Fused, d.Reason, analyzed[i].Fused, analyzed[i].Reason, src)
		}
		if !d.Fused && d.Reason == "" {
			t.Errorf("%%%s is not fused and has no reason\n%s", d.Dot, src)
		}
		fusedAny = fusedAny || d.Fused
	}
	text := printer.Sprint(fused, printer.ConfigFor(printer.StyleXLA))
	if err := hlo.Verify(fused); err != nil {
		t.Fatalf("the rewritten module does not verify: %v\n%s\nfrom\n%s", err, text, src)
	}
	back, err := parser.ParseString("rewritten.hlo", text)
	if err != nil {
		t.Fatalf("the rewritten module does not parse back: %v\n%s\nfrom\n%s", err, text, src)
	}
	if again := printer.Sprint(back, printer.ConfigFor(printer.StyleXLA)); again != text {
		t.Fatalf("the rewritten module prints otherwise once parsed back:\n%s\nthen\n%s", text, again)
	}
	// The rewrite reaches its fixed point at once: rewritten again, the module fuses nothing more.
	for _, d := range fuse.Rewrite(back, opts).Decisions {
		if d.Fused {
			t.Errorf("rewritten again, %%%s fuses (%s)\n%s\nrewritten\n%s", d.Dot, d.Target, src, text)
		}
	}
	checkReports(t, parse(), fused, ds, opts, src, true)
	checkFusionWrapped(t, parse(), src)
	checkCalled(t, parse(), src, opts, seed)
	if !fusedAny {
		return
	}
	mustCheck(t, orig, fused, ds, seed, 1, src, text)
}

// mustCheck runs verify.Run on the rewrite of orig into fused (printed as text, from src) and fails the
// test unless it checks, each fused GEMM compared evaluations times in the run on normal inputs.
func mustCheck(t *testing.T, orig, fused *hlo.Module, ds []*fuse.Decision, seed uint64, evaluations int64, src, text string) {
	t.Helper()
	r, err := verify.Run(orig, fused, ds, seed, interp.Options{Threads: 1})
	if err != nil {
		t.Fatalf("%v\n%s\nrewritten\n%s", err, src, text)
	}
	for _, g := range r.Runs[0].GEMMs {
		if g.Evaluations != evaluations {
			t.Errorf("%%%s is compared %d times, not %d\n%s", g.Dot, g.Evaluations, evaluations, text)
		}
	}
	if !r.OK {
		for _, run := range r.Runs {
			if !run.OK {
				t.Errorf("inputs %s: %d mismatches (%s)", run.Name, run.Mismatches, run.FirstMismatch)
				for _, g := range run.GEMMs {
					if g.Failures > 0 {
						t.Errorf("  %s: %d of %d elements outside the bound, worst %+v", g.Dot, g.Failures, g.Elements, g.Worst)
					}
				}
			}
		}
		t.Fatalf("the rewrite does not check:\n%s\nrewritten\n%s", src, text)
	}
}

// mustParse parses text (what names it) and checks that it verifies, or fails the test: the generator and
// the wrappings must write valid modules.
func mustParse(t *testing.T, what, text string) *hlo.Module {
	t.Helper()
	m, err := parser.ParseString("generated.hlo", text)
	if err != nil {
		t.Fatalf("%s does not parse: %v\n%s", what, err, text)
	}
	if err := hlo.Verify(m); err != nil {
		t.Fatalf("%s does not verify: %v\n%s", what, err, text)
	}
	return m
}

// FuzzRewriteVerifies rewrites generated FP8 and block-scaled GEMMs (generate_test.go) and checks each
// rewrite numerically against the module it came from, then the rewrite of the module in a loop's body
// (while_test.go), then the module read back from StableHLO (stablehlo_test.go) against the module.
func FuzzRewriteVerifies(f *testing.F) {
	for _, s := range generatedSeeds(64) {
		f.Add(s, uint64(len(s)))
	}
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		checkGenerated(t, data, seed)
		src, opts := generate(data)
		checkWhile(t, mustParse(t, "the generated module", src), src, opts, seed)
		checkStableHLO(t, data, seed)
	})
}

// TestGeneratedRewrites runs checkGenerated on modules drawn from a fixed stream: a few hundred of the
// generator's shapes on every test run, where the fuzz target explores further.
func TestGeneratedRewrites(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 60
	}
	fused := 0
	for i, s := range generatedSeeds(n) {
		src, opts := generate(s)
		m, err := parser.ParseString("generated.hlo", src)
		if err == nil {
			for _, d := range fuse.Rewrite(m, opts).Decisions {
				if d.Fused {
					fused++
				}
			}
		}
		if !t.Run("", func(t *testing.T) { checkGenerated(t, s, uint64(i)) }) {
			t.Logf("data %x", s)
		}
	}
	// The generator is meant to make rewrites: most dots of Hopper types with a plain dequantize fuse.
	if fused < n/4 {
		t.Errorf("only %d of %d generated modules have a fused dot", fused, n)
	}
}

// generatedSeeds returns n byte strings from a fixed stream.
func generatedSeeds(n int) [][]byte {
	r := rand.New(rand.NewPCG(25, 2026))
	out := make([][]byte, n)
	for i := range out {
		b := make([]byte, 40+r.IntN(80))
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		out[i] = b
	}
	return out
}

// checkReports checks what octet check and octet diff say of the rewrite: before it, each dot's report
// quotes the rewrite's decision; after it, each fused FP8 dot is a fused call, and the diff of the two
// reports gains exactly those, pairing each dot with its call (by dataflow, where asked), and loses
// nothing.
func checkReports(t *testing.T, orig, fused *hlo.Module, ds []*fuse.Decision, opts fuse.Options, src string, dataflow bool) {
	t.Helper()
	before, after := report.Check(orig), report.Check(fused)
	fusible := map[string]bool{}
	calls := map[string]string{} // dot -> call, for the FP8 calls
	for _, d := range ds {
		fusible[d.Dot] = d.Fused
		if d.Fused && d.Target == "__cublas$lt$matmul$f8" {
			calls[d.Dot] = d.Call
		}
	}
	for _, g := range before.GEMMs {
		if g.Kind == "dot" && (g.Fusible == nil || *g.Fusible != fusible[g.Name]) {
			t.Errorf("check before the rewrite: %%%s fusible %v, the rewrite fused it: %v\n%s", g.Name, g.Fusible, fusible[g.Name], src)
		}
		if f, ok := fusible[g.Name]; ok && g.Kind == "block-scaled" && opts.Block == fuse.BlockScaledDot && g.Octet.Fusible != f {
			t.Errorf("check before the rewrite: %%%s octet fuse %v (%s), the rewrite fused it: %v\n%s", g.Name, g.Octet.Fusible, g.Octet.Why, fusible[g.Name], src)
		}
	}
	if after.Fused < len(calls) {
		t.Errorf("check after the rewrite: %d fused, want at least %d\n%s", after.Fused, len(calls), src)
	}
	d := report.Diff(before, after)
	if len(d.Lost) != 0 || len(d.Removed) != 0 || len(d.Gained) < len(calls) {
		t.Errorf("diff: lost %d, removed %d, gained %d (the rewrite made %d calls)\n%s", len(d.Lost), len(d.Removed), len(d.Gained), len(calls), src)
	}
	for _, c := range d.Gained {
		if c.A != nil && c.B != nil && calls[c.A.Name] != "" && (c.B.Name != calls[c.A.Name] || dataflow && c.By != "dataflow") {
			t.Errorf("diff pairs %%%s with %%%s by %q, want %%%s by dataflow\n%s", c.A.Name, c.B.Name, c.By, calls[c.A.Name], src)
		}
	}
}

// wrapInFusion moves the first dot of the entry of m (written as src) into a GEMM fusion, as XLA's GEMM
// fusion pass leaves a dot it did not rewrite: a kCustom fusion (__triton_gemm) computing the dot and,
// unless split, every instruction of its operands' chains up to the entry's parameters, which become the
// fusion's. With split, each operand's chain is a kLoop fusion of its own that the GEMM fusion reads, as
// XLA computes a dequantize apart. It returns the new text and the dot's name, or "" when the entry has
// no dot.
func wrapInFusion(m *hlo.Module, src string, split bool) (string, string) {
	var dot *hlo.Instruction
	for _, x := range m.Entry.Instructions {
		if x.Opcode == hlo.OpDot {
			dot = x
			break
		}
	}
	if dot == nil {
		return "", ""
	}
	lines := map[string]string{} // an instruction's line in src
	for _, l := range strings.Split(src, "\n") {
		if name, _, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(l), "ROOT "), " = "); ok {
			lines[name] = l
		}
	}
	var comps []string
	// fusion writes a computation named cname computing root from the entry's instructions, its leaves
	// (the entry's parameters, and stop) its parameters, and returns the fusion's line in the entry.
	fusion := func(root *hlo.Instruction, cname, kind string, stop map[*hlo.Instruction]bool) string {
		in := map[*hlo.Instruction]bool{}
		var params []*hlo.Instruction
		var visit func(x *hlo.Instruction)
		visit = func(x *hlo.Instruction) {
			if in[x] {
				return
			}
			in[x] = true
			if x.Opcode == hlo.OpParameter || stop[x] {
				params = append(params, x)
				return
			}
			for _, o := range x.Operands() {
				visit(o)
			}
		}
		visit(root)
		var body, args []string
		for i, p := range params {
			body = append(body, fmt.Sprintf("  %s = %s parameter(%d)", p.Name, p.Shape, i))
			args = append(args, p.Name)
		}
		for _, x := range m.Entry.Instructions {
			if in[x] && x.Opcode != hlo.OpParameter && !stop[x] && x != root {
				body = append(body, lines[x.Name])
			}
		}
		body = append(body, strings.Replace(lines[root.Name], "  "+root.Name+" = ", "  ROOT "+root.Name+" = ", 1))
		comps = append(comps, cname+" {\n"+strings.Join(body, "\n")+"\n}\n")
		line := fmt.Sprintf("  %s = %s fusion(%s), kind=%s, calls=%s", root.Name, root.Shape, strings.Join(args, ", "), kind, cname)
		if kind == "kCustom" {
			line += `, backend_config={"fusion_backend_config":{"kind":"__triton_gemm"}}`
		}
		return line
	}
	out := src
	stop := map[*hlo.Instruction]bool{}
	if split {
		for i, o := range dot.Operands() {
			if o.Opcode != hlo.OpParameter && !stop[o] {
				out = strings.Replace(out, lines[o.Name], fusion(o, fmt.Sprintf("dequantize_%d", i), "kLoop", nil), 1)
				stop[o] = true
			}
		}
	}
	out = strings.Replace(out, lines[dot.Name], fusion(dot, "gemm_fusion_dot", "kCustom", stop), 1)
	out = strings.Replace(out, "ENTRY main {", strings.Join(comps, "\n")+"\nENTRY main {", 1)
	return out, dot.Name
}

// checkFusionWrapped checks what octet check says of the first dot of the module wrapped in a GEMM fusion
// (wrapInFusion), its operands' chains inside or split apart: a GEMM fusion, not fused, whose operands trace to the entry parameters the plain dot's
// do, and a diff of the two modules that pairs them and changes nothing.
func checkFusionWrapped(t *testing.T, m *hlo.Module, src string) {
	t.Helper()
	for _, split := range []bool{false, true} {
		checkWrapped(t, m, src, split)
	}
}

func checkWrapped(t *testing.T, m *hlo.Module, src string, split bool) {
	t.Helper()
	text, name := wrapInFusion(m, src, split)
	if name == "" {
		return
	}
	w := mustParse(t, "the wrapped module", text)
	plain, wrapped := report.Check(m), report.Check(w)
	find := func(r *report.Report) *report.GEMM {
		for _, g := range r.GEMMs {
			if g.Name == name || g.Dot == name {
				return g
			}
		}
		return nil
	}
	p, q := find(plain), find(wrapped)
	if p == nil || p.Kind != "dot" && p.Kind != "block-scaled" {
		return // not an FP8 or block-scaled GEMM
	}
	param := func(o *report.Operand) int64 {
		if o == nil {
			return -2
		}
		return o.Parameter
	}
	kind := "gemm-fusion"
	if p.Kind == "block-scaled" {
		kind = p.Kind // reported apart, in or out of a fusion
	}
	if q == nil || q.Kind != kind || q.Fused || param(q.A) != param(p.A) || param(q.B) != param(p.B) {
		t.Fatalf("the dot wrapped in a GEMM fusion is reported as %+v, the plain dot as %+v\n%s", q, p, text)
	}
	d := report.Diff(plain, wrapped)
	if len(d.Lost)+len(d.Gained)+len(d.Added)+len(d.Removed) != 0 || d.Ambiguous != 0 {
		t.Errorf("diff of the plain and the wrapped module: lost %d, gained %d, added %d, removed %d, ambiguous %d\n%s",
			len(d.Lost), len(d.Gained), len(d.Added), len(d.Removed), d.Ambiguous, text)
	}
}

// wrapInCall moves the entry of m (written as src) into a computation the new entry calls once, as a
// module before optimization calls a function JAX lowered apart.
func wrapInCall(m *hlo.Module, src string) string {
	var params, args []string
	for i, p := range m.Entry.Params {
		params = append(params, fmt.Sprintf("  arg%d = %s parameter(%d)", i, p.Shape, i))
		args = append(args, fmt.Sprintf("arg%d", i))
	}
	entry := fmt.Sprintf("ENTRY main {\n%s\n  ROOT result = %s call(%s), to_apply=body\n}\n",
		strings.Join(params, "\n"), m.Entry.Root.Shape, strings.Join(args, ", "))
	return strings.Replace(src, "ENTRY main {", "body {", 1) + "\n" + entry
}

// checkCalled checks the module with its entry called once (wrapInCall): octet check traces each dot's
// operands to the parameters it does in the plain module, and the rewrite of the called computation holds
// as checkRewrittenInside checks it, each fused GEMM compared once.
func checkCalled(t *testing.T, m *hlo.Module, src string, opts fuse.Options, seed uint64) {
	t.Helper()
	text := wrapInCall(m, src)
	parse := func() *hlo.Module { return mustParse(t, "the called module", text) }
	params := func(r *report.Report) map[string][2]int64 {
		out := map[string][2]int64{}
		for _, g := range r.GEMMs {
			name := g.Name
			if g.Dot != "" {
				name = g.Dot // the dot inside the call or fusion that holds it
			}
			if g.A != nil && g.B != nil {
				out[name] = [2]int64{g.A.Parameter, g.B.Parameter}
			}
		}
		return out
	}
	plain, called := params(report.Check(m)), params(report.Check(parse()))
	for name, p := range plain {
		if q, ok := called[name]; !ok || q != p {
			t.Errorf("%%%s's operands trace to parameters %v in the plain module, %v in the called one\n%s", name, p, called[name], text)
		}
	}
	checkRewrittenInside(t, "called module", text, opts, seed, 1)
}

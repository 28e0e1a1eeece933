package verify_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"octet/fuse"
	"octet/hlo"
	"octet/hlo/printer"
)

// wrapInWhile moves the entry of m (written as src) into the body of a while loop that runs it twice, as a
// scan over layers puts a layer: the loop's state holds the parameters, a counter and the outputs. The
// first narrow float parameter (an FP8 or FP4 operand, which negating keeps exact) is negated for the
// second iteration, so that the two compute different values and each must be compared with its own.
func wrapInWhile(m *hlo.Module, src string) string {
	e := m.Entry
	var outs []hlo.Shape
	if e.Root.Shape.IsTuple() {
		outs = e.Root.Shape.Tuple
	} else {
		outs = []hlo.Shape{e.Root.Shape}
	}
	var state []string
	for _, p := range e.Params {
		state = append(state, p.Shape.String())
	}
	state = append(state, "s32[]")
	for _, o := range outs {
		state = append(state, o.String())
	}
	st := "(" + strings.Join(state, ", ") + ")"
	n := len(e.Params)
	// The body: the entry's instructions with its parameters read from the state, its root's elements
	// written to it.
	var body []string
	body = append(body, "  state = "+st+" parameter(0)")
	for _, line := range strings.Split(src[strings.Index(src, "ENTRY main {")+len("ENTRY main {\\n")-1:], "\n") {
		line = strings.TrimRight(line, " ")
		switch {
		case line == "" || line == "}":
		case strings.Contains(line, " parameter("):
			var name, shape string
			var i int
			fmt.Sscanf(strings.TrimSpace(line), "%s = %s parameter(%d)", &name, &shape, &i)
			body = append(body, fmt.Sprintf("  %s = %s get-tuple-element(state), index=%d", name, shape, i))
		case strings.HasPrefix(strings.TrimSpace(line), "ROOT "):
			body = append(body, strings.Replace(line, "ROOT out", "result", 1))
		default:
			body = append(body, line)
		}
	}
	var next []string
	negated := false
	for _, p := range e.Params {
		if t := p.Shape.Elem; !negated && p.Shape.IsArray() && t.IsFloat() && t.BitWidth() <= 8 {
			body = append(body, fmt.Sprintf("  %s.next = %s negate(%s)", p.Name, p.Shape, p.Name))
			next = append(next, p.Name+".next")
			negated = true
			continue
		}
		next = append(next, p.Name)
	}
	body = append(body, fmt.Sprintf("  i = s32[] get-tuple-element(state), index=%d", n),
		"  one = s32[] constant(1)", "  i1 = s32[] add(i, one)")
	next = append(next, "i1")
	if e.Root.Shape.IsTuple() {
		for k, o := range outs {
			body = append(body, fmt.Sprintf("  r%d = %s get-tuple-element(result), index=%d", k, o, k))
			next = append(next, fmt.Sprintf("r%d", k))
		}
	} else {
		next = append(next, "result")
	}
	body = append(body, "  ROOT next = "+st+" tuple("+strings.Join(next, ", ")+")")
	cond := "cond {\n  cs = " + st + " parameter(0)\n" +
		fmt.Sprintf("  ci = s32[] get-tuple-element(cs), index=%d\n", n) +
		"  c1 = s32[] constant(2)\n  ROOT lt = pred[] compare(ci, c1), direction=LT\n}\n"
	var entry, init []string
	for i, p := range e.Params {
		entry = append(entry, fmt.Sprintf("  arg%d = %s parameter(%d)", i, p.Shape, i))
		init = append(init, fmt.Sprintf("arg%d", i))
	}
	entry = append(entry, "  zero = s32[] constant(0)")
	init = append(init, "zero")
	for k, o := range outs {
		entry = append(entry, fmt.Sprintf("  z%d = %s[] constant(0)", k, strings.Split(o.String(), "[")[0]),
			fmt.Sprintf("  o%d = %s broadcast(z%d), dimensions={}", k, o, k))
		init = append(init, fmt.Sprintf("o%d", k))
	}
	entry = append(entry, "  init = "+st+" tuple("+strings.Join(init, ", ")+")",
		"  ROOT loop = "+st+" while(init), condition=cond, body=body")
	head := src[:strings.Index(src, "ENTRY main {")]
	return head + "body {\n" + strings.Join(body, "\n") + "\n}\n\n" + cond + "\nENTRY main {\n" + strings.Join(entry, "\n") + "\n}\n"
}

// checkWhile checks the module with its entry in a while loop's body (wrapInWhile) as
// checkRewrittenInside does, each fused GEMM compared at each of the loop's two iterations.
func checkWhile(t *testing.T, m *hlo.Module, src string, opts fuse.Options, seed uint64) {
	t.Helper()
	checkRewrittenInside(t, "looped module", wrapInWhile(m, src), opts, seed, 2)
}

// checkRewrittenInside checks the rewrite of text, a generated module wrapped in a call or a loop (what
// names it): the rewrite verifies, parses back and reaches its fixed point, octet check quotes it and
// octet diff pairs it as in the plain module, and verify.Run checks it (mustCheck), each fused GEMM
// compared evaluations times.
func checkRewrittenInside(t *testing.T, what, text string, opts fuse.Options, seed uint64, evaluations int64) {
	t.Helper()
	parse := func() *hlo.Module { return mustParse(t, "the "+what, text) }
	fused := parse()
	ds := fuse.Rewrite(fused, opts).Decisions
	out := printer.Sprint(fused, printer.ConfigFor(printer.StyleXLA))
	if err := hlo.Verify(fused); err != nil {
		t.Fatalf("the rewritten %s does not verify: %v\n%s", what, err, out)
	}
	back := mustParse(t, "the rewritten "+what, out)
	for _, d := range fuse.Rewrite(back, opts).Decisions {
		if d.Fused {
			t.Errorf("the %s rewritten again: %%%s fuses\n%s", what, d.Dot, out)
		}
	}
	// A GEMM reading another's result inside the call or loop may pair by shapes: the first one's holder
	// is the call or loop, not its dot.
	checkReports(t, parse(), fused, ds, opts, text, false)
	if slices.ContainsFunc(ds, func(d *fuse.Decision) bool { return d.Fused }) {
		mustCheck(t, parse(), fused, ds, seed, evaluations, text, out)
	}
}

// TestGeneratedWhile runs checkWhile on the modules TestGeneratedRewrites draws.
func TestGeneratedWhile(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 60
	}
	for i, s := range generatedSeeds(n) {
		src, opts := generate(s)
		m := mustParse(t, "the generated module", src)
		if !t.Run("", func(t *testing.T) { checkWhile(t, m, src, opts, uint64(i)) }) {
			t.Logf("%d: data %x", i, s)
		}
	}
}

package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"octet/cublas"
	"octet/dtype"
	"octet/fuse"
	"octet/fuse/verify"
	"octet/hlo"
	"octet/hlo/parser"
	"octet/internal/shared"
)

// fuseResult is what "octet fuse --json --verify" prints, decoded.
type fuseResult struct {
	Module string `json:"module"`
	GEMMs  []struct {
		Dot      string   `json:"dot"`
		Fused    bool     `json:"fused"`
		Target   string   `json:"target"`
		Epilogue string   `json:"epilogue"`
		Damax    bool     `json:"damax"`
		DType    string   `json:"d_type"`
		DotType  string   `json:"dot_type"`
		K        int64    `json:"k"`
		Alpha    float64  `json:"alpha"`
		Beta     float64  `json:"beta"`
		Reason   string   `json:"reason"`
		Absorbed []string `json:"absorbed"`
		Explain  []string `json:"explain"`
	} `json:"gemms"`
	Verify *struct {
		Elements    int64   `json:"elements"`
		BitMatches  int64   `json:"bit_matches"`
		MatchRate   float64 `json:"match_rate"`
		MaxAbsDiff  float64 `json:"max_abs_diff"`
		NaNMismatch int64   `json:"nan_mismatches"`
		Summary     string  `json:"summary"`
		OK          bool    `json:"ok"`
		Verdict     string  `json:"verdict"`
		Families    []struct {
			Name       string `json:"name"`
			OK         bool   `json:"ok"`
			Outputs    int64  `json:"outputs"`
			Mismatches int64  `json:"mismatches"`
			GEMMs      []struct {
				Dot      string `json:"dot"`
				Elements int64  `json:"elements"`
				Failures int64  `json:"failures"`
				Worst    struct {
					ULPs      float64 `json:"ulps"`
					BoundULPs float64 `json:"bound_ulps"`
				} `json:"worst"`
			} `json:"gemms"`
		} `json:"families"`
	} `json:"verify"`
}

// checkVerified checks that --verify compared every fused GEMM on every input family, found every
// element within its bound and the other outputs identical, and said ok.
func checkVerified(t *testing.T, r *fuseResult) {
	t.Helper()
	v := r.Verify
	if v == nil {
		t.Fatal("no verify result")
	}
	fused := 0
	for _, g := range r.GEMMs {
		if g.Fused {
			fused++
		}
	}
	if !v.OK || !strings.HasPrefix(v.Verdict, "ok: ") || len(v.Families) != 1+len(verify.Families()) {
		t.Errorf("verify: %s (%d input families)", v.Verdict, len(v.Families))
	}
	for _, f := range v.Families {
		if len(f.GEMMs) != fused || f.Mismatches != 0 || !f.OK {
			t.Errorf("verify %s: %d GEMMs compared of %d fused, %d output mismatches, ok %v", f.Name, len(f.GEMMs), fused, f.Mismatches, f.OK)
		}
		for _, g := range f.GEMMs {
			if g.Failures != 0 || g.Elements == 0 {
				t.Errorf("verify %s %%%s: %d of %d elements beyond their bound", f.Name, g.Dot, g.Failures, g.Elements)
			}
			t.Logf("verify %s %%%s: largest difference %.3g ulps, bound %.3g", f.Name, g.Dot, g.Worst.ULPs, g.Worst.BoundULPs)
		}
	}
}

func fuseJSON(t *testing.T, path string, flags ...string) *fuseResult {
	t.Helper()
	code, out, errs := runOctet(t, "", append(append([]string{"fuse", "--json"}, flags...), path)...)
	if code != 0 {
		t.Fatalf("octet fuse %s: exit %d: %s", path, code, errs)
	}
	var r fuseResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("octet fuse --json: %v\n%s", err, out)
	}
	return &r
}

// TestFuseCorpusExpectations checks every row of corpus/fp8/expectations.tsv: the outcome, epilogue,
// abs-max output, D type, alpha and beta the row lists ('-' is not checked), and for the fused and the
// numerics rows that --verify finds the rewritten module within tolerance of the original.
func TestFuseCorpusExpectations(t *testing.T) {
	dir := shared.Path(t, "corpus", "fp8")
	f, err := os.Open(dir + "/expectations.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var header []string
	rows := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		fields := strings.Split(line, "\t")
		if header == nil {
			header = fields
			continue
		}
		row := map[string]string{}
		for i, h := range header {
			if i < len(fields) {
				row[h] = fields[i]
			}
		}
		rows++
		t.Run(row["case"], func(t *testing.T) { checkRow(t, dir+"/"+row["file"], row) })
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if rows == 0 {
		t.Fatal("no rows in expectations.tsv")
	}
}

func checkRow(t *testing.T, path string, row map[string]string) {
	outcome := row["outcome"]
	var flags []string
	if outcome != "not_fused" {
		flags = append(flags, "--verify")
	}
	r := fuseJSON(t, path, flags...)
	if len(r.GEMMs) != 1 {
		t.Fatalf("%d FP8 dots, want 1: %+v", len(r.GEMMs), r.GEMMs)
	}
	g := r.GEMMs[0]
	switch outcome {
	case "fused":
		if !g.Fused || g.Target != cublas.TargetF8 {
			t.Fatalf("not fused: %s", g.Reason)
		}
	case "not_fused":
		if g.Fused || g.Reason == "" {
			t.Fatalf("fused = %v, reason %q (%s)", g.Fused, g.Reason, row["note"])
		}
		t.Logf("refused: %s", g.Reason)
	}
	want := func(col, got string) {
		if w := row[col]; w != "-" && w != "" && w != got {
			t.Errorf("%s = %s, want %s (%s)", col, got, w, row["note"])
		}
	}
	want("epilogue", g.Epilogue)
	want("damax", map[bool]string{true: "yes", false: "no"}[g.Damax])
	want("d_type", g.DType)
	want("alpha", strconv.FormatFloat(g.Alpha, 'g', -1, 64))
	want("beta", strconv.FormatFloat(g.Beta, 'g', -1, 64))
	if outcome == "not_fused" {
		return
	}
	checkVerified(t, r)
}

// readModule parses the module "octet fuse --format=xla" printed.
func readModule(t *testing.T, text string) *hlo.Module {
	t.Helper()
	m, err := parser.ParseString("fused.hlo", text)
	if err != nil {
		t.Fatalf("the printed module does not parse: %v\n%s", err, text)
	}
	if err := hlo.Verify(m); err != nil {
		t.Fatalf("the printed module does not verify: %v", err)
	}
	return m
}

func onlyCall(t *testing.T, m *hlo.Module) *cublas.Call {
	t.Helper()
	var calls []*cublas.Call
	dots := 0
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			switch {
			case in.Opcode == hlo.OpDot:
				dots++
			case in.Opcode == hlo.OpCustomCall && in.CustomCallTarget() == cublas.TargetF8:
				call, err := cublas.Decode(in)
				if err != nil {
					t.Fatal(err)
				}
				calls = append(calls, call)
			}
		}
	}
	if len(calls) != 1 || dots != 0 {
		t.Fatalf("%d FP8 calls and %d dots, want one call and no dot", len(calls), dots)
	}
	return calls[0]
}

// TestFuseExamples rewrites the motivating examples: each becomes one FP8 call with the epilogue and
// outputs the program asks for, and agrees numerically with the original.
func TestFuseExamples(t *testing.T) {
	for _, tc := range []struct {
		file     string
		epilogue cublas.Epilogue
		dType    dtype.Type
		dScale   bool
		damax    bool
		bias     bool
	}{
		{"bf16_dequant.before.hlo", cublas.EpilogueDefault, dtype.F8E4M3FN, true, false, false},
		{"f32_scaled.before.hlo", cublas.EpilogueDefault, dtype.F8E4M3FN, true, false, false},
		{"f32_relu_amax.before.hlo", cublas.EpilogueRelu, dtype.F8E4M3FN, true, true, false},
		{"bias_gelu_jax.before.hlo", cublas.EpilogueBiasGelu, dtype.BF16, false, false, true},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := shared.Path(t, "examples", tc.file)
			code, out, errs := runOctet(t, "", "fuse", "--format=xla", path)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			call := onlyCall(t, readModule(t, out))
			if call.Config.Epilogue != tc.epilogue || call.DType != tc.dType || (call.DScale != nil) != tc.dScale ||
				call.HasAmax != tc.damax || (call.Bias != nil) != tc.bias || call.Legacy || call.Inferred {
				t.Errorf("call: epilogue %s, D %s, d_scale %v, amax %v, bias %v, legacy %v", call.Config.Epilogue,
					call.DType, call.DScale != nil, call.HasAmax, call.Bias != nil, call.Legacy)
			}
			checkVerified(t, fuseJSON(t, path, "--verify"))
		})
	}
}

func TestFuseLegacyABI(t *testing.T) {
	path := shared.Path(t, "examples", "bf16_dequant.before.hlo")
	code, out, errs := runOctet(t, "", "fuse", "--abi=legacy", "--format=xla-short", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	call := onlyCall(t, readModule(t, out))
	if !call.Legacy || call.CScale == nil || call.DScale == nil || call.AScale == nil || call.BScale == nil {
		t.Errorf("want the six-scalar form: %+v", call)
	}
}

func TestFuseExplainAndFormats(t *testing.T) {
	path := shared.Path(t, "corpus", "fp8", "04_UnsupportedTypesF8.hlo")
	code, out, _ := runOctet(t, "", "fuse", "--explain", path)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"// dot %out (computation %unsupported_types): not fused: operands are f8e5m2 x f8e5m2: cuBLASLt needs one f8e4m3fn operand",
		"//   operand 0 (A): f8e5m2 %x [FP8]", "HloModule test"} {
		if !strings.Contains(out, want) {
			t.Errorf("--explain output lacks %q:\n%s", want, out)
		}
	}
	for _, args := range [][]string{{"fuse"}, {"fuse", "--abi=v3", path}, {"fuse", "--format=nope", path}, {"fuse", path, path}} {
		if code, _, _ := runOctet(t, "", args...); code != 2 {
			t.Errorf("octet %q: exit %d, want 2", args, code)
		}
	}
	if code, _, errs := runOctet(t, "HloModule broken\nENTRY {", "fuse", "-"); code != 1 || !strings.Contains(errs, "<stdin>:") {
		t.Errorf("bad input: exit %d, %q", code, errs)
	}
}

func TestFuseRules(t *testing.T) {
	code, out, errs := runOctet(t, "", "fuse", "--rules")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"\nvector-bias\n    add(D, broadcast(vector))\n", "\nscale\n    multiply(x{not a broadcast scalar}, broadcast(scalar))\n",
		"\nfp8-output\n    convert{f8e4m3fn|f8e5m2}(clamp(-max, D, max))\n", "\ngelu-half-x\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("--rules output lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = runOctet(t, "", "fuse", "--rules", "--json")
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errs)
	}
	var rules []fuse.Rule
	if err := json.Unmarshal([]byte(out), &rules); err != nil {
		t.Fatalf("--rules --json: %v\n%s", err, out)
	}
	if len(rules) != len(fuse.Rules()) || len(rules) < 20 {
		t.Fatalf("--rules --json lists %d rules, the table has %d", len(rules), len(fuse.Rules()))
	}
	for _, r := range rules {
		if r.Name == "" || r.Pattern == "" || r.Effect == "" || (r.Side != "operand" && r.Side != "epilogue") {
			t.Errorf("incomplete rule %+v", r)
		}
	}
	path := shared.Path(t, "examples", "bf16_dequant.before.hlo")
	if code, _, _ := runOctet(t, "", "fuse", "--rules", path); code != 2 {
		t.Errorf("fuse --rules FILE: exit %d, want 2", code)
	}
}

// TestFuseTwoVerdicts checks that --json gives XLA's and Octet's verdicts and that --explain and check
// print XLA's where the two differ: here chained converts before the scale, which XLA's matcher refuses.
func TestFuseTwoVerdicts(t *testing.T) {
	src := `HloModule chained

ENTRY main {
  a = f8e4m3fn[32,64] parameter(0)
  b = f8e4m3fn[48,64] parameter(1)
  sa = f32[] parameter(2)
  a16 = bf16[32,64] convert(a)
  a32 = f32[32,64] convert(a16)
  sab = f32[32,64] broadcast(sa), dimensions={}
  adq = f32[32,64] multiply(a32, sab)
  bf = f32[48,64] convert(b)
  ROOT d = f32[32,48] dot(adq, bf), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}
`
	code, out, errs := runOctet(t, src, "fuse", "--json", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res struct {
		GEMMs []struct {
			XLA struct {
				Fusible bool   `json:"fusible"`
				Why     string `json:"why"`
			} `json:"xla"`
			Octet struct {
				Fusible bool   `json:"fusible"`
				Why     string `json:"why"`
			} `json:"octet"`
		} `json:"gemms"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(res.GEMMs) != 1 || res.GEMMs[0].XLA.Fusible || !res.GEMMs[0].Octet.Fusible ||
		!strings.Contains(res.GEMMs[0].XLA.Why, "convert %a32 lies between the dequantize and the dot: a second convert") {
		t.Errorf("verdicts: %+v", res.GEMMs)
	}
	want := "XLA's rules differ: XLA's GEMM rewriter does not fuse it: operand 0: convert %a32"
	if _, out, _ := runOctet(t, src, "fuse", "--explain", "-"); !strings.Contains(out, "//   "+want) {
		t.Errorf("--explain does not say %q:\n%s", want, out)
	}
	// check names the XLA release and GPU its verdict is for.
	want = "XLA (newest, sm_90) (differs from octet fuse): XLA's GEMM rewriter does not fuse it: operand 0: convert %a32"
	if _, out, _ := runOctet(t, src, "check", "-"); !strings.Contains(out, want) {
		t.Errorf("check does not say %q:\n%s", want, out)
	}
}

// TestVerifyCatchesBrokenRewrite corrupts one scale of a correct rewrite (a_scale doubled) and checks that
// the verification fails with a verdict that says so, while the correct rewrite passes on every family.
func TestVerifyCatchesBrokenRewrite(t *testing.T) {
	path := shared.Path(t, "corpus", "fp8", "08_ScaledABUnscaledDF8.hlo")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	orig, err := parser.ParseString(path, string(src))
	if err != nil {
		t.Fatal(err)
	}
	m, _ := parser.ParseString(path, string(src))
	r := fuse.Rewrite(m, fuse.Options{})
	good, err := verifyRewrite(orig, m, r.Decisions, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !good.OK || len(good.Families) != 1+len(verify.Families()) || !strings.HasPrefix(good.Verdict, "ok: ") {
		t.Fatalf("the correct rewrite does not verify: %s %+v", good.Verdict, good.Families)
	}
	call := onlyCall(t, m)
	c := call.Inst.Parent
	two := c.ScalarConstant(dtype.F32, 2)
	call.Inst.SetOperand(2, c.Multiply(call.AScale, two))
	c.SortTopologically()
	if err := hlo.Verify(m); err != nil {
		t.Fatal(err)
	}
	bad, err := verifyRewrite(orig, m, r.Decisions, 1)
	if err != nil {
		t.Fatal(err)
	}
	if bad.OK || !strings.HasPrefix(bad.Verdict, "FAILED: ") || !strings.Contains(bad.Verdict, "beyond their bound") {
		t.Errorf("a doubled a_scale passes: %s", bad.Verdict)
	}
	// Only the zeros family cannot see it.
	for _, f := range bad.Families {
		if f.OK != (f.Name == "zeros") {
			t.Errorf("family %s: ok %v (%+v)", f.Name, f.OK, f.GEMMs[0])
		}
	}
	code, out, _ := runOctet(t, "", "fuse", "--verify", path)
	if code != 0 || !strings.Contains(out, "// verify: ok: on 5 input families (normal, ones, near-max, magnitudes, zeros), every element of 1 fused GEMM within its bound") {
		t.Errorf("octet fuse --verify: exit %d:\n%s", code, out)
	}
}

// TestFuseVerifyNothingFused checks --verify on a module with no FP8 dot, which holds what the interpreter
// does not run (a Python callback): nothing was rewritten, so nothing needs running, and the verdict says so
// (exit 0). A module with a fused dot and such a call is still refused: its rewrite cannot be checked.
func TestFuseVerifyNothingFused(t *testing.T) {
	src := `HloModule qr
ENTRY main {
  a = f32[4,4] parameter(0)
  ROOT q = (f32[4,4], f32[4]) custom-call(a), custom_call_target="xla_ffi_python_cpu_callback"
}
`
	code, out, errs := runOctet(t, src, "fuse", "--verify", "-")
	if code != 0 || !strings.Contains(out, "// verify: ok: no dot was fused, and the module is the original") {
		t.Errorf("exit %d, stderr %q, output:\n%s", code, errs, out)
	}
	fp8 := `HloModule qr_fp8
ENTRY main {
  a = f32[4,4] parameter(0)
  q = (f32[4,4], f32[4]) custom-call(a), custom_call_target="xla_ffi_python_cpu_callback"
  x = f8e4m3fn[16,16] parameter(1)
  xf = f32[16,16] convert(x)
  d = f32[16,16] dot(xf, xf), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = ((f32[4,4], f32[4]), f32[16,16]) tuple(q, d)
}
`
	if code, _, errs := runOctet(t, fp8, "fuse", "--verify", "-"); code != 1 || !strings.Contains(errs, "xla_ffi_python_cpu_callback") {
		t.Errorf("with a fused dot: exit %d, stderr %q", code, errs)
	}
}

// TestFuseOutputReadsBack runs octet fuse on the bundled examples and feeds what it prints, in its
// readable form, to octet run and octet diff: run gives the bits of the --format=xla output, and diff
// gains every fused GEMM and loses none.
func TestFuseOutputReadsBack(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"dense_fp8.before.hlo", "relu_amax.before.hlo"} {
		src := filepath.Join("..", "..", "examples", name)
		code, readable, stderr := runOctet(t, "", "fuse", src)
		if code != 0 {
			t.Fatalf("%s: fuse exit %d: %s", name, code, stderr)
		}
		if !strings.Contains(readable, "__cublas$lt$matmul$f8\",\n") || !strings.Contains(readable, "backend_config={\n") {
			t.Errorf("%s: the readable output has no backend config under its call:\n%s", name, readable)
		}
		_, xla, _ := runOctet(t, "", "fuse", "--format=xla", src)
		a, b := writeTemp(t, dir, name+".readable", readable), writeTemp(t, dir, name+".xla", xla)
		var outs []string
		for _, f := range []string{a, b} {
			code, out, stderr := runOctet(t, "", "run", "--random", "1", f)
			if code != 0 {
				t.Fatalf("%s: run %s: exit %d: %s", name, filepath.Base(f), code, stderr)
			}
			outs = append(outs, out)
		}
		if outs[0] != outs[1] {
			t.Errorf("%s: run on the readable output prints\n%s\non the xla output\n%s", name, outs[0], outs[1])
		}
		code, diff, stderr := runOctet(t, "", "diff", src, a)
		if code != 0 || !strings.Contains(diff, "0 lost, 1 gained") {
			t.Errorf("%s: diff exit %d: %s%s", name, code, diff, stderr)
		}
	}
}

// TestVerifyUntakenBranch rewrites a GEMM in the branch of a conditional that no input takes: --verify
// compares it at no evaluation, and its verdict says the GEMM was not checked rather than counting it.
func TestVerifyUntakenBranch(t *testing.T) {
	src := writeTemp(t, t.TempDir(), "cond.hlo", `HloModule cond

yes {
  p = (f8e4m3fn[16,32], f8e4m3fn[32,16]) parameter(0)
  a = f8e4m3fn[16,32] get-tuple-element(p), index=0
  b = f8e4m3fn[32,16] get-tuple-element(p), index=1
  af = f32[16,32] convert(a)
  bf = f32[32,16] convert(b)
  ROOT d = f32[16,16] dot(af, bf), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}

no {
  p = (f8e4m3fn[16,32], f8e4m3fn[32,16]) parameter(0)
  z = f32[] constant(0)
  ROOT zb = f32[16,16] broadcast(z), dimensions={}
}

ENTRY main {
  a = f8e4m3fn[16,32] parameter(0)
  b = f8e4m3fn[32,16] parameter(1)
  c = pred[] constant(false)
  t = (f8e4m3fn[16,32], f8e4m3fn[32,16]) tuple(a, b)
  ROOT r = f32[16,16] conditional(c, t, t), true_computation=yes, false_computation=no
}
`)
	code, out, errs := runOctet(t, "", "fuse", "--verify", src)
	if code != 0 || !strings.Contains(out, "// verify normal %d: 0 of 0 elements identical over 0 evaluations") ||
		!strings.Contains(out, "but no input reached a fused GEMM (%d: a branch not taken, or a loop that ran no iteration)") {
		t.Errorf("exit %d: %s%s", code, out, errs)
	}
}

package report_test

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"octet/fuse"
	"octet/fuse/report"
	"octet/fuse/xlarules"
	"octet/hlo"
	"octet/hlo/parser"
	"octet/internal/shared"
)

func parseText(t *testing.T, src string) *hlo.Module {
	t.Helper()
	m, err := parser.ParseString("block.hlo", src)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	if err := hlo.Verify(m); err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return m
}

// call is a module of one __op$block_scaled_dot of the given operands.
func call(lhs, rhs, ls, rs, out, extra string) string {
	return "HloModule m\nENTRY main {\n  a = " + lhs + " parameter(0)\n  b = " + rhs + " parameter(1)\n  sa = " + ls + " parameter(2)\n  sb = " + rs +
		" parameter(3)\n  ROOT d = " + out + ` custom-call(a, b, sa, sb), custom_call_target="__op$block_scaled_dot"` + extra + "\n}\n"
}

// TestBlockScaledRules gives each of XLA's rules a module that fails it (and modules that pass), and
// checks the verdict names the rule.
func TestBlockScaledRules(t *testing.T) {
	composite := func(scaleOp string) string {
		return `HloModule m
bsd {
  a = f8e4m3fn[128,256] parameter(0)
  b = f8e4m3fn[64,256] parameter(1)
  sa = f8e8m0fnu[128,8] parameter(2)
  sb = f8e8m0fnu[64,8] parameter(3)
  sa2 = f8e8m0fnu[128,8] ` + scaleOp + `
  ac = f32[128,256] convert(a)
  sac = f32[128,8] convert(sa2)
  sab = f32[128,8,32] broadcast(sac), dimensions={0,1}
  sar = f32[128,256] reshape(sab)
  adq = f32[128,256] multiply(ac, sar)
  bc = f32[64,256] convert(b)
  sbc = f32[64,8] convert(sb)
  sbb = f32[64,8,32] broadcast(sbc), dimensions={0,1}
  sbr = f32[64,256] reshape(sbb)
  bdq = f32[64,256] multiply(bc, sbr)
  ROOT d = f32[128,64] dot(adq, bdq), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}
ENTRY main {
  a = f8e4m3fn[128,256] parameter(0)
  b = f8e4m3fn[64,256] parameter(1)
  sa = f8e8m0fnu[128,8] parameter(2)
  sb = f8e8m0fnu[64,8] parameter(3)
  ROOT c = f32[128,64] call(a, b, sa, sb), to_apply=bsd, is_composite=true, frontend_attributes={composite.name="mx.block_scaled_dot",composite.version="1"}
}
`
	}
	for _, c := range []struct {
		name, src string
		made      bool
		rule      string
		why       string
	}{
		{"MXFP8 call", call("f8e4m3fn[2,128,256]", "f8e5m2[2,64,256]", "f8e8m0fnu[2,128,8]", "f8e8m0fnu[2,64,8]", "bf16[2,128,64]", ""),
			true, "", "__cudnn$blockScaledDot"},
		{"NVFP4 call", call("f4e2m1fn[128,256]", "f4e2m1fn[64,256]", "f8e4m3fn[128,16]", "f8e4m3fn[64,16]", "f32[128,64]", ""),
			true, "", "__cudnn$blockScaledDot"},
		{"e5m2 x e5m2", call("f8e5m2[128,256]", "f8e5m2[64,256]", "f8e8m0fnu[128,8]", "f8e8m0fnu[64,8]", "f32[128,64]", ""),
			false, xlarules.RuleFormat, "f8e5m2 x f8e5m2"},
		{"MXFP4 call", call("f4e2m1fn[128,256]", "f4e2m1fn[64,256]", "f8e8m0fnu[128,8]", "f8e8m0fnu[64,8]", "f32[128,64]", ""),
			false, xlarules.RuleFormat, "MXFP4"},
		{"MXFP8 in blocks of 16", call("f8e4m3fn[128,256]", "f8e4m3fn[64,256]", "f8e8m0fnu[128,16]", "f8e8m0fnu[64,16]", "f32[128,64]", ""),
			false, xlarules.RuleBlockSize, "blocks of 32, not 16"},
		{"k not a multiple of the block", call("f8e4m3fn[128,100]", "f8e4m3fn[64,100]", "f8e8m0fnu[128,4]", "f8e8m0fnu[64,4]", "f32[128,64]",
			`, backend_config={"block_scaled_dot_backend_config":{"block_size":"32"}}`), false, xlarules.RuleAlignment, "not a multiple of the block size"},
		{"layout", call("f8e4m3fn[128,256]{0,1}", "f8e4m3fn[64,256]", "f8e8m0fnu[128,8]", "f8e8m0fnu[64,8]", "f32[128,64]", ""),
			false, xlarules.RuleLayout, "not the default one"},
		{"composite", composite("copy(sa)"), false, xlarules.RuleLayout, "not a parameter or a slice of one"},
		{"composite of parameters", composite("slice(sa), slice={[0:128], [0:8]}"), true, "", "cuDNN fusion"},
		{"NVFP4 scaled-dot, rhs [k,n]", `HloModule m
ENTRY main {
  a = f4e2m1fn[128,256] parameter(0)
  b = f4e2m1fn[256,64] parameter(1)
  sa = f8e4m3fn[128,16] parameter(2)
  sb = f8e4m3fn[16,64] parameter(3)
  ROOT d = f32[128,64] scaled-dot(a, b, sa, sb), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
`, false, xlarules.RuleFormat, "packed along the contracting dimension"},
		{"cuDNN fusion", `HloModule m
f {
  a = f8e4m3fn[128,256] parameter(0)
  b = f8e4m3fn[128,256] parameter(1)
  sa = f8e8m0fnu[128,8] parameter(2)
  sb = f8e8m0fnu[128,8] parameter(3)
  ROOT d = f32[128,128] scaled-dot(a, b, sa, sb), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}
ENTRY main {
  a = f8e4m3fn[128,256] parameter(0)
  b = f8e4m3fn[128,256] parameter(1)
  sa = f8e8m0fnu[128,8] parameter(2)
  sb = f8e8m0fnu[128,8] parameter(3)
  ROOT c = f32[128,128] fusion(a, b, sa, sb), kind=kCustom, calls=f, backend_config={"fusion_backend_config":{"kind":"__cudnn$fusion"}}
}
`, true, "", "cuDNN fusion"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := report.Check(parseText(t, c.src))
			if len(r.GEMMs) != 1 || r.BlockScaled != 1 {
				t.Fatalf("report %+v", r)
			}
			v := r.GEMMs[0].Block
			if v == nil || v.Made != c.made || v.Rule != c.rule || !strings.Contains(v.Why+" "+v.Call+" "+v.Form, c.why) || v.Source == "" {
				t.Errorf("verdict %+v; want made %v, rule %q, %q", v, c.made, c.rule, c.why)
			}
			if g := r.GEMMs[0]; g.XLA.Fusible != c.made {
				t.Errorf("XLA verdict %+v", g.XLA)
			}
		})
	}
}

// TestBlockScaledCorpus: every block-scaled GEMM of the corpus gets a verdict with its rule.
func TestBlockScaledCorpus(t *testing.T) {
	dir := shared.Path(t, "corpus", "hlo")
	files, err := filepath.Glob(filepath.Join(dir, "*.hlo*"))
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, f := range files {
		src, err := readMaybeGzip(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(src, "scaled-dot") && !strings.Contains(src, "block_scaled") && !strings.Contains(src, "blockScaled") &&
			!strings.Contains(src, "f8e8m0fnu") {
			continue
		}
		m, err := parser.ParseString(f, src)
		if err != nil || hlo.Verify(m) != nil {
			continue
		}
		for _, g := range report.Check(m).GEMMs {
			if g.Kind != "block-scaled" {
				continue
			}
			found++
			v := g.Block
			if v == nil || v.Why == "" || v.Source == "" || !v.Made && v.Rule == "" {
				t.Errorf("%s: %s: verdict %+v", filepath.Base(f), g.Name, v)
			}
		}
	}
	if found < 2 {
		t.Errorf("%d block-scaled GEMMs in the corpus, want the 2 scaled-dot tests at least", found)
	}
}

func readMaybeGzip(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return "", err
		}
		r = zr
	}
	b, err := io.ReadAll(r)
	return string(b), err
}

// TestBlockScaledPasses walks testdata/passes-block: the block scaling rewriter expands the
// block-scaled call into a dequantize and a dot (an sm_90 compile), and check names it.
func TestBlockScaledPasses(t *testing.T) {
	dumps, mods := loadPassDumps(t, filepath.Join("testdata", "passes-block"))
	fs := report.Passes(dumps, mods)
	if len(fs) != 1 {
		t.Fatalf("%d findings, want 1", len(fs))
	}
	f := fs[0]
	if !f.Broken || f.Pass != "block-scaling-rewriter" || f.Step != 16 || !strings.Contains(f.What, "gpu generation") {
		t.Errorf("finding %+v", *f)
	}
}

// TestBlockOneSidedPairs reports a dot of one block dequantize and a wide operand: the wide side is
// described as it stands (its parameter), and the diff with the scaled-dot octet fuse makes of it pairs the
// two by dataflow.
func TestBlockOneSidedPairs(t *testing.T) {
	src := `HloModule one_sided
ENTRY main {
  a = f8e5m2[3,5,96] parameter(0)
  af = f32[3,5,96] convert(a)
  sa = f8e8m0fnu[3,5,3] parameter(1)
  sf = f32[3,5,3] convert(sa)
  sb = f32[3,5,3,32] broadcast(sf), dimensions={0,1,2}
  sr = f32[3,5,96] reshape(sb)
  adq = f32[3,5,96] multiply(sr, af)
  w = f32[3,14,96] parameter(2)
  ROOT d = f32[3,5,14] dot(adq, w), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={2}
}`
	m := parseText(t, src)
	before := report.Check(m)
	if len(before.GEMMs) != 1 || before.GEMMs[0].B == nil || before.GEMMs[0].B.Parameter != 2 {
		t.Fatalf("the wide side is not described: %+v", before.GEMMs)
	}
	if ds := fuse.Rewrite(m, fuse.Options{}).Decisions; len(ds) != 1 || !ds[0].Fused || ds[0].Target != "scaled-dot" {
		t.Fatalf("decisions %+v", ds)
	}
	d := report.Diff(before, report.Check(m))
	if d.Same != 1 || len(d.Added)+len(d.Removed)+len(d.Lost) != 0 || len(d.Pairs) != 1 || d.Pairs[0].By != "dataflow" {
		t.Errorf("same %d, added %d, removed %d, lost %d, pairs %+v", d.Same, len(d.Added), len(d.Removed), len(d.Lost), d.Pairs)
	}
}

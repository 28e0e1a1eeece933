package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckJSONDirError checks "check --json" on folders of dumps that cannot be checked: each is listed,
// as a file is, with an "error" field that gives the position, and the output is a JSON array (it was
// null, the folder's error on standard error only).
func TestCheckJSONDirError(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage")
	empty := filepath.Join(dir, "empty")
	for _, d := range []string{garbage, empty} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(garbage, "module_0001.jit_f.before_optimizations.txt"), []byte("garbage here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{garbage}, {empty}, {garbage, empty}} {
		code, out, errs := runOctet(t, "", append([]string{"check", "--json"}, args...)...)
		if code != 1 {
			t.Errorf("%v: exit %d, want 1; stderr %s", args, code, errs)
		}
		var files []struct {
			File    string            `json:"file"`
			Modules []json.RawMessage `json:"modules"`
			Error   string            `json:"error"`
		}
		if err := json.Unmarshal([]byte(out), &files); err != nil || files == nil {
			t.Fatalf("%v: the output is not a JSON array (%v):\n%s", args, err, out)
		}
		if len(files) != len(args) {
			t.Fatalf("%v: %d entries, want %d:\n%s", args, len(files), len(args), out)
		}
		for i, f := range files {
			if f.File != args[i] || f.Error == "" || f.Modules == nil {
				t.Errorf("%v: entry %d is %+v, want %s with an error and no modules", args, i, f, args[i])
			}
		}
		if files[0].File == garbage && !strings.Contains(files[0].Error, "before_optimizations.txt:1:9: ") {
			t.Errorf("the error has no position: %q", files[0].Error)
		}
	}
}

// TestCheckCublasCallShapes checks that an FP8 cuBLASLt call whose operand and result sizes contradict
// its dimension numbers is bad input, with its position, for check, diff and fuse: XLA's GemmConfig::For
// refuses it before any GEMM runs. Such a call was reported as a fused GEMM (a D of 3 x 5 from a 16 x 128
// and a 64 x 128 matrix, a k of 128 against 96).
func TestCheckCublasCallShapes(t *testing.T) {
	const cfg = `{"gemm_backend_config":{"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["1"],"lhs_batch_dimensions":[%s],"rhs_batch_dimensions":[]},"epilogue":"DEFAULT","damax_output":false}}`
	module := func(a, b, d, lhsBatch string) string {
		return "HloModule m\n\nENTRY main {\n  a = " + a + " parameter(0)\n  b = " + b + " parameter(1)\n  s = f32[] parameter(2)\n" +
			"  g = (" + d + ", s8[16]) custom-call(a, b, s, s), custom_call_target=\"__cublas$lt$matmul$f8\", backend_config=" +
			strings.Replace(cfg, "%s", lhsBatch, 1) + "\n  ROOT r = " + d + " get-tuple-element(g), index=0\n}\n"
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "good.hlo")
	if err := os.WriteFile(good, []byte(module("f8e4m3fn[16,128]", "f8e4m3fn[64,128]", "f32[16,64]", "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runOctet(t, "", "check", good); code != 0 {
		t.Fatalf("the consistent call: exit %d: %s", code, errs)
	}
	for _, tc := range []struct{ name, a, b, d, batch, want string }{
		{"D", "f8e4m3fn[16,128]", "f8e4m3fn[64,128]", "f32[3,5]", "", "D f32[3,5] has 3 rows where a's free dimensions hold 16"},
		{"k", "f8e4m3fn[16,128]", "f8e4m3fn[64,96]", "f32[16,64]", "", "a contracts 128 elements and b 96"},
		{"rank", "f8e4m3fn[16,128]", "f8e4m3fn[64,128]", "f32[16,64,1]", "", "has rank 3"},
		{"batch", "f8e4m3fn[16,128]", "f8e4m3fn[64,128]", "f32[16,64]", `"0"`, "a has no free (row) dimension"},
		{"twice", "f8e4m3fn[16,128]", "f8e4m3fn[64,128]", "f32[16,64]", `"1"`, "dimension 1 of a is named twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name+".hlo")
			if err := os.WriteFile(path, []byte(module(tc.a, tc.b, tc.d, tc.batch)), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"check", path}, {"diff", good, path}, {"fuse", path}} {
				code, _, errs := runOctet(t, "", args...)
				if code != 1 || !strings.Contains(errs, path+":7:3: ") || !strings.Contains(errs, tc.want) {
					t.Errorf("%s: exit %d, stderr %q; want 1 and %s:7:3: ... %s", args[0], code, errs, path, tc.want)
				}
			}
		})
	}
}

// TestFuseVerifyNonFinite checks --verify where the rewrite changes results: a divide by a constant zero
// scale, which the original computes as NaN (inf - inf in the sum) and the call as inf times the product.
// The verdict fails, and says what the element holds, not a difference of "NaN ulps" against a bound of
// NaN.
func TestFuseVerifyNonFinite(t *testing.T) {
	const src = `HloModule zero_scale

ENTRY main {
  a = f8e4m3fn[32,64] parameter(0)
  b = f8e4m3fn[64,48] parameter(1)
  z = f32[] constant(0)
  af = f32[32,64] convert(a)
  bf = f32[64,48] convert(b)
  zb = f32[32,64] broadcast(z), dimensions={}
  ad = f32[32,64] divide(af, zb)
  ROOT d = f32[32,48] dot(ad, bf), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
`
	code, out, errs := runOctet(t, src, "fuse", "--verify", "-")
	if code != 1 || !strings.Contains(errs, "disagrees with the original") {
		t.Fatalf("exit %d, stderr %q; want 1 and a disagreement", code, errs)
	}
	if strings.Contains(out, "NaN ulps") || strings.Contains(out, "bound of NaN") || strings.Contains(out, "against NaN") {
		t.Errorf("the verdict gives a difference in ulps of non-finite values:\n%s", out)
	}
	if !strings.Contains(out, "where the original has NaN (no finite bound") {
		t.Errorf("the verdict does not say what the element holds:\n%s", out)
	}
}

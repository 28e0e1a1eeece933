package fuse_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"octet/fuse"
	"octet/fuse/xlarules"
	"octet/hlo"
)

// TestVerdictsSideBySide checks both verdicts on the cases where XLA's rules and Octet's differ, and on
// some where they agree: each with the reason it gives.
func TestVerdictsSideBySide(t *testing.T) {
	for _, tc := range []struct {
		file       string
		xla, octet bool
		xlaWhy     string
		bug        bool
	}{
		{"chained_converts.hlo", false, true, "a second convert", false},
		{"bf16_normalized.hlo", false, true, "a second convert", false},
		{"transpose_before_scale.hlo", false, true, "multiply %adq lies between the dequantize and the dot", false},
		{"widen_after_scale.hlo", false, true, "convert %a32 lies between the dequantize and the dot: a second convert", false},
		{"pad_one.hlo", true, false, "converted and multiplied by %sa, then pad", true},
		// Scalar clamp bounds: XLA's HandleConvert does not match, so XLA makes no call outside the table.
		{"e4m3_e5m2_out.hlo", true, true, "clamp %c's bounds are not broadcasts of constants", false},
		// Broadcast bounds: F8ConvertD takes the convert and makes an f8e5m2 D from e4m3fn x e4m3fn.
		{"e4m3_e5m2_out_broadcast.hlo", true, true, "as an f8e5m2 output", true},
		{"per_channel_scale.hlo", false, false, "the scaling factors must be scalars", false},
		{"copy_dynamic_slice.hlo", true, true, "then dynamic-slice", false},
		{"negate.hlo", false, false, "negate", false},
		{"convert_broadcast_scale.hlo", false, true, "the scale XLA absorbs is a broadcast right beside the convert, and %sf is a convert", false},
		// Current scaling: F8ConvertD takes a d_scale computed from the abs-max it makes the call's output.
		{"current_scaling.hlo", true, true, "with d_scale %s (divide %ds), and reduce %amax as the abs-max", true},
		// add(D, D): FuseMatrixBiasAdd's call reads the old GEMM as C, no cycle (and no bug).
		{"bias_is_result.hlo", true, true, "as the matrix bias C", false},
	} {
		t.Run(tc.file, func(t *testing.T) {
			m := load(t, filepath.Join("testdata", tc.file))
			r := fuse.Analyze(m)
			if len(r.Decisions) == 0 {
				t.Fatal("no FP8 dot found")
			}
			g := r.Decisions[len(r.Decisions)-1]
			if g.XLA.Fusible != tc.xla || g.Octet.Fusible != tc.octet {
				t.Errorf("xla %v (%s), octet %v (%s); want %v, %v", g.XLA.Fusible, g.XLA.Why, g.Octet.Fusible, g.Octet.Why, tc.xla, tc.octet)
			}
			if g.Octet.Fusible != g.Fused || g.Octet.Why == "" {
				t.Errorf("the octet verdict %+v does not say what the decision does (fused %v)", g.Octet, g.Fused)
			}
			if !strings.Contains(g.XLA.Why, tc.xlaWhy) {
				t.Errorf("XLA's why %q does not say %q", g.XLA.Why, tc.xlaWhy)
			}
			if (g.XLA.Bug != "") != tc.bug {
				t.Errorf("bug %q, want one: %v", g.XLA.Bug, tc.bug)
			}
		})
	}
}

// TestReasonWordings checks that the explanations name what the module does, not a reason of another
// case: the old wordings of these cases said something true of other modules only.
func TestReasonWordings(t *testing.T) {
	for _, tc := range []struct{ file, not string }{
		{"amax_after_scale.hlo", "can only be the d_scale of an FP8 output"},
		{"two_matrix_adds.hlo", "comes before any activation"},
		{"f16_bias_f32.hlo", "the bias %v32 is f32"},
		{"convert_broadcast_scale.hlo", "only a multiply by a broadcast scalar (a per-tensor scale) is absorbed"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			r := fuse.Analyze(load(t, filepath.Join("testdata", tc.file)))
			text := strings.Join(r.Decisions[0].Explain, "\n")
			if strings.Contains(text, tc.not) {
				t.Errorf("the explanation says %q:\n%s", tc.not, text)
			}
		})
	}
}

var update = flag.Bool("update", false, "rewrite the README's table of verdicts")

// tableRows are the cases of the README's side-by-side table of verdicts: what the module does, and the
// module (relative to the repository's root). The verdicts in the table are computed.
var tableRows = []struct{ what, file string }{
	{"convert, then multiply by a broadcast scalar, in bf16, with an output scale and a clamp to FP8", "fuse/xlarules/testdata/o_convert.hlo"},
	{"the same in f32, then copy and dynamic-slice", "fuse/testdata/copy_dynamic_slice.hlo"},
	{"chained converts f8 -> bf16 -> f32 before the scale", "fuse/testdata/chained_converts.hlo"},
	{"a bf16 dequantize widened to f32 after the scale", "fuse/testdata/widen_after_scale.hlo"},
	{"a transpose between the convert and the scale", "fuse/testdata/transpose_before_scale.hlo"},
	{"a per-tensor scale broadcast then converted, convert(broadcast(s))", "fuse/testdata/convert_broadcast_scale.hlo"},
	{"a per-channel scale (a broadcast vector)", "fuse/testdata/per_channel_scale.hlo"},
	{"a pad with 1 between the dequantize and the dot", "fuse/testdata/pad_one.hlo"},
	{"a negate between the dequantize and the dot", "fuse/testdata/negate.hlo"},
	{"an all-gather between the dequantize and the dot, SPMD", "fuse/xlarules/testdata/g_collectives_spmd.hlo"},
	{"a convert to f32 with no scale", "fuse/xlarules/testdata/g_bare_convert.hlo"},
	{"a GEMM of (m+n)*k = 64, below the size threshold", "fuse/xlarules/testdata/g_threshold.hlo"},
	{"operands dequantized in f32, a bf16 dot", "fuse/xlarules/testdata/g_types_f32_bf16.hlo"},
	{"operands dequantized in bf16, a dot giving f8e4m3fn", "fuse/xlarules/testdata/g_types_bf16_fp8.hlo"},
	{"a raw f8e4m3fn x f8e4m3fn dot giving f8e5m2", "fuse/xlarules/testdata/g_types_e4m3_e5m2out.hlo"},
	{"a matrix-vector dot", "fuse/xlarules/testdata/g_matrix_vector.hlo"},
	{"A with two non-contracting dimensions", "fuse/xlarules/testdata/g_noncanonical.hlo"},
	{"e4m3fn x e4m3fn clamped to f8e5m2's range by f32[] scalars, converted to f8e5m2", "fuse/testdata/e4m3_e5m2_out.hlo"},
	{"the same clamp with broadcast bounds", "fuse/testdata/e4m3_e5m2_out_broadcast.hlo"},
	{"a clamp to +-448 converted to f8e5m2", "fuse/xlarules/testdata/o_convert_e5m2_448.hlo"},
	{"an f32 matrix bias, then a clamp and a convert to f8e5m2", "fuse/xlarules/testdata/o_convert_c_f32.hlo"},
	{"an f32 vector bias on an f32 result", "fuse/xlarules/testdata/o_bias_f32.hlo"},
	{"a bf16 vector bias converted to f32", "fuse/xlarules/testdata/o_bias_bf16.hlo"},
	{"the tanh GELU written (0.5 * x) * (1 + tanh(...))", "fuse/xlarules/testdata/o_gelu_half_x.hlo"},
	{"current scaling: D divided by its own abs-max over 448, clamped, converted to f8e4m3fn", "fuse/testdata/current_scaling.hlo"},
}

// sideBySide makes the README's table: for each case, XLA's verdict as the module stands (newest XLA,
// sm_90), what each release makes of the dot in a compile, and octet fuse's decision.
func sideBySide(t *testing.T) string {
	var b strings.Builder
	var names []string
	for _, r := range xlarules.Releases() {
		names = append(names, r.Name)
	}
	fmt.Fprintf(&b, "| Case (module) | XLA's FP8 rewriter as the module stands (%s) | XLA in a compile (%s) | `octet fuse` |\n",
		xlarules.DefaultTarget(), strings.Join(names, " / "))
	b.WriteString("|---|---|---|---|\n")
	for _, row := range tableRows {
		m := load(t, filepath.Join("..", row.file))
		r := fuse.Analyze(m)
		if len(r.Decisions) == 0 {
			t.Fatalf("%s: no FP8 dot", row.file)
		}
		g := r.Decisions[len(r.Decisions)-1]
		var dot *hlo.Instruction
		for _, in := range m.Computation(g.Computation).Instructions {
			if in.Name == g.Dot {
				dot = in
			}
		}
		v := xlarules.Decide(dot)
		var compile []string
		for _, c := range v.Compile {
			compile = append(compile, c.Outcome)
		}
		octet := fmt.Sprintf("fuses: %s, D %s", g.Epilogue, g.DType)
		if g.Beta != 0 {
			octet += ", beta 1"
		}
		if g.Damax {
			octet += ", damax"
		}
		if !g.Fused {
			reason := g.Reason
			if i := strings.LastIndex(reason, ": "); i >= 0 {
				reason = reason[i+2:]
			}
			octet = "no: " + reason
		}
		fmt.Fprintf(&b, "| %s (`%s`) | %s | %s | %s |\n", row.what, filepath.Base(row.file), v.Short, strings.Join(compile, " / "), octet)
	}
	return b.String()
}

const (
	tableStart = "<!-- The table of verdicts is generated by go test ./fuse -run TestREADMETable -update. -->\n"
	tableEnd   = "<!-- End of the table of verdicts. -->\n"
)

// TestREADMETable checks that the README's side-by-side table of verdicts is what the rules give today
// (go test ./fuse -run TestREADMETable -update rewrites it).
func TestREADMETable(t *testing.T) {
	path := filepath.Join("..", "README.md")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	i, j := strings.Index(text, tableStart), strings.Index(text, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md has no table of verdicts between %q and %q", tableStart, tableEnd)
	}
	want := sideBySide(t)
	got := text[i+len(tableStart) : j]
	if got == want {
		return
	}
	if !*update {
		t.Fatalf("README.md's table of verdicts differs from what the rules give (go test ./fuse -run TestREADMETable -update):\n%s", want)
	}
	if err := os.WriteFile(path, []byte(text[:i+len(tableStart)]+want+text[j:]), 0o644); err != nil {
		t.Fatal(err)
	}
}

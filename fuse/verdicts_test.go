package fuse_test

import (
	"path/filepath"
	"strings"
	"testing"

	"octet/fuse"
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

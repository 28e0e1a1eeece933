package cstring

import (
	"math/rand/v2"
	"testing"
)

// TestUnescape checks each escape absl::CUnescape reads (absl/strings/escaping.cc, CUnescapeInternal),
// \u and \U among them, and what is left as written where CUnescape would refuse the string.
func TestUnescape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`plain`, "plain"},
		{`a\nb\tc\rd\\e\"f\'g\?h`, "a\nb\tc\rd\\e\"f'g?h"},
		{`\a\b\f\v`, "\a\b\f\v"},
		{`\101\0\1777`, "A\x00\x7f7"},
		{`\x41\xe9\x4`, "A\xe9\x04"},
		{`caf\u00e9`, "café"},
		{`\u00E9\u202e`, "é\u202e"},
		{`\U0001F600!`, "😀!"},
		{`\U0010FFFF`, "\U0010FFFF"},
		{`\u00e`, `\u00e`},           // four hex digits, or none
		{`\u00g0`, `\u00g0`},         // not hex
		{`\ud800`, `\ud800`},         // a surrogate half
		{`\U00110000`, `\U00110000`}, // past U+10FFFF
		{`\\u00e9`, `\u00e9`},        // an escaped backslash, then text
		{`end\`, `end\`},             // a lone backslash at the end
	} {
		if got := Unescape(tc.in); got != tc.want {
			t.Errorf("Unescape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestEscapeRoundTrip checks that Unescape undoes Escape on random bytes, and that Escape writes only
// printable ASCII.
func TestEscapeRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, rng.IntN(20))
		for i := range b {
			b[i] = byte(rng.IntN(256))
			if rng.IntN(3) == 0 {
				b[i] = "\\u0aUx\"'7"[rng.IntN(9)]
			}
		}
		e := Escape(string(b))
		for i := 0; i < len(e); i++ {
			if e[i] < 0x20 || e[i] >= 0x7f {
				t.Fatalf("Escape(%q) = %q holds byte %#x", b, e, e[i])
			}
		}
		if got := Unescape(e); got != string(b) {
			t.Fatalf("Unescape(Escape(%q)) = %q", b, got)
		}
	}
}

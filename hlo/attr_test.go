package hlo

import "testing"

// TestKVGet checks that a quoted metadata or frontend-attribute value reads as XLA's lexer reads it, its
// C escapes undone (absl::CUnescape): the \' and octal bytes XLA's printer writes (absl::CEscape), and
// the \u escapes CUnescape also reads.
func TestKVGet(t *testing.T) {
	md := Metadata{{Key: "op_name", Value: `"jit(f)/a\'b\303\251"`}, {Key: "source_file", Value: `"caf\u00e9.py"`}, {Key: "source_line", Value: "12"}, {Key: "op_type", Value: `"unterminated`}}
	for _, tc := range []struct{ key, want string }{
		{"op_name", "jit(f)/a'bé"},
		{"source_file", "café.py"},
		{"source_line", "12"},
		{"op_type", `"unterminated`},
	} {
		if got, ok := md.Get(tc.key); !ok || got != tc.want {
			t.Errorf("Get(%q) = %q, %v; want %q", tc.key, got, ok, tc.want)
		}
	}
	if _, ok := md.Get("deduplicated_name"); ok {
		t.Errorf("Get of a key not there reports it there")
	}
	fa := FrontendAttributes{{Key: "_xla_stream", Value: `"\"s\\1\""`}}
	if got, _ := fa.Get("_xla_stream"); got != `"s\1"` {
		t.Errorf("frontend attribute reads %q", got)
	}
}

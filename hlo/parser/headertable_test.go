package parser_test

import (
	"strings"
	"testing"

	"octet/hlo"
	"octet/hlo/parser"
)

// TestQuotedHeaderTable: the readable style writes a header table XLA prints over several lines as one
// C-escaped string; the parser reads it back to the table's text, and refuses a string that is not one
// table in braces (its text would not read back as the table).
func TestQuotedHeaderTable(t *testing.T) {
	const entry = "\n\nENTRY e {\n  ROOT c = s32[] constant(0)\n}\n"
	m, err := parser.ParseString("t.hlo", `HloModule m, origin_recovery_table="{\n  {\"c\"} : {\"d\"},\n  \"\n x\n\"\n}"`+
		",\ndebug_attributes=\"{\\n  {\\\"c\\\"}:({log_mode=default})\\n}\""+entry)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.Attr("origin_recovery_table"), hlo.Raw("{\n  {\"c\"} : {\"d\"},\n  \"\n x\n\"\n}"); got != want {
		t.Errorf("origin_recovery_table = %q, want %q", got, want)
	}
	if got, want := m.Attr("debug_attributes"), hlo.Raw("{\n  {\"c\"}:({log_mode=default})\n}"); got != want {
		t.Errorf("debug_attributes = %q, want %q", got, want)
	}
	for _, bad := range []string{`"abc"`, `"{"`, `"{a} b"`, `"{a}}"`, `""`, `"{\"}"`, `"` + strings.Repeat("{", 2000) + strings.Repeat("}", 2000) + `"`} {
		_, err := parser.ParseString("t.hlo", "HloModule m, debug_attributes="+bad+entry)
		if err == nil || !strings.Contains(err.Error(), "not one table in braces") {
			t.Errorf("debug_attributes=%.40s: error %v", bad, err)
		}
	}
	// Elsewhere a string is kept as written, as before.
	m, err = parser.ParseString("t.hlo", `HloModule m, something_else="{x}"`+entry)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Attr("something_else"); got != hlo.Raw(`"{x}"`) {
		t.Errorf("something_else = %q", got)
	}
}

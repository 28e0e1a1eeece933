package printer_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"octet/hlo"
	"octet/hlo/printer"
	"octet/internal/cstring"
)

// metadataStrings returns the bytes of m's root's metadata strings, by field.
func metadataStrings(t *testing.T, m *hlo.Module) map[string]string {
	t.Helper()
	md, ok := m.Entry.Root.Attr("metadata").(hlo.Metadata)
	if !ok {
		t.Fatalf("no metadata on %s", m.Entry.Root.Name)
	}
	out := map[string]string{}
	for _, kv := range md {
		if strings.HasPrefix(kv.Value, `"`) {
			out[kv.Key] = cstring.Unescape(kv.Value[1 : len(kv.Value)-1])
		} else {
			out[kv.Key] = kv.Value
		}
	}
	return out
}

// TestMetadataCEscape: XLA prints op_type, op_name, source_file and deduplicated_name through absl::CEscape
// (OpMetadataToString, xla/hlo/ir/hlo_op_metadata.cc), whatever form the text gave them in: every byte of
// a UTF-8 character in octal, a single quote as \'. The XLA styles print that; the readable style shows
// the characters; each reads back to the same bytes.
func TestMetadataCEscape(t *testing.T) {
	const want = `metadata={op_type="\303\274" op_name="jit(f)/caf\303\251\t\'q\' \"x\"" source_file="/tmp/\303\251.py" source_line=3 deduplicated_name="\303\270" scheduling_name="s"}`
	entry := func(md string) string {
		return "HloModule m\n\nENTRY e {\n  ROOT p = f32[] parameter(0), " + md + "\n}\n"
	}
	for _, src := range []string{
		// Raw UTF-8, a raw tab and quotes: what a hand-written or JAX-written file may hold.
		entry("metadata={op_type=\"\u00fc\" op_name=\"jit(f)/caf\u00e9\t'q' \\\"x\\\"\" source_file=\"/tmp/\u00e9.py\" source_line=3 deduplicated_name=\"\u00f8\" scheduling_name=\"s\"}"),
		// Hex escapes and a \' already: the same bytes.
		entry(`metadata={op_type="\xc3\xbc" op_name="jit(f)/caf\xc3\xa9\t\'q\' \"x\"" source_file="/tmp/\303\251.py" source_line=3 deduplicated_name="\303\270" scheduling_name="s"}`),
		// As XLA prints it.
		entry(want),
	} {
		m := parse(t, src)
		bytes := metadataStrings(t, m)
		if bytes["op_name"] != "jit(f)/caf\u00e9\t'q' \"x\"" {
			t.Fatalf("op_name reads as %q", bytes["op_name"])
		}
		for _, style := range []printer.Style{printer.StyleXLA, printer.StyleXLALong} {
			cfg := printer.ConfigFor(style)
			cfg.PrintMetadata = true
			text := printer.Sprint(m, cfg)
			if !strings.Contains(text, want) {
				t.Errorf("%v prints\n%s\nwant it to hold\n%s", style, text, want)
			}
			if got := metadataStrings(t, parse(t, text)); !sameStrings(got, bytes) {
				t.Errorf("%v reads back as %q, not %q", style, got, bytes)
			}
		}
		cfg := printer.ConfigFor(printer.StyleXLA)
		cfg.PrintMetadata, cfg.PrintMetadataOnlyOpName = true, true
		if text := printer.Sprint(m, cfg); !strings.Contains(text, `metadata={op_name="jit(f)/caf\303\251\t\'q\' \"x\""}`) {
			t.Errorf("only the op name:\n%s", text)
		}

		readable := printer.ConfigFor(printer.StyleReadable)
		readable.PrintMetadata = true
		text := printer.Sprint(m, readable)
		const show = `metadata={op_type="ü" op_name="jit(f)/café\t'q' \"x\"" source_file="/tmp/é.py" source_line=3 deduplicated_name="ø" scheduling_name="s"}`
		if !strings.Contains(text, show) || !utf8.ValidString(text) {
			t.Errorf("the readable style prints\n%s\nwant it to hold\n%s", text, show)
		}
		if got := metadataStrings(t, parse(t, text)); !sameStrings(got, bytes) {
			t.Errorf("the readable style reads back as %q, not %q", got, bytes)
		}
	}
}

func sameStrings(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestMetadataUnicodeEscapes: absl::CUnescape, and so XLA, reads \u and \U escapes, which Go's
// strconv.Quote writes (Octet's StableHLO reader quotes metadata with it); XLA prints the character's
// UTF-8 bytes in octal. An escaped backslash before a u is no such escape.
func TestMetadataUnicodeEscapes(t *testing.T) {
	m := parse(t, "HloModule m\n\nENTRY e {\n  ROOT p = f32[] parameter(0), metadata={op_name=\"a\\u202eb\\U0001F600\\\\u0041\" source_file=\"\\u00e9\"}\n}\n")
	cfg := printer.ConfigFor(printer.StyleXLA)
	cfg.PrintMetadata = true
	const want = `metadata={op_name="a\342\200\256b\360\237\230\200\\u0041" source_file="\303\251"}`
	if text := printer.Sprint(m, cfg); !strings.Contains(text, want) {
		t.Errorf("prints\n%s\nwant it to hold\n%s", text, want)
	}
	readable := printer.ConfigFor(printer.StyleReadable)
	readable.PrintMetadata = true
	const show = `metadata={op_name="a\342\200\256b😀\\u0041" source_file="é"}`
	if text := printer.Sprint(m, readable); !strings.Contains(text, show) {
		t.Errorf("the readable style prints\n%s\nwant it to hold\n%s", text, show)
	}
}

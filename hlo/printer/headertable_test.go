package printer_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"octet/hlo/printer"
	"octet/internal/shared"
)

// headerTableSample has both of the header tables XLA prints over several lines, one of them holding a
// string with raw line ends, a quote, a backslash escape and a control byte.
const headerTableSample = "HloModule m, entry_computation_layout={()->s32[1,3]{1,0}}, origin_recovery_table={\n" +
	"  {\"constant\"} : {\"constant__ovp0\"},\n" +
	"  \"\n    HloModule r, frontend_attributes={foo=\\\"bar\\\"}\n\x01 tab\there\n  \"\n" +
	"}\n" +
	",\ndebug_attributes={\n  {\"constant\"}:({log_mode=default,callback_id=123,partitioned=true})\n}\n\n" +
	"ENTRY %e () -> s32[1,3] {\n  ROOT %c = s32[1,3]{1,0} constant({ { 0, 1, 2 } }), origin={{\"constant\"}}\n}\n"

// TestReadableHeaderTables prints modules with debug_attributes and origin_recovery_table in the readable
// style and reads the text back: the tables are the same bytes (they used to read back with a backslash
// and an 'n' for each line end), the module prints as before in the XLA style, the readable text is clean
// and prints again the same. The modules are a sample and XLA's golden cases that have the tables.
func TestReadableHeaderTables(t *testing.T) {
	srcs := map[string]string{"sample": headerTableSample}
	dir := shared.Path(t, "corpus", "hlo-roundtrip")
	files, _ := filepath.Glob(filepath.Join(dir, "*.hlo"))
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(src, []byte("debug_attributes=")) || bytes.Contains(src, []byte("origin_recovery_table=")) {
			srcs[filepath.Base(path)] = string(src)
		}
	}
	if len(srcs) < 4 {
		t.Fatalf("found %d modules with header tables", len(srcs))
	}
	xla := printer.ConfigFor(printer.StyleXLALong)
	readable := printer.ConfigFor(printer.StyleReadable)
	for name, src := range srcs {
		m := parse(t, src)
		text := printer.Sprint(m, readable)
		if why := unclean(text); why != "" {
			t.Errorf("%s: the readable text holds %s:\n%s", name, why, text)
		}
		m2 := parse(t, text)
		for _, a := range m.Attrs {
			if a.Name != "debug_attributes" && a.Name != "origin_recovery_table" {
				continue
			}
			got := m2.Attr(a.Name)
			if got != a.Value {
				t.Errorf("%s: %s reads back from\n%s\nas\n%q\nnot\n%q", name, a.Name, text, got, a.Value)
			}
		}
		if got, want := printer.Sprint(m2, xla), printer.Sprint(m, xla); got != want {
			t.Errorf("%s: read back from the readable style:\n%s\nthe module prints\n%s\nbut the text read back prints\n%s", name, text, want, got)
		}
		if again := printer.Sprint(m2, readable); again != text {
			t.Errorf("%s: the readable style prints differently the second time:\n%s\n%s", name, text, again)
		}
	}
}

// TestReadableHeaderTableOneLine: a table with nothing to escape is printed as it is.
func TestReadableHeaderTableOneLine(t *testing.T) {
	m := parse(t, "HloModule m, debug_attributes={{\"c\"}:({log_mode=default})}\n\nENTRY e {\n  ROOT c = s32[] constant(0)\n}\n")
	if text := printer.Sprint(m, printer.ConfigFor(printer.StyleReadable)); !strings.Contains(text, `debug_attributes={{"c"}:({log_mode=default})}`) {
		t.Errorf("the table is not printed as it is:\n%s", text)
	}
}

package printer_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"octet/hlo"
	"octet/hlo/printer"
)

// payloads are what a hostile module puts in its strings: a forged line, terminal escapes, a NUL, bytes
// that are not UTF-8, a direction override.
var payloads = map[string]string{
	"newline":  "1\n  y = f32[16,64] custom-call(x), custom_call_target=__cublas$lt$matmul$f8 // FORGED",
	"escape":   "\x1b]0;pwned\x07\x1b[2J",
	"nul":      "a\x00b",
	"bytes":    "\xff\xfe",
	"override": "gnp.\u202eexe",
	"return":   "x\r  FORGED",
}

// hostileModule puts payload into every string slot of a module the HLO parser reads: a frontend
// attribute, metadata, a raw and a quoted backend config, a JSON one, and a sharding; the names are set
// after parsing, as other readers (proto text, StableHLO) may give them.
func hostileModule(t *testing.T, payload string) *hlo.Module {
	t.Helper()
	src := fmt.Sprintf(`HloModule hostile

ENTRY main {
  x = f32[16,32] parameter(0), frontend_attributes={a="%[1]s",b="ok"}
  w = f32[32,64] parameter(1), metadata={op_name="%[1]s" source_file="%[1]s" source_line=3}, sharding={replicated metadata={op_name="%[1]s"}}
  c = f32[16,64] custom-call(x, w), custom_call_target="%[2]s", backend_config={"raw":"%[1]s"}
  q = f32[16,64] custom-call(x, w), custom_call_target="t", backend_config="%[2]s"
  j = f32[16,64] custom-call(x, w), custom_call_target="t", backend_config={"json":"%[3]s"}
  ROOT y = f32[16,64] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}, metadata={op_name="%[1]s"}
}
`, payload, strings.ReplaceAll(payload, "\x1b", `\033`), strings.Map(func(r rune) rune {
		if r < 0x20 {
			return -1 // JSON strings hold no raw control character
		}
		return r
	}, payload))
	m := parse(t, src)
	m.Entry.Instructions[0].Name = "x" + payload
	m.Entry.Name = "main" + payload
	return m
}

// unclean returns what in text a terminal or a reader could take for something else: a control character
// other than the newline, a format or separator character, or a byte that is not UTF-8.
func unclean(text string) string {
	if !utf8.ValidString(text) {
		return "invalid UTF-8"
	}
	for _, r := range text {
		if r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029) {
			return fmt.Sprintf("%U", r)
		}
	}
	return ""
}

// TestReadableHostile prints hostile modules in the readable style, with and without metadata and with
// annotations quoting the module: the text is clean, and its instruction lines (two spaces, then a
// name) are exactly the instructions, each on the line InstructionLine reports.
func TestReadableHostile(t *testing.T) {
	for name, payload := range payloads {
		m := hostileModule(t, payload)
		for _, meta := range []bool{false, true} {
			cfg := printer.ConfigFor(printer.StyleReadable)
			cfg.PrintMetadata = meta
			cfg.Annotate = func(in *hlo.Instruction) []string {
				return []string{"target " + in.CustomCallTarget(), "of " + in.Name}
			}
			lines := map[int]*hlo.Instruction{}
			cfg.InstructionLine = func(in *hlo.Instruction, l int) { lines[l] = in }
			text := printer.Sprint(m, cfg)
			if why := unclean(text); why != "" {
				t.Errorf("%s, metadata %v: the text holds %s:\n%s", name, meta, why, text)
			}
			n := 0
			for i, l := range strings.Split(text, "\n") {
				if !strings.HasPrefix(l, "  ") || strings.HasPrefix(l, "   ") {
					continue
				}
				n++
				in := lines[i]
				if in == nil {
					t.Errorf("%s, metadata %v: line %d is no instruction's: %q", name, meta, i, l)
					continue
				}
				head, _, _ := strings.Cut(printer.InstructionString(in, cfg), " = ")
				if !strings.HasPrefix(strings.TrimPrefix(l[2:], "ROOT "), head+" = ") {
					t.Errorf("%s, metadata %v: line %d is not an instruction's: %q", name, meta, i, l)
				}
			}
			if n != len(m.Entry.Instructions) || len(lines) != n {
				t.Errorf("%s, metadata %v: %d instruction lines, %d reported, for %d instructions:\n%s", name, meta, n, len(lines), len(m.Entry.Instructions), text)
			}
		}
	}
}

// TestInstructionLine checks the line every style reports for every instruction of the examples and of
// nested bodies: the line holds the instruction's name, after its indentation and ROOT.
func TestInstructionLine(t *testing.T) {
	m := parse(t, `HloModule nested

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[4] parameter(0), backend_config={"a":{"b":[1,2]},"c":"d"}
  z = f32[] constant(0)
  ROOT r = f32[] reduce(x, z), dimensions={0}, to_apply=add
}
`)
	for _, style := range []printer.Style{printer.StyleReadable, printer.StyleXLA, printer.StyleXLAShort} {
		for _, mode := range []printer.SubcomputationMode{printer.SubcomputationsNameOnly, printer.SubcomputationsFullBodies} {
			cfg := printer.ConfigFor(style)
			cfg.PrintSubcomputationMode = mode
			var seen []string
			var text []string
			cfg.InstructionLine = func(in *hlo.Instruction, l int) {
				seen = append(seen, fmt.Sprintf("%d %s", l, in.Name))
			}
			text = strings.Split(printer.Sprint(m, cfg), "\n")
			want := 6
			if mode == printer.SubcomputationsFullBodies {
				want = 9
			}
			if len(seen) != want {
				t.Errorf("%v, mode %d: %d instructions reported, want %d", style, mode, len(seen), want)
			}
			for _, s := range seen {
				var l int
				var name string
				fmt.Sscan(s, &l, &name)
				line := strings.TrimLeft(text[l], " ")
				line = strings.TrimPrefix(strings.TrimPrefix(line, "ROOT "), "%")
				if !strings.HasPrefix(line, name+" = ") {
					t.Errorf("%v, mode %d: %s is reported on line %d: %q", style, mode, name, l, text[l])
				}
			}
		}
	}
}

// TestXLAMetadataEscaped prints hostile modules as XLA does: the metadata and frontend attributes hold no
// raw control byte (XLA's printer escapes them: CEscape), so a printed module cannot drive a terminal or
// forge a line from them.
func TestXLAMetadataEscaped(t *testing.T) {
	for name, payload := range payloads {
		m := hostileModule(t, payload)
		m.Entry.Instructions[0].Name, m.Entry.Name = "x", "main" // the names are not at issue here
		cfg := printer.ConfigFor(printer.StyleXLA)
		cfg.PrintMetadata = true
		text := printer.Sprint(m, cfg)
		for _, key := range []string{"metadata={", "frontend_attributes={"} {
			for rest := text; ; {
				i := strings.Index(rest, key)
				if i < 0 {
					break
				}
				rest = rest[i+len(key):]
				end := strings.Index(rest, "}")
				if end < 0 {
					end = len(rest)
				}
				for _, c := range []byte(rest[:end]) {
					if c < 0x20 || c == 0x7f {
						t.Errorf("%s: %s%s} holds the raw byte %#x", name, key, rest[:end], c)
						break
					}
				}
			}
		}
	}
}

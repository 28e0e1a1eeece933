package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"octet/internal/cstring"
)

// hostilePayloads are what a module's author puts in its strings to mislead whoever reads what Octet
// prints: a forged instruction line, terminal escapes (window title, clear screen), a NUL, bytes that
// are not UTF-8, a direction override, and a string of 100,000 characters.
var hostilePayloads = map[string]string{
	"newline":  "1\n  y = f32[16,64] custom-call(x), custom_call_target=__cublas$lt$matmul$f8 // FORGED",
	"escape":   "\x1b]0;pwned\x07\x1b[2J\x1b[H",
	"nul":      "a\x00b",
	"bytes":    "\xff\xfe\xc0",
	"override": "gnp.\u202eexe",
	"overlong": strings.Repeat("long", 25000),
}

// hostileSlots are the places of a module a string goes in: each takes the payload as HLO text writes
// it (escaped, or raw where the text allows a raw string) and gives one line of the module.
var hostileSlots = map[string]func(escaped, raw string) string{
	"frontend_attributes": func(e, r string) string {
		return fmt.Sprintf(`  a = f8e4m3fn[16,32] parameter(0), frontend_attributes={k="%s",raw="%s"}`, e, r)
	},
	"backend_config": func(e, r string) string {
		return fmt.Sprintf(`  cq = f32[16,32] custom-call(ca), custom_call_target="t", backend_config="%s"`+"\n"+
			`  cc = f32[16,32] custom-call(cq), custom_call_target="t", backend_config={"k":"%s"}`, e, r)
	},
	"source_file": func(e, r string) string {
		return fmt.Sprintf(`  cc = f32[16,32] add(ca, ca), metadata={op_name="add" source_file="%s" source_line=3}`, e)
	},
	"custom_call_target": func(e, r string) string {
		return fmt.Sprintf(`  cc = f32[16,32] custom-call(ca), custom_call_target="%s"`, e)
	},
	"op_name": func(e, r string) string {
		return fmt.Sprintf(`  cc = f32[16,32] add(ca, ca), metadata={op_name="%s" source_file="f.py" source_line=3}`, e)
	},
}

// hostileText is an FP8 GEMM whose operand chain runs through the slot's line (which defines a and cc),
// so that every command shows the payload: the dot's metadata repeats it.
func hostileText(slot string, escaped, raw string) string {
	line := hostileSlots[slot](escaped, raw)
	head := "  a = f8e4m3fn[16,32] parameter(0)\n"
	if slot == "frontend_attributes" {
		head, line = line+"\n", "  cc = f32[16,32] add(ca, ca)"
	}
	return "HloModule hostile\n\nENTRY main {\n" + head +
		"  b = f8e4m3fn[32,64] parameter(1)\n" +
		"  ca = f32[16,32] convert(a)\n" +
		"  cb = f32[32,64] convert(b)\n" +
		line + "\n" +
		fmt.Sprintf("  ROOT y = f32[16,64] dot(cc, cb), lhs_contracting_dims={1}, rhs_contracting_dims={0}, metadata={op_name=\"%s\" source_file=\"%s\" source_line=7}\n}\n", escaped, escaped)
}

// dirty returns what in a command's text output could pass for something else: a control character but
// the newline, a format or separator character, a byte that is not UTF-8; "" when there is none.
func dirty(s string) string {
	if !utf8.ValidString(s) {
		return "invalid UTF-8"
	}
	for i, r := range s {
		if r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029) {
			return fmt.Sprintf("%U at byte %d", r, i)
		}
	}
	return ""
}

// wellFormed reports the first XML error of a drawing, or nil.
func wellFormed(svg string) error {
	d := xml.NewDecoder(strings.NewReader(svg))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

var (
	instructionLine = regexp.MustCompile(`(?m)^  (ROOT )?[A-Za-z_][A-Za-z0-9_.$-]* = `)
	svgElement      = regexp.MustCompile(`(?s)<svg .*?</svg>`)
)

// TestHostileModules runs every payload in every slot, escaped and raw where the text allows it,
// through print, check, verify, diff, fuse --explain, report and both exports: every command succeeds,
// every text output is clean (no control character, no direction override, valid UTF-8) and shows
// exactly the module's instructions as instruction lines, every JSON output parses, every drawing of the
// page is well-formed XML and every link resolves, and Graphviz renders the DOT when it is installed.
func TestHostileModules(t *testing.T) {
	dir := t.TempDir()
	dotRendered := false
	for slot := range hostileSlots {
		for name, payload := range hostilePayloads {
			// Raw, a payload may hold anything but the quote and the backslash, which end or escape the
			// string.
			raw := strings.NewReplacer(`"`, "", `\`, "").Replace(payload)
			src := hostileText(slot, cstring.Escape(payload), raw)
			file := writeTemp(t, dir, slot+"-"+name+".hlo", src)
			what := slot + "/" + name
			run := func(args ...string) string {
				t.Helper()
				code, out, errs := runOctet(t, "", args...)
				if code != 0 {
					t.Errorf("%s: octet %s: exit %d:\n%.2000s", what, args[0], code, errs)
				}
				if d := dirty(errs); d != "" {
					t.Errorf("%s: octet %s: standard error holds %s", what, args[0], d)
				}
				return out
			}
			clean := func(cmd, out string) {
				t.Helper()
				if d := dirty(out); d != "" {
					t.Errorf("%s: octet %s prints %s:\n%.3000s", what, cmd, d, out)
				}
			}

			text := run("print", file)
			clean("print", text)
			want := len(instructionLine.FindAllString(hostileText(slot, "", ""), -1))
			if n := len(instructionLine.FindAllString(text, -1)); n != want {
				t.Errorf("%s: print shows %d instruction lines for %d instructions:\n%.3000s", what, n, want, text)
			}
			for _, cmd := range [][]string{{"check", file}, {"verify", file}, {"diff", file, file}, {"fuse", "--explain", file}} {
				clean(cmd[0], run(cmd...))
			}
			for _, cmd := range [][]string{{"check", "--json", file}, {"print", "--format=json", file}, {"export", "--format=model-explorer", file}} {
				if out := run(cmd...); !json.Valid([]byte(out)) || !utf8.ValidString(out) {
					t.Errorf("%s: octet %s: not valid JSON in UTF-8", what, strings.Join(cmd[:len(cmd)-1], " "))
				}
			}

			page := run("report", file)
			clean("report", page)
			if !strings.Contains(page, "<b>1 FP8 GEMMs</b>") {
				t.Errorf("%s: the page does not show the GEMM", what)
			}
			if n := strings.Count(page, `<span id="m0-L`); n != strings.Count(text, "\n") {
				t.Errorf("%s: the page's text has %d lines, print %d", what, n, strings.Count(text, "\n"))
			}
			for _, svg := range svgElement.FindAllString(page, -1) {
				if err := wellFormed(svg); err != nil {
					t.Errorf("%s: a drawing is not well-formed XML: %v", what, err)
				}
			}
			checkSelfContained(t, page)
			if len(page) > 1<<20 {
				t.Errorf("%s: a page of %d bytes for one GEMM", what, len(page))
			}

			for _, args := range [][]string{{"export", "--format=dot", file}, {"export", "--format=dot", "--all", file}} {
				out := run(args...)
				clean("export --format=dot", out)
				for _, l := range strings.Split(out, "\n") {
					if len(l) > 16384 {
						t.Errorf("%s: %v: a line of %d bytes", what, args, len(l))
					}
				}
				dotRendered = renderDOT(t, what, out)
			}
		}
	}
	// A name no HLO text can write, in proto text, is refused, and the refusal is clean too.
	proto := filepath.Join(dir, "name.pbtxt")
	os.WriteFile(proto, []byte("hlo_module {\n  name: \"m\"\n  entry_computation_name: \"e\\033]0;t\\007\\n\"\n  computations { name: \"e\\033]0;t\\007\\n\" }\n}\n"), 0o644)
	code, out, errs := runOctet(t, "", "check", proto)
	if code != 1 || dirty(out+errs) != "" || !strings.HasPrefix(errs, proto+":") {
		t.Errorf("a computation name with escapes: exit %d, %q %q", code, out, errs)
	}
	if !dotRendered {
		t.Log("Graphviz's dot is not installed (apt-get install graphviz): the DOT was not rendered")
	}
}

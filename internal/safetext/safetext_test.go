package safetext

import (
	"bytes"
	"encoding/xml"
	"html"
	"os/exec"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"octet/internal/cstring"
)

// hostile are strings a module may hold, each of which some output would otherwise show wrongly.
var hostile = []string{
	"",
	"plain_name.1",
	"a\nb",
	"line\r\nline",
	"tab\there",
	"\x1b]0;pwned\x07title",
	"\x1b[2J\x1b[H",
	"nul\x00byte",
	"bad\xffbyte\xfe",
	"cut\xe2\x80",              // a character cut short
	"right\u202eexe.gnp",       // a direction override
	"iso\u2066late\u2069",      // an isolate
	"zero\u200bwidth\ufeff",    // invisible characters
	"sep\u2028ara\u2029tor",    // line and paragraph separators
	"c1\u0085\u009bcontrol",    // C1 controls
	"xml\ufffe\uffffnon",       // XML's noncharacters
	"del\x7fete",               // DEL
	`back\slash \n \033 "q" '`, // escapes already written stay as written
	"ünïcödé 数 ✓ €",
	strings.Repeat("long ", 10000),
}

// clean reports what is wrong with an escaped string: invalid UTF-8, or a character Escape must not let
// through.
func clean(s string) string {
	if !utf8.ValidString(s) {
		return "not valid UTF-8"
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029 || r == 0xfffe || r == 0xffff {
			return "holds " + string(rune(r))
		}
	}
	return ""
}

func TestEscape(t *testing.T) {
	for _, s := range hostile {
		e := Escape(s)
		if why := clean(e); why != "" {
			t.Errorf("Escape(%q) = %q: %s", s, e, why)
		}
		if Escape(e) != e {
			t.Errorf("Escape is not idempotent on %q", s)
		}
		if AppendEscape([]byte("x"), s); string(AppendEscape([]byte("x"), s)) != "x"+e {
			t.Errorf("AppendEscape(%q) differs from Escape", s)
		}
		if l := Lines(s); strings.ReplaceAll(l, "\n", `\n`) != e {
			t.Errorf("Lines(%q) = %q, Escape %q", s, l, e)
		}
	}
	// What XLA's absl::CEscape writes for every ASCII control byte, and octal for the bytes of the
	// characters escaped.
	for c := 0; c < 0x80; c++ {
		s := string(rune(c))
		want := s
		if c < 0x20 || c == 0x7f {
			want = cstring.Escape(s)
		}
		if got := Escape(s); got != want {
			t.Errorf("Escape(%q) = %q, want %q", s, got, want)
		}
	}
	for s, want := range map[string]string{
		"\u202e": `\342\200\256`, "\xff": `\377`, "a\u0085b": `a\302\205b`, "\ufeff": `\357\273\277`, "é": "é",
	} {
		if got := Escape(s); got != want {
			t.Errorf("Escape(%q) = %q, want %q", s, got, want)
		}
	}
	// Printable text is returned as it is, without allocating.
	p := "jit(train_step)/dot_general ünïcödé"
	if n := testing.AllocsPerRun(10, func() { Escape(p) }); n != 0 || Escape(p) != p {
		t.Errorf("Escape of printable text: %v allocations, %q", n, Escape(p))
	}
}

// TestEveryRune escapes every character: the result is always clean, and a character is kept exactly
// when it is printable or white space other than the line separators.
func TestEveryRune(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		s := string(r)
		e := Escape(s)
		if why := clean(e); why != "" {
			t.Fatalf("Escape(%U) = %q: %s", r, e, why)
		}
		kept := e == s
		want := !(unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029 || r == 0xfffe || r == 0xffff)
		if kept != want {
			t.Fatalf("Escape(%U) = %q: kept %v, want %v", r, e, kept, want)
		}
	}
}

func TestShort(t *testing.T) {
	for _, s := range hostile {
		for _, n := range []int{1, 2, 5, 8, 44, 200} {
			got := Short(s, n)
			if why := clean(got); why != "" {
				t.Errorf("Short(%q, %d) = %q: %s", s, n, got, why)
			}
			e := Escape(s)
			switch {
			case utf8.RuneCountInString(got) > n:
				t.Errorf("Short(%q, %d) = %q: %d characters", s, n, got, utf8.RuneCountInString(got))
			case got == e:
				if utf8.RuneCountInString(e) > n {
					t.Errorf("Short(%q, %d) did not cut", s, n)
				}
			case !strings.HasSuffix(got, Ellipsis) || !strings.HasPrefix(e, strings.TrimSuffix(got, Ellipsis)):
				t.Errorf("Short(%q, %d) = %q is not a cut of %q", s, n, got, e)
			}
		}
	}
	// An escape sequence is whole or left out.
	if got := Short("ab\x1bcd", 4); got != "ab…" {
		t.Errorf("Short cuts an escape: %q", got)
	}
	if got := Short("abc", 3); got != "abc" {
		t.Errorf("Short(abc, 3) = %q", got)
	}
}

// TestHTML checks that every hostile string, as HTML, is well-formed XML text and attribute value that
// reads back as Escape's form.
func TestHTML(t *testing.T) {
	for _, s := range hostile {
		h := HTML(s)
		doc := `<svg xmlns="http://www.w3.org/2000/svg"><title a="` + h + `">` + h + `</title></svg>`
		d := xml.NewDecoder(strings.NewReader(doc))
		var text, attr string
		for {
			tok, err := d.Token()
			if err != nil {
				if err.Error() != "EOF" {
					t.Errorf("HTML(%q): not well-formed XML: %v", s, err)
				}
				break
			}
			switch tok := tok.(type) {
			case xml.StartElement:
				if len(tok.Attr) > 0 {
					attr = tok.Attr[0].Value
				}
			case xml.CharData:
				text += string(tok)
			}
		}
		if text != Escape(s) || attr != Escape(s) || html.UnescapeString(h) != Escape(s) {
			t.Errorf("HTML(%q) reads back as %q and %q", s, text, attr)
		}
	}
}

// TestDOT renders every hostile string as a Graphviz label, when Graphviz is installed: dot accepts the
// graph and shows each label as Escape's form, cut to MaxDOT characters.
func TestDOT(t *testing.T) {
	var b strings.Builder
	b.WriteString("digraph g {\n")
	for i, s := range hostile {
		label := DOT(s)
		if strings.ContainsAny(label[1:len(label)-1], "\n\x00") || !utf8.ValidString(label) {
			t.Errorf("DOT(%q) = %q", s, label)
		}
		b.WriteString("  n" + string(rune('a'+i)) + " [label=" + label + "];\n")
	}
	b.WriteString("  two [label=" + DOTLines("first\nline", "second\x00") + "];\n}\n")
	dot, err := exec.LookPath("dot")
	if err != nil {
		t.Skip("Graphviz's dot is not installed (apt-get install graphviz): the labels were not rendered")
	}
	cmd := exec.Command(dot, "-Tsvg")
	cmd.Stdin = strings.NewReader(b.String())
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil || errs.Len() > 0 {
		t.Fatalf("dot: %v: %s", err, errs.String())
	}
	var texts []string
	d := xml.NewDecoder(&out)
	d.Strict = false
	inText := false
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			inText = tok.Name.Local == "text"
			if inText {
				texts = append(texts, "")
			}
		case xml.EndElement:
			inText = false
		case xml.CharData:
			if inText {
				texts[len(texts)-1] += string(tok)
			}
		}
	}
	shown := map[string]bool{}
	for _, s := range texts {
		shown[s] = true
	}
	for _, s := range hostile {
		if want := Short(s, MaxDOT); want != "" && !shown[want] {
			t.Errorf("dot does not show %q as %q", s, want)
		}
	}
	if !shown[`first\nline`] || !shown[`second\000`] {
		t.Errorf("the two lines of a label are not shown apart: %q", texts)
	}
}

// TestPrintablePrefix checks the word-at-a-time scan against a byte at a time, with every byte at every
// position of a word.
func TestPrintablePrefix(t *testing.T) {
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 19; pos++ {
			b := []byte(strings.Repeat("a", 19))
			b[pos] = byte(c)
			want := 19
			if c < 0x20 || c >= 0x7f {
				want = pos
			}
			if got := printablePrefix(string(b)); got != want {
				t.Fatalf("byte %#x at %d: prefix %d, want %d", c, pos, got, want)
			}
		}
	}
}

package stablehlo

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// A small FileCheck: enough of LLVM's FileCheck to run XLA's translation tests against Octet's output.
// It reads the check lines of a test (CHECK, CHECK-NEXT, CHECK-SAME, CHECK-LABEL, CHECK-NOT, CHECK-DAG,
// CHECK-EMPTY, CHECK-COUNT-n, under any prefixes, with {LITERAL}), turns each pattern into a regular
// expression ({{regex}}, [[VAR:regex]] definitions and [[VAR]] uses, runs of blanks as one), and matches
// them against the output as FileCheck does: labels first split the output into blocks, then the other
// checks match in order within their block, CHECK-NOT between the matches around it.

// checkKind is the directive of a check line.
type checkKind int

const (
	checkPlain checkKind = iota
	checkNext
	checkSame
	checkLabel
	checkNot
	checkDag
	checkEmpty
	checkCount
)

// check is one check line.
type check struct {
	kind    checkKind
	count   int // CHECK-COUNT-n
	pattern string
	literal bool
	line    int // in the test file, for messages
}

// parseChecks returns the check lines of text for the given prefixes, in order.
func parseChecks(text string, prefixes []string) []check {
	sorted := append([]string(nil), prefixes...)
	sort.Slice(sorted, func(i, j int) bool { return len(sorted[i]) > len(sorted[j]) })
	quoted := make([]string, len(sorted))
	for i, p := range sorted {
		quoted[i] = regexp.QuoteMeta(p)
	}
	re := regexp.MustCompile(`(?:^|[^A-Za-z0-9_-])(` + strings.Join(quoted, "|") + `)(-NEXT|-SAME|-NOT|-DAG|-LABEL|-EMPTY|-COUNT-[0-9]+)?(\{LITERAL\})?:(.*)$`)
	var out []check
	for i, line := range strings.Split(text, "\n") {
		m := re.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		c := check{pattern: strings.TrimSpace(m[4]), literal: m[3] != "", line: i + 1}
		switch {
		case m[2] == "":
			c.kind = checkPlain
		case m[2] == "-NEXT":
			c.kind = checkNext
		case m[2] == "-SAME":
			c.kind = checkSame
		case m[2] == "-LABEL":
			c.kind = checkLabel
		case m[2] == "-NOT":
			c.kind = checkNot
		case m[2] == "-DAG":
			c.kind = checkDag
		case m[2] == "-EMPTY":
			c.kind = checkEmpty
		default:
			c.kind = checkCount
			c.count, _ = strconv.Atoi(strings.TrimPrefix(m[2], "-COUNT-"))
		}
		out = append(out, c)
	}
	return out
}

var blanks = regexp.MustCompile(`[ \t]+`)

// canonical makes every run of blanks one space, as FileCheck reads both its input and its patterns.
func canonical(s string) string { return blanks.ReplaceAllString(s, " ") }

// compile turns a pattern into a regular expression, with the values of the variables defined so far;
// defs names, in order, the capture groups that define variables.
func compile(c check, vars map[string]string) (re *regexp.Regexp, defs []string, err error) {
	p := canonical(c.pattern)
	if c.literal {
		re, err = regexp.Compile(regexp.QuoteMeta(p))
		return re, nil, err
	}
	var b strings.Builder
	lit := func(s string) { b.WriteString(regexp.QuoteMeta(s)) }
	for len(p) > 0 {
		i := strings.Index(p, "{{")
		j := strings.Index(p, "[[")
		switch {
		case i < 0 && j < 0:
			lit(p)
			p = ""
		case i >= 0 && (j < 0 || i < j):
			lit(p[:i])
			rest := p[i+2:]
			end := regexEnd(rest, "}}")
			if end < 0 {
				return nil, nil, fmt.Errorf("unterminated {{ in %q", c.pattern)
			}
			b.WriteString("(?:" + rest[:end] + ")")
			p = rest[end+2:]
		default:
			lit(p[:j])
			rest := p[j+2:]
			end := regexEnd(rest, "]]")
			if end < 0 {
				return nil, nil, fmt.Errorf("unterminated [[ in %q", c.pattern)
			}
			body := rest[:end]
			p = rest[end+2:]
			if strings.HasPrefix(body, "#") {
				// Numeric variables: any number (their expressions are not evaluated).
				b.WriteString(`(?:-?[0-9]+)`)
				continue
			}
			if name, re, ok := strings.Cut(body, ":"); ok {
				defs = append(defs, name)
				b.WriteString("(" + re + ")")
				continue
			}
			v, ok := vars[body]
			if !ok {
				return nil, nil, fmt.Errorf("variable %s used before it is defined", body)
			}
			lit(v)
		}
	}
	re, err = regexp.Compile(b.String())
	return re, defs, err
}

// regexEnd returns the index in s of the close marker that ends a {{...}} or [[...]], skipping escaped
// characters and, for [[, brackets of the regular expression inside.
func regexEnd(s, close string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			if close == "]]" {
				depth++
			}
		case ']':
			if close == "]]" && depth > 0 {
				depth--
				continue
			}
		}
		if depth == 0 && strings.HasPrefix(s[i:], close) {
			return i
		}
	}
	return -1
}

// fileCheck matches checks against output; it returns nil when every check holds, or the first that
// does not, with the reason.
func fileCheck(output string, checks []check) error {
	if len(checks) == 0 {
		return fmt.Errorf("no check lines")
	}
	output = canonical(output)
	vars := map[string]string{}
	// Labels split the output into blocks; each label's block runs to the next label's match.
	type block struct {
		start, end int // in output
		checks     []check
	}
	var blocks []block
	cur := block{start: 0}
	pos := 0
	for _, c := range checks {
		if c.kind != checkLabel {
			cur.checks = append(cur.checks, c)
			continue
		}
		re, defs, err := compile(c, vars)
		if err != nil {
			return fmt.Errorf("line %d: %v", c.line, err)
		}
		loc := re.FindStringSubmatchIndex(output[pos:])
		if loc == nil {
			return fmt.Errorf("line %d: CHECK-LABEL %q not found", c.line, c.pattern)
		}
		bind(vars, defs, output[pos:], loc)
		lineStart := strings.LastIndexByte(output[:pos+loc[0]], '\n') + 1
		cur.end = lineStart
		blocks = append(blocks, cur)
		cur = block{start: pos + loc[0], checks: []check{{kind: checkPlain, pattern: c.pattern, literal: c.literal, line: c.line}}}
		pos += loc[1]
	}
	cur.end = len(output)
	blocks = append(blocks, cur)
	for _, bl := range blocks {
		if err := matchBlock(output[bl.start:bl.end], bl.checks, vars); err != nil {
			return err
		}
	}
	return nil
}

// bind records the variables a match defines.
func bind(vars map[string]string, defs []string, text string, loc []int) {
	for k, name := range defs {
		if 2*k+3 < len(loc) && loc[2*k+2] >= 0 {
			vars[name] = text[loc[2*k+2]:loc[2*k+3]]
		}
	}
}

// matchBlock matches the checks of one block in order.
func matchBlock(text string, checks []check, vars map[string]string) error {
	pos := 0
	lastEnd := -1 // end of the previous match; -1 before the first
	var nots []check
	lineOf := func(off int) int { return strings.Count(text[:off], "\n") }
	find := func(c check, from int) (int, int, error) {
		re, defs, err := compile(c, vars)
		if err != nil {
			return 0, 0, err
		}
		loc := re.FindStringSubmatchIndex(text[from:])
		if loc == nil {
			return -1, -1, nil
		}
		bind(vars, defs, text[from:], loc)
		return from + loc[0], from + loc[1], nil
	}
	checkNots := func(from, to int) error {
		for _, n := range nots {
			re, _, err := compile(n, vars)
			if err != nil {
				return fmt.Errorf("line %d: %v", n.line, err)
			}
			if from <= to && re.MatchString(text[from:to]) {
				return fmt.Errorf("line %d: CHECK-NOT %q found", n.line, n.pattern)
			}
		}
		nots = nil
		return nil
	}
	for i := 0; i < len(checks); i++ {
		c := checks[i]
		switch c.kind {
		case checkNot:
			nots = append(nots, c)
			continue
		case checkDag:
			// A run of CHECK-DAGs matches in any order after pos; pos moves past the furthest.
			end := pos
			var used [][2]int
			for ; i < len(checks) && checks[i].kind == checkDag; i++ {
				d := checks[i]
				from := pos
				for {
					s, e, err := find(d, from)
					if err != nil {
						return fmt.Errorf("line %d: %v", d.line, err)
					}
					if s < 0 {
						return fmt.Errorf("line %d: CHECK-DAG %q not found", d.line, d.pattern)
					}
					overlap := false
					for _, u := range used {
						overlap = overlap || s < u[1] && e > u[0]
					}
					if !overlap {
						used = append(used, [2]int{s, e})
						end = max(end, e)
						break
					}
					from = s + 1
				}
			}
			i--
			if err := checkNots(pos, end); err != nil {
				return err
			}
			pos, lastEnd = end, end
			continue
		case checkEmpty:
			nl := strings.IndexByte(text[pos:], '\n')
			if nl < 0 || !strings.HasPrefix(text[pos+nl+1:], "\n") && pos+nl+1 != len(text) {
				return fmt.Errorf("line %d: CHECK-EMPTY: the next line is not empty", c.line)
			}
			pos = pos + nl + 1
			lastEnd = pos
			continue
		}
		times := 1
		if c.kind == checkCount {
			times = c.count
		}
		for k := 0; k < times; k++ {
			s, e, err := find(c, pos)
			if err != nil {
				return fmt.Errorf("line %d: %v", c.line, err)
			}
			if s < 0 {
				return fmt.Errorf("line %d: %s %q not found", c.line, kindName(c.kind), c.pattern)
			}
			switch c.kind {
			case checkNext:
				if lastEnd < 0 || lineOf(s) != lineOf(lastEnd)+1 {
					return fmt.Errorf("line %d: CHECK-NEXT %q is not on the next line", c.line, c.pattern)
				}
			case checkSame:
				if lastEnd >= 0 && lineOf(s) != lineOf(lastEnd) {
					return fmt.Errorf("line %d: CHECK-SAME %q is not on the same line", c.line, c.pattern)
				}
			}
			if err := checkNots(pos, s); err != nil {
				return err
			}
			pos, lastEnd = e, e
		}
	}
	return checkNots(pos, len(text))
}

func kindName(k checkKind) string {
	return [...]string{"CHECK", "CHECK-NEXT", "CHECK-SAME", "CHECK-LABEL", "CHECK-NOT", "CHECK-DAG", "CHECK-EMPTY", "CHECK-COUNT"}[k]
}

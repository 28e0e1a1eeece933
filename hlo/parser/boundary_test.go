package parser_test

import (
	"fmt"
	"go/ast"
	goparser "go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Only the readers read HLO syntax. The parser (and the HloModuleProto reader, for the values a proto
// holds as HLO text) turn text into typed values once; everything downstream reads those values. A package
// that re-reads text it found in the IR has its own rules for it, and its own bugs.
//
// TestOnlyReadersReadHLOSyntax holds every non-test Go file of the module outside the readers
// (hlo/parser, hlo/prototext) and the writer (hlo/printer) to three rules, and names each file that breaks
// one. A file "works on the IR" when it is in package hlo or imports a package under octet/hlo.
//
//  1. A file that works on the IR does not import regexp: there is no text in the IR to match patterns
//     against.
//  2. A file that works on the IR does not call strconv's Parse functions, strconv.Atoi or fmt.Sscan*,
//     unless readsOtherText names it with the text it reads (a command-line flag, /proc/meminfo), which is
//     not HLO syntax.
//  3. No file calls the parser's readers of single values (ParseShape, ParseLayout, ParseLiteral,
//     DecodeSharding, ParseConvDims): outside the readers, only whole files are read (ParseFile,
//     ParseModule, ParseString).
//
// The rules look at calls, not at data flow: they are a fence, simple to state and to keep, not a proof.
func TestOnlyReadersReadHLOSyntax(t *testing.T) {
	root := filepath.Join("..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found from %s: %v", root, err)
	}
	files := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if exemptDirs[rel] || d.Name() == "testdata" || rel != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		for _, v := range boundaryViolations(rel, src) {
			t.Errorf("%s", v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("checked only %d files under %s", files, root)
	}
}

// exemptDirs are the reader and writer packages the rules do not apply to (stablehlo reads MLIR text).
var exemptDirs = map[string]bool{"hlo/parser": true, "hlo/prototext": true, "hlo/printer": true, "stablehlo": true}

// readsOtherText lists the files that work on the IR and parse numbers from text that is not HLO syntax.
var readsOtherText = map[string]string{
	"cmd/octet/benchparse.go": "the peak memory in /proc/self/status",
	"cmd/octet/files.go":      "the machine's memory in /proc/meminfo",
	"cmd/octet/run.go":        "the --random flag's seed",
	"interp/memory.go":        "memory sizes such as 4GiB",
	"interp/sdy.go":           "Shardy's meshes and shardings: MLIR attributes that XLA's export keeps as frontend-attribute strings",
	"hlo/ffiattrs.go":         "a typed-FFI custom call's attributes: an MLIR dictionary that XLA keeps as backend_config text",
}

// singleValueReaders are the parser's readers that rule 3 keeps to the readers.
var singleValueReaders = map[string]bool{
	"ParseShape": true, "ParseLayout": true, "ParseLiteral": true, "DecodeSharding": true, "ParseConvDims": true,
}

// boundaryViolations returns the broken rules of the Go file at rel (slash-separated, from the module root).
func boundaryViolations(rel string, src []byte) []string {
	fset := token.NewFileSet()
	f, err := goparser.ParseFile(fset, rel, src, goparser.SkipObjectResolution)
	if err != nil {
		return []string{rel + ": " + err.Error()}
	}
	worksOnIR := f.Name.Name == "hlo" && filepath.ToSlash(filepath.Dir(rel)) == "hlo"
	names := map[string]string{} // local import name -> path
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		name := p[strings.LastIndexByte(p, '/')+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = p
		if p == "octet/hlo" || strings.HasPrefix(p, "octet/hlo/") {
			worksOnIR = true
		}
	}
	var out []string
	report := func(pos token.Pos, format string, args ...any) {
		out = append(out, fset.Position(pos).String()+": "+fmt.Sprintf(format, args...))
	}
	for _, imp := range f.Imports {
		if imp.Path.Value == `"regexp"` && worksOnIR {
			report(imp.Pos(), "imports regexp while working on the IR: read typed values, not text")
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		pkg, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		switch path, fn := names[pkg.Name], sel.Sel.Name; {
		case path == "octet/hlo/parser" && singleValueReaders[fn]:
			report(call.Pos(), "calls parser.%s: values in the IR are typed; only the readers read HLO syntax", fn)
		case worksOnIR && readsOtherText[rel] == "" &&
			(path == "strconv" && (strings.HasPrefix(fn, "Parse") || fn == "Atoi") ||
				path == "fmt" && strings.HasPrefix(fn, "Sscan")):
			report(call.Pos(), "calls %s.%s while working on the IR: read typed values, not text", pkg.Name, fn)
		}
		return true
	})
	return out
}

// TestBoundaryRules checks that each rule catches what it is meant to, and lets the rest through.
func TestBoundaryRules(t *testing.T) {
	for _, tt := range []struct {
		name, file, src, want string
	}{
		{"regexp", "fuse/x.go", "package fuse\nimport (\n\"regexp\"\n\"octet/hlo\"\n)\nvar _ hlo.Raw\nvar _ = regexp.MustCompile(``)\n",
			"fuse/x.go:3:1: imports regexp while working on the IR"},
		{"strconv", "interp/x.go", "package interp\nimport (\n\"strconv\"\n\"octet/hlo\"\n)\nfunc f(in *hlo.Instruction) { strconv.ParseInt(in.Str(\"x\"), 10, 64) }\n",
			"interp/x.go:6:31: calls strconv.ParseInt while working on the IR"},
		{"sscan", "hlo/x.go", "package hlo\nimport \"fmt\"\nfunc f(s string) { var n int; fmt.Sscanf(s, \"%d\", &n) }\n",
			"hlo/x.go:3:31: calls fmt.Sscanf while working on the IR"},
		{"reader", "cublas/x.go", "package cublas\nimport p \"octet/hlo/parser\"\nvar _, _ = p.ParseLiteral(\"1\", p.Shape{})\n",
			"cublas/x.go:3:12: calls parser.ParseLiteral"},
		{"listed", "interp/memory.go", "package interp\nimport (\n\"strconv\"\n\"octet/hlo\"\n)\nvar _ hlo.Raw\nvar _, _ = strconv.Atoi(\"4\")\n", ""},
		{"not the IR", "dtype/x.go", "package dtype\nimport \"strconv\"\nvar _, _ = strconv.Atoi(\"4\")\n", ""},
		{"whole files", "cmd/octet/x.go", "package main\nimport \"octet/hlo/parser\"\nvar _, _ = parser.ParseString(\"a\", \"b\")\n", ""},
	} {
		got := strings.Join(boundaryViolations(tt.file, []byte(tt.src)), "\n")
		if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("%s: violations %q, want %q", tt.name, got, tt.want)
		}
	}
}

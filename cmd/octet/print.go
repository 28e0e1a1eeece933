package main

import (
	"errors"
	"flag"
	"fmt"
	"go/scanner"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"octet/cublas"
	"octet/hlo"
	"octet/hlo/printer"
	"octet/stablehlo"
)

func init() {
	register(&command{
		Name:      "print",
		UsageLine: "print [--format=readable|hlo|xla|xla-long|xla-short|json] [--large-constants] [--metadata] [--color=auto|always|never] [--module NAME] FILE|-|DIR",
		Short:     "print an HLO module, readably or exactly as XLA does",
		Long: `Print reads HLO text (FILE may be gzipped; - is standard input) and prints it.

StableHLO (MLIR text, as jax.jit(f).lower(...).as_text() prints it) is printed readably by default: the
text as written without its locations (the loc(...) annotations and the #loc aliases), each op whose
location names a source file noted with a "// file:line" comment. --format=hlo prints the HLO it converts
to, in the readable format; the other formats print that HLO too. For HLO text, hlo is the same as
readable.

Formats:
  readable   (default) for people: no metadata, no "%", no operand shapes, default layouts left out,
             JSON backend configs indented under their instruction, and every cuBLAS GEMM custom call
             (__cublas$lt$matmul$f8 and the others) summarised on a comment line under it
  xla        what XLA's HloModule::ToString() prints with default options (operand shapes on)
  xla-long   xla with large constants
  xla-short  XLA's ShortParsable() options: no metadata, no operand shapes, no "%"
  json       a JSON document of the module (one object; an array when the file holds several modules)

For text XLA printed with the same options, the xla formats give it back byte for byte.

DIR is an XLA dump folder (--xla_dump_to): without --module, print lists the HLO modules in it; with
--module NAME it prints the one whose module name or file name is NAME (or begins with NAME). --module
also picks one module of a file that holds several.

Colour is used for the readable format when standard output is a terminal and NO_COLOR is not set
(--color=auto), or always, or never.`,
		Order: 10,
		Run:   runPrint,

		ReadsModules: true,
	})
}

// printFlags are the options of "octet print".
type printFlags struct {
	format         string
	largeConstants bool
	metadata       bool
	color          string
	module         string
}

func runPrint(inv *invocation, args []string) error {
	fs := inv.flags()
	var f printFlags
	fs.StringVar(&f.format, "format", "readable", "output `format`: readable, hlo, xla, xla-long, xla-short or json")
	fs.BoolVar(&f.largeConstants, "large-constants", false, "print constants of more than 10 elements in full")
	fs.BoolVar(&f.metadata, "metadata", false, "print metadata and stack frames (readable and xla-short formats)")
	fs.StringVar(&f.color, "color", "auto", "colour the readable format: `auto`, always or never")
	fs.StringVar(&f.module, "module", "", "the module to print: a module `name` or a file name of a dump folder")
	pos, err := parseInterspersed(inv, fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("print takes one FILE, - or DIR")
	}
	format := f.format
	if format == "hlo" {
		format = "readable"
	}
	style, err := printer.ParseStyle(format)
	if err != nil {
		return usagef("unknown format %q (want readable, hlo, xla, xla-long, xla-short or json)", f.format)
	}
	cfg := printConfig(style)
	cfg.PrintLargeConstants = cfg.PrintLargeConstants || f.largeConstants
	if f.metadata {
		cfg.PrintMetadata = true
	}
	switch f.color {
	case "always":
		cfg.Color = true
	case "never":
	case "auto":
		cfg.Color = inv.isTerminal && inv.getenv("NO_COLOR") == ""
	default:
		return usagef("--color must be auto, always or never, not %q", f.color)
	}
	cfg.Color = cfg.Color && style == printer.StyleReadable

	name := pos[0]
	if name != "-" {
		if fi, err := os.Stat(name); err == nil && fi.IsDir() {
			if f.module == "" {
				return listDumpFolder(inv, name)
			}
			file, err := findDumpModule(name, f.module)
			if err != nil {
				return err
			}
			name = file
			f.module = "" // the file is the module
		}
	}
	src, display, err := inv.readInput(name)
	if err != nil {
		return err
	}
	if f.format == "readable" && isStableHLO(src) {
		if f.module != "" {
			return usagef("--module picks among HLO modules: add --format=hlo to print those StableHLO converts to")
		}
		text, err := stablehlo.Readable(token.NewFileSet(), display, src)
		if err != nil {
			return parseError(err)
		}
		_, err = inv.stdout.Write(text)
		return err
	}
	mods, err := inv.parseSource(display, src)
	if err != nil {
		return err
	}
	reportIgnored(inv.stderr, mods)
	if f.module != "" {
		m, err := selectModule(mods, f.module)
		if err != nil {
			return err
		}
		mods = []*hlo.Module{m}
	}
	return writeModules(inv.stdout, mods, cfg)
}

// printConfig returns the options of style as the commands print modules: the readable style summarises
// cuBLAS GEMM custom calls under them.
func printConfig(style printer.Style) printer.Config {
	cfg := printer.ConfigFor(style)
	cfg.Annotate = withShardings(cublas.Annotate)
	return cfg
}

// parseInterspersed parses flags that may come before or after the positional arguments
// ("octet print f.hlo --format=xla"), returning the positional ones. "--" ends the flags.
func parseInterspersed(inv *invocation, fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := inv.parse(fs, args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		rest := fs.Args()
		if len(args) > 0 && len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// writeModules prints modules one after another: XLA's "// -----" separates them in the text formats,
// and the JSON format makes an array of them.
func writeModules(w io.Writer, mods []*hlo.Module, cfg printer.Config) error {
	json := cfg.Style == printer.StyleJSON && len(mods) > 1
	if json {
		if _, err := io.WriteString(w, "[\n"); err != nil {
			return err
		}
	}
	for i, m := range mods {
		if i > 0 {
			sep := "// -----\n\n"
			if json {
				sep = ",\n"
			}
			if _, err := io.WriteString(w, sep); err != nil {
				return err
			}
		}
		if err := printer.Fprint(w, m, cfg); err != nil {
			return err
		}
	}
	if json {
		_, err := io.WriteString(w, "]\n")
		return err
	}
	return nil
}

// maxReportedErrors bounds the parse errors a command prints.
const maxReportedErrors = 10

// parseError turns a parser's error list into one error whose message has every error on its own
// "file:line:col: message" line.
func parseError(err error) error {
	var list scanner.ErrorList
	if !errors.As(err, &list) || len(list) <= 1 {
		return err
	}
	var b strings.Builder
	for i, e := range list {
		if i == maxReportedErrors {
			fmt.Fprintf(&b, "(and %d more errors)\n", len(list)-i)
			break
		}
		b.WriteString(esc(e.Error()))
		b.WriteByte('\n')
	}
	return errors.New(strings.TrimSuffix(b.String(), "\n"))
}

// selectModule picks the module named name among those of one file; none, or two of that name, is an
// error naming the file (and where each of the two starts).
func selectModule(mods []*hlo.Module, name string) (*hlo.Module, error) {
	var names []string
	var found []*hlo.Module
	for _, m := range mods {
		if m.Name == name {
			found = append(found, m)
		}
		names = append(names, m.Name)
	}
	file := ""
	if len(mods) > 0 {
		if f := mods[0].Position(mods[0].Pos).Filename; f != "" {
			file = f + ": "
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("%sno module named %q; the file holds %s", file, name, strings.Join(names, ", "))
	case 1:
		return found[0], nil
	}
	var at []string
	for _, m := range found {
		at = append(at, strconv.Itoa(m.Position(m.Pos).Line))
	}
	return nil, fmt.Errorf("%s%d modules are named %q (lines %s): --module cannot tell them apart", file, len(found), name, strings.Join(at, ", "))
}

// dumpModule is one HLO text file of an XLA dump folder.
type dumpModule struct {
	file  string // base name
	path  string
	name  string // module name from the header ("" when the header could not be read)
	stage string // what the file name says about it: "before optimizations", "after optimizations", ...
}

// readDumpFolder finds the HLO text files of an XLA dump folder: files whose text starts with "HloModule"
// (the .ll, .ptx, buffer assignments and other files of a dump are skipped).
func readDumpFolder(dir string) ([]dumpModule, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", dir, trimPathError(err))
	}
	var mods []dumpModule
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		// Only regular files: a named pipe in the folder would make the read wait for a writer.
		if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		name, ok := hloModuleName(path)
		if !ok {
			continue
		}
		mods = append(mods, dumpModule{file: e.Name(), path: path, name: name, stage: dumpStage(e.Name(), name)})
	}
	sort.Slice(mods, func(i, j int) bool { return mods[i].file < mods[j].file })
	return mods, nil
}

// hloModuleName reads the start of a file and returns the module name of its "HloModule" header.
func hloModuleName(path string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	buf := make([]byte, 512)
	n, _ := io.ReadFull(f, buf)
	text := strings.TrimLeft(string(buf[:n]), " \t\r\n")
	if !strings.HasPrefix(text, "HloModule ") {
		return "", false
	}
	text = strings.TrimPrefix(text, "HloModule ")
	end := strings.IndexAny(text, ", \t\r\n")
	if end < 0 {
		end = len(text)
	}
	return text[:end], true
}

// dumpStage describes a dump file from its name: module_0001.jit_f.after_optimizations.txt gives
// "after optimizations" (XLA names dump files module_NNNN.<module>.<what>.txt).
func dumpStage(file, module string) string {
	s := strings.TrimSuffix(strings.TrimSuffix(file, ".gz"), ".txt")
	if strings.HasPrefix(s, "module_") {
		if i := strings.IndexByte(s, '.'); i >= 0 {
			s = s[i+1:]
		}
		if rest, ok := strings.CutPrefix(s, module+"."); ok {
			s = rest
		} else if i := strings.IndexByte(s, '.'); i >= 0 {
			s = s[i+1:]
		}
	}
	return strings.ReplaceAll(s, "_", " ")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func listDumpFolder(inv *invocation, dir string) error {
	mods, err := readDumpFolder(dir)
	if err != nil {
		return err
	}
	if len(mods) == 0 {
		return fmt.Errorf("%s: no HLO modules (files starting with \"HloModule\") in this folder", dir)
	}
	fmt.Fprintf(inv.stdout, "%s: %d HLO module files\n", esc(dir), len(mods))
	tw := tabwriter.NewWriter(inv.stdout, 0, 4, 2, ' ', 0)
	for _, d := range mods {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", esc(d.file), esc(d.name), esc(d.stage), esc(describeFile(inv, d.path)))
	}
	tw.Flush()
	fmt.Fprintf(inv.stdout, "Print one with --module NAME (a file name above, or a module name when only one file has it).\n")
	return nil
}

// describeFile summarises a module file in a few words: its size and its cuBLAS GEMM calls.
func describeFile(inv *invocation, path string) string {
	mods, err := inv.parseModules(path)
	if err != nil {
		msg := err.Error()
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		return "does not parse: " + strings.TrimPrefix(msg, path+":")
	}
	comps, insts := 0, 0
	gemms := map[string]int{}
	for _, m := range mods {
		comps += len(m.Computations)
		for _, c := range m.Computations {
			insts += len(c.Instructions)
			for _, in := range c.Instructions {
				if in.Opcode == hlo.OpCustomCall && cublas.IsTarget(in.CustomCallTarget()) {
					gemms[in.CustomCallTarget()]++
				}
			}
		}
	}
	s := plural(comps, "computation") + ", " + plural(insts, "instruction")
	for _, t := range []string{cublas.TargetF8, cublas.TargetLt, cublas.TargetGemm} {
		if n := gemms[t]; n > 0 {
			s += fmt.Sprintf(", %d %s", n, t)
		}
	}
	return s
}

// findDumpModule returns the file of a dump folder that NAME designates: a file name, a file name without
// its extension or a prefix of one (module_0001), or a module name that one file alone has.
func findDumpModule(dir, name string) (string, error) {
	mods, err := readDumpFolder(dir)
	if err != nil {
		return "", err
	}
	var byFile, byPrefix, byModule []dumpModule
	for _, d := range mods {
		switch {
		case d.file == name || strings.TrimSuffix(d.file, ".txt") == name:
			byFile = append(byFile, d)
		case strings.HasPrefix(d.file, name):
			byPrefix = append(byPrefix, d)
		}
		if d.name == name {
			byModule = append(byModule, d)
		}
	}
	for _, cands := range [][]dumpModule{byFile, byModule, byPrefix} {
		switch len(cands) {
		case 0:
			continue
		case 1:
			return cands[0].path, nil
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s: --module %s matches %d files; name one of them:\n", dir, name, len(cands))
		for _, d := range cands {
			fmt.Fprintf(&b, "  --module %s   (%s, %s)\n", d.file, d.name, d.stage)
		}
		return "", &exitError{code: 2, msg: strings.TrimSuffix(b.String(), "\n")}
	}
	var names []string
	seen := map[string]bool{}
	for _, d := range mods {
		if !seen[d.name] {
			seen[d.name] = true
			names = append(names, d.name)
		}
	}
	return "", fmt.Errorf("%s: no module or file named %q; the modules are %s", dir, name, strings.Join(names, ", "))
}

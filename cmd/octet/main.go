// Command octet reads, checks, rewrites and runs FP8 matrix multiplications in XLA programs.
//
// Run "octet help" for the list of commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"strings"
	"syscall"
	"time"

	_ "octet/hlo/prototext" // every command reads HloModuleProto text files as well as HLO text
	"octet/interp"
)

func main() {
	os.Exit(octet())
}

// octet is the program: it runs the command its arguments name, and returns the exit status.
func octet() int {
	startPacing()
	return run(interruptible(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// interruptible returns the context of the program, cancelled by SIGINT or SIGTERM: a command stops,
// removes its temporary files and exits. A command that does not watch the context (one reading a
// terminal, or in a long step) is ended 2 seconds later, or at once by a second signal, and its temporary
// files are removed first.
func interruptible() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		cancel()
		select {
		case <-sigs:
		case <-time.After(2 * time.Second):
		}
		removeTempFiles()
		fmt.Fprintln(os.Stderr, "octet: interrupted")
		os.Exit(1)
	}()
	return ctx
}

// A command is one verb of the octet program. Every command lives in its own file and adds itself to the
// table with register; help text is generated from the table.
type command struct {
	Name      string // the verb: "print"
	UsageLine string // after "octet ": "print [flags] FILE|-"
	Short     string // one line for "octet help"
	Long      string // the text "octet help NAME" prints after the usage line
	// Order places the command in the help listing (smaller first).
	Order int
	// ReadsModules says that the command reads modules: its flags include --max-input.
	ReadsModules bool
	// Run executes the command. Flags are parsed by Run itself through inv.flags so that every invocation
	// gets a fresh FlagSet (the command may run many times in one process, in tests).
	Run func(inv *invocation, args []string) error
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.Name]; dup {
		panic("octet: command registered twice: " + c.Name)
	}
	commands[c.Name] = c
}

func sortedCommands() []*command {
	var cs []*command
	for _, c := range commands {
		cs = append(cs, c)
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].Order != cs[j].Order {
			return cs[i].Order < cs[j].Order
		}
		return cs[i].Name < cs[j].Name
	})
	return cs
}

// An invocation is the environment one run of the program sees: its streams and context.
type invocation struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	cmd    *command
	// isTerminal reports whether stdout is a terminal (colour is used only then).
	isTerminal bool
	getenv     func(string) string
	// maxInput, when positive, bounds the bytes of one binary input file; zero means the default memory
	// budget.
	maxInput int64
	// warned holds the warnings printed, each printed once.
	warned map[string]bool
	// maxText, when positive, bounds the bytes of text of one input (after decompression); zero means the
	// default (defaultMaxText). --max-input sets it.
	maxText int64
}

// usageError is a mistake in how the program was called: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// exitError ends the program with the given status after its message (if any) was printed.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// errHelp is returned when -h or --help was asked for: usage goes to stdout and the status is 0.
var errHelp = flag.ErrHelp

// flags returns a new FlagSet for the invocation's command. Its usage message is the command's help.
func (inv *invocation) flags() *flag.FlagSet {
	fs := flag.NewFlagSet(inv.cmd.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if inv.cmd.ReadsModules {
		inv.maxInputFlag(fs)
	}
	return fs
}

// parse parses args with fs, turning flag errors into usage errors.
func (inv *invocation) parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printCommandHelp(inv.stdout, inv.cmd, fs)
			return errHelp
		}
		return usagef("%v", err)
	}
	// An empty value is never a file, a name or a format: it is most often a shell variable that was not
	// set, and -o "" would otherwise write to standard output as if -o were absent.
	var empty string
	fs.Visit(func(f *flag.Flag) {
		if g, ok := f.Value.(flag.Getter); ok && empty == "" {
			if v, ok := g.Get().(string); ok && v == "" {
				empty = f.Name
			}
		}
	})
	if empty != "" {
		return usagef("-%s: empty value", empty)
	}
	return nil
}

// run is the program: it runs the command args name and returns the exit status. A panic, which no input
// should cause, is reported as an internal error with its stack and exit status 3.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	out := &checkedWriter{w: stdout}
	inv := &invocation{ctx: ctx, stdin: stdin, stdout: out, stderr: stderr, getenv: os.Getenv}
	if f, ok := stdout.(*os.File); ok {
		inv.isTerminal = isTerminal(f)
	}
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "octet: internal error: %v\n%s", r, debug.Stack())
			code = 3
		}
	}()
	code = inv.main(args)
	if out.err != nil {
		if errors.Is(out.err, syscall.EPIPE) {
			// The reader went away, as "octet print f | head" does: end quietly, as Unix tools do.
			return code
		}
		if code == 0 {
			fmt.Fprintln(stderr, out.err)
			code = 1
		}
	}
	return code
}

// checkedWriter remembers the first error of its writer; later writes fail with it without writing.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err != nil {
		c.err = &outputError{err}
	}
	return n, c.err
}

// outputError is a failed write to standard output.
type outputError struct{ err error }

func (e *outputError) Error() string {
	return "octet: writing the output: " + trimPathError(e.err).Error()
}
func (e *outputError) Unwrap() error { return e.err }

func (inv *invocation) main(args []string) int {
	if len(args) == 0 {
		printMainHelp(inv.stderr)
		return 2
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	case "-version", "--version":
		name = "version"
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(inv.stderr, "octet: unknown command %q\nRun 'octet help' for usage.\n", name)
		return 2
	}
	inv.cmd = c
	err := c.Run(inv, args[1:])
	return inv.report(err)
}

// report prints err (if any) and returns the exit status it stands for.
func (inv *invocation) report(err error) int {
	var ue *usageError
	var ee *exitError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(inv.stderr, "octet %s: %s\nusage: octet %s\nRun 'octet help %s' for details.\n",
			inv.cmd.Name, ue.msg, inv.cmd.UsageLine, inv.cmd.Name)
		return 2
	case errors.As(err, &ee):
		if ee.msg != "" {
			fmt.Fprintln(inv.stderr, errorText(errors.New(ee.msg)))
		}
		return ee.code
	case errors.Is(err, syscall.EPIPE):
		return 0 // reported, or not, by run
	case errors.Is(err, interp.ErrInternal):
		fmt.Fprintf(inv.stderr, "octet: %v\n", err)
		return 3
	case errors.Is(err, context.Canceled) && inv.ctx.Err() != nil:
		fmt.Fprintln(inv.stderr, "octet: interrupted")
		return 1
	default:
		msg := errorText(err)
		if !strings.HasSuffix(msg, "\n") {
			msg += "\n"
		}
		io.WriteString(inv.stderr, msg)
		return 1
	}
}

func printMainHelp(w io.Writer) {
	fmt.Fprintf(w, "Octet reads, checks, rewrites and runs FP8 matrix multiplications in XLA programs.\n\n")
	fmt.Fprintf(w, "Usage:\n\n\toctet <command> [flags] [arguments]\n\nThe commands are:\n\n")
	for _, c := range sortedCommands() {
		fmt.Fprintf(w, "\t%-10s %s\n", c.Name, c.Short)
	}
	fmt.Fprintf(w, "\nUse \"octet help <command>\" for more information about a command.\n")
	fmt.Fprintf(w, "Every command reads - as standard input. Exit status: 0 success, 1 bad input or a failed check, 2 usage error, 3 internal error.\n")
}

func printCommandHelp(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: octet %s\n\n%s\n", c.UsageLine, strings.TrimSpace(c.Long))
	if fs == nil {
		return
	}
	var any bool
	fs.VisitAll(func(*flag.Flag) { any = true })
	if any {
		fmt.Fprintf(w, "\nFlags:\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
}

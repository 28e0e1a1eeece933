package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
)

func init() {
	register(&command{
		Name:      "help",
		UsageLine: "help [COMMAND]",
		Short:     "show help for octet or one of its commands",
		Long:      "Help prints the list of commands, or the usage, description and flags of one command.",
		Order:     100,
		Run: func(inv *invocation, args []string) error {
			switch len(args) {
			case 0:
				printMainHelp(inv.stdout)
				return nil
			case 1:
				if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "--h" {
					printCommandHelp(inv.stdout, inv.cmd, nil)
					return nil
				}
				c, ok := commands[args[0]]
				if !ok || c.Name == "help" {
					if ok {
						printCommandHelp(inv.stdout, c, nil)
						return nil
					}
					return usagef("unknown command %q", args[0])
				}
				// Every command prints its own help, flags included, when asked with -h.
				sub := &invocation{ctx: inv.ctx, stdin: inv.stdin, stdout: inv.stdout, stderr: inv.stderr,
					cmd: c, getenv: inv.getenv}
				err := c.Run(sub, []string{"-h"})
				if err == nil || err == errHelp {
					return nil
				}
				return err
			default:
				return usagef("help takes at most one command")
			}
		},
	})
	register(&command{
		Name:      "version",
		UsageLine: "version",
		Short:     "print octet's version",
		Long:      "Version prints the version of octet, the Go release that built it and the platform.",
		Order:     101,
		Run: func(inv *invocation, args []string) error {
			fs := inv.flags()
			if err := inv.parse(fs, args); err != nil {
				return err
			}
			if fs.NArg() != 0 {
				return usagef("version takes no arguments")
			}
			fmt.Fprintf(inv.stdout, "octet %s %s %s/%s\n", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	})
}

// version is the module version when octet was installed with "go install", else the VCS revision the
// binary was built from, else "devel".
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+dirty"
	}
	return "devel-" + rev
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

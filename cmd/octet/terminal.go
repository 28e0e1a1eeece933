package main

import (
	"errors"
	"go/scanner"
	"strings"

	"octet/internal/safetext"
)

// esc returns a string from a module (a name, a custom-call target, a source location) or from the
// command line (a file name) as the commands' text output shows it: escaped as package internal/safetext
// escapes it, so that it cannot start a line of its own, move the cursor, set the window title or reorder
// what follows.
func esc(s string) string { return safetext.Escape(s) }

// errorText returns an error's message as the commands print it: each error of a list on its own line,
// escaped as esc escapes it; any other message with its lines kept and everything else in them escaped.
func errorText(err error) string {
	var list scanner.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		lines := make([]string, 0, min(len(list), maxReportedErrors+1))
		for i, e := range list {
			if i == maxReportedErrors {
				lines = append(lines, plural(len(list)-i, "more error"))
				break
			}
			lines = append(lines, esc(e.Error()))
		}
		return strings.Join(lines, "\n")
	}
	return safetext.Lines(err.Error())
}

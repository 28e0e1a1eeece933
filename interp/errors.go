package interp

import (
	"fmt"
	"go/token"
	"strings"

	"octet/hlo"
)

// Error is a failure to evaluate one instruction, positioned at it: "file:line:col: unsupported: what"
// for something the interpreter does not implement, "file:line:col: %name: message" otherwise.
type Error struct {
	Pos  token.Position // the instruction's position in the module's text; zero when unknown
	Inst string         // the instruction's name
	// Unsupported says what is not implemented; empty for other failures (bad operand values, a
	// malformed instruction), which Err describes.
	Unsupported string
	Err         error
}

func (e *Error) Error() string {
	where := "%" + e.Inst
	if e.Pos.IsValid() {
		where = e.Pos.String()
	}
	if e.Unsupported != "" {
		return where + ": unsupported: " + e.Unsupported
	}
	if e.Pos.IsValid() {
		return where + ": %" + e.Inst + ": " + e.Err.Error()
	}
	return where + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Buffer is one instruction result counted by the memory estimate.
type Buffer struct {
	Inst  string // instruction name
	Shape string // its shape, as HLO text writes it
	Bytes int64
	Pos   token.Position
}

// MemoryError reports a program whose buffers would not fit in Options.MaxMemory.
type MemoryError struct {
	Need, Limit int64
	Largest     []Buffer // the largest buffers, largest first
}

func (e *MemoryError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the program needs about %s of buffers, more than the memory budget of %s",
		FormatBytes(e.Need), FormatBytes(e.Limit))
	if len(e.Largest) > 0 {
		b.WriteString("; largest:")
		for i, buf := range e.Largest {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, " %%%s %s (%s)", buf.Inst, shortTuple(buf.Shape), FormatBytes(buf.Bytes))
		}
	}
	return b.String()
}

// shortTuple shortens the text of a tuple shape of more than four elements to its first three and a count
// (a while loop's state can hold a hundred), so that an error stays a line one can read.
func shortTuple(s string) string {
	if !strings.HasPrefix(s, "(") || !strings.HasSuffix(s, ")") {
		return s
	}
	var parts []string
	depth, start := 0, 1
	for i := 1; i < len(s)-1; i++ {
		switch s[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	parts = append(parts, strings.TrimSpace(s[start:len(s)-1]))
	if len(parts) <= 4 {
		return s
	}
	return fmt.Sprintf("(%s, ... %d elements in all)", strings.Join(parts[:3], ", "), len(parts))
}

// WorkError reports an evaluation stopped because it exceeded Options.MaxWork.
type WorkError struct {
	Limit int64
	Inst  string // the instruction being evaluated
	Pos   token.Position
}

func (e *WorkError) Error() string {
	where := "%" + e.Inst
	if e.Pos.IsValid() {
		where = e.Pos.String() + ": %" + e.Inst
	}
	return fmt.Sprintf("%s: evaluation stopped: the program needs more than %d units of work (the work budget)", where, e.Limit)
}

// FormatBytes writes a byte count with a binary unit: "512 B", "3.0 KiB", "1.5 GiB".
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}

// unsupportedf returns the positioned "unsupported" error of in.
func unsupportedf(in *hlo.Instruction, format string, args ...any) error {
	return &Error{Pos: position(in), Inst: in.Name, Unsupported: fmt.Sprintf(format, args...)}
}

// errorf returns a positioned error of in.
func errorf(in *hlo.Instruction, format string, args ...any) error {
	return &Error{Pos: position(in), Inst: in.Name, Err: fmt.Errorf(format, args...)}
}

func position(in *hlo.Instruction) token.Position {
	if in == nil || in.Parent == nil {
		return token.Position{}
	}
	return in.Parent.Module.Position(in.Pos)
}

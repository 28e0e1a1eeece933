package shared

import (
	"strings"
	"testing"
)

// recorder is a testing.TB that records Skip and Fatal instead of ending the test.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()           {}
func (r *recorder) Skip(args ...any)  { r.skipped = fmtArgs(args) }
func (r *recorder) Fatal(args ...any) { r.failed = fmtArgs(args) }

func fmtArgs(args []any) string {
	var b strings.Builder
	for _, a := range args {
		b.WriteString(a.(string))
	}
	return b.String()
}

// TestMissing checks that what a test needs being missing skips it, saying why, and fails it under
// continuous integration.
func TestMissing(t *testing.T) {
	for _, ci := range []string{"", "false", "1", "true"} {
		r := &recorder{TB: t}
		missing(r, "Graphviz's dot is not installed", ci)
		switch ci {
		case "true":
			if r.failed != "CI=true, and Graphviz's dot is not installed" || r.skipped != "" {
				t.Errorf("CI=%q: failed %q, skipped %q; want a failure", ci, r.failed, r.skipped)
			}
		default:
			if r.skipped != "skipped: Graphviz's dot is not installed" || r.failed != "" {
				t.Errorf("CI=%q: failed %q, skipped %q; want a skip", ci, r.failed, r.skipped)
			}
		}
	}
}

// TestDirUnderCI checks that a test asking for an absent shared folder fails under CI=true and is
// skipped otherwise.
func TestDirUnderCI(t *testing.T) {
	t.Setenv("CI", "true")
	r := &recorder{TB: t}
	if Find() == "" {
		Dir(r)
		if !strings.Contains(r.failed, "../shared") {
			t.Errorf("no shared folder, CI=true: failed %q, skipped %q", r.failed, r.skipped)
		}
		return
	}
	if d := Dir(r); d != Find() || r.failed != "" || r.skipped != "" {
		t.Errorf("Dir = %q (failed %q, skipped %q), want %q", d, r.failed, r.skipped, Find())
	}
}

package report

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// PassDump is one dump of a module between passes, as XLA writes them with
// --xla_dump_to=DIR --xla_dump_hlo_pass_re=...: module_NNNN.NAME.before_optimizations.txt, then
// module_NNNN.NAME.SSSS.PIPELINE.after_PASS.txt for step SSSS.
type PassDump struct {
	File     string `json:"file"`
	ModuleID int    `json:"module_id"`
	Name     string `json:"module"`
	// Step is the pass's step number (-1 before the optimizations); Pipeline and Pass name it.
	Step     int    `json:"step"`
	Pipeline string `json:"pipeline,omitempty"`
	Pass     string `json:"pass"`
}

var (
	afterPass  = regexp.MustCompile(`^module_(\d+)\.(.+)\.(\d{4,})\.([^.]+)\.after_(.+)\.txt$`)
	beforeOpts = regexp.MustCompile(`^module_(\d+)\.(.+)\.before_optimizations\.txt$`)
)

// ParsePassDump reads XLA's name of a per-pass dump file (the step written with at least four digits, as
// %04d writes it); ok is false for any other name, and for numbers too large for an int.
func ParsePassDump(file string) (PassDump, bool) {
	if m := afterPass.FindStringSubmatch(file); m != nil {
		id, err1 := strconv.Atoi(m[1])
		step, err2 := strconv.Atoi(m[3])
		if err1 != nil || err2 != nil {
			return PassDump{}, false
		}
		return PassDump{File: file, ModuleID: id, Name: m[2], Step: step, Pipeline: m[4], Pass: m[5]}, true
	}
	if m := beforeOpts.FindStringSubmatch(file); m != nil {
		id, err := strconv.Atoi(m[1])
		if err != nil {
			return PassDump{}, false
		}
		return PassDump{File: file, ModuleID: id, Name: m[2], Step: -1, Pass: "before_optimizations"}, true
	}
	return PassDump{}, false
}

// LooksLikePassDump reports whether a file name starts and ends as XLA's dump names do (module_,
// .txt) without ParsePassDump reading it: a name a folder's walk leaves out and should say so.
func LooksLikePassDump(file string) bool {
	_, ok := ParsePassDump(file)
	return !ok && strings.HasPrefix(file, "module_") && strings.HasSuffix(file, ".txt") &&
		(strings.Contains(file, ".after_") || strings.Contains(file, ".before_optimizations"))
}

// SortPassDumps orders dumps by module, then in pass order.
func SortPassDumps(ds []PassDump) {
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].ModuleID != ds[j].ModuleID {
			return ds[i].ModuleID < ds[j].ModuleID
		}
		return ds[i].Step < ds[j].Step
	})
}

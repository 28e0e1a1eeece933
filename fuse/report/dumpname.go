package report

import (
	"regexp"
	"sort"
	"strconv"
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
	afterPass  = regexp.MustCompile(`^module_(\d+)\.(.+)\.(\d{4})\.([^.]+)\.after_(.+)\.txt$`)
	beforeOpts = regexp.MustCompile(`^module_(\d+)\.(.+)\.before_optimizations\.txt$`)
)

// ParsePassDump reads XLA's name of a per-pass dump file; ok is false for any other name.
func ParsePassDump(file string) (PassDump, bool) {
	if m := afterPass.FindStringSubmatch(file); m != nil {
		id, _ := strconv.Atoi(m[1])
		step, _ := strconv.Atoi(m[3])
		return PassDump{File: file, ModuleID: id, Name: m[2], Step: step, Pipeline: m[4], Pass: m[5]}, true
	}
	if m := beforeOpts.FindStringSubmatch(file); m != nil {
		id, _ := strconv.Atoi(m[1])
		return PassDump{File: file, ModuleID: id, Name: m[2], Step: -1, Pass: "before_optimizations"}, true
	}
	return PassDump{}, false
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

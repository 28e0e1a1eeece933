package gemm

import (
	"runtime"
	"strings"
	"testing"
)

// kernelSets are the kernels written in assembly for amd64: each runs its tests only on a machine that has
// it (see withKernel).
var kernelSets = []string{"avx512bf16", "avx512", "avx2"}

// TestKernelSets names, as one skipped subtest each, the kernel sets this machine does not have: their
// tests did not run here, and a run that never saw them says so rather than passing in silence.
func TestKernelSets(t *testing.T) {
	have := map[string]bool{}
	for _, k := range Kernels() {
		have[k.Name()] = true
	}
	if !have["go"] {
		t.Errorf("the portable Go kernel is missing from %v", Kernels())
	}
	name, features := CPU()
	has := strings.Join(features, ", ")
	if has == "" {
		has = "none"
	}
	for _, set := range kernelSets {
		t.Run(set, func(t *testing.T) {
			switch {
			case have[set]:
			case puregoBuild:
				t.Skipf("built with -tags purego: the %s kernels were not tested", set)
			case runtime.GOARCH != "amd64":
				t.Skipf("%s has no assembly kernels: the %s kernels were not tested", runtime.GOARCH, set)
			default:
				t.Skipf("this CPU (%q; of the features the kernels use, it has %s) has no %s kernel: the %s kernels were not tested",
					name, has, set, set)
			}
		})
	}
}

//go:build amd64 && !purego

package gemm

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"octet/dtype"
)

// linuxFlags maps the names of Linux's /proc/cpuinfo flags to the features they stand for.
var linuxFlags = map[string]feature{
	"avx": fAVX, "avx2": fAVX2, "fma": fFMA, "f16c": fF16C, "bmi2": fBMI2, "avx512f": fAVX512F,
	"avx512cd": fAVX512CD, "avx512er": fAVX512ER, "avx512pf": fAVX512PF, "avx512bw": fAVX512BW,
	"avx512dq": fAVX512DQ, "avx512vl": fAVX512VL, "avx512_bf16": fAVX512BF16, "avx512vbmi": fAVX512VBMI,
}

// fromFlags returns the features of a CPU whose /proc/cpuinfo lists flags, under an operating system
// whose XCR0 is xcr0 (0: no XSAVE).
func fromFlags(flags string, xcr0 uint32) feature {
	var f feature
	for _, name := range strings.Fields(flags) {
		f |= linuxFlags[name]
	}
	if xcr0 != 0 {
		f |= fOSXSAVE
		if xcr0&0x6 == 0x6 {
			f |= fOSAVX
		}
		if xcr0&0xe6 == 0xe6 {
			f |= fOSAVX512
		}
	}
	return f
}

// describeKernels writes each kernel's name and the assembly it uses beside its tile.
func describeKernels(ks []*Kernel) string {
	var parts []string
	for _, k := range ks {
		var h []string
		for _, u := range []struct {
			on   bool
			name string
		}{{k.isa.pack512, "pack512"}, {k.isa.words, "words"}, {k.isa.pack2, "pack2"}, {k.isa.epilogue, "epilogue"}} {
			if u.on {
				h = append(h, u.name)
			}
		}
		if k.streams != nil {
			h = append(h, k.streams.name)
		}
		parts = append(parts, k.name+"("+strings.Join(h, " ")+")")
	}
	return strings.Join(parts, " ")
}

// asmUsed returns the asmSets a kernel runs.
func asmUsed(k *Kernel) []*asmSet {
	var sets []*asmSet
	avx512 := k.streams == streamsAVX512
	switch k.name {
	case "avx512":
		sets = append(sets, asmTileAVX512)
	case "avx512bf16":
		sets = append(sets, asmTileBF16, asmTileAVX512)
	case "avx2":
		sets = append(sets, asmTileAVX2)
	}
	for _, u := range []struct {
		on  bool
		set *asmSet
	}{{k.isa.pack512, asmPack512}, {k.isa.words, asmWords}, {k.isa.pack2, asmPack2}, {k.isa.epilogue, asmEpilogue},
		{avx512 || k.streams == streamsAVX512VBMI, asmStream512}, {k.streams == streamsAVX512VBMI, asmStreamVBMI}, {avx512 || k.streams == streamsAVX512VBMI, asmBlock512},
		{k.streams == streamsAVX2, asmStream2},
		{avx512 || k.streams == streamsAVX512VBMI, asmTranspose512}, {k.streams == streamsAVX2, asmTranspose2}} {
		if u.on {
			sets = append(sets, u.set)
		}
	}
	return sets
}

// TestKernelsOfRealCPUs builds the kernels of real processors (their /proc/cpuinfo flags as Linux lists
// them, restricted to the features the kernels look for) and of virtual machines and operating systems that
// hide some, and checks which kernels each gets and with what: every kernel runs only assembly whose every
// feature the CPU has, and none is left out that it could run.
func TestKernelsOfRealCPUs(t *testing.T) {
	const (
		all512  = "avx512(pack512 pack2 epilogue stream-avx512) avx2(pack2 epilogue stream-avx2) go(stream-go)"
		bf16    = " avx512bf16(pack512 words pack2 epilogue stream-avx512)"
		vbmi    = "avx512(pack512 pack2 epilogue stream-avx512vbmi) avx2(pack2 epilogue stream-avx2) go(stream-go)"
		vbmi16  = " avx512bf16(pack512 words pack2 epilogue stream-avx512vbmi)"
		avx2    = "avx2(pack2 epilogue stream-avx2) go(stream-go)"
		haswell = "avx fma f16c avx2 bmi2"
		skx     = haswell + " avx512f avx512dq avx512cd avx512bw avx512vl"
	)
	for _, c := range []struct {
		name  string
		flags string
		xcr0  uint32
		want  string
	}{
		{"Sandy Bridge (Xeon E5-2670)", "avx", 0x7, "go(stream-go)"},
		{"Ivy Bridge (Xeon E5-2697 v2)", "avx f16c", 0x7, "go(stream-go)"},
		{"Piledriver (Opteron 6386 SE): FMA without AVX2", "avx fma f16c", 0x7, "avx2() go(stream-go)"},
		{"Haswell (Xeon E5-2699 v3)", haswell, 0x7, avx2},
		{"Zen 3 (EPYC 7763)", haswell, 0x207, avx2},
		{"Alder Lake, AVX-512 fused off", haswell, 0x207, avx2},
		{"Haswell, operating system without XSAVE", haswell, 0, "go(stream-go)"},
		{"Knights Landing (Xeon Phi 7250): F, CD, ER, PF without BW, VL", haswell + " avx512f avx512pf avx512er avx512cd", 0xe7,
			"avx512(pack512 pack2 epilogue stream-avx2) avx2(pack2 epilogue stream-avx2) go(stream-go)"},
		{"Skylake-SP (Xeon Gold 6148)", skx, 0xe7, all512},
		{"Skylake-SP, operating system that saves ymm but not zmm", skx, 0x7, avx2},
		{"Ice Lake-SP (Xeon Platinum 8380)", skx + " avx512ifma avx512vbmi", 0x2e7, vbmi},
		{"Cooper Lake (Xeon Platinum 8380H)", skx + " avx512_bf16", 0xe7, all512 + bf16},
		{"Sapphire Rapids (Xeon Platinum 8480+)", skx + " avx512ifma avx512vbmi avx512_bf16 avx512_fp16 amx_bf16", 0x602e7, vbmi + vbmi16},
		{"Sapphire Rapids, virtual machine hiding VBMI", skx + " avx512_bf16 avx512_fp16 amx_bf16", 0x602e7, all512 + bf16},
		{"Zen 4 (EPYC 9654)", skx + " avx512_bf16 avx512ifma avx512vbmi", 0x2e7, vbmi + vbmi16},
		{"Zen 5 (EPYC 9755)", skx + " avx512_bf16 avx512ifma avx512vbmi avx512_vp2intersect", 0x2e7, vbmi + vbmi16},
		{"virtual machine exposing VBMI without BW", haswell + " avx512f avx512vbmi", 0xe7,
			"avx512(pack512 pack2 epilogue stream-avx2) avx2(pack2 epilogue stream-avx2) go(stream-go)"},
		{"virtual machine exposing AVX-512F alone", haswell + " avx512f", 0xe7,
			"avx512(pack512 pack2 epilogue stream-avx2) avx2(pack2 epilogue stream-avx2) go(stream-go)"},
		{"virtual machine exposing AVX-512F and BF16 without BW", haswell + " avx512f avx512_bf16", 0xe7,
			"avx512(pack512 pack2 epilogue stream-avx2) avx2(pack2 epilogue stream-avx2) go(stream-go) avx512bf16(pack512 pack2 epilogue stream-avx2)"},
		{"virtual machine exposing AVX-512 without AVX2 or FMA", "avx f16c avx512f avx512dq avx512cd avx512bw avx512vl", 0xe7,
			"avx512(pack512) go(stream-go)"},
	} {
		f := fromFlags(c.flags, c.xcr0)
		ks := newKernels(f, 32)
		if got := describeKernels(ks); got != c.want {
			t.Errorf("%s (%v):\n got %s\nwant %s", c.name, f, got, c.want)
		}
		for _, k := range ks {
			for _, set := range asmUsed(k) {
				if !f.has(set.needs) {
					t.Errorf("%s: kernel %s runs the %s, which needs %v", c.name, k.name, set.name, set.needs&^f)
				}
			}
		}
	}
}

// TestDetect checks the features read from CPUID and XGETBV against those Linux reports in /proc/cpuinfo,
// where there is one: the two read the same registers, and Linux too leaves out what the operating system
// does not save.
func TestDetect(t *testing.T) {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skipf("no /proc/cpuinfo to compare with: %v", err)
	}
	var flags string
	for _, line := range strings.Split(string(data), "\n") {
		if name, value, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == "flags" {
			flags = value
			break
		}
	}
	if flags == "" {
		t.Skip("/proc/cpuinfo lists no flags")
	}
	want := fromFlags(flags, 0) // what Linux lists is usable already
	if got := cpuFeatures.usable(); got != want {
		t.Fatalf("detected %v; /proc/cpuinfo says %v", got, want)
	}
	_, names := CPU()
	t.Logf("%s: %v", cpuName, names)
}

// TestKernelValues checks that each kernel of this machine carries the assembly it allows and nothing
// else, so that SetKernel (or KernelEnv) changes all of it at once: the avx2 kernel packs, decodes and
// streams without AVX-512, as on a CPU without it, and the go kernel runs no assembly at all (its streaming
// kernels are in Go).
func TestKernelValues(t *testing.T) {
	for _, k := range Kernels() {
		switch k.name {
		case "go":
			if k.isa != (isa{}) || k.streams != streamsGo {
				t.Errorf("go: helpers %+v, streams %v", k.isa, k.streams)
			}
		case "avx2":
			if k.isa.pack512 || k.isa.words || k.streams == streamsAVX512 || k.streams == streamsAVX512VBMI {
				t.Errorf("avx2: helpers %+v, streams %s: AVX-512 in the avx2 kernel", k.isa, k.streams.name)
			}
		case "avx512", "avx512bf16":
			if k.isa.pack512 != cpuFeatures.has(asmPack512.needs) {
				t.Errorf("%s: AVX-512 packing %v on a machine with %v", k.name, k.isa.pack512, cpuFeatures)
			}
		}
		func() {
			defer SetKernel(SetKernel(k))
			name := KernelName(1, dtype.F32, dtype.F8E4M3FN, false)
			want := k.String()
			if k.streams != nil {
				want = k.streams.name + " 1x64"
			}
			if name != want {
				t.Errorf("with %v, KernelName for one row of f8e4m3fn weights is %q, want %q", k, name, want)
			}
		}()
	}
}

// TestKernelEnv runs TestSetKernel in a process of its own with KernelEnv naming each kernel of this
// machine in turn: that kernel must be the default.
func TestKernelEnv(t *testing.T) {
	if os.Getenv(KernelEnv) != "" {
		t.Skip(KernelEnv + " is set: this is the inner process")
	}
	for _, k := range Kernels() {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSetKernel$", "-test.v")
		cmd.Env = append(os.Environ(), KernelEnv+"="+k.Name())
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestSetKernel") {
			t.Errorf("%s=%s: %v\n%s", KernelEnv, k.Name(), err, out)
		}
	}
}

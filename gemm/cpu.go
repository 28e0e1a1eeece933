package gemm

import "strings"

// A feature is a set of the x86 instruction-set extensions and operating-system support that the kernels'
// assembly may need. Each set of routines (asmSet, per architecture) lists what its instructions use, and
// the kernels are built from the sets whose every feature the machine has.
type feature uint32

const (
	fAVX        feature = 1 << iota // VEX-encoded instructions: AVX
	fAVX2                           // integer instructions on ymm
	fFMA                            // VFMADD231PS and the like on xmm and ymm
	fF16C                           // VCVTPH2PS, VCVTPS2PH on xmm and ymm
	fBMI2                           // SHLX, PDEP, BZHI and the like
	fAVX512F                        // EVEX-encoded instructions on zmm, opmasks
	fAVX512CD                       // conflict detection
	fAVX512ER                       // exponentials and reciprocals (Xeon Phi)
	fAVX512PF                       // scatter and gather prefetches (Xeon Phi)
	fAVX512BW                       // bytes and words in zmm, 32- and 64-bit opmasks
	fAVX512DQ                       // doublewords and quadwords (VXORPS on zmm, KMOVB)
	fAVX512VL                       // EVEX encodings on xmm and ymm (and registers 16-31 there)
	fAVX512BF16                     // VDPBF16PS and the bf16 conversions
	fAVX512VBMI                     // VPERMB, VPERMI2B: bytes looked up among 64 or 128
	fOSXSAVE                        // XGETBV: the operating system uses XSAVE
	fOSAVX                          // the operating system saves the ymm registers (XCR0 bits 1 and 2)
	fOSAVX512                       // ... and the opmasks and zmm registers (XCR0 bits 5, 6 and 7)
)

// featureNames names the features as Linux's /proc/cpuinfo does (without its underscores) and as CPU
// reports them.
var featureNames = [...]string{
	"avx", "avx2", "fma", "f16c", "bmi2", "avx512f", "avx512cd", "avx512er", "avx512pf", "avx512bw",
	"avx512dq", "avx512vl", "avx512bf16", "avx512vbmi", "osxsave", "os-ymm", "os-zmm",
}

// has reports whether f holds every feature of need.
func (f feature) has(need feature) bool { return f&need == need }

// names lists the features of f by name.
func (f feature) names() []string {
	var names []string
	for i, name := range featureNames {
		if f&(1<<i) != 0 {
			names = append(names, name)
		}
	}
	return names
}

func (f feature) String() string {
	if f == 0 {
		return "none"
	}
	return strings.Join(f.names(), "+")
}

// usable returns the instruction-set features of f that the operating system lets a program use: none of
// the AVX family without fOSAVX, none of AVX-512 without fOSAVX512; the operating-system bits themselves
// are left out.
func (f feature) usable() feature {
	const avx = fAVX | fAVX2 | fFMA | fF16C
	const avx512 = fAVX512F | fAVX512CD | fAVX512ER | fAVX512PF | fAVX512BW | fAVX512DQ | fAVX512VL | fAVX512BF16 | fAVX512VBMI
	if !f.has(fOSAVX) {
		f &^= avx | avx512
	}
	if !f.has(fOSAVX | fOSAVX512) {
		f &^= avx512
	}
	return f &^ (fOSXSAVE | fOSAVX | fOSAVX512)
}

// cpuidRegs are the registers of CPUID and XGETBV that say which features a machine has.
type cpuidRegs struct {
	maxLeaf uint32 // leaf 0, EAX
	ecx1    uint32 // leaf 1, ECX
	eax7    uint32 // leaf 7 subleaf 0: EAX (the last subleaf), EBX, ECX
	ebx7    uint32
	ecx7    uint32
	eax71   uint32 // leaf 7 subleaf 1, EAX
	xcr0    uint32 // XCR0's low half, where the operating system says which state it saves
}

// featuresOf decodes the registers (Intel's Software Developer's Manual, volume 2A, CPUID; AMD's
// Programmer's Manual, volume 3, appendix E).
func featuresOf(r cpuidRegs) feature {
	var f feature
	bit := func(reg uint32, n uint, feat feature) {
		if reg>>n&1 != 0 {
			f |= feat
		}
	}
	if r.maxLeaf < 1 {
		return 0
	}
	bit(r.ecx1, 12, fFMA)
	bit(r.ecx1, 27, fOSXSAVE)
	bit(r.ecx1, 28, fAVX)
	bit(r.ecx1, 29, fF16C)
	if r.maxLeaf >= 7 {
		bit(r.ebx7, 5, fAVX2)
		bit(r.ebx7, 8, fBMI2)
		bit(r.ebx7, 16, fAVX512F)
		bit(r.ebx7, 17, fAVX512DQ)
		bit(r.ebx7, 26, fAVX512PF)
		bit(r.ebx7, 27, fAVX512ER)
		bit(r.ebx7, 28, fAVX512CD)
		bit(r.ebx7, 30, fAVX512BW)
		bit(r.ebx7, 31, fAVX512VL)
		bit(r.ecx7, 1, fAVX512VBMI)
		if r.eax7 >= 1 {
			bit(r.eax71, 5, fAVX512BF16)
		}
	}
	if f.has(fOSXSAVE) {
		if r.xcr0&0x6 == 0x6 {
			f |= fOSAVX
		}
		if r.xcr0&0xe6 == 0xe6 {
			f |= fOSAVX512
		}
	}
	return f
}

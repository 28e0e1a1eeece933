//go:build amd64 && !purego

package gemm

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// An insnFeatures says what an instruction needs in each of its encodings: VEX on xmm and on ymm, EVEX
// (zero where there is no such encoding). EVEX on xmm or ymm needs AVX-512 VL too, added by the scanner.
type insnFeatures struct{ x, y, e feature }

// The instructions of the package's assembly and what each needs (Intel's Software Developer's Manual,
// volume 2, the CPUID flags of each instruction's encodings). An instruction missing here fails the test:
// whoever uses a new one adds it, with its flags.
var insnTable = func() map[string]insnFeatures {
	t := map[string]insnFeatures{}
	add := func(f insnFeatures, names ...string) {
		for _, n := range names {
			t[n] = f
		}
	}
	const (
		avx, avx2, fma, f16c       = fAVX, fAVX2, fFMA, fF16C
		avx512, avx512bw, avx512dq = fAVX512F, fAVX512BW, fAVX512DQ
	)
	// Floating point and moves: AVX on xmm and ymm, AVX-512F on zmm (DQ for the logical ones).
	add(insnFeatures{avx, avx, avx512}, "VMOVUPS", "VMOVAPS", "VMULPS", "VADDPS", "VSUBPS", "VMINPS", "VMAXPS",
		"VCMPPS", "VUNPCKLPS", "VUNPCKHPS", "VUNPCKLPD", "VUNPCKHPD", "VCVTDQ2PS", "VBROADCASTSS", "VSHUFPS")
	add(insnFeatures{avx, 0, avx512}, "VMOVLPS", "VMOVHPS", "VMOVLHPS", "VMOVHLPS", "VMOVQ")
	add(insnFeatures{avx, avx, avx512dq}, "VXORPS", "VANDPS", "VORPS", "VANDNPS")
	add(insnFeatures{avx, avx, 0}, "VMOVDQU", "VMASKMOVPS", "VPTEST", "VZEROUPPER")
	add(insnFeatures{fma, fma, avx512}, "VFMADD231PS", "VFMADD213PS", "VFMADD132PS")
	add(insnFeatures{f16c, f16c, avx512}, "VCVTPH2PS", "VCVTPS2PH")
	// Integers: AVX on xmm, AVX2 on ymm; AVX-512F for doublewords, BW for bytes and words.
	add(insnFeatures{avx, avx2, avx512}, "VPSLLD", "VPSRLD", "VPSUBD", "VPADDD", "VPCMPEQD", "VPCMPGTD",
		"VPMAXUD", "VPMINUD", "VPSHUFD", "VPMOVSXBD", "VPMOVZXBD", "VPMOVZXWD", "VPMOVSXWD")
	add(insnFeatures{avx, avx2, avx512bw}, "VPSLLW", "VPSRLW", "VPSHUFB", "VPMOVSXBW", "VPMOVZXBW", "VPCMPEQB", "VPCMPEQW", "VPMAXUB",
		"VPACKUSWB", "VPACKUSDW")
	add(insnFeatures{avx, avx2, avx512bw}, "VPUNPCKLBW", "VPUNPCKHBW", "VPUNPCKLWD", "VPUNPCKHWD")
	add(insnFeatures{avx, avx2, avx512}, "VPUNPCKLDQ", "VPUNPCKHDQ", "VPUNPCKLQDQ", "VPUNPCKHQDQ")
	add(insnFeatures{avx, avx2, 0}, "VPAND", "VPOR", "VPXOR", "VPANDN", "VPBLENDVB", "VPMOVMSKB")
	add(insnFeatures{avx2, avx2, avx512}, "VPBROADCASTD")
	add(insnFeatures{0, avx2, 0}, "VEXTRACTI128", "VINSERTI128")
	add(insnFeatures{0, avx2, avx512}, "VPERMD", "VPERMPS")
	// EVEX only.
	add(insnFeatures{0, 0, avx512}, "VPXORD", "VPORD", "VPANDD", "VPTERNLOGD", "VMOVDQA32", "VMOVDQA64",
		"VMOVDQU32", "VMOVDQU64", "VPERMI2PS", "VPTESTMD", "VSHUFF32X4", "VSCALEFPS", "VEXTRACTI64X4", "VEXTRACTI32X4")
	add(insnFeatures{0, 0, avx512bw}, "VMOVDQU8", "VMOVDQU16", "VPERMI2W", "VPTESTMW")
	add(insnFeatures{0, 0, fAVX512VBMI}, "VPERMI2B", "VPERMB")
	return t
}()

// maskInsns are the instructions on opmask registers and what they need, besides the operating system's
// saving of the opmasks.
var maskInsns = map[string]feature{
	"KMOVW": fAVX512F, "KORTESTW": fAVX512F, "KMOVB": fAVX512DQ,
	"KMOVD": fAVX512BW, "KMOVQ": fAVX512BW, "KSHIFTRD": fAVX512BW, "KORTESTD": fAVX512BW, "KORTESTQ": fAVX512BW,
}

// scalarInsns are the instructions every amd64 machine runs (general registers, SSE2, prefetches) and
// those that need one feature of their own.
var scalarInsns = func() map[string]feature {
	t := map[string]feature{"XGETBV": fOSXSAVE}
	for _, n := range strings.Fields(`MOVQ MOVL MOVW MOVB MOVWLZX MOVBLZX ADDQ ADDL SUBQ SUBL INCQ DECQ DECL
		IMULQ SHLQ SHLL SHRQ SHRL SARQ XORQ XORL ANDQ ANDL ORQ ORL TESTQ TESTL CMPQ CMPL LEAQ
		JMP JZ JNZ JEQ JNE JL JLE JG JGE JLT JGT JCS JCC SETEQ SETNE RET NOP CPUID PREFETCHT0 PREFETCHT1`) {
		t[n] = 0
	}
	for _, n := range strings.Fields("SHLXQ SHLXL SHRXQ SHRXL SARXQ BZHIQ PDEPQ PEXTQ MULXQ RORXQ") {
		t[n] = fBMI2
	}
	return t
}()

var (
	vecReg   = regexp.MustCompile(`\b([XYZ])([0-9]{1,2})\b`)
	maskReg  = regexp.MustCompile(`\bK[0-7]\b`)
	gprFirst = regexp.MustCompile(`^(AX|BX|CX|DX|SI|DI|BP|R[0-9]{1,2})\b`)
	textRe   = regexp.MustCompile(`^TEXT\s+·(\w+)\(SB\)`)
	labelRe  = regexp.MustCompile(`^([A-Za-z_]\w*):(.*)$`)
	macroUse = regexp.MustCompile(`^([A-Za-z_]\w*)`)
	asmWord  = regexp.MustCompile(`\b[A-Za-z_]\w*\b`)
)

// insnNeeds returns the features one instruction needs (mnemonic and operands as written in Go's
// assembly), or an error for an instruction the tables do not know or an encoding that does not exist.
func insnNeeds(mnemonic, operands string) (feature, error) {
	base, suffix, _ := strings.Cut(mnemonic, ".")
	if f, ok := scalarInsns[base]; ok && suffix == "" {
		return f, nil
	}
	if f, ok := maskInsns[base]; ok && suffix == "" {
		return f | fAVX512F | fOSAVX | fOSAVX512, nil
	}
	info, ok := insnTable[base]
	if !ok {
		return 0, fmt.Errorf("unknown instruction %s", mnemonic)
	}
	width, high := 128, false
	for _, m := range vecReg.FindAllStringSubmatch(operands, -1) {
		switch m[1] {
		case "Z":
			width = 512
		case "Y":
			width = max(width, 256)
		}
		high = high || len(m[2]) == 2 && m[2] >= "16"
	}
	vex := info.x
	if width == 256 {
		vex = info.y
	}
	first := strings.TrimSpace(strings.Split(operands, ",")[0])
	evex := width == 512 || high || suffix != "" || maskReg.MatchString(operands) || vex == 0 ||
		base == "VPBROADCASTD" && gprFirst.MatchString(first)
	if !evex {
		f := vex | fAVX | fOSAVX
		if base == "VBROADCASTSS" && vecReg.MatchString(first) && strings.HasPrefix(first, "X") {
			f |= fAVX2 // from a register
		}
		if base == "VZEROUPPER" && operands != "" {
			return 0, fmt.Errorf("VZEROUPPER with operands")
		}
		return f, nil
	}
	if info.e == 0 {
		return 0, fmt.Errorf("%s %s: no EVEX encoding", mnemonic, operands)
	}
	f := info.e | fAVX512F | fOSAVX | fOSAVX512
	if width < 512 {
		f |= fAVX512VL
	}
	return f, nil
}

// encodedNeeds decodes an instruction written as BYTE directives: the package spells out VDPBF16PS on zmm
// (EVEX.512.F3.0F38.W0 52 /r, register to register), which Go's assembler does not know.
func encodedNeeds(b []byte) (feature, bool) {
	if len(b) != 6 || b[0] != 0x62 {
		return 0, false
	}
	mmm, pp, ll, op, mod := b[1]&7, b[2]&3, b[3]>>5&3, b[4], b[5]>>6
	if mmm == 2 && pp == 2 && ll == 2 && op == 0x52 && mod == 3 {
		return fAVX512BF16 | fAVX512F | fOSAVX | fOSAVX512, true
	}
	return 0, false
}

// asmScanner reads the package's assembly as the assembler does (includes, macros with arguments, and
// the files in the order they come) and gathers the features each TEXT routine's instructions need.
type asmScanner struct {
	macros   map[string]asmMacro
	needs    map[string]feature
	cur      string
	encoded  []byte // BYTE directives of an instruction written out
	errs     []string
	expanded int
}

type asmMacro struct {
	params []string // nil for a macro without arguments
	body   string
}

func (s *asmScanner) errorf(pos, format string, args ...any) {
	s.errs = append(s.errs, pos+": "+fmt.Sprintf(format, args...))
}

func (s *asmScanner) file(path string) {
	lines, err := readAsm(path)
	if err != nil {
		s.errorf(path, "%v", err)
		return
	}
	s.macros = map[string]asmMacro{} // each file is assembled on its own
	s.cur = ""
	for _, l := range lines {
		s.line(l)
	}
}

func (s *asmScanner) line(l asmLine) {
	text := strings.TrimSpace(l.text)
	switch {
	case text == "":
	case strings.HasPrefix(text, "#include"):
		name := strings.Trim(strings.TrimSpace(strings.TrimPrefix(text, "#include")), `"`)
		if name == "textflag.h" {
			return
		}
		lines, err := readAsm(name)
		if err != nil {
			s.errorf(l.pos, "%v", err)
			return
		}
		for _, l := range lines {
			s.line(l)
		}
	case strings.HasPrefix(text, "#define"):
		rest := strings.TrimSpace(strings.TrimPrefix(text, "#define"))
		name := macroUse.FindString(rest)
		rest = rest[len(name):]
		var m asmMacro
		if strings.HasPrefix(rest, "(") {
			end := strings.Index(rest, ")")
			m.params = []string{}
			for _, p := range strings.Split(rest[1:end], ",") {
				if p = strings.TrimSpace(p); p != "" {
					m.params = append(m.params, p)
				}
			}
			rest = rest[end+1:]
		}
		m.body = strings.TrimSpace(rest)
		s.macros[name] = m
	case strings.HasPrefix(text, "#undef"):
		delete(s.macros, strings.TrimSpace(strings.TrimPrefix(text, "#undef")))
	case strings.HasPrefix(text, "#"):
		s.errorf(l.pos, "unknown directive %s", text)
	default:
		s.statements(l.pos, text, 0)
	}
}

// statements handles the statements of text, separated by semicolons, expanding macros.
func (s *asmScanner) statements(pos, text string, depth int) {
	if depth > 20 {
		s.errorf(pos, "macros nested too deep")
		return
	}
	for _, st := range strings.Split(text, ";") {
		st = strings.TrimSpace(st)
		if m := labelRe.FindStringSubmatch(st); m != nil {
			st = strings.TrimSpace(m[2])
		}
		if st == "" {
			continue
		}
		name := macroUse.FindString(st)
		if m, ok := s.macros[name]; ok {
			s.expanded++
			s.statements(pos, expandMacro(m, st[len(name):]), depth+1)
			continue
		}
		// Macros without arguments named among the operands (V0 for Z0, say) become their bodies.
		st = asmWord.ReplaceAllStringFunc(st, func(w string) string {
			if m, ok := s.macros[w]; ok && m.params == nil {
				return m.body
			}
			return w
		})
		s.insn(pos, st)
	}
}

// expandMacro returns m's body with its parameters replaced by the arguments in args ("(a, b)" or "").
func expandMacro(m asmMacro, args string) string {
	if m.params == nil {
		return m.body
	}
	args = strings.TrimSpace(args)
	args = strings.TrimSuffix(strings.TrimPrefix(args, "("), ")")
	var vals []string
	depth, start := 0, 0
	for i, c := range args {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				vals = append(vals, strings.TrimSpace(args[start:i]))
				start = i + 1
			}
		}
	}
	vals = append(vals, strings.TrimSpace(args[start:]))
	body := m.body
	for i, p := range m.params {
		if i < len(vals) {
			body = regexp.MustCompile(`\b`+regexp.QuoteMeta(p)+`\b`).ReplaceAllLiteralString(body, vals[i])
		}
	}
	return body
}

func (s *asmScanner) insn(pos, st string) {
	mnemonic := strings.Fields(st)[0]
	operands := strings.TrimSpace(st[len(mnemonic):])
	if mnemonic == "TEXT" {
		m := textRe.FindStringSubmatch(st)
		if m == nil {
			s.errorf(pos, "cannot read %s", st)
			return
		}
		s.cur = m[1]
		s.needs[s.cur] |= 0
		return
	}
	switch mnemonic {
	case "DATA", "GLOBL", "PCDATA", "FUNCDATA", "NO_LOCAL_POINTERS":
		return
	}
	if s.cur == "" {
		s.errorf(pos, "%s outside a routine", st)
		return
	}
	if mnemonic == "BYTE" {
		var b byte
		if _, err := fmt.Sscanf(operands, "$0x%x", &b); err != nil {
			s.errorf(pos, "cannot read %s", st)
			return
		}
		s.encoded = append(s.encoded, b)
		if f, ok := encodedNeeds(s.encoded); ok {
			s.needs[s.cur] |= f
			s.encoded = nil
		} else if len(s.encoded) >= 15 {
			s.errorf(pos, "bytes % x are no instruction the test knows", s.encoded)
			s.encoded = nil
		}
		return
	}
	if len(s.encoded) > 0 {
		s.errorf(pos, "bytes % x are no instruction the test knows", s.encoded)
		s.encoded = nil
	}
	f, err := insnNeeds(mnemonic, operands)
	if err != nil {
		s.errorf(pos, "%s: %v", s.cur, err)
		return
	}
	s.needs[s.cur] |= f
}

// scanAsm returns the features every TEXT routine of the package's assembly needs.
func scanAsm(t *testing.T) map[string]feature {
	t.Helper()
	files, err := filepath.Glob("*_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	s := &asmScanner{needs: map[string]feature{}}
	for _, f := range files {
		s.file(f)
	}
	for _, e := range s.errs {
		t.Error(e)
	}
	if len(s.needs) == 0 || s.expanded == 0 {
		t.Fatalf("read %d routines, expanded %d macros from %v", len(s.needs), s.expanded, files)
	}
	return s.needs
}

// TestAsmFeatures reads every instruction of the package's assembly (headers and macros expanded) and
// checks that each routine belongs to exactly one asmSet, and that each set's needs are exactly the
// features its routines' instructions use: none missing (a machine without it would stop on an illegal
// instruction), none extra.
func TestAsmFeatures(t *testing.T) {
	needs := scanAsm(t)
	owner := map[string]*asmSet{}
	for _, set := range asmSets {
		var used feature
		for _, r := range set.routines {
			if o := owner[r]; o != nil {
				t.Errorf("%s is in two sets, %q and %q", r, o.name, set.name)
			}
			owner[r] = set
			f, ok := needs[r]
			if !ok {
				t.Errorf("set %q lists %s, which no assembly file defines", set.name, r)
			}
			if !set.needs.has(f) {
				t.Errorf("%s needs %v, which set %q does not declare (%v)", r, f&^set.needs, set.name, set.needs)
			}
			used |= f
		}
		if used != set.needs {
			t.Errorf("set %q declares %v; its routines use %v", set.name, set.needs, used)
		}
	}
	var names []string
	for r := range needs {
		if owner[r] == nil {
			names = append(names, r)
		}
	}
	sort.Strings(names)
	for _, r := range names {
		t.Errorf("%s (needs %v) is in no set", r, needs[r])
	}
}

// TestInsnNeeds checks the scanner's reading of encodings on instructions whose needs the manual states.
func TestInsnNeeds(t *testing.T) {
	vex, evex := fAVX|fOSAVX, fAVX512F|fOSAVX|fOSAVX512
	for _, tc := range []struct {
		insn string
		want feature
	}{
		{"VMOVUPS (AX), Y0", vex},
		{"VFMADD231PS Y12, Y14, Y0", vex | fFMA},
		{"VFMADD231PS Z28, Z30, Z0", evex},
		{"VFMADD231PS.BCST 4(AX), Z16, Z1", evex},
		{"VPMAXUB X10, X11, X11", vex},
		{"VPMAXUB Y10, Y11, Y11", vex | fAVX2},
		{"VPMAXUB X27, X28, X28", evex | fAVX512BW | fAVX512VL},
		{"VPMAXUB Z27, Z28, Z28", evex | fAVX512BW},
		{"VPCMPEQB Z27, Z28, K1", evex | fAVX512BW},
		{"VMOVUPS.Z (DI), K1, Z0", evex},
		{"VMOVUPS Z0, K1, (DI)", evex},
		{"VPANDD Y26, Y16, Y16", evex | fAVX512VL},
		{"VCVTPH2PS X0, Y0", vex | fF16C},
		{"VCVTPH2PS Y16, Z16", evex},
		{"VBROADCASTSS (AX), Y8", vex},
		{"VBROADCASTSS X0, Y8", vex | fAVX2},
		{"VPBROADCASTD X12, Y12", vex | fAVX2},
		{"VPBROADCASTD R8, Z28", evex},
		{"VXORPS Z1, Z1, Z1", evex | fAVX512DQ},
		{"KMOVW AX, K1", evex},
		{"KMOVD DX, K1", evex | fAVX512BW},
		{"KSHIFTRD $16, K1, K2", evex | fAVX512BW},
		{"VZEROUPPER", vex},
		{"PREFETCHT0 (SI)", 0},
		{"XGETBV", fOSXSAVE},
	} {
		mnemonic, operands, _ := strings.Cut(tc.insn, " ")
		got, err := insnNeeds(mnemonic, operands)
		if err != nil || got != tc.want {
			t.Errorf("%s: %v (%v), want %v", tc.insn, got, err, tc.want)
		}
	}
	for _, bad := range []string{"VMOVDQU Z0, (AX)", "VPAND Z1, Z2, Z3", "VPDPBUSD Z1, Z2, Z3"} {
		mnemonic, operands, _ := strings.Cut(bad, " ")
		if f, err := insnNeeds(mnemonic, operands); err == nil {
			t.Errorf("%s: %v, want an error", bad, f)
		}
	}
	// VDPBF16PS Z28, Z30, Z0 as kernel_bf16_amd64.s writes it, and VP4DPWSSD (F2, not F3) beside it.
	if f, ok := encodedNeeds([]byte{0x62, 0x92, 0x0e, 0x40, 0x52, 0xc4}); !ok || f != evex|fAVX512BF16 {
		t.Errorf("VDPBF16PS bytes: %v, %v", f, ok)
	}
	if _, ok := encodedNeeds([]byte{0x62, 0x92, 0x0f, 0x40, 0x52, 0xc4}); ok {
		t.Errorf("F2 0F38 52 read as VDPBF16PS")
	}
}

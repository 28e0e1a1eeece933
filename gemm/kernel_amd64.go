//go:build !purego

package gemm

import (
	"strings"

	"octet/dtype"
)

// cpuid executes the CPUID instruction for leaf and subleaf.
func cpuid(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32)

// xgetbv returns XCR0, the register in which the operating system says which vector state it saves.
func xgetbv() (eax, edx uint32)

// kernelAVX512 is the AVX-512 tile function (14x32) in kernel_avx512_amd64.s: mask has bit j set for each
// column j < n to write; acc is nil or the sums so far (see tileFunc).
//
//go:noescape
func kernelAVX512(kc int, a, b, c *float32, ldc int, acc *float32, ldacc, m int, mask uint32, alpha, beta float32)

// kernelBF16 is the AVX-512 BF16 tile function (14x32, pairs of bf16) in kernel_bf16_amd64.s.
//
//go:noescape
func kernelBF16(kc int, a, b, c *float32, ldc int, acc *float32, ldacc, m int, mask uint32, alpha, beta float32)

// kernelAVX2 is the FMA tile function (6x16) in kernel_avx2_amd64.s: mask points at 16 lane masks.
//
//go:noescape
func kernelAVX2(kc int, a, b, c *float32, ldc int, acc *float32, ldacc, m int, mask *int32, alpha, beta float32)

// An asmSet is a set of assembly routines that dispatch turns on together, and the features their
// instructions need: TestAsmFeatures reads every routine's instructions and checks that needs is exactly
// what they use. A kernel takes a set only where the machine has all of it.
type asmSet struct {
	name     string
	routines []string
	needs    feature
}

// The features every VEX-encoded instruction needs, and every EVEX-encoded one.
const (
	vex  = fAVX | fOSAVX
	evex = fAVX512F | fOSAVX | fOSAVX512
)

// The sets and what they need. The streaming kernels of AVX-512 need BW and VL as well (bytes in zmm
// registers and opmasks of 64 bits for the NaN check, words in ymm registers 16-31), and AVX2 (words in
// the low ymm registers); the avx2 tile needs only AVX and FMA.
var (
	asmCPUID  = &asmSet{"cpuid", []string{"cpuid"}, 0}
	asmXGETBV = &asmSet{"xgetbv", []string{"xgetbv"}, fOSXSAVE}
	// The tiles.
	asmTileAVX512 = &asmSet{"avx512 tile", []string{"kernelAVX512"}, vex | evex}
	asmTileBF16   = &asmSet{"avx512bf16 tile", []string{"kernelBF16"}, vex | evex | fAVX512BF16}
	asmTileAVX2   = &asmSet{"avx2 tile", []string{"kernelAVX2"}, vex | fFMA}
	// Packing and decoding.
	asmPack512 = &asmSet{"avx512 packing", []string{"transpose16", "decodeBytes", "widenBF16"}, vex | evex}
	asmWords   = &asmSet{"bf16 packing", []string{"decodeWords", "interleaveWords"}, vex | evex | fAVX512BW}
	asmPack2   = &asmSet{"avx2 packing", []string{"interleave6AVX2", "copyStripAVX2", "copyStrip32AVX2",
		"stripF8E4M3FNAVX2", "stripBF16AVX2", "decodeF8E4M3FNFastAVX2", "prefetchRows",
		"decodeF8E4M3FNAVX2", "decodeF8E5M2AVX2", "widenBF16AVX2"}, vex | fAVX2 | fF16C}
	asmEpilogue = &asmSet{"avx2 epilogue", []string{"epScaleAVX2", "epMulAVX2", "epAddAVX2", "epReLUAVX2",
		"epFinishAVX2", "epEncodeE4M3FNAVX2"}, vex | fAVX2}
	// The streaming kernels.
	asmStream512 = &asmSet{"stream-avx512", []string{
		"streamF8E4M3FNR1", "streamF8E4M3FNR4", "streamF8E4M3FNR16", "streamF8E5M2R1", "streamF8E5M2R4",
		"streamF8E5M2R16", "streamS8R1", "streamS8R4", "streamS8R16", "streamBF16R1", "streamBF16R4",
		"streamBF16R16", "streamF8E4M3FNR1Fast", "streamF8E4M3FNR4Fast", "streamF8E4M3FNR16Fast",
		"decodeF8E4M3FNPanel", "decodeF8E5M2Panel", "decodeS8Panel", "decodeBF16Panel"},
		vex | fAVX2 | evex | fAVX512BW | fAVX512VL}
	// The f8e4m3fn kernels by byte lookups: VBMI (VPERMI2B), BW (bytes unpacked in zmm registers).
	asmStreamVBMI = &asmSet{"stream-avx512vbmi", []string{"streamF8R1VBMI", "streamF8R4VBMI", "decodeF8VBMI"},
		vex | evex | fAVX512BW | fAVX512VBMI}
	asmStream2 = &asmSet{"stream-avx2", []string{
		"stream2F8E4M3FNR1", "stream2F8E4M3FNR4", "stream2F8E4M3FNR8", "stream2F8E5M2R1", "stream2F8E5M2R4",
		"stream2F8E5M2R8", "stream2S8R1", "stream2S8R4", "stream2S8R8", "stream2BF16R1", "stream2BF16R4",
		"stream2BF16R8", "stream2F8E4M3FNR1Fast", "stream2F8E4M3FNR4Fast", "stream2F8E4M3FNR8Fast",
		"stream2F32R16", "stream2F8E4M3FNR16Fast", "stream2F8E4M3FNR16Scaled", "stream2F8E5M2R16Fast",
		"stream2S8R16Fast", "stream2BF16R16Fast", "stream2F32R16DecF8E4M3FNScaled", "stream2F32R16DecF8E5M2",
		"stream2F32R16DecS8", "stream2F32R16DecBF16", "decode2F8E4M3FN16Fast", "decode2F8E4M3FN16FastScaled",
		"decode2F8E5M216", "decode2S816", "decode2BF1616"}, vex | fAVX2 | fFMA | fF16C}
)

// asmSets lists every set: each assembly routine of the package is in exactly one.
var asmSets = []*asmSet{asmCPUID, asmXGETBV, asmTileAVX512, asmTileBF16, asmTileAVX2, asmPack512, asmWords,
	asmPack2, asmEpilogue, asmStream512, asmStreamVBMI, asmStream2, asmTranspose512, asmTranspose2}

// transpose16 is the AVX-512 16x16 transpose in transpose_amd64.s: for g < groups it writes element r of
// rows[r][16*g+j] to dst + (16*g+j)*dstStride bytes + 4*r for the r whose bit is set in mask.
//
//go:noescape
func transpose16(dst *float32, dstStride int, rows *[16]*float32, mask uint16, groups int)

// decodeBytes and widenBF16 are the AVX-512 decoders in decode_amd64.s: n must be a multiple of 16.
//
//go:noescape
func decodeBytes(dst *float32, src *byte, n int, table *[256]float32)

//go:noescape
func widenBF16(dst *float32, src *byte, n int)

// decodeBytesFast sets dst[i] = table[src[i]] for a prefix of src, 16 elements at a time with the AVX-512
// decoder, or for f8e4m3fn and f8e5m2 with the AVX2 ones, where h has them, and returns its length.
func (h isa) decodeBytesFast(dst []float32, src []byte, table *[256]float32) int {
	n := len(src) &^ 15
	if n == 0 {
		return 0
	}
	if h.pack512 {
		_ = dst[n-1]
		decodeBytes(&dst[0], &src[0], n, table)
		return n
	}
	if !h.pack2 {
		return 0
	}
	// The two FP8 formats of GEMMs are decoded by bit manipulation, 8 at a time.
	switch table {
	case dtype.DecodeTable(dtype.F8E4M3FN):
		// The quick decoder, unless the codes hold a NaN, which it gets wrong.
		_ = dst[n-1]
		if n32 := n &^ 31; n32 == 0 || decodeF8E4M3FNFastAVX2(&dst[0], &src[0], n32) {
			decodeF8E4M3FNAVX2(&dst[0], &src[0], n)
		} else if n32 < n {
			decodeF8E4M3FNAVX2(&dst[n32], &src[n32], n-n32)
		}
		return n
	case dtype.DecodeTable(dtype.F8E5M2):
		_ = dst[n-1]
		decodeF8E5M2AVX2(&dst[0], &src[0], n)
		return n
	}
	return 0
}

// widenBF16Fast decodes a prefix of the bf16 elements in src into dst, as decodeBytesFast does, and
// returns its length in elements.
func (h isa) widenBF16Fast(dst []float32, src []byte) int {
	n := len(src) / 2 &^ 15
	switch {
	case n == 0:
		return 0
	case h.pack512:
		_ = dst[n-1]
		widenBF16(&dst[0], &src[0], n)
		return n
	case h.pack2:
		_ = dst[n-1]
		widenBF16AVX2(&dst[0], &src[0], n)
		return n
	}
	return 0
}

// interleave6AVX2 is the AVX2 strip packer of pack_avx2_amd64.s: n must be a multiple of 16.
//
//go:noescape
func interleave6AVX2(dst *float32, rows *[16][]float32, n, ahead int)

// interleave6Fast does what interleave6 does for a prefix of the steps of k, 16 at a time where h has the
// AVX2 packers, and returns its length. The rows must hold kc elements and dst 6*kc.
func (h isa) interleave6Fast(dst []float32, src *[16][]float32, kc, ahead int) int {
	n := kc &^ 15
	if !h.pack2 || n == 0 {
		return 0
	}
	interleave6AVX2(&dst[0], src, n, ahead)
	return n
}

// decodeF8E4M3FNFastAVX2 is the quick f8e4m3fn decoder of pack_avx2_amd64.s: n must be a multiple of 32,
// and where it reports a NaN code dst is wrong and must be decoded again.
//
//go:noescape
func decodeF8E4M3FNFastAVX2(dst *float32, src *byte, n int) (nan bool)

// prefetchRows is in pack_avx2_amd64.s.
//
//go:noescape
func prefetchRows(p *byte, stride, rows, n int)

// fetchRows asks for elements [off, off+n) of rows rows of v (row r at off + r*v.stride) to be brought
// into the caches, where h has the AVX2 packers: the next rows a packer reads.
func (v *view) fetchRows(h isa, off, rows, n int) {
	if !h.pack2 || v.raw == nil || rows <= 0 || n <= 0 {
		return
	}
	_ = v.raw[(off+(rows-1)*v.stride+n)*v.size-1]
	prefetchRows(&v.raw[off*v.size], v.stride*v.size, rows, n*v.size)
}

// copyStripAVX2, copyStrip32AVX2, stripF8E4M3FNAVX2 and stripBF16AVX2 are the AVX2 strip packers of
// pack_avx2_amd64.s.
//
//go:noescape
func copyStripAVX2(dst, src *float32, stride, kc int)

//go:noescape
func copyStrip32AVX2(dst, src *float32, stride, kc int)

//go:noescape
func stripF8E4M3FNAVX2(dst *float32, src *byte, stride, kc int) (nan bool)

//go:noescape
func stripBF16AVX2(dst *float32, src *byte, stride, kc int)

// packStripFast sets dst[w*p+j] to element (p, j0+j) of b (not transposed) for j < w and p < kc, where h
// has the AVX2 packers and there is a quick one (w = 16: float32, f8e4m3fn, bf16; w = 32: float32), and
// reports whether it did.
func (h isa) packStripFast(dst []float32, b *view, j0, kc, w int) bool {
	if !h.pack2 || kc == 0 || w != 16 && (w != 32 || b.f32 == nil) {
		return false
	}
	_ = dst[w*kc-1]
	last := (kc-1)*b.stride + j0 + w - 1 // the last element read
	switch {
	case b.f32 != nil && w == 32:
		_ = b.f32[last]
		copyStrip32AVX2(&dst[0], &b.f32[j0], 4*b.stride, kc)
		return true
	case b.f32 != nil:
		_ = b.f32[last]
		copyStripAVX2(&dst[0], &b.f32[j0], 4*b.stride, kc)
		return true
	case b.table == dtype.DecodeTable(dtype.F8E4M3FN):
		_ = b.raw[last]
		// Wrong where there is a NaN code: then the caller decodes the strip exactly.
		return !stripF8E4M3FNAVX2(&dst[0], &b.raw[j0], b.stride, kc)
	case b.typ == dtype.BF16:
		_ = b.raw[2*last+1]
		stripBF16AVX2(&dst[0], &b.raw[2*j0], 2*b.stride, kc)
		return true
	}
	return false
}

// decodeWords and interleaveWords are the AVX-512 BW bf16 packers in pack_bf16_amd64.s: n must be a
// multiple of 32 and 16.
//
//go:noescape
func decodeWords(dst *uint16, src *byte, n int, table *[256]uint16)

//go:noescape
func interleaveWords(dst *float32, lo, hi *uint16, n int)

// decodeWordsFast sets dst[i] = table[src[i]] for a prefix of src, 32 elements at a time where h has the
// bf16 packers, and returns its length.
func (h isa) decodeWordsFast(dst []uint16, src []byte, table *[256]uint16) int {
	n := len(src) &^ 31
	if !h.words || n == 0 {
		return 0
	}
	_ = dst[n-1]
	decodeWords(&dst[0], &src[0], n, table)
	return n
}

// interleaveWordsFast does what interleaveW does for a prefix of dst, 16 at a time, and returns its length.
func (h isa) interleaveWordsFast(dst []float32, lo, hi []uint16) int {
	n := len(dst) &^ 15
	if !h.words || n == 0 {
		return 0
	}
	_, _ = lo[n-1], hi[n-1]
	interleaveWords(&dst[0], &lo[0], &hi[0], n)
	return n
}

// transposeFast sets dst[(16*g+j)*step+r] = src[r][16*g+j] for r < n (n <= 16), j < 16 and g < groups; the
// elements of dst for r >= n are left alone.
func transposeFast(dst []float32, step int, src *[16][]float32, n, groups int) {
	// The assembly trusts its pointers: check that every row has the columns it reads and dst the
	// elements it writes. Rows past n repeat row n-1: they are read but not written.
	_ = dst[(16*groups-1)*step+n-1]
	var rows [16]*float32
	for r := range rows {
		row := src[min(r, n-1)]
		_ = row[16*groups-1]
		rows[r] = &row[0]
	}
	transpose16(&dst[0], 4*step, &rows, uint16(uint32(1)<<n-1), groups)
}

// The block sizes suit Zen 4 and Zen 5 (L1D 32-48 KiB, L2 1 MiB per core, a large shared L3) and are
// reasonable on Intel cores of the same generations: the mc x kc block of A takes about two thirds of L2,
// and the kc x nr micro-panel of B, 64 KiB, streams from L2 past L1 (measured with Tune on Zen 5: 2-3%
// faster at 2048^3 than a micro-panel that fits L1, as the tile of C is loaded and stored half as often).
// The AVX2 kernel keeps the smaller panels of the CPUs it serves.
//
// newKernels returns the kernels of a machine with features f and l1 KiB of level-1 data cache per core:
// the ordered ones fastest first, then the bf16 kernel; each with the packing, decoding, epilogue and
// streaming assembly that f allows and the kernel admits.
func newKernels(f feature, l1 int) []*Kernel {
	var streams512, streams2 *streamSet
	if f.has(asmStream2.needs | asmTranspose2.needs) {
		streams2 = streamsAVX2
	}
	streams512 = streams2 // a CPU with AVX-512F but not BW and VL streams in AVX2
	if f.has(asmStream512.needs | asmTranspose512.needs) {
		streams512 = streamsAVX512
		if f.has(asmStreamVBMI.needs | asmBlock512.needs) { // its 16 rows multiply by blockMulR16
			streams512 = streamsAVX512VBMI
		}
	}
	helpers := isa{
		pack2:    f.has(asmPack2.needs),
		epilogue: f.has(asmEpilogue.needs),
	}
	var ks []*Kernel
	var avx512 *Kernel
	if f.has(asmTileAVX512.needs) {
		h := helpers
		h.pack512 = f.has(asmPack512.needs)
		avx512 = &Kernel{name: "avx512", mr: 14, nr: 32, mc: 14 * 24, kc: 512, nc: 2048, tile: tileAVX512,
			ordered: true, isa: h, streams: streams512}
		ks = append(ks, avx512)
	}
	if f.has(asmTileAVX2.needs) {
		// The AVX2 kernel's kc x 16 micro-panel of B, and the 6 x kc strip of A passing by, stay in L1:
		// a micro-panel of half of L1D (kc = 384 on Zen 4/5's 48 KiB, 256 on Zen 3's and Haswell's
		// 32 KiB; measured on Zen 5, 384 sums 1.5% faster than 256).
		kc := 256
		if l1 >= 48 {
			kc = 384
		}
		ks = append(ks, &Kernel{name: "avx2", mr: 6, nr: 16, mc: 6 * 24, kc: kc, nc: 2048, tile: tileAVX2,
			ordered: true, isa: helpers, streams: streams2})
	}
	ks = append(ks, goKernel)
	if avx512 != nil && f.has(asmTileBF16.needs) {
		// The bf16 kernel's kc counts elements of k, two to a packed step: its panels take the bytes of
		// the float32 kernel's.
		h := avx512.isa
		h.words = f.has(asmWords.needs)
		ks = append(ks, &Kernel{name: "avx512bf16", mr: 14, nr: 32, mc: 14 * 24, kc: 1024, nc: 2048,
			tile: tileBF16, bf16: true, wide: avx512, isa: h, streams: streams512})
	}
	return ks
}

// detect reads this machine's features.
func detect() feature {
	var r cpuidRegs
	r.maxLeaf, _, _, _ = cpuid(0, 0)
	if r.maxLeaf >= 1 {
		_, _, r.ecx1, _ = cpuid(1, 0)
	}
	if r.maxLeaf >= 7 {
		r.eax7, r.ebx7, r.ecx7, _ = cpuid(7, 0)
		if r.eax7 >= 1 {
			r.eax71, _, _, _ = cpuid(7, 1)
		}
	}
	if featuresOf(r).has(asmXGETBV.needs) {
		r.xcr0, _ = xgetbv()
	}
	return featuresOf(r)
}

func init() {
	cpuName = brand()
	cpuFeatures = detect()
	available = newKernels(cpuFeatures, l1DataKiB())
}

func tileAVX512(kc int, a, b, c []float32, ldc int, acc []float32, ldacc, m, n int, alpha, beta float32) {
	// The assembly trusts its pointers: check here, once per tile, that every access is in bounds.
	_, _, _ = a[(m+13)/14*14*kc-1], b[32*kc-1], c[(m-1)*ldc+n-1]
	if m < 1 || n < 1 || n > 32 {
		panic("gemm: bad avx512 tile")
	}
	kernelAVX512(kc, &a[0], &b[0], &c[0], ldc, accPtr(acc, ldacc, m, n), ldacc, m, uint32(uint64(1)<<n-1), alpha, beta)
}

func tileBF16(kq int, a, b, c []float32, ldc int, acc []float32, ldacc, m, n int, alpha, beta float32) {
	_, _, _ = a[(m+13)/14*14*kq-1], b[32*kq-1], c[(m-1)*ldc+n-1]
	if m < 1 || n < 1 || n > 32 {
		panic("gemm: bad avx512bf16 tile")
	}
	kernelBF16(kq, &a[0], &b[0], &c[0], ldc, accPtr(acc, ldacc, m, n), ldacc, m, uint32(uint64(1)<<n-1), alpha, beta)
}

// accPtr returns the first element of the m x n block of sums at acc (row stride ldacc), after checking
// that the block is in bounds, or nil for a nil acc.
func accPtr(acc []float32, ldacc, m, n int) *float32 {
	if acc == nil {
		return nil
	}
	_ = acc[(m-1)*ldacc+n-1]
	return &acc[0]
}

// brand returns the processor's brand string (CPUID leaves 0x80000002-4), or "" where there is none.
func brand() string {
	if max, _, _, _ := cpuid(0x80000000, 0); max < 0x80000004 {
		return ""
	}
	var b []byte
	for leaf := uint32(0x80000002); leaf <= 0x80000004; leaf++ {
		a, bx, c, d := cpuid(leaf, 0)
		for _, r := range []uint32{a, bx, c, d} {
			b = append(b, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
		}
	}
	return strings.TrimSpace(strings.TrimRight(string(b), "\x00"))
}

// l1DataKiB returns the size of a core's level-1 data cache in KiB, from CPUID (AMD's leaf 0x80000005,
// else the deterministic cache parameters of leaf 4), or 0 where it says nothing.
func l1DataKiB() int {
	if max, _, _, _ := cpuid(0x80000000, 0); max >= 0x80000005 {
		if _, _, ecx, _ := cpuid(0x80000005, 0); ecx>>24 != 0 {
			return int(ecx >> 24)
		}
	}
	if max, _, _, _ := cpuid(0, 0); max >= 4 {
		for i := uint32(0); i < 16; i++ {
			eax, ebx, ecx, _ := cpuid(4, i)
			typ, level := eax&0x1f, eax>>5&7
			if typ == 0 {
				break
			}
			if typ == 1 && level == 1 { // a data cache of level 1
				ways, parts, line := ebx>>22+1, ebx>>12&0x3ff+1, ebx&0xfff+1
				return int(ways * parts * line * (ecx + 1) / 1024)
			}
		}
	}
	return 0
}

// avx2Masks[16-n:] starts with n lanes of -1 and then zeros.
var avx2Masks = [32]int32{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}

func tileAVX2(kc int, a, b, c []float32, ldc int, acc []float32, ldacc, m, n int, alpha, beta float32) {
	_, _, _ = a[(m+5)/6*6*kc-1], b[16*kc-1], c[(m-1)*ldc+n-1]
	if m < 1 || n < 1 || n > 16 {
		panic("gemm: bad avx2 tile")
	}
	kernelAVX2(kc, &a[0], &b[0], &c[0], ldc, accPtr(acc, ldacc, m, n), ldacc, m, &avx2Masks[16-n], alpha, beta)
}

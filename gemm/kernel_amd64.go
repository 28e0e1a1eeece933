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
// column j < n to write.
//
//go:noescape
func kernelAVX512(kc int, a, b, c *float32, ldc, m int, mask uint32, alpha, beta float32)

// kernelBF16 is the AVX-512 BF16 tile function (14x32, pairs of bf16) in kernel_bf16_amd64.s.
//
//go:noescape
func kernelBF16(kc int, a, b, c *float32, ldc, m int, mask uint32, alpha, beta float32)

// kernelAVX2 is the AVX2/FMA tile function (6x16) in kernel_avx2_amd64.s: mask points at 16 lane masks.
//
//go:noescape
func kernelAVX2(kc int, a, b, c *float32, ldc, m int, mask *int32, alpha, beta float32)

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

// decodeBytesFast sets dst[i] = table[src[i]] for a prefix of src, 16 elements at a time where the machine
// has AVX-512 (or, for f8e4m3fn and f8e5m2, AVX2), and returns its length.
func decodeBytesFast(dst []float32, src []byte, table *[256]float32) int {
	n := len(src) &^ 15
	if !vectorPacking && avx2Decoding && n > 0 {
		// Without AVX-512, the two FP8 formats of GEMMs are decoded by bit manipulation, 8 at a time.
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
	}
	if !vectorPacking || n == 0 {
		return 0
	}
	_ = dst[n-1]
	decodeBytes(&dst[0], &src[0], n, table)
	return n
}

// widenBF16Fast decodes a prefix of the bf16 elements in src into dst, as decodeBytesFast does, and
// returns its length in elements.
func widenBF16Fast(dst []float32, src []byte) int {
	n := len(src) / 2 &^ 15
	if !vectorPacking && avx2Decoding && n > 0 {
		_ = dst[n-1]
		widenBF16AVX2(&dst[0], &src[0], n)
		return n
	}
	if !vectorPacking || n == 0 {
		return 0
	}
	_ = dst[n-1]
	widenBF16(&dst[0], &src[0], n)
	return n
}

// interleave6AVX2 is the AVX2 strip packer of pack_avx2_amd64.s: n must be a multiple of 16.
//
//go:noescape
func interleave6AVX2(dst *float32, rows *[16][]float32, n, ahead int)

// interleave6Fast does what interleave6 does for a prefix of the steps of k, 16 at a time where the
// machine has AVX2, and returns its length. The rows must hold kc elements and dst 6*kc.
func interleave6Fast(dst []float32, src *[16][]float32, kc, ahead int) int {
	n := kc &^ 15
	if !useAVX2 || n == 0 {
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
// into the caches, where the machine has AVX2: the next rows a packer reads.
func (v *view) fetchRows(off, rows, n int) {
	if !useAVX2 || v.raw == nil || rows <= 0 || n <= 0 {
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

// packStripFast sets dst[w*p+j] to element (p, j0+j) of b (not transposed) for j < w and p < kc, where the
// machine has AVX2 and there is a quick packer (w = 16: float32, f8e4m3fn, bf16; w = 32: float32), and
// reports whether it did.
func packStripFast(dst []float32, b *view, j0, kc, w int) bool {
	if !useAVX2 || kc == 0 || w != 16 && (w != 32 || b.f32 == nil) {
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

// decodeWordsFast sets dst[i] = table[src[i]] for a prefix of src, 32 elements at a time where the machine
// has the bf16 kernel, and returns its length.
func decodeWordsFast(dst []uint16, src []byte, table *[256]uint16) int {
	n := len(src) &^ 31
	if !vectorPacking || !bf16Packing || n == 0 {
		return 0
	}
	_ = dst[n-1]
	decodeWords(&dst[0], &src[0], n, table)
	return n
}

// interleaveWordsFast does what interleaveW does for a prefix of dst, 16 at a time, and returns its length.
func interleaveWordsFast(dst []float32, lo, hi []uint16) int {
	n := len(dst) &^ 15
	if !vectorPacking || !bf16Packing || n == 0 {
		return 0
	}
	_, _ = lo[n-1], hi[n-1]
	interleaveWords(&dst[0], &lo[0], &hi[0], n)
	return n
}

// bf16Packing reports whether the machine has the bf16 kernel, and with it AVX-512 BW for its packers.
var bf16Packing bool

// hasF16C reports whether the machine converts binary16 in vector registers (VCVTPH2PS), which the
// streaming kernels for f8e5m2 (and the AVX2 ones for f8e4m3fn) use.
var hasF16C bool

// vectorPacking reports whether packing may use the AVX-512 transposer and decoders (the machine has
// AVX-512; tests turn it off to exercise the portable code).
var vectorPacking bool

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
var (
	avx512Kernel = &Kernel{name: "avx512", mr: 14, nr: 32, mc: 14 * 24, kc: 512, nc: 2048, tile: tileAVX512}
	avx2Kernel   = &Kernel{name: "avx2", mr: 6, nr: 16, mc: 6 * 24, kc: 256, nc: 2048, tile: tileAVX2}
	// The bf16 kernel's kc counts elements of k, two to a packed step: its panels take the bytes of the
	// float32 kernel's.
	bf16Kernel = &Kernel{name: "avx512bf16", mr: 14, nr: 32, mc: 14 * 24, kc: 1024, nc: 2048, tile: tileBF16,
		bf16: true, wide: avx512Kernel}
)

func init() {
	cpuName = brand()
	maxLeaf, _, _, _ := cpuid(0, 0)
	_, _, ecx1, _ := cpuid(1, 0)
	const osxsave, fma, avx, f16c = 1 << 27, 1 << 12, 1 << 28, 1 << 29
	if maxLeaf < 7 || ecx1&osxsave == 0 {
		return
	}
	_, ebx7, _, _ := cpuid(7, 0)
	eax71, _, _, _ := cpuid(7, 1)
	xcr0, _ := xgetbv()
	// XCR0 bits: 1 SSE and 2 AVX state (ymm); 5, 6, 7 opmask and zmm state.
	osAVX := xcr0&0x6 == 0x6
	osAVX512 := osAVX && xcr0&0xe0 == 0xe0
	const avx2, avx512f, avx512bw, avx512bf16 = 1 << 5, 1 << 16, 1 << 30, 1 << 5
	hasAVX2 := osAVX && ecx1&(fma|avx) == fma|avx && ebx7&avx2 != 0
	hasF16C = hasAVX2 && ecx1&f16c != 0
	hasAVX512 := osAVX512 && ebx7&avx512f != 0
	hasBW := hasAVX512 && ebx7&avx512bw != 0
	hasBF16 := hasBW && eax71&avx512bf16 != 0 // the packers need BW; every CPU with BF16 has it
	for _, f := range []struct {
		name string
		has  bool
	}{
		{"avx2", hasAVX2}, {"fma", hasAVX2}, {"f16c", hasF16C}, {"avx512f", hasAVX512},
		{"avx512bw", hasBW}, {"avx512bf16", eax71&avx512bf16 != 0 && hasAVX512},
	} {
		if f.has {
			cpuFeatures = append(cpuFeatures, f.name)
		}
	}
	var ks []*Kernel
	if hasBF16 {
		ks = append(ks, bf16Kernel)
		bf16Packing = true
	}
	if hasAVX512 {
		ks = append(ks, avx512Kernel)
		vectorPacking = true
	}
	if hasAVX2 {
		// The AVX2 kernel's kc x 16 micro-panel of B, and the 6 x kc strip of A passing by, stay in L1:
		// a micro-panel of half of L1D (kc = 384 on Zen 4/5's 48 KiB, 256 on Zen 3's and Haswell's
		// 32 KiB; measured on Zen 5, 384 sums 1.5% faster than 256).
		if l1 := l1DataKiB(); l1 >= 48 {
			avx2Kernel.kc = 384
		}
		ks = append(ks, avx2Kernel)
	}
	available = append(ks, available...)
}

func tileAVX512(kc int, a, b, c []float32, ldc, m, n int, alpha, beta float32) {
	// The assembly trusts its pointers: check here, once per tile, that every access is in bounds.
	_, _, _ = a[(m+13)/14*14*kc-1], b[32*kc-1], c[(m-1)*ldc+n-1]
	if m < 1 || n < 1 || n > 32 {
		panic("gemm: bad avx512 tile")
	}
	kernelAVX512(kc, &a[0], &b[0], &c[0], ldc, m, uint32(uint64(1)<<n-1), alpha, beta)
}

func tileBF16(kq int, a, b, c []float32, ldc, m, n int, alpha, beta float32) {
	_, _, _ = a[(m+13)/14*14*kq-1], b[32*kq-1], c[(m-1)*ldc+n-1]
	if m < 1 || n < 1 || n > 32 {
		panic("gemm: bad avx512bf16 tile")
	}
	kernelBF16(kq, &a[0], &b[0], &c[0], ldc, m, uint32(uint64(1)<<n-1), alpha, beta)
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

func tileAVX2(kc int, a, b, c []float32, ldc, m, n int, alpha, beta float32) {
	_, _, _ = a[(m+5)/6*6*kc-1], b[16*kc-1], c[(m-1)*ldc+n-1]
	if m < 1 || n < 1 || n > 16 {
		panic("gemm: bad avx2 tile")
	}
	kernelAVX2(kc, &a[0], &b[0], &c[0], ldc, m, &avx2Masks[16-n], alpha, beta)
}

//go:build !purego

package gemm

import (
	"maps"

	"octet/dtype"
)

// The AVX-512 kernels for block-scaled weights of blockscaled_avx512_amd64.s.

//go:noescape
func blockFP4R1(k, bk, first int, a *float32, b, s *byte, out *float32, tab *float32, buf *float32, flags int, pf *byte)

//go:noescape
func blockE4M3R1(k, bk, first int, a *float32, b, s *byte, out *float32, tab *float32, buf *float32, flags int, pf *byte)

// blockF8R1VBMI is blockE4M3R1 and blockE5M2R1 by byte lookups in tab (bf16Table of the element type),
// for CPUs with AVX-512 VBMI.
//
//go:noescape
func blockF8R1VBMI(k, bk, first int, a *float32, b, s *byte, out *float32, tab *[256]byte, buf *float32, flags int, pf *byte)

// blockDecodeF8VBMI is blockDecodeE4M3 and blockDecodeE5M2 by the byte lookups of blockF8R1VBMI, the
// columns of each strip in the lookups' order (vbmiSums).
//
//go:noescape
func blockDecodeF8VBMI(k, bk, first int, b, s *byte, dst *float32, tab *[256]byte, buf *float32, flags int, pf *byte)

//go:noescape
func blockE5M2R1(k, bk, first int, a *float32, b, s *byte, out *float32, tab *float32, buf *float32, flags int, pf *byte)

//go:noescape
func blockDecodeFP4(k, bk, first int, b, s *byte, dst *float32, tab *float32, buf *float32, flags int, pf *byte)

//go:noescape
func blockDecodeE4M3(k, bk, first int, b, s *byte, dst *float32, tab *float32, buf *float32, flags int, pf *byte)

//go:noescape
func blockDecodeE5M2(k, bk, first int, b, s *byte, dst *float32, tab *float32, buf *float32, flags int, pf *byte)

//go:noescape
func blockMulR4(k int, a, b, out *float32)

//go:noescape
func blockMulR8(k int, a, b, out *float32)

//go:noescape
func blockMulR16(k int, a, b, out *float32)

// The AVX2 kernels of blockscaled_avx2_amd64.s: the same, in 8 lanes.

//go:noescape
func block2FP4R1(k, bk, first int, a *float32, b, s *byte, out *float32, tab *float32, buf *float32, flags int, pf *byte)

//go:noescape
func block2E4M3R1(k, bk, first int, a *float32, b, s *byte, out *float32, tab *float32, buf *float32, flags int, pf *byte)

//go:noescape
func block2E5M2R1(k, bk, first int, a *float32, b, s *byte, out *float32, tab *float32, buf *float32, flags int, pf *byte)

//go:noescape
func block2DecodeFP4(k, bk, first int, b, s *byte, dst *float32, tab *float32, buf *float32, flags int, pf *byte)

//go:noescape
func block2DecodeE4M3(k, bk, first int, b, s *byte, dst *float32, tab *float32, buf *float32, flags int, pf *byte)

//go:noescape
func block2DecodeE5M2(k, bk, first int, b, s *byte, dst *float32, tab *float32, buf *float32, flags int, pf *byte)

//go:noescape
func block2MulR4(k int, a, b, out *float32)

//go:noescape
func block2MulR8(k int, a, b, out *float32)

//go:noescape
func block2MulR16(k int, a, b, out *float32)

// asmBlock512 is the AVX-512 assembly for block-scaled weights: AVX-512 F (VPERMPS, VSCALEFPS), BW and VL
// (words in ymm registers 16-31, compared into opmasks), and the VEX encodings of AVX2 on words in the
// low ymm registers.
var asmBlock512 = &asmSet{"block-avx512", []string{"blockFP4R1", "blockE4M3R1", "blockE5M2R1", "blockDecodeFP4",
	"blockDecodeE4M3", "blockDecodeE5M2", "blockMulR4", "blockMulR8", "blockMulR16"}, vex | fAVX2 | evex | fAVX512BW | fAVX512VL}

// asmBlock2 is the AVX2 assembly for block-scaled weights: AVX2, FMA and F16C (VCVTPH2PS).
var asmBlock2 = &asmSet{"block-avx2", []string{"block2FP4R1", "block2E4M3R1", "block2E5M2R1", "block2DecodeFP4",
	"block2DecodeE4M3", "block2DecodeE5M2", "block2MulR4", "block2MulR8", "block2MulR16"}, vex | fAVX2 | fFMA | fF16C}

// asmBlockVBMI is blockF8R1VBMI: AVX-512 F, BW (bytes unpacked in zmm registers), VL (the scales'
// words in ymm registers 16-31) and VBMI (VPERMB, VPERMI2B).
var asmBlockVBMI = &asmSet{"block-avx512vbmi", []string{"blockF8R1VBMI", "blockDecodeF8VBMI"}, vex | evex | fAVX512BW | fAVX512VL | fAVX512VBMI}

func init() {
	asmSets = append(asmSets, asmBlock512, asmBlockVBMI, asmBlock2)
	s := *blockScaledAVX512
	s.name = "block-avx512vbmi"
	s.direct = maps.Clone(s.direct)
	s.decoders = maps.Clone(s.decoders)
	s.decodeSums = map[dtype.Type]*[streamPanel]uint8{}
	s.offsets = map[dtype.Type]int{dtype.F8E4M3FN: 0}
	for t, tab := range map[dtype.Type]*[256]byte{dtype.F8E4M3FN: bf16TableE4M3FN, dtype.F8E5M2: bf16TableE5M2} {
		s.direct[t] = func(k, bk, first int, a *float32, b, sc *byte, out *float32, _ *float32, buf *float32, flags int, pf *byte) {
			blockF8R1VBMI(k, bk, first, a, b, sc, out, tab, buf, flags, pf)
		}
		s.decoders[t] = func(k, bk, first int, b, sc *byte, dst *float32, _ *float32, buf *float32, flags int, pf *byte) {
			blockDecodeF8VBMI(k, bk, first, b, sc, dst, tab, buf, flags, pf)
		}
		s.decodeSums[t] = &vbmiSums
	}
	blockScaledAVX512VBMI = &s
}

// blockScaledAVX512VBMI is blockScaledAVX512 with blockF8R1VBMI for one row of FP8 elements and
// blockDecodeF8VBMI for more, beside the streaming kernels of stream-avx512vbmi.
var blockScaledAVX512VBMI *blockScaledSet

var blockScaledAVX512 = &blockScaledSet{
	name:       "block-avx512",
	direct:     map[dtype.Type]blockScaledDirectFunc{dtype.F4E2M1FN: blockFP4R1, dtype.F8E4M3FN: blockE4M3R1, dtype.F8E5M2: blockE5M2R1},
	directCols: map[dtype.Type]int{dtype.F4E2M1FN: 128, dtype.F8E4M3FN: 64, dtype.F8E5M2: 64},
	decoders:   map[dtype.Type]blockScaledDecodeFunc{dtype.F4E2M1FN: blockDecodeFP4, dtype.F8E4M3FN: blockDecodeE4M3, dtype.F8E5M2: blockDecodeE5M2},
	mul4:       blockMulR4,
	cols4:      64,
	mul8:       blockMulR8,
	mul16:      blockMulR16,
}

var blockScaledAVX2 = &blockScaledSet{
	name:       "block-avx2",
	direct:     map[dtype.Type]blockScaledDirectFunc{dtype.F4E2M1FN: block2FP4R1, dtype.F8E4M3FN: block2E4M3R1, dtype.F8E5M2: block2E5M2R1},
	directCols: map[dtype.Type]int{dtype.F4E2M1FN: 64, dtype.F8E4M3FN: 64, dtype.F8E5M2: 64},
	decoders:   map[dtype.Type]blockScaledDecodeFunc{dtype.F4E2M1FN: block2DecodeFP4, dtype.F8E4M3FN: block2DecodeE4M3, dtype.F8E5M2: block2DecodeE5M2},
	mul4:       block2MulR4,
	cols4:      16,
	mul8:       block2MulR8,
	mul16:      block2MulR16,
}

// blockScaledSet returns the assembly for block-scaled weights that k runs: the AVX-512 set beside the
// AVX-512 streaming kernels, the AVX2 set beside the AVX2 ones, where the machine has what each needs;
// else none, and the Go code runs (the go kernel, and kernels made without streaming kernels).
func (k *Kernel) blockScaledSet() *blockScaledSet {
	switch {
	case k.streams == streamsAVX512VBMI && cpuFeatures.has(asmBlock512.needs|asmBlockVBMI.needs):
		return blockScaledAVX512VBMI
	case (k.streams == streamsAVX512 || k.streams == streamsAVX512VBMI) && cpuFeatures.has(asmBlock512.needs):
		return blockScaledAVX512
	case k.streams != nil && cpuFeatures.has(asmBlock2.needs):
		return blockScaledAVX2
	}
	return nil
}

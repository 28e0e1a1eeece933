//go:build !purego

package gemm

import "octet/dtype"

// The AVX-512 kernels for block-scaled weights of blockscaled_avx512_amd64.s.

//go:noescape
func blockFP4R1(k, bk, first int, a *float32, b, s *byte, out *float32, tab *float32, buf *float32, flags int)

//go:noescape
func blockE4M3R1(k, bk, first int, a *float32, b, s *byte, out *float32, tab *float32, buf *float32, flags int)

//go:noescape
func blockE5M2R1(k, bk, first int, a *float32, b, s *byte, out *float32, tab *float32, buf *float32, flags int)

//go:noescape
func blockDecodeFP4(k, bk, first int, b, s *byte, dst *float32, tab *float32, buf *float32, flags int)

//go:noescape
func blockDecodeE4M3(k, bk, first int, b, s *byte, dst *float32, tab *float32, buf *float32, flags int)

//go:noescape
func blockDecodeE5M2(k, bk, first int, b, s *byte, dst *float32, tab *float32, buf *float32, flags int)

//go:noescape
func blockMulR4(k int, a, b, out *float32)

//go:noescape
func blockMulR16(k int, a, b, out *float32)

// asmBlock512 is the AVX-512 assembly for block-scaled weights: AVX-512 F (VPERMPS, VSCALEFPS), BW and VL
// (words in ymm registers 16-31, compared into opmasks), and the VEX encodings of AVX2 on words in the
// low ymm registers.
var asmBlock512 = &asmSet{"block-avx512", []string{"blockFP4R1", "blockE4M3R1", "blockE5M2R1", "blockDecodeFP4",
	"blockDecodeE4M3", "blockDecodeE5M2", "blockMulR4", "blockMulR16"}, vex | fAVX2 | evex | fAVX512BW | fAVX512VL}

func init() {
	asmSets = append(asmSets, asmBlock512)
}

var blockScaledAVX512 = &blockScaledSet{
	name:       "block-avx512",
	direct:     map[dtype.Type]blockScaledDirectFunc{dtype.F4E2M1FN: blockFP4R1, dtype.F8E4M3FN: blockE4M3R1, dtype.F8E5M2: blockE5M2R1},
	directCols: map[dtype.Type]int{dtype.F4E2M1FN: 128, dtype.F8E4M3FN: 64, dtype.F8E5M2: 64},
	decoders:   map[dtype.Type]blockScaledDecodeFunc{dtype.F4E2M1FN: blockDecodeFP4, dtype.F8E4M3FN: blockDecodeE4M3, dtype.F8E5M2: blockDecodeE5M2},
	mul4:       blockMulR4,
	cols4:      64,
	mul16:      blockMulR16,
}

// blockScaledSet returns the assembly for block-scaled weights that k runs: the AVX-512 set beside the
// AVX-512 streaming kernels, where the machine has what it needs; else none, and the Go code runs.
func (k *Kernel) blockScaledSet() *blockScaledSet {
	if k.streams == streamsAVX512 && cpuFeatures.has(asmBlock512.needs) {
		return blockScaledAVX512
	}
	return nil
}

//go:build !purego

package gemm

// The block transposes in AVX (transposeblock_avx2_amd64.s, AVX2 kernels' companions; every instruction
// is AVX): rows and cols multiples of 8, neither 0.

//go:noescape
func transposeBlock16x2(dst *uint16, dstStride int, src *uint16, srcStride int, rows, cols int)

//go:noescape
func transposeBlock32x2(dst *uint32, dstStride int, src *uint32, srcStride int, rows, cols int)

// asmTransposeBlock2 is the AVX2 block transpose assembly.
var asmTransposeBlock2 = &asmSet{"transpose-block-avx2", []string{"transposeBlock16x2", "transposeBlock32x2"}, vex}

func init() {
	asmSets = append(asmSets, asmTransposeBlock2)
}

var transposeAVX2 = &transposeSet{t16: transposeBlock16x2, t32: transposeBlock32x2}

// transposeSet returns the block transpose assembly that k runs: the AVX2 set beside any kernel whose
// helpers are assembly (the AVX-512 kernels too, whose CPUs run AVX2), where the machine has AVX2; else
// none, and the Go loops run.
func (k *Kernel) transposeSet() *transposeSet {
	if (k.isa.pack512 || k.isa.pack2) && cpuFeatures.has(asmTransposeBlock2.needs) {
		return transposeAVX2
	}
	return nil
}

//go:build !purego

package gemm

// boxMullerAVX2 is the Box-Muller kernel of boxmuller_avx2_amd64.s: n a multiple of 4.
//
//go:noescape
func boxMullerAVX2(dst0, dst1, u1, u2 *float64, n int)

// asmBoxMuller2 is the AVX2 Box-Muller assembly: AVX for the floating-point operations, AVX2 for the
// integer ones on the octants.
var asmBoxMuller2 = &asmSet{"boxmuller-avx2", []string{"boxMullerAVX2"}, vex | fAVX2}

func init() {
	asmSets = append(asmSets, asmBoxMuller2)
}

// boxMullerFast does BoxMuller for a prefix of u1 (whose length dst0, dst1 and u2 share), four elements
// at a time in AVX2 where k runs the integer row assembly (see intRowSet) and the machine has what the
// kernel needs, and returns its length.
func (k *Kernel) boxMullerFast(dst0, dst1, u1, u2 []float64) int {
	n := len(u1) &^ 3
	if n == 0 || k.intRowSet() == nil || !cpuFeatures.has(asmBoxMuller2.needs) {
		return 0
	}
	_, _, _ = dst0[n-1], dst1[n-1], u2[n-1]
	boxMullerAVX2(&dst0[0], &dst1[0], &u1[0], &u2[0], n)
	return n
}

// splitMixUniformsAVX2 is the SplitMix64 uniforms kernel of splitmix_avx2_amd64.s: n a multiple of 4.
//
//go:noescape
func splitMixUniformsAVX2(u1, u2 *float64, key, p0 uint64, n int)

// asmSplitMix2 is the AVX2 SplitMix64 uniforms assembly: AVX2 for the integer operations, AVX for the
// floating-point ones.
var asmSplitMix2 = &asmSet{"splitmix-avx2", []string{"splitMixUniformsAVX2"}, vex | fAVX2}

func init() {
	asmSets = append(asmSets, asmSplitMix2)
}

// splitMixFast does SplitMixUniforms for a prefix of u1 (whose length u2 shares), four pairs at a time in
// AVX2 where BoxMuller runs its assembly, and returns its length.
func (k *Kernel) splitMixFast(u1, u2 []float64, key, p0 uint64) int {
	n := len(u1) &^ 3
	if n == 0 || k.intRowSet() == nil || !cpuFeatures.has(asmSplitMix2.needs) {
		return 0
	}
	_ = u2[n-1]
	splitMixUniformsAVX2(&u1[0], &u2[0], key, p0, n)
	return n
}

package gemm

import "fmt"

// The uniforms of a SplitMix64 stream, the inputs of BoxMuller in package interp's random inputs: in Go,
// or four pairs at a time in AVX2 (splitmix_avx2_amd64.s: AVX2 has no 64-bit multiply, so each is three
// products of 32-bit halves) where BoxMuller runs its assembly. Integer arithmetic and exact conversions:
// the same values everywhere.

// splitmix64 is the finalizer of SplitMix64: a bijective mix of a 64-bit counter.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// SplitMix is the hash of counter x in the stream key: splitmix64(key ^ splitmix64(x + 0x632be59bd9b4e019)),
// the hash beneath package interp's random inputs.
func SplitMix(key, x uint64) uint64 { return splitmix64(key ^ splitmix64(x+0x632be59bd9b4e019)) }

// SplitMixUniforms sets u1[i] and u2[i], for every i < len(u1), to the uniforms of pair p0+i of the
// stream key, from the hashes h(x) = splitmix64(key ^ splitmix64(x + 0x632be59bd9b4e019)) of counters
// 2(p0+i) and 2(p0+i)+1 (splitmix64 the finalizer of SplitMix64):
//
//	u1[i] = float64(h(2*(p0+i))>>11 + 1) * 0x1p-53 // in (0, 1]
//	u2[i] = float64(h(2*(p0+i)+1)>>11) * 0x1p-53   // in [0, 1)
//
// u2 must be at least as long as u1.
func SplitMixUniforms(u1, u2 []float64, key, p0 uint64) {
	n := len(u1)
	if len(u2) < n {
		panic(fmt.Sprintf("gemm.SplitMixUniforms: %d elements of u1, %d of u2", n, len(u2)))
	}
	i := current().splitMixFast(u1, u2[:n], key, p0)
	splitMixGo(u1[i:], u2[i:n], key, p0+uint64(i))
}

// splitMixGo is SplitMixUniforms in Go.
func splitMixGo(u1, u2 []float64, key, p0 uint64) {
	u2 = u2[:len(u1)]
	for i := range u1 {
		x := 2 * (p0 + uint64(i))
		u1[i] = float64(SplitMix(key, x)>>11+1) * 0x1p-53
		u2[i] = float64(SplitMix(key, x+1)>>11) * 0x1p-53
	}
}

package gemm

import (
	"math/rand/v2"
	"testing"

	"octet/dtype"
)

// TestTransposePanel lays out blocks of transposed B of both element sizes with the transposers of every
// streaming set this machine's kernels run, and compares each element with the one it must hold:
// dst[p*64 + r] = B^T[j0+r][kb+p] for the columns of the panel, zero past the last. The blocks start
// anywhere in k and run from one step to a whole block of the kernels (so that the assembly's chunks
// and the steps it leaves to Go both occur), the rows have padding after them, and the last panel is
// ragged.
func TestTransposePanel(t *testing.T) {
	rng := rand.New(rand.NewPCG(87, 88))
	sets := map[*streamSet]bool{}
	for _, k := range streamTestKernels() {
		if k.streams != nil {
			sets[k.streams] = true
		}
	}
	for set := range sets {
		for _, typ := range []dtype.Type{dtype.S8, dtype.BF16} {
			size := typ.ByteSize()
			for trial := 0; trial < 60; trial++ {
				n := 1 + rng.IntN(200)
				k := 1 + rng.IntN(600)
				stride := k + rng.IntN(3)
				data := make([]byte, (n*stride)*size)
				for i := range data {
					data[i] = byte(rng.IntN(256))
				}
				s := streamSource{typ: typ, size: size, k: k, n: n, data: data, trans: true, stride: stride}
				p := rng.IntN((n + streamPanel - 1) / streamPanel)
				kb := rng.IntN(k)
				kn := 1 + rng.IntN(min(k-kb, streamBlock))
				if trial < 4 {
					kb, kn = 0, min(k, []int{1, 64, 255, streamBlock}[trial])
				}
				dst := make([]byte, (kn+1)*streamPanel*size)
				for i := range dst {
					dst[i] = 0xa5
				}
				s.transposePanel(set, dst, p, kb, kn, new([streamPanel]*byte))
				for q := 0; q < kn; q++ {
					for r := 0; r < streamPanel; r++ {
						for e := 0; e < size; e++ {
							var want byte
							if j := p*streamPanel + r; j < n {
								want = data[(j*stride+kb+q)*size+e]
							}
							if got := dst[(q*streamPanel+r)*size+e]; got != want {
								t.Fatalf("%s %v, %dx%d (stride %d), panel %d, steps [%d, %d): element (%d, %d) byte %d = %#x, want %#x",
									set.name, typ, n, k, stride, p, kb, kb+kn, q, r, e, got, want)
							}
						}
					}
				}
				for i := kn * streamPanel * size; i < len(dst); i++ {
					if dst[i] != 0xa5 {
						t.Fatalf("%s %v: byte %d past the block written", set.name, typ, i)
					}
				}
			}
		}
	}
}

//go:build !purego

package gemm

// The transposers of streamtrans_amd64.s, each a panelTransposer of its streaming set.

//go:noescape
func transposeBytes512(dst *byte, rows *[streamPanel]*byte, n int) int

//go:noescape
func transposeWords512(dst *byte, rows *[streamPanel]*byte, n int) int

//go:noescape
func transposeBytesAVX2(dst *byte, rows *[streamPanel]*byte, n int) int

//go:noescape
func transposeWordsAVX2(dst *byte, rows *[streamPanel]*byte, n int) int

// The transposers of each set of streaming kernels: with AVX-512 BW for the sets of stream-avx512 (bytes
// and words in zmm registers 16-31 and lanes of them stored with VL), with AVX2 for stream-avx2.
var (
	asmTranspose512 = &asmSet{"stream-avx512 transposers", []string{"transposeBytes512", "transposeWords512"},
		vex | evex | fAVX512BW | fAVX512VL}
	asmTranspose2 = &asmSet{"stream-avx2 transposers", []string{"transposeBytesAVX2", "transposeWordsAVX2"}, vex | fAVX2}
)

func init() {
	streamsAVX512.transpose = map[int]panelTransposer{1: transposeBytes512, 2: transposeWords512}
	streamsAVX512VBMI.transpose = streamsAVX512.transpose
	streamsAVX2.transpose = map[int]panelTransposer{1: transposeBytesAVX2, 2: transposeWordsAVX2}
}

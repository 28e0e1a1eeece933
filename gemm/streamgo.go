package gemm

import (
	"math"
	"unsafe"

	"octet/dtype"
)

// streamsGo are the streaming kernels of the go kernel, in Go alone (the only ones of the purego build):
// B read once, a row of 64 elements decoded at a time (from the decoding table, or by a shift for bf16)
// and multiplied at once by every row of A, each sum a chain of fused multiply-adds rounded as fma32
// rounds them. A transposed B is laid out in Go (transposePanel).
var streamsGo = &streamSet{name: "stream-go", kernels: map[dtype.Type][]streamKernel{
	dtype.F8E4M3FN: goStreams(dtype.DecodeTable(dtype.F8E4M3FN)),
	dtype.F8E5M2:   goStreams(dtype.DecodeTable(dtype.F8E5M2)),
	dtype.S8:       goStreams(dtype.DecodeTable(dtype.S8)),
	dtype.BF16:     goStreams(nil),
}}

// goStreams returns the kernels of one type, decoded by table (nil: bf16): 1, 4 and 16 rows by 64
// columns, the first a direct one (as every set's first is), the others multiplying only the rows of the
// product.
func goStreams(table *[256]float32) []streamKernel {
	one := &goStream{rows: 1, table: table}
	return []streamKernel{
		&directStream{rows: 1, cols: streamPanel, exact: func(k int, a *float32, b *byte, bstride int, out *float32) {
			one.run(k, a, b, bstride, out, 1)
		}},
		&goStream{rows: 4, table: table},
		&goStream{rows: streamMaxRows, table: table},
	}
}

// A goStream is a streaming kernel in Go for rows rows of A (k-major, as the others read it) by the 64
// columns of a panel, its sums rows x 64, row-major.
type goStream struct {
	rows  int
	table *[256]float32 // the decoding of every byte; nil for bf16
}

func (g *goStream) tile() (rows, cols int) { return g.rows, streamPanel }
func (g *goStream) block() int             { return streamBlock }
func (g *goStream) scalesA() bool          { return false }

func (g *goStream) panel(k int, a, as *float32, b *byte, bstride, size int, out []float32, buf []float32, m int, next *byte) {
	g.run(k, a, b, bstride, &out[0], m)
}

// run adds to the sums at out the products of k steps of the first m rows of a and of B at b, bstride
// bytes between steps, in order of k.
func (g *goStream) run(k int, a *float32, b *byte, bstride int, out *float32, m int) {
	av := unsafe.Slice(a, k*g.rows)
	sums := unsafe.Slice(out, g.rows*streamPanel)
	var row [streamPanel]float32
	for p := 0; p < k; p++ {
		src := unsafe.Add(unsafe.Pointer(b), p*bstride)
		if g.table != nil {
			for j, c := range (*[streamPanel]byte)(src) {
				row[j] = g.table[c]
			}
		} else {
			w := (*[2 * streamPanel]byte)(src)
			for j := range row {
				row[j] = math.Float32frombits(uint32(w[2*j])<<16 | uint32(w[2*j+1])<<24)
			}
		}
		for r := 0; r < m; r++ {
			x := av[p*g.rows+r]
			xf := float64(x)
			s := (*[streamPanel]float32)(sums[r*streamPanel:])
			for j, y := range row {
				// fma32 with its quick path written out: the product is exact in float64.
				if v := xf*float64(y) + float64(s[j]); fma32Quick(v) {
					s[j] = float32(v)
				} else {
					s[j] = fma32Odd(x, y, s[j])
				}
			}
		}
	}
}

package gemm

import (
	"fmt"
	"math"
	"slices"
	"unsafe"

	"octet/dtype"
)

// Row kernels: the vector loops beneath an interpreter's elementwise instructions and depthwise
// convolutions. Each computes every element exactly as its Go loop does (one IEEE operation per element,
// or a chain of fused multiply-adds), so their results are the same bits whatever the kernel set; they use
// the assembly of the kernel MatMul uses (AVX-512 beside avx512 and avx512bf16, AVX2 beside avx2) and Go
// beside the go kernel and in the purego build.

// A RowOp is an elementwise binary operation on float32 values.
type RowOp uint8

const (
	RowAdd RowOp = iota // x + y
	RowSub              // x - y
	RowMul              // x * y
	RowDiv              // x / y
	RowMax              // XLA's maximum: a NaN operand gives that NaN (x's first); of equal values, x
	RowMin              // XLA's minimum, likewise
	numRowOps
)

func (op RowOp) String() string {
	if op < numRowOps {
		return [...]string{"add", "sub", "mul", "div", "max", "min"}[op]
	}
	return fmt.Sprintf("RowOp(%d)", uint8(op))
}

// rowSet is the assembly of one kernel set for the row kernels. Each function does a prefix of its run:
// binary, encodeBF16 and the clamps (whose bounds are not NaNs) the elements, depthwise4 and bases4 the
// features, below a multiple of lanes; the callers finish the rest in Go.
type rowSet struct {
	lanes      int
	binary     [numRowOps]func(dst, x, y *float32, n int)
	encodeBF16 func(dst *uint16, src *float32, n int)
	clamp      func(dst, x *float32, n int, lo, hi float32)
	clampBF16  func(dst, x *uint16, n int, lo, hi float32)
	// The depthwise kernels are the methods depthwise4 and bases4, which call the assembly directly, so
	// that the arrays of pointers handed to it stay on the stack.
}

// Row sets dst[i] = x[i] op y[i] for every i < len(dst); x and y must be at least as long.
func Row(op RowOp, dst, x, y []float32) {
	if op >= numRowOps {
		panic("gemm.Row: " + op.String())
	}
	n := len(dst)
	if len(x) < n || len(y) < n {
		panic(fmt.Sprintf("gemm.Row: %d elements from %d and %d", n, len(x), len(y)))
	}
	i := 0
	if s := current().rowSet(); s != nil && n >= s.lanes {
		i = n &^ (s.lanes - 1)
		s.binary[op](&dst[0], &x[0], &y[0], i)
	}
	rowGo(op, dst[i:], x[i:n], y[i:n])
}

// rowGo is Row in Go.
func rowGo(op RowOp, dst, x, y []float32) {
	x, y = x[:len(dst)], y[:len(dst)]
	switch op {
	case RowAdd:
		for i := range dst {
			dst[i] = x[i] + y[i]
		}
	case RowSub:
		for i := range dst {
			dst[i] = x[i] - y[i]
		}
	case RowMul:
		for i := range dst {
			dst[i] = x[i] * y[i]
		}
	case RowDiv:
		for i := range dst {
			dst[i] = x[i] / y[i]
		}
	case RowMax:
		for i := range dst {
			a, b := x[i], y[i]
			switch {
			case a != a:
				dst[i] = a
			case b != b || a < b:
				dst[i] = b
			default:
				dst[i] = a
			}
		}
	case RowMin:
		for i := range dst {
			a, b := x[i], y[i]
			switch {
			case a != a:
				dst[i] = a
			case b != b || b < a:
				dst[i] = b
			default:
				dst[i] = a
			}
		}
	}
}

// EncodeBF16 rounds src to bf16 into dst[:len(src)]: to nearest even, overflow to infinity, a NaN to the
// quiet NaN of its sign (as package dtype's EncodeFloat32 does for BF16).
func EncodeBF16(dst []uint16, src []float32) {
	n := len(src)
	if len(dst) < n {
		panic(fmt.Sprintf("gemm.EncodeBF16: %d elements into %d", n, len(dst)))
	}
	i := 0
	if s := current().rowSet(); s != nil && n >= s.lanes {
		i = n &^ (s.lanes - 1)
		s.encodeBF16(&dst[0], &src[0], i)
	}
	for ; i < n; i++ {
		dst[i] = dtype.EncodeBF16(src[i])
	}
}

// Clamp sets dst[i] to x[i] clamped to [lo, hi] for every i < len(x), as XLA's clamp does: a NaN among
// lo, x[i] and hi gives that NaN (lo's first, then x[i]'s, then hi's); otherwise max(x[i], lo), of equal
// values x[i], then that where it is less than hi, else hi.
func Clamp(dst, x []float32, lo, hi float32) {
	n := len(x)
	if len(dst) < n {
		panic(fmt.Sprintf("gemm.Clamp: %d elements into %d", n, len(dst)))
	}
	i := 0
	if s := current().rowSet(); s != nil && n >= s.lanes && lo == lo && hi == hi {
		i = n &^ (s.lanes - 1)
		s.clamp(&dst[0], &x[0], i, lo, hi)
	}
	for ; i < n; i++ {
		dst[i] = Clamp32(lo, x[i], hi)
	}
}

// Clamp32 returns x clamped to [lo, hi] as Clamp clamps each element (the interpreter's clamp of float32
// values is this one).
func Clamp32(lo, x, hi float32) float32 {
	switch {
	case lo != lo:
		return lo
	case x != x:
		return x
	case hi != hi:
		return hi
	}
	m := x
	if x < lo {
		m = lo
	}
	if m < hi {
		return m
	}
	return hi
}

// ClampBF16 is Clamp on bf16 values (their bits), the float32 result rounded to bf16: exact, being one of
// the operands, but for a NaN, which becomes the quiet NaN of its sign.
func ClampBF16(dst, x []uint16, lo, hi uint16) {
	n := len(x)
	if len(dst) < n {
		panic(fmt.Sprintf("gemm.ClampBF16: %d elements into %d", n, len(dst)))
	}
	l, h := math.Float32frombits(uint32(lo)<<16), math.Float32frombits(uint32(hi)<<16)
	i := 0
	if s := current().rowSet(); s != nil && n >= s.lanes && l == l && h == h {
		i = n &^ (s.lanes - 1)
		s.clampBF16(&dst[0], &x[0], i, l, h)
	}
	for ; i < n; i++ {
		dst[i] = dtype.EncodeBF16(Clamp32(l, math.Float32frombits(uint32(x[i])<<16), h))
	}
}

// DecodeBF16 widens the bf16 values of src into dst[:len(src)] (exact: a bf16 value is the top half of a
// float32).
func DecodeBF16(dst []float32, src []uint16) {
	n := len(src)
	if len(dst) < n {
		panic(fmt.Sprintf("gemm.DecodeBF16: %d elements into %d", n, len(dst)))
	}
	i := 0
	if n > 0 {
		i = current().isa.widenBF16Fast(dst[:n], unsafe.Slice((*byte)(unsafe.Pointer(&src[0])), 2*n))
	}
	for ; i < n; i++ {
		dst[i] = math.Float32frombits(uint32(src[i]) << 16)
	}
}

// Depthwise computes output positions of a depthwise convolution (one input feature per output feature),
// n features each: with P = len(offs)/window positions, for p < P and c < n,
//
//	dst[p*ldd+c] = fma(x[w-1][c], k[(w-1)*ldk+c], ... fma(x[0][c], k[c], +0))
//
// where x[w] = src[offs[p*window+w]:] is the row of input features that position p's window reads at its
// position w (a row of zeros, for a position on padding), k[w*ldk:] is the kernel's row for that position,
// and each fma is rounded once to float32: the chain of a convolution's terms in the order of its window,
// the same bits as the Go loop whatever the kernel set.
func Depthwise(dst []float32, ldd int, src []float32, offs []int, k []float32, ldk, window, n int) {
	if window < 1 || n < 0 || len(offs)%window != 0 || ldk < n || ldd < n {
		panic(fmt.Sprintf("gemm.Depthwise: window %d, %d offsets, %d features, ldk %d, ldd %d", window, len(offs), n, ldk, ldd))
	}
	positions := len(offs) / window
	if positions == 0 || n == 0 {
		return
	}
	// The assembly trusts its pointers: check every row it reads and writes.
	_, _ = dst[(positions-1)*ldd+n-1], k[(window-1)*ldk+n-1]
	lo, hi := offs[0], offs[0]
	for _, o := range offs {
		lo, hi = min(lo, o), max(hi, o)
	}
	if lo < 0 || hi > len(src)-n {
		panic(fmt.Sprintf("gemm.Depthwise: offsets from %d to %d of %d features in %d elements", lo, hi, n, len(src)))
	}
	done := 0
	if s := current().rowSet(); s != nil && n >= s.lanes {
		done = n &^ (s.lanes - 1)
		var rows [4]*float32
		var pos [4]*int
		for p0 := 0; p0 < positions; p0 += 4 {
			// Four positions at a time; a last group of fewer repeats its last position, computing the
			// same row into the same place.
			for j := 0; j < 4; j++ {
				p := min(p0+j, positions-1)
				rows[j], pos[j] = &dst[p*ldd], &offs[p*window]
			}
			s.depthwise4(&rows, &src[0], &pos, &k[0], ldk, window, done)
		}
	}
	if done == n {
		return
	}
	for p := 0; p < positions; p++ {
		acc := dst[p*ldd+done : p*ldd+n]
		clear(acc)
		for w := 0; w < window; w++ {
			o := offs[p*window+w]
			x, kw := src[o+done:o+n], k[w*ldk+done:w*ldk+n]
			for c := range acc {
				acc[c] = fma32(x[c], kw[c], acc[c])
			}
		}
	}
}

// DepthwiseBases is Depthwise for output positions whose windows read rows at the same distances from a
// base: the row that position p reads at window position w is src[bases[p]+deltas[w]:], as for the
// positions of a convolution whose windows lie wholly inside its input. There are len(bases) positions
// and len(deltas) window positions; the sums are Depthwise's, the same bits.
func DepthwiseBases(dst []float32, ldd int, src []float32, bases, deltas []int, k []float32, ldk, n int) {
	window, positions := len(deltas), len(bases)
	if window < 1 || n < 0 || ldk < n || ldd < n {
		panic(fmt.Sprintf("gemm.DepthwiseBases: window %d, %d features, ldk %d, ldd %d", window, n, ldk, ldd))
	}
	if positions == 0 || n == 0 {
		return
	}
	_, _ = dst[(positions-1)*ldd+n-1], k[(window-1)*ldk+n-1]
	blo, bhi := slices.Min(bases), slices.Max(bases)
	dlo, dhi := slices.Min(deltas), slices.Max(deltas)
	if blo+dlo < 0 || bhi+dhi > len(src)-n {
		panic(fmt.Sprintf("gemm.DepthwiseBases: rows from %d to %d of %d features in %d elements", blo+dlo, bhi+dhi, n, len(src)))
	}
	done := 0
	if s := current().rowSet(); s != nil && n >= s.lanes {
		done = n &^ (s.lanes - 1)
		var rows [4]*float32
		var base [4]int
		for p0 := 0; p0 < positions; p0 += 4 {
			for j := 0; j < 4; j++ {
				p := min(p0+j, positions-1)
				rows[j], base[j] = &dst[p*ldd], bases[p]
			}
			s.bases4(&rows, &src[0], &base, &deltas[0], &k[0], ldk, window, done)
		}
	}
	if done == n {
		return
	}
	for p, b := range bases {
		acc := dst[p*ldd+done : p*ldd+n]
		clear(acc)
		for w, d := range deltas {
			x, kw := src[b+d+done:b+d+n], k[w*ldk+done:w*ldk+n]
			for c := range acc {
				acc[c] = fma32(x[c], kw[c], acc[c])
			}
		}
	}
}

package gemm

import (
	"encoding/binary"
	"math"
	"unsafe"

	"octet/dtype"
)

// Packing for the bf16 kernels: the same strips as packA and packB, but each element of a strip is a pair
// of bf16 values of consecutive k (k = 2q in the low half, 2q+1 in the high half), held in a float32 slot.
// The kernels are only chosen for element types whose every value is a bf16 value: bf16 elements are
// copied, and the others decoded straight to bf16 through a table of 256 (exactly: each entry is the high
// half of the float32 decoding). An odd K is padded with a zero high half.

// bf16Exact[t] is set for the element types whose every value is exactly a bf16 value, normal or zero, so
// that a bf16 kernel computes with the operand's true values: bf16 itself (whose subnormals the kernel
// flushes, see the package documentation) and every type of 8 bits or fewer whose decoded values keep
// their low 16 bits zero and are not float32 subnormals (the FP8, FP6 and FP4 formats, s8, u8 and the
// sub-byte integers; not e8m0, whose smallest value 2^-127 is subnormal).
var bf16Exact = func() (exact [256]bool) {
	exact[dtype.BF16] = true
	for t := range 256 {
		tab := dtype.DecodeTable(dtype.Type(t))
		if tab == nil {
			continue
		}
		ok := true
		for _, v := range tab {
			bits := math.Float32bits(v)
			subnormal := bits&0x7f800000 == 0 && bits&0x7fffffff != 0
			ok = ok && bits&0xffff == 0 && !subnormal
		}
		exact[t] = ok
	}
	return exact
}()

// bf16Tables[t] holds the bf16 bit pattern of every code of t, for each type of 8 bits or fewer in
// bf16Exact.
var bf16Tables = func() (tabs [256]*[256]uint16) {
	for t := range 256 {
		if tab := dtype.DecodeTable(dtype.Type(t)); tab != nil && bf16Exact[t] {
			tabs[t] = new([256]uint16)
			for i, v := range tab {
				tabs[t][i] = uint16(math.Float32bits(v) >> 16)
			}
		}
	}
	return tabs
}()

// words sets dst to the len(dst) stored elements of v starting at element off, as bf16 bit patterns. v's
// type is one of bf16Exact.
func (v *view) words(h isa, dst []uint16, off int) {
	n := len(dst)
	if n == 0 {
		return
	}
	if v.typ == dtype.BF16 {
		src := v.raw[2*off : 2*(off+n)]
		if littleEndian {
			copy(unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), 2*n), src)
			return
		}
		for i := range dst {
			dst[i] = binary.LittleEndian.Uint16(src[2*i:])
		}
		return
	}
	tab := bf16Tables[v.typ]
	src := v.raw[off : off+n]
	for i := h.decodeWordsFast(dst, src, tab); i < n; i++ {
		dst[i] = tab[src[i]]
	}
}

// asWords returns the memory of f as bf16 slots, two to a float32.
func asWords(f []float32) []uint16 {
	if len(f) == 0 {
		return nil
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(&f[0])), 2*len(f))
}

// interleaveW sets dst[j] to the pair lo[j] (low half), hi[j] (high half) for j < len(dst); a nil hi is
// zero.
func (h isa) interleaveW(dst []float32, lo, hi []uint16) {
	done := 0
	if hi != nil {
		done = h.interleaveWordsFast(dst, lo, hi)
	}
	for j := done; j < len(dst); j++ {
		var high uint32
		if hi != nil {
			high = uint32(hi[j]) << 16
		}
		dst[j] = math.Float32frombits(uint32(lo[j]) | high)
	}
}

// rowPairs sets the pairs p (ceil(kc/2) of them) to the kc stored elements of v from element off, in
// order, a zero high half ending an odd kc.
func (h isa) rowPairs(p []float32, v *view, off, kc int) {
	w := asWords(p)
	v.words(h, w[:kc], off)
	if kc%2 == 1 {
		w[kc] = 0
	}
}

// packA16 packs the mc x kc block of a like packA, as strips of ceil(kc/2) pairs of mr elements. tmp holds
// at least 16*ceil(kc/2) + 16 elements.
func (h isa) packA16(dst []float32, a *view, mc, kc, mr int, tmp []float32) {
	kq := (kc + 1) / 2
	for i0 := 0; i0 < mc; i0 += mr {
		strip := dst[:kq*mr]
		dst = dst[kq*mr:]
		rows := min(mr, mc-i0)
		if !a.trans {
			// Rows of A are contiguous in p: each is a row of pairs; transpose them.
			var src [16][]float32
			// Fetch the rows of the next strip while these are read.
			a.fetchRows(h, (i0+mr)*a.stride, min(mr, mc-i0-mr), kc)
			for r := 0; r < rows; r++ {
				src[r] = tmp[r*kq : (r+1)*kq]
				h.rowPairs(src[r], a, (i0+r)*a.stride, kc)
			}
			if h.pack512 && mr <= 16 {
				h.transpose(strip, mr, &src, rows, kq)
			} else {
				for r := 0; r < rows; r++ {
					scatter(strip[r:], src[r], mr)
				}
			}
		} else {
			// a(i, p) is stored at p*stride+i: rows 2q and 2q+1 of the stored matrix interleave.
			w := asWords(tmp[16*kq : 16*kq+16])
			lo, hi := w[:rows], w[16:16+rows]
			for q := 0; q < kq; q++ {
				a.words(h, lo, 2*q*a.stride+i0)
				high := hi
				if 2*q+1 < kc {
					a.words(h, high, (2*q+1)*a.stride+i0)
				} else {
					high = nil
				}
				h.interleaveW(strip[q*mr:q*mr+rows], lo, high)
			}
		}
		if rows < mr {
			for q := 0; q < kq; q++ {
				clear(strip[q*mr+rows : q*mr+mr])
			}
		}
	}
}

// packB16 packs the kc x nc block of b like packB, as strips of ceil(kc/2) pairs of nr elements. tmp holds
// at least max(16*ceil(kc/2), nc) elements.
func (h isa) packB16(dst []float32, b *view, kc, nc, nr int, tmp []float32) {
	kq := (kc + 1) / 2
	if !b.trans {
		// Rows 2q and 2q+1 of B interleave into row q of every strip.
		w := asWords(tmp[:nc])
		lo, hi := w[:nc], w[nc:2*nc]
		strips := (nc + nr - 1) / nr
		for q := 0; q < kq; q++ {
			// The rows come from memory one after another: ask for the pair four ahead meanwhile.
			if ahead := 2*q + 8; ahead < kc {
				b.fetchRows(h, ahead*b.stride, min(2, kc-ahead), nc)
			}
			b.words(h, lo, 2*q*b.stride)
			odd := 2*q+1 >= kc
			if !odd {
				b.words(h, hi, (2*q+1)*b.stride)
			}
			for s := 0; s < strips; s++ {
				d := dst[(s*kq+q)*nr : (s*kq+q+1)*nr]
				cols := min(nr, nc-s*nr)
				var high []uint16
				if !odd {
					high = hi[s*nr : s*nr+cols]
				}
				h.interleaveW(d[:cols], lo[s*nr:s*nr+cols], high)
				clear(d[cols:])
			}
		}
		return
	}
	// b(p, j) is stored at j*stride+p: column j of the logical B is contiguous in p, a row of pairs;
	// transpose them, 16 columns at a time.
	for j0 := 0; j0 < nc; j0 += nr {
		strip := dst[:kq*nr]
		dst = dst[kq*nr:]
		cols := min(nr, nc-j0)
		for c := 0; c < cols; c += 16 {
			n := min(16, cols-c)
			var src [16][]float32
			for j := 0; j < n; j++ {
				src[j] = tmp[j*kq : (j+1)*kq]
				h.rowPairs(src[j], b, (j0+c+j)*b.stride, kc)
			}
			if h.pack512 {
				h.transpose(strip[c:], nr, &src, n, kq)
			} else {
				for j := 0; j < n; j++ {
					scatter(strip[c+j:], src[j], nr)
				}
			}
		}
		if cols < nr {
			for q := 0; q < kq; q++ {
				clear(strip[q*nr+cols : q*nr+nr])
			}
		}
	}
}

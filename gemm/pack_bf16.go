package gemm

import (
	"math"

	"octet/dtype"
)

// Packing for the bf16 kernels: the same strips as packA and packB, but each element of a strip is a pair
// of bf16 values of consecutive k (k = 2q in the low half, 2q+1 in the high half), held in a float32 slot.
// The operands are decoded to float32 first (exactly, as for the float32 kernels); the kernels are only
// chosen for element types whose every value is a bf16 value, so keeping the high half of each float32 is
// exact. An odd K is padded with a zero high half.

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

// pairs sets dst[q] to the pair (src[2q], src[2q+1]) for q < len(dst), a missing src[2q+1] being zero.
func pairs(dst, src []float32) {
	done := pairsFast(dst, src)
	for q := done; q < len(dst); q++ {
		lo := math.Float32bits(src[2*q]) >> 16
		var hi uint32
		if 2*q+1 < len(src) {
			hi = math.Float32bits(src[2*q+1]) &^ 0xffff
		}
		dst[q] = math.Float32frombits(lo | hi)
	}
}

// interleave sets dst[j] to the pair (lo[j], hi[j]) for j < len(dst); a nil hi is zero.
func interleave(dst, lo, hi []float32) {
	done := 0
	if hi != nil {
		done = interleaveFast(dst, lo, hi)
	}
	for j := done; j < len(dst); j++ {
		var h uint32
		if hi != nil {
			h = math.Float32bits(hi[j]) &^ 0xffff
		}
		dst[j] = math.Float32frombits(math.Float32bits(lo[j])>>16 | h)
	}
}

// packA16 packs the mc x kc block of a like packA, as strips of ceil(kc/2) pairs of mr elements. tmp holds
// at least 16*kc + 8*kc + 16 elements.
func packA16(dst []float32, a *view, mc, kc, mr int, tmp []float32) {
	kq := (kc + 1) / 2
	dec, pr := tmp[:16*kc], tmp[16*kc:]
	for i0 := 0; i0 < mc; i0 += mr {
		strip := dst[:kq*mr]
		dst = dst[kq*mr:]
		rows := min(mr, mc-i0)
		if !a.trans {
			// Rows of A are contiguous in p: pair each, then transpose the pairs.
			var src [16][]float32
			for r := 0; r < rows; r++ {
				src[r] = pr[r*kq : (r+1)*kq]
				pairs(src[r], a.run((i0+r)*a.stride, kc, dec[r*kc:]))
			}
			if vectorPacking && mr <= 16 {
				transpose(strip, mr, &src, rows, kq)
			} else {
				for r := 0; r < rows; r++ {
					scatter(strip[r:], src[r], mr)
				}
			}
		} else {
			// a(i, p) is stored at p*stride+i: rows 2q and 2q+1 of the stored matrix interleave.
			for q := 0; q < kq; q++ {
				lo := a.run(2*q*a.stride+i0, rows, dec[:rows])
				var hi []float32
				if 2*q+1 < kc {
					hi = a.run((2*q+1)*a.stride+i0, rows, dec[16*kc-rows:])
				}
				interleave(strip[q*mr:q*mr+rows], lo, hi)
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
// at least max(16*kc + 8*kc + 16, 2*nc) elements.
func packB16(dst []float32, b *view, kc, nc, nr int, tmp []float32) {
	kq := (kc + 1) / 2
	if !b.trans {
		// Rows 2q and 2q+1 of B interleave into row q of every strip.
		strips := (nc + nr - 1) / nr
		for q := 0; q < kq; q++ {
			lo := b.run(2*q*b.stride, nc, tmp[:nc])
			var hi []float32
			if 2*q+1 < kc {
				hi = b.run((2*q+1)*b.stride, nc, tmp[nc:2*nc])
			}
			for s := 0; s < strips; s++ {
				d := dst[(s*kq+q)*nr : (s*kq+q+1)*nr]
				cols := min(nr, nc-s*nr)
				var h []float32
				if hi != nil {
					h = hi[s*nr : s*nr+cols]
				}
				interleave(d[:cols], lo[s*nr:s*nr+cols], h)
				clear(d[cols:])
			}
		}
		return
	}
	// b(p, j) is stored at j*stride+p: column j of the logical B is contiguous in p; pair it and
	// transpose the pairs, 16 columns at a time.
	dec, pr := tmp[:16*kc], tmp[16*kc:]
	for j0 := 0; j0 < nc; j0 += nr {
		strip := dst[:kq*nr]
		dst = dst[kq*nr:]
		cols := min(nr, nc-j0)
		for h := 0; h < cols; h += 16 {
			n := min(16, cols-h)
			var src [16][]float32
			for j := 0; j < n; j++ {
				src[j] = pr[j*kq : (j+1)*kq]
				pairs(src[j], b.run((j0+h+j)*b.stride, kc, dec[j*kc:]))
			}
			if vectorPacking {
				transpose(strip[h:], nr, &src, n, kq)
			} else {
				for j := 0; j < n; j++ {
					scatter(strip[h+j:], src[j], nr)
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

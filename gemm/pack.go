package gemm

// Packing copies a block of an operand into the order the microkernel reads it, so that the kernel's loads
// are contiguous whatever the operand's stride, transposition or element type, and pads ragged edges with
// zeros so that the kernel only ever multiplies whole tiles.

// packA packs the mc x kc block of a starting at its element (0, 0) into dst as ceil(mc/mr) strips: strip s
// holds, for p = 0..kc-1, the mr elements a(s*mr+r, p) for r = 0..mr-1 (zero past row mc). tmp holds at
// least 16*kc elements, for decoding.
func (h isa) packA(dst []float32, a *view, mc, kc, mr int, tmp []float32) {
	if a.trans && (a.f32 != nil || mc <= len(tmp)) {
		// a(i, p) is stored at p*stride+i: row p of the storage holds a(0..mc-1, p), contiguous. Read
		// (decode) each once and deal it out to the strips, as packB does B's rows: reading each
		// strip's mr elements down the rows instead took a copy per mr elements and a cache line per
		// step of k, more than the kernel's own time for a product whose K is long (a weight gradient).
		full := mc / mr
		for p := 0; p < kc; p++ {
			row := a.run(h, p*a.stride, mc, tmp)
			if mr == 6 {
				for s := 0; s < full; s++ {
					d, r := dst[(s*kc+p)*6:][:6:6], row[s*6:][:6:6]
					d[0], d[1], d[2], d[3], d[4], d[5] = r[0], r[1], r[2], r[3], r[4], r[5]
				}
			} else {
				for s := 0; s < full; s++ {
					copy(dst[(s*kc+p)*mr:(s*kc+p+1)*mr], row[s*mr:])
				}
			}
			if full*mr < mc {
				d := dst[(full*kc+p)*mr : (full*kc+p+1)*mr]
				clear(d[copy(d, row[full*mr:]):])
			}
		}
		return
	}
	for i0 := 0; i0 < mc; i0 += mr {
		strip := dst[:kc*mr]
		dst = dst[kc*mr:]
		rows := min(mr, mc-i0)
		if !a.trans {
			// Rows of A are contiguous in p: the strip is their transpose.
			var src [16][]float32
			switch {
			case h.pack512 && mr <= 16:
				for r := 0; r < rows; r++ {
					src[r] = a.run(h, (i0+r)*a.stride, kc, tmp[r*kc:])
				}
				h.transpose(strip, mr, &src, rows, kc)
			case mr == 6 && rows == 6:
				// The AVX2 kernel's strips: six rows interleaved at once, one step of k after another,
				// so that every store is to the next element of the strip.
				// Narrow types are decoded row by row: fetch the rows of the next strip meanwhile.
				a.fetchRows(h, (i0+mr)*a.stride, min(mr, mc-i0-mr), kc)
				for r := 0; r < rows; r++ {
					src[r] = a.run(h, (i0+r)*a.stride, kc, tmp[r*kc:])
				}
				ahead := 0
				if a.f32 != nil {
					ahead = 4 * 6 * a.stride // the same columns of the next six rows
				}
				h.interleave6(strip, &src, kc, ahead)
			default:
				for r := 0; r < rows; r++ {
					scatter(strip[r:], a.run(h, (i0+r)*a.stride, kc, tmp), mr)
				}
			}
		} else {
			// a(i, p) is stored at p*stride+i: each p gives mr consecutive elements.
			for p := 0; p < kc; p++ {
				a.read(h, strip[p*mr:p*mr+rows], p*a.stride+i0)
			}
		}
		if rows < mr {
			for p := 0; p < kc; p++ {
				clear(strip[p*mr+rows : p*mr+mr])
			}
		}
	}
}

// packB packs the kc x nc block of b starting at its element (0, 0) into dst as ceil(nc/nr) strips: strip s
// holds, for p = 0..kc-1, the nr elements b(p, s*nr+j) for j = 0..nr-1 (zero past column nc). tmp holds at
// least max(16*kc, nc) elements, for decoding.
func (h isa) packB(dst []float32, b *view, kc, nc, nr int, tmp []float32) {
	if !b.trans && (nr == 16 || nr == 32 && b.f32 != nil) {
		// The AVX2 kernel's strips, and the AVX-512 kernels' from float32: one strip after another, so
		// that the writes run on through memory and the reads go down the columns at a constant stride,
		// decoded on the way; element by element where there is no quick packer for the type.
		full := nc / nr
		for s := 0; s < full; s++ {
			d := dst[s*kc*nr : (s+1)*kc*nr]
			if !h.packStripFast(d, b, s*nr, kc, nr) {
				for p := 0; p < kc; p++ {
					b.read(h, d[p*nr:(p+1)*nr], p*b.stride+s*nr)
				}
			}
		}
		if j0 := full * nr; j0 < nc {
			d := dst[full*kc*nr : (full+1)*kc*nr]
			for p := 0; p < kc; p++ {
				b.read(h, d[p*nr:p*nr+nc-j0], p*b.stride+j0)
				clear(d[p*nr+nc-j0 : (p+1)*nr])
			}
		}
		return
	}
	if !b.trans {
		// Decode each row of the block once, in one run, and deal it out to the strips: whole strips
		// of the kernels' widths by copies of a fixed size, which compile to a few vector moves.
		strips := (nc + nr - 1) / nr
		full := 0
		if nr == 16 || nr == 32 {
			full = nc / nr
		}
		for p := 0; p < kc; p++ {
			row := b.run(h, p*b.stride, nc, tmp)
			if nr == 16 {
				for s := 0; s < full; s++ {
					*(*[16]float32)(dst[(s*kc+p)*16:]) = *(*[16]float32)(row[s*16:])
				}
			} else if nr == 32 {
				for s := 0; s < full; s++ {
					*(*[32]float32)(dst[(s*kc+p)*32:]) = *(*[32]float32)(row[s*32:])
				}
			}
			for s := full; s < strips; s++ {
				d := dst[(s*kc+p)*nr : (s*kc+p+1)*nr]
				clear(d[copy(d, row[s*nr:]):])
			}
		}
		return
	}
	for j0 := 0; j0 < nc; j0 += nr {
		strip := dst[:kc*nr]
		dst = dst[kc*nr:]
		cols := min(nr, nc-j0)
		switch {
		case h.pack512 && nr%16 == 0:
			// b(p, j) is stored at j*stride+p: column j of the logical B is contiguous, and the strip is
			// the transpose of those columns, 16 at a time.
			var src [16][]float32
			for c := 0; c < cols; c += 16 {
				n := min(16, cols-c)
				for j := 0; j < n; j++ {
					src[j] = b.run(h, (j0+c+j)*b.stride, kc, tmp[j*kc:])
				}
				h.transpose(strip[c:], nr, &src, n, kc)
			}
		case h.pack2 && cols*kc <= len(tmp):
			// AVX2: the columns of the logical B (float32 where they lie, else decoded into tmp one
			// after another) transposed into the strip by the 8 x 8 blocks of TransposeBlock, rather
			// than written one element a line apart.
			src, srcStride := b.f32, b.stride
			if src != nil {
				src = src[j0*b.stride:]
			} else {
				for j := 0; j < cols; j++ {
					b.read(h, tmp[j*kc:(j+1)*kc], (j0+j)*b.stride)
				}
				src, srcStride = tmp, kc
			}
			TransposeBlock(asU32(strip), nr, asU32(src), srcStride, cols, kc)
		default:
			for j := 0; j < cols; j++ {
				scatter(strip[j:], b.run(h, (j0+j)*b.stride, kc, tmp), nr)
			}
		}
		if cols < nr {
			for p := 0; p < kc; p++ {
				clear(strip[p*nr+cols : p*nr+nr])
			}
		}
	}
}

// transpose sets dst[p*step+r] = src[r][p] for r < n and p < kc: transposeFast does 16 columns at a time
// (h.pack512 must be set), Go the remaining ones.
func (h isa) transpose(dst []float32, step int, src *[16][]float32, n int, kc int) {
	groups := kc / 16
	if groups > 0 {
		transposeFast(dst, step, src, n, groups)
	}
	for p := groups * 16; p < kc; p++ {
		d := dst[p*step : p*step+n]
		for r := range d {
			d[r] = src[r][p]
		}
	}
}

// scatter sets dst[p*step] = src[p] for every p.
func scatter(dst, src []float32, step int) {
	if len(src) == 0 {
		return
	}
	dst = dst[:(len(src)-1)*step+1]
	i := 0
	for _, v := range src {
		dst[i] = v
		i += step
	}
}

// interleave6 sets dst[6*p+r] = src[r][p] for r < 6 and p < kc, fetching into the caches the elements
// ahead bytes past those it reads (from rows that will be packed next), where it can.
func (h isa) interleave6(dst []float32, src *[16][]float32, kc, ahead int) {
	dst = dst[:6*kc]
	r0, r1, r2, r3, r4, r5 := src[0][:kc], src[1][:kc], src[2][:kc], src[3][:kc], src[4][:kc], src[5][:kc]
	done := h.interleave6Fast(dst, src, kc, ahead)
	for p := done; p < kc; p++ {
		d := (*[6]float32)(dst[6*p:])
		d[0], d[1], d[2], d[3], d[4], d[5] = r0[p], r1[p], r2[p], r3[p], r4[p], r5[p]
	}
}

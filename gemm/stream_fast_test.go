package gemm

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"octet/dtype"
)

// specialCodes are codes of B that the tests of the streaming kernels put in often: +-0, the smallest and
// largest subnormals, the smallest normal, the largest finite value and the largest-but-one, +-1, and
// for f8e4m3fn the NaN code's neighbours. NaN codes are put in separately.
var specialCodes = []byte{0x00, 0x80, 0x01, 0x81, 0x07, 0x87, 0x08, 0x88, 0x7e, 0xfe, 0x7d, 0xfd, 0x7b, 0xfb, 0x38, 0xb8, 0x3c, 0xbc}

// isNaNCode reports whether code (little-endian, size bytes) decodes to NaN in t.
func isNaNCode(t dtype.Type, code []byte) bool {
	var bits uint64
	for i := range code {
		bits |= uint64(code[i]) << (8 * i)
	}
	return math.IsNaN(float64(t.DecodeFloat32(bits)))
}

// streamBlockB returns k rows of 64 elements of t, bstride bytes apart: random codes, a quarter of them
// special ones, NaN codes only where nan (then at least one, at a random place or at the last element).
func streamBlockB(rng *rand.Rand, t dtype.Type, k, bstride int, nan bool) []byte {
	size := t.ByteSize()
	b := make([]byte, (k-1)*bstride+64*size)
	for p := 0; p < k; p++ {
		for j := 0; j < 64; j++ {
			e := b[p*bstride+j*size : p*bstride+(j+1)*size]
			for {
				for i := range e {
					e[i] = byte(rng.IntN(256))
				}
				if rng.IntN(4) == 0 {
					e[size-1] = specialCodes[rng.IntN(len(specialCodes))]
				}
				if !isNaNCode(t, e) {
					break
				}
			}
		}
	}
	if nan {
		nanCode := map[dtype.Type][]byte{dtype.F8E4M3FN: {0x7f}, dtype.F8E5M2: {0x7e}, dtype.S8: {0x7f}, dtype.BF16: {0xc0, 0x7f}}[t]
		for n := 1 + rng.IntN(3); n > 0; n-- {
			p, j := rng.IntN(k), rng.IntN(64)
			if n == 1 && rng.IntN(2) == 0 {
				p, j = k-1, 63
			}
			copy(b[p*bstride+j*size:], nanCode)
			if rng.IntN(2) == 0 && t.ByteSize() == 1 {
				b[p*bstride+j*size] |= 0x80
			}
		}
	}
	return b
}

// sameBits reports whether x and y are the same float32, any NaN being the same as any other.
func sameBits(x, y float32) bool {
	if x != x && y != y {
		return true
	}
	return math.Float32bits(x) == math.Float32bits(y)
}

// TestStreamKernelsExact checks every streaming kernel of every kernel this machine has, fast paths
// included, at the level of one call (one block of k <= sk.block() steps through a panel), against the
// exact 1-row kernel of the same set run row by row: all add a(r, p)*b(p, j) to the sums in order of p
// with fused multiply-adds, so the results must be the same bit for bit (any NaN for any NaN). B holds
// random codes, +-0, subnormals, the largest values and, in half the cases, NaN codes, which the fast
// paths leave to the exact decoding; A holds random values, zeros, subnormals and large ones, and in a
// quarter of the cases values that cannot be scaled by 2^8 exactly (of magnitude 2^120 or more, infinities,
// NaNs), which keep the kernels that read A scaled (scaleStreamA) out; those run with and without the
// scaled A. The fast paths must also find every NaN code, and only where there is one (checkFastFlags).
func TestStreamKernelsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 48))
	tested := 0
	for _, kern := range streamTestKernels() {
		if kern.streams == nil {
			continue
		}
		for _, typ := range WeightTypes() {
			set := kern.streams.kernels[typ]
			if len(set) == 0 {
				continue
			}
			ref, _ := set[0].(*directStream)
			if ref == nil || ref.rows != 1 || ref.cols != streamPanel {
				t.Fatalf("%s %v: the first streaming kernel is not a direct 1x64 one", kern.Name(), typ)
			}
			size := typ.ByteSize()
			for _, sk := range set {
				rows, cols := sk.tile()
				base := sumBases(sk) // where the kernel keeps each column's sums
				for trial := 0; trial < 40; trial++ {
					block := sk.block()
					k := 1 + rng.IntN(block)
					if trial < 4 {
						k = []int{1, 2, block - 1, block}[trial]
					}
					bstride := 64 * size
					if trial%3 == 1 {
						bstride = (64 + 8*rng.IntN(40)) * size // a row-major B
					}
					nan := trial%2 == 1
					b := streamBlockB(rng, typ, k, bstride, nan)
					a := make([]float32, k*rows)
					huge := trial%4 == 3
					for i := range a {
						switch rng.IntN(16) {
						case 0:
							a[i] = 0
						case 1:
							a[i] = float32(rng.NormFloat64()) * 0x1p-140
						case 2:
							a[i] = float32(rng.NormFloat64()) * 0x1p100
						case 3:
							a[i] = float32(1+rng.Float64()) * 0x1p118 // near the limit, below it
							if rng.IntN(2) == 0 {
								a[i] = -0x1.fffffep119
							}
						case 4:
							if huge {
								a[i] = hugeA[rng.IntN(len(hugeA))]
								break
							}
							fallthrough
						default:
							a[i] = float32(rng.NormFloat64())
						}
					}
					if huge { // at least one, at the last step, where a block's products end
						a[len(a)-1-rng.IntN(rows)] = hugeA[rng.IntN(len(hugeA))]
					}
					as := make([]float32, len(a))
					if !scaleStreamA(as, a) {
						as = nil
					}
					if (as == nil) != huge {
						t.Fatalf("scaleStreamA of an A with huge values %v reported %v", huge, as != nil)
					}
					out0 := make([]float32, rows*streamPanel)
					for i := range out0 {
						out0[i] = float32(rng.NormFloat64())
					}
					// The reference: row r of the sums, from the 1-row exact kernel.
					want := make([][]float32, rows)
					for r := range want {
						want[r] = make([]float32, streamPanel)
						ar := make([]float32, k)
						for p := range ar {
							ar[p] = a[p*rows+r]
						}
						for j := range want[r] {
							want[r][j] = out0[base[j]+r*cols]
						}
						ref.exact(k, &ar[0], &b[0], bstride, &want[r][0])
					}
					runs := [][]float32{as}
					if as != nil && sk.scalesA() {
						runs = append(runs, nil) // the unscaled kernels too
					}
					for _, as := range runs {
						got := append([]float32(nil), out0...)
						var pas *float32
						if as != nil {
							pas = &as[0]
						}
						// The rows of the product: all, or fewer, which a kernel may take as leave to skip the
						// sums of the others.
						m := rows
						if trial%5 == 2 {
							m = 1 + rng.IntN(rows)
						}
						sk.panel(k, &a[0], pas, &b[0], bstride, size, got, make([]float32, streamBlock16*streamPanel), m, nil)
						checkFastFlags(t, kern, typ, sk, k, a, as, b, bstride, out0)
						for r := 0; r < m; r++ {
							for j := 0; j < streamPanel; j++ {
								if g := got[base[j]+r*cols]; !sameBits(g, want[r][j]) {
									t.Fatalf("%s %v %dx%d, k=%d, bstride=%d, NaN codes %v, huge A %v, scaled A %v, %d rows: sum (%d, %d) = %v (%#08x), want %v (%#08x)",
										kern.Name(), typ, rows, cols, k, bstride, nan, huge, as != nil, m, r, j, g, math.Float32bits(g), want[r][j], math.Float32bits(want[r][j]))
								}
							}
						}
						tested++
					}
				}
			}
		}
	}
	t.Logf("%d blocks", tested)
}

// TestStreamNaNCodes runs whole products whose B holds NaN codes in some panels (so that the fast
// kernels fall back to the exact decoding there) among specials: the columns with a NaN code must be NaN
// and every other column bit for bit what it is with those codes replaced by zero.
func TestStreamNaNCodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(49, 50))
	withKernel(t, func(t *testing.T) {
		for _, typ := range WeightTypes() {
			for _, m := range []int{1, 3, 4, 8, 12, 16} {
				const k, n = 300, 200
				b, _ := randomTyped(rng, typ, k, n, false, 0, 0)
				size := typ.ByteSize()
				for i := 0; i < len(b.Data); i += size {
					if rng.IntN(8) == 0 {
						b.Data[i+size-1] = specialCodes[rng.IntN(len(specialCodes))]
						if isNaNCode(typ, b.Data[i:i+size]) {
							b.Data[i+size-1] = 0
						}
					}
				}
				clean := Typed{Type: typ, Data: append([]byte(nil), b.Data...), Rows: k, Cols: n, Stride: n}
				nanCols := map[int]bool{}
				nanCode := map[dtype.Type][]byte{dtype.F8E4M3FN: {0xff}, dtype.F8E5M2: {0x7f}, dtype.S8: nil, dtype.BF16: {0xc0, 0xff}}[typ]
				if nanCode != nil {
					for _, j := range []int{5, 70, 199} { // panels 0, 1 and 3; panel 2 has none
						p := rng.IntN(k)
						copy(b.Data[(p*n+j)*size:], nanCode)
						nanCols[j] = true
					}
				}
				a, _ := randomTyped(rng, dtype.F32, m, k, false, 0, 0)
				for _, run := range []func(c Matrix, b Typed){
					func(c Matrix, b Typed) { MatMulWeights(c, a, PackWeights(b, nil), 1, 0) },
					func(c Matrix, b Typed) { MatMulTyped(c, a, b, 1, 0) },
				} {
					got, want := NewMatrix(m, n, nil), NewMatrix(m, n, nil)
					run(got, b)
					run(want, clean)
					for i := 0; i < m; i++ {
						for j := 0; j < n; j++ {
							g, w := got.At(i, j), want.At(i, j)
							if nanCols[j] {
								if !math.IsNaN(float64(g)) {
									t.Fatalf("%v, m=%d: C[%d,%d] = %v, want NaN", typ, m, i, j, g)
								}
								continue
							}
							if math.IsNaN(float64(w)) || math.Float32bits(g) != math.Float32bits(w) {
								t.Fatalf("%v, m=%d: C[%d,%d] = %v, want %v", typ, m, i, j, g, w)
							}
						}
					}
				}
			}
		}
	})
}

// hugeA are values of A that cannot be scaled by 2^8 exactly: of magnitude 2^120 or more (2^120 times 2^8
// overflows), infinities and NaNs.
var hugeA = []float32{0x1p120, -0x1p120, 0x1.8p125, -0x1.fffffep127, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}

// TestScaleStreamA checks the limit of scaleStreamA: A scaled by 2^8 exactly, subnormals and signed zeros
// included, up to the largest value below 2^120, and no further.
func TestScaleStreamA(t *testing.T) {
	ok := []float32{0, float32(math.Copysign(0, -1)), 0x1p-149, -0x1p-149, 0x1.fffffcp-127, 1, -3.5, 0x1.fffffep119, -0x1.fffffep119}
	dst := make([]float32, 3)
	for _, v := range ok {
		if !scaleStreamA(dst, []float32{v}) {
			t.Fatalf("scaleStreamA(%v) = false, want true", v)
		}
		if want := float32(float64(v) * 256); math.Float32bits(dst[0]) != math.Float32bits(want) || float64(dst[0])/256 != float64(v) {
			t.Fatalf("scaleStreamA(%v) = %v, want %v", v, dst[0], want)
		}
	}
	for _, v := range hugeA {
		if scaleStreamA(dst, []float32{1, v, 2}) {
			t.Fatalf("scaleStreamA(%v) = true, want false", v)
		}
	}
}

// checkFastFlags calls sk's quick functions on each block of columns of b directly (the scaled ones too,
// with as, where as is not nil): they must report an f8e4m3fn NaN code exactly where the block holds one,
// and then leave out as it was (the quick functions of the other types decode every code and always
// report success).
func checkFastFlags(t *testing.T, kern *Kernel, typ dtype.Type, sk streamKernel, k int, a, as []float32, b []byte, bstride int, out0 []float32) {
	t.Helper()
	size := typ.ByteSize()
	rows, cols := sk.tile()
	nanIn := func(j0, j1 int) bool {
		if typ != dtype.F8E4M3FN { // the only type whose quick decodings leave codes to the exact one
			return false
		}
		for p := 0; p < k; p++ {
			for j := j0; j < j1; j++ {
				if isNaNCode(typ, b[p*bstride+j*size:p*bstride+(j+1)*size]) {
					return true
				}
			}
		}
		return false
	}
	at := func(j int) *byte { return &b[j*size] }
	// call runs a function that reports success on columns q..q+cols of a fresh copy of out0 and checks
	// what it reports and that it leaves out alone where it fails.
	call := func(name string, q int, f func(out []float32) bool) {
		t.Helper()
		out := append([]float32(nil), out0...)
		if got, want := f(out), !nanIn(q, q+cols); got != want {
			t.Fatalf("%s %v %dx%d, k=%d: %s on columns %d..%d returned %v, want %v", kern.Name(), typ, rows, cols, k, name, q, q+cols, got, want)
		} else if !got {
			for i := range out {
				if math.Float32bits(out[i]) != math.Float32bits(out0[i]) {
					t.Fatalf("%s %v %dx%d, k=%d: %s changed out[%d] though it returned false", kern.Name(), typ, rows, cols, k, name, i)
				}
			}
		}
	}
	switch sk := sk.(type) {
	case *directStream:
		if sk.quick == nil {
			return
		}
		for q := 0; q < streamPanel; q += cols {
			call("quick", q, func(out []float32) bool { return sk.quick(k, &a[0], at(q), bstride, &out[q*rows]) })
		}
	case *bufferedStream:
		buf := make([]float32, streamBlock16*streamPanel)
		for _, d := range []struct {
			name string
			dec  blockDecoding
			a    []float32
		}{{"plain", sk.plain, a}, {"scaled", sk.scaled, as}} {
			if d.a == nil {
				continue
			}
			if d.dec.fused != nil {
				for q := 0; q < streamPanel; q += cols {
					call(d.name+" fused", q, func(out []float32) bool {
						return d.dec.fused(k, &d.a[0], at(q), bstride, &buf[0], &out[q*rows], rows)
					})
				}
			}
			if d.dec.quick == nil {
				continue
			}
			for _, groups := range []int{1, 4} {
				for q := 0; q < streamPanel; q += 16 * groups {
					if got, want := d.dec.quick(k, at(q), bstride, &buf[0], groups), !nanIn(q, q+16*groups); got != want {
						t.Fatalf("%s %v %dx%d, k=%d: %s quick decoding of %d blocks at column %d returned %v, want %v", kern.Name(), typ, rows, cols, k, d.name, groups, q, got, want)
					}
				}
			}
		}
	}
}

// TestStreamHugeA runs whole products of 9 and 16 rows whose A holds values that cannot be scaled by 2^8
// exactly (2^120, an infinity, a NaN) or only subnormals, B packed and row-major: every row must be bit for
// bit what it is alone (a product of one row, which no kernel reading a scaled A runs).
func TestStreamHugeA(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	withKernel(t, func(t *testing.T) {
		for _, typ := range WeightTypes() {
			if ks := current().streams; ks == nil || ks.kernels[typ] == nil {
				continue
			}
			for _, m := range []int{9, 16} {
				for _, special := range []float32{0x1p120, -0x1.8p125, float32(math.Inf(1)), float32(math.NaN()), 0} {
					const k, n = 300, 130
					b, _ := randomTyped(rng, typ, k, n, false, 0, 0)
					size := typ.ByteSize()
					for i := 0; i < len(b.Data); i += size {
						if isNaNCode(typ, b.Data[i:i+size]) {
							b.Data[i+size-1] = 0
						}
					}
					_, am := randomTyped(rng, dtype.F32, m, k, false, 0, 0)
					if special == 0 { // subnormals and zeros only, in one row: the scaled kernels run
						for p := 0; p < k; p++ {
							am.Data[3*am.Stride+p] = float32(rng.NormFloat64()) * 0x1p-140 * float32(rng.IntN(2))
						}
					} else {
						am.Data[(m-2)*am.Stride+rng.IntN(k)] = special
					}
					a := TypedOf(am)
					w := PackWeights(b, nil)
					for _, run := range []func(c Matrix, a Typed){
						func(c Matrix, a Typed) { MatMulWeights(c, a, w, 1, 0) },
						func(c Matrix, a Typed) { MatMulTyped(c, a, b, 1, 0) },
					} {
						got := NewMatrix(m, n, nil)
						run(got, a)
						for i := 0; i < m; i++ {
							row := NewMatrix(1, n, nil)
							run(row, TypedOf(Matrix{Data: am.Data[i*am.Stride : i*am.Stride+k], Rows: 1, Cols: k, Stride: k}))
							for j := 0; j < n; j++ {
								if g, w := got.At(i, j), row.At(0, j); !sameBits(g, w) {
									t.Fatalf("%v, m=%d, A holding %v: C[%d,%d] = %v, alone %v", typ, m, special, i, j, g, w)
								}
							}
						}
					}
				}
			}
		}
	})
}

// TestStreamPipeline checks the pipeline of the 16-row kernels (a row-major B's next panel decoded while
// the one before is multiplied) against each panel run alone through panel, which TestStreamKernelsExact
// checks against the exact kernel: the sums must be the same bits. The panels hold NaN codes here and
// there (the first, a middle one, the last), the last is sometimes a padded copy (as a ragged panel is),
// blocks of k are short or long (a row of the next panel is decoded every eight steps: fewer steps leave
// rows to the end), and the products have 1 to 16 rows.
func TestStreamPipeline(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 54))
	tested := 0
	for _, kern := range streamTestKernels() {
		if kern.streams == nil {
			continue
		}
		for _, typ := range WeightTypes() {
			var sk *bufferedStream
			for _, s := range kern.streams.kernels[typ] {
				if b, ok := s.(*bufferedStream); ok && b.pipelines(true) {
					sk = b
				}
			}
			if sk == nil {
				continue
			}
			size := typ.ByteSize()
			for trial := 0; trial < 60; trial++ {
				k := 1 + rng.IntN(streamBlock16)
				if trial < 10 {
					k = []int{1, 2, 7, 8, 9, 16, 33, 100, streamBlock16 - 1, streamBlock16}[trial]
				}
				kb := 0
				if trial%3 == 2 {
					kb = 1 + rng.IntN(5) // the block starts past the panels' first rows
				}
				np := 2 + rng.IntN(4)
				bstride := (64 + 8*(1+rng.IntN(40))) * size
				sw := &streamWork{dec: alignedFloats(2 * streamBlock16 * streamPanel)}
				blocks := make([][]byte, np)
				for i := range blocks {
					stride := bstride
					if i == np-1 && trial%4 == 1 {
						stride = streamPanel * size // a ragged last panel, copied and padded
					}
					nan := typ == dtype.F8E4M3FN && rng.IntN(3) == 0
					blocks[i] = streamBlockB(rng, typ, kb+k, stride, nan)
					sw.panels = append(sw.panels, streamPanelRef{&blocks[i][0], stride})
				}
				const rows = streamMaxRows
				a := make([]float32, k*rows)
				for i := range a {
					switch rng.IntN(8) {
					case 0:
						a[i] = 0
					case 1:
						a[i] = float32(rng.NormFloat64()) * 0x1p-140
					default:
						a[i] = float32(rng.NormFloat64())
					}
				}
				as := make([]float32, len(a))
				if !scaleStreamA(as, a) {
					t.Fatal("scaleStreamA refused an A without huge values")
				}
				m := 1 + rng.IntN(rows)
				if trial%2 == 0 {
					m = []int{9, 12, 13, 16}[trial/2%4]
				}
				size16 := rows * streamPanel
				out0 := make([]float32, np*size16)
				for i := range out0 {
					out0[i] = float32(rng.NormFloat64())
				}
				want := append([]float32(nil), out0...)
				for i, ref := range sw.panels {
					b := unsafe.Add(unsafe.Pointer(ref.ptr), kb*ref.bstride)
					sk.panel(k, &a[0], &as[0], (*byte)(b), ref.bstride, size, want[i*size16:(i+1)*size16], make([]float32, streamBlock16*streamPanel), m, nil)
				}
				got := append([]float32(nil), out0...)
				sk.pipeline(k, &a[0], &as[0], sw, kb, got, m)
				for i := 0; i < np; i++ {
					for r := 0; r < m; r++ {
						for j := 0; j < streamPanel; j++ {
							x := i*size16 + j/16*16*rows + r*16 + j%16
							if !sameBits(got[x], want[x]) {
								t.Fatalf("%s %v, k=%d (from %d), %d panels, %d rows: panel %d sum (%d, %d) = %v (%#08x), want %v (%#08x)",
									kern.Name(), typ, k, kb, np, m, i, r, j, got[x], math.Float32bits(got[x]), want[x], math.Float32bits(want[x]))
							}
						}
					}
				}
				tested++
			}
		}
	}
	if tested == 0 {
		t.Skip("no kernel with a pipelined 16-row kernel on this machine")
	}
	t.Logf("%d pipelines", tested)
}

package gemm

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"octet/dtype"
)

// needBF16 returns the bf16 kernel, or skips the test on a machine without one.
func needBF16(t *testing.T) *Kernel {
	t.Helper()
	for _, k := range Kernels() {
		if k.bf16 {
			return k
		}
	}
	t.Skip("this CPU has no bf16 dot products (AVX-512 BF16): no bf16 kernel to test")
	return nil
}

// bf16Pair returns the float32 slot holding the bf16 values lo and hi (both bf16-exact).
func bf16Pair(lo, hi float32) float32 {
	return math.Float32frombits(math.Float32bits(lo)>>16 | math.Float32bits(hi)&^0xffff)
}

// TestDotBF16Encoding runs the bf16 tile on small integers, whose products and sums are exact in any
// order, so that every accumulator of the tile (each a hand-encoded VDPBF16PS) must match the scalar sum
// bit for bit; each row and column gets its own values, so a swapped register shows.
func TestDotBF16Encoding(t *testing.T) {
	kern := needBF16(t)
	rng := rand.New(rand.NewPCG(31, 32))
	for _, kq := range []int{1, 2, 3, 4, 5, 9} {
		k := 2 * kq
		a := make([][]float32, kern.mr) // a[r][p]
		b := make([][]float32, k)       // b[p][j]
		for r := range a {
			a[r] = make([]float32, k)
			for p := range a[r] {
				a[r][p] = float32(rng.IntN(17) - 8)
			}
		}
		for p := range b {
			b[p] = make([]float32, kern.nr)
			for j := range b[p] {
				b[p][j] = float32(rng.IntN(17) - 8)
			}
		}
		pa := alignedFloats(kq * kern.mr)
		pb := alignedFloats(kq * kern.nr)
		for q := 0; q < kq; q++ {
			for r := 0; r < kern.mr; r++ {
				pa[q*kern.mr+r] = bf16Pair(a[r][2*q], a[r][2*q+1])
			}
			for j := 0; j < kern.nr; j++ {
				pb[q*kern.nr+j] = bf16Pair(b[2*q][j], b[2*q+1][j])
			}
		}
		c := make([]float32, kern.mr*kern.nr)
		kern.tile(kq, pa, pb, c, kern.nr, nil, 0, kern.mr, kern.nr, 1, 0)
		for r := 0; r < kern.mr; r++ {
			for j := 0; j < kern.nr; j++ {
				var want float32
				for p := 0; p < k; p++ {
					want += a[r][p] * b[p][j]
				}
				if got := c[r*kern.nr+j]; got != want {
					t.Fatalf("kq=%d: C[%d,%d] = %v, want %v", kq, r, j, got, want)
				}
			}
		}
	}
}

// wordISAs returns the helpers of the bf16 kernel where this machine has it, and none.
func wordISAs() []isa {
	hs := []isa{{}}
	for _, k := range Kernels() {
		if k.bf16 {
			hs = append(hs, k.isa)
		}
	}
	return hs
}

// TestWordPacking checks the bf16 packers against their scalar definitions: the decoding of every code of
// every type the bf16 kernel takes (with ragged tails), and the interleaving of two rows, on lengths around
// the vector widths.
func TestWordPacking(t *testing.T) {
	data := make([]byte, 2*256+45)
	for i := range data {
		data[i] = byte(i * 7)
	}
	for _, typ := range dtype.All() {
		if !bf16Exact[typ] || typ == dtype.BF16 {
			continue
		}
		v := Typed{Type: typ, Data: data, Rows: 1, Cols: len(data), Stride: len(data)}.view("A")
		for _, h := range wordISAs() {
			for _, n := range []int{1, 31, 32, 33, 100, len(data)} {
				got := make([]uint16, n)
				v.words(h, got, len(data)-n)
				for i, g := range got {
					want := uint16(math.Float32bits(typ.DecodeFloat32(uint64(data[len(data)-n+i]))) >> 16)
					if g != want {
						t.Fatalf("%v %+v n=%d: code %#02x gives %#04x, want %#04x", typ, h, n, data[len(data)-n+i], g, want)
					}
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(33, 34))
	for _, n := range []int{0, 1, 15, 16, 17, 33, 100} {
		lo, hi := make([]uint16, n), make([]uint16, n)
		for i := range lo {
			lo[i], hi[i] = uint16(rng.Uint32()), uint16(rng.Uint32())
		}
		d := make([]float32, n)
		for _, h := range wordISAs() {
			h.interleaveW(d, lo, hi)
			for j := range d {
				if got, want := math.Float32bits(d[j]), uint32(lo[j])|uint32(hi[j])<<16; got != want {
					t.Fatalf("interleave %+v n=%d: [%d] = %#08x, want %#08x", h, n, j, got, want)
				}
			}
			h.interleaveW(d, lo, nil)
			for j := range d {
				if got := math.Float32bits(d[j]); got != uint32(lo[j]) {
					t.Fatalf("interleave %+v n=%d, no high half: [%d] = %#08x, want %#08x", h, n, j, got, lo[j])
				}
			}
		}
	}
}

// TestBF16Kernel checks the bf16 kernel against the float64 product (the bound of check: its products are
// exact, only the grouping of the sums differs) on odd shapes, every layout, K blocks of odd length, and
// every pair of operand types it serves.
func TestBF16Kernel(t *testing.T) {
	kern := needBF16(t)
	defer SetKernel(SetKernel(kern))
	rng := rand.New(rand.NewPCG(35, 36))
	types := []dtype.Type{dtype.F8E4M3FN, dtype.F8E5M2, dtype.BF16, dtype.S8, dtype.F4E2M1FN}
	shapes := []shape{{1, 1, 1}, {15, 17, 33}, {17, 33, 15}, {33, 65, 1025}, {1, 200, 3}, {300, 1, 2}, {29, 31, 0}, {0, 7, 5}}
	for i, ta := range types {
		tb := types[(i+1)%len(types)]
		if k := KernelFor(ta, tb); k != kern {
			t.Fatalf("KernelFor(%v, %v) = %v, want %v", ta, tb, k, kern)
		}
		for _, s := range shapes {
			for tr := 0; tr < 4; tr++ {
				a, am := randomTyped(rng, ta, s.m, s.k, tr&1 != 0, tr, 0)
				b, bm := randomTyped(rng, tb, s.k, s.n, tr&2 != 0, 3-tr, 0)
				c := operand{s.m, s.n, false, 2}.build(rng, padC)
				c0 := clone(c)
				MatMulTyped(c, a, b, -0.75, 0.5)
				check(t, c, c0, am, bm, -0.75, 0.5)
				if t.Failed() {
					t.Fatalf("%v x %v %v trans=%d", ta, tb, s, tr)
				}
			}
		}
	}
	for _, tt := range [][2]dtype.Type{{dtype.F32, dtype.F8E4M3FN}, {dtype.BF16, dtype.F16}, {dtype.F8E8M0FNU, dtype.BF16}} {
		if k := KernelFor(tt[0], tt[1]); k != kern.wide {
			t.Errorf("KernelFor(%v, %v) = %v, want the float32 kernel %v", tt[0], tt[1], k, kern.wide)
		}
	}
}

// TestBF16Specials checks how the bf16 kernel treats special values: NaN and infinities propagate as in
// float32, a subnormal bf16 operand counts as zero, and a subnormal result is flushed to zero; and the
// order of its sums: VDPBF16PS adds the odd product of each pair to the chain, rounded, then the even one,
// two fused multiply-adds in a row (as Intel's description of the instruction has it).
func TestBF16Specials(t *testing.T) {
	kern := needBF16(t)
	defer SetKernel(SetKernel(kern))
	bf := func(vs ...float32) Typed {
		data := make([]byte, 2*len(vs))
		for i, v := range vs {
			h := uint16(math.Float32bits(v) >> 16)
			data[2*i], data[2*i+1] = byte(h), byte(h>>8)
		}
		return Typed{Type: dtype.BF16, Data: data, Rows: 1, Cols: len(vs), Stride: len(vs)}
	}
	col := func(x Typed) Typed { x.Rows, x.Cols = x.Cols, x.Rows; x.Trans = true; return x }
	// rows repeats the row x into more rows than a product is streamed for, so that the bf16 kernel's
	// tile runs it (streamed, it would keep the contract's order).
	rows := func(x Typed) Typed {
		x.Data = bytes.Repeat(x.Data, streamRowsMax+1)
		x.Rows = streamRowsMax + 1
		return x
	}
	inf := float32(math.Inf(1))
	sub := math.Float32frombits(0x00400000) // 2^-127, a bf16 subnormal
	for _, tc := range []struct {
		name string
		a, b []float32
		want float32
	}{
		{"nan", []float32{1, float32(math.NaN()), 2}, []float32{1, 1, 1}, float32(math.NaN())},
		{"inf", []float32{1, inf, 2}, []float32{1, 1, 1}, inf},
		{"inf-inf", []float32{inf, inf}, []float32{1, -1}, float32(math.NaN())},
		{"zero-times-inf", []float32{0, 1}, []float32{inf, 1}, float32(math.NaN())},
		{"subnormal-operand", []float32{sub, 1}, []float32{0x1p127, 1}, 1}, // not 2
		{"subnormal-result", []float32{0x1p-70, 0}, []float32{0x1p-70, 0}, 0},
		{"exact-pairs", []float32{3, 5, -7}, []float32{0.5, 0.25, 2}, -11.25},
		// The order within a pair: 1 + 2^24 rounds to 2^24 before -2^24 is added (0); the other order,
		// or the pair summed first, gives 1.
		{"odd-product-first", []float32{1, 0, 0x1p12, 0x1p12}, []float32{1, 0, -0x1p12, 0x1p12}, 0},
		// Each product is added to the chain on its own: 2^24 + 1 + 1 stays 2^24, where the pair's sum
		// added at once would give 2^24 + 2.
		{"one-product-at-a-time", []float32{0x1p12, 0, 1, 1}, []float32{0x1p12, 0, 1, 1}, 0x1p24},
	} {
		c := NewMatrix(streamRowsMax+1, 1, nil)
		MatMulTyped(c, rows(bf(tc.a...)), col(bf(tc.b...)), 1, 0)
		got := c.Data[0]
		if math.IsNaN(float64(tc.want)) != math.IsNaN(float64(got)) || !math.IsNaN(float64(got)) && got != tc.want {
			t.Errorf("%s: %v . %v = %v, want %v", tc.name, tc.a, tc.b, got, tc.want)
		}
	}
}

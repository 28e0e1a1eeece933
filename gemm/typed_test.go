package gemm

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"octet/dtype"
)

// randomTyped returns a rows x cols Typed of type t holding random finite values, stored transposed when
// trans, with pad elements after each stored row, and the float32 Matrix of the same values and layout.
// skew shifts the data by that many bytes from the start of its allocation (to test unaligned float32).
func randomTyped(rng *rand.Rand, t dtype.Type, rows, cols int, trans bool, pad, skew int) (Typed, Matrix) {
	m := operand{rows, cols, trans, pad}.build(rng, 0)
	size := t.ByteSize()
	raw := make([]byte, skew+len(m.Data)*size)[skew:]
	for i := range m.Data {
		var bits uint64
		switch {
		case size == 1:
			// Any byte whose value is finite.
			for {
				bits = uint64(rng.IntN(256))
				if v := t.DecodeFloat32(bits); !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) {
					break
				}
			}
		default:
			bits = t.EncodeFloat32(m.Data[i])
		}
		m.Data[i] = t.DecodeFloat32(bits)
		putBits(raw, i, size, bits)
	}
	return Typed{Type: t, Data: raw, Rows: m.Rows, Cols: m.Cols, Stride: m.Stride, Trans: m.Trans}, m
}

// putBits stores element i of size bytes (1, 2 or 4), little-endian, in raw; getBits reads it.
func putBits(raw []byte, i, size int, bits uint64) {
	switch size {
	case 1:
		raw[i] = byte(bits)
	case 2:
		binary.LittleEndian.PutUint16(raw[2*i:], uint16(bits))
	case 4:
		binary.LittleEndian.PutUint32(raw[4*i:], uint32(bits))
	}
}

func getBits(raw []byte, i, size int) uint64 {
	switch size {
	case 1:
		return uint64(raw[i])
	case 2:
		return uint64(binary.LittleEndian.Uint16(raw[2*i:]))
	}
	return uint64(binary.LittleEndian.Uint32(raw[4*i:]))
}

// TestMatMulTyped checks that decoding while packing gives exactly MatMul's result on the decoded values
// (with a float32 kernel), or a result within the float32 bound of the exact one (with a bf16 kernel, whose
// sums are grouped in pairs).
func TestMatMulTyped(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	types := []dtype.Type{dtype.F8E4M3FN, dtype.F8E5M2, dtype.F8E4M3FNUZ, dtype.F8E5M2FNUZ, dtype.F8E4M3B11FNUZ,
		dtype.F8E4M3, dtype.F8E3M4, dtype.F8E8M0FNU, dtype.F6E2M3FN, dtype.F4E2M1FN, dtype.S8, dtype.U8, dtype.BF16,
		dtype.F16, dtype.F32}
	shapes := []shape{{13, 17, 31}, {1, 40, 300}, {70, 33, 20}}
	withKernel(t, func(t *testing.T) {
		for i, ta := range types {
			tb := types[(i+3)%len(types)]
			for _, s := range shapes {
				for tr := 0; tr < 4; tr++ {
					skew := 0
					if tr == 3 {
						skew = 1 // float32 bytes off their natural alignment
					}
					a, am := randomTyped(rng, ta, s.m, s.k, tr&1 != 0, 1, skew)
					b, bm := randomTyped(rng, tb, s.k, s.n, tr&2 != 0, 2, skew)
					c := operand{s.m, s.n, false, 1}.build(rng, padC)
					want := clone(c)
					MatMul(want, am, bm, 1.5, 0.5)
					c0 := clone(c)
					MatMulTyped(c, a, b, 1.5, 0.5)
					bv := b.view("B")
					if KernelFor(ta, tb).bf16 || planFor(CurrentKernel(), s.m, &bv) != Blocked {
						// Grouped otherwise: within the bound where the sums are finite, and
						// overflowing where MatMul's do (to an infinity or NaN, as the order goes).
						finite := true
						for j := range want.Data {
							w, g := float64(want.Data[j]), float64(c.Data[j])
							if math.IsNaN(w) || math.IsInf(w, 0) {
								finite = false
								if !math.IsNaN(g) && !math.IsInf(g, 0) {
									t.Fatalf("%v x %v %v trans=%d: C.Data[%d] = %v, MatMul gives %v", ta, tb, s, tr, j, g, w)
								}
							}
						}
						if finite {
							check(t, c, c0, am, bm, 1.5, 0.5)
						}
						if t.Failed() {
							t.Fatalf("%v x %v %v trans=%d", ta, tb, s, tr)
						}
						continue
					}
					for j := range c.Data {
						if math.Float32bits(c.Data[j]) != math.Float32bits(want.Data[j]) {
							t.Fatalf("%v x %v %v trans=%d: C.Data[%d] = %v, MatMul gives %v", ta, tb, s, tr, j, c.Data[j], want.Data[j])
						}
					}
				}
			}
		}
	})
}

// TestDecode16 checks the bf16 and f16 decoding of packing against package dtype for every code, NaN
// payloads included, through both the aligned (in place) and the unaligned path, with every decoder the
// machine has.
func TestDecode16(t *testing.T) {
	withPacking(t, testDecode16)
}

// withPacking runs f with the decoding of every kernel of testKernels: AVX-512, AVX2 and Go where the
// machine has them.
func withPacking(t *testing.T, f func(t *testing.T, h isa)) {
	seen := map[isa]bool{}
	for _, k := range testKernels() {
		if !seen[k.isa] {
			seen[k.isa] = true
			t.Run(k.Name(), func(t *testing.T) { f(t, k.isa) })
		}
	}
}

func testDecode16(t *testing.T, h isa) {
	for _, typ := range []dtype.Type{dtype.BF16, dtype.F16} {
		raw := make([]byte, 1+2<<16)
		for skew := 0; skew < 2; skew++ {
			data := raw[skew : skew+2<<16]
			for i := 0; i < 1<<16; i++ {
				binary.LittleEndian.PutUint16(data[2*i:], uint16(i))
			}
			v := Typed{Type: typ, Data: data, Rows: 1, Cols: 1 << 16, Stride: 1 << 16}.view("A")
			got := make([]float32, 1<<16)
			v.read(h, got, 0)
			for i, g := range got {
				if want := typ.DecodeFloat32(uint64(i)); math.Float32bits(g) != math.Float32bits(want) {
					t.Fatalf("%v skew %d: code %#04x decodes to %#08x, dtype says %#08x", typ, skew, i,
						math.Float32bits(g), math.Float32bits(want))
				}
			}
		}
	}
}

// TestDecode8 checks the decoding of every code of every type of 8 bits or fewer against package dtype,
// in runs long enough for the vector path and with a ragged tail for the scalar one, with every decoder
// the machine has.
func TestDecode8(t *testing.T) {
	withPacking(t, testDecode8)
}

func testDecode8(t *testing.T, h isa) {
	data := make([]byte, 2*256+7)
	for i := range data {
		data[i] = byte(i * 7)
	}
	for _, typ := range dtype.All() {
		if !SupportedType(typ) || typ.ByteSize() != 1 {
			continue
		}
		// Every code; then every code but the NaNs (which quick decoders may leave to exact ones), in
		// runs of several lengths; then one NaN at the end of a run of 32, and in a remainder.
		noNaN := slices.DeleteFunc(slices.Clone(data), func(b byte) bool { return math.IsNaN(float64(typ.DecodeFloat32(uint64(b)))) })
		inputs := [][]byte{data, noNaN, noNaN[:32], noNaN[:48], noNaN[:100]}
		for code := 0; code < 256; code++ {
			if math.IsNaN(float64(typ.DecodeFloat32(uint64(code)))) {
				for _, at := range []int{31, 40} {
					withNaN := slices.Clone(noNaN[:48])
					withNaN[at] = byte(code)
					inputs = append(inputs, withNaN)
				}
				break
			}
		}
		for _, in := range inputs {
			v := Typed{Type: typ, Data: in, Rows: 1, Cols: len(in), Stride: len(in)}.view("A")
			got := make([]float32, len(in))
			v.read(h, got, 0)
			for i, g := range got {
				if want := typ.DecodeFloat32(uint64(in[i])); math.Float32bits(g) != math.Float32bits(want) {
					t.Fatalf("%v, %d codes: code %#02x decodes to %#08x, dtype says %#08x", typ, len(in), in[i], math.Float32bits(g), math.Float32bits(want))
				}
			}
		}
	}
}

func TestMatMulTypedMixed(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	a := operand{20, 30, false, 0}.build(rng, 0)
	b, bm := randomTyped(rng, dtype.F8E4M3FN, 30, 40, true, 0, 0)
	c, want := NewMatrix(20, 40, nil), NewMatrix(20, 40, nil)
	MatMul(want, a, bm, 1, 0)
	MatMulTyped(c, TypedOf(a), b, 1, 0)
	for j := range c.Data {
		if c.Data[j] != want.Data[j] {
			t.Fatalf("C.Data[%d] = %v, want %v", j, c.Data[j], want.Data[j])
		}
	}
}

func TestMatMulTypedErrors(t *testing.T) {
	ok := Typed{Type: dtype.F8E4M3FN, Data: make([]byte, 12), Rows: 3, Cols: 4, Stride: 4}
	for _, tc := range []struct {
		name string
		a    Typed
		want string
	}{
		{"type", Typed{Type: dtype.F64, Data: make([]byte, 8*6), Rows: 2, Cols: 3, Stride: 3}, "element type f64"},
		{"short", Typed{Type: dtype.BF16, Data: make([]byte, 11), Rows: 2, Cols: 3, Stride: 3}, "needs 6 elements, has 5"},
		{"shape", Typed{Type: dtype.BF16, Data: make([]byte, 16), Rows: 2, Cols: 4, Stride: 4}, "shapes do not match"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, tc.want) {
					t.Fatalf("panic %v, want one containing %q", r, tc.want)
				}
			}()
			MatMulTyped(NewMatrix(2, 4, nil), tc.a, ok, 1, 0)
		})
	}
	for _, typ := range dtype.All() {
		want := typ == dtype.F32 || typ == dtype.BF16 || typ == dtype.F16 || (typ.BitWidth() <= 8 && !typ.IsComplex())
		if SupportedType(typ) != want {
			t.Errorf("SupportedType(%v) = %v", typ, !want)
		}
	}
}

func ExampleMatMulTyped() {
	// Two 2x2 FP8 (e4m3fn) matrices: 0x38 is 1, 0x40 is 2, 0x00 is 0.
	a := Typed{Type: dtype.F8E4M3FN, Data: []byte{0x38, 0x40, 0x00, 0x38}, Rows: 2, Cols: 2, Stride: 2}
	b := Typed{Type: dtype.F8E4M3FN, Data: []byte{0x40, 0x00, 0x38, 0x38}, Rows: 2, Cols: 2, Stride: 2}
	c := NewMatrix(2, 2, nil)
	MatMulTyped(c, a, b, 1, 0)
	fmt.Println(c.Data)
	// Output: [4 2 1 1]
}

// TestThreadsTyped checks that products of narrow operands split among goroutines, which pack B once for
// all of them, give every bit of the one-goroutine result: odd k (a bf16 kernel's last half pair), ragged
// strips, several blocks of K, and B stored either way.
func TestThreadsTyped(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	defer SetThreads(SetThreads(0))
	withKernel(t, func(t *testing.T) {
		for _, s := range []shape{{300, 70, 301}, {97, 1000, 1100}, {40, 33, 2000}} {
			if current().name == "go" && s.m*s.n*s.k > 1e7 {
				continue // the portable kernel is slow, and the other shapes split as well
			}
			for i, typ := range []dtype.Type{dtype.F8E4M3FN, dtype.BF16, dtype.F32} {
				a, _ := randomTyped(rng, typ, s.m, s.k, false, 0, 0)
				b, _ := randomTyped(rng, typ, s.k, s.n, i == 1, 1, 0)
				var first Matrix
				for _, n := range []int{1, 2, 3} {
					SetThreads(n)
					got := NewMatrix(s.m, s.n, nil)
					MatMulTyped(got, a, b, 1, 0)
					if first.Data == nil {
						first = got
						continue
					}
					for j := range got.Data {
						if math.Float32bits(got.Data[j]) != math.Float32bits(first.Data[j]) {
							t.Fatalf("%v %v: %d threads give C.Data[%d] = %v, 1 thread %v", typ, s, n, j, got.Data[j], first.Data[j])
						}
					}
				}
			}
		}
	})
}

package interp

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"octet/dtype"
	"octet/tensor"
)

// TestBitwiseBytes checks and, or and xor of arrays of every integer width and pred, which run on the
// arrays' bytes, against the operators on each element, at lengths that leave every tail of eight bytes
// and on more than one goroutine.
func TestBitwiseBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 9))
	for _, typ := range []dtype.Type{dtype.PRED, dtype.S8, dtype.U8, dtype.S16, dtype.U32, dtype.S64} {
		for _, n := range []int64{1, 7, 8, 9, 31, 100003} {
			for _, op := range []string{"and", "or", "xor"} {
				m := parseModule(t, fmt.Sprintf("ENTRY e {\n  x = %[1]s[%[2]d] parameter(0)\n  y = %[1]s[%[2]d] parameter(1)\n  ROOT z = %[1]s[%[2]d] %[3]s(x, y)\n}\n", typ, n, op))
				x, y := tensor.New(typ, []int64{n}), tensor.New(typ, []int64{n})
				mask := uint64(1)<<typ.BitWidth() - 1
				for i := range n {
					x.SetBitsAt(i, rng.Uint64()&mask)
					y.SetBitsAt(i, rng.Uint64()&mask)
				}
				got, err := Run(m, []Value{ArrayValue(x), ArrayValue(y)}, Options{Threads: 3})
				if err != nil {
					t.Fatal(err)
				}
				for i := range n {
					a, b := x.BitsAt(i), y.BitsAt(i)
					want := map[string]uint64{"and": a & b, "or": a | b, "xor": a ^ b}[op]
					if g := got.Array.BitsAt(i); g != want {
						t.Fatalf("%s %s[%d] element %d: %#x %s %#x = %#x, want %#x", op, typ, n, i, a, op, b, g, want)
					}
				}
			}
		}
	}
}

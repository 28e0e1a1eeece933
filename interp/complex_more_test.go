package interp

import "testing"

// TestComplexOrderAndIota: maximum and minimum of complex numbers compare the real parts, then the
// imaginary parts; iota counts in the real part.
func TestComplexOrderAndIota(t *testing.T) {
	src := `ENTRY e {
  a = c128[3] parameter(0)
  b = c128[3] parameter(1)
  mx = c128[3] maximum(a, b)
  mn = c128[3] minimum(a, b)
  i = c64[3] iota(), iota_dimension=0
  ROOT t = (c128[3], c128[3], c64[3]) tuple(mx, mn, i)
}`
	v, err := evalText(t, src, "c128[3] {(1,5), (2,1), (3,3)}", "c128[3] {(2,0), (2,4), (3,3)}")
	if err != nil {
		t.Fatal(err)
	}
	mx, mn, io := v.Tuple[0].Array.Complex128s(), v.Tuple[1].Array.Complex128s(), v.Tuple[2].Array.Complex128s()
	if mx[0] != 2 || mx[1] != 2+4i || mx[2] != 3+3i || mn[0] != 1+5i || mn[1] != 2+1i || io[2] != 2 {
		t.Errorf("maximum %v, minimum %v, iota %v", mx, mn, io)
	}
}

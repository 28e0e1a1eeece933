package dtype

import "testing"

// TestParts: the parts of c64 and c128 are f32 and f64, and those the parts of c64 and c128 again; other
// types are their own parts and have no complex type.
func TestParts(t *testing.T) {
	for _, tc := range []struct{ complex, part Type }{{C64, F32}, {C128, F64}} {
		if got := tc.complex.Part(); got != tc.part {
			t.Errorf("%s.Part() = %s, want %s", tc.complex, got, tc.part)
		}
		if got := ComplexOf(tc.part); got != tc.complex {
			t.Errorf("ComplexOf(%s) = %s, want %s", tc.part, got, tc.complex)
		}
	}
	for _, ty := range []Type{F16, BF16, S32, F8E4M3FN, PRED} {
		if ty.Part() != ty || ComplexOf(ty) != Invalid {
			t.Errorf("%s: Part %s, ComplexOf %s", ty, ty.Part(), ComplexOf(ty))
		}
	}
}

package blockscale

import (
	"fmt"
	"math"
	"strings"

	"octet/dtype"
)

// A Format is one block-scaled format: its element and scale types, how many elements share a scale,
// and whether the tensor has one more float32 scale (NVFP4).
type Format struct {
	// Name is the format's name as commands take it: "mxfp8e4m3", "nvfp4".
	Name string
	// Elem is the element type, Scale the type of the block scales.
	Elem, Scale dtype.Type
	// BlockSize is the number of consecutive elements (along the blocked axis) that share a scale.
	BlockSize int
	// TensorScale is set for NVFP4, whose values are also multiplied by one float32 scale per tensor.
	TensorScale bool
}

// The formats. MX formats have E8M0 scales per 32 elements (OCP MX v1.0, its table of concrete
// formats); NVFP4 has E4M3 scales per 16 E2M1 elements and a float32 tensor scale.
var (
	MXFP8E4M3 = Format{Name: "mxfp8e4m3", Elem: dtype.F8E4M3FN, Scale: dtype.F8E8M0FNU, BlockSize: 32}
	MXFP8E5M2 = Format{Name: "mxfp8e5m2", Elem: dtype.F8E5M2, Scale: dtype.F8E8M0FNU, BlockSize: 32}
	MXFP6E2M3 = Format{Name: "mxfp6e2m3", Elem: dtype.F6E2M3FN, Scale: dtype.F8E8M0FNU, BlockSize: 32}
	MXFP6E3M2 = Format{Name: "mxfp6e3m2", Elem: dtype.F6E3M2FN, Scale: dtype.F8E8M0FNU, BlockSize: 32}
	MXFP4     = Format{Name: "mxfp4", Elem: dtype.F4E2M1FN, Scale: dtype.F8E8M0FNU, BlockSize: 32}
	NVFP4     = Format{Name: "nvfp4", Elem: dtype.F4E2M1FN, Scale: dtype.F8E4M3FN, BlockSize: 16, TensorScale: true}
)

var all = []Format{MXFP8E4M3, MXFP8E5M2, MXFP6E2M3, MXFP6E3M2, MXFP4, NVFP4}

// aliases are other spellings of the names.
var aliases = map[string]string{"mxfp8": "mxfp8e4m3", "mxfp4e2m1": "mxfp4", "nvfp4e2m1": "nvfp4"}

// Formats returns every format, MX first.
func Formats() []Format { return append([]Format(nil), all...) }

// Lookup returns the format of a name ("mxfp8e4m3", "MXFP4", "nvfp4"; "mxfp8" is MXFP8 E4M3); case and
// the separators '-' and '_' are ignored ("mxfp8_e4m3").
func Lookup(name string) (Format, bool) {
	n := strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(name))
	if a, ok := aliases[n]; ok {
		n = a
	}
	for _, f := range all {
		if f.Name == n {
			return f, true
		}
	}
	return Format{}, false
}

// Names returns the names of the formats, for messages.
func Names() []string {
	var s []string
	for _, f := range all {
		s = append(s, f.Name)
	}
	return s
}

// Valid reports whether f is one of the formats.
func (f Format) Valid() bool { return f.BlockSize > 0 && f.Elem.Valid() && f.Scale.Valid() }

// IsMX reports whether f is an OCP MX format (a power-of-two E8M0 scale, no tensor scale).
func (f Format) IsMX() bool { return f.Scale == dtype.F8E8M0FNU }

// String returns the name.
func (f Format) String() string { return f.Name }

// EmaxElem is the exponent of the element type's largest normal number: the emax_elem of the MX
// specification's Algorithm 1 (8 for E4M3, 15 for E5M2, 2 for E2M3 and E2M1, 4 for E3M2).
func (f Format) EmaxElem() int { return f.Elem.Finfo().Maxexp - 1 }

// MaxElem is the element type's largest finite value (448, 57344, 7.5, 28, 6).
func (f Format) MaxElem() float64 { return f.Elem.Finfo().Max }

// BitsPerValue is the storage per value, scales included: element bits plus scale bits over the block
// size (8.25 for MXFP8, 4.5 for NVFP4, not counting NVFP4's one float32 per tensor).
func (f Format) BitsPerValue() float64 {
	return float64(f.Elem.BitWidth()) + float64(f.Scale.BitWidth())/float64(f.BlockSize)
}

// Info describes the format for a reader, as octet finfo prints it: element and scale types, block size,
// ranges and storage cost.
func (f Format) Info() string {
	var b strings.Builder
	ei, si := f.Elem.Finfo(), f.Scale.Finfo()
	kind := "OCP Microscaling, MX v1.0"
	if !f.IsMX() {
		kind = "NVIDIA NVFP4"
	}
	rule := "---------------------------------------------------------------\n"
	fmt.Fprintf(&b, "Block-scaled format %s (%s)\n%s", f.Name, kind, rule)
	fmt.Fprintf(&b, "element     = %s (%s): max %s, smallest subnormal %s, emax_elem %d\n", f.Elem, ei.Name,
		num(ei.Max), num(ei.SmallestSubnormal), f.EmaxElem())
	if f.IsMX() {
		fmt.Fprintf(&b, "scale       = %s (%s) per %d elements: 2^-127 to 2^127, NaN 0xff, no zero\n", f.Scale, si.Name, f.BlockSize)
		fmt.Fprintf(&b, "value       = element x 2^(scale code - 127)\n")
		fmt.Fprintf(&b, "quantize    = scale 2^(floor(log2(amax)) - %d), clamped to 2^-127; elements rounded to\n", f.EmaxElem())
		fmt.Fprintf(&b, "              nearest even, saturating at %s; NaN or inf in a block: NaN scale\n", num(ei.Max))
		lo := math.Ldexp(ei.SmallestSubnormal, -127)
		hi := math.Ldexp(ei.Max, 127)
		fmt.Fprintf(&b, "range       = %s to %s (nonzero magnitudes)\n", num(lo), num(hi))
	} else {
		fmt.Fprintf(&b, "scale       = %s (%s) per %d elements: max %s, smallest subnormal %s\n", f.Scale, si.Name, f.BlockSize,
			num(si.Max), num(si.SmallestSubnormal))
		fmt.Fprintf(&b, "tensor      = one float32 scale g per tensor, by default amax / (%s x %s)\n", num(ei.Max), num(si.Max))
		fmt.Fprintf(&b, "value       = element x scale x g\n")
		fmt.Fprintf(&b, "quantize    = scale amax_block / (%s g) to %s (nearest even, saturating at %s);\n", num(ei.Max), f.Scale, num(si.Max))
		fmt.Fprintf(&b, "              elements x / (scale g) rounded to nearest even, saturating at %s\n", num(ei.Max))
		fmt.Fprintf(&b, "range       = %s g to %s g (nonzero magnitudes)\n", num(ei.SmallestSubnormal*si.SmallestSubnormal), num(ei.Max*si.Max))
	}
	fmt.Fprintf(&b, "storage     = %g bits per value (%d-bit element, %d-bit scale per %d)\n%s", f.BitsPerValue(),
		f.Elem.BitWidth(), f.Scale.BitWidth(), f.BlockSize, rule)
	return b.String()
}

func num(x float64) string { return fmt.Sprintf("%.6g", x) }

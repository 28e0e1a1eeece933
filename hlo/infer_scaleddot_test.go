package hlo

import (
	"strings"
	"testing"

	"octet/dtype"
)

func TestInferScaledDot(t *testing.T) {
	dims := []Attr{{"lhs_contracting_dims", Ints{1}}, {"rhs_contracting_dims", Ints{1}}}
	for _, c := range []struct {
		name   string
		shapes []Shape
		want   string // the shape, or part of the error
	}{
		{"MXFP8", []Shape{Array(dtype.F8E4M3FN, 16, 64), Array(dtype.F8E4M3FN, 8, 64), Array(dtype.F8E8M0FNU, 16, 2), Array(dtype.F8E8M0FNU, 8, 2)}, "f32[16,8]"},
		{"a scale of rank 0", []Shape{Array(dtype.BF16, 16, 64), Array(dtype.F4E2M1FN, 8, 64), Scalar(dtype.BF16), Array(dtype.F8E8M0FNU, 8, 2)}, "f32[16,8]"},
		{"a scale that does not divide", []Shape{Array(dtype.F8E4M3FN, 16, 64), Array(dtype.F8E4M3FN, 8, 64), Array(dtype.F8E8M0FNU, 16, 3), Array(dtype.F8E8M0FNU, 8, 2)},
			"dimension 1 of the lhs_scale"},
		{"a scale of another rank", []Shape{Array(dtype.F8E4M3FN, 16, 64), Array(dtype.F8E4M3FN, 8, 64), Array(dtype.F8E8M0FNU, 16, 2), Array(dtype.F8E8M0FNU, 16)},
			"differ in rank"},
		{"contracting sizes differ", []Shape{Array(dtype.F8E4M3FN, 16, 64), Array(dtype.F8E4M3FN, 8, 32), Array(dtype.F8E8M0FNU, 16, 2), Array(dtype.F8E8M0FNU, 8, 1)},
			"contracting dimension"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, comp, ps := testModule(c.shapes...)
			in := &Instruction{Opcode: OpScaledDot, Shape: Scalar(dtype.F32), Parent: comp, Attrs: dims}
			in.operands = ps
			wantInferred(t, in, c.want)
		})
	}
}

// wantInferred checks that InferShape gives in the shape want, or an error that contains want.
func wantInferred(t *testing.T, in *Instruction, want string) {
	t.Helper()
	s, err := InferShape(in)
	switch {
	case err != nil && !strings.Contains(err.Error(), want):
		t.Errorf("error %v, want %q", err, want)
	case err == nil && s.String() != want:
		t.Errorf("shape %s, want %s", s.String(), want)
	}
}

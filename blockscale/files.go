package blockscale

import (
	"fmt"
	"strings"

	"octet/tensor"
)

// How block-scaled arrays travel in numpy files. An array NAME in format F is stored as its element codes
// and its scale codes, each an array of its own, in ml_dtypes' types (raw one-byte '<V1' data, as numpy
// writes ml_dtypes arrays), plus NVFP4's tensor scale as a float32 scalar:
//
//	.npz members: NAME, NAME_scale, NAME_tensor_scale (NVFP4 only)
//	.npy files:   NAME.npy, NAME.scale.npy, NAME.tensor_scale.npy (NVFP4 only)
//
// The scales have the data's shape with the blocked dimension divided by the block size (rounded up),
// so the blocked axis is read from the two shapes. The format is not stored: the reader names it (the
// element types alone do not tell MXFP4 from NVFP4).
const (
	ScaleSuffix       = "_scale"
	TensorScaleSuffix = "_tensor_scale"
)

// NpzMembers returns the names and arrays under which q is stored in a .npz file as name.
func (q *Tensor) NpzMembers(name string) ([]string, []*tensor.Tensor) {
	names := []string{name, name + ScaleSuffix}
	ts := []*tensor.Tensor{q.Data, q.Scales}
	if q.Format.TensorScale {
		names = append(names, name+TensorScaleSuffix)
		ts = append(ts, tensor.FromFloat32(nil, []float32{q.TensorScale}))
	}
	return names, ts
}

// ScaleFileName returns the name of the .npy file that holds the scales of the array in path:
// "w.npy" -> "w.scale.npy".
func ScaleFileName(path string) string { return strings.TrimSuffix(path, ".npy") + ".scale.npy" }

// TensorScaleFileName returns the name of the .npy file that holds NVFP4's tensor scale of the array in
// path: "w.npy" -> "w.tensor_scale.npy".
func TensorScaleFileName(path string) string {
	return strings.TrimSuffix(path, ".npy") + ".tensor_scale.npy"
}

// FromArrays assembles a block-scaled array of format f from its element codes, its scale codes and (NVFP4)
// its tensor scale, a one-element float array (nil means 1 in MX formats and is an error in NVFP4). The
// blocked axis is the one dimension where the shapes differ; when none differs (every dimension holds at
// most one element) it is the last.
func FromArrays(f Format, data, scales, tensorScale *tensor.Tensor) (*Tensor, error) {
	if data == nil || scales == nil {
		return nil, fmt.Errorf("%s needs element codes and scale codes", f.Name)
	}
	if data.Type != f.Elem {
		return nil, fmt.Errorf("%s elements are %s, not %s", f.Name, f.Elem, data.Type)
	}
	if scales.Type != f.Scale {
		return nil, fmt.Errorf("%s scales are %s, not %s", f.Name, f.Scale, scales.Type)
	}
	if len(data.Shape) == 0 || len(data.Shape) != len(scales.Shape) {
		return nil, fmt.Errorf("%s: scales %s do not fit data %s: the ranks differ", f.Name, scales, data)
	}
	axis := -1
	for i := range data.Shape {
		if data.Shape[i] != scales.Shape[i] {
			if axis >= 0 {
				return nil, fmt.Errorf("%s: scales %s do not fit data %s: they differ in more than one dimension", f.Name, scales, data)
			}
			axis = i
		}
	}
	if axis < 0 {
		axis = len(data.Shape) - 1
	}
	q := &Tensor{Format: f, Data: data, Scales: scales, Axis: axis, TensorScale: 1}
	if f.TensorScale {
		if tensorScale == nil || tensorScale.NumElements() != 1 || !tensorScale.Type.IsFloat() {
			return nil, fmt.Errorf("%s needs its tensor scale, one float value", f.Name)
		}
		q.TensorScale = float32(tensorScale.Float64s()[0])
	} else if tensorScale != nil {
		return nil, fmt.Errorf("%s has no tensor scale", f.Name)
	}
	if err := q.Check(); err != nil {
		return nil, fmt.Errorf("%s: %v", f.Name, err)
	}
	return q, nil
}

// Stats summarises q for a reader: how many blocks, how many have the NaN scale or a zero scale, and how
// many elements are at the element type's largest magnitude (where saturation puts the values past it).
type Stats struct {
	Blocks, NaNBlocks, ZeroBlocks, AtMax int64
}

// Stats counts q's blocks and its elements at the largest magnitude.
func (q *Tensor) Stats() Stats {
	var s Stats
	s.Blocks = q.Scales.NumElements()
	for _, c := range q.Scales.Data {
		switch v := q.Format.ScaleValue(c); {
		case v != v:
			s.NaNBlocks++
		case v == 0:
			s.ZeroBlocks++
		}
	}
	sign := uint8(1 << (q.Format.Elem.BitWidth() - 1))
	maxCode := uint8(q.Format.Elem.EncodeFloat64(q.Format.MaxElem()))
	for _, c := range q.Data.Data {
		if c&^sign == maxCode {
			s.AtMax++
		}
	}
	return s
}

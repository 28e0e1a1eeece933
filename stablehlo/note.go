package stablehlo

import (
	"go/token"
	"strconv"
	"strings"
)

// ShardingNote describes, as people read it, the Shardy sharding that a converted instruction keeps in its
// xla.sdy.sharding frontend attribute (value, a #sdy.sharding_per_value or #sdy.sharding), of its result
// number i, over the meshes the module keeps in xla.sdy.meshes (meshes, "" when none): the mesh axes each
// dimension is split over, "-" for a dimension that is not, and the mesh. For example
// "[x, -] over mesh x=4, y=2, replicated over y". ok is false when the text is not such a sharding.
func ShardingNote(value, meshes string, i int) (note string, ok bool) {
	a, ok := readAttr(value)
	if !ok {
		return "", false
	}
	var t *TensorSharding
	switch a := a.(type) {
	case *TensorSharding:
		t = a
	case Shardings:
		if i < 0 || i >= len(a) {
			return "", false
		}
		t = a[i]
	default:
		return "", false
	}
	mesh := t.Mesh
	if mesh == nil && meshes != "" {
		if d, ok := readAttr(meshes); ok {
			if d, ok := d.(DictAttr); ok {
				if m, ok := lookup(d, t.MeshRef).(*Mesh); ok {
					mesh = m
				}
			}
		}
	}
	return describeSharding(t, mesh), true
}

// readAttr reads one MLIR attribute from text; ok is false when it is not one.
func readAttr(text string) (a Attr, ok bool) {
	src := []byte(text)
	p := &parser{scan: scan{src: src, file: token.NewFileSet().AddFile("", -1, len(src))}}
	defer func() {
		if r := recover(); r != nil {
			if _, isBail := r.(bailout); !isBail {
				panic(r)
			}
			a, ok = nil, false
		}
	}()
	a = p.attrValue()
	return a, p.peek() == 0
}

// describeSharding writes t as people read it: the axes of each dimension, then the mesh.
func describeSharding(t *TensorSharding, mesh *Mesh) string {
	axes := func(refs []AxisRef) string {
		parts := make([]string, len(refs))
		for i, r := range refs {
			parts[i] = r.Name
			if r.Size > 0 {
				parts[i] += ":(" + strconv.FormatInt(r.PreSize, 10) + ")" + strconv.FormatInt(r.Size, 10)
			}
		}
		return strings.Join(parts, "*")
	}
	dims := make([]string, len(t.Dims))
	for i, d := range t.Dims {
		switch {
		case len(d.Axes) > 0:
			dims[i] = axes(d.Axes)
		default:
			dims[i] = "-"
		}
		if d.Open {
			dims[i] += "?"
		}
	}
	s := "[" + strings.Join(dims, ", ") + "]"
	if mesh != nil {
		if len(mesh.Axes) == 0 && len(mesh.DeviceIDs) > 0 {
			return "on device " + strconv.FormatInt(mesh.DeviceIDs[0], 10)
		}
		parts := make([]string, len(mesh.Axes))
		for i, a := range mesh.Axes {
			parts[i] = a.Name + "=" + strconv.FormatInt(a.Size, 10)
		}
		s += " over mesh " + strings.Join(parts, ", ")
	} else if t.MeshRef != "" {
		s += " over mesh @" + t.MeshRef
	}
	if len(t.Replicated) > 0 {
		s += ", replicated over " + axes(t.Replicated)
	}
	if len(t.Unreduced) > 0 {
		s += ", unreduced over " + axes(t.Unreduced)
	}
	return s
}

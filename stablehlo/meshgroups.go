package stablehlo

import (
	"slices"
	"sort"
	"strconv"
)

// Replica groups given by mesh axes: #stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [...]> names
// the axes of a mesh (a module's sdy.mesh, or a #stablehlo.mesh written inline) whose devices
// communicate; every other combination of the remaining axes is a group. XLA's translation writes them
// as the explicit list of groups StableHLO's flattenReplicaGroupMeshAxes makes, and so does the
// conversion.

// meshAxesGroups returns the replica groups of a #stablehlo.replica_group_mesh_axes attribute of op.
func (c *converter) meshAxesGroups(op *Op, st StructAttr) [][]int64 {
	mesh := c.replicaGroupMesh(op, st)
	refs, ok := lookup(st.Fields, "axes").(ListAttr)
	c.need(op, ok, "axes of replica_groups")
	var axes []AxisRef
	for _, r := range refs {
		ref, ok := r.(StructAttr)
		name, okName := lookup(ref.Fields, "name").(StringAttr)
		c.need(op, ok && ref.Name == "stablehlo.axis_ref" && okName, "axis_ref of replica_groups")
		a := AxisRef{Name: string(name)}
		if sub := lookup(ref.Fields, "sub_axis_info"); sub != nil {
			info, ok := sub.(SubAxisAttr)
			c.need(op, ok, "sub_axis_info of replica_groups")
			a.PreSize, a.Size = info.PreSize, info.Size
		}
		axes = append(axes, a)
	}
	groups, err := flattenMeshAxes(mesh, axes)
	if err != "" {
		c.fail(op.Pos, "%s: replica_groups over mesh <%s>: %s", op.Name, mesh, err)
	}
	return groups
}

// replicaGroupMesh returns the mesh of replica groups given by mesh axes: the module's mesh it names, or
// the #stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "x", size = 2>], device_ids = ...> written in it.
func (c *converter) replicaGroupMesh(op *Op, st StructAttr) *Mesh {
	m := lookup(st.Fields, "mesh")
	if m == nil {
		m = lookup(st.Fields, "mesh_name")
	}
	switch m := m.(type) {
	case SymbolAttr:
		for _, nm := range c.mod.Meshes {
			if nm.Name == string(m) {
				return nm.Mesh
			}
		}
		c.fail(op.Pos, "%s: replica_groups name mesh @%s, which the module does not define", op.Name, m)
	case StructAttr:
		axes, ok := lookup(m.Fields, "axes").(ListAttr)
		c.need(op, ok && m.Name == "stablehlo.mesh", "mesh of replica_groups")
		mesh := &Mesh{}
		for _, a := range axes {
			ax, ok := a.(StructAttr)
			name, okName := lookup(ax.Fields, "name").(StringAttr)
			size, okSize := lookup(ax.Fields, "size").(IntAttr)
			c.need(op, ok && okName && okSize && size.V > 0, "mesh_axis of replica_groups")
			mesh.Axes = append(mesh.Axes, MeshAxis{string(name), size.V})
		}
		if ids := lookup(m.Fields, "device_ids"); ids != nil {
			v, ok := attrInts(ids)
			if a, isArray := ids.(ArrayAttr); isArray {
				v, ok = a.Vals, true
			}
			c.need(op, ok, "device_ids of replica_groups' mesh")
			mesh.DeviceIDs = v
		}
		return mesh
	}
	c.need(op, false, "mesh of replica_groups")
	return nil
}

// flattenMeshAxes lists the groups of devices of mesh that communicate over axes, in XLA's order: the mesh
// axes are split where a sub-axis of the list starts or ends, the resulting dimensions are transposed so
// that those not in the list come first (in mesh order) and those in the list last (in list order), and
// each row of the transposed device array is a group. err says why the axes do not fit the mesh.
func flattenMeshAxes(mesh *Mesh, axes []AxisRef) (groups [][]int64, err string) {
	type dim struct {
		name          string
		preSize, size int64
	}
	var dims []dim
	total := int64(1)
	for _, ax := range mesh.Axes {
		if ax.Size < 1 || ax.Size > maxMeshDevices/total {
			return nil, "the mesh has more devices than Octet lists in replica groups (" + strconv.Itoa(maxMeshDevices) + ")"
		}
		total *= ax.Size
	}
	ids := mesh.DeviceIDs
	if len(ids) == 0 {
		ids = make([]int64, total)
		for i := range ids {
			ids[i] = int64(i)
		}
	} else if int64(len(ids)) != total {
		return nil, "the device ids do not fill the mesh"
	}
	for _, r := range axes {
		ax, ok := mesh.axis(r.Name)
		if !ok {
			return nil, "axis " + r.String() + " is not an axis of the mesh"
		}
		if r.Size > 0 && (r.PreSize < 1 || ax.Size%(r.PreSize*r.Size) != 0) {
			return nil, "sub-axis " + r.String() + " does not divide the axis"
		}
	}
	for _, ax := range mesh.Axes {
		cuts := []int64{1, ax.Size}
		for _, r := range axes {
			if r.Name == ax.Name && r.Size > 0 {
				cuts = append(cuts, r.PreSize, r.PreSize*r.Size)
			}
		}
		sort.Slice(cuts, func(i, j int) bool { return cuts[i] < cuts[j] })
		cuts = slices.Compact(cuts)
		if len(cuts) == 1 { // an axis of size 1
			cuts = append(cuts, 1)
		}
		for j := 0; j+1 < len(cuts); j++ {
			dims = append(dims, dim{ax.Name, cuts[j], cuts[j+1] / cuts[j]})
		}
	}
	var grouped []int
	for _, r := range axes {
		pre, size := int64(1), r.Size
		if size == 0 {
			ax, _ := mesh.axis(r.Name)
			size = ax.Size
		}
		k := slices.IndexFunc(dims, func(d dim) bool { return d.name == r.Name && d.preSize == pre && d.size == size })
		if r.Size > 0 {
			k = slices.IndexFunc(dims, func(d dim) bool { return d.name == r.Name && d.preSize == r.PreSize && d.size == size })
		}
		if k < 0 || slices.Contains(grouped, k) {
			return nil, "axis " + r.String() + " overlaps another of the list"
		}
		grouped = append(grouped, k)
	}
	// The dimensions not in the list come first, then the list's; each row of the transposed device
	// array is a group.
	var order []int
	sizes := make([]int64, len(dims))
	for k, d := range dims {
		sizes[k] = d.size
		if !slices.Contains(grouped, k) {
			order = append(order, k)
		}
	}
	order = append(order, grouped...)
	per := int64(1)
	for _, k := range grouped {
		per *= dims[k].size
	}
	devices := (&tileAssignment{dims: sizes, devices: ids}).transposed(order).devices
	for i := int64(0); i < total/per; i++ {
		groups = append(groups, devices[i*per:(i+1)*per:(i+1)*per])
	}
	return groups, ""
}

package stablehlo

import (
	"fmt"
	"slices"
	"sort"
	"strconv"

	"octet/hlo"
	"octet/hlo/printer"
)

// maxMeshDevices bounds the devices of a mesh whose device ids are listed, so that a short text cannot ask
// for a huge device array; a mesh without a list is only ever described by its axis sizes.
const maxMeshDevices = 1 << 20

// The subgroup types of an HLO sharding, in the order XLA sorts them (OpSharding's MANUAL, UNREDUCED and
// REPLICATED).
const (
	subgroupManual = iota
	subgroupUnreduced
	subgroupReplicated
)

var subgroupNames = [...]string{subgroupManual: "manual", subgroupUnreduced: "unreduced", subgroupReplicated: "replicated"}

// tileAssignment is XLA's TileAssignment: the devices of each tile, either an iota (0..n-1 reshaped to
// reshape, transposed by perm, reshaped to dims) or an explicit array of devices in row-major order.
type tileAssignment struct {
	dims    []int64
	reshape []int64 // iota only
	perm    []int   // iota only
	devices []int64 // explicit only
}

func product(v []int64) int64 {
	n := int64(1)
	for _, x := range v {
		n *= x
	}
	return n
}

// canonical makes an iota's reshape dimensions canonical as XLA does: dimensions of size 1 removed, and
// dimensions that stay next to each other through the transposition merged.
func (t *tileAssignment) canonical() {
	if t.devices != nil {
		return
	}
	// Remove dimensions of size 1.
	keep := map[int]int{}
	var reshape []int64
	for i, d := range t.reshape {
		if d != 1 {
			keep[i] = len(reshape)
			reshape = append(reshape, d)
		}
	}
	var perm []int
	for _, p := range t.perm {
		if k, ok := keep[p]; ok {
			perm = append(perm, k)
		}
	}
	// Merge runs perm[i], perm[i]+1, ... into one dimension.
	for {
		merged := false
		for i := 0; i+1 < len(perm); i++ {
			if perm[i+1] != perm[i]+1 {
				continue
			}
			a := perm[i]
			reshape[a] *= reshape[a+1]
			reshape = slices.Delete(reshape, a+1, a+2)
			perm = slices.Delete(perm, i+1, i+2)
			for j := range perm {
				if perm[j] > a {
					perm[j]--
				}
			}
			merged = true
			break
		}
		if !merged {
			break
		}
	}
	if len(reshape) == 0 {
		reshape, perm = []int64{1}, []int{0}
	}
	t.reshape, t.perm = reshape, perm
}

// array returns the devices of every tile in row-major order: an iota's are the numbers 0..n-1 laid out
// as its reshape dimensions, transposed by its perm.
func (t *tileAssignment) array() []int64 {
	if t.devices != nil {
		return t.devices
	}
	iota := make([]int64, product(t.reshape))
	for i := range iota {
		iota[i] = int64(i)
	}
	return (&tileAssignment{dims: t.reshape, devices: iota}).transposed(t.perm).devices
}

// transposed returns the tile assignment with its dimensions permuted (dimension i of the result is
// dimension order[i] of t), as an explicit array.
func (t *tileAssignment) transposed(order []int) *tileAssignment {
	src := t.array()
	dims := make([]int64, len(order))
	for i, o := range order {
		dims[i] = t.dims[o]
	}
	strides := make([]int64, len(t.dims))
	s := int64(1)
	for i := len(t.dims) - 1; i >= 0; i-- {
		strides[i] = s
		s *= t.dims[i]
	}
	out := make([]int64, len(src))
	idx := make([]int64, len(dims))
	for j := range out {
		v := int64(0)
		for i, o := range order {
			v += idx[i] * strides[o]
		}
		out[j] = src[v]
		for k := len(idx) - 1; k >= 0; k-- {
			idx[k]++
			if idx[k] < dims[k] {
				break
			}
			idx[k] = 0
		}
	}
	return &tileAssignment{dims: dims, devices: out}
}

// tiled returns the tile assignment as the parts of a tiled sharding: devices=[dims]<=[reshape]T(perm),
// the perm left out where it is the identity, or devices=[dims]d0,d1,... for an explicit array.
func (t *tileAssignment) tiled() hlo.Sharding {
	if t.devices != nil {
		return hlo.Sharding{TileDims: t.dims, Devices: t.devices}
	}
	iota := &hlo.IotaList{ReshapeDims: t.reshape}
	for i, p := range t.perm {
		if p != i {
			iota.Transpose = make([]int64, len(t.perm))
			for i, p := range t.perm {
				iota.Transpose[i] = int64(p)
			}
			break
		}
	}
	return hlo.Sharding{TileDims: t.dims, DevicesIota: iota}
}

// hloSharding is a non-tuple HLO sharding as XLA builds it from a Shardy sharding.
type hloSharding struct {
	kind     string // "replicated", "manual", "unreduced", "maximal", or "" for a tiled sharding
	device   int64  // of a maximal sharding
	tiles    *tileAssignment
	lastRepl bool  // last_tile_dim_replicate
	subTypes []int // last_tile_dims={...}
}

// String returns the sharding as HLO text: {replicated}, {devices=[2,1]<=[2]}, ...
func (h hloSharding) String() string {
	switch h.kind {
	case "maximal":
		return "{maximal device=" + strconv.FormatInt(h.device, 10) + "}"
	case "":
	default:
		return "{" + h.kind + "}"
	}
	t := h.tiles.tiled()
	t.LastTileDimReplicate = h.lastRepl
	for _, typ := range h.subTypes {
		t.LastTileDims = append(t.LastTileDims, subgroupNames[typ])
	}
	return "{" + printer.TiledSharding(&t) + "}"
}

// axisRefKey identifies an axis reference in maps.
type axisRefKey struct {
	name          string
	preSize, size int64
}

// toHLOSharding converts a Shardy sharding over mesh into the HLO sharding XLA's export makes of it
// (convertToHloSharding in XLA's Shardy export), with manual naming the manual axes of an enclosing
// sdy.manual_computation.
func toHLOSharding(t *TensorSharding, mesh *Mesh, manual []string) (hloSharding, error) {
	if len(mesh.Axes) == 0 {
		if len(mesh.DeviceIDs) == 0 {
			return hloSharding{kind: "replicated"}, nil
		}
		return hloSharding{kind: "maximal", device: mesh.DeviceIDs[0]}, nil
	}
	if len(manual) == len(mesh.Axes) {
		return hloSharding{kind: "manual"}, nil
	}
	if n := mesh.Devices(); len(mesh.DeviceIDs) > 0 && (int64(len(mesh.DeviceIDs)) != n || n > maxMeshDevices) {
		return hloSharding{}, fmt.Errorf("mesh of %d devices lists %d device ids", n, len(mesh.DeviceIDs))
	}
	size := func(r AxisRef) (int64, error) {
		a, ok := mesh.axis(r.Name)
		if !ok {
			return 0, fmt.Errorf("axis %q is not an axis of the mesh %s", r.Name, mesh)
		}
		if r.Size == 0 {
			return a.Size, nil
		}
		if r.PreSize*r.Size > a.Size || a.Size%(r.PreSize*r.Size) != 0 {
			return 0, fmt.Errorf("sub-axis %s does not divide axis %q of size %d", r, r.Name, a.Size)
		}
		return r.Size, nil
	}
	tileDims := make([]int64, len(t.Dims))
	sharded := map[axisRefKey]int{}
	pos := 0
	addSharded := func(r AxisRef) (int64, error) {
		n, err := size(r)
		if err != nil {
			return 0, err
		}
		k := axisRefKey{r.Name, r.PreSize, r.Size}
		if _, dup := sharded[k]; dup {
			return 0, fmt.Errorf("axis %s used twice", r)
		}
		sharded[k] = pos
		pos++
		return n, nil
	}
	for i, d := range t.Dims {
		tileDims[i] = 1
		for _, r := range d.Axes {
			n, err := addSharded(r)
			if err != nil {
				return hloSharding{}, err
			}
			tileDims[i] *= n
		}
	}
	var types []int
	if len(manual) > 0 {
		types = append(types, subgroupManual)
		m := int64(1)
		for _, name := range manual {
			if _, used := sharded[axisRefKey{name, 0, 0}]; used {
				continue // an axis a dimension is sharded over stays there
			}
			n, err := addSharded(AxisRef{Name: name})
			if err != nil {
				return hloSharding{}, err
			}
			m *= n
		}
		tileDims = append(tileDims, m)
	}
	if len(t.Unreduced) > 0 {
		types = append(types, subgroupUnreduced)
		m := int64(1)
		for _, r := range t.Unreduced {
			n, err := addSharded(r)
			if err != nil {
				return hloSharding{}, err
			}
			m *= n
		}
		tileDims = append(tileDims, m)
	}
	refs, err := orderedAxisRefs(t, mesh)
	if err != nil {
		return hloSharding{}, err
	}
	reshape := make([]int64, len(refs))
	perm := make([]int, len(refs))
	replicated := int64(1)
	replPos := pos
	if pos > len(refs) {
		return hloSharding{}, fmt.Errorf("sharding %s uses overlapping sub-axes", t.body())
	}
	seen := 0
	for i, r := range refs {
		reshape[i], _ = size(r)
		if p, ok := sharded[axisRefKey{r.Name, r.PreSize, r.Size}]; ok {
			perm[p] = i
			seen++
			continue
		}
		if replPos >= len(perm) {
			return hloSharding{}, fmt.Errorf("sharding %s uses overlapping sub-axes", t.body())
		}
		perm[replPos] = i
		replPos++
		replicated *= reshape[i]
	}
	if seen != pos {
		return hloSharding{}, fmt.Errorf("sharding %s uses overlapping sub-axes", t.body())
	}
	if replicated > 1 {
		tileDims = append(tileDims, replicated)
		types = append(types, subgroupReplicated)
	}
	tiles := &tileAssignment{dims: tileDims, reshape: reshape, perm: perm}
	if len(mesh.DeviceIDs) > 0 {
		ids := &tileAssignment{dims: reshape, devices: mesh.DeviceIDs}
		tiles = ids.transposed(perm)
		tiles.dims = tileDims
	}
	return subgroup(tiles, types), nil
}

// orderedAxisRefs returns the axes of the mesh in order, each split into the sub-axes that the sharding's
// dimensions and unreduced axes use (getOrderedAxisRefs in Shardy).
func orderedAxisRefs(t *TensorSharding, mesh *Mesh) ([]AxisRef, error) {
	cuts := map[string][]int64{}
	for _, a := range mesh.Axes {
		cuts[a.Name] = []int64{1, a.Size}
	}
	add := func(refs []AxisRef) {
		for _, r := range refs {
			if r.Size > 0 {
				if _, ok := cuts[r.Name]; ok {
					cuts[r.Name] = append(cuts[r.Name], r.PreSize, r.PreSize*r.Size)
				}
			}
		}
	}
	for _, d := range t.Dims {
		add(d.Axes)
	}
	add(t.Unreduced)
	var out []AxisRef
	for _, a := range mesh.Axes {
		c := cuts[a.Name]
		if len(c) == 2 {
			out = append(out, AxisRef{Name: a.Name})
			continue
		}
		sort.Slice(c, func(i, j int) bool { return c[i] < c[j] })
		c = slices.Compact(c)
		for i := 0; i+1 < len(c); i++ {
			if c[i+1]%c[i] != 0 {
				return nil, fmt.Errorf("sub-axes of %q do not nest", a.Name)
			}
			out = append(out, AxisRef{Name: a.Name, PreSize: c[i], Size: c[i+1] / c[i]})
		}
	}
	return out, nil
}

// subgroup is XLA's HloSharding::Subgroup: tiles whose last len(types) dimensions are subgroups of the
// given types, normalized (trivial subgroups dropped, types sorted, a lone replicated subgroup written as
// last_tile_dim_replicate).
func subgroup(tiles *tileAssignment, types []int) hloSharding {
	if len(types) == 0 {
		tiles.canonical()
		return hloSharding{tiles: tiles}
	}
	data := len(tiles.dims) - len(types)
	same := true
	for _, t := range types {
		same = same && t == types[0]
	}
	if same && product(tiles.dims[:data]) == 1 {
		return hloSharding{kind: subgroupNames[types[0]]}
	}
	var removed []int
	byType := map[int][]int{}
	needsMerging := false
	count := 0
	for i, t := range types {
		d := data + i
		if tiles.dims[d] == 1 {
			removed = append(removed, d)
			needsMerging = true
			continue
		}
		if len(byType[t]) > 0 {
			needsMerging = true
		} else {
			count++
		}
		byType[t] = append(byType[t], d)
	}
	needsMerging = needsMerging || count > 1
	if !needsMerging {
		return subgroupSharding(tiles, types)
	}
	order := make([]int, data)
	for i := range order {
		order[i] = i
	}
	merged := append([]int64(nil), tiles.dims[:data]...)
	var mergedTypes []int
	for _, t := range []int{subgroupManual, subgroupUnreduced, subgroupReplicated} {
		if len(byType[t]) == 0 {
			continue
		}
		n := int64(1)
		for _, d := range byType[t] {
			order = append(order, d)
			n *= tiles.dims[d]
		}
		merged = append(merged, n)
		mergedTypes = append(mergedTypes, t)
	}
	order = append(order, removed...)
	var next *tileAssignment
	if tiles.devices == nil {
		next = tiles.iotaTransposed(order)
	}
	if next == nil {
		next = tiles.transposed(order)
	}
	next.dims = merged
	return subgroupSharding(next, mergedTypes)
}

// iotaTransposed returns the iota tile assignment with its dimensions permuted by order, when each of its
// dimensions is a run of the transposed reshape dimensions (as the shardings built here always are); nil
// otherwise.
func (t *tileAssignment) iotaTransposed(order []int) *tileAssignment {
	// Split the transposed reshape dimensions into runs, one per tile dimension.
	var runs [][]int
	k := 0
	for _, d := range t.dims {
		var run []int
		n := int64(1)
		for k < len(t.perm) && (n < d || t.reshape[t.perm[k]] == 1) {
			run = append(run, t.perm[k])
			n *= t.reshape[t.perm[k]]
			k++
		}
		if n != d {
			return nil
		}
		runs = append(runs, run)
	}
	for ; k < len(t.perm); k++ {
		if t.reshape[t.perm[k]] != 1 || len(runs) == 0 {
			return nil
		}
		runs[len(runs)-1] = append(runs[len(runs)-1], t.perm[k])
	}
	var perm []int
	dims := make([]int64, len(order))
	for i, o := range order {
		perm = append(perm, runs[o]...)
		dims[i] = t.dims[o]
	}
	return &tileAssignment{dims: dims, reshape: append([]int64(nil), t.reshape...), perm: perm}
}

// subgroupSharding is create_sharding of HloSharding::Subgroup.
func subgroupSharding(tiles *tileAssignment, types []int) hloSharding {
	tiles.canonical()
	if len(types) == 1 && types[0] == subgroupReplicated {
		return partialTile(tiles)
	}
	if len(types) == 1 && types[0] == subgroupManual && product(tiles.dims) == tiles.dims[len(tiles.dims)-1] {
		return hloSharding{kind: "manual"}
	}
	if len(types) > 0 && types[len(types)-1] == subgroupReplicated {
		h := partialTile(tiles)
		if h.kind != "" {
			// Everything was replicated; keep the other subgroups of size one out of it as XLA would not
			// reach here with them.
			return h
		}
		h.lastRepl = false
		h.subTypes = types
		return h
	}
	return hloSharding{tiles: tiles, subTypes: types}
}

// partialTile is HloSharding::PartialTile: the last dimension replicates, and the devices of each group
// are sorted.
func partialTile(tiles *tileAssignment) hloSharding {
	n := product(tiles.dims)
	last := tiles.dims[len(tiles.dims)-1]
	if len(tiles.dims) == 1 || last == n {
		return hloSharding{kind: "replicated"}
	}
	if last == 1 {
		t := *tiles
		t.dims = tiles.dims[:len(tiles.dims)-1]
		return hloSharding{tiles: &t}
	}
	if tiles.devices == nil {
		if tiles.reshape[tiles.perm[len(tiles.perm)-1]] == last {
			return hloSharding{tiles: tiles, lastRepl: true}
		}
		if r, p, ok := groupMinorIotaDimsSorted(tiles.reshape, tiles.perm, last); ok {
			t := &tileAssignment{dims: tiles.dims, reshape: r, perm: p}
			t.canonical()
			return hloSharding{tiles: t, lastRepl: true}
		}
	}
	devs := append([]int64(nil), tiles.array()...)
	for i := int64(0); i < n; i += last {
		slices.Sort(devs[i : i+last])
	}
	return hloSharding{tiles: &tileAssignment{dims: tiles.dims, devices: devs}, lastRepl: true}
}

// groupMinorIotaDimsSorted is XLA's helper of the same name: the minor dimensions of the transposed iota
// that make up a group of groupSize devices, split where one straddles the group, put in their original
// order so that each group's devices are sorted.
func groupMinorIotaDimsSorted(dims []int64, perm []int, groupSize int64) ([]int64, []int, bool) {
	grouped := 0
	split, splitSize := -1, int64(0)
	for i := len(perm) - 1; i >= 0; i-- {
		d := perm[i]
		size := dims[d]
		if size <= groupSize {
			if groupSize%size != 0 {
				return nil, nil, false
			}
			groupSize /= size
			grouped++
		} else {
			if size%groupSize != 0 {
				return nil, nil, false
			}
			split, splitSize = d, size/groupSize
			grouped++
			break
		}
	}
	if split < 0 {
		newDims := append([]int64(nil), dims...)
		newPerm := append([]int(nil), perm...)
		sort.SliceStable(newPerm[len(newPerm)-grouped:], func(i, j int) bool {
			tail := newPerm[len(newPerm)-grouped:]
			return tail[i] < tail[j]
		})
		return newDims, newPerm, true
	}
	newDims := make([]int64, len(dims)+1)
	newPerm := make([]int, len(perm)+1)
	for i := 0; i < split; i++ {
		newDims[i] = dims[i]
	}
	newDims[split] = splitSize
	newDims[split+1] = dims[split] / splitSize
	for i := split + 2; i < len(newDims); i++ {
		newDims[i] = dims[i-1]
	}
	permSplit := 0
	for i := 0; i < len(perm); i++ {
		p := perm[i]
		if p <= split {
			newPerm[i] = p
		} else {
			newPerm[i] = p + 1
		}
		if p == split {
			permSplit = i
			break
		}
	}
	newPerm[permSplit+1] = newPerm[permSplit] + 1
	for i := permSplit + 2; i < len(newPerm); i++ {
		p := perm[i-1]
		if p <= split {
			newPerm[i] = p
		} else {
			newPerm[i] = p + 1
		}
	}
	tail := newPerm[len(newPerm)-grouped:]
	sort.SliceStable(tail, func(i, j int) bool { return tail[i] < tail[j] })
	return newDims, newPerm, true
}

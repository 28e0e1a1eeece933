package interp

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"octet/hlo"
	"octet/tensor"
)

// A Shardy program (JAX's sharded programs, as XLA's round-trip export hands them to HLO) describes the
// global computation: its shardings say how a compiler would spread the values over devices, not what
// they are. On one device the interpreter computes that global computation:
//
//   - xla.sdy.FuncResultSharding and xla.sdy.PropagationBarrier only carry a sharding or a propagation
//     rule: their value is their operand's; xla.sdy.ShardingGroup only ties shardings together: nothing.
//   - A manual computation (shard_map: an xla.sdy.GlobalToLocalShape call, a call of its body, an
//     xla.sdy.LocalToGlobalShape call) is per-device code: its body runs on every device of its mesh,
//     each on its shard of the global operands (cut along the manual axes as in_shardings says), its
//     collectives exchanging values between the devices as they would on that mesh, and the devices'
//     results are put together as out_shardings says (a device's result stands for every device that
//     differs from it only along axes the result is not split over). The values that cross the two
//     custom calls are the global arrays.
const (
	sdyGlobalToLocal = "xla.sdy.GlobalToLocalShape"
	sdyLocalToGlobal = "xla.sdy.LocalToGlobalShape"
	sdyShardingGroup = "xla.sdy.ShardingGroup"
)

// sdyCall evaluates the xla.sdy custom calls that are not pass-through: ok is false for another target.
func (e *evaluator) sdyCall(in *hlo.Instruction, ops []Value) (v Value, ok bool, err error) {
	switch in.CustomCallTarget() {
	case sdyShardingGroup:
		return TupleValue(), true, nil
	case sdyGlobalToLocal:
		// The global operands pass to the body's call, which cuts them per device.
		for _, u := range in.Users() {
			if u.Opcode == hlo.OpGetTupleElement {
				for _, w := range u.Users() {
					if gtlOf(w) != in {
						return Value{}, true, unsupportedf(in, "%s whose values go elsewhere than a manual computation's body", sdyGlobalToLocal)
					}
				}
			} else if gtlOf(u) != in {
				return Value{}, true, unsupportedf(in, "%s whose values go elsewhere than a manual computation's body", sdyGlobalToLocal)
			}
		}
		if len(ops) == 1 && !in.Shape.IsTuple() {
			return ops[0], true, nil
		}
		return TupleValue(slices.Clone(ops)...), true, nil
	case sdyLocalToGlobal:
		// Its operands are the global results the body's call put together.
		for _, o := range in.Operands() {
			if o.Opcode == hlo.OpGetTupleElement {
				o = o.Operand(0)
			}
			if o.Opcode != hlo.OpCall || ltgOf(o) != in {
				return Value{}, true, unsupportedf(in, "%s of values that are not a manual computation body's results", sdyLocalToGlobal)
			}
		}
		r := TupleValue(slices.Clone(ops)...)
		if len(ops) == 1 && !in.Shape.IsTuple() {
			r = ops[0]
		}
		if err := r.Fits(in.Shape); err != nil {
			return Value{}, true, errorf(in, "%s: %v", sdyLocalToGlobal, err)
		}
		return r, true, nil
	}
	return Value{}, false, nil
}

// gtlOf returns the xla.sdy.GlobalToLocalShape call a call's operands come from (directly or through
// get-tuple-element), or nil.
func gtlOf(call *hlo.Instruction) *hlo.Instruction {
	if call.Opcode != hlo.OpCall {
		return nil
	}
	var g *hlo.Instruction
	for _, o := range call.Operands() {
		if o.Opcode == hlo.OpGetTupleElement {
			o = o.Operand(0)
		}
		if o.Opcode != hlo.OpCustomCall || o.CustomCallTarget() != sdyGlobalToLocal || g != nil && g != o {
			return nil
		}
		g = o
	}
	return g
}

// ltgOf returns the xla.sdy.LocalToGlobalShape call a call's results go to (directly or through
// get-tuple-element), or nil.
func ltgOf(call *hlo.Instruction) *hlo.Instruction {
	if call.Opcode != hlo.OpCall {
		return nil
	}
	var l *hlo.Instruction
	for _, u := range call.Users() {
		users := []*hlo.Instruction{u}
		if u.Opcode == hlo.OpGetTupleElement {
			users = u.Users()
		}
		for _, w := range users {
			if w.Opcode != hlo.OpCustomCall || w.CustomCallTarget() != sdyLocalToGlobal || l != nil && l != w {
				return nil
			}
			l = w
		}
	}
	return l
}

// isManualComputation reports whether a call is the call of a manual computation's body.
func isManualComputation(call *hlo.Instruction) bool {
	return gtlOf(call) != nil || ltgOf(call) != nil
}

// frontendAttr returns the frontend attribute key of x.
func frontendAttr(x *hlo.Instruction, key string) (string, bool) {
	fa, _ := x.Attr("frontend_attributes").(hlo.FrontendAttributes)
	return fa.Get(key)
}

// manualComputation evaluates the call of a manual computation's body (see the comment at the top of this
// file) on the global values of its operands, giving the global values of its results.
func (e *evaluator) manualComputation(in *hlo.Instruction, ops []Value) (Value, error) {
	if e.dev != nil {
		return Value{}, unsupportedf(in, "a manual computation inside a device's program")
	}
	body := in.CalledComputation("to_apply")
	gtl, ltg := gtlOf(in), ltgOf(in)
	if body == nil || body.Root == nil || ltg == nil {
		return Value{}, unsupportedf(in, "a manual computation whose results do not go through %s", sdyLocalToGlobal)
	}
	fail := func(format string, args ...any) (Value, error) {
		return Value{}, errorf(in, "manual computation: %s", fmt.Sprintf(format, args...))
	}
	meshText, _ := moduleFrontendAttr(e.mod, "xla.sdy.meshes")
	meshes, err := parseSdyMeshes(meshText)
	if err != nil {
		return fail("xla.sdy.meshes: %v", err)
	}
	var inS, outS []sdySharding
	var manual []string
	for _, x := range []struct {
		call *hlo.Instruction
		key  string
		to   *[]sdySharding
	}{{gtl, "xla.sdy.in_shardings", &inS}, {ltg, "xla.sdy.out_shardings", &outS}} {
		if x.call == nil {
			continue
		}
		text, ok := frontendAttr(x.call, x.key)
		if !ok {
			return fail("%%%s has no %s", x.call.Name, x.key)
		}
		if *x.to, err = parseSdyShardings(text); err != nil {
			return fail("%s: %v", x.key, err)
		}
		axes, ok := frontendAttr(x.call, "xla.sdy.manual_axes")
		if !ok {
			return fail("%%%s has no xla.sdy.manual_axes", x.call.Name)
		}
		if manual, err = parseSdyManualAxes(axes); err != nil {
			return fail("xla.sdy.manual_axes: %v", err)
		}
	}
	results := []hlo.Shape{body.Root.Shape}
	if body.Root.Shape.IsTuple() {
		results = body.Root.Shape.Tuple
	}
	if len(inS) != len(ops) || len(outS) != len(results) {
		return fail("%d in_shardings for %d operands, %d out_shardings for %d results", len(inS), len(ops), len(outS), len(results))
	}
	var mesh *sdyMesh
	for _, s := range slices.Concat(inS, outS) {
		m := s.mesh
		if m == nil {
			if m = meshes[s.meshRef]; m == nil {
				return fail("no mesh @%s in the module's xla.sdy.meshes", s.meshRef)
			}
		}
		if mesh == nil {
			mesh = m
		} else if !mesh.sameAxes(m) {
			return fail("shardings on different meshes")
		}
	}
	if mesh == nil {
		return Value{}, unsupportedf(in, "a manual computation without operands or results")
	}
	for _, a := range manual {
		if mesh.axis(a) < 0 {
			return fail("manual axis %q is not an axis of the mesh", a)
		}
	}
	if n := devices(e.mod); n > 0 && n != mesh.devices() {
		return Value{}, unsupportedf(in, "a manual computation on a mesh of %d devices in a module compiled for %d", mesh.devices(), n)
	}
	ids, err := mesh.deviceIDs()
	if err != nil {
		return fail("%v", err)
	}
	n := int64(len(ids))
	progs := make([]*hlo.Computation, n)
	args := make([][]Value, n)
	for k := range n {
		coords := mesh.coords(k)
		id := ids[k]
		progs[id] = body
		args[id] = make([]Value, len(ops))
		for i, v := range ops {
			if v.Kind != KindArray || v.Array == nil {
				return fail("operand %d is %s, not an array", i, v)
			}
			start, size, err := inS[i].shard(mesh, manual, coords, v.Array.Shape)
			if err != nil {
				return fail("operand %d %s: %v", i, v.Array, err)
			}
			local := regionOf(v.Array, start, size)
			if p, ok := paramShapeOf(body, i); ok && !slices.Equal(p.Dims, size) {
				return fail("operand %d %s cut by %s is %v on a device, the body takes %s", i, v.Array, inS[i], size, p.String())
			}
			args[id][i] = ArrayValue(local)
		}
	}
	outs, err := e.runGrid(in, progs, args, 1, n, nil)
	if err != nil {
		return Value{}, err
	}
	globals := []hlo.Shape{ltg.Shape}
	if ltg.Shape.IsTuple() {
		globals = ltg.Shape.Tuple
	}
	if len(globals) != len(results) {
		return fail("%s gives %s for %d results", sdyLocalToGlobal, ltg.Shape.String(), len(results))
	}
	vals := make([]Value, len(results))
	for j, g := range globals {
		if !g.IsArray() {
			return fail("result %d is %s, not an array", j, g.String())
		}
		if len(outS[j].unreduced) > 0 {
			return Value{}, unsupportedf(in, "a manual computation result with unreduced axes (%s)", outS[j])
		}
		global := tensor.New(g.Elem, g.Dims)
		for k := range n {
			coords := mesh.coords(k)
			if !outS[j].represents(mesh, manual, coords) {
				continue
			}
			r := outs[ids[k]]
			if body.Root.Shape.IsTuple() {
				r = r.Tuple[j]
			}
			start, size, err := outS[j].shard(mesh, manual, coords, g.Dims)
			if err != nil {
				return fail("result %d %s: %v", j, g.String(), err)
			}
			if r.Kind != KindArray || r.Array == nil || r.Array.Type != g.Elem || !slices.Equal(r.Array.Shape, size) {
				return fail("device %d gives %s for result %d, a shard of %s by %s is %v", ids[k], r, j, g.String(), outS[j], size)
			}
			copyRegion(global.Data, offset(start, g.Dims), rowMajorStrides(g.Dims), r.Array.Data, 0, rowMajorStrides(size), size, g.Elem.ByteSize())
		}
		vals[j] = ArrayValue(global)
	}
	if !body.Root.Shape.IsTuple() {
		return vals[0], nil
	}
	return TupleValue(vals...), nil
}

// paramShapeOf returns the shape of parameter i of c.
func paramShapeOf(c *hlo.Computation, i int) (hlo.Shape, bool) {
	if i >= len(c.Params) || c.Params[i] == nil {
		return hlo.Shape{}, false
	}
	return c.Params[i].Shape, true
}

// moduleFrontendAttr returns the frontend attribute key of the module's header.
func moduleFrontendAttr(m *hlo.Module, key string) (string, bool) {
	fa, _ := m.Attr("frontend_attributes").(hlo.FrontendAttributes)
	return fa.Get(key)
}

// sdyMesh is a Shardy mesh: named axes, major to minor, and the device at each position (nil: the
// positions in order).
type sdyMesh struct {
	axes []sdyAxis
	ids  []int64
}

type sdyAxis struct {
	name string
	size int64
}

// sdyAxisRef is an axis of a dimension sharding, or a part of it ("x":(pre)size, where size > 0).
type sdyAxisRef struct {
	name      string
	pre, size int64
}

// sdySharding is a Shardy tensor sharding: its mesh (by name, or written in place) and the axes that
// split each dimension, major first.
type sdySharding struct {
	meshRef   string
	mesh      *sdyMesh
	dims      [][]sdyAxisRef
	unreduced []sdyAxisRef
	text      string
}

func (s sdySharding) String() string { return s.text }

func (m *sdyMesh) axis(name string) int {
	return slices.IndexFunc(m.axes, func(a sdyAxis) bool { return a.name == name })
}

func (m *sdyMesh) sameAxes(o *sdyMesh) bool {
	return slices.Equal(m.axes, o.axes) && slices.Equal(m.ids, o.ids)
}

func (m *sdyMesh) devices() int64 {
	if len(m.axes) == 0 {
		return max(int64(len(m.ids)), 1)
	}
	n := int64(1)
	for _, a := range m.axes {
		n *= a.size
	}
	return n
}

// coords returns the position of the mesh's k-th device along each axis.
func (m *sdyMesh) coords(k int64) []int64 {
	dims := make([]int64, len(m.axes))
	for i, a := range m.axes {
		dims[i] = a.size
	}
	return unravel(k, dims)
}

// deviceIDs returns the device of each position, checking that they are the devices 0..n-1.
func (m *sdyMesh) deviceIDs() ([]int64, error) {
	n := m.devices()
	if n > 1<<16 {
		return nil, fmt.Errorf("a mesh of %d devices", n)
	}
	if m.ids == nil {
		ids := make([]int64, n)
		for i := range ids {
			ids[i] = int64(i)
		}
		return ids, nil
	}
	if int64(len(m.ids)) != n {
		return nil, fmt.Errorf("%d device ids for a mesh of %d devices", len(m.ids), n)
	}
	seen := make([]bool, n)
	for _, d := range m.ids {
		if d < 0 || d >= n || seen[d] {
			return nil, fmt.Errorf("device ids %v are not the devices 0 to %d", m.ids, n-1)
		}
		seen[d] = true
	}
	return m.ids, nil
}

// refSize is the number of positions an axis reference takes.
func (r sdyAxisRef) refSize(m *sdyMesh) int64 {
	if r.size > 0 {
		return r.size
	}
	return m.axes[m.axis(r.name)].size
}

// index is the position of coordinate c of r's axis along r.
func (r sdyAxisRef) index(c int64) int64 {
	if r.size > 0 {
		return c / r.pre % r.size
	}
	return c
}

// shard returns the region of an array of dimensions dims that the device at coords holds, cut along the
// manual axes of the sharding (the others leave a dimension whole).
func (s sdySharding) shard(m *sdyMesh, manual []string, coords, dims []int64) (start, size []int64, err error) {
	if len(s.dims) != len(dims) {
		return nil, nil, fmt.Errorf("%s shards %d dimensions of an array of rank %d", s, len(s.dims), len(dims))
	}
	start, size = make([]int64, len(dims)), slices.Clone(dims)
	for d, refs := range s.dims {
		idx, count := int64(0), int64(1)
		for _, r := range refs {
			a := m.axis(r.name)
			if a < 0 {
				return nil, nil, fmt.Errorf("%s names axis %q, not one of the mesh", s, r.name)
			}
			if !slices.Contains(manual, r.name) {
				continue
			}
			n := r.refSize(m)
			idx = idx*n + r.index(coords[a])
			count *= n
		}
		if dims[d]%count != 0 {
			return nil, nil, fmt.Errorf("dimension %d of size %d does not split into %d shards", d, dims[d], count)
		}
		size[d] = dims[d] / count
		start[d] = idx * size[d]
	}
	return start, size, nil
}

// represents reports whether the device at coords holds the shard of a result of sharding s for every
// device that differs from it only along manual axes (or parts of them) s does not split over: those
// hold the same values, and the device whose position along them is 0 stands for them.
func (s sdySharding) represents(m *sdyMesh, manual []string, coords []int64) bool {
	for a, ax := range m.axes {
		if !slices.Contains(manual, ax.name) {
			continue
		}
		// The part of the coordinate the sharding's references to the axis read back.
		var used int64
		for _, refs := range s.dims {
			for _, r := range refs {
				if r.name != ax.name {
					continue
				}
				if r.size == 0 {
					used += coords[a]
				} else {
					used += r.index(coords[a]) * r.pre
				}
			}
		}
		if used != coords[a] {
			return false
		}
	}
	return true
}

// sdyText reads the Shardy attribute text XLA's export writes into frontend attributes.
type sdyText struct {
	s   string
	off int
}

func (p *sdyText) skip() {
	for p.off < len(p.s) && strings.IndexByte(" \t\n\r", p.s[p.off]) >= 0 {
		p.off++
	}
}

func (p *sdyText) got(lit string) bool {
	p.skip()
	if strings.HasPrefix(p.s[p.off:], lit) {
		p.off += len(lit)
		return true
	}
	return false
}

func (p *sdyText) want(lit string) error {
	if !p.got(lit) {
		return p.errorf("expected %q", lit)
	}
	return nil
}

func (p *sdyText) errorf(format string, args ...any) error {
	rest := p.s[p.off:]
	if len(rest) > 20 {
		rest = rest[:20] + "..."
	}
	return fmt.Errorf("%s at %q", fmt.Sprintf(format, args...), rest)
}

// quoted reads a string in double quotes, with MLIR's escapes.
func (p *sdyText) quoted() (string, error) {
	p.skip()
	if p.off >= len(p.s) || p.s[p.off] != '"' {
		return "", p.errorf("expected a quoted name")
	}
	end := p.off + 1
	for end < len(p.s) && p.s[end] != '"' {
		if p.s[end] == '\\' {
			end++
		}
		end++
	}
	if end >= len(p.s) {
		return "", p.errorf("unterminated name")
	}
	v, err := strconv.Unquote(p.s[p.off : end+1])
	if err != nil {
		v = p.s[p.off+1 : end]
	}
	p.off = end + 1
	return v, nil
}

func (p *sdyText) integer() (int64, error) {
	p.skip()
	start := p.off
	if p.off < len(p.s) && p.s[p.off] == '-' {
		p.off++
	}
	for p.off < len(p.s) && p.s[p.off] >= '0' && p.s[p.off] <= '9' {
		p.off++
	}
	v, err := strconv.ParseInt(p.s[start:p.off], 10, 64)
	if err != nil {
		p.off = start
		return 0, p.errorf("expected an integer")
	}
	return v, nil
}

func (p *sdyText) ident() string {
	p.skip()
	start := p.off
	for p.off < len(p.s) {
		c := p.s[p.off]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '$' || c == '-') {
			break
		}
		p.off++
	}
	return p.s[start:p.off]
}

// meshBody reads a mesh after its '<': ["x"=2, "y"=4], device_ids=[...]> (older exports leave the
// brackets out).
func (p *sdyText) meshBody() (*sdyMesh, error) {
	m := &sdyMesh{}
	brackets := p.got("[")
	for p.peek('"') {
		name, err := p.quoted()
		if err != nil {
			return nil, err
		}
		if err := p.want("="); err != nil {
			return nil, err
		}
		size, err := p.integer()
		if err != nil {
			return nil, err
		}
		if size < 1 || m.axis(name) >= 0 {
			return nil, p.errorf("mesh axis %q of size %d", name, size)
		}
		m.axes = append(m.axes, sdyAxis{name, size})
		if !p.got(",") {
			break
		}
	}
	if brackets {
		if err := p.want("]"); err != nil {
			return nil, err
		}
		p.got(",")
	}
	if p.got("device_ids") {
		if err := p.want("="); err != nil {
			return nil, err
		}
		if err := p.want("["); err != nil {
			return nil, err
		}
		ids, err := sdyList(p, "]", p.integer)
		if err != nil {
			return nil, err
		}
		m.ids = ids
	}
	if err := p.want(">"); err != nil {
		return nil, err
	}
	return m, nil
}

func (p *sdyText) peek(c byte) bool {
	p.skip()
	return p.off < len(p.s) && p.s[p.off] == c
}

// parseSdyMeshes reads xla.sdy.meshes: {name = #sdy.mesh<...>, ...} (a mesh may be quoted, as older
// exports write it).
func parseSdyMeshes(s string) (map[string]*sdyMesh, error) {
	meshes := map[string]*sdyMesh{}
	if strings.TrimSpace(s) == "" {
		return meshes, nil
	}
	p := &sdyText{s: s}
	if err := p.want("{"); err != nil {
		return nil, err
	}
	for !p.got("}") {
		name := p.ident()
		if name == "" {
			return nil, p.errorf("expected a mesh name")
		}
		if err := p.want("="); err != nil {
			return nil, err
		}
		q := p
		if p.peek('"') {
			text, err := p.quoted()
			if err != nil {
				return nil, err
			}
			q = &sdyText{s: text}
		}
		if err := q.want("#sdy.mesh<"); err != nil {
			return nil, err
		}
		m, err := q.meshBody()
		if err != nil {
			return nil, err
		}
		if q != p {
			if err := q.end(); err != nil {
				return nil, err
			}
		}
		meshes[name] = m
		if !p.got(",") {
			if err := p.want("}"); err != nil {
				return nil, err
			}
			break
		}
	}
	return meshes, nil
}

// axisRefs reads axis references up to a closing brace: "x", "y":(2)4; open reports a '?'.
func (p *sdyText) axisRefs() (refs []sdyAxisRef, open bool, err error) {
	for !p.got("}") {
		if p.got("?") {
			open = true
			p.got(",")
			continue
		}
		name, err := p.quoted()
		if err != nil {
			return nil, false, err
		}
		r := sdyAxisRef{name: name}
		if p.got(":") {
			if err := p.want("("); err != nil {
				return nil, false, err
			}
			if r.pre, err = p.integer(); err != nil {
				return nil, false, err
			}
			if err := p.want(")"); err != nil {
				return nil, false, err
			}
			if r.size, err = p.integer(); err != nil {
				return nil, false, err
			}
			if r.pre < 1 || r.size < 1 {
				return nil, false, p.errorf("sub-axis (%d)%d", r.pre, r.size)
			}
		}
		refs = append(refs, r)
		p.got(",")
	}
	return refs, open, nil
}

// sharding reads one tensor sharding: <@mesh, [{"x"}, {}], replicated={"y"}>.
func (p *sdyText) sharding() (sdySharding, error) {
	start := p.off
	var s sdySharding
	if err := p.want("<"); err != nil {
		return s, err
	}
	switch {
	case p.got("@"):
		s.meshRef = p.ident()
	case p.got("#sdy.mesh<"), p.got("mesh<"):
		m, err := p.meshBody()
		if err != nil {
			return s, err
		}
		s.mesh = m
	default:
		return s, p.errorf("expected a mesh")
	}
	if err := p.want(","); err != nil {
		return s, err
	}
	if err := p.want("["); err != nil {
		return s, err
	}
	for !p.got("]") {
		if err := p.want("{"); err != nil {
			return s, err
		}
		refs, _, err := p.axisRefs()
		if err != nil {
			return s, err
		}
		if p.got("p") {
			if _, err := p.integer(); err != nil {
				return s, err
			}
		}
		s.dims = append(s.dims, refs)
		p.got(",")
	}
	for p.got(",") {
		key := p.ident()
		if err := p.want("="); err != nil {
			return s, err
		}
		if err := p.want("{"); err != nil {
			return s, err
		}
		refs, _, err := p.axisRefs()
		if err != nil {
			return s, err
		}
		if key == "unreduced" {
			s.unreduced = refs
		}
	}
	if err := p.want(">"); err != nil {
		return s, err
	}
	s.text = strings.TrimSpace(p.s[start:p.off])
	return s, nil
}

// parseSdyShardings reads #sdy.sharding_per_value<[...]> (or one #sdy.sharding<...>).
func parseSdyShardings(s string) ([]sdySharding, error) {
	p := &sdyText{s: s}
	if p.got("#sdy.sharding<") {
		p.off--
		t, err := p.sharding()
		if err != nil {
			return nil, err
		}
		return []sdySharding{t}, p.end()
	}
	if err := p.want("#sdy.sharding_per_value<"); err != nil {
		return nil, err
	}
	if err := p.want("["); err != nil {
		return nil, err
	}
	out, err := sdyList(p, "]", p.sharding)
	if err != nil {
		return nil, err
	}
	if err := p.want(">"); err != nil {
		return nil, err
	}
	return out, p.end()
}

// parseSdyManualAxes reads #sdy<manual_axes{"x", "y"}>.
func parseSdyManualAxes(s string) ([]string, error) {
	p := &sdyText{s: s}
	if err := p.want("#sdy<manual_axes{"); err != nil {
		return nil, err
	}
	axes, err := sdyList(p, "}", p.quoted)
	if err != nil {
		return nil, err
	}
	if err := p.want(">"); err != nil {
		return nil, err
	}
	return axes, p.end()
}

// sdyList reads items, each followed by an optional comma, up to the closing token close.
func sdyList[T any](p *sdyText, close string, item func() (T, error)) ([]T, error) {
	var out []T
	for !p.got(close) {
		x, err := item()
		if err != nil {
			return nil, err
		}
		out = append(out, x)
		p.got(",")
	}
	return out, nil
}

func (p *sdyText) end() error {
	p.skip()
	if p.off != len(p.s) {
		return p.errorf("unexpected text")
	}
	return nil
}

package stablehlo

import (
	"go/token"
	"strconv"
	"strings"
)

// The Shardy (sdy) dialect: meshes of named device axes, and the sharding of each tensor over them, as
// JAX prints them for programs that Shardy partitions.

// Mesh is a Shardy mesh: named axes with their sizes, and the device ids when they are not 0, 1, ...
// in order. A mesh without axes and with one device id is that device (a maximal sharding); without
// either it is the empty mesh.
type Mesh struct {
	Axes      []MeshAxis
	DeviceIDs []int64
}

// MeshAxis is one axis of a mesh.
type MeshAxis struct {
	Name string
	Size int64
}

// NamedMesh is a mesh a module defines with sdy.mesh @Name = <...>, and the attributes written after it
// ({stablehlo.mesh = {...}}, which Shardy's import adds as a copy of the mesh).
type NamedMesh struct {
	Name  string
	Mesh  *Mesh
	Attrs []NamedAttr
	Pos   token.Pos
}

// AxisRef names a mesh axis, or the part of it of Size devices that comes after PreSize of them
// ("x":(2)4); Size is 0 for the whole axis.
type AxisRef struct {
	Name          string
	PreSize, Size int64
}

// DimSharding is how one dimension of a tensor is split: over the axes in order (major to minor),
// open to further sharding by propagation when Open ("?"), with a priority (p1) or -1.
type DimSharding struct {
	Axes     []AxisRef
	Open     bool
	Priority int64
}

// TensorSharding is a #sdy.sharding: a mesh (a reference MeshRef to a module's sdy.mesh, or Mesh
// written inline), one DimSharding per dimension, and the axes the tensor is explicitly replicated or
// unreduced over.
type TensorSharding struct {
	MeshRef    string
	Mesh       *Mesh
	Dims       []DimSharding
	Replicated []AxisRef
	Unreduced  []AxisRef
}

// Shardings is a list of tensor shardings: #sdy.sharding_per_value<[...]>, and the in_shardings and
// out_shardings of sdy.manual_computation and sdy.named_computation.
type Shardings []*TensorSharding

// ManualAxes is #sdy<manual_axes{"a", "b"}>, and the manual_axes of sdy.manual_computation.
type ManualAxes []string

func (*TensorSharding) isAttr() {}
func (Shardings) isAttr()       {}
func (*Mesh) isAttr()           {}
func (ManualAxes) isAttr()      {}

// String returns the mesh as Shardy prints it inside #sdy.mesh<...>: ["x"=2, "y"=4], device_ids=[...].
func (m *Mesh) String() string {
	var b strings.Builder
	b.WriteByte('[')
	for i, a := range m.Axes {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(a.Name))
		b.WriteByte('=')
		b.WriteString(strconv.FormatInt(a.Size, 10))
	}
	b.WriteByte(']')
	if len(m.DeviceIDs) > 0 {
		b.WriteString(", device_ids=[")
		for i, d := range m.DeviceIDs {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.FormatInt(d, 10))
		}
		b.WriteByte(']')
	}
	return b.String()
}

// Devices is the number of devices of the mesh: the product of its axis sizes, or the number of device
// ids of a mesh without axes.
func (m *Mesh) Devices() int64 {
	if len(m.Axes) == 0 {
		return int64(len(m.DeviceIDs))
	}
	n := int64(1)
	for _, a := range m.Axes {
		n *= a.Size
	}
	return n
}

// axis returns the axis named name; ok is false when the mesh has none.
func (m *Mesh) axis(name string) (MeshAxis, bool) {
	for _, a := range m.Axes {
		if a.Name == name {
			return a, true
		}
	}
	return MeshAxis{}, false
}

// String returns the reference as Shardy prints it: "x" or "x":(2)4.
func (r AxisRef) String() string {
	s := strconv.Quote(r.Name)
	if r.Size > 0 {
		s += ":(" + strconv.FormatInt(r.PreSize, 10) + ")" + strconv.FormatInt(r.Size, 10)
	}
	return s
}

func axisList(refs []AxisRef) string {
	parts := make([]string, len(refs))
	for i, r := range refs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ", ")
}

// String returns the dimension's sharding as Shardy prints it: {"x", "y"}, {"x", ?}p2, {?}, {}.
func (d DimSharding) String() string {
	s := "{" + axisList(d.Axes)
	if d.Open {
		if len(d.Axes) > 0 {
			s += ", "
		}
		s += "?"
	}
	s += "}"
	if d.Priority >= 0 {
		s += "p" + strconv.FormatInt(d.Priority, 10)
	}
	return s
}

// body returns the sharding without its #sdy.sharding prefix: <@mesh, [{"x"}, {}], replicated={"y"}>.
func (t *TensorSharding) body() string {
	var b strings.Builder
	b.WriteByte('<')
	if t.Mesh != nil {
		b.WriteString("mesh<" + t.Mesh.String() + ">")
	} else {
		b.WriteString("@" + t.MeshRef)
	}
	b.WriteString(", [")
	for i, d := range t.Dims {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(d.String())
	}
	b.WriteByte(']')
	if len(t.Replicated) > 0 {
		b.WriteString(", replicated={" + axisList(t.Replicated) + "}")
	}
	if len(t.Unreduced) > 0 {
		b.WriteString(", unreduced={" + axisList(t.Unreduced) + "}")
	}
	b.WriteByte('>')
	return b.String()
}

// String returns the attribute as Shardy prints it: #sdy.sharding<@mesh, [{"x"}, {}]>.
func (t *TensorSharding) String() string { return "#sdy.sharding" + t.body() }

// String returns the list as #sdy.sharding_per_value<[<@mesh, [{"x"}]>, ...]>.
func (s Shardings) String() string {
	var b strings.Builder
	b.WriteString("#sdy.sharding_per_value<[")
	for i, t := range s {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(t.body())
	}
	b.WriteString("]>")
	return b.String()
}

// String returns the axes as #sdy<manual_axes{"a", "b"}>.
func (m ManualAxes) String() string {
	parts := make([]string, len(m))
	for i, a := range m {
		parts[i] = strconv.Quote(a)
	}
	return "#sdy<manual_axes{" + strings.Join(parts, ", ") + "}>"
}

// sdyMeshBody reads a mesh after its '<': ["x"=2, "y"=4], device_ids=[0, 1]>.
func (p *parser) sdyMeshBody() *Mesh {
	s := &p.scan
	m := &Mesh{}
	s.want('[', "opening a mesh's axes")
	for !s.got(']') {
		at := s.off
		name := s.str()
		s.want('=', "after a mesh axis name")
		size := s.int()
		if size < 1 {
			s.failAt(at, "mesh axis %q of size %d", name, size)
		}
		if _, dup := m.axis(name); dup {
			s.failAt(at, "mesh axis %q named twice", name)
		}
		m.Axes = append(m.Axes, MeshAxis{name, size})
		if !s.got(',') {
			s.want(']', "closing a mesh's axes")
			break
		}
	}
	if s.got(',') {
		if s.ident() != "device_ids" {
			s.fail("expected device_ids in a mesh")
		}
		s.want('=', "after device_ids")
		s.want('[', "opening device_ids")
		for !s.got(']') {
			m.DeviceIDs = append(m.DeviceIDs, s.int())
			if !s.got(',') {
				s.want(']', "closing device_ids")
				break
			}
		}
	}
	s.want('>', "closing a mesh")
	return m
}

// sdyAxisRef reads "x" or "x":(2)4.
func (p *parser) sdyAxisRef() AxisRef {
	s := &p.scan
	r := AxisRef{Name: s.str()}
	if s.peek() == ':' {
		s.off++
		s.want('(', "opening a sub-axis pre-size")
		r.PreSize = s.int()
		s.want(')', "closing a sub-axis pre-size")
		r.Size = s.int()
		if r.PreSize < 1 || r.Size < 1 {
			s.fail("sub-axis %s of %q: sizes must be positive", "("+strconv.FormatInt(r.PreSize, 10)+")"+strconv.FormatInt(r.Size, 10), r.Name)
		}
	}
	return r
}

// sdyAxisSet reads {"x", "y":(1)2} after its '{'.
func (p *parser) sdyAxisSet() []AxisRef {
	s := &p.scan
	out := []AxisRef{}
	for !s.got('}') {
		out = append(out, p.sdyAxisRef())
		if !s.got(',') {
			s.want('}', "closing a list of axes")
			break
		}
	}
	return out
}

// sdyShardingBody reads a tensor sharding after its '<': @mesh, [{"x"}, {?}], replicated={"y"}>.
func (p *parser) sdyShardingBody() *TensorSharding {
	s := &p.scan
	s.enter()
	defer s.leave()
	t := &TensorSharding{}
	switch {
	case s.peek() == '@':
		s.off++
		t.MeshRef = s.suffixID()
	case s.peek() == '#' || s.peekIdent() == "mesh":
		if s.got('#') {
			if s.ident() != "sdy.mesh" {
				s.fail("expected a mesh in a sharding")
			}
		} else {
			s.ident()
		}
		s.want('<', "opening an inline mesh")
		t.Mesh = p.sdyMeshBody()
	default:
		s.fail("expected a mesh (@name or mesh<...>) in a sharding, found %s", s.describe())
	}
	s.want(',', "after a sharding's mesh")
	s.want('[', "opening a sharding's dimensions")
	t.Dims = []DimSharding{}
	for !s.got(']') {
		s.want('{', "opening a dimension's sharding")
		d := DimSharding{Priority: -1}
		for !s.got('}') {
			if s.got('?') {
				d.Open = true
				s.want('}', "after '?' in a dimension's sharding")
				break
			}
			d.Axes = append(d.Axes, p.sdyAxisRef())
			if !s.got(',') {
				s.want('}', "closing a dimension's sharding")
				break
			}
		}
		if s.off < len(s.src) && s.src[s.off] == 'p' && s.off+1 < len(s.src) && isDigit(s.src[s.off+1]) {
			s.off++
			d.Priority = s.int()
		}
		t.Dims = append(t.Dims, d)
		if !s.got(',') {
			s.want(']', "closing a sharding's dimensions")
			break
		}
	}
	for s.got(',') {
		at := s.off
		switch kw := s.ident(); kw {
		case "replicated", "unreduced":
			s.want('=', "after "+kw)
			s.want('{', "opening the "+kw+" axes")
			if kw == "replicated" {
				t.Replicated = p.sdyAxisSet()
			} else {
				t.Unreduced = p.sdyAxisSet()
			}
		default:
			s.failAt(at, "unexpected %q in a sharding", kw)
		}
	}
	s.want('>', "closing a sharding")
	return t
}

// sdyShardingList reads [<...>, <...>] of sharding bodies.
func (p *parser) sdyShardingList() Shardings {
	s := &p.scan
	s.want('[', "opening a list of shardings")
	out := Shardings{}
	for !s.got(']') {
		s.want('<', "opening a sharding")
		out = append(out, p.sdyShardingBody())
		if !s.got(',') {
			s.want(']', "closing a list of shardings")
			break
		}
	}
	return out
}

// sdyManualAxes reads {"a", "b"} after its '{'.
func (p *parser) sdyManualAxes() ManualAxes {
	s := &p.scan
	out := ManualAxes{}
	for !s.got('}') {
		out = append(out, s.str())
		if !s.got(',') {
			s.want('}', "closing the manual axes")
			break
		}
	}
	return out
}

// sdyAttr reads the attribute after "#sdy.name<" or "#sdy<": #sdy.sharding, #sdy.sharding_per_value,
// #sdy.mesh and #sdy<manual_axes{...}>; nil for other Shardy attributes (sharding rules, kept as written).
func (p *parser) sdyAttr(name string) Attr {
	s := &p.scan
	switch name {
	case "sdy.sharding":
		return p.sdyShardingBody()
	case "sdy.sharding_per_value":
		l := p.sdyShardingList()
		s.want('>', "closing #sdy.sharding_per_value")
		return l
	case "sdy.mesh":
		return p.sdyMeshBody()
	case "sdy":
		save := s.off
		if s.ident() == "manual_axes" && s.got('{') {
			m := p.sdyManualAxes()
			s.want('>', "closing #sdy<manual_axes")
			return m
		}
		s.off = save
	}
	return nil
}

// sdyModuleMesh reads "@name = <...> {attributes}" of an sdy.mesh in a module's body, after its keyword
// (at start).
func (p *parser) sdyModuleMesh(m *Module, start int) {
	s := &p.scan
	if s.peek() != '@' {
		s.fail("expected the mesh's @name, found %s", s.describe())
	}
	s.off++
	name := s.suffixID()
	s.want('=', "after the mesh's name")
	if s.got('#') {
		if s.ident() != "sdy.mesh" {
			s.fail("expected #sdy.mesh")
		}
	}
	s.want('<', "opening the mesh")
	mesh := p.sdyMeshBody()
	var attrs []NamedAttr
	if s.peek() == '{' {
		attrs = p.dict()
	}
	p.trailingLoc()
	p.addMesh(m, NamedMesh{name, mesh, attrs, s.pos(start)}, start)
}

// addMesh adds a mesh to a module's, refusing a second symbol of its name.
func (p *parser) addMesh(m *Module, nm NamedMesh, at int) {
	p.addSymbol(m, nm.Name, at)
	m.Meshes = append(m.Meshes, nm)
}

// genericMesh makes a NamedMesh of an sdy.mesh written in the generic form: sym_name and mesh are its
// properties, any other attribute is kept with it.
func (p *parser) genericMesh(op *Op) NamedMesh {
	name, _ := op.Attr("sym_name").(StringAttr)
	mesh, ok := op.Attr("mesh").(*Mesh)
	if name == "" || !ok {
		p.failAt(p.file.Offset(op.Pos), "sdy.mesh without a sym_name and a mesh")
	}
	nm := NamedMesh{Name: string(name), Mesh: mesh, Pos: op.Pos}
	for _, a := range op.Attrs {
		if a.Name != "sym_name" && a.Name != "mesh" {
			nm.Attrs = append(nm.Attrs, a)
		}
	}
	return nm
}

// sdyOp reads the custom form of an sdy op after its name: operands, the block arguments of a region
// "(%arg1: tensor<2xf32>)" and the region, a sharding "<@mesh, [...]>", axis lists "[{"x"}, {}]" or
// {"x"}, keyword = value pairs, an attribute dictionary, then ": signature".
func (p *parser) sdyOp(op *Op) {
	s := &p.scan
	if op.Name == "sdy.constant" {
		p.pretty(op)
		return
	}
	if s.off < len(s.src) && s.src[s.off] == '<' { // sdy.named_computation<"name">
		s.off++
		op.Attrs = append(op.Attrs, NamedAttr{"name", StringAttr(s.str())})
		s.want('>', "closing the computation's name")
	}
	var args []*Value
	sawOperands, sawArgs := false, false
	for {
		switch c := s.peek(); {
		case c == '%':
			op.Operands = append(op.Operands, p.valueRef())
		case c == ',':
			s.off++
		case c == '(' && !sawOperands:
			s.off++
			sawOperands = true
			for !s.got(')') {
				op.Operands = append(op.Operands, p.valueRef())
				if !s.got(',') {
					s.want(')', "closing the operands")
					break
				}
			}
		case c == '(':
			s.off++
			sawArgs = true
			args = p.sdyBlockArgs()
		case c == '{' && sawArgs:
			op.Regions = append(op.Regions, p.regionBody(args))
			sawArgs = false
		case c == '{' && p.sdyAxisSetAhead():
			s.off++
			op.Attrs = append(op.Attrs, NamedAttr{attrAxes, RawAttr(axisList(p.sdyAxisSet()))})
		case c == '{':
			op.Attrs = append(op.Attrs, p.dict()...)
		case c == '[':
			start := s.off
			s.off++
			s.skipBalanced(']')
			op.Attrs = append(op.Attrs, NamedAttr{attrAxes, RawAttr(s.src[start:s.off])})
		case c == '<':
			s.off++
			op.Attrs = append(op.Attrs, NamedAttr{"sharding", p.sdyShardingBody()})
		case c == ':':
			s.off++
			p.signature(op)
			return
		case isIdentStart(c):
			save := s.off
			word := s.ident()
			if word == "loc" && s.peek() == '(' {
				s.off = save
				return
			}
			if !s.got('=') {
				if s.lineBreakBefore(save) {
					s.off = save
					return
				}
				op.Words = append(op.Words, word)
				break
			}
			op.Attrs = append(op.Attrs, NamedAttr{word, p.sdyValue()})
		default:
			if c == '}' || c == 0 {
				return
			}
			s.fail("%s: unexpected %s", op.Name, s.describe())
		}
	}
}

// attrAxes is the internal attribute name of the axes an sdy collective names positionally.
const attrAxes = "@axes"

// sdyAxisSetAhead reports whether the '{' ahead opens a list of axis names ({"x", "y"}) rather than an
// attribute dictionary ({name = value}).
func (p *parser) sdyAxisSetAhead() bool {
	s := &p.scan
	save := s.off
	defer func() { s.off = save }()
	s.off++
	if s.peek() != '"' {
		return false
	}
	s.str()
	c := s.peek()
	return c == ',' || c == '}' || c == ':'
}

// sdyValue reads the value of a keyword of an sdy op: a sharding <...>, a list of shardings [<...>],
// manual axes {"a"}, or any other attribute.
func (p *parser) sdyValue() Attr {
	s := &p.scan
	switch s.peek() {
	case '<':
		s.off++
		return p.sdyShardingBody()
	case '[':
		if s.peekAt(1) == '<' || s.peekAt(1) == ']' {
			return p.sdyShardingList()
		}
	case '{':
		s.off++
		return p.sdyManualAxes()
	}
	return p.prettyValue()
}

// sdyBlockArgs reads the typed block arguments of an sdy op's region after the '(': %a: type, ...).
func (p *parser) sdyBlockArgs() []*Value {
	s := &p.scan
	args := []*Value{}
	for !s.got(')') {
		at := s.off
		if s.peek() != '%' {
			s.fail("expected a block argument, found %s", s.describe())
		}
		s.off++
		v := &Value{Name: "%" + s.suffixID(), Index: len(args), Pos: s.pos(at)}
		s.want(':', "after a block argument")
		v.Type, v.Quant = p.typ()
		p.trailingLoc()
		args = append(args, v)
		if !s.got(',') {
			s.want(')', "closing the block arguments")
			break
		}
	}
	return args
}

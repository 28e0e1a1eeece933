package stablehlo

import (
	"fmt"
	"go/token"
	"slices"
	"sort"
	"strconv"
	"strings"

	"octet/hlo"
	hloparser "octet/hlo/parser"
	"octet/hlo/printer"
)

// What the conversion keeps of the attributes XLA's translation keeps: shardings (mhlo.sharding, and
// Shardy's sdy.sharding as XLA's round-trip export writes it), frontend attributes, the entry's buffer
// aliasing and donation, memory kinds and layouts. Every other attribute an op's conversion does not read
// is reported by name (leftOut): an error by default, a note when the caller asked to go on.

// leftOut reports something the conversion does not carry into HLO: an error at pos in a strict
// conversion, a note otherwise.
func (c *converter) leftOut(pos token.Pos, format string, args ...any) {
	if c.strict {
		c.fail(pos, format, args...)
	}
	c.notes.Add(c.fset.Position(pos), fmt.Sprintf(format, args...))
}

// IgnoredLikeXLA ends the note of an attribute that the conversion leaves out because XLA's translation
// ignores it too (a discardable attribute of a dialect XLA does not read, or a custom call's own
// annotation): such a note is a warning even in a strict conversion.
const IgnoredLikeXLA = " (XLA's translation ignores it too)"

// xlaReadsDiscardable are the dialect-prefixed attributes XLA's translation reads; any other
// dialect-prefixed attribute of an op it ignores.
var xlaReadsDiscardable = map[string]bool{
	"mhlo.sharding": true, "mhlo.frontend_attributes": true, "mhlo.original_value": true, "mhlo.backend_config": true,
	"mhlo.literal": true, "mhlo.layout_mode": true, "mhlo.memory_kind": true, "mhlo.parameter_replication": true,
	"mhlo.is_same_data_across_replicas": true, "mhlo.attributes": true,
	// module attributes XLA's translation reads into the module's configuration
	"mhlo.spmd_output_sharding": true, "mhlo.spmd_parameters_shardings": true, "mhlo.input_output_alias": true,
	"mhlo.xla_entry_computation_parameter_layouts": true, "mhlo.xla_entry_computation_parameter_tiles": true,
	"mhlo.xla_entry_computation_result_layout": true, "mhlo.xla_entry_computation_result_tiles": true,
	"mhlo.allow_spmd_sharding_propagation_to_output": true, "mhlo.allow_spmd_sharding_propagation_to_parameters": true,
	"tf.aliasing_output": true, "jax.buffer_donor": true,
}

// unconverted reports an attribute the conversion leaves out: with a warning when XLA's translation
// ignores it too (a dialect-prefixed attribute it does not read), else as leftOut does.
func (c *converter) unconverted(pos token.Pos, name, format string, args ...any) {
	if strings.Contains(name, ".") && !xlaReadsDiscardable[name] && !strings.HasPrefix(name, "sdy.") && !strings.HasPrefix(name, "xla.sdy.") {
		c.notes.Add(c.fset.Position(pos), fmt.Sprintf(format, args...)+IgnoredLikeXLA)
		return
	}
	c.leftOut(pos, format, args...)
}

// customCallOwn are the attributes of custom_call itself; XLA's translation ignores any other.
var customCallOwn = map[string]bool{
	"call_target_name": true, "has_side_effect": true, "backend_config": true, "api_version": true,
	"called_computations": true, "operand_layouts": true, "result_layouts": true, "output_operand_aliases": true,
	"custom_call_schedule": true,
}

// ignoredByXLA reports whether XLA's translation ignores attribute name of op: a dialect-prefixed one it
// does not read (Shardy's are read by its export), or one a custom call does not define.
func ignoredByXLA(op *Op, name string) bool {
	if strings.HasPrefix(name, "sdy.") || strings.HasPrefix(name, "xla.sdy.") || xlaReadsDiscardable[name] {
		return false
	}
	if strings.Contains(name, ".") {
		return true
	}
	return op.Name == "stablehlo.custom_call" && !customCallOwn[name]
}

// droppedLikeXLA are the attributes XLA's translation itself drops, with the reason; the conversion
// drops them too, without a note.
var droppedLikeXLA = map[string]string{
	"jax.result_info":                 "JAX's name for a result; XLA's translation does not read it",
	"jax.uses_shape_polymorphism":     "a note of JAX's exporter; XLA's translation does not read it",
	"jax.global_constant":             "JAX's name for a dimension variable; XLA's translation does not read it",
	"mhlo.layout_mode":                "read below for an explicit layout; \"default\" is the default layout",
	"mhlo.is_dynamic":                 "XLA's translation does not read it",
	"mhlo.cross_program_prefetches":   "XLA's translation does not read it",
	"mhlo.use_auto_spmd_partitioning": "a compiler option; XLA's translation does not write it into the module",
	"xla_shape":                       "the result's shape as XLA writes it; the conversion takes shapes from the types",
	"sym_visibility":                  "the visibility of a function; HLO has none",
	"sym_name":                        "the name of a function or module, converted as its name",
	"function_type":                   "the signature of a function, converted as its parameters and result",
	"arg_attrs":                       "the argument attributes of a generic function, converted with its parameters",
	"res_attrs":                       "the result attributes of a generic function, converted with its result",
}

// shardingString converts an mhlo.sharding value: HLO text ({devices=[2,1]0,1}), or the bytes of an
// OpSharding proto as XLA also accepts; "" is the default OpSharding, replicated.
func shardingString(v string) (string, error) {
	t := strings.TrimSpace(v)
	if strings.HasPrefix(t, "{") {
		depth := 0
		for _, r := range t {
			switch r {
			case '{':
				depth++
			case '}':
				depth--
			}
			if depth < 0 {
				break
			}
		}
		if depth != 0 || !strings.HasSuffix(t, "}") {
			return "", fmt.Errorf("unbalanced braces in sharding %q", v)
		}
		return t, nil
	}
	return opShardingFromProto([]byte(v), 0)
}

// decodedSharding returns the sharding value of HLO text.
func decodedSharding(text string) *hlo.Sharding { return hloparser.DecodeSharding(text) }

// escapeFrontend writes a frontend attribute value as HLO text quotes it.
func escapeFrontend(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; ch {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(ch)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if ch < 0x20 || ch == 0x7f {
				fmt.Fprintf(&b, `\%03o`, ch)
			} else {
				b.WriteByte(ch)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// frontend is a set of frontend attributes being built: key to unescaped value.
type frontend map[string]string

// value returns the attributes as HLO holds them, sorted by key as XLA prints them.
func (f frontend) value() hlo.FrontendAttributes {
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(hlo.FrontendAttributes, len(keys))
	for i, k := range keys {
		out[i] = hlo.KV{Key: k, Value: escapeFrontend(f[k])}
	}
	return out
}

// addFrontend merges f into the frontend attributes of in.
func addFrontend(in *hlo.Instruction, f frontend) {
	if len(f) == 0 {
		return
	}
	all := frontend{}
	if old, ok := in.Attr("frontend_attributes").(hlo.FrontendAttributes); ok {
		for _, kv := range old {
			v, _ := old.Get(kv.Key)
			all[kv.Key] = v
		}
	}
	for k, v := range f {
		all[k] = v
	}
	in.SetAttr("frontend_attributes", all.value())
}

// frontendDict reads an mhlo.frontend_attributes dictionary: string values, or other attributes written
// as MLIR prints them.
func (c *converter) frontendDict(pos token.Pos, a Attr) frontend {
	d, ok := a.(DictAttr)
	if !ok {
		c.leftOut(pos, "mhlo.frontend_attributes is not a dictionary")
		return nil
	}
	f := frontend{}
	for _, kv := range d {
		if s, ok := kv.Value.(StringAttr); ok {
			f[kv.Name] = string(s)
		} else {
			f[kv.Name] = mlirAttr(kv.Value)
		}
	}
	return f
}

// meshOf returns the mesh of a sharding: inline, or the module's mesh it names.
func (c *converter) meshOf(pos token.Pos, t *TensorSharding) *Mesh {
	if t.Mesh != nil {
		return t.Mesh
	}
	for _, m := range c.mod.Meshes {
		if m.Name == t.MeshRef {
			return m.Mesh
		}
	}
	c.fail(pos, "sharding names mesh @%s, which the module does not define", t.MeshRef)
	return nil
}

// sdySharding returns the HLO sharding text XLA's export makes of one Shardy sharding.
func (c *converter) sdySharding(pos token.Pos, t *TensorSharding, rank int) string {
	return c.sdyShardingManual(pos, t, rank, c.manual)
}

// sdyShardingManual is sdySharding with the manual axes given (XLA's export reads them from an
// xla.sdy.manual_axes attribute next to the sharding).
func (c *converter) sdyShardingManual(pos token.Pos, t *TensorSharding, rank int, manual []string) string {
	mesh := c.meshOf(pos, t)
	if rank >= 0 && len(t.Dims) != rank && len(mesh.Axes) > 0 {
		c.fail(pos, "sharding %s has %d dimensions for a value of rank %d", t, len(t.Dims), rank)
	}
	h, err := toHLOSharding(t, mesh, manual)
	if err != nil {
		c.fail(pos, "sharding %s: %v", t, err)
	}
	return h.String()
}

// shardingsText returns the HLO sharding of values of the given shapes: one sharding, or a tuple of them.
func (c *converter) shardingsText(pos token.Pos, s Shardings, shapes []hlo.Shape) string {
	return c.shardingsTextManual(pos, s, shapes, c.manual)
}

// shardingsTextManual is shardingsText with the manual axes given.
func (c *converter) shardingsTextManual(pos token.Pos, s Shardings, shapes []hlo.Shape, manual []string) string {
	if len(s) != len(shapes) {
		c.fail(pos, "%d shardings for %d values", len(s), len(shapes))
	}
	parts := make([]string, len(s))
	for i, t := range s {
		parts[i] = c.sdyShardingManual(pos, t, rankOf(shapes[i]), manual)
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return printer.TupleSharding(parts)
}

// fitsShape reports whether a sharding can apply to a value of shape s: a tiled sharding has one tile
// dimension per dimension of an array, besides its subgroup dimensions.
func fitsShape(h *hlo.Sharding, s hlo.Shape) bool {
	if h.Tuple != nil {
		return !s.IsTuple() || len(h.Tuple) == len(s.Tuple) || len(s.Tuple) == 0
	}
	if h.TileDims == nil || !s.IsArray() {
		return true
	}
	extra := len(h.LastTileDims)
	if h.LastTileDimReplicate {
		extra++
	}
	return len(h.TileDims)-extra == s.Rank()
}

func rankOf(s hlo.Shape) int {
	if s.IsArray() {
		return s.Rank()
	}
	return -1
}

// setSharding gives in the sharding text, and the elements of a tuple sharding to the get-tuple-elements
// that take in apart. One sharding for a tuple applies to each of its elements, as XLA reads it.
func setSharding(in *hlo.Instruction, text string) {
	s := decodedSharding(text)
	if in.Shape.IsTuple() && s.Tuple == nil && len(in.Shape.Tuple) > 0 {
		parts := make([]string, len(in.Shape.Tuple))
		for i := range parts {
			parts[i] = s.Text
		}
		s = decodedSharding(printer.TupleSharding(parts))
	}
	in.SetAttr("sharding", s)
	if !in.Shape.IsTuple() || len(s.Tuple) != len(in.Shape.Tuple) {
		return
	}
	for _, u := range in.Users() {
		if u.Opcode != hlo.OpGetTupleElement {
			continue
		}
		if i, ok := u.Attr("index").(hlo.Int); ok && int(i) < len(s.Tuple) && u.Attr("sharding") == nil {
			u.SetAttr("sharding", decodedSharding(s.Tuple[i].Text))
		}
	}
}

// keepOpAttrs converts the attributes every op may carry, once the op is converted into the
// instructions of sc's computation from start on, in the last (the one holding its results): shardings
// and frontend attributes. Attributes the op's conversion did not read are then reported.
func (c *converter) keepOpAttrs(sc *scope, op *Op, in *hlo.Instruction, start int) {
	op.markUsed("") // the op was converted: its attributes are accounted for below
	op.used.converted = true
	created := sc.comp.Instructions[start:]
	f := frontend{}
	if a := op.Attr("mhlo.frontend_attributes"); a != nil {
		for k, v := range c.frontendDict(op.Pos, a) {
			f[k] = v
		}
	}
	var sharding string
	if a := op.Attr("sdy.sharding"); a != nil {
		s, ok := a.(Shardings)
		if !ok {
			c.fail(op.Pos, "%s: sdy.sharding is not a #sdy.sharding_per_value", op.Name)
		}
		if in != nil {
			shapes := op.OutTypes
			if len(op.Results) == 0 && len(s) == 1 {
				shapes = []hlo.Shape{in.Shape}
			}
			manual := c.manual
			if m, ok := op.Attr("xla.sdy.manual_axes").(ManualAxes); ok {
				manual = m
			}
			sharding = c.shardingsTextManual(op.Pos, s, shapes, manual)
			f["xla.sdy.sharding"] = s.String()
		}
	}
	if a := op.Attr("mhlo.sharding"); a != nil && sharding == "" {
		text, ok := a.(StringAttr)
		if !ok {
			c.fail(op.Pos, "%s: mhlo.sharding is not a string", op.Name)
		}
		s, err := shardingString(string(text))
		if err != nil {
			c.fail(op.Pos, "%s: mhlo.sharding: %v", op.Name, err)
		}
		sharding = s
	}
	if st, ok := op.Attr("result_accuracy").(StructAttr); ok && !defaultAccuracy(st) {
		// XLA keeps an accuracy other than the default; Octet has no HLO form for it yet.
		op.used.names["result_accuracy"] = false
	}
	if a := op.Attr("sdy.sharding_rule"); a != nil {
		f["xla.sdy.sharding_rule"] = mlirAttr(a)
	}
	if in != nil && sharding != "" && !fitsShape(decodedSharding(sharding), in.Shape) {
		// XLA's translation drops a sharding whose tiles do not fit the value's rank.
		c.leftOut(op.Pos, "%s: sharding %s does not fit %s; it is left out, as XLA's translation leaves it", op.Name, sharding, typeString(in.Shape))
		sharding = ""
	}
	if in != nil && sharding != "" {
		// As XLA's builder does, every instruction made for the op that has its result's shape (the tuple
		// of a variadic op's operands, say) carries its sharding.
		for _, x := range created {
			if x != in && x.Shape.Equal(in.Shape) && x.Opcode != hlo.OpParameter {
				setSharding(x, sharding)
			}
		}
		setSharding(in, sharding)
	}
	if len(f) > 0 {
		if len(created) == 0 && in != nil {
			created = []*hlo.Instruction{in}
		}
		for _, x := range created {
			addFrontend(x, f)
		}
	}
	for _, a := range op.Attrs {
		if strings.HasPrefix(a.Name, "@") || op.wasUsed(a.Name) {
			continue
		}
		if _, ok := droppedLikeXLA[a.Name]; ok {
			continue
		}
		if ignoredByXLA(op, a.Name) {
			c.notes.Add(c.fset.Position(op.Pos), fmt.Sprintf("%s: attribute %s is not converted%s", op.Name, a.Name, IgnoredLikeXLA))
		} else {
			c.leftOut(op.Pos, "%s: attribute %s is not converted", op.Name, a.Name)
		}
		op.markNoted(a.Name)
	}
}

// defaultAccuracy reports whether a #stablehlo.result_accuracy asks for the default accuracy, which XLA's
// translation leaves out.
func defaultAccuracy(st StructAttr) bool {
	mode := word(&Op{Attrs: st.Fields}, "mode")
	if m, ok := lookup(st.Fields, "mode").(StructAttr); ok {
		mode = m.Raw
	}
	if mode != "DEFAULT" {
		return false
	}
	for _, f := range []string{"atol", "rtol", "ulps"} {
		switch v := lookup(st.Fields, f).(type) {
		case FloatAttr:
			if v.V != 0 {
				return false
			}
		case IntAttr:
			if v.V != 0 {
				return false
			}
		}
	}
	return true
}

// valueAttrs are what the attributes of a function's parameter or result say.
type valueAttrs struct {
	sharding string   // HLO text; "" when none
	frontend frontend // nil when none
	memory   int64    // memory space of the layout; 0 is the device's
	layout   []int64  // minor-to-major order of an explicit mhlo.layout_mode; nil for the default
	donor    bool     // jax.buffer_donor
	aliasOut int64    // tf.aliasing_output: the result it aliases; -1 when none
	same     bool     // mhlo.is_same_data_across_replicas
	// replication is mhlo.parameter_replication: one flag per leaf of the parameter; nil when unset.
	replication []bool
}

// readValueAttrs reads the attributes of parameter or result i of fn.
func (c *converter) readValueAttrs(fn *Func, attrs []NamedAttr, shape hlo.Shape, what string) valueAttrs {
	v := valueAttrs{aliasOut: -1}
	var sdy *TensorSharding
	manual := c.manual
	for _, a := range attrs {
		switch a.Name {
		case "xla.sdy.manual_axes":
			m, ok := a.Value.(ManualAxes)
			if !ok {
				c.fail(fn.Pos, "@%s: %s: xla.sdy.manual_axes is not #sdy<manual_axes{...}>", fn.Name, what)
			}
			manual = m
		case "sdy.sharding":
			t, ok := a.Value.(*TensorSharding)
			if !ok {
				c.fail(fn.Pos, "@%s: %s: sdy.sharding is not a #sdy.sharding", fn.Name, what)
			}
			sdy = t
		case "mhlo.sharding":
			text, ok := a.Value.(StringAttr)
			if !ok {
				c.fail(fn.Pos, "@%s: %s: mhlo.sharding is not a string", fn.Name, what)
			}
			s, err := shardingString(string(text))
			if err != nil {
				c.fail(fn.Pos, "@%s: %s: mhlo.sharding: %v", fn.Name, what, err)
			}
			v.sharding = s
		case "mhlo.frontend_attributes":
			v.frontend = c.frontendDict(fn.Pos, a.Value)
		case "mhlo.memory_kind":
			kind, _ := a.Value.(StringAttr)
			switch kind {
			case "device":
			case "pinned_host", "unpinned_host":
				v.memory = hostMemorySpace
			default:
				c.leftOut(fn.Pos, "@%s: %s: mhlo.memory_kind %q is not a memory kind Octet knows (device, pinned_host, unpinned_host)", fn.Name, what, string(kind))
			}
		case "mhlo.layout_mode":
			mode, _ := a.Value.(StringAttr)
			switch {
			case mode == "default":
			case strings.HasPrefix(string(mode), "{"):
				var l []int64
				for _, f := range strings.Split(strings.Trim(string(mode), "{}"), ",") {
					n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
					if err != nil {
						c.fail(fn.Pos, "@%s: %s: mhlo.layout_mode %q is not a layout", fn.Name, what, string(mode))
					}
					l = append(l, n)
				}
				if !isPermutation(l, rankOf(shape)) {
					c.fail(fn.Pos, "@%s: %s: mhlo.layout_mode %q does not fit %s", fn.Name, what, string(mode), typeString(shape))
				}
				v.layout = l
			default:
				c.leftOut(fn.Pos, "@%s: %s: mhlo.layout_mode %q (a layout the compiler chooses) has no HLO form", fn.Name, what, string(mode))
			}
		case "jax.buffer_donor":
			v.donor = a.Value == Attr(BoolAttr(true))
		case "tf.aliasing_output":
			n, ok := a.Value.(IntAttr)
			if !ok || n.V < 0 {
				c.fail(fn.Pos, "@%s: %s: tf.aliasing_output is not a result number", fn.Name, what)
			}
			v.aliasOut = n.V
		case "mhlo.is_same_data_across_replicas":
			v.same = a.Value == Attr(BoolAttr(true))
		case "mhlo.parameter_replication":
			l, ok := a.Value.(ListAttr)
			if !ok {
				c.fail(fn.Pos, "@%s: %s: mhlo.parameter_replication is not a list", fn.Name, what)
			}
			for _, e := range l {
				b, _ := e.(BoolAttr)
				v.replication = append(v.replication, bool(b))
			}
		default:
			if _, ok := droppedLikeXLA[a.Name]; !ok {
				c.unconverted(fn.Pos, a.Name, "@%s: %s: attribute %s is not converted", fn.Name, what, a.Name)
			}
		}
	}
	if sdy != nil {
		v.sharding = c.sdyShardingManual(fn.Pos, sdy, rankOf(shape), manual)
		if v.frontend == nil {
			v.frontend = frontend{}
		}
		v.frontend["xla.sdy.sharding"] = sdy.String()
	}
	return v
}

// hostMemorySpace is the memory space of host memory in XLA's layouts (S(5)).
const hostMemorySpace = 5

func isPermutation(l []int64, rank int) bool {
	if len(l) != rank {
		return false
	}
	seen := make([]bool, rank)
	for _, d := range l {
		if d < 0 || int(d) >= rank || seen[d] {
			return false
		}
		seen[d] = true
	}
	return true
}

// withLayout returns s with the memory space and minor-to-major order of v.
func (v valueAttrs) withLayout(s hlo.Shape) hlo.Shape {
	if v.memory == 0 && v.layout == nil || !s.IsArray() {
		return s
	}
	s = s.Clone()
	l := hlo.DefaultLayout(s.Rank())
	if s.Layout != nil {
		l = s.Layout.Clone()
	}
	if v.layout != nil {
		l.MinorToMajor = append([]int64(nil), v.layout...)
	}
	l.MemorySpace = v.memory
	s.Layout = &l
	return s
}

// keepFuncAttrs converts the attributes of fn's parameters and results into comp: shardings and
// frontend attributes of the parameters, the sharding of the root (a tuple sharding for several results,
// {replicated} for those without one), and for each result with a Shardy sharding the
// xla.sdy.FuncResultSharding custom call XLA's round-trip export puts before it. For the entry, it
// returns the parameters' and results' attributes for the module's header.
func (c *converter) keepFuncAttrs(fn *Func, comp *hlo.Computation) (params, results []valueAttrs) {
	params = make([]valueAttrs, len(comp.Params))
	for i, p := range comp.Params {
		var attrs []NamedAttr
		if i < len(fn.ParamAttrs) {
			attrs = fn.ParamAttrs[i]
		}
		v := c.readValueAttrs(fn, attrs, p.Shape, "parameter "+strconv.Itoa(i))
		params[i] = v
		if v.sharding != "" {
			setSharding(p, v.sharding)
		}
		addFrontend(p, v.frontend)
		p.Shape = v.withLayout(p.Shape)
	}
	results = make([]valueAttrs, len(fn.Results))
	var shardings []string
	anySharded := false
	for i := range fn.Results {
		var attrs []NamedAttr
		if i < len(fn.ResultAttrs) {
			attrs = fn.ResultAttrs[i]
		}
		var sdy *TensorSharding
		for _, a := range attrs {
			if t, ok := a.Value.(*TensorSharding); ok && a.Name == "sdy.sharding" {
				sdy = t
			}
		}
		v := c.readValueAttrs(fn, attrs, fn.Results[i], "result "+strconv.Itoa(i))
		results[i] = v
		if sdy != nil {
			c.funcResultSharding(comp, i, len(fn.Results), sdy)
		}
		shardings = append(shardings, v.sharding)
		anySharded = anySharded || v.sharding != ""
		if len(v.frontend) > 0 && sdy == nil {
			c.leftOut(fn.Pos, "@%s: result %d: mhlo.frontend_attributes has no HLO form (XLA's translation drops them too)", fn.Name, i)
		}
	}
	if anySharded {
		if len(shardings) == 1 {
			setSharding(comp.Root, shardings[0])
		} else {
			for i, s := range shardings {
				if s == "" {
					shardings[i] = "{replicated}"
				}
			}
			setSharding(comp.Root, printer.TupleSharding(shardings))
		}
	}
	return params, results
}

// funcResultSharding puts the custom call xla.sdy.FuncResultSharding, holding the Shardy sharding of
// result i, between the value the function returns there and its root.
func (c *converter) funcResultSharding(comp *hlo.Computation, i, n int, t *TensorSharding) {
	root := comp.Root
	var val *hlo.Instruction
	switch {
	case n == 1:
		val = root
	case root.Opcode == hlo.OpTuple && i < root.NumOperands():
		val = root.Operand(i)
	default:
		return
	}
	cc := comp.Add(c.name("custom-call"), hlo.OpCustomCall, val.Shape.Clone(), val)
	cc.Pos = val.Pos
	cc.SetAttr("custom_call_target", hlo.String("xla.sdy.FuncResultSharding"))
	cc.SetAttr("custom_call_has_side_effect", hlo.Bool(true))
	addFrontend(cc, frontend{"xla.sdy.sharding": Shardings{t}.String()})
	if n == 1 {
		comp.Root = cc
		// The root is now after the instruction it takes, so that the text stays in order.
		return
	}
	// Keep the tuple last: move it after the new custom call.
	root.SetOperand(i, cc)
	moveToEnd(comp, root)
}

// moveToEnd moves in to the end of its computation's instruction list.
func moveToEnd(comp *hlo.Computation, in *hlo.Instruction) {
	for k, x := range comp.Instructions {
		if x == in {
			copy(comp.Instructions[k:], comp.Instructions[k+1:])
			comp.Instructions[len(comp.Instructions)-1] = in
			return
		}
	}
}

// keepModuleAttrs converts the module's attributes and the entry's parameter and result attributes into
// the header of out, in the order XLA prints it: input_output_alias, buffer_donor,
// entry_computation_layout, replica_count, num_partitions, frontend_attributes.
func (c *converter) keepModuleAttrs(params, results []valueAttrs) {
	m := c.mod
	f := frontend{}
	var header []hlo.Attr
	var replicas, partitions int64 = 1, 1
	for _, a := range m.Attrs {
		switch a.Name {
		case "mhlo.num_partitions", "mhlo.num_replicas":
			v, ok := a.Value.(IntAttr)
			if !ok || v.V < 1 {
				c.fail(m.Pos, "module attribute %s is not a positive integer", a.Name)
			}
			if a.Name == "mhlo.num_partitions" {
				partitions = v.V
			} else {
				replicas = v.V
			}
		case "mhlo.frontend_attributes":
			for k, v := range c.frontendDict(m.Pos, a.Value) {
				f[k] = v
			}
		default:
			if _, ok := droppedLikeXLA[a.Name]; !ok {
				c.unconverted(m.Pos, a.Name, "module attribute %s is not converted", a.Name)
			}
		}
	}
	for _, nm := range m.Meshes {
		c.keepMeshAttrs(nm)
	}
	if len(m.Meshes) > 0 {
		parts := make([]string, len(m.Meshes))
		names := make([]NamedMesh, len(m.Meshes))
		copy(names, m.Meshes)
		sort.Slice(names, func(i, j int) bool { return names[i].Name < names[j].Name })
		for i, nm := range names {
			parts[i] = nm.Name + " = #sdy.mesh<" + nm.Mesh.String() + ">"
		}
		f["xla.sdy.meshes"] = "{" + strings.Join(parts, ", ") + "}"
	}
	var aliasing hlo.InputOutputAliasing
	var donors hlo.BufferDonors
	for i, p := range params {
		if p.aliasOut >= 0 {
			if int(p.aliasOut) >= len(results) {
				c.fail(m.Pos, "parameter %d aliases result %d; the entry has %d", i, p.aliasOut, len(results))
			}
			out := []int64{}
			if len(results) > 1 {
				out = []int64{p.aliasOut}
			}
			aliasing = append(aliasing, hlo.InputOutputAlias{Output: out, Parameter: int64(i), ParameterIndex: []int64{}, Kind: hlo.MayAlias})
		} else if p.donor {
			donors = append(donors, hlo.BufferDonor{Parameter: int64(i), ParameterIndex: []int64{}})
		}
	}
	if len(aliasing) > 0 {
		header = append(header, hlo.Attr{Name: "input_output_alias", Value: aliasing})
	}
	if len(donors) > 0 {
		header = append(header, hlo.Attr{Name: "buffer_donor", Value: donors})
	}
	ps := c.out.Entry.ProgramShape()
	for i := range ps.Params {
		if i < len(params) {
			ps.Params[i] = params[i].withLayout(ps.Params[i])
		}
	}
	if len(results) == 1 {
		ps.Result = results[0].withLayout(ps.Result)
	} else if ps.Result.IsTuple() && len(ps.Result.Tuple) == len(results) {
		for i := range results {
			ps.Result.Tuple[i] = results[i].withLayout(ps.Result.Tuple[i])
		}
	}
	header = append(header, hlo.Attr{Name: "entry_computation_layout", Value: &ps})
	if replicas != 1 {
		header = append(header, hlo.Attr{Name: "replica_count", Value: hlo.Int(replicas)})
	}
	if partitions != 1 {
		header = append(header, hlo.Attr{Name: "num_partitions", Value: hlo.Int(partitions)})
	}
	if len(f) > 0 {
		header = append(header, hlo.Attr{Name: "frontend_attributes", Value: f.value()})
	}
	for i, p := range c.out.Entry.Params {
		if i >= len(params) {
			break
		}
		flags := params[i].replication
		if params[i].same {
			flags = []bool{true}
		}
		if flags == nil {
			continue
		}
		parts := make([]string, len(flags))
		for k, f := range flags {
			parts[k] = strconv.FormatBool(f)
		}
		p.SetAttr("parameter_replication", hlo.Raw("{"+strings.Join(parts, ",")+"}"))
	}
	c.out.Attrs = header
}

// keepMeshAttrs accounts for the attributes written after a module's sdy.mesh. XLA's export keeps the
// mesh itself (in xla.sdy.meshes) and none of them. stablehlo.mesh, which Shardy's import adds to every
// named mesh, is a copy of the mesh in StableHLO's terms: it is left out when it says what the mesh says,
// and refused when it says something else, which would be lost. Any other attribute is reported.
func (c *converter) keepMeshAttrs(nm NamedMesh) {
	for _, a := range nm.Attrs {
		if a.Name != "stablehlo.mesh" {
			c.unconverted(nm.Pos, a.Name, "sdy.mesh @%s: attribute %s is not converted", nm.Name, a.Name)
			continue
		}
		if d, ok := a.Value.(DictAttr); !ok || !describesMesh(d, nm.Mesh) {
			c.leftOut(nm.Pos, "sdy.mesh @%s: stablehlo.mesh = %s does not describe the mesh <%s>", nm.Name, mlirAttr(a.Value), nm.Mesh)
		}
	}
}

// describesMesh reports whether d is the stablehlo.mesh dictionary of m: {axes = [{name = "x", size = 2},
// ...]}, with device_ids = dense<[...]> when m lists its devices.
func describesMesh(d DictAttr, m *Mesh) bool {
	axes, ok := lookup(d, "axes").(ListAttr)
	if !ok || len(axes) != len(m.Axes) {
		return false
	}
	for i, a := range axes {
		ad, ok := a.(DictAttr)
		name, okName := lookup(ad, "name").(StringAttr)
		size, okSize := lookup(ad, "size").(IntAttr)
		if !ok || len(ad) != 2 || !okName || !okSize || string(name) != m.Axes[i].Name || size.V != m.Axes[i].Size {
			return false
		}
	}
	want := 1
	if ids := lookup(d, "device_ids"); ids != nil {
		got, ok := attrInts(ids)
		if !ok || !slices.Equal(got, m.DeviceIDs) {
			return false
		}
		want = 2
	} else if len(m.DeviceIDs) > 0 {
		return false
	}
	return len(d) == want
}

// keepFuncOwnAttrs converts the attributes of a function itself: execution_thread becomes the
// computation's; the others XLA's translation drops are dropped, and any other is reported.
func (c *converter) keepFuncOwnAttrs(fn *Func, comp *hlo.Computation) {
	for _, a := range fn.Attrs {
		switch a.Name {
		case "execution_thread":
			if s, ok := a.Value.(StringAttr); ok {
				comp.Attrs = append(comp.Attrs, hlo.Attr{Name: "execution_thread", Value: hlo.String(string(s))})
				continue
			}
		}
		if _, ok := droppedLikeXLA[a.Name]; !ok {
			c.unconverted(fn.Pos, a.Name, "@%s: function attribute %s is not converted", fn.Name, a.Name)
		}
	}
}

// opShardingFromProto writes the OpSharding proto in b as HLO text, as XLA reads an mhlo.sharding that
// holds one.
func opShardingFromProto(b []byte, depth int) (string, error) {
	if depth > 16 {
		return "", fmt.Errorf("OpSharding nested too deep")
	}
	var (
		typ                    uint64
		dims, devices, reshape []int64
		perm                   []int64
		tuple                  []string
		lastRepl               bool
		lastTileDims           []int64
		bad                    = fmt.Errorf("mhlo.sharding is neither HLO text nor an OpSharding proto")
		readVarint             func() (uint64, bool)
		off                    int
	)
	readVarint = func() (uint64, bool) {
		var v uint64
		for shift := uint(0); shift < 64; shift += 7 {
			if off >= len(b) {
				return 0, false
			}
			c := b[off]
			off++
			v |= uint64(c&0x7f) << shift
			if c < 0x80 {
				return v, true
			}
		}
		return 0, false
	}
	ints := func(wire uint64, into *[]int64) bool {
		if wire == 0 {
			v, ok := readVarint()
			*into = append(*into, int64(v))
			return ok
		}
		if wire != 2 {
			return false
		}
		n, ok := readVarint()
		if !ok || n > uint64(len(b)-off) {
			return false
		}
		end := off + int(n)
		for off < end {
			v, ok := readVarint()
			if !ok {
				return false
			}
			*into = append(*into, int64(v))
		}
		return off == end
	}
	for off < len(b) {
		key, ok := readVarint()
		if !ok {
			return "", bad
		}
		field, wire := key>>3, key&7
		switch {
		case field == 1 && wire == 0:
			if typ, ok = readVarint(); !ok {
				return "", bad
			}
		case field == 3:
			if !ints(wire, &dims) {
				return "", bad
			}
		case field == 4:
			if !ints(wire, &devices) {
				return "", bad
			}
		case field == 5 && wire == 2:
			n, ok := readVarint()
			if !ok || n > uint64(len(b)-off) {
				return "", bad
			}
			s, err := opShardingFromProto(b[off:off+int(n)], depth+1)
			if err != nil {
				return "", err
			}
			tuple = append(tuple, s)
			off += int(n)
		case field == 6 && wire == 0:
			v, ok := readVarint()
			if !ok {
				return "", bad
			}
			lastRepl = v != 0
		case field == 8:
			if !ints(wire, &lastTileDims) {
				return "", bad
			}
		case field == 9:
			if !ints(wire, &reshape) {
				return "", bad
			}
		case field == 10:
			if !ints(wire, &perm) {
				return "", bad
			}
		default:
			// Skip a field Octet does not read (tile_shape, metadata, shard groups).
			switch wire {
			case 0:
				if _, ok := readVarint(); !ok {
					return "", bad
				}
			case 1:
				off += 8
			case 2:
				n, ok := readVarint()
				if !ok || n > uint64(len(b)-off) {
					return "", bad
				}
				off += int(n)
			case 5:
				off += 4
			default:
				return "", bad
			}
			if off > len(b) {
				return "", bad
			}
		}
	}
	switch typ {
	case 0:
		return "{replicated}", nil
	case 1:
		if len(devices) == 0 {
			return "", bad
		}
		return "{maximal device=" + strconv.FormatInt(devices[0], 10) + "}", nil
	case 2:
		return printer.TupleSharding(tuple), nil
	case 4:
		return "{manual}", nil
	case 5:
		return "{unknown}", nil
	case 6:
		return "{unreduced}", nil
	case 3:
	default:
		return "", bad
	}
	if len(dims) == 0 {
		return "", bad
	}
	t := &tileAssignment{dims: dims}
	if len(reshape) > 0 {
		t.reshape = reshape
		t.perm = make([]int, len(reshape))
		for i := range t.perm {
			t.perm[i] = i
			if i < len(perm) {
				t.perm[i] = int(perm[i])
			}
		}
	} else {
		if int64(len(devices)) != product(dims) {
			return "", bad
		}
		t.devices = devices
	}
	s := t.tiled()
	names := map[int64]string{0: "replicated", 4: "manual", 6: "unreduced", 1: "maximal"}
	switch {
	case lastRepl || len(lastTileDims) == 1 && lastTileDims[0] == 0:
		s.LastTileDimReplicate = true
	case len(lastTileDims) > 0:
		for _, d := range lastTileDims {
			s.LastTileDims = append(s.LastTileDims, names[d])
		}
	}
	return "{" + printer.TiledSharding(&s) + "}", nil
}

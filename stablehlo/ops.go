package stablehlo

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

// handler converts one op whose conversion needs more than its opcode: attributes, regions, or a
// different shape of operands. It returns the instruction holding the op's result (a tuple for several).
type handler func(c *converter, sc *scope, op *Op) *hlo.Instruction

// special holds the handlers, by StableHLO name; every other op of the op table converts one to one.
var special map[string]handler

func init() {
	special = map[string]handler{
		"stablehlo.constant":                 (*converter).constant,
		"stablehlo.broadcast_in_dim":         (*converter).broadcastInDim,
		"stablehlo.transpose":                intsOp(hlo.OpTranspose, "dimensions", "dims", "permutation"),
		"stablehlo.reverse":                  intsOp(hlo.OpReverse, "dimensions", "dims", "dimensions"),
		"stablehlo.dynamic_slice":            intsOp(hlo.OpDynamicSlice, "dynamic_slice_sizes", "sizes", "slice_sizes"),
		"stablehlo.reshape":                  plainOp(hlo.OpReshape),
		"stablehlo.dynamic_update_slice":     plainOp(hlo.OpDynamicUpdateSlice),
		"stablehlo.dot_general":              (*converter).dotGeneral,
		"stablehlo.dot":                      (*converter).dotGeneral,
		"stablehlo.compare":                  (*converter).compare,
		"stablehlo.iota":                     (*converter).iota,
		"stablehlo.slice":                    (*converter).slice,
		"stablehlo.concatenate":              (*converter).concatenate,
		"stablehlo.pad":                      (*converter).pad,
		"stablehlo.get_tuple_element":        (*converter).getTupleElement,
		"stablehlo.reduce":                   (*converter).reduce,
		"stablehlo.reduce_window":            (*converter).reduceWindow,
		"stablehlo.select_and_scatter":       (*converter).selectAndScatter,
		"stablehlo.reduce_precision":         (*converter).reducePrecision,
		"stablehlo.while":                    (*converter).while_,
		"stablehlo.sort":                     (*converter).sort,
		"stablehlo.gather":                   (*converter).gather,
		"stablehlo.scatter":                  (*converter).scatter,
		"stablehlo.custom_call":              (*converter).customCall,
		"func.call":                          (*converter).call,
		"stablehlo.fft":                      (*converter).fft,
		"stablehlo.rng_bit_generator":        (*converter).rngBitGenerator,
		"stablehlo.triangular_solve":         (*converter).triangularSolve,
		"stablehlo.cholesky":                 (*converter).cholesky,
		"stablehlo.case":                     (*converter).case_,
		"stablehlo.if":                       (*converter).if_,
		"chlo.tan":                           plainOp(hlo.OpTan),
		"chlo.top_k":                         (*converter).topK,
		"stablehlo.map":                      (*converter).map_,
		"stablehlo.select":                   (*converter).select_,
		"chlo.next_after":                    (*converter).nextAfter,
		"chlo.lgamma":                        (*converter).lgamma,
		"chlo.digamma":                       (*converter).digamma,
		"chlo.erf_inv":                       (*converter).erfInv,
		"chlo.bessel_i1e":                    (*converter).besselI1e,
		"chlo.mulhi":                         (*converter).mulhi,
		"stablehlo.uniform_quantize":         (*converter).uniformQuantize,
		"stablehlo.uniform_dequantize":       (*converter).uniformDequantize,
		"stablehlo.composite":                (*converter).composite,
		"stablehlo.dynamic_iota":             (*converter).dynamicIota,
		"stablehlo.dynamic_reshape":          (*converter).dynamicReshape,
		"stablehlo.dynamic_broadcast_in_dim": (*converter).dynamicBroadcastInDim,
		"stablehlo.get_dimension_size":       (*converter).getDimensionSize,
		"stablehlo.dynamic_pad":              (*converter).dynamicPad,
		"stablehlo.dynamic_gather":           (*converter).dynamicGather,
		"stablehlo.dynamic_conv":             (*converter).dynamicConv,
		"chlo.erfc":                          (*converter).erfc,
		"chlo.square":                        (*converter).square,
		"chlo.conj":                          (*converter).conj,
		"chlo.is_inf":                        isInf(0),
		"chlo.is_pos_inf":                    isInf(1),
		"chlo.is_neg_inf":                    isInf(-1),
		"chlo.constant":                      (*converter).constant,
		"chlo.zeta":                          (*converter).zeta,
		"chlo.polygamma":                     (*converter).polygamma,
		"stablehlo.convolution":              (*converter).convolution,
	}
}

// ints returns the integers of the first of the named attributes op has.
func ints(op *Op, names ...string) ([]int64, bool) {
	for _, n := range names {
		if a := op.Attr(n); a != nil {
			return attrInts(a)
		}
	}
	return nil, false
}

// attrInts reads a list, an array<i64: ...> or an integer dense<...> as integers.
func attrInts(a Attr) ([]int64, bool) {
	switch a := a.(type) {
	case *DenseAttr:
		if a.Literal == nil || a.Literal.Array == nil || !a.Type.Elem.IsInteger() && a.Type.Elem != dtype.PRED {
			return nil, false
		}
		return a.Literal.Array.Int64s(), true
	case IntAttr:
		return []int64{a.V}, true
	}
	return intList(a)
}

// integer returns the first of the named integer attributes op has.
func integer(op *Op, names ...string) (int64, bool) {
	for _, n := range names {
		switch a := op.Attr(n).(type) {
		case IntAttr:
			return a.V, true
		case FloatAttr:
			return int64(a.V), true
		}
	}
	return 0, false
}

// boolean returns the named boolean attribute; false when absent.
func boolean(op *Op, name string) bool {
	b, _ := op.Attr(name).(BoolAttr)
	return bool(b)
}

// word returns the first of the named enum attributes op has, as its bare word.
func word(op *Op, names ...string) string {
	for _, n := range names {
		switch a := op.Attr(n).(type) {
		case WordAttr:
			return string(a)
		case EnumAttr:
			return a.Word
		case StringAttr:
			return string(a)
		case StructAttr:
			// #mhlo.rng_algorithm<DEFAULT>: a bare word as its body.
			if a.Fields == nil && isBareWord(a.Raw) {
				return a.Raw
			}
		}
	}
	return ""
}

func isBareWord(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdentStart(s[i]) && !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// need fails unless ok, naming what op lacks.
func (c *converter) need(op *Op, ok bool, what string) {
	if !ok {
		c.fail(op.Pos, "%s: missing or malformed %s", op.Name, what)
	}
}

// plainOp converts an op without attributes to the opcode.
func plainOp(code hlo.Opcode) handler {
	return func(c *converter, sc *scope, op *Op) *hlo.Instruction {
		return c.add(sc, op, code, c.result(op), c.operands(sc, op)...)
	}
}

// intsOp converts an op with one integer-list attribute, named as in HLO and as in StableHLO.
func intsOp(code hlo.Opcode, hloName string, names ...string) handler {
	return func(c *converter, sc *scope, op *Op) *hlo.Instruction {
		v, ok := ints(op, names...)
		c.need(op, ok, names[len(names)-1])
		in := c.add(sc, op, code, c.result(op), c.operands(sc, op)...)
		in.SetAttr(hloName, hlo.Ints(v))
		return in
	}
}

// result is the shape of op's result, failing when the op has no result type.
func (c *converter) result(op *Op) hlo.Shape {
	if len(op.OutTypes) == 0 {
		c.fail(op.Pos, "%s without a result type", op.Name)
	}
	return resultShape(op)
}

// constant converts a constant; a splat of more than one element becomes a scalar constant broadcast to
// the shape, as XLA's translation writes it.
func (c *converter) constant(sc *scope, op *Op) *hlo.Instruction {
	d, ok := op.Attr("value").(*DenseAttr)
	c.need(op, ok, "dense value")
	if a := d.Literal.Array; a != nil && d.Type.IsArray() && a.NumElements() > 1 && !d.Type.Elem.IsComplex() {
		splat := true
		first := a.BitsAt(0)
		for i := int64(1); i < a.NumElements() && splat; i++ {
			splat = a.BitsAt(i) == first
		}
		if splat {
			k := c.add(sc, op, hlo.OpConstant, hlo.Scalar(d.Type.Elem))
			lit := tensor.New(d.Type.Elem, nil)
			lit.SetBitsAt(0, first)
			k.Literal = hlo.ArrayLiteral(lit)
			in := c.add(sc, op, hlo.OpBroadcast, d.Type, k)
			in.SetAttr("dimensions", hlo.Ints{})
			return in
		}
	}
	in := c.add(sc, op, hlo.OpConstant, d.Type)
	in.Literal = d.Literal
	return in
}

func (c *converter) broadcastInDim(sc *scope, op *Op) *hlo.Instruction {
	dims, ok := ints(op, "dims", "broadcast_dimensions")
	c.need(op, ok, "broadcast_dimensions")
	x := c.operands(sc, op)[0]
	out := c.result(op)
	c.need(op, len(dims) == x.Shape.Rank() && out.IsArray(), "broadcast_dimensions")
	// StableHLO also stretches a dimension of size 1 to any size; HLO's broadcast only adds dimensions,
	// so such dimensions are first reshaped away, as XLA's translation does.
	var keep []int64
	var kept []int64
	for i, d := range dims {
		if d < 0 || int(d) >= out.Rank() {
			c.fail(op.Pos, "%s: dimension %d out of range", op.Name, d)
		}
		if x.Shape.Dims[i] == 1 && out.Dims[d] != 1 {
			continue
		}
		keep = append(keep, d)
		kept = append(kept, x.Shape.Dims[i])
	}
	if len(keep) != len(dims) {
		x = c.add(sc, op, hlo.OpReshape, hlo.Array(x.Shape.Elem, kept...), x)
		dims = keep
	}
	in := c.add(sc, op, hlo.OpBroadcast, out, x)
	in.SetAttr("dimensions", hlo.Ints(nonNil(dims)))
	return in
}

// select_ converts select, broadcasting a scalar predicate over array operands as XLA's translation does.
func (c *converter) select_(sc *scope, op *Op) *hlo.Instruction {
	ins := c.operands(sc, op)
	out := c.result(op)
	c.need(op, len(ins) == 3, "operands")
	if ins[0].Shape.IsScalar() && out.IsArray() && !out.IsScalar() {
		b := c.add(sc, op, hlo.OpBroadcast, out.WithElem(dtype.PRED), ins[0])
		b.SetAttr("dimensions", hlo.Ints{})
		ins[0] = b
	}
	return c.add(sc, op, hlo.OpSelect, out, ins...)
}

func (c *converter) dotGeneral(sc *scope, op *Op) *hlo.Instruction {
	var lb, rb, lc, rc []int64
	if d, ok := op.Attr("contracting_dims").(DimsAttr); ok {
		lc, rc = d.LHS, d.RHS
	}
	if d, ok := op.Attr("batching_dims").(DimsAttr); ok {
		lb, rb = d.LHS, d.RHS
	}
	if st, ok := op.Attr("dot_dimension_numbers").(StructAttr); ok {
		lb, _ = attrInts(lookup(st.Fields, "lhs_batching_dimensions"))
		rb, _ = attrInts(lookup(st.Fields, "rhs_batching_dimensions"))
		lc, _ = attrInts(lookup(st.Fields, "lhs_contracting_dimensions"))
		rc, _ = attrInts(lookup(st.Fields, "rhs_contracting_dimensions"))
	}
	ins := c.operands(sc, op)
	if op.Name == "stablehlo.dot" && len(ins) == 2 {
		lc, rc = []int64{int64(ins[0].Shape.Rank() - 1)}, []int64{0}
	}
	in := c.add(sc, op, hlo.OpDot, c.result(op), ins...)
	setDotDims(in, lb, rb, lc, rc)
	c.precision(op, in)
	c.dotAlgorithm(op, in)
	return in
}

// setDotDims gives a dot (or ragged dot) its dimension numbers as XLA writes them: the batch ones only
// where there are any, the contracting ones always.
func setDotDims(in *hlo.Instruction, lb, rb, lc, rc []int64) {
	if len(lb) > 0 {
		in.SetAttr("lhs_batch_dims", hlo.Ints(lb))
	}
	in.SetAttr("lhs_contracting_dims", hlo.Ints(nonNil(lc)))
	if len(rb) > 0 {
		in.SetAttr("rhs_batch_dims", hlo.Ints(rb))
	}
	in.SetAttr("rhs_contracting_dims", hlo.Ints(nonNil(rc)))
}

// precision sets operand_precision from an op's precision_config (or the pretty form's precision), when
// it is not all DEFAULT.
func (c *converter) precision(op *Op, in *hlo.Instruction) {
	var prec []string
	if l, ok := op.Attr("precision").(ListAttr); ok {
		prec = words(l)
	}
	if l, ok := op.Attr("precision_config").(ListAttr); ok {
		prec = words(l)
	}
	nonDefault := false
	for _, p := range prec {
		nonDefault = nonDefault || p != "DEFAULT"
	}
	if nonDefault {
		in.SetAttr("operand_precision", hlo.Raw("{"+strings.ToLower(strings.Join(prec, ","))+"}"))
	}
}

// dotAlgorithms names the HLO algorithm of each #stablehlo.dot_algorithm: the operands' and the
// accumulation's types, the component counts and the number of primitive operations.
var dotAlgorithms = map[string]string{
	"bf16,bf16,f32,1,1,1": "dot_bf16_bf16_f32", "bf16,bf16,f32,1,1,3": "dot_bf16_bf16_f32_x3",
	"bf16,bf16,f32,1,1,6": "dot_bf16_bf16_f32_x6", "bf16,bf16,f32,1,1,9": "dot_bf16_bf16_f32_x9",
	"bf16,bf16,bf16,1,1,1": "dot_bf16_bf16_bf16", "f16,f16,f32,1,1,1": "dot_f16_f16_f32",
	"f16,f16,f16,1,1,1": "dot_f16_f16_f16", "tf32,tf32,f32,1,1,1": "dot_tf32_tf32_f32",
	"tf32,tf32,f32,1,1,3": "dot_tf32_tf32_f32_x3", "f32,f32,f32,1,1,1": "dot_f32_f32_f32",
	"f64,f64,f64,1,1,1": "dot_f64_f64_f64",
}

// dotAlgorithm sets the algorithm of a dot from its #stablehlo.dot_algorithm, as XLA's translation does.
func (c *converter) dotAlgorithm(op *Op, in *hlo.Instruction) {
	a := op.Attr("algorithm")
	if a == nil {
		return
	}
	st, ok := a.(StructAttr)
	c.need(op, ok, "algorithm")
	typeName := func(field string) string {
		switch v := lookup(st.Fields, field).(type) {
		case TypeAttr:
			return hlo.Shape(v).Elem.String()
		case WordAttr:
			return string(v)
		}
		return ""
	}
	count := func(field string) string {
		v, _ := lookup(st.Fields, field).(IntAttr)
		return strconv.FormatInt(v.V, 10)
	}
	lhs, rhs, acc := typeName("lhs_precision_type"), typeName("rhs_precision_type"), typeName("accumulation_type")
	key := strings.Join([]string{lhs, rhs, acc, count("lhs_component_count"), count("rhs_component_count"), count("num_primitive_operations")}, ",")
	name := dotAlgorithms[key]
	if strings.HasPrefix(lhs, "f8") && strings.HasPrefix(rhs, "f8") && acc == "f32" {
		name = "dot_any_f8_any_f8_f32"
		if imprecise, _ := lookup(st.Fields, "allow_imprecise_accumulation").(BoolAttr); imprecise {
			name += "_fast_accum"
		}
	}
	if name == "" {
		c.fail(op.Pos, "%s: dot algorithm %s has no HLO algorithm", op.Name, mlirAttr(st))
	}
	in.SetAttr("algorithm", hlo.Enum(name))
}

func nonNil(v []int64) []int64 {
	if v == nil {
		return []int64{}
	}
	return v
}

// words reads a list of bare words or enums.
func words(l ListAttr) []string {
	var out []string
	for _, e := range l {
		switch e := e.(type) {
		case WordAttr:
			out = append(out, string(e))
		case EnumAttr:
			out = append(out, e.Word)
		}
	}
	return out
}

func (c *converter) compare(sc *scope, op *Op) *hlo.Instruction {
	dir := word(op, "comparison_direction")
	typ := word(op, "compare_type")
	if len(op.Words) > 0 {
		dir = op.Words[0]
	}
	if len(op.Words) > 1 {
		typ = op.Words[1]
	}
	c.need(op, dir != "", "comparison_direction")
	in := c.add(sc, op, hlo.OpCompare, c.result(op), c.operands(sc, op)...)
	in.SetAttr("direction", hlo.Enum(dir))
	if typ == "TOTALORDER" {
		in.SetAttr("type", hlo.Enum(typ))
	}
	return in
}

func (c *converter) iota(sc *scope, op *Op) *hlo.Instruction {
	d, ok := integer(op, "dim", "iota_dimension")
	c.need(op, ok, "iota_dimension")
	in := c.add(sc, op, hlo.OpIota, c.result(op))
	in.SetAttr("iota_dimension", hlo.Int(d))
	return in
}

func (c *converter) slice(sc *scope, op *Op) *hlo.Instruction {
	var sl hlo.Slice
	if l, ok := op.Attr(attrSlice).(ListAttr); ok {
		for _, e := range l {
			v, ok := attrInts(e)
			c.need(op, ok && len(v) == 3, "slice bounds")
			sl = append(sl, hlo.SliceDim{Start: v[0], Limit: v[1], Stride: v[2]})
		}
	} else {
		starts, ok1 := ints(op, "start_indices")
		limits, ok2 := ints(op, "limit_indices")
		strides, ok3 := ints(op, "strides")
		c.need(op, ok1 && ok2 && len(starts) == len(limits), "start_indices and limit_indices")
		for i := range starts {
			d := hlo.SliceDim{Start: starts[i], Limit: limits[i], Stride: 1}
			if ok3 && i < len(strides) {
				d.Stride = strides[i]
			}
			sl = append(sl, d)
		}
	}
	if sl == nil {
		sl = hlo.Slice{}
	}
	in := c.add(sc, op, hlo.OpSlice, c.result(op), c.operands(sc, op)...)
	in.SetAttr("slice", sl)
	return in
}

func (c *converter) concatenate(sc *scope, op *Op) *hlo.Instruction {
	d, ok := integer(op, "dim", "dimension")
	c.need(op, ok, "dimension")
	in := c.add(sc, op, hlo.OpConcatenate, c.result(op), c.operands(sc, op)...)
	in.SetAttr("dimensions", hlo.Ints{d})
	return in
}

func (c *converter) pad(sc *scope, op *Op) *hlo.Instruction {
	lo, ok1 := ints(op, "low", "edge_padding_low")
	hi, ok2 := ints(op, "high", "edge_padding_high")
	mid, ok3 := ints(op, "interior", "interior_padding")
	c.need(op, ok1 && ok2 && ok3 && len(lo) == len(hi) && len(lo) == len(mid), "padding")
	pd := make(hlo.Padding, len(lo))
	for i := range lo {
		pd[i] = hlo.PadDim{Low: lo[i], High: hi[i], Interior: mid[i]}
	}
	in := c.add(sc, op, hlo.OpPad, c.result(op), c.operands(sc, op)...)
	in.SetAttr("padding", pd)
	return in
}

func (c *converter) getTupleElement(sc *scope, op *Op) *hlo.Instruction {
	i, ok := integer(op, attrIndex, "index")
	c.need(op, ok, "index")
	in := c.add(sc, op, hlo.OpGetTupleElement, c.result(op), c.operands(sc, op)...)
	in.SetAttr("index", hlo.Int(i))
	return in
}

// computation converts op's region number i into a called computation; when op names a binary op
// instead ("applies stablehlo.add"), it builds the computation of that op on scalars of the element
// types elems.
func (c *converter) computation(sc *scope, op *Op, i int, role string, elems []dtype.Type) *hlo.Computation {
	name := c.regionName()
	if ap, ok := op.Attr(attrApplies).(WordAttr); ok {
		code, known := stableHLOOps[string(ap)]
		if !known || !code.IsElementwiseBinary() || code == hlo.OpCompare || len(elems) != 1 {
			c.fail(op.Pos, "%s applies %s: not a binary op of one input", op.Name, ap)
		}
		comp := &hlo.Computation{Name: c.out.UniqueName(c.name(name)), Module: c.out, Pos: op.Pos}
		x := comp.Add(c.name("Arg_0"), hlo.OpParameter, paramShape(hlo.Scalar(elems[0])))
		y := comp.Add(c.name("Arg_1"), hlo.OpParameter, paramShape(hlo.Scalar(elems[0])))
		y.ParameterNumber = 1
		comp.Params = []*hlo.Instruction{x, y}
		comp.Root = comp.Add(c.name(code.String()), code, paramShape(hlo.Scalar(elems[0])), x, y)
		c.out.AddComputation(comp)
		return comp
	}
	if i >= len(op.Regions) {
		c.fail(op.Pos, "%s: missing region", op.Name)
	}
	return c.region(name, op.Regions[i], nil, op.Regions[i].Pos, sc, plainRegion, nil)
}

// elemTypesOf returns the element types of instructions.
func elemTypesOf(ins []*hlo.Instruction) []dtype.Type {
	out := make([]dtype.Type, len(ins))
	for i, in := range ins {
		out[i] = in.Shape.Elem
	}
	return out
}

// inputsAndInits splits the operands of reduce and reduce_window: inputs, then initial values, or the
// two interleaved in the pretty form "(%x init: %y), ...".
func (c *converter) inputsAndInits(sc *scope, op *Op) []*hlo.Instruction {
	ins := c.operands(sc, op)
	if len(ins)%2 != 0 {
		c.fail(op.Pos, "%s: an odd number of operands", op.Name)
	}
	if op.Attr(attrInit) != nil {
		n := len(ins) / 2
		out := make([]*hlo.Instruction, len(ins))
		for i := 0; i < n; i++ {
			out[i], out[n+i] = ins[2*i], ins[2*i+1]
		}
		ins = out
	}
	return ins
}

func (c *converter) reduce(sc *scope, op *Op) *hlo.Instruction {
	ins := c.inputsAndInits(sc, op)
	dims, ok := ints(op, "dimensions")
	c.need(op, ok, "dimensions")
	comp := c.computation(sc, op, 0, "reducer", elemTypesOf(ins[len(ins)/2:]))
	in := c.add(sc, op, hlo.OpReduce, c.result(op), ins...)
	in.SetAttr("dimensions", hlo.Ints(dims))
	in.SetAttr("to_apply", hlo.CompRef{Comp: comp})
	return in
}

// window reads the window of reduce_window and select_and_scatter for an operand of the given rank.
func (c *converter) window(op *Op, rank int) hlo.Window {
	size, ok := ints(op, "window_dimensions")
	c.need(op, ok && len(size) == rank, "window_dimensions")
	w := make(hlo.Window, rank)
	stride, _ := ints(op, "window_strides")
	base, _ := ints(op, "base_dilations")
	win, _ := ints(op, "window_dilations")
	pad, _ := ints(op, "padding")
	for i := range w {
		w[i] = hlo.WindowDim{Size: size[i], Stride: 1, BaseDilation: 1, WindowDilation: 1}
		if i < len(stride) {
			w[i].Stride = stride[i]
		}
		if i < len(base) {
			w[i].BaseDilation = base[i]
		}
		if i < len(win) {
			w[i].WindowDilation = win[i]
		}
		if 2*i+1 < len(pad) {
			w[i].PadLow, w[i].PadHigh = pad[2*i], pad[2*i+1]
		}
	}
	return w
}

func (c *converter) reduceWindow(sc *scope, op *Op) *hlo.Instruction {
	ins := c.inputsAndInits(sc, op)
	w := c.window(op, ins[0].Shape.Rank())
	comp := c.computation(sc, op, 0, "reducer", elemTypesOf(ins[len(ins)/2:]))
	in := c.add(sc, op, hlo.OpReduceWindow, c.result(op), ins...)
	in.SetAttr("window", w)
	in.SetAttr("to_apply", hlo.CompRef{Comp: comp})
	return in
}

func (c *converter) selectAndScatter(sc *scope, op *Op) *hlo.Instruction {
	ins := c.operands(sc, op)
	c.need(op, len(ins) == 3 && len(op.Regions) == 2, "operands and regions")
	w := c.window(op, ins[0].Shape.Rank())
	sel := c.region(c.regionName(), op.Regions[0], nil, op.Regions[0].Pos, sc, plainRegion, nil)
	sca := c.region(c.regionName(), op.Regions[1], nil, op.Regions[1].Pos, sc, plainRegion, nil)
	in := c.add(sc, op, hlo.OpSelectAndScatter, c.result(op), ins...)
	in.SetAttr("window", w)
	in.SetAttr("select", hlo.CompRef{Comp: sel})
	in.SetAttr("scatter", hlo.CompRef{Comp: sca})
	return in
}

func (c *converter) reducePrecision(sc *scope, op *Op) *hlo.Instruction {
	e, ok1 := integer(op, "exponent_bits")
	m, ok2 := integer(op, "mantissa_bits")
	if f := word(op, "format"); f != "" {
		// format = e5m10
		if i := strings.IndexByte(f, 'm'); len(f) > 1 && f[0] == 'e' && i > 1 {
			var err1, err2 error
			e, err1 = strconv.ParseInt(f[1:i], 10, 64)
			m, err2 = strconv.ParseInt(f[i+1:], 10, 64)
			ok1, ok2 = err1 == nil, err2 == nil
		}
	}
	c.need(op, ok1 && ok2, "exponent_bits and mantissa_bits")
	in := c.add(sc, op, hlo.OpReducePrecision, c.result(op), c.operands(sc, op)...)
	in.SetAttr("exponent_bits", hlo.Int(e))
	in.SetAttr("mantissa_bits", hlo.Int(m))
	return in
}

func (c *converter) while_(sc *scope, op *Op) *hlo.Instruction {
	ins := c.operands(sc, op)
	c.need(op, len(op.Regions) == 2, "cond and body regions")
	// Values the regions capture travel in the loop state after the op's own, unchanged by the body.
	caps := captures(op.Regions...)
	for _, v := range caps {
		ins = append(ins, c.value(sc, v, op))
	}
	state := c.add(sc, op, hlo.OpTuple, tupleShape(ins), ins...)
	args := func(r *Region) []*Value {
		if len(r.Blocks) == 1 && len(r.Blocks[0].Args) == len(op.Operands) {
			return r.Blocks[0].Args
		}
		c.fail(r.Pos, "%s: the region does not take its %d values", op.Name, len(op.Operands))
		return nil
	}
	// XLA's translation makes the body before the condition.
	body := c.region(c.regionName(), op.Regions[1], args(op.Regions[1]), op.Regions[1].Pos, sc, bodyRegion, caps)
	cond := c.region(c.regionName(), op.Regions[0], args(op.Regions[0]), op.Regions[0].Pos, sc, condRegion, caps)
	in := c.add(sc, op, hlo.OpWhile, state.Shape, state)
	in.SetAttr("condition", hlo.CompRef{Comp: cond})
	in.SetAttr("body", hlo.CompRef{Comp: body})
	return in
}

func (c *converter) sort(sc *scope, op *Op) *hlo.Instruction {
	d, ok := integer(op, "dimension")
	if !ok {
		d = -1
	}
	ins := c.operands(sc, op)
	if d < 0 && len(ins) > 0 {
		d += int64(ins[0].Shape.Rank())
	}
	cmp := c.computation(sc, op, 0, "comparator", nil)
	in := c.add(sc, op, hlo.OpSort, c.result(op), ins...)
	in.SetAttr("dimensions", hlo.Ints{d})
	if boolean(op, "is_stable") {
		in.SetAttr("is_stable", hlo.Bool(true))
	}
	in.SetAttr("to_apply", hlo.CompRef{Comp: cmp})
	return in
}

// dimensionNumbers returns the fields of a #stablehlo.gather<...> or #stablehlo.scatter<...> attribute.
func (c *converter) dimensionNumbers(op *Op, name string) []NamedAttr {
	st, ok := op.Attr(name).(StructAttr)
	c.need(op, ok, name)
	return st.Fields
}

// setInts sets HLO attributes from the named integer fields (absent ones empty, or left out when
// optional).
func setInts(in *hlo.Instruction, fields []NamedAttr, pairs ...[2]string) {
	for _, p := range pairs {
		v, ok := attrInts(lookup(fields, p[0]))
		optional := strings.HasSuffix(p[1], "?")
		name := strings.TrimSuffix(p[1], "?")
		if !ok || len(v) == 0 && optional {
			if optional {
				continue
			}
			v = []int64{}
		}
		in.SetAttr(name, hlo.Ints(v))
	}
}

func (c *converter) gather(sc *scope, op *Op) *hlo.Instruction {
	dn := c.dimensionNumbers(op, "dimension_numbers")
	sizes, ok := ints(op, "slice_sizes")
	c.need(op, ok, "slice_sizes")
	in := c.add(sc, op, hlo.OpGather, c.result(op), c.operands(sc, op)...)
	setInts(in, dn, [2]string{"offset_dims", "offset_dims"}, [2]string{"collapsed_slice_dims", "collapsed_slice_dims"},
		[2]string{"operand_batching_dims", "operand_batching_dims?"},
		[2]string{"start_indices_batching_dims", "start_indices_batching_dims?"},
		[2]string{"start_index_map", "start_index_map"})
	ivd, _ := lookup(dn, "index_vector_dim").(IntAttr)
	in.SetAttr("index_vector_dim", hlo.Int(ivd.V))
	in.SetAttr("slice_sizes", hlo.Ints(sizes))
	if boolean(op, "indices_are_sorted") {
		in.SetAttr("indices_are_sorted", hlo.Bool(true))
	}
	return in
}

func (c *converter) scatter(sc *scope, op *Op) *hlo.Instruction {
	dn := c.dimensionNumbers(op, "scatter_dimension_numbers")
	ins := c.operands(sc, op)
	c.need(op, len(ins) >= 3 && len(ins)%2 == 1, "operands")
	n := (len(ins) - 1) / 2
	fn := c.computation(sc, op, 0, "update", elemTypesOf(ins[:n]))
	in := c.add(sc, op, hlo.OpScatter, c.result(op), ins...)
	setInts(in, dn, [2]string{"update_window_dims", "update_window_dims"},
		[2]string{"inserted_window_dims", "inserted_window_dims"},
		[2]string{"input_batching_dims", "input_batching_dims?"},
		[2]string{"scatter_indices_batching_dims", "scatter_indices_batching_dims?"},
		[2]string{"scatter_dims_to_operand_dims", "scatter_dims_to_operand_dims"})
	ivd, _ := lookup(dn, "index_vector_dim").(IntAttr)
	in.SetAttr("index_vector_dim", hlo.Int(ivd.V))
	if boolean(op, "indices_are_sorted") {
		in.SetAttr("indices_are_sorted", hlo.Bool(true))
	}
	if boolean(op, "unique_indices") {
		in.SetAttr("unique_indices", hlo.Bool(true))
	}
	in.SetAttr("to_apply", hlo.CompRef{Comp: fn})
	return in
}

// apiVersions are the names HLO gives custom-call API versions.
var apiVersions = map[int64]string{
	1: "API_VERSION_ORIGINAL", 2: "API_VERSION_STATUS_RETURNING", 3: "API_VERSION_STATUS_RETURNING_UNIFIED",
	4: "API_VERSION_TYPED_FFI",
}

// customCallSchedules are the names HLO gives custom_call_schedule values.
var customCallSchedules = map[string]string{"NONE": "SCHEDULE_NONE", "LATEST": "SCHEDULE_LATEST", "EARLIEST": "SCHEDULE_EARLIEST"}

// customCall converts custom_call with every attribute XLA's translation keeps: the API version, the
// backend config (a string, or for typed FFI calls a dictionary, mhlo.backend_config, which XLA writes as
// MLIR prints it), the operand and result layouts, the output-operand aliases, the called computations
// and the schedule.
func (c *converter) customCall(sc *scope, op *Op) *hlo.Instruction {
	target := op.Callee
	if t, ok := op.Attr("call_target_name").(StringAttr); ok {
		target = string(t)
	}
	c.need(op, target != "", "call target")
	shape := hlo.Tuple()
	if len(op.OutTypes) > 0 {
		shape = resultShape(op)
	}
	ins := c.operands(sc, op)
	api := int64(1)
	if v, ok := op.Attr("api_version").(IntAttr); ok {
		api = v.V
	} else if w := word(op, "api_version"); w != "" {
		for k, name := range apiVersions {
			if name == w {
				api = k
			}
		}
	}
	if apiVersions[api] == "" {
		c.fail(op.Pos, "%s: api_version %d is not one XLA knows", op.Name, api)
	}
	// Layouts: both lists or neither, one minor-to-major order per operand and per result.
	opLayouts, hasOpLayouts := op.Attr("operand_layouts").(ListAttr)
	resLayouts, hasResLayouts := op.Attr("result_layouts").(ListAttr)
	if hasOpLayouts != hasResLayouts {
		c.fail(op.Pos, "%s: operand_layouts and result_layouts go together", op.Name)
	}
	var constraints hlo.Shapes
	if hasOpLayouts {
		if len(opLayouts) != len(ins) {
			c.fail(op.Pos, "%s: %d operand_layouts for %d operands", op.Name, len(opLayouts), len(ins))
		}
		for i, l := range opLayouts {
			constraints = append(constraints, c.withLayout(op, ins[i].Shape, l, "operand_layouts"))
		}
		results := []hlo.Shape{shape}
		if shape.IsTuple() {
			results = shape.Tuple
		}
		if len(resLayouts) != len(results) {
			c.fail(op.Pos, "%s: %d result_layouts for %d results", op.Name, len(resLayouts), len(results))
		}
		for i, l := range resLayouts {
			results[i] = c.withLayout(op, results[i], l, "result_layouts")
		}
		if !shape.IsTuple() {
			shape = results[0]
		}
	}
	in := c.add(sc, op, hlo.OpCustomCall, shape, ins...)
	if hasOpLayouts {
		// add gives results default layouts; the ones the op states replace them.
		in.Shape = shape
	}
	in.SetAttr("custom_call_target", hlo.String(target))
	if boolean(op, "has_side_effect") {
		in.SetAttr("custom_call_has_side_effect", hlo.Bool(true))
	}
	if hasOpLayouts {
		in.SetAttr("operand_layout_constraints", constraints)
	}
	if l, ok := op.Attr("output_operand_aliases").(ListAttr); ok && len(l) > 0 {
		var al hlo.Aliasing
		for _, e := range l {
			st, ok := e.(StructAttr)
			c.need(op, ok, "output_operand_aliases")
			out, _ := attrInts(lookup(st.Fields, "output_tuple_indices"))
			idx, ok := lookup(st.Fields, "operand_index").(IntAttr)
			c.need(op, ok && idx.V >= 0 && int(idx.V) < len(ins), "output_operand_aliases operand_index")
			opIdx, _ := attrInts(lookup(st.Fields, "operand_tuple_indices"))
			al = append(al, hlo.OutputOperandAlias{Output: nonNil(out), Operand: idx.V, OperandIndex: nonNil(opIdx)})
		}
		in.SetAttr("output_to_operand_aliasing", al)
	}
	if l, ok := op.Attr("called_computations").(ListAttr); ok && len(l) > 0 {
		var comps hlo.CompList
		for _, e := range l {
			sym, ok := e.(SymbolAttr)
			c.need(op, ok, "called_computations")
			fn := c.funcs[string(sym)]
			if fn == nil {
				c.fail(op.Pos, "%s calls @%s, which the module does not define", op.Name, sym)
			}
			comps = append(comps, c.function(fn))
		}
		in.SetAttr("called_computations", comps)
	}
	if w := word(op, "custom_call_schedule"); w != "" && w != "NONE" {
		name := customCallSchedules[w]
		c.need(op, name != "", "custom_call_schedule")
		in.SetAttr("schedule", hlo.Enum(name))
	}
	// StableHLO's verifier holds a typed FFI call to a dictionary backend_config, any other to a string.
	bc := op.Attr("backend_config")
	if _, isDict := bc.(DictAttr); bc != nil && isDict != (api == 4) {
		c.fail(op.Pos, "%s: a backend_config of api_version %d must be a %s; XLA's translation refuses the op", op.Name, api, map[bool]string{true: "dictionary", false: "string"}[api == 4])
	}
	// An mhlo.backend_config makes a call of the original API version without a backend config a typed FFI
	// call with that backend config (StableHLO's legalization for XLA, fixupMhloBackendConfig); on any
	// other call XLA's translation ignores it.
	if typed := op.Attr("mhlo.backend_config"); typed != nil {
		if str, isStr := bc.(StringAttr); api == 1 && (bc == nil || isStr && str == "") {
			bc, api = typed, 4
		} else {
			c.notes.Add(c.fset.Position(op.Pos), fmt.Sprintf("%s: mhlo.backend_config on a call of api_version %d or with a backend_config is not converted%s", op.Name, api, IgnoredLikeXLA))
		}
	}
	if api != 1 {
		in.SetAttr("api_version", hlo.Enum(apiVersions[api]))
	}
	// XLA's export writes the dictionary of a typed FFI call as MLIR prints it, and the string of any
	// other; an mhlo.backend_config that is not a dictionary it leaves out.
	switch v := bc.(type) {
	case nil:
	case StringAttr:
		if api == 4 {
			c.notes.Add(c.fset.Position(op.Pos), fmt.Sprintf("%s: an mhlo.backend_config that is not a dictionary is not converted%s", op.Name, IgnoredLikeXLA))
		} else if v != "" {
			in.SetAttr("backend_config", &hlo.BackendConfig{Text: string(v), Quoted: true})
		}
	case DictAttr:
		in.SetAttr("backend_config", &hlo.BackendConfig{Text: mlirAttr(v), Quoted: true})
	default:
		c.fail(op.Pos, "%s: backend_config is neither a string nor a dictionary", op.Name)
	}
	if lit, ok := op.Attr("mhlo.literal").(*DenseAttr); ok {
		in.SetAttr("literal", &hlo.ShapedLiteral{Shape: paramShape(lit.Type), Literal: lit.Literal})
	}
	return in
}

// withLayout returns s with the minor-to-major order l of a custom call's operand_layouts or
// result_layouts.
func (c *converter) withLayout(op *Op, s hlo.Shape, l Attr, what string) hlo.Shape {
	order, ok := attrInts(l)
	if !s.IsArray() {
		if ok && len(order) == 0 {
			return s
		}
		c.fail(op.Pos, "%s: %s gives a layout to %s, which is not an array", op.Name, what, typeString(s))
	}
	if !ok || !isPermutation(order, s.Rank()) {
		c.fail(op.Pos, "%s: %s: %s is not a layout of %s", op.Name, what, mlirAttr(l), typeString(s))
	}
	s = s.Clone()
	lay := hlo.DefaultLayout(s.Rank())
	lay.MinorToMajor = order
	s.Layout = &lay
	return s
}

func (c *converter) call(sc *scope, op *Op) *hlo.Instruction {
	if sym, ok := op.Attr("callee").(SymbolAttr); ok && op.Callee == "" {
		op.Callee = string(sym)
	}
	fn := c.funcs[op.Callee]
	if fn == nil {
		c.fail(op.Pos, "call of @%s, which the module does not define", op.Callee)
	}
	comp := c.function(fn)
	shape := comp.Root.Shape
	in := c.add(sc, op, hlo.OpCall, shape, c.operands(sc, op)...)
	in.SetAttr("to_apply", hlo.CompRef{Comp: comp})
	return in
}

func (c *converter) fft(sc *scope, op *Op) *hlo.Instruction {
	typ := word(op, "type", "fft_type")
	length, ok := ints(op, "length", "fft_length")
	c.need(op, typ != "" && ok, "fft_type and fft_length")
	in := c.add(sc, op, hlo.OpFft, c.result(op), c.operands(sc, op)...)
	in.SetAttr("fft_type", hlo.Enum(typ))
	in.SetAttr("fft_length", hlo.Ints(length))
	return in
}

func (c *converter) rngBitGenerator(sc *scope, op *Op) *hlo.Instruction {
	alg := word(op, "algorithm", "rng_algorithm")
	hloAlg := map[string]string{"DEFAULT": "rng_default", "THREE_FRY": "rng_three_fry", "PHILOX": "rng_philox"}[alg]
	c.need(op, hloAlg != "", "rng_algorithm")
	in := c.add(sc, op, hlo.OpRngBitGenerator, c.result(op), c.operands(sc, op)...)
	in.SetAttr("algorithm", hlo.Enum(hloAlg))
	return in
}

func (c *converter) triangularSolve(sc *scope, op *Op) *hlo.Instruction {
	in := c.add(sc, op, hlo.OpTriangularSolve, c.result(op), c.operands(sc, op)...)
	// XLA writes the options that are true, and transpose_a always.
	for _, n := range []string{"left_side", "lower", "unit_diagonal"} {
		if boolean(op, n) {
			in.SetAttr(n, hlo.Bool(true))
		}
	}
	t := word(op, "transpose_a")
	if t == "" {
		t = "NO_TRANSPOSE"
	}
	in.SetAttr("transpose_a", hlo.Enum(t))
	return in
}

func (c *converter) cholesky(sc *scope, op *Op) *hlo.Instruction {
	in := c.add(sc, op, hlo.OpCholesky, c.result(op), c.operands(sc, op)...)
	in.SetAttr("lower", hlo.Bool(boolean(op, "lower")))
	return in
}

// case_ converts case, whose index selects a branch; the branches take no arguments in StableHLO, so
// each computation gets one empty tuple parameter as HLO's conditional requires.
func (c *converter) case_(sc *scope, op *Op) *hlo.Instruction {
	ins := c.operands(sc, op)
	c.need(op, len(ins) == 1 && len(op.Regions) > 0, "index and branches")
	return c.conditional(sc, op, ins[0], op.Regions, "branch_computations")
}

func (c *converter) if_(sc *scope, op *Op) *hlo.Instruction {
	ins := c.operands(sc, op)
	c.need(op, len(ins) == 1 && len(op.Regions) == 2, "predicate and two branches")
	return c.conditional(sc, op, ins[0], op.Regions, "true_computation")
}

// conditional converts the branches of case and if; the values they capture are passed to every branch
// as one tuple operand.
func (c *converter) conditional(sc *scope, op *Op, index *hlo.Instruction, regions []*Region, kind string) *hlo.Instruction {
	caps := captures(regions...)
	passed := make([]*hlo.Instruction, len(caps))
	for i, v := range caps {
		passed[i] = c.value(sc, v, op)
	}
	arg := c.add(sc, op, hlo.OpTuple, tupleShape(passed), passed...)
	operands := []*hlo.Instruction{index}
	var comps hlo.CompList
	for _, r := range regions {
		comps = append(comps, c.region(c.regionName(), r, []*Value{}, r.Pos, sc, condRegion, caps))
		operands = append(operands, arg)
	}
	shape := hlo.Tuple()
	if len(op.OutTypes) > 0 {
		shape = resultShape(op)
	}
	in := c.add(sc, op, hlo.OpConditional, shape, operands...)
	if kind == "true_computation" {
		in.SetAttr("true_computation", hlo.CompRef{Comp: comps[0]})
		in.SetAttr("false_computation", hlo.CompRef{Comp: comps[1]})
	} else {
		in.SetAttr("branch_computations", comps)
	}
	return in
}

func (c *converter) topK(sc *scope, op *Op) *hlo.Instruction {
	k, ok := integer(op, "k")
	c.need(op, ok, "k")
	in := c.add(sc, op, hlo.OpTopk, c.result(op), c.operands(sc, op)...)
	in.SetAttr("k", hlo.Int(k))
	largest := true
	if b, ok := op.Attr("largest").(BoolAttr); ok {
		largest = bool(b)
	}
	in.SetAttr("largest", hlo.Bool(largest))
	return in
}

func (c *converter) map_(sc *scope, op *Op) *hlo.Instruction {
	dims, ok := ints(op, "dimensions")
	c.need(op, ok, "dimensions")
	fn := c.computation(sc, op, 0, "mapped", nil)
	in := c.add(sc, op, hlo.OpMap, c.result(op), c.operands(sc, op)...)
	in.SetAttr("dimensions", hlo.Ints(dims))
	in.SetAttr("to_apply", hlo.CompRef{Comp: fn})
	return in
}

// check converts a check op of the StableHLO tests (check.expect_eq, check.expect_eq_const, ... and the
// custom_call @check.* forms) into a custom-call to the check's name with side effects: its operands are
// the value, the expected value (a constant for the _const forms) and, when the op sets it, the tolerance
// as a scalar constant: f64 tolerance of expect_almost_eq, s64 max_ulp_difference of expect_close.
func (c *converter) check(sc *scope, op *Op) {
	name := op.Name
	if op.Name == "stablehlo.custom_call" {
		name = op.Callee
		op.Attr("has_side_effect") // a check always has side effects
	}
	if name == "check.expect_serialized_eq" {
		c.serializedEq(sc, op)
		return
	}
	ins := c.operands(sc, op)
	e := emitter{c, sc, op}
	if strings.HasSuffix(name, "_const") {
		name = strings.TrimSuffix(name, "_const")
		d, ok := op.Attr("value").(*DenseAttr)
		c.need(op, ok, "expected value")
		k := e.add(hlo.OpConstant, d.Type)
		k.Literal = d.Literal
		ins = append(ins, k)
	}
	switch tol := op.Attr("tolerance").(type) {
	case FloatAttr:
		ins = append(ins, e.splat(hlo.Scalar(dtype.F64), math.Float64bits(tol.V)))
	case IntAttr:
		ins = append(ins, e.splat(hlo.Scalar(dtype.F64), math.Float64bits(float64(tol.V))))
	}
	if ulp, ok := op.Attr("max_ulp_difference").(IntAttr); ok {
		ins = append(ins, e.splat(hlo.Scalar(dtype.S64), uint64(ulp.V)))
	}
	in := e.add(hlo.OpCustomCall, hlo.Tuple(), ins...)
	in.SetAttr("custom_call_target", hlo.String(name))
	in.SetAttr("custom_call_has_side_effect", hlo.Bool(true))
}

// convolution converts convolution: its dimension numbers become dim_labels, its window attributes
// (the pretty form's window = {stride = ..., pad = ...} or the generic window_strides, padding, ...) one
// window whose sizes are the kernel's spatial dimensions.
func (c *converter) convolution(sc *scope, op *Op) *hlo.Instruction {
	ins := c.operands(sc, op)
	c.need(op, len(ins) == 2, "operands")
	var labels string
	switch a := op.Attr("dim_numbers").(type) {
	case RawAttr:
		labels = string(a)
	}
	var dims *hlo.ConvDims
	ok := false
	if st, isStruct := op.Attr("dimension_numbers").(StructAttr); isStruct {
		labels = st.Raw
		if st.Fields != nil {
			dims, ok = convDimsOfFields(st.Fields)
		}
	}
	if !ok {
		dims, ok = parseConvLabels(labels)
	}
	c.need(op, ok, "dimension numbers")
	get := func(pretty, generic string) []int64 {
		if w, ok := op.Attr("window").(DictAttr); ok {
			if v, ok := attrInts(lookup(w, pretty)); ok {
				return v
			}
			if l, ok := lookup(w, pretty).(ListAttr); ok { // pad = [[1, 1], [2, 2]], reverse = [false, true]
				var out []int64
				for _, e := range l {
					switch e := e.(type) {
					case BoolAttr:
						out = append(out, b2i(bool(e)))
					default:
						v, _ := attrInts(e)
						out = append(out, v...)
					}
				}
				return out
			}
		}
		v, _ := ints(op, generic)
		return v
	}
	stride := get("stride", "window_strides")
	pad := get("pad", "padding")
	lhs := get("lhs_dilate", "lhs_dilation")
	rhs := get("rhs_dilate", "rhs_dilation")
	rev := get("reverse", "window_reversal")
	if rev == nil {
		if a, ok := op.Attr("window_reversal").(ArrayAttr); ok {
			rev = a.Vals
		}
	}
	w := make(hlo.Window, len(dims.KernelSpatial))
	for i, d := range dims.KernelSpatial {
		if d < 0 || int(d) >= ins[1].Shape.Rank() {
			c.fail(op.Pos, "%s: kernel dimension %d out of range", op.Name, d)
		}
		w[i] = hlo.WindowDim{Size: ins[1].Shape.Dims[d], Stride: 1, BaseDilation: 1, WindowDilation: 1}
		if i < len(stride) {
			w[i].Stride = stride[i]
		}
		if 2*i+1 < len(pad) {
			w[i].PadLow, w[i].PadHigh = pad[2*i], pad[2*i+1]
		}
		if i < len(lhs) {
			w[i].BaseDilation = lhs[i]
		}
		if i < len(rhs) {
			w[i].WindowDilation = rhs[i]
		}
		if i < len(rev) {
			w[i].Reversal = rev[i] != 0
		}
	}
	in := c.add(sc, op, hlo.OpConvolution, c.result(op), ins...)
	if len(w) > 0 {
		in.SetAttr("window", w)
	}
	in.SetAttr("dim_labels", dims)
	if g, ok := integer(op, "feature_group_count"); ok && g != 1 {
		in.SetAttr("feature_group_count", hlo.Int(g))
	}
	if g, ok := integer(op, "batch_group_count"); ok && g != 1 {
		in.SetAttr("batch_group_count", hlo.Int(g))
	}
	c.precision(op, in)
	return in
}

// convDimsOfFields reads dimension numbers written field by field (input_batch_dimension = 0, ...).
func convDimsOfFields(f []NamedAttr) (*hlo.ConvDims, bool) {
	one := func(name string) (int64, bool) {
		v, ok := lookup(f, name).(IntAttr)
		return v.V, ok
	}
	list := func(name string) ([]int64, bool) {
		v, ok := attrInts(lookup(f, name))
		return nonNil(v), ok || lookup(f, name) == nil
	}
	d := &hlo.ConvDims{}
	oks := make([]bool, 9)
	d.InputBatch, oks[0] = one("input_batch_dimension")
	d.InputFeature, oks[1] = one("input_feature_dimension")
	d.InputSpatial, oks[2] = list("input_spatial_dimensions")
	d.KernelInputFeature, oks[3] = one("kernel_input_feature_dimension")
	d.KernelOutput, oks[4] = one("kernel_output_feature_dimension")
	d.KernelSpatial, oks[5] = list("kernel_spatial_dimensions")
	d.OutputBatch, oks[6] = one("output_batch_dimension")
	d.OutputFeature, oks[7] = one("output_feature_dimension")
	d.OutputSpatial, oks[8] = list("output_spatial_dimensions")
	for _, ok := range oks {
		if !ok {
			return nil, false
		}
	}
	return d, len(d.InputSpatial) == len(d.KernelSpatial) && len(d.KernelSpatial) == len(d.OutputSpatial)
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// parseConvLabels reads "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]": each list names, position by
// position, what that dimension of the input, the kernel and the output is.
func parseConvLabels(text string) (*hlo.ConvDims, bool) {
	text = strings.ReplaceAll(text, " ", "")
	lhs, out, ok := strings.Cut(text, "->")
	if !ok {
		return nil, false
	}
	in, kernel, ok := strings.Cut(lhs, "]x[")
	if !ok {
		return nil, false
	}
	split := func(s string) []string {
		s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
		if s == "" {
			return nil
		}
		return strings.Split(s, ",")
	}
	d := &hlo.ConvDims{}
	read := func(parts []string, a, b string, pa, pb *int64) ([]int64, bool) {
		spatial := make([]int64, 0, len(parts))
		seen := map[int64]bool{}
		*pa, *pb = -1, -1
		var idx []int64
		for pos, p := range parts {
			switch p {
			case a:
				*pa = int64(pos)
			case b:
				*pb = int64(pos)
			default:
				n, err := strconv.ParseInt(p, 10, 64)
				if err != nil || n < 0 || n >= int64(len(parts)) || seen[n] {
					return nil, false
				}
				seen[n] = true
				idx = append(idx, n)
				spatial = append(spatial, int64(pos))
			}
		}
		// spatial[k] is where spatial dimension idx[k] lives; order them by spatial number.
		out := make([]int64, len(spatial))
		for k, n := range idx {
			if n >= int64(len(out)) {
				return nil, false
			}
			out[n] = spatial[k]
		}
		return out, *pa >= 0 && *pb >= 0
	}
	var ok1, ok2, ok3 bool
	d.InputSpatial, ok1 = read(split(in), "b", "f", &d.InputBatch, &d.InputFeature)
	d.KernelSpatial, ok2 = read(split(kernel), "i", "o", &d.KernelInputFeature, &d.KernelOutput)
	d.OutputSpatial, ok3 = read(split(out), "b", "f", &d.OutputBatch, &d.OutputFeature)
	ok = ok1 && ok2 && ok3 && len(d.InputSpatial) == len(d.KernelSpatial) && len(d.KernelSpatial) == len(d.OutputSpatial)
	return d, ok
}

// composite converts composite into a call of its decomposition, marked as a composite with its name, as
// XLA's translation does.
func (c *converter) composite(sc *scope, op *Op) *hlo.Instruction {
	sym, ok := op.Attr("decomposition").(SymbolAttr)
	c.need(op, ok, "decomposition")
	name := ""
	if len(op.Words) > 0 {
		name = op.Words[0]
	}
	if n, ok := op.Attr("name").(StringAttr); ok {
		name = string(n)
	}
	fn := c.funcs[string(sym)]
	if fn == nil {
		c.fail(op.Pos, "composite %q: decomposition @%s is not a function of the module", name, sym)
	}
	comp := c.function(fn)
	in := c.add(sc, op, hlo.OpCall, comp.Root.Shape, c.operands(sc, op)...)
	in.SetAttr("to_apply", hlo.CompRef{Comp: comp})
	in.SetAttr("is_composite", hlo.Bool(true))
	f := frontend{"composite.name": name, "composite.version": "0"}
	if a, ok := op.Attr("composite_attributes").(DictAttr); ok {
		f["composite.attributes"] = mlirAttr(a)
	} else {
		f["composite.attributes"] = "{}"
	}
	if v, ok := op.Attr("version").(IntAttr); ok {
		f["composite.version"] = strconv.FormatInt(v.V, 10)
	}
	in.SetAttr("frontend_attributes", f.value())
	return in
}

// static fails unless op's result has a static shape: Octet converts the dynamic-shape ops only where
// the shapes are known, into their static counterparts.
func (c *converter) static(op *Op) hlo.Shape {
	out := c.result(op)
	for _, d := range out.Dims {
		if d < 0 {
			name := "its result"
			if len(op.Results) > 0 {
				name = op.Results[0].Name
			}
			c.fail(op.Pos, "%s: %s has the dynamic type %s; %s", op.Name, name, typeString(out), staticAdvice)
		}
	}
	return out
}

// staticAdvice says how to get a program Octet converts from a shape-polymorphic one.
const staticAdvice = "Octet converts programs whose shapes are static: lower or export the function with " +
	"concrete shapes (jax.jit(f).lower(x) with arrays, or jax.ShapeDtypeStruct with numbers, not symbolic dimensions)"

func (c *converter) dynamicIota(sc *scope, op *Op) *hlo.Instruction {
	out := c.static(op)
	d, ok := integer(op, "dim", "iota_dimension")
	c.need(op, ok, "iota_dimension")
	in := c.add(sc, op, hlo.OpIota, out)
	in.SetAttr("iota_dimension", hlo.Int(d))
	return in
}

func (c *converter) dynamicReshape(sc *scope, op *Op) *hlo.Instruction {
	out := c.static(op)
	ins := c.operands(sc, op)
	c.need(op, len(ins) == 2, "operand and output shape")
	return c.add(sc, op, hlo.OpReshape, out, ins[0])
}

func (c *converter) dynamicBroadcastInDim(sc *scope, op *Op) *hlo.Instruction {
	c.static(op)
	// Which dimensions expand is known from the static shapes; the hints add nothing.
	op.Attr("known_expanding_dimensions")
	op.Attr("known_nonexpanding_dimensions")
	return c.broadcastInDim(sc, op)
}

func (c *converter) getDimensionSize(sc *scope, op *Op) *hlo.Instruction {
	ins := c.operands(sc, op)
	d, ok := integer(op, "dim", "dimension")
	c.need(op, ok && len(ins) == 1 && d >= 0 && int(d) < ins[0].Shape.Rank(), "dimension")
	size := ins[0].Shape.Dims[d]
	if size < 0 || ins[0].Shape.Dynamic != nil && int(d) < len(ins[0].Shape.Dynamic) && ins[0].Shape.Dynamic[d] {
		c.fail(op.Pos, "%s: dimension %d of %s (%s) is dynamic; %s", op.Name, d, op.Operands[0].Name, typeString(ins[0].Shape), staticAdvice)
	}
	e := emitter{c, sc, op}
	return e.splat(c.result(op), uint64(size))
}

// constant returns the dense value of v when a constant op defines it: the shape operands of the
// dynamic ops, which Octet converts when they are known.
func constant(v *Value) (*DenseAttr, bool) {
	if v.Def == nil || v.Def.Name != "stablehlo.constant" {
		return nil, false
	}
	d, ok := v.Def.Attr("value").(*DenseAttr)
	return d, ok && d.Literal != nil && d.Literal.Array != nil && d.Type.Elem.IsInteger()
}

// withStaticOperands is op with its first n operands, and the constant operands after them as the
// attributes their static counterpart takes.
func (c *converter) withStaticOperands(op *Op, n int, names ...string) *Op {
	c.static(op)
	if len(op.Operands) != n+len(names) {
		c.fail(op.Pos, "%s takes %d operands, has %d", op.Name, n+len(names), len(op.Operands))
	}
	op.markUsed(attrSlice) // the copy shares the record of the attributes read
	st := *op
	st.Operands = op.Operands[:n]
	st.Attrs = append([]NamedAttr(nil), op.Attrs...)
	for i, name := range names {
		d, ok := constant(op.Operands[n+i])
		if !ok {
			c.fail(op.Pos, "%s with a %s that is not a constant is not supported", op.Name, name)
		}
		st.Attrs = append(st.Attrs, NamedAttr{name, d})
	}
	return &st
}

func (c *converter) dynamicPad(sc *scope, op *Op) *hlo.Instruction {
	return c.pad(sc, c.withStaticOperands(op, 2, "edge_padding_low", "edge_padding_high", "interior_padding"))
}

func (c *converter) dynamicGather(sc *scope, op *Op) *hlo.Instruction {
	return c.gather(sc, c.withStaticOperands(op, 2, "slice_sizes"))
}

func (c *converter) dynamicConv(sc *scope, op *Op) *hlo.Instruction {
	return c.convolution(sc, c.withStaticOperands(op, 2, "padding"))
}

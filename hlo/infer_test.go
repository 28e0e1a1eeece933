package hlo

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"octet/dtype"
)

// testModule returns a module whose entry computation "main" has parameters of the given shapes.
func testModule(params ...Shape) (*Module, *Computation, []*Instruction) {
	m := &Module{Name: "m"}
	c := &Computation{Name: "main", IsEntry: true}
	m.AddComputation(c)
	m.Entry = c
	ps := addParams(c, params...)
	return m, c, ps
}

// addParams appends parameters of the given shapes to c.
func addParams(c *Computation, shapes ...Shape) []*Instruction {
	var ps []*Instruction
	for _, s := range shapes {
		p := c.Add("p", OpParameter, s)
		p.ParameterNumber = int64(len(c.Params))
		c.Params = append(c.Params, p)
		ps = append(ps, p)
	}
	return ps
}

// scalarAdd adds to m a computation (x, y) -> x+y of type t.
func scalarAdd(m *Module, name string, t dtype.Type) *Computation {
	c := &Computation{Name: name}
	m.AddComputation(c)
	ps := addParams(c, Scalar(t), Scalar(t))
	c.Root = c.Add("sum", OpAdd, Scalar(t), ps[0], ps[1])
	return c
}

// inst makes an instruction that is in no computation: enough for InferShape.
func inst(op Opcode, operands []*Instruction, attrs ...Attr) *Instruction {
	in := &Instruction{Opcode: op, Attrs: attrs}
	in.operands = operands
	return in
}

// withShape sets the part of the shape XLA reads from the instruction (convert's type, ...).
func withShape(in *Instruction, s Shape) *Instruction {
	in.Shape = s
	return in
}

func param(s Shape) *Instruction { return &Instruction{Opcode: OpParameter, Shape: s} }

var (
	f32  = dtype.F32
	bf16 = dtype.BF16
	s32  = dtype.S32
	pred = dtype.PRED
	e4m3 = dtype.F8E4M3FN
	e5m2 = dtype.F8E5M2
	tok  = Shape{Kind: TokenShape}
)

func ops(s ...Shape) []*Instruction {
	l := make([]*Instruction, len(s))
	for i, x := range s {
		l[i] = param(x)
	}
	return l
}

func TestInferShape(t *testing.T) {
	m := &Module{Name: "m"}
	add := scalarAdd(m, "add", f32)
	addS32 := scalarAdd(m, "add_s32", s32)
	// A variadic reducer: (f32, s32, f32, s32) -> (f32, s32).
	add2 := &Computation{Name: "add2"}
	m.AddComputation(add2)
	ps := addParams(add2, Scalar(f32), Scalar(s32), Scalar(f32), Scalar(s32))
	a0 := add2.Add("a0", OpAdd, Scalar(f32), ps[0], ps[2])
	a1 := add2.Add("a1", OpAdd, Scalar(s32), ps[1], ps[3])
	add2.Root = add2.Add("t", OpTuple, Tuple(Scalar(f32), Scalar(s32)), a0, a1)
	cond := &Computation{Name: "cond"}
	m.AddComputation(cond)
	cp := addParams(cond, Tuple(Scalar(s32), Array(f32, 4)))
	cond.Root = cond.Add("lt", OpCompare, Scalar(pred), cp[0], cp[0])
	body := &Computation{Name: "body"}
	m.AddComputation(body)
	bp := addParams(body, Tuple(Scalar(s32), Array(f32, 4)))
	body.Root = bp[0]
	less := &Computation{Name: "less"}
	m.AddComputation(less)
	lp := addParams(less, Scalar(f32), Scalar(f32), Scalar(s32), Scalar(s32))
	less.Root = less.Add("lt", OpCompare, Scalar(pred), lp[0], lp[1])
	fused := &Computation{Name: "fused"}
	m.AddComputation(fused)
	fp := addParams(fused, Array(f32, 8), Scalar(f32))
	fb := fused.Add("b", OpBroadcast, Array(f32, 8), fp[1])
	fused.Root = fused.Add("m", OpMultiply, Array(f32, 8), fp[0], fb)

	dims := func(d ...int64) Attr { return Attr{"dimensions", Ints(d)} }
	dot := func(lc, rc, lb, rb []int64) []Attr {
		return []Attr{{"lhs_batch_dims", Ints(lb)}, {"lhs_contracting_dims", Ints(lc)},
			{"rhs_batch_dims", Ints(rb)}, {"rhs_contracting_dims", Ints(rc)}}
	}
	toApply := func(c *Computation) Attr { return Attr{"to_apply", CompRef{c}} }

	tests := []struct {
		name string
		in   *Instruction
		want string // the shape, or "error: <substring>", or "cannot: <substring>"
	}{
		// Elementwise.
		{"add", inst(OpAdd, ops(Array(f32, 2, 3), Array(f32, 2, 3))), "f32[2,3]"},
		{"add scalar and array", inst(OpAdd, ops(Scalar(f32), Array(f32, 4))), "f32[4]"},
		{"add degenerate", inst(OpAdd, ops(Array(f32, 1, 3), Array(f32, 2, 3))), "f32[2,3]"},
		{"add mixed precision", inst(OpMultiply, ops(Array(bf16, 2), Array(f32, 2))), "f32[2]"},
		{"add mismatch", inst(OpAdd, ops(Array(f32, 2, 3), Array(f32, 3, 3))), "error: add: the operand shapes f32[2,3] and f32[3,3] differ in dimension 0"},
		{"add ranks", inst(OpAdd, ops(Array(f32, 2), Array(f32, 2, 2))), "error: different ranks"},
		{"add types", inst(OpAdd, ops(Array(f32, 2), Array(s32, 2))), "error: different element types"},
		{"add tuple", inst(OpAdd, ops(Tuple(), Array(f32, 2))), "error: add: the lhs is (), not an array"},
		{"add arity", inst(OpAdd, ops(Array(f32, 2))), "error: add: takes 2 operands, has 1"},
		{"compare", inst(OpCompare, ops(Array(s32, 5), Array(s32, 5)), Attr{"direction", Enum("LT")}), "pred[5]"},
		{"subtract pred", inst(OpSubtract, ops(Array(pred, 5), Array(pred, 5))), "error: not pred"},
		{"and f32", inst(OpAnd, ops(Array(f32, 5), Array(f32, 5))), "error: takes pred or integers"},
		{"complex", inst(OpComplex, ops(Array(f32, 3), Array(f32, 3))), "c64[3]"},
		{"negate", inst(OpNegate, ops(Array(s32, 3))), "s32[3]"},
		{"exp of int", inst(OpExp, ops(Array(s32, 3))), "error: exponential: the operand is s32[3]; exponential takes floating-point or complex values"},
		{"abs complex", inst(OpAbs, ops(Array(dtype.C128, 3))), "f64[3]"},
		{"abs unsigned", inst(OpAbs, ops(Array(dtype.U8, 3))), "error: abs"},
		{"real", inst(OpReal, ops(Array(dtype.C64, 3))), "f32[3]"},
		{"imag of float", inst(OpImag, ops(Array(f32, 3))), "f32[3]"},
		{"is-finite", inst(OpIsFinite, ops(Array(bf16, 3))), "pred[3]"},
		{"not", inst(OpNot, ops(Array(pred, 3))), "pred[3]"},
		{"popcnt float", inst(OpPopulationCount, ops(Array(f32, 3))), "error: popcnt"},
		{"copy tuple", inst(OpCopy, ops(Tuple(Array(f32, 1), tok))), "(f32[1], token[])"},
		{"convert", withShape(inst(OpConvert, ops(Array(f32, 4, 4))), Scalar(e4m3)), "f8e4m3fn[4,4]"},
		{"convert no type", inst(OpConvert, ops(Array(f32, 4))), "cannot: convert: the result element type cannot be inferred"},
		{"bitcast-convert same", withShape(inst(OpBitcastConvert, ops(Array(f32, 4))), Scalar(s32)), "s32[4]"},
		{"bitcast-convert narrower", withShape(inst(OpBitcastConvert, ops(Array(f32, 4))), Scalar(dtype.U8)), "u8[4,4]"},
		{"bitcast-convert wider", withShape(inst(OpBitcastConvert, ops(Array(dtype.U8, 3, 4))), Scalar(f32)), "f32[3]"},
		{"bitcast-convert bad", withShape(inst(OpBitcastConvert, ops(Array(dtype.U8, 3))), Scalar(f32)), "error: needs a last dimension of 4"},
		{"bitcast-convert invalid", withShape(inst(OpBitcastConvert, ops(Array(dtype.Invalid, 4))), Scalar(f32)), "error: cannot convert invalid[4] to f32"},
		{"stochastic-convert", withShape(inst(OpStochasticConvert, ops(Array(f32, 3), Array(dtype.U32, 3))), Scalar(bf16)), "bf16[3]"},
		{"reduce-precision", inst(OpReducePrecision, ops(Array(f32, 3)), Attr{"exponent_bits", Int(5)}, Attr{"mantissa_bits", Int(2)}), "f32[3]"},
		{"reduce-precision bad", inst(OpReducePrecision, ops(Array(f32, 3)), Attr{"exponent_bits", Int(0)}), "error: exponent_bits=0"},
		{"select", inst(OpSelect, ops(Array(pred, 2), Array(f32, 2), Array(f32, 2))), "f32[2]"},
		{"select scalar pred", inst(OpSelect, ops(Scalar(pred), Array(f32, 2), Array(f32, 2))), "error: select: the predicate pred[] and the operands f32[2] differ"},
		{"select not pred", inst(OpSelect, ops(Array(s32, 2), Array(f32, 2), Array(f32, 2))), "error: not pred"},
		{"clamp", inst(OpClamp, ops(Array(f32, 2), Array(f32, 2), Array(f32, 2))), "f32[2]"},
		{"clamp scalar bounds", inst(OpClamp, ops(Scalar(f32), Array(f32, 2), Scalar(f32))), "f32[2]"},
		{"clamp bad bound", inst(OpClamp, ops(Array(f32, 3), Array(f32, 2), Scalar(f32))), "error: clamp: the min f32[3] is neither a scalar nor the operand's shape f32[2]"},
		// Structure.
		{"tuple", inst(OpTuple, ops(Array(f32, 2), Scalar(s32))), "(f32[2], s32[])"},
		{"empty tuple", inst(OpTuple, nil), "()"},
		{"get-tuple-element", inst(OpGetTupleElement, ops(Tuple(Array(f32, 2), Scalar(s32))), Attr{"index", Int(1)}), "s32[]"},
		{"get-tuple-element range", inst(OpGetTupleElement, ops(Tuple(Array(f32, 2))), Attr{"index", Int(1)}), "error: index 1 is out of range for (f32[2])"},
		{"get-tuple-element array", inst(OpGetTupleElement, ops(Array(f32, 2)), Attr{"index", Int(0)}), "error: is not a tuple"},
		{"after-all", inst(OpAfterAll, ops(tok, tok)), "token[]"},
		{"after-all none", inst(OpAfterAll, nil), "token[]"},
		{"add-dependency", inst(OpAddDependency, ops(Array(f32, 2), tok)), "f32[2]"},
		{"opt-barrier", inst(OpOptimizationBarrier, ops(Tuple(Array(f32, 2), Scalar(s32)))), "(f32[2], s32[])"},
		{"get-dimension-size", inst(OpGetDimensionSize, ops(Array(f32, 2, 3)), dims(1)), "s32[]"},
		{"get-dimension-size bad", inst(OpGetDimensionSize, ops(Array(f32, 2, 3)), dims(2)), "error: dimensions={2}"},
		{"iota", inst(OpIota, nil, Attr{"iota_dimension", Int(0)}), "cannot: iota"},
		{"parameter", inst(OpParameter, nil), "cannot: parameter"},
		{"constant", inst(OpConstant, nil), "cannot: constant"},
		{"bitcast", withShape(inst(OpBitcast, ops(Array(f32, 2, 3))), Array(f32, 6)), "cannot: bitcast: the result shape cannot be inferred"},
		{"custom-call", inst(OpCustomCall, ops(Array(f32, 2))), "cannot: custom-call"},
		// Data movement.
		{"broadcast", withShape(inst(OpBroadcast, ops(Array(f32, 3)), dims(1)), Array(f32, 2, 3)), "f32[2,3]"},
		{"broadcast scalar", withShape(inst(OpBroadcast, ops(Scalar(f32))), Array(f32, 2, 3)), "f32[2,3]"},
		{"broadcast mismatch", withShape(inst(OpBroadcast, ops(Array(f32, 3)), dims(0)), Array(f32, 2, 3)), "error: broadcast: operand dimension 0 has size 3, result dimension 0 has size 2"},
		{"broadcast degenerate", withShape(inst(OpBroadcast, ops(Array(f32, 1)), dims(0)), Array(f32, 3)), "error: operand dimension 0 has size 1, result dimension 0 has size 3"},
		// XLA's verifier takes dimensions in any order (its simplifier folds transposes into broadcasts).
		{"broadcast order", withShape(inst(OpBroadcast, ops(Array(f32, 4, 3)), dims(1, 0)), Array(f32, 3, 4)), "f32[3,4]"},
		{"broadcast transposed", withShape(inst(OpBroadcast, ops(Array(f32, 4, 3)), dims(1, 0)), Array(f32, 4, 3)), "error: operand dimension 0 has size 4, result dimension 1 has size 3"},
		{"broadcast repeated", withShape(inst(OpBroadcast, ops(Array(f32, 3, 3)), dims(1, 1)), Array(f32, 3, 3)), "error: dimensions={1,1} names result dimension 1 twice"},
		{"broadcast rank", withShape(inst(OpBroadcast, ops(Array(f32, 3)), dims()), Array(f32, 3)), "error: dimensions={} lists 0 dimensions; the operand f32[3] has rank 1"},
		{"broadcast no shape scalar", inst(OpBroadcast, ops(Scalar(f32))), "f32[]"},
		{"broadcast no shape, XLA's sizes", inst(OpBroadcast, ops(Array(f32, 3)), dims(1)), "f32[1,3]"},
		{"broadcast no shape", inst(OpBroadcast, ops(Array(f32, 3)), dims(0)), "cannot: broadcast"},
		{"reshape", withShape(inst(OpReshape, ops(Array(f32, 2, 3))), Array(f32, 6)), "f32[6]"},
		{"reshape count", withShape(inst(OpReshape, ops(Array(f32, 2, 3))), Array(f32, 5)), "error: reshape: f32[2,3] has 6 elements, f32[5] has 5"},
		{"reshape no shape", inst(OpReshape, ops(Array(f32, 2, 3))), "cannot: reshape"},
		{"transpose", inst(OpTranspose, ops(Array(f32, 2, 3, 4)), dims(2, 0, 1)), "f32[4,2,3]"},
		{"transpose bad", inst(OpTranspose, ops(Array(f32, 2, 3)), dims(0, 0)), "error: dimensions={0,0} is not a permutation"},
		{"reverse", inst(OpReverse, ops(Array(f32, 2, 3)), dims(1)), "f32[2,3]"},
		{"slice", inst(OpSlice, ops(Array(f32, 10, 8)), Attr{"slice", Slice{{2, 8, 1}, {0, 8, 3}}}), "f32[6,3]"},
		{"slice past", inst(OpSlice, ops(Array(f32, 10)), Attr{"slice", Slice{{2, 11, 1}}}), "error: slice: dimension 0 ends at 11, past its size 10"},
		{"slice rank", inst(OpSlice, ops(Array(f32, 10)), Attr{"slice", Slice{}}), "error: slice= has 0 dimensions"},
		{"dynamic-slice", inst(OpDynamicSlice, ops(Array(f32, 10, 8), Scalar(s32), Scalar(s32)), Attr{"dynamic_slice_sizes", Ints{2, 8}}), "f32[2,8]"},
		{"dynamic-slice vector", inst(OpDynamicSlice, ops(Array(f32, 10, 8), Array(s32, 2)), Attr{"dynamic_slice_sizes", Ints{2, 8}}), "f32[2,8]"},
		{"dynamic-slice big", inst(OpDynamicSlice, ops(Array(f32, 10), Scalar(s32)), Attr{"dynamic_slice_sizes", Ints{11}}), "error: slice size 11"},
		{"dynamic-slice indices", inst(OpDynamicSlice, ops(Array(f32, 10, 8), Scalar(s32)), Attr{"dynamic_slice_sizes", Ints{2, 8}}), "error: has 1 start index; the operand f32[10,8] has rank 2"},
		{"dynamic-update-slice", inst(OpDynamicUpdateSlice, ops(Array(f32, 10), Array(f32, 3), Scalar(s32))), "f32[10]"},
		{"dynamic-update-slice big", inst(OpDynamicUpdateSlice, ops(Array(f32, 10), Array(f32, 11), Scalar(s32))), "error: update dimension 0 has size 11"},
		{"pad", inst(OpPad, ops(Array(f32, 4, 3), Scalar(f32)), Attr{"padding", Padding{{1, 2, 0}, {0, 0, 1}}}), "f32[7,5]"},
		{"pad negative", inst(OpPad, ops(Array(f32, 4), Scalar(f32)), Attr{"padding", Padding{{-1, -1, 0}}}), "f32[2]"},
		{"pad value", inst(OpPad, ops(Array(f32, 4), Array(f32, 1)), Attr{"padding", Padding{{1, 1, 0}}}), "error: the padding value f32[1] is not a scalar"},
		{"concatenate", inst(OpConcatenate, ops(Array(f32, 2, 3), Array(f32, 2, 5)), dims(1)), "f32[2,8]"},
		{"concatenate bad", inst(OpConcatenate, ops(Array(f32, 2, 3), Array(f32, 3, 5)), dims(1)), "error: concatenate: operands 0 and 1 differ in dimension 0"},
		{"concatenate overflow", inst(OpConcatenate, ops(Array(f32, 1<<62), Array(f32, 1<<62), Array(f32, 3)), dims(0)), "error: the concatenated dimension 0 overflows"},
		{"gather", inst(OpGather, ops(Array(f32, 3, 4), Array(s32, 5, 1)),
			Attr{"offset_dims", Ints{1}}, Attr{"collapsed_slice_dims", Ints{0}}, Attr{"start_index_map", Ints{0}},
			Attr{"index_vector_dim", Int(1)}, Attr{"slice_sizes", Ints{1, 4}}), "f32[5,4]"},
		{"gather batching", inst(OpGather, ops(Array(f32, 2, 3, 4), Array(s32, 2, 5, 1)),
			Attr{"offset_dims", Ints{2}}, Attr{"collapsed_slice_dims", Ints{1}}, Attr{"operand_batching_dims", Ints{0}},
			Attr{"start_indices_batching_dims", Ints{0}}, Attr{"start_index_map", Ints{1}},
			Attr{"index_vector_dim", Int(2)}, Attr{"slice_sizes", Ints{1, 1, 4}}), "f32[2,5,4]"},
		{"scatter", inst(OpScatter, ops(Array(f32, 3, 4), Array(s32, 5, 1), Array(f32, 5, 4)),
			Attr{"update_window_dims", Ints{1}}, Attr{"inserted_window_dims", Ints{0}},
			Attr{"scatter_dims_to_operand_dims", Ints{0}}, Attr{"index_vector_dim", Int(1)}, toApply(add)), "f32[3,4]"},
		// XLA's shape inference refuses these (InferScatterShape, InferGatherShape and their
		// dimension-number checks): updates whose scatter dimension is not the indices', a window larger
		// than the operand, a repeated index map, batching dimensions of different sizes.
		{"scatter updates count", inst(OpScatter, ops(Array(f32, 5), Array(s32, 2, 1), Array(f32, 3)),
			Attr{"update_window_dims", Ints{}}, Attr{"inserted_window_dims", Ints{0}},
			Attr{"scatter_dims_to_operand_dims", Ints{0}}, Attr{"index_vector_dim", Int(1)}, toApply(add)),
			"error: scatter dimension 0 of the updates f32[3] has size 3; the indices s32[2,1] have 2 there"},
		{"scatter window too large", inst(OpScatter, ops(Array(f32, 5), Array(s32, 1, 1), Array(f32, 1, 7)),
			Attr{"update_window_dims", Ints{1}}, Attr{"inserted_window_dims", Ints{}},
			Attr{"scatter_dims_to_operand_dims", Ints{0}}, Attr{"index_vector_dim", Int(1)}, toApply(add)),
			"error: update window dimension 1 of f32[1,7] has size 7, more than the 5 of the operand f32[5]"},
		{"scatter repeated map", inst(OpScatter, ops(Array(f32, 3, 4), Array(s32, 5, 2), Array(f32, 5)),
			Attr{"update_window_dims", Ints{}}, Attr{"inserted_window_dims", Ints{0, 1}},
			Attr{"scatter_dims_to_operand_dims", Ints{0, 0}}, Attr{"index_vector_dim", Int(1)}, toApply(add)),
			"error: scatter_dims_to_operand_dims={0,0} repeats a dimension"},
		{"gather repeated map", inst(OpGather, ops(Array(f32, 3, 4), Array(s32, 5, 2)),
			Attr{"offset_dims", Ints{}}, Attr{"collapsed_slice_dims", Ints{0, 1}}, Attr{"start_index_map", Ints{0, 0}},
			Attr{"index_vector_dim", Int(1)}, Attr{"slice_sizes", Ints{1, 1}}), "error: start_index_map={0,0} repeats a dimension"},
		{"gather batching sizes", inst(OpGather, ops(Array(f32, 3, 3, 4), Array(s32, 2, 5, 1)),
			Attr{"offset_dims", Ints{2}}, Attr{"collapsed_slice_dims", Ints{1}}, Attr{"operand_batching_dims", Ints{0}},
			Attr{"start_indices_batching_dims", Ints{0}}, Attr{"start_index_map", Ints{1}},
			Attr{"index_vector_dim", Int(2)}, Attr{"slice_sizes", Ints{1, 1, 4}}),
			"error: batching dimension 0 of the operand f32[3,3,4] has size 3, dimension 0 of the indices 2"},
		{"gather batching count", inst(OpGather, ops(Array(f32, 2, 3, 4), Array(s32, 2, 5, 1)),
			Attr{"offset_dims", Ints{2}}, Attr{"collapsed_slice_dims", Ints{1}}, Attr{"operand_batching_dims", Ints{0}},
			Attr{"start_index_map", Ints{1}}, Attr{"index_vector_dim", Int(2)}, Attr{"slice_sizes", Ints{1, 1, 4}}),
			"error: operand_batching_dims={0} and start_indices_batching_dims={} differ in length"},
		// Dot and convolution.
		{"dot", inst(OpDot, ops(Array(f32, 16, 64), Array(f32, 64, 32)), dot([]int64{1}, []int64{0}, nil, nil)...), "f32[16,32]"},
		{"dot batch", inst(OpDot, ops(Array(bf16, 8, 16, 64), Array(bf16, 8, 32, 64)), dot([]int64{2}, []int64{2}, []int64{0}, []int64{0})...), "bf16[8,16,32]"},
		{"dot contracting", inst(OpDot, ops(Array(f32, 16, 64), Array(f32, 32, 32)), dot([]int64{1}, []int64{0}, nil, nil)...),
			"error: dot: lhs contracting dimension 1 has size 64, rhs contracting dimension 0 has size 32"},
		{"dot outer", inst(OpDot, ops(Array(f32, 2), Array(f32, 3))), "f32[2,3]"},
		{"dot range", inst(OpDot, ops(Array(f32, 2), Array(f32, 2)), dot([]int64{1}, []int64{0}, nil, nil)...), "error: out of range for the lhs f32[2]"},
		{"dot fp8 mixed", inst(OpDot, ops(Array(e4m3, 16, 32), Array(e5m2, 32, 16)), dot([]int64{1}, []int64{0}, nil, nil)...),
			"cannot: dot: the result element type cannot be inferred from operands of different types (f8e4m3fn and f8e5m2)"},
		{"dot fp8 given", withShape(inst(OpDot, ops(Array(e4m3, 16, 32), Array(e5m2, 32, 16)), dot([]int64{1}, []int64{0}, nil, nil)...), Scalar(f32)), "f32[16,16]"},
		{"dot int narrow", withShape(inst(OpDot, ops(Array(s32, 4), Array(s32, 4)), dot([]int64{0}, []int64{0}, nil, nil)...), Scalar(dtype.S8)), "error: narrower"},
		{"convolution", inst(OpConvolution, ops(Array(f32, 1, 8, 8, 3), Array(f32, 3, 3, 3, 16)),
			Attr{"window", Window{{Size: 3, Stride: 1, PadLow: 1, PadHigh: 1, BaseDilation: 1, WindowDilation: 1}, {Size: 3, Stride: 2, BaseDilation: 1, WindowDilation: 1}}},
			Attr{"dim_labels", &ConvDims{InputBatch: 0, InputFeature: 3, InputSpatial: []int64{1, 2}, KernelInputFeature: 2, KernelOutput: 3,
				KernelSpatial: []int64{0, 1}, OutputBatch: 0, OutputFeature: 3, OutputSpatial: []int64{1, 2}}}), "f32[1,8,3,16]"},
		// Called computations.
		{"reduce", inst(OpReduce, ops(Array(f32, 4, 5), Scalar(f32)), dims(1), toApply(add)), "f32[4]"},
		{"reduce all", inst(OpReduce, ops(Array(f32, 4, 5), Scalar(f32)), dims(0, 1), toApply(add)), "f32[]"},
		{"reduce variadic", inst(OpReduce, ops(Array(f32, 4, 5), Array(s32, 4, 5), Scalar(f32), Scalar(s32)), dims(0), toApply(add2)), "(f32[5], s32[5])"},
		{"reduce reducer", inst(OpReduce, ops(Array(f32, 4, 5), Array(f32, 4, 5), Scalar(f32), Scalar(f32)), dims(0), toApply(add)),
			"error: reduce: the reducer %add takes 2 parameters; 4 are needed"},
		{"reduce init", inst(OpReduce, ops(Array(f32, 4, 5), Scalar(s32)), dims(0), toApply(add)), "error: init value 0 is s32[]"},
		{"reduce input type", inst(OpReduce, ops(Array(s32, 4, 5), Scalar(f32)), dims(0), toApply(add)), "error: parameter 1 of the reducer %add is f32[]; input 0 has elements of s32"},
		{"reduce dims", inst(OpReduce, ops(Array(s32, 4, 5), Scalar(s32)), dims(2), toApply(addS32)), "error: dimension 2 is out of range"},
		{"reduce unresolved", inst(OpReduce, ops(Array(f32, 4), Scalar(f32)), dims(0), Attr{"to_apply", CompRef{}}), "cannot: reduce"},
		{"reduce-window", inst(OpReduceWindow, ops(Array(f32, 4, 6), Scalar(f32)), toApply(add),
			Attr{"window", Window{{Size: 2, Stride: 2, BaseDilation: 1, WindowDilation: 1}, {Size: 3, Stride: 1, BaseDilation: 1, WindowDilation: 1}}}), "f32[2,4]"},
		// A stride or dilation of 0 is refused as a negative one is (ShapeInference's "non-positive").
		{"reduce-window stride 0", inst(OpReduceWindow, ops(Array(f32, 8), Scalar(f32)), toApply(add),
			Attr{"window", Window{{Size: 2, Stride: 0, BaseDilation: 1, WindowDilation: 1}}}), "error: window dimension 0 has a non-positive size, stride or dilation"},
		{"reduce-window lhs_dilate 0", inst(OpReduceWindow, ops(Array(f32, 8), Scalar(f32)), toApply(add),
			Attr{"window", Window{{Size: 2, Stride: 1, BaseDilation: 0, WindowDilation: 1}}}), "error: window dimension 0 has a non-positive size, stride or dilation"},
		{"reduce-window rhs_dilate 0", inst(OpReduceWindow, ops(Array(f32, 8), Scalar(f32)), toApply(add),
			Attr{"window", Window{{Size: 2, Stride: 1, BaseDilation: 1, WindowDilation: 0}}}), "error: window dimension 0 has a non-positive size, stride or dilation"},
		// Sizes, paddings and dilations near 2^63 are added and multiplied exactly: a result past the int64
		// range is refused, not wrapped around to a small size that a declared shape could match (a window
		// of 3689348814741910326 elements dilated by 5 wrapped to 10, and the pad below to 3).
		{"reduce-window dilation overflow", inst(OpReduceWindow, ops(Array(f32, 10), Scalar(f32)), toApply(add),
			Attr{"window", Window{{Size: 3689348814741910326, Stride: 1, BaseDilation: 1, WindowDilation: 5}}}), "error: window dimension 0 over an input of size 10 has a padded or dilated size past the int64 range"},
		{"reduce-window padding overflow", inst(OpReduceWindow, ops(Array(f32, 10), Scalar(f32)), toApply(add),
			Attr{"window", Window{{Size: 1, Stride: 1 << 62, PadLow: math.MaxInt64, PadHigh: 1, BaseDilation: 1, WindowDilation: 1}}}), "error: window dimension 0 over an input of size 10 has a padded or dilated size past the int64 range"},
		// Padding on one side cancelled by the other's is refused where the padded positions pass 2^63.
		{"reduce-window padding cancels", inst(OpReduceWindow, ops(Array(f32, 10), Scalar(f32)), toApply(add),
			Attr{"window", Window{{Size: 1, Stride: 1, PadLow: math.MaxInt64, PadHigh: -math.MaxInt64, BaseDilation: 1, WindowDilation: 1}}}), "error: window dimension 0 over an input of size 10 has a padded or dilated size past the int64 range"},
		{"reduce-window large padding", inst(OpReduceWindow, ops(Array(f32, 10), Scalar(f32)), toApply(add),
			Attr{"window", Window{{Size: 2, Stride: math.MaxInt64 - 9, PadLow: 0, PadHigh: math.MaxInt64 - 10, BaseDilation: 1, WindowDilation: 1}}}), "f32[2]"},
		{"reduce-window negative padding past int64", inst(OpReduceWindow, ops(Array(f32, 10), Scalar(f32)), toApply(add),
			Attr{"window", Window{{Size: 1, Stride: 1, PadLow: math.MinInt64, PadHigh: -1, BaseDilation: 1, WindowDilation: 1}}}), "f32[0]"},
		{"convolution base dilation overflow", inst(OpConvolution, ops(Array(f32, 1, 1, 10), Array(f32, 1, 1, 3)),
			Attr{"window", Window{{Size: 3, Stride: math.MaxInt64, PadLow: math.MaxInt64, PadHigh: math.MaxInt64, BaseDilation: math.MaxInt64, WindowDilation: 1}}},
			Attr{"dim_labels", &ConvDims{InputBatch: 0, InputFeature: 1, InputSpatial: []int64{2}, KernelInputFeature: 0, KernelOutput: 1, KernelSpatial: []int64{2},
				OutputBatch: 0, OutputFeature: 1, OutputSpatial: []int64{2}}}), "error: window dimension 0 over an input of size 10 has a padded or dilated size past the int64 range"},
		{"pad overflow", inst(OpPad, ops(Array(f32, 2), Scalar(f32)), Attr{"padding", Padding{{math.MaxInt64, 3, math.MaxInt64}}}),
			"error: pad: dimension 0 of f32[2] with padding 9223372036854775807_3_9223372036854775807 has a size past the int64 range"},
		{"pad interior overflow", inst(OpPad, ops(Array(f32, 2), Scalar(f32)), Attr{"padding", Padding{{math.MinInt64 + 1, 0, math.MaxInt64}}}),
			"error: pad: dimension 0 of f32[2] with padding -9223372036854775807_0_9223372036854775807 has a size past the int64 range"},
		{"pad cancels", inst(OpPad, ops(Array(f32, 3), Scalar(f32)), Attr{"padding", Padding{{math.MaxInt64, -math.MaxInt64, 0}}}),
			"error: pad: dimension 0 of f32[3] with padding 9223372036854775807_-9223372036854775807_0 has a size past the int64 range"},
		{"pad large", inst(OpPad, ops(Array(f32, 3), Scalar(f32)), Attr{"padding", Padding{{math.MaxInt64 - 3, 3 - math.MaxInt64, 0}}}), "f32[3]"},
		{"pad negative past int64", inst(OpPad, ops(Array(f32, 1), Scalar(f32)), Attr{"padding", Padding{{math.MinInt64, -1, 0}}}),
			"error: pad: dimension 0 of f32[1] with padding -9223372036854775808_-1_0 would have a negative size"},
		// A dimension of unbounded size stays unbounded, as in XLA's shape inference.
		{"pad unbounded", inst(OpPad, ops(Array(f32, UnboundedDim, 2), Scalar(f32)), Attr{"padding", Padding{{1, 1, 1}, {1, 0, 0}}}), "f32[?,3]"},
		{"reduce-window unbounded", inst(OpReduceWindow, ops(Array(f32, UnboundedDim), Scalar(f32)), toApply(add),
			Attr{"window", Window{{Size: 2, Stride: 1, BaseDilation: 1, WindowDilation: 1}}}), "f32[?]"},
		{"slice stride near 2^63", inst(OpSlice, ops(Array(f32, 10)), Attr{"slice", Slice{{0, 10, math.MaxInt64}}}), "f32[1]"},
		{"map", inst(OpMap, ops(Array(f32, 4), Array(f32, 4)), dims(0), toApply(add)), "f32[4]"},
		// The computation reads each operand's elements as they are: no other floating-point type.
		{"map other precision", inst(OpMap, ops(Array(f32, 4), Array(bf16, 4)), dims(0), toApply(add)), "error: parameter 1 of %add is f32[]; operand 1 has elements of bf16"},
		{"sort", inst(OpSort, ops(Array(f32, 4), Array(s32, 4)), dims(0), toApply(less)), "(f32[4], s32[4])"},
		{"sort comparator", inst(OpSort, ops(Array(f32, 4)), dims(0), toApply(less)), "error: the comparator %less takes 4 parameters; 2 are needed"},
		{"call", inst(OpCall, ops(Scalar(f32), Scalar(f32)), toApply(add)), "f32[]"},
		{"call arguments", inst(OpCall, ops(Scalar(f32), Array(f32, 2)), toApply(add)), "error: call: parameter 1 of the called computation %add is f32[], operand 1 is f32[2]"},
		{"fusion", inst(OpFusion, ops(Array(f32, 8), Scalar(f32)), Attr{"kind", Raw("kLoop")}, Attr{"calls", CompRef{fused}}), "f32[8]"},
		{"fusion operands", inst(OpFusion, ops(Array(f32, 8), Array(f32, 8)), Attr{"kind", Raw("kLoop")}, Attr{"calls", CompRef{fused}}),
			"error: parameter 1 of the fused computation %fused is f32[], operand 1 is f32[8]"},
		{"while", inst(OpWhile, ops(Tuple(Scalar(s32), Array(f32, 4))), Attr{"condition", CompRef{cond}}, Attr{"body", CompRef{body}}), "(s32[], f32[4])"},
		{"while init", inst(OpWhile, ops(Tuple(Scalar(s32))), Attr{"condition", CompRef{cond}}, Attr{"body", CompRef{body}}), "error: parameter 0 of the condition %cond"},
		{"while cond", inst(OpWhile, ops(Tuple(Scalar(s32), Array(f32, 4))), Attr{"condition", CompRef{body}}, Attr{"body", CompRef{body}}), "error: the condition %body returns (s32[], f32[4]), not pred[]"},
		{"conditional", inst(OpConditional, ops(Scalar(pred), Scalar(f32), Scalar(f32)),
			Attr{"true_computation", CompRef{fused}}, Attr{"false_computation", CompRef{fused}}), "error: conditional: branch 0 %fused takes 2 parameters, given 1 operand"},
		// Others.
		{"replica-id", inst(OpReplicaId, nil), "u32[]"},
		{"topk", inst(OpTopk, ops(Array(f32, 3, 10)), Attr{"k", Int(4)}), "(f32[3,4], s32[3,4])"},
		{"cholesky", inst(OpCholesky, ops(Array(f32, 2, 3, 3))), "f32[2,3,3]"},
		{"fft", inst(OpFft, ops(Array(f32, 8)), Attr{"fft_type", Raw("RFFT")}, Attr{"fft_length", Ints{8}}), "c64[5]"},
		{"batch-norm-training", inst(OpBatchNormTraining, ops(Array(f32, 2, 4), Array(f32, 4), Array(f32, 4)), Attr{"feature_index", Int(1)}), "(f32[2,4], f32[4], f32[4])"},
		{"all-gather", inst(OpAllGather, ops(Array(f32, 2)), dims(0)), "cannot: all-gather"},
		{"missing operand", inst(OpNegate, []*Instruction{nil}), "error: negate: operand 0 is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := InferShape(tt.in)
			switch {
			case strings.HasPrefix(tt.want, "error: "):
				if err == nil || errors.Is(err, ErrCannotInfer) || !strings.Contains(err.Error(), tt.want[len("error: "):]) {
					t.Errorf("InferShape = %s, %v; want an error containing %q", got.String(), err, tt.want[len("error: "):])
				}
			case strings.HasPrefix(tt.want, "cannot: "):
				if !errors.Is(err, ErrCannotInfer) || !strings.Contains(err.Error(), tt.want[len("cannot: "):]) {
					t.Errorf("InferShape = %s, %v; want ErrCannotInfer with %q", got.String(), err, tt.want[len("cannot: "):])
				}
			case err != nil:
				t.Errorf("InferShape: %v; want %s", err, tt.want)
			case got.String() != tt.want:
				t.Errorf("InferShape = %s; want %s", got.String(), tt.want)
			}
		})
	}
}

func TestInferShapeLayouts(t *testing.T) {
	// New arrays get the default layout; forwarded shapes keep theirs.
	x := Array(f32, 2, 3)
	l := Layout{MinorToMajor: []int64{0, 1}}
	x.Layout = &l
	got, err := InferShape(inst(OpNegate, ops(x)))
	if err != nil || got.Layout == nil || !got.Layout.Equal(l) {
		t.Errorf("negate of f32[2,3]{0,1} = %+v, %v; want the operand's layout", got.Layout, err)
	}
	got, err = InferShape(inst(OpTranspose, ops(x), Attr{"dimensions", Ints{1, 0}}))
	if err != nil || got.Layout == nil || !got.Layout.Equal(DefaultLayout(2)) {
		t.Errorf("transpose = %+v, %v; want the default layout", got.Layout, err)
	}
	got, err = InferShape(inst(OpTuple, ops(x, Scalar(f32))))
	if err != nil || !got.Tuple[0].Layout.Equal(l) || got.Tuple[1].Layout == nil {
		t.Errorf("tuple = %+v, %v; want the element layouts kept and set", got, err)
	}
}

func TestShapeString(t *testing.T) {
	dyn := Array(f32, 4, UnboundedDim, 3)
	dyn.Dynamic = []bool{true, false, false}
	for _, tt := range []struct {
		s    Shape
		want string
	}{
		{Array(f32, 16, 32), "f32[16,32]"},
		{Scalar(pred), "pred[]"},
		{Tuple(Array(bf16, 2), Tuple(), tok), "(bf16[2], (), token[])"},
		{Shape{Kind: OpaqueShape}, "opaque[]"},
		{dyn, "f32[<=4,?,3]"},
	} {
		if got := tt.s.String(); got != tt.want {
			t.Errorf("Shape.String = %s; want %s", got, tt.want)
		}
	}
}

func TestHigherPrecision(t *testing.T) {
	for _, tt := range []struct{ a, b, want dtype.Type }{
		{f32, bf16, f32},
		{dtype.F16, bf16, bf16},
		{e4m3, e5m2, e5m2},
		{dtype.F64, f32, dtype.F64},
		{s32, s32, s32},
	} {
		if got := higherPrecision(tt.a, tt.b); got != tt.want {
			t.Errorf("higherPrecision(%s, %s) = %s; want %s", tt.a, tt.b, got, tt.want)
		}
		if got := higherPrecision(tt.b, tt.a); got != tt.want {
			t.Errorf("higherPrecision(%s, %s) = %s; want %s", tt.b, tt.a, got, tt.want)
		}
	}
}

// TestInferLargeRank: the shapes of a dot and a gather are inferred in time linear in the rank (a search
// of the batch or offset dimensions for each dimension took minutes at rank 200,000): eight times the rank
// takes less than twenty times as long.
func TestInferLargeRank(t *testing.T) {
	shapes := func(rank int) (dot, gather *Instruction) {
		ones := make([]int64, rank)
		all := make(Ints, rank)
		for i := range ones {
			ones[i], all[i] = 1, int64(i)
		}
		x := Array(f32, ones...)
		dot = inst(OpDot, ops(x, x), Attr{"lhs_batch_dims", all}, Attr{"rhs_batch_dims", all},
			Attr{"lhs_contracting_dims", Ints{}}, Attr{"rhs_contracting_dims", Ints{}})
		gather = inst(OpGather, ops(x, Array(s32, 1)), Attr{"offset_dims", all}, Attr{"collapsed_slice_dims", Ints{}},
			Attr{"start_index_map", Ints{0}}, Attr{"index_vector_dim", Int(0)}, Attr{"slice_sizes", Ints(ones)})
		return dot, gather
	}
	const rank = 2_000
	insts := map[int][2]*Instruction{}
	for _, r := range []int{rank, 8 * rank} {
		dot, gather := shapes(r)
		insts[r] = [2]*Instruction{dot, gather}
		for _, in := range insts[r] {
			if s, err := InferShape(in); err != nil || len(s.Dims) != r || slices.ContainsFunc(s.Dims, func(d int64) bool { return d != 1 }) {
				t.Errorf("%s of rank %d: %v", in.Opcode, r, err)
			}
		}
	}
	g := growth(func(r int) {
		for _, in := range insts[r] {
			InferShape(in)
		}
	}, rank)
	if g > 20 {
		t.Errorf("rank %d takes %.1f times as long to infer as rank %d", 8*rank, g, rank)
	}
	t.Logf("rank %d takes %.1f times as long to infer as rank %d", 8*rank, g, rank)
}

package interp

import (
	"fmt"
	"slices"

	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

// evalFunc evaluates one instruction whose operands have the values ops.
type evalFunc func(e *evaluator, in *hlo.Instruction, ops []Value) (Value, error)

// arrayFunc evaluates an instruction whose operands and result are arrays.
type arrayFunc func(e *evaluator, in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error)

// evaluators holds the evaluator of each opcode the interpreter implements, indexed by opcode.
var evaluators []evalFunc

// Supported reports whether the interpreter evaluates op. An evaluator may still refuse some operand types
// or configurations (a custom-call target it does not know, a complex convolution) with an
// *UnsupportedError; an opcode not supported is refused whatever its operands. A parameter has no
// evaluator: it takes the value its caller passes.
func Supported(op hlo.Opcode) bool { return op == hlo.OpParameter || evaluatorOf(op) != nil }

// Ops returns the opcodes the interpreter evaluates, in opcode order.
func Ops() []hlo.Opcode {
	var ops []hlo.Opcode
	for _, op := range hlo.Opcodes() {
		if Supported(op) {
			ops = append(ops, op)
		}
	}
	return ops
}

func evaluatorOf(op hlo.Opcode) evalFunc {
	if int(op) < len(evaluators) {
		return evaluators[op]
	}
	return nil
}

// register makes f the evaluator of ops.
func register(f evalFunc, ops ...hlo.Opcode) {
	for _, op := range ops {
		if int(op) >= len(evaluators) {
			evaluators = append(evaluators, make([]evalFunc, int(op)+1-len(evaluators))...)
		}
		if evaluators[op] != nil {
			panic(fmt.Sprintf("interp: %s has two evaluators", op))
		}
		evaluators[op] = f
	}
}

// registerArray makes f the evaluator of ops, which take array operands and give an array of the
// instruction's shape.
func registerArray(f arrayFunc, ops ...hlo.Opcode) {
	register(func(e *evaluator, in *hlo.Instruction, ops []Value) (Value, error) {
		if !in.Shape.IsArray() {
			return Value{}, unsupportedf(in, "%s", describeOp(in))
		}
		ts, err := arrays(in, ops)
		if err != nil {
			return Value{}, err
		}
		t, err := f(e, in, ts)
		if err != nil {
			return Value{}, err
		}
		if t.Type != in.Shape.Elem || !slices.Equal(t.Shape, in.Shape.Dims) {
			return Value{}, errorf(in, "produced %s where its shape says %s", t, in.Shape.String())
		}
		return ArrayValue(t), nil
	}, ops...)
}

func init() {
	// Values, tuples and tokens.
	register(func(e *evaluator, in *hlo.Instruction, ops []Value) (Value, error) { return e.weights.constant(in) }, hlo.OpConstant)
	register(func(e *evaluator, in *hlo.Instruction, ops []Value) (Value, error) {
		return TupleValue(append([]Value(nil), ops...)...), nil
	}, hlo.OpTuple)
	register(func(e *evaluator, in *hlo.Instruction, ops []Value) (Value, error) {
		i, ok := in.Int("index")
		if !ok || len(ops) != 1 || ops[0].Kind != KindTuple || i < 0 || i >= int64(len(ops[0].Tuple)) {
			return Value{}, errorf(in, "get-tuple-element index out of range or operand not a tuple")
		}
		return ops[0].Tuple[i], nil
	}, hlo.OpGetTupleElement)
	register(func(e *evaluator, in *hlo.Instruction, ops []Value) (Value, error) {
		if len(ops) != 1 {
			return Value{}, errorf(in, "%s takes one operand", in.Opcode)
		}
		return ops[0], nil
	}, hlo.OpOptimizationBarrier, hlo.OpDomain)
	register(func(e *evaluator, in *hlo.Instruction, ops []Value) (Value, error) {
		if len(ops) != 2 {
			return Value{}, errorf(in, "add-dependency takes two operands")
		}
		return ops[0], nil
	}, hlo.OpAddDependency)
	register(func(e *evaluator, in *hlo.Instruction, ops []Value) (Value, error) { return TokenValue(), nil }, hlo.OpAfterAll)
	register(func(e *evaluator, in *hlo.Instruction, ops []Value) (Value, error) {
		t := tensor.New(dtype.U32, nil)
		if e.dev != nil {
			t.SetBitsAt(0, uint64(e.dev.partition))
		}
		return ArrayValue(t), nil
	}, hlo.OpPartitionId)
	register(func(e *evaluator, in *hlo.Instruction, ops []Value) (Value, error) {
		t := tensor.New(dtype.U32, nil)
		if e.dev != nil {
			t.SetBitsAt(0, uint64(e.dev.replica))
		}
		return ArrayValue(t), nil
	}, hlo.OpReplicaId)
	register(func(e *evaluator, in *hlo.Instruction, ops []Value) (Value, error) { return e.iota(in) }, hlo.OpIota)

	// Calls and control flow.
	register(func(e *evaluator, in *hlo.Instruction, ops []Value) (Value, error) {
		if isManualComputation(in) {
			return e.manualComputation(in, ops)
		}
		return e.callFrame(in.CalledComputation("to_apply"), ops, true, e.takeDonate())
	}, hlo.OpCall)
	register(func(e *evaluator, in *hlo.Instruction, ops []Value) (Value, error) {
		donated := e.takeDonate()
		if un := unswizzleCudnnScales(in, ops); len(un) > 0 && &un[0] != &ops[0] {
			// Scales unswizzled into new arrays: arguments other than the operands donated, so the
			// donation is not taken (the frame drops the references after the call).
			ops, donated = un, nil
		}
		c := in.CalledComputation("calls")
		if c != nil && len(ops) == len(c.Params) {
			if p := e.chunkPlanOf(c); p != nil {
				return e.fusionChunked(in, p, ops)
			}
		}
		return e.callFrame(c, ops, true, donated)
	}, hlo.OpFusion)
	register((*evaluator).while, hlo.OpWhile)
	register((*evaluator).conditional, hlo.OpConditional)
	register((*evaluator).customCall, hlo.OpCustomCall)

	// Asynchronous pairs, run at their start.
	register((*evaluator).asyncStart, hlo.OpAsyncStart)
	register(func(e *evaluator, in *hlo.Instruction, ops []Value) (Value, error) { return ops[0], nil }, hlo.OpAsyncUpdate)
	register(func(e *evaluator, in *hlo.Instruction, ops []Value) (Value, error) {
		if len(ops) != 1 || ops[0].Kind != KindTuple || len(ops[0].Tuple) < 2 {
			return Value{}, errorf(in, "async-done needs the tuple of an async-start")
		}
		return ops[0].Tuple[1], nil
	}, hlo.OpAsyncDone)
	register(func(e *evaluator, in *hlo.Instruction, ops []Value) (Value, error) {
		if len(ops) != 1 {
			return Value{}, errorf(in, "copy-start takes one operand")
		}
		return TupleValue(ops[0], ops[0], ArrayValue(tensor.New(dtype.U32, nil))), nil
	}, hlo.OpCopyStart)
	register(func(e *evaluator, in *hlo.Instruction, ops []Value) (Value, error) {
		if len(ops) != 1 || ops[0].Kind != KindTuple || len(ops[0].Tuple) < 2 {
			return Value{}, errorf(in, "copy-done needs the tuple of a copy-start")
		}
		return ops[0].Tuple[1], nil
	}, hlo.OpCopyDone)

	// Computations over called scalar functions.
	register((*evaluator).sort, hlo.OpSort)
	register((*evaluator).reduce, hlo.OpReduce)
	register((*evaluator).reduceWindow, hlo.OpReduceWindow)
	register((*evaluator).scatter, hlo.OpScatter)
	register((*evaluator).mapOp, hlo.OpMap)
	register((*evaluator).selectAndScatter, hlo.OpSelectAndScatter)
	register((*evaluator).topK, hlo.OpTopk)

	// Collectives over one device, and random numbers.
	register((*evaluator).collective, hlo.OpAllReduce, hlo.OpAllGather, hlo.OpReduceScatter, hlo.OpAllToAll,
		hlo.OpCollectiveBroadcast, hlo.OpCollectivePermute, hlo.OpAllReduceStart, hlo.OpCollectiveReduce)
	register(func(e *evaluator, in *hlo.Instruction, ops []Value) (Value, error) {
		if len(ops) != 1 {
			return Value{}, errorf(in, "all-reduce-done takes one operand")
		}
		return ops[0], nil
	}, hlo.OpAllReduceDone)
	register((*evaluator).rng, hlo.OpRng)
	register((*evaluator).rngBitGenerator, hlo.OpRngBitGenerator)
	register(func(e *evaluator, in *hlo.Instruction, ops []Value) (Value, error) { return e.rngState(in) }, hlo.OpRngGetAndUpdateState)

	// Elementwise.
	registerArray((*evaluator).compare, hlo.OpCompare)
	registerArray((*evaluator).selectOp, hlo.OpSelect)
	registerArray((*evaluator).clamp, hlo.OpClamp)
	registerArray((*evaluator).convert, hlo.OpConvert)
	registerArray((*evaluator).bitcastConvert, hlo.OpBitcastConvert)
	registerArray((*evaluator).reducePrecision, hlo.OpReducePrecision)
	registerArray(func(e *evaluator, in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error) {
		return ts[0], nil
	}, hlo.OpCopy)
	s32 := intInfoOf(dtype.S32)
	for _, op := range hlo.Opcodes() {
		switch {
		case evaluatorOf(op) != nil:
		case op.IsElementwiseUnary() && (op == hlo.OpIsFinite || unaryF64(op) != nil || unaryInt(op, s32) != nil || unaryComplex(op) != nil):
			registerArray((*evaluator).unary, op)
		case op.IsElementwiseBinary() && (op == hlo.OpComplex || binaryF64(op) != nil || binaryInt(op, s32) != nil || binaryComplex(op) != nil):
			registerArray((*evaluator).binary, op)
		}
	}

	// Shapes and data movement.
	registerArray((*evaluator).broadcast, hlo.OpBroadcast)
	registerArray((*evaluator).reshape, hlo.OpReshape)
	registerArray((*evaluator).bitcast, hlo.OpBitcast)
	registerArray((*evaluator).transpose, hlo.OpTranspose)
	registerArray((*evaluator).slice, hlo.OpSlice)
	registerArray((*evaluator).dynamicSlice, hlo.OpDynamicSlice)
	registerArray((*evaluator).dynamicUpdateSlice, hlo.OpDynamicUpdateSlice)
	registerArray((*evaluator).pad, hlo.OpPad)
	registerArray((*evaluator).concatenate, hlo.OpConcatenate)
	registerArray((*evaluator).reverse, hlo.OpReverse)
	registerArray((*evaluator).gather, hlo.OpGather)

	// Contractions.
	registerArray((*evaluator).dot, hlo.OpDot)
	registerArray((*evaluator).convolution, hlo.OpConvolution)
}

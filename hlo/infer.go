package hlo

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"octet/dtype"
)

// ErrCannotInfer is wrapped by the errors InferShape returns for instructions whose shape their operands
// and attributes do not determine (parameter, constant, iota, bitcast, reshape without a result shape,
// custom-call, collectives whose result depends on the device count, ...). errors.Is tells these apart from
// instructions whose operands disagree with each other.
var ErrCannotInfer = errors.New("cannot be inferred")

// InferShape returns the shape an instruction must have given its opcode, its operands' shapes, its
// attributes and the computations it calls, by XLA's shape-inference rules (xla/service/shape_inference.cc).
// The operands and attributes must be set, and the called computations resolved.
//
// A few results are not determined by the operands: XLA takes them from the instruction's own shape. When
// in.Shape is set (it is not the zero Shape, an array of dtype.Invalid), InferShape does the same:
//   - convert, bitcast-convert and stochastic-convert take their result element type from it;
//   - dot and convolution take it as the preferred element type (with no shape, the operands must share
//     their element type, which the result then has);
//   - broadcast and reshape take their result dimensions from it (checking them against the operand and
//     dimensions=) and the element type from the operand. Without a shape, reshape cannot be inferred,
//     and broadcast is inferred as XLA's parser does it: dimensions= read as the sizes of new major
//     dimensions (a scalar broadcast with dimensions={} gives the scalar), accepted only when the result
//     is then a valid broadcast.
//
// An instruction whose called computation is not resolved yet (a nil CompRef) cannot be inferred, except
// while, which gives its operand's shape as XLA's rule does.
//
// Shapes passed through whole (tuple elements, get-tuple-element, the results of called computations, the
// operand of copy, reverse or an elementwise op) keep their layouts; arrays made anew get the default
// layout (where XLA would give a transpose of a laid-out operand the layout that makes it a bitcast). The
// error, when not nil, is a plain message that starts with the opcode and names what disagrees:
// "dot: lhs contracting dimension 1 has size 64, rhs contracting dimension 0 has size 32".
func InferShape(in *Instruction) (Shape, error) {
	s, err := inferShape(in)
	if err != nil {
		return Shape{}, err
	}
	s.SetDefaultLayouts()
	return s, nil
}

// shapeKnown reports whether s is set: anything but an array of an invalid element type.
func shapeKnown(s Shape) bool { return s.Kind != ArrayShape || s.Elem != dtype.Invalid }

// cannotInfer returns an error wrapping ErrCannotInfer: "<op>: the <what> cannot be inferred <why>".
func cannotInfer(op Opcode, what, why string) error {
	if why != "" {
		why = " " + why
	}
	return fmt.Errorf("%s: the %s %w%s", op, what, ErrCannotInfer, why)
}

func errorf(op Opcode, format string, args ...any) error {
	return fmt.Errorf("%s: %s", op, fmt.Sprintf(format, args...))
}

func inferShape(in *Instruction) (Shape, error) {
	op := in.Opcode
	ops := in.operands
	for i, o := range ops {
		if o == nil {
			return Shape{}, errorf(op, "operand %d is missing", i)
		}
	}
	switch {
	case op == OpConvert || op == OpBitcastConvert:
		if err := wantOperands(in, 1); err != nil {
			return Shape{}, err
		}
		return inferConvert(in)
	case op == OpStochasticConvert:
		if err := wantOperands(in, 2); err != nil {
			return Shape{}, err
		}
		return inferStochasticConvert(in)
	case op == OpReducePrecision:
		if err := wantOperands(in, 1); err != nil {
			return Shape{}, err
		}
		return inferReducePrecision(in)
	case op == OpCopy || op == OpDomain || op == OpOptimizationBarrier:
		if err := wantOperands(in, 1); err != nil {
			return Shape{}, err
		}
		return ops[0].Shape.Clone(), nil
	case op.IsElementwiseUnary():
		if err := wantOperands(in, 1); err != nil {
			return Shape{}, err
		}
		return inferUnary(op, ops[0].Shape)
	case op.IsElementwiseBinary():
		if err := wantOperands(in, 2); err != nil {
			return Shape{}, err
		}
		if op == OpCompare {
			if err := checkComparisonType(in); err != nil {
				return Shape{}, err
			}
		}
		return inferBinary(op, ops[0].Shape, ops[1].Shape)
	}
	switch op {
	case OpSelect:
		if err := wantOperands(in, 3); err != nil {
			return Shape{}, err
		}
		return inferSelect(ops[0].Shape, ops[1].Shape, ops[2].Shape)
	case OpClamp:
		if err := wantOperands(in, 3); err != nil {
			return Shape{}, err
		}
		return inferClamp(ops[0].Shape, ops[1].Shape, ops[2].Shape)
	case OpTuple:
		elems := make([]Shape, len(ops))
		for i, o := range ops {
			elems[i] = o.Shape.Clone()
		}
		return Tuple(elems...), nil
	case OpGetTupleElement:
		return inferGetTupleElement(in)
	case OpBroadcast:
		return inferBroadcast(in)
	case OpReshape:
		return inferReshape(in)
	case OpTranspose:
		return inferTranspose(in)
	case OpDot:
		return inferDot(in)
	case OpRaggedDot:
		return inferRaggedDot(in)
	case OpScan:
		return inferScan(in)
	case OpScaledDot:
		return inferScaledDot(in)
	case OpReduce:
		return inferReduce(in)
	case OpSlice:
		return inferSlice(in)
	case OpDynamicSlice:
		return inferDynamicSlice(in)
	case OpDynamicUpdateSlice:
		return inferDynamicUpdateSlice(in)
	case OpPad:
		return inferPad(in)
	case OpConcatenate:
		return inferConcatenate(in)
	case OpReverse:
		return inferReverse(in)
	case OpMap:
		return inferMap(in)
	case OpSort:
		return inferSort(in)
	case OpWhile:
		return inferWhile(in)
	case OpConditional:
		return inferConditional(in)
	case OpCall:
		return inferCall(in)
	case OpFusion:
		return inferFusion(in)
	case OpAfterAll:
		for i, o := range ops {
			if o.Shape.Kind != TokenShape {
				return Shape{}, errorf(op, "operand %d is %s, not a token", i, o.Shape.String())
			}
		}
		return Shape{Kind: TokenShape}, nil
	case OpAddDependency:
		if err := wantOperands(in, 2); err != nil {
			return Shape{}, err
		}
		if ops[1].Shape.Kind != TokenShape {
			return Shape{}, errorf(op, "operand 1 is %s, not a token", ops[1].Shape.String())
		}
		return ops[0].Shape.Clone(), nil
	case OpGetDimensionSize:
		return inferGetDimensionSize(in)
	case OpSetDimensionSize:
		return inferSetDimensionSize(in)
	case OpReduceWindow:
		return inferReduceWindow(in)
	case OpSelectAndScatter:
		return inferSelectAndScatter(in)
	case OpConvolution:
		return inferConvolution(in)
	case OpGather:
		return inferGather(in)
	case OpScatter:
		return inferScatter(in)
	case OpReplicaId, OpPartitionId:
		if err := wantOperands(in, 0); err != nil {
			return Shape{}, err
		}
		return Scalar(dtype.U32), nil
	case OpRngGetAndUpdateState:
		if err := wantOperands(in, 0); err != nil {
			return Shape{}, err
		}
		return Array(dtype.U64, 2), nil
	case OpCopyStart:
		if err := wantOperands(in, 1); err != nil {
			return Shape{}, err
		}
		return Tuple(ops[0].Shape.Clone(), ops[0].Shape.Clone(), Scalar(dtype.U32)), nil
	case OpCopyDone:
		if err := wantOperands(in, 1); err != nil {
			return Shape{}, err
		}
		s := ops[0].Shape
		if !s.IsTuple() || len(s.Tuple) < 2 {
			return Shape{}, errorf(op, "the operand is %s, not the tuple a copy-start gives", s.String())
		}
		if err := wantStart(in, OpCopyStart); err != nil {
			return Shape{}, err
		}
		return s.Tuple[0].Clone(), nil
	case OpAsyncStart:
		return inferAsyncStart(in)
	case OpAsyncUpdate, OpAsyncDone:
		if err := wantOperands(in, 1); err != nil {
			return Shape{}, err
		}
		if err := wantStart(in, OpAsyncStart, OpAsyncUpdate); err != nil {
			return Shape{}, err
		}
		s := ops[0].Shape
		if !s.IsTuple() || len(s.Tuple) < 2 {
			return Shape{}, errorf(op, "the operand is %s, not a tuple of at least two elements", s.String())
		}
		if op == OpAsyncUpdate {
			return s.Clone(), nil
		}
		return s.Tuple[1].Clone(), nil
	case OpAllReduceDone, OpCollectivePermuteDone, OpAllGatherDone:
		if err := wantOperands(in, 1); err != nil {
			return Shape{}, err
		}
		start := map[Opcode]Opcode{OpAllReduceDone: OpAllReduceStart, OpCollectivePermuteDone: OpCollectivePermuteStart, OpAllGatherDone: OpAllGatherStart}[op]
		if err := wantStart(in, start); err != nil {
			return Shape{}, err
		}
		s := ops[0].Shape
		if op == OpAllReduceDone {
			return s.Clone(), nil
		}
		if !s.IsTuple() || len(s.Tuple) < 2 {
			return Shape{}, errorf(op, "the operand is %s, not the tuple that %s gives", s.String(), start)
		}
		return s.Tuple[1].Clone(), nil
	case OpCollectivePermuteStart:
		// One array operand: (operand, result, context...), the context as written.
		if len(ops) != 1 || !ops[0].Shape.IsArray() || !shapeKnown(in.Shape) {
			return Shape{}, cannotInfer(op, "result shape", "from these operands")
		}
		if !in.Shape.IsTuple() || len(in.Shape.Tuple) < 2 {
			return Shape{}, errorf(op, "the result %s is not a tuple of the operand, the result and a context", in.Shape.String())
		}
		return Tuple(append([]Shape{ops[0].Shape.Clone(), ops[0].Shape.Clone()}, cloneShapes(in.Shape.Tuple[2:])...)...), nil
	case OpAllReduce, OpAllReduceStart:
		if len(ops) == 0 {
			return Shape{}, errorf(op, "has no operands")
		}
		for i, o := range ops {
			if !o.Shape.IsArray() {
				return Shape{}, errorf(op, "operand %d is %s, not an array", i, o.Shape.String())
			}
		}
		if len(ops) == 1 {
			return ops[0].Shape.Clone(), nil
		}
		elems := make([]Shape, len(ops))
		for i, o := range ops {
			elems[i] = o.Shape.Clone()
		}
		return Tuple(elems...), nil
	case OpCollectivePermute:
		switch len(ops) {
		case 1:
			if !ops[0].Shape.IsArray() && !ops[0].Shape.IsTuple() {
				return Shape{}, errorf(op, "the operand is %s", ops[0].Shape.String())
			}
			return ops[0].Shape.Clone(), nil
		case 4:
			return ops[1].Shape.Clone(), nil
		}
		return Shape{}, cannotInfer(op, "result shape", fmt.Sprintf("with %d operands", len(ops)))
	case OpCholesky:
		if err := wantOperands(in, 1); err != nil {
			return Shape{}, err
		}
		return inferCholesky(ops[0].Shape)
	case OpTriangularSolve:
		if err := wantOperands(in, 2); err != nil {
			return Shape{}, err
		}
		return inferTriangularSolve(in)
	case OpFft:
		return inferFft(in)
	case OpTopk:
		return inferTopK(in)
	case OpBatchNormTraining, OpBatchNormInference, OpBatchNormGrad:
		return inferBatchNorm(in)
	case OpIota, OpConstant, OpParameter, OpBitcast:
		return Shape{}, cannotInfer(op, "result shape", "from operands and attributes; it must be given")
	}
	return Shape{}, cannotInfer(op, "result shape", "by Octet")
}

// wantStart checks that the operand of a -done or -update instruction is one of the instructions that
// start its operation, as XLA's verifier wants.
func wantStart(in *Instruction, starts ...Opcode) error {
	o := in.operands[0]
	for _, s := range starts {
		if o.Opcode == s {
			return nil
		}
	}
	names := make([]string, len(starts))
	for i, s := range starts {
		names[i] = s.String()
	}
	return errorf(in.Opcode, "the operand %%%s comes from %s; it must come from %s", o.Name, o.Opcode, strings.Join(names, " or "))
}

func cloneShapes(s []Shape) []Shape {
	c := make([]Shape, len(s))
	for i, e := range s {
		c[i] = e.Clone()
	}
	return c
}

// inferAsyncStart is XLA's check of an async-start: its shape is a tuple of at least two elements, the
// operands' shapes, the called computation's result and a context (given as written); the computation
// takes the operands. Written as XLA's syntax sugar ("custom-call-start"), the wrapped instruction has
// the second element as its shape.
func inferAsyncStart(in *Instruction) (Shape, error) {
	op := in.Opcode
	if !shapeKnown(in.Shape) {
		return Shape{}, cannotInfer(op, "result shape", "without its context")
	}
	if !in.Shape.IsTuple() || len(in.Shape.Tuple) < 2 {
		return Shape{}, errorf(op, "the result %s is not a tuple of at least two elements", in.Shape.String())
	}
	result := in.Shape.Tuple[1].Clone()
	if in.AsyncWrapped == OpInvalid {
		c, err := callee(in, "calls")
		if err != nil {
			return Shape{}, err
		}
		if err := checkArguments(op, c, in.operands, "the async computation"); err != nil {
			return Shape{}, err
		}
		result = c.Root.Shape.Clone()
	}
	return Tuple(append([]Shape{Tuple(cloneShapes(shapesOf(in.operands))...), result}, cloneShapes(in.Shape.Tuple[2:])...)...), nil
}

func wantOperands(in *Instruction, n int) error {
	if len(in.operands) != n {
		return errorf(in.Opcode, "takes %d operand%s, has %d", n, plural(n), len(in.operands))
	}
	return nil
}

// count writes n with the singular or plural noun: "1 branch", "2 branches".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func wantArray(op Opcode, what string, s Shape) error {
	if !s.IsArray() {
		return errorf(op, "the %s is %s, not an array", what, s.String())
	}
	return nil
}

// --- element types ---------------------------------------------------------------------------------------

// sameElemIgnoringFP reports whether a and b are the same type, or both floating-point types.
func sameElemIgnoringFP(a, b dtype.Type) bool { return a == b || a.IsFloat() && b.IsFloat() }

// higherPrecision is XLA's HigherPrecisionElementType for two types equal or both floating point: the
// type with the larger range, then the more significand bits, then the wider.
func higherPrecision(a, b dtype.Type) dtype.Type {
	if a == b || !a.IsFloat() || !b.IsFloat() {
		return a
	}
	fa, fb := a.Finfo(), b.Finfo()
	switch {
	case fa.Maxexp != fb.Maxexp:
		if fa.Maxexp > fb.Maxexp {
			return a
		}
		return b
	case fa.Nmant != fb.Nmant:
		if fa.Nmant > fb.Nmant {
			return a
		}
		return b
	case a.BitWidth() >= b.BitWidth():
		return a
	}
	return b
}

// isSignedOrFloat is XLA's ElementIsSigned: signed integers and floating-point types.
func isSignedOrFloat(t dtype.Type) bool { return t.IsSigned() || t.IsFloat() }

// --- elementwise -----------------------------------------------------------------------------------------

func inferUnary(op Opcode, s Shape) (Shape, error) {
	if err := wantArray(op, "operand", s); err != nil {
		return Shape{}, err
	}
	t := s.Elem
	bad := func(want string) (Shape, error) {
		return Shape{}, errorf(op, "the operand is %s; %s takes %s", s.String(), op, want)
	}
	switch op {
	case OpFloor, OpCeil, OpRoundNearestAfz, OpRoundNearestEven:
		if !t.IsFloat() {
			return bad("floating-point values")
		}
	case OpCos, OpSin, OpTan, OpExp, OpExpm1, OpLog, OpLog1p, OpLogistic, OpRsqrt, OpSqrt, OpCbrt, OpTanh,
		OpErf, OpAcos, OpAcosh, OpAsin, OpAsinh, OpAtan, OpAtanh, OpCosh, OpSinh:
		if !t.IsFloat() && !t.IsComplex() {
			return bad("floating-point or complex values")
		}
	case OpReal, OpImag:
		if t.IsComplex() {
			return s.WithElem(t.Part()), nil
		}
		if !t.IsFloat() {
			return bad("floating-point or complex values")
		}
	case OpAbs:
		if t.IsComplex() {
			return s.WithElem(t.Part()), nil
		}
		if !isSignedOrFloat(t) {
			return bad("signed, floating-point or complex values")
		}
	case OpClz, OpPopulationCount:
		if !t.IsInteger() {
			return bad("integers")
		}
	case OpNegate:
		if !t.IsInteger() && !t.IsFloat() && !t.IsComplex() {
			return bad("integer, floating-point or complex values")
		}
	case OpSign:
		if !isSignedOrFloat(t) && !t.IsComplex() {
			return bad("signed, floating-point or complex values")
		}
	case OpNot:
		if t != dtype.PRED && !t.IsInteger() {
			return bad("pred or integers")
		}
	case OpIsFinite:
		if !t.IsFloat() {
			return bad("floating-point values")
		}
		return s.WithElem(dtype.PRED), nil
	}
	return s.Clone(), nil
}

// checkComparisonType is XLA's check of a compare's type=: FLOAT or TOTALORDER for floating-point
// operands, SIGNED for signed integers, UNSIGNED for unsigned integers and pred.
func checkComparisonType(in *Instruction) error {
	e, ok := in.Attr("type").(Enum)
	t := in.operands[0].Shape.Elem
	if !ok || !in.operands[0].Shape.IsArray() {
		return nil
	}
	var want []string
	switch {
	case t.IsFloat():
		want = []string{"FLOAT", "TOTALORDER"}
	case t.IsSigned():
		want = []string{"SIGNED"}
	case t.IsInteger() || t == dtype.PRED:
		want = []string{"UNSIGNED"}
	default:
		return nil
	}
	for _, w := range want {
		if strings.EqualFold(string(e), w) {
			return nil
		}
	}
	return errorf(in.Opcode, "type=%s does not compare %s; it takes %s", e, t, strings.Join(want, " or "))
}

func inferBinary(op Opcode, lhs, rhs Shape) (Shape, error) {
	if err := wantArray(op, "lhs", lhs); err != nil {
		return Shape{}, err
	}
	if err := wantArray(op, "rhs", rhs); err != nil {
		return Shape{}, err
	}
	switch op {
	case OpSubtract, OpAtan2, OpPower, OpDivide, OpRemainder, OpShiftLeft, OpShiftRightArithmetic,
		OpShiftRightLogical, OpMulhi:
		if lhs.Elem == dtype.PRED || rhs.Elem == dtype.PRED {
			return Shape{}, errorf(op, "takes arithmetic values, not pred")
		}
	case OpAnd, OpOr, OpXor:
		if lhs.Elem != dtype.PRED && !lhs.Elem.IsInteger() {
			return Shape{}, errorf(op, "takes pred or integers, not %s", lhs.Elem)
		}
	case OpComplex:
		if !lhs.Elem.IsFloat() {
			return Shape{}, errorf(op, "takes floating-point values, not %s", lhs.Elem)
		}
	case OpStochasticConvert:
		return Shape{}, cannotInfer(op, "result element type", "from its operands")
	}
	s, err := broadcastBinary(op, lhs, rhs)
	if err != nil {
		return Shape{}, err
	}
	switch op {
	case OpCompare:
		s.Elem = dtype.PRED
	case OpComplex:
		switch {
		case lhs.Elem == dtype.F32 && rhs.Elem == dtype.F32:
			s.Elem = dtype.C64
		case lhs.Elem == dtype.F64 && rhs.Elem == dtype.F64:
			s.Elem = dtype.C128
		default:
			return Shape{}, errorf(op, "makes complex numbers of f32 or f64 parts, not of %s and %s", lhs.Elem, rhs.Elem)
		}
	}
	return s, nil
}

// broadcastBinary is XLA's InferElementwiseBinaryOpShape without broadcast dimensions: equal shapes, equal
// ranks where each dimension is equal or 1 in one of them, or a scalar with an array.
func broadcastBinary(op Opcode, lhs, rhs Shape) (Shape, error) {
	if !sameElemIgnoringFP(lhs.Elem, rhs.Elem) {
		return Shape{}, errorf(op, "the operands have different element types: %s and %s", lhs.String(), rhs.String())
	}
	elem := higherPrecision(lhs.Elem, rhs.Elem)
	switch {
	case lhs.Rank() == rhs.Rank():
		s := lhs.WithElem(elem)
		degenerate := false
		for i := range lhs.Dims {
			l, r := lhs.Dims[i], rhs.Dims[i]
			switch {
			case l == r:
			case l == 1:
				s.Dims[i], degenerate = r, true
			case r == 1:
				degenerate = true
			default:
				return Shape{}, errorf(op, "the operand shapes %s and %s differ in dimension %d", lhs.String(), rhs.String(), i)
			}
			if rhs.IsDynamic(i) && !s.IsDynamic(i) {
				s.setDynamic(i)
			}
		}
		if degenerate {
			s.Layout = nil
		}
		return s, nil
	case lhs.Rank() == 0:
		return rhs.WithElem(elem), nil
	case rhs.Rank() == 0:
		return lhs.WithElem(elem), nil
	}
	return Shape{}, errorf(op, "the operands have different ranks: %s and %s", lhs.String(), rhs.String())
}

// setDynamic marks dimension i of an array dynamic.
func (s *Shape) setDynamic(i int) {
	if s.Dims[i] == UnboundedDim {
		return
	}
	if s.Dynamic == nil {
		s.Dynamic = make([]bool, len(s.Dims))
	}
	s.Dynamic[i] = true
}

func inferSelect(pred, onTrue, onFalse Shape) (Shape, error) {
	op := OpSelect
	for _, x := range []struct {
		what string
		s    Shape
	}{{"predicate", pred}, {"on-true operand", onTrue}, {"on-false operand", onFalse}} {
		if err := wantArray(op, x.what, x.s); err != nil {
			return Shape{}, err
		}
	}
	if !sameDimsIgnoringDynamism(onTrue, onFalse) || !sameElemIgnoringFP(onTrue.Elem, onFalse.Elem) {
		return Shape{}, errorf(op, "the on-true and on-false operands differ: %s and %s", onTrue.String(), onFalse.String())
	}
	if pred.Elem != dtype.PRED {
		return Shape{}, errorf(op, "the predicate is %s, not pred", pred.String())
	}
	if !sameDimsIgnoringDynamism(pred, onTrue) {
		return Shape{}, errorf(op, "the predicate %s and the operands %s differ in dimensions", pred.String(), onTrue.String())
	}
	return pred.WithElem(higherPrecision(onTrue.Elem, onFalse.Elem)), nil
}

func inferClamp(lo, x, hi Shape) (Shape, error) {
	op := OpClamp
	for _, b := range []struct {
		what string
		s    Shape
	}{{"min", lo}, {"operand", x}, {"max", hi}} {
		if err := wantArray(op, b.what, b.s); err != nil {
			return Shape{}, err
		}
		if !sameElemIgnoringFP(b.s.Elem, x.Elem) {
			return Shape{}, errorf(op, "the %s %s and the operand %s differ in element type", b.what, b.s.String(), x.String())
		}
		if !b.s.IsScalar() && !sameDimsIgnoringDynamism(b.s, x) {
			return Shape{}, errorf(op, "the %s %s is neither a scalar nor the operand's shape %s", b.what, b.s.String(), x.String())
		}
	}
	return x.Clone(), nil
}

// sameDimsIgnoringDynamism reports whether a and b are arrays with the same dimension sizes (bounds for
// bounded dynamic dimensions).
func sameDimsIgnoringDynamism(a, b Shape) bool {
	return a.IsArray() && b.IsArray() && slices.Equal(a.Dims, b.Dims)
}

func inferConvert(in *Instruction) (Shape, error) {
	op := in.Opcode
	x := in.operands[0].Shape
	if !shapeKnown(in.Shape) {
		return Shape{}, cannotInfer(op, "result element type", "from the operand; it must be given")
	}
	if err := wantArray(op, "operand", x); err != nil {
		return Shape{}, err
	}
	if !in.Shape.IsArray() {
		return Shape{}, errorf(op, "the result %s is not an array", in.Shape.String())
	}
	to := in.Shape.Elem
	if op == OpConvert {
		return x.WithElem(to), nil
	}
	if x.Elem.IsComplex() != to.IsComplex() {
		return Shape{}, errorf(op, "converts between complex and real types: %s to %s", x.String(), to)
	}
	from, toBits := x.Elem.BitWidth(), to.BitWidth()
	if from == 0 || toBits == 0 {
		return Shape{}, errorf(op, "cannot convert %s to %s", x.String(), to)
	}
	if from == toBits {
		return x.WithElem(to), nil
	}
	if max(from, toBits)%min(from, toBits) != 0 {
		return Shape{}, errorf(op, "the bit widths of %s and %s do not divide each other", x.Elem, to)
	}
	s := x.WithElem(to)
	if from > toBits {
		ratio := int64(from / toBits)
		s.Dims = append(s.Dims, ratio)
		if s.Dynamic != nil {
			s.Dynamic = append(s.Dynamic, false)
		}
		s.Layout = nil
		return s, nil
	}
	ratio := int64(toBits / from)
	if x.Rank() == 0 || x.Dims[x.Rank()-1] != ratio {
		return Shape{}, errorf(op, "converting %s to %s needs a last dimension of %d", x.String(), to, ratio)
	}
	s.Dims = s.Dims[:len(s.Dims)-1]
	if s.Dynamic != nil {
		s.Dynamic = s.Dynamic[:len(s.Dims)]
	}
	s.Layout = nil
	return s, nil
}

func inferStochasticConvert(in *Instruction) (Shape, error) {
	op := in.Opcode
	x, r := in.operands[0].Shape, in.operands[1].Shape
	if err := wantArray(op, "operand", x); err != nil {
		return Shape{}, err
	}
	if err := wantArray(op, "random operand", r); err != nil {
		return Shape{}, err
	}
	if !r.Elem.IsUnsigned() {
		return Shape{}, errorf(op, "the random operand %s is not of unsigned integers", r.String())
	}
	if !x.Elem.IsFloat() {
		return Shape{}, errorf(op, "the operand %s is not floating point", x.String())
	}
	if x.Elem.BitWidth() != r.Elem.BitWidth() {
		return Shape{}, errorf(op, "the random operand %s has not the width of the operand %s", r.String(), x.String())
	}
	if !sameDimsIgnoringDynamism(x, r) {
		return Shape{}, errorf(op, "the operand %s and the random operand %s differ in dimensions", x.String(), r.String())
	}
	if !shapeKnown(in.Shape) {
		return Shape{}, cannotInfer(op, "result element type", "from the operands; it must be given")
	}
	return x.WithElem(in.Shape.Elem), nil
}

func inferReducePrecision(in *Instruction) (Shape, error) {
	op := in.Opcode
	x := in.operands[0].Shape
	if err := wantArray(op, "operand", x); err != nil {
		return Shape{}, err
	}
	if !x.Elem.IsFloat() {
		return Shape{}, errorf(op, "the operand %s is not floating point", x.String())
	}
	if e, ok := in.Int("exponent_bits"); ok && e < 1 {
		return Shape{}, errorf(op, "exponent_bits=%d; at least 1 is needed", e)
	}
	if m, ok := in.Int("mantissa_bits"); ok && m < 0 {
		return Shape{}, errorf(op, "mantissa_bits=%d is negative", m)
	}
	return x.Clone(), nil
}

// --- structural ops --------------------------------------------------------------------------------------

func inferGetTupleElement(in *Instruction) (Shape, error) {
	op := in.Opcode
	if err := wantOperands(in, 1); err != nil {
		return Shape{}, err
	}
	t := in.operands[0].Shape
	i, ok := in.Int("index")
	if !ok {
		return Shape{}, errorf(op, "has no index=")
	}
	if !t.IsTuple() {
		return Shape{}, errorf(op, "the operand %s is not a tuple", t.String())
	}
	if i < 0 || i >= int64(len(t.Tuple)) {
		return Shape{}, errorf(op, "index %d is out of range for %s", i, t.String())
	}
	return t.Tuple[i].Clone(), nil
}

func inferBroadcast(in *Instruction) (Shape, error) {
	op := in.Opcode
	if err := wantOperands(in, 1); err != nil {
		return Shape{}, err
	}
	x := in.operands[0].Shape
	if err := wantArray(op, "operand", x); err != nil {
		return Shape{}, err
	}
	dims := in.Ints("dimensions")
	if len(dims) != x.Rank() {
		return Shape{}, errorf(op, "dimensions=%s lists %d dimension%s; the operand %s has rank %d",
			intsString(dims), len(dims), plural(len(dims)), x.String(), x.Rank())
	}
	var out Shape
	if shapeKnown(in.Shape) {
		if !in.Shape.IsArray() {
			return Shape{}, errorf(op, "the result %s is not an array", in.Shape.String())
		}
		out = in.Shape.WithElem(x.Elem)
	} else {
		// XLA's parser reads dimensions= as the sizes of new major dimensions when the shape is not written
		// (ShapeInference::InferBroadcastShape(operand, sizes)); only a result that is then a valid broadcast
		// is accepted.
		out = Array(x.Elem, append(slices.Clone(dims), x.Dims...)...)
		if err := checkBroadcast(op, x, out, dims); err != nil {
			return Shape{}, cannotInfer(op, "result shape", "from dimensions=; it must be given")
		}
		return out, nil
	}
	if err := checkBroadcast(op, x, out, dims); err != nil {
		return Shape{}, err
	}
	return out, nil
}

// checkBroadcast checks that dims maps each dimension of x to a dimension of out of the same size. As in
// XLA's verifier, the dimensions need not be in increasing order (XLA's simplifier folds a transpose into
// a broadcast so); a dimension of out named twice, which would read a diagonal of x, is refused.
func checkBroadcast(op Opcode, x, out Shape, dims []int64) error {
	seen := make([]bool, out.Rank())
	for i, d := range dims {
		if d < 0 || d >= int64(out.Rank()) {
			return errorf(op, "dimension %d of dimensions=%s is out of range for the result %s", d, intsString(dims), out.String())
		}
		if seen[d] {
			return errorf(op, "dimensions=%s names result dimension %d twice", intsString(dims), d)
		}
		seen[d] = true
		if out.Dims[d] != x.Dims[i] {
			return errorf(op, "operand dimension %d has size %d, result dimension %d has size %d", i, x.Dims[i], d, out.Dims[d])
		}
	}
	return nil
}

func inferReshape(in *Instruction) (Shape, error) {
	op := in.Opcode
	if err := wantOperands(in, 1); err != nil {
		return Shape{}, err
	}
	x := in.operands[0].Shape
	if err := wantArray(op, "operand", x); err != nil {
		return Shape{}, err
	}
	if !shapeKnown(in.Shape) {
		return Shape{}, cannotInfer(op, "result shape", "from the operand; it must be given")
	}
	if !in.Shape.IsArray() {
		return Shape{}, errorf(op, "the result %s is not an array", in.Shape.String())
	}
	out := in.Shape.WithElem(x.Elem)
	if a, b := x.NumElements(), out.NumElements(); a >= 0 && b >= 0 && a != b {
		return Shape{}, errorf(op, "%s has %d elements, %s has %d", x.String(), a, out.String(), b)
	}
	return out, nil
}

// isPermutation reports whether p holds each of 0..n-1 once.
func isPermutation(p []int64, n int) bool {
	if len(p) != n {
		return false
	}
	seen := make([]bool, n)
	for _, d := range p {
		if d < 0 || d >= int64(n) || seen[d] {
			return false
		}
		seen[d] = true
	}
	return true
}

func inferTranspose(in *Instruction) (Shape, error) {
	op := in.Opcode
	if err := wantOperands(in, 1); err != nil {
		return Shape{}, err
	}
	x := in.operands[0].Shape
	if err := wantArray(op, "operand", x); err != nil {
		return Shape{}, err
	}
	perm := in.Ints("dimensions")
	if !isPermutation(perm, x.Rank()) {
		return Shape{}, errorf(op, "dimensions=%s is not a permutation of the dimensions of %s", intsString(perm), x.String())
	}
	out := Array(x.Elem)
	out.Dims = make([]int64, len(perm))
	for i, d := range perm {
		out.Dims[i] = x.Dims[d]
		if x.IsDynamic(int(d)) {
			out.setDynamic(i)
		}
	}
	return out, nil
}

func inferReverse(in *Instruction) (Shape, error) {
	op := in.Opcode
	if err := wantOperands(in, 1); err != nil {
		return Shape{}, err
	}
	x := in.operands[0].Shape
	if err := wantArray(op, "operand", x); err != nil {
		return Shape{}, err
	}
	dims := in.Ints("dimensions")
	seen := map[int64]bool{}
	for _, d := range dims {
		if d < 0 || d >= int64(x.Rank()) {
			return Shape{}, errorf(op, "dimension %d is out of range for %s", d, x.String())
		}
		if seen[d] {
			return Shape{}, errorf(op, "dimension %d is listed twice", d)
		}
		seen[d] = true
	}
	return x.Clone(), nil
}

func inferSlice(in *Instruction) (Shape, error) {
	op := in.Opcode
	if err := wantOperands(in, 1); err != nil {
		return Shape{}, err
	}
	x := in.operands[0].Shape
	if err := wantArray(op, "operand", x); err != nil {
		return Shape{}, err
	}
	sl, _ := in.Attr("slice").(Slice)
	if len(sl) != x.Rank() {
		return Shape{}, errorf(op, "slice= has %d dimension%s; the operand %s has rank %d", len(sl), plural(len(sl)), x.String(), x.Rank())
	}
	out := Array(x.Elem)
	out.Dims = make([]int64, len(sl))
	for i, d := range sl {
		switch {
		case d.Start < 0:
			return Shape{}, errorf(op, "dimension %d starts at %d", i, d.Start)
		case d.Limit > x.Dims[i]:
			return Shape{}, errorf(op, "dimension %d ends at %d, past its size %d", i, d.Limit, x.Dims[i])
		case d.Start > d.Limit:
			return Shape{}, errorf(op, "dimension %d starts at %d, after its limit %d", i, d.Start, d.Limit)
		case d.Stride <= 0:
			return Shape{}, errorf(op, "dimension %d has stride %d", i, d.Stride)
		}
		// The ceiling of span/stride, without the span+stride-1 that overflows for a stride near 2^63.
		span := d.Limit - d.Start
		out.Dims[i] = span / d.Stride
		if span%d.Stride != 0 {
			out.Dims[i]++
		}
		if out.Dims[i] != 1 && x.IsDynamic(i) {
			out.setDynamic(i)
		}
	}
	return out, nil
}

// checkStartIndices checks the start indices of dynamic-slice and dynamic-update-slice: one scalar
// integer per dimension of x, all of the same type, or (an old form) one integer vector.
func checkStartIndices(op Opcode, x Shape, idx []*Instruction) error {
	if len(idx) == 1 && idx[0].Shape.IsArray() && idx[0].Shape.Rank() == 1 {
		s := idx[0].Shape
		if !s.Elem.IsInteger() {
			return errorf(op, "the start indices %s are not integers", s.String())
		}
		if s.Dims[0] != int64(x.Rank()) {
			return errorf(op, "the start indices %s do not have the rank %d of %s", s.String(), x.Rank(), x.String())
		}
		return nil
	}
	if len(idx) != x.Rank() {
		return errorf(op, "has %s; the operand %s has rank %d", count(len(idx), "start index", "start indices"), x.String(), x.Rank())
	}
	for i, o := range idx {
		s := o.Shape
		if !s.IsScalar() || !s.Elem.IsInteger() {
			return errorf(op, "start index %d is %s, not an integer scalar", i, s.String())
		}
		if s.Elem != idx[0].Shape.Elem {
			return errorf(op, "the start indices have different types: %s and %s", idx[0].Shape.Elem, s.Elem)
		}
	}
	return nil
}

func inferDynamicSlice(in *Instruction) (Shape, error) {
	op := in.Opcode
	if len(in.operands) < 1 {
		return Shape{}, errorf(op, "has no operands")
	}
	x := in.operands[0].Shape
	if err := wantArray(op, "operand", x); err != nil {
		return Shape{}, err
	}
	if err := checkStartIndices(op, x, in.operands[1:]); err != nil {
		return Shape{}, err
	}
	sizes := in.Ints("dynamic_slice_sizes")
	if len(sizes) != x.Rank() {
		return Shape{}, errorf(op, "dynamic_slice_sizes=%s has %d sizes; the operand %s has rank %d", intsString(sizes), len(sizes), x.String(), x.Rank())
	}
	for i, n := range sizes {
		if n < 0 || n > x.Dims[i] && x.Dims[i] != UnboundedDim {
			return Shape{}, errorf(op, "slice size %d of dimension %d does not fit in %s", n, i, x.String())
		}
	}
	return Array(x.Elem, sizes...), nil
}

func inferDynamicUpdateSlice(in *Instruction) (Shape, error) {
	op := in.Opcode
	if len(in.operands) < 2 {
		return Shape{}, errorf(op, "takes an operand, an update and start indices; has %d operand%s", len(in.operands), plural(len(in.operands)))
	}
	x, u := in.operands[0].Shape, in.operands[1].Shape
	if err := wantArray(op, "operand", x); err != nil {
		return Shape{}, err
	}
	if err := wantArray(op, "update", u); err != nil {
		return Shape{}, err
	}
	if err := checkStartIndices(op, x, in.operands[2:]); err != nil {
		return Shape{}, err
	}
	if u.Rank() != x.Rank() {
		return Shape{}, errorf(op, "the update %s and the operand %s differ in rank", u.String(), x.String())
	}
	if !sameElemIgnoringFP(x.Elem, u.Elem) {
		return Shape{}, errorf(op, "the update %s and the operand %s differ in element type", u.String(), x.String())
	}
	for i := range x.Dims {
		if u.Dims[i] < 0 || u.Dims[i] > x.Dims[i] {
			return Shape{}, errorf(op, "update dimension %d has size %d, larger than the operand's %d", i, u.Dims[i], x.Dims[i])
		}
	}
	return x.Clone(), nil
}

func inferPad(in *Instruction) (Shape, error) {
	op := in.Opcode
	if err := wantOperands(in, 2); err != nil {
		return Shape{}, err
	}
	x, v := in.operands[0].Shape, in.operands[1].Shape
	if err := wantArray(op, "operand", x); err != nil {
		return Shape{}, err
	}
	if !v.IsScalar() {
		return Shape{}, errorf(op, "the padding value %s is not a scalar", v.String())
	}
	pad, _ := in.Attr("padding").(Padding)
	if len(pad) != x.Rank() {
		return Shape{}, errorf(op, "padding= has %d dimension%s; the operand %s has rank %d", len(pad), plural(len(pad)), x.String(), x.Rank())
	}
	if !sameElemIgnoringFP(x.Elem, v.Elem) {
		return Shape{}, errorf(op, "the padding value %s and the operand %s differ in element type", v.String(), x.String())
	}
	out := Array(higherPrecision(x.Elem, v.Elem))
	out.Dims = make([]int64, len(pad))
	for i, p := range pad {
		if p.Interior < 0 {
			return Shape{}, errorf(op, "dimension %d has negative interior padding %d", i, p.Interior)
		}
		if x.Dims[i] == UnboundedDim {
			out.Dims[i] = UnboundedDim
			continue
		}
		// The size, with every position of the padded dimension within the int64 range: padding near 2^63
		// must not wrap around to a size that looks valid.
		n, ok := mulInt64(max(x.Dims[i]-1, 0), p.Interior)
		if ok {
			n, ok = addInt64(n, x.Dims[i])
		}
		if ok {
			n, ok = paddedSize(n, p.Low, p.High)
		}
		if !ok {
			return Shape{}, errorf(op, "dimension %d of %s with padding %d_%d_%d has a size past the int64 range", i, x.String(), p.Low, p.High, p.Interior)
		}
		if n == math.MinInt64 {
			return Shape{}, errorf(op, "dimension %d of %s with padding %d_%d_%d would have a negative size", i, x.String(), p.Low, p.High, p.Interior)
		}
		if n < 0 {
			return Shape{}, errorf(op, "dimension %d would have negative size %d", i, n)
		}
		out.Dims[i] = n
		if x.IsDynamic(i) {
			out.setDynamic(i)
		}
	}
	return out, nil
}

func inferConcatenate(in *Instruction) (Shape, error) {
	op := in.Opcode
	ops := in.operands
	if len(ops) == 0 {
		return Shape{}, errorf(op, "has no operands")
	}
	dims := in.Ints("dimensions")
	if len(dims) != 1 {
		return Shape{}, errorf(op, "dimensions=%s must name one dimension", intsString(dims))
	}
	d := dims[0]
	first := ops[0].Shape
	for i, o := range ops {
		if err := wantArray(op, "operand "+strconv.Itoa(i), o.Shape); err != nil {
			return Shape{}, err
		}
	}
	if d < 0 || d >= int64(first.Rank()) {
		return Shape{}, errorf(op, "dimension %d is out of range for %s", d, first.String())
	}
	out := first.Clone()
	out.Layout = nil
	for i, o := range ops[1:] {
		s := o.Shape
		if s.Rank() != first.Rank() {
			return Shape{}, errorf(op, "operands 0 and %d differ in rank: %s and %s", i+1, first.String(), s.String())
		}
		if !sameElemIgnoringFP(first.Elem, s.Elem) {
			return Shape{}, errorf(op, "operands 0 and %d differ in element type: %s and %s", i+1, first.String(), s.String())
		}
		for j := range s.Dims {
			if int64(j) != d && s.Dims[j] != first.Dims[j] {
				return Shape{}, errorf(op, "operands 0 and %d differ in dimension %d, which is not the concatenated one: %s and %s", i+1, j, first.String(), s.String())
			}
			if s.IsDynamic(j) {
				out.setDynamic(j)
			}
		}
		out.Elem = higherPrecision(out.Elem, s.Elem)
		if s.Dims[d] > 0 && out.Dims[d] > math.MaxInt64-s.Dims[d] {
			return Shape{}, errorf(op, "the concatenated dimension %d overflows: %d operands' sizes add up past 2^63", d, i+2)
		}
		out.Dims[d] += s.Dims[d]
	}
	return out, nil
}

func inferGetDimensionSize(in *Instruction) (Shape, error) {
	op := in.Opcode
	if err := wantOperands(in, 1); err != nil {
		return Shape{}, err
	}
	x := in.operands[0].Shape
	dims := in.Ints("dimensions")
	if len(dims) != 1 || dims[0] < 0 || dims[0] >= int64(x.Rank()) {
		return Shape{}, errorf(op, "dimensions=%s does not name a dimension of %s", intsString(dims), x.String())
	}
	return Scalar(dtype.S32), nil
}

func inferSetDimensionSize(in *Instruction) (Shape, error) {
	op := in.Opcode
	if err := wantOperands(in, 2); err != nil {
		return Shape{}, err
	}
	x, v := in.operands[0].Shape, in.operands[1].Shape
	dims := in.Ints("dimensions")
	if err := wantArray(op, "operand", x); err != nil {
		return Shape{}, err
	}
	if len(dims) != 1 || dims[0] < 0 || dims[0] >= int64(x.Rank()) {
		return Shape{}, errorf(op, "dimensions=%s does not name a dimension of %s", intsString(dims), x.String())
	}
	if !v.IsScalar() || v.Elem != dtype.S32 {
		return Shape{}, errorf(op, "the size %s is not an s32 scalar", v.String())
	}
	out := x.Clone()
	out.setDynamic(int(dims[0]))
	return out, nil
}

// --- dot and convolution ---------------------------------------------------------------------------------

// resultElem is the element type of a dot or convolution: the instruction's own (XLA's preferred element
// type) when it has a shape, else the operands' shared type.
func resultElem(in *Instruction, lhs, rhs dtype.Type) (dtype.Type, error) {
	op := in.Opcode
	if shapeKnown(in.Shape) {
		if !in.Shape.IsArray() {
			return 0, errorf(op, "the result %s is not an array", in.Shape.String())
		}
		t := in.Shape.Elem
		from := higherPrecision(lhs, rhs)
		if t != from && !from.IsFloat() && t.BitWidth() < from.BitWidth() {
			return 0, errorf(op, "the result type %s is narrower than the operands' %s", t, from)
		}
		return t, nil
	}
	if lhs != rhs {
		return 0, cannotInfer(op, "result element type", fmt.Sprintf("from operands of different types (%s and %s); it must be given", lhs, rhs))
	}
	return lhs, nil
}

func inferDot(in *Instruction) (Shape, error) {
	op := in.Opcode
	if in.Attr("sparsity") != nil {
		return Shape{}, cannotInfer(op, "result shape", "of a sparse dot by Octet")
	}
	if err := wantOperands(in, 2); err != nil {
		return Shape{}, err
	}
	lhs, rhs := in.operands[0].Shape, in.operands[1].Shape
	if err := wantArray(op, "lhs", lhs); err != nil {
		return Shape{}, err
	}
	if err := wantArray(op, "rhs", rhs); err != nil {
		return Shape{}, err
	}
	lc, rc := in.Ints("lhs_contracting_dims"), in.Ints("rhs_contracting_dims")
	lb, rb := in.Ints("lhs_batch_dims"), in.Ints("rhs_batch_dims")
	for _, side := range []struct {
		name   string
		s      Shape
		c, b   []int64
		cn, bn string
	}{{"lhs", lhs, lc, lb, "lhs_contracting_dims", "lhs_batch_dims"}, {"rhs", rhs, rc, rb, "rhs_contracting_dims", "rhs_batch_dims"}} {
		seen := map[int64]bool{}
		for _, l := range []struct {
			name string
			dims []int64
		}{{side.cn, side.c}, {side.bn, side.b}} {
			for _, d := range l.dims {
				if d < 0 || d >= int64(side.s.Rank()) {
					return Shape{}, errorf(op, "%s=%s names dimension %d, out of range for the %s %s", l.name, intsString(l.dims), d, side.name, side.s.String())
				}
				if seen[d] {
					return Shape{}, errorf(op, "%s dimension %d is listed twice among the contracting and batch dimensions", side.name, d)
				}
				seen[d] = true
			}
		}
	}
	if len(lc) != len(rc) {
		return Shape{}, errorf(op, "lhs has %d contracting dimension%s, rhs has %d", len(lc), plural(len(lc)), len(rc))
	}
	for i := range lc {
		if l, r := lhs.Dims[lc[i]], rhs.Dims[rc[i]]; l != r {
			return Shape{}, errorf(op, "lhs contracting dimension %d has size %d, rhs contracting dimension %d has size %d", lc[i], l, rc[i], r)
		}
	}
	if len(lb) != len(rb) {
		return Shape{}, errorf(op, "lhs has %d batch dimension%s, rhs has %d", len(lb), plural(len(lb)), len(rb))
	}
	for i := range lb {
		if l, r := lhs.Dims[lb[i]], rhs.Dims[rb[i]]; l != r {
			return Shape{}, errorf(op, "lhs batch dimension %d has size %d, rhs batch dimension %d has size %d", lb[i], l, rb[i], r)
		}
	}
	elem, err := resultElem(in, lhs.Elem, rhs.Elem)
	if err != nil {
		return Shape{}, err
	}
	out := Array(elem)
	add := func(s Shape, i int) {
		out.Dims = append(out.Dims, s.Dims[i])
		if s.IsDynamic(i) {
			out.setDynamic(len(out.Dims) - 1)
		}
	}
	for _, d := range lb {
		add(lhs, int(d))
	}
	for _, d := range FreeDims(lhs.Rank(), lb, lc) {
		add(lhs, int(d))
	}
	for _, d := range FreeDims(rhs.Rank(), rb, rc) {
		add(rhs, int(d))
	}
	return out, nil
}

// FreeDims returns the dimensions below rank that are neither among batch nor among contract, in order:
// a dot operand's free dimensions (its rows or columns), which the dot's result lists after the batch
// dimensions, the lhs's first.
func FreeDims(rank int, batch, contract []int64) []int64 {
	// One pass over each list, not a search of both for each dimension: a dot of 50,000 batch dimensions
	// took seconds.
	taken := make([]bool, rank)
	for _, l := range [][]int64{batch, contract} {
		for _, d := range l {
			if d >= 0 && d < int64(rank) {
				taken[d] = true
			}
		}
	}
	var free []int64
	for d := range int64(rank) {
		if !taken[d] {
			free = append(free, d)
		}
	}
	return free
}

// windowOutput is XLA's InferWindowOutputShape: the size of each dimension of base after the window slides
// over it.
func windowOutput(op Opcode, base []int64, w Window) ([]int64, error) {
	if len(w) != len(base) {
		return nil, errorf(op, "the window has %d dimension%s, the input %d", len(w), plural(len(w)), len(base))
	}
	out := make([]int64, len(w))
	for i, d := range w {
		// XLA's ShapeInference refuses a stride or dilation of 0 as it does a negative one (the parser
		// gives 1 where the text says nothing).
		stride, bd, wd := d.Stride, d.BaseDilation, d.WindowDilation
		if d.Size <= 0 || stride <= 0 || bd < 1 || wd < 1 {
			return nil, errorf(op, "window dimension %d has a non-positive size, stride or dilation", i)
		}
		if base[i] == UnboundedDim {
			out[i] = UnboundedDim
			continue
		}
		// Every position of the dilated and padded input, and of the dilated window, within the int64
		// range: sizes, paddings and dilations near 2^63 must not wrap around to an output size that looks
		// valid.
		dilatedBase, ok1 := dilatedBound(base[i], bd)
		padded, ok2 := paddedSize(dilatedBase, d.PadLow, d.PadHigh)
		window, ok3 := dilatedBound(d.Size, wd)
		if !ok1 || !ok2 || !ok3 {
			return nil, errorf(op, "window dimension %d over an input of size %d has a padded or dilated size past the int64 range", i, base[i])
		}
		if padded < window {
			out[i] = 0
		} else {
			out[i] = (padded-window)/stride + 1
		}
	}
	return out, nil
}

// DilatedBound is the size of n elements with dilation-1 holes between each two: 0 for none.
func DilatedBound(n, dilation int64) int64 {
	if n == 0 {
		return 0
	}
	return (n-1)*dilation + 1
}

// dilatedBound is DilatedBound for n >= 0 and dilation >= 1, and false where the size overflows int64.
func dilatedBound(n, dilation int64) (int64, bool) {
	if n == 0 {
		return 0, true
	}
	m, ok := mulInt64(n-1, dilation)
	if !ok || m == math.MaxInt64 {
		return 0, false
	}
	return m + 1, true
}

// addInt64 returns a+b, and false where the sum overflows int64.
func addInt64(a, b int64) (int64, bool) {
	s := a + b
	return s, (s > a) == (b > 0)
}

// mulInt64 returns a*b for a, b >= 0, and false where the product overflows int64.
func mulInt64(a, b int64) (int64, bool) {
	if a != 0 && b > math.MaxInt64/a {
		return 0, false
	}
	return a * b, true
}

// paddedSize returns n+low+high for n >= 0, and false where n padded by whichever of low and high is
// positive is past the largest int64: every position of the padded dimension must fit an int64, even where
// negative padding on the other side cancels it out. A sum below the smallest int64 gives math.MinInt64.
func paddedSize(n, low, high int64) (int64, bool) {
	s := n
	for _, p := range []int64{low, high} {
		if p > 0 {
			var ok bool
			if s, ok = addInt64(s, p); !ok {
				return 0, false
			}
		}
	}
	for _, p := range []int64{low, high} {
		if p < 0 {
			if s < math.MinInt64-p {
				return math.MinInt64, true
			}
			s += p
		}
	}
	return s, true
}

func inferConvolution(in *Instruction) (Shape, error) {
	op := in.Opcode
	if err := wantOperands(in, 2); err != nil {
		return Shape{}, err
	}
	lhs, rhs := in.operands[0].Shape, in.operands[1].Shape
	if err := wantArray(op, "lhs", lhs); err != nil {
		return Shape{}, err
	}
	if err := wantArray(op, "rhs", rhs); err != nil {
		return Shape{}, err
	}
	dn, _ := in.Attr("dim_labels").(*ConvDims)
	if dn == nil {
		return Shape{}, errorf(op, "has no dim_labels=")
	}
	w, _ := in.Attr("window").(Window)
	fgc, ok := in.Int("feature_group_count")
	if !ok {
		fgc = 1
	}
	bgc, ok := in.Int("batch_group_count")
	if !ok {
		bgc = 1
	}
	if fgc <= 0 || bgc <= 0 {
		return Shape{}, errorf(op, "feature_group_count=%d and batch_group_count=%d must be positive", fgc, bgc)
	}
	if fgc > 1 && bgc > 1 {
		return Shape{}, errorf(op, "feature_group_count=%d and batch_group_count=%d cannot both be above 1", fgc, bgc)
	}
	n := len(dn.InputSpatial)
	if len(dn.KernelSpatial) != n || len(dn.OutputSpatial) != n {
		return Shape{}, errorf(op, "dim_labels= has different numbers of spatial dimensions for input, kernel and output")
	}
	if len(w) != n {
		return Shape{}, errorf(op, "the window has %d dimension%s, dim_labels= %d spatial", len(w), plural(len(w)), n)
	}
	if lhs.Rank() != n+2 {
		return Shape{}, errorf(op, "the lhs %s should have rank %d", lhs.String(), n+2)
	}
	if rhs.Rank() != n+2 {
		return Shape{}, errorf(op, "the rhs %s should have rank %d", rhs.String(), n+2)
	}
	inDims := append([]int64{dn.InputBatch, dn.InputFeature}, dn.InputSpatial...)
	kDims := append([]int64{dn.KernelInputFeature, dn.KernelOutput}, dn.KernelSpatial...)
	outDims := append([]int64{dn.OutputBatch, dn.OutputFeature}, dn.OutputSpatial...)
	if !isPermutation(inDims, n+2) || !isPermutation(kDims, n+2) || !isPermutation(outDims, n+2) {
		return Shape{}, errorf(op, "dim_labels= must name each dimension of input, kernel and output once")
	}
	inFeatures, batch := lhs.Dims[dn.InputFeature], lhs.Dims[dn.InputBatch]
	kIn, kOut := rhs.Dims[dn.KernelInputFeature], rhs.Dims[dn.KernelOutput]
	if kOut%bgc != 0 {
		return Shape{}, errorf(op, "the kernel's %d output features are not a multiple of batch_group_count=%d", kOut, bgc)
	}
	if inFeatures%fgc != 0 || inFeatures/fgc != kIn {
		return Shape{}, errorf(op, "the input has %d features and feature_group_count=%d, the kernel %d input features", inFeatures, fgc, kIn)
	}
	if kOut%fgc != 0 {
		return Shape{}, errorf(op, "the kernel's %d output features are not a multiple of feature_group_count=%d", kOut, fgc)
	}
	if batch%bgc != 0 {
		return Shape{}, errorf(op, "the input batch %d is not a multiple of batch_group_count=%d", batch, bgc)
	}
	base := make([]int64, n)
	for i := range n {
		base[i] = lhs.Dims[dn.InputSpatial[i]]
		if k := rhs.Dims[dn.KernelSpatial[i]]; k != w[i].Size {
			return Shape{}, errorf(op, "kernel spatial dimension %d has size %d, the window %d", i, k, w[i].Size)
		}
	}
	spatial, err := windowOutput(op, base, w)
	if err != nil {
		return Shape{}, err
	}
	elem, err := resultElem(in, lhs.Elem, rhs.Elem)
	if err != nil {
		return Shape{}, err
	}
	out := Array(elem)
	out.Dims = make([]int64, n+2)
	out.Dims[dn.OutputBatch] = batch / bgc
	out.Dims[dn.OutputFeature] = kOut
	for i := range n {
		out.Dims[dn.OutputSpatial[i]] = spatial[i]
	}
	return out, nil
}

// --- called computations ---------------------------------------------------------------------------------

// callee returns the computation of attribute name, or an error when it is absent or not resolved.
func callee(in *Instruction, name string) (*Computation, error) {
	c := in.CalledComputation(name)
	if c == nil {
		return nil, cannotInfer(in.Opcode, "result shape", "without its "+name+" computation")
	}
	if c.Root == nil {
		return nil, errorf(in.Opcode, "%s computation %%%s has no root", name, c.Name)
	}
	return c, nil
}

// paramShape returns the shape of parameter i of c, or false when c has no such parameter.
func paramShape(c *Computation, i int) (Shape, bool) {
	if i >= len(c.Params) || c.Params[i] == nil {
		return Shape{}, false
	}
	return c.Params[i].Shape, true
}

// checkReducer is XLA's VerifyReducerShape: a reducer of n inputs takes n accumulators and n inputs, all
// scalars, and returns the n accumulators (a scalar when n is 1, else a tuple).
func checkReducer(op Opcode, c *Computation, inits []Shape, inputs []dtype.Type) ([]Shape, error) {
	n := len(inits)
	if len(c.Params) != 2*n {
		return nil, errorf(op, "the reducer %%%s takes %d parameter%s; %d are needed", c.Name, len(c.Params), plural(len(c.Params)), 2*n)
	}
	res := c.Root.Shape
	var acc []Shape
	switch {
	case res.IsArray():
		if n != 1 {
			return nil, errorf(op, "the reducer %%%s returns %s; a tuple of %d scalars is needed", c.Name, res.String(), n)
		}
		acc = []Shape{res}
	case res.IsTuple():
		if len(res.Tuple) != n {
			return nil, errorf(op, "the reducer %%%s returns %s; a tuple of %d scalars is needed", c.Name, res.String(), n)
		}
		acc = res.Tuple
	default:
		return nil, errorf(op, "the reducer %%%s returns %s", c.Name, res.String())
	}
	for _, a := range acc {
		if !a.IsScalar() {
			return nil, errorf(op, "the reducer %%%s returns %s, not scalars", c.Name, res.String())
		}
	}
	for i := range n {
		p, ok := paramShape(c, i)
		if !ok {
			return nil, errorf(op, "the reducer %%%s has no parameter %d", c.Name, i)
		}
		if !compatible(p, acc[i]) {
			return nil, errorf(op, "parameter %d of the reducer %%%s is %s, its result %s", i, c.Name, p.String(), acc[i].String())
		}
		if !inits[i].IsScalar() || !sameElemIgnoringFP(inits[i].Elem, acc[i].Elem) {
			return nil, errorf(op, "init value %d is %s; the reducer %%%s accumulates %s", i, inits[i].String(), c.Name, acc[i].String())
		}
		q, ok := paramShape(c, n+i)
		if !ok {
			return nil, errorf(op, "the reducer %%%s has no parameter %d", c.Name, n+i)
		}
		if !q.IsScalar() || !sameElemIgnoringFP(q.Elem, inputs[i]) || !sameElemIgnoringFP(q.Elem, acc[i].Elem) {
			return nil, errorf(op, "parameter %d of the reducer %%%s is %s; input %d has elements of %s", n+i, c.Name, q.String(), i, inputs[i])
		}
	}
	return acc, nil
}

func shapesOf(ins []*Instruction) []Shape {
	s := make([]Shape, len(ins))
	for i, in := range ins {
		s[i] = in.Shape
	}
	return s
}

func elemsOf(s []Shape) []dtype.Type {
	t := make([]dtype.Type, len(s))
	for i, x := range s {
		t[i] = x.Elem
	}
	return t
}

// reduceOperands splits the operands of a reduce or reduce-window into inputs and init values, and checks
// that the inputs are arrays of the same dimensions.
func reduceOperands(in *Instruction) (inputs, inits []Shape, err error) {
	op, ops := in.Opcode, in.operands
	if len(ops) == 0 || len(ops)%2 != 0 {
		return nil, nil, errorf(op, "takes inputs and as many init values; has %d operand%s", len(ops), plural(len(ops)))
	}
	n := len(ops) / 2
	inputs, inits = shapesOf(ops[:n]), shapesOf(ops[n:])
	for i, s := range inputs {
		if err := wantArray(op, "input "+strconv.Itoa(i), s); err != nil {
			return nil, nil, err
		}
		if !sameDimsIgnoringDynamism(inputs[0], s) {
			return nil, nil, errorf(op, "inputs 0 and %d differ in dimensions: %s and %s", i, inputs[0].String(), s.String())
		}
	}
	return inputs, inits, nil
}

func inferReduce(in *Instruction) (Shape, error) {
	op := in.Opcode
	inputs, inits, err := reduceOperands(in)
	if err != nil {
		return Shape{}, err
	}
	n := len(inputs)
	x := inputs[0]
	dims := in.Ints("dimensions")
	seen := map[int64]bool{}
	for _, d := range dims {
		if d < 0 || d >= int64(x.Rank()) {
			return Shape{}, errorf(op, "dimension %d is out of range for %s", d, x.String())
		}
		if seen[d] {
			return Shape{}, errorf(op, "dimension %d is listed twice", d)
		}
		seen[d] = true
	}
	c, err := callee(in, "to_apply")
	if err != nil {
		return Shape{}, err
	}
	acc, err := checkReducer(op, c, inits, elemsOf(inputs))
	if err != nil {
		return Shape{}, err
	}
	var kept []int64
	var dyn []int
	for i, d := range x.Dims {
		if !seen[int64(i)] {
			kept = append(kept, d)
			if x.IsDynamic(i) {
				dyn = append(dyn, len(kept)-1)
			}
		}
	}
	make1 := func(t dtype.Type) Shape {
		s := Array(t, kept...)
		for _, i := range dyn {
			s.setDynamic(i)
		}
		return s
	}
	if c.Root.Shape.IsArray() {
		return make1(acc[0].Elem), nil
	}
	elems := make([]Shape, n)
	for i := range acc {
		elems[i] = make1(acc[i].Elem)
	}
	return Tuple(elems...), nil
}

func inferReduceWindow(in *Instruction) (Shape, error) {
	op := in.Opcode
	inputs, inits, err := reduceOperands(in)
	if err != nil {
		return Shape{}, err
	}
	n := len(inputs)
	c, err := callee(in, "to_apply")
	if err != nil {
		return Shape{}, err
	}
	if _, err := checkReducer(op, c, inits, elemsOf(inputs)); err != nil {
		return Shape{}, err
	}
	w, _ := in.Attr("window").(Window)
	dims, err := windowOutput(op, inputs[0].Dims, w)
	if err != nil {
		return Shape{}, err
	}
	elems := make([]Shape, n)
	for i := range n {
		elems[i] = Array(inits[i].Elem, dims...)
	}
	if c.Root.Shape.IsArray() {
		return elems[0], nil
	}
	return Tuple(elems...), nil
}

func inferSelectAndScatter(in *Instruction) (Shape, error) {
	op := in.Opcode
	if err := wantOperands(in, 3); err != nil {
		return Shape{}, err
	}
	x, src := in.operands[0].Shape, in.operands[1].Shape
	if err := wantArray(op, "operand", x); err != nil {
		return Shape{}, err
	}
	w, _ := in.Attr("window").(Window)
	dims, err := windowOutput(op, x.Dims, w)
	if err != nil {
		return Shape{}, err
	}
	if !src.IsArray() || !slices.Equal(src.Dims, dims) {
		return Shape{}, errorf(op, "the source %s does not have the windowed operand's dimensions %s", src.String(), intsString(dims))
	}
	if sel := in.CalledComputation("select"); sel != nil && sel.Root != nil {
		if len(sel.Params) != 2 {
			return Shape{}, errorf(op, "the select computation %%%s takes %d parameter%s; 2 are needed", sel.Name, len(sel.Params), plural(len(sel.Params)))
		}
		if !compatible(sel.Root.Shape, Scalar(dtype.PRED)) {
			return Shape{}, errorf(op, "the select computation %%%s returns %s, not pred[]", sel.Name, sel.Root.Shape.String())
		}
		for i := range 2 {
			if p, ok := paramShape(sel, i); !ok || !p.IsScalar() || !sameElemIgnoringFP(p.Elem, x.Elem) {
				return Shape{}, errorf(op, "parameter %d of the select computation %%%s is %s, not %s[]", i, sel.Name, p.String(), x.Elem)
			}
		}
	}
	if sc := in.CalledComputation("scatter"); sc != nil && sc.Root != nil {
		if _, err := checkReducer(op, sc, []Shape{in.operands[2].Shape}, []dtype.Type{src.Elem}); err != nil {
			return Shape{}, err
		}
	}
	return x.Clone(), nil
}

func inferMap(in *Instruction) (Shape, error) {
	op := in.Opcode
	ops := in.operands
	if len(ops) == 0 {
		return Shape{}, errorf(op, "has no operands")
	}
	x := ops[0].Shape
	for i, o := range ops {
		if err := wantArray(op, "operand "+strconv.Itoa(i), o.Shape); err != nil {
			return Shape{}, err
		}
		if !sameDimsIgnoringDynamism(x, o.Shape) {
			return Shape{}, errorf(op, "operands 0 and %d differ in dimensions: %s and %s", i, x.String(), o.Shape.String())
		}
	}
	c, err := callee(in, "to_apply")
	if err != nil {
		return Shape{}, err
	}
	if len(c.Params) != len(ops) {
		return Shape{}, errorf(op, "%%%s takes %d parameter%s for %d operand%s", c.Name, len(c.Params), plural(len(c.Params)), len(ops), plural(len(ops)))
	}
	if !c.Root.Shape.IsScalar() {
		return Shape{}, errorf(op, "%%%s returns %s, not a scalar", c.Name, c.Root.Shape.String())
	}
	// XLA's verifier wants each parameter of exactly its operand's element type (ShapeInference alone
	// would let floating-point types differ): the computation reads the operand's elements as they are.
	for i, o := range ops {
		p, ok := paramShape(c, i)
		if !ok || !p.IsScalar() || p.Elem != o.Shape.Elem {
			return Shape{}, errorf(op, "parameter %d of %%%s is %s; operand %d has elements of %s", i, c.Name, p.String(), i, o.Shape.Elem)
		}
	}
	return Array(c.Root.Shape.Elem, x.Dims...), nil
}

func inferSort(in *Instruction) (Shape, error) {
	op := in.Opcode
	ops := in.operands
	if len(ops) == 0 {
		return Shape{}, errorf(op, "has no operands")
	}
	x := ops[0].Shape
	for i, o := range ops {
		if err := wantArray(op, "operand "+strconv.Itoa(i), o.Shape); err != nil {
			return Shape{}, err
		}
		if !sameDimsIgnoringDynamism(x, o.Shape) {
			return Shape{}, errorf(op, "operands 0 and %d differ in dimensions: %s and %s", i, x.String(), o.Shape.String())
		}
	}
	if dims := in.Ints("dimensions"); len(dims) != 1 || dims[0] < 0 || dims[0] >= int64(x.Rank()) {
		return Shape{}, errorf(op, "dimensions=%s does not name a dimension of %s", intsString(dims), x.String())
	}
	if c := in.CalledComputation("to_apply"); c != nil && c.Root != nil {
		if !compatible(c.Root.Shape, Scalar(dtype.PRED)) {
			return Shape{}, errorf(op, "the comparator %%%s returns %s, not pred[]", c.Name, c.Root.Shape.String())
		}
		if len(c.Params) != 2*len(ops) {
			return Shape{}, errorf(op, "the comparator %%%s takes %d parameter%s; %d are needed", c.Name, len(c.Params), plural(len(c.Params)), 2*len(ops))
		}
		for i := range c.Params {
			p, ok := paramShape(c, i)
			want := ops[i/2].Shape.Elem
			if !ok || !p.IsScalar() || !sameElemIgnoringFP(p.Elem, want) {
				return Shape{}, errorf(op, "parameter %d of the comparator %%%s is %s, not %s[]", i, c.Name, p.String(), want)
			}
		}
	}
	if len(ops) == 1 {
		return x.Clone(), nil
	}
	elems := make([]Shape, len(ops))
	for i, o := range ops {
		elems[i] = o.Shape.Clone()
	}
	return Tuple(elems...), nil
}

// checkArguments checks that c takes parameters of the shapes of args.
func checkArguments(op Opcode, c *Computation, args []*Instruction, what string) error {
	if len(c.Params) != len(args) {
		return errorf(op, "%s %%%s takes %d parameter%s, given %d operand%s", what, c.Name, len(c.Params), plural(len(c.Params)), len(args), plural(len(args)))
	}
	for i, a := range args {
		p, ok := paramShape(c, i)
		if !ok {
			return errorf(op, "%s %%%s has no parameter %d", what, c.Name, i)
		}
		if !compatible(p, a.Shape) {
			return errorf(op, "parameter %d of %s %%%s is %s, operand %d is %s", i, what, c.Name, p.String(), i, a.Shape.String())
		}
	}
	return nil
}

func inferCall(in *Instruction) (Shape, error) {
	c, err := callee(in, "to_apply")
	if err != nil {
		return Shape{}, err
	}
	if err := checkArguments(in.Opcode, c, in.operands, "the called computation"); err != nil {
		return Shape{}, err
	}
	return c.Root.Shape.Clone(), nil
}

func inferFusion(in *Instruction) (Shape, error) {
	op := in.Opcode
	c, err := callee(in, "calls")
	if err != nil {
		return Shape{}, err
	}
	if len(c.Params) > len(in.operands) {
		return Shape{}, errorf(op, "the fused computation %%%s takes %d parameter%s, given %d operand%s", c.Name, len(c.Params), plural(len(c.Params)), len(in.operands), plural(len(in.operands)))
	}
	for i := range c.Params {
		p, ok := paramShape(c, i)
		if !ok {
			return Shape{}, errorf(op, "the fused computation %%%s has no parameter %d", c.Name, i)
		}
		if a := in.operands[i].Shape; !compatible(p, a) {
			return Shape{}, errorf(op, "parameter %d of the fused computation %%%s is %s, operand %d is %s", i, c.Name, p.String(), i, a.String())
		}
	}
	return c.Root.Shape.Clone(), nil
}

func inferWhile(in *Instruction) (Shape, error) {
	op := in.Opcode
	if err := wantOperands(in, 1); err != nil {
		return Shape{}, err
	}
	init := in.operands[0].Shape
	cond, body := in.CalledComputation("condition"), in.CalledComputation("body")
	if cond == nil || body == nil || cond.Root == nil || body.Root == nil {
		// XLA's rule: a while gives its init value's shape; its computations are checked when known.
		return init.Clone(), nil
	}
	if err := checkArguments(op, cond, in.operands, "the condition"); err != nil {
		return Shape{}, err
	}
	if err := checkArguments(op, body, in.operands, "the body"); err != nil {
		return Shape{}, err
	}
	if !compatible(cond.Root.Shape, Scalar(dtype.PRED)) {
		return Shape{}, errorf(op, "the condition %%%s returns %s, not pred[]", cond.Name, cond.Root.Shape.String())
	}
	if !compatible(body.Root.Shape, init) {
		return Shape{}, errorf(op, "the body %%%s returns %s, the loop carries %s", body.Name, body.Root.Shape.String(), init.String())
	}
	return body.Root.Shape.Clone(), nil
}

func inferConditional(in *Instruction) (Shape, error) {
	op := in.Opcode
	ops := in.operands
	if len(ops) == 0 {
		return Shape{}, errorf(op, "has no operands")
	}
	idx := ops[0].Shape
	var branches []*Computation
	switch {
	case compatible(idx, Scalar(dtype.PRED)):
		t, f := in.CalledComputation("true_computation"), in.CalledComputation("false_computation")
		if t == nil || f == nil {
			if l, ok := in.Attr("branch_computations").(CompList); ok && len(l) == 2 {
				t, f = l[0], l[1]
			}
		}
		if t == nil || f == nil {
			return Shape{}, cannotInfer(op, "result shape", "without its true and false computations")
		}
		branches = []*Computation{t, f}
	case compatible(idx, Scalar(dtype.S32)):
		l, _ := in.Attr("branch_computations").(CompList)
		if len(l) == 0 {
			return Shape{}, cannotInfer(op, "result shape", "without its branch computations")
		}
		branches = l
	default:
		return Shape{}, errorf(op, "the branch index %s is neither pred[] nor s32[]", idx.String())
	}
	if len(ops) != len(branches)+1 {
		return Shape{}, errorf(op, "has %s and %s after the branch index", count(len(branches), "branch", "branches"), count(len(ops)-1, "operand", "operands"))
	}
	for j, b := range branches {
		if b == nil {
			return Shape{}, cannotInfer(op, "result shape", "without its branch computations")
		}
		if b.Root == nil {
			return Shape{}, errorf(op, "branch %d, %%%s, has no root", j, b.Name)
		}
		if err := checkArguments(op, b, ops[j+1:j+2], fmt.Sprintf("branch %d", j)); err != nil {
			return Shape{}, err
		}
		if !compatible(b.Root.Shape, branches[0].Root.Shape) {
			return Shape{}, errorf(op, "branch 0, %%%s, returns %s; branch %d, %%%s, returns %s", branches[0].Name, branches[0].Root.Shape.String(), j, b.Name, b.Root.Shape.String())
		}
	}
	return branches[0].Root.Shape.Clone(), nil
}

// --- gather and scatter ----------------------------------------------------------------------------------

func sortedUnique(d []int64) bool {
	for i := 1; i < len(d); i++ {
		if d[i-1] >= d[i] {
			return false
		}
	}
	return true
}

func inferGather(in *Instruction) (Shape, error) {
	op := in.Opcode
	if err := wantOperands(in, 2); err != nil {
		return Shape{}, err
	}
	x, idx := in.operands[0].Shape, in.operands[1].Shape
	if err := wantArray(op, "operand", x); err != nil {
		return Shape{}, err
	}
	if err := wantArray(op, "start indices", idx); err != nil {
		return Shape{}, err
	}
	if !idx.Elem.IsInteger() {
		return Shape{}, errorf(op, "the start indices %s are not integers", idx.String())
	}
	offset := in.Ints("offset_dims")
	collapsed := in.Ints("collapsed_slice_dims")
	batching := in.Ints("operand_batching_dims")
	startMap := in.Ints("start_index_map")
	sizes := in.Ints("slice_sizes")
	ivd, expanded, err := indexVector(in, idx)
	if err != nil {
		return Shape{}, err
	}
	if !sortedUnique(offset) {
		return Shape{}, errorf(op, "offset_dims=%s is not increasing", intsString(offset))
	}
	rank := len(offset) + len(expanded) - 1
	for _, d := range offset {
		if d < 0 || d >= int64(rank) {
			return Shape{}, errorf(op, "offset dimension %d is out of range for a result of rank %d", d, rank)
		}
	}
	if int64(len(startMap)) != expanded[ivd] {
		return Shape{}, errorf(op, "start_index_map=%s has %d entries; the index vector has %d", intsString(startMap), len(startMap), expanded[ivd])
	}
	for _, d := range startMap {
		if d < 0 || d >= int64(x.Rank()) {
			return Shape{}, errorf(op, "start_index_map=%s names dimension %d, out of range for %s", intsString(startMap), d, x.String())
		}
	}
	if !allUnique(startMap) {
		return Shape{}, errorf(op, "start_index_map=%s repeats a dimension", intsString(startMap))
	}
	if !sortedUnique(collapsed) {
		return Shape{}, errorf(op, "collapsed_slice_dims=%s is not increasing", intsString(collapsed))
	}
	if !sortedUnique(batching) {
		return Shape{}, errorf(op, "operand_batching_dims=%s is not increasing", intsString(batching))
	}
	for _, d := range append(slices.Clone(collapsed), batching...) {
		if d < 0 || d >= int64(x.Rank()) {
			return Shape{}, errorf(op, "dimension %d is out of range for %s", d, x.String())
		}
	}
	if len(sizes) != x.Rank() {
		return Shape{}, errorf(op, "slice_sizes=%s has %d sizes; the operand %s has rank %d", intsString(sizes), len(sizes), x.String(), x.Rank())
	}
	if len(sizes) != len(offset)+len(collapsed)+len(batching) {
		return Shape{}, errorf(op, "the %d slice sizes are not the %d offset, %d collapsed and %d batching dimensions", len(sizes), len(offset), len(collapsed), len(batching))
	}
	for i, n := range sizes {
		if n < 0 || n > x.Dims[i] {
			return Shape{}, errorf(op, "slice size %d of dimension %d does not fit in %s", n, i, x.String())
		}
	}
	for _, d := range append(slices.Clone(collapsed), batching...) {
		if sizes[d] > 1 {
			return Shape{}, errorf(op, "dimension %d is collapsed but its slice size is %d", d, sizes[d])
		}
	}
	if err := batchingDims(op, "operand_batching_dims", "start_indices_batching_dims", x, batching,
		in.Ints("start_indices_batching_dims"), expanded, ivd, collapsed, startMap); err != nil {
		return Shape{}, err
	}
	out := Array(x.Elem)
	out.Dims = make([]int64, rank)
	nextOffset, nextBatch := 0, 0
	isOffset, skip := dimSet(offset), dimSet(collapsed, batching)
	for i := range rank {
		if isOffset[int64(i)] {
			for skip[int64(nextOffset)] {
				nextOffset++
			}
			out.Dims[i] = sizes[nextOffset]
			nextOffset++
			continue
		}
		if nextBatch == int(ivd) {
			nextBatch++
		}
		out.Dims[i] = expanded[nextBatch]
		nextBatch++
	}
	return out, nil
}

func inferScatter(in *Instruction) (Shape, error) {
	op := in.Opcode
	ops := in.operands
	if len(ops) < 3 || len(ops)%2 != 1 {
		return Shape{}, errorf(op, "takes operands, indices and as many updates; has %d operand%s", len(ops), plural(len(ops)))
	}
	n := len(ops) / 2
	operands, idx, updates := shapesOf(ops[:n]), ops[n].Shape, shapesOf(ops[n+1:])
	for i := range n {
		if err := wantArray(op, "operand "+strconv.Itoa(i), operands[i]); err != nil {
			return Shape{}, err
		}
		if err := wantArray(op, "update "+strconv.Itoa(i), updates[i]); err != nil {
			return Shape{}, err
		}
		if !sameDimsIgnoringDynamism(operands[0], operands[i]) {
			return Shape{}, errorf(op, "operands 0 and %d differ in dimensions: %s and %s", i, operands[0].String(), operands[i].String())
		}
		if !sameDimsIgnoringDynamism(updates[0], updates[i]) {
			return Shape{}, errorf(op, "updates 0 and %d differ in dimensions: %s and %s", i, updates[0].String(), updates[i].String())
		}
	}
	if err := wantArray(op, "scatter indices", idx); err != nil {
		return Shape{}, err
	}
	if !idx.Elem.IsInteger() {
		return Shape{}, errorf(op, "the scatter indices %s are not integers", idx.String())
	}
	x, u := operands[0], updates[0]
	window := in.Ints("update_window_dims")
	inserted := in.Ints("inserted_window_dims")
	batching := in.Ints("input_batching_dims")
	toOperand := in.Ints("scatter_dims_to_operand_dims")
	ivd, expanded, err := indexVector(in, idx)
	if err != nil {
		return Shape{}, err
	}
	if !sortedUnique(window) {
		return Shape{}, errorf(op, "update_window_dims=%s is not increasing", intsString(window))
	}
	for _, d := range window {
		if d < 0 || d >= int64(u.Rank()) {
			return Shape{}, errorf(op, "update window dimension %d is out of range for %s", d, u.String())
		}
	}
	if !sortedUnique(inserted) || !sortedUnique(batching) {
		return Shape{}, errorf(op, "inserted_window_dims=%s and input_batching_dims=%s must be increasing", intsString(inserted), intsString(batching))
	}
	if len(window)+len(inserted)+len(batching) != x.Rank() {
		return Shape{}, errorf(op, "the window has %d dimensions; the operand %s has rank %d", len(window)+len(inserted)+len(batching), x.String(), x.Rank())
	}
	if int64(len(toOperand)) != expanded[ivd] {
		return Shape{}, errorf(op, "scatter_dims_to_operand_dims=%s has %d entries; the index vector has %d", intsString(toOperand), len(toOperand), expanded[ivd])
	}
	if want := len(window) + len(expanded) - 1; u.Rank() != want {
		return Shape{}, errorf(op, "the updates %s should have rank %d", u.String(), want)
	}
	for _, d := range toOperand {
		if d < 0 || d >= int64(x.Rank()) {
			return Shape{}, errorf(op, "scatter_dims_to_operand_dims=%s names dimension %d, out of range for %s", intsString(toOperand), d, x.String())
		}
	}
	if !allUnique(toOperand) {
		return Shape{}, errorf(op, "scatter_dims_to_operand_dims=%s repeats a dimension", intsString(toOperand))
	}
	for _, d := range append(slices.Clone(inserted), batching...) {
		if d < 0 || d >= int64(x.Rank()) {
			return Shape{}, errorf(op, "inserted or batching dimension %d is out of range for %s", d, x.String())
		}
	}
	if err := batchingDims(op, "input_batching_dims", "scatter_indices_batching_dims", x, batching,
		in.Ints("scatter_indices_batching_dims"), expanded, ivd, inserted, toOperand); err != nil {
		return Shape{}, err
	}
	// As XLA's InferScatterShape (xla/service/shape_inference.cc): each window dimension of the updates
	// fits in the operand's dimension it stands for (those neither inserted nor batching, in order),
	// and each other dimension has the size of the indices' dimension it stands for (index_vector_dim
	// left out).
	var fits []int64
	skip := dimSet(inserted, batching)
	for i, n := range x.Dims {
		if !skip[int64(i)] {
			fits = append(fits, n)
		}
	}
	for i, d := range window {
		if u.Dims[d] > fits[i] {
			return Shape{}, errorf(op, "update window dimension %d of %s has size %d, more than the %d of the operand %s", d, u.String(), u.Dims[d], fits[i], x.String())
		}
	}
	seen := int64(0)
	isWindow := dimSet(window)
	for i, n := range u.Dims {
		if isWindow[int64(i)] {
			continue
		}
		if seen == ivd {
			seen++
		}
		if n != expanded[seen] {
			return Shape{}, errorf(op, "scatter dimension %d of the updates %s has size %d; the indices %s have %d there", i, u.String(), n, idx.String(), expanded[seen])
		}
		seen++
	}
	for i := range n {
		if !sameElemIgnoringFP(operands[i].Elem, updates[i].Elem) {
			return Shape{}, errorf(op, "operand %d %s and update %d %s differ in element type", i, operands[i].String(), i, updates[i].String())
		}
	}
	if c := in.CalledComputation("to_apply"); c != nil && c.Root != nil {
		inits := make([]Shape, n)
		for i := range n {
			inits[i] = Scalar(operands[i].Elem)
		}
		if _, err := checkReducer(op, c, inits, elemsOf(updates)); err != nil {
			return Shape{}, err
		}
	}
	if n == 1 {
		return x.Clone(), nil
	}
	elems := make([]Shape, n)
	for i := range n {
		elems[i] = operands[i].Clone()
	}
	return Tuple(elems...), nil
}

// --- linear algebra and the rest -------------------------------------------------------------------------

func inferCholesky(a Shape) (Shape, error) {
	op := OpCholesky
	if err := wantArray(op, "operand", a); err != nil {
		return Shape{}, err
	}
	if !a.Elem.IsFloat() && !a.Elem.IsComplex() {
		return Shape{}, errorf(op, "the operand %s is not floating point or complex", a.String())
	}
	if a.Rank() < 2 || a.Dims[a.Rank()-1] != a.Dims[a.Rank()-2] {
		return Shape{}, errorf(op, "the operand %s is not a (batch of) square matrices", a.String())
	}
	return a.Clone(), nil
}

func inferTriangularSolve(in *Instruction) (Shape, error) {
	op := in.Opcode
	a, b := in.operands[0].Shape, in.operands[1].Shape
	if err := wantArray(op, "a", a); err != nil {
		return Shape{}, err
	}
	if err := wantArray(op, "b", b); err != nil {
		return Shape{}, err
	}
	if a.Elem != b.Elem || !a.Elem.IsFloat() && !a.Elem.IsComplex() {
		return Shape{}, errorf(op, "a %s and b %s must share a floating-point or complex type", a.String(), b.String())
	}
	if a.Rank() < 2 || a.Rank() != b.Rank() || a.Dims[a.Rank()-1] != a.Dims[a.Rank()-2] {
		return Shape{}, errorf(op, "a %s must be a (batch of) square matrices of the rank of b %s", a.String(), b.String())
	}
	if !slices.Equal(a.Dims[:a.Rank()-2], b.Dims[:b.Rank()-2]) {
		return Shape{}, errorf(op, "a %s and b %s differ in batch dimensions", a.String(), b.String())
	}
	shared := b.Dims[b.Rank()-1]
	if in.Str("left_side") == "true" {
		shared = b.Dims[b.Rank()-2]
	}
	if a.Dims[a.Rank()-1] != shared {
		return Shape{}, errorf(op, "a %s and b %s do not share a dimension", a.String(), b.String())
	}
	return b.Clone(), nil
}

func inferFft(in *Instruction) (Shape, error) {
	op := in.Opcode
	if err := wantOperands(in, 1); err != nil {
		return Shape{}, err
	}
	x := in.operands[0].Shape
	if err := wantArray(op, "operand", x); err != nil {
		return Shape{}, err
	}
	length := in.Ints("fft_length")
	n := len(length)
	if n < 1 || n > 3 {
		return Shape{}, errorf(op, "fft_length=%s must have 1 to 3 sizes", intsString(length))
	}
	if x.Rank() < n {
		return Shape{}, errorf(op, "the operand %s has rank below %d", x.String(), n)
	}
	r := x.Rank()
	switch strings.ToUpper(in.Str("fft_type")) {
	case "FFT", "IFFT":
		if !x.Elem.IsComplex() {
			return Shape{}, errorf(op, "the operand %s is not complex", x.String())
		}
		return x.Clone(), nil
	case "RFFT":
		if x.Elem != dtype.F32 && x.Elem != dtype.F64 {
			return Shape{}, errorf(op, "the operand %s is not f32 or f64", x.String())
		}
		for i := range n {
			if x.Dims[r-n+i] != length[i] {
				return Shape{}, errorf(op, "dimension %d of %s is not fft_length %d", r-n+i, x.String(), length[i])
			}
		}
		s := x.WithElem(dtype.C128)
		if x.Elem == dtype.F32 {
			s.Elem = dtype.C64
		}
		if length[n-1] != 0 {
			s.Dims[r-1] = length[n-1]/2 + 1
		}
		return s, nil
	case "IRFFT":
		if !x.Elem.IsComplex() {
			return Shape{}, errorf(op, "the operand %s is not complex", x.String())
		}
		for i := range n - 1 {
			if x.Dims[r-n+i] != length[i] {
				return Shape{}, errorf(op, "dimension %d of %s is not fft_length %d", r-n+i, x.String(), length[i])
			}
		}
		if (x.Dims[r-1] != 0 || length[n-1] != 0) && x.Dims[r-1] != length[n-1]/2+1 {
			return Shape{}, errorf(op, "the last dimension of %s should be %d", x.String(), length[n-1]/2+1)
		}
		s := x.WithElem(x.Elem.Part())
		s.Dims[r-1] = length[n-1]
		return s, nil
	}
	return Shape{}, errorf(op, "unknown fft_type=%s", in.Str("fft_type"))
}

func inferTopK(in *Instruction) (Shape, error) {
	op := in.Opcode
	if err := wantOperands(in, 1); err != nil {
		return Shape{}, err
	}
	x := in.operands[0].Shape
	if err := wantArray(op, "operand", x); err != nil {
		return Shape{}, err
	}
	k, ok := in.Int("k")
	if !ok || k < 0 {
		return Shape{}, errorf(op, "needs k= of at least 0")
	}
	if x.Rank() < 1 || x.Dims[x.Rank()-1] < k {
		return Shape{}, errorf(op, "the operand %s has no last dimension of at least k=%d", x.String(), k)
	}
	values := Array(x.Elem, x.Dims...)
	values.Dims[x.Rank()-1] = k
	indices := Array(dtype.S32, values.Dims...)
	return Tuple(values, indices), nil
}

func inferBatchNorm(in *Instruction) (Shape, error) {
	op := in.Opcode
	n := map[Opcode]int{OpBatchNormTraining: 3, OpBatchNormInference: 5, OpBatchNormGrad: 5}[op]
	if err := wantOperands(in, n); err != nil {
		return Shape{}, err
	}
	x := in.operands[0].Shape
	if err := wantArray(op, "operand", x); err != nil {
		return Shape{}, err
	}
	if !x.Elem.IsFloat() {
		return Shape{}, errorf(op, "the operand %s is not floating point", x.String())
	}
	f, ok := in.Int("feature_index")
	if !ok || f < 0 || f >= int64(x.Rank()) {
		return Shape{}, errorf(op, "feature_index=%d is out of range for %s", f, x.String())
	}
	features := x.Dims[f]
	for i, o := range in.operands[1:] {
		s := o.Shape
		if op == OpBatchNormGrad && i == 3 {
			if !sameDimsIgnoringDynamism(s, x) {
				return Shape{}, errorf(op, "the output gradient %s and the operand %s differ", s.String(), x.String())
			}
			continue
		}
		if !s.IsArray() || s.Rank() != 1 || s.Dims[0] != features || !sameElemIgnoringFP(s.Elem, x.Elem) {
			return Shape{}, errorf(op, "operand %d is %s, not %s[%d]", i+1, s.String(), x.Elem, features)
		}
	}
	if op == OpBatchNormInference {
		return x.Clone(), nil
	}
	v := Array(x.Elem, features)
	return Tuple(x.Clone(), v, v.Clone()), nil
}

// --- comparing and printing shapes -----------------------------------------------------------------------

// compatible reports whether a and b are the same shape ignoring layouts and which dimensions are dynamic
// (XLA's ShapeUtil::Compatible).
func compatible(a, b Shape) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case ArrayShape:
		return a.Elem == b.Elem && slices.Equal(a.Dims, b.Dims)
	case TupleShape:
		if len(a.Tuple) != len(b.Tuple) {
			return false
		}
		for i := range a.Tuple {
			if !compatible(a.Tuple[i], b.Tuple[i]) {
				return false
			}
		}
	}
	return true
}

// JoinInts writes integers separated by commas, as HLO text lists them: 1,0.
func JoinInts(xs []int64) string {
	var b strings.Builder
	for i, x := range xs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(x, 10))
	}
	return b.String()
}

// intsString writes a list of integers as attributes do: {1,0}.
func intsString(d []int64) string { return "{" + JoinInts(d) + "}" }

// dimSet returns the set of the dimensions the lists name: looked up for each dimension of a shape, where a
// search of the lists made the work quadratic in the rank.
func dimSet(lists ...[]int64) map[int64]bool {
	set := map[int64]bool{}
	for _, l := range lists {
		for _, d := range l {
			set[d] = true
		}
	}
	return set
}

// indexVector reads index_vector_dim of a gather or scatter (default: the indices' rank) and returns it
// with the indices' dimensions, a trailing 1 added when the index vector dimension is that implicit one.
// allUnique reports whether no number of d repeats.
func allUnique(d []int64) bool {
	seen := make(map[int64]bool, len(d))
	for _, x := range d {
		if seen[x] {
			return false
		}
		seen[x] = true
	}
	return true
}

// batchingDims checks a gather's or scatter's batching dimensions as XLA's shape inference does: the
// operand's (named opName) and the indices' (idxName) are as many; each of the indices' is one of its
// dimensions but the index vector's, none repeated; each pair has one size; and no batching dimension of
// the operand is also collapsed or inserted (other) or one the indices map to (mapped).
func batchingDims(op Opcode, opName, idxName string, x Shape, batching, idxBatching, expanded []int64, ivd int64, other, mapped []int64) error {
	if len(idxBatching) != len(batching) {
		return errorf(op, "%s=%s and %s=%s differ in length", opName, intsString(batching), idxName, intsString(idxBatching))
	}
	if !allUnique(idxBatching) {
		return errorf(op, "%s=%s repeats a dimension", idxName, intsString(idxBatching))
	}
	for i, d := range idxBatching {
		if d < 0 || d >= int64(len(expanded)) || d == ivd {
			return errorf(op, "%s=%s names dimension %d, not a batch dimension of the indices", idxName, intsString(idxBatching), d)
		}
		if b := batching[i]; b >= 0 && b < int64(x.Rank()) && x.Dims[b] != expanded[d] {
			return errorf(op, "batching dimension %d of the operand %s has size %d, dimension %d of the indices %d", b, x.String(), x.Dims[b], d, expanded[d])
		}
	}
	clash := dimSet(other, mapped)
	for _, b := range batching {
		if clash[b] {
			return errorf(op, "batching dimension %d of the operand is also collapsed, inserted or indexed", b)
		}
	}
	return nil
}

func indexVector(in *Instruction, idx Shape) (int64, []int64, error) {
	ivd, ok := in.Int("index_vector_dim")
	if !ok {
		ivd = int64(idx.Rank())
	}
	if ivd < 0 || ivd > int64(idx.Rank()) {
		return 0, nil, errorf(in.Opcode, "index_vector_dim=%d is out of range for %s", ivd, idx.String())
	}
	expanded := slices.Clone(idx.Dims)
	if ivd == int64(len(expanded)) {
		expanded = append(expanded, 1)
	}
	return ivd, expanded, nil
}

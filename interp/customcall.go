package interp

import (
	"math"
	"slices"
	"strings"

	"octet/cublas"
	"octet/dtype"
	"octet/gemm"
	"octet/hlo"
	"octet/tensor"
)

// passThroughTargets are custom calls that only annotate their one operand for the partitioner or the
// memory-space assignment: on one device their value is the operand's.
var passThroughTargets = map[string]bool{
	"Sharding":                   true,
	"SPMDFullToShardShape":       true,
	"SPMDShardToFullShape":       true,
	"MoveToDevice":               true,
	"MoveToHost":                 true,
	"annotate_device_placement":  true,
	"LayoutConstraint":           true,
	"xla.sdy.FuncResultSharding": true,
	"xla.sdy.PropagationBarrier": true,
}

func (e *evaluator) customCall(in *hlo.Instruction, ops []Value) (Value, error) {
	target := in.CustomCallTarget()
	switch {
	case cublas.IsTarget(target):
		return e.cublasCall(in, ops)
	case isBlockScaledTarget(target):
		return e.blockScaledCall(in, ops)
	case isCheckTarget(target):
		return e.check(in, ops)
	case target == RunParallelTarget:
		return e.runParallel(in, ops)
	case target == probeTarget:
		return e.probe(in, ops)
	case target == "TopK":
		return e.topK(in, ops)
	case isSolverTarget(target):
		return e.solverCall(in, ops)
	case target == CublasTriangularSolveTarget:
		return e.cublasTriangularSolve(in, ops)
	case target == CudnnConvForwardTarget || target == CudnnConvBiasActivationForwardTarget:
		return e.cudnnConv(in, ops)
	case target == CudnnConvBackwardInputTarget || target == CudnnConvBackwardFilterTarget:
		return e.cudnnConvBackward(in, ops)
	case strings.HasPrefix(target, "xla_builder.") && len(in.Called()) == 1:
		// XlaBuilder's composite calls carry their decomposition as the called computation.
		return e.call(in.Called()[0], ops)
	case strings.HasPrefix(target, "xla.sdy.") && !passThroughTargets[target]:
		if v, ok, err := e.sdyCall(in, ops); ok {
			return v, err
		}
	case passThroughTargets[target]:
		if len(ops) == 1 {
			if err := ops[0].Fits(in.Shape); err == nil {
				return ops[0], nil
			}
		}
	}
	return Value{}, unsupportedf(in, "%s", describeOp(in))
}

// libraryResult checks that the result of the library call in is what XLA's GPU compiler gives its
// cuDNN and cuBLAS calls, a tuple of an array and a rank-1 workspace of type ws, and returns the array's
// shape.
func libraryResult(in *hlo.Instruction, ws dtype.Type) (hlo.Shape, error) {
	res := in.Shape
	if !res.IsTuple() || len(res.Tuple) != 2 || !res.Tuple[0].IsArray() || !res.Tuple[1].IsArray() || res.Tuple[1].Elem != ws || res.Tuple[1].Rank() != 1 {
		return hlo.Shape{}, errorf(in, "%s: the result %s is not a tuple of an array and a %s workspace", in.CustomCallTarget(), res.String(), ws)
	}
	return res.Tuple[0], nil
}

// withWorkspace is the value of such a call: r, and its workspace as zeros (workspace).
func withWorkspace(in *hlo.Instruction, r *tensor.Tensor) Value {
	return TupleValue(ArrayValue(r), workspace(in.Shape.Tuple[1]))
}

// operandValue returns the value of the operand instruction x of in.
func operandValue(in *hlo.Instruction, ops []Value, x *hlo.Instruction) *tensor.Tensor {
	if x == nil {
		return nil
	}
	for i, o := range in.Operands() {
		if o == x && ops[i].Kind == KindArray {
			return ops[i].Array
		}
	}
	return nil
}

// scalarF32 reads a one-element operand as float32.
func scalarF32(t *tensor.Tensor) float32 {
	if t == nil {
		return 1
	}
	return f32s(t)[0]
}

// cublasCall evaluates the cuBLAS GEMM custom calls (package cublas reads which operand is which):
//
//	D = d_scale * epilogue(alpha * a_scale * b_scale * (A @ B) + beta * c_scale * C + bias)
//
// A and B are decoded exactly to float32 and their product accumulated in float32 (through the MatMuler);
// the rest is computed in float32, one operation after the other in the order written (bias broadcast
// along D's rows, RELU max(x, 0), GELU the tanh approximation 0.5*x*(1+tanh(sqrt(2/pi)*(x+0.044715*x^3))),
// tanh evaluated in float64), and rounded once to D's type. amax is max|x| over D taken after the epilogue
// and before d_scale (NaN if any x is NaN). An FP8 D is converted with saturation to its largest finite
// value, as cuBLASLt's FP8 output conversion does (and as the clamp XLA requires before fusing the convert
// makes the unfused form do); NaN stays NaN. Other D types round to nearest even without saturation. The
// workspace result is zeros. An FP8 call whose types are not in cuBLASLt's FP8 type table
// (cublas.FP8TypeTable) is refused, not run: cuBLASLt would reject it.
func (e *evaluator) cublasCall(in *hlo.Instruction, ops []Value) (Value, error) {
	call, err := cublas.Decode(in)
	if err != nil {
		return Value{}, errorf(in, "%s: %v", in.CustomCallTarget(), err)
	}
	cfg := &call.Config
	if call.HasAux || cfg.Epilogue.HasAux() {
		return Value{}, unsupportedf(in, "%s with epilogue %s (auxiliary output)", call.Target, cfg.Epilogue)
	}
	if !cfg.Epilogue.Known() {
		return Value{}, unsupportedf(in, "%s with epilogue %q", call.Target, cfg.Epilogue)
	}
	if cfg.AlphaImag != 0 {
		return Value{}, unsupportedf(in, "%s with a complex alpha", call.Target)
	}
	a, b := operandValue(in, ops, call.A), operandValue(in, ops, call.B)
	if a == nil || b == nil {
		return Value{}, errorf(in, "missing A or B operand")
	}
	if call.IsFP8() {
		elem := func(x *hlo.Instruction) dtype.Type {
			if x == nil {
				return dtype.Invalid
			}
			return x.Shape.Elem
		}
		if err := cublas.CheckFP8Types(a.Type, b.Type, elem(call.C), call.DType, elem(call.Bias)); err != nil {
			return Value{}, errorf(in, "%s: %v", call.Target, err)
		}
	}
	for _, t := range []*tensor.Tensor{a, b} {
		if domainOf(t.Type) != domFloat32 {
			return Value{}, unsupportedf(in, "%s with %s operands", call.Target, t.Type)
		}
	}
	dt := call.DType
	if domainOf(dt) != domFloat32 {
		return Value{}, unsupportedf(in, "%s giving %s", call.Target, dt)
	}
	plan, err := planDot(a.Shape, b.Shape, dotDims{cfg.LhsBatch, cfg.RhsBatch, cfg.LhsContracting, cfg.RhsContracting})
	if err != nil {
		return Value{}, errorf(in, "%s of %s and %s: %v", call.Target, a, b, err)
	}
	if !slices.Equal(plan.outDims, call.D.Dims) {
		return Value{}, errorf(in, "%s of %s and %s gives %s, D is %s", call.Target, a, b,
			dimsString(dt, plan.outDims), call.D.String())
	}
	if err := e.charge(plan.batch * plan.m * plan.n * plan.k); err != nil {
		return Value{}, err
	}
	acc := make([]float32, plan.batch*plan.m*plan.n)
	if _, ok := e.gemm.(defaultMatMuler); ok && gemm.SupportedType(a.Type) && gemm.SupportedType(b.Type) {
		d, amax, err := e.cublasFused(in, call, ops, plan, a, b, acc)
		if err != nil {
			return Value{}, err
		}
		return cublasResult(in, call, d, amax), nil
	}
	e.matmulF32(plan, a, b, acc, 1, 0)

	scale := float32(cfg.AlphaReal)
	scale = float32(scale * scalarF32(operandValue(in, ops, call.AScale)))
	scale = float32(scale * scalarF32(operandValue(in, ops, call.BScale)))
	var c []float32
	var beta float32
	if call.C != nil && cfg.Beta != 0 {
		ct := operandValue(in, ops, call.C)
		if ct == nil || ct.NumElements() != int64(len(acc)) || domainOf(ct.Type) != domFloat32 {
			return Value{}, errorf(in, "C operand does not fit D %s", call.D.String())
		}
		c = f32s(ct)
		beta = float32(float32(cfg.Beta) * scalarF32(operandValue(in, ops, call.CScale)))
	}
	var bias []float32
	if call.Bias != nil {
		bt := operandValue(in, ops, call.Bias)
		if bt == nil || bt.NumElements() != plan.n || domainOf(bt.Type) != domFloat32 {
			return Value{}, errorf(in, "bias operand does not have D's %d columns", plan.n)
		}
		bias = f32s(bt)
	}
	var dScale float32 = 1
	hasDScale := call.DScale != nil
	if hasDScale {
		dScale = scalarF32(operandValue(in, ops, call.DScale))
	}
	act := cfg.Epilogue.Activation()
	n := int(plan.n)
	var amax float32
	for i, x := range acc {
		x = float32(scale * x)
		if c != nil {
			x = float32(x + float32(beta*c[i]))
		}
		if bias != nil {
			x = float32(x + bias[i%n])
		}
		switch act {
		case "RELU":
			x = maxF32(x, 0)
		case "GELU":
			x = geluTanh(x)
		}
		if ax := float32(math.Abs(float64(x))); ax != ax || amax != amax {
			amax = float32(math.NaN())
		} else if ax > amax {
			amax = ax
		}
		if hasDScale {
			x = float32(x * dScale)
		}
		acc[i] = x
	}
	if dt.IsFP8() {
		if max := float32(dt.Finfo().Max); max > 0 {
			for i, x := range acc {
				acc[i] = gemm.Clamp32(-max, x, max)
			}
		}
	}
	return cublasResult(in, call, fromF32(dt, call.D.Dims, acc), amax), nil
}

// cublasResult returns the value of the cuBLAS call in: D alone, or the tuple of D, the abs-max (when
// the call has one) and a zero workspace.
func cublasResult(in *hlo.Instruction, call *cublas.Call, d *tensor.Tensor, amax float32) Value {
	if !in.Shape.IsTuple() {
		return ArrayValue(d)
	}
	elems := []Value{ArrayValue(d)}
	for _, s := range in.Shape.Tuple[1:] {
		switch {
		case s.IsScalar() && call.HasAmax && len(elems) == 1:
			t := tensor.New(s.Elem, nil)
			t.SetBitsAt(0, s.Elem.EncodeFloat32(amax))
			elems = append(elems, ArrayValue(t))
		default:
			elems = append(elems, workspace(s))
		}
	}
	return TupleValue(elems...)
}

// cublasFused evaluates the cuBLAS call as cublasCall does, with package gemm finishing every element
// (scales, C, bias, activation, abs-max, conversion to D) as it stores it, tile by tile on the goroutine
// that summed it; acc is scratch for the sums. It returns D and the abs-max.
func (e *evaluator) cublasFused(in *hlo.Instruction, call *cublas.Call, ops []Value, plan *dotPlan, a, b *tensor.Tensor, acc []float32) (*tensor.Tensor, float32, error) {
	cfg := &call.Config
	dt := call.DType
	m, n := int(plan.m), int(plan.n)
	scale := float32(cfg.AlphaReal)
	scale = float32(scale * scalarF32(operandValue(in, ops, call.AScale)))
	scale = float32(scale * scalarF32(operandValue(in, ops, call.BScale)))
	ep := gemm.Epilogue{Scale: scale, OutScale: 1, DType: dt, DStride: n}
	var c []float32
	if call.C != nil && cfg.Beta != 0 {
		ct := operandValue(in, ops, call.C)
		if ct == nil || ct.NumElements() != int64(len(acc)) || domainOf(ct.Type) != domFloat32 {
			return nil, 0, errorf(in, "C operand does not fit D %s", call.D.String())
		}
		c = f32s(ct)
		ep.AddScale = float32(float32(cfg.Beta) * scalarF32(operandValue(in, ops, call.CScale)))
	}
	if call.Bias != nil {
		bt := operandValue(in, ops, call.Bias)
		if bt == nil || bt.NumElements() != plan.n || domainOf(bt.Type) != domFloat32 {
			return nil, 0, errorf(in, "bias operand does not have D's %d columns", plan.n)
		}
		ep.Bias = f32s(bt)
	}
	if call.DScale != nil {
		ep.OutScale = scalarF32(operandValue(in, ops, call.DScale))
	}
	switch cfg.Epilogue.Activation() {
	case "RELU":
		ep.Activation = gemm.ReLU
	case "GELU":
		ep.Activation = gemm.GELU
	}
	ep.Saturate = dt.IsFP8() && dt.Finfo().Max > 0
	d := tensor.New(dt, call.D.Dims)
	var amax, batchAmax float32
	ep.Amax = &batchAmax
	ta, tb := plan.typed(a, b)
	size := dt.ByteSize()
	for i := 0; i < int(plan.batch); i++ {
		if c != nil {
			ep.Add = &gemm.Matrix{Data: c[i*m*n : (i+1)*m*n], Rows: m, Cols: n, Stride: n}
		}
		ep.D = d.Data[i*m*n*size : (i+1)*m*n*size]
		cm := gemm.Matrix{Data: acc[i*m*n : (i+1)*m*n], Rows: m, Cols: n, Stride: n}
		gemm.MatMulEpilogue(cm, ta.batch(i), tb.batch(i), &ep)
		if batchAmax != batchAmax || amax != amax {
			amax = float32(math.NaN())
		} else if batchAmax > amax {
			amax = batchAmax
		}
	}
	return d, amax, nil
}

// geluTanh is GELU's tanh approximation in float32 arithmetic (tanh itself in float64, rounded).
func geluTanh(x float32) float32 {
	const c = 0.7978845608028654 // sqrt(2/pi)
	inner := float32(float32(c) * float32(x+float32(float32(0.044715)*float32(x*float32(x*x)))))
	t := float32(math.Tanh(float64(inner)))
	return float32(float32(0.5*x) * float32(1+t))
}

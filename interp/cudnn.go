package interp

import (
	"encoding/json"
	"math"

	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

// The convolution calls XLA's GPU compiler makes of a forward convolution (ConvRewriter) and of one
// with a bias, a side input and an activation fused after it (CudnnFusedConvRewriter). They carry the
// convolution's window, dim_labels and feature_group_count as the instruction did, return a tuple of
// the result and a workspace, and keep the epilogue in backend_config's cudnn_conv_backend_config.
const (
	CudnnConvForwardTarget               = "__cudnn$convForward"
	CudnnConvBiasActivationForwardTarget = "__cudnn$convBiasActivationForward"
	CudnnConvBackwardInputTarget         = "__cudnn$convBackwardInput"
	CudnnConvBackwardFilterTarget        = "__cudnn$convBackwardFilter"
)

// cudnnConvConfig is the part of a convolution call's backend_config that says what it computes.
type cudnnConvConfig struct {
	Conv *struct {
		ActivationMode  string   `json:"activation_mode"`
		ConvResultScale *float64 `json:"conv_result_scale"`
		SideInputScale  float64  `json:"side_input_scale"`
		LeakyReluAlpha  float64  `json:"leakyrelu_alpha"`
	} `json:"cudnn_conv_backend_config"`
}

// cudnnConv evaluates a forward convolution call: the convolution (as the instruction computes it, with a
// float32 result for a narrower one), then, in float32 (float64 for a float64 result), each step rounded
// on its own, times conv_result_scale, plus side_input_scale times the side input, plus the bias (one
// value per output feature), through the activation (kNone, kRelu, kRelu6, kElu, kLeakyRelu), rounded
// once to the result type. Without a configuration the scale is 1 and there is no activation, as the rewriter writes
// them. The workspace is zeros.
func (e *evaluator) cudnnConv(in *hlo.Instruction, ops []Value) (Value, error) {
	target := in.CustomCallTarget()
	out, ts, err := cudnnOperands(in, ops)
	if err != nil {
		return Value{}, err
	}
	want := 2
	if target == CudnnConvBiasActivationForwardTarget {
		want = 3
		if len(ts) == 4 {
			want = 4
		}
	}
	if len(ts) != want {
		return Value{}, errorf(in, "%s takes %d operands, has %d", target, want, len(ts))
	}
	scale, sideScale, alpha, act := 1.0, 0.0, 0.0, "kNone"
	if bc := in.BackendConfig(); bc != nil {
		var cfg cudnnConvConfig
		if err := json.Unmarshal([]byte(bc.Text), &cfg); err != nil {
			return Value{}, errorf(in, "%s: backend_config: %v", target, err)
		}
		if c := cfg.Conv; c != nil {
			if c.ConvResultScale != nil {
				scale = *c.ConvResultScale
			}
			sideScale, alpha = c.SideInputScale, c.LeakyReluAlpha
			if c.ActivationMode != "" {
				act = c.ActivationMode
			}
		}
	}
	var activate func(float64) float64
	switch act {
	case "kNone":
	case "kRelu":
		activate = func(x float64) float64 { return max(x, 0) }
	case "kRelu6":
		activate = func(x float64) float64 { return min(max(x, 0), 6) }
	case "kElu":
		activate = func(x float64) float64 {
			if x > 0 {
				return x
			}
			return math.Expm1(x)
		}
	case "kLeakyRelu":
		activate = func(x float64) float64 {
			if x > 0 {
				return x
			}
			return alpha * x
		}
	default:
		return Value{}, unsupportedf(in, "%s with activation_mode %q", target, act)
	}
	if target == CudnnConvForwardTarget && (act != "kNone" || sideScale != 0) {
		return Value{}, errorf(in, "%s with activation_mode %s or a side_input_scale: only the fused call has them", target, act)
	}
	// cuDNN keeps a narrower result's convolution in float32 through the epilogue and rounds once: an
	// H200's bf16 convolution with a bias and a ReLU matched that for all but 6 of 49152 elements, and
	// rounding the convolution to bf16 first for 85% of them.
	acc := out
	if out.Elem != dtype.F64 {
		acc = out.WithElem(dtype.F32)
	}
	c, err := e.convolve(in, acc, ts[:2])
	if err != nil {
		return Value{}, err
	}
	if target == CudnnConvForwardTarget && scale == 1 && acc.Elem == out.Elem {
		return withWorkspace(in, c), nil
	}
	dn := in.Attr("dim_labels").(*hlo.ConvDims) // convolve checked it
	feat := dn.OutputFeature
	var bias, side []float64
	if len(ts) > 2 {
		b := ts[2]
		if len(b.Shape) != 1 || b.Shape[0] != out.Dims[feat] {
			return Value{}, errorf(in, "%s: the bias %s is not one value per output feature (%d)", target, b, out.Dims[feat])
		}
		bias = b.Float64s()
	}
	if len(ts) > 3 {
		s := ts[3]
		if !equalDims(s.Shape, out.Dims) {
			return Value{}, errorf(in, "%s: the side input %s is not of the result's shape %v", target, s, out.Dims)
		}
		side = s.Float64s()
	}
	round := func(x float64) float64 { return float64(float32(x)) }
	if out.Elem == dtype.F64 {
		round = func(x float64) float64 { return x }
	}
	vals := c.Float64s()
	stride := rowMajorStrides(out.Dims)[feat] // to find each element's feature
	for i, v := range vals {
		y := round(v * scale)
		if side != nil && sideScale != 0 {
			y = round(y + round(side[i]*sideScale))
		}
		if bias != nil {
			y = round(y + bias[(int64(i)/stride)%out.Dims[feat]])
		}
		if activate != nil {
			y = round(activate(y))
		}
		vals[i] = y
	}
	return withWorkspace(in, fromF64(out.Elem, out.Dims, vals)), nil
}

// cudnnOperands checks a convolution call's result (an array of floats and a u8 workspace) and returns
// its shape and the operands' arrays.
func cudnnOperands(in *hlo.Instruction, ops []Value) (hlo.Shape, []*tensor.Tensor, error) {
	out, err := libraryResult(in, dtype.U8)
	if err != nil {
		return out, nil, err
	}
	if !out.Elem.IsFloat() {
		return out, nil, unsupportedf(in, "%s with a %s result", in.CustomCallTarget(), out.Elem)
	}
	ts, err := arrays(in, ops)
	return out, ts, err
}

// cudnnConvBackward evaluates the gradients of a forward convolution that XLA's GPU compiler makes into
// calls: __cudnn$convBackwardInput takes the gradient of the output dy and the kernel w and returns the
// gradient of the input; __cudnn$convBackwardFilter takes the input x and dy and returns the gradient of
// the kernel. Both carry the forward convolution's window, dim_labels and feature_group_count. Each is
// computed as the forward convolution XLA's ConvRewriter reads it from (the input gradient: dy dilated by
// the stride, against the kernel reversed with its features exchanged; the kernel gradient: x with batch
// and features exchanged, against dy dilated by the stride), so its sums follow the interpreter's
// convolution order (docs/numerics.md). A forward window with base dilation or reversal, and batch
// groups, are refused.
func (e *evaluator) cudnnConvBackward(in *hlo.Instruction, ops []Value) (Value, error) {
	target := in.CustomCallTarget()
	out, ts, err := cudnnOperands(in, ops)
	if err != nil {
		return Value{}, err
	}
	if len(ts) != 2 {
		return Value{}, errorf(in, "%s takes two arrays", target)
	}
	dn, _ := in.Attr("dim_labels").(*hlo.ConvDims)
	win, _ := in.Attr("window").(hlo.Window)
	if dn == nil {
		return Value{}, errorf(in, "%s without dim_labels", target)
	}
	ns := len(dn.InputSpatial)
	if len(win) != ns || len(dn.KernelSpatial) != ns || len(dn.OutputSpatial) != ns {
		return Value{}, errorf(in, "%s: window has %d dimensions for %d spatial dimensions", target, len(win), ns)
	}
	for _, w := range win {
		if max(w.BaseDilation, 1) != 1 || w.Reversal {
			return Value{}, unsupportedf(in, "%s with a base dilation or a reversed window", target)
		}
	}
	fgc, ok := in.Int("feature_group_count")
	if !ok {
		fgc = 1
	}
	if bgc, ok := in.Int("batch_group_count"); ok && bgc != 1 {
		return Value{}, unsupportedf(in, "%s with batch_group_count %d", target, bgc)
	}
	for i, t := range ts {
		if t.Type != out.Elem {
			if ts[i], err = convertTensor(t, out.Elem, t.Shape); err != nil {
				return Value{}, unsupportedf(in, "%s: %v", target, err)
			}
		}
		if len(t.Shape) != ns+2 {
			return Value{}, errorf(in, "%s: operand %s does not have rank %d", target, t, ns+2)
		}
	}
	a, b := ts[0], ts[1]
	if len(out.Dims) != ns+2 {
		return Value{}, errorf(in, "%s: the result %s does not have rank %d", target, out.String(), ns+2)
	}
	var g convGeom
	var lhs, rhs *tensor.Tensor
	if target == CudnnConvBackwardInputTarget {
		// a = dy (the forward output's dimensions), b = w (the kernel's), the result dx (the input's).
		dy, w, dx := a, b, out.Dims
		if fgc < 1 || w.Shape[dn.KernelOutput]%fgc != 0 {
			return Value{}, errorf(in, "%s: feature_group_count %d does not divide the kernel's %d output features", target, fgc, w.Shape[dn.KernelOutput])
		}
		og, cg := w.Shape[dn.KernelOutput]/fgc, w.Shape[dn.KernelInputFeature]
		// w2[c][og][k...] = w[(c / cg) * og + og'][reversed k][c % cg]: the kernel of the gradient.
		kdims := make([]int64, ns)
		for i := range kdims {
			kdims[i] = w.Shape[dn.KernelSpatial[i]]
		}
		w2dims := append([]int64{fgc * cg, og}, kdims...)
		w2 := tensor.New(w.Type, w2dims)
		ws := rowMajorStrides(w.Shape)
		idx := make([]int64, len(w2dims))
		bytes := int64(w.Type.ByteSize())
		for lin := int64(0); lin < product(w2dims); lin++ {
			c, o := idx[0], idx[1]
			src := ((c/cg)*og+o)*ws[dn.KernelOutput] + (c%cg)*ws[dn.KernelInputFeature]
			for i := 0; i < ns; i++ {
				src += (kdims[i] - 1 - idx[2+i]) * ws[dn.KernelSpatial[i]]
			}
			copy(w2.Data[lin*bytes:(lin+1)*bytes], w.Data[src*bytes:(src+1)*bytes])
			nextIndex(idx, w2dims)
		}
		spatial := make([]int64, ns)
		win2 := make(hlo.Window, ns)
		for i := range win2 {
			k, d, s := kdims[i], max(win[i].WindowDilation, 1), max(win[i].Stride, 1)
			y, x := dy.Shape[dn.OutputSpatial[i]], dx[dn.InputSpatial[i]]
			lo := (k-1)*d - win[i].PadLow
			win2[i] = hlo.WindowDim{Size: k, Stride: 1, PadLow: lo, PadHigh: x + (k-1)*d - hlo.DilatedBound(y, s) - lo, BaseDilation: s, WindowDilation: d}
			spatial[i] = int64(2 + i)
		}
		dn2 := &hlo.ConvDims{InputBatch: dn.OutputBatch, InputFeature: dn.OutputFeature, InputSpatial: dn.OutputSpatial,
			KernelOutput: 0, KernelInputFeature: 1, KernelSpatial: spatial,
			OutputBatch: dn.InputBatch, OutputFeature: dn.InputFeature, OutputSpatial: dn.InputSpatial}
		g = convGeom{dn: dn2, win: win2, fgc: fgc, bgc: 1, lhs: dy.Shape, rhs: w2.Shape, out: dx}
		lhs, rhs = dy, w2
	} else {
		// a = x (the input's dimensions), b = dy (the forward output's), the result dw (the kernel's). With
		// feature groups, output feature group g takes input features group g: the exchanged x's batch
		// groups (batch_group_count, as XLA writes this gradient).
		if fgc < 1 {
			return Value{}, errorf(in, "%s: feature_group_count %d", target, fgc)
		}
		x, dy, dw := a, b, out.Dims
		win2 := make(hlo.Window, ns)
		for i := range win2 {
			k, d, s := dw[dn.KernelSpatial[i]], max(win[i].WindowDilation, 1), max(win[i].Stride, 1)
			y, l := dy.Shape[dn.OutputSpatial[i]], x.Shape[dn.InputSpatial[i]]
			win2[i] = hlo.WindowDim{Size: y, Stride: d, PadLow: win[i].PadLow, PadHigh: (k-1)*d + hlo.DilatedBound(y, s) - l - win[i].PadLow, BaseDilation: 1, WindowDilation: s}
		}
		dn2 := &hlo.ConvDims{InputBatch: dn.InputFeature, InputFeature: dn.InputBatch, InputSpatial: dn.InputSpatial,
			KernelInputFeature: dn.OutputBatch, KernelOutput: dn.OutputFeature, KernelSpatial: dn.OutputSpatial,
			OutputBatch: dn.KernelInputFeature, OutputFeature: dn.KernelOutput, OutputSpatial: dn.KernelSpatial}
		g = convGeom{dn: dn2, win: win2, fgc: 1, bgc: fgc, lhs: x.Shape, rhs: dy.Shape, out: dw}
		lhs, rhs = x, dy
	}
	if err := g.check(); err != nil {
		return Value{}, errorf(in, "%s: the operands %s and %s do not fit the result %s: %v", target, a, b, out.String(), err)
	}
	r, err := e.runConv(&g, lhs, rhs, out.Elem)
	if err != nil {
		return Value{}, err
	}
	return withWorkspace(in, r), nil
}

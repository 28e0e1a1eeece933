package interp

import (
	"fmt"
	"go/token"
	"os"
	"strings"
	"testing"

	"octet/hlo/parser"
	"octet/stablehlo"
)

// TestCudnnConvForward: the forward convolution calls give the convolution instruction's bits, and the
// fused one its epilogue in the order an H200 computed it (measured on a 4 x 16 x 16 x 32 input with a
// bias and a side input: the GPU's bits for every element): times conv_result_scale, plus the scaled
// side input, plus the bias, through the activation, each step rounded to float32.
func TestCudnnConvForward(t *testing.T) {
	x := "f32[1,4,4,2] {{{{1, -2}, {0.5, 3}, {-1, 1}, {2, 0.25}}, {{0, 1}, {-3, 2}, {1.5, -0.5}, {1, 1}}, {{2, -1}, {0.75, 0.5}, {-2, 3}, {0, -1}}, {{1, 1}, {-1, -1}, {0.5, 0.5}, {3, -3}}}}"
	k := "f32[3,3,3,2] {{{{1, 0.5}, {-1, 2}, {0.25, -0.5}}, {{0, 1}, {1, -1}, {2, 0.5}}, {{-0.5, 0.5}, {1, 1}, {0, -2}}}, {{{1.5, 0}, {0.5, 0.5}, {-1, 1}}, {{1, 2}, {-2, 0.25}, {0.5, -1}}, {{0, 0}, {1, -0.5}, {2, 1}}}, {{{-1, -1}, {0.25, 0.75}, {1, 0}}, {{0.5, 1.5}, {-0.5, 0.5}, {1, 1}}, {{2, -1}, {0, 1}, {-1, 0.5}}}}"
	bias := "f32[3] {1e+08, -3, 1.25}" // 1e8: the order of its sum with the side input shows in the rounding
	side := "f32[1,4,4,3] {{{{1, 2, 3}, {-1, -2, -3}, {0.5, 0, -0.5}, {4, -4, 2}}, {{0, 0, 0}, {1, 1, 1}, {-2, 2, -2}, {0.25, 0.5, 0.75}}, {{3, -3, 3}, {1, 0, -1}, {2, 2, 2}, {-1, -1, -1}}, {{0.5, 1.5, -2.5}, {6, -6, 0}, {1, -1, 1}, {0, 0, 8}}}}"
	const conv = `window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01oi->b01f`
	const head = "  x = f32[1,4,4,2] parameter(0)\n  k = f32[3,3,3,2] parameter(1)\n  b = f32[3] parameter(2)\n  s = f32[1,4,4,3] parameter(3)\n"
	want := func(expr string) Value {
		t.Helper()
		v, err := evalText(t, "ENTRY e {\n"+head+"  c = f32[1,4,4,3] convolution(x, k), "+conv+"\n"+expr+"\n}", x, k, bias, side)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	call := func(target, operands, cfg string) (Value, error) {
		t.Helper()
		return evalText(t, "ENTRY e {\n"+head+"  r = (f32[1,4,4,3], u8[16]) custom-call("+operands+"), "+conv+`, custom_call_target="`+target+`", backend_config=`+cfg+
			"\n  ROOT o = f32[1,4,4,3] get-tuple-element(r), index=0\n}", x, k, bias, side)
	}
	cfg := func(act string, scale, sideScale, alpha float64) string {
		return fmt.Sprintf(`{"cudnn_conv_backend_config":{"activation_mode":"%s","conv_result_scale":%g,"leakyrelu_alpha":%g,"side_input_scale":%g},"operation_queue_id":"0"}`, act, scale, alpha, sideScale)
	}
	const epilogue = `  half = f32[] constant(0.5)
  hb = f32[1,4,4,3] broadcast(half), dimensions={}
  cs = f32[1,4,4,3] multiply(c, hb)
  two = f32[] constant(2)
  tb = f32[1,4,4,3] broadcast(two), dimensions={}
  ss = f32[1,4,4,3] multiply(s, tb)
  cp = f32[1,4,4,3] add(cs, ss)
  bb = f32[1,4,4,3] broadcast(b), dimensions={3}
  y = f32[1,4,4,3] add(cp, bb)
  zero = f32[] constant(0)
  zb = f32[1,4,4,3] broadcast(zero), dimensions={}
`
	for _, tc := range []struct{ name, target, operands, cfg, expr string }{
		{"plain", CudnnConvForwardTarget, "x, k", cfg("kNone", 1, 0, 0), "  ROOT o = f32[1,4,4,3] copy(c)"},
		{"no config", CudnnConvForwardTarget, "x, k", "{}", "  ROOT o = f32[1,4,4,3] copy(c)"},
		{"scaled", CudnnConvForwardTarget, "x, k", cfg("kNone", 0.5, 0, 0), "  h = f32[] constant(0.5)\n  hb = f32[1,4,4,3] broadcast(h), dimensions={}\n  ROOT o = f32[1,4,4,3] multiply(c, hb)"},
		{"relu", CudnnConvBiasActivationForwardTarget, "x, k, b, s", cfg("kRelu", 0.5, 2, 0), epilogue + "  ROOT o = f32[1,4,4,3] maximum(y, zb)"},
		{"relu6", CudnnConvBiasActivationForwardTarget, "x, k, b, s", cfg("kRelu6", 0.5, 2, 0), epilogue + "  six = f32[] constant(6)\n  sb = f32[1,4,4,3] broadcast(six), dimensions={}\n  m = f32[1,4,4,3] maximum(y, zb)\n  ROOT o = f32[1,4,4,3] minimum(m, sb)"},
		{"elu", CudnnConvBiasActivationForwardTarget, "x, k, b, s", cfg("kElu", 0.5, 2, 0), epilogue + "  e = f32[1,4,4,3] exponential-minus-one(y)\n  p = pred[1,4,4,3] compare(y, zb), direction=GT\n  ROOT o = f32[1,4,4,3] select(p, y, e)"},
		{"leaky", CudnnConvBiasActivationForwardTarget, "x, k, b, s", cfg("kLeakyRelu", 0.5, 2, 0.125), epilogue + "  a = f32[] constant(0.125)\n  ab = f32[1,4,4,3] broadcast(a), dimensions={}\n  l = f32[1,4,4,3] multiply(y, ab)\n  p = pred[1,4,4,3] compare(y, zb), direction=GT\n  ROOT o = f32[1,4,4,3] select(p, y, l)"},
		{"bias only", CudnnConvBiasActivationForwardTarget, "x, k, b", cfg("kNone", 1, 0, 0), "  bb = f32[1,4,4,3] broadcast(b), dimensions={3}\n  ROOT o = f32[1,4,4,3] add(c, bb)"},
	} {
		got, err := call(tc.target, tc.operands, tc.cfg)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if w := want(tc.expr); !got.Array.Equal(w.Array) {
			t.Errorf("%s: got %s, want %s", tc.name, describe(got), describe(w))
		}
	}
	for _, tc := range []struct{ target, operands, cfg, msg string }{
		{CudnnConvBiasActivationForwardTarget, "x, k, b", cfg("kSigmoid", 1, 0, 0), "activation_mode"},
		{CudnnConvForwardTarget, "x, k", cfg("kRelu", 1, 0, 0), "only the fused call"},
		{CudnnConvForwardTarget, "x, k, b", cfg("kNone", 1, 0, 0), "takes 2 operands"},
		{CudnnConvBiasActivationForwardTarget, "x, k, s", cfg("kNone", 1, 0, 0), "the bias"},
		{CudnnConvBiasActivationForwardTarget, "x, k, b, b", cfg("kNone", 1, 1, 0), "the side input"},
		{CudnnConvForwardTarget, "x, k", `"not json"`, "backend_config"},
	} {
		if _, err := call(tc.target, tc.operands, tc.cfg); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s(%s) %s: got %v, want an error naming %q", tc.target, tc.operands, tc.cfg, err, tc.msg)
		}
	}
}

// TestCudnnConvNarrow: with bf16 operands and result the fused call keeps the convolution in float32
// through its epilogue and rounds once, as an H200 computes it (the GPU's bits for all but 6 of 49152
// elements of a measured case; rounding the convolution to bf16 first matched 85% of them).
func TestCudnnConvNarrow(t *testing.T) {
	// 5 x 5 x 2 inputs and a 2 x 2 x 2 x 2 kernel with eight significant bits each, so that sums of
	// products carry bits below bf16's.
	lit := func(dims []int, f func(i int) float64) string {
		n := 1
		for _, d := range dims {
			n *= d
		}
		vals := make([]string, n)
		for i := range vals {
			vals[i] = fmt.Sprint(f(i))
		}
		var nest func(d, off, stride int) string
		nest = func(d, off, stride int) string {
			if d == len(dims) {
				return vals[off]
			}
			stride /= dims[d]
			parts := make([]string, dims[d])
			for i := range parts {
				parts[i] = nest(d+1, off+i*stride, stride)
			}
			return "{" + strings.Join(parts, ", ") + "}"
		}
		return nest(0, 0, n)
	}
	x := "bf16[1,5,5,2] " + lit([]int{1, 5, 5, 2}, func(i int) float64 { return float64((i*37)%97-48) / 16 })
	k := "bf16[2,2,2,2] " + lit([]int{2, 2, 2, 2}, func(i int) float64 { return float64((i*53)%89-44) / 32 })
	b := "bf16[2] {40.5, 36.25}"
	const conv = `window={size=2x2}, dim_labels=b01f_01io->b01f`
	const head = "  x = bf16[1,5,5,2] parameter(0)\n  k = bf16[2,2,2,2] parameter(1)\n  b = bf16[2] parameter(2)\n"
	want, err := evalText(t, "ENTRY e {\n"+head+"  c = f32[1,4,4,2] convolution(x, k), "+conv+`
  bf = f32[2] convert(b)
  bb = f32[1,4,4,2] broadcast(bf), dimensions={3}
  y = f32[1,4,4,2] add(c, bb)
  z = f32[] constant(0)
  zb = f32[1,4,4,2] broadcast(z), dimensions={}
  r = f32[1,4,4,2] maximum(y, zb)
  ROOT o = bf16[1,4,4,2] convert(r)
}`, x, k, b)
	if err != nil {
		t.Fatal(err)
	}
	got, err := evalText(t, "ENTRY e {\n"+head+"  r = (bf16[1,4,4,2], u8[0]) custom-call(x, k, b), "+conv+`, custom_call_target="__cudnn$convBiasActivationForward", backend_config={"cudnn_conv_backend_config":{"activation_mode":"kRelu","conv_result_scale":1,"side_input_scale":0}}
  ROOT o = bf16[1,4,4,2] get-tuple-element(r), index=0
}`, x, k, b)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Array.Equal(want.Array) {
		t.Errorf("got %s, want %s", describe(got), describe(want))
	}
	rounded, err := evalText(t, "ENTRY e {\n"+head+"  c = bf16[1,4,4,2] convolution(x, k), "+conv+`
  bb = bf16[1,4,4,2] broadcast(b), dimensions={3}
  y = bf16[1,4,4,2] add(c, bb)
  z = bf16[] constant(0)
  zb = bf16[1,4,4,2] broadcast(z), dimensions={}
  ROOT o = bf16[1,4,4,2] maximum(y, zb)
}`, x, k, b)
	if err != nil {
		t.Fatal(err)
	}
	if rounded.Array.Equal(want.Array) {
		t.Errorf("these inputs do not tell rounding once from rounding the convolution first: %s", describe(want))
	}
}

// TestCudnnConvMeasured runs modules an H200 compiled (JAX 0.11.2, testdata/measured) beside the
// StableHLO JAX lowered them from, on the same inputs: the gradients of a strided convolution, which XLA
// made into __cudnn$convForward, __cudnn$convBackwardInput and __cudnn$convBackwardFilter, those of a
// convolution of 4 feature groups (its kernel's gradient a __cudnn$convBackwardFilter of groups), and a
// convolution with a bias and a ReLU, made into __cudnn$convBiasActivationForward. The calls give the
// bits of the convolutions and element-wise instructions they were made from. (On the GPU the
// gradients agreed with these within 1.2e-6 of their largest element.)
func TestCudnnConvMeasured(t *testing.T) {
	for name, targets := range map[string][]string{
		"conv_strided_grad": {CudnnConvForwardTarget, CudnnConvBackwardInputTarget, CudnnConvBackwardFilterTarget},
		"conv_bias_relu":    {CudnnConvBiasActivationForwardTarget},
		"grouped_conv_grad": {CudnnConvForwardTarget, CudnnConvBackwardFilterTarget},
	} {
		src, err := os.ReadFile("testdata/measured/" + name + ".mlir")
		if err != nil {
			t.Fatal(err)
		}
		mods, err := stablehlo.ParseFile(token.NewFileSet(), name+".mlir", src)
		if err != nil {
			t.Fatal(err)
		}
		text, err := os.ReadFile("testdata/measured/" + name + ".h200.hlo")
		if err != nil {
			t.Fatal(err)
		}
		for _, target := range targets {
			if !strings.Contains(string(text), `custom_call_target="`+target+`"`) {
				t.Fatalf("%s.h200.hlo has no %s", name, target)
			}
		}
		cmods, err := parser.ParseFile(token.NewFileSet(), name+".h200.hlo", text)
		if err != nil {
			t.Fatal(err)
		}
		compiled := cmods[0]
		args, err := RandomInputs(mods[0], 3)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Run(mods[0], args, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Run(compiled, args, Options{})
		if err != nil {
			t.Fatalf("%s.h200.hlo: %v", name, err)
		}
		w, g := want.Flatten(), got.Flatten()
		if len(w) != len(g) {
			t.Fatalf("%s: %d results, want %d", name, len(g), len(w))
		}
		for i := range w {
			if !g[i].Equal(w[i]) {
				t.Errorf("%s: result %d of the compiled module differs from the StableHLO's", name, i)
			}
		}
	}
}

package interp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"octet/blockscale"
	"octet/dtype"
	"octet/tensor"
)

// blockCase is a block-scaled product: lhs [M, K] and rhs [N, K], each quantized along K.
type blockCase struct {
	lf, rf   blockscale.Format
	lhs, rhs *blockscale.Tensor
	m, n, k  int64
}

// blockInputs quantizes rows chosen to expose the differences between the forms: ordinary values, a block
// of zeros, a block whose abs-max is a power of two, values that saturate, values so small that their
// dequantized products underflow bf16 (2^-136 with the smallest scale, 2^-127), values whose dequantized
// products overflow f16 (2^17), and a NaN.
func blockInputs(t *testing.T, lf, rf blockscale.Format) blockCase {
	t.Helper()
	const k = 64
	rng := rand.New(rand.NewPCG(7, 11))
	row := func(f func(j int) float64) []float32 {
		r := make([]float32, k)
		for j := range r {
			r[j] = float32(f(j))
		}
		return r
	}
	normal := func(j int) float64 { return rng.NormFloat64() }
	lhsRows := [][]float32{
		row(normal),
		row(func(j int) float64 { // block 0 zeros; block 1 with abs-max 256 exactly
			if j < 32 {
				return 0
			}
			if j == 40 {
				return -256
			}
			return rng.NormFloat64() * 30
		}),
		row(func(j int) float64 { return 500 + 10*rng.NormFloat64() }), // saturates: scale 1, 500 -> 448
		row(func(j int) float64 { // 2^-136 under the scale 2^-127
			if j%5 == 0 {
				return math.Ldexp(1, -136)
			}
			return 0
		}),
		row(func(j int) float64 { return math.Ldexp(rng.NormFloat64(), -10) }),
		row(func(j int) float64 { // a NaN
			if j == 3 {
				return math.NaN()
			}
			return 1
		}),
	}
	rhsRows := [][]float32{
		row(normal),
		row(func(j int) float64 { return math.Ldexp(1+rng.Float64(), 17) }), // past f16's 65504
		row(func(j int) float64 { return float64(j%7) - 3 }),
	}
	q := func(f blockscale.Format, rows [][]float32) *blockscale.Tensor {
		var vals []float32
		for _, r := range rows {
			vals = append(vals, r...)
		}
		x := tensor.FromFloat32([]int64{int64(len(rows)), k}, vals)
		qt, err := blockscale.Quantize(f, x, -1, blockscale.Options{TensorScale: 1})
		if err != nil {
			t.Fatal(err)
		}
		return qt
	}
	return blockCase{lf: lf, rf: rf, lhs: q(lf, lhsRows), rhs: q(rf, rhsRows), m: int64(len(lhsRows)), n: int64(len(rhsRows)), k: k}
}

func shapeText(t dtype.Type, dims ...int64) string {
	s := make([]string, len(dims))
	for i, d := range dims {
		s[i] = fmt.Sprint(d)
	}
	return fmt.Sprintf("%s[%s]", t, strings.Join(s, ","))
}

// forms returns the modules of one product: the block-scaled forms and the dequantize-then-dot forms.
func (c blockCase) modules(out dtype.Type) map[string]string {
	lt, rt, ls, rs := c.lf.Elem, c.rf.Elem, c.lf.Scale, c.rf.Scale
	lb, rb := int64(c.lf.BlockSize), int64(c.rf.BlockSize)
	params := fmt.Sprintf(`  lhs = %s parameter(0)
  rhs = %s parameter(1)
  lhs_scale = %s parameter(2)
  rhs_scale = %s parameter(3)
`, shapeText(lt, c.m, c.k), shapeText(rt, c.n, c.k), shapeText(ls, c.m, c.k/lb), shapeText(rs, c.n, c.k/rb))
	d := shapeText(out, c.m, c.n)
	mods := map[string]string{
		"scaled-dot": "ENTRY e {\n" + params + "  ROOT d = " + d +
			" scaled-dot(lhs, rhs, lhs_scale, rhs_scale), lhs_contracting_dims={1}, rhs_contracting_dims={1}\n}\n",
		"__op$block_scaled_dot": "ENTRY e {\n" + params + "  ROOT d = " + d +
			` custom-call(lhs, rhs, lhs_scale, rhs_scale), custom_call_target="__op$block_scaled_dot"` + "\n}\n",
	}
	// cuDNN's call reads its scales padded and swizzled.
	pl, pc := blockscale.SwizzlePadded(c.m, c.k/lb)
	pr, _ := blockscale.SwizzlePadded(c.n, c.k/rb)
	mods["__cudnn$blockScaledDot"] = fmt.Sprintf(`ENTRY e {
  lhs = %s parameter(0)
  rhs = %s parameter(1)
  lhs_scale = %s parameter(2)
  rhs_scale = %s parameter(3)
  call = (%s, u8[0]) custom-call(lhs, rhs, lhs_scale, rhs_scale), custom_call_target="__cudnn$blockScaledDot"
  ROOT d = %s get-tuple-element(call), index=0
}
`, shapeText(lt, c.m, c.k), shapeText(rt, c.n, c.k), shapeText(ls, pl, pc), shapeText(rs, pr, pc), d, d)
	if c.lf.IsMX() {
		mods["__cublas$lt$matmul$mx"] = "ENTRY e {\n" + params + "  call = (" + d + `, s8[1024]) custom-call(lhs, rhs, lhs_scale, rhs_scale), custom_call_target="__cublas$lt$matmul$mx"` +
			"\n  ROOT d = " + d + " get-tuple-element(call), index=0\n}\n"
	}
	// The dequantize-then-dot form, as XLA's matcher and expansion write it, in T.
	for _, dq := range []dtype.Type{dtype.F32, dtype.BF16, dtype.F16} {
		side := func(name string, et, st dtype.Type, rows, b int64) string {
			return fmt.Sprintf(`  %[1]s_c = %[2]s convert(%[1]s)
  %[1]s_sc = %[3]s convert(%[1]s_scale)
  %[1]s_bc = %[4]s broadcast(%[1]s_sc), dimensions={0,1}
  %[1]s_rs = %[2]s reshape(%[1]s_bc)
  %[1]s_dq = %[2]s multiply(%[1]s_c, %[1]s_rs)
`, name, shapeText(dq, rows, c.k), shapeText(dq, rows, c.k/b), shapeText(dq, rows, c.k/b, b))
		}
		mods["dequantize-"+dq.String()] = "ENTRY e {\n" + params + side("lhs", lt, ls, c.m, lb) + side("rhs", rt, rs, c.n, rb) +
			"  ROOT d = " + d + " dot(lhs_dq, rhs_dq), lhs_contracting_dims={1}, rhs_contracting_dims={1}\n}\n"
		if dq == dtype.F32 {
			// The exact decoding summed in f32 and rounded once to the result: what the libraries compute.
			mods["exact"] = "ENTRY e {\n" + params + side("lhs", lt, ls, c.m, lb) + side("rhs", rt, rs, c.n, rb) +
				"  d32 = " + shapeText(dtype.F32, c.m, c.n) + " dot(lhs_dq, rhs_dq), lhs_contracting_dims={1}, rhs_contracting_dims={1}\n" +
				"  ROOT d = " + d + " convert(d32)\n}\n"
		}
	}
	return mods
}

// args returns the arguments of a module: cuDNN's call takes its scales swizzled.
func (c blockCase) args(name string) []Value {
	ls, rs := c.lhs.Scales, c.rhs.Scales
	if name == "__cudnn$blockScaledDot" {
		swz := func(s *tensor.Tensor) *tensor.Tensor {
			pr, pc := blockscale.SwizzlePadded(s.Shape[0], s.Shape[1])
			return &tensor.Tensor{Type: s.Type, Shape: []int64{pr, pc}, Data: blockscale.Swizzle(s.Data, 1, s.Shape[0], s.Shape[1])}
		}
		ls, rs = swz(ls), swz(rs)
	}
	return []Value{ArrayValue(c.lhs.Data), ArrayValue(c.rhs.Data), ArrayValue(ls), ArrayValue(rs)}
}

// reference computes the product from the codes with a scalar loop: every element times its scale
// exactly (2^(e-127) for E8M0 scales), the products summed in float64. It returns the sums and the sums
// of magnitudes (for the float32 summation bound).
func (c blockCase) reference() (sum, mag []float64) {
	value := func(f blockscale.Format, q *blockscale.Tensor, r, j int64) float64 {
		e := f.Elem.DecodeFloat64(uint64(q.Data.Data[r*c.k+j]))
		s := q.Scales.Data[r*(c.k/int64(f.BlockSize))+j/int64(f.BlockSize)]
		if f.Scale == dtype.F8E8M0FNU {
			if s == 0xff {
				return math.NaN()
			}
			return math.Ldexp(e, int(s)-127)
		}
		return e * f.Scale.DecodeFloat64(uint64(s))
	}
	sum, mag = make([]float64, c.m*c.n), make([]float64, c.m*c.n)
	for i := int64(0); i < c.m; i++ {
		for j := int64(0); j < c.n; j++ {
			for kk := int64(0); kk < c.k; kk++ {
				p := value(c.lf, c.lhs, i, kk) * value(c.rf, c.rhs, j, kk)
				sum[i*c.n+j] += p
				mag[i*c.n+j] += math.Abs(p)
			}
		}
	}
	return sum, mag
}

func (c blockCase) run(t *testing.T, name, src string) *tensor.Tensor {
	t.Helper()
	args := c.args(name)
	v, err := Run(parseModule(t, src), args, Options{MaxMemory: 1 << 30})
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, src)
	}
	return v.Array
}

// sameBits compares two results element by element (NaNs of any payload alike).
func sameBits(a, b *tensor.Tensor) (int, string) {
	diff, first := 0, ""
	for i := int64(0); i < a.NumElements(); i++ {
		x, y := a.Type.DecodeFloat64(a.BitsAt(i)), b.Type.DecodeFloat64(b.BitsAt(i))
		if a.BitsAt(i) != b.BitsAt(i) && !(x != x && y != y) {
			if diff == 0 {
				first = fmt.Sprintf("element %d: %v vs %v", i, x, y)
			}
			diff++
		}
	}
	return diff, first
}

// TestBlockScaledForms runs every block-scaled form on inputs built to expose where they differ, and
// checks each against the dequantize-then-dot form its definition equals and, with an f32 result,
// against a scalar reference (within the float32 summation's bound, K * 2^-24 of the sum of magnitudes).
func TestBlockScaledForms(t *testing.T) {
	pairs := [][2]blockscale.Format{
		{blockscale.MXFP8E4M3, blockscale.MXFP8E4M3},
		{blockscale.MXFP8E5M2, blockscale.MXFP8E4M3},
		{blockscale.NVFP4, blockscale.NVFP4},
		{blockscale.MXFP4, blockscale.MXFP4},
	}
	for _, pair := range pairs {
		c := blockInputs(t, pair[0], pair[1])
		ref, mag := c.reference()
		for _, out := range []dtype.Type{dtype.F32, dtype.BF16, dtype.F16} {
			mods := c.modules(out)
			deq := map[dtype.Type]*tensor.Tensor{}
			for _, dq := range []dtype.Type{dtype.F32, dtype.BF16, dtype.F16} {
				deq[dq] = c.run(t, "dequantize", mods["dequantize-"+dq.String()])
			}
			exact := c.run(t, "exact", mods["exact"])
			// What each form equals, bit for bit: XLA's dequantize in bf16 (scaled-dot) or in the result
			// type (__op$block_scaled_dot) before a dot of the result type; or the exact decoding summed in
			// f32 and rounded once (Invalid below: the libraries).
			equals := map[string]dtype.Type{
				"scaled-dot":             dtype.BF16,
				"__op$block_scaled_dot":  out,
				"__cudnn$blockScaledDot": dtype.Invalid,
				"__cublas$lt$matmul$mx":  dtype.Invalid,
			}
			deq[dtype.Invalid] = exact
			for form, dq := range equals {
				src, ok := mods[form]
				if !ok {
					continue
				}
				if form == "__cudnn$blockScaledDot" && pair[0] == blockscale.MXFP4 {
					continue // not a cuDNN format
				}
				name := fmt.Sprintf("%s x %s/%s/%s", pair[0], pair[1], out, form)
				t.Run(name, func(t *testing.T) {
					got := c.run(t, form, src)
					if n, first := sameBits(got, deq[dq]); n > 0 {
						what := "the dequantize-in-" + dq.String() + "-then-dot form"
						if dq == dtype.Invalid {
							what = "the exact decoding summed in f32"
						}
						t.Errorf("%d elements differ from %s (%s)", n, what, first)
					}
					if out != dtype.F32 {
						return
					}
					for i, want := range ref {
						g := got.Type.DecodeFloat64(got.BitsAt(int64(i)))
						if want != want {
							if g == g {
								t.Errorf("element %d: %v, want NaN", i, g)
							}
							continue
						}
						bound := float64(c.k) * math.Ldexp(mag[i], -24)
						if dq != dtype.F32 && dq != dtype.Invalid && math.Abs(g-want) > bound {
							// XLA's dequantize in bf16 flushes 2^-136: only row 3 (those values) may differ.
							if i/int(c.n) != 3 {
								t.Errorf("element %d: %v, reference %v", i, g, want)
							}
							continue
						}
						if math.Abs(g-want) > bound {
							t.Errorf("element %d: %v, reference %v (bound %g)", i, g, want, bound)
						}
					}
				})
			}
			// The documented differences, seen on these inputs.
			if pair[0].IsMX() && pair[0].Elem.BitWidth() == 8 {
				if out == dtype.F32 {
					// Row 3 (2^-136) times rhs row 1 (2^17): 2^-119 summed exactly, but 0 once dequantized in bf16.
					if v := exact.Type.DecodeFloat64(exact.BitsAt(3*c.n + 1)); v == 0 {
						t.Errorf("%s: the exact form lost row 3", pair[0])
					}
					if v := deq[dtype.BF16].Type.DecodeFloat64(deq[dtype.BF16].BitsAt(3*c.n + 1)); v != 0 {
						t.Errorf("%s: the bf16 dequantize kept 2^-136 (%v)", pair[0], v)
					}
				}
				if out == dtype.F16 {
					// Row 4 (~2^-10) times rhs row 1 (~2^17): finite when decoded exactly, infinite once
					// rhs row 1 is dequantized in f16 (past 65504).
					e, h := exact.Type.DecodeFloat64(exact.BitsAt(4*c.n+1)), deq[dtype.F16].Type.DecodeFloat64(deq[dtype.F16].BitsAt(4*c.n+1))
					if math.IsInf(e, 0) || e != e || !math.IsInf(h, 0) && h == h {
						t.Errorf("%s: exact %v, f16 dequantize %v; want finite and not", pair[0], e, h)
					}
				}
			}
		}
	}
}

// TestCudnnGlobalScaleAndPadding runs cuDNN's call in the form XLA's rewriter writes it for rank-3
// operands: scales padded to 128 x 4 and swizzled, a global scale (NVFP4's two tensor scales multiplied),
// and the tuple result with its empty scratch.
func TestCudnnGlobalScaleAndPadding(t *testing.T) {
	c := blockInputs(t, blockscale.NVFP4, blockscale.NVFP4)
	src := fmt.Sprintf(`ENTRY e {
  lhs = f4e2m1fn[1,%d,%d] parameter(0)
  rhs = f4e2m1fn[1,%d,%d] parameter(1)
  lhs_scale = f8e4m3fn[1,128,4] parameter(2)
  rhs_scale = f8e4m3fn[1,128,4] parameter(3)
  g = f32[] parameter(4)
  ROOT call = (f32[1,%d,%d], u8[0]) custom-call(lhs, rhs, lhs_scale, rhs_scale, g), custom_call_target="__cudnn$blockScaledDot"
}
`, c.m, c.k, c.n, c.k, c.m, c.n)
	args := c.args("__cudnn$blockScaledDot")
	for i := range args {
		a := *args[i].Array
		a.Shape = append([]int64{1}, a.Shape...)
		args[i] = ArrayValue(&a)
	}
	args = append(args, ArrayValue(tensor.FromFloat32(nil, []float32{0.25})))
	v, err := Run(parseModule(t, src), args, Options{MaxMemory: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	if v.Kind != KindTuple || len(v.Tuple) != 2 || v.Tuple[1].Array.NumElements() != 0 {
		t.Fatalf("result %s", v)
	}
	ref, mag := c.reference()
	got := v.Tuple[0].Array
	for i, want := range ref {
		g := float64(got.Float32s()[i])
		if want != want {
			continue
		}
		if bound := float64(c.k) * math.Ldexp(mag[i], -24) * 0.25; math.Abs(g-0.25*want) > bound {
			t.Errorf("element %d: %v, want %v", i, g, 0.25*want)
		}
	}
}

// TestBlockScaledRefusals: what the libraries reject, the interpreter refuses with the rule.
func TestBlockScaledRefusals(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"cuDNN e5m2 x e5m2", `ENTRY e {
  a = f8e5m2[128,64] parameter(0)
  b = f8e5m2[128,64] parameter(1)
  sa = f8e8m0fnu[128,4] parameter(2)
  sb = f8e8m0fnu[128,4] parameter(3)
  ROOT c = (f32[128,128], u8[0]) custom-call(a, b, sa, sb), custom_call_target="__cudnn$blockScaledDot"
}`, "f8e5m2 x f8e5m2"},
		{"cuDNN unpadded scales", `ENTRY e {
  a = f8e4m3fn[2,64] parameter(0)
  b = f8e4m3fn[2,64] parameter(1)
  sa = f8e8m0fnu[2,2] parameter(2)
  sb = f8e8m0fnu[2,2] parameter(3)
  ROOT c = (f32[2,2], u8[0]) custom-call(a, b, sa, sb), custom_call_target="__cudnn$blockScaledDot"
}`, "not padded"},
		{"cuDNN MXFP4", `ENTRY e {
  a = f4e2m1fn[128,64] parameter(0)
  b = f4e2m1fn[128,64] parameter(1)
  sa = f8e8m0fnu[128,4] parameter(2)
  sb = f8e8m0fnu[128,4] parameter(3)
  ROOT c = (f32[128,128], u8[0]) custom-call(a, b, sa, sb), custom_call_target="__cudnn$blockScaledDot"
}`, "cuDNN's block-scaled GEMM takes MXFP8"},
		{"scaled-dot scale not dividing", `ENTRY e {
  a = f8e4m3fn[2,64] parameter(0)
  b = f8e4m3fn[2,64] parameter(1)
  sa = f8e8m0fnu[2,3] parameter(2)
  sb = f8e8m0fnu[2,2] parameter(3)
  ROOT c = f32[2,2] scaled-dot(a, b, sa, sb), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}`, "does not divide"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := parseModule(t, c.src)
			args := make([]Value, len(m.Entry.Params))
			for i, p := range m.Entry.Params {
				args[i] = zeroValue(p.Shape)
			}
			_, err := Run(m, args, Options{MaxMemory: 1 << 30})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}

// TestScaledDotGeneralBlocks runs scaled-dot with scales blocked along a non-contracting dimension too
// (128 x 128 weight blocks, as DeepSeek-style FP8 weights are scaled) and with a scale of rank 0, which
// XLA's rewriter leaves unapplied.
func TestScaledDotGeneralBlocks(t *testing.T) {
	src := `ENTRY e {
  a = bf16[2,4] parameter(0)
  b = f8e4m3fn[4,6] parameter(1)
  sa = bf16[] parameter(2)
  sb = f32[2,3] parameter(3)
  ROOT d = f32[2,6] scaled-dot(a, b, sa, sb), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`
	v, err := evalText(t, src, "bf16[2,4] {{1, 2, 3, 4}, {0, 1, 0, -1}}", "f8e4m3fn[4,6] {{1,1,1,1,1,1},{1,1,1,1,1,1},{2,2,2,2,2,2},{1,0,1,0,1,0}}",
		"bf16[] 5", "f32[2,3] {{1, 10, 100}, {2, 20, 200}}")
	if err != nil {
		t.Fatal(err)
	}
	// b's scale blocks are 2 x 2: rows 0-1 scale 1, 10, 100 by column pairs; rows 2-3 by 2, 20, 200. The
	// bf16 x f32 operand and scale meet in f32. a is not scaled (its scale has rank 0).
	// Row 0: 1*1*s + 2*1*s + 3*2*t + 4*(1 or 0)*t, s = scale of rows 0-1, t = of rows 2-3.
	want := []float32{1 + 2 + 12 + 8, 1 + 2 + 12, 10 + 20 + 120 + 80, 10 + 20 + 120, 100 + 200 + 1200 + 800, 100 + 200 + 1200,
		1 - 2, 1, 10 - 20, 10, 100 - 200, 100}
	got := v.Array.Float32s()
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("d[%d] = %v, want %v", i, got[i], want[i])
		}
	}
}

// TestBlockScaledDotCallForms runs __op$block_scaled_dot's other forms as XLA's BlockScalingRewriter
// expands them: an explicit block size with padded scales (k = 224 in blocks of 32, 8 scales of which 7
// are used), the rhs not quantized (3 operands), and a global scale (5 operands) multiplied in the result
// type after the dot.
func TestBlockScaledDotCallForms(t *testing.T) {
	const padded = `ENTRY e {
  a = f8e4m3fn[2,224] parameter(0)
  b = f8e4m3fn[3,224] parameter(1)
  sa = f8e8m0fnu[2,8] parameter(2)
  sb = f8e8m0fnu[3,8] parameter(3)
  ROOT d = f32[2,3] custom-call(a, b, sa, sb), custom_call_target="__op$block_scaled_dot", backend_config={"block_scaled_dot_backend_config":{"block_size":32}}
}`
	const sliced = `ENTRY e {
  a = f8e4m3fn[2,224] parameter(0)
  b = f8e4m3fn[3,224] parameter(1)
  sa8 = f8e8m0fnu[2,8] parameter(2)
  sb8 = f8e8m0fnu[3,8] parameter(3)
  sa = f8e8m0fnu[2,7] slice(sa8), slice={[0:2], [0:7]}
  sb = f8e8m0fnu[3,7] slice(sb8), slice={[0:3], [0:7]}
  ac = f32[2,224] convert(a)
  sac = f32[2,7] convert(sa)
  sab = f32[2,7,32] broadcast(sac), dimensions={0,1}
  sar = f32[2,224] reshape(sab)
  adq = f32[2,224] multiply(ac, sar)
  bc = f32[3,224] convert(b)
  sbc = f32[3,7] convert(sb)
  sbb = f32[3,7,32] broadcast(sbc), dimensions={0,1}
  sbr = f32[3,224] reshape(sbb)
  bdq = f32[3,224] multiply(bc, sbr)
  ROOT d = f32[2,3] dot(adq, bdq), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}`
	const threeOps = `ENTRY e {
  a = f8e4m3fn[2,64] parameter(0)
  b = f16[3,64] parameter(1)
  sa = f8e8m0fnu[2,2] parameter(2)
  g = f16[] parameter(3)
  d = f16[2,3] custom-call(a, b, sa), custom_call_target="__op$block_scaled_dot"
  gb = f16[2,3] broadcast(g), dimensions={}
  ROOT r = f16[2,3] multiply(d, gb)
}`
	const withGlobal = `ENTRY e {
  a = f8e4m3fn[2,64] parameter(0)
  b = f16[3,64] parameter(1)
  sa = f8e8m0fnu[2,2] parameter(2)
  g = f16[] parameter(3)
  ones = f8e8m0fnu[3,2] constant({{1,1},{1,1},{1,1}})
  bq = f8e4m3fn[3,64] convert(b)
  ROOT d = f16[2,3] custom-call(a, bq, sa, ones, g), custom_call_target="__op$block_scaled_dot"
}`
	const expanded = `ENTRY e {
  a = f8e4m3fn[2,64] parameter(0)
  b = f16[3,64] parameter(1)
  sa = f8e8m0fnu[2,2] parameter(2)
  g = f16[] parameter(3)
  ac = f16[2,64] convert(a)
  sac = f16[2,2] convert(sa)
  sab = f16[2,2,32] broadcast(sac), dimensions={0,1}
  sar = f16[2,64] reshape(sab)
  adq = f16[2,64] multiply(ac, sar)
  d = f16[2,3] dot(adq, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  gb = f16[2,3] broadcast(g), dimensions={}
  ROOT r = f16[2,3] multiply(d, gb)
}`
	run := func(src string, args []Value) *tensor.Tensor {
		t.Helper()
		v, err := Run(parseModule(t, src), args, Options{MaxMemory: 1 << 30})
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		return v.Array
	}
	m := parseModule(t, padded)
	args, err := RandomInputs(m, 9)
	if err != nil {
		t.Fatal(err)
	}
	if n, first := sameBits(run(padded, args), run(sliced, args)); n > 0 {
		t.Errorf("explicit block size: %d elements differ from the sliced expansion (%s)", n, first)
	}
	args, err = RandomInputs(parseModule(t, threeOps), 4)
	if err != nil {
		t.Fatal(err)
	}
	want := run(expanded, args)
	if n, first := sameBits(run(threeOps, args), want); n > 0 {
		t.Errorf("three operands: %d elements differ (%s)", n, first)
	}
	// b is f16 random values; quantized to f8e4m3fn with unit scales it rounds, so compare the global-scale
	// form with the expansion of the same quantized b.
	bq := run(`ENTRY e {
  b = f16[3,64] parameter(0)
  bq = f8e4m3fn[3,64] convert(b)
  ROOT r = f16[3,64] convert(bq)
}`, []Value{args[1]})
	args2 := append([]Value(nil), args...)
	args2[1] = ArrayValue(bq)
	if n, first := sameBits(run(withGlobal, args), run(expanded, args2)); n > 0 {
		t.Errorf("global scale: %d elements differ (%s)", n, first)
	}
}

// TestCudnnFusionSwizzledScales runs a cuDNN fusion of a scaled-dot as XLA's block scaling rewriter leaves
// it on Blackwell (CudnnScaledDotHelper::AddScaleSwizzle: a call pads and swizzles each operand's scales,
// the fusion's body reads them as plain arrays): the body sees the scales unswizzled, and the result is the
// plain scaled-dot's.
func TestCudnnFusionSwizzledScales(t *testing.T) {
	const fused = `HloModule m
swizzle {
  input = f8e4m3fn[1,128,256] parameter(0)
  scale = f8e8m0fnu[1,128,8] parameter(1)
  rs = f8e8m0fnu[1,1,4,32,2,4] reshape(scale)
  tr = f8e8m0fnu[1,1,2,32,4,4] transpose(rs), dimensions={0,1,4,3,2,5}
  back = f8e8m0fnu[1,128,8] reshape(tr)
  ROOT t = (f8e4m3fn[1,128,256], f8e8m0fnu[1,128,8]) tuple(input, back)
}
swizzle.1 {
  input = f8e4m3fn[1,128,256] parameter(0)
  scale = f8e8m0fnu[1,128,8] parameter(1)
  rs = f8e8m0fnu[1,1,4,32,2,4] reshape(scale)
  tr = f8e8m0fnu[1,1,2,32,4,4] transpose(rs), dimensions={0,1,4,3,2,5}
  back = f8e8m0fnu[1,128,8] reshape(tr)
  ROOT t = (f8e4m3fn[1,128,256], f8e8m0fnu[1,128,8]) tuple(input, back)
}
body {
  a = f8e4m3fn[1,128,256] parameter(0)
  b = f8e4m3fn[1,128,256] parameter(1)
  sa = f8e8m0fnu[1,128,8] parameter(2)
  sb = f8e8m0fnu[1,128,8] parameter(3)
  ROOT d = f32[1,128,128] scaled-dot(a, b, sa, sb), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={2}
}
ENTRY main {
  a = f8e4m3fn[1,128,256] parameter(0)
  b = f8e4m3fn[1,128,256] parameter(1)
  sa = f8e8m0fnu[1,128,8] parameter(2)
  sb = f8e8m0fnu[1,128,8] parameter(3)
  ca = (f8e4m3fn[1,128,256], f8e8m0fnu[1,128,8]) call(a, sa), to_apply=swizzle
  cb = (f8e4m3fn[1,128,256], f8e8m0fnu[1,128,8]) call(b, sb), to_apply=swizzle.1
  a2 = f8e4m3fn[1,128,256] get-tuple-element(ca), index=0
  sa2 = f8e8m0fnu[1,128,8] get-tuple-element(ca), index=1
  b2 = f8e4m3fn[1,128,256] get-tuple-element(cb), index=0
  sb2 = f8e8m0fnu[1,128,8] get-tuple-element(cb), index=1
  ROOT f = f32[1,128,128] fusion(a2, b2, sa2, sb2), kind=kCustom, calls=body, backend_config={"fusion_backend_config":{"kind":"__cudnn$fusion"}}
}`
	const plain = `HloModule m
ENTRY main {
  a = f8e4m3fn[1,128,256] parameter(0)
  b = f8e4m3fn[1,128,256] parameter(1)
  sa = f8e8m0fnu[1,128,8] parameter(2)
  sb = f8e8m0fnu[1,128,8] parameter(3)
  ROOT d = f32[1,128,128] scaled-dot(a, b, sa, sb), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={2}
}`
	m := parseModule(t, fused)
	args, err := RandomInputs(m, 2)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Run(m, args, Options{MaxMemory: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Run(parseModule(t, plain), args, Options{MaxMemory: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	if n, first := sameBits(got.Array, want.Array); n > 0 {
		t.Errorf("%d elements differ from the plain scaled-dot (%s)", n, first)
	}
}

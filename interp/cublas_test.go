package interp

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

// The operands of the FP8 GEMM tests, chosen so that every intermediate value is exact:
//
//	A = [[1, 2, 0, -1], [0.5, 1, 1, 1]]       B = [[1, 0, 0, 0], [0, 1, 0, 0], [1, 1, 1, 1]] (column-major:
//	                                           D = A @ B^T contracts dimension 1 of both)
//	A @ B^T = [[1, 2, 2], [0.5, 1, 3.5]]
//	alpha = 2, a_scale = 0.5, b_scale = 2:  2 * (A @ B^T) = [[2, 4, 4], [1, 2, 7]]
//	beta = 1, C = [[-10, 0, 0], [0, 0, -1]]: [[-8, 4, 4], [1, 2, 6]]
//	bias = [1, -3, 0.5]:                      [[-7, 1, 4.5], [2, -1, 6.5]]
//	d_scale = 0.5
const (
	f8A     = "f8e4m3fn[2,4] {{1, 2, 0, -1}, {0.5, 1, 1, 1}}"
	f8B     = "f8e4m3fn[3,4] {{1, 0, 0, 0}, {0, 1, 0, 0}, {1, 1, 1, 1}}"
	f8C     = "[2,3] {{-10, 0, 0}, {0, 0, -1}}" // f32 C with an f32 D, bf16 with an FP8 D, as the type table wants
	f8Bias  = "bf16[3] {1, -3, 0.5}"
	f8Alpha = 2
)

// gelu64 is GELU's tanh approximation in float64.
func gelu64(x float64) float64 {
	return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
}

// fp8GemmModule writes a module with one __cublas$lt$matmul$f8 call in today's operand layout, with the
// C type cuBLASLt's FP8 type table goes with D.
func fp8GemmModule(epilogue string, withC, damax bool, dType string) string {
	var ops []string
	ops = append(ops, "a", "b")
	beta := 0
	if withC {
		ops = append(ops, "c")
		beta = 1
	}
	ops = append(ops, "as", "bs")
	if strings.HasPrefix(epilogue, "BIAS") {
		ops = append(ops, "bias")
	}
	ops = append(ops, "ds")
	result := "(" + dType + "[2,3], s8[1024])"
	if damax {
		result = "(" + dType + "[2,3], f32[], s8[1024])"
	}
	cfg := fmt.Sprintf(`{"alpha_real":%d,"alpha_imag":0,"beta":%d,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["1"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"precision_config":{"operand_precision":["DEFAULT","DEFAULT"]},"epilogue":"%s","damax_output":%v}`,
		f8Alpha, beta, epilogue, damax)
	return fmt.Sprintf(`ENTRY e {
  a = f8e4m3fn[2,4] parameter(0)
  b = f8e4m3fn[3,4] parameter(1)
  c = %s[2,3] parameter(2)
  as = f32[] parameter(3)
  bs = f32[] parameter(4)
  bias = bf16[3] parameter(5)
  ds = f32[] parameter(6)
  ROOT r = %s custom-call(%s), custom_call_target="__cublas$lt$matmul$f8", backend_config=%s
}`, fp8CType(dType), result, strings.Join(ops, ", "), cfg)
}

// fp8CType is the type of C that goes with a D of type d in cuBLASLt's FP8 type table.
func fp8CType(d string) string {
	if d == "f32" {
		return "f32"
	}
	return "bf16"
}

// fp8Args are the arguments of fp8GemmModule's module for a D of type d.
func fp8Args(d string) []string {
	return []string{f8A, f8B, fp8CType(d) + f8C, "f32[] 0.5", "f32[] 2", f8Bias, "f32[] 0.5"}
}

func TestCublasFP8Epilogues(t *testing.T) {
	type want struct {
		y    [6]float64 // before d_scale
		amax float64
	}
	relu := func(v [6]float64) [6]float64 {
		for i := range v {
			v[i] = math.Max(v[i], 0)
		}
		return v
	}
	gelu := func(v [6]float64) [6]float64 {
		for i := range v {
			v[i] = gelu64(v[i])
		}
		return v
	}
	amax := func(v [6]float64) float64 {
		m := 0.0
		for _, x := range v {
			m = math.Max(m, math.Abs(x))
		}
		return m
	}
	noC := [6]float64{2, 4, 4, 1, 2, 7}
	withC := [6]float64{-8, 4, 4, 1, 2, 6}
	noCBias := [6]float64{3, 1, 4.5, 2, -1, 7.5}
	withCBias := [6]float64{-7, 1, 4.5, 2, -1, 6.5}
	for _, c := range []struct {
		epilogue string
		withC    bool
		y        [6]float64
	}{
		{"DEFAULT", false, noC},
		{"DEFAULT", true, withC},
		{"RELU", true, relu(withC)},
		{"GELU", true, gelu(withC)},
		{"BIAS", false, noCBias},
		{"BIAS", true, withCBias},
		{"BIAS_RELU", true, relu(withCBias)},
		{"BIAS_GELU", true, gelu(withCBias)},
		{"BIAS_GELU", false, gelu(noCBias)},
	} {
		for _, damax := range []bool{false, true} {
			for _, dType := range []string{"f32", "f8e4m3fn"} {
				name := fmt.Sprintf("%s/C=%v/damax=%v/%s", c.epilogue, c.withC, damax, dType)
				t.Run(name, func(t *testing.T) {
					got, err := evalText(t, fp8GemmModule(c.epilogue, c.withC, damax, dType), fp8Args(dType)...)
					if err != nil {
						t.Fatal(err)
					}
					n := 2
					if damax {
						n = 3
					}
					if got.Kind != KindTuple || len(got.Tuple) != n {
						t.Fatalf("result %s, want a tuple of %d", got, n)
					}
					d := got.Tuple[0].Array
					dt, _ := dtype.Lookup(dType)
					for i, y := range c.y {
						// D = d_scale * y, rounded once to D's type.
						want := dt.DecodeFloat64(dt.EncodeFloat64(0.5 * y))
						gotV := d.Type.DecodeFloat64(d.BitsAt(int64(i)))
						tol := 0.0
						if strings.Contains(c.epilogue, "GELU") && dType == "f32" {
							tol = 1e-6 * math.Max(1, math.Abs(want)) // float32 tanh approximation
						}
						if math.Abs(gotV-want) > tol {
							t.Errorf("D[%d] = %g, want %g", i, gotV, want)
						}
					}
					if damax {
						a := got.Tuple[1].Array
						gotA := float64(a.Float32s()[0])
						wantA := amax(c.y)
						if math.Abs(gotA-wantA) > 1e-6*wantA {
							t.Errorf("amax = %g, want %g (taken before d_scale)", gotA, wantA)
						}
					}
					ws := got.Tuple[n-1].Array
					if ws.Type != dtype.S8 || len(ws.Data) != 1024 || strings.Trim(string(ws.Data), "\x00") != "" {
						t.Errorf("workspace %s is not 1024 zero bytes", ws)
					}
				})
			}
		}
	}
}

// TestCublasFP8Saturates checks the FP8 output conversion: cuBLASLt saturates finite values past the
// largest one (448 in f8e4m3fn, 57344 in f8e5m2) and keeps NaN, where a plain convert would give NaN or
// infinity.
func TestCublasFP8Saturates(t *testing.T) {
	src := func(b, d string) string {
		return `ENTRY e {
  a = f8e4m3fn[1,2] parameter(0)
  b = ` + b + `[3,2] parameter(1)
  s = f32[] parameter(2)
  ROOT r = (` + d + `[1,3], s8[16]) custom-call(a, b, s, s, s), custom_call_target="__cublas$lt$matmul$f8", backend_config={"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["1"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"epilogue":"DEFAULT","damax_output":false}
}`
	}
	// A @ B^T = [448*448, -448*448, 1]: far past both formats' range, then 1 * scales (all 1); the NaN
	// operand makes the third column NaN.
	// An f8e5m2 D needs an f8e5m2 operand: there B holds 57344, -57344 and NaN.
	a := "f8e4m3fn[1,2] bits:{0x7e, 0x00}"
	b4 := "f8e4m3fn[3,2] bits:{0x7e, 0x00, 0xfe, 0x00, 0x7f, 0x00}"
	b5 := "f8e5m2[3,2] bits:{0x7b, 0x00, 0xfb, 0x00, 0x7e, 0x00}"
	for _, c := range []struct{ b, d, want string }{
		{b4, "f8e4m3fn", "f8e4m3fn[1,3] bits:{0x7e, 0xfe, 0x7f}"},
		{b5, "f8e5m2", "f8e5m2[1,3] bits:{0x7b, 0xfb, 0x7e}"},
		{b4, "bf16", "bf16[1,3] bits:{0x4844, 0xc844, 0x7fc0}"}, // 200704 is exact in bf16,
	} {
		t.Run(c.d, func(t *testing.T) {
			got, err := evalText(t, src(c.b[:strings.Index(c.b, "[")], c.d), a, c.b, "f32[] 1")
			if err != nil {
				t.Fatal(err)
			}
			want := val(t, c.want)
			if !sameValue(got.Tuple[0], want) {
				t.Errorf("got %s, want %s", describe(got.Tuple[0]), describe(want))
			}
		})
	}
}

// TestCublasFP8Legacy runs the six-scalar operand layout of XLA up to 2024 (a, b, a_scale, b_scale,
// c_scale, d_scale) without a backend_config: both operands contract their last dimension.
func TestCublasFP8Legacy(t *testing.T) {
	got, err := evalText(t, `ENTRY e {
  a = f8e4m3fn[2,4] parameter(0)
  b = f8e4m3fn[3,4] parameter(1)
  as = f32[] parameter(2)
  bs = f32[] parameter(3)
  one = f32[] constant(1)
  ds = f32[] parameter(4)
  ROOT r = (f8e4m3fn[2,3], s8[33554432]) custom-call(a, b, as, bs, one, ds), custom_call_target="__cublas$lt$matmul$f8"
}`, f8A, f8B, "f32[] 0.5", "f32[] 2", "f32[] 4")
	if err != nil {
		t.Fatal(err)
	}
	// 4 * 0.5 * 2 * [[1, 2, 2], [0.5, 1, 3.5]]
	want := val(t, "f8e4m3fn[2,3] {{4, 8, 8}, {2, 4, 14}}")
	if !sameValue(got.Tuple[0], want) {
		t.Errorf("got %s, want %s", describe(got.Tuple[0]), describe(want))
	}
}

// TestCublasGemm runs the non-FP8 targets: __cublas$lt$matmul with a bias epilogue and __cublas$gemm with
// alpha and beta, with bf16 operands accumulated in float32 and rounded once.
func TestCublasGemm(t *testing.T) {
	runCases(t, []opCase{
		{"lt-bias-relu", `ENTRY e {
  a = bf16[2,2] parameter(0)
  b = bf16[2,2] parameter(1)
  bias = bf16[2] parameter(2)
  ROOT r = (bf16[2,2], s8[64]) custom-call(a, b, bias), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"epilogue":"BIAS_RELU"}}
}`, []string{"bf16[2,2] {{1, 2}, {3, 4}}", "bf16[2,2] {{1, 0}, {0, -1}}", "bf16[2] {0.5, 1}"},
			[]string{"bf16[2,2] {{1.5, 0}, {3.5, 0}}", "s8[64] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}"}},
		{"gemm-alpha-beta", `ENTRY e {
  a = f32[2,2] parameter(0)
  b = f32[2,2] parameter(1)
  c = f32[2,2] parameter(2)
  ROOT r = f32[2,2] custom-call(a, b, c), custom_call_target="__cublas$gemm", backend_config={"alpha_real":3,"alpha_imag":0,"beta":-1,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]}}
}`, []string{"f32[2,2] {{1, 2}, {3, 4}}", "f32[2,2] {{1, 0}, {0, 1}}", "f32[2,2] {{1, 1}, {1, 1}}"},
			[]string{"f32[2,2] {{2, 5}, {8, 11}}"}},
	})
}

// TestCublasFP8TypeTable checks that calls outside cuBLASLt's FP8 type table are refused, not run.
func TestCublasFP8TypeTable(t *testing.T) {
	src := func(a, b, d, bias string) string {
		ops, params, epi := "x, y, s, s", "", "DEFAULT"
		if bias != "" {
			ops, params, epi = "x, y, s, s, v", "\n  v = "+bias+"[3] parameter(3)", "BIAS"
		}
		return `ENTRY e {
  x = ` + a + `[2,4] parameter(0)
  y = ` + b + `[3,4] parameter(1)
  s = f32[] parameter(2)` + params + `
  ROOT r = (` + d + `[2,3], s8[16]) custom-call(` + ops + `), custom_call_target="__cublas$lt$matmul$f8", backend_config={"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["1"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"epilogue":"` + epi + `","damax_output":false}
}`
	}
	for _, c := range []struct{ a, b, d, bias, want string }{
		{"f8e5m2", "f8e5m2", "f32", "", "one of A and B must be f8e4m3fn"},
		{"f8e4m3fn", "f8e4m3fn", "f8e5m2", "", "an f8e5m2 D needs an f8e5m2 operand"},
		{"f8e4m3fn", "f8e4m3fn", "f32", "f32", "bias f32 is not in cuBLASLt's FP8 matmul type table"},
		{"f8e4m3fnuz", "f8e4m3fn", "f32", "", "A and B are f8e4m3fn or f8e5m2"},
	} {
		t.Run(c.a+"x"+c.b+"="+c.d+"+"+c.bias, func(t *testing.T) {
			args := []string{c.a + "[2,4] {{1, 2, 0, -1}, {0.5, 1, 1, 1}}", c.b + "[3,4] {{1, 0, 0, 0}, {0, 1, 0, 0}, {1, 1, 1, 1}}", "f32[] 1"}
			if c.bias != "" {
				args = append(args, c.bias+"[3] {1, 2, 3}")
			}
			_, err := evalText(t, src(c.a, c.b, c.d, c.bias), args...)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "type table") {
				t.Errorf("error %v, want one that says %q and names the type table", err, c.want)
			}
		})
	}
}

// TestWorkspacesShared checks that the library calls of one evaluation share one zero array for each
// size of workspace, rather than each allocating its own (XLA gives GEMM calls up to 32 MiB), and that
// the workspaces Run returns are copies, the caller's to change.
func TestWorkspacesShared(t *testing.T) {
	const calls, wsBytes = 16, 4 << 20
	var b strings.Builder
	cfg := fmt.Sprintf(`{"alpha_real":%d,"alpha_imag":0,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["1"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"precision_config":{"operand_precision":["DEFAULT","DEFAULT"]},"epilogue":"DEFAULT","damax_output":false}`, f8Alpha)
	b.WriteString("ENTRY e {\n  a = f8e4m3fn[2,4] parameter(0)\n  b = f8e4m3fn[3,4] parameter(1)\n  as = f32[] parameter(2)\n  bs = f32[] parameter(3)\n  ds = f32[] parameter(4)\n")
	for i := range calls {
		fmt.Fprintf(&b, "  r%d = (f32[2,3], s8[%d]) custom-call(a, b, as, bs, ds), custom_call_target=\"__cublas$lt$matmul$f8\", backend_config=%s\n", i, wsBytes, cfg)
		fmt.Fprintf(&b, "  w%d = s8[%d] get-tuple-element(r%d), index=1\n", i, wsBytes, i)
	}
	fmt.Fprintf(&b, "  ROOT t = (s8[%d], s8[%d]) tuple(w0, w%d)\n}\n", wsBytes, wsBytes, calls-1)
	m := parseModule(t, b.String())
	args := []Value{val(t, f8A), val(t, f8B), val(t, "f32[] 0.5"), val(t, "f32[] 2"), val(t, "f32[] 0.5")}

	// Inside the evaluation every call's workspace is the same memory.
	seen := map[*byte]int{}
	watch := map[*hlo.Instruction]bool{}
	for _, in := range m.Entry.Instructions {
		if in.Opcode == hlo.OpCustomCall {
			watch[in] = true
		}
	}
	opts := Options{MaxMemory: 1 << 30, Intercept: &Intercept{Instructions: watch, Func: func(_ *hlo.Instruction, v Value) (Value, error) {
		seen[unsafe.SliceData(v.Tuple[1].Array.Data)]++
		return v, nil
	}}}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err := Run(m, args, opts)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 {
		t.Errorf("%d calls had %d different workspaces, want one shared", calls, len(seen))
	}
	// One shared workspace and the two copies in the result, with room for everything else.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4*wsBytes {
		t.Errorf("%d calls with workspaces of %d bytes allocated %d bytes", calls, wsBytes, alloc)
	}
	w0, w1 := got.Tuple[0].Array, got.Tuple[1].Array
	if unsafe.SliceData(w0.Data) == unsafe.SliceData(w1.Data) || seen[unsafe.SliceData(w0.Data)] > 0 {
		t.Errorf("the workspaces Run returns share memory with each other or with the evaluation's")
	}
	for _, w := range []*tensor.Tensor{w0, w1} {
		if len(w.Data) != wsBytes || strings.Trim(string(w.Data), "\x00") != "" {
			t.Errorf("workspace %s is not %d zero bytes", w, wsBytes)
		}
	}
}

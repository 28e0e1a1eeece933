package stablehlo

import (
	"bytes"
	"fmt"
	"go/token"
	"math"
	"os"
	"strings"
	"testing"

	"octet/hlo"
	hloparser "octet/hlo/parser"
	"octet/hlo/printer"
	"octet/internal/shared"
	"octet/interp"
)

// convert parses and converts src, failing the test on an error or a module that does not verify.
func convert(t *testing.T, src string) *hlo.Module {
	t.Helper()
	mods, err := ParseFile(token.NewFileSet(), "test.mlir", []byte(src))
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	if len(mods) != 1 {
		t.Fatalf("%d modules, want 1", len(mods))
	}
	if err := hlo.Verify(mods[0]); err != nil {
		t.Fatalf("the converted module does not verify: %v\n%s", err, hloText(mods[0]))
	}
	return mods[0]
}

func hloText(m *hlo.Module) string {
	var b bytes.Buffer
	printer.Fprint(&b, m, printer.ConfigFor(printer.StyleXLAShort))
	return b.String()
}

// run evaluates a module without parameters.
func run(t *testing.T, m *hlo.Module) interp.Value {
	t.Helper()
	v, err := interp.Run(m, nil, interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestExamples: the StableHLO of the bf16 regression converts into the module of its HLO text: the same
// instructions, and bit-identical outputs on the same random inputs.
func TestExamples(t *testing.T) {
	src, err := os.ReadFile(shared.Path(t, "examples", "bf16_dequant.stablehlo.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	got := convert(t, string(src))
	hloSrc, err := os.ReadFile(shared.Path(t, "examples", "bf16_dequant.before.hlo"))
	if err != nil {
		t.Fatal(err)
	}
	mods, err := hloparser.ParseFile(token.NewFileSet(), "before.hlo", hloSrc)
	if err != nil {
		t.Fatal(err)
	}
	want := mods[0]
	if got.Name != want.Name {
		t.Errorf("module name %q, want %q", got.Name, want.Name)
	}
	count := func(m *hlo.Module) map[string]int {
		n := map[string]int{}
		for _, in := range m.Entry.Instructions {
			n[in.Opcode.String()+" "+in.Shape.String()]++
		}
		return n
	}
	g, w := count(got), count(want)
	for k, v := range w {
		if g[k] != v {
			t.Errorf("%d instructions %s, want %d", g[k], k, v)
		}
	}
	if len(got.Entry.Instructions) != len(want.Entry.Instructions) {
		t.Errorf("%d instructions, want %d", len(got.Entry.Instructions), len(want.Entry.Instructions))
	}
	for seed := uint64(1); seed <= 3; seed++ {
		args, err := interp.RandomInputs(want, seed)
		if err != nil {
			t.Fatal(err)
		}
		a, err := interp.Run(got, args, interp.Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := interp.Run(want, args, interp.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !a.Array.Equal(b.Array) {
			t.Errorf("seed %d: the outputs differ", seed)
		}
	}
}

// TestForms: each form of an op converts to the HLO instruction XLA's translation gives.
func TestForms(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string // lines the HLO text holds
	}{
		{"pretty and generic", `
  func.func @main(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
    %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %1 = "stablehlo.transpose"(%a) <{permutation = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %2 = "stablehlo.add"(%0, %1) : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
    return %2 : tensor<3x2xf32>
  }`, []string{"transpose.1 = f32[3,2]{1,0} transpose(Arg_0.1), dimensions={1,0}",
			"transpose.2 = f32[3,2]{1,0} transpose(Arg_0.1), dimensions={1,0}", "ROOT add.1 = f32[3,2]{1,0} add(transpose.1, transpose.2)"}},
		{"multiple results", `
  func.func @main(%a: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
    %0:2 = call @two(%a) : (tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>)
    %r, %s = func.call @two(%0#1) : (tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>)
    return %r, %0#0 : tensor<4xi32>, tensor<4xi32>
  }
  func.func private @two(%x: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
    %0 = stablehlo.negate %x : tensor<4xi32>
    return %x, %0 : tensor<4xi32>, tensor<4xi32>
  }`, []string{"call.1 = (s32[4]{0}, s32[4]{0}) call(Arg_0.1), to_apply=two.1", "get-tuple-element.2 = s32[4]{0} get-tuple-element(call.1), index=1",
			"ROOT tuple.2 = (s32[4]{0}, s32[4]{0}) tuple(get-tuple-element.3, get-tuple-element.1)"}},
		{"dense forms", `
  func.func @main() -> (tensor<2xf32>, tensor<2x2xi8>, tensor<3xbf16>, tensor<2xcomplex<f32>>, tensor<2xi1>, tensor<f32>) {
    %0 = stablehlo.constant dense<"0x0000803F00000040"> : tensor<2xf32>
    %1 = stablehlo.constant dense<[[1, -2], [3, 127]]> : tensor<2x2xi8>
    %2 = stablehlo.constant dense<1.5> : tensor<3xbf16>
    %3 = stablehlo.constant dense<[(1.0, 2.0), (0.0, -1.0)]> : tensor<2xcomplex<f32>>
    %4 = stablehlo.constant dense<[true, false]> : tensor<2xi1>
    %5 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    return %0, %1, %2, %3, %4, %5 : tensor<2xf32>, tensor<2x2xi8>, tensor<3xbf16>, tensor<2xcomplex<f32>>, tensor<2xi1>, tensor<f32>
  }`, []string{"constant({1, 2})", "constant({ { 1, -2 }, { 3, 127 } })", "constant.3 = bf16[] constant(1.5)",
			"broadcast.1 = bf16[3]{0} broadcast(constant.3), dimensions={}",
			"constant({(1, 2), (0, -1)})", "constant({1, 0})", "constant(nan)"}},
		{"reduce", `
  func.func @main(%a: tensor<2x3xf32>) -> tensor<3xf32> {
    %cst = stablehlo.constant dense<0.0> : tensor<f32>
    %0 = stablehlo.reduce(%a init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
    return %0 : tensor<3xf32>
  }`, []string{"ROOT reduce.1 = f32[3]{0} reduce(Arg_0.1, constant.1), dimensions={0}, to_apply=region_0.1", "ROOT add.1 = f32[] add(Arg_0.2, Arg_1.1)"}},
		{"while", `
  func.func @main(%n: tensor<i64>) -> tensor<i64> {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %0:2 = stablehlo.while(%i = %c, %m = %n) : tensor<i64>, tensor<i64>
     cond {
      %1 = stablehlo.compare  LT, %i, %m,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %c1 = stablehlo.constant dense<1> : tensor<i64>
      %1 = stablehlo.add %i, %c1 : tensor<i64>
      stablehlo.return %1, %m : tensor<i64>, tensor<i64>
    }
    return %0#0 : tensor<i64>
  }`, []string{"while.1 = (s64[], s64[]) while(tuple.1), condition=region_1.1, body=region_0.1",
			"ROOT compare.1 = pred[] compare(get-tuple-element.3, get-tuple-element.4), direction=LT", "ROOT tuple.2 = (s64[], s64[]) tuple(add.1, get-tuple-element.2)"}},
		{"convolution", `
  func.func @main(%x: tensor<2x3x9x10xf32>, %k: tensor<3x3x4x5xf32>) -> (tensor<2x3x3x2xf32>, tensor<2x3x3x2xf32>) {
    %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 3], pad = [[0, 0], [0, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x9x10xf32>, tensor<3x3x4x5xf32>) -> tensor<2x3x3x2xf32>
    %1 = "stablehlo.convolution"(%x, %k) <{dimension_numbers = #stablehlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, window_strides = array<i64: 2, 3>, batch_group_count = 1 : i64, feature_group_count = 1 : i64}> : (tensor<2x3x9x10xf32>, tensor<3x3x4x5xf32>) -> tensor<2x3x3x2xf32>
    return %0, %1 : tensor<2x3x3x2xf32>, tensor<2x3x3x2xf32>
  }`, []string{"convolution.1 = f32[2,3,3,2]{3,2,1,0} convolution(Arg_0.1, Arg_1.1), window={size=4x5 stride=2x3}, dim_labels=bf01_oi01->bf01",
			"convolution.2 = f32[2,3,3,2]{3,2,1,0} convolution(Arg_0.1, Arg_1.1), window={size=4x5 stride=2x3}, dim_labels=bf01_oi01->bf01"}},
		{"locations", `
  func.func @main(%a: tensor<f32>) -> tensor<f32> {
    %0 = stablehlo.sine %a : tensor<f32> loc(#loc2)
    %1 = stablehlo.cosine %0 : tensor<f32> loc(callsite(#loc3 at #loc4))
    return %1 : tensor<f32>
  }
}
#loc1 = loc("/home/me/model.py":12:7)
#loc2 = loc("jit(f)/jit(main)/sin"(#loc1))
#loc3 = loc("jit(f)/jit(main)/cos"("/home/me/layers.py":3:1))
#loc4 = loc("/home/me/model.py":40:2)
module @second {
  func.func @main() -> () {
    return
  }`, []string{`sine.1 = f32[] sine(Arg_0.1), metadata={op_name="jit(f)/jit(main)/sin" source_file="/home/me/model.py" source_line=12}`,
			`ROOT cosine.1 = f32[] cosine(sine.1), metadata={op_name="jit(f)/jit(main)/cos" source_file="/home/me/layers.py" source_line=3}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.frontend_attributes = {x = \"a\"}} {" + tc.body + "\n}\n"
			mods, err := ParseFile(token.NewFileSet(), "test.mlir", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			var text string
			for _, m := range mods {
				if err := hlo.Verify(m); err != nil {
					t.Fatalf("does not verify: %v\n%s", err, hloText(m))
				}
				var b bytes.Buffer
				cfg := printer.ConfigFor(printer.StyleXLAShort)
				cfg.PrintMetadata = true
				printer.Fprint(&b, m, cfg)
				text += b.String()
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("missing %q in\n%s", w, text)
				}
			}
		})
	}
}

// TestCaptures: values of enclosing regions used in a while or case region (implicit captures) travel in
// the loop state or the branch operand.
func TestCaptures(t *testing.T) {
	m := convert(t, `module {
  func.func @main() -> tensor<i64> {
    %ten = stablehlo.constant dense<10> : tensor<i64>
    %one = stablehlo.constant dense<1> : tensor<i64>
    %zero = stablehlo.constant dense<0> : tensor<i64>
    %0 = stablehlo.while(%i = %zero) : tensor<i64>
     cond {
      %1 = stablehlo.compare  LT, %i, %ten,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = stablehlo.add %i, %one : tensor<i64>
      stablehlo.return %1 : tensor<i64>
    }
    %idx = stablehlo.constant dense<1> : tensor<i32>
    %2 = "stablehlo.case"(%idx) ({
      stablehlo.return %one : tensor<i64>
    }, {
      %3 = stablehlo.multiply %0, %ten : tensor<i64>
      stablehlo.return %3 : tensor<i64>
    }) : (tensor<i32>) -> tensor<i64>
    check.expect_eq_const %2, dense<100> : tensor<i64>
    return %2 : tensor<i64>
  }
}`)
	if got := run(t, m).Array.Int64s(); got[0] != 100 {
		t.Errorf("got %v, want 100", got)
	}
}

// TestQuantized: quantized tensors are lowered to integer and float arithmetic, per tensor and per axis.
func TestQuantized(t *testing.T) {
	m := convert(t, `module {
  func.func @main() -> tensor<2xi8> {
    %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %b = stablehlo.constant dense<[3.0, 4.0]> : tensor<2xf32>
    %qa = stablehlo.uniform_quantize %a : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.1:-30>>
    %qb = stablehlo.uniform_quantize %b : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.5:-20>>
    %s = stablehlo.add %qa, %qb : (tensor<2x!quant.uniform<i8:f32, 0.1:-30>>, tensor<2x!quant.uniform<i8:f32, 0.5:-20>>) -> tensor<2x!quant.uniform<i8:f32, 0.5:-20>>
    %r = stablehlo.bitcast_convert %s : (tensor<2x!quant.uniform<i8:f32, 0.5:-20>>) -> tensor<2xi8>
    check.expect_eq_const %r, dense<[-12, -8]> : tensor<2xi8>
    %p = stablehlo.uniform_quantize %a : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8<-100:100>:f32:0, {0.1:-30, 0.01:90}>>
    %pr = stablehlo.bitcast_convert %p : (tensor<2x!quant.uniform<i8<-100:100>:f32:0, {0.1:-30, 0.01:90}>>) -> tensor<2xi8>
    check.expect_eq_const %pr, dense<[-20, 100]> : tensor<2xi8>
    %d = stablehlo.uniform_dequantize %p : (tensor<2x!quant.uniform<i8<-100:100>:f32:0, {0.1:-30, 0.01:90}>>) -> tensor<2xf32>
    check.expect_almost_eq_const %d, dense<[1.0, 0.1]> : tensor<2xf32>
    return %r : tensor<2xi8>
  }
}`)
	run(t, m)
}

// TestDynamicOps: the dynamic-shape ops with static results and constant shape operands become their
// static counterparts; a dynamic result is refused.
func TestDynamicOps(t *testing.T) {
	m := convert(t, `module {
  func.func @main() -> tensor<3xi64> {
    %x = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %pv = stablehlo.constant dense<0> : tensor<i64>
    %lo = stablehlo.constant dense<[1]> : tensor<1xi64>
    %hi = stablehlo.constant dense<[0]> : tensor<1xi64>
    %in = stablehlo.constant dense<[0]> : tensor<1xi64>
    %p = stablehlo.dynamic_pad %x, %pv, %lo, %hi, %in : (tensor<2xi64>, tensor<i64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
    check.expect_eq_const %p, dense<[0, 1, 2]> : tensor<3xi64>
    %n = stablehlo.get_dimension_size %p, dim = 0 : (tensor<3xi64>) -> tensor<i32>
    check.expect_eq_const %n, dense<3> : tensor<i32>
    %shape = stablehlo.constant dense<[3]> : tensor<1xi64>
    %i = stablehlo.dynamic_iota %shape, dim = 0 : (tensor<1xi64>) -> tensor<3xi64>
    check.expect_eq_const %i, dense<[0, 1, 2]> : tensor<3xi64>
    return %p : tensor<3xi64>
  }
}`)
	run(t, m)
	_, err := ParseFile(token.NewFileSet(), "test.mlir", []byte(`module {
  func.func @main(%s: tensor<1xi64>) -> tensor<?xi64> {
    %i = stablehlo.dynamic_iota %s, dim = 0 : (tensor<1xi64>) -> tensor<?xi64>
    return %i : tensor<?xi64>
  }
}`))
	if err == nil || !strings.Contains(err.Error(), "test.mlir:3:5: stablehlo.dynamic_iota: %i has the dynamic type tensor<?xi64>; Octet converts programs whose shapes are static: lower or export the function with concrete shapes") {
		t.Errorf("a dynamic result gave %v", err)
	}
	// A shape-polymorphic program: the error names the dynamic value and says how to get a static one.
	_, err = ParseFile(token.NewFileSet(), "test.mlir", []byte(`func.func @main(%x: tensor<?x4xf32>) -> tensor<i32> {
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  return %n : tensor<i32>
}`))
	if err == nil || !strings.Contains(err.Error(), "test.mlir:2:3: stablehlo.get_dimension_size: dimension 0 of %x (tensor<?x4xf32>) is dynamic; Octet converts programs whose shapes are static") {
		t.Errorf("a dynamic dimension gave %v", err)
	}
}

// TestRun: converted programs compute what StableHLO says they do.
func TestRun(t *testing.T) {
	m := convert(t, `module {
  func.func @main() -> tensor<4xf32> {
    %a = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
    %b = stablehlo.constant dense<[[0.5], [2.0]]> : tensor<2x1xf32>
    %0 = stablehlo.broadcast_in_dim %b, dims = [0, 1] : (tensor<2x1xf32>) -> tensor<2x2xf32>
    %1 = stablehlo.multiply %a, %0 : tensor<2x2xf32>
    %2 = stablehlo.reshape %1 : (tensor<2x2xf32>) -> tensor<4xf32>
    %3 = stablehlo.constant dense<[0.5, 1.0, 6.0, 8.0]> : tensor<4xf32>
    stablehlo.custom_call @check.expect_eq(%2, %3) {has_side_effect = true} : (tensor<4xf32>, tensor<4xf32>) -> ()
    check.expect_almost_eq_const %2, dense<[0.50001, 1.0, 6.0, 8.0]> : tensor<4xf32>
    return %2 : tensor<4xf32>
  }
}`)
	v := run(t, m)
	if got := v.Array.Float32s(); got[0] != 0.5 || got[3] != 8 {
		t.Errorf("got %v", got)
	}
	bad := convert(t, `module {
  func.func @main() -> tensor<2xf32> {
    %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %b = stablehlo.constant dense<[1.0, 2.5]> : tensor<2xf32>
    stablehlo.custom_call @check.expect_close(%a, %b) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
    return %a : tensor<2xf32>
  }
}`)
	_, err := interp.Run(bad, nil, interp.Options{})
	if err == nil || !strings.Contains(err.Error(), "test.mlir:5:5:") || !strings.Contains(err.Error(), "check.expect_close failed: 1 of 2 elements") {
		t.Errorf("a failed check gave %v", err)
	}
}

// resourceB is a resource section holding one f32, 1.0, as the blob b.
const resourceB = "{-#\n  dialect_resources: {\n    builtin: {\n      b: \"0x040000000000803F\"\n    }\n  }\n#-}\n"

// TestErrors: bad input gives one positioned error, never a panic.
func TestErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"module {\n  func.func @main() -> tensor<f32> {\n    %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<f32>\n",
			"test.mlir:3:29: dense<...> literal of shape [2] does not match tensor<f32>"},
		{"module {\n  func.func @main(%a: tensor<f32>) -> tensor<f32> {\n    %0 = stablehlo.add %a, %a : tensor<f33>\n", `test.mlir:3:40: unsupported element type "f33"`},
		{"module {\n  func.func @main(%a: tensor<f32>) -> tensor<f32> {\n    %0 = stablehlo.add %a, %a : tensor<f32>\n    %0 = stablehlo.add %a, %a : tensor<f32>\n",
			"test.mlir:4:5: %0 defined twice"},
		{"module {\n  func.func @main() -> () {\n    return\n  }\n", "test.mlir:4:5: missing '}' closing the module"},
		{"module {\n  func.func @main() -> () {\n    \"x.y\"() : () -> ()\n    return\n  }\n}", "test.mlir:3:5: x.y is not supported"},
		{"module {\n  func.func @main() -> () {\n    call @f() : () -> ()\n    return\n  }\n  func.func @f() -> () {\n    call @main() : () -> ()\n    return\n  }\n}",
			"test.mlir:2:3: function @main calls itself"},
		{strings.Repeat("[", 100000), "test.mlir:1:1: expected a module or a function"},
		{"module {\n  func.func @main() -> tensor<i1> {\n    %0 = stablehlo.constant dense<" + strings.Repeat("[", 1000) + "true" + strings.Repeat("]", 1000) + "> : tensor<i1>\n",
			"nesting deeper than 256 levels"},
		{"module {\n  func.func @main() -> tensor<99999999xf64> {\n    %0 = stablehlo.constant dense<1.0> : tensor<99999999xf64>\n",
			"test.mlir:3:29: dense<...> of 99999999 elements is larger than Octet holds in one constant (64 MiB)"},
		{"module {\n  func.func @main() -> tensor<4xf32> {\n    %0 = stablehlo.constant dense_resource<blob> : tensor<4xf32>\n    return %0 : tensor<4xf32>\n  }\n}\n",
			"test.mlir:3:44: dense_resource<blob> names no resource of the file"},
		// Dimensions whose product overflows int64 (2^64 elements, which wrapped around to 0).
		{"module {\n  func.func @main() -> tensor<4294967296x4294967296xf32> {\n    %0 = stablehlo.constant dense<1.0> : tensor<4294967296x4294967296xf32>\n",
			"test.mlir:3:29: dense<...> of type tensor<4294967296x4294967296xf32> has more elements than Octet holds in one constant (64 MiB)"},
		// Splats that fit alone but not together: 64 MiB each, and a little more for the file's bytes.
		{"module {\n  func.func @main() -> tensor<f32> {\n" + "    %0 = stablehlo.constant dense<1.0> : tensor<16777216xf32>\n    %1 = stablehlo.constant dense<1.0> : tensor<16777216xf32>\n",
			"test.mlir:4:29: dense<...> of 67108864 bytes: the constants of the file would take more than 67110224 bytes, 64 MiB and 8 for each byte of the file"},
		// A resource blob of one element stands for any number, as a splat does; and each use counts.
		{"func.func @main() -> tensor<f32> {\n  %0 = stablehlo.constant dense_resource<b> : tensor<4294967296x4294967296xf32>\n}\n" + resourceB,
			"test.mlir:2:42: dense_resource<b> of type tensor<4294967296x4294967296xf32> has more elements than Octet holds in one constant (64 MiB)"},
		{"func.func @main() -> tensor<f32> {\n  %0 = stablehlo.constant dense_resource<b> : tensor<1000000000xf32>\n}\n" + resourceB,
			"test.mlir:2:42: dense_resource<b> of 1000000000 elements is larger than Octet holds in one constant (64 MiB)"},
		{"func.func @main() -> tensor<16777216xf32> {\n" + "  %0 = stablehlo.constant dense_resource<b> : tensor<16777216xf32>\n  %1 = stablehlo.constant dense_resource<b> : tensor<16777216xf32>\n  return %0 : tensor<16777216xf32>\n}\n" + resourceB,
			"test.mlir:3:42: dense_resource<b> of 67108864 bytes: the constants of the file would take more than"},
	} {
		_, err := ParseFile(token.NewFileSet(), "test.mlir", []byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.60q: got %v, want an error with %q", tc.src, err, tc.want)
		}
	}
}

// TestAliasUses: aliases that name other aliases twice over stand for types and attribute values that
// double with each alias; their uses are refused once they stand for more than the input's size allows,
// where reading them (and converting what they stand for) took time and memory exponential in the input.
func TestAliasUses(t *testing.T) {
	var types, attrs strings.Builder
	types.WriteString("!t0 = tensor<f32>\n")
	attrs.WriteString("#a0 = {k = 1}\n")
	for i := 1; i <= 64; i++ {
		fmt.Fprintf(&types, "!t%d = tuple<!t%d, !t%d>\n", i, i-1, i-1)
		fmt.Fprintf(&attrs, "#a%d = {l = #a%d, r = #a%d}\n", i, i-1, i-1)
	}
	for name, tc := range map[string]struct{ src, want string }{
		"types": {types.String() + "func.func @main(%a: !t64) -> !t64 {\n  return %a : !t64\n}\n",
			"test.mlir:16:14: type !t14 stands for 32767 types: the uses of aliases would stand for more than"},
		"attributes": {attrs.String() + "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n" +
			"  %0 = stablehlo.negate %a {mhlo.frontend_attributes = {x = #a64}} : tensor<f32>\n  return %0 : tensor<f32>\n}\n",
			"test.mlir:14:23: attribute #a12 stands for 20477 attributes: the uses of aliases would stand for more than"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseFile(token.NewFileSet(), "test.mlir", []byte(tc.src))
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got %v, want an error starting %q", err, tc.want)
			}
		})
	}
	// Aliases used a few times read as written.
	src := "!p = tuple<tensor<f32>, tensor<f32>>\n#d = {k = \"v\"}\nfunc.func @main(%a: !p) -> !p {\n" +
		"  %0 = stablehlo.get_tuple_element %a[0] {mhlo.frontend_attributes = #d} : (!p) -> tensor<f32>\n  return %a : !p\n}\n"
	if _, err := ParseFile(token.NewFileSet(), "test.mlir", []byte(src)); err != nil {
		t.Errorf("aliases used a few times: %v", err)
	}
}

// TestResources: dense_resource reads its blob from the resource section at the end of the file.
func TestResources(t *testing.T) {
	m := convert(t, `module {
  func.func @main() -> tensor<2xi32> {
    %0 = stablehlo.constant dense_resource<blob1> : tensor<2xi32>
    return %0 : tensor<2xi32>
  }
}
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000500000006000000"
    }
  }
#-}
`)
	if got := run(t, m).Array.Int64s(); len(got) != 2 || got[0] != 5 || got[1] != 6 {
		t.Errorf("got %v, want [5 6]", got)
	}
}

// TestGenericModule: a program printed entirely in the generic form (stablehlo-opt
// --mlir-print-op-generic) converts and runs as its pretty form does.
func TestGenericModule(t *testing.T) {
	m := convert(t, `"builtin.module"() <{sym_name = "jit_main"}> ({
  "func.func"() <{function_type = () -> tensor<f32>, res_attrs = [{jax.result_info = "", mhlo.layout_mode = "default"}], sym_name = "main", sym_visibility = "public"}> ({
    %2 = "func.call"() <{callee = @inputs}> : () -> tensor<f32>
    %3 = "func.call"() <{callee = @expected}> : () -> tensor<f32>
    %4 = "stablehlo.reduce_precision"(%2) <{exponent_bits = 11 : i32, mantissa_bits = 52 : i32}> : (tensor<f32>) -> tensor<f32>
    "stablehlo.custom_call"(%4, %3) <{call_target_name = "check.expect_close", has_side_effect = true}> : (tensor<f32>, tensor<f32>) -> ()
    "func.return"(%4) : (tensor<f32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = () -> tensor<f32>, res_attrs = [{mhlo.layout_mode = "default"}], sym_name = "inputs", sym_visibility = "private"}> ({
    %1 = "stablehlo.constant"() <{value = dense<-0.81502068> : tensor<f32>}> : () -> tensor<f32>
    "func.return"(%1) : (tensor<f32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = () -> tensor<f32>, res_attrs = [{mhlo.layout_mode = "default"}], sym_name = "expected", sym_visibility = "private"}> ({
    %0 = "stablehlo.constant"() <{value = dense<-0.81502068> : tensor<f32>}> : () -> tensor<f32>
    "func.return"(%0) : (tensor<f32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
`)
	if m.Name != "jit_main" {
		t.Errorf("module name %q, want jit_main", m.Name)
	}
	if got := run(t, m).Array.Float32s(); got[0] != -0.81502068 {
		t.Errorf("got %v", got)
	}
}

func TestLooks(t *testing.T) {
	for src, want := range map[string]bool{
		"module @jit_f attributes {} {":                     true,
		"// comment\nfunc.func @main() {":                   true,
		"sdy.mesh @mesh = <[\"x\"=2]>\nfunc.func @main() {": true, // an implicit module starting with its mesh
		"HloModule m\n":                                     false,
		"ENTRY main {\n p = f32[] parameter(0)":             false,
		"":                                                  false,
	} {
		if Looks([]byte(src)) != want {
			t.Errorf("Looks(%q) = %v", src, !want)
		}
	}
}

// TestCHLODecompositions: next_after, erfc, lgamma, digamma, erf_inv, zeta, polygamma and bessel_i1e,
// decomposed into HLO, on known values and their edge cases.
func TestCHLODecompositions(t *testing.T) {
	m := convert(t, `module {
  func.func @main() -> tensor<6xf32> {
    %x = stablehlo.constant dense<[0.0, 0.0, 1.0, 1.0, -1.0, 0x7FC00000]> : tensor<6xf32>
    %y = stablehlo.constant dense<[-1.0, 0.0, 2.0, 0.0, -2.0, 1.0]> : tensor<6xf32>
    %0 = chlo.next_after %x, %y : tensor<6xf32>, tensor<6xf32> -> tensor<6xf32>
    %want = stablehlo.constant dense<[0x80000001, 0x00000000, 0x3F800001, 0x3F7FFFFF, 0xBF800001, 0x7FC00000]> : tensor<6xf32>
    check.expect_eq %0, %want : tensor<6xf32>
    %e = chlo.erfc %x : tensor<6xf32> -> tensor<6xf32>
    check.expect_almost_eq_const %e, dense<[1.0, 1.0, 0.15729921, 0.15729921, 1.8427008, 0x7FC00000]> : tensor<6xf32>
    return %0 : tensor<6xf32>
  }
}`)
	run(t, m)
	m = convert(t, `module {
  func.func @main() -> tensor<5xf64> {
    %x = stablehlo.constant dense<[0.5, -0.5, 10.0, 0.0, -2.0]> : tensor<5xf64>
    %0 = chlo.lgamma %x : tensor<5xf64> -> tensor<5xf64>
    check.expect_almost_eq_const %0, dense<[0.5723649429247001, 1.2655121234846454, 12.801827480081469, 0x7FF0000000000000, 0x7FF0000000000000]> : tensor<5xf64> {tolerance = 1.0e-12 : f64}
    %y = stablehlo.constant dense<[1.0, 0.25, -0.5, 0.0, -3.0]> : tensor<5xf64>
    %1 = chlo.digamma %y : tensor<5xf64> -> tensor<5xf64>
    check.expect_almost_eq_const %1, dense<[-0.5772156649015329, -4.2274535333762655, 0.03648997397857652, 0xFFF0000000000000, 0x7FF8000000000000]> : tensor<5xf64> {tolerance = 1.0e-12 : f64}
    %z = stablehlo.constant dense<[0.5, -0.999, 0.0, 1.0, 1.5]> : tensor<5xf64>
    %2 = chlo.erf_inv %z : tensor<5xf64> -> tensor<5xf64>
    check.expect_almost_eq_const %2, dense<[0.4769362762044699, -2.326753765513525, 0.0, 0x7FF0000000000000, 0x7FF8000000000000]> : tensor<5xf64> {tolerance = 1.0e-12 : f64}
    return %0 : tensor<5xf64>
  }
}`)
	run(t, m)
	// zeta and polygamma on values known in closed form (zeta(2) = pi^2/6, zeta(3) Apery's constant,
	// zeta(4) = pi^4/90, zeta(2, 1/2) = pi^2/2, trigamma(100) from its asymptotic series, digamma(1) = -gamma,
	// polygamma(2, 1) = -2 zeta(3), polygamma(3, 1/2) = pi^4, polygamma(4, 1) = -24 zeta(5)) and at the
	// edges of their domains.
	m = convert(t, `module {
  func.func @main() -> tensor<9xf64> {
    %x = stablehlo.constant dense<[2.0, 3.0, 4.0, 2.0, 2.0, 1.0, 0.5, 2.0, 3.0]> : tensor<9xf64>
    %q = stablehlo.constant dense<[1.0, 1.0, 1.0, 0.5, 100.0, 1.0, 1.0, -1.0, -2.0]> : tensor<9xf64>
    %0 = chlo.zeta %x, %q : tensor<9xf64>, tensor<9xf64> -> tensor<9xf64>
    check.expect_almost_eq_const %0, dense<[1.6449340668482264, 1.2020569031595942, 1.0823232337111382, 4.934802200544679, 0.010050166663333571, 0x7FF0000000000000, 0x7FF8000000000000, 0x7FF0000000000000, 0x7FF8000000000000]> : tensor<9xf64> {tolerance = 1.0e-12 : f64}
    %n = stablehlo.constant dense<[0.0, 1.0, 2.0, 3.0, 1.5, -1.0, 1.0, 0.0, 4.0]> : tensor<9xf64>
    %y = stablehlo.constant dense<[1.0, 1.0, 1.0, 0.5, 1.0, 1.0, 0.5, 0.25, 1.0]> : tensor<9xf64>
    %1 = chlo.polygamma %n, %y : tensor<9xf64>, tensor<9xf64> -> tensor<9xf64>
    check.expect_almost_eq_const %1, dense<[-0.5772156649015329, 1.6449340668482264, -2.4041138063191885, 97.40909103400244, 0x7FF8000000000000, 0x7FF8000000000000, 4.934802200544679, -4.2274535333762655, -24.88626612344088]> : tensor<9xf64> {tolerance = 1.0e-10 : f64}
    %z = stablehlo.constant dense<[2.0, 2.5]> : tensor<2xf32>
    %w = stablehlo.constant dense<[1.0, -0.5]> : tensor<2xf32>
    %2 = chlo.zeta %z, %w : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
    check.expect_almost_eq_const %2, dense<[1.6449341, 0x7FC00000]> : tensor<2xf32>
    return %0 : tensor<9xf64>
  }
}`)
	run(t, m)
	// bessel_i1e: known values, and the series and the asymptotic expansion agreeing where they meet.
	m = convert(t, `module {
  func.func @main() -> tensor<5xf64> {
    %x = stablehlo.constant dense<[1.0, -1.0, 0.0, 20.0, 20.000000001]> : tensor<5xf64>
    %0 = chlo.bessel_i1e %x : tensor<5xf64> -> tensor<5xf64>
    return %0 : tensor<5xf64>
  }
}`)
	got := run(t, m).Array.Float64s()
	if math.Abs(got[0]-0.20791041534970844) > 1e-14 || got[1] != -got[0] || got[2] != 0 || math.Abs(got[3]-got[4]) > 1e-9 {
		t.Errorf("bessel_i1e(1, -1, 0, 20, 20+) = %v", got)
	}
}

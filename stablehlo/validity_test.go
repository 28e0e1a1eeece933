package stablehlo

import (
	"go/token"
	"strings"
	"testing"

	"octet/hlo"
)

// wantError reads and converts src and requires the one positioned error want (file test.mlir).
func wantError(t *testing.T, src, want string) {
	t.Helper()
	_, err := ParseFile(token.NewFileSet(), "test.mlir", []byte(src))
	if err == nil {
		t.Errorf("no error, want %s\n%s", want, src)
		return
	}
	if err.Error() != want {
		t.Errorf("got  %v\nwant %s\n%s", err, want, src)
	}
}

// constProgram is a function returning the constant dense<lit> : typ; its literal starts at line 2,
// column constCol.
func constProgram(lit, typ string) string {
	return "func.func @main() -> " + typ + " {\n  %0 = stablehlo.constant dense<" + lit + "> : " + typ + "\n  return %0 : " + typ + "\n}\n"
}

const constCol = len("  %0 = stablehlo.constant dense<") + 1

// constBits converts constProgram(lit, typ) and returns the bits of the elements its constant reads.
func constBits(t *testing.T, lit, typ string) []uint64 {
	t.Helper()
	src := constProgram(lit, typ)
	convert(t, src)
	f, err := Parse(token.NewFileSet(), "test.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	d, ok := f.Modules[0].Funcs[0].Body.Blocks[0].Ops[0].Attr("value").(*DenseAttr)
	if !ok || d.Literal == nil || d.Literal.Array == nil {
		t.Fatalf("dense<%s> : %s: no array constant", lit, typ)
	}
	a := d.Literal.Array
	out := make([]uint64, a.NumElements())
	for i := range out {
		out[i] = a.BitsAt(int64(i))
	}
	return out
}

// TestDenseIntegerRange: an integer element of dense<...> out of its type's range is an error at the
// element, as in MLIR (a signless iN takes -2^(N-1) to 2^N-1, a signed siN or index -2^(N-1) to
// 2^(N-1)-1, an unsigned uiN 0 to 2^N-1), never a value wrapped into range; the values at the ends of each
// range are read exactly.
func TestDenseIntegerRange(t *testing.T) {
	for _, tc := range []struct {
		lit, typ string
		bad      string // the element refused, "" when the literal is valid
		msg      string
		want     []uint64
	}{
		{"[300, -129]", "tensor<2xi8>", "300", "integer constant 300 out of range for i8", nil},
		{"[-129, 5]", "tensor<2xi8>", "-129", "integer constant -129 out of range for i8", nil},
		{"[-128, 127, 255]", "tensor<3xi8>", "", "", []uint64{0x80, 0x7f, 0xff}},
		{"[256]", "tensor<1xi8>", "256", "integer constant 256 out of range for i8", nil},
		{"[128]", "tensor<1xsi8>", "128", "integer constant 128 out of range for si8", nil},
		{"[-128, 127]", "tensor<2xsi8>", "", "", []uint64{0x80, 0x7f}},
		{"[-1, 256]", "tensor<2xui8>", "-1", "negative value -1 in a tensor of ui8, whose elements are unsigned", nil},
		{"[0, 256]", "tensor<2xui8>", "256", "integer constant 256 out of range for ui8", nil},
		{"[0, 255]", "tensor<2xui8>", "", "", []uint64{0, 0xff}},
		{"[2, -1]", "tensor<2xi1>", "2", "integer constant 2 out of range for i1", nil},
		{"[-2]", "tensor<1xi1>", "-2", "integer constant -2 out of range for i1", nil},
		{"[0, 1, -1, true]", "tensor<4xi1>", "", "", []uint64{0, 1, 1, 1}},
		{"[16]", "tensor<1xi4>", "16", "integer constant 16 out of range for i4", nil},
		{"[-9]", "tensor<1xi4>", "-9", "integer constant -9 out of range for i4", nil},
		{"[-8, 7, 15]", "tensor<3xi4>", "", "", []uint64{0x8, 0x7, 0xf}},
		{"[16]", "tensor<1xui4>", "16", "integer constant 16 out of range for ui4", nil},
		{"[-1]", "tensor<1xui4>", "-1", "negative value -1 in a tensor of ui4, whose elements are unsigned", nil},
		{"[0, 15]", "tensor<2xui4>", "", "", []uint64{0, 0xf}},
		{"[65536]", "tensor<1xi16>", "65536", "integer constant 65536 out of range for i16", nil},
		{"[-32768, 65535]", "tensor<2xi16>", "", "", []uint64{0x8000, 0xffff}},
		{"[4294967296]", "tensor<1xi32>", "4294967296", "integer constant 4294967296 out of range for i32", nil},
		{"[-2147483649]", "tensor<1xi32>", "-2147483649", "integer constant -2147483649 out of range for i32", nil},
		{"[-2147483648, 4294967295]", "tensor<2xi32>", "", "", []uint64{0x80000000, 0xffffffff}},
		{"[4294967296]", "tensor<1xui32>", "4294967296", "integer constant 4294967296 out of range for ui32", nil},
		{"99999999999999999999999999", "tensor<1xi32>", "99999999999999999999999999", "integer constant 99999999999999999999999999 out of range for i32", nil},
		{"[18446744073709551615, 18446744073709551616]", "tensor<2xi64>", "18446744073709551616", "integer constant 18446744073709551616 out of range for i64", nil},
		{"[-9223372036854775809]", "tensor<1xi64>", "-9223372036854775809", "integer constant -9223372036854775809 out of range for i64", nil},
		// A signless i64 takes the bit pattern of 2^63 as MLIR does; a signed si64 or an index does not.
		{"[-9223372036854775808, 9223372036854775808, 18446744073709551615]", "tensor<3xi64>", "", "", []uint64{1 << 63, 1 << 63, 1<<64 - 1}},
		{"[9223372036854775808]", "tensor<1xsi64>", "9223372036854775808", "integer constant 9223372036854775808 out of range for si64", nil},
		{"[9223372036854775808]", "tensor<1xindex>", "9223372036854775808", "integer constant 9223372036854775808 out of range for index", nil},
		{"[-9223372036854775808, 9223372036854775807]", "tensor<2xindex>", "", "", []uint64{1 << 63, 1<<63 - 1}},
		{"[18446744073709551616]", "tensor<1xui64>", "18446744073709551616", "integer constant 18446744073709551616 out of range for ui64", nil},
		{"[0, 18446744073709551615]", "tensor<2xui64>", "", "", []uint64{0, 1<<64 - 1}},
		{"[-0]", "tensor<1xui64>", "-0", "negative value -0 in a tensor of ui64, whose elements are unsigned", nil},
		// Hexadecimal elements are numbers like the others; a hex blob is raw bytes.
		{"[0x100]", "tensor<1xi8>", "0x100", "integer constant 0x100 out of range for i8", nil},
		{"[-0x81]", "tensor<1xi8>", "-0x81", "integer constant -0x81 out of range for i8", nil},
		{"[0xFF, -0x80, 0x7f]", "tensor<3xi8>", "", "", []uint64{0xff, 0x80, 0x7f}},
		{`"0xFF80"`, "tensor<2xi8>", "", "", []uint64{0xff, 0x80}},
		// A leading zero is a decimal digit, not an octal prefix.
		{"[010]", "tensor<1xi8>", "", "", []uint64{10}},
		// true and false are elements of i1 only.
		{"[true]", "tensor<1xi32>", "true", "true in a tensor of i32; true and false are elements of i1", nil},
		// A splat is held to the range too.
		{"300", "tensor<4xi8>", "300", "integer constant 300 out of range for i8", nil},
		{"-1", "tensor<4xi8>", "", "", []uint64{0xff, 0xff, 0xff, 0xff}},
	} {
		if tc.bad == "" {
			got := constBits(t, tc.lit, tc.typ)
			if len(got) != len(tc.want) {
				t.Errorf("dense<%s> : %s: %d elements, want %d", tc.lit, tc.typ, len(got), len(tc.want))
				continue
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("dense<%s> : %s: element %d is %#x, want %#x", tc.lit, tc.typ, i, got[i], tc.want[i])
				}
			}
			continue
		}
		col := constCol + strings.Index(tc.lit, tc.bad)
		wantError(t, constProgram(tc.lit, tc.typ), "test.mlir:2:"+itoa(col)+": "+tc.msg)
	}
}

// TestDenseShape: the nesting of a dense<...> list is the shape of its type exactly; a bare scalar is a
// splat of any shape.
func TestDenseShape(t *testing.T) {
	at := "test.mlir:2:" + itoa(constCol-len("dense<")) + ": "
	for _, tc := range []struct{ lit, typ, want string }{
		{"[[1.0, 2.0], [3.0, 4.0]]", "tensor<4xf32>", at + "dense<...> literal of shape [2, 2] does not match tensor<4xf32>"},
		{"[1.0, 2.0, 3.0, 4.0]", "tensor<2x2xf32>", at + "dense<...> literal of shape [4] does not match tensor<2x2xf32>"},
		{"[1.0]", "tensor<4xf32>", at + "dense<...> literal of shape [1] does not match tensor<4xf32>"},
		{"[1.0]", "tensor<f32>", at + "dense<...> literal of shape [1] does not match tensor<f32>"},
		{"[[1, 2, 3], [4, 5, 6]]", "tensor<3x2xi32>", at + "dense<...> literal of shape [2, 3] does not match tensor<3x2xi32>"},
		{"[[1.0, 2.0], [3.0]]", "tensor<2x2xf32>", "test.mlir:2:" + itoa(constCol+len("[[1.0, 2.0], ")) + ": dense<...>: the elements of a list differ in shape: [2] first, then [1]"},
		{"[1.0, [2.0]]", "tensor<2xf32>", "test.mlir:2:" + itoa(constCol+len("[1.0, ")) + ": dense<...>: the elements of a list differ in shape: a scalar first, then [1]"},
		{"[[1.0], 2.0]", "tensor<2x1xf32>", "test.mlir:2:" + itoa(constCol+len("[[1.0], ")) + ": dense<...>: the elements of a list differ in shape: [1] first, then a scalar"},
	} {
		wantError(t, constProgram(tc.lit, tc.typ), tc.want)
	}
	for _, tc := range []struct {
		lit, typ string
		n        int
	}{
		{"[[1.0, 2.0], [3.0, 4.0]]", "tensor<2x2xf32>", 4},
		{"1.0", "tensor<4xf32>", 4},
		{"1.0", "tensor<f32>", 1},
		{"[1.0]", "tensor<1xf32>", 1},
		{"[[[1], [2], [3]]]", "tensor<1x3x1xi32>", 3},
		{"[]", "tensor<0xf32>", 0},
		{"[[], []]", "tensor<2x0xf32>", 0},
		{"[(1.0, 2.0), (3.0, 4.0)]", "tensor<2xcomplex<f32>>", 2},
	} {
		if got := constBits(t, tc.lit, tc.typ); len(got) != tc.n {
			t.Errorf("dense<%s> : %s: %d elements, want %d", tc.lit, tc.typ, len(got), tc.n)
		}
	}
}

// TestReturnTypes: a return gives the function's result types, as many and each the same; the
// conversion never makes a computation of other results than its function declares.
func TestReturnTypes(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf16> {\n  return %arg0 : tensor<4xf32>\n}\n",
			"test.mlir:2:3: func.return: value 0 (%arg0) is tensor<4xf32>, but result 0 of function @main is tensor<4xf16>"},
		{"func.func @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {\n  return %arg0 : tensor<4xf32>\n}\n",
			"test.mlir:2:3: func.return returns 1 value, but function @main has 2 results (tensor<4xf32>, tensor<4xf32>)"},
		{"func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n  return %arg0, %arg0 : tensor<4xf32>, tensor<4xf32>\n}\n",
			"test.mlir:2:3: func.return returns 2 values, but function @main has 1 result (tensor<4xf32>)"},
		{"func.func @main(%arg0: tensor<4xf32>) -> () {\n  return %arg0 : tensor<4xf32>\n}\n",
			"test.mlir:2:3: func.return returns 1 value, but function @main has 0 results ()"},
		// Any function of the module, called or not.
		{"module {\n  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n    return %arg0 : tensor<4xf32>\n  }\n" +
			"  func.func private @f(%arg0: tensor<2x2xf32>) -> tensor<4xf32> {\n    return %arg0 : tensor<2x2xf32>\n  }\n}\n",
			"test.mlir:6:5: func.return: value 0 (%arg0) is tensor<2x2xf32>, but result 0 of function @f is tensor<4xf32>"},
		// Dynamic and static dimensions differ.
		{"func.func @main(%arg0: tensor<?xf32>) -> tensor<4xf32> {\n  return %arg0 : tensor<?xf32>\n}\n",
			"test.mlir:2:3: func.return: value 0 (%arg0) is tensor<?xf32>, but result 0 of function @main is tensor<4xf32>"},
		// Quantized types compare by their quantization.
		{"func.func @main(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<4x!quant.uniform<i8:f32, 0.25:-3>> {\n" +
			"  return %arg0 : tensor<4x!quant.uniform<i8:f32, 0.5:-3>>\n}\n",
			"test.mlir:2:3: func.return: value 0 (%arg0) is tensor<4x!quant.uniform<i8:f32, 0.5:-3>>, but result 0 of function @main is tensor<4x!quant.uniform<i8:f32, 0.25:-3>>"},
		{"func.func @main(%arg0: tensor<4xi8>) -> tensor<4x!quant.uniform<i8:f32, 0.5>> {\n  return %arg0 : tensor<4xi8>\n}\n",
			"test.mlir:2:3: func.return: value 0 (%arg0) is tensor<4xi8>, but result 0 of function @main is tensor<4x!quant.uniform<i8:f32, 0.5>>"},
		// The generic form: the function type gives the results, and the entry block's arguments.
		{"\"builtin.module\"() ({\n  \"func.func\"() <{function_type = (tensor<4xf32>) -> tensor<4xf16>, sym_name = \"main\"}> ({\n" +
			"  ^bb0(%arg0: tensor<4xf32>):\n    \"func.return\"(%arg0) : (tensor<4xf32>) -> ()\n  }) : () -> ()\n}) : () -> ()\n",
			"test.mlir:4:5: func.return: value 0 (%arg0) is tensor<4xf32>, but result 0 of function @main is tensor<4xf16>"},
		{"\"builtin.module\"() ({\n  \"func.func\"() <{function_type = (tensor<4xf16>) -> tensor<4xf32>, sym_name = \"main\"}> ({\n" +
			"  ^bb0(%arg0: tensor<4xf32>):\n    \"func.return\"(%arg0) : (tensor<4xf32>) -> ()\n  }) : () -> ()\n}) : () -> ()\n",
			"test.mlir:3:8: func.func @main: argument 0 (%arg0) is tensor<4xf32>, but its function type gives tensor<4xf16>"},
	} {
		wantError(t, tc.src, tc.want)
	}
	for _, tc := range []struct{ src, want string }{
		{"func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n  return %arg0 : tensor<4xf32>\n}\n", "f32[4]"},
		{"func.func @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {\n  return %arg0, %arg0 : tensor<4xf32>, tensor<4xf32>\n}\n", "(f32[4], f32[4])"},
		{"func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf16> {\n  %0 = stablehlo.convert %arg0 : (tensor<4xf32>) -> tensor<4xf16>\n  return %0 : tensor<4xf16>\n}\n", "f16[4]"},
		{"func.func @main(%arg0: tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5:-3>> {\n" +
			"  %0 = stablehlo.uniform_quantize %arg0 : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5:-3>>\n" +
			"  return %0 : tensor<4x!quant.uniform<i8:f32, 0.5:-3>>\n}\n", "s8[4]"},
		{"\"builtin.module\"() ({\n  \"func.func\"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = \"main\"}> ({\n" +
			"  ^bb0(%arg0: tensor<4xf32>):\n    \"func.return\"(%arg0) : (tensor<4xf32>) -> ()\n  }) : () -> ()\n}) : () -> ()\n", "f32[4]"},
	} {
		if got := convert(t, tc.src).Entry.Root.Shape.String(); got != tc.want {
			t.Errorf("the entry returns %s, want %s\n%s", got, tc.want, tc.src)
		}
	}
}

// TestOperandTypes: the operand types a signature states are the types of the values used, as MLIR
// requires; an op never converts a value of another type than its signature says.
func TestOperandTypes(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.convert %arg0 : (tensor<4xf16>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n",
			"test.mlir:2:26: stablehlo.convert: operand 0 (%arg0) is tensor<4xf32>, but the signature gives tensor<4xf16>"},
		{"func.func @main(%a: tensor<4xf32>, %b: tensor<4xi32>) -> tensor<4xf32> {\n  %0 = stablehlo.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n",
			"test.mlir:2:26: stablehlo.add: operand 1 (%b) is tensor<4xi32>, but the signature gives tensor<4xf32>"},
		{"func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.add %a, %a : (tensor<4xf32>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n",
			"test.mlir:2:3: stablehlo.add has 2 operands, but its signature gives 1 operand type"},
		{"func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  return %a, %a : tensor<4xf32>\n}\n",
			"test.mlir:2:3: func.return has 2 operands, but 1 type"},
		// The short form of an elementwise op: its one type is its operands'.
		{"func.func @main(%a: tensor<4xf32>) -> tensor<4xf16> {\n  %0 = stablehlo.convert %a : tensor<4xf16>\n  return %0 : tensor<4xf16>\n}\n",
			"test.mlir:2:26: stablehlo.convert: operand 0 (%a) is tensor<4xf32>, but the signature gives tensor<4xf16>"},
		{"func.func @main(%a: tensor<4xf32>) -> tensor<5xf32> {\n  %0 = stablehlo.add %a, %a : tensor<5xf32>\n  return %0 : tensor<5xf32>\n}\n",
			"test.mlir:2:22: stablehlo.add: operand 0 (%a) is tensor<4xf32>, but the signature gives tensor<5xf32>"},
		// The types of a return are its operands'.
		{"func.func @main(%a: tensor<4xf32>) -> tensor<4xf16> {\n  return %a : tensor<4xf16>\n}\n",
			"test.mlir:2:10: func.return: operand 0 (%a) is tensor<4xf32>, but the signature gives tensor<4xf16>"},
		{"func.func @main(%a: tensor<4xf32>) -> tensor<f32> {\n  %c = stablehlo.constant dense<0.0> : tensor<f32>\n" +
			"  %0 = stablehlo.reduce(%a init: %c) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>\n" +
			"   reducer(%x: tensor<f32>, %y: tensor<f32>) {\n    %s = stablehlo.add %x, %y : tensor<f32>\n    stablehlo.return %s : tensor<f16>\n  }\n" +
			"  return %0 : tensor<f32>\n}\n",
			"test.mlir:6:22: stablehlo.return: operand 0 (%s) is tensor<f32>, but the signature gives tensor<f16>"},
		// reduce's "(%x init: %y), ..." interleaves what its signature lists as inputs, then initial values.
		{"func.func @main(%a: tensor<4xf32>, %b: tensor<4xi32>) -> (tensor<f32>, tensor<i32>) {\n" +
			"  %c = stablehlo.constant dense<0.0> : tensor<f32>\n  %d = stablehlo.constant dense<0> : tensor<i32>\n" +
			"  %0:2 = stablehlo.reduce(%a init: %c), (%b init: %d) across dimensions = [0] : (tensor<4xf32>, tensor<4xi32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<i32>)\n" +
			"   reducer(%x: tensor<f32>, %y: tensor<f32>) (%u: tensor<i32>, %v: tensor<i32>) {\n" +
			"    %s = stablehlo.add %x, %y : tensor<f32>\n    %t = stablehlo.add %u, %v : tensor<i32>\n    stablehlo.return %s, %t : tensor<f32>, tensor<i32>\n  }\n" +
			"  return %0#0, %0#1 : tensor<f32>, tensor<i32>\n}\n",
			"test.mlir:4:50: stablehlo.reduce: operand 3 (%d) is tensor<i32>, but the signature gives tensor<f32>"},
		// Dynamic and quantized types compare exactly.
		{"func.func @main(%a: tensor<?xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.negate %a : (tensor<4xf32>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n",
			"test.mlir:2:25: stablehlo.negate: operand 0 (%a) is tensor<?xf32>, but the signature gives tensor<4xf32>"},
		{"func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n" +
			"  %0 = stablehlo.uniform_quantize %a : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5:-3>>\n" +
			"  %1 = stablehlo.uniform_dequantize %0 : (tensor<4xi8>) -> tensor<4xf32>\n  return %1 : tensor<4xf32>\n}\n",
			"test.mlir:3:37: stablehlo.uniform_dequantize: operand 0 (%0) is tensor<4x!quant.uniform<i8:f32, 0.5:-3>>, but the signature gives tensor<4xi8>"},
		// The generic form states every operand's type.
		{"func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = \"stablehlo.negate\"(%a) : (tensor<4xf16>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n",
			"test.mlir:2:27: stablehlo.negate: operand 0 (%a) is tensor<4xf32>, but the signature gives tensor<4xf16>"},
		{"func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = func.call @f(%a) : (tensor<4xf16>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n" +
			"func.func private @f(%a: tensor<4xf16>) -> tensor<4xf32> {\n  %0 = stablehlo.convert %a : (tensor<4xf16>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n",
			"test.mlir:2:21: func.call: operand 0 (%a) is tensor<4xf32>, but the signature gives tensor<4xf16>"},
	} {
		wantError(t, tc.src, tc.want)
	}
	for _, src := range []string{
		"func.func @main(%a: tensor<4xf16>) -> tensor<4xf32> {\n  %0 = stablehlo.convert %a : (tensor<4xf16>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n",
		"func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.convert %a : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n",
		"func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = \"stablehlo.negate\"(%a) : (tensor<4xf32>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n",
		// complex's one type is its result's; tuple's too.
		"func.func @main(%a: tensor<4xf32>) -> tensor<4xcomplex<f32>> {\n  %0 = stablehlo.complex %a, %a : tensor<4xcomplex<f32>>\n  return %0 : tensor<4xcomplex<f32>>\n}\n",
		"func.func @main(%a: tensor<4xf32>) -> tuple<tensor<4xf32>> {\n  %0 = stablehlo.tuple %a : tuple<tensor<4xf32>>\n  return %0 : tuple<tensor<4xf32>>\n}\n",
		"func.func @main(%p: tensor<4xi1>, %a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.select %p, %a, %a : tensor<4xi1>, tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n",
		"func.func @main(%a: tensor<4xf32>, %b: tensor<4xi32>) -> (tensor<f32>, tensor<i32>) {\n" +
			"  %c = stablehlo.constant dense<0.0> : tensor<f32>\n  %d = stablehlo.constant dense<0> : tensor<i32>\n" +
			"  %0:2 = stablehlo.reduce(%a init: %c), (%b init: %d) across dimensions = [0] : (tensor<4xf32>, tensor<4xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)\n" +
			"   reducer(%x: tensor<f32>, %y: tensor<f32>) (%u: tensor<i32>, %v: tensor<i32>) {\n" +
			"    %s = stablehlo.add %x, %y : tensor<f32>\n    %t = stablehlo.add %u, %v : tensor<i32>\n    stablehlo.return %s, %t : tensor<f32>, tensor<i32>\n  }\n" +
			"  return %0#0, %0#1 : tensor<f32>, tensor<i32>\n}\n",
		"func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n" +
			"  %0 = stablehlo.uniform_quantize %a : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5:-3>>\n" +
			"  %1 = stablehlo.uniform_dequantize %0 : (tensor<4x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<4xf32>\n  return %1 : tensor<4xf32>\n}\n",
	} {
		convert(t, src)
	}
}

// TestSymbolRedefinition: a second symbol of one name in a module is an error at its definition; the
// one that came last no longer replaces the first.
func TestSymbolRedefinition(t *testing.T) {
	main := "func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n  return %arg0 : tensor<4xf32>\n}\n"
	negate := "func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.negate %arg0 : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n"
	generic := "  \"func.func\"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = \"main\"}> ({\n" +
		"  ^bb0(%arg0: tensor<4xf32>):\n    \"func.return\"(%arg0) : (tensor<4xf32>) -> ()\n  }) : () -> ()\n"
	for _, tc := range []struct{ src, want string }{
		{main + negate, "test.mlir:4:1: redefinition of symbol @main"},
		{"module @m {\n" + main + negate + "}\n", "test.mlir:5:1: redefinition of symbol @main"},
		{"\"builtin.module\"() ({\n" + generic + generic + "}) : () -> ()\n", "test.mlir:6:3: redefinition of symbol @main"},
		{"module {\n  sdy.mesh @main = <[\"x\"=2]>\n" + main + "}\n", "test.mlir:3:1: redefinition of symbol @main"},
		{"module {\n  sdy.mesh @mesh = <[\"x\"=2]>\n  sdy.mesh @mesh = <[\"x\"=4]>\n" + main + "}\n", "test.mlir:3:3: redefinition of symbol @mesh"},
	} {
		wantError(t, tc.src, tc.want)
	}
	// One name in two modules, or two names in one, is fine.
	mods, err := ParseFile(token.NewFileSet(), "test.mlir", []byte("module @a {\n"+main+"}\nmodule @b {\n"+negate+"}\n"))
	if err != nil || len(mods) != 2 {
		t.Fatalf("two modules: %d, %v", len(mods), err)
	}
	m := convert(t, strings.Replace(main, "@main", "@other", 1)+negate)
	if m.Entry.Root.Opcode != hlo.OpNegate {
		t.Errorf("the entry's root is %s, want negate", m.Entry.Root.Opcode)
	}
}

// TestLocAliasUndefined: a location alias used but defined nowhere in the file is an error at its first
// use; one defined after its uses, as MLIR prints them, is not.
func TestLocAliasUndefined(t *testing.T) {
	prog := "func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.negate %arg0 : tensor<4xf32> loc(#loc99)\n  return %0 : tensor<4xf32>\n}\n"
	wantError(t, prog, "test.mlir:2:51: location alias #loc99 is used but never defined")
	wantError(t, prog+"#loc1 = loc(\"a.py\":1:2)\n", "test.mlir:2:51: location alias #loc99 is used but never defined")
	// An alias that names an undefined one.
	wantError(t, prog+"#loc99 = loc(callsite(#loc1 at #loc2))\n#loc1 = loc(\"a.py\":1:2)\n", "test.mlir:5:32: location alias #loc2 is used but never defined")
	m := convert(t, prog+"#loc1 = loc(\"a.py\":7:2)\n#loc99 = loc(\"neg\"(#loc1))\n")
	md, _ := m.Entry.Root.Attr("metadata").(hlo.Metadata)
	if got := len(md); got != 3 {
		t.Errorf("metadata %v, want the op name and the source position", md)
	}
}

package printer_test

import (
	"fmt"
	"os"

	"octet/hlo"
	"octet/hlo/parser"
	"octet/hlo/printer"
)

func Example() {
	m, err := parser.ParseString("example", `HloModule m

ENTRY e {
  a = f8e4m3fn[16,32] parameter(0)
  b = f8e4m3fn[16,32] parameter(1)
  s = f32[] parameter(2)
  gemm = (bf16[16,16], s8[1024]) custom-call(a, b, s, s), custom_call_target="__cublas$lt$matmul$f8", metadata={op_name="dot"}
  ROOT d = bf16[16,16] get-tuple-element(gemm), index=0
}
`)
	if err != nil {
		fmt.Println(err)
		return
	}
	printer.Fprint(os.Stdout, m, printer.ConfigFor(printer.StyleReadable))
	// Output:
	// HloModule m
	//
	// ENTRY e (a: f8e4m3fn[16,32], b: f8e4m3fn[16,32], s: f32[]) -> bf16[16,16] {
	//   a = f8e4m3fn[16,32] parameter(0)
	//   b = f8e4m3fn[16,32] parameter(1)
	//   s = f32[] parameter(2)
	//   gemm = (bf16[16,16], s8[1024]) custom-call(a, b, s, s), custom_call_target="__cublas$lt$matmul$f8"
	//   ROOT d = bf16[16,16] get-tuple-element(gemm), index=0
	// }
}

func ExampleInstructionString() {
	m, _ := parser.ParseString("example", "HloModule m\n\nENTRY e {\n  x = f32[8,2]{0,1} parameter(0)\n  ROOT t = f32[2,8] transpose(x), dimensions={1,0}\n}\n")
	root := m.Entry.Root
	fmt.Println(printer.InstructionString(root, printer.ConfigFor(printer.StyleXLA)))
	fmt.Println(printer.InstructionString(root, printer.ConfigFor(printer.StyleXLAShort)))
	fmt.Println(printer.InstructionString(root, printer.ConfigFor(printer.StyleReadable)))
	// Output:
	// %t = f32[2,8]{1,0} transpose(f32[8,2]{0,1} %x), dimensions={1,0}
	// t = f32[2,8]{1,0} transpose(x), dimensions={1,0}
	// t = f32[2,8] transpose(x), dimensions={1,0}
}

func ExampleShapeString() {
	m, _ := parser.ParseString("example", "HloModule m\n\nENTRY e {\n  ROOT p = (f32[2,3]{0,1:T(8,128)}, s32[], token[]) parameter(0)\n}\n")
	fmt.Println(printer.ShapeString(m.Entry.Root.Shape, true))
	fmt.Println(printer.ShapeString(m.Entry.Root.Shape, false))
	// Output:
	// (f32[2,3]{0,1:T(8,128)}, s32[], token[])
	// (f32[2,3], s32[], token[])
}

func ExampleConfig_annotate() {
	m, _ := parser.ParseString("example", "HloModule m\n\nENTRY e {\n  x = f32[4] parameter(0)\n  ROOT n = f32[4] negate(x)\n}\n")
	cfg := printer.ConfigFor(printer.StyleReadable)
	cfg.Annotate = func(in *hlo.Instruction) []string {
		if in.Opcode == hlo.OpNegate {
			return []string{fmt.Sprintf("%d users", len(in.Users())), "the root"}
		}
		return nil
	}
	printer.Fprint(os.Stdout, m, cfg)
	// Output:
	// HloModule m
	//
	// ENTRY e (x: f32[4]) -> f32[4] {
	//   x = f32[4] parameter(0)
	//   ROOT n = f32[4] negate(x)
	//     // 0 users
	//     // the root
	// }
}

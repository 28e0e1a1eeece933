package fuse_test

import (
	"fmt"

	"octet/fuse"
	"octet/hlo/parser"
)

// Rewrite turns a scaled FP8 matmul with a ReLU into one cuBLASLt call and says what it absorbed.
func ExampleRewrite() {
	m, err := parser.ParseString("example.hlo", `HloModule example

ENTRY main {
  a = f8e4m3fn[16,32] parameter(0)
  b = f8e4m3fn[32,16] parameter(1)
  sa = f32[] parameter(2)
  sb = f32[] parameter(3)
  af = f32[16,32] convert(a)
  sab = f32[16,32] broadcast(sa), dimensions={}
  adq = f32[16,32] multiply(af, sab)
  bf = f32[32,16] convert(b)
  sbb = f32[32,16] broadcast(sb), dimensions={}
  bdq = f32[32,16] multiply(sbb, bf)
  d = f32[16,16] dot(adq, bdq), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  zero = f32[] constant(0)
  zeros = f32[16,16] broadcast(zero), dimensions={}
  ROOT relu = f32[16,16] maximum(d, zeros)
}
`)
	if err != nil {
		panic(err)
	}
	r := fuse.Rewrite(m, fuse.Options{})
	for _, g := range r.Decisions {
		fmt.Printf("%s: fused=%v %s epilogue=%s D=%s absorbed=%v\n", g.Dot, g.Fused, g.Target, g.Epilogue, g.DType, g.Absorbed)
	}
	fmt.Println(m.Entry.Root.Opcode, m.Entry.Root.Operand(0).CustomCallTarget())
	// Output:
	// d: fused=true __cublas$lt$matmul$f8 epilogue=RELU D=f32 absorbed=[relu]
	// get-tuple-element __cublas$lt$matmul$f8
}

// Analyze gives the reason a dot cannot become an FP8 GEMM.
func ExampleAnalyze() {
	m, err := parser.ParseString("example.hlo", `HloModule example

ENTRY main {
  a = f8e5m2[16,32] parameter(0)
  b = f8e5m2[32,16] parameter(1)
  ROOT d = f32[16,16] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
`)
	if err != nil {
		panic(err)
	}
	for _, g := range fuse.Analyze(m).Decisions {
		fmt.Printf("%s: fused=%v: %s\n", g.Dot, g.Fused, g.Reason)
	}
	// Output:
	// d: fused=false: operands are f8e5m2 x f8e5m2: cuBLASLt needs one f8e4m3fn operand
}

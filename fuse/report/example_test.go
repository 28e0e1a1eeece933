package report_test

import (
	"fmt"

	"octet/fuse/report"
	"octet/hlo/parser"
)

func ExampleCheck() {
	m, err := parser.ParseString("example", `HloModule m

ENTRY e {
  a = f8e4m3fn[16,32] parameter(0)
  b = f8e4m3fn[32,16] parameter(1)
  s = f32[] parameter(2)
  af = f32[16,32] convert(a)
  sb = f32[16,32] broadcast(s), dimensions={}
  adq = f32[16,32] multiply(af, sb)
  bf = f32[32,16] convert(b)
  ROOT d = f32[16,16] dot(adq, bf), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
`)
	if err != nil {
		fmt.Println(err)
		return
	}
	r := report.Check(m)
	fmt.Printf("%d FP8 GEMM, %d fused, %d fusible\n", len(r.GEMMs), r.Fused, r.Fusible)
	g := r.GEMMs[0]
	fmt.Println(g.Kind, g.Key)
	fmt.Println("A:", g.A.Via)
	fmt.Println(g.FuseNote)
	// Output:
	// 1 FP8 GEMM, 0 fused, 1 fusible
	// dot p0:f8e4m3fn[16,32] x p1:f8e4m3fn[32,16], k=32
	// A: f8e4m3fn[16,32] %a (parameter 0), dequantized in f32 (convert %af, multiply %adq by %s (parameter 2))
	// octet fuse makes it one __cublas$lt$matmul$f8: epilogue DEFAULT, D f32, alpha 1, beta 0
}

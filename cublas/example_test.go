package cublas_test

import (
	"fmt"
	"os"

	"octet/cublas"
	"octet/hlo/parser"
	"octet/hlo/printer"
)

func ExampleDecode() {
	m, err := parser.ParseString("example", `HloModule m

ENTRY e {
  a = f8e4m3fn[32,64] parameter(0)
  b = f8e4m3fn[128,64] parameter(1)
  sa = f32[] parameter(2)
  sb = f32[] parameter(3)
  v = bf16[128] parameter(4)
  ROOT gemm = (bf16[32,128], s8[1024]) custom-call(a, b, sa, sb, v), custom_call_target="__cublas$lt$matmul$f8", backend_config={"gemm_backend_config":{"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["1"]},"epilogue":"BIAS_GELU"}}
}
`)
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := cublas.Decode(m.Entry.Root)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Target, c.DType, c.Config.Epilogue, c.Config.Epilogue.Activation())
	fmt.Println("scales:", c.AScale.Name, c.BScale.Name, "bias:", c.Bias.Name, "d_scale:", c.DScale == nil)
	// Output:
	// __cublas$lt$matmul$f8 bf16 BIAS_GELU GELU
	// scales: sa sb bias: v d_scale: true
}

func ExampleGemmConfig_BackendConfigJSON() {
	c := cublas.DefaultConfig([]int64{1}, []int64{1}, nil, nil)
	c.Epilogue = cublas.EpilogueRelu
	c.DamaxOutput = true
	fmt.Println(c.BackendConfigJSON())
	// Output:
	// {"operation_queue_id":"0","wait_on_operation_queues":[],"gemm_backend_config":{"alpha_real":1,"alpha_imag":0,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["1"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"precision_config":{"operand_precision":["DEFAULT","DEFAULT"],"algorithm":"ALG_UNSET"},"epilogue":"RELU","damax_output":true},"force_earliest_schedule":false}
}

func ExampleAnnotate() {
	m, err := parser.ParseString("example", `HloModule m

ENTRY e {
  a = f8e4m3fn[16,32] parameter(0)
  b = f8e4m3fn[16,32] parameter(1)
  s = f32[] parameter(2)
  gemm = (bf16[16,16], s8[1024]) custom-call(a, b, s, s), custom_call_target="__cublas$lt$matmul$f8"
  ROOT d = bf16[16,16] get-tuple-element(gemm), index=0
}
`)
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := printer.ConfigFor(printer.StyleReadable)
	cfg.Annotate = cublas.Annotate
	printer.Fprint(os.Stdout, m, cfg)
	// Output:
	// HloModule m
	//
	// ENTRY e (a: f8e4m3fn[16,32], b: f8e4m3fn[16,32], s: f32[]) -> bf16[16,16] {
	//   a = f8e4m3fn[16,32] parameter(0)
	//   b = f8e4m3fn[16,32] parameter(1)
	//   s = f32[] parameter(2)
	//   gemm = (bf16[16,16], s8[1024]) custom-call(a, b, s, s), custom_call_target="__cublas$lt$matmul$f8"
	//     // cuBLASLt FP8 GEMM: D bf16[16,16] = f8e4m3fn[16,32] × f8e4m3fn[16,32]ᵀ, a_scale=s b_scale=s, epilogue DEFAULT, alpha 1, beta 0, no amax [inferred: no backend_config]
	//   ROOT d = bf16[16,16] get-tuple-element(gemm), index=0
	// }
}

package main

import (
	"strings"
	"testing"

	"octet/internal/shared"
)

// TestStableHLOExample: the StableHLO text of the bf16 regression gives, through every command, what
// its HLO text gives: one fused FP8 cuBLASLt call, and bit-identical outputs.
func TestStableHLOExample(t *testing.T) {
	mlir := shared.Path(t, "examples", "bf16_dequant.stablehlo.mlir")
	hloFile := shared.Path(t, "examples", "bf16_dequant.before.hlo")

	r := fuseJSON(t, mlir)
	fused := 0
	for _, g := range r.GEMMs {
		if g.Fused && g.Target == "__cublas$lt$matmul$f8" {
			fused++
		}
	}
	if len(r.GEMMs) != 1 || fused != 1 {
		t.Errorf("fuse %s: %d GEMMs, %d fused into __cublas$lt$matmul$f8; want 1 and 1", mlir, len(r.GEMMs), fused)
	}
	ref := fuseJSON(t, hloFile)
	if len(ref.GEMMs) == 1 && len(r.GEMMs) == 1 && strings.Join(ref.GEMMs[0].Absorbed, ",") != "" &&
		len(ref.GEMMs[0].Absorbed) != len(r.GEMMs[0].Absorbed) {
		t.Errorf("fuse absorbed %v from the StableHLO, %v from the HLO", r.GEMMs[0].Absorbed, ref.GEMMs[0].Absorbed)
	}

	code, fromMLIR, errs := runOctet(t, "", "run", "--random", "1", mlir)
	if code != 0 {
		t.Fatalf("octet run %s: exit %d: %s", mlir, code, errs)
	}
	code, fromHLO, errs := runOctet(t, "", "run", "--random", "1", hloFile)
	if code != 0 {
		t.Fatalf("octet run %s: exit %d: %s", hloFile, code, errs)
	}
	if fromMLIR != fromHLO || fromMLIR == "" {
		t.Errorf("octet run --random 1 differs:\nStableHLO: %.300s\nHLO:       %.300s", fromMLIR, fromHLO)
	}
}

func TestConvert(t *testing.T) {
	mlir := shared.Path(t, "examples", "fp8_matmul.stablehlo.mlir")
	code, out, errs := runOctet(t, "", "convert", mlir)
	if code != 0 {
		t.Fatalf("octet convert: exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"HloModule jit_matmul_fn, entry_computation_layout={(f8e4m3fn[128,128]{1,0}, f8e5m2[128,128]{1,0})->f8e5m2[128,128]{1,0}}",
		"dot(f8e4m3fn[128,128]{1,0} %Arg_0.1, f8e5m2[128,128]{1,0} %Arg_1.1), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("octet convert: output lacks %q:\n%s", want, out)
		}
	}
	// The output is HLO text that reads back.
	code, _, errs = runOctet(t, out, "verify", "-")
	if code != 0 {
		t.Errorf("octet verify of the converted module: exit %d: %s", code, errs)
	}
}

func TestConvertErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"module {\n  func.func @main(%a: tensor<f32>) -> tensor<f32> {\n    %0 = stablehlo.frobnicate %a : tensor<f32>\n    return %0 : tensor<f32>\n  }\n}\n",
			"<stdin>:3:5: stablehlo.frobnicate is not supported"},
		{"module {\n  func.func @main() -> tensor<f32> {\n    return %x : tensor<f32>\n", "<stdin>:3:12: undefined value %x"},
		{"HloModule m\nENTRY e { ROOT p = f32[] parameter(0) }\n", "not StableHLO"},
	} {
		code, _, errs := runOctet(t, tc.src, "convert", "-")
		if code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("octet convert of %q: exit %d, %q; want an error with %q", tc.src, code, errs, tc.want)
		}
	}
}

// TestCheckNamesSourceLines: on StableHLO printed with debug locations (loc(...) on every op, #loc
// aliases, named and call-site locations), octet check names each FP8 matmul's Python file and line.
func TestCheckNamesSourceLines(t *testing.T) {
	const file = "../../stablehlo/testdata/two_fp8_matmuls_debug.mlir"
	code, out, errs := runOctet(t, "", "check", file)
	if code != 0 {
		t.Fatalf("octet check: exit %d: %s", code, errs)
	}
	for _, want := range []string{"NOT FUSED  %dot.1 in %main.1: D bf16[32,128]\n             from \"jit(mlp)/jit(main)/dot_general\" at /home/user/mlp.py:10\n",
		"NOT FUSED  %dot.2 in %main.1: D bf16[32,16]\n             from \"jit(mlp)/jit(main)/dot_general\" at /home/user/layers.py:4\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("octet check: output lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = runOctet(t, "", "check", "--json", file)
	if code != 0 {
		t.Fatalf("octet check --json: exit %d: %s", code, errs)
	}
	for _, want := range []string{`at /home/user/mlp.py:10"`, `at /home/user/layers.py:4"`} {
		if !strings.Contains(out, want) {
			t.Errorf("octet check --json: output lacks %s:\n%s", want, out)
		}
	}
}

// TestShardedProgram: a program sharded with a Shardy mesh converts (meshes and shardings as XLA's
// round-trip export keeps them), verifies, prints with each sharding described by mesh axes, and check
// names the shardings of its FP8 GEMM's operands and result.
func TestShardedProgram(t *testing.T) {
	const file = "../../stablehlo/testdata/sharded_fp8_matmul.mlir"
	code, out, errs := runOctet(t, "", "convert", file)
	if code != 0 {
		t.Fatalf("octet convert: exit %d: %s", code, errs)
	}
	for _, want := range []string{
		`num_partitions=8, frontend_attributes={xla.sdy.meshes="{mesh = #sdy.mesh<[\"data\"=4, \"model\"=2]>}"}`,
		`%Arg_0.1 = f8e4m3fn[64,128]{1,0} parameter(0), sharding={devices=[4,1,2]<=[8] last_tile_dim_replicate}, frontend_attributes={xla.sdy.sharding="#sdy.sharding<@mesh, [{\"data\"}, {}]>"}`,
		`lhs_contracting_dims={1}, rhs_contracting_dims={1}, sharding={devices=[4,2]<=[8]}`,
		`custom_call_target="Sharding", sharding={devices=[4,2]<=[8]}`,
		`custom_call_target="xla.sdy.GlobalToLocalShape", custom_call_has_side_effect=true`,
		`custom_call_target="xla.sdy.FuncResultSharding", custom_call_has_side_effect=true, sharding={devices=[4,2]<=[8]}`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("octet convert: output lacks %q:\n%s", want, out)
		}
	}
	if code, _, errs := runOctet(t, out, "verify", "-"); code != 0 {
		t.Errorf("octet verify of the converted text: exit %d: %s", code, errs)
	}
	if code, _, errs := runOctet(t, "", "verify", file); code != 0 {
		t.Errorf("octet verify: exit %d: %s", code, errs)
	}
	code, out, errs = runOctet(t, "", "print", "--format=hlo", file)
	if code != 0 || !strings.Contains(out, "// sharding: [data, -] over mesh data=4, model=2") {
		t.Errorf("octet print --format=hlo: exit %d: %s\n%s", code, errs, out)
	}
	code, out, errs = runOctet(t, "", "check", file)
	if code != 0 || !strings.Contains(out, "sharding: A [data, -] over mesh data=4, model=2; B [model, -] over mesh data=4, model=2; D [data, model] over mesh data=4, model=2") {
		t.Errorf("octet check: exit %d: %s\n%s", code, errs, out)
	}
}

// TestIgnoredAttributes: convert refuses an attribute it cannot carry into HLO (one XLA's translation
// keeps), naming it at its position; print, check and run go on and say on stderr what they ignored. An
// attribute XLA's translation ignores too only gets the warning, from convert as well.
func TestIgnoredAttributes(t *testing.T) {
	src := "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.negate %a {hint = 3 : i32, my.hint = 4 : i32} : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n"
	const note = "<stdin>:2:3: stablehlo.negate: attribute hint is not converted"
	const warning = "<stdin>:2:3: ignored: stablehlo.negate: attribute my.hint is not converted (XLA's translation ignores it too)"
	code, _, errs := runOctet(t, src, "convert", "-")
	if code != 1 || !strings.Contains(errs, note) || !strings.Contains(errs, warning) {
		t.Errorf("octet convert: exit %d, stderr %q; want 1, %q and %q", code, errs, note, warning)
	}
	for _, args := range [][]string{{"print", "--format=hlo", "-"}, {"check", "-"}, {"run", "--random", "1", "-"}} {
		code, _, errs := runOctet(t, src, args...)
		if code != 0 || !strings.Contains(errs, "<stdin>:2:3: ignored: stablehlo.negate: attribute hint is not converted") || !strings.Contains(errs, warning) {
			t.Errorf("octet %s: exit %d, stderr %q", strings.Join(args, " "), code, errs)
		}
	}
	only := strings.Replace(src, "hint = 3 : i32, ", "", 1)
	if code, out, errs := runOctet(t, only, "convert", "-"); code != 0 || !strings.Contains(out, "negate") || !strings.Contains(errs, warning) {
		t.Errorf("octet convert of an attribute XLA ignores: exit %d, stderr %q", code, errs)
	}
}

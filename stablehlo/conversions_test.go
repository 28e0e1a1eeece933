package stablehlo

import (
	"errors"
	"strings"
	"testing"

	"octet/interp"
)

// TestConversionsRun runs small programs of the ops that convert into several HLO instructions (or into
// a grid of devices), each with check ops stating what the StableHLO specification says it computes.
func TestConversionsRun(t *testing.T) {
	for _, c := range []struct{ name, src string }{
		// The specification's all_to_all example: split along dimension 1, concatenate along 0.
		{"all_to_all", `module {
  func.func @a2a(%x: tensor<2x4xi64>) -> tensor<4x2xi64> {
    %0 = "stablehlo.all_to_all"(%x) {split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 2 : i64,
      replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xi64>) -> tensor<4x2xi64>
    return %0 : tensor<4x2xi64>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[[1, 2, 3, 4], [5, 6, 7, 8]]> : tensor<2x4xi64>
    %b = stablehlo.constant dense<[[9, 10, 11, 12], [13, 14, 15, 16]]> : tensor<2x4xi64>
    %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@a2a], [@a2a]]} : (tensor<2x4xi64>, tensor<2x4xi64>) -> (tensor<4x2xi64>, tensor<4x2xi64>)
    check.expect_eq_const %r#0, dense<[[1, 2], [5, 6], [9, 10], [13, 14]]> : tensor<4x2xi64>
    check.expect_eq_const %r#1, dense<[[3, 4], [7, 8], [11, 12], [15, 16]]> : tensor<4x2xi64>
    return
  }
}`},
		{"scan", `func.func @main() {
  %x = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %0:2 = chlo.scan(%x) inits(%one) dimension=0 {
  ^bb0(%e: tensor<i32>, %acc: tensor<i32>):
    %1 = stablehlo.multiply %e, %acc : tensor<i32>
    stablehlo.return %1, %1 : tensor<i32>, tensor<i32>
  } : (tensor<4xi32>, tensor<i32>) -> (tensor<4xi32>, tensor<i32>)
  check.expect_eq_const %0#0, dense<[1, 2, 6, 24]> : tensor<4xi32>
  check.expect_eq_const %0#1, dense<24> : tensor<i32>
  %y = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %z = stablehlo.constant dense<0> : tensor<2xi32>
  %2:2 = chlo.scan(%y) inits(%z) dimension=1 attributes {is_associative = true, is_reverse = true} {
  ^bb0(%e: tensor<2xi32>, %acc: tensor<2xi32>):
    %3 = stablehlo.add %e, %acc : tensor<2xi32>
    stablehlo.return %3, %3 : tensor<2xi32>, tensor<2xi32>
  } : (tensor<2x3xi32>, tensor<2xi32>) -> (tensor<2x3xi32>, tensor<2xi32>)
  check.expect_eq_const %2#0, dense<[[6, 5, 3], [15, 11, 6]]> : tensor<2x3xi32>
  check.expect_eq_const %2#1, dense<[6, 15]> : tensor<2xi32>
  return
}`},
		// CHLO's elementwise ops JAX prints: square of reals and of complex numbers (whose real part is
		// exactly 0 where |x| = |y|, even where (x - y)(x + y) would overflow), conj and the infinity tests.
		{"square_conj_is_inf", `func.func @main() {
  %x = stablehlo.constant dense<[-3.0, 0.5, 0x7F800000]> : tensor<3xf32>
  %0 = chlo.square %x : tensor<3xf32> -> tensor<3xf32>
  check.expect_eq_const %0, dense<[9.0, 0.25, 0x7F800000]> : tensor<3xf32>
  %z = stablehlo.constant dense<[(1.0, 2.0), (3.0e38, -3.0e38), (0.0, -1.0)]> : tensor<3xcomplex<f32>>
  %1 = chlo.square %z : tensor<3xcomplex<f32>> -> tensor<3xcomplex<f32>>
  %2 = chlo.conj %z : tensor<3xcomplex<f32>> -> tensor<3xcomplex<f32>>
  check.expect_eq_const %2, dense<[(1.0, -2.0), (3.0e38, 3.0e38), (0.0, 1.0)]> : tensor<3xcomplex<f32>>
  %y = stablehlo.constant dense<[0xFF800000, 1.0, 0x7F800000, 0x7FC00000]> : tensor<4xf32>
  %3 = chlo.is_inf %y : tensor<4xf32> -> tensor<4xi1>
  %4 = chlo.is_pos_inf %y : tensor<4xf32> -> tensor<4xi1>
  %5 = chlo.is_neg_inf %y : tensor<4xf32> -> tensor<4xi1>
  check.expect_eq_const %3, dense<[true, false, true, false]> : tensor<4xi1>
  check.expect_eq_const %4, dense<[false, false, true, false]> : tensor<4xi1>
  check.expect_eq_const %5, dense<[true, false, false, false]> : tensor<4xi1>
  check.expect_eq_const %1, dense<[(-3.0, 4.0), (0.0, 0xFF800000), (-1.0, -0.0)]> : tensor<3xcomplex<f32>>
  return
}`},
		// Element k of the i1 side is bit k.
		{"bitcast_convert_i1", `func.func @main() {
  %b = stablehlo.constant dense<[true, false, false, false, false, false, false, true]> : tensor<8xi1>
  %0 = stablehlo.bitcast_convert %b : (tensor<8xi1>) -> tensor<i8>
  %1 = stablehlo.bitcast_convert %0 : (tensor<i8>) -> tensor<8xi1>
  check.expect_eq %1, %b : tensor<8xi1>
  check.expect_eq_const %0, dense<-127> : tensor<i8>
  return
}`},
		// Rows 0 and 1 use the first group's rhs, row 2 the second's. MLIR leaves the empty batching
		// dimensions out, as JAX's programs show.
		{"ragged_dot", `func.func @main() {
  %lhs = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %rhs = stablehlo.constant dense<[[[1.0], [1.0]], [[1.0], [-1.0]]]> : tensor<2x2x1xf32>
  %sizes = stablehlo.constant dense<[2, 1]> : tensor<2xi64>
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %sizes) {
    ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1],
      lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>} : (tensor<3x2xf32>, tensor<2x2x1xf32>, tensor<2xi64>) -> tensor<3x1xf32>
  check.expect_eq_const %0, dense<[[3.0], [7.0], [-1.0]]> : tensor<3x1xf32>
  return
}`},
		// A shard_map on one device computes the global values: each of the two devices holds two columns
		// of x, and the sum over the devices of their blocks is [[1+3, 2+4], [5+7, 6+8]].
		{"shard_map", `module @m attributes {mhlo.num_partitions = 2 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  func.func @main() {
    %x = stablehlo.constant dense<[[1, 2, 3, 4], [5, 6, 7, 8]]> : tensor<2x4xi32>
    %0 = sdy.manual_computation(%x) in_shardings=[<@mesh, [{}, {"x"}]>] out_shardings=[<@mesh, [{}, {}]>] manual_axes={"x"} (%a: tensor<2x2xi32>) {
      %1 = "stablehlo.all_reduce"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
      ^bb0(%p: tensor<i32>, %q: tensor<i32>):
        %s = stablehlo.add %p, %q : tensor<i32>
        stablehlo.return %s : tensor<i32>
      }) : (tensor<2x2xi32>) -> tensor<2x2xi32>
      sdy.return %1 : tensor<2x2xi32>
    } : (tensor<2x4xi32>) -> tensor<2x2xi32>
    check.expect_eq_const %0, dense<[[4, 6], [12, 14]]> : tensor<2x2xi32>
    return
  }
}`},
		// A probe in a loop records each iteration.
		{"probe", `func.func @main() {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %three = stablehlo.constant dense<3> : tensor<i64>
  %0 = stablehlo.while(%i = %zero) : tensor<i64>
  cond {
    %c = stablehlo.compare LT, %i, %three : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %n = stablehlo.add %i, %one : tensor<i64>
    %p = interpreter.probe %n, probe_id = "n" : tensor<i64>
    stablehlo.return %p : tensor<i64>
  }
  check.expect_serialized_eq %one, probe_id = "n", iter = 0 : tensor<i64>
  check.expect_serialized_eq %three, probe_id = "n", iter = 2 : tensor<i64>
  return
}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			run(t, convert(t, c.src))
			// The same program with one expected value changed fails its check. The first digit becomes 0
			// (1 when it is 0), which keeps an integer within the range of its type.
			i := strings.LastIndex(c.src, "check.")
			i += strings.IndexAny(c.src[i:], "<=")
			j := i + strings.IndexAny(c.src[i:], "0123456789")
			digit := "0"
			if c.src[j] == '0' {
				digit = "1"
			}
			wrong := c.src[:j] + digit + c.src[j+1:]
			_, err := interp.Run(convert(t, wrong), nil, interp.Options{})
			var ce *interp.CheckError
			if !errors.As(err, &ce) && (err == nil || !strings.Contains(err.Error(), "check.")) {
				t.Errorf("with a wrong expected value: %v", err)
			}
		})
	}
}

module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x12x12x16xf32>, %arg1: tensor<3x3x4x8xf32>) -> (tensor<4x12x12x16xf32> {jax.result_info = "result[0]"}, tensor<3x3x4x8xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[0, 1], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 4 : i64, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<4x12x12x16xf32>, tensor<3x3x4x8xf32>) -> tensor<4x6x6x8xf32>
    %1 = stablehlo.tanh %0 : tensor<4x6x6x8xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x6x6x8xf32>
    %3 = stablehlo.add %2, %1 : tensor<4x6x6x8xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x6x6x8xf32>
    %5 = stablehlo.subtract %4, %1 : tensor<4x6x6x8xf32>
    %6 = stablehlo.multiply %3, %5 : tensor<4x6x6x8xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x6x6x8xf32>
    %8 = stablehlo.multiply %7, %6 : tensor<4x6x6x8xf32>
    %9 = stablehlo.convolution(%arg0, %8) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[0, 1], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [2, 2], reverse = [false, false]} {batch_group_count = 4 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<4x12x12x16xf32>, tensor<4x6x6x8xf32>) -> tensor<3x3x4x8xf32>
    %10 = stablehlo.reshape %arg1 : (tensor<3x3x4x8xf32>) -> tensor<3x3x4x4x2xf32>
    %11 = stablehlo.transpose %10, dims = [0, 1, 3, 2, 4] : (tensor<3x3x4x4x2xf32>) -> tensor<3x3x4x4x2xf32>
    %12 = stablehlo.reshape %11 : (tensor<3x3x4x4x2xf32>) -> tensor<3x3x16x2xf32>
    %13 = stablehlo.reverse %12, dims = [0, 1] : tensor<3x3x16x2xf32>
    %14 = stablehlo.convolution(%8, %13) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[2, 1], [2, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 4 : i64, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<4x6x6x8xf32>, tensor<3x3x16x2xf32>) -> tensor<4x12x12x16xf32>
    return %14, %9 : tensor<4x12x12x16xf32>, tensor<3x3x4x8xf32>
  }
}

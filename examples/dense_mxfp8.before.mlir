module @jit_dense_mxfp8 attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<1x128x256xf8E4M3FN>, %w: tensor<1x64x256xf8E4M3FN>, %x_scale: tensor<1x128x8xf8E8M0FNU>, %w_scale: tensor<1x64x8xf8E8M0FNU>, %bias: tensor<64xbf16>) -> (tensor<1x128x64xbf16> {jax.result_info = "result"}) {
    %0 = stablehlo.custom_call @__op$block_scaled_dot(%x, %w, %x_scale, %w_scale) {api_version = 2 : i32, backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [0], \22rhs_batch_dimensions\22: [0], \22dequantize_type\22: \22BF16\22}}", operand_layouts = [dense<[2, 1, 0]> : tensor<3xindex>, dense<[2, 1, 0]> : tensor<3xindex>, dense<[2, 1, 0]> : tensor<3xindex>, dense<[2, 1, 0]> : tensor<3xindex>], result_layouts = [dense<[2, 1, 0]> : tensor<3xindex>]} : (tensor<1x128x256xf8E4M3FN>, tensor<1x64x256xf8E4M3FN>, tensor<1x128x8xf8E8M0FNU>, tensor<1x64x8xf8E8M0FNU>) -> tensor<1x128x64xbf16>
    %1 = stablehlo.broadcast_in_dim %bias, dims = [2] : (tensor<64xbf16>) -> tensor<1x128x64xbf16>
    %2 = stablehlo.add %0, %1 : tensor<1x128x64xbf16>
    return %2 : tensor<1x128x64xbf16>
  }
}

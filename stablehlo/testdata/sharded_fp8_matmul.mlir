#loc1 = loc("/home/user/train.py":14:0)
#loc2 = loc("/home/user/train.py":21:0)
#loc3 = loc("jit(step)/jit(main)/convert_element_type"(#loc1))
#loc4 = loc("jit(step)/jit(main)/mul"(#loc1))
#loc5 = loc("jit(step)/jit(main)/dot_general"(#loc2))
#loc6 = loc("jit(step)/jit(main)/sharding_constraint"(#loc2))
#loc7 = loc("jit(step)/jit(main)/shard_map"(#loc2))
module @jit_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=4, "model"=2]>
  func.func public @main(%arg0: tensor<64x128xf8E4M3FN> {mhlo.layout_mode = "default", sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %arg1: tensor<256x128xf8E4M3FN> {mhlo.layout_mode = "default", sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, %arg2: tensor<f32> {mhlo.layout_mode = "default", sdy.sharding = #sdy.sharding<@mesh, []>}, %arg3: tensor<f32> {mhlo.layout_mode = "default", sdy.sharding = #sdy.sharding<@mesh, []>}) -> (tensor<64x256xbf16> {jax.result_info = "result", mhlo.layout_mode = "default", sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}) {
    %0 = stablehlo.convert %arg0 : (tensor<64x128xf8E4M3FN>) -> tensor<64x128xbf16> loc(#loc3)
    %1 = stablehlo.convert %arg2 : (tensor<f32>) -> tensor<bf16> loc(#loc3)
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<bf16>) -> tensor<64x128xbf16> loc(#loc4)
    %3 = stablehlo.multiply %0, %2 : tensor<64x128xbf16> loc(#loc4)
    %4 = stablehlo.convert %arg1 : (tensor<256x128xf8E4M3FN>) -> tensor<256x128xbf16> loc(#loc3)
    %5 = stablehlo.convert %arg3 : (tensor<f32>) -> tensor<bf16> loc(#loc3)
    %6 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<bf16>) -> tensor<256x128xbf16> loc(#loc4)
    %7 = stablehlo.multiply %4, %6 : tensor<256x128xbf16> loc(#loc4)
    %8 = stablehlo.dot_general %3, %7, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>} : (tensor<64x128xbf16>, tensor<256x128xbf16>) -> tensor<64x256xbf16> loc(#loc5)
    %9 = sdy.sharding_constraint %8 <@mesh, [{"data", ?}, {"model", ?}]> : tensor<64x256xbf16> loc(#loc6)
    %10 = sdy.manual_computation(%9) in_shardings=[<@mesh, [{"data"}, {"model"}]>] out_shardings=[<@mesh, [{"data"}, {"model"}]>] manual_axes={"data", "model"} (%arg4: tensor<16x128xbf16>) {
      %11 = stablehlo.negate %arg4 : tensor<16x128xbf16> loc(#loc7)
      sdy.return %11 : tensor<16x128xbf16> loc(#loc7)
    } : (tensor<64x256xbf16>) -> tensor<64x256xbf16> loc(#loc7)
    return %10 : tensor<64x256xbf16>
  }
}

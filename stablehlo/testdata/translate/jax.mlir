// What JAX 0.11.2 prints that XLA's own translation tests do not show, in the form of those tests: each
// case (between "// -----" lines) is converted, printed as XLA prints HLO, and matched against its CHECK
// lines; a case with an expected-error is refused with that message at its position. The expected HLO
// follows the rules of XLA's translation named in each case.

// A mesh with the stablehlo.mesh dictionary Shardy's import adds to every named mesh: a copy of the mesh,
// which XLA's round-trip export leaves out when it writes the mesh into xla.sdy.meshes.
// CHECK: HloModule jit_f
// CHECK-SAME: num_partitions=4
// CHECK-SAME: frontend_attributes={xla.sdy.meshes="{mesh = #sdy.mesh<[\"a\"=2, \"b\"=2]>}"}
// CHECK: parameter(0), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
module @jit_f attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["a"=2, "b"=2]> {stablehlo.mesh = {axes = [{name = "a", size = 2 : i64}, {name = "b", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {}]>}) -> (tensor<8x8xf32> {jax.result_info = "result"}) {
    return %arg0 : tensor<8x8xf32>
  }
}

// -----

// The meshes JAX prints for callbacks (one device) and host offloading (no axes), with their copies;
// a sharding on a mesh of one device is XLA's maximal sharding.
// CHECK: frontend_attributes={xla.sdy.meshes="{empty_mesh = #sdy.mesh<[]>, maximal_mesh_0 = #sdy.mesh<[], device_ids=[0]>}"}
// CHECK: custom_call_target="xla_ffi_python_cpu_callback"
// CHECK-SAME: sharding={maximal device=0}
module @jit_g attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @maximal_mesh_0 = <[], device_ids=[0]> {stablehlo.mesh = {axes = [], device_ids = dense<0> : tensor<1xi64>}}
  sdy.mesh @empty_mesh = <[]> {stablehlo.mesh = {axes = []}}
  func.func public @main(%arg0: tensor<16xf32>) -> (tensor<16xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.custom_call @xla_ffi_python_cpu_callback(%arg0) {backend_config = "", mhlo.backend_config = {index = 0 : ui64}, operand_layouts = [dense<0> : tensor<1xindex>], result_layouts = [dense<0> : tensor<1xindex>], sdy.sharding = #sdy.sharding_per_value<[<@maximal_mesh_0, []>]>} : (tensor<16xf32>) -> tensor<16xf32>
    return %0 : tensor<16xf32>
  }
}

// -----

// The same in the generic form.
// CHECK: frontend_attributes={xla.sdy.meshes="{mesh = #sdy.mesh<[\"x\"=2]>}"}
"builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["x"=2]>, sym_name = "mesh"}> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}]}} : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: tensor<4xf32>):
    "func.return"(%arg0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// A stablehlo.mesh that says something else than the mesh would be lost: refused.
module @jit_h {
  // expected-error@+1 {{sdy.mesh @mesh: stablehlo.mesh = {axes = [{name = "a", size = 4 : i64}]} does not describe the mesh <["a"=2]>}}
  sdy.mesh @mesh = <["a"=2]> {stablehlo.mesh = {axes = [{name = "a", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    return %arg0 : tensor<8xf32>
  }
}

// -----

// Replica groups given by mesh axes, as shard_map's collectives print them: the devices that share every
// coordinate but those of the named axes form a group (StableHLO's flattenReplicaGroupMeshAxes, which
// XLA's export applies). Over "model" of a 2x4 mesh: the rows; over "data": the columns.
// CHECK: all-reduce
// CHECK-SAME{LITERAL}: replica_groups={{0,1,2,3},{4,5,6,7}}
// CHECK: all-reduce
// CHECK-SAME{LITERAL}: replica_groups={{0,4},{1,5},{2,6},{3,7}}
module @jit_smap attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=4]> {stablehlo.mesh = {axes = [{name = "data", size = 2 : i64}, {name = "model", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<16xf32>) -> tensor<16xf32> {
    %0 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "model">]>, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<16xf32>) -> tensor<16xf32>
    %1 = "stablehlo.all_reduce"(%0) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "data">]>, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<16xf32>) -> tensor<16xf32>
    return %1 : tensor<16xf32>
  }
}

// -----

// A mesh written inline, and a sub-axis: the groups StableHLO's and Shardy's own tests state ("x" of a
// 2x2 mesh: [[0, 2], [1, 3]]; "y":(1)2 of a 2x4 mesh: [[0, 2], [1, 3], [4, 6], [5, 7]]).
// CHECK: all-reduce
// CHECK-SAME{LITERAL}: replica_groups={{0,2},{1,3}}
// CHECK: all-gather
// CHECK-SAME{LITERAL}: replica_groups={{0,2},{1,3},{4,6},{5,7}}
func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<1xi64>) -> (tensor<4xf32>, tensor<2xi64>) {
  %0 = "stablehlo.all_reduce"(%arg0) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = #stablehlo.replica_group_mesh_axes<mesh = #stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "x", size = 2>, #stablehlo.mesh_axis<name = "y", size = 2>]>, axes = [#stablehlo.axis_ref<name = "x">]>} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "stablehlo.all_gather"(%arg1) {all_gather_dim = 0 : i64, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = #stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "x", size = 2>, #stablehlo.mesh_axis<name = "y", size = 4>]>, axes = [#stablehlo.axis_ref<name = "y", sub_axis_info = (1)2>]>} : (tensor<1xi64>) -> tensor<2xi64>
  return %0, %1 : tensor<4xf32>, tensor<2xi64>
}

// -----

// A typed FFI call as JAX prints it: an empty backend_config string and an mhlo.backend_config
// dictionary, no api_version. StableHLO's legalization for XLA (fixupMhloBackendConfig) makes it a call of
// API_VERSION_TYPED_FFI whose backend config is the dictionary, which the export writes as MLIR prints it
// (sorted by name, strings escaped as MLIR escapes them), as jaxlib 0.11.2's translation does.
// CHECK: custom_call_target="cusolver_potrf_ffi"
// CHECK-SAME: api_version=API_VERSION_TYPED_FFI
// CHECK-SAME: backend_config={lower = true}
// CHECK: custom_call_target="lapack_sgeqrf_ffi"
// CHECK-SAME: api_version=API_VERSION_TYPED_FFI
// CHECK-SAME: backend_config={}
// CHECK: custom_call_target="__gpu$xla.gpu.triton"
// CHECK-SAME: api_version=API_VERSION_TYPED_FFI
// CHECK-SAME: backend_config={debug = false, grid_x = 1 : i32, ir = "ML\EFR\0D\00\22", name = "add_kernel"}
func.func @main(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %0:2 = stablehlo.custom_call @cusolver_potrf_ffi(%arg0) {backend_config = "", mhlo.backend_config = {lower = true}} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<i32>)
  %1 = stablehlo.custom_call @lapack_sgeqrf_ffi(%arg0) {mhlo.backend_config = {}} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %2 = stablehlo.custom_call @__gpu$xla.gpu.triton(%arg0) {backend_config = "", mhlo.backend_config = {name = "add_kernel", ir = "ML\EFR\0D\00\22", grid_x = 1 : i32, debug = false}} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0#0, %1, %2 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// On any other call XLA's translation ignores mhlo.backend_config (the conversion notes it): a call with a
// backend_config string keeps it, a call of another API version keeps its version.
// CHECK: custom_call_target="foo"
// CHECK-NOT: api_version
// CHECK-SAME: backend_config="opaque"
// CHECK: custom_call_target="bar"
// CHECK-SAME: api_version=API_VERSION_STATUS_RETURNING
// CHECK-NOT: backend_config
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @foo(%arg0) {backend_config = "opaque", mhlo.backend_config = {a = 1 : i32}} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = stablehlo.custom_call @bar(%0) {api_version = 2 : i32, mhlo.backend_config = {a = 1 : i32}} : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// StableHLO's verifier, which XLA's translation runs first, holds a typed FFI call to a dictionary
// backend_config, even an empty string...
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{stablehlo.custom_call: a backend_config of api_version 4 must be a dictionary}}
  %0 = stablehlo.custom_call @foo(%arg0) {api_version = 4 : i32, backend_config = ""} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// ... and any other call to a string.
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{stablehlo.custom_call: a backend_config of api_version 2 must be a string}}
  %0 = stablehlo.custom_call @foo(%arg0) {api_version = 2 : i32, backend_config = {a = 1 : i32}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// chlo.square as StableHLO's CHLO decomposition writes it: x * x for a real x.
// CHECK: ENTRY
// CHECK: [[X:%[^ ]+]] = f32[8] parameter(0)
// CHECK: f32[8] multiply(f32[8] [[X]], f32[8] [[X]])
func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = chlo.square %arg0 : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// For a complex z = x + iy: complex((x - y)(x + y), 2(xy)), the real part 0 where |x| = |y| and x is
// finite.
// CHECK-DAG: f32[3] real(
// CHECK-DAG: f32[3] imag(
// CHECK-DAG: pred[3] is-finite(
// CHECK-DAG: pred[3] compare({{.*}}), direction=EQ
// CHECK: c64[3] complex(
func.func @main(%arg0: tensor<3xcomplex<f32>>) -> tensor<3xcomplex<f32>> {
  %0 = chlo.square %arg0 : tensor<3xcomplex<f32>> -> tensor<3xcomplex<f32>>
  return %0 : tensor<3xcomplex<f32>>
}

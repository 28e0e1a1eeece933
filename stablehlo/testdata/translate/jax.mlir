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

// -----

// jnp.cumsum as JAX 0.11.2 prints it: XLA's translation keeps chlo.scan whole, as its scan instruction
// (inputs, then initial carries; the body as to_apply), is_reverse=false left out.
// CHECK: [[BODY:%[^ ]+]] ([[E:[^:]+]]: f32[8], [[C:[^:]+]]: f32[8]) -> (f32[8], f32[8]) {
// CHECK: ROOT {{.*}} = (f32[8], f32[8]) tuple(
// CHECK: ENTRY
// CHECK: [[X:%[^ ]+]] = f32[8,16] parameter(0)
// CHECK: [[INIT:%[^ ]+]] = f32[8] broadcast(
// CHECK: (f32[8,16], f32[8]) scan(f32[8,16] [[X]], f32[8] [[INIT]]), dimensions={1}, num_carries=1, is_associative=true, to_apply=[[BODY]]
// CHECK-NOT: while
func.func @main(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
  %1:2 = chlo.scan(%arg0) inits (%0) dimension=1  attributes {is_associative = true, is_reverse = false} {
  ^bb0(%input: tensor<8xf32>, %carry: tensor<8xf32>):
    %2 = stablehlo.add %input, %carry : tensor<8xf32>
    stablehlo.return %2, %2 : tensor<8xf32>, tensor<8xf32>
  } : (tensor<8x16xf32>, tensor<8xf32>) -> (tensor<8x16xf32>, tensor<8xf32>)
  return %1#0 : tensor<8x16xf32>
}

// -----

// A reversed scan of two inputs and two carries.
// CHECK: (f32[5,3], f32[3], s32[]) scan(f32[5,3] {{.*}}, s32[5,3] {{.*}}, f32[3] {{.*}}, s32[] {{.*}}), dimensions={0}, num_carries=2, is_reverse=true, to_apply=
func.func @main(%x: tensor<5x3xf32>, %y: tensor<5x3xi32>, %c: tensor<3xf32>, %n: tensor<i32>) -> (tensor<5x3xf32>, tensor<3xf32>, tensor<i32>) {
  %0:3 = chlo.scan(%x, %y) inits (%c, %n) dimension=0  attributes {is_associative = false, is_reverse = true} {
  ^bb0(%a: tensor<3xf32>, %b: tensor<3xi32>, %acc: tensor<3xf32>, %k: tensor<i32>):
    %1 = stablehlo.convert %b : (tensor<3xi32>) -> tensor<3xf32>
    %2 = stablehlo.multiply %a, %acc : tensor<3xf32>
    %3 = stablehlo.add %2, %1 : tensor<3xf32>
    stablehlo.return %3, %3, %k : tensor<3xf32>, tensor<3xf32>, tensor<i32>
  } : (tensor<5x3xf32>, tensor<5x3xi32>, tensor<3xf32>, tensor<i32>) -> (tensor<5x3xf32>, tensor<3xf32>, tensor<i32>)
  return %0#0, %0#1, %0#2 : tensor<5x3xf32>, tensor<3xf32>, tensor<i32>
}

// -----

// jax.lax.ragged_dot as JAX 0.11.2 prints it (a mixture of experts' layer): XLA's translation keeps it
// whole, as its ragged-dot instruction; DEFAULT precisions are left out.
// CHECK: f32[16,4] ragged-dot(f32[16,8] {{.*}}, f32[3,8,4] {{.*}}, s32[3] {{.*}}), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
// CHECK-NOT: dot(
func.func public @main(%arg0: tensor<16x8xf32>, %arg1: tensor<3x8x4xf32>, %arg2: tensor<3xi32>) -> (tensor<16x4xf32> {jax.result_info = "result"}) {
  %0 = "chlo.ragged_dot"(%arg0, %arg1, %arg2) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<16x8xf32>, tensor<3x8x4xf32>, tensor<3xi32>) -> tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}

// -----

// The other modes of XLA's translation test (mhlo_to_hlo/tests/ragged_dot.mlir): a ragged contracting
// dimension, whose groups lead the result, and a ragged batch dimension, neither with a group dimension;
// a precision that is not DEFAULT is kept.
// CHECK: f32[3,11,7] ragged-dot(f32[11,5] {{.*}}, f32[5,7] {{.*}}, s64[3] {{.*}}), lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={1}, operand_precision={highest,default}
// CHECK: f32[3,11,7] ragged-dot(f32[3,11,5] {{.*}}, f32[3,5,7] {{.*}}, s64[3] {{.*}}), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, lhs_ragged_dims={0}
func.func @main(%lhs: tensor<11x5xf32>, %rhs: tensor<5x7xf32>, %g: tensor<3xi64>, %blhs: tensor<3x11x5xf32>, %brhs: tensor<3x5x7xf32>) -> (tensor<3x11x7xf32>, tensor<3x11x7xf32>) {
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %g) {precision_config = [#chlo<precision HIGHEST>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [1], rhs_group_dimensions = []>} : (tensor<11x5xf32>, tensor<5x7xf32>, tensor<3xi64>) -> tensor<3x11x7xf32>
  %1 = "chlo.ragged_dot"(%blhs, %brhs, %g) {precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = []>} : (tensor<3x11x5xf32>, tensor<3x5x7xf32>, tensor<3xi64>) -> tensor<3x11x7xf32>
  return %0, %1 : tensor<3x11x7xf32>, tensor<3x11x7xf32>
}

// -----

// A group dimension of rhs that is contracted: refused at its position, as XLA's verifier refuses it.
func.func @main(%lhs: tensor<11x5xf32>, %rhs: tensor<3x5x7xf32>, %g: tensor<3xi64>) -> tensor<11x7xf32> {
  // expected-error@+1 {{rhs_group_dims={1}}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [1]>} : (tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<3xi64>) -> tensor<11x7xf32>
  return %0 : tensor<11x7xf32>
}

package interp

import (
	"strings"
	"testing"

	"octet/tensor"
)

// TestManualComputationPsum runs a shard_map as XLA's round-trip export writes it: x split over a mesh of
// 2x3 devices by rows ("a") and columns ("b"), w by rows ("b"); each device multiplies its blocks and an
// all-reduce over "b" sums the partial products. The global result is the product of x and w, which the
// module also computes with one dot (integers, so the order of the sums does not matter).
func TestManualComputationPsum(t *testing.T) {
	m := parseModule(t, `HloModule m, num_partitions=6, frontend_attributes={xla.sdy.meshes="{mesh = #sdy.mesh<[\"a\"=2, \"b\"=3]>}"}

add {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT s = s32[] add(x, y)
}

xla.sdy.manual_computation_body {
  x = s32[2,2] parameter(0)
  w = s32[2,3] parameter(1)
  d = s32[2,3] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = s32[2,3] all-reduce(d), channel_id=1, replica_groups={{0,1,2},{3,4,5}}, use_global_device_ids=true, to_apply=add
}

ENTRY e {
  x = s32[4,6] parameter(0)
  w = s32[6,3] parameter(1)
  g = (s32[2,2], s32[2,3]) custom-call(x, w), custom_call_target="xla.sdy.GlobalToLocalShape", custom_call_has_side_effect=true, frontend_attributes={xla.sdy.in_shardings="#sdy.sharding_per_value<[<@mesh, [{\"a\"}, {\"b\"}]>, <@mesh, [{\"b\"}, {}]>]>",xla.sdy.manual_axes="#sdy<manual_axes{\"a\", \"b\"}>"}
  gx = s32[2,2] get-tuple-element(g), index=0
  gw = s32[2,3] get-tuple-element(g), index=1
  c = s32[2,3] call(gx, gw), to_apply=xla.sdy.manual_computation_body, frontend_attributes={inlineable="false"}
  l = s32[4,3] custom-call(c), custom_call_target="xla.sdy.LocalToGlobalShape", custom_call_has_side_effect=true, frontend_attributes={xla.sdy.manual_axes="#sdy<manual_axes{\"a\", \"b\"}>",xla.sdy.out_shardings="#sdy.sharding_per_value<[<@mesh, [{\"a\"}, {}]>]>"}
  d = s32[4,3] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (s32[4,3], s32[4,3]) tuple(l, d)
}`)
	_, r := runRandom(t, m, 11)
	if !sameValue(r.Tuple[0], r.Tuple[1]) {
		t.Errorf("shard_map\n%s\nthe global dot\n%s", describe(r.Tuple[0]), describe(r.Tuple[1]))
	}
}

// TestManualComputationDevices checks where each device's shard comes from and goes: on a mesh whose
// device ids are not in order, each device adds its partition id to its block of x; a second result,
// the sum of all blocks (an all-reduce over every device), is not split, so one device's value stands for
// all.
func TestManualComputationDevices(t *testing.T) {
	m := parseModule(t, `HloModule m, num_partitions=4, frontend_attributes={xla.sdy.meshes="{mesh = #sdy.mesh<[\"a\"=2, \"b\"=2], device_ids=[3, 1, 2, 0]>}"}

add {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT s = s32[] add(x, y)
}

body {
  x = s32[2,3] parameter(0)
  p = u32[] partition-id()
  q = s32[] convert(p)
  b = s32[2,3] broadcast(q), dimensions={}
  y = s32[2,3] add(x, b)
  s = s32[2,3] all-reduce(x), channel_id=2, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
  ROOT t = (s32[2,3], s32[2,3]) tuple(y, s)
}

ENTRY e {
  x = s32[4,6] parameter(0)
  g = s32[2,3] custom-call(x), custom_call_target="xla.sdy.GlobalToLocalShape", custom_call_has_side_effect=true, frontend_attributes={xla.sdy.in_shardings="#sdy.sharding_per_value<[<@mesh, [{\"a\"}, {\"b\"}]>]>",xla.sdy.manual_axes="#sdy<manual_axes{\"a\", \"b\"}>"}
  c = (s32[2,3], s32[2,3]) call(g), to_apply=body
  y = s32[2,3] get-tuple-element(c), index=0
  s = s32[2,3] get-tuple-element(c), index=1
  ROOT l = (s32[4,6], s32[2,3]) custom-call(y, s), custom_call_target="xla.sdy.LocalToGlobalShape", custom_call_has_side_effect=true, frontend_attributes={xla.sdy.manual_axes="#sdy<manual_axes{\"a\", \"b\"}>",xla.sdy.out_shardings="#sdy.sharding_per_value<[<@mesh, [{\"a\"}, {\"b\"}]>, <@mesh, [{}, {}]>]>"}
}`)
	args, r := runRandom(t, m, 2)
	x := tensor.View[int32](args[0].Array)
	y, s := tensor.View[int32](r.Tuple[0].Array), tensor.View[int32](r.Tuple[1].Array)
	ids := []int32{3, 1, 2, 0} // the device at each position of the mesh
	for i := range 4 {
		for j := range 6 {
			if want := x[i*6+j] + ids[(i/2)*2+j/3]; y[i*6+j] != want {
				t.Errorf("y[%d,%d] = %d, want %d", i, j, y[i*6+j], want)
			}
		}
	}
	for i := range 2 {
		for j := range 3 {
			want := x[i*6+j] + x[i*6+j+3] + x[(i+2)*6+j] + x[(i+2)*6+j+3]
			if s[i*3+j] != want {
				t.Errorf("s[%d,%d] = %d, the sum of the blocks is %d", i, j, s[i*3+j], want)
			}
		}
	}
}

// TestSdyAnnotations: the calls that only carry a sharding or a propagation rule give their operand; a
// sharding group gives nothing; a GlobalToLocalShape whose values go elsewhere than a body is refused.
func TestSdyAnnotations(t *testing.T) {
	got, err := evalText(t, `HloModule m, frontend_attributes={xla.sdy.meshes="{mesh = #sdy.mesh<[\"x\"=2]>}"}
ENTRY e {
  x = f32[4] parameter(0)
  g = () custom-call(x), custom_call_target="xla.sdy.ShardingGroup", custom_call_has_side_effect=true, frontend_attributes={xla.sdy.sharding_group_id="0 : i64"}
  b = f32[4] custom-call(x), custom_call_target="xla.sdy.PropagationBarrier", custom_call_has_side_effect=true, frontend_attributes={xla.sdy.allowed_direction="1 : i32"}
  n = f32[4] negate(b)
  ROOT r = f32[4] custom-call(n), custom_call_target="xla.sdy.FuncResultSharding", custom_call_has_side_effect=true, frontend_attributes={xla.sdy.sharding="#sdy.sharding_per_value<[<@mesh, [{\"x\"}]>]>"}
}`, "f32[4] {1, -2, 3, 0.5}")
	if err != nil {
		t.Fatal(err)
	}
	if want := val(t, "f32[4] {-1, 2, -3, -0.5}"); !sameValue(got, want) {
		t.Errorf("got %s, want %s", describe(got), describe(want))
	}
	_, err = evalText(t, `HloModule m, num_partitions=2, frontend_attributes={xla.sdy.meshes="{mesh = #sdy.mesh<[\"x\"=2]>}"}
ENTRY e {
  x = f32[4] parameter(0)
  g = f32[2] custom-call(x), custom_call_target="xla.sdy.GlobalToLocalShape", custom_call_has_side_effect=true, frontend_attributes={xla.sdy.in_shardings="#sdy.sharding_per_value<[<@mesh, [{\"x\"}]>]>",xla.sdy.manual_axes="#sdy<manual_axes{\"x\"}>"}
  ROOT n = f32[2] negate(g)
}`, "f32[4] {1, 2, 3, 4}")
	if !isUnsupported(err) || !strings.Contains(err.Error(), "elsewhere than a manual computation's body") {
		t.Errorf("a GlobalToLocalShape not feeding a body: %v", err)
	}
}

func TestParseSdy(t *testing.T) {
	meshes, err := parseSdyMeshes(`{empty_mesh = #sdy.mesh<[]>, maximal = #sdy.mesh<[], device_ids=[0]>, mesh = #sdy.mesh<["data"=2, "model"=4], device_ids=[7, 6, 5, 4, 3, 2, 1, 0]>, old = "#sdy.mesh<\"a\"=8, \"b\"=2>"}`)
	if err != nil {
		t.Fatal(err)
	}
	if m := meshes["mesh"]; m == nil || len(m.axes) != 2 || m.axes[1] != (sdyAxis{"model", 4}) || len(m.ids) != 8 || m.ids[0] != 7 {
		t.Errorf("mesh %+v", meshes["mesh"])
	}
	if m := meshes["old"]; m == nil || m.devices() != 16 {
		t.Errorf("the older quoted form: %+v", meshes["old"])
	}
	if m := meshes["maximal"]; m == nil || m.devices() != 1 || len(meshes["empty_mesh"].axes) != 0 {
		t.Errorf("meshes %+v", meshes)
	}
	s, err := parseSdyShardings(`#sdy.sharding_per_value<[<@mesh, [{"data", ?}p1, {"model":(2)2}], replicated={"x"}>, <mesh<["z"=2]>, [{}, {"z"}], unreduced={"z"}>]>`)
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 2 || s[0].meshRef != "mesh" || len(s[0].dims) != 2 || s[0].dims[1][0] != (sdyAxisRef{"model", 2, 2}) ||
		s[1].mesh == nil || len(s[1].unreduced) != 1 {
		t.Errorf("shardings %+v", s)
	}
	axes, err := parseSdyManualAxes(`#sdy<manual_axes{"data", "model"}>`)
	if err != nil || len(axes) != 2 || axes[1] != "model" {
		t.Errorf("manual axes %v, %v", axes, err)
	}
	for _, bad := range []string{`#sdy.sharding_per_value<[<@mesh, [{"a"]>]>`, `#sdy.sharding_per_value<[<@mesh, [{"a"}]>]> junk`, `#sdy<manual_axes{a}>`} {
		if _, err := parseSdyShardings(bad); err == nil {
			if _, err := parseSdyManualAxes(bad); err == nil {
				t.Errorf("%s: no error", bad)
			}
		}
	}
}

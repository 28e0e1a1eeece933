package hlo_test

import (
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"octet/hlo"
	"octet/hlo/parser"
	_ "octet/hlo/prototext" // the corpus holds HloModuleProto text files too
	"octet/internal/shared"
)

func TestVerifyText(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"valid", `
HloModule m, entry_computation_layout={(f32[16,64]{1,0}, f32[64,32]{1,0})->f32[16,32]{1,0}}

ENTRY main {
  a = f32[16,64] parameter(0)
  b = f32[64,32] parameter(1)
  ROOT d = f32[16,32] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`, nil},
		{"inferred shapes", `
HloModule m

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = add(x, y)
}

ENTRY main {
  a = f32[8,4] parameter(0)
  z = f32[] constant(0)
  t = transpose(a), dimensions={1,0}
  r = reduce(t, z), dimensions={1}, to_apply=add
  n = negate(r)
  ROOT tuple = tuple(n, r)
}`, nil},
		{"dot", `
HloModule m

ENTRY main {
  a = f32[16,64] parameter(0)
  b = f32[32,32] parameter(1)
  ROOT d = f32[16,32] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`, []string{"dot.hlo:7:3: %d: dot: lhs contracting dimension 1 has size 64, rhs contracting dimension 0 has size 32"}},
		{"shape", `
HloModule m

ENTRY main {
  a = f32[16,64] parameter(0)
  b = f32[64,32] parameter(1)
  c = f8e4m3fn[16,64] convert(a)
  ROOT d = f32[16,30] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`, []string{"shape.hlo:8:3: shape f32[16,30] of %d disagrees with its operands: dot of f32[16,64] and f32[64,32] gives f32[16,32]"}},
		{"several", `
HloModule m, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  z = f32[] parameter(2)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  a = f32[4] parameter(0)
  zero = f32[] constant(0)
  r = f32[] reduce(a, zero), dimensions={0}, to_apply=add
  b = f32[4] broadcast(r), dimensions={}
  i = s32[4,2] iota(), iota_dimension=2
  ROOT c = f32[3] slice(b), slice={[0:3]}
}`, []string{
			"several.hlo:2:1: entry_computation_layout gives the result the shape f32[4]; the root %c of %main is f32[3]",
			"several.hlo:14:3: %r: reduce: the reducer %add takes 3 parameters; 2 are needed",
			"several.hlo:16:3: iota_dimension=2 of %i is out of range for s32[4,2]",
		}},
		// What XLA's verifier asks of an rng (ShapeVerifier::HandleRng); its parser takes them all.
		{"rng", `
HloModule m

ENTRY main {
  f = f32[] parameter(0)
  v = f32[2] parameter(1)
  i = s32[] parameter(2)
  ok = f32[4] rng(f, f), distribution=RNG_NORMAL
  three = f32[4] rng(f, f, v), distribution=rng_uniform
  vector = f32[4] rng(f, v), distribution=rng_uniform
  mixed = f32[4] rng(f, i), distribution=rng_uniform
  normal = s32[4] rng(i, i), distribution=rng_normal
  invalid = f32[4] rng(f, f), distribution=rng_invalid
  ROOT t = (f32[4], s32[4]) tuple(ok, normal)
}`, []string{
			"rng.hlo:9:3: rng takes 2 operands, got 3",
			"rng.hlo:10:3: the operands of rng %vector are f32[] and f32[2]; they must be scalars",
			"rng.hlo:11:3: the operands of rng %mixed are f32[] and s32[]; they must have the element type of its result f32[4]",
			"rng.hlo:12:3: rng %normal draws s32 from a normal distribution; it takes floating-point values",
			"rng.hlo:13:3: rng %invalid has no valid distribution (rng_uniform or rng_normal): rng_invalid",
		}},
		// What XLA's verifier asks of asynchronous operations: the shapes of start, update and done agree with
		// the operands and the called computation, each start or update is continued by one instruction that
		// continues it, and each done or update continues a start.
		{"async valid", `
HloModule m

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

wrapped {
  p = f32[2,3] parameter(0)
  ROOT t = f32[3,2] transpose(p), dimensions={1,0}
}

ENTRY main {
  p = f32[2,3] parameter(0)
  s = ((f32[2,3]), f32[3,2], s32[]) async-start(p), calls=wrapped
  u = ((f32[2,3]), f32[3,2], s32[]) async-update(s)
  d = f32[3,2] async-done(u)
  cs = ((f32[2,3]), f32[2,3], u32[]) custom-call-start(p), custom_call_target="foo"
  cd = f32[2,3] custom-call-done(cs)
  c = (f32[2,3]{1,0:S(1)}, f32[2,3], u32[]) copy-start(p)
  cd2 = f32[2,3]{1,0:S(1)} copy-done(c)
  ar = f32[2,3] all-reduce-start(p), to_apply=add
  ard = f32[2,3] all-reduce-done(ar)
  cp = (f32[2,3], f32[2,3], u32[], u32[]) collective-permute-start(p), source_target_pairs={{0,1},{1,0}}
  cpd = f32[2,3] collective-permute-done(cp)
  ROOT t = (f32[3,2], f32[2,3], f32[2,3], f32[2,3], f32[2,3]) tuple(d, cd, cd2, ard, cpd)
}`, nil},
		{"async", `
HloModule m

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

wrapped {
  p = f32[2,3] parameter(0)
  ROOT t = f32[3,2] transpose(p), dimensions={1,0}
}

ENTRY main {
  p = f32[2,3] parameter(0)
  s1 = ((f32[2,3]), f32[2,3], s32[]) async-start(p), calls=wrapped
  d1 = f32[2,3] async-done(s1)
  s2 = ((f32[2,3]), f32[3,2], s32[]) async-start(p), calls=wrapped
  d2 = s32[3,2] async-done(s2)
  s3 = ((f32[3,2]), f32[3,2], s32[]) async-start(p), calls=wrapped
  d3 = f32[3,2] async-done(s3)
  s4 = (f32[3,2]) async-start(p), calls=wrapped
  tuple = ((f32[2,3]), f32[3,2], s32[]) parameter(1)
  d5 = f32[3,2] async-done(tuple)
  s6 = ((f32[2,3]), f32[3,2], s32[]) async-start(p), calls=wrapped
  d6 = f32[3,2] async-done(s6)
  d7 = f32[3,2] async-done(s6)
  c = (f32[2,3], f32[2,3], u32[]) copy-start(p)
  ar = (f32[2,3], f32[2,3]) all-reduce-start(p), to_apply=add
  ard = f32[2,3] all-reduce-done(ar)
  cp = f32[2,3] collective-permute-start(p), source_target_pairs={{0,1},{1,0}}
  ROOT t = (f32[2,3], s32[3,2], f32[3,2]) tuple(d1, d2, d3)
}`, []string{
			"async.hlo:17:3: shape ((f32[2,3]), f32[2,3], s32[]) of %s1 disagrees with its operands: async-start of f32[2,3] gives ((f32[2,3]), f32[3,2], s32[])",
			"async.hlo:20:3: shape s32[3,2] of %d2 disagrees with its operands: async-done of ((f32[2,3]), f32[3,2], s32[]) gives f32[3,2]",
			"async.hlo:21:3: shape ((f32[3,2]), f32[3,2], s32[]) of %s3 disagrees with its operands: async-start of f32[2,3] gives ((f32[2,3]), f32[3,2], s32[])",
			"async.hlo:23:3: %s4: async-start: the result (f32[3,2]) is not a tuple of at least two elements",
			"async.hlo:23:3: async-start %s4 needs one user that continues it, has 0",
			"async.hlo:25:3: %d5: async-done: the operand %tuple comes from parameter; it must come from async-start or async-update",
			"async.hlo:26:3: async-start %s6 needs one user that continues it, has 2",
			"async.hlo:29:3: copy-start %c needs one user that continues it, has 0",
			"async.hlo:30:3: shape (f32[2,3], f32[2,3]) of %ar disagrees with its operands: all-reduce-start of f32[2,3] gives f32[2,3]",
			"async.hlo:31:3: shape f32[2,3] of %ard disagrees with its operands: all-reduce-done of (f32[2,3], f32[2,3]) gives (f32[2,3], f32[2,3])",
			"async.hlo:32:3: %cp: collective-permute-start: the result f32[2,3] is not a tuple of the operand, the result and a context",
			"async.hlo:32:3: collective-permute-start %cp needs one user that continues it, has 0",
		}},
		// XLA's verifier wants a compare's type to be the one its operands' elements compare as.
		{"comparison_type", `
HloModule m

ENTRY main {
  f = f32[] parameter(0)
  s = s32[] parameter(1)
  u = u32[] parameter(2)
  p = pred[] parameter(3)
  c = c64[] parameter(4)
  ok1 = pred[] compare(f, f), direction=LT, type=TOTALORDER
  ok2 = pred[] compare(f, f), direction=LT, type=FLOAT
  ok3 = pred[] compare(s, s), direction=LT, type=SIGNED
  ok4 = pred[] compare(u, u), direction=LT, type=UNSIGNED
  ok5 = pred[] compare(p, p), direction=LT, type=UNSIGNED
  ok6 = pred[] compare(c, c), direction=EQ, type=FLOAT
  bad1 = pred[] compare(f, f), direction=LT, type=UNSIGNED
  bad2 = pred[] compare(s, s), direction=LT, type=UNSIGNED
  bad3 = pred[] compare(u, u), direction=LT, type=SIGNED
  bad4 = pred[] compare(p, p), direction=LT, type=SIGNED
  ROOT t = (pred[], pred[]) tuple(ok1, bad1)
}`, []string{
			"comparison_type.hlo:16:3: %bad1: compare: type=UNSIGNED does not compare f32; it takes FLOAT or TOTALORDER",
			"comparison_type.hlo:17:3: %bad2: compare: type=UNSIGNED does not compare s32; it takes SIGNED",
			"comparison_type.hlo:18:3: %bad3: compare: type=SIGNED does not compare u32; it takes UNSIGNED",
			"comparison_type.hlo:19:3: %bad4: compare: type=SIGNED does not compare pred; it takes UNSIGNED",
		}},
		// XLA's HloSharding::Validate: a tuple sharding has one element per leaf of the shape (an outfeed's
		// covers its data and its token); an empty tuple may have one (CheckLeafCount).
		{"tuple_sharding", `
HloModule m

ENTRY main {
  p = (f32[4], (s32[], f32[2])) parameter(0), sharding={{replicated}, {maximal device=0}, {replicated}}
  q = (f32[4], f32[2]) parameter(1), sharding={{replicated}}
  r = f32[4] parameter(2), sharding={{replicated}, {replicated}}
  s = (f32[4], f32[2]) parameter(3), sharding={replicated}
  t = token[] after-all()
  o = token[] outfeed((f32[4]) tuple(r), t), outfeed_shape=(f32[4]{0}), sharding={{replicated}, {maximal device=0}}
  e = () tuple(), sharding={{replicated}}
  e2 = () tuple(), sharding={{replicated}, {replicated}}
  ROOT u = () tuple()
}`, []string{
			"tuple_sharding.hlo:6:3: the sharding of %q has 1 elements; its shape (f32[4], f32[2]) has 2 leaves",
			"tuple_sharding.hlo:7:3: %r has a tuple sharding of 2 elements, but its shape f32[4] is not a tuple",
			"tuple_sharding.hlo:12:3: the sharding of %e2 has 2 elements; its shape () has 0 leaves",
		}},
		// XLA's HloSharding::ValidateNonTuple: one tile dimension per dimension of the array besides the
		// subgroup dimensions, as many devices as tiles, each named once.
		{"tiled_sharding", `
HloModule m

ENTRY main {
  ok1 = f32[4,2] parameter(0), sharding={devices=[2,2]0,1,2,3}
  ok2 = f32[4,2] parameter(1), sharding={devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}
  ok3 = f32[4,2] parameter(2), sharding={devices=[2,1,2,2]<=[8] last_tile_dims={manual, replicated}}
  ok4 = (f32[4,2], f32[4]) parameter(3), sharding={{devices=[1,2]0,1}, {devices=[2,2]<=[2,2]T(1,0) last_tile_dims={manual}}}
  rank = f32[4,2] parameter(4), sharding={devices=[1,2,2,1]0,1,2,3}
  replicate = f32[4,2] parameter(5), sharding={devices=[2,2]0,1,2,3 last_tile_dim_replicate}
  subgroups = f32[4,2] parameter(6), sharding={devices=[2,1,2]<=[4] last_tile_dims={manual, replicated}}
  count = f32[4,2] parameter(7), sharding={devices=[2,2]0,1,2}
  iota = f32[4,2] parameter(8), sharding={devices=[2,2]<=[8]}
  twice = f32[4,2] parameter(9), sharding={devices=[2,2]0,1,1,3}
  element = (f32[4,2], f32[4]) parameter(10), sharding={{devices=[1,2]0,1}, {devices=[2,2]0,1,2,3}}
  ROOT t = () tuple()
}`, []string{
			"tiled_sharding.hlo:9:3: the sharding of %rank has 4 tile dimensions, 0 of them for subgroups, for f32[4,2] of rank 2",
			"tiled_sharding.hlo:10:3: the sharding of %replicate has 2 tile dimensions, 1 of them for subgroups, for f32[4,2] of rank 2",
			"tiled_sharding.hlo:11:3: the sharding of %subgroups has 3 tile dimensions, 2 of them for subgroups, for f32[4,2] of rank 2",
			"tiled_sharding.hlo:12:3: the sharding of %count has 4 tiles (devices=[2,2]) but lists 3 devices",
			"tiled_sharding.hlo:13:3: the sharding of %iota has 4 tiles (devices=[2,2]) but an iota list of 8 devices",
			"tiled_sharding.hlo:14:3: the sharding of %twice names device 1 twice",
			"tiled_sharding.hlo:15:3: element 1 of the sharding of %element has 2 tile dimensions, 0 of them for subgroups, for f32[4] of rank 1",
		}},
		// XLA's CheckReplicaGroups and GetCollectiveOpGroupMode, and the pairs of a collective-permute.
		{"replica_groups", `
HloModule m, replica_count=4, num_partitions=2

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  p = f32[8] parameter(0)
  ok1 = f32[8] all-reduce(p), replica_groups={{0},{1,3},{2}}, to_apply=add
  ok2 = f32[8] all-reduce(p), replica_groups={{0,1,2,3,4,5,6,7}}, channel_id=1, use_global_device_ids=true, to_apply=add
  ok3 = f32[8] all-reduce(p), replica_groups={}, to_apply=add
  ok4 = f32[8] all-to-all(p), replica_groups={{0,1}}, channel_id=2, dimensions={0}
  empty = f32[8] all-reduce(p), replica_groups={{0,1,2,3},{}}, to_apply=add
  twice = f32[8] all-reduce(p), replica_groups={{0,1},{2,0}}, to_apply=add
  missing = f32[8] all-reduce(p), replica_groups={{0,1},{2,4}}, to_apply=add
  count = f32[8] all-reduce(p), replica_groups={{0,1}}, to_apply=add
  flat = f32[8] all-reduce(p), replica_groups={{0,1,2,3}}, channel_id=3, use_global_device_ids=true, to_apply=add
  nochannel = f32[8] all-reduce(p), replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
  unnamed = f32[8] all-reduce(p), replica_groups={}, channel_id=4, use_global_device_ids=true, to_apply=add
  uneven = f32[16] all-gather(p), replica_groups={{0,1},{2},{3}}, dimensions={0}
  source = f32[8] collective-permute(p), source_target_pairs={{0,1},{0,2}}
  target = f32[8] collective-permute(p), source_target_pairs={{0,1},{2,1}}
  ok5 = f32[8] all-reduce(p), replica_groups=[2,2]<=[2,2]T(1,0), to_apply=add
  ok6 = f32[8] all-reduce(p), replica_groups=[2,4]<=[8], channel_id=5, use_global_device_ids=true, to_apply=add
  negative = f32[8] all-reduce(p), replica_groups=[2,2]<=[-2,-2]T(1,0), to_apply=add
  notperm = f32[8] all-reduce(p), replica_groups=[2,2]<=[2,2]T(0,0), to_apply=add
  iotacount = f32[8] all-reduce(p), replica_groups=[2,4]<=[8], to_apply=add
  iotasize = f32[8] all-reduce(p), replica_groups=[2,3]<=[6], to_apply=add
  iotarank = f32[8] all-reduce(p), replica_groups=[4]<=[4], to_apply=add
  ROOT t = () tuple()
}`, []string{
			"replica_groups.hlo:16:3: %empty has an empty replica group",
			"replica_groups.hlo:17:3: %twice names device 0 in two replica groups",
			"replica_groups.hlo:18:3: %missing names 4 devices in its replica groups but not device 3",
			"replica_groups.hlo:19:3: the replica groups of %count name 2 devices; grouping across replicas, the module's 4 are needed",
			"replica_groups.hlo:20:3: the replica groups of %flat name 4 devices; grouping across flattened device ids, the module's 8 are needed",
			"replica_groups.hlo:21:3: %nochannel has use_global_device_ids but no channel_id: XLA has no such group mode",
			"replica_groups.hlo:22:3: %unnamed uses global device ids, which need replica_groups to name the devices",
			"replica_groups.hlo:23:3: the replica groups of %uneven differ in size (2 and 1); all-gather takes groups of one size",
			"replica_groups.hlo:24:3: %source names source 0 twice in source_target_pairs",
			"replica_groups.hlo:25:3: %target names target 1 twice in source_target_pairs",
			"replica_groups.hlo:28:3: the iota replica groups of %negative: the list has a reshape dimension of -2 in [-2,-2]",
			"replica_groups.hlo:29:3: the iota replica groups of %notperm: the list has T(0,0), which is no permutation of the 2 dimensions of its reshape",
			"replica_groups.hlo:30:3: the replica groups of %iotacount name 8 devices; grouping across replicas, the module's 4 are needed",
			"replica_groups.hlo:31:3: the replica groups of %iotasize name 6 devices; grouping across replicas, the module's 4 are needed",
			"replica_groups.hlo:32:3: the iota replica groups of %iotarank are [4]<=...; they take two numbers, [groups,size]",
		}},
		// A replica count times a partition count past the int64 range would wrap around to a device count
		// that looks valid (here 4).
		{"device_count_overflow", `
HloModule m, replica_count=4611686018427387905, num_partitions=4

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  p = f32[8] parameter(0)
  ROOT flat = f32[8] all-reduce(p), replica_groups={{0,1,2,3}}, channel_id=1, use_global_device_ids=true, to_apply=add
}`, []string{
			"device_count_overflow.hlo:12:3: %flat groups flattened device ids of 4611686018427387905 replicas times 4 partitions, past the int64 range",
		}},
		// XLA's HandleReduceScatter: the result is the operand divided along the scatter dimension by the
		// group size (replica_groups' first group; without groups, the replicas, times the partitions
		// where a channel groups across both).
		{"reduce_scatter", `
HloModule m, num_partitions=2

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  p = f32[8] parameter(0)
  q = f32[4,6] parameter(1)
  ok1 = f32[4] reduce-scatter(p), replica_groups={{0,1}}, dimensions={0}, to_apply=add
  ok2 = f32[4,2] reduce-scatter(q), replica_groups=[1,3]<=[3], dimensions={1}, to_apply=add
  ok3 = f32[2] reduce-scatter(p), replica_groups={}, dimensions={0}, to_apply=add
  ok4 = f32[2] reduce-scatter(p), channel_id=1, replica_groups={{0,1}}, dimensions={0}, to_apply=add
  ok5 = (f32[4], f32[2,6]) reduce-scatter(p, q), replica_groups={{0,1}}, dimensions={0}, to_apply=add
  whole = f32[8] reduce-scatter(p), replica_groups={{0,1}}, dimensions={0}, to_apply=add
  rank = f32[4] reduce-scatter(p), replica_groups={{0,1}}, dimensions={1}, to_apply=add
  partitions = f32[4] reduce-scatter(p), channel_id=2, replica_groups={{0,1}}, dimensions={0}, to_apply=add
  odd = f32[2,3] reduce-scatter(q), replica_groups={{0,1,2}}, dimensions={0}, to_apply=add
  shards = f32[3] reduce-scatter(p), replica_groups={}, dimensions={0}, to_apply=add
  second = (f32[4], f32[4,6]) reduce-scatter(p, q), replica_groups={{0,1}}, dimensions={0}, to_apply=add
  ROOT t = () tuple()
}`, []string{
			"reduce_scatter.hlo:18:3: shape f32[8] of %whole disagrees with its operand f32[8] scattered along dimension 0 over groups of 2 devices, which gives f32[4]",
			"reduce_scatter.hlo:19:3: %rank scatters dimension 1, but its operand %p is f32[8], of rank 1",
			"reduce_scatter.hlo:20:3: shape f32[4] of %partitions disagrees with its operand f32[8] scattered along dimension 0 over groups of 4 devices, which gives f32[2]",
			"reduce_scatter.hlo:21:3: %odd scatters dimension 0 of f32[4,6] over groups of 3 devices, which do not divide it",
			"reduce_scatter.hlo:22:3: %shards scatters dimension 0 of f32[8] in 3 shards, which do not divide it",
			"reduce_scatter.hlo:23:3: shape f32[4,6] of %second disagrees with its operand f32[4,6] scattered along dimension 0 in 2 shards, which gives f32[2,6]",
		}},
		// Where a group's size needs a num_partitions (or replica_count) the header does not state, XLA
		// takes it from the module's configuration, which Octet does not have: the shard count is then not
		// checked against it (across), but a size the groups name alone still is (replicas).
		{"reduce_scatter_unstated", `
HloModule m

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  p = f32[16] parameter(0)
  across = f32[2] reduce-scatter(p), channel_id=1, replica_groups={{0,1,2,3}}, dimensions={0}, to_apply=add
  replicas = f32[2] reduce-scatter(p), replica_groups={{0,1,2,3}}, dimensions={0}, to_apply=add
  ROOT t = () tuple()
}`, []string{
			"reduce_scatter_unstated.hlo:13:3: shape f32[2] of %replicas disagrees with its operand f32[16] scattered along dimension 0 over groups of 4 devices, which gives f32[4]",
		}},
		// XLA's VerifyChannels: a send or receive has one user, and its -done has its channel_id and
		// is_host_transfer; a channel shared by a send and an all-reduce (ar3), or by collectives of two
		// kinds (cp, ar4), is accepted, as the newest release accepts it.
		{"channels", `
HloModule m

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  p = f32[8] parameter(0)
  tok = token[] after-all()
  snd = (f32[8], u32[], token[]) send(p, tok), channel_id=1
  snd-done = token[] send-done(snd), channel_id=1
  rcv = (f32[8], u32[], token[]) recv(tok), channel_id=1
  rcv-done = (f32[8], token[]) recv-done(rcv), channel_id=1
  ar1 = f32[8] all-reduce(p), channel_id=2, replica_groups={}, to_apply=add
  ar2 = f32[8] all-reduce(p), channel_id=2, replica_groups={}, to_apply=add
  ar3 = f32[8] all-reduce(p), channel_id=1, replica_groups={}, to_apply=add
  cp = f32[8] collective-permute(p), channel_id=3, source_target_pairs={{0,1}}
  ar4 = f32[8] all-reduce(p), channel_id=3, replica_groups={}, to_apply=add
  host = (f32[8], u32[], token[]) send(p, tok), channel_id=4, is_host_transfer=true
  host-done = token[] send-done(host), channel_id=4
  other = (f32[8], u32[], token[]) send(p, tok), channel_id=5
  other-done = token[] send-done(other), channel_id=6
  unused = (f32[8], u32[], token[]) recv(tok), channel_id=7
  ROOT t = () tuple()
}`, []string{
			"channels.hlo:23:3: send-done %host-done continues %host, which has another is_host_transfer",
			"channels.hlo:25:3: send-done %other-done continues %other of channel_id=5 but has another channel_id",
			"channels.hlo:26:3: recv %unused needs one user, has 0",
		}},
		// The root send of an asynchronous computation needs no user; that of a called one does.
		{"channels_async", `
HloModule m

wrapped_send {
  a = f32[8] parameter(0)
  t = token[] parameter(1)
  ROOT snd = (f32[8], u32[], token[]) send(a, t), channel_id=8
}

called_send {
  a = f32[8] parameter(0)
  t = token[] parameter(1)
  ROOT snd2 = (f32[8], u32[], token[]) send(a, t), channel_id=9
}

ENTRY main {
  p = f32[8] parameter(0)
  tok = token[] after-all()
  st = ((f32[8], token[]), (f32[8], u32[], token[]), s32[]) async-start(p, tok), calls=wrapped_send
  sd = (f32[8], u32[], token[]) async-done(st)
  ROOT c = (f32[8], u32[], token[]) call(p, tok), to_apply=called_send
}`, []string{"channels_async.hlo:13:3: send %snd2 needs one user, has 0"}},
		// Floating-point operands of different precisions mix in select as in add (XLA's verifier with
		// allow_mixed_precision): the result takes the higher precision.
		{"mixed_precision", `
HloModule m

ENTRY main {
  c = pred[32] parameter(0)
  a = f32[32] parameter(1)
  b = bf16[32] parameter(2)
  sum = f32[32] add(a, b)
  sel = f32[32] select(c, a, b)
  low = bf16[32] select(c, a, b)
  ROOT t = (f32[32], f32[32], bf16[32]) tuple(sum, sel, low)
}`, []string{"mixed_precision.hlo:10:3: shape bf16[32] of %low disagrees with its operands: select of pred[32], f32[32] and bf16[32] gives f32[32]"}},
		// An async-done continues its start's operation; a callee runs on its caller's thread.
		{"async_threads", `
HloModule m

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}, execution_thread="side"

fused {
  ROOT p = f32[4] parameter(0)
}, execution_thread="side"

ENTRY main {
  p = f32[4] parameter(0)
  s1 = ((f32[4]), f32[4], u32[]) custom-call-start(p), custom_call_target="foo"
  d1 = f32[4] custom-call-done(s1), custom_call_target="bar"
  s2 = ((f32[4]), f32[4], u32[]) custom-call-start(p), custom_call_target="foo", async_group_id=1
  d2 = f32[4] custom-call-done(s2), custom_call_target="foo"
  s3 = ((f32[4]), f32[4], u32[]) custom-call-start(p), custom_call_target="foo", async_execution_thread="side"
  d3 = f32[4] custom-call-done(s3), custom_call_target="foo", async_execution_thread="side"
  f = f32[4] fusion(p), kind=kLoop, calls=fused
  c = f32[4] custom-call(p), custom_call_target="x", called_computations={fused}
  ROOT r = f32[4] all-reduce(p), replica_groups={}, to_apply=add
}`, []string{
			"async_threads.hlo:17:3: async-done %d1 continues %s1, which has another custom_call_target",
			"async_threads.hlo:19:3: async-done %d2 continues %s2, which has another async_group_id",
			"async_threads.hlo:22:3: %f calls %fused of execution thread \"side\" from computation %main of thread \"main\"",
			"async_threads.hlo:24:3: %r calls %add of execution thread \"side\" from computation %main of thread \"main\"",
		}},
		{"device_counts", `
HloModule m, replica_count=0, num_partitions=-2

ENTRY main {
  ROOT p = f32[8] parameter(0)
}`, []string{"device_counts.hlo:2:1: replica_count=0: a module runs on at least one"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := parser.ParseString(tt.name+".hlo", tt.src)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			if err := hlo.Verify(m); err != nil {
				for _, e := range err.(scanner.ErrorList) {
					got = append(got, e.Error())
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("Verify:\n\t%q\nwant:\n\t%q", got, tt.want)
			}
		})
	}
}

// invalidByDesign lists the corpus files that hold modules XLA's verifier rejects too, with the reason.
// Every module of every other file must verify.
var invalidByDesign = map[string]string{
	"xla__hlo__builder__tests__math_next_after.hlo": "the second module's entry_computation_layout gives f32 " +
		"parameters and result to a computation of f8e5m2fnuz ones (XLA's VerifyEntryComputationLayout rejects it)",
	"xla__hlo__tools__tests__generate_hlo_test_checks_test_input.hlo": "a test of a text tool: it calls a " +
		"computation of f32[] parameters with f32[4] operands",
	"xla__hlo__tools__tests__generate_hlo_test_checks_test_output.hlo": "the same module as the tool's input: " +
		"f32[4] operands for f32[] parameters",
	"xla__hlo__transforms__tests__operand_upcaster.hlo": "dot(s8[8], s16[8]) with no contracting dimensions is " +
		"an outer product, s32[8,8], but is written s32[8]",
	"xla__hlo__transforms__tests__rewrite_bf16_conv_to_onednn.hlo": "the convolution's shape bf16[4,4,5,5,32] is " +
		"not what its operands and window give (bf16[8,0,5,5,32])",
	"xla__hlo__translate__hlo_to_mhlo__tests__import.hlo": "importer tests of invalid HLO: a 2x2 kernel with a 3x3 " +
		"window, map, reduce and sort computations that return tuples where XLA wants scalars",
	"xla__hlo__translate__hlo_to_mhlo__tests__while.hlo": "broadcast(f32[1]) to f32[3] with dimensions={0}: HLO's " +
		"broadcast does not expand size-1 dimensions",
	"xla__tools__print_indexing_test.hlo": "passes s32[1024] to the fused computation's s32[] parameter 1",
	"xla__hlo__translate__hlo_to_mhlo__tests__import_async.hlo": "importer tests of asynchronous collectives whose " +
		"shapes XLA's verifier rejects: an all-gather-start and a collective-permute-start of array shape, an " +
		"all-reduce-start of one operand returning a tuple",
	"xla__hlo__translate__hlo_to_mhlo__tests__module_attributes.hlo": "an importer test: its input_output_alias " +
		"aliases the s32[2,3] output to the s32[] parameter (XLA's HloInputOutputAliasConfig::Verify rejects it)",
}

// corpusFiles lists the HLO files of the shared corpus, the FP8 rewrite inputs and the examples.
func corpusFiles(t *testing.T) []string {
	dir := shared.Dir(t)
	var files []string
	filepath.WalkDir(filepath.Join(dir, "corpus", "hlo"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return nil
	})
	for _, pattern := range []string{"corpus/fp8/*.hlo", "examples/*.hlo"} {
		more, _ := filepath.Glob(filepath.Join(dir, filepath.FromSlash(pattern)))
		files = append(files, more...)
	}
	if len(files) == 0 {
		t.Fatalf("no HLO files under %s", dir)
	}
	return files
}

// TestVerifyCorpus verifies every module of every corpus file: all must verify but those of the files
// invalid by design, which must each have a module that fails.
func TestVerifyCorpus(t *testing.T) {
	modules := 0
	for _, path := range corpusFiles(t) {
		base := filepath.Base(path)
		src, err := shared.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		mods, err := parser.ParseFile(token.NewFileSet(), base, src)
		if err != nil {
			// Parsing is tested by package parser; files it cannot read are skipped here.
			t.Logf("%s: not parsed: %.200v", base, err)
		}
		failed := false
		for _, m := range mods {
			modules++
			err := hlo.Verify(m)
			if err == nil {
				continue
			}
			var lines []string
			for _, e := range err.(scanner.ErrorList) {
				lines = append(lines, e.Error())
			}
			if len(lines) == 0 {
				continue
			}
			failed = true
			if _, ok := invalidByDesign[base]; ok {
				continue
			}
			if len(lines) > 5 {
				lines = append(lines[:5], "...")
			}
			t.Errorf("%s", strings.Join(lines, "\n"))
		}
		if reason, ok := invalidByDesign[base]; ok && !failed && len(mods) > 0 {
			t.Errorf("%s verifies, but is listed as invalid by design (%s)", base, reason)
		}
	}
	t.Logf("%d modules verified", modules)
}

// BenchmarkVerify verifies the largest module of the corpus.
func BenchmarkVerify(b *testing.B) {
	path := shared.Path(b, "corpus", "hlo", "xla__tools__benchmarks__hlo__hlo_mixtral_8x7b_bf16_1x8.hlo.gz")
	src, err := shared.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	mods, err := parser.ParseFile(token.NewFileSet(), filepath.Base(path), src)
	if err != nil || len(mods) != 1 {
		b.Fatalf("%d modules, %v", len(mods), err)
	}
	n := 0
	for _, c := range mods[0].Computations {
		n += len(c.Instructions)
	}
	for b.Loop() {
		hlo.Verify(mods[0])
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/instruction")
}

// TestVerifyNeverPanics rewires operands and rewrites attributes of corpus modules at random: InferShape
// and Verify must report the damage, never panic.
func TestVerifyNeverPanics(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	seed := uint64(1)
	rnd := func(n int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int((seed >> 33) % uint64(n))
	}
	ints := func() []int64 {
		l := make([]int64, rnd(5))
		for i := range l {
			l[i] = int64(rnd(8) - 2)
		}
		return l
	}
	mutate := func(v hlo.Value) hlo.Value {
		switch v.(type) {
		case hlo.Ints:
			return hlo.Ints(ints())
		case hlo.Int:
			return hlo.Int(rnd(8) - 2)
		case hlo.Slice:
			l := make(hlo.Slice, rnd(4))
			for i := range l {
				l[i] = hlo.SliceDim{Start: int64(rnd(8) - 2), Limit: int64(rnd(8) - 2), Stride: int64(rnd(4) - 1)}
			}
			return l
		case hlo.Padding:
			l := make(hlo.Padding, rnd(4))
			for i := range l {
				l[i] = hlo.PadDim{Low: int64(rnd(8) - 4), High: int64(rnd(8) - 4), Interior: int64(rnd(4) - 1)}
			}
			return l
		case hlo.Window:
			l := make(hlo.Window, rnd(4))
			for i := range l {
				l[i] = hlo.WindowDim{Size: int64(rnd(5) - 1), Stride: int64(rnd(4) - 1), PadLow: int64(rnd(5) - 2)}
			}
			return l
		case *hlo.ConvDims:
			return &hlo.ConvDims{InputBatch: int64(rnd(5) - 1), InputFeature: int64(rnd(5) - 1), InputSpatial: ints(),
				KernelInputFeature: int64(rnd(5) - 1), KernelOutput: int64(rnd(5) - 1), KernelSpatial: ints(),
				OutputBatch: int64(rnd(5) - 1), OutputFeature: int64(rnd(5) - 1), OutputSpatial: ints()}
		}
		return nil
	}
	for _, path := range corpusFiles(t) {
		src, err := shared.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		mods, _ := parser.ParseFile(token.NewFileSet(), filepath.Base(path), src)
		for _, m := range mods {
			for _, c := range m.Computations {
				for _, in := range c.Instructions {
					try := func(what string) {
						defer func() {
							if r := recover(); r != nil {
								t.Errorf("%s: %%%s with %s: panic: %v", filepath.Base(path), in.Name, what, r)
							}
						}()
						hlo.InferShape(in)
					}
					if n := in.NumOperands(); n > 0 {
						i := rnd(n)
						old := in.Operand(i)
						in.SetOperand(i, c.Instructions[rnd(len(c.Instructions))])
						try("a rewired operand")
						in.SetOperand(i, old)
					}
					for i, a := range in.Attrs {
						if v := mutate(a.Value); v != nil {
							in.Attrs[i].Value = v
							try(a.Name + " rewritten")
							in.Attrs[i].Value = a.Value
						}
					}
				}
			}
			// Damage one instruction for good and verify the whole module.
			c := m.Entry
			if len(c.Instructions) > 1 {
				in := c.Instructions[rnd(len(c.Instructions))]
				if in.NumOperands() > 0 {
					in.SetOperand(0, c.Instructions[rnd(len(c.Instructions))])
				}
				for i, a := range in.Attrs {
					if v := mutate(a.Value); v != nil {
						in.Attrs[i].Value = v
					}
				}
			}
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s: Verify: panic: %v", filepath.Base(path), r)
					}
				}()
				hlo.Verify(m)
			}()
		}
	}
}

// TestVerifyLayoutFields checks what XLA's layout validation refuses in a layout the HLO text parser cannot
// be given but an HloModuleProto can: a tile of size 0, a negative element size, a signed index type, and
// a physical shape on a dense array.
func TestVerifyLayoutFields(t *testing.T) {
	for _, tc := range []struct{ layout, want string }{
		{"minor_to_major: 0 tiles { dimensions: 8 } tiles { dimensions: 0 }", "has a tile with no dimension or one of size 0"},
		{"minor_to_major: 0 tiles { }", "has a tile with no dimension or one of size 0"},
		{"minor_to_major: 0 element_size_in_bits: -4", "has a negative element size -4"},
		{"minor_to_major: 0 dim_level_types: DIM_COMPRESSED index_primitive_type: S32", "has index or pointer type s32; they are unsigned integer types"},
		{"minor_to_major: 0 physical_shape { element_type: U8 dimensions: 4 layout { minor_to_major: 0 } }", "has an index type, a pointer type or a physical shape, but the array is not sparse"},
		{"minor_to_major: 0 dim_level_types: DIM_COMPRESSED index_primitive_type: U32 pointer_primitive_type: U64", ""},
	} {
		src := `name: "m" entry_computation_name: "e" computations { name: "e" id: 1 root_id: 1
  instructions { name: "p" id: 1 opcode: "parameter" shape { element_type: F32 dimensions: 4 layout { ` + tc.layout + ` } } } }`
		mods, err := parser.ParseFile(token.NewFileSet(), "l.pbtxt", []byte(src))
		if err != nil {
			t.Errorf("%s: %v", tc.layout, err)
			continue
		}
		err = hlo.Verify(mods[0])
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.layout, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), "the layout of %p "+tc.want)):
			t.Errorf("%s: error %v, want %q", tc.layout, err, tc.want)
		}
	}
}

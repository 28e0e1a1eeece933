package hlo

import "fmt"

// collectiveRules gives, for each collective whose replica_groups XLA's verifier checks, whether it wants
// its groups of one size and whether it reads use_global_device_ids (all-to-all passes no such flag, so
// that a channel makes it cross-partition). A collective-broadcast's groups may leave devices out (they
// receive zeros), as StableHLO's interpreter tests show.
var collectiveRules = map[Opcode]struct{ uniform, globalIDs bool }{
	OpAllReduce:      {false, true},
	OpAllReduceStart: {false, true},
	OpAllGather:      {true, true},
	OpAllGatherStart: {true, true},
	OpReduceScatter:  {true, true},
	OpAllToAll:       {true, false},
}

// collective checks the device groups of a collective as XLA's verifier does (CheckReplicaGroups,
// GetCollectiveOpGroupMode): an iota list is an array of devices (IotaList.Problem) of two dimensions,
// and is checked as the groups it expands to; every explicit group is non-empty, no id is named twice and the ids are
// 0..n-1; where the module runs on more than one device n is the number of replicas, partitions or both
// that the group mode counts; the groups of all-gather, reduce-scatter and all-to-all are of one size;
// use_global_device_ids needs a channel_id and named groups. A collective-permute names each source and
// each target once.
func (v *verifier) collective(in *Instruction) {
	if in.Opcode == OpCollectivePermute || in.Opcode == OpCollectivePermuteStart {
		v.permutePairs(in)
		return
	}
	rg, _ := in.Attr("replica_groups").(*ReplicaGroups)
	if rg != nil && rg.Iota != nil {
		if len(rg.Iota.Dims) != 2 {
			v.errorAt(in, "the iota replica groups of %%%s are [%s]<=...; they take two numbers, [groups,size]", in.Name, JoinInts(rg.Iota.Dims))
			return
		}
		if msg := rg.Iota.Problem(); msg != "" {
			v.errorAt(in, "the iota replica groups of %%%s: the list %s", in.Name, msg)
			return
		}
	}
	rule, ok := collectiveRules[in.Opcode]
	if !ok {
		return
	}
	_, channel := in.Int("channel_id")
	global := false
	if b, ok := in.Attr("use_global_device_ids").(Bool); ok && rule.globalIDs {
		global = bool(b)
	}
	if in.Opcode == OpReduceScatter {
		// As in XLA, the result is checked once the groups are found well formed.
		before := len(v.errs)
		defer func() {
			if len(v.errs) == before {
				v.reduceScatter(in, channel, global)
			}
		}()
	}
	if global && !channel {
		v.errorAt(in, "%%%s has use_global_device_ids but no channel_id: XLA has no such group mode", in.Name)
		return
	}
	var groups [][]int64
	if rg != nil {
		groups = rg.Groups
		if rg.Iota != nil {
			// The checks below hold for an iota list too, expanded, as XLA's verifier expands it; a
			// list too long to expand here is one no module runs on.
			groups, _ = rg.Iota.Groups(1 << 20)
		}
	}
	if global && (rg == nil || len(groups) == 0 && rg.Iota == nil && rg.Mesh == "") {
		v.errorAt(in, "%%%s uses global device ids, which need replica_groups to name the devices", in.Name)
		return
	}
	if len(groups) == 0 {
		return
	}
	seen := make(map[int64]bool)
	for _, g := range groups {
		if len(g) == 0 {
			v.errorAt(in, "%%%s has an empty replica group", in.Name)
			return
		}
		for _, id := range g {
			if seen[id] {
				v.errorAt(in, "%%%s names device %d in two replica groups", in.Name, id)
				return
			}
			seen[id] = true
		}
	}
	n := int64(len(seen))
	for id := range n {
		if !seen[id] {
			v.errorAt(in, "%%%s names %d devices in its replica groups but not device %d", in.Name, n, id)
			return
		}
	}
	replicas := v.moduleCount("replica_count")
	partitions := v.moduleCount("num_partitions")
	var mode string
	want := int64(1)
	switch {
	case !channel:
		mode, want = "across replicas", replicas
	case global:
		devices, ok := mulInt64(replicas, partitions)
		if !ok {
			v.errorAt(in, "%%%s groups flattened device ids of %d replicas times %d partitions, past the int64 range", in.Name, replicas, partitions)
			return
		}
		mode, want = "across flattened device ids", devices
	case rule.globalIDs:
		mode, want = "across replicas and partitions", replicas
	default:
		mode, want = "across partitions", partitions
	}
	if want != 1 && n != want {
		v.errorAt(in, "the replica groups of %%%s name %d devices; grouping %s, the module's %d are needed", in.Name, n, mode, want)
		return
	}
	if rule.uniform {
		for _, g := range groups[1:] {
			if len(g) != len(groups[0]) {
				v.errorAt(in, "the replica groups of %%%s differ in size (%d and %d); %s takes groups of one size", in.Name, len(groups[0]), len(g), in.Opcode)
				return
			}
		}
	}
}

// reduceScatter checks a reduce-scatter's result as XLA's verifier does (ShapeVerifier::HandleReduceScatter
// and ShapeInference::InferReduceScatterShape, xla/service/hlo_verifier.cc and
// xla/service/shape_inference.cc at openxla/xla 008038b84f6c): the scatter dimension is one of each
// operand's and each result's; the shard count, the first operand's size along it over the first result's
// (rounded up), equals the size of a device group where the module runs on more than one device; and each
// result is its operand with that dimension divided by the shard count, which must divide it. A group is
// replica_groups' first, or, where none is named, every replica (times the partitions when a channel_id
// without use_global_device_ids groups across replicas and partitions). channel and global say whether
// it has a channel_id and use_global_device_ids, as collective read them.
func (v *verifier) reduceScatter(in *Instruction, channel, global bool) {
	dims := in.Ints("dimensions")
	if len(dims) != 1 || len(in.operands) == 0 {
		return // CheckOperation reports it
	}
	d := dims[0]
	results := []Shape{in.Shape}
	if len(in.operands) > 1 {
		if !in.Shape.IsTuple() || len(in.Shape.Tuple) != len(in.operands) {
			v.errorAt(in, "%%%s has %d operands, so its shape must be a tuple of %d results, not %s", in.Name, len(in.operands), len(in.operands), in.Shape.String())
			return
		}
		results = in.Shape.Tuple
	}
	for i, o := range in.operands {
		if !o.Shape.IsArray() {
			v.errorAt(in, "operand %d of %%%s is %s, not an array", i, in.Name, o.Shape.String())
			return
		}
		if d < 0 || d >= int64(o.Shape.Rank()) {
			v.errorAt(in, "%%%s scatters dimension %d, but its operand %%%s is %s, of rank %d", in.Name, d, o.Name, o.Shape.String(), o.Shape.Rank())
			return
		}
		if !results[i].IsArray() || d >= int64(results[i].Rank()) {
			v.errorAt(in, "%%%s scatters dimension %d, but its result %s has no such dimension", in.Name, d, results[i].String())
			return
		}
	}
	in0, out0 := in.operands[0].Shape.Dims[d], results[0].Dims[d]
	if out0 <= 0 {
		v.errorAt(in, "%%%s scatters dimension %d of %s into %s: a shard of size %d", in.Name, d, in.operands[0].Shape.String(), results[0].String(), out0)
		return
	}
	shards := (in0 + out0 - 1) / out0
	if group := v.scatterGroup(in, channel, global); group > 1 && shards != group {
		want := in.operands[0].Shape.Clone()
		if in0%group != 0 {
			v.errorAt(in, "%%%s scatters dimension %d of %s over groups of %d devices, which do not divide it", in.Name, d, want.String(), group)
			return
		}
		want.Dims[d] = in0 / group
		v.errorAt(in, "shape %s of %%%s disagrees with its operand %s scattered along dimension %d over groups of %d devices, which gives %s", results[0].String(), in.Name, in.operands[0].Shape.String(), d, group, want.String())
		return
	}
	for i, o := range in.operands {
		want := o.Shape.Clone()
		if want.Dims[d]%shards != 0 {
			v.errorAt(in, "%%%s scatters dimension %d of %s in %d shards, which do not divide it", in.Name, d, o.Shape.String(), shards)
			return
		}
		want.Dims[d] /= shards
		if !compatible(results[i], want) {
			v.errorAt(in, "shape %s of %%%s disagrees with its operand %s scattered along dimension %d in %d shards, which gives %s", results[i].String(), in.Name, o.Shape.String(), d, shards, want.String())
			return
		}
	}
}

// scatterGroup is XLA's GetSubgroupSize for a reduce-scatter: the number of devices in its first replica
// group, or, with none named, the module's replicas (times its partitions in the mode that groups across
// replicas and partitions). It is 0, unknown, when the groups are named by a mesh, whose sizes Octet does
// not work out, or when the size needs a replica_count or num_partitions the module's header does not
// state: XLA's verifier takes them from the module's configuration, which text written by hand (XLA's
// own tests) leaves to the code that parses it.
func (v *verifier) scatterGroup(in *Instruction, channel, global bool) int64 {
	size, named := v.statedCount("replica_count")
	if rg, ok := in.Attr("replica_groups").(*ReplicaGroups); ok && rg != nil {
		switch {
		case len(rg.Groups) > 0:
			size, named = int64(len(rg.Groups[0])), true
		case rg.Iota != nil && len(rg.Iota.Dims) > 0:
			size, named = rg.Iota.Dims[len(rg.Iota.Dims)-1], true
		case rg.Mesh != "":
			return 0
		}
	}
	if channel && !global {
		partitions, stated := v.statedCount("num_partitions")
		size, named = size*partitions, named && stated
	}
	if !named {
		return 0
	}
	return size
}

// statedCount returns the module's replica_count or num_partitions (1 when not given) and whether its
// header states it.
func (v *verifier) statedCount(name string) (int64, bool) {
	_, stated := v.m.Attr(name).(Int)
	return v.moduleCount(name), stated
}

// moduleCount returns the module's replica_count or num_partitions, 1 when not given.
func (v *verifier) moduleCount(name string) int64 {
	if n, ok := v.m.Attr(name).(Int); ok && n > 0 {
		return int64(n)
	}
	return 1
}

// permutePairs checks that a collective-permute of one operand sends from each source and to each target
// once.
func (v *verifier) permutePairs(in *Instruction) {
	pairs, _ := in.Attr("source_target_pairs").(IntLists)
	if len(in.operands) != 1 {
		return // the combined form may send one device several slices
	}
	sources, targets := map[int64]bool{}, map[int64]bool{}
	for _, p := range pairs {
		if len(p) != 2 {
			v.errorAt(in, "%%%s has a source-target pair of %d numbers", in.Name, len(p))
			return
		}
		for i, m := range []map[int64]bool{sources, targets} {
			if p[i] < 0 {
				v.errorAt(in, "%%%s has a negative device %d in source_target_pairs", in.Name, p[i])
				return
			}
			if m[p[i]] {
				v.errorAt(in, "%%%s names %s %d twice in source_target_pairs", in.Name, []string{"source", "target"}[i], p[i])
				return
			}
			m[p[i]] = true
		}
	}
}

// moduleCountsError checks the module's replica_count and num_partitions: at least 1.
func moduleCountsError(m *Module) string {
	for _, name := range []string{"replica_count", "num_partitions"} {
		if n, ok := m.Attr(name).(Int); ok && n < 1 {
			return fmt.Sprintf("%s=%d: a module runs on at least one", name, n)
		}
	}
	return ""
}

// thread returns the execution thread of c: its execution_thread attribute, "main" when it has none.
func thread(c *Computation) string {
	if s, ok := findAttr(c.Attrs, "execution_thread").(String); ok {
		return string(s)
	}
	return "main"
}

// threads checks, as XLA's verifier does, that a computation called by anything but an asynchronous
// operation runs on the thread of its caller: a fusion, a while body or a reducer runs where its caller
// runs. As in XLA's default verifier, a custom call's computations may run on other threads.
func (v *verifier) threads(c *Computation, in *Instruction) {
	switch in.Opcode {
	case OpAsyncStart, OpAsyncUpdate, OpAsyncDone, OpCustomCall:
		return
	}
	for _, callee := range in.Called() {
		if callee != nil && thread(callee) != thread(c) {
			v.errorAt(in, "%%%s calls %%%s of execution thread %q from computation %%%s of thread %q", in.Name, callee.Name, thread(callee), c.Name, thread(c))
			return
		}
	}
}

// asyncPair checks that an async-update or async-done continues the operation of its operand: the same
// wrapped opcode and called computation, the same target and execution thread where both write them, and
// the same group id (or none on both).
func (v *verifier) asyncPair(in *Instruction) {
	if in.Opcode != OpAsyncUpdate && in.Opcode != OpAsyncDone || len(in.operands) != 1 || in.operands[0] == nil {
		return
	}
	o := in.operands[0]
	if o.Opcode != OpAsyncStart && o.Opcode != OpAsyncUpdate {
		return // InferShape reports it
	}
	differs := func(what string) {
		v.errorAt(in, "%s %%%s continues %%%s, which has another %s", in.Opcode, in.Name, o.Name, what)
	}
	switch {
	case o.AsyncWrapped != in.AsyncWrapped:
		differs("wrapped opcode")
	case o.CalledComputation("calls") != nil && in.CalledComputation("calls") != nil && o.CalledComputation("calls") != in.CalledComputation("calls"):
		differs("called computation")
	case both(o, in, "custom_call_target") && o.Str("custom_call_target") != in.Str("custom_call_target"):
		differs("custom_call_target")
	case both(o, in, "async_execution_thread") && o.Str("async_execution_thread") != in.Str("async_execution_thread"):
		differs("async_execution_thread")
	default:
		og, oHas := o.Int("async_group_id")
		ig, iHas := in.Int("async_group_id")
		if oHas != iHas || og != ig {
			differs("async_group_id")
		}
	}
}

// both reports whether a and b both have the attribute name.
func both(a, b *Instruction, name string) bool { return a.Attr(name) != nil && b.Attr(name) != nil }

// channels checks the sends and receives of the module as XLA's VerifyChannels does (xla/service/
// hlo_verifier.cc at openxla/xla cb0929651519): one with a channel_id has one user, unless it is the root
// of an asynchronous computation, and where that user is its send-done or recv-done, both have the same
// channel_id and is_host_transfer. Channels shared by instructions of different kinds are accepted, as
// that release accepts them (earlier ones refused a channel carrying sends and receives and anything
// else, or collectives of two opcodes, behind verify_unique_channel_ids, which XLA's GPU pipeline turns
// off).
func (v *verifier) channels() {
	async := map[*Computation]bool{}
	for _, c := range v.m.Computations {
		if c == nil || !v.comps[c] {
			continue
		}
		for _, in := range c.Instructions {
			if in != nil && (in.Opcode == OpAsyncStart || in.Opcode == OpAsyncUpdate || in.Opcode == OpAsyncDone) {
				if callee := in.CalledComputation("calls"); callee != nil {
					async[callee] = true
				}
			}
		}
	}
	for _, c := range v.m.Computations {
		if c == nil || !v.comps[c] {
			continue
		}
		for _, in := range c.Instructions {
			if in == nil || in.Opcode != OpSend && in.Opcode != OpRecv {
				continue
			}
			if _, has := in.Int("channel_id"); has {
				v.sendRecvUser(in, c.Root == in && async[c])
			}
		}
	}
}

// sendRecvUser checks that a send or receive is continued by one user, and that a send-done or recv-done
// that continues it has its channel_id and is_host_transfer. asyncRoot is whether it is the root of an
// asynchronous computation, which may leave it unused.
func (v *verifier) sendRecvUser(in *Instruction, asyncRoot bool) {
	if asyncRoot {
		return
	}
	if len(in.users) != 1 {
		v.errorAt(in, "%s %%%s needs one user, has %d", in.Opcode, in.Name, len(in.users))
		return
	}
	done := OpSendDone
	if in.Opcode == OpRecv {
		done = OpRecvDone
	}
	u := in.users[0]
	if u == nil || u.Opcode != done {
		return
	}
	id, _ := in.Int("channel_id")
	if uid, ok := u.Int("channel_id"); !ok || uid != id {
		v.errorAt(u, "%s %%%s continues %%%s of channel_id=%d but has another channel_id", done, u.Name, in.Name, id)
		return
	}
	host := func(x *Instruction) bool { b, _ := x.Attr("is_host_transfer").(Bool); return bool(b) }
	if host(in) != host(u) {
		v.errorAt(u, "%s %%%s continues %%%s, which has another is_host_transfer", done, u.Name, in.Name)
	}
}

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
// GetCollectiveOpGroupMode): every explicit group is non-empty, no id is named twice and the ids are
// 0..n-1; where the module runs on more than one device n is the number of replicas, partitions or both
// that the group mode counts; the groups of all-gather, reduce-scatter and all-to-all are of one size;
// use_global_device_ids needs a channel_id and named groups. A collective-permute names each source and
// each target once.
func (v *verifier) collective(in *Instruction) {
	if in.Opcode == OpCollectivePermute || in.Opcode == OpCollectivePermuteStart {
		v.permutePairs(in)
		return
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
	if global && !channel {
		v.errorAt(in, "%%%s has use_global_device_ids but no channel_id: XLA has no such group mode", in.Name)
		return
	}
	rg, _ := in.Attr("replica_groups").(*ReplicaGroups)
	var groups [][]int64
	if rg != nil {
		groups = rg.Groups
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
		mode, want = "across flattened device ids", replicas*partitions
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

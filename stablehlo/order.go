package stablehlo

import (
	"sort"

	"octet/hlo"
)

// The converted module is written as XLA writes the module its translation makes: each computation's
// instructions in XLA's post order, and each instruction's attributes in the order XLA prints them.

// postOrder puts the instructions of comp in the order XLA prints a computation
// (HloComputation::MakeInstructionPostOrder): from each instruction without users, in the order they were
// made, a depth-first walk that places an instruction after its operands, first operand first.
func postOrder(comp *hlo.Computation) {
	const (
		visiting = 1
		visited  = 2
	)
	state := make(map[*hlo.Instruction]uint8, len(comp.Instructions))
	out := make([]*hlo.Instruction, 0, len(comp.Instructions))
	var stack []*hlo.Instruction
	walk := func(root *hlo.Instruction) {
		stack = append(stack[:0], root)
		for len(stack) > 0 {
			cur := stack[len(stack)-1]
			if s := state[cur]; s != 0 {
				stack = stack[:len(stack)-1]
				if s == visiting {
					out = append(out, cur)
					state[cur] = visited
				}
				continue
			}
			state[cur] = visiting
			ops := cur.Operands()
			for i := len(ops) - 1; i >= 0; i-- {
				if state[ops[i]] == 0 {
					stack = append(stack, ops[i])
				}
			}
		}
	}
	for _, in := range comp.Instructions {
		if len(in.Users()) == 0 {
			walk(in)
		}
	}
	if comp.Root != nil && state[comp.Root] == 0 {
		walk(comp.Root)
	}
	if len(out) == len(comp.Instructions) {
		comp.Instructions = out
	}
}

// attrOrder ranks the attributes of some opcodes in the order XLA prints them, where it differs from the
// order the conversion sets them.
var attrOrder = map[hlo.Opcode][]string{
	hlo.OpAllGather:           {"channel_id", "replica_groups", "constrain_layout", "dimensions", "use_global_device_ids"},
	hlo.OpAllReduce:           {"channel_id", "replica_groups", "constrain_layout", "use_global_device_ids"},
	hlo.OpReduceScatter:       {"channel_id", "replica_groups", "constrain_layout", "use_global_device_ids", "dimensions"},
	hlo.OpAllToAll:            {"channel_id", "replica_groups", "constrain_layout", "dimensions"},
	hlo.OpCollectiveReduce:    {"channel_id", "replica_groups", "constrain_layout"},
	hlo.OpCollectivePermute:   {"channel_id", "source_target_pairs"},
	hlo.OpCollectiveBroadcast: {"channel_id", "replica_groups"},
	hlo.OpSend:                {"channel_id", "is_host_transfer"},
	hlo.OpSendDone:            {"channel_id", "is_host_transfer"},
	hlo.OpRecv:                {"channel_id", "is_host_transfer"},
	hlo.OpRecvDone:            {"channel_id", "is_host_transfer"},
	hlo.OpGather: {"offset_dims", "collapsed_slice_dims", "start_index_map", "operand_batching_dims",
		"start_indices_batching_dims", "index_vector_dim", "slice_sizes", "indices_are_sorted"},
	hlo.OpScatter: {"update_window_dims", "inserted_window_dims", "scatter_dims_to_operand_dims",
		"input_batching_dims", "scatter_indices_batching_dims", "index_vector_dim", "indices_are_sorted", "unique_indices"},
	hlo.OpDot:         {"lhs_batch_dims", "lhs_contracting_dims", "rhs_batch_dims", "rhs_contracting_dims", "operand_precision", "algorithm"},
	hlo.OpConvolution: {"window", "dim_labels", "feature_group_count", "batch_group_count", "operand_precision"},
	hlo.OpCustomCall: {"window", "dim_labels", "feature_group_count", "batch_group_count", "custom_call_target",
		"operand_layout_constraints", "custom_call_has_side_effect", "literal", "output_to_operand_aliasing",
		"schedule", "api_version"},
}

// commonOrder ranks the attributes every instruction prints after its own: called computations, then
// sharding, frontend attributes, control predecessors, metadata, backend config.
var commonOrder = map[string]int{
	"to_apply": 200, "calls": 200, "condition": 201, "body": 202, "select": 201, "scatter": 202,
	"true_computation": 203, "false_computation": 204, "branch_computations": 205, "called_computations": 206,
	"is_composite": 210, "sharding": 300, "frontend_attributes": 310, "control-predecessors": 400,
	"metadata": 500, "backend_config": 600,
}

// orderAttrs sorts the attributes of in into the order XLA prints them; those it does not rank keep
// their order, after the ones its opcode ranks and before the common ones.
func orderAttrs(in *hlo.Instruction) {
	if len(in.Attrs) < 2 {
		return
	}
	own := attrOrder[in.Opcode]
	rank := func(name string) int {
		for i, n := range own {
			if n == name {
				return i
			}
		}
		if r, ok := commonOrder[name]; ok {
			return r
		}
		return 100
	}
	sort.SliceStable(in.Attrs, func(i, j int) bool { return rank(in.Attrs[i].Name) < rank(in.Attrs[j].Name) })
}

// finish orders the instructions and attributes of every computation of m as XLA prints them.
func finish(m *hlo.Module) {
	for _, comp := range m.Computations {
		postOrder(comp)
		for _, in := range comp.Instructions {
			orderAttrs(in)
		}
	}
}

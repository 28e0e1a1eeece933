package stablehlo

import (
	"octet/hlo"
)

func init() {
	special["stablehlo.all_reduce"] = reducingCollective(hlo.OpAllReduce)
	special["stablehlo.collective_reduce"] = reducingCollective(hlo.OpCollectiveReduce)
	special["stablehlo.reduce_scatter"] = reducingCollective(hlo.OpReduceScatter)
	special["stablehlo.all_gather"] = (*converter).allGather
	special["stablehlo.all_to_all"] = (*converter).allToAll
	special["stablehlo.collective_permute"] = (*converter).collectivePermute
	special["stablehlo.collective_broadcast"] = (*converter).collectiveBroadcast
	special["interpreter.run_parallel"] = (*converter).runParallel
}

// RunParallelTarget is the custom-call target of the StableHLO interpreter's interpreter.run_parallel:
// its called computations are the programs of a grid of devices, row by row (one row per replica, one
// column per partition); see runParallel.
const RunParallelTarget = "interpreter.run_parallel"

// collectiveAttrs sets the replica groups, the channel and use_global_device_ids of a collective.
func (c *converter) collectiveAttrs(op *Op, in *hlo.Instruction) {
	if st, ok := op.Attr("replica_groups").(StructAttr); ok && st.Name == "stablehlo.replica_group_mesh_axes" {
		in.SetAttr("replica_groups", &hlo.ReplicaGroups{Groups: c.meshAxesGroups(op, st)})
	} else if a := op.Attr("replica_groups"); a != nil {
		d, ok := a.(*DenseAttr)
		c.need(op, ok && d.Literal != nil && d.Literal.Array != nil && d.Type.Rank() == 2 && d.Type.Elem.IsInteger(), "replica_groups")
		vals := d.Literal.Array.Int64s()
		n, size := d.Type.Dims[0], d.Type.Dims[1]
		groups := make([][]int64, n)
		for i := range groups {
			// Groups of different sizes are padded with -1, which XLA's translation leaves out.
			for _, v := range vals[int64(i)*size : int64(i+1)*size] {
				if v >= 0 {
					groups[i] = append(groups[i], v)
				}
			}
			if groups[i] == nil {
				groups[i] = []int64{}
			}
		}
		in.SetAttr("replica_groups", &hlo.ReplicaGroups{Groups: groups})
	}
	if h := channel(op); h > 0 {
		in.SetAttr("channel_id", hlo.Int(h))
	}
	if a := op.Attr("use_global_device_ids"); a != nil && a != Attr(BoolAttr(false)) {
		in.SetAttr("use_global_device_ids", hlo.Bool(true))
	}
}

// channel returns the handle of op's channel_handle; 0 when it has none.
func channel(op *Op) int64 {
	if s, ok := op.Attr("channel_handle").(StructAttr); ok {
		if h, ok := lookup(s.Fields, "handle").(IntAttr); ok {
			return h.V
		}
	}
	return 0
}

// reducingCollective converts all_reduce, reduce_scatter and collective_reduce: a reduction region, and
// reduce_scatter's scatter_dimension.
func reducingCollective(code hlo.Opcode) handler {
	return func(c *converter, sc *scope, op *Op) *hlo.Instruction {
		ins := c.operands(sc, op)
		c.need(op, len(ins) > 0 && len(op.Regions) == 1, "operands and a reduction region")
		comp := c.computation(sc, op, 0, "reducer", elemTypesOf(ins[:1]))
		in := c.add(sc, op, code, c.result(op), ins...)
		if code == hlo.OpReduceScatter {
			d, ok := integer(op, "scatter_dimension")
			c.need(op, ok, "scatter_dimension")
			in.SetAttr("dimensions", hlo.Ints{d})
		}
		in.SetAttr("to_apply", hlo.CompRef{Comp: comp})
		c.collectiveAttrs(op, in)
		return in
	}
}

func (c *converter) allGather(sc *scope, op *Op) *hlo.Instruction {
	d, ok := integer(op, "all_gather_dim")
	c.need(op, ok, "all_gather_dim")
	in := c.add(sc, op, hlo.OpAllGather, c.result(op), c.operands(sc, op)...)
	in.SetAttr("dimensions", hlo.Ints{d})
	c.collectiveAttrs(op, in)
	return in
}

// allToAll converts all_to_all as XLA's translation does when the split and concatenation dimensions
// may differ: each operand is sliced into split_count pieces along split_dimension, a tuple all-to-all
// sends piece i to the i-th device of the group, and the pieces received are concatenated along
// concat_dimension.
func (c *converter) allToAll(sc *scope, op *Op) *hlo.Instruction {
	split, ok1 := integer(op, "split_dimension")
	concat, ok2 := integer(op, "concat_dimension")
	count, ok3 := integer(op, "split_count")
	ins := c.operands(sc, op)
	if !ok1 && !ok2 && !ok3 {
		// The tuple form: each operand goes whole to one device of the group.
		in := c.add(sc, op, hlo.OpAllToAll, c.result(op), ins...)
		c.collectiveAttrs(op, in)
		return in
	}
	c.need(op, ok1 && ok2 && ok3 && count > 0, "split_dimension, concat_dimension and split_count")
	if split == concat && len(ins) == 1 && len(op.OutTypes) == 1 {
		// XLA's array all-to-all splits and concatenates along one dimension.
		in := c.add(sc, op, hlo.OpAllToAll, op.OutTypes[0], ins[0])
		c.collectiveAttrs(op, in)
		in.SetAttr("dimensions", hlo.Ints{split})
		return in
	}
	if len(op.OutTypes) != len(ins) {
		c.fail(op.Pos, "%s has %d operands and %d results", op.Name, len(ins), len(op.OutTypes))
	}
	results := make([]*hlo.Instruction, len(ins))
	for k, x := range ins {
		s := x.Shape
		if !s.IsArray() || split < 0 || split >= int64(s.Rank()) || concat < 0 || concat >= int64(s.Rank()) || s.Dims[split]%count != 0 {
			c.fail(op.Pos, "%s: split_dimension %d, concat_dimension %d and split_count %d do not fit %s", op.Name, split, concat, count, s.String())
		}
		piece := s.Clone()
		piece.Dims[split] /= count
		pieces := make([]*hlo.Instruction, count)
		for i := range pieces {
			sl := make(hlo.Slice, s.Rank())
			for d := range sl {
				sl[d] = hlo.SliceDim{Start: 0, Limit: s.Dims[d], Stride: 1}
			}
			sl[split] = hlo.SliceDim{Start: int64(i) * piece.Dims[split], Limit: int64(i+1) * piece.Dims[split], Stride: 1}
			p := c.add(sc, op, hlo.OpSlice, piece, x)
			p.SetAttr("slice", sl)
			pieces[i] = p
		}
		shapes := make([]hlo.Shape, count)
		for i := range shapes {
			shapes[i] = piece
		}
		a2a := c.add(sc, op, hlo.OpAllToAll, hlo.Tuple(shapes...), pieces...)
		c.collectiveAttrs(op, a2a)
		got := make([]*hlo.Instruction, count)
		for i := range got {
			g := c.add(sc, op, hlo.OpGetTupleElement, piece, a2a)
			g.SetAttr("index", hlo.Int(i))
			got[i] = g
		}
		cat := c.add(sc, op, hlo.OpConcatenate, op.OutTypes[k], got...)
		cat.SetAttr("dimensions", hlo.Ints{concat})
		results[k] = cat
	}
	if len(results) == 1 {
		return results[0]
	}
	return c.add(sc, op, hlo.OpTuple, tupleShape(results), results...)
}

func (c *converter) collectivePermute(sc *scope, op *Op) *hlo.Instruction {
	d, ok := op.Attr("source_target_pairs").(*DenseAttr)
	c.need(op, ok && d.Literal != nil && d.Literal.Array != nil && d.Type.Rank() == 2 && d.Type.Dims[1] == 2, "source_target_pairs")
	vals := d.Literal.Array.Int64s()
	pairs := make(hlo.IntLists, d.Type.Dims[0])
	for i := range pairs {
		pairs[i] = vals[2*i : 2*i+2]
	}
	in := c.add(sc, op, hlo.OpCollectivePermute, c.result(op), c.operands(sc, op)...)
	in.SetAttr("source_target_pairs", pairs)
	if h := channel(op); h > 0 {
		in.SetAttr("channel_id", hlo.Int(h))
	}
	return in
}

func (c *converter) collectiveBroadcast(sc *scope, op *Op) *hlo.Instruction {
	in := c.add(sc, op, hlo.OpCollectiveBroadcast, c.result(op), c.operands(sc, op)...)
	c.collectiveAttrs(op, in)
	if a := op.Attr("has_dynamic_root"); a != nil && a != Attr(BoolAttr(false)) {
		in.SetAttr("has_dynamic_root", hlo.Bool(true))
	}
	if in.Attr("replica_groups") == nil {
		in.SetAttr("replica_groups", &hlo.ReplicaGroups{})
	}
	return in
}

// runParallel converts interpreter.run_parallel into a custom call of RunParallelTarget: its called
// computations are the programs, row by row; its operands their arguments, then the values of the infeed
// functions (called where the custom call is); its result one tuple per row, of the results of the row's
// programs. The flat results of run_parallel are taken from those tuples.
func (c *converter) runParallel(sc *scope, op *Op) *hlo.Instruction {
	rows, ok := op.Attr("programs").(ListAttr)
	c.need(op, ok && len(rows) > 0, "programs")
	var comps hlo.CompList
	var cols int
	rowShapes := make([]hlo.Shape, len(rows))
	for i, r := range rows {
		row, ok := r.(ListAttr)
		c.need(op, ok && len(row) > 0 && (i == 0 || len(row) == cols), "programs as rows of equal length")
		cols = len(row)
		var results []hlo.Shape
		for _, p := range row {
			sym, ok := p.(SymbolAttr)
			c.need(op, ok, "programs as symbols")
			fn := c.funcs[string(sym)]
			if fn == nil {
				c.fail(op.Pos, "%s runs @%s, which the module does not define", op.Name, sym)
			}
			comp := c.function(fn)
			comps = append(comps, comp)
			if root := comp.Root.Shape; root.IsTuple() {
				results = append(results, root.Tuple...)
			} else {
				results = append(results, root)
			}
		}
		rowShapes[i] = hlo.Tuple(results...)
	}
	ins := c.operands(sc, op)
	e := emitter{c, sc, op}
	if a := op.Attr("infeed"); a != nil {
		list, ok := a.(ListAttr)
		c.need(op, ok, "infeed as a list of functions")
		for _, q := range list {
			sym, ok := q.(SymbolAttr)
			c.need(op, ok, "infeed as a list of functions")
			fn := c.funcs[string(sym)]
			if fn == nil || len(fn.Params) != 0 {
				c.fail(op.Pos, "%s: infeed @%s is not a function of no arguments in the module", op.Name, sym)
			}
			comp := c.function(fn)
			call := e.add(hlo.OpCall, comp.Root.Shape)
			call.SetAttr("to_apply", hlo.CompRef{Comp: comp})
			ins = append(ins, call)
		}
	}
	grid := e.add(hlo.OpCustomCall, hlo.Tuple(rowShapes...), ins...)
	grid.SetAttr("custom_call_target", hlo.String(RunParallelTarget))
	grid.SetAttr("custom_call_has_side_effect", hlo.Bool(true))
	grid.SetAttr("called_computations", comps)
	var flat []*hlo.Instruction
	for i := range rowShapes {
		row := c.element(e, grid, i)
		for j := range rowShapes[i].Tuple {
			flat = append(flat, c.element(e, row, j))
		}
	}
	if len(flat) != len(op.OutTypes) {
		c.fail(op.Pos, "%s: the programs give %d results, the op %d", op.Name, len(flat), len(op.OutTypes))
	}
	return c.add(sc, op, hlo.OpTuple, tupleShape(flat), flat...)
}

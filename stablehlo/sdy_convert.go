package stablehlo

import (
	"strconv"
	"strings"

	"octet/hlo"
)

func init() {
	special["sdy.sharding_constraint"] = (*converter).shardingConstraint
	special["sdy.reshard"] = (*converter).reshard
	special["sdy.sharding_group"] = (*converter).shardingGroup
	special["sdy.propagation_barrier"] = (*converter).propagationBarrier
	special["sdy.constant"] = (*converter).constant
	special["sdy.manual_computation"] = (*converter).manualComputation
	special["sdy.named_computation"] = (*converter).namedComputation
	special["sdy.data_flow_edge"] = (*converter).dataFlowEdge
	for _, name := range []string{"all_gather", "all_slice", "all_to_all", "collective_permute", "all_reduce", "reduce_scatter"} {
		special["sdy."+name] = (*converter).sdyCollective
	}
	special["stablehlo.copy"] = plainOp(hlo.OpCopy)
	special["stablehlo.bitcast"] = plainOp(hlo.OpBitcast)
	special["stablehlo.add_dependency"] = plainOp(hlo.OpAddDependency)
	special["stablehlo.erf"] = plainOp(hlo.OpErf)
}

// mhloOnly are the MHLO ops without a StableHLO twin that convert to one HLO opcode each, by the name
// under which the conversion's handlers know them.
var mhloOnly = map[string]string{
	"mhlo.copy": "stablehlo.copy", "mhlo.bitcast": "stablehlo.bitcast", "mhlo.add_dependency": "stablehlo.add_dependency",
	"mhlo.erf": "stablehlo.erf", "mhlo.topk": "chlo.top_k",
}

// dialect gives an MHLO op (XLA's own dialect, which its translation tests are written in) the name of
// its StableHLO twin, under which the conversion knows it.
func (c *converter) dialect(op *Op) {
	rest, ok := strings.CutPrefix(op.Name, "mhlo.")
	if !ok {
		return
	}
	if name, ok := mhloOnly[op.Name]; ok {
		op.Name = name
		return
	}
	name := "stablehlo." + rest
	if _, ok := special[name]; ok {
		op.Name = name
		return
	}
	if _, ok := stableHLOOps[name]; ok {
		op.Name = name
	}
}

// sdyOperand returns the one operand of an sdy op.
func (c *converter) sdyOperand(sc *scope, op *Op) *hlo.Instruction {
	ins := c.operands(sc, op)
	c.need(op, len(ins) == 1, "one operand")
	return ins[0]
}

// sdyShardingAttr returns the sharding an sdy op names (sharding_constraint's <...>, a collective's
// out_sharding).
func (c *converter) sdyShardingAttr(op *Op, names ...string) *TensorSharding {
	for _, n := range names {
		if t, ok := op.Attr(n).(*TensorSharding); ok {
			return t
		}
	}
	c.need(op, false, "sharding")
	return nil
}

// withSdySharding gives in the HLO sharding of t and keeps t as the xla.sdy.sharding frontend attribute,
// as XLA's round-trip export does.
func (c *converter) withSdySharding(op *Op, in *hlo.Instruction, t *TensorSharding) *hlo.Instruction {
	setSharding(in, c.sdySharding(op.Pos, t, rankOf(in.Shape)))
	addFrontend(in, frontend{"xla.sdy.sharding": Shardings{t}.String()})
	return in
}

// shardingConstraint converts sdy.sharding_constraint into the Sharding custom call XLA's export makes.
func (c *converter) shardingConstraint(sc *scope, op *Op) *hlo.Instruction {
	x := c.sdyOperand(sc, op)
	t := c.sdyShardingAttr(op, "sharding")
	in := c.add(sc, op, hlo.OpCustomCall, x.Shape, x)
	in.SetAttr("custom_call_target", hlo.String("Sharding"))
	return c.withSdySharding(op, in, t)
}

// reshard converts sdy.reshard into a copy with the new sharding, as XLA's export does.
func (c *converter) reshard(sc *scope, op *Op) *hlo.Instruction {
	x := c.sdyOperand(sc, op)
	in := c.add(sc, op, hlo.OpCopy, x.Shape, x)
	return c.withSdySharding(op, in, c.sdyShardingAttr(op, "sharding"))
}

// sdyCollective converts the explicit collectives of Shardy (all_gather, all_slice, all_to_all,
// collective_permute, all_reduce, reduce_scatter) into a copy with their out_sharding, as XLA's export
// does: the value is the same, only its sharding changes.
func (c *converter) sdyCollective(sc *scope, op *Op) *hlo.Instruction {
	x := c.sdyOperand(sc, op)
	op.Attr(attrAxes)
	in := c.add(sc, op, hlo.OpCopy, x.Shape, x)
	return c.withSdySharding(op, in, c.sdyShardingAttr(op, "out_sharding"))
}

// dataFlowEdge converts sdy.data_flow_edge, which only carries a sharding for propagation: its value is
// its operand's.
func (c *converter) dataFlowEdge(sc *scope, op *Op) *hlo.Instruction {
	x := c.sdyOperand(sc, op)
	if op.Attr("sharding") != nil {
		c.leftOut(op.Pos, "%s: the sharding of a data flow edge is not converted", op.Name)
	}
	return x
}

// shardingGroup converts sdy.sharding_group into the xla.sdy.ShardingGroup custom call of XLA's export.
func (c *converter) shardingGroup(sc *scope, op *Op) *hlo.Instruction {
	x := c.sdyOperand(sc, op)
	id, ok := integer(op, "group_id")
	c.need(op, ok, "group_id")
	in := c.add(sc, op, hlo.OpCustomCall, hlo.Tuple(), x)
	in.SetAttr("custom_call_target", hlo.String("xla.sdy.ShardingGroup"))
	in.SetAttr("custom_call_has_side_effect", hlo.Bool(true))
	addFrontend(in, frontend{"xla.sdy.sharding_group_id": strconv.FormatInt(id, 10) + " : i64"})
	return nil
}

// propagationDirections are the values of sdy.propagation_barrier's allowed_direction.
var propagationDirections = map[string]int{"NONE": 0, "FORWARD": 1, "BACKWARD": 2, "BOTH": 3}

// propagationBarrier converts sdy.propagation_barrier into the xla.sdy.PropagationBarrier custom call.
func (c *converter) propagationBarrier(sc *scope, op *Op) *hlo.Instruction {
	x := c.sdyOperand(sc, op)
	dir, ok := propagationDirections[word(op, "allowed_direction")]
	c.need(op, ok, "allowed_direction")
	in := c.add(sc, op, hlo.OpCustomCall, x.Shape, x)
	in.SetAttr("custom_call_target", hlo.String("xla.sdy.PropagationBarrier"))
	in.SetAttr("custom_call_has_side_effect", hlo.Bool(true))
	addFrontend(in, frontend{"xla.sdy.allowed_direction": strconv.Itoa(dir) + " : i32"})
	return in
}

// manualComputation converts sdy.manual_computation as XLA's round-trip export does: the operands go
// through an xla.sdy.GlobalToLocalShape custom call to their per-device shapes, the body becomes a
// computation (xla.sdy.manual_computation_body) called on them, and its results go through an
// xla.sdy.LocalToGlobalShape custom call back to their global shapes; the shardings and manual axes are
// kept as frontend attributes.
func (c *converter) manualComputation(sc *scope, op *Op) *hlo.Instruction {
	ins := c.operands(sc, op)
	inS, _ := op.Attr("in_shardings").(Shardings)
	outS, _ := op.Attr("out_shardings").(Shardings)
	manual, _ := op.Attr("manual_axes").(ManualAxes)
	c.need(op, len(op.Regions) == 1 && len(op.Regions[0].Blocks) == 1, "body")
	body := op.Regions[0]
	args := body.Blocks[0].Args
	c.need(op, len(args) == len(ins) && len(inS) == len(ins) && len(outS) == len(op.OutTypes), "in_shardings, out_shardings and block arguments")
	for i, t := range inS {
		c.sdySharding(op.Pos, t, rankOf(ins[i].Shape))
	}
	for i, t := range outS {
		c.sdySharding(op.Pos, t, rankOf(op.OutTypes[i]))
	}
	axes := ManualAxes(append([]string(nil), manual...)).String()
	e := emitter{c, sc, op}
	var local []*hlo.Instruction
	if len(ins) > 0 {
		shapes := make([]hlo.Shape, len(args))
		for i, a := range args {
			shapes[i] = a.Type
		}
		shape := hlo.Tuple(shapes...)
		if len(shapes) == 1 {
			shape = shapes[0]
		}
		g := e.add(hlo.OpCustomCall, shape, ins...)
		g.SetAttr("custom_call_target", hlo.String("xla.sdy.GlobalToLocalShape"))
		g.SetAttr("custom_call_has_side_effect", hlo.Bool(true))
		addFrontend(g, frontend{"xla.sdy.in_shardings": inS.String(), "xla.sdy.manual_axes": axes})
		if len(shapes) == 1 {
			local = []*hlo.Instruction{g}
		} else {
			for i := range shapes {
				local = append(local, c.element(e, g, i))
			}
		}
	}
	saved := c.manual
	c.manual = append(append([]string(nil), saved...), manual...)
	comp := c.region("xla.sdy.manual_computation_body", body, args, body.Pos, nil, plainRegion, nil)
	c.manual = saved
	call := e.add(hlo.OpCall, comp.Root.Shape, local...)
	call.SetAttr("to_apply", hlo.CompRef{Comp: comp})
	addFrontend(call, frontend{"inlineable": "false"})
	if len(op.OutTypes) == 0 {
		return nil
	}
	var results []*hlo.Instruction
	if len(op.OutTypes) == 1 {
		results = []*hlo.Instruction{call}
	} else {
		for i := range op.OutTypes {
			results = append(results, c.element(e, call, i))
		}
	}
	l := c.add(sc, op, hlo.OpCustomCall, resultShape(op), results...)
	l.SetAttr("custom_call_target", hlo.String("xla.sdy.LocalToGlobalShape"))
	l.SetAttr("custom_call_has_side_effect", hlo.Bool(true))
	addFrontend(l, frontend{"xla.sdy.out_shardings": outS.String(), "xla.sdy.manual_axes": axes})
	return l
}

// namedComputation converts sdy.named_computation into a call of its body as a computation of its name,
// with its in_shardings on the body's parameters and its out_shardings on the call and the body's root,
// as XLA's export of named computations does.
func (c *converter) namedComputation(sc *scope, op *Op) *hlo.Instruction {
	ins := c.operands(sc, op)
	name, _ := op.Attr("name").(StringAttr)
	c.need(op, name != "" && len(op.Regions) == 1 && len(op.Regions[0].Blocks) == 1, "name and body")
	body := op.Regions[0]
	args := body.Blocks[0].Args
	c.need(op, len(args) == len(ins), "block arguments")
	comp := c.region(sanitize(string(name)), body, args, body.Pos, nil, plainRegion, nil)
	if inS, ok := op.Attr("in_shardings").(Shardings); ok {
		c.need(op, len(inS) == len(comp.Params), "in_shardings")
		for i, t := range inS {
			c.withSdySharding(op, comp.Params[i], t)
		}
	}
	call := c.add(sc, op, hlo.OpCall, comp.Root.Shape, ins...)
	call.SetAttr("to_apply", hlo.CompRef{Comp: comp})
	if outS, ok := op.Attr("out_shardings").(Shardings); ok {
		text := c.shardingsText(op.Pos, outS, op.OutTypes)
		setSharding(comp.Root, text)
		setSharding(call, text)
		addFrontend(call, frontend{"xla.sdy.sharding": outS.String()})
	}
	return call
}

func init() {
	special["stablehlo.create_token"] = (*converter).createToken
	special["stablehlo.rng"] = (*converter).rng
	special["stablehlo.batch_norm_training"] = batchNorm(hlo.OpBatchNormTraining)
	special["stablehlo.batch_norm_inference"] = batchNorm(hlo.OpBatchNormInference)
	special["stablehlo.batch_norm_grad"] = batchNorm(hlo.OpBatchNormGrad)
	special["stablehlo.broadcast"] = (*converter).broadcast
}

// createToken converts create_token into an after-all of nothing, as XLA does.
func (c *converter) createToken(sc *scope, op *Op) *hlo.Instruction {
	return c.add(sc, op, hlo.OpAfterAll, tokenShape)
}

// rngDistributions names HLO's random distributions.
var rngDistributions = map[string]string{"UNIFORM": "rng_uniform", "NORMAL": "rng_normal"}

// rng converts rng: a, b and the result shape (a constant operand) with the distribution.
func (c *converter) rng(sc *scope, op *Op) *hlo.Instruction {
	ins := c.operands(sc, op)
	c.need(op, len(ins) == 3, "a, b and shape")
	dist := rngDistributions[word(op, "rng_distribution")]
	if dist == "" && len(op.Words) > 0 {
		dist = rngDistributions[op.Words[0]]
	}
	c.need(op, dist != "", "rng_distribution")
	in := c.add(sc, op, hlo.OpRng, c.static(op), ins[0], ins[1])
	in.SetAttr("distribution", hlo.Enum(dist))
	return in
}

// batchNorm converts batch_norm_training, batch_norm_inference and batch_norm_grad: epsilon and
// feature_index.
func batchNorm(code hlo.Opcode) handler {
	return func(c *converter, sc *scope, op *Op) *hlo.Instruction {
		eps, ok1 := op.Attr("epsilon").(FloatAttr)
		idx, ok2 := integer(op, "feature_index")
		c.need(op, ok1 && ok2, "epsilon and feature_index")
		in := c.add(sc, op, code, c.result(op), c.operands(sc, op)...)
		in.SetAttr("epsilon", hlo.Float(eps.V))
		in.SetAttr("feature_index", hlo.Int(idx))
		return in
	}
}

// broadcast converts MHLO's broadcast, which puts broadcast_sizes before the operand's dimensions.
func (c *converter) broadcast(sc *scope, op *Op) *hlo.Instruction {
	x := c.sdyOperand(sc, op)
	sizes, ok := ints(op, "broadcast_sizes")
	c.need(op, ok, "broadcast_sizes")
	dims := make([]int64, x.Shape.Rank())
	for i := range dims {
		dims[i] = int64(len(sizes) + i)
	}
	in := c.add(sc, op, hlo.OpBroadcast, c.result(op), x)
	in.SetAttr("dimensions", hlo.Ints(dims))
	return in
}

package stablehlo

import (
	"octet/dtype"
	"octet/hlo"
)

func init() {
	special["interpreter.probe"] = (*converter).probe
}

// probeID returns op's probe_id, failing when it has none.
func (c *converter) probeID(op *Op) string {
	id, ok := op.Attr("probe_id").(StringAttr)
	c.need(op, ok, "probe_id")
	return string(id)
}

// probe converts interpreter.probe, which records its operand under its probe_id each time it runs and
// gives it back: a custom call "interpreter.probe" whose backend_config is the probe_id.
func (c *converter) probe(sc *scope, op *Op) *hlo.Instruction {
	id := c.probeID(op)
	ins := c.operands(sc, op)
	c.need(op, len(ins) == 1, "one operand")
	in := c.add(sc, op, hlo.OpCustomCall, ins[0].Shape, ins...)
	in.SetAttr("custom_call_target", hlo.String("interpreter.probe"))
	in.SetAttr("custom_call_has_side_effect", hlo.Bool(true))
	in.SetAttr("backend_config", &hlo.BackendConfig{Text: id, Quoted: true})
	return in
}

// serializedEq converts check.expect_serialized_eq, which compares its operand with the value the probe
// of its probe_id recorded at iteration iter (0 when not given): a custom call of that name whose
// operands are the value and the iteration (s64), and whose backend_config is the probe_id.
func (c *converter) serializedEq(sc *scope, op *Op) {
	id := c.probeID(op)
	ins := c.operands(sc, op)
	c.need(op, len(ins) == 1, "one operand")
	var iter int64
	if v, ok := op.Attr("iter").(IntAttr); ok {
		iter = v.V
	}
	e := emitter{c, sc, op}
	ins = append(ins, e.splat(hlo.Scalar(dtype.S64), uint64(iter)))
	in := e.add(hlo.OpCustomCall, hlo.Tuple(), ins...)
	in.SetAttr("custom_call_target", hlo.String("check.expect_serialized_eq"))
	in.SetAttr("custom_call_has_side_effect", hlo.Bool(true))
	in.SetAttr("backend_config", &hlo.BackendConfig{Text: id, Quoted: true})
}

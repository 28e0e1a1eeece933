package stablehlo

import (
	"octet/dtype"
	"octet/hlo"
	"octet/hlo/printer"
)

func init() {
	special["stablehlo.send"] = (*converter).send
	special["stablehlo.recv"] = (*converter).recv
	special["stablehlo.infeed"] = (*converter).infeed
	special["stablehlo.outfeed"] = (*converter).outfeed
}

var tokenShape = hlo.Shape{Kind: hlo.TokenShape}

// transferAttrs sets the channel and is_host_transfer of a send or a receive.
func (c *converter) transferAttrs(op *Op, in *hlo.Instruction) {
	in.SetAttr("channel_id", hlo.Int(channel(op)))
	if boolean(op, "is_host_transfer") {
		in.SetAttr("is_host_transfer", hlo.Bool(true))
	}
}

// send converts send as XLA's translation does: a send of (value, token) giving (value, context, token),
// and the send-done of it giving the token.
func (c *converter) send(sc *scope, op *Op) *hlo.Instruction {
	ins := c.operands(sc, op)
	n := len(ins) - 1
	c.need(op, n >= 0 && ins[n].Shape.Kind == hlo.TokenShape, "values and a token")
	e := emitter{c, sc, op}
	data := ins[0]
	if n != 1 {
		// Several values (or none) travel as one tuple, as XLA's translation sends them.
		data = e.add(hlo.OpTuple, tupleShape(ins[:n]), ins[:n]...)
	}
	s := e.add(hlo.OpSend, hlo.Tuple(data.Shape, hlo.Scalar(dtype.U32), tokenShape), data, ins[n])
	c.transferAttrs(op, s)
	done := c.add(sc, op, hlo.OpSendDone, tokenShape, s)
	c.transferAttrs(op, done)
	return done
}

// recv converts recv: a recv of the token giving (value, context, token), and the recv-done of it giving
// (value, token).
func (c *converter) recv(sc *scope, op *Op) *hlo.Instruction {
	ins := c.operands(sc, op)
	n := len(op.OutTypes) - 1
	c.need(op, len(ins) == 1 && ins[0].Shape.Kind == hlo.TokenShape && n >= 0 && op.OutTypes[n].Kind == hlo.TokenShape, "a token, giving values and a token")
	e := emitter{c, sc, op}
	data := hlo.Tuple(op.OutTypes[:n]...)
	if n == 1 {
		data = op.OutTypes[0]
	}
	r := e.add(hlo.OpRecv, hlo.Tuple(data, hlo.Scalar(dtype.U32), tokenShape), ins...)
	c.transferAttrs(op, r)
	done := c.add(sc, op, hlo.OpRecvDone, hlo.Tuple(data, tokenShape), r)
	c.transferAttrs(op, done)
	if n == 1 {
		return done
	}
	// Several values (or none) arrive as one tuple: the results are its elements, then the token.
	values := c.element(e, done, 0)
	outs := make([]*hlo.Instruction, 0, n+1)
	for i := range n {
		outs = append(outs, c.element(e, values, i))
	}
	c.direct = append(outs, c.element(e, done, 1))
	return done
}

// infeed converts infeed: an infeed giving ((values...), token), taken apart into (values..., token).
func (c *converter) infeed(sc *scope, op *Op) *hlo.Instruction {
	ins := c.operands(sc, op)
	n := len(op.OutTypes) - 1
	c.need(op, len(ins) == 1 && ins[0].Shape.Kind == hlo.TokenShape && n >= 0 && op.OutTypes[n].Kind == hlo.TokenShape, "a token, giving values and a token")
	e := emitter{c, sc, op}
	data := hlo.Tuple(op.OutTypes[:n]...)
	in := e.add(hlo.OpInfeed, hlo.Tuple(data, tokenShape), ins...)
	if cfg, ok := op.Attr("infeed_config").(StringAttr); ok {
		in.SetAttr("infeed_config", hlo.String(string(cfg)))
	}
	values := c.element(e, in, 0)
	outs := make([]*hlo.Instruction, 0, n+1)
	for i := range n {
		outs = append(outs, c.element(e, values, i))
	}
	outs = append(outs, c.element(e, in, 1))
	c.direct = outs
	return in
}

// outfeed converts outfeed: an outfeed of its values (a tuple of several) and its token.
func (c *converter) outfeed(sc *scope, op *Op) *hlo.Instruction {
	ins := c.operands(sc, op)
	n := len(ins) - 1
	c.need(op, n >= 0 && ins[n].Shape.Kind == hlo.TokenShape, "values and a token")
	// XLA's outfeed always sends a tuple of the values.
	data := c.add(sc, op, hlo.OpTuple, tupleShape(ins[:n]), ins[:n]...)
	in := c.add(sc, op, hlo.OpOutfeed, tokenShape, data, ins[n])
	outShape := data.Shape.Clone()
	outShape.SetDefaultLayouts()
	in.SetAttr("outfeed_shape", hlo.Raw(layoutText(outShape)))
	if cfg, ok := op.Attr("outfeed_config").(StringAttr); ok {
		in.SetAttr("outfeed_config", hlo.String(string(cfg)))
	}
	return in
}

// layoutText writes a shape with its layouts as HLO text.
func layoutText(s hlo.Shape) string { return printer.ShapeString(s, true) }

package hlo_test

import (
	"fmt"

	"octet/dtype"
	"octet/hlo"
	"octet/hlo/parser"
	"octet/hlo/printer"
)

// newEntry returns a module whose entry computation has parameters of the given shapes.
func newEntry(name string, params ...hlo.Shape) (*hlo.Module, *hlo.Computation) {
	m := &hlo.Module{Name: name}
	c := &hlo.Computation{Name: "main", IsEntry: true}
	m.AddComputation(c)
	m.Entry = c
	for i, s := range params {
		s.SetDefaultLayouts()
		p := c.Add(fmt.Sprintf("p%d", i), hlo.OpParameter, s)
		p.ParameterNumber = int64(i)
		c.Params = append(c.Params, p)
	}
	return m, c
}

// A pass builds a dequantized FP8 matmul: the constructors give each new instruction its inferred shape and
// XLA's attributes, and Verify checks the result.
func ExampleComputation_Dot() {
	m, c := newEntry("scaled_dot", hlo.Array(dtype.F8E4M3FN, 16, 64), hlo.Array(dtype.F8E4M3FN, 64, 32))
	a, b := c.Params[0], c.Params[1]
	d := c.Dot(c.Convert(a, dtype.F32), c.Convert(b, dtype.F32), []int64{1}, []int64{0}, nil, nil, dtype.Invalid)
	c.Root = c.Multiply(d, c.Broadcast(c.ScalarConstant(dtype.F32, 0.5), d.Shape, nil))
	fmt.Print(printer.Sprint(m, printer.ConfigFor(printer.StyleXLAShort)))
	fmt.Println("verify:", hlo.Verify(m))
	// Output:
	// HloModule scaled_dot, entry_computation_layout={(f8e4m3fn[16,64]{1,0}, f8e4m3fn[64,32]{1,0})->f32[16,32]{1,0}}
	//
	// ENTRY main {
	//   p0 = f8e4m3fn[16,64]{1,0} parameter(0)
	//   p1 = f8e4m3fn[64,32]{1,0} parameter(1)
	//   convert = f32[16,64]{1,0} convert(p0)
	//   convert.1 = f32[64,32]{1,0} convert(p1)
	//   dot = f32[16,32]{1,0} dot(convert, convert.1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
	//   constant = f32[] constant(0.5)
	//   broadcast = f32[16,32]{1,0} broadcast(constant), dimensions={}
	//   ROOT multiply = f32[16,32]{1,0} multiply(dot, broadcast)
	// }
	//
	// verify: <nil>
}

// Verify reports every problem with the position of the instruction in the text.
func ExampleVerify() {
	m, err := parser.ParseString("bad.hlo", `HloModule bad

ENTRY main {
  a = f32[16,64] parameter(0)
  b = f32[32,32] parameter(1)
  d = f32[16,32] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT n = f32[16,30] negate(d)
}`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(hlo.Verify(m))
	// Output:
	// bad.hlo:6:3: %d: dot: lhs contracting dimension 1 has size 64, rhs contracting dimension 0 has size 32 (and 1 more errors)
}

// InferShape gives the shape an instruction must have; it tells shapes it cannot infer apart from
// operands that disagree.
func ExampleInferShape() {
	_, c := newEntry("m", hlo.Array(dtype.BF16, 8, 16, 64), hlo.Array(dtype.BF16, 8, 64, 32))
	d, err := c.AddInferred("", hlo.OpDot, c.Params,
		hlo.Attr{Name: "lhs_batch_dims", Value: hlo.Ints{0}}, hlo.Attr{Name: "lhs_contracting_dims", Value: hlo.Ints{2}},
		hlo.Attr{Name: "rhs_batch_dims", Value: hlo.Ints{0}}, hlo.Attr{Name: "rhs_contracting_dims", Value: hlo.Ints{1}})
	fmt.Println(printer.ShapeString(d.Shape, true), err)
	_, err = c.AddInferred("", hlo.OpReshape, c.Params[:1])
	fmt.Println(err)
	// Output:
	// bf16[8,16,32]{2,1,0} <nil>
	// reshape: the result shape cannot be inferred from the operand; it must be given
}

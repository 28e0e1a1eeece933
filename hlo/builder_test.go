package hlo

import (
	"strings"
	"testing"

	"octet/dtype"
)

func TestBuilders(t *testing.T) {
	m, c, p := testModule(Array(e4m3, 16, 64), Array(e4m3, 64, 32), Scalar(f32), Array(f32, 10))
	a, b, scale, v := p[0], p[1], p[2], p[3]
	check := func(in *Instruction, name, shape string, attrs string) {
		t.Helper()
		if in.Name != name || in.Shape.String() != shape || attrString(in.Attrs) != attrs {
			t.Errorf("got %s = %s %s, %s; want %s = %s, %s", in.Name, in.Shape.String(), in.Opcode, attrString(in.Attrs), name, shape, attrs)
		}
		if in.Shape.IsArray() && (in.Shape.Layout == nil || !in.Shape.Layout.Equal(DefaultLayout(in.Shape.Rank()))) {
			t.Errorf("%s has layout %v; want the default", in.Name, in.Shape.Layout)
		}
		if in.Parent != c || c.Instructions[len(c.Instructions)-1] != in {
			t.Errorf("%s was not appended to the computation", in.Name)
		}
		for _, o := range in.Operands() {
			if !containsInst(o.Users(), in) {
				t.Errorf("%s is not among the users of its operand %s", in.Name, o.Name)
			}
		}
	}
	ca := c.Convert(a, f32)
	check(ca, "convert", "f32[16,64]", "")
	cb := c.Convert(b, f32)
	check(cb, "convert.1", "f32[64,32]", "")
	d := c.Dot(a, b, []int64{1}, []int64{0}, nil, nil, f32)
	check(d, "dot", "f32[16,32]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}")
	d8 := c.Dot(a, b, []int64{1}, []int64{0}, nil, nil, dtype.Invalid)
	check(d8, "dot.1", "f8e4m3fn[16,32]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}")
	bs := c.Broadcast(scale, Array(f32, 16, 32), nil)
	check(bs, "broadcast", "f32[16,32]", "dimensions={}")
	mul := c.Multiply(d, bs)
	check(mul, "multiply", "f32[16,32]", "")
	check(c.Divide(mul, bs), "divide", "f32[16,32]", "")
	check(c.AddOp(mul, bs), "add", "f32[16,32]", "")
	check(c.Subtract(mul, bs), "subtract", "f32[16,32]", "")
	check(c.Minimum(mul, bs), "minimum", "f32[16,32]", "")
	lo := c.ScalarConstant(f32, -448)
	check(lo, "constant", "f32[]", "")
	hi := c.ScalarConstant(f32, 448)
	if l, _ := lo.Literal.Float(0); l != -448 {
		t.Errorf("constant %v; want -448", l)
	}
	if h, _ := hi.Literal.Float(0); h != 448 {
		t.Errorf("constant %v; want 448", h)
	}
	check(c.Clamp(lo, mul, hi), "clamp", "f32[16,32]", "")
	check(c.Maximum(mul, c.Broadcast(c.ScalarConstant(f32, 0), mul.Shape, nil)), "maximum", "f32[16,32]", "")
	bd := c.Dot(c.Reshape(a, Array(e4m3, 1, 16, 64)), c.Reshape(b, Array(e4m3, 1, 64, 32)), []int64{2}, []int64{1}, []int64{0}, []int64{0}, bf16)
	check(bd, "dot.2", "bf16[1,16,32]", "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}")
	check(c.Transpose(b, []int64{1, 0}), "transpose", "f8e4m3fn[32,64]", "dimensions={1,0}")
	check(c.Slice(v, []int64{2}, []int64{10}, nil), "slice", "f32[8]", "slice={[2:10:1]}")
	check(c.Slice(v, []int64{1}, []int64{10}, []int64{3}), "slice.1", "f32[3]", "slice={[1:10:3]}")
	check(c.Pad(v, c.ScalarConstant(f32, 0), Padding{{0, 6, 0}}), "pad", "f32[16]", "padding={0 6 0}")
	cc := c.CustomCall("__cublas$lt$matmul$f8", Tuple(Array(bf16, 16, 32), Array(dtype.S8, 1024)), []*Instruction{a, b, scale, scale}, `{"gemm_backend_config":{"alpha_real":1}}`)
	check(cc, "custom-call", "(bf16[16,32], s8[1024])", `custom_call_target="__cublas$lt$matmul$f8", backend_config={"gemm_backend_config":{"alpha_real":1}}`)
	check(c.GetTupleElement(cc, 0), "get-tuple-element", "bf16[16,32]", "index=0")
	check(c.Unary(OpRsqrt, mul), "rsqrt", "f32[16,32]", "")
	lt := c.Compare(mul, bs, "LT")
	check(lt, "compare", "pred[16,32]", "direction=LT")
	check(c.Select(lt, mul, bs), "select", "f32[16,32]", "")
	add := scalarAdd(m, "add_f32", f32)
	check(c.Reduce(mul, lo, []int64{0}, add), "reduce", "f32[32]", "dimensions={0}, to_apply=add_f32")
	add2 := &Computation{Name: "add2"}
	m.AddComputation(add2)
	x, y := add2.Parameter(Scalar(f32)), add2.Parameter(Scalar(f32))
	add2.Root = add2.AddOp(x, y)
	if x.ParameterNumber != 0 || y.ParameterNumber != 1 || len(add2.Params) != 2 || x.Name == y.Name {
		t.Errorf("parameters %s (%d), %s (%d)", x.Name, x.ParameterNumber, y.Name, y.ParameterNumber)
	}
	tu := c.Tuple(d, scale)
	check(tu, "tuple", "(f32[16,32], f32[])", "")
	c.Root = tu
	if err := Verify(m); err != nil {
		t.Errorf("Verify: %v", err)
	}
}

// attrString writes attributes roughly as the printer does, enough to compare them in tests.
func attrString(attrs []Attr) string {
	var parts []string
	for _, a := range attrs {
		var v string
		switch x := a.Value.(type) {
		case Ints:
			v = intsString(x)
		case Int:
			v = intsString([]int64{int64(x)})
			v = v[1 : len(v)-1]
		case String:
			v = `"` + string(x) + `"`
		case Slice:
			var s []string
			for _, d := range x {
				s = append(s, "["+strings.Trim(intsString([]int64{d.Start, d.Limit, d.Stride}), "{}")+"]")
			}
			v = "{" + strings.ReplaceAll(strings.Join(s, ", "), ",", ":") + "}"
			v = strings.ReplaceAll(v, "]: [", "], [")
		case Padding:
			var s []string
			for _, d := range x {
				s = append(s, strings.Trim(strings.ReplaceAll(intsString([]int64{d.Low, d.High, d.Interior}), ",", " "), "{}"))
			}
			v = "{" + strings.Join(s, "x") + "}"
		case *BackendConfig:
			v = x.Text
		case Enum:
			v = string(x)
		case CompRef:
			v = x.Comp.Name
		default:
			v = "?"
		}
		parts = append(parts, a.Name+"="+v)
	}
	return strings.Join(parts, ", ")
}

func TestBuilderPanics(t *testing.T) {
	_, c, p := testModule(Array(f32, 16, 64), Array(f32, 32, 32), Array(s32, 4))
	for _, tt := range []struct {
		name string
		f    func()
		want string
	}{
		{"unary", func() { c.Unary(OpAdd, p[0]) }, "hlo: Unary: add is not an elementwise unary operation"},
		{"dot", func() { c.Dot(p[0], p[1], []int64{1}, []int64{0}, nil, nil, 0) },
			"hlo: dot: lhs contracting dimension 1 has size 64, rhs contracting dimension 0 has size 32"},
		{"broadcast", func() { c.Broadcast(p[2], Array(s32, 5), []int64{0}) },
			"hlo: broadcast: operand dimension 0 has size 4, result dimension 0 has size 5"},
		{"reshape", func() { c.Reshape(p[2], Array(s32, 5)) }, "hlo: reshape: s32[4] has 4 elements, s32[5] has 5"},
		{"multiply", func() { c.Multiply(p[0], p[1]) }, "hlo: multiply: the operand shapes f32[16,64] and f32[32,32] differ in dimension 0"},
		{"binary", func() { c.Binary(OpCompare, p[0], p[0]) }, "hlo: Binary: compare is not an elementwise binary operation"},
		{"slice", func() { c.Slice(p[2], []int64{0}, nil, nil) }, "hlo: Slice: 1 starts, 0 limits and 0 strides"},
		{"scalar", func() { c.ScalarConstant(dtype.S8, 300) }, "hlo: ScalarConstant: 300 is out of the range of s8"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := len(c.Instructions)
			defer func() {
				r := recover()
				if s, _ := r.(string); s != tt.want {
					t.Errorf("panic %v; want %q", r, tt.want)
				}
				if len(c.Instructions) != n {
					t.Errorf("the computation grew from %d to %d instructions", n, len(c.Instructions))
				}
			}()
			tt.f()
		})
	}
}

func TestAddInferred(t *testing.T) {
	m, c, p := testModule(Array(f32, 4, 5), Scalar(f32))
	add := scalarAdd(m, "add", f32)
	r, err := c.AddInferred("total", OpReduce, p, Attr{"dimensions", Ints{1}}, Attr{"to_apply", CompRef{add}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Name != "total" || r.Shape.String() != "f32[4]" || r.Attrs[0].Name != "dimensions" || r.Attrs[1].Name != "to_apply" {
		t.Errorf("AddInferred = %s = %s, %v", r.Name, r.Shape.String(), r.Attrs)
	}
	n, users := len(c.Instructions), len(p[0].Users())
	_, err = c.AddInferred("", OpReduce, p, Attr{"dimensions", Ints{2}}, Attr{"to_apply", CompRef{add}})
	if err == nil || err.Error() != "reduce: dimension 2 is out of range for f32[4,5]" {
		t.Errorf("AddInferred error %v", err)
	}
	if len(c.Instructions) != n || len(p[0].Users()) != users {
		t.Error("a failed AddInferred changed the computation")
	}
	_, err = c.AddInferred("", OpIota, nil, Attr{"iota_dimension", Int(0)})
	if err == nil || !strings.Contains(err.Error(), "cannot be inferred") {
		t.Errorf("AddInferred(iota) error %v", err)
	}
	c.Root = r
	if err := Verify(m); err != nil {
		t.Error(err)
	}
}

package hlo

import (
	"errors"
	"go/scanner"
	"strings"
	"testing"

	"octet/dtype"
)

// errorLines returns the messages of Verify's error, one per problem.
func errorLines(err error) []string {
	if err == nil {
		return nil
	}
	var lines []string
	for _, e := range err.(scanner.ErrorList) {
		lines = append(lines, e.Error())
	}
	return lines
}

func TestVerify(t *testing.T) {
	tests := []struct {
		name  string
		build func() *Module
		want  []string
	}{
		{"valid", func() *Module {
			m, c, p := testModule(Array(f32, 16, 64), Array(f32, 64, 32))
			d := c.Dot(p[0], p[1], []int64{1}, []int64{0}, nil, nil, 0)
			c.Root = c.Maximum(d, c.Broadcast(c.ScalarConstant(f32, 0), d.Shape, nil))
			return m
		}, nil},
		{"literal of another shape", func() *Module {
			m, c, _ := testModule(Array(f32, 4))
			lit, _ := ScalarLiteral(dtype.S32, 1)
			c.Root = c.Constant(Array(f32, 2), lit)
			return m
		}, []string{"computation %main, instruction %constant: the literal of constant %constant does not hold values of its shape f32[2]"}},
		{"wrong dot shape", func() *Module {
			m, c, p := testModule(Array(f32, 16, 64), Array(f32, 64, 32))
			d := c.Dot(p[0], p[1], []int64{1}, []int64{0}, nil, nil, 0)
			d.Shape = Array(f32, 16, 30)
			c.Root = d
			return m
		}, []string{"computation %main, instruction %dot: shape f32[16,30] of %dot disagrees with its operands: dot of f32[16,64] and f32[64,32] gives f32[16,32]"}},
		{"dot that cannot be", func() *Module {
			m, c, p := testModule(Array(f32, 16, 64), Array(f32, 32, 32))
			c.Root = c.Add("dot", OpDot, Array(f32, 16, 32), p[0], p[1])
			c.Root.Attrs = []Attr{{"lhs_contracting_dims", Ints{1}}, {"rhs_contracting_dims", Ints{0}}}
			return m
		}, []string{"computation %main, instruction %dot: %dot: dot: lhs contracting dimension 1 has size 64, rhs contracting dimension 0 has size 32"}},
		{"operand after user", func() *Module {
			m, c, p := testModule(Array(f32, 4))
			n := c.AddOp(p[0], p[0])
			e := c.Add("exp", OpExp, Array(f32, 4), p[0])
			n.SetOperand(1, e)
			c.Root = e
			return m
		}, []string{"computation %main, instruction %add: operand 1 of %add, %exp, comes after it"}},
		{"operand of another computation", func() *Module {
			m, c, p := testModule(Array(f32, 4))
			other := &Computation{Name: "other"}
			m.AddComputation(other)
			q := addParams(other, Array(f32, 4))
			other.Root = other.Add("neg", OpNegate, Array(f32, 4), p[0])
			c.Root = p[0]
			_ = q
			return m
		}, []string{"computation %other, instruction %neg: operand 0 of %neg, %p, is not an instruction of computation %other"}},
		{"users out of step", func() *Module {
			m, c, p := testModule(Array(f32, 4))
			n := c.Add("neg", OpNegate, Array(f32, 4), p[0])
			e := c.Add("exp", OpExp, Array(f32, 4), n)
			p[0].users, n.users = nil, nil
			c.Root = e
			return m
		}, []string{
			"computation %main, instruction %exp: %exp uses %neg, which does not list it among its users",
			"computation %main, instruction %neg: %neg uses %p, which does not list it among its users",
		}},
		{"user twice", func() *Module {
			m, c, p := testModule(Array(f32, 4))
			n := c.Add("neg", OpNegate, Array(f32, 4), p[0])
			e := c.Add("exp", OpExp, Array(f32, 4), n)
			n.users = append(n.users, e, e)
			c.Root = e
			return m
		}, []string{"computation %main, instruction %neg: %neg lists user %exp twice"}},
		{"user twice among many", func() *Module {
			m, c, p := testModule(Array(f32, 4))
			var last *Instruction
			for range 40 {
				last = c.Add("neg", OpNegate, Array(f32, 4), p[0])
			}
			p[0].users = append(p[0].users, last)
			c.Root = last
			return m
		}, []string{"computation %main, instruction %p: %p lists user %neg.39 twice"}},
		{"stale user", func() *Module {
			m, c, p := testModule(Array(f32, 4))
			n := c.Add("neg", OpNegate, Array(f32, 4), p[0])
			e := c.Add("exp", OpExp, Array(f32, 4), p[0])
			n.users = append(n.users, e)
			c.Root = n
			return m
		}, []string{"computation %main, instruction %neg: %neg lists %exp as a user, but %exp does not use it"}},
		{"no root", func() *Module {
			m, _, _ := testModule(Array(f32, 4))
			return m
		}, []string{"computation %main: computation %main has no root"}},
		{"root elsewhere", func() *Module {
			m, c, _ := testModule(Array(f32, 4))
			c.Root = &Instruction{Name: "ghost", Opcode: OpConstant}
			return m
		}, []string{"computation %main: the root %ghost of computation %main is not one of its instructions"}},
		{"parameter gap", func() *Module {
			m, c, p := testModule(Array(f32, 4), Array(f32, 4))
			c.Params[0] = nil
			c.Root = p[1]
			return m
		}, []string{
			"computation %main, instruction %p: %p is parameter(0) but is not listed among the parameters of computation %main",
			"computation %main: computation %main has no parameter 0 but has parameter 1",
		}},
		{"parameter duplicate", func() *Module {
			m, c, p := testModule(Array(f32, 4), Array(f32, 4))
			p[1].ParameterNumber = 0
			c.Root = p[1]
			return m
		}, []string{
			"computation %main, instruction %p.1: %p.1 is parameter(0) but is listed as parameter 1 of computation %main",
			"computation %main, instruction %p.1: parameter number 0 is used by both %p and %p.1",
		}},
		{"duplicate names", func() *Module {
			m, c, p := testModule(Array(f32, 4))
			n := c.Add("neg", OpNegate, Array(f32, 4), p[0])
			n.Name = "p"
			c.Root = n
			return m
		}, []string{"computation %main, instruction %p: instruction name %p is used twice (first in computation %main)"}},
		{"no entry", func() *Module {
			m, c, p := testModule(Array(f32, 4))
			c.Root = p[0]
			m.Entry = nil
			return m
		}, []string{"module m: module m has no entry computation"}},
		{"foreign callee", func() *Module {
			m, c, p := testModule(Array(f32, 4), Scalar(f32))
			other := &Module{Name: "other"}
			add := scalarAdd(other, "add", f32)
			r, err := c.AddInferred("reduce", OpReduce, p, Attr{"dimensions", Ints{0}}, Attr{"to_apply", CompRef{add}})
			if err != nil {
				panic(err)
			}
			c.Root = r
			return m
		}, []string{"computation %main, instruction %reduce: %reduce calls %add, which is not a computation of the module"}},
		{"reducer of the wrong arity", func() *Module {
			m, c, p := testModule(Array(f32, 4), Scalar(f32))
			add := scalarAdd(m, "add", f32)
			addParams(add, Scalar(f32))
			r := c.Add("reduce", OpReduce, Scalar(f32), p...)
			r.Attrs = []Attr{{"dimensions", Ints{0}}, {"to_apply", CompRef{add}}}
			c.Root = r
			return m
		}, []string{"computation %main, instruction %reduce: %reduce: reduce: the reducer %add takes 3 parameters; 2 are needed"}},
		{"fusion parameters", func() *Module {
			m, c, p := testModule(Array(f32, 4), Array(s32, 4))
			f := &Computation{Name: "fused"}
			m.AddComputation(f)
			fp := addParams(f, Array(f32, 4), Array(f32, 4))
			f.Root = f.Add("add", OpAdd, Array(f32, 4), fp[0], fp[1])
			fu := c.Add("fusion", OpFusion, Array(f32, 4), p...)
			fu.Attrs = []Attr{{"kind", Raw("kLoop")}, {"calls", CompRef{f}}}
			c.Root = fu
			return m
		}, []string{"computation %main, instruction %fusion: %fusion: fusion: parameter 1 of the fused computation %fused is f32[4], operand 1 is s32[4]"}},
		{"while condition", func() *Module {
			m, c, p := testModule(Scalar(s32))
			cond := &Computation{Name: "cond"}
			m.AddComputation(cond)
			cp := addParams(cond, Scalar(s32))
			cond.Root = cp[0]
			body := &Computation{Name: "body"}
			m.AddComputation(body)
			bp := addParams(body, Scalar(s32))
			body.Root = body.Add("next", OpAdd, Scalar(s32), bp[0], bp[0])
			w := c.Add("while", OpWhile, Scalar(s32), p[0])
			w.Attrs = []Attr{{"condition", CompRef{cond}}, {"body", CompRef{body}}}
			c.Root = w
			return m
		}, []string{"computation %main, instruction %while: %while: while: the condition %cond returns s32[], not pred[]"}},
		{"while shape", func() *Module {
			m, c, p := testModule(Scalar(s32))
			cond := &Computation{Name: "cond"}
			m.AddComputation(cond)
			cp := addParams(cond, Scalar(s32))
			cond.Root = cond.Add("lt", OpCompare, Scalar(pred), cp[0], cp[0])
			cond.Root.SetAttr("direction", Enum("LT"))
			body := &Computation{Name: "body"}
			m.AddComputation(body)
			bp := addParams(body, Scalar(s32))
			body.Root = bp[0]
			w := c.Add("while", OpWhile, Scalar(f32), p[0])
			w.Attrs = []Attr{{"condition", CompRef{cond}}, {"body", CompRef{body}}}
			c.Root = w
			return m
		}, []string{"computation %main, instruction %while: shape f32[] of %while disagrees with its body %body, which gives s32[]"}},
		{"entry layout", func() *Module {
			m, c, p := testModule(Array(f32, 4))
			c.Root = p[0]
			m.SetAttr("entry_computation_layout", &ProgramShape{Params: []Shape{Array(bf16, 4)}, Result: Array(f32, 4)})
			return m
		}, []string{"module m: entry_computation_layout gives parameter 0 the shape bf16[4]; %p is f32[4]"}},
		{"entry layout count", func() *Module {
			m, c, p := testModule(Array(f32, 4))
			c.Root = p[0]
			m.SetAttr("entry_computation_layout", &ProgramShape{Result: Array(f32, 3)})
			return m
		}, []string{
			"module m: entry_computation_layout gives the result the shape f32[3]; the root %p of %main is f32[4]",
			"module m: entry_computation_layout has 0 parameters; the entry computation %main has 1",
		}},
		{"iota", func() *Module {
			m, c, _ := testModule()
			c.Root = c.Add("iota", OpIota, Array(s32, 4))
			c.Root.Attrs = []Attr{{"iota_dimension", Int(1)}}
			return m
		}, []string{"computation %main, instruction %iota: iota_dimension=1 of %iota is out of range for s32[4]"}},
		{"bitcast size", func() *Module {
			m, c, p := testModule(Array(f32, 2, 3))
			p[0].Shape.SetDefaultLayouts()
			s := Array(f32, 5)
			s.SetDefaultLayouts()
			c.Root = c.Add("bitcast", OpBitcast, s, p[0])
			return m
		}, []string{"computation %main, instruction %bitcast: bitcast %bitcast turns f32[2,3] (24 bytes) into f32[5] (20 bytes)"}},
		{"bitcast without layouts", func() *Module {
			m, c, p := testModule(Array(f32, 2, 3))
			c.Root = c.Add("bitcast", OpBitcast, Array(f32, 5), p[0])
			return m
		}, nil},
		{"bad layout", func() *Module {
			m, c, p := testModule(Array(f32, 2, 3))
			p[0].Shape.Layout = &Layout{MinorToMajor: []int64{0}}
			c.Root = p[0]
			return m
		}, []string{"computation %main, instruction %p: the layout {0} of %p does not order the 2 dimensions of f32[2,3]"}},
		{"rng-bit-generator state", func() *Module {
			m, c, p := testModule(Array(dtype.U64, 2))
			c.Root = c.Add("rng", OpRngBitGenerator, Tuple(Array(dtype.U64, 3), Array(dtype.U32, 4)), p[0])
			c.Root.Attrs = []Attr{{"algorithm", Enum("rng_philox")}}
			return m
		}, []string{"computation %main, instruction %rng: the new state of rng-bit-generator %rng is u64[3]; it must have the shape of its state u64[2]"}},
		{"rng-bit-generator tuple", func() *Module {
			m, c, p := testModule(Array(dtype.U64, 2))
			c.Root = c.Add("rng", OpRngBitGenerator, Tuple(Array(dtype.U64, 2), Array(dtype.U32, 4), Array(dtype.U32, 4)), p[0])
			c.Root.Attrs = []Attr{{"algorithm", Enum("rng_philox")}}
			return m
		}, []string{"computation %main, instruction %rng: rng-bit-generator %rng gives (u64[2], u32[4], u32[4]); it must give a tuple of two elements, the new state and the bits"}},
		{"rng-bit-generator valid", func() *Module {
			m, c, p := testModule(Array(dtype.U64, 2))
			c.Root = c.Add("rng", OpRngBitGenerator, Tuple(Array(dtype.U64, 2), Array(dtype.U8, 3, 5)), p[0])
			c.Root.Attrs = []Attr{{"algorithm", Enum("rng_three_fry")}}
			return m
		}, nil},
		{"custom-call accepted", func() *Module {
			m, c, p := testModule(Array(e4m3, 16, 32), Array(e4m3, 16, 32))
			c.Root = c.CustomCall("__cublas$lt$matmul$f8", Tuple(Array(f32, 16, 16), Array(dtype.S8, 33554432)), p, `{"gemm_backend_config":{}}`)
			return m
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := errorLines(Verify(tt.build()))
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("Verify:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(tt.want, "\n\t"))
			}
		})
	}
}

func TestVerifyNil(t *testing.T) {
	if err := Verify(nil); err == nil {
		t.Error("Verify(nil) = nil; want an error")
	}
}

// TestVerifyRegisteredCustomCall checks that Verify runs the check registered for a custom-call's target,
// and only on calls to that target.
func TestVerifyRegisteredCustomCall(t *testing.T) {
	RegisterCustomCall("octet.test.checked", func(in *Instruction) error {
		if in.NumOperands() != 1 {
			return errors.New("the call takes one operand")
		}
		return nil
	})
	m, c, p := testModule(Array(f32, 4))
	call := func(target string, ops ...*Instruction) *Instruction {
		in := c.Add("call", OpCustomCall, Array(f32, 4), ops...)
		in.SetAttr("custom_call_target", String(target))
		return in
	}
	call("octet.test.checked", p[0])
	call("octet.test.other", p[0], p[0])
	c.Root = call("octet.test.checked", p[0], p[0])
	lines := errorLines(Verify(m))
	want := "computation %main, instruction %" + c.Root.Name + ": the call takes one operand"
	if len(lines) != 1 || lines[0] != want {
		t.Errorf("Verify:\n\t%s\nwant only:\n\t%s", strings.Join(lines, "\n\t"), want)
	}
}

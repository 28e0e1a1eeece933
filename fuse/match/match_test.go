package match_test

import (
	"math"
	"slices"
	"testing"

	"octet/dtype"
	"octet/fuse/match"
	"octet/hlo"
	"octet/hlo/parser"
)

const module = `
HloModule m

ENTRY main {
  x = f8e4m3fn[4,8] parameter(0)
  s = f32[] parameter(1)
  xf = f32[4,8] convert(x)
  sb = f32[4,8] broadcast(s), dimensions={}
  dq = f32[4,8] multiply(xf, sb)
  dq2 = f32[4,8] multiply(sb, xf)
  dv = f32[4,8] divide(xf, sb)
  k = bf16[] constant(0.796875)
  k2 = bf16[] constant(0.5)
  kb = bf16[4,8] broadcast(k), dimensions={}
  sq = f32[4,8] multiply(dq, dq)
  cube = f32[4,8] multiply(sq, dq)
  ROOT t = (f32[4,8], f32[4,8], f32[4,8], bf16[4,8], f32[4,8], bf16[]) tuple(dq, dq2, dv, kb, cube, k2)
}
`

func parse(t *testing.T) map[string]*hlo.Instruction {
	t.Helper()
	m, err := parser.ParseString("m.hlo", module)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*hlo.Instruction{}
	for _, in := range m.Entry.Instructions {
		byName[in.Name] = in
	}
	return byName
}

func TestDequantizePattern(t *testing.T) {
	ins := parse(t)
	for _, tc := range []struct {
		name   string
		in     string
		divide bool
		ok     bool
	}{
		{"multiply", "dq", false, true},
		{"multiply, operands swapped", "dq2", false, true},
		{"divide", "dv", true, true},
		{"divide is not a multiply", "dv", false, false},
		{"a convert alone", "xf", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var x, s *hlo.Instruction
			fp8 := match.Op().Bind(&x).Where("FP8", match.FP8)
			p := match.Multiply(match.Convert(fp8), match.BroadcastScalar(match.Op().Bind(&s)))
			if tc.divide {
				p = match.Divide(match.Convert(fp8), match.BroadcastScalar(match.Op().Bind(&s)))
			}
			got := match.Match(ins[tc.in], p)
			if got != tc.ok {
				t.Fatalf("Match(%s, %s) = %v, want %v", tc.in, p, got, tc.ok)
			}
			if got && (x != ins["x"] || s != ins["s"]) {
				t.Errorf("captures x=%v s=%v, want %%x and %%s", x, s)
			}
			if !got && (x != nil || s != nil) {
				t.Errorf("a failed match left captures x=%v s=%v", x, s)
			}
		})
	}
}

func TestSameAndRollback(t *testing.T) {
	ins := parse(t)
	x := ins["dq"]
	// cube = (dq * dq) * dq: matches x * (x * x) with the operands in the other order.
	var sq *hlo.Instruction
	p := match.Multiply(match.Same(&x), match.Multiply(match.Same(&x), match.Same(&x)).Bind(&sq))
	if !match.Match(ins["cube"], p) {
		t.Fatalf("%s does not match %%cube", p)
	}
	if sq != ins["sq"] {
		t.Errorf("sq = %v, want %%sq", sq)
	}
	// The same pattern on another value fails and leaves sq as it was.
	other := ins["dq2"]
	sq = nil
	p = match.Multiply(match.Same(&other), match.Multiply(match.Same(&other), match.Same(&other)).Bind(&sq))
	if match.Match(ins["cube"], p) || sq != nil {
		t.Errorf("matched a cube of the wrong value (sq=%v)", sq)
	}
}

func TestConstantValues(t *testing.T) {
	ins := parse(t)
	v, ok := match.ConstantValue(ins["k"])
	if !ok || v != 0.796875 {
		t.Fatalf("ConstantValue(k) = %v, %v", v, ok)
	}
	near := match.ConstantScalar().Near(math.Sqrt(2 / math.Pi))
	if !match.Match(ins["k"], near) {
		t.Errorf("bf16 0.796875 is not near sqrt(2/pi)")
	}
	if match.Match(ins["k2"], near) {
		t.Errorf("0.5 is near sqrt(2/pi)")
	}
	if !match.Match(ins["kb"], match.BroadcastScalar(match.ConstantScalar().Elem(dtype.BF16))) {
		t.Errorf("broadcast of a bf16 constant does not match")
	}
	if got := match.RoundTo(dtype.BF16, 0.044715); got != 0.044677734375 {
		t.Errorf("RoundTo(bf16, 0.044715) = %v", got)
	}
}

func TestAnyOfAndString(t *testing.T) {
	ins := parse(t)
	var x *hlo.Instruction
	p := match.AnyOf(match.Divide(match.Op().Bind(&x), nil), match.Multiply(match.Op().Bind(&x), match.Broadcast(nil)))
	if !match.Match(ins["dq2"], p) || x != ins["xf"] {
		t.Errorf("AnyOf: x = %v, want %%xf", x)
	}
	// The first operand order binds a before failing; the second must see a fresh binding.
	var a *hlo.Instruction
	if !match.Match(ins["dq"], match.Multiply(match.Op().Bind(&a), match.Convert(nil))) || a != ins["sb"] {
		t.Errorf("after the swapped order a = %v, want %%sb", a)
	}
	want := "multiply(convert(x{FP8}), broadcast(scalar))"
	if got := match.Multiply(match.Convert(match.Op().Where("FP8", match.FP8)), match.BroadcastScalar(nil)).String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestNamesAndShort(t *testing.T) {
	ins := parse(t)
	fp8 := match.Op().Where("FP8", match.FP8).As("FP8")
	p := match.ScaleMultiply(match.Convert(fp8), nil)
	if got, want := p.Short(), "multiply(convert(FP8), broadcast(scalar))"; got != want {
		t.Errorf("Short() = %q, want %q", got, want)
	}
	if got, want := p.String(), "multiply(convert{not a broadcast scalar}(FP8), broadcast(scalar))"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	// A name changes only the printing: the named pattern still checks its conditions.
	if !match.Match(ins["dq2"], p) || match.Match(ins["sq"], p) {
		t.Errorf("a named FP8 leaf matches differently from an unnamed one")
	}
	half := match.BroadcastScalar(match.ConstantScalar().Value(0.5))
	if got, want := half.Short(), "broadcast(0.5)"; got != want {
		t.Errorf("Value names the constant: Short() = %q, want %q", got, want)
	}
	if got, want := match.ConstantScalar().Near(0.8).As("k").Short(), "k"; got != want {
		t.Errorf("As after Near: Short() = %q, want %q", got, want)
	}
	if got, want := match.DynamicSlice(nil).String(), "dynamic-slice(x, ...)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// TestOpcodes checks the opcodes a pattern's root may have: its own, the union of its alternatives', or
// any (nil) where one alternative takes any; and that a pattern matches no instruction of another opcode.
func TestOpcodes(t *testing.T) {
	ins := parse(t)
	for _, c := range []struct {
		p    *match.Pattern
		want []hlo.Opcode
	}{
		{match.Multiply(nil, nil), []hlo.Opcode{hlo.OpMultiply}},
		{match.Op(), nil},
		{match.Op().Where("FP8", match.FP8).As("FP8"), nil},
		{match.AnyOf(match.Divide(nil, nil), match.Multiply(nil, nil), match.Divide(nil, nil)), []hlo.Opcode{hlo.OpDivide, hlo.OpMultiply}},
		{match.AnyOf(match.Divide(nil, nil), match.Op()), nil},
		{match.AnyOf(match.AnyOf(match.Convert(nil), match.Copy(nil)), match.Broadcast(nil)), []hlo.Opcode{hlo.OpConvert, hlo.OpCopy, hlo.OpBroadcast}},
	} {
		got := c.p.Opcodes()
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: opcodes %v, want %v", c.p, got, c.want)
		}
		for name, in := range ins {
			if got != nil && !slices.Contains(got, in.Opcode) && match.Match(in, c.p) {
				t.Errorf("%s matches %%%s, a %s", c.p, name, in.Opcode)
			}
		}
	}
}

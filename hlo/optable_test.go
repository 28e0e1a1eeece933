package hlo

import (
	"slices"
	"strings"
	"testing"
)

// TestOpTableComplete checks that every opcode has an entry and that the entries are well formed.
func TestOpTableComplete(t *testing.T) {
	if len(opInfos) != len(Opcodes()) {
		t.Errorf("the table has %d entries for %d opcodes", len(opInfos), len(Opcodes()))
	}
	seen := map[string]bool{}
	for _, s := range CommonAttrs() {
		if seen[s.Name] {
			t.Errorf("common attribute %s is listed twice", s.Name)
		}
		seen[s.Name] = true
		if s.Required {
			t.Errorf("common attribute %s is required", s.Name)
		}
	}
	for _, op := range Opcodes() {
		info := op.Info()
		if _, ok := opInfos[op]; !ok || info == nil || info.Opcode != op {
			t.Errorf("%s has no entry", op)
			continue
		}
		if a := info.Operands; a.Min < 0 || a.Max != Variadic && a.Max < a.Min {
			t.Errorf("%s: bad arity %+v", op, a)
		}
		if info.Commutative && info.Operands != fixed(2) {
			t.Errorf("%s is commutative but does not take 2 operands", op)
		}
		if info.StableHLO != "" && !strings.Contains(info.StableHLO, ".") {
			t.Errorf("%s: StableHLO name %q has no dialect", op, info.StableHLO)
		}
		names := map[string]bool{}
		for _, s := range info.Attrs {
			if names[s.Name] {
				t.Errorf("%s: attribute %s is listed twice", op, s.Name)
			}
			names[s.Name] = true
			if commonAttr(s.Name) != nil {
				t.Errorf("%s: attribute %s shadows a common attribute", op, s.Name)
			}
			if isEnum := s.Kind == AttrEnum || s.Kind == AttrEnums; isEnum != (len(s.Values) > 0) {
				t.Errorf("%s: attribute %s of kind %s has words %v", op, s.Name, s.Kind, s.Values)
			}
			isComp := s.Kind == AttrComp || s.Kind == AttrComps
			if isComp != (s.Role != "") && s.Name != "called_computations" {
				t.Errorf("%s: attribute %s of kind %s has role %q", op, s.Name, s.Kind, s.Role)
			}
		}
	}
	if OpInvalid.Info() != nil || numOpcodes.Info() != nil {
		t.Error("Info of an invalid opcode is not nil")
	}
}

// TestOpTablePredicates pins the predicates derived from the table to the opcodes they must hold for.
func TestOpTablePredicates(t *testing.T) {
	tests := []struct {
		name string
		pred func(Opcode) bool
		want []Opcode
	}{
		{"IsElementwiseUnary", Opcode.IsElementwiseUnary, []Opcode{OpAbs, OpAcos, OpAcosh, OpAsin, OpAsinh,
			OpAtan, OpAtanh, OpCbrt, OpCeil, OpClz, OpCos, OpCosh, OpErf, OpExp, OpExpm1, OpFloor, OpImag,
			OpIsFinite, OpLog, OpLog1p, OpLogistic, OpNegate, OpNot, OpPopulationCount, OpReal,
			OpRoundNearestAfz, OpRoundNearestEven, OpRsqrt, OpSign, OpSin, OpSinh, OpSqrt, OpTan, OpTanh,
			OpConvert, OpBitcastConvert, OpReducePrecision, OpCopy}},
		{"IsElementwiseBinary", Opcode.IsElementwiseBinary, []Opcode{OpAdd, OpAtan2, OpComplex, OpDivide,
			OpMaximum, OpMinimum, OpMulhi, OpMultiply, OpPower, OpRemainder, OpSubtract, OpAnd, OpOr, OpXor,
			OpShiftLeft, OpShiftRightArithmetic, OpShiftRightLogical, OpCompare, OpStochasticConvert}},
		{"IsCommutative", Opcode.IsCommutative, []Opcode{OpAdd, OpMultiply, OpMulhi, OpMaximum, OpMinimum,
			OpAnd, OpOr, OpXor}},
		{"HasSideEffect", func(op Opcode) bool { return (&Instruction{Opcode: op}).HasSideEffect() }, []Opcode{
			OpSend, OpSendDone, OpRecv, OpRecvDone, OpInfeed, OpOutfeed, OpRng, OpRngGetAndUpdateState,
			OpAllReduceStart, OpAllGatherStart, OpCollectivePermuteStart, OpAsyncStart, OpAsyncUpdate,
			OpAsyncDone, OpCopyStart, OpCopyDone, OpAfterAll, OpAddDependency}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, op := range Opcodes() {
				if got, want := tt.pred(op), slices.Contains(tt.want, op); got != want {
					t.Errorf("%s(%s) = %v, want %v", tt.name, op, got, want)
				}
			}
		})
	}
	for _, op := range []Opcode{OpSelect, OpClamp} {
		if !op.IsElementwise() || op.IsElementwiseUnary() || op.IsElementwiseBinary() {
			t.Errorf("%s: elementwise but neither unary nor binary expected", op)
		}
	}
	cc := &Instruction{Opcode: OpCustomCall}
	if cc.HasSideEffect() {
		t.Error("a custom-call without custom_call_has_side_effect has a side effect")
	}
	cc.SetAttr("custom_call_has_side_effect", Bool(true))
	if !cc.HasSideEffect() {
		t.Error("a custom-call with custom_call_has_side_effect=true has no side effect")
	}
}

func TestAttrKindAccepts(t *testing.T) {
	tests := []struct {
		kind AttrKind
		v    Value
		want bool
	}{
		{AttrInt, Int(3), true},
		{AttrInt, Raw("x"), false},
		{AttrInts, Ints{1}, true},
		{AttrInts, Int(1), false},
		{AttrFloat, Float(0.001), true},
		{AttrFloat, Int(1), true},
		{AttrFloat, Raw("0.001"), false},
		{AttrString, String("x"), true},
		{AttrString, Raw(`"x"`), true},
		{AttrString, Raw("x"), false},
		{AttrEnum, Enum("LT"), true},
		{AttrEnum, Raw("TOTALORDER"), true},
		{AttrEnum, Raw("{1}"), false},
		{AttrComps, CompRef{}, true},
		{AttrComp, CompList{}, false},
		{AttrText, Ints{1}, true},
		{AttrBool, Raw("yes"), false},
	}
	for _, tt := range tests {
		if got := tt.kind.Accepts(tt.v); got != tt.want {
			t.Errorf("%s.Accepts(%#v) = %v, want %v", tt.kind, tt.v, got, tt.want)
		}
	}
}

func TestArity(t *testing.T) {
	tests := []struct {
		a          Arity
		str, words string
		ok, notOK  int
	}{
		{fixed(2), "2", "2 operands", 2, 3},
		{fixed(1), "1", "1 operand", 1, 0},
		{atLeast(1), "1+", "at least 1 operand", 5, 0},
		{Arity{Min: 1, Max: 4}, "1..4", "1 to 4 operands", 4, 5},
		{everyOther(2), "2,4,...", "an even number of operands, at least 2", 6, 5},
		{everyOther(3), "3,5,...", "an odd number of operands, at least 3", 5, 4},
	}
	for _, tt := range tests {
		if tt.a.String() != tt.str || tt.a.describe() != tt.words || !tt.a.Allows(tt.ok) || tt.a.Allows(tt.notOK) {
			t.Errorf("%+v: %q, %q, Allows(%d)=%v, Allows(%d)=%v", tt.a, tt.a.String(), tt.a.describe(),
				tt.ok, tt.a.Allows(tt.ok), tt.notOK, tt.a.Allows(tt.notOK))
		}
	}
}

// TestVerifyOperations checks built instructions against the table: Verify sees what the parser would
// have rejected.
func TestVerifyOperations(t *testing.T) {
	tests := []struct {
		name  string
		build func(c *Computation, p []*Instruction)
		want  string
	}{
		{"dot with one operand", func(c *Computation, p []*Instruction) {
			c.Root = c.Add("dot", OpDot, Array(f32, 4), p[0])
		}, "computation %main, instruction %dot: dot takes 2 operands, got 1"},
		{"broadcast without dimensions", func(c *Computation, p []*Instruction) {
			c.Root = c.Add("broadcast", OpBroadcast, Array(f32, 4, 4), p[0])
		}, "computation %main, instruction %broadcast: broadcast needs attribute dimensions"},
		{"unknown attribute", func(c *Computation, p []*Instruction) {
			c.Root = c.Add("negate", OpNegate, Array(f32, 4), p[0])
			c.Root.SetAttr("foo", Raw("bar"))
		}, "computation %main, instruction %negate: unknown attribute foo on negate"},
		{"wrong kind", func(c *Computation, p []*Instruction) {
			c.Root = c.Add("transpose", OpTranspose, Array(f32, 4), p[0])
			c.Root.SetAttr("dimensions", Int(0))
		}, "computation %main, instruction %transpose: attribute dimensions on transpose takes an integer list, got 0"},
		{"enum word", func(c *Computation, p []*Instruction) {
			c.Root = c.Add("compare", OpCompare, Array(pred, 4), p[0], p[0])
			c.Root.SetAttr("direction", Enum("LESS"))
		}, "computation %main, instruction %compare: attribute direction on compare is one of EQ, NE, GE, GT, LE, LT, got LESS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, c, p := testModule(Array(f32, 4))
			tt.build(c, p)
			lines := errorLines(Verify(m))
			if !slices.Contains(lines, tt.want) {
				t.Errorf("Verify:\n\t%s\nwant among them:\n\t%s", strings.Join(lines, "\n\t"), tt.want)
			}
		})
	}
}

// TestCommonAttrsCopied checks that a caller changing the common attributes it got changes nothing that
// the table checks.
func TestCommonAttrsCopied(t *testing.T) {
	specs := CommonAttrs()
	for i := range specs {
		specs[i].Name = "changed"
		specs[i].Kind = AttrInt
	}
	spec := OpAdd.Info().Attr("metadata")
	if spec == nil || spec.Kind != AttrMetadata {
		t.Fatalf("add's metadata attribute is %+v after a caller changed its copy of the common attributes", spec)
	}
	if again := CommonAttrs(); again[0].Name == "changed" {
		t.Errorf("CommonAttrs()[0] is %+v after a caller changed its copy", again[0])
	}
}

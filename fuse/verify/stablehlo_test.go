package verify_test

import (
	"fmt"
	"go/token"
	"math"
	"strings"
	"testing"

	"octet/dtype"
	"octet/fuse"
	"octet/fuse/match"
	"octet/hlo"
	"octet/hlo/parser"
	"octet/interp"
	"octet/stablehlo"
)

// The generated modules again, written as JAX writes StableHLO and read back by package stablehlo: the
// module converted from StableHLO must compute the same bits as the HLO one, and the rewrite must decide
// the same of it.

// mlirElems are the MLIR names of the element types the generator writes.
var mlirElems = map[dtype.Type]string{dtype.PRED: "i1", dtype.S32: "i32", dtype.F32: "f32", dtype.BF16: "bf16",
	dtype.F16: "f16", dtype.F8E4M3FN: "f8E4M3FN", dtype.F8E5M2: "f8E5M2", dtype.F8E4M3FNUZ: "f8E4M3FNUZ",
	dtype.F8E5M2FNUZ: "f8E5M2FNUZ", dtype.F8E4M3B11FNUZ: "f8E4M3B11FNUZ", dtype.F8E3M4: "f8E3M4",
	dtype.F8E4M3: "f8E4M3", dtype.F8E8M0FNU: "f8E8M0FNU", dtype.F4E2M1FN: "f4E2M1FN", dtype.F6E2M3FN: "f6E2M3FN",
	dtype.F6E3M2FN: "f6E3M2FN"}

func tensorType(s hlo.Shape) string {
	var b strings.Builder
	b.WriteString("tensor<")
	for _, d := range s.Dims {
		fmt.Fprintf(&b, "%dx", d)
	}
	b.WriteString(mlirElems[s.Elem] + ">")
	return b.String()
}

func ints(xs []int64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// toStableHLO writes the entry computation of m (one the generator wrote) as StableHLO, in the pretty
// forms JAX prints; copies and bitcasts, which StableHLO has not, are left out.
func toStableHLO(m *hlo.Module) (string, error) {
	c := m.Entry
	name := map[*hlo.Instruction]string{}
	var body strings.Builder
	args := make([]string, len(c.Params))
	for i, p := range c.Params {
		name[p] = fmt.Sprintf("%%arg%d", i)
		args[i] = fmt.Sprintf("%%arg%d: %s", i, tensorType(p.Shape))
	}
	n := 0
	for _, x := range c.Instructions {
		if x.Opcode == hlo.OpParameter {
			continue
		}
		ops := x.Operands()
		var on []string
		var ot []string
		for _, o := range ops {
			on = append(on, name[o])
			ot = append(ot, tensorType(o.Shape))
		}
		t := tensorType(x.Shape)
		sig := "(" + strings.Join(ot, ", ") + ") -> " + t
		var line string
		switch x.Opcode {
		case hlo.OpCopy, hlo.OpBitcast:
			name[x] = on[0]
			continue
		case hlo.OpConstant:
			v, ok := match.ConstantValue(x)
			if !ok {
				return "", fmt.Errorf("constant %s", x.Name)
			}
			lit := fmt.Sprintf("%e", v)
			switch {
			case x.Shape.Elem == dtype.S32:
				lit = fmt.Sprint(int64(v))
			case math.IsInf(v, 0):
				lit = fmt.Sprintf("0x%X", x.Shape.Elem.EncodeFloat64(v))
			}
			line = fmt.Sprintf("stablehlo.constant dense<%s> : %s", lit, t)
		case hlo.OpConvert, hlo.OpReshape:
			line = fmt.Sprintf("stablehlo.%s %s : %s", x.Opcode, on[0], sig)
		case hlo.OpBroadcast:
			line = fmt.Sprintf("stablehlo.broadcast_in_dim %s, dims = %s : %s", on[0], ints(x.Ints("dimensions")), sig)
		case hlo.OpTranspose:
			line = fmt.Sprintf("stablehlo.transpose %s, dims = %s : %s", on[0], ints(x.Ints("dimensions")), sig)
		case hlo.OpAdd, hlo.OpMultiply, hlo.OpDivide, hlo.OpMaximum, hlo.OpMinimum:
			line = fmt.Sprintf("stablehlo.%s %s, %s : %s", x.Opcode, on[0], on[1], t)
		case hlo.OpNegate, hlo.OpAbs, hlo.OpTanh:
			line = fmt.Sprintf("stablehlo.%s %s : %s", x.Opcode, on[0], t)
		case hlo.OpExp:
			line = fmt.Sprintf("stablehlo.exponential %s : %s", on[0], t)
		case hlo.OpSelect:
			line = fmt.Sprintf("stablehlo.select %s, %s, %s : %s, %s", on[0], on[1], on[2], ot[0], t)
		case hlo.OpClamp:
			line = fmt.Sprintf("stablehlo.clamp %s, %s, %s : %s", on[0], on[1], on[2], t)
		case hlo.OpSlice:
			sl, _ := x.Attr("slice").(hlo.Slice)
			parts := make([]string, len(sl))
			for i, d := range sl {
				parts[i] = fmt.Sprintf("%d:%d", d.Start, d.Limit)
			}
			line = fmt.Sprintf("stablehlo.slice %s [%s] : %s", on[0], strings.Join(parts, ", "), sig)
		case hlo.OpPad:
			pd, _ := x.Attr("padding").(hlo.Padding)
			var lo, hi, in []int64
			for _, d := range pd {
				lo, hi, in = append(lo, d.Low), append(hi, d.High), append(in, d.Interior)
			}
			line = fmt.Sprintf("stablehlo.pad %s, %s, low = %s, high = %s, interior = %s : %s", on[0], on[1], ints(lo), ints(hi), ints(in), sig)
		case hlo.OpDynamicSlice:
			line = fmt.Sprintf("stablehlo.dynamic_slice %s, sizes = %s : %s", strings.Join(on, ", "), ints(x.Ints("dynamic_slice_sizes")), sig)
		case hlo.OpDot:
			line = fmt.Sprintf("stablehlo.dot_general %s, %s, ", on[0], on[1])
			if lb := x.Ints("lhs_batch_dims"); len(lb) > 0 {
				line += fmt.Sprintf("batching_dims = %s x %s, ", ints(lb), ints(x.Ints("rhs_batch_dims")))
			}
			line += fmt.Sprintf("contracting_dims = %s x %s, precision = [DEFAULT, DEFAULT] : %s",
				ints(x.Ints("lhs_contracting_dims")), ints(x.Ints("rhs_contracting_dims")), sig)
		case hlo.OpReduce:
			line = fmt.Sprintf("stablehlo.reduce(%s init: %s) applies stablehlo.maximum across dimensions = %s : %s",
				on[0], on[1], ints(x.Ints("dimensions")), sig)
		case hlo.OpTuple:
			if x != c.Root {
				return "", fmt.Errorf("a tuple inside")
			}
			fmt.Fprintf(&body, "    return %s : %s\n", strings.Join(on, ", "), strings.Join(ot, ", "))
			continue
		default:
			return "", fmt.Errorf("no StableHLO form written for %s", x.Opcode)
		}
		n++
		name[x] = fmt.Sprintf("%%%d", n)
		fmt.Fprintf(&body, "    %s = %s\n", name[x], line)
		if x == c.Root {
			fmt.Fprintf(&body, "    return %s : %s\n", name[x], t)
		}
	}
	var results []string
	if c.Root.Shape.IsTuple() {
		for _, s := range c.Root.Shape.Tuple {
			results = append(results, tensorType(s))
		}
	} else {
		results = []string{tensorType(c.Root.Shape)}
	}
	if c.Root.Opcode == hlo.OpCopy || c.Root.Opcode == hlo.OpBitcast {
		fmt.Fprintf(&body, "    return %s : %s\n", name[c.Root], results[0])
	}
	return fmt.Sprintf("module @generated {\n  func.func public @main(%s) -> (%s) {\n%s  }\n}\n",
		strings.Join(args, ", "), strings.Join(results, ", "), body.String()), nil
}

// checkStableHLO converts the module generate makes of data to StableHLO and back, and checks that both
// compute the same bits on random inputs and that the rewrite fuses as many dots, with the same
// epilogues, in both.
func checkStableHLO(t *testing.T, data []byte, seed uint64) {
	src, opts := generate(data)
	m, err := parser.ParseString("generated.hlo", src)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	mlir, err := toStableHLO(m)
	if err != nil {
		t.Skip(err)
	}
	mods, err := stablehlo.ParseFile(token.NewFileSet(), "generated.mlir", []byte(mlir))
	if err != nil {
		t.Fatalf("StableHLO does not convert: %v\n%s\nfrom\n%s", err, mlir, src)
	}
	conv := mods[0]
	if err := hlo.Verify(conv); err != nil {
		t.Fatalf("the converted module does not verify: %v\n%s", err, mlir)
	}
	args, err := interp.RandomInputs(m, seed)
	if err != nil {
		t.Fatal(err)
	}
	want, err := interp.Run(m, args, interp.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	got, err := interp.Run(conv, args, interp.Options{Threads: 1})
	if err != nil {
		t.Fatalf("the converted module: %v\n%s", err, mlir)
	}
	if c := interp.Compare(want, got); c.Mismatch != "" || c.BitMatches != c.Elements {
		t.Fatalf("the converted module computes otherwise: %s\n%s\nfrom\n%s", c.String(), mlir, src)
	}
	decided := func(m *hlo.Module) []string {
		var out []string
		for _, d := range fuse.Rewrite(m, opts).Decisions {
			out = append(out, fmt.Sprintf("fused %v %s %s damax %v D %s", d.Fused, d.Target, d.Epilogue, d.Damax, d.DType))
		}
		return out
	}
	if a, b := decided(m), decided(conv); strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Errorf("the rewrite decides\n%s\nof the HLO module and\n%s\nof the converted one\n%s\nfrom\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"), mlir, src)
	}
}

// TestGeneratedStableHLO runs checkStableHLO on the modules TestGeneratedRewrites draws.
func TestGeneratedStableHLO(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 60
	}
	for i, s := range generatedSeeds(n) {
		if !t.Run("", func(t *testing.T) { checkStableHLO(t, s, uint64(i)) }) {
			t.Logf("data %x", s)
		}
	}
}

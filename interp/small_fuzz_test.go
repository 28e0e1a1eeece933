package interp

import (
	"fmt"
	"strings"
	"testing"

	"octet/hlo/parser"
)

// FuzzSmallPrograms writes a loop over a state of small arrays from the fuzzer's bytes (elementwise
// operations of every kind on integer, float and pred arrays, compares and selects, conversions and
// bitcasts, moves, dynamic slices and updates, scatters, dots, reductions) and requires the same bits from its small
// program as from the evaluation instruction by instruction.
func FuzzSmallPrograms(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Add([]byte{3, 7, 1, 200, 45, 9, 18, 250, 33, 4, 91, 5, 77, 120, 6, 2, 8, 8, 8, 8, 17, 190})
	f.Add([]byte("the quick brown fox jumps over the lazy dog, twice: the quick brown fox"))
	f.Fuzz(func(t *testing.T, data []byte) {
		src, small := smallFuzzModule(data)
		m, err := parser.ParseString("fuzz.hlo", src)
		if err != nil {
			t.Fatalf("the generator wrote a module the parser rejects: %v\n%s", err, src)
		}
		args, err := RandomInputs(m, uint64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		if _, _, n := runSmall(t, m, args, Options{MaxWork: 1_000_000}); n == 0 && small {
			t.Fatalf("no small program in\n%s", src)
		}
	})
}

// smallFuzzModule writes the module for FuzzSmallPrograms; small is false where the loop is not a small
// program (it reads the large array's old value after updating it).
func smallFuzzModule(data []byte) (src string, small bool) {
	small = true
	pos := 0
	next := func(n int) int {
		if pos >= len(data) {
			pos++
			return pos % n
		}
		b := int(data[pos])
		pos++
		return b % n
	}
	types := []string{"s32", "u32", "u8", "s8", "s64", "f32", "bf16", "f16", "f64", "pred", "f8e4m3fn"}
	shapes := []string{"[]", "[3]", "[2,3]"}
	type value struct{ name, typ, shape string }
	full := func(v value) string { return v.typ + v.shape }
	isInt := func(t string) bool { return t[0] == 's' || t[0] == 'u' }
	isFloat := func(t string) bool { return t[0] == 'f' || t[0] == 'b' }

	// The state: a counter and three arrays.
	var state []value
	for i := range 3 {
		state = append(state, value{fmt.Sprintf("s%d", i), types[next(len(types))], shapes[next(len(shapes))]})
	}
	// And a large array (past smallElems), which the body reads and may update in place.
	bigTypes := []string{"s32", "f32", "bf16", "u8", "f64"}
	big := value{"big", bigTypes[next(len(bigTypes))], "[100]"}
	stateShape := "(s32[]"
	for _, s := range state {
		stateShape += ", " + full(s)
	}
	stateShape += ", " + full(big) + ")"

	var b, combs strings.Builder
	fmt.Fprintf(&combs, "HloModule fuzz\n\nadd_s32 {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT s = s32[] add(a, b)\n}\n\n")
	// comb names a scatter's update computation for type t, written once: the update itself, or its
	// combination with the old value.
	made := map[string]bool{}
	comb := func(t string) string {
		ops := []string{"copy(b)", "maximum(a, b)", "add(a, b)"}
		if t == "pred" {
			ops = []string{"copy(b)", "or(a, b)", "xor(a, b)"}
		}
		k := next(len(ops))
		name := fmt.Sprintf("comb_%s_%d", t, k)
		if !made[name] {
			made[name] = true
			fmt.Fprintf(&combs, "%s {\n  a = %s[] parameter(0)\n  b = %s[] parameter(1)\n  ROOT r = %s[] %s\n}\n\n", name, t, t, t, ops[k])
		}
		return name
	}
	fmt.Fprintf(&b, "body {\n  p = %s parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n", stateShape)
	pool := []value{{"i", "s32", "[]"}}
	for k, s := range state {
		fmt.Fprintf(&b, "  %s = %s get-tuple-element(p), index=%d\n", s.name, full(s), k+1)
		pool = append(pool, s)
	}
	fmt.Fprintf(&b, "  big = %s get-tuple-element(p), index=%d\n", full(big), len(state)+1)
	pick := func() value { return pool[next(len(pool))] }
	same := func(v value) value { // another value of v's type and shape, or v
		for range 4 {
			if w := pick(); w.typ == v.typ && w.shape == v.shape {
				return w
			}
		}
		return v
	}
	// temp writes an instruction; emit also makes its value one the next may read (of the shapes above).
	temp := func(v value, format string, args ...any) {
		fmt.Fprintf(&b, "  %s = %s %s\n", v.name, full(v), fmt.Sprintf(format, args...))
	}
	emit := func(v value, format string, args ...any) {
		temp(v, format, args...)
		pool = append(pool, v)
	}
	nops := 6 + next(20)
	for k := range nops {
		x := pick()
		name := fmt.Sprintf("v%d", k)
		switch next(12) {
		case 0: // unary
			ops := []string{"negate", "abs", "sign"}
			switch {
			case isFloat(x.typ):
				ops = append(ops, "floor", "sqrt", "exponential", "round-nearest-even", "tanh")
			case x.typ == "pred":
				ops = []string{"not"}
			default:
				ops = append(ops, "not", "popcnt", "count-leading-zeros")
			}
			emit(value{name, x.typ, x.shape}, "%s(%s)", ops[next(len(ops))], x.name)
		case 1, 2: // binary
			ops := []string{"add", "subtract", "multiply", "maximum", "minimum"}
			switch {
			case isFloat(x.typ):
				ops = append(ops, "divide", "remainder", "power", "atan2")
			case x.typ == "pred":
				ops = []string{"and", "or", "xor"}
			default:
				ops = append(ops, "divide", "remainder", "and", "or", "xor", "shift-left", "shift-right-logical", "shift-right-arithmetic")
			}
			emit(value{name, x.typ, x.shape}, "%s(%s, %s)", ops[next(len(ops))], x.name, same(x).name)
		case 3: // compare, select
			dirs := []string{"EQ", "NE", "LT", "LE", "GT", "GE"}
			y := same(x)
			emit(value{name + "c", "pred", x.shape}, "compare(%s, %s), direction=%s", x.name, y.name, dirs[next(len(dirs))])
			emit(value{name, x.typ, x.shape}, "select(%s, %s, %s)", name+"c", x.name, y.name)
		case 4: // convert
			emit(value{name, types[next(len(types))], x.shape}, "convert(%s)", x.name)
		case 5: // bitcast-convert between types of one width
			widths := map[string]string{"s32": "u32", "u32": "f32", "f32": "s32", "u8": "s8", "s8": "f8e4m3fn",
				"f8e4m3fn": "u8", "bf16": "f16", "f16": "bf16", "s64": "f64", "f64": "s64"}
			if to, ok := widths[x.typ]; ok {
				emit(value{name, to, x.shape}, "bitcast-convert(%s)", x.name)
			}
		case 6: // moves
			switch x.shape {
			case "[]":
				emit(value{name, x.typ, "[2,3]"}, "broadcast(%s), dimensions={}", x.name)
			case "[3]":
				switch next(3) {
				case 0:
					emit(value{name, x.typ, "[2,3]"}, "broadcast(%s), dimensions={1}", x.name)
				case 1:
					emit(value{name, x.typ, "[3]"}, "reverse(%s), dimensions={0}", x.name)
				default:
					temp(value{name + "s", x.typ, "[2]"}, "slice(%s), slice={[1:3]}", x.name)
					temp(value{name + "h", x.typ, "[1]"}, "slice(%s), slice={[0:1]}", x.name)
					emit(value{name, x.typ, "[3]"}, "concatenate(%s, %s), dimensions={0}", name+"s", name+"h")
				}
			default:
				switch next(3) {
				case 0:
					temp(value{name + "t", x.typ, "[3,2]"}, "transpose(%s), dimensions={1,0}", x.name)
					emit(value{name, x.typ, "[2,3]"}, "reshape(%s)", name+"t")
				case 1:
					temp(value{name + "r", x.typ, "[1,3]"}, "slice(%s), slice={[1:2], [0:3]}", x.name)
					emit(value{name, x.typ, "[3]"}, "reshape(%s)", name+"r")
				default:
					emit(value{name, x.typ, "[2,3]"}, "reverse(%s), dimensions={0,1}", x.name)
				}
			}
		case 7: // dynamic slices with an index from the loop
			if x.shape == "[]" {
				continue
			}
			idx := "i"
			if next(2) == 0 {
				emit(value{name + "m", "s32", "[]"}, "constant(%d)", next(7)-3)
				emit(value{name + "k", "s32", "[]"}, "multiply(i, %s)", name+"m")
				idx = name + "k"
			}
			if x.shape == "[3]" {
				temp(value{name + "d", x.typ, "[2]"}, "dynamic-slice(%s, %s), dynamic_slice_sizes={2}", x.name, idx)
				emit(value{name, x.typ, "[3]"}, "dynamic-update-slice(%s, %s, %s)", x.name, name+"d", "i")
			} else {
				temp(value{name + "d", x.typ, "[1,2]"}, "dynamic-slice(%s, %s, %s), dynamic_slice_sizes={1,2}", x.name, idx, idx)
				emit(value{name, x.typ, "[2,3]"}, "dynamic-update-slice(%s, %s, i, %s)", x.name, name+"d", idx)
			}
		case 9: // a scatter of one element, its index from the loop (in range or not)
			var u value
			for _, v := range pool {
				if v.typ == x.typ && v.shape == "[]" {
					u = v
				}
			}
			if x.shape == "[]" || u.name == "" {
				continue
			}
			emit(value{name + "m", "s32", "[]"}, "constant(%d)", next(5)-2)
			emit(value{name + "k", "s32", "[]"}, "add(i, %s)", name+"m")
			if x.shape == "[3]" {
				temp(value{name + "i", "s32", "[1]"}, "broadcast(%s), dimensions={}", name+"k")
				emit(value{name, x.typ, x.shape}, "scatter(%s, %s, %s), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=0, to_apply=%s",
					x.name, name+"i", u.name, comb(x.typ))
			} else {
				temp(value{name + "i", "s32", "[2]"}, "broadcast(%s), dimensions={}", name+"k")
				emit(value{name, x.typ, x.shape}, "scatter(%s, %s, %s), update_window_dims={}, inserted_window_dims={0,1}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=0, to_apply=%s",
					x.name, name+"i", u.name, comb(x.typ))
			}
		case 11: // a dot of f32 or bf16 arrays, to a scalar
			if x.typ != "f32" && x.typ != "bf16" || x.shape == "[]" {
				continue
			}
			y, out := same(x), x.typ
			if next(2) == 0 {
				out = "f32"
			}
			dims := "lhs_contracting_dims={0}, rhs_contracting_dims={0}"
			if x.shape == "[2,3]" {
				dims = "lhs_contracting_dims={0,1}, rhs_contracting_dims={0,1}"
				if next(2) == 0 {
					dims = "lhs_contracting_dims={1,0}, rhs_contracting_dims={1,0}"
				}
			}
			emit(value{name, out, "[]"}, "dot(%s, %s), %s", x.name, y.name, dims)
		case 10: // a read of the large array
			idx := "i"
			if x.typ == "s32" && x.shape == "[]" {
				idx = x.name
			}
			temp(value{name + "g", big.typ, "[3]"}, "dynamic-slice(big, %s), dynamic_slice_sizes={3}", idx)
			emit(value{name, big.typ, "[3]"}, "negate(%s)", name+"g")
		case 8: // a reduction, which the evaluator evaluates
			if x.typ != "s32" || x.shape == "[]" {
				continue
			}
			dims := "{0}"
			if x.shape == "[2,3]" {
				dims = "{0,1}"
			}
			emit(value{name + "z", "s32", "[]"}, "constant(1)")
			emit(value{name, "s32", "[]"}, "reduce(%s, %s), dimensions=%s, to_apply=add_s32", x.name, name+"z", dims)
		default: // a constant
			if isInt(x.typ) {
				emit(value{name + "c", x.typ, "[]"}, "constant(%d)", next(9))
				emit(value{name + "b", x.typ, x.shape}, "broadcast(%s), dimensions={}", name+"c")
				emit(value{name, x.typ, x.shape}, "add(%s, %s)", x.name, name+"b")
			}
		}
	}
	// An update of the large array, in place where nothing reads its old value after it; a read of the
	// new value, or of the old one (which keeps it from being updated in place).
	nextBig := "big"
	for _, v := range pool {
		if v.typ == big.typ && v.shape == "[3]" && next(2) == 0 {
			if next(2) == 0 {
				temp(value{"upd", big.typ, big.shape}, "dynamic-update-slice(big, %s, %s)", v.name, pool[0].name)
			} else {
				// A scatter of a window of three, which the index moves past the end.
				temp(value{"ui", "s32", "[1]"}, "broadcast(i), dimensions={}")
				temp(value{"uk", "s32", "[1]"}, "constant({%d})", 90+next(12))
				temp(value{"uj", "s32", "[1]"}, "add(ui, uk)")
				temp(value{"upd", big.typ, big.shape}, "scatter(big, uj, %s), update_window_dims={0}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, index_vector_dim=0, to_apply=%s",
					v.name, comb(big.typ))
			}
			nextBig = "upd"
			switch next(3) {
			case 0:
				temp(value{"after", big.typ, "[3]"}, "dynamic-slice(upd, i), dynamic_slice_sizes={3}")
			case 1:
				temp(value{"after", big.typ, "[3]"}, "dynamic-slice(big, i), dynamic_slice_sizes={3}")
				small = false
			}
			break
		}
	}
	// The next state: for each array the last value of its type and shape.
	fmt.Fprintf(&b, "  one = s32[] constant(1)\n  i1 = s32[] add(i, one)\n  ROOT r = %s tuple(i1", stateShape)
	for _, s := range state {
		last := s.name
		for _, v := range pool {
			if v.typ == s.typ && v.shape == s.shape {
				last = v.name
			}
		}
		b.WriteString(", " + last)
	}
	b.WriteString(", " + nextBig + ")\n}\n\n")
	fmt.Fprintf(&b, "cond {\n  p = %s parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n  n = s32[] constant(%d)\n  ROOT lt = pred[] compare(i, n), direction=LT\n}\n\n", stateShape, next(6))
	fmt.Fprintf(&b, "ENTRY main {\n  z = s32[] constant(0)\n")
	for k, s := range state {
		fmt.Fprintf(&b, "  a%d = %s parameter(%d)\n", k, full(s), k)
	}
	fmt.Fprintf(&b, "  a3 = %s parameter(3)\n", full(big))
	fmt.Fprintf(&b, "  st = %s tuple(z, a0, a1, a2, a3)\n  l = %s while(st), condition=cond, body=body\n", stateShape, stateShape)
	// The argument of the loop, which an update in place must not have changed.
	fmt.Fprintf(&b, "  ROOT r = (%s, %s) tuple(l, a3)\n}\n", stateShape, full(big))
	return combs.String() + b.String(), small
}

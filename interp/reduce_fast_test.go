package interp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

// The reducer forms of TestReduceFastPath: the same reduction written so that reduce takes its loop for a
// single binary reducer, the compiled scalar program, or the evaluator called once per element.
const (
	formFast    = iota // ROOT r = op(a, b)
	formProgram        // op(a, copy(b)): a scalar program, but not a single binary operation
	formEval           // op(a, reshape(reshape(b))) through T[1]: not a scalar program at all
	numForms
)

var formNames = [numForms]string{"fast", "program", "evaluator"}

// reduceModule writes a module reducing x (of type t and dimensions dims) over reduced with the reducer op
// written in the given form; the initial value is parameter 1.
func reduceModule(t dtype.Type, op hlo.Opcode, form int, dims, reduced []int64) string {
	ts := t.String()
	var b strings.Builder
	fmt.Fprintf(&b, "f {\n  a = %s[] parameter(0)\n  b = %s[] parameter(1)\n", ts, ts)
	arg := "b"
	switch form {
	case formProgram:
		fmt.Fprintf(&b, "  c = %s[] copy(b)\n", ts)
		arg = "c"
	case formEval:
		fmt.Fprintf(&b, "  v = %s[1] reshape(b)\n  c = %s[] reshape(v)\n", ts, ts)
		arg = "c"
	}
	fmt.Fprintf(&b, "  ROOT r = %s[] %s(a, %s)\n}\n", ts, op, arg)
	var out []string
	for d, n := range dims {
		if !containsDim(reduced, int64(d)) {
			out = append(out, fmt.Sprint(n))
		}
	}
	fmt.Fprintf(&b, "ENTRY e {\n  x = %s[%s] parameter(0)\n  z = %s[] parameter(1)\n", ts, hlo.JoinInts(dims), ts)
	fmt.Fprintf(&b, "  ROOT r = %s[%s] reduce(x, z), dimensions={%s}, to_apply=f\n}\n", ts, strings.Join(out, ","), hlo.JoinInts(reduced))
	return b.String()
}

func containsDim(l []int64, d int64) bool {
	for _, x := range l {
		if x == d {
			return true
		}
	}
	return false
}

// reducerOps are the reducers the fast path recognises for each kind of element type.
func reducerOps(t dtype.Type) []hlo.Opcode {
	switch {
	case t == dtype.PRED:
		return []hlo.Opcode{hlo.OpAnd, hlo.OpOr, hlo.OpXor, hlo.OpMaximum, hlo.OpMinimum}
	case t.IsInteger():
		return []hlo.Opcode{hlo.OpAdd, hlo.OpMultiply, hlo.OpMaximum, hlo.OpMinimum, hlo.OpAnd, hlo.OpOr, hlo.OpXor}
	case t.IsComplex():
		return []hlo.Opcode{hlo.OpAdd, hlo.OpMultiply}
	}
	return []hlo.Opcode{hlo.OpAdd, hlo.OpMultiply, hlo.OpMaximum, hlo.OpMinimum}
}

// elementBits returns n element bit patterns of type t: random bit patterns and small values in turn,
// and with special the type's special values first (±0, NaN, ±inf, the extremes, ±1; the smallest and
// largest integers).
func elementBits(rng *rand.Rand, t dtype.Type, n int, special bool) []uint64 {
	w := t.BitWidth()
	mask := uint64(math.MaxUint64)
	if w < 64 {
		mask = 1<<w - 1
	}
	var specials []uint64
	switch {
	case !special:
	case t.IsFloat():
		max := t.Finfo().Max
		for _, v := range []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), max, -max, 1, -1} {
			specials = append(specials, t.EncodeFloat64(v))
		}
	case t.IsInteger():
		specials = []uint64{0, 1, mask, mask >> 1, (mask >> 1) + 1}
	}
	bits := make([]uint64, n)
	for i := range bits {
		switch {
		case i < len(specials):
			bits[i] = specials[i]
		case t.IsFloat() && i%2 == 0:
			bits[i] = t.EncodeFloat64(math.Round(rng.Float64()*16-8) / 4)
		default:
			bits[i] = rng.Uint64() & mask
		}
	}
	if t == dtype.PRED {
		for i := range bits {
			bits[i] &= 1
		}
	}
	return bits
}

// TestReduceFastPath checks reduce with a single binary reducer, on every element type and every reducer
// the fast path recognises, against the same reduction through the scalar program and through the
// evaluator, bit for bit (NaN for NaN), over shapes that reduce inner, outer, several, all and no
// dimensions, empty ones among them (those that keep the last dimension fold by columns). The
// floating-point results are also checked against a float64 fold.
func TestReduceFastPath(t *testing.T) {
	shapes := []struct{ dims, reduced []int64 }{
		{[]int64{2, 3, 5}, []int64{2}},
		{[]int64{2, 3, 5}, []int64{0, 2}},
		{[]int64{2, 3, 5}, []int64{0, 1, 2}},
		{[]int64{4, 3}, nil},
		{[]int64{33, 4}, []int64{0}},
		{[]int64{3, 0, 4}, []int64{1}}, // nothing to fold: the initial value
		{[]int64{0, 4}, []int64{1}},    // no result elements
		{[]int64{7}, []int64{0}},
		// The last dimension kept: folded by columns, the reduced dimensions leading or not, more columns
		// than a tile (longer runs, which fold in blocks, in TestReduceColumns).
		{[]int64{5, 3, 4}, []int64{0, 1}},
		{[]int64{3, 4, 5, 6}, []int64{0, 2}},
		{[]int64{4, 5, 3}, []int64{1}},
		{[]int64{2, 2050}, []int64{0}},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, ty := range dtype.All() {
		if ty == dtype.C128 {
			continue // no element bit patterns in 64 bits, and no 1-bit integers in HLO text
		}
		for _, op := range reducerOps(ty) {
			t.Run(ty.String()+"/"+op.String(), func(t *testing.T) {
				for _, sh := range shapes {
					name := fmt.Sprintf("%s/%s/%v-%v", ty, op, sh.dims, sh.reduced)
					n := 1
					for _, d := range sh.dims {
						n *= int(d)
					}
					x := ArrayValue(tensor.FromBits(ty, sh.dims, elementBits(rng, ty, n, rng.IntN(2) == 0)))
					initBits := elementBits(rng, ty, 12, true)[rng.IntN(12)]
					if ty.IsComplex() {
						initBits = 0
					}
					init := ArrayValue(tensor.FromBits(ty, nil, []uint64{initBits}))
					var results [numForms]Value
					for form := range numForms {
						m := parseModule(t, reduceModule(ty, op, form, sh.dims, sh.reduced))
						if p, _ := compileScalar(m.Computation("f")); (p != nil && p.binop == op) != (form == formFast) {
							t.Fatalf("%s: the %s form is not what it should be for the fast path", name, formNames[form])
						}
						got, err := Run(m, []Value{x, init}, Options{MaxMemory: 1 << 26})
						if err != nil {
							t.Fatalf("%s, %s form: %v", name, formNames[form], err)
						}
						results[form] = got
					}
					for form := formProgram; form < numForms; form++ {
						if !sameBitsOrNaN(results[formFast].Array, results[form].Array) {
							t.Errorf("%s: fast path %s, %s %s", name, describe(results[formFast]), formNames[form], describe(results[form]))
						}
					}
					if ty.IsFloat() {
						checkFloatFold(t, name, op, x.Array, init.Array, sh.reduced, results[formFast].Array)
					}
				}
			})
		}
	}
}

// sameBitsOrNaN reports whether a and b have the same shape and type and the same elements bit for bit,
// NaN matching any NaN.
func sameBitsOrNaN(a, b *tensor.Tensor) bool {
	if a.Type != b.Type || fmt.Sprint(a.Shape) != fmt.Sprint(b.Shape) {
		return false
	}
	for i := range a.NumElements() {
		x, y := a.BitsAt(i), b.BitsAt(i)
		if x != y && !(a.Type.IsFloat() && math.IsNaN(a.Type.DecodeFloat64(x)) && math.IsNaN(a.Type.DecodeFloat64(y))) {
			return false
		}
	}
	return true
}

// checkFloatFold checks a floating-point reduction against a fold in float64 that rounds every step to
// float32 and then to the element type, as XLA computes the narrow types; maximum and minimum propagate
// NaN and keep the accumulator between equal values (so -0 and +0 keep the first).
func checkFloatFold(t *testing.T, name string, op hlo.Opcode, x, init *tensor.Tensor, reduced []int64, got *tensor.Tensor) {
	t.Helper()
	ty := x.Type
	var kept, folded []int64
	for d := range x.Shape {
		if containsDim(reduced, int64(d)) {
			folded = append(folded, int64(d))
		} else {
			kept = append(kept, int64(d))
		}
	}
	round := func(v float64) float64 {
		if ty != dtype.F64 {
			v = float64(float32(v))
		}
		return ty.DecodeFloat64(ty.EncodeFloat64(v))
	}
	step := func(a, b float64) float64 {
		switch op {
		case hlo.OpAdd:
			return a + b
		case hlo.OpMultiply:
			return a * b
		}
		switch {
		case math.IsNaN(a):
			return a
		case math.IsNaN(b):
			return b
		case op == hlo.OpMaximum && a < b, op == hlo.OpMinimum && b < a:
			return b
		}
		return a
	}
	strides := make([]int64, len(x.Shape))
	s := int64(1)
	for d := len(x.Shape) - 1; d >= 0; d-- {
		strides[d] = s
		s *= x.Shape[d]
	}
	dimsOf := func(ds []int64) []int64 {
		out := make([]int64, len(ds))
		for i, d := range ds {
			out[i] = x.Shape[d]
		}
		return out
	}
	keptIdx := make([]int64, len(kept))
	for o := int64(0); o < got.NumElements(); o++ {
		acc := ty.DecodeFloat64(init.BitsAt(0))
		foldIdx := make([]int64, len(folded))
		for n := product(dimsOf(folded)); n > 0; n-- {
			lin := int64(0)
			for i, d := range kept {
				lin += keptIdx[i] * strides[d]
			}
			for i, d := range folded {
				lin += foldIdx[i] * strides[d]
			}
			acc = round(step(acc, ty.DecodeFloat64(x.BitsAt(lin))))
			nextIndex(foldIdx, dimsOf(folded))
		}
		g := ty.DecodeFloat64(got.BitsAt(o))
		if math.IsNaN(acc) != math.IsNaN(g) || !math.IsNaN(acc) && ty.EncodeFloat64(acc) != got.BitsAt(o) {
			t.Errorf("%s: element %d is %v (%#x); the float64 fold gives %v (%#x)", name, o, g, got.BitsAt(o), acc, ty.EncodeFloat64(acc))
			return
		}
		nextIndex(keptIdx, dimsOf(kept))
	}
}

// windowDim is one dimension of a reduce-window's window.
type windowDim struct{ size, stride, lo, hi, lhsDilate, rhsDilate int64 }

// windowText writes a window attribute and returns it with the result's dimensions for an input of dims.
func windowText(win []windowDim, dims []int64) (string, []int64) {
	field := func(f func(w windowDim) string) string {
		s := make([]string, len(win))
		for i, w := range win {
			s[i] = f(w)
		}
		return strings.Join(s, "x")
	}
	text := "size=" + field(func(w windowDim) string { return fmt.Sprint(w.size) }) +
		" stride=" + field(func(w windowDim) string { return fmt.Sprint(w.stride) }) +
		" pad=" + field(func(w windowDim) string { return fmt.Sprintf("%d_%d", w.lo, w.hi) }) +
		" lhs_dilate=" + field(func(w windowDim) string { return fmt.Sprint(w.lhsDilate) }) +
		" rhs_dilate=" + field(func(w windowDim) string { return fmt.Sprint(w.rhsDilate) })
	out := make([]int64, len(win))
	for i, w := range win {
		in := int64(0)
		if dims[i] > 0 {
			in = (dims[i]-1)*w.lhsDilate + 1
		}
		padded, span := in+w.lo+w.hi, (w.size-1)*w.rhsDilate+1
		if padded >= span {
			out[i] = (padded-span)/w.stride + 1
		}
	}
	return text, out
}

// TestReduceWindowFastPath checks reduce-window's loop for a single binary reducer on the float32-domain
// types against the same reduction through the scalar program and the evaluator, over windows with
// strides, padding, both dilations, and windows that cover nothing but padding.
func TestReduceWindowFastPath(t *testing.T) {
	windows := []struct {
		dims []int64
		win  []windowDim
	}{
		{[]int64{5, 4}, []windowDim{{2, 1, 0, 0, 1, 1}, {1, 1, 0, 0, 1, 1}}},
		{[]int64{5, 4}, []windowDim{{3, 2, 1, 1, 1, 1}, {2, 1, 0, 1, 1, 1}}},
		{[]int64{5, 4}, []windowDim{{2, 1, 0, 0, 2, 1}, {2, 2, 0, 0, 1, 2}}},
		{[]int64{5, 4}, []windowDim{{1, 1, 3, 0, 1, 1}, {4, 1, 0, 0, 1, 1}}}, // three rows of padding only
		{[]int64{0, 4}, []windowDim{{1, 1, 0, 0, 1, 1}, {2, 1, 0, 0, 1, 1}}}, // no result elements
		{[]int64{7}, []windowDim{{7, 1, 0, 0, 1, 1}}},
		// The last dimension not windowed, as in pooling over images: whole rows fold at once.
		{[]int64{2, 5, 4, 9}, []windowDim{{1, 1, 0, 0, 1, 1}, {3, 2, 1, 1, 1, 1}, {2, 1, 0, 1, 1, 1}, {1, 1, 0, 0, 1, 1}}},
		{[]int64{3, 6, 5}, []windowDim{{2, 1, 0, 0, 2, 1}, {3, 2, 1, 0, 1, 2}, {1, 1, 0, 0, 1, 1}}},
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, ty := range dtype.All() {
		if domainOf(ty) != domFloat32 {
			continue
		}
		for _, op := range reducerOps(ty) {
			t.Run(ty.String()+"/"+op.String(), func(t *testing.T) {
				for _, wc := range windows {
					text, out := windowText(wc.win, wc.dims)
					name := fmt.Sprintf("%s/%s/%v {%s}", ty, op, wc.dims, text)
					n := int(product(wc.dims))
					x := ArrayValue(tensor.FromBits(ty, wc.dims, elementBits(rng, ty, n, rng.IntN(2) == 0)))
					init := ArrayValue(tensor.FromBits(ty, nil, []uint64{elementBits(rng, ty, 12, true)[rng.IntN(12)]}))
					var results [numForms]Value
					for form := range numForms {
						src := reduceModule(ty, op, form, []int64{1}, []int64{0}) // for its reducer f
						src = src[:strings.Index(src, "ENTRY")] + fmt.Sprintf("ENTRY e {\n  x = %s[%s] parameter(0)\n  z = %s[] parameter(1)\n"+
							"  ROOT r = %s[%s] reduce-window(x, z), window={%s}, to_apply=f\n}\n", ty, hlo.JoinInts(wc.dims), ty, ty, hlo.JoinInts(out), text)
						got, err := Run(parseModule(t, src), []Value{x, init}, Options{MaxMemory: 1 << 26})
						if err != nil {
							t.Fatalf("%s, %s form: %v", name, formNames[form], err)
						}
						results[form] = got
					}
					for form := formProgram; form < numForms; form++ {
						if !sameBitsOrNaN(results[formFast].Array, results[form].Array) {
							t.Errorf("%s: fast path %s, %s %s", name, describe(results[formFast]), formNames[form], describe(results[form]))
						}
					}
				}
			})
		}
	}
}

// TestReduceBitwiseFloatReducer checks that a bitwise reducer on floating-point elements, which has no
// loop, is reported as unsupported.
func TestReduceBitwiseFloatReducer(t *testing.T) {
	for _, ty := range []string{"f32", "bf16", "f64"} {
		for _, entry := range []string{
			"ROOT r = TY[] reduce(x, z), dimensions={0}, to_apply=f",
			"ROOT r = TY[2] reduce-window(x, z), window={size=2}, to_apply=f",
		} {
			src := strings.ReplaceAll("f {\n  a = TY[] parameter(0)\n  b = TY[] parameter(1)\n  ROOT r = TY[] and(a, b)\n}\n"+
				"ENTRY e {\n  x = TY[3] parameter(0)\n  z = TY[] constant(0)\n  "+entry+"\n}\n", "TY", ty)
			_, err := evalText(t, src, ty+"[3] {1, 2, 3}")
			if !isUnsupported(err) {
				t.Errorf("%s: got %v; want an unsupported error", strings.ReplaceAll(entry, "TY", ty), err)
			}
		}
	}
}

// TestReduceFastPathWork checks that the loops for a single binary reducer count their work against
// Options.MaxWork like the general path: one unit an element folded.
func TestReduceFastPathWork(t *testing.T) {
	for _, entry := range []string{
		"ROOT r = f32[4] reduce(x, z), dimensions={1}, to_apply=add",
		"ROOT r = f32[4,63] reduce-window(x, z), window={size=1x2}, to_apply=add",
	} {
		m := parseModule(t, addF32+"ENTRY e {\n  x = f32[4,64] parameter(0)\n  z = f32[] constant(0)\n  "+entry+"\n}\n")
		x := zeroValue(m.Entry.Params[0].Shape)
		if _, err := Run(m, []Value{x}, Options{MaxWork: 1000}); err != nil {
			t.Errorf("%s within its work: %v", entry, err)
		}
		_, err := Run(m, []Value{x}, Options{MaxWork: 200})
		var we *WorkError
		if !errors.As(err, &we) || we.Inst != "r" {
			t.Errorf("%s beyond its work: %v; want a *WorkError at %%r", entry, err)
		}
	}
}

// TestReduceColumns checks reduce with a single binary reducer that keeps the last dimension, which folds
// by columns, against the same reduction of the input transposed so that the reduced dimensions come
// last (which folds each run), bit for bit, NaN payloads included: on every element type and reducer,
// with the reduced dimensions leading, in the middle or apart, runs shorter and longer than a block of
// reduceBlock (which fold in blocks), on one thread and two.
func TestReduceColumns(t *testing.T) {
	shapes := []struct{ dims, reduced []int64 }{
		{[]int64{4099, 3}, []int64{0}},
		{[]int64{2, 4100, 2}, []int64{0, 1}},
		{[]int64{3, 2, 1400, 2}, []int64{0, 2}},
		{[]int64{9000, 1}, []int64{0}},
		{[]int64{6, 2500}, []int64{0}},
		{[]int64{3, 4100, 5}, []int64{1}},
		{[]int64{2, 3, 5, 7}, []int64{1, 2}},
		{[]int64{3, 2, 2100, 3}, []int64{1, 2}},
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, ty := range dtype.All() {
		if ty.IsComplex() {
			continue
		}
		for _, op := range reducerOps(ty) {
			t.Run(ty.String()+"/"+op.String(), func(t *testing.T) {
				for _, sh := range shapes {
					n := int64(1)
					var kept, out []int64
					for d, k := range sh.dims {
						n *= k
						if !containsDim(sh.reduced, int64(d)) {
							kept = append(kept, int64(d))
							out = append(out, k)
						}
					}
					perm := append(append([]int64(nil), kept...), sh.reduced...)
					var tdims, trailing []int64
					for i, p := range perm {
						tdims = append(tdims, sh.dims[p])
						if i >= len(kept) {
							trailing = append(trailing, int64(i))
						}
					}
					ts := ty.String()
					direct := reduceModule(ty, op, formFast, sh.dims, sh.reduced)
					transposed := fmt.Sprintf(`f {
  a = %[1]s[] parameter(0)
  b = %[1]s[] parameter(1)
  ROOT r = %[1]s[] %[2]s(a, b)
}
ENTRY e {
  x = %[1]s[%[3]s] parameter(0)
  z = %[1]s[] parameter(1)
  t = %[1]s[%[4]s] transpose(x), dimensions={%[5]s}
  ROOT r = %[1]s[%[6]s] reduce(t, z), dimensions={%[7]s}, to_apply=f
}
`, ts, op, hlo.JoinInts(sh.dims), hlo.JoinInts(tdims), hlo.JoinInts(perm), hlo.JoinInts(out), hlo.JoinInts(trailing))
					x := ArrayValue(tensor.FromBits(ty, sh.dims, elementBits(rng, ty, int(n), true)))
					init := ArrayValue(tensor.FromBits(ty, nil, []uint64{elementBits(rng, ty, 12, true)[rng.IntN(12)]}))
					var got [2]*tensor.Tensor
					for i, src := range []string{direct, transposed} {
						r, err := Run(parseModule(t, src), []Value{x, init}, Options{Threads: 1 + i, MaxMemory: 1 << 26})
						if err != nil {
							t.Fatal(err)
						}
						got[i] = r.Array
					}
					if string(got[0].Data) != string(got[1].Data) {
						t.Errorf("%v reduced over %v: by columns %s, by runs %s", sh.dims, sh.reduced, describe(ArrayValue(got[0])), describe(ArrayValue(got[1])))
					}
				}
			})
		}
	}
}

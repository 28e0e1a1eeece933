package hlo

import (
	"testing"

	"octet/dtype"
)

// scanFunc makes a computation of the given parameters whose root is a tuple of the parameters at
// results (or that one parameter, when tuple is false).
func scanFunc(m *Module, params []Shape, results []int, tuple bool) *Computation {
	c := &Computation{Name: "f"}
	m.AddComputation(c)
	ps := addParams(c, params...)
	if !tuple {
		c.Root = ps[results[0]]
		return c
	}
	var elems []*Instruction
	var shapes []Shape
	for _, r := range results {
		elems = append(elems, ps[r])
		shapes = append(shapes, ps[r].Shape)
	}
	c.Root = c.Add("t", OpTuple, Tuple(shapes...), elems...)
	return c
}

func TestInferScan(t *testing.T) {
	f32 := func(dims ...int64) Shape { return Array(dtype.F32, dims...) }
	for _, c := range []struct {
		name     string
		operands []Shape
		carries  int64
		dim      int64
		params   []Shape
		results  []int // which parameters the function returns
		tuple    bool
		want     string // the shape, or part of the error
	}{
		// XLA's parser golden test: a cumulative sum, with its total.
		{"cumsum", []Shape{f32(4), f32()}, 1, 0, []Shape{f32(), f32()}, []int{0, 1}, true, "(f32[4], f32[])"},
		// What jaxlib 0.11.2 prints for jnp.cumsum along dimension 1 of f32[8,16].
		{"dimension 1", []Shape{f32(8, 16), f32(8)}, 1, 1, []Shape{f32(8), f32(8)}, []int{0, 1}, true, "(f32[8,16], f32[8])"},
		{"two inputs, one output, two carries", []Shape{f32(3, 5), f32(3, 5), f32(), f32(5)}, 2, 0,
			[]Shape{f32(5), f32(5), f32(), f32(5)}, []int{0, 2, 3}, true, "(f32[3,5], f32[], f32[5])"},
		{"only an output", []Shape{f32(6, 2)}, 0, 0, []Shape{f32(2)}, []int{0}, false, "f32[6,2]"},
		{"only a carry", []Shape{f32(6), f32()}, 1, 0, []Shape{f32(), f32()}, []int{1}, false, "f32[]"},
		{"no inputs", []Shape{f32()}, 1, 0, []Shape{f32()}, []int{0}, false, "has no inputs"},
		{"two dimensions", []Shape{f32(4), f32()}, 1, -1, []Shape{f32(), f32()}, []int{0, 1}, true, "must name one dimension"},
		{"dimension out of range", []Shape{f32(4), f32()}, 1, 1, []Shape{f32(), f32()}, []int{0, 1}, true, "out of range"},
		{"inputs of different lengths", []Shape{f32(4), f32(5), f32()}, 1, 0, []Shape{f32(), f32(), f32()}, []int{0, 2}, true, "has 5 positions"},
		{"parameter not an element", []Shape{f32(4, 2), f32()}, 1, 0, []Shape{f32(4), f32()}, []int{0, 1}, true, "an element of input 0 is f32[2]"},
		{"carry of another type", []Shape{f32(4), Scalar(dtype.S32)}, 1, 0, []Shape{f32(), Scalar(dtype.S32)}, []int{0, 0}, true, "returns carry 0 as f32[]"},
		{"too many carries", []Shape{f32(4), f32()}, 3, 0, []Shape{f32(), f32()}, []int{0, 1}, true, "num_carries=3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, comp, ps := testModule(c.operands...)
			f := scanFunc(m, c.params, c.results, c.tuple)
			dims := Ints{c.dim}
			if c.dim < 0 {
				dims = Ints{0, 1}
			}
			in := &Instruction{Opcode: OpScan, Parent: comp, Attrs: []Attr{
				{"dimensions", dims}, {"num_carries", Int(c.carries)}, {"to_apply", CompRef{Comp: f}},
			}}
			in.operands = ps
			wantInferred(t, in, c.want)
		})
	}
}

func TestInferRaggedDot(t *testing.T) {
	f32 := func(dims ...int64) Shape { return Array(dtype.F32, dims...) }
	s64 := func(dims ...int64) Shape { return Array(dtype.S64, dims...) }
	for _, c := range []struct {
		name   string
		shapes []Shape
		attrs  []Attr
		want   string // the shape, or part of the error
	}{
		// The three cases of XLA's translation test (mhlo_to_hlo/tests/ragged_dot.mlir).
		{"non-contracting", []Shape{f32(11, 5), f32(3, 5, 7), s64(3)}, []Attr{
			{"lhs_contracting_dims", Ints{1}}, {"rhs_contracting_dims", Ints{1}}, {"lhs_ragged_dims", Ints{0}}, {"rhs_group_dims", Ints{0}}},
			"f32[11,7]"},
		{"contracting", []Shape{f32(11, 5), f32(5, 7), s64(3)}, []Attr{
			{"lhs_contracting_dims", Ints{1}}, {"rhs_contracting_dims", Ints{0}}, {"lhs_ragged_dims", Ints{1}}},
			"f32[3,11,7]"},
		{"batch", []Shape{f32(3, 11, 5), f32(3, 5, 7), s64(3)}, []Attr{
			{"lhs_batch_dims", Ints{0}}, {"lhs_contracting_dims", Ints{2}}, {"rhs_batch_dims", Ints{0}}, {"rhs_contracting_dims", Ints{1}}, {"lhs_ragged_dims", Ints{0}}},
			"f32[3,11,7]"},
		// Group sizes per batch element, and a group dimension after the contracting one.
		{"batched group sizes", []Shape{f32(2, 96, 32), f32(2, 32, 3, 8), s64(2, 3)}, []Attr{
			{"lhs_batch_dims", Ints{0}}, {"lhs_contracting_dims", Ints{2}}, {"rhs_batch_dims", Ints{0}}, {"rhs_contracting_dims", Ints{1}},
			{"lhs_ragged_dims", Ints{1}}, {"rhs_group_dims", Ints{2}}},
			"f32[2,96,8]"},
		{"group count differs", []Shape{f32(11, 5), f32(3, 5, 7), s64(4)}, []Attr{
			{"lhs_contracting_dims", Ints{1}}, {"rhs_contracting_dims", Ints{1}}, {"lhs_ragged_dims", Ints{0}}, {"rhs_group_dims", Ints{0}}},
			"counts 4 groups"},
		{"no group dimension", []Shape{f32(11, 5), f32(3, 5, 7), s64(3)}, []Attr{
			{"lhs_contracting_dims", Ints{1}}, {"rhs_contracting_dims", Ints{1}}, {"lhs_ragged_dims", Ints{0}}},
			"must name one dimension"},
		{"group dimension contracted", []Shape{f32(11, 5), f32(3, 5, 7), s64(3)}, []Attr{
			{"lhs_contracting_dims", Ints{1}}, {"rhs_contracting_dims", Ints{1}}, {"lhs_ragged_dims", Ints{0}}, {"rhs_group_dims", Ints{1}}},
			"batch or contracting"},
		{"float group sizes", []Shape{f32(11, 5), f32(3, 5, 7), f32(3)}, []Attr{
			{"lhs_contracting_dims", Ints{1}}, {"rhs_contracting_dims", Ints{1}}, {"lhs_ragged_dims", Ints{0}}, {"rhs_group_dims", Ints{0}}},
			"not an integer array"},
		{"contracting sizes differ", []Shape{f32(11, 6), f32(3, 5, 7), s64(3)}, []Attr{
			{"lhs_contracting_dims", Ints{1}}, {"rhs_contracting_dims", Ints{1}}, {"lhs_ragged_dims", Ints{0}}, {"rhs_group_dims", Ints{0}}},
			"ragged-dot: lhs contracting dimension 1 has size 6"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, comp, ps := testModule(c.shapes...)
			in := &Instruction{Opcode: OpRaggedDot, Shape: Scalar(dtype.F32), Parent: comp, Attrs: c.attrs}
			in.operands = ps
			wantInferred(t, in, c.want)
		})
	}
}

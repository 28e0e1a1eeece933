package interp

import (
	"slices"
	"sort"

	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

// sortKeys turns on the keys of a keyed comparator (scalarProg.keyed); tests turn it off to compare.
var sortKeys = true

// sortOp sorts its operands together along one dimension, ordered by the comparator (which takes the
// elements of every operand at two positions: lhs_0, rhs_0, lhs_1, rhs_1, ...). The sort is stable
// (which is_stable requires and is a valid order otherwise).
func (e *evaluator) sort(in *hlo.Instruction, ops []Value) (Value, error) {
	ts, err := arrays(in, ops)
	if err != nil {
		return Value{}, err
	}
	if len(ts) == 0 {
		return Value{}, errorf(in, "sort without operands")
	}
	for _, t := range ts {
		if !slices.Equal(t.Shape, ts[0].Shape) {
			return Value{}, errorf(in, "sort operands %s and %s differ in shape", ts[0], t)
		}
	}
	dims, _ := in.Int("dimensions")
	if l := in.Ints("dimensions"); len(l) == 1 {
		dims = l[0]
	}
	shape := ts[0].Shape
	if dims < 0 || dims >= int64(len(shape)) {
		if len(shape) == 0 {
			return packResults(in, ts), nil
		}
		return Value{}, errorf(in, "sort dimension %d out of range", dims)
	}
	f, err := e.scalarFunc(in, in.CalledComputation("to_apply"))
	if err != nil {
		return Value{}, err
	}
	if product(shape) == 0 {
		// Nothing to sort, however long the dimension.
		return packResults(in, ts), nil
	}
	n := len(ts)
	length := shape[dims]
	stride := rowMajorStrides(shape)[dims]
	outer := append([]int64(nil), shape...)
	outer[dims] = 1
	outs := make([]*tensor.Tensor, n)
	for i, t := range ts {
		outs[i] = tensor.New(t.Type, t.Shape)
	}
	if err := e.charge(product(shape) * 8); err != nil {
		return Value{}, err
	}
	p := f.prog
	// A comparator that compares a function of the first operand's elements (their bits, or JAX's, which
	// makes -0 0 and every NaN one NaN first) has that function computed once per element of a row,
	// before the row is sorted, and the sort compares those keys as the comparator would: the same answer
	// to every question, so the same order.
	keyed := p != nil && p.keyed && len(p.params) == 2*n && sortKeys
	if keyed {
		if err := e.charge(product(shape)); err != nil {
			return Value{}, err
		}
	}
	// sorter returns a function that sorts the row at base into outs, with state of its own, calling f
	// where the comparator is called for each comparison.
	sorter := func(f *scalarFn) func(base int64) error {
		perm := make([]int64, length)
		var keys []uint64
		var less func(a, b int64) bool
		var callErr error
		var base int64
		if keyed {
			keys = make([]uint64, length)
			less = func(a, b int64) bool { return p.keyCompare(keys[a], keys[b]) }
		} else {
			args, res := make([]uint64, 2*n), make([]uint64, 1)
			less = func(a, b int64) bool {
				if callErr != nil {
					return false
				}
				for i, t := range ts {
					args[2*i] = t.BitsAt(base + a*stride)
					args[2*i+1] = t.BitsAt(base + b*stride)
				}
				if err := f.call(args, res); err != nil {
					callErr = err
					return false
				}
				return res[0] != 0
			}
		}
		return func(b int64) error {
			base = b
			for i := range perm {
				perm[i] = int64(i)
			}
			for j := range keys {
				keys[j] = f.key(ts[0].BitsAt(base + int64(j)*stride))
			}
			sort.SliceStable(perm, func(a, b int) bool { return less(perm[a], perm[b]) })
			if callErr != nil {
				return callErr
			}
			for i, t := range ts {
				es := int64(t.Type.ByteSize())
				for j, p := range perm {
					d, s := (base+int64(j)*stride)*es, (base+p*stride)*es
					copy(outs[i].Data[d:d+es], t.Data[s:s+es])
				}
			}
			return nil
		}
	}
	// The start of every row.
	bases := make([]int64, 0, product(outer))
	idx := make([]int64, len(shape))
	os := rowMajorStrides(shape)
	for {
		base := int64(0)
		for d, v := range idx {
			base += v * os[d]
		}
		bases = append(bases, base)
		if !nextIndex(idx, outer) {
			break
		}
	}
	if !keyed {
		// The comparator is called, by the evaluation, one comparison at a time.
		row := sorter(f)
		for _, b := range bases {
			if err := row(b); err != nil {
				return Value{}, err
			}
		}
		return packResults(in, outs), nil
	}
	// Otherwise the rows are sorted apart on every core, each goroutine with registers of its own.
	parallelFor(e.threads, len(bases), int(max(1, elementwiseGrain/length)), func(lo, hi int) {
		row := sorter(&scalarFn{comp: f.comp, prog: p, regs: make([]uint64, p.nregs)})
		for _, b := range bases[lo:hi] {
			row(b) // no error: nothing is called
		}
	})
	return packResults(in, outs), nil
}

// topK returns the k largest (or smallest) elements of each row (the last dimension) in order, with
// their indices: the topk instruction and the TopK custom call. Floats are ordered by IEEE totalOrder, so
// NaN counts as the largest value; equal elements keep their order.
func (e *evaluator) topK(in *hlo.Instruction, ops []Value) (Value, error) {
	ts, err := arrays(in, ops)
	if err != nil {
		return Value{}, err
	}
	if len(ts) != 1 || !in.Shape.IsTuple() || len(in.Shape.Tuple) != 2 {
		return Value{}, errorf(in, "top-k takes one operand and gives (values, indices)")
	}
	x := ts[0]
	vs, is := in.Shape.Tuple[0], in.Shape.Tuple[1]
	if len(x.Shape) == 0 || len(vs.Dims) != len(x.Shape) || vs.Elem != x.Type || !is.Elem.IsInteger() {
		return Value{}, errorf(in, "top-k of %s giving %s", x, in.Shape.String())
	}
	largest := in.Str("largest") != "false"
	r := len(x.Shape)
	length := x.Shape[r-1]
	k := vs.Dims[r-1]
	if k > length {
		return Value{}, errorf(in, "k=%d is larger than the row of %s", k, x)
	}
	var key func(i int64) int64
	switch domainOf(x.Type) {
	case domFloat32:
		v := f32s(x)
		key = func(i int64) int64 { return totalOrder32(v[i]) }
	case domFloat64:
		v := f64s(x)
		key = func(i int64) int64 { return totalOrder64(v[i]) }
	case domInt:
		v := i64s(x)
		if x.Type == dtype.U64 {
			key = func(i int64) int64 { return v[i] ^ -1<<63 }
		} else {
			key = func(i int64) int64 { return v[i] }
		}
	default:
		return Value{}, unsupportedf(in, "top-k of %s", x.Type)
	}
	rows := x.NumElements() / max(length, 1)
	vals := tensor.New(x.Type, vs.Dims)
	ids := make([]int64, rows*k)
	es := int64(x.Type.ByteSize())
	perm := make([]int64, length)
	for row := int64(0); row < rows; row++ {
		base := row * length
		for i := range perm {
			perm[i] = int64(i)
		}
		sort.SliceStable(perm, func(a, b int) bool {
			ka, kb := key(base+perm[a]), key(base+perm[b])
			if largest {
				return ka > kb
			}
			return ka < kb
		})
		for j := int64(0); j < k; j++ {
			d, s := (row*k+j)*es, (base+perm[j])*es
			copy(vals.Data[d:d+es], x.Data[s:s+es])
			ids[row*k+j] = perm[j]
		}
	}
	return TupleValue(ArrayValue(vals), ArrayValue(fromI64(is.Elem, is.Dims, ids))), nil
}

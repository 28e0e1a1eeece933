package interp

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"unsafe"

	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

// sortKeys turns on the keys of a keyed comparator (scalarProg.keyed); tests turn it off to compare.
var sortKeys = true

// sortTables turns on the tables of the numbers of narrow keys' codes; tests turn it off to compare.
var sortTables = true

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
	// Keys of at most 16 bits, many more elements than codes: each code's number is found once, by the
	// key's steps and orderOf, and every element looks its own up (a NaN under a partial order, which has
	// none, still sends its row to the comparator).
	var table []uint64 // a code's number, or noNumber
	if w := ts[0].Type.BitWidth(); keyed && sortTables && p.keyOrder != nil && w <= 16 && product(shape) >= 4<<w {
		table = make([]uint64, 1<<w)
		kf := &scalarFn{comp: f.comp, prog: p, regs: make([]uint64, p.nregs)}
		for c := range table {
			o, ok := p.keyOrder(kf.key(uint64(c)))
			table[c] = o
			if !ok {
				table[c] = noNumber
			}
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
		var ords, packed []uint64
		if keyed {
			keys = make([]uint64, length)
			less = func(a, b int64) bool { return p.keyCompare(keys[a], keys[b]) }
			if p.keyOrder != nil {
				ords = make([]uint64, length)
				if p.keyNarrow {
					packed = make([]uint64, length)
				}
			}
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
			if table != nil && lookUp(table, ts[0], base, stride, ords) {
				orderRow(ords, p.keyNarrow, perm, len(perm), packed)
			} else {
				for j := range keys {
					keys[j] = f.key(ts[0].BitsAt(base + int64(j)*stride))
				}
				if !numbered(p, keys, ords) {
					sort.SliceStable(perm, func(a, b int) bool { return less(perm[a], perm[b]) })
				} else {
					orderRow(ords, p.keyNarrow, perm, len(perm), packed)
				}
			}
			if callErr != nil {
				return callErr
			}
			for i, t := range ts {
				permuteRow(outs[i], t, base, stride, perm)
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

// noNumber marks a code without a number in a sort's table: numbers are below 2^64-1.
const noNumber = ^uint64(0)

// lookUp sets ords to the numbers table gives the codes of the row of t at base (positions base +
// j*stride), and reports whether every code has one.
func lookUp(table []uint64, t *tensor.Tensor, base, stride int64, ords []uint64) bool {
	for j := range ords {
		o := table[t.BitsAt(base+int64(j)*stride)]
		if o == noNumber {
			return false
		}
		ords[j] = o
	}
	return true
}

// numbered sets ords to the numbers of a keyed comparator's keys (scalarProg.keyOrder) and reports
// whether every key has one; where not (no numbering, or a NaN that a float comparison leaves unordered),
// the row is sorted by the comparator itself.
func numbered(p *scalarProg, keys, ords []uint64) bool {
	if p == nil || p.keyOrder == nil || ords == nil || len(ords) != len(keys) {
		return false
	}
	for j, k := range keys {
		o, ok := p.keyOrder(k)
		if !ok {
			return false
		}
		ords[j] = o
	}
	return true
}

// orderOf numbers the values of type t in the order of a comparison of direction d (LT or GT) and type
// ctype, as scalarCompare computes it: for two values a and b that are both ordered (ok), the comparison
// is true exactly when ord(a) < ord(b). A float NaN is unordered under a comparison other than TOTALORDER,
// which answers false for it against every value, as no numbering does; every other value is ordered (-0
// and 0 get one number where they compare equal). A sort by such a comparator is then a sort by the
// numbers, stable as the comparator's: the same permutation. narrow reports numbers below 2^32. nil for
// other directions, and for complex types.
func orderOf(t dtype.Type, d direction, ctype string) (ord func(uint64) (uint64, bool), narrow bool) {
	if d != dirLT && d != dirGT {
		return nil, false
	}
	var flip uint64 // GT: the numbers' complement
	switch domainOf(t) {
	case domFloat32:
		dec, total := dec32(t), ctype == "TOTALORDER"
		if d == dirGT {
			flip = 1<<32 - 1
		}
		return func(b uint64) (uint64, bool) {
			x := dec(b)
			if !total {
				if x != x {
					return 0, false
				}
				if x == 0 {
					x = 0 // -0 compares equal to 0
				}
			}
			return uint64(uint32(totalOrder32(x))^1<<31) ^ flip, true
		}, true
	case domFloat64:
		total := ctype == "TOTALORDER"
		if d == dirGT {
			flip = ^uint64(0)
		}
		return func(b uint64) (uint64, bool) {
			x := math.Float64frombits(b)
			if !total {
				if x != x {
					return 0, false
				}
				if x == 0 {
					x = 0
				}
			}
			return uint64(totalOrder64(x)) ^ 1<<63 ^ flip, true
		}, false
	case domInt:
		dec, narrow := decInt(t), t.BitWidth() <= 32
		width := uint(64)
		if narrow {
			width = 32
		}
		mask := ^uint64(0) >> (64 - width)
		var bias uint64 // moves signed values to unsigned order
		if t.IsSigned() {
			bias = 1 << (width - 1)
		}
		if d == dirGT {
			flip = mask
		}
		return func(b uint64) (uint64, bool) { return uint64(dec(b))&mask ^ bias ^ flip, true }, narrow
	}
	return nil, false
}

// orderRow sets perm[:k] to the first k positions of a row ordered by their numbers ords, ascending, ties
// in order of position: what a stable sort by a comparator that is ords[a] < ords[b] gives. Numbers
// below 2^32 (narrow) sort as one word each, with their position in the low half (packed, as long as
// ords, is the room for them); well below the row's length, the k smallest are selected rather than the
// row sorted (top-k).
func orderRow(ords []uint64, narrow bool, perm []int64, k int, packed []uint64) {
	n := len(ords)
	if k <= 0 {
		return
	}
	if !narrow || uint64(n) > 1<<32 {
		for i := range perm {
			perm[i] = int64(i)
		}
		slices.SortStableFunc(perm, func(a, b int64) int { return cmp.Compare(ords[a], ords[b]) })
		return
	}
	for i, o := range ords {
		packed[i] = o<<32 | uint64(i)
	}
	if k < n/8 {
		smallestFirst(packed, k)
	} else {
		slices.Sort(packed)
	}
	for i := range k {
		perm[i] = int64(packed[i] & (1<<32 - 1))
	}
}

// smallestFirst moves the k smallest of the distinct values v to v[:k], in ascending order, by a heap of
// the k smallest so far (the largest of them at its root).
func smallestFirst(v []uint64, k int) {
	h := v[:k]
	down := func(i int) {
		for {
			c := 2*i + 1
			if c >= k {
				return
			}
			if c+1 < k && h[c+1] > h[c] {
				c++
			}
			if h[i] >= h[c] {
				return
			}
			h[i], h[c] = h[c], h[i]
			i = c
		}
	}
	for i := k/2 - 1; i >= 0; i-- {
		down(i)
	}
	for j := k; j < len(v); j++ {
		if v[j] < h[0] {
			h[0], v[j] = v[j], h[0]
			down(0)
		}
	}
	slices.Sort(h)
}

// permuteRow sets the row of out at base (positions base + j*stride) to the elements of t at base +
// perm[j]*stride.
func permuteRow(out, t *tensor.Tensor, base, stride int64, perm []int64) {
	es := int64(t.Type.ByteSize())
	switch {
	case es == 1:
		permuteAs(out.Data, t.Data, base, stride, perm)
	case es == 2 && startsAt(t.Data, 2) && startsAt(out.Data, 2):
		permuteAs(tensor.View[uint16](out), tensor.View[uint16](t), base, stride, perm)
	case es == 4 && startsAt(t.Data, 4) && startsAt(out.Data, 4):
		permuteAs(tensor.View[uint32](out), tensor.View[uint32](t), base, stride, perm)
	case es == 8 && startsAt(t.Data, 8) && startsAt(out.Data, 8):
		permuteAs(tensor.View[uint64](out), tensor.View[uint64](t), base, stride, perm)
	default:
		for j, p := range perm {
			d, s := (base+int64(j)*stride)*es, (base+p*stride)*es
			copy(out.Data[d:d+es], t.Data[s:s+es])
		}
	}
}

func permuteAs[E any](dst, src []E, base, stride int64, perm []int64) {
	for j, p := range perm {
		dst[base+int64(j)*stride] = src[base+p*stride]
	}
}

// startsAt reports whether b starts at a multiple of n bytes.
func startsAt(b []byte, n uintptr) bool {
	return len(b) == 0 || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%n == 0
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
	// Each element's number in IEEE totalOrder, or the integers' order, descending where largest: the
	// first k of a row in the stable order of those numbers.
	dir := dirLT
	if largest {
		dir = dirGT
	}
	ord, narrow := orderOf(x.Type, dir, "TOTALORDER")
	if ord == nil {
		return Value{}, unsupportedf(in, "top-k of %s", x.Type)
	}
	rows := x.NumElements() / max(length, 1)
	vals := tensor.New(x.Type, vs.Dims)
	ids := make([]int64, rows*k)
	es := int64(x.Type.ByteSize())
	perm := make([]int64, length)
	ords := make([]uint64, length)
	var packed []uint64
	if narrow {
		packed = make([]uint64, length)
	}
	for row := int64(0); row < rows; row++ {
		base := row * length
		for j := range ords {
			ords[j], _ = ord(x.BitsAt(base + int64(j)))
		}
		orderRow(ords, narrow, perm, int(k), packed)
		for j := int64(0); j < k; j++ {
			d, s := (row*k+j)*es, (base+perm[j])*es
			copy(vals.Data[d:d+es], x.Data[s:s+es])
			ids[row*k+j] = perm[j]
		}
	}
	return TupleValue(ArrayValue(vals), ArrayValue(fromI64(is.Elem, is.Dims, ids))), nil
}

package interp

import (
	"fmt"
	"hash/fnv"
	"math"

	"octet/dtype"
	"octet/gemm"
	"octet/hlo"
	"octet/tensor"
)

// RandomInputs returns deterministic arguments for m's entry computation. The values of parameter i
// depend only on seed, i and the parameter's shape and type, so that two modules with the same
// signature get the same inputs:
//   - float arrays are drawn from the standard normal distribution (in float64, by Box-Muller) and
//     rounded to their type as jax.random.normal(key, shape, dtype) rounds (f8e8m0fnu, which has no sign,
//     gets |x|);
//   - float scalars are uniform in [0.5, 2), positive and moderate as scales are;
//   - integers are uniform in [-4, 4] (unsigned: [0, 4]), narrowed to the type's range;
//   - pred values are true or false with equal odds;
//   - complex values have independent normal real and imaginary parts.
//
// The arguments are allocated without a budget: check the module's needs first (CheckMemory counts the
// entry's parameters). Only a size that no machine holds is refused, with a *MemoryError.
//
// The generator is counter-based: element j of parameter i is computed from SplitMix64 hashes of
// (seed, i, j), so values do not depend on the order they are drawn in.
func RandomInputs(m *hlo.Module, seed uint64) ([]Value, error) {
	return RandomInputsThreads(m, seed, 0)
}

// RandomInputsThreads is RandomInputs on at most threads goroutines (0: GOMAXPROCS); the values do not
// depend on their number.
func RandomInputsThreads(m *hlo.Module, seed uint64, threads int) ([]Value, error) {
	if m == nil || m.Entry == nil {
		return nil, fmt.Errorf("the module has no entry computation")
	}
	args := make([]Value, len(m.Entry.Params))
	var total int64
	for i, p := range m.Entry.Params {
		if p == nil {
			return nil, fmt.Errorf("%s has no parameter %d", m.Entry.Name, i)
		}
		total = min(total+shapeBytes(p.Shape), hugeBytes)
	}
	if total >= hugeBytes {
		// Too large for any machine; callers bound smaller sizes with CheckMemory.
		return nil, &MemoryError{Need: total, Limit: hugeBytes}
	}
	for i, p := range m.Entry.Params {
		v, err := randomValueThreads(p.Shape, mix(seed, uint64(i)), threadsFor(Options{Threads: threads}))
		if err != nil {
			return nil, unsupportedf(p, "random value for parameter %d: %v", i, err)
		}
		args[i] = v
	}
	return args, nil
}

// mix is the hash of counter x in the stream key (gemm.SplitMix): every random input is computed from it.
func mix(key, x uint64) uint64 { return gemm.SplitMix(key, x) }

// uniform returns a float64 in [0, 1) from 53 bits of h.
func uniform(h uint64) float64 { return float64(h>>11) * 0x1p-53 }

// normalUniforms returns the uniforms of the Box-Muller transform of standard normal values 2i and 2i+1
// of the stream key: u1 in (0, 1] and u2 in [0, 1), hashed from (key, 2i) and (key, 2i+1). The values are
//
//	r := math.Sqrt(-2 * math.Log(u1))
//	s, c := math.Sincos(2 * math.Pi * u2)
//	r*c, r*s
//
// with the bits of Go's math package on amd64 (GOAMD64=v1), on every machine and build: gemm.BoxMuller
// computes them.
func normalUniforms(key uint64, i int64) (u1, u2 float64) {
	u1 = float64(mix(key, uint64(2*i))>>11+1) * 0x1p-53 // (0, 1]
	u2 = uniform(mix(key, uint64(2*i+1)))
	return u1, u2
}

// randomFloats returns n values: standard normal ones, or for a scalar (scalar set) one uniform in
// [0.5, 2).
func randomFloats(key uint64, n int64, scalar bool, threads int) []float64 {
	v := make([]float64, n)
	if scalar {
		for j := range v {
			v[j] = 0.5 + 1.5*uniform(mix(key, uint64(j)))
		}
		return v
	}
	normals(key, v, threads, false)
	return v
}

// normalPairs sets u1[i] and u2[i] to normal values 2(p0+i) and 2(p0+i)+1 of the stream key (their
// magnitudes, where abs is set): the uniforms of the pairs by gemm.SplitMixUniforms (as normalUniforms
// hashes them), then their Box-Muller transforms by gemm.BoxMuller, vector code both, which gives the bits
// of math's functions many times faster than they do.
func normalPairs(key uint64, p0 int, u1, u2 []float64, abs bool) {
	gemm.SplitMixUniforms(u1, u2, key, uint64(p0))
	gemm.BoxMuller(u1, u2, u1, u2)
	if abs {
		for i := range u1 {
			u1[i], u2[i] = math.Abs(u1[i]), math.Abs(u2[i])
		}
	}
}

// interleave sets out[2i] to T(a[i]) and out[2i+1] to T(b[i]); out may end after an even element.
func interleave[T float32 | float64](out []T, a, b []float64) {
	for i := range len(out) / 2 {
		out[2*i], out[2*i+1] = T(a[i]), T(b[i])
	}
	if len(out)%2 == 1 {
		out[len(out)-1] = T(a[len(out)/2])
	}
}

// normalBlock is the number of pairs computed at a time.
const normalBlock = 256

// normals sets dst[j] to normal value j of the stream key, rounded to T (its magnitude, where abs is set),
// a block of pairs at a time on at most threads goroutines.
func normals[T float32 | float64](key uint64, dst []T, threads int, abs bool) {
	pairs := (len(dst) + 1) / 2
	parallelFor(threads, pairs, 1<<12, func(lo, hi int) {
		var a, b [normalBlock]float64
		for p0 := lo; p0 < hi; p0 += normalBlock {
			n := min(hi-p0, normalBlock)
			normalPairs(key, p0, a[:n], b[:n], abs)
			interleave(dst[2*p0:min(2*(p0+n), len(dst))], a[:n], b[:n])
		}
	})
}

// normalsInto sets the n elements of dst, a float type of at most 32 bits, to the normal values of the
// stream key (magnitudes where abs is set) rounded to float32 and then to the type, as normals and
// fromF32 do one after the other, but a block at a time on every goroutine, into the array's own bytes:
// no float32 copy of the whole array is made, touched and encoded on one core.
func normalsInto(key uint64, t dtype.Type, dst []byte, n, threads int, abs bool) {
	es := t.ByteSize()
	pairs := (n + 1) / 2
	parallelFor(threads, pairs, 1<<12, func(lo, hi int) {
		var a, b [normalBlock]float64
		var v [2 * normalBlock]float32
		for p0 := lo; p0 < hi; p0 += normalBlock {
			m := min(hi-p0, normalBlock)
			normalPairs(key, p0, a[:m], b[:m], abs)
			j0, j1 := 2*p0, min(2*(p0+m), n)
			interleave(v[:j1-j0], a[:m], b[:m])
			encodeFloat32Into(t, dst[j0*es:j1*es], v[:j1-j0])
		}
	})
}

func randomValue(s hlo.Shape, key uint64) (Value, error) { return randomValueThreads(s, key, 1) }

func randomValueThreads(s hlo.Shape, key uint64, threads int) (Value, error) {
	switch s.Kind {
	case hlo.TupleShape:
		elems := make([]Value, len(s.Tuple))
		for i, e := range s.Tuple {
			v, err := randomValueThreads(e, mix(key, uint64(1000+i)), threads)
			if err != nil {
				return Value{}, err
			}
			elems[i] = v
		}
		return TupleValue(elems...), nil
	case hlo.TokenShape:
		return TokenValue(), nil
	case hlo.ArrayShape:
	default:
		return Value{}, fmt.Errorf("cannot make a random %s", s.String())
	}
	n := s.NumElements()
	if n < 0 {
		return Value{}, fmt.Errorf("cannot make a random value of dynamic shape %s", s.String())
	}
	t := s.Elem
	dims := s.Dims
	switch {
	case t == dtype.PRED:
		v := make([]int64, n)
		for j := range v {
			v[j] = int64(mix(key, uint64(j)) & 1)
		}
		return ArrayValue(fromI64(t, dims, v)), nil
	case t.IsInteger():
		lo, hi := int64(-4), int64(4)
		w := uint(t.BitWidth())
		if t.IsUnsigned() {
			lo = 0
			if w < 3 {
				hi = 1<<w - 1
			}
		} else if w < 4 {
			lo, hi = max(lo, -(1<<(w-1))), min(hi, 1<<(w-1)-1)
		}
		span := uint64(hi - lo + 1)
		v := make([]int64, n)
		for j := range v {
			v[j] = lo + int64(mix(key, uint64(j))%span)
		}
		return ArrayValue(fromI64(t, dims, v)), nil
	case t == dtype.F64:
		return ArrayValue(fromF64(t, dims, randomFloats(key, n, len(dims) == 0, threads))), nil
	case t.IsFloat():
		if len(dims) == 0 {
			return ArrayValue(fromF32(t, dims, []float32{float32(randomFloats(key, n, true, 1)[0])})), nil
		}
		out := tensor.New(t, dims)
		normalsInto(key, t, out.Data, int(n), threads, t == dtype.F8E8M0FNU) // |x|: f8e8m0fnu has no sign
		return ArrayValue(out), nil
	case t.IsComplex():
		x := randomFloats(key, 2*n, false, threads)
		z := make([]complex128, n)
		for j := range z {
			z[j] = complex(x[2*j], x[2*j+1])
		}
		return ArrayValue(fromC128(t, dims, z)), nil
	}
	return Value{}, fmt.Errorf("cannot make random values of type %s", t)
}

// RandomConstants gives each constant of m whose values the text elides ({...}) deterministic random
// values, as XLA's parser does for such constants (HloParserOptions::
// fill_shortform_constants_with_random_values, which its tools that run modules leave on): the values
// RandomInputs would give a parameter of the constant's shape, drawn from seed and the constant's name.
// It returns how many constants it filled. Constants are part of the program: check its memory first.
func RandomConstants(m *hlo.Module, seed uint64, threads int) (int, error) {
	n := 0
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if in.Opcode != hlo.OpConstant || in.Literal == nil || !hasElided(in.Literal) {
				continue
			}
			h := fnv.New64a()
			h.Write([]byte(in.Name))
			v, err := randomValueThreads(in.Shape, mix(seed, h.Sum64()), threadsFor(Options{Threads: threads}))
			if err != nil {
				return n, unsupportedf(in, "random values for a constant: %v", err)
			}
			in.Literal = valueLiteral(v)
			n++
		}
	}
	return n, nil
}

// valueLiteral is the literal holding v.
func valueLiteral(v Value) *hlo.Literal {
	if v.Kind == KindTuple {
		elems := make([]*hlo.Literal, len(v.Tuple))
		for i, e := range v.Tuple {
			elems[i] = valueLiteral(e)
		}
		return hlo.TupleLiteral(elems...)
	}
	return hlo.ArrayLiteral(v.Array)
}

package interp

import (
	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

// rng-bit-generator, as XLA runs it. XLA has no evaluator of its own for the instruction: the pass
// RngBitGeneratorExpander (xla/hlo/transforms/expanders/rng_bit_generator_expander.cc) replaces it by a
// call of a computation that xla/hlo/builder/lib/prng.cc builds (ThreeFryBitGenerator,
// PhiloxBitGenerator), and the CPU and GPU compilers run that pass with Philox for rng_default
// (RngBitGeneratorExpander(RandomAlgorithm::RNG_PHILOX) in xla/service/cpu/cpu_compiler.cc and
// xla/service/gpu/gpu_compiler.cc). The functions below compute what that computation computes, element
// by element:
//
//   - The state is u64[n]. Its element 0 is the key (its low and high 32 bits the two key words); the
//     counter is element 1 for Threefry (n = 2), and for Philox the 128-bit number whose low and high
//     halves are elements 1 and 2 (n = 3) or elements 1 and 0 (n = 2: the expander reverses the state).
//     The new state keeps the key and adds to the counter the number of blocks drawn (for Philox, with
//     n = 2, only the counter's low half is kept).
//   - Threefry-2x32 (20 rounds) encrypts a 64-bit counter into two 32-bit words. A result of 64-bit
//     elements takes element i from counter + i, the words joined low then high. A result of 32 bits or
//     fewer is drawn as two halves: the first dimension of even size (else the largest, the first of equal
//     ones) is halved, rounding up, and element i of the half gives the two elements 2q and 2q+1 along
//     that dimension (the second one dropped past an odd end).
//   - Philox-4x32 (10 rounds) encrypts a 128-bit counter into four 32-bit words: a 32-bit result takes
//     element i from word i mod 4 of counter + i/4; a 64-bit one element i from the words 2(i mod 2) and
//     2(i mod 2)+1 (low, high) of counter + i/2.
//   - A result narrower than 32 bits is drawn as u32 and keeps the low bits (XLA converts the u32 values
//     to the unsigned type of the width).
//
// The expansion draws unsigned bits of the result's width, so XLA runs the instruction only with
// unsigned results (the call it makes for another type has a shape its computation does not give) and
// with a state of the algorithm's size (the computation gives a state of that size).

// rngBitGenerator evaluates rng-bit-generator: the new state and the bits.
func (e *evaluator) rngBitGenerator(in *hlo.Instruction, ops []Value) (Value, error) {
	ts, err := arrays(in, ops)
	if err != nil {
		return Value{}, err
	}
	if len(ts) != 1 {
		return Value{}, errorf(in, "rng-bit-generator takes one operand, the state; it has %d", len(ts))
	}
	state := ts[0]
	// XLA's verifier lets the next two pass; its expander does not run them.
	if !in.Shape.IsTuple() || len(in.Shape.Tuple) != 2 || !in.Shape.Tuple[1].IsArray() {
		return Value{}, unsupportedf(in, "rng-bit-generator giving %s: XLA's generators give a tuple of the new state and an array of bits", in.Shape.String())
	}
	alg := in.Str("algorithm")
	philox := alg != "rng_three_fry"
	if state.Type != dtype.U64 || len(state.Shape) != 1 {
		return Value{}, unsupportedf(in, "rng-bit-generator with a state of %s: XLA's generators take a state of u64, u64[2] or u64[3]", hlo.Array(state.Type, state.Shape...).String())
	}
	n := state.Shape[0]
	if philox && n != 2 && n != 3 || !philox && n != 2 {
		gen := "Threefry generator takes u64[2]"
		if philox {
			gen = "Philox generator takes u64[2] or u64[3] (Philox is rng_default's on XLA's CPU and GPU compilers)"
		}
		return Value{}, unsupportedf(in, "rng-bit-generator with a state of u64[%d]: XLA's %s and gives back a state of that size", n, gen)
	}
	if s := in.Shape.Tuple[0]; !s.IsArray() || s.Elem != dtype.U64 || len(s.Dims) != 1 || s.Dims[0] != n {
		return Value{}, errorf(in, "the new state of rng-bit-generator is %s; it must have the state's shape u64[%d]", s.String(), n)
	}
	out := in.Shape.Tuple[1]
	if !out.Elem.IsUnsigned() {
		return Value{}, unsupportedf(in, "rng-bit-generator of %s: XLA's generators make unsigned bits of the result's width (u8, u16, u32, u64, ...), and run no other type", out.String())
	}
	st := make([]uint64, n)
	for i := range st {
		st[i] = state.BitsAt(int64(i))
	}
	bits := tensor.New(out.Elem, out.Dims)
	var newState []uint64
	if philox {
		newState = philoxBits(st, bits, e.threads)
	} else {
		newState = threefryBits(st, bits, e.threads)
	}
	s := tensor.New(dtype.U64, []int64{n})
	for i, v := range newState {
		s.SetBitsAt(int64(i), v)
	}
	return TupleValue(ArrayValue(s), ArrayValue(bits)), nil
}

// threefry2x32 is Threefry-2x32 with 20 rounds (Salmon et al., "Parallel random numbers: as easy as 1,
// 2, 3", SC 2011), as prng.cc's ThreeFry2x32 writes it: the counter (x0, x1) under the key (k0, k1).
func threefry2x32(x0, x1, k0, k1 uint32) (uint32, uint32) {
	rot := [8]uint32{13, 15, 26, 6, 17, 29, 16, 24}
	ks := [3]uint32{k0, k1, 0x1BD11BDA ^ k0 ^ k1}
	x0 += ks[0]
	x1 += ks[1]
	for i := range 5 {
		for _, r := range rot[4*(i%2) : 4*(i%2)+4] {
			x0 += x1
			x1 = x1<<r | x1>>(32-r)
			x1 ^= x0
		}
		x0 += ks[(i+1)%3]
		x1 += ks[(i+2)%3] + uint32(i+1)
	}
	return x0, x1
}

// philox4x32 is Philox-4x32 with 10 rounds (Salmon et al.), as prng.cc's Philox4x32 writes it: the counter
// c (least significant word first) under the key (k0, k1).
func philox4x32(c [4]uint32, k0, k1 uint32) [4]uint32 {
	for range 10 {
		p0 := uint64(c[0]) * 0xD2511F53
		p1 := uint64(c[2]) * 0xCD9E8D57
		c = [4]uint32{uint32(p1>>32) ^ c[1] ^ k0, uint32(p1), uint32(p0>>32) ^ c[3] ^ k1, uint32(p0)}
		k0 += 0x9E3779B9
		k1 += 0xBB67AE85
	}
	return c
}

// rngGrain is the number of elements below which drawing bits is not split across goroutines.
const rngGrain = 1 << 14

// threefryBits fills bits as Threefry does from the state (key, counter) and returns the new state.
func threefryBits(st []uint64, bits *tensor.Tensor, threads int) []uint64 {
	key, ctr := st[0], st[1]
	k0, k1 := uint32(key), uint32(key>>32)
	total := bits.NumElements()
	if bits.Type.BitWidth() == 64 {
		parallelFor(threads, int(total), rngGrain, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				c := ctr + uint64(i)
				x0, x1 := threefry2x32(uint32(c), uint32(c>>32), k0, k1)
				bits.SetBitsAt(int64(i), uint64(x0)|uint64(x1)<<32)
			}
		})
		return []uint64{key, ctr + uint64(total)}
	}
	// Two elements from each block, along the dimension split into halves: element (outer, 2q+r, inner)
	// is word r of block (outer, q, inner) of the half shape.
	dims := bits.Shape
	split := -1
	for i, d := range dims {
		if d%2 == 0 {
			split = i
			break
		}
	}
	if split < 0 {
		for i, d := range dims {
			if split < 0 || d > dims[split] {
				split = i
			}
		}
	}
	outer, d, inner := int64(1), int64(1), int64(1)
	if split >= 0 {
		d = dims[split]
		for _, x := range dims[:split] {
			outer *= x
		}
		for _, x := range dims[split+1:] {
			inner *= x
		}
	} else {
		d = 1 // a scalar: a half shape of one block, whose first word is the result
	}
	half := (d + 1) / 2
	blocks := outer * half * inner
	parallelFor(threads, int(blocks), rngGrain/2, func(lo, hi int) {
		for b := int64(lo); b < int64(hi); b++ {
			c := ctr + uint64(b)
			x0, x1 := threefry2x32(uint32(c), uint32(c>>32), k0, k1)
			o, q, j := b/(half*inner), b/inner%half, b%inner
			at := (o*d+2*q)*inner + j
			bits.SetBitsAt(at, uint64(x0))
			if 2*q+1 < d {
				bits.SetBitsAt(at+inner, uint64(x1))
			}
		}
	})
	return []uint64{key, ctr + uint64(blocks)}
}

// philoxBits fills bits as Philox does from the state and returns the new state.
func philoxBits(st []uint64, bits *tensor.Tensor, threads int) []uint64 {
	key := st[0]
	k0, k1 := uint32(key), uint32(key>>32)
	lo64, hi64 := st[1], st[0] // u64[2]: the expander reverses the state
	if len(st) == 3 {
		hi64 = st[2]
	}
	// block returns the words of counter + i, a 128-bit sum.
	block := func(i uint64) [4]uint32 {
		l := lo64 + i
		h := hi64
		if l < lo64 {
			h++
		}
		return philox4x32([4]uint32{uint32(l), uint32(l >> 32), uint32(h), uint32(h >> 32)}, k0, k1)
	}
	total := bits.NumElements()
	per := int64(4) // elements a block gives
	if bits.Type.BitWidth() == 64 {
		per = 2
	}
	blocks := (total + per - 1) / per
	parallelFor(threads, int(blocks), rngGrain/int(per), func(lo, hi int) {
		for b := int64(lo); b < int64(hi); b++ {
			w := block(uint64(b))
			for r := range per {
				i := b*per + r
				if i >= total {
					break
				}
				if per == 2 {
					bits.SetBitsAt(i, uint64(w[2*r])|uint64(w[2*r+1])<<32)
				} else {
					bits.SetBitsAt(i, uint64(w[r]))
				}
			}
		}
	})
	l := lo64 + uint64(blocks)
	if len(st) == 3 {
		h := hi64
		if l < lo64 {
			h++
		}
		return []uint64{key, l, h}
	}
	return []uint64{key, l}
}

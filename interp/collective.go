package interp

import (
	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

// devices returns the number of devices the module is compiled for: replica_count * num_partitions (1
// each when the header does not say).
func devices(m *hlo.Module) int64 {
	n := int64(1)
	for _, name := range []string{"replica_count", "num_partitions"} {
		switch v := m.Attr(name).(type) {
		case hlo.Int:
			n *= max(int64(v), 1)
		case hlo.Raw:
			if v != "1" {
				return 0 // unknown form: assume several
			}
		}
	}
	return n
}

// collective evaluates a collective of a module compiled for one device, where every group holds that
// one device: reductions, gathers, scatters and broadcasts give their operand back, and a permute gives
// it where the device sends to itself (zeros otherwise). A module compiled for several devices would need
// the values of the others.
func (e *evaluator) collective(in *hlo.Instruction, ops []Value) (Value, error) {
	if e.dev != nil {
		return e.collectiveOnGrid(in, ops)
	}
	if n := devices(e.mod); n != 1 {
		return Value{}, unsupportedf(in, "collective %s in a module compiled for several devices", in.Opcode)
	}
	// Groups or pairs that name another device than the one are a program for several devices whose
	// header does not say so (XLA's verifier takes replica groups of any size where replica_count is 1).
	if other, ok := otherDevice(in); ok {
		return Value{}, unsupportedf(in, "collective %s over several devices: it names device %d, and the module's header (replica_count, num_partitions) one device", in.Opcode, other)
	}
	var v Value
	switch {
	case len(ops) == 1:
		v = ops[0]
	case len(ops) > 1:
		v = TupleValue(append([]Value(nil), ops...)...)
	default:
		return Value{}, errorf(in, "%s without operands", in.Opcode)
	}
	if in.Opcode == hlo.OpCollectivePermute || in.Opcode == hlo.OpCollectivePermuteStart {
		self := false
		if pairs, ok := in.Attr("source_target_pairs").(hlo.IntLists); ok {
			for _, p := range pairs {
				if len(p) == 2 && p[0] == 0 && p[1] == 0 {
					self = true
				}
			}
		}
		if !self {
			v = zeroValue(in.Shape)
		}
	}
	if err := v.Fits(in.Shape); err != nil {
		return Value{}, unsupportedf(in, "collective %s over several devices (its result is not its operand: %v)", in.Opcode, err)
	}
	return v, nil
}

// otherDevice returns a device other than 0 that in's replica groups or source-target pairs name, and
// whether there is one. An iota list too long to expand counts as naming others.
func otherDevice(in *hlo.Instruction) (int64, bool) {
	var groups [][]int64
	if rg, ok := in.Attr("replica_groups").(*hlo.ReplicaGroups); ok && rg != nil {
		groups = rg.Groups
		if rg.Iota != nil {
			var ok bool
			if groups, ok = rg.Iota.Groups(1 << 20); !ok {
				return 1, true
			}
		}
	}
	if pairs, ok := in.Attr("source_target_pairs").(hlo.IntLists); ok {
		groups = append(groups, pairs...)
	}
	for _, g := range groups {
		for _, id := range g {
			if id != 0 {
				return id, true
			}
		}
	}
	return 0, false
}

// rng fills its result from the interpreter's deterministic stream: uniform in [a, b) or normal with mean
// a and deviation b (rng's values are unspecified; these are reproducible).
func (e *evaluator) rng(in *hlo.Instruction, ops []Value) (Value, error) {
	ts, err := arrays(in, ops)
	if err != nil {
		return Value{}, err
	}
	if len(ts) != 2 || !in.Shape.IsArray() || ts[0].NumElements() != 1 || ts[1].NumElements() != 1 {
		return Value{}, errorf(in, "rng takes two scalars and gives an array")
	}
	e.rngCalls++
	key := mix(0x726e67, e.rngCalls)
	t, dims := in.Shape.Elem, in.Shape.Dims
	n := product(dims)
	dist := in.Str("distribution")
	switch domainOf(t) {
	case domFloat32, domFloat64:
		a, b := f64s(ts[0])[0], f64s(ts[1])[0]
		var v []float64
		if dist == "rng_normal" {
			v = randomFloats(key, n, false, e.threads)
			for j, z := range v {
				v[j] = a + b*z
			}
		} else {
			v = make([]float64, n)
			for j := range v {
				v[j] = a + (b-a)*uniform(mix(key, uint64(j)))
			}
		}
		if t == dtype.F64 {
			return ArrayValue(fromF64(t, dims, v)), nil
		}
		f := make([]float32, n)
		for j, x := range v {
			f[j] = float32(x)
		}
		return ArrayValue(fromF32(t, dims, f)), nil
	case domInt:
		if dist == "rng_normal" {
			return Value{}, unsupportedf(in, "rng_normal of %s", t)
		}
		a, b := i64s(ts[0])[0], i64s(ts[1])[0]
		v := make([]int64, n)
		span := uint64(b - a)
		for j := range v {
			if span == 0 {
				v[j] = a
			} else {
				v[j] = a + int64(mix(key, uint64(j))%span)
			}
		}
		return ArrayValue(fromI64(t, dims, v)), nil
	}
	return Value{}, unsupportedf(in, "rng of %s", t)
}

// rngState is rng-get-and-update-state: the current state (as a u64[2]), advanced by delta.
func (e *evaluator) rngState(in *hlo.Instruction) (Value, error) {
	if !in.Shape.IsArray() || in.Shape.NumElements() != 2 || in.Shape.Elem.ByteSize() != 8 {
		return Value{}, unsupportedf(in, "rng-get-and-update-state giving %s", in.Shape.String())
	}
	delta, _ := in.Int("delta")
	t := tensor.New(in.Shape.Elem, in.Shape.Dims)
	t.SetBitsAt(0, e.rngStateLo)
	t.SetBitsAt(1, 0)
	e.rngStateLo += uint64(delta)
	return ArrayValue(t), nil
}

package report

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"reflect"
	"slices"
	"strings"

	"octet/fuse"
	"octet/hlo"
)

// flow computes dataflow fingerprints: a hash of what a value is computed from, independent of instruction
// and computation names, of the order of instructions and of the numbering of entry parameters. An entry
// parameter is known by its shape and its rank among the entry parameters of that shape that are used (an
// unused parameter inserted anywhere changes nothing); a GEMM's value, whether a dot, the ops a fused call
// absorbed, or the call and the slices and reshapes of its result, is known by the GEMM: its shapes and the
// fingerprints of its FP8 sources. So a module and the same module renamed, reordered, given an unused
// parameter or rewritten by octet fuse give each GEMM the same fingerprint.
type flow struct {
	memo     map[*hlo.Instruction]uint64
	gemmOf   map[*hlo.Instruction]*GEMM
	auxOf    map[*hlo.Instruction]*GEMM // abs-max results of a GEMM
	paramOrd map[*hlo.Instruction]int
	busy     map[*GEMM]bool
	// t is the tracer of the module: its name index, and the count of steps (see check).
	t *tracer
}

func newFlow(m *hlo.Module, gemms []*GEMM, decisions map[[2]string]*fuse.Decision, t *tracer) *flow {
	f := &flow{memo: map[*hlo.Instruction]uint64{}, gemmOf: map[*hlo.Instruction]*GEMM{}, auxOf: map[*hlo.Instruction]*GEMM{},
		paramOrd: map[*hlo.Instruction]int{}, busy: map[*GEMM]bool{}, t: t}
	if m.Entry != nil {
		t.steps += int64(len(m.Entry.Params))
		seen := map[string]int{}
		for _, p := range m.Entry.Params {
			if p == nil || len(p.Users()) == 0 {
				continue
			}
			s := p.Shape.String()
			f.paramOrd[p] = seen[s]
			seen[s]++
		}
	}
	for _, g := range gemms {
		if g.inst == nil {
			continue
		}
		f.gemmOf[g.inst] = g
		if g.inst.Opcode == hlo.OpCustomCall {
			f.callResults(g)
		}
		if g.inst.Opcode != hlo.OpDot {
			continue
		}
		d := decisions[[2]string{g.inst.Parent.Name, g.inst.Name}]
		if d == nil || !d.Fused {
			continue
		}
		// The ops octet fuse would absorb are part of the GEMM's value: after the rewrite they are gone.
		for _, name := range d.Absorbed {
			in := t.lookup(g.inst.Parent, name)
			switch {
			case in == nil:
			case in.Opcode == hlo.OpReduce && in.Shape.IsScalar():
				f.auxOf[in] = g
			default:
				f.gemmOf[in] = g
			}
		}
	}
	return f
}

// callResults marks the results of a GEMM call: D, through get-tuple-element and the slice from 0 and the
// reshape that bring the padded, canonical D back to the value the call replaced (octet fuse's form), and
// the abs-max.
func (f *flow) callResults(g *GEMM) {
	f.t.steps += int64(len(g.inst.Users()))
	for _, u := range g.inst.Users() {
		if u.Opcode != hlo.OpGetTupleElement {
			continue
		}
		idx, _ := u.Int("index")
		switch {
		case idx == 0:
			f.gemmOf[u] = g
			v := u
			for _, op := range []hlo.Opcode{hlo.OpSlice, hlo.OpReshape} {
				if len(v.Users()) != 1 || v.Users()[0].Opcode != op {
					continue
				}
				next := v.Users()[0]
				if op == hlo.OpSlice && !fromZero(next) {
					break
				}
				f.gemmOf[next] = g
				v = next
			}
		case u.Shape.IsScalar():
			f.auxOf[u] = g
			for _, c := range u.Users() {
				if c.Opcode == hlo.OpConvert {
					f.auxOf[c] = g
				}
			}
		}
	}
}

// fromZero reports whether a slice starts at 0 with stride 1 in every dimension.
func fromZero(in *hlo.Instruction) bool {
	sl, _ := in.Attr("slice").(hlo.Slice)
	for _, d := range sl {
		if d.Start != 0 || d.Stride != 1 {
			return false
		}
	}
	return true
}

func (f *flow) sum(parts ...any) uint64 {
	h := fnv.New64a()
	var buf [8]byte
	for _, p := range parts {
		switch v := p.(type) {
		case uint64:
			binary.LittleEndian.PutUint64(buf[:], v)
			h.Write(buf[:])
		case string:
			h.Write([]byte(v))
			h.Write([]byte{0})
		default:
			fmt.Fprintf(h, "%v\x00", v)
		}
	}
	return h.Sum64()
}

// gemm is the fingerprint of a GEMM: its shapes and its sources'.
func (f *flow) gemm(g *GEMM) uint64 {
	if g.flow != 0 {
		return g.flow
	}
	if f.busy[g] {
		return f.sum("gemm-cycle", g.local)
	}
	f.busy[g] = true
	parts := []any{"gemm", g.local}
	for _, s := range g.src {
		if s == nil {
			parts = append(parts, "none")
		} else {
			parts = append(parts, f.of(s))
		}
	}
	g.flow = f.sum(parts...)
	delete(f.busy, g)
	return g.flow
}

// of is the fingerprint of the value of in.
func (f *flow) of(in *hlo.Instruction) uint64 {
	if h, ok := f.memo[in]; ok {
		return h
	}
	f.t.steps++
	var h uint64
	switch {
	case f.gemmOf[in] != nil:
		h = f.sum("gemm-value", f.gemm(f.gemmOf[in]))
	case f.auxOf[in] != nil:
		h = f.sum("gemm-amax", f.gemm(f.auxOf[in]))
	case in.Opcode == hlo.OpParameter && in.Parent != nil && in.Parent.Module != nil && in.Parent == in.Parent.Module.Entry:
		h = f.sum("parameter", in.Shape.String(), f.paramOrd[in])
	case in.Opcode == hlo.OpParameter:
		h = f.sum("parameter", in.Shape.String(), in.ParameterNumber)
	case in.Opcode == hlo.OpConstant:
		// The values of a small constant only: printers elide large ones ({...}), so a module printed and
		// read back has lost them.
		parts := []any{"constant", in.Shape.String()}
		if in.Literal != nil && in.Shape.NumElements() <= 8 {
			for i := range in.Shape.NumElements() {
				v, _ := in.Literal.Float(i)
				parts = append(parts, v)
			}
		}
		h = f.sum(parts...)
	default:
		f.memo[in] = f.sum("cycle", in.Opcode.String())
		parts := []any{in.Opcode.String(), in.Shape.String()}
		for _, a := range in.Attrs {
			switch a.Value.(type) {
			case hlo.CompRef, hlo.CompList, hlo.InstList, hlo.Metadata, *hlo.BackendConfig, hlo.FrontendAttributes:
				continue
			}
			parts = append(parts, a.Name, valueText(reflect.ValueOf(a.Value)))
		}
		for _, o := range in.Operands() {
			parts = append(parts, f.of(o))
		}
		for _, c := range in.Called() {
			if c.Root != nil {
				parts = append(parts, f.of(c.Root))
			}
		}
		h = f.sum(parts...)
	}
	f.memo[in] = h
	return h
}

// fingerprint sets the Flow of every GEMM of r, and the keys Diff pairs GEMMs by.
func fingerprint(m *hlo.Module, r *Report, decisions map[[2]string]*fuse.Decision, t *tracer) {
	f := newFlow(m, r.GEMMs, decisions, t)
	for _, g := range r.GEMMs {
		g.Flow = fmt.Sprintf("%016x", f.gemm(g))
	}
	uses := f.uses(m, r.GEMMs)
	for _, g := range r.GEMMs {
		scale := func(i int) uint64 {
			if g.scales[i] == nil {
				return f.sum("no scale")
			}
			return f.sum("scale", g.inverse[i], f.of(g.scales[i]))
		}
		g.keys.scaled = f.sum("scaled", g.flow, scale(0), scale(1))
		g.keys.used = f.sum("used", g.flow, uses[g])
		g.keys.full = f.sum("full", g.keys.scaled, uses[g], g.call)
	}
}

// pairKeys tell apart GEMMs that share a dataflow fingerprint (the same FP8 sources), from the most to the
// least telling: full holds the sources of their scales, what the call computes (epilogue, abs-max, D type,
// alpha, beta) and where the result goes; scaled the scales' sources alone; used where the result goes
// alone. Each is the same for a dot and the call octet fuse makes of it, and blind to names and order.
type pairKeys struct{ full, scaled, used uint64 }

// uses describes, for each GEMM, where its result goes: the users of the instruction that holds it, each
// by its opcode and the operand positions it reads the result at (for the entry's root tuple, which of
// the module's outputs it is), and whether the result is its computation's root. The positions are
// found in one pass over the module, not by a search through each user's operands.
func (f *flow) uses(m *hlo.Module, gemms []*GEMM) map[*GEMM]uint64 {
	finals := map[*hlo.Instruction][]string{}
	for _, g := range gemms {
		if g.final != nil {
			finals[g.final] = nil
		}
	}
	for _, c := range m.Computations {
		f.t.steps += int64(len(c.Instructions))
		for _, u := range c.Instructions {
			for i, o := range u.Operands() {
				if l, ok := finals[o]; ok {
					f.t.steps++
					finals[o] = append(l, fmt.Sprintf("%s:%d", u.Opcode, i))
				}
			}
		}
	}
	out := make(map[*GEMM]uint64, len(gemms))
	for _, g := range gemms {
		if g.final == nil {
			continue
		}
		l := slices.Clone(finals[g.final])
		slices.Sort(l)
		parts := []any{"uses", g.final.IsRoot()}
		for _, s := range l {
			parts = append(parts, s)
		}
		out[g] = f.sum(parts...)
	}
	return out
}

// opName is the op_name of a GEMM's metadata, its string's value (not its quoted text), or "".
func opName(g *GEMM) string {
	if g.meta == nil {
		return ""
	}
	v, _ := g.meta.Metadata().Get("op_name")
	return v
}

var (
	computationType = reflect.TypeOf((*hlo.Computation)(nil))
	instructionType = reflect.TypeOf((*hlo.Instruction)(nil))
)

// valueText writes an attribute value with every pointer followed, and computations and instructions,
// which are known by their names, left out: the value as far as it does not depend on names.
func valueText(v reflect.Value) string {
	var b strings.Builder
	var walk func(v reflect.Value, depth int)
	walk = func(v reflect.Value, depth int) {
		if depth > 16 || !v.IsValid() {
			return
		}
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if v.IsNil() || v.Type() == computationType || v.Type() == instructionType {
				b.WriteString("_")
				return
			}
			walk(v.Elem(), depth+1)
		case reflect.Struct:
			b.WriteString("{")
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i), depth+1)
					b.WriteString(",")
				}
			}
			b.WriteString("}")
		case reflect.Slice, reflect.Array:
			b.WriteString("[")
			for i := range v.Len() {
				walk(v.Index(i), depth+1)
				b.WriteString(",")
			}
			b.WriteString("]")
		case reflect.Map:
			b.WriteString("map")
		default:
			fmt.Fprintf(&b, "%v", v.Interface())
		}
	}
	walk(v, 0)
	return b.String()
}

package hlo

import (
	"fmt"
	"math"
	"strings"
)

// limits checks what the types of a module imply beyond the shapes of its instructions, as XLA's
// ShapeUtil::ValidateShape and HloVerifier do:
//   - every array shape has a byte size that fits in an int64 (so that its element count does too: shapeSize,
//     which the pass over each computation's instructions calls);
//   - no computation calls itself, directly or through others (HLO has no recursion);
//   - every input_output_alias pair names an output and a parameter of the entry with the same shape.
//
// (A constant written with inf or nan where its type has none is refused by the parser, which sees the text.)
func (v *verifier) limits() {
	if v.m == nil {
		return
	}
	v.recursion()
	v.aliases()
}

// shapeSize reports an array of s whose byte size overflows int64.
func (v *verifier) shapeSize(in *Instruction, s Shape) {
	switch s.Kind {
	case TupleShape:
		for _, e := range s.Tuple {
			v.shapeSize(in, e)
		}
	case ArrayShape:
		if _, ok := checkedByteSize(s); !ok {
			v.errorAt(in, "the shape %s of %%%s has more bytes than an int64 counts", s.String(), in.Name)
		}
	}
}

// checkedByteSize returns the byte size of array shape s (a sub-byte element counts as a byte, a bounded
// dynamic dimension as its bound, an unbounded one as 1), and false when it overflows int64.
func checkedByteSize(s Shape) (int64, bool) {
	n := int64(max(s.Elem.ByteSize(), 1))
	for _, d := range s.Dims {
		if d == UnboundedDim || d == 0 {
			if d == 0 {
				n = 0
			}
			continue
		}
		if d < 0 || n > math.MaxInt64/d {
			return 0, false
		}
		n *= d
	}
	return n, true
}

// recursion reports every computation that calls itself, directly or through other computations, once, at
// the instruction that closes the cycle. The walk keeps its own stack: a chain of calls thousands deep is
// valid HLO and must not overflow the goroutine's.
func (v *verifier) recursion() {
	const (
		unseen = iota
		open   // on the walk's current path
		done
	)
	state := make(map[*Computation]int, len(v.m.Computations))
	type frame struct {
		c     *Computation
		calls []*Instruction // the instructions of c that call computations
		next  int            // the next call of calls to follow
		inst  int            // within calls[next], the next called computation
	}
	callsOf := func(c *Computation) []*Instruction {
		var ins []*Instruction
		for _, in := range c.Instructions {
			if in != nil && len(in.Called()) > 0 {
				ins = append(ins, in)
			}
		}
		return ins
	}
	for _, root := range v.m.Computations {
		if root == nil || !v.comps[root] || state[root] != unseen {
			continue
		}
		state[root] = open
		stack := []frame{{c: root, calls: callsOf(root)}}
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.next == len(f.calls) {
				state[f.c] = done
				stack = stack[:len(stack)-1]
				continue
			}
			in := f.calls[f.next]
			called := in.Called()
			if f.inst >= len(called) {
				f.next++
				f.inst = 0
				continue
			}
			callee := called[f.inst]
			f.inst++
			if callee == nil || !v.comps[callee] {
				continue
			}
			switch state[callee] {
			case unseen:
				state[callee] = open
				stack = append(stack, frame{c: callee, calls: callsOf(callee)})
			case open:
				// The path from callee to here is the cycle.
				var names []string
				for i := len(stack) - 1; i >= 0; i-- {
					names = append(names, "%"+stack[i].c.Name)
					if stack[i].c == callee {
						break
					}
				}
				for i, j := 0, len(names)-1; i < j; i, j = i+1, j-1 {
					names[i], names[j] = names[j], names[i]
				}
				if len(names) > 6 {
					// A long cycle is named by its ends.
					names = append(append(names[:3:3], fmt.Sprintf("... %d more ...", len(names)-5)), names[len(names)-2:]...)
				}
				if len(names) == 1 {
					v.errorAt(in, "%%%s calls %%%s, the computation it is in: recursion is not allowed", in.Name, callee.Name)
				} else {
					v.errorAt(in, "%%%s calls %%%s, which calls it back (%s -> %s): recursion is not allowed",
						in.Name, callee.Name, strings.Join(names, " -> "), names[0])
				}
			}
		}
	}
}

// aliases checks the module's input_output_alias against the entry computation: every pair names an output
// and a parameter that exist, with the same shape and element type (layouts aside), and no output is
// aliased twice.
func (v *verifier) aliases() {
	pairs, ok := v.m.Attr("input_output_alias").(InputOutputAliasing)
	if !ok || v.m.Entry == nil || v.m.Entry.Root == nil || !v.comps[v.m.Entry] {
		return
	}
	entry := v.m.Entry
	result := entry.Root.Shape
	seen := map[string]bool{}
	for _, a := range pairs {
		key := intsString(a.Output)
		if seen[key] {
			v.errorAtModule("input_output_alias: output %s is aliased twice", key)
			continue
		}
		seen[key] = true
		out, ok := result.Subshape(a.Output)
		if !ok {
			v.errorAtModule("input_output_alias: the entry's result %s has no output %s", result.String(), key)
			continue
		}
		if a.Parameter < 0 || a.Parameter >= int64(len(entry.Params)) || entry.Params[a.Parameter] == nil {
			v.errorAtModule("input_output_alias: output %s is aliased to parameter %d; the entry %%%s takes %d", key, a.Parameter, entry.Name, len(entry.Params))
			continue
		}
		p := entry.Params[a.Parameter]
		in, ok := p.Shape.Subshape(a.ParameterIndex)
		if !ok {
			v.errorAtModule("input_output_alias: parameter %d (%%%s) of shape %s has no element %s", a.Parameter, p.Name, p.Shape.String(), intsString(a.ParameterIndex))
			continue
		}
		if !out.Compatible(in) {
			v.errorAtModule("input_output_alias: output %s is %s but parameter %d (%%%s) at %s is %s: an alias shares one buffer, so both must have one shape",
				key, out.String(), a.Parameter, p.Name, intsString(a.ParameterIndex), in.String())
		}
	}
}

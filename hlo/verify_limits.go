package hlo

import (
	"fmt"
	"math"
	"strings"
)

// limits checks what the types of a module imply beyond the shapes of its instructions, as XLA's
// ShapeUtil::ValidateShape and HloVerifier do:
//   - every array shape has a byte size that fits in an int64 (so that its element count does too);
//   - no computation calls itself, directly or through others (HLO has no recursion);
//   - every input_output_alias pair names an output and a parameter of the entry with the same shape;
//   - a float constant holds inf or nan only when its type has them (f8e4m3fn has no infinity, f4e2m1fn
//     neither infinity nor NaN), as XLA's parser requires.
func (v *verifier) limits() {
	if v.m == nil {
		return
	}
	for _, c := range v.m.Computations {
		if c == nil || !v.comps[c] {
			continue
		}
		for _, in := range c.Instructions {
			if in != nil {
				v.shapeSize(in, in.Shape)
				v.nonFinite(in)
			}
		}
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

// ioAlias is one pair of input_output_alias: output ShapeIndex aliases parameter Param at ParamIndex.
type ioAlias struct {
	Output     []int64
	Param      int64
	ParamIndex []int64
}

// aliases checks the module's input_output_alias against the entry computation: every pair names an output
// and a parameter that exist, with the same shape and element type (layouts aside), and no output is
// aliased twice.
func (v *verifier) aliases() {
	raw, ok := v.m.Attr("input_output_alias").(Raw)
	if !ok || v.m.Entry == nil || v.m.Entry.Root == nil || !v.comps[v.m.Entry] {
		return
	}
	pairs, ok := parseAliases(string(raw))
	if !ok {
		v.errorAtModule("input_output_alias=%s is not a list of {output}: (parameter, {index}[, kind]) pairs", string(raw))
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
		if a.Param < 0 || a.Param >= int64(len(entry.Params)) || entry.Params[a.Param] == nil {
			v.errorAtModule("input_output_alias: output %s is aliased to parameter %d; the entry %%%s takes %d", key, a.Param, entry.Name, len(entry.Params))
			continue
		}
		p := entry.Params[a.Param]
		in, ok := p.Shape.Subshape(a.ParamIndex)
		if !ok {
			v.errorAtModule("input_output_alias: parameter %d (%%%s) of shape %s has no element %s", a.Param, p.Name, p.Shape.String(), intsString(a.ParamIndex))
			continue
		}
		if !out.Compatible(in) {
			v.errorAtModule("input_output_alias: output %s is %s but parameter %d (%%%s) at %s is %s: an alias shares one buffer, so both must have one shape",
				key, out.String(), a.Param, p.Name, intsString(a.ParamIndex), in.String())
		}
	}
}

// parseAliases decodes the text of input_output_alias as XLA prints it:
// "{ {0}: (0, {}, may-alias), {1, 2}: (1, {0}) }"; "{}" is an empty list.
func parseAliases(s string) ([]ioAlias, bool) {
	sc := aliasScanner{s: s}
	if !sc.eat('{') {
		return nil, false
	}
	var pairs []ioAlias
	for !sc.eat('}') {
		if len(pairs) > 0 && !sc.eat(',') {
			return nil, false
		}
		var a ioAlias
		var ok bool
		if a.Output, ok = sc.index(); !ok || !sc.eat(':') || !sc.eat('(') {
			return nil, false
		}
		if a.Param, ok = sc.int(); !ok || !sc.eat(',') {
			return nil, false
		}
		if a.ParamIndex, ok = sc.index(); !ok {
			return nil, false
		}
		if sc.eat(',') {
			kind := sc.word()
			if kind != "may-alias" && kind != "must-alias" {
				return nil, false
			}
		}
		if !sc.eat(')') {
			return nil, false
		}
		pairs = append(pairs, a)
	}
	sc.skipSpace()
	return pairs, sc.i == len(s)
}

// aliasScanner reads the small grammar of input_output_alias.
type aliasScanner struct {
	s string
	i int
}

func (sc *aliasScanner) skipSpace() {
	for sc.i < len(sc.s) && (sc.s[sc.i] == ' ' || sc.s[sc.i] == '\t' || sc.s[sc.i] == '\n' || sc.s[sc.i] == '\r') {
		sc.i++
	}
}

// eat consumes c, after white space, when it comes next.
func (sc *aliasScanner) eat(c byte) bool {
	sc.skipSpace()
	if sc.i < len(sc.s) && sc.s[sc.i] == c {
		sc.i++
		return true
	}
	return false
}

// int reads a non-negative decimal integer that fits in an int64.
func (sc *aliasScanner) int() (int64, bool) {
	sc.skipSpace()
	start := sc.i
	var n int64
	for sc.i < len(sc.s) && sc.s[sc.i] >= '0' && sc.s[sc.i] <= '9' {
		d := int64(sc.s[sc.i] - '0')
		if n > (math.MaxInt64-d)/10 {
			return 0, false
		}
		n = n*10 + d
		sc.i++
	}
	return n, sc.i > start
}

// index reads a shape index: "{}", "{0}", "{1, 2}".
func (sc *aliasScanner) index() ([]int64, bool) {
	if !sc.eat('{') {
		return nil, false
	}
	idx := []int64{}
	for !sc.eat('}') {
		if len(idx) > 0 && !sc.eat(',') {
			return nil, false
		}
		n, ok := sc.int()
		if !ok {
			return nil, false
		}
		idx = append(idx, n)
	}
	return idx, true
}

// word reads a run of letters and hyphens.
func (sc *aliasScanner) word() string {
	sc.skipSpace()
	start := sc.i
	for sc.i < len(sc.s) && (sc.s[sc.i] >= 'a' && sc.s[sc.i] <= 'z' || sc.s[sc.i] == '-') {
		sc.i++
	}
	return sc.s[start:sc.i]
}

// nonFinite reports a constant whose literal holds inf or nan where its element type has no such value.
func (v *verifier) nonFinite(in *Instruction) {
	if in.Opcode != OpConstant || in.Literal == nil || !in.Shape.IsArray() || !in.Shape.Elem.IsFloat() {
		return
	}
	t := in.Shape.Elem
	hasInf := math.IsInf(t.DecodeFloat64(t.EncodeFloat64(math.Inf(1))), 1)
	hasNaN := math.IsNaN(t.DecodeFloat64(t.EncodeFloat64(math.NaN())))
	if hasInf && hasNaN {
		return
	}
	text := in.Literal.Text
	for i := 0; i < len(text); {
		c := text[i]
		if !isLetter(c) {
			i++
			continue
		}
		j := i
		for j < len(text) && (isLetter(text[j]) || text[j] >= '0' && text[j] <= '9') {
			j++
		}
		switch word := strings.ToLower(text[i:j]); {
		case word == "inf" && !hasInf:
			v.errorAt(in, "the constant %%%s holds inf, but %s has no infinity", in.Name, t)
			return
		case word == "nan" && !hasNaN:
			v.errorAt(in, "the constant %%%s holds nan, but %s has no NaN", in.Name, t)
			return
		}
		i = j
	}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }

package stablehlo

// locBudget bounds the location nodes visited to describe the locations of one file. Each alias is
// described once and each op's location once, so a file never needs more than it has nodes; the budget
// only guards that promise. Past it, locations describe nothing (an instruction loses its metadata, not
// its meaning).
const locBudget = 1 << 24

// resolveLocs describes every location alias once, each after the aliases it refers to, so that
// describing a location never walks an alias twice: a chain of call sites that names each alias twice is
// linear, not exponential. An alias that refers to itself, directly or through others, is an error at its
// definition. The walk keeps its own stack, so a long chain of aliases cannot exhaust Go's.
func (p *parser) resolveLocs() {
	f := p.out
	f.locs = make(map[string]locDesc, len(p.locOrder))
	const (
		unvisited = iota
		active
		done
	)
	state := make(map[string]uint8, len(p.locOrder))
	type frame struct {
		name string
		refs []string
		next int
	}
	for _, root := range p.locOrder {
		if state[root] != unvisited {
			continue
		}
		state[root] = active
		stack := []frame{{name: root, refs: f.aliasRefs(f.Locs[root], nil, 0)}}
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next < len(top.refs) {
				ref := top.refs[top.next]
				top.next++
				if _, defined := f.Locs[ref]; !defined {
					continue // an undefined alias describes nothing
				}
				switch state[ref] {
				case active:
					if ref == top.name {
						p.failAt(p.locDefs[ref], "location alias #%s refers to itself", ref)
					}
					p.failAt(p.locDefs[ref], "location alias #%s refers to itself through #%s", ref, top.name)
				case unvisited:
					state[ref] = active
					stack = append(stack, frame{name: ref, refs: f.aliasRefs(f.Locs[ref], nil, 0)})
				}
				continue
			}
			f.locs[top.name] = f.describe(f.Locs[top.name])
			state[top.name] = done
			stack = stack[:len(stack)-1]
		}
	}
}

// aliasRefs appends the aliases that l refers to, without following them. The parser bounds the nesting
// of a location, and depth bounds it again for locations built by hand.
func (f *File) aliasRefs(l *Loc, out []string, depth int) []string {
	if l == nil || depth > maxDepth || f.locSteps >= locBudget {
		return out
	}
	f.locSteps++
	if l.Alias != "" {
		return append(out, l.Alias)
	}
	out = f.aliasRefs(l.Child, out, depth+1)
	out = f.aliasRefs(l.Callee, out, depth+1)
	out = f.aliasRefs(l.Caller, out, depth+1)
	for _, x := range l.Fused {
		out = f.aliasRefs(x, out, depth+1)
	}
	return out
}

// describe returns the name a location gives and the innermost source position it names; a call site's
// callee (the innermost frame) wins over its caller, and an alias gives what resolveLocs found for it.
func (f *File) describe(l *Loc) locDesc {
	return f.describeAt(l, 0)
}

func (f *File) describeAt(l *Loc, depth int) locDesc {
	if l == nil || depth > maxDepth || f.locSteps >= locBudget {
		return locDesc{}
	}
	f.locSteps++
	switch {
	case l.Alias != "":
		return f.locs[l.Alias]
	case l.File != "":
		return locDesc{file: l.File, line: l.Line}
	case l.Name != "":
		d := f.describeAt(l.Child, depth+1)
		d.name = l.Name
		return d
	case l.Callee != nil:
		d := f.describeAt(l.Callee, depth+1)
		if d.file == "" {
			caller := f.describeAt(l.Caller, depth+1)
			d.file, d.line = caller.file, caller.line
			if d.name == "" {
				d.name = caller.name
			}
		}
		return d
	}
	var d locDesc
	for _, x := range l.Fused {
		e := f.describeAt(x, depth+1)
		if d.name == "" {
			d.name = e.name
		}
		if d.file == "" {
			d.file, d.line = e.file, e.line
		}
	}
	return d
}

package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"octet/blockscale"
	"octet/dtype"
)

func init() {
	register(&command{
		Name:      "finfo",
		UsageLine: "finfo TYPE...",
		Short:     "print the machine parameters of a number format, as ml_dtypes.finfo does",
		Long: `Finfo prints the parameters of each floating-point TYPE exactly as print(ml_dtypes.finfo(TYPE))
shows them (numpy's layout, with ml_dtypes' number formats): precision, resolution, eps and epsneg
with their exponents machep and negep, the smallest normal number (tiny) and its exponent minexp, the
largest value (max) and the first overflowing exponent maxexp, the exponent width nexp and the smallest
subnormal number.

For an integer type it prints the limits as print(numpy.iinfo(TYPE)) lays them out (pred counts as an
integer from 0 to 1); a complex type prints the parameters of its component type, as numpy.finfo does.

TYPE is XLA's name (f8e4m3fn, bf16, s4) or ml_dtypes' (float8_e4m3fn, bfloat16, int4); case is ignored.

The line "min = -max" is numpy's template, printed for every format; f8e8m0fnu, which has no sign, has
2^-127 as its smallest value.

A block-scaled format (mxfp8e4m3, mxfp8e5m2, mxfp6e2m3, mxfp6e3m2, mxfp4, nvfp4) prints its element and
scale types, its block size, how a value is formed from element and scales, how values are quantized, its
range and its storage cost.`,
		Order: 70,
		Run:   runFinfo,
	})
}

func runFinfo(inv *invocation, args []string) error {
	fs := inv.flags()
	if err := inv.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usagef("finfo needs a type, such as f8e4m3fn or bfloat16")
	}
	var out []string
	for _, name := range fs.Args() {
		if f, ok := blockscale.Lookup(name); ok {
			out = append(out, f.Info())
			continue
		}
		t, ok := dtype.Lookup(name)
		if !ok {
			return unknownType(name)
		}
		if fi := t.Finfo(); fi.Type != dtype.Invalid {
			out = append(out, fi.String())
		} else {
			out = append(out, t.Iinfo().String())
		}
	}
	for _, s := range out {
		if _, err := io.WriteString(inv.stdout, s); err != nil {
			return err
		}
	}
	return nil
}

// typeNames lists XLA's names of every type, for messages.
func typeNames() string {
	var s string
	for i, t := range dtype.All() {
		if i > 0 {
			s += ", "
		}
		s += t.String()
	}
	return s
}

// unknownType is the usage error for a type name that neither XLA nor ml_dtypes has: the names most like
// it first, then every name.
func unknownType(name string) error {
	msg := fmt.Sprintf("unknown type %q", name)
	if like := similarTypes(name); len(like) > 0 {
		msg += "; did you mean " + strings.Join(like, ", ") + "?"
	}
	return usagef("%s (known: %s; block-scaled: %s)", msg, typeNames(), strings.Join(blockscale.Names(), ", "))
}

// typeAliases are numpy's names of types that dtype.Lookup does not take, for suggestions.
var typeAliases = map[string]string{"half": "f16", "single": "f32", "double": "f64", "float": "f32", "bool_": "pred",
	"bfloat": "bf16", "int": "s32", "uint": "u32", "fp8": "f8e4m3fn", "fp16": "f16", "fp32": "f32", "fp64": "f64", "fp4": "f4e2m1fn"}

// similarTypes returns, by XLA's names, at most five types whose XLA, ml_dtypes or block-format name holds
// name or nearly equals it (one edit for short names, two for others).
func similarTypes(name string) []string {
	q := strings.ToLower(strings.TrimSpace(name))
	if q == "" {
		return nil
	}
	var out []string
	add := func(s string) {
		if len(out) < 5 && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if a, ok := typeAliases[q]; ok {
		add(a)
	}
	// Names that hold name (or that name holds) first, then names an edit or two away.
	holds := func(c string) bool {
		return len(q) >= 3 && (strings.Contains(c, q) || strings.Contains(q, c) && len(c) >= 4)
	}
	near := func(c string) bool {
		d := 2
		if len(q) <= 4 {
			d = 1
		}
		return editDistance(q, c, d) <= d
	}
	for _, match := range []func(string) bool{holds, near} {
		for _, t := range dtype.All() {
			if match(t.String()) || match(t.NumpyName()) {
				add(t.String())
			}
		}
		for _, b := range blockscale.Names() {
			if match(b) {
				add(b)
			}
		}
	}
	return out
}

// editDistance returns the Levenshtein distance of a and b, or limit+1 when it is more than limit.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit+1)
}

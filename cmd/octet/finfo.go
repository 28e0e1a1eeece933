package main

import (
	"io"
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
			return usagef("unknown type %q (known: %s; block-scaled: %s)", name, typeNames(), strings.Join(blockscale.Names(), ", "))
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

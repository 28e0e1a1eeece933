package verify

import (
	"fmt"

	"octet/fuse"
	"octet/hlo"
	"octet/interp"
)

// Report is what Run found.
type Report struct {
	Seed uint64 `json:"seed"`
	// Runs are the comparisons on random normal inputs ("normal") and then on each of Families.
	Runs []*Result `json:"runs"`
	// EndToEnd compares the rewritten module's outputs, as it computes them, with the original's on the
	// normal inputs: how far the call's rounding carries, which Runs do not bound.
	EndToEnd interp.Comparison `json:"-"`
	// OK is set when every run is.
	OK bool `json:"ok"`
}

// Run checks the rewrite (see Check) on random normal inputs made from seed (interp.RandomInputs), then on
// each of Families, and compares the rewritten module's own outputs with the original's on the normal
// inputs. Both modules are first checked against opts.MaxMemory.
func Run(orig, fused *hlo.Module, decisions []*fuse.Decision, seed uint64, opts interp.Options) (*Report, error) {
	for _, m := range []*hlo.Module{orig, fused} {
		if err := interp.CheckMemory(m, opts); err != nil {
			return nil, err
		}
	}
	args, err := interp.RandomInputs(orig, seed)
	if err != nil {
		return nil, err
	}
	r := &Report{Seed: seed, OK: true}
	normal, err := Check(orig, fused, decisions, args, opts)
	if err != nil {
		return nil, err
	}
	normal.Name = "normal"
	r.Runs = append(r.Runs, normal)
	got, err := interp.Run(fused, args, opts)
	if err != nil {
		return nil, fmt.Errorf("the rewritten module: %v", err)
	}
	r.EndToEnd = interp.Compare(normal.want, got)
	if r.EndToEnd.Mismatch != "" {
		return nil, fmt.Errorf("the results differ in shape: %s", r.EndToEnd.Mismatch)
	}
	for _, f := range Families() {
		res, err := Check(orig, fused, decisions, f.Inputs(args), opts)
		if err != nil {
			return nil, fmt.Errorf("inputs %s: %v", f.Name, err)
		}
		res.Name = f.Name
		r.Runs = append(r.Runs, res)
	}
	for _, res := range r.Runs {
		r.OK = r.OK && res.OK
	}
	return r, nil
}

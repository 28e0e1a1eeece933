package verify

import (
	"fmt"
	"sync"

	"octet/hlo"
	"octet/interp"
)

// recorder holds the original module's values that the rewritten module's run reads: each replaced value
// at each evaluation, from the moment the original computes it until the rewritten module has compared
// it. The two runs go in lockstep where the memory budget lets both run at once: the original pauses once
// it holds a value the rewritten module has not compared yet, unless the rewritten module waits for one
// the original has not computed, so that a scan over many layers holds the values of about one layer, not
// of them all. The values held whenever the original records one are then the same from run to run, as
// is an error for holding too much. Otherwise (lockstep unset) the original runs to its end before the
// rewritten module starts. One mutex guards it all; cond wakes either run.
type recorder struct {
	mu   sync.Mutex
	cond *sync.Cond
	// seen are the original's values of each watched instruction by evaluation, compared ones dropped.
	seen map[*hlo.Instruction][]interp.Value
	// held counts the bytes of seen, peak the most it held; limit bounds held (-1: no limit).
	held, peak, limit int64
	lockstep          bool
	// waitFor is the instruction the rewritten module waits for the original's value of at evaluation
	// waitAt, nil when it does not wait; waits counts its waits.
	waitFor *hlo.Instruction
	waitAt  int
	waits   int
	// origDone is set when the original's run has ended, origErr to its error; fusedDone when the
	// rewritten module's has, fusedFailed when it failed (the original then runs on unrecorded, so that
	// its own failure, if it has one, is the one reported, as when it runs first).
	origDone, fusedDone, fusedFailed bool
	origErr                          error
}

func newRecorder(limit int64, lockstep bool) *recorder {
	r := &recorder{seen: map[*hlo.Instruction][]interp.Value{}, limit: limit, lockstep: lockstep}
	r.cond = sync.NewCond(&r.mu)
	return r
}

// record keeps a copy of v, the original's value of in at its next evaluation, and in lockstep waits
// until the rewritten module has compared what the original holds or waits for a value not yet recorded.
func (r *recorder) record(in *hlo.Instruction, v interp.Value) error {
	r.mu.Lock()
	failed := r.fusedFailed
	r.mu.Unlock()
	if failed {
		return nil
	}
	// The copy is made outside the lock: only this run adds to seen.
	c := v.Clone()
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.fusedFailed:
		return nil
	case r.fusedDone:
		return fmt.Errorf("%%%s is evaluated more often than the rewritten module evaluates its call (%d times)", in.Name, len(r.seen[in]))
	}
	if r.held += c.ByteSize(); r.limit >= 0 && r.held > r.limit {
		return fmt.Errorf("the values to compare, recorded at each evaluation of the fused GEMMs until the rewritten module has computed its own, take more than the %d bytes the memory budget leaves", r.limit)
	}
	r.peak = max(r.peak, r.held)
	r.seen[in] = append(r.seen[in], c)
	r.cond.Broadcast()
	for r.lockstep && r.held > 0 && !r.fusedDone && (r.waitFor == nil || len(r.seen[r.waitFor]) > r.waitAt) {
		r.cond.Wait()
	}
	return nil
}

// value returns the original's value of x at evaluation i, waiting for the original to compute it; ok is
// false when the original's run ended without it (err is then the original's error, if it failed).
func (r *recorder) value(x *hlo.Instruction, i int) (v interp.Value, ok bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.seen[x]) <= i && !r.origDone {
		r.waitFor, r.waitAt = x, i
		r.waits++
		r.cond.Broadcast()
		for len(r.seen[x]) <= i && !r.origDone {
			r.cond.Wait()
		}
		r.waitFor = nil
	}
	if len(r.seen[x]) <= i {
		return interp.Value{}, false, r.origErr
	}
	return r.seen[x][i], true, nil
}

// count is how many evaluations of x the original has computed.
func (r *recorder) count(x *hlo.Instruction) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.seen[x])
}

// drop lets go of the original's value of x at evaluation i, once compared.
func (r *recorder) drop(x *hlo.Instruction, i int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.held -= r.seen[x][i].ByteSize()
	r.seen[x][i] = interp.Value{}
	r.cond.Broadcast()
}

// runBoth runs the original o with the watched instructions oWatch recorded in r, and the rewritten
// module f with fOpts (whose Intercept reads r), in lockstep or one after the other as r says, and returns
// both results. The original's failure is reported before the rewritten module's, which a failing
// original causes.
func runBoth(r *recorder, o, f *hlo.Module, oWatch map[*hlo.Instruction]bool, args []interp.Value, oOpts, fOpts interp.Options) (want, got interp.Value, err error) {
	oOpts.Intercept = &interp.Intercept{Instructions: oWatch, Func: func(in *hlo.Instruction, v interp.Value) (interp.Value, error) {
		return v, r.record(in, v)
	}}
	var wantErr error
	done := make(chan struct{})
	runOrig := func() {
		defer close(done)
		want, wantErr = interp.Run(o, args, oOpts)
		r.mu.Lock()
		r.origDone = true
		if wantErr != nil {
			r.origErr = fmt.Errorf("the original module: %v", wantErr)
		}
		r.cond.Broadcast()
		r.mu.Unlock()
	}
	if r.lockstep {
		go runOrig()
	} else if runOrig(); wantErr != nil {
		return want, got, r.origErr
	}
	got, gotErr := interp.Run(f, args, fOpts)
	r.mu.Lock()
	r.fusedDone, r.fusedFailed = true, gotErr != nil
	r.cond.Broadcast()
	r.mu.Unlock()
	<-done
	switch {
	case r.origErr != nil:
		return want, got, r.origErr
	case gotErr != nil:
		return want, got, fmt.Errorf("the rewritten module: %v", gotErr)
	}
	return want, got, nil
}

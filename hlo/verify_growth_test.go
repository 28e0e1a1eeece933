package hlo

import (
	"runtime/debug"
	"testing"
	"time"
)

// growth returns how many times longer run(8n) takes than run(n), each the fastest of five runs taken in
// turn with the garbage collector held off (its pauses would depend on what the heap holds): about 8 for
// work linear in n, 64 for quadratic work, whatever the machine's speed or load.
func growth(run func(n int), n int) float64 {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	best := [2]time.Duration{time.Hour, time.Hour}
	for range 5 {
		for i, size := range []int{n, 8 * n} {
			start := time.Now()
			run(size)
			best[i] = min(best[i], time.Since(start))
		}
	}
	return float64(best[1]) / float64(max(best[0], 1))
}

// wideModule returns a module whose entry computes n values from one parameter and returns them all in one
// tuple: a parameter with n users and a tuple with n operands, as XLA's entry computations return every
// output and a scale is read by every layer.
func wideModule(n int) *Module {
	s := Array(f32, 8)
	m, c, ps := testModule(s)
	elems := make([]*Instruction, n)
	shapes := make([]Shape, n)
	for i := range elems {
		elems[i] = c.Add("v", OpNegate, s, ps[0])
		shapes[i] = s
	}
	c.Root = c.Add("t", OpTuple, Tuple(shapes...), elems...)
	return m
}

// TestVerifyLinear checks that the verifier's work grows linearly with a tuple's operands and a value's
// users: twice the elements, at most 2.2 times the list elements walked and the allocations.
func TestVerifyLinear(t *testing.T) {
	const n = 20000
	small, large := wideModule(n), wideModule(2*n)
	steps := func(m *Module) int64 {
		v := &verifier{m: m}
		v.module()
		if err := v.errs.Err(); err != nil {
			t.Fatal(err)
		}
		return v.steps
	}
	if s1, s2 := steps(small), steps(large); float64(s2) > 2.2*float64(s1) {
		t.Errorf("%d elements: %d steps; %d elements: %d steps (%.2f times)", n, s1, 2*n, s2, float64(s2)/float64(s1))
	}
	allocs := func(m *Module) float64 {
		return testing.AllocsPerRun(2, func() {
			if err := Verify(m); err != nil {
				t.Fatal(err)
			}
		})
	}
	if a1, a2 := allocs(small), allocs(large); a2 > 2.2*a1 {
		t.Errorf("%d elements: %.0f allocations; %d elements: %.0f (%.2f times)", n, a1, 2*n, a2, a2/a1)
	}
}

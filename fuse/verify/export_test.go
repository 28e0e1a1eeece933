package verify

// PeakHeld is the most bytes of the original's values r's comparison held at once, Waits how many times
// the rewritten module's run waited for one.
func PeakHeld(r *Result) int64 { return r.peakHeld }
func Waits(r *Result) int      { return r.waits }

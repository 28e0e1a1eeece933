package hlo

import "sync"

// customCallChecks are the checks Verify runs on custom-calls, by target.
var (
	customCallMu     sync.RWMutex
	customCallChecks = map[string]func(*Instruction) error{}
)

// RegisterCustomCall makes Verify run check on every custom-call whose custom_call_target is target, and
// report the error it returns as a problem of the instruction. A custom-call's operands, results and
// backend_config mean what the library behind its target says; the package that knows that library
// registers its checks from its init (package cublas does for the cuBLAS GEMM targets), as image decoders
// register with image.RegisterFormat. A later registration for the same target replaces the earlier one.
func RegisterCustomCall(target string, check func(in *Instruction) error) {
	customCallMu.Lock()
	defer customCallMu.Unlock()
	customCallChecks[target] = check
}

// customCallCheck returns the check registered for target, or nil.
func customCallCheck(target string) func(*Instruction) error {
	customCallMu.RLock()
	defer customCallMu.RUnlock()
	return customCallChecks[target]
}

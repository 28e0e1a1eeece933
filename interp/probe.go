package interp

import (
	"strings"

	"octet/hlo"
)

// The StableHLO interpreter's probes: the custom call "interpreter.probe" records its operand under its
// probe id (its backend_config) each time it runs and gives it back; "check.expect_serialized_eq"
// compares its first operand exactly with what the probe of its id recorded at the iteration its second
// operand (an integer scalar) names.
const (
	probeTarget        = "interpreter.probe"
	serializedEqTarget = "check.expect_serialized_eq"
)

// probeID is an instruction's probe id, its backend_config.
func probeID(in *hlo.Instruction) string {
	if bc, ok := in.Attr("backend_config").(*hlo.BackendConfig); ok {
		return strings.TrimSpace(bc.Text)
	}
	return ""
}

func (e *evaluator) probe(in *hlo.Instruction, ops []Value) (Value, error) {
	id := probeID(in)
	if len(ops) != 1 || id == "" {
		return Value{}, errorf(in, "%s takes one operand and a probe id", probeTarget)
	}
	if e.probes == nil {
		e.probes = map[string][]Value{}
	}
	e.probes[id] = append(e.probes[id], ops[0])
	return ops[0], nil
}

// probed returns the operands of a serialized check as those of an exact one: the value, and what the
// probe recorded.
func (e *evaluator) probed(in *hlo.Instruction, ops []Value) ([]Value, error) {
	id := probeID(in)
	if len(ops) != 2 || ops[1].Kind != KindArray || ops[1].Array.NumElements() != 1 {
		return nil, errorf(in, "%s takes a value and an iteration", serializedEqTarget)
	}
	iter := scalarI64(ops[1].Array)
	recorded := e.probes[id]
	if iter < 0 || iter >= int64(len(recorded)) {
		return nil, errorf(in, "%s: probe %q recorded %d values, none at iteration %d", serializedEqTarget, id, len(recorded), iter)
	}
	return []Value{ops[0], recorded[iter]}, nil
}

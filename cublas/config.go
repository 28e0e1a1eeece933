package cublas

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Epilogue is a cuBLASLt matmul epilogue as XLA's GemmBackendConfig names it.
type Epilogue string

// The epilogues XLA knows (GemmBackendConfig.Epilogue).
const (
	EpilogueDefault     Epilogue = "DEFAULT"
	EpilogueBias        Epilogue = "BIAS"
	EpilogueRelu        Epilogue = "RELU"
	EpilogueBiasRelu    Epilogue = "BIAS_RELU"
	EpilogueGelu        Epilogue = "GELU"
	EpilogueGeluAux     Epilogue = "GELU_AUX"
	EpilogueBiasGelu    Epilogue = "BIAS_GELU"
	EpilogueBiasGeluAux Epilogue = "BIAS_GELU_AUX"
)

// epilogueByNumber are the enum values of GemmBackendConfig.Epilogue, for configs that write numbers.
var epilogueByNumber = []Epilogue{EpilogueDefault, EpilogueBias, EpilogueRelu, EpilogueBiasRelu,
	EpilogueGelu, EpilogueGeluAux, EpilogueBiasGelu, EpilogueBiasGeluAux}

// Known reports whether e is one of the epilogues above.
func (e Epilogue) Known() bool {
	for _, k := range epilogueByNumber {
		if e == k {
			return true
		}
	}
	return false
}

// HasBias reports whether the epilogue adds a vector bias (a bias operand).
func (e Epilogue) HasBias() bool { return strings.HasPrefix(string(e), "BIAS") }

// HasAux reports whether the epilogue writes an auxiliary output (the GELU input, for the backward pass).
func (e Epilogue) HasAux() bool { return strings.HasSuffix(string(e), "_AUX") }

// Activation returns the activation the epilogue applies: "RELU", "GELU" (the tanh approximation) or "".
func (e Epilogue) Activation() string {
	switch {
	case strings.Contains(string(e), "RELU"):
		return "RELU"
	case strings.Contains(string(e), "GELU"):
		return "GELU"
	}
	return ""
}

// Field is a JSON member Octet does not interpret, kept with its raw value so that it prints back.
type Field struct {
	Key   string
	Value json.RawMessage
}

// GemmConfig is XLA's GemmBackendConfig (and the GpuBackendConfig around it) for the cuBLAS custom calls.
type GemmConfig struct {
	AlphaReal, AlphaImag, Beta float64
	// Dot dimension numbers of A (lhs) and B (rhs).
	LhsContracting, RhsContracting, LhsBatch, RhsBatch []int64
	Epilogue                                           Epilogue
	// DamaxOutput is set when the call also returns the absolute maximum of D (before the D scale).
	DamaxOutput bool
	// OperandPrecision and Algorithm are the precision_config ("DEFAULT", "HIGHEST"; "ALG_UNSET").
	OperandPrecision []string
	Algorithm        string
	// Optional fields, nil when absent.
	SelectedAlgorithm    *int64
	LhsStride, RhsStride *int64
	GradX, GradY         *bool
	// Extra are the other members of the GemmBackendConfig (scale_mode, is_fp8, ...), in written order.
	Extra []Field

	// Wrapped is set when the config is a GpuBackendConfig with the GEMM config inside
	// ("gemm_backend_config"); the fields below belong to it.
	Wrapped               bool
	OperationQueueID      int64
	WaitOnOperationQueues []int64
	ForceEarliestSchedule bool
	// OuterExtra are the other members of the GpuBackendConfig, in written order.
	OuterExtra []Field
}

// DefaultConfig returns the configuration XLA's GEMM rewriter starts from for a dot with the given
// dimension numbers: alpha 1, beta 0, the DEFAULT epilogue, DEFAULT precision, inside a GpuBackendConfig.
func DefaultConfig(lhsContracting, rhsContracting, lhsBatch, rhsBatch []int64) GemmConfig {
	return GemmConfig{
		AlphaReal:        1,
		LhsContracting:   lhsContracting,
		RhsContracting:   rhsContracting,
		LhsBatch:         lhsBatch,
		RhsBatch:         rhsBatch,
		Epilogue:         EpilogueDefault,
		OperandPrecision: []string{"DEFAULT", "DEFAULT"},
		Algorithm:        "ALG_UNSET",
		Wrapped:          true,
	}
}

// ParseBackendConfig reads the backend_config of a cuBLAS custom call: a GpuBackendConfig
// {"operation_queue_id":..., "gemm_backend_config":{...}} or a bare GemmBackendConfig object. Integers may
// be written as JSON numbers or as strings (as protobuf writes int64), the epilogue by name or number.
func ParseBackendConfig(text string) (*GemmConfig, error) {
	outer, err := objectFields([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("backend_config is not a JSON object: %v", err)
	}
	c := &GemmConfig{Epilogue: EpilogueDefault, Algorithm: "ALG_UNSET"}
	var inner []Field
	for _, f := range outer {
		if f.Key == "gemm_backend_config" {
			c.Wrapped = true
			if inner, err = objectFields(f.Value); err != nil {
				return nil, fmt.Errorf("gemm_backend_config: %v", err)
			}
		}
	}
	if !c.Wrapped {
		if !looksLikeGemm(outer) {
			return nil, errors.New("backend_config has no gemm_backend_config")
		}
		inner = outer
	} else {
		for _, f := range outer {
			switch f.Key {
			case "gemm_backend_config":
			case "operation_queue_id":
				c.OperationQueueID, err = jsonInt(f.Value)
			case "wait_on_operation_queues":
				c.WaitOnOperationQueues, err = jsonInts(f.Value)
			case "force_earliest_schedule":
				c.ForceEarliestSchedule, err = jsonBool(f.Value)
			default:
				c.OuterExtra = append(c.OuterExtra, f)
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %v", f.Key, err)
			}
		}
	}
	for _, f := range inner {
		if err := c.setGemmField(f); err != nil {
			return nil, fmt.Errorf("gemm_backend_config.%s: %v", f.Key, err)
		}
	}
	return c, nil
}

// gemmKeys are the members of GemmBackendConfig Octet interprets.
var gemmKeys = map[string]bool{
	"alpha_real": true, "alpha_imag": true, "beta": true, "dot_dimension_numbers": true,
	"precision_config": true, "epilogue": true, "damax_output": true, "selected_algorithm": true,
	"lhs_stride": true, "rhs_stride": true, "grad_x": true, "grad_y": true,
}

func looksLikeGemm(fields []Field) bool {
	for _, f := range fields {
		if gemmKeys[f.Key] {
			return true
		}
	}
	return false
}

func (c *GemmConfig) setGemmField(f Field) error {
	var err error
	switch f.Key {
	case "alpha_real":
		c.AlphaReal, err = jsonFloat(f.Value)
	case "alpha_imag":
		c.AlphaImag, err = jsonFloat(f.Value)
	case "beta":
		c.Beta, err = jsonFloat(f.Value)
	case "dot_dimension_numbers":
		var dn []Field
		if dn, err = objectFields(f.Value); err != nil {
			return err
		}
		for _, d := range dn {
			var l []int64
			if l, err = jsonInts(d.Value); err != nil {
				return fmt.Errorf("%s: %v", d.Key, err)
			}
			switch d.Key {
			case "lhs_contracting_dimensions":
				c.LhsContracting = l
			case "rhs_contracting_dimensions":
				c.RhsContracting = l
			case "lhs_batch_dimensions":
				c.LhsBatch = l
			case "rhs_batch_dimensions":
				c.RhsBatch = l
			}
		}
	case "precision_config":
		var pc []Field
		if pc, err = objectFields(f.Value); err != nil {
			return err
		}
		for _, x := range pc {
			switch x.Key {
			case "operand_precision":
				var raw []json.RawMessage
				if err = json.Unmarshal(x.Value, &raw); err != nil {
					return fmt.Errorf("operand_precision: %v", err)
				}
				c.OperandPrecision = make([]string, len(raw))
				for i, r := range raw {
					c.OperandPrecision[i] = enumName(r, precisionNames)
				}
			case "algorithm":
				c.Algorithm = enumName(x.Value, nil)
			}
		}
	case "epilogue":
		// As XLA's proto parser, refuse a word or number the enum does not have.
		if c.Epilogue = Epilogue(enumName(f.Value, epilogueNames())); !c.Epilogue.Known() {
			return fmt.Errorf("%s is not one of %s", c.Epilogue, strings.Join(epilogueNames(), ", "))
		}
	case "damax_output":
		c.DamaxOutput, err = jsonBool(f.Value)
	case "selected_algorithm":
		var v int64
		v, err = jsonInt(f.Value)
		c.SelectedAlgorithm = &v
	case "lhs_stride":
		var v int64
		v, err = jsonInt(f.Value)
		c.LhsStride = &v
	case "rhs_stride":
		var v int64
		v, err = jsonInt(f.Value)
		c.RhsStride = &v
	case "grad_x":
		var v bool
		v, err = jsonBool(f.Value)
		c.GradX = &v
	case "grad_y":
		var v bool
		v, err = jsonBool(f.Value)
		c.GradY = &v
	default:
		c.Extra = append(c.Extra, f)
	}
	return err
}

var precisionNames = []string{"DEFAULT", "HIGH", "HIGHEST", "PACKED_NIBBLE"}

func epilogueNames() []string {
	names := make([]string, len(epilogueByNumber))
	for i, e := range epilogueByNumber {
		names[i] = string(e)
	}
	return names
}

// enumName reads a protobuf enum written as a string or as its number.
func enumName(raw json.RawMessage, byNumber []string) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n int64
	if json.Unmarshal(raw, &n) == nil && n >= 0 && n < int64(len(byNumber)) {
		return byNumber[n]
	}
	return strings.TrimSpace(string(raw))
}

// BackendConfigJSON returns the configuration as XLA writes it: compact JSON, members in XLA's order,
// default values written out, int64 values as strings, the members Octet does not interpret after the
// ones it does.
func (c *GemmConfig) BackendConfigJSON() string {
	var b bytes.Buffer
	if c.Wrapped {
		b.WriteString(`{"operation_queue_id":`)
		writeInt64(&b, c.OperationQueueID)
		b.WriteString(`,"wait_on_operation_queues":`)
		writeInt64s(&b, c.WaitOnOperationQueues)
		b.WriteString(`,"gemm_backend_config":`)
	}
	b.WriteString(`{"alpha_real":`)
	writeFloat(&b, c.AlphaReal)
	b.WriteString(`,"alpha_imag":`)
	writeFloat(&b, c.AlphaImag)
	b.WriteString(`,"beta":`)
	writeFloat(&b, c.Beta)
	b.WriteString(`,"dot_dimension_numbers":{"lhs_contracting_dimensions":`)
	writeInt64s(&b, c.LhsContracting)
	b.WriteString(`,"rhs_contracting_dimensions":`)
	writeInt64s(&b, c.RhsContracting)
	b.WriteString(`,"lhs_batch_dimensions":`)
	writeInt64s(&b, c.LhsBatch)
	b.WriteString(`,"rhs_batch_dimensions":`)
	writeInt64s(&b, c.RhsBatch)
	b.WriteString(`},"precision_config":{"operand_precision":[`)
	for i, s := range c.OperandPrecision {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(&b, s)
	}
	b.WriteString(`],"algorithm":`)
	alg := c.Algorithm
	if alg == "" {
		alg = "ALG_UNSET"
	}
	writeString(&b, alg)
	b.WriteString(`},"epilogue":`)
	ep := c.Epilogue
	if ep == "" {
		ep = EpilogueDefault
	}
	writeString(&b, string(ep))
	b.WriteString(`,"damax_output":`)
	b.WriteString(strconv.FormatBool(c.DamaxOutput))
	optInt := func(key string, v *int64) {
		if v != nil {
			b.WriteString(`,"` + key + `":`)
			writeInt64(&b, *v)
		}
	}
	optBool := func(key string, v *bool) {
		if v != nil {
			b.WriteString(`,"` + key + `":` + strconv.FormatBool(*v))
		}
	}
	optInt("selected_algorithm", c.SelectedAlgorithm)
	optInt("lhs_stride", c.LhsStride)
	optInt("rhs_stride", c.RhsStride)
	optBool("grad_x", c.GradX)
	optBool("grad_y", c.GradY)
	writeFields(&b, c.Extra)
	b.WriteByte('}')
	if c.Wrapped {
		b.WriteString(`,"force_earliest_schedule":`)
		b.WriteString(strconv.FormatBool(c.ForceEarliestSchedule))
		writeFields(&b, c.OuterExtra)
		b.WriteByte('}')
	}
	return b.String()
}

func writeFields(b *bytes.Buffer, fields []Field) {
	for _, f := range fields {
		b.WriteByte(',')
		writeString(b, f.Key)
		b.WriteByte(':')
		var c bytes.Buffer
		if json.Compact(&c, f.Value) == nil {
			b.Write(c.Bytes())
		} else {
			b.Write(f.Value)
		}
	}
}

func writeString(b *bytes.Buffer, s string) {
	enc, _ := json.Marshal(s)
	b.Write(enc)
}

// writeInt64 writes an int64 as protobuf's JSON does: a quoted decimal.
func writeInt64(b *bytes.Buffer, v int64) {
	b.WriteByte('"')
	b.WriteString(strconv.FormatInt(v, 10))
	b.WriteByte('"')
}

func writeInt64s(b *bytes.Buffer, l []int64) {
	b.WriteByte('[')
	for i, v := range l {
		if i > 0 {
			b.WriteByte(',')
		}
		writeInt64(b, v)
	}
	b.WriteByte(']')
}

// writeFloat writes a double as protobuf's JSON does: the shortest decimal that reads back, integers
// without a fraction, and "NaN", "Infinity", "-Infinity" quoted.
func writeFloat(b *bytes.Buffer, v float64) {
	switch {
	case math.IsNaN(v):
		b.WriteString(`"NaN"`)
	case math.IsInf(v, 1):
		b.WriteString(`"Infinity"`)
	case math.IsInf(v, -1):
		b.WriteString(`"-Infinity"`)
	default:
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	}
}

// objectFields reads a JSON object's members in written order.
func objectFields(data []byte) ([]Field, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not an object")
	}
	var fields []Field
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		fields = append(fields, Field{Key: key, Value: raw})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("text after the object")
	}
	return fields, nil
}

func unquoteNumber(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	if len(s) >= 2 && s[0] == '"' {
		var u string
		if json.Unmarshal(raw, &u) == nil {
			return u
		}
	}
	return s
}

func jsonInt(raw json.RawMessage) (int64, error) {
	s := unquoteNumber(raw)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("not an integer: %s", raw)
	}
	return n, nil
}

func jsonInts(raw json.RawMessage) ([]int64, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("not a list: %s", raw)
	}
	l := make([]int64, len(items))
	for i, it := range items {
		n, err := jsonInt(it)
		if err != nil {
			return nil, err
		}
		l[i] = n
	}
	return l, nil
}

func jsonFloat(raw json.RawMessage) (float64, error) {
	s := unquoteNumber(raw)
	switch s {
	case "NaN":
		return math.NaN(), nil
	case "Infinity":
		return math.Inf(1), nil
	case "-Infinity":
		return math.Inf(-1), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("not a number: %s", raw)
	}
	return v, nil
}

func jsonBool(raw json.RawMessage) (bool, error) {
	switch strings.TrimSpace(string(raw)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("not a boolean: %s", raw)
}

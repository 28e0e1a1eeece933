package cublas

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"octet/dtype"
	"octet/hlo"
)

// The custom-call targets XLA's GPU GEMM rewriter emits.
const (
	TargetF8   = "__cublas$lt$matmul$f8" // cuBLASLt FP8 matmul with scales, epilogue and abs-max output
	TargetLt   = "__cublas$lt$matmul"    // cuBLASLt matmul with an epilogue
	TargetGemm = "__cublas$gemm"         // plain cuBLAS GEMM
)

// IsTarget reports whether target is one of the cuBLAS GEMM targets.
func IsTarget(target string) bool {
	return target == TargetF8 || target == TargetLt || target == TargetGemm
}

// Call is a decoded cuBLAS GEMM custom call: which operand plays which part, its configuration and its
// results. It computes D = d_scale * epilogue(alpha * a_scale * b_scale * (A @ B) + beta * C + bias).
type Call struct {
	Inst   *hlo.Instruction
	Target string
	// A and B are the matrices; C the matrix added with beta; Bias the vector of a BIAS epilogue; the
	// scales are the f32 scalars of the FP8 call (CScale only in the six-scalar form). Nil when absent.
	A, B, C, AScale, BScale, CScale, DScale, Bias *hlo.Instruction
	// Legacy is set for the six-scalar operand form of XLA up to 2024: a, b, [c], a_scale, b_scale,
	// c_scale, d_scale.
	Legacy bool
	Config GemmConfig
	// Inferred is set when the call has no backend_config: the dimension numbers follow from the operand
	// shapes (both operands contract their last dimension, the leading ones are batch dimensions), with
	// alpha 1, beta 0 and the DEFAULT epilogue (BIAS when there is a bias operand).
	Inferred bool
	// D is the shape of the main result; DType its element type.
	D     hlo.Shape
	DType dtype.Type
	// HasAmax is set when the call returns the abs-max of D (an f32[] result after D).
	HasAmax bool
	// HasAux is set when the call returns the auxiliary output of a *_AUX epilogue.
	HasAux bool
	// WorkspaceBytes is the size of the s8 workspace result (0 when there is none).
	WorkspaceBytes int64
}

// IsFP8 reports whether the call is the FP8 matmul.
func (c *Call) IsFP8() bool { return c.Target == TargetF8 }

// Decode reads a cuBLAS GEMM custom call (any of the three targets). The error says what does not fit.
func Decode(in *hlo.Instruction) (*Call, error) {
	if in == nil || in.Opcode != hlo.OpCustomCall {
		return nil, errors.New("not a custom-call")
	}
	c := &Call{Inst: in, Target: in.CustomCallTarget()}
	if !IsTarget(c.Target) {
		return nil, fmt.Errorf("custom-call target %q is not a cuBLAS GEMM", c.Target)
	}
	if err := c.results(); err != nil {
		return nil, err
	}
	ops := in.Operands()
	if len(ops) < 2 {
		return nil, fmt.Errorf("%s takes at least two operands (a, b), found %d", c.Target, len(ops))
	}
	c.A, c.B = ops[0], ops[1]
	if bc := in.BackendConfig(); bc != nil && strings.TrimSpace(bc.Text) != "" {
		cfg, err := ParseBackendConfig(bc.Text)
		if err != nil {
			return nil, err
		}
		c.Config = *cfg
	} else {
		c.Inferred = true
	}
	var err error
	switch c.Target {
	case TargetF8:
		err = c.f8Operands(ops[2:])
	default:
		err = c.ltOperands(ops[2:])
	}
	if err != nil {
		return nil, err
	}
	if c.Inferred {
		c.infer()
	}
	return c, c.check()
}

// results reads the result shape: D, or (D, [aux], [amax], [workspace]).
func (c *Call) results() error {
	s := c.Inst.Shape
	if !s.IsTuple() {
		c.D = s
		c.DType = s.Elem
		return nil
	}
	if len(s.Tuple) == 0 {
		return errors.New("the result tuple is empty")
	}
	c.D = s.Tuple[0]
	c.DType = c.D.Elem
	rest := s.Tuple[1:]
	if n := len(rest); n > 0 && isWorkspace(rest[n-1]) {
		c.WorkspaceBytes = rest[n-1].Dims[0]
		rest = rest[:n-1]
	}
	for _, r := range rest {
		switch {
		case r.IsScalar() && !c.HasAmax:
			c.HasAmax = true
		case r.IsArray() && !r.IsScalar() && !c.HasAux && !c.HasAmax:
			c.HasAux = true
		default:
			return fmt.Errorf("unexpected result %s", r.String())
		}
	}
	if !c.D.IsArray() {
		return fmt.Errorf("result D is %s, not an array", c.D.String())
	}
	return nil
}

func isWorkspace(s hlo.Shape) bool { return s.IsArray() && s.Elem == dtype.S8 && len(s.Dims) == 1 }

func isScalar(in *hlo.Instruction) bool { return in.Shape.IsScalar() }

// f8Operands sorts the operands after a and b of the FP8 call: [c], then the scalar scales (four in the
// six-scalar form, else a_scale, b_scale), [bias], [d_scale].
func (c *Call) f8Operands(rest []*hlo.Instruction) error {
	i := 0
	if i < len(rest) && !isScalar(rest[i]) && rest[i].Shape.Rank() >= 2 {
		c.C = rest[i]
		i++
	}
	scalars := 0
	for j := i; j < len(rest) && isScalar(rest[j]); j++ {
		scalars++
	}
	switch {
	case scalars >= 4:
		c.Legacy = true
		c.AScale, c.BScale, c.CScale, c.DScale = rest[i], rest[i+1], rest[i+2], rest[i+3]
		i += 4
		if i < len(rest) && !isScalar(rest[i]) {
			c.Bias = rest[i]
			i++
		}
	default:
		if scalars >= 1 {
			c.AScale = rest[i]
			i++
		}
		if scalars >= 2 {
			c.BScale = rest[i]
			i++
		}
		if scalars == 3 {
			c.DScale = rest[i]
			i++
		} else if i < len(rest) && !isScalar(rest[i]) {
			c.Bias = rest[i]
			i++
			if i < len(rest) && isScalar(rest[i]) {
				c.DScale = rest[i]
				i++
			}
		}
	}
	if i < len(rest) {
		return fmt.Errorf("%s: operand %d (%%%s, %s) fits none of a, b, [c], a_scale, b_scale, [bias], [d_scale]",
			c.Target, i+2, rest[i].Name, rest[i].Shape.String())
	}
	return nil
}

// ltOperands sorts the operands after a and b of the other targets: [c], [bias].
func (c *Call) ltOperands(rest []*hlo.Instruction) error {
	i := 0
	if i < len(rest) && rest[i].Shape.Rank() >= 2 && rest[i].Shape.Rank() == c.D.Rank() {
		c.C = rest[i]
		i++
	}
	if c.Target == TargetLt && i < len(rest) && rest[i].Shape.Rank() < c.D.Rank() {
		c.Bias = rest[i]
		i++
	}
	if i < len(rest) {
		return fmt.Errorf("%s: operand %d (%%%s, %s) fits none of a, b, [c], [bias]",
			c.Target, i+2, rest[i].Name, rest[i].Shape.String())
	}
	return nil
}

// infer fills the configuration of a call printed without backend_config.
func (c *Call) infer() {
	batch := func(rank int) []int64 {
		l := []int64{}
		for d := 0; d < rank-2; d++ {
			l = append(l, int64(d))
		}
		return l
	}
	ra, rb := c.A.Shape.Rank(), c.B.Shape.Rank()
	c.Config = DefaultConfig([]int64{int64(ra - 1)}, []int64{int64(rb - 1)}, batch(ra), batch(rb))
	c.Config.Wrapped = false
	if c.C != nil {
		c.Config.Beta = 1
	}
	if c.Bias != nil {
		c.Config.Epilogue = EpilogueBias
	}
	c.Config.DamaxOutput = c.HasAmax
}

// check reports what contradicts the configuration.
func (c *Call) check() error {
	cfg := &c.Config
	if c.IsFP8() {
		if !c.A.Shape.Elem.IsFP8() || !c.B.Shape.Elem.IsFP8() {
			return fmt.Errorf("%s needs FP8 operands a and b, found %s and %s", c.Target, c.A.Shape.Elem, c.B.Shape.Elem)
		}
	}
	for _, x := range []struct {
		name    string
		in      *hlo.Instruction
		dims    []int64
		dimName string
	}{
		{"a", c.A, cfg.LhsContracting, "lhs_contracting_dimensions"},
		{"a", c.A, cfg.LhsBatch, "lhs_batch_dimensions"},
		{"b", c.B, cfg.RhsContracting, "rhs_contracting_dimensions"},
		{"b", c.B, cfg.RhsBatch, "rhs_batch_dimensions"},
	} {
		for _, d := range x.dims {
			if d < 0 || d >= int64(x.in.Shape.Rank()) {
				return fmt.Errorf("%s names dimension %d of %s, which has rank %d", x.dimName, d, x.name, x.in.Shape.Rank())
			}
		}
	}
	if len(cfg.LhsContracting) != len(cfg.RhsContracting) {
		return fmt.Errorf("%d lhs and %d rhs contracting dimensions", len(cfg.LhsContracting), len(cfg.RhsContracting))
	}
	if err := c.checkShapes(); err != nil {
		return err
	}
	if cfg.Epilogue.HasBias() && c.Bias == nil {
		return fmt.Errorf("epilogue %s needs a bias operand, and there is none", cfg.Epilogue)
	}
	if c.Bias != nil && !cfg.Epilogue.HasBias() {
		return fmt.Errorf("operand %%%s looks like a bias, but the epilogue %s adds none", c.Bias.Name, cfg.Epilogue)
	}
	if cfg.Beta != 0 && c.C == nil {
		return fmt.Errorf("beta is %g but there is no C operand", cfg.Beta)
	}
	if cfg.DamaxOutput != c.HasAmax {
		if cfg.DamaxOutput {
			return errors.New("damax_output is set but the result has no abs-max element")
		}
		return errors.New("the result has an abs-max element but damax_output is not set")
	}
	return nil
}

// checkShapes checks the sizes of a, b and D against the dimension numbers, as XLA's GemmConfig::For
// (xla/service/gpu/matmul_utils.cc) does before any GEMM runs: no dimension of an operand is both batch
// and contracting or named twice (GetNonContractingDims), D has the batch dimensions, then a's free
// dimensions, then b's, the contracting sizes agree, and D's rows, columns and batches are a's and b's
// (a batch of a or b of size 1 is broadcast).
func (c *Call) checkShapes() error {
	cfg := &c.Config
	// The dimension numbers are in range (check); none may be named twice.
	free := func(name string, s hlo.Shape, batch, contract []int64) ([]int64, error) {
		seen := make([]bool, s.Rank())
		for _, d := range slices.Concat(batch, contract) {
			if seen[d] {
				return nil, fmt.Errorf("dimension %d of %s is named twice among its batch and contracting dimensions", d, name)
			}
			seen[d] = true
		}
		return hlo.FreeDims(s.Rank(), batch, contract), nil
	}
	a, b := c.A.Shape, c.B.Shape
	aFree, err := free("a", a, cfg.LhsBatch, cfg.LhsContracting)
	if err != nil {
		return err
	}
	bFree, err := free("b", b, cfg.RhsBatch, cfg.RhsContracting)
	if err != nil {
		return err
	}
	// GetBatchRowColumnShape: every matrix has rows and columns (XLA's DotDecomposer gives a dot without
	// a free dimension on a side one of size 1 before the GEMM rewriter makes a call of it).
	switch {
	case len(cfg.LhsContracting) == 0:
		return errors.New("no contracting dimension")
	case len(aFree) == 0:
		return errors.New("a has no free (row) dimension")
	case len(bFree) == 0:
		return errors.New("b has no free (column) dimension")
	}
	size := func(s hlo.Shape, dims []int64) int64 {
		n := int64(1)
		for _, d := range dims {
			n *= s.Dims[d]
		}
		return n
	}
	if k, kb := size(a, cfg.LhsContracting), size(b, cfg.RhsContracting); k != kb {
		return fmt.Errorf("a contracts %d elements and b %d: k must agree", k, kb)
	}
	nb := max(len(cfg.LhsBatch), len(cfg.RhsBatch))
	d := c.D
	if want := nb + len(aFree) + len(bFree); d.Rank() != want {
		return fmt.Errorf("D %s has rank %d; with %d batch, %d free dimensions of a and %d of b it has rank %d",
			d.String(), d.Rank(), nb, len(aFree), len(bFree), want)
	}
	span := func(from, n int) int64 {
		p := int64(1)
		for _, x := range d.Dims[from : from+n] {
			p *= x
		}
		return p
	}
	batch, rows, cols := span(0, nb), span(nb, len(aFree)), span(nb+len(aFree), len(bFree))
	switch m, n := size(a, aFree), size(b, bFree); {
	case rows != m:
		return fmt.Errorf("D %s has %d rows where a's free dimensions hold %d", d.String(), rows, m)
	case cols != n:
		return fmt.Errorf("D %s has %d columns where b's free dimensions hold %d", d.String(), cols, n)
	}
	for _, x := range []struct {
		name string
		n    int64
	}{{"a", size(a, cfg.LhsBatch)}, {"b", size(b, cfg.RhsBatch)}} {
		if x.n != batch && x.n != 1 {
			return fmt.Errorf("%s has %d batches and D %s %d", x.name, x.n, d.String(), batch)
		}
	}
	return nil
}

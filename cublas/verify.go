package cublas

import (
	"fmt"
	"strings"

	"octet/hlo"
)

func init() {
	for _, target := range []string{TargetF8, TargetLt, TargetGemm} {
		hlo.RegisterCustomCall(target, checkConfig)
	}
}

// checkConfig is what hlo.Verify asks of a cuBLAS GEMM custom call: a backend_config, when it has one,
// that reads as XLA's GemmBackendConfig. Without it nothing says what the call computes (its dimension
// numbers, alpha, beta, epilogue), and a reader would analyse a call that cuBLAS would not run.
func checkConfig(in *hlo.Instruction) error {
	bc := in.BackendConfig()
	if bc == nil || strings.TrimSpace(bc.Text) == "" {
		return nil
	}
	if _, err := ParseBackendConfig(bc.Text); err != nil {
		return fmt.Errorf("the backend_config of %s %%%s does not decode: %v", in.CustomCallTarget(), in.Name, err)
	}
	return nil
}

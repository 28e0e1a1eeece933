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
// that reads as XLA's GemmBackendConfig, and operands and results that fit it (Decode). Otherwise nothing
// says what the call computes (its dimension numbers, alpha, beta, epilogue), and a reader would analyse
// a call that cuBLAS would not run.
func checkConfig(in *hlo.Instruction) error {
	if bc := in.BackendConfig(); bc != nil && strings.TrimSpace(bc.Text) != "" {
		if _, err := ParseBackendConfig(bc.Text); err != nil {
			return fmt.Errorf("the backend_config of %s %%%s does not decode: %v", in.CustomCallTarget(), in.Name, err)
		}
	}
	if _, err := Decode(in); err != nil {
		return fmt.Errorf("%s %%%s: %v", in.CustomCallTarget(), in.Name, err)
	}
	return nil
}

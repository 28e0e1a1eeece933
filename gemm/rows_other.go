//go:build !amd64 || purego

package gemm

// rowSet returns the row assembly that k runs: none here, the Go loops.
func (k *Kernel) rowSet() *rowSet { return nil }

// depthwise4 and bases4 are not reached: rowSet returns nil.
func (s *rowSet) depthwise4(dst *[4]*float32, src *float32, offs *[4]*int, k *float32, ldk, window, n int) {
	panic("gemm: no row assembly")
}

func (s *rowSet) bases4(dst *[4]*float32, src *float32, bases *[4]int, deltas *int, k *float32, ldk, window, n int) {
	panic("gemm: no row assembly")
}

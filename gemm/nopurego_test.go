//go:build !purego

package gemm

// puregoBuild is set when the package is built with -tags purego: only the portable Go kernel exists.
const puregoBuild = false

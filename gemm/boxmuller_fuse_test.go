//go:build amd64.v3 || !amd64

package gemm

// fusingBuild is set in a build whose compiler may fuse a product and a sum into one multiply-add: amd64
// with GOAMD64=v3 or above, and the other architectures.
const fusingBuild = true

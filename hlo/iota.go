package hlo

import "fmt"

// maxIotaDevices bounds the devices an iota list may name: more than any machine has, few enough that
// their count fits an int64 with room to spare.
const maxIotaDevices = 1 << 40

// Problem says why l describes no list of devices, or returns "" when it describes one: every dimension,
// of Dims and of ReshapeDims, is at least one; the reshape holds as many devices as Dims (where Dims is
// written: a tiled sharding's list takes its dimensions from the tile assignment); and Transpose, where
// written, names each dimension of the reshape once. These are the conditions under which XLA's
// IotaTileAssignment is an array of the numbers 0..n-1 at all.
func (l *IotaList) Problem() string {
	n, msg := iotaCount(l.ReshapeDims, "reshape ")
	if msg != "" {
		return msg
	}
	if l.Dims != nil {
		m, msg := iotaCount(l.Dims, "")
		if msg != "" {
			return msg
		}
		if m != n {
			return fmt.Sprintf("has dimensions [%s], %d devices, but reshapes %d devices ([%s])", JoinInts(l.Dims), m, n, JoinInts(l.ReshapeDims))
		}
	}
	if l.Transpose != nil {
		if len(l.Transpose) != len(l.ReshapeDims) {
			return fmt.Sprintf("transposes %d dimensions, T(%s), of a reshape of %d", len(l.Transpose), JoinInts(l.Transpose), len(l.ReshapeDims))
		}
		seen := make([]bool, len(l.Transpose))
		for _, p := range l.Transpose {
			if p < 0 || p >= int64(len(seen)) || seen[p] {
				return fmt.Sprintf("has T(%s), which is no permutation of the %d dimensions of its reshape", JoinInts(l.Transpose), len(l.ReshapeDims))
			}
			seen[p] = true
		}
	}
	return ""
}

// iotaCount multiplies dims, each of which must be at least one, up to maxIotaDevices; what names them
// in its message ("reshape ", or "").
func iotaCount(dims []int64, what string) (int64, string) {
	if len(dims) == 0 {
		return 0, fmt.Sprintf("has no %sdimensions", what)
	}
	n := int64(1)
	for _, d := range dims {
		if d < 1 {
			return 0, fmt.Sprintf("has a %sdimension of %d in [%s]", what, d, JoinInts(dims))
		}
		if d > maxIotaDevices || n > maxIotaDevices/d {
			return 0, fmt.Sprintf("lists more devices than any machine has ([%s])", JoinInts(dims))
		}
		n *= d
	}
	return n, ""
}

// Devices returns the device numbers l lists, in order: 0..n-1 laid out in ReshapeDims (row-major),
// transposed by Transpose, read out row-major. It returns false when l has a Problem or names more than
// limit devices.
func (l *IotaList) Devices(limit int64) ([]int64, bool) {
	if l.Problem() != "" {
		return nil, false
	}
	n, _ := iotaCount(l.ReshapeDims, "")
	if n > limit {
		return nil, false
	}
	r := len(l.ReshapeDims)
	// The strides of the reshaped array, then the dimensions and strides of its transpose.
	strides := make([]int64, r)
	s := int64(1)
	for i := r - 1; i >= 0; i-- {
		strides[i] = s
		s *= l.ReshapeDims[i]
	}
	dims := make([]int64, r)
	tstrides := make([]int64, r)
	for i := range r {
		p := int64(i)
		if l.Transpose != nil {
			p = l.Transpose[i]
		}
		dims[i], tstrides[i] = l.ReshapeDims[p], strides[p]
	}
	ids := make([]int64, 0, n)
	idx := make([]int64, r)
	for range n {
		var v int64
		for i, x := range idx {
			v += x * tstrides[i]
		}
		ids = append(ids, v)
		for i := r - 1; i >= 0; i-- {
			if idx[i]++; idx[i] < dims[i] {
				break
			}
			idx[i] = 0
		}
	}
	return ids, true
}

// Groups returns the replica groups an iota list [groups,size]<=[reshape]T(perm) names: Devices cut into
// Dims[0] groups of Dims[1]. It returns false where Devices does, and when Dims is not two numbers.
func (l *IotaList) Groups(limit int64) ([][]int64, bool) {
	if len(l.Dims) != 2 {
		return nil, false
	}
	ids, ok := l.Devices(limit)
	if !ok {
		return nil, false
	}
	groups := make([][]int64, l.Dims[0])
	for g := range groups {
		groups[g] = ids[int64(g)*l.Dims[1] : int64(g+1)*l.Dims[1] : int64(g+1)*l.Dims[1]]
	}
	return groups, true
}

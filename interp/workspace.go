package interp

import (
	"sync"

	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

// workspaces holds the zero arrays that stand for the workspaces of library calls (the last element of a
// cuBLAS, cuDNN or cuSOLVER call's result): one array of each type and size, shared by every call of every
// evaluation that has a workspace of it. A workspace's contents mean nothing on the GPU, and nothing the
// interpreter does writes them: their memory is not an evaluation's own (newTensor), so it is never
// recycled or updated in place, and Run copies those its result holds (unshare), so that what it returns
// is its caller's to change. XLA gives its GEMM calls workspaces of up to 32 MiB (fuse.WorkspaceBytes),
// which each call and each run of a program would otherwise allocate and clear. The arrays kept take at
// most maxWorkspaceBytes; past that, calls get arrays of their own.
var workspaces = struct {
	sync.Mutex
	arrays map[workspaceKey][]byte
	bytes  int64
}{arrays: map[workspaceKey][]byte{}}

const maxWorkspaceBytes = 256 << 20

type workspaceKey struct {
	t dtype.Type
	n int64
}

// workspace returns a zero value of shape s (an array, or a tuple of them) for the workspace of a call,
// its arrays shared with every other workspace of their type and size (see workspaces).
func workspace(s hlo.Shape) Value { return valueOfShape(s, sharedZeros) }

// sharedZeros returns a zero array of shape s whose memory every workspace of its type and size shares,
// while the memory kept stays within maxWorkspaceBytes.
func sharedZeros(s hlo.Shape) *tensor.Tensor {
	k := workspaceKey{s.Elem, product(s.Dims)}
	workspaces.Lock()
	defer workspaces.Unlock()
	data, ok := workspaces.arrays[k]
	if !ok {
		t := tensor.New(s.Elem, s.Dims)
		if size := int64(len(t.Data)); workspaces.bytes+size <= maxWorkspaceBytes {
			workspaces.arrays[k] = t.Data
			workspaces.bytes += size
		}
		return t
	}
	return &tensor.Tensor{Type: s.Elem, Shape: append([]int64(nil), s.Dims...), Data: data}
}

// sharedWorkspaces returns the arrays workspace shares.
func sharedWorkspaces() [][]byte {
	workspaces.Lock()
	defer workspaces.Unlock()
	out := make([][]byte, 0, len(workspaces.arrays))
	for _, data := range workspaces.arrays {
		out = append(out, data)
	}
	return out
}

package hlo

import (
	"fmt"
	"strings"
	"testing"
)

// TestIotaGroups expands iota lists as XLA's documentation of IotaTileAssignment and of iota replica
// groups does: the numbers 0..n-1 reshaped, transposed and read out row-major.
func TestIotaGroups(t *testing.T) {
	for _, c := range []struct {
		l    IotaList
		want string
	}{
		{IotaList{Dims: []int64{2, 4}, ReshapeDims: []int64{8}}, "[[0 1 2 3] [4 5 6 7]]"},
		{IotaList{Dims: []int64{2, 4}, ReshapeDims: []int64{4, 2}, Transpose: []int64{1, 0}}, "[[0 2 4 6] [1 3 5 7]]"},
		{IotaList{Dims: []int64{3, 2}, ReshapeDims: []int64{2, 3}, Transpose: []int64{1, 0}}, "[[0 3] [1 4] [2 5]]"},
		{IotaList{Dims: []int64{4, 2}, ReshapeDims: []int64{2, 4}, Transpose: []int64{1, 0}}, "[[0 4] [1 5] [2 6] [3 7]]"},
		{IotaList{Dims: []int64{2, 4}, ReshapeDims: []int64{2, 2, 2}, Transpose: []int64{0, 2, 1}}, "[[0 2 1 3] [4 6 5 7]]"},
		{IotaList{Dims: []int64{1, 6}, ReshapeDims: []int64{2, 3}, Transpose: []int64{0, 1}}, "[[0 1 2 3 4 5]]"},
	} {
		g, ok := c.l.Groups(1 << 20)
		if got := fmt.Sprint(g); !ok || got != c.want {
			t.Errorf("%+v: %s, %v; want %s", c.l, got, ok, c.want)
		}
	}
}

// TestIotaProblem refuses the lists that are no array of devices, each for its own reason; several of
// them expanded before into groups that named devices out of range, or panicked.
func TestIotaProblem(t *testing.T) {
	for _, c := range []struct {
		l    IotaList
		want string // part of the problem; "" for a good list
	}{
		{IotaList{Dims: []int64{2, 4}, ReshapeDims: []int64{4, 2}, Transpose: []int64{1, 0}}, ""},
		{IotaList{ReshapeDims: []int64{4, 2}, Transpose: []int64{1, 0}}, ""},
		{IotaList{Dims: []int64{2, 4}, ReshapeDims: []int64{6}}, "8 devices, but reshapes 6"},
		{IotaList{Dims: []int64{2, 3}, ReshapeDims: []int64{-2, -3}, Transpose: []int64{1, 0}}, "reshape dimension of -2"},
		{IotaList{Dims: []int64{-2, -3}, ReshapeDims: []int64{6}}, "dimension of -2"},
		{IotaList{Dims: []int64{0, 0}, ReshapeDims: []int64{0}}, "dimension of 0"},
		{IotaList{Dims: []int64{4}, ReshapeDims: []int64{2, 2}, Transpose: []int64{0, 0}}, "no permutation"},
		{IotaList{Dims: []int64{4}, ReshapeDims: []int64{2, 2}, Transpose: []int64{1, 2}}, "no permutation"},
		{IotaList{Dims: []int64{4}, ReshapeDims: []int64{2, 2}, Transpose: []int64{0}}, "transposes 1 dimensions"},
		{IotaList{Dims: []int64{4}, ReshapeDims: []int64{}}, "no reshape dimensions"},
		{IotaList{Dims: []int64{1 << 32, 1 << 32}, ReshapeDims: []int64{1 << 32, 1 << 32}}, "more devices"},
	} {
		got := c.l.Problem()
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%+v: problem %q, want one with %q", c.l, got, c.want)
		}
		if _, ok := c.l.Devices(1 << 20); ok != (c.want == "") {
			t.Errorf("%+v: Devices ok = %v", c.l, ok)
		}
	}
	if _, ok := (&IotaList{Dims: []int64{2, 4}, ReshapeDims: []int64{8}}).Devices(7); ok {
		t.Errorf("8 devices expanded under a limit of 7")
	}
	if _, ok := (&IotaList{Dims: []int64{8}, ReshapeDims: []int64{8}}).Groups(8); ok {
		t.Errorf("replica groups from a list of one dimension")
	}
}

package stablehlo

import (
	"fmt"
	"go/token"
	"strings"
	"testing"
)

// TestFlattenMeshAxes: the replica groups of mesh axes are those StableHLO's and Shardy's tests state, and
// axes that do not fit the mesh are refused with the reason.
func TestFlattenMeshAxes(t *testing.T) {
	mesh := func(ids []int64, axes ...MeshAxis) *Mesh { return &Mesh{Axes: axes, DeviceIDs: ids} }
	x2y4 := mesh(nil, MeshAxis{"x", 2}, MeshAxis{"y", 4})
	for _, c := range []struct {
		name string
		mesh *Mesh
		axes []AxisRef
		want string
	}{
		// StableHLO's reference interpreter test: "x" of a 2x2 mesh.
		{"major axis", mesh(nil, MeshAxis{"x", 2}, MeshAxis{"y", 2}), []AxisRef{{Name: "x"}}, "[[0 2] [1 3]]"},
		// Shardy's all_reduce test: "y":(1)2 of a 2x4 mesh.
		{"sub-axis", x2y4, []AxisRef{{Name: "y", PreSize: 1, Size: 2}}, "[[0 2] [1 3] [4 6] [5 7]]"},
		{"minor sub-axis", x2y4, []AxisRef{{Name: "y", PreSize: 2, Size: 2}}, "[[0 1] [2 3] [4 5] [6 7]]"},
		{"minor axis", x2y4, []AxisRef{{Name: "y"}}, "[[0 1 2 3] [4 5 6 7]]"},
		// The groups list the axes in the order given: "y" then "x" puts x fastest.
		{"all axes, reversed", x2y4, []AxisRef{{Name: "y"}, {Name: "x"}}, "[[0 4 1 5 2 6 3 7]]"},
		{"no axes", mesh(nil, MeshAxis{"x", 2}), nil, "[[0] [1]]"},
		{"device ids", mesh([]int64{3, 2, 1, 0}, MeshAxis{"x", 2}, MeshAxis{"y", 2}), []AxisRef{{Name: "x"}}, "[[3 1] [2 0]]"},
		{"unknown axis", x2y4, []AxisRef{{Name: "z"}}, `axis "z" is not an axis of the mesh`},
		{"sub-axis too large", x2y4, []AxisRef{{Name: "y", PreSize: 2, Size: 4}}, `sub-axis "y":(2)4 does not divide the axis`},
		{"overlap", x2y4, []AxisRef{{Name: "y"}, {Name: "y", PreSize: 1, Size: 2}}, `overlaps another of the list`},
		{"twice", x2y4, []AxisRef{{Name: "x"}, {Name: "x"}}, `axis "x" overlaps another of the list`},
		{"ids do not fill", mesh([]int64{0, 1, 2}, MeshAxis{"x", 2}), nil, "the device ids do not fill the mesh"},
		{"too many devices", mesh(nil, MeshAxis{"x", 1 << 11}, MeshAxis{"y", 1 << 52}), nil, "the mesh has more devices than"},
	} {
		t.Run(c.name, func(t *testing.T) {
			groups, err := flattenMeshAxes(c.mesh, c.axes)
			got := fmt.Sprint(groups)
			if err != "" {
				got = err
			}
			if !strings.Contains(got, c.want) || (err == "") != strings.HasPrefix(c.want, "[") {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}
}

// TestMeshAttributes: an attribute after a module's sdy.mesh other than its stablehlo.mesh copy is reported
// by name, an error in a strict conversion; a mesh that names no module mesh in replica groups is refused.
func TestMeshAttributes(t *testing.T) {
	src := []byte(`module @m {
  sdy.mesh @mesh = <["x"=2]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}]}, my.note = 1 : i32, other = 2 : i32}
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    return %arg0 : tensor<4xf32>
  }
}
`)
	_, err := ParseFile(token.NewFileSet(), "test.mlir", src)
	if want := "test.mlir:2:3: sdy.mesh @mesh: attribute other is not converted"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("ParseFile: %v, want %s", err, want)
	}
	_, notes, err := ParseFileNotes(token.NewFileSet(), "test.mlir", src)
	if err != nil || len(notes) != 2 || !strings.HasSuffix(notes[0].Error(), "attribute my.note is not converted"+IgnoredLikeXLA) {
		t.Errorf("ParseFileNotes: %v %v", notes, err)
	}
	bad := []byte(`func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.all_gather"(%arg0) {all_gather_dim = 0 : i64, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @nowhere, axes = []>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
`)
	_, err = ParseFile(token.NewFileSet(), "test.mlir", bad)
	if want := "test.mlir:2:3: stablehlo.all_gather: replica_groups name mesh @nowhere, which the module does not define"; err == nil || err.Error() != want {
		t.Errorf("ParseFile: %v, want %s", err, want)
	}
}

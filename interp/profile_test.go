package interp

import "testing"

// A slice, dynamic slice or gather reads the elements it takes, not its whole operand.
func TestBytesOfSlices(t *testing.T) {
	m := parseModule(t, `HloModule slices
ENTRY main {
  x = f32[100000] parameter(0)
  i = s32[] parameter(1)
  s = f32[10] slice(x), slice={[5:15]}
  d = f32[1] dynamic-slice(x, i), dynamic_slice_sizes={1}
  a = f32[100000] negate(x)
  ROOT t = (f32[10], f32[1], f32[100000]) tuple(s, d, a)
}`)
	want := map[string]int64{"s": 40 + 40, "d": 4 + 4 + 4, "a": 400000 + 400000}
	for _, in := range m.Entry.Instructions {
		if w, ok := want[in.Name]; ok {
			if b := Bytes(in); b != w {
				t.Errorf("%s: %d bytes, want %d", in.Name, b, w)
			}
		}
	}
}

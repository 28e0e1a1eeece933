package interp

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestMemoryBudget(t *testing.T) {
	m := parseModule(t, `ENTRY e {
  x = f32[1024,1024] parameter(0)
  big = f32[1024,1024,4] broadcast(x), dimensions={0,1}
  ROOT r = f32[1024,1024] reduce(big, f32[] constant(0)), dimensions={2}, to_apply=add
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}`)
	est := EstimateMemory(m)
	// The parameter (4 MiB), the broadcast (16 MiB) and the result (4 MiB) are alive together.
	if est.Bytes < 24<<20 {
		t.Errorf("estimate %d bytes, want at least 24 MiB", est.Bytes)
	}
	if len(est.Largest) == 0 || est.Largest[0].Inst != "big" || est.Largest[0].Bytes != 16<<20 {
		t.Errorf("largest buffers %+v, want %%big (16 MiB) first", est.Largest)
	}
	err := CheckMemory(m, Options{MaxMemory: 8 << 20})
	var me *MemoryError
	if !errors.As(err, &me) {
		t.Fatalf("CheckMemory: %v, want a *MemoryError", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "%big f32[1024,1024,4] (16.0 MiB)") || !strings.Contains(msg, "8.0 MiB") {
		t.Errorf("message %q does not name the budget and the largest buffer", msg)
	}
	// Run refuses the program before evaluating anything.
	x := zeroValue(m.Entry.Params[0].Shape)
	if _, err := Run(m, []Value{x}, Options{MaxMemory: 8 << 20}); !errors.As(err, &me) {
		t.Errorf("Run: %v, want a *MemoryError", err)
	}
	if err := CheckMemory(m, Options{MaxMemory: -1}); err != nil {
		t.Errorf("no limit: %v", err)
	}
}

func TestWorkBudget(t *testing.T) {
	m := parseModule(t, `cond {
  i = s32[] parameter(0)
  ROOT c = pred[] compare(i, s32[] constant(1000000000)), direction=LT
}
body {
  i = s32[] parameter(0)
  ROOT n = s32[] add(i, s32[] constant(1))
}
ENTRY e {
  ROOT w = s32[] while(s32[] constant(0)), condition=cond, body=body
}`)
	_, err := Run(m, nil, Options{MaxWork: 10000})
	var we *WorkError
	if !errors.As(err, &we) {
		t.Fatalf("Run: %v, want a *WorkError", err)
	}
	if !strings.Contains(err.Error(), "test.hlo:") {
		t.Errorf("%q is not positioned", err)
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"512": 512, "1KiB": 1024, "8G": 8 << 30, "1.5GiB": 3 << 29, "2MB": 2e6, "64 MiB": 64 << 20} {
		got, err := ParseBytes(in)
		if err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "-1", "5 parsecs"} {
		if _, err := ParseBytes(in); err == nil {
			t.Errorf("ParseBytes(%q) succeeded", in)
		}
	}
}

func TestArgumentsChecked(t *testing.T) {
	m := parseModule(t, "ENTRY e {\n  x = f32[2] parameter(0)\n  ROOT n = f32[2] negate(x)\n}")
	if _, err := Run(m, nil, Options{}); err == nil || !strings.Contains(err.Error(), "takes 1 arguments, given 0") {
		t.Errorf("missing argument: %v", err)
	}
	if _, err := Run(m, []Value{val(t, "f32[3] {1, 2, 3}")}, Options{}); err == nil || !strings.Contains(err.Error(), "want f32[2], have f32[3]") {
		t.Errorf("wrong shape: %v", err)
	}
	if _, err := Run(m, []Value{val(t, "bf16[2] {1, 2}")}, Options{}); err == nil || !strings.Contains(err.Error(), "want f32[2], have bf16[2]") {
		t.Errorf("wrong type: %v", err)
	}
}

// TestHugeShapes checks that shapes whose byte size overflows int64 are refused, not wrapped around.
func TestHugeShapes(t *testing.T) {
	m := parseModule(t, "ENTRY e {\n  x = f32[4294967296,4294967296] parameter(0)\n  ROOT n = f32[4294967296,4294967296] negate(x)\n}")
	var me *MemoryError
	if err := CheckMemory(m, Options{MaxMemory: 1 << 40}); !errors.As(err, &me) {
		t.Errorf("CheckMemory: %v, want a *MemoryError", err)
	}
	if _, err := RandomInputs(m, 1); !errors.As(err, &me) {
		t.Errorf("RandomInputs: %v, want a *MemoryError", err)
	}
}

// TestMemoryErrorShortTuples checks that the memory error names a buffer of a large tuple (a while loop's
// state) by its first elements and a count, and a small one whole.
func TestMemoryErrorShortTuples(t *testing.T) {
	e := &MemoryError{Need: 2 << 30, Limit: 1 << 30, Largest: []Buffer{
		{Inst: "while", Shape: "(s32[], f32[80,1024], (f32[2], f32[3]), bf16[8,8], f32[1], f32[2])", Bytes: 1 << 30},
		{Inst: "t", Shape: "(f32[2], f32[3])", Bytes: 20},
	}}
	want := "%while (s32[], f32[80,1024], (f32[2], f32[3]), ... 6 elements in all) (1.0 GiB), %t (f32[2], f32[3]) (20 B)"
	if msg := e.Error(); !strings.Contains(msg, want) {
		t.Errorf("message %q\nwant it to hold %q", msg, want)
	}
}

// TestEmptyWithHugeDimensions runs sorts, a reduce-window and a convolution of arrays without elements
// whose other dimensions are huge or not the sorted one: each gives its empty result (before, a sort of
// f32[2,0] along 0 panicked, and the others allocated tables or panels sized by the huge dimension until
// the runtime ran out of memory).
func TestEmptyWithHugeDimensions(t *testing.T) {
	const cmp = `
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}`
	for _, c := range []struct{ name, entry string }{
		{"sort-other-dimension", `
  c = f32[2,0] constant({{},{}})
  ROOT s = f32[2,0] sort(c), dimensions={0}, to_apply=cmp`},
		{"sort-huge", `
  c = f32[0,4000000000000] parameter(0)
  ROOT s = f32[0,4000000000000] sort(c), dimensions={1}, to_apply=cmp`},
		{"reduce-window-huge", `
  c = f32[0,4000000000000] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[0,1] reduce-window(c, z), window={size=1x4000000000000}, to_apply=add`},
		{"convolution-huge", `
  x = f32[0,4000000000000,1] parameter(0)
  k = f32[3,1,1] parameter(1)
  ROOT r = f32[0,3999999999998,1] convolution(x, k), window={size=3}, dim_labels=b0f_0io->b0f`},
	} {
		m := parseModule(t, "HloModule m\n"+cmp+"\nENTRY e {"+c.entry+"\n}\n")
		if err := CheckMemory(m, Options{MaxMemory: 1 << 30}); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var args []Value
		for _, p := range m.Entry.Params {
			args = append(args, zeroValue(p.Shape))
		}
		got, err := Run(m, args, Options{MaxMemory: 1 << 30})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got.Kind != KindArray || got.Array.NumElements() != 0 || !slices.Equal(got.Array.Shape, m.Entry.Root.Shape.Dims) {
			t.Errorf("%s: %v, want an empty %s", c.name, got, m.Entry.Root.Shape.String())
		}
	}
}

// TestReduceWindowTables checks that the estimate counts the tables of a reduce-window's window
// positions: a window of 500 million over five elements (the rest padding) needs gigabytes for them,
// and the budget error names them.
func TestReduceWindowTables(t *testing.T) {
	m := parseModule(t, `HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  a = f32[5] iota(), iota_dimension=0
  z = f32[] constant(0)
  ROOT r = f32[1] reduce-window(a, z), window={size=500000000 pad=499999995_0}, to_apply=add
}`)
	if est := EstimateMemory(m); est.Bytes < 4e9 {
		t.Errorf("estimate %d bytes, want the tables' 4 GB at least", est.Bytes)
	}
	err := CheckMemory(m, Options{MaxMemory: 100 << 20})
	if err == nil || !strings.Contains(err.Error(), "%r working memory of its reduce-window") {
		t.Errorf("CheckMemory: %v, want the reduce-window's working memory named", err)
	}
}

package match_test

import (
	"slices"
	"testing"

	"octet/fuse/match"
	"octet/hlo"
	"octet/hlo/parser"
)

func TestScaleStep(t *testing.T) {
	ins := parse(t)
	for _, tc := range []struct {
		in     string
		ok     bool
		x      string
		divide bool
	}{
		{"dq", true, "xf", false},
		{"dq2", true, "xf", false}, // broadcast(s) * xf
		{"dv", true, "xf", true},
		{"xf", false, "", false},   // a convert
		{"sq", false, "", false},   // dq * dq: no broadcast scalar
		{"kb", false, "", false},   // a broadcast alone
		{"cube", false, "", false}, // sq * dq
	} {
		t.Run(tc.in, func(t *testing.T) {
			x, factor, divide, ok := match.ScaleStep(ins[tc.in])
			if ok != tc.ok {
				t.Fatalf("ScaleStep(%s) reports %v, want %v", tc.in, ok, tc.ok)
			}
			if !ok {
				if x != nil || factor != nil || divide {
					t.Errorf("no step, but x=%v factor=%v divide=%v", x, factor, divide)
				}
				return
			}
			if x != ins[tc.x] || factor != ins["s"] || divide != tc.divide {
				t.Errorf("x=%s factor=%s divide=%v, want x=%s factor=s divide=%v", x.Name, factor.Name, divide, tc.x, tc.divide)
			}
		})
	}
}

func TestFindDequantize(t *testing.T) {
	m, err := parser.ParseString("m.hlo", `HloModule m

ENTRY main {
  x = f8e4m3fn[4,8] parameter(0)
  s = f32[] parameter(1)
  t = f32[] parameter(2)
  sb = f32[4,8] broadcast(s), dimensions={}
  tb = bf16[4,8] broadcast(t), dimensions={}
  early = f8e4m3fn[8,4] transpose(x), dimensions={1,0}
  xh = f16[8,4] convert(early)
  xf = f32[8,4] convert(xh)
  r = f32[4,8] reshape(xf)
  scaled = f32[4,8] divide(r, sb)
  late = bf16[4,8] convert(scaled)
  again = bf16[4,8] multiply(late, tb)
  ROOT n = bf16[4,8] negate(again)
}
`)
	if err != nil {
		t.Fatal(err)
	}
	ins := map[string]*hlo.Instruction{}
	for _, in := range m.Entry.Instructions {
		ins[in.Name] = in
	}
	chain := func(names ...string) []*hlo.Instruction {
		var l []*hlo.Instruction
		for _, n := range names {
			l = append(l, ins[n])
		}
		return l
	}
	names := func(l []*hlo.Instruction) []string {
		var out []string
		for _, in := range l {
			out = append(out, in.Name)
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		chain    []string
		converts []string
		scale    string // "" for none
		divide   bool
	}{
		{"converts, a divide, a convert after it; only the first scale counts",
			[]string{"early", "xh", "xf", "r", "scaled", "late", "again", "n"}, []string{"xh", "xf", "late"}, "scaled", true},
		{"no convert before the scale: no dequantize scale",
			[]string{"r", "scaled"}, nil, "", false},
		{"converts only", []string{"early", "xh", "xf", "r"}, []string{"xh", "xf"}, "", false},
		{"empty", nil, nil, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := match.FindDequantize(chain(tc.chain...))
			if got := names(d.Converts); !slices.Equal(got, tc.converts) {
				t.Errorf("converts %v, want %v", got, tc.converts)
			}
			var first *hlo.Instruction
			if len(tc.converts) > 0 {
				first = ins[tc.converts[0]]
			}
			if d.FirstConvert() != first {
				t.Errorf("FirstConvert = %v, want %v", d.FirstConvert(), first)
			}
			if tc.scale == "" {
				if d.Scale != nil || d.Factor != nil {
					t.Errorf("scale %v by %v, want none", d.Scale, d.Factor)
				}
				return
			}
			if d.Scale != ins[tc.scale] || d.Factor != ins["s"] || d.Divide != tc.divide {
				t.Errorf("scale %v by %v (divide %v), want %s by s (divide %v)", d.Scale, d.Factor, d.Divide, tc.scale, tc.divide)
			}
		})
	}
}

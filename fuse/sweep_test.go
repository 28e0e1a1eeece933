package fuse_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"octet/fuse"
	"octet/hlo"
)

// TestUnusedDotResultKept checks the rewrite of a dot whose value nothing reads (and of an abs-max nothing
// reads): the decision names the instructions that carry the call's results, and they must be in the
// rewritten module (the rewrite dropped them as unused, and --verify then found no %get-tuple-element).
func TestUnusedDotResultKept(t *testing.T) {
	for _, tc := range []struct{ name, src string }{
		{"dead dot", `HloModule unused

ENTRY main {
  a = f8e4m3fn[32,64] parameter(0)
  b = f8e4m3fn[64,48] parameter(1)
  af = f32[32,64] convert(a)
  bf = f32[64,48] convert(b)
  d = f32[32,48] dot(af, bf), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT z = f32[] constant(0)
}
`},
		{"dead abs-max", `HloModule unused_amax

max {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT m = f32[] maximum(x, y)
}

ENTRY main {
  a = f8e4m3fn[32,64] parameter(0)
  b = f8e4m3fn[64,48] parameter(1)
  af = f32[32,64] convert(a)
  bf = f32[64,48] convert(b)
  d = f32[32,48] dot(af, bf), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ad = f32[32,48] abs(d)
  z = f32[] constant(0)
  amax = f32[] reduce(ad, z), dimensions={0,1}, to_apply=max
  lo = f32[] constant(-448)
  hi = f32[] constant(448)
  lob = f32[32,48] broadcast(lo), dimensions={}
  hib = f32[32,48] broadcast(hi), dimensions={}
  c = f32[32,48] clamp(lob, d, hib)
  ROOT q = f8e4m3fn[32,48] convert(c)
}
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orig, m := parse(t, tc.src), parse(t, tc.src)
			r := fuse.Rewrite(m, fuse.Options{})
			checkInvariants(t, m)
			if len(r.Decisions) != 1 || !r.Decisions[0].Fused {
				t.Fatalf("decisions %+v, want one fused", r.Decisions)
			}
			g := r.Decisions[0]
			names := map[string]*hlo.Instruction{}
			for _, in := range m.Entry.Instructions {
				names[in.Name] = in
			}
			for _, n := range []string{g.Call, g.Result, g.AmaxResult} {
				if n != "" && names[n] == nil {
					t.Errorf("the decision names %%%s, which is not in the rewritten module", n)
				}
			}
			compare(t, orig, m, r.Decisions)
		})
	}
}

// growthModule is a module of n FP8 GEMMs on the same operands, summed: with ctrl, the root also runs
// after the first GEMM (one control edge in the computation); with first, the GEMMs come first in the
// list and the sum after them (as a scheduler may order them), each add taking the running sum as its
// matrix bias; with chain, each GEMM's lhs is also a long chain of adds the GEMMs share (XLA's GEMM
// fusion would take the chain into each GEMM's fusion); with dotCtrl, each GEMM but the first runs after
// the one before it (a chain of control edges through every GEMM, as a scheduler that serializes them
// leaves).
func growthModule(n int, ctrl, first, chain, dotCtrl bool) string {
	var b strings.Builder
	b.WriteString("HloModule growth\n\nENTRY main {\n  a = f8e4m3fn[16,16] parameter(0)\n  b = f8e4m3fn[16,16] parameter(1)\n")
	b.WriteString("  x = f32[16,16] parameter(2)\n  af = f32[16,16] convert(a)\n  bf = f32[16,16] convert(b)\n  x0 = f32[16,16] negate(x)\n")
	var dots, sums []string
	for i := range n {
		lhs := "af"
		if chain {
			fmt.Fprintf(&b, "  x%d = f32[16,16] add(x%d, x%d)\n", i+1, i, i)
			lhs = fmt.Sprintf("x%d", i+1)
		}
		after := ""
		if dotCtrl && i > 0 {
			after = fmt.Sprintf(", control-predecessors={d%d}", i-1)
		}
		dots = append(dots, fmt.Sprintf("  d%d = f32[16,16] dot(%s, bf), lhs_contracting_dims={1}, rhs_contracting_dims={0}%s\n", i, lhs, after))
		prev := "d0"
		if i > 1 {
			prev = fmt.Sprintf("s%d", i-1)
		}
		if i > 0 {
			sums = append(sums, fmt.Sprintf("  s%d = f32[16,16] add(%s, d%d)\n", i, prev, i))
		}
		if !first {
			b.WriteString(dots[i])
			if i > 0 {
				b.WriteString(sums[i-1])
			}
		}
	}
	if first {
		b.WriteString(strings.Join(dots, "") + strings.Join(sums, ""))
	}
	root := fmt.Sprintf("  ROOT r = f32[16,16] copy(s%d)", n-1)
	if ctrl {
		root += ", control-predecessors={d0}"
	}
	b.WriteString(root + "\n}\n")
	return b.String()
}

// TestRewriteGrowth checks that the rewrite's work grows linearly with the module, by the bytes it
// allocates, on layouts that made it quadratic: a computation with one control edge (each GEMM's check
// of the order walked everything after it, and each removal looked through the computation for control
// successors), the GEMMs before their sum (each matrix bias's check that it is not computed from the
// GEMM walked the running sum back to the start), and GEMMs on a shared chain of fusible ops (XLA's
// verdict took the whole chain into each GEMM's fusion, and named every op of it).
func TestRewriteGrowth(t *testing.T) {
	const n = 300
	for _, tc := range []struct {
		name                        string
		ctrl, first, chain, dotCtrl bool
	}{
		{"one control edge", true, false, false, false},
		{"GEMMs first", false, true, false, false},
		{"shared fusible chain", false, false, true, false},
		{"control chain through the GEMMs", false, false, false, true},
		{"control chain through the GEMMs first", false, true, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bytes := func(n int) uint64 {
				m := parse(t, growthModule(n, tc.ctrl, tc.first, tc.chain, tc.dotCtrl))
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				r := fuse.Rewrite(m, fuse.Options{})
				runtime.ReadMemStats(&after)
				if len(r.Decisions) != n {
					t.Fatalf("%d decisions, want %d", len(r.Decisions), n)
				}
				checkInvariants(t, m)
				return after.TotalAlloc - before.TotalAlloc
			}
			small, large := bytes(n), bytes(4*n)
			if float64(large) > 6*float64(small) {
				t.Errorf("%d GEMMs: %d bytes allocated; %d GEMMs: %d (%.1f times, linear is 4)", n, small, 4*n, large, float64(large)/float64(small))
			}
		})
	}
}

// TestControlRefusalDeterministic checks that a dot refused for its control dependencies names the same
// instruction on every run: the walks started from the members of the call in a map's order, so the
// refusal named %neg or %sb2 as the map happened to be iterated.
func TestControlRefusalDeterministic(t *testing.T) {
	const src = `HloModule control_refusal

ENTRY main {
  a = f8e4m3fn[16,16] parameter(0)
  b = f8e4m3fn[16,16] parameter(1)
  s = f32[] parameter(2)
  af = f32[16,16] convert(a)
  bf = f32[16,16] convert(b)
  d = f32[16,16] dot(af, bf), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  neg = f32[] negate(s), control-predecessors={d}
  sb1 = f32[16,16] broadcast(s), dimensions={}
  m1 = f32[16,16] multiply(d, sb1), control-predecessors={d, neg}
  sb2 = f32[16,16] broadcast(s), dimensions={}, control-predecessors={m1, d}
  m2 = f32[16,16] multiply(m1, sb2), control-predecessors={sb2, m1}
  ROOT t = (f32[16,16], f32[]) tuple(m2, neg)
}
`
	want := ""
	for i := range 100 {
		r := fuse.Analyze(parse(t, src))
		if len(r.Decisions) != 1 || r.Decisions[0].Fused {
			t.Fatalf("decisions %+v, want one refused", r.Decisions)
		}
		got := r.Decisions[0].Reason
		if i == 0 {
			want = got
			if !strings.HasPrefix(got, "control dependencies order %neg after %d") {
				t.Errorf("reason %q, want the first instruction after the dot, %%neg", got)
			}
		} else if got != want {
			t.Fatalf("run %d: reason %q, run 0: %q", i, got, want)
		}
	}
}

// TestBlockZeroSized checks the block-scaled rewrite of a dot with no rows: its scales have a dimension
// of size 0, which a scaled-dot does not take (the rewritten module did not verify, an internal error of
// octet fuse); the cuDNN form pads the rows and takes it.
func TestBlockZeroSized(t *testing.T) {
	const src = `HloModule block

ENTRY main {
  lhs = f8e4m3fn[0,64] parameter(0)
  lhs_scale = f8e8m0fnu[0,2] parameter(2)
  lhs_c = bf16[0,64] convert(lhs)
  lhs_sc = bf16[0,2] convert(lhs_scale)
  lhs_bc = bf16[0,2,32] broadcast(lhs_sc), dimensions={0,1}
  lhs_rs = bf16[0,64] reshape(lhs_bc)
  lhs_dq = bf16[0,64] multiply(lhs_c, lhs_rs)
  rhs = f8e4m3fn[6,64] parameter(1)
  rhs_scale = f8e8m0fnu[6,2] parameter(3)
  rhs_c = bf16[6,64] convert(rhs)
  rhs_sc = bf16[6,2] convert(rhs_scale)
  rhs_bc = bf16[6,2,32] broadcast(rhs_sc), dimensions={0,1}
  rhs_rs = bf16[6,64] reshape(rhs_bc)
  rhs_dq = bf16[6,64] multiply(rhs_c, rhs_rs)
  ROOT d = f32[0,6] dot(lhs_dq, rhs_dq), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}
`
	m := parse(t, src)
	r := fuse.Rewrite(m, fuse.Options{})
	checkInvariants(t, m)
	if len(r.Decisions) != 1 || r.Decisions[0].Fused || !strings.Contains(r.Decisions[0].Reason, "dimension of size 0") {
		t.Errorf("scaled-dot: decisions %+v, want one refused for its empty scales", r.Decisions)
	}
	m = parse(t, src)
	r = fuse.Rewrite(m, fuse.Options{Block: fuse.BlockCudnn})
	checkInvariants(t, m)
	if len(r.Decisions) != 1 || !r.Decisions[0].Fused {
		t.Errorf("cuDNN: decisions %+v, want one fused", r.Decisions)
	}
}

package interp

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// onGrid builds a module whose entry runs program (a computation named prog taking one parameter of type
// in and giving out) on a grid of replicas x partitions devices, device i taking parameter i, and gives
// the devices' results in a flat tuple.
func onGrid(program, in, out string, replicas, partitions int) string {
	n := replicas * partitions
	var b strings.Builder
	b.WriteString(addF32 + program + "ENTRY e {\n")
	names := make([]string, n)
	progs := make([]string, n)
	outs := make([]string, n)
	for i := range n {
		fmt.Fprintf(&b, "  x%d = %s parameter(%d)\n", i, in, i)
		names[i], progs[i], outs[i] = fmt.Sprintf("x%d", i), "prog", out
	}
	row := "(" + strings.Join(outs[:partitions], ", ") + ")"
	rows := make([]string, replicas)
	for r := range rows {
		rows[r] = row
	}
	fmt.Fprintf(&b, "  g = (%s) custom-call(%s), custom_call_target=%q, called_computations={%s}\n",
		strings.Join(rows, ", "), strings.Join(names, ", "), RunParallelTarget, strings.Join(progs, ", "))
	var flat []string
	for r := range replicas {
		fmt.Fprintf(&b, "  row%d = %s get-tuple-element(g), index=%d\n", r, row, r)
		for p := range partitions {
			fmt.Fprintf(&b, "  d%d = %s get-tuple-element(row%d), index=%d\n", len(flat), out, r, p)
			flat = append(flat, fmt.Sprintf("d%d", len(flat)))
		}
	}
	fmt.Fprintf(&b, "  ROOT r = (%s) tuple(%s)\n}\n", strings.Join(outs, ", "), strings.Join(flat, ", "))
	return b.String()
}

// prog is a program of one instruction applied to its parameter.
func prog(in, out, op string) string {
	return "prog {\n  p = " + in + " parameter(0)\n  ROOT c = " + out + " " + op + "\n}\n"
}

func TestCollectivesOnGrid(t *testing.T) {
	f1 := func(xs ...float64) []string {
		out := make([]string, len(xs))
		for i, x := range xs {
			out[i] = fmt.Sprintf("f32[1] {%g}", x)
		}
		return out
	}
	runCases(t, []opCase{
		{"all-reduce-across-replicas", onGrid(prog("f32[2]", "f32[2]", "all-reduce(p), replica_groups={{0,1}}, to_apply=add"), "f32[2]", "f32[2]", 2, 1),
			[]string{"f32[2] {1, 2}", "f32[2] {10, 20}"}, []string{"f32[2] {11, 22}", "f32[2] {11, 22}"}},
		// Without a channel the groups hold replicas of one partition.
		{"all-reduce-per-partition", onGrid(prog("f32[1]", "f32[1]", "all-reduce(p), replica_groups={{0,1}}, to_apply=add"), "f32[1]", "f32[1]", 2, 2),
			f1(1, 2, 4, 8), f1(5, 10, 5, 10)},
		// With a channel, the listed replicas of every partition.
		{"all-reduce-replicas-and-partitions", onGrid(prog("f32[1]", "f32[1]", "all-reduce(p), replica_groups={{0,1}}, channel_id=1, to_apply=add"), "f32[1]", "f32[1]", 2, 2),
			f1(1, 2, 4, 8), f1(15, 15, 15, 15)},
		// Global device ids name devices directly.
		{"all-reduce-flattened-ids", onGrid(prog("f32[1]", "f32[1]", "all-reduce(p), replica_groups={{0,3},{1,2}}, channel_id=1, use_global_device_ids=true, to_apply=add"), "f32[1]", "f32[1]", 2, 2),
			f1(1, 2, 4, 8), f1(9, 6, 6, 9)},
		{"all-gather", onGrid(prog("f32[2]", "f32[4]", "all-gather(p), replica_groups={{1,0}}, dimensions={0}"), "f32[2]", "f32[4]", 2, 1),
			[]string{"f32[2] {1, 2}", "f32[2] {3, 4}"}, []string{"f32[4] {3, 4, 1, 2}", "f32[4] {3, 4, 1, 2}"}},
		{"reduce-scatter", onGrid(prog("f32[4]", "f32[2]", "reduce-scatter(p), replica_groups={{0,1}}, dimensions={0}, to_apply=add"), "f32[4]", "f32[2]", 2, 1),
			[]string{"f32[4] {1, 2, 3, 4}", "f32[4] {10, 20, 30, 40}"}, []string{"f32[2] {11, 22}", "f32[2] {33, 44}"}},
		{"all-to-all", onGrid(prog("f32[2]", "f32[2]", "all-to-all(p), replica_groups={{0,1}}, dimensions={0}"), "f32[2]", "f32[2]", 2, 1),
			[]string{"f32[2] {1, 2}", "f32[2] {3, 4}"}, []string{"f32[2] {1, 3}", "f32[2] {2, 4}"}},
		// A device no pair sends to receives zeros.
		{"collective-permute", onGrid(prog("f32[1]", "f32[1]", "collective-permute(p), source_target_pairs={{0,1},{1,2}}"), "f32[1]", "f32[1]", 3, 1),
			f1(1, 2, 3), f1(0, 1, 2)},
		// With a channel, pairs of partitions.
		{"collective-permute-partitions", onGrid(prog("f32[1]", "f32[1]", "collective-permute(p), source_target_pairs={{1,0}}, channel_id=1"), "f32[1]", "f32[1]", 2, 2),
			f1(1, 2, 4, 8), f1(2, 0, 8, 0)},
		{"collective-broadcast", onGrid(prog("f32[1]", "f32[1]", "collective-broadcast(p), replica_groups={{1,0}}"), "f32[1]", "f32[1]", 3, 1),
			f1(1, 2, 3), f1(2, 2, 0)},
		{"replica-and-partition-ids", onGrid(`prog {
  x = u32[] parameter(0)
  r = u32[] replica-id()
  p = u32[] partition-id()
  ten = u32[] constant(10)
  m = u32[] multiply(r, ten)
  ROOT id = u32[] add(m, p)
}
`, "u32[]", "u32[]", 2, 3), []string{"u32[] 0", "u32[] 0", "u32[] 0", "u32[] 0", "u32[] 0", "u32[] 0"},
			[]string{"u32[] 0", "u32[] 1", "u32[] 2", "u32[] 10", "u32[] 11", "u32[] 12"}},
		// What outfeed sends leaves the grid; the program goes on.
		{"outfeed", onGrid(`prog {
  p = f32[1] parameter(0)
  t = token[] after-all()
  o = token[] outfeed(p, t)
  ROOT n = f32[1] negate(p)
}
`, "f32[1]", "f32[1]", 1, 2), f1(1, 2), f1(-1, -2)},
		// Sends and receives pair up in order on each channel.
		{"send-recv", `sender {
  x = f32[1] parameter(0)
  t = token[] after-all()
  s = (f32[1], u32[], token[]) send(x, t), channel_id=1
  d = token[] send-done(s), channel_id=1
  two = f32[1] constant({2})
  s2 = (f32[1], u32[], token[]) send(two, d), channel_id=1
  ROOT d2 = token[] send-done(s2), channel_id=1
}
receiver {
  x = f32[1] parameter(0)
  t = token[] after-all()
  r = (f32[1], u32[], token[]) recv(t), channel_id=1
  d = (f32[1], token[]) recv-done(r), channel_id=1
  a = f32[1] get-tuple-element(d), index=0
  r2 = (f32[1], u32[], token[]) recv(t), channel_id=1
  d2 = (f32[1], token[]) recv-done(r2), channel_id=1
  b = f32[1] get-tuple-element(d2), index=0
  ROOT s = f32[1] subtract(a, b)
}
ENTRY e {
  x = f32[1] parameter(0)
  r = ((token[]), (f32[1])) custom-call(x, x), custom_call_target="interpreter.run_parallel", called_computations={sender, receiver}
  row = (f32[1]) get-tuple-element(r), index=1
  ROOT g = f32[1] get-tuple-element(row), index=0
}
`, []string{"f32[1] {5}"}, []string{"f32[1] {3}"}},
		{"infeed", `prog {
  t = token[] after-all()
  i = ((s32[2]), token[]) infeed(t)
  v = (s32[2]) get-tuple-element(i), index=0
  a = s32[2] get-tuple-element(v), index=0
  j = (s32[2], token[]) infeed(t)
  b = s32[2] get-tuple-element(j), index=0
  ROOT s = s32[2] subtract(a, b)
}
ENTRY e {
  first = s32[2] constant({10, 20})
  second = s32[2] constant({1, 2})
  r = ((s32[2])) custom-call(first, second), custom_call_target="interpreter.run_parallel", called_computations={prog}
  row = (s32[2]) get-tuple-element(r), index=0
  ROOT g = s32[2] get-tuple-element(row), index=0
}
`, nil, []string{"s32[2] {9, 18}"}},
	})
}

// TestCollectivesThatDoNotMeet checks that devices which disagree about their collectives, or fail,
// end the run with the error that started it instead of waiting for each other forever.
func TestCollectivesThatDoNotMeet(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"returns-without-joining", addF32 + `reduce {
  p = f32[1] parameter(0)
  ROOT c = f32[1] all-reduce(p), replica_groups={{0,1}}, to_apply=add
}
skip {
  ROOT p = f32[1] parameter(0)
}
ENTRY e {
  x = f32[1] parameter(0)
  ROOT r = ((f32[1]), (f32[1])) custom-call(x, x), custom_call_target="interpreter.run_parallel", called_computations={reduce, skip}
}
`, "returned"},
		{"different-collectives", addF32 + `reduce {
  p = f32[1] parameter(0)
  ROOT c = f32[1] all-reduce(p), replica_groups={{0,1}}, to_apply=add
}
gather {
  p = f32[1] parameter(0)
  ROOT c = f32[2] all-gather(p), replica_groups={{0,1}}, dimensions={0}
}
ENTRY e {
  x = f32[1] parameter(0)
  ROOT r = ((f32[1]), (f32[2])) custom-call(x, x), custom_call_target="interpreter.run_parallel", called_computations={reduce, gather}
}
`, "do not match"},
		// A device's own failure is the run's, not the collective its partner waits at.
		{"a-device-fails", addF32 + `reduce {
  p = f32[1] parameter(0)
  ROOT c = f32[1] all-reduce(p), replica_groups={{0,1}}, to_apply=add
}
fail {
  p = f32[1] parameter(0)
  ROOT c = f32[1] custom-call(p), custom_call_target="no_such_target"
}
ENTRY e {
  x = f32[1] parameter(0)
  ROOT r = ((f32[1]), (f32[1])) custom-call(x, x), custom_call_target="interpreter.run_parallel", called_computations={reduce, fail}
}
`, `unsupported: custom-call "no_such_target"`},
		{"receive-without-send", `wait {
  p = f32[1] parameter(0)
  t = token[] after-all()
  r = (f32[1], u32[], token[]) recv(t), channel_id=3
  d = (f32[1], token[]) recv-done(r), channel_id=3
  ROOT v = f32[1] get-tuple-element(d), index=0
}
ENTRY e {
  x = f32[1] parameter(0)
  ROOT r = ((f32[1]), (f32[1])) custom-call(x, x), custom_call_target="interpreter.run_parallel", called_computations={wait, wait}
}
`, "a receive on channel 3 nothing sends to"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
			defer cancel()
			_, err := Run(parseModule(t, c.src), []Value{val(t, "f32[1] {1}")}, Options{Context: ctx})
			if err == nil || !strings.Contains(err.Error(), c.want) || ctx.Err() != nil {
				t.Fatalf("got %v, want an error saying %q before the deadline", err, c.want)
			}
		})
	}
}

// TestCollectivesOfOneDevice runs collectives of a module whose header names one device: groups and
// pairs of that device alone give the operand back (or zeros for a permute that receives nothing), and
// groups or pairs naming other devices are refused as a program for several (they gave the operand back,
// or zeros, before).
func TestCollectivesOfOneDevice(t *testing.T) {
	for _, c := range []struct {
		root string
		ok   bool
	}{
		{"all-reduce(p), replica_groups={{0}}, to_apply=add", true},
		{"all-reduce(p), replica_groups={}, to_apply=add", true},
		{"collective-permute(p), source_target_pairs={{0,0}}", true},
		{"all-reduce(p), replica_groups={{0,1,2,3}}, to_apply=add", false},
		{"all-reduce(p), replica_groups=[1,4]<=[4], to_apply=add", false},
		{"all-to-all(p), replica_groups={{0},{1}}", false},
		{"collective-permute(p), source_target_pairs={{0,1},{1,0}}", false},
	} {
		m := parseModule(t, "HloModule m\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT r = f32[4] "+c.root+"\n}\n")
		x := val(t, "f32[4] {1, 2, 3, 4}")
		got, err := Run(m, []Value{x}, Options{})
		switch {
		case c.ok && err != nil:
			t.Errorf("%s: %v", c.root, err)
		case c.ok && !got.Array.Equal(x.Array):
			t.Errorf("%s: %v, want the operand", c.root, got.Array)
		case !c.ok && (err == nil || !strings.Contains(err.Error(), "unsupported: collective") || !strings.Contains(err.Error(), "names device")):
			t.Errorf("%s: %v, %v; want it refused as a program for several devices", c.root, got, err)
		}
	}
}

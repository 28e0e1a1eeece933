package interp

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

// RunParallelTarget is the custom call that runs programs on a grid of devices, as the StableHLO
// interpreter's interpreter.run_parallel does: its called computations are the programs, row by row (a
// row per replica, a column per partition); its operands the programs' arguments, program after program,
// then the values infeed gives, in order; its result one tuple per row, of the results of the row's
// programs, program after program.
const RunParallelTarget = "interpreter.run_parallel"

// device is one process of a grid: its replica and partition, and the grid that joins it to the others.
type device struct {
	replica, partition int64
	grid               *grid
	seq                map[string]int // collectives joined so far, per group
}

// id is the device's flattened id, replica * partitions + partition.
func (d *device) id() int64 { return d.replica*d.grid.partitions + d.partition }

// grid is the meeting point of the devices of one run_parallel: each collective is a rendezvous at which
// the devices of a group deposit their operands and receive all of them.
type grid struct {
	replicas, partitions int64
	ctx                  context.Context // the evaluation's; nil when none
	done                 <-chan struct{} // ctx.Done()

	mu       sync.Mutex
	slots    map[string]*slot
	finished []bool
	alive    int // devices still running
	waiting  int // devices waiting at a rendezvous
	abort    chan struct{}
	err      error

	channels map[int64]*channel
	infeed   []Value // what infeed gives next, in order
}

// channel holds the values sent on one channel and not yet received, and the devices waiting for them.
type channel struct {
	vals    []Value
	waiters int
	wake    chan struct{} // closed (and replaced) when a value arrives for the waiters
}

// channel returns channel id, made on first use. g.mu is held.
func (g *grid) channel(id int64) *channel {
	ch := g.channels[id]
	if ch == nil {
		ch = &channel{wake: make(chan struct{})}
		g.channels[id] = ch
	}
	return ch
}

// slot is one rendezvous: the devices of the group (flattened ids, in group order) and their values.
type slot struct {
	members []int64
	vals    []Value
	have    []bool
	n       int
	done    chan struct{}
}

// fail stops every device of the grid with err (the first failure wins). g.mu is held.
func (g *grid) fail(err error) {
	if g.err == nil {
		g.err = err
		close(g.abort)
	}
}

// finish records that device id has returned, with err when it failed. A device that returns while
// another waits for it at a rendezvous fails the grid, as does every device waiting at a different one.
func (g *grid) finish(id int64, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.finished[id] = true
	g.alive--
	if err != nil {
		g.fail(err)
		return
	}
	for key, s := range g.slots {
		if i := slices.Index(s.members, id); i >= 0 && !s.have[i] {
			g.fail(fmt.Errorf("device %d returned without joining %s", id, key))
			return
		}
	}
	g.checkStuck()
}

// checkStuck fails the grid when every running device waits at a rendezvous none of the others will
// complete. g.mu is held.
func (g *grid) checkStuck() {
	if g.alive > 0 && g.waiting == g.alive {
		keys := make([]string, 0, len(g.slots))
		for k := range g.slots {
			keys = append(keys, k)
		}
		for id, ch := range g.channels {
			if ch.waiters > 0 {
				keys = append(keys, fmt.Sprintf("a receive on channel %d nothing sends to", id))
			}
		}
		slices.Sort(keys)
		g.fail(fmt.Errorf("the devices wait at collectives that do not match: %s", strings.Join(keys, ", ")))
	}
}

// exchange deposits v for device d at the rendezvous key of the group members and returns the values of
// all members, in group order, once each has deposited its own.
func (g *grid) exchange(d *device, key string, members []int64, v Value) ([]Value, error) {
	base := key
	key = fmt.Sprintf("%s #%d", base, d.seq[base])
	d.seq[base]++
	g.mu.Lock()
	if g.err != nil {
		g.mu.Unlock()
		return nil, g.err
	}
	s := g.slots[key]
	if s == nil {
		s = &slot{members: members, vals: make([]Value, len(members)), have: make([]bool, len(members)), done: make(chan struct{})}
		for _, m := range members {
			if g.finished[m] {
				g.fail(fmt.Errorf("%s: device %d has already returned", key, m))
				g.mu.Unlock()
				return nil, g.err
			}
		}
		g.slots[key] = s
	}
	i := slices.Index(s.members, d.id())
	if i < 0 || s.have[i] || !slices.Equal(s.members, members) {
		g.fail(fmt.Errorf("%s: device %d does not belong to the group %v", key, d.id(), s.members))
		g.mu.Unlock()
		return nil, g.err
	}
	s.vals[i], s.have[i] = v, true
	s.n++
	if s.n == len(members) {
		delete(g.slots, key)
		g.waiting -= len(members) - 1
		close(s.done)
		g.mu.Unlock()
		return s.vals, nil
	}
	g.waiting++
	g.checkStuck()
	g.mu.Unlock()
	select {
	case <-s.done:
		return s.vals, nil
	case <-g.abort:
		return nil, g.err
	case <-g.done:
		return nil, g.ctx.Err()
	}
}

// send queues v on channel id and wakes the devices waiting there (they no longer count as waiting).
func (g *grid) send(id int64, v Value) {
	g.mu.Lock()
	defer g.mu.Unlock()
	ch := g.channel(id)
	ch.vals = append(ch.vals, v)
	if ch.waiters > 0 {
		g.waiting -= ch.waiters
		ch.waiters = 0
		close(ch.wake)
		ch.wake = make(chan struct{})
	}
}

// recv takes the oldest value sent on channel id, waiting for one.
func (g *grid) recv(id int64) (Value, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for {
		if g.err != nil {
			return Value{}, g.err
		}
		ch := g.channel(id)
		if len(ch.vals) > 0 {
			v := ch.vals[0]
			ch.vals = ch.vals[1:]
			return v, nil
		}
		ch.waiters++
		g.waiting++
		g.checkStuck()
		wake := ch.wake
		g.mu.Unlock()
		var err error
		select {
		case <-wake:
		case <-g.abort:
		case <-g.done:
			err = g.ctx.Err()
		}
		g.mu.Lock()
		if err != nil {
			return Value{}, err
		}
	}
}

// transfer evaluates send, send-done, recv, recv-done, infeed and outfeed on a device of a grid: sends
// and receives pair up in order on each channel, infeed takes the values of the grid's infeed queue, and
// what outfeed sends leaves the grid (nothing reads it).
func (e *evaluator) transfer(in *hlo.Instruction, ops []Value) (Value, error) {
	if e.dev == nil {
		return Value{}, unsupportedf(in, "%s", describeOp(in))
	}
	g := e.dev.grid
	switch in.Opcode {
	case hlo.OpSend:
		if len(ops) != 2 {
			return Value{}, errorf(in, "send takes a value and a token")
		}
		g.send(channelOf(in), ops[0])
		return TupleValue(ops[0], ArrayValue(tensor.New(dtype.U32, nil)), TokenValue()), nil
	case hlo.OpSendDone:
		return TokenValue(), nil
	case hlo.OpRecv:
		v, err := g.recv(channelOf(in))
		if err != nil {
			return Value{}, err
		}
		return TupleValue(v, ArrayValue(tensor.New(dtype.U32, nil)), TokenValue()), nil
	case hlo.OpRecvDone:
		if len(ops) != 1 || ops[0].Kind != KindTuple || len(ops[0].Tuple) != 3 {
			return Value{}, errorf(in, "recv-done takes what a recv gives")
		}
		return TupleValue(ops[0].Tuple[0], TokenValue()), nil
	case hlo.OpInfeed:
		// (data, token): data is one value, or a tuple taking one value of the queue per element.
		if !in.Shape.IsTuple() || len(in.Shape.Tuple) != 2 {
			return Value{}, errorf(in, "infeed giving %s, not (data, token)", in.Shape.String())
		}
		data := in.Shape.Tuple[0]
		n := 1
		if data.IsTuple() {
			n = len(data.Tuple)
		}
		g.mu.Lock()
		if len(g.infeed) < n {
			g.mu.Unlock()
			return Value{}, errorf(in, "infeed of %d values from a queue of %d", n, len(g.infeed))
		}
		vals := g.infeed[:n:n]
		g.infeed = g.infeed[n:]
		g.mu.Unlock()
		v := vals[0]
		if data.IsTuple() {
			v = TupleValue(vals...)
		}
		return TupleValue(v, TokenValue()), nil
	case hlo.OpOutfeed:
		return TokenValue(), nil
	}
	return Value{}, unsupportedf(in, "%s", describeOp(in))
}

func init() {
	register((*evaluator).transfer, hlo.OpSend, hlo.OpSendDone, hlo.OpRecv, hlo.OpRecvDone, hlo.OpInfeed, hlo.OpOutfeed)
}

// runParallel evaluates RunParallelTarget: each program on its own device, concurrently.
func (e *evaluator) runParallel(in *hlo.Instruction, ops []Value) (Value, error) {
	if e.dev != nil {
		return Value{}, unsupportedf(in, "%s inside a program it runs", RunParallelTarget)
	}
	progs := in.Called()
	if !in.Shape.IsTuple() || len(in.Shape.Tuple) == 0 || len(progs)%len(in.Shape.Tuple) != 0 {
		return Value{}, errorf(in, "%s must give one tuple per row of its %d programs", RunParallelTarget, len(progs))
	}
	cols := int64(len(progs) / len(in.Shape.Tuple))
	args := make([][]Value, len(progs))
	next := 0
	for i, p := range progs {
		if p == nil || next+len(p.Params) > len(ops) {
			return Value{}, errorf(in, "%s has %d operands, too few for its programs", RunParallelTarget, len(ops))
		}
		args[i] = ops[next : next+len(p.Params)]
		next += len(p.Params)
	}
	results, err := e.runGrid(in, progs, args, int64(len(in.Shape.Tuple)), cols, ops[next:])
	if err != nil {
		return Value{}, err
	}
	rows := make([]Value, len(in.Shape.Tuple))
	for r := range rows {
		var row []Value
		for p := range cols {
			i := int64(r)*cols + p
			if res := results[i]; progs[i].Root.Shape.IsTuple() && res.Kind == KindTuple {
				row = append(row, res.Tuple...)
			} else {
				row = append(row, res)
			}
		}
		rows[r] = TupleValue(row...)
	}
	out := TupleValue(rows...)
	if err := out.Fits(in.Shape); err != nil {
		return Value{}, errorf(in, "the programs give %s: %v", out, err)
	}
	return out, nil
}

// runGrid runs progs[i] on args[i] on device i of a grid of replicas x partitions devices (replica
// i / partitions, partition i % partitions), concurrently, their collectives meeting at rendezvous, and
// returns each program's result. infeed is what the devices' infeed instructions take, in order.
func (e *evaluator) runGrid(in *hlo.Instruction, progs []*hlo.Computation, args [][]Value, replicas, partitions int64, infeed []Value) ([]Value, error) {
	g := &grid{replicas: replicas, partitions: partitions, slots: map[string]*slot{},
		finished: make([]bool, len(progs)), alive: len(progs), abort: make(chan struct{}),
		channels: map[int64]*channel{}, infeed: infeed}
	if e.ctx != nil {
		g.ctx, g.done = e.ctx, e.ctx.Done()
	}
	results := make([]Value, len(progs))
	errs := make([]error, len(progs))
	subs := make([]*evaluator, len(progs))
	var wg sync.WaitGroup
	for i, p := range progs {
		opts := e.opts
		opts.Profile = nil // the grid is one instruction of the profile
		// The devices run at once: their values have no one order to be seen in. A watched instruction
		// evaluated on them is an error, not a value silently unseen.
		if ic := opts.Intercept; ic != nil {
			opts.Intercept = &Intercept{Instructions: ic.Instructions, Func: func(x *hlo.Instruction, _ Value) (Value, error) {
				return Value{}, fmt.Errorf("%%%s is evaluated on each device of a grid, where its values cannot be intercepted", x.Name)
			}}
		}
		if opts.MaxWork > 0 {
			opts.MaxWork = max(opts.MaxWork-e.work, 1)
		}
		sub := &evaluator{mod: e.mod, opts: opts, gemm: e.gemm, ctx: e.ctx, comps: map[*hlo.Computation]*compiled{},
			threads: e.threads, depth: e.depth, dev: &device{replica: int64(i) / partitions, partition: int64(i) % partitions, grid: g, seq: map[string]int{}}}
		subs[i] = sub
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					errs[i] = &Error{Pos: position(sub.current), Inst: in.Name, Err: fmt.Errorf("%w: %v\n%s", ErrInternal, r, debug.Stack())}
				}
				g.finish(int64(i), errs[i])
			}()
			results[i], errs[i] = sub.call(p, args[i])
		}()
	}
	wg.Wait()
	// The grid's failure is the first: a device's own error, or devices that did not meet. The errors of
	// the others follow from it.
	if g.err != nil {
		return nil, g.err
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	for _, s := range subs {
		if err := e.charge(s.work); err != nil {
			return nil, err
		}
	}
	return results, nil
}

// collectiveOnGrid evaluates a collective on device d of a grid, exchanging operands with the devices
// of its group as the StableHLO specification states.
func (e *evaluator) collectiveOnGrid(in *hlo.Instruction, ops []Value) (Value, error) {
	d := e.dev
	var v Value
	switch len(ops) {
	case 0:
		return Value{}, errorf(in, "%s without operands", in.Opcode)
	case 1:
		v = ops[0]
	default:
		v = TupleValue(append([]Value(nil), ops...)...)
	}
	if in.Opcode == hlo.OpCollectivePermute {
		return e.permuteOnGrid(in, v)
	}
	members, err := d.group(in)
	if err != nil {
		return Value{}, err
	}
	if members == nil { // in no group
		if in.Opcode == hlo.OpCollectiveBroadcast {
			return zeroValue(in.Shape), nil
		}
		members = []int64{d.id()}
	}
	key := fmt.Sprintf("%s channel %d %v", in.Opcode, channelOf(in), members)
	vals, err := d.grid.exchange(d, key, members, v)
	if err != nil {
		return Value{}, err
	}
	me := slices.Index(members, d.id())
	var out Value
	switch in.Opcode {
	case hlo.OpCollectiveBroadcast:
		out = vals[0]
		if dyn, _ := in.Attr("has_dynamic_root").(hlo.Bool); dyn {
			// The last operand gives, for each of the others, the index in the group of its source.
			root := ops[len(ops)-1]
			if len(ops) < 2 || root.Kind != KindArray || root.Array.NumElements() != int64(len(ops)-1) {
				return Value{}, errorf(in, "collective-broadcast with a dynamic root needs one root index per operand")
			}
			idx := i64s(root.Array)
			elems := make([]Value, len(ops)-1)
			for k := range elems {
				if idx[k] < 0 || idx[k] >= int64(len(vals)) {
					return Value{}, errorf(in, "root %d of operand %d is not in a group of %d", idx[k], k, len(vals))
				}
				elems[k] = vals[idx[k]].Tuple[k]
			}
			out = TupleValue(elems...)
			if len(elems) == 1 {
				out = elems[0]
			}
		}
	case hlo.OpAllReduce, hlo.OpCollectiveReduce:
		if out, err = e.reduceValues(in, vals); err != nil {
			return Value{}, err
		}
		if in.Opcode == hlo.OpCollectiveReduce && me != 0 {
			out = zeroValue(in.Shape)
		}
	case hlo.OpReduceScatter:
		r, err := e.reduceValues(in, vals)
		if err != nil {
			return Value{}, err
		}
		out, err = eachArray(in, []Value{r}, func(ts []*tensor.Tensor) (*tensor.Tensor, error) {
			return splitAlong(in, ts[0], in.Ints("dimensions"), len(members), me)
		})
		if err != nil {
			return Value{}, err
		}
	case hlo.OpAllGather:
		out, err = eachArray(in, vals, func(ts []*tensor.Tensor) (*tensor.Tensor, error) {
			return concatAlong(in, ts, in.Ints("dimensions"))
		})
		if err != nil {
			return Value{}, err
		}
	case hlo.OpAllToAll:
		if dims := in.Ints("dimensions"); len(dims) == 1 {
			// The array form: split along the dimension, exchange, concatenate along it.
			pieces := make([]*tensor.Tensor, len(vals))
			for j, x := range vals {
				if x.Kind != KindArray {
					return Value{}, errorf(in, "all-to-all with dimensions of %s", x)
				}
				if pieces[j], err = splitAlong(in, x.Array, dims, len(members), me); err != nil {
					return Value{}, err
				}
			}
			t, err := concatAlong(in, pieces, dims)
			if err != nil {
				return Value{}, err
			}
			out = ArrayValue(t)
			break
		}
		// The tuple form: element j of the result is what device j sends to this one.
		elems := make([]Value, len(vals))
		for j, x := range vals {
			if len(ops) != len(members) || x.Kind != KindTuple || len(x.Tuple) != len(members) {
				return Value{}, errorf(in, "all-to-all over %d devices needs %d operands", len(members), len(members))
			}
			elems[j] = x.Tuple[me]
		}
		out = TupleValue(elems...)
	default:
		return Value{}, unsupportedf(in, "collective %s over several devices", in.Opcode)
	}
	if err := out.Fits(in.Shape); err != nil {
		return Value{}, errorf(in, "%s gives %s: %v", in.Opcode, out, err)
	}
	return out, nil
}

// permuteOnGrid evaluates collective-permute: the pairs name replicas (partitions with a channel), and
// every device of this one's partition (replica) takes part in one exchange.
func (e *evaluator) permuteOnGrid(in *hlo.Instruction, v Value) (Value, error) {
	d := e.dev
	pairs, _ := in.Attr("source_target_pairs").(hlo.IntLists)
	var members []int64
	self := d.replica
	if channelOf(in) > 0 {
		self = d.partition
		for p := range d.grid.partitions {
			members = append(members, d.replica*d.grid.partitions+p)
		}
	} else {
		for r := range d.grid.replicas {
			members = append(members, r*d.grid.partitions+d.partition)
		}
	}
	key := fmt.Sprintf("%s channel %d %v", in.Opcode, channelOf(in), members)
	vals, err := d.grid.exchange(d, key, members, v)
	if err != nil {
		return Value{}, err
	}
	for _, p := range pairs {
		if len(p) == 2 && p[1] == self {
			if p[0] < 0 || p[0] >= int64(len(vals)) {
				return Value{}, errorf(in, "source %d of a pair is not a device", p[0])
			}
			return vals[p[0]], nil
		}
	}
	return zeroValue(in.Shape), nil
}

// group returns the flattened ids of the devices d meets at collective in, in group order; nil when d
// is in no group. The groups are those of the StableHLO specification: replica groups across replicas
// without a channel; across replicas and partitions with one; of flattened ids with
// use_global_device_ids; all-to-all and collective-broadcast group partitions when they have a channel.
func (d *device) group(in *hlo.Instruction) ([]int64, error) {
	g := d.grid
	var groups [][]int64
	if rg, ok := in.Attr("replica_groups").(*hlo.ReplicaGroups); ok {
		switch {
		case rg.Mesh != "":
			return nil, unsupportedf(in, "replica groups given by mesh axes")
		case rg.Iota != nil:
			var ok bool
			if groups, ok = rg.Iota.Groups(1 << 20); !ok {
				why := rg.Iota.Problem()
				if why == "" {
					why = "is no [groups,size] list of at most 2^20 devices"
				}
				return nil, errorf(in, "the iota list of replica groups %s", why)
			}
		}
		// Groups of unequal size are padded with -1.
		for _, grp := range rg.Groups {
			groups = append(groups, slices.DeleteFunc(slices.Clone(grp), func(x int64) bool { return x < 0 }))
		}
	}
	channel := channelOf(in) > 0
	global := false
	if b, ok := in.Attr("use_global_device_ids").(hlo.Bool); ok {
		global = bool(b)
	}
	byPartition := channel && (in.Opcode == hlo.OpAllToAll || in.Opcode == hlo.OpCollectiveBroadcast)
	all := func(n int64) [][]int64 {
		ids := make([]int64, n)
		for i := range ids {
			ids[i] = int64(i)
		}
		return [][]int64{ids}
	}
	find := func(x int64) []int64 {
		for _, grp := range groups {
			if slices.Contains(grp, x) {
				return grp
			}
		}
		return nil
	}
	var out []int64
	switch {
	case global:
		if len(groups) == 0 {
			groups = all(g.replicas * g.partitions)
		}
		out = slices.Clone(find(d.id()))
	case byPartition:
		if len(groups) == 0 {
			groups = all(g.partitions)
		}
		for _, p := range find(d.partition) {
			out = append(out, d.replica*g.partitions+p)
		}
	case channel:
		if len(groups) == 0 {
			groups = all(g.replicas)
		}
		grp := find(d.replica)
		for p := range g.partitions {
			for _, r := range grp {
				out = append(out, r*g.partitions+p)
			}
		}
	default:
		if len(groups) == 0 {
			groups = all(g.replicas)
		}
		for _, r := range find(d.replica) {
			out = append(out, r*g.partitions+d.partition)
		}
	}
	for _, m := range out {
		if m < 0 || m >= g.replicas*g.partitions {
			return nil, errorf(in, "device %d of a group is not on the grid of %d replicas and %d partitions", m, g.replicas, g.partitions)
		}
	}
	return out, nil
}

func channelOf(in *hlo.Instruction) int64 {
	c, _ := in.Int("channel_id")
	return c
}

// reduceValues combines the devices' values element by element with the collective's to_apply, in
// group order.
func (e *evaluator) reduceValues(in *hlo.Instruction, vals []Value) (Value, error) {
	f, err := e.scalarFunc(in, in.CalledComputation("to_apply"))
	if err != nil {
		return Value{}, err
	}
	args, res := make([]uint64, 2), make([]uint64, 1)
	return eachArray(in, vals, func(ts []*tensor.Tensor) (*tensor.Tensor, error) {
		out := tensor.New(ts[0].Type, ts[0].Shape)
		copy(out.Data, ts[0].Data)
		for _, t := range ts[1:] {
			if t.Type != out.Type || !slices.Equal(t.Shape, out.Shape) {
				return nil, errorf(in, "devices give %s and %s", out, t)
			}
			for i := range out.NumElements() {
				args[0], args[1] = out.BitsAt(i), t.BitsAt(i)
				if err := f.call(args, res); err != nil {
					return nil, err
				}
				out.SetBitsAt(i, res[0])
			}
		}
		return out, nil
	})
}

// eachArray applies f to the devices' values: to their arrays, or element by element of their tuples.
func eachArray(in *hlo.Instruction, vals []Value, f func([]*tensor.Tensor) (*tensor.Tensor, error)) (Value, error) {
	if vals[0].Kind == KindTuple {
		elems := make([]Value, len(vals[0].Tuple))
		for k := range elems {
			col := make([]Value, len(vals))
			for j, v := range vals {
				if v.Kind != KindTuple || len(v.Tuple) != len(elems) {
					return Value{}, errorf(in, "devices give %s and %s", vals[0], v)
				}
				col[j] = v.Tuple[k]
			}
			r, err := eachArray(in, col, f)
			if err != nil {
				return Value{}, err
			}
			elems[k] = r
		}
		return TupleValue(elems...), nil
	}
	ts := make([]*tensor.Tensor, len(vals))
	for j, v := range vals {
		if v.Kind != KindArray || v.Array == nil {
			return Value{}, errorf(in, "a device gives %s, not an array", v)
		}
		ts[j] = v.Array
	}
	t, err := f(ts)
	if err != nil {
		return Value{}, err
	}
	return ArrayValue(t), nil
}

// concatAlong concatenates tensors along the one dimension of dims.
func concatAlong(in *hlo.Instruction, ts []*tensor.Tensor, dims []int64) (*tensor.Tensor, error) {
	if len(dims) != 1 || dims[0] < 0 || dims[0] >= int64(len(ts[0].Shape)) {
		return nil, errorf(in, "%s needs one dimension of %s", in.Opcode, ts[0])
	}
	d := dims[0]
	out := slices.Clone(ts[0].Shape)
	out[d] = 0
	for _, t := range ts {
		if t.Type != ts[0].Type || len(t.Shape) != len(out) {
			return nil, errorf(in, "devices give %s and %s", ts[0], t)
		}
		out[d] += t.Shape[d]
	}
	r := tensor.New(ts[0].Type, out)
	os := rowMajorStrides(out)
	var off int64
	for _, t := range ts {
		for k := range out {
			if k != int(d) && t.Shape[k] != out[k] {
				return nil, errorf(in, "devices give %s and %s", ts[0], t)
			}
		}
		copyRegion(r.Data, off*os[d], os, t.Data, 0, rowMajorStrides(t.Shape), t.Shape, r.Type.ByteSize())
		off += t.Shape[d]
	}
	return r, nil
}

// splitAlong returns piece i of t cut into n equal pieces along the one dimension of dims.
func splitAlong(in *hlo.Instruction, t *tensor.Tensor, dims []int64, n, i int) (*tensor.Tensor, error) {
	if len(dims) != 1 || dims[0] < 0 || dims[0] >= int64(len(t.Shape)) || t.Shape[dims[0]]%int64(n) != 0 {
		return nil, errorf(in, "%s cannot split %s into %d pieces along %v", in.Opcode, t, n, dims)
	}
	d := dims[0]
	out := slices.Clone(t.Shape)
	out[d] /= int64(n)
	ts := rowMajorStrides(t.Shape)
	r := tensor.New(t.Type, out)
	copyRegion(r.Data, 0, rowMajorStrides(out), t.Data, int64(i)*out[d]*ts[d], ts, out, t.Type.ByteSize())
	return r, nil
}

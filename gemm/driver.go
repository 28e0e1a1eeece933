package gemm

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// scale sets C = beta*C, without reading C when beta == 0.
func scale(c view, beta float32) {
	if beta == 1 {
		return
	}
	for i := 0; i < c.rows; i++ {
		row := c.f32[i*c.stride : i*c.stride+c.cols]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

// blocks returns the size of each of the ceil(n/max) nearly equal blocks that cover n, rounded up to a
// multiple of unit: splitting evenly avoids a last block much thinner than the others.
func blocks(n, max, unit int) int {
	nb := (n + max - 1) / max
	size := (n + nb - 1) / nb
	return (size + unit - 1) / unit * unit
}

// serial computes C = alpha*A*B + beta*C on the calling goroutine with the blocked algorithm, using the
// buffers in ws. m, n and k are all nonzero.
//
// With an epilogue ep, c is the block of C at (ei, ej): the kernel stores the sums alone (alpha and beta
// are ignored) and ep finishes each tile after its last block of K.
func serial(kern *Kernel, ws *workspace, c, a, b view, alpha, beta float32, ep *Epilogue, ei, ej int) {
	if ep != nil {
		alpha, beta = 1, 0
	}
	m, n, k := c.rows, c.cols, a.cols
	mr, nr := kern.mr, kern.nr
	h := kern.isa
	// A bf16 kernel's panels hold pairs of k: its blocks of K are even but for the last.
	step := 1
	if kern.bf16 {
		step = 2
	}
	bl := kern.Blocks()
	kc := blocks(k, bl.KC, step)
	mc := blocks(m, bl.MC, mr)
	nc := blocks(n, bl.NC, nr)
	kq := (kc + step - 1) / step
	bufA, bufB, tmp := ws.get(mc*kq, kq*nc, max(16*kc+16, nc))
	// Each block of K after the first goes on from the sums the one before stored, so that the sums are
	// those of one pass over K, whatever the blocks. They are stored in C itself, and alpha and beta*C
	// applied at the last block; but with beta != 0, C keeps its values until then, and the sums so far
	// go to part (m x nc) instead.
	var part []float32
	if beta != 0 && kc < k {
		part = ws.partial(m * nc)
	}
	for jc := 0; jc < n; jc += nc {
		ncur := min(nc, n-jc)
		for pc := 0; pc < k; pc += kc {
			kcur := min(kc, k-pc)
			kqcur := (kcur + step - 1) / step
			first, last := pc == 0, pc+kcur == k
			bb := b.sub(pc, pc+kcur, jc, jc+ncur)
			if kern.bf16 {
				h.packB16(bufB, &bb, kcur, ncur, nr, tmp)
			} else {
				h.packB(bufB, &bb, kcur, ncur, nr, tmp)
			}
			al, be := alpha, beta
			if !last {
				al, be = 1, 0 // the sums alone
			}
			for ic := 0; ic < m; ic += mc {
				mcur := min(mc, m-ic)
				ab := a.sub(ic, ic+mcur, pc, pc+kcur)
				if kern.bf16 {
					h.packA16(bufA, &ab, mcur, kcur, mr, tmp)
				} else {
					h.packA(bufA, &ab, mcur, kcur, mr, tmp)
				}
				// One column of tiles per micro-panel of B, finished while it is in L1.
				for jr := 0; jr < ncur; jr += nr {
					off := ic*c.stride + jc + jr
					cols := min(nr, ncur-jr)
					dst, ld := c.f32[off:], c.stride
					var acc []float32
					ldacc := 0
					if part != nil {
						poff := ic*nc + jr
						if !last {
							dst, ld = part[poff:], nc
						}
						if !first {
							acc, ldacc = part[poff:], nc
						}
					} else if !first {
						acc, ldacc = dst, ld
					}
					kern.tile(kqcur, bufA, bufB[jr*kqcur:], dst, ld, acc, ldacc, mcur, cols, al, be)
					if ep != nil && last {
						ep.finish(h, view{f32: c.f32[off:], stride: c.stride}, ei+ic, ej+jc+jr, mcur, cols)
					}
				}
			}
		}
	}
}

// A workspace is one goroutine's packing buffers, kept in a pool between calls: the packed blocks of A and
// B, and room to decode 16 rows of an operand that is not float32 (or one row of a block of B); and the
// streaming kernels' buffers.
type workspace struct {
	a, b, tmp []float32
	part      []float32
	stream    *streamWork
	groups    []streamGroup // the groups of rows of a streamed product run on the caller alone
}

var workspaces = sync.Pool{New: func() any { return new(workspace) }}

// get returns buffers of at least na, nb and ntmp elements, each aligned to a 64-byte cache line.
func (ws *workspace) get(na, nb, ntmp int) (a, b, tmp []float32) {
	if len(ws.a) < na {
		ws.a = alignedFloats(na)
	}
	if len(ws.b) < nb {
		ws.b = alignedFloats(nb)
	}
	if len(ws.tmp) < ntmp {
		ws.tmp = alignedFloats(ntmp)
	}
	return ws.a, ws.b, ws.tmp
}

// partial returns a buffer of at least n elements for the sums so far, aligned as get's.
func (ws *workspace) partial(n int) []float32 {
	if len(ws.part) < n {
		ws.part = alignedFloats(n)
	}
	return ws.part
}

func alignedFloats(n int) []float32 {
	const line = 64 / 4
	buf := make([]float32, n+line)
	skip := (line - int(uintptr(unsafe.Pointer(&buf[0]))/4%line)) % line
	return buf[skip : skip+n]
}

// A task is one goroutine's share of a call: count products (one, or a run of batches).
type task struct {
	kern                      *Kernel
	c, a, b                   view
	count                     int
	strideC, strideA, strideB int
	alpha, beta               float32
	ep                        *Epilogue // with the position of c in the whole C
	ei, ej                    int
	job                       *job // the job the task belongs to, when a worker runs it
	// A streaming task runs panels [p0, p1) of stream against each group of rows of A.
	stream *streamSource
	groups []streamGroup
	p0, p1 int
	// A block-scaled task runs panels [p0, p1) of a product with block-scaled weights.
	blockScaled *blockScaledCall
	// A task of parallelRange runs fn(p0, p1).
	fn func(lo, hi int)
}

func (t *task) run() {
	if t.fn != nil {
		t.fn(t.p0, t.p1)
		return
	}
	if t.blockScaled != nil {
		t.blockScaled.panels(t.p0, t.p1)
		return
	}
	if t.stream != nil {
		streamPanels(t.kern, t.c, t.groups, t.stream, t.p0, t.p1, t.alpha, t.beta)
		return
	}
	ws := workspaces.Get().(*workspace)
	for i := 0; i < t.count; i++ {
		serial(t.kern, ws, t.c.at(i*t.strideC), t.a.at(i*t.strideA), t.b.at(i*t.strideB), t.alpha, t.beta, t.ep, t.ei, t.ej)
	}
	workspaces.Put(ws)
}

// A job is the set of tasks of one call, pooled so that a call allocates nothing. The workers count down
// both pending (for a caller that spins) and wg (for one that sleeps).
type job struct {
	tasks   []task
	src     streamSource  // what streaming tasks read, held here so that the caller's stays on its stack
	groups  []streamGroup // the groups of rows streaming tasks multiply
	pending atomic.Int64
	wg      sync.WaitGroup
}

var jobs = sync.Pool{New: func() any { return new(job) }}

// The workers are goroutines started on first need and kept for the life of the program; each runs the
// tasks it receives. A call runs its first task itself and hands the others to the workers.
var workers struct {
	mu    sync.Mutex
	count atomic.Int64
	queue chan *task
}

func ensureWorkers(n int) {
	if int(workers.count.Load()) >= n {
		return
	}
	workers.mu.Lock()
	defer workers.mu.Unlock()
	if workers.queue == nil {
		// The queue is buffered so that handing out tasks never waits, even when the workers are busy
		// with another caller's tasks.
		workers.queue = make(chan *task, 1024)
	}
	for c := int(workers.count.Load()); c < n; c++ {
		go worker(workers.queue)
		workers.count.Add(1)
	}
}

// spin is how long a worker keeps looking for its next task, and a caller for the end of its job, before
// going to sleep. Waking a sleeping thread takes tens of microseconds (more under a hypervisor), as long as
// a whole 128x128x128 product, and products tend to come one after another.
const spin = 50 * time.Microsecond

func worker(q chan *task) {
	for {
		var t *task
		for start := time.Now(); t == nil && time.Since(start) < spin; {
			select {
			case t = <-q:
			default:
				runtime.Gosched() // let any other goroutine that is ready run first
			}
		}
		if t == nil {
			t = <-q
		}
		runQueued(t)
	}
}

// runQueued runs a task taken from the queue and counts it done in its job.
func runQueued(t *task) {
	j := t.job
	t.run()
	j.pending.Add(-1)
	j.wg.Done()
}

// runJob runs j's tasks on at most t goroutines and returns when all are done. The caller runs the first
// task and then whatever tasks are still queued, so that a goroutine slowed down (by another process on
// its core) takes fewer of them.
func runJob(j *job, t int) {
	n := len(j.tasks)
	if n > 1 {
		ensureWorkers(min(n, t) - 1)
		j.wg.Add(n - 1)
		j.pending.Store(int64(n - 1))
		for i := 1; i < n; i++ {
			j.tasks[i].job = j
			workers.queue <- &j.tasks[i]
		}
	}
	if n > 0 {
		j.tasks[0].run()
	}
	for j.pending.Load() > 0 {
		select {
		case q := <-workers.queue:
			runQueued(q)
			continue
		default:
		}
		break
	}
	for start := time.Now(); j.pending.Load() > 0 && time.Since(start) < spin; {
		runtime.Gosched()
	}
	j.wg.Wait()
	clear(j.tasks) // drop references to the caller's matrices
	j.tasks = j.tasks[:0]
	j.src = streamSource{}
	clear(j.groups)
	j.groups = j.groups[:0]
	jobs.Put(j)
}

// parallelRange runs fn over [0, n) cut into at most t ranges of about the same length, on the workers,
// and returns when all are done.
func parallelRange(t, n int, fn func(lo, hi int)) {
	parts := min(t, n)
	if parts <= 1 {
		fn(0, n)
		return
	}
	j := jobs.Get().(*job)
	for i := range parts {
		j.tasks = append(j.tasks, task{fn: fn, p0: i * n / parts, p1: (i + 1) * n / parts})
	}
	runJob(j, t)
}

// Below this many multiply-adds a product runs on one goroutine: handing work to another costs a few
// microseconds, as much as this much arithmetic.
const parallelMin = 1 << 20

// split chooses how to cut an m x n x k product among at most t goroutines: tm blocks of rows times tn
// blocks of columns, whole tiles each, minimising the estimated time of the slowest goroutine.
func split(kern *Kernel, t, m, n, k int, transA, transB bool) (tm, tn int) {
	if t <= 1 || float64(m)*float64(n)*float64(k) < parallelMin {
		return 1, 1
	}
	tilesM := (m + kern.mr - 1) / kern.mr
	tilesN := (n + kern.nr - 1) / kern.nr
	ncMax := kern.Blocks().NC
	// Packing costs per element compared with one multiply-add in the kernel: a copy of contiguous
	// elements is cheap, and so is a transposition in 16x16 blocks, but one gathered element at a time
	// is not. A is transposed when it is not stored transposed, B when it is.
	weight := func(transposing bool) float64 {
		if transposing && !kern.isa.pack512 {
			return 32
		}
		return 4
	}
	best := -1.0
	tm, tn = 1, 1
	for tt := t; tt >= 1; tt-- {
		for i := 1; i <= tt; i++ {
			if tt%i != 0 || i > tilesM || tt/i > tilesN {
				continue
			}
			j := tt / i
			mi := float64((tilesM + i - 1) / i * kern.mr)
			ni := float64((tilesN + j - 1) / j * kern.nr)
			nBlocks := float64((int(ni) + ncMax - 1) / ncMax)
			cost := mi*ni*float64(k) + weight(!transA)*mi*float64(k)*nBlocks + weight(transB)*ni*float64(k)
			if best < 0 || cost < best {
				best, tm, tn = cost, i, j
			}
		}
	}
	return tm, tn
}

// matMul is MatMul after the checks.
func matMul(kern *Kernel, t int, c, a, b view, alpha, beta float32) {
	matMulEp(kern, t, c, a, b, alpha, beta, nil)
}

// matMulEp is matMul, finishing every element with ep when it is not nil.
func matMulEp(kern *Kernel, t int, c, a, b view, alpha, beta float32, ep *Epilogue) {
	m, n, k := c.rows, c.cols, a.cols
	if m == 0 || n == 0 {
		return
	}
	if ep != nil && k == 0 {
		for i := 0; i < m; i++ {
			clear(c.f32[i*c.stride : i*c.stride+n])
		}
		ep.finish(kern.isa, c, 0, 0, m, n)
		return
	}
	if alpha == 0 || k == 0 {
		scale(c, beta)
		return
	}
	tm, tn := split(kern, t, m, n, k, a.trans, b.trans)
	if tm*tn == 1 {
		ws := workspaces.Get().(*workspace)
		serial(kern, ws, c, a, b, alpha, beta, ep, 0, 0)
		workspaces.Put(ws)
		return
	}
	j := jobs.Get().(*job)
	tilesM := (m + kern.mr - 1) / kern.mr
	tilesN := (n + kern.nr - 1) / kern.nr
	// Twice as many blocks as goroutines even out the work when one of them runs slower, but every block
	// of rows packs the whole of B again (and every block of columns the whole of A): only where the
	// blocks stay deep enough for that to cost a few percent. On Zen 5 at 2048^3, four blocks of 512 rows
	// ran 3-5% slower than two of 1024, with the AVX2 and the AVX-512 kernels alike.
	const minBlock = 1024
	switch {
	case m/(2*tm) >= minBlock:
		tm *= 2
	case n/(2*tn) >= minBlock:
		tn *= 2
	}
	for bi := 0; bi < tm; bi++ {
		i0, i1 := bi*tilesM/tm*kern.mr, min((bi+1)*tilesM/tm*kern.mr, m)
		for bj := 0; bj < tn; bj++ {
			j0, j1 := bj*tilesN/tn*kern.nr, min((bj+1)*tilesN/tn*kern.nr, n)
			if i0 >= i1 || j0 >= j1 {
				continue
			}
			j.tasks = append(j.tasks, task{kern: kern, c: c.sub(i0, i1, j0, j1), a: a.sub(i0, i1, 0, k),
				b: b.sub(0, k, j0, j1), count: 1, alpha: alpha, beta: beta, ep: ep, ei: i0, ej: j0})
		}
	}
	runJob(j, t)
}

// matMulBatched is MatMulBatched after the checks.
func matMulBatched(kern *Kernel, t, count int, c view, strideC int, a view, strideA int, b view, strideB int, alpha, beta float32) {
	m, n, k := c.rows, c.cols, a.cols
	if m == 0 || n == 0 {
		return
	}
	if alpha == 0 || k == 0 {
		for i := 0; i < count; i++ {
			scale(c.at(i*strideC), beta)
		}
		return
	}
	work := float64(m) * float64(n) * float64(k)
	if tm, tn := split(kern, t, m, n, k, a.trans, b.trans); tm*tn >= t || count == 1 || work*float64(count) < parallelMin {
		// Each product is large enough to occupy every goroutine (or all of them together are too small
		// to share): run them one after another.
		for i := 0; i < count; i++ {
			matMul(kern, t, c.at(i*strideC), a.at(i*strideA), b.at(i*strideB), alpha, beta)
		}
		return
	}
	// Small products: give each goroutine a run of whole products.
	t = min(t, count)
	j := jobs.Get().(*job)
	for i := 0; i < t; i++ {
		b0, b1 := i*count/t, (i+1)*count/t
		j.tasks = append(j.tasks, task{kern: kern, c: c.at(b0 * strideC), a: a.at(b0 * strideA), b: b.at(b0 * strideB),
			count: b1 - b0, strideC: strideC, strideA: strideA, strideB: strideB, alpha: alpha, beta: beta})
	}
	runJob(j, t)
}

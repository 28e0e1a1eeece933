package main

import (
	"container/list"
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// pageCacheBytes is the memory serve sets aside for the pages it keeps, and maxBuilds how many pages it
// builds at once.
const pageCacheBytes = 256 << 20

var maxBuilds = max(2, runtime.GOMAXPROCS(0)/2)

// A pageCache builds each page once and keeps it while the pages kept fit in its budget, dropping the
// least recently used first. A page asked for while it is built is not built again: the requests wait for
// the one build. Builds run at most a few at a time (the rest wait their turn), and each runs to its end
// and is kept even when the requests that asked for it are gone: the next request finds it.
type pageCache struct {
	budget int64
	slots  chan struct{}
	// builds counts the pages built.
	builds atomic.Int64

	mu      sync.Mutex
	entries map[string]*pageEntry
	lru     *list.List // of *pageEntry built and kept, the most recently used first
	size    int64      // the bytes of the pages kept
}

type pageEntry struct {
	key  string
	done chan struct{} // closed once built
	body []byte
	err  error
	elem *list.Element // in lru, once kept
}

func newPageCache(budget int64, builds int) *pageCache {
	return &pageCache{budget: budget, slots: make(chan struct{}, builds), entries: map[string]*pageEntry{}, lru: list.New()}
}

// get returns the page key names, building it with build unless it is kept or being built. It returns
// ctx's error if ctx ends first.
func (c *pageCache) get(ctx context.Context, key string, build func() ([]byte, error)) ([]byte, error) {
	c.mu.Lock()
	e, ok := c.entries[key]
	if !ok {
		e = &pageEntry{key: key, done: make(chan struct{})}
		c.entries[key] = e
		go c.build(e, build)
	} else if e.elem != nil {
		c.lru.MoveToFront(e.elem)
	}
	c.mu.Unlock()
	select {
	case <-e.done:
		return e.body, e.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *pageCache) build(e *pageEntry, build func() ([]byte, error)) {
	c.slots <- struct{}{}
	c.builds.Add(1)
	e.body, e.err = build()
	<-c.slots
	c.mu.Lock()
	defer c.mu.Unlock()
	defer close(e.done) // once kept or not
	n := int64(len(e.body))
	if n > c.budget {
		// Too large to keep: those who waited have it.
		delete(c.entries, e.key)
		return
	}
	for c.size+n > c.budget {
		old := c.lru.Remove(c.lru.Back()).(*pageEntry)
		delete(c.entries, old.key)
		c.size -= int64(len(old.body))
	}
	e.elem = c.lru.PushFront(e)
	c.size += n
}

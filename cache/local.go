package cache

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Generations are counters kept in the process, for Stores that live there
// (the otter module's): the Incr, Counters and Generation methods of Store
// and ValueStore. The zero value is ready. Counters are never evicted:
// their number is the number of distinct tags ever incremented, so an
// application that takes tags from requests grows it without bound (MemoryStore
// keeps its generations in its LRU instead, within its bounds).
type Generations struct {
	mu   sync.Mutex
	gens map[string]*atomic.Int64
}

// Generation implements ValueStore.
func (g *Generations) Generation(name string) *atomic.Int64 {
	g.mu.Lock()
	c := g.gens[name]
	if c == nil {
		if g.gens == nil {
			g.gens = map[string]*atomic.Int64{}
		}
		c = new(atomic.Int64)
		g.gens[name] = c
	}
	g.mu.Unlock()
	return c
}

// Incr implements Store.
func (g *Generations) Incr(_ context.Context, name string) (int64, error) {
	if err := CheckKey(name); err != nil {
		return 0, err
	}
	return g.Generation(name).Add(1), nil
}

// Counters implements Store.
func (g *Generations) Counters(_ context.Context, names []string, dst []int64) error {
	for i, name := range names {
		if err := CheckKey(name); err != nil {
			return err
		}
		g.mu.Lock()
		c := g.gens[name]
		g.mu.Unlock()
		dst[i] = 0
		if c != nil {
			dst[i] = c.Load()
		}
	}
	return nil
}

// Locks are locks held in the process: the Locker of MemoryStore and of the otter
// module's store, for tests and for parity with Redis. The zero value is
// ready. Expired locks are dropped when their key is locked again, and the
// map is swept when it passes 1024 entries, so it stays bounded by the
// number of misses in flight.
type Locks struct {
	mu    sync.Mutex
	locks map[string]heldLock
	next  uint64
}

type heldLock struct {
	token   uint64
	expires time.Time
}

// TryLock implements Locker.
func (l *Locks) TryLock(_ context.Context, key string, ttl time.Duration) (func(), bool, error) {
	if err := CheckKey(key); err != nil {
		return nil, false, err
	}
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if h, held := l.locks[key]; held && now.Before(h.expires) {
		return nil, false, nil
	}
	if l.locks == nil {
		l.locks = map[string]heldLock{}
	}
	if len(l.locks) >= 1024 {
		for k, h := range l.locks {
			if !now.Before(h.expires) {
				delete(l.locks, k)
			}
		}
	}
	l.next++
	token := l.next
	l.locks[key] = heldLock{token, now.Add(ttl)}
	return func() {
		l.mu.Lock()
		if h := l.locks[key]; h.token == token {
			delete(l.locks, key)
		}
		l.mu.Unlock()
	}, true, nil
}

package cache

import (
	"context"
	"hash/maphash"
	"math/bits"
	"net/url"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// MemoryStoreConfig configures NewMemoryStore. The zero value means the defaults.
type MemoryStoreConfig struct {
	// MaxEntries bounds the number of entries; the least recently used
	// entry of a full shard is evicted to make room. Default 100,000;
	// negative means no count bound (MaxBytes must then bound it).
	MaxEntries int

	// MaxBytes bounds the bytes kept: each entry counts its key, its value
	// (bytes, or the size Of gives for a Go value) and 64 bytes of
	// bookkeeping. Default 64 MiB; negative means no byte bound. A value
	// larger than a shard's share of MaxBytes is not kept.
	MaxBytes int64

	// Shards is the number of independently locked parts, rounded up to a
	// power of two. Default 16 per GOMAXPROCS, at least 16: enough that
	// parallel hits rarely wait on one another (BENCHMARKS.md, "Cache").
	// The bounds are split evenly between the shards.
	Shards int

	// Resolution is the clock's tick: expiries are checked against a clock
	// read every Resolution (a time.Now per hit would cost more than the
	// hit), so an entry may be served up to Resolution past its TTL.
	// Default 10ms.
	Resolution time.Duration

	// SweepEvery is how often expired entries that nobody reads are
	// reclaimed: each period one eighth of the shards is walked, so every
	// entry is looked at within 8 periods. Default 1s.
	SweepEvery time.Duration
}

// The defaults of MemoryStoreConfig.
const (
	DefaultMaxEntries = 100_000
	DefaultMaxBytes   = 64 << 20
	DefaultResolution = 10 * time.Millisecond
	DefaultSweepEvery = time.Second
)

// entryOverhead is what an entry counts against MaxBytes besides its key and
// value: the entry struct and its map slot, roughly.
const entryOverhead = 64

// MemoryStore is a bounded, sharded LRU Store with time-to-live, in the process:
// the default Store (PLINTH_CACHE_URL unset or "memory:"). A Get or
// GetValue that hits costs no allocation. It is a ValueStore and a Locker
// (locks held in this process only). Close stops its clock; a MemoryStore that
// is dropped without Close stops it when it is garbage collected.
//
// Tag generations (Incr, Counters) are entries of the LRU too, under a key
// no entry can have, counted against MaxEntries and MaxBytes and evicted
// like the others, so that a flood of distinct tags cannot grow the store
// past its bounds. An evicted generation never goes back: the store keeps
// a floor, the highest generation evicted so far; a tag without a counter
// reads as the floor, and Incr creates its counter at the floor plus one.
// So the entries written with an evicted generation are misses from then
// on, however the tag is read or incremented next (at the cost of making
// the entries stamped with any tag that has no counter misses too, when
// the floor rises). The generations an Of[T] reads without a lookup
// (Generation: the tags of Config.Tags) are pinned instead: kept apart from
// the bounds for the store's life, like the Of's tags themselves.
type MemoryStore struct {
	shards []shard
	mask   uint64
	seed   maphash.Seed
	clock  *clock

	maxEntries int   // per shard; 0 no bound
	maxBytes   int64 // per shard; 0 no bound

	floor atomic.Int64 // the highest generation evicted: what a tag without a counter reads

	Locks // TryLock, in this process

	closed atomic.Bool
}

type shard struct {
	mu     sync.Mutex
	m      map[uint64]*entry // by the key's hash; entries of equal hashes chained
	n      int               // entries
	ring   entry             // sentinel: ring.next is the most recently used
	bytes  int64
	moves  uint64                   // entries put at the front so far (stamp's clock)
	floor  *atomic.Int64            // the MemoryStore's floor, raised when a counter is evicted
	pinned map[string]*atomic.Int64 // Generation's counters, by tag, out of the LRU
	_      [64]byte                 // keep shards' locks on separate cache lines
}

// entry is one key's value. What a hit reads comes first, in the first 64
// bytes (one cache line): the key, the value, the expiry, the stamp.
type entry struct {
	key     string
	v       any    // a Go value (isValue)
	chain   *entry // the next entry of the same hash (a 64-bit collision: rare)
	expires int64  // clock reading; 0 never
	stamp   uint64 // shard.moves when it was last put at the front

	prev, next *entry
	b          []byte // bytes (!isValue)
	size       int64
	hash       uint64 // maphash of key, with the MemoryStore's seed
	isValue    bool
	isCounter  bool // a tag's generation: v is a *counter, key counterKey(tag)
}

// counter is the value of a generation's entry, changed under its shard's
// lock.
type counter struct{ n int64 }

// counterKey is the entry key of tag's generation: no key CheckKey accepts
// holds a NUL byte, so a generation and an entry never share a key.
func counterKey(tag string) string { return "\x00" + tag }

// counterSize is what a generation's entry counts against MaxBytes.
func counterSize(key string) int64 { return int64(len(key)) + 8 + entryOverhead }

// valueNode is an entry and the Of[T] value it holds, in one allocation: a
// hit reads the value from the memory right after the entry's, not from
// elsewhere in the heap.
type valueNode[T any] struct {
	e  entry
	ve valueEntry[T]
}

// putValue is SetValue for an Of[T] on a MemoryStore, with the entry and the value
// allocated together.
func putValue[T any](m *MemoryStore, key string, ve valueEntry[T], size int, ttl time.Duration) error {
	n := &valueNode[T]{ve: ve}
	n.e = entry{key: key, v: &n.ve, isValue: true, size: int64(len(key)+size) + entryOverhead, expires: m.clock.expiry(ttl)}
	return m.put(&n.e)
}

// NewMemoryStore returns a MemoryStore.
func NewMemoryStore(o MemoryStoreConfig) *MemoryStore {
	n := o.Shards
	if n <= 0 {
		n = max(16, 16*runtime.GOMAXPROCS(0))
	}
	n = 1 << bits.Len(uint(n-1))
	maxEntries := o.MaxEntries
	switch {
	case maxEntries == 0:
		maxEntries = DefaultMaxEntries
	case maxEntries < 0:
		maxEntries = 0
	}
	maxBytes := o.MaxBytes
	switch {
	case maxBytes == 0:
		maxBytes = DefaultMaxBytes
	case maxBytes < 0:
		maxBytes = 0
	}
	if maxEntries > 0 && maxEntries < n {
		n = 1 << (bits.Len(uint(maxEntries)) - 1) // at least one entry per shard
	}
	m := &MemoryStore{
		shards: make([]shard, n),
		mask:   uint64(n - 1),
		seed:   maphash.MakeSeed(),
	}
	if maxEntries > 0 {
		m.maxEntries = max(1, maxEntries/n)
	}
	if maxBytes > 0 {
		m.maxBytes = max(1, maxBytes/int64(n))
	}
	for i := range m.shards {
		s := &m.shards[i]
		s.m = map[uint64]*entry{}
		s.ring.next, s.ring.prev = &s.ring, &s.ring
		s.floor = &m.floor
	}
	res := o.Resolution
	if res <= 0 {
		res = DefaultResolution
	}
	sweep := o.SweepEvery
	if sweep <= 0 {
		sweep = DefaultSweepEvery
	}
	m.clock = newClock(res, newSweeper(m.shards, sweep, res))
	runtime.AddCleanup(m, func(c *clock) { c.close() }, m.clock)
	return m
}

func (c *clock) close() {
	if c.closed.CompareAndSwap(false, true) {
		close(c.stop)
	}
}

// newSweeper returns the clock's tick function: every sweep it walks the
// next eighth of the shards and removes their expired entries. It holds the
// shards, not the MemoryStore, so that a dropped MemoryStore can be collected.
func newSweeper(shards []shard, sweep, res time.Duration) func(int64) {
	per := max(1, (len(shards)+7)/8)
	next := 0
	var last int64
	return func(now int64) {
		if now-last < int64(sweep) {
			return
		}
		last = now
		for range per {
			shards[next].sweep(now)
			next = (next + 1) % len(shards)
		}
	}
}

func (s *shard) sweep(now int64) {
	s.mu.Lock()
	for e := s.ring.prev; e != &s.ring; {
		prev := e.prev
		if e.expires != 0 && now >= e.expires {
			s.remove(e)
		}
		e = prev
	}
	s.mu.Unlock()
}

// shard returns key's shard and hash. One hash serves both: the shard is
// chosen by its low bits, and the shard's map is keyed by all of it (a
// uint64 key is cheaper to look up than the string again; the entry's key
// is compared after).
func (m *MemoryStore) shard(key string) (*shard, uint64) {
	h := maphash.String(m.seed, key)
	return &m.shards[h&m.mask], h
}

// find returns the entry under key, expired or not.
func (s *shard) find(key string, h uint64) *entry {
	e := s.m[h]
	for e != nil && e.key != key {
		e = e.chain
	}
	return e
}

// lookup returns the live entry under key, moved to the front, with s
// locked; the caller unlocks.
func (s *shard) lookup(key string, h uint64, now int64) *entry {
	e := s.find(key, h)
	if e == nil {
		return nil
	}
	if e.expires != 0 && now >= e.expires {
		s.remove(e)
		return nil
	}
	// Fewer entries than a quarter of the shard went to the front since e
	// did: e is in the front quarter, far from eviction, and stays where it
	// is. A hot entry is then read without writing to its neighbours (two
	// cache lines a hit saves); the order is LRU to within a quarter.
	if s.moves-e.stamp > uint64(s.n>>2) {
		e.prev.next, e.next.prev = e.next, e.prev
		s.pushFront(e)
	}
	return e
}

func (s *shard) pushFront(e *entry) {
	e.next, e.prev = s.ring.next, &s.ring
	s.ring.next.prev = e
	s.ring.next = e
	s.moves++
	e.stamp = s.moves
}

func (s *shard) remove(e *entry) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
	if head := s.m[e.hash]; head == e {
		if e.chain == nil {
			delete(s.m, e.hash)
		} else {
			s.m[e.hash] = e.chain
		}
	} else {
		for p := head; p != nil; p = p.chain {
			if p.chain == e {
				p.chain = e.chain
				break
			}
		}
	}
	e.chain = nil
	s.n--
	s.bytes -= e.size
	if e.isCounter {
		raise(s.floor, e.v.(*counter).n)
	}
}

// raise sets *f to v if v is higher.
func raise(f *atomic.Int64, v int64) {
	for old := f.Load(); v > old && !f.CompareAndSwap(old, v); old = f.Load() {
	}
}

// put stores e, replacing the entry under its key, and evicts from the back
// while the shard is over a bound.
func (m *MemoryStore) put(e *entry) error {
	if m.closed.Load() {
		return ErrClosed
	}
	s, h := m.shard(e.key)
	e.hash = h
	s.mu.Lock()
	if old := s.find(e.key, h); old != nil {
		s.remove(old)
	}
	m.insertLocked(s, e)
	s.mu.Unlock()
	return nil
}

// insertLocked adds e (e.hash set, its key not in s) at the front of s,
// locked, and evicts from the back while s is over a bound. An entry
// larger than the shard is not kept, like an immediate eviction.
func (m *MemoryStore) insertLocked(s *shard, e *entry) {
	if m.maxBytes > 0 && e.size > m.maxBytes {
		if e.isCounter {
			raise(s.floor, e.v.(*counter).n)
		}
		return
	}
	e.chain = s.m[e.hash]
	s.m[e.hash] = e
	s.n++
	s.pushFront(e)
	s.bytes += e.size
	for (m.maxEntries > 0 && s.n > m.maxEntries) || (m.maxBytes > 0 && s.bytes > m.maxBytes) {
		s.remove(s.ring.prev)
	}
}

// Incr implements Store: a pinned generation (Generation) or one in the
// LRU goes up by one; a tag without one gets one at the floor plus one
// (1 in a store that never evicted a generation), which may evict the
// least recently used entry of its shard.
func (m *MemoryStore) Incr(_ context.Context, name string) (int64, error) {
	if err := CheckKey(name); err != nil {
		return 0, err
	}
	key := counterKey(name)
	s, h := m.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if g := s.pinned[name]; g != nil {
		return g.Add(1), nil
	}
	if e := s.lookup(key, h, 0); e != nil {
		c := e.v.(*counter)
		c.n++
		return c.n, nil
	}
	c := &counter{n: s.floor.Load() + 1}
	m.insertLocked(s, &entry{key: key, v: c, isValue: true, isCounter: true, size: counterSize(key), hash: h})
	return c.n, nil
}

// Counters implements Store: a tag without a generation reads as the floor
// (0 in a store that never evicted one).
func (m *MemoryStore) Counters(_ context.Context, names []string, dst []int64) error {
	for i, name := range names {
		if err := CheckKey(name); err != nil {
			return err
		}
		key := counterKey(name)
		s, h := m.shard(key)
		s.mu.Lock()
		if g := s.pinned[name]; g != nil {
			dst[i] = g.Load()
		} else if e := s.lookup(key, h, 0); e != nil {
			dst[i] = e.v.(*counter).n
		} else {
			dst[i] = s.floor.Load()
		}
		s.mu.Unlock()
	}
	return nil
}

// Generation implements ValueStore: it pins name's generation, taking it
// out of the LRU (with its value; the floor when it had none), so that the
// pointer stays valid for the store's life. The pinned generations are not
// counted against the bounds: they are the tags of the Of[T]s made on the
// store (Config.Tags), which the application fixes when it makes them.
func (m *MemoryStore) Generation(name string) *atomic.Int64 {
	key := counterKey(name)
	s, h := m.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if g := s.pinned[name]; g != nil {
		return g
	}
	g := new(atomic.Int64)
	if e := s.find(key, h); e != nil {
		g.Store(e.v.(*counter).n)
		e.isCounter = false // moved, not evicted: the floor stays
		s.remove(e)
	} else {
		g.Store(s.floor.Load())
	}
	if s.pinned == nil {
		s.pinned = map[string]*atomic.Int64{}
	}
	s.pinned[name] = g
	return g
}

// Get returns the stored slice itself (no copy): the caller must not modify
// it.
//
// The key is checked on a miss only: a hit's key was checked when it was
// stored (a bad key is never stored), and the check would cost a hit a
// tenth of its time.
func (m *MemoryStore) Get(_ context.Context, key string) ([]byte, bool, error) {
	if len(key) > MaxKeyLen {
		return nil, false, CheckKey(key) // before hashing it
	}
	s, h := m.shard(key)
	s.mu.Lock()
	e := s.lookup(key, h, m.clock.read())
	if e == nil || e.isValue {
		s.mu.Unlock()
		return nil, false, CheckKey(key)
	}
	b := e.b
	s.mu.Unlock()
	return b, true, nil
}

// Set copies value.
func (m *MemoryStore) Set(_ context.Context, key string, value []byte, ttl time.Duration) error {
	if err := CheckKey(key); err != nil {
		return err
	}
	b := append([]byte(nil), value...)
	return m.put(&entry{key: key, b: b, size: int64(len(key)+len(b)) + entryOverhead, expires: m.clock.expiry(ttl)})
}

// Delete removes key.
func (m *MemoryStore) Delete(_ context.Context, key string) error {
	if err := CheckKey(key); err != nil {
		return err
	}
	s, h := m.shard(key)
	s.mu.Lock()
	if e := s.find(key, h); e != nil {
		s.remove(e)
	}
	s.mu.Unlock()
	return nil
}

// GetValue implements ValueStore.
func (m *MemoryStore) GetValue(key string) (any, bool) {
	s, h := m.shard(key)
	s.mu.Lock()
	e := s.lookup(key, h, m.clock.read())
	if e == nil || !e.isValue {
		s.mu.Unlock()
		return nil, false
	}
	v := e.v
	s.mu.Unlock()
	return v, true
}

// SetValue implements ValueStore.
func (m *MemoryStore) SetValue(key string, v any, size int, ttl time.Duration) error {
	if err := CheckKey(key); err != nil {
		return err
	}
	return m.put(&entry{key: key, v: v, isValue: true, size: int64(len(key)+size) + entryOverhead, expires: m.clock.expiry(ttl)})
}

// Len returns the number of entries, expired ones not yet reclaimed
// included.
func (m *MemoryStore) Len() int {
	n := 0
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		n += s.n
		s.mu.Unlock()
	}
	return n
}

// Bytes returns the bytes counted against MaxBytes.
func (m *MemoryStore) Bytes() int64 {
	var n int64
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		n += s.bytes
		s.mu.Unlock()
	}
	return n
}

// Close stops the clock and the sweeper; later writes fail with ErrClosed.
func (m *MemoryStore) Close() error {
	m.closed.Store(true)
	m.clock.close()
	return nil
}

// openMemory opens "memory:" URLs: memory:, memory:?max_entries=N&max_bytes=N.
func openMemory(u *url.URL) (Store, error) {
	var o MemoryStoreConfig
	q := u.Query()
	for name, vs := range q {
		v := vs[len(vs)-1]
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return nil, &urlError{"memory: " + name + "=" + strconv.Quote(v) + ": want a positive integer"}
		}
		switch name {
		case "max_entries":
			o.MaxEntries = int(n)
		case "max_bytes":
			o.MaxBytes = n
		case "shards":
			o.Shards = int(n)
		default:
			return nil, &urlError{"memory: unknown parameter " + strconv.Quote(name) + " (max_entries, max_bytes, shards)"}
		}
	}
	return NewMemoryStore(o), nil
}

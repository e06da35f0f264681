package cache

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Outcome says how Fetch got its value.
type Outcome uint8

// The outcomes of Fetch.
const (
	// Miss: the value was computed by this call's fn and stored.
	Miss Outcome = iota
	// Hit: the value came from the Store.
	Hit
	// Shared: another caller computed it: a concurrent Fetch in this
	// process (single flight), or another instance holding the lock
	// (Config.Lock) whose value appeared in the Store while this one waited.
	Shared
	// Bypassed: the Store failed (unreachable, say); the value was computed
	// and returned without the cache.
	Bypassed
)

// String returns "miss", "hit", "shared" or "bypassed".
func (o Outcome) String() string {
	switch o {
	case Hit:
		return "hit"
	case Shared:
		return "shared"
	case Bypassed:
		return "bypassed"
	}
	return "miss"
}

// Config configures an Of[T] (New). The zero value means the defaults.
type Config[T any] struct {
	// Codec encodes the values for a Store that keeps bytes (a Store that
	// keeps Go values, a ValueStore such as MemoryStore, does not use it).
	// Default (nil) DefaultCodec[T](): the bytes themselves for string and
	// []byte, JSON for any other type.
	Codec Codec[T]

	// Tags tag every entry the Of writes: Invalidate(ctx, store, tag) then
	// makes them all misses at once. Tags are checked like keys (New panics
	// on a bad one, naming it). Reading an entry with tags costs one load
	// per tag on MemoryStore and one more round trip (MGET) on Redis.
	// Default none.
	Tags []string

	// Lock makes a miss take a lock in the Store (a Locker; ignored on one
	// that is not) before computing, so that instances sharing the Store
	// compute a cold key once between them: the holder computes; the
	// others poll the Store for the value, from 10ms doubling to 200ms, for
	// at most LockWait, then compute it themselves (fail open). Default
	// false: a lock costs a round trip per miss, and single flight already
	// holds within a process.
	Lock bool
	// LockTTL bounds how long a holder that died keeps the lock. Default
	// (0) DefaultLockTTL, 10s. LockTTL and LockWait are cut to
	// ComputeTimeout when it is shorter: a lock never outlives the bound of
	// the computation it guards, so a holder whose fn hangs blocks the
	// other instances no longer than that bound. New panics when LockTTL or
	// LockWait is set without Lock, or negative.
	LockTTL time.Duration
	// LockWait bounds how long a miss waits for another instance's
	// computation before computing itself. Default (0) DefaultLockWait, 5s.
	LockWait time.Duration

	// ComputeTimeout bounds how long a miss of one key may take: the wait
	// for another instance's lock (Lock) and fn. fn's context carries the
	// deadline; when it passes, the callers waiting for the key are
	// released with an error wrapping context.DeadlineExceeded, whether fn
	// has returned or not. A fn that honours its context then returns, and
	// the next caller of the key starts a new computation.
	//
	// A fn that ignores its context goes on running, abandoned: it is the
	// key's one computation until it returns, so a key has at most one
	// abandoned computation (one goroutine), however many timeouts pass. A
	// caller that comes while it runs does not start another: it waits for
	// it, at most ComputeTimeout (and no longer than its own context), and
	// gets its value if it ends with one (Shared), else starts a new
	// computation (waiting for it within the same bound); when the bound
	// passes first, the caller gets an error wrapping
	// context.DeadlineExceeded. A value that an abandoned fn returns late
	// is still stored.
	//
	// Default (0) DefaultComputeTimeout, 30s: longer than any computation
	// worth caching should take, short enough that a computation stuck on
	// a connection without a deadline does not hold its key, and every
	// request of it, until the process restarts. plinth.Off (any negative
	// value) removes the bound: the callers of a key whose fn never returns
	// then wait until their own contexts end, and the key stays blocked.
	ComputeTimeout time.Duration

	// Logger is where Store failures are logged (at most one line a minute
	// per Of). Default slog.Default().
	Logger *slog.Logger
}

// The defaults of Config.
const (
	// DefaultComputeTimeout bounds a computation (Config.ComputeTimeout)
	// unless the Of says otherwise.
	DefaultComputeTimeout = 30 * time.Second
	// DefaultLockTTL is Config.LockTTL's default.
	DefaultLockTTL = 10 * time.Second
	// DefaultLockWait is Config.LockWait's default.
	DefaultLockWait = 5 * time.Second
)

// Of is a typed view of a Store: values of type T under string keys. It is
// safe for concurrent use; make one per kind of value, at start.
//
// The values an Of returns may be shared with the cache and other callers
// (on MemoryStore, a hit returns the stored T): do not modify what a slice, map
// or pointer in T refers to.
type Of[T any] struct {
	store  Store
	values ValueStore   // non-nil when store keeps Go values
	mem    *MemoryStore // non-nil when store is a MemoryStore: called directly
	locker Locker       // non-nil with Config.Lock on a Locker
	codec  Codec[T]
	tags   []string
	gens   []*atomic.Int64 // values' generation counters, one per tag
	set    Config[T]       // resolved: defaults filled in; ComputeTimeout < 0 means none

	mu    sync.Mutex
	calls map[string]*call[T]
	// ended counts the computations that ended: a caller that
	// becomes a key's leader after one ended since its own look at the
	// Store looks again before computing, since the value it missed may
	// have been stored meanwhile.
	ended atomic.Uint64

	lastLog  atomic.Int64 // unix nanoseconds of the last failure logged
	failures atomic.Uint64
}

// A call is the computation of one key, from its first caller until fn
// returns (or panics); it stays in Of.calls all that time, so that a key
// never has two computations running in an Of.
type call[T any] struct {
	done  chan struct{} // closed when fn returned, or when the compute timeout passed
	ended chan struct{} // closed when fn returned

	// expired (set under Of.mu, before done is closed, and never reset)
	// says that done was closed by the compute timeout: fn was then
	// abandoned, and the callers released by done get the timeout's
	// error.
	expired bool
	// released (under Of.mu) says done was closed.
	released bool

	// fn's result, set before ended is closed (and before done when fn
	// returned in time).
	v   T
	out Outcome
	err error
}

// timeoutError is the error of callers released by the compute timeout.
type timeoutError struct {
	key string
	d   time.Duration
	// waited: the caller waited for an abandoned computation (one that
	// had passed its timeout already) and d passed again.
	waited bool
}

func (e *timeoutError) Error() string {
	if e.waited {
		return fmt.Sprintf("cache: computing %q: an abandoned computation of the key (past its compute timeout) still runs after another %v", e.key, e.d)
	}
	return fmt.Sprintf("cache: computing %q took longer than the compute timeout (%v)", e.key, e.d)
}

func (e *timeoutError) Unwrap() error { return context.DeadlineExceeded }

// valueEntry is what an Of keeps in a ValueStore.
type valueEntry[T any] struct {
	v    T
	gens []int64
}

// New returns an Of[T] over store, configured by cfg. It panics when store
// is nil or cfg is wrong (a bad tag, LockTTL or LockWait negative or set
// without Lock), naming the field.
func New[T any](store Store, cfg Config[T]) *Of[T] {
	if store == nil {
		panic("cache: New needs a Store")
	}
	for _, t := range cfg.Tags {
		if err := CheckKey(t); err != nil {
			panic(fmt.Sprintf("cache: New: Config.Tags: %q: %v", t, err))
		}
	}
	if cfg.LockTTL < 0 || cfg.LockWait < 0 {
		panic(fmt.Sprintf("cache: New: Config.LockTTL (%v) and LockWait (%v) must not be negative (0: the default)", cfg.LockTTL, cfg.LockWait))
	}
	if !cfg.Lock && (cfg.LockTTL != 0 || cfg.LockWait != 0) {
		panic("cache: New: Config.LockTTL and LockWait are set but Config.Lock is false")
	}
	o := &Of[T]{store: store, calls: map[string]*call[T]{}, set: cfg}
	o.set.Tags = append([]string(nil), cfg.Tags...)
	o.codec = cfg.Codec
	if o.codec == nil {
		o.codec = DefaultCodec[T]()
	}
	if o.set.Logger == nil {
		o.set.Logger = slog.Default()
	}
	if o.set.LockTTL == 0 {
		o.set.LockTTL = DefaultLockTTL
	}
	if o.set.LockWait == 0 {
		o.set.LockWait = DefaultLockWait
	}
	o.tags = o.set.Tags
	o.mem, _ = store.(*MemoryStore)
	if vs, ok := store.(ValueStore); ok {
		o.values = vs
		for _, t := range o.tags {
			o.gens = append(o.gens, vs.Generation(t))
		}
	}
	if l, ok := store.(Locker); ok && o.set.Lock {
		o.locker = l
	}
	if o.set.ComputeTimeout == 0 {
		o.set.ComputeTimeout = DefaultComputeTimeout
	}
	if d := o.set.ComputeTimeout; d > 0 {
		o.set.LockTTL = min(o.set.LockTTL, d)
		o.set.LockWait = min(o.set.LockWait, d)
	}
	return o
}

// Store returns the Store the Of reads and writes.
func (o *Of[T]) Store() Store { return o.store }

// Failures returns how many Store operations failed so far.
func (o *Of[T]) Failures() uint64 { return o.failures.Load() }

// Remember returns the value under key, or computes it with fn, stores it
// for ttl (<= 0: until evicted) and returns it. Concurrent misses of a key
// in this process run fn once (see Fetch). An error from fn is returned,
// and nothing is stored. A key that CheckKey refuses is an error (ErrBadKey)
// and fn does not run. A Store that fails is no error: fn's value is
// returned (and the failure logged).
func (o *Of[T]) Remember(ctx context.Context, key string, ttl time.Duration, fn func(context.Context) (T, error)) (T, error) {
	v, _, err := o.Fetch(ctx, key, ttl, fn)
	return v, err
}

// Fetch is Remember, also saying where the value came from.
//
// fn runs once for concurrent misses of key in this process, in a goroutine
// of its own under a context that keeps ctx's values but not its
// cancellation (so that the first caller leaving does not fail the others)
// and carries the compute timeout's deadline (Config.ComputeTimeout, default
// 30s); each caller waits for it until its own ctx ends (then returns ctx's
// error) or the timeout passes (then returns an error wrapping
// context.DeadlineExceeded). A key has one computation at a time in an Of,
// so one that ignores its context and runs on past its timeout is the
// key's only abandoned one (see Config.ComputeTimeout). A panic in fn is
// returned to every waiter as an error.
func (o *Of[T]) Fetch(ctx context.Context, key string, ttl time.Duration, fn func(context.Context) (T, error)) (T, Outcome, error) {
	var zero T
	if len(key) > MaxKeyLen {
		return zero, Miss, CheckKey(key) // before a Store hashes it
	}
	seen := o.ended.Load()
	if v, ok, _ := o.get(ctx, key); ok {
		return v, Hit, nil // a stored key was checked when it was stored
	}
	if err := CheckKey(key); err != nil {
		return zero, Miss, err
	}

	return o.miss(ctx, key, ttl, fn, seen)
}

// miss waits for the computation of key, starting it when there is none.
func (o *Of[T]) miss(ctx context.Context, key string, ttl time.Duration, fn func(context.Context) (T, error), seen uint64) (T, Outcome, error) {
	var zero T
	// bound ends the wait of a caller that found an abandoned computation
	// (nil, which never fires, until then).
	var bound <-chan time.Time
	for {
		o.mu.Lock()
		c := o.calls[key]
		leader := c == nil
		if leader {
			c = &call[T]{done: make(chan struct{}), ended: make(chan struct{})}
			o.calls[key] = c
		}
		abandoned := c.expired
		recheck := o.ended.Load() != seen
		o.mu.Unlock()
		if leader {
			go o.run(context.WithoutCancel(ctx), c, key, ttl, fn, recheck)
		}
		if !abandoned {
			select {
			case <-c.done:
			case <-bound:
				return zero, Miss, &timeoutError{key: key, d: o.set.ComputeTimeout, waited: true}
			case <-ctx.Done():
				return zero, Miss, context.Cause(ctx)
			}
			if c.expired {
				return zero, Miss, &timeoutError{key: key, d: o.set.ComputeTimeout}
			}
			out := c.out
			if !leader && out == Miss {
				out = Shared
			}
			return c.v, out, c.err
		}
		// fn passed its timeout and still runs: wait for it (at most the
		// timeout), rather than start a second one.
		if bound == nil {
			t := time.NewTimer(o.set.ComputeTimeout)
			defer t.Stop()
			bound = t.C
		}
		select {
		case <-c.ended:
		case <-bound:
			return zero, Miss, &timeoutError{key: key, d: o.set.ComputeTimeout, waited: true}
		case <-ctx.Done():
			return zero, Miss, context.Cause(ctx)
		}
		if c.err == nil {
			out := c.out
			if out == Miss {
				out = Shared
			}
			return c.v, out, nil
		}
		// It failed: the key is free; start (or join) a new computation,
		// still within bound.
	}
}

// run computes key for the callers of c, within the compute timeout.
func (o *Of[T]) run(ctx context.Context, c *call[T], key string, ttl time.Duration, fn func(context.Context) (T, error), recheck bool) {
	fnCtx, cancel := ctx, context.CancelFunc(func() {})
	stop := func() bool { return false }
	if d := o.set.ComputeTimeout; d > 0 {
		fnCtx, cancel = context.WithTimeoutCause(ctx, d, &timeoutError{key: key, d: d})
		// The deadline releases the waiters, whether fn returns or not.
		stop = context.AfterFunc(fnCtx, func() { o.expire(c) })
	}
	var (
		v   T
		out Outcome
		err error
	)
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("cache: the function computing %q panicked: %v", key, p)
		}
		stop()
		cancel()
		o.mu.Lock()
		c.v, c.out, c.err = v, out, err
		if !c.released {
			c.released = true
			close(c.done)
		}
		delete(o.calls, key)
		o.ended.Add(1)
		close(c.ended)
		o.mu.Unlock()
	}()
	if recheck {
		// A computation ended since this caller missed: its value may be
		// stored by now (64 callers missing at once, one of them late to
		// the single flight, computed twice without this look).
		if got, hit, _ := o.get(fnCtx, key); hit {
			v, out = got, Hit
			return
		}
	}
	v, out, err = o.fill(fnCtx, ctx, key, ttl, fn)
}

// expire releases the callers of c when its compute timeout passes before
// fn returns.
func (o *Of[T]) expire(c *call[T]) {
	o.mu.Lock()
	if !c.released {
		c.released, c.expired = true, true
		close(c.done)
	}
	o.mu.Unlock()
}

// fill computes key and stores it: the generations of its tags are read
// first, so that an invalidation during fn leaves the entry stale. ctx
// (fn's) carries the compute timeout; the value is stored under storeCtx,
// without it, so that a value fn returned late is still kept.
func (o *Of[T]) fill(ctx, storeCtx context.Context, key string, ttl time.Duration, fn func(context.Context) (T, error)) (T, Outcome, error) {
	gens, err := o.generations(ctx)
	storeOK := err == nil
	if err != nil {
		o.fail(err, "reading the tags' generations")
	}
	if storeOK && o.locker != nil {
		release, v, ok, out := o.lockOrWait(ctx, key)
		if ok {
			return v, out, nil
		}
		if release != nil {
			defer release()
		}
		// The wait for the lock may have used up the time (its bound is
		// the timeout's): fn would start with its deadline passed.
		if dl, ok := ctx.Deadline(); ok && !time.Now().Before(dl) {
			var zero T
			return zero, Miss, &timeoutError{key: key, d: o.set.ComputeTimeout}
		}
	}
	v, err := fn(ctx)
	if err != nil {
		return v, Miss, err
	}
	if !storeOK {
		return v, Bypassed, nil
	}
	if err := o.put(storeCtx, key, v, gens, ttl); err != nil {
		o.fail(err, "storing "+key)
		return v, Bypassed, nil
	}
	return v, Miss, nil
}

// lockOrWait takes the lock of key, or waits for its holder's value. It
// returns the value (ok) when one appeared in the Store; else release (nil
// when the lock was not taken: the wait ran out, or the Store failed) and
// the caller computes.
func (o *Of[T]) lockOrWait(ctx context.Context, key string) (release func(), v T, ok bool, out Outcome) {
	deadline := time.Now().Add(o.set.LockWait)
	backoff := 10 * time.Millisecond
	for {
		rel, taken, err := o.locker.TryLock(ctx, key, o.set.LockTTL)
		if err != nil {
			o.fail(err, "locking "+key)
			return nil, v, false, Miss
		}
		// Taken or not, the value may have been stored since the first
		// look (by the holder that just released the lock).
		if got, hit, _ := o.get(ctx, key); hit {
			if taken {
				rel()
				return nil, got, true, Hit
			}
			return nil, got, true, Shared
		}
		if taken {
			return rel, v, false, Miss
		}
		wait := min(backoff, time.Until(deadline))
		if wait <= 0 {
			return nil, v, false, Miss // fail open: compute without the lock
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, v, false, Miss
		}
		backoff = min(2*backoff, 200*time.Millisecond)
	}
}

// Get returns the value under key, if any. A Store failure is returned as
// an error (Remember would compute instead).
func (o *Of[T]) Get(ctx context.Context, key string) (T, bool, error) {
	if err := CheckKey(key); err != nil {
		var zero T
		return zero, false, err
	}
	return o.get(ctx, key)
}

// Set stores v under key for ttl, with the current generations of the Of's
// tags.
func (o *Of[T]) Set(ctx context.Context, key string, v T, ttl time.Duration) error {
	if err := CheckKey(key); err != nil {
		return err
	}
	gens, err := o.generations(ctx)
	if err != nil {
		return err
	}
	return o.put(ctx, key, v, gens, ttl)
}

// Delete removes key.
func (o *Of[T]) Delete(ctx context.Context, key string) error {
	return o.store.Delete(ctx, key)
}

// get looks key up (already checked); a Store failure is logged and is a
// miss.
func (o *Of[T]) get(ctx context.Context, key string) (T, bool, error) {
	var zero T
	if o.values != nil {
		var x any
		var ok bool
		if o.mem != nil {
			x, ok = o.mem.GetValue(key)
		} else {
			x, ok = o.values.GetValue(key)
		}
		if !ok {
			return zero, false, nil
		}
		e, ok := x.(*valueEntry[T])
		if !ok || len(e.gens) != len(o.gens) {
			return zero, false, nil
		}
		for i, g := range o.gens {
			if g.Load() != e.gens[i] {
				return zero, false, nil
			}
		}
		return e.v, true, nil
	}
	b, ok, err := o.store.Get(ctx, key)
	if err != nil {
		o.fail(err, "reading "+key)
		return zero, false, err
	}
	if !ok {
		return zero, false, nil
	}
	payload, gens, ok := parseEntry(b, len(o.tags))
	if !ok {
		return zero, false, nil
	}
	if len(gens) > 0 {
		now := make([]int64, len(o.tags))
		if err := o.store.Counters(ctx, o.tags, now); err != nil {
			o.fail(err, "reading the tags' generations")
			return zero, false, err
		}
		for i := range now {
			if now[i] != gens[i] {
				return zero, false, nil
			}
		}
	}
	v, err := o.codec.Decode(payload)
	if err != nil {
		return zero, false, nil // written by something else: a miss
	}
	return v, true, nil
}

// generations reads the current generations of the Of's tags.
func (o *Of[T]) generations(ctx context.Context) ([]int64, error) {
	if len(o.tags) == 0 {
		return nil, nil
	}
	gens := make([]int64, len(o.tags))
	if o.values != nil {
		for i, g := range o.gens {
			gens[i] = g.Load()
		}
		return gens, nil
	}
	err := o.store.Counters(ctx, o.tags, gens)
	return gens, err
}

func (o *Of[T]) put(ctx context.Context, key string, v T, gens []int64, ttl time.Duration) error {
	b, err := appendEntry(nil, gens)
	if err != nil {
		return err
	}
	b, err = o.codec.Append(b, v)
	if err != nil {
		return fmt.Errorf("cache: encoding %q: %w", key, err)
	}
	if m, ok := o.values.(*MemoryStore); ok {
		return putValue(m, key, valueEntry[T]{v: v, gens: gens}, len(b), ttl)
	}
	if o.values != nil {
		return o.values.SetValue(key, &valueEntry[T]{v: v, gens: gens}, len(b), ttl)
	}
	return o.store.Set(ctx, key, b, ttl)
}

// fail records a Store failure and logs it, at most once a minute.
func (o *Of[T]) fail(err error, doing string) {
	if errors.Is(err, ErrBadKey) {
		return
	}
	o.failures.Add(1)
	now := time.Now().UnixNano()
	last := o.lastLog.Load()
	if now-last < int64(time.Minute) || !o.lastLog.CompareAndSwap(last, now) {
		return
	}
	o.set.Logger.Warn("cache: the store failed; values are computed without it (logged at most once a minute)",
		"doing", doing, "err", err, "failures", o.failures.Load())
}

// entryVersion starts every entry an Of writes in a byte Store: the format
// is the version, a uvarint count of tags, one uvarint generation per tag,
// then the codec's bytes.
const entryVersion = 0xc1

func appendEntry(b []byte, gens []int64) ([]byte, error) {
	b = append(b, entryVersion)
	b = binary.AppendUvarint(b, uint64(len(gens)))
	for _, g := range gens {
		b = binary.AppendUvarint(b, uint64(g))
	}
	return b, nil
}

// parseEntry returns the payload and the recorded generations of an entry
// with ntags tags; ok is false for anything else.
func parseEntry(b []byte, ntags int) (payload []byte, gens []int64, ok bool) {
	if len(b) < 2 || b[0] != entryVersion {
		return nil, nil, false
	}
	n, w := binary.Uvarint(b[1:])
	if w <= 0 || n != uint64(ntags) {
		return nil, nil, false
	}
	b = b[1+w:]
	if ntags > 0 {
		gens = make([]int64, ntags)
		for i := range gens {
			g, w := binary.Uvarint(b)
			if w <= 0 {
				return nil, nil, false
			}
			gens[i], b = int64(g), b[w:]
		}
	}
	return b, gens, true
}

// Invalidate makes every entry tagged with one of tags a miss, in O(1) per
// tag: it increments the tags' generations in store (Store.Incr).
func Invalidate(ctx context.Context, store Store, tags ...string) error {
	for _, t := range tags {
		if _, err := store.Incr(ctx, t); err != nil {
			return fmt.Errorf("cache: invalidating tag %q: %w", t, err)
		}
	}
	return nil
}

// Package ottercache is a cache.Store in the process on otter v2
// (github.com/maypok86/otter/v2): W-TinyLFU admission and eviction, which
// keeps a better hit ratio than LRU when a scan or a flood of one-off keys
// passes through, and lock-free reads. Like cache.MemoryStore it is a
// cache.ValueStore (an Of[T] hit costs no decoding) and a cache.Locker (in
// this process).
//
// The module is github.com/plinth-go/plinth/cache/ottercache; the package is
// named ottercache so that it does not shadow otter.
package ottercache

import (
	"context"
	"errors"
	"time"

	"github.com/maypok86/otter/v2"
	"github.com/plinth-go/plinth/cache"
)

// Config configures New. The zero value means the defaults.
type Config struct {
	// MaxEntries bounds the number of entries. Default
	// cache.DefaultMaxEntries (100,000). Ignored when MaxBytes is set:
	// otter bounds one or the other.
	MaxEntries int

	// MaxBytes, when set, bounds the bytes kept instead (each entry
	// weighs its key, its value and 64 bytes, as in cache.MemoryStore).
	MaxBytes int64
}

// noExpiry stands for "no TTL": otter wants a duration.
const noExpiry = 100 * 365 * 24 * time.Hour

type item struct {
	b       []byte
	v       any
	isValue bool
	ttl     time.Duration
	weight  uint32
}

// Store is a cache.Store on an otter cache.
type Store struct {
	c *otter.Cache[string, *item]
	cache.Generations
	cache.Locks
}

var (
	_ cache.ValueStore = (*Store)(nil)
	_ cache.Locker     = (*Store)(nil)
)

// New returns a Store.
func New(cfg Config) (*Store, error) {
	o := cfg
	opts := &otter.Options[string, *item]{
		ExpiryCalculator: otter.ExpiryWritingFunc(func(e otter.Entry[string, *item]) time.Duration {
			return e.Value.ttl
		}),
	}
	switch {
	case o.MaxBytes > 0:
		opts.MaximumWeight = uint64(o.MaxBytes)
		opts.Weigher = func(_ string, it *item) uint32 { return it.weight }
	case o.MaxEntries > 0:
		opts.MaximumSize = o.MaxEntries
	default:
		opts.MaximumSize = cache.DefaultMaxEntries
	}
	c, err := otter.New(opts)
	if err != nil {
		return nil, errors.New("ottercache: " + err.Error())
	}
	return &Store{c: c}, nil
}

func newItem(key string, size int, ttl time.Duration) *item {
	if ttl <= 0 {
		ttl = noExpiry
	}
	w := uint64(len(key)+size) + 64
	return &item{ttl: ttl, weight: uint32(min(w, 1<<32-1))}
}

// Get implements cache.Store; the slice is the store's own: it must not be
// modified.
func (s *Store) Get(_ context.Context, key string) ([]byte, bool, error) {
	if err := cache.CheckKey(key); err != nil {
		return nil, false, err
	}
	it, ok := s.c.GetIfPresent(key)
	if !ok || it.isValue {
		return nil, false, nil
	}
	return it.b, true, nil
}

// Set implements cache.Store; it copies value.
func (s *Store) Set(_ context.Context, key string, value []byte, ttl time.Duration) error {
	if err := cache.CheckKey(key); err != nil {
		return err
	}
	it := newItem(key, len(value), ttl)
	it.b = append([]byte(nil), value...)
	s.c.Set(key, it)
	return nil
}

// Delete implements cache.Store.
func (s *Store) Delete(_ context.Context, key string) error {
	if err := cache.CheckKey(key); err != nil {
		return err
	}
	s.c.Invalidate(key)
	return nil
}

// GetValue implements cache.ValueStore.
func (s *Store) GetValue(key string) (any, bool) {
	it, ok := s.c.GetIfPresent(key)
	if !ok || !it.isValue {
		return nil, false
	}
	return it.v, true
}

// SetValue implements cache.ValueStore.
func (s *Store) SetValue(key string, v any, size int, ttl time.Duration) error {
	if err := cache.CheckKey(key); err != nil {
		return err
	}
	it := newItem(key, size, ttl)
	it.v, it.isValue = v, true
	s.c.Set(key, it)
	return nil
}

// Len returns otter's estimate of the number of entries.
func (s *Store) Len() int { return s.c.EstimatedSize() }

// Close stops otter's goroutines.
func (s *Store) Close() error {
	s.c.StopAllGoroutines()
	return nil
}

// Open is the cache.Opener for "otter:" URLs (no parameters):
//
//	cache.Open(cache.OpenConfig{Openers: ottercache.Openers()})
func Open(string) (cache.Store, error) { return New(Config{}) }

// Openers returns Open as the opener of the "otter" scheme, for
// cache.OpenConfig.Openers.
func Openers() map[string]cache.Opener {
	return map[string]cache.Opener{"otter": Open}
}

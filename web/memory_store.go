package web

import (
	"context"
	"sync"
	"time"
)

// DefaultMemoryStoreMaxSessions bounds a MemoryStore whose MaxSessions is
// 0: ten thousand sessions of a few hundred bytes each is a few megabytes.
const DefaultMemoryStoreMaxSessions = 10_000

// MemoryStoreConfig configures NewMemoryStore.
type MemoryStoreConfig struct {
	// MaxSessions bounds the sessions held; 0 means
	// DefaultMemoryStoreMaxSessions. A Save that would pass it first drops
	// the expired sessions and then, if still full, the session closest to
	// its expiry, so that a flood of new sessions cannot grow memory without
	// bound.
	MaxSessions int

	// Clock returns the current time; nil means time.Now.
	Clock func() time.Time
}

// MemoryStore keeps sessions in the process's memory: the default store,
// for development and for a single instance that can afford to sign
// everyone out when it restarts. Sessions are not shared between instances
// and are lost on restart; use the Redis or PostgreSQL store (or the cookie
// store) for more. Load allocates nothing; Save copies the data once.
type MemoryStore struct {
	mu  sync.Mutex
	m   map[string]memorySession
	max int
	now func() time.Time
}

type memorySession struct {
	data   []byte // never modified once stored: Load hands it out
	expiry int64  // Unix nanoseconds
}

// NewMemoryStore returns an empty MemoryStore. It panics on a negative
// MaxSessions.
func NewMemoryStore(cfg MemoryStoreConfig) *MemoryStore {
	if cfg.MaxSessions < 0 {
		panic("web: MemoryStoreConfig.MaxSessions must not be negative")
	}
	if cfg.MaxSessions == 0 {
		cfg.MaxSessions = DefaultMemoryStoreMaxSessions
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	return &MemoryStore{m: make(map[string]memorySession), max: cfg.MaxSessions, now: cfg.Clock}
}

// Load returns the data saved under id, nil when none or expired. The slice
// is the store's own: callers must not modify it.
func (s *MemoryStore) Load(_ context.Context, id string) ([]byte, error) {
	now := s.now().UnixNano()
	s.mu.Lock()
	e, ok := s.m[id]
	if ok && e.expiry <= now {
		delete(s.m, id)
		ok = false
	}
	s.mu.Unlock()
	if !ok {
		return nil, nil
	}
	return e.data, nil
}

// Save copies data and keeps it under id until expiry.
func (s *MemoryStore) Save(_ context.Context, id string, data []byte, expiry time.Time) error {
	now := s.now().UnixNano()
	exp := expiry.UnixNano()
	s.mu.Lock()
	defer s.mu.Unlock()
	if exp <= now {
		delete(s.m, id)
		return nil
	}
	if _, exists := s.m[id]; !exists && len(s.m) >= s.max {
		s.makeRoom(now)
	}
	s.m[id] = memorySession{data: append([]byte(nil), data...), expiry: exp}
	return nil
}

// makeRoom drops the expired sessions and, if the store is still full, the
// one that would expire first.
func (s *MemoryStore) makeRoom(now int64) {
	for id, e := range s.m {
		if e.expiry <= now {
			delete(s.m, id)
		}
	}
	if len(s.m) < s.max {
		return
	}
	var victim string
	first := int64(1<<63 - 1)
	for id, e := range s.m {
		if e.expiry < first {
			victim, first = id, e.expiry
		}
	}
	delete(s.m, victim)
}

// Delete removes the session under id.
func (s *MemoryStore) Delete(_ context.Context, id string) error {
	s.mu.Lock()
	delete(s.m, id)
	s.mu.Unlock()
	return nil
}

// Ping always succeeds: the memory is there.
func (s *MemoryStore) Ping(context.Context) error { return nil }

// Len returns the number of sessions held, expired ones not yet dropped
// included.
func (s *MemoryStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

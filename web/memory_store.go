package web

import (
	"context"
	"strconv"
	"sync"
	"time"
)

// DefaultMemoryStoreMaxSessions bounds a MemoryStore whose MaxSessions is
// 0: ten thousand sessions of a few hundred bytes each is a few megabytes.
const DefaultMemoryStoreMaxSessions = 10_000

// MemoryStoreConfig configures NewMemoryStore.
type MemoryStoreConfig struct {
	// MaxSessions bounds the sessions held; 0 means
	// DefaultMemoryStoreMaxSessions. A Create that would pass it evicts one
	// session first, so that a flood of new sessions cannot grow memory
	// without bound, and it never evicts a renewed session (one created by
	// Session.Renew: a sign-in) while it holds another: see MemoryStore.
	MaxSessions int

	// Clock returns the current time; nil means time.Now.
	Clock func() time.Time
}

// MemoryStore keeps sessions in the process's memory: the default store,
// for development and for a single instance that can afford to sign
// everyone out when it restarts. Sessions are not shared between instances
// and are lost on restart; use the Redis or PostgreSQL store (or the cookie
// store) for more. Load allocates nothing; Create and Update copy the data
// once.
//
// When it is full (MaxSessions), a Create evicts one session, in this
// order: an expired one found at the front of the queues, else the least
// recently used of the sessions that were never renewed (anonymous
// visitors: a cart, a flash, a form's state), else, only when every session
// it holds was renewed, the least recently used renewed one. A renewed
// session is one created by Session.Renew, which Auth.Login calls: so a
// flood of anonymous requests, each creating a session, evicts other
// anonymous sessions and never signs a user out. Each Create, Update, Load
// and Delete does a constant amount of work (two queues in use order, with
// expired sessions dropped as they are met), never a scan of the store.
type MemoryStore struct {
	mu     sync.Mutex
	m      map[string]*memorySession
	queues [2]memoryQueue // memAnonymous, memRenewed: least recently used first
	max    int
	now    func() time.Time
	work   int // sessions looked at to make room, for TestMemoryStoreConstantWork
}

// The queues of a MemoryStore.
const (
	memAnonymous = 0 // never renewed: evicted first
	memRenewed   = 1 // created by Session.Renew: evicted only when nothing else is left
)

type memorySession struct {
	id         string
	data       []byte // never modified once stored: Load hands it out
	expiry     int64  // Unix nanoseconds
	queue      uint8
	prev, next *memorySession // in queues[queue]
}

// memoryQueue is a doubly linked list of sessions, least recently used at
// the front.
type memoryQueue struct {
	front, back *memorySession
}

func (q *memoryQueue) pushBack(e *memorySession) {
	e.prev, e.next = q.back, nil
	if q.back != nil {
		q.back.next = e
	} else {
		q.front = e
	}
	q.back = e
}

func (q *memoryQueue) remove(e *memorySession) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		q.front = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		q.back = e.prev
	}
	e.prev, e.next = nil, nil
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
	return &MemoryStore{m: make(map[string]*memorySession), max: cfg.MaxSessions, now: cfg.Clock}
}

// String describes the store for the sessions' start-up log line.
func (s *MemoryStore) String() string { return "memory max_sessions=" + strconv.Itoa(s.max) }

// local marks the MemoryStore as a store whose calls never wait on I/O:
// the sessions give its calls no deadline (SessionsConfig.StoreTimeout),
// which would cost a timer per call for nothing.
func (s *MemoryStore) local() {}

// drop removes e from the store. s.mu is held.
func (s *MemoryStore) drop(e *memorySession) {
	s.queues[e.queue].remove(e)
	delete(s.m, e.id)
}

// use moves e to the back of its queue: the most recently used. s.mu is
// held.
func (s *MemoryStore) use(e *memorySession) {
	q := &s.queues[e.queue]
	if q.back != e {
		q.remove(e)
		q.pushBack(e)
	}
}

// Load returns the data saved under id, nil when none or expired. The slice
// is the store's own: callers must not modify it.
func (s *MemoryStore) Load(_ context.Context, id string) ([]byte, error) {
	now := s.now().UnixNano()
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.m[id]
	if !ok {
		return nil, nil
	}
	if e.expiry <= now {
		s.drop(e)
		return nil, nil
	}
	s.use(e)
	return e.data, nil
}

// Create copies data and keeps it under id until expiry, evicting one
// session first when the store is full (see MemoryStore). It returns
// ErrSessionExists when id holds an unexpired session.
func (s *MemoryStore) Create(ctx context.Context, id string, data []byte, expiry time.Time) error {
	now := s.now().UnixNano()
	exp := expiry.UnixNano()
	queue := uint8(memAnonymous)
	if isRenewed(ctx) {
		queue = memRenewed
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.m[id]; ok {
		if e.expiry > now {
			return ErrSessionExists
		}
		s.drop(e)
	}
	if exp <= now {
		return nil
	}
	if len(s.m) >= s.max {
		s.makeRoom(now)
	}
	e := &memorySession{id: id, data: append([]byte(nil), data...), expiry: exp, queue: queue}
	s.m[id] = e
	s.queues[queue].pushBack(e)
	return nil
}

// makeRoom drops one session, and the expired ones met at the front of the
// queues on the way, looking at a bounded number of sessions. s.mu is held.
func (s *MemoryStore) makeRoom(now int64) {
	// Expired sessions at the front of either queue go first: at most two
	// per queue per call, so that the work stays constant (the others go
	// when they reach the front, or when Load meets them).
	freed := false
	for i := range s.queues {
		q := &s.queues[i]
		for range 2 {
			e := q.front
			if e == nil || e.expiry > now {
				break
			}
			s.work++
			s.drop(e)
			freed = true
		}
	}
	if freed && len(s.m) < s.max {
		return
	}
	for i := range s.queues {
		if e := s.queues[i].front; e != nil {
			s.work++
			s.drop(e)
			return
		}
	}
}

// Update replaces the data and expiry under id if id holds an unexpired
// session, and reports whether it did; it never creates one.
func (s *MemoryStore) Update(_ context.Context, id string, data []byte, expiry time.Time) (bool, error) {
	now := s.now().UnixNano()
	exp := expiry.UnixNano()
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.m[id]
	if !ok {
		return false, nil
	}
	if e.expiry <= now {
		s.drop(e)
		return false, nil
	}
	if exp <= now {
		s.drop(e)
		return true, nil
	}
	e.data = append([]byte(nil), data...) // a new slice: a Load may hold the old one
	e.expiry = exp
	s.use(e)
	return true, nil
}

// Delete removes the session under id.
func (s *MemoryStore) Delete(_ context.Context, id string) error {
	s.mu.Lock()
	if e, ok := s.m[id]; ok {
		s.drop(e)
	}
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

package cache

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"time"
)

// MaxKeyLen is the longest key, in bytes, a Store or an Of accepts.
const MaxKeyLen = 1024

// ErrBadKey is the error (wrapped, with the reason) for a key that is empty,
// longer than MaxKeyLen or holds a control character (below 0x20, or 0x7f):
// a key taken from a request cannot grow the store without bound or smuggle
// a separator into a backend's protocol.
var ErrBadKey = errors.New("cache: bad key")

// ErrClosed is returned by a MemoryStore used after Close.
var ErrClosed = errors.New("cache: store closed")

// CheckKey returns nil for a valid key, else an error wrapping ErrBadKey
// that says why. Stores call it on every key they are given.
func CheckKey(key string) error {
	if key == "" {
		return badKey("empty")
	}
	if len(key) > MaxKeyLen {
		return badKey(strconv.Itoa(len(key)) + " bytes, over " + strconv.Itoa(MaxKeyLen))
	}
	// Eight bytes at a time (a hit checks its key: this is on the hot
	// path): a word has a byte below 0x20 when (x - 0x20 in each byte) &^ x
	// has a top bit set, and a 0x7f byte when x ^ 0x7f.. has a zero byte.
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(key); i += 8 {
		x := uint64(key[i]) | uint64(key[i+1])<<8 | uint64(key[i+2])<<16 | uint64(key[i+3])<<24 |
			uint64(key[i+4])<<32 | uint64(key[i+5])<<40 | uint64(key[i+6])<<48 | uint64(key[i+7])<<56
		d := x ^ (0x7f * ones)
		if ((x-0x20*ones)&^x|(d-ones)&^d)&highs != 0 {
			break
		}
	}
	for ; i < len(key); i++ {
		if c := key[i]; c < 0x20 || c == 0x7f {
			return badKey("control character " + strconv.QuoteRune(rune(c)) + " at byte " + strconv.Itoa(i))
		}
	}
	return nil
}

func badKey(why string) error { return &keyError{why} }

type keyError struct{ why string }

func (e *keyError) Error() string { return "cache: bad key: " + e.why }
func (e *keyError) Unwrap() error { return ErrBadKey }

// Store keeps byte values under string keys with a time-to-live, and named
// counters (the generations of tags). Implementations are safe for
// concurrent use and check every key with CheckKey.
//
// Values are immutable once stored: Get may return the store's own slice,
// which the caller must not modify, and Set keeps no reference to value
// after it returns (it copies, or sends it).
type Store interface {
	// Get returns the value stored under key, and whether there was one
	// (missing and expired are the same: false).
	Get(ctx context.Context, key string) (value []byte, ok bool, err error)

	// Set stores value under key for ttl; ttl <= 0 keeps it until it is
	// evicted or deleted.
	Set(ctx context.Context, key string, value []byte, ttl time.Duration) error

	// Delete removes key; a missing key is not an error.
	Delete(ctx context.Context, key string) error

	// Incr adds one to the counter name, which starts at 0, and returns
	// its new value. Counters live apart from entries (a counter and an
	// entry may share a name) and never expire. A tag's generation must
	// never go back to a value it had: a store that evicts counters to
	// stay within its bounds (MemoryStore) brings an evicted one back above
	// every value it had, so that the entries written with it stay
	// misses; Incr then returns more than the count of its calls.
	Incr(ctx context.Context, name string) (int64, error)

	// Counters reads the counters names into dst (len(dst) == len(names));
	// a counter never incremented is 0 (on MemoryStore, its floor: 0 until a
	// counter is evicted).
	Counters(ctx context.Context, names []string, dst []int64) error

	// Close releases the store's resources (connections, the clock of
	// MemoryStore). A store is not used after Close.
	Close() error
}

// Pinger is a Store that can tell whether its backend answers; Check uses
// it. A Store that is not a Pinger is always healthy (MemoryStore).
type Pinger interface {
	Ping(ctx context.Context) error
}

// Locker is a Store that can hold short locks visible to every process that
// shares it: what Of uses, with Config.Lock, against a stampede across
// instances. Redis implements it with SET NX PX and a token-checked release;
// MemoryStore with a map (one process: for tests and parity).
type Locker interface {
	// TryLock takes the lock key for at most ttl, without waiting. ok
	// reports whether it was taken; release, when ok, gives it back if it
	// is still this holder's (a lock that expired and was taken by another
	// holder is left alone).
	TryLock(ctx context.Context, key string, ttl time.Duration) (release func(), ok bool, err error)
}

// ValueStore is a Store that can keep Go values as they are, without
// encoding: Of[T] uses it so that a hit costs no decoding and no
// allocation. MemoryStore implements it; so does the otter module's store.
// Values kept this way are not visible through Get (a Get of their key is a
// miss), and a byte value is not visible through GetValue.
type ValueStore interface {
	Store

	// GetValue returns the value stored under key with SetValue. It does
	// not check the key: callers check it (Of does, once per call).
	GetValue(key string) (v any, ok bool)

	// SetValue stores v under key for ttl (<= 0: no expiry), counting size
	// bytes against the store's byte bound.
	SetValue(key string, v any, size int, ttl time.Duration) error

	// Generation returns the counter name (the one Incr and Counters
	// use) as a pointer that stays valid for the store's life, so that a
	// reader can load it without a lookup.
	Generation(name string) *atomic.Int64
}

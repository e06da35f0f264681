// Package cache keeps what is expensive to compute: a Store of bytes with
// time-to-live (MemoryStore, a bounded sharded LRU in this package; Redis and
// otter in the modules github.com/plinth-go/plinth/redisstore and
// github.com/plinth-go/plinth/cache/ottercache), and Of[T], a typed view with
// Remember, which computes a missing value once however many requests ask
// for it at the same time.
//
// What Remember guarantees:
//
//   - single flight in the process: concurrent misses of one key run fn
//     once; every waiter gets its result, or leaves when its own context
//     ends;
//   - a computation that hangs does not block its key: fn's context
//     carries a deadline (Config.ComputeTimeout, default 30s), at which every
//     waiter gets an error wrapping context.DeadlineExceeded; a fn that
//     honours its context then returns and frees the key, and one that
//     ignores it runs on as the key's one abandoned computation, which
//     later callers wait for (one timeout at most) instead of starting
//     another;
//   - across instances, opt-in (Config.Lock): the first instance takes a lock in
//     the Store (SET NX PX on Redis), the others poll the Store for the
//     value, with backoff and a bound, and compute it themselves when the
//     bound passes (fail open); the lock's TTL and the wait are cut to the
//     compute timeout;
//   - tags invalidated in O(1): a tag is a counter in the Store (its
//     generation); an entry records the generations of its tags when it is
//     written and is a miss once one of them has moved on. Invalidate
//     increments the counters: no scan, no prefix flush;
//   - a Store that fails (Redis down) never fails the request: Remember
//     computes and returns the value, and logs the failure (at most once a
//     minute per Of); Attach's readiness check reports the cache degraded.
//
// A hit on MemoryStore costs no allocation: Of[T] keeps the T value itself in the
// MemoryStore (the ValueStore capability), so a hit is a map lookup under a
// shard lock and a copy of T.
//
// Keys are at most MaxKeyLen bytes and hold no control characters; others
// are refused with ErrBadKey. The package depends on the standard library
// only.
package cache

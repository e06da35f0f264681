package web

import (
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/middleware"
)

// maxLocks bounds the throttle's table of refused keys.
const maxLocks = 100_000

// loginThrottle counts failed sign-ins in a rate-limit Store and refuses
// attempts for a key while its last failure found the bucket empty.
type loginThrottle struct {
	limit middleware.Limit
	store middleware.Store
	field string
	now   func() time.Time

	mu    sync.Mutex
	locks map[string]time.Time // key -> refused until
}

func newLoginThrottle(limit middleware.Limit, store middleware.Store, field string) *loginThrottle {
	if limit == (middleware.Limit{}) {
		limit = middleware.Limit{Rate: 5, Per: time.Minute, Burst: 5}
	}
	if limit.Name == "" {
		limit.Name = "login"
	}
	if limit.Per == 0 {
		limit.Per = time.Second
	}
	if limit.Burst == 0 {
		limit.Burst = limit.Rate
	}
	if limit.Rate < 1 || limit.Burst < 1 {
		panic("web: AuthConfig.LoginLimit needs Rate (and Burst) of at least 1")
	}
	if store == nil {
		store = middleware.NewMemoryStore(middleware.MemoryStoreConfig{})
	}
	return &loginThrottle{limit: limit, store: store, field: field, now: time.Now, locks: map[string]time.Time{}}
}

func (t *loginThrottle) key(c *plinth.Ctx) string {
	account := strings.ToLower(strings.TrimSpace(c.Request().PostFormValue(t.field)))
	return c.ClientIP().String() + "|" + account
}

func (t *loginThrottle) middleware(next plinth.HandlerFunc) plinth.HandlerFunc {
	return func(c *plinth.Ctx) error {
		if c.RawRequest().Method != http.MethodPost {
			return next(c)
		}
		key := t.key(c)
		now := t.now()
		t.mu.Lock()
		until, locked := t.locks[key]
		if locked && !now.Before(until) {
			delete(t.locks, key)
			locked = false
		}
		t.mu.Unlock()
		if locked {
			secs := int64((until.Sub(now) + time.Second - 1) / time.Second)
			c.Header()["Retry-After"] = []string{strconv.FormatInt(max(secs, 1), 10)}
			return plinth.Error(http.StatusTooManyRequests, "too many failed sign-in attempts; try again later")
		}
		err := next(c)
		if signedInKey.Get(c) != nil {
			return err
		}
		res, serr := t.store.Take(c.Context(), key, now, t.limit)
		if serr != nil {
			c.Logger().LogAttrs(c.Context(), slog.LevelWarn, "web: sign-in throttle store failed; the attempt was not counted", slog.Any("error", serr))
			return err
		}
		if !res.Allowed {
			t.lock(key, now.Add(res.RetryAfter), now)
		}
		return err
	}
}

func (t *loginThrottle) lock(key string, until, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.locks) >= maxLocks {
		for k, u := range t.locks {
			if !now.Before(u) {
				delete(t.locks, k)
			}
		}
		if len(t.locks) >= maxLocks {
			return // full of live locks: the store still counts
		}
	}
	t.locks[key] = until
}

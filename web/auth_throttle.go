package web

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/middleware"
)

// loginThrottle counts sign-in attempts in a rate-limit Store: each attempt
// takes a token before the handler checks its password, so that attempts in
// flight at once are counted too (checking first and counting after let
// every attempt in flight through the check), and a successful one gives its
// token back (when the RateLimitStore is a middleware.Refunder).
type loginThrottle struct {
	limit middleware.Limit
	store middleware.RateLimitStore
	field string
	now   func() time.Time
}

func newLoginThrottle(limit middleware.Limit, store middleware.RateLimitStore, field string, now func() time.Time) *loginThrottle {
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
		store = middleware.NewMemoryRateLimitStore(middleware.MemoryRateLimitStoreConfig{})
	}
	if now == nil {
		now = time.Now
	}
	return &loginThrottle{limit: limit, store: store, field: field, now: now}
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
		res, serr := t.store.Take(c.Context(), key, t.now(), t.limit)
		if serr != nil {
			c.Logger().LogAttrs(c.Context(), slog.LevelWarn, "web: sign-in throttle store failed; the attempt was not counted", slog.Any("error", serr))
			return withPasswordBusy(c, next(c))
		}
		if !res.Allowed {
			secs := int64((res.RetryAfter + time.Second - 1) / time.Second)
			c.Header()["Retry-After"] = []string{strconv.FormatInt(max(secs, 1), 10)}
			return plinth.Error(http.StatusTooManyRequests, "too many failed sign-in attempts; try again later")
		}
		err := next(c)
		// A sign-in, or an attempt whose password was never checked
		// (every hashing slot busy), costs nothing.
		if signedInKey.Get(c) != nil || errors.Is(err, ErrPasswordBusy) {
			t.refund(c, key)
		}
		return withPasswordBusy(c, err)
	}
}

// refund gives the attempt's token back, when the store can.
func (t *loginThrottle) refund(c *plinth.Ctx, key string) {
	r, ok := t.store.(middleware.Refunder)
	if !ok {
		return
	}
	// The response may be on its way and the client gone: the refund is
	// owed all the same (the store bounds its own calls).
	ctx := context.WithoutCancel(c.Context())
	if err := r.Refund(ctx, key, t.now(), t.limit); err != nil {
		c.Logger().LogAttrs(ctx, slog.LevelWarn, "web: sign-in throttle store failed; a successful attempt was counted", slog.Any("error", err))
	}
}

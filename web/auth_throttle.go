package web

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/middleware"
)

// loginClientPrefixLen is the prefix an IPv6 client address is keyed by in
// the per-client budget and cap: a subscriber is usually given a whole /64,
// so keying single addresses would hand one client 2^64 budgets (as
// middleware.RateLimiterConfig.IPv6PrefixLen's default).
const loginClientPrefixLen = 64

// loginClientBusyRetry is the Retry-After of an attempt refused because its
// client already has LoginClientConcurrency attempts in flight: they end
// within a few hashes' time, well under a second.
const loginClientBusyRetry = time.Second

// loginThrottle counts sign-in attempts in a rate-limit Store: each attempt
// takes a token before the handler checks its password, so that attempts in
// flight at once are counted too (checking first and counting after let
// every attempt in flight through the check), and a successful one gives its
// token back (when the RateLimitStore is a middleware.Refunder).
//
// An attempt passes three checks, cheapest first, before any password is
// hashed: the client's attempts in flight in this process (inflight, at
// most AuthConfig.LoginClientConcurrency), the client's bucket across all
// accounts (client, AuthConfig.LoginClientLimit), and the bucket of the
// client and account (limit, AuthConfig.LoginLimit). The per-account bucket
// alone let one address that names many accounts fill the hashing queue
// (5 attempts each): others' sign-ins then got 503.
type loginThrottle struct {
	limit    middleware.Limit
	client   middleware.Limit // Rate 0: no per-client budget
	inflight *clientGate      // nil: no per-client cap
	store    middleware.RateLimitStore
	field    string
	now      func() time.Time
}

func newLoginThrottle(limit, client middleware.Limit, concurrency int, store middleware.RateLimitStore, field string, now func() time.Time) *loginThrottle {
	limit = normalizeLoginLimit(limit, middleware.Limit{Rate: 5, Per: time.Minute, Burst: 5}, "login", "LoginLimit")
	if client.Rate < 0 {
		client = middleware.Limit{} // plinth.Off
	} else {
		client = normalizeLoginLimit(client, middleware.Limit{Rate: DefaultLoginClientRate, Per: time.Minute, Burst: DefaultLoginClientRate},
			"login-client", "LoginClientLimit")
	}
	var gate *clientGate
	switch {
	case concurrency == 0:
		gate = newClientGate(DefaultLoginClientConcurrency)
	case concurrency > 0:
		gate = newClientGate(concurrency)
	}
	if store == nil {
		store = middleware.NewMemoryRateLimitStore(middleware.MemoryRateLimitStoreConfig{})
	}
	if now == nil {
		now = time.Now
	}
	return &loginThrottle{limit: limit, client: client, inflight: gate, store: store, field: field, now: now}
}

// normalizeLoginLimit fills in limit's defaults (def for the zero Limit),
// panicking on a Rate or Burst below 1 (field names it).
func normalizeLoginLimit(limit, def middleware.Limit, name, field string) middleware.Limit {
	if limit == (middleware.Limit{}) {
		limit = def
	}
	if limit.Name == "" {
		limit.Name = name
	}
	if limit.Per == 0 {
		limit.Per = time.Second
	}
	if limit.Burst == 0 {
		limit.Burst = limit.Rate
	}
	if limit.Rate < 1 || limit.Burst < 1 {
		panic("web: AuthConfig." + field + " needs Rate (and Burst) of at least 1")
	}
	return limit
}

// clientAddr returns the request's client address (c.ClientIP: the peer,
// or the nearest untrusted hop of the forwarding headers when the peer is a
// trusted proxy), an IPv6 one cut to its /64.
func clientAddr(c *plinth.Ctx) netip.Addr {
	a := c.ClientIP()
	if a.Is6() {
		if p, err := a.WithZone("").Prefix(loginClientPrefixLen); err == nil {
			return p.Addr()
		}
	}
	return a
}

// clientKey is the per-client bucket's key: the address, or the /64 of an
// IPv6 one ("2001:db8:1:2::/64").
func clientKey(a netip.Addr) string {
	if a.Is6() {
		return netip.PrefixFrom(a, loginClientPrefixLen).String()
	}
	return a.String()
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
		addr := clientAddr(c)
		if t.inflight != nil {
			if !t.inflight.enter(addr) {
				return tooManyAttempts(c, loginClientBusyRetry, "too many sign-in attempts at once from this address; try again shortly")
			}
			defer t.inflight.leave(addr)
		}
		var ckey string
		if t.client.Rate > 0 {
			ckey = clientKey(addr)
			res, serr := t.store.Take(c.Context(), ckey, t.now(), t.client)
			if serr != nil {
				c.Logger().LogAttrs(c.Context(), slog.LevelWarn, "web: sign-in throttle store failed; the attempt was not counted", slog.Any("error", serr))
				return withPasswordBusy(c, next(c))
			}
			if !res.Allowed {
				return tooManyAttempts(c, res.RetryAfter, "too many failed sign-in attempts from this address; try again later")
			}
		}
		key := t.key(c)
		res, serr := t.store.Take(c.Context(), key, t.now(), t.limit)
		if serr != nil {
			c.Logger().LogAttrs(c.Context(), slog.LevelWarn, "web: sign-in throttle store failed; the attempt was not counted", slog.Any("error", serr))
			t.refund(c, ckey, t.client)
			return withPasswordBusy(c, next(c))
		}
		if !res.Allowed {
			// No password is checked: the client's budget is not spent.
			t.refund(c, ckey, t.client)
			return tooManyAttempts(c, res.RetryAfter, "too many failed sign-in attempts; try again later")
		}
		err := next(c)
		// A sign-in, or an attempt whose password was never checked
		// (every hashing slot busy), costs nothing.
		if signedInKey.Get(c) != nil || errors.Is(err, ErrPasswordBusy) {
			t.refund(c, key, t.limit)
			t.refund(c, ckey, t.client)
		}
		return withPasswordBusy(c, err)
	}
}

// tooManyAttempts sets Retry-After (retry rounded up to whole seconds, at
// least 1) and returns the 429 problem, which the App's error renderer
// writes.
func tooManyAttempts(c *plinth.Ctx, retry time.Duration, detail string) error {
	secs := int64((retry + time.Second - 1) / time.Second)
	c.Header()["Retry-After"] = []string{strconv.FormatInt(max(secs, 1), 10)}
	return plinth.Error(http.StatusTooManyRequests, detail)
}

// refund gives the attempt's token of key under limit back, when the store
// can; "" is no bucket.
func (t *loginThrottle) refund(c *plinth.Ctx, key string, limit middleware.Limit) {
	if key == "" {
		return
	}
	r, ok := t.store.(middleware.Refunder)
	if !ok {
		return
	}
	// The response may be on its way and the client gone: the refund is
	// owed all the same (the store bounds its own calls).
	ctx := context.WithoutCancel(c.Context())
	if err := r.Refund(ctx, key, t.now(), limit); err != nil {
		c.Logger().LogAttrs(ctx, slog.LevelWarn, "web: sign-in throttle store failed; a successful attempt was counted", slog.Any("error", err))
	}
}

// clientGate counts the attempts in flight per client address in this
// process, refusing one past max. It holds an entry only while its client
// has attempts in flight, so its size is bounded by the requests being
// served, whatever the number of addresses.
type clientGate struct {
	max int
	mu  sync.Mutex
	n   map[netip.Addr]int
}

func newClientGate(max int) *clientGate {
	return &clientGate{max: max, n: make(map[netip.Addr]int)}
}

// enter counts one more attempt of a, reporting false (and counting
// nothing) when a already has max in flight.
func (g *clientGate) enter(a netip.Addr) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.n[a] >= g.max {
		return false
	}
	g.n[a]++
	return true
}

// leave ends an attempt enter counted.
func (g *clientGate) leave(a netip.Addr) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.n[a] <= 1 {
		delete(g.n, a)
		return
	}
	g.n[a]--
}

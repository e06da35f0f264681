package cache

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/internal/envconf"
)

// EnvURL is the environment variable that names the Store: "memory:" (the
// default), "memory:?max_entries=N&max_bytes=N&shards=N", or a URL whose
// scheme an Opener given to Open handles ("redis://host:6379/0" with the
// redisstore module).
const EnvURL = "PLINTH_CACHE_URL"

// DefaultURL is the Store used when neither Config.URL nor PLINTH_CACHE_URL
// is set: a MemoryStore with the default bounds.
const DefaultURL = "memory:"

// OpenConfig is what Open resolves. Its zero value means PLINTH_CACHE_URL,
// else DefaultURL, with the memory: scheme only.
type OpenConfig struct {
	// URL names the Store. PLINTH_CACHE_URL overrides it (as the core's
	// Config fields are overridden by theirs); when both are empty,
	// DefaultURL.
	URL string
	// Openers open the Stores of other schemes than memory:, by scheme. A
	// backend module provides its own (the redisstore module's
	// redisstore.CacheOpeners() for "redis" and "rediss"); the core cannot
	// import the backend's client, and a registry passed to the call keeps
	// the choice explicit, with no package-level state. Default none.
	Openers map[string]Opener
}

// Opener opens a Store from a URL of a scheme it is registered for in
// OpenConfig.Openers.
type Opener func(rawURL string) (Store, error)

type urlError struct{ msg string }

func (e *urlError) Error() string { return "cache: " + EnvURL + ": " + e.msg }

// Open resolves cfg (and PLINTH_CACHE_URL) to a Store: "memory:" opens a
// MemoryStore; any other scheme goes to its Opener in cfg.Openers, and a
// scheme without one is an error naming the field that adds it.
func Open(cfg OpenConfig) (Store, error) {
	return open(cfg, nil)
}

func open(cfg OpenConfig, lookup func(string) (string, bool)) (Store, error) {
	e := envconf.New(lookup)
	e.String(EnvURL, &cfg.URL)
	if err := e.Err("cache"); err != nil {
		return nil, err
	}
	raw := cfg.URL
	if raw == "" {
		raw = DefaultURL
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, &urlError{"not a URL: " + redactURL(raw)}
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme == "memory" {
		return openMemory(u)
	}
	if o := cfg.Openers[scheme]; o != nil {
		return o(raw)
	}
	if scheme == "" {
		return nil, &urlError{"no scheme in " + redactURL(raw) + " (memory:, redis://...)"}
	}
	msg := "no opener for scheme " + scheme + ":"
	if scheme == "redis" || scheme == "rediss" {
		msg += " set cache.OpenConfig.Openers to redisstore.CacheOpeners() from github.com/plinth-go/plinth/redisstore"
	}
	return nil, &urlError{msg}
}

// redactURL hides a URL's password.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		if i := strings.LastIndex(raw, "@"); i >= 0 {
			return "…" + raw[i:]
		}
		return raw
	}
	return u.Redacted()
}

// ReadinessTimeout bounds the readiness check Attach registers.
const ReadinessTimeout = 2 * time.Second

// Check returns the health check of store: its Ping when it is a Pinger,
// else a check that always passes (MemoryStore).
func Check(store Store) func(ctx context.Context) error {
	p, ok := store.(Pinger)
	if !ok {
		return func(context.Context) error { return nil }
	}
	return func(ctx context.Context) error {
		if err := p.Ping(ctx); err != nil {
			return errors.New("cache store: " + err.Error())
		}
		return nil
	}
}

// Attach wires store into app, before it is built: PLINTH_CACHE_URL is
// declared (App.DeclareEnv); a degraded check named "cache" (Check(store),
// within ReadinessTimeout) reports the cache "degraded" while the store
// does not answer, without failing readiness (App.DegradedCheck): Remember
// computes around a failed store; and an OnStop hook closes the store after
// the drain.
func Attach(app *plinth.App, store Store) {
	app.DeclareEnv(EnvURL)
	app.DegradedCheck("cache", ReadinessTimeout, Check(store))
	app.OnStop(func(context.Context) error { return store.Close() })
}

package web_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/internal/syncbuf"
	"github.com/plinth-go/plinth/web"
)

// countingStore wraps a Store, counting calls and failing on demand.
type countingStore struct {
	web.Store
	loads, saves, deletes atomic.Int64
	fail                  atomic.Bool
}

var errDown = errors.New("store down")

func (s *countingStore) Load(ctx context.Context, id string) ([]byte, error) {
	s.loads.Add(1)
	if s.fail.Load() {
		return nil, errDown
	}
	return s.Store.Load(ctx, id)
}

func (s *countingStore) Create(ctx context.Context, id string, b []byte, exp time.Time) error {
	s.saves.Add(1)
	if s.fail.Load() {
		return errDown
	}
	return s.Store.Create(ctx, id, b, exp)
}

func (s *countingStore) Update(ctx context.Context, id string, b []byte, exp time.Time) (bool, error) {
	s.saves.Add(1)
	if s.fail.Load() {
		return false, errDown
	}
	return s.Store.Update(ctx, id, b, exp)
}

func (s *countingStore) Delete(ctx context.Context, id string) error {
	s.deletes.Add(1)
	if s.fail.Load() {
		return errDown
	}
	return s.Store.Delete(ctx, id)
}

// clock is a settable test clock.
type clock struct{ ns atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.ns.Store(time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC).UnixNano())
	return c
}
func (c *clock) Now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *clock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

type profile struct {
	Name string `json:"name"`
	Tags []string
}

// sessionApp serves routes that use the session in every way the tests need.
func sessionApp(t testing.TB, cfg web.SessionsConfig) (*plinth.App, *web.Sessions) {
	t.Helper()
	s, err := web.NewSessions(cfg)
	if err != nil {
		t.Fatal(err)
	}
	app := plinth.New()
	s.Attach(app)
	app.Get("/none", func(c *plinth.Ctx) error { return c.Text(200, "no session") })
	app.Get("/get", func(c *plinth.Ctx) error {
		sess, err := web.SessionOf(c)
		if err != nil {
			return err
		}
		v, _ := web.Get[string](sess, "name")
		return c.Text(200, v)
	})
	app.Get("/put", func(c *plinth.Ctx) error {
		sess, err := web.SessionOf(c)
		if err != nil {
			return err
		}
		sess.Put("name", c.Query("v"))
		return c.Text(200, "ok")
	})
	app.Get("/typed", func(c *plinth.Ctx) error {
		sess, err := web.SessionOf(c)
		if err != nil {
			return err
		}
		if c.Query("set") != "" {
			sess.Put("n", 42)
			sess.Put("ok", true)
			sess.Put("p", profile{Name: "Ada", Tags: []string{"x"}})
			sess.Put("t", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
			return c.Text(200, "set")
		}
		n, _ := web.Get[int](sess, "n")
		n64, _ := web.Get[int64](sess, "n")
		ok, _ := web.Get[bool](sess, "ok")
		p, _ := web.Get[profile](sess, "p")
		ts, _ := web.Get[time.Time](sess, "t")
		_, wrong := web.Get[string](sess, "n")
		return c.JSON(200, map[string]any{"n": n, "n64": n64, "ok": ok, "p": p, "t": ts, "wrong": wrong})
	})
	app.Get("/renew", func(c *plinth.Ctx) error {
		sess, err := web.SessionOf(c)
		if err != nil {
			return err
		}
		sess.Renew()
		return c.Text(200, "renewed")
	})
	app.Get("/destroy", func(c *plinth.Ctx) error {
		sess, err := web.SessionOf(c)
		if err != nil {
			return err
		}
		sess.Destroy()
		return c.Text(200, "destroyed")
	})
	app.Get("/big", func(c *plinth.Ctx) error {
		sess, err := web.SessionOf(c)
		if err != nil {
			return err
		}
		sess.Put("big", strings.Repeat("x", 5000))
		return c.Text(200, "should not be sent")
	})
	app.Get("/late", func(c *plinth.Ctx) error {
		if err := c.Text(200, "written first"); err != nil {
			return err
		}
		sess, err := web.SessionOf(c)
		if err != nil {
			return err
		}
		sess.Put("name", "late")
		return nil
	})
	app.Get("/fail", func(c *plinth.Ctx) error {
		sess, err := web.SessionOf(c)
		if err != nil {
			return err
		}
		sess.Put("name", "x")
		return errors.New("handler failed")
	})
	return app, s
}

type client struct {
	t      testing.TB
	h      http.Handler
	cookie map[string]string
	tls    bool
}

func newClient(t testing.TB, h http.Handler) *client {
	return &client{t: t, h: h, cookie: map[string]string{}}
}

func (cl *client) do(method, target string, body string, header ...string) *httptest.ResponseRecorder {
	cl.t.Helper()
	var r *http.Request
	if body != "" {
		r = httptest.NewRequest(method, target, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		r = httptest.NewRequest(method, target, nil)
	}
	if !cl.tls {
		r.TLS = nil
	}
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	for k, v := range cl.cookie {
		r.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	w := httptest.NewRecorder()
	cl.h.ServeHTTP(w, r)
	for _, ck := range w.Result().Cookies() {
		if ck.MaxAge < 0 || ck.Value == "" {
			delete(cl.cookie, ck.Name)
		} else {
			cl.cookie[ck.Name] = ck.Value
		}
	}
	return w
}

func (cl *client) get(target string) string {
	cl.t.Helper()
	w := cl.do("GET", target, "")
	if w.Code != 200 {
		cl.t.Fatalf("GET %s: %d %s", target, w.Code, w.Body)
	}
	return w.Body.String()
}

// stores returns a config per kind of store, sharing clk.
func storeConfigs(clk *clock) map[string]func() (web.SessionsConfig, *countingStore) {
	key := make([]byte, 32)
	for i := range key {
		key[i] = byte(i)
	}
	return map[string]func() (web.SessionsConfig, *countingStore){
		"memory": func() (web.SessionsConfig, *countingStore) {
			cs := &countingStore{Store: web.NewMemoryStore(web.MemoryStoreConfig{Clock: clk.Now})}
			return web.SessionsConfig{Store: cs, Clock: clk.Now}, cs
		},
		"cookie": func() (web.SessionsConfig, *countingStore) {
			return web.SessionsConfig{Store: mustCookieStore(key), Clock: clk.Now}, nil
		},
	}
}

func TestSessionRoundTrip(t *testing.T) {
	clk := newClock()
	for name, mk := range storeConfigs(clk) {
		t.Run(name, func(t *testing.T) {
			cfg, _ := mk()
			app, _ := sessionApp(t, cfg)
			cl := newClient(t, app)
			if got := cl.get("/get"); got != "" {
				t.Fatalf("new session holds %q", got)
			}
			if len(cl.cookie) != 0 {
				t.Fatalf("reading an empty session set a cookie: %v", cl.cookie)
			}
			cl.get("/put?v=ada")
			if got := cl.get("/get"); got != "ada" {
				t.Fatalf("got %q, want ada", got)
			}
			cl.get("/typed?set=1")
			body := cl.get("/typed")
			for _, want := range []string{`"n":42`, `"n64":42`, `"ok":true`, `"name":"Ada"`, `"Tags":["x"]`, `"t":"2026-01-02T03:04:05Z"`, `"wrong":false`} {
				if !strings.Contains(body, want) {
					t.Errorf("typed values %s lack %s", body, want)
				}
			}
			if got := cl.get("/get"); got != "ada" {
				t.Fatalf("after other puts got %q", got)
			}
		})
	}
}

func TestSessionCookieAttributes(t *testing.T) {
	app, _ := sessionApp(t, web.SessionsConfig{})
	w := newClient(t, app).do("GET", "/put?v=x", "")
	sc := w.Header().Get("Set-Cookie")
	for _, want := range []string{"session=", "Path=/", "HttpOnly", "SameSite=Lax", "Max-Age=86400"} {
		if !strings.Contains(sc, want) {
			t.Errorf("Set-Cookie %q lacks %q", sc, want)
		}
	}
	if strings.Contains(sc, "Secure") || strings.HasPrefix(sc, "__Host-") {
		t.Errorf("plain HTTP cookie %q is marked secure", sc)
	}
	if w.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control %q, want no-store on a response setting the session cookie", w.Header().Get("Cache-Control"))
	}
	// A page that read the session (sign-in state, a flash) is not cached;
	// one that did not is left alone.
	reader := newClient(t, app)
	reader.get("/put?v=x")
	w = reader.do("GET", "/get", "")
	if w.Header().Get("Cache-Control") != "no-store" || w.Header().Get("Vary") != "Cookie" {
		t.Errorf("session page: Cache-Control %q, Vary %q; want no-store and Cookie", w.Header().Get("Cache-Control"), w.Header().Get("Vary"))
	}
	w = reader.do("GET", "/none", "")
	if w.Header().Get("Cache-Control") != "" || w.Header().Get("Vary") != "" {
		t.Errorf("page without session use: Cache-Control %q, Vary %q", w.Header().Get("Cache-Control"), w.Header().Get("Vary"))
	}
	r := httptest.NewRequest("GET", "https://example.com/put?v=x", nil)
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, r)
	sc = rec.Header().Get("Set-Cookie")
	if !strings.HasPrefix(sc, "__Host-session=") || !strings.Contains(sc, "; Secure") || strings.Contains(sc, "Domain") {
		t.Errorf("secure request's cookie %q: want __Host- prefix, Secure, no Domain", sc)
	}
	// The __Host- cookie is read back on secure requests.
	r = httptest.NewRequest("GET", "https://example.com/get", nil)
	r.Header.Set("Cookie", strings.Split(sc, ";")[0])
	rec = httptest.NewRecorder()
	app.ServeHTTP(rec, r)
	if rec.Body.String() != "x" {
		t.Errorf("secure read got %q", rec.Body)
	}
}

// TestSessionBadCookies: forged, truncated, tampered, replayed and expired
// cookies are a fresh empty session, never an error page.
func TestSessionBadCookies(t *testing.T) {
	clk := newClock()
	for name, mk := range storeConfigs(clk) {
		t.Run(name, func(t *testing.T) {
			cfg, _ := mk()
			app, _ := sessionApp(t, cfg)
			cl := newClient(t, app)
			cl.get("/put?v=ada")
			good := cl.cookie["session"]
			if good == "" {
				t.Fatal("no session cookie")
			}
			flip := []byte(good)
			flip[len(flip)/2] ^= 1
			if flip[len(flip)/2] == good[len(good)/2] {
				t.Fatal("no change")
			}
			cases := map[string]string{
				"forged":    strings.Repeat("A", 43),
				"random":    "not-a-session",
				"truncated": good[:len(good)-5],
				"tampered":  string(flip),
				"empty":     "",
				"huge":      strings.Repeat("A", 5000),
				"quoted":    `"` + strings.Repeat("B", 43) + `"`,
				"binary":    "\x00\x01\x02",
			}
			for cname, v := range cases {
				bad := newClient(t, app)
				bad.cookie["session"] = v
				w := bad.do("GET", "/get", "")
				if w.Code != 200 || w.Body.String() != "" {
					t.Errorf("%s cookie: %d %q, want 200 and an empty session", cname, w.Code, w.Body)
				}
			}
			// Expired: idle timeout, then the absolute lifetime.
			clk.Advance(web.DefaultIdleTimeout + time.Second)
			if got := cl.get("/get"); got != "" {
				t.Errorf("idle-expired session still holds %q", got)
			}
			cl.cookie = map[string]string{}
			cl.get("/put?v=ada")
			for range 13 { // 13 x 1h59m > 24h, each within the idle timeout
				clk.Advance(DefaultIdleMinus())
				cl.get("/get")
			}
			if got := cl.get("/get"); got != "" {
				t.Errorf("session past its lifetime still holds %q", got)
			}
		})
	}
}

func DefaultIdleMinus() time.Duration { return web.DefaultIdleTimeout - time.Minute }

func TestSessionReplayAfterDestroy(t *testing.T) {
	clk := newClock()
	cfg, store := storeConfigs(clk)["memory"]()
	app, _ := sessionApp(t, cfg)
	cl := newClient(t, app)
	cl.get("/put?v=ada")
	old := cl.cookie["session"]
	w := cl.do("GET", "/destroy", "")
	if sc := w.Header().Get("Set-Cookie"); !strings.Contains(sc, "Max-Age=0") {
		t.Errorf("Destroy's Set-Cookie %q does not expire the cookie", sc)
	}
	if store.deletes.Load() == 0 {
		t.Error("Destroy did not delete the stored session")
	}
	replay := newClient(t, app)
	replay.cookie["session"] = old
	if got := replay.get("/get"); got != "" {
		t.Errorf("replayed cookie after Destroy reads %q", got)
	}
}

// TestSessionFixation: Renew gives a new ID with the same values; the
// planted one no longer exists.
func TestSessionFixation(t *testing.T) {
	clk := newClock()
	cfg, _ := storeConfigs(clk)["memory"]()
	app, _ := sessionApp(t, cfg)
	cl := newClient(t, app)
	cl.get("/put?v=ada")
	planted := cl.cookie["session"]
	cl.get("/renew")
	if cl.cookie["session"] == planted || cl.cookie["session"] == "" {
		t.Fatalf("Renew kept the ID")
	}
	if got := cl.get("/get"); got != "ada" {
		t.Errorf("renewed session holds %q, want ada", got)
	}
	attacker := newClient(t, app)
	attacker.cookie["session"] = planted
	if got := attacker.get("/get"); got != "" {
		t.Errorf("the planted ID still reads %q", got)
	}
}

func TestCookieStoreKeyRotation(t *testing.T) {
	clk := newClock()
	keyA, keyB := make([]byte, 32), make([]byte, 32)
	for i := range keyA {
		keyA[i], keyB[i] = byte(i), byte(100+i)
	}
	mk := func(keys ...[]byte) *plinth.App {
		app, _ := sessionApp(t, web.SessionsConfig{Store: mustCookieStore(keys...), Clock: clk.Now})
		return app
	}
	oldApp, rotated, newOnly := mk(keyA), mk(keyB, keyA), mk(keyB)
	cl := newClient(t, oldApp)
	cl.get("/put?v=ada")
	sealedA := cl.cookie["session"]
	cl.h = rotated
	if got := cl.get("/get"); got != "ada" {
		t.Fatalf("rotated keys do not open the old cookie: %q", got)
	}
	cl.get("/put?v=bob") // re-sealed with B
	if cl.cookie["session"] == sealedA {
		t.Fatal("not re-sealed")
	}
	cl.h = newOnly
	if got := cl.get("/get"); got != "bob" {
		t.Fatalf("B-only does not open a B cookie: %q", got)
	}
	old := newClient(t, newOnly)
	old.cookie["session"] = sealedA
	if got := old.get("/get"); got != "" {
		t.Fatalf("a retired key still opens: %q", got)
	}
}

// mustCookieStore returns a CookieStore with keys (a test's own, valid).
func mustCookieStore(keys ...[]byte) *web.CookieStore {
	s, err := web.NewCookieStore(web.CookieStoreConfig{Keys: keys})
	if err != nil {
		panic(err)
	}
	return s
}

// Keys are data (the environment, a secret store): a bad one is an error
// naming the field, never a panic.
func TestNewCookieStoreBadKeys(t *testing.T) {
	for name, tc := range map[string]struct {
		keys [][]byte
		want string
	}{
		"none":   {nil, "CookieStoreConfig.Keys is empty"},
		"short":  {[][]byte{make([]byte, 16)}, "CookieStoreConfig.Keys[0]: want 32 bytes, got 16"},
		"second": {[][]byte{make([]byte, 32), make([]byte, 33)}, "CookieStoreConfig.Keys[1]: want 32 bytes, got 33"},
	} {
		s, err := web.NewCookieStore(web.CookieStoreConfig{Keys: tc.keys})
		if s != nil || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, %v; want nil and an error containing %q", name, s, err, tc.want)
		}
	}
}

func TestCookieStoreTooLarge(t *testing.T) {
	key := make([]byte, 32)
	app, _ := sessionApp(t, web.SessionsConfig{Store: mustCookieStore(key)})
	w := newClient(t, app).do("GET", "/big", "")
	if w.Code != 500 || w.Header().Get("Set-Cookie") != "" || strings.Contains(w.Body.String(), "should not be sent") {
		t.Fatalf("oversized cookie session: %d %q %q", w.Code, w.Header().Get("Set-Cookie"), w.Body)
	}
}

func TestSessionStoreDown(t *testing.T) {
	clk := newClock()
	cfg, store := storeConfigs(clk)["memory"]()
	cfg.StoreTimeout = 100 * time.Millisecond // a store down for longer than that: 503 (session_retry_test.go: shorter outages)
	app, _ := sessionApp(t, cfg)
	cl := newClient(t, app)
	cl.get("/put?v=ada")
	store.fail.Store(true)
	w := cl.do("GET", "/get", "")
	if w.Code != 503 || !strings.Contains(w.Body.String(), "session store is unavailable") {
		t.Errorf("load with the store down: %d %s", w.Code, w.Body)
	}
	store.fail.Store(false)
	cl2 := newClient(t, app)
	store.fail.Store(true)
	w = cl2.do("GET", "/put?v=x", "") // loads nothing (no cookie), fails at save
	if w.Code != 503 || strings.Contains(w.Body.String(), "ok") || w.Header().Get("Set-Cookie") != "" {
		t.Errorf("save with the store down: %d %q cookie %q", w.Code, w.Body, w.Header().Get("Set-Cookie"))
	}
	store.fail.Store(false)
	if err := app.Ready(context.Background()); err != nil {
		t.Errorf("ready: %v", err)
	}
}

func TestSessionSavedWhenHandlerFails(t *testing.T) {
	clk := newClock()
	cfg, _ := storeConfigs(clk)["memory"]()
	app, _ := sessionApp(t, cfg)
	cl := newClient(t, app)
	w := cl.do("GET", "/fail", "")
	if w.Code != 500 || cl.cookie["session"] == "" {
		t.Fatalf("failing handler: %d, cookie %v", w.Code, cl.cookie)
	}
	if got := cl.get("/get"); got != "x" {
		t.Errorf("the failed request's session holds %q", got)
	}
}

func TestSessionChangedAfterResponse(t *testing.T) {
	clk := newClock()
	cfg, store := storeConfigs(clk)["memory"]()
	app, _ := sessionApp(t, cfg)
	cl := newClient(t, app)
	w := cl.do("GET", "/late", "")
	if w.Code != 200 || w.Body.String() != "written first" || store.saves.Load() != 0 {
		t.Errorf("late change: %d %q saves %d", w.Code, w.Body, store.saves.Load())
	}
}

// TestSessionTouch: reads do not write, except to move the idle deadline
// once per IdleTimeout/20.
func TestSessionTouch(t *testing.T) {
	clk := newClock()
	cfg, store := storeConfigs(clk)["memory"]()
	app, _ := sessionApp(t, cfg)
	cl := newClient(t, app)
	cl.get("/put?v=ada")
	saves := store.saves.Load()
	for range 10 {
		cl.get("/get")
	}
	if n := store.saves.Load() - saves; n != 0 {
		t.Fatalf("10 reads saved %d times", n)
	}
	clk.Advance(web.DefaultIdleTimeout/20 + time.Second)
	cl.get("/get")
	if n := store.saves.Load() - saves; n != 1 {
		t.Fatalf("a read after the touch interval saved %d times, want 1", n)
	}
	// Each touch moves the idle deadline: 3h of reads every 1.5h keep it.
	for range 3 {
		clk.Advance(web.DefaultIdleTimeout * 3 / 4)
		if got := cl.get("/get"); got != "ada" {
			t.Fatalf("touched session lost: %q", got)
		}
	}
}

func TestSessionsConcurrent(t *testing.T) {
	app, _ := sessionApp(t, web.SessionsConfig{})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := newClient(t, app)
			v := strings.Repeat(string(rune('a'+g)), 3)
			for range 50 {
				cl.do("GET", "/put?v="+v, "")
				if w := cl.do("GET", "/get", ""); w.Body.String() != v {
					t.Errorf("client %d read %q", g, w.Body)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestSessionOfWithoutMiddleware(t *testing.T) {
	app := plinth.New()
	app.Get("/", func(c *plinth.Ctx) error {
		_, err := web.SessionOf(c)
		return err
	})
	w := httptest.NewRecorder()
	app.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Code != 500 {
		t.Errorf("SessionOf without the middleware: %d", w.Code)
	}
}

func TestMemoryStoreBounded(t *testing.T) {
	clk := newClock()
	s := web.NewMemoryStore(web.MemoryStoreConfig{MaxSessions: 3, Clock: clk.Now})
	ctx := context.Background()
	for _, id := range []string{"a", "b", "c"} {
		if err := s.Create(ctx, id, []byte(id), clk.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := s.Load(ctx, "a"); string(b) != "a" { // a is now the most recently used
		t.Fatalf("Load(a) = %q", b)
	}
	if err := s.Create(ctx, "d", []byte("d"), clk.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if s.Len() != 3 {
		t.Fatalf("len %d, want 3", s.Len())
	}
	if b, _ := s.Load(ctx, "b"); b != nil {
		t.Error("the least recently used session was not the one dropped")
	}
	for _, id := range []string{"a", "c", "d"} {
		if b, _ := s.Load(ctx, id); string(b) != id {
			t.Errorf("session %s missing", id)
		}
	}
	if err := s.Create(ctx, "c", []byte("again"), clk.Now().Add(time.Hour)); !errors.Is(err, web.ErrSessionExists) {
		t.Errorf("Create over a live session: %v, want ErrSessionExists", err)
	}
	clk.Advance(time.Hour + time.Second)
	if b, _ := s.Load(ctx, "c"); b != nil {
		t.Error("expired session loaded")
	}
	if ok, _ := s.Update(ctx, "d", []byte("x"), clk.Now().Add(time.Hour)); ok {
		t.Error("Update brought an expired session back")
	}
}

// renewApp serves a sign-in that renews the session, as Auth.Login does, and
// anonymous pages that write to theirs, on a MemoryStore of max sessions.
func renewApp(t *testing.T, clk *clock, max int) (*plinth.App, *web.MemoryStore) {
	t.Helper()
	store := web.NewMemoryStore(web.MemoryStoreConfig{MaxSessions: max, Clock: clk.Now})
	app, _ := sessionApp(t, web.SessionsConfig{Store: store, Clock: clk.Now})
	app.Get("/signin", func(c *plinth.Ctx) error {
		sess, err := web.SessionOf(c)
		if err != nil {
			return err
		}
		sess.Renew()
		sess.Put("name", "user:"+c.Query("u"))
		return c.Text(200, "signed in")
	})
	return app, store
}

// TestMemoryStoreFloodKeepsSignedIn: a full memory store flooded with new
// anonymous sessions evicts anonymous ones, never the signed-in user's,
// though the user's is the oldest and closest to its expiry.
func TestMemoryStoreFloodKeepsSignedIn(t *testing.T) {
	clk := newClock()
	const max = 100
	app, store := renewApp(t, clk, max)
	user := newClient(t, app)
	user.get("/signin?u=ada")
	for range max - 1 {
		clk.Advance(time.Second)
		newClient(t, app).get("/put?v=anonymous")
	}
	if store.Len() != max {
		t.Fatalf("store holds %d, want it full (%d)", store.Len(), max)
	}
	for range 10 * max {
		clk.Advance(time.Second)
		newClient(t, app).get("/put?v=flood")
	}
	if store.Len() != max {
		t.Errorf("store holds %d after the flood, want %d", store.Len(), max)
	}
	if got := user.get("/get"); got != "user:ada" {
		t.Fatalf("after an anonymous flood the signed-in session reads %q: signed out", got)
	}
	// With nothing but signed-in sessions, the least recently used one goes.
	users := make([]*client, max)
	for i := range users {
		clk.Advance(time.Second)
		users[i] = newClient(t, app)
		users[i].get("/signin?u=" + string(rune('a'+i%26)))
	}
	if store.Len() != max {
		t.Errorf("store holds %d, want %d", store.Len(), max)
	}
	if got := user.get("/get"); got != "" {
		t.Errorf("the least recently used signed-in session survived a store full of newer ones: %q", got)
	}
}

// TestSessionReadCreatesNothing: reading a session that does not exist
// (Get, Has, Pop, Keys) writes nothing to the store and sets no cookie;
// the first Put creates it.
func TestSessionReadCreatesNothing(t *testing.T) {
	clk := newClock()
	store := web.NewMemoryStore(web.MemoryStoreConfig{Clock: clk.Now})
	app, _ := sessionApp(t, web.SessionsConfig{Store: store, Clock: clk.Now})
	app.Get("/peek", func(c *plinth.Ctx) error {
		sess, err := web.SessionOf(c)
		if err != nil {
			return err
		}
		_, _ = web.Get[string](sess, "name")
		_ = sess.Has("x")
		_, _ = web.Pop[string](sess, "flash")
		sess.Delete("nothing")
		_ = sess.Keys()
		return c.Text(200, "read")
	})
	for range 50 {
		w := newClient(t, app).do("GET", "/peek", "")
		if w.Code != 200 || w.Header().Get("Set-Cookie") != "" {
			t.Fatalf("read of an absent session: %d, Set-Cookie %q", w.Code, w.Header().Get("Set-Cookie"))
		}
	}
	if store.Len() != 0 {
		t.Fatalf("50 reads of absent sessions created %d store entries", store.Len())
	}
	newClient(t, app).get("/put?v=x")
	if store.Len() != 1 {
		t.Fatalf("a Put created %d store entries, want 1", store.Len())
	}
}

// gateStore is a MemoryStore whose Update waits, once armed, until
// released: a request saving its session is held between its Load and its
// save while another request signs out.
type gateStore struct {
	*web.MemoryStore
	armed   atomic.Bool
	waiting chan struct{}
	release chan struct{}
}

func (s *gateStore) Update(ctx context.Context, id string, b []byte, exp time.Time) (bool, error) {
	if s.armed.CompareAndSwap(true, false) {
		s.waiting <- struct{}{}
		<-s.release
	}
	return s.MemoryStore.Update(ctx, id, b, exp)
}

// TestSessionLogoutNotUndone: a request in flight with a copy of the cookie
// (it loaded the signed-in session before the sign-out) saves after the
// sign-out deleted the session: the session must stay gone, on every try.
func TestSessionLogoutNotUndone(t *testing.T) {
	clk := newClock()
	for try := range 20 {
		gs := &gateStore{
			MemoryStore: web.NewMemoryStore(web.MemoryStoreConfig{Clock: clk.Now}),
			waiting:     make(chan struct{}), release: make(chan struct{}),
		}
		app, _ := sessionApp(t, web.SessionsConfig{Store: gs, Clock: clk.Now})
		user := newClient(t, app)
		user.get("/put?v=signed-in")
		orig := user.cookie["session"]
		copied := newClient(t, app)
		copied.cookie["session"] = orig

		gs.armed.Store(true)
		done := make(chan string)
		go func() {
			w := copied.do("GET", "/put?v=from-the-copy", "")
			done <- w.Body.String()
		}()
		<-gs.waiting // the copy loaded the session and is about to save it
		if w := user.do("GET", "/destroy", ""); w.Code != 200 {
			t.Fatalf("sign-out: %d", w.Code)
		}
		close(gs.release)
		<-done
		stale := newClient(t, app)
		stale.cookie["session"] = orig
		if got := stale.get("/get"); got != "" {
			t.Fatalf("try %d: after sign-out the copied cookie reads %q: the session came back", try, got)
		}
	}
}

// TestSessionLogoutRace races sign-outs against four clients using copies of
// the cookie: after each sign-out the copies name nothing.
func TestSessionLogoutRace(t *testing.T) {
	app, _ := sessionApp(t, web.SessionsConfig{})
	for try := range 20 {
		user := newClient(t, app)
		user.get("/put?v=signed-in")
		cookie := user.cookie["session"]
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				cl := newClient(t, app)
				for range 20 {
					cl.cookie["session"] = cookie
					cl.do("GET", "/put?v=copy", "")
				}
			})
		}
		user.do("GET", "/destroy", "")
		wg.Wait()
		stale := newClient(t, app)
		stale.cookie["session"] = cookie
		if got := stale.get("/get"); got != "" {
			t.Fatalf("try %d: the copied cookie reads %q after sign-out", try, got)
		}
	}
}

// blockingStore answers nothing: every call waits until its context ends,
// and counts itself.
type blockingStore struct{ calls atomic.Int64 }

func (s *blockingStore) wait(ctx context.Context) error {
	s.calls.Add(1)
	<-ctx.Done()
	return ctx.Err()
}
func (s *blockingStore) Load(ctx context.Context, _ string) ([]byte, error) {
	return nil, s.wait(ctx)
}
func (s *blockingStore) Create(ctx context.Context, _ string, _ []byte, _ time.Time) error {
	return s.wait(ctx)
}
func (s *blockingStore) Update(ctx context.Context, _ string, _ []byte, _ time.Time) (bool, error) {
	return false, s.wait(ctx)
}
func (s *blockingStore) Delete(ctx context.Context, _ string) error { return s.wait(ctx) }
func (s *blockingStore) Ping(ctx context.Context) error             { return s.wait(ctx) }

// within serves r on h and fails t if that takes more than bound (a
// generous bound on a lifecycle event, not a timing assertion).
func within(t *testing.T, h http.Handler, r *http.Request, bound time.Duration) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	done := make(chan struct{})
	go func() { h.ServeHTTP(w, r); close(done) }()
	select {
	case <-done:
		return w
	case <-time.After(bound):
		t.Fatalf("%s %s still running after %v: a store that does not answer holds it", r.Method, r.URL, bound)
		return nil
	}
}

// TestSessionStoreTimeout: a store that stops answering holds a request for
// the store timeout at most, on a save (which runs without the request's
// cancellation) as on a load, and the request answers 503.
func TestSessionStoreTimeout(t *testing.T) {
	bs := &blockingStore{}
	app, _ := sessionApp(t, web.SessionsConfig{Store: bs, StoreTimeout: 50 * time.Millisecond})
	w := within(t, app, httptest.NewRequest("GET", "/put?v=x", nil), 10*time.Second)
	if w.Code != 503 || w.Header().Get("Set-Cookie") != "" {
		t.Errorf("save to a store that does not answer: %d, Set-Cookie %q", w.Code, w.Header().Get("Set-Cookie"))
	}
	r := httptest.NewRequest("GET", "/get", nil)
	r.Header.Set("Cookie", "session="+strings.Repeat("A", 43))
	w = within(t, app, r, 10*time.Second)
	if w.Code != 503 {
		t.Errorf("load from a store that does not answer: %d", w.Code)
	}
}

// TestSessionErrorPageCallsNoStore: once the sessions middleware has
// returned, an error page that asks for the session (the signed-in user in
// its navigation) starts none and calls no store, so that a store that does
// not answer cannot hold the error page (the timeout's 503 included); a
// session the handler used stays readable.
func TestSessionErrorPageCallsNoStore(t *testing.T) {
	bs := &blockingStore{}
	s, err := web.NewSessions(web.SessionsConfig{Store: bs, StoreTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	app := plinth.New()
	s.Attach(app)
	var afterMiddleware atomic.Int64
	var pageErr atomic.Value
	app.ProblemWriter = func(c *plinth.Ctx, p *plinth.Problem) {
		before := bs.calls.Load()
		_, err := web.SessionOf(c)
		afterMiddleware.Add(bs.calls.Load() - before)
		pageErr.Store(fmt.Sprint(err))
		c.WriteProblemJSON(p)
	}
	app.Get("/missing", func(c *plinth.Ctx) error { return plinth.NotFound("no such thing") })
	short := app.Group("/short")
	short.SetHandlerTimeout(20 * time.Millisecond)
	short.Get("/slow", func(c *plinth.Ctx) error {
		<-c.Context().Done() // the timeout's 503 follows
		return nil
	})
	for _, path := range []string{"/missing", "/short/slow"} {
		r := httptest.NewRequest("GET", path, nil)
		r.Header.Set("Cookie", "session="+strings.Repeat("A", 43))
		w := within(t, app, r, 10*time.Second)
		if w.Code != 404 && w.Code != 503 {
			t.Errorf("%s: %d", path, w.Code)
		}
		if n := afterMiddleware.Load(); n != 0 {
			t.Errorf("%s: the error page called the store %d times after the sessions middleware returned", path, n)
		}
		if e, _ := pageErr.Load().(string); !strings.Contains(e, "after the Sessions middleware returned") {
			t.Errorf("%s: SessionOf in the error page: %s", path, e)
		}
	}

	// A session the handler used is readable from the error page, from
	// memory, without a store call.
	mem := &countingStore{Store: web.NewMemoryStore(web.MemoryStoreConfig{})}
	app2, _ := sessionApp(t, web.SessionsConfig{Store: mem})
	var seen atomic.Value
	app2.ProblemWriter = func(c *plinth.Ctx, p *plinth.Problem) {
		loads := mem.loads.Load()
		if sess, err := web.SessionOf(c); err == nil {
			v, _ := web.Get[string](sess, "name")
			seen.Store(v)
		}
		if mem.loads.Load() != loads {
			t.Error("the error page loaded the session again")
		}
		c.WriteProblemJSON(p)
	}
	cl := newClient(t, app2)
	cl.get("/put?v=ada")
	if w := cl.do("GET", "/fail", ""); w.Code != 500 {
		t.Fatalf("/fail: %d", w.Code)
	}
	if v, _ := seen.Load().(string); v != "x" {
		t.Errorf("the error page read %q from the handler's session, want x", v)
	}
}

// TestSessionsLogStoreAtStart: when the App starts serving, the sessions
// log the store in use (its String) and the store timeout.
func TestSessionsLogStoreAtStart(t *testing.T) {
	var logs syncbuf.Buffer
	s, err := web.NewSessions(web.SessionsConfig{
		Store:  &blockingStore{}, // no String: its type is logged
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	app := plinth.New()
	s.Attach(app)
	app.Get("/", func(c *plinth.Ctx) error { return c.Text(200, "ok") })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- app.Serve(ctx, ln) }()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logs.String(), "web: sessions") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	got := logs.String()
	for _, want := range []string{`msg="web: sessions"`, `store=*web_test.blockingStore`, `store_timeout=5s`} {
		if !strings.Contains(got, want) {
			t.Errorf("start-up log %q lacks %q", got, want)
		}
	}
	if got := fmt.Sprint(web.NewMemoryStore(web.MemoryStoreConfig{})); got != "memory max_sessions=10000" {
		t.Errorf("MemoryStore.String() = %q", got)
	}
}

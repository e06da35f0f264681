package web_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
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

func (s *countingStore) Save(ctx context.Context, id string, b []byte, exp time.Time) error {
	s.saves.Add(1)
	if s.fail.Load() {
		return errDown
	}
	return s.Store.Save(ctx, id, b, exp)
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
			return web.SessionsConfig{Store: web.NewCookieStore(web.CookieStoreConfig{Keys: [][]byte{key}}), Clock: clk.Now}, nil
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
		app, _ := sessionApp(t, web.SessionsConfig{Store: web.NewCookieStore(web.CookieStoreConfig{Keys: keys}), Clock: clk.Now})
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

func TestCookieStoreTooLarge(t *testing.T) {
	key := make([]byte, 32)
	app, _ := sessionApp(t, web.SessionsConfig{Store: web.NewCookieStore(web.CookieStoreConfig{Keys: [][]byte{key}})})
	w := newClient(t, app).do("GET", "/big", "")
	if w.Code != 500 || w.Header().Get("Set-Cookie") != "" || strings.Contains(w.Body.String(), "should not be sent") {
		t.Fatalf("oversized cookie session: %d %q %q", w.Code, w.Header().Get("Set-Cookie"), w.Body)
	}
}

func TestSessionStoreDown(t *testing.T) {
	clk := newClock()
	cfg, store := storeConfigs(clk)["memory"]()
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
	for i, id := range []string{"a", "b", "c", "d"} {
		if err := s.Save(ctx, id, []byte(id), clk.Now().Add(time.Duration(i+1)*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	if s.Len() != 3 {
		t.Fatalf("len %d, want 3", s.Len())
	}
	if b, _ := s.Load(ctx, "a"); b != nil {
		t.Error("the session closest to expiry was not the one dropped")
	}
	if b, _ := s.Load(ctx, "d"); string(b) != "d" {
		t.Error("the new session is missing")
	}
	clk.Advance(3*time.Hour + time.Second)
	if b, _ := s.Load(ctx, "c"); b != nil {
		t.Error("expired session loaded")
	}
}

package bench

// Benchmarks of the web layer's sessions (package web) against
// alexedwards/scs and gorilla/sessions, in process, one request per op:
//
//	cd bench && go test -run '^$' -bench 'Session|CSRF' -benchmem -count=6 -benchtime=200ms .
//	bench/run-web-sessions.sh 6   # the same, rounds interleaved, pinned; writes results/web-sessions-<date>.txt
//
// (PLINTH_TEST_REDIS=redis://127.0.0.1:6379/0 adds the Redis store; without
// it those benchmarks skip, saying so.)
//
// BenchmarkSession/store=S/op=O/fw=F: framework F's idiomatic handler that
// reads one string from the session (op=read) or writes one (op=write), on
// store S, for a request carrying the cookie of a session made by an earlier
// request. Routing: Plinth serves on plinth.Bare() with native handlers and
// Sessions.Attach; the peers serve on an http.ServeMux (GET /read, POST
// /write), scs wrapping it in its LoadAndSave middleware (GetString, Put),
// gorilla calling store.Get, session.Values and session.Save in the
// handler. The writer discards the body and keeps the header map
// (suite.ResponseWriter). The stores:
//
//   - cookie: Plinth's CookieStore (XChaCha20-Poly1305) against
//     gorilla/sessions' CookieStore with a hash and a block key (HMAC-SHA256
//     and AES-256: encrypted as Plinth's is). scs has no cookie store.
//   - memory: Plinth's MemoryStore against scs's memstore. gorilla/sessions
//     has no memory store (its FilesystemStore writes files: not
//     comparable).
//   - redis: Plinth's redisstore.SessionStore and scs's goredisstore, both on
//     go-redis v9 clients, against boj/redistore (the Redis store
//     gorilla/sessions lists; redigo, since no go-redis store for gorilla
//     is served by the module proxy). Its constructors ping Redis on every
//     pool borrow; here it gets a pool without that ping, so that each
//     framework makes one round trip per load or save.
//
// Each framework keeps its defaults otherwise: Plinth has a 2 h idle timeout
// (a read rewrites the session at most every 6 minutes, so never here), scs
// and gorilla have none (scs with an IdleTimeout rewrites the session on
// every request). A write saves the session in every framework; gorilla and
// scs also send the cookie again, Plinth only when its value changes (the
// cookie store, or a new ID).
//
// BenchmarkSessionUntouched: a route that never calls SessionOf on a
// plinth.Bare() App with Sessions attached (fw=plinth) and without
// (fw=plinth-bare): the difference must be 0 allocations
// (TestAllocBudgets, and web/alloc_test.go). For reference, scs's
// LoadAndSave on a ServeMux (fw=scs), which loads the session of every
// request whatever the handler does, and the ServeMux alone (fw=mux).
//
// TestWebSetups checks that every setup answers as it should (a value
// written is read back), so that no benchmark can measure an error page.

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/alexedwards/scs/v2"
	"github.com/alexedwards/scs/v2/memstore"
	"github.com/gorilla/sessions"
	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/bench/internal/suite"
	"github.com/plinth-go/plinth/web"
)

// The values the session apps keep: /seed puts sessSeed (it makes the
// session the benchmarks use), /write puts sessWritten, /read answers the
// value, /none answers sessNone without touching the session.
const (
	sessKey     = "name"
	sessSeed    = "ada"
	sessWritten = "grace"
	sessNone    = "ok"
	sessCookie  = "session"
)

// Fixed keys: the benchmarks need no secrecy, only the same work.
var (
	benchKey32 = []byte("0123456789abcdef0123456789abcdef")
	benchKey64 = []byte("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
)

// webSetup is a handler and the request a benchmark sends it, ready to be
// served again and again: the request is restored from tmpl before every
// serve (gorilla/sessions keeps its registry in the request, form parsing
// keeps the form there) and its body rewound.
type webSetup struct {
	h      http.Handler
	req    *http.Request
	tmpl   http.Request
	body   *strings.Reader
	form   string
	status int
	want   string           // the body the response must have
	verify func(testing.TB) // a further check after serving (a write read back), or nil
}

// newWebSetup returns the setup sending method target (with form as an
// urlencoded body when not "") and the header pairs hdr to h, expecting
// status and the body want.
func newWebSetup(h http.Handler, method, target, form string, status int, want string, hdr ...string) *webSetup {
	s := &webSetup{h: h, form: form, status: status, want: want}
	var r *http.Request
	if form != "" {
		s.body = strings.NewReader(form)
		r = httptest.NewRequest(method, target, s.body)
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.Body = io.NopCloser(s.body)
	} else {
		r = httptest.NewRequest(method, target, nil)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i+1] != "" {
			r.Header.Add(hdr[i], hdr[i+1])
		}
	}
	s.tmpl = *r
	s.req = r
	return s
}

// serve sends the request once more, as it was made.
func (s *webSetup) serve(w http.ResponseWriter) {
	if s.body != nil {
		s.body.Reset(s.form)
	}
	*s.req = s.tmpl
	s.h.ServeHTTP(w, s.req)
}

// check serves the request once and compares the answer, then runs verify.
func (s *webSetup) check(tb testing.TB) {
	tb.Helper()
	w := suite.NewResponseWriter(true)
	s.serve(w)
	if w.Status() != s.status || string(w.Body) != s.want {
		tb.Fatalf("%s %s: %d %q, want %d %q", s.tmpl.Method, s.tmpl.URL, w.Status(), w.Body, s.status, s.want)
	}
	if s.verify != nil {
		s.verify(tb)
	}
}

// runWeb checks the setup, times it, and checks it again: a store emptied or
// gone away during the run fails the benchmark instead of timing errors.
func runWeb(b *testing.B, s *webSetup) {
	s.check(b)
	w := suite.NewResponseWriter(false)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		w.Reset()
		s.serve(w)
	}
	b.StopTimer()
	s.check(b)
}

// webCase is one sub-benchmark: its name below the benchmark's
// ("store=memory/op=read/fw=plinth") and its setup. Plinth's (fw=plinth...)
// have allocation budgets in budgets.json, under "plinth-web", by full name
// without "Benchmark" (TestAllocBudgets).
type webCase struct {
	Name  string
	Build func(testing.TB) *webSetup
}

// plinthCookieStore returns Plinth's cookie store with benchKey32.
func plinthCookieStore(tb testing.TB) *web.CookieStore {
	st, err := web.NewCookieStore(web.CookieStoreConfig{Keys: [][]byte{benchKey32}})
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

// sessionApps are the session apps per store and framework, in benchmark
// order; redis ones skip without PLINTH_TEST_REDIS.
var sessionApps = []struct {
	store, fw string
	build     func(testing.TB) http.Handler
}{
	{"cookie", "plinth", func(tb testing.TB) http.Handler {
		return plinthSessionApp(tb, plinthCookieStore(tb))
	}},
	{"cookie", "gorilla", func(testing.TB) http.Handler { return gorillaSessionApp(gorillaCookieStore()) }},
	{"memory", "plinth", func(tb testing.TB) http.Handler {
		return plinthSessionApp(tb, web.NewMemoryStore(web.MemoryStoreConfig{}))
	}},
	{"memory", "scs", func(testing.TB) http.Handler { return scsSessionApp(memstore.New()) }},
	{"redis", "plinth", func(tb testing.TB) http.Handler { return plinthSessionApp(tb, plinthRedisStore(tb)) }},
	{"redis", "scs", func(tb testing.TB) http.Handler { return scsSessionApp(scsRedisStore(tb)) }},
	{"redis", "gorilla", func(tb testing.TB) http.Handler { return gorillaSessionApp(gorillaRedisStore(tb)) }},
}

// sessionCases are BenchmarkSession's cases.
func sessionCases() []webCase {
	var out []webCase
	for _, op := range []string{"read", "write"} {
		for _, a := range sessionApps {
			out = append(out, webCase{"store=" + a.store + "/op=" + op + "/fw=" + a.fw, func(tb testing.TB) *webSetup {
				h := a.build(tb)
				cookie := seedSession(tb, h)
				if op == "read" {
					return newWebSetup(h, "GET", "/read", "", 200, sessSeed, "Cookie", cookie)
				}
				s := newWebSetup(h, "POST", "/write", "", 200, sessNone, "Cookie", cookie)
				s.verify = func(tb testing.TB) {
					tb.Helper()
					// Read back with the cookie the write sent, if it sent one.
					next := cookieAfter(tb, h, "POST", "/write", cookie)
					if got := webGet(tb, h, "/read", next); got != sessWritten {
						tb.Fatalf("after a write: read %q, want %q", got, sessWritten)
					}
				}
				return s
			}})
		}
	}
	return out
}

// untouchedCases are BenchmarkSessionUntouched's cases: GET /none with the
// cookie of a live session (a cookie of the same shape where there are no
// sessions).
func untouchedCases() []webCase {
	none := func(h http.Handler, cookie string) *webSetup {
		return newWebSetup(h, "GET", "/none", "", 200, sessNone, "Cookie", cookie)
	}
	return []webCase{
		{"fw=plinth", func(tb testing.TB) *webSetup {
			h := plinthSessionApp(tb, web.NewMemoryStore(web.MemoryStoreConfig{}))
			return none(h, seedSession(tb, h))
		}},
		{"fw=plinth-bare", func(tb testing.TB) *webSetup {
			app := plinth.Bare()
			app.Get("/none", func(c *plinth.Ctx) error { return c.Text(200, sessNone) })
			app.Build()
			return none(app, sessCookie+"="+strings.Repeat("A", 43))
		}},
		{"fw=scs", func(tb testing.TB) *webSetup {
			h := scsSessionApp(memstore.New())
			return none(h, seedSession(tb, h))
		}},
		{"fw=mux", func(tb testing.TB) *webSetup {
			mux := http.NewServeMux()
			mux.HandleFunc("GET /none", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, sessNone) })
			return none(mux, sessCookie+"="+strings.Repeat("A", 43))
		}},
	}
}

func BenchmarkSession(b *testing.B)          { benchWebCases(b, sessionCases()) }
func BenchmarkSessionUntouched(b *testing.B) { benchWebCases(b, untouchedCases()) }

func benchWebCases(b *testing.B, cases []webCase) {
	for _, c := range cases {
		b.Run(c.Name, func(b *testing.B) { runWeb(b, c.Build(b)) })
	}
}

// plinthSessionApp serves the session routes on plinth.Bare() with
// Sessions on store.
func plinthSessionApp(tb testing.TB, store web.Store) http.Handler {
	tb.Helper()
	s, err := web.NewSessions(web.SessionsConfig{Store: store})
	if err != nil {
		tb.Fatal(err)
	}
	app := plinth.Bare()
	s.Attach(app)
	put := func(v string) plinth.HandlerFunc {
		return func(c *plinth.Ctx) error {
			sess, err := web.SessionOf(c)
			if err != nil {
				return err
			}
			sess.Put(sessKey, v)
			return c.Text(200, sessNone)
		}
	}
	app.Post("/seed", put(sessSeed))
	app.Post("/write", put(sessWritten))
	app.Get("/read", func(c *plinth.Ctx) error {
		sess, err := web.SessionOf(c)
		if err != nil {
			return err
		}
		v, _ := web.Get[string](sess, sessKey)
		return c.Text(200, v)
	})
	app.Get("/none", func(c *plinth.Ctx) error { return c.Text(200, sessNone) })
	app.Build()
	return app
}

// scsSessionApp serves the session routes on a ServeMux inside scs's
// LoadAndSave, sessions in store.
func scsSessionApp(store scs.Store) http.Handler {
	sm := scs.New()
	sm.Store = store
	sm.Cookie.Name = sessCookie
	mux := http.NewServeMux()
	put := func(v string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			sm.Put(r.Context(), sessKey, v)
			_, _ = io.WriteString(w, sessNone)
		}
	}
	mux.HandleFunc("POST /seed", put(sessSeed))
	mux.HandleFunc("POST /write", put(sessWritten))
	mux.HandleFunc("GET /read", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, sm.GetString(r.Context(), sessKey))
	})
	mux.HandleFunc("GET /none", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, sessNone) })
	return sm.LoadAndSave(mux)
}

// gorillaCookieStore is gorilla/sessions' CookieStore, encrypted (a block
// key) as Plinth's is, with Plinth's cookie attributes.
func gorillaCookieStore() sessions.Store {
	st := sessions.NewCookieStore(benchKey64, benchKey32)
	st.Options.HttpOnly = true
	st.Options.Secure = false
	st.Options.SameSite = http.SameSiteLaxMode
	st.MaxAge(86400)
	return st
}

// gorillaSessionApp serves the session routes on a ServeMux, the handlers
// using store as gorilla/sessions' README does.
func gorillaSessionApp(store sessions.Store) http.Handler {
	mux := http.NewServeMux()
	put := func(v string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			sess, err := store.Get(r, sessCookie)
			if err != nil && sess == nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			sess.Values[sessKey] = v
			if err := sess.Save(r, w); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			_, _ = io.WriteString(w, sessNone)
		}
	}
	mux.HandleFunc("POST /seed", put(sessSeed))
	mux.HandleFunc("POST /write", put(sessWritten))
	mux.HandleFunc("GET /read", func(w http.ResponseWriter, r *http.Request) {
		sess, err := store.Get(r, sessCookie)
		if err != nil && sess == nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		v, _ := sess.Values[sessKey].(string)
		_, _ = io.WriteString(w, v)
	})
	mux.HandleFunc("GET /none", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, sessNone) })
	return mux
}

// seedSession makes a session holding sessSeed through POST /seed and
// returns its Cookie header.
func seedSession(tb testing.TB, h http.Handler) string {
	tb.Helper()
	cookie := cookieAfter(tb, h, "POST", "/seed", "")
	if cookie == "" {
		tb.Fatal("POST /seed set no cookie")
	}
	if got := webGet(tb, h, "/read", cookie); got != sessSeed {
		tb.Fatalf("after /seed: read %q, want %q", got, sessSeed)
	}
	return cookie
}

// cookieAfter sends method target with the Cookie header cookie, requires a
// 200, and returns the Cookie header for the next request: the cookies the
// response set, or cookie when it set none.
func cookieAfter(tb testing.TB, h http.Handler, method, target, cookie string) string {
	tb.Helper()
	w := webDo(h, method, target, cookie)
	if w.Code != 200 {
		tb.Fatalf("%s %s: %d %s", method, target, w.Code, w.Body)
	}
	var pairs []string
	for _, c := range w.Result().Cookies() {
		if c.MaxAge >= 0 && c.Value != "" {
			pairs = append(pairs, c.Name+"="+c.Value)
		}
	}
	if len(pairs) == 0 {
		return cookie
	}
	return strings.Join(pairs, "; ")
}

// webGet answers GET target's body, requiring a 200.
func webGet(tb testing.TB, h http.Handler, target, cookie string) string {
	tb.Helper()
	w := webDo(h, "GET", target, cookie)
	if w.Code != 200 {
		tb.Fatalf("GET %s: %d %s", target, w.Code, w.Body)
	}
	return w.Body.String()
}

func webDo(h http.Handler, method, target, cookie string, hdr ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, nil)
	if cookie != "" {
		r.Header.Set("Cookie", cookie)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

package web_test

// Tests of the sign-in Throttle's per-client budget and bound:
// without them, one address naming many accounts, 5 guesses each, filled
// the hashing queue every sign-in shares, so that others' sign-ins got 503.

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/middleware"
	"github.com/plinth-go/plinth/plinthtest"
	"github.com/plinth-go/plinth/web"
)

// clientApp is a sign-in form at POST /login behind Throttle, for one user,
// demo@example.com / demo-password, checking passwords with pw (an unknown
// email checks against "", a hash all the same). Its App trusts the proxy
// 10.0.0.0/8, so that a request's client is its X-Forwarded-For there.
type clientApp struct {
	app     *plinth.App
	handled atomic.Int64 // requests that reached the handler
}

func newClientApp(t *testing.T, cfg web.AuthConfig[string], pw *web.Passwords) *clientApp {
	t.Helper()
	demo, err := web.PasswordParams{Memory: 64, Time: 1}.Hash("demo-password")
	if err != nil {
		t.Fatal(err)
	}
	s, err := web.NewSessions(web.SessionsConfig{})
	if err != nil {
		t.Fatal(err)
	}
	cfg.LoadUser = func(_ context.Context, id string) (string, error) { return id, nil }
	auth := web.NewAuth(cfg)
	a := &clientApp{app: plinth.New()}
	a.app.Logger = slog.New(slog.DiscardHandler)
	a.app.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	s.Attach(a.app)
	auth.Attach(a.app)
	a.app.With(auth.Throttle()).Post("/login", func(c *plinth.Ctx) error {
		a.handled.Add(1)
		r := c.Request()
		hash := ""
		if r.PostFormValue("email") == "demo@example.com" {
			hash = demo
		}
		ok, _, err := pw.Check(c.Context(), hash, r.PostFormValue("password"))
		if err != nil {
			return err
		}
		if !ok {
			return c.Text(200, "wrong")
		}
		if err := auth.Login(c, "1"); err != nil {
			return err
		}
		return c.Redirect(303, "/account")
	})
	return a
}

// post signs in from client: "ip" is a peer of its own, "via ip" comes
// through the trusted proxy 10.0.0.1 with X-Forwarded-For: ip.
func (a *clientApp) post(client, email, password string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("POST", "/login", strings.NewReader(url.Values{"email": {email}, "password": {password}}.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if ip, ok := strings.CutPrefix(client, "via "); ok {
		r.RemoteAddr = "10.0.0.1:4000"
		r.Header.Set("X-Forwarded-For", ip)
	} else {
		r.RemoteAddr = netip.AddrPortFrom(netip.MustParseAddr(client), 4000).String()
	}
	w := httptest.NewRecorder()
	a.app.ServeHTTP(w, r)
	return w
}

// check429 reports a refusal that is not a 429 problem with Retry-After.
func check429(t *testing.T, what string, w *httptest.ResponseRecorder, retryAfter string) {
	t.Helper()
	if w.Code != http.StatusTooManyRequests {
		t.Errorf("%s: %d %s, want 429", what, w.Code, w.Body)
		return
	}
	if got := w.Header().Get("Retry-After"); got != retryAfter {
		t.Errorf("%s: Retry-After %q, want %q", what, got, retryAfter)
	}
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
		t.Errorf("%s: Content-Type %q, want a problem", what, ct)
	}
}

// TestThrottleClientFlood sends 160 wrong passwords at once from one
// address (through the trusted proxy, as behind a load balancer), each for
// an account of its own, then sign-ins with the right password from 6 other
// addresses, while every hash is held in its slot: the flood holds at most
// DefaultLoginClientConcurrency (8) of the 2 slots and 16 queue places and
// gets 429 for the rest, and every other sign-in finds room and succeeds.
// Before the per-client bound the flood took both slots and the whole
// queue, and every other sign-in got 503.
func TestThrottleClientFlood(t *testing.T) {
	const flood, others, slots, queue = 160, 6, 2, 16
	pw := web.NewPasswords(web.PasswordsConfig{Params: cheap, Slots: slots, Queue: queue})
	release := make(chan struct{})
	var closeRelease sync.Once
	defer closeRelease.Do(func() { close(release) }) // never leave a request blocked, even on failure
	var hashes atomic.Int64
	web.SetPasswordsHook(pw, func() {
		hashes.Add(1)
		<-release // every hash keeps its slot until the test lets go
	})
	a := newClientApp(t, web.AuthConfig[string]{}, pw)
	// stuck is the number of checks holding a slot or a queue place.
	stuck := func() int64 { return hashes.Load() + web.PasswordsWaiting(pw) }

	var floodCodes sync.Map // status -> *atomic.Int64
	count := func(m *sync.Map, code int) {
		n, _ := m.LoadOrStore(code, new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
	}
	var floodDone atomic.Int64
	var wg sync.WaitGroup
	for i := range flood {
		wg.Go(func() {
			w := a.post("via 198.51.100.7", fmt.Sprintf("user%d@example.com", i), "guess")
			switch w.Code {
			case 200:
			case 429:
				check429(t, "flood", w, "1")
			default:
				t.Errorf("flood attempt: %d %s", w.Code, w.Body)
			}
			count(&floodCodes, w.Code)
			floodDone.Add(1)
		})
	}
	waitFor(t, "every flood attempt to be answered or to hold a slot or queue place",
		func() bool { return floodDone.Load()+stuck() == flood })
	floodStuck := stuck()
	if floodStuck > web.DefaultLoginClientConcurrency {
		t.Errorf("the flood holds %d slots and queue places, want at most %d", floodStuck, web.DefaultLoginClientConcurrency)
	}

	codes := make(chan int, others)
	var othersDone atomic.Int64
	for i := range others {
		wg.Go(func() {
			codes <- a.post(fmt.Sprintf("via 203.0.113.%d", i+1), "demo@example.com", "demo-password").Code
			othersDone.Add(1)
		})
	}
	waitFor(t, "every other sign-in to be answered or to hold a slot or queue place",
		func() bool { return stuck() == floodStuck+others-othersDone.Load() })
	closeRelease.Do(func() { close(release) })
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != 303 {
			t.Errorf("another address's sign-in during the flood: %d, want 303", c)
		}
	}
	var refused int64
	if n, ok := floodCodes.Load(429); ok {
		refused = n.(*atomic.Int64).Load()
	}
	if refused < flood-web.DefaultLoginClientConcurrency {
		t.Errorf("%d flood attempts got 429, want at least %d", refused, flood-web.DefaultLoginClientConcurrency)
	}
	if n := a.handled.Load(); n != floodStuck+others {
		t.Errorf("%d requests reached the handler, want %d: a refused attempt ran it", n, floodStuck+others)
	}
}

// TestThrottleClientBudget checks the per-client bucket across accounts:
// 20 failures on 20 accounts from one address are checked, then every
// attempt from it is refused (429, Retry-After 3) without a hash, whatever
// the account or password, while other addresses are not; a success costs
// nothing; the bucket refills one attempt per 3 seconds.
func TestThrottleClientBudget(t *testing.T) {
	clk := plinthtest.NewClock(time.Time{})
	pw := web.NewPasswords(web.PasswordsConfig{Params: cheap})
	var hashes atomic.Int64
	web.SetPasswordsHook(pw, func() { hashes.Add(1) })
	a := newClientApp(t, web.AuthConfig[string]{Clock: clk.Now}, pw)

	for i := range web.DefaultLoginClientRate {
		if w := a.post("198.51.100.7", fmt.Sprintf("user%d@example.com", i), "guess"); w.Code != 200 {
			t.Fatalf("failure %d: %d %s", i+1, w.Code, w.Body)
		}
	}
	if n := hashes.Load(); n != web.DefaultLoginClientRate {
		t.Fatalf("%d hashes for %d failures", n, web.DefaultLoginClientRate)
	}
	check429(t, "another account past the budget", a.post("198.51.100.7", "new@example.com", "guess"), "3")
	check429(t, "the right password past the budget", a.post("198.51.100.7", "demo@example.com", "demo-password"), "3")
	check429(t, "through the proxy", a.post("via 198.51.100.7", "new@example.com", "guess"), "3")
	if n := hashes.Load(); n != web.DefaultLoginClientRate {
		t.Errorf("refused attempts cost %d hashes, want none", n-web.DefaultLoginClientRate)
	}
	if n := a.handled.Load(); n != web.DefaultLoginClientRate {
		t.Errorf("refused attempts reached the handler: %d requests, want %d", n, web.DefaultLoginClientRate)
	}

	if w := a.post("198.51.100.8", "demo@example.com", "demo-password"); w.Code != 303 {
		t.Errorf("another address's sign-in: %d, want 303", w.Code)
	}
	if w := a.post("via 198.51.100.9", "user0@example.com", "guess"); w.Code != 200 {
		t.Errorf("another address's failure: %d, want 200", w.Code)
	}

	clk.Advance(3 * time.Second)
	if w := a.post("198.51.100.7", "new@example.com", "guess"); w.Code != 200 {
		t.Errorf("after 3 s: %d, want 200 (one token back)", w.Code)
	}
	check429(t, "the next one", a.post("198.51.100.7", "new2@example.com", "guess"), "3")

	// Successes give their token back: 19 failures, then any number of
	// sign-ins, then one failure more, then none.
	for i := range web.DefaultLoginClientRate - 1 {
		if w := a.post("192.0.2.50", fmt.Sprintf("user%d@example.com", i), "guess"); w.Code != 200 {
			t.Fatalf("failure %d: %d", i+1, w.Code)
		}
	}
	for i := range 10 {
		if w := a.post("192.0.2.50", "demo@example.com", "demo-password"); w.Code != 303 {
			t.Fatalf("sign-in %d after 19 failures: %d, want 303 (a success costs nothing)", i+1, w.Code)
		}
	}
	if w := a.post("192.0.2.50", "last@example.com", "guess"); w.Code != 200 {
		t.Fatalf("20th failure: %d", w.Code)
	}
	check429(t, "21st failure", a.post("192.0.2.50", "last2@example.com", "guess"), "3")
}

// TestThrottleClientBudgetAccountRefused checks that an attempt the
// per-account bucket refuses gives its per-client token back: no password
// was checked.
func TestThrottleClientBudgetAccountRefused(t *testing.T) {
	pw := web.NewPasswords(web.PasswordsConfig{Params: cheap})
	a := newClientApp(t, web.AuthConfig[string]{
		LoginLimit:       middleware.Limit{Rate: 1, Per: time.Hour},
		LoginClientLimit: middleware.Limit{Rate: 3, Per: time.Hour},
	}, pw)
	if w := a.post("198.51.100.7", "ada@example.com", "guess"); w.Code != 200 {
		t.Fatalf("first failure: %d", w.Code)
	}
	for range 10 {
		if w := a.post("198.51.100.7", "ada@example.com", "guess"); w.Code != 429 || !strings.Contains(w.Body.String(), "too many failed sign-in attempts;") {
			t.Fatalf("the account's second failure: %d %s, want the account's 429", w.Code, w.Body)
		}
	}
	for _, acct := range []string{"bob@example.com", "cy@example.com"} {
		if w := a.post("198.51.100.7", acct, "guess"); w.Code != 200 {
			t.Errorf("%s after the account refusals: %d, want 200 (they cost the client nothing)", acct, w.Code)
		}
	}
	if w := a.post("198.51.100.7", "dee@example.com", "guess"); w.Code != 429 || !strings.Contains(w.Body.String(), "from this address") {
		t.Errorf("the client's fourth failure: %d %s, want the client's 429", w.Code, w.Body)
	}
}

// TestThrottleClientIPv6Prefix checks that an IPv6 client is counted by
// its /64: addresses in one /64 share the budget and the bound, another
// /64 has its own.
func TestThrottleClientIPv6Prefix(t *testing.T) {
	pw := web.NewPasswords(web.PasswordsConfig{Params: cheap})
	a := newClientApp(t, web.AuthConfig[string]{LoginClientLimit: middleware.Limit{Rate: 2, Per: time.Hour}}, pw)
	for i, client := range []string{"2001:db8:1:2::1", "via 2001:db8:1:2:ffff:ffff:ffff:ffff"} {
		if w := a.post(client, fmt.Sprintf("user%d@example.com", i), "guess"); w.Code != 200 {
			t.Fatalf("%s: %d", client, w.Code)
		}
	}
	if w := a.post("2001:db8:1:2::3", "user9@example.com", "guess"); w.Code != 429 {
		t.Errorf("a third address of the /64: %d, want 429", w.Code)
	}
	if w := a.post("2001:db8:1:3::1", "user9@example.com", "guess"); w.Code != 200 {
		t.Errorf("another /64: %d, want 200", w.Code)
	}
	if w := a.post("::ffff:192.0.2.7", "user9@example.com", "guess"); w.Code != 200 {
		t.Errorf("an IPv4-mapped address (an IPv4 client): %d, want 200", w.Code)
	}
}

// TestThrottleClientConcurrency holds sign-ins in their hash: one address
// gets LoginClientConcurrency of them in flight, the next gets 429 with
// Retry-After 1 at once, with no hash and no token taken, while another
// address is not bound; when they end the address may send again. Off
// switches the bound off.
func TestThrottleClientConcurrency(t *testing.T) {
	for _, c := range []struct {
		name  string
		limit int // LoginClientConcurrency
		bound int // 0: none
	}{
		{"two", 2, 2},
		{"default", 0, web.DefaultLoginClientConcurrency},
		{"off", plinth.Off, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			const held = 12
			pw := web.NewPasswords(web.PasswordsConfig{Params: cheap, Slots: held + 2, Queue: -1})
			release := make(chan struct{})
			var closeRelease sync.Once
			defer closeRelease.Do(func() { close(release) })
			var hashes atomic.Int64
			web.SetPasswordsHook(pw, func() {
				hashes.Add(1)
				<-release
			})
			a := newClientApp(t, web.AuthConfig[string]{LoginClientConcurrency: c.limit}, pw)
			inFlight := held
			if c.bound > 0 {
				inFlight = c.bound
			}
			var wg sync.WaitGroup
			for i := range inFlight {
				wg.Go(func() {
					if w := a.post("198.51.100.7", fmt.Sprintf("user%d@example.com", i), "guess"); w.Code != 200 {
						t.Errorf("held attempt %d: %d", i, w.Code)
					}
				})
			}
			waitFor(t, "the attempts to hold their slots", func() bool { return hashes.Load() == int64(inFlight) })
			if c.bound > 0 {
				more := make(chan *httptest.ResponseRecorder, 1)
				go func() { more <- a.post("via 198.51.100.7", "more@example.com", "guess") }()
				var w *httptest.ResponseRecorder
				waitFor(t, "one more attempt from the address to be answered or hashed", func() bool {
					select {
					case w = <-more:
						return true
					default:
						return hashes.Load() > int64(inFlight)
					}
				})
				if w == nil {
					t.Errorf("one more attempt from the address reached the password hash, want 429 before it")
					closeRelease.Do(func() { close(release) })
					wg.Wait()
					<-more
					return
				}
				check429(t, "one more from the address", w, "1")
				if n := a.handled.Load(); n != int64(inFlight) {
					t.Errorf("the refused attempt reached the handler")
				}
			}
			wg.Go(func() {
				if w := a.post("198.51.100.8", "demo@example.com", "demo-password"); w.Code != 303 {
					t.Errorf("another address: %d, want 303", w.Code)
				}
			})
			waitFor(t, "the other address's sign-in to hold its slot", func() bool { return hashes.Load() == int64(inFlight)+1 })
			closeRelease.Do(func() { close(release) })
			wg.Wait()
			if w := a.post("198.51.100.7", "after@example.com", "guess"); w.Code != 200 {
				t.Errorf("after the attempts ended: %d, want 200", w.Code)
			}
		})
	}
}

// LoginClientLimit's Rate plinth.Off switches the per-client bucket off:
// only the per-account bucket is taken.
func TestThrottleClientLimitOff(t *testing.T) {
	st := &bndStore{res: middleware.Result{Allowed: true}}
	a := bndThrottled(t, web.AuthConfig[string]{LoginLimitStore: st, LoginClientLimit: middleware.Limit{Rate: plinth.Off}})
	a.post("email", "ada@example.com", "right")
	if got := strings.Join(st.takes, " "); got != "192.0.2.7|ada@example.com" {
		t.Errorf("takes %q, want the per-account bucket's only", got)
	}
	if got := strings.Join(st.refunds, " "); got != "192.0.2.7|ada@example.com" {
		t.Errorf("refunds %q, want the per-account bucket's only", got)
	}
}

// LoginClientLimit is normalized as LoginLimit is, with its own Name; a
// Burst below 1 with a Rate of at least 1 panics.
func TestThrottleClientLimitNormalized(t *testing.T) {
	st := &bndStore{res: middleware.Result{Allowed: true}}
	a := bndThrottled(t, web.AuthConfig[string]{LoginLimitStore: st, LoginClientLimit: middleware.Limit{Rate: 3}})
	a.post("email", "ada@example.com", "nope")
	want := middleware.Limit{Name: "login-client", Rate: 3, Per: time.Second, Burst: 3}
	if len(st.limits) != 2 || st.limits[0] != want {
		t.Errorf("store got %+v, want %+v first", st.limits, want)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "LoginClientLimit") {
			t.Errorf("LoginClientLimit with Burst -1: panic %v, want one naming the field", r)
		}
	}()
	web.NewAuth(web.AuthConfig[string]{
		LoadUser:         func(context.Context, string) (string, error) { return "", nil },
		LoginClientLimit: middleware.Limit{Rate: 5, Burst: -1},
	})
}

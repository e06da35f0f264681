package middleware

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/racetest"
)

// ipCase is one request to an App with TrustedProxies 10.0.0.0/8 and
// fd00::/8, unless the case says otherwise.
type ipCase struct {
	name    string
	trusted []netip.Prefix // nil: the default set above; empty non-nil: none
	peer    string         // RemoteAddr
	hdr     []string       // header name, value pairs (Add, so repeats make lines)
	client  string         // want c.ClientIP()
}

var defaultTrusted = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}

// TestClientIP drives c.ClientIP (core) through a real App, the way RealIP
// depends on it.
func TestClientIP(t *testing.T) {
	none := []netip.Prefix{}
	cases := []ipCase{
		{"no proxies, spoofed XFF", none, "203.0.113.9:5000", []string{"X-Forwarded-For", "1.2.3.4"}, "203.0.113.9"},
		{"no proxies, spoofed Forwarded", none, "203.0.113.9:5000", []string{"Forwarded", "for=1.2.3.4"}, "203.0.113.9"},
		{"untrusted peer, spoofed XFF", nil, "203.0.113.9:5000", []string{"X-Forwarded-For", "1.2.3.4"}, "203.0.113.9"},
		{"untrusted peer, spoofed Forwarded", nil, "203.0.113.9:5000", []string{"Forwarded", "for=1.2.3.4"}, "203.0.113.9"},
		{"trusted peer, no header", nil, "10.0.0.1:5000", nil, "10.0.0.1"},
		{"trusted peer, one hop", nil, "10.0.0.1:5000", []string{"X-Forwarded-For", "198.51.100.7"}, "198.51.100.7"},
		{"right to left, skipping trusted hops", nil, "10.0.0.1:5000",
			[]string{"X-Forwarded-For", "6.6.6.6, 198.51.100.7, 10.0.0.3, 10.0.0.2"}, "198.51.100.7"},
		{"spoofed leftmost ignored", nil, "10.0.0.1:5000", []string{"X-Forwarded-For", "6.6.6.6,198.51.100.7"}, "198.51.100.7"},
		{"two XFF lines", nil, "10.0.0.1:5000",
			[]string{"X-Forwarded-For", "6.6.6.6, 198.51.100.7", "X-Forwarded-For", "10.0.0.2"}, "198.51.100.7"},
		{"two XFF lines, client in the last", nil, "10.0.0.1:5000",
			[]string{"X-Forwarded-For", "6.6.6.6", "X-Forwarded-For", "198.51.100.7, 10.0.0.2"}, "198.51.100.7"},
		{"empty XFF elements", nil, "10.0.0.1:5000", []string{"X-Forwarded-For", " , 198.51.100.7,, "}, "198.51.100.7"},
		{"XFF IPv4 with port", nil, "10.0.0.1:5000", []string{"X-Forwarded-For", "198.51.100.7:4711"}, "198.51.100.7"},
		{"XFF IPv6", nil, "10.0.0.1:5000", []string{"X-Forwarded-For", "2001:db8::7"}, "2001:db8::7"},
		{"XFF bracketed IPv6 with port", nil, "10.0.0.1:5000", []string{"X-Forwarded-For", "[2001:db8::7]:4711"}, "2001:db8::7"},
		{"XFF mapped IPv4", nil, "10.0.0.1:5000", []string{"X-Forwarded-For", "::ffff:198.51.100.7"}, "198.51.100.7"},
		{"XFF mapped trusted hop skipped", nil, "10.0.0.1:5000", []string{"X-Forwarded-For", "198.51.100.7, ::ffff:10.0.0.9"}, "198.51.100.7"},
		{"garbage hop stops at the proxy that wrote it", nil, "10.0.0.1:5000",
			[]string{"X-Forwarded-For", "198.51.100.7, garbage, 10.0.0.2"}, "10.0.0.2"},
		{"garbage nearest hop", nil, "10.0.0.1:5000", []string{"X-Forwarded-For", "198.51.100.7, not-an-ip"}, "10.0.0.1"},
		{"zone refused", nil, "10.0.0.1:5000", []string{"X-Forwarded-For", "fe80::1%eth0"}, "10.0.0.1"},
		{"unterminated bracket", nil, "10.0.0.1:5000", []string{"X-Forwarded-For", "[2001:db8::7"}, "10.0.0.1"},
		{"all trusted: leftmost", nil, "10.0.0.1:5000", []string{"X-Forwarded-For", "10.0.0.7, 10.0.0.3"}, "10.0.0.7"},
		{"all trusted over two lines: leftmost", nil, "10.0.0.1:5000",
			[]string{"X-Forwarded-For", "fd00::7", "X-Forwarded-For", "10.0.0.3"}, "fd00::7"},
		{"mapped IPv6 peer is trusted", nil, "[::ffff:10.0.0.1]:5000", []string{"X-Forwarded-For", "198.51.100.7"}, "198.51.100.7"},
		{"mapped IPv6 peer unmapped", nil, "[::ffff:203.0.113.9]:5000", []string{"X-Forwarded-For", "198.51.100.7"}, "203.0.113.9"},
		{"IPv6 trusted peer", nil, "[fd00::1]:443", []string{"X-Forwarded-For", "198.51.100.7"}, "198.51.100.7"},
		{"Forwarded", nil, "10.0.0.1:5000", []string{"Forwarded", "for=198.51.100.7;proto=https;by=10.0.0.1"}, "198.51.100.7"},
		{"Forwarded case-insensitive name", nil, "10.0.0.1:5000", []string{"Forwarded", "For=198.51.100.7"}, "198.51.100.7"},
		{"Forwarded quoted IPv6 with port", nil, "10.0.0.1:5000",
			[]string{"Forwarded", `for="[2001:db8:cafe::17]:4711"`}, "2001:db8:cafe::17"},
		{"Forwarded quoted IPv4 with port", nil, "10.0.0.1:5000", []string{"Forwarded", `for="198.51.100.7:4711"`}, "198.51.100.7"},
		{"Forwarded chain", nil, "10.0.0.1:5000",
			[]string{"Forwarded", `for=6.6.6.6, for=198.51.100.7;proto=https, for="[fd00::2]"`}, "198.51.100.7"},
		{"Forwarded two lines", nil, "10.0.0.1:5000",
			[]string{"Forwarded", "for=6.6.6.6, for=198.51.100.7", "Forwarded", "for=10.0.0.2"}, "198.51.100.7"},
		{"Forwarded mode ignores XFF", nil, "10.0.0.1:5000",
			[]string{"Forwarded", "for=198.51.100.7", "X-Forwarded-For", "192.0.2.1"}, "198.51.100.7"},
		{"Forwarded obfuscated node", nil, "10.0.0.1:5000", []string{"Forwarded", "for=_hidden"}, "10.0.0.1"},
		{"Forwarded unknown", nil, "10.0.0.1:5000", []string{"Forwarded", "for=unknown, for=10.0.0.2"}, "10.0.0.2"},
		{"Forwarded without for", nil, "10.0.0.1:5000", []string{"Forwarded", "proto=https"}, "10.0.0.1"},
		{"single trusted address", []netip.Prefix{netip.MustParsePrefix("192.0.2.10/32")}, "192.0.2.10:1",
			[]string{"X-Forwarded-For", "198.51.100.7"}, "198.51.100.7"},
		{"neighbour of a single trusted address", []netip.Prefix{netip.MustParsePrefix("192.0.2.10/32")}, "192.0.2.11:1",
			[]string{"X-Forwarded-For", "198.51.100.7"}, "192.0.2.11"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := serveClientIP(t, tc, false)
			if got.client != tc.client {
				t.Errorf("ClientIP %s, want %s", got.client, tc.client)
			}
			if got.remoteAddr != tc.peer {
				t.Errorf("RemoteAddr %q changed without RealIP", got.remoteAddr)
			}
			if withRealIP := serveClientIP(t, tc, true); withRealIP.client != tc.client {
				t.Errorf("ClientIP below RealIP %s, want %s", withRealIP.client, tc.client)
			}
		})
	}
}

type ipSeen struct {
	client     string // c.ClientIP()
	remoteAddr string // r.RemoteAddr seen by a plain http.Handler below RealIP
	secure     bool
	scheme     string
	hsts       string
}

// serveClientIP serves tc on New(), with RealIP if realIP is set, and
// returns what the handlers saw.
func serveClientIP(t *testing.T, tc ipCase, realIP bool) ipSeen {
	t.Helper()
	app := plinth.New()
	app.TrustedProxies = tc.trusted
	if tc.trusted == nil {
		app.TrustedProxies = defaultTrusted
	}
	// The proxies write the header the case sends: Forwarded when it has
	// one, X-Forwarded-For (the default) otherwise.
	for i := 0; i+1 < len(tc.hdr); i += 2 {
		if tc.hdr[i] == "Forwarded" {
			app.ForwardedHeader = "Forwarded"
		}
	}
	if realIP {
		app.Use(RealIP())
	}
	var seen ipSeen
	app.Get("/native", func(c *plinth.Ctx) error {
		seen.client = c.ClientIP().String()
		seen.secure = c.Secure()
		seen.scheme = c.Scheme()
		return c.NoContent(204)
	})
	app.HandleFunc("GET /plain", func(w http.ResponseWriter, r *http.Request) {
		seen.remoteAddr = r.RemoteAddr
		w.WriteHeader(204)
	})
	for _, path := range []string{"/native", "/plain"} {
		req := httptest.NewRequest("GET", path, nil)
		req.RemoteAddr = tc.peer
		for i := 0; i+1 < len(tc.hdr); i += 2 {
			req.Header.Add(tc.hdr[i], tc.hdr[i+1])
		}
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, req)
		if rec.Code != 204 {
			t.Fatalf("%s: status %d", path, rec.Code)
		}
		seen.hsts = rec.Header().Get("Strict-Transport-Security")
	}
	return seen
}

// TestSecureAndHSTS drives c.Secure and the default layer's HSTS through a
// real App: only TLS or a trusted proxy's word makes a request secure.
func TestSecureAndHSTS(t *testing.T) {
	none := []netip.Prefix{}
	const peer = "10.0.0.1:5000"
	cases := []struct {
		ipCase
		secure bool
	}{
		{ipCase{"plain", nil, peer, nil, ""}, false},
		{ipCase{"no proxies, spoofed XFP", none, peer, []string{"X-Forwarded-Proto", "https"}, ""}, false},
		{ipCase{"untrusted peer, spoofed XFP", nil, "203.0.113.9:1", []string{"X-Forwarded-Proto", "https"}, ""}, false},
		{ipCase{"untrusted peer, spoofed Forwarded", nil, "203.0.113.9:1", []string{"Forwarded", "for=1.2.3.4;proto=https"}, ""}, false},
		{ipCase{"trusted XFP https", nil, peer, []string{"X-Forwarded-Proto", "https"}, ""}, true},
		{ipCase{"trusted XFP HTTPS", nil, peer, []string{"X-Forwarded-Proto", "HTTPS"}, ""}, true},
		{ipCase{"trusted XFP http", nil, peer, []string{"X-Forwarded-Proto", "http"}, ""}, false},
		{ipCase{"XFP nearest proxy wins", nil, peer, []string{"X-Forwarded-Proto", "https, http"}, ""}, false},
		{ipCase{"XFP nearest proxy wins, https", nil, peer, []string{"X-Forwarded-Proto", "http, https"}, ""}, true},
		{ipCase{"XFP two lines", nil, peer, []string{"X-Forwarded-Proto", "http", "X-Forwarded-Proto", "https"}, ""}, true},
		{ipCase{"trusted Forwarded proto=https", nil, peer, []string{"Forwarded", "for=198.51.100.7;proto=https"}, ""}, true},
		{ipCase{"Forwarded quoted proto", nil, peer, []string{"Forwarded", `for="[2001:db8::1]:4711";proto="https"`}, ""}, true},
		{ipCase{"Forwarded nearest element", nil, peer, []string{"Forwarded", "for=1.2.3.4;proto=https, for=10.0.0.2;proto=http"}, ""}, false},
		{ipCase{"Forwarded mode ignores XFP", nil, peer,
			[]string{"Forwarded", "for=198.51.100.7", "X-Forwarded-Proto", "https"}, ""}, false},
		{ipCase{"mapped IPv6 trusted peer", nil, "[::ffff:10.0.0.1]:5000", []string{"X-Forwarded-Proto", "https"}, ""}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := serveClientIP(t, tc.ipCase, false)
			if got.secure != tc.secure {
				t.Errorf("Secure() %v, want %v", got.secure, tc.secure)
			}
			if want := map[bool]string{true: "https", false: "http"}[tc.secure]; got.scheme != want {
				t.Errorf("Scheme() %q, want %q", got.scheme, want)
			}
			if (got.hsts != "") != tc.secure {
				t.Errorf("Strict-Transport-Security %q with Secure %v", got.hsts, tc.secure)
			}
		})
	}

	// TLS makes a request secure whatever the headers.
	app := plinth.New()
	app.Get("/", func(c *plinth.Ctx) error { return c.Text(200, c.Scheme()) })
	req := httptest.NewRequest("GET", "/", nil)
	req.TLS = &tls.ConnectionState{}
	req.Header.Set("X-Forwarded-Proto", "http")
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	if rec.Body.String() != "https" || rec.Header().Get("Strict-Transport-Security") == "" {
		t.Errorf("TLS: scheme %q, HSTS %q", rec.Body, rec.Header().Get("Strict-Transport-Security"))
	}
}

func TestClientIPFromEnvironment(t *testing.T) {
	t.Setenv("PLINTH_TRUSTED_PROXIES", " 192.0.2.0/24 , 2001:db8::1 ")
	app := plinth.Bare()
	app.TrustedProxies = defaultTrusted // replaced by the variable
	var got netip.Addr
	app.Get("/", func(c *plinth.Ctx) error { got = c.ClientIP(); return nil })
	for _, tc := range []struct{ peer, want string }{
		{"192.0.2.200:1", "198.51.100.7"},
		{"[2001:db8::1]:1", "198.51.100.7"},
		{"10.0.0.1:1", "10.0.0.1"},
	} {
		req := httptest.NewRequest("GET", "/", nil)
		req.RemoteAddr = tc.peer
		req.Header.Set("X-Forwarded-For", "198.51.100.7")
		app.ServeHTTP(httptest.NewRecorder(), req)
		if got.String() != tc.want {
			t.Errorf("peer %s: ClientIP %s, want %s", tc.peer, got, tc.want)
		}
	}
}

func TestRealIPRewritesRemoteAddr(t *testing.T) {
	cases := []struct {
		ipCase
		remoteAddr string // what plain handlers see
	}{
		{ipCase{"untouched without proxies", []netip.Prefix{}, "203.0.113.9:5000", []string{"X-Forwarded-For", "1.2.3.4"}, "203.0.113.9"}, "203.0.113.9:5000"},
		{ipCase{"untouched for an untrusted peer", nil, "203.0.113.9:5000", []string{"X-Forwarded-For", "1.2.3.4"}, "203.0.113.9"}, "203.0.113.9:5000"},
		{ipCase{"untouched without a header", nil, "10.0.0.1:5000", nil, "10.0.0.1"}, "10.0.0.1:5000"},
		{ipCase{"mapped peer untouched", nil, "[::ffff:203.0.113.9]:5000", nil, "203.0.113.9"}, "[::ffff:203.0.113.9]:5000"},
		{ipCase{"IPv4 client, port 0", nil, "10.0.0.1:5000", []string{"X-Forwarded-For", "198.51.100.7:4711"}, "198.51.100.7"}, "198.51.100.7:0"},
		{ipCase{"IPv6 client, port 0", nil, "10.0.0.1:5000", []string{"Forwarded", `for="[2001:db8::7]:4711"`}, "2001:db8::7"}, "[2001:db8::7]:0"},
		{ipCase{"all trusted", nil, "10.0.0.1:5000", []string{"X-Forwarded-For", "10.0.0.7"}, "10.0.0.7"}, "10.0.0.7:0"},
		{ipCase{"not an IP peer", nil, "@", []string{"X-Forwarded-For", "198.51.100.7"}, "invalid IP"}, "@"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := serveClientIP(t, tc.ipCase, true)
			if got.client != tc.client {
				t.Errorf("ClientIP %s, want %s", got.client, tc.client)
			}
			if got.remoteAddr != tc.remoteAddr {
				t.Errorf("RemoteAddr %q, want %q", got.remoteAddr, tc.remoteAddr)
			}
		})
	}
}

// TestRealIPRestoresRequest: code outside RealIP (an outer middleware, the
// error renderer) sees the original request again.
func TestRealIPRestoresRequest(t *testing.T) {
	app := plinth.Bare()
	app.TrustedProxies = defaultTrusted
	var inner, outer string
	app.Use(func(next plinth.HandlerFunc) plinth.HandlerFunc {
		return func(c *plinth.Ctx) error {
			err := next(c)
			outer = c.Request().RemoteAddr
			return err
		}
	}, RealIP())
	app.Get("/", func(c *plinth.Ctx) error {
		inner = c.Request().RemoteAddr
		if c.PeerAddr().String() != "10.0.0.1:5000" {
			t.Errorf("PeerAddr %s below RealIP, want the connection's peer 10.0.0.1:5000", c.PeerAddr())
		}
		return plinth.NotFound("nope")
	})
	req := httptest.NewRequest("GET", "/", nil)
	req.RemoteAddr = "10.0.0.1:5000"
	req.Header.Set("X-Forwarded-For", "198.51.100.7")
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	if inner != "198.51.100.7:0" || outer != "10.0.0.1:5000" || rec.Code != 404 {
		t.Errorf("inner %q, outer %q, status %d", inner, outer, rec.Code)
	}
	if req.RemoteAddr != "10.0.0.1:5000" {
		t.Errorf("the caller's request was modified: %q", req.RemoteAddr)
	}
}

// TestRealIPKeepsSecure shows a core bug (reported to the lead, not fixed
// here since clientip.go is not ours): Ctx.Secure re-reads the peer from the
// request's RemoteAddr, so below RealIP, whose rewritten RemoteAddr is the
// client, the trusted proxy's X-Forwarded-Proto is no longer believed and
// c.Secure() turns false. The fix belongs in the core: remember the
// connection's peer (or the Secure result) at reset, as ClientIP caches its
// answer.
func TestRealIPKeepsSecure(t *testing.T) {
	app := plinth.Bare()
	app.TrustedProxies = defaultTrusted
	app.Use(RealIP())
	var secure bool
	app.Get("/", func(c *plinth.Ctx) error { secure = c.Secure(); return nil })
	req := httptest.NewRequest("GET", "/", nil)
	req.RemoteAddr = "10.0.0.1:5000"
	req.Header.Set("X-Forwarded-For", "198.51.100.7")
	req.Header.Set("X-Forwarded-Proto", "https")
	app.ServeHTTP(httptest.NewRecorder(), req)
	if !secure {
		t.Error("c.Secure() is false below RealIP: the connection's peer was lost")
	}
}

// TestRealIPAllocations: nothing when the client is the peer; the request
// copy and the address string when it is rewritten.
func TestRealIPAllocations(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	for _, tc := range []struct {
		name    string
		trusted []netip.Prefix
		peer    string
		xff     string
		budget  float64
	}{
		{"no proxies", nil, "203.0.113.9:5000", "1.2.3.4", 0},
		{"untrusted peer", defaultTrusted, "203.0.113.9:5000", "1.2.3.4", 0},
		{"trusted peer, no header", defaultTrusted, "10.0.0.1:5000", "", 0},
		{"rewritten", defaultTrusted, "10.0.0.1:5000", "198.51.100.7", 2},
	} {
		app := plinth.Bare()
		app.TrustedProxies = tc.trusted
		app.Use(RealIP())
		app.Get("/", func(c *plinth.Ctx) error { return c.Text(200, "Hello, World!") })
		app.Build()
		req := httptest.NewRequest("GET", "/", nil)
		req.RemoteAddr = tc.peer
		if tc.xff != "" {
			req.Header.Set("X-Forwarded-For", tc.xff)
		}
		w := newWebWriter()
		got := testing.AllocsPerRun(200, func() {
			w.reset()
			app.ServeHTTP(w, req)
		})
		if got != tc.budget {
			t.Errorf("%s: %v allocs/request, budget %v", tc.name, got, tc.budget)
		}
	}
}

// TestSpoofedForwardedBehindXFFProxy: behind a trusted proxy
// that appends only X-Forwarded-For, a client that adds its own Forwarded
// header (a new for= each time, proto=https) neither escapes the rate
// limiter keyed by client IP nor gets HSTS over plain HTTP: 5 of 20 requests
// pass a limit of 5.
func TestSpoofedForwardedBehindXFFProxy(t *testing.T) {
	app := plinth.New()
	app.TrustedProxies = defaultTrusted
	app.Use(NewRateLimiter(RateLimiterConfig{Limit: Limit{Rate: 5, Per: time.Hour}}).Middleware())
	app.Get("/", func(c *plinth.Ctx) error { return c.Text(200, c.ClientIP().String()) })
	passed := 0
	for i := range 20 {
		req := httptest.NewRequest("GET", "/", nil)
		req.RemoteAddr = "10.0.0.1:5000" // the proxy
		req.Header.Set("Forwarded", fmt.Sprintf("for=192.0.2.%d;proto=https", i+1))
		req.Header.Set("X-Forwarded-For", "198.51.100.7") // what the proxy wrote
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, req)
		if rec.Code == 200 {
			passed++
			if rec.Body.String() != "198.51.100.7" {
				t.Errorf("client %q, want the X-Forwarded-For address", rec.Body)
			}
		}
		if rec.Header().Get("Strict-Transport-Security") != "" {
			t.Errorf("HSTS sent over plain HTTP on a spoofed proto=https")
		}
	}
	if passed != 5 {
		t.Errorf("%d of 20 requests passed a limit of 5", passed)
	}
}

package plinth_test

import (
	"crypto/tls"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/racetest"
)

// clientApp answers with ClientIP and Secure, behind the given proxies.
func clientApp(trusted ...string) *plinth.App {
	app := plinth.New()
	for _, p := range trusted {
		app.TrustedProxies = append(app.TrustedProxies, netip.MustParsePrefix(p))
	}
	app.Get("/", func(c *plinth.Ctx) error {
		return c.Text(200, c.ClientIP().String()+" "+strconv.FormatBool(c.Secure())+" "+c.Scheme())
	})
	return app
}

func TestClientIP(t *testing.T) {
	proxies := []string{"10.0.0.0/8", "fd00::/8"}
	for _, tc := range []struct {
		name    string
		peer    string
		headers [][2]string
		want    string // "ip secure scheme"
		hsts    bool
		header  string // App.ForwardedHeader: "" (X-Forwarded-For) or "Forwarded"
	}{
		{"no headers", "192.0.2.1:1234", nil, "192.0.2.1 false http", false, ""},
		{"untrusted peer, spoofed XFF ignored", "192.0.2.1:1234",
			[][2]string{{"X-Forwarded-For", "203.0.113.9"}, {"X-Forwarded-Proto", "https"}}, "192.0.2.1 false http", false, ""},
		{"untrusted peer, spoofed Forwarded ignored", "192.0.2.1:1234",
			[][2]string{{"Forwarded", "for=203.0.113.9;proto=https"}}, "192.0.2.1 false http", false, ""},
		{"trusted peer, one hop", "10.1.1.1:80",
			[][2]string{{"X-Forwarded-For", "203.0.113.9"}}, "203.0.113.9 false http", false, ""},
		{"trusted chain read right to left", "10.1.1.1:80",
			[][2]string{{"X-Forwarded-For", "198.51.100.7, 203.0.113.9, 10.2.2.2"}}, "203.0.113.9 false http", false, ""},
		{"client-supplied leftmost entry is not believed", "10.1.1.1:80",
			[][2]string{{"X-Forwarded-For", "1.2.3.4, 203.0.113.9"}}, "203.0.113.9 false http", false, ""},
		{"several header lines", "10.1.1.1:80",
			[][2]string{{"X-Forwarded-For", "198.51.100.7"}, {"X-Forwarded-For", "10.3.3.3, 10.2.2.2"}}, "198.51.100.7 false http", false, ""},
		{"every hop trusted: the leftmost", "10.1.1.1:80",
			[][2]string{{"X-Forwarded-For", "10.9.9.9, 10.2.2.2"}}, "10.9.9.9 false http", false, ""},
		{"garbage hop stops at the proxy that wrote it", "10.1.1.1:80",
			[][2]string{{"X-Forwarded-For", "203.0.113.9, not-an-ip, 10.2.2.2"}}, "10.2.2.2 false http", false, ""},
		{"empty elements skipped", "10.1.1.1:80",
			[][2]string{{"X-Forwarded-For", " , 203.0.113.9 ,, "}}, "203.0.113.9 false http", false, ""},
		{"IPv4 with port in XFF", "10.1.1.1:80",
			[][2]string{{"X-Forwarded-For", "203.0.113.9:5555"}}, "203.0.113.9 false http", false, ""},
		{"Forwarded mode ignores X-Forwarded-For", "10.1.1.1:80",
			[][2]string{{"Forwarded", "for=198.51.100.7"}, {"X-Forwarded-For", "203.0.113.9"}}, "198.51.100.7 false http", false, "Forwarded"},
		{"Forwarded quoted IPv6 with port, proto https", "10.1.1.1:80",
			[][2]string{{"Forwarded", `for="[2001:db8::7]:4711";proto=https;by=10.1.1.1`}}, "2001:db8::7 true https", true, "Forwarded"},
		{"Forwarded several elements", "10.1.1.1:80",
			[][2]string{{"Forwarded", "for=198.51.100.7, for=10.2.2.2;proto=https"}}, "198.51.100.7 true https", true, "Forwarded"},
		{"Forwarded obfuscated node stops the walk", "10.1.1.1:80",
			[][2]string{{"Forwarded", "for=_hidden, for=10.2.2.2"}}, "10.2.2.2 false http", false, "Forwarded"},
		{"Forwarded unknown", "10.1.1.1:80",
			[][2]string{{"Forwarded", "for=unknown"}}, "10.1.1.1 false http", false, "Forwarded"},
		// Behind a proxy that writes X-Forwarded-For only, a
		// client's own Forwarded header must change nothing.
		{"X-Forwarded-For mode ignores a spoofed Forwarded", "10.1.1.1:80",
			[][2]string{{"Forwarded", "for=1.2.3.4;proto=https"}, {"X-Forwarded-For", "203.0.113.9"}}, "203.0.113.9 false http", false, ""},
		{"X-Forwarded-For mode, Forwarded alone ignored", "10.1.1.1:80",
			[][2]string{{"Forwarded", "for=1.2.3.4;proto=https"}}, "10.1.1.1 false http", false, ""},
		{"Forwarded mode ignores X-Forwarded-Proto", "10.1.1.1:80",
			[][2]string{{"Forwarded", "for=198.51.100.7"}, {"X-Forwarded-Proto", "https"}}, "198.51.100.7 false http", false, "Forwarded"},
		{"X-Forwarded-Proto last value counts", "10.1.1.1:80",
			[][2]string{{"X-Forwarded-For", "203.0.113.9"}, {"X-Forwarded-Proto", "http, https"}}, "203.0.113.9 true https", true, ""},
		{"X-Forwarded-Proto http", "10.1.1.1:80",
			[][2]string{{"X-Forwarded-Proto", "http"}}, "10.1.1.1 false http", false, ""},
		{"IPv4-mapped peer", "[::ffff:10.1.1.1]:80",
			[][2]string{{"X-Forwarded-For", "203.0.113.9"}}, "203.0.113.9 false http", false, ""},
		{"IPv6 trusted peer", "[fd00::1]:80",
			[][2]string{{"X-Forwarded-For", "2001:db8::1"}}, "2001:db8::1 false http", false, ""},
		{"bracketed IPv6 in XFF", "10.1.1.1:80",
			[][2]string{{"X-Forwarded-For", "[2001:db8::1]:80"}}, "2001:db8::1 false http", false, ""},
		{"unterminated bracket", "10.1.1.1:80",
			[][2]string{{"X-Forwarded-For", "[2001:db8::1"}}, "10.1.1.1 false http", false, ""},
		{"zone rejected", "10.1.1.1:80",
			[][2]string{{"X-Forwarded-For", "fe80::1%eth0"}}, "10.1.1.1 false http", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := clientApp(proxies...)
			app.ForwardedHeader = tc.header
			req := httptest.NewRequest("GET", "/", nil)
			req.RemoteAddr = tc.peer
			for _, h := range tc.headers {
				req.Header.Add(h[0], h[1])
			}
			rec := httptest.NewRecorder()
			app.ServeHTTP(rec, req)
			if rec.Body.String() != tc.want {
				t.Errorf("got %q, want %q", rec.Body, tc.want)
			}
			if got := rec.Header().Get("Strict-Transport-Security") != ""; got != tc.hsts {
				t.Errorf("HSTS sent: %v, want %v", got, tc.hsts)
			}
		})
	}
}

func TestClientIPWithoutTrustedProxies(t *testing.T) {
	app := clientApp()
	req := httptest.NewRequest("GET", "/", nil)
	req.RemoteAddr = "10.1.1.1:80"
	req.Header.Set("X-Forwarded-For", "203.0.113.9")
	req.Header.Set("X-Forwarded-Proto", "https")
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	if rec.Body.String() != "10.1.1.1 false http" || rec.Header().Get("Strict-Transport-Security") != "" {
		t.Errorf("forwarding headers believed without trusted proxies: %q %v", rec.Body, rec.Header())
	}
	req.TLS = &tls.ConnectionState{}
	rec = httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	if rec.Body.String() != "10.1.1.1 true https" || rec.Header().Get("Strict-Transport-Security") == "" {
		t.Errorf("TLS request: %q, HSTS %q", rec.Body, rec.Header().Get("Strict-Transport-Security"))
	}
}

func TestTrustedProxiesEnv(t *testing.T) {
	t.Setenv("PLINTH_TRUSTED_PROXIES", "127.0.0.1, 10.0.0.0/8")
	app := clientApp() // the variable replaces App.TrustedProxies
	req := httptest.NewRequest("GET", "/", nil)
	req.RemoteAddr = "127.0.0.1:80"
	req.Header.Set("X-Forwarded-For", "203.0.113.9, 10.0.0.1")
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	if rec.Body.String() != "203.0.113.9 false http" {
		t.Errorf("got %q", rec.Body)
	}
	for _, bad := range []string{"nonsense", "10.0.0.0/33", "fe80::1%eth0"} {
		t.Setenv("PLINTH_TRUSTED_PROXIES", bad)
		func() {
			defer func() {
				p := recover()
				msg, _ := p.(string)
				if p == nil || !strings.Contains(msg, "PLINTH_TRUSTED_PROXIES") {
					t.Errorf("PLINTH_TRUSTED_PROXIES=%q: Build panicked with %v, want an error naming the variable", bad, p)
				}
			}()
			clientApp().Build()
		}()
	}
}

func TestClientIPAllocations(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	app := plinth.Bare()
	app.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	var sink netip.Addr
	app.Get("/", func(c *plinth.Ctx) error { sink = c.ClientIP(); _ = c.Secure(); return nil })
	req := httptest.NewRequest("GET", "/", nil)
	req.RemoteAddr = "10.1.1.1:80"
	req.Header.Set("X-Forwarded-For", "203.0.113.9, 10.2.2.2")
	req.Header.Set("X-Forwarded-Proto", "https")
	w := &discardWriter{h: map[string][]string{}}
	if n := testing.AllocsPerRun(200, func() { app.ServeHTTP(w, req) }); n != 0 {
		t.Errorf("ClientIP behind a proxy allocates %v times per request, want 0", n)
	}
	if sink.String() != "203.0.113.9" {
		t.Errorf("ClientIP %v", sink)
	}
}

// FuzzClientIP: arbitrary forwarding headers from a trusted peer never panic
// and give either the peer, an address found in the headers, or nothing else.
func FuzzClientIP(f *testing.F) {
	f.Add("203.0.113.9, 10.0.0.1", `for="[2001:db8::1]:80";proto=https`, "https")
	f.Add("[", "for=", ",,,")
	f.Add("1.2.3.4:5:6", `for="`, "")
	f.Fuzz(func(t *testing.T, xff, fwd, proto string) {
		app := plinth.Bare()
		app.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
		var got netip.Addr
		app.Get("/", func(c *plinth.Ctx) error { got = c.ClientIP(); _ = c.Secure(); return nil })
		req := httptest.NewRequest("GET", "/", nil)
		req.RemoteAddr = "10.1.1.1:80"
		req.Header["X-Forwarded-For"] = []string{xff}
		if fwd != "" {
			req.Header["Forwarded"] = []string{fwd}
		}
		req.Header["X-Forwarded-Proto"] = []string{proto}
		app.ServeHTTP(httptest.NewRecorder(), req)
		if !got.IsValid() {
			t.Fatalf("no client address for XFF %q Forwarded %q", xff, fwd)
		}
		if got.Is4In6() {
			t.Fatalf("mapped address %v returned", got)
		}
	})
}

// IPv4-mapped prefixes match the (unmapped) IPv4 peers they describe.
func TestTrustedProxiesMappedPrefix(t *testing.T) {
	app := plinth.Bare()
	app.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("::ffff:10.0.0.0/104")}
	app.Get("/", func(c *plinth.Ctx) error { return c.Text(200, c.ClientIP().String()) })
	req := httptest.NewRequest("GET", "/", nil)
	req.RemoteAddr = "10.0.0.1:1"
	req.Header.Set("X-Forwarded-For", "198.51.100.7")
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	if rec.Body.String() != "198.51.100.7" {
		t.Errorf("got %q, want 198.51.100.7", rec.Body)
	}
}

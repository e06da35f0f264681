package plinth

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"
)

// TestEngineSecurityHeadersMatchStd: plinth.New() on the engine
// sends the security headers net/http's path sends, the pre-rendered block
// yielding to a header the handler set, and the CSP nonce on the map path.
func TestEngineSecurityHeadersMatchStd(t *testing.T) {
	get := func(engine, path string) http.Header {
		app := New()
		app.Config = testConfig()
		app.Config.Engine = engine
		app.Get("/json", func(c *Ctx) error { return c.JSON(200, map[string]int{"a": 1}) })
		app.Get("/html", func(c *Ctx) error {
			c.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, err := c.Writer().Write([]byte("<p>hi</p>"))
			return err
		})
		app.Get("/own", func(c *Ctx) error {
			c.Header().Set("Referrer-Policy", "origin")
			c.Header()["X-Frame-Options"] = nil
			c.Header().Set("Content-Type", "text/html")
			return c.HTML(200, "x")
		})
		app.Get("/nonce", func(c *Ctx) error {
			n := c.CSPNonce()
			c.Header().Set("Content-Type", "text/html")
			return c.HTML(200, n)
		})
		s := serveApp(t, app, listenLocal(t))
		r := do(context.Background(), newClient(t, false), "GET", s.url+path, nil)
		if r.err != nil || r.status != 200 {
			t.Fatalf("%s %s: %v %d", engine, path, r.err, r.status)
		}
		if engine == EngineFast && path == "/nonce" && !strings.Contains(r.header.Get("Content-Security-Policy"), "'nonce-"+r.body+"'") {
			t.Errorf("nonce %q not in CSP %q", r.body, r.header.Get("Content-Security-Policy"))
		}
		h := r.header.Clone()
		for _, k := range []string{"Date", "X-Request-Id", "Content-Security-Policy"} {
			if path == "/nonce" && k == "Content-Security-Policy" {
				h.Del(k)
				continue
			}
			if k != "Content-Security-Policy" && h.Get(k) == "" {
				t.Errorf("%s %s: no %s", engine, path, k)
			}
			if k != "Content-Security-Policy" {
				h.Del(k)
			}
		}
		return h
	}
	for _, path := range []string{"/json", "/html", "/own", "/nonce"} {
		std, fast := get(EngineStd, path), get(EngineFast, path)
		if len(std) != len(fast) {
			t.Errorf("%s: std %v\nfast %v", path, std, fast)
			continue
		}
		for k, v := range std {
			if strings.Join(fast[k], "|") != strings.Join(v, "|") {
				t.Errorf("%s: %s: std %q, fast %q", path, k, v, fast[k])
			}
		}
	}
}

// TestEngineRefusesTLSAndH2C: what the engine does not serve is refused at
// Serve, naming PLINTH_ENGINE.
func TestEngineRefusesTLSAndH2C(t *testing.T) {
	if _, set := os.LookupEnv("PLINTH_ENGINE"); set {
		t.Skip("PLINTH_ENGINE is set: it overrides Config.Engine, which this test sets")
	}
	for _, cfg := range []Config{{TLSCertFile: "c.pem", TLSKeyFile: "k.pem"}, {H2C: true}} {
		app := New()
		app.Config = cfg
		app.Config.Logger = quietLogger()
		app.Config.Engine = EngineFast
		err := app.Serve(context.Background(), listenLocal(t))
		if err == nil || !strings.Contains(err.Error(), "PLINTH_ENGINE=fast") {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
	app := New()
	app.Config.Engine = "turbo"
	app.Config.Logger = quietLogger()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // should it serve after all, it returns at once
	if err := app.Serve(ctx, listenLocal(t)); err == nil || !strings.Contains(err.Error(), "PLINTH_ENGINE") {
		t.Errorf("bad engine name: %v", err)
	}
}

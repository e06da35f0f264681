package plinth

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// headersApp is plinth.New() with a document, an API answer, a handler
// that sets its own security headers (a CSP with a nonce, X-Frame-Options:
// the handler's wins), a streamed body and a 404.
func headersApp() *App {
	app := New()
	app.Get("/page", func(c *Ctx) error { return c.HTML(200, "<p>"+c.CSPNonce()+"</p>") })
	app.Get("/ok", func(c *Ctx) error { return c.Text(200, c.RequestID()) })
	app.Get("/json", func(c *Ctx) error { return c.JSON(201, map[string]int{"a": 1}) })
	app.Get("/own", func(c *Ctx) error {
		c.Writer().Header().Set("Content-Security-Policy", "script-src 'nonce-"+c.CSPNonce()+"'")
		c.Writer().Header().Set("X-Frame-Options", "DENY")
		return c.HTML(200, c.CSPNonce())
	})
	app.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, strings.Repeat("<p>big</p>", 2000)) // beyond one write buffer
	})
	app.Get("/silent", func(c *Ctx) error { return nil })
	return app
}

// varying are the headers that differ between two responses by design.
var varying = []string{"Date", "X-Request-Id"}

// TestEngineDefaultHeaders: the default layer's headers (security
// headers, request IDs) come over the wire the same on both engines,
// request for request; Date and the request ID aside, the response heads
// are equal.
func TestEngineDefaultHeaders(t *testing.T) {
	t.Parallel()
	requests := []string{"GET /page", "GET /ok", "GET /json", "GET /own", "GET /plain", "GET /silent", "GET /nope",
		"HEAD /page", "OPTIONS /ok", "POST /ok", "GET //x", "OPTIONS *"}
	heads := map[string][]string{}
	for _, eng := range engineNames {
		app := headersApp()
		s, _ := serveOn(t, eng, app)
		c := dialRaw(t, s.addr)
		br := bufio.NewReader(c)
		for _, rq := range requests {
			method, target, _ := strings.Cut(rq, " ")
			writeRaw(t, c, method+" "+target+" HTTP/1.1\r\nHost: example.com\r\n\r\n")
			_ = c.SetReadDeadline(deadlineSoon())
			resp, err := http.ReadResponse(br, &http.Request{Method: method})
			if err != nil {
				t.Fatalf("%s: %s: %v", eng, rq, err)
			}
			body, _ := io.ReadAll(resp.Body)
			id := resp.Header.Get("X-Request-Id")
			if len(id) != 26 && target != "*" {
				t.Errorf("%s: %s: X-Request-Id %q", eng, rq, id)
			}
			if target == "/ok" && method == "GET" && string(body) != id {
				t.Errorf("%s: the handler saw request ID %q, the response carries %q", eng, body, id)
			}
			if target == "/own" {
				if csp := resp.Header.Values("Content-Security-Policy"); len(csp) != 1 || !strings.Contains(csp[0], "'nonce-"+string(body)+"'") {
					t.Errorf("%s: the handler's CSP did not win: %q (nonce %q)", eng, csp, body)
				}
				if xfo := resp.Header.Values("X-Frame-Options"); !slices.Equal(xfo, []string{"DENY"}) {
					t.Errorf("%s: the handler's X-Frame-Options did not win: %q", eng, xfo)
				}
			}
			for _, k := range varying {
				resp.Header.Del(k)
			}
			if target == "/page" || target == "/own" { // the nonce varies
				resp.Header.Del("Content-Security-Policy")
			}
			heads[rq] = append(heads[rq], fmt.Sprintf("%d %v te=%q cl=%d body=%d", resp.StatusCode, canonical(resp.Header), resp.TransferEncoding, resp.ContentLength, len(body)))
		}
	}
	for _, rq := range requests {
		if h := heads[rq]; len(h) == 2 && h[0] != h[1] {
			t.Errorf("%s: the response heads differ\n  std:  %s\n  fast: %s", rq, h[0], h[1])
		}
	}
	// An incoming request ID is kept when valid and replaced when not, on both.
	for _, eng := range engineNames {
		s, _ := serveOn(t, eng, headersApp())
		for in, kept := range map[string]bool{"abc-123_X.y": true, "<script>": false, "a\xffb": false} {
			resp, body, _, _ := rawRoundTrip(t, s.addr, "GET /ok HTTP/1.1\r\nHost: a\r\nX-Request-Id: "+in+"\r\n\r\n")
			got := resp.Header.Get("X-Request-Id")
			if (got == in) != kept || body != got {
				t.Errorf("%s: incoming ID %q: response %q, handler %q, want kept=%v", eng, in, got, body, kept)
			}
		}
	}
}

func canonical(h http.Header) string {
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range h {
			if !yield(k) {
				return
			}
		}
	})
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%q ", k, h[k])
	}
	return b.String()
}

// Package plinthtest tests a Plinth App in a few lines: a client that serves
// requests to the App in process (or over a real loopback server), keeps
// cookies, and returns responses with chainable assertions that fail the
// test with the request, the status, the problem's detail and the body.
//
//	c := plinthtest.New(t, NewApp(), plinthtest.Config{})
//	c.PostJSON("/accounts", `{"email":"x"}`).
//		Problem(422, "").HasField("body.plan", "required")
//	var acc Account
//	c.PostJSON("/accounts", NewAccount{...}).Status(201).JSON(&acc)
//
// Every response of an operation that the App's OpenAPI document describes
// (api.New registers it) is checked against the document: its status is
// declared, its content type is listed and its JSON body matches the
// schema; a mismatch fails the test with the JSON path of the first
// difference. Config.SkipOpenAPI switches the check off.
//
// A Client fails the test it was made for; c.In(t) is the same Client
// (its cookies included) for a subtest of t.Run. The assertions share one
// vocabulary with webtest, mailtest and jobstest (Count, Last, Has/HasX,
// NoX: docs/testing.md).
//
// Web flows (forms with their CSRF field, signing in, sessions and flashes)
// are in the package web/webtest, built on this one.
package plinthtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
)

// Config configures a Client. Its zero value serves in process, with the
// OpenAPI check on and redirects not followed.
type Config struct {
	// Server serves the App over a real loopback connection
	// (httptest.NewServer, closed at the test's cleanup) instead of in
	// process: the server loop runs too (read timeouts, protocols). Default
	// false: in process, no port, no network.
	Server bool
	// FollowRedirects makes every request follow redirects (up to 10), as
	// a browser does. Default false: a 3xx is the response, assert it with
	// Redirect and follow one with Response.Follow.
	FollowRedirects bool
	// SkipOpenAPI switches off the check of responses against the App's
	// OpenAPI document. Default false: checked, when the App has one.
	SkipOpenAPI bool
	// Header is sent with every request (a request's own headers win).
	Header http.Header
}

// Client sends requests to one App and keeps its cookies. Make it with New;
// In gives a Client for a subtest, with the same cookies. It is safe for
// concurrent use, but the cookies it keeps are shared by all the requests:
// parallel browser sessions need a Client each.
type Client struct {
	t   testing.TB
	app *plinth.App
	cfg Config

	srv  *httptest.Server
	hc   *http.Client
	base string // "http://example.com" in process, the server's URL otherwise

	jar *jar // shared with the Clients In made

	docOnce sync.Once
	doc     *document
	docErr  error
}

// New returns a Client of app for the test t. A nil app fails the test.
func New(t testing.TB, app *plinth.App, cfg Config) *Client {
	t.Helper()
	if app == nil {
		t.Fatalf("plinthtest.New: the App is nil")
		return nil
	}
	c := &Client{t: t, app: app, cfg: cfg, base: "http://example.com", jar: &jar{}}
	if cfg.Server {
		c.srv = httptest.NewServer(app)
		t.Cleanup(c.srv.Close)
		c.base = c.srv.URL
		c.hc = &http.Client{
			Timeout:       30 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	return c
}

// jar is a Client's cookies, shared by the Clients In makes.
type jar struct {
	mu      sync.Mutex
	cookies []*http.Cookie
}

// In returns a Client bound to t, a subtest's (t.Run's), sharing c's
// cookie jar, App, server and Config: its failed assertions fail t, and
// stop t's goroutine, instead of calling the parent test's Fatalf from the
// subtest (which Go does not allow). Cookies set through either Client are
// seen by both, as one browser's.
//
//	t.Run("signed in", func(t *testing.T) {
//		c.In(t).Get("/me").Status(200)
//	})
func (c *Client) In(t testing.TB) *Client {
	return &Client{t: t, app: c.app, cfg: c.cfg, srv: c.srv, hc: c.hc, base: c.base, jar: c.jar}
}

// App returns the App the Client sends requests to.
func (c *Client) App() *plinth.App { return c.app }

// URL returns the absolute URL of path as the Client sends it:
// http://example.com/path in process, the loopback server's otherwise.
func (c *Client) URL(path string) string { return c.base + path }

// Origin returns the origin requests are sent to, what a browser sends as
// Origin: "http://example.com" in process, the loopback server's otherwise.
func (c *Client) Origin() string { return c.base }

// Get sends GET path. header lists extra headers as name, value pairs (an
// empty value removes one the Client would send).
func (c *Client) Get(path string, header ...string) *Response {
	r, msg := c.send("GET", path, nil, "", header)
	if msg != "" {
		c.t.Helper()
		c.t.Fatalf("%s", msg)
	}
	return r
}

// Delete sends DELETE path.
func (c *Client) Delete(path string, header ...string) *Response {
	r, msg := c.send("DELETE", path, nil, "", header)
	if msg != "" {
		c.t.Helper()
		c.t.Fatalf("%s", msg)
	}
	return r
}

// Post sends POST path with body, of the content type contentType.
func (c *Client) Post(path, contentType string, body io.Reader, header ...string) *Response {
	r, msg := c.send("POST", path, body, contentType, header)
	if msg != "" {
		c.t.Helper()
		c.t.Fatalf("%s", msg)
	}
	return r
}

// PostJSON sends POST path with v as JSON: a string, []byte or
// json.RawMessage is sent as it is (so that a test can send broken JSON),
// anything else is encoded with encoding/json.
func (c *Client) PostJSON(path string, v any, header ...string) *Response {
	r, msg := c.sendJSON("POST", path, v, header)
	if msg != "" {
		c.t.Helper()
		c.t.Fatalf("%s", msg)
	}
	return r
}

// SendJSON sends method path with v as JSON, as PostJSON does (PUT, PATCH).
func (c *Client) SendJSON(method, path string, v any, header ...string) *Response {
	r, msg := c.sendJSON(method, path, v, header)
	if msg != "" {
		c.t.Helper()
		c.t.Fatalf("%s", msg)
	}
	return r
}

func (c *Client) sendJSON(method, path string, v any, header []string) (*Response, string) {
	var body io.Reader
	switch b := v.(type) {
	case string:
		body = strings.NewReader(b)
	case []byte:
		body = bytes.NewReader(b)
	case json.RawMessage:
		body = bytes.NewReader(b)
	default:
		data, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Sprintf("plinthtest: %s %s: cannot encode the body as JSON: %v", method, path, err)
		}
		body = bytes.NewReader(data)
	}
	return c.send(method, path, body, "application/json", header)
}

// PostForm sends POST path with form, URL-encoded, as an HTML form does
// (without the Origin a browser adds: Form's Submit sends it).
func (c *Client) PostForm(path string, form url.Values, header ...string) *Response {
	r, msg := c.send("POST", path, strings.NewReader(form.Encode()), "application/x-www-form-urlencoded", header)
	if msg != "" {
		c.t.Helper()
		c.t.Fatalf("%s", msg)
	}
	return r
}

// Do sends req, which httptest.NewRequest or http.NewRequest made, with the
// Client's cookies and headers (the request's own win); over a loopback
// server, its URL's scheme and host are replaced by the server's.
func (c *Client) Do(req *http.Request) *Response {
	if req == nil {
		c.t.Helper()
		c.t.Fatalf("plinthtest: Do(nil)")
		return nil
	}
	for k, vs := range c.cfg.Header {
		if _, ok := req.Header[k]; !ok {
			req.Header[k] = vs
		}
	}
	r, msg := c.do(req)
	if msg != "" {
		c.t.Helper()
		c.t.Fatalf("%s", msg)
	}
	return r
}

// send builds and sends a request; a mistake or a failed check is the
// message, which the exported caller fails the test with (so that the
// passing path calls no t.Helper, which costs a stack walk).
func (c *Client) send(method, path string, body io.Reader, contentType string, header []string) (*Response, string) {
	if len(header)%2 != 0 {
		return nil, fmt.Sprintf("plinthtest: %s %s: headers come in name, value pairs; %q has no value", method, path, header[len(header)-1])
	}
	if !strings.HasPrefix(path, "/") {
		return nil, fmt.Sprintf("plinthtest: %s %q: the path must start with /", method, path)
	}
	req := httptest.NewRequest(method, path, body)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, vs := range c.cfg.Header {
		req.Header[k] = vs
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i+1] == "" {
			req.Header.Del(header[i])
		} else {
			req.Header.Set(header[i], header[i+1])
		}
	}
	return c.do(req)
}

// do sends req, following redirects when configured.
func (c *Client) do(req *http.Request) (*Response, string) {
	r, msg := c.roundTrip(req)
	for n := 0; msg == "" && c.cfg.FollowRedirects && r.isRedirect(); n++ {
		if n == 10 {
			return nil, fmt.Sprintf("plinthtest: %s: more than 10 redirects", r.request())
		}
		var next *http.Request
		if next, msg = r.next(); msg == "" {
			r, msg = c.roundTrip(next)
		}
	}
	return r, msg
}

// roundTrip sends one request and records its response and cookies.
func (c *Client) roundTrip(req *http.Request) (*Response, string) {
	c.addCookies(req)
	r := &Response{t: c.t, c: c, method: req.Method, target: req.URL.RequestURI()}
	if c.srv == nil {
		r.rec = recorder{h: make(http.Header), buf: &r.buf}
		c.app.ServeHTTP(&r.rec, req)
		r.code, r.header = r.rec.result()
	} else {
		u := *req.URL
		base, _ := url.Parse(c.base)
		u.Scheme, u.Host = base.Scheme, base.Host
		out := req.Clone(req.Context())
		out.URL = &u
		out.Host = ""
		out.RequestURI = ""
		resp, err := c.hc.Do(out)
		if err != nil {
			return nil, fmt.Sprintf("plinthtest: %s %s: %v", req.Method, r.target, err)
		}
		_, err = r.buf.ReadFrom(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Sprintf("plinthtest: %s %s: reading the body: %v", req.Method, r.target, err)
		}
		r.code = resp.StatusCode
		r.header = resp.Header
	}
	c.keepCookies(r.header)
	if !c.cfg.SkipOpenAPI {
		if msg := c.checkOpenAPI(req, r); msg != "" {
			return r, msg
		}
	}
	return r, ""
}

// Through serves req with h instead of the App, as the Client's browser:
// with its cookies, the cookies h sets kept in its jar, and no OpenAPI
// check. Companion packages use it to act on the browser's session without
// a route of the App (webtest.SignIn serves the Sessions middleware and
// Auth.Login this way). req's path must start with /.
func (c *Client) Through(h http.Handler, req *http.Request) *Response {
	c.addCookies(req)
	r := &Response{t: c.t, c: c, method: req.Method, target: req.URL.RequestURI()}
	r.rec = recorder{h: make(http.Header), buf: &r.buf}
	h.ServeHTTP(&r.rec, req)
	r.code, r.header = r.rec.result()
	c.keepCookies(r.header)
	return r
}

// addCookies adds the jar's cookies for req's path to its Cookie header.
func (c *Client) addCookies(req *http.Request) {
	c.jar.mu.Lock()
	defer c.jar.mu.Unlock()
	if len(c.jar.cookies) == 0 {
		return
	}
	now := time.Now()
	for _, ck := range c.jar.cookies {
		if !ck.Expires.IsZero() && now.After(ck.Expires) {
			continue
		}
		if ck.Path != "" && ck.Path != "/" && !strings.HasPrefix(req.URL.Path, ck.Path) {
			continue
		}
		req.AddCookie(&http.Cookie{Name: ck.Name, Value: ck.Value})
	}
}

// keepCookies stores the cookies that h sets, and deletes those it
// expires.
func (c *Client) keepCookies(h http.Header) {
	lines := h["Set-Cookie"]
	if len(lines) == 0 {
		return
	}
	c.jar.mu.Lock()
	defer c.jar.mu.Unlock()
	for _, line := range lines {
		ck, err := http.ParseSetCookie(line)
		if err != nil {
			continue
		}
		if ck.MaxAge > 0 {
			ck.Expires = time.Now().Add(time.Duration(ck.MaxAge) * time.Second)
		}
		del := ck.MaxAge < 0 || (!ck.Expires.IsZero() && ck.Expires.Before(time.Now()))
		kept := c.jar.cookies[:0]
		for _, old := range c.jar.cookies {
			if old.Name != ck.Name || old.Path != ck.Path {
				kept = append(kept, old)
			}
		}
		c.jar.cookies = kept
		if !del {
			c.jar.cookies = append(c.jar.cookies, ck)
		}
	}
}

// Cookie returns the value of the cookie name that the Client keeps, and
// whether it keeps one.
func (c *Client) Cookie(name string) (string, bool) {
	c.jar.mu.Lock()
	defer c.jar.mu.Unlock()
	for _, ck := range c.jar.cookies {
		if ck.Name == name {
			return ck.Value, true
		}
	}
	return "", false
}

// SetCookie adds a cookie to the Client's jar, replacing one of the same
// name and path; a negative MaxAge deletes it. The jar ignores Domain and
// Secure (every request goes to the one App) and honours Path and expiry.
func (c *Client) SetCookie(ck *http.Cookie) {
	c.keepCookies(http.Header{"Set-Cookie": {ck.String()}})
}

// ClearCookies empties the Client's jar.
func (c *Client) ClearCookies() {
	c.jar.mu.Lock()
	c.jar.cookies = nil
	c.jar.mu.Unlock()
}

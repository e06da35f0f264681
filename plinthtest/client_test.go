package plinthtest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/plinthtest"
)

// rawApp answers with what the request asks, through plain net/http
// handlers: /status/{code} with a Location header when ?to= says, /loop/{n}
// a chain of redirects that ends at /loop/15, /echo the request, /cookie/*
// the cookies it sends and /set the cookies ?c= lists.
func rawApp() *plinth.App {
	app := plinth.New()
	app.Handle("/status/{code}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(r.PathValue("code"))
		if to := r.URL.Query().Get("to"); to != "" {
			w.Header().Set("Location", to)
		}
		if ct := r.URL.Query().Get("ct"); ct != "" {
			w.Header().Set("Content-Type", ct)
		}
		w.WriteHeader(code)
		io.WriteString(w, r.URL.Query().Get("body"))
	}))
	app.Handle("GET /loop/{n}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		if n >= 15 {
			io.WriteString(w, "end")
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/loop/%d", n+1), http.StatusFound)
	}))
	app.Handle("/echo", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "%s %s ct=%q x=%q y=%q body=%s", r.Method, r.URL.RequestURI(), r.Header.Get("Content-Type"),
			r.Header.Get("X-A"), r.Header.Get("X-B"), body)
	}))
	app.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var names []string
		for _, ck := range r.Cookies() {
			names = append(names, ck.Name+"="+ck.Value)
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "path=%s cookies=%s", r.URL.Path, strings.Join(names, ","))
	}))
	app.Handle("/set", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, line := range r.URL.Query()["c"] {
			w.Header().Add("Set-Cookie", line)
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	return app
}

// setCookie asks rawApp to set the cookie line.
func setCookie(c *plinthtest.Client, line string) {
	c.Get("/set?c=" + url.QueryEscape(line)).Status(204)
}

// TestCookieJar: the jar sends a cookie on the paths below its Path,
// replaces one of the same name and path, keeps one of another path, and
// drops one that is deleted or expired.
func TestCookieJar(t *testing.T) {
	c := plinthtest.New(t, rawApp(), plinthtest.Config{})
	sent := func(path string) string {
		t.Helper()
		body := c.Get(path).Status(200).Body()
		_, cookies, _ := strings.Cut(body, " cookies=")
		return cookies
	}
	want := func(path, cookies string) {
		t.Helper()
		if got := sent(path); got != cookies {
			t.Errorf("%s sends %q, want %q", path, got, cookies)
		}
	}
	setCookie(c, "plain=1")
	setCookie(c, "root=2; Path=/")
	setCookie(c, "admin=3; Path=/admin")
	setCookie(c, "later=4; Path=/; Expires="+time.Now().Add(time.Hour).UTC().Format(http.TimeFormat))
	setCookie(c, "aged=5; Path=/; Max-Age=3600")
	want("/me", "plain=1,root=2,later=4,aged=5")
	want("/admin/x", "plain=1,root=2,admin=3,later=4,aged=5")
	want("/administrator", "plain=1,root=2,admin=3,later=4,aged=5") // a prefix, as the jar reads Path

	// the same name and path replaces, another path adds
	setCookie(c, "root=22; Path=/")
	setCookie(c, "root=23; Path=/admin")
	want("/me", "plain=1,later=4,aged=5,root=22")
	want("/admin", "plain=1,admin=3,later=4,aged=5,root=22,root=23")
	if v, ok := c.Cookie("root"); !ok || v != "22" {
		t.Errorf("Cookie(root) = %q, %v", v, ok)
	}
	if v, ok := c.Cookie("nope"); ok || v != "" {
		t.Errorf("Cookie(nope) = %q, %v", v, ok)
	}

	// deleted by a Max-Age of 0 or less, or an Expires in the past
	setCookie(c, "aged=; Path=/; Max-Age=-1")
	setCookie(c, "later=; Path=/; Expires="+time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat))
	setCookie(c, "root=; Path=/admin; Max-Age=0")
	want("/admin", "plain=1,admin=3,root=22")
	if _, ok := c.Cookie("aged"); ok {
		t.Error("a cookie deleted with Max-Age=-1 is kept")
	}

	// SetCookie and ClearCookies act on the same jar
	c.SetCookie(&http.Cookie{Name: "by", Value: "hand", Path: "/"})
	c.SetCookie(&http.Cookie{Name: "plain", MaxAge: -1})
	want("/", "admin=3,root=22,by=hand"[len("admin=3,"):])
	want("/admin", "admin=3,root=22,by=hand")
	c.SetCookie(&http.Cookie{Name: "admin", Path: "/admin", MaxAge: -1})
	want("/admin", "root=22,by=hand")
	c.ClearCookies()
	want("/", "")
	if _, ok := c.Cookie("by"); ok {
		t.Error("ClearCookies kept a cookie")
	}
	// a line that is no cookie is passed over
	c.Get("/set?c=%3Dnoname").Status(204)
	want("/", "")
}

// TestFollowRedirects: with Config.FollowRedirects a request follows up to
// 10 redirects; the eleventh fails the test.
func TestFollowRedirects(t *testing.T) {
	app := rawApp()
	c := plinthtest.New(t, app, plinthtest.Config{FollowRedirects: true})
	c.Get("/loop/5").Status(200).Contains("end") // 10 redirects
	c.Get("/loop/15").Status(200).Contains("end")
	wantFailure(t, func(tb testing.TB) {
		plinthtest.New(tb, app, plinthtest.Config{FollowRedirects: true}).Get("/loop/4")
	}, "plinthtest: GET /loop/14: more than 10 redirects")
	// a redirect that leaves the App is not followed
	wantFailure(t, func(tb testing.TB) {
		plinthtest.New(tb, app, plinthtest.Config{FollowRedirects: true}).Get("/status/302?to=https://other.example/x")
	}, "Follow: the redirect leaves the App, to https://other.example/x")
	// without the option, the redirect is the response
	plinthtest.New(t, app, plinthtest.Config{}).Get("/loop/5").Status(302).Redirect("/loop/6").
		Follow().Status(302).Redirect("/loop/7")
}

// TestRedirect: what a redirect is, where it points, and where Follow may
// go.
func TestRedirect(t *testing.T) {
	app := rawApp()
	c := plinthtest.New(t, app, plinthtest.Config{Header: http.Header{"X-A": {"cfg"}}})
	c.Get("/status/300?to=/a").Redirect("/a")
	c.Get("/status/399?to=/a").Redirect("/a")
	c.Get("/status/303?to=/me%3Fx=1").Redirect("/me?x=1").Follow().Contains("path=/me")
	c.Get("/status/303?to=http://example.com/me%3Fx=1").Redirect("/me?x=1")
	c.Get("/status/303?to=https://other.example/x").Redirect("https://other.example/x")
	c.Get("/status/303?to=rel").Redirect("/status/rel")
	c.Get("/status/302?to=/echo").Follow().Contains(`GET /echo ct="" x="cfg"`)
	c.Get("/status/302?to=http://example.com").Follow().Status(200).Contains("path=/ ")
	for _, tc := range []struct {
		name, path string
		fn         func(r *plinthtest.Response)
		parts      []string
	}{
		{"299 is no redirect", "/status/299?to=/a", func(r *plinthtest.Response) { r.Redirect("/a") }, []string{`Redirect("/a"): not a redirect`, "status:  299", "location: /a"}},
		{"400 is no redirect", "/status/400?to=/a", func(r *plinthtest.Response) { r.Redirect("/a") }, []string{"not a redirect", "status:  400 Bad Request"}},
		{"no Location", "/status/302", func(r *plinthtest.Response) { r.Redirect("/a") }, []string{"not a redirect"}},
		{"elsewhere", "/status/302?to=/b", func(r *plinthtest.Response) { r.Redirect("/a") }, []string{`redirect to "/b", want "/a"`}},
		{"another origin's path", "/status/302?to=https://other.example/a", func(r *plinthtest.Response) { r.Redirect("/a") }, []string{`redirect to "https://other.example/a", want "/a"`}},
		{"bad Location", "/status/302?to=http://%5B::1", func(r *plinthtest.Response) { r.Redirect("/a") }, []string{`Redirect("/a"): bad Location`}},
		{"Follow no redirect", "/status/200", func(r *plinthtest.Response) { r.Follow() }, []string{"Follow: not a redirect", "request: GET /status/200"}},
		{"Follow bad Location", "/status/302?to=http://%5B::1", func(r *plinthtest.Response) { r.Follow() }, []string{"Follow: bad Location"}},
		{"Follow a look-alike host", "/status/302?to=http://example.com.evil/x", func(r *plinthtest.Response) { r.Follow() }, []string{"leaves the App, to http://example.com.evil/x"}},
		{"Follow another port", "/status/302?to=http://example.com:8080/x", func(r *plinthtest.Response) { r.Follow() }, []string{"leaves the App"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantFailure(t, func(tb testing.TB) { tc.fn(plinthtest.New(tb, app, plinthtest.Config{}).Get(tc.path)) }, tc.parts...)
		})
	}
}

// TestRequests: each method sends its body, content type and headers; the
// Config's headers go with every request, a request's own win, an empty
// value removes one.
func TestRequests(t *testing.T) {
	app := rawApp()
	c := plinthtest.New(t, app, plinthtest.Config{Header: http.Header{"X-A": {"cfg"}}})
	if c.App() != app {
		t.Error("App() is not the App")
	}
	if c.URL("/x") != "http://example.com/x" || c.Origin() != "http://example.com" {
		t.Errorf("URL %q, Origin %q", c.URL("/x"), c.Origin())
	}
	c.Get("/echo").Contains(`GET /echo ct="" x="cfg" y="" body=`)
	c.Get("/echo", "X-A", "own", "X-B", "b").Contains(`x="own" y="b"`)
	c.Get("/echo", "X-A", "").Contains(`x="" y=""`)
	c.Delete("/echo?id=1").Contains(`DELETE /echo?id=1 ct="" x="cfg"`)
	c.Post("/echo", "text/csv", strings.NewReader("a,b"), "X-B", "p").Contains(`POST /echo ct="text/csv" x="cfg" y="p" body=a,b`)
	c.PostJSON("/echo", map[string]int{"n": 1}).Contains(`ct="application/json" x="cfg" y="" body={"n":1}`)
	c.PostJSON("/echo", []byte(`{"raw":1}`)).Contains(`body={"raw":1}`)
	c.PostJSON("/echo", json.RawMessage(`[1]`)).Contains(`body=[1]`)
	c.PostJSON("/echo", `{"broken"`).Contains(`body={"broken"`)
	c.SendJSON("PUT", "/echo", []int{1, 2}, "X-B", "s").Contains(`PUT /echo ct="application/json" x="cfg" y="s" body=[1,2]`)
	c.PostForm("/echo", url.Values{"a": {"1 2"}}).Contains(`ct="application/x-www-form-urlencoded" x="cfg" y="" body=a=1+2`)

	req := httptest.NewRequest("PATCH", "/echo", strings.NewReader("d"))
	c.Do(req).Contains(`PATCH /echo ct="" x="cfg" y="" body=d`)
	req = httptest.NewRequest("PATCH", "/echo", nil)
	req.Header.Set("X-A", "mine")
	c.Do(req).Contains(`x="mine"`)

	for name, fn := range map[string]func(c *plinthtest.Client){
		"Delete odd":    func(c *plinthtest.Client) { c.Delete("/echo", "X") },
		"Post odd":      func(c *plinthtest.Client) { c.Post("/echo", "text/plain", nil, "X") },
		"PostJSON odd":  func(c *plinthtest.Client) { c.PostJSON("/echo", "{}", "X") },
		"SendJSON odd":  func(c *plinthtest.Client) { c.SendJSON("PUT", "/echo", "{}", "X") },
		"PostForm odd":  func(c *plinthtest.Client) { c.PostForm("/echo", nil, "X") },
		"Get odd":       func(c *plinthtest.Client) { c.Get("/echo", "X-A", "1", "X") },
		"Get relative":  func(c *plinthtest.Client) { c.Get("echo") },
		"JSON encoding": func(c *plinthtest.Client) { c.PostJSON("/echo", make(chan int)) },
		"Do nil":        func(c *plinthtest.Client) { c.Do(nil) },
	} {
		msg := failure(t, func(tb testing.TB) { fn(plinthtest.New(tb, app, plinthtest.Config{})) })
		want := map[string]string{
			"Delete odd":    `plinthtest: DELETE /echo: headers come in name, value pairs; "X" has no value`,
			"Post odd":      `plinthtest: POST /echo: headers come in name, value pairs`,
			"PostJSON odd":  `plinthtest: POST /echo: headers come in name, value pairs`,
			"SendJSON odd":  `plinthtest: PUT /echo: headers come in name, value pairs`,
			"PostForm odd":  `plinthtest: POST /echo: headers come in name, value pairs`,
			"Get odd":       `"X" has no value`,
			"Get relative":  `plinthtest: GET "echo": the path must start with /`,
			"JSON encoding": "plinthtest: POST /echo: cannot encode the body as JSON: json: unsupported type: chan int",
			"Do nil":        "plinthtest: Do(nil)",
		}[name]
		if !strings.Contains(msg, want) {
			t.Errorf("%s: %q, want %q", name, msg, want)
		}
	}
}

// TestServer serves over a loopback server: redirects are the response,
// cookies are kept, a closed server fails the request.
func TestServer(t *testing.T) {
	app := rawApp()
	c := plinthtest.New(t, app, plinthtest.Config{Server: true})
	if !strings.HasPrefix(c.Origin(), "http://127.0.0.1:") || c.URL("/x") != c.Origin()+"/x" {
		t.Errorf("Origin %q, URL %q", c.Origin(), c.URL("/x"))
	}
	c.Get("/status/302?to=/me").Status(302).Redirect("/me").Follow().Contains("path=/me")
	setCookie(c, "k=v; Path=/")
	c.Get("/me").Contains("cookies=k=v")
	c.Post("/echo", "text/plain", strings.NewReader("x")).Contains(`POST /echo ct="text/plain" x="" y="" body=x`)
	req := httptest.NewRequest("GET", "http://elsewhere.example/echo?q=1", nil)
	c.Do(req).Contains("GET /echo?q=1")

	var srv *plinthtest.Client
	msg := failure(t, func(tb testing.TB) {
		srv = plinthtest.New(tb, app, plinthtest.Config{Server: true})
	})
	if msg != "" {
		t.Fatal(msg)
	}
	// failure ran the cleanups: the server is closed
	wantFailure(t, func(tb testing.TB) { srv.In(tb).Get("/me") }, "plinthtest: GET /me: ")
}

// TestThrough serves a request with another handler as the Client's
// browser: its cookies go, the cookies it sets are kept, and the OpenAPI
// check does not apply.
func TestThrough(t *testing.T) {
	c := plinthtest.New(t, rawApp(), plinthtest.Config{})
	setCookie(c, "k=v; Path=/")
	req := httptest.NewRequest("POST", "/anything?x=1", nil)
	r := c.Through(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ck, err := r.Cookie("k")
		if err != nil {
			t.Errorf("no cookie: %v", err)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: "k2", Value: ck.Value + "2", Path: "/"})
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, "through")
	}), req)
	r.Status(202).Contains("through")
	if v, _ := c.Cookie("k2"); v != "v2" {
		t.Errorf("the cookie the handler set: %q", v)
	}
}

// TestOpenAPIDocument: the check reads the document SetOpenAPI gives, a
// {name...} route's operation matches paths of any depth, and a document
// that cannot be read fails every request.
func TestOpenAPIDocument(t *testing.T) {
	app := plinth.New()
	app.Handle("GET /files/{path...}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, r.URL.Query().Get("body"))
	}))
	app.SetOpenAPI(func() ([]byte, error) {
		return []byte(`{"openapi":"3.1.0","paths":{"/files/{path}":{"get":{"responses":{"200":{"description":"OK",
			"content":{"application/json":{"schema":{"type":"string"}}}}}}}}}`), nil
	})
	c := plinthtest.New(t, app, plinthtest.Config{})
	c.Get(`/files/a/b?body="x"`).Status(200)
	wantFailure(t, func(tb testing.TB) { plinthtest.New(tb, app, plinthtest.Config{}).Get("/files/a/b?body=1") },
		"OpenAPI: the response does not match GET /files/{path} in the App's OpenAPI document: at $: integer 1, want string",
		"(Config.SkipOpenAPI switches the check off)", "request: GET /files/a/b?body=1")
	plinthtest.New(t, app, plinthtest.Config{SkipOpenAPI: true}).Get("/files/a/b?body=1").Status(200)

	for doc, want := range map[string]string{"boom": "plinthtest: the App's OpenAPI document: boom", "{": "plinthtest: the App's OpenAPI document is not JSON"} {
		bad := plinth.New()
		bad.Get("/x", func(c *plinth.Ctx) error { return c.Text(200, "x") })
		bad.SetOpenAPI(func() ([]byte, error) {
			if doc == "boom" {
				return nil, fmt.Errorf("boom")
			}
			return []byte(doc), nil
		})
		wantFailure(t, func(tb testing.TB) { plinthtest.New(tb, bad, plinthtest.Config{}).Get("/x") }, want)
		plinthtest.New(t, bad, plinthtest.Config{SkipOpenAPI: true}).Get("/x").Status(200)
	}
	none := plinth.New()
	none.Get("/x", func(c *plinth.Ctx) error { return c.Text(200, "x") })
	none.SetOpenAPI(func() ([]byte, error) { return nil, nil })
	plinthtest.New(t, none, plinthtest.Config{}).Get("/x").Status(200)
}

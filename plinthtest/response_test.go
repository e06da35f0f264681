package plinthtest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/plinth-go/plinth/plinthtest"
)

// TestResponseAssertions: each assertion passes on the response it names
// and fails on another, with the response described.
func TestResponseAssertions(t *testing.T) {
	app := rawApp()
	c := plinthtest.New(t, app, plinthtest.Config{})
	r := c.Get("/status/200?ct=application/json&body=" + `{"a":[1,{"b":"x"}],"n":null}`)
	r.Status(200).Header("Content-Type", "application/json").Header("X-None", "").
		JSONEq(`{"n":null,"a":[1,{"b":"x"}]}`).
		JSONEq([]byte(`{"a":[1.0,{"b":"x"}],"n":null}`)).
		JSONEq(json.RawMessage(`{"a":[1,{"b":"x"}],"n":null}`)).
		JSONEq(map[string]any{"a": []any{1, map[string]string{"b": "x"}}, "n": nil})
	if r.Code() != 200 || r.Headers().Get("Content-Type") != "application/json" || string(r.Bytes()) != r.Body() {
		t.Errorf("Code %d, Headers %v", r.Code(), r.Headers())
	}
	var v struct{ A []any }
	r.JSON(&v)
	if len(v.A) != 2 {
		t.Errorf("JSON: %+v", v)
	}
	c.Get("/status/200?ct=application/vnd.x%2Bjson&body=[]").JSONEq(`[]`).JSON(&[]int{})

	long := strings.Repeat("x", 90)
	get := func(q string) func(c *plinthtest.Client) *plinthtest.Response {
		return func(c *plinthtest.Client) *plinthtest.Response { return c.Get(q) }
	}
	jsonBody := get("/status/200?ct=application/json&body=" + `{"a":[1,{"b":"x"}],"s":"` + long + `"}`)
	for _, tc := range []struct {
		name  string
		resp  func(c *plinthtest.Client) *plinthtest.Response
		fn    func(r *plinthtest.Response)
		parts []string
	}{
		{"header present", jsonBody, func(r *plinthtest.Response) { r.Header("content-type", "") },
			[]string{`header content-type is ["application/json"], want none`, "content type: application/json"}},
		{"header value", jsonBody, func(r *plinthtest.Response) { r.Header("Content-Type", "text/plain") },
			[]string{`header Content-Type is "application/json", want "text/plain"`}},
		{"JSONEq member", jsonBody, func(r *plinthtest.Response) { r.JSONEq(`{"a":[1,{"b":"y"}],"s":"` + long + `"}`) },
			[]string{`JSONEq: at $.a[1].b: got "x", want "y"`}},
		{"JSONEq missing", jsonBody, func(r *plinthtest.Response) { r.JSONEq(`{"a":[1,{"b":"x"}],"s":"` + long + `","t":1}`) },
			[]string{"JSONEq: at $.t: missing"}},
		{"JSONEq unexpected", jsonBody, func(r *plinthtest.Response) { r.JSONEq(`{"a":[1,{"b":"x"}]}`) },
			[]string{`JSONEq: at $.s: unexpected member, "` + long[:79] + `…`}},
		{"JSONEq length", jsonBody, func(r *plinthtest.Response) { r.JSONEq(`{"a":[1],"s":"` + long + `"}`) },
			[]string{"JSONEq: at $.a: 2 items, want 1"}},
		{"JSONEq array for object", jsonBody, func(r *plinthtest.Response) { r.JSONEq(`{"a":{},"s":"` + long + `"}`) },
			[]string{`JSONEq: at $.a: got [1,{"b":"x"}], want an object`}},
		{"JSONEq object for array", jsonBody, func(r *plinthtest.Response) { r.JSONEq(`[]`) },
			[]string{`JSONEq: at $: got {"a":`, "want an array", `want: []`}},
		{"JSONEq type", jsonBody, func(r *plinthtest.Response) { r.JSONEq(`{"a":["1",{"b":"x"}],"s":"` + long + `"}`) },
			[]string{`at $.a[0]: got 1, want "1"`}},
		{"JSONEq expected not JSON", jsonBody, func(r *plinthtest.Response) { r.JSONEq(`{`) },
			[]string{"plinthtest: JSONEq: the expected value is not JSON", ": {"}},
		{"JSONEq expected not encodable", jsonBody, func(r *plinthtest.Response) { r.JSONEq(make(chan int)) },
			[]string{"plinthtest: JSONEq: cannot encode the expected chan int"}},
		{"JSONEq on text", get("/status/200?ct=text/plain&body=hi"), func(r *plinthtest.Response) { r.JSONEq(`{}`) },
			[]string{`JSONEq: the body is not JSON (content type text/plain, first bytes "hi")`}},
		{"JSONEq no content type", get("/status/200"), func(r *plinthtest.Response) { r.JSONEq(`{}`) },
			[]string{"JSONEq: the body is not JSON (content type none", "body:    (empty)"}},
		{"JSONEq invalid body", get("/status/200?ct=application/json&body={"), func(r *plinthtest.Response) { r.JSONEq(`{}`) },
			[]string{"JSONEq: the body is not valid JSON"}},
		{"JSON nil pointer", jsonBody, func(r *plinthtest.Response) { r.JSON((*struct{})(nil)) },
			[]string{"plinthtest: JSON(*struct {}): want a non-nil pointer"}},
		{"JSON first 64 bytes", get("/status/200?ct=text/plain&body=" + strings.Repeat("a", 64) + "b"), func(r *plinthtest.Response) { r.JSON(&v) },
			[]string{`first bytes "` + strings.Repeat("a", 64) + `")`}},
		{"Contains", jsonBody, func(r *plinthtest.Response) { r.Contains("zzz") }, []string{`the body does not contain "zzz"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantFailure(t, func(tb testing.TB) { tc.fn(tc.resp(plinthtest.New(tb, app, plinthtest.Config{}))) }, tc.parts...)
		})
	}
}

// TestDescribe: a failure shows the body whole up to 2048 bytes, cut
// beyond.
func TestDescribe(t *testing.T) {
	handler := func(n int) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, strings.Repeat("a", n-1)+"z")
		})
	}
	for _, n := range []int{2048, 2049} {
		msg := failure(t, func(tb testing.TB) {
			c := plinthtest.New(tb, rawApp(), plinthtest.Config{})
			c.Through(handler(n), httptest.NewRequest("GET", "/x", nil)).Status(201)
		})
		whole := "\n  body:    " + strings.Repeat("a", 2047) + "z"
		cut := "\n  body:    " + strings.Repeat("a", 2048) + "… (2049 bytes)"
		if n == 2048 && !strings.HasSuffix(msg, whole) || n == 2049 && !strings.HasSuffix(msg, cut) {
			t.Errorf("%d bytes: the message ends %q", n, msg[max(0, len(msg)-40):])
		}
	}
}

// TestProblemAssertions: Problem reads an RFC 9457 body; its status, type,
// detail and errors are asserted.
func TestProblemAssertions(t *testing.T) {
	app := newApp(false)
	c := plinthtest.New(t, app, plinthtest.Config{})
	p := c.PostJSON("/books", `{"pages":0}`).Problem(422, "about:blank").HasField("body.title", "").NoField("author").NoField("body")
	if p.Detail() != "validation failed" || p.Response().Code() != 422 {
		t.Errorf("Detail %q", p.Detail())
	}
	raw := rawApp()
	problem := func(code, body string) func(c *plinthtest.Client) *plinthtest.Response {
		return func(c *plinthtest.Client) *plinthtest.Response {
			return c.Get("/status/" + code + "?ct=application/problem%2Bjson&body=" + url.QueryEscape(body))
		}
	}
	plinthtest.New(t, raw, plinthtest.Config{}).Get("/status/409?ct=application/problem%2Bjson&body="+`{"type":"https://e/x","status":409}`).
		Problem(409, "https://e/x").HasDetail("")
	for _, tc := range []struct {
		name  string
		resp  func(c *plinthtest.Client) *plinthtest.Response
		fn    func(r *plinthtest.Response)
		parts []string
	}{
		{"plain 400", func(c *plinthtest.Client) *plinthtest.Response { return c.Get("/status/400?ct=text/plain&body=no") },
			func(r *plinthtest.Response) { r.Problem(400, "") },
			[]string{"Problem(400): the body is not problem JSON (want content type application/problem+json)"}},
		{"plain 399", func(c *plinthtest.Client) *plinthtest.Response { return c.Get("/status/399?ct=text/plain&body=no") },
			func(r *plinthtest.Response) { r.Problem(400, "") },
			[]string{"Problem(400): the response is a success, not a problem"}},
		{"problem JSON that is not JSON", problem("400", "{"), func(r *plinthtest.Response) { r.Problem(400, "") },
			[]string{"the body is not problem JSON"}},
		{"body's status", problem("409", `{"status":410}`), func(r *plinthtest.Response) { r.Problem(409, "") },
			[]string{"Problem: status 409 (body's 410), want 409"}},
		{"type", problem("409", `{"status":409}`), func(r *plinthtest.Response) { r.Problem(409, "https://e/x") },
			[]string{`Problem: type "about:blank", want "https://e/x"`}},
		{"detail", problem("409", `{"status":409,"detail":"taken"}`), func(r *plinthtest.Response) { r.Problem(409, "").HasDetail("free") },
			[]string{`Problem: detail "taken" does not contain "free"`, "detail:  taken"}},
		{"no errors list", problem("409", `{"status":409,"detail":"taken"}`), func(r *plinthtest.Response) { r.Problem(409, "").HasField("title", "") },
			[]string{`Problem: no "errors" list, want an entry for title`}},
		{"a suffix is no field", problem("422", `{"status":422,"detail":"d","errors":[{"location":"body.subtitle","message":"m"}]}`),
			func(r *plinthtest.Response) { r.Problem(422, "").HasField("title", "") },
			[]string{"Problem: no error for title", "\n    body.subtitle: m"}},
		{"NoField", problem("422", `{"status":422,"errors":[{"location":"body.title","message":"is required"}]}`),
			func(r *plinthtest.Response) { r.Problem(422, "").NoField("title") },
			[]string{"Problem: an error for title: is required"}},
		{"NoField location", problem("422", `{"status":422,"errors":[{"location":"title","message":"m"}]}`),
			func(r *plinthtest.Response) { r.Problem(422, "").NoField("title") },
			[]string{"Problem: an error for title: m"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantFailure(t, func(tb testing.TB) { tc.fn(tc.resp(plinthtest.New(tb, raw, plinthtest.Config{}))) }, tc.parts...)
		})
	}
}

// TestRecorder: the in-process writer keeps the header as it was when the
// response started, passes over 1xx, sniffs a missing content type and
// rejects an invalid status.
func TestRecorder(t *testing.T) {
	c := plinthtest.New(t, rawApp(), plinthtest.Config{})
	serve := func(h http.HandlerFunc) *plinthtest.Response {
		return c.Through(h, httptest.NewRequest("GET", "/", nil))
	}
	r := serve(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Before", "1")
		w.WriteHeader(http.StatusContinue)
		w.WriteHeader(199)
		w.WriteHeader(http.StatusCreated)
		w.Header().Set("X-After", "1")
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, "<p>x</p>")
	})
	r.Status(201).Header("X-Before", "1").Header("X-After", "").Header("Content-Type", "").Contains("<p>x</p>")

	serve(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(101) }).Status(101)
	serve(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) }).Status(200).Header("Content-Type", "")
	serve(func(w http.ResponseWriter, r *http.Request) {}).Status(200).Header("Content-Type", "")
	serve(func(w http.ResponseWriter, r *http.Request) { w.Write(nil) }).Status(200).Header("Content-Type", "")
	serve(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>")) }).Header("Content-Type", "text/html; charset=utf-8")
	serve(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "plain") }).Header("Content-Type", "text/plain; charset=utf-8")
	serve(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, strings.Repeat(" ", 600)+"<html>")
	}).Header("Content-Type", "text/plain; charset=utf-8") // only the first 512 bytes are sniffed
	serve(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, strings.Repeat(" ", 500)+"<html>")
	}).Header("Content-Type", "text/html; charset=utf-8")
	serve(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "x/y")
		io.WriteString(w, "<html>")
	}).Header("Content-Type", "x/y")
	if h := serve(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil // net/http's way to send none
		io.WriteString(w, "<html>")
	}).Headers(); h.Get("Content-Type") != "" {
		t.Errorf("a nil Content-Type was sniffed: %q", h.Get("Content-Type"))
	}
	serve(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Transfer-Encoding", "chunked")
		io.WriteString(w, "<html>")
	}).Header("Content-Type", "")
	serve(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-A", "1")
		w.(http.Flusher).Flush()
		w.Header().Set("X-B", "1")
		w.WriteHeader(500)
		w.(http.Flusher).Flush()
	}).Status(200).Header("X-A", "1").Header("X-B", "")

	for code, bad := range map[int]bool{99: true, 100: false, 999: false, 1000: true} {
		func() {
			defer func() {
				if p := recover(); (p != nil) != bad {
					t.Errorf("WriteHeader(%d): panic %v", code, p)
				}
			}()
			serve(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(code) })
		}()
	}
}

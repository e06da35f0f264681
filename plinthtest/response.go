package plinthtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Response is the answer to one request, with chainable assertions. Each
// assertion fails the test (t.Fatalf) with the request, the status, the
// problem's detail when the body is a problem, and the body, and returns
// the Response for the next one.
type Response struct {
	t      testing.TB
	c      *Client
	method string
	target string

	rec    recorder // in process
	buf    bytes.Buffer
	code   int
	header http.Header
}

// Code returns the status code.
func (r *Response) Code() int { return r.code }

// Headers returns the response's header.
func (r *Response) Headers() http.Header { return r.header }

// Body returns the body as a string.
func (r *Response) Body() string { return r.buf.String() }

// Bytes returns the body.
func (r *Response) Bytes() []byte { return r.buf.Bytes() }

// request names the request in failure messages: "POST /accounts".
func (r *Response) request() string { return r.method + " " + r.target }

// maxShown is how much of a body a failure message shows.
const maxShown = 2048

// describe is the response as failure messages show it.
func (r *Response) describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n  request: %s\n  status:  %d %s", r.request(), r.code, http.StatusText(r.code))
	if ct := r.header.Get("Content-Type"); ct != "" {
		fmt.Fprintf(&b, "\n  content type: %s", ct)
	}
	if loc := r.header.Get("Location"); loc != "" {
		fmt.Fprintf(&b, "\n  location: %s", loc)
	}
	if p, ok := r.problem(); ok && p.Detail != "" {
		fmt.Fprintf(&b, "\n  detail:  %s", p.Detail)
		for _, e := range p.Errors {
			fmt.Fprintf(&b, "\n    %s: %s", e.Location, e.Message)
		}
	}
	body := r.buf.Bytes()
	switch {
	case len(body) == 0:
		b.WriteString("\n  body:    (empty)")
	case len(body) > maxShown:
		fmt.Fprintf(&b, "\n  body:    %s… (%d bytes)", body[:maxShown], len(body))
	default:
		fmt.Fprintf(&b, "\n  body:    %s", body)
	}
	return b.String()
}

// fail fails the test with msg and the response.
func (r *Response) fail(format string, args ...any) {
	r.t.Helper()
	r.t.Fatalf("%s%s", fmt.Sprintf(format, args...), r.describe())
}

// Status asserts the status code.
func (r *Response) Status(code int) *Response {
	if r.code != code {
		r.t.Helper()
		r.fail("status %d, want %d", r.code, code)
	}
	return r
}

// Header asserts that the header name has the value want (its first
// value); an empty want asserts that the header is absent.
func (r *Response) Header(name, want string) *Response {
	r.t.Helper()
	got, ok := r.header[http.CanonicalHeaderKey(name)]
	switch {
	case want == "" && ok:
		r.fail("header %s is %q, want none", name, got)
	case want != "" && !ok:
		r.fail("no header %s, want %q", name, want)
	case want != "" && got[0] != want:
		r.fail("header %s is %q, want %q", name, got[0], want)
	}
	return r
}

// Contains asserts that the body contains s.
func (r *Response) Contains(s string) *Response {
	r.t.Helper()
	if !strings.Contains(r.buf.String(), s) {
		r.fail("the body does not contain %q", s)
	}
	return r
}

// isJSON reports whether the response's content type is JSON
// (application/json or a +json type such as application/problem+json).
func (r *Response) isJSON() bool {
	mt, _, _ := mime.ParseMediaType(r.header.Get("Content-Type"))
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// notJSON fails the test for a body that is not JSON.
func (r *Response) notJSON(what string) {
	r.t.Helper()
	ct := r.header.Get("Content-Type")
	if ct == "" {
		ct = "none"
	}
	first := r.buf.Bytes()
	if len(first) > 64 {
		first = first[:64]
	}
	r.fail("%s: the body is not JSON (content type %s, first bytes %q)", what, ct, first)
}

// JSON decodes the JSON body into v, which must be a non-nil pointer, as
// encoding/json does (members v lacks are ignored: JSONEq compares all). A
// body that is not JSON, or that does not decode into v, fails the test.
func (r *Response) JSON(v any) *Response {
	r.t.Helper()
	if rv := reflect.ValueOf(v); rv.Kind() != reflect.Pointer || rv.IsNil() {
		r.t.Fatalf("plinthtest: JSON(%T): want a non-nil pointer to decode into", v)
		return r
	}
	if !r.isJSON() {
		r.notJSON("JSON")
		return r
	}
	if err := json.Unmarshal(r.buf.Bytes(), v); err != nil {
		r.fail("JSON: cannot decode the body into %T: %v", v, err)
	}
	return r
}

// JSONEq asserts that the JSON body equals expected, as JSON values (member
// order and spacing aside): expected is a JSON text (a string or []byte),
// or any other value, which is encoded first.
func (r *Response) JSONEq(expected any) *Response {
	r.t.Helper()
	var want any
	var text []byte
	switch e := expected.(type) {
	case string:
		text = []byte(e)
	case []byte:
		text = e
	case json.RawMessage:
		text = e
	default:
		var err error
		if text, err = json.Marshal(e); err != nil {
			r.t.Fatalf("plinthtest: JSONEq: cannot encode the expected %T: %v", expected, err)
			return r
		}
	}
	if err := json.Unmarshal(text, &want); err != nil {
		r.t.Fatalf("plinthtest: JSONEq: the expected value is not JSON: %v: %s", err, text)
		return r
	}
	if !r.isJSON() {
		r.notJSON("JSONEq")
		return r
	}
	var got any
	if err := json.Unmarshal(r.buf.Bytes(), &got); err != nil {
		r.fail("JSONEq: the body is not valid JSON: %v", err)
		return r
	}
	if path, diff := jsonDiff("$", got, want); path != "" {
		r.fail("JSONEq: at %s: %s\n  want: %s", path, diff, text)
	}
	return r
}

// jsonDiff returns the path of the first difference between got and want,
// and what it is, or "" when they are equal.
func jsonDiff(path string, got, want any) (string, string) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return path, fmt.Sprintf("got %s, want an object", short(got))
		}
		// In key order, so that of several differences the same one is named
		// at every run.
		for _, k := range slices.Sorted(maps.Keys(w)) {
			gv, ok := g[k]
			if !ok {
				return path + "." + k, "missing"
			}
			if p, d := jsonDiff(path+"."+k, gv, w[k]); p != "" {
				return p, d
			}
		}
		for _, k := range slices.Sorted(maps.Keys(g)) {
			if _, ok := w[k]; !ok {
				return path + "." + k, fmt.Sprintf("unexpected member, %s", short(g[k]))
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			return path, fmt.Sprintf("got %s, want an array", short(got))
		}
		if len(g) != len(w) {
			return path, fmt.Sprintf("%d items, want %d", len(g), len(w))
		}
		for i := range w {
			if p, d := jsonDiff(fmt.Sprintf("%s[%d]", path, i), g[i], w[i]); p != "" {
				return p, d
			}
		}
	default:
		if !reflect.DeepEqual(got, want) {
			return path, fmt.Sprintf("got %s, want %s", short(got), short(want))
		}
	}
	return "", ""
}

// short is a JSON value as a message shows it.
func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}

// problemBody is an RFC 9457 problem as Plinth writes it.
type problemBody struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Detail    string `json:"detail"`
	RequestID string `json:"request_id"`
	Errors    []struct {
		Location string `json:"location"`
		Message  string `json:"message"`
		Value    any    `json:"value"`
	} `json:"errors"`
}

// problem decodes the body as a problem, if it is one.
func (r *Response) problem() (*problemBody, bool) {
	mt, _, _ := mime.ParseMediaType(r.header.Get("Content-Type"))
	if mt != "application/problem+json" {
		return nil, false
	}
	var p problemBody
	if json.Unmarshal(r.buf.Bytes(), &p) != nil {
		return nil, false
	}
	return &p, true
}

// Problem asserts that the response is an RFC 9457 problem
// (application/problem+json) with the status and, unless typ is empty,
// the type ("about:blank" when the body has none). Assert its fields with
// the Problem's methods.
func (r *Response) Problem(status int, typ string) *Problem {
	r.t.Helper()
	p, ok := r.problem()
	switch {
	case !ok && r.code < 400:
		r.fail("Problem(%d): the response is a success, not a problem", status)
	case !ok:
		r.fail("Problem(%d): the body is not problem JSON (want content type application/problem+json)", status)
	}
	if !ok {
		return &Problem{r: r, p: &problemBody{}}
	}
	if r.code != status || p.Status != status {
		r.fail("Problem: status %d (body's %d), want %d", r.code, p.Status, status)
	}
	got := p.Type
	if got == "" {
		got = "about:blank"
	}
	if typ != "" && got != typ {
		r.fail("Problem: type %q, want %q", got, typ)
	}
	return &Problem{r: r, p: p}
}

// Problem is a problem response, for assertions on its members.
type Problem struct {
	r *Response
	p *problemBody
}

// Detail returns the problem's detail.
func (p *Problem) Detail() string { return p.p.Detail }

// Response returns the response, for further assertions.
func (p *Problem) Response() *Response { return p.r }

// HasDetail asserts that the problem's detail contains s.
func (p *Problem) HasDetail(s string) *Problem {
	p.r.t.Helper()
	if !strings.Contains(p.p.Detail, s) {
		p.r.fail("Problem: detail %q does not contain %q", p.p.Detail, s)
	}
	return p
}

// HasField asserts that the problem's "errors" list (a 422's) has an
// entry for the field (its location, "body.title", or the location's last
// part, "title") whose message contains message ("required" matches "is
// required"; an empty message matches any). NoField is its negation.
func (p *Problem) HasField(field, message string) *Problem {
	p.r.t.Helper()
	var seen []string
	for _, e := range p.p.Errors {
		if e.Location == field || strings.HasSuffix(e.Location, "."+field) {
			if strings.Contains(e.Message, message) {
				return p
			}
			seen = append(seen, e.Location+": "+e.Message)
		}
	}
	if len(p.p.Errors) == 0 {
		p.r.fail("Problem: no \"errors\" list, want an entry for %s", field)
	} else if len(seen) == 0 {
		p.r.fail("Problem: no error for %s", field)
	} else {
		p.r.fail("Problem: the error for %s is %q, want one containing %q", field, seen, message)
	}
	return p
}

// NoField asserts that the problem's "errors" list has no entry for field.
func (p *Problem) NoField(field string) *Problem {
	p.r.t.Helper()
	for _, e := range p.p.Errors {
		if e.Location == field || strings.HasSuffix(e.Location, "."+field) {
			p.r.fail("Problem: an error for %s: %s", field, e.Message)
		}
	}
	return p
}

// isRedirect reports whether the response is a redirect with a Location.
func (r *Response) isRedirect() bool {
	return r.code >= 300 && r.code < 400 && r.header.Get("Location") != ""
}

// location returns the Location resolved against the request's URL.
func (r *Response) location() (*url.URL, error) {
	base, _ := url.Parse(r.c.base + r.target)
	return base.Parse(r.header.Get("Location"))
}

// Redirect asserts that the response is a redirect (3xx) to want: a path
// ("/account", compared with the Location's path and query when it
// resolves to the App's own origin) or an absolute URL.
func (r *Response) Redirect(want string) *Response {
	r.t.Helper()
	if !r.isRedirect() {
		r.fail("Redirect(%q): not a redirect", want)
		return r
	}
	u, err := r.location()
	if err != nil {
		r.fail("Redirect(%q): bad Location: %v", want, err)
		return r
	}
	got := u.String()
	if strings.HasPrefix(want, "/") && strings.HasPrefix(got, r.c.base) {
		got = u.RequestURI()
	}
	if got != want {
		r.fail("redirect to %q, want %q", got, want)
	}
	return r
}

// Follow sends GET to the redirect's Location (with the Client's cookies)
// and returns its response. A response that is not a redirect, or one
// that leaves the App, fails the test.
func (r *Response) Follow() *Response {
	next, msg := r.next()
	var out *Response
	if msg == "" {
		out, msg = r.c.roundTrip(next)
	}
	if msg != "" {
		r.t.Helper()
		r.t.Fatalf("%s", msg)
		return r
	}
	return out
}

// next is the request that follows the redirect r.
func (r *Response) next() (*http.Request, string) {
	if !r.isRedirect() {
		return nil, "Follow: not a redirect" + r.describe()
	}
	u, err := r.location()
	if err != nil {
		return nil, fmt.Sprintf("Follow: bad Location: %v%s", err, r.describe())
	}
	if base := r.c.base; !strings.HasPrefix(u.String(), base+"/") && u.String() != base {
		return nil, fmt.Sprintf("Follow: the redirect leaves the App, to %s%s", u, r.describe())
	}
	req := httptest.NewRequest("GET", u.RequestURI(), nil)
	for k, vs := range r.c.cfg.Header {
		req.Header[k] = vs
	}
	return req, ""
}

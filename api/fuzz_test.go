package api_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzJSONBinder sends arbitrary bodies and content types to a JSON
// operation: the answer must never be a panic or a 500, only 2xx, 400, 413,
// 415 or 422, and every error must be problem JSON.
func FuzzJSONBinder(f *testing.F) {
	app, _ := newTestAPI(f)
	for _, s := range []string{
		`{"name":"Ada","qty":2,"kind":"small"}`, `{"name":`, ``, `null`, `[]`, `"x"`, `{"qty":"2"}`,
		`{"name":"Ada","qty":1,"items":[{"email":"bad"},null]}`, `{"address":null}`, `{"tags":[1,2]}`,
		`{"name":"Ada","qty":1e400}`, `{"discount":-1}`, "\xff\xfe", `{"name":"Ada","qty":1}{}`,
		`{"name":5,"qty":"x","tags":[1,{"a":"\u0022"}],"items":[{"email":[]}],"bogus":{},"NAME":""}`,
		`{"name":"","kind":"","id":"","address":{"street":"","zip":""},"tags":["",""]}`,
	} {
		f.Add(s, "application/json")
	}
	f.Add(`{}`, "text/plain")
	f.Add(`{}`, "")
	f.Fuzz(func(t *testing.T, body, ctype string) {
		req := httptest.NewRequest("POST", "/orders", strings.NewReader(body))
		if ctype != "" {
			req.Header["Content-Type"] = []string{ctype}
		}
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, req)
		switch c := rec.Code; {
		case c >= 200 && c < 300:
		case c == http.StatusBadRequest, c == http.StatusRequestEntityTooLarge,
			c == http.StatusUnsupportedMediaType, c == http.StatusUnprocessableEntity:
			if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" {
				t.Fatalf("status %d with Content-Type %q", c, ct)
			}
		default:
			t.Fatalf("status %d for body %q (%q): %s", c, body, ctype, rec.Body)
		}
	})
}

package verify

import (
	"context"
	"strings"
	"testing"
	"time"
)

// runFake verifies a fake server with an in-memory store and no database.
func runFake(t *testing.T, s *fakeServer, tests ...string) []Result {
	t.Helper()
	if s.store == nil {
		s.store = newMemStore(t)
	}
	res, err := Run(context.Background(), Config{
		BaseURL:  serve(t, s),
		Tests:    tests,
		DateWait: 1100 * time.Millisecond, // Date has a resolution of one second
		Fortunes: testFortunes(t),
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestCorrectServerPasses(t *testing.T) {
	t.Parallel()
	res := runFake(t, &fakeServer{})
	passed := map[string]bool{}
	for _, r := range res {
		if r.Status == Fail || (r.Status == Warn && r.Test != "setup") {
			t.Errorf("unexpected %s", r)
		}
		if r.Status == Pass {
			passed[r.Test+" "+r.Check] = true
		}
	}
	for _, test := range AllTests() {
		for _, check := range []string{"status", "headers", "content-type", "no-gzip", "date"} {
			if !passed[test+" "+check] {
				t.Errorf("no PASS for %s %s", test, check)
			}
		}
	}
	for _, want := range []string{"json body", "plaintext body", "db body", "queries clamp", "updates clamp",
		"cached-queries clamp", "fortunes rows", "fortunes sort", "fortunes escaping", "fortunes structure"} {
		if !passed[want] {
			t.Errorf("no PASS for %s", want)
		}
	}
	if t.Failed() {
		for _, r := range res {
			t.Log(r)
		}
	}
}

// TestFaultsFail switches on one fault at a time and requires a FAIL of the
// check that owns it.
func TestFaultsFail(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		srv   *fakeServer
		tests []string
		want  string // "test check" that must FAIL
		text  string // in the detail of that FAIL
	}{
		{"json content type", &fakeServer{contentType: map[string]string{"/json": "text/plain"}}, []string{"json"}, "json content-type", "expected application/json"},
		{"fortunes charset", &fakeServer{contentType: map[string]string{"/fortunes": "text/html"}}, []string{"fortunes"}, "fortunes content-type", "charset mandatory"},
		{"no Server", &fakeServer{noServer: true}, []string{"plaintext"}, "plaintext headers", "Server is missing"},
		{"gzip", &fakeServer{gzip: true}, []string{"json"}, "json no-gzip", "Content-Encoding: gzip"},
		{"clamping queries", &fakeServer{noClamp: true}, []string{"queries"}, "queries clamp", "expected 500 objects"},
		{"clamping zero", &fakeServer{noClamp: true}, []string{"cached-queries"}, "cached-queries clamp", "(below 1)"},
		{"unsorted fortunes", &fakeServer{unsorted: true}, []string{"fortunes"}, "fortunes sort", "not sorted"},
		{"unescaped fortunes", &fakeServer{unescaped: true}, []string{"fortunes"}, "fortunes escaping", "<script>"},
		{"missing fortune", &fakeServer{noAdditional: true}, []string{"fortunes"}, "fortunes rows", "row id 0"},
		{"static Date", &fakeServer{staticDate: true}, []string{"json"}, "json date", "did not change"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			res := runFake(t, c.srv, c.tests...)
			for _, r := range res {
				if r.Status == Fail && r.Test+" "+r.Check == c.want && strings.Contains(r.Detail, c.text) {
					return
				}
			}
			t.Errorf("no FAIL %q mentioning %q; got:", c.want, c.text)
			for _, r := range res {
				t.Log(r)
			}
		})
	}
}

func TestFortunesPageTolerance(t *testing.T) {
	t.Parallel()
	want := expectedFortunes([]Fortune{{1, `a<b & "c"`}, {2, "plain"}})
	page := "<!doctype HTML>\n<HTML>\n <head><title>Fortunes</title></head>\n<body>\n<table>\n" +
		"<tr><th>id</th><th>message</th></tr>\n" +
		"<tr>\n<td>0</td>\n<td>Additional fortune added at request time.</td></tr>\n" +
		"<tr><td>1</td><td>a&#60;b &amp; &#34;c&#34;</td></tr>\n" +
		"<tr><td>2</td><td>plain</td></tr>\n</table></body></html>\n"
	f := &findings{test: "fortunes"}
	checkFortunesBody(f, "u", []byte(page), want)
	for _, r := range f.out {
		if r.Status != Pass {
			t.Errorf("unexpected %s", r)
		}
	}
	f = &findings{test: "fortunes"}
	checkFortunesBody(f, "u", []byte(strings.Replace(page, "&amp;", "&", 1)), want)
	if !Failed(f.out) {
		t.Errorf("a bare & passed: %v", f.out)
	}
}

func TestParseWorld(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in      string
		ok      bool
		warning bool
	}{
		{`{"id":1,"randomNumber":10000}`, true, false},
		{`{"id":1,"randomnumber":5}`, true, true},
		{`{"id":1,"randomNumber":5,"x":1}`, true, true},
		{`{"id":0,"randomNumber":5}`, false, false},
		{`{"id":1,"randomNumber":10001}`, false, false},
		{`{"id":"1","randomNumber":5}`, false, false},
		{`{"id":1.5,"randomNumber":5}`, false, false},
		{`{"id":1}`, false, false},
		{`[1]`, false, false},
	} {
		_, warns, err := parseWorld([]byte(c.in))
		if (err == nil) != c.ok || (len(warns) > 0) != c.warning {
			t.Errorf("parseWorld(%s) = warnings %v, error %v; want ok %v, warning %v", c.in, warns, err, c.ok, c.warning)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	t.Parallel()
	for _, cfg := range []Config{
		{BaseURL: "127.0.0.1:8080"},
		{BaseURL: "http://x", Tests: []string{"nope"}},
		{BaseURL: "http://x", Tests: []string{"fortunes"}},
	} {
		if _, err := Run(context.Background(), cfg); err == nil {
			t.Errorf("Run(%+v) accepted an invalid config", cfg)
		}
	}
}

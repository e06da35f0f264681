package bench

import (
	"strings"
	"testing"

	"github.com/plinth-go/plinth/bench/internal/suite"
)

// webFamilies are the web layer's benchmarks (web_sessions_test.go,
// web_csrf_test.go) by name without "Benchmark", in order.
var webFamilies = []struct {
	name  string
	cases func() []webCase
}{
	{"Session", sessionCases},
	{"SessionUntouched", untouchedCases},
	{"CSRF", csrfCases},
}

// webBenchNames lists every web sub-benchmark by full name without
// "Benchmark", as budgets.json's "plinth-web" section names them.
func webBenchNames() []string {
	var out []string
	for _, f := range webFamilies {
		for _, c := range f.cases() {
			out = append(out, f.name+"/"+c.Name)
		}
	}
	return out
}

// TestWebSetups checks that every setup of the web benchmarks answers as it
// should, twice through the same reused request, as the benchmark serves
// it: the value seeded is read, the value written is read back afterwards
// (with the cookie the write sent), the untouched route answers, the CSRF
// form post passes with the form's name as the answer. The Redis setups
// skip without PLINTH_TEST_REDIS.
func TestWebSetups(t *testing.T) {
	for _, f := range webFamilies {
		for _, c := range f.cases() {
			t.Run(f.name+"/"+c.Name, func(t *testing.T) {
				s := c.Build(t)
				s.check(t)
				s.check(t)
			})
		}
	}
}

// TestWebCSRFRejects checks that every CSRF protection of BenchmarkCSRF
// refuses a cross-site POST (Sec-Fetch-Site: cross-site from another
// Origin), even one carrying the cookie and a valid token, and that those
// with tokens refuse a request with neither header whose token is missing
// or wrong: the benchmarks time protections that protect.
func TestWebCSRFRejects(t *testing.T) {
	for _, a := range csrfApps {
		if a.reject == 0 {
			continue
		}
		t.Run(a.fw, func(t *testing.T) {
			h := a.build(t)
			cookie, token := csrfPage(t, h)
			type attempt struct {
				what string
				form string
				hdr  []string
			}
			attempts := []attempt{
				{"cross-site", csrfBody(token), []string{"Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example", "Cookie", cookie}},
				{"cross-site without Sec-Fetch-Site", csrfBody(token), []string{"Origin", "https://evil.example", "Cookie", cookie}},
			}
			if a.fw != "std" {
				attempts = append(attempts,
					attempt{"no token", "name=" + csrfName, csrfHeaders("token", cookie)},
					attempt{"wrong token", csrfBody(strings.Repeat("B", len(token))), csrfHeaders("token", cookie)})
			}
			for _, at := range attempts {
				s := newWebSetup(h, "POST", csrfSubmit, at.form, 0, "", at.hdr...)
				w := suite.NewResponseWriter(true)
				s.serve(w)
				if w.Status() != a.reject || strings.Contains(string(w.Body), csrfName) {
					t.Errorf("%s: %d %q, want %d and the handler not run", at.what, w.Status(), w.Body, a.reject)
				}
			}
		})
	}
}

package bench

// BenchmarkCSRF: a form POST (https://example.com/submit, body
// "csrf_token=<token>&name=ada", the handler answering the form's name, so
// that every setup parses the form once) through each CSRF protection, in
// two cases:
//
//   - case=same-origin: a current browser's request, with Sec-Fetch-Site:
//     same-origin and Origin: https://example.com. Plinth's web.CSRF and
//     the standard library's http.CrossOriginProtection (fw=std) decide on
//     these headers alone; gorilla/csrf and justinas/nosurf check the
//     origin and then the token in any case (their cookie and the form's
//     field), as they always do.
//   - case=token: a client that sends neither header (an old browser; a
//     Referer: https://example.com/form, which gorilla/csrf and nosurf
//     require of an HTTPS request without Origin), so that the token
//     decides: Plinth checks it against the secret in its own signed CSRF
//     cookie (an anonymous visitor has no session; the sessions, in the
//     memory store for fw=plinth and the cookie store for fw=plinth-cookie,
//     are attached but not loaded); gorilla/csrf and nosurf against their
//     own cookie. The standard library has no tokens and lets such a request
//     through unchecked: it is not in this case.
//
// fw=plinth-bare and fw=mux are the same handler without protection (on
// plinth.Bare() and on a ServeMux): the floor of each routing. Routing as in
// BenchmarkSession: Plinth on plinth.Bare() (with Sessions attached, as a real
// site has them), the peers on a ServeMux inside their middleware.
//
// TestWebCSRFRejects checks that every protection refuses a cross-site POST
// and a wrong token.

import (
	"io"
	"net/http"
	"net/url"
	"testing"

	"github.com/gorilla/csrf"
	"github.com/justinas/nosurf"
	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/web"
)

const (
	csrfOrigin  = "https://example.com"
	csrfSubmit  = csrfOrigin + "/submit"
	csrfForm    = csrfOrigin + "/form"
	csrfField   = "csrf_token"
	csrfName    = "ada"
	csrfNoToken = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" // 86 bytes, as Plinth's
)

// csrfApp is one protection: its handler serves GET /form (answering a
// token, and setting the cookie it needs) and POST /submit (answering the
// form's name); reject is the status it refuses with (0: it does not).
type csrfApp struct {
	fw     string
	reject int
	build  func(testing.TB) http.Handler
}

var csrfApps = []csrfApp{
	{"plinth", 403, func(tb testing.TB) http.Handler {
		return plinthCSRFApp(tb, web.NewMemoryStore(web.MemoryStoreConfig{}), true)
	}},
	{"plinth-cookie", 403, func(tb testing.TB) http.Handler {
		return plinthCSRFApp(tb, plinthCookieStore(tb), true)
	}},
	{"std", 403, func(testing.TB) http.Handler { return http.NewCrossOriginProtection().Handler(csrfMux(nil)) }},
	{"gorilla", 403, func(testing.TB) http.Handler {
		protect := csrf.Protect(benchKey32, csrf.FieldName(csrfField), csrf.Path("/"))
		return protect(csrfMux(csrf.Token))
	}},
	{"nosurf", nosurf.FailureCode, func(testing.TB) http.Handler { return nosurf.New(csrfMux(nosurf.Token)) }},
	{"plinth-bare", 0, func(tb testing.TB) http.Handler { return plinthCSRFApp(tb, nil, false) }},
	{"mux", 0, func(testing.TB) http.Handler { return csrfMux(nil) }},
}

// plinthCSRFApp serves the CSRF routes on plinth.Bare() with Sessions on
// store and web.CSRF when protect is set.
func plinthCSRFApp(tb testing.TB, store web.Store, protect bool) http.Handler {
	tb.Helper()
	app := plinth.Bare()
	if protect {
		s, err := web.NewSessions(web.SessionsConfig{Store: store})
		if err != nil {
			tb.Fatal(err)
		}
		s.Attach(app)
		app.Use(web.CSRF(web.CSRFConfig{}))
	}
	app.Get("/form", func(c *plinth.Ctx) error {
		if !protect {
			return c.Text(200, csrfNoToken)
		}
		tok, err := web.CSRFToken(c)
		if err != nil {
			return err
		}
		return c.Text(200, tok)
	})
	app.Post("/submit", func(c *plinth.Ctx) error { return c.Text(200, c.Request().PostFormValue("name")) })
	app.Build()
	return app
}

// csrfMux serves the CSRF routes on a ServeMux, GET /form answering
// token(r) (csrfNoToken when token is nil).
func csrfMux(token func(*http.Request) string) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /form", func(w http.ResponseWriter, r *http.Request) {
		if token == nil {
			_, _ = io.WriteString(w, csrfNoToken)
			return
		}
		_, _ = io.WriteString(w, token(r))
	})
	mux.HandleFunc("POST /submit", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.PostFormValue("name"))
	})
	return mux
}

// csrfPage gets the form page over HTTPS: the Cookie header for the next
// request and the token.
func csrfPage(tb testing.TB, h http.Handler) (cookie, token string) {
	tb.Helper()
	cookie = cookieAfter(tb, h, "GET", csrfForm, "")
	return cookie, webGet(tb, h, csrfForm, cookie)
}

// csrfHeaders are the request headers of each case.
func csrfHeaders(kind, cookie string) []string {
	if kind == "same-origin" {
		return []string{"Sec-Fetch-Site", "same-origin", "Origin", csrfOrigin, "Cookie", cookie}
	}
	return []string{"Referer", csrfForm, "Cookie", cookie}
}

func csrfBody(token string) string {
	return csrfField + "=" + url.QueryEscape(token) + "&name=" + csrfName
}

// csrfCases are BenchmarkCSRF's cases.
func csrfCases() []webCase {
	var out []webCase
	for _, kind := range []string{"same-origin", "token"} {
		for _, a := range csrfApps {
			if kind == "token" && a.fw == "std" {
				continue
			}
			out = append(out, webCase{"case=" + kind + "/fw=" + a.fw, func(tb testing.TB) *webSetup {
				h := a.build(tb)
				cookie, token := csrfPage(tb, h)
				return newWebSetup(h, "POST", csrfSubmit, csrfBody(token), 200, csrfName, csrfHeaders(kind, cookie)...)
			}})
		}
	}
	return out
}

func BenchmarkCSRF(b *testing.B) { benchWebCases(b, csrfCases()) }

package web_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/middleware"
	"github.com/plinth-go/plinth/racetest"
	"github.com/plinth-go/plinth/web"
)

// browserAccept is what a browser's navigation sends.
const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"

// errorApp has a route for each way the core answers with a problem.
func errorApp(pages *web.ErrorPages) *plinth.App {
	app := plinth.New()
	app.Logger = quiet()
	app.HandlerTimeout = 20 * time.Millisecond
	pages.Attach(app)
	maint := middleware.NewMaintenance(middleware.MaintenanceConfig{Logger: quiet()})
	maint.Enable(90 * time.Second)
	app.Get("/conflict", func(c *plinth.Ctx) error { return plinth.Conflict(`the name "<x>" is taken`) })
	app.Get("/panic", func(c *plinth.Ctx) error { panic("boom") })
	app.Get("/slow", func(c *plinth.Ctx) error {
		<-c.Context().Done()
		return c.Context().Err()
	})
	app.Post("/upload", func(c *plinth.Ctx) error {
		_, err := io.ReadAll(c.Request().Body)
		return err
	})
	app.SetBodyLimit(4)
	down := app.Group("/down")
	down.Use(maint.Middleware())
	down.Get("/x", func(c *plinth.Ctx) error { return c.Text(200, "up") })
	return app
}

var errorCases = []struct {
	name, method, target, body string
	status                     int
	title, detail              string
	header, value              string
}{
	{"handler problem", "GET", "/conflict", "", 409, "Conflict", `the name "<x>" is taken`, "", ""},
	{"404", "GET", "/nowhere", "", 404, "Not Found", "", "", ""},
	{"405", "DELETE", "/conflict", "", 405, "Method Not Allowed", "", "Allow", "GET, HEAD, OPTIONS"},
	{"413", "POST", "/upload", "far too large", 413, "Request Entity Too Large", "request body larger than the limit of 4 bytes", "", ""},
	{"500 panic", "GET", "/panic", "", 500, "Internal Server Error", "", "", ""},
	{"503 timeout", "GET", "/slow", "", 503, "Service Unavailable", "the handler did not finish within 20ms", "", ""},
	{"503 maintenance", "GET", "/down/x", "", 503, "Service Unavailable", "the service is down for maintenance", "Retry-After", "90"},
}

func serveError(app *plinth.App, method, target, body, accept string) *httptest.ResponseRecorder {
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, r)
	req.Header.Set("X-Request-Id", "req-42")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	return rec
}

func TestErrorPagesBuiltIn(t *testing.T) {
	app := errorApp(web.NewErrorPages(web.ErrorPagesConfig{}))
	for _, tc := range errorCases {
		for _, accept := range []string{browserAccept, "text/html"} {
			rec := serveError(app, tc.method, tc.target, tc.body, accept)
			body := rec.Body.String()
			if rec.Code != tc.status || rec.Header().Get("Content-Type") != "text/html; charset=utf-8" {
				t.Errorf("%s, %s: %d %q", tc.name, accept, rec.Code, rec.Header().Get("Content-Type"))
				continue
			}
			want := []string{
				"<!DOCTYPE html>", "<title>" + strconv.Itoa(tc.status) + " " + tc.title + "</title>",
				"Error " + strconv.Itoa(tc.status), "<h1>" + tc.title + "</h1>", "Request ID: <code>req-42</code>",
			}
			if tc.detail != "" {
				want = append(want, "<p>"+strings.ReplaceAll(strings.ReplaceAll(tc.detail, `"`, "&#34;"), "<x>", "&lt;x&gt;")+"</p>")
			}
			for _, w := range want {
				if !strings.Contains(body, w) {
					t.Errorf("%s: the page lacks %s:\n%s", tc.name, w, body)
				}
			}
			if strings.Contains(body, "<script") || strings.Contains(body, "src=") || strings.Contains(body, "http") {
				t.Errorf("%s: the page has a script or an external asset:\n%s", tc.name, body)
			}
			if tc.header != "" && rec.Header().Get(tc.header) != tc.value {
				t.Errorf("%s: %s = %q, want %q", tc.name, tc.header, rec.Header().Get(tc.header), tc.value)
			}
			if rec.Header().Get("Vary") != "Accept" {
				t.Errorf("%s: Vary %q", tc.name, rec.Header().Get("Vary"))
			}
			if !strings.Contains(rec.Header().Get("Content-Security-Policy"), "default-src 'self'") {
				t.Errorf("%s: the page lacks the document CSP: %v", tc.name, rec.Header())
			}
		}
	}
}

// TestErrorPagesJSON: clients that do not prefer HTML keep problem JSON.
func TestErrorPagesJSON(t *testing.T) {
	app := errorApp(web.NewErrorPages(web.ErrorPagesConfig{}))
	for _, tc := range errorCases {
		for _, accept := range []string{"", "*/*", "application/json", "application/problem+json", "application/json, text/html;q=0.5", "text/html, application/json", "text/*"} {
			rec := serveError(app, tc.method, tc.target, tc.body, accept)
			if rec.Code != tc.status || rec.Header().Get("Content-Type") != "application/problem+json" ||
				!strings.Contains(rec.Body.String(), `"request_id":"req-42"`) {
				t.Errorf("%s, Accept %q: %d %q %s", tc.name, accept, rec.Code, rec.Header().Get("Content-Type"), rec.Body)
			}
			if tc.header != "" && rec.Header().Get(tc.header) != tc.value {
				t.Errorf("%s: %s = %q, want %q", tc.name, tc.header, rec.Header().Get(tc.header), tc.value)
			}
			if rec.Header().Get("Vary") != "Accept" {
				t.Errorf("%s: Vary %q", tc.name, rec.Header().Get("Vary"))
			}
		}
	}
}

// TestErrorPagesCustom: the application's errors/<status> template, then
// its errors/error template, replace the built-in page; a failing one falls
// back to the built-in page.
func TestErrorPagesCustom(t *testing.T) {
	l := newLocales(t, web.LocalesConfig{Files: mapFS(map[string]string{
		"en.json": `{"notfound": "Nothing here"}`,
		"fr.json": `{"notfound": "Rien ici"}`,
	})})
	v := newViews(t, map[string]string{
		"layouts/site.html": `<html lang="{{ lang }}"><body class="site">{{ block "content" . }}{{ end }}</body></html>`,
		"errors/404.html":   `{{ template "layouts/site.html" . }}{{ define "content" }}<h1>{{ t "notfound" }}</h1><p>{{ .RequestID }}</p>{{ end }}`,
		"errors/error.html": `{{ template "layouts/site.html" . }}{{ define "content" }}<h1>{{ .Status }} {{ .Title }}</h1>{{ end }}`,
		"errors/409.html":   `<p>partial</p>{{ index .Problem.Extensions 5 }}`,
	}, web.ViewsConfig{})
	app := errorApp(web.NewErrorPages(web.ErrorPagesConfig{Views: v}))
	app.Use(l.Middleware())

	rec := serveError(app, "GET", "/nowhere", "", browserAccept)
	if rec.Code != 404 || rec.Body.String() != `<html lang="en"><body class="site"><h1>Nothing here</h1><p>req-42</p></body></html>` {
		t.Errorf("404: %d %s", rec.Code, rec.Body)
	}
	req := httptest.NewRequest("GET", "/nowhere", nil)
	req.Header.Set("Accept", "text/html")
	req.Header.Set("Accept-Language", "fr")
	rec = httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	if !strings.Contains(rec.Body.String(), `<html lang="fr">`) || !strings.Contains(rec.Body.String(), "Rien ici") {
		t.Errorf("404 in French: %s", rec.Body)
	}
	rec = serveError(app, "GET", "/down/x", "", browserAccept)
	if rec.Code != 503 || !strings.Contains(rec.Body.String(), "<h1>503 Service Unavailable</h1>") || rec.Header().Get("Retry-After") != "90" {
		t.Errorf("503 through errors/error.html: %d %v %s", rec.Code, rec.Header(), rec.Body)
	}
	rec = serveError(app, "GET", "/conflict", "", browserAccept)
	if rec.Code != 409 || !strings.Contains(rec.Body.String(), "<h1>Conflict</h1>") || strings.Contains(rec.Body.String(), "partial") {
		t.Errorf("409 whose template fails: %d %s, want the built-in page", rec.Code, rec.Body)
	}
	rec = serveError(app, "GET", "/nowhere", "", "")
	if rec.Header().Get("Content-Type") != "application/problem+json" {
		t.Errorf("custom pages, no Accept: %v", rec.Header())
	}
}

// TestErrorPagesJSONAllocations: with error pages installed, a problem sent
// as JSON costs what it costs without them.
func TestErrorPagesJSONAllocations(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	measure := func(pages bool) float64 {
		app := plinth.Bare()
		if pages {
			web.NewErrorPages(web.ErrorPagesConfig{}).Attach(app)
		}
		app.Get("/x", func(c *plinth.Ctx) error { return nil })
		req := httptest.NewRequest("GET", "/nowhere", nil)
		req.Header.Set("Accept", "*/*")
		w := &nullWriter{h: http.Header{}}
		app.ServeHTTP(w, req)
		return testing.AllocsPerRun(200, func() {
			clear(w.h)
			app.ServeHTTP(w, req)
		})
	}
	if without, with := measure(false), measure(true); with != without {
		t.Errorf("404 as JSON: %v allocs with error pages, %v without", with, without)
	}
}

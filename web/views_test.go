package web_test

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/racetest"
	"github.com/plinth-go/plinth/web"
)

// viewFiles is a small site: a layout, a partial, pages.
var viewFiles = map[string]string{
	"layouts/base.html": `<!DOCTYPE html>
<html lang="{{ lang }}"><head><title>{{ block "title" . }}Site{{ end }}</title></head>
<body>{{ template "partials/nav.html" . }}
{{ block "content" . }}{{ end }}
{{ range flashes }}<p class="{{ .Kind }}">{{ .Message }}</p>{{ end }}{{ with user }}<p>{{ . }}</p>{{ end }}</body></html>`,
	"partials/nav.html": `<nav>{{ t "nav.home" }}</nav>`,
	"home.html": `{{ template "layouts/base.html" . }}
{{ define "title" }}{{ t "hello" }}{{ end }}
{{ define "content" }}<p>{{ t "greet" .Name }}</p><script nonce="{{ nonce }}">start()</script>{{ end }}`,
	"account/show.html": `{{ template "layouts/base.html" . }}{{ define "content" }}<p>{{ .Name }}</p>{{ end }}`,
	"fragment.tmpl":     `<li>{{ .Name | shout }}</li>`,
	"fail.html":         `<p>before</p>{{ .Missing.Field }}<p>after</p>`,
	"static/site.css":   `body{}`,
}

func newViews(t *testing.T, files map[string]string, cfg web.ViewsConfig) *web.Views {
	t.Helper()
	if cfg.Files == nil {
		cfg.Files = mapFS(files)
	}
	if cfg.Funcs == nil {
		cfg.Funcs = template.FuncMap{"shout": strings.ToUpper}
	}
	v, err := web.NewViews(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

type pageData struct{ Name string }

func TestViewsRender(t *testing.T) {
	v := newViews(t, viewFiles, web.ViewsConfig{})
	l := newLocales(t, web.LocalesConfig{Files: mapFS(map[string]string{
		"en.json": `{"hello": "Hello", "greet": "Hello, %s!", "nav.home": "Home"}`,
		"fr.json": `{"hello": "Bonjour", "greet": "Bonjour, %s !", "nav.home": "Accueil"}`,
	})})
	app := plinth.New()
	app.Use(l.Middleware())
	app.Get("/{page...}", func(c *plinth.Ctx) error {
		return v.Render(c, http.StatusOK, c.Param("page"), &pageData{Name: "<Ada>"})
	})
	req := httptest.NewRequest("GET", "/home", nil)
	req.Header.Set("Accept-Language", "fr")
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	body := rec.Body.String()
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("%d %v", rec.Code, rec.Header())
	}
	for _, want := range []string{
		`<html lang="fr">`, `<title>Bonjour</title>`, `<nav>Accueil</nav>`,
		`<p>Bonjour, &lt;Ada&gt; !</p>`, // data escaped, also through t
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %s:\n%s", want, body)
		}
	}
	m := regexp.MustCompile(`<script nonce="([^"]+)">`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no nonce in %s", body)
	}
	nonce := strings.ReplaceAll(m[1], "&#43;", "+") // html/template escapes + in attributes; browsers decode it
	if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "'nonce-"+nonce+"'") {
		t.Errorf("the nonce %s is not in the CSP %q", nonce, csp)
	}

	for _, tc := range []struct{ target, want string }{
		{"/account/show.html", "<p>&lt;Ada&gt;</p>"},
		{"/account/show", "<p>&lt;Ada&gt;</p>"}, // without the extension
		{"/fragment", "<li>&lt;ADA&gt;</li>"},   // a .tmpl page without a layout, a user func
	} {
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, httptest.NewRequest("GET", tc.target, nil))
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), tc.want) {
			t.Errorf("%s: %d %q, want %q", tc.target, rec.Code, rec.Body, tc.want)
		}
	}
	if !v.Has("home") || !v.Has("home.html") || v.Has("layouts/base.html") || v.Has("partials/nav") || v.Has("static/site.css") {
		t.Error("Has: pages are the templates outside layouts and partials")
	}
}

// TestViewsExecutionError: a template that fails half way writes nothing;
// Render returns a 500 problem that wraps the cause, which the renderer
// logs and never shows.
func TestViewsExecutionError(t *testing.T) {
	v := newViews(t, viewFiles, web.ViewsConfig{})
	app := plinth.Bare()
	app.Logger = quiet()
	var got error
	app.Get("/{page...}", func(c *plinth.Ctx) error {
		got = v.Render(c, 200, c.Param("page"), &pageData{Name: "x"})
		return got
	})
	for _, target := range []string{"/fail", "/no/such/page"} {
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
		if rec.Code != 500 || rec.Header().Get("Content-Type") != "application/problem+json" || strings.Contains(rec.Body.String(), "before") {
			t.Errorf("%s: %d %v %q", target, rec.Code, rec.Header(), rec.Body)
		}
		p, ok := errors.AsType[*plinth.Problem](got)
		if !ok || p.StatusCode() != 500 || p.Unwrap() == nil || p.Detail != "" {
			t.Errorf("%s: Render returned %v", target, got)
		}
	}
	if !strings.Contains(got.Error(), `no page "no/such/page"`) {
		t.Errorf("unknown page: %v", got)
	}
}

func TestViewsParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"page", map[string]string{"layouts/base.html": "ok", "shop/cart.html": "line one\nline two\n{{ if }}\n"}, "shop/cart.html:3: missing value for if"},
		{"layout", map[string]string{"layouts/base.html": "\n\n{{ end }}", "home.html": ""}, "layouts/base.html:3: unexpected {{end}}"},
		{"unknown function", map[string]string{"home.html": "\n{{ nosuch }}"}, `home.html:2: function "nosuch" not defined`},
		{"unknown template", map[string]string{"home.html": `{{ template "layouts/nope.html" . }}`}, ""},
	} {
		_, err := web.NewViews(web.ViewsConfig{Files: mapFS(tc.files)})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v (html/template reports an unknown template when executing)", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

func TestViewsConfigPanics(t *testing.T) {
	for name, cfg := range map[string]web.ViewsConfig{
		"nil Files":       {},
		"built-in's name": {Files: mapFS(viewFiles), Funcs: template.FuncMap{"t": strings.ToUpper}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			_, _ = web.NewViews(cfg)
		}()
	}
}

func TestViewsDirectories(t *testing.T) {
	files := map[string]string{
		"frames/main.gohtml": `[{{ block "content" . }}{{ end }}]`,
		"bits/x.gohtml":      `x`,
		"page.gohtml":        `{{ template "frames/main.gohtml" . }}{{ define "content" }}{{ template "bits/x.gohtml" }}{{ end }}`,
		"page.html":          `not a template here`,
	}
	v := newViews(t, files, web.ViewsConfig{LayoutsDir: "frames", PartialsDir: "/bits/", Extensions: []string{".gohtml"}})
	if got := render(t, v, "page"); got != "[x]" {
		t.Errorf("%q", got)
	}
	if v.Has("frames/main.gohtml") || v.Has("page.html") {
		t.Error("layouts or other extensions taken as pages")
	}
}

func TestViewsReload(t *testing.T) {
	fsys := fstest.MapFS{
		"layouts/base.html": {Data: []byte(`<main>{{ block "content" . }}{{ end }}</main>`), ModTime: time.Unix(1, 0)},
		"home.html":         {Data: []byte(`{{ template "layouts/base.html" . }}{{ define "content" }}v1{{ end }}`), ModTime: time.Unix(1, 0)},
	}
	fixed := newViews(t, nil, web.ViewsConfig{Files: fsys})
	live := newViews(t, nil, web.ViewsConfig{Files: fsys, Reload: true})
	if a, b := render(t, fixed, "home"), render(t, live, "home"); a != "<main>v1</main>" || b != a {
		t.Fatalf("%q %q", a, b)
	}
	fsys["home.html"] = &fstest.MapFile{Data: []byte(`{{ template "layouts/base.html" . }}{{ define "content" }}v2{{ end }}`), ModTime: time.Unix(2, 0)}
	fsys["layouts/base.html"] = &fstest.MapFile{Data: []byte(`<div>{{ block "content" . }}{{ end }}</div>`), ModTime: time.Unix(2, 0)}
	if got := render(t, fixed, "home"); got != "<main>v1</main>" {
		t.Errorf("without Reload: %q", got)
	}
	if got := render(t, live, "home"); got != "<div>v2</div>" {
		t.Errorf("with Reload: %q", got)
	}
	fsys["new.html"] = &fstest.MapFile{Data: []byte(`new`), ModTime: time.Unix(3, 0)}
	if got := render(t, live, "new"); got != "new" {
		t.Errorf("a page added: %q", got)
	}
	// A template that no longer parses: the error, with file and line, is
	// the problem's detail, for the developer's browser.
	fsys["home.html"] = &fstest.MapFile{Data: []byte("\n{{ if }}"), ModTime: time.Unix(4, 0)}
	app := plinth.Bare()
	app.Logger = quiet()
	app.Get("/", func(c *plinth.Ctx) error { return live.Render(c, 200, "home", nil) })
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if rec.Code != 500 || !strings.Contains(rec.Body.String(), "home.html:2: missing value for if") {
		t.Errorf("a broken template under Reload: %d %s", rec.Code, rec.Body)
	}
	t.Setenv("PLINTH_ENV", "development")
	dev := fstest.MapFS{"a.html": {Data: []byte("a")}}
	v := newViews(t, nil, web.ViewsConfig{Files: dev})
	dev["b.html"] = &fstest.MapFile{Data: []byte("b")}
	if !v.Has("b") {
		t.Error("PLINTH_ENV=development does not turn Reload on")
	}
}

// render renders a page through a Bare App and returns the body.
func render(t *testing.T, v *web.Views, name string) string {
	t.Helper()
	app := plinth.Bare()
	app.Logger = quiet()
	app.Get("/", func(c *plinth.Ctx) error { return v.Render(c, 0, name, &pageData{Name: "x"}) })
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if rec.Code != 200 {
		t.Errorf("%s: %d %s", name, rec.Code, rec.Body)
	}
	return rec.Body.String()
}

// TestViewsConcurrent renders one page from many goroutines: each request
// sees its own data and nonce (the per-clone slot), under -race.
func TestViewsConcurrent(t *testing.T) {
	v := newViews(t, map[string]string{
		"p.html": `{{ .Name }}|{{ nonce }}|{{ lang }}`,
	}, web.ViewsConfig{})
	app := plinth.New()
	app.Get("/{name}", func(c *plinth.Ctx) error {
		return v.Render(c, 200, "p", &pageData{Name: c.Param("name")})
	})
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			for j := range 50 {
				name := fmt.Sprintf("n%d-%d", i, j)
				rec := httptest.NewRecorder()
				app.ServeHTTP(rec, httptest.NewRequest("GET", "/"+name, nil))
				parts := strings.Split(rec.Body.String(), "|")
				if len(parts) != 3 || parts[0] != name || parts[1] == "" ||
					!strings.Contains(rec.Header().Get("Content-Security-Policy"), strings.ReplaceAll(parts[1], "&#43;", "+")) {
					t.Errorf("%s: %q", name, rec.Body)
					return
				}
			}
		})
	}
	wg.Wait()
}

// benchPage is the page of the allocation test and the benchmark: a layout,
// a partial, a loop, escaping.
var benchPage = map[string]string{
	"layouts/base.html": `<!DOCTYPE html><html><head><title>{{ .Title }}</title></head><body>{{ template "partials/nav.html" . }}{{ block "content" . }}{{ end }}</body></html>`,
	"partials/nav.html": `<nav><a href="/">Home</a> <a href="/about">About</a></nav>`,
	"list.html":         `{{ template "layouts/base.html" . }}{{ define "content" }}<ul>{{ range .Items }}<li>{{ .ID }}: {{ .Text }}</li>{{ end }}</ul>{{ end }}`,
}

type benchItem struct {
	ID   int
	Text string
}

type benchData struct {
	Title string
	Items []benchItem
}

func newBenchData() *benchData {
	d := &benchData{Title: "Fortunes"}
	for i := range 10 {
		d.Items = append(d.Items, benchItem{ID: i, Text: "A <fortune> & more"})
	}
	return d
}

// TestViewsAllocations compares a warmed Render with plain html/template
// executing the same templates into a bytes.Buffer and writing it: Views
// may add at most the allocations budgeted here.
func TestViewsAllocations(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	v := newViews(t, benchPage, web.ViewsConfig{})
	data := newBenchData()
	app := plinth.Bare()
	app.Get("/", func(c *plinth.Ctx) error { return v.Render(c, 200, "list", data) })
	req := httptest.NewRequest("GET", "/", nil)
	w := &nullWriter{h: http.Header{}}
	app.ServeHTTP(w, req)
	views := testing.AllocsPerRun(200, func() {
		clear(w.h)
		app.ServeHTTP(w, req)
	})

	plain := template.Must(template.New("layouts/base.html").Parse(benchPage["layouts/base.html"]))
	template.Must(plain.New("partials/nav.html").Parse(benchPage["partials/nav.html"]))
	template.Must(plain.New("list.html").Parse(benchPage["list.html"]))
	page := plain.Lookup("list.html")
	var buf bytes.Buffer
	direct := plinth.Bare()
	direct.Get("/", func(c *plinth.Ctx) error {
		buf.Reset()
		if err := page.Execute(&buf, data); err != nil {
			return err
		}
		return c.Bytes(200, "text/html; charset=utf-8", buf.Bytes())
	})
	direct.ServeHTTP(w, req)
	std := testing.AllocsPerRun(200, func() {
		clear(w.h)
		direct.ServeHTTP(w, req)
	})
	t.Logf("allocations per render: Views %v, plain html/template %v", views, std)
	if views > std {
		t.Errorf("Views: %v allocs per render, plain html/template %v: Views must add none", views, std)
	}
}

package bench

// Benchmarks of the web layer's views (web.Views) against plain
// html/template on the same templates, in process, one request per op:
//
//	cd bench && go test -run '^$' -bench 'ViewsRender' -benchmem -count=6 -benchtime=200ms .
//
// BenchmarkViewsRender/fw=F/par=P renders a page of a layout, a partial
// and a ten-item list with escaped text (viewsPage) through a
// plinth.Bare() App with a native handler, P being "1" (one goroutine) or
// "gomaxprocs" (b.RunParallel):
//
//   - plinth-views: Views.Render: a pooled clone of the page whose
//     built-in functions (nonce, t, lang, ...) read the request, executed
//     into a pooled buffer, written when complete.
//   - html-template: the page parsed once with html/template (layout and
//     partial associated), executed into a new bytes.Buffer per request and
//     written with c.Bytes: what a handler written by hand does.
//   - html-template-pooled: the same, with a sync.Pool of buffers.
//
// TestViewsRenderSetups checks that the three answer the same bytes, so that
// no benchmark measures an error page.

import (
	"bytes"
	"html/template"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/bench/internal/suite"
	"github.com/plinth-go/plinth/web"
)

// viewsPage is the benchmark's page: file name to template.
var viewsPage = map[string]string{
	"layouts/base.html": `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{{ .Title }}</title></head>` +
		`<body>{{ template "partials/nav.html" . }}<main>{{ block "content" . }}{{ end }}</main></body></html>`,
	"partials/nav.html": `<nav><a href="/">Home</a> <a href="/about">About</a> <a href="/account">Account</a></nav>`,
	"list.html": `{{ template "layouts/base.html" . }}{{ define "content" }}<h1>{{ .Title }}</h1>` +
		`<ul>{{ range .Items }}<li id="item-{{ .ID }}">{{ .ID }}: {{ .Text }}</li>{{ end }}</ul>{{ end }}`,
}

type viewsItem struct {
	ID   int
	Text string
}

type viewsData struct {
	Title string
	Items []viewsItem
}

var viewsBenchData = func() *viewsData {
	d := &viewsData{Title: "Fortunes & friends"}
	for i := range 10 {
		d.Items = append(d.Items, viewsItem{ID: i, Text: `A computer program does what you tell it to do, not what you want it to do <script>`})
	}
	return d
}()

// viewsApps builds each framework's App, by name, in benchmark order.
var viewsApps = []struct {
	fw    string
	build func(testing.TB) http.Handler
}{
	{"plinth-views", func(tb testing.TB) http.Handler {
		fsys := fstest.MapFS{}
		for name, body := range viewsPage {
			fsys[name] = &fstest.MapFile{Data: []byte(body)}
		}
		v, err := web.NewViews(web.ViewsConfig{Files: fsys})
		if err != nil {
			tb.Fatal(err)
		}
		app := plinth.Bare()
		app.Get("/", func(c *plinth.Ctx) error { return v.Render(c, http.StatusOK, "list", viewsBenchData) })
		return app
	}},
	{"html-template", func(tb testing.TB) http.Handler {
		page := plainViewsPage()
		app := plinth.Bare()
		app.Get("/", func(c *plinth.Ctx) error {
			var buf bytes.Buffer
			if err := page.Execute(&buf, viewsBenchData); err != nil {
				return err
			}
			return c.Bytes(http.StatusOK, "text/html; charset=utf-8", buf.Bytes())
		})
		return app
	}},
	{"html-template-pooled", func(tb testing.TB) http.Handler {
		page := plainViewsPage()
		pool := sync.Pool{New: func() any { return new(bytes.Buffer) }}
		app := plinth.Bare()
		app.Get("/", func(c *plinth.Ctx) error {
			buf := pool.Get().(*bytes.Buffer)
			defer pool.Put(buf)
			buf.Reset()
			if err := page.Execute(buf, viewsBenchData); err != nil {
				return err
			}
			return c.Bytes(http.StatusOK, "text/html; charset=utf-8", buf.Bytes())
		})
		return app
	}},
}

// plainViewsPage parses viewsPage with html/template alone.
func plainViewsPage() *template.Template {
	t := template.New("")
	for _, name := range []string{"layouts/base.html", "partials/nav.html", "list.html"} {
		template.Must(t.New(name).Parse(viewsPage[name]))
	}
	return t.Lookup("list.html")
}

func TestViewsRenderSetups(t *testing.T) {
	want := viewsAnswer(t, viewsApps[0].build(t))
	for _, a := range viewsApps[1:] {
		if got := viewsAnswer(t, a.build(t)); got != want {
			t.Errorf("%s answers\n%s\nwant\n%s", a.fw, got, want)
		}
	}
}

// viewsAnswer serves the page once and returns it, failing on an error
// page, so that no benchmark times one.
func viewsAnswer(tb testing.TB, h http.Handler) string {
	tb.Helper()
	w := suite.NewResponseWriter(true)
	h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Status() != 200 || len(w.Body) < 1000 {
		tb.Fatalf("%d %q", w.Status(), w.Body)
	}
	return string(w.Body)
}

func BenchmarkViewsRender(b *testing.B) {
	for _, a := range viewsApps {
		b.Run("fw="+a.fw+"/par=1", func(b *testing.B) {
			h := a.build(b)
			viewsAnswer(b, h)
			req := httptest.NewRequest("GET", "/", nil)
			w := suite.NewResponseWriter(false)
			b.ReportAllocs()
			for b.Loop() {
				w.Reset()
				h.ServeHTTP(w, req)
			}
		})
		b.Run("fw="+a.fw+"/par=gomaxprocs", func(b *testing.B) {
			h := a.build(b)
			viewsAnswer(b, h)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				req := httptest.NewRequest("GET", "/", nil)
				w := suite.NewResponseWriter(false)
				for pb.Next() {
					w.Reset()
					h.ServeHTTP(w, req)
				}
			})
		})
	}
}

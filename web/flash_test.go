package web_test

import (
	"errors"
	"html/template"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/web"
)

func TestFlashReadOnce(t *testing.T) {
	s, err := web.NewSessions(web.SessionsConfig{})
	if err != nil {
		t.Fatal(err)
	}
	app := plinth.New()
	s.Attach(app)
	app.Get("/add", func(c *plinth.Ctx) error {
		if err := web.AddFlash(c, "success", "Saved."); err != nil {
			return err
		}
		if err := web.AddFlash(c, "info", "Second."); err != nil {
			return err
		}
		return c.Redirect(303, "/show")
	})
	app.Get("/show", func(c *plinth.Ctx) error {
		var b strings.Builder
		for _, f := range web.FlashesOf(c) {
			b.WriteString(f.Kind + ":" + f.Message + ";")
		}
		return c.Text(200, b.String())
	})
	fresh := newClient(t, app)
	if got := fresh.get("/show"); got != "" || len(fresh.cookie) != 0 {
		t.Fatalf("flashes of a new visitor: %q, cookies %v (showing flashes must not create a session)", got, fresh.cookie)
	}
	cl := newClient(t, app)
	if w := cl.do("GET", "/add", ""); w.Code != 303 {
		t.Fatalf("add: %d", w.Code)
	}
	if got := cl.get("/show"); got != "success:Saved.;info:Second.;" {
		t.Fatalf("first read %q", got)
	}
	if got := cl.get("/show"); got != "" {
		t.Fatalf("second read %q: flashes are read once", got)
	}
}

// TestFlashKeptWhenRenderFails: a page that fails after {{ flashes }} does
// not consume them; the next page that renders shows them, once
// (before, the failed page lost them). Their text is escaped.
func TestFlashKeptWhenRenderFails(t *testing.T) {
	s, err := web.NewSessions(web.SessionsConfig{})
	if err != nil {
		t.Fatal(err)
	}
	views, err := web.NewViews(web.ViewsConfig{
		Files: fstest.MapFS{"show.html": {Data: []byte(`{{ range flashes }}[{{ .Message }}]{{ end }}{{ if .Fail }}{{ boom }}{{ end }}`)}},
		Funcs: template.FuncMap{"boom": func() (string, error) { return "", errors.New("boom") }},
	})
	if err != nil {
		t.Fatal(err)
	}
	app := plinth.New()
	s.Attach(app)
	app.Get("/add", func(c *plinth.Ctx) error {
		if err := web.AddFlash(c, "info", "<b>Saved</b>"); err != nil {
			return err
		}
		return c.Text(200, "added")
	})
	app.Get("/show", func(c *plinth.Ctx) error {
		return views.Render(c, 200, "show", struct{ Fail bool }{c.Query("fail") != ""})
	})
	cl := newClient(t, app)
	cl.get("/add")
	if w := cl.do("GET", "/show?fail=1", ""); w.Code != 500 || strings.Contains(w.Body.String(), "Saved") {
		t.Fatalf("failing page: %d %q", w.Code, w.Body)
	}
	if got := cl.get("/show"); got != "[&lt;b&gt;Saved&lt;/b&gt;]" {
		t.Fatalf("after a failed page, the flash is %q, want it kept and escaped", got)
	}
	if got := cl.get("/show"); got != "" {
		t.Fatalf("shown twice: %q", got)
	}
}

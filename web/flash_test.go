package web_test

import (
	"strings"
	"testing"

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
		for _, f := range web.Flashes(c) {
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

package plinthtest_test

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
	"github.com/plinth-go/plinth/plinthtest"
)

// fakeTB records what the helpers report instead of failing the real test.
type fakeTB struct {
	testing.TB // nil: a helper that calls another method panics the test
	mu         sync.Mutex
	msgs       []string
	cleanups   []func()
}

func (f *fakeTB) Helper()      {}
func (f *fakeTB) Name() string { return "fake" }
func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	f.msgs = append(f.msgs, fmt.Sprintf(format, args...))
	f.mu.Unlock()
}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.Errorf(format, args...)
	runtime.Goexit()
}
func (f *fakeTB) Logf(string, ...any) {}
func (f *fakeTB) Cleanup(fn func())   { f.cleanups = append(f.cleanups, fn) }

// failure runs fn with a fake TB and returns its first failure, "" when
// it passed.
func failure(t *testing.T, fn func(tb testing.TB)) string {
	t.Helper()
	f := &fakeTB{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(f)
	}()
	<-done
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
	if len(f.msgs) == 0 {
		return ""
	}
	return f.msgs[0]
}

// wantFailure asserts that fn fails with a message containing every part.
func wantFailure(t *testing.T, fn func(tb testing.TB), parts ...string) {
	t.Helper()
	msg := failure(t, fn)
	if msg == "" {
		t.Fatalf("passed, want a failure containing %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(msg, p) {
			t.Errorf("failure message lacks %q:\n%s", p, msg)
		}
	}
}

type NewBook struct {
	Body struct {
		Title string `json:"title" validate:"required"`
		Pages int    `json:"pages" validate:"min=1"`
	}
}

type Book struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Pages int    `json:"pages"`
}

type GetBook struct {
	ID string `path:"id"`
}

// newApp is a small App: a typed API, an HTML page with forms, cookies
// and redirects.
func newApp(broken bool) *plinth.App {
	app := plinth.New()
	a := api.New(app, api.Config{Title: "Books"})
	api.Register(a, api.Operation{Method: "POST", Path: "/books", Errors: []int{409}},
		func(ctx context.Context, in *NewBook) (*Book, error) {
			if in.Body.Title == "taken" {
				return nil, plinth.Conflict("a book with this title exists")
			}
			return &Book{ID: "b1", Title: in.Body.Title, Pages: in.Body.Pages}, nil
		})
	api.Register(a, api.Operation{Method: "GET", Path: "/books/{id}", Errors: []int{404}},
		func(ctx context.Context, in *GetBook) (*Book, error) {
			if in.ID != "b1" {
				return nil, plinth.NotFound("no book " + in.ID)
			}
			return &Book{ID: "b1", Title: "Dune", Pages: 412}, nil
		})
	if broken {
		// middleware that answers in place of the operation, otherwise
		// than the document says
		app.Use(func(next plinth.HandlerFunc) plinth.HandlerFunc {
			return func(c *plinth.Ctx) error {
				switch c.Request().URL.Path {
				case "/books/b2":
					return c.JSON(200, map[string]any{"id": 2, "title": "x", "pages": 1})
				case "/books/b3":
					return c.JSON(200, map[string]any{"id": "b3", "title": "x", "pages": 1, "isbn": "1"})
				case "/books/b4":
					return plinth.Forbidden("no")
				case "/books/b5":
					return c.Text(200, "b5")
				}
				return next(c)
			}
		})
	}
	app.Get("/page", func(c *plinth.Ctx) error {
		return c.HTML(200, `<!doctype html><title>t</title><main><h1 id="top" class="big title">Hello <b>you</b></h1>
<form id="login" method="post" action="/login"><input type="hidden" name="csrf_token" value="tok">
<input name="email" value=""><input type="password" name="password"><input type="checkbox" name="remember" checked>
<select name="lang"><option value="en">English</option><option value="fr" selected>Français</option></select>
<textarea name="note">hi</textarea><button type="submit" name="go" value="1">Go</button></form>
<form class="search" action="/search"><input name="q"></form></main>`)
	})
	app.Post("/login", func(c *plinth.Ctx) error {
		r := c.Request()
		if err := r.ParseForm(); err != nil {
			return err
		}
		if r.Header.Get("Origin") != "http://example.com" || r.Header.Get("Sec-Fetch-Site") != "same-origin" {
			return plinth.Forbidden("cross-site")
		}
		c.SetCookie(&http.Cookie{Name: "sid", Value: r.PostForm.Get("email"), Path: "/"})
		return c.JSON(200, r.PostForm)
	})
	app.Get("/search", func(c *plinth.Ctx) error { return c.Text(200, "q="+c.Query("q")) })
	app.Get("/me", func(c *plinth.Ctx) error {
		ck, err := c.Request().Cookie("sid")
		if err != nil {
			return plinth.Unauthorized("sign in")
		}
		return c.Text(200, ck.Value)
	})
	app.Get("/go", func(c *plinth.Ctx) error { return c.Redirect(http.StatusSeeOther, "/me") })
	return app
}

func TestJSONAPI(t *testing.T) {
	c := plinthtest.New(t, newApp(false), plinthtest.Config{})
	var b Book
	c.PostJSON("/books", map[string]any{"title": "Dune", "pages": 412}).
		Status(201).Header("Content-Type", "application/json").JSON(&b)
	if b != (Book{ID: "b1", Title: "Dune", Pages: 412}) {
		t.Errorf("got %+v", b)
	}
	c.Get("/books/b1").Status(200).JSONEq(`{"id":"b1","title":"Dune","pages":412}`)
	c.PostJSON("/books", `{"pages":0}`).
		Problem(422, "").HasField("title", "required").HasField("body.pages", "")
	c.PostJSON("/books", `{"title":"taken","pages":1}`).Problem(409, "about:blank").HasDetail("exists")
	c.Get("/books/b9").Problem(404, "").HasDetail("no book b9")
	c.PostJSON("/books", `{"title":`).Problem(400, "")
}

func TestHTMLAndForms(t *testing.T) {
	for _, server := range []bool{false, true} {
		t.Run(fmt.Sprint("server=", server), func(t *testing.T) {
			c := plinthtest.New(t, newApp(false), plinthtest.Config{Server: server})
			page := c.Get("/page").Status(200).Contains("Hello").HTML()
			page.Find("h1#top.big").HasText("Hello you").HasAttr("class", "big title")
			page.Find("main form.search input[name=q]")
			page.Count("form input", 5)
			f := c.Form("/page", "form#login")
			if f.Value("csrf_token") != "tok" || f.Value("lang") != "fr" || f.Value("remember") != "on" || f.Value("note") != "hi" {
				t.Errorf("initial values %v", f.Values())
			}
			var sent map[string][]string
			if server {
				// the handler checks the in-process origin; over a
				// server the origin is the server's
				f.Set("email", "ada@example.com").Submit().Status(403)
				return
			}
			f.Set("email", "ada@example.com").Set("password", "pw").Submit().Status(200).JSON(&sent)
			if sent["csrf_token"][0] != "tok" || sent["go"][0] != "1" || sent["email"][0] != "ada@example.com" {
				t.Errorf("sent %v", sent)
			}
			c.Get("/me").Status(200).Contains("ada@example.com")
			c.Get("/go").Redirect("/me").Follow().Status(200).Contains("ada")
			c.Form("/page", "form.search").Set("q", "dune").Submit().Status(200).Contains("q=dune")
			c.ClearCookies()
			c.Get("/me").Problem(401, "")
		})
	}
}

func TestFailureMessages(t *testing.T) {
	app := newApp(false)
	cases := []struct {
		name  string
		fn    func(c *plinthtest.Client)
		parts []string
	}{
		{"status", func(c *plinthtest.Client) { c.PostJSON("/books", `{"pages":0}`).Status(201) },
			[]string{"status 422, want 201", "request: POST /books", "detail:  validation failed", "body.title: is required", `body:    {`}},
		{"header", func(c *plinthtest.Client) { c.Get("/books/b1").Header("Cache-Control", "no-store") },
			[]string{"no header Cache-Control", "GET /books/b1"}},
		{"JSON on HTML", func(c *plinthtest.Client) { var v Book; c.Get("/page").JSON(&v) },
			[]string{"not JSON", "text/html; charset=utf-8", `first bytes "<!doctype html>`}},
		{"JSON into a non-pointer", func(c *plinthtest.Client) { c.Get("/books/b1").JSON(Book{}) },
			[]string{"want a non-nil pointer"}},
		{"JSON wrong type", func(c *plinthtest.Client) {
			var v struct{ Pages string }
			c.Get("/books/b1").JSON(&v)
		}, []string{"cannot decode the body into *struct { Pages string }", "cannot unmarshal number"}},
		{"JSONEq", func(c *plinthtest.Client) { c.Get("/books/b1").JSONEq(`{"id":"b1","title":"Dune","pages":413}`) },
			[]string{"at $.pages: got 412, want 413"}},
		{"Problem on success", func(c *plinthtest.Client) { c.Get("/books/b1").Problem(404, "") },
			[]string{"a success, not a problem", "status:  200", `"title":"Dune"`}},
		{"Problem status", func(c *plinthtest.Client) { c.Get("/books/b9").Problem(410, "") },
			[]string{"status 404 (body's 404), want 410", "detail:  no book b9"}},
		{"Field missing", func(c *plinthtest.Client) {
			c.PostJSON("/books", `{"pages":0}`).Problem(422, "").HasField("author", "required")
		}, []string{"no error for author"}},
		{"Field message", func(c *plinthtest.Client) {
			c.PostJSON("/books", `{"pages":0}`).Problem(422, "").HasField("title", "too long")
		}, []string{`the error for title is ["body.title: is required"]`}},
		{"Redirect on a 200", func(c *plinthtest.Client) { c.Get("/me", "Cookie", "sid=x").Redirect("/account") },
			[]string{`Redirect("/account"): not a redirect`}},
		{"Redirect elsewhere", func(c *plinthtest.Client) { c.Get("/go").Redirect("/account") },
			[]string{`redirect to "/me", want "/account"`, "status:  303"}},
		{"Find", func(c *plinthtest.Client) { c.Get("/page").HTML().Find("#nope") },
			[]string{`nothing matches "#nope"`}},
		{"bad selector", func(c *plinthtest.Client) { c.Get("/page").HTML().Find("a > b") },
			[]string{`selector "a > b"`, "unexpected '>'"}},
		{"HTML on JSON", func(c *plinthtest.Client) { c.Get("/books/b1").HTML() },
			[]string{"not HTML", "application/json"}},
		{"Form matches nothing", func(c *plinthtest.Client) { c.Form("/page", "form#signup") },
			[]string{`Form("form#signup"): no form matches; the page's forms:`, `<form id="login" method="post" action="/login">`, `<form class="search" action="/search">`}},
		{"Form on a 404", func(c *plinthtest.Client) { c.Form("/nope", "form") },
			[]string{`the page answers 404`}},
		{"Form field", func(c *plinthtest.Client) { c.Form("/page", "#login").Set("mail", "x") },
			[]string{`Set("mail")`, "no such field; its fields: csrf_token, email, go, lang, note, password, remember"}},
		{"odd headers", func(c *plinthtest.Client) { c.Get("/page", "Accept") },
			[]string{`"Accept" has no value`}},
		{"relative path", func(c *plinthtest.Client) { c.Get("page") },
			[]string{"must start with /"}},
		{"Contains", func(c *plinthtest.Client) { c.Get("/me", "Cookie", "sid=ada").Contains("bob") },
			[]string{`does not contain "bob"`, "body:    ada"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantFailure(t, func(tb testing.TB) { tc.fn(plinthtest.New(tb, app, plinthtest.Config{})) }, tc.parts...)
		})
	}
	wantFailure(t, func(tb testing.TB) { plinthtest.New(tb, nil, plinthtest.Config{}) }, "the App is nil")
}

// TestOpenAPIConformance breaks an App's responses against its own
// document and expects a failing test naming the JSON path.
func TestOpenAPIConformance(t *testing.T) {
	app := newApp(true)
	for path, parts := range map[string][]string{
		"/books/b2": {"does not match GET /books/{id}", "at $.id: integer 2, want string"},
		"/books/b3": {"at $.isbn: member not in the schema"},
		"/books/b4": {"status 403 is not declared (declared: 200, 400, 404, 422, 500)"},
		"/books/b5": {"content type text/plain is not listed for status 200 (listed: application/json)"},
	} {
		wantFailure(t, func(tb testing.TB) { plinthtest.New(tb, app, plinthtest.Config{}).Get(path) }, parts...)
		// switched off, the same request passes
		if msg := failure(t, func(tb testing.TB) {
			plinthtest.New(tb, app, plinthtest.Config{SkipOpenAPI: true}).Get(path)
		}); msg != "" {
			t.Errorf("SkipOpenAPI: %s", msg)
		}
	}
	// conforming responses pass, errors included
	c := plinthtest.New(t, app, plinthtest.Config{})
	c.Get("/books/b1").Status(200)
	c.Get("/books/zz").Status(404)
	c.PostJSON("/books", `{}`).Status(422)
}

// headerApp serves /form, a form with a CSRF field and another hidden
// field, and /echo, which answers the request's origin headers; /set sets
// a cookie and /cookie shows it.
func headerApp() *plinth.App {
	app := plinth.New()
	app.Get("/form", func(c *plinth.Ctx) error {
		return c.HTML(200, `<form method="post" action="/echo"><input type="hidden" name="csrf_token" value="tok">`+
			`<input type="hidden" name="id" value="7"><input name="q"></form>`)
	})
	app.Post("/echo", func(c *plinth.Ctx) error {
		h := c.Request().Header
		return c.Text(200, fmt.Sprintf("origin=%q site=%q mode=%q", h.Get("Origin"), h.Get("Sec-Fetch-Site"), h.Get("Sec-Fetch-Mode")))
	})
	app.Get("/set", func(c *plinth.Ctx) error {
		c.SetCookie(&http.Cookie{Name: "k", Value: "v", Path: "/"})
		return c.Text(200, "set")
	})
	app.Get("/cookie", func(c *plinth.Ctx) error {
		ck, err := c.Request().Cookie("k")
		if err != nil {
			return c.Text(200, "none")
		}
		return c.Text(200, ck.Value)
	})
	return app
}

// Removing the form's CSRF field also leaves out the browser's proof of
// origin, so that a CSRF check takes its token step (web.CSRF's test is in
// web/webtest); removing another hidden field does not.
func TestFormRemoveCSRFField(t *testing.T) {
	c := plinthtest.New(t, headerApp(), plinthtest.Config{})
	browser := `origin="http://example.com" site="same-origin" mode="navigate"`
	c.Form("/form", "form").Submit().Status(200).Contains(browser)
	c.Form("/form", "form").Remove("id").Submit().Status(200).Contains(browser)
	c.Form("/form", "form").Remove("csrf_token").Submit().Status(200).Contains(`origin="" site="" mode=""`)
	c.Form("/form", "form").Remove("csrf_token").Submit("Sec-Fetch-Site", "same-origin").Status(200).
		Contains(`origin="" site="same-origin" mode=""`)
}

// In binds the Client to a subtest: its failures are the subtest's, not
// the parent's, and the cookie jar is the parent Client's.
func TestIn(t *testing.T) {
	parent, sub := &fakeTB{}, &fakeTB{}
	c := plinthtest.New(parent, headerApp(), plinthtest.Config{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		in := c.In(sub)
		in.Get("/set").Status(200)
		in.Get("/cookie").Status(200).Contains("v")
		in.Get("/cookie").Status(404) // fails the subtest only
		t.Error("the failed assertion did not stop the subtest's goroutine")
	}()
	<-done
	if len(sub.msgs) != 1 || !strings.Contains(sub.msgs[0], "GET /cookie") {
		t.Errorf("the subtest's failures: %q", sub.msgs)
	}
	if len(parent.msgs) != 0 {
		t.Errorf("the parent failed: %q", parent.msgs)
	}
	c.Get("/cookie").Contains("v") // the cookie the subtest's Client got
	if len(parent.msgs) != 0 {
		t.Errorf("the parent's Client does not share the jar: %q", parent.msgs)
	}

	real := plinthtest.New(t, headerApp(), plinthtest.Config{})
	real.Get("/set").Status(200)
	t.Run("subtest", func(t *testing.T) {
		real.In(t).Get("/cookie").Status(200).Contains("v")
	})
}

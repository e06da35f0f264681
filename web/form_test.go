package web_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
	"github.com/plinth-go/plinth/plinthtest"
	"github.com/plinth-go/plinth/web"
)

// signupForm is a form with the api package's tags and a Validate method.
type signupForm struct {
	Email    string   `form:"email" validate:"required,format=email"`
	Age      int      `form:"age" validate:"min=18"`
	Password string   `form:"password" validate:"minLength=8"`
	Topics   []string `form:"topics" validate:"maxItems=2"`
}

func (f *signupForm) Validate(context.Context) error {
	switch f.Email {
	case "taken@example.com":
		return &api.FieldError{Location: "body.email", Message: "is taken"}
	case "closed@example.com":
		return errors.New("sign-ups are closed")
	case "teapot@example.com":
		return plinth.Error(http.StatusTeapot, "no")
	}
	return nil
}

// signupPage shows the form with its errors and old values; the password is
// never written back.
const signupPage = `<form id="signup" method="post" action="/signup">
{{with .Form.Error ""}}<p id="form-error">{{.}}</p>{{end}}
<input name="email" value="{{.Form.Old "email"}}"{{if .Form.HasError "email"}} aria-invalid="true"{{end}}>
{{with .Form.Error "email"}}<p id="email-error">{{.}}</p>{{end}}
<input name="age" value="{{.Form.Old "age"}}">
{{with .Form.Error "age"}}<p id="age-error">{{.}}</p>{{end}}
<input type="password" name="password">
{{with .Form.Error "password"}}<p id="password-error">{{.}}</p>{{end}}
{{range $t := .Topics}}<input type="checkbox" name="topics" value="{{$t}}"{{range $.Form.OldValues "topics"}}{{if eq . $t}} checked{{end}}{{end}}>{{end}}
{{with .Form.Error "topics"}}<p id="topics-error">{{.}}</p>{{end}}
<p id="error-count">{{len .Form.Errors}}</p>
</form>`

type signupData struct {
	Form   *web.Form
	Topics []string
}

func signupApp(t *testing.T) *plinth.App {
	t.Helper()
	views := newViews(t, map[string]string{"signup.html": signupPage}, web.ViewsConfig{})
	topics := []string{"go", "web", "sql"}
	app := plinth.New()
	app.Get("/signup", func(c *plinth.Ctx) error {
		return views.Render(c, http.StatusOK, "signup", signupData{Topics: topics}) // a nil Form: empty, no errors
	})
	app.Post("/signup", func(c *plinth.Ctx) error {
		var in signupForm
		form, err := web.BindForm(c, &in)
		if err != nil {
			return err
		}
		if !form.Valid() {
			if in.Email != "" {
				t.Errorf("an invalid form set the destination: %+v", in)
			}
			return views.Render(c, http.StatusUnprocessableEntity, "signup", signupData{Form: form, Topics: topics})
		}
		return c.Text(http.StatusOK, "welcome "+in.Email+" "+strings.Join(in.Topics, ","))
	})
	return app
}

// TestBindForm posts bad forms and reads the page rendered again: each
// field's error next to it, the values typed back in (a number that does
// not parse included, the password not), and a valid form bound.
func TestBindForm(t *testing.T) {
	c := plinthtest.New(t, signupApp(t), plinthtest.Config{})
	blank := c.Get("/signup").Status(http.StatusOK).HTML()
	blank.Count("#email-error", 0).Count("#form-error", 0)
	if got := blank.Find("#error-count").Text(); got != "0" {
		t.Errorf("a blank form lists %s errors", got)
	}

	page := blank.Form("#signup").Set("email", "ada@").Set("age", "12").Set("password", "short").Submit().
		Status(http.StatusUnprocessableEntity).HTML()
	page.Find("#email-error").HasText("must be a valid email")
	page.Find("#age-error").HasText("must be at least 18")
	page.Find("#password-error").HasText("must be at least 8 characters long")
	page.Find("input[name=email]").HasAttr("aria-invalid", "true")
	page.Find("#error-count").HasText("3")
	again := page.Form("#signup")
	if again.Value("email") != "ada@" || again.Value("age") != "12" || again.Value("password") != "" {
		t.Errorf("old values: email %q, age %q, password %q; want ada@, 12 and none", again.Value("email"), again.Value("age"), again.Value("password"))
	}

	// A value that does not parse is an error, and typed back as it was;
	// a list keeps every value sent, and its error is found by its name.
	page = again.Set("email", "ada@example.com").Set("age", "twelve").Set("password", "long enough").
		Set("topics", "go").Submit().Status(http.StatusUnprocessableEntity).HTML()
	page.Find("#age-error").HasText("must be")
	page.Count("#email-error", 0)
	if v := page.Form("#signup").Value("age"); v != "twelve" {
		t.Errorf("age typed back as %q, want twelve", v)
	}
	c.PostForm("/signup", map[string][]string{"email": {"ada@example.com"}, "age": {"36"}, "password": {"long enough"}, "topics": {"go", "web", "sql"}}).
		Status(http.StatusUnprocessableEntity).HTML().Find("#topics-error").HasText("at most 2")

	// The Validate method: a field's error, the form's own error.
	c.PostForm("/signup", map[string][]string{"email": {"taken@example.com"}, "age": {"36"}, "password": {"long enough"}}).
		Status(http.StatusUnprocessableEntity).HTML().Find("#email-error").HasText("is taken")
	c.PostForm("/signup", map[string][]string{"email": {"closed@example.com"}, "age": {"36"}, "password": {"long enough"}}).
		Status(http.StatusUnprocessableEntity).HTML().Find("#form-error").HasText("sign-ups are closed")

	// Valid: bound into the destination.
	page2 := c.PostForm("/signup", map[string][]string{"email": {"ada@example.com"}, "age": {"36"}, "password": {"long enough"}, "topics": {"go", "sql"}})
	page2.Status(http.StatusOK).Contains("welcome ada@example.com go,sql")

	// What no re-rendering answers is the handler's error: another media
	// type, a Validate method's problem.
	c.PostJSON("/signup", `{"email":"ada@example.com"}`).Problem(http.StatusUnsupportedMediaType, "")
	c.PostForm("/signup", map[string][]string{"email": {"teapot@example.com"}, "age": {"36"}, "password": {"long enough"}}).
		Problem(http.StatusTeapot, "")
}

// A nil Form is an empty, valid form.
func TestFormNil(t *testing.T) {
	var f *web.Form
	if !f.Valid() || f.Old("email") != "" || f.OldValues("topics") != nil || f.Error("email") != "" || f.HasError("email") || f.Errors() != nil {
		t.Error("a nil Form is not empty and valid")
	}
}

// Under Locales.Middleware, the form's messages are the request language's
// "validation.<rule>" messages where a catalogue has them, English
// otherwise.
func TestBindFormTranslated(t *testing.T) {
	l := newLocales(t, web.LocalesConfig{Files: mapFS(map[string]string{
		"en.json": `{"hello": "Hello"}`,
		"fr.json": `{"hello": "Bonjour", "validation.min": "doit valoir au moins %s"}`,
	})})
	app := plinth.Bare()
	app.Use(l.Middleware())
	app.Post("/signup", func(c *plinth.Ctx) error {
		var in signupForm
		form, err := web.BindForm(c, &in)
		if err != nil {
			return err
		}
		return c.Text(http.StatusOK, form.Error("age")+"|"+form.Error("email"))
	})
	c := plinthtest.New(t, app, plinthtest.Config{})
	bad := map[string][]string{"age": {"12"}, "password": {"long enough"}}
	c.PostForm("/signup", bad, "Accept-Language", "fr").Status(http.StatusOK).Contains("doit valoir au moins 18|is required")
	c.PostForm("/signup", bad, "Accept-Language", "en").Status(http.StatusOK).Contains("must be at least 18|is required")
}

// A type that is not a form is the program's mistake: a 500 problem at
// every call, naming the type.
func TestBindFormNotAForm(t *testing.T) {
	app := plinth.Bare()
	app.Post("/", func(c *plinth.Ctx) error {
		var in struct {
			Email string `json:"email"`
		}
		_, err := web.BindForm(c, &in)
		if err == nil || !strings.Contains(err.Error(), "not a struct with form tags") {
			t.Errorf("BindForm of a JSON struct: %v", err)
		}
		return err
	})
	c := plinthtest.New(t, app, plinthtest.Config{})
	for range 2 {
		c.PostForm("/", map[string][]string{"email": {"a@example.com"}}).Problem(http.StatusInternalServerError, "")
	}
}

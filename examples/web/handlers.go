package main

import (
	"context"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
	"github.com/plinth-go/plinth/web"
)

// hello answers in plain text, through every layer of the site (security
// headers, sessions, locales, CSRF) but with no view: the floor of a page,
// measured against the same route of other stacks by bench/laravel/run.sh.
func hello(c *plinth.Ctx) error {
	return c.Text(http.StatusOK, "Hello, World!")
}

func (s *site) home(c *plinth.Ctx) error {
	return s.views.Render(c, http.StatusOK, "home", nil)
}

// loginPage is the sign-in form's data.
type loginPage struct {
	Email string // kept after a failed attempt
	Error string
	Demo  bool // the demo account exists: its credentials are shown
}

func (s *site) loginForm(c *plinth.Ctx) error {
	if _, ok, err := s.auth.User(c); err != nil || ok {
		if err != nil {
			return err
		}
		return c.Redirect(http.StatusSeeOther, "/account")
	}
	return s.views.Render(c, http.StatusOK, "login", loginPage{Demo: s.users.HasDemo()})
}

// login checks the form: a match signs in (a new session ID) and goes to
// the account page; anything else shows the form again with an error and
// signs nobody in.
func (s *site) login(c *plinth.Ctx) error {
	r := c.Request()
	email := r.PostFormValue("email")
	user, err := s.users.Authenticate(c.Context(), email, r.PostFormValue("password"))
	if err != nil {
		return err
	}
	if user == nil {
		return s.views.Render(c, http.StatusOK, "login", loginPage{Email: email, Error: c.T("login.failed"), Demo: s.users.HasDemo()})
	}
	if err := s.auth.Login(c, user.ID); err != nil {
		return err
	}
	if err := web.AddFlash(c, "success", c.T("login.welcome", user.Name)); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/account")
}

// logout ends the session: its ID is deleted from the store and the cookie
// expired, so a copy of the old cookie signs nobody in.
func (s *site) logout(c *plinth.Ctx) error {
	if err := s.auth.Logout(c); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/")
}

// accountPage is the account page's data.
type accountPage struct{ User *User }

func (s *site) account(c *plinth.Ctx) error {
	user, _, err := s.auth.User(c) // RequireUser let only signed-in users here
	if err != nil {
		return err
	}
	return s.views.Render(c, http.StatusOK, "account", accountPage{User: user})
}

// contactForm is the contact form's fields, bound and validated by
// web.BindForm; the page words each field's error from its own catalogue
// (contact.err.*) rather than with the rule's generic message.
type contactForm struct {
	Name    string `form:"name" validate:"required"`
	Email   string `form:"email" validate:"required,format=email"`
	Message string `form:"message" validate:"required,minLength=10"`
}

// minMessage is the shortest message the contact form accepts, as its
// minLength rule says.
const minMessage = 10

// Validate refuses what the tags let through: a name or a message of
// spaces. It runs only when every tag rule passed.
func (f *contactForm) Validate(context.Context) error {
	var errs api.FieldErrors
	if strings.TrimSpace(f.Name) == "" {
		errs = append(errs, &api.FieldError{Location: "body.name", Message: "is required"})
	}
	if utf8.RuneCountInString(strings.TrimSpace(f.Message)) < minMessage {
		errs = append(errs, &api.FieldError{Location: "body.message", Message: "is too short"})
	}
	if errs != nil {
		return errs
	}
	return nil
}

// contactPage is the contact page's data: the form as sent, with its
// errors (nil the first time: an empty form).
type contactPage struct {
	Form       *web.Form
	MinMessage int
}

func (s *site) contactForm(c *plinth.Ctx) error {
	return s.views.Render(c, http.StatusOK, "contact", contactPage{MinMessage: minMessage})
}

// contact validates the form: errors show the form again with what the
// visitor typed, a message per field and a flash (422); a valid message
// redirects with a flash.
func (s *site) contact(c *plinth.Ctx) error {
	var msg contactForm
	form, err := web.BindForm(c, &msg)
	if err != nil {
		return err // not a form at all: 400, 413, 415
	}
	if !form.Valid() {
		if err := web.AddFlash(c, "error", c.T("contact.invalid")); err != nil {
			return err
		}
		return s.views.Render(c, http.StatusUnprocessableEntity, "contact", contactPage{Form: form, MinMessage: minMessage})
	}
	if err := web.AddFlash(c, "success", c.T("contact.sent", strings.TrimSpace(msg.Name))); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/contact")
}

func (s *site) csp(c *plinth.Ctx) error {
	return s.views.Render(c, http.StatusOK, "csp", nil)
}

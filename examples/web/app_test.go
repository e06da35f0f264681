package main

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/plinth-go/plinth/plinthtest"
	"github.com/plinth-go/plinth/web/webtest"
)

// client serves a fresh site to a test client that asks for pages as a
// browser does (cookies kept, redirects not followed); s gives the tests
// the site's sessions and auth.
func client(t *testing.T) (*plinthtest.Client, *site) {
	t.Helper()
	app, s, err := newSite(t.Context(), testDB(t))
	if err != nil {
		t.Fatal(err)
	}
	// pages are asked for as a browser does
	browser := http.Header{"Accept": {"text/html,application/xhtml+xml,*/*;q=0.8"}}
	return plinthtest.New(t, app, plinthtest.Config{Header: browser}), s
}

func TestLoginForm(t *testing.T) {
	c, _ := client(t)
	f := c.Form("/login", "form#login-form")
	if f.Value("csrf_token") == "" {
		t.Error("the login form has no CSRF token")
	}
	f.Set("email", DemoEmail).Set("password", DemoPassword)
}

func TestLoginAccountLogout(t *testing.T) {
	c, s := client(t)
	c.Get("/account").Redirect("/login")
	c.Form("/login", "#login-form").Set("email", DemoEmail).Set("password", "wrong").Submit().
		Status(200).HTML().Find("#login-error")
	c.Get("/account").Redirect("/login")

	c.Form("/login", "#login-form").Set("email", DemoEmail).Set("password", DemoPassword).Submit().
		Redirect("/account")
	webtest.HasFlash(t, c, s.sessions, "success", "Welcome back, Demo.")
	old, _ := c.Cookie("session")
	c.Get("/account").Status(200).Contains("Welcome back").HTML().Find("dd#email").HasText(DemoEmail)
	if strings.Contains(c.Get("/account").Body(), "Welcome back") {
		t.Error("the flash was shown twice")
	}
	c.Get("/account").HTML().Form("form[action=/logout]").Submit().Redirect("/")

	// The old cookie signs nobody in.
	replay, _ := client(t)
	replay.SetCookie(&http.Cookie{Name: "session", Value: old})
	replay.Get("/account").Redirect("/login")
}

func TestSignedIn(t *testing.T) {
	c, s := client(t)
	webtest.SignIn(t, c, s.sessions, s.auth, "1")
	c.Get("/account").Status(200).HTML().Find("#email").HasText(DemoEmail)
	webtest.SessionOf(t, c, s.sessions).HasKey("_uid")
	webtest.SignOut(t, c, s.sessions, s.auth)
	c.Get("/account").Redirect("/login")
}

// TestLoginWithToken: a client that sends neither Sec-Fetch-Site nor Origin
// signs in with the form's CSRF field, and is refused without it.
func TestLoginWithToken(t *testing.T) {
	c, _ := client(t)
	oldBrowser := []string{"Sec-Fetch-Site", "", "Origin", ""}
	login := c.Form("/login", "#login-form").Set("email", DemoEmail).Set("password", DemoPassword)
	token := login.Value("csrf_token")
	login.Remove("csrf_token").Submit(oldBrowser...).Status(403)
	login.Set("csrf_token", token).Submit(oldBrowser...).Redirect("/account")

	// Signing in replaced the CSRF secret: the token taken before is
	// refused, one from a page after it works.
	logout := c.Get("/account").HTML().Form("form[action=/logout]")
	logout.Set("csrf_token", token).Submit(oldBrowser...).Status(403)
	c.Get("/account").HTML().Form("form[action=/logout]").Submit(oldBrowser...).Redirect("/")
}

func TestCrossSiteRefused(t *testing.T) {
	c, s := client(t)
	webtest.SignIn(t, c, s.sessions, s.auth, "1")
	logout := c.Get("/account").HTML().Form("form[action=/logout]")
	for _, site := range []string{"cross-site", "same-site"} {
		logout.Submit("Sec-Fetch-Site", site, "Origin", "http://127.0.0.1:1").Status(403).Contains("<h1>403")
	}
	c.Get("/account").Status(200)
}

func TestLanguages(t *testing.T) {
	c, _ := client(t)
	for accept, want := range map[string][2]string{
		"":                       {"en", "Welcome"},
		"en-GB,en;q=0.9":         {"en", "Welcome"},
		"fr-CA,fr;q=0.9,en;q=.5": {"fr", "Bienvenue"},
		"de-DE,de;q=0.9":         {"de", "Willkommen"},
		"ja,es;q=0.8":            {"en", "Welcome"},
	} {
		c.Get("/", "Accept-Language", accept).Contains(want[1]).HTML().Find("html").HasAttr("lang", want[0])
	}
	href := c.Get("/contact?x=1").HTML().Find("a#lang-fr").Attr("href")
	c.Get(href).Redirect("/contact?x=1")
	c.Get("/", "Accept-Language", "de").HTML().Find("html").HasAttr("lang", "fr") // the choice sticks
}

func TestCSPNonce(t *testing.T) {
	c, _ := client(t)
	r := c.Get("/csp")
	m := regexp.MustCompile(`'nonce-([^']+)'`).FindStringSubmatch(r.Headers().Get("Content-Security-Policy"))
	if m == nil {
		t.Fatalf("CSP %q has no nonce", r.Headers().Get("Content-Security-Policy"))
	}
	page := r.HTML()
	page.Find("script[nonce]").HasAttr("nonce", m[1]) // the parser unescapes it as a browser does
	page.Count("script", 2)
	if strings.Contains(c.Get("/csp").Body(), m[1]) || strings.Contains(c.Get("/csp").Body(), html.EscapeString(m[1])) {
		t.Error("the nonce is reused across requests")
	}
}

func TestContactValidation(t *testing.T) {
	c, s := client(t)
	page := c.Form("/contact", "#contact-form").
		Set("name", "Ada").Set("email", "not-an-email").Set("message", "short").Submit().
		Status(422).Contains("at least 10 characters").HTML()
	page.Find("input[name=name]").HasAttr("value", "Ada")
	page.Find("input[name=email]").HasAttr("value", "not-an-email")
	page.Find("textarea[name=message]").HasText("short")
	page.Find("#error-email")
	page.Find("#error-message")
	page.Find(".flash-error")
	page.Count("#error-name", 0)
	c.Get("/contact").HTML().Count(".flash-error", 0)

	// Spaces pass the tags' required and minLength; the form's Validate
	// refuses them, field by field.
	page = c.Form("/contact", "#contact-form").
		Set("name", "   ").Set("email", "ada@example.com").Set("message", "          x").Submit().
		Status(422).HTML()
	page.Find("#error-name")
	page.Find("#error-message")
	page.Count("#error-email", 0)
	c.Get("/contact").HTML().Count(".flash-error", 0)

	c.Form("/contact", "#contact-form").
		Set("name", "Ada").Set("email", "ada@example.com").Set("message", "Hello there, Plinth.").Submit().
		Status(303)
	webtest.HasFlash(t, c, s.sessions, "success", "Thank you, Ada: your message was sent.")
	c.Get("/contact").Contains("Thank you, Ada")
}

func TestErrorPages(t *testing.T) {
	c, _ := client(t)
	r := c.Get("/no/such/page", "Accept-Language", "fr").Status(404).Contains("<h1>404")
	r.Contains(r.Headers().Get("X-Request-Id")).HTML().Find("html").HasAttr("lang", "fr")
	c.Get("/no/such/page", "Accept", "application/json").Problem(404, "")
}

// GET /hello answers plain text with the short set of security headers:
// the route bench/laravel/run.sh measures against gin and Laravel.
func TestHello(t *testing.T) {
	c, _ := client(t)
	r := c.Get("/hello").Status(200).Header("Content-Type", "text/plain; charset=utf-8").
		Header("X-Content-Type-Options", "nosniff")
	if r.Body() != "Hello, World!" || r.Headers().Get("X-Request-Id") == "" {
		t.Errorf("GET /hello: body %q, request ID %q", r.Body(), r.Headers().Get("X-Request-Id"))
	}
}

// Every page carries a CSRF token in <meta name="csrf-token"> (as
// Laravel's layouts do, for scripts), and a signed-out visitor's token is
// good for a form post without a browser's Sec-Fetch-Site: the anonymous
// token of the benchmark's sign-in scenario.
func TestMetaCSRFToken(t *testing.T) {
	c, _ := client(t)
	body := c.Get("/").Status(200).Body()
	m := regexp.MustCompile(`<meta name="csrf-token" content="([^"]+)">`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("GET /: no csrf-token meta in %q", body)
	}
	form := url.Values{"csrf_token": {html.UnescapeString(m[1])}, "email": {DemoEmail}, "password": {DemoPassword}}
	c.PostForm("/login", form, "Sec-Fetch-Site", "", "Origin", "").Redirect("/account")
	form.Set("csrf_token", "x"+form.Get("csrf_token")[1:])
	other, _ := client(t)
	other.PostForm("/login", form, "Sec-Fetch-Site", "", "Origin", "", "Cookie", "csrf=forged").Status(http.StatusForbidden)
}

package web

import (
	"net/http"
	"net/url"
	"time"

	"github.com/plinth-go/plinth"
)

// languageCookieAge is how long the language cookie lasts: a year, the
// usual lifetime of a preference that costs nothing to keep.
const languageCookieAge = 365 * 24 * time.Hour

// SwitchHandler returns a handler that switches the visitor's language:
// it reads "lang" (the configured Param) from the form of a POST or the
// query of a GET, sets the language cookie (a year, Path=/, HttpOnly,
// SameSite=Lax, Secure on HTTPS) and redirects with 303 to the "next"
// parameter when it is a path on this site, else to the page the visitor
// came from (its Referer, when on this host), else to "/". A language that
// is not supported (nor brought to one by the matcher: fr-CA gives fr) is a
// 400 problem.
//
//	app.Post("/lang", locales.SwitchHandler()) // <form method="post" action="/lang">
//	app.Get("/lang", locales.SwitchHandler())  // <a href="/lang?lang=fr">
//
// A POST needs the CSRF token or the origin checks like any other form,
// when CSRF protection is installed. It panics if the cookie is switched
// off (LocalesConfig.Cookie "-"), since the choice could not be kept.
func (l *Locales) SwitchHandler() plinth.HandlerFunc {
	if l.cookie == "" {
		panic("web: Locales.SwitchHandler needs the language cookie; LocalesConfig.Cookie is \"-\"")
	}
	param := l.param
	if param == "" {
		param = DefaultLanguageParam
	}
	return func(c *plinth.Ctx) error {
		r := c.Request()
		lang := r.FormValue(param)
		cat := l.find(lang)
		if cat == nil {
			return plinth.Errorf(http.StatusBadRequest, "language %q is not supported; use one of %v", lang, l.Languages())
		}
		languageKey.Set(c, cat)
		c.SetCookie(&http.Cookie{
			Name:     l.cookie,
			Value:    cat.name,
			Path:     "/",
			MaxAge:   int(languageCookieAge / time.Second),
			HttpOnly: true,
			Secure:   c.Secure(),
			SameSite: http.SameSiteLaxMode,
		})
		return c.Redirect(http.StatusSeeOther, languageSwitchTarget(r))
	}
}

// languageSwitchTarget returns where a form handler sends the visitor back: the "next"
// parameter when it is a local path, else the Referer's path when it is
// on this host, else "/".
func languageSwitchTarget(r *http.Request) string {
	if next := r.FormValue("next"); isSitePath(next) {
		return next
	}
	if ref := r.Referer(); ref != "" {
		if u, err := url.Parse(ref); err == nil && u.Host == r.Host && isSitePath(u.EscapedPath()) {
			if u.RawQuery != "" {
				return u.EscapedPath() + "?" + u.RawQuery
			}
			return u.EscapedPath()
		}
	}
	return "/"
}

// isSitePath reports whether s is a path on this site that a browser cannot
// read as another origin: "/account", not "//evil.example" or "/\evil".
func isSitePath(s string) bool {
	if len(s) == 0 || s[0] != '/' {
		return false
	}
	if len(s) > 1 && (s[1] == '/' || s[1] == '\\') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if b := s[i]; b < 0x20 || b == 0x7f {
			return false
		}
	}
	return true
}

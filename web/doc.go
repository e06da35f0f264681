// Package web is Plinth's layer for applications that render HTML: sessions
// (lazy, typed, with memory, cookie, Redis and PostgreSQL stores), CSRF
// protection (origin checks and masked form tokens), argon2id passwords and
// sign-in helpers, flash messages, locale negotiation with message
// catalogues, html/template views with layouts and partials, and HTML error
// pages.
//
// An application makes each piece at startup and installs it on its App:
//
//	sessions, err := web.NewSessions(web.SessionsConfig{}) // memory, or PLINTH_SESSION_STORE
//	sessions.Attach(app)                                    // middleware, readiness, shutdown
//	auth := web.NewAuth(web.AuthConfig[*User]{LoadUser: users.ByID})
//	auth.Attach(app)
//	app.Use(locales.Middleware(), web.CSRF(web.CSRFConfig{}))
//	web.NewErrorPages(web.ErrorPagesConfig{Views: views}).Attach(app)
//
// Every piece costs nothing on requests that do not use it: a request that
// never touches its session reads no cookie, calls no store, sets no cookie
// and allocates nothing. docs/web.md is the guide, with the measured costs;
// examples/web uses every piece, and its browser tests drive it in Chromium.
package web

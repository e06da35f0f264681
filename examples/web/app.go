package main

import (
	"embed"
	"io/fs"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/data/pgstore"
	"github.com/plinth-go/plinth/middleware"
	"github.com/plinth-go/plinth/redisstore"
	"github.com/plinth-go/plinth/web"
)

var (
	//go:embed templates
	templateFiles embed.FS
	//go:embed locales/*.json
	localeFiles embed.FS
	//go:embed static
	staticFiles embed.FS
)

// site holds what the handlers use.
type site struct {
	users    *Users
	sessions *web.Sessions
	auth     *web.Auth[*User]
	views    *web.Views
	locales  *web.Locales
}

// NewApp builds the site: the web layer's pieces, installed on a plinth.New
// App, and the routes.
func NewApp() (*plinth.App, error) {
	app, _, err := newSite()
	return app, err
}

// newSite builds the App and returns, for the tests, the pieces they act
// on (the sessions and the auth: webtest.SignIn).
func newSite() (*plinth.App, *site, error) {
	users := NewUsers()
	if err := users.SeedDemo(); err != nil { // a demo: it runs with no setup
		return nil, nil, err
	}
	sessions, err := web.NewSessions(web.SessionsConfig{
		Openers: map[string]web.OpenStore{
			"redis": redisstore.OpenSessionStore, "rediss": redisstore.OpenSessionStore,
			"postgres": pgstore.Open, "postgresql": pgstore.Open,
		},
	})
	if err != nil {
		return nil, nil, err
	}
	locales, err := web.NewLocales(web.LocalesConfig{Files: localeFiles, Dir: "locales", StrictKeys: true})
	if err != nil {
		return nil, nil, err
	}
	templates, err := fs.Sub(templateFiles, "templates")
	if err != nil {
		return nil, nil, err
	}
	views, err := web.NewViews(web.ViewsConfig{Files: templates})
	if err != nil {
		return nil, nil, err
	}
	static, err := fs.Sub(staticFiles, "static")
	if err != nil {
		return nil, nil, err
	}
	s := &site{
		users:    users,
		sessions: sessions,
		auth:     web.NewAuth(web.AuthConfig[*User]{LoadUser: users.ByID}),
		views:    views,
		locales:  locales,
	}

	app := plinth.New()
	sessions.Attach(app)
	s.auth.Attach(app)
	app.Use(locales.Middleware(), web.CSRF(web.CSRFConfig{}))
	web.NewErrorPages(web.ErrorPagesConfig{Views: views}).Attach(app)

	app.Get("/hello", hello)
	app.Get("/{$}", s.home)
	app.Get("/login", s.loginForm)
	app.With(s.auth.Throttle()).Post("/login", s.login)
	app.Post("/logout", s.logout)
	app.With(s.auth.RequireUser()).Get("/account", s.account)
	app.Get("/contact", s.contactForm)
	app.Post("/contact", s.contact)
	app.Get("/csp", s.csp)
	app.Get("/lang", locales.SwitchHandler())
	app.Post("/lang", locales.SwitchHandler())
	app.Mount("/static", middleware.NewStatic(static, middleware.StaticConfig{}))
	return app, s, nil
}

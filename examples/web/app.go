package main

import (
	"context"
	"embed"
	"io/fs"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/data"
	"github.com/plinth-go/plinth/data/pgstore"
	"github.com/plinth-go/plinth/jobs"
	"github.com/plinth-go/plinth/middleware"
	"github.com/plinth-go/plinth/redisstore"
	"github.com/plinth-go/plinth/web"
	"github.com/plinth-go/plinth/ws"
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
	db       *data.DB
	users    *Users
	sessions *web.Sessions
	auth     *web.Auth[*User]
	views    *web.Views
	locales  *web.Locales
	jobs     *jobs.Client
	quotes   *quotes
}

// NewApp builds the site on db (openDB): the web layer's pieces, the job
// queue, the cache and the rate limiter, installed on a plinth.New App,
// and the routes.
func NewApp(ctx context.Context, db *data.DB) (*plinth.App, error) {
	app, _, err := newSite(ctx, db)
	return app, err
}

// newSite builds the App and returns, for the tests, the pieces they act
// on (the sessions and the auth: webtest.SignIn).
func newSite(ctx context.Context, db *data.DB) (*plinth.App, *site, error) {
	users := NewUsers(db)
	if err := users.SeedDemo(ctx); err != nil { // a demo: it runs with no setup
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
	limiter, closeLimiter, err := newLimiter()
	if err != nil {
		return nil, nil, err
	}
	queue, err := openQueue(db)
	if err != nil {
		return nil, nil, err
	}
	quotes, err := openQuotes()
	if err != nil {
		return nil, nil, err
	}
	s := &site{
		db:       db,
		users:    users,
		sessions: sessions,
		auth:     web.NewAuth(web.AuthConfig[*User]{LoadUser: users.ByID}),
		views:    views,
		locales:  locales,
		jobs:     queue,
		quotes:   quotes,
	}

	app := plinth.New()
	app.DeclareEnv(envRateLimitStore)
	app.Use(limiter.Middleware()) // first: a refused request costs no session load
	if closeLimiter != nil {
		app.OnStop(func(context.Context) error { return closeLimiter() })
	}
	sessions.Attach(app)
	s.auth.Attach(app)
	app.Use(locales.Middleware(), web.CSRF(web.CSRFConfig{}))
	web.NewErrorPages(web.ErrorPagesConfig{Views: views}).Attach(app)
	db.Attach(app) // after the error pages: a database that is down is a 503 page with Retry-After
	queue.Attach(app)
	quotes.attach(app)
	ws.Attach(app) // the drain says goodbye (1001) to the WebSockets, and waits for them

	app.Get("/hello", hello)
	app.Get("/{$}", s.home)
	app.Get("/login", s.loginForm)
	app.With(s.auth.Throttle()).Post("/login", s.login)
	app.Post("/logout", s.logout)
	signedIn := app.With(s.auth.RequireUser())
	signedIn.Get("/account", s.account)
	app.Get("/contact", s.contactForm)
	app.Post("/contact", s.contact)
	app.Get("/csp", s.csp)
	app.Get("/lang", locales.SwitchHandler())
	app.Post("/lang", locales.SwitchHandler())
	app.Mount("/static", middleware.NewStatic(static, middleware.StaticConfig{}))

	app.Get("/api/version", apiVersion)
	signedIn.Get("/api/me", s.apiMe)
	app.Get("/api/quotes/{n}", s.quote)
	signedIn.Post("/jobs", s.enqueue)
	signedIn.Get("/jobs/{token}", s.jobRuns)
	app.Get("/events", events)
	app.Get("/ws", echo)
	return app, s, nil
}

package web

import (
	"embed"
	"io/fs"
	"log/slog"
	"strconv"
	"strings"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/internal/httpsyntax"
)

// DefaultErrorsDir is the directory of an application's error templates in
// its Views.
const DefaultErrorsDir = "errors"

// ErrorPagesConfig configures NewErrorPages. Its zero value is valid: the
// built-in page for every status.
type ErrorPagesConfig struct {
	// Views holds the application's own error templates, which replace the
	// built-in page: Dir/<status> ("errors/404.html") for one status, else
	// Dir/error ("errors/error.html") for every status. They are pages like
	// any other (a layout, t, lang, nonce, user), executed with an
	// *ErrorPage. Default nil: the built-in page only.
	Views *Views

	// Dir is the directory of the error templates in Views. Default
	// DefaultErrorsDir ("errors").
	Dir string
}

// ErrorPage is the data of an error template.
type ErrorPage struct {
	Status    int    // the HTTP status: 404
	Title     string // the problem's title: "Not Found" (Problem.TitleText)
	Detail    string // the problem's detail, "" for none (a 500's cause is never shown)
	RequestID string // the request ID, to quote to support; "" without the request ID layer
	// Problem is the problem itself, for its Type, Instance and
	// Extensions (the "errors" list of a validation problem). Read it, do
	// not modify it.
	Problem *plinth.Problem
}

// ErrorPages answers errors with an HTML page when the request prefers
// text/html (PrefersHTML: a browser's navigation), and with the core's
// problem JSON otherwise (no Accept, curl's */*, an API client asking for
// JSON). It covers every answer the core renders as a problem: errors
// handlers and middleware return (a maintenance 503 keeps its Retry-After,
// a 405 its Allow), the 404 and 405 fallbacks, 413 and 408 request bodies,
// the recovery layer's 500 and the handler timeout's 503. Install it with
// Attach.
//
// The built-in page is small, self-contained HTML (an inline style, no
// script, no external asset) showing the status, the title, the detail and
// the request ID; an application replaces it with its own templates (see
// ErrorPagesConfig.Views). When the application's template fails, the
// built-in page is sent, and the JSON if that fails too: an error page
// never ends in no answer.
//
// Cost: every problem answer gets Vary: Accept (a cache must not give a
// browser's HTML page to an API client), at no allocation; a JSON answer
// costs nothing more (TestErrorPagesJSONAllocations); an HTML page costs a
// template execution.
type ErrorPages struct {
	views   *Views
	dir     string
	builtin *Views
	vary    *httpsyntax.VaryNames
}

//go:embed errorpages/error.html
var builtinErrorPages embed.FS

// NewErrorPages returns the error pages of cfg.
func NewErrorPages(cfg ErrorPagesConfig) *ErrorPages {
	sub, err := fs.Sub(builtinErrorPages, "errorpages")
	if err != nil {
		panic("web: built-in error pages: " + err.Error())
	}
	builtin, err := NewViews(ViewsConfig{Files: sub})
	if err != nil {
		panic("web: built-in error pages: " + err.Error())
	}
	builtin.reload = false // embedded: nothing to watch, whatever PLINTH_ENV says
	dir := strings.Trim(cfg.Dir, "/")
	if dir == "" {
		dir = DefaultErrorsDir
	}
	return &ErrorPages{views: cfg.Views, dir: dir + "/", builtin: builtin, vary: httpsyntax.NewVaryNames("Accept")}
}

// Attach makes e the App's ProblemWriter (replacing any other), so that
// every problem the App answers goes through it. Call it before the App
// serves.
func (e *ErrorPages) Attach(app *plinth.App) { app.ProblemWriter = e.WriteProblem }

// WriteProblem writes p as an HTML page when the request prefers
// text/html, else as problem JSON (Ctx.WriteProblemJSON). It is an
// App.ProblemWriter; a custom ProblemWriter may call it.
func (e *ErrorPages) WriteProblem(c *plinth.Ctx, p *plinth.Problem) {
	h := c.Header()
	e.vary.Add(h)
	if !PrefersHTML(c.RawRequest()) {
		c.WriteProblemJSON(p)
		return
	}
	status := p.StatusCode()
	data := &ErrorPage{Status: status, Title: p.TitleText(), Detail: p.Detail, RequestID: c.RequestID(), Problem: p}
	if e.views != nil {
		for _, name := range [...]string{e.dir + strconv.Itoa(status), e.dir + "error"} {
			if !e.views.Has(name) {
				continue
			}
			if e.send(c, e.views, name, status, data) {
				return
			}
			break
		}
	}
	if !e.send(c, e.builtin, "error", status, data) {
		c.WriteProblemJSON(p)
	}
}

// send renders one error template and writes it, or logs why it could not.
func (e *ErrorPages) send(c *plinth.Ctx, v *Views, name string, status int, data *ErrorPage) bool {
	buf, err := v.execute(c, name, data)
	if err != nil {
		c.Logger().LogAttrs(c.Context(), slog.LevelError, "web: error page failed",
			slog.String("template", name), slog.Int("status", status), slog.Any("error", err))
		return false
	}
	h := c.Header()
	for _, k := range [...]string{"Content-Encoding", "Content-Length", "Etag", "Last-Modified"} {
		delete(h, k) // they described the response the handler meant to send
	}
	_ = c.Bytes(status, "text/html; charset=utf-8", buf.Bytes())
	putPageBuffer(buf)
	return true
}

// Package api adds typed operations to a Plinth App: handlers of the form
// func(ctx, *In) (*Out, error) whose input is bound from the path, query,
// headers, cookies and body by struct tags and validated by rules compiled
// once at registration, whose output sets the status, headers and body, and
// which are described in an OpenAPI 3.1 document served with a docs page.
//
// Plain Plinth routes and typed operations share one App and one document.
// Native handlers get the same binding and validation of a request body
// through a Binder (NewBinder) or Bind. The document states the rules as
// the validator applies them: both read the rules compiled once from the
// tags. The package depends on the standard library only. See docs/api.md.
package api

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"unsafe"

	"github.com/plinth-go/plinth"
)

// DefaultDocsURL is the renderer script the docs page loads by default: the
// Scalar API reference (@scalar/api-reference), pinned to one version on the
// jsDelivr CDN. Serve a copy yourself and set Config.DocsURL for an offline
// or stricter deployment.
const DefaultDocsURL = "https://cdn.jsdelivr.net/npm/@scalar/api-reference@1.76.0/dist/browser/standalone.js"

// Config describes the API document and where it is served. The zero value
// is valid: document at /openapi.json and /openapi.yaml, docs page at /docs.
type Config struct {
	// Title is the document's info.title. Default "API".
	Title string
	// Version is the document's info.version. Default "0.0.0".
	Version string
	// Description is info.description (CommonMark). Default none.
	Description string
	// Servers lists the document's servers. Default none (the document's
	// own origin, for clients).
	Servers []Server

	// OpenAPIPath is the path, without extension, where the document is
	// served: OpenAPIPath+".json" and OpenAPIPath+".yaml". Default
	// "/openapi"; "-" serves no document (and then no docs page either).
	OpenAPIPath string
	// DocsPath is the path of the HTML docs page. Default "/docs"; "-"
	// serves none.
	DocsPath string
	// DocsURL is the URL of the renderer script the docs page loads.
	// Default DefaultDocsURL (Scalar on a CDN). A path on this site
	// ("/assets/scalar.js") self-hosts it. The page's
	// Content-Security-Policy allows exactly this script's origin plus a
	// per-request nonce.
	DocsURL string

	// SecuritySchemes are the document's components.securitySchemes,
	// referenced by name from Operation.Security. Default none.
	SecuritySchemes map[string]SecurityScheme

	// AllowUnknownFields accepts JSON bodies with members that the Body type
	// does not have. Default false: such a member is a 422 error naming it,
	// and the document's object schemas say additionalProperties: false.
	AllowUnknownFields bool
	// MaxMultipartMemory is the part of a multipart body kept in memory;
	// larger files spill to temporary files. Default 8 MiB. The body as a
	// whole is bounded by the route's body limit (Operation.MaxBodyBytes).
	MaxMultipartMemory int64
	// MaxFiles bounds the number of files in a multipart body; more is a 413
	// problem. Default 16.
	MaxFiles int

	// Message returns the text of one validation error, for translation or
	// rewording: code is the failed rule ("required", "min", "max",
	// "minLength", "maxLength", "pattern", "enum", "format", "minItems",
	// "maxItems", "type", "unknown", "files") and param its argument (the
	// bound, the pattern, the format or type name, ...). r is the request
	// (its Accept-Language, say). An empty result falls back to the English
	// default. Default nil: English (see DefaultMessage).
	Message func(r *http.Request, code, param string) string
}

// Server is one entry of the document's servers list.
type Server struct {
	URL         string
	Description string
}

// SecurityScheme is one entry of components.securitySchemes: for example
// {Type: "http", Scheme: "bearer", BearerFormat: "JWT"} or {Type: "apiKey",
// In: "header", Name: "X-API-Key"}.
type SecurityScheme struct {
	Type         string // "http", "apiKey", "oauth2", "openIdConnect", "mutualTLS"
	Description  string
	Scheme       string // http: "bearer", "basic", ...
	BearerFormat string // http bearer: a hint such as "JWT"
	Name         string // apiKey: the header, query or cookie name
	In           string // apiKey: "header", "query" or "cookie"
	// OpenIDConnectURL is the discovery URL of an openIdConnect scheme.
	OpenIDConnectURL string
}

// Operation is the metadata of one typed operation.
type Operation struct {
	// Method is the HTTP method, such as http.MethodGet. Required.
	Method string
	// Path is the route path in ServeMux syntax ("/items/{id}"), below the
	// group's prefix. Every {name} wildcard needs a `path:"name"` field in
	// the input. Required.
	Path string
	// OperationID names the operation in the document. Default derived from
	// the method and the full path: "get-items-by-id" for GET /items/{id}.
	// Must be unique; a duplicate panics at registration.
	OperationID string
	Summary     string
	Description string
	Tags        []string
	// DefaultStatus is the status of a successful response whose output sets
	// none. Default 201 for POST, 200 otherwise; a nil *Out always answers
	// 204.
	DefaultStatus int
	// Security lists alternative security requirements: each map names
	// schemes of Config.SecuritySchemes and their scopes. Documentation
	// only: enforcing it is middleware's job.
	Security []map[string][]string
	// Deprecated marks the operation deprecated in the document.
	Deprecated bool
	// MaxBodyBytes is this route's request body limit (413 beyond it).
	// Default 0: the route's group limit, or the App's (2 MiB for
	// plinth.New); negative means none.
	MaxBodyBytes int64
	// Errors lists further error statuses the handler returns (404, 409,
	// ...), documented as problem responses next to the 400, 422 and 500
	// (and 413, 415 with a body) that every operation lists.
	Errors []int
	// Hidden keeps the operation out of the document.
	Hidden bool
}

// API is the set of typed operations of one App and the document that
// describes them with the App's plain routes. Create it with New, register
// operations with Register, before the App serves.
type API struct {
	app *plinth.App
	cfg Config

	mu      sync.Mutex
	ops     []*opDoc
	ids     map[string]string // operation ID -> pattern
	skip    map[string]bool   // patterns of routes that the document leaves out
	msgs    messages
	bind    bindConfig
	docOnce sync.Once
	docJSON []byte
	docYAML []byte
	docErr  error
}

// New returns the API of app and registers, unless switched off, the
// document routes (GET OpenAPIPath.json and .yaml) and the docs page (GET
// DocsPath). It panics on a bad Config (a path that is not a path).
func New(app *plinth.App, cfg Config) *API {
	if app == nil {
		panic("api: New(nil, ...)")
	}
	if cfg.Title == "" {
		cfg.Title = "API"
	}
	if cfg.Version == "" {
		cfg.Version = "0.0.0"
	}
	if cfg.OpenAPIPath == "" {
		cfg.OpenAPIPath = "/openapi"
	}
	if cfg.DocsPath == "" {
		cfg.DocsPath = "/docs"
	}
	if cfg.DocsURL == "" {
		cfg.DocsURL = DefaultDocsURL
	}
	cfg = cfg.withBindDefaults()
	a := &API{app: app, cfg: cfg, ids: map[string]string{}, skip: map[string]bool{}}
	a.msgs = messages{custom: cfg.Message}
	a.bind = cfg.bindConfig()
	if cfg.OpenAPIPath != "-" {
		mustPath("OpenAPIPath", cfg.OpenAPIPath)
		a.serveDocument()
		if cfg.DocsPath != "-" {
			mustPath("DocsPath", cfg.DocsPath)
			a.serveDocs()
		}
	}
	return a
}

// withBindDefaults fills in the binding defaults of a Config.
func (cfg Config) withBindDefaults() Config {
	if cfg.MaxMultipartMemory <= 0 {
		cfg.MaxMultipartMemory = 8 << 20
	}
	if cfg.MaxFiles <= 0 {
		cfg.MaxFiles = 16
	}
	return cfg
}

func (cfg Config) bindConfig() bindConfig {
	return bindConfig{msgs: messages{custom: cfg.Message}, allowUnknown: cfg.AllowUnknownFields,
		maxMemory: cfg.MaxMultipartMemory, maxFiles: cfg.MaxFiles}
}

func mustPath(field, p string) {
	if !strings.HasPrefix(p, "/") || strings.ContainsAny(p, " \t{}") {
		panic(fmt.Sprintf("api: Config.%s %q must be a path such as /openapi, or \"-\"", field, p))
	}
}

// App returns the App the API registers on.
func (a *API) App() *plinth.App { return a.app }

// Group is a set of operations below a path prefix, on a plinth group of the
// same prefix: middleware added to its Router wraps its operations.
type Group struct {
	api    *API
	router *plinth.Router
	prefix string
}

// Registrar is where Register puts an operation: the *API (the App's root)
// or a *Group.
type Registrar interface {
	registrar() (*API, *plinth.Router, string)
}

func (a *API) registrar() (*API, *plinth.Router, string) { return a, a.app.Router, "" }
func (g *Group) registrar() (*API, *plinth.Router, string) {
	return g.api, g.router, g.prefix
}

// Group returns the operations group below prefix (a path such as "/v1"),
// backed by app.Group(prefix), and calls each fn with it.
func (a *API) Group(prefix string, fn ...func(*Group)) *Group {
	return newGroup(a, a.app.Router, "", prefix, fn)
}

// Group returns a group below this group's prefix.
func (g *Group) Group(prefix string, fn ...func(*Group)) *Group {
	return newGroup(g.api, g.router, g.prefix, prefix, fn)
}

// Router returns the plinth group behind g, for middleware (Use),
// fallbacks and plain routes under the same prefix.
func (g *Group) Router() *plinth.Router { return g.router }

func newGroup(a *API, parent *plinth.Router, base, prefix string, fn []func(*Group)) *Group {
	g := &Group{api: a, router: parent.Group(prefix), prefix: base + strings.TrimSuffix(prefix, "/")}
	for _, f := range fn {
		f(g)
	}
	return g
}

// Register adds a typed operation: a route for op.Method and op.Path whose
// handler binds and validates an In, calls h with the request's context and
// writes the *Out it returns (see the package documentation and
// docs/api.md for the tags). An error from h goes to the App's error
// renderer: return a *plinth.Problem for a status other than 500.
//
// In and Out are analysed here, once: Register panics on a type it cannot
// bind or describe, a path wildcard without a `path` field, a bad validate
// or default tag (a default that the field's own rules refuse included), or
// a duplicate operation ID. The rules compiled here are what the document
// states: see docs/api.md for the semantics of absent and empty values.
func Register[In, Out any](r Registrar, op Operation, h func(context.Context, *In) (*Out, error)) {
	if h == nil {
		panic("api: Register: nil handler for " + op.Method + " " + op.Path)
	}
	register[In, Out](r, op, func(c *plinth.Ctx, in *In) (*Out, error) { return h(c.Context(), in) })
}

// RegisterCtx is Register for a handler that wants the *plinth.Ctx (the
// request, the App's state, the request ID).
func RegisterCtx[In, Out any](r Registrar, op Operation, h func(*plinth.Ctx, *In) (*Out, error)) {
	if h == nil {
		panic("api: RegisterCtx: nil handler for " + op.Method + " " + op.Path)
	}
	register[In, Out](r, op, h)
}

func register[In, Out any](r Registrar, op Operation, h func(*plinth.Ctx, *In) (*Out, error)) {
	a, router, prefix := r.registrar()
	op.Method = strings.ToUpper(strings.TrimSpace(op.Method))
	if op.Method == "" || strings.ContainsAny(op.Method, " \t/") {
		panic(fmt.Sprintf("api: operation %q: Method is required", op.Path))
	}
	if !strings.HasPrefix(op.Path, "/") && !(op.Path == "" && prefix != "") {
		panic(fmt.Sprintf("api: operation %s %q: Path must start with '/'", op.Method, op.Path))
	}
	full := prefix + op.Path
	if op.DefaultStatus == 0 {
		op.DefaultStatus = http.StatusOK
		if op.Method == http.MethodPost {
			op.DefaultStatus = http.StatusCreated
		}
	}
	if op.OperationID == "" {
		op.OperationID = deriveID(op.Method, full)
	}
	where := op.Method + " " + full
	in := analyseInput[In](a, where)
	in.checkPath(where, full)
	out := analyseOutput[Out](where)
	if _, err := newValidators(false).compile(reflect.TypeFor[Out](), nil, asValue); err != nil {
		panic(fmt.Sprintf("api: %s: output %s: %v", where, reflect.TypeFor[Out](), err))
	}
	form := in.body != nil && in.body.form
	_, hook := any((*In)(nil)).(Validator)

	a.mu.Lock()
	if prev, dup := a.ids[op.OperationID]; dup {
		a.mu.Unlock()
		panic(fmt.Sprintf("api: operation ID %q of %s is already used by %s", op.OperationID, where, prev))
	}
	a.ids[op.OperationID] = where
	a.ops = append(a.ops, &opDoc{op: op, path: full, in: in, out: out})
	a.skip[where] = true
	a.mu.Unlock()

	status := op.DefaultStatus
	handler := func(c *plinth.Ctx) error {
		if form {
			// The uploaded files are the handler's until it has answered;
			// then they go (the App removes them too, at the request's end).
			defer removeForm(c.Request())
		}
		v := new(In)
		if err := in.bind(c, unsafe.Pointer(v)); err != nil {
			return err
		}
		if hook {
			if err := runHook(c, any(v).(Validator)); err != nil {
				return err
			}
		}
		o, err := h(c, v)
		if err != nil {
			return err
		}
		if o == nil {
			return c.NoContent(http.StatusNoContent)
		}
		return out.write(c, o, status)
	}
	target := router
	if op.MaxBodyBytes != 0 {
		target = router.Group("")
		target.SetBodyLimit(op.MaxBodyBytes)
	}
	target.Handle(where[:len(op.Method)+1]+op.Path, plinth.HandlerFunc(handler))
}

// deriveID makes "get-items-by-id" of GET /items/{id}.
func deriveID(method, path string) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(method))
	for _, seg := range strings.Split(path, "/") {
		if seg == "" || seg == "{$}" {
			continue
		}
		b.WriteByte('-')
		if strings.HasPrefix(seg, "{") {
			b.WriteString("by-")
			seg = strings.TrimSuffix(strings.Trim(seg, "{}"), "...")
		}
		for _, r := range seg {
			switch {
			case r >= 'A' && r <= 'Z':
				b.WriteRune(r + 'a' - 'A')
			case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
				b.WriteRune(r)
			default:
				b.WriteByte('-')
			}
		}
	}
	return b.String()
}

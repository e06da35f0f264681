// Package api adds typed operations to a Plinth App: handlers of the form
// func(ctx, *In) (*Out, error) whose input is bound from the path, query,
// headers, cookies and body by struct tags and validated by rules compiled
// once at registration, whose output sets the status, headers and body, and
// which are described in an OpenAPI 3.1 document served with a docs page.
//
// Plain Plinth routes and typed operations share one App and one document.
// Native handlers get the same binding and validation of a request body
// through a Binder (NewBinder) or Bind, and any value its validator
// (NewChecker). The document states the rules as the validator applies
// them: both read the rules compiled once from the tags; API.Document
// returns it as the typed model of package openapi. The package depends on
// the standard library only. See docs/api.md.
package api

import (
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api/openapi"
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

// Server is one entry of the document's servers list: its URL and an
// optional description.
type Server = openapi.Server

// SecurityScheme is one entry of components.securitySchemes: for example
// {Type: "http", Scheme: "bearer", BearerFormat: "JWT"} or {Type: "apiKey",
// In: "header", Name: "X-API-Key"}.
type SecurityScheme = openapi.SecurityScheme

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
	// schemes of Config.SecuritySchemes and their scopes (or, for schemes
	// other than OAuth2 and OpenID Connect, roles). Documentation only:
	// enforcing it is middleware's job. Default nil: the group's
	// (Group.SetSecurity), none at the root. A secured operation lists a
	// 401 problem response, and a 403 too when a requirement names scopes
	// or roles, without Errors naming them; an empty requirement among the
	// alternatives (credentials optional) lists neither.
	Security []map[string][]string
	// Deprecated marks the operation deprecated in the document.
	Deprecated bool
	// MaxBodyBytes is this route's request body limit (413 beyond it).
	// Default 0: the route's group limit, or the App's (2 MiB for
	// plinth.New); plinth.Off (any negative value) means none.
	MaxBodyBytes int64
	// Errors lists further error statuses the handler returns (404, 409,
	// ...), documented as problem responses next to the 400, 422 and 500
	// (and 413, 415 with a body) that every operation lists, and the 401
	// and 403 that Security implies.
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
	ids     map[string]string         // operation ID -> pattern
	skip    map[string]bool           // patterns of routes that the document leaves out
	schemes map[string]SecurityScheme // declared by Group.SetSecurity
	msgs    messages
	bind    bindConfig
	docOnce sync.Once
	docJSON []byte
	docYAML []byte
	docErr  error
}

// New returns the API of app and registers, unless switched off, the
// document routes (GET OpenAPIPath.json and .yaml) and the docs page (GET
// DocsPath). It makes the document the App's (App.SetOpenAPI), which
// PLINTH_INSPECT=openapi and `plinth openapi` print. It panics on a bad
// Config (a path that is not a path).
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
	app.SetOpenAPI(a.JSON) // PLINTH_INSPECT=openapi, `plinth openapi`
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

// bindConfig returns what binding takes from cfg (its defaults filled in).
func (cfg Config) bindConfig() bindConfig {
	return bindConfig{msgs: messages{custom: cfg.Message}, allowUnknown: cfg.AllowUnknownFields,
		maxMemory: cfg.MaxMultipartMemory, maxFiles: cfg.MaxFiles}
}

// mustPath panics unless p, the value of the Config field named field, is
// a path without blanks or wildcards.
func mustPath(field, p string) {
	if !strings.HasPrefix(p, "/") || strings.ContainsAny(p, " \t{}") {
		panic(fmt.Sprintf("api: Config.%s %q must be a path such as /openapi, or \"-\"", field, p))
	}
}

// App returns the App the API registers on.
func (a *API) App() *plinth.App { return a.app }
